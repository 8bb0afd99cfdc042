"""StickyAssignor and CooperativeStickyAssignor as Kafka 4.2 runs them
(clients/.../consumer/internals/AbstractStickyAssignor.java: ``allSubscriptionsEqual`` picks the
``ConstrainedAssignmentBuilder`` below for members with one subscription, else the general
builder of :mod:`.sticky_general`; both rack-aware through :mod:`.sticky_racks`;
CooperativeStickyAssignor.java for the withholding).

The builders are the same in both modes. What differs is what they are fed:

* Kafka mode reads each member's claim as Kafka does (StickyAssignor: its user data only;
  CooperativeSticky: the subscription) and resolves clashing claims in the leader's map order,
  comparing against the *other* claimant's subscription generation. Partitions beyond a topic's
  count and partitions listed twice pass through untouched, into the same bookkeeping Kafka
  keeps; where that bookkeeping breaks, the IllegalStateException Kafka throws is raised as a
  PartitionAssignorError naming it.
* groupspec mode drops partitions beyond the count and repeats, gives a clashing partition to
  its one highest-generation claimant (to nobody when several tie), visits members by member id
  and sorts each list at the end.

Which builder runs: Kafka compares each subscription with the first non-empty one it met in map
order, so a member subscribed to nothing that comes first is not noticed, and the constrained
builder may hand it partitions (the Kafka mode does so); groupspec takes the constrained builder
only when every member subscribes to the same topics. After the general builder,
CooperativeSticky withholds what Kafka's ``computePartitionsTransferringOwnership`` names (a
partition given to a member that did not list it, which some member listed and was not given).

groupspec mode runs the constrained builder only in the plain case (one subscription, not
rack-aware); every other group gets the spec's rules (:mod:`.sticky_rules`), and
CooperativeSticky withholds by the constrained path's rule (a partition whose valid owner is
another member, or whose ownership is disputed).
"""

from __future__ import annotations

from collections.abc import Sequence

from groupspec.impl.classic_assignors import sticky_rules
from groupspec.impl.classic_assignors.orders import java_key, partition_key, sorted_topics
from groupspec.impl.classic_assignors.sticky_general import GeneralBuilder
from groupspec.impl.classic_assignors.sticky_racks import RackInfo
from groupspec.types import PartitionAssignorError
from groupspec.types.classic_assignors import (
    COOPERATIVE_STICKY,
    STICKY,
    ClassicAssignorInput,
    ClassicMember,
    TopicPartition,
    decode_sticky_user_data,
)

Assignment = dict[str, list[TopicPartition]]


def _subscription_generation(m: ClassicMember) -> int:
    return m.generation_id if m.generation_id is not None and m.generation_id >= 0 else -1


def member_claim(assignor: str, m: ClassicMember) -> tuple[list[TopicPartition], int | None]:
    """The member's ``MemberData``: owned partitions and generation (None: Kafka's empty
    Optional, which the general builder tells apart from -1)."""
    if assignor == STICKY:
        if not m.user_data:
            return [], None
        data = decode_sticky_user_data(m.user_data)
        return list(data.partitions), data.generation
    if _subscription_generation(m) >= 0:
        return list(m.owned_partitions), _subscription_generation(m)
    if m.user_data is None:
        return list(m.owned_partitions), None
    if len(m.user_data) < 4:
        return list(m.owned_partitions), -1
    return list(m.owned_partitions), int.from_bytes(m.user_data[:4], "big", signed=True)


def member_data(assignor: str, m: ClassicMember) -> tuple[list[TopicPartition], int]:
    """The member's owned partitions and generation (-1 when absent)."""
    parts, generation = member_claim(assignor, m)
    return parts, -1 if generation is None else generation


def kafka_owned(
    group: ClassicAssignorInput, members: Sequence[ClassicMember], topics: set[str]
) -> tuple[dict[str, list[TopicPartition]], set[TopicPartition]]:
    """``allSubscriptionsEqual``'s side job, in map order: owned lists and the set of
    partitions claimed twice in one generation."""
    owned: dict[str, list[TopicPartition]] = {}
    multi: set[TopicPartition] = set()
    owner_of: dict[TopicPartition, str] = {}
    by_id = {m.member_id: m for m in members}
    for m in members:
        parts, gen = member_data(group.assignor, m)
        mine: list[TopicPartition] = []
        owned[m.member_id] = mine
        for tp in parts:
            if tp[0] not in topics:
                continue
            other = owner_of.get(tp)
            if other is None:
                mine.append(tp)
                owner_of[tp] = m.member_id
                continue
            other_gen = _subscription_generation(by_id[other])
            if gen == other_gen:
                multi.add(tp)
                _remove_first(owned[other], tp)
                owner_of[tp] = m.member_id
            elif gen > other_gen:
                mine.append(tp)
                _remove_first(owned[other], tp)
                owner_of[tp] = m.member_id
    return owned, multi


def groupspec_owned(
    group: ClassicAssignorInput, members: Sequence[ClassicMember], topics: set[str]
) -> tuple[dict[str, list[TopicPartition]], set[TopicPartition]]:
    """Each existing partition to its sole highest-generation claimant; ties to nobody (and
    into the disputed set, so the cooperative round withholds them)."""
    best: dict[TopicPartition, tuple[int, list[str]]] = {}
    for m in members:
        parts, gen = member_data(group.assignor, m)
        for tp in dict.fromkeys(parts):
            if tp[0] not in topics or not 0 <= tp[1] < group.partition_count(tp[0]):
                continue
            top, who = best.get(tp, (gen, []))
            if gen > top:
                best[tp] = (gen, [m.member_id])
            elif gen == top:
                best[tp] = (top, [*who, m.member_id])
    owned: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    disputed: set[TopicPartition] = set()
    for tp, (_, who) in best.items():
        if len(who) == 1:
            owned[who[0]].append(tp)
        else:
            disputed.add(tp)
    return owned, disputed


def _remove_first(items: list[TopicPartition], tp: TopicPartition) -> None:
    if tp in items:
        items.remove(tp)


def _illegal_state(message: str) -> PartitionAssignorError:
    return PartitionAssignorError(message, kafka_exception="IllegalStateException")


class ConstrainedBuilder:
    """The constrained builder's state: quotas, the two queues of unfilled members, and the
    partitions a member kept beyond its quota (``maybe_revoked``), which the cooperative round
    withholds from anyone else.

    Kafka ends with ``verifyUnfilledMembers``, which throws if a member is still below the
    minimum quota; it never can: the partitions left to deal are at least the shortfall of the
    members below it (the merge walk skips only kept partitions, and every kept claim, even a
    nonexistent or repeated one, counts toward its member's total, while at most ``N % C``
    members keep one more than the minimum), and a member leaves the under list the moment it
    reaches the minimum. So that check, and the over-quota count only it reads after the rack
    phase, are left out here.
    """

    def __init__(
        self,
        group: ClassicAssignorInput,
        owned: dict[str, list[TopicPartition]],
        multi: set[TopicPartition],
        racks: RackInfo,
    ) -> None:
        self.group = group
        self.racks = racks
        self.topics = sorted_topics(group)
        self.total = sum(group.partition_count(t) for t in self.topics)
        self.owned = owned
        self.multi = multi
        n = len(owned)
        self.min_quota, self.expected_over = divmod(self.total, n) if n else (0, 0)
        self.max_quota = self.min_quota + (1 if self.expected_over else 0)
        self.over = 0
        self.under: list[str] = []
        self.exact: list[str] = []
        self.assignment: Assignment = {m: [] for m in owned}
        self.assigned: list[TopicPartition] = []
        self.maybe_revoked: dict[TopicPartition, str] = {}
        self.transferring: dict[TopicPartition, str] = {}

    def build(self) -> Assignment:
        self._assign_owned()
        unassigned = self._unassigned()
        self.under.sort(key=java_key)
        self.exact.sort(key=java_key)
        unassigned = self.racks.sort_by_rack_consumers(unassigned)
        if self.racks.consumer_racks:
            unassigned = self._rack_round_robin(unassigned)
        self._round_robin(unassigned)
        return self.assignment

    def _assign_owned(self) -> None:
        for member, claimed in self.owned.items():
            matching = []
            for tp in claimed:
                if self.racks.mismatch(member, tp):
                    self.maybe_revoked[tp] = member
                else:
                    matching.append(tp)
            mine = sorted(matching, key=lambda tp: (tp[1], java_key(tp[0])))
            for tp in self.multi:
                _remove_first(mine, tp)
            target = self.assignment[member]
            if len(mine) < self.min_quota:
                target += mine
                self.assigned += mine
                self.under.append(member)
            elif len(mine) >= self.max_quota and self.over < self.expected_over:
                self.over += 1
                if self.over == self.expected_over:
                    self.exact.clear()
                target += mine[: self.max_quota]
                self.assigned += mine[: self.max_quota]
                for tp in mine[self.max_quota :]:
                    self.maybe_revoked[tp] = member
            else:
                target += mine[: self.min_quota]
                self.assigned += mine[: self.min_quota]
                for tp in mine[self.min_quota :]:
                    self.maybe_revoked[tp] = member
                if self.over < self.expected_over:
                    self.exact.append(member)

    def _unassigned(self) -> list[TopicPartition]:
        """The merge walk of ``getUnassignedPartitions``: the kept partitions, sorted, are
        stepped through once beside all partitions; a kept partition that is not among them
        (beyond the count) or comes twice stalls the walk, as it does in Kafka."""
        everything = [(t, p) for t in self.topics for p in range(self.group.partition_count(t))]
        if not self.assigned:
            return everything
        kept = sorted(self.assigned, key=partition_key)
        out: list[TopicPartition] = []
        k = 0
        exhausted = False
        for tp in everything:
            if exhausted or tp != kept[k]:
                out.append(tp)
            elif k + 1 < len(kept):
                k += 1
            else:
                exhausted = True
        return out

    def _rack_round_robin(self, unassigned: list[TopicPartition]) -> list[TopicPartition]:
        """assignRackAwareRoundRobin: each partition, in order, to the next member below the
        minimum on one of its racks (turns go on from the last one served), else to the first
        member waiting at the minimum on one of its racks; what neither takes is returned."""
        left: list[TopicPartition] = []
        turn = 0
        for tp in unassigned:
            member = None
            at = self.racks.next_rack_consumer(tp, self.under, turn)
            if at >= 0:
                member = self.under[at]
                count = len(self.assignment[member]) + 1
                if count >= self.min_quota:
                    self.under.remove(member)
                    if count < self.max_quota and self.over < self.expected_over:
                        self.exact.append(member)
                else:
                    at += 1
                turn = at % len(self.under) if self.under else 0
            elif self.exact:
                first = self.racks.next_rack_consumer(tp, self.exact, 0)
                if first >= 0:
                    member = self.exact[first]
                    if len(self.assignment[member]) + 1 == self.max_quota:
                        del self.exact[first]
                        self.over += 1
                        if self.over == self.expected_over:
                            self.exact.clear()
            if member is None:
                left.append(tp)
            else:
                self._give(tp, member)
        return left

    def _round_robin(self, unassigned: list[TopicPartition]) -> None:
        turn = 0
        for tp in unassigned:
            if turn < len(self.under):
                member = self.under[turn]
                turn += 1
            elif not self.under and not self.exact:
                raise _illegal_state("No more unfilled consumers to be assigned.")
            elif not self.under:
                member = self.exact.pop(0)
            else:
                member = self.under[0]
                turn = 1
            if self._give(tp, member) == self.min_quota:
                # Kafka removes through the under-list iterator: the member it last returned.
                turn -= 1
                del self.under[turn]
                self.exact.append(member)

    def _give(self, tp: TopicPartition, member: str) -> int:
        self.assignment[member].append(tp)
        revoked_by = self.maybe_revoked.get(tp)
        if (revoked_by is not None and revoked_by != member) or tp in self.multi:
            self.transferring[tp] = member
        return len(self.assignment[member])


def kafka_subscriptions_equal(members: Sequence[ClassicMember]) -> bool:
    """allSubscriptionsEqual's verdict: each subscription against the first non-empty one met in
    map order (so empty ones before it pass unnoticed)."""
    first: set[str] = set()
    for m in members:
        if not first:
            first = set(m.topics)
        elif set(m.topics) != first:  # a topic listed twice is refused by check_input
            return False
    return True


def assign(group: ClassicAssignorInput, members: Sequence[ClassicMember], *, kafka: bool) -> Assignment:
    """``members`` in the leader's map order (Kafka mode) or by member id (groupspec mode)."""
    if kafka and not members:
        # The constrained builder's ``total % members``: an int division by zero.
        raise PartitionAssignorError("/ by zero", kafka_exception="ArithmeticException")
    topic_list = sorted_topics(group)
    topics = set(topic_list)
    owned, multi = kafka_owned(group, members, topics) if kafka else groupspec_owned(group, members, topics)
    racks = RackInfo(group, members, topic_list)
    if kafka:
        out, transferring = _kafka_builders(group, members, owned, multi, racks)
    elif len({frozenset(m.topics) for m in members}) <= 1 and not racks.consumer_racks:
        builder = ConstrainedBuilder(group, owned, multi, racks)
        out, transferring = builder.build(), builder.transferring
    else:
        out = sticky_rules.build(group, members, owned, racks)
        transferring = _withheld(owned, out, multi)
    if group.assignor == COOPERATIVE_STICKY:
        for tp, member in transferring.items():
            _remove_first(out[member], tp)
    return {m.member_id: out[m.member_id] for m in group.members}


def _kafka_builders(
    group: ClassicAssignorInput,
    members: Sequence[ClassicMember],
    owned: dict[str, list[TopicPartition]],
    multi: set[TopicPartition],
    racks: RackInfo,
) -> tuple[Assignment, dict[TopicPartition, str]]:
    """Kafka's choice of builder, its answer, and what CooperativeSticky then withholds."""
    if kafka_subscriptions_equal(members):
        builder = ConstrainedBuilder(group, owned, multi, racks)
        return builder.build(), builder.transferring
    claims = {m.member_id: member_claim(group.assignor, m) for m in members}
    out = GeneralBuilder(group, members, owned, claims, racks).build()
    return out, _kafka_transferring(members, out) if group.assignor == COOPERATIVE_STICKY else {}


def _kafka_transferring(members: Sequence[ClassicMember], out: Assignment) -> dict[TopicPartition, str]:
    """computePartitionsTransferringOwnership: a partition given to a member that did not list
    it as owned, which some member listed and is not given."""
    added: dict[TopicPartition, str] = {}
    revoked: set[TopicPartition] = set()
    for m in members:
        owned, given = set(m.owned_partitions), out[m.member_id]
        for tp in given:
            if tp not in owned:
                added[tp] = m.member_id
        revoked |= owned - set(given)
    return {tp: member for tp, member in added.items() if tp in revoked}


def _withheld(
    owned: dict[str, list[TopicPartition]], out: Assignment, disputed: set[TopicPartition]
) -> dict[TopicPartition, str]:
    """groupspec's rule: a partition given to anyone but its valid owner, or whose ownership is
    disputed."""
    owner = {tp: m for m, parts in owned.items() for tp in parts}
    return {
        tp: member
        for member, parts in out.items()
        for tp in parts
        if tp in disputed or owner.get(tp, member) != member
    }

"""Kafka 4.2's general sticky builder: the path AbstractStickyAssignor takes when the members'
subscriptions differ (``GeneralAssignmentBuilder`` and ``PartitionMovements`` in
clients/.../consumer/internals/AbstractStickyAssignor.java), rack handling included.

The builder keeps every member's owned partitions of topics it still subscribes to (and whose
replicas sit on its rack, when the group is rack-aware), hands each other partition to the least
loaded member that may take it, then moves partitions one at a time from a member to one with
at least two fewer until no such move is left (or the pass over all partitions changes nothing).
Its choices are Kafka's own; what is left to Java collections is fixed here:

* The least loaded member is the first of a TreeSet ordered by (partition count, member id):
  a sorted list of those keys (:class:`_Ranking`).
* When a partition is asked to move from ``a`` to ``b`` while some partition of the same topic
  has already moved from ``b`` to ``a``, Kafka moves that one back instead, the first its
  HashSet of TopicPartitions yields: that HashSet is reproduced
  (impl/simple_assignor/java_collections.py, with TopicPartition's hash code).
* Kafka reads a member's size through maps that no longer hold the members it set aside as
  unable to move anything; on the inputs that reach such a read (claims beyond a topic's count,
  or a partition handed back to an older owner that was set aside) Java throws
  NullPointerException, raised here as a PartitionAssignorError naming it.

Only the Kafka-exact mode runs this builder; groupspec's mode answers such groups by the spec's
rules (:mod:`.sticky_rules`).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from groupspec.impl.classic_assignors.orders import java_key
from groupspec.impl.classic_assignors.sticky_racks import RackInfo
from groupspec.impl.simple_assignor.java_collections import JavaHashSet, int32, string_hash
from groupspec.types import PartitionAssignorError
from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition

Assignment = dict[str, list[TopicPartition]]


def topic_partition_hash(tp: TopicPartition) -> int:
    """TopicPartition.hashCode: ``31 * (31 + partition) + topic.hashCode()`` in int32."""
    return int32(31 * (31 + tp[1]) + string_hash(tp[0]))


def _npe(where: str) -> PartitionAssignorError:
    return PartitionAssignorError(
        f"general sticky builder: {where} of a member it set aside", kafka_exception="NullPointerException"
    )


class _Ranking:
    """The TreeSet of members by (count, member id). A member's key is computed on entry and on
    removal from its count at that moment, so counts change only while it is out of the set
    (the builder takes a member out before changing its count, as Kafka's does)."""

    def __init__(self, sizes: Assignment) -> None:
        self.sizes = sizes
        self.keys: list[tuple[int, bytes, str]] = []

    def _key(self, member: str) -> tuple[int, bytes, str]:
        return (len(self.sizes[member]), java_key(member), member)

    def add(self, member: str) -> None:
        bisect.insort(self.keys, self._key(member))

    def remove(self, member: str) -> None:
        del self.keys[bisect.bisect_left(self.keys, self._key(member))]

    def members(self) -> list[str]:
        return [k[2] for k in self.keys]


class _Movements:
    """PartitionMovements: for each moved partition its first source and current holder, and per
    topic the partitions moved between each ordered pair of members."""

    def __init__(self) -> None:
        self.moves: dict[TopicPartition, tuple[str, str]] = {}
        self.by_topic: dict[str, dict[tuple[str, str], JavaHashSet[TopicPartition]]] = {}

    def _remove_record(self, tp: TopicPartition) -> tuple[str, str]:
        pair = self.moves.pop(tp)
        pairs = self.by_topic[tp[0]]
        pairs[pair].remove(tp)
        if not len(pairs[pair]):
            del pairs[pair]
        if not pairs:
            del self.by_topic[tp[0]]
        return pair

    def _add_record(self, tp: TopicPartition, pair: tuple[str, str]) -> None:
        self.moves[tp] = pair
        pairs = self.by_topic.setdefault(tp[0], {})
        if pair not in pairs:
            pairs[pair] = JavaHashSet(topic_partition_hash)
        pairs[pair].add(tp)

    def move(self, tp: TopicPartition, old: str, new: str) -> None:
        if tp in self.moves:
            src, _ = self._remove_record(tp)
            if src != new:
                self._add_record(tp, (src, new))
        else:
            self._add_record(tp, (old, new))

    def actual_partition(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        """The partition to move when ``tp`` is asked to go from ``old`` to ``new``: one that
        went the other way earlier, if any (so no two members swap partitions of a topic)."""
        pairs = self.by_topic.get(tp[0])
        if pairs is None:
            return tp
        if tp in self.moves:
            old = self.moves[tp][0]
        back = pairs.get((new, old))
        if back is None:
            return tp
        return back.order()[0]


@dataclass
class _Prev:
    member: str
    generation: int


class GeneralBuilder:
    """One run of the general builder; ``build`` returns each member's list in Kafka's order."""

    def __init__(
        self,
        group: ClassicAssignorInput,
        members: Sequence[ClassicMember],
        owned: dict[str, list[TopicPartition]],
        claims: dict[str, tuple[list[TopicPartition], int | None]],
        racks: RackInfo,
    ) -> None:
        self.group = group
        self.racks = racks
        self.members = list(members)
        self.claims = claims
        topics = {t for m in members for t in m.topics if group.partition_count(t) > 0}
        self.count = {t: group.partition_count(t) for t in topics}
        self.potential: dict[str, list[str]] = {t: [] for t in topics}
        self.topics_of: dict[str, list[str]] = {}
        for m in members:
            mine = [t for t in m.topics if t in self.count]
            self.topics_of[m.member_id] = mine
            for t in mine:
                self.potential[t].append(m.member_id)
        self.current: Assignment = {m.member_id: list(owned.get(m.member_id, [])) for m in members}
        self.holder: dict[TopicPartition, str] = {}
        for member, parts in self.current.items():
            for tp in parts:
                self.holder[tp] = member
        ordered = sorted(topics, key=lambda t: (len(self.potential[t]), java_key(t)))
        self.all_partitions = [(t, p) for t in ordered for p in range(self.count[t])]
        self.ranking = _Ranking(self.current)
        self.movements = _Movements()
        self.revocation_required = False
        self.max_generation = max([-1] + [g for _, g in claims.values() if g is not None])

    # -- the build -----------------------------------------------------------------------------

    def build(self) -> Assignment:
        prev = self._previous_owners()
        assigned = self._keep_owned()
        unassigned = self._unassigned(assigned)
        for member in self.current:
            self.ranking.add(member)
        self._balance(prev, unassigned)
        return self.current

    def _previous_owners(self) -> dict[TopicPartition, _Prev]:
        """prepopulateCurrentAssignments: per partition, the highest claim among members below
        the highest generation (first claimant on a tie, in member order); a claim without a
        generation counts as -1 once any member has one."""
        prev: dict[TopicPartition, _Prev] = {}
        for m in self.members:
            parts, generation = self.claims[m.member_id]
            if generation is not None and generation < self.max_generation:
                gen = generation
            elif generation is None and self.max_generation > -1:
                gen = -1
            else:
                continue
            for tp in parts:
                if tp not in prev or gen > prev[tp].generation:
                    prev[tp] = _Prev(m.member_id, gen)
        return prev

    def _keep_owned(self) -> list[TopicPartition]:
        assigned: list[TopicPartition] = []
        by_id = {m.member_id: m for m in self.members}
        for member, parts in self.current.items():
            kept = []
            for tp in parts:  # claims name assigned topics only (kafka_owned)
                if tp[0] not in by_id[member].topics or self.racks.mismatch(member, tp):
                    self.revocation_required = True
                else:
                    kept.append(tp)
                    assigned.append(tp)
            self.current[member] = kept
        return assigned

    def _unassigned(self, assigned: list[TopicPartition]) -> list[TopicPartition]:
        """The merge walk of getUnassignedPartitions (a kept claim beyond its topic's count
        stalls it, as in Kafka); with nothing kept, the list of all partitions itself."""
        if not assigned:
            return self.all_partitions
        rank = {t: (len(self.potential[t]), java_key(t)) for t in self.count}
        kept = sorted(assigned, key=lambda tp: (rank[tp[0]], tp[1]))
        out: list[TopicPartition] = []
        k, exhausted = 0, False
        for tp in self.all_partitions:
            if exhausted or tp != kept[k]:
                out.append(tp)
            elif k + 1 < len(kept):
                k += 1
            else:
                exhausted = True
        return out

    # -- sizes, Kafka's way ----------------------------------------------------------------------

    def _size(self, member: str | None, where: str) -> int:
        parts = self.current.get(member) if member is not None else None
        if parts is None:
            raise _npe(where)
        return len(parts)

    def _max_size(self, member: str) -> int:
        return sum(self.count[t] for t in self.topics_of[member])

    # -- dealing -------------------------------------------------------------------------------

    def _assign_one(self, tp: TopicPartition, with_racks: bool) -> bool:
        for member in self.ranking.members():
            if tp[0] in self.topics_of[member] and not (with_racks and self.racks.mismatch(member, tp)):
                self.ranking.remove(member)
                self.current[member].append(tp)
                self.holder[tp] = member
                self.ranking.add(member)
                return True
        return False

    def _deal(self, partitions: list[TopicPartition], with_racks: bool, drop: bool) -> list[TopicPartition]:
        left = []
        for tp in partitions:  # every topic here has a subscriber
            if not (self._assign_one(tp, with_racks) and drop):
                left.append(tp)
        return left

    # -- balancing -----------------------------------------------------------------------------

    def _movable_topic(self, topic: str) -> bool:
        return len(self.potential[topic]) >= 2

    def _movable_member(self, member: str) -> bool:
        parts = self.current[member]
        if len(parts) < self._max_size(member):
            return True
        return any(self._movable_topic(t) for t, _ in parts)

    def _balance(self, prev: dict[TopicPartition, _Prev], unassigned: list[TopicPartition]) -> None:
        initializing = not self.current[self.ranking.members()[-1]]
        to_deal = unassigned
        if self.racks.consumer_racks:
            to_deal = self._deal(list(unassigned), True, True)
        self._deal(to_deal, False, False)

        fixed_topics = {t for t in self.count if not self._movable_topic(t)}
        self.all_partitions = [tp for tp in self.all_partitions if tp[0] not in fixed_topics]
        unassigned = [tp for tp in unassigned if tp[0] not in fixed_topics]

        fixed: Assignment = {}
        for member in list(self.topics_of):
            if not self._movable_member(member):
                self.ranking.remove(member)
                fixed[member] = self.current.pop(member)

        before = {m: list(ps) for m, ps in self.current.items()}
        before_holder = dict(self.holder)
        if not self.revocation_required:
            self._reassign(unassigned, prev)
        moved = self._reassign(self.all_partitions, prev)
        if not initializing and moved and _score(self.current) >= _score(before):
            self.current.clear()
            self.current.update(before)
            self.holder = before_holder
        for member, parts in fixed.items():
            self.current[member] = parts
            self.ranking.add(member)

    def _balanced(self) -> bool:
        ranked = self.ranking.members()
        if not ranked:
            raise PartitionAssignorError(
                "general sticky builder: every member set aside", kafka_exception="NoSuchElementException"
            )
        if self._size(ranked[0], "size") >= self._size(ranked[-1], "size") - 1:
            return True
        where: dict[TopicPartition, str] = {}
        for member, parts in self.current.items():
            for tp in parts:
                where[tp] = member
        for member in ranked:
            parts = self.current[member]
            if len(parts) == self._max_size(member):
                continue
            mine = set(parts)
            for t in self.topics_of[member]:
                for p in range(self.count[t]):
                    if (t, p) not in mine and len(parts) + 1 < self._size(where.get((t, p)), "isBalanced"):
                        return False
        return True

    def _reassign(self, partitions: list[TopicPartition], prev: dict[TopicPartition, _Prev]) -> bool:
        performed = False
        modified = True
        seen: set[tuple[object, ...]] = set()
        while modified:
            modified = False
            self._no_cycle(seen)
            for tp in partitions:
                if self._balanced():
                    break
                member = self.holder.get(tp)
                size = self._size(member, "performReassignments")
                assert member is not None
                back = prev.get(tp)
                if back is not None and size > self._size(back.member, "the older owner's size") + 1:
                    self._move(tp, back.member)
                    performed = modified = True
                    continue
                if self._lighter_subscriber(tp, member, size):
                    self._move(tp, self._least_loaded(tp[0]))
                    performed = modified = True
        return performed

    def _no_cycle(self, seen: set[tuple[object, ...]]) -> None:
        """Kafka's pass can cycle for ever: a partition asked to move on to a member that one of
        its topic's partitions left is swapped for that one (PartitionMovements), which can put
        back the very move that made the request, pass after pass. What the pass decides reads
        only who holds what and the movement records, so a pass that starts from a state an
        earlier one started from never ends; Kafka's leader hangs there, this raises."""
        state = (
            tuple(sorted(self.holder.items())),
            tuple(sorted((t, pair, tuple(s.order())) for t, pairs in self.movements.by_topic.items()
                         for pair, s in pairs.items())),
        )
        if state in seen:
            raise PartitionAssignorError(
                "general sticky builder: its balancing pass repeats itself and never ends (Kafka's hangs)",
                kafka_exception="none (Kafka's leader loops for ever)",
            )
        seen.add(state)

    def _lighter_subscriber(self, tp: TopicPartition, member: str, size: int) -> bool:
        """Whether a subscriber of ``tp``'s topic holds at least two fewer than ``member``.
        Kafka asks the subscribers on ``tp``'s racks first (when ``member`` is on one), then
        all; the answer is the same, but which sizes it reads first decides whether it reads
        a set-aside member's (NullPointerException)."""
        rack = self.racks.consumer_racks.get(member)
        racks = self.racks.partition_racks.get(tp, frozenset())
        if rack is not None and rack in racks:
            for other in self.potential[tp[0]]:
                if self.racks.consumer_racks.get(other) in racks and size > self._size(other, "size") + 1:
                    return True
        return any(size > self._size(other, "a subscriber's size") + 1 for other in self.potential[tp[0]])

    def _least_loaded(self, topic: str) -> str:
        return next(m for m in self.ranking.members() if topic in self.topics_of[m])

    def _move(self, tp: TopicPartition, new: str) -> None:
        old = self.holder[tp]
        tp = self.movements.actual_partition(tp, old, new)
        old = self.holder[tp]
        self.ranking.remove(old)
        self.ranking.remove(new)
        self.movements.move(tp, old, new)
        self.current[old].remove(tp)
        self.current[new].append(tp)
        self.holder[tp] = new
        self.ranking.add(new)
        self.ranking.add(old)


def _score(assignment: Assignment) -> int:
    """getBalanceScore: the sum over member pairs of the difference of their counts."""
    sizes = sorted(len(ps) for ps in assignment.values())
    return sum(sizes[j] - sizes[i] for i in range(len(sizes)) for j in range(i + 1, len(sizes)))

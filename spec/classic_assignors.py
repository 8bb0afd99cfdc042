"""The classic consumer group's assignors (Range, RoundRobin, Sticky, CooperativeSticky), as rules.

Theory of operation
-------------------
In a classic group the leader, a consumer, computes everyone's assignment with the assignor the
coordinator picked (clients/.../consumer/RangeAssignor.java, RoundRobinAssignor.java and their
base, internals/AbstractPartitionAssignor.java). Both see only topics that exist with at least
one partition and that some member subscribes to; every partition of such a topic goes to
exactly one member that subscribes to the topic.

**Member order.** Both visit members in one order: members with a group instance id first,
ordered by it, then the others ordered by member id (AbstractPartitionAssignor.MemberInfo's
compareTo). Strings compare as Java's String.compareTo does, by UTF-16 code units (which
differs from Python's code point order for characters beyond U+FFFF). Two members with the
same instance id (which a coordinator never lets into one generation) are ordered here by
member id; Kafka leaves them in its member map's hash order.

**Range**, topic by topic: with P partitions and C subscribers, each subscriber gets P // C
partitions and the first P % C subscribers one more; the first subscriber takes the lowest
partition numbers, the next the following ones, and so on.

**Rack-aware Range** (Kafka 4.2, KIP-881). A topic *needs rack matching* when some subscriber
has a rack, some subscriber's rack is among the racks of the topic's replicas, and the
partitions do not all have the same set of replica racks. When any topic of the group needs it,
a rack phase runs before the plain ranges:

* A subscriber's *room* in a topic is ``P // C`` plus one while fewer than ``P % C``
  subscribers already hold more than ``P // C``, minus what it holds (never below 0); a
  subscriber *matches* a partition when it has no rack or its rack is one of the partition's
  replica racks.
* Topics with the same subscribers (and their racks) and the same partition count are
  *co-partitioned*. When there are several, partition numbers are visited in ascending order,
  and partition p of every one of them goes to the first subscriber that matches p in each of
  them and has room in each of them (if any).
* A topic co-partitioned with no other, if it needs rack matching: each subscriber in order
  takes, from its unassigned partitions in ascending order, those it matches, up to its room.
* Topics whose subscribers have no rack take no part in this phase.

Then, every topic: each subscriber in order takes the lowest unassigned partitions up to its
room. So counts stay P // C or one more (exactly P % C get one more), but which subscribers get
the extra and which partitions they hold follow the racks.

**RoundRobin** lists every partition sorted by topic name then number, and deals them out to
the members in member order, cyclically, passing over members that do not subscribe to the
partition's topic: each partition goes to the next subscriber after the one that got the
previous partition.

**Sticky and CooperativeSticky**: each member's *claim* (owned partitions and generation;
Sticky's from its user data) is cleaned into *valid owners* (a claim beyond the count or
repeated claims nothing; the sole highest-generation claimant owns a partition, a tie at the top
voids it). CooperativeSticky withholds a partition given to anyone but its valid owner, or whose
ownership is disputed, until the next round: no partition is revoked and assigned in one round.

*Rack-aware* groups (as Kafka's sticky assignors decide it, once for the whole group): some
member has a rack, some member's rack holds a replica of an assigned topic's partition, and the
partitions do not all have the same set of replica racks. Then a member *matches* a partition
when it has no rack or its rack holds one of the partition's replicas.

*The plain case* (every member subscribes to the same topics, not rack-aware): members, by
member id, keep valid partitions up to the quota (``base`` = partitions // members, ``extra``
of them one more), and the rest are dealt (``sticky_keep``, ``sticky_deal``); the answer is exact.

*Every other group* (different subscriptions, or racks): the rules are properties, which any
answer must have (``check_properties``): every partition of an assigned topic is held once, by
a subscriber; *balanced*: no member holds a partition that a member with at least two fewer
partitions could hold (for CooperativeSticky, counting for each member the withheld partitions
it could hold); *sticky*: no two members hold each other's keepable partitions of one topic
(a *keepable* partition is one its valid owner subscribes to and, rack-aware, matches), and
with one subscription every member keeps at least min(keepable, base) of them; withholding as
above. The spec's own answer (the ``sticky_general`` path) keeps every keepable partition, hands
each other one to the least loaded subscriber (a matching one first when rack-aware), then moves
partitions from the most loaded member to one with two fewer until none is left, preferring
what the receiver validly owned, then what the giver did not, then a partition on the
receiver's rack. Kafka's general builder answers otherwise (its own greedy moves,
impl/classic_assignors/sticky_general.py); both are held to the same properties.

**List order.** groupspec lists each member's partitions sorted by topic name, then number.
Kafka does too, except plain Range (no rack phase), whose lists follow its hash map's order of
topic names (docs/divergences.md, "Classic Range lists topics in hash order").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import icontract

from groupspec.types import InputError
from groupspec.types.classic_assignors import (
    COOPERATIVE_STICKY,
    RANGE,
    STICKY,
    STICKY_ASSIGNORS,
    ClassicAssignment,
    ClassicAssignorInput,
    ClassicMember,
    TopicPartition,
    check_input,
    decode_sticky_user_data,
)


def java_string_key(s: str) -> bytes:
    """A sort key ordering strings as Java's String.compareTo does (UTF-16 code units)."""
    return s.encode("utf-16-be", "surrogatepass")


def member_key(m: ClassicMember) -> tuple[int, bytes, bytes]:
    """Members with an instance id first, by it; then the rest by member id."""
    if m.group_instance_id is not None:
        return (0, java_string_key(m.group_instance_id), java_string_key(m.member_id))
    return (1, java_string_key(m.member_id), b"")


def partition_key(tp: TopicPartition) -> tuple[bytes, int]:
    return (java_string_key(tp[0]), tp[1])


def member_order(group: ClassicAssignorInput) -> list[ClassicMember]:
    return sorted(group.members, key=member_key)


def assigned_topics(group: ClassicAssignorInput) -> list[str]:
    """Topics some member subscribes to that have partitions, in Java string order."""
    names = {t for m in group.members for t in m.topics if group.partition_count(t) > 0}
    return sorted(names, key=java_string_key)


def subscribers(group: ClassicAssignorInput, topic: str) -> list[ClassicMember]:
    return [m for m in member_order(group) if topic in m.topics]


# ---------------------------------------------------------------------------------------------
# Range
# ---------------------------------------------------------------------------------------------


@icontract.require(lambda partitions, members: partitions >= 0 and members > 0)
@icontract.ensure(lambda partitions, result: sum(result) == partitions)
@icontract.ensure(lambda result: max(result) - min(result) <= 1)
def range_counts(partitions: int, members: int) -> list[int]:
    """How many partitions each subscriber position gets without the rack phase."""
    base, extra = divmod(partitions, members)
    return [base + (1 if i < extra else 0) for i in range(members)]


def needs_rack_matching(group: ClassicAssignorInput, topic: str) -> bool:
    member_racks = {m.rack for m in subscribers(group, topic) if m.rack is not None}
    per_partition = [group.racks_of(topic, p) for p in range(group.partition_count(topic))]
    all_racks = frozenset().union(*per_partition)
    if not member_racks or not member_racks & all_racks:
        return False
    return any(racks != all_racks for racks in per_partition)


class _TopicRanges:
    """One topic's subscribers, what each holds, and the room rule of the module docstring."""

    def __init__(self, group: ClassicAssignorInput, topic: str) -> None:
        self.topic = topic
        self.members = subscribers(group, topic)
        self.count = group.partition_count(topic)
        self.base, self.extra = divmod(self.count, len(self.members))
        self.held: dict[str, list[int]] = {m.member_id: [] for m in self.members}
        self.racks = [group.racks_of(topic, p) for p in range(self.count)]

    def unassigned(self) -> list[int]:
        taken = {p for ps in self.held.values() for p in ps}
        return [p for p in range(self.count) if p not in taken]

    def room(self, member: str) -> int:
        above = sum(1 for ps in self.held.values() if len(ps) > self.base)
        return max(0, self.base + (1 if above < self.extra else 0) - len(self.held[member]))

    def matches(self, m: ClassicMember, p: int) -> bool:
        return m.rack is None or m.rack in self.racks[p]

    def take_ranges(self, may_take: Callable[[ClassicMember, int], bool]) -> None:
        for m in self.members:
            fits = [p for p in self.unassigned() if may_take(m, p)]
            self.held[m.member_id] += fits[: self.room(m.member_id)]


def _rack_phase(group: ClassicAssignorInput, topics: list[_TopicRanges]) -> None:
    def subscribers_and_size(t: _TopicRanges) -> tuple[tuple[tuple[str, str | None], ...], int]:
        return tuple(sorted((m.member_id, m.rack) for m in t.members)), t.count

    for t in topics:
        if all(m.rack is None for m in t.members):
            continue
        peers = [u for u in topics if subscribers_and_size(u) == subscribers_and_size(t)]
        if len(peers) == 1:
            if needs_rack_matching(group, t.topic):
                t.take_ranges(t.matches)
        elif t is peers[0]:
            for p in range(t.count):
                for m in t.members:
                    if all(u.matches(m, p) and u.room(m.member_id) > 0 for u in peers):
                        for u in peers:
                            u.held[m.member_id].append(p)
                        break


def any_topic_needs_racks(group: ClassicAssignorInput) -> bool:
    """Does any topic need rack matching?"""
    return any(needs_rack_matching(group, t) for t in assigned_topics(group))


def range_rack_phase(work: Work) -> None:
    """Rack phase: partition p of co-partitioned topics (same subscribers and racks, same
    partition count) to the first subscriber that matches p in all of them and has room in all
    of them; a lone topic that needs it: each subscriber in order takes the partitions it
    matches, up to its room."""
    _rack_phase(work.group, work.ranges)


def range_take(work: Work) -> None:
    """Every topic: each subscriber in order takes the lowest unassigned partitions, up to its
    room."""
    for t in work.ranges:
        t.take_ranges(lambda m, p: True)
    for t in work.ranges:
        for member, parts in t.held.items():
            work.held[member] += [(t.topic, p) for p in parts]


# ---------------------------------------------------------------------------------------------
# RoundRobin
# ---------------------------------------------------------------------------------------------


def roundrobin_deal(work: Work) -> None:
    """All partitions, sorted by topic then number, dealt to the members in member order,
    cyclically, passing over a member that does not subscribe to the partition's topic."""
    members = member_order(work.group)
    nxt = 0
    for topic in assigned_topics(work.group):
        for p in range(work.group.partition_count(topic)):
            while topic not in members[nxt].topics:
                nxt = (nxt + 1) % len(members)
            work.held[members[nxt].member_id].append((topic, p))
            nxt = (nxt + 1) % len(members)


# ---------------------------------------------------------------------------------------------
# Sticky and CooperativeSticky
# ---------------------------------------------------------------------------------------------


def generation_of(m: ClassicMember) -> int | None:
    """The subscription's generation; a negative one is Kafka's absent one."""
    return m.generation_id if m.generation_id is not None and m.generation_id >= 0 else None


def claim(group: ClassicAssignorInput, m: ClassicMember) -> tuple[tuple[TopicPartition, ...], int]:
    """What ``m`` says it owned, and in which generation (-1: unknown).

    Sticky members say it in their user data, the only place StickyAssignor looks; cooperative
    ones in the subscription's owned partitions and generation (the user data's generation when
    the subscription carries none).
    """
    if group.assignor == STICKY:
        if not m.user_data:
            return (), -1
        data = decode_sticky_user_data(m.user_data)
        return data.partitions, -1 if data.generation is None else data.generation
    gen = generation_of(m)
    if gen is None and m.user_data is not None:
        gen = int.from_bytes(m.user_data[:4], "big", signed=True) if len(m.user_data) >= 4 else -1
    return m.owned_partitions, -1 if gen is None else gen


def _claims(group: ClassicAssignorInput) -> dict[TopicPartition, dict[str, int]]:
    """Each existing partition of an assigned topic -> its claimants and their generations.
    A partition a member lists twice is one claim; partitions beyond the count claim nothing."""
    topics = set(assigned_topics(group))
    out: dict[TopicPartition, dict[str, int]] = {}
    for m in group.members:
        parts, gen = claim(group, m)
        for t, p in parts:
            if t in topics and 0 <= p < group.partition_count(t):
                out.setdefault((t, p), {})[m.member_id] = gen
    return out


def valid_owners(group: ClassicAssignorInput) -> dict[TopicPartition, str | None]:
    """Each claimed partition -> its one valid previous owner: the claimant of the highest
    generation when it is alone there; None (nobody keeps it) when several share it."""
    out: dict[TopicPartition, str | None] = {}
    for tp, who in _claims(group).items():
        top = max(who.values())
        best = [m for m, g in who.items() if g == top]
        out[tp] = best[0] if len(best) == 1 else None
    return out


def all_partitions(group: ClassicAssignorInput) -> list[TopicPartition]:
    return [(t, p) for t in assigned_topics(group) for p in range(group.partition_count(t))]


def sticky_quota(group: ClassicAssignorInput) -> tuple[int, int]:
    """(base, extra): every member gets base partitions, ``extra`` of them one more."""
    return divmod(len(all_partitions(group)), len(group.members)) if group.members else (0, 0)


def sticky_keep(work: Work) -> None:
    """Keep: members by member id; each keeps its valid owned partitions, lowest number first,
    up to the base; up to base + 1 if it owns that many and a + 1 slot is left.

    Lowest partition number first, then topic. A + 1 slot is left while fewer than ``extra``
    members kept ``base + 1`` before it. Members left at exactly ``base`` while such slots
    remain wait, in that order, for one more.
    """
    group = work.group
    base, extra = sticky_quota(group)
    owners = valid_owners(group)
    members = sorted(group.members, key=lambda m: java_string_key(m.member_id))
    kept_extra = 0
    for m in members:
        own = sorted(
            (tp for tp, o in owners.items() if o == m.member_id),
            key=lambda tp: (tp[1], java_string_key(tp[0])),
        )
        if len(own) < base:
            work.held[m.member_id] = own
            work.below.append(m.member_id)
        elif extra and len(own) > base and kept_extra < extra:
            work.held[m.member_id] = own[: base + 1]
            kept_extra += 1
            if kept_extra == extra:
                work.waiting.clear()
        else:
            work.held[m.member_id] = own[:base]
            if kept_extra < extra:
                work.waiting.append(m.member_id)


def sticky_deal(work: Work) -> None:
    """Deal the rest, sorted by topic and number: in turns to members below the base; then one
    each to members waiting at the base, first come first served.

    The turns go in member id order, cyclically; a member leaves them when it reaches ``base``
    and then waits for one more at the back of the queue.
    """
    base, _ = sticky_quota(work.group)
    held, below, waiting = work.held, work.below, work.waiting
    kept = {tp for parts in held.values() for tp in parts}
    turn = 0
    for tp in sorted((tp for tp in all_partitions(work.group) if tp not in kept), key=partition_key):
        if below:
            turn %= len(below)
            member = below[turn]
            held[member].append(tp)
            if len(held[member]) == base:
                below.pop(turn)
                waiting.append(member)
            else:
                turn += 1
        else:
            held[waiting.pop(0)].append(tp)


def sticky_rack_aware(group: ClassicAssignorInput) -> bool:
    """Whether racks count for the sticky assignors (the module docstring's rule)."""
    member_racks = {m.rack for m in group.members if m.rack is not None}
    if not member_racks:
        return False
    per_partition = [group.racks_of(t, p) for t, p in all_partitions(group)]
    every = frozenset().union(*per_partition)
    return bool(member_racks & every) and any(racks != every for racks in per_partition)


def sticky_plain(group: ClassicAssignorInput) -> bool:
    """The plain case: one subscription for all, not rack-aware."""
    return len({frozenset(m.topics) for m in group.members}) <= 1 and not sticky_rack_aware(group)


def keepable(group: ClassicAssignorInput) -> dict[str, set[TopicPartition]]:
    """Each member's valid partitions of topics it subscribes to (on its rack, if rack-aware)."""
    aware = sticky_rack_aware(group)
    by_id = {m.member_id: m for m in group.members}
    out: dict[str, set[TopicPartition]] = {m.member_id: set() for m in group.members}
    for tp, owner in valid_owners(group).items():
        if (
            owner is not None
            and tp[0] in by_id[owner].topics
            and (not aware or matches(group, by_id[owner], tp))
        ):
            out[owner].add(tp)
    return out


def matches(group: ClassicAssignorInput, m: ClassicMember, tp: TopicPartition) -> bool:
    return m.rack is None or m.rack in group.racks_of(*tp)


def general_keep(work: Work) -> None:
    """Keep: every member its keepable partitions (valid owned, of topics it still subscribes
    to, and that it matches when rack-aware)."""
    for member, parts in keepable(work.group).items():
        work.held[member] = sorted(parts, key=partition_key)


def _subscribers_of(group: ClassicAssignorInput, tp: TopicPartition) -> list[ClassicMember]:
    return [m for m in group.members if tp[0] in m.topics]


def general_hand_out(work: Work) -> None:
    """Hand out the rest, topics with fewer subscribers first: each to the least loaded
    subscriber, a matching one first when rack-aware."""
    group, held = work.group, work.held
    aware = sticky_rack_aware(group)
    kept = {tp for ps in held.values() for tp in ps}

    def load(m: ClassicMember) -> tuple[int, bytes]:
        return len(held[m.member_id]), java_string_key(m.member_id)

    rest = sorted(
        (tp for tp in all_partitions(group) if tp not in kept),
        key=lambda tp: (len(_subscribers_of(group, tp)), partition_key(tp)),
    )
    for tp in rest:
        subs = _subscribers_of(group, tp)
        candidates = [m for m in subs if not aware or matches(group, m, tp)] or subs
        held[min(candidates, key=load).member_id].append(tp)


def general_balance(work: Work) -> None:
    """Balance: while a member holds a partition that a subscriber with two fewer could take,
    move one from the most loaded such member, preferring what the receiver owned, then what
    the giver did not, then a partition on the receiver's rack."""
    group, held = work.group, work.held
    aware = sticky_rack_aware(group)
    owners = valid_owners(group)
    keep = keepable(group)
    while True:
        pairs = [
            (len(held[x]) - len(held[y.member_id]), x, y)
            for x in held
            for y in group.members
            if len(held[x]) - len(held[y.member_id]) >= 2 and any(tp[0] in y.topics for tp in held[x])
        ]
        if not pairs:
            break
        _, x, y = min(pairs, key=lambda d: (-d[0], java_string_key(d[1]), java_string_key(d[2].member_id)))
        movable = [tp for tp in held[x] if tp[0] in y.topics]
        tp = min(
            movable,
            key=lambda tp: (
                tp not in keep[y.member_id],
                owners.get(tp) == x,
                aware and not matches(group, y, tp),
                partition_key(tp),
            ),
        )
        held[x].remove(tp)
        held[y.member_id].append(tp)


def cooperative(group: ClassicAssignorInput) -> bool:
    """CooperativeSticky?"""
    return group.assignor == COOPERATIVE_STICKY


def withhold(work: Work) -> None:
    """Withhold every partition given to anyone but its valid owner, or whose ownership is
    disputed: its owner revokes it, the next round hands it out."""
    owners = valid_owners(work.group)
    for member, parts in work.held.items():
        work.held[member] = [tp for tp in parts if owners.get(tp, member) == member]


# ---------------------------------------------------------------------------------------------
# The assignor
# ---------------------------------------------------------------------------------------------


def _valid_input(group: ClassicAssignorInput) -> bool:
    try:
        check_input(group)
    except InputError:
        return False
    return True


@dataclass
class Work:
    """An answer being built: what each member holds so far, and what one step hands on to the
    next (Range's per-topic state, the plain sticky path's queues of members below and at the
    base)."""

    group: ClassicAssignorInput
    held: dict[str, list[TopicPartition]]
    below: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)

    @cached_property
    def ranges(self) -> list[_TopicRanges]:
        return [_TopicRanges(self.group, t) for t in assigned_topics(self.group)]


@dataclass(frozen=True)
class Step:
    """One step of a path; with ``when``, only for the groups that question says yes to. The
    docs draw each path from these (``python -m groupspec.diagrams``): a step's box is the first
    paragraph of its docstring, a question's diamond the first line of its."""

    rule: Callable[[Work], None]
    when: Callable[[ClassicAssignorInput], bool] | None = None


@dataclass(frozen=True)
class Path:
    """The steps one kind of group goes through; ``assign`` takes the first path that
    ``applies`` to the group, in the order of PATHS."""

    name: str
    applies: Callable[[ClassicAssignorInput], bool]
    steps: tuple[Step, ...]


def _is_range(group: ClassicAssignorInput) -> bool:
    return group.assignor == RANGE


def _is_sticky_plain(group: ClassicAssignorInput) -> bool:
    return group.assignor in STICKY_ASSIGNORS and sticky_plain(group)


def _is_sticky(group: ClassicAssignorInput) -> bool:
    return group.assignor in STICKY_ASSIGNORS


PATHS = (
    Path("range", _is_range, (Step(range_rack_phase, any_topic_needs_racks), Step(range_take))),
    Path(
        "sticky_plain",
        _is_sticky_plain,
        (Step(sticky_keep), Step(sticky_deal), Step(withhold, cooperative)),
    ),
    Path(
        "sticky_general",
        _is_sticky,
        (Step(general_keep), Step(general_hand_out), Step(general_balance), Step(withhold, cooperative)),
    ),
    Path("roundrobin", lambda group: True, (Step(roundrobin_deal),)),
)


def path_of(group: ClassicAssignorInput) -> Path:
    return next(p for p in PATHS if p.applies(group))


def run_path(path: Path, group: ClassicAssignorInput) -> dict[str, list[TopicPartition]]:
    work = Work(group, {m.member_id: [] for m in group.members})
    for step in path.steps:
        if step.when is None or step.when(group):
            step.rule(work)
    return work.held


@icontract.require(_valid_input, "a known assignor, unique member ids, int32 counts, racks per partition")
@icontract.ensure(lambda group, result: is_valid_assignment(group, result))
def assign(group: ClassicAssignorInput) -> ClassicAssignment:
    """Every member's partitions (members with none map to ()), sorted by topic, then number."""
    raw = run_path(path_of(group), group)
    return {m: tuple(sorted(parts, key=partition_key)) for m, parts in raw.items()}


# ---------------------------------------------------------------------------------------------
# Properties any valid answer satisfies (contracts, tests, vectors)
# ---------------------------------------------------------------------------------------------

PROPERTIES = (
    "complete",
    "subscribed",
    "exactly_once",
    "balanced",
    "ranges",
    "ordered",
    "sticky",
    "revoke_first",
)


def check_properties(group: ClassicAssignorInput, result: ClassicAssignment) -> dict[str, bool]:
    """Each property of PROPERTIES -> whether ``result`` satisfies it for ``group``.

    complete:     exactly the group's members appear.
    subscribed:   a member holds only existing partitions of topics it subscribes to.
    exactly_once: every partition of every assigned topic is held once, by one member.
    balanced:     Range: in each topic every subscriber holds P // C or one more partition.
                  RoundRobin: when all members subscribe to the same topics, members' totals
                  differ by at most one.
    ranges:       Range without a rack phase: in each topic the subscribers, in member order,
                  hold consecutive runs of partitions from 0 up, the first P % C one longer.
                  (Nothing to check for RoundRobin or when the rack phase runs.)
    ordered:      each member's list is sorted by topic name, then partition number.
    sticky:       Sticky assignors, plain case: every member still holds at least
                  min(valid owned, base) of the partitions it validly owned (``valid_owners``):
                  only balance moves them. Other groups: no two members hold each other's
                  keepable partitions of one topic, and with one subscription every member
                  keeps at least min(keepable, base).
    revoke_first: CooperativeSticky: no member is given a partition another member validly
                  owned or whose ownership is disputed; every partition nobody holds is one of
                  those (withheld until its owner revokes it). For Sticky, exactly_once covers it.

    For the sticky assignors ``balanced`` means, in the plain case: members' totals differ by at
    most one (Sticky), no member holds more than the ceiling of partitions / members
    (CooperativeSticky, whose withheld partitions leave some members short for a round); in
    other groups: no member holds a partition of a topic another member subscribes to while
    holding two more than it, plus (CooperativeSticky) the withheld partitions that one could
    hold.
    """
    ok = dict.fromkeys(PROPERTIES, True)
    ids = group.member_ids()
    if set(result) != set(ids) or len(result) != len(ids):
        ok["complete"] = False
    got = {i: tuple(result.get(i, ())) for i in ids}
    by_id = {m.member_id: m for m in group.members}
    for i, parts in got.items():
        for topic, p in parts:
            if topic not in by_id[i].topics or not 0 <= p < group.partition_count(topic):
                ok["subscribed"] = False
        ok["ordered"] &= list(parts) == sorted(parts, key=partition_key)
    held = [tp for parts in got.values() for tp in parts]
    wanted = [(t, p) for t in assigned_topics(group) for p in range(group.partition_count(t))]
    ok["exactly_once"] = sorted(held) == sorted(wanted)
    if group.assignor in STICKY_ASSIGNORS:
        _check_sticky(group, got, ok)
        return ok
    rack_phase = group.assignor == RANGE and any(
        needs_rack_matching(group, t) for t in assigned_topics(group)
    )
    if group.assignor == RANGE:
        for t in assigned_topics(group):
            subs = subscribers(group, t)
            counts = [sum(1 for tp in got[m.member_id] if tp[0] == t) for m in subs]
            base = group.partition_count(t) // len(subs)
            ok["balanced"] &= all(base <= c <= base + 1 for c in counts)
            if not rack_phase:
                expected, start = [], 0
                for m, n in zip(subs, range_counts(group.partition_count(t), len(subs)), strict=True):
                    expected.append(
                        sorted(p for tt, p in got[m.member_id] if tt == t) == list(range(start, start + n))
                    )
                    start += n
                ok["ranges"] &= all(expected)
    elif len({frozenset(m.topics) for m in group.members}) == 1 and group.members:
        totals = [len(parts) for parts in got.values()]
        ok["balanced"] = max(totals) - min(totals) <= 1
    return ok


def _check_sticky(
    group: ClassicAssignorInput, got: dict[str, tuple[TopicPartition, ...]], ok: dict[str, bool]
) -> None:
    owners = valid_owners(group)
    base, extra = sticky_quota(group)
    totals = [len(parts) for parts in got.values()]
    held = [tp for parts in got.values() for tp in parts]
    if group.assignor == COOPERATIVE_STICKY:
        given_away = any(owners.get(tp, m) != m for m, parts in got.items() for tp in parts)
        missing = set(all_partitions(group)) - set(held)
        ok["revoke_first"] = not given_away and missing <= set(owners)
        ok["exactly_once"] = len(held) == len(set(held)) and not set(held) - set(all_partitions(group))
    if not sticky_plain(group):
        _check_sticky_general(group, got, ok)
        return
    for member, parts in got.items():
        owned = {tp for tp, o in owners.items() if o == member}
        ok["sticky"] &= len(owned & set(parts)) >= min(len(owned), base)
    if group.assignor == COOPERATIVE_STICKY:
        ok["balanced"] = not totals or max(totals) <= base + (1 if extra else 0)
    elif totals:
        ok["balanced"] = max(totals) - min(totals) <= 1


def _check_sticky_general(
    group: ClassicAssignorInput, got: dict[str, tuple[TopicPartition, ...]], ok: dict[str, bool]
) -> None:
    """balanced and sticky for groups off the plain case (the module docstring's rules)."""
    held = {tp for parts in got.values() for tp in parts}
    missing = [tp for tp in all_partitions(group) if tp not in held]
    for parts in got.values():
        for y in group.members:
            could = (
                sum(1 for tp in missing if tp[0] in y.topics) if group.assignor == COOPERATIVE_STICKY else 0
            )
            if any(tp[0] in y.topics for tp in parts) and len(parts) > len(got[y.member_id]) + 1 + could:
                ok["balanced"] = False
    keep = keepable(group)
    at = {tp: m for m, parts in got.items() for tp in parts}
    moved: set[tuple[str, str, str]] = set()
    for owner, mine in keep.items():
        for tp in mine:
            if at.get(tp, owner) != owner:
                moved.add((tp[0], owner, at[tp]))
    ok["sticky"] = not any((t, b, a) in moved for t, a, b in moved)
    if len({frozenset(m.topics) for m in group.members}) <= 1:
        base = sticky_quota(group)[0]
        ok["sticky"] &= all(len(keep[m] & set(parts)) >= min(len(keep[m]), base) for m, parts in got.items())


def is_valid_assignment(group: ClassicAssignorInput, result: ClassicAssignment) -> bool:
    return all(check_properties(group, result).values())

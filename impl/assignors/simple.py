"""The share-group SimpleAssignor, built like Kafka's and answering exactly like the spec.

Theory of operation
-------------------
``groupspec.spec.simple_assignor`` says what the answer is, with loops that rescan every member
for every partition. This module gives the same answer for every input (tests/
test_assignor_agreement.py and tests/test_assignor_stateful.py hold it to that), in the shape
of Kafka 4.2's code, so that a reader can put it next to SimpleHomogeneousAssignmentBuilder.java
and SimpleHeterogeneousAssignmentBuilder.java and see the same phases:

* ``HomogeneousBuilder``: one pool over every assignable partition of the common subscription.
* ``HeterogeneousBuilder``: one pool per subscribed topic, with that topic's subscribers.
* ``PoolBuilder``: the phases both builders share, one method each: revoke overfilled members,
  revoke overshared partitions, assign the remaining partitions round-robin. The first phase
  (keep the valid part of each previous target, revoke the rest) depends on how a builder lays
  out its pool, so each builder has its own.

What may live here: indexes and shortcuts that change how fast the answer comes, never what it
is. Partitions are dense integers (their position in the pool's order), members are their
positions among the pool's subscribers, so every order the spec states as "pool order" or
"member order" is plain integer order. Anything about WHICH answer is right belongs in the spec.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import chain, filterfalse, groupby, pairwise

from groupspec.types import AssignorInput, GroupAssignment, MemberSpec

__all__ = ["HeterogeneousBuilder", "HomogeneousBuilder", "PoolBuilder", "assign"]

#: member id -> topic name -> partitions; what the builders hand back.
_Result = dict[str, dict[str, frozenset[int]]]


def assign(group: AssignorInput) -> GroupAssignment:
    """The target assignment of every member of ``group``, in member order."""
    if not group.members:
        return {}
    if _is_homogeneous(group.members):
        return HomogeneousBuilder(group).build()
    return HeterogeneousBuilder(group).build()


def _is_homogeneous(members: Sequence[MemberSpec]) -> bool:
    # Kafka decides this on topic NAMES, unknown ones included (ModernGroup.subscriptionType),
    # so a member subscribed to a missing topic makes the group heterogeneous. Equal tuples are
    # the common case and much cheaper to compare than sets.
    first = members[0].topics
    if all(m.topics == first for m in members):
        return True
    return len({frozenset(m.topics) for m in members}) == 1


def desired_counts(n_members: int, n_partitions: int) -> tuple[int, list[int]]:
    """The sharing ``s`` and each member position's count, on integers.

    Kafka evaluates ``ceil(x*(i+1)) - ceil(x*i)`` in doubles and drifts (7 members, 29
    partitions desire 30 in total); the spec chose exact arithmetic, and so do we.
    """
    if n_partitions == 0:
        return 0, [0] * n_members
    sharing = -(-n_members // n_partitions)
    total = sharing * n_partitions
    bounds = [-(-total * k // n_members) for k in range(n_members + 1)]
    return sharing, [b - a for a, b in pairwise(bounds)]


class PoolBuilder:
    """The phases after the first, on one pool of ``n_partitions`` dense partition ids.

    ``held[i]`` starts as the valid previous partitions of subscriber ``i``, in ascending id
    order (the builder's keep phase guarantees the order, the trims rely on it). ``run``
    edits it in place into the new target; filled partitions are appended, so the lists end
    unordered.
    """

    __slots__ = ("changed", "counts", "desired", "held", "n_partitions", "room", "sharing")

    def __init__(self, n_partitions: int, held: list[list[int]]) -> None:
        self.n_partitions = n_partitions
        self.held = held
        self.sharing, self.desired = desired_counts(len(held), n_partitions)
        #: partition id -> holders, for the partitions somebody holds after the trims.
        self.counts: Mapping[int, int] = {}
        #: subscriber -> how many more partitions it may take.
        self.room: list[int] = []
        #: subscribers whose partitions the phases changed; the others keep their old sets.
        self.changed: set[int] = set()

    def run(self) -> list[list[int]]:
        if self.n_partitions == 0:
            # s = 0 and every count is 0: everything previously held is revoked.
            self.changed = {i for i, parts in enumerate(self.held) if parts}
            self.held = [[] for _ in self.held]
            return self.held
        if any(self.held):  # from an empty assignment nothing can be over its count or sharing
            self.revoke_overfilled_members()
            self.revoke_overshared_partitions()
        self.assign_remaining_partitions()
        return self.held

    def revoke_overfilled_members(self) -> None:
        """A member above its count keeps its first partitions in pool order.

        Kafka drops them in HashSet order instead (docs/divergences.md).
        """
        for i, (parts, want) in enumerate(zip(self.held, self.desired, strict=True)):
            if len(parts) > want:
                self.held[i] = parts[:want]
                self.changed.add(i)

    def revoke_overshared_partitions(self) -> None:
        """A partition above the sharing keeps its first ``s`` holders in member order."""
        sharing = self.sharing
        counts = Counter(chain.from_iterable(self.held))
        if counts and max(counts.values()) > sharing:
            # Walking members in order and keeping a partition while fewer than s earlier
            # members kept it is the same as keeping each partition's first s holders.
            running: dict[int, int] = {}
            for i, parts in enumerate(self.held):
                kept = []
                for p in parts:
                    c = running.get(p, 0)
                    if c < sharing:
                        running[p] = c + 1
                        kept.append(p)
                if len(kept) < len(parts):
                    self.held[i] = kept
                    self.changed.add(i)
            self.counts = running
        else:
            self.counts = counts

    def assign_remaining_partitions(self) -> None:
        """Fill under-shared partitions, in pool order, round-robin over unfilled members.

        The round-robin cursor lives across partitions (Kafka's assignRemainingPartitions keeps
        one member iterator for the whole pass). Unlike Kafka, a partition is given up only
        when every unfilled member already holds it, and later partitions are still filled.
        """
        self.room = [want - len(parts) for want, parts in zip(self.desired, self.held,
                                                               strict=True)]
        unfilled = [i for i, r in enumerate(self.room) if r > 0]
        if not unfilled:
            return
        before = [len(self.held[i]) for i in unfilled]
        if self.sharing == 1:
            counts = self.counts
            under = (list(filterfalse(counts.__contains__, range(self.n_partitions))) if counts
                     else list(range(self.n_partitions)))
            self._fill_in_rounds(under, unfilled)
        else:
            self._fill_round_robin(unfilled)
        self.changed.update(i for i, n in zip(unfilled, before, strict=True)
                            if len(self.held[i]) > n)

    def _fill_in_rounds(self, under: list[int], unfilled: list[int]) -> None:
        """The fill when ``s == 1``, a whole round of the round-robin at a time.

        An under-shared partition then has no holder, so nobody is ever skipped: the k-th
        under-shared partition goes to the k-th member the cursor visits. The cursor starts
        before the first member and members only leave when full, so the visits are rounds in
        ascending member order, round r visiting the members with room for more than r. While
        the same members take part, member j of a round gets every width-th partition: a slice.
        """
        held, room = self.held, self.room
        active, pos, total, rounds = unfilled, 0, len(under), 0
        while active and pos < total:
            width = len(active)
            span = min(room[i] for i in active) - rounds
            full = min(span, (total - pos) // width)
            if full:
                stop = pos + full * width
                for j, i in enumerate(active):
                    held[i].extend(under[pos + j:stop:width])
                pos, rounds = stop, rounds + full
            if full < span:  # the partitions run out within this round
                for i, p in zip(active, under[pos:], strict=False):
                    held[i].append(p)
                return
            active = [i for i in active if room[i] > rounds]

    def _fill_round_robin(self, unfilled: list[int]) -> None:
        """The fill when ``s > 1``: a ring of unfilled members with a cursor.

        Members above ``P`` mean at most ``s*P < N + P`` slots in all, so a step per slot is
        cheap. The ring drops a member the moment it is full, so the cursor never meets one.
        """
        held, room, sharing, counts = self.held, self.room, self.sharing, self.counts
        holders: dict[int, set[int]] = {}
        for i, parts in enumerate(held):
            for p in parts:
                holders.setdefault(p, set()).add(i)
        nxt = dict(zip(unfilled, unfilled[1:] + unfilled[:1], strict=True))
        prv = {after: before for before, after in nxt.items()}
        cursor, remaining = unfilled[0], len(unfilled)
        for p in range(self.n_partitions):
            have = counts.get(p, 0)
            if have >= sharing:
                continue
            mine = holders.setdefault(p, set())
            while have < sharing:
                node, seen = cursor, 0
                while node in mine and seen < remaining:
                    node, seen = nxt[node], seen + 1
                if seen == remaining:  # every unfilled member already holds p
                    break
                held[node].append(p)
                mine.add(node)
                have += 1
                room[node] -= 1
                cursor = nxt[node]
                if room[node] == 0:
                    remaining -= 1
                    if remaining == 0:
                        return
                    before, after = prv[node], nxt[node]
                    nxt[before], prv[after] = after, before




class _Topic:
    """One topic's assignable partitions, numbered in pool order from ``offset``."""

    __slots__ = ("count", "name", "offset", "partitions", "rank")

    def __init__(self, group: AssignorInput, name: str, offset: int) -> None:
        self.name, self.offset = name, offset
        self.count = count = group.topics.get(name, 0)
        allowed = None if group.assignable is None else group.assignable.get(name, frozenset())
        #: pool order -> partition number; None when every partition 0..count-1 is assignable.
        self.partitions: list[int] | None = None
        #: partition number -> position in ``partitions``; None in the same case.
        self.rank: dict[int, int] | None = None
        if allowed is not None and not allowed.issuperset(range(count)):
            self.partitions = sorted(p for p in allowed if 0 <= p < count)
            self.rank = {p: k for k, p in enumerate(self.partitions)}

    @property
    def size(self) -> int:
        return self.count if self.partitions is None else len(self.partitions)

    def numbers(self) -> Sequence[int]:
        """Pool id - offset -> partition number."""
        return range(self.count) if self.partitions is None else self.partitions

    def keep(self, previous: frozenset[int], into: list[int]) -> bool:
        """Append the pool ids of ``previous`` that still exist and are assignable to ``into``.

        Returns whether all of them did, i.e. nothing was revoked. A fast path checks the
        bounds with min/max, because almost every previous target is still valid.
        """
        off, rank = self.offset, self.rank
        if rank is None:
            if min(previous) >= 0 and max(previous) < self.count:
                into.extend(map(off.__add__, previous) if off else previous)
                return True
            count = self.count
            into.extend(off + p for p in previous if 0 <= p < count)
            return False
        kept = [off + rank[p] for p in previous if p in rank]
        into.extend(kept)
        return len(kept) == len(previous)


class HomogeneousBuilder:
    """Everyone subscribes to the same topics: one pool, balanced across all of them.

    Kafka reads the subscription from the first member only
    (SimpleHomogeneousAssignmentBuilder.java); the group being homogeneous makes that safe.
    """

    def __init__(self, group: AssignorInput) -> None:
        self.group = group
        self.topics: list[_Topic] = []
        offset = 0
        for name in sorted(set(group.members[0].topics)):
            topic = _Topic(group, name, offset)
            self.topics.append(topic)
            offset += topic.size
        self.n_partitions = offset
        #: member position -> whether its whole previous target is valid and in the pool.
        self.intact: list[bool] = []

    def keep_valid_partitions(self) -> list[list[int]]:
        """Each member's previous partitions that are in the pool, in pool order.

        Kafka keeps stale and non-assignable partitions of subscribed topics here and counts
        them as load; the spec revokes them (docs/divergences.md).
        """
        # The common case (a valid previous set of a topic with every partition assignable)
        # is inlined: this loop runs once per member and topic, and a call per pair is most
        # of the time for a large stable group.
        by_name = {t.name: (frozenset(range(t.count)) if t.rank is None else frozenset(),
                            t.offset.__add__ if t.offset else None, t)
                   for t in self.topics}
        held, intact = [], []
        for member in self.group.members:
            parts: list[int] = []
            whole = True
            for name, previous in member.assignment.items():
                entry = by_name.get(name)
                if entry is None or not previous:
                    whole = False
                    continue
                every, shift, topic = entry
                if previous <= every:
                    parts.extend(previous if shift is None else map(shift, previous))
                elif not topic.keep(previous, parts):
                    whole = False
            parts.sort()
            held.append(parts)
            intact.append(whole)
        self.intact = intact
        return held

    def build(self) -> _Result:
        members = self.group.members
        if not self.topics:
            return {m.member_id: {} for m in members}
        pool = PoolBuilder(self.n_partitions, self.keep_valid_partitions())
        held = pool.run()
        if len(self.topics) == 1 and self.topics[0].rank is None:
            name = self.topics[0].name
            return {m.member_id: dict(sorted(m.assignment.items()))
                    if self.intact[i] and i not in pool.changed
                    else {name: frozenset(parts)} if parts else {}
                    for i, (m, parts) in enumerate(zip(members, held, strict=True))}
        names = [t.name for t in self.topics]
        number = list(chain.from_iterable(t.numbers() for t in self.topics)).__getitem__
        topic_of = [k for k, t in enumerate(self.topics) for _ in range(t.size)].__getitem__
        result: _Result = {}
        for i, (member, parts) in enumerate(zip(members, held, strict=True)):
            if self.intact[i] and i not in pool.changed:
                # Like Kafka's builders, hand back the untouched previous target as it was.
                result[member.member_id] = dict(sorted(member.assignment.items()))
                continue
            parts.sort()
            result[member.member_id] = {names[k]: frozenset(map(number, ids))
                                        for k, ids in groupby(parts, topic_of)}
        return result


class HeterogeneousBuilder:
    """Subscriptions differ: one pool per subscribed topic, balanced over its subscribers only.

    A member that stopped subscribing to a topic is not one of its subscribers, so it loses
    the topic's partitions. Kafka's builder instead carries over partitions of topics nobody
    subscribes to any more (SimpleHeterogeneousAssignmentBuilder.java; docs/divergences.md).
    """

    def __init__(self, group: AssignorInput) -> None:
        self.group = group
        self.subscribers: dict[str, list[int]] = {}
        for i, member in enumerate(group.members):
            for name in dict.fromkeys(member.topics):
                self.subscribers.setdefault(name, []).append(i)

    def keep_valid_partitions(self, topic: _Topic, subscribers: list[int]
                              ) -> tuple[list[list[int]], list[bool]]:
        """Each subscriber's previous partitions of ``topic`` that still exist, in order, and
        whether that was all of them."""
        members = self.group.members
        held, intact = [], []
        for i in subscribers:
            previous = members[i].assignment.get(topic.name)
            parts: list[int] = []
            intact.append(topic.keep(previous, parts) if previous else False)
            parts.sort()
            held.append(parts)
        return held, intact

    def build(self) -> _Result:
        members = self.group.members
        result: _Result = {m.member_id: {} for m in members}
        for name in sorted(self.subscribers):
            topic = _Topic(self.group, name, 0)
            subscribers = self.subscribers[name]
            held, intact = self.keep_valid_partitions(topic, subscribers)
            pool = PoolBuilder(topic.size, held)
            pool.run()
            number = topic.numbers().__getitem__
            for k, (i, parts) in enumerate(zip(subscribers, pool.held, strict=True)):
                if not parts:
                    continue
                member = members[i]
                if intact[k] and k not in pool.changed:
                    result[member.member_id][name] = member.assignment[name]
                else:
                    result[member.member_id][name] = frozenset(map(number, parts))
        return result

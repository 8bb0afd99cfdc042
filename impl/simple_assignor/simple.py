"""The share-group SimpleAssignor, built like Kafka's and answering exactly like the spec.

Theory of operation
-------------------
``groupspec.spec.simple_assignor`` says what the answer is, with loops that rescan every member
for every partition. This module gives the same answer for every input (tests/
test_assignor_agreement.py and tests/stateful/test_assignor_stateful.py hold it to that), in the shape
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

The shortcuts, each a special case of the phases with the argument in its docstring
(bench/README.md has the timings that justify them):

* A pool nobody holds anything of yet is filled in closed form (``PoolBuilder.fill_from_empty``),
  and its answer depends only on its size and its number of subscribers, so the heterogeneous
  builder computes it once per shape (``HeterogeneousBuilder.fill_fresh``).
* A heterogeneous pool whose previous targets are already balanced is handed back untouched
  without running the phases (``HeterogeneousBuilder.keep_if_balanced``).
* Results are assembled from per-partition tables, sharing one frozenset per partition number
  between members (``HomogeneousBuilder.describe``): frozensets are immutable, so the sharing
  cannot be observed. Loops over members lean on ``map``/``compress`` chains, which run
  without interpreting bytecode per member.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import chain, compress, filterfalse, groupby, pairwise, repeat
from operator import attrgetter, gt, methodcaller, not_, sub

from groupspec.types import AssignorInput, GroupAssignment, MemberSpec

__all__ = ["HeterogeneousBuilder", "HomogeneousBuilder", "PoolBuilder", "assign"]

#: member id -> topic name -> partitions; what the builders hand back.
_Result = dict[str, dict[str, frozenset[int]]]
#: One member's part of a result: topic name -> partitions.
_Targets = dict[str, frozenset[int]]

_NOTHING: frozenset[int] = frozenset()
_assignment_of = attrgetter("assignment")
_id_of = attrgetter("member_id")
_topics_of = attrgetter("topics")
#: Runs an iterator to its end for its side effects (a zero-length deque discards as it goes).
_drain: Callable[[Iterable[object]], None] = deque[object](maxlen=0).extend


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
    subscriptions = list(map(_topics_of, members))
    if subscriptions.count(subscriptions[0]) == len(subscriptions):
        return True
    return len({frozenset(m.topics) for m in members}) == 1


@lru_cache(maxsize=4096)
def desired_counts(n_members: int, n_partitions: int) -> tuple[int, tuple[int, ...]]:
    """The sharing ``s`` and each member position's count, on integers.

    Kafka evaluates ``ceil(x*(i+1)) - ceil(x*i)`` in doubles and drifts (7 members, 29
    partitions desire 30 in total); the spec chose exact arithmetic, and so do we. Cached:
    a heterogeneous group asks once per topic, mostly with the same few shapes.
    """
    if n_partitions == 0:
        return 0, (0,) * n_members
    sharing = -(-n_members // n_partitions)
    total = sharing * n_partitions
    bounds = [-(-total * k // n_members) for k in range(n_members + 1)]
    return sharing, tuple(b - a for a, b in pairwise(bounds))


class PoolBuilder:
    """The phases after the first, on one pool of ``n_partitions`` dense partition ids.

    ``held[i]`` starts as the valid previous partitions of subscriber ``i``, in ascending id
    order (the builder's keep phase guarantees the order, the trims rely on it). ``run``
    edits it in place into the new target; filled partitions are appended, so the lists end
    unordered, except after ``fill_from_empty``, which leaves every list ascending.
    """

    __slots__ = ("changed", "counts", "desired", "from_empty", "held", "n_partitions", "room",
                 "sharing")

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
        #: whether nobody held anything of the pool, so that ``fill_from_empty`` built it.
        self.from_empty = False

    def run(self) -> list[list[int]]:
        if self.n_partitions == 0:
            # s = 0 and every count is 0: everything previously held is revoked.
            self.changed = {i for i, parts in enumerate(self.held) if parts}
            self.held = [[] for _ in self.held]
            return self.held
        if any(self.held):
            self.revoke_overfilled_members()
            self.revoke_overshared_partitions()
            self.assign_remaining_partitions()
        else:  # from an empty assignment nothing can be over its count or sharing
            self.fill_from_empty()
        return self.held

    def revoke_overfilled_members(self) -> None:
        """A member above its count keeps its first partitions in pool order.

        Kafka drops them in HashSet order instead (docs/divergences.md).
        """
        held, desired = self.held, self.desired
        for i in compress(range(len(held)), map(gt, map(len, held), desired)):
            held[i] = held[i][:desired[i]]
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
        lengths = list(map(len, self.held))
        self.room = list(map(sub, self.desired, lengths))
        unfilled = list(compress(range(len(lengths)), map(gt, self.room, repeat(0))))
        if not unfilled:
            return
        before = list(map(lengths.__getitem__, unfilled))
        if self.sharing == 1:
            counts = self.counts
            under = (list(filterfalse(counts.__contains__, range(self.n_partitions))) if counts
                     else list(range(self.n_partitions)))
            self._fill_in_rounds(under, unfilled)
        else:
            self._fill_round_robin(unfilled)
        self.changed.update(i for i, n in zip(unfilled, before, strict=True)
                            if len(self.held[i]) > n)

    def fill_from_empty(self) -> None:
        """``assign_remaining_partitions`` when nobody holds anything yet, in closed form.

        With ``s == 1`` (no more members than partitions) that is ``_fill_in_rounds`` over every
        partition and every member. With ``s > 1`` the round-robin walk is known in advance.
        Its first lap visits every member once, in order, and member ``k`` takes partition
        ``k // s`` (each partition takes ``s`` visits in a row and nobody held it before).
        The members desiring one are then full; the ``e = s*P - N`` members desiring two are
        ``k_j = floor(j*N/e)`` (j < e: where ``ceil(e*k/N)`` steps up), and the second lap hands
        the j-th of them partition ``(N + j) // s``. Nobody is ever skipped for holding the
        partition already: ``N + j - k_j >= N/e + e - 1`` and ``N/e > N/P > s - 1``, so
        ``k_j <= N + j - s`` and ``k_j // s < (N + j) // s`` (for e = 1, k_0 = 0 and N >= s).
        So every member ends with exactly its count, like the walk would leave it.
        """
        self.from_empty = True
        n, sharing = len(self.held), self.sharing
        self.changed = set(range(n))  # P > 0 here, and then every count is at least 1
        if sharing == 1:
            self.room = list(self.desired)
            self._fill_in_rounds(list(range(self.n_partitions)), list(range(n)))
            return
        held = [[k // sharing] for k in range(n)]
        twice = sharing * self.n_partitions - n
        for j in range(twice):
            held[j * n // twice].append((n + j) // sharing)
        self.held = held

    def _fill_in_rounds(self, under: list[int], unfilled: list[int]) -> None:
        """The fill when ``s == 1``, a whole round of the round-robin at a time.

        An under-shared partition then has no holder, so nobody is ever skipped: the k-th
        under-shared partition goes to the k-th member the cursor visits. The cursor starts
        before the first member and members only leave when full, so the visits are rounds in
        ascending member order, round r visiting the members with room for more than r. While
        the same members take part, member j of a round gets every width-th partition: a slice.
        """
        # Most loops over members are map() chains drained by _drain: C-level, no bytecode.
        lists, room = self.held.__getitem__, self.room.__getitem__
        active, pos, total, rounds = unfilled, 0, len(under), 0
        while active and pos < total:
            width = len(active)
            span = min(map(room, active)) - rounds
            full = min(span, (total - pos) // width)
            if full == 1:
                _drain(map(list.append, map(lists, active), under[pos:pos + width]))
            elif full:
                stop = pos + full * width
                for j, i in enumerate(active):
                    lists(i).extend(under[pos + j:stop:width])
            pos, rounds = pos + full * width, rounds + full
            if full < span:  # the partitions run out within this round
                _drain(map(list.append, map(lists, active), under[pos:]))
                return
            active = list(compress(active, map(gt, map(room, active), repeat(rounds))))

    def _fill_round_robin(self, unfilled: list[int]) -> None:
        """The fill when ``s > 1``: a ring of unfilled members with a cursor.

        Members above ``P`` mean at most ``s*P < N + P`` slots in all, so a step per slot is
        cheap. The ring drops a member the moment it is full, so the cursor never meets one.
        ``s*P < 2N`` also caps every count at 2, so "does this member hold p" is a scan of a
        list of at most two ids, cheaper than keeping an index of holders.
        """
        held, room, sharing, counts = self.held, self.room, self.sharing, self.counts
        nxt = dict(zip(unfilled, unfilled[1:] + unfilled[:1], strict=True))
        prv = {after: before for before, after in nxt.items()}
        cursor, remaining = unfilled[0], len(unfilled)
        for p in range(self.n_partitions):
            have = counts.get(p, 0)
            if have >= sharing:
                continue
            while have < sharing:
                node, seen = cursor, 0
                while p in held[node] and seen < remaining:
                    node, seen = nxt[node], seen + 1
                if seen == remaining:  # every unfilled member already holds p
                    break
                held[node].append(p)
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

    __slots__ = ("count", "name", "offset", "partitions", "rank", "size")

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
        #: how many pool ids the topic takes.
        self.size = count if self.partitions is None else len(self.partitions)

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
        members = self.group.members
        assignments = list(map(_assignment_of, members))
        if not any(assignments):  # a new group: nothing to keep or revoke
            self.intact = [True] * len(members)
            return [[] for _ in members]
        # The common case (a valid previous set of a topic with every partition assignable)
        # is inlined: this loop runs once per member and topic, and a call per pair is most
        # of the time for a large stable group.
        by_name = {t.name: (frozenset(range(t.count)) if t.rank is None else frozenset(),
                            t.offset.__add__ if t.offset else None, t)
                   for t in self.topics}
        held, intact = [], []
        for assignment in assignments:
            parts: list[int] = []
            whole = True
            for name, previous in assignment.items():
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
        if pool.from_empty:
            # Nothing previous to hand back, and fill_from_empty leaves every list ascending.
            # dict(zip(...)) keeps the first position of a repeated id and its last value,
            # as a dict comprehension over the members would.
            return dict(zip(map(_id_of, members), self.describe(held), strict=True))
        # Like Kafka's builders, hand back an untouched previous target as it was (copied,
        # topics in name order); describe the others afresh.
        positions = range(len(members))
        redo = pool.changed.union(compress(positions, map(not_, self.intact)))
        if len(redo) == len(members):
            for parts in held:
                parts.sort()
            return dict(zip(map(_id_of, members), self.describe(held), strict=True))
        if 2 * len(redo) <= len(members):  # copying everyone is cheaper than picking
            out = _sorted_copies(list(map(_assignment_of, members)))
        else:
            kept = list(filterfalse(redo.__contains__, positions))
            out = [{}] * len(members)  # every slot is replaced below
            for i, targets in zip(kept, _sorted_copies([members[i].assignment for i in kept]),
                                  strict=True):
                out[i] = targets
        redone = sorted(redo)
        for i in redone:
            held[i].sort()
        for i, targets in zip(redone, self.describe([held[i] for i in redone]), strict=True):
            out[i] = targets
        return dict(zip(map(_id_of, members), out, strict=True))

    def describe(self, lists: list[list[int]]) -> list[_Targets]:
        """Ascending pool ids -> topic name -> partition numbers, in topic-name order.

        When the members hold at most one partition per topic (a large pool from empty, the
        common case) a dict comprehension over per-id tables does it, sharing one frozenset
        per partition number; the tables cost a pass over the pool, so only when the lists
        cover at least half of it. A dict that comes out shorter than its list had two ids in
        one topic and is redone the general way, with ``groupby``.
        """
        topics, n_partitions = self.topics, self.n_partitions
        if n_partitions == 0:
            return [{} for _ in lists]
        if len(topics) == 1 and topics[0].rank is None:
            name = topics[0].name  # offset 0: pool ids are the partition numbers
            if not lists or max(map(len, lists)) > 1 or 2 * len(lists) < n_partitions:
                return [{name: frozenset(parts)} if parts else {} for parts in lists]
            one = list(map(frozenset, zip(range(n_partitions))))
            return [{name: one[parts[0]]} if parts else {} for parts in lists]
        names = [t.name for t in topics]
        numbers = list(chain.from_iterable(t.numbers() for t in topics))
        number = numbers.__getitem__
        topic_of = list(chain.from_iterable(repeat(k, t.size) for k, t in enumerate(topics))).__getitem__

        def grouped(parts: list[int]) -> _Targets:
            return {names[k]: frozenset(map(number, ids)) for k, ids in groupby(parts, topic_of)}

        if (not lists or max(map(len, lists)) > len(topics)
                or 2 * sum(map(len, lists)) < n_partitions
                # A look at the first list: when it has two ids in a topic, most lists will.
                or len(set(map(topic_of, lists[0]))) < len(lists[0])):
            return list(map(grouped, lists))
        name_at = list(chain.from_iterable(repeat(t.name, t.size) for t in topics))
        shared = list(map(frozenset, zip(range(max(numbers) + 1))))
        single_at = list(map(shared.__getitem__, numbers))
        # (Python 3.11 runs a comprehension as a function call: one-id lists skip the inner one.)
        out = [{name_at[parts[0]]: single_at[parts[0]]} if len(parts) == 1
               else {name_at[q]: single_at[q] for q in parts} for parts in lists]
        if list(map(len, out)) == list(map(len, lists)):
            return out
        return [targets if len(targets) == len(parts) else grouped(parts)
                for targets, parts in zip(out, lists, strict=True)]


def _sorted_copies(targets: list[Mapping[str, frozenset[int]]]) -> list[_Targets]:
    """Copies of previous targets with their topics in name order.

    They usually are in order already (the assignor hands them out that way), so the check
    runs on the targets of two topics or more, a whole list at a time.
    """
    copies = list(map(dict, targets))
    several = list(compress(range(len(targets)), map(gt, map(len, targets), repeat(1))))
    if several:
        names = [copies[i] for i in several]
        if list(map(list, names)) != list(map(sorted, names)):
            for i in several:
                copies[i] = dict(sorted(copies[i].items()))
    return copies


class HeterogeneousBuilder:
    """Subscriptions differ: one pool per subscribed topic, balanced over its subscribers only.

    A member that stopped subscribing to a topic is not one of its subscribers, so it loses
    the topic's partitions. Kafka's builder instead carries over partitions of topics nobody
    subscribes to any more (SimpleHeterogeneousAssignmentBuilder.java; docs/divergences.md).
    """

    def __init__(self, group: AssignorInput) -> None:
        self.group = group
        #: (P, s) -> every partition id repeated s times, ascending: a balanced pool's load.
        self.full_load: dict[tuple[int, int], list[int]] = {}
        # Members mostly come in a few subscriptions: index those, then spread to topics.
        by_subscription: dict[tuple[str, ...], list[int]] = {}
        for i, member in enumerate(group.members):
            by_subscription.setdefault(member.topics, []).append(i)
        #: topic name -> the positions of its subscribers, ascending.
        self.subscribers: dict[str, list[int]] = {}
        merged = set()
        for topics, positions in by_subscription.items():
            for name in dict.fromkeys(topics):
                if name in self.subscribers:
                    self.subscribers[name] = self.subscribers[name] + positions
                    merged.add(name)
                else:
                    self.subscribers[name] = positions
        for name in merged:
            self.subscribers[name].sort()

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
        group = self.group
        members = group.members
        out: list[_Targets] = [{} for _ in members]
        assignments = list(map(_assignment_of, members))
        new_group = not any(assignments)
        # Fast routes need every partition assignable: pool ids are then partition numbers.
        plain = group.assignable is None
        fresh: dict[tuple[int, int], list[frozenset[int]]] = {}
        for name in sorted(self.subscribers):
            subscribers = self.subscribers[name]
            if plain:
                count = group.topics.get(name, 0)
                if count == 0:
                    continue  # nothing to assign, and any previous partition is revoked
                previous = ([] if new_group else
                            list(map(methodcaller("get", name, _NOTHING),
                                     map(assignments.__getitem__, subscribers))))
                if not any(previous):
                    sets = fresh.get((len(subscribers), count))
                    if sets is None:
                        sets = fresh[len(subscribers), count] = self.fill_fresh(
                            len(subscribers), count)
                    for i, partitions in zip(subscribers, sets, strict=True):
                        out[i][name] = partitions
                    continue
                if self.keep_if_balanced(name, count, subscribers, previous, out):
                    continue
            self.assign_topic(name, subscribers, out)
        return self.result(out)

    @staticmethod
    def fill_fresh(n_subscribers: int, count: int) -> list[frozenset[int]]:
        """The sets of a pool of ``count`` partitions nobody holds yet, per subscriber.

        Depends on nothing else, so topics of the same shape share the answer (and the
        frozensets). Never empty: with P > 0 every count is at least 1.
        """
        pool = PoolBuilder(count, [[] for _ in range(n_subscribers)])
        return list(map(frozenset, pool.run()))

    def keep_if_balanced(self, name: str, count: int, subscribers: list[int],
                         previous: list[frozenset[int]], out: list[_Targets]) -> bool:
        """Hand back previous targets the phases would not touch, and say whether it did.

        They would not when every set is exactly at its count and the sets together hold
        every partition exactly ``s`` times: nothing is stale, nothing is revoked, and
        nobody has room to fill.
        """
        sharing, desired = desired_counts(len(subscribers), count)
        if tuple(map(len, previous)) != desired:
            return False
        full = self.full_load.get((count, sharing))
        if full is None:
            full = [p for p in range(count) for _ in range(sharing)]
            self.full_load[count, sharing] = full
        if sorted(chain.from_iterable(previous)) != full:
            return False
        for i, partitions in zip(subscribers, previous, strict=True):
            out[i][name] = partitions
        return True

    def assign_topic(self, name: str, subscribers: list[int], out: list[_Targets]) -> None:
        """The four phases on one topic's pool."""
        members = self.group.members
        topic = _Topic(self.group, name, 0)
        held, intact = self.keep_valid_partitions(topic, subscribers)
        pool = PoolBuilder(topic.size, held)
        pool.run()
        number = topic.numbers().__getitem__
        for k, (i, parts) in enumerate(zip(subscribers, pool.held, strict=True)):
            if not parts:
                continue
            if intact[k] and k not in pool.changed:
                out[i][name] = members[i].assignment[name]
            else:
                out[i][name] = frozenset(map(number, parts))

    def result(self, out: list[_Targets]) -> _Result:
        """Key the per-position targets by member id."""
        ids = list(map(_id_of, self.group.members))
        result = dict(zip(ids, out, strict=True))
        if len(result) == len(out):
            return result
        # A repeated member id: its positions share one dict, written topic by topic in
        # name order and position order (later positions win), as the per-topic loop did.
        merged: _Result = {member_id: {} for member_id in ids}
        for name in sorted(self.subscribers):
            for i in self.subscribers[name]:
                if name in out[i]:
                    merged[ids[i]][name] = out[i][name]
        return merged

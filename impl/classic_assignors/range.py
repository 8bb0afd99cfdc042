"""RangeAssignor, shaped as Kafka 4.2's (clients/.../consumer/RangeAssignor.java).

Per topic a :class:`TopicState` holds the sorted subscribers, the unassigned partitions (an
insertion-ordered dict used as a LinkedHashSet) and the count bookkeeping Kafka's
``maxAssignable`` / ``onAssigned`` keep. With racks in play a rack phase runs first (co-partitioned
topics together, lone topics that need it on their own), then every topic's plain ranges; the
lists are then sorted, as Kafka sorts them only in that case.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import islice

from groupspec.impl.classic_assignors.orders import compare_key, partition_key
from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition


class TopicState:
    def __init__(self, group: ClassicAssignorInput, topic: str, subscribers: Sequence[ClassicMember]) -> None:
        self.topic = topic
        self.consumers: dict[str, str | None] = {}
        for m in sorted(subscribers, key=compare_key):  # stable: ties keep the map's order
            self.consumers.setdefault(m.member_id, m.rack)
        count = group.partition_count(topic)
        self.unassigned: dict[int, None] = dict.fromkeys(range(count))
        self.assigned = dict.fromkeys(self.consumers, 0)
        self.per_consumer, self.with_extra = divmod(count, len(self.consumers))
        member_racks = {r for r in self.consumers.values() if r is not None}
        self.partition_racks: list[frozenset[str]] = []
        if member_racks:
            self.partition_racks = [group.racks_of(topic, p) for p in range(count)]
        all_racks = frozenset().union(*self.partition_racks)
        self.needs_racks = bool(member_racks & all_racks) and any(
            r != all_racks for r in self.partition_racks
        )

    def racks_match(self, consumer: str, partition: int) -> bool:
        rack = self.consumers[consumer]
        return rack is None or (bool(self.partition_racks) and rack in self.partition_racks[partition])

    def max_assignable(self, consumer: str) -> int:
        cap = self.per_consumer + (1 if self.with_extra > 0 else 0) - self.assigned[consumer]
        return max(0, cap)

    def on_assigned(self, consumer: str, partitions: Sequence[int]) -> None:
        self.assigned[consumer] += len(partitions)
        if self.assigned[consumer] > self.per_consumer:
            self.with_extra -= 1
        for p in partitions:
            del self.unassigned[p]


Assignment = dict[str, list[TopicPartition]]


def _give(consumer: str, partitions: Sequence[int], state: TopicState, out: Assignment) -> None:
    out[consumer].extend((state.topic, p) for p in partitions)
    state.on_assigned(consumer, partitions)


def _ranges(state: TopicState, may: Callable[[str, int], bool] | None, out: Assignment) -> None:
    for consumer in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        if may is None:
            picked = list(islice(state.unassigned, limit))
        else:
            picked = list(islice((p for p in state.unassigned if may(consumer, p)), limit))
        if picked:
            _give(consumer, picked, state, out)


def _co_partitioned(states: Sequence[TopicState], count: int, out: Assignment) -> None:
    remaining = list(states[0].consumers)
    for p in range(count):
        chosen = next(
            (c for c in remaining if all(s.racks_match(c, p) and s.max_assignable(c) > 0 for s in states)),
            None,
        )
        if chosen is None:
            continue
        for s in states:
            _give(chosen, [p], s, out)
        if all(s.max_assignable(chosen) <= 0 for s in states):
            remaining.remove(chosen)
            if not remaining:
                break


def _rack_phase(states: Sequence[TopicState], out: Assignment) -> None:
    groups: dict[tuple[frozenset[tuple[str, str | None]], int], list[TopicState]] = {}
    for s in states:
        key = (frozenset(s.consumers.items()), len(s.partition_racks))
        groups.setdefault(key, []).append(s)
    for (_, count), same in groups.items():
        if len(same) > 1:
            _co_partitioned(same, count, out)
        elif same[0].needs_racks:
            lone = same[0]
            _ranges(lone, lone.racks_match, out)


def assign(
    group: ClassicAssignorInput, members: Sequence[ClassicMember], topics: Sequence[str]
) -> Assignment:
    """``members`` in the leader's map order, ``topics`` in ``partitionsPerTopic``'s order."""
    subscribers: dict[str, list[ClassicMember]] = {}
    for m in members:
        for t in m.topics:
            subscribers.setdefault(t, []).append(m)
    states = [TopicState(group, t, subscribers[t]) for t in topics]
    out: Assignment = {m.member_id: [] for m in members}
    rack_aware = any(s.needs_racks for s in states)
    if rack_aware:
        _rack_phase(states, out)
    for s in states:
        _ranges(s, None, out)
    if rack_aware:
        for parts in out.values():
            parts.sort(key=partition_key)
    return {m.member_id: out[m.member_id] for m in group.members}

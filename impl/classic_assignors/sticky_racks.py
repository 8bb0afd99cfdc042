"""The sticky assignors' view of racks (``RackInfo`` in AbstractStickyAssignor.java, KIP-881).

A group is rack-aware when some member has a rack, some member's rack holds a replica, and the
partitions do not all have the same set of replica racks -- decided once for all the group's
topics, unlike Range, which decides per topic. Only then do members' racks count: a member with a
rack *mismatches* a partition none of whose replicas is on that rack; a member without one
mismatches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition


class RackInfo:
    def __init__(
        self, group: ClassicAssignorInput, members: Sequence[ClassicMember], topics: Sequence[str]
    ) -> None:
        by_rack: dict[str, list[str]] = {}
        for m in members:
            if m.rack is not None:
                by_rack.setdefault(m.rack, []).append(m.member_id)
        partition_racks: dict[TopicPartition, frozenset[str]] = {}
        if by_rack:
            for t in topics:
                for p in range(group.partition_count(t)):
                    partition_racks[(t, p)] = group.racks_of(t, p)
        every = frozenset().union(*partition_racks.values()) if partition_racks else frozenset()
        aware = bool(by_rack) and bool(set(by_rack) & every)
        aware = aware and not all(racks == every for racks in partition_racks.values())
        self.consumer_racks: dict[str, str] = (
            {c: rack for rack, cs in by_rack.items() for c in cs} if aware else {}
        )
        self.partition_racks: dict[TopicPartition, frozenset[str]] = partition_racks if aware else {}
        #: Members on the racks of each partition's replicas (counted whether or not the group is
        #: rack-aware, as Kafka does; it only orders partitions).
        self.consumers_by_partition: dict[TopicPartition, int] = {
            tp: sum(len(by_rack.get(r, ())) for r in racks) for tp, racks in partition_racks.items()
        }

    def mismatch(self, member: str, tp: TopicPartition) -> bool:
        rack = self.consumer_racks.get(member)
        if rack is None:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or rack not in racks

    def sort_by_rack_consumers(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        """Fewest members on a partition's racks first (a stable sort)."""
        if not self.consumers_by_partition:
            return partitions
        return sorted(partitions, key=lambda tp: self.consumers_by_partition.get(tp, 0))

    def next_rack_consumer(self, tp: TopicPartition, members: Sequence[str], first: int) -> int:
        """The index of the first member, from ``first`` on cyclically, on one of ``tp``'s
        replica racks; -1 when none is."""
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        for i in range(len(members)):
            at = (first + i) % len(members)
            if self.consumer_racks.get(members[at]) in racks:
                return at
        return -1

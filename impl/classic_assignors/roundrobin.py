"""RoundRobinAssignor, shaped as Kafka 4.2's (clients/.../consumer/RoundRobinAssignor.java):
members sorted once (stable, so compareTo's ties keep the map's order), partitions sorted by
topic then number, and a cursor that moves past members not subscribed to the topic."""

from __future__ import annotations

from collections.abc import Sequence

from groupspec.impl.classic_assignors.orders import compare_key, sorted_topics
from groupspec.types import PartitionAssignorError
from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition


def assign(
    group: ClassicAssignorInput, members: Sequence[ClassicMember], *, kafka: bool = False
) -> dict[str, list[TopicPartition]]:
    """``members`` in the leader's map order. With ``kafka``, an empty group fails as Kafka's
    does: its CircularIterator refuses an empty member list before looking at any partition
    (a real group always has its leader, so only hand-written input meets this)."""
    if kafka and not members:
        raise PartitionAssignorError(
            "CircularIterator can only be used on non-empty lists", kafka_exception="IllegalArgumentException"
        )
    ring = sorted(members, key=compare_key)
    subscribed = [frozenset(m.topics) for m in ring]
    out: dict[str, list[TopicPartition]] = {m.member_id: [] for m in group.members}
    cursor = 0
    for topic in sorted_topics(group):
        for p in range(group.partition_count(topic)):
            while topic not in subscribed[cursor]:
                cursor = (cursor + 1) % len(ring)
            out[ring[cursor].member_id].append((topic, p))
            cursor = (cursor + 1) % len(ring)
    return out

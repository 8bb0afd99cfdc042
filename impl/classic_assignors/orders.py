"""The orders Kafka's classic assignors inherit from Java collections, and groupspec's fixed ones.

Kafka's leader puts the subscriptions into a ``HashMap<String, Subscription>`` keyed by member
id, in JoinGroup response order (ConsumerCoordinator.onLeaderElected). The assignors sort members
with MemberInfo.compareTo, a stable sort whose ties (equal instance ids) keep that map's order.
AbstractPartitionAssignor.assign collects the subscribed topics into a ``HashSet<String>`` walking
that map, then builds ``partitionsPerTopic`` (a ``HashMap<String, List<PartitionInfo>>``) in the
set's order; RangeAssignor walks that map, so its lists follow its order of topic names.
"""

from __future__ import annotations

from groupspec.impl.simple_assignor.java_collections import (
    JavaHashMap,
    JavaHashSet,
    string_compare,
    string_hash,
)
from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition


def java_key(s: str) -> bytes:
    """Sorts like String.compareTo (UTF-16 code units)."""
    return s.encode("utf-16-be", "surrogatepass")


def compare_key(m: ClassicMember) -> tuple[int, bytes]:
    """MemberInfo.compareTo as a key: equal keys are compareTo's ties (same instance id)."""
    if m.group_instance_id is not None:
        return (0, java_key(m.group_instance_id))
    return (1, java_key(m.member_id))


def partition_key(tp: TopicPartition) -> tuple[bytes, int]:
    """TopicPartitionComparator: topic, then partition."""
    return (java_key(tp[0]), tp[1])


def kafka_member_map_order(group: ClassicAssignorInput) -> list[ClassicMember]:
    """The iteration order of the leader's subscription map."""
    table: JavaHashMap[str, ClassicMember] = JavaHashMap(string_hash, compare=string_compare)
    for m in group.members:
        table.put(m.member_id, m)
    return [table[k] for k in table]


def by_member_id(group: ClassicAssignorInput) -> list[ClassicMember]:
    """groupspec's stand-in for the map order: ties in compareTo then fall to the member id."""
    return sorted(group.members, key=lambda m: java_key(m.member_id))


def kafka_topic_order(group: ClassicAssignorInput, members: list[ClassicMember]) -> list[str]:
    """The iteration order of ``partitionsPerTopic``: topics with partitions that someone
    subscribes to, collected through the HashSet and put into the HashMap."""
    subscribed: JavaHashSet[str] = JavaHashSet(string_hash, compare=string_compare)
    for m in members:
        for topic in m.topics:
            subscribed.add(topic)
    per_topic: JavaHashMap[str, int] = JavaHashMap(string_hash, compare=string_compare)
    for topic in subscribed:
        if group.partition_count(topic) > 0:
            per_topic.put(topic, group.partition_count(topic))
    return per_topic.keys()


def sorted_topics(group: ClassicAssignorInput) -> list[str]:
    names = {t for m in group.members for t in m.topics if group.partition_count(t) > 0}
    return sorted(names, key=java_key)

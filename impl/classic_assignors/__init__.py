"""The classic consumer group's assignors (Range, RoundRobin, Sticky, CooperativeSticky), Kafka-shaped.

``assign(group)`` answers by groupspec's rules (spec/classic_assignors.py), which fix the two
orders Kafka leaves to its hash maps: each member's list is sorted, and members with equal
instance ids are ordered by member id. ``assign(group, compat="kafka")`` reproduces Kafka 4.2's
RangeAssignor / RoundRobinAssignor answers to the list order: the leader's subscription map and
the topic maps are java.util.HashMaps, emulated by impl/simple_assignor/java_collections.py.

Both modes run the same assignor code (:mod:`.range`, :mod:`.roundrobin`); they differ only in
the two orders they hand it (:mod:`.orders`) and in whether the lists are sorted at the end;
the Kafka mode also fails where Kafka's code throws (RoundRobin on a group without members:
PartitionAssignorError naming IllegalArgumentException; the sticky assignors on owned partitions
that upset their bookkeeping: IllegalStateException, see :mod:`.sticky`).
"""

from __future__ import annotations

from typing import Literal

from groupspec.types.classic_assignors import (
    RANGE,
    STICKY_ASSIGNORS,
    ClassicAssignment,
    ClassicAssignorInput,
    check_input,
)

Compat = Literal["groupspec", "kafka"]
COMPAT_MODES: tuple[Compat, ...] = ("groupspec", "kafka")


def assign(group: ClassicAssignorInput, *, compat: Compat = "groupspec") -> ClassicAssignment:
    """Every member's partitions, in list order; the module docstring explains ``compat``."""
    from groupspec.impl.classic_assignors import orders, range, roundrobin, sticky

    if compat not in COMPAT_MODES:
        raise ValueError(f"compat: unknown mode {compat!r}; expected one of {COMPAT_MODES}")
    check_input(group)
    kafka = compat == "kafka"
    members = orders.kafka_member_map_order(group) if kafka else orders.by_member_id(group)
    if group.assignor in STICKY_ASSIGNORS:
        raw = sticky.assign(group, members, kafka=kafka)
    elif group.assignor == RANGE:
        topics = orders.kafka_topic_order(group, members) if kafka else orders.sorted_topics(group)
        raw = range.assign(group, members, topics)
    else:
        raw = roundrobin.assign(group, members, kafka=kafka)
    if kafka:
        return {m: tuple(parts) for m, parts in raw.items()}
    return {m: tuple(sorted(parts, key=orders.partition_key)) for m, parts in raw.items()}

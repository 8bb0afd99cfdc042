"""Which coordinator shard owns a group: Kafka's ``partitionFor``.

``abs(groupId.hashCode()) % partitions`` with Java's String.hashCode (over UTF-16 code units,
32-bit wraparound) and Kafka's Utils.abs, which maps Integer.MIN_VALUE to 0 where Math.abs would
stay negative (GroupCoordinatorService#partitionFor; classic_group.md §5.5). Seed 002's
"testgroup" lands on 27 of 50.
"""

from __future__ import annotations

from groupspec.impl.simple_assignor.java_collections import string_hash as java_string_hash
from groupspec.types import InputError

__all__ = ["DEFAULT_PARTITIONS", "java_string_hash", "kafka_abs", "partition_for"]

#: offsets.topic.num.partitions and share.coordinator.state.topic.num.partitions defaults.
DEFAULT_PARTITIONS = 50


def kafka_abs(n: int) -> int:
    """org.apache.kafka.common.utils.Utils.abs: |n|, and 0 for Integer.MIN_VALUE."""
    return 0 if n == -(1 << 31) else abs(n)


def partition_for(key: str, partitions: int = DEFAULT_PARTITIONS) -> int:
    if partitions <= 0:
        raise InputError("partitions", f"must be positive (got {partitions})")
    return kafka_abs(java_string_hash(key)) % partitions

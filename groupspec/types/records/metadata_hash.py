"""The metadata hash a modern group records (``ShareGroupMetadataValue.metadata_hash``).

Part of the record format, like the codec: the value is what Kafka 4.2 writes, so a group
whose hash changes gets a new epoch exactly when Kafka's would. Upstream:
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/Utils.java``
(``computeTopicHash``, ``computeGroupHash``), hashing with hash4j's streaming XXH3-64 (seed 0).

hash4j's stream writes little-endian: a byte as itself, an int as 4 bytes, a long as 8, a
``String`` as its UTF-16 code units (2 bytes each) followed by its length in code units as an int
(``AbstractHashSink#putString``: ``putChars(s)`` then ``putInt(s.length())``). A topic hashes
magic byte 0, the topic id's most and least significant longs, the name, the partition count,
then per partition its index and its replicas' racks sorted, each as ``putInt(length)`` then
``putString``. A group hashes the topic hashes as longs, in topic-name order; no topic gives 0.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterable, Mapping, Sequence

import xxhash

TOPIC_HASH_MAGIC_BYTE = 0


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _java_string(text: str) -> bytes:
    units = text.encode("utf-16-le")
    return units + struct.pack("<i", len(units) // 2)


def _java_order(text: str) -> bytes:
    """Java's String.compareTo order: by UTF-16 code unit."""
    return text.encode("utf-16-be")


def topic_hash(topic_id: str, name: str, partitions: int,
               racks: Sequence[Iterable[str]] = ()) -> int:
    """Utils#computeTopicHash for an existing topic (signed 64-bit, as Java's getAsLong)."""
    bits = uuid.UUID(topic_id).int
    parts = [struct.pack("<B", TOPIC_HASH_MAGIC_BYTE), struct.pack("<QQ", bits >> 64, bits & (2**64 - 1)),
             _java_string(name), struct.pack("<i", partitions)]
    for i in range(partitions):
        parts.append(struct.pack("<i", i))
        for rack in sorted(racks[i] if i < len(racks) else (), key=_java_order):
            parts.append(struct.pack("<i", len(rack.encode("utf-16-le")) // 2) + _java_string(rack))
    return _signed(xxhash.xxh3_64_intdigest(b"".join(parts)))


def group_hash(topic_hashes: Mapping[str, int]) -> int:
    """Utils#computeGroupHash: topic name -> topic hash, combined in name order; 0 for none."""
    if not topic_hashes:
        return 0
    data = b"".join(struct.pack("<q", topic_hashes[name]) for name in sorted(topic_hashes, key=_java_order))
    return _signed(xxhash.xxh3_64_intdigest(data))

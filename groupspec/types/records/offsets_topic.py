"""The records of ``__consumer_offsets`` (the group coordinator's log), Kafka 4.2 layouts.

One frozen dataclass per key and value schema, field order = schema order. Where Kafka 4.2
changed a schema after the February 2025 copies in ``../shared/kafka-schemas`` (OffsetCommitValue
v4's tagged TopicId, share-group changes), the 4.2 layout is used and the difference is noted.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("OffsetCommitKey", "coordinator-key", 1, "0")
@dataclass(frozen=True, slots=True)
class OffsetCommitKey:
    group: str = kfield("string", "0")
    topic: str = kfield("string", "0")
    partition: int = kfield("int32", "0")


@message("OffsetCommitValue", "coordinator-value", 1, "0-4", "4+")
@dataclass(frozen=True, slots=True)
class OffsetCommitValue:
    offset: int = kfield("int64", "0+")
    leader_epoch: int = kfield("int32", "3+", default=-1, ignorable=True)
    metadata: str = kfield("string", "0+")
    commit_timestamp: int = kfield("int64", "0+")
    expire_timestamp: int = kfield("int64", "1", default=-1, ignorable=True)
    # Kafka 4.1+ (KAFKA-19141): tagged, written only when not the zero uuid.
    topic_id: uuid.UUID = kfield("uuid", "4+", tag=0, tagged="4+", ignorable=True)

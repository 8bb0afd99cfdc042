"""The records of ``__share_group_state`` (the share coordinator's log), Kafka 4.2 layouts.

A share-partition's durable state is a ShareSnapshot (the whole state) followed by ShareUpdate
deltas; replay folds the updates into the last snapshot (share_partition.md). Both values
changed after the February 2025 copies in ``../shared/kafka-schemas`` without a version bump:
``SnapshotEpoch`` went from uint16 to int32, the value fields became ``"0+"`` and the snapshot
gained ``CreateTimestamp`` and ``WriteTimestamp`` (4.2 tree of October 2025; the differences are
listed in ``tests/cover/test_record_schemas.py``).

Not here: KIP-1226 (share-partition lag, merged upstream in November 2025 as KAFKA-19797,
apache/kafka PR #20810) adds a ``DeliveryCompleteCount`` to both values. No copy of that schema
was available to check its exact form (position, tag), so it is left out; if it is a tagged
field, as Kafka does for compatible additions, readers skip it as an unknown tag.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("ShareSnapshotKey", "coordinator-key", 0, "0")
@dataclass(frozen=True, slots=True)
class ShareSnapshotKey:
    group_id: str = kfield("string", "0")
    topic_id: uuid.UUID = kfield("uuid", "0")
    partition: int = kfield("int32", "0")


@message("ShareSnapshotValue", "coordinator-value", 0, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareSnapshotValue:
    """The full state of one share-partition; every later update applies on top of it."""

    @dataclass(frozen=True, slots=True)
    class StateBatch:
        """A run of offsets with one delivery state (0 available, 2 acknowledged, 4 archived)."""

        first_offset: int = kfield("int64", "0+")
        last_offset: int = kfield("int64", "0+")
        delivery_state: int = kfield("int8", "0+")
        delivery_count: int = kfield("int16", "0+")

    snapshot_epoch: int = kfield("int32", "0+")
    state_epoch: int = kfield("int32", "0+")
    leader_epoch: int = kfield("int32", "0+")
    start_offset: int = kfield("int64", "0+")
    #: KIP-1226 (Kafka 4.2): how many offsets at or above the start offset are finished
    #: (acknowledged or archived), for lag; -1 when the writer did not say. Tagged, so a record
    #: without it is what Kafka 4.1 wrote. Seen in a real 4.2.1 broker's log (tests/broker).
    delivery_complete_count: int = kfield("int32", "0+", default=-1, tag=0, tagged="0+", kw_only=True)
    create_timestamp: int = kfield("int64", "0+")
    write_timestamp: int = kfield("int64", "0+")
    state_batches: tuple[StateBatch, ...] = kfield("[]struct", "0+", struct=StateBatch)


@message("ShareUpdateKey", "coordinator-key", 1, "0")
@dataclass(frozen=True, slots=True)
class ShareUpdateKey:
    group_id: str = kfield("string", "0")
    topic_id: uuid.UUID = kfield("uuid", "0")
    partition: int = kfield("int32", "0")


@message("ShareUpdateValue", "coordinator-value", 1, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareUpdateValue:
    """A delta against the snapshot of the same ``snapshot_epoch``; ``start_offset`` -1 = unchanged."""

    @dataclass(frozen=True, slots=True)
    class StateBatch:
        first_offset: int = kfield("int64", "0+")
        last_offset: int = kfield("int64", "0+")
        delivery_state: int = kfield("int8", "0+")
        delivery_count: int = kfield("int16", "0+")

    snapshot_epoch: int = kfield("int32", "0+")
    leader_epoch: int = kfield("int32", "0+")
    start_offset: int = kfield("int64", "0+")
    #: KIP-1226 (Kafka 4.2): how many offsets at or above the start offset are finished
    #: (acknowledged or archived), for lag; -1 when the writer did not say. Tagged, so a record
    #: without it is what Kafka 4.1 wrote. Seen in a real 4.2.1 broker's log (tests/broker).
    delivery_complete_count: int = kfield("int32", "0+", default=-1, tag=0, tagged="0+", kw_only=True)
    state_batches: tuple[StateBatch, ...] = kfield("[]struct", "0+", struct=StateBatch)

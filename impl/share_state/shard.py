"""One ``__share_group_state`` partition's share coordinator shard (ShareCoordinatorShard).

The shard's memory is four maps keyed by share-partition key, all rebuilt by :meth:`replay`
alone: the persisted state (``ShareGroupOffset``), the highest leader epoch and state epoch its
records carried (the fences), and how many ShareUpdates followed its last snapshot (the
cadence); plus the offsets manager. Request handlers only check and build records: the runtime
appends what they return and replays it, so a handler never changes memory itself, and a shard
loaded from the log is the shard that wrote it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any

from groupspec.impl.runtime.runtime import ShardContext
from groupspec.impl.share_state.combiner import combine_state_batches, combine_stored
from groupspec.impl.share_state.offsets import OffsetsManager
from groupspec.types import records as r
from groupspec.types.classic_group import Answer, LogEntry
from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord
from groupspec.types.share_state import (
    NO_EPOCH,
    UNINITIALIZED_START_OFFSET,
    DeleteShareGroupStateResponse,
    InitializeShareGroupStateResponse,
    ReadShareGroupStateResponse,
    ReadShareGroupStateSummaryResponse,
    StateBatch,
    WriteShareGroupStateResponse,
)

Key = tuple[str, str, int]


@dataclass(frozen=True)
class ShareGroupOffset:
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    state_batches: tuple[StateBatch, ...]
    create_timestamp: int = 0
    write_timestamp: int = 0
    #: KIP-1226's count of finished offsets, as the key's last record carried it (-1: unknown).
    delivery_complete_count: int = -1


def _batches(values: Any) -> tuple[StateBatch, ...]:
    return tuple(StateBatch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
                 for b in values)


def _record_batches(batches: Any, cls: Any) -> tuple[Any, ...]:
    return tuple(cls(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in batches)


def snapshot_record(key: Key, o: ShareGroupOffset) -> CoordinatorRecord:
    value = r.ShareSnapshotValue(
        snapshot_epoch=o.snapshot_epoch, state_epoch=o.state_epoch, leader_epoch=o.leader_epoch,
        start_offset=o.start_offset, delivery_complete_count=o.delivery_complete_count,
        create_timestamp=o.create_timestamp, write_timestamp=o.write_timestamp,
        state_batches=_record_batches(o.state_batches, r.ShareSnapshotValue.StateBatch))
    return CoordinatorRecord(r.ShareSnapshotKey(key[0], uuid.UUID(key[1]), key[2]), value, 0)


def update_record(key: Key, snapshot_epoch: int, leader_epoch: int, start_offset: int,
                  batches: list[StateBatch], delivery_complete_count: int) -> CoordinatorRecord:
    value = r.ShareUpdateValue(snapshot_epoch=snapshot_epoch, leader_epoch=leader_epoch,
                               start_offset=start_offset, delivery_complete_count=delivery_complete_count,
                               state_batches=_record_batches(batches, r.ShareUpdateValue.StateBatch))
    return CoordinatorRecord(r.ShareUpdateKey(key[0], uuid.UUID(key[1]), key[2]), value, 0)


def tombstone_record(key: Key) -> CoordinatorRecord:
    """A delete always tombstones the ShareSnapshot key (ShareCoordinatorRecordHelpers)."""
    return CoordinatorRecord(r.ShareSnapshotKey(key[0], uuid.UUID(key[1]), key[2]), None, None)


Result = tuple[object, list[CoordinatorRecord]]


class ShareStateShard:
    def __init__(self, context: ShardContext, topics: dict[str, int], updates_per_snapshot: int,
                 cold_snapshot_interval_ms: int, *, fence_read_without_leader_epoch: bool = True) -> None:
        self.context = context
        self.fence_read_without_leader_epoch = fence_read_without_leader_epoch
        self.topics = topics
        self.updates_per_snapshot = updates_per_snapshot
        self.cold_snapshot_interval_ms = cold_snapshot_interval_ms
        self.share_state: dict[Key, ShareGroupOffset] = {}
        self.leader_epochs: dict[Key, int] = {}
        self.state_epochs: dict[Key, int] = {}
        self.update_counts: dict[Key, int] = {}
        self.offsets = OffsetsManager()

    # -- runtime hooks ------------------------------------------------------------------------

    def on_loaded(self) -> None:
        pass

    def on_unloaded(self) -> list[Answer]:
        return []

    def replay(self, offset: int, entry: LogEntry) -> None:
        if not isinstance(entry, CoordinatorRecord):
            return
        k = entry.key
        if isinstance(k, r.ShareSnapshotKey):
            self._replay_snapshot((k.group_id, str(k.topic_id), k.partition), entry.value, offset)
        elif isinstance(k, r.ShareUpdateKey):
            assert isinstance(entry.value, r.ShareUpdateValue)
            self._replay_update((k.group_id, str(k.topic_id), k.partition), entry.value)

    def _raise_leader_epoch(self, key: Key, epoch: int) -> None:
        self.leader_epochs[key] = max(self.leader_epochs.get(key, epoch), epoch)

    def _replay_snapshot(self, key: Key, value: object, offset: int) -> None:
        if value is None:
            for table in (self.share_state, self.leader_epochs, self.state_epochs, self.update_counts):
                table.pop(key, None)
        else:
            assert isinstance(value, r.ShareSnapshotValue)
            self._raise_leader_epoch(key, value.leader_epoch)
            self.state_epochs[key] = max(self.state_epochs.get(key, value.state_epoch), value.state_epoch)
            self.share_state[key] = ShareGroupOffset(
                value.snapshot_epoch, value.state_epoch, value.leader_epoch, value.start_offset,
                _batches(value.state_batches), value.create_timestamp, value.write_timestamp,
                value.delivery_complete_count)
            if self.update_counts.get(key, -1) >= self.updates_per_snapshot:
                self.update_counts[key] = 0
        self.offsets.update_state(key, offset, value is None)

    def _replay_update(self, key: Key, value: r.ShareUpdateValue) -> None:
        self._raise_leader_epoch(key, value.leader_epoch)
        current = self.share_state.get(key)
        if current is None:
            self.share_state[key] = ShareGroupOffset(value.snapshot_epoch, 0, value.leader_epoch,
                                                     value.start_offset, _batches(value.state_batches),
                                                     delivery_complete_count=value.delivery_complete_count)
        else:
            given = value.start_offset
            start = current.start_offset if given == UNINITIALIZED_START_OFFSET else given
            leader = current.leader_epoch if value.leader_epoch == NO_EPOCH else value.leader_epoch
            merged = combine_stored(current.state_batches, list(_batches(value.state_batches)),
                                    start)
            self.share_state[key] = ShareGroupOffset(current.snapshot_epoch, current.state_epoch, leader,
                                                     start, merged, current.create_timestamp,
                                                     current.write_timestamp,
                                                     # Kafka's merge takes the update's count.
                                                     value.delivery_complete_count)
        self.update_counts[key] = self.update_counts.get(key, 0) + 1

    # -- requests -------------------------------------------------------------------------------

    def _unknown_partition(self, key: Key) -> bool:
        return self.topics.get(key[1], 0) <= key[2]

    def _state_record(self, key: Key, start_offset: int, leader_epoch: int,
                      batches: list[StateBatch], delivery_complete_count: int = -1) -> CoordinatorRecord:
        """A write's record. ``delivery_complete_count`` is the request's: WriteShareGroupState
        v0, which groupspec's requests are, has none (-1); a read's leader-epoch record keeps
        the key's own."""
        current, now = self.share_state[key], self.context.now()
        if self.update_counts.get(key, 0) >= self.updates_per_snapshot:
            start = current.start_offset if start_offset == UNINITIALIZED_START_OFFSET else start_offset
            merged = combine_state_batches(list(current.state_batches), batches, start)
            return snapshot_record(key, ShareGroupOffset(current.snapshot_epoch + 1, current.state_epoch,
                                                         leader_epoch, start, tuple(merged), now, now,
                                                         delivery_complete_count))
        return update_record(key, current.snapshot_epoch, leader_epoch, start_offset,
                             combine_state_batches([], batches, start_offset), delivery_complete_count)

    def initialize_state(self, key: Key, state_epoch: int, start_offset: int) -> Result:
        if key[2] < 0:
            return InitializeShareGroupStateResponse(Errors.INVALID_REQUEST), []
        if state_epoch != NO_EPOCH and self.state_epochs.get(key, state_epoch) > state_epoch:
            return InitializeShareGroupStateResponse(Errors.FENCED_STATE_EPOCH), []
        if self._unknown_partition(key):
            return InitializeShareGroupStateResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION), []
        current, now = self.share_state.get(key), self.context.now()
        epoch = 0 if current is None else current.snapshot_epoch + 1
        # KIP-1226 (ShareGroupOffset.fromRequest): counting starts with a known start offset.
        complete = -1 if start_offset == UNINITIALIZED_START_OFFSET else 0
        record = snapshot_record(key, ShareGroupOffset(epoch, state_epoch, 0, start_offset, (), now, now,
                                                       complete))
        return InitializeShareGroupStateResponse(), [record]

    def write_state(self, key: Key, state_epoch: int, leader_epoch: int, start_offset: int,
                    batches: list[StateBatch]) -> Result:
        error = Errors.NONE
        if key[2] < 0 or key not in self.share_state:
            error = Errors.INVALID_REQUEST
        elif leader_epoch != NO_EPOCH and self.leader_epochs.get(key, leader_epoch) > leader_epoch:
            error = Errors.FENCED_LEADER_EPOCH
        elif state_epoch != NO_EPOCH and self.state_epochs.get(key, state_epoch) > state_epoch:
            error = Errors.FENCED_STATE_EPOCH
        elif self._unknown_partition(key):
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION
        if error != Errors.NONE:
            return WriteShareGroupStateResponse(error), []
        # A write keeps the key's leader epoch (Kafka passes updateLeaderEpoch = false).
        record = self._state_record(key, start_offset, self.share_state[key].leader_epoch, batches)
        return WriteShareGroupStateResponse(), [record]

    def read_state(self, key: Key, leader_epoch: int) -> Result:
        error = Errors.NONE
        if key[2] < 0 or key not in self.share_state:
            error = Errors.INVALID_REQUEST
        elif ((leader_epoch != NO_EPOCH or self.fence_read_without_leader_epoch)
              and self.leader_epochs.get(key, leader_epoch) > leader_epoch):
            error = Errors.FENCED_LEADER_EPOCH
        elif self._unknown_partition(key):
            error = Errors.UNKNOWN_TOPIC_OR_PARTITION
        if error != Errors.NONE:
            return ReadShareGroupStateResponse(error), []
        current = self.share_state[key]
        response = ReadShareGroupStateResponse(Errors.NONE, current.state_epoch, current.start_offset,
                                               current.state_batches)
        if leader_epoch == NO_EPOCH or self.leader_epochs.get(key) == leader_epoch:
            return response, []
        return response, [self._state_record(key, current.start_offset, leader_epoch, [],
                                             current.delivery_complete_count)]

    def read_state_summary(self, key: Key) -> Result:
        if key[2] < 0:
            return ReadShareGroupStateSummaryResponse(Errors.INVALID_REQUEST), []
        if self._unknown_partition(key):
            return ReadShareGroupStateSummaryResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION), []
        current = self.share_state.get(key)
        if current is None:
            return ReadShareGroupStateSummaryResponse(Errors.NONE, 0, 0, UNINITIALIZED_START_OFFSET), []
        return ReadShareGroupStateSummaryResponse(Errors.NONE, current.state_epoch, current.leader_epoch,
                                                  current.start_offset), []

    def snapshot_cold_partitions(self) -> list[CoordinatorRecord]:
        """A new snapshot (next epoch, write time now) of each key whose last snapshot is an
        interval old; nothing when every key's last snapshot is a cold one already (written after
        it was created). Kafka walks its hash map; keys go in sorted order here."""
        cold = sum(1 for o in self.share_state.values() if o.create_timestamp != o.write_timestamp)
        if cold == len(self.share_state):
            return []
        now, records = self.context.now(), []
        for key in sorted(self.share_state):
            o = self.share_state[key]
            if now - o.write_timestamp >= self.cold_snapshot_interval_ms:
                records.append(snapshot_record(key, replace(o, snapshot_epoch=o.snapshot_epoch + 1,
                                                            write_timestamp=now)))
        return records

    def cleanup_share_state(self, topic_ids: set[str]) -> list[CoordinatorRecord]:
        """Tombstones for every key of the deleted topics (Kafka collects them in a hash set;
        sorted here)."""
        return [tombstone_record(key) for key in sorted(self.share_state) if key[1] in topic_ids]

    def delete_state(self, key: Key) -> Result:
        if key[2] < 0:
            return DeleteShareGroupStateResponse(Errors.INVALID_REQUEST), []
        if self._unknown_partition(key):
            return DeleteShareGroupStateResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION), []
        if key not in self.share_state:
            return DeleteShareGroupStateResponse(), []
        return DeleteShareGroupStateResponse(), [tombstone_record(key)]

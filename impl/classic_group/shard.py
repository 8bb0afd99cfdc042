"""One ``__consumer_offsets`` partition's coordinator: Kafka's ``GroupCoordinatorShard``.

It owns the groups and offsets whose ids hash to its partition, routes each request to the
group or offset manager as a write operation, replays its log's entries into both managers, and
runs the periodic offset expiration job (``expire-group-metadata``) on its own timer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from groupspec.impl.classic_group.fast_offsets import replay_decoded_batch, replay_raw_batch
from groupspec.impl.classic_group.group import EMPTY
from groupspec.impl.classic_group.group_metadata import GroupMetadataManager
from groupspec.impl.classic_group.offsets import OffsetMetadataManager
from groupspec.impl.codec.batch import RawBatch, RecordBatch
from groupspec.impl.runtime.log import log_entries
from groupspec.impl.runtime.runtime import ShardContext, WriteResult
from groupspec.types.classic_group import (
    Answer,
    ClassicConfig,
    GroupResult,
    LogEntry,
    TxnEnd,
    TxnRecord,
)
from groupspec.types.errors import Errors
from groupspec.types.records import (
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
)
from groupspec.types.records.registry import CoordinatorRecord

EXPIRE_GROUP_METADATA = "expire-group-metadata"


class GroupCoordinatorShard:
    def __init__(self, config: ClassicConfig, context: ShardContext) -> None:
        self.config = config
        self.context = context
        self.group_manager = GroupMetadataManager(config, context)
        self.offset_manager = OffsetMetadataManager(config, self.group_manager)

    # -- CoordinatorShard -------------------------------------------------------------------------

    def replay(self, offset: int, entry: LogEntry) -> None:
        if isinstance(entry, TxnEnd):
            self.offset_manager.replay_end_transaction(entry)
            return
        producer_id = None
        if isinstance(entry, TxnRecord):
            producer_id, entry = entry.producer_id, entry.record
        assert isinstance(entry, CoordinatorRecord)
        key, value = entry.key, entry.value
        if isinstance(key, OffsetCommitKey):
            assert value is None or isinstance(value, OffsetCommitValue)
            self.offset_manager.replay(offset, key, value, producer_id)
        elif isinstance(key, GroupMetadataKey):
            assert value is None or isinstance(value, GroupMetadataValue)
            self.group_manager.replay(key, value)
            if value is None:
                self.offset_manager.delete_group(key.group)
        # Other record types on __consumer_offsets belong to consumer and share groups.

    def replay_batches(self, topic: str, partition: int, batches: Iterable[RecordBatch | RawBatch],
                       on_commit: Callable[[str], None] | None = None,
                       on_entry: Callable[[int, LogEntry], None] | None = None) -> None:
        """What ``for o, e in log_entries(topic, partition, batches): self.replay(o, e)`` does,
        with OffsetCommit records (most of a busy log) read from their bytes straight into the
        offset manager (:mod:`~groupspec.impl.classic_group.fast_offsets`): no key, value or record
        object per commit. Every other record, and any commit the fast reader declines, takes
        the general path, which decodes it (or raises) as it always did.

        A :class:`RawBatch` (from a :class:`~groupspec.impl.codec.raw.RawBatchReader`: an
        uncompressed data batch whose records are still bytes) is replayed from its bytes
        (:func:`~groupspec.impl.classic_group.fast_offsets.replay_raw_batch`), with no record
        object at all, and to the same state or the same error.

        ``on_commit(group)`` is told of each fast-path commit and ``on_entry(offset, entry)`` of
        every other entry before it is replayed, for callers that watch the records go by
        (``groupspec describe`` notes each group's kind and partition).
        """
        for batch in batches:
            if isinstance(batch, RawBatch):
                replay_raw_batch(self, topic, partition, batch, on_commit, on_entry)
            elif batch.is_control:
                for offset, entry in log_entries(topic, partition, (batch,)):
                    if on_entry is not None:
                        on_entry(offset, entry)
                    self.replay(offset, entry)
            else:
                replay_decoded_batch(self, topic, partition, batch, on_commit, on_entry)

    def on_loaded(self) -> None:
        self.group_manager.on_loaded()
        self.schedule_expiration()

    def on_unloaded(self) -> list[Answer]:
        return self.group_manager.on_unloaded()

    # -- the offset expiration job ----------------------------------------------------------------

    def schedule_expiration(self) -> None:
        self.context.schedule(EXPIRE_GROUP_METADATA, self.config.offsets_retention_check_interval_ms,
                              self._expire)

    def _expire(self) -> WriteResult:
        out = WriteResult(replay=True)
        self.offset_manager.expire(out, self.context.now())
        self.schedule_expiration()
        return out

    # -- admin writes -------------------------------------------------------------------------------

    def delete_group(self, group_id: str) -> tuple[GroupResult, WriteResult]:
        """One group of a DeleteGroups: only an Empty group goes, with all its offsets."""
        out = WriteResult(replay=True)
        group = self.group_manager.group(group_id)
        if group is None:
            return GroupResult(group_id, Errors.GROUP_ID_NOT_FOUND), out
        if group.state != EMPTY:
            return GroupResult(group_id, Errors.NON_EMPTY_GROUP), out
        self.offset_manager.delete_all_offsets(out, group_id)
        out.records.append(CoordinatorRecord(GroupMetadataKey(group_id), None))
        return GroupResult(group_id, Errors.NONE), out

    def end_transaction(self, end: TxnEnd, added: bool) -> WriteResult:
        """A transaction marker, if the producer's transaction ``added`` this partition (or has
        offsets pending here): CoordinatorRuntime#completeTransaction appends it whatever is
        still pending, so a producer whose pending offsets an OffsetDelete removed still writes one."""
        out = WriteResult(replay=True)
        if added or self.offset_manager.has_open_transaction(end.producer_id):
            out.records.append(end)
        return out


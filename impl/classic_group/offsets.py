"""Committed offsets: Kafka's ``OffsetMetadataManager`` for classic and simple groups.

Unlike the group handlers, these write records and let the runtime replay them (Kafka's
``replayRecords``): memory changes only through :meth:`OffsetMetadataManager.replay`, live or at
load, so a commit and a load cannot disagree. A transactional offset is pending, per producer,
until its producer's COMMIT or ABORT marker is replayed; a COMMIT keeps whichever of the pending
and the committed offset sits later in the log.
"""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.impl.classic_group.group import (
    COMPLETING_REBALANCE,
    CONSUMER_PROTOCOL_TYPE,
    EMPTY,
    STABLE,
    ClassicGroup,
)
from groupspec.impl.classic_group.group_metadata import GroupMetadataManager
from groupspec.impl.runtime.runtime import WriteResult
from groupspec.types.classic_group import (
    UNKNOWN_MEMBER_ID,
    Answer,
    ClassicConfig,
    CommitTopic,
    FetchedPartition,
    FetchedTopic,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetDelete,
    OffsetDeleteResponse,
    OffsetFetch,
    OffsetFetchResponse,
    PartitionResult,
    TopicResult,
    TxnEnd,
    TxnOffsetCommit,
    TxnOffsetCommitResponse,
    TxnRecord,
)
from groupspec.types.errors import Errors
from groupspec.types.records import GroupMetadataKey, OffsetCommitKey, OffsetCommitValue
from groupspec.types.records.registry import CoordinatorRecord
from groupspec.types.wire_bounds import wrap_int64

TopicPartition = tuple[str, int]


@dataclass(slots=True)
class OffsetAndMetadata:
    offset: int
    leader_epoch: int
    metadata: str
    commit_timestamp_ms: int
    expire_timestamp_ms: int
    #: The record's log offset: a COMMIT marker keeps the later of two offsets.
    log_offset: int


def _java_length(text: str) -> int:
    """String#length: UTF-16 code units, what offset.metadata.max.bytes is compared with."""
    return len(text.encode("utf-16-le")) // 2


def _every_partition(topics: tuple[CommitTopic, ...], error: Errors) -> tuple[TopicResult, ...]:
    return tuple(TopicResult(t.name, tuple(PartitionResult(p.partition, error) for p in t.partitions))
                 for t in topics)


class OffsetMetadataManager:
    def __init__(self, config: ClassicConfig, groups: GroupMetadataManager) -> None:
        self.config = config
        self.groups = groups
        self.offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        #: group -> producer id -> pending offsets of that producer's open transaction.
        self.pending: dict[str, dict[int, dict[TopicPartition, OffsetAndMetadata]]] = {}
        #: producer id -> groups it has pending offsets in (what a marker must visit).
        self.open_transactions: dict[int, set[str]] = {}

    # -- replay -----------------------------------------------------------------------------------

    def replay(self, log_offset: int, key: OffsetCommitKey, value: OffsetCommitValue | None,
               producer_id: int | None) -> None:
        entry = None if value is None else OffsetAndMetadata(
            value.offset, value.leader_epoch, value.metadata, value.commit_timestamp,
            value.expire_timestamp, log_offset)
        self.replay_entry(key.group, (key.topic, key.partition), entry, producer_id)

    def replay_entry(self, group_id: str, tp: TopicPartition, entry: OffsetAndMetadata | None,
                     producer_id: int | None) -> None:
        """:meth:`replay` from the record's fields (None: a tombstone), which a loader reading
        OffsetCommit bytes straight into fields (``shard.replay_batches``) calls without building
        the record's objects."""
        if entry is None:
            self._remove(group_id, tp)
            return
        if group_id not in self.groups.groups:
            # An offset of a group nobody joined: a "simple" group (Kafka creates it here too),
            # its state timestamp the time of the replay (at a load, the time of the load).
            self.groups.get_or_create(group_id)
        if producer_id is None:
            self.offsets.setdefault(group_id, {})[tp] = entry
        else:
            self.pending.setdefault(group_id, {}).setdefault(producer_id, {})[tp] = entry
            self.open_transactions.setdefault(producer_id, set()).add(group_id)

    def _remove(self, group_id: str, tp: TopicPartition) -> None:
        committed = self.offsets.get(group_id)
        if committed is not None:
            committed.pop(tp, None)
            if not committed:
                del self.offsets[group_id]
        by_producer = self.pending.get(group_id)
        if by_producer is None:
            return
        for producer_id in list(by_producer):
            offsets = by_producer[producer_id]
            offsets.pop(tp, None)
            if not offsets:
                del by_producer[producer_id]
                self._close(producer_id, group_id)
        if not by_producer:
            del self.pending[group_id]

    def _close(self, producer_id: int, group_id: str) -> None:
        groups = self.open_transactions.get(producer_id)
        if groups is not None:
            groups.discard(group_id)
            if not groups:
                del self.open_transactions[producer_id]

    def replay_end_transaction(self, end: TxnEnd) -> None:
        for group_id in sorted(self.open_transactions.pop(end.producer_id, ())):
            by_producer = self.pending[group_id]
            offsets = by_producer.pop(end.producer_id)
            if not by_producer:
                del self.pending[group_id]
            if not end.commit:
                continue
            committed = self.offsets.setdefault(group_id, {})
            for tp, entry in offsets.items():
                current = committed.get(tp)
                if current is None or current.log_offset < entry.log_offset:
                    committed[tp] = entry

    def delete_group(self, group_id: str) -> None:
        """A group tombstone was replayed: whatever offsets it still had go with it."""
        self.offsets.pop(group_id, None)
        for producer_id in self.pending.pop(group_id, {}):
            self._close(producer_id, group_id)

    # -- queries ----------------------------------------------------------------------------------

    def committed(self, group_id: str) -> dict[TopicPartition, OffsetAndMetadata]:
        return self.offsets.get(group_id, {})

    def pending_of(self, group_id: str) -> dict[int, dict[TopicPartition, OffsetAndMetadata]]:
        return self.pending.get(group_id, {})

    def pending_partitions(self, group_id: str) -> set[TopicPartition]:
        return {tp for offsets in self.pending_of(group_id).values() for tp in offsets}

    def has_open_transaction(self, producer_id: int) -> bool:
        return producer_id in self.open_transactions

    # -- OffsetCommit, TxnOffsetCommit ------------------------------------------------------------

    def _validate(self, group: ClassicGroup, generation: int, member_id: str, instance_id: str | None,
                  transactional: bool) -> Errors:
        """ClassicGroup#validateOffsetCommit."""
        if generation < 0 and group.state == EMPTY:
            return Errors.NONE  # an admin or a simple consumer committing into an Empty group
        if generation >= 0 or member_id != UNKNOWN_MEMBER_ID or instance_id is not None:
            error = GroupMetadataManager.validate_member(group, member_id, instance_id)
            if error is not Errors.NONE:
                return error
            if generation != group.generation_id:
                return Errors.ILLEGAL_GENERATION
        elif not transactional:
            return Errors.UNKNOWN_MEMBER_ID  # anonymous, non-Empty: only a producer may omit the member
        if not transactional and group.state == COMPLETING_REBALANCE:
            return Errors.REBALANCE_IN_PROGRESS
        return Errors.NONE

    def _write(self, out: WriteResult, group_id: str, topics: tuple[CommitTopic, ...], now: int,
               expire: int, producer: tuple[int, int] | None) -> tuple[TopicResult, ...]:
        limit = self.config.offset_metadata_max_bytes
        results = []
        for topic in topics:
            partitions = []
            for p in topic.partitions:
                metadata = p.committed_metadata or ""
                if _java_length(metadata) > limit:
                    partitions.append(PartitionResult(p.partition, Errors.OFFSET_METADATA_TOO_LARGE))
                    continue
                key = OffsetCommitKey(group_id, topic.name, p.partition)
                record = CoordinatorRecord(key, OffsetCommitValue(
                    offset=p.committed_offset, leader_epoch=p.committed_leader_epoch, metadata=metadata,
                    commit_timestamp=now, expire_timestamp=expire))
                out.records.append(record if producer is None else TxnRecord(record, *producer))
                partitions.append(PartitionResult(p.partition, Errors.NONE))
            results.append(TopicResult(topic.name, tuple(partitions)))
        return tuple(results)

    def commit_offset(self, out: WriteResult, req: OffsetCommit, index: int) -> None:
        group = self.groups.group(req.group_id)
        if group is None:
            if req.generation_id_or_member_epoch >= 0:
                error = Errors.GROUP_ID_NOT_FOUND if req.version >= 9 else Errors.ILLEGAL_GENERATION
                out.answers.append(Answer(index, OffsetCommitResponse(_every_partition(req.topics, error))))
                return
            group = self.groups.create_unwritten(req.group_id)
        error = self._validate(group, req.generation_id_or_member_epoch, req.member_id,
                               req.group_instance_id, False)
        if error is not Errors.NONE:
            out.answers.append(Answer(index, OffsetCommitResponse(_every_partition(req.topics, error))))
            return
        member = group.members.get(req.member_id)
        if member is not None and group.state in (STABLE, "PreparingRebalance"):
            self.groups.schedule_session(group, member.member_id, member.session_timeout_ms)
        now = self.groups.context.now()
        expire = -1
        if 2 <= req.version <= 4 and req.retention_time_ms != -1:
            # Only these versions carry a retention time; Java adds it as a long, so it may wrap.
            expire = wrap_int64(now + req.retention_time_ms)
        results = self._write(out, group.group_id, req.topics, now, expire, None)
        out.answers.append(Answer(index, OffsetCommitResponse(results)))

    def commit_transactional_offset(self, out: WriteResult, req: TxnOffsetCommit, index: int) -> None:
        group = self.groups.group(req.group_id)
        if group is None:
            if req.generation_id >= 0:
                out.answers.append(Answer(index, TxnOffsetCommitResponse(
                    _every_partition(req.topics, Errors.ILLEGAL_GENERATION))))
                return
            group = self.groups.create_unwritten(req.group_id)
        error = self._validate(group, req.generation_id, req.member_id, req.group_instance_id, True)
        if error is not Errors.NONE:
            out.answers.append(Answer(index, TxnOffsetCommitResponse(_every_partition(req.topics, error))))
            return
        results = self._write(out, group.group_id, req.topics, self.groups.context.now(), -1,
                              (req.producer_id, req.producer_epoch))
        out.answers.append(Answer(index, TxnOffsetCommitResponse(results)))

    # -- OffsetFetch, OffsetDelete ----------------------------------------------------------------

    def _fetched(self, group_id: str, tp: TopicPartition, pending: set[TopicPartition],
                 require_stable: bool) -> FetchedPartition:
        if require_stable and tp in pending:
            return FetchedPartition(tp[1], error=Errors.UNSTABLE_OFFSET_COMMIT)
        entry = self.committed(group_id).get(tp)
        if entry is None:
            return FetchedPartition(tp[1])
        return FetchedPartition(tp[1], entry.offset, entry.leader_epoch, entry.metadata)

    def fetch_offsets(self, req: OffsetFetch) -> OffsetFetchResponse:
        group_id = req.group_id
        exists = self.groups.group(group_id) is not None
        pending = self.pending_partitions(group_id)
        if req.topics is not None:
            topics = tuple(FetchedTopic(t.name, tuple(
                self._fetched(group_id, (t.name, p), pending, req.require_stable) if exists
                else FetchedPartition(p) for p in t.partitions)) for t in req.topics)
            return OffsetFetchResponse(Errors.NONE, topics)
        by_topic: dict[str, list[FetchedPartition]] = {}
        for tp in sorted(self.committed(group_id)):
            by_topic.setdefault(tp[0], []).append(self._fetched(group_id, tp, pending, req.require_stable))
        return OffsetFetchResponse(Errors.NONE, tuple(FetchedTopic(name, tuple(parts))
                                                      for name, parts in by_topic.items()))

    @staticmethod
    def _tombstone(out: WriteResult, group_id: str, tp: TopicPartition) -> None:
        out.records.append(CoordinatorRecord(OffsetCommitKey(group_id, tp[0], tp[1]), None))

    def delete_offsets(self, out: WriteResult, req: OffsetDelete, index: int) -> None:
        group = self.groups.group(req.group_id)
        if group is None:
            out.answers.append(Answer(index, OffsetDeleteResponse(Errors.GROUP_ID_NOT_FOUND)))
            return
        if group.state != EMPTY and group.protocol_type != CONSUMER_PROTOCOL_TYPE:
            out.answers.append(Answer(index, OffsetDeleteResponse(Errors.NON_EMPTY_GROUP)))
            return
        committed = self.committed(group.group_id)
        pending = self.pending_partitions(group.group_id)  # a pending offset gets its tombstone too
        deleted: set[TopicPartition] = set()  # the replay comes after the whole request
        results = []
        for topic in req.topics:
            subscribed = group.is_subscribed(topic.name)
            partitions = []
            for p in topic.partitions:
                if subscribed:
                    partitions.append(PartitionResult(p, Errors.GROUP_SUBSCRIBED_TO_TOPIC))
                    continue
                tp = (topic.name, p)
                if (tp in committed or tp in pending) and tp not in deleted:
                    deleted.add(tp)
                    self._tombstone(out, group.group_id, tp)
                partitions.append(PartitionResult(p, Errors.NONE))
            results.append(TopicResult(topic.name, tuple(partitions)))
        out.answers.append(Answer(index, OffsetDeleteResponse(Errors.NONE, tuple(results))))

    def delete_all_offsets(self, out: WriteResult, group_id: str) -> None:
        """Tombstones for every committed and pending offset of a group being deleted, sorted
        (Kafka: committed ones in hash order, then pending-only ones; docs/divergences.md,
        classic_tombstone_order)."""
        for tp in sorted(set(self.committed(group_id)) | self.pending_partitions(group_id)):
            self._tombstone(out, group_id, tp)

    # -- retention --------------------------------------------------------------------------------

    def expired_offsets(self, group: ClassicGroup, now: int) -> tuple[list[TopicPartition], bool]:
        """cleanupExpiredOffsets: what to tombstone, and whether the group is left with nothing."""
        group_id = group.group_id
        committed = self.committed(group_id)
        has_pending = bool(self.pending_of(group_id))
        if not committed:
            return [], not has_pending
        # Kafka 4.x's OffsetExpirationCondition: from the time the group went Empty, or, for a
        # Stable consumer group that knows its subscriptions and for a simple group, from each
        # offset's commit time. Subscribed topics and open transactions never expire.
        from_state = group.protocol_type is not None and group.state == EMPTY
        from_commit = group.protocol_type is None or (
            group.protocol_type == CONSUMER_PROTOCOL_TYPE and group.subscribed_topics is not None
            and group.state == STABLE)
        if not from_state and not from_commit:
            return [], False
        pending = self.pending_partitions(group_id)
        retention = self.config.offsets_retention_ms
        expired = []
        for tp in sorted(committed):
            entry = committed[tp]
            if group.is_subscribed(tp[0]) or tp in pending:
                continue
            if entry.expire_timestamp_ms != -1:
                gone = now >= entry.expire_timestamp_ms
            else:
                base = (group.state_timestamp_ms if from_state and group.state_timestamp_ms is not None
                        else entry.commit_timestamp_ms)
                gone = now - base >= retention
            if gone:
                expired.append(tp)
        return expired, len(expired) == len(committed) and not has_pending

    def expire(self, out: WriteResult, now: int) -> None:
        for group_id in sorted(self.groups.groups):
            group = self.groups.groups[group_id]
            expired, nothing_left = self.expired_offsets(group, now)
            for tp in expired:
                self._tombstone(out, group_id, tp)
            if nothing_left and group.state == EMPTY:
                out.records.append(CoordinatorRecord(GroupMetadataKey(group_id), None))

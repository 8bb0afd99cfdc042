"""The classic group coordinator of one node: Kafka's ``GroupCoordinatorService`` over its shards.

It checks what Kafka checks before a request reaches a shard (an empty group id, a SyncGroup v5+
without protocol type and name), finds the shard with ``partitionFor``, and runs the request as
that shard's write or read. A shard this node does not host answers NOT_COORDINATOR, one still
loading COORDINATOR_LOAD_IN_PROGRESS, except that a Heartbeat to a loading shard is answered
NONE (``GroupCoordinatorService#heartbeat``: the group is loading, so the member carries on) and
a ListGroups fails as a whole while any shard loads. Requests about several groups (DeleteGroups,
DescribeGroups, ListGroups) and transaction markers fan out over the shards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from groupspec.impl.classic_group.group_metadata import GroupMetadataManager
from groupspec.impl.classic_group.offsets import OffsetAndMetadata
from groupspec.impl.classic_group.shard import GroupCoordinatorShard
from groupspec.impl.codec.compression import Compression
from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.partitioning import partition_for
from groupspec.impl.runtime.runtime import (
    CoordinatorRuntime,
    LoadInProgressError,
    NotCoordinatorError,
    ShardContext,
    WriteResult,
)
from groupspec.types import InputError, wire_bounds
from groupspec.types.classic_group import (
    AdvanceClock,
    Answer,
    BeginLoad,
    ClassicConfig,
    ClassicEvent,
    CompleteLoad,
    CoordinatorView,
    DeleteGroups,
    DeleteGroupsResponse,
    DescribedGroup,
    DescribeGroups,
    DescribeGroupsResponse,
    GroupResult,
    GroupView,
    Heartbeat,
    HeartbeatResponse,
    JoinGroup,
    JoinGroupResponse,
    LeaveGroup,
    LeaveGroupResponse,
    ListedGroup,
    ListGroups,
    ListGroupsResponse,
    LogEntry,
    MemberView,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetDelete,
    OffsetDeleteResponse,
    OffsetFetch,
    OffsetFetchResponse,
    OffsetView,
    Output,
    PartitionResult,
    PendingOffsetView,
    Restart,
    SyncGroup,
    SyncGroupResponse,
    TopicResult,
    TxnEnd,
    TxnMarker,
    TxnMarkerResponse,
    TxnOffsetCommit,
    TxnOffsetCommitResponse,
    check_config,
    check_event,
)
from groupspec.types.errors import Errors
from groupspec.types.records.registry import OFFSETS_TOPIC

_Unavailable = (NotCoordinatorError, LoadInProgressError)
_ShardRequest = JoinGroup | SyncGroup | Heartbeat | LeaveGroup | OffsetCommit | TxnOffsetCommit | OffsetDelete


def _error_of(exc: Exception) -> Errors:
    if isinstance(exc, LoadInProgressError):
        return Errors.COORDINATOR_LOAD_IN_PROGRESS
    return Errors.NOT_COORDINATOR


#: JoinGroupResponse's ProtocolName is nullable from v7 only.
_NULLABLE_PROTOCOL_NAME_VERSION = 7


def _join_response_as_sent(response: JoinGroupResponse, version: int) -> JoinGroupResponse:
    """What KafkaApis sends: JoinGroupResponse(data, version) makes a null protocol name empty
    below v7, where the field cannot be null, and an empty one null from v7."""
    if version < _NULLABLE_PROTOCOL_NAME_VERSION and response.protocol_name is None:
        return replace(response, protocol_name="")
    if version >= _NULLABLE_PROTOCOL_NAME_VERSION and response.protocol_name == "":
        return replace(response, protocol_name=None)
    return response


def _leave_response_as_sent(response: LeaveGroupResponse, version: int) -> LeaveGroupResponse:
    """What KafkaApis sends: LeaveGroupResponse(data, version) has no member list below v3 (one
    member was named), so the error is the request's or else that member's."""
    if version >= 3:
        return response
    return LeaveGroupResponse(response.error if response.error is not Errors.NONE
                              else response.members[0].error)


def _refusal(event: ClassicEvent, error: Errors) -> object:
    """The whole-request answer of a request whose shard cannot take it.

    Built as the service's error handlers build them: a JoinGroup's carries no member id, and a
    Heartbeat to a loading shard is answered NONE.
    """
    match event:
        case JoinGroup():
            return JoinGroupResponse(error)
        case SyncGroup():
            return SyncGroupResponse(error)
        case Heartbeat():
            if error is Errors.COORDINATOR_LOAD_IN_PROGRESS:
                return HeartbeatResponse(Errors.NONE)
            return HeartbeatResponse(error)
        case LeaveGroup():
            return LeaveGroupResponse(error)
        case OffsetCommit() | TxnOffsetCommit():
            topics = tuple(TopicResult(t.name, tuple(PartitionResult(p.partition, error)
                                                     for p in t.partitions))
                           for t in event.topics)
            if isinstance(event, OffsetCommit):
                return OffsetCommitResponse(topics)
            return TxnOffsetCommitResponse(topics)
        case OffsetFetch():
            return OffsetFetchResponse(error)
        case OffsetDelete():
            return OffsetDeleteResponse(error)
    raise AssertionError(f"no refusal for {type(event).__name__}")


class ClassicCoordinator:
    """Every ``__consumer_offsets`` shard of a node that leads them all, on an injected clock.

    ``handle(event, index)`` takes the same events as the spec's ``step`` and returns the same
    :class:`Output`: the answers released (possibly to earlier, parked requests) and the log
    entries written, in order. ``log_dir`` keeps each partition's log as Kafka segment files
    there (``groupspec decode`` reads them); by default logs live in memory. ``fsync`` syncs each
    write to the disk before answering (docs/runtime.md).
    """

    def __init__(self, config: ClassicConfig = ClassicConfig(), *, start_ms: int = 0,  # noqa: B008
                 log_dir: Path | None = None, compression: Compression = Compression.NONE,
                 fsync: bool = False) -> None:
        check_config(config)
        wire_bounds.integer(start_ms, "start_ms", "int64")
        self.config = config
        self.runtime: CoordinatorRuntime[GroupCoordinatorShard] = CoordinatorRuntime(
            OFFSETS_TOPIC, config.offsets_topic_partitions, self._new_shard, ManualClock(start_ms),
            log_dir=log_dir, compression=compression, fsync=fsync)
        self.runtime.load_all()
        #: The version of each JoinGroup not answered yet, by request index: its answer, whenever
        #: released, is sent in that version's form.
        self._join_versions: dict[int, int] = {}
        #: The transaction coordinator's part: by partition, the producers whose open transaction
        #: added it (a TxnOffsetCommit to one of its groups since their last marker, whatever it
        #: was answered). Their markers go to those partitions; a restart keeps this.
        self._in_txn: dict[int, set[int]] = {}

    def _new_shard(self, context: ShardContext) -> GroupCoordinatorShard:
        return GroupCoordinatorShard(self.config, context)

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.config.offsets_topic_partitions)

    # -- events -----------------------------------------------------------------------------------

    def handle(self, event: ClassicEvent, index: int) -> Output:
        """Apply one event; ``index`` is the number answers to this request will carry.

        The event is checked whole first (:func:`check_event`): one a broker would refuse to
        parse raises its InputError before any shard, timer or log is touched.
        """
        check_event(event, index)
        answers: list[Answer] = []
        records: list[LogEntry] = []
        if isinstance(event, JoinGroup):
            self._join_versions[index] = event.version
        if isinstance(event, TxnOffsetCommit):  # AddOffsetsToTxn added the group's partition
            self._in_txn.setdefault(self.partition_for(event.group_id), set()).add(event.producer_id)

        def took(result: WriteResult) -> None:
            answers.extend(result.answers)
            records.extend(result.records)
            for request in result.dropped:
                self._join_versions.pop(request, None)

        match event:
            case JoinGroup() | SyncGroup() | Heartbeat() | LeaveGroup():
                self._group_request(event, index, took, answers)
            case OffsetCommit() | TxnOffsetCommit() | OffsetDelete():
                self._write(event, index, took, answers)
            case OffsetFetch():
                try:
                    response: object = self.runtime.read(
                        self.partition_for(event.group_id),
                        lambda shard: shard.offset_manager.fetch_offsets(event))
                except _Unavailable as exc:
                    response = _refusal(event, _error_of(exc))
                answers.append(Answer(index, response))
            case TxnMarker():
                end = TxnEnd(event.producer_id, event.producer_epoch, event.commit, event.coordinator_epoch)
                for partition in self.runtime.active_partitions():
                    took(self._end_transaction(partition, end))
                # The marker fans out over every partition: a loading one fails its part.
                marker_error = (Errors.COORDINATOR_LOAD_IN_PROGRESS if self.runtime.loading_partitions()
                                else Errors.NONE)
                answers.append(Answer(index, TxnMarkerResponse(marker_error)))
            case DeleteGroups():
                answers.append(Answer(index, DeleteGroupsResponse(tuple(
                    self._delete_group(group_id, took) for group_id in event.group_ids))))
            case DescribeGroups():
                answers.append(Answer(index, DescribeGroupsResponse(tuple(
                    self._describe(group_id) for group_id in event.group_ids))))
            case ListGroups():
                answers.append(Answer(index, self._list_groups(event)))
            case AdvanceClock():
                to_ms = max(self.runtime.clock.now(), event.to_ms)
                for result in self.runtime.advance_clock(to_ms):
                    took(result)
            case Restart():
                answers.extend(self.runtime.unload_all())
                self.runtime.load_all()
            case BeginLoad():
                answers.extend(self.runtime.unload_all())
                for partition in range(self.runtime.partitions):
                    self.runtime.begin_load(partition)
            case CompleteLoad():
                for partition in self.runtime.loading_partitions():
                    self.runtime.load(partition)
            case _:
                raise InputError("event", f"{type(event).__name__} is not a classic group event")
        if isinstance(event, LeaveGroup):
            answers = [Answer(a.request, _leave_response_as_sent(a.response, event.version))
                       if a.request == index and isinstance(a.response, LeaveGroupResponse) else a
                       for a in answers]
        return Output(tuple(self._as_sent(a) for a in answers), tuple(records))

    def _as_sent(self, answer: Answer) -> Answer:
        version = self._join_versions.pop(answer.request, None)
        if version is None or not isinstance(answer.response, JoinGroupResponse):
            return answer
        return Answer(answer.request, _join_response_as_sent(answer.response, version))

    def _group_request(self, event: JoinGroup | SyncGroup | Heartbeat | LeaveGroup, index: int,
                       took: Callable[[WriteResult], None], answers: list[Answer]) -> None:
        if event.group_id == "":
            member_id = event.member_id if isinstance(event, JoinGroup) else ""
            error = Errors.INVALID_GROUP_ID
            answers.append(Answer(index, JoinGroupResponse(error, member_id=member_id)
                                  if isinstance(event, JoinGroup) else _refusal(event, error)))
            return
        if isinstance(event, JoinGroup) and not (
                self.config.min_session_timeout_ms <= event.session_timeout_ms
                <= self.config.max_session_timeout_ms):
            answers.append(Answer(index, JoinGroupResponse(Errors.INVALID_SESSION_TIMEOUT,
                                                           member_id=event.member_id)))
            return
        if isinstance(event, SyncGroup) and event.version >= 5 and (
                event.protocol_type is None or event.protocol_name is None):
            answers.append(Answer(index, SyncGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL)))
            return
        self._write(event, index, took, answers)

    def _write(self, event: _ShardRequest, index: int, took: Callable[[WriteResult], None],
               answers: list[Answer]) -> None:
        def op(shard: GroupCoordinatorShard) -> WriteResult:
            groups, offsets = shard.group_manager, shard.offset_manager
            out = WriteResult(replay=isinstance(event, OffsetCommit | TxnOffsetCommit | OffsetDelete))
            match event:
                case JoinGroup():
                    groups.classic_group_join(out, event, index)
                case SyncGroup():
                    groups.classic_group_sync(out, event, index)
                case Heartbeat():
                    groups.classic_group_heartbeat(out, event, index)
                case LeaveGroup():
                    groups.classic_group_leave(out, event, index)
                case OffsetCommit():
                    offsets.commit_offset(out, event, index)
                case TxnOffsetCommit():
                    offsets.commit_transactional_offset(out, event, index)
                case OffsetDelete():
                    offsets.delete_offsets(out, event, index)
            return out

        try:
            took(self.runtime.write(self.partition_for(event.group_id), op))
        except _Unavailable as exc:
            answers.append(Answer(index, _refusal(event, _error_of(exc))))

    def _end_transaction(self, partition: int, end: TxnEnd) -> WriteResult:
        """The marker on one partition: written there if the producer's transaction added it."""
        added = self._in_txn.get(partition, set())
        was_added = end.producer_id in added
        result = self.runtime.write(partition, lambda shard: shard.end_transaction(end, was_added))
        added.discard(end.producer_id)
        return result

    def _delete_group(self, group_id: str, took: Callable[[WriteResult], None]) -> GroupResult:
        outcome: list[GroupResult] = []

        def op(shard: GroupCoordinatorShard) -> WriteResult:
            result, out = shard.delete_group(group_id)
            outcome.append(result)
            return out

        try:
            took(self.runtime.write(self.partition_for(group_id), op))
        except _Unavailable as exc:
            return GroupResult(group_id, _error_of(exc))
        return outcome[0]

    def _describe(self, group_id: str) -> DescribedGroup:
        try:
            return self.runtime.read(self.partition_for(group_id),
                                     lambda shard: shard.group_manager.describe(group_id))
        except _Unavailable as exc:
            return DescribedGroup(group_id, _error_of(exc), "")

    def _list_groups(self, req: ListGroups) -> ListGroupsResponse:
        # Kafka skips partitions it does not host but fails the whole listing on a loading one.
        if self.runtime.loading_partitions():
            return ListGroupsResponse(Errors.COORDINATOR_LOAD_IN_PROGRESS)
        wanted = {state.lower() for state in req.states_filter}
        listed = []
        for _, shard in self.runtime.shards():
            for group in list(shard.group_manager.all_groups()):
                if shard.group_manager.visible(group.group_id) is None:
                    continue  # made since the partition's last record: a read does not see it
                if not wanted or group.state.lower() in wanted:
                    listed.append(ListedGroup(group.group_id, group.protocol_type or "", group.state))
        listed.sort(key=lambda g: g.group_id)
        return ListGroupsResponse(Errors.NONE, tuple(listed))

    # -- the observable view ----------------------------------------------------------------------

    def view(self) -> CoordinatorView:
        groups: list[GroupView] = []
        for _, shard in self.runtime.shards():
            timers = shard.group_manager.timers_by_group()
            for group in shard.group_manager.all_groups():
                groups.append(self._group_view(shard, group.group_id, timers.get(group.group_id, [])))
        groups.sort(key=lambda g: g.group_id)
        return CoordinatorView(self.runtime.clock.now(), tuple(groups))

    @staticmethod
    def _group_view(shard: GroupCoordinatorShard, group_id: str, timers: list[tuple[str, int]]) -> GroupView:
        manager: GroupMetadataManager = shard.group_manager
        group = manager.groups[group_id]
        offsets = shard.offset_manager
        members = tuple(MemberView(
            m.member_id, m.instance_id, m.client_id, m.client_host, m.session_timeout_ms,
            m.rebalance_timeout_ms,
            m.protocols, m.assignment, m.join_index is not None, m.sync_index is not None, m.is_new)
            for m in group.members.values())

        def offset_view(tp: tuple[str, int], o: OffsetAndMetadata) -> OffsetView:
            return OffsetView(tp[0], tp[1], o.offset, o.leader_epoch, o.metadata, o.commit_timestamp_ms,
                              o.expire_timestamp_ms)

        committed = offsets.committed(group_id)
        pending = offsets.pending_of(group_id)
        return GroupView(
            group_id=group_id, state=group.state, protocol_type=group.protocol_type,
            protocol_name=group.protocol_name, generation_id=group.generation_id, leader_id=group.leader_id,
            state_timestamp_ms=group.state_timestamp_ms, members=members,
            pending_members=tuple(sorted(group.pending_join_members)),
            pending_sync=tuple(sorted(group.pending_sync_members)),
            offsets=tuple(offset_view(tp, committed[tp]) for tp in sorted(committed)),
            pending_offsets=tuple(PendingOffsetView(producer, offset_view(tp, pending[producer][tp]))
                                  for producer in sorted(pending) for tp in sorted(pending[producer])),
            timers=tuple(sorted(timers)))

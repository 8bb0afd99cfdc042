"""The share group coordinator of one node: the share part of Kafka's ``GroupCoordinatorService``.

It checks what the service checks before a shard sees a ShareGroupHeartbeat (§1.2 rows 5-9),
routes by ``partitionFor(groupId)``, and does what the service does after a heartbeat's write:
sends the InitializeShareGroupState the shard asked for (here: reports it in the step's output
and waits for a :class:`PersisterAnswer`), then writes the outcome back through the shard. It
also holds the metadata image and the per-group dynamic configs, which in Kafka live outside
the coordinator (the metadata log and the group config manager).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
from groupspec.impl.share_group.manager import (
    AfterCommit,
    InitializeWork,
    MetadataImage,
    session_timeout_key,
    topic_partitions,
)
from groupspec.impl.share_group.shard import ShareGroupCoordinatorShard
from groupspec.types import InputError, wire_bounds
from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord
from groupspec.types.records.registry import OFFSETS_TOPIC
from groupspec.types.share_group import (
    JOIN_EPOCH,
    LEAVE_EPOCH,
    AdvanceClock,
    Answer,
    DeleteGroups,
    DeleteGroupsResponse,
    GroupResult,
    GroupView,
    InitializeRequest,
    InitTopicView,
    MemberView,
    Output,
    PersisterAnswer,
    Restart,
    SetGroupConfig,
    SetGroupConfigResponse,
    ShareCoordinatorView,
    ShareGroupConfig,
    ShareGroupEvent,
    ShareGroupHeartbeat,
    ShareGroupHeartbeatResponse,
    TopicMetadata,
    TopicPartitions,
    UpdateMetadata,
    check_config,
    check_event,
    check_no_rename,
    check_topics,
)

_Unavailable = (NotCoordinatorError, LoadInProgressError)
Took = Callable[[WriteResult], None]
ShardOp = Callable[[ShareGroupCoordinatorShard, WriteResult], object]


def _invalid(req: ShareGroupHeartbeat) -> bool:
    """GroupCoordinatorService#throwIfShareGroupHeartbeatRequestIsInvalid."""
    return (
        not req.member_id.strip()
        or not req.group_id.strip()
        or (req.rack_id is not None and not req.rack_id.strip())
        or (req.member_epoch == JOIN_EPOCH and not req.subscribed_topic_names)
        or req.member_epoch < LEAVE_EPOCH
    )


class ShareGroupCoordinator:
    """Every ``__consumer_offsets`` shard's share groups, on an injected clock.

    ``handle(event, index)`` takes the spec's events and returns the same :class:`Output`.
    """

    def __init__(
        self,
        config: ShareGroupConfig = ShareGroupConfig(),  # noqa: B008
        topics: tuple[TopicMetadata, ...] = (),
        *,
        start_ms: int = 0,
        log_dir: Path | None = None,
        compression: Compression = Compression.NONE,
    ) -> None:
        check_config(config)
        topics = check_topics(topics)
        wire_bounds.integer(start_ms, "start_ms", "int64")
        self.config = config
        self.image = MetadataImage(topics)
        self.group_configs: dict[str, tuple[int | None, int | None]] = {}
        #: request index -> what an unanswered InitializeShareGroupState covers
        self.pending: dict[int, InitializeWork] = {}
        self.runtime: CoordinatorRuntime[ShareGroupCoordinatorShard] = CoordinatorRuntime(
            OFFSETS_TOPIC,
            config.offsets_topic_partitions,
            self._new_shard,
            ManualClock(start_ms),
            log_dir=log_dir,
            compression=compression,
        )
        self.runtime.load_all()

    def _new_shard(self, context: ShardContext) -> ShareGroupCoordinatorShard:
        return ShareGroupCoordinatorShard(
            self.config,
            context,
            lambda: self.image,
            lambda group_id: self.group_configs.get(group_id, (None, None)),
        )

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.config.offsets_topic_partitions)

    # -- events -----------------------------------------------------------------------------------

    def handle(self, event: ShareGroupEvent, index: int) -> Output:
        """Apply one event; one a broker would refuse (:func:`check_event`) raises its
        InputError before any shard, timer, image or log is touched."""
        event = check_event(event, index)
        answers: list[Answer] = []
        records: list[CoordinatorRecord] = []
        initialize: list[InitializeRequest] = []

        def took(result: WriteResult) -> None:
            records.extend(r for r in result.records if isinstance(r, CoordinatorRecord))

        match event:
            case ShareGroupHeartbeat():
                answers.append(Answer(index, self._heartbeat(event, index, took, initialize)))
            case PersisterAnswer():
                work = self.pending.pop(event.request, None)
                if work is not None:
                    self._on_shard(
                        work.group_id,
                        took,
                        lambda s, out: s.manager.initialize_done(
                            out, work.group_id, work.topics, event.error
                        ),
                    )
            case UpdateMetadata():
                self._update_metadata(event, took)
            case AdvanceClock():
                for result in self.runtime.advance_clock(max(self.runtime.clock.now(), event.to_ms)):
                    took(result)
            case DeleteGroups():
                answers.append(
                    Answer(
                        index,
                        DeleteGroupsResponse(
                            tuple(self._delete(group_id, took) for group_id in event.group_ids)
                        ),
                    )
                )
            case SetGroupConfig():
                answers.append(Answer(index, self._set_config(event)))
            case Restart():
                self.pending.clear()
                self.runtime.unload_all()
                self.runtime.load_all()
            case _:
                raise InputError("event", f"{type(event).__name__} is not a share group event")
        return Output(tuple(answers), tuple(records), tuple(initialize))

    def _on_shard(self, group_id: str, took: Took, op: ShardOp) -> None:
        def run(shard: ShareGroupCoordinatorShard) -> WriteResult:
            out = WriteResult(replay=True)
            op(shard, out)
            return out

        took(self.runtime.write(self.partition_for(group_id), run))

    def _heartbeat(
        self, req: ShareGroupHeartbeat, index: int, took: Took, initialize: list[InitializeRequest]
    ) -> ShareGroupHeartbeatResponse:
        if _invalid(req):
            return ShareGroupHeartbeatResponse(Errors.INVALID_REQUEST)
        outcome: list[tuple[ShareGroupHeartbeatResponse, InitializeWork | None, AfterCommit]] = []
        try:
            self._on_shard(
                req.group_id, took, lambda s, out: outcome.append(s.manager.share_group_heartbeat(out, req))
            )
        except NotCoordinatorError:
            return ShareGroupHeartbeatResponse(Errors.NOT_COORDINATOR)
        except LoadInProgressError:
            return ShareGroupHeartbeatResponse(Errors.COORDINATOR_LOAD_IN_PROGRESS)
        response, work, after = outcome[0]
        after()  # the records are written: now the timer and the refresh deadline
        if work is not None:
            self.pending[index] = work
            initialize.append(
                InitializeRequest(
                    index,
                    work.group_id,
                    work.state_epoch,
                    tuple(TopicPartitions(t, tuple(sorted(work.topics[t]))) for t in sorted(work.topics)),
                )
            )
        return response

    def _update_metadata(self, event: UpdateMetadata, took: Took) -> None:
        old = self.image.by_name
        check_no_rename(old.values(), event.topics)
        self.image = MetadataImage(event.topics)
        new = self.image.by_name
        changed = {name for name in set(old) | set(new) if old.get(name) != new.get(name)}
        deleted = {t.topic_id for t in old.values()} - set(self.image.by_id)
        for partition, _ in list(self.runtime.shards()):

            def run(shard: ShareGroupCoordinatorShard) -> WriteResult:
                out = WriteResult(replay=True)
                shard.manager.on_metadata_update(out, changed, deleted)
                return out

            took(self.runtime.write(partition, run))

    def _delete(self, group_id: str, took: Took) -> GroupResult:
        errors: list[Errors] = []
        try:
            self._on_shard(
                group_id, took, lambda s, out: errors.append(s.manager.delete_group(out, group_id))
            )
        except NotCoordinatorError:
            return GroupResult(group_id, Errors.NOT_COORDINATOR)
        except LoadInProgressError:
            return GroupResult(group_id, Errors.COORDINATOR_LOAD_IN_PROGRESS)
        return GroupResult(group_id, errors[0])

    def _set_config(self, req: SetGroupConfig) -> SetGroupConfigResponse:
        """GroupConfig validation (§5): bounds from the broker config, session above interval."""
        c = self.config
        session = req.session_timeout_ms if req.session_timeout_ms is not None else c.session_timeout_ms
        interval = (
            req.heartbeat_interval_ms if req.heartbeat_interval_ms is not None else c.heartbeat_interval_ms
        )
        if not (
            c.min_session_timeout_ms <= session <= c.max_session_timeout_ms
            and c.min_heartbeat_interval_ms <= interval <= c.max_heartbeat_interval_ms
            and session > interval
        ):
            return SetGroupConfigResponse(Errors.INVALID_CONFIG)
        if req.session_timeout_ms is None and req.heartbeat_interval_ms is None:
            self.group_configs.pop(req.group_id, None)
        else:
            self.group_configs[req.group_id] = (req.session_timeout_ms, req.heartbeat_interval_ms)
        return SetGroupConfigResponse(Errors.NONE)

    # -- the observable view ----------------------------------------------------------------------

    def view(self) -> ShareCoordinatorView:
        groups: list[GroupView] = []
        for _, shard in self.runtime.shards():
            manager = shard.manager
            for group in manager.groups.values():
                members = tuple(
                    MemberView(
                        m.member_id,
                        m.member_epoch,
                        m.previous_member_epoch,
                        m.rack_id,
                        m.client_id,
                        m.client_host,
                        tuple(sorted(m.subscribed_topic_names)),
                        topic_partitions(m.assigned),
                        topic_partitions(group.target_assignment.get(m.member_id, {})),
                        shard.context.deadline(session_timeout_key(group.group_id, m.member_id)),
                    )
                    for m in group.members.values()
                )
                info = manager.state_metadata.get(group.group_id)
                overrides = self.group_configs.get(group.group_id, (None, None))
                groups.append(
                    GroupView(
                        group.group_id,
                        group.state,
                        group.group_epoch,
                        group.target_assignment_epoch,
                        group.metadata_hash,
                        members,
                        tuple(
                            InitTopicView(t, e.name, tuple(sorted(e.partitions)), e.timestamp)
                            for t, e in sorted(info.initializing.items())
                        )
                        if info
                        else (),
                        tuple(
                            InitTopicView(t, e.name, tuple(sorted(e.partitions)), -1)
                            for t, e in sorted(info.initialized.items())
                        )
                        if info
                        else (),
                        tuple(sorted(info.deleting)) if info else (),
                        overrides[0],
                        overrides[1],
                    )
                )
        groups.sort(key=lambda g: g.group_id)
        return ShareCoordinatorView(self.runtime.clock.now(), tuple(groups), tuple(sorted(self.pending)))

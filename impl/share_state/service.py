"""The share coordinator service: routes each request to its ``__share_group_state`` shard.

A request names one share-partition key; the key's coordinator partition is
``abs(hash("group:topicId:partition")) % partitions`` (ShareCoordinatorService#partitionFor, the
topic id in Kafka's 22-character spelling), and the request runs as a write operation of that
partition's shard on the coordinator runtime: the shard's records are appended to the
partition's log and replayed into it. A restart unloads every shard and loads it again from its
log.
"""

from __future__ import annotations

from collections.abc import Callable

from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.partitioning import partition_for
from groupspec.impl.runtime.runtime import CoordinatorRuntime, ShardContext, WriteResult
from groupspec.impl.share_state.shard import Key, Result, ShareStateShard
from groupspec.types.records import CoordinatorRecord
from groupspec.types.records.registry import SHARE_STATE_TOPIC
from groupspec.types.share_state import (
    AdvanceClock,
    Answer,
    CoordinatorPartitionView,
    DeleteShareGroupState,
    DeleteTopics,
    InitializeShareGroupState,
    Output,
    ReadShareGroupState,
    ReadShareGroupStateSummary,
    Restart,
    SharePartitionStateView,
    ShareStateConfig,
    ShareStateEvent,
    ShareStateView,
    TopicMetadata,
    WriteShareGroupState,
    check_config,
    check_event,
    check_topics,
    coordinator_key,
)
from groupspec.types.topic_id import canonical


class ShareCoordinator:
    def __init__(self, config: ShareStateConfig = ShareStateConfig(),  # noqa: B008
                 topics: tuple[TopicMetadata, ...] = (), *, start_ms: int = 0) -> None:
        self.config = check_config(config)
        self.topics = check_topics(topics)

        def new_shard(context: ShardContext) -> ShareStateShard:
            return ShareStateShard(context, self.topics, self.config.updates_per_snapshot,
                                   self.config.cold_snapshot_interval_ms,
                                   fence_read_without_leader_epoch=self.config.fence_read_without_leader_epoch)

        self.runtime: CoordinatorRuntime[ShareStateShard] = CoordinatorRuntime(
            SHARE_STATE_TOPIC, self.config.state_topic_partitions, new_shard, ManualClock(start_ms))
        self.runtime.load_all()
        #: The service's cold-partition snapshot timer (ShareCoordinatorService#
        #: setupSnapshotColdPartitions): the service's, not a shard's, so reloading shards keeps it.
        self.cold_due = start_ms + self.config.cold_snapshot_interval_ms

    def partition_for(self, key: Key) -> int:
        return partition_for(coordinator_key(*key), self.config.state_topic_partitions)

    def _run(self, key: Key, op: Callable[[ShareStateShard], Result]) -> Result:
        box: list[Result] = []

        def write(shard: ShareStateShard) -> WriteResult:
            response, records = op(shard)
            box.append((response, records))
            return WriteResult(records=list(records))

        self.runtime.write(self.partition_for(key), write)
        return box[0]

    def handle(self, event: ShareStateEvent, index: int) -> Output:
        check_event(event, index)
        match event:
            case InitializeShareGroupState():
                key = (event.group_id, canonical(event.topic_id), event.partition)
                response, records = self._run(key, lambda s: s.initialize_state(key, event.state_epoch,
                                                                                 event.start_offset))
            case ReadShareGroupState():
                key = (event.group_id, canonical(event.topic_id), event.partition)
                response, records = self._run(key, lambda s: s.read_state(key, event.leader_epoch))
            case WriteShareGroupState():
                key = (event.group_id, canonical(event.topic_id), event.partition)
                response, records = self._run(key, lambda s: s.write_state(
                    key, event.state_epoch, event.leader_epoch, event.start_offset,
                    list(event.state_batches)))
            case DeleteShareGroupState():
                key = (event.group_id, canonical(event.topic_id), event.partition)
                response, records = self._run(key, lambda s: s.delete_state(key))
            case ReadShareGroupStateSummary():
                key = (event.group_id, canonical(event.topic_id), event.partition)
                response, records = self._run(key, lambda s: s.read_state_summary(key))
            case AdvanceClock():
                self.runtime.advance_clock(max(self.runtime.clock.now(), event.to_ms))
                return Output(records=tuple(self._snapshot_cold_partitions()))
            case DeleteTopics():
                gone = {canonical(t) for t in event.topic_ids}
                for topic in gone:
                    self.topics.pop(topic, None)  # the shards hold this same image
                written: list[CoordinatorRecord] = []
                for partition, _ in list(self.runtime.shards()):
                    result = self.runtime.write(
                        partition, lambda s: WriteResult(records=list(s.cleanup_share_state(gone))))
                    written += [r for r in result.records if isinstance(r, CoordinatorRecord)]
                return Output(records=tuple(written))
            case Restart():
                self.runtime.unload_all()
                self.runtime.load_all()
                return Output()
        return Output((Answer(index, response),), tuple(records))

    def _snapshot_cold_partitions(self) -> list[CoordinatorRecord]:
        """Once the timer is due, a write on every shard in partition order, then re-armed."""
        now = self.runtime.clock.now()
        if now < self.cold_due:
            return []
        written: list[CoordinatorRecord] = []
        for partition, _ in list(self.runtime.shards()):
            result = self.runtime.write(
                partition, lambda s: WriteResult(records=list(s.snapshot_cold_partitions())))
            written += [r for r in result.records if isinstance(r, CoordinatorRecord)]
        self.cold_due = now + self.config.cold_snapshot_interval_ms
        return written

    def view(self) -> ShareStateView:
        keys = []
        for partition, shard in self.runtime.shards():
            for key, o in shard.share_state.items():
                keys.append(SharePartitionStateView(
                    group_id=key[0], topic_id=key[1], partition=key[2], coordinator_partition=partition,
                    snapshot_epoch=o.snapshot_epoch, state_epoch=o.state_epoch, leader_epoch=o.leader_epoch,
                    start_offset=o.start_offset, state_batches=o.state_batches,
                    create_timestamp=o.create_timestamp, write_timestamp=o.write_timestamp,
                    fenced_leader_epoch=shard.leader_epochs[key],
                    fenced_state_epoch=shard.state_epochs.get(key),
                    updates_since_snapshot=shard.update_counts.get(key)))
        keys.sort(key=lambda v: (v.coordinator_partition, v.group_id, v.topic_id, v.partition))
        logs = []
        for partition, shard in self.runtime.shards():
            end = self.runtime.log(partition).next_offset
            if end > 0:
                logs.append(CoordinatorPartitionView(partition, end, shard.offsets.last_redundant_offset()))
        return ShareStateView(self.runtime.clock.now(), tuple(keys), tuple(logs))

"""A share partition's key in the share coordinator: the persister a share partition runs with.

In Kafka a share partition reads and writes its state through the persister
(``DefaultStatePersister``) to the share coordinator, which holds it under the key
(group, topic id, partition) as the share group initialized it. :class:`PartitionStore` is that
key of a :class:`~groupspec.impl.share_state.ShareCoordinator`: the state a partition reads is the
coordinator's, with its fencing, its batch combining (batches come back as the combiner keeps
them) and its records. :func:`lone_partition_store` gives a partition run alone (a
SharePartitionMachine, a vector) a coordinator of its own, seeded as the share group leaves the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from groupspec.impl.share_state.service import ShareCoordinator
from groupspec.impl.share_state.shard import Key, ShareStateShard
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    LONE_GROUP,
    LONE_TOPIC_ID,
    PersistedState,
    PersisterBatch,
    ReadResult,
    RecordState,
    StateWrite,
)
from groupspec.types.share_state import (
    NO_EPOCH,
    UNINITIALIZED_START_OFFSET,
    InitializeShareGroupState,
    ReadShareGroupState,
    ReadShareGroupStateResponse,
    ShareStateConfig,
    ShareStateEvent,
    StateBatch,
    TopicMetadata,
    WriteShareGroupState,
    WriteShareGroupStateResponse,
)
from groupspec.types.topic_id import canonical


def _out(batches: tuple[StateBatch, ...]) -> tuple[PersisterBatch, ...]:
    return tuple(PersisterBatch(b.first_offset, b.last_offset, RecordState(b.delivery_state),
                                b.delivery_count) for b in batches)


def _in(batches: tuple[PersisterBatch, ...]) -> tuple[StateBatch, ...]:
    return tuple(StateBatch(b.first_offset, b.last_offset, int(b.delivery_state), b.delivery_count)
                 for b in batches)


def canonical_batches(batches: tuple[PersisterBatch, ...]) -> tuple[PersisterBatch, ...]:
    """Neighbours with the same state and count as one batch: the same records, and the form the
    share partition's view compares (Kafka's combiner may leave such neighbours apart)."""
    merged: list[PersisterBatch] = []
    for b in batches:
        last = merged[-1] if merged else None
        if (last is not None and last.last_offset + 1 == b.first_offset
                and (last.delivery_state, last.delivery_count) == (b.delivery_state, b.delivery_count)):
            merged[-1] = PersisterBatch(last.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
        else:
            merged.append(b)
    return tuple(merged)


@dataclass
class PartitionStore:
    """One share partition's key in a share coordinator (the ``Persister`` it writes through)."""

    coordinator: ShareCoordinator
    group_id: str
    topic_id: str
    partition: int
    #: Every write asked of the store, with the answer it got, until its owner clears it
    #: (SharePartitionMachine reports and clears them each step).
    writes: list[StateWrite] = field(default_factory=list)
    #: How many requests it sent: numbers the next one's answer.
    asked: int = 0

    def ask(self, event: ShareStateEvent) -> object:
        """One request's answer (the records it wrote are in the coordinator's logs)."""
        output = self.coordinator.handle(event, self.asked)
        self.asked += 1
        return output.answers[0].response

    def read_state(self, leader_epoch: int) -> ReadResult:
        answer = self.ask(ReadShareGroupState(self.group_id, self.topic_id, self.partition, leader_epoch))
        assert isinstance(answer, ReadShareGroupStateResponse)
        if answer.error is not Errors.NONE:
            return ReadResult(answer.error)
        return ReadResult(Errors.NONE, PersistedState(answer.state_epoch, answer.start_offset,
                                                      _out(answer.state_batches)))

    def write_state(self, write: StateWrite) -> Errors:
        answer = self.ask(WriteShareGroupState(
            self.group_id, self.topic_id, self.partition, write.state_epoch, write.leader_epoch,
            write.start_offset, _in(write.batches)))
        assert isinstance(answer, WriteShareGroupStateResponse)
        self.writes.append(StateWrite(write.start_offset, write.state_epoch, write.leader_epoch,
                                      write.batches, answer.error))
        return answer.error

    # -- what the share coordinator holds for the key ------------------------------------------

    def _shard(self) -> tuple[ShareStateShard, Key]:
        key = (self.group_id, self.topic_id, self.partition)
        return self.coordinator.runtime.shard(self.coordinator.partition_for(key)), key

    @property
    def leader_epoch(self) -> int:
        """The highest leader epoch the key has seen (what fences an older leader)."""
        shard, key = self._shard()
        return int(shard.leader_epochs.get(key, NO_EPOCH))

    @property
    def state_epoch(self) -> int:
        shard, key = self._shard()
        offset = shard.share_state.get(key)
        return 0 if offset is None else int(offset.state_epoch)

    @property
    def start_offset(self) -> int:
        shard, key = self._shard()
        offset = shard.share_state.get(key)
        return UNINITIALIZED_START_OFFSET if offset is None else int(offset.start_offset)

    @property
    def batches(self) -> tuple[PersisterBatch, ...]:
        shard, key = self._shard()
        offset = shard.share_state.get(key)
        return () if offset is None else canonical_batches(_out(offset.state_batches))

    # -- what the broker around the partition does to the key ----------------------------------

    def fence_leader(self, leader_epoch: int) -> None:
        """Another leader, one epoch past both the partition's and the key's, read the state."""
        self.read_state(max(self.leader_epoch, leader_epoch) + 1)

    def initialize(self, start_offset: int) -> None:
        """The state is initialized again (kafka-share-groups --reset-offsets): the next state
        epoch, the given start offset, no batches."""
        self.ask(InitializeShareGroupState(self.group_id, self.topic_id, self.partition,
                                           self.state_epoch + 1, start_offset))

    def seed(self, state: PersistedState) -> None:
        """The key as the share group left it before the partition first reads: initialized at
        the state's epoch and start offset, then its batches written."""
        self.ask(InitializeShareGroupState(self.group_id, self.topic_id, self.partition,
                                           state.state_epoch, state.start_offset))
        if state.batches:
            self.ask(WriteShareGroupState(self.group_id, self.topic_id, self.partition, state.state_epoch,
                                          NO_EPOCH, state.start_offset, _in(state.batches)))


def partition_store(coordinator: ShareCoordinator, group_id: str, topic_id: str,
                    partition: int) -> PartitionStore:
    """The key of ``coordinator`` a share partition of ``group_id`` reads and writes."""
    return PartitionStore(coordinator, group_id, canonical(topic_id), partition)


def lone_partition_store(state: PersistedState) -> PartitionStore:
    """A share coordinator holding one key, seeded with ``state``: what a share partition run
    alone writes through."""
    coordinator = ShareCoordinator(ShareStateConfig(state_topic_partitions=1),
                                   (TopicMetadata(LONE_TOPIC_ID, 1),))
    store = PartitionStore(coordinator, LONE_GROUP, LONE_TOPIC_ID, 0)
    store.seed(state)
    return store

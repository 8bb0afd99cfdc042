"""The share coordinator as the persister: the share group's initialize requests (as the
simulation sends them) and a share partition's reads and writes reach the same state."""

from __future__ import annotations

from groupspec.impl.share_partition.store import canonical_batches, lone_partition_store, partition_store
from groupspec.impl.share_state import ShareCoordinator
from groupspec.simulation import initialize_share_state
from groupspec.types.errors import Errors
from groupspec.types.share_group import InitializeRequest, TopicPartitions
from groupspec.types.share_partition import PersistedState, PersisterBatch, RecordState, StateWrite
from groupspec.types.share_state import ShareStateConfig, TopicMetadata

T = "00000000-0000-4000-8000-000000000001"
AV, ACK = RecordState.AVAILABLE, RecordState.ACKNOWLEDGED


class _Persister:
    """The share group's side: initialize requests, numbered as sent."""

    def __init__(self, partitions: int = 2) -> None:
        self.coordinator = ShareCoordinator(ShareStateConfig(state_topic_partitions=3),
                                            (TopicMetadata(T, partitions),))

    def initialize(self, request: InitializeRequest) -> Errors:
        return initialize_share_state(self.coordinator, request, request.request)


def _persister(partitions: int = 2) -> _Persister:
    return _Persister(partitions)


def _held(p: _Persister) -> dict[tuple[str, str, int], tuple[int, int, int]]:
    """Each key's (snapshot epoch, state epoch, start offset)."""
    return {(v.group_id, v.topic_id, v.partition): (v.snapshot_epoch, v.state_epoch, v.start_offset)
            for v in p.coordinator.view().share_partitions}


def test_initialize_writes_fresh_snapshots_and_fences_older_epochs() -> None:
    p = _persister()
    assert p.initialize(InitializeRequest(0, "g", 3, (TopicPartitions(T, (0, 1)),))) is Errors.NONE
    assert _held(p)[("g", T, 0)] == (0, 3, -1)
    assert p.initialize(InitializeRequest(1, "g", 4, (TopicPartitions(T, (0,)),))) is Errors.NONE
    assert _held(p)[("g", T, 0)] == (1, 4, -1)
    stale = InitializeRequest(2, "g", 2, (TopicPartitions(T, (0, 1)),))
    assert p.initialize(stale) is Errors.FENCED_STATE_EPOCH
    assert _held(p)[("g", T, 1)] == (0, 3, -1)  # fenced too (2 < 3): unchanged
    assert p.initialize(InitializeRequest(3, "g", 5, (TopicPartitions(T, (2,)),))) is \
        Errors.UNKNOWN_TOPIC_OR_PARTITION
    other = "00000000-0000-4000-8000-000000000009"
    assert p.initialize(InitializeRequest(4, "g", 5, (TopicPartitions(other, (0,)),))) is \
        Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert p.initialize(InitializeRequest(5, "g", 5, (TopicPartitions(T, (-1,)),))) is Errors.INVALID_REQUEST


def test_the_first_failure_is_the_answer_and_the_other_partitions_still_initialize() -> None:
    p = _persister()
    request = InitializeRequest(0, "g", 1, (TopicPartitions(T, (-1, 5, 1)), TopicPartitions(T, (0,))))
    assert p.initialize(request) is Errors.INVALID_REQUEST
    assert set(_held(p)) == {("g", T, 0), ("g", T, 1)}
    assert p.initialize(InitializeRequest(1, "g", 1, (TopicPartitions(T, (7, -1)),))) is \
        Errors.UNKNOWN_TOPIC_OR_PARTITION


def test_a_partition_reads_what_the_group_initialized_and_writes_behind_it() -> None:
    p = _persister()
    store = partition_store(p.coordinator, "g", T, 1)
    assert store.read_state(0).error is Errors.INVALID_REQUEST  # nothing initialized yet
    # What a view shows for a key the coordinator holds nothing for: no epoch, no start, no batches.
    assert (store.state_epoch, store.start_offset, store.batches) == (0, -1, ())
    assert p.initialize(InitializeRequest(0, "g", 2, (TopicPartitions(T, (1,)),))) is Errors.NONE
    read = store.read_state(0)
    assert read.error is Errors.NONE and read.state == PersistedState(2, -1, ())
    write = StateWrite(10, 2, 0, (PersisterBatch(10, 11, ACK, 1), PersisterBatch(12, 14, AV, 2)))
    assert store.write_state(write) is Errors.NONE
    assert store.writes == [write]
    assert (store.state_epoch, store.start_offset, store.batches) == (2, 10, write.batches)
    # A newer leader reads; the old leader's write is fenced, and so is an older state epoch.
    store.fence_leader(0)
    assert store.leader_epoch == 1
    assert store.write_state(StateWrite(10, 2, 0, ())) is Errors.FENCED_LEADER_EPOCH
    store.initialize(20)
    assert (store.state_epoch, store.start_offset, store.batches) == (3, 20, ())
    assert store.write_state(StateWrite(20, 2, 1, ())) is Errors.FENCED_STATE_EPOCH
    assert [w.error for w in store.writes][-2:] == [Errors.FENCED_LEADER_EPOCH, Errors.FENCED_STATE_EPOCH]


def test_a_lone_store_is_seeded_with_the_state_given() -> None:
    state = PersistedState(4, 7, (PersisterBatch(7, 8, AV, 1), PersisterBatch(9, 9, AV, 1)))
    store = lone_partition_store(state)
    assert store.read_state(0).state == PersistedState(4, 7, (PersisterBatch(7, 9, AV, 1),))
    assert lone_partition_store(PersistedState()).read_state(0).state == PersistedState(0, 0, ())


def test_canonical_batches_merge_only_touching_equal_neighbours() -> None:
    batches = (PersisterBatch(0, 1, AV, 1), PersisterBatch(2, 3, AV, 1), PersisterBatch(5, 6, AV, 1),
               PersisterBatch(7, 7, AV, 2), PersisterBatch(8, 8, ACK, 2))
    assert canonical_batches(batches) == (PersisterBatch(0, 3, AV, 1), *batches[2:])


def test_epochs_fence_old_writers() -> None:
    store = lone_partition_store(PersistedState(2, 10, (PersisterBatch(10, 12, AV, 1),)))
    assert store.read_state(leader_epoch=3).error is Errors.NONE
    assert store.write_state(StateWrite(10, 2, 2, ())) is Errors.FENCED_LEADER_EPOCH
    assert store.write_state(StateWrite(10, 1, 3, ())) is Errors.FENCED_STATE_EPOCH
    assert store.read_state(leader_epoch=2).error is Errors.FENCED_LEADER_EPOCH
    assert store.write_state(StateWrite(11, 2, 3, (PersisterBatch(12, 12, ACK, 1),))) is Errors.NONE
    expected = PersistedState(2, 11, (PersisterBatch(11, 11, AV, 1), PersisterBatch(12, 12, ACK, 1)))
    assert store.read_state(leader_epoch=3).state == expected

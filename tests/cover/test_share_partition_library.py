"""What only a library user of ``SharePartition`` sees (issue 17): its defaults, its answer to
a persister that breaks the share coordinator's rules, ``can_acquire_records`` (the fetch path's
question, which the vectors' driver never asks) and the cache's own bookkeeping.

The vectors drive a ``SharePartitionMachine``, which passes every argument and reads the
partition through answers, writes and views; these are the parts of the class outside that.
"""

from __future__ import annotations

from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.timer import TimerQueue
from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.impl.share_partition.in_flight import LockTimer
from groupspec.impl.share_partition.partition import SharePartition, SharePartitionState
from groupspec.impl.share_partition.store import lone_partition_store
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    Fetch,
    LogBatch,
    PersistedState,
    PersisterBatch,
    ReadResult,
    RecordState,
    SharePartitionConfig,
    StateWrite,
)

M1 = "member-1"
ACCEPT, RELEASE = 1, 2


def _partition(persister: object, config: SharePartitionConfig = SharePartitionConfig()) -> SharePartition:  # noqa: B008
    clock = ManualClock(0)
    timers: TimerQueue[LockTimer] = TimerQueue(clock)
    return SharePartition(config, persister, clock, timers)  # type: ignore[arg-type]


def test_defaults_leader_epoch_0_and_latest_offset_0() -> None:
    p = _partition(lone_partition_store(PersistedState(4, -1)))
    assert (p.leader_epoch, p.state_epoch, p.start_offset, p.end_offset) == (0, 0, 0, 0)
    assert p.maybe_initialize() is Errors.NONE
    # Never initialized (-1): the partition starts at the latest offset, 0 by default.
    assert (p.partition_state, p.state_epoch, p.start_offset, p.end_offset) == (
        SharePartitionState.ACTIVE, 4, 0, 0)


class _BrokenPersister:
    """Returns a state no share coordinator keeps: a batch below the start offset, or one
    whose last offset is before its first (the share coordinator prunes and sorts, so never does)."""

    def __init__(self, batch: PersisterBatch) -> None:
        self.batch = batch

    def read_state(self, leader_epoch: int) -> ReadResult:
        return ReadResult(Errors.NONE, PersistedState(1, 5, (self.batch,)))

    def write_state(self, write: StateWrite) -> Errors:
        raise AssertionError("nothing is written")


def test_a_persisted_batch_below_the_start_or_reversed_fails_the_partition() -> None:
    av = RecordState.AVAILABLE
    for batch in (PersisterBatch(3, 7, av, 1), PersisterBatch(7, 6, av, 1)):
        p = _partition(_BrokenPersister(batch))
        assert p.maybe_initialize(0) is Errors.UNKNOWN_SERVER_ERROR
        assert p.partition_state == SharePartitionState.FAILED and not p.cached


def test_can_acquire_records_at_and_around_the_in_flight_limit() -> None:
    m = SharePartitionMachine(SharePartitionConfig(5, 5, 30_000))
    p = m.partition
    steps = iter(range(100))

    def fetch(offset: int, first: int, last: int) -> None:
        m.handle(Fetch(M1, offset, (LogBatch(first, last),), 1 if first == 5 else 500, 500), next(steps))

    def ack(first: int, last: int, kind: int) -> None:
        m.handle(Acknowledge(M1, (AckBatch(first, last, (kind,)),)), next(steps))

    assert p.can_acquire_records()  # nothing cached: the next fetch offset is the end offset
    fetch(0, 0, 3)
    assert p.can_acquire_records()  # 4 in flight, limit 5
    fetch(4, 4, 4)
    assert not p.can_acquire_records()  # 5 in flight: the limit
    ack(0, 0, RELEASE)
    assert p.can_acquire_records()  # at the limit, but offset 0 is available again
    fetch(0, 0, 0)
    assert not p.can_acquire_records()
    ack(0, 0, ACCEPT)
    assert p.start_offset == 1 and p.can_acquire_records()  # 1-4: 4 in flight
    fetch(5, 5, 6)  # MaxRecords 1, but a log batch is never cut: 1-6 are 6 in flight
    assert p.end_offset == 6 and not p.can_acquire_records()


def test_dropped_batches_leave_the_cache() -> None:
    m = SharePartitionMachine()
    m.handle(Fetch(M1, 0, (LogBatch(0, 4),)), 0)
    m.handle(Fetch(M1, 5, (LogBatch(5, 9),)), 1)
    m.handle(Acknowledge(M1, (AckBatch(0, 4, (ACCEPT,)),)), 2)
    assert m.partition.start_offset == 5
    assert sorted(m.partition.cached) == [5] and m.runs_kept() == 1

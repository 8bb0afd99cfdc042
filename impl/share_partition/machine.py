"""A share partition with its persister and clock, driven by events: what tests and vectors use.

``SharePartitionMachine`` takes the same events as the spec's ``step`` and returns the same
``Output`` (answers and the state writes the persister saw), so the two can be compared step by
step. It plays the broker around the share partition: the clock, the persister (a share
coordinator holding this one partition's key, as the share group initialized it, behind a fault
injector), and the reload of the partition as a new leader.
"""

from __future__ import annotations

from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.timer import TimerQueue
from groupspec.impl.share_partition.in_flight import LockTimer
from groupspec.impl.share_partition.partition import SharePartition, SharePartitionState
from groupspec.impl.share_partition.persister import FaultInjectingPersister
from groupspec.impl.share_partition.store import PartitionStore, lone_partition_store
from groupspec.types import InputError
from groupspec.types.share_partition import (
    Acknowledge,
    AcknowledgeResponse,
    AdvanceClock,
    Answer,
    BatchView,
    CanAcquire,
    CanAcquireResponse,
    FenceLeader,
    Fetch,
    MoveLogStart,
    Output,
    PersistedState,
    RecordRun,
    RecordView,
    ReleaseMember,
    ReleaseResponse,
    Reload,
    ReloadResponse,
    ResetShareState,
    SetPersisterError,
    SharePartitionConfig,
    SharePartitionEvent,
    SharePartitionView,
    check_config,
    check_event,
    check_persisted,
)


class SharePartitionMachine:
    def __init__(self, config: SharePartitionConfig = SharePartitionConfig(),  # noqa: B008
                 persisted: PersistedState = PersistedState(), *, start_ms: int = 0,  # noqa: B008
                 latest_offset: int = 0, store: PartitionStore | None = None) -> None:
        check_config(config)
        check_persisted(config, persisted)
        self.config = config
        self.clock = ManualClock(start_ms)
        # A store given is a key of a share coordinator shared with other partitions (the
        # end-to-end simulation's broker); ``persisted`` is then what that key already holds.
        self.store = lone_partition_store(persisted) if store is None else store
        self.persister = FaultInjectingPersister(self.store)
        self.partition = self._new_partition(0)
        self.partition.maybe_initialize(latest_offset)

    def _new_partition(self, leader_epoch: int) -> SharePartition:
        self.timers: TimerQueue[LockTimer] = TimerQueue(self.clock)
        return SharePartition(self.config, self.persister, self.clock, self.timers, leader_epoch)

    def handle(self, event: SharePartitionEvent, index: int) -> Output:
        check_event(event)  # before anything changes: a refused event leaves no trace
        self.store.writes.clear()  # the store keeps only the current step's writes
        answers: list[Answer] = []
        p = self.partition
        match event:
            case Fetch():
                answers.append(Answer(index, p.acquire(event.member_id, event.fetch_offset, event.log,
                                                       event.max_fetch_records, event.batch_size)))
            case Acknowledge():
                error = p.acknowledge(event.member_id, event.batches)
                answers.append(Answer(index, AcknowledgeResponse(error)))
            case ReleaseMember():
                answers.append(Answer(index, ReleaseResponse(p.release_acquired_records(event.member_id))))
            case CanAcquire():
                # A partition that is not loaded refuses the fetch lock before the question.
                can = p.partition_state == SharePartitionState.ACTIVE and p.can_acquire_records()
                answers.append(Answer(index, CanAcquireResponse(can)))
            case MoveLogStart():
                if p.partition_state == SharePartitionState.ACTIVE:
                    p.update_cache_and_offsets(event.log_start_offset)
            case AdvanceClock():
                self.timers.advance(max(self.clock.now(), event.to_ms), p.on_lock_expired)
            case SetPersisterError():
                self.persister.error = event.error
            case FenceLeader():
                self.store.fence_leader(p.leader_epoch)
            case ResetShareState():
                self.store.initialize(event.start_offset)
            case Reload():
                self.partition = self._new_partition(max(p.leader_epoch, self.store.leader_epoch) + 1)
                error = self.partition.maybe_initialize(event.latest_offset)
                answers.append(Answer(index, ReloadResponse(error)))
            case _:
                raise InputError("event", f"{type(event).__name__} is not a share partition event")
        return Output(tuple(answers), tuple(self.store.writes))

    def record_runs(self) -> tuple[RecordRun, ...]:
        """The cached records as maximal runs, at a cost that follows the number of runs kept, not
        the width of the batches (the view writes every offset of these runs out, so a batch of
        10**15 offsets has no view that fits in memory, and the vectors check the runs through
        it)."""
        p = self.partition
        runs: list[RecordRun] = []
        for first in p._keys:
            batch = p.cached[first]
            pieces = ([(batch.first_offset, batch.last_offset, batch.whole())] if batch.runs is None
                      else [(r.first, r.last, r.state) for r in batch.runs])
            for low, high, state in pieces:
                run = RecordRun(low, high, state.state, state.delivery_count, state.member_id,
                                p.deadline(state.timer))
                last = runs[-1] if runs else None
                if (last is not None and last.last_offset + 1 == low
                        and (last.state, last.delivery_count, last.member_id, last.lock_deadline_ms)
                        == (run.state, run.delivery_count, run.member_id, run.lock_deadline_ms)):
                    run = RecordRun(last.first_offset, high, run.state, run.delivery_count, run.member_id,
                                    run.lock_deadline_ms)
                    runs[-1] = run
                else:
                    runs.append(run)
        return tuple(runs)

    def runs_kept(self) -> int:
        """How many states the partition keeps for its cached records: one per unsplit batch, one
        per run of a split batch (Kafka keeps one per offset of a split batch)."""
        return sum(1 if b.runs is None else len(b.runs) for b in self.partition.cached.values())

    def view(self) -> SharePartitionView:
        p = self.partition
        batches = tuple(BatchView(b.first_offset, b.last_offset, b.split)
                        for b in (p.cached[first] for first in p._keys))
        # Every offset of every run: the view is the runs written out, so the two cannot disagree.
        records = tuple(RecordView(o, r.state, r.delivery_count, r.member_id, r.lock_deadline_ms)
                        for r in self.record_runs() for o in range(r.first_offset, r.last_offset + 1))
        window = p.gap_window if p.gap_window is not None and p.gap_window[1] == p.end_offset else None
        status = "ACTIVE" if p.partition_state == SharePartitionState.ACTIVE else "FAILED"
        return SharePartitionView(
            now_ms=self.clock.now(), status=status, leader_epoch=p.leader_epoch, state_epoch=p.state_epoch,
            start_offset=p.start_offset, end_offset=p.end_offset, next_fetch_offset=p.next_fetch_offset(),
            batches=batches, records=records,
            gap_window=(window[0], window[1]) if window is not None else None,
            persisted_state_epoch=self.store.state_epoch, persisted_leader_epoch=self.store.leader_epoch,
            persisted_start_offset=self.store.start_offset, persisted=tuple(self.store.batches))

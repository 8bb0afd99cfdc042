"""More of what only a library user of the share partition impl sees (issue 17; the rest is in
test_share_partition_library.py): defaults, the persister's epoch edges, and how acquired offsets
are grouped into ranges (the vectors compare
acquired offsets as sets, docs/divergences.md share_acquired_ranges)."""

from __future__ import annotations

import dataclasses

import pytest

from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.impl.share_partition.in_flight import LockTimer
from groupspec.impl.share_partition.store import lone_partition_store
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    AcquiredRecords,
    Fetch,
    FetchResponse,
    LogBatch,
    PersistedState,
    ReadResult,
    StateWrite,
)


def test_machine_defaults_start_the_clock_at_zero_and_an_unset_start_at_the_latest_offset() -> None:
    m = SharePartitionMachine()
    assert m.view().now_ms == 0
    unset = SharePartitionMachine(persisted=PersistedState(0, -1, ()))
    assert unset.view().start_offset == 0


def test_a_lock_stands_for_its_whole_range_unless_told() -> None:
    assert LockTimer("lock-1", 0, 4).per_offset is False


def test_a_read_result_is_frozen() -> None:
    result = ReadResult(Errors.NONE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.error = Errors.UNKNOWN_SERVER_ERROR  # type: ignore[misc]


def test_store_epochs_at_the_edges() -> None:
    store = lone_partition_store(PersistedState(2, 0, ()))
    assert store.leader_epoch == 0  # the initializing snapshot's
    assert store.read_state(leader_epoch=-1).error is Errors.FENCED_LEADER_EPOCH  # -1 is fenced on a read
    assert store.read_state(leader_epoch=3).error is Errors.NONE
    assert store.read_state(leader_epoch=3).error is Errors.NONE  # the same leader reads again
    assert store.read_state(leader_epoch=2).error is Errors.FENCED_LEADER_EPOCH
    # On a write -1 is "no epoch": never fenced; a newer epoch than the store's is not fenced either.
    assert store.write_state(StateWrite(0, -1, -1, ())) is Errors.NONE
    assert store.write_state(StateWrite(0, 5, 7, ())) is Errors.NONE
    assert store.write_state(StateWrite(0, 2, 3, ())) is Errors.NONE
    assert store.write_state(StateWrite(0, 1, 3, ())) is Errors.FENCED_STATE_EPOCH


def test_acquired_offsets_merge_into_ranges_of_one_delivery_count() -> None:
    m = SharePartitionMachine()
    m.handle(Fetch("member-1", 0, (LogBatch(0, 4),)), 0)
    m.handle(Acknowledge("member-1", (AckBatch(0, 0, (2,)), AckBatch(1, 1, (1,)), AckBatch(2, 2, (2,)),
                                      AckBatch(3, 3, (2,)))), 1)
    out = m.handle(Fetch("member-2", 0, (LogBatch(0, 4),)), 2)
    assert out.answers[0].response == FetchResponse((AcquiredRecords(0, 0, 2), AcquiredRecords(2, 3, 2)), 3)


def test_record_runs_do_not_merge_across_a_hole_and_an_unsplit_batch_keeps_one_state() -> None:
    from groupspec.types.share_partition import PersisterBatch, RecordState

    av = RecordState.AVAILABLE
    m = SharePartitionMachine(persisted=PersistedState(1, 0, (PersisterBatch(0, 1, av, 1),
                                                              PersisterBatch(3, 4, av, 1))))
    assert [(r.first_offset, r.last_offset) for r in m.record_runs()] == [(0, 1), (3, 4)]
    assert m.runs_kept() == 2


def test_after_a_load_the_start_offset_rests_on_an_acknowledged_record_under_the_gap_window() -> None:
    """Found by the end-to-end simulation (8 of 1,000 seeds): Kafka's findLastOffsetAcknowledged
    stops at the persister-read gap window's start, and only a fetch past the window clears it. So
    after a reload whose state ends with an ACKNOWLEDGED record, acknowledging everything before it
    leaves the start offset on it until a later record is fetched; no record is affected."""
    from groupspec.types.share_partition import AckBatch, Acknowledge, Fetch, LogBatch, PersistedState
    from groupspec.types.share_partition import PersisterBatch as PB
    from groupspec.types.share_partition import RecordState as RS

    persisted = PersistedState(0, 0, (PB(1, 1, RS.AVAILABLE, 1), PB(2, 2, RS.ACKNOWLEDGED, 1)))
    m = SharePartitionMachine(persisted=persisted, latest_offset=3)
    m.handle(Fetch("c", m.view().next_fetch_offset, (LogBatch(0, 2),)), 0)
    m.handle(Acknowledge("c", (AckBatch(0, 1, (1,)),)), 1)
    v = m.view()
    assert (v.start_offset, v.next_fetch_offset, v.gap_window) == (2, 3, (2, 2))
    assert [(r.offset, r.state) for r in v.records] == [(2, RS.ACKNOWLEDGED)]
    # The next record's fetch passes the window, and the start offset moves on.
    m.handle(Fetch("c", 3, (LogBatch(3, 3),)), 2)
    m.handle(Acknowledge("c", (AckBatch(3, 3, (1,)),)), 3)
    assert m.view().start_offset == 4

"""Per-offset state kept as runs (issue 15 item 12): cost follows the runs, not a batch's width.

A split batch keeps one state per run of equal offsets, so one acknowledgement inside a batch of
10**15 offsets leaves three runs, and the persister redoes only the stored batches a write
touches. Nothing observable changes: scenarios run on both layers must give the same answers,
writes and views, and the impl's runs must be the view's records, compressed.
"""

from __future__ import annotations

import pytest

from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    AcknowledgeResponse,
    Fetch,
    FetchResponse,
    LogBatch,
    PersisterBatch,
    RecordRun,
    RecordState,
    SharePartitionConfig,
    StateWrite,
    record_runs,
)
from tests.scenarios.share_partition.targets import ACK, ACQ, ARCH, AV, LAYERS, M1, Partition

ACCEPT, RELEASE, REJECT, RENEW = 1, 2, 3, 4


@pytest.mark.parametrize("width", [10**7, 10**15])
def test_one_acknowledgement_in_a_wide_batch_keeps_three_runs(width: int) -> None:
    last = 10 + width - 1
    m = SharePartitionMachine()
    # A log batch is never cut, so the defaults (500 records a fetch) acquire all of it.
    fetched = m.handle(Fetch(M1, 10, (LogBatch(10, last),)), 0).answers[0].response
    assert isinstance(fetched, FetchResponse) and fetched.count == width
    middle = width // 2
    out = m.handle(Acknowledge(M1, (AckBatch(middle, middle, (ACCEPT,)),)), 1)
    assert out.answers[0].response == AcknowledgeResponse(Errors.NONE)
    assert out.writes == (StateWrite(10, 0, 0, (PersisterBatch(middle, middle, ACK, 1),)),)
    assert m.runs_kept() == 3
    deadline = 30_000
    assert m.record_runs() == (RecordRun(10, middle - 1, ACQ, 1, M1, deadline),
                               RecordRun(middle, middle, ACK, 1, "", None),
                               RecordRun(middle + 1, last, ACQ, 1, M1, deadline))
    # Release one more offset and fetch it again: still a handful of runs.
    m.handle(Acknowledge(M1, (AckBatch(middle + 1, middle + 1, (RELEASE,)),)), 2)
    again = m.handle(Fetch("member-2", middle + 1, (LogBatch(10, last),), 5, 500), 3).answers[0].response
    assert isinstance(again, FetchResponse) and again.count == 1
    assert again.acquired[0].first_offset == middle + 1 and again.acquired[0].delivery_count == 2
    assert m.runs_kept() == 4 and len(m.record_runs()) == 4
    assert (m.partition.start_offset, m.partition.end_offset, m.partition.next_fetch_offset()) == (
        10, last, last + 1)


def test_single_acknowledgements_leave_runs_not_offsets() -> None:
    """Accepting every other offset of one 1,000-offset batch keeps 1,000 runs (Kafka keeps
    1,000 states too); accepting a range in one call keeps one."""
    m = SharePartitionMachine(SharePartitionConfig(max_in_flight_records=1_000))
    m.handle(Fetch(M1, 0, (LogBatch(0, 999),), 1_000, 1_000), 0)
    m.handle(Acknowledge(M1, (AckBatch(1, 1, (ACCEPT,)),)), 1)
    assert m.runs_kept() == 3
    m.handle(Acknowledge(M1, (AckBatch(2, 998, (REJECT,)),)), 2)
    assert m.runs_kept() == 4  # [0] held, [1] accepted, [2, 998] archived, [999] held


def _runs_agree(p: Partition, q: Partition) -> None:
    """Both layers show the same; the impl's runs are its view's records, compressed."""
    assert p.outputs == q.outputs
    assert p.view() == q.view()
    impl = q if q.layer == "impl" else p
    assert impl._impl.record_runs() == record_runs(impl.view().records)


def test_runs_through_acquire_renew_expiry_release_and_log_start() -> None:
    """Every path that cuts runs, on both layers, with a view check after each step."""
    layers = [Partition(layer) for layer in LAYERS]

    def each(action):  # type: ignore[no-untyped-def]
        results = [action(p) for p in layers]
        assert results[0] == results[1]
        _runs_agree(*layers)
        return results[0]

    each(lambda p: p.fetch(0, (0, 9), (10, 19), max_records=20))
    assert each(lambda p: p.ack((3, 3, ACCEPT))) is Errors.NONE  # splits [0, 9]: a lock per offset
    assert each(lambda p: p.ack((5, 7, (RENEW, RELEASE, RENEW)))) is Errors.NONE
    assert each(lambda p: p.ack((12, 14, REJECT))) is Errors.NONE
    # Every held offset's lock fires with its own write (3 + 13), 5 and 7 (renewed at the same
    # instant, so due together) after the batches' own locks.
    each(lambda p: p.advance(30_000))
    assert each(lambda p: [w.batches[0].first_offset for w in p.writes()[3:]]) == [
        0, 1, 2, 4, 8, 9, 10, 11, 15, 16, 17, 18, 19, 5, 7]
    each(lambda p: p.fetch(0, (0, 9), max_records=3))  # a subset of the split batch, delivery 2
    assert each(lambda p: p.rec(2)) == (ACQ, 2, M1)
    each(lambda p: p.move_log_start(4))  # archives what is available below 4
    assert each(lambda p: p.release()) is Errors.NONE
    each(lambda p: p.advance(1))
    assert each(lambda p: (p.spso, p.nfo)) == (4, 4)  # 0-2 archived below the start; 4 available
    assert each(lambda p: [p.rec(o)[0] for o in (2, 3, 4)]) == [ARCH, ACK, AV]
    acquired, _ = each(lambda p: p.fetch(4, (0, 19), max_records=100))
    each(lambda p: p.ack(*((first, last, ACCEPT) for first, last, _ in acquired)))
    assert each(lambda p: (p.spso, p.end, p.batches())) == (20, 20, [])


@pytest.mark.parametrize("layer", LAYERS)
def test_a_run_cut_while_pending_is_rolled_back_with_it(layer: str) -> None:
    """Two acknowledgement batches may overlap by one offset (Kafka lets it through): the second
    finds that offset pending and the whole call is undone, including the piece cut off."""
    p = Partition(layer)
    p.fetch(0, (0, 9))
    assert p.ack((2, 2, ACCEPT)) is Errors.NONE
    assert p.ack((4, 6, ACCEPT), (6, 8, ACCEPT)) is Errors.INVALID_RECORD_STATE
    assert [p.rec(o)[0] for o in range(10)] == [ACQ, ACQ, ACK, *[ACQ] * 7]
    assert p.writes()[-1].batches == (PersisterBatch(2, 2, RecordState.ACKNOWLEDGED, 1),)

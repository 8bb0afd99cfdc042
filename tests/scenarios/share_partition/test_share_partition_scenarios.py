"""Kafka's SharePartitionTest examples and the fact sheet's derived trunk examples, step by step.

Each test names its example in docs/reference/share-partition-kafka.md (E = transcribed from
SharePartitionTest, D = derived by hand from trunk's code). Defaults are the test class's: a
delivery limit of 5 (throttling from 3 deliveries), 200 in-flight records, 30 s locks, member
"member-1", batch size 500. Where trunk ("L3") behaves differently from the snapshot the test
was read in, the trunk outcome is asserted and the test says so.
"""

from __future__ import annotations

import pytest

from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    PersistedState,
    PersisterBatch,
    RecordState,
    Reload,
    ReloadResponse,
    SharePartitionConfig,
)
from tests.scenarios.share_partition.targets import ACK, ACQ, ARCH, AV, LAYERS, M1, TEST_CONFIG, Partition

ACCEPT, RELEASE, REJECT, RENEW, GAP = 1, 2, 3, 4, 0
M2 = "member-2"


def persisted(epoch: int, start: int, *batches: tuple[int, int, RecordState, int]) -> PersistedState:
    return PersistedState(epoch, start, tuple(PersisterBatch(*b) for b in batches))


# ---------------------------------------------------------------------------------------------
# Initialization (§5)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_e1_initialize(layer: str) -> None:
    p = Partition(layer, persisted=persisted(3, 5, (5, 10, AV, 2), (11, 15, ARCH, 3)))
    v = p.view()
    assert (v.status, v.start_offset, v.end_offset, v.state_epoch) == ("ACTIVE", 5, 15, 3)
    assert v.next_fetch_offset == 5
    assert p.batches() == [(5, 10, False), (11, 15, False)]
    assert p.rec(7) == (AV, 2, "") and p.rec(15) == (ARCH, 3, "")


@pytest.mark.parametrize("layer", LAYERS)
def test_e2_e5_initialize_empty_and_all_finished(layer: str) -> None:
    p = Partition(layer, persisted=persisted(5, 10))
    assert (p.spso, p.end, p.nfo, p.batches()) == (10, 10, 10, [])
    done = [(233, 233, ARCH, 1), (234, 733, ACK, 1)]
    p = Partition(layer, persisted=persisted(3, 233, *done))
    assert (p.spso, p.end, p.nfo, p.batches()) == (734, 734, 734, [])


@pytest.mark.parametrize("layer", LAYERS)
def test_e3_e4_gaps_in_the_persisted_state(layer: str) -> None:
    p = Partition(layer, persisted=persisted(3, 10, (15, 20, ACK, 2), (21, 30, ARCH, 3)))
    assert (p.spso, p.end, p.nfo, p.view().gap_window) == (10, 30, 10, (10, 30))
    assert len(p.batches()) == 2  # nothing cached at 10: the start cannot move
    p = Partition(layer, persisted=persisted(3, 15, (15, 20, ACK, 2), (30, 40, ARCH, 3)))
    # The gap window holds the start at the first unfetched offset, not at the next batch.
    assert (p.spso, p.end, p.nfo, p.view().gap_window) == (21, 40, 21, (21, 40))
    assert p.batches() == [(30, 40, False)]
    p = Partition(layer, persisted=persisted(3, 15, (15, 20, ACK, 2), (21, 30, ARCH, 3)))
    assert (p.spso, p.end, p.nfo, p.batches(), p.view().gap_window) == (31, 31, 31, [], None)


@pytest.mark.parametrize("layer", LAYERS)
def test_e7_fill_the_persisted_gaps_with_throttling(layer: str) -> None:
    """E7, trunk outcome for step 2 (derived): the batch at 3 deliveries is not taken with others."""
    p = Partition(layer, persisted=persisted(3, 10, (15, 18, AV, 2), (20, 22, ARCH, 2), (26, 30, AV, 3)))
    assert (p.spso, p.end, p.nfo, p.view().gap_window) == (10, 30, 10, (10, 30))
    # The hole 10-14 is filled up to the next cached batch although the limit is 1.
    assert p.fetch(10, (10, 49), max_records=1) == ([(10, 14, 1)], 5)
    assert (p.nfo, p.view().gap_window) == (15, (15, 30))
    assert p.fetch(15, (10, 49), max_records=10) == ([(15, 18, 3), (19, 19, 1), (23, 25, 1)], 8)
    assert (p.nfo, p.view().gap_window, p.rec(26)) == (26, (26, 30), (AV, 3, ""))
    # Alone, the throttled batch is split and half of it goes: 5 >> 1 = 2 records.
    assert p.fetch(26, (10, 49), max_records=1) == ([(26, 27, 4)], 2)
    assert p.view().gap_window == (28, 30)
    assert (26, 30, True) in p.batches() and p.rec(28) == (AV, 3, "")


# ---------------------------------------------------------------------------------------------
# Acquire (§8)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_e8_e9_a_log_batch_is_taken_whole(layer: str) -> None:
    p = Partition(layer)
    assert p.fetch(0, (0, 4), max_records=10) == ([(0, 4, 1)], 5)
    assert p.nfo == 5
    assert p.fetch(0, (0, 24), max_records=10) == ([(5, 24, 1)], 20)
    assert (p.nfo, p.batches()) == (25, [(0, 4, False), (5, 24, False)])
    p = Partition(layer)
    assert p.fetch(0, (10, 14), (15, 29), (30, 44), max_records=10) == ([(10, 29, 1)], 20)
    assert (p.nfo, p.spso, p.batches()) == (30, 10, [(10, 29, False)])


@pytest.mark.parametrize("layer", LAYERS)
def test_e10_batch_size_cuts_at_log_batch_bases(layer: str) -> None:
    p = Partition(layer)
    got = p.fetch(0, (2, 6), (10, 14), (15, 21), (22, 27), max_records=100, batch_size=5)
    assert got == ([(2, 9, 1), (10, 14, 1), (15, 21, 1), (22, 27, 1)], 26)
    assert p.nfo == 28 and [b[0] for b in p.batches()] == [2, 10, 15, 22]


@pytest.mark.parametrize("layer", LAYERS)
def test_e11_e12_the_in_flight_limit(layer: str) -> None:
    config = SharePartitionConfig(5, 20, 30_000)
    p = Partition(layer, config)
    assert p.fetch(0, (0, 9)) == ([(0, 9, 1)], 10)
    assert p.fetch(0, (10, 14), (15, 24), (25, 29), (30, 31)) == ([(10, 24, 1)], 15)
    assert p.nfo == 25
    assert p.fetch(25, (25, 34)) == ([], 0)  # at the limit, nothing new
    p = Partition(layer, config)
    assert p.fetch(0, (10, 14), (15, 24), (25, 29), (30, 32)) == ([(10, 29, 1)], 20)
    assert p.ack((15, 19, RELEASE)) is Errors.NONE
    assert p.nfo == 15 and p.batches() == [(10, 29, True)] and p.rec(15) == (AV, 1, "")
    # At the limit, but the fetch is inside the window: the released records go again.
    assert p.fetch(15, (10, 14), (15, 24), (25, 29), (30, 32)) == ([(15, 19, 2)], 5)
    assert p.nfo == 30
    assert p.ack((29, 29, RELEASE)) is Errors.NONE
    assert p.nfo == 29
    assert p.fetch(29, (25, 29), (30, 32)) == ([(29, 29, 2)], 1)


@pytest.mark.parametrize("layer", LAYERS)
def test_e17_e18_reacquire_released_subsets(layer: str) -> None:
    p = Partition(layer)
    p.fetch(10, (10, 14))
    assert p.ack((12, 13, RELEASE)) is Errors.NONE
    assert [p.rec(o)[:2] for o in range(10, 15)] == [(ACQ, 1), (ACQ, 1), (AV, 1), (AV, 1), (ACQ, 1)]
    assert p.nfo == 12
    assert p.fetch(10, (10, 14)) == ([(12, 13, 2)], 2)
    assert p.nfo == 15
    p = Partition(layer)
    p.fetch(5, (5, 9))
    p.fetch(10, (10, 21))
    assert p.ack((5, 11, RELEASE), (12, 13, GAP), (14, 15, RELEASE), (17, 20, RELEASE)) is Errors.NONE
    assert p.fetch(5, (5, 9), member=M2) == ([(5, 9, 2)], 5)
    assert p.nfo == 10
    got, count = p.fetch(10, (10, 16), member=M2)
    assert count == 4 and {o for f, last, _ in got for o in range(f, last + 1)} == {10, 11, 14, 15}
    assert p.nfo == 17
    assert p.rec(12) == (ARCH, 1, "") and p.rec(16) == (ACQ, 1, M1) and p.rec(17) == (AV, 1, "")
    assert p.rec(21) == (ACQ, 1, M1) and p.rec(14) == (ACQ, 2, M2)


@pytest.mark.parametrize("layer", LAYERS)
def test_e19_next_fetch_offset_with_two_members(layer: str) -> None:
    p = Partition(layer, SharePartitionConfig(5, 100, 30_000))
    p.fetch(0, (0, 2))
    assert p.nfo == 3
    p.ack((0, 2, RELEASE))
    assert p.nfo == 0
    p.fetch(3, (3, 4), member=M2)
    assert p.nfo == 0
    assert p.fetch(0, (0, 2)) == ([(0, 2, 2)], 3)
    assert p.nfo == 5
    p.ack((3, 4, RELEASE), member=M2)
    assert p.nfo == 3


# ---------------------------------------------------------------------------------------------
# Acknowledge (§10)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_e13_per_offset_types_with_gaps(layer: str) -> None:
    p = Partition(layer)
    p.fetch(5, (5, 6))
    assert p.fetch(10, (10, 18)) == ([(10, 18, 1)], 9)
    assert p.ack((5, 6, RELEASE), (10, 18, (2, 2, 2, 2, 2, 0, 0, 0, 1))) is Errors.NONE
    assert p.nfo == 5 and p.batches() == [(5, 6, False), (10, 18, True)]
    assert [p.rec(o)[0] for o in range(10, 19)] == [AV] * 5 + [ARCH] * 3 + [ACK]


@pytest.mark.parametrize("layer", LAYERS)
def test_e14_acknowledging_what_is_not_cached(layer: str) -> None:
    p = Partition(layer)
    assert p.ack((0, 15, REJECT)) is Errors.INVALID_RECORD_STATE
    p.fetch(5, (5, 9))
    assert p.ack((20, 25, REJECT)) is Errors.INVALID_REQUEST
    p = Partition(layer)
    p.fetch(0, (0, 4))
    p.fetch(20, (20, 24))
    assert p.ack((0, 10, ACCEPT), (20, 24, ACCEPT)) is Errors.INVALID_REQUEST
    assert p.rec(0) == (ACQ, 1, M1)
    p.fetch(5, (5, 10))
    assert p.ack((0, 10, ACCEPT), (20, 24, ACCEPT)) is Errors.NONE
    assert (p.spso, p.end, p.batches()) == (25, 25, [])


@pytest.mark.parametrize("layer", LAYERS)
def test_a_first_acknowledgement_batch_may_start_at_minus_one_not_minus_two(layer: str) -> None:
    """KafkaApis#validateAcknowledgementBatches starts its previous last offset at -1 (§10.1)."""
    p = Partition(layer)
    p.fetch(0, (0, 4))
    assert p.ack((-2, 4, ACCEPT)) is Errors.INVALID_REQUEST
    assert p.ack((-2, 4, (ACCEPT,) * 7)) is Errors.INVALID_REQUEST
    assert all(p.rec(o) == (ACQ, 1, M1) for o in range(5)) and p.writes() == []
    assert p.ack((-1, 4, (REJECT, ACCEPT, RELEASE, ACCEPT, ACCEPT, REJECT))) is Errors.NONE
    assert [p.rec(o)[0] for o in range(5)] == [ACK, AV, ACK, ACK, ARCH]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_malformed_acknowledgement_to_a_failed_partition_is_invalid_request(layer: str) -> None:
    """KafkaApis checks the batches before it looks the partition up (§10.1)."""
    p = Partition(layer)
    p.fail_writes(Errors.UNKNOWN_SERVER_ERROR)
    assert p.send(Reload()) == ReloadResponse(Errors.UNKNOWN_SERVER_ERROR)
    assert p.view().status == "FAILED"
    assert p.ack((5, 4, ACCEPT)) is Errors.INVALID_REQUEST
    assert p.ack((-2, 4, ACCEPT)) is Errors.INVALID_REQUEST
    assert p.ack((0, 4, (ACCEPT, ACCEPT))) is Errors.INVALID_REQUEST
    assert p.ack((0, 4, ACCEPT)) is Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert p.release() is Errors.UNKNOWN_TOPIC_OR_PARTITION


@pytest.mark.parametrize("layer", LAYERS)
def test_e15_only_the_holder_acknowledges_acquired_records(layer: str) -> None:
    p = Partition(layer)
    p.fetch(5, (5, 9))
    assert p.ack((5, 9, REJECT), member=M2) is Errors.INVALID_RECORD_STATE
    assert p.ack((5, 9, RELEASE)) is Errors.NONE
    assert p.ack((5, 9, ACCEPT)) is Errors.INVALID_RECORD_STATE
    assert p.fetch(5, (5, 9)) == ([(5, 9, 2)], 5)
    assert p.ack((6, 8, REJECT)) is Errors.NONE
    assert [p.rec(o)[0] for o in range(5, 10)] == [ACQ, ARCH, ARCH, ARCH, ACQ]
    assert p.ack((6, 8, REJECT)) is Errors.INVALID_RECORD_STATE


@pytest.mark.parametrize("layer", LAYERS)
def test_e16_one_bad_batch_undoes_the_whole_call(layer: str) -> None:
    """E16 calls SharePartition directly with batches [15-19] twice; as a request that overlap is
    refused by KafkaApis' validation first (INVALID_REQUEST). An overlap by one offset passes the
    validation (trap T10) and fails inside, undoing the earlier good batches."""
    for fourth in ((15, 19, ACCEPT), (16, 19, ACCEPT)):
        p = Partition(layer)
        p.fetch(5, (5, 9))
        p.fetch(10, (10, 14))
        p.fetch(15, (15, 19))
        assert p.ack((5, 9, RELEASE), (10, 14, ACCEPT), (15, 19, ACCEPT), fourth) is Errors.INVALID_REQUEST
        assert all(p.rec(o) == (ACQ, 1, M1) for o in range(5, 20))
    for fourth in ((19, 19, ACCEPT),):
        p = Partition(layer)
        p.fetch(5, (5, 9))
        p.fetch(10, (10, 14))
        p.fetch(15, (15, 19))
        error = p.ack((5, 9, RELEASE), (10, 14, ACCEPT), (15, 19, ACCEPT), fourth)
        assert error is Errors.INVALID_RECORD_STATE
        assert all(p.rec(o) == (ACQ, 1, M1) for o in range(5, 20))
        assert p.batches() == [(5, 9, False), (10, 14, False), (15, 19, False)]  # member check first
        assert p.writes() == []


@pytest.mark.parametrize("layer", LAYERS)
def test_e20_a_failed_write_rolls_the_acknowledgement_back(layer: str) -> None:
    p = Partition(layer)
    p.fetch(5, (5, 14))
    p.fail_writes(Errors.UNKNOWN_TOPIC_OR_PARTITION)
    assert p.ack((5, 14, ACCEPT)) is Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert p.batches() == [(5, 14, False)] and p.rec(9) == (ACQ, 1, M1)
    p = Partition(layer)
    p.fetch(5, (5, 10))
    p.fail_writes(Errors.GROUP_ID_NOT_FOUND)
    assert p.ack((8, 10, REJECT)) is Errors.GROUP_ID_NOT_FOUND
    assert p.batches() == [(5, 10, True)]  # the split stays
    assert all(p.rec(o) == (ACQ, 1, M1) for o in range(5, 11))
    p.fail_writes(Errors.FENCED_STATE_EPOCH)
    assert p.ack((8, 10, REJECT)) is Errors.NOT_LEADER_OR_FOLLOWER


@pytest.mark.parametrize("layer", LAYERS)
def test_e28_acknowledgements_move_the_start(layer: str) -> None:
    p = Partition(layer, SharePartitionConfig(5, 100, 30_000))
    p.fetch(0, (0, 19))
    p.fetch(20, (20, 39))
    p.fetch(40, (40, 59))
    assert p.ack((0, 19, ACCEPT)) is Errors.NONE
    assert (p.spso, p.end, p.nfo) == (20, 59, 60)
    p.fetch(60, (60, 79))
    assert p.ack((20, 49, ACCEPT)) is Errors.NONE
    assert (p.spso, p.end, p.nfo) == (50, 79, 80)
    assert p.batches()[0] == (40, 59, True)
    assert p.fetch(80, (80, 179)) == ([(80, 179, 1)], 100)  # room 70, the log batch goes whole
    assert p.ack((50, 179, REJECT)) is Errors.NONE
    assert (p.spso, p.end, p.nfo, p.batches()) == (180, 180, 180, [])
    p.fetch(180, (180, 199))
    assert (p.spso, p.end, p.nfo) == (180, 199, 200)


@pytest.mark.parametrize("layer", LAYERS)
def test_e29_the_gap_window_caps_the_start(layer: str) -> None:
    p = Partition(layer, persisted=persisted(3, 11, (11, 20, AV, 2), (31, 40, ARCH, 1)))
    assert p.view().gap_window == (21, 40)
    assert p.fetch(11, (11, 20)) == ([(11, 20, 3)], 10)
    assert p.ack((11, 20, ACCEPT)) is Errors.NONE
    assert (p.spso, p.end, p.nfo, p.view().gap_window) == (21, 40, 21, (21, 40))


@pytest.mark.parametrize("layer", LAYERS)
def test_e30_e31_release_writes_only_what_changed(layer: str) -> None:
    p = Partition(layer)
    p.fetch(2, (2, 6))
    assert p.ack((2, 6, ACCEPT)) is Errors.NONE
    assert len(p.writes()) == 1 and (p.spso, p.end) == (7, 7)
    assert p.release() is Errors.NONE
    assert len(p.writes()) == 1
    p = Partition(layer)
    p.fetch(5, (5, 5), member=M2)
    assert p.fetch(10, (10, 20)) == ([(10, 20, 1)], 11)
    assert p.ack((10, 18, (1, 1, 0, 0, 1, 0, 1, 0, 1))) is Errors.NONE
    assert p.release() is Errors.NONE
    # Trunk keeps the delivery count on release (the snapshot the test was read in took one off).
    assert p.nfo == 19 and p.rec(19) == (AV, 1, "") and p.rec(5) == (ACQ, 1, M2)
    assert p.release(M2) is Errors.NONE
    assert p.nfo == 5 and p.rec(5) == (AV, 1, "")


@pytest.mark.parametrize("layer", LAYERS)
def test_e32_e33_the_delivery_limit(layer: str) -> None:
    two = SharePartitionConfig(2, 200, 30_000)
    p = Partition(layer, two)
    p.fetch(0, (0, 9))
    p.fetch(10, (10, 14))
    p.ack((10, 14, RELEASE))
    p.fetch(10, (10, 14))
    assert p.release() is Errors.NONE
    # Trunk (derived): a release counts as a delivery, so 10-14 reached the limit.
    assert p.rec(0) == (AV, 1, "") and p.rec(10) == (ARCH, 2, "") and (p.nfo, p.spso) == (0, 0)
    p = Partition(layer, two)
    p.fetch(5, (5, 14))
    p.ack((5, 14, RELEASE))
    p.fetch(5, (5, 14))
    assert p.ack((5, 14, RELEASE)) is Errors.NONE
    assert (p.spso, p.end, p.nfo, p.batches()) == (15, 15, 15, [])
    p = Partition(layer, two)
    p.fetch(0, (0, 4))
    p.ack((0, 1, RELEASE))
    assert p.fetch(0, (0, 1)) == ([(0, 1, 2)], 2)
    assert p.ack((0, 4, RELEASE)) is Errors.NONE
    assert [p.rec(o)[:2] for o in range(0, 5)] == [(ARCH, 2), (ARCH, 2), (AV, 1), (AV, 1), (AV, 1)]
    assert (p.spso, p.nfo, len(p.batches())) == (2, 2, 1)


# ---------------------------------------------------------------------------------------------
# Locks (§12) and RENEW (§10.4)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_e21_lock_expiry_and_the_delivery_limit(layer: str) -> None:
    short = SharePartitionConfig(2, 200, 100)
    p = Partition(layer, short)
    p.fetch(0, (0, 9))
    p.fetch(10, (10, 19))
    p.advance(100)
    assert p.rec(0) == (AV, 1, "") and p.rec(19) == (AV, 1, "") and p.nfo == 0
    p.fetch(10, (10, 19))
    p.advance(100)
    assert p.rec(10) == (ARCH, 2, "") and p.nfo == 0
    p = Partition(layer, short)
    p.fetch(0, (0, 9))
    p.advance(100)
    assert p.fetch(0, (0, 4)) == ([(0, 4, 2)], 5)
    p.advance(100)
    assert [p.rec(o)[:2] for o in (0, 4, 5, 9)] == [(ARCH, 2), (ARCH, 2), (AV, 1), (AV, 1)]
    assert (p.nfo, p.spso, p.batches()) == (5, 5, [(0, 9, True)])
    p = Partition(layer, short)
    p.fetch(0, (0, 9))
    p.advance(100)
    p.fetch(0, (0, 9))
    p.advance(100)
    assert (p.batches(), p.nfo, p.spso) == ([], 10, 10)


@pytest.mark.parametrize("layer", LAYERS)
def test_e24_e27_locks_after_acknowledgements_and_failed_writes(layer: str) -> None:
    short = SharePartitionConfig(5, 200, 100)
    p = Partition(layer, short)
    p.fetch(5, (5, 9))
    assert p.locks() == 1
    p.ack((5, 6, RELEASE))
    assert p.locks() == 3
    p.ack((8, 9, ACCEPT))
    assert p.locks() == 1
    p.advance(100)
    assert [p.rec(o)[0] for o in range(5, 10)] == [AV, AV, AV, ACK, ACK] and p.nfo == 5 and p.locks() == 0
    p = Partition(layer, short)
    p.fetch(5, (5, 14))
    p.fail_writes(Errors.UNKNOWN_SERVER_ERROR)
    p.advance(100)  # the expiry's write fails: only logged, the expiry stands
    assert p.rec(5) == (AV, 1, "") and p.nfo == 5 and p.writes()[-1].error is Errors.UNKNOWN_SERVER_ERROR


@pytest.mark.parametrize("layer", LAYERS)
def test_d2_renew(layer: str) -> None:
    p = Partition(layer)
    p.fetch(0, (0, 9))
    p.advance(20_000)
    assert p.ack((0, 9, RENEW)) is Errors.NONE
    assert p.view().records[0].lock_deadline_ms == 50_000 and p.writes() == []
    p.advance(20_000)
    assert p.ack((0, 9, (1, 4, 4, 4, 4, 4, 4, 4, 4, 4))) is Errors.NONE
    assert (p.spso, p.end) == (1, 9)
    assert {r.lock_deadline_ms for r in p.view().records if r.offset >= 1} == {70_000}
    assert p.ack((1, 1, RENEW), member=M2) is Errors.INVALID_RECORD_STATE
    assert p.ack((0, 0, RENEW)) is Errors.NONE  # below the start: skipped


@pytest.mark.parametrize("layer", LAYERS)
def test_d1_throttling_near_the_limit(layer: str) -> None:
    p = Partition(layer)
    for _ in range(3):
        p.fetch(0, (0, 9))
        p.ack((0, 9, RELEASE))
    assert p.batches() == [(0, 9, False)] and p.rec(0) == (AV, 3, "")
    assert p.fetch(0, (0, 9)) == ([(0, 4, 4)], 5)
    assert p.nfo == 5
    assert p.fetch(5, (0, 9)) == ([(5, 9, 4)], 5)
    p.ack((0, 9, RELEASE))
    assert p.fetch(0, (0, 9)) == ([(0, 0, 5)], 1)  # the last delivery goes alone
    assert p.fetch(0, (0, 9)) == ([(1, 1, 5)], 1)
    p.ack((0, 0, RELEASE))
    assert p.rec(0) == (ARCH, 5, "")


@pytest.mark.parametrize("layer", LAYERS)
def test_d2_a_throttle_cap_already_reached_when_it_is_set(layer: str) -> None:
    """§9's cap is set at the first record delivered throttle_limit times or more, and the walk
    stops when its count reaches the cap. Here the walk has taken offset 3 when offset 4 sets a
    cap of 2 >> 1 = 1: the count is past the cap, never equal to it, so offset 4 goes too.
    (The impl once cut its run to 0 offsets here and raised IndexError; the deep stateful run
    found it, and this is its sequence.)"""
    config = SharePartitionConfig(delivery_count_limit=4, max_in_flight_records=40,
                                  record_lock_duration_ms=1000)
    assert config.throttle_limit == 2
    persisted = PersistedState(state_epoch=1, start_offset=3, batches=(
        PersisterBatch(5, 7, AV, 2), PersisterBatch(10, 12, ACK, 1)))
    p = Partition(layer, config, persisted)
    assert p.fetch(3, (3, 9), max_records=1) == ([(3, 4, 1)], 2)
    assert p.ack((4, 4, RELEASE)) is Errors.NONE
    assert p.fetch(4, (3, 9), max_records=1, batch_size=3) == ([(4, 4, 2)], 1)
    p.advance(1000)
    assert (p.rec(3), p.rec(4)) == ((AV, 1, ""), (AV, 2, ""))
    assert p.fetch(3, (3, 9), max_records=1, batch_size=3) == ([(3, 3, 2), (4, 4, 3)], 2)


# ---------------------------------------------------------------------------------------------
# The log start offset (§14)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_e22_log_start_movement(layer: str) -> None:
    p = Partition(layer)
    for first in range(2, 37, 5):
        p.fetch(first, (first, first + 4))
    assert p.ack((2, 6, ACCEPT), (12, 16, RELEASE), (22, 26, RELEASE), (27, 31, REJECT)) is Errors.NONE
    assert p.spso == 7
    p.move_log_start(20)
    assert (p.nfo, p.spso, p.end) == (22, 20, 36)
    assert [b[:2] for b in p.batches()] == [(7, 11), (12, 16), (17, 21), (22, 26), (27, 31), (32, 36)]
    assert p.rec(12) == (ARCH, 1, "") and p.rec(17) == (ACQ, 1, M1) and p.rec(22) == (AV, 1, "")
    assert (17, 21, False) in p.batches()
    p = Partition(layer)
    p.fetch(2, (2, 6))
    p.fetch(7, (7, 11))
    p.move_log_start(14)
    assert (p.nfo, p.spso, p.end, len(p.batches())) == (14, 14, 14, 2)


@pytest.mark.parametrize("layer", LAYERS)
def test_e23_acknowledging_below_the_start(layer: str) -> None:
    p = Partition(layer)
    p.fetch(2, (2, 6))
    p.fetch(10, (10, 14))
    p.fetch(20, (20, 24))
    p.move_log_start(14)
    assert (p.nfo, p.spso, p.end) == (25, 14, 24)
    assert p.ack((2, 14, ACCEPT)) is Errors.NONE
    assert p.rec(2) == (ACQ, 1, M1) and p.rec(13) == (ACQ, 1, M1) and p.rec(14) == (ACK, 1, "")
    assert (p.spso, p.end, p.nfo, len(p.batches())) == (14, 24, 25, 3)


@pytest.mark.parametrize("layer", LAYERS)
def test_e34_compacted_offsets_are_archived(layer: str) -> None:
    p = Partition(layer)
    p.fetch(0, (0, 4))
    p.fetch(5, (5, 9))
    p.fetch(10, (10, 24))
    p.release()
    assert p.fetch(0, (5, 9)) == ([(5, 9, 2)], 5)
    assert p.rec(0) == (ARCH, 1, "") and p.nfo == 10 and p.spso == 0
    p.release()
    assert (p.spso, p.nfo, p.batches()) == (5, 5, [(5, 9, False), (10, 24, False)])


@pytest.mark.parametrize("layer", LAYERS)
def test_seed000_next_fetch_offset_examples(layer: str) -> None:
    """Seed 000, SharePartition.nextFetchOffset: its four cases, as 4.x runs them."""
    p = Partition(layer)  # 1: everything finished: the end
    p.fetch(0, (0, 9))
    assert p.ack((0, 9, ACCEPT)) is Errors.NONE
    assert (p.nfo, p.spso, p.end) == (10, 10, 10)
    # 2.1: 0-10 and 20-30 persisted as released, 11-19 never written (a restart): after 0-10
    # go again, the next fetch is the hole. 4.x gets there through the persisted gap window only.
    p = Partition(layer, persisted=persisted(1, 0, (0, 10, AV, 1), (20, 30, AV, 1)))
    assert (p.nfo, p.view().gap_window) == (0, (11, 30))
    assert p.fetch(0, (0, 30), max_records=5) == ([(0, 10, 2)], 11)
    assert p.nfo == 11
    p = Partition(layer)  # 2.2: a batch released whole: its first offset
    p.fetch(10, (10, 20))
    assert p.ack((10, 20, RELEASE)) is Errors.NONE
    assert p.nfo == 10
    p = Partition(layer)  # 2.3: [10, 12] released, accepted, released offset by offset: 10
    p.fetch(10, (10, 12))
    assert p.ack((10, 10, RELEASE), (11, 11, ACCEPT), (12, 12, RELEASE)) is Errors.NONE
    assert (p.nfo, p.spso) == (10, 10)


@pytest.mark.parametrize("layer", LAYERS)
def test_seed000_gaps_between_batches_are_not_refetched_while_running(layer: str) -> None:
    """docs/divergences.md, seed 000 row "holes": without a persisted gap window a hole between
    cached batches (the log had nothing there) is skipped, not fetched again."""
    p = Partition(layer)
    assert p.fetch(0, (0, 10)) == ([(0, 10, 1)], 11)
    assert p.fetch(20, (20, 30)) == ([(20, 30, 1)], 11)
    assert p.ack((0, 10, RELEASE)) is Errors.NONE
    assert p.nfo == 0
    assert p.fetch(0, (0, 10)) == ([(0, 10, 2)], 11)
    assert p.nfo == 31  # the seed's example says 11


@pytest.mark.parametrize("layer", LAYERS)
def test_seed000_a_held_batch_met_part_way_is_not_split(layer: str) -> None:
    """docs/divergences.md, seed 000 row "subset branch": the fetch starts inside a batch
    another member holds; 4.x skips it whole (the seed's code would split it)."""
    p = Partition(layer)
    p.fetch(0, (0, 4))
    p.fetch(5, (5, 9))
    assert p.ack((5, 9, RELEASE)) is Errors.NONE
    assert p.fetch(2, (0, 9), member=M2) == ([(5, 9, 2)], 5)
    assert p.batches() == [(0, 4, False), (5, 9, False)]


@pytest.mark.parametrize("layer", LAYERS)
def test_the_start_moves_back_when_the_cache_empties(layer: str) -> None:
    """docs/divergences.md, share_spso_backwards: Kafka puts SPSO after the last cached offset.

    The log start passed the whole cache while the gap 3-4 was held; once the release archives
    it, maybeUpdateCachedStateAndOffsets empties the cache and sets SPSO to 12 + 1, below the 14
    it had and below the 14 it has just persisted.
    """
    p = Partition(layer, persisted=persisted(1, 3, (5, 7, AV, 2), (10, 12, ACK, 1)))
    assert p.fetch(3, (3, 9), max_records=1) == ([(3, 4, 1)], 2)
    p.move_log_start(14)
    assert (p.spso, p.end, p.nfo, len(p.batches())) == (14, 14, 14, 3)
    assert p.release() is Errors.NONE
    assert p.writes()[-1].start_offset == 14
    assert (p.spso, p.end, p.nfo, p.batches()) == (13, 13, 13, [])


@pytest.mark.parametrize("layer", LAYERS)
def test_t18_acknowledging_across_an_uncached_start(layer: str) -> None:
    """docs/divergences.md, share_ack_missing_floor: Kafka's NullPointerException, as an error."""
    p = Partition(layer, persisted=persisted(1, 10, (15, 20, ACK, 1)))
    assert (p.spso, p.batches()) == (10, [(15, 20, False)])
    assert p.ack((5, 12, ACCEPT)) is Errors.UNKNOWN_SERVER_ERROR
    assert (p.spso, p.batches(), p.writes()) == (10, [(15, 20, False)], [])


@pytest.mark.parametrize("layer", LAYERS)
def test_in_flight_limit_reached_exactly_at_a_compacted_end(layer: str) -> None:
    """docs/divergences.md, share_acquire_inverted_range: Kafka 4.2.1 throws here, groupspec
    acquires nothing; the stale offset is archived either way."""
    p = Partition(layer, SharePartitionConfig(5, 12, 30_000), persisted(1, 3, (10, 14, AV, 1)))
    assert p.fetch(3, (1, 5)) == ([(3, 5, 1)], 3)
    assert (p.spso, p.end, p.nfo) == (3, 14, 6)  # 12 offsets in flight: the limit
    assert p.fetch(14, (20, 25)) == ([], 0)
    assert p.rec(14) == (ARCH, 1, "") and (p.spso, p.end, p.nfo) == (3, 14, 6)


@pytest.mark.parametrize("layer", LAYERS)
def test_t17_a_reload_leaves_no_old_locks(layer: str) -> None:
    """docs/divergences.md, share_fenced_timers: the replaced partition's locks do not fire."""
    p = Partition(layer)
    assert p.fetch(0, (0, 9)) == ([(0, 9, 1)], 10)
    assert p.send(Reload(latest_offset=10)) == ReloadResponse(Errors.NONE)
    assert (p.view().leader_epoch, p.batches(), p.locks()) == (1, [], 0)
    p.advance(40_000)
    assert p.writes() == [] and p.view().records == ()
    assert p.fetch(0, (0, 9)) == ([(0, 9, 1)], 10)


@pytest.mark.parametrize("layer", LAYERS)
def test_t17_no_old_lock_fires_after_a_failed_reload(layer: str) -> None:
    """docs/divergences.md, share_fenced_timers: where Kafka's replaced object still writes, and
    the persister keeps it because the failed read never raised its leader epoch."""
    p = Partition(layer, SharePartitionConfig(5, 200, 1_000))
    assert p.fetch(0, (0, 4)) == ([(0, 4, 1)], 5)
    p.fail_writes(Errors.UNKNOWN_SERVER_ERROR)
    assert p.send(Reload(latest_offset=5)) == ReloadResponse(Errors.UNKNOWN_SERVER_ERROR)
    p.fail_writes(Errors.NONE)
    p.advance(5_000)
    assert p.writes() == [] and p.view().persisted == ()


def test_test_defaults_are_the_kafka_test_class_ones() -> None:
    assert (TEST_CONFIG.delivery_count_limit, TEST_CONFIG.throttle_limit) == (5, 3)
    assert [SharePartitionConfig(n).throttle_limit for n in range(2, 11)] == [2, 2, 2, 3, 3, 4, 4, 5, 5]

"""The share partition spec's own contracts refuse what they exist to refuse (issue 17, point 3).

``step`` checks ``invariants_hold`` before and after every event and ``_monotonic`` across it;
the rules of the table's ACTIVE rows require an ACTIVE partition. Every state a run reaches
satisfies them, so no vector can tell a weakened contract from the real one: these tests hand
the checks states and calls that break one rule each, and the default arguments of
``initial_state`` a library caller relies on.
"""

from __future__ import annotations

from dataclasses import replace

import icontract
import pytest

from groupspec.spec import share_partition as spec
from groupspec.spec.kernel import Step
from groupspec.types.share_partition import (
    Acknowledge,
    CanAcquire,
    Fetch,
    LogBatch,
    MoveLogStart,
    PersistedState,
    RecordState,
    ReleaseMember,
    SharePartitionConfig,
)

CONFIG = SharePartitionConfig(5, 200, 30_000)
AV, ACQ, ACK = RecordState.AVAILABLE, RecordState.ACQUIRED, RecordState.ACKNOWLEDGED
M = "member-1"
LOCK_A, LOCK_B = (30_000, 1), (30_000, 2)


def _good() -> spec.State:
    """Offsets 0-2: one unsplit batch held by M under one lock; 3-5: a split batch with an
    ACKNOWLEDGED, an ACQUIRED and an AVAILABLE offset."""
    recs = {o: spec.Rec(ACQ, 1, M, LOCK_A) for o in range(3)}
    recs |= {3: spec.Rec(ACK, 1), 4: spec.Rec(ACQ, 1, M, LOCK_B), 5: spec.Rec(AV, 1)}
    return spec.State(CONFIG, 0, spec.Persister(0, 0, 0), spso=0, end=5, seq=2,
                      batches={0: spec.Batch(2), 3: spec.Batch(5, split=True)}, recs=recs)


def _with(s: spec.State, **recs: spec.Rec) -> spec.State:
    return replace(s, recs={**s.recs, **{int(o.removeprefix("o")): r for o, r in recs.items()}})


def test_the_base_state_holds() -> None:
    assert spec.invariants_hold(_good())


BROKEN = {
    # the cache: batches tile the records, an unsplit batch is uniform
    "a record outside every batch": replace(_good(), recs={**_good().recs, 9: spec.Rec(AV, 1)}),
    "a split batch's offset without a record": replace(
        _good(), recs={o: r for o, r in _good().recs.items() if o != 5}),
    "an unsplit batch of two states": _with(
        replace(_good(), batches={0: spec.Batch(2), 3: spec.Batch(5)}),
        o3=spec.Rec(AV, 1), o4=spec.Rec(AV, 1), o5=spec.Rec(AV, 2)),
    # the records: exactly the ACQUIRED ones locked and held, within the limit, not yet due
    "an ACQUIRED record without a lock": _with(_good(), o4=spec.Rec(ACQ, 1)),
    "an AVAILABLE record with a lock": _with(_good(), o4=spec.Rec(AV, 1, spec.EMPTY, LOCK_B)),
    "an AVAILABLE record below the start offset": replace(
        _with(_good(), o3=spec.Rec(AV, 1)), spso=4),
    "a finished record with a holder": _with(_good(), o3=spec.Rec(ACK, 1, M)),
    "an ACQUIRED record never delivered": _with(_good(), o4=spec.Rec(ACQ, 0, M, LOCK_B)),
    "a lock past its deadline": replace(_good(), now=30_001),
    # a lock: a whole unsplit batch, or one offset of a split one
    "a lock on part of an unsplit batch": _with(_good(), o2=spec.Rec(ACQ, 1, M, (30_000, 3))),
    "a lock on the last two of an unsplit batch": _with(_good(), o0=spec.Rec(ACQ, 1, M, (30_000, 3))),
    "a lock on two offsets of a split batch": _with(_good(), o5=spec.Rec(ACQ, 1, M, LOCK_B)),
    # an empty cache: the end offset is the start offset
    "an empty cache ending after the start": replace(_good(), batches={}, recs={}, spso=3, end=5),
    "an empty cache ending before the start": replace(_good(), batches={}, recs={}, spso=5, end=3),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_invariants_refuse(name: str) -> None:
    assert not spec.invariants_hold(BROKEN[name]), name


def _moved(before: spec.State, spso: int, cached: bool = True) -> bool:
    after = replace(before, spso=spso) if cached else replace(before, spso=spso, batches={}, recs={})
    return spec._monotonic(before, after)


def test_monotonic_start_offset() -> None:
    """SPSO moves back only to the gap window's start, or just past an emptied cache (§13.3)."""
    done = {0: spec.Batch(9)}
    recs = {o: spec.Rec(ACK, 1) for o in range(10)}
    windowed = replace(_good(), spso=5, window=(2, 9))
    assert _moved(windowed, 2)
    assert not _moved(windowed, 3) and not _moved(windowed, 1)
    assert not _moved(replace(_good(), spso=5), 2)  # no window
    past = replace(_good(), spso=20, end=20, batches=done, recs=recs)
    assert _moved(past, 10, cached=False)
    assert not _moved(past, 11, cached=False) and not _moved(past, 9, cached=False)
    assert not _moved(past, 10)  # the cache did not empty
    assert not _moved(replace(past, batches={}, recs={}), 10, cached=False)  # nor was it cached
    assert _moved(past, 20) and _moved(past, 25)


def test_monotonic_delivery_counts() -> None:
    before = _good()
    assert not spec._monotonic(before, _with(before, o5=spec.Rec(AV, 0)))


ACTIVE_ROWS = [
    (spec.acquire, Fetch(M, 0, (LogBatch(0, 5),))),
    (spec.acknowledge, Acknowledge(M, ())),
    (spec.release, ReleaseMember(M)),
    (spec.move_log_start, MoveLogStart(3)),
    (spec.can_acquire, CanAcquire()),
]


@pytest.mark.parametrize(("rule", "event"), ACTIVE_ROWS, ids=[r.__name__ for r, _ in ACTIVE_ROWS])
def test_active_rules_refuse_a_failed_partition(rule: object, event: object) -> None:
    failed = replace(spec.initial_state(CONFIG), status=spec.FAILED)
    with pytest.raises(icontract.ViolationError):
        rule(Step(failed), event, 0)  # type: ignore[operator]


def test_initial_state_defaults() -> None:
    """Clock 0 and latest offset 0 unless given: a never-initialized state starts at 0."""
    v = spec.view(spec.initial_state(CONFIG, PersistedState(1, -1)))
    assert (v.now_ms, v.start_offset, v.end_offset, v.next_fetch_offset) == (0, 0, 0, 0)

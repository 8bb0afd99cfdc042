"""The in-memory share coordinator store: combining writes, epochs and fencing."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.share_partition.persister import InMemoryPersister, apply_write, combine
from groupspec.types.errors import Errors
from groupspec.types.share_partition import PersistedState, PersisterBatch, RecordState, StateWrite

STATES = (RecordState.AVAILABLE, RecordState.ACKNOWLEDGED, RecordState.ARCHIVED)


@st.composite
def batch_lists(draw: st.DrawFn, disjoint: bool) -> list[PersisterBatch]:
    out = []
    offset = draw(st.integers(0, 5))
    for _ in range(draw(st.integers(0, 6))):
        first = offset + draw(st.integers(0, 3)) if disjoint else draw(st.integers(0, 40))
        last = first + draw(st.integers(0, 6))
        out.append(PersisterBatch(first, last, draw(st.sampled_from(STATES)), draw(st.integers(0, 2))))
        offset = last + 1
    return out


def painted(batches: list[PersisterBatch]) -> dict[int, tuple[RecordState, int]]:
    offsets: dict[int, tuple[RecordState, int]] = {}
    for b in batches:
        for o in range(b.first_offset, b.last_offset + 1):
            offsets[o] = (b.delivery_state, b.delivery_count)
    return offsets


@given(batch_lists(disjoint=True), batch_lists(disjoint=False), st.integers(0, 30))
def test_combine_is_later_wins_per_offset(old: list[PersisterBatch], newer: list[PersisterBatch],
                                          start: int) -> None:
    out = combine(old, tuple(newer), start)
    expected = {o: v for o, v in painted([*old, *newer]).items() if o >= start}
    assert painted(out) == expected
    for a, b in pairwise(out):
        assert a.last_offset < b.first_offset
        # Neighbours with the same state and count are one batch.
        assert a.last_offset + 1 < b.first_offset or (a.delivery_state, a.delivery_count) != (
            b.delivery_state, b.delivery_count)


def test_epochs_fence_old_writers() -> None:
    store = InMemoryPersister(PersistedState(2, 10, (PersisterBatch(10, 12, RecordState.AVAILABLE, 1),)))
    assert store.read_state(leader_epoch=3).error is Errors.NONE
    assert store.write_state(StateWrite(10, 2, 2, ())) is Errors.FENCED_LEADER_EPOCH
    assert store.write_state(StateWrite(10, 1, 3, ())) is Errors.FENCED_STATE_EPOCH
    assert store.read_state(leader_epoch=2).error is Errors.FENCED_LEADER_EPOCH
    ok = StateWrite(11, 2, 3, (PersisterBatch(12, 12, RecordState.ACKNOWLEDGED, 1),))
    assert store.write_state(ok) is Errors.NONE
    expected = PersistedState(2, 11, (PersisterBatch(11, 11, RecordState.AVAILABLE, 1),
                                      PersisterBatch(12, 12, RecordState.ACKNOWLEDGED, 1)))
    assert store.read_state(leader_epoch=3).state == expected


@given(batch_lists(disjoint=True), st.lists(st.tuples(batch_lists(disjoint=False), st.integers(0, 30)),
                                           max_size=4))
def test_apply_write_in_place_equals_combine(initial: list[PersisterBatch],
                                             writes: list[tuple[list[PersisterBatch], int]]) -> None:
    """The store redoes only what a write touches (issue 15 item 12); the result is combine's."""
    stored = combine([], tuple(initial), 0)
    expected = list(stored)
    for newer, start in writes:
        start = max(start, stored[0].first_offset if stored else 0) if stored else start
        apply_write(stored, tuple(newer), start)
        expected = combine(expected, tuple(newer), start)
        assert stored == expected


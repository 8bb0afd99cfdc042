"""The share coordinator's windowed combining gives exactly what Kafka's whole-list combiner gives.

``combine_stored`` redoes only the stored batches a write can reach when the stored batches are
clean; these checks drive it and ``combine_state_batches`` through the same random sequences of
writes (start offsets moving, batches overlapping, touching and repeating) and require the same
batches after every write, and a ``clean`` flag that is true exactly when the batches are.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.share_state import combiner
from groupspec.impl.share_state.combiner import StoredBatches, combine_state_batches, combine_stored
from groupspec.types.share_state import UNINITIALIZED_START_OFFSET, StateBatch

#: Few states, counts and offsets, so that writes often touch stored batches of the same count and
#: state (where windowing could go wrong), and a third state now and then.
_STATES = (0, 2, 2, 4)


@st.composite
def _batch(draw: st.DrawFn) -> StateBatch:
    first = draw(st.integers(0, 24))
    return StateBatch(first, first + draw(st.integers(0, 4)), draw(st.sampled_from(_STATES)),
                      draw(st.integers(1, 2)))


_write = st.tuples(st.lists(_batch(), max_size=4),
                   st.one_of(st.just(UNINITIALIZED_START_OFFSET), st.integers(0, 16)))


@given(st.lists(_write, min_size=1, max_size=12))
def test_windowed_combining_equals_the_whole_run(writes: list[tuple[list[StateBatch], int]]) -> None:
    whole: list[StateBatch] = []
    stored: StoredBatches | tuple[StateBatch, ...] = ()
    for new, start in writes:
        whole = combine_state_batches(whole, list(new), start)
        stored = combine_stored(stored, list(new), start)
        assert list(stored) == whole
        assert stored.clean == combiner._clean(whole)


def test_a_clean_store_is_combined_only_where_the_write_reaches(monkeypatch: object) -> None:
    """The window is the stored batches overlapping or touching the write, not the whole list."""
    stored = StoredBatches([StateBatch(o * 2, o * 2, 0, 1 + o % 2) for o in range(100)], True)
    seen: list[int] = []
    real = combiner.combine_state_batches

    def spy(so_far: list[StateBatch], new: list[StateBatch], start: int) -> list[StateBatch]:
        seen.append(len(so_far))
        return real(so_far, new, start)

    monkeypatch.setattr(combiner, "combine_state_batches", spy)  # type: ignore[attr-defined]
    out = combine_stored(stored, [StateBatch(101, 101, 2, 1)], 0)
    assert seen == [2]  # the batches at 100 and 102, which the write touches
    assert out[50:52] == (StateBatch(100, 100, 0, 1), StateBatch(101, 101, 2, 1))
    assert out.clean and len(out) == 101


def test_an_unknown_store_is_combined_whole_and_judged() -> None:
    # Kafka's combiner leaves a batch passed over early next to a piece cut later with the same
    # count and state: not clean, so the next write runs over everything again.
    dirty = combine_stored((StateBatch(0, 4, 0, 1), StateBatch(5, 9, 2, 1)), [StateBatch(5, 7, 0, 1)], 0)
    assert list(dirty) == combine_state_batches([StateBatch(0, 4, 0, 1), StateBatch(5, 9, 2, 1)],
                                                [StateBatch(5, 7, 0, 1)], 0)
    assert dirty.clean == combiner._clean(list(dirty))


def test_a_write_below_the_start_offset_only_prunes() -> None:
    stored = StoredBatches([StateBatch(0, 9, 0, 1), StateBatch(10, 19, 2, 1)], True)
    out = combine_stored(stored, [StateBatch(0, 3, 4, 2)], 12)
    assert list(out) == [StateBatch(12, 19, 2, 1)] and out.clean

"""Combining state batches the way Kafka's ``PersisterStateBatchCombiner`` does.

The batches held so far and the batches of a write are pruned to the start offset, put in a
sorted set ordered by (first offset, last offset, delivery count, delivery state), and then the
first *mergeable* pair (overlapping, or touching with equal count and state) is taken out and
replaced by what it resolves to, until no such pair is left. Batches passed over on the way to a
pair are final and leave the set. Where two batches overlap, the one with the higher (delivery
count, delivery state) keeps the overlap.

The sorted set is a plain sorted list kept with ``bisect`` (Kafka uses a ``TreeSet``): the
lists are short (a share partition's in-flight window), and equality is the ordering's, so a
batch equal to one already present is not added twice, as with the TreeSet.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from itertools import pairwise

from groupspec.types.share_state import UNINITIALIZED_START_OFFSET, StateBatch

__all__ = ["combine_state_batches"]


def _sort_key(b: StateBatch) -> tuple[int, int, int, int]:
    return (b.first_offset, b.last_offset, b.delivery_count, b.delivery_state)


def _priority(a: StateBatch, b: StateBatch) -> int:
    """Negative, zero or positive as ``a``'s (count, state) is below, equal to or above ``b``'s."""
    ka, kb = (a.delivery_count, a.delivery_state), (b.delivery_count, b.delivery_state)
    return (ka > kb) - (ka < kb)


class _SortedBatches:
    """The TreeSet: unique batches in (first, last, count, state) order."""

    def __init__(self, batches: list[StateBatch]) -> None:
        self.items = sorted(set(batches), key=_sort_key)
        self.keys = [_sort_key(b) for b in self.items]

    def add(self, b: StateBatch) -> None:
        k = _sort_key(b)
        i = bisect_left(self.keys, k)
        if i < len(self.keys) and self.keys[i] == k:
            return
        self.keys.insert(i, k)
        self.items.insert(i, b)

    def remove(self, b: StateBatch) -> None:
        i = bisect_left(self.keys, _sort_key(b))
        del self.keys[i]
        del self.items[i]


def _cut(first: int, last: int, like: StateBatch) -> StateBatch:
    return StateBatch(first, last, like.delivery_state, like.delivery_count)


def _pruned(batches: list[StateBatch], start: int) -> list[StateBatch]:
    if start == UNINITIALIZED_START_OFFSET:
        return batches
    kept = []
    for b in batches:
        if b.last_offset < start:
            continue  # wholly below the start offset
        kept.append(b if b.first_offset >= start else _cut(start, b.last_offset, b))
    return kept


def combine_state_batches(so_far: list[StateBatch], new: list[StateBatch], start: int) -> list[StateBatch]:
    """The combined, non-overlapping batches (in the order Kafka returns them)."""
    combined = _pruned([*so_far, *new], start)
    if len(combined) < 2:
        return combined
    final: list[StateBatch] = []
    pending = _SortedBatches(combined)
    while True:
        pair = _first_mergeable_pair(pending, final)
        if pair is None:
            break
        prev, candidate = pair
        pending.remove(prev)
        pending.remove(candidate)
        for b in _replacement(prev, candidate):
            pending.add(b)
    final.extend(pending.items)
    return final


def _first_mergeable_pair(pending: _SortedBatches,
                          final: list[StateBatch]) -> tuple[StateBatch, StateBatch] | None:
    """The first pair in order that overlaps or touches with equal (count, state); every batch
    before it moves to ``final``. None (and every batch but the last moved) when there is none."""
    items = pending.items
    if not items:
        return None
    passed = 0
    found = None
    for i in range(1, len(items)):
        prev, candidate = items[i - 1], items[i]
        if candidate.first_offset <= prev.last_offset or (
                prev.last_offset + 1 == candidate.first_offset and _priority(prev, candidate) == 0):
            found = (prev, candidate)
            break
        passed = i
    moved = items[:passed]
    for b in moved:
        pending.remove(b)
    final.extend(moved)
    return found


def _replacement(prev: StateBatch, candidate: StateBatch) -> list[StateBatch]:
    """What a mergeable pair becomes (``prev`` sorts first)."""
    if _priority(candidate, prev) == 0:
        # Same count and state, overlapping or touching: one batch over both.
        return [_cut(prev.first_offset, max(prev.last_offset, candidate.last_offset), prev)]
    # Different count or state: they overlap (touching ones are not a pair).
    if candidate.first_offset == prev.first_offset:
        if candidate.last_offset == prev.last_offset:
            return [candidate]  # sorted after prev, so its (count, state) is the higher
        # candidate is the longer one
        if _priority(candidate, prev) < 0:
            return [prev, _cut(prev.last_offset + 1, candidate.last_offset, candidate)]
        return [candidate]
    if candidate.last_offset < prev.last_offset:  # prev holds candidate inside it
        if _priority(candidate, prev) < 0:
            return [prev]
        return [_cut(prev.first_offset, candidate.first_offset - 1, prev), candidate,
                _cut(candidate.last_offset + 1, prev.last_offset, prev)]
    if candidate.last_offset == prev.last_offset:
        if _priority(candidate, prev) < 0:
            return [prev]
        return [_cut(prev.first_offset, candidate.first_offset - 1, prev), candidate]
    # candidate runs past prev
    if _priority(candidate, prev) < 0:
        return [prev, _cut(prev.last_offset + 1, candidate.last_offset, candidate)]
    return [_cut(prev.first_offset, candidate.first_offset - 1, prev), candidate]


# -- a write onto stored batches, at a cost that follows the write ------------------------------


class StoredBatches(tuple[StateBatch, ...]):
    """A key's combined batches, knowing whether they are *clean*: sorted, disjoint, and no two
    neighbours touching with the same (count, state).

    Why: Kafka's combiner runs over all of a key's batches on every write, so a key holding n
    batches costs O(n) a write and n single-offset acknowledgements O(n^2). Onto clean batches a
    write changes only the batches it overlaps or touches, and :func:`combine_stored` redoes only
    those, giving exactly what the whole run gives. The combiner's own answer is not always clean
    (a batch passed over early is never merged with a piece cut later:
    ``combined_batches_may_touch_with_equal_state``); such a key takes the whole run until a write
    leaves it clean again.
    """

    clean: bool

    def __new__(cls, batches: Iterable[StateBatch], clean: bool) -> StoredBatches:
        made = super().__new__(cls, batches)
        made.clean = clean
        return made


def _mergeable(a: StateBatch, b: StateBatch) -> bool:
    """The pair the combiner would take next (``a`` sorts first)."""
    return b.first_offset <= a.last_offset or (a.last_offset + 1 == b.first_offset and _priority(a, b) == 0)


def _clean(batches: Sequence[StateBatch]) -> bool:
    return not any(_mergeable(a, b) for a, b in pairwise(batches))


def combine_stored(stored: Sequence[StateBatch], new: list[StateBatch], start: int) -> StoredBatches:
    """``combine_state_batches(stored, new, start)``, redoing only the batches the write can reach
    when ``stored`` is known clean.

    Onto clean batches, the combiner passes every batch that ends before the write's first offset
    less one unchanged, and every batch that starts after its last offset plus one: the first are
    not mergeable with anything after them, and the write's pieces never reach the second (a piece
    of a new batch ends by the write's last offset; a piece of a stored one keeps that batch's count
    and state, which its clean neighbour did not merge with). So only the window between is combined.
    """
    if not (isinstance(stored, StoredBatches) and stored.clean):
        combined = combine_state_batches(list(stored), new, start)
        return StoredBatches(combined, _clean(combined))
    kept: tuple[StateBatch, ...] = stored
    if start != UNINITIALIZED_START_OFFSET:
        below = bisect_left(kept, start, key=lambda b: b.last_offset)
        kept = kept[below:]
        if kept and kept[0].first_offset < start:
            kept = (_cut(start, kept[0].last_offset, kept[0]), *kept[1:])
    fresh = _pruned(new, start)
    if not fresh:
        return StoredBatches(kept, True)
    low = min(b.first_offset for b in fresh)
    high = max(b.last_offset for b in fresh)
    i = bisect_left(kept, low - 1, key=lambda b: b.last_offset)
    j = bisect_right(kept, high + 1, key=lambda b: b.first_offset)
    middle = combine_state_batches(list(kept[i:j]), fresh, start)
    # The joins stay clean: the batch before the window ends short of the write's first offset
    # less one, and the window's first piece is either a new batch's (after that) or a piece of
    # the first stored batch in the window (its count and state, its first offset). Likewise at
    # the other end. So only the window's batches are looked at.
    return StoredBatches((*kept[:i], *middle, *kept[j:]), _clean(middle))

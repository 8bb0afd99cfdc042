"""The share-group state persister: the interface a share partition writes through, and two makers.

Kafka's ``Persister`` sends ReadShareGroupState / WriteShareGroupState to the share coordinator,
which keeps each share partition's state: its start offset, state epoch, leader epoch and state
batches. :class:`InMemoryPersister` is that coordinator's state for one share partition, with
its fencing rules (``ShareCoordinatorShard``) and its batch combining
(``PersisterStateBatchCombiner``: a newer batch overrides older ones where they overlap, nothing
below the start offset is kept, neighbours with the same state and count merge).
:class:`FaultInjectingPersister` wraps another and answers with a chosen error instead.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Protocol

from groupspec.types.errors import Errors
from groupspec.types.share_partition import PersistedState, PersisterBatch, StateWrite


@dataclass(frozen=True)
class ReadResult:
    error: Errors
    state: PersistedState = field(default_factory=PersistedState)


class Persister(Protocol):
    def read_state(self, leader_epoch: int) -> ReadResult: ...

    def write_state(self, write: StateWrite) -> Errors: ...


def _overlay(old: list[PersisterBatch], new: list[PersisterBatch]) -> list[PersisterBatch]:
    """Both sorted and non-overlapping; ``new`` wins where they overlap. One sweep, then a sort."""
    result: list[PersisterBatch] = []
    j = 0
    for o in old:
        first = o.first_offset
        while j < len(new) and new[j].last_offset < first:
            j += 1
        k = j
        while k < len(new) and new[k].first_offset <= o.last_offset:
            n = new[k]
            if n.first_offset > first:
                result.append(PersisterBatch(first, n.first_offset - 1, o.delivery_state, o.delivery_count))
            first = max(first, n.last_offset + 1)
            k += 1
        if first <= o.last_offset:
            result.append(o if first == o.first_offset
                          else PersisterBatch(first, o.last_offset, o.delivery_state, o.delivery_count))
    result.extend(new)
    result.sort(key=lambda b: b.first_offset)
    return result


def _resolve(newer: tuple[PersisterBatch, ...]) -> list[PersisterBatch]:
    """A write's batches as sorted disjoint ranges, a later batch overriding an earlier one."""
    if all(a.last_offset < b.first_offset for a, b in pairwise(newer)):
        return list(newer)
    resolved: list[PersisterBatch] = []
    for b in newer:
        resolved = _overlay(resolved, [b])
    return resolved


def _same(a: PersisterBatch, b: PersisterBatch) -> bool:
    return (a.last_offset + 1 == b.first_offset
            and (a.delivery_state, a.delivery_count) == (b.delivery_state, b.delivery_count))


def combine(batches: list[PersisterBatch], newer: tuple[PersisterBatch, ...],
            start_offset: int) -> list[PersisterBatch]:
    """The stored batches after a write: sorted, non-overlapping, trimmed, neighbours merged.

    Like the share coordinator's PersisterStateBatchCombiner, a later batch overrides an earlier
    one. A share partition's write lists disjoint ranges in offset order, which is the fast path;
    anything else is laid down one batch at a time. ``batches`` may be in any shape (a persisted
    state given to a constructor); :func:`apply_write` is the same for a store already combined.
    """
    out = _overlay(batches, _resolve(newer))
    kept: list[PersisterBatch] = []
    for b in out:
        if b.last_offset < start_offset:
            continue
        if b.first_offset < start_offset:
            b = PersisterBatch(start_offset, b.last_offset, b.delivery_state, b.delivery_count)
        if kept and _same(kept[-1], b):
            head = kept[-1]
            kept[-1] = PersisterBatch(head.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
        else:
            kept.append(b)
    return kept


def apply_write(stored: list[PersisterBatch], newer: tuple[PersisterBatch, ...], start_offset: int) -> None:
    """``stored = combine(stored, newer, start_offset)`` in place, for a ``stored`` that is
    already combined (sorted, disjoint, trimmed, neighbours merged).

    Only the stored batches the write overlaps or touches can change, so only they are redone:
    the cost follows the write, not the store (a store of n runs took O(n) a write, so n
    single-offset acknowledgements took O(n^2)). Merging before trimming gives the same batches
    as the other order: trimming only drops a prefix and shortens the first batch kept.
    """
    resolved = _resolve(newer)
    if resolved:
        low, high = resolved[0].first_offset - 1, resolved[-1].last_offset + 1
        i = bisect_left(stored, low, key=lambda b: b.last_offset)
        j = bisect_right(stored, high, key=lambda b: b.first_offset)
        merged: list[PersisterBatch] = []
        for b in _overlay(stored[i:j], resolved):
            if merged and _same(merged[-1], b):
                merged[-1] = PersisterBatch(merged[-1].first_offset, b.last_offset, b.delivery_state,
                                            b.delivery_count)
            else:
                merged.append(b)
        stored[i:j] = merged
    below = bisect_left(stored, start_offset, key=lambda b: b.last_offset)
    del stored[:below]
    if stored and stored[0].first_offset < start_offset:
        b = stored[0]
        stored[0] = PersisterBatch(start_offset, b.last_offset, b.delivery_state, b.delivery_count)


class InMemoryPersister:
    """One share partition's state as the share coordinator holds it."""

    def __init__(self, state: PersistedState = PersistedState(), leader_epoch: int = -1) -> None:  # noqa: B008
        self.state_epoch = state.state_epoch
        self.start_offset = state.start_offset
        self.leader_epoch = leader_epoch
        self.batches: list[PersisterBatch] = combine([], state.batches, state.start_offset)
        #: Every write asked of the store, with the answer it got, until its owner clears it
        #: (SharePartitionMachine reports and clears them each step).
        self.writes: list[StateWrite] = []

    def read_state(self, leader_epoch: int) -> ReadResult:
        if self.leader_epoch > leader_epoch:
            return ReadResult(Errors.FENCED_LEADER_EPOCH)
        # A read by a newer leader raises the stored epoch, fencing the older one's writes.
        self.leader_epoch = max(self.leader_epoch, leader_epoch)
        state = PersistedState(self.state_epoch, self.start_offset, tuple(self.batches))
        return ReadResult(Errors.NONE, state)

    def fencing_error(self, write: StateWrite) -> Errors:
        if write.leader_epoch != -1 and self.leader_epoch > write.leader_epoch:
            return Errors.FENCED_LEADER_EPOCH
        if write.state_epoch != -1 and self.state_epoch > write.state_epoch:
            return Errors.FENCED_STATE_EPOCH
        return Errors.NONE

    def write_state(self, write: StateWrite) -> Errors:
        error = self.fencing_error(write)
        self.writes.append(StateWrite(write.start_offset, write.state_epoch, write.leader_epoch,
                                      write.batches, error))
        if error is Errors.NONE:
            self.start_offset = write.start_offset
            apply_write(self.batches, write.batches, write.start_offset)
        return error

    def fence_leader(self, leader_epoch: int) -> None:
        """Another leader read the state."""
        self.leader_epoch = max(self.leader_epoch, leader_epoch) + 1

    def initialize(self, start_offset: int) -> None:
        """InitializeShareGroupState: a new state epoch, start offset, no batches."""
        self.state_epoch += 1
        self.start_offset = start_offset
        self.batches = []


class FaultInjectingPersister:
    """Answers with ``error`` (unless NONE) instead of reaching the wrapped persister."""

    def __init__(self, inner: InMemoryPersister) -> None:
        self.inner = inner
        self.error = Errors.NONE

    def read_state(self, leader_epoch: int) -> ReadResult:
        if self.error is not Errors.NONE:
            return ReadResult(self.error)
        return self.inner.read_state(leader_epoch)

    def write_state(self, write: StateWrite) -> Errors:
        if self.error is not Errors.NONE:
            self.inner.writes.append(StateWrite(write.start_offset, write.state_epoch, write.leader_epoch,
                                                write.batches, self.error))
            return self.error
        return self.inner.write_state(write)

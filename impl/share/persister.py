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


def combine(batches: list[PersisterBatch], newer: tuple[PersisterBatch, ...],
            start_offset: int) -> list[PersisterBatch]:
    """The stored batches after a write: sorted, non-overlapping, trimmed, neighbours merged.

    Like the share coordinator's PersisterStateBatchCombiner, a later batch overrides an earlier
    one. A share partition's write lists disjoint ranges in offset order, which is the fast path;
    anything else is laid down one batch at a time.
    """
    if all(a.last_offset < b.first_offset for a, b in pairwise(newer)):
        resolved = list(newer)
    else:
        resolved = []
        for b in newer:
            resolved = _overlay(resolved, [b])
    out = _overlay(batches, resolved)
    kept: list[PersisterBatch] = []
    for b in out:
        if b.last_offset < start_offset:
            continue
        if b.first_offset < start_offset:
            b = PersisterBatch(start_offset, b.last_offset, b.delivery_state, b.delivery_count)
        last = kept[-1] if kept else None
        if (last is not None and last.last_offset + 1 == b.first_offset
                and (last.delivery_state, last.delivery_count) == (b.delivery_state, b.delivery_count)):
            kept[-1] = PersisterBatch(last.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
        else:
            kept.append(b)
    return kept


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
            self.batches = combine(self.batches, write.batches, write.start_offset)
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

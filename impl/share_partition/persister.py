"""What a share partition writes through, and a wrapper that makes it fail.

Kafka's ``Persister`` carries ReadShareGroupState / WriteShareGroupState to the share
coordinator. groupspec's share partition asks the same two questions of any :class:`Persister`;
the one it runs with is the share coordinator itself (``groupspec.impl.share_partition.store``:
the state the share group initialized, with the coordinator's fencing, batch combining and
records). :class:`FaultInjectingPersister` answers with a chosen error instead, as a coordinator
that is unavailable or loading does.
"""

from __future__ import annotations

from typing import Protocol

from groupspec.types.errors import Errors
from groupspec.types.share_partition import ReadResult, StateWrite

__all__ = ["FaultInjectingPersister", "Persister", "ReadResult", "Store"]


class Persister(Protocol):
    def read_state(self, leader_epoch: int) -> ReadResult: ...

    def write_state(self, write: StateWrite) -> Errors: ...


class Store(Persister, Protocol):
    #: Every write asked, with the answer it got, until the owner clears the list.
    writes: list[StateWrite]


class FaultInjectingPersister:
    """Answers with ``error`` (unless NONE) instead of reaching the wrapped store; a refused
    write is still listed with its error, as the partition sent it."""

    def __init__(self, inner: Store) -> None:
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

"""The share-state persister's side of InitializeShareGroupState, in memory.

The coordinator does not wait for the persister: a heartbeat's output lists the
:class:`InitializeRequest` it issued, and a :class:`PersisterAnswer` event brings the outcome
back. Anything that answers those requests can stand behind the coordinator; this is the one
groupspec uses (the simulation, tests), with the share coordinator's rules for one partition
(``ShareCoordinatorShard#initializeState``, share_group_coordinator.md §3.5): a partition below
0 is INVALID_REQUEST, a state epoch below the stored one FENCED_STATE_EPOCH, a topic or
partition the metadata does not have UNKNOWN_TOPIC_OR_PARTITION; otherwise a fresh snapshot
(start offset -1, no batches, the request's state epoch). One failed partition fails the
request (the coordinator then un-initializes all of it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from groupspec.types.errors import Errors
from groupspec.types.share_group import InitializeRequest


class ShareStatePersister(Protocol):
    def initialize(self, request: InitializeRequest) -> Errors: ...


@dataclass(frozen=True)
class ShareSnapshot:
    snapshot_epoch: int
    state_epoch: int
    start_offset: int = -1


class InMemoryShareStatePersister:
    """``partitions_of(topic_id)`` is the share coordinator's metadata: a topic's partition
    count, or None for a topic it does not know."""

    def __init__(self, partitions_of: Callable[[str], int | None]) -> None:
        self._partitions_of = partitions_of
        self.snapshots: dict[tuple[str, str, int], ShareSnapshot] = {}

    def _check(self, group_id: str, topic_id: str, partition: int, state_epoch: int) -> Errors:
        if partition < 0:
            return Errors.INVALID_REQUEST
        stored = self.snapshots.get((group_id, topic_id, partition))
        if state_epoch != -1 and stored is not None and state_epoch < stored.state_epoch:
            return Errors.FENCED_STATE_EPOCH
        count = self._partitions_of(topic_id)
        if count is None or partition >= count:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        return Errors.NONE

    def initialize(self, request: InitializeRequest) -> Errors:
        first_error = Errors.NONE
        for tp in request.topics:
            for partition in tp.partitions:
                error = self._check(request.group_id, tp.topic_id, partition, request.state_epoch)
                if error is not Errors.NONE:
                    first_error = first_error if first_error is not Errors.NONE else error
                    continue
                key = (request.group_id, tp.topic_id, partition)
                previous = self.snapshots.get(key)
                self.snapshots[key] = ShareSnapshot(previous.snapshot_epoch + 1 if previous else 0,
                                                    request.state_epoch)
        return first_error



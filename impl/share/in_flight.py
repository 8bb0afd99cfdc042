"""In-flight records: Kafka's ``InFlightState`` and ``InFlightBatch``.

A batch holds one ``InFlightState`` for its whole range until something touches part of it;
then it is split into one state per offset and stays split until it leaves the cache. So a
consumer that acknowledges whole batches costs one object per batch, however large.

State changes go through four primitives, as in Kafka: ``try_update_state`` (acquire, lock
expiry: final at once), ``start_state_transition`` / ``complete_state_transition`` (acknowledge
and release: final only when the persister answers; until then the record is *pending* and
locked against every other change) and ``archive``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from groupspec.types.share_partition import EMPTY_MEMBER_ID, RecordState

AVAILABLE, ACQUIRED = RecordState.AVAILABLE, RecordState.ACQUIRED
ACKNOWLEDGED, ARCHIVED = RecordState.ACKNOWLEDGED, RecordState.ARCHIVED

#: RecordState#validateTransition: where each state may go.
_ALLOWED = {
    AVAILABLE: frozenset({ACQUIRED}),
    ACQUIRED: frozenset({AVAILABLE, ACKNOWLEDGED, ARCHIVED}),
    ACKNOWLEDGED: frozenset(),
    ARCHIVED: frozenset(),
}


class DeliveryCountOps:
    INCREASE = 1
    NO_OP = 0


@dataclass(slots=True)
class LockTimer:
    """An acquisition lock: the timer queue key and what it covers."""

    key: str
    first_offset: int
    last_offset: int


@dataclass(slots=True)
class _Rollback:
    state: RecordState
    delivery_count: int
    member_id: str


class InFlightState:
    __slots__ = ("delivery_count", "member_id", "rollback", "state", "timer")

    def __init__(self, state: RecordState, delivery_count: int, member_id: str = EMPTY_MEMBER_ID,
                 timer: LockTimer | None = None) -> None:
        self.state = state
        self.delivery_count = delivery_count
        self.member_id = member_id
        self.timer = timer
        self.rollback: _Rollback | None = None

    def copy(self) -> InFlightState:
        return InFlightState(self.state, self.delivery_count, self.member_id, self.timer)

    def pending(self) -> bool:
        return self.rollback is not None

    def try_update_state(self, new_state: RecordState, ops: int, max_delivery: int,
                         member_id: str) -> InFlightState | None:
        """None when refused (pending, or a transition RecordState forbids)."""
        if self.rollback is not None:
            return None
        if new_state == AVAILABLE and self.delivery_count >= max_delivery:
            new_state = ARCHIVED
        if new_state not in _ALLOWED[self.state]:
            return None
        if new_state != ARCHIVED:
            self.delivery_count += ops
        self.state = new_state
        self.member_id = member_id
        return self

    def start_state_transition(self, new_state: RecordState, max_delivery: int) -> InFlightState | None:
        snapshot = _Rollback(self.state, self.delivery_count, self.member_id)
        if self.try_update_state(new_state, DeliveryCountOps.NO_OP, max_delivery, EMPTY_MEMBER_ID) is None:
            return None
        self.rollback = snapshot
        return self

    def complete_state_transition(self, commit: bool, cancel: Callable[[LockTimer], None]) -> None:
        rollback, self.rollback = self.rollback, None
        if commit:
            if self.timer is not None:
                cancel(self.timer)
                self.timer = None
            return
        # The persister refused: the record is as before, its lock still running.
        assert rollback is not None
        self.state, self.delivery_count, self.member_id = (rollback.state, rollback.delivery_count,
                                                           rollback.member_id)

    def archive(self, cancel: Callable[[LockTimer], None]) -> None:
        if self.timer is not None:
            cancel(self.timer)
            self.timer = None
        self.state = ARCHIVED
        self.member_id = EMPTY_MEMBER_ID


class InFlightBatch:
    __slots__ = ("batch_state", "finished_to", "first_offset", "last_offset", "offset_state")

    def __init__(self, first_offset: int, last_offset: int, state: InFlightState) -> None:
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.batch_state: InFlightState | None = state
        self.offset_state: dict[int, InFlightState] | None = None
        #: Once split: every offset below this one is terminal with nothing pending. A terminal
        #: record never changes again, so the start-offset scan resumes here instead of at the
        #: first offset (one acknowledgement per record would otherwise cost O(batch size) each).
        self.finished_to = first_offset

    @property
    def split(self) -> bool:
        return self.offset_state is not None

    def size(self) -> int:
        return self.last_offset - self.first_offset + 1

    def whole(self) -> InFlightState:
        assert self.batch_state is not None, "a split batch has no batch state"
        return self.batch_state

    def offsets(self) -> dict[int, InFlightState]:
        assert self.offset_state is not None, "an unsplit batch has no per-offset state"
        return self.offset_state

    def states(self) -> Iterator[tuple[int, InFlightState]]:
        """(offset, state) for every offset, whether split or not (the batch state repeats)."""
        if self.offset_state is not None:
            yield from self.offset_state.items()
            return
        assert self.batch_state is not None
        for offset in range(self.first_offset, self.last_offset + 1):
            yield offset, self.batch_state

    def split_offsets(self, reschedule: Callable[[int, int], LockTimer],
                      cancel: Callable[[LockTimer], None]) -> None:
        """maybeInitializeOffsetStateUpdate: one state per offset; a running lock becomes one per offset."""
        if self.offset_state is not None:
            return
        whole = self.whole()
        timer = whole.timer
        states: dict[int, InFlightState] = {}
        for offset in range(self.first_offset, self.last_offset + 1):
            state = InFlightState(whole.state, whole.delivery_count, whole.member_id)
            if timer is not None:
                state.timer = reschedule(offset, offset)
            states[offset] = state
        if timer is not None:
            cancel(timer)
        self.offset_state = states
        self.batch_state = None

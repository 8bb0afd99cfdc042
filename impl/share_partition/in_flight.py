"""In-flight records: Kafka's ``InFlightState`` and ``InFlightBatch``.

A batch holds one ``InFlightState`` for its whole range until something touches part of it;
then it is split and keeps per-offset state until it leaves the cache. Kafka then keeps one
state per offset; here a split batch keeps a sorted list of *runs*, consecutive offsets with one
shared state, cut only where offsets come to differ. Every answer, write and view is the one
per-offset state would give, but memory and time follow the number of runs, not the batch's
width (one acknowledgement inside a batch of 10**15 offsets leaves three runs).

State changes go through four primitives, as in Kafka: ``try_update_state`` (acquire, lock
expiry: final at once), ``start_state_transition`` / ``complete_state_transition`` (acknowledge
and release: final only when the persister answers; until then the record is *pending* and
locked against every other change) and ``archive``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
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
    """An acquisition lock: the timer queue key and what it covers.

    ``per_offset`` marks a lock that stands for one lock per offset of its range, all armed at
    once with the same deadline (Kafka's per-offset timer tasks of a split batch). Their queue
    positions would be consecutive, so firing them one after another in offset order is what
    Kafka does; an offset whose state no longer holds this lock is skipped (its own lock was
    cancelled or replaced).
    """

    key: str
    first_offset: int
    last_offset: int
    per_offset: bool = False


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
        """The same state for other offsets (a run cut in two): lock and pending change included."""
        twin = InFlightState(self.state, self.delivery_count, self.member_id, self.timer)
        if self.rollback is not None:
            r = self.rollback
            twin.rollback = _Rollback(r.state, r.delivery_count, r.member_id)
        return twin

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


class Run:
    """Consecutive offsets of a split batch that share one state (and so one lock, if any)."""

    __slots__ = ("first", "last", "state")

    def __init__(self, first: int, last: int, state: InFlightState) -> None:
        self.first = first
        self.last = last
        self.state = state

    def offsets(self) -> range:
        return range(self.first, self.last + 1)


class InFlightBatch:
    __slots__ = ("batch_state", "finished_to", "first_offset", "last_offset", "run_firsts", "runs")

    def __init__(self, first_offset: int, last_offset: int, state: InFlightState) -> None:
        self.first_offset = first_offset
        self.last_offset = last_offset
        self.batch_state: InFlightState | None = state
        #: Once split: the per-offset states as runs of equal state, sorted, tiling the batch.
        self.runs: list[Run] | None = None
        self.run_firsts: list[int] = []
        #: Once split: every offset below this one is terminal with nothing pending. A terminal
        #: record never changes again, so the start-offset scan resumes here instead of at the
        #: first offset (one acknowledgement per record would otherwise cost O(batch size) each).
        self.finished_to = first_offset

    @property
    def split(self) -> bool:
        return self.runs is not None

    def size(self) -> int:
        return self.last_offset - self.first_offset + 1

    def whole(self) -> InFlightState:
        assert self.batch_state is not None, "a split batch has no batch state"
        return self.batch_state

    def all_runs(self) -> list[Run]:
        assert self.runs is not None, "an unsplit batch has no runs"
        return self.runs

    def run_at(self, offset: int) -> Run:
        runs = self.all_runs()
        return runs[bisect_right(self.run_firsts, offset) - 1]

    def runs_between(self, low: int, high: int) -> list[Run]:
        """The runs holding any offset of [low, high] (clamped to the batch), ascending."""
        runs = self.all_runs()
        low, high = max(low, self.first_offset), min(high, self.last_offset)
        if low > high:
            return []
        return runs[bisect_right(self.run_firsts, low) - 1:bisect_right(self.run_firsts, high)]

    def isolate(self, low: int, high: int,
                on_copy: Callable[[InFlightState, InFlightState], None]) -> list[Run]:
        """The runs covering exactly [low, high] (clamped): runs crossing either end are cut there.

        Each cut gives the new piece a copy of the state; ``on_copy`` hears of it, so a call
        holding the state pending can settle the copy too.
        """
        low, high = max(low, self.first_offset), min(high, self.last_offset)
        if low > high:
            return []
        self._cut(low, on_copy)
        self._cut(high + 1, on_copy)
        runs = self.all_runs()
        return runs[bisect_left(self.run_firsts, low):bisect_right(self.run_firsts, high)]

    def _cut(self, at: int, on_copy: Callable[[InFlightState, InFlightState], None]) -> None:
        """Make ``at`` the first offset of a run (nothing to do at the batch's ends)."""
        if at <= self.first_offset or at > self.last_offset:
            return
        runs = self.all_runs()
        i = bisect_right(self.run_firsts, at) - 1
        run = runs[i]
        if run.first == at:
            return
        piece = Run(at, run.last, run.state.copy())
        on_copy(run.state, piece.state)
        run.last = at - 1
        runs.insert(i + 1, piece)
        self.run_firsts.insert(i + 1, at)

    def split_offsets(self, reschedule: Callable[[int, int], LockTimer],
                      cancel: Callable[[LockTimer], None]) -> None:
        """maybeInitializeOffsetStateUpdate: per-offset state from now on, kept as runs.

        Kafka gives every offset its own lock here; one per-offset lock over the whole range
        stands for them all (it fires offset by offset, see ``LockTimer.per_offset``).
        """
        if self.runs is not None:
            return
        whole = self.whole()
        timer = whole.timer
        state = InFlightState(whole.state, whole.delivery_count, whole.member_id)
        if timer is not None:
            state.timer = reschedule(self.first_offset, self.last_offset)
            cancel(timer)
        self.runs = [Run(self.first_offset, self.last_offset, state)]
        self.run_firsts = [self.first_offset]
        self.batch_state = None

"""Keyed timers on an injected clock, fired in a deterministic order.

Kafka's coordinators name their timers (``heartbeat-<group>-<member>``, ``join-<group>``,
``sync-<group>``); scheduling a name that is already armed replaces the old timer, and a callback
looks its group up again, so a timer whose group is gone does nothing. groupspec keeps those
rules. The order in which due timers fire is part of the observable behaviour (a member expiring
before or after a join timeout changes the generation), so it is fixed here: by deadline, then by
the order in which the timers were scheduled. Kafka's MockCoordinatorTimer fires by deadline from
a PriorityQueue, which leaves ties unordered; the tie rule is groupspec's (docs/divergences.md).

A callback runs with the clock already at the advanced time, so a timer re-armed from inside a
callback is relative to that time; one that is already due by then fires in the same advance
(coordinator-common/.../MockCoordinatorTimer.java polls until the head is in the future).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from groupspec.impl.runtime.clock import ManualClock
from groupspec.types import InputError

T = TypeVar("T")


@dataclass(order=True)
class _Entry(Generic[T]):
    deadline: int
    seq: int
    key: str = field(compare=False)
    payload: T = field(compare=False)
    live: bool = field(default=True, compare=False)


@dataclass(frozen=True)
class Fired(Generic[T]):
    """One timer that came due: its name, deadline and what it was scheduled with."""

    key: str
    deadline: int
    payload: T


class TimerQueue(Generic[T]):
    """Named timers holding a payload (typically the operation to run when they fire).

    Cancelled and replaced entries stay in the heap, marked dead, and are dropped when they reach
    the top: O(log n) schedule, cancel and fire without searching the heap.
    """

    def __init__(self, clock: ManualClock) -> None:
        self._clock = clock
        self._heap: list[_Entry[T]] = []
        self._armed: dict[str, _Entry[T]] = {}
        self._seq = itertools.count()

    def schedule(self, key: str, delay_ms: int, payload: T) -> None:
        """Arm ``key`` to fire ``delay_ms`` from now, replacing any timer of that name."""
        if delay_ms < 0:
            raise InputError("delay_ms", f"a timer cannot fire in the past (delay {delay_ms})")
        self.cancel(key)
        entry = _Entry(self._clock.now() + delay_ms, next(self._seq), key, payload)
        self._armed[key] = entry
        heapq.heappush(self._heap, entry)

    def cancel(self, key: str) -> bool:
        entry = self._armed.pop(key, None)
        if entry is None:
            return False
        entry.live = False
        return True

    def is_scheduled(self, key: str) -> bool:
        return key in self._armed

    def deadline(self, key: str) -> int | None:
        entry = self._armed.get(key)
        return None if entry is None else entry.deadline

    def __len__(self) -> int:
        return len(self._armed)

    def armed(self) -> dict[str, int]:
        """Every armed timer and its deadline (a copy), for state comparison and snapshots."""
        return {key: entry.deadline for key, entry in self._armed.items()}

    def next_deadline(self) -> int | None:
        self._drop_dead()
        return self._heap[0].deadline if self._heap else None

    def pop_due(self) -> Fired[T] | None:
        """The next timer due at the clock's current time, disarmed, or None."""
        self._drop_dead()
        if not self._heap or self._heap[0].deadline > self._clock.now():
            return None
        entry = heapq.heappop(self._heap)
        del self._armed[entry.key]
        return Fired(entry.key, entry.deadline, entry.payload)

    def advance(self, to_ms: int, run: Callable[[Fired[T]], None]) -> int:
        """Move the clock to ``to_ms`` and run every timer that comes due, in order.

        Kafka's test timer moves the clock first and then fires everything due, so every
        callback sees ``to_ms``, not its own deadline; groupspec keeps that rule (a Python
        model stepping deadline by deadline would re-arm timers at different times).
        Returns how many fired.
        """
        self._clock.advance_to(to_ms)
        fired = 0
        while (due := self.pop_due()) is not None:
            run(due)
            fired += 1
        return fired

    def _drop_dead(self) -> None:
        heap = self._heap
        while heap and not heap[0].live:
            heapq.heappop(heap)

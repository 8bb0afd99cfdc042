"""Injected time.

Nothing in groupspec's coordinators reads the wall clock: a test, a conformance vector or a
Spark fuzz run decides when time passes, so every run is repeatable and a timeout fires exactly
when the clock is advanced past it.
"""

from __future__ import annotations

from groupspec.types import InputError


class ManualClock:
    """Milliseconds since an arbitrary epoch; moves only when told to, and never backwards."""

    __slots__ = ("_now",)

    def __init__(self, start_ms: int = 0) -> None:
        if start_ms < 0:
            raise InputError("start_ms", f"a clock cannot start before 0 (got {start_ms})")
        self._now = start_ms

    def now(self) -> int:
        return self._now

    def advance_to(self, when_ms: int) -> None:
        if when_ms < self._now:
            raise InputError("when_ms", f"time cannot go back from {self._now} to {when_ms}")
        self._now = when_ms

    def advance_by(self, delta_ms: int) -> None:
        if delta_ms < 0:
            raise InputError("delta_ms", f"time cannot go back (advance by {delta_ms})")
        self._now += delta_ms

"""Timers on the injected clock: replacement, cancellation, deterministic firing order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.partitioning import java_string_hash, partition_for
from groupspec.impl.runtime.timer import Fired, TimerQueue
from groupspec.types import InputError


def _queue() -> tuple[ManualClock, TimerQueue[str]]:
    clock = ManualClock()
    return clock, TimerQueue(clock)


def test_due_timers_fire_by_deadline_then_scheduling_order():
    clock, timers = _queue()
    timers.schedule("b", 10, "b")
    timers.schedule("a", 5, "a")
    timers.schedule("c", 10, "c")
    seen: list[tuple[str, int]] = []
    assert timers.advance(9, lambda f: seen.append((f.key, clock.now()))) == 1
    assert timers.advance(10, lambda f: seen.append((f.key, clock.now()))) == 2
    assert seen == [("a", 9), ("b", 10), ("c", 10)]
    assert len(timers) == 0


def test_rescheduling_a_key_replaces_the_timer():
    _, timers = _queue()
    timers.schedule("heartbeat-g-m", 100, "first")
    timers.schedule("heartbeat-g-m", 300, "second")
    fired: list[Fired[str]] = []
    timers.advance(299, fired.append)
    assert fired == []
    timers.advance(300, fired.append)
    assert [(f.payload, f.deadline) for f in fired] == [("second", 300)]


def test_cancel_and_introspection():
    _, timers = _queue()
    timers.schedule("join-g", 50, "x")
    assert timers.is_scheduled("join-g") and timers.deadline("join-g") == 50
    assert timers.cancel("join-g") and not timers.cancel("join-g")
    assert timers.next_deadline() is None
    assert timers.advance(1000, lambda f: pytest.fail("a cancelled timer fired")) == 0


def test_callbacks_see_the_advanced_clock_and_rearmed_due_timers_fire_in_the_same_advance():
    clock, timers = _queue()
    timers.schedule("t", 10, "chain")
    seen: list[int] = []

    def run(f: Fired[str]) -> None:
        seen.append(clock.now())
        if len(seen) < 3:
            timers.schedule("t", 0, "chain")  # due immediately: fires in this same advance

    timers.advance(25, run)
    assert seen == [25, 25, 25]


def test_time_never_goes_back():
    clock, timers = _queue()
    timers.advance(10, lambda f: None)
    with pytest.raises(InputError):
        clock.advance_to(5)
    with pytest.raises(InputError):
        timers.schedule("x", -1, "x")


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 50), st.booleans()), max_size=40),
       st.integers(0, 60))
def test_fires_exactly_the_live_due_timers_in_order(ops, horizon):
    clock, timers = _queue()
    model: dict[str, tuple[int, int]] = {}
    for seq, (key, delay, cancel) in enumerate(ops):
        if cancel:
            timers.cancel(key)
            model.pop(key, None)
        else:
            timers.schedule(key, delay, key)
            model[key] = (delay, seq)
    fired: list[str] = []
    timers.advance(horizon, lambda f: fired.append(f.key))
    expected = [k for k, (d, s) in sorted(model.items(), key=lambda kv: kv[1]) if d <= horizon]
    assert fired == expected
    assert timers.armed() == {k: d for k, (d, _) in model.items() if d > horizon}
    assert clock.now() == horizon


def test_partition_for_matches_kafka():
    assert java_string_hash("testgroup") == -1172783827
    assert partition_for("testgroup") == 27  # seed 002
    for name in ("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"):
        assert java_string_hash(name) == -(1 << 31)
        assert partition_for(name) == 0  # Utils.abs(MIN_VALUE) == 0, not -48 or 48
    assert java_string_hash("😀") == 31 * 0xD83D + 0xDE00  # UTF-16 surrogates, not a code point
    with pytest.raises(InputError):
        partition_for("g", 0)

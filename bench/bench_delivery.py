"""End-to-end simulated deliveries per second, next to the share partitions driven directly.

The simulation (groupspec.delivery_simulation) runs S seeds with its default world (4 share
consumers, 3 partitions, 60 produced batches, 5% loss, 2 broker crash-restarts, a quiet phase to
the end). Its figure is records handed out by the broker (the history's poll ok items) per
second of wall time, and the checker's time on the same histories separately.

The peer, in the same process: every event the simulation's broker gave its share partition
machines (Fetch, Acknowledge, ReleaseMember, AdvanceClock, Reload) and every restart of its share
coordinator, recorded, then replayed in order on a fresh broker: the same acquisitions and
writes through the same share coordinator, without consumers, network, event queue or history.
The ratio says what the end-to-end machinery costs on top of the share partitions.

    .venv/bin/python bench/bench_delivery.py              # 20 seeds
    .venv/bin/python bench/bench_delivery.py --seeds 5    # quick
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

from groupspec.delivery_simulation import Broker, DeliverySimConfig, DeliverySimulation
from groupspec.share_delivery_check import check
from groupspec.types import share_state as ss


def recorded_run(seed: int) -> tuple[int, float, float, list[Any]]:
    """Deliveries, seconds simulating, seconds checking, and the broker's machine events."""
    config = DeliverySimConfig(seed=seed)
    sim = DeliverySimulation(config)
    events: list[Any] = []
    for p, m in sim.broker.machines.items():
        def recording(event: Any, index: int, _p: Any = p, _handle: Any = m.handle) -> Any:
            events.append((_p, event))
            return _handle(event, index)
        m.handle = recording  # type: ignore[method-assign]
    restart = sim.broker.crash_restart

    def marked() -> None:
        events.append(("restart", None))
        restart()
    sim.broker.crash_restart = marked  # type: ignore[method-assign]
    start = time.perf_counter()
    history = sim.run()
    simulated = time.perf_counter() - start
    start = time.perf_counter()
    assert check(history, config.delivery_limit) == []
    checked = time.perf_counter() - start
    deliveries = sum(len(op.value) for op in history if op.f == "poll" and op.type == "ok")
    return deliveries, simulated, checked, events


def replay(seed: int, events: list[Any]) -> float:
    broker = Broker(DeliverySimConfig(seed=seed))
    start = time.perf_counter()
    for index, (p, event) in enumerate(events):
        if p == "restart":
            broker.coordinator.handle(ss.Restart(), index)
        else:
            broker.machines[p].handle(event, index)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, {args.seeds} seeds, DeliverySimConfig() defaults")
    total = sim_s = check_s = direct_s = 0.0
    n_events = 0
    for seed in range(args.seeds):
        deliveries, simulated, checked, events = recorded_run(seed)
        total += deliveries
        sim_s += simulated
        check_s += checked
        direct_s += replay(seed, events)
        n_events += len(events)
    print(f"end to end: {total:.0f} deliveries in {sim_s:.2f} s = {total / sim_s:,.0f} deliveries/s")
    print(f"checker:    {total / check_s:,.0f} deliveries/s judged ({check_s:.3f} s)")
    print(f"peer (share partitions + share coordinator driven directly, {n_events} events): "
          f"{direct_s:.2f} s = {total / direct_s:,.0f} deliveries/s")
    print(f"ratio end to end / peer: {sim_s / direct_s:.1f}x the time")


if __name__ == "__main__":
    main()

"""Share group coordinator: heartbeat throughput for a 1,000-member group, and time to converge.

Throughput (the implementation, ``ShareGroupCoordinator``, one thread): N members (default
1,000) join one group subscribed to one topic of P partitions (default 1,000), whose share state
is initialized; then

- **steady**: R rounds of a heartbeat from every member at its epoch, nothing changing;
- **churn**: R rounds in which one member leaves and a new one joins before every member
  heartbeats (each round: one new target for the whole group, every member reconciling).

Prints heartbeats per second for each phase and for the joins (each join computes a new target
for everyone).

Convergence (``groupspec.simulation``, the implementation as coordinator, 1-50 ms network
delays, 5 s heartbeat interval, 1 s polls): N consumers join and settle; one more joins; prints
the simulated time until every member holds its new target again, and the wall time it took.

    .venv/bin/python bench/bench_share_group.py
    .venv/bin/python bench/bench_share_group.py --members 200 --rounds 2   # quick
"""

from __future__ import annotations

import argparse
import platform
import time

from groupspec.impl.share_group import ShareGroupCoordinator
from groupspec.simulation import Churn, SimConfig, Simulation
from groupspec.types.errors import Errors
from groupspec.types.share_group import (
    PersisterAnswer,
    ShareGroupConfig,
    ShareGroupHeartbeat,
    ShareGroupHeartbeatResponse,
    TopicMetadata,
)

TOPIC_ID = "00000000-0000-4000-8000-000000000001"


class Driver:
    def __init__(self, members: int, partitions: int) -> None:
        self.topic = TopicMetadata("orders", TOPIC_ID, partitions)
        self.coordinator = ShareGroupCoordinator(
            ShareGroupConfig(max_size=max(members + 1, 200)), (self.topic,)
        )
        self.index = 0
        self.epochs: dict[str, int] = {}

    def heartbeat(self, member: str, topics: tuple[str, ...] | None = None) -> ShareGroupHeartbeatResponse:
        epoch = self.epochs.get(member, 0) if topics is None else 0
        out = self.coordinator.handle(
            ShareGroupHeartbeat("g", member, epoch, subscribed_topic_names=topics), self.index
        )
        self.index += 1
        for request in out.initialize:
            self.coordinator.handle(PersisterAnswer(request.request, Errors.NONE), self.index)
            self.index += 1
        response = out.answers[0].response
        assert isinstance(response, ShareGroupHeartbeatResponse) and response.error is Errors.NONE, response
        self.epochs[member] = response.member_epoch
        return response

    def leave(self, member: str) -> None:
        self.coordinator.handle(ShareGroupHeartbeat("g", member, -1), self.index)
        self.index += 1
        del self.epochs[member]


def throughput(members: int, partitions: int, rounds: int) -> list[tuple[str, int, float]]:
    d = Driver(members, partitions)
    rows = []
    started = time.perf_counter()
    for i in range(members):
        d.heartbeat(f"member-{i}", ("orders",))
    rows.append(("join (a new target each)", members, time.perf_counter() - started))
    for m in list(d.epochs):  # everyone reconciles once to the latest epoch
        d.heartbeat(m)
    started = time.perf_counter()
    for _ in range(rounds):
        for m in list(d.epochs):
            d.heartbeat(m)
    rows.append(("steady", rounds * members, time.perf_counter() - started))
    started = time.perf_counter()
    count = 0
    for r in range(rounds):
        d.leave(next(iter(d.epochs)))
        d.heartbeat(f"newcomer-{r}", ("orders",))
        for m in list(d.epochs):
            d.heartbeat(m)
            count += 1
    rows.append(("churn (one leaves, one joins, all heartbeat)", count, time.perf_counter() - started))
    return rows


def convergence(members: int, partitions: int) -> tuple[int, float, int]:
    """(simulated ms from the join to settled, wall seconds for that part, heartbeats sent)."""
    topic = TopicMetadata("orders", TOPIC_ID, partitions)
    join_at = 60_000
    plan = (*(Churn(i * 10, f"m{i}", "join") for i in range(members)), Churn(join_at, "newcomer", "join"))
    sim = Simulation(
        SimConfig(
            (topic,), ("orders",), plan, seed=1, coordinator=ShareGroupConfig(max_size=max(members + 1, 200))
        )
    )
    sim.run_until(join_at - 1)
    assert sim.settled() == [], sim.settled()[:3]
    before = sim.stats.heartbeats
    started = time.perf_counter()
    t = join_at
    while True:
        t += 100
        sim.run_until(t)
        if sim.settled() == []:
            break
        if t > join_at + 120_000:
            raise RuntimeError(f"not settled after 120 s: {sim.settled()[:3]}")
    return t - join_at, time.perf_counter() - started, sim.stats.heartbeats - before


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--members", type=int, default=1_000)
    parser.add_argument("--partitions", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(
        f"python {platform.python_version()} on {platform.machine()}, one thread; "
        f"{args.members} members, one topic of {args.partitions} partitions"
    )
    for phase, count, seconds in throughput(args.members, args.partitions, args.rounds):
        each = seconds * 1e6 / count
        print(f"  {phase:48} {count:>7} heartbeats {count / seconds:>10,.0f} /s  ({each:,.0f} us each)")
    settle_ms, wall, heartbeats = convergence(args.members, args.partitions)
    print(
        f"  one member joins the settled group: settled again after {settle_ms:,} ms simulated "
        f"(to 100 ms), {heartbeats:,} heartbeats, {wall:.1f} s wall"
    )


if __name__ == "__main__":
    main()

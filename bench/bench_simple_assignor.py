"""Kafka's ShareGroupAssignorBenchmark grid, run on groupspec's SimpleAssignor.

The grid and group shapes follow Kafka's jmh-benchmarks/.../assignor/ShareGroupAssignorBenchmark
and AssignorBenchmarkUtils: members {10, 100, 1000} x topics {1, 10, 100} x partitions per topic
{1, 10, 100}, homogeneous (everyone subscribes to every topic) or heterogeneous (members and
topics split into 5 buckets, each bucket's members subscribing to its topics; Kafka refuses fewer
topics than buckets, and so do we), FULL (from an empty assignment) or INCREMENTAL (members-1
members assigned, then one new member joins with the subscription of member N-5 or of every
topic). The figure is the median of warm calls, like JMH's average after warm-up.

    python bench/bench_simple_assignor.py            # the whole grid, canonical mode
    python bench/bench_simple_assignor.py --quick    # the 1000-member points only
    python bench/bench_simple_assignor.py --compat kafka
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time
from dataclasses import replace

from groupspec.impl.assignors import COMPAT_MODES, assign
from groupspec.types import AssignorInput, MemberSpec

BUCKETS = 5

#: Kafka's Java SimpleAssignor measured on this machine kind (median of warm calls, ms), as
#: given in issue 3: (members, topics, partitions per topic, subscription, assignment) -> ms.
KAFKA_MS = {
    (1000, 100, 100, "HOMOGENEOUS", "FULL"): 1.2,
    (1000, 100, 100, "HOMOGENEOUS", "INCREMENTAL"): 2.8,
    (1000, 100, 100, "HETEROGENEOUS", "FULL"): 3.9,
    (1000, 100, 100, "HETEROGENEOUS", "INCREMENTAL"): 8.1,
}
KAFKA_SMALL_MS = 1.0  # "smaller points are below 1 ms"


def _members(count: int, topics: list[str], heterogeneous: bool) -> list[MemberSpec]:
    if not heterogeneous:
        return [MemberSpec(f"member{i}", tuple(topics)) for i in range(count)]
    buckets = min(BUCKETS, count)
    per_topic_bucket = math.ceil(len(topics) / buckets)
    per_member_bucket = math.ceil(count / buckets)
    members = []
    for b in range(buckets):
        subs = tuple(topics[b * per_topic_bucket:(b + 1) * per_topic_bucket])
        for i in range(b * per_member_bucket, min((b + 1) * per_member_bucket, count)):
            members.append(MemberSpec(f"member{i}", subs))
    return members


def build(members: int, topics: int, partitions: int, subscription: str, kind: str,
          compat: str) -> AssignorInput | None:
    """The group of one grid point, or None where Kafka's benchmark refuses the shape."""
    names = [f"topic-{t}" for t in range(topics)]
    heterogeneous = subscription == "HETEROGENEOUS"
    first = members - 1 if kind == "INCREMENTAL" else members
    if heterogeneous and topics < min(BUCKETS, first):
        return None
    group = AssignorInput(tuple(_members(first, names, heterogeneous)), dict.fromkeys(names, partitions))
    if kind == "FULL":
        return group
    stable = assign(group, compat=compat)  # type: ignore[arg-type]
    old = tuple(replace(m, assignment=stable[m.member_id]) for m in group.members)
    newcomer_topics = old[members - BUCKETS].topics if heterogeneous else tuple(names)
    return replace(group, members=(*old, MemberSpec("newMember", newcomer_topics)))


def median_ms(group: AssignorInput, compat: str, budget_s: float, min_calls: int) -> tuple[float, int]:
    assign(group, compat=compat)  # type: ignore[arg-type]  # warm-up
    times = []
    start = time.perf_counter()
    while len(times) < min_calls or time.perf_counter() - start < budget_s:
        t0 = time.perf_counter()
        assign(group, compat=compat)  # type: ignore[arg-type]
        times.append(time.perf_counter() - t0)
        if len(times) >= 10_000:
            break
    return statistics.median(times) * 1000, len(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--compat", choices=COMPAT_MODES, default="groupspec")
    parser.add_argument("--quick", action="store_true", help="only the 1000-member points")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds of calls per point")
    args = parser.parse_args()
    print(f"# SimpleAssignor grid, compat={args.compat}, python {platform.python_version()}, "
          f"{platform.machine()}, budget {args.budget}s/point; median of warm calls")
    print("| members | topics | partitions/topic | subscription | assignment | median ms | calls "
          "| Kafka ms | ratio |")
    print("|---:|---:|---:|---|---|---:|---:|---:|---:|")
    worst = 0.0
    for members in ((1000,) if args.quick else (10, 100, 1000)):
        for topics in (1, 10, 100):
            for partitions in (1, 10, 100):
                for subscription in ("HOMOGENEOUS", "HETEROGENEOUS"):
                    for kind in ("FULL", "INCREMENTAL"):
                        group = build(members, topics, partitions, subscription, kind, args.compat)
                        if group is None:
                            continue
                        ms, calls = median_ms(group, args.compat, args.budget, 5)
                        key = (members, topics, partitions, subscription, kind)
                        kafka = KAFKA_MS.get(key)
                        ratio = f"{ms / kafka:.1f}x" if kafka else ""
                        if kafka:
                            worst = max(worst, ms / kafka)
                        print(f"| {members} | {topics} | {partitions} | {subscription} | {kind} "
                              f"| {ms:.3f} | {calls} | {kafka if kafka else '<1'} | {ratio} |",
                              flush=True)
    if worst:
        print(f"\nworst ratio to Kafka's measured points: {worst:.1f}x (target: within 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

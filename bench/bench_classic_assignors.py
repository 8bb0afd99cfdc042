"""The classic assignors at 1,000 members x 10,000 partitions: groupspec next to its peers.

Every assignor the machine knows (``groupspec.types.classic_assignors.ASSIGNORS``, so one added
there is benched without touching this file) on two groups, each from two starting points:

* groups: ``all`` (1,000 members, every one subscribed to 100 topics of 100 partitions) and
  ``mixed`` (the same topics in 5 buckets of 20; members in 5 buckets of 200; bucket b's members
  subscribe to topic buckets b and b+1, so every topic has 400 subscribers and no two buckets
  see the same topics);
* starts: ``empty`` (nobody owns anything: a new group) and ``+1`` (the 1,000 members own what
  groupspec's impl gave them from empty, at generation 1, and a 1,001st member ``newMember``
  joins with the subscription of member 995, or of everything for ``all``).

Contenders, each timed on the same input in the same run: groupspec's impl (``impl``), its
Kafka-exact mode (``impl-kafka``), kafka-python's assignor of the same name (``kafka-python``,
the pip package in this venv), and kafka-clients' Java assignor through the Kafka adapter
(``java``, with ``--java``; the whole JSON round trip, see the note printed with it). The spec
(``--spec``) runs with its contracts, which recheck every property of the answer.

Each figure is the median of warm calls (one warm-up call, then calls until ``--budget``
seconds or ``--min-calls``, whichever is more). A contender whose first call takes longer than
the budget is reported from that single cold call ("1*"). A contender that raises is reported
with the exception's name.

    python bench/bench_classic_assignors.py                # impl, impl-kafka, kafka-python
    python bench/bench_classic_assignors.py --java --spec  # and Kafka's Java, and the spec
    python bench/bench_classic_assignors.py --assignor range --group all

bench/README.md has the measured table.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from groupspec.impl.classic_assignors import assign as impl_assign
from groupspec.types import InputError
from groupspec.types.classic_assignors import ASSIGNORS, ClassicAssignorInput, ClassicMember, check_input

MEMBERS, TOPICS, PARTITIONS, BUCKETS = 1000, 100, 100, 5
GROUPS = ("all", "mixed")
STARTS = ("empty", "+1")
JAVA_WARMUP = 5


def build(assignor: str, shape: str, start: str) -> ClassicAssignorInput:
    """The group of one bench point (module docstring)."""
    names = [f"topic-{t}" for t in range(TOPICS)]
    per_bucket = TOPICS // BUCKETS

    def topics_of(i: int) -> tuple[str, ...]:
        if shape == "all":
            return tuple(names)
        b = i * BUCKETS // MEMBERS
        picked = [names[k] for bb in (b, (b + 1) % BUCKETS)
                  for k in range(bb * per_bucket, (bb + 1) * per_bucket)]
        return tuple(picked)

    members = tuple(ClassicMember(f"member{i}", topics_of(i)) for i in range(MEMBERS))
    group = ClassicAssignorInput(assignor, members, dict.fromkeys(names, PARTITIONS))
    if start == "empty":
        return group
    first = impl_assign(group)
    owned = tuple(replace(m, owned_partitions=first[m.member_id], generation_id=1) for m in members)
    newcomer = ClassicMember("newMember", topics_of(MEMBERS - BUCKETS))
    return replace(group, members=(*owned, newcomer))


# ---------------------------------------------------------------------------------------------
# kafka-python: its assignors are classmethod-style objects fed JoinGroup member records
# ---------------------------------------------------------------------------------------------


@dataclass
class _Cluster:
    counts: dict[str, int]

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return set(range(self.counts[topic])) if topic in self.counts else None

    def topics(self) -> set[str]:
        return set(self.counts)


def kafka_python_call(group: ClassicAssignorInput) -> Callable[[], object] | str:
    """A no-argument call of kafka-python's assignor on ``group``, or why there is none."""
    from kafka.coordinator.assignors.range import RangePartitionAssignor
    from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription

    classes: dict[str, Any] = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor}
    try:
        from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor
        from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
        from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
        classes.update({"sticky": StickyPartitionAssignor, "cooperative-sticky": CooperativeStickyAssignor})
    except ImportError:  # an older kafka-python without them
        StickyAssignorUserData = None
    cls = classes.get(group.assignor)
    if cls is None:
        return "no such assignor in kafka-python"

    @dataclass
    class _Member:
        member_id: str
        group_instance_id: str | None
        metadata: Any

    def metadata(m: ClassicMember) -> Any:
        if group.assignor in ("range", "roundrobin"):
            return ConsumerProtocolSubscription(version=0, topics=list(m.topics), user_data=b"")
        by_topic: dict[str, list[int]] = {}
        for t, p in m.owned_partitions:
            by_topic.setdefault(t, []).append(p)
        if group.assignor == "sticky":
            user = (StickyAssignorUserData(list(by_topic.items()), m.generation_id)
                    if m.owned_partitions and StickyAssignorUserData is not None else b"")
            return ConsumerProtocolSubscription(version=0, topics=list(m.topics), user_data=user)
        sub = ConsumerProtocolSubscription.TopicPartition
        owned = [sub(topic=t, partitions=sorted(ps)) for t, ps in by_topic.items()]
        generation = m.generation_id if m.generation_id is not None else -1
        return ConsumerProtocolSubscription(version=2, topics=list(m.topics), user_data=b"",
                                            owned_partitions=owned, generation_id=generation)

    members = [_Member(m.member_id, m.group_instance_id, metadata(m)) for m in group.members]
    cluster = _Cluster(dict(group.topics))
    instance = cls() if group.assignor in ("sticky", "cooperative-sticky") else cls
    return lambda: instance.assign(cluster, members)


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------


def timed(call: Callable[[], object], budget_s: float, min_calls: int, warmup: int = 1) -> tuple[float, str]:
    """(median ms, calls) of warm calls; a first call over the budget is the figure itself."""
    for _ in range(warmup - 1):
        call()
    t0 = time.perf_counter()
    call()
    first = time.perf_counter() - t0
    if first > budget_s:
        return first * 1000, "1*"
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_calls or time.perf_counter() - start < budget_s:
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, str(len(times))


def measure(call: Callable[[], object] | str, budget_s: float, min_calls: int,
            warmup: int = 1) -> tuple[float | None, str]:
    if isinstance(call, str):
        return None, call
    try:
        return timed(call, budget_s, min_calls, warmup)
    except Exception as exc:  # a peer's crash is a result here, not a bench failure
        return None, f"raises {type(exc).__name__}"


def _cell(figure: tuple[float | None, str]) -> str:
    ms, note = figure
    return f"{ms:.1f} ({note})" if ms is not None else note


def _ratio(got: dict[str, tuple[float | None, str]], peer: str) -> str:
    base, theirs = got["impl"][0], got.get(peer, (None, ""))[0]
    return f"{theirs / base:.2f}" if base and theirs else "-"


def java_call(kafka: Any, group: ClassicAssignorInput) -> Callable[[], object]:
    from groupspec.conformance import classic_assignors as form

    doc = form.group_to_json(group)

    def call() -> object:
        response = kafka.call("bench", "classic_assignors", "assign", doc)
        if response.output is None:
            raise RuntimeError(f"adapter: {response.error or response.broken or 'unsupported'}")
        return response.output

    return call


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--assignor", action="append", choices=ASSIGNORS,
                        help="bench only this assignor (repeatable; default: every one)")
    parser.add_argument("--group", action="append", choices=GROUPS, help="only this group shape")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds of calls per contender")
    parser.add_argument("--min-calls", type=int, default=3)
    parser.add_argument("--java", action="store_true", help="also Kafka's Java through the adapter")
    parser.add_argument("--spec", action="store_true", help="also the spec (contracts on)")
    args = parser.parse_args()

    kafka = None
    if args.java:
        from groupspec.conformance import targets
        kafka = targets.make_target("kafka", 600.0)
    contenders = ["impl", "impl-kafka", *(["spec"] if args.spec else []), "kafka-python",
                  *(["java"] if kafka else [])]
    print(f"# classic assignors, {MEMBERS} members x {TOPICS} topics x {PARTITIONS} partitions; "
          f"python {platform.python_version()}, {platform.machine()}; median of warm calls in ms "
          f"(calls; 1* = one cold call over the {args.budget:g}s budget)")
    if kafka:
        print("# java: the whole adapter round trip (JSON encode, pipe, Jackson parse, assign, "
              "JSON back, parse), not Java's assign() alone")
    print("| assignor | group | start | " + " | ".join(f"{c} ms (calls)" for c in contenders)
          + " | kafka-python / impl | java / impl |")
    print("|---|---|---|" + "---:|" * (len(contenders) + 2))
    try:
        for assignor in args.assignor or ASSIGNORS:
            for shape in args.group or GROUPS:
                for start in STARTS:
                    try:
                        group = build(assignor, shape, start)
                        check_input(group)
                    except InputError as exc:  # e.g. the sticky assignors model one subscription
                        print(f"| {assignor} | {shape} | {start} | outside what groupspec models: "
                              f"{exc} |" + " |" * (len(contenders) + 1), flush=True)
                        continue
                    calls: dict[str, Callable[[], object] | str] = {
                        "impl": lambda g=group: impl_assign(g),
                        "impl-kafka": lambda g=group: impl_assign(g, compat="kafka"),
                    }
                    if args.spec:
                        from groupspec.spec.classic_assignors import assign as spec_assign
                        calls["spec"] = lambda g=group: spec_assign(g)
                    calls["kafka-python"] = kafka_python_call(group)
                    if kafka:
                        calls["java"] = java_call(kafka, group)
                    # The JVM compiles as it goes: a few throwaway calls before Java's figure.
                    got = {c: measure(calls[c], args.budget, args.min_calls,
                                      JAVA_WARMUP if c == "java" else 1) for c in contenders}
                    print(f"| {assignor} | {shape} | {start} | "
                          + " | ".join(_cell(got[c]) for c in contenders)
                          + f" | {_ratio(got, 'kafka-python')} | {_ratio(got, 'java')} |", flush=True)
    finally:
        if kafka is not None:
            kafka.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``groupspec sweep --assignor NAME`` for the classic assignors: their properties on Spark.

The SimpleAssignor sweep (groupspec.pipeline.sweep) measures moves and pools that mean nothing
to a classic group, so the classic sweep keeps its own, smaller table: per case the group's
size, whether it had racks and a previous assignment, the time, every property of
``spec.classic_assignors.check_properties`` (so a property added there is swept with no change
here) and ``agrees``: the target's answer equals the other layer's (impl against spec, spec
against impl, the Kafka mode against the spec with each member's list sorted, because Kafka
lists plain Range's topics in hash order). Only (seed, index) travel to the executors; a case is
rebuilt anywhere by :func:`classic_case`, which ``--replay`` prints as the JSON the conformance
form reads.

The shapes are drawn small-biased (a size is ``max ** u`` for a uniform u), since the spec's
Range is quadratic in subscribers per topic (bench/README.md): most cases stay quick, a few
reach the bounds.
"""

from __future__ import annotations

import html
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from groupspec.types import InputError
from groupspec.types.classic_assignors import (
    ASSIGNORS,
    STICKY,
    ClassicAssignment,
    ClassicAssignorInput,
    ClassicMember,
    TopicPartition,
    check_input,
    encode_sticky_user_data,
)

ClassicFn = Callable[[ClassicAssignorInput], ClassicAssignment]
TARGETS = ("impl", "impl-kafka", "spec")
#: ``--measure``: extra figures a case can carry. ``stickiness``: the answer's moves and the
#: fewest any balanced answer needs (groupspec.models.classic_moves), for cases whose members
#: share one subscription (the others have no common quota and stay null).
MEASURES = ("stickiness",)
RACKS = ("a", "b", "c")
#: Properties Kafka's own answers do not keep, per assignor (docs/machines/classic_assignors.md):
#: the Kafka mode's failures of these are expected, not counterexamples. Every classic assignor's
#: Kafka lists may leave groupspec's order; the sticky ones also pick who keeps one more by
#: Kafka's member map order (docs/divergences.md, classic_sticky_max_quota_order), so their
#: answers can differ from the spec's with every property kept.
KAFKA_EXPECTED: dict[str, frozenset[str]] = {
    "sticky": frozenset({"ordered", "agrees"}),
    "cooperative-sticky": frozenset({"ordered", "agrees"}),
}
KAFKA_EXPECTED_DEFAULT = frozenset({"ordered"})


def kafka_expected(assignor: str) -> frozenset[str]:
    return KAFKA_EXPECTED.get(assignor, KAFKA_EXPECTED_DEFAULT)


def properties() -> tuple[str, ...]:
    from groupspec.spec.classic_assignors import PROPERTIES

    return (*PROPERTIES, "agrees")


def columns() -> tuple[tuple[str, str, bool], ...]:
    """(column, Spark type, nullable), in row order."""
    return (
        ("seed", "long", False), ("index", "long", False), ("target", "string", False),
        ("assignor", "string", False), ("members", "int", True), ("topics", "int", True),
        ("partitions", "int", True), ("racks", "boolean", True), ("prior", "boolean", True),
        ("seconds", "double", True), ("error", "string", True),
        *((f"prop_{name}", "boolean", True) for name in properties()),
        ("moves", "int", True), ("min_moves", "int", True),
        ("counterexample", "boolean", False), ("failed", "array<string>", False),
        ("expected", "boolean", False),
    )


@dataclass(frozen=True)
class ClassicSweepConfig:
    assignor: str
    cases: int = 2000
    seed: int = 0
    max_members: int = 2000
    max_partitions: int = 5000
    target: str = "impl"
    partitions: int | None = None
    measure: str | None = None

    def validate(self) -> None:
        check_assignor(self.assignor)
        if self.measure not in (None, *MEASURES):
            raise InputError("--measure", f"unknown measure {self.measure!r}; expected one of {MEASURES}")
        if self.target not in TARGETS:
            raise InputError("--target", f"unknown target {self.target!r}; expected one of {TARGETS}")
        for name, value in (("--cases", self.cases), ("--max-members", self.max_members),
                            ("--max-partitions", self.max_partitions)):
            if value < 1:
                raise InputError(name, f"must be >= 1, got {value}")
        if self.partitions is not None and self.partitions < 1:
            raise InputError("--partitions", f"must be >= 1, got {self.partitions}")


def sweep_assignors() -> tuple[str, ...]:
    """What ``--assignor`` takes: the SimpleAssignor, then every classic assignor the vocabulary
    registers (so one added there is sweepable at once)."""
    return ("simple", *ASSIGNORS)


def check_assignor(name: str) -> str:
    if name not in sweep_assignors():
        raise InputError("--assignor", f"unknown assignor {name!r}; expected one of "
                         f"{', '.join(sweep_assignors())}")
    return name


# ---------------------------------------------------------------------------------------------
# Cases and targets (plain Python; run on the executors)
# ---------------------------------------------------------------------------------------------


def _size(rng: random.Random, most: int) -> int:
    return max(1, int(most ** rng.random()))


def classic_case(seed: int, index: int, assignor: str, max_members: int = 2000,
                 max_partitions: int = 5000) -> tuple[ClassicAssignorInput, bool, bool]:
    """Case ``(seed, index)``: (group, with racks, with a previous assignment as owned partitions).

    Static members (unique instance ids, as a coordinator keeps them), topics no one subscribes
    to, topics with no partitions and unknown topics all occur. A quarter of the cases give every
    member the same subscription and no racks, and so does every case of an assignor that refuses
    the group drawn (check_input); of the rest a third put racks on members and replicas. Half
    carry a previous assignment: impl's answer for the group with a few members gone, at
    generation 1 (what the sticky assignors read; the others ignore it).
    """
    from groupspec.impl.classic_assignors import assign

    rng = random.Random(f"classic:{assignor}:{seed}:{index}")
    total = _size(rng, max_partitions)
    names = [f"topic-{k}" for k in range(rng.randint(1, min(12, total)))]
    counts = [total // len(names) + (1 if k < total % len(names) else 0) for k in range(len(names))]
    topics = {t: (0 if rng.random() < 0.05 else n) for t, n in zip(names, counts, strict=True)}
    size = _size(rng, max_members)
    group, racks = _draw(rng, assignor, topics, size, uniform=rng.random() < 0.25)
    try:
        check_input(group)
    except InputError:  # outside what this assignor models
        group, racks = _draw(rng, assignor, topics, size, uniform=True)
    prior = rng.random() < 0.5
    if prior:
        members = group.members
        before = replace(group, members=tuple(m for m in members if rng.random() < 0.9))
        owned = assign(before)
        group = replace(group, members=tuple(
            _owning(assignor, m, owned[m.member_id]) if m.member_id in owned else m for m in members))
    return group, racks, prior


def _owning(assignor: str, m: ClassicMember, owned: tuple[TopicPartition, ...]) -> ClassicMember:
    """``m`` reporting ``owned`` at generation 1 as its client would: in the subscription, and
    for Sticky also in the user data, the only place StickyAssignor reads it."""
    data = encode_sticky_user_data(owned, 1) if assignor == STICKY else m.user_data
    return replace(m, owned_partitions=owned, generation_id=1, user_data=data)


def _draw(rng: random.Random, assignor: str, topics: Mapping[str, int], size: int,
          uniform: bool) -> tuple[ClassicAssignorInput, bool]:
    """Members and racks; ``uniform``: everyone subscribes to the same topics, no racks."""
    names = list(topics)
    racks = not uniform and rng.random() < 1 / 3
    common = tuple(rng.sample([*names, "unknown-topic"], rng.randint(1, len(names))))
    members = []
    for k in range(size):
        subs = common if uniform else tuple(rng.sample([*names, "unknown-topic"],
                                                       rng.randint(1, len(names))))
        instance = f"instance-{k}" if rng.random() < 0.2 else None
        rack = rng.choice(RACKS) if racks and rng.random() < 0.8 else None
        members.append(ClassicMember(f"member-{rng.randint(0, 10**6)}-{k}", subs,
                                     group_instance_id=instance, rack_id=rack))
    replica = ({t: tuple(frozenset(rng.sample(RACKS, rng.randint(0, 2))) for _ in range(n))
                for t, n in topics.items()} if racks else {})
    return ClassicAssignorInput(assignor, tuple(members), dict(topics), replica), racks


def resolve(target: str) -> ClassicFn:
    from groupspec.impl.classic_assignors import assign

    if target == "spec":
        from groupspec.spec.classic_assignors import assign as spec_assign

        return spec_assign
    if target == "impl-kafka":
        return partial(assign, compat="kafka")
    if target == "impl":
        return assign
    raise InputError("--target", f"unknown target {target!r}; expected one of {TARGETS}")


def _reference(target: str) -> ClassicFn:
    """The other layer a target is compared with (module docstring)."""
    return resolve("impl" if target == "spec" else "spec")


def _sorted_lists(answer: ClassicAssignment) -> dict[str, tuple[Any, ...]]:
    return {m: tuple(sorted(parts)) for m, parts in answer.items()}


def run_classic_case(seed: int, index: int, *, assignor: str, target: str = "impl",
                     max_members: int = 2000, max_partitions: int = 5000,
                     assign_fn: ClassicFn | None = None, measure: str | None = None) -> dict[str, Any]:
    """One result row; every failure is recorded, never raised (``assign_fn`` plants bugs)."""
    from groupspec.spec.classic_assignors import check_properties

    names = tuple(name for name, _, _ in columns())
    row: dict[str, Any] = dict.fromkeys(names)
    row.update(seed=seed, index=index, target=target, assignor=assignor, counterexample=False,
               failed=[], expected=False)
    try:
        group, racks, prior = classic_case(seed, index, assignor, max_members, max_partitions)
    except Exception as exc:
        row.update(error=f"generating the case: {type(exc).__name__}: {exc}", counterexample=True,
                   failed=["error"])
        return row
    row.update(members=len(group.members), topics=len(group.topics),
               partitions=sum(group.topics.values()), racks=racks, prior=prior)
    try:
        fn = assign_fn if assign_fn is not None else resolve(target)
        started = time.perf_counter()
        try:
            result = fn(group)
        finally:
            row["seconds"] = time.perf_counter() - started
        ok = dict(check_properties(group, result))
        reference = _reference(target)(group)
        if target == "impl-kafka":
            ok["agrees"] = _sorted_lists(result) == _sorted_lists(reference)
        else:
            ok["agrees"] = dict(result) == dict(reference)
        if measure == "stickiness" and len({frozenset(m.topics) for m in group.members}) == 1:
            from groupspec.models import classic_moves

            row.update(moves=classic_moves.moves(group, result),
                       min_moves=classic_moves.solve(group).moves)
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}"
        row.update(error=text[:500], counterexample=True, failed=["error"])
        return row
    failed = [name for name in properties() if not ok.get(name, False)]
    row.update({f"prop_{name}": bool(ok.get(name, False)) for name in properties()})
    row.update(counterexample=bool(failed), failed=failed,
               expected=bool(failed) and target == "impl-kafka"
               and all(f in kafka_expected(assignor) for f in failed))
    return row


def _run_partition(config: ClassicSweepConfig, assign_fn: ClassicFn | None, done: Any,
                   indices: Iterable[int]) -> Iterator[tuple[Any, ...]]:
    names = tuple(name for name, _, _ in columns())
    for index in indices:
        row = run_classic_case(config.seed, index, assignor=config.assignor, target=config.target,
                               max_members=config.max_members,
                               max_partitions=config.max_partitions, assign_fn=assign_fn,
                               measure=config.measure)
        done.add(1)
        yield tuple(row[n] for n in names)


# ---------------------------------------------------------------------------------------------
# Spark side
# ---------------------------------------------------------------------------------------------


def summarize(results: Any, config: ClassicSweepConfig) -> dict[str, Any]:
    from pyspark.sql import functions as F

    def count_when(cond: Any) -> Any:
        return F.sum(F.when(cond, 1).otherwise(0))

    aggs = [F.count(F.lit(1)).alias("cases"),
            count_when(F.col("counterexample")).alias("counterexamples"),
            count_when(F.col("counterexample") & F.col("expected")).alias("expected"),
            count_when(F.col("error").isNotNull()).alias("errors"),
            F.min(F.when(F.col("error").isNotNull(), F.col("index"))).alias("error_first"),
            F.sum("seconds").alias("assign_seconds"), F.max("seconds").alias("assign_max"),
            count_when(F.col("min_moves").isNotNull()).alias("measured"),
            count_when(F.col("moves") == F.col("min_moves")).alias("at_minimum"),
            count_when(F.col("moves") < F.col("min_moves")).alias("below_minimum"),
            F.sum("moves").alias("moves_sum"), F.sum("min_moves").alias("min_sum"),
            F.max(F.col("moves") - F.col("min_moves")).alias("excess_max"),
            F.min(F.when(F.col("moves") > F.col("min_moves"), F.col("index"))).alias("above_first")]
    for name in properties():
        col = F.col(f"prop_{name}")
        aggs += [count_when(col).alias(f"{name}_held"),
                 F.min(F.when(~col, F.col("index"))).alias(f"{name}_first")]
    top = results.agg(*aggs).collect()[0].asDict()

    def first(index: int | None) -> dict[str, Any] | None:
        if index is None:
            return None
        return {"seed": config.seed, "index": int(index),
                "replay": f"groupspec sweep --assignor {config.assignor} --replay {config.seed} "
                          f"{index} --max-members {config.max_members} "
                          f"--max-partitions {config.max_partitions}"}

    return {
        "cases": int(top["cases"]),
        "counterexamples": int(top["counterexamples"] or 0),
        "expected_counterexamples": int(top["expected"] or 0),
        "properties": {
            name: {"held": int(top[f"{name}_held"] or 0),
                   "expected": config.target == "impl-kafka" and name in kafka_expected(config.assignor),
                   "first_counterexample": first(top[f"{name}_first"])}
            for name in properties()},
        "errors": {"count": int(top["errors"] or 0), "expected": 0,
                   "first": first(top["error_first"])},
        "assign_seconds": {"total": top["assign_seconds"], "max": top["assign_max"]},
        "stickiness": None if config.measure != "stickiness" else {
            "measured": int(top["measured"] or 0), "at_minimum": int(top["at_minimum"] or 0),
            "below_minimum": int(top["below_minimum"] or 0), "moves": int(top["moves_sum"] or 0),
            "min_moves": int(top["min_sum"] or 0), "excess_max": top["excess_max"],
            "first_above": first(top["above_first"])},
    }


def _report(summary: Mapping[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(n)}</td><td>{t['held']}</td>"
        f"<td>{html.escape(t['first_counterexample']['replay']) if t['first_counterexample'] else ''}"
        f"</td></tr>" for n, t in summary["properties"].items())
    inputs = html.escape(json.dumps(summary["inputs"], default=str))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>groupspec sweep: "
            f"{html.escape(summary['inputs']['assignor'])}</title></head><body>"
            f"<h1>groupspec sweep: {html.escape(summary['inputs']['assignor'])} "
            f"({html.escape(summary['inputs']['target'])})</h1><p>{summary['cases']} cases, "
            f"{summary['counterexamples']} counterexamples ({summary['expected_counterexamples']} "
            f"expected of Kafka), {summary['errors']['count']} errors.</p>"
            f"<table><tr><th>property</th><th>held</th><th>first counterexample</th></tr>{rows}"
            f"</table><p>inputs: <code>{inputs}</code></p></body></html>\n")


@dataclass
class ClassicOutcome:
    summary: dict[str, Any]
    parquet: str
    report: Path
    wall_seconds: float


def run_classic_sweep(spark: Any, config: ClassicSweepConfig, out_dir: str | Path, *,
                      parquet: str | None = None, overwrite: bool = True,
                      assign_fn: ClassicFn | None = None, progress: Any = None) -> ClassicOutcome:
    """Run the classic sweep on ``spark``; write results.parquet, summary.json, report.html."""
    from groupspec.pipeline.sweep import Progress, default_partitions, spark_schema, write_results

    config.validate()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    parquet_path = parquet or str(out.resolve() / "results.parquet")
    sc = spark.sparkContext
    slices = config.partitions or default_partitions(config.cases, sc.defaultParallelism)
    done = sc.accumulator(0)
    rows = sc.parallelize(range(config.cases), slices).mapPartitions(
        partial(_run_partition, config, assign_fn, done))
    frame = spark.createDataFrame(rows, schema=spark_schema(columns()), verifySchema=False)
    t0 = time.perf_counter()
    with Progress(config.cases, lambda: int(done.value), progress):
        write_results(frame, parquet_path, overwrite)
    wall = time.perf_counter() - t0
    summary = summarize(spark.read.parquet(parquet_path), config)
    summary = {"inputs": {**asdict(config), "partitions": slices, "parquet": parquet_path},
               "timing": {"wall_seconds": round(wall, 3),
                          "cases_per_second": round(config.cases / wall, 2) if wall > 0 else None},
               **summary}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n",
                                      encoding="utf-8")
    report = out / "report.html"
    report.write_text(_report(summary), encoding="utf-8")
    return ClassicOutcome(summary, parquet_path, report, wall)


def replay(seed: int, index: int, assignor: str, max_members: int,
           max_partitions: int) -> dict[str, Any]:
    """Case ``(seed, index)`` as the conformance form's group JSON."""
    from groupspec.conformance.classic_assignors import group_to_json

    return group_to_json(classic_case(seed, index, assignor, max_members, max_partitions)[0])

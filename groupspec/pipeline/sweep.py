"""The assignor property sweep: many generated groups, every property checked, as a Spark job.

Why Spark for something embarrassingly parallel: the same job runs on a laptop (``local[*]``) and
on a cluster (``--master`` or spark-submit) without change, and its output is a Parquet table
anyone can query. Only case indices travel to the executors: each one rebuilds its group from
``(seed, index)`` with ``groupspec.generate.case``, so a counterexample found anywhere is rebuilt
anywhere from two integers (``groupspec sweep --replay SEED INDEX``).

The per-case work (``run_case``) is plain Python with no Spark in it, so it is unit-tested
directly and the Spark part stays a thin shell: distribute indices, collect rows under an
explicit schema, write Parquet, aggregate a summary, render the report.

Columns that depend on work still in progress elsewhere (``groupspec.models.min_moves``) are
null while it is missing, and the summary says why; the sweep never fails for want of them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib
import json
import math
import os
import platform
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

from groupspec.types import AssignorInput, GroupAssignment, GroupspecError, InputError

AssignFn = Callable[[AssignorInput], GroupAssignment]

TARGETS = ("impl", "impl-kafka", "spec")

#: ``min_moves`` solves a min-cost flow per pool; its time has a long tail (8 s for 1906 members
#: on 70 partitions here), driven more by members and sharing than by partitions: over 1600
#: cases, time ~ N^0.6 * P^0.7 * s^0.8. The cap is therefore on ``N * P * s`` summed over pools
#: (``min_moves_work``); above it the column is null with status "over-cap". At the default
#: sizes, 500 000 covers 1620 of the 2000 cases of seed 0 (docs/pipeline.md gives the command
#: and its timings; tests/repo/test_pipeline_docs.py recounts it). Raise it with ``--min-moves-cap``
#: on a cluster.
DEFAULT_MIN_MOVES_CAP = 500_000

#: Plots are drawn from at most this many rows (a seeded sample above it); aggregates use all.
PLOT_ROWS = 200_000

#: (column, Spark type, nullable). The order is the row order ``run_case`` fills.
COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("seed", "long", False),
    ("index", "long", False),
    ("target", "string", False),
    # The shape the case was drawn from (null only when generating the case itself failed).
    ("shape_members", "int", True),
    ("shape_topics", "int", True),
    ("shape_partitions_per_topic", "int", True),
    ("shape_heterogeneous", "boolean", True),
    ("prior", "string", True),
    ("churn", "string", True),
    # The group the assignor actually saw (after churn).
    ("members", "int", True),
    ("partitions", "int", True),
    ("topics", "int", True),
    ("heterogeneous", "boolean", True),
    ("pools", "int", True),
    ("sharing", "int", True),
    # The run.
    ("seconds", "double", True),
    ("error", "string", True),
    *((f"prop_{name}", "boolean", True) for name in (
        "complete", "subscribed", "coverage", "sharing", "counts", "fill", "sticky")),
    ("counterexample", "boolean", False),
    ("failed", "array<string>", False),
    # Every failure of the counterexample is a known divergence of the target from groupspec's
    # rules (impl-kafka only: groupspec.pipeline.expected, docs/divergences.md).
    ("expected", "boolean", False),
    ("assigned", "int", True),
    ("full", "boolean", True),
    ("balance_pool", "int", True),
    ("balance_load", "int", True),
    ("moves", "int", True),
    ("min_moves", "int", True),
    ("min_moves_status", "string", False),
    ("min_moves_seconds", "double", True),
)
COLUMN_NAMES = tuple(name for name, _, _ in COLUMNS)


@dataclass(frozen=True)
class SweepConfig:
    """Everything that determines a sweep's cases and how they are run (recorded in the report)."""

    cases: int = 2000
    seed: int = 0
    max_members: int = 2000
    max_partitions: int = 5000
    target: str = "impl"
    partitions: int | None = None
    min_moves_cap: int = DEFAULT_MIN_MOVES_CAP

    def validate(self) -> None:
        if self.cases < 1:
            raise InputError("--cases", f"must be >= 1, got {self.cases}")
        if self.max_members < 1:
            raise InputError("--max-members", f"must be >= 1, got {self.max_members}")
        if self.max_partitions < 1:
            raise InputError("--max-partitions", f"must be >= 1, got {self.max_partitions}")
        if self.partitions is not None and self.partitions < 1:
            raise InputError("--partitions", f"must be >= 1, got {self.partitions}")
        if self.min_moves_cap < 0:
            raise InputError("--min-moves-cap", f"must be >= 0, got {self.min_moves_cap}")


@dataclass
class SweepOutcome:
    """What a finished sweep produced, for the command to print and tests to inspect."""

    summary: dict[str, Any]
    out_dir: Path
    parquet: str
    report: Path
    wall_seconds: float
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Targets and optional measurements
# ---------------------------------------------------------------------------------------------


def resolve_target(name: str) -> AssignFn:
    """The assignor a target name stands for; an ImportError means it is not written yet."""
    if name == "spec":
        from groupspec.spec.simple_assignor import assign as spec_assign

        return spec_assign
    if name in ("impl", "impl-kafka"):
        from groupspec.impl.simple_assignor import assign, simple  # noqa: F401  (fails early if absent)

        if name == "impl-kafka":
            from groupspec.impl.simple_assignor import kafka_compat  # noqa: F401

            return partial(assign, compat="kafka")
        return assign
    raise InputError("--target", f"unknown target {name!r}; expected one of {TARGETS}")


MovesFns = tuple[Callable[[AssignorInput], int] | None,
                 Callable[[AssignorInput, GroupAssignment], int] | None, str]


def moves_functions() -> MovesFns:
    """``(min_moves, moves, note)`` from groupspec.models.min_moves, None where missing.

    The note is empty when both exist and otherwise says what is missing, for the report.
    """
    try:  # by name: the module is written in parallel and may not exist yet
        module = importlib.import_module("groupspec.models.min_moves")
    except ImportError as exc:
        return None, None, f"groupspec.models.min_moves is unavailable ({exc}); moves and " \
                           "min_moves are null"
    best = getattr(module, "min_moves", None)
    actual = getattr(module, "moves", None)
    missing = [n for n, f in (("min_moves", best), ("moves", actual)) if not callable(f)]
    note = f"groupspec.models.min_moves lacks {', '.join(missing)}; those columns are null" \
        if missing else ""
    return (best if callable(best) else None, actual if callable(actual) else None, note)


# ---------------------------------------------------------------------------------------------
# One case (plain Python; runs on the executors)
# ---------------------------------------------------------------------------------------------


def _describe(exc: BaseException) -> str:
    kafka = getattr(exc, "kafka_exception", None)
    text = f"{type(exc).__name__}{f' ({kafka})' if kafka else ''}: {exc}"
    return text if len(text) <= 500 else text[:497] + "..."


def _balance(group: AssignorInput, result: GroupAssignment,
             pools: list[Any]) -> tuple[int, int, int, bool]:
    """(worst per-pool spread of member counts, spread of members' total load, total holdings,
    whether every pool holds s*P pairs).

    Fullness matters for reading ``moves - min_moves``: the minimum is over full assignments, so
    only a full result is guaranteed to move at least that many (models/min_moves.py).
    """
    held = [result.get(m.member_id, {}) for m in group.members]
    loads = [sum(len(ps) for ps in a.values()) for a in held]
    worst, full = 0, True
    for pool in pools:
        inside = set(pool.partitions)
        counts = [sum(1 for t, ps in held[i].items() for p in ps if (t, p) in inside)
                  for i in pool.subscribers]
        if counts:
            worst = max(worst, max(counts) - min(counts))
        full &= sum(counts) == pool.sharing * len(pool.partitions)
    spread = max(loads) - min(loads) if loads else 0
    return worst, spread, sum(loads), full


def min_moves_work(pools: Iterable[Any]) -> int:
    """The size measure ``--min-moves-cap`` bounds: members x partitions x sharing, per pool."""
    return sum(len(p.subscribers) * len(p.partitions) * max(1, p.sharing) for p in pools)


def run_case(seed: int, index: int, *, max_members: int = 2000, max_partitions: int = 5000,
             target: str = "impl", assign_fn: AssignFn | None = None,
             min_moves_cap: int = DEFAULT_MIN_MOVES_CAP,
             moves_fns: MovesFns | None = None) -> dict[str, Any]:
    """Rebuild case ``(seed, index)``, run the target on it and measure it: one result row.

    ``assign_fn`` replaces the named target (tests plant bugs this way; ``target`` is then only
    the label recorded). Every failure is caught and recorded, never raised: one bad case must
    not sink a sweep of a million.
    """
    from groupspec.generate import case
    from groupspec.pipeline.expected import expected_exception, expected_violation
    from groupspec.spec.simple_assignor import (
        HETEROGENEOUS,
        PROPERTIES,
        check_properties,
        pools,
        subscription_type,
    )

    row: dict[str, Any] = dict.fromkeys(COLUMN_NAMES)
    row.update(seed=seed, index=index, target=target, counterexample=False, failed=[],
               expected=False, min_moves_status="no-result")
    try:
        shape, group = case(seed, index, max_members, max_partitions)
    except Exception as exc:
        row.update(error=f"generating the case: {_describe(exc)}", counterexample=True,
                   failed=["error"])
        return row
    group_pools = pools(group)
    row.update(
        shape_members=shape.members, shape_topics=shape.topics,
        shape_partitions_per_topic=shape.partitions_per_topic,
        shape_heterogeneous=shape.heterogeneous, prior=shape.prior, churn=shape.churn or None,
        members=len(group.members), partitions=sum(len(p.partitions) for p in group_pools),
        topics=len(group.topics), heterogeneous=subscription_type(group) == HETEROGENEOUS,
        pools=len(group_pools), sharing=max((p.sharing for p in group_pools), default=0),
    )
    try:
        fn = assign_fn if assign_fn is not None else resolve_target(target)
        started = time.perf_counter()
        try:
            result = fn(group)
        finally:
            row["seconds"] = time.perf_counter() - started
    except Exception as exc:
        row.update(error=_describe(exc), counterexample=True, failed=["error"],
                   expected=expected_exception(target, exc))
        return row

    try:
        ok = check_properties(group, result)
    except Exception as exc:  # a malformed result can break the checker itself
        row.update(error=f"checking the result: {_describe(exc)}", counterexample=True,
                   failed=["error"])
        return row
    failed = [name for name in PROPERTIES if not ok[name]]
    row.update({f"prop_{name}": ok[name] for name in PROPERTIES})
    row.update(counterexample=bool(failed), failed=failed,
               expected=bool(failed) and all(expected_violation(target, f) for f in failed))
    with contextlib.suppress(Exception):  # balance of a malformed result is just unknown
        row["balance_pool"], row["balance_load"], row["assigned"], row["full"] = _balance(
            group, result, group_pools)

    best, actual, _ = moves_fns if moves_fns is not None else moves_functions()
    if actual is not None:
        try:
            row["moves"] = int(actual(group, result))
        except Exception:
            row["moves"] = None
    if best is None:
        row["min_moves_status"] = "unavailable"
    elif min_moves_work(group_pools) > min_moves_cap:
        row["min_moves_status"] = "over-cap"
    else:
        started = time.perf_counter()
        try:
            row["min_moves"] = int(best(group))
            row["min_moves_status"] = "ok"
        except Exception as exc:
            row["min_moves_status"] = f"error: {_describe(exc)}"
        row["min_moves_seconds"] = time.perf_counter() - started
    return row


def _run_partition(config: SweepConfig, assign_fn: AssignFn | None, moves_fns: MovesFns | None,
                   done: Any, indices: Iterable[int]) -> Iterator[tuple[Any, ...]]:
    """Executor side: one row tuple per case index; ``done`` (an accumulator) counts them."""
    label = config.target
    fns = moves_fns if moves_fns is not None else moves_functions()
    for index in indices:
        row = run_case(config.seed, index, max_members=config.max_members,
                       max_partitions=config.max_partitions, target=label, assign_fn=assign_fn,
                       min_moves_cap=config.min_moves_cap, moves_fns=fns)
        done.add(1)
        yield tuple(row[name] for name in COLUMN_NAMES)


# ---------------------------------------------------------------------------------------------
# Spark side
# ---------------------------------------------------------------------------------------------


def spark_schema(columns: Iterable[tuple[str, str, bool]] = COLUMNS) -> Any:
    """The explicit StructType of a results table: (name, kind, nullable) columns, in order
    (this sweep's COLUMNS unless given; the classic sweep passes its own)."""
    from pyspark.sql import types as T

    simple = {"long": T.LongType(), "int": T.IntegerType(), "string": T.StringType(),
              "boolean": T.BooleanType(), "double": T.DoubleType(),
              "array<string>": T.ArrayType(T.StringType(), containsNull=False)}
    return T.StructType([T.StructField(name, simple[kind], nullable)
                         for name, kind, nullable in columns])


def default_partitions(cases: int, parallelism: int) -> int:
    """Enough tasks to keep every core busy and the progress line moving (about 25 cases a task),
    never more tasks than cases."""
    return max(1, min(cases, 10_000, max(2 * parallelism, math.ceil(cases / 25))))


class Progress:
    """A progress line on stderr, fed by an accumulator the executors add one to per case.

    Accumulator updates reach the driver as each task finishes, so the count moves a partition at
    a time; ``default_partitions`` keeps partitions small for that reason. On a terminal the line
    is rewritten in place; in a log, a new line is written at most every few seconds.
    """

    def __init__(self, total: int, read: Callable[[], int], stream: IO[str] | None,
                 interval: float | None = None) -> None:
        self.total = total
        self.read = read
        self.stream = stream
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else (0.5 if self.tty else 5.0)
        self.started = time.monotonic()
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="groupspec-progress", daemon=True)
        self.last_shown = -1

    def line(self, done: int) -> str:
        elapsed = time.monotonic() - self.started
        pct = 100 * done // self.total if self.total else 100
        rate = done / elapsed if elapsed > 0 else 0.0
        return f"sweep: cases {done}/{self.total} ({pct}%)  {rate:.1f} cases/s  {elapsed:.0f}s"

    def _show(self, done: int, final: bool = False) -> None:
        if self.stream is None or (done == self.last_shown and not final):
            return
        self.last_shown = done
        text = self.line(done)
        if self.tty:
            self.stream.write("\r" + text.ljust(72) + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _loop(self) -> None:
        while not self.stop_event.wait(self.interval):
            self._show(self.read())

    def __enter__(self) -> Progress:
        self._show(0)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_event.set()
        self.thread.join()
        self._show(self.read(), final=True)


def _versions(spark: Any) -> dict[str, str]:
    import groupspec

    versions = {"groupspec": groupspec.__version__, "python": platform.python_version()}
    with contextlib.suppress(Exception):
        import pyspark

        versions["pyspark"] = pyspark.__version__
    with contextlib.suppress(Exception):
        versions["spark"] = str(spark.version)
    with contextlib.suppress(Exception):
        jvm = spark.sparkContext._jvm
        versions["java"] = str(jvm.java.lang.System.getProperty("java.version"))
    return versions


def _shape_of(row: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("shape_members", "shape_topics", "shape_partitions_per_topic", "shape_heterogeneous",
            "prior", "churn")
    return {k.removeprefix("shape_"): row[k] for k in keys}


def replay_command(config: SweepConfig, index: int, seed: int | None = None) -> str:
    """Shell commands that rebuild case ``index`` and run the sweep's target on it."""
    seed = config.seed if seed is None else seed
    case_file = f"case-{seed}-{index}.json"
    rebuild = (f"groupspec sweep --replay {seed} {index} --max-members {config.max_members} "
               f"--max-partitions {config.max_partitions} > {case_file}")
    if config.target in TARGETS:
        return f"{rebuild} && groupspec assign {case_file} --target {config.target}"
    return rebuild


def summarize(results: Any, config: SweepConfig) -> dict[str, Any]:
    """Per-property tallies, first counterexamples, errors, moves and balance, with Spark
    aggregations so it scales with the table rather than the driver."""
    from pyspark.sql import functions as F

    from groupspec.pipeline.expected import expected_violation
    from groupspec.spec.simple_assignor import PROPERTIES

    def count_when(cond: Any) -> Any:
        return F.sum(F.when(cond, 1).otherwise(0))

    aggs = [F.count(F.lit(1)).alias("cases"),
            count_when(F.col("counterexample")).alias("counterexamples"),
            count_when(F.col("counterexample") & F.col("expected")).alias("expected"),
            count_when(F.col("error").isNotNull()).alias("errors"),
            count_when(F.col("error").isNotNull() & F.col("expected")).alias("errors_expected"),
            F.min(F.when(F.col("error").isNotNull(), F.col("index"))).alias("error_first"),
            F.sum("seconds").alias("assign_seconds"), F.max("seconds").alias("assign_max")]
    for name in PROPERTIES:
        col = F.col(f"prop_{name}")
        aggs += [count_when(col).alias(f"{name}_held"),
                 count_when(~col).alias(f"{name}_failed"),
                 F.min(F.when(~col, F.col("index"))).alias(f"{name}_first")]
    excess = F.col("moves") - F.col("min_moves")
    both = F.col("moves").isNotNull() & F.col("min_moves").isNotNull()
    aggs += [count_when(F.col("moves").isNotNull()).alias("moves_measured"),
             count_when(both).alias("moves_compared"),
             count_when(both & (excess == 0)).alias("moves_optimal"),
             count_when(both & (excess < 0)).alias("moves_below"),
             count_when(both & (excess < 0) & ~F.coalesce(F.col("full"), F.lit(False)))
             .alias("moves_below_not_full"),
             count_when(both & (excess < 0) & F.coalesce(F.col("full"), F.lit(False))
                        & ~(F.col("prop_counts") & F.col("prop_sharing")))
             .alias("moves_below_invalid"),
             F.avg(F.when(both, excess)).alias("excess_mean"),
             F.max(F.when(both, excess)).alias("excess_max"),
             F.max("balance_pool").alias("balance_pool_max"),
             F.max("balance_load").alias("balance_load_max")]
    top = results.agg(*aggs).collect()[0].asDict()

    firsts = {name: top[f"{name}_first"] for name in PROPERTIES}
    firsts["error"] = top["error_first"]
    wanted = sorted({i for i in firsts.values() if i is not None})
    rows = {r["index"]: r.asDict() for r in
            results.where(F.col("index").isin(wanted)).collect()} if wanted else {}

    def first(index: int | None) -> dict[str, Any] | None:
        if index is None:
            return None
        r = rows[index]
        out = {"seed": r["seed"], "index": index, "shape": _shape_of(r),
               "members": r["members"], "partitions": r["partitions"],
               "failed": list(r["failed"]), "replay": replay_command(config, index, r["seed"])}
        if r["error"] is not None:
            out["error"] = r["error"]
        return out

    total = int(top["cases"])
    properties = {}
    for name in PROPERTIES:
        held, failed = int(top[f"{name}_held"] or 0), int(top[f"{name}_failed"] or 0)
        properties[name] = {"held": held, "failed": failed, "unchecked": total - held - failed,
                            "expected": expected_violation(config.target, name),
                            "first_counterexample": first(firsts[name])}
    status = {r["min_moves_status"]: int(r["count"]) for r in
              results.groupBy("min_moves_status").count().collect()}
    pool_hist = {str(r["balance_pool"]): int(r["count"]) for r in
                 results.groupBy("balance_pool").count().orderBy("balance_pool").collect()}
    return {
        "cases": total,
        "counterexamples": int(top["counterexamples"] or 0),
        # Counterexamples that are the target's known divergences (impl-kafka): not failures.
        "expected_counterexamples": int(top["expected"] or 0),
        "properties": properties,
        "errors": {"count": int(top["errors"] or 0), "expected": int(top["errors_expected"] or 0),
                   "first": first(firsts["error"])},
        "moves": {
            "measured": int(top["moves_measured"] or 0),
            "compared_with_minimum": int(top["moves_compared"] or 0),
            "optimal": int(top["moves_optimal"] or 0),
            "below_minimum": int(top["moves_below"] or 0),
            # The minimum bounds only full results that keep `counts` and `sharing` (the
            # constraints it is taken under); below it, a result must be one of these two...
            "below_minimum_not_full": int(top["moves_below_not_full"] or 0),
            "below_minimum_invalid": int(top["moves_below_invalid"] or 0),
            # ...or the optimiser is wrong: this one must stay 0.
            "below_minimum_unexplained": int(top["moves_below"] or 0)
            - int(top["moves_below_not_full"] or 0) - int(top["moves_below_invalid"] or 0),
            "mean_excess": top["excess_mean"],
            "max_excess": top["excess_max"],
            "min_moves_status": dict(sorted(status.items())),
        },
        "balance": {"pool_spread_max": top["balance_pool_max"],
                    "load_spread_max": top["balance_load_max"],
                    "pool_spread_histogram": pool_hist},
        "assign_seconds": {"total": top["assign_seconds"], "max": top["assign_max"]},
    }


def unexpected(summary: Mapping[str, Any]) -> int:
    """Cases that make the sweep fail: counterexamples that are not known divergences of the
    target, and full valid results below the proved minimum (the optimiser would be wrong)."""
    return int(summary["counterexamples"] - summary.get("expected_counterexamples", 0)
               + summary["moves"].get("below_minimum_unexplained", 0))


PLOT_COLUMNS = ("index", "members", "partitions", "heterogeneous", "prior", "seconds",
                "counterexample", "moves", "min_moves", "balance_pool", "balance_load", "error")


def plot_frame(results: Any, total: int) -> tuple[Any, bool]:
    """The rows the report draws (pandas), sampled when the table is large; (frame, sampled)."""
    selected = results.select(*PLOT_COLUMNS)
    if total > PLOT_ROWS:
        selected = selected.sample(fraction=min(1.0, 1.1 * PLOT_ROWS / total), seed=1).limit(
            PLOT_ROWS)
        return selected.toPandas(), True
    return selected.toPandas(), False



def write_results(frame: Any, parquet_path: str, overwrite: bool) -> None:
    """Write a sweep's results table; an existing one without ``overwrite`` is the user's
    mistake, said in one line (Spark's own error is a page of JVM stack)."""
    try:
        frame.write.mode("overwrite" if overwrite else "errorifexists").parquet(parquet_path)
    except Exception as exc:
        if overwrite or "PATH_ALREADY_EXISTS" not in str(exc):
            raise
        raise InputError("--parquet", f"{parquet_path} already exists; pass --overwrite to "
                         "replace it") from None

def run_sweep(spark: Any, config: SweepConfig, out_dir: str | Path, *,
              parquet: str | None = None, overwrite: bool = True,
              assign_fn: AssignFn | None = None,
              moves_fns: MovesFns | None = None, progress: IO[str] | None = None,
              master: str | None = None) -> SweepOutcome:
    """Run the sweep on ``spark`` and write results.parquet, summary.json and report.html.

    ``parquet`` overrides where the table goes (it must be reachable by every executor on a
    cluster, e.g. hdfs://...); the summary and the report are written by the driver into
    ``out_dir``. Without ``overwrite`` an existing table is refused (InputError naming
    ``--parquet``) rather than replaced: only Spark can see a remote path, so the command's
    own checks cannot catch that one before the JVM starts. The progress line goes to
    ``progress`` (the command passes stderr; None is silent). ``assign_fn`` and ``moves_fns``
    replace the named target and groupspec.models.min_moves (they are pickled to the executors),
    which is how tests plant bugs and how another optimiser could be compared.
    """
    from groupspec.pipeline import report

    config.validate()
    notes: list[str] = []
    if assign_fn is None:
        try:
            resolve_target(config.target)
        except ImportError as exc:
            raise GroupspecError(f"target {config.target!r} is not available: {exc}") from None
    _, _, moves_note = moves_fns if moves_fns is not None else moves_functions()
    if moves_note:
        notes.append(moves_note)

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    parquet_path = parquet or str(out.resolve() / "results.parquet")
    sc = spark.sparkContext
    slices = config.partitions or default_partitions(config.cases, sc.defaultParallelism)
    done = sc.accumulator(0)
    rows = sc.parallelize(range(config.cases), slices).mapPartitions(
        partial(_run_partition, config, assign_fn, moves_fns, done))
    frame = spark.createDataFrame(rows, schema=spark_schema(), verifySchema=False)

    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    with Progress(config.cases, lambda: int(done.value), progress):
        write_results(frame, parquet_path, overwrite)
    wall = time.perf_counter() - t0

    results = spark.read.parquet(parquet_path)
    summary = summarize(results, config)
    if summary["moves"]["min_moves_status"].get("over-cap"):
        notes.append(f"min_moves was skipped on {summary['moves']['min_moves_status']['over-cap']}"
                     f" cases above the cap of {config.min_moves_cap} (members x partitions x "
                     "sharing)")
    summary = {
        "inputs": {**asdict(config), "partitions": slices,
                   "master": master or str(sc.master), "parquet": parquet_path,
                   "started_at": started_at},
        "versions": _versions(spark),
        "environment": env_summary(),
        "timing": {"wall_seconds": round(wall, 3),
                   "cases_per_second": round(config.cases / wall, 2) if wall > 0 else None},
        **summary,
        "notes": notes,
    }
    frame_pd, sampled = plot_frame(results, summary["cases"])
    if sampled:
        notes.append(f"plots are drawn from a sample of {len(frame_pd)} of {summary['cases']} rows")
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n",
                                      encoding="utf-8")
    report_path = out / "report.html"
    report.write_report(report_path, summary, frame_pd)
    return SweepOutcome(summary, out, parquet_path, report_path, wall, notes)


def replay(seed: int, index: int, max_members: int = 2000,
           max_partitions: int = 5000) -> tuple[Any, dict[str, Any]]:
    """Case ``(seed, index)`` as (shape, group JSON document), for ``groupspec sweep --replay``."""
    from groupspec.generate import case
    from groupspec.group_json import group_to_json

    shape, group = case(seed, index, max_members, max_partitions)
    return shape, group_to_json(group)


def env_summary() -> dict[str, str]:
    """The Spark-related environment a run used (shown in the report's inputs)."""
    keys = ("SPARK_LOCAL_IP", "SPARK_CONF_DIR", "PYSPARK_PYTHON", "SPARK_HOME")
    return {k: os.environ[k] for k in keys if k in os.environ}

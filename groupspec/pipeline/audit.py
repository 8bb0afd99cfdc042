"""`groupspec audit`: coordinator logs read, grouped and replayed on Spark (docs/pipeline.md).

Why Spark: an offsets partition of a real cluster holds tens of GB, and a whole
``__consumer_offsets`` fifty of them; one process decodes a few hundred thousand records a
second. The work splits cleanly twice: segment files decode independently, in pieces cut at batch
boundaries (:mod:`groupspec.pipeline.audit_split`: one task a piece, so that tasks outnumber
cores whatever the number and size of the files), and after a shuffle by coordinator key every
group replays on its own
(:mod:`groupspec.pipeline.audit_core` has both stages as plain functions). Only transaction
markers cross groups (a producer's COMMIT ends its offsets in every group it wrote to); there
are few, so the driver collects them and broadcasts them to the replay.

Inputs are rows in Spark's Kafka source schema (``key``, ``value``, ``topic``, ``partition``,
``offset``, ``timestamp``, ``timestampType``, ``headers``), from segment files (read here) or from
Parquet / JSON dumps in that schema; a dump may add ``producerId``, ``producerEpoch`` and
``isControl`` (the segment reader fills them; Spark's Kafka connector has no such columns), or
from a live cluster through Spark's Kafka connector (:mod:`groupspec.pipeline.audit_live`).

Outputs, under ``--out``: ``state.parquet`` (one row per coordinator key: the reconstructed
group or share partition), ``violations.parquet``, ``quarantine.parquet``, ``summary.json`` and
``report.html``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

from groupspec.impl.codec.log_reader import partition_of
from groupspec.impl.codec.segment import segment_files
from groupspec.impl.runtime.runtime import without_cycle_collection
from groupspec.pipeline.audit_core import (
    EXTRA_COLUMNS,
    QUARANTINE_COLUMNS,
    STATE_COLUMNS,
    STATE_NAMES,
    VIOLATION_COLUMNS,
    VIOLATION_KINDS,
    Marker,
    Replayer,
    audit_group,
    key_rows,
    segment_rows,
)
from groupspec.pipeline.audit_split import Outcome, Split, plan_splits, redo, split_rows, split_size
from groupspec.pipeline.sweep import Progress
from groupspec.types import InputError
from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC

FORMATS = ("segments", "parquet", "json", "kafka")
#: The state table: the replay's columns, and the lag of each committed offset where the end
#: offsets of the committed partitions are known (a live cluster); null otherwise.
STATE_TABLE_COLUMNS = (*STATE_COLUMNS, ("lag", "array<lag>", True))
#: Partitions the summary and report list by lag.
LAG_SHOWN = 20
EndOffsets = Callable[[set[tuple[str, int]]], Mapping[tuple[str, int], int]]
#: What an executor imports to decode and replay (checked before the job on a cluster:
#: groupspec.pipeline.session.check_executors); the codec needs cramjam and google-crc32c.
EXECUTOR_MODULES = ("groupspec.pipeline.audit", "groupspec.pipeline.audit_core",
                    "groupspec.pipeline.audit_split", "cramjam", "google_crc32c")
OUTPUTS = ("state.parquet", "violations.parquet", "quarantine.parquet", "summary.json", "report.html")
#: Commit counts are gathered per second of record time; the summary merges them into at most
#: PLOT_BUCKETS buckets of whole seconds, whatever the log's time span.
BUCKET_MS = 1000
PLOT_BUCKETS = 200


@dataclass(frozen=True)
class SegmentInput:
    path: str
    topic: str
    partition: int
    size: int


def segment_inputs(paths: Iterable[str | Path]) -> list[SegmentInput]:
    """Every segment file under ``paths`` (files, or partition directories of a coordinator
    topic), each once, in (topic, partition, base offset) order.

    Paths are made absolute here, on the driver: an executor of a cluster runs in a work folder
    of its own, where a relative path names nothing (found on a standalone cluster).
    """
    found: dict[str, SegmentInput] = {}
    given = list(paths)
    if not given:
        raise InputError("PATH", "give at least one segment file or partition directory")
    for raw in given:
        path = Path(raw)
        if not path.exists():
            raise InputError(str(path), "no such file or directory")
        topic, number = partition_of(path)
        if topic not in (OFFSETS_TOPIC, SHARE_STATE_TOPIC) or number is None:
            raise InputError(str(path), f"not in a partition directory of {OFFSETS_TOPIC} or "
                             f"{SHARE_STATE_TOPIC} (such as {OFFSETS_TOPIC}-27/); for a Parquet "
                             "or JSON dump pass --format parquet or --format json")
        files = segment_files(path) if path.is_dir() else [path]
        if not files:
            raise InputError(str(path), "holds no segment files (*.log)")
        for f in files:
            found.setdefault(str(f.resolve()), SegmentInput(os.path.abspath(f), topic, number,
                                                            f.stat().st_size))
    return sorted(found.values(), key=lambda s: (s.topic, s.partition, Path(s.path).name))


def kafka_schema(extra: bool = True) -> Any:
    """Spark's Kafka source schema (and, with ``extra``, the segment reader's three columns)."""
    from pyspark.sql import types as T

    fields = [
        T.StructField("key", T.BinaryType(), True),
        T.StructField("value", T.BinaryType(), True),
        T.StructField("topic", T.StringType(), True),
        T.StructField("partition", T.IntegerType(), True),
        T.StructField("offset", T.LongType(), True),
        T.StructField("timestamp", T.TimestampType(), True),
        T.StructField("timestampType", T.IntegerType(), True),
        T.StructField("headers", T.ArrayType(T.StructType([
            T.StructField("key", T.StringType(), True),
            T.StructField("value", T.BinaryType(), True)])), True),
    ]
    if extra:
        fields += [T.StructField("producerId", T.LongType(), True),
                   T.StructField("producerEpoch", T.IntegerType(), True),
                   T.StructField("isControl", T.BooleanType(), True)]
    return T.StructType(fields)


def table_schema(columns: Sequence[tuple[str, str, bool]]) -> Any:
    from pyspark.sql import types as T

    kinds = {"long": T.LongType(), "int": T.IntegerType(), "string": T.StringType(),
             "binary": T.BinaryType(), "array<string>": T.ArrayType(T.StringType(), False),
             "map<string,long>": T.MapType(T.StringType(), T.LongType(), False),
             "array<offset>": T.ArrayType(T.StructType([
                 T.StructField("topic", T.StringType(), False),
                 T.StructField("partition", T.IntegerType(), False),
                 T.StructField("offset", T.LongType(), False)]), False),
             "array<lag>": T.ArrayType(T.StructType([
                 T.StructField("topic", T.StringType(), False),
                 T.StructField("partition", T.IntegerType(), False),
                 T.StructField("committed", T.LongType(), False),
                 T.StructField("end_offset", T.LongType(), False),
                 T.StructField("lag", T.LongType(), False)]), False)}
    return T.StructType([T.StructField(n, kinds[k], nullable) for n, k, nullable in columns])


# ---------------------------------------------------------------------------------------------
# Executor side
# ---------------------------------------------------------------------------------------------


def _bundled(tagged: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """Records of one coordinator key gathered into one list per task before the shuffle.

    A key's records sit close together in a segment, so this turns a million shuffled records
    into a few thousand shuffled lists: the per-record cost of hashing and pickling a key in the
    shuffle is what made the job slower than one process (bench/README.md).
    """
    bundles: dict[tuple[Any, ...], list[Any]] = {}
    for tag, item in tagged:
        if tag == "record":
            bundles.setdefault(item[0], []).append(item[1])
        else:
            yield tag, item
    for ckey, items in bundles.items():
        yield "record", (ckey, items)


def _decode_splits(counter: Any, splits: Iterable[tuple[Split, bool]]) -> Iterator[tuple[str, Any]]:
    """Read tasks of segment files: each split's rows keyed and bundled, its quarantine rows,
    and its ``("split", Outcome)`` for the driver's check of the offsets carried across cuts."""
    for split, watch in splits:
        with without_cycle_collection():  # a split's rows are all kept until they are bundled
            rows: list[tuple[Any, ...]] = []
            for tag, item in split_rows(split, watch=watch):
                if tag == "row":
                    rows.append(item)
                else:
                    yield tag, item
            counter.add(len(rows))
            yield from _bundled(key_rows(rows))


def _decode_dump(counter: Any, rows: Iterable[Any]) -> Iterator[tuple[str, Any]]:
    counted = 0

    def each() -> Iterator[tuple[Any, ...]]:
        nonlocal counted
        for row in rows:
            counted += 1
            yield tuple(row)

    yield from _bundled(key_rows(each()))
    counter.add(counted)


def _replay(markers: Any, counter: Any,
            groups: Iterable[tuple[Any, Iterable[Any]]]) -> Iterator[tuple[str, Any]]:
    replayer = Replayer()
    by_partition: dict[tuple[str, int], list[Marker]] = markers.value
    n = 0
    for ckey, bundles in groups:
        with without_cycle_collection():
            items = [item for bundle in bundles for item in bundle]
            result = audit_group(ckey, items, by_partition.get((ckey[0], ckey[1]), ()), replayer)
        yield "state", result.state
        for v in result.violations:
            yield "violation", v.row()
        for q in result.quarantined:
            yield "quarantine", q.row()
        buckets = Counter(ts // BUCKET_MS for ts in result.commit_times)
        for bucket, count in buckets.items():
            yield "commits", (bucket, count)
        n += 1
    counter.add(n)


def _checked(tagged: tuple[str, Any]) -> bool:
    return tagged[0] in ("marker", "split")


def _collect_checked(rdd: Any) -> tuple[list[tuple[Any, ...]], dict[int, Outcome]]:
    """The markers and, for segment files, each read partition's split outcome, in one job."""
    markers: list[tuple[Any, ...]] = []
    outcomes: dict[int, Outcome] = {}
    for at, (tag, item) in rdd.mapPartitionsWithIndex(
            lambda i, items: ((i, t) for t in items if _checked(t))).collect():
        if tag == "marker":
            markers.append((at, item))
        else:
            outcomes[at] = item
    return markers, outcomes


def _without(dropped: frozenset[int], index: int, items: Iterator[Any]) -> Iterator[Any]:
    return iter(()) if index in dropped else items


def _as_row(tagged: tuple[str, Any]) -> tuple[str, Any]:
    tag, item = tagged
    return tag, item.row() if tag in ("violation", "quarantine") else item


# ---------------------------------------------------------------------------------------------
# Driver side
# ---------------------------------------------------------------------------------------------


def read_dump(spark: Any, paths: Sequence[str], fmt: str) -> Any:
    """A dump as a DataFrame of KAFKA_COLUMNS + EXTRA_COLUMNS, timestamps in epoch ms."""

    for p in paths:
        if "://" not in p and not Path(p).exists():
            raise InputError(p, "no such file or directory")
    try:
        if fmt == "json":
            frame = spark.read.schema(kafka_schema()).json(list(paths))
        else:
            frame = spark.read.parquet(*paths)
    except Exception as exc:
        raise InputError(", ".join(paths), f"Spark cannot read it as {fmt}: "
                         f"{str(exc).splitlines()[0][:300]}") from None
    return kafka_rows(frame, ", ".join(paths))


def kafka_rows(frame: Any, where: str) -> Any:
    """``frame`` (Kafka source schema, maybe with the extra columns) in the order and types the
    decoder takes."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    columns = set(frame.columns)
    missing = [c for c in ("key", "value", "topic", "partition", "offset") if c not in columns]
    if missing:
        raise InputError(where, f"not in Spark's Kafka source schema: no column "
                         f"{', '.join(missing)} (has {', '.join(sorted(columns)) or 'none'})")
    ts = frame.schema["timestamp"].dataType if "timestamp" in columns else None
    if isinstance(ts, T.TimestampType | T.TimestampNTZType):
        timestamp = F.expr("unix_millis(timestamp)")
    elif ts is not None:
        timestamp = F.col("timestamp").cast("long")
    else:
        timestamp = F.lit(None).cast("long")
    picked = [F.col("key").cast("binary"), F.col("value").cast("binary"), F.col("topic"),
              F.col("partition").cast("int"), F.col("offset").cast("long"), timestamp.alias("timestamp"),
              (F.col("timestampType") if "timestampType" in columns else F.lit(0)).alias("timestampType"),
              F.lit(None).alias("headers")]
    picked += [(F.col(c) if c in columns else F.lit(None)).alias(c) for c in EXTRA_COLUMNS]
    return frame.select(*picked)


def dump_segments(spark: Any, paths: Sequence[str | Path], out: str, fmt: str = "parquet") -> None:
    """Write segment files as a dump in the Kafka source schema (plus the extra columns): what
    ``--format parquet|json`` reads."""
    files = segment_inputs(paths)
    utc = dt.UTC

    def rows(f: SegmentInput) -> Iterator[tuple[Any, ...]]:
        for tag, row in segment_rows(f.path, f.topic, f.partition):
            if tag == "row":
                ts = None if row[5] is None else dt.datetime.fromtimestamp(row[5] / 1000, utc)
                yield (*row[:5], ts, *row[6:])

    rdd = spark.sparkContext.parallelize(files, max(1, len(files))).flatMap(rows)
    frame = spark.createDataFrame(rdd, schema=kafka_schema())
    writer = frame.write.mode("errorifexists")
    (writer.json if fmt == "json" else writer.parquet)(out)


class _AuditProgress(Progress):
    """The sweep's progress line, counting records decoded and groups replayed (their sum is
    what the base class watches for change)."""

    def __init__(self, records: Any, groups: Any, stream: IO[str] | None) -> None:
        self.records, self.groups = records, groups
        super().__init__(0, lambda: int(records.value) + int(groups.value), stream)

    def line(self, done: int) -> str:
        records, groups = int(self.records.value), int(self.groups.value)
        elapsed = time.monotonic() - self.started
        rate = records / elapsed if elapsed > 0 else 0.0
        return f"audit: records {records}  groups {groups}  {rate:,.0f} records/s  {elapsed:.0f}s"


@dataclass
class AuditOutcome:
    summary: dict[str, Any]
    out: Path
    report: Path
    wall_seconds: float


def run_audit(spark: Any, paths: Sequence[str], out_dir: str | Path, *, fmt: str = "segments",
              partitions: int | None = None, overwrite: bool = True,
              progress: IO[str] | None = None, master: str | None = None,
              end_offsets: EndOffsets | None = None, split_bytes: int | None = None) -> AuditOutcome:
    """Audit ``paths`` on ``spark``; write the three tables, summary.json and report.html.

    ``partitions`` is how many tasks replay groups (default: twice the cores, at least 2): it
    changes where each group is replayed, never what the outputs hold. With ``fmt`` "kafka",
    ``paths`` is one bootstrap address and the session must carry the connector
    (:func:`groupspec.pipeline.audit_live.session_conf`). ``end_offsets``, given the committed
    partitions, returns their end offsets: the state table and the report then show lag. It is
    asked after the log has been read, so lag is never negative for a commit read here.
    ``split_bytes`` is the size segment files are cut to for reading (0: one task a file; None:
    :func:`~groupspec.pipeline.audit_split.split_size` picks it); it changes the read tasks,
    never what the outputs hold.
    """
    from pyspark import StorageLevel

    from groupspec.pipeline import audit_report
    from groupspec.pipeline.sweep import _versions, env_summary

    if fmt not in FORMATS:
        raise InputError("--format", f"{fmt!r}: expected one of {', '.join(FORMATS)}")
    sc = spark.sparkContext
    records_done = sc.accumulator(0)
    groups_done = sc.accumulator(0)
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()  # the walk of the segments' batch headers is part of the job
    files: list[SegmentInput] = []
    splits: list[Split] = []
    target = read_again = 0
    walked = 0.0
    if fmt == "segments":
        files = segment_inputs(paths)
        target = split_size(sum(f.size for f in files), sc.defaultParallelism, split_bytes)
        splits = [s for i, f in enumerate(files)
                  for s in plan_splits(f.path, f.topic, f.partition, i, target)]
        walked = time.perf_counter() - t0
        # One split a partition: the driver's check drops a partition by its index.
        tagged = sc.parallelize([(s, s.index > 0) for s in splits], len(splits)).mapPartitions(
            partial(_decode_splits, records_done))
    elif fmt == "kafka":
        from groupspec.pipeline.audit_live import read_live

        if len(paths) != 1:
            raise InputError("--bootstrap", "give one cluster (HOST:PORT[,HOST:PORT...])")
        live = kafka_rows(read_live(spark, paths[0]), paths[0])
        tagged = live.rdd.mapPartitions(partial(_decode_dump, records_done))
    else:
        tagged = read_dump(spark, list(paths), fmt).rdd.mapPartitions(
            partial(_decode_dump, records_done))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks = partitions or max(2, 2 * sc.defaultParallelism)
    with _AuditProgress(records_done, groups_done, progress):
        tagged = tagged.persist(StorageLevel.MEMORY_AND_DISK)
        cached = [tagged]
        marked, outcomes = _collect_checked(tagged)
        if splits:
            tagged, marked, records, read_again = _read_again(sc, tagged, splits, marked, outcomes,
                                                              records_done)
            cached.append(tagged)
        found: dict[tuple[str, int], list[Marker]] = {}
        for _, (topic, part, offset, pid, epoch, commit) in marked:
            found.setdefault((topic, part), []).append((offset, pid, epoch, commit))
        for markers in found.values():
            markers.sort()
        broadcast = sc.broadcast(found)
        replayed = (tagged.filter(lambda t: t[0] == "record").map(lambda t: t[1])
                    .groupByKey(tasks).mapPartitions(partial(_replay, broadcast, groups_done)))
        early = tagged.filter(lambda t: t[0] in ("violation", "quarantine")).map(_as_row)
        results = replayed.union(early).persist(StorageLevel.MEMORY_AND_DISK)
        ends: Mapping[tuple[str, int], int] | None = None
        if end_offsets is not None:
            committed = set(results.filter(lambda t: t[0] == "state")
                            .flatMap(lambda t: [(o[0], o[1]) for o in t[1][_OFFSETS_AT]])
                            .distinct().collect())
            ends = dict(end_offsets(committed))
        with_lag = results.map(partial(_with_lag, ends))
        tables = (("state", STATE_TABLE_COLUMNS), ("violation", VIOLATION_COLUMNS),
                  ("quarantine", QUARANTINE_COLUMNS))
        for (tag, columns), name in zip(tables, OUTPUTS, strict=False):
            frame = spark.createDataFrame(with_lag.filter(lambda t, tag=tag: t[0] == tag).map(lambda t: t[1]),
                                          schema=table_schema(columns), verifySchema=False)
            frame.write.mode("overwrite" if overwrite else "errorifexists").parquet(str(out / name))
        summary = summarize(results)
        summary["lag"] = summarize_lag(with_lag) if ends is not None else None
        if not splits:
            records = int(records_done.value)
    wall = time.perf_counter() - t0
    with contextlib.suppress(Exception):
        results.unpersist()
        for rdd in cached:
            rdd.unpersist()
    summary = {
        "inputs": {"paths": [str(p) for p in paths], "format": fmt, "files": len(files),
                   "end_offsets": "given" if ends is not None else "not given",
                   "bytes": sum(f.size for f in files) or None, "partitions": tasks,
                   "read_tasks": len(splits) or None, "split_bytes": target if files else None,
                   "read_again": read_again if files else None,
                   "master": master or str(sc.master), "started_at": started_at},
        "versions": _versions(spark), "environment": env_summary(),
        "timing": {"wall_seconds": round(wall, 3), "records": records,
                   "split_walk_seconds": round(walked, 3) if files else None,
                   "records_per_second": round(records / wall, 1) if wall > 0 else None},
        **summary,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    report = audit_report.write_report(out / "report.html", summary)
    return AuditOutcome(summary, out, report, wall)


def _read_again(sc: Any, tagged: Any, splits: list[Split], marked: list[tuple[int, Any]],
                outcomes: dict[int, Outcome], counter: Any) -> tuple[Any, list[tuple[int, Any]], int, int]:
    """Where a split's assumed starting offset proved wrong, its partition and those after it
    in its file are dropped and the rest of the file read again as one piece (rare: a damaged
    or out-of-order batch just after a cut); the tagged rows, markers and record count to go on
    with."""
    from pyspark import StorageLevel

    if sorted(outcomes) != list(range(len(splits))) or any(
            (o.file, o.index) != (splits[i].file, splits[i].index) for i, o in outcomes.items()):
        raise AssertionError("the read stage did not keep one split a partition")
    pieces = redo(splits, [outcomes[i] for i in range(len(splits))])
    if not pieces:
        return tagged, marked, sum(o.rows for o in outcomes.values()), 0
    first = {p.file: p.index for p in pieces}
    dropped = frozenset(i for i, s in enumerate(splits) if s.index >= first.get(s.file, len(splits) + 1))
    kept = tagged.mapPartitionsWithIndex(partial(_without, dropped), preservesPartitioning=True)
    again = sc.parallelize([(p, False) for p in pieces], len(pieces)).mapPartitions(
        partial(_decode_splits, counter)).persist(StorageLevel.MEMORY_AND_DISK)
    more, redone = _collect_checked(again)
    rows = sum(o.rows for i, o in outcomes.items() if i not in dropped) + \
        sum(o.rows for o in redone.values())
    return kept.union(again), [m for m in marked if m[0] not in dropped] + more, rows, len(pieces)


_OFFSETS_AT = STATE_NAMES.index("offsets")


def _with_lag(ends: Mapping[tuple[str, int], int] | None, tagged: tuple[str, Any]) -> tuple[str, Any]:
    """State rows get the lag column (null without end offsets); other rows pass unchanged."""
    from groupspec.pipeline.audit_live import lag_rows

    tag, row = tagged
    if tag != "state":
        return tagged
    return tag, (*row, None if ends is None else lag_rows(row[_OFFSETS_AT], ends))


def summarize_lag(with_lag: Any) -> dict[str, Any]:
    """Total lag, and the LAG_SHOWN partitions with the most lag (group, topic, partition)."""
    group_at = STATE_NAMES.index("group_id")
    rows = (with_lag.filter(lambda t: t[0] == "state" and t[1][-1])
            .flatMap(lambda t: [(t[1][group_at], *lag) for lag in t[1][-1]]).collect())
    rows.sort(key=lambda r: (-r[5], r[0], r[1], r[2]))
    names = ("group_id", "topic", "partition", "committed", "end_offset", "lag")
    return {"partitions": len(rows), "total": sum(r[5] for r in rows),
            "groups": len({r[0] for r in rows}),
            "largest": [dict(zip(names, r, strict=True)) for r in rows[:LAG_SHOWN]]}


def _tally(rows: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Executor side of the summary: counters over one partition of tagged result rows."""
    kind_at, state_at = STATE_NAMES.index("kind"), STATE_NAMES.index("state")
    members_at = STATE_NAMES.index("member_count")
    t: dict[str, Any] = {"kind": Counter(), "state": Counter(), "members": Counter(),
                         "violations": Counter(), "reasons": Counter(), "commits": Counter(),
                         "examples": {}}
    for tag, row in rows:
        if tag == "state":
            if row[kind_at] == "share-partition":
                t["kind"]["share-partition"] += 1
                continue
            t["kind"][row[kind_at]] += 1
            t["state"][f"{row[kind_at]}/{row[state_at]}"] += 1
            t["members"][row[members_at]] += 1
        elif tag == "violation":
            t["violations"][row[3]] += 1
            t["examples"].setdefault(row[3], []).append(row)
            t["examples"][row[3]] = sorted(t["examples"][row[3]], key=_example_order)[:5]
        elif tag == "quarantine":
            t["reasons"][str(row[3]).split(":")[0]] += 1
        elif tag == "commits":
            t["commits"][row[0]] += row[1]
    return t


def _example_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return (row[0], row[1], -1 if row[4] is None else row[4], row[6])


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    for name, counter in b.items():
        if name == "examples":
            for kind, rows in counter.items():
                a["examples"][kind] = sorted(a["examples"].get(kind, []) + rows, key=_example_order)[:5]
        else:
            a[name].update(counter)
    return a


def summarize(results: Any) -> dict[str, Any]:
    """Counts over the tagged result rows, in one Spark job (a per-partition tally, merged)."""
    t = results.mapPartitions(lambda rows: [_tally(rows)]).reduce(_merge)
    kinds = dict(t["kind"])
    share_partitions = kinds.pop("share-partition", 0)
    examples = {k: [dict(zip(("topic", "partition", "group_id", "kind", "offset", "timestamp", "detail"),
                             r, strict=True)) for r in rows] for k, rows in sorted(t["examples"].items())}
    return {
        "groups": sum(kinds.values()),
        "share_partitions": share_partitions,
        "groups_by_kind": dict(sorted(kinds.items())),
        "groups_by_state": dict(sorted(t["state"].items())),
        "members_per_group": dict(sorted(t["members"].items())),
        "violations": sum(t["violations"].values()),
        "violations_by_kind": dict(sorted(t["violations"].items())),
        "violation_kinds": dict(VIOLATION_KINDS),
        "violation_examples": examples,
        "quarantined": sum(t["reasons"].values()),
        "quarantined_by_reason": dict(sorted(t["reasons"].items())),
        "commit_rate": _rebin(t["commits"]),
    }


def _rebin(seconds: Counter[int]) -> dict[str, Any]:
    """Per-second commit counts as at most PLOT_BUCKETS buckets of equal width."""
    if not seconds:
        return {"bucket_ms": BUCKET_MS, "buckets": []}
    first, last = min(seconds), max(seconds)
    width = max(1, -(-(last - first + 1) // PLOT_BUCKETS))
    merged: Counter[int] = Counter()
    for second, n in seconds.items():
        merged[first + (second - first) // width * width] += n
    return {"bucket_ms": width * BUCKET_MS,
            "buckets": [[b * BUCKET_MS, n] for b, n in sorted(merged.items())]}

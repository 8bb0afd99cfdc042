"""``groupspec fuzz``: seeded spec-vs-impl runs on Spark, each disagreement shrunk to a vector.

Theory of operation
-------------------
A run is named by ``(machine, seed, index)``: :mod:`groupspec.pipeline.fuzz_gen` rebuilds its
events from those three values on whatever executor gets it, so only integers are distributed
(as in the sweep). Each run is handed, as the JSON input of the machine's ``run`` handler, to
two targets through the same in-process table the conformance runner uses
(:func:`groupspec.conformance.targets.dispatch`), and the two outputs are compared by the
machine's own judge (``JUDGE.compare``): a disagreement here is exactly a failing vector there.
A target that raises is an error answer (kind and message, as the runner reports it); two
errors agree only when both kind and message do.

Counterexamples are shrunk by deleting events, deterministically: first the shortest prefix
that still disagrees (binary search is not sound when a later event can mask an earlier
difference, so prefixes are tried in order from the first event the judge names), then chunks
of halving size, then single events, keeping a deletion whenever the two targets still disagree
and the reference target (``--target-a``) still answers an output rather than an error (a
vector's ``expected`` cannot be an error for these machines), and a difference beyond the order
of records stays one; the events that set a run up (:data:`fuzz_gen.SETUP`) are never deleted.
Shrinking happens in a second Spark stage, one task per counterexample, for at most
``max_vectors`` counterexamples per machine (the lowest indices, those that differ in more than
the order of one event's records first), so a bug that every run hits does not cost a shrink
per run.

The ``kafka`` target is Kafka's own classes behind the adapter program of
:mod:`groupspec.conformance.kafka_target`: the driver builds it once, and each Python worker
starts one process on first use and keeps it (``_ADAPTERS``). A run it cannot express gets no
verdict rather than a disagreement.

Each shrunk run is written as a vector in the conformance format with the reference target's
output as ``expected`` (and ``expected_kafka`` when either target is Kafka-flavoured, so the
Kafka-flavoured judge holds it to the same answer), under ``OUT/vectors/<machine>/run/<case>/``
with a manifest, so ``groupspec conformance --vectors OUT/vectors --target B`` replays it.

Tests plant bugs through ``call``: a function ``(target, machine, input doc) -> output doc``
that replaces :func:`dispatch` (pickled to the executors by value when defined in a function).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import IO, Any

from groupspec import machines
from groupspec.pipeline.fuzz_gen import FUZZ_MACHINES, generate
from groupspec.types import GroupspecError, InputError

#: ``(target, machine, run input doc) -> run output doc``; raising is the target's error answer.
Call = Callable[[str, str, Any], Any]

DEFAULT_RUNS = 200
DEFAULT_LENGTH = 40
DEFAULT_MAX_VECTORS = 5
#: Seconds the Kafka adapter may take over one run before it counts as hung.
ADAPTER_TIMEOUT_S = 60.0
#: The targets a fuzz compares: the in-process layers, and Kafka's own classes.
TARGETS = (*machines.IN_PROCESS, "kafka")
#: What the fuzz writes into --out (named in errors about that folder).
OUTPUTS = ("summary.json", "report.html", "vectors")
#: What an executor imports to generate and run both targets (checked before the job on a
#: cluster: groupspec.pipeline.session.check_executors); the spec needs icontract.
EXECUTOR_MODULES = ("groupspec.pipeline.fuzz", "groupspec.conformance.targets", "icontract")


@dataclasses.dataclass(frozen=True)
class FuzzConfig:
    machines: tuple[str, ...] = FUZZ_MACHINES
    runs: int = DEFAULT_RUNS
    seed: int = 0
    length: int = DEFAULT_LENGTH
    target_a: str = "spec"
    target_b: str = "impl"
    partitions: int | None = None
    max_vectors: int = DEFAULT_MAX_VECTORS
    #: The program line of the built Kafka adapter, when a target is ``kafka`` (set by the
    #: driver after building it once, so executors only start it).
    kafka_command: str | None = None

    def validate(self) -> None:
        """Every option a user can get wrong, as one InputError naming it, before Spark starts."""
        from groupspec.pipeline.options import at_least

        at_least("--runs", self.runs, 1)
        at_least("--length", self.length, 1)
        at_least("--partitions", self.partitions, 1)
        at_least("--max-vectors", self.max_vectors, 0)
        if not self.machines:
            raise InputError("--machine", "no machine given")
        for m in self.machines:
            if m not in FUZZ_MACHINES:
                known = ", ".join(FUZZ_MACHINES)
                why = "" if m in machines.BY_NAME else " (not a machine)"
                raise InputError("--machine", f"no fuzz generator for {m!r}{why}; expected one of {known}")
        for field, target in (("--target-a", self.target_a), ("--target-b", self.target_b)):
            if target not in TARGETS:
                raise InputError(field, f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
            for m in self.machines:
                if target in machines.IN_PROCESS and target not in machines.BY_NAME[m].targets:
                    raise InputError(field, f"target {target!r} does not implement {m}")
        if self.target_a == self.target_b:
            raise InputError("--target-b", f"the same target as --target-a ({self.target_a!r}): "
                             "nothing to compare")


# ---------------------------------------------------------------------------------------------
# One run: generate, answer, compare
# ---------------------------------------------------------------------------------------------

class TargetError(Exception):
    """An out-of-process target's error answer, with the kind it gave."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class TargetUnsupported(Exception):
    """The target cannot express this run (the Kafka adapter's reason): no verdict on it."""


#: One Kafka adapter process per Python worker, by program line, started on first use.
_ADAPTERS: dict[str, Any] = {}


def _adapter(command: str) -> Any:
    from groupspec.conformance.targets import CommandTarget

    if command not in _ADAPTERS:
        import atexit

        target = CommandTarget(command, ADAPTER_TIMEOUT_S)
        atexit.register(target.close)
        _ADAPTERS[command] = target
    return _ADAPTERS[command]


def make_call(kafka_command: str | None) -> Call:
    """The default dispatch: in-process targets through the conformance table, ``kafka``
    through the adapter program (``kafka_command``)."""
    return partial(_call, kafka_command)


def _call(kafka_command: str | None, target: str, machine: str, doc: Any) -> Any:
    if target != "kafka":
        return default_call(target, machine, doc)
    if kafka_command is None:
        raise GroupspecError("the kafka target needs the adapter's command (FuzzConfig.kafka_command)")
    response = _adapter(kafka_command).call(f"fuzz-{machine}", machine, "run", doc)
    if response.unsupported is not None:
        raise TargetUnsupported(response.unsupported)
    if response.broken is not None:
        raise TargetError("broken", response.broken)
    if response.error is not None:
        raise TargetError(*response.error)
    return response.output


def default_call(target: str, machine: str, doc: Any) -> Any:
    from groupspec.conformance.targets import dispatch

    return dispatch(target, machine, "run", doc)


@dataclasses.dataclass(frozen=True)
class Answer:
    """A target's answer to one run: an output document, or an error (kind, message)."""

    output: Any = None
    error: tuple[str, str] | None = None
    seconds: float = 0.0
    unsupported: str | None = None


def answer(call: Call, target: str, machine: str, doc: Any) -> Answer:
    from groupspec.conformance.targets import error_kind

    started = time.perf_counter()
    try:
        output = call(target, machine, doc)
    except TargetUnsupported as exc:
        return Answer(unsupported=str(exc), seconds=time.perf_counter() - started)
    except TargetError as exc:
        return Answer(error=(exc.kind, str(exc)), seconds=time.perf_counter() - started)
    except Exception as exc:
        return Answer(error=(error_kind(exc), f"{type(exc).__name__}: {exc}"),
                      seconds=time.perf_counter() - started)
    return Answer(output=output, seconds=time.perf_counter() - started)


def differences(machine: str, a: Answer, b: Answer) -> list[str]:
    """The judge's diff lines between two answers (``a`` is the expected one); empty: agree,
    or no verdict (a target cannot express the run)."""
    if a.unsupported is not None or b.unsupported is not None:
        return []
    if a.error is not None or b.error is not None:
        if a.error == b.error:
            return []
        said = {"a": a.error or "an output", "b": b.error or "an output"}
        return [f"answer: {said['a']!r} vs {said['b']!r}"]
    judge = machines.load(machines.BY_NAME[machine].judge)
    try:
        return list(judge.compare(a.output, b.output))
    except InputError as exc:  # a malformed output is a disagreement, said as the runner says it
        return [f"malformed output: {exc}"]


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True)


def _client_output_sorted(item: Any) -> Any:
    """One classic consumer output with the lists Kafka builds from a hash map in one order: a
    commit's partitions per topic, the leader's assignments per member (SyncGroup), a commit
    callback's offsets."""
    if not isinstance(item, dict):
        return item
    if item.get("type") == "CommitCallback" and isinstance(item.get("offsets"), list):
        return {**item, "offsets": sorted(item["offsets"], key=_key)}
    if item.get("type") != "Sent":
        return item
    out = dict(item)
    if isinstance(out.get("assignments"), list):
        out["assignments"] = sorted(out["assignments"], key=_key)
    request = out.get("request")
    if isinstance(request, dict) and request.get("type") == "OffsetCommit" \
            and isinstance(request.get("topics"), list):
        out["request"] = {**request, "topics": [
            {**t, "partitions": sorted(t["partitions"], key=_key)} if isinstance(t, dict)
            and isinstance(t.get("partitions"), list) else t for t in request["topics"]]}
    return out


def _records_sorted(output: Any) -> Any:
    """An output document with each event's records (a client's hash-ordered lists) in one
    canonical order."""
    events = []
    for out in output.get("outputs", []):
        if isinstance(out, dict) and isinstance(out.get("records"), list):
            out = {**out, "records": sorted(out["records"], key=_key)}
        elif isinstance(out, list):
            out = [_client_output_sorted(item) for item in out]
        events.append(out)
    return {**output, "outputs": events}


def order_only(machine: str, a: Answer, b: Answer) -> bool:
    """Whether two disagreeing outputs agree once each event's records are put in one order.

    Kafka writes the records of one event in the order it walks a hash map where groupspec
    writes them sorted (docs/divergences.md: classic_tombstone_order, share_state_key_order,
    share_group_orders), so against the Kafka target most disagreements are of this kind; the
    summary counts them apart so that a new difference stands out. Everything else (answers,
    the final view) must still be equal. The classic consumer's client does the same with a
    commit's partitions (classic_commit_partition_order), the leader's SyncGroup assignments
    (docs/machines/classic_consumer.md, "Not modelled yet") and a commit callback's offsets (a
    map in Kafka, listed sorted by its adapter), so those lists are put in one order too."""
    if a.output is None or b.output is None:
        return False
    judge = machines.load(machines.BY_NAME[machine].judge)
    try:
        return not judge.compare(_records_sorted(a.output), _records_sorted(b.output))
    except (InputError, AttributeError, TypeError):
        return False


def input_doc(machine: str, run: Any) -> Any:
    from importlib import import_module

    return import_module(f"groupspec.conformance.{machine}_json").run_input_to_json(run)


def run_one(config: FuzzConfig, machine: str, index: int, call: Call | None = None) -> dict[str, Any]:
    """One run as a row: sizes, times, and the first difference (None when the targets agree);
    a disagreeing row keeps its input document for the shrinking stage."""
    call = call or make_call(config.kafka_command)
    started = time.perf_counter()
    try:
        doc = input_doc(machine, generate(machine, config.seed, index, config.length))
    except Exception as exc:  # a generator bug: one row that says so, not a failed Spark job
        return {"machine": machine, "seed": config.seed, "index": index, "events": 0,
                "seconds_generate": time.perf_counter() - started, "seconds_a": 0.0, "seconds_b": 0.0,
                "error_a": None, "error_b": None, "unsupported": False, "disagree": False,
                "first_difference": None, "order_only": False, "input": None,
                "generator_error": f"{type(exc).__name__}: {exc}"}
    generated = time.perf_counter() - started
    a = answer(call, config.target_a, machine, doc)
    b = answer(call, config.target_b, machine, doc)
    diff = differences(machine, a, b)
    return {"machine": machine, "seed": config.seed, "index": index, "events": len(doc["events"]),
            "seconds_generate": generated, "seconds_a": a.seconds, "seconds_b": b.seconds,
            "error_a": a.error[0] if a.error else None, "error_b": b.error[0] if b.error else None,
            "unsupported": (a.unsupported or b.unsupported) is not None,
            "disagree": bool(diff), "first_difference": diff[0] if diff else None,
            "order_only": bool(diff) and order_only(machine, a, b),
            "input": doc if diff else None, "generator_error": None}


# ---------------------------------------------------------------------------------------------
# Shrinking
# ---------------------------------------------------------------------------------------------

def _with_events(doc: Mapping[str, Any], events: Sequence[Any]) -> dict[str, Any]:
    return {**doc, "events": list(events)}


def shrink(config: FuzzConfig, machine: str, doc: Mapping[str, Any], call: Call | None = None,
           budget: int = 2_000) -> tuple[dict[str, Any], int]:
    """A smallest-found run that still disagrees: (input doc, runs tried). Deterministic: the
    same input always shrinks to the same run. ``budget`` bounds the replays (each replay runs
    both targets once)."""
    from groupspec.pipeline.fuzz_gen import SETUP

    call = call or make_call(config.kafka_command)
    tried = 0
    first_a = answer(call, config.target_a, machine, dict(doc))
    a_failed = first_a.error is not None
    # a difference beyond the order of records is not shrunk into one of order only, which a
    # later event of the run may show as well (the summary puts such runs first for this)
    beyond_order = not order_only(machine, first_a, answer(call, config.target_b, machine, dict(doc)))
    # the events that set the run up are kept (fuzz_gen.SETUP says why, per machine)
    setup = list(doc["events"][:SETUP[machine](doc)]) if machine in SETUP else []

    def disagrees(events: Sequence[Any]) -> bool:
        nonlocal tried
        tried += 1
        candidate = _with_events(doc, [*setup, *events])
        a = answer(call, config.target_a, machine, candidate)
        if a.error is not None and not a_failed:
            return False
        b = answer(call, config.target_b, machine, candidate)
        return bool(differences(machine, a, b)) and not (beyond_order and order_only(machine, a, b))

    events = list(doc["events"][len(setup):])
    # The shortest disagreeing prefix, scanned upward (a later event may mask a difference).
    for n in range(1, len(events)):
        if tried >= budget // 2:
            break
        if disagrees(events[:n]):
            events = events[:n]
            break
    # Delete chunks of halving size, then single events, until a full pass deletes nothing.
    chunk = max(1, len(events) // 2)
    while chunk >= 1 and tried < budget:
        removed = False
        start = 0
        while start < len(events) and tried < budget:
            candidate = events[:start] + events[start + chunk:]
            if candidate and disagrees(candidate):
                events = candidate
                removed = True
            else:
                start += chunk
        if chunk == 1 and not removed:
            break
        chunk = max(1, chunk // 2) if chunk > 1 else 1
    return _with_events(doc, [*setup, *events]), tried


def vector_doc(config: FuzzConfig, machine: str, index: int, doc: Mapping[str, Any], original: int,
               call: Call | None = None) -> dict[str, Any] | None:
    """The shrunk run as a conformance vector, expected = ``target_a``'s output (None when
    ``target_a`` answers an error: these machines' vectors cannot expect one)."""
    from groupspec.conformance.targets import DEFAULT_FLAVOUR
    from groupspec.conformance.vector_format import FORMAT_VERSION

    call = call or make_call(config.kafka_command)
    a = answer(call, config.target_a, machine, dict(doc))
    b = answer(call, config.target_b, machine, dict(doc))
    if a.output is None:
        return None
    diff = differences(machine, a, b)
    entry = machines.BY_NAME[machine]
    vector: dict[str, Any] = {
        "format": FORMAT_VERSION, "machine": machine, "handler": "run",
        "case": f"fuzz_s{config.seed}_i{index:06d}",
        "description": (f"Found by groupspec fuzz (seed {config.seed}, run {index}, {original} events, "
                        f"shrunk to {len(doc['events'])}): {config.target_b} disagreed with "
                        f"{config.target_a}, whose answer is expected. First difference: "
                        f"{diff[0] if diff else 'none on replay'}"),
        "source": {"kind": "generated", "generator": "groupspec fuzz", "seed": config.seed,
                   "index": index, "length": config.length, "target_a": config.target_a,
                   "target_b": config.target_b},
        "mode": "exact", "properties": list(entry.property_names()), "input": dict(doc),
        "expected": a.output,
    }
    if "kafka" in (DEFAULT_FLAVOUR[config.target_a], DEFAULT_FLAVOUR[config.target_b]):
        vector["expected_kafka"] = a.output
    return vector


def shrink_one(config: FuzzConfig, call: Call | None, item: tuple[str, int, Any]) -> dict[str, Any]:
    """Executor side of the second stage: one counterexample shrunk and made a vector."""
    machine, index, doc = item
    started = time.perf_counter()
    small, tried = shrink(config, machine, doc, call)
    vector = vector_doc(config, machine, index, small, len(doc["events"]), call)
    return {"machine": machine, "index": index, "events": len(doc["events"]),
            "shrunk_events": len(small["events"]), "replays": tried,
            "seconds": time.perf_counter() - started, "vector": vector}


# ---------------------------------------------------------------------------------------------
# Spark side
# ---------------------------------------------------------------------------------------------

def _run_partition(config: FuzzConfig, call: Call | None, done: Any,
                   items: Iterable[tuple[str, int]]) -> Iterator[dict[str, Any]]:
    for machine, index in items:
        row = run_one(config, machine, index, call)
        done.add(1)
        yield row


def write_vectors(root: Path, vectors: Sequence[Mapping[str, Any]]) -> list[str]:
    """The vectors and their manifest under ``root`` (a conformance version folder); the paths."""
    from groupspec.conformance import vector_format as vf

    entries = []
    for doc in vectors:
        vf.vector_from_json(doc, doc["case"])  # never write what the runner would refuse
        path = vf.vector_path(doc["machine"], doc["handler"], doc["case"])
        text = vf.dumps(doc)
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
        entries.append({"path": path, "machine": doc["machine"], "handler": doc["handler"],
                        "case": doc["case"], "mode": doc["mode"], "source": "generated",
                        "sha256": vf.sha256(text.encode("utf-8"))})
    entries.sort(key=lambda e: e["path"])
    root.mkdir(parents=True, exist_ok=True)
    manifest = {"format": vf.FORMAT_VERSION, "kafka": vf.KAFKA_VERSION, "generator": "groupspec fuzz",
                "count": len(entries), "vectors": entries}
    (root / vf.MANIFEST_FILE).write_text(vf.dumps(manifest), encoding="utf-8")
    return [e["path"] for e in entries]


@dataclasses.dataclass(frozen=True)
class FuzzOutcome:
    summary: dict[str, Any]
    out: Path
    report: Path
    vectors: list[str]
    wall_seconds: float


def _progress(total: int, read: Callable[[], int], stream: IO[str] | None) -> Any:
    from groupspec.pipeline.sweep import Progress

    class FuzzProgress(Progress):
        def line(self, done: int) -> str:
            elapsed = time.monotonic() - self.started
            rate = done / elapsed if elapsed > 0 else 0.0
            pct = 100 * done // self.total if self.total else 100
            return f"fuzz: runs {done}/{self.total} ({pct}%)  {rate:.1f} runs/s  {elapsed:.0f}s"

    return FuzzProgress(total, read, stream)


def summarize(config: FuzzConfig, rows: Sequence[Mapping[str, Any]],
              shrunk: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    per_machine: dict[str, Any] = {}
    for m in config.machines:
        mine = [r for r in rows if r["machine"] == m]
        bad = [r for r in mine if r["disagree"]]
        small = [s for s in shrunk if s["machine"] == m]
        per_machine[m] = {
            "runs": len(mine), "events": sum(r["events"] for r in mine),
            "disagreements": len(bad),
            "order_only": sum(1 for r in bad if r["order_only"]),
            "unsupported": sum(1 for r in mine if r["unsupported"]),
            "generator_errors": sum(1 for r in mine if r["generator_error"]),
            "first_generator_error": next((f"run {r['index']}: {r['generator_error']}" for r in mine
                                           if r["generator_error"]), None),
            "first": ({"index": bad[0]["index"], "first_difference": bad[0]["first_difference"]}
                      if bad else None),
            "errors_a": sum(1 for r in mine if r["error_a"]),
            "errors_b": sum(1 for r in mine if r["error_b"]),
            "seconds_a": round(sum(r["seconds_a"] for r in mine), 4),
            "seconds_b": round(sum(r["seconds_b"] for r in mine), 4),
            "seconds_generate": round(sum(r["seconds_generate"] for r in mine), 4),
            "shrunk": [{k: s[k] for k in ("index", "events", "shrunk_events", "replays")}
                       | {"seconds": round(s["seconds"], 3),
                          "vector": s["vector"]["case"] if s["vector"] else None} for s in small],
            "minimal_length": min((s["shrunk_events"] for s in small), default=None),
        }
    return {"machines": per_machine, "disagreements": sum(v["disagreements"] for v in per_machine.values()),
            "generator_errors": sum(v["generator_errors"] for v in per_machine.values())}


def run_fuzz(spark: Any, config: FuzzConfig, out_dir: str | Path, *, call: Call | None = None,
             progress: IO[str] | None = None, master: str | None = None) -> FuzzOutcome:
    """Run the fuzz on ``spark``; write ``summary.json``, ``report.html`` and ``vectors/``."""
    from groupspec.pipeline.sweep import _versions, default_partitions

    config.validate()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sc = spark.sparkContext
    items = [(m, i) for i in range(config.runs) for m in config.machines]
    slices = config.partitions or default_partitions(len(items), sc.defaultParallelism)
    done = sc.accumulator(0)
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    with _progress(len(items), lambda: int(done.value), progress):
        rows = sc.parallelize(items, slices).mapPartitions(
            partial(_run_partition, config, call, done)).collect()
    run_wall = time.perf_counter() - t0
    chosen: list[tuple[str, int, Any]] = []
    for m in config.machines:
        # Differences beyond record order first: those are the ones worth a vector each.
        bad = sorted((r for r in rows if r["machine"] == m and r["disagree"]),
                     key=lambda r: (r["order_only"], r["index"]))
        chosen += [(m, r["index"], r["input"]) for r in bad[:config.max_vectors]]
    t1 = time.perf_counter()
    shrunk = sc.parallelize(chosen, max(1, len(chosen))).map(partial(shrink_one, config, call)).collect() \
        if chosen else []
    shrink_wall = time.perf_counter() - t1
    shutil.rmtree(out / "vectors", ignore_errors=True)  # a rerun's vectors replace the last run's whole
    kept = [s["vector"] for s in shrunk if s["vector"]]
    written = write_vectors(out / "vectors", kept) if kept else []
    summary = summarize(config, rows, shrunk)
    total_runs = len(rows)
    summary = {
        "inputs": {**dataclasses.asdict(config), "partitions": slices,
                   "master": master or str(sc.master), "started_at": started_at},
        "versions": _versions(spark),
        "timing": {"run_seconds": round(run_wall, 3), "shrink_seconds": round(shrink_wall, 3),
                   "runs_per_second": round(total_runs / run_wall, 2) if run_wall > 0 else None},
        **summary,
        "vectors": written,
        "replay": (f"groupspec conformance --vectors {out / 'vectors'} --target {config.target_b}"
                   if written else None),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    report = out / "report.html"
    report.write_text(render(summary), encoding="utf-8")
    return FuzzOutcome(summary, out, report, written, run_wall + shrink_wall)


def render(summary: Mapping[str, Any]) -> str:
    """A self-contained HTML page: the verdict, runs and disagreements per machine, each shrunk
    counterexample with its vector, the inputs."""
    from html import escape

    def e(value: Any) -> str:
        return escape(str(value))

    inputs = summary["inputs"]
    verdict = ("no disagreement" if not summary["disagreements"] else
               f"{summary['disagreements']} disagreeing run(s)")
    rows = []
    for m, s in summary["machines"].items():
        runs = max(1, s["runs"])
        rows.append(f"<tr><td>{e(m)}</td><td>{s['runs']}</td><td>{s['events']}</td>"
                    f"<td>{s['disagreements']}</td><td>{s['order_only']}</td><td>{s['unsupported']}</td>"
                    f"<td>{s['generator_errors']}</td><td>{e(s['minimal_length'] or '')}</td>"
                    f"<td>{1000 * s['seconds_a'] / runs:.2f}</td><td>{1000 * s['seconds_b'] / runs:.2f}</td>"
                    f"<td>{e((s['first'] or {}).get('first_difference') or '')}</td></tr>")
    found = []
    for m, s in summary["machines"].items():
        for x in s["shrunk"]:
            found.append(f"<tr><td>{e(m)}</td><td>{x['index']}</td><td>{x['events']}</td>"
                         f"<td>{x['shrunk_events']}</td><td>{x['replays']}</td>"
                         f"<td>{e(x['vector'] or 'none: the reference answered an error')}</td></tr>")
    replay = f"<p>Replay: <code>{e(summary['replay'])}</code></p>" if summary.get("replay") else ""
    kv = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>"
                 for k, v in {**inputs, **summary["timing"], **summary["versions"]}.items())
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>groupspec fuzz</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}</style></head><body>
<h1>groupspec fuzz: {e(inputs['target_a'])} vs {e(inputs['target_b'])}</h1>
<p><b>{e(verdict)}</b> in {sum(s['runs'] for s in summary['machines'].values())} runs
(seed {inputs['seed']}, up to {inputs['length']} events a run).</p>
<h2>Per machine</h2>
<table><tr><th>machine</th><th>runs</th><th>events</th><th>disagreements</th>
<th>of them, record order only</th><th>no verdict</th>
<th>generator errors</th><th>minimal length</th>
<th>ms/run {e(inputs['target_a'])}</th><th>ms/run {e(inputs['target_b'])}</th><th>first difference</th></tr>
{''.join(rows)}</table>
<h2>Counterexamples, shrunk</h2>
<table><tr><th>machine</th><th>run</th><th>events</th><th>shrunk to</th><th>replays</th><th>vector</th></tr>
{''.join(found) or '<tr><td colspan="6">none</td></tr>'}</table>
{replay}
<h2>Inputs</h2><table>{kv}</table>
</body></html>
"""


def check_call_available(config: FuzzConfig) -> None:
    """Import both targets' code for every machine once in the driver, so a missing layer is a
    one-line error before Spark rather than one error per run."""
    for m in config.machines:
        entry = machines.BY_NAME[m]
        for module in (entry.spec, entry.impl):
            if module is None:
                continue
            try:
                __import__(module)
            except ImportError as exc:
                raise GroupspecError(f"{m}: cannot import {module}: {exc}") from None

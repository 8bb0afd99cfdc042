"""Run conformance vectors against a target and judge every answer.

Theory of operation
-------------------
The judgement rules (docs/conformance.md, "Pass and fail"), per vector and flavour:

* flavour ``groupspec``: an ``exact`` vector passes when the output equals ``expected``; a
  ``properties`` vector when every property in ``properties`` holds on the output.
* flavour ``kafka``: an ``exact`` vector, or any vector whose ``expected_kafka`` is an error,
  is held to ``expected_kafka``; a ``properties`` vector to ``properties_kafka``. A vector
  without ``expected_kafka`` falls back to the properties, unless its machine's ``expected``
  is Kafka's own answer (``Machine.expected_is_kafkas``: share_partition), which it is held to.
* An expected error passes when the target answers an error of the same kind (the Java class
  name; ``NoSuchElementException`` and ``java.util.NoSuchElementException`` are the same).
* Anything else fails: a different output, an unexpected error, a malformed output, or a
  broken target (crash, hang, garbage), with a one-line reason and a short diff.
* A target may answer that it does not implement a vector (``unsupported``, with a reason; or
  its handshake leaves the machine out): the vector is neither passed nor failed but counted
  and listed apart, so a partial implementation needs no ``--filter``.
* Under flavour ``kafka``, a ``divergence`` vector without ``expected_kafka`` states groupspec's
  rule where Kafka's own code breaks it (docs/divergences.md names each). When such a vector
  fails it *diverges*: counted and listed apart under its divergence's name, with the reason and
  diff a failure would have, and not a failure, because holding a Kafka-faithful target to it is
  the point of recording the divergence, not a fault of the target. A broken answer (a crash, a
  hang, garbage) to such a vector is still a failure, and a divergence vector that carries
  ``expected_kafka`` is held to it like any other vector. The same holds for a vector of another
  kind whose source notes a ``divergence`` by ``name``: its answer rests on a choice groupspec
  documents where Kafka's is arbitrary (a hash order of ids a live broker draws itself).

Each machine's registry entry (:mod:`groupspec.machines`) names its :class:`Judge`: how its
outputs are compared and its properties checked. A property check
returns, per broken property, lines naming where it breaks (which member, partition or request),
so a failure says more than the property's name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

from groupspec import machines
from groupspec.conformance.judging import Judge
from groupspec.conformance.targets import Response, Target
from groupspec.conformance.vector_format import Vector
from groupspec.types import InputError

_DIFF_LINES = 8
_INPUT_CHARS = 300  # of a failing vector's input shown in the report


@dataclass(frozen=True)
class Outcome:
    """The verdict on one vector. ``unsupported`` vectors are neither passed nor failed; their
    ``reason`` is the target's. ``path`` and ``input`` (compact JSON, clipped) are filled for
    failures only, for the report."""

    id: str
    machine: str
    handler: str
    case: str
    passed: bool
    reason: str = ""
    diff: tuple[str, ...] = ()
    stderr: str = ""
    unsupported: bool = False
    path: str = ""
    input: str = ""
    #: The docs/divergences.md entry a failed ``divergence`` vector departs by (flavour kafka).
    diverged: str = ""

    @property
    def status(self) -> str:
        if self.passed:
            return "passed"
        return "unsupported" if self.unsupported else "diverged" if self.diverged else "failed"


@dataclass
class Report:
    target: str
    flavour: str
    outcomes: list[Outcome] = field(default_factory=list)
    #: What the target said about itself as a whole (e.g. that it took no part in the handshake).
    notes: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def unsupported(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.unsupported]

    @property
    def diverged(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "diverged"]

    def summary(self) -> list[tuple[str, int, int, int, int, int]]:
        """(machine, vectors, passed, failed, unsupported, diverged) per machine, in name
        order."""
        rows: dict[str, list[int]] = {}
        column = {"passed": 1, "failed": 2, "unsupported": 3, "diverged": 4}
        for o in self.outcomes:
            row = rows.setdefault(o.machine, [0, 0, 0, 0, 0])
            row[0] += 1
            row[column[o.status]] += 1
        return [(m, r[0], r[1], r[2], r[3], r[4]) for m, r in sorted(rows.items())]


# ---------------------------------------------------------------------------------------------
# Per-machine judging
# ---------------------------------------------------------------------------------------------


# --- classic_group: answers by request, records per group, the final view ----------------------


# --- share_partition: answers per event (acquired offsets as a set), writes, the final view ----


# --- share_group: answers in order, records per group, initialize requests, the view ----------


# --- share_consumer: what each event sent and applied, in order; the final view ------------------


# Each machine's judge, named in its registry entry (groupspec.machines).


# ---------------------------------------------------------------------------------------------
# The verdict
# ---------------------------------------------------------------------------------------------


def _same_exception(a: str, b: str) -> bool:
    return a == b or a.rsplit(".", 1)[-1] == b.rsplit(".", 1)[-1]


def _clip(lines: list[str]) -> tuple[str, ...]:
    if len(lines) <= _DIFF_LINES:
        return tuple(lines)
    return (*lines[:_DIFF_LINES], f"... and {len(lines) - _DIFF_LINES} more")


def judge(vector: Vector, response: Response, flavour: str) -> tuple[bool, str, tuple[str, ...]]:
    """(passed, reason, diff) for one answer, by the rules in the module docstring. An
    unsupported answer is neither: :func:`run` sets it apart before judging."""
    jd: Judge = machines.load(machines.get(vector.machine).judge)
    if response.broken is not None:
        return False, response.broken, ()
    reference: Mapping[str, Any] | None = vector.expected
    properties: Sequence[str] = vector.properties
    if flavour == "kafka":
        reference = vector.expected_kafka
        properties = vector.properties_kafka or ()
        if reference is None and machines.get(vector.machine).expected_is_kafkas:
            reference = vector.expected
    exact = reference is not None and (vector.mode == "exact" or "error" in reference)
    if ((response.unobserved or response.unordered) and reference is not None
            and "error" not in reference and response.output is not None):
        reference = masked(reference, response.output, response.unobserved, response.unordered)
    if reference is None:
        properties = vector.properties_kafka or vector.properties
    if response.error is not None:
        kind, message = response.error
        if exact and reference is not None and "error" in reference:
            if _same_exception(kind, reference["error"]):
                return True, "", ()
            return False, f"expected error {reference['error']}, got error {kind}", (message,)
        return False, f"answered error {kind}: {message}", ()
    if exact and reference is not None and "error" in reference:
        return False, f"expected error {reference['error']}, got an output", ()
    try:
        if exact and reference is not None:
            lines = jd.compare(reference, response.output)
            if lines:
                return False, f"output differs for {len(lines)} {jd.unit}", _clip(lines)
            return True, "", ()
        bad = jd.violated(vector.input, response.output, properties)
    except InputError as exc:
        return False, f"malformed output: {exc}", ()
    if bad:
        places = [line for p in bad for line in bad[p]]
        diff: list[str] = []
        if reference is not None and "error" not in reference:
            diff = ["compared with the reference answer (not binding here):",
                    *jd.compare(reference, response.output)]
        return False, f"properties violated: {', '.join(bad)}", (*places, *_clip(diff))
    return True, "", ()


def masked(reference: Mapping[str, Any], output: Any, paths: Sequence[str],
           unordered: Sequence[str] = ()) -> Mapping[str, Any]:
    """``reference`` with each part a target cannot observe taken from its ``output`` instead,
    so that the machine's own comparison sees no difference there and judges the rest.

    A path is dotted keys and list positions; ``key[]`` stands for every item of a list (paired
    by position with the output's, as far as both go) and ``key[field=value]`` for the one item
    of a list whose ``field`` is ``value`` on both sides: ``view``, ``outputs[].records``,
    ``outputs.3.answers[request=2].response.protocol_type``. An ``unordered`` path names a list whose
    order the target cannot reproduce: when it holds the same items as the output's, in any
    order (lists inside them too), the output's order is taken. A part the output lacks stays as
    it is, so a malformed output still fails.
    """
    import copy

    ref = copy.deepcopy(dict(reference))

    def deep(value: Any) -> Any:
        if isinstance(value, list):
            return sorted((deep(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
        if isinstance(value, dict):
            return {k: deep(v) for k, v in value.items()}
        return value

    def canonical(items: list[Any]) -> str:
        return json.dumps(deep(items), sort_keys=True)

    def walk(want: Any, got: Any, steps: list[str], loose: bool) -> None:
        step, rest = steps[0], steps[1:]
        if "[" in step and step.endswith("]") and "=" in step:  # key[field=value]: by content
            field_, _, pick = step[:-1].partition("[")
            name, _, value = pick.partition("=")
            if not (isinstance(want, dict) and isinstance(got, dict)
                    and isinstance(want.get(field_), list) and isinstance(got.get(field_), list)):
                return
            a = [i for i in want[field_] if isinstance(i, dict) and str(i.get(name)) == value]
            b = [i for i in got[field_] if isinstance(i, dict) and str(i.get(name)) == value]
            if len(a) == 1 and len(b) == 1 and rest:
                walk(a[0], b[0], rest, loose)
            return
        each = step.endswith("[]")
        key: Any = step.removesuffix("[]")
        if isinstance(want, list) and isinstance(got, list) and key.isdigit():
            key = int(key)
            if key >= len(want) or key >= len(got):
                return
        elif not isinstance(want, dict) or not isinstance(got, dict) or key not in got:
            return
        if not rest and not each:
            if not loose or (isinstance(want[key], list) and isinstance(got[key], list)
                  and canonical(want[key]) == canonical(got[key])):
                want[key] = copy.deepcopy(got[key])
        elif each:
            if isinstance(want[key], list) and isinstance(got[key], list) and rest:
                for a, b in zip(want[key], got[key], strict=False):
                    walk(a, b, rest, loose)
        elif isinstance(want, list) or key in want:
            walk(want[key], got[key], rest, loose)

    for path in unordered:
        walk(ref, output, path.split("."), True)
    for path in paths:
        walk(ref, output, path.split("."), False)
    return ref


def _compact(doc: Any) -> str:
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    if len(text) <= _INPUT_CHARS:
        return text
    return f"{text[:_INPUT_CHARS]}... ({len(text)} characters in all)"


def _divergence(vector: Vector, flavour: str) -> str:
    """The divergence a failure of ``vector`` is, by the module docstring's rule, or ""."""
    if flavour != "kafka" or vector.expected_kafka is not None:
        return ""
    if vector.source.get("kind") == "divergence":
        return str(vector.source.get("name") or vector.source.get("docs") or "unnamed")
    # A vector transcribed from elsewhere whose answer rests on one of groupspec's documented
    # choices where Kafka's is arbitrary (a hash order): a Kafka-faithful target may differ.
    if vector.source.get("divergence") and vector.source.get("name"):
        return str(vector.source["name"])
    return ""


def run(vectors: Iterable[Vector], target: Target, flavour: str,
        progress: Callable[[Outcome], None] | None = None, root: Path | None = None) -> Report:
    """Send every vector to ``target`` and judge the answers. ``root`` (the version folder)
    makes the file paths in failure reports whole."""
    report = Report(target.name, flavour)
    try:
        for vector in vectors:
            response = target.call(vector.id, vector.machine, vector.handler, vector.input)
            if response.unsupported is not None:
                outcome = Outcome(vector.id, vector.machine, vector.handler, vector.case, False,
                                  response.unsupported, unsupported=True)
            else:
                passed, reason, diff = judge(vector, response, flavour)
                where = "" if passed else str(root / vector.path) if root else vector.path
                outcome = Outcome(vector.id, vector.machine, vector.handler, vector.case, passed,
                                  reason, diff, "" if passed else response.stderr, path=where,
                                  input="" if passed else _compact(vector.input),
                                  diverged="" if passed or response.broken is not None
                                  else _divergence(vector, flavour))
            report.outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
    finally:
        target.close()
        report.notes = list(target.notes)
    return report


# ---------------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------------


def _totals(report: Report) -> tuple[int, int, int, int, int]:
    summary = report.summary()
    return (sum(r[1] for r in summary), sum(r[2] for r in summary), sum(r[3] for r in summary),
            sum(r[4] for r in summary), sum(r[5] for r in summary))


def table(report: Report) -> str:
    """``machine | vectors | passed | failed | unsupported`` with a total row, and a column
    ``diverged`` when any vector diverged (only a Kafka flavour run has one)."""
    width = 6 if report.diverged else 5
    rows = [(m, *map(str, counts))[:width] for m, *counts in report.summary()]
    rows.append(("total", *map(str, _totals(report)))[:width])
    head = ("machine", "vectors", "passed", "failed", "unsupported", "diverged")[:width]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(r: Sequence[str]) -> str:
        return " | ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                          for i, c in enumerate(r))

    sep = "-+-".join("-" * w for w in widths)
    return "\n".join([line(head), sep, *(line(r) for r in rows[:-1]), sep, line(rows[-1])])


def failures_text(report: Report, stderr_lines: int = 10) -> str:
    """Each failure: its reason, the vector's file and input, the differences or the broken
    properties with their places, and the target's stderr for that vector."""
    out = []
    for o in report.failed:
        out.append(f"FAIL {o.id}: {o.reason}")
        if o.path:
            out.append(f"    vector: {o.path}")
        if o.input:
            out.append(f"    input: {o.input}")
        out += [f"    {d}" for d in o.diff]
        if o.stderr:
            tail = o.stderr.splitlines()[-stderr_lines:]
            out.append("    stderr:")
            out += [f"    | {s}" for s in tail]
    return "\n".join(out)


def unsupported_text(report: Report) -> str:
    """The unsupported vectors, grouped by the target's reason."""
    by_reason: dict[str, list[str]] = {}
    for o in report.unsupported:
        by_reason.setdefault(o.reason, []).append(o.id)
    out = []
    for reason, ids in by_reason.items():
        out.append(f"UNSUPPORTED ({len(ids)}): {reason}")
        out += [f"    {i}" for i in ids]
    return "\n".join(out)


def diverged_text(report: Report) -> str:
    """The vectors that diverged, grouped by divergence, each with what a failure would say."""
    by_name: dict[str, list[Outcome]] = {}
    for o in report.diverged:
        by_name.setdefault(o.diverged, []).append(o)
    out = []
    for name, outcomes in by_name.items():
        out.append(f"DIVERGES ({len(outcomes)}): docs/divergences.md#{name}, where Kafka's code "
                   "breaks the rule these vectors state")
        for o in outcomes:
            out.append(f"    {o.id}: {o.reason}")
            out += [f"        {d}" for d in o.diff]
    return "\n".join(out)


def to_json(report: Report) -> dict[str, Any]:
    total = _totals(report)
    return {
        "target": report.target,
        "flavour": report.flavour,
        "notes": report.notes,
        "machines": [{"machine": m, "vectors": n, "passed": p, "failed": f, "unsupported": u,
                      "diverged": d}
                     for m, n, p, f, u, d in report.summary()],
        "total": {"vectors": total[0], "passed": total[1], "failed": total[2],
                  "unsupported": total[3], "diverged": total[4]},
        "results": [{**asdict(o), "status": o.status, "diff": list(o.diff)}
                    for o in report.outcomes],
    }


def to_junit(report: Report) -> bytes:
    """JUnit XML: one testsuite per machine, one testcase per vector."""
    suites = ET.Element("testsuites", name=f"groupspec conformance ({report.target})")
    by_machine: dict[str, list[Outcome]] = {}
    for o in report.outcomes:
        by_machine.setdefault(o.machine, []).append(o)
    for machine, outcomes in sorted(by_machine.items()):
        suite = ET.SubElement(suites, "testsuite", name=machine, tests=str(len(outcomes)),
                              failures=str(sum(o.status == "failed" for o in outcomes)), errors="0",
                              skipped=str(sum(o.status in ("unsupported", "diverged")
                                              for o in outcomes)))
        for o in outcomes:
            case = ET.SubElement(suite, "testcase", classname=f"{o.machine}.{o.handler}",
                                 name=o.case)
            if o.unsupported:
                ET.SubElement(case, "skipped", message=f"unsupported: {o.reason}")
            elif o.diverged:
                ET.SubElement(case, "skipped", message=f"diverges ({o.diverged}): {o.reason}")
            elif not o.passed:
                failure = ET.SubElement(case, "failure", message=o.reason)
                body = [f"vector: {o.path}", f"input: {o.input}", *o.diff]
                if o.stderr:
                    body += ["stderr:", o.stderr]
                failure.text = "\n".join(body)
    ET.indent(suites)
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data

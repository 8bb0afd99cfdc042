"""Run conformance vectors against a target and judge every answer.

Theory of operation
-------------------
The judgement rules (docs/conformance.md, "Pass and fail"), per vector and flavour:

* flavour ``groupspec``: an ``exact`` vector passes when the output equals ``expected``; a
  ``properties`` vector when every property in ``properties`` holds on the output.
* flavour ``kafka``: an ``exact`` vector, or any vector whose ``expected_kafka`` is an error,
  is held to ``expected_kafka``; a ``properties`` vector to ``properties_kafka``. A vector
  without ``expected_kafka`` falls back to the properties.
* An expected error passes when the target answers an error of the same kind (the Java class
  name; ``NoSuchElementException`` and ``java.util.NoSuchElementException`` are the same).
* Anything else fails: a different output, an unexpected error, a malformed output, or a
  broken target (crash, hang, garbage), with a one-line reason and a short diff.

Each machine registers how to compare and check its outputs in :data:`JUDGES`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from xml.etree import ElementTree as ET

from groupspec.conformance.targets import Response, Target
from groupspec.conformance.vector_format import Vector
from groupspec.types import InputError

_DIFF_LINES = 8


@dataclass(frozen=True)
class Outcome:
    """The verdict on one vector."""

    id: str
    machine: str
    handler: str
    case: str
    passed: bool
    reason: str = ""
    diff: tuple[str, ...] = ()
    stderr: str = ""


@dataclass
class Report:
    target: str
    flavour: str
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.passed]

    def summary(self) -> list[tuple[str, int, int, int]]:
        """(machine, vectors, passed, failed) per machine, in name order."""
        rows: dict[str, list[int]] = {}
        for o in self.outcomes:
            row = rows.setdefault(o.machine, [0, 0, 0])
            row[0] += 1
            row[1 if o.passed else 2] += 1
        return [(m, r[0], r[1], r[2]) for m, r in sorted(rows.items())]


# ---------------------------------------------------------------------------------------------
# Per-machine judging
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judge:
    """How a machine's outputs are compared (-> diff lines, empty when equal) and checked
    (-> names of the listed properties that do not hold)."""

    compare: Callable[[Any, Any], list[str]]
    violated: Callable[[Any, Any, Sequence[str]], list[str]]


Assignment = dict[str, dict[str, frozenset[int]]]


def _read_assignment(output: Any) -> Assignment:
    from groupspec.group_json import assignment_from_json

    if not isinstance(output, dict) or "assignment" not in output:
        raise InputError("output", 'expected an object {"assignment": {...}}')
    return assignment_from_json(output["assignment"], "output.assignment")


def _show(parts: Mapping[str, frozenset[int]] | None) -> str:
    if parts is None:
        return "(absent)"
    return json.dumps({t: sorted(ps) for t, ps in sorted(parts.items())})


def _compare_assignments(expected: Any, actual: Any) -> list[str]:
    want, got = _read_assignment(expected), _read_assignment(actual)
    lines = []
    for member in list(want) + [m for m in got if m not in want]:
        if want.get(member) != got.get(member):
            lines.append(f"{member}: expected {_show(want.get(member))}, "
                         f"got {_show(got.get(member))}")
    return lines


def _violated_assignor(doc: Any, output: Any, properties: Sequence[str]) -> list[str]:
    from groupspec.group_json import group_from_json
    from groupspec.spec.simple_assignor import check_properties

    group = group_from_json(doc, strict_topics=False)
    held = check_properties(group, _read_assignment(output))
    return [p for p in properties if not held[p]]


def _compare_json(expected: Any, actual: Any) -> list[str]:
    if not isinstance(actual, dict):
        return [f"expected an object, got {json.dumps(actual)[:200]}"]
    keys = list(expected) + [k for k in actual if k not in expected]
    return [f"{k}: expected {json.dumps(expected.get(k))[:200]}, got {json.dumps(actual.get(k))[:200]}"
            for k in keys if expected.get(k) != actual.get(k)]


def _no_properties(doc: Any, output: Any, properties: Sequence[str]) -> list[str]:
    return list(properties)


JUDGES: dict[str, Judge] = {
    "simple_assignor": Judge(_compare_assignments, _violated_assignor),
    "records": Judge(_compare_json, _no_properties),
}


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
    """(passed, reason, diff) for one answer, by the rules in the module docstring."""
    jd = JUDGES[vector.machine]
    if response.broken is not None:
        return False, response.broken, ()
    reference: Mapping[str, Any] | None = vector.expected
    properties: Sequence[str] = vector.properties
    if flavour == "kafka":
        reference = vector.expected_kafka
        properties = vector.properties_kafka or ()
    exact = reference is not None and (vector.mode == "exact" or "error" in reference)
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
                return False, f"output differs for {len(lines)} member(s)", _clip(lines)
            return True, "", ()
        bad = jd.violated(vector.input, response.output, properties)
    except InputError as exc:
        return False, f"malformed output: {exc}", ()
    if bad:
        diff: list[str] = []
        if reference is not None and "error" not in reference:
            diff = ["compared with the reference answer (not binding here):",
                    *jd.compare(reference, response.output)]
        return False, f"properties violated: {', '.join(bad)}", _clip(diff)
    return True, "", ()


def run(vectors: Iterable[Vector], target: Target, flavour: str,
        progress: Callable[[Outcome], None] | None = None) -> Report:
    """Send every vector to ``target`` and judge the answers."""
    report = Report(target.name, flavour)
    try:
        for vector in vectors:
            response = target.call(vector.id, vector.machine, vector.handler, vector.input)
            passed, reason, diff = judge(vector, response, flavour)
            outcome = Outcome(vector.id, vector.machine, vector.handler, vector.case, passed,
                              reason, diff, "" if passed else response.stderr)
            report.outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
    finally:
        target.close()
    return report


# ---------------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------------


def table(report: Report) -> str:
    """``machine | vectors | passed | failed`` with a total row."""
    summary = report.summary()
    rows = [(m, str(n), str(p), str(f)) for m, n, p, f in summary]
    rows.append(("total", str(sum(r[1] for r in summary)), str(sum(r[2] for r in summary)),
                 str(sum(r[3] for r in summary))))
    head = ("machine", "vectors", "passed", "failed")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]

    def line(r: Sequence[str]) -> str:
        return " | ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                          for i, c in enumerate(r))

    sep = "-+-".join("-" * w for w in widths)
    return "\n".join([line(head), sep, *(line(r) for r in rows[:-1]), sep, line(rows[-1])])


def failures_text(report: Report, stderr_lines: int = 10) -> str:
    out = []
    for o in report.failed:
        out.append(f"FAIL {o.id}: {o.reason}")
        out += [f"    {d}" for d in o.diff]
        if o.stderr:
            tail = o.stderr.splitlines()[-stderr_lines:]
            out.append("    stderr:")
            out += [f"    | {s}" for s in tail]
    return "\n".join(out)


def to_json(report: Report) -> dict[str, Any]:
    summary = report.summary()
    total = [sum(r[1] for r in summary), sum(r[2] for r in summary), sum(r[3] for r in summary)]
    return {
        "target": report.target,
        "flavour": report.flavour,
        "machines": [{"machine": m, "vectors": n, "passed": p, "failed": f}
                     for m, n, p, f in report.summary()],
        "total": {"vectors": total[0], "passed": total[1], "failed": total[2]},
        "results": [{**asdict(o), "diff": list(o.diff)} for o in report.outcomes],
    }


def to_junit(report: Report) -> bytes:
    """JUnit XML: one testsuite per machine, one testcase per vector."""
    suites = ET.Element("testsuites", name=f"groupspec conformance ({report.target})")
    by_machine: dict[str, list[Outcome]] = {}
    for o in report.outcomes:
        by_machine.setdefault(o.machine, []).append(o)
    for machine, outcomes in sorted(by_machine.items()):
        suite = ET.SubElement(suites, "testsuite", name=machine, tests=str(len(outcomes)),
                              failures=str(sum(not o.passed for o in outcomes)), errors="0")
        for o in outcomes:
            case = ET.SubElement(suite, "testcase", classname=f"{o.machine}.{o.handler}",
                                 name=o.case)
            if not o.passed:
                failure = ET.SubElement(case, "failure", message=o.reason)
                body = list(o.diff)
                if o.stderr:
                    body += ["stderr:", o.stderr]
                failure.text = "\n".join(body)
    ET.indent(suites)
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data

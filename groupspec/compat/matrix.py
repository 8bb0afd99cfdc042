"""The compatibility matrix: every implementation's answer to every wire-realisable vector.

Theory of operation: for each implementation in turn, start it (groupspec.compat.launchers),
keep its ApiVersions probe, open the wire target on its address
(``targets.make_target("kafka://HOST:PORT", timeout)``), run the vectors through the conformance
runner with the same judges as any other target, and stop it before the next one starts (two
cores do not run a JVM and a Rust broker side by side well, and one broker's leftovers must not
touch another's run). A vector that needs an API the broker does not list (for its machine, or
for a request it sends, at the version it sends it) is answered "unsupported" here, with the API
named, without a round trip: the probe already said why.

Nothing about one implementation can end the run. One that cannot start is a column that says
why ("not available"); one that starts while this groupspec has no wire target is a column with
its probe and that reason ("no wire target"). The matrix is data: it is written as JSON (for
tools), Markdown (for docs/compatibility.md) and one self-contained HTML file (for people).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groupspec.compat.launchers import Launcher, NotAvailable
from groupspec.compat.probe import GROUP_APIS, Probe
from groupspec.conformance import runner
from groupspec.conformance.targets import Response, Target
from groupspec.conformance.vector_format import Vector
from groupspec.types import GroupspecError

RAN, PROBED, NOT_AVAILABLE, NO_WIRE_TARGET = "ran", "probed", "not available", "no wire target"
_SHORT = {"passed": "pass", "failed": "FAIL", "unsupported": "n/a", "diverged": "div"}
_CELL_CHARS = 160

MakeTarget = Callable[[str, float], Target]


@dataclass
class Column:
    """One implementation's part of the matrix."""

    impl: str
    state: str
    reason: str = ""
    address: str = ""
    version: str = ""
    start_s: float | None = None
    probe: Probe | None = None
    report: runner.Report | None = None

    def outcomes(self) -> dict[str, runner.Outcome]:
        return {} if self.report is None else {o.id: o for o in self.report.outcomes}

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(("passed", "failed", "unsupported", "diverged"), 0)
        for o in self.report.outcomes if self.report is not None else ():
            out[o.status] += 1
        return out


@dataclass
class Matrix:
    flavour: str
    #: (vector id, machine) in the order run.
    vectors: list[tuple[str, str]]
    columns: list[Column] = field(default_factory=list)
    #: When the run was made and on what, as the caller says (the matrix holds no clock).
    made: str = ""


class GatedTarget:
    """A target that answers "unsupported" for the vectors the probe rules out (their machine's
    APIs, or a request they send at a version, that the broker does not offer), and passes every
    other vector to ``inner``."""

    def __init__(self, inner: Target, probe: Probe) -> None:
        self.inner = inner
        self.probe = probe
        self.name = inner.name
        self.notes = inner.notes

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        why = self.probe.lacks(machine, doc)
        if why is not None:
            return Response(unsupported=why)
        return self.inner.call(request_id, machine, handler, doc)

    def close(self) -> None:
        self.inner.close()
        self.notes = self.inner.notes


def first_difference(o: runner.Outcome) -> str:
    """The reason and the first line of the difference, on one line."""
    text = o.reason + (f": {o.diff[0]}" if o.diff else "")
    return text if len(text) <= _CELL_CHARS else text[:_CELL_CHARS - 3] + "..."


def run_column(launcher: Launcher, vectors: Sequence[Vector], flavour: str, work: Path, *,
               start_timeout_s: float, vector_timeout_s: float, make_target: MakeTarget,
               progress: Callable[[str], None] = lambda line: None, query: str = "") -> Column:
    """Start, probe, run and stop one implementation; never raises for the implementation's sake.
    ``query`` goes after ``?`` in the address of a started implementation (the wire target's
    options); a given ``--broker`` address keeps its own."""
    progress(f"{launcher.name}: starting ({launcher.about})")
    try:
        running = launcher.start(work, start_timeout_s)
    except NotAvailable as exc:
        progress(f"{launcher.name}: not available: {exc.reason}")
        return Column(launcher.name, NOT_AVAILABLE, exc.reason)
    if query and not running.query:
        running.query = query
    column = Column(launcher.name, RAN, address=running.address, version=running.version,
                    start_s=running.start_s, probe=running.probe)
    started = "" if running.start_s is None else f" in {running.start_s:.2f} s"
    progress(f"{launcher.name}: answering at {running.address}{started}")
    try:
        if not vectors:
            column.state = PROBED
            return column
        try:
            target = make_target(running.address, vector_timeout_s)
        except (GroupspecError, ImportError) as exc:
            column.state, column.reason = NO_WIRE_TARGET, f"wire target not available: {exc}"
            progress(f"{launcher.name}: {column.reason}")
            return column
        column.report = runner.run(vectors, GatedTarget(target, running.probe), flavour)
        counts = column.counts()
        progress(f"{launcher.name}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    finally:
        running.stop()
    return column


def run(launchers: Sequence[Launcher], vectors: Sequence[Vector], flavour: str, work: Path, *,
        start_timeout_s: float, vector_timeout_s: float, make_target: MakeTarget,
        progress: Callable[[str], None] = lambda line: None, made: str = "", query: str = "",
        done: Callable[[Matrix], object] = lambda matrix: None) -> Matrix:
    """Each implementation in turn; ``done`` sees the matrix after each column (so a long run that
    is cut short has written what it finished)."""
    matrix = Matrix(flavour, [(v.id, v.machine) for v in vectors], made=made)
    for launcher in launchers:
        matrix.columns.append(run_column(launcher, vectors, flavour, work,
                                         start_timeout_s=start_timeout_s,
                                         vector_timeout_s=vector_timeout_s,
                                         make_target=make_target, progress=progress, query=query))
        done(matrix)
    return matrix


# -- reading the matrix ----------------------------------------------------------------------------


def _start(c: Column) -> str:
    return "-" if c.start_s is None else f"{c.start_s:.2f}"


def _apis(c: Column) -> str:
    if c.probe is None:
        return "-"
    return f"{sum(k in c.probe.apis for k in GROUP_APIS)}/{len(GROUP_APIS)}"


def summary_rows(matrix: Matrix) -> list[list[str]]:
    """impl, state, start s, group APIs offered, passed, failed, unsupported, diverged, reason."""
    head = ["implementation", "state", "start s", "group APIs", "passed", "failed", "unsupported",
            "diverged", "note"]
    rows = [head]
    for c in matrix.columns:
        counts = c.counts() if c.report is not None else None
        numbers = [str(counts[k]) if counts else "-" for k in ("passed", "failed", "unsupported", "diverged")]
        rows.append([c.impl, c.state, _start(c), _apis(c), *numbers, c.reason])
    return rows


def summary(matrix: Matrix) -> str:
    """The summary as a plain-text table, for the terminal."""
    rows = summary_rows(matrix)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for n, r in enumerate(rows):
        cells = [r[i].ljust(widths[i]) if i < 2 else r[i].rjust(widths[i]) for i in range(len(widths))]
        lines.append(" | ".join(cells) + (f" | {r[-1]}" if r[-1] else ""))
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def probe_rows(matrix: Matrix) -> list[list[str]]:
    """API (key) by implementation: the version range each offers, ``-`` for none."""
    probed = [c for c in matrix.columns if c.probe is not None]
    rows = [["API (key)", *(c.impl for c in probed)]]
    for key, name in GROUP_APIS.items():
        rows.append([f"{name} ({key})", *(c.probe.versions(key) for c in probed if c.probe is not None)])
    features = sorted({f for c in probed if c.probe is not None for f in c.probe.features})
    for name in features:
        rows.append([f"feature {name}", *(str(c.probe.features.get(name, "-"))
                                          for c in probed if c.probe is not None)])
    return rows


def _machines(matrix: Matrix) -> list[str]:
    return list(dict.fromkeys(m for _, m in matrix.vectors))


def _cell(c: Column, outcomes: dict[str, runner.Outcome], vid: str) -> tuple[str, str, str]:
    """(short text, status, detail) of one cell."""
    o = outcomes.get(vid)
    if o is None:
        return "-", "none", c.reason
    if o.status == "passed":
        return "pass", "passed", ""
    detail = o.reason if o.status == "unsupported" else first_difference(o)
    return _SHORT[o.status], o.status, detail


def _unsupported_reasons(columns: Sequence[Column], ids: Sequence[str]) -> list[tuple[str, str, int]]:
    """(implementation, reason, how many of ``ids``) for each reason a column gave, in order."""
    out: list[tuple[str, str, int]] = []
    for c in columns:
        outcomes = c.outcomes()
        reasons: dict[str, int] = {}
        for vid in ids:
            o = outcomes.get(vid)
            if o is not None and o.unsupported:
                reasons[o.reason] = reasons.get(o.reason, 0) + 1
        out += [(c.impl, r, n) for r, n in reasons.items()]
    return out


# -- Markdown ---------------------------------------------------------------------------------------


def _md_table(rows: Sequence[Sequence[str]]) -> list[str]:
    def esc(s: str) -> str:
        return s.replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(esc(s) for s in rows[0]) + " |",
           "|" + "|".join(" --- " for _ in rows[0]) + "|"]
    out += ["| " + " | ".join(esc(s) for s in r) + " |" for r in rows[1:]]
    return out


def markdown(matrix: Matrix) -> str:
    lines = ["# groupspec compatibility matrix", ""]
    if matrix.made:
        lines += [matrix.made, ""]
    if matrix.vectors:
        lines += [f"Flavour `{matrix.flavour}`, {len(matrix.vectors)} vectors "
                  f"({', '.join(_machines(matrix))}).", ""]
    else:
        lines += ["The ApiVersions probe only: no vectors run.", ""]
    lines += ["## Implementations", ""]
    lines += _md_table([r[:-1] for r in summary_rows(matrix)])
    lines.append("")
    for c in matrix.columns:
        extra = [f"at {c.address}" if c.address else "", c.version, c.reason,
                 c.probe.note if c.probe is not None else ""]
        lines.append(f"- **{c.impl}**: {'; '.join(e for e in extra if e) or c.state}")
    if any(c.probe is not None for c in matrix.columns):
        lines += ["", "## What each offers (ApiVersions)", ""]
        lines += _md_table(probe_rows(matrix))
    ran = [c for c in matrix.columns if c.report is not None]
    for machine in _machines(matrix) if ran else ():
        ids = [v for v, m in matrix.vectors if m == machine]
        lines += ["", f"## {machine}", ""]
        rows = [["vector", *(c.impl for c in ran)]]
        notes: list[str] = []
        for vid in ids:
            row = [f"`{vid.removeprefix(machine + '/')}`"]
            for c in ran:
                short, status, detail = _cell(c, c.outcomes(), vid)
                row.append(short)
                if status in ("failed", "diverged"):
                    notes.append(f"- `{vid}` on {c.impl}: {detail}")
            rows.append(row)
        lines += _md_table(rows)
        notes += [f"- {n} unsupported on {impl}: {r}" for impl, r, n in _unsupported_reasons(ran, ids)]
        if notes:
            lines += ["", *notes]
    return "\n".join(lines) + "\n"


# -- HTML ---------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3;position:sticky;top:0}
td.passed{background:#d9f2d9}td.failed{background:#f8d0d0;font-weight:bold}
td.unsupported{background:#eee;color:#777}td.diverged{background:#fde9b8}td.none{color:#aaa}
code{font-size:12px}
"""


def _h_table(rows: Sequence[Sequence[str]], classes: Sequence[Sequence[str]] | None = None,
             titles: Sequence[Sequence[str]] | None = None) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in rows[0]) + "</tr>"]
    for i, r in enumerate(rows[1:]):
        cells = []
        for j, s in enumerate(r):
            cls = classes[i][j] if classes else ""
            title = titles[i][j] if titles else ""
            attrs = (f' class="{cls}"' if cls else "") + (f' title="{html.escape(title)}"' if title else "")
            cells.append(f"<td{attrs}>{html.escape(s)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out) + "</table>"


def to_html(matrix: Matrix) -> str:
    """One self-contained page (inline style, no scripts): hover a cell for its first difference."""
    parts = ["<!doctype html><html><head><meta charset='utf-8'>",
             "<title>groupspec compatibility matrix</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>groupspec compatibility matrix</h1>"]
    if matrix.made:
        parts.append(f"<p>{html.escape(matrix.made)}</p>")
    parts.append(f"<p>Flavour <code>{html.escape(matrix.flavour)}</code>, {len(matrix.vectors)} vectors.</p>")
    parts += ["<h2>Implementations</h2>", _h_table(summary_rows(matrix)), "<ul>"]
    for c in matrix.columns:
        extra = [f"at {c.address}" if c.address else "", c.version,
                 c.probe.note if c.probe is not None else ""]
        said = "; ".join(e for e in extra if e)
        parts.append(f"<li><b>{html.escape(c.impl)}</b>: {html.escape(said)}</li>")
    parts.append("</ul>")
    if any(c.probe is not None for c in matrix.columns):
        rows = probe_rows(matrix)
        classes = [["", *("unsupported" if s == "-" else "passed" for s in r[1:])] for r in rows[1:]]
        parts += ["<h2>What each offers (ApiVersions)</h2>", _h_table(rows, classes)]
    ran = [c for c in matrix.columns if c.report is not None]
    for machine in _machines(matrix) if ran else ():
        rows, classes, titles = [["vector", *(c.impl for c in ran)]], [], []
        failures: list[str] = []
        for vid in (v for v, m in matrix.vectors if m == machine):
            row, cls, tit = [vid.removeprefix(machine + "/")], [""], [""]
            for c in ran:
                short, status, detail = _cell(c, c.outcomes(), vid)
                row.append(short)
                cls.append(status)
                tit.append(detail)
                if status in ("failed", "diverged"):
                    failures.append(f"<li><code>{html.escape(vid)}</code> on {html.escape(c.impl)}: "
                                    f"{html.escape(detail)}</li>")
            rows.append(row)
            classes.append(cls)
            titles.append(tit)
        parts += [f"<h2>{html.escape(machine)}</h2>", _h_table(rows, classes, titles)]
        if failures:
            parts += ["<details><summary>failures and divergences</summary><ul>", *failures,
                      "</ul></details>"]
        reasons = _unsupported_reasons(ran, [v for v, m in matrix.vectors if m == machine])
        if reasons:
            parts += ["<details><summary>why unsupported</summary><ul>",
                      *(f"<li>{n} on {html.escape(impl)}: {html.escape(r)}</li>" for impl, r, n in reasons),
                      "</ul></details>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# -- JSON -----------------------------------------------------------------------------------------------


def to_json(matrix: Matrix) -> dict[str, Any]:
    return {
        "flavour": matrix.flavour,
        "made": matrix.made,
        "vectors": [{"id": v, "machine": m} for v, m in matrix.vectors],
        "implementations": [{
            "impl": c.impl, "state": c.state, "reason": c.reason, "address": c.address,
            "version": c.version, "start_s": c.start_s,
            "probe": None if c.probe is None else c.probe.to_json(),
            "counts": c.counts() if c.report is not None else None,
            "results": None if c.report is None else {
                o.id: {"status": o.status, "reason": o.reason, "first_difference": first_difference(o)
                       if o.status in ("failed", "diverged") else ""}
                for o in c.report.outcomes},
        } for c in matrix.columns],
    }


def write(matrix: Matrix, out: Path) -> list[Path]:
    """compat.md, compat.html and compat.json in ``out`` (created); the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    files = {"compat.md": markdown(matrix), "compat.html": to_html(matrix),
             "compat.json": json.dumps(to_json(matrix), indent=1) + "\n"}
    for name, text in files.items():
        (out / name).write_text(text)
    return [out / name for name in files]

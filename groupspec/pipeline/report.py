"""The sweep's HTML report: one self-contained file (plots embedded as base64 PNG, CSS inline).

Self-contained because reports get mailed, attached to issues and opened on machines without
network access; nothing in it is fetched. Plots are drawn with matplotlib's object API
(``Figure``) rather than pyplot, so rendering needs no display, touches no global state and is
safe in a process that also runs Spark's threads.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: What each property means, in one line (spec/simple_assignor.py has the exact rules).
MEANINGS: Mapping[str, str] = {
    "complete": "exactly the group's members appear in the answer",
    "subscribed": "members hold only existing, assignable partitions of topics they subscribe to",
    "coverage": "every partition of a pool has at least one holder",
    "sharing": "no partition has more than s = ceil(N/P) holders",
    "counts": "no member holds more than its desired count of a pool",
    "fill": "an under-shared partition is held by every member still below its count",
    "sticky": "a valid previous partition is revoked only for balance or sharing",
    "error": "the target returned an answer instead of raising",
}

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1100px; color: #1d2330; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { margin-top: 1.8em; font-size: 1.25em; }
.verdict { font-size: 1.1em; padding: .5em .8em; border-radius: 4px; display: inline-block; }
.ok { background: #e3f4e6; color: #17602a; } .bad { background: #fbe5e5; color: #8c1c1c; }
table { border-collapse: collapse; width: 100%; margin: .5em 0; }
th, td { border-bottom: 1px solid #dde1e8; padding: .35em .5em; text-align: left;
         vertical-align: top; }
th { background: #f3f5f8; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre { font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, monospace; }
pre { background: #f6f8fa; padding: .5em; white-space: pre-wrap; word-break: break-all;
      margin: .2em 0; }
.note { background: #fff7e0; border-left: 4px solid #e0b100; padding: .4em .8em;
        margin: .3em 0; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: .92em; }
img { max-width: 100%; border: 1px solid #e5e7eb; }
"""


def _e(value: Any) -> str:
    return html.escape(str(value))


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(width: float = 10.0, height: float = 3.8, panels: int = 1) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    axes = fig.subplots(1, panels)
    return fig, axes


def _placeholder(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, fontsize=11, color="#666")
    ax.set_axis_off()


def _int_bins(values: Any) -> Any:
    """Bin edges centred on integers when the range is small, else automatic."""
    low, high = int(values.min()), int(values.max())
    return [x - 0.5 for x in range(low, high + 2)] if high - low <= 60 else 40


def plot_moves(frame: Any) -> str:
    """Moves above the proved minimum (histogram) and moves against the minimum (scatter)."""
    if not (len(frame) and frame["moves"].notna().any()):
        fig, ax = _figure(width=8.0, height=1.2)
        _placeholder(ax, "moves not measured (groupspec.models.min_moves unavailable; see notes)")
        return _png(fig)
    fig, (left, right) = _figure(panels=2)
    both = frame.dropna(subset=["moves", "min_moves"])
    if len(both):
        excess = both["moves"] - both["min_moves"]
        left.hist(excess, bins=_int_bins(excess), color="#4c72b0", edgecolor="white")
        left.set_yscale("log")
        left.set_xlabel("moves - proved minimum")
        left.set_ylabel("cases (log)")
        optimal = int((excess == 0).sum())
        left.set_title(f"Extra moves: optimal on {optimal} of {len(both)} cases")
        right.scatter(both["min_moves"], both["moves"], s=10, alpha=0.5, color="#4c72b0")
        top = max(float(both["moves"].max()), float(both["min_moves"].max()), 1.0)
        right.plot([0, top], [0, top], color="#c44e52", linewidth=1, label="moves = minimum")
        # Most cases move nothing; symlog keeps the crowd at 0 and the tail both visible.
        right.set_xscale("symlog", linthresh=1)
        right.set_yscale("symlog", linthresh=1)
        right.set_xlabel("proved minimum moves (symlog)")
        right.set_ylabel("actual moves (symlog)")
        right.set_title("Actual vs minimum moves")
        right.legend(loc="upper left", fontsize=9)
    else:
        moves = frame["moves"].dropna()
        left.hist(moves, bins=_int_bins(moves), color="#4c72b0", edgecolor="white")
        left.set_yscale("log")
        left.set_xlabel("actual moves")
        left.set_ylabel("cases (log)")
        left.set_title("Actual moves (no proved minimum available)")
        _placeholder(right, "min_moves not computed\n(unavailable or over the size cap)")
    return _png(fig)


def plot_balance(frame: Any) -> str:
    """How far apart member counts are inside each pool, and members' total loads.

    The per-pool spread takes very few values (the rules allow 0 or 1), so it is a labelled bar
    chart on a linear scale; the total-load spread is long-tailed, so a histogram on a log scale.
    """
    fig, (left, right) = _figure(panels=2)
    pool = frame["balance_pool"].dropna().astype(int) if len(frame) else frame
    if len(pool):
        counts = pool.value_counts().sort_index()
        bars = left.bar([str(v) for v in counts.index], counts.values, color="#55a868")
        left.bar_label(bars, labels=[str(int(c)) for c in counts.values], fontsize=9)
        left.set_xlabel("worst per-pool spread (partitions)")
        left.set_ylabel("cases")
        left.set_title("Per-pool balance (max - min count)")
        left.margins(y=0.12)
    else:
        _placeholder(left, "no results")
    load = frame["balance_load"].dropna() if len(frame) else frame
    if len(load):
        right.hist(load, bins=_int_bins(load), color="#8172b2", edgecolor="white")
        right.set_yscale("log")
        right.set_xlabel("max - min total partitions per member")
        right.set_ylabel("cases (log)")
        right.set_title("Spread of members' total load")
    else:
        _placeholder(right, "no results")
    return _png(fig)


def plot_time(frame: Any) -> str:
    """Assignment time against group size (members x partitions), log-log."""
    fig, ax = _figure(width=8.0, height=4.8)
    timed = frame.dropna(subset=["seconds", "members", "partitions"]) if len(frame) else frame
    if not len(timed):
        _placeholder(ax, "no timings")
        return _png(fig)
    size = (timed["members"] * timed["partitions"]).clip(lower=1)
    seconds = timed["seconds"].clip(lower=1e-6)
    for flag, label, color in ((False, "homogeneous", "#4c72b0"), (True, "heterogeneous",
                                                                     "#dd8452")):
        mask = timed["heterogeneous"] == flag
        if mask.any():
            ax.scatter(size[mask], seconds[mask], s=9, alpha=0.5, color=color, label=label)
    bad = timed["counterexample"].astype(bool)
    if bad.any():
        ax.scatter(size[bad], seconds[bad], s=22, facecolors="none", edgecolors="#c44e52",
                   linewidths=0.8, alpha=0.8, label="counterexample (ringed)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("members x partitions")
    ax.set_ylabel("assign seconds")
    ax.set_title("Time vs size")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9)
    return _png(fig)


def plot_inputs(frame: Any) -> str:
    """Which sizes and priors the sweep covered."""
    fig, ax = _figure(width=8.0, height=4.8)
    sized = frame.dropna(subset=["members", "partitions"]) if len(frame) else frame
    if not len(sized):
        _placeholder(ax, "no cases")
        return _png(fig)
    colors = {"empty": "#4c72b0", "stable": "#55a868", "churn": "#dd8452"}
    for prior, color in colors.items():
        mask = sized["prior"] == prior
        if mask.any():
            ax.scatter(sized["members"][mask].clip(lower=0.8),
                       sized["partitions"][mask].clip(lower=0.8), s=9, alpha=0.5, color=color,
                       label=f"prior: {prior}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("members (N)")
    ax.set_ylabel("assignable partitions (P)")
    ax.set_title("Cases swept")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(fig)


def _shape_text(first: Mapping[str, Any]) -> str:
    shape = first["shape"]
    churn = f"/{shape['churn']}" if shape.get("churn") else ""
    kind = "heterogeneous" if shape.get("heterogeneous") else "homogeneous"
    return (f"{shape['members']} members, {shape['topics']} x {shape['partitions_per_topic']} "
            f"partitions, {kind}, prior {shape['prior']}{churn}")


def _property_rows(summary: Mapping[str, Any]) -> str:
    cases = summary["cases"]
    rows = []
    items = list(summary["properties"].items())
    errors = summary["errors"]
    items.append(("error", {"held": cases - errors["count"], "failed": errors["count"],
                            "unchecked": 0, "first_counterexample": errors["first"]}))
    for name, tally in items:
        first = tally["first_counterexample"]
        expected = tally.get("expected") or (name == "error" and errors.get("expected", 0)
                                             == errors["count"] > 0)
        if first is None:
            where = "none"
        else:
            extra = f"<br><code>{_e(first['error'])}</code>" if first.get("error") else ""
            where = (f"seed {_e(first['seed'])}, index {_e(first['index'])}<br>"
                     f"{_e(_shape_text(first))}{extra}"
                     f"<pre>{_e(first['replay'])}</pre>")
            if expected:
                where += f"<small>{_e(_expected_text(name))}</small>"
        status = "ok" if tally["failed"] == 0 or expected else "bad"
        rows.append(
            f"<tr><td><b>{_e(name)}</b><br><small>{_e(MEANINGS.get(name, ''))}</small></td>"
            f"<td class='num {status}'>{tally['held']}/{cases}</td>"
            f"<td class='num'>{tally['failed']}</td><td class='num'>{tally['unchecked']}</td>"
            f"<td>{where}</td></tr>")
    return "\n".join(rows)


def _expected_text(name: str) -> str:
    from groupspec.pipeline.expected import DIVERGENCES_DOC, why

    if name == "error":
        return (f"Expected of Kafka 4.2: its own java.util.NoSuchElementException, see "
                f"{DIVERGENCES_DOC}: no_such_element_crash.")
    return f"Expected of Kafka 4.2, {why(name)}."


def _verdict(summary: Mapping[str, Any]) -> str:
    from groupspec.pipeline.expected import DIVERGENCES_DOC
    from groupspec.pipeline.sweep import unexpected

    cases, bad = summary["cases"], summary["counterexamples"]
    known = summary.get("expected_counterexamples", 0)
    below = summary["moves"].get("below_minimum_unexplained", 0)
    if bad == 0 and below == 0:
        return f"<span class='verdict ok'>every property held on all {cases} cases</span>"
    parts = []
    if bad:
        parts.append(f"{bad} of {cases} cases are counterexamples")
        if known:
            parts.append(f"{known} of them Kafka 4.2's known divergences ({DIVERGENCES_DOC}), "
                         f"{bad - known} unexpected")
    if below:
        parts.append(f"{below} full valid results moved fewer partitions than the proved "
                     "minimum (the optimiser is wrong)")
    status = "ok" if unexpected(summary) == 0 else "bad"
    return f"<span class='verdict {status}'>{_e('; '.join(parts))}</span>"


def _moves_text(moves: Mapping[str, Any], target: str) -> str:
    """The caption under the moves plots; every clause must hold for every row counted."""
    from groupspec.pipeline.expected import DIVERGENCES_DOC, KAFKA_TARGET

    text = (f"Moves measured on {moves['measured']} cases; compared with the proved minimum on "
            f"{moves['compared_with_minimum']} ({moves['optimal']} optimal, mean excess "
            f"{_fmt(moves['mean_excess'])}, max {_fmt(moves['max_excess'])}). ")
    below = moves.get("below_minimum", 0)
    if below == 0:
        text += "No result moved fewer partitions than the minimum. "
    else:
        not_full = moves.get("below_minimum_not_full", 0)
        invalid = moves.get("below_minimum_invalid", 0)
        text += (f"{below} moved fewer than the minimum: {not_full} not full and {invalid} full "
                 "but breaking counts or sharing. The minimum is taken over full assignments "
                 "within those bounds, so neither contradicts it")
        if invalid and target == KAFKA_TARGET:
            text += (" (Kafka 4.2 breaks counts by design: members in Java hash order, counts "
                     f"in doubles; see {DIVERGENCES_DOC})")
        text += ". "
        if moves.get("below_minimum_unexplained", 0):
            text += (f"{moves['below_minimum_unexplained']} full valid results moved fewer: "
                     "that would mean the optimiser is wrong. ")
    return text + f"min_moves status: {json.dumps(moves['min_moves_status'])}."


def _kv_table(items: Mapping[str, Any]) -> str:
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in items.items())
    return f"<table>{rows}</table>"


def render(summary: Mapping[str, Any], frame: Any) -> str:
    """The report as one HTML string."""
    inputs, timing = summary["inputs"], summary["timing"]
    cases = summary["cases"]
    verdict = _verdict(summary)
    notes = "".join(f"<div class='note'>{_e(n)}</div>" for n in summary.get("notes", []))
    moves_line = _e(_moves_text(summary["moves"], inputs["target"]))
    balance = summary["balance"]
    figures = [
        ("Moves vs the proved minimum", plot_moves(frame), moves_line),
        ("Balance", plot_balance(frame),
         f"Worst per-pool spread {_fmt(balance['pool_spread_max'])} (the rules allow 1); worst "
         f"total-load spread {_fmt(balance['load_spread_max'])} (unbounded in heterogeneous "
         "groups, where pools are balanced separately)."),
        ("Time vs size", plot_time(frame),
         "Time of the target's call only, measured inside the executor (perf_counter); "
         "counterexamples are ringed in red."),
        ("Inputs", plot_inputs(frame), "Every case's size, coloured by its prior assignment."),
    ]
    figure_html = "\n".join(
        f"<h2>{_e(title)}</h2><figure><img alt='{_e(title)}' src='data:image/png;base64,{png}'>"
        f"<figcaption>{caption}</figcaption></figure>" for title, png, caption in figures)
    run_facts = {
        "target": inputs["target"], "seed": inputs["seed"], "cases": inputs["cases"],
        "max members": inputs["max_members"], "max partitions": inputs["max_partitions"],
        "Spark partitions": inputs["partitions"], "master": inputs["master"],
        "min_moves cap (members x partitions x sharing)": inputs["min_moves_cap"],
        "results": inputs["parquet"], "started": inputs["started_at"],
        "wall time": f"{timing['wall_seconds']} s",
        "throughput": f"{timing['cases_per_second']} cases/s",
        "sum of assign times": f"{_fmt(summary['assign_seconds']['total'])} s",
        "slowest assign": f"{_fmt(summary['assign_seconds']['max'])} s",
    }
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>groupspec sweep: {_e(inputs['target'])}, {cases} cases</title>
<style>{_CSS}</style></head>
<body>
<h1>groupspec sweep: {_e(inputs['target'])}</h1>
<p>{verdict}</p>
{notes}
<h2>Properties</h2>
<table><tr><th>property</th><th>held</th><th>failed</th><th>unchecked</th>
<th>first counterexample and how to rebuild it</th></tr>
{_property_rows(summary)}
</table>
<p><small>"unchecked" cases are those where the target raised, so there was no answer to check.
Cases are rebuilt from (seed, index) with the same --max-members and --max-partitions.</small></p>
{figure_html}
<h2>Run</h2>
{_kv_table(run_facts)}
<h2>Versions and environment</h2>
{_kv_table({**summary.get('versions', {}), **summary.get('environment', {})})}
</body></html>
"""


def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def write_report(path: Path, summary: Mapping[str, Any], frame: Any) -> Path:
    """Render and write the report; returns its path."""
    path.write_text(render(summary, frame), encoding="utf-8")
    return path

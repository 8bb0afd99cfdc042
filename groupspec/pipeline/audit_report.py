"""The audit's HTML report: one self-contained file, drawn from summary.json alone.

Drawn from the summary rather than the tables so that the report of a cluster run costs the
driver nothing beyond the aggregates it already collected; plots use the sweep report's helpers
(matplotlib's object API, base64 PNG, inline CSS).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from groupspec.pipeline.report import _CSS, _e, _figure, _placeholder, _png


def _bars(ax: Any, items: Mapping[str, int], title: str, xlabel: str) -> None:
    if not items:
        _placeholder(ax, f"{title}: none")
        return
    names = list(items)
    ax.barh(names, [items[n] for n in names], color="#4c72b0")
    ax.invert_yaxis()
    ax.set_title(title)
    ax.set_xlabel(xlabel)


def plot_groups(summary: Mapping[str, Any]) -> str:
    fig, (left, right) = _figure(panels=2)
    _bars(left, summary["groups_by_state"], "Groups by kind/state", "groups")
    members = {str(k): v for k, v in summary["members_per_group"].items()}
    if members:
        right.bar(list(members), list(members.values()), color="#55a868")
        right.set_title("Members per group")
        right.set_xlabel("members")
        right.set_ylabel("groups")
    else:
        _placeholder(right, "no groups")
    return _png(fig)


def plot_commits(summary: Mapping[str, Any]) -> str:
    import datetime as dt

    fig, ax = _figure(height=3.2)
    buckets = summary["commit_rate"]["buckets"]
    if not buckets:
        _placeholder(ax, "no offset commits")
        return _png(fig)
    width = summary["commit_rate"]["bucket_ms"] / 1000
    times = [dt.datetime.fromtimestamp(b / 1000, dt.UTC) for b, _ in buckets]
    ax.bar(times, [n / width for _, n in buckets], width=width / 86400, align="edge", color="#4c72b0")
    ax.set_ylabel("commits / s")
    ax.set_title(f"Offset commit rate ({int(width)} s buckets, record timestamps, UTC)")
    fig.autofmt_xdate()
    return _png(fig)


def plot_violations(summary: Mapping[str, Any]) -> str:
    fig, ax = _figure(height=3.0)
    _bars(ax, summary["violations_by_kind"], "Violations by kind", "violations")
    return _png(fig)


def plot_lag(lag: Mapping[str, Any]) -> str:
    """The partitions with the most lag (the summary keeps the largest only)."""
    fig, ax = _figure(height=3.5)
    _bars(ax, {f"{r['group_id']} {r['topic']}-{r['partition']}": r["lag"] for r in lag["largest"]},
          "Lag of the committed offsets (largest)", "records behind the end offset")
    return _png(fig)


def _table(rows: list[list[Any]], head: list[str]) -> str:
    out = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><tr>{out}</tr>{body}</table>"


def render(summary: Mapping[str, Any]) -> str:
    inputs, timing = summary["inputs"], summary["timing"]
    bad = summary["violations"] or summary["quarantined"]
    verdict = (f"<span class='verdict {'bad' if bad else 'ok'}'>{summary['violations']} violations, "
               f"{summary['quarantined']} quarantined records in {summary['groups']} groups and "
               f"{summary['share_partitions']} share partitions</span>")
    kinds = summary["violation_kinds"]
    found = summary["violations_by_kind"]
    violation_rows = [[k, found.get(k, 0), kinds.get(k, ""),
                       "; ".join(f"{x['topic']}-{x['partition']}@{x['offset']} {x['group_id'] or ''}: "
                                 f"{x['detail']}" for x in summary["violation_examples"].get(k, []))]
                      for k in sorted(set(kinds) | set(found))]
    figures = [("Groups", plot_groups(summary)), ("Commit rate", plot_commits(summary)),
               ("Violations", plot_violations(summary))]
    figure_html = "\n".join(f"<h2>{_e(t)}</h2><figure><img alt='{_e(t)}' src='data:image/png;base64,{png}'>"
                            "</figure>" for t, png in figures)
    lag = summary.get("lag")
    if lag:
        figures.append(("Lag", plot_lag(lag)))
    lag_html = "" if not lag else (
        f"<h2>Lag behind the end offsets</h2><p>{lag['total']} records behind over "
        f"{lag['partitions']} committed partitions of {lag['groups']} groups; the largest:</p>"
        + _table([[r["group_id"], f"{r['topic']}-{r['partition']}", r["committed"], r["end_offset"], r["lag"]]
                  for r in lag["largest"]], ["group", "partition", "committed", "end offset", "lag"]))
    facts = [[k, v] for k, v in {**inputs, **timing}.items()]
    versions = [[k, v] for k, v in {**summary.get("versions", {}), **summary.get("environment", {})}.items()]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>groupspec audit</title><style>{_CSS}</style></head>
<body>
<h1>groupspec audit</h1>
<p>{verdict}</p>
<h2>Violations by kind</h2>
{_table(violation_rows, ["kind", "found", "meaning", "first examples (partition@offset group: detail)"])}
<h2>Quarantined records</h2>
{_table([[k, v] for k, v in summary["quarantined_by_reason"].items()], ["reason", "records"])}
{lag_html}
{figure_html}
<h2>Run</h2>
{_table(facts, ["", ""])}
<h2>Versions and environment</h2>
{_table(versions, ["", ""])}
</body></html>
"""


def write_report(path: Path, summary: Mapping[str, Any]) -> Path:
    path.write_text(render(summary), encoding="utf-8")
    return path

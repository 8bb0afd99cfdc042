"""The machines' state diagrams and request tables, drawn from data and checked.

A diagram in the docs is a promise about which state changes exist; drawn by hand it drifts
from the code (issue 16 found an arrow PREDECESSORS allows and the share consumer's diagram
lacked, and no load edge into the classic group's Stable). Here each diagram is a table of
labelled arrows; an arrow may leave a *group* of states (the share consumer's four in-group
states leave for FENCED alike), which keeps the picture readable while every state change is
still drawn. :func:`drift` compares the arrows with the vocabulary's table of allowed
predecessors in both directions. A request table (request x state) is data too, and each of its
cells that names an error is sent to both layers in that state by the scenario tests.
Each stateful spec's transition table (``TABLE``, spec/kernel.py) is rendered as well, row by
row with the rule that handles it, on its machine's page: the rows the spec dispatches by are
the rows the docs show. A spec that builds its answer in steps (``PATHS``: the classic
assignors) has each path drawn as a flowchart of the steps ``assign`` runs, so the picture is the
code's own order. ``python -m groupspec.diagrams`` rewrites the blocks in the docs between
``<!-- diagram: NAME -->`` / ``<!-- table: NAME -->`` / ``<!-- rules: NAME -->`` /
``<!-- steps: NAME -->`` and their closing marks; ``--check`` only says which differ (the
repository tests run that check).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from groupspec.types import classic_consumer, classic_group, share_delivery, share_state
from groupspec.types.share_consumer import PREDECESSORS, MemberState

START = "[*]"


@dataclass(frozen=True)
class Arrow:
    source: str
    target: str
    label: str = ""


@dataclass(frozen=True)
class Diagram:
    """``arrows`` may name a key of ``groups`` as their source: one arrow from each member."""

    name: str
    page: str
    arrows: tuple[Arrow, ...]
    #: The table the arrows must match: state -> the states it may be entered from.
    predecessors: Mapping[str, frozenset[str]]
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    notes: tuple[tuple[str, str], ...] = ()
    #: States the table knows but the picture leaves out (said in a note instead).
    undrawn: frozenset[str] = frozenset()

    def edges(self) -> set[tuple[str, str]]:
        """Every (from, to) the arrows draw, groups expanded, start arrows left out."""
        out = set()
        for arrow in self.arrows:
            if arrow.source == START or arrow.target == START:
                continue
            for source in self.groups.get(arrow.source, (arrow.source,)):
                out.add((source, arrow.target))
        return out

    def table_edges(self) -> set[tuple[str, str]]:
        return {(before, after) for after, befores in self.predecessors.items() for before in befores
                if before not in self.undrawn and after not in self.undrawn}


def drift(diagram: Diagram) -> list[str]:
    """How the drawn arrows and the table of predecessors differ (empty when they agree)."""
    drawn, table = diagram.edges(), diagram.table_edges()
    return ([f"{diagram.name}: the table allows {a} -> {b}, the diagram has no such arrow"
             for a, b in sorted(table - drawn)]
            + [f"{diagram.name}: the diagram draws {a} -> {b}, the table does not allow it"
               for a, b in sorted(drawn - table)])


def render(diagram: Diagram) -> str:
    """The mermaid block (with its fences) for ``diagram``."""
    lines = ["```mermaid", "stateDiagram-v2"]
    for group, members in diagram.groups.items():
        lines.append(f"    state {group} {{")
        lines.extend(f"        {member}" for member in members)
        lines.append("    }")
    for arrow in diagram.arrows:
        label = f": {arrow.label}" if arrow.label else ""
        lines.append(f"    {arrow.source} --> {arrow.target}{label}")
    for state, note in diagram.notes:
        lines.append(f"    note right of {state}: {note}")
    lines.append("```")
    return "\n".join(lines)


def _names(states: frozenset[MemberState]) -> frozenset[str]:
    return frozenset(s.value for s in states)


_IN_GROUP = ("JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE")

SHARE_CONSUMER = Diagram(
    name="share_consumer",
    page="docs/machines/share_consumer.md",
    predecessors={after.value: _names(befores) for after, befores in PREDECESSORS.items()},
    groups={"InGroup": _IN_GROUP},
    arrows=(
        Arrow(START, "UNSUBSCRIBED"),
        Arrow("UNSUBSCRIBED", "JOINING", "poll after subscribe (epoch 0)"),
        Arrow("JOINING", "STABLE",
              "allowed by Kafka's table (not modelled:<br/>a joining member's first target is always new)"),
        Arrow("JOINING", "RECONCILING", "answer with the first assignment, even empty"),
        Arrow("STABLE", "RECONCILING", "answer with a new assignment"),
        Arrow("RECONCILING", "RECONCILING",
              "allowed by Kafka's table (not modelled:<br/>reconciled in its answer's pass)"),
        Arrow("RECONCILING", "ACKNOWLEDGING",
              "the network thread applies the target<br/>right after its answer"),
        Arrow("ACKNOWLEDGING", "STABLE", "the acknowledging heartbeat is sent<br/>at the thread's next wake"),
        Arrow("ACKNOWLEDGING", "RECONCILING",
              "answer with a new assignment<br/>before the acknowledgement went"),
        Arrow("RECONCILING", "STABLE",
              "allowed by Kafka's table (not modelled:<br/>reconciled in its answer's pass)"),
        Arrow("InGroup", "FENCED", "FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID"),
        Arrow("FENCED", "JOINING", "assignment released, same member id, epoch 0"),
        Arrow("FENCED", "UNSUBSCRIBED", "unsubscribe while fenced (Kafka; not modelled)"),
        Arrow("InGroup", "PREPARE_LEAVING", "unsubscribe, close, or the poll timer"),
        Arrow("UNSUBSCRIBED", "PREPARE_LEAVING", "allowed by Kafka's table (not modelled)"),
        Arrow("PREPARE_LEAVING", "LEAVING", "assignment released, epoch -1"),
        Arrow("PREPARE_LEAVING", "UNSUBSCRIBED", "fenced while preparing to leave"),
        Arrow("PREPARE_LEAVING", "FENCED",
              "allowed by Kafka's table (not modelled:<br/>a fenced leave ends in UNSUBSCRIBED)"),
        Arrow("LEAVING", "UNSUBSCRIBED", "the leave is sent, or fenced while leaving"),
        Arrow("LEAVING", "STALE", "the leave was for the poll timer"),
        Arrow("LEAVING", "FENCED", "allowed by Kafka's table (not modelled)"),
        Arrow("STALE", "JOINING", "the next poll"),
        Arrow("InGroup", "FATAL", "any other error"),
        Arrow("PREPARE_LEAVING", "FATAL", "any other error"),
        Arrow("LEAVING", "FATAL", "any other error"),
        Arrow("UNSUBSCRIBED", "FATAL", "any other error"),
    ),
)

CLASSIC_GROUP = Diagram(
    name="classic_group",
    page="docs/machines/classic_group.md",
    predecessors=classic_group.GROUP_PREDECESSORS,
    undrawn=frozenset({classic_group.DEAD}),
    arrows=(
        Arrow(START, "Empty", "JoinGroup creates the group (generation 0)<br/>or an anonymous OffsetCommit"),
        Arrow(START, "Stable", "loaded from the log with members<br/>(GroupMetadata replayed)"),
        Arrow("Empty", "PreparingRebalance", "JoinGroup adds a member<br/>(initial delay timer join-g)"),
        Arrow("PreparingRebalance", "CompletingRebalance", "join phase completes, members remain<br/>"
              "(generation +1, protocol chosen, leader answered with members)"),
        Arrow("PreparingRebalance", "Empty", "join phase completes, no member left<br/>"
              "(generation +1, GroupMetadata written)"),
        Arrow("CompletingRebalance", "Stable",
              "leader's SyncGroup<br/>(GroupMetadata with assignments written)"),
        Arrow("CompletingRebalance", "PreparingRebalance", "join with new metadata, new member,<br/>"
              "leave, member expiry, sync timeout"),
        Arrow("Stable", "PreparingRebalance", "join with new metadata, new member,<br/>"
              "leave, member expiry, sync timeout"),
        Arrow("Empty", START, "DeleteGroups or offset expiry<br/>(GroupMetadata tombstone)"),
    ),
    notes=(("Empty", "Dead exists only while a partition unloads;<br/>"
            "DescribeGroups reports a missing group as Dead"),),
)

SHARE_STATE = Diagram(
    name="share_state",
    page="docs/machines/share_state.md",
    predecessors=share_state.KEY_PREDECESSORS,
    arrows=(
        Arrow(START, "ABSENT"),
        Arrow("ABSENT", "PRESENT", "InitializeShareGroupState<br/>(ShareSnapshot, snapshot epoch 0)"),
        Arrow("PRESENT", "PRESENT", "WriteShareGroupState, "
              "ReadShareGroupState at a newer leader epoch<br/>"
              "(ShareUpdate, or ShareSnapshot at the cadence);<br/>"
              "InitializeShareGroupState (ShareSnapshot)"),
        Arrow("PRESENT", "ABSENT", "DeleteShareGroupState<br/>(ShareSnapshot tombstone)"),
    ),
    notes=(("ABSENT", "read and write answer INVALID_REQUEST;<br/>the summary answers start offset -1"),),
)

SHARE_DELIVERY = Diagram(
    name="share_delivery",
    page="docs/machines/share_delivery.md",
    predecessors={after.value: frozenset(b.value for b in befores)
                  for after, befores in share_delivery.PHASE_PREDECESSORS.items()},
    arrows=(
        Arrow(START, "OPEN"),
        Arrow("OPEN", "BLOCKED", "commitSync with acknowledgements of the session,<br/>"
              "or close with a share session"),
        Arrow("BLOCKED", "OPEN", "the commitSync's ShareAcknowledge is answered or fails<br/>"
              "(or fails unsent at session epoch 0)"),
        Arrow("BLOCKED", "CLOSED", "the closing ShareAcknowledge (epoch -1)<br/>is answered or fails"),
        Arrow("OPEN", "CLOSED", "close without a share session"),
    ),
    notes=(("OPEN", "poll, acknowledge, commitAsync;<br/>answers and assignments in every phase"),),
)

CLASSIC_CONSUMER = Diagram(
    name="classic_consumer",
    page="docs/machines/classic_consumer.md",
    predecessors={after.value: frozenset(b.value for b in befores)
                  for after, befores in classic_consumer.PREDECESSORS.items()},
    arrows=(
        Arrow(START, "UNJOINED"),
        Arrow("UNJOINED", "PREPARING_REBALANCE", "poll after subscribe, or after a fencing error<br/>"
              "(partitions lost, JoinGroup sent)"),
        Arrow("STABLE", "PREPARING_REBALANCE", "poll with a rejoin pending, after the auto-commit if on<br/>"
              "(eager: all revoked; cooperative: unsubscribed topics revoked)"),
        Arrow("PREPARING_REBALANCE", "PREPARING_REBALANCE", "JoinGroup error retried at once<br/>"
              "(UNKNOWN_MEMBER_ID, MEMBER_ID_REQUIRED, REBALANCE_IN_PROGRESS)<br/>"
              "or at the next poll (coordinator errors,<br/>"
              "or the leader's assignment failed: IllegalStateException)"),
        Arrow("PREPARING_REBALANCE", "COMPLETING_REBALANCE", "JoinGroup answered<br/>"
              "(SyncGroup sent; the leader's with the chosen assignor's answer)"),
        Arrow("COMPLETING_REBALANCE", "PREPARING_REBALANCE", "SyncGroup error: JoinGroup again"),
        Arrow("COMPLETING_REBALANCE", "STABLE", "SyncGroup answered<br/>(onPartitionsAssigned)"),
        Arrow("STABLE", "UNJOINED", "heartbeat or OffsetCommit fenced<br/>"
              "(generation reset), poll timeout (the heartbeat thread<br/>"
              "leaves: LeaveGroup if dynamic), or unsubscribe / close"),
        Arrow("PREPARING_REBALANCE", "UNJOINED", "unsubscribe / close (partitions lost),<br/>"
              "or OffsetCommit or an older heartbeat fenced"),
        Arrow("COMPLETING_REBALANCE", "UNJOINED", "unsubscribe / close (partitions lost),<br/>"
              "OffsetCommit or heartbeat fenced, or poll timeout"),
    ),
    notes=(("UNJOINED", "assign() mode stays here:<br/>commits carry generation -1 and no member id;<br/>"
                        "a closed consumer ends here"),
           ("COMPLETING_REBALANCE", "the heartbeat thread runs here and in STABLE:<br/>"
                                    "the JoinGroup answer restarts its timers")),
)

DIAGRAMS = (CLASSIC_GROUP, SHARE_CONSUMER, SHARE_STATE, SHARE_DELIVERY, CLASSIC_CONSUMER)


# ---------------------------------------------------------------------------------------------
# Request x state tables


@dataclass(frozen=True)
class Cell:
    """What a request gets in one state; ``error`` is the answer's error code where the cell
    names one, which the scenario tests check on both layers (tests/scenarios/classic_group/
    test_classic_request_table.py drives each layer into the state and sends ``probe``)."""

    text: str
    error: str | None = None


@dataclass(frozen=True)
class Row:
    request: str
    cells: tuple[Cell, ...]
    #: The request the tests send to check the cells that name an error (None: not checked).
    probe: str | None = None


@dataclass(frozen=True)
class RequestTable:
    name: str
    page: str
    states: tuple[str, ...]
    rows: tuple[Row, ...]


def _same(error: str) -> Cell:
    return Cell(error, error)


CLASSIC_REQUESTS = RequestTable(
    name="classic_group_requests",
    page="docs/machines/classic_group.md",
    states=("Empty", "PreparingRebalance", "CompletingRebalance", "Stable"),
    rows=(
        Row("JoinGroup, new dynamic member, v4+", (
            Cell("MEMBER_ID_REQUIRED with a new id (pending member, session timer)", "MEMBER_ID_REQUIRED"),
            Cell("same", "MEMBER_ID_REQUIRED"),
            Cell("same (group max size applies)", "MEMBER_ID_REQUIRED"),
            Cell("same (group max size applies)", "MEMBER_ID_REQUIRED")), probe="join_new"),
        Row("JoinGroup, new member with its id / static", (
            Cell("add, prepare rebalance (initial delay chain)"), Cell("add, park; may complete the join"),
            Cell("add, prepare rebalance"), Cell("add, prepare rebalance"))),
        Row("JoinGroup, known member", (
            Cell("UNKNOWN_MEMBER_ID (no members)"), Cell("park the join; complete when all joined"),
            Cell("same metadata: answer at once with the current generation; else rebalance"),
            Cell("leader or changed metadata: rebalance; follower with same metadata: answer at once"))),
        Row("SyncGroup", (
            _same("UNKNOWN_MEMBER_ID"), _same("REBALANCE_IN_PROGRESS"),
            Cell("follower: park; leader: store assignments, write GroupMetadata, answer all, → Stable"),
            Cell("answer the stored assignment", "NONE")), probe="sync"),
        Row("Heartbeat", (
            _same("UNKNOWN_MEMBER_ID"),
            Cell("REBALANCE_IN_PROGRESS (session re-armed)", "REBALANCE_IN_PROGRESS"),
            _same("NONE"), Cell("NONE (session re-armed)", "NONE")), probe="heartbeat"),
        Row("LeaveGroup", (
            Cell("per member UNKNOWN_MEMBER_ID"), Cell("remove; may complete the join"),
            Cell("remove, rebalance"), Cell("remove, rebalance"))),
        Row("OffsetCommit, generation -1, no member", (
            Cell("accepted (simple commit; creates a missing group)", "NONE"), _same("UNKNOWN_MEMBER_ID"),
            _same("UNKNOWN_MEMBER_ID"), _same("UNKNOWN_MEMBER_ID")), probe="commit_simple"),
        Row("OffsetCommit, member, current generation", (
            Cell("UNKNOWN_MEMBER_ID (no members)", "UNKNOWN_MEMBER_ID"), Cell("accepted", "NONE"),
            _same("REBALANCE_IN_PROGRESS"), Cell("accepted", "NONE")), probe="commit_member"),
        Row("OffsetCommit, member, other generation", (
            _same("UNKNOWN_MEMBER_ID"), _same("ILLEGAL_GENERATION"), _same("ILLEGAL_GENERATION"),
            _same("ILLEGAL_GENERATION")), probe="commit_stale"),
        Row("DeleteGroups", (
            Cell("offset and group tombstones", "NONE"), _same("NON_EMPTY_GROUP"), _same("NON_EMPTY_GROUP"),
            _same("NON_EMPTY_GROUP")), probe="delete"),
    ),
)

TABLES = (CLASSIC_REQUESTS,)


# ---------------------------------------------------------------------------------------------
# The spec's transition tables (spec/kernel.py's Table): the rows dispatch reads, as a page table


@dataclass(frozen=True)
class RuleTable:
    """A spec's ``TABLE``, rendered: one row per (event type, state) and the rule that handles it,
    with the first line of the rule's docstring. Read from the module, so it cannot drift."""

    name: str
    page: str
    module: str


def rule_tables() -> tuple[RuleTable, ...]:
    """One for every machine of the registry whose spec dispatches through a TABLE, on its page."""
    from groupspec.machines import MACHINES

    return tuple(RuleTable(f"{m.name}_rules", m.page, m.spec) for m in MACHINES
                 if m.spec is not None and hasattr(importlib.import_module(m.spec), "TABLE"))


def render_rules(table: RuleTable) -> str:
    from groupspec.spec.kernel import ANY, Table  # the spec is what this table shows

    spec_table = importlib.import_module(table.module).TABLE
    assert isinstance(spec_table, Table)
    lines = ["| event | state | rule | what it does |", "|---|---|---|---|"]
    cells = sorted(spec_table.cells(), key=lambda c: (c[1].__name__, c[0] == ANY))
    for state, kind, rule in cells:
        alone = sum(1 for c in cells if c[1] is kind) == 1
        where = ("any" if alone else "any other") if state == ANY else getattr(state, "value", state)
        # The docstring's first paragraph, on one line.
        doc = " ".join((rule.__doc__ or "").strip().split("\n\n")[0].split())
        lines.append(f"| {kind.__name__} | {where} | `{rule.__name__}` | {doc} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# A spec's paths (spec/classic_assignors.py's PATHS): the steps assign runs, as flowcharts


@dataclass(frozen=True)
class StepChart:
    """One path of a spec's ``PATHS``, drawn as the steps ``assign`` runs for it: each box is the
    first paragraph of a step's docstring, a diamond the question that decides whether a step
    runs. Read from the module, so a step added, removed or reordered redraws the page."""

    name: str
    page: str
    module: str
    path: str


def step_charts() -> tuple[StepChart, ...]:
    """One for every path of every machine whose spec runs its answer through PATHS."""
    from groupspec.machines import MACHINES

    out = []
    for m in MACHINES:
        if m.spec is None or not hasattr(importlib.import_module(m.spec), "PATHS"):
            continue
        out += [StepChart(f"{m.name}_{p.name}", m.page, m.spec, p.name)
                for p in importlib.import_module(m.spec).PATHS]
    return tuple(out)


def _label(doc: str | None) -> str:
    """A docstring's first paragraph on one line, as a quoted mermaid label."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split()).replace("``", "").replace("`", "")
    return '"' + text.replace('"', "#quot;") + '"'


def render_steps(chart: StepChart) -> str:
    path = next(p for p in importlib.import_module(chart.module).PATHS if p.name == chart.path)
    entries = [f"Q{i}" if step.when is not None else f"S{i}" for i, step in enumerate(path.steps)]
    entries.append("E")
    lines = ["```mermaid", "flowchart TD"]
    for i, step in enumerate(path.steps):
        box = f"S{i}[{_label(step.rule.__doc__)}]"
        if step.when is None:
            lines.append(f"    {box} --> {entries[i + 1]}")
        else:
            lines.append(f"    Q{i}{{{_label(step.when.__doc__)}}} -- yes --> {box}")
            lines.append(f"    Q{i} -- no --> {entries[i + 1]}")
            lines.append(f"    S{i} --> {entries[i + 1]}")
    lines.append('    E(["the answer: each list sorted by topic, then partition"])')
    lines.append("```")
    return "\n".join(lines)


def render_table(table: RequestTable) -> str:
    """The markdown table of ``table``."""
    lines = [f"| request | {' | '.join(table.states)} |", "|---" * (len(table.states) + 1) + "|"]
    for row in table.rows:
        lines.append(f"| {row.request} | {' | '.join(c.text for c in row.cells)} |")
    return "\n".join(lines)


def _table_block(name: str) -> tuple[str, str]:
    return (f"<!-- table: {name} (drawn by `python -m groupspec.diagrams` from groupspec/diagrams.py; "
            "its error cells are checked on both layers) -->", "<!-- /table -->")


def _rules_block(name: str) -> tuple[str, str]:
    return (f"<!-- rules: {name} (drawn by `python -m groupspec.diagrams` from the spec's TABLE) -->",
            "<!-- /rules -->")


def _steps_block(name: str) -> tuple[str, str]:
    return (f"<!-- steps: {name} (drawn by `python -m groupspec.diagrams` from the spec's PATHS) -->",
            "<!-- /steps -->")


def _block(name: str) -> tuple[str, str]:
    return (f"<!-- diagram: {name} (drawn by `python -m groupspec.diagrams` from "
            "groupspec/diagrams.py; edit the arrows there) -->", "<!-- /diagram -->")


def _replace(page: str, text: str, block: tuple[str, str], body: str) -> str:
    begin, end = block
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        raise ValueError(f"{page} has no block {begin!r} ... {end!r}")
    return text[:start + len(begin)] + "\n" + body + "\n" + text[stop:]


Drawing = Diagram | RequestTable | RuleTable | StepChart


def drawings() -> tuple[Drawing, ...]:
    """Everything this module draws into the docs."""
    return (*DIAGRAMS, *TABLES, *rule_tables(), *step_charts())


def rendered_page(drawing: Drawing, text: str) -> str:
    """``text`` with the drawing's block replaced by its rendering; ValueError without a block."""
    if isinstance(drawing, StepChart):
        return _replace(drawing.page, text, _steps_block(drawing.name), render_steps(drawing))
    if isinstance(drawing, RuleTable):
        return _replace(drawing.page, text, _rules_block(drawing.name), render_rules(drawing))
    if isinstance(drawing, RequestTable):
        return _replace(drawing.page, text, _table_block(drawing.name), render_table(drawing))
    return _replace(drawing.page, text, _block(drawing.name), render(drawing))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m groupspec.diagrams", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--check", action="store_true", help="only report pages that differ")
    args = parser.parse_args(argv)
    problems = [p for d in DIAGRAMS for p in drift(d)]
    for drawing in drawings():
        page = args.root / drawing.page
        text = page.read_text(encoding="utf-8")
        new = rendered_page(drawing, text)
        if new != text:
            if args.check:
                problems.append(f"{drawing.page}: {drawing.name} differs from its rendering")
            else:
                page.write_text(new, encoding="utf-8")
                print(f"rewrote {drawing.name} in {drawing.page}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

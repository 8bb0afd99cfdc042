"""The machines' state diagrams, drawn from data and checked against the transition tables.

A diagram in the docs is a promise about which state changes exist; drawn by hand it drifts
from the code (issue 16 found an arrow PREDECESSORS allows and the share consumer's diagram
lacked, and no load edge into the classic group's Stable). Here each diagram is a table of
labelled arrows; an arrow may leave a *group* of states (the share consumer's four in-group
states leave for FENCED alike), which keeps the picture readable while every state change is
still drawn. :func:`drift` compares the arrows with the vocabulary's table of allowed
predecessors in both directions, and ``python -m groupspec.diagrams`` rewrites the blocks in
the docs between ``<!-- diagram: NAME -->`` and ``<!-- /diagram -->``; ``--check`` only says
which differ (the repository tests run that check).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from groupspec.types import classic_group
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
        Arrow("JOINING", "STABLE", "answer, assignment = current"),
        Arrow("JOINING", "RECONCILING", "answer with a new assignment"),
        Arrow("STABLE", "RECONCILING", "answer with a new assignment"),
        Arrow("RECONCILING", "RECONCILING", "the target moves again"),
        Arrow("RECONCILING", "ACKNOWLEDGING", "poll applies the target"),
        Arrow("ACKNOWLEDGING", "STABLE", "the acknowledging heartbeat is sent"),
        Arrow("ACKNOWLEDGING", "RECONCILING", "sent, but the target moved meanwhile"),
        Arrow("RECONCILING", "STABLE", "answer whose target is the assignment held"),
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

DIAGRAMS = (CLASSIC_GROUP, SHARE_CONSUMER)


def _block(name: str) -> tuple[str, str]:
    return (f"<!-- diagram: {name} (drawn by `python -m groupspec.diagrams` from "
            "groupspec/diagrams.py; edit the arrows there) -->", "<!-- /diagram -->")


def rendered_page(diagram: Diagram, text: str) -> str:
    """``text`` with the diagram's block replaced by its rendering; ValueError without a block."""
    begin, end = _block(diagram.name)
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        raise ValueError(f"{diagram.page} has no block {begin!r} ... {end!r}")
    return text[:start + len(begin)] + "\n" + render(diagram) + "\n" + text[stop:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m groupspec.diagrams", description=__doc__)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--check", action="store_true", help="only report pages that differ")
    args = parser.parse_args(argv)
    problems = [p for d in DIAGRAMS for p in drift(d)]
    for diagram in DIAGRAMS:
        page = args.root / diagram.page
        text = page.read_text(encoding="utf-8")
        new = rendered_page(diagram, text)
        if new != text:
            if args.check:
                problems.append(f"{diagram.page}: the {diagram.name} diagram differs from its rendering")
            else:
                page.write_text(new, encoding="utf-8")
                print(f"rewrote the {diagram.name} diagram in {diagram.page}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

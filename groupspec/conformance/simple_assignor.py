"""The simple_assignor machine in conformance: its vectors' input and output checks, its judge
(assignments compared member by member; properties named with the member and partition where
they break) and its in-process driver. Registered in :mod:`groupspec.machines`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from groupspec.conformance.judging import WITNESSES, Judge
from groupspec.conformance.targets import Handler
from groupspec.conformance.vector_format import object_at, only_keys
from groupspec.spec.simple_assignor import PROPERTIES as PROPERTIES  # the spec's list, re-exported
from groupspec.types import AssignorInput, GroupAssignment, InputError

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


def _violated_assignor(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    """The verdict is the spec's (``check_properties``); the places come from
    :func:`assignor_property_details`, which restates each property per member and partition
    (tests/cover/test_conformance_protocol.py checks that both name the same properties)."""
    from groupspec.group_json import group_from_json
    from groupspec.spec.simple_assignor import check_properties

    group = group_from_json(doc, strict_topics=False)
    answer = _read_assignment(output)
    held = check_properties(group, answer)
    details = assignor_property_details(group, answer)
    return {p: details.get(p) or [f"{p}: (no single place found)"]
            for p in properties if not held[p]}


def _parts(parts: Iterable[tuple[str, int]]) -> str:
    return ", ".join(f"{t}-{p}" for t, p in sorted(parts)) or "none"


def assignor_property_details(group: AssignorInput, result: GroupAssignment) -> dict[str, list[str]]:
    """Each property of ``spec.simple_assignor.PROPERTIES`` that ``result`` breaks -> up to
    three lines naming the member or partition where it breaks, e.g.
    ``fill: partition t-3 has 1 holder(s), fewer than s=2, yet member 'M2' holds 1 of its 2
    and not t-3``. Same definitions as ``check_properties``, stated place by place."""
    from groupspec.spec.simple_assignor import pools

    found: dict[str, list[str]] = {}

    def say(prop: str, line: str) -> None:
        found.setdefault(prop, []).append(f"{prop}: {line}")

    ids = group.member_ids()
    for member in ids:
        if member not in result:
            say("complete", f"member {member!r} is missing from the answer")
    for member in result:
        if member not in ids:
            say("complete", f"member {member!r} is not in the group")
    if len(set(ids)) != len(ids):
        say("complete", "the group repeats a member id")
    got = [result.get(i, {}) for i in ids]
    for m, a in zip(group.members, got, strict=True):
        for topic, parts in sorted(a.items()):
            if topic not in m.topics and parts:
                say("subscribed", f"member {m.member_id!r} holds {_parts((topic, p) for p in parts)} "
                    f"but does not subscribe to {topic!r}")
            elif topic not in m.topics:
                say("subscribed", f"member {m.member_id!r} names topic {topic!r}, to which it "
                    "does not subscribe")
            bad = [p for p in parts if not group.is_assignable(topic, p)]
            if topic in m.topics and bad:
                say("subscribed", f"member {m.member_id!r} holds {_parts((topic, p) for p in bad)}, "
                    "which do(es) not exist or may not be assigned")
    for pool in pools(group):
        s, desired = pool.sharing, pool.desired()
        mine = {i: {tp for tp in pool.partitions if tp[1] in got[i].get(tp[0], ())}
                for i in pool.subscribers}
        holders = {tp: [i for i in pool.subscribers if tp in mine[i]] for tp in pool.partitions}
        for tp, who in holders.items():
            name = _parts([tp])
            if not who:
                say("coverage", f"partition {name} has no holder")
            if len(who) > s:
                say("sharing", f"partition {name} has {len(who)} holders "
                    f"({', '.join(repr(ids[i]) for i in who)}), more than s={s}")
            short = [i for i in pool.subscribers if len(mine[i]) < desired[i] and tp not in mine[i]]
            if len(who) < s and short:
                i = short[0]
                say("fill", f"partition {name} has {len(who)} holder(s), fewer than s={s}, yet "
                    f"member {ids[i]!r} holds {len(mine[i])} of its {desired[i]} and not {name}")
        before = {i: {tp for tp in pool.partitions
                      if tp[1] in group.members[i].assignment.get(tp[0], ())}
                  for i in pool.subscribers}
        tied = {tp for tp, who in holders.items()
                if len(who) >= s and all(tp in before[i] for i in who)}
        for i in pool.subscribers:
            if len(mine[i]) > desired[i]:
                say("counts", f"member {ids[i]!r} holds {len(mine[i])} partitions "
                    f"({_parts(mine[i])}), more than its {desired[i]}")
            credited = len(before[i] & mine[i]) + len((before[i] - mine[i]) & tied)
            if credited < min(len(before[i]), desired[i]):
                need = min(len(before[i]), desired[i])
                say("sticky", f"member {ids[i]!r} kept {credited} of its {len(before[i])} valid "
                    f"previous partition(s) ({_parts(before[i])}), fewer than min({len(before[i])}, "
                    f"its count {desired[i]}) = {need}; lost {_parts(before[i] - mine[i] - tied)}")
    return {p: lines[:WITNESSES] + ([f"{p}: ... and {len(lines) - WITNESSES} more"]
                                     if len(lines) > WITNESSES else [])
            for p, lines in found.items()}


JUDGE = Judge(_compare_assignments, _violated_assignor)


def check_input(doc: Any) -> None:
    from groupspec.group_json import group_from_json

    group_from_json(doc, strict_topics=False)


def check_output(doc: Any) -> None:
    from groupspec.group_json import assignment_from_json

    body = object_at(doc, "output")
    only_keys(body, {"assignment"}, "output")
    if "assignment" not in body:
        raise InputError("output.assignment", "missing")
    assignment_from_json(body["assignment"], "output.assignment")


def handler(target: str) -> Handler:
    def run(doc: Any) -> dict[str, Any]:
        from groupspec.group_json import assignment_to_json, group_from_json

        group = group_from_json(doc, strict_topics=False)
        if target == "spec":
            from groupspec.spec.simple_assignor import assign as spec_assign

            return assignment_to_json(spec_assign(group))
        from groupspec.impl.simple_assignor import assign

        return assignment_to_json(assign(group, compat="kafka" if target == "impl-kafka"
                                         else "groupspec"))
    return run


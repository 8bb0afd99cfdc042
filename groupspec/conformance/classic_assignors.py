"""The classic_assignors machine in conformance: the JSON form of its input and output, their
checks, its judge and its in-process driver. Registered in :mod:`groupspec.machines`.

Input (member order is the JoinGroup response's, the order of the ``members`` object)::

    {"assignor": "range" | "roundrobin",
     "members": {"<member id>": {"topics": ["<name>", ...],
                                 "owned": [["<name>", 0], ...],      (optional)
                                 "instance_id": "<id>",              (optional)
                                 "generation": 3,                    (optional)
                                 "rack": "<rack>",                   (optional)
                                 "user_data": "<hex>"}},             (optional)
     "topics": {"<name>": <partition count>},
     "racks": {"<name>": [["<rack>", ...], ...]}}    (optional: per partition, its replicas' racks)

Output: ``{"assignment": {"<member id>": [["<name>", <partition>], ...]}}``, every member, each
list in the assignor's order (which the judge compares: it is part of the answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance.judging import WITNESSES, Judge
from groupspec.conformance.targets import Handler
from groupspec.conformance.vector_format import object_at, only_keys
from groupspec.spec.classic_assignors import PROPERTIES as PROPERTIES  # the spec's list, re-exported
from groupspec.types import InputError
from groupspec.types.classic_assignors import (
    INT32_MAX,
    ClassicAssignment,
    ClassicAssignorInput,
    ClassicMember,
    TopicPartition,
)
from groupspec.types.classic_assignors import (
    check_input as check_group,
)

_TOP = {"assignor", "members", "topics", "racks"}
_MEMBER = {"topics", "owned", "instance_id", "generation", "rack", "user_data"}


def _obj(value: Any, path: str) -> dict[str, Any]:
    body = object_at(value, path)
    duplicates = getattr(body, "duplicates", ())
    if duplicates:
        raise InputError(f"{path}.{duplicates[0]}", "duplicate key")
    return body


def _str(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(path, "expected a string")
    return value


def _int(value: Any, path: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= INT32_MAX:
        raise InputError(path, f"expected an integer from {low} to {INT32_MAX}")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(path, "expected an array")
    return value


def _partition(value: Any, path: str) -> TopicPartition:
    pair = _list(value, path)
    if len(pair) != 2:
        raise InputError(path, 'expected ["<topic>", <partition>]')
    return _str(pair[0], f"{path}[0]"), _int(pair[1], f"{path}[1]")


def group_from_json(doc: Any) -> ClassicAssignorInput:
    """The group a vector's input describes; InputError names the first bad field."""
    top = _obj(doc, "input")
    only_keys(top, _TOP, "input")
    for key in ("assignor", "members", "topics"):
        if key not in top:
            raise InputError(f"input.{key}", "missing")
    members = []
    for member_id, raw in _obj(top["members"], "input.members").items():
        path = f"input.members.{member_id}"
        body = _obj(raw, path)
        only_keys(body, _MEMBER, path)
        if "topics" not in body:
            raise InputError(f"{path}.topics", "missing")
        topics = tuple(
            _str(t, f"{path}.topics[{k}]") for k, t in enumerate(_list(body["topics"], f"{path}.topics"))
        )
        owned = tuple(
            _partition(v, f"{path}.owned[{k}]")
            for k, v in enumerate(_list(body.get("owned", []), f"{path}.owned"))
        )
        instance = (
            None if body.get("instance_id") is None else _str(body["instance_id"], f"{path}.instance_id")
        )
        generation = (
            None
            if body.get("generation") is None
            else _int(body["generation"], f"{path}.generation", -(1 << 31))
        )
        rack = None if body.get("rack") is None else _str(body["rack"], f"{path}.rack")
        user_data = None
        if body.get("user_data") is not None:
            try:
                user_data = bytes.fromhex(_str(body["user_data"], f"{path}.user_data"))
            except ValueError:
                raise InputError(f"{path}.user_data", "expected hex digits") from None
        members.append(ClassicMember(member_id, topics, owned, instance, generation, rack, user_data))
    counts = {t: _int(n, f"input.topics.{t}") for t, n in _obj(top["topics"], "input.topics").items()}
    racks: dict[str, tuple[frozenset[str], ...]] = {}
    for t, per in _obj(top.get("racks", {}), "input.racks").items():
        racks[t] = tuple(
            frozenset(
                _str(r, f"input.racks.{t}[{p}][{k}]")
                for k, r in enumerate(_list(rs, f"input.racks.{t}[{p}]"))
            )
            for p, rs in enumerate(_list(per, f"input.racks.{t}"))
        )
    group = ClassicAssignorInput(_str(top["assignor"], "input.assignor"), tuple(members), counts, racks)
    try:
        check_group(group)
    except InputError as exc:
        raise InputError(f"input.{exc.field}", exc.problem) from None
    return group


def group_to_json(group: ClassicAssignorInput) -> dict[str, Any]:
    """The canonical JSON of a group: members in their order, topics and racks by name."""
    members: dict[str, Any] = {}
    for m in group.members:
        body: dict[str, Any] = {"topics": list(m.topics)}
        if m.owned_partitions:
            body["owned"] = [[t, p] for t, p in m.owned_partitions]
        for key, value in (
            ("instance_id", m.group_instance_id),
            ("generation", m.generation_id),
            ("rack", m.rack_id),
        ):
            if value is not None:
                body[key] = value
        if m.user_data is not None:
            body["user_data"] = m.user_data.hex()
        members[m.member_id] = body
    doc: dict[str, Any] = {
        "assignor": group.assignor,
        "members": members,
        "topics": {t: group.topics[t] for t in sorted(group.topics)},
    }
    if group.replica_racks:
        doc["racks"] = {t: [sorted(rs) for rs in group.replica_racks[t]] for t in sorted(group.replica_racks)}
    return doc


def assignment_from_json(doc: Any, path: str = "output.assignment") -> ClassicAssignment:
    body = _obj(doc, path)
    return {
        m: tuple(_partition(v, f"{path}.{m}[{k}]") for k, v in enumerate(_list(parts, f"{path}.{m}")))
        for m, parts in body.items()
    }


def assignment_to_json(assignment: ClassicAssignment) -> dict[str, Any]:
    return {"assignment": {m: [[t, p] for t, p in parts] for m, parts in assignment.items()}}


def _read(output: Any) -> ClassicAssignment:
    body = _obj(output, "output")
    if "assignment" not in body:
        raise InputError("output", 'expected an object {"assignment": {...}}')
    return assignment_from_json(body["assignment"])


def _show(parts: Sequence[TopicPartition] | None) -> str:
    return "(absent)" if parts is None else "[" + ", ".join(f"{t}-{p}" for t, p in parts) + "]"


def _compare(expected: Any, actual: Any) -> list[str]:
    want, got = _read(expected), _read(actual)
    lines = []
    for member in list(want) + [m for m in got if m not in want]:
        a, b = want.get(member), got.get(member)
        if a != b:
            same = a is not None and b is not None and sorted(a) == sorted(b)
            lines.append(
                f"{member}: expected {_show(a)}, got {_show(b)}"
                + (" (same partitions, another order)" if same else "")
            )
    return lines


def property_details(group: ClassicAssignorInput, result: ClassicAssignment) -> dict[str, list[str]]:
    """Each broken property -> lines naming the member or partition where it breaks."""
    from groupspec.spec.classic_assignors import assigned_topics, partition_key, subscribers

    found: dict[str, list[str]] = {}

    def say(prop: str, line: str) -> None:
        found.setdefault(prop, []).append(f"{prop}: {line}")

    by_id = {m.member_id: m for m in group.members}
    for m in group.members:
        if m.member_id not in result:
            say("complete", f"member {m.member_id!r} is missing from the answer")
    for member, parts in result.items():
        if member not in by_id:
            say("complete", f"member {member!r} is not in the group")
            continue
        for t, p in parts:
            if t not in by_id[member].topics or not 0 <= p < group.partition_count(t):
                say("subscribed", f"member {member!r} holds {t}-{p}, which it may not")
        if list(parts) != sorted(parts, key=partition_key):
            say("ordered", f"member {member!r} lists {_show(parts)}, not sorted")
    holders: dict[TopicPartition, list[str]] = {}
    for member, parts in result.items():
        for tp in parts:
            holders.setdefault(tp, []).append(member)
    for t in assigned_topics(group):
        for p in range(group.partition_count(t)):
            who = holders.get((t, p), [])
            if len(who) != 1:
                say("exactly_once", f"partition {t}-{p} is held by {len(who)} member(s) {who}")
        if group.assignor == "range":
            subs = subscribers(group, t)
            base = group.partition_count(t) // len(subs)
            for m in subs:
                n = sum(1 for tp in result.get(m.member_id, ()) if tp[0] == t)
                if not base <= n <= base + 1:
                    say(
                        "balanced",
                        f"member {m.member_id!r} holds {n} of {t}'s partitions, not {base} or {base + 1}",
                    )
    return found


def _violated(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    """The verdict is the spec's (``check_properties``); the places come from
    :func:`property_details` where it can name them."""
    from groupspec.spec.classic_assignors import check_properties

    group = group_from_json(doc)
    answer = _read(output)
    held = check_properties(group, answer)
    details = property_details(group, answer)
    out = {}
    for p in properties:
        if not held[p]:
            lines = details.get(p) or [f"{p}: (no single place found)"]
            out[p] = lines[:WITNESSES] + (
                [f"{p}: ... and {len(lines) - WITNESSES} more"] if len(lines) > WITNESSES else []
            )
    return out


JUDGE = Judge(_compare, _violated)


def check_input(doc: Any) -> None:
    group_from_json(doc)


def check_output(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"assignment"}, "output")
    if "assignment" not in body:
        raise InputError("output.assignment", "missing")
    assignment_from_json(body["assignment"])


def handler(target: str) -> Handler:
    def run(doc: Any) -> dict[str, Any]:
        group = group_from_json(doc)
        if target == "spec":
            from groupspec.spec.classic_assignors import assign as spec_assign

            return assignment_to_json(spec_assign(group))
        from groupspec.impl.classic_assignors import assign

        return assignment_to_json(assign(group, compat="kafka" if target == "impl-kafka" else "groupspec"))

    return run

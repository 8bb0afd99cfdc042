"""The JSON shape of a share group and of its assignment, shared by the CLI, vectors and adapters.

Input::

    {"members": {"<member id>": {"topics": ["<name>", ...],
                                 "assignment": {"<name>": [0, 3]}}},
     "topics": {"<name>": <partition count>},
     "topic_ids": {"<name>": "<topic id>"},          (optional; Kafka's or UUID form)
     "assignable": {"<name>": [0, 1, ...]}}           (optional)

Member order is the order of the ``members`` object in the document, never a hash order. Output
is ``{"assignment": {"<member id>": {"<name>": [sorted partitions]}}}`` with every member.

Parsing checks everything before anything is returned, so a caller either gets a whole group or
one ``InputError`` naming the first bad field as a JSON path (``members.m1.topics[2]``). Duplicate
keys are refused rather than silently collapsed: a duplicate member id would otherwise vanish.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from groupspec import bounded_json
from groupspec.types import AssignorInput, GroupAssignment, InputError, MemberSpec
from groupspec.types.topic_id import parse_topic_id

#: Partition counts and numbers are Kafka int32s.
INT32_MAX = (1 << 31) - 1
#: The most partitions (all topics together) one group document may describe. Every partition
#: costs the assignors memory and time, so a count a typo made huge would otherwise run for
#: minutes and end in a MemoryError. A million is beyond any real cluster's topics of one
#: group; ``max_partitions`` (``assign --max-partitions``) raises it.
MAX_PARTITIONS = 1_000_000

_TOP_KEYS = {"members", "topics", "topic_ids", "assignable"}
_MEMBER_KEYS = {"topics", "assignment"}


class JsonObject(dict[str, Any]):
    """A parsed JSON object that remembers keys it saw twice, so the reader can name the field."""

    duplicates: tuple[str, ...] = ()


def _keep_duplicates(pairs: list[tuple[str, Any]]) -> JsonObject:
    obj = JsonObject()
    dups = []
    for key, value in pairs:
        if key in obj:
            dups.append(key)
        obj[key] = value
    obj.duplicates = tuple(dups)
    return obj


def loads(text: str | bytes, source: str = "input") -> Any:
    """Parse JSON text within :mod:`groupspec.bounded_json`'s bounds; duplicate keys are kept
    aside and refused when the object is read."""
    return bounded_json.parse(text, source, _keep_duplicates)


def _obj(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(path, f"expected an object, got {_kind(value)}")
    if isinstance(value, JsonObject) and value.duplicates:
        raise InputError(f"{path}.{value.duplicates[0]}", "duplicate key")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", str: "a string", int: "an integer",
            float: "a number"}.get(type(value), type(value).__name__)


def _int(value: Any, path: str, minimum: int = 0) -> int:
    """Partition counts and numbers are int32 in Kafka (its metadata and every request)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(path, f"expected an integer, got {_kind(value)}")
    if value < minimum:
        raise InputError(path, f"must be >= {minimum}, got {value}")
    if value > INT32_MAX:
        raise InputError(path, f"must be at most {INT32_MAX:,} (an int32 in Kafka), got {value:,}")
    return value


def _partitions(value: Any, path: str) -> frozenset[int]:
    if not isinstance(value, list):
        raise InputError(path, f"expected an array of partition numbers, got {_kind(value)}")
    parts = [_int(p, f"{path}[{k}]") for k, p in enumerate(value)]
    if len(set(parts)) != len(parts):
        raise InputError(path, "a partition is listed twice")
    return frozenset(parts)


def _unknown_keys(obj: Mapping[str, Any], allowed: set[str], path: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise InputError(f"{path}.{extra[0]}" if path else extra[0],
                         f"unknown field (expected one of {sorted(allowed)})")


def group_from_json(doc: Any, *, strict_topics: bool = False,
                    warn: Callable[[str], None] | None = None,
                    max_partitions: int = MAX_PARTITIONS) -> AssignorInput:
    """Build and validate a group from a parsed document.

    A subscription may name a topic missing from ``topics``: in Kafka that is a topic not yet
    created or already deleted, which the coordinator leaves out of what the assignor sees
    (the name still counts for the subscription type). ``warn`` hears about each such name with
    the closest existing one, since it is also what a typo looks like; ``strict_topics`` refuses
    it instead. Previous assignments may name missing topics or partitions beyond the count,
    because that is what a deleted topic or a shrunk view looks like. Topic ids are read in
    Kafka's 22-character form or as UUIDs and kept as given. Partition counts are int32s and
    together at most ``max_partitions``.
    """
    top = _obj(doc, "input")
    _unknown_keys(top, _TOP_KEYS, "")
    if "members" not in top:
        raise InputError("members", "missing")
    if "topics" not in top:
        raise InputError("topics", "missing")
    topics = {name: _int(n, f"topics.{name}") for name, n in _obj(top["topics"], "topics").items()}
    total = sum(topics.values())
    if total > max_partitions:
        raise InputError("topics", f"{total:,} partitions in all, more than the limit of "
                         f"{max_partitions:,} (assign --max-partitions raises it)")
    topic_ids: dict[str, str] = {}
    for name, tid in _obj(top.get("topic_ids", {}), "topic_ids").items():
        path = f"topic_ids.{name}"
        if name not in topics:
            raise InputError(path, f"unknown topic {name!r} (not in topics)")
        if not isinstance(tid, str):
            raise InputError(path, f"expected a topic id string, got {_kind(tid)}")
        parse_topic_id(tid, path)
        topic_ids[name] = tid
    assignable: dict[str, frozenset[int]] | None = None
    if "assignable" in top and top["assignable"] is not None:
        assignable = {}
        for name, parts in _obj(top["assignable"], "assignable").items():
            if name not in topics:
                raise InputError(f"assignable.{name}", f"unknown topic {name!r} (not in topics)")
            assignable[name] = _partitions(parts, f"assignable.{name}")
    members = []
    for member_id, body in _obj(top["members"], "members").items():
        path = f"members.{member_id}"
        if member_id == "":
            raise InputError(path, "member id must not be empty")
        body = _obj(body, path)
        _unknown_keys(body, _MEMBER_KEYS, path)
        raw_topics = body.get("topics", [])
        if not isinstance(raw_topics, list):
            raise InputError(f"{path}.topics", f"expected an array of names, got {_kind(raw_topics)}")
        subscribed: list[str] = []
        for k, name in enumerate(raw_topics):
            if not isinstance(name, str):
                raise InputError(f"{path}.topics[{k}]", f"expected a topic name, got {_kind(name)}")
            if name not in topics and (strict_topics or warn is not None):
                close = difflib.get_close_matches(name, list(topics), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                if strict_topics:
                    raise InputError(f"{path}.topics[{k}]", f"unknown topic {name!r} (not in topics){hint}")
                assert warn is not None
                warn(f"{path}.topics[{k}]: topic {name!r} is not in topics, so nothing of it is "
                     f"assigned{hint}")
            if name in subscribed:
                raise InputError(f"{path}.topics[{k}]", f"topic {name!r} listed twice")
            subscribed.append(name)
        assignment = {name: _partitions(parts, f"{path}.assignment.{name}")
                      for name, parts in _obj(body.get("assignment", {}),
                                              f"{path}.assignment").items()}
        members.append(MemberSpec(member_id, tuple(subscribed), assignment))
    return AssignorInput(tuple(members), topics, topic_ids, assignable)


def group_to_json(group: AssignorInput) -> dict[str, Any]:
    """The document ``group_from_json`` reads back into an equal group."""
    doc: dict[str, Any] = {
        "members": {
            m.member_id: {"topics": list(m.topics),
                          "assignment": {t: sorted(ps) for t, ps in m.assignment.items()}}
            for m in group.members
        },
        "topics": dict(group.topics),
    }
    if group.topic_ids:
        doc["topic_ids"] = dict(group.topic_ids)
    if group.assignable is not None:
        doc["assignable"] = {t: sorted(ps) for t, ps in group.assignable.items()}
    return doc


def assignment_to_json(result: GroupAssignment) -> dict[str, Any]:
    """``{"assignment": {member: {topic: sorted partitions}}}``; members keep their order."""
    return {"assignment": {m: {t: sorted(ps) for t, ps in sorted(a.items()) if ps}
                           for m, a in result.items()}}


def assignment_from_json(doc: Any, path: str = "assignment") -> dict[str, dict[str, frozenset[int]]]:
    """Read an assignment (the value under ``"assignment"``) back, validating its shape."""
    out: dict[str, dict[str, frozenset[int]]] = {}
    for member_id, topics in _obj(doc, path).items():
        mpath = f"{path}.{member_id}"
        out[member_id] = {t: _partitions(ps, f"{mpath}.{t}")
                          for t, ps in _obj(topics, mpath).items() if ps}
    return out

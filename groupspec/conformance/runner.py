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
* A target may answer that it does not implement a vector (``unsupported``, with a reason; or
  its handshake leaves the machine out): the vector is neither passed nor failed but counted
  and listed apart, so a partial implementation needs no ``--filter``.

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
from groupspec.conformance.targets import Response, Target
from groupspec.conformance.vector_format import Vector
from groupspec.types import AssignorInput, GroupAssignment, InputError

_DIFF_LINES = 8
_WITNESSES = 3  # places named per broken property
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

    @property
    def status(self) -> str:
        return "passed" if self.passed else "unsupported" if self.unsupported else "failed"


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

    def summary(self) -> list[tuple[str, int, int, int, int]]:
        """(machine, vectors, passed, failed, unsupported) per machine, in name order."""
        rows: dict[str, list[int]] = {}
        column = {"passed": 1, "failed": 2, "unsupported": 3}
        for o in self.outcomes:
            row = rows.setdefault(o.machine, [0, 0, 0, 0])
            row[0] += 1
            row[column[o.status]] += 1
        return [(m, r[0], r[1], r[2], r[3]) for m, r in sorted(rows.items())]


# ---------------------------------------------------------------------------------------------
# Per-machine judging
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judge:
    """How a machine's outputs are compared (-> diff lines, empty when equal) and checked
    (-> each listed property that does not hold, with lines saying where it breaks)."""

    compare: Callable[[Any, Any], list[str]]
    violated: Callable[[Any, Any, Sequence[str]], dict[str, list[str]]]
    #: What one diff line counts, for the failure reason ("output differs for 3 member(s)").
    unit: str = "member(s)"


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
    return {p: lines[:_WITNESSES] + ([f"{p}: ... and {len(lines) - _WITNESSES} more"]
                                     if len(lines) > _WITNESSES else [])
            for p, lines in found.items()}


def _compare_json(expected: Any, actual: Any) -> list[str]:
    if not isinstance(actual, dict):
        return [f"expected an object, got {json.dumps(actual)[:200]}"]
    keys = list(expected) + [k for k in actual if k not in expected]
    return [f"{k}: expected {json.dumps(expected.get(k))[:200]}, got {json.dumps(actual.get(k))[:200]}"
            for k in keys if expected.get(k) != actual.get(k)]


def _no_properties(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    return {p: [f"{p}: this machine checks no properties"] for p in properties}


# --- classic_group: answers by request, records per group, the final view ----------------------

#: Checked on a Kafka-flavoured answer, for which groupspec records no exact expectation.
CLASSIC_PROPERTIES = ("one_answer_each", "answer_types")


def _response_classes() -> dict[type, type]:
    from groupspec.types import classic_group as c

    return {c.JoinGroup: c.JoinGroupResponse, c.SyncGroup: c.SyncGroupResponse,
            c.Heartbeat: c.HeartbeatResponse, c.LeaveGroup: c.LeaveGroupResponse,
            c.OffsetCommit: c.OffsetCommitResponse, c.TxnOffsetCommit: c.TxnOffsetCommitResponse,
            c.TxnMarker: c.TxnMarkerResponse, c.OffsetFetch: c.OffsetFetchResponse,
            c.OffsetDelete: c.OffsetDeleteResponse, c.DeleteGroups: c.DeleteGroupsResponse,
            c.DescribeGroups: c.DescribeGroupsResponse, c.ListGroups: c.ListGroupsResponse}


def _short(value: Any) -> str:
    from enum import Enum

    if isinstance(value, bytes):
        text = value.hex() or '""'
    elif isinstance(value, Enum):
        text = value.name
    else:
        text = repr(value)
    return text if len(text) <= 160 else text[:160] + "..."


def _diff(path: str, want: Any, got: Any, out: list[str]) -> None:
    """Field-by-field differences of two values of the classic vocabulary, as ``path: ...`` lines."""
    import dataclasses

    if want == got:
        return
    if type(want) is not type(got):
        out.append(f"{path}: expected {_short(want)}, got {_short(got)}")
    elif dataclasses.is_dataclass(want):
        for f in dataclasses.fields(want):
            _diff(f"{path}.{f.name}", getattr(want, f.name), getattr(got, f.name), out)
    elif isinstance(want, tuple):
        if len(want) != len(got):
            out.append(f"{path}: expected {len(want)} item(s), got {len(got)}")
        for i, (a, b) in enumerate(zip(want, got, strict=False)):
            _diff(f"{path}[{i}]", a, b, out)
    else:
        out.append(f"{path}: expected {_short(want)}, got {_short(got)}")


def _group_of(entry: Any) -> str | None:
    from groupspec.types.classic_group import TxnRecord

    record = entry.record if isinstance(entry, TxnRecord) else entry
    key = getattr(record, "key", None)
    group = getattr(key, "group", getattr(key, "group_id", None))
    return group if isinstance(group, str) else None


def _compare_output(k: int, want: Any, got: Any, out: list[str]) -> None:
    """One event's Output, by the contract: answers by request index, records per group in
    order, transaction markers as a set (one per coordinator partition the producer touched,
    so a single-log model writes one where a sharded coordinator writes several)."""
    from collections import Counter

    from groupspec.types.classic_group import TxnEnd

    def answers(o: Any) -> dict[int, list[Any]]:
        table: dict[int, list[Any]] = {}
        for a in o.answers:
            table.setdefault(a.request, []).append(a.response)
        return table

    want_a, got_a = answers(want), answers(got)
    for request in sorted(set(want_a) | set(got_a)):
        w, g = want_a.get(request, []), got_a.get(request, [])
        where = f"event {k}: answer to request {request}"
        if len(w) != len(g):
            out.append(f"{where}: expected {len(w)} answer(s), got {len(g)}"
                       + (f" ({_short(g[0])})" if g and not w else ""))
        else:
            for a, b in zip(w, g, strict=True):
                _diff(where, a, b, out)

    def records(o: Any) -> tuple[dict[str | None, list[Any]], Counter[Any]]:
        per_group: dict[str | None, list[Any]] = {}
        markers: Counter[Any] = Counter()
        for entry in o.records:
            if isinstance(entry, TxnEnd):
                markers[entry] += 1
            else:
                per_group.setdefault(_group_of(entry), []).append(entry)
        return per_group, markers

    (want_r, want_m), (got_r, got_m) = records(want), records(got)
    for group in sorted(set(want_r) | set(got_r), key=str):
        _diff(f"event {k}: records of group {group!r}", tuple(want_r.get(group, ())),
              tuple(got_r.get(group, ())), out)
    if set(want_m) != set(got_m):
        out.append(f"event {k}: transaction markers: expected {sorted(map(_short, want_m))}, "
                   f"got {sorted(map(_short, got_m))}")


def _compare_classic(expected: Any, actual: Any) -> list[str]:
    from groupspec.conformance.classic_group_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        _compare_output(k, w, g, lines)
    if want.view.now_ms != got.view.now_ms:
        lines.append(f"view.now_ms: expected {want.view.now_ms}, got {got.view.now_ms}")
    want_g = {g.group_id: g for g in want.view.groups}
    got_g = {g.group_id: g for g in got.view.groups}
    for gid in sorted(set(want_g) | set(got_g)):
        if gid not in got_g:
            lines.append(f"view: group {gid!r} missing")
        elif gid not in want_g:
            lines.append(f"view: group {gid!r} not expected")
        else:
            _diff(f"view: group {gid!r}", want_g[gid], got_g[gid], lines)
    if not lines and [g.group_id for g in want.view.groups] != [g.group_id for g in got.view.groups]:
        lines.append("view.groups: not in group-id order")
    return lines


def _kept(properties: Sequence[str], found: dict[str, list[str]]) -> dict[str, list[str]]:
    """The listed properties among those found broken, each with at most a few places."""
    return {p: [f"{p}: {line}" for line in found[p][:_WITNESSES]]
            + ([f"{p}: ... and {len(found[p]) - _WITNESSES} more"] if len(found[p]) > _WITNESSES else [])
            for p in properties if found.get(p)}


def _outputs_per_event(events: int, outputs: int, found: dict[str, list[str]]) -> None:
    if outputs != events:
        found.setdefault("one_answer_each", []).append(f"{outputs} output(s) for {events} event(s)")


def _violated_classic(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    from groupspec.conformance.classic_group_json import run_input_from_json, run_output_from_json
    from groupspec.types.classic_group import JoinGroup, SyncGroup

    run, result = run_input_from_json(doc), run_output_from_json(output)
    responses = _response_classes()
    requests = {i: e for i, e in enumerate(run.events) if type(e) in responses}
    found: dict[str, list[str]] = {}
    _outputs_per_event(len(run.events), len(result.outputs), found)
    seen: dict[int, int] = {}
    for k, out in enumerate(result.outputs):
        for answer in out.answers:
            seen[answer.request] = seen.get(answer.request, 0) + 1
            request = requests.get(answer.request)
            if answer.request > k:
                found.setdefault("one_answer_each", []).append(
                    f"request {answer.request} answered at event {k}, before it was sent")
            if request is None:
                found.setdefault("answer_types", []).append(
                    f"event {k} answered request {answer.request}, which is not a request")
            elif type(answer.response) is not responses[type(request)]:
                found.setdefault("answer_types", []).append(
                    f"request {answer.request} ({type(request).__name__}) answered with "
                    f"{type(answer.response).__name__}")
    for i, n in sorted(seen.items()):
        if n > 1:
            found.setdefault("one_answer_each", []).append(f"request {i} answered {n} times")
    for i, e in requests.items():
        # A JoinGroup or SyncGroup may stay parked past the run's end, or be superseded by the
        # same member's next one (never answered, as in Kafka); every other request is answered.
        if i not in seen and not isinstance(e, JoinGroup | SyncGroup):
            found.setdefault("one_answer_each", []).append(
                f"request {i} ({type(e).__name__}) never answered")
    return _kept(properties, found)


# --- share_partition: answers per event (acquired offsets as a set), writes, the final view ----

#: Checked on an output for which only properties are asked.
SHARE_PROPERTIES = ("one_answer_each", "answer_types")


def _share_response_classes() -> dict[type, type]:
    from groupspec.types import share_partition as sp

    return {sp.Fetch: sp.FetchResponse, sp.Acknowledge: sp.AcknowledgeResponse,
            sp.ReleaseMember: sp.ReleaseResponse, sp.Reload: sp.ReloadResponse}


def _acquired(response: Any) -> list[tuple[int, int]]:
    """(offset, delivery count) of every acquired offset, in offset order."""
    return sorted((o, a.delivery_count) for a in response.acquired
                  for o in range(a.first_offset, a.last_offset + 1))


def _compare_share(expected: Any, actual: Any) -> list[str]:
    """Answers in order, except that a fetch's acquired ranges are compared offset by offset
    (how consecutive offsets are grouped into ranges is not specified: docs/divergences.md,
    share_acquired_ranges); persister writes in order; the final view whole."""
    from groupspec.conformance.share_partition_json import run_output_from_json
    from groupspec.types.share_partition import FetchResponse

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        if len(w.answers) != len(g.answers):
            lines.append(f"event {k}: expected {len(w.answers)} answer(s), got {len(g.answers)}")
        for a, b in zip(w.answers, g.answers, strict=False):
            where = f"event {k}: answer"
            if (a.request == b.request and isinstance(a.response, FetchResponse)
                    and isinstance(b.response, FetchResponse)):
                if _acquired(a.response) != _acquired(b.response):
                    lines.append(f"{where}: acquired (offset, delivery count) expected "
                                 f"{_short(_acquired(a.response))}, got {_short(_acquired(b.response))}")
                if a.response.count != b.response.count:
                    lines.append(f"{where}.count: expected {a.response.count}, got {b.response.count}")
            else:
                _diff(where, a, b, lines)
        _diff(f"event {k}: writes", w.writes, g.writes, lines)
    _diff("view", want.view, got.view, lines)
    return lines


def _answered_at_once(events: Sequence[Any], outputs: Sequence[Any], responses: dict[type, type],
                      properties: Sequence[str]) -> dict[str, list[str]]:
    """The listed properties that fail, for machines that answer every request in its own step:
    one_answer_each (one output per event; each request answered exactly once, there; nothing
    else answered) and answer_types (each answer of its request's response class)."""
    found: dict[str, list[str]] = {}
    _outputs_per_event(len(events), len(outputs), found)
    for k, (event, out) in enumerate(zip(events, outputs, strict=False)):
        wanted = responses.get(type(event))
        answered = [a.request for a in out.answers]
        if answered != ([k] if wanted is not None else []):
            should = f"request {k}" if wanted is not None else "nothing"
            found.setdefault("one_answer_each", []).append(
                f"event {k} ({type(event).__name__}) answered requests {answered}, expected {should}")
        for a in out.answers:
            if wanted is None or type(a.response) is not wanted:
                found.setdefault("answer_types", []).append(
                    f"event {k} ({type(event).__name__}) answered with {type(a.response).__name__}"
                    + (f", expected {wanted.__name__}" if wanted is not None else ""))
    return _kept(properties, found)


def _violated_share(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    from groupspec.conformance.share_partition_json import run_input_from_json, run_output_from_json

    run, result = run_input_from_json(doc), run_output_from_json(output)
    responses = _share_response_classes()
    return _answered_at_once(run.events, result.outputs, responses, properties)


# --- share_group: answers in order, records per group, initialize requests, the view ----------

SHARE_GROUP_PROPERTIES = ("one_answer_each", "answer_types")


def _compare_share_group(expected: Any, actual: Any) -> list[str]:
    """Answers and initialize requests in order; records per group in order (groups on
    different ``__consumer_offsets`` shards may interleave differently); the final view."""
    from groupspec.conformance.share_group_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        _diff(f"event {k}: answers", w.answers, g.answers, lines)
        _diff(f"event {k}: initialize", w.initialize, g.initialize, lines)

        def per_group(records: Any) -> dict[str, list[Any]]:
            table: dict[str, list[Any]] = {}
            for r in records:
                table.setdefault(r.key.group_id, []).append(r)
            return table

        want_r, got_r = per_group(w.records), per_group(g.records)
        for group in sorted(set(want_r) | set(got_r)):
            _diff(f"event {k}: records of group {group!r}", tuple(want_r.get(group, ())),
                  tuple(got_r.get(group, ())), lines)
    _diff("view", want.view, got.view, lines)
    return lines


def _violated_share_group(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    from groupspec.conformance.share_group_json import run_input_from_json, run_output_from_json
    from groupspec.types import share_group as sg

    run, result = run_input_from_json(doc), run_output_from_json(output)
    responses = {sg.ShareGroupHeartbeat: sg.ShareGroupHeartbeatResponse,
                 sg.DeleteGroups: sg.DeleteGroupsResponse, sg.SetGroupConfig: sg.SetGroupConfigResponse}
    return _answered_at_once(run.events, result.outputs, responses, properties)


# --- share_consumer: what each event sent and applied, in order; the final view ------------------

SHARE_CONSUMER_PROPERTIES = ("one_in_flight",)


def _compare_share_consumer(expected: Any, actual: Any) -> list[str]:
    from groupspec.conformance.share_consumer_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        _diff(f"event {k}", w, g, lines)
    _diff("view", want.view, got.view, lines)
    return lines


def _violated_share_consumer(doc: Any, output: Any,
                             properties: Sequence[str]) -> dict[str, list[str]]:
    """one_in_flight: after a heartbeat is sent, none is sent before an answer or a failure."""
    from groupspec.conformance.share_consumer_json import run_input_from_json, run_output_from_json
    from groupspec.types.share_consumer import HeartbeatAnswered, HeartbeatFailed

    run, result = run_input_from_json(doc), run_output_from_json(output)
    found: list[str] = []
    if len(result.outputs) != len(run.events):
        found.append(f"{len(result.outputs)} output(s) for {len(run.events)} event(s)")
    in_flight: int | None = None
    for k, (event, out) in enumerate(zip(run.events, result.outputs, strict=False)):
        if isinstance(event, HeartbeatAnswered | HeartbeatFailed):
            in_flight = None
        if out.sent is not None:
            if in_flight is not None:
                found.append(f"event {k} sent a heartbeat while the one sent at event {in_flight} "
                             "awaited its answer")
            in_flight = k
    return _kept(properties, {"one_in_flight": found})


# Each machine's judge, named in its registry entry (groupspec.machines).
NO_PROPERTIES: tuple[str, ...] = ()
ASSIGNOR_JUDGE = Judge(_compare_assignments, _violated_assignor)
RECORDS_JUDGE = Judge(_compare_json, _no_properties)
CLASSIC_JUDGE = Judge(_compare_classic, _violated_classic, unit="difference(s)")
SHARE_JUDGE = Judge(_compare_share, _violated_share, unit="difference(s)")
SHARE_GROUP_JUDGE = Judge(_compare_share_group, _violated_share_group, unit="difference(s)")
SHARE_CONSUMER_JUDGE = Judge(_compare_share_consumer, _violated_share_consumer, unit="difference(s)")


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


def _compact(doc: Any) -> str:
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    if len(text) <= _INPUT_CHARS:
        return text
    return f"{text[:_INPUT_CHARS]}... ({len(text)} characters in all)"


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
                                  input="" if passed else _compact(vector.input))
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


def _totals(report: Report) -> tuple[int, int, int, int]:
    summary = report.summary()
    return (sum(r[1] for r in summary), sum(r[2] for r in summary), sum(r[3] for r in summary),
            sum(r[4] for r in summary))


def table(report: Report) -> str:
    """``machine | vectors | passed | failed | unsupported`` with a total row."""
    rows = [(m, *map(str, counts)) for m, *counts in report.summary()]
    rows.append(("total", *map(str, _totals(report))))
    head = ("machine", "vectors", "passed", "failed", "unsupported")
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


def to_json(report: Report) -> dict[str, Any]:
    total = _totals(report)
    return {
        "target": report.target,
        "flavour": report.flavour,
        "notes": report.notes,
        "machines": [{"machine": m, "vectors": n, "passed": p, "failed": f, "unsupported": u}
                     for m, n, p, f, u in report.summary()],
        "total": {"vectors": total[0], "passed": total[1], "failed": total[2],
                  "unsupported": total[3]},
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
                              skipped=str(sum(o.unsupported for o in outcomes)))
        for o in outcomes:
            case = ET.SubElement(suite, "testcase", classname=f"{o.machine}.{o.handler}",
                                 name=o.case)
            if o.unsupported:
                ET.SubElement(case, "skipped", message=f"unsupported: {o.reason}")
            elif not o.passed:
                failure = ET.SubElement(case, "failure", message=o.reason)
                body = [f"vector: {o.path}", f"input: {o.input}", *o.diff]
                if o.stderr:
                    body += ["stderr:", o.stderr]
                failure.text = "\n".join(body)
    ET.indent(suites)
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data

"""The classic_group machine in conformance: a whole run (config, events) in, every output and
the final view out; judged by answers per request, records per group and the view.
Registered in :mod:`groupspec.machines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance import run_form
from groupspec.conformance.judging import Judge, diff, kept, outputs_per_event, short

#: Checked on a Kafka-flavoured answer, for which groupspec records no exact expectation.
PROPERTIES = ("one_answer_each", "answer_types")


def _response_classes() -> dict[type, type]:
    from groupspec.types import classic_group as c

    return {c.JoinGroup: c.JoinGroupResponse, c.SyncGroup: c.SyncGroupResponse,
            c.Heartbeat: c.HeartbeatResponse, c.LeaveGroup: c.LeaveGroupResponse,
            c.OffsetCommit: c.OffsetCommitResponse, c.TxnOffsetCommit: c.TxnOffsetCommitResponse,
            c.TxnMarker: c.TxnMarkerResponse, c.OffsetFetch: c.OffsetFetchResponse,
            c.OffsetDelete: c.OffsetDeleteResponse, c.DeleteGroups: c.DeleteGroupsResponse,
            c.DescribeGroups: c.DescribeGroupsResponse, c.ListGroups: c.ListGroupsResponse}


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
                       + (f" ({short(g[0])})" if g and not w else ""))
        else:
            for a, b in zip(w, g, strict=True):
                diff(where, a, b, out)

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
        diff(f"event {k}: records of group {group!r}", tuple(want_r.get(group, ())),
              tuple(got_r.get(group, ())), out)
    if set(want_m) != set(got_m):
        out.append(f"event {k}: transaction markers: expected {sorted(map(short, want_m))}, "
                   f"got {sorted(map(short, got_m))}")


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
            diff(f"view: group {gid!r}", want_g[gid], got_g[gid], lines)
    if not lines and [g.group_id for g in want.view.groups] != [g.group_id for g in got.view.groups]:
        lines.append("view.groups: not in group-id order")
    return lines


def _violated_classic(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    from groupspec.conformance.classic_group_json import run_input_from_json, run_output_from_json
    from groupspec.types.classic_group import JoinGroup, SyncGroup

    run, result = run_input_from_json(doc), run_output_from_json(output)
    responses = _response_classes()
    requests = {i: e for i, e in enumerate(run.events) if type(e) in responses}
    found: dict[str, list[str]] = {}
    outputs_per_event(len(run.events), len(result.outputs), found)
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
    return kept(properties, found)


JUDGE = Judge(_compare_classic, _violated_classic, unit="difference(s)")


check_input, check_output = run_form.checks("groupspec.conformance.classic_group_json")


def drive(target: str, run: Any) -> Any:
    """Feed a classic_group run (``classic_group_json.RunInput``) to the spec or the implementation,
    event by event with its index, and collect every Output and the final view (a RunOutput).

    The implementation has no Kafka-exact mode for the classic group, so ``impl-kafka`` runs
    the implementation as it is.
    """
    from groupspec.conformance.classic_group_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import classic_group as spec

        state = spec.initial_state(run.config, run.start_ms)
        for index, event in enumerate(run.events):
            state, output = spec.step(state, event, index)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.classic_group import ClassicCoordinator

    coordinator = ClassicCoordinator(run.config, start_ms=run.start_ms)
    for index, event in enumerate(run.events):
        outputs.append(coordinator.handle(event, index))
    return RunOutput(tuple(outputs), coordinator.view())


handler = run_form.handler("groupspec.conformance.classic_group_json", drive)

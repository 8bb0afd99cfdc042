"""The share_group machine in conformance: a whole run in, answers, records per group,
initialize requests and the final view out. Registered in :mod:`groupspec.machines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance import run_form
from groupspec.conformance.judging import Judge, answered_at_once, diff

PROPERTIES = ("one_answer_each", "answer_types")


def _compare_share_group(expected: Any, actual: Any) -> list[str]:
    """Answers and initialize requests in order; records per group in order (groups on
    different ``__consumer_offsets`` shards may interleave differently); the final view."""
    from groupspec.conformance.share_group_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        diff(f"event {k}: answers", w.answers, g.answers, lines)
        diff(f"event {k}: initialize", w.initialize, g.initialize, lines)

        def per_group(records: Any) -> dict[str, list[Any]]:
            table: dict[str, list[Any]] = {}
            for r in records:
                table.setdefault(r.key.group_id, []).append(r)
            return table

        want_r, got_r = per_group(w.records), per_group(g.records)
        for group in sorted(set(want_r) | set(got_r)):
            diff(f"event {k}: records of group {group!r}", tuple(want_r.get(group, ())),
                  tuple(got_r.get(group, ())), lines)
    diff("view", want.view, got.view, lines)
    return lines


def _violated_share_group(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    from groupspec.conformance.share_group_json import run_input_from_json, run_output_from_json
    from groupspec.types import share_group as sg

    run, result = run_input_from_json(doc), run_output_from_json(output)
    responses = {sg.ShareGroupHeartbeat: sg.ShareGroupHeartbeatResponse,
                 sg.DeleteGroups: sg.DeleteGroupsResponse, sg.SetGroupConfig: sg.SetGroupConfigResponse}
    return answered_at_once(run.events, result.outputs, responses, properties)


JUDGE = Judge(_compare_share_group, _violated_share_group, unit="difference(s)")


check_input, check_output = run_form.checks("groupspec.conformance.share_group_json")


def drive(target: str, run: Any) -> Any:
    """Feed a share_group run (``share_group_json.RunInput``) to the spec or the implementation.

    The implementation follows Kafka's code (with groupspec's orders), so ``impl-kafka`` runs it.
    """
    from groupspec.conformance.share_group_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_group as spec

        state = spec.initial_state(run.config, run.topics, run.start_ms)
        for index, event in enumerate(run.events):
            state, output = spec.step(state, event, index)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share_group import ShareGroupCoordinator

    coordinator = ShareGroupCoordinator(run.config, run.topics, start_ms=run.start_ms)
    for index, event in enumerate(run.events):
        outputs.append(coordinator.handle(event, index))
    return RunOutput(tuple(outputs), coordinator.view())


handler = run_form.handler("groupspec.conformance.share_group_json", drive)

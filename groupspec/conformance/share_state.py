"""The share_state machine in conformance: a whole run in, answers, records and the final view
out, all compared exactly. Registered in :mod:`groupspec.machines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance import run_form
from groupspec.conformance.judging import Judge, answered_at_once, diff

PROPERTIES = ("one_answer_each", "answer_types")


def _compare_share_state(expected: Any, actual: Any) -> list[str]:
    """Answers and records event by event, in order (one event writes to one coordinator
    partition, so the order is the log's); the final view whole."""
    from groupspec.conformance.share_state_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        diff(f"event {k}: answers", w.answers, g.answers, lines)
        diff(f"event {k}: records", w.records, g.records, lines)
    diff("view", want.view, got.view, lines)
    return lines


def _violated_share_state(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    from groupspec.conformance.share_state_json import run_input_from_json, run_output_from_json
    from groupspec.types import share_state as ss

    run, result = run_input_from_json(doc), run_output_from_json(output)
    return answered_at_once(run.events, result.outputs, ss.RESPONSE_FOR, properties)


JUDGE = Judge(_compare_share_state, _violated_share_state, unit="difference(s)")


check_input, check_output = run_form.checks("groupspec.conformance.share_state_json")


def drive(target: str, run: Any) -> Any:
    """Feed a share_state run (``share_state_json.RunInput``) to the spec or the implementation.

    The implementation follows Kafka's code, so ``impl-kafka`` runs it as it is.
    """
    from groupspec.conformance.share_state_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_state as spec

        state = spec.initial_state(run.config, run.topics, run.start_ms)
        for index, event in enumerate(run.events):
            state, output = spec.step(state, event, index)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share_state import ShareCoordinator

    coordinator = ShareCoordinator(run.config, run.topics, start_ms=run.start_ms)
    for index, event in enumerate(run.events):
        outputs.append(coordinator.handle(event, index))
    return RunOutput(tuple(outputs), coordinator.view())


handler = run_form.handler("groupspec.conformance.share_state_json", drive)

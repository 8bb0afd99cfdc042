"""The share_partition machine in conformance: a whole run in, every output and the final view
out; acquired offsets compared as sets, writes and the view exactly. Registered in
:mod:`groupspec.machines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance import run_form
from groupspec.conformance.judging import Judge, answered_at_once, diff, short

#: Checked on an output for which only properties are asked.
PROPERTIES = ("one_answer_each", "answer_types")


def _share_response_classes() -> dict[type, type]:
    from groupspec.types import share_partition as sp

    return {sp.Fetch: sp.FetchResponse, sp.Acknowledge: sp.AcknowledgeResponse,
            sp.ReleaseMember: sp.ReleaseResponse, sp.Reload: sp.ReloadResponse,
            sp.CanAcquire: sp.CanAcquireResponse}


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
                                 f"{short(_acquired(a.response))}, got {short(_acquired(b.response))}")
                if a.response.count != b.response.count:
                    lines.append(f"{where}.count: expected {a.response.count}, got {b.response.count}")
            else:
                diff(where, a, b, lines)
        diff(f"event {k}: writes", w.writes, g.writes, lines)
    diff("view", want.view, got.view, lines)
    return lines


def _violated_share(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    from groupspec.conformance.share_partition_json import run_input_from_json, run_output_from_json

    run, result = run_input_from_json(doc), run_output_from_json(output)
    responses = _share_response_classes()
    return answered_at_once(run.events, result.outputs, responses, properties)


JUDGE = Judge(_compare_share, _violated_share, unit="difference(s)")


check_input, check_output = run_form.checks("groupspec.conformance.share_partition_json")


def drive(target: str, run: Any) -> Any:
    """Feed a share_partition run (``share_partition_json.RunInput``) to the spec or the implementation,
    event by event with its index; the Outputs and the final view (a ``share_partition_json.RunOutput``).

    The implementation follows Kafka's code, so ``impl-kafka`` runs it as it is.
    """
    from groupspec.conformance.share_partition_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_partition as spec

        state = spec.initial_state(run.config, run.persisted, run.start_ms, run.latest_offset)
        for index, event in enumerate(run.events):
            state, output = spec.step(state, event, index)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share_partition import SharePartitionMachine

    machine = SharePartitionMachine(run.config, run.persisted, start_ms=run.start_ms,
                                    latest_offset=run.latest_offset)
    for index, event in enumerate(run.events):
        outputs.append(machine.handle(event, index))
    return RunOutput(tuple(outputs), machine.view())


handler = run_form.handler("groupspec.conformance.share_partition_json", drive)

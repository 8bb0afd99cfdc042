"""The share_consumer machine in conformance: a client's events in, what each sent and applied
and the final view out. Registered in :mod:`groupspec.machines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance import run_form
from groupspec.conformance.judging import Judge, diff, kept

PROPERTIES = ("one_in_flight",)


def _compare_share_consumer(expected: Any, actual: Any) -> list[str]:
    from groupspec.conformance.share_consumer_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        diff(f"event {k}", w, g, lines)
    diff("view", want.view, got.view, lines)
    return lines


def _violated_share_consumer(doc: Any, output: Any,
                             properties: Sequence[str]) -> dict[str, list[str]]:
    """one_in_flight: after a heartbeat is sent, none but a leave (epoch -1) is sent before an
    answer or a failure. The share consumer sends its leave at once whatever is in flight, and
    the leave the poll timer sends (the one a Tick sends) also forgets what was in flight."""
    from groupspec.conformance.share_consumer_json import run_input_from_json, run_output_from_json
    from groupspec.types.share_consumer import HeartbeatAnswered, HeartbeatFailed, Tick

    run, result = run_input_from_json(doc), run_output_from_json(output)
    found: list[str] = []
    if len(result.outputs) != len(run.events):
        found.append(f"{len(result.outputs)} output(s) for {len(run.events)} event(s)")
    in_flight: int | None = None
    for k, (event, out) in enumerate(zip(run.events, result.outputs, strict=False)):
        if isinstance(event, HeartbeatAnswered | HeartbeatFailed):
            in_flight = None
        if out.sent is None:
            continue
        leave = out.sent.member_epoch == -1
        if in_flight is not None and not leave:
            found.append(f"event {k} sent a heartbeat while the one sent at event {in_flight} "
                         "awaited its answer")
        in_flight = None if leave and isinstance(event, Tick) else k
    return kept(properties, {"one_in_flight": found})


JUDGE = Judge(_compare_share_consumer, _violated_share_consumer, unit="difference(s)")


check_input, check_output = run_form.checks("groupspec.conformance.share_consumer_json")


def drive(target: str, run: Any) -> Any:
    """Feed a share_consumer run to the spec or the implementation (``impl-kafka``: the
    implementation, which follows Kafka's client)."""
    from groupspec.conformance.share_consumer_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_consumer as spec

        state = spec.initial_state(run.config, run.start_ms)
        for event in run.events:
            state, output = spec.step(state, event)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share_consumer import ShareConsumerMembership

    client = ShareConsumerMembership(run.config, now_ms=run.start_ms)
    for event in run.events:
        outputs.append(client.handle(event))
    return RunOutput(tuple(outputs), client.view())


handler = run_form.handler("groupspec.conformance.share_consumer_json", drive)

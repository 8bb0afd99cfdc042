"""The classic_consumer machine in conformance: a client's events in, what it did at each event
and the final view out. Registered in :mod:`groupspec.machines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance import run_form
from groupspec.conformance.judging import Judge, diff, kept

PROPERTIES = ("one_request_in_flight", "heartbeat_in_a_generation")


def _compare(expected: Any, actual: Any) -> list[str]:
    from groupspec.conformance.classic_consumer_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        diff(f"event {k}", w, g, lines)
    diff("view", want.view, got.view, lines)
    return lines


def _violated(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    """one_request_in_flight: after a JoinGroup or SyncGroup goes, no other of them goes until an
    answer arrives, except the JoinGroup an answer itself sends back (Kafka's join loop retries
    at once), a LeaveGroup (unsubscribe leaves whatever is outstanding), and once the request may
    have gone down with the coordinator (a heartbeat answered, or a session or request
    timeout's worth of time passed). Heartbeats are not held back: Kafka's heartbeat thread
    sends on its own timer.
    heartbeat_in_a_generation: a Heartbeat names a generation and a member id (the thread is
    idle until a JoinGroup answer gives them)."""
    from groupspec.conformance.classic_consumer_json import run_input_from_json, run_output_from_json
    from groupspec.types.classic_consumer import (
        HeartbeatAnswered,
        JoinAnswered,
        Poll,
        Sent,
        SyncAnswered,
        Tick,
        Unsubscribe,
    )
    from groupspec.types.classic_group import Heartbeat, JoinGroup, SyncGroup

    run, result = run_input_from_json(doc), run_output_from_json(output)
    found: list[str] = []
    anonymous: list[str] = []
    if len(result.outputs) != len(run.events):
        found.append(f"{len(result.outputs)} output(s) for {len(run.events)} event(s)")
    waiting: int | None = None
    clock = sent_at = 0
    # after this long a request may have gone down with its connection (request timeout) or
    # the coordinator (session timeout), and be sent again without an answer
    lost_after = min(run.config.session_timeout_ms, run.config.request_timeout_ms)
    for k, (event, out) in enumerate(zip(run.events, result.outputs, strict=False)):
        if isinstance(event, Poll | Tick):
            clock = max(clock, event.now_ms)
        answered = isinstance(event, JoinAnswered | SyncAnswered | HeartbeatAnswered | Unsubscribe)
        if answered or clock >= sent_at + lost_after:
            waiting = None
        for o in out:
            if not isinstance(o, Sent):
                continue
            if isinstance(o.request, JoinGroup | SyncGroup):
                if waiting is not None:
                    found.append(f"event {k} sent {type(o.request).__name__} while the request of "
                                 f"event {waiting} awaited its answer")
                waiting, sent_at = k, clock
            elif isinstance(o.request, Heartbeat) and (o.request.generation_id < 0
                                                       or not o.request.member_id):
                anonymous.append(f"event {k} sent a Heartbeat outside a generation")
    return kept(properties, {"one_request_in_flight": found, "heartbeat_in_a_generation": anonymous})


JUDGE = Judge(_compare, _violated, unit="difference(s)")

check_input, check_output = run_form.checks("groupspec.conformance.classic_consumer_json")


def drive(target: str, run: Any) -> Any:
    """Feed a run to the spec or the implementation (``impl-kafka``: the implementation, which
    follows Kafka's client)."""
    from groupspec.conformance.classic_consumer_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import classic_consumer as spec

        state = spec.initial(run.config)
        for event in run.events:
            state, output = spec.step(state, event)
            outputs.append(output)
        return RunOutput(tuple(outputs), state.view())
    from groupspec.impl.classic_consumer import ClassicConsumer

    client = ClassicConsumer(run.config)
    for event in run.events:
        outputs.append(client.handle(event))
    return RunOutput(tuple(outputs), client.view())


handler = run_form.handler("groupspec.conformance.classic_consumer_json", drive)

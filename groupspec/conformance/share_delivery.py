"""The share_delivery machine in conformance: one share consumer's calls and answers in, what
each step returned, sent and called back, and the final view out. Registered in
:mod:`groupspec.machines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groupspec.conformance import run_form
from groupspec.conformance.judging import Judge, diff, kept

PROPERTIES = ("one_in_flight", "session_epoch", "explicit_acknowledgement")


def _compare_share_delivery(expected: Any, actual: Any) -> list[str]:
    from groupspec.conformance.share_delivery_json import run_output_from_json

    want, got = run_output_from_json(expected), run_output_from_json(actual)
    lines: list[str] = []
    if len(want.outputs) != len(got.outputs):
        lines.append(f"outputs: expected {len(want.outputs)} (one per event), got {len(got.outputs)}")
    for k, (w, g) in enumerate(zip(want.outputs, got.outputs, strict=False)):
        diff(f"event {k}", w, g, lines)
    diff("view", want.view, got.view, lines)
    return lines


def _violated_share_delivery(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    """one_in_flight: nothing is sent between a send and its answer or failure.
    session_epoch: a ShareFetch at epoch 0 carries no acknowledgements; a ShareAcknowledge never
    goes at epoch 0, and at -1 exactly when it closes.
    explicit_acknowledgement: in explicit mode a poll that returned records, or sent, found every
    record of the last batch acknowledged (it fails otherwise)."""
    from groupspec.conformance.share_delivery_json import run_input_from_json, run_output_from_json
    from groupspec.types.share_delivery import (
        Acknowledge,
        AcknowledgeAnswered,
        AcknowledgementMode,
        FetchAnswered,
        Poll,
        Request,
        RequestFailed,
        ShareFetchSent,
    )

    run, result = run_input_from_json(doc), run_output_from_json(output)
    found: dict[str, list[str]] = {p: [] for p in PROPERTIES}
    if len(result.outputs) != len(run.events):
        found["one_in_flight"].append(f"{len(result.outputs)} output(s) for {len(run.events)} event(s)")
    waiting: int | None = None
    explicit = run.config.mode is AcknowledgementMode.EXPLICIT
    held: set[tuple[str, int, int]] = set()
    for k, (event, out) in enumerate(zip(run.events, result.outputs, strict=False)):
        if isinstance(event, FetchAnswered | AcknowledgeAnswered | RequestFailed):
            waiting = None
        sent = out.sent
        if sent is not None:
            if waiting is not None:
                found["one_in_flight"].append(f"event {k} sent while the request of event {waiting} "
                                              "awaited its answer")
            waiting = k
            if isinstance(sent, ShareFetchSent):
                if sent.session_epoch < 0 or (sent.session_epoch == 0 and sent.acknowledgements):
                    found["session_epoch"].append(f"event {k}: ShareFetch at epoch {sent.session_epoch}")
            elif sent.session_epoch == 0 or ((sent.session_epoch == -1)
                                             != (sent.request_type is Request.CLOSE)):
                found["session_epoch"].append(f"event {k}: ShareAcknowledge {sent.request_type.name} "
                                              f"at epoch {sent.session_epoch}")
        if not explicit:
            continue
        if isinstance(event, Acknowledge) and out.error is None:
            held.discard((event.topic, event.partition, event.offset))
        if isinstance(event, Poll) and out.error is None and held:
            found["explicit_acknowledgement"].append(
                f"event {k}: a poll passed with {len(held)} record(s) of the last batch unacknowledged")
        if isinstance(event, Poll) and out.records:
            held = {(r.topic, r.partition, r.offset) for r in out.records}
    return kept(properties, found)


JUDGE = Judge(_compare_share_delivery, _violated_share_delivery, unit="difference(s)")


check_input, check_output = run_form.checks("groupspec.conformance.share_delivery_json")


def drive(target: str, run: Any) -> Any:
    """Feed a share_delivery run to the spec or the implementation (``impl-kafka``: the
    implementation, which follows Kafka's client)."""
    from groupspec.conformance.share_delivery_json import RunOutput

    outputs = []
    if target == "spec":
        from groupspec.spec import share_delivery as spec

        state = spec.initial_state(run.config)
        for event in run.events:
            state, output = spec.step(state, event)
            outputs.append(output)
        return RunOutput(tuple(outputs), spec.view(state))
    from groupspec.impl.share_delivery import ShareDeliveryConsumer

    consumer = ShareDeliveryConsumer(run.config)
    for event in run.events:
        outputs.append(consumer.handle(event))
    return RunOutput(tuple(outputs), consumer.view())


handler = run_form.handler("groupspec.conformance.share_delivery_json", drive)

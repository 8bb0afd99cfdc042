"""share_delivery's vectors on kafka-clients 4.2.1's own delivery path (adapters/kafka/,
src/kafka-4.2/java/groupspec/kafka/ShareDeliveryRun.java).

The adapter builds a ShareConsumerImpl through its constructor for tests, over Kafka's own
ShareFetchBuffer, ShareFetchCollector and ShareConsumeRequestManager (with its
ShareSessionHandler); the consumer's ApplicationEventHandler is a mock that hands each event to
Kafka's ApplicationEventProcessor at once, and the adapter is the network thread: after each
event it polls the request manager until it sends or has nothing left to do, and the vector's
answers complete what it sent. The application's calls run on a thread of their own, since
commitSync and close block until the network thread completes them. Two runs:

- flavour ``kafka`` (the target's default; the vectors carry no ``expected_kafka``, so their
  properties): every vector passes;
- flavour ``groupspec``: every vector's exact expectation holds on Kafka's code, outputs and final
  view alike. A vector that starts to differ means Kafka, the adapter or groupspec changed.

The first run differed in 6 vectors: 3 were the adapter's (the record objects the application
acknowledges, each record its own log batch, the network thread's passes between events) and 3
were groupspec's (a failed ShareAcknowledge completes with UNKNOWN_SERVER_ERROR, not
NETWORK_EXCEPTION; docs/divergences.md, share_acknowledge_failure_code). Planted tests below show
a wrong expectation fails on Kafka's code. Last, seeded random runs (the profile's budget) are
answered by the spec and by Kafka and must agree, up to two orders Kafka takes from a HashMap
(docs/divergences.md, share_delivery_orders); they found two more of the adapter's mistakes.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import settings

from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf
from groupspec.conformance.share_delivery import _compare_share_delivery
from groupspec.conformance.share_delivery_json import (
    RunInput,
    RunOutput,
    run_input_to_json,
    run_output_to_json,
)
from groupspec.spec import share_delivery as spec
from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    Acknowledge,
    AcknowledgeAnswered,
    AcknowledgementMode,
    AcknowledgePartition,
    AcknowledgeType,
    AcquiredRecords,
    Assign,
    Close,
    CommitAsync,
    CommitSync,
    DeliveryConfig,
    DeliveryEvent,
    FetchAnswered,
    FetchPartition,
    Partition,
    Poll,
    Request,
    RequestFailed,
)
from tests.kafka import case_name, machine_vectors, needs_java_and_maven, run_on_kafka, unsupported_as_listed

pytestmark = needs_java_and_maven

MACHINE = "share_delivery"

#: Vectors whose exact expectation Kafka 4.2.1's client does not meet: none.
DIFFER: dict[str, str] = {}

#: Vectors Kafka's classes cannot be given: none.
UNSUPPORTED: dict[str, str] = {}


def test_every_vector_passes_on_kafka() -> None:
    vectors, root = machine_vectors(MACHINE)
    assert len(vectors) >= 36
    report = run_on_kafka(vectors, root, "kafka")
    assert [(o.id, o.reason, o.diff) for o in report.outcomes if o.status == "failed"] == []
    unsupported_as_listed(report, UNSUPPORTED)
    assert sum(o.status == "passed" for o in report.outcomes) == len(vectors) - len(UNSUPPORTED)


def test_groupspecs_exact_expectations_hold_on_kafka() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "groupspec")
    unsupported_as_listed(report, UNSUPPORTED)
    failed = {case_name(o.id): o.diff for o in report.outcomes if o.status == "failed"}
    assert {case: diff for case, diff in failed.items() if case not in DIFFER} == {}
    assert set(DIFFER) <= set(failed), f"now passing on Kafka: {sorted(set(DIFFER) - set(failed))}"
    passed = sum(o.status == "passed" for o in report.outcomes)
    assert passed == len(vectors) - len(DIFFER) - len(UNSUPPORTED)


def _planted(tmp_path: Path, case: str, edit: object) -> runner.Report:
    root = vf.default_root()
    where = f"{MACHINE}/run/{case}"
    doc = json.loads((root / where / "vector.json").read_text(encoding="utf-8"))
    assert callable(edit)
    edit(doc)
    planted = tmp_path / "v"
    (planted / where).mkdir(parents=True)
    (planted / where / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    return run_on_kafka([vf.vector_from_json(doc, f"{where}/vector.json")], planted, "groupspec")


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: the piggybacked ACCEPT of implicit_next_poll_accepts_and_piggybacks expected at
    the wrong epoch and with RELEASE, and the view's epoch wrong: each is a difference on Kafka's
    code (flavour groupspec)."""

    def edit(doc: dict[str, object]) -> None:
        expected = doc["expected"]
        assert isinstance(expected, dict)
        sent = expected["outputs"][4]["sent"]
        batch = sent["acknowledgements"][0]["batches"][0]
        assert sent["session_epoch"] == 1 and batch["acknowledge_types"] == [1]
        sent["session_epoch"] = 2
        batch["acknowledge_types"] = [2]
        expected["view"]["session_epoch"] = 5

    report = _planted(tmp_path, "implicit_next_poll_accepts_and_piggybacks", edit)
    assert [o.status for o in report.outcomes] == ["failed"]
    lines = report.outcomes[0].diff
    assert any("event 4.sent" in line for line in lines), lines
    assert any("view.session_epoch: expected 5, got 2" in line for line in lines), lines


def test_the_failure_code_kafka_reports_is_unknown_server_error(tmp_path: Path) -> None:
    """Planted: groupspec's old expectation (a failed ShareAcknowledge completes with
    NETWORK_EXCEPTION) fails on Kafka's code, which says UNKNOWN_SERVER_ERROR
    (docs/divergences.md, share_acknowledge_failure_code)."""

    def edit(doc: dict[str, object]) -> None:
        expected = doc["expected"]
        assert isinstance(expected, dict)
        out = expected["outputs"][5]
        assert out["committed"] == [{"topic": "t", "partition": 0, "error": "UNKNOWN_SERVER_ERROR"}]
        out["committed"][0]["error"] = "NETWORK_EXCEPTION"

    report = _planted(tmp_path, "failed_commit_sync_is_unknown_server_error", edit)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any("expected NETWORK_EXCEPTION, got UNKNOWN_SERVER_ERROR" in line
               for line in report.outcomes[0].diff), report.outcomes[0].diff


# ---------------------------------------------------------------------------------------------
# Random runs: the spec's answer against Kafka's, run for run
# ---------------------------------------------------------------------------------------------

PARTITIONS = (Partition("a", 0), Partition("a", 1), Partition("b", 0))
TYPES = tuple(AcknowledgeType)
FETCH_ERRORS = (Errors.NONE,) * 6 + (Errors.SHARE_SESSION_NOT_FOUND, Errors.INVALID_SHARE_SESSION_EPOCH,
                                     Errors.SHARE_SESSION_LIMIT_REACHED, Errors.UNKNOWN_SERVER_ERROR)
ACK_ERRORS = (Errors.NONE,) * 4 + (Errors.INVALID_RECORD_STATE, Errors.NOT_LEADER_OR_FOLLOWER)
ACKNOWLEDGE_ERRORS = (Errors.NONE,) * 6 + (Errors.INVALID_REQUEST, Errors.GROUP_AUTHORIZATION_FAILED)


def _answer(rng: random.Random, in_flight: Request, next_offset: dict[Partition, int]) -> DeliveryEvent:
    """An answer to what is in flight (a tenth of the time a failure). Partitions go in wire order
    (a ShareFetch answer groups them by topic), and a broker acquires each offset once."""
    if rng.random() < 0.1:
        return RequestFailed()
    chosen = sorted(rng.sample(PARTITIONS, rng.randint(0, len(PARTITIONS))))
    if in_flight is not Request.SHARE_FETCH:
        return AcknowledgeAnswered(rng.choice(ACKNOWLEDGE_ERRORS),
                                   tuple(AcknowledgePartition(p.topic, p.partition, rng.choice(ACK_ERRORS))
                                         for p in chosen))
    parts = []
    for p in chosen:
        acquired = []
        for _ in range(rng.randint(0, 2)):
            first = next_offset[p] + rng.randint(0, 2)
            last = first + rng.choice((0, 1, 2, 9, 11))
            acquired.append(AcquiredRecords(first, last, rng.randint(1, 4)))
            next_offset[p] = last + 1
        parts.append(FetchPartition(p.topic, p.partition, tuple(acquired), rng.choice(ACK_ERRORS)))
    return FetchAnswered(rng.choice(FETCH_ERRORS), tuple(parts))


def _random_run(seed: int, steps: int) -> tuple[RunInput, RunOutput]:
    """A run the spec answers: the application polls, acknowledges what it holds (or a record it
    does not), commits, closes and is reassigned; what is in flight is answered or fails."""
    rng = random.Random(seed)
    config = DeliveryConfig(rng.choice(tuple(AcknowledgementMode)), rng.choice((1, 3, 500)))
    state = spec.initial_state(config)
    next_offset = dict.fromkeys(PARTITIONS, 0)
    events: list[DeliveryEvent] = []
    outputs = []

    def send(event: DeliveryEvent) -> None:
        nonlocal state
        state, out = spec.step(state, event)
        events.append(event)
        outputs.append(out)

    send(Assign(tuple(rng.sample(PARTITIONS, rng.randint(1, len(PARTITIONS))))))
    while len(events) < steps:
        view = spec.view(state)
        k = rng.random()
        if view.in_flight is not None and k < 0.3:
            send(_answer(rng, view.in_flight, next_offset))
        elif k < 0.5:
            send(Poll())
        elif k < 0.7 and view.delivered:
            kind = rng.choice(TYPES)
            for r in view.delivered if rng.random() < 0.6 else (rng.choice(view.delivered),):
                send(Acknowledge(r.topic, r.partition, r.offset, kind))
        elif k < 0.72:
            send(Acknowledge("a", 0, rng.randint(0, 20), rng.choice(TYPES)))
        elif k < 0.8:
            send(CommitSync())
        elif k < 0.88:
            send(CommitAsync())
        elif k < 0.95:
            send(Assign(tuple(rng.sample(PARTITIONS, rng.randint(0, len(PARTITIONS))))))
        elif k < 0.97:
            send(Close())
        else:
            send(Poll())
    return (RunInput(config=config, events=tuple(events)),
            RunOutput(outputs=tuple(outputs), view=spec.view(state)))


def _in_kafkas_orders(doc: dict[str, Any]) -> dict[str, Any]:
    """Two orders Kafka takes from a HashMap keyed by topic ids (groupspec has none), made
    comparable: the callbacks of one step, and a poll's records across partitions (ShareFetch's
    batches; each partition's records keep their order). docs/divergences.md, share_delivery_orders."""
    for out in doc["outputs"]:
        out["callbacks"] = sorted(out["callbacks"], key=lambda c: (c["topic"], c["partition"], c["offsets"]))
        out["records"] = sorted(out["records"], key=lambda r: (r["topic"], r["partition"]))
    return doc


def test_random_runs_agree_with_kafka() -> None:
    """The profile's number of runs (ci 200 of 30 steps, deep 5000 of 100), each answered by the
    spec and by Kafka's client: every output and the final view agree, up to the two HashMap
    orders. The runs reach what the vectors do: records polled, acknowledgements sent on both
    requests, callbacks, commitSync results, closes."""
    steps = settings.default.stateful_step_count
    runs = [_random_run(seed, steps) for seed in range(settings.default.max_examples)]
    target = targets.make_target("kafka", 600.0)
    differ: dict[int, list[str]] = {}
    seen: Counter[str] = Counter()
    try:
        for seed, (run, expected) in enumerate(runs):
            answer = target.call(str(seed), MACHINE, "run", run_input_to_json(run))
            assert answer.output is not None, (seed, answer)
            lines = _compare_share_delivery(_in_kafkas_orders(run_output_to_json(expected)),
                                            _in_kafkas_orders(answer.output))
            if lines:
                differ[seed] = lines[:5]
            for out in expected.outputs:
                seen.update(k for k, v in (("records", out.records), ("callbacks", out.callbacks),
                                           ("committed", out.committed), ("error", out.error)) if v)
                if out.sent is not None:
                    seen[type(out.sent).__name__] += 1
    finally:
        target.close()
    assert differ == {}
    assert all(seen[k] > 0 for k in ("records", "callbacks", "committed", "error", "ShareFetchSent",
                                     "ShareAcknowledgeSent")), seen

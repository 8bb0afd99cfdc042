"""share_consumer's vectors on Kafka 4.2.1's own client classes (adapters/kafka/, ShareConsumerRun.java).

The adapter builds the share consumer's membership as KafkaShareConsumer does, from kafka-clients'
own classes (ShareMembershipManager, ShareHeartbeatRequestManager with its HeartbeatState and a
HeartbeatRequestState without jitter, CoordinatorRequestManager, the poll timer), and runs them
as ConsumerNetworkThread does: woken by the application's calls and by responses, otherwise
asleep until the least of 5 s and the managers' own timeouts. It plays the network: the vector's
answers complete the heartbeats in send order; FindCoordinator is answered at once, or
retry.backoff.ms after the coordinator was lost. Two runs:

- flavour ``kafka`` (the target's default; the vectors carry no ``expected_kafka``, so the
  property ``one_in_flight``): every vector passes but the UNSUPPORTED ones (none);
- flavour ``groupspec``: every vector's exact expectation holds on Kafka's code except the
  DIFFER ones, each with its cause. A listed vector that starts to pass, or a new difference,
  means Kafka, the adapter or groupspec changed: the test says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from groupspec.conformance import vector_format as vf
from tests.kafka import case_name, machine_vectors, needs_java_and_maven, run_on_kafka, unsupported_as_listed

pytestmark = needs_java_and_maven

MACHINE = "share_consumer"

# groupspec follows Kafka 4.2.1's client in what its vectors show (issue 18): a new target is
# reconciled on the network thread right after its answer (ShareMembershipManager#poll calls
# maybeReconcile) and acknowledged at the thread's next wake; a joining member's first target,
# even an empty one, is acknowledged (LocalAssignment.NONE never equals a target); a leave
# carries the subscribed topics when they differ from those last sent (HeartbeatState
# #buildRequestData). The vectors tick at each wake of Kafka's thread, so no Tick holds two
# heartbeats. The cause left, a divergence groupspec keeps:
#
# REJOIN_RACK: HeartbeatState sends RackId only while its sent fields hold none; only an error or
#   the poll timer resets them, so a member that leaves and joins again joins without its rack
#   (docs/divergences.md, share_consumer_rejoin_rack). groupspec sends the rack with every join.
#
#: Vectors whose exact expectation Kafka 4.2.1's client does not meet: the cause, and a line of
#: the difference.
DIFFER = {
    "leave_answered_after_rejoining": ("REJOIN_RACK", "event 6.sent.rack_id: expected 'r1', got None"),
}

#: Vectors Kafka's answer cannot be written for (two heartbeats in one Tick, or an answer to a
#: heartbeat Kafka never sent): none.
UNSUPPORTED: dict[str, str] = {}


def test_every_vector_passes_on_kafka_but_the_unsupported() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "kafka")
    assert [(o.id, o.reason, o.diff) for o in report.outcomes if o.status == "failed"] == []
    unsupported_as_listed(report, UNSUPPORTED)
    assert sum(o.status == "passed" for o in report.outcomes) == len(vectors) - len(UNSUPPORTED)


def test_groupspecs_exact_expectations_hold_on_kafka_but_the_listed() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "groupspec")
    unsupported_as_listed(report, UNSUPPORTED)
    failed = {case_name(o.id): o.diff for o in report.outcomes if o.status == "failed"}
    assert {case: diff for case, diff in failed.items() if case not in DIFFER} == {}
    assert set(DIFFER) <= set(failed), f"now passing on Kafka: {sorted(set(DIFFER) - set(failed))}"
    for case, (_, line) in DIFFER.items():
        assert any(line in d for d in failed[case]), (case, failed[case])
    passed = sum(o.status == "passed" for o in report.outcomes)
    assert passed == len(vectors) - len(DIFFER) - len(UNSUPPORTED)


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: the periodic heartbeat of join_and_heartbeat expected with the wrong epoch fails on
    Kafka's code (flavour groupspec), and so does the view's wrong interval."""
    root = vf.default_root()
    case = f"{MACHINE}/run/join_and_heartbeat"
    doc = json.loads((root / case / "vector.json").read_text(encoding="utf-8"))
    sent = doc["expected"]["outputs"][5]["sent"]
    assert sent["member_epoch"] == 1
    sent["member_epoch"] = 2
    doc["expected"]["view"]["heartbeat_interval_ms"] = 4000
    planted = tmp_path / "v"
    (planted / case).mkdir(parents=True)
    (planted / case / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    report = run_on_kafka([vf.vector_from_json(doc, f"{case}/vector.json")], planted, "groupspec")
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any("member_epoch: expected 2, got 1" in line for line in report.outcomes[0].diff)
    assert any("heartbeat_interval_ms: expected 4000, got 5000" in line for line in report.outcomes[0].diff)

"""classic_consumer's vectors on Kafka 4.2.1's own client classes (adapters/kafka/, ClassicConsumerRun.java).

The adapter builds the consumer's membership as ClassicKafkaConsumer does, from kafka-clients'
own classes (ConsumerCoordinator with AbstractCoordinator's join loop and Heartbeat timers,
SubscriptionState, ConsumerMetadata, ConsumerNetworkClient) over kafka-clients' test MockClient
and MockTime. The heartbeat thread runs in passes after each event at the event's time; JoinGroup
and SyncGroup answers arrive while the application's poll is blocked in the join loop; an
OffsetFetchAnswered is a poll whose committed-offset fetch gets that answer; commit answers,
commitAsync, positions, metadata refreshes, patterns and close() are Kafka's calls too. Every
vector is driven. Two runs:

- flavour ``kafka`` (the target's default; the vectors carry no ``expected_kafka``, so the
  properties ``one_request_in_flight`` and ``heartbeat_in_a_generation``): every vector passes
  (the heartbeat divergence, classic_heartbeat_in_flight, is resolved: groupspec's heartbeat
  thread is Kafka's, a Tick moving the clock for it alone);
- flavour ``groupspec``: every difference between a vector's exact expectation and Kafka's answer
  is one of CAUSES, and each cause still shows. A difference of no listed cause, a cause that no
  longer shows, or a vector that starts or stops passing means Kafka, the adapter or groupspec
  changed: the test says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from groupspec.conformance import targets
from groupspec.conformance import vector_format as vf
from groupspec.conformance.classic_consumer import JUDGE
from tests.kafka import machine_vectors, needs_java_and_maven, run_on_kafka

pytestmark = needs_java_and_maven

MACHINE = "classic_consumer"

#: Why Kafka 4.2.1's client answers otherwise than a vector's exact expectation: per cause, the
#: vectors it may show in (None: any) and the form of its difference lines: a divergence
#: groupspec keeps (docs/divergences.md). The
#: causes groupspec followed (docs/divergences.md, "Classic consumer: Kafka's client against
#: groupspec's vectors", and the rules fixed once the adapter drove commits, positions and
#: metadata) no longer show.
CAUSES: dict[str, tuple[frozenset[str] | None, str]] = {
    # A commit lists each topic's partitions in HashMap order (t-1 before t-0), and names the
    # first bad offset in that order (docs/divergences.md, classic_commit_partition_order).
    "COMMIT_PARTITION_ORDER": (frozenset({"a_commit_groups_its_offsets_by_topic",
                                          "auto_commit_commits_positions_on_the_interval",
                                          "commit_errors_raised_as_they_are",
                                          "commit_topic_authorization_waits_for_every_partition",
                                          "commit_of_a_negative_offset_is_refused"}),
                               r"event \d+\[0\]\.request\.topics\[0\]\.partitions\[[01]\]\."
                               r"(partition|committed_offset): expected \d+, got \d+"
                               r"|event 3\[0\]\.detail: expected 'Invalid offset: -1', "
                               r"got 'Invalid offset: -3'"),
}
#: The vectors Kafka's answer meets exactly.
PASS_EXACTLY = 193
#: The event types of the vocabulary ClassicConsumerRun.java realised last (issue 21), each with
#: a vector Kafka's answer meets exactly and whose answer changes when those events are left out.
NEWER_EVENTS = {
    "Metadata": "leader_watches_the_other_members_topics",
    "OffsetCommitAnswered": "commit_sync_retries_a_retriable_error",
    "CommitAsync": "commit_async_calls_back_at_the_next_poll",
    "Consumed": "auto_commit_backs_off_after_a_retriable_failure",
    "SubscribePattern": "pattern_subscribes_to_the_matching_topics",
    "Close": "close_commits_then_revokes_and_leaves",
}


def _explained(case: str, line: str) -> str | None:
    for cause, (cases, form) in CAUSES.items():
        if (cases is None or case in cases) and re.fullmatch(form, line):
            return cause
    return None


def test_every_vector_passes_on_kafka_but_the_divergence() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "kafka")
    assert [(o.id, o.reason, o.diff) for o in report.outcomes if o.status == "failed"] == []
    assert [(o.id, o.reason) for o in report.outcomes if o.status == "unsupported"] == []
    assert [o.case for o in report.outcomes if o.status == "diverged"] == []
    assert sum(o.status == "passed" for o in report.outcomes) == len(vectors)


@pytest.mark.parametrize("kind", sorted(NEWER_EVENTS))
def test_the_newer_events_reach_kafkas_classes(kind: str) -> None:
    """The vector meets its exact expectation on Kafka; without its ``kind`` events (and their
    expected outputs) Kafka's answer no longer does: the driver does not pass them by."""
    root = vf.default_root()
    v = next(v for v in vf.load(root) if v.machine == MACHINE and v.case == NEWER_EVENTS[kind])
    events = v.input["events"]
    keep = [k for k, e in enumerate(events) if e["type"] != kind]
    assert len(keep) < len(events)
    cut_input = {**v.input, "events": [events[k] for k in keep]}
    cut_expected = {**v.expected, "outputs": [v.expected["outputs"][k] for k in keep]}
    target = targets.make_target("kafka", 60.0)
    try:
        whole = target.call(v.case, MACHINE, v.handler, v.input)
        cut = target.call(v.case + "-cut", MACHINE, v.handler, cut_input)
    finally:
        target.close()
    assert whole.unsupported is None and cut.unsupported is None, (whole.unsupported, cut.unsupported)
    assert JUDGE.compare(v.expected, whole.output) == []
    assert JUDGE.compare(cut_expected, cut.output) != []


def test_every_difference_from_groupspecs_expectations_has_a_listed_cause() -> None:
    """Each vector's whole difference (the judge's lines, unclipped) on Kafka's answer."""
    vectors, _ = machine_vectors(MACHINE)
    target = targets.make_target("kafka", 60.0)
    unexplained: list[tuple[str, str]] = []
    seen: set[str] = set()
    passed = 0
    try:
        for v in vectors:
            answer = target.call(v.case, v.machine, v.handler, v.input)
            assert answer.unsupported is None and answer.output is not None, (v.case, answer)
            lines = JUDGE.compare(v.expected, answer.output)
            passed += not lines
            for line in lines:
                cause = _explained(v.case, line)
                if cause is None:
                    unexplained.append((v.case, line))
                else:
                    seen.add(cause)
    finally:
        target.close()
    assert unexplained == []
    assert seen == set(CAUSES), f"no longer shown: {sorted(set(CAUSES) - seen)}"
    assert passed == PASS_EXACTLY


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: leader_joins_and_gets_its_assignment expected with the SyncGroup of another
    generation and one partition fewer fails on Kafka's code, on both lines."""
    root = vf.default_root()
    case = f"{MACHINE}/run/leader_joins_and_gets_its_assignment"
    doc = json.loads((root / case / "vector.json").read_text(encoding="utf-8"))
    sync = doc["expected"]["outputs"][2][0]["request"]
    assert sync["generation_id"] == 1
    sync["generation_id"] = 2
    doc["expected"]["view"]["owned"] = [["t", 0]]
    target = targets.make_target("kafka", 60.0)
    try:
        answer = target.call("planted", MACHINE, "run", doc["input"])
    finally:
        target.close()
    lines = JUDGE.compare(doc["expected"], answer.output)
    assert any("request.generation_id: expected 2, got 1" in line for line in lines), lines
    assert any(line.startswith("view.owned: expected 1 item(s), got 2") for line in lines), lines

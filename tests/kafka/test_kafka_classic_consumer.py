"""classic_consumer's vectors on Kafka 4.2.1's own client classes (adapters/kafka/, ClassicConsumerRun.java).

The adapter builds the consumer's membership as ClassicKafkaConsumer does, from kafka-clients'
own classes (ConsumerCoordinator with AbstractCoordinator's join loop and Heartbeat timers,
SubscriptionState, ConsumerMetadata, ConsumerNetworkClient) over kafka-clients' test MockClient
and MockTime. The heartbeat thread runs in passes after each event at the event's time; JoinGroup
and SyncGroup answers arrive while the application's poll is blocked in the join loop; an
OffsetFetchAnswered is a poll whose committed-offset fetch gets that answer. Two runs:

- flavour ``kafka`` (the target's default; the vectors carry no ``expected_kafka``, so the
  properties ``one_request_in_flight`` and ``heartbeat_in_a_generation``): every vector passes
  (the heartbeat divergence, classic_heartbeat_in_flight, is resolved: groupspec's heartbeat
  thread is Kafka's);
- flavour ``groupspec``: every difference between a vector's exact expectation and Kafka's answer
  is one of CAUSES, and each cause still shows. A difference of no listed cause, a cause that no
  longer shows, or a vector that starts or stops passing means Kafka, the adapter or groupspec
  changed: the test says so.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from groupspec.conformance import targets
from groupspec.conformance import vector_format as vf
from groupspec.conformance.classic_consumer import JUDGE
from tests.kafka import run_on_kafka

pytestmark = pytest.mark.skipif(shutil.which("java") is None or shutil.which("mvn") is None,
                                reason="needs Java 17 and Maven (the README's set-up has both)")

MACHINE = "classic_consumer"

#: Why Kafka 4.2.1's client answers otherwise than a vector's exact expectation: per cause, the
#: vectors it may show in (None: any) and the form of its difference lines. METADATA_ON_SUBSCRIBE is
#: the adapter's metadata, not Kafka's rule.
#: The causes groupspec followed (docs/divergences.md, "Classic consumer: Kafka's client against
#: groupspec's vectors") no longer show.
CAUSES: dict[str, tuple[frozenset[str] | None, str]] = {
    # The adapter answers the metadata fetch a subscription change asks for with every topic of
    # the run, so a leader that subscribes to one more topic sees its watched metadata change
    # before the next poll; groupspec's metadata moves only with a Metadata event, so the
    # subscription's change names the rejoin.
    "METADATA_ON_SUBSCRIBE": (frozenset({"rejoin_with_nothing_consumed_joins_at_once",
                                         "a_new_subscription_rejoins_at_the_next_poll"}),
                              r"event 5\[1\]\.request\.reason: expected 'subscription has changed', "
                              r"got 'cached metadata has changed'"),
}
#: The vectors Kafka's answer meets exactly.
PASS_EXACTLY = 64

#: The events ClassicConsumerRun.java drives. Vectors with others (commit answers, commitAsync,
#: positions, metadata refreshes, patterns, close()) wait for the adapter to drive them, and so do
#: those whose final view has commits or heartbeats in flight (the adapter does not report those
#: counts yet) and
#: a cooperative protocol Kafka would not derive from the assignors, and assignors of the
#: application's own (the adapter builds Kafka's only).
DRIVEN = frozenset({"Subscribe", "Assign", "Unsubscribe", "Poll", "CommitSync", "JoinAnswered",
                    "SyncAnswered", "HeartbeatAnswered", "OffsetFetchAnswered", "Tick"})


def _driven(v: vf.Vector) -> bool:
    events = v.input["events"]
    config = v.input["config"]
    cooperative_range = (config["protocol"] == "COOPERATIVE"
                         and "cooperative-sticky" not in config["assignors"])
    kafkas = {"range", "roundrobin", "sticky", "cooperative-sticky"}  # an application's own: not built
    return (all(e["type"] in DRIVEN for e in events) and not cooperative_range
            and set(config["assignors"]) <= kafkas
            and not v.expected["view"].get("commits_in_flight")
            and not v.expected["view"].get("heartbeats_in_flight"))


def _vectors() -> tuple[list[vf.Vector], Path]:
    root = vf.default_root()
    return [v for v in vf.load(root) if v.machine == MACHINE and _driven(v)], root


def _explained(case: str, line: str) -> str | None:
    for cause, (cases, form) in CAUSES.items():
        if (cases is None or case in cases) and re.fullmatch(form, line):
            return cause
    return None


def test_every_vector_passes_on_kafka() -> None:
    vectors, root = _vectors()
    report = run_on_kafka(vectors, root, "kafka")
    assert [(o.id, o.reason, o.diff) for o in report.outcomes if o.status == "failed"] == []
    assert [o.status for o in report.outcomes if o.status == "unsupported"] == []
    assert [o.case for o in report.outcomes if o.status == "diverged"] == []
    assert sum(o.status == "passed" for o in report.outcomes) == len(vectors)


def test_events_the_driver_does_not_realise_are_unsupported_not_failed() -> None:
    root = vf.default_root()
    waiting = [v for v in vf.load(root) if v.machine == MACHINE
               and any(e["type"] not in DRIVEN for e in v.input["events"])]
    kinds = {e["type"] for v in waiting for e in v.input["events"]} - DRIVEN
    chosen = [next(v for v in waiting if any(e["type"] == k for e in v.input["events"]))
              for k in sorted(kinds)]
    report = run_on_kafka(chosen, root, "kafka")
    assert [o.status for o in report.outcomes] == ["unsupported"] * len(chosen)
    assert all("does not realise" in o.reason for o in report.outcomes), [o.reason for o in report.outcomes]


def test_every_difference_from_groupspecs_expectations_has_a_listed_cause() -> None:
    """Each vector's whole difference (the judge's lines, unclipped) on Kafka's answer."""
    vectors, _ = _vectors()
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

"""classic_group's vectors on Kafka 4.2.1's own GroupCoordinatorShard (adapters/kafka/, ClassicRun.java).

The adapter plays the runtime around the shard: a clock moved only by AdvanceClock, due timers
run in (deadline, scheduling) order, every written record replayed, snapshots at the last written
offset, a partition left loading refusing every operation as CoordinatorRuntime does,
GroupCoordinatorService's and KafkaApis' checks before the shard. Two runs:

- flavour ``kafka`` (the target's default; the vectors carry no ``expected_kafka``, so the two
  properties): every vector passes or is unsupported for a listed reason;
- flavour ``groupspec``: every vector's exact expectation (answers, records, view) holds on
  Kafka's code except the listed ones, each with why. A listed vector that starts to pass means
  the list (or groupspec) changed: the test says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groupspec.conformance import vector_format as vf
from tests.kafka import case_name, machine_vectors, needs_java_and_maven, run_on_kafka

pytestmark = needs_java_and_maven

MACHINE = "classic_group"

#: Vectors Kafka's classes cannot be given, with a phrase of the adapter's reason.
UNSUPPORTED = {
    # GroupCoordinatorConfig has only offsets.retention.minutes.
    "expiration_counts_from_each_commit_where_it_applies": "not whole minutes",
    "expiration_deletes_empty_group": "not whole minutes",
    "expiration_explicit_timestamp_and_empty_since": "not whole minutes",
}

#: Vectors whose exact expectation Kafka 4.2.1's code does not meet, and why.
DIFFER = {
    # DeleteGroups' offset tombstones: committed ones in Kafka's TimelineHashMap order, then
    # pending-only ones (OffsetMetadataManager#deleteAllOffsets); groupspec sorts them
    # (docs/divergences.md, classic_tombstone_order).
    "delete_groups": "classic_tombstone_order",
}

#: Vectors whose outcome follows Kafka's HashMap order of random member ids: pass or fail by run.
MAY_DIFFER = {
    # ClassicGroup#remove makes the first remaining member of the HashMap the new leader
    # (docs/divergences.md, classic_member_order); groupspec, the first added.
    "leave_group_batch_new_leader": "classic_member_order",
}


def test_every_vector_passes_on_kafka_or_is_unsupported_with_its_reason() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "kafka")
    failed = [(o.id, o.reason, o.diff) for o in report.outcomes if o.status == "failed"]
    assert failed == []
    unsupported = {case_name(o.id): o.reason for o in report.outcomes if o.status == "unsupported"}
    assert set(unsupported) == set(UNSUPPORTED)
    for case, phrase in UNSUPPORTED.items():
        assert phrase in unsupported[case], (case, unsupported[case])


def test_groupspecs_exact_expectations_hold_on_kafka_but_the_listed() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "groupspec")
    failed = {case_name(o.id): o.diff for o in report.outcomes if o.status == "failed"}
    listed = set(DIFFER) | set(MAY_DIFFER)
    unexpected = {case: diff for case, diff in failed.items() if case not in listed}
    assert unexpected == {}
    assert set(DIFFER) <= set(failed), f"now passing on Kafka: {sorted(set(DIFFER) - set(failed))}"
    passed = sum(o.status == "passed" for o in report.outcomes)
    assert passed == len(vectors) - len(UNSUPPORTED) - len(failed)


def test_members_back_from_a_reload_are_listed_in_the_records_order_on_every_run() -> None:
    """Kafka's shard yields members in hash order of the random ids it drew; the adapter lists
    them in groupspec's order. Members that left after the last GroupMetadata record and come
    back with a reload were once listed in hash order, so this vector passed or failed by run
    (about half the runs): eight runs in a row must all pass."""
    vectors, root = machine_vectors(MACHINE)
    vector = [v for v in vectors if v.case == "restart_brings_back_expired_members"]
    assert len(vector) == 1
    report = run_on_kafka(vector * 8, root, "groupspec")
    assert [o.status for o in report.outcomes] == ["passed"] * 8


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: a heartbeat answer off by its error fails on Kafka's code (flavour groupspec)."""
    root = vf.default_root()
    case = f"{MACHINE}/run/single_member_join_sync_heartbeat"
    doc = json.loads((root / case / "vector.json").read_text(encoding="utf-8"))
    heartbeat = doc["expected"]["outputs"][4]["answers"][0]["response"]
    assert heartbeat == {"type": "HeartbeatResponse", "error": "NONE"}
    heartbeat["error"] = "REBALANCE_IN_PROGRESS"
    planted = tmp_path / "v"
    (planted / case).mkdir(parents=True)
    (planted / case / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    report = run_on_kafka([vf.vector_from_json(doc, f"{case}/vector.json")], planted, "groupspec")
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any("REBALANCE_IN_PROGRESS" in line for line in report.outcomes[0].diff)


def _expectation_of_the_impl(case: str, tmp_path: Path) -> tuple[list[vf.Vector], Path]:
    """The vector ``case`` with its expectation rewritten to what groupspec's impl answers now."""
    from groupspec.conformance.targets import dispatch

    root = vf.default_root()
    path = f"{MACHINE}/run/{case}"
    doc = json.loads((root / path / "vector.json").read_text(encoding="utf-8"))
    doc["expected"] = dispatch("impl", MACHINE, "run", doc["input"])
    where = tmp_path / "v"
    (where / path).mkdir(parents=True)
    (where / path / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    return [vf.vector_from_json(doc, f"{path}/vector.json")], where


def test_a_wrong_rule_in_the_impl_is_caught_by_kafkas_code(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the impl answers a Heartbeat to a loading coordinator COORDINATOR_LOAD_IN_PROGRESS
    (Kafka's service answers NONE, so the member carries on). Were spec and impl both wrong the
    same way, their agreement would hold and the vectors generated from them would state the
    wrong rule; Kafka's code is the check that is independent of both."""
    from groupspec.impl.classic_group import coordinator
    from groupspec.types.classic_group import Errors, Heartbeat, HeartbeatResponse

    case = "heartbeat_while_loading_is_answered_none"
    honest = run_on_kafka(*_expectation_of_the_impl(case, tmp_path / "honest"), "groupspec")
    assert [o.status for o in honest.outcomes] == ["passed"], honest.outcomes

    refusal = coordinator._refusal

    def wrong(event: object, error: Errors) -> object:
        if isinstance(event, Heartbeat) and error is Errors.COORDINATOR_LOAD_IN_PROGRESS:
            return HeartbeatResponse(error)
        return refusal(event, error)  # type: ignore[arg-type]

    monkeypatch.setattr(coordinator, "_refusal", wrong)
    planted = run_on_kafka(*_expectation_of_the_impl(case, tmp_path / "planted"), "groupspec")
    assert [o.status for o in planted.outcomes] == ["failed"]
    assert any("COORDINATOR_LOAD_IN_PROGRESS" in line for line in planted.outcomes[0].diff), planted.outcomes

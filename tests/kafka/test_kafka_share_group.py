"""share_group's vectors on Kafka 4.2.1's own GroupCoordinatorShard (adapters/kafka/, ShareGroupRun.java).

The adapter plays the runtime and the share part of GroupCoordinatorService around one shard per
``__consumer_offsets`` partition: a clock moved only by AdvanceClock, due timers run in (deadline,
arming) order, every written record replayed, the vector's topics as the coordinator's metadata
image, the service's own request check before ``shareGroupHeartbeat``, the persister's answers
written back with ``initializeShareGroupState`` / ``uninitializeShareGroupState``, DeleteGroups
through ``sharePartitionDeleteRequests`` then ``deleteGroups``. Two runs:

- flavour ``kafka`` (the target's default; the vectors carry no ``expected_kafka``, so the two
  properties): every vector passes;
- flavour ``groupspec``: every vector's exact expectation (answers, records, initialize requests,
  view) holds on Kafka's code except the listed ones, each with why. A listed vector that starts
  to pass means the list (or groupspec) changed: the test says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from groupspec.conformance import vector_format as vf
from tests.kafka import case_name, machine_vectors, needs_java_and_maven, run_on_kafka

pytestmark = needs_java_and_maven

MACHINE = "share_group"

#: Vectors whose exact expectation Kafka 4.2.1's code does not meet: why, and a line of the difference.
DIFFER = {
    # The SimpleAssignor gets its members from TargetAssignmentBuilder's HashMap and walks the
    # partitions in SimpleHomogeneousAssignmentBuilder's HashMap: a, b, c get 2, 1, 0 where
    # groupspec's join order (b, a, c) and ascending partitions give b 0, a 1, c 2
    # (docs/divergences.md, share_group_orders). Member ids are the client's: the same every run.
    "the_heartbeating_member_takes_its_own_target":
        "event 4: records of group 'g'[1].key.member_id: expected 'b', got 'a'",
    # GroupMetadataManager#onLoaded re-arms a loaded share group's sessions while iterating its
    # members' TimelineHashMap, where m2 comes before m1; groupspec re-arms in join order (m1, m2),
    # so the two sessions, due together, expire in the other order (share_group_orders). Found by
    # tests/kafka/test_kafka_share_group_threeway.py.
    "sessions_a_failover_rearms_expire_in_join_order":
        "event 3: records of group 'g'[0].key.member_id: expected 'm1', got 'm2'",
    # The SimpleAssignor's heterogeneous builder starts each member's new target from a copy of
    # its previous one, deleted topics included, so after t2 is re-created the new targets equal
    # the old ones and Kafka writes no target record (deleted_topic_copied_through). Found by
    # tests/kafka/test_kafka_share_group_threeway.py.
    "a_deleted_topic_leaves_the_target":
        "event 6: records of group 'g': expected 7 item(s), got 5",
    # The builders keep a topic whose partitions all moved away in the member's target, and
    # TargetAssignmentBuilder#build writes a record when that empty topic goes: a record that
    # changes nothing (empty_topic_kept_in_target). Found by the three-way test's deep run.
    "a_target_emptied_of_a_topic_is_rewritten_when_the_topic_goes":
        "event 4: records of group 'g': expected 5 item(s), got 6",
    # The same, beside a topic that keeps its partition: m1's target is t1-0 before and after
    # its emptied t2 key goes, and Kafka writes it again (empty_topic_kept_in_target).
    "a_target_keeping_partitions_is_rewritten_when_an_empty_topic_goes":
        "event 5: records of group 'g': expected 5 item(s), got 6",
}


def test_every_vector_passes_on_kafka() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "kafka")
    assert [(o.id, o.status, o.reason) for o in report.outcomes if o.status != "passed"] == []
    assert len(report.outcomes) == len(vectors)


def test_groupspecs_exact_expectations_hold_on_kafka_but_the_listed() -> None:
    vectors, root = machine_vectors(MACHINE)
    report = run_on_kafka(vectors, root, "groupspec")
    assert [o.id for o in report.outcomes if o.status == "unsupported"] == []
    failed = {case_name(o.id): o.diff for o in report.outcomes if o.status == "failed"}
    unexpected = {case: diff for case, diff in failed.items() if case not in DIFFER}
    assert unexpected == {}
    assert set(DIFFER) <= set(failed), f"now passing on Kafka: {sorted(set(DIFFER) - set(failed))}"
    for case, line in DIFFER.items():
        assert any(line in d for d in failed[case]), (case, failed[case])
    passed = sum(o.status == "passed" for o in report.outcomes)
    assert passed == len(vectors) - len(DIFFER)


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: a first heartbeat's answer off by its epoch fails on Kafka's code (flavour groupspec)."""
    root = vf.default_root()
    case = f"{MACHINE}/run/first_heartbeat_gets_an_empty_assignment"
    doc = json.loads((root / case / "vector.json").read_text(encoding="utf-8"))
    response = doc["expected"]["outputs"][0]["answers"][0]["response"]
    assert response["member_epoch"] == 1
    response["member_epoch"] = 2
    planted = tmp_path / "v"
    (planted / case).mkdir(parents=True)
    (planted / case / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    report = run_on_kafka([vf.vector_from_json(doc, f"{case}/vector.json")], planted, "groupspec")
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any("member_epoch: expected 2, got 1" in line for line in report.outcomes[0].diff)

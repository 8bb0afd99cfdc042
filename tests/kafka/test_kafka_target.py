"""``--target kafka``: the vectors answered by Kafka 4.2.1's own classes (adapters/kafka/).

The first use builds the adapter with Maven (offline when the jars are in the local repository,
else from Maven Central) into a cache outside the checkout; these tests share that build. They
are the project's check against code it did not write: every vector a machine of the adapter
implements must pass on Kafka's code, or say in the vector why it cannot.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from groupspec.conformance import kafka_target, targets
from groupspec.conformance import vector_format as vf
from groupspec.types import InputError
from tests.kafka import run_on_kafka

pytestmark = pytest.mark.skipif(shutil.which("java") is None or shutil.which("mvn") is None,
                                reason="needs Java 17 and Maven (the README's set-up has both)")


#: Per machine of the adapter, what each handler's vectors come to on Kafka's code: every vector
#: of a handler the adapter implements passes; a handler it leaves out is unsupported.
ON_KAFKA = {
    # decode_record and encode_record run on Kafka's serdes; decode_log is groupspec decode's view.
    "records": {"decode_record": {"passed"}, "encode_record": {"passed"}, "decode_log": {"unsupported"},
                "decode_partition": {"unsupported"},
                # Kafka's batch writer and log classes are not driven yet.
                "encode_batch": {"unsupported"}, "write_log": {"unsupported"}, "read_log": {"unsupported"},
                # The classic consumer protocol runs on the client's ConsumerProtocol.
                "decode_consumer_protocol": {"passed"}, "encode_consumer_protocol": {"passed"}},
    "simple_assignor": {"assign": {"passed"}},
    # The share consumer's delivery path is not yet driven through kafka-clients' classes.
    "share_delivery": {"run": {"unsupported"}},
}
#: Machines of the adapter with a test of their own: classic_group (test_kafka_classic_group.py),
#: share_partition (test_kafka_share_partition.py), share_group (test_kafka_share_group.py),
#: share_consumer (test_kafka_share_consumer.py), share_state (test_kafka_share_state.py).
ELSEWHERE = {"classic_group", "share_partition", "share_group", "share_consumer", "share_state"}


@pytest.mark.parametrize("machine", sorted(ON_KAFKA))
def test_the_vectors_pass_on_kafkas_own_code(machine: str) -> None:
    root = vf.default_root()
    vectors = [v for v in vf.load(root) if v.machine == machine]
    report = run_on_kafka(vectors, root)
    failed = [(o.id, o.reason, o.diff) for o in report.outcomes if o.status == "failed"]
    assert failed == []
    by_handler: dict[str, set[str]] = {}
    for o in report.outcomes:
        by_handler.setdefault(o.handler, set()).add(o.status)
    assert by_handler == ON_KAFKA[machine]


def test_every_machine_of_groupspec_is_driven_through_kafkas_classes() -> None:
    """Each machine is driven through Kafka's classes, with its check here or in a test of its own;
    the machine that came last (share_state) answers a run on Kafka's ShareCoordinatorShard rather
    than "unsupported"."""
    vectors = vf.load(vf.default_root())
    machines = {v.machine for v in vectors}
    assert machines <= set(ON_KAFKA) | ELSEWHERE
    topic = "00000000-0000-4000-8000-00000000000a"
    run = {"topics": [{"topic_id": topic, "partitions": 1}],
           "events": [{"type": "InitializeShareGroupState", "group_id": "g", "topic_id": topic,
                       "partition": 0, "state_epoch": 3, "start_offset": 7},
                      {"type": "ReadShareGroupStateSummary", "group_id": "g", "topic_id": topic,
                       "partition": 0}]}
    target = targets.make_target("kafka", 60.0)
    try:
        answer = target.call("s", "share_state", "run", run)
    finally:
        target.close()
    assert answer.unsupported is None and answer.output is not None, answer
    summary = answer.output["outputs"][1]["answers"][0]["response"]
    assert (summary["error"], summary["state_epoch"], summary["start_offset"]) == ("NONE", 3, 7)
    [key] = answer.output["view"]["share_partitions"]
    assert (key["state_epoch"], key["start_offset"], key["snapshot_epoch"]) == (3, 7, 0)


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: one vector whose Kafka expectation is off by one field fails on Kafka's code."""
    root = vf.default_root()
    case = "records/decode_record/consumer_group_metadata_negative_hash"
    source = root / case / "vector.json"
    doc = json.loads(source.read_text(encoding="utf-8"))
    doc["expected_kafka"]["value"]["epoch"] += 1
    doc["expected"] = doc["expected_kafka"]
    planted = tmp_path / "v"
    (planted / case).mkdir(parents=True)
    (planted / case / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    vector = vf.vector_from_json(doc, f"{case}/vector.json")
    report = run_on_kafka([vector], planted)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any("epoch" in line for line in report.outcomes[0].diff)


def test_the_build_is_reused_while_the_sources_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    first = kafka_target.build()
    # A second build finds the cache: it never looks for Maven.
    monkeypatch.setattr(shutil, "which", lambda tool: None if tool == "mvn" else "/usr/bin/" + tool)
    assert kafka_target.build() == first
    assert (first / kafka_target.JAR).is_file()


def test_a_changed_source_is_a_new_build(tmp_path: Path) -> None:
    copy = tmp_path / "kafka"
    shutil.copytree(kafka_target.SOURCES, copy, ignore=shutil.ignore_patterns("target"))
    before = kafka_target.sources_digest(copy)
    main = copy / "src" / "main" / "java" / "groupspec" / "kafka" / "Adapter.java"
    main.write_text(main.read_text(encoding="utf-8") + "\n// edited\n", encoding="utf-8")
    assert kafka_target.sources_digest(copy) != before


def test_without_maven_the_error_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    with pytest.raises(InputError, match="needs 'mvn' on PATH"):
        kafka_target.build(cache=tmp_path)


def test_sources_missing_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="adapter's sources are not at"):
        kafka_target.build(sources=tmp_path, cache=tmp_path)


@pytest.mark.parametrize("type_id,name", [(17, "StreamsGroupMetadata"), (19, "StreamsGroupMemberMetadata"),
                                          (23, "StreamsGroupTopology")])
def test_streams_record_types_are_kafkas_not_groupspecs(type_id: int, name: str) -> None:
    """docs/divergences.md, records_streams_types: Kafka 4.2.1 decodes the streams groups' record
    types; groupspec has no streams groups and reads them as unknown (skipped by its readers)."""
    key = type_id.to_bytes(2, "big") + bytes.fromhex("000167")  # the group id "g" (and member "m")
    if type_id == 19:
        key += bytes.fromhex("00016d")
    doc = {"topic": "__consumer_offsets", "key": key.hex(), "value": None}
    kafka = targets.make_target("kafka", 60.0)
    try:
        theirs = kafka.call("s", "records", "decode_record", doc)
    finally:
        kafka.close()
    ours = targets.InProcessTarget("impl-kafka").call("s", "records", "decode_record", doc)
    assert theirs.output is not None and theirs.output["type"] == name
    assert ours.error is not None and ours.error[0] == "UnknownRecordType"


@pytest.mark.parametrize("state,byte", [(127, "7f"), (128, "00"), (200, "48"), (256, "80")])
def test_kafkas_json_reader_folds_int8_values_up_to_256(state: int, byte: str) -> None:
    """docs/divergences.md, records_int8_json: Kafka's JSON reader takes an int8 field's value
    up to 256 and subtracts 128 from one above 127 (MessageUtil.jsonNodeToByte); groupspec
    refuses anything outside -128..127 as invalid input, as the wire type says."""
    doc = {"topic": "__consumer_offsets", "type": "ShareGroupCurrentMemberAssignment", "typeId": 14,
           "key": {"groupId": "g", "memberId": "m"}, "valueVersion": 0,
           "value": {"memberEpoch": 1, "previousMemberEpoch": 1, "state": state, "assignedPartitions": []}}
    kafka = targets.make_target("kafka", 60.0)
    try:
        theirs = kafka.call("s", "records", "encode_record", doc)
    finally:
        kafka.close()
    ours = targets.InProcessTarget("impl-kafka").call("s", "records", "encode_record", doc)
    assert theirs.output is not None, theirs
    assert theirs.output["value"][-6:-4] == byte  # the state byte, then the empty array (01), no tags (00)
    if state > 127:
        assert ours.error is not None and ours.error[0] == "invalid_input", ours
    else:
        assert ours.output == theirs.output

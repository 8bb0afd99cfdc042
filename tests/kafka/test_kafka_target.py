"""``--target kafka``: the vectors answered by Kafka 4.2.1's own classes (adapters/kafka/).

The first use builds the adapter with Maven (offline when the jars are in the local repository,
else from Maven Central) into a cache outside the checkout; these tests share that build. They
are the project's check against code it did not write: every vector a machine of the adapter
implements must pass on Kafka's code, or say in the vector why it cannot.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from groupspec.conformance import kafka_target, runner, targets
from groupspec.conformance import vector_format as vf
from groupspec.conformance.records_batch import compare_batch
from groupspec.types import InputError
from tests.kafka import needs_java_and_maven, run_on_kafka

pytestmark = needs_java_and_maven


#: Per machine of the adapter, what each handler's vectors come to on Kafka's code: every vector
#: of a handler the adapter implements passes; a handler it leaves out is unsupported.
ON_KAFKA = {
    # decode_record and encode_record run on Kafka's serdes; decode_log is groupspec decode's view.
    "records": {"decode_record": {"passed"}, "encode_record": {"passed"}, "decode_log": {"unsupported"},
                "decode_partition": {"unsupported"},
                # Kafka's batch writers (MemoryRecordsBuilder, writeEmptyHeader, the marker writer) and
                # log classes (LogSegment, LocalLog, FileRecords): every vector passes but those
                # UNSUPPORTED_ON_KAFKA lists.
                "encode_batch": {"passed", "unsupported"}, "write_log": {"passed", "unsupported"},
                "read_log": {"passed", "unsupported"},
                # The classic consumer protocol runs on the client's ConsumerProtocol.
                "decode_consumer_protocol": {"passed"}, "encode_consumer_protocol": {"passed"}},
    "simple_assignor": {"assign": {"passed"}},
    # kafka-clients' Range, RoundRobin, Sticky and CooperativeSticky assignors, list order and
    # exceptions included.
    "classic_assignors": {"assign": {"passed"}},
}
#: The vectors of the records machine's byte-level handlers Kafka's classes cannot be given (the
#: adapter answers each with the rule, RecordsBatch.java and RecordsLog.java): inputs its writers have
#: no setting for, refusals of groupspec's writer where Kafka's writes anyway, tails too short for
#: Kafka's reader to frame, offsets no reader of Kafka's checks.
UNSUPPORTED_ON_KAFKA = {
    # MemoryRecordsBuilder derives the base timestamp; writeEmptyHeader writes -1 there.
    "encode_batch/batch_explicit_timestamps", "encode_batch/batch_timestamp_delta_largest",
    "encode_batch/batch_timestamp_delta_smallest", "encode_batch/batch_refused_timestamp_delta_past_int64",
    "encode_batch/writer_refused_timestamp_delta_far_past_int64",
    "encode_batch/batch_field_minima",
    # An empty batch is writeEmptyHeader's: uncompressed, no delete horizon, any offsets.
    "encode_batch/batch_gzip_empty", "encode_batch/batch_snappy_empty", "encode_batch/batch_lz4_empty",
    "encode_batch/batch_zstd_empty", "encode_batch/batch_refused_delete_horizon_other_base",
    "encode_batch/writer_refused_delete_horizon_after_base",
    "encode_batch/batch_refused_base_offset_negative",
    "encode_batch/batch_refused_last_offset_delta_past_int32",
    # The builder takes a record before the base offset, and overrideLastOffset any last offset.
    "encode_batch/batch_refused_record_before_base", "encode_batch/batch_refused_record_offset_negative",
    "encode_batch/writer_refused_record_before_base_with_later_one",
    "encode_batch/batch_refused_last_offset_before_record",
    # LogSegment.open takes a negative offset, internal.segment.bytes 0; Kafka has no "new log
    # over existing files".
    "write_log/log_write_refused_base_offset_negative", "write_log/log_write_refused_segment_bytes_zero",
    "write_log/log_write_refused_existing_without_resume",
    # FileLogInputStream stops at a tail of 17 bytes or fewer unread; no reader checks offsets across
    # batches (docs/divergences.md, records_log_reading).
    "read_log/batch_read_torn_header_of_14_bytes", "read_log/log_read_torn_header_of_12_bytes",
    "read_log/log_read_tail_offset_past_segment", "read_log/log_read_tail_offset_within_segment",
    "read_log/log_read_offsets_go_back_across_segments", "read_log/log_read_segment_base_at_the_last_offset",
}
#: Machines of the adapter with a test of their own: classic_group (test_kafka_classic_group.py),
#: share_partition (test_kafka_share_partition.py), share_group (test_kafka_share_group.py),
#: share_consumer (test_kafka_share_consumer.py), share_state (test_kafka_share_state.py),
#: classic_consumer (test_kafka_classic_consumer.py), share_delivery (test_kafka_share_delivery.py).
ELSEWHERE = {"classic_group", "share_partition", "share_group", "share_consumer", "share_state",
             "classic_consumer", "share_delivery"}


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
    if machine == "records":
        byte_level = {"encode_batch", "write_log", "read_log"}
        unsupported = {f"{o.handler}/{o.case}" for o in report.outcomes
                       if o.handler in byte_level and o.status == "unsupported"}
        assert unsupported == UNSUPPORTED_ON_KAFKA


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


def _flip_last_hex(text: str) -> str:
    return text[:-1] + ("0" if text[-1] != "0" else "1")


def _plant_decode_record(doc: dict[str, Any]) -> None:
    doc["expected_kafka"]["value"]["epoch"] += 1


def _plant_encode_batch(doc: dict[str, Any]) -> None:  # an uncompressed batch: its last byte
    doc["expected_kafka"]["batch"] = _flip_last_hex(doc["expected_kafka"]["batch"])


def _plant_compressed(doc: dict[str, Any]) -> None:
    # A compressed batch is compared by what it reads back as: ask Kafka for another producer
    # epoch and the expectation (epoch 3) no longer holds.
    doc["input"]["batch"]["producerEpoch"] = 4


def _plant_write_log(doc: dict[str, Any]) -> None:
    name = sorted(doc["expected_kafka"]["files"])[-1]
    doc["expected_kafka"]["files"][name] = _flip_last_hex(doc["expected_kafka"]["files"][name])


def _plant_read_log(doc: dict[str, Any]) -> None:
    doc["expected_kafka"]["items"][-1]["lastOffset"] += 1


@pytest.mark.parametrize("case,plant,named", [
    ("records/decode_record/consumer_group_metadata_negative_hash", _plant_decode_record, "epoch"),
    ("records/encode_batch/batch_mixed_records", _plant_encode_batch, "batch"),
    ("records/encode_batch/batch_zstd", _plant_compressed, "producerEpoch"),
    ("records/write_log/log_write_roll_names", _plant_write_log, "files"),
    ("records/read_log/log_read_two_segments", _plant_read_log, "lastOffset"),
])
def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path, case: str,
                                            plant: Callable[[dict[str, Any]], None], named: str) -> None:
    """Planted: one vector whose Kafka expectation is off by one field fails on Kafka's code."""
    root = vf.default_root()
    source = root / case / "vector.json"
    doc = json.loads(source.read_text(encoding="utf-8"))
    plant(doc)
    doc["expected"] = doc["expected_kafka"]
    planted = tmp_path / "v"
    (planted / case).mkdir(parents=True)
    (planted / case / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    vector = vf.vector_from_json(doc, f"{case}/vector.json")
    report = run_on_kafka([vector], planted)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any(named in line for line in report.outcomes[0].diff), report.outcomes[0].diff


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


def test_an_unknown_kafka_version_is_refused_with_the_known_ones() -> None:
    with pytest.raises(kafka_target.UnknownKafkaVersionError, match=r"4\.2\.1, 4\.3\.1") as caught:
        targets.make_target("kafka", 10.0, "4.4.0")
    assert caught.value.field == "--kafka-version" and caught.value.known == ("4.2.1", "4.3.1")
    with pytest.raises(InputError, match="only for --target kafka"):
        targets.make_target("impl", 10.0, "4.3.1")


#: A handful of Kafka 4.2's vectors on Kafka 4.3.1: the statuses they come to there (flavour kafka).
ON_KAFKA_4_3_1 = {
    "simple_assignor/assign/double_drift": "passed",
    "classic_group/run/delete_groups": "passed",
    "share_partition/run/acknowledgements_move_the_start": "passed",
    "classic_consumer/run/leader_joins_and_gets_its_assignment": "passed",
    # 4.2's rules, which 4.3.1 does not have (KAFKA-20268, KAFKA-20694): the adapter says so
    # instead of failing them; groupspec/vectors/kafka-4.3 holds 4.3's answers for these.
    "share_group/run/first_heartbeat_gets_an_empty_assignment": "unsupported",
    "share_state/run/read_leader_epoch_update_no_update": "unsupported",
    # Left out of the 4.3 build: its record classes moved (adapters/kafka/pom.xml).
    "records/decode_record/consumer_group_metadata_negative_hash": "unsupported",
    # The delivery driver reaches 4.2.1's client internals (src/kafka-4.2, ShareDeliveryShim).
    "share_delivery/run/implicit_next_poll_accepts_and_piggybacks": "unsupported",
}
#: The same two share cases as written for 4.3 (groupspec.kafka_versions).
RELEASE_CASES = ("share_group/run/first_heartbeat_gets_an_empty_assignment",
                 "share_state/run/read_leader_epoch_update_no_update")


def test_kafka_4_3_1_builds_and_answers_a_handful_of_vectors() -> None:
    """One source tree, a second Kafka: the adapter built against 4.3.1 (its own cache entry, its
    own jars) answers a vector of each machine; skipped when Maven cannot resolve 4.3.1's jars."""
    try:
        built = kafka_target.build(version="4.3.1")
    except InputError as exc:
        if "resolve" not in str(exc) and "transfer" not in str(exc):
            raise
        pytest.skip(f"Kafka 4.3.1's jars cannot be resolved here: {exc}")
    assert (built / "lib" / "kafka-group-coordinator-4.3.1.jar").is_file()
    assert built != kafka_target.build()
    root = vf.default_root()
    vectors = [v for v in vf.load(root) if v.id in ON_KAFKA_4_3_1]
    assert len(vectors) == len(ON_KAFKA_4_3_1)
    report = run_on_kafka(vectors, root, kafka_version="4.3.1")
    assert {o.id: o.status for o in report.outcomes} == ON_KAFKA_4_3_1
    [records] = [o for o in report.outcomes if o.machine == "records"]
    assert "org.apache.kafka.common.record.internal" in records.reason
    [delivery] = [o for o in report.outcomes if o.machine == "share_delivery"]
    assert "does not drive kafka-clients' share delivery path" in delivery.reason
    assert all("this adapter runs Kafka 4.3.1" in o.reason for o in report.outcomes if o.id in RELEASE_CASES)
    # 4.3's own vectors of those cases: exact on 4.3.1, another release's rule on 4.2.1.
    root_4_3 = vf.default_root("4.3")
    later = [v for v in vf.load(root_4_3) if v.id in RELEASE_CASES]
    assert len(later) == 2
    on_4_3 = run_on_kafka(later, root_4_3, "groupspec", kafka_version="4.3.1")
    assert [o.status for o in on_4_3.outcomes] == ["passed", "passed"], runner.failures_text(on_4_3)
    on_4_2 = run_on_kafka(later, root_4_3, "groupspec")
    assert [o.status for o in on_4_2.outcomes] == ["unsupported", "unsupported"]
    assert all("this adapter runs Kafka 4.2.1" in o.reason for o in on_4_2.outcomes)


def _random_batch(rng: random.Random) -> dict[str, Any]:
    """An encode_batch input both writers take: growing offsets, timestamps from -1, any codec."""
    base = rng.choice([0, 5, 1000, 2**40])
    batch: dict[str, Any] = {"baseOffset": base}
    records, offset = [], base
    for _ in range(rng.choice([1, 2, 3, 8])):
        stamp = rng.choice([-1, 0, 1700000000000 + rng.randrange(-99, 99)])
        records.append({"offset": offset, "timestamp": stamp,
                        "key": rng.choice([None, "", rng.randbytes(rng.choice([1, 40])).hex()]),
                        "value": rng.choice([None, "", rng.randbytes(rng.choice([1, 300, 3000])).hex()]),
                        "headers": [{"key": "h", "value": rng.choice([None, "01"])}] * rng.randrange(2)})
        offset += rng.choice([1, 1, 2, 100])
    batch["compression"] = rng.choice(["none", "none", "gzip", "snappy", "lz4", "zstd"])
    if rng.random() < .4:
        batch.update(producerId=rng.choice([0, 4000]), producerEpoch=3,
                     baseSequence=rng.choice([0, 2**31 - 1]), transactional=rng.random() < .5)
    if rng.random() < .2:
        batch.update(timestampType="LogAppendTime", maxTimestamp=1700000005000)
    if rng.random() < .2:
        batch["lastOffset"] = records[-1]["offset"] + rng.choice([0, 7])
    return {"batch": batch, "records": records}


def test_random_batches_and_logs_agree_with_kafkas_writers() -> None:
    """Beyond the vectors: random batches through groupspec's writer and Kafka's
    MemoryRecordsBuilder (compared as encode_batch vectors are), and random logs of them through
    groupspec's segment writer and Kafka's LocalLog, new and reopened, and read back by both."""
    rng = random.Random(18)
    kafka = targets.make_target("kafka", 60.0)
    ours = targets.InProcessTarget("impl")

    def both(handler: str, doc: dict[str, Any]) -> Any:
        """groupspec's answer, once it is Kafka's too (errors by their kind)."""
        mine, theirs = ours.call("s", "records", handler, doc), kafka.call("s", "records", handler, doc)
        if handler == "encode_batch":
            assert mine.output is not None and theirs.output is not None, (doc, mine, theirs)
            assert compare_batch(mine.output, theirs.output) == [], doc
        else:
            assert mine.output == theirs.output, doc
            assert (mine.error or ("",))[0] == (theirs.error or ("",))[0], (doc, mine.error, theirs.error)
        return mine.output

    try:
        batches = [both("encode_batch", _random_batch(rng))["batch"] for _ in range(150)]
        for _ in range(40):
            doc = {"batches": rng.sample(batches, rng.randrange(6)),
                   "baseOffset": rng.choice([0, 7, 2**31 + 5]),
                   "segmentBytes": rng.choice([500, 4000, 100000]),
                   "partitionLeaderEpoch": rng.choice([0, 9])}
            written = both("write_log", doc)
            if written is None:  # a batch over the segment size: refused by both
                continue
            done = [i["lastOffset"] for i in both("read_log", {"files": written["files"]})["items"]]
            both("write_log", {"existing": written["files"], "batches": rng.sample(batches, 2),
                               "segmentBytes": doc["segmentBytes"],
                               "baseOffset": done[-1] + 1 if done else doc["baseOffset"]})
    finally:
        kafka.close()

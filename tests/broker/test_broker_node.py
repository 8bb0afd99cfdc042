"""A real Kafka 4.2.1 node: it serves the group APIs, a classic group and transactional offset
commits of kafka-python run on it, and the ``__consumer_offsets`` log its coordinator writes is
read and replayed by groupspec.

This is the first coordinator log that a real Kafka wrote and groupspec read (issue 19): the
decoder and the replay had only met groupspec's own writer and kafka-python's batches before.
kafka-python speaks no share-group API, so share groups on the node wait for groupspec's own
wire client.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.broker

MESSAGES = 10


def _until(check, timeout_s=30.0, what=""):
    """Poll ``check`` until it returns a true value: the node's coordinator works asynchronously."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {timeout_s:g} s: {what}"
        time.sleep(0.2)


def test_the_node_answers_api_versions_with_share_groups_on(kafka_broker):
    from groupspec import broker

    host, _, port = kafka_broker.bootstrap.rpartition(":")
    answer = broker.api_versions(host, int(port))
    keys = answer.apis
    # The classic group APIs, KIP-848's heartbeat, and KIP-932's four.
    for key in (10, 11, 12, 13, 14, 8, 9, 15, 16, 68, 76, 77, 78, 79):
        assert key in keys, key
    assert keys[76] == (1, 1)  # ShareGroupHeartbeat: 4.2 serves version 1 only
    assert keys[78] == keys[79] == (1, 2)  # ShareFetch, ShareAcknowledge
    # What says share groups are on is the finalized feature, not the API list.
    assert answer.features["share.version"] == (1, 1)
    assert answer.features["group.version"] == (1, 1)
    assert answer.features_epoch >= 0
    assert kafka_broker.alive()
    status = broker.status(kafka_broker.directory)
    assert status["running"] and status["share_groups"] is True
    assert status["bootstrap"] == kafka_broker.bootstrap
    assert status["features"]["metadata.version"] == 29  # 4.2-IV1


def _run_classic_group(kafka_broker, topic, group):
    """kafka-python on the node: a topic, ten messages, a classic consumer group that reads them,
    commits and leaves. What the broker reported is kept for the comparisons."""
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import NewTopic

    bootstrap = kafka_broker.bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="gs-admin")
    try:
        admin.create_topics([NewTopic(topic, 2, 1)])
        producer = KafkaProducer(bootstrap_servers=bootstrap)
        for i in range(MESSAGES):
            producer.send(topic, value=b"m%d" % i, partition=i % 2)
        producer.flush()
        producer.close()
        consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, client_id="gs-consumer",
                                 enable_auto_commit=False, auto_offset_reset="earliest",
                                 session_timeout_ms=6000, heartbeat_interval_ms=1000)
        got = []

        def read_all():
            for records in consumer.poll(timeout_ms=500).values():
                got.extend(records)
            return len(got) >= MESSAGES

        _until(read_all, what=f"the group reads {MESSAGES} messages")
        consumer.commit()
        committed = {p: consumer.committed(TopicPartition(topic, p)) for p in (0, 1)}
        stable = admin.describe_groups([group])[group]
        offsets = admin.list_group_offsets(group)[group]
        consumer.close()  # a LeaveGroup: the group ends Empty

        def empty():
            described = admin.describe_groups([group])[group]
            return described if described["group_state"] == "Empty" else None

        left = _until(empty, what="the group is Empty after the member left")
    finally:
        admin.close()
    return {"messages": sorted(r.value for r in got), "committed": committed, "stable": stable,
            "offsets": {tp.partition: o.offset for tp, o in offsets.items()}, "left": left}


def test_a_classic_group_runs_and_groupspec_reads_and_replays_its_log(kafka_broker, capsys, tmp_path):
    """One test, not three sharing a fixture: the node is shared by the xdist workers, and a
    module fixture would run the group once on each of them."""
    suffix = uuid.uuid4().hex[:8]  # the node may outlive one run of this test (a rerun, -n)
    topic, group = f"gs-orders-{suffix}", f"gs-classic-{suffix}"
    run = _run_classic_group(kafka_broker, topic, group)
    _check_run(run)
    _check_decoded(kafka_broker, run, topic, group, capsys)
    _check_replayed(kafka_broker, run, topic, group, tmp_path)


def _check_run(run):
    assert run["messages"] == sorted(b"m%d" % i for i in range(MESSAGES))
    assert run["committed"] == {0: MESSAGES // 2, 1: MESSAGES // 2}
    assert run["offsets"] == {0: MESSAGES // 2, 1: MESSAGES // 2}
    assert run["stable"]["group_state"] == "Stable"
    assert run["stable"]["protocol_type"] == "consumer"
    assert [m["client_id"] for m in run["stable"]["members"]] == ["gs-consumer"]
    assert run["left"]["members"] == []


def _decode(path: Path, capsys) -> list[dict]:
    from groupspec import cli

    capsys.readouterr()
    status = cli.main(["decode", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, err  # nothing quarantined
    return [json.loads(line) for line in out.splitlines()]


def _check_decoded(kafka_broker, run, topic, group, capsys):
    """`groupspec decode` on the live segment: every record decodes, and the group's story is
    there: joined (a generation with our member and its range assignment), committed, left."""
    records = _decode(kafka_broker.partition_dir("__consumer_offsets"), capsys)
    ours = [r for r in records if r["key"].get("group") == group]
    assert ours and all(r["topic"] == "__consumer_offsets" for r in records)
    metadata = [r for r in ours if r["type"] == "GroupMetadata"]
    joined = [r for r in metadata if r["value"]["members"]]
    assert joined, metadata
    value = joined[-1]["value"]
    assert (value["protocolType"], value["protocol"]) == ("consumer", "range")
    assert value["generation"] >= 1
    [member] = value["members"]
    assert member["clientId"] == "gs-consumer" and value["leader"] == member["memberId"]
    assert member["sessionTimeout"] == 6000
    [protocol] = joined[-1]["consumerProtocol"]
    assert protocol["subscription"]["topics"] == [topic]
    assert protocol["assignment"]["assignedPartitions"] == [{"topic": topic, "partitions": [0, 1]}]
    # The leave: a later GroupMetadata of the next generation, with no members.
    last = metadata[-1]["value"]
    assert last["members"] == [] and last["generation"] > value["generation"]
    commits = {r["key"]["partition"]: r["value"]["offset"] for r in ours if r["type"] == "OffsetCommit"}
    assert commits == run["offsets"]


def _check_replayed(kafka_broker, run, topic, group, tmp_path):
    """The live segment replayed through groupspec's classic coordinator: the group, its state,
    protocol and committed offsets are what the broker answered to DescribeGroups and OffsetFetch."""
    [view] = [g for g in _replayed_groups(kafka_broker, tmp_path).values() if g.group_id == group]
    left = run["left"]
    assert view.state == left["group_state"] == "Empty"
    assert view.protocol_type == left["protocol_type"] == "consumer"
    assert view.members == ()
    assert {o.partition: o.committed_offset for o in view.offsets if o.topic == topic} \
        == run["offsets"]
    assert all(o.committed_leader_epoch == 0 for o in view.offsets)


def _replayed_groups(kafka_broker, into: Path) -> dict:
    """The node's __consumer_offsets-0 as it is now, copied and replayed: groupspec's view by id."""
    from groupspec.impl.classic_group import ClassicCoordinator
    from groupspec.types.classic_group import ClassicConfig

    copy = into / "__consumer_offsets-0"
    copy.mkdir(parents=True)
    for segment in kafka_broker.partition_dir("__consumer_offsets").glob("*.log"):
        shutil.copy(segment, copy)  # the indexes are Kafka's, not the log
    coordinator = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1), log_dir=into)
    try:
        return {g.group_id: g for g in coordinator.view().groups}
    finally:
        coordinator.runtime.close()  # the log stays open for appending until closed


def test_transactional_commits_and_a_group_deletion_decode_and_replay(kafka_broker, capsys, tmp_path):
    """kafka-python's transactional producer commits an offset in one transaction and aborts
    another; then the group is deleted. groupspec reads the transactional batches, both markers
    and the tombstones, and its replay keeps the committed offset only, then drops the group."""
    from kafka import KafkaAdminClient, KafkaProducer, TopicPartition
    from kafka.admin import NewTopic
    from kafka.structs import OffsetAndMetadata

    suffix = uuid.uuid4().hex[:8]
    topic, group = f"gs-txn-{suffix}", f"gs-txn-group-{suffix}"
    partition = TopicPartition(topic, 0)
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap, client_id="gs-admin")
    try:
        admin.create_topics([NewTopic(topic, 1, 1)])
        producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap, transactional_id=f"gs-tx-{suffix}")
        producer.init_transactions()
        producer.begin_transaction()
        producer.send(topic, b"x")
        producer.send_offsets_to_transaction({partition: OffsetAndMetadata(7, "meta", -1)}, group)
        producer.commit_transaction()
        producer.begin_transaction()
        producer.send_offsets_to_transaction({partition: OffsetAndMetadata(9, "", -1)}, group)
        producer.abort_transaction()
        producer.close()
        reported = admin.list_group_offsets(group)[group]
        assert {tp.partition: (o.offset, o.metadata) for tp, o in reported.items()} == {0: (7, "meta")}
        before = _replayed_groups(kafka_broker, tmp_path / "before")
        assert admin.delete_groups([group]) == {group: "OK"}
    finally:
        admin.close()

    view = before[group]
    assert view.state == "Empty" and view.members == () and view.pending_offsets == ()
    offsets = [(o.topic, o.partition, o.committed_offset, o.metadata) for o in view.offsets]
    assert offsets == [(topic, 0, 7, "meta")]

    def decoded():
        from groupspec import cli

        capsys.readouterr()
        assert cli.main(["decode", "--control", str(kafka_broker.partition_dir("__consumer_offsets"))]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        # Markers carry no group: take those of our transactions by producer id.
        ours = [r for r in lines if r.get("key", {}).get("group") == group]
        producers = {r["producerId"] for r in ours if r["transactional"]}
        markers = [r["marker"] for r in lines if r.get("control") and r["producerId"] in producers]
        deleted = ours and ours[-1]["tombstone"] and ours[-1]["type"] == "GroupMetadata"
        return (ours, markers) if deleted else None

    ours, markers = _until(decoded, what="the group's deletion is in the log")
    assert markers == ["COMMIT", "ABORT"]
    commits = [(r["value"]["offset"] if r["value"] else None, r["transactional"])
               for r in ours if r["type"] == "OffsetCommit"]
    assert commits == [(7, True), (9, True), (None, False)]  # committed, aborted, then the tombstone
    assert group not in _replayed_groups(kafka_broker, tmp_path / "after")

"""groupspec.wire's transactional offset commits, deletions and configuration against a real
Kafka 4.2.1 node (marker ``broker``): the session's ``kafka_broker`` or ``GROUPSPEC_BROKER``.

What the kafka:// conformance target builds on: a transaction's offsets stay pending (a stable
fetch is refused) until its EndTxn's markers are written, an abort drops them, OffsetDelete and
DeleteGroups answer per partition and per group, a group's configuration set with
IncrementalAlterConfigs is what DescribeConfigs then reads.
"""

from __future__ import annotations

import os
import time
import uuid

import pytest

from groupspec.conformance.wire_txn import Transactions
from groupspec.types import classic_group as cg
from groupspec.types.errors import Errors
from groupspec.wire import Connection
from groupspec.wire import messages as w
from groupspec.wire.cluster import find_coordinator, parse_address
from groupspec.wire.messages.configs import OP_DELETE, OP_SET, RESOURCE_BROKER, RESOURCE_GROUP

pytestmark = pytest.mark.broker

GROUP_CONFIG_SOURCE = 8


@pytest.fixture(scope="module")
def address(request: pytest.FixtureRequest) -> tuple[str, int]:
    given = os.environ.get("GROUPSPEC_BROKER")
    if given:
        return parse_address(given)
    return parse_address(request.getfixturevalue("kafka_broker").bootstrap)


def connect(address: tuple[str, int]) -> Connection:
    return Connection.connect(*address, timeout=15.0, client_id="groupspec-admin-test")


def _topic(conn: Connection, partitions: int) -> str:
    name = f"admin-{uuid.uuid4().hex[:8]}"
    created = conn.request(w.CreateTopicsRequest(
        topics=(w.CreateTopicsRequest.CreatableTopic(name, partitions, -1, (), ()),), timeout_ms=15_000))
    assert created.topics[0].error_code == 0
    meta = w.MetadataRequest(topics=(w.MetadataRequest.MetadataRequestTopic(name=name),),
                             allow_auto_topic_creation=False)
    for _ in range(100):
        topics = conn.request(meta).topics
        if topics and topics[0].error_code == 0 and all(p.leader_id >= 0 for p in topics[0].partitions):
            return name
        time.sleep(0.05)
    pytest.fail(f"topic {name} never had leaders")


def _fetch(conn: Connection, group: str, topic: str, partitions: tuple[int, ...],
           stable: bool) -> list[tuple[int, int, int]]:
    """(partition, committed offset, error code), once the coordinator has loaded."""
    group_topic = w.OffsetFetchRequest.OffsetFetchRequestGroup.OffsetFetchRequestTopics(
        name=topic, partition_indexes=partitions)
    request = w.OffsetFetchRequest(groups=(w.OffsetFetchRequest.OffsetFetchRequestGroup(
        group_id=group, topics=(group_topic,)),), require_stable=stable)
    for _ in range(100):
        answer = conn.request(request, 9)
        if answer.groups[0].error_code != Errors.COORDINATOR_LOAD_IN_PROGRESS:
            assert answer.groups[0].error_code == 0
            return [(p.partition_index, p.committed_offset, p.error_code)
                    for t in answer.groups[0].topics for p in t.partitions]
        time.sleep(0.1)
    pytest.fail("the coordinator never loaded")


def _txn_commit(conn: Connection, tid: str, pid: int, epoch: int, group: str, topic: str,
                offsets: dict[int, int]) -> list[int]:
    topic_cls = w.TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic
    answer = conn.request(w.TxnOffsetCommitRequest(tid, group, pid, epoch, topics=(topic_cls(topic, tuple(
        topic_cls.TxnOffsetCommitRequestPartition(p, o, -1, "") for p, o in offsets.items())),)))
    return [p.error_code for t in answer.topics for p in t.partitions]


def test_a_transactions_offsets_are_pending_until_it_commits_and_gone_if_it_aborts(
        address: tuple[str, int]) -> None:
    group = f"admin-txn-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        find_coordinator(conn, group, attempts=100)
        topic = _topic(conn, 2)
        assert conn.version(28) == 5 and conn.version(26) == 5  # transactions version 2 (KIP-890)
        txns = Transactions(f"admin-{uuid.uuid4().hex[:6]}", lambda h, p: connect((h, p)), conn)
        try:
            assert txns.commit_version(conn) == 5  # a 4.2.1 node finalizes transaction.version 2
            commit = cg.TxnOffsetCommit("tx", 7, 1, group)
            tid, pid, epoch = txns.begin(commit, group, 5)
            assert pid >= 0 and epoch >= 0
            assert _txn_commit(conn, tid, pid, epoch, group, topic, {0: 50}) == [0]
            assert _fetch(conn, group, topic, (0,), stable=True) == [(0, -1, Errors.UNSTABLE_OFFSET_COMMIT)]
            assert _fetch(conn, group, topic, (0,), stable=False) == [(0, -1, 0)]
            assert txns.end(cg.TxnMarker(7, 1, commit=True)) is True
            assert _fetch(conn, group, topic, (0,), stable=True) == [(0, 50, 0)]  # settled, no wait
            # the next transaction of the same producer, aborted: offset 50 stays
            tid, pid2, epoch2 = txns.begin(commit, group, 5)
            assert (pid2, epoch2) != (pid, epoch)  # every end bumps the epoch (v5), and the wait again
            assert _txn_commit(conn, tid, pid2, epoch2, group, topic, {0: 60, 1: 61}) == [0, 0]
            assert txns.end(cg.TxnMarker(7, 1, commit=False)) is True
            assert _fetch(conn, group, topic, (0, 1), stable=True) == [(0, 50, 0), (1, -1, 0)]
            assert txns.end(cg.TxnMarker(7, 1, commit=False)) is False  # nothing open: nothing sent
        finally:
            txns.close()


def test_below_v5_the_group_is_added_with_add_offsets_to_txn(address: tuple[str, int]) -> None:
    group = f"admin-txn4-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        find_coordinator(conn, group, attempts=100)
        topic = _topic(conn, 1)
        txns = Transactions(f"admin-{uuid.uuid4().hex[:6]}", lambda h, p: connect((h, p)), conn)
        try:
            tid, pid, epoch = txns.begin(cg.TxnOffsetCommit("tx", 3, 0, group), group, 4)
            topic_cls = w.TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic
            answer = conn.request(w.TxnOffsetCommitRequest(tid, group, pid, epoch, topics=(topic_cls(
                topic, (topic_cls.TxnOffsetCommitRequestPartition(0, 9, -1, ""),)),)), 4)
            assert [p.error_code for t in answer.topics for p in t.partitions] == [0]
            assert txns.end(cg.TxnMarker(3, 0, commit=True)) is True
            assert _fetch(conn, group, topic, (0,), stable=True) == [(0, 9, 0)]
        finally:
            txns.close()


def test_offset_delete_and_delete_groups_answer_per_partition_and_per_group(address: tuple[str, int]) -> None:
    group = f"admin-del-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        find_coordinator(conn, group, attempts=100)
        topic = _topic(conn, 2)
        part = w.OffsetCommitRequest.OffsetCommitRequestTopic.OffsetCommitRequestPartition
        committed = conn.request(w.OffsetCommitRequest(group, topics=(
            w.OffsetCommitRequest.OffsetCommitRequestTopic(topic, partitions=(part(0, 5, -1, ""),)),)), 9)
        assert committed.topics[0].partitions[0].error_code == 0
        delete = w.OffsetDeleteRequest.OffsetDeleteRequestTopic
        answer = conn.request(w.OffsetDeleteRequest(group, (delete(topic, (
            delete.OffsetDeleteRequestPartition(0), delete.OffsetDeleteRequestPartition(1))),)))
        assert answer.error_code == 0
        assert [(p.partition_index, p.error_code) for p in answer.topics[0].partitions] == [(0, 0), (1, 0)]
        assert _fetch(conn, group, topic, (0,), stable=False) == [(0, -1, 0)]
        unknown = conn.request(w.OffsetDeleteRequest(f"{group}-nope", (delete(topic, (
            delete.OffsetDeleteRequestPartition(0),)),)))
        assert unknown.error_code == Errors.GROUP_ID_NOT_FOUND and unknown.topics == ()
        deleted = conn.request(w.DeleteGroupsRequest((group, f"{group}-nope")))
        assert sorted((r.group_id, r.error_code) for r in deleted.results) == [
            (group, 0), (f"{group}-nope", Errors.GROUP_ID_NOT_FOUND)]


def test_a_group_config_set_is_what_describe_configs_reads(address: tuple[str, int]) -> None:
    group = f"admin-cfg-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        node = find_coordinator(conn, group, attempts=100)
        wanted = w.DescribeConfigsRequest.DescribeConfigsResource(
            RESOURCE_BROKER, str(node.node_id), ("group.share.max.session.timeout.ms",))
        broker = conn.request(w.DescribeConfigsRequest(resources=(wanted,)))
        assert [(c.name, c.value) for c in broker.results[0].configs] == [
            ("group.share.max.session.timeout.ms", "60000")]
        resource = w.IncrementalAlterConfigsRequest.AlterConfigsResource
        alter = w.IncrementalAlterConfigsRequest(resources=(resource(RESOURCE_GROUP, group, (
            resource.AlterableConfig("share.session.timeout.ms", OP_SET, "50000"),
            resource.AlterableConfig("share.heartbeat.interval.ms", OP_DELETE, None))),))
        answer = conn.request(alter)
        assert [(r.error_code, r.resource_type, r.resource_name) for r in answer.responses] == [
            (0, RESOURCE_GROUP, group)]
        too_long = conn.request(w.IncrementalAlterConfigsRequest(resources=(resource(RESOURCE_GROUP, group, (
            resource.AlterableConfig("share.session.timeout.ms", OP_SET, "60001"),)),)))
        assert too_long.responses[0].error_code == Errors.INVALID_CONFIG
        describe = w.DescribeConfigsRequest(resources=(w.DescribeConfigsRequest.DescribeConfigsResource(
            RESOURCE_GROUP, group, ("share.session.timeout.ms",)),))
        for _ in range(100):
            (config,) = conn.request(describe).results[0].configs
            if config.config_source == GROUP_CONFIG_SOURCE:
                break
            time.sleep(0.05)
        assert (config.value, config.config_source) == ("50000", GROUP_CONFIG_SOURCE)

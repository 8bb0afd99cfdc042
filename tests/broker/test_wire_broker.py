"""groupspec.wire against a real Kafka 4.2.1 broker (marker ``broker``).

The node is the session's ``kafka_broker`` fixture (groupspec.broker), or any running Kafka 4.2
node with share groups enabled named by ``GROUPSPEC_BROKER=host:port``.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pytest

from groupspec.impl.codec.batch import decode_batch
from groupspec.types import classic_group as cg
from groupspec.types.errors import Errors
from groupspec.wire import Connection
from groupspec.wire import messages as w
from groupspec.wire.cluster import find_coordinator, parse_address
from groupspec.wire.produce import produce
from groupspec.wire.translate import from_wire, to_wire

pytestmark = pytest.mark.broker


@pytest.fixture(scope="module")
def address(request: pytest.FixtureRequest) -> tuple[str, int]:
    given = os.environ.get("GROUPSPEC_BROKER")
    if given:
        return parse_address(given)
    return parse_address(request.getfixturevalue("kafka_broker").bootstrap)


def connect(address: tuple[str, int]) -> Connection:
    return Connection.connect(*address, timeout=15.0, client_id="groupspec-wire-test")


def wait_for_coordinator(conn: Connection, group: str) -> None:
    """A fresh node creates __consumer_offsets on the first FindCoordinator and answers
    COORDINATOR_NOT_AVAILABLE until it is loaded; find_coordinator asks again meanwhile."""
    node = find_coordinator(conn, group, attempts=100)
    assert node.node_id >= 0 and node.port > 0


def once_loaded(conn: Connection, request: Any) -> Any:
    """The answer to ``request`` once the coordinator has loaded (a fresh node answers
    COORDINATOR_LOAD_IN_PROGRESS for a while after FindCoordinator already found it)."""
    for _ in range(100):
        answer = conn.request(request)
        if answer.error_code != Errors.COORDINATOR_LOAD_IN_PROGRESS:
            return answer
        time.sleep(0.1)
    pytest.fail(f"the coordinator never loaded for {request!r}")


def test_a_42_broker_offers_exactly_the_versions_groupspec_speaks(address: tuple[str, int]) -> None:
    with connect(address) as conn:
        offered = {a.name: str(conn.peer_versions[k]) for k, a in w.APIS.items()}
        # Produce: the broker still advertises 0-13 though it takes only 3-13 (Kafka's ApiKeys.java,
        # PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION: kept for a librdkafka bug); the others match.
        assert offered == {a.name: str(a.versions) for a in w.APIS.values()} | {"Produce": "0-13"}
        assert {a.name: conn.version(k) for k, a in w.APIS.items()} == {
            a.name: a.versions.hi for a in w.APIS.values()
        }


def _join(conn: Connection, group: str, member: str) -> cg.JoinGroupResponse:
    event = cg.JoinGroup(
        group,
        member,
        session_timeout_ms=10_000,
        rebalance_timeout_ms=10_000,
        protocols=(cg.Protocol("range", b""),),
    )
    request, version = to_wire(event)
    answer: cg.JoinGroupResponse = from_wire(conn.request(request, version), version or 9)
    return answer


def test_a_classic_member_joins_syncs_heartbeats_and_leaves(address: tuple[str, int]) -> None:
    group = f"wire-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        wait_for_coordinator(conn, group)
        first = _join(conn, group, "")
        for _ in range(100):  # found is not yet loaded: a fresh node may still be reading its log
            if first.error is not Errors.COORDINATOR_LOAD_IN_PROGRESS:
                break
            time.sleep(0.1)
            first = _join(conn, group, "")
        assert first.error is Errors.MEMBER_ID_REQUIRED and first.member_id.startswith("groupspec-wire-test-")
        joined = _join(conn, group, first.member_id)
        assert (joined.error, joined.generation_id, joined.leader) == (Errors.NONE, 1, first.member_id)
        sync, version = to_wire(
            cg.SyncGroup(
                group,
                1,
                first.member_id,
                protocol_type="consumer",
                protocol_name="range",
                assignments=(cg.SyncAssignment(first.member_id, b"a"),),
            )
        )
        assert from_wire(conn.request(sync, version), 5) == cg.SyncGroupResponse(
            Errors.NONE, "consumer", "range", b"a"
        )
        beat, version = to_wire(cg.Heartbeat(group, 1, first.member_id))
        assert from_wire(conn.request(beat, version), 4) == cg.HeartbeatResponse(Errors.NONE)
        described = conn.request(w.DescribeGroupsRequest(groups=(group,)))
        assert described.groups[0].group_state == "Stable"
        assert [m.member_id for m in described.groups[0].members] == [first.member_id]
        leave, version = to_wire(cg.LeaveGroup(group, (cg.MemberIdentity(first.member_id),)))
        left = from_wire(conn.request(leave, version), 5)
        assert left.error is Errors.NONE and left.members[0].error is Errors.NONE


def test_a_share_member_joins_and_is_described(address: tuple[str, int]) -> None:
    group, topic = f"wire-share-{uuid.uuid4().hex[:8]}", f"wire-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        wait_for_coordinator(conn, group)
        created = conn.request(
            w.CreateTopicsRequest(
                topics=(
                    w.CreateTopicsRequest.CreatableTopic(name=topic, num_partitions=2, replication_factor=1),
                ),
                timeout_ms=10_000,
            )
        )
        assert created.topics[0].error_code == 0
        member = uuid.uuid4().hex[:22]
        beat = once_loaded(
            conn,
            w.ShareGroupHeartbeatRequest(
                group_id=group, member_id=member, member_epoch=0, subscribed_topic_names=(topic,)
            ),
        )
        assert (beat.error_code, beat.member_id, beat.member_epoch) == (0, member, 1)
        described = conn.request(w.ShareGroupDescribeRequest(group_ids=(group,)))
        assert [m.member_id for m in described.groups[0].members] == [member]
        assert described.groups[0].assignor_name == "simple"


def _topic(conn: Connection, partitions: int = 2) -> tuple[str, uuid.UUID]:
    name = f"wire-{uuid.uuid4().hex[:8]}"
    created = conn.request(
        w.CreateTopicsRequest(
            topics=(
                w.CreateTopicsRequest.CreatableTopic(
                    name=name, num_partitions=partitions, replication_factor=1
                ),
            ),
            timeout_ms=10_000,
        )
    )
    assert created.topics[0].error_code == 0
    return name, created.topics[0].topic_id


def test_a_kip_848_member_commits_and_fetches_offsets_by_topic_id(address: tuple[str, int]) -> None:
    group = f"wire-cg-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        wait_for_coordinator(conn, group)
        name, topic_id = _topic(conn)
        member = uuid.uuid4().hex[:22]  # v1: the client makes its member id
        beat = once_loaded(
            conn,
            w.ConsumerGroupHeartbeatRequest(
                group_id=group,
                member_id=member,
                member_epoch=0,
                rebalance_timeout_ms=10_000,
                subscribed_topic_names=(name,),
                topic_partitions=(),
            ),
        )
        assert (beat.error_code, beat.member_id, beat.member_epoch) == (0, member, 1)
        partition = w.OffsetCommitRequest.OffsetCommitRequestTopic.OffsetCommitRequestPartition
        commit = conn.request(
            w.OffsetCommitRequest(  # v10: topics by id only
                group_id=group,
                generation_id_or_member_epoch=1,
                member_id=member,
                topics=(
                    w.OffsetCommitRequest.OffsetCommitRequestTopic(
                        topic_id=topic_id, partitions=(partition(0, 42, -1, "m"),)
                    ),
                ),
            )
        )
        assert commit.topics[0].topic_id == topic_id and commit.topics[0].partitions[0].error_code == 0
        asked = w.OffsetFetchRequest.OffsetFetchRequestGroup
        fetched = conn.request(
            w.OffsetFetchRequest(
                groups=(
                    asked(
                        group_id=group,
                        member_id=member,
                        member_epoch=1,
                        topics=(asked.OffsetFetchRequestTopics(topic_id=topic_id, partition_indexes=(0, 1)),),
                    ),
                )
            )
        )
        got = fetched.groups[0].topics[0].partitions
        assert [(p.partition_index, p.committed_offset, p.metadata) for p in got] == [
            (0, 42, "m"),
            (1, -1, ""),
        ]


def test_a_share_member_is_assigned_fetches_and_acknowledges(address: tuple[str, int]) -> None:
    group = f"wire-share-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        wait_for_coordinator(conn, group)
        name, topic_id = _topic(conn)
        member, epoch, assigned = uuid.uuid4().hex[:22], 0, ()
        for _ in range(100):  # the assignment follows the share partitions' initialization
            beat = once_loaded(
                conn,
                w.ShareGroupHeartbeatRequest(
                    group_id=group,
                    member_id=member,
                    member_epoch=epoch,
                    subscribed_topic_names=(name,) if epoch == 0 else None,
                ),
            )
            assert beat.error_code == 0
            epoch = beat.member_epoch
            if beat.assignment is not None and beat.assignment.topic_partitions:
                assigned = beat.assignment.topic_partitions
                break
            time.sleep(0.1)
        assert [(t.topic_id, t.partitions) for t in assigned] == [(topic_id, (0, 1))]
        topic = w.ShareFetchRequest.FetchTopic
        fetched = conn.request(
            w.ShareFetchRequest(
                group_id=group,
                member_id=member,
                share_session_epoch=0,
                max_wait_ms=100,
                min_bytes=1,
                max_bytes=1 << 20,
                max_records=10,
                batch_size=10,
                topics=(
                    topic(topic_id=topic_id, partitions=(topic.FetchPartition(0), topic.FetchPartition(1))),
                ),
            )
        )
        assert fetched.error_code == 0 and fetched.acquisition_lock_timeout_ms > 0
        partitions = fetched.responses[0].partitions
        assert sorted(p.partition_index for p in partitions) == [0, 1]
        assert all(p.records == b"" and p.acquired_records == () for p in partitions)  # nothing produced
        acked = conn.request(
            w.ShareAcknowledgeRequest(group_id=group, member_id=member, share_session_epoch=1)
        )
        assert acked.error_code == 0


def test_every_api_at_every_version_is_answered_in_bytes_groupspec_reads(address: tuple[str, int]) -> None:
    """Each request class with its defaults, at each version: the broker parses it (or it would
    close the connection) and its answer decodes at that version, whatever its error codes."""
    answered = []
    with connect(address) as conn:
        for api in w.APIS.values():
            for version in range(api.versions.lo, api.versions.hi + 1):
                # Produce with acks=0 (its default) gets no answer at all: acks=1, no topics.
                request = w.ProduceRequest(acks=1, timeout_ms=1000) if api.key == 0 else api.request()
                response = conn.request(request, version)
                assert type(response) is api.response
                answered.append((api.name, version))
    assert len(answered) == sum(a.versions.hi - a.versions.lo + 1 for a in w.APIS.values()) == 143


def test_produced_records_are_what_a_share_member_acquires(address: tuple[str, int]) -> None:
    """Produce by name (v12) and by id (v13); a share member then acquires all five records.

    The member fetches once before anything is produced: a share partition starts at the log end
    when it is first fetched (share.auto.offset.reset defaults to latest), so records produced
    before that would never be offered.
    """
    group = f"wire-prod-{uuid.uuid4().hex[:8]}"
    with connect(address) as conn:
        wait_for_coordinator(conn, group)
        name, topic_id = _topic(conn, partitions=1)
        member, epoch, assigned = uuid.uuid4().hex[:22], 0, False
        for _ in range(100):
            beat = once_loaded(conn, w.ShareGroupHeartbeatRequest(
                group_id=group, member_id=member, member_epoch=epoch,
                subscribed_topic_names=(name,) if epoch == 0 else None))
            assert beat.error_code == 0
            epoch = beat.member_epoch
            if beat.assignment is not None and beat.assignment.topic_partitions:
                assigned = True
                break
            time.sleep(0.1)
        assert assigned
        topic = w.ShareFetchRequest.FetchTopic
        records: list[tuple[int, int, bytes | None, bytes | None]] = []
        acquired: list[tuple[int, int, int]] = []
        for session_epoch in range(20):
            if session_epoch == 1:
                assert produce(conn, name, 0, [(b"k0", b"v0"), (None, b"v1"), (None, None)],
                               timestamp_ms=1000) == 0
                assert produce(conn, name, 0, [(None, b"v3"), (b"k4", b"v4")], timestamp_ms=2000,
                               topic_id=topic_id) == 3
            fetched = conn.request(w.ShareFetchRequest(
                group_id=group, member_id=member, share_session_epoch=session_epoch, max_wait_ms=500,
                min_bytes=1, max_bytes=1 << 20, max_records=10, batch_size=10,
                topics=(topic(topic_id=topic_id, partitions=(topic.FetchPartition(0),)),)
                if session_epoch == 0 else ()))
            assert fetched.error_code == 0
            for p in fetched.responses[0].partitions if fetched.responses else ():
                assert p.error_code == 0
                data = memoryview(p.records or b"")
                while data:
                    size = 12 + int.from_bytes(data[8:12], "big")  # base offset, then length
                    batch = decode_batch(data[:size])
                    records += [(r.offset, r.timestamp, r.key, r.value) for r in batch.records]
                    data = data[size:]
                acquired += [(a.first_offset, a.last_offset, a.delivery_count) for a in p.acquired_records]
            if len(records) >= 5:
                break
        assert records == [(0, 1000, b"k0", b"v0"), (1, 1000, None, b"v1"), (2, 1000, None, None),
                           (3, 2000, None, b"v3"), (4, 2000, b"k4", b"v4")]
        assert acquired[0][0] == 0 and acquired[-1][1] == 4 and all(a[2] == 1 for a in acquired)

"""Seed 001's worked rebalance scenarios and seed 004's OffsetCommit rules, on both layers.

Each scenario is the seed's numbered steps as requests, with the group state and the answers
the seed says each step produces; where Kafka 4.x differs from the seed's older Scala
coordinator (the initial rebalance delay, the two-step join with MEMBER_ID_REQUIRED, error
codes for commits) the 4.x behaviour is asserted and the comment says so
(docs/divergences.md has the table).
"""

from __future__ import annotations

import pytest

from groupspec.types.classic_group import (
    BeginLoad,
    ClassicConfig,
    CommitPartition,
    CommitTopic,
    CompleteLoad,
    DescribeGroups,
    DescribeGroupsResponse,
    FetchTopic,
    Heartbeat,
    JoinGroup,
    JoinGroupResponse,
    LeaveGroup,
    ListGroups,
    ListGroupsResponse,
    MemberIdentity,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetDelete,
    OffsetFetch,
    OffsetFetchResponse,
    Restart,
    SyncAssignment,
    SyncGroup,
    SyncGroupResponse,
    TxnEnd,
    TxnMarker,
    TxnOffsetCommit,
    TxnOffsetCommitResponse,
)
from groupspec.types.errors import Errors
from tests.scenarios.classic_group.targets import LAYERS, PROTOCOLS, Driver

#: Kafka 4.x waits group.initial.rebalance.delay.ms (3 s) before the first join of an Empty
#: group completes; the seed's coordinator completed it at once. Advancing by the delay is the
#: one step the scenarios add.
DELAY = ClassicConfig().initial_rebalance_delay_ms


def sync(d: Driver, member: str, generation: int, assignments: dict[str, bytes] | None = None) -> int:
    given = tuple(SyncAssignment(m, a) for m, a in (assignments or {}).items())
    return d.send(SyncGroup("g", generation, member, protocol_type="consumer", protocol_name="range",
                            assignments=given))


def joined(d: Driver, index: int, generation: int, leader: str) -> JoinGroupResponse:
    response = d.answer(index)
    assert isinstance(response, JoinGroupResponse)
    assert (response.error, response.generation_id, response.leader) == (Errors.NONE, generation, leader)
    # Only the leader gets the member list.
    assert bool(response.members) == (response.member_id == leader)
    return response


def synced(d: Driver, index: int, assignment: bytes) -> None:
    response = d.answer(index)
    assert isinstance(response, SyncGroupResponse)
    assert (response.error, response.assignment) == (Errors.NONE, assignment)


def leave_all(d: Driver, members: list[str]) -> None:
    d.send(LeaveGroup("g", tuple(MemberIdentity(m) for m in members)))
    assert d.state("g") == "Empty"


@pytest.mark.parametrize("layer", LAYERS)
def test_three_consumers_one_rebalance(layer: str) -> None:
    """Seed 001 scenario 1: Stable, Preparing, Completing, Preparing, Completing, Stable."""
    d = Driver(layer)
    c3, j3 = d.new_member("g", "consumer-3")
    assert d.state("g") == "PreparingRebalance"
    d.advance(DELAY)  # (2) consumer-3 completes the join alone: generation 1, it leads
    assert d.state("g") == "CompletingRebalance"
    joined(d, j3, 1, c3)
    c2, j2 = d.new_member("g", "consumer-2")  # (3) back to PreparingRebalance, not complete
    assert d.state("g") == "PreparingRebalance" and j2 not in d.answers
    c1, j1 = d.new_member("g", "consumer-1")  # (4) still waiting for consumer-3
    assert j1 not in d.answers
    s3 = sync(d, c3, 1, {c3: b"all"})  # (4) its assignment for generation 1 is void
    assert d.error(s3) is Errors.REBALANCE_IN_PROGRESS
    j3b = d.rejoin("g", c3)  # (5)-(6) everyone has joined: generation 2 answered to all three
    assert d.released() == sorted([j2, j1, j3b]) and d.state("g") == "CompletingRebalance"
    for index in (j1, j2, j3b):
        joined(d, index, 2, c3)
    s2, s1 = sync(d, c2, 2), sync(d, c1, 2)  # (7) followers wait for the leader's assignment
    assert s2 not in d.answers and s1 not in d.answers
    s3b = sync(d, c3, 2, {c1: b"p0", c2: b"p1", c3: b"p2"})
    assert d.released() == sorted([s1, s2, s3b]) and d.state("g") == "Stable"  # (8)
    synced(d, s1, b"p0")
    synced(d, s2, b"p1")
    synced(d, s3b, b"p2")
    leave_all(d, [c1, c2, c3])  # (9)


@pytest.mark.parametrize("layer", LAYERS)
def test_three_consumers_two_rebalances(layer: str) -> None:
    """Seed 001 scenario 2: consumer-1 is Stable alone, then 2 and 3 join together."""
    d = Driver(layer)
    c1, j1 = d.new_member("g", "consumer-1")
    d.advance(DELAY)
    joined(d, j1, 1, c1)  # (1)
    synced(d, sync(d, c1, 1, {c1: b"p0,p1,p2"}), b"p0,p1,p2")
    assert d.state("g") == "Stable"
    c2, j2 = d.new_member("g", "consumer-2")  # (2)
    assert d.state("g") == "PreparingRebalance" and j2 not in d.answers
    c3, j3 = d.new_member("g", "consumer-3")  # (3)
    assert j3 not in d.answers
    # consumer-1 learns of the rebalance from its heartbeat, then rejoins (4).
    assert d.error(d.send(Heartbeat("g", 1, c1))) is Errors.REBALANCE_IN_PROGRESS
    j1b = d.rejoin("g", c1)
    assert d.released() == sorted([j1b, j2, j3]) and d.state("g") == "CompletingRebalance"
    for index in (j1b, j2, j3):
        joined(d, index, 2, c1)
    s1 = sync(d, c1, 2, {c1: b"p0", c2: b"p1", c3: b"p2"})  # (5)
    assert d.released() == [s1] and d.state("g") == "Stable"
    synced(d, s1, b"p0")
    s2 = sync(d, c2, 2)  # (6) Stable: answered at once
    synced(d, s2, b"p1")
    s3 = sync(d, c3, 2)
    synced(d, s3, b"p2")
    leave_all(d, [c1, c2, c3])  # (7)


@pytest.mark.parametrize("layer", LAYERS)
def test_three_consumers_three_rebalances(layer: str) -> None:
    """Seed 001 scenario 3: each consumer's arrival is one rebalance; generations 1, 2, 3."""
    d = Driver(layer)
    c1, j1 = d.new_member("g", "consumer-1")
    d.advance(DELAY)
    joined(d, j1, 1, c1)
    synced(d, sync(d, c1, 1, {c1: b"all"}), b"all")  # (1)
    c2, j2 = d.new_member("g", "consumer-2")  # (2)
    assert d.state("g") == "PreparingRebalance"
    j1b = d.rejoin("g", c1)  # (3)
    assert d.released() == sorted([j1b, j2])
    joined(d, j2, 2, c1)
    s2 = sync(d, c2, 2)
    s1 = sync(d, c1, 2, {c1: b"a", c2: b"b"})  # (4)
    assert d.released() == sorted([s1, s2]) and d.state("g") == "Stable"
    c3, j3 = d.new_member("g", "consumer-3")  # (5)
    assert j3 not in d.answers and d.state("g") == "PreparingRebalance"
    j1c, j2b = d.rejoin("g", c1), d.rejoin("g", c2)  # (6)
    assert d.released() == sorted([j1c, j2b, j3]) and d.state("g") == "CompletingRebalance"
    joined(d, j3, 3, c1)
    s3, s2b = sync(d, c3, 3), sync(d, c2, 3)
    s1b = sync(d, c1, 3, {c1: b"x", c2: b"y", c3: b"z"})  # (7)
    assert d.released() == sorted([s1b, s2b, s3]) and d.state("g") == "Stable"
    synced(d, s3, b"z")
    assert d.group("g").generation_id == 3
    leave_all(d, [c1, c2, c3])  # (8)


def _three_in_completing(d: Driver) -> tuple[str, str, str, int, int, int]:
    c1, j1 = d.new_member("g", "consumer-1")
    c2, j2 = d.new_member("g", "consumer-2")
    c3, j3 = d.new_member("g", "consumer-3")
    # (1) three joins, one generation. Members that arrive during the initial delay extend it
    # by another delay (KIP-134), so the join completes at the second expiry.
    d.advance(DELAY)
    assert d.state("g") == "PreparingRebalance" and d.released() == []
    d.advance(DELAY)
    assert d.state("g") == "CompletingRebalance" and d.released() == sorted([j1, j2, j3])
    return c1, c2, c3, j1, j2, j3


@pytest.mark.parametrize("layer", LAYERS)
def test_follower_misses_its_join_response(layer: str) -> None:
    """Seed 001: the third consumer never saw its JoinGroup answer; in Stable a rejoin is answered at once."""
    d = Driver(layer)
    c1, c2, c3, *_ = _three_in_completing(d)
    s2 = sync(d, c2, 1)  # (3) parked
    assert s2 not in d.answers
    s1 = sync(d, c1, 1, {c1: b"a", c2: b"b", c3: b"c"})  # (4)-(5): both parked syncs answered
    assert d.released() == [s2, s1] and d.state("g") == "Stable"
    j3 = d.rejoin("g", c3)  # (6)-(7) same metadata, not the leader: no rebalance
    assert d.released() == [j3] and d.state("g") == "Stable"
    response = joined(d, j3, 1, c1)
    assert response.members == ()
    synced(d, sync(d, c3, 1), b"c")  # (8)-(9)
    assert d.state("g") == "Stable" and d.group("g").generation_id == 1


@pytest.mark.parametrize("layer", LAYERS)
def test_leader_misses_its_join_response(layer: str) -> None:
    """Seed 001: the group waits in CompletingRebalance until the leader rejoins and assigns."""
    d = Driver(layer)
    c1, c2, c3, *_ = _three_in_completing(d)
    s2, s3 = sync(d, c2, 1), sync(d, c3, 1)  # (3)
    assert d.state("g") == "CompletingRebalance" and s2 not in d.answers and s3 not in d.answers
    j1 = d.rejoin("g", c1)  # (4)-(5) answered at once, with the member list, no new generation
    assert d.released() == [j1] and d.state("g") == "CompletingRebalance"
    response = joined(d, j1, 1, c1)
    assert [m.member_id for m in response.members] == [c1, c2, c3]
    s1 = sync(d, c1, 1, {c1: b"a", c2: b"b", c3: b"c"})  # (6)-(7)
    assert d.released() == [s2, s3, s1] and d.state("g") == "Stable"
    synced(d, s3, b"c")


@pytest.mark.parametrize("layer", LAYERS)
def test_sync_during_preparing_rebalance(layer: str) -> None:
    """Seed 001: a leader's SyncGroup after a new member arrived gets REBALANCE_IN_PROGRESS."""
    d = Driver(layer)
    c1, j1 = d.new_member("g", "consumer-1")
    d.advance(DELAY)
    joined(d, j1, 1, c1)  # (1) the leader is assigning
    _, j2 = d.new_member("g", "consumer-2")  # (2)
    assert d.state("g") == "PreparingRebalance"
    s1 = sync(d, c1, 1, {c1: b"all"})  # (3)-(4)
    assert d.error(s1) is Errors.REBALANCE_IN_PROGRESS
    assert d.group("g").members[0].assignment == b""  # nothing of generation 1 was kept
    j1b = d.rejoin("g", c1)  # (5)
    assert d.released() == sorted([j1b, j2]) and d.state("g") == "CompletingRebalance"
    joined(d, j2, 2, c1)


@pytest.mark.parametrize("layer", LAYERS)
def test_leader_leaves_next_member_leads(layer: str) -> None:
    """The leader's LeaveGroup passes the leadership to the oldest member left (docs/divergences.md)."""
    d = Driver(layer)
    c1, c2, c3, *_ = _three_in_completing(d)
    sync(d, c1, 1, {c1: b"a", c2: b"b", c3: b"c"})
    d.send(LeaveGroup("g", (MemberIdentity(c1),)))
    assert d.state("g") == "PreparingRebalance" and d.group("g").leader_id == c2
    j2, j3 = d.rejoin("g", c2), d.rejoin("g", c3)
    assert d.released() == sorted([j2, j3])
    joined(d, j3, 2, c2)


# ---------------------------------------------------------------------------------------------
# Seed 004: OffsetCommit in each group state
# ---------------------------------------------------------------------------------------------


def commit(d: Driver, group: str, generation: int = -1, member: str = "", version: int = 9,
           offset: int = 10) -> Errors:
    index = d.send(OffsetCommit(group, generation, member, topics=(
        CommitTopic("orders", (CommitPartition(0, offset),)),), version=version))
    response = d.answer(index)
    assert isinstance(response, OffsetCommitResponse)
    return response.topics[0].partitions[0].error


def fetched(d: Driver, group: str) -> int:
    response = d.answer(d.send(OffsetFetch(group, (FetchTopic("orders", (0,)),))))
    assert isinstance(response, OffsetFetchResponse)
    return response.topics[0].partitions[0].committed_offset


@pytest.mark.parametrize("layer", LAYERS)
def test_seed004_simple_commit_creates_an_empty_group(layer: str) -> None:
    """Rule 1 and 3: generation -1 into no group creates an Empty group and stores the offset."""
    d = Driver(layer)
    assert commit(d, "assign-mode") is Errors.NONE
    group = d.group("assign-mode")
    offsets = [o.committed_offset for o in group.offsets]
    assert (group.state, group.protocol_type, offsets) == ("Empty", None, [10])
    assert commit(d, "assign-mode", offset=11) is Errors.NONE
    assert fetched(d, "assign-mode") == 11


@pytest.mark.parametrize("layer", LAYERS)
def test_seed004_generation_into_no_group(layer: str) -> None:
    """Rule 2: a generation >= 0 for a group that does not exist is refused; no group is created.

    The seed's coordinator answered ILLEGAL_GENERATION; Kafka 4.x does so up to request v8 and
    answers GROUP_ID_NOT_FOUND from v9.
    """
    d = Driver(layer)
    assert commit(d, "gone", generation=3, member="m", version=8) is Errors.ILLEGAL_GENERATION
    assert commit(d, "gone", generation=3, member="m", version=9) is Errors.GROUP_ID_NOT_FOUND
    assert d.state("gone") == "Dead"


@pytest.mark.parametrize("layer", LAYERS)
def test_seed004_commits_against_an_active_group(layer: str) -> None:
    """Rules 4-7: an assign-mode commit into an active group, a stranger, a stale generation,
    a commit while assignments are being synced, and a good one (which also counts as a heartbeat)."""
    d = Driver(layer)
    c1, _ = d.new_member("g", "consumer-1")
    d.advance(DELAY)
    assert d.state("g") == "CompletingRebalance"
    # 4.x validates the member before the state: a known member of the right generation is
    # told REBALANCE_IN_PROGRESS; the seed checked AwaitingSync first.
    assert commit(d, "g", generation=1, member=c1) is Errors.REBALANCE_IN_PROGRESS
    assert commit(d, "g", generation=1, member="stranger") is Errors.UNKNOWN_MEMBER_ID
    sync(d, c1, 1, {c1: b"a"})
    assert d.state("g") == "Stable"
    assert commit(d, "g") is Errors.UNKNOWN_MEMBER_ID  # assign mode, group in use
    assert commit(d, "g", generation=1, member="stranger") is Errors.UNKNOWN_MEMBER_ID
    assert commit(d, "g", generation=0, member=c1) is Errors.ILLEGAL_GENERATION
    before = dict(d.group("g").timers)[f"heartbeat-g-{c1}"]
    d.advance(1_000)
    assert commit(d, "g", generation=1, member=c1, offset=42) is Errors.NONE
    assert dict(d.group("g").timers)[f"heartbeat-g-{c1}"] == before + 1_000
    assert fetched(d, "g") == 42
    # After everyone left, generation -1 commits are welcome again.
    leave_all(d, [c1])
    assert commit(d, "g", offset=43) is Errors.NONE
    assert fetched(d, "g") == 43


def test_layers_wrote_the_same_log() -> None:
    """The scenarios above are also a record check: both layers' logs are equal entry by entry."""
    drivers = [Driver(layer) for layer in LAYERS]
    for d in drivers:
        c1, c2, c3, *_ = _three_in_completing(d)
        sync(d, c1, 1, {c1: b"a", c2: b"b", c3: b"c"})
        commit(d, "g", generation=1, member=c2)
        leave_all(d, [c1, c2, c3])
    spec_log, impl_log = (d.log for d in drivers)
    assert spec_log == impl_log and len(spec_log) >= 4


def test_protocols_constant_is_a_consumer_subscription() -> None:
    from groupspec.impl.codec.consumer_protocol import decode_subscription

    subscription, version = decode_subscription(PROTOCOLS[0].metadata)
    assert (subscription.topics, version) == (("orders",), 0)


@pytest.mark.parametrize("layer", LAYERS)
def test_heartbeat_to_a_loading_coordinator_is_answered_none(layer: str) -> None:
    """GroupCoordinatorService#heartbeat answers NONE while the group's partition loads, so a
    member keeps heartbeating instead of rejoining; other requests get LOAD_IN_PROGRESS."""
    d = Driver(layer)
    c1, _ = d.new_member("g", "consumer-1")
    d.advance(DELAY)
    sync(d, c1, 1, {c1: b"all"})
    assert d.state("g") == "Stable"
    d.send(BeginLoad())
    assert d.view().groups == ()
    assert d.error(d.send(Heartbeat("g", 1, c1))) is Errors.NONE
    assert d.error(d.send(Heartbeat("g", 99, "stranger"))) is Errors.NONE
    assert d.error(d.send(SyncGroup("g", 1, c1, protocol_type="consumer", protocol_name="range"))) \
        is Errors.COORDINATOR_LOAD_IN_PROGRESS
    join = d.answers[d.rejoin("g", c1)]
    assert isinstance(join, JoinGroupResponse)
    assert (join.error, join.member_id) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, "")
    d.send(CompleteLoad())
    assert d.state("g") == "Stable"
    assert d.error(d.send(Heartbeat("g", 99, c1))) is Errors.ILLEGAL_GENERATION


# -- settled on Kafka 4.2.1's code by the three-way runs (tests/kafka/test_kafka_classic_threeway.py)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_marker_is_written_for_every_transaction_that_added_the_partition(layer: str) -> None:
    """CoordinatorRuntime appends the transaction's control record whatever is still pending:
    an OffsetDelete that took the producer's only pending offset, or a refused TxnOffsetCommit,
    does not keep its marker from being written. A producer that sent none gets none."""
    d = Driver(layer)
    d.send(TxnOffsetCommit("tx7", 7, 1, "t", topics=(CommitTopic("orders", (CommitPartition(0, 50),)),)))
    d.send(OffsetDelete("t", (FetchTopic("orders", (0,)),)))
    assert d.view().groups[0].pending_offsets == ()
    marker = d.send(TxnMarker(7, 1, commit=True))
    assert d.outputs[marker].records == (TxnEnd(7, 1, True, 0),)
    refused = d.send(TxnOffsetCommit("tx8", 8, 1, "nobody", generation_id=3, member_id="m",
                                     topics=(CommitTopic("orders", (CommitPartition(0, 5),)),)))
    assert isinstance(d.answer(refused), TxnOffsetCommitResponse)
    assert d.answer(refused).topics[0].partitions[0].error is Errors.ILLEGAL_GENERATION  # type: ignore[attr-defined]
    assert d.outputs[d.send(TxnMarker(8, 1, commit=False))].records == (TxnEnd(8, 1, False, 0),)
    assert d.outputs[d.send(TxnMarker(9, 1, commit=True))].records == ()
    assert d.outputs[d.send(TxnMarker(7, 1, commit=True))].records == ()  # its transaction ended


@pytest.mark.parametrize("layer", LAYERS)
def test_a_simple_group_no_record_made_is_unseen_until_its_partition_writes(layer: str) -> None:
    """The group a refused anonymous commit creates is in memory (the view, later writes) but
    DescribeGroups and ListGroups read at the partition's last record: they see it only once
    the partition ("unseen" and "other46" share partition 2) writes again."""
    d = Driver(layer)
    d.send(OffsetCommit("unseen", topics=(CommitTopic("orders", (CommitPartition(0, 1, -1, "x" * 4097),)),)))
    assert d.outputs[-1].records == ()
    assert d.state("unseen") == "Empty"

    def described() -> Errors:
        response = d.answer(d.send(DescribeGroups(("unseen",))))
        assert isinstance(response, DescribeGroupsResponse)
        return response.groups[0].error

    def listed() -> list[str]:
        response = d.answer(d.send(ListGroups()))
        assert isinstance(response, ListGroupsResponse)
        return [g.group_id for g in response.groups]

    assert described() is Errors.GROUP_ID_NOT_FOUND and "unseen" not in listed()
    assert d.error(d.send(Heartbeat("unseen", 1, "m"))) is Errors.UNKNOWN_MEMBER_ID
    assert commit(d, "nearby") is Errors.NONE  # partition 25
    assert described() is Errors.GROUP_ID_NOT_FOUND and "unseen" not in listed()
    assert commit(d, "other46") is Errors.NONE  # partition 2
    assert described() is Errors.NONE and "unseen" in listed()
    d.send(Restart())
    assert d.state("unseen") == "Dead"


@pytest.mark.parametrize("layer", LAYERS)
def test_a_static_join_naming_a_pending_member_is_answered_without_member_id(layer: str) -> None:
    """Kafka throws IllegalStateException; the service's answer to it carries the error alone."""
    d = Driver(layer)
    first = d.send(JoinGroup("g", client_id="a", protocols=PROTOCOLS, new_member_uuid="a-uuid"))
    pending = d.answer(first).member_id  # type: ignore[attr-defined]
    response = d.answer(d.send(JoinGroup("g", member_id=pending, group_instance_id="i1", client_id="a",
                                         protocols=PROTOCOLS)))
    assert isinstance(response, JoinGroupResponse)
    assert (response.error, response.member_id) == (Errors.UNKNOWN_SERVER_ERROR, "")


@pytest.mark.parametrize("layer", LAYERS)
def test_a_sync_in_the_first_rebalance_may_name_any_protocol(layer: str) -> None:
    """The group has no protocol name before its first generation: no name is inconsistent
    with it (GroupMetadataManager#isProtocolInconsistent needs both), so the member is told to
    wait for the rebalance."""
    d = Driver(layer)
    c1, _ = d.new_member("g", "consumer-1")
    assert d.state("g") == "PreparingRebalance"
    early = d.send(SyncGroup("g", 0, c1, protocol_type="consumer", protocol_name="roundrobin"))
    assert d.error(early) is Errors.REBALANCE_IN_PROGRESS
    other = d.send(SyncGroup("g", 0, c1, protocol_type="connect", protocol_name="range"))
    assert d.error(other) is Errors.INCONSISTENT_GROUP_PROTOCOL

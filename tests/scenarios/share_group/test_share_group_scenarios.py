"""The share group coordinator, scenario by scenario, on both layers (share_group_coordinator.md, §n).

Each test drives the spec (``groupspec.spec.share_group``) or the implementation
(``groupspec.impl.share_group``) with events and checks answers, the records written (by type
and content) and the view; a Restart at the end of most scenarios checks that the records alone
rebuild the same groups.
"""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord
from groupspec.types.records.metadata_hash import group_hash, topic_hash
from groupspec.types.share_group import (
    AdvanceClock,
    DeleteGroups,
    DeleteGroupsResponse,
    GroupResult,
    PersisterAnswer,
    Restart,
    SetGroupConfig,
    SetGroupConfigResponse,
    ShareGroupConfig,
    ShareGroupHeartbeat,
    ShareGroupHeartbeatResponse,
    TopicMetadata,
    TopicPartitions,
    UpdateMetadata,
)
from tests.scenarios.share_group.targets import LAYERS, Coordinator

T1 = TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 2)
T2 = TopicMetadata("t2", "00000000-0000-4000-8000-000000000002", 2)


def _parts(*pairs: tuple[TopicMetadata, tuple[int, ...]]) -> tuple[TopicPartitions, ...]:
    return tuple(sorted((TopicPartitions(t.topic_id, ps) for t, ps in pairs), key=lambda x: x.topic_id))


def _stable_view(c: Coordinator) -> object:
    """The view without what a restart legitimately resets: session deadlines and request stamps."""
    groups = []
    for g in c.full_view().groups:
        members = tuple(dataclasses.replace(m, session_deadline_ms=None) for m in g.members)
        initializing = tuple(dataclasses.replace(i, timestamp_ms=0) for i in g.initializing)
        groups.append(dataclasses.replace(g, members=members, initializing=initializing))
    return tuple(groups)


def _restart_rebuilds(c: Coordinator) -> None:
    before = _stable_view(c)
    c.send(Restart())
    assert _stable_view(c) == before
    assert c.full_view().pending_initialize == ()


# ---------------------------------------------------------------------------------------------
# Joining, and the first assignment (§1.3, §3)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_the_first_heartbeat_gets_an_empty_assignment_and_starts_initialization(layer: str) -> None:
    c = Coordinator(layer, T1)
    r = c.hb("m1", 0, ("t1",))
    assert r == ShareGroupHeartbeatResponse(Errors.NONE, "m1", 1, 5_000, ())
    assert c.wrote() == ["ShareGroupMemberMetadata", "ShareGroupMetadata", "ShareGroupTargetAssignmentMember",
                         "ShareGroupTargetAssignmentMetadata", "ShareGroupCurrentMemberAssignment",
                         "ShareGroupStatePartitionMetadata"]
    records = c.outputs[-1].records
    assert records[1].value.epoch == 1  # type: ignore[union-attr]
    assert records[1].value.metadata_hash == group_hash({"t1": topic_hash(T1.topic_id, "t1", 2)})  # type: ignore[union-attr]
    assert records[4].value.member_epoch == 1 and records[4].value.previous_member_epoch == 0  # type: ignore[union-attr]
    assert [(i.request, i.state_epoch, i.topics) for i in c.outputs[-1].initialize] == [
        (0, 1, _parts((T1, (0, 1))))]
    v = c.view()
    assert (v.state, v.group_epoch, v.assignment_epoch) == ("Stable", 1, 1)
    assert [(i.topic_name, i.partitions, i.timestamp_ms) for i in v.initializing] == [("t1", (0, 1), 0)]
    _restart_rebuilds(c)


@pytest.mark.parametrize("layer", LAYERS)
def test_partitions_arrive_one_epoch_after_initialization(layer: str) -> None:
    c = Coordinator(layer, T1, T2)
    c.hb("m1", 0, ("t1", "t2"))
    c.answer_all()
    assert c.wrote() == ["ShareGroupStatePartitionMetadata"]
    v = c.view()
    assert [i.topic_name for i in v.initialized] == ["t1", "t2"] and v.initializing == ()
    r = c.hb("m1", 1)  # §3.4: initialized partitions nobody holds bump the epoch
    assert r.member_epoch == 2 and r.assignment == _parts((T1, (0, 1)), (T2, (0, 1)))
    assert c.wrote() == ["ShareGroupMetadata", "ShareGroupTargetAssignmentMember",
                         "ShareGroupTargetAssignmentMetadata", "ShareGroupCurrentMemberAssignment"]
    r = c.hb("m1", 2)  # steady: nothing written, no assignment sent
    assert (r.member_epoch, r.assignment, c.wrote()) == (2, None, [])
    _restart_rebuilds(c)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_second_member_shares_the_partitions(layer: str) -> None:
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.answer_all()
    c.hb("m1", 1)
    r = c.hb("m2", 0, ("t1",))
    assert r.member_epoch == 3 and r.assignment == _parts((T1, (1,)))
    r = c.hb("m1", 2)
    assert r.member_epoch == 3 and r.assignment == _parts((T1, (0,)))
    assert c.view().members[0].target == _parts((T1, (0,)))
    _restart_rebuilds(c)


@pytest.mark.parametrize("layer", LAYERS)
def test_seed000_member_record_on_any_change_and_assignment_on_full_requests(layer: str) -> None:
    """docs/divergences.md, seed 000 vs 4.2 (share groups), rows 3 and 4."""
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.answer_all()
    c.hb("m1", 1)
    c.hb("m1", 2)
    # Another client host: a member record, but no new epoch (the subscription did not change).
    r = c.send(ShareGroupHeartbeat("g", "m1", 2, client_host="/10.0.0.2"))
    assert c.wrote() == ["ShareGroupMemberMetadata"] and r == ShareGroupHeartbeatResponse(
        Errors.NONE, "m1", 2, 5_000, None)
    # The same subscription sent again: nothing changes, but the assignment comes back.
    r = c.send(ShareGroupHeartbeat("g", "m1", 2, subscribed_topic_names=("t1",), client_host="/10.0.0.2"))
    assert c.wrote() == []
    assert r == ShareGroupHeartbeatResponse(Errors.NONE, "m1", 2, 5_000, _parts((T1, (0, 1))))


@pytest.mark.parametrize("layer", LAYERS)
def test_a_failed_initialization_is_retried_after_the_retry_interval(layer: str) -> None:
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.answer_all(Errors.UNKNOWN_SERVER_ERROR)
    assert c.view().initializing == () and c.view().initialized == ()
    c.send(AdvanceClock(10_000))
    c.hb("m1", 1)
    assert [i.topics for i in c.outputs[-1].initialize] == [_parts((T1, (0, 1)))]
    c.send(AdvanceClock(20_000))
    c.hb("m1", 1)  # requested 10 s ago: still covered
    assert c.outputs[-1].initialize == ()
    c.send(AdvanceClock(40_000))
    c.hb("m1", 1)  # 30 s later the request is stale: asked again
    assert len(c.outputs[-1].initialize) == 1


@pytest.mark.parametrize("layer", LAYERS)
def test_any_state_write_restarts_every_retry_clock(layer: str) -> None:
    """§2.3: replaying a ShareGroupStatePartitionMetadata record stamps every initializing entry
    with the current time, and Kafka replays what it writes: t1's retry clock restarts when t2's
    initialization lands."""
    c = Coordinator(layer, T1, T2)
    c.hb("m1", 0, ("t1",))
    c.send(AdvanceClock(20_000))
    c.hb("m1", 1, ("t1", "t2"))  # t2 is requested at 20 s; t1 is still initializing since 0 s
    assert [(i.topic_name, i.timestamp_ms) for i in c.view().initializing] == [("t1", 20_000), ("t2", 20_000)]
    c.send(PersisterAnswer(c.full_view().pending_initialize[-1], Errors.NONE))
    c.send(AdvanceClock(35_000))
    c.hb("m1", 2)  # 35 s after t1's request, but only 15 s after the last write: not asked again
    assert c.outputs[-1].initialize == ()
    c.send(AdvanceClock(50_000))
    c.hb("m1", 2)
    assert [i.topics for i in c.outputs[-1].initialize] == [_parts((T1, (0, 1)))]


# ---------------------------------------------------------------------------------------------
# Validation, in Kafka's order (§1.2)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("request_", "error"), [
    (ShareGroupHeartbeat("g", " ", 0, subscribed_topic_names=("t1",)), Errors.INVALID_REQUEST),
    (ShareGroupHeartbeat("", "m", 0, subscribed_topic_names=("t1",)), Errors.INVALID_REQUEST),
    (ShareGroupHeartbeat("g", "m", 0, rack_id=" ", subscribed_topic_names=("t1",)), Errors.INVALID_REQUEST),
    (ShareGroupHeartbeat("g", "m", 0), Errors.INVALID_REQUEST),
    (ShareGroupHeartbeat("g", "m", 0, subscribed_topic_names=()), Errors.INVALID_REQUEST),
    (ShareGroupHeartbeat("g", "m", -2), Errors.INVALID_REQUEST),
    (ShareGroupHeartbeat("other", "m", 1), Errors.GROUP_ID_NOT_FOUND),
    (ShareGroupHeartbeat("other", "m", -1), Errors.GROUP_ID_NOT_FOUND),
    (ShareGroupHeartbeat("g", "stranger", 1), Errors.UNKNOWN_MEMBER_ID),
    (ShareGroupHeartbeat("g", "stranger", -1), Errors.UNKNOWN_MEMBER_ID),
    (ShareGroupHeartbeat("g", "m1", 2), Errors.FENCED_MEMBER_EPOCH),
])
@pytest.mark.parametrize("layer", LAYERS)
def test_validation(layer: str, request_: ShareGroupHeartbeat, error: Errors) -> None:
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    before = c.full_view()
    r = c.send(request_)
    assert r == ShareGroupHeartbeatResponse(error)
    assert c.wrote() == [] and c.full_view() == before


@pytest.mark.parametrize("layer", LAYERS)
def test_epochs_a_lost_response_and_a_stale_member(layer: str) -> None:
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    assert c.hb("m1", 0, ("t1",)).member_epoch == 1  # the join is repeated
    c.answer_all()
    assert c.hb("m1", 1).member_epoch == 2
    assert c.hb("m1", 1).member_epoch == 2  # the response to epoch 1 was lost: accepted
    r = c.hb("m1", 0, ("t1",))  # KAFKA-19233: a rejoin, not fenced although previous is 1
    assert r == ShareGroupHeartbeatResponse(Errors.NONE, "m1", 2, 5_000, _parts((T1, (0, 1))))
    c.hb("m2", 0, ("t1",))
    assert c.view().group_epoch == 3
    assert c.hb("m1", 2).member_epoch == 3
    assert c.hb("m1", 1).error is Errors.FENCED_MEMBER_EPOCH  # two behind
    assert c.hb("m1", 4).error is Errors.FENCED_MEMBER_EPOCH  # ahead


@pytest.mark.parametrize("layer", LAYERS)
def test_a_fenced_member_rejoins_at_once_under_its_id(layer: str) -> None:
    """§1.2 with Kafka 4.2.1's KAFKA-19233: a member that missed two answers is fenced, and its
    rejoin with epoch 0 under the same id is accepted at once (no wait for its session to expire):
    it is the same member, it takes the target like any heartbeat, and nothing else moves."""
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.hb("m2", 0, ("t1",))
    assert c.hb("m1", 1).member_epoch == 2  # this answer is lost: the client stays at 1
    c.hb("m3", 0, ("t1",))
    c.send(AdvanceClock(1_000))
    assert c.hb("m1", 1).error is Errors.NONE  # epoch 1 is m1's previous epoch: accepted
    assert c.hb("m1", 1).error is Errors.FENCED_MEMBER_EPOCH  # now m1 is at 3, previous 2
    group_epoch = c.view().group_epoch
    r = c.hb("m1", 0, ("t1",))
    assert (r.error, r.member_epoch, r.assignment) == (Errors.NONE, 3, ())
    assert c.wrote() == []  # same member, same subscription: no record, no new group epoch
    assert c.view().group_epoch == group_epoch
    assert [m.member_id for m in c.view().members] == ["m1", "m2", "m3"]
    assert [(m.member_epoch, m.previous_member_epoch) for m in c.view().members[:1]] == [(3, 2)]
    c.send(AdvanceClock(45_500))  # m1's session counts from its rejoin at 1 s: m2 and m3 expire first
    assert [m.member_id for m in c.view().members] == ["m1"]
    _restart_rebuilds(c)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_rejoin_goes_on_as_a_full_heartbeat(layer: str) -> None:
    """A known member's epoch 0 after the check is an ordinary heartbeat with topics: a changed
    subscription or client id is recorded and bumps the group epoch (a new target), a member
    behind the target takes it (its old epoch becomes the previous one), and the answer always
    carries the assignment."""
    c = Coordinator(layer, T1, T2)
    c.hb("m1", 0, ("t1",))
    c.answer_all()
    assert c.hb("m1", 1).member_epoch == 2
    c.hb("m2", 0, ("t1",))
    c.answer_all()
    assert c.view().group_epoch == 3
    r = c.hb("m1", 0, ("t1", "t2"))  # m1 is at 2 (behind), and now subscribes to t2 as well
    assert r.error is Errors.NONE and r.member_epoch == 4
    # t2 is not initialized yet, so the new target leaves both members' targets as they were.
    assert c.wrote() == ["ShareGroupMemberMetadata", "ShareGroupMetadata",
                         "ShareGroupTargetAssignmentMetadata", "ShareGroupCurrentMemberAssignment",
                         "ShareGroupStatePartitionMetadata"]
    m1 = c.view().members[0]
    assert (m1.member_id, m1.member_epoch, m1.previous_member_epoch) == ("m1", 4, 2)
    assert r.assignment == m1.assigned == _parts((T1, (0,)))  # it held (0, 1) at epoch 2
    assert [(i.state_epoch, i.topics) for i in c.outputs[-1].initialize] == [(4, _parts((T2, (0, 1))))]
    assert c.hb("m1", 4).assignment is None  # steady again: nothing to send
    r = c.hb("m1", 0, ("t1", "t2"))  # the same rejoin again: nothing written, assignment re-sent
    assert (r.member_epoch, r.assignment, c.wrote()) == (4, m1.assigned, [])
    _restart_rebuilds(c)


@pytest.mark.parametrize("layer", LAYERS)
def test_the_group_size_limit_comes_before_the_member_lookup(layer: str) -> None:
    c = Coordinator(layer, T1, config=ShareGroupConfig(max_size=1))
    c.hb("m1", 0, ("t1",))
    assert c.hb("m2", 0, ("t1",)).error is Errors.GROUP_MAX_SIZE_REACHED
    assert c.hb("m2", 5).error is Errors.GROUP_MAX_SIZE_REACHED  # not UNKNOWN_MEMBER_ID
    assert c.hb("m1", 1).error is Errors.NONE


# ---------------------------------------------------------------------------------------------
# Leaving and timing out (§1.6, §1.7)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_leaving_bumps_the_epoch_without_a_new_target(layer: str) -> None:
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.hb("m2", 0, ("t1",))
    r = c.hb("m1", -1)
    assert r == ShareGroupHeartbeatResponse(Errors.NONE, "m1", -1, 0, None)
    assert c.wrote() == ["-ShareGroupCurrentMemberAssignment", "-ShareGroupTargetAssignmentMember",
                         "-ShareGroupMemberMetadata", "ShareGroupMetadata"]
    v = c.view()
    assert (v.group_epoch, v.assignment_epoch, [m.member_id for m in v.members]) == (3, 2, ["m2"])
    _restart_rebuilds(c)
    c.hb("m2", -1)
    assert (c.view().state, c.view().group_epoch) == ("Empty", 4)


@pytest.mark.parametrize("layer", LAYERS)
def test_the_session_expires_on_the_clock(layer: str) -> None:
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.send(AdvanceClock(30_000))
    c.hb("m2", 0, ("t1",))
    c.send(AdvanceClock(44_999))
    assert c.wrote() == []
    c.send(AdvanceClock(45_000))
    assert c.wrote() == ["-ShareGroupCurrentMemberAssignment", "-ShareGroupTargetAssignmentMember",
                         "-ShareGroupMemberMetadata", "ShareGroupMetadata"]
    assert [m.member_id for m in c.view().members] == ["m2"]
    c.send(Restart())  # every member gets a fresh, full session
    assert c.view().members[0].session_deadline_ms == 45_000 + 45_000


@pytest.mark.parametrize("layer", LAYERS)
def test_a_failover_rearms_sessions_in_join_order(layer: str) -> None:
    """docs/divergences.md, share_group_orders: sessions a failover re-arms together end together
    and expire in join order (Kafka's member map puts m2 before m1 here)."""
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.hb("m2", 0, ("t1",))
    c.send(Restart())
    assert [m.session_deadline_ms for m in c.view().members] == [45_000, 45_000]
    c.send(AdvanceClock(50_000))
    expired = [r.key.member_id for r in c.outputs[-1].records  # type: ignore[attr-defined]
               if type(r.key).__name__ == "ShareGroupMemberMetadataKey"]
    assert expired == ["m1", "m2"]
    assert (c.view().state, c.view().group_epoch) == ("Empty", 4)


@pytest.mark.parametrize("layer", LAYERS)
def test_group_configs_set_the_interval_and_the_session(layer: str) -> None:
    c = Coordinator(layer, T1)
    ok = SetGroupConfig("g", session_timeout_ms=50_000, heartbeat_interval_ms=8_000)
    assert c.send(ok) == SetGroupConfigResponse(Errors.NONE)
    refused = SetGroupConfigResponse(Errors.INVALID_CONFIG)
    assert c.send(SetGroupConfig("g", session_timeout_ms=40_000)) == refused  # below the minimum
    assert c.send(SetGroupConfig("g", heartbeat_interval_ms=16_000)) == refused  # above the maximum
    assert c.send(SetGroupConfig("g", session_timeout_ms=45_000, heartbeat_interval_ms=15_000)) == \
        SetGroupConfigResponse(Errors.NONE)
    c.send(ok)
    r = c.hb("m1", 0, ("t1",))
    assert r.heartbeat_interval_ms == 8_000 and c.view().members[0].session_deadline_ms == 50_000


# ---------------------------------------------------------------------------------------------
# Metadata, topics and deletion (§1.8, §1.9, §3.5)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_added_partitions_take_two_epochs(layer: str) -> None:
    c = Coordinator(layer, T1, T2)
    c.hb("m1", 0, ("t1", "t2"))
    c.answer_all()
    c.hb("m1", 1)
    grown = dataclasses.replace(T1, partitions=4)
    c.send(UpdateMetadata((grown, T2)))
    r = c.hb("m1", 2)  # the hash changed: a new epoch, the new partitions start initializing
    assert r.member_epoch == 3 and r.assignment is None
    v = c.view()
    assert [(i.topic_name, i.partitions) for i in v.initializing] == [("t1", (2, 3))]
    assert [(i.topic_name, i.partitions) for i in v.initialized] == [("t1", (0, 1)), ("t2", (0, 1))]
    c.answer_all()
    r = c.hb("m1", 3)
    assert r.member_epoch == 4 and r.assignment == _parts((grown, (0, 1, 2, 3)), (T2, (0, 1)))
    _restart_rebuilds(c)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_deleted_topic_leaves_the_state_metadata(layer: str) -> None:
    c = Coordinator(layer, T1, T2)
    c.hb("m1", 0, ("t1", "t2"))
    c.answer_all()
    c.send(UpdateMetadata((T1,)))
    assert c.wrote() == ["ShareGroupStatePartitionMetadata"]
    assert [i.topic_name for i in c.view().initialized] == ["t1"]
    c.hb("m1", 1)
    assert c.view().members[0].assigned == _parts((T1, (0, 1)))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("recreated", [False, True])
def test_an_answer_after_its_topic_went(layer: str, recreated: bool) -> None:
    """§3.5 and Kafka 4.2.1's GroupMetadataManager#uninitializeShareGroupState: t1 goes (deleted,
    or recreated under a new id) while its initialize request is unanswered; a refusal then finds
    nothing initializing and writes nothing, where a success records the old id as initialized
    under <UNKNOWN>."""
    again = dataclasses.replace(T1, topic_id="00000000-0000-4000-8000-000000000011")
    for error in (Errors.UNKNOWN_SERVER_ERROR, Errors.NONE):
        c = Coordinator(layer, T1)
        c.hb("m1", 0, ("t1",))
        c.send(UpdateMetadata((again,) if recreated else ()))
        assert c.view().initializing == ()
        c.answer_all(error)
        if error != Errors.NONE:
            assert c.wrote() == []
            assert c.view().initialized == ()
        else:
            assert c.wrote() == ["ShareGroupStatePartitionMetadata"]
            assert [(i.topic_id, i.topic_name, i.partitions) for i in c.view().initialized] == [
                (T1.topic_id, "<UNKNOWN>", (0, 1))]
        r = c.hb("m1", 1)
        assert r.member_epoch == 2 and c.view().members[0].assigned == ()
        asked = [t.topic_id for i in c.outputs[-1].initialize for t in i.topics]
        assert asked == ([again.topic_id] if recreated else [])
        _restart_rebuilds(c)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_refusal_with_nothing_initializing_writes_nothing(layer: str) -> None:
    """A second request for t1 (the first went unanswered for the retry interval) is refused
    after the first one's success emptied initializing: no record, t1 stays initialized."""
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.send(AdvanceClock(30_000))
    c.hb("m1", 1)
    first, second = c.full_view().pending_initialize
    c.send(PersisterAnswer(first, Errors.NONE))
    c.send(PersisterAnswer(second, Errors.UNKNOWN_SERVER_ERROR))
    assert c.wrote() == []
    assert [(i.topic_name, i.partitions) for i in c.view().initialized] == [("t1", (0, 1))]
    assert c.hb("m1", 1).assignment == _parts((T1, (0, 1)))


@pytest.mark.parametrize("layer", LAYERS)
def test_delete_groups(layer: str) -> None:
    c = Coordinator(layer, T1)
    c.hb("m1", 0, ("t1",))
    c.answer_all()
    assert c.send(DeleteGroups(("g", "nope"))) == DeleteGroupsResponse(
        (GroupResult("g", Errors.NON_EMPTY_GROUP), GroupResult("nope", Errors.GROUP_ID_NOT_FOUND)))
    c.hb("m1", -1)
    assert c.send(DeleteGroups(("g",))) == DeleteGroupsResponse((GroupResult("g", Errors.NONE),))
    assert c.wrote() == ["ShareGroupStatePartitionMetadata", "-ShareGroupTargetAssignmentMetadata",
                         "-ShareGroupStatePartitionMetadata", "-ShareGroupMetadata"]
    assert c.outputs[-1].records[0].value.deleting_topics[0].topic_name == "t1"  # type: ignore[union-attr]
    assert c.full_view().groups == ()
    c.send(Restart())
    assert c.full_view().groups == ()


# ---------------------------------------------------------------------------------------------
# The metadata hash (Utils#computeTopicHash, #computeGroupHash)
# ---------------------------------------------------------------------------------------------


def test_the_metadata_hash_reacts_to_what_it_should() -> None:
    base = topic_hash(T1.topic_id, "t1", 2)
    assert topic_hash(T1.topic_id, "t1", 3) != base
    assert topic_hash(T2.topic_id, "t1", 2) != base
    racks = topic_hash(T1.topic_id, "t1", 2, (("a", "b"), ()))
    assert racks == topic_hash(T1.topic_id, "t1", 2, (("b", "a"), ()))
    assert topic_hash(T1.topic_id, "t1", 2, (("a",), ())) != base
    assert -(2**63) <= base < 2**63
    assert group_hash({}) == 0
    assert group_hash({"b": 1, "a": 2}) == group_hash({"a": 2, "b": 1}) != group_hash({"a": 1, "b": 2})
    assert str(uuid.UUID(T1.topic_id)) == T1.topic_id


@pytest.mark.parametrize("layer", LAYERS)
def test_every_record_written_survives_kafkas_byte_format(layer: str) -> None:
    from groupspec.impl.codec.records import decode_record, encode_record
    from groupspec.types.records import OFFSETS_TOPIC

    c = Coordinator(layer, T1, T2)
    c.hb("m1", 0, ("t1", "t2"), rack_id="r1")
    c.answer_all()
    c.hb("m1", 1)
    c.hb("m1", -1)
    c.send(DeleteGroups(("g",)))
    assert len(c.log) > 10
    for record in c.log:
        assert isinstance(record, CoordinatorRecord)
        key, value = encode_record(record)
        assert decode_record(OFFSETS_TOPIC, key, value) == record

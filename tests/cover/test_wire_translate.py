"""The translation between the machines' events and groupspec.wire's classes (groupspec.wire.translate)."""

from __future__ import annotations

import uuid

import pytest

from groupspec.impl.codec.messages import decode_all, encode
from groupspec.types import classic_group as cg
from groupspec.types import share_group as sg
from groupspec.types.errors import Errors
from groupspec.wire import BadResponseError, RequestEncodeError
from groupspec.wire import messages as w
from groupspec.wire.translate import from_wire, to_wire


def test_join_group_carries_the_body_and_the_events_version() -> None:
    event = cg.JoinGroup(
        "g",
        "",
        "static-1",
        10_000,
        20_000,
        "consumer",
        (cg.Protocol("range", b"\x01"),),
        client_id="ignored-here",
        reason="why",
        version=8,
    )
    request, version = to_wire(event)
    assert version == 8
    assert request == w.JoinGroupRequest(
        "g",
        10_000,
        20_000,
        "",
        "static-1",
        "consumer",
        (w.JoinGroupRequest.JoinGroupRequestProtocol("range", b"\x01"),),
        "why",
    )
    assert decode_all(w.JoinGroupRequest, encode(request, 8), 8) == request


def test_leave_group_v0_to_2_carry_one_member_only() -> None:
    one = cg.LeaveGroup("g", (cg.MemberIdentity("m-1"),), version=2)
    assert to_wire(one) == (w.LeaveGroupRequest(group_id="g", member_id="m-1"), 2)
    many = cg.LeaveGroup("g", (cg.MemberIdentity("m-1"), cg.MemberIdentity("m-2", "i-2", "bye")), version=5)
    request, _ = to_wire(many)
    assert [(m.member_id, m.group_instance_id, m.reason) for m in request.members] == [
        ("m-1", None, None),
        ("m-2", "i-2", "bye"),
    ]
    with pytest.raises(RequestEncodeError, match="LeaveGroup v1: v0-2 carry exactly one member"):
        to_wire(cg.LeaveGroup("g", many.members, version=1))


def test_offset_fetch_uses_the_groups_array_from_v8() -> None:
    event = cg.OffsetFetch("g", (cg.FetchTopic("t", (0, 1)),), require_stable=True)
    old, _ = to_wire(event, 7)
    assert old.group_id == "g" and old.topics[0].partition_indexes == (0, 1) and old.require_stable
    new, _ = to_wire(event, 9)
    assert new.groups[0].group_id == "g" and new.groups[0].topics[0].partition_indexes == (0, 1)
    everything, _ = to_wire(cg.OffsetFetch("g"), 9)
    assert everything.groups[0].topics is None


def test_share_group_heartbeat_both_ways() -> None:
    request, version = to_wire(sg.ShareGroupHeartbeat("g", "m", 0, subscribed_topic_names=("t",)))
    assert version is None and request.subscribed_topic_names == ("t",) and request.member_epoch == 0
    tid = uuid.uuid4()
    wire = w.ShareGroupHeartbeatResponse(
        member_id="m",
        member_epoch=3,
        heartbeat_interval_ms=5000,
        assignment=w.ShareGroupHeartbeatResponse.Assignment(
            (w.ShareGroupHeartbeatResponse.TopicPartitions(tid, (0, 2)),)
        ),
    )
    assert from_wire(wire, 1) == sg.ShareGroupHeartbeatResponse(
        Errors.NONE, "m", 3, 5000, (sg.TopicPartitions(str(tid), (0, 2)),)
    )


def test_responses_become_machine_responses_with_error_enums() -> None:
    join = w.JoinGroupResponse(error_code=79, member_id="m-1", protocol_name=None)
    assert from_wire(join, 9) == cg.JoinGroupResponse(Errors.MEMBER_ID_REQUIRED, member_id="m-1")
    fetched = w.OffsetFetchResponse(
        groups=(
            w.OffsetFetchResponse.OffsetFetchResponseGroup(
                group_id="g",
                topics=(
                    w.OffsetFetchResponse.OffsetFetchResponseGroup.OffsetFetchResponseTopics(
                        name="t",
                        partitions=(
                            w.OffsetFetchResponse.OffsetFetchResponseGroup.OffsetFetchResponseTopics.OffsetFetchResponsePartitions(
                                partition_index=0, committed_offset=5
                            ),
                        ),
                    ),
                ),
            ),
        )
    )
    assert from_wire(fetched, 9) == cg.OffsetFetchResponse(
        Errors.NONE, (cg.FetchedTopic("t", (cg.FetchedPartition(0, 5, -1, "", Errors.NONE),)),)
    )


def test_an_unknown_error_code_is_a_bad_response() -> None:
    with pytest.raises(BadResponseError, match="Heartbeat v4: error code 9999 is not one groupspec knows"):
        from_wire(w.HeartbeatResponse(error_code=9999), 4)


def test_events_without_a_wire_form_are_refused() -> None:
    with pytest.raises(TypeError, match="AdvanceClock has no wire form"):
        to_wire(cg.AdvanceClock(5))  # type: ignore[arg-type]


def test_offset_commit_v10_sends_topic_ids_in_either_spelling() -> None:
    tid = uuid.UUID("ee96ae04-013c-af61-8738-c446f158ffcd")
    for spelling in (str(tid), "7pauBAE8r2GHOMRG8Vj_zQ"):
        event = cg.OffsetCommit(
            "g", 1, "m", topics=(cg.CommitTopic("t", (cg.CommitPartition(0, 5),), spelling),), version=10
        )
        request, version = to_wire(event)
        assert version == 10 and request.topics[0].topic_id == tid and request.topics[0].name == ""
    named, _ = to_wire(
        cg.OffsetCommit("g", topics=(cg.CommitTopic("t", (cg.CommitPartition(0, 5),)),), version=9)
    )
    assert named.topics[0].name == "t" and named.topics[0].partitions[0].committed_offset == 5

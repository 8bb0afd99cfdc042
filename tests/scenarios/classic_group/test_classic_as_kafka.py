"""Rules where groupspec was shown wrong by Kafka 4.2.1's own shard (issue 18), on both layers.

Each test is the behaviour Kafka's GroupCoordinatorShard showed through the adapter
(tests/kafka/test_kafka_classic_group.py), which the spec and the implementation now follow.
"""

from __future__ import annotations

import pytest

from groupspec.types import InputError
from groupspec.types.classic_group import (
    BeginLoad,
    CommitPartition,
    CommitTopic,
    CompleteLoad,
    JoinGroup,
    JoinGroupResponse,
    LeaveGroup,
    LeaveGroupResponse,
    MemberIdentity,
    MemberLeaveResult,
    OffsetCommit,
    OffsetCommitResponse,
    Protocol,
    Restart,
    TxnOffsetCommit,
    TxnOffsetCommitResponse,
)
from groupspec.types.errors import Errors
from tests.scenarios.classic_group.targets import LAYERS, Driver
from tests.scenarios.classic_group.test_classic_group_scenarios import DELAY, sync

ORDERS_0 = (CommitTopic("orders", (CommitPartition(0, 5),)),)


def _stable_group(d: Driver) -> str:
    c1, _ = d.new_member("g", "consumer-1")
    d.advance(DELAY)
    sync(d, c1, 1, {c1: b"all"})
    assert d.state("g") == "Stable"
    return c1


def _txn(d: Driver, generation: int, member: str = "", instance: str | None = None,
         producer: int = 7) -> Errors:
    response = d.answer(d.send(TxnOffsetCommit("tx", producer, 0, "g", generation, member, instance,
                                               ORDERS_0)))
    assert isinstance(response, TxnOffsetCommitResponse)
    return response.topics[0].partitions[0].error


def _plain(d: Driver, generation: int, member: str = "") -> Errors:
    response = d.answer(d.send(OffsetCommit("g", generation, member, topics=ORDERS_0)))
    assert isinstance(response, OffsetCommitResponse)
    return response.topics[0].partitions[0].error


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("generation", [-1, -2, -2_147_483_648])
def test_anonymous_transactional_commit_any_negative_generation(layer: str, generation: int) -> None:
    """ClassicGroup#validateOffsetCommit: without member and instance id, a negative generation
    is refused (UNKNOWN_MEMBER_ID) in a group in use only when the commit is not transactional."""
    d = Driver(layer)
    c1 = _stable_group(d)
    assert _plain(d, generation) is Errors.UNKNOWN_MEMBER_ID
    assert _txn(d, generation) is Errors.NONE
    assert [p.producer_id for p in d.group("g").pending_offsets] == [7]
    # Any identity makes the generation count, negative or not.
    assert _txn(d, generation, member=c1, producer=8) is Errors.ILLEGAL_GENERATION
    assert _txn(d, generation, instance="i", producer=8) is Errors.UNKNOWN_MEMBER_ID
    assert _txn(d, 1, member=c1, producer=8) is Errors.NONE


@pytest.mark.parametrize("layer", LAYERS)
def test_group_of_offsets_alone_is_loaded_with_the_time_of_the_load(layer: str) -> None:
    """OffsetMetadataManager#replay creates a group no GroupMetadata record made as a new
    ClassicGroup, whose state timestamp is the clock at replay: the time of the load, not of
    the commit; a group with a record keeps the record's timestamp."""
    d = Driver(layer, start_ms=1_000)
    assert _plain(d, -1) is Errors.NONE
    assert d.group("g").state_timestamp_ms == 1_000
    d.new_member("h", "consumer-1")               # h's creation record: Empty at 1 s
    d.advance(DELAY)                              # h: CompletingRebalance at 4 s, no record since
    d.advance(1_000)
    d.send(Restart())
    assert (d.group("g").state, d.group("g").state_timestamp_ms) == ("Empty", 5_000)
    assert (d.group("h").state, d.group("h").state_timestamp_ms) == ("Empty", 1_000)
    d.send(BeginLoad())
    d.advance(2_000)
    d.send(CompleteLoad())
    assert d.group("g").state_timestamp_ms == 7_000


def _join(d: Driver, version: int, member: str = "", protocol: str = "range", group: str = "g") -> int:
    return d.send(JoinGroup(group, member_id=member, client_id="c", protocols=(Protocol(protocol, b"\x00"),),
                            version=version, new_member_uuid="u"))


@pytest.mark.parametrize("layer", LAYERS)
def test_join_answer_protocol_name_in_the_requests_version(layer: str) -> None:
    """JoinGroupResponse(data, version): ProtocolName is nullable from v7 only, so an answer
    without a protocol (an error) carries "" below v7 and null from v7, and a selected protocol
    named "" is sent null from v7. The form is the request's, also for a parked join answered
    later."""
    d = Driver(layer)
    required = d.answer(_join(d, 4))
    assert isinstance(required, JoinGroupResponse)
    assert (required.error, required.protocol_name) == (Errors.MEMBER_ID_REQUIRED, "")
    assert d.answer(_join(d, 7, group="h")).protocol_name is None  # type: ignore[attr-defined]
    member = required.member_id
    parked = _join(d, 6, member)
    d.advance(DELAY)
    answered = d.answer(parked)
    assert isinstance(answered, JoinGroupResponse)
    assert (answered.error, answered.protocol_name) == (Errors.NONE, "range")
    unknown = d.answer(_join(d, 6, "stranger"))
    assert (unknown.error, unknown.protocol_name) == (Errors.UNKNOWN_MEMBER_ID, "")  # type: ignore[attr-defined]
    # A v5 join parked in the initial delay, answered by the failover; a protocol named "".
    rejoin = _join(d, 5, d.answer(_join(d, 5, group="p")).member_id, group="p")  # type: ignore[attr-defined]
    d.send(Restart())
    lost = d.answer(rejoin)
    assert (lost.error, lost.protocol_name) == (Errors.NOT_COORDINATOR, "")  # type: ignore[attr-defined]
    for version, sent in ((7, None), (6, "")):
        group = f"empty-name-v{version}"
        first = d.answer(_join(d, version, protocol="", group=group))
        join = _join(d, version, first.member_id, protocol="", group=group)  # type: ignore[attr-defined]
        d.advance(DELAY)
        answer = d.answer(join)
        assert (answer.error, answer.protocol_name) == (Errors.NONE, sent)  # type: ignore[attr-defined]


def test_a_replaced_parked_join_keeps_no_version() -> None:
    """A JoinGroup that replaces a member's parked one leaves the first unanswered for good
    (ClassicGroup#updateMember drops its future): the implementation forgets its version, as
    the spec's invariant requires of its state."""
    d = Driver("impl")
    member = d.answer(_join(d, 6)).member_id  # type: ignore[attr-defined]
    first = _join(d, 6, member)
    second = _join(d, 8, member)
    d.advance(DELAY)
    assert first not in d.answers and d.error(second) is Errors.NONE
    assert d._impl._join_versions == {}


@pytest.mark.parametrize("layer", LAYERS)
def test_leave_below_v3_answers_one_error(layer: str) -> None:
    """LeaveGroupResponse(data, version): below v3 no member list, the error is the request's
    or else its one member's; a v0-2 request names one member by member id alone."""
    d = Driver(layer)
    c1 = _stable_group(d)
    for version in (0, 1, 2):
        for group, member in (("g", "ghost"), ("nope", c1)):
            answer = d.answer(d.send(LeaveGroup(group, (MemberIdentity(member),), version=version)))
            assert answer == LeaveGroupResponse(Errors.UNKNOWN_MEMBER_ID)
    at3 = d.answer(d.send(LeaveGroup("g", (MemberIdentity("ghost"),), version=3)))
    ghost = MemberLeaveResult("ghost", None, Errors.UNKNOWN_MEMBER_ID)
    assert at3 == LeaveGroupResponse(Errors.NONE, (ghost,))
    left = d.answer(d.send(LeaveGroup("g", (MemberIdentity(c1),), version=2)))
    assert left == LeaveGroupResponse(Errors.NONE)
    assert d.state("g") == "Empty"
    for members in ((), (MemberIdentity("x"), MemberIdentity("y")), (MemberIdentity("x", "i"),)):
        with pytest.raises(InputError, match="members"):
            d.send(LeaveGroup("g", members, version=2))

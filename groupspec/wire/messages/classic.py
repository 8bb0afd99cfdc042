"""The classic group protocol: FindCoordinator (10), JoinGroup (11), Heartbeat (12), LeaveGroup (13),
SyncGroup (14), DescribeGroups (15), ListGroups (16) and DeleteGroups (42)."""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("FindCoordinatorRequest", "request", 10, "0-6", "3+")
@dataclass(frozen=True, slots=True)
class FindCoordinatorRequest:
    key: str = kfield("string", "0-3")
    key_type: int = kfield("int8", "1+", default=0)
    coordinator_keys: tuple[str, ...] = kfield("[]string", "4+")


@message("FindCoordinatorResponse", "response", 10, "0-6", "3+")
@dataclass(frozen=True, slots=True)
class FindCoordinatorResponse:
    @dataclass(frozen=True, slots=True)
    class Coordinator:
        key: str = kfield("string", "4+")
        node_id: int = kfield("int32", "4+")
        host: str = kfield("string", "4+")
        port: int = kfield("int32", "4+")
        error_code: int = kfield("int16", "4+")
        error_message: str | None = kfield("string", "4+", nullable="4+", ignorable=True)

    throttle_time_ms: int = kfield("int32", "1+", ignorable=True)
    error_code: int = kfield("int16", "0-3")
    error_message: str | None = kfield("string", "1-3", nullable="1-3", ignorable=True)
    node_id: int = kfield("int32", "0-3")
    host: str = kfield("string", "0-3")
    port: int = kfield("int32", "0-3")
    coordinators: tuple[Coordinator, ...] = kfield("[]struct", "4+", struct=Coordinator)


@message("JoinGroupRequest", "request", 11, "0-9", "6+")
@dataclass(frozen=True, slots=True)
class JoinGroupRequest:
    @dataclass(frozen=True, slots=True)
    class JoinGroupRequestProtocol:
        name: str = kfield("string", "0+")
        metadata: bytes = kfield("bytes", "0+")

    group_id: str = kfield("string", "0+")
    session_timeout_ms: int = kfield("int32", "0+")
    rebalance_timeout_ms: int = kfield("int32", "1+", default=-1, ignorable=True)
    member_id: str = kfield("string", "0+")
    group_instance_id: str | None = kfield("string", "5+", default=None, nullable="5+")
    protocol_type: str = kfield("string", "0+")
    protocols: tuple[JoinGroupRequestProtocol, ...] = kfield(
        "[]struct", "0+", struct=JoinGroupRequestProtocol
    )
    reason: str | None = kfield("string", "8+", default=None, nullable="8+", ignorable=True)


@message("JoinGroupResponse", "response", 11, "0-9", "6+")
@dataclass(frozen=True, slots=True)
class JoinGroupResponse:
    @dataclass(frozen=True, slots=True)
    class JoinGroupResponseMember:
        member_id: str = kfield("string", "0+")
        group_instance_id: str | None = kfield("string", "5+", default=None, nullable="5+", ignorable=True)
        metadata: bytes = kfield("bytes", "0+")

    throttle_time_ms: int = kfield("int32", "2+", ignorable=True)
    error_code: int = kfield("int16", "0+")
    generation_id: int = kfield("int32", "0+", default=-1)
    protocol_type: str | None = kfield("string", "7+", default=None, nullable="7+", ignorable=True)
    protocol_name: str | None = kfield("string", "0+", nullable="7+")
    leader: str = kfield("string", "0+")
    skip_assignment: bool = kfield("bool", "9+", default=False)
    member_id: str = kfield("string", "0+")
    members: tuple[JoinGroupResponseMember, ...] = kfield("[]struct", "0+", struct=JoinGroupResponseMember)


@message("HeartbeatRequest", "request", 12, "0-4", "4+")
@dataclass(frozen=True, slots=True)
class HeartbeatRequest:
    group_id: str = kfield("string", "0+")
    generation_id: int = kfield("int32", "0+")
    member_id: str = kfield("string", "0+")
    group_instance_id: str | None = kfield("string", "3+", default=None, nullable="3+")


@message("HeartbeatResponse", "response", 12, "0-4", "4+")
@dataclass(frozen=True, slots=True)
class HeartbeatResponse:
    throttle_time_ms: int = kfield("int32", "1+", ignorable=True)
    error_code: int = kfield("int16", "0+")


@message("LeaveGroupRequest", "request", 13, "0-5", "4+")
@dataclass(frozen=True, slots=True)
class LeaveGroupRequest:
    @dataclass(frozen=True, slots=True)
    class MemberIdentity:
        member_id: str = kfield("string", "3+")
        group_instance_id: str | None = kfield("string", "3+", default=None, nullable="3+")
        reason: str | None = kfield("string", "5+", default=None, nullable="5+", ignorable=True)

    group_id: str = kfield("string", "0+")
    member_id: str = kfield("string", "0-2")
    members: tuple[MemberIdentity, ...] = kfield("[]struct", "3+", struct=MemberIdentity)


@message("LeaveGroupResponse", "response", 13, "0-5", "4+")
@dataclass(frozen=True, slots=True)
class LeaveGroupResponse:
    @dataclass(frozen=True, slots=True)
    class MemberResponse:
        member_id: str = kfield("string", "3+")
        group_instance_id: str | None = kfield("string", "3+", nullable="3+")
        error_code: int = kfield("int16", "3+")

    throttle_time_ms: int = kfield("int32", "1+", ignorable=True)
    error_code: int = kfield("int16", "0+")
    members: tuple[MemberResponse, ...] = kfield("[]struct", "3+", struct=MemberResponse)


@message("SyncGroupRequest", "request", 14, "0-5", "4+")
@dataclass(frozen=True, slots=True)
class SyncGroupRequest:
    @dataclass(frozen=True, slots=True)
    class SyncGroupRequestAssignment:
        member_id: str = kfield("string", "0+")
        assignment: bytes = kfield("bytes", "0+")

    group_id: str = kfield("string", "0+")
    generation_id: int = kfield("int32", "0+")
    member_id: str = kfield("string", "0+")
    group_instance_id: str | None = kfield("string", "3+", default=None, nullable="3+")
    protocol_type: str | None = kfield("string", "5+", default=None, nullable="5+", ignorable=True)
    protocol_name: str | None = kfield("string", "5+", default=None, nullable="5+", ignorable=True)
    assignments: tuple[SyncGroupRequestAssignment, ...] = kfield(
        "[]struct", "0+", struct=SyncGroupRequestAssignment
    )


@message("SyncGroupResponse", "response", 14, "0-5", "4+")
@dataclass(frozen=True, slots=True)
class SyncGroupResponse:
    throttle_time_ms: int = kfield("int32", "1+", ignorable=True)
    error_code: int = kfield("int16", "0+")
    protocol_type: str | None = kfield("string", "5+", default=None, nullable="5+", ignorable=True)
    protocol_name: str | None = kfield("string", "5+", default=None, nullable="5+", ignorable=True)
    assignment: bytes = kfield("bytes", "0+")


@message("DescribeGroupsRequest", "request", 15, "0-6", "5+")
@dataclass(frozen=True, slots=True)
class DescribeGroupsRequest:
    groups: tuple[str, ...] = kfield("[]string", "0+")
    include_authorized_operations: bool = kfield("bool", "3+")


@message("DescribeGroupsResponse", "response", 15, "0-6", "5+")
@dataclass(frozen=True, slots=True)
class DescribeGroupsResponse:
    @dataclass(frozen=True, slots=True)
    class DescribedGroup:
        @dataclass(frozen=True, slots=True)
        class DescribedGroupMember:
            member_id: str = kfield("string", "0+")
            group_instance_id: str | None = kfield(
                "string", "4+", default=None, nullable="4+", ignorable=True
            )
            client_id: str = kfield("string", "0+")
            client_host: str = kfield("string", "0+")
            member_metadata: bytes = kfield("bytes", "0+")
            member_assignment: bytes = kfield("bytes", "0+")

        error_code: int = kfield("int16", "0+")
        error_message: str | None = kfield("string", "6+", default=None, nullable="6+")
        group_id: str = kfield("string", "0+")
        group_state: str = kfield("string", "0+")
        protocol_type: str = kfield("string", "0+")
        protocol_data: str = kfield("string", "0+")
        members: tuple[DescribedGroupMember, ...] = kfield("[]struct", "0+", struct=DescribedGroupMember)
        authorized_operations: int = kfield("int32", "3+", default=-2147483648)

    throttle_time_ms: int = kfield("int32", "1+", ignorable=True)
    groups: tuple[DescribedGroup, ...] = kfield("[]struct", "0+", struct=DescribedGroup)


@message("ListGroupsRequest", "request", 16, "0-5", "3+")
@dataclass(frozen=True, slots=True)
class ListGroupsRequest:
    states_filter: tuple[str, ...] = kfield("[]string", "4+")
    types_filter: tuple[str, ...] = kfield("[]string", "5+")


@message("ListGroupsResponse", "response", 16, "0-5", "3+")
@dataclass(frozen=True, slots=True)
class ListGroupsResponse:
    @dataclass(frozen=True, slots=True)
    class ListedGroup:
        group_id: str = kfield("string", "0+")
        protocol_type: str = kfield("string", "0+")
        group_state: str = kfield("string", "4+", ignorable=True)
        group_type: str = kfield("string", "5+", ignorable=True)

    throttle_time_ms: int = kfield("int32", "1+", ignorable=True)
    error_code: int = kfield("int16", "0+")
    groups: tuple[ListedGroup, ...] = kfield("[]struct", "0+", struct=ListedGroup)


@message("DeleteGroupsRequest", "request", 42, "0-2", "2+")
@dataclass(frozen=True, slots=True)
class DeleteGroupsRequest:
    groups_names: tuple[str, ...] = kfield("[]string", "0+")


@message("DeleteGroupsResponse", "response", 42, "0-2", "2+")
@dataclass(frozen=True, slots=True)
class DeleteGroupsResponse:
    @dataclass(frozen=True, slots=True)
    class DeletableGroupResult:
        group_id: str = kfield("string", "0+")
        error_code: int = kfield("int16", "0+")

    throttle_time_ms: int = kfield("int32", "0+")
    results: tuple[DeletableGroupResult, ...] = kfield("[]struct", "0+", struct=DeletableGroupResult)

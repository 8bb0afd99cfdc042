"""KIP-848 consumer groups: ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69)."""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message
from groupspec.wire.messages import common


@message("ConsumerGroupHeartbeatRequest", "request", 68, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupHeartbeatRequest:
    TopicPartitions = common.TopicPartitions

    group_id: str = kfield("string", "0+")
    member_id: str = kfield("string", "0+")
    member_epoch: int = kfield("int32", "0+")
    instance_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    rack_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    rebalance_timeout_ms: int = kfield("int32", "0+", default=-1)
    subscribed_topic_names: tuple[str, ...] | None = kfield("[]string", "0+", default=None, nullable="0+")
    subscribed_topic_regex: str | None = kfield("string", "1+", default=None, nullable="1+")
    server_assignor: str | None = kfield("string", "0+", default=None, nullable="0+")
    topic_partitions: tuple[common.TopicPartitions, ...] | None = kfield(
        "[]struct", "0+", default=None, nullable="0+", struct=common.TopicPartitions
    )


@message("ConsumerGroupHeartbeatResponse", "response", 68, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupHeartbeatResponse:
    TopicPartitions = common.TopicPartitions
    Assignment = common.Assignment

    throttle_time_ms: int = kfield("int32", "0+")
    error_code: int = kfield("int16", "0+")
    error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
    member_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    member_epoch: int = kfield("int32", "0+")
    heartbeat_interval_ms: int = kfield("int32", "0+")
    assignment: common.Assignment | None = kfield(
        "struct", "0+", default=None, nullable="0+", struct=common.Assignment
    )


@message("ConsumerGroupDescribeRequest", "request", 69, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupDescribeRequest:
    group_ids: tuple[str, ...] = kfield("[]string", "0+")
    include_authorized_operations: bool = kfield("bool", "0+")


@message("ConsumerGroupDescribeResponse", "response", 69, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupDescribeResponse:
    """What the coordinator holds of a KIP-848 group: the epochs and each member's current and
    target assignment (the admin clients show less; groupspec's real-log tests need it all)."""

    TopicPartitions = common.DescribedTopicPartitions
    Assignment = common.DescribedAssignment

    @dataclass(frozen=True, slots=True)
    class DescribedGroup:
        @dataclass(frozen=True, slots=True)
        class Member:
            member_id: str = kfield("string", "0+")
            instance_id: str | None = kfield("string", "0+", default=None, nullable="0+")
            rack_id: str | None = kfield("string", "0+", default=None, nullable="0+")
            member_epoch: int = kfield("int32", "0+")
            client_id: str = kfield("string", "0+")
            client_host: str = kfield("string", "0+")
            subscribed_topic_names: tuple[str, ...] = kfield("[]string", "0+")
            subscribed_topic_regex: str | None = kfield("string", "0+", default=None, nullable="0+")
            assignment: common.DescribedAssignment = kfield("struct", "0+", struct=common.DescribedAssignment)
            target_assignment: common.DescribedAssignment = kfield(
                "struct", "0+", struct=common.DescribedAssignment
            )
            member_type: int = kfield("int8", "1+", default=-1, ignorable=True)

        error_code: int = kfield("int16", "0+")
        error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
        group_id: str = kfield("string", "0+")
        group_state: str = kfield("string", "0+")
        group_epoch: int = kfield("int32", "0+")
        assignment_epoch: int = kfield("int32", "0+")
        assignor_name: str = kfield("string", "0+")
        members: tuple[Member, ...] = kfield("[]struct", "0+", struct=Member)
        authorized_operations: int = kfield("int32", "0+", default=-2147483648)

    throttle_time_ms: int = kfield("int32", "0+")
    groups: tuple[DescribedGroup, ...] = kfield("[]struct", "0+", struct=DescribedGroup)

"""KIP-848 consumer groups: ConsumerGroupHeartbeat (68) and ConsumerGroupDescribe (69)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("ConsumerGroupHeartbeatRequest", "request", 68, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupHeartbeatRequest:
    @dataclass(frozen=True, slots=True)
    class TopicPartitions:
        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[int, ...] = kfield("[]int32", "0+")

    group_id: str = kfield("string", "0+")
    member_id: str = kfield("string", "0+")
    member_epoch: int = kfield("int32", "0+")
    instance_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    rack_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    rebalance_timeout_ms: int = kfield("int32", "0+", default=-1)
    subscribed_topic_names: tuple[str, ...] | None = kfield("[]string", "0+", default=None, nullable="0+")
    subscribed_topic_regex: str | None = kfield("string", "1+", default=None, nullable="1+")
    server_assignor: str | None = kfield("string", "0+", default=None, nullable="0+")
    topic_partitions: tuple[TopicPartitions, ...] | None = kfield(
        "[]struct", "0+", default=None, nullable="0+", struct=TopicPartitions
    )


@dataclass(frozen=True, slots=True)
class ConsumerGroupHeartbeatResponseTopicPartitions:
    topic_id: uuid.UUID = kfield("uuid", "0+")
    partitions: tuple[int, ...] = kfield("[]int32", "0+")


@message("ConsumerGroupHeartbeatResponse", "response", 68, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupHeartbeatResponse:
    TopicPartitions = ConsumerGroupHeartbeatResponseTopicPartitions

    @dataclass(frozen=True, slots=True)
    class Assignment:
        topic_partitions: tuple[ConsumerGroupHeartbeatResponseTopicPartitions, ...] = kfield(
            "[]struct", "0+", struct=ConsumerGroupHeartbeatResponseTopicPartitions
        )

    throttle_time_ms: int = kfield("int32", "0+")
    error_code: int = kfield("int16", "0+")
    error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
    member_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    member_epoch: int = kfield("int32", "0+")
    heartbeat_interval_ms: int = kfield("int32", "0+")
    assignment: Assignment | None = kfield("struct", "0+", default=None, nullable="0+", struct=Assignment)


@message("ConsumerGroupDescribeRequest", "request", 69, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupDescribeRequest:
    group_ids: tuple[str, ...] = kfield("[]string", "0+")
    include_authorized_operations: bool = kfield("bool", "0+")


@dataclass(frozen=True, slots=True)
class ConsumerGroupDescribeResponseTopicPartitions:
    topic_id: uuid.UUID = kfield("uuid", "0+")
    topic_name: str = kfield("string", "0+")
    partitions: tuple[int, ...] = kfield("[]int32", "0+")


@dataclass(frozen=True, slots=True)
class ConsumerGroupDescribeResponseAssignment:
    topic_partitions: tuple[ConsumerGroupDescribeResponseTopicPartitions, ...] = kfield(
        "[]struct", "0+", struct=ConsumerGroupDescribeResponseTopicPartitions
    )


@message("ConsumerGroupDescribeResponse", "response", 69, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupDescribeResponse:
    """What the coordinator holds of a KIP-848 group: the epochs and each member's current and
    target assignment (the admin clients show less; groupspec's real-log tests need it all)."""

    TopicPartitions = ConsumerGroupDescribeResponseTopicPartitions
    Assignment = ConsumerGroupDescribeResponseAssignment

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
            assignment: ConsumerGroupDescribeResponseAssignment = kfield(
                "struct", "0+", struct=ConsumerGroupDescribeResponseAssignment
            )
            target_assignment: ConsumerGroupDescribeResponseAssignment = kfield(
                "struct", "0+", struct=ConsumerGroupDescribeResponseAssignment
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

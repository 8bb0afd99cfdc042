"""KIP-932 share groups: ShareGroupHeartbeat (76), ShareGroupDescribe (77), ShareFetch (78),
ShareAcknowledge (79), DescribeShareGroupOffsets (90)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message
from groupspec.wire.messages import common


@message("ShareGroupHeartbeatRequest", "request", 76, "1", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupHeartbeatRequest:
    group_id: str = kfield("string", "0+")
    member_id: str = kfield("string", "0+")
    member_epoch: int = kfield("int32", "0+")
    rack_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    subscribed_topic_names: tuple[str, ...] | None = kfield("[]string", "0+", default=None, nullable="0+")


@message("ShareGroupHeartbeatResponse", "response", 76, "1", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupHeartbeatResponse:
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


@message("ShareGroupDescribeRequest", "request", 77, "1", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupDescribeRequest:
    group_ids: tuple[str, ...] = kfield("[]string", "0+")
    include_authorized_operations: bool = kfield("bool", "0+")


@message("ShareGroupDescribeResponse", "response", 77, "1", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupDescribeResponse:
    TopicPartitions = common.DescribedTopicPartitions
    Assignment = common.DescribedAssignment

    @dataclass(frozen=True, slots=True)
    class DescribedGroup:
        @dataclass(frozen=True, slots=True)
        class Member:
            member_id: str = kfield("string", "0+")
            rack_id: str | None = kfield("string", "0+", default=None, nullable="0+")
            member_epoch: int = kfield("int32", "0+")
            client_id: str = kfield("string", "0+")
            client_host: str = kfield("string", "0+")
            subscribed_topic_names: tuple[str, ...] = kfield("[]string", "0+")
            assignment: common.DescribedAssignment = kfield("struct", "0+", struct=common.DescribedAssignment)

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


@message("ShareFetchRequest", "request", 78, "1-2", "0+")
@dataclass(frozen=True, slots=True)
class ShareFetchRequest:
    @dataclass(frozen=True, slots=True)
    class FetchTopic:
        @dataclass(frozen=True, slots=True)
        class FetchPartition:
            AcknowledgementBatch = common.AcknowledgementBatch

            partition_index: int = kfield("int32", "0+")
            partition_max_bytes: int = kfield("int32", "0")
            acknowledgement_batches: tuple[common.AcknowledgementBatch, ...] = kfield(
                "[]struct", "0+", struct=common.AcknowledgementBatch
            )

        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[FetchPartition, ...] = kfield("[]struct", "0+", struct=FetchPartition)

    ForgottenTopic = common.TopicPartitions

    group_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    member_id: str | None = kfield("string", "0+", nullable="0+")
    share_session_epoch: int = kfield("int32", "0+")
    max_wait_ms: int = kfield("int32", "0+")
    min_bytes: int = kfield("int32", "0+")
    max_bytes: int = kfield("int32", "0+", default=2147483647)
    max_records: int = kfield("int32", "1+")
    batch_size: int = kfield("int32", "1+")
    share_acquire_mode: int = kfield("int8", "2+", default=0, ignorable=True)
    is_renew_ack: bool = kfield("bool", "2+", default=False)
    topics: tuple[FetchTopic, ...] = kfield("[]struct", "0+", struct=FetchTopic)
    forgotten_topics_data: tuple[common.TopicPartitions, ...] = kfield(
        "[]struct", "0+", struct=common.TopicPartitions
    )


@message("ShareFetchResponse", "response", 78, "1-2", "0+")
@dataclass(frozen=True, slots=True)
class ShareFetchResponse:
    @dataclass(frozen=True, slots=True)
    class ShareFetchableTopicResponse:
        @dataclass(frozen=True, slots=True)
        class PartitionData:
            LeaderIdAndEpoch = common.LeaderIdAndEpoch

            @dataclass(frozen=True, slots=True)
            class AcquiredRecords:
                first_offset: int = kfield("int64", "0+")
                last_offset: int = kfield("int64", "0+")
                delivery_count: int = kfield("int16", "0+")

            partition_index: int = kfield("int32", "0+")
            error_code: int = kfield("int16", "0+")
            error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
            acknowledge_error_code: int = kfield("int16", "0+")
            acknowledge_error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
            current_leader: common.LeaderIdAndEpoch = kfield("struct", "0+", struct=common.LeaderIdAndEpoch)
            records: bytes | None = kfield("bytes", "0+", nullable="0")
            acquired_records: tuple[AcquiredRecords, ...] = kfield("[]struct", "0+", struct=AcquiredRecords)

        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[PartitionData, ...] = kfield("[]struct", "0+", struct=PartitionData)

    NodeEndpoint = common.NodeEndpoint

    throttle_time_ms: int = kfield("int32", "0+")
    error_code: int = kfield("int16", "0+")
    error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
    acquisition_lock_timeout_ms: int = kfield("int32", "1+")
    responses: tuple[ShareFetchableTopicResponse, ...] = kfield(
        "[]struct", "0+", struct=ShareFetchableTopicResponse
    )
    node_endpoints: tuple[common.NodeEndpoint, ...] = kfield("[]struct", "0+", struct=common.NodeEndpoint)


@message("ShareAcknowledgeRequest", "request", 79, "1-2", "0+")
@dataclass(frozen=True, slots=True)
class ShareAcknowledgeRequest:
    @dataclass(frozen=True, slots=True)
    class AcknowledgeTopic:
        @dataclass(frozen=True, slots=True)
        class AcknowledgePartition:
            AcknowledgementBatch = common.AcknowledgementBatch

            partition_index: int = kfield("int32", "0+")
            acknowledgement_batches: tuple[common.AcknowledgementBatch, ...] = kfield(
                "[]struct", "0+", struct=common.AcknowledgementBatch
            )

        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[AcknowledgePartition, ...] = kfield("[]struct", "0+", struct=AcknowledgePartition)

    group_id: str | None = kfield("string", "0+", default=None, nullable="0+")
    member_id: str | None = kfield("string", "0+", nullable="0+")
    share_session_epoch: int = kfield("int32", "0+")
    is_renew_ack: bool = kfield("bool", "2+", default=False)
    topics: tuple[AcknowledgeTopic, ...] = kfield("[]struct", "0+", struct=AcknowledgeTopic)


@message("ShareAcknowledgeResponse", "response", 79, "1-2", "0+")
@dataclass(frozen=True, slots=True)
class ShareAcknowledgeResponse:
    @dataclass(frozen=True, slots=True)
    class ShareAcknowledgeTopicResponse:
        @dataclass(frozen=True, slots=True)
        class PartitionData:
            LeaderIdAndEpoch = common.LeaderIdAndEpoch

            partition_index: int = kfield("int32", "0+")
            error_code: int = kfield("int16", "0+")
            error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
            current_leader: common.LeaderIdAndEpoch = kfield("struct", "0+", struct=common.LeaderIdAndEpoch)

        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[PartitionData, ...] = kfield("[]struct", "0+", struct=PartitionData)

    NodeEndpoint = common.NodeEndpoint

    throttle_time_ms: int = kfield("int32", "0+")
    error_code: int = kfield("int16", "0+")
    error_message: str | None = kfield("string", "0+", default=None, nullable="0+")
    acquisition_lock_timeout_ms: int = kfield("int32", "2+", ignorable=True)
    responses: tuple[ShareAcknowledgeTopicResponse, ...] = kfield(
        "[]struct", "0+", struct=ShareAcknowledgeTopicResponse
    )
    node_endpoints: tuple[common.NodeEndpoint, ...] = kfield("[]struct", "0+", struct=common.NodeEndpoint)


@message("DescribeShareGroupOffsetsRequest", "request", 90, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class DescribeShareGroupOffsetsRequest:
    @dataclass(frozen=True, slots=True)
    class Group:
        @dataclass(frozen=True, slots=True)
        class Topic:
            topic_name: str = kfield("string", "0+")
            partitions: tuple[int, ...] = kfield("[]int32", "0+")

        group_id: str = kfield("string", "0+")
        #: None asks for every topic-partition the group has state for (Kafka's default is empty).
        topics: tuple[Topic, ...] | None = kfield("[]struct", "0+", default=(), nullable="0+", struct=Topic)

    groups: tuple[Group, ...] = kfield("[]struct", "0+", struct=Group)


@message("DescribeShareGroupOffsetsResponse", "response", 90, "0-1", "0+")
@dataclass(frozen=True, slots=True)
class DescribeShareGroupOffsetsResponse:
    """Each share-partition's start offset as the share coordinator persisted it (what
    ``kafka-share-groups.sh --describe`` prints), the lag from version 1 (KIP-1226)."""

    @dataclass(frozen=True, slots=True)
    class Group:
        @dataclass(frozen=True, slots=True)
        class Topic:
            @dataclass(frozen=True, slots=True)
            class Partition:
                partition_index: int = kfield("int32", "0+")
                start_offset: int = kfield("int64", "0+")
                leader_epoch: int = kfield("int32", "0+")
                lag: int = kfield("int64", "1+", default=-1, ignorable=True)
                error_code: int = kfield("int16", "0+")
                error_message: str | None = kfield("string", "0+", default=None, nullable="0+")

            topic_name: str = kfield("string", "0+")
            topic_id: uuid.UUID = kfield("uuid", "0+")
            partitions: tuple[Partition, ...] = kfield("[]struct", "0+", struct=Partition)

        group_id: str = kfield("string", "0+")
        topics: tuple[Topic, ...] = kfield("[]struct", "0+", struct=Topic)
        error_code: int = kfield("int16", "0+")
        error_message: str | None = kfield("string", "0+", default=None, nullable="0+")

    throttle_time_ms: int = kfield("int32", "0+")
    groups: tuple[Group, ...] = kfield("[]struct", "0+", struct=Group)

"""Committed offsets: OffsetCommit (8), OffsetFetch (9) and OffsetDelete (47)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message
from groupspec.wire.messages import common


@message("OffsetCommitRequest", "request", 8, "2-10", "8+")
@dataclass(frozen=True, slots=True)
class OffsetCommitRequest:
    @dataclass(frozen=True, slots=True)
    class OffsetCommitRequestTopic:
        @dataclass(frozen=True, slots=True)
        class OffsetCommitRequestPartition:
            partition_index: int = kfield("int32", "0+")
            committed_offset: int = kfield("int64", "0+")
            committed_leader_epoch: int = kfield("int32", "6+", default=-1, ignorable=True)
            committed_metadata: str | None = kfield("string", "0+", nullable="0+")

        name: str = kfield("string", "0-9", ignorable=True)
        topic_id: uuid.UUID = kfield("uuid", "10+", ignorable=True)
        partitions: tuple[OffsetCommitRequestPartition, ...] = kfield(
            "[]struct", "0+", struct=OffsetCommitRequestPartition
        )

    group_id: str = kfield("string", "0+")
    generation_id_or_member_epoch: int = kfield("int32", "1+", default=-1, ignorable=True)
    member_id: str = kfield("string", "1+", ignorable=True)
    group_instance_id: str | None = kfield("string", "7+", default=None, nullable="7+")
    retention_time_ms: int = kfield("int64", "2-4", default=-1, ignorable=True)
    topics: tuple[OffsetCommitRequestTopic, ...] = kfield("[]struct", "0+", struct=OffsetCommitRequestTopic)


@message("OffsetCommitResponse", "response", 8, "2-10", "8+")
@dataclass(frozen=True, slots=True)
class OffsetCommitResponse:
    @dataclass(frozen=True, slots=True)
    class OffsetCommitResponseTopic:
        OffsetCommitResponsePartition = common.PartitionError

        name: str = kfield("string", "0-9", ignorable=True)
        topic_id: uuid.UUID = kfield("uuid", "10+", ignorable=True)
        partitions: tuple[common.PartitionError, ...] = kfield("[]struct", "0+", struct=common.PartitionError)

    throttle_time_ms: int = kfield("int32", "3+", ignorable=True)
    topics: tuple[OffsetCommitResponseTopic, ...] = kfield("[]struct", "0+", struct=OffsetCommitResponseTopic)


@message("OffsetFetchRequest", "request", 9, "1-10", "6+")
@dataclass(frozen=True, slots=True)
class OffsetFetchRequest:
    @dataclass(frozen=True, slots=True)
    class OffsetFetchRequestTopic:
        name: str = kfield("string", "0-7")
        partition_indexes: tuple[int, ...] = kfield("[]int32", "0-7")

    @dataclass(frozen=True, slots=True)
    class OffsetFetchRequestGroup:
        @dataclass(frozen=True, slots=True)
        class OffsetFetchRequestTopics:
            name: str = kfield("string", "8-9", ignorable=True)
            topic_id: uuid.UUID = kfield("uuid", "10+", ignorable=True)
            partition_indexes: tuple[int, ...] = kfield("[]int32", "8+")

        group_id: str = kfield("string", "8+")
        member_id: str | None = kfield("string", "9+", default=None, nullable="9+", ignorable=True)
        member_epoch: int = kfield("int32", "9+", default=-1, ignorable=True)
        topics: tuple[OffsetFetchRequestTopics, ...] | None = kfield(
            "[]struct", "8+", nullable="8+", struct=OffsetFetchRequestTopics
        )

    group_id: str = kfield("string", "0-7")
    topics: tuple[OffsetFetchRequestTopic, ...] | None = kfield(
        "[]struct", "0-7", nullable="2-7", struct=OffsetFetchRequestTopic
    )
    groups: tuple[OffsetFetchRequestGroup, ...] = kfield("[]struct", "8+", struct=OffsetFetchRequestGroup)
    require_stable: bool = kfield("bool", "7+", default=False)


@message("OffsetFetchResponse", "response", 9, "1-10", "6+")
@dataclass(frozen=True, slots=True)
class OffsetFetchResponse:
    @dataclass(frozen=True, slots=True)
    class OffsetFetchResponseTopic:
        @dataclass(frozen=True, slots=True)
        class OffsetFetchResponsePartition:
            partition_index: int = kfield("int32", "0-7")
            committed_offset: int = kfield("int64", "0-7")
            committed_leader_epoch: int = kfield("int32", "5-7", default=-1, ignorable=True)
            metadata: str | None = kfield("string", "0-7", nullable="0-7")
            error_code: int = kfield("int16", "0-7")

        name: str = kfield("string", "0-7")
        partitions: tuple[OffsetFetchResponsePartition, ...] = kfield(
            "[]struct", "0-7", struct=OffsetFetchResponsePartition
        )

    @dataclass(frozen=True, slots=True)
    class OffsetFetchResponseGroup:
        @dataclass(frozen=True, slots=True)
        class OffsetFetchResponseTopics:
            @dataclass(frozen=True, slots=True)
            class OffsetFetchResponsePartitions:
                partition_index: int = kfield("int32", "8+")
                committed_offset: int = kfield("int64", "8+")
                committed_leader_epoch: int = kfield("int32", "8+", default=-1, ignorable=True)
                metadata: str | None = kfield("string", "8+", nullable="8+")
                error_code: int = kfield("int16", "8+")

            name: str = kfield("string", "8-9", ignorable=True)
            topic_id: uuid.UUID = kfield("uuid", "10+", ignorable=True)
            partitions: tuple[OffsetFetchResponsePartitions, ...] = kfield(
                "[]struct", "8+", struct=OffsetFetchResponsePartitions
            )

        group_id: str = kfield("string", "8+")
        topics: tuple[OffsetFetchResponseTopics, ...] = kfield(
            "[]struct", "8+", struct=OffsetFetchResponseTopics
        )
        error_code: int = kfield("int16", "8+", default=0)

    throttle_time_ms: int = kfield("int32", "3+", ignorable=True)
    topics: tuple[OffsetFetchResponseTopic, ...] = kfield("[]struct", "0-7", struct=OffsetFetchResponseTopic)
    error_code: int = kfield("int16", "2-7", default=0, ignorable=True)
    groups: tuple[OffsetFetchResponseGroup, ...] = kfield("[]struct", "8+", struct=OffsetFetchResponseGroup)


@message("OffsetDeleteRequest", "request", 47, "0", "none")
@dataclass(frozen=True, slots=True)
class OffsetDeleteRequest:
    @dataclass(frozen=True, slots=True)
    class OffsetDeleteRequestTopic:
        @dataclass(frozen=True, slots=True)
        class OffsetDeleteRequestPartition:
            partition_index: int = kfield("int32", "0+")

        name: str = kfield("string", "0+")
        partitions: tuple[OffsetDeleteRequestPartition, ...] = kfield(
            "[]struct", "0+", struct=OffsetDeleteRequestPartition
        )

    group_id: str = kfield("string", "0+")
    topics: tuple[OffsetDeleteRequestTopic, ...] = kfield("[]struct", "0+", struct=OffsetDeleteRequestTopic)


@message("OffsetDeleteResponse", "response", 47, "0", "none")
@dataclass(frozen=True, slots=True)
class OffsetDeleteResponse:
    OffsetDeleteResponseTopic = common.TopicPartitionErrors

    error_code: int = kfield("int16", "0+")
    throttle_time_ms: int = kfield("int32", "0+", ignorable=True)
    topics: tuple[common.TopicPartitionErrors, ...] = kfield(
        "[]struct", "0+", struct=common.TopicPartitionErrors
    )

"""What a test needs to set a cluster up: Metadata (3) and CreateTopics (19)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("MetadataRequest", "request", 3, "0-13", "9+")
@dataclass(frozen=True, slots=True)
class MetadataRequest:
    @dataclass(frozen=True, slots=True)
    class MetadataRequestTopic:
        topic_id: uuid.UUID = kfield("uuid", "10+", ignorable=True)
        name: str | None = kfield("string", "0+", nullable="10+")

    topics: tuple[MetadataRequestTopic, ...] | None = kfield(
        "[]struct", "0+", nullable="1+", struct=MetadataRequestTopic
    )
    allow_auto_topic_creation: bool = kfield("bool", "4+", default=True)
    include_cluster_authorized_operations: bool = kfield("bool", "8-10")
    include_topic_authorized_operations: bool = kfield("bool", "8+")


@message("MetadataResponse", "response", 3, "0-13", "9+")
@dataclass(frozen=True, slots=True)
class MetadataResponse:
    @dataclass(frozen=True, slots=True)
    class MetadataResponseBroker:
        node_id: int = kfield("int32", "0+")
        host: str = kfield("string", "0+")
        port: int = kfield("int32", "0+")
        rack: str | None = kfield("string", "1+", default=None, nullable="1+", ignorable=True)

    @dataclass(frozen=True, slots=True)
    class MetadataResponseTopic:
        @dataclass(frozen=True, slots=True)
        class MetadataResponsePartition:
            error_code: int = kfield("int16", "0+")
            partition_index: int = kfield("int32", "0+")
            leader_id: int = kfield("int32", "0+")
            leader_epoch: int = kfield("int32", "7+", default=-1, ignorable=True)
            replica_nodes: tuple[int, ...] = kfield("[]int32", "0+")
            isr_nodes: tuple[int, ...] = kfield("[]int32", "0+")
            offline_replicas: tuple[int, ...] = kfield("[]int32", "5+", ignorable=True)

        error_code: int = kfield("int16", "0+")
        name: str | None = kfield("string", "0+", nullable="12+")
        topic_id: uuid.UUID = kfield("uuid", "10+", ignorable=True)
        is_internal: bool = kfield("bool", "1+", default=False, ignorable=True)
        partitions: tuple[MetadataResponsePartition, ...] = kfield(
            "[]struct", "0+", struct=MetadataResponsePartition
        )
        topic_authorized_operations: int = kfield("int32", "8+", default=-2147483648)

    throttle_time_ms: int = kfield("int32", "3+", ignorable=True)
    brokers: tuple[MetadataResponseBroker, ...] = kfield("[]struct", "0+", struct=MetadataResponseBroker)
    cluster_id: str | None = kfield("string", "2+", default=None, nullable="2+", ignorable=True)
    controller_id: int = kfield("int32", "1+", default=-1, ignorable=True)
    topics: tuple[MetadataResponseTopic, ...] = kfield("[]struct", "0+", struct=MetadataResponseTopic)
    cluster_authorized_operations: int = kfield("int32", "8-10", default=-2147483648)
    error_code: int = kfield("int16", "13+", ignorable=True)


@message("CreateTopicsRequest", "request", 19, "2-7", "5+")
@dataclass(frozen=True, slots=True)
class CreateTopicsRequest:
    @dataclass(frozen=True, slots=True)
    class CreatableTopic:
        @dataclass(frozen=True, slots=True)
        class CreatableReplicaAssignment:
            partition_index: int = kfield("int32", "0+")
            broker_ids: tuple[int, ...] = kfield("[]int32", "0+")

        @dataclass(frozen=True, slots=True)
        class CreatableTopicConfig:
            name: str = kfield("string", "0+")
            value: str | None = kfield("string", "0+", nullable="0+")

        name: str = kfield("string", "0+")
        num_partitions: int = kfield("int32", "0+")
        replication_factor: int = kfield("int16", "0+")
        assignments: tuple[CreatableReplicaAssignment, ...] = kfield(
            "[]struct", "0+", struct=CreatableReplicaAssignment
        )
        configs: tuple[CreatableTopicConfig, ...] = kfield("[]struct", "0+", struct=CreatableTopicConfig)

    topics: tuple[CreatableTopic, ...] = kfield("[]struct", "0+", struct=CreatableTopic)
    timeout_ms: int = kfield("int32", "0+", default=60000)
    validate_only: bool = kfield("bool", "1+", default=False)


@message("CreateTopicsResponse", "response", 19, "2-7", "5+")
@dataclass(frozen=True, slots=True)
class CreateTopicsResponse:
    @dataclass(frozen=True, slots=True)
    class CreatableTopicResult:
        @dataclass(frozen=True, slots=True)
        class CreatableTopicConfigs:
            name: str = kfield("string", "5+")
            value: str | None = kfield("string", "5+", nullable="5+")
            read_only: bool = kfield("bool", "5+")
            config_source: int = kfield("int8", "5+", default=-1, ignorable=True)
            is_sensitive: bool = kfield("bool", "5+")

        name: str = kfield("string", "0+")
        topic_id: uuid.UUID = kfield("uuid", "7+", ignorable=True)
        error_code: int = kfield("int16", "0+")
        error_message: str | None = kfield("string", "1+", nullable="0+", ignorable=True)
        topic_config_error_code: int = kfield("int16", "5+", tag=0, tagged="5+", ignorable=True)
        num_partitions: int = kfield("int32", "5+", default=-1, ignorable=True)
        replication_factor: int = kfield("int16", "5+", default=-1, ignorable=True)
        configs: tuple[CreatableTopicConfigs, ...] | None = kfield(
            "[]struct", "5+", nullable="5+", ignorable=True, struct=CreatableTopicConfigs
        )

    throttle_time_ms: int = kfield("int32", "2+", ignorable=True)
    topics: tuple[CreatableTopicResult, ...] = kfield("[]struct", "0+", struct=CreatableTopicResult)

"""KIP-848 consumer groups: ConsumerGroupHeartbeat (68)."""

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

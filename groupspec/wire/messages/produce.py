"""Produce (0): how the live-broker target puts a share_partition vector's records on a topic.

Versions 3-13 are what a Kafka 4.2 broker accepts (4.0 removed 0-2); 9+ are flexible and 13
names topics by id instead of by name. ``records`` holds the bytes of v2 record batches written
by ``groupspec.impl.codec.batch.encode_batch``: this module never looks inside them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("ProduceRequest", "request", 0, "3-13", "9+")
@dataclass(frozen=True, slots=True)
class ProduceRequest:
    @dataclass(frozen=True, slots=True)
    class TopicProduceData:
        @dataclass(frozen=True, slots=True)
        class PartitionProduceData:
            index: int = kfield("int32", "0+")
            records: bytes | None = kfield("bytes", "0+", nullable="0+")

        name: str = kfield("string", "0-12", ignorable=True)
        topic_id: uuid.UUID = kfield("uuid", "13+", ignorable=True)
        partition_data: tuple[PartitionProduceData, ...] = kfield(
            "[]struct", "0+", struct=PartitionProduceData
        )

    transactional_id: str | None = kfield("string", "3+", default=None, nullable="3+")
    acks: int = kfield("int16", "0+")
    timeout_ms: int = kfield("int32", "0+")
    topic_data: tuple[TopicProduceData, ...] = kfield("[]struct", "0+", struct=TopicProduceData)


@message("ProduceResponse", "response", 0, "3-13", "9+")
@dataclass(frozen=True, slots=True)
class ProduceResponse:
    @dataclass(frozen=True, slots=True)
    class TopicProduceResponse:
        @dataclass(frozen=True, slots=True)
        class PartitionProduceResponse:
            @dataclass(frozen=True, slots=True)
            class BatchIndexAndErrorMessage:
                batch_index: int = kfield("int32", "8+")
                batch_index_error_message: str | None = kfield("string", "8+", default=None, nullable="8+")

            @dataclass(frozen=True, slots=True)
            class LeaderIdAndEpoch:
                leader_id: int = kfield("int32", "10+", default=-1)
                leader_epoch: int = kfield("int32", "10+", default=-1)

            index: int = kfield("int32", "0+")
            error_code: int = kfield("int16", "0+")
            base_offset: int = kfield("int64", "0+")
            log_append_time_ms: int = kfield("int64", "2+", default=-1, ignorable=True)
            log_start_offset: int = kfield("int64", "5+", default=-1, ignorable=True)
            record_errors: tuple[BatchIndexAndErrorMessage, ...] = kfield(
                "[]struct", "8+", ignorable=True, struct=BatchIndexAndErrorMessage
            )
            error_message: str | None = kfield("string", "8+", default=None, nullable="8+", ignorable=True)
            current_leader: LeaderIdAndEpoch = kfield(
                "struct", "10+", tag=0, tagged="10+", struct=LeaderIdAndEpoch
            )

        name: str = kfield("string", "0-12", ignorable=True)
        topic_id: uuid.UUID = kfield("uuid", "13+", ignorable=True)
        partition_responses: tuple[PartitionProduceResponse, ...] = kfield(
            "[]struct", "0+", struct=PartitionProduceResponse
        )

    @dataclass(frozen=True, slots=True)
    class NodeEndpoint:
        node_id: int = kfield("int32", "10+")
        host: str = kfield("string", "10+")
        port: int = kfield("int32", "10+")
        rack: str | None = kfield("string", "10+", default=None, nullable="10+")

    responses: tuple[TopicProduceResponse, ...] = kfield("[]struct", "0+", struct=TopicProduceResponse)
    throttle_time_ms: int = kfield("int32", "1+", default=0, ignorable=True)
    node_endpoints: tuple[NodeEndpoint, ...] = kfield(
        "[]struct", "10+", tag=0, tagged="10+", struct=NodeEndpoint
    )

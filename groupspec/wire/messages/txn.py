"""A transactional offset commit: InitProducerId (22), AddOffsetsToTxn (25), EndTxn (26) and
TxnOffsetCommit (28).

These are the producer's side of Kafka's transactions, kept to what committing offsets in a
transaction needs: a producer id and epoch from the transaction coordinator, the group added to
the transaction, the offsets sent to the group coordinator, and the transaction ended (commit or
abort), which makes the transaction coordinator write the markers that settle the offsets.

InitProducerId's version 6 (two-phase commit, KIP-939) is marked unstable in 4.2.1's schema and a
4.2.1 broker does not offer it, so it is left out, with its two fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message
from groupspec.wire.messages import common


@message("InitProducerIdRequest", "request", 22, "0-5", "2+")
@dataclass(frozen=True, slots=True)
class InitProducerIdRequest:
    transactional_id: str | None = kfield("string", "0+", nullable="0+")
    transaction_timeout_ms: int = kfield("int32", "0+")
    producer_id: int = kfield("int64", "3+", default=-1)
    producer_epoch: int = kfield("int16", "3+", default=-1)


@message("InitProducerIdResponse", "response", 22, "0-5", "2+")
@dataclass(frozen=True, slots=True)
class InitProducerIdResponse:
    throttle_time_ms: int = kfield("int32", "0+", ignorable=True)
    error_code: int = kfield("int16", "0+")
    producer_id: int = kfield("int64", "0+", default=-1)
    producer_epoch: int = kfield("int16", "0+")


@message("AddOffsetsToTxnRequest", "request", 25, "0-4", "3+")
@dataclass(frozen=True, slots=True)
class AddOffsetsToTxnRequest:
    transactional_id: str = kfield("string", "0+")
    producer_id: int = kfield("int64", "0+")
    producer_epoch: int = kfield("int16", "0+")
    group_id: str = kfield("string", "0+")


@message("AddOffsetsToTxnResponse", "response", 25, "0-4", "3+")
@dataclass(frozen=True, slots=True)
class AddOffsetsToTxnResponse:
    throttle_time_ms: int = kfield("int32", "0+")
    error_code: int = kfield("int16", "0+")


@message("EndTxnRequest", "request", 26, "0-5", "3+")
@dataclass(frozen=True, slots=True)
class EndTxnRequest:
    transactional_id: str = kfield("string", "0+")
    producer_id: int = kfield("int64", "0+")
    producer_epoch: int = kfield("int16", "0+")
    committed: bool = kfield("bool", "0+")


@message("EndTxnResponse", "response", 26, "0-5", "3+")
@dataclass(frozen=True, slots=True)
class EndTxnResponse:
    throttle_time_ms: int = kfield("int32", "0+")
    error_code: int = kfield("int16", "0+")
    producer_id: int = kfield("int64", "5+", default=-1, ignorable=True)
    producer_epoch: int = kfield("int16", "5+", default=-1, ignorable=True)


@message("TxnOffsetCommitRequest", "request", 28, "0-5", "3+")
@dataclass(frozen=True, slots=True)
class TxnOffsetCommitRequest:
    @dataclass(frozen=True, slots=True)
    class TxnOffsetCommitRequestTopic:
        @dataclass(frozen=True, slots=True)
        class TxnOffsetCommitRequestPartition:
            partition_index: int = kfield("int32", "0+")
            committed_offset: int = kfield("int64", "0+")
            committed_leader_epoch: int = kfield("int32", "2+", default=-1, ignorable=True)
            committed_metadata: str | None = kfield("string", "0+", nullable="0+")

        name: str = kfield("string", "0+")
        partitions: tuple[TxnOffsetCommitRequestPartition, ...] = kfield(
            "[]struct", "0+", struct=TxnOffsetCommitRequestPartition
        )

    transactional_id: str = kfield("string", "0+")
    group_id: str = kfield("string", "0+")
    producer_id: int = kfield("int64", "0+")
    producer_epoch: int = kfield("int16", "0+")
    generation_id: int = kfield("int32", "3+", default=-1)
    member_id: str = kfield("string", "3+", default="")
    group_instance_id: str | None = kfield("string", "3+", default=None, nullable="3+")
    topics: tuple[TxnOffsetCommitRequestTopic, ...] = kfield(
        "[]struct", "0+", struct=TxnOffsetCommitRequestTopic
    )


@message("TxnOffsetCommitResponse", "response", 28, "0-5", "3+")
@dataclass(frozen=True, slots=True)
class TxnOffsetCommitResponse:
    TxnOffsetCommitResponseTopic = common.TopicPartitionErrors

    throttle_time_ms: int = kfield("int32", "0+")
    topics: tuple[common.TopicPartitionErrors, ...] = kfield(
        "[]struct", "0+", struct=common.TopicPartitionErrors
    )

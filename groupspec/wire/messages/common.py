"""Nested structs that several APIs' schemas repeat field for field, declared once.

Kafka's JSON files give each API its own copy of these shapes (ConsumerGroupHeartbeat's and
ShareGroupHeartbeat's TopicPartitions, ShareFetch's ForgottenTopic, the two Describe APIs'
Assignment, ShareFetch's and ShareAcknowledge's NodeEndpoint ...). The bytes on the wire depend
only on a struct's fields, their types and their versions, never on the struct's name, so one
class serves every API whose copy has exactly these fields; the message classes keep Kafka's
struct names as attributes (``ShareFetchRequest.ForgottenTopic``). The drift test
(``tests/cover/test_wire_schemas.py``) walks every API's fields by Kafka's field names, so a
copy that one day gains a field in one API only shows up there and has to get its own class.

The described group itself is not here: ConsumerGroupDescribe's and ShareGroupDescribe's groups
have the same fields but for their member struct, and one class could serve both only as a
base class whose ``members`` each API redeclares. The generated decoders build a struct through
a slotted twin of a class that derives from ``object`` alone (``impl/codec/messages.py``,
``_twin``); a subclass falls back to the constructor, so each response keeps its own group class.

Every field here is ``"0+"``: each struct is used only where all its fields exist at every
version of the API, which is what lets one class serve APIs with different version ranges.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield

# -- KIP-848 and KIP-932 group heartbeats and describes -------------------------------------------


@dataclass(frozen=True, slots=True)
class TopicPartitions:
    """Partitions of one topic named by id: an assignment entry of the heartbeats, the owned
    partitions a consumer reports, ShareFetch's forgotten topics."""

    topic_id: uuid.UUID = kfield("uuid", "0+")
    partitions: tuple[int, ...] = kfield("[]int32", "0+")


@dataclass(frozen=True, slots=True)
class Assignment:
    """A heartbeat response's assignment (ConsumerGroupHeartbeat, ShareGroupHeartbeat)."""

    topic_partitions: tuple[TopicPartitions, ...] = kfield("[]struct", "0+", struct=TopicPartitions)


@dataclass(frozen=True, slots=True)
class DescribedTopicPartitions:
    """Partitions of one topic in a Describe response, which names the topic as well as its id."""

    topic_id: uuid.UUID = kfield("uuid", "0+")
    topic_name: str = kfield("string", "0+")
    partitions: tuple[int, ...] = kfield("[]int32", "0+")


@dataclass(frozen=True, slots=True)
class DescribedAssignment:
    """A member's assignment in ConsumerGroupDescribe and ShareGroupDescribe."""

    topic_partitions: tuple[DescribedTopicPartitions, ...] = kfield(
        "[]struct", "0+", struct=DescribedTopicPartitions
    )


# -- KIP-932 share sessions (ShareFetch, ShareAcknowledge) ------------------------------------------


@dataclass(frozen=True, slots=True)
class AcknowledgementBatch:
    """A range of offsets and the acknowledgement type of each (or one type for all)."""

    first_offset: int = kfield("int64", "0+")
    last_offset: int = kfield("int64", "0+")
    acknowledge_types: tuple[int, ...] = kfield("[]int8", "0+")


@dataclass(frozen=True, slots=True)
class LeaderIdAndEpoch:
    """The partition leader a share-session answer points to when it is not the one asked."""

    leader_id: int = kfield("int32", "0+")
    leader_epoch: int = kfield("int32", "0+")


@dataclass(frozen=True, slots=True)
class NodeEndpoint:
    """Where to find a leader named in ``LeaderIdAndEpoch``."""

    node_id: int = kfield("int32", "0+")
    host: str = kfield("string", "0+")
    port: int = kfield("int32", "0+")
    rack: str | None = kfield("string", "0+", default=None, nullable="0+")


# -- per-partition answers of the offset APIs ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class PartitionError:
    """One partition's outcome: OffsetCommit, TxnOffsetCommit and OffsetDelete answer alike."""

    partition_index: int = kfield("int32", "0+")
    error_code: int = kfield("int16", "0+")


@dataclass(frozen=True, slots=True)
class TopicPartitionErrors:
    """One topic's partition outcomes, by topic name (TxnOffsetCommit, OffsetDelete)."""

    name: str = kfield("string", "0+")
    partitions: tuple[PartitionError, ...] = kfield("[]struct", "0+", struct=PartitionError)

"""The records of ``__consumer_offsets`` (the group coordinator's log), Kafka 4.2 layouts.

One frozen dataclass per key and value schema, field order = schema order; nested structs are
classes inside their message, as in Kafka's generated code (``GroupMetadataValue.MemberMetadata``).
Record type ids (Kafka's ``apiKey``) 0-16 are here. Where Kafka 4.2 changed a schema after the
February 2025 copies in ``../shared/kafka-schemas`` the 4.2 layout is used; every such change is
listed, with its source, in ``tests/cover/test_record_schemas.py`` (``KNOWN_DRIFT``).

What readers of an old log meet:

- type 0 (LegacyOffsetCommit) is never written any more; Kafka replays it as an OffsetCommit;
- type 4 (ConsumerGroupPartitionMetadata) is deprecated since 4.1 (KIP-1101: the group's
  ``MetadataHash`` replaced it); 4.2 still decodes it and writes only its tombstone;
- type 9 (ShareGroupPartitionMetadata) is gone from 4.2 (its schema files were deleted, so the
  loader skips it as an unknown type); the classes stay so that older logs still decode;
- types 17 and 19-23 (streams groups; 18 is retired) have no schema here: Kafka decodes them,
  groupspec's readers skip them as unknown types (docs/divergences.md, records_streams_types).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message

# --- Offsets: types 0 and 1 -------------------------------------------------------------------


@message("LegacyOffsetCommitKey", "coordinator-key", 0, "0")
@dataclass(frozen=True, slots=True)
class LegacyOffsetCommitKey:
    """The key "version" 0 of old offset commits; same layout as :class:`OffsetCommitKey`."""

    group: str = kfield("string", "0")
    topic: str = kfield("string", "0")
    partition: int = kfield("int32", "0")


@message("LegacyOffsetCommitValue", "coordinator-value", 0, "0")
@dataclass(frozen=True, slots=True)
class LegacyOffsetCommitValue:
    offset: int = kfield("int64", "0")
    metadata: str = kfield("string", "0")
    commit_timestamp: int = kfield("int64", "0")


@message("OffsetCommitKey", "coordinator-key", 1, "0")
@dataclass(frozen=True, slots=True)
class OffsetCommitKey:
    group: str = kfield("string", "0")
    topic: str = kfield("string", "0")
    partition: int = kfield("int32", "0")


@message("OffsetCommitValue", "coordinator-value", 1, "0-4", "4+")
@dataclass(frozen=True, slots=True)
class OffsetCommitValue:
    """A committed offset. Kafka 4.1+ writes v4, or v1 when an expire timestamp is set."""

    offset: int = kfield("int64", "0+")
    leader_epoch: int = kfield("int32", "3+", default=-1, ignorable=True)
    metadata: str = kfield("string", "0+")
    commit_timestamp: int = kfield("int64", "0+")
    expire_timestamp: int = kfield("int64", "1", default=-1, ignorable=True)
    # Kafka 4.1+ (KAFKA-19141): tagged, written only when not the zero uuid.
    topic_id: uuid.UUID = kfield("uuid", "4+", tag=0, tagged="4+", ignorable=True)


# --- Classic groups: type 2 -------------------------------------------------------------------


@message("GroupMetadataKey", "coordinator-key", 2, "0")
@dataclass(frozen=True, slots=True)
class GroupMetadataKey:
    group: str = kfield("string", "0")


@message("GroupMetadataValue", "coordinator-value", 2, "0-4", "4+")
@dataclass(frozen=True, slots=True)
class GroupMetadataValue:
    """A classic group's whole persisted state; Kafka 4.0-4.2 write v3.

    A member's ``subscription`` and ``assignment`` are opaque to the coordinator; for protocol
    type ``consumer`` they hold :mod:`groupspec.types.records.consumer_protocol` messages.
    """

    @dataclass(frozen=True, slots=True)
    class MemberMetadata:
        member_id: str = kfield("string", "0+")
        group_instance_id: str | None = kfield("string", "3+", default=None, nullable="3+", ignorable=True)
        client_id: str = kfield("string", "0+")
        client_host: str = kfield("string", "0+")
        rebalance_timeout: int = kfield("int32", "1+", default=-1, ignorable=True)
        session_timeout: int = kfield("int32", "0+")
        subscription: bytes = kfield("bytes", "0+")
        assignment: bytes = kfield("bytes", "0+")

    protocol_type: str = kfield("string", "0+")
    generation: int = kfield("int32", "0+")
    protocol: str | None = kfield("string", "0+", nullable="0+")
    leader: str | None = kfield("string", "0+", nullable="0+")
    current_state_timestamp: int = kfield("int64", "2+", default=-1, ignorable=True)
    members: tuple[MemberMetadata, ...] = kfield("[]struct", "0+", struct=MemberMetadata)


# --- KIP-848 consumer groups: types 3-8 and 16 ------------------------------------------------


@message("ConsumerGroupMetadataKey", "coordinator-key", 3, "0")
@dataclass(frozen=True, slots=True)
class ConsumerGroupMetadataKey:
    group_id: str = kfield("string", "0")


@message("ConsumerGroupMetadataValue", "coordinator-value", 3, "0", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupMetadataValue:
    epoch: int = kfield("int32", "0+")
    # Kafka 4.1+ (KIP-1101): the hash of the subscribed topics' metadata, tagged so that 4.0
    # brokers still read the record.
    metadata_hash: int = kfield("int64", "0+", default=0, tag=0, tagged="0+")


@message("ConsumerGroupPartitionMetadataKey", "coordinator-key", 4, "0")
@dataclass(frozen=True, slots=True)
class ConsumerGroupPartitionMetadataKey:
    group_id: str = kfield("string", "0")


@message("ConsumerGroupPartitionMetadataValue", "coordinator-value", 4, "0", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupPartitionMetadataValue:
    """Deprecated since 4.1 (replaced by ``ConsumerGroupMetadataValue.metadata_hash``)."""

    @dataclass(frozen=True, slots=True)
    class TopicMetadata:
        @dataclass(frozen=True, slots=True)
        class PartitionMetadata:
            partition: int = kfield("int32", "0+")
            racks: tuple[str, ...] = kfield("[]string", "0+")

        topic_id: uuid.UUID = kfield("uuid", "0+")
        topic_name: str = kfield("string", "0+")
        num_partitions: int = kfield("int32", "0+")
        partition_metadata: tuple[PartitionMetadata, ...] = kfield(
            "[]struct", "0+", struct=PartitionMetadata
        )

    topics: tuple[TopicMetadata, ...] = kfield("[]struct", "0+", struct=TopicMetadata)


@message("ConsumerGroupMemberMetadataKey", "coordinator-key", 5, "0")
@dataclass(frozen=True, slots=True)
class ConsumerGroupMemberMetadataKey:
    group_id: str = kfield("string", "0")
    member_id: str = kfield("string", "0")


@message("ConsumerGroupMemberMetadataValue", "coordinator-value", 5, "0", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupMemberMetadataValue:
    @dataclass(frozen=True, slots=True)
    class ClassicMemberMetadata:
        """Present only for a member that joined with the classic protocol (upgrade path)."""

        @dataclass(frozen=True, slots=True)
        class ClassicProtocol:
            name: str = kfield("string", "0+")
            metadata: bytes = kfield("bytes", "0+")

        session_timeout_ms: int = kfield("int32", "0+")
        supported_protocols: tuple[ClassicProtocol, ...] = kfield("[]struct", "0+", struct=ClassicProtocol)

    # Nullable, yet Kafka's default is "" (no explicit "null" default in the schema).
    instance_id: str | None = kfield("string", "0+", nullable="0+")
    rack_id: str | None = kfield("string", "0+", nullable="0+")
    client_id: str = kfield("string", "0+")
    client_host: str = kfield("string", "0+")
    subscribed_topic_names: tuple[str, ...] = kfield("[]string", "0+")
    subscribed_topic_regex: str | None = kfield("string", "0+", nullable="0+")
    rebalance_timeout_ms: int = kfield("int32", "0+", default=-1)
    server_assignor: str | None = kfield("string", "0+", nullable="0+")
    # The schema's default is null, yet Kafka 4.2.1's generated class starts (and reads an absent
    # tag 0 as) an empty ClassicMemberMetadata: null is a value of its own, written as tag 0 with
    # the null marker and printed as null (docs/divergences.md, records_classic_member_null).
    classic_member_metadata: ClassicMemberMetadata | None = kfield(
        "struct", "0+", nullable="0+", tag=0, tagged="0+", struct=ClassicMemberMetadata
    )


@message("ConsumerGroupTargetAssignmentMetadataKey", "coordinator-key", 6, "0")
@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMetadataKey:
    group_id: str = kfield("string", "0")


@message("ConsumerGroupTargetAssignmentMetadataValue", "coordinator-value", 6, "0", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMetadataValue:
    assignment_epoch: int = kfield("int32", "0+")


@message("ConsumerGroupTargetAssignmentMemberKey", "coordinator-key", 7, "0")
@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMemberKey:
    group_id: str = kfield("string", "0")
    member_id: str = kfield("string", "0")


@message("ConsumerGroupTargetAssignmentMemberValue", "coordinator-value", 7, "0", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupTargetAssignmentMemberValue:
    @dataclass(frozen=True, slots=True)
    class TopicPartition:
        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[int, ...] = kfield("[]int32", "0+")

    topic_partitions: tuple[TopicPartition, ...] = kfield("[]struct", "0+", struct=TopicPartition)


@message("ConsumerGroupCurrentMemberAssignmentKey", "coordinator-key", 8, "0")
@dataclass(frozen=True, slots=True)
class ConsumerGroupCurrentMemberAssignmentKey:
    group_id: str = kfield("string", "0")
    member_id: str = kfield("string", "0")


@message("ConsumerGroupCurrentMemberAssignmentValue", "coordinator-value", 8, "0", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupCurrentMemberAssignmentValue:
    @dataclass(frozen=True, slots=True)
    class TopicPartitions:
        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[int, ...] = kfield("[]int32", "0+")

    member_epoch: int = kfield("int32", "0+")
    previous_member_epoch: int = kfield("int32", "0+")
    state: int = kfield("int8", "0+")
    assigned_partitions: tuple[TopicPartitions, ...] = kfield("[]struct", "0+", struct=TopicPartitions)
    partitions_pending_revocation: tuple[TopicPartitions, ...] = kfield(
        "[]struct", "0+", struct=TopicPartitions
    )


@message("ConsumerGroupRegularExpressionKey", "coordinator-key", 16, "0")
@dataclass(frozen=True, slots=True)
class ConsumerGroupRegularExpressionKey:
    group_id: str = kfield("string", "0")
    regular_expression: str = kfield("string", "0")


@message("ConsumerGroupRegularExpressionValue", "coordinator-value", 16, "0", "0+")
@dataclass(frozen=True, slots=True)
class ConsumerGroupRegularExpressionValue:
    """A resolved subscription regex: matching topics, metadata image version, resolution time."""

    topics: tuple[str, ...] = kfield("[]string", "0+")
    version: int = kfield("int64", "0+")
    timestamp: int = kfield("int64", "0+")


# --- KIP-932 share groups: types 9-15 ---------------------------------------------------------


@message("ShareGroupPartitionMetadataKey", "coordinator-key", 9, "0")
@dataclass(frozen=True, slots=True)
class ShareGroupPartitionMetadataKey:
    """Retired in 4.2 (no schema there); kept so that logs of earlier brokers decode."""

    group_id: str = kfield("string", "0")


@message("ShareGroupPartitionMetadataValue", "coordinator-value", 9, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupPartitionMetadataValue:
    """Retired in 4.2; the layout of the last schema that had it (February 2025)."""

    @dataclass(frozen=True, slots=True)
    class TopicMetadata:
        @dataclass(frozen=True, slots=True)
        class PartitionMetadata:
            partition: int = kfield("int32", "0+")
            racks: tuple[str, ...] = kfield("[]string", "0+")

        topic_id: uuid.UUID = kfield("uuid", "0+")
        topic_name: str = kfield("string", "0+")
        num_partitions: int = kfield("int32", "0+")
        partition_metadata: tuple[PartitionMetadata, ...] = kfield(
            "[]struct", "0+", struct=PartitionMetadata
        )

    topics: tuple[TopicMetadata, ...] = kfield("[]struct", "0+", struct=TopicMetadata)


@message("ShareGroupMemberMetadataKey", "coordinator-key", 10, "0")
@dataclass(frozen=True, slots=True)
class ShareGroupMemberMetadataKey:
    group_id: str = kfield("string", "0")
    member_id: str = kfield("string", "0")


@message("ShareGroupMemberMetadataValue", "coordinator-value", 10, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupMemberMetadataValue:
    """A share member's identity and subscription (Kafka writes the topic names sorted)."""

    rack_id: str | None = kfield("string", "0+", nullable="0+")
    client_id: str = kfield("string", "0+")
    client_host: str = kfield("string", "0+")
    subscribed_topic_names: tuple[str, ...] = kfield("[]string", "0+")


@message("ShareGroupMetadataKey", "coordinator-key", 11, "0")
@dataclass(frozen=True, slots=True)
class ShareGroupMetadataKey:
    group_id: str = kfield("string", "0")


@message("ShareGroupMetadataValue", "coordinator-value", 11, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupMetadataValue:
    epoch: int = kfield("int32", "0+")
    # 4.2: added to version 0 as a plain (untagged) field, without a version bump, so records
    # written by earlier brokers do not parse here (share_group_coordinator.md §2.1).
    metadata_hash: int = kfield("int64", "0+")


@message("ShareGroupTargetAssignmentMetadataKey", "coordinator-key", 12, "0")
@dataclass(frozen=True, slots=True)
class ShareGroupTargetAssignmentMetadataKey:
    group_id: str = kfield("string", "0")


@message("ShareGroupTargetAssignmentMetadataValue", "coordinator-value", 12, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupTargetAssignmentMetadataValue:
    assignment_epoch: int = kfield("int32", "0+")


@message("ShareGroupTargetAssignmentMemberKey", "coordinator-key", 13, "0")
@dataclass(frozen=True, slots=True)
class ShareGroupTargetAssignmentMemberKey:
    group_id: str = kfield("string", "0")
    member_id: str = kfield("string", "0")


@message("ShareGroupTargetAssignmentMemberValue", "coordinator-value", 13, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupTargetAssignmentMemberValue:
    @dataclass(frozen=True, slots=True)
    class TopicPartition:
        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[int, ...] = kfield("[]int32", "0+")

    topic_partitions: tuple[TopicPartition, ...] = kfield("[]struct", "0+", struct=TopicPartition)


@message("ShareGroupCurrentMemberAssignmentKey", "coordinator-key", 14, "0")
@dataclass(frozen=True, slots=True)
class ShareGroupCurrentMemberAssignmentKey:
    group_id: str = kfield("string", "0")
    member_id: str = kfield("string", "0")


@message("ShareGroupCurrentMemberAssignmentValue", "coordinator-value", 14, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupCurrentMemberAssignmentValue:
    @dataclass(frozen=True, slots=True)
    class TopicPartitions:
        topic_id: uuid.UUID = kfield("uuid", "0+")
        partitions: tuple[int, ...] = kfield("[]int32", "0+")

    member_epoch: int = kfield("int32", "0+")
    previous_member_epoch: int = kfield("int32", "0+")
    state: int = kfield("int8", "0+")
    assigned_partitions: tuple[TopicPartitions, ...] = kfield("[]struct", "0+", struct=TopicPartitions)


@message("ShareGroupStatePartitionMetadataKey", "coordinator-key", 15, "0")
@dataclass(frozen=True, slots=True)
class ShareGroupStatePartitionMetadataKey:
    group_id: str = kfield("string", "0")


@message("ShareGroupStatePartitionMetadataValue", "coordinator-value", 15, "0", "0+")
@dataclass(frozen=True, slots=True)
class ShareGroupStatePartitionMetadataValue:
    """Which partitions of the group have share state being set up, set up, or being deleted."""

    @dataclass(frozen=True, slots=True)
    class TopicPartitionsInfo:
        topic_id: uuid.UUID = kfield("uuid", "0+")
        topic_name: str = kfield("string", "0+")
        partitions: tuple[int, ...] = kfield("[]int32", "0+")

    @dataclass(frozen=True, slots=True)
    class TopicInfo:
        topic_id: uuid.UUID = kfield("uuid", "0+")
        topic_name: str = kfield("string", "0+")

    # 4.2: added first in version 0 without a version bump (share_group_coordinator.md §2.1).
    initializing_topics: tuple[TopicPartitionsInfo, ...] = kfield(
        "[]struct", "0+", struct=TopicPartitionsInfo
    )
    initialized_topics: tuple[TopicPartitionsInfo, ...] = kfield("[]struct", "0+", struct=TopicPartitionsInfo)
    deleting_topics: tuple[TopicInfo, ...] = kfield("[]struct", "0+", struct=TopicInfo)

"""The classic consumer protocol: what a ``consumer`` group member's opaque bytes hold.

A GroupMetadataValue member's ``subscription`` and ``assignment`` are bytes the coordinator
never interprets (beyond the topics of the subscription). For protocol type ``consumer`` they
are these two messages, each written as an int16 version and then the non-flexible struct;
the codec reads and writes that prefix. Clients write version 3 (the highest). A reader
meeting a version above 3 parses it with the version-3 layout, since later versions may only
append fields (clients/.../consumer/internals/ConsumerProtocol.java, ``check*Version``).
"""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.records.schema import kfield, message


@message("ConsumerProtocolSubscription", "data", None, "0-3")
@dataclass(frozen=True, slots=True)
class ConsumerProtocolSubscription:
    """A member's subscription (client-sorted topics) and, from v1, what it owns."""

    @dataclass(frozen=True, slots=True)
    class TopicPartition:
        topic: str = kfield("string", "1+")
        partitions: tuple[int, ...] = kfield("[]int32", "1+")

    topics: tuple[str, ...] = kfield("[]string", "0+")
    user_data: bytes | None = kfield("bytes", "0+", default=None, nullable="0+")
    owned_partitions: tuple[TopicPartition, ...] = kfield(
        "[]struct", "1+", ignorable=True, struct=TopicPartition
    )
    generation_id: int = kfield("int32", "2+", default=-1, ignorable=True)
    rack_id: str | None = kfield("string", "3+", default=None, nullable="3+", ignorable=True)


@message("ConsumerProtocolAssignment", "data", None, "0-3")
@dataclass(frozen=True, slots=True)
class ConsumerProtocolAssignment:
    """What the leader assigned to a member; versions 1-3 exist only to match the subscription."""

    @dataclass(frozen=True, slots=True)
    class TopicPartition:
        topic: str = kfield("string", "0+")
        partitions: tuple[int, ...] = kfield("[]int32", "0+")

    assigned_partitions: tuple[TopicPartition, ...] = kfield("[]struct", "0+", struct=TopicPartition)
    user_data: bytes | None = kfield("bytes", "0+", default=None, nullable="0+")

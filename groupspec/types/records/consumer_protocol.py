"""The classic consumer protocol: what a ``consumer`` group member's opaque bytes hold.

A GroupMetadataValue member's ``subscription`` and ``assignment`` are bytes the coordinator
never interprets (beyond the topics of the subscription). For protocol type ``consumer`` they
are these two messages, each written as an int16 version and then the non-flexible struct;
the codec reads and writes that prefix. Clients write version 3 (the highest). A reader
meeting a version above 3 parses it with the version-3 layout, since later versions may only
append fields (clients/.../consumer/internals/ConsumerProtocol.java, ``check*Version``).
"""

from __future__ import annotations

import struct
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


def subscription_topics(data: bytes) -> tuple[str, ...]:
    """The topics of a version-prefixed ConsumerProtocolSubscription; ValueError if malformed.

    Read whole at the version its int16 prefix names, as Kafka's ConsumerProtocol does (a
    version above 3 with the version-3 layout, trailing bytes ignored): a subscription whose
    later fields are cut short is malformed even though its topics were readable. Plain
    parsing of the wire format, no rule: the coordinator's use of it is each layer's own.
    """
    r = _Reader(data)
    version = r.number(">h")
    if version < 0:
        raise ValueError("negative subscription version")
    topics = tuple(str(r.string()) for _ in range(r.count()))
    r.blob(">i", True)  # user data
    if version >= 1:  # owned partitions
        for _ in range(r.count()):
            r.string()
            for _ in range(r.count()):
                r.number(">i")
    if version >= 2:
        r.number(">i")  # generation
    if version >= 3:
        r.string(nullable=True)  # rack
    return topics


class _Reader:
    """Big-endian reads of a non-flexible Kafka struct; ValueError on anything malformed."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def number(self, fmt: str) -> int:
        try:
            (value,) = struct.unpack_from(fmt, self.data, self.pos)
        except struct.error as exc:
            raise ValueError(str(exc)) from exc
        self.pos += struct.calcsize(fmt)
        return int(value)

    def blob(self, length_fmt: str, nullable: bool) -> bytes | None:
        n = self.number(length_fmt)
        if n < 0:
            if nullable:
                return None
            raise ValueError("a non-nullable field is null")
        if self.pos + n > len(self.data):
            raise ValueError("the data ends inside a field")
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def string(self, nullable: bool = False) -> str | None:
        raw = self.blob(">h", nullable)
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(str(exc)) from exc

    def count(self) -> int:
        n = self.number(">i")
        if n < 0:
            raise ValueError("a non-nullable array is null")
        return n

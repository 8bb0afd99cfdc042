"""The bytes inside a classic ``consumer`` group member: ConsumerProtocolSubscription/Assignment.

A GroupMetadataValue member carries ``subscription`` and ``assignment`` as opaque bytes. When the
group's protocol type is ``consumer`` they are an int16 version followed by the
ConsumerProtocolSubscription or ConsumerProtocolAssignment struct at that version (0-3, never
flexible), written by the client (clients/.../consumer/internals/ConsumerProtocol.java).

Versions, as Kafka's ``ConsumerProtocol`` treats them:

- a negative version is refused (Kafka: SchemaException "Unsupported subscription version");
- a version above the highest known (3) is read with the version-3 layout: the protocol promises
  that later versions only append fields, and the bytes those fields take are left unread. The
  decoders here do the same and report the version as written next to the object;
- a reader ignores whatever follows the struct, for the same reason (Kafka reads through a
  ``ByteBufferAccessor`` and never checks what remains);
- writing at a version above 3 writes version 3, header included (``checkSubscriptionVersion``
  clamps before ``toVersionPrefixedByteBuffer``).

Kafka's client sorts the subscribed topics and owned partitions before writing; the encoders here
write the objects as given.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TypeVar

from groupspec.impl.codec.errors import TruncatedError, UnsupportedVersionError
from groupspec.impl.codec.messages import decoder, encode
from groupspec.types.errors import InputError
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription
from groupspec.types.records.schema import message_spec

T = TypeVar("T")

PROTOCOL_TYPE = "consumer"
_INT16 = struct.Struct(">h")


def highest_version(cls: type) -> int:
    return message_spec(cls).versions.hi


def _read_version(cls: type, data: bytes) -> tuple[int, int]:
    """(version as written, version to read with)."""
    name = message_spec(cls).name
    if len(data) < 2:
        raise TruncatedError(f"{name}: {len(data)} bytes, too short for the int16 version")
    (written,) = _INT16.unpack_from(data, 0)
    spec = message_spec(cls).versions
    if written < spec.lo:
        raise UnsupportedVersionError(name, written)
    return written, min(written, spec.hi)


def _decode(cls: type[T], data: bytes | bytearray | memoryview) -> tuple[T, int]:
    buf = data if isinstance(data, bytes) else bytes(data)
    written, read_as = _read_version(cls, buf)
    obj, _end = decoder(cls, read_as)(buf, 2)
    return obj, written


def _encode(obj: object, version: int | None) -> bytes:
    cls = type(obj)
    spec = message_spec(cls).versions
    if version is None:
        version = spec.hi
    if version < spec.lo:
        raise UnsupportedVersionError(message_spec(cls).name, version)
    version = min(version, spec.hi)
    return _INT16.pack(version) + encode(obj, version)


def decode_subscription(data: bytes | bytearray | memoryview) -> tuple[ConsumerProtocolSubscription, int]:
    """A member's subscription and the version its bytes were written at."""
    return _decode(ConsumerProtocolSubscription, data)


def decode_assignment(data: bytes | bytearray | memoryview) -> tuple[ConsumerProtocolAssignment, int]:
    """A member's assignment and the version its bytes were written at."""
    return _decode(ConsumerProtocolAssignment, data)


def encode_subscription(subscription: ConsumerProtocolSubscription, version: int | None = None) -> bytes:
    """Version prefix and struct; ``version`` None is the highest (what clients write)."""
    if type(subscription) is not ConsumerProtocolSubscription:
        got = type(subscription).__qualname__
        raise InputError("subscription", f"expected a ConsumerProtocolSubscription, got {got}")
    return _encode(subscription, version)


def encode_assignment(assignment: ConsumerProtocolAssignment, version: int | None = None) -> bytes:
    """Version prefix and struct; ``version`` None is the highest (what clients write)."""
    if type(assignment) is not ConsumerProtocolAssignment:
        got = type(assignment).__qualname__
        raise InputError("assignment", f"expected a ConsumerProtocolAssignment, got {got}")
    return _encode(assignment, version)


@dataclass(frozen=True, slots=True)
class ConsumerMemberMetadata:
    """A ``consumer`` member's decoded metadata; a part is None when its bytes are empty.

    Empty bytes are normal: a member that joined but has not been assigned yet (older brokers
    persisted such members) has an empty assignment.
    """

    subscription: ConsumerProtocolSubscription | None
    subscription_version: int | None
    assignment: ConsumerProtocolAssignment | None
    assignment_version: int | None


def decode_member_metadata(
    protocol_type: str | None, subscription: bytes, assignment: bytes
) -> ConsumerMemberMetadata | None:
    """The decoded metadata of a classic group member, or None if the group is not ``consumer``.

    Raises a CodecError when either part's bytes are bad; callers wanting to keep the good half
    use :func:`decode_subscription` and :func:`decode_assignment` separately.
    """
    if protocol_type != PROTOCOL_TYPE:
        return None
    sub, sub_version = decode_subscription(subscription) if subscription else (None, None)
    assign, assign_version = decode_assignment(assignment) if assignment else (None, None)
    return ConsumerMemberMetadata(sub, sub_version, assign, assign_version)

"""Kafka's variable-length integers.

Two flavours meet in a coordinator record: record batches use zig-zag signed varints
(``varint``/``varlong``) for record lengths, deltas and header counts, and flexible message
versions use unsigned varints for compact lengths and tagged-field headers. Both are base-128,
least significant group first. Readers return ``(value, next_position)`` and raise
:class:`TruncatedError` or :class:`MalformedError`, never IndexError.

Like Kafka's ``ByteUtils.readUnsignedVarint``/``readUnsignedVarlong``, a reader takes overlong
encodings (``80 80 80 80 00`` is 0) and keeps only the bits of the int32 or int64 it reads into:
the last byte's bits beyond them are dropped, not refused (Java's shift into an ``int`` or a
``long`` drops them). Only a continuation bit on the last byte allowed is refused.
"""

from __future__ import annotations

from groupspec.impl.codec.errors import MalformedError, TruncatedError

Buffer = bytes | bytearray | memoryview


def read_uvarint(buf: Buffer, pos: int, max_bytes: int = 5) -> tuple[int, int]:
    """An unsigned varint of at most ``max_bytes`` bytes (5 for 32 bits, 10 for 64)."""
    result = 0
    shift = 0
    end = len(buf)
    for i in range(max_bytes):
        if pos >= end:
            raise TruncatedError("varint runs past the end of the data")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & ((1 << (32 if max_bytes == 5 else 64)) - 1), pos
        shift += 7
        del i
    raise MalformedError(f"varint longer than {max_bytes} bytes")


def read_varint(buf: Buffer, pos: int) -> tuple[int, int]:
    """A zig-zag signed 32-bit varint."""
    raw, pos = read_uvarint(buf, pos, 5)
    return (raw >> 1) ^ -(raw & 1), pos


def read_varlong(buf: Buffer, pos: int) -> tuple[int, int]:
    """A zig-zag signed 64-bit varint."""
    raw, pos = read_uvarint(buf, pos, 10)
    return (raw >> 1) ^ -(raw & 1), pos


def uvarint(value: int) -> bytes:
    if value < 0:
        raise ValueError("an unsigned varint cannot be negative")
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)



def read_int32_uvarint(buf: Buffer, pos: int) -> tuple[int, int]:
    """An unsigned varint as the Java ``int`` Kafka's generated readers hold it in.

    ``ByteUtils.readUnsignedVarint`` returns an ``int``, so a value of 2^31 or more comes out
    negative, and the generated code then tests that ``int``: a compact length of
    ``ff ff ff ff 0f`` is -1 - 1 = -2, a null (MessageDataGenerator.java's ``length < 0``); a
    tagged-field count that is negative runs its loop zero times; a tagged nullable struct's
    marker that is negative is null (``readUnsignedVarint() <= 0``).
    """
    value, pos = read_uvarint(buf, pos)
    return (value ^ 0x80000000) - 0x80000000, pos

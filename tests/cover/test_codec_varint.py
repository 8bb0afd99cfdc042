"""Varints against Kafka's ``ByteUtils`` (clients/.../common/utils/ByteUtils.java): overlong
encodings are read, the last byte's bits past the int32 or int64 are dropped as Java's shifts
drop them, and only a continuation bit on the last byte allowed is refused."""

from __future__ import annotations

import pytest

from groupspec.impl.codec.errors import MalformedError, TruncatedError
from groupspec.impl.codec.varint import read_int32_uvarint, read_uvarint, read_varint, read_varlong, uvarint


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_overlong_encodings_are_read() -> None:
    assert read_varint(h("80 80 80 80 00"), 0) == (0, 5)
    assert read_varlong(h("80" * 9 + "00"), 0) == (0, 10)
    assert read_uvarint(h("81 00"), 0) == (1, 2)


def test_bits_past_the_int_are_dropped() -> None:
    # Java: (0x10 << 28) overflows an int to 0, (0x7f << 28) keeps its low four bits.
    assert read_uvarint(h("b2 80 80 80 10"), 0) == (0x32, 5)
    assert read_uvarint(h("ff ff ff ff 7f"), 0) == (0xFFFFFFFF, 5)
    assert read_varint(h("ff ff ff ff 0f"), 0) == (-(1 << 31), 5)
    assert read_varint(h("fe ff ff ff 0f"), 0) == ((1 << 31) - 1, 5)
    # Java: (2L << 63) is 0, (3L << 63) keeps bit 63.
    assert read_varlong(h("80" * 9 + "02"), 0) == (0, 10)
    assert read_varlong(h("80" * 9 + "03"), 0) == (1 << 62, 10)
    assert read_varlong(h("ff" * 9 + "01"), 0) == (-(1 << 63), 10)


def test_a_continuation_bit_on_the_last_byte_is_refused() -> None:
    with pytest.raises(MalformedError):
        read_varint(h("80 80 80 80 80 00"), 0)
    with pytest.raises(MalformedError):
        read_varlong(h("80" * 10 + "00"), 0)
    with pytest.raises(TruncatedError):
        read_varint(h("80 80"), 0)


def test_uvarint_widths() -> None:
    assert uvarint(127) == h("7f")
    assert uvarint(128) == h("80 01")
    assert uvarint(201) == h("c9 01")
    assert uvarint(16383) == h("ff 7f")
    assert uvarint(16384) == h("80 80 01")
    with pytest.raises(ValueError):
        uvarint(-1)


def test_an_unsigned_varint_as_the_java_int_it_is_read_into() -> None:
    # ByteUtils.readUnsignedVarint returns an int: 2^31 and above come out negative.
    assert read_int32_uvarint(h("ff ff ff ff 07"), 0) == ((1 << 31) - 1, 5)
    assert read_int32_uvarint(h("80 80 80 80 08"), 0) == (-(1 << 31), 5)
    assert read_int32_uvarint(h("ff ff ff ff 0f"), 0) == (-1, 5)
    assert read_int32_uvarint(h("7f"), 0) == (127, 1)

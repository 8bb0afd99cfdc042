"""The batch module's library edges no conformance handler reaches, and its error messages.

The vectors name an error by its kind only; these tests hold the reader's and writer's messages
to naming what was wrong (the figures in them), and check what only a library caller can pass:
objects that are not records, headers of the wrong shape, the offset a strict reader's error
carries.
"""

from __future__ import annotations

import re
import struct

import google_crc32c
import pytest

from groupspec.impl.codec.batch import BatchReader, Record, decode_batch, encode_batch
from groupspec.impl.codec.errors import (
    CodecError,
    CorruptBatchError,
    FramingError,
    MalformedError,
    TruncatedError,
)
from groupspec.impl.codec.varint import uvarint
from groupspec.types.errors import InputError

T0 = 1_700_000_000_000


def _zz(value: int) -> bytes:
    return uvarint((value << 1) ^ (value >> 63))


def _with_section(section: bytes, count: int, base: int = 0) -> bytes:
    """An uncompressed batch whose records section is ``section``, count, length and CRC set."""
    batch = bytearray(encode_batch([], base_offset=base)) + section
    struct.pack_into(">i", batch, 8, len(batch) - 12)
    struct.pack_into(">i", batch, 57, count)
    struct.pack_into(">I", batch, 17, google_crc32c.value(bytes(batch[21:])))
    return bytes(batch)


def _record(body: bytes) -> bytes:
    return _zz(len(body)) + body


_NULLS = b"\x00\x00\x00\x01\x01\x00"  # attributes, deltas 0, null key and value, no headers


def _reason(section: bytes, count: int) -> CodecError:
    with pytest.raises(CodecError) as info:
        decode_batch(_with_section(section, count))
    return info.value


def test_a_strict_readers_error_carries_the_batch_offset() -> None:
    batch = bytearray(encode_batch([Record(7, T0, b"k", b"v")], base_offset=7))
    batch[20] ^= 0x01
    with pytest.raises(CorruptBatchError) as info:
        list(BatchReader().read(bytes(batch)))
    assert info.value.offset == 7
    assert "batch at byte 0" in str(info.value)


def test_encode_batch_refuses_what_is_not_a_record() -> None:
    with pytest.raises(InputError, match=r"records\[1\].*not a Record: tuple"):
        encode_batch([Record(0, T0, None, None), (1, T0, None, None)])  # type: ignore[list-item]


@pytest.mark.parametrize("header", [(1, b"x"), ("a", b"x", b"y"), ("a",), ["a", b"x"]])
def test_encode_batch_refuses_a_header_of_another_shape(header: object) -> None:
    record = Record(0, T0, None, None, (header,))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"records\[0\]\.headers\[0\]"):
        encode_batch([record])


def test_message_record_count_names_the_section_size() -> None:
    exc = _reason(_record(_NULLS), 5)
    assert isinstance(exc, MalformedError)
    assert "record count 5 cannot fit in 7 bytes of records" in str(exc)


def test_message_record_length_names_the_bytes_left() -> None:
    exc = _reason(_zz(100) + _NULLS, 1)
    assert isinstance(exc, MalformedError)
    assert "length 100 does not fit the 6 bytes left" in str(exc)


def test_message_fields_short_of_the_length() -> None:
    exc = _reason(_zz(7) + _NULLS + b"\x00", 1)
    assert isinstance(exc, MalformedError)
    assert "its fields take 6 bytes, its length says 7" in str(exc)


def test_message_fields_past_the_length_before_a_header_count() -> None:
    # length 6 over attributes, deltas, a 1-byte key and a null value: the header count 00 is
    # the byte after the record.
    exc = _reason(_zz(6) + b"\x00\x00\x00" + _zz(1) + b"k" + b"\x01" + b"\x00", 1)
    assert isinstance(exc, MalformedError)
    assert "its fields take 7 bytes, its length says 6" in str(exc)


def test_message_bytes_left_after_the_records() -> None:
    exc = _reason(_record(_NULLS) + bytes(10), 1)
    assert isinstance(exc, MalformedError)
    assert re.search(r"\b10 bytes are left after the 1 records", str(exc))


def test_message_record_runs_past_the_end() -> None:
    exc = _reason(_record(_NULLS) + _zz(6) + b"\x00\x00" + _zz(1) + _zz(1) + b"k" + b"\x80", 2)
    assert isinstance(exc, TruncatedError)
    assert "record 1 runs past the end of the records" in str(exc)
    exc = _reason(_record(b"\x00\x00\x00" + _zz(10) + b"k" * 10 + b"\x01\x00") + b"\x80", 2)
    assert isinstance(exc, TruncatedError)
    assert "record 1 runs past the end of the records" in str(exc)


def test_message_complete_batch_with_longer_length_names_its_size() -> None:
    first = encode_batch([Record(0, T0, b"k", b"v")])
    second = bytearray(encode_batch([Record(1, T0, b"k", b"v")], base_offset=1))
    size = len(second)
    struct.pack_into(">i", second, 8, struct.unpack_from(">i", second, 8)[0] + 10)
    with pytest.raises(FramingError, match=f"its CRC32C matches its first {size} bytes"):
        list(BatchReader().read(first + bytes(second)))


def test_message_record_offset_below_zero() -> None:
    with pytest.raises(InputError, match=r"records\[0\]\.offset: -1 is not an integer in \[0, "):
        encode_batch([Record(-1, T0, None, None)])


def test_message_offset_delta_past_int32_names_the_record() -> None:
    with pytest.raises(InputError, match=r"^records\[1\]\.offset: .*32-bit varint"):
        encode_batch([Record(0, T0, None, None), Record(1 << 31, T0, None, None)])


def test_header_keys_and_values_read_back() -> None:
    # No conformance handler prints a record's headers: only the library shows them.
    headers = (("trace", b"\x01\x02"), ("none", None), ("", b""), ("naïve", b"x" * 70))
    batch = decode_batch(encode_batch([Record(0, T0, b"k", b"v", headers)]))
    assert batch.records[0].headers == headers

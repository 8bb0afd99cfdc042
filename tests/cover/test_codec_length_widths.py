"""The widths of a record's length fields, at their edges, without the gigabytes.

A record's key and value lengths and its header count are zig-zag varints of 32 bits: a value of
2 GiB, or 2^31 headers, cannot be written. Writing the real thing takes gigabytes of memory and
minutes, so these checks hand the writer stand-ins that report the length without holding it:
an anonymous memory map of 2 GiB that is never touched (refused before it is read), and a header
sequence that reports 2^30 or 2^31 entries and yields none. A record's own length and a batch's
length are of bytes the writer has joined, so no stand-in reaches them: their widths are each
one function of an int (``_varint32``, ``_batch_length``), checked here at their edges.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator

import pytest

from groupspec.impl.codec import batch
from groupspec.impl.codec.batch import Record
from groupspec.types import InputError


class _Counted(tuple):  # type: ignore[type-arg]
    """Headers that say there are ``n`` of them and hold none."""

    n: int

    def __new__(cls, n: int) -> _Counted:
        made = super().__new__(cls, ())
        made.n = n
        return made

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[tuple[str, bytes | None]]:
        return iter(())


def test_a_value_of_2_gib_is_refused_before_it_is_read() -> None:
    with mmap.mmap(-1, 1 << 31) as untouched:
        view = memoryview(untouched)
        with pytest.raises(InputError, match="does not fit a 32-bit varint") as caught:
            batch._encode_bytes("records[0].value", view)
        view.release()
    assert caught.value.field == "records[0].value"


def test_the_header_count_is_a_32_bit_varint() -> None:
    # 2^30 headers fit (zig-zag 2^31, five bytes); 2^31 do not.
    fits = batch._encode_record(0, Record(0, 0, None, None, _Counted(1 << 30)), 0, 0)
    # The body: attributes, two deltas, null key and value (five bytes), then the count (five).
    assert fits == bytes([20, 0, 0, 0, 1, 1]) + b"\x80\x80\x80\x80\x08"
    with pytest.raises(InputError, match="does not fit a 32-bit varint") as caught:
        batch._encode_record(3, Record(0, 0, None, None, _Counted(1 << 31)), 0, 0)
    assert caught.value.field == "records[3].headers"


def test_a_record_length_of_1_gib_fits_and_one_of_2_gib_does_not() -> None:
    # Zig-zag doubles a length: 2^30 is written as 2^31 (five bytes); the last that fits is
    # 2^31 - 1, and a negative delta down to -2^31 fits too.
    assert batch._varint32("records[0]", 1 << 30) == b"\x80\x80\x80\x80\x08"
    assert batch._varint32("records[0]", (1 << 31) - 1) == b"\xfe\xff\xff\xff\x0f"
    assert batch._varint32("records[0].offset", -(1 << 31)) == b"\xff\xff\xff\xff\x0f"
    for too_wide in (1 << 31, (1 << 31) + 1, -(1 << 31) - 1):
        with pytest.raises(InputError, match="does not fit a 32-bit varint") as caught:
            batch._varint32("records[0]", too_wide)
        assert caught.value.field == "records[0]"


def test_a_batch_of_exactly_the_int32_limit_fits_and_one_byte_more_does_not() -> None:
    # The length field counts from the partition leader epoch on: the header's 61 bytes less the
    # offset and the length field itself (12), plus the records.
    assert batch._batch_length(0) == 49
    largest = (1 << 31) - 1
    assert batch._batch_length(largest - 49) == largest
    with pytest.raises(InputError, match="does not fit an int32 length") as caught:
        batch._batch_length(largest - 48)
    assert caught.value.field == "records"

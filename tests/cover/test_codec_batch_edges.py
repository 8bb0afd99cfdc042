"""Quick checks of impl/codec/batch.py that no conformance vector can make (issue 17): the
library calls no handler reaches (decode_batch, read_batches, BatchReader's defaults,
RecordBatch.next_offset), and the error messages the vectors leave out (a vector names an
error's kind, never its text)."""

from __future__ import annotations

import struct

import pytest

from groupspec.impl.codec.batch import (
    BadBatch,
    BatchReader,
    PartialBatch,
    Record,
    decode_batch,
    decode_control_marker,
    encode_batch,
    read_batches,
)
from groupspec.impl.codec.errors import (
    FramingError,
    MalformedError,
    TruncatedError,
    UnsupportedMagicError,
)
from groupspec.types import InputError

T0 = 1_700_000_000_000


def _batch(base: int = 0, count: int = 1) -> bytes:
    return encode_batch([Record(base + i, T0, b"k", b"v") for i in range(count)], base_offset=base)


def _with(data: bytes, fmt: str, at: int, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, at, value)
    return bytes(out)


# --- library only: no handler calls these --------------------------------------------------------


def test_next_offset_follows_the_last_offset() -> None:
    batch = decode_batch(_batch(10, 3))
    assert (batch.last_offset, batch.next_offset) == (12, 13)


def test_reader_and_read_batches_are_strict_by_default() -> None:
    broken = _with(_batch(), ">I", 17, 0)
    with pytest.raises(Exception, match="CRC32C"):
        list(BatchReader().read(broken))
    with pytest.raises(Exception, match="CRC32C"):
        list(read_batches(broken))
    assert isinstance(next(read_batches(broken, lenient=True))[1], BadBatch)


@pytest.mark.parametrize("size", ["100", 1.5, None])
def test_max_batch_bytes_must_be_an_int(size: object) -> None:
    with pytest.raises(InputError):
        BatchReader(max_batch_bytes=size)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_reader_takes_any_buffer(kind: type) -> None:
    data = _with(_batch(0), ">I", 17, 0) + _batch(1) + _batch(2)[:40]
    entries = [entry for _, entry in BatchReader(lenient=True).read(kind(data))]
    assert isinstance(entries[0], BadBatch) and type(entries[0].raw) is bytes
    assert isinstance(entries[2], PartialBatch)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_decode_batch_takes_any_buffer(kind: type) -> None:
    assert decode_batch(kind(_batch(4))).base_offset == 4


def test_decode_batch_header_of_17_bytes_names_its_magic() -> None:
    with pytest.raises(UnsupportedMagicError):
        decode_batch(_with(_batch()[:17], ">b", 16, 1))
    with pytest.raises(TruncatedError, match="16 bytes are too few"):
        decode_batch(_batch()[:16])


@pytest.mark.parametrize("magic", [0, 1, 3])
def test_decode_batch_refuses_other_magics(magic: int) -> None:
    with pytest.raises(UnsupportedMagicError):
        decode_batch(_with(_batch(), ">b", 16, magic))


def test_decode_batch_refuses_a_cut_batch_and_bytes_after() -> None:
    data = _batch()
    with pytest.raises(TruncatedError, match=f"needs {len(data)} bytes, {len(data) - 1} present"):
        decode_batch(data[:-1])
    with pytest.raises(MalformedError, match="offset 0: 3 bytes follow the batch"):
        decode_batch(data + b"\x00\x00\x00")


# --- wording: what the messages name ---------------------------------------------------------


@pytest.mark.parametrize("type_id, name", [(2, "LEADER_CHANGE"), (3, "SNAPSHOT_HEADER"),
                                           (4, "SNAPSHOT_FOOTER"), (5, "KRAFT_VERSION"),
                                           (6, "KRAFT_VOTERS"), (7, "unknown")])
def test_other_control_types_are_named(type_id: int, name: str) -> None:
    record = Record(0, T0, struct.pack(">hh", 0, type_id), struct.pack(">hi", 0, 1))
    with pytest.raises(MalformedError, match=rf"control record type {type_id} \({name}\)"):
        decode_control_marker(record)


def test_partial_batch_describes_its_offset_when_known() -> None:
    known = PartialBatch(40, 10, 61, 7).describe()
    assert known.startswith("batch at byte 40 (offset 7) is cut short: 10 of 61")
    assert PartialBatch(40, 5, 17, None).describe().startswith("batch at byte 40 is cut short: 5 of 17")


def _framing(data: bytes) -> str:
    with pytest.raises(FramingError) as info:
        list(BatchReader().read(data))
    return str(info.value)


def test_tail_of_8_bytes_shows_its_offset() -> None:
    assert "its base offset -1 is negative" in _framing(_batch(0) + b"\xff" * 8)
    assert "(from its first bytes ffffffffffffff, -256 to -1)" in _framing(_batch(0) + b"\xff" * 7)


def test_header_of_17_bytes_with_a_short_length_names_the_length() -> None:
    head = struct.pack(">qiib", 5, 10, -1, 2)
    assert "batch at byte 0: batch length 10 is below the minimum 49" in _framing(head)


def test_tail_attributes_are_shown_as_written() -> None:
    data = _batch(0) + _with(_batch(1), ">h", 21, 0x0181)[:40]
    assert "its attributes 0x0181 set bits no writer sets" in _framing(data)


def test_tail_bytes_after_its_records_are_counted() -> None:
    whole = _batch(1)
    cut = _with(whole + bytes(5), ">i", 8, len(whole) - 12 + 50)
    assert "torn tail: 5 bytes follow the 1 records it counts" in _framing(_batch(0) + cut)

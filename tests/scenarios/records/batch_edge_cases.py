"""Conformance vectors at the edges of the batch reader's header checks and torn-tail rule
(impl/codec/batch.py; issue 17, the survivors of its first 560 lines).

Each vector pins one rule of the module doc of impl/codec/batch.py ("Torn tail", the header
checks, the control record key) at the byte where it flips: a tail whose base offset is just
inside or outside what is allowed, a record length at the smallest a record can have, a batch
whose CRC32C matches the bytes before a following header, and so on. The expectations come from
groupspec's reader; the bytes are groupspec's writer's, then damaged or cut as each says.
Kafka's own reader stops quietly at any batch that runs past the end of the data
(FileLogInputStream.nextBatch); the extra checks that tell a torn tail from garbage are
groupspec's (the module doc says why), and the control key rule is Kafka's
(ControlRecordType.parseTypeId: at least 4 bytes, the rest ignored).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from tests.scenarios.records.batch_cases import _noise
from tests.scenarios.records.log_cases import _commit, _ours, _recrc, _zz

_INT32_MAX = (1 << 31) - 1
_SEG = "00000000000000000000.log"


def _batch(base: int, count: int, **kw: Any) -> bytes:
    """``count`` commits at offsets ``base``..``base + count - 1`` (groupspec's writer)."""
    return _ours(base, [_commit(base + i) for i in range(count)], **kw)


def _set(batch: bytes, fmt: str, at: int, value: int) -> bytearray:
    out = bytearray(batch)
    struct.pack_into(fmt, out, at, value)
    return out


def _header(base: int, count: int, length: int, *, attributes: int = 0, last_delta: int = 0) -> bytearray:
    """A 61-byte v2 header (CRC left 0) of ``count`` records and batch length ``length``."""
    return bytearray(struct.pack(">qiibIhiqqqhii", base, length, -1, 2, 0, attributes, last_delta,
                                 1700000000000, 1700000000000, -1, -1, -1, count))


def _cut_records(base: int, count: int, records: bytes, length: int) -> bytes:
    """An uncompressed batch header counting ``count`` records, its CRC over ``records`` as the
    full batch of ``length`` would hold them padded with zeros, then ``records`` only: the start
    of a batch whose end is missing."""
    head = _header(base, count, length, last_delta=max(count - 1, 0))
    full = bytes(head) + records + bytes(length + 12 - 61 - len(records))
    struct.pack_into(">I", head, 17, _crc(full[21:]))
    return bytes(head) + records


def _crc(data: bytes) -> int:
    import google_crc32c

    return int(google_crc32c.value(data))


def _small_record(delta: int) -> bytes:
    """The smallest record: length 6, no key, no value, no headers."""
    return _zz(6) + b"\x00" + _zz(0) + _zz(delta) + _zz(-1) + _zz(-1) + _zz(0)


# --- decode_log builders -------------------------------------------------------------------------


def _tail_of_seven_ff() -> bytes:
    """A batch, then 7 bytes of ff: a base offset cut short whose present bytes make it negative."""
    return _batch(0, 1) + b"\xff" * 7


def _magic_three() -> bytes:
    """A batch, a magic-3 batch of length 20 (the legacy minimum is 14, only magic 2 needs 49), a
    v2-shaped batch with magic 3 (valid CRC: the magic is outside it), then a batch."""
    short = struct.pack(">qiib", 1, 20, -1, 3) + bytes(15)
    shaped = _set(_batch(1, 1), ">b", 16, 3)
    return _batch(0, 1) + short + bytes(shaped) + _batch(1, 1)


def _negative_first() -> bytes:
    """A batch at offset 0 whose CRC is broken (refused: no offset is accepted yet), a whole batch
    at offset -1 (refused), then a batch at -1 cut short."""
    broken = _set(_batch(0, 1), ">I", 17, 0)
    minus = bytes(_set(_batch(0, 2), ">q", 0, -1))
    return bytes(broken) + minus + minus[:40]


def _torn_first_at_zero() -> bytes:
    return _batch(0, 2)[:-10]


def _tail_inside_last_batch() -> bytes:
    """Offsets 0-4, then a batch claiming offset 2 cut short."""
    return _batch(0, 5) + _batch(2, 1)[:30]


def _cut_offset_below_last() -> bytes:
    """Offsets 1990-2000, then 7 bytes of a base offset: 00 00 00 00 00 00 05, so the offset is at
    most 0x5ff = 1535, not after 2000."""
    return _batch(1990, 11) + bytes(6) + b"\x05"


def _cut_offset_within_segment() -> bytes:
    """7 bytes of a base offset, 00 00 00 00 00 80 00: at least 0x800000 and at most 0x8000ff, within
    the 2^31 - 1 a segment of base 0 can address: a torn tail."""
    return _batch(0, 1) + bytes(5) + b"\x80\x00"


def _torn_empty_batch() -> bytes:
    """A batch, then an empty batch (length 49, no records) cut after 30 bytes."""
    from groupspec.impl.codec.batch import encode_batch

    return _batch(0, 1) + encode_batch([], base_offset=1, last_offset_delta=0)[:30]


def _torn_after_header_count_zero() -> bytes:
    """A batch, then the 61-byte header of a batch of 0 records whose length says 60: nothing of
    its records section is present (its CRC is over the 72 bytes it would have)."""
    return _batch(0, 1) + _cut_records(1, 0, b"", 60)


def _torn_magic_three() -> bytes:
    return _batch(0, 1) + bytes(_set(_batch(1, 1), ">b", 16, 3))[:40]


def _torn_compression_six() -> bytes:
    one = bytearray(_batch(1, 1))
    one[22] |= 0x06
    return _batch(0, 1) + bytes(one)[:40]


def _gzip_batch(records: list[Any], **kw: Any) -> bytes:
    from groupspec.impl.codec.batch import encode_batch
    from groupspec.impl.codec.compression import Compression

    return encode_batch(records, compression=Compression.GZIP, base_offset=records[0].offset, **kw)


def _many_small_gzip() -> bytes:
    """A gzip batch of 100 equal commits (far more than its compressed length could hold
    uncompressed), cut 7 bytes short."""
    from groupspec.impl.codec.batch import Record

    key, value = _commit(0)
    gz = _gzip_batch([Record(1 + i, 1700000000000, key, value) for i in range(100)])
    return _batch(0, 1) + gz[:-7]


def _repack_gzip_payload(batch: bytes, payload: bytes) -> bytes:
    out = bytearray(batch[:61]) + payload
    struct.pack_into(">i", out, 8, len(out) - 12)
    return _recrc(out)


def _gzip_holding_zlib_cut() -> bytes:
    """A gzip batch whose payload is a zlib stream (not gzip), cut 3 bytes short."""
    from groupspec.impl.codec.batch import Record

    key, value = _commit(1)
    gz = _gzip_batch([Record(1, 1700000000000, key, value)])
    records = zlib.decompress(gz[61:], 16 + zlib.MAX_WBITS)
    return _batch(0, 1) + _repack_gzip_payload(gz, zlib.compress(records))[:-3]


def _gzip_far_cut() -> bytes:
    """A gzip batch of a record whose value is 20000 bytes said twice (back references 20000 bytes
    long, beyond a 16 KiB window), cut 7 bytes short."""
    from groupspec.impl.codec.batch import Record

    key, _ = _commit(1)
    gz = _gzip_batch([Record(1, 1700000000000, key, _noise(20000, b"far edge") * 2)])
    return _batch(0, 1) + gz[:-7]


def _gzip_bytes_after_count_cut() -> bytes:
    """A gzip batch counting one record whose records section holds it and 10 bytes more, cut 7
    bytes short (only uncompressed tails are held to their count)."""
    from groupspec.impl.codec.batch import Record

    key, value = _commit(1)
    gz = _gzip_batch([Record(1, 1700000000000, key, value)])
    records = zlib.decompress(gz[61:], 16 + zlib.MAX_WBITS) + bytes(10)
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    payload = packer.compress(records) + packer.flush()
    return _batch(0, 1) + _repack_gzip_payload(gz, payload)[:-7]


def _torn_length_in_fifth_byte() -> bytes:
    """A tail of two records' batch: the first whole, then 4 bytes 80 80 80 80 of a 5-byte length."""
    return _batch(0, 1) + _cut_records(1, 2, _small_record(0) + b"\x80" * 4, 200)


def _cut_length_too_long() -> bytes:
    """The same, then 6 bytes 80 (a varint longer than 5 bytes: no length at all)."""
    return _batch(0, 1) + _cut_records(1, 2, _small_record(0) + b"\x80" * 6, 200)


def _torn_after_smallest_record() -> bytes:
    """A tail: a record of length 6 (the smallest), then the first 2 bytes of the next."""
    return _batch(0, 1) + _cut_records(1, 2, _small_record(0) + _small_record(1)[:2], 200)


def _cut_record_length_five() -> bytes:
    """A tail whose first record says length 5 (one less than the smallest), with 2 bytes of it."""
    return _batch(0, 1) + _cut_records(1, 2, _zz(5) + b"\x00\x00", 200)


def _cut_holding_batch_within_its_offsets() -> bytes:
    """A batch of offsets 10-12 whose first record's value is a whole valid batch at offset 11,
    cut 20 bytes short: that inner batch does not come after 12, so it is no batch that follows,
    and the tail is torn."""
    from groupspec.impl.codec.batch import Record, encode_batch

    key, value = _commit(10)
    inner = _batch(11, 1)
    outer = encode_batch([Record(10, 1700000000000, key, inner), Record(11, 1700000000000, key, value),
                          Record(12, 1700000000000, key, value)], base_offset=10)
    return _batch(0, 1) + outer[:-20]


def _zstd(base: int) -> bytes:
    from groupspec.impl.codec.compression import Compression

    return _batch(base, 2, compression=Compression.ZSTD)


def _zstd_length_too_long() -> bytes:
    """A whole zstd batch, last in the log, whose length says 10 bytes more than it has."""
    last = _zstd(1)
    return _batch(0, 1) + bytes(_set(last, ">i", 8, len(last) - 12 + 10))


def _zstd_length_over_next_header() -> bytes:
    """A whole zstd batch whose length says 100 bytes more, then the 17-byte header start of the
    next batch (offset 3, magic 2) ending the data."""
    middle = _zstd(1)
    return _batch(0, 1) + bytes(_set(middle, ">i", 8, len(middle) - 12 + 100)) + _batch(3, 1)[:17]


def _empty_zstd_then_batch() -> bytes:
    """A zstd batch of no records and no payload (CRC over its header) whose length says 200 more,
    then a whole batch right after its header."""
    from groupspec.impl.codec.compression import Compression

    head = _header(1, 0, 49 + 200, attributes=int(Compression.ZSTD), last_delta=0)
    struct.pack_into(">I", head, 17, _crc(bytes(head[21:])))
    return _batch(0, 1) + bytes(head) + _batch(2, 1)


def _crc_matching_inside_header() -> bytes:
    """A zstd tail (base offset 1, 1 record, length 200) whose CRC field is the CRC32C of its
    bytes 21-59, with a payload that would make byte 60 the start of a plausible header (magic 2
    at byte 76): a batch never ends inside its own 61-byte header, so the tail is torn."""
    from groupspec.impl.codec.compression import Compression

    head = _header(1, 1, 200, attributes=int(Compression.ZSTD), last_delta=0)
    payload = bytearray(_noise(40, b"inside"))
    payload[7:11] = struct.pack(">i", 100)
    payload[15] = 2
    struct.pack_into(">I", head, 17, _crc(bytes(head[21:60])))
    return _batch(0, 1) + bytes(head) + bytes(payload)


def _control_key_of_five_bytes() -> bytes:
    """A COMMIT marker whose key has a fifth byte after version 0 and type 1 (Kafka reads the first
    4 and ignores the rest: ControlRecordType.parseTypeId)."""
    from groupspec.impl.codec.batch import Record, encode_batch

    key = struct.pack(">hh", 0, 1) + b"\x00"
    value = struct.pack(">hi", 0, 5)
    return _batch(0, 1) + encode_batch([Record(1, 1700000000050, key, value)], base_offset=1,
                                       is_control=True, is_transactional=True, producer_id=4000,
                                       producer_epoch=3)


#: (case, description, build).
LOG_EDGE_CASES: tuple[tuple[str, str, Callable[[], bytes]], ...] = (
    ("batch_tail_of_seven_ff_bytes", "a batch, then 7 bytes of ff: a base offset cut short that can "
     "only be negative, so no torn tail but bytes that cannot be framed", _tail_of_seven_ff),
    ("batch_magic_3", "a magic-3 batch of length 20 (only magic 2 needs 49) and a v2-shaped batch "
     "with magic 3 between good batches: both framed by their length and refused as unsupported",
     _magic_three),
    ("batch_negative_base_offset_first", "a batch at offset -1 after a batch refused for its CRC "
     "(so no offset is accepted yet): refused, and a cut batch at -1 after it is no torn tail",
     _negative_first),
    ("batch_torn_first_batch_at_offset_0", "a log holding only the start of a batch at offset 0: a "
     "torn tail", _torn_first_at_zero),
    ("batch_tail_offset_inside_last_batch", "offsets 0-4, then the start of a batch claiming offset "
     "2: not after the last offset, so no torn tail", _tail_inside_last_batch),
    ("batch_tail_cut_offset_not_after_last", "offsets 1990-2000, then 7 bytes of a base offset that "
     "can be at most 1535: no torn tail", _cut_offset_below_last),
    ("batch_tail_cut_offset_within_segment", "7 bytes of a base offset between 0x800000 and "
     "0x8000ff, within what segment 0 can address: a torn tail", _cut_offset_within_segment),
    ("batch_torn_empty_batch", "an empty batch (length 49, the smallest) cut after 30 bytes: a torn "
     "tail", _torn_empty_batch),
    ("batch_torn_after_header_of_count_0", "the 61-byte header of a batch counting 0 records, its "
     "length 60, nothing after: a torn tail", _torn_after_header_count_zero),
    ("batch_tail_magic_3", "the start of a batch with magic 3: no torn tail", _torn_magic_three),
    ("batch_tail_compression_6", "the start of a batch with compression id 6: no torn tail",
     _torn_compression_six),
    ("batch_torn_gzip_of_100_records", "a gzip batch of 100 records in fewer bytes than 100 "
     "uncompressed records take, cut 7 bytes short: a torn tail (only an uncompressed count is held "
     "to the length)", _many_small_gzip),
    ("batch_tail_gzip_holding_zlib", "a gzip batch whose payload is a zlib stream, cut short: no "
     "torn tail", _gzip_holding_zlib_cut),
    ("batch_torn_gzip_far_references", "a gzip batch with back references 20000 bytes long, cut 7 "
     "bytes short: inflates with gzip's 32 KiB window, a torn tail", _gzip_far_cut),
    ("batch_torn_gzip_bytes_after_count", "a gzip batch whose records section holds 10 bytes after "
     "the one record it counts, cut short: a torn tail (gzip tails are only inflated)",
     _gzip_bytes_after_count_cut),
    ("batch_torn_record_length_in_fifth_byte", "a tail ending in 4 bytes 80 80 80 80, the start of "
     "a 5-byte record length: a torn tail", _torn_length_in_fifth_byte),
    ("batch_tail_record_length_too_long", "a tail holding 6 bytes 80 where a record length should "
     "be (a varint is at most 5 bytes): no torn tail", _cut_length_too_long),
    ("batch_torn_after_smallest_record", "a tail holding a record of length 6 (no key, no value, no "
     "headers: the smallest) and 2 bytes of the next: a torn tail", _torn_after_smallest_record),
    ("batch_tail_record_length_5", "a tail whose first record says length 5, below the smallest: "
     "no torn tail", _cut_record_length_five),
    ("batch_torn_holding_batch_within_its_offsets", "a tail of offsets 10-12 whose record holds a "
     "whole valid batch at offset 11 (not after 12): a torn tail", _cut_holding_batch_within_its_offsets),
    ("batch_zstd_length_past_end", "a whole zstd batch last in the log whose length says 10 bytes "
     "more: its CRC32C matches where the data ends, so it is complete and its length wrong, no torn "
     "tail", _zstd_length_too_long),
    ("batch_zstd_length_over_next_header", "a whole zstd batch whose length runs over the 17-byte "
     "header start of the next batch: its CRC32C matches before that header, no torn tail",
     _zstd_length_over_next_header),
    ("batch_empty_zstd_length_over_next_batch", "a zstd batch of no records and no payload whose "
     "length runs over the whole batch right after its header: its CRC32C matches there, no torn "
     "tail", _empty_zstd_then_batch),
    ("batch_torn_crc_matching_inside_header", "a zstd tail whose CRC32C is that of its own header's "
     "bytes 21-59: a batch never ends inside its 61-byte header, a torn tail", _crc_matching_inside_header),
    ("batch_control_key_of_5_bytes", "a COMMIT marker whose key has a byte after version and type: "
     "read as a COMMIT, as Kafka reads it", _control_key_of_five_bytes),
)


# --- read_log and decode_partition ---------------------------------------------------------------

#: (case, description, read_log input).
READ_EDGE_CASES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("batch_read_torn_header_of_14_bytes", "a torn tail of 14 bytes (offset, length and 2 bytes "
     "more): it needs the 12 + length bytes its length says",
     {"files": {_SEG: (_batch(0, 1) + _batch(1, 1)[:14]).hex()}}),
)


def _bad_first_record_gzip() -> bytes:
    """A gzip batch whose second record repeats the first's offset delta, cut 7 bytes short."""
    from groupspec.impl.codec.batch import Record

    key, value = _commit(1)
    gz = _gzip_batch([Record(1, 1700000000000, key, value), Record(2, 1700000000000, key, value)])
    from groupspec.impl.codec.varint import read_varint

    records = bytearray(zlib.decompress(gz[61:], 16 + zlib.MAX_WBITS))
    size, second = read_varint(bytes(records), 0)
    _, body = read_varint(bytes(records), second + size)  # the second record's fields start at body
    assert records[body + 2] == _zz(1)[0]  # attributes, timestamp delta 0, offset delta 1
    records[body + 2] = _zz(0)[0]
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return _repack_gzip_payload(gz, packer.compress(bytes(records)) + packer.flush())[:-7]


def _gzip_too_far_after_one_byte() -> bytes:
    """A gzip tail at offset 3 whose deflate stream (one fixed-Huffman block, written bit by bit)
    holds the literal X, then a copy of 3 bytes from 2 bytes back: only 1 byte precedes it, so
    inflating it fails at the second byte of output."""
    from groupspec.impl.codec.compression import Compression

    bits: list[int] = []

    def lsb_first(value: int, n: int) -> None:  # block header fields
        bits.extend((value >> i) & 1 for i in range(n))

    def code(value: int, n: int) -> None:  # Huffman codes go most significant bit first
        bits.extend((value >> i) & 1 for i in reversed(range(n)))

    lsb_first(1, 1)  # BFINAL
    lsb_first(1, 2)  # BTYPE 01: fixed Huffman codes
    code(0x30 + ord("X"), 8)  # literal X
    code(1, 7)  # length code 257: 3 bytes
    code(1, 5)  # distance code 1: 2 bytes back
    code(0, 7)  # end of block
    bits.extend([0] * (-len(bits) % 8))
    deflate = bytes(sum(b << i for i, b in enumerate(bits[k:k + 8])) for k in range(0, len(bits), 8))
    payload = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + deflate  # a gzip member's header
    head = _header(3, 1, 200, attributes=int(Compression.GZIP), last_delta=0)
    # the CRC of the whole batch the header announces (its payload then zeros), not of the cut
    struct.pack_into(">I", head, 17, _crc(bytes(head[21:]) + payload + bytes(212 - 61 - len(payload))))
    return bytes(head) + payload


#: (case, description, files, options).
PARTITION_EDGE_CASES: tuple[tuple[str, str, Callable[[], dict[str, bytes]], dict[str, Any]], ...] = (
    ("batch_partition_max_batch_bytes_0", "maxBatchBytes 0 (allowed: nothing may decompress) and a "
     "gzip tail whose second record repeats the first's offset delta: at most 1 byte is inflated to "
     "look at it, so it reads as a torn tail",
     lambda: {_SEG: _batch(0, 1) + _bad_first_record_gzip()}, {"maxBatchBytes": 0}),
    ("batch_partition_max_batch_bytes_1", "maxBatchBytes 1 and a gzip tail whose second byte of "
     "output copies from before the first: only 1 byte is inflated, so the damage is not seen and "
     "the tail is torn", lambda: {_SEG: _batch(0, 1) + _gzip_too_far_after_one_byte()}, {"maxBatchBytes": 1}),
    ("batch_partition_max_batch_bytes_negative", "maxBatchBytes -1: refused",
     lambda: {_SEG: _batch(0, 1)}, {"maxBatchBytes": -1}),
)


def _log_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance.records import decode_log_answer
    from groupspec.conformance.targets import error_kind
    from groupspec.types.records import OFFSETS_TOPIC
    from tests.scenarios.records.batch_cases import _doc

    for case, description, build in LOG_EDGE_CASES:
        doc_input = {"topic": OFFSETS_TOPIC, "log": build().hex()}
        try:
            expected: dict[str, Any] = decode_log_answer(doc_input)
        except Exception as exc:  # the reader's refusal is the expectation
            expected = {"error": error_kind(exc)}
        doc = _doc("decode_log", case, description, doc_input, expected, "impl/codec/batch.py module doc")
        yield {**doc, "source": {"kind": "generated", "ref": "bytes written by groupspec, cut or damaged"}}


def _read_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance.records_batch import read_log_answer
    from groupspec.conformance.targets import error_kind
    from tests.scenarios.records.batch_cases import _doc

    for case, description, doc_input in READ_EDGE_CASES:
        try:
            expected: dict[str, Any] = read_log_answer(doc_input)
        except Exception as exc:
            expected = {"error": error_kind(exc)}
        yield _doc("read_log", case, description, doc_input, expected,
                   "LogLoader.java, FileLogInputStream.java")


def _partition_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.records_partition import decode_partition_answer
    from groupspec.conformance.targets import error_kind
    from groupspec.types.records import OFFSETS_TOPIC

    for case, description, files, options in PARTITION_EDGE_CASES:
        hexed = {name: data.hex() for name, data in files().items()}
        doc_input: dict[str, Any] = {"topic": OFFSETS_TOPIC, "files": hexed, "options": options}
        try:
            expected: dict[str, Any] = decode_partition_answer(doc_input)
        except Exception as exc:
            expected = {"error": error_kind(exc)}
        yield {"format": vf.FORMAT_VERSION, "machine": "records", "handler": "decode_partition",
               "case": case, "description": description,
               "source": {"kind": "generated", "ref": "bytes written by groupspec, cut or damaged"},
               "mode": "exact", "properties": [], "input": doc_input,
               "expected": expected, "expected_kafka": expected}


def batch_edge_vector_docs() -> Iterator[dict[str, Any]]:
    """decode_log's, read_log's and decode_partition's vectors of this catalogue."""
    yield from _log_docs()
    yield from _read_docs()
    yield from _partition_docs()

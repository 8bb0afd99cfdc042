"""More conformance vectors of the records machine's batch reader and writer: the edges the
mutation pass of 2026-11-26 found unpinned in impl/codec/batch.py's record reading
(``_decode_records``, ``_read_headers``), its torn-tail judgement (``_hidden_end``) and its writer
(``encode_batch``, ``encode_control_batch``).

decode_log vectors are logs of several batches: the reader quarantines a bad batch whose framing
is sound and goes on with the next, so one log pins several edges, each batch one of them. Each
damaged batch is built by hand (its records section written byte by byte, its length, count and
CRC32C set to match) and named in its builder's docstring. What Kafka's reader does with each
(``DefaultRecord.readFrom``, ``DefaultRecordBatch``) is said there too; where groupspec's reader
is stricter than Kafka's (a key or value length below -1, offset deltas that do not grow) it
follows the rules its module doc states.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Any

from tests.scenarios.records.log_cases import COMMIT_KEY, COMMIT_V3, T0

_INT32_MAX = (1 << 31) - 1


# --- building blocks --------------------------------------------------------------------------


def _zz(value: int) -> bytes:
    from tests.scenarios.records.log_cases import _zz as zz

    return zz(value)


def _bytes(data: bytes | None) -> bytes:
    """A key, value or header value as a record holds it: a zig-zag length, then the bytes."""
    return _zz(-1) if data is None else _zz(len(data)) + data


def _fields(*, ts: bytes = b"\x00", od: bytes = b"\x00", key: bytes = _bytes(COMMIT_KEY),
            value: bytes = _bytes(COMMIT_V3), headers: bytes = b"\x00") -> bytes:
    """A record's fields after its length: attributes 0, then each field's bytes as given."""
    return b"\x00" + ts + od + key + value + headers


def _framed(body: bytes) -> bytes:
    """A record: its body's length, then the body."""
    return _zz(len(body)) + body


def _section_batch(base: int, section: bytes, count: int, *, last_delta: int = 0, codec: str = "none",
                   epoch: int = -1) -> bytes:
    """An uncompressed (or ``codec``) batch at ``base`` whose records section is ``section`` as
    given, its count, last offset delta, length and CRC32C set to match."""
    from groupspec.impl.codec.batch import encode_batch
    from groupspec.impl.codec.compression import Compression, compress

    compression = Compression[codec.upper()]
    batch = bytearray(encode_batch([], base_offset=base, compression=compression,
                                   partition_leader_epoch=epoch)[:61])
    batch += compress(compression, section) if section or compression is Compression.NONE else b""
    struct.pack_into(">i", batch, 8, len(batch) - 12)
    struct.pack_into(">i", batch, 23, last_delta)
    struct.pack_into(">q", batch, 27, T0)
    struct.pack_into(">q", batch, 35, T0)
    struct.pack_into(">i", batch, 57, count)
    return _recrc(batch)


def _recrc(batch: bytearray) -> bytes:
    from tests.scenarios.records.log_cases import _recrc as recrc

    return recrc(batch)


def _good(base: int, count: int = 1, **kw: Any) -> bytes:
    """A batch of ``count`` OffsetCommit records from ``base``, as groupspec's writer makes it."""
    from tests.scenarios.records.log_cases import _commit, _ours

    return _ours(base, [_commit(base + i, partition=i) for i in range(count)], **kw)


_COMMIT = _framed(_fields())


# --- decode_log: varints of two bytes whose value is negative ---------------------------------


_MINUS_65 = b"\x81\x01"  # zig-zag -65: 129, two varint bytes


def _negative_two_byte_varints() -> bytes:
    """Record fields whose varint takes two bytes and whose value is negative (the first byte's
    low bit set): a timestamp delta of -65 (81 01), read as such; then, each in a batch of its
    own and refused, a record length of -71 (8d 01) over 70 bytes of a record, an offset delta of
    -65 in a batch whose last offset delta is 64, a key length of -65 and a value length of -65
    before 64 bytes; then a good batch. Kafka takes a negative length as null and never checks an
    offset delta, but every batch of these fails its record-size check (``DefaultRecord.readFrom``:
    the fields do not take the length the record says), as groupspec's reader finds too."""
    padded = _fields(value=_bytes(COMMIT_V3 + b"\x00" * (70 - len(_fields()))))
    assert len(padded) == 70
    key64, value64 = b"k" * 64, b"v" * 64
    return b"".join((
        _section_batch(0, _framed(_fields(ts=_zz(-65))), 1),
        _section_batch(100, _zz(-71) + padded, 1),
        _section_batch(200, _framed(_fields(od=_zz(-65))), 1, last_delta=64),
        _section_batch(300, _zz(len(_fields(key=_bytes(key64)))) + _fields(key=_MINUS_65 + key64), 1),
        _section_batch(400, _zz(len(_fields(value=_bytes(value64)))) + _fields(value=_MINUS_65 + value64), 1),
        _good(500),
    ))


# --- decode_log: record fields at their edges ---------------------------------------------------


def _record_field_edges() -> bytes:
    """Records Kafka's reader and groupspec's take: an empty key and an empty value (length 0);
    the smallest record, 6 bytes (null key and value, no headers); a record with headers of
    non-empty key and value; a key of 20,000 bytes (a three-byte length whose second byte is
    b8, above 0x80); a gzip batch counting no records whose payload is empty (Kafka's reader
    looks at no records when the count is 0)."""
    empty = _framed(_fields(key=_bytes(b""), value=_bytes(b"")))
    smallest = _framed(_fields(key=_bytes(None), value=_bytes(None)))
    assert len(smallest) == 7
    headers = _zz(2) + _bytes(b"trace") + _bytes(b"\x01\x02") + _bytes(b"id") + _bytes(b"x" * 70)
    wide_key = b"w" * 20_000
    assert _zz(20_000)[1] > 0x80
    return b"".join((
        _section_batch(0, empty, 1),
        _section_batch(1, smallest, 1),
        _section_batch(2, _framed(_fields(headers=headers)), 1),
        _section_batch(3, _framed(_fields(key=_bytes(wide_key))), 1),
        _section_batch(4, b"", 0, codec="gzip"),
        _good(5),
    ))


def _records_refused() -> bytes:
    """Batches refused for their records, each its own damage, then a good batch: offset deltas
    1 then 0 (not growing); a first offset delta of -1; a record whose length takes in the
    record after it too (its fields end one record early: Kafka's 'Invalid record size'); a
    record count of -1 over no records (Kafka: 'Found invalid record count'); a last offset
    delta of -1 over no records."""
    first, back = _framed(_fields(od=_zz(1))), _framed(_fields(od=_zz(0)))
    inner = _fields(od=_zz(1))
    swallowing = _framed(_fields() + _framed(inner))
    return b"".join((
        _section_batch(0, first + back, 2, last_delta=1),
        _section_batch(10, _framed(_fields(od=_zz(-1))), 1),
        _section_batch(20, swallowing, 2, last_delta=1),
        _section_batch(30, b"", -1),
        _section_batch(40, b"", 0, last_delta=-1),
        _good(50),
    ))


def _lengths_below_minus_one() -> bytes:
    """A key length, a value length and a header value length of -2, each in a batch of its own
    (the rest of the record as -1 would leave it), then a good batch. Kafka's reader takes any
    negative length as null (``Utils.readBytes``); groupspec's refuses a length below -1 (its
    module doc: no writer writes one, so it is damage)."""
    header = _zz(1) + _bytes(b"h") + _zz(-2)
    return b"".join((
        _section_batch(0, _framed(_fields(key=_zz(-2))), 1),
        _section_batch(1, _framed(_fields(value=_zz(-2))), 1),
        _section_batch(2, _framed(_fields(headers=header)), 1),
        _good(3),
    ))


# --- decode_log: fields that run off the end of the records section ---------------------------


def _fields_off_the_section() -> bytes:
    """gzip batches (their records section ends where the decompressed data does), each refused:
    a lone length byte 7f (-64) after a record in a batch counting 2 (malformed); a count of 2
    over one record (malformed); a record of length 5 (malformed); a key, a value, a header key
    running past the record (malformed) and ending exactly where the record and the data end, the
    next field then missing (truncated); a header count of 100 over no headers (malformed); a
    second header after a header value running past the record (malformed); an offset delta, a
    key length, a value length of -64 (the one byte 7f) that end the data (malformed, their
    value known from that byte: a timestamp delta of 2^28 or 2^21 before them); then a good batch,
    then an uncompressed batch counting 2 records in 7 bytes (malformed: they cannot fit), the
    last byte of the data a header count varint that goes on (80)."""
    fill = _COMMIT
    key_end = b"\x00\x00\x00" + _bytes(b"kkkk")
    value_end = b"\x00\x00\x00" + _bytes(None) + _bytes(b"vvvv")
    header_key_end = _fields(headers=_zz(1) + _bytes(b"ab"))
    sections = [
        (fill + b"\x7f", 2),
        (fill, 2),
        (fill + _zz(5) + b"\x00\x00" + _zz(1) + b"\x01\x01", 2),
        (_framed(b"\x00\x00\x00" + _zz(100) + b"kk"), 1),
        (_framed(key_end), 1),
        (_framed(b"\x00\x00\x00\x01" + _zz(100) + b"vv"), 1),
        (_framed(value_end), 1),
        (_framed(_fields(headers=_zz(100))), 1),
        (_framed(_fields(headers=_zz(1) + _zz(50) + b"ab")), 1),
        (_framed(header_key_end), 1),
        (_framed(_fields(headers=_zz(2) + _bytes(b"a") + _zz(50) + b"xy")), 1),
        (_framed(b"\x00" + _zz(1 << 28) + b"\x7f"), 1),
        (_framed(b"\x00" + _zz(1 << 21) + b"\x00\x7f"), 1),
        (_framed(b"\x00\x00\x00" + _bytes(b"k") + b"\x7f"), 1),
    ]
    out = [_section_batch(10 * i, section, count, codec="gzip")
           for i, (section, count) in enumerate(sections)]
    out.append(_good(200))
    out.append(_section_batch(300, b"\x0c\x00\x00\x00\x01\x01\x80", 2))
    return b"".join(out)


# --- decode_log: when the data ends inside a batch, is it a torn tail? --------------------------


def _longer(batch: bytes, more: int = 500, crc_flip: bool = False) -> bytes:
    """``batch`` with its length field ``more`` bytes longer (outside the CRC), its CRC field
    flipped when ``crc_flip``."""
    out = bytearray(batch)
    struct.pack_into(">i", out, 8, struct.unpack_from(">i", out, 8)[0] + more)
    if crc_flip:
        out[20] ^= 0x01
    return bytes(out)


def _zstd(base: int) -> bytes:
    return _good(base, 1, compression=_codec("zstd"))


def _codec(name: str) -> Any:
    from groupspec.impl.codec.compression import Compression

    return Compression[name.upper()]


def _empty(base: int, epoch: int = -1) -> bytes:
    """A batch of no records (length 49, 61 bytes), as the cleaner keeps for a producer."""
    from groupspec.impl.codec.batch import encode_batch

    return encode_batch([], base_offset=base, partition_leader_epoch=epoch)


def _zstd_then(after: Callable[[], bytes], *, crc_flip: bool = False) -> Callable[[], bytes]:
    """A good batch (offsets 0-2), a one-record zstd batch at 3 whose length reaches past the end
    of the data, then ``after()``."""
    def build() -> bytes:
        return _good(0, 3) + _longer(_zstd(3), crc_flip=crc_flip) + after()
    return build


def _cut_holding_high_crc_batch() -> bytes:
    """A good batch, then a torn batch whose one record's value holds a whole batch with a CRC
    field of ffffffff (above the CRC its bytes give): no valid batch inside, so a torn tail."""
    from groupspec.impl.codec.batch import Record, encode_batch

    inner = bytearray(_good(9))
    struct.pack_into(">I", inner, 17, 0xFFFFFFFF)
    second = encode_batch([Record(3, T0, COMMIT_KEY, bytes(inner) + b"\x00" * 40)], base_offset=3)
    return _good(0, 3) + second[:len(second) - 20]


# --- encode_batch ---------------------------------------------------------------------------------


def _rec(offset: int, timestamp: int = T0) -> dict[str, Any]:
    return {"offset": offset, "timestamp": timestamp, "key": COMMIT_KEY.hex(), "value": COMMIT_V3.hex()}


_PRODUCER = {"producerEpoch": 0, "baseSequence": 0}

#: (case, description, batch fields, records): batches the writer makes.
ENCODE_CASES: tuple[tuple[str, str, dict[str, Any], list[dict[str, Any]]], ...] = (
    ("writer_transactional_producer_id_zero", "a transactional batch of producer id 0, the first id "
     "a broker hands out (Kafka refuses only the 'no producer' id -1)",
     {"transactional": True, "producerId": 0, **_PRODUCER}, [_rec(0)]),
)

#: (case, description, batch fields, records): inputs the writer refuses (``invalid_input``).
REFUSED_CASES: tuple[tuple[str, str, dict[str, Any], list[dict[str, Any]]], ...] = (
    ("writer_refused_delete_horizon_after_base", "a delete horizon after the base timestamp given: "
     "the horizon is stored as the base timestamp, so the two must agree",
     {"deleteHorizonMs": T0 + 1, "baseTimestamp": T0}, []),
    ("writer_refused_record_before_base_with_later_one", "records at offsets 4 and 5 in a batch of "
     "base offset 5: the first is before the base (its offset delta would be -1)", {"baseOffset": 5},
     [_rec(4), _rec(5)]),
    ("writer_refused_timestamp_delta_far_past_int64", "base timestamp -2^63 and a record at 1: the "
     "delta 2^63 + 1 does not fit an int64 varlong", {"baseTimestamp": -(1 << 63)}, [_rec(0, 1)]),
    ("writer_refused_marker_epoch_below_int32", "a marker with coordinator epoch -2^31 - 1",
     {"producerId": 1, "producerEpoch": 0, "transactional": True, "control": True},
     [{"offset": 0, "timestamp": T0, "control": True, "marker": "COMMIT",
       "coordinatorEpoch": -(1 << 31) - 1}]),
)

#: (case, description, build): decode_log vectors.
LOG_CASES: tuple[tuple[str, str, Callable[[], bytes]], ...] = (
    ("batch2_negative_two_byte_varints", "two-byte varints of negative value: a timestamp delta of "
     "-65 read; a record length, an offset delta, a key length and a value length of -65 or -71 "
     "refused (each its own batch); then a good batch", _negative_two_byte_varints),
    ("batch2_record_field_edges", "an empty key and value, the smallest record (6 bytes), headers, a "
     "key of 20,000 bytes, an empty gzip batch whose payload is empty too: all read",
     _record_field_edges),
    ("batch2_records_refused", "offset deltas going back, a first offset delta of -1, a record whose "
     "length takes in the next, a record count of -1, a last offset delta of -1: each batch refused, "
     "then a good batch", _records_refused),
    ("batch2_lengths_below_minus_one", "a key, a value and a header value length of -2 (Kafka reads "
     "them as null, groupspec refuses them as damage): each batch refused, then a good batch",
     _lengths_below_minus_one),
    ("batch2_fields_off_the_records_section", "records whose fields run past their length or the end "
     "of the records section (malformed), or whose last field ends where the data does, the next one "
     "missing (truncated)", _fields_off_the_section),
    ("batch2_tail_over_an_empty_batch", "a zstd batch whose length runs past the end over an empty "
     "batch (length 49, leader epoch 2: a byte 02 just before its magic) that starts where its CRC32C "
     "shows it ends: no torn tail", _zstd_then(lambda: _empty(10, epoch=2))),
    ("batch2_tail_over_a_batch_at_its_last_offset", "a zstd batch whose length runs past the end, over "
     "a batch at its own last offset (3): that batch cannot follow it, so the data ends in a torn "
     "tail", _zstd_then(lambda: _good(3))),
    ("batch2_tail_over_a_batch_before_its_last_offset", "the same over a batch at offset 2, before "
     "its offsets: a torn tail", _zstd_then(lambda: _good(2))),
    ("batch2_tail_complete_with_longer_length", "a last zstd batch, complete, its length 500 bytes "
     "longer: its CRC32C matches the bytes up to the end of the data, so no torn tail",
     _zstd_then(lambda: b"")),
    ("batch2_tail_complete_then_16_bytes", "the same, then 16 bytes (fewer than a batch header's 17): "
     "no torn tail", _zstd_then(lambda: b"\x00" * 16)),
    ("batch2_tail_complete_then_17_bytes", "the same, then 17 zero bytes (a header of base offset 0, "
     "not after it, magic 0): the batch could be complete only before a batch header, so a torn tail",
     _zstd_then(lambda: b"\x00" * 17)),
    ("batch2_tail_bad_crc_over_an_empty_batch", "a zstd batch with its CRC field flipped whose length "
     "runs past the end, over an empty batch that ends the data: no torn tail",
     _zstd_then(lambda: _empty(10), crc_flip=True)),
    ("batch2_tail_bad_crc_over_a_batch_then_bytes", "a zstd batch with its CRC field flipped whose "
     "length runs past the end, over a good batch and 5 more bytes: no torn tail",
     _zstd_then(lambda: _good(10) + b"\x00" * 5, crc_flip=True)),
    ("batch2_tail_holding_a_high_crc_batch", "a torn last batch whose record holds a whole batch with "
     "a CRC32C field of ffffffff: that inner batch is not valid, so the tail is still torn",
     _cut_holding_high_crc_batch),
)


def batch_write_vector_docs() -> Iterator[dict[str, Any]]:
    """encode_batch's vectors of this catalogue, then its decode_log vectors."""
    from groupspec.conformance.records import decode_log_answer
    from groupspec.conformance.targets import error_kind
    from groupspec.types.records import OFFSETS_TOPIC
    from tests.scenarios.records.batch_cases import _doc, encode_batch_docs

    yield from encode_batch_docs(ENCODE_CASES, REFUSED_CASES)
    for case, description, build in LOG_CASES:
        doc_input = {"topic": OFFSETS_TOPIC, "log": build().hex()}
        try:
            expected: dict[str, Any] = decode_log_answer(doc_input)
        except Exception as exc:  # the reader's refusal is the expectation
            expected = {"error": error_kind(exc)}
        yield _doc("decode_log", case, description, doc_input, expected,
                   "bytes written by groupspec, damaged by hand", "generated")

"""Record batches (magic 2) and their compressions, checked against an independent implementation.

kafka-python 3.0.12 is the independent side: its batch builder writes what our reader must read,
and its batch reader reads what our writer writes, in every compression. Control batches and
the old message formats are built by hand from Kafka's layout, byte by byte.
"""

from __future__ import annotations

import gzip
import struct
import warnings
import zlib

import google_crc32c
import lz4.frame
import pytest
import zstandard
from hypothesis import event, given
from hypothesis import strategies as st

from groupspec.impl.codec.batch import (
    BadBatch,
    BatchReader,
    ControlMarker,
    ControlType,
    PartialBatch,
    Record,
    RecordBatch,
    TimestampType,
    decode_batch,
    decode_control_marker,
    encode_batch,
    encode_control_batch,
    read_batches,
)
from groupspec.impl.codec.compression import Compression, compress, decompress
from groupspec.impl.codec.errors import (
    CodecError,
    CompressionError,
    CorruptBatchError,
    MalformedError,
    TruncatedError,
    UnsupportedMagicError,
)
from groupspec.types import InputError

with warnings.catch_warnings():  # kafka-python 3.0.12 loads its schemas through a deprecated importlib call
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka import codec as kafka_codec
    from kafka.record.default_records import DefaultRecordBatch as KafkaBatch
    from kafka.record.default_records import DefaultRecordBatchBuilder as KafkaBatchBuilder
    from kafka.record.legacy_records import LegacyRecordBatch
    from kafka.record.memory_records import MemoryRecords

COMPRESSIONS = list(Compression)

# An OffsetCommit-looking key and value, repeated so that every codec really shrinks the batch
# (kafka-python's builder falls back to no compression when it would not).
KEY = b"\x00\x01\x00\x09testgroup\x00\x06orders\x00\x00\x00\x07"
VALUE = b"\x00\x03" + bytes(8) + b"\x00\x00\x00\x07\x00\x06meta-x" + bytes(8)


def sample_records(base: int = 0, n: int = 40) -> list[Record]:
    """Keys and values null and not, headers with null values and non-ASCII keys, offset gaps."""
    out = []
    for i in range(n):
        key = None if i % 7 == 3 else KEY + bytes([i])
        value = None if i % 5 == 4 else VALUE * (1 + i % 3)
        headers: tuple[tuple[str, bytes | None], ...] = ()
        if i % 3 == 1:
            headers = (("trace", b"abc"), ("né", None), ("", b""))
        out.append(Record(base + 2 * i, 1_700_000_000_000 + 10 * i - (i % 4), key, value, headers))
    return out


def as_tuples(records):
    return [(r.offset, r.timestamp, r.key, r.value, tuple(tuple(h) for h in r.headers)) for r in records]


def kafka_python_batch(records, base_offset, compression, *, transactional=False, producer_id=-1,
                       producer_epoch=-1, base_sequence=-1):
    builder = KafkaBatchBuilder(2, int(compression), transactional, producer_id, producer_epoch,
                                base_sequence, batch_size=1 << 30)
    for r in records:
        builder.append(r.offset - base_offset, r.timestamp, r.key, r.value, list(r.headers))
    return bytes(builder.build())


# --- (1) the independent writer and reader --------------------------------------------------


@pytest.mark.parametrize("compression", COMPRESSIONS, ids=lambda c: c.name)
def test_reads_kafka_python_batches(compression):
    records = sample_records()
    data = kafka_python_batch(records, 0, compression, transactional=True, producer_id=4242,
                              producer_epoch=3, base_sequence=17)
    batch = decode_batch(data)
    assert batch.compression is compression  # the data compresses, so the builder kept the codec
    assert as_tuples(batch.records) == as_tuples(records)
    assert (batch.is_transactional, batch.producer_id, batch.producer_epoch, batch.base_sequence) == (
        True, 4242, 3, 17)
    assert batch.last_offset == records[-1].offset
    assert batch.base_timestamp == records[0].timestamp
    assert batch.max_timestamp == max(r.timestamp for r in records)


@pytest.mark.parametrize("compression", COMPRESSIONS, ids=lambda c: c.name)
def test_kafka_python_reads_our_batches(compression):
    first = sample_records(100, 30)
    second = sample_records(200, 10)
    data = (encode_batch(first, base_offset=100, compression=compression, is_transactional=True,
                         producer_id=9, producer_epoch=1, base_sequence=5, partition_leader_epoch=12)
            + encode_batch(second, base_offset=200, compression=compression,
                           timestamp_type=TimestampType.LOG_APPEND_TIME, max_timestamp=1_800_000_000_000))
    batches = list(MemoryRecords(data))
    assert len(batches) == 2
    for theirs in batches:
        assert theirs.validate_crc()
        assert theirs.compression_type == int(compression)
    assert as_tuples(list(batches[0])) == as_tuples(first)
    assert as_tuples(list(batches[1])) == [(r.offset, 1_800_000_000_000, r.key, r.value, r.headers)
                                           for r in second]  # LogAppendTime: every record the batch's time
    head = batches[0]
    assert (head.is_transactional, head.producer_id, head.producer_epoch, head.base_sequence,
            head.leader_epoch, head.base_offset) == (True, 9, 1, 5, 12, 100)


def test_uncompressed_bytes_equal_kafka_pythons():
    """With no compression there is one right encoding; both writers must produce it."""
    records = sample_records(0, 25)
    ours = encode_batch(records, partition_leader_epoch=0, producer_id=7, producer_epoch=2,
                        base_sequence=0)
    theirs = kafka_python_batch(records, 0, Compression.NONE, producer_id=7, producer_epoch=2,
                                base_sequence=0)
    assert ours == theirs


@given(st.data())
def test_kafka_python_builder_agrees_on_random_batches(data):
    records = data.draw(record_lists(base_offset=0, max_records=12))
    if not records:
        return  # kafka-python's builder cannot write an empty batch
    compression = data.draw(st.sampled_from(COMPRESSIONS))
    batch = decode_batch(kafka_python_batch(records, 0, compression))
    assert batch.compression in (compression, Compression.NONE)
    assert batch.records == tuple(records)
    mine = list(KafkaBatch(encode_batch(records, compression=compression)))
    assert as_tuples(mine) == as_tuples(records)


# --- (2) control batches, built by hand -------------------------------------------------------


def hand_built_control_batch(control_type: int, coordinator_epoch: int, *, offset=500, timestamp=1234,
                             producer_id=77, producer_epoch=4, key_version=0, value_version=0) -> bytes:
    """A transaction marker batch from Kafka's layout, field by field (no groupspec code)."""
    key = struct.pack(">hh", key_version, control_type)
    value = struct.pack(">hi", value_version, coordinator_epoch)
    body = (b"\x00"            # record attributes
            + b"\x00"          # timestamp delta 0
            + b"\x00"          # offset delta 0
            + bytes([len(key) * 2]) + key
            + bytes([len(value) * 2]) + value
            + b"\x00")         # no headers
    record = bytes([len(body) * 2]) + body
    after_crc = struct.pack(">hiqqqhii", 0x30,  # attributes: transactional | control
                            0, timestamp, timestamp, producer_id, producer_epoch, -1, 1) + record
    crc = google_crc32c.value(after_crc)
    length = 4 + 1 + 4 + len(after_crc)
    return struct.pack(">qiibI", offset, length, -1, 2, crc) + after_crc


@pytest.mark.parametrize(("control_type", "expected"), [(0, ControlType.ABORT), (1, ControlType.COMMIT)])
def test_control_batches_decode_to_markers(control_type, expected):
    data = hand_built_control_batch(control_type, coordinator_epoch=21)
    batch = decode_batch(data)
    assert batch.is_control and batch.is_transactional
    assert (batch.producer_id, batch.producer_epoch, batch.base_sequence) == (77, 4, -1)
    [record] = batch.records
    marker = decode_control_marker(record)
    assert marker == ControlMarker(expected, 21)
    assert marker.kind == expected.name
    assert encode_control_batch(expected, offset=500, timestamp=1234, producer_id=77, producer_epoch=4,
                                coordinator_epoch=21) == data


def test_control_marker_of_a_newer_version_reads_as_version_0():
    record = decode_batch(hand_built_control_batch(1, 9, key_version=3, value_version=2)).records[0]
    assert decode_control_marker(record) == ControlMarker(ControlType.COMMIT, 9, 3, 2)


@pytest.mark.parametrize(("key", "value", "error", "words"), [
    (struct.pack(">hh", 0, 2), struct.pack(">hi", 0, 1), MalformedError, "LEADER_CHANGE"),
    (struct.pack(">hh", 0, 99), struct.pack(">hi", 0, 1), MalformedError, "type 99"),
    (struct.pack(">hh", -1, 1), struct.pack(">hi", 0, 1), MalformedError, "negative"),
    (struct.pack(">h", 0), struct.pack(">hi", 0, 1), TruncatedError, "4 bytes"),
    (struct.pack(">hh", 0, 0), struct.pack(">h", 0), TruncatedError, "6 bytes"),
    (struct.pack(">hh", 0, 0), None, TruncatedError, "6 bytes"),
    (struct.pack(">hh", 0, 0), struct.pack(">hi", -2, 1), MalformedError, "negative"),
])
def test_invalid_control_records(key, value, error, words):
    with pytest.raises(error, match=words) as info:
        decode_control_marker(Record(33, 0, key, value))
    assert info.value.offset == 33


# --- (3) every batch layout round-trips -------------------------------------------------------

headers = st.lists(st.tuples(st.text(max_size=6), st.none() | st.binary(max_size=6)), max_size=3).map(tuple)
payloads = st.none() | st.binary(max_size=40) | st.sampled_from([KEY, VALUE, b""])


@st.composite
def record_lists(draw, base_offset: int, max_records: int = 8) -> list[Record]:
    n = draw(st.integers(0, max_records))
    offset = base_offset + draw(st.integers(0, 3))
    timestamp = draw(st.integers(-1, 1 << 45))
    out = []
    for _ in range(n):
        out.append(Record(offset, timestamp, draw(payloads), draw(payloads), draw(headers)))
        offset += 1 + draw(st.integers(0, 2) | st.integers(0, 1 << 20))
        timestamp = max(-1, timestamp + draw(st.integers(-5, 5) | st.integers(-(1 << 44), 1 << 44)))
    return out


@st.composite
def batch_layouts(draw):
    base_offset = draw(st.integers(0, 1 << 50))
    records = draw(record_lists(base_offset))
    transactional = draw(st.booleans())
    producer_id = draw(st.integers(0, (1 << 63) - 1)) if transactional else draw(
        st.sampled_from([-1]) | st.integers(0, (1 << 63) - 1))
    extra = draw(st.sampled_from([0, 0, 1, 1000]))
    return dict(
        records=records,
        base_offset=base_offset,
        compression=draw(st.sampled_from(COMPRESSIONS)),
        timestamp_type=draw(st.sampled_from(list(TimestampType))),
        is_transactional=transactional,
        is_control=draw(st.booleans()),
        partition_leader_epoch=draw(st.integers(-(1 << 31), (1 << 31) - 1)),
        producer_id=producer_id,
        producer_epoch=draw(st.integers(-(1 << 15), (1 << 15) - 1)),
        base_sequence=draw(st.integers(-(1 << 31), (1 << 31) - 1)),
        last_offset_delta=(records[-1].offset - base_offset if records else 0) + extra,
        max_timestamp=draw(st.none() | st.integers(-1, 1 << 45)),
        delete_horizon_ms=draw(st.none() | st.integers(0, 1 << 45)),
    )


@given(batch_layouts())
def test_every_batch_layout_round_trips(layout):
    data = encode_batch(**layout)
    batch = decode_batch(data)
    records = layout["records"]
    horizon = layout["delete_horizon_ms"]
    base_timestamp = horizon if horizon is not None else (records[0].timestamp if records else -1)
    max_timestamp = layout["max_timestamp"]
    if max_timestamp is None:
        max_timestamp = max((r.timestamp for r in records), default=-1)
    if layout["timestamp_type"] is TimestampType.LOG_APPEND_TIME:
        records = [Record(r.offset, max_timestamp, r.key, r.value, r.headers) for r in records]
    expected = RecordBatch(
        base_offset=layout["base_offset"],
        partition_leader_epoch=layout["partition_leader_epoch"],
        magic=2,
        crc=google_crc32c.value(data[21:]),
        compression=layout["compression"],
        timestamp_type=layout["timestamp_type"],
        is_transactional=layout["is_transactional"],
        is_control=layout["is_control"],
        has_delete_horizon=horizon is not None,
        last_offset_delta=layout["last_offset_delta"],
        base_timestamp=base_timestamp,
        max_timestamp=max_timestamp,
        producer_id=layout["producer_id"],
        producer_epoch=layout["producer_epoch"],
        base_sequence=layout["base_sequence"],
        records=tuple(records),
    )
    assert batch == expected
    assert batch.delete_horizon_ms == horizon
    assert batch.next_offset == layout["base_offset"] + layout["last_offset_delta"] + 1
    # A torn tail is the start of a batch that could follow this one (a later base offset).
    if batch.next_offset < 1 << 63:
        following = encode_batch([], base_offset=batch.next_offset)
        tail = PartialBatch(len(data), 10, 17, batch.next_offset)
        assert [entry for _, entry in read_batches(data + following[:10])] == [expected, tail]


# --- compression codecs -----------------------------------------------------------------------

TEXT = b"".join(b"group-%d member-%d offset %d\n" % (i % 13, i % 7, i) for i in range(8000))


@pytest.mark.parametrize("compression", COMPRESSIONS, ids=lambda c: c.name)
def test_codecs_round_trip_and_shrink(compression):
    packed = compress(compression, TEXT)
    assert decompress(compression, packed) == TEXT
    assert decompress(compression, compress(compression, b"")) == b""
    if compression is not Compression.NONE:
        assert len(packed) < len(TEXT) // 3


def test_other_libraries_read_our_compression():
    assert gzip.decompress(compress(Compression.GZIP, TEXT)) == TEXT
    assert kafka_codec.snappy_decode(compress(Compression.SNAPPY, TEXT)) == TEXT
    assert lz4.frame.decompress(compress(Compression.LZ4, TEXT)) == TEXT
    assert zstandard.ZstdDecompressor().decompressobj().decompress(compress(Compression.ZSTD, TEXT)) == TEXT


def test_gzip_is_what_javas_gzip_stream_writes():
    packed = compress(Compression.GZIP, TEXT)
    assert packed[:10] == bytes.fromhex("1f8b08000000000000ff")  # no name, mtime 0, OS unknown
    assert struct.unpack("<II", packed[-8:]) == (zlib.crc32(TEXT), len(TEXT))


def test_lz4_frame_is_kafkas():
    """Independent blocks of 64 KiB, no checksums, no content size: python-lz4 writes the same header."""
    packed = compress(Compression.LZ4, TEXT)
    theirs = lz4.frame.compress(TEXT, block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False,
                                content_checksum=False, block_checksum=False, store_size=False)
    assert packed[:7] == theirs[:7] == bytes.fromhex("04224d18604082")
    assert packed.endswith(b"\x00\x00\x00\x00")
    assert lz4.frame.get_frame_info(packed)["block_linked"] is False


def test_lz4_frames_of_any_shape_decode():
    for options in ({}, {"store_size": True, "content_checksum": True, "block_checksum": True},
                    {"block_linked": True, "block_size": lz4.frame.BLOCKSIZE_MAX64KB}):
        assert decompress(Compression.LZ4, lz4.frame.compress(TEXT, **options)) == TEXT


def test_lz4_header_checksum_of_old_kafka_clients_is_refused():
    """Pre-0.10 clients hashed the magic too; Kafka forgives that for magic 0 only."""
    packed = bytearray(compress(Compression.LZ4, TEXT))
    packed[6] ^= 0xFF
    with pytest.raises(CompressionError, match="LZ4"):
        decompress(Compression.LZ4, bytes(packed))


def test_snappy_reads_xerial_raw_and_concatenated_streams():
    xerial = kafka_codec.snappy_encode(TEXT)
    assert xerial[:8] == b"\x82SNAPPY\x00"
    assert decompress(Compression.SNAPPY, xerial) == TEXT
    assert decompress(Compression.SNAPPY, kafka_codec.snappy_encode(TEXT, xerial_compatible=False)) == TEXT
    ours = compress(Compression.SNAPPY, TEXT)
    assert ours[:16] == b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    assert decompress(Compression.SNAPPY, ours + ours) == TEXT + TEXT
    little_endian_header = ours[:8] + struct.pack("<ii", 1, 1) + ours[16:]
    assert decompress(Compression.SNAPPY, little_endian_header) == TEXT


def test_zstd_frames_without_content_size_decode():
    encoder = zstandard.ZstdCompressor(write_content_size=False)
    frame = encoder.compress(TEXT)
    assert zstandard.get_frame_parameters(frame).content_size == zstandard.CONTENTSIZE_UNKNOWN
    assert decompress(Compression.ZSTD, frame + frame) == TEXT + TEXT
    assert zstandard.get_frame_parameters(compress(Compression.ZSTD, TEXT)).content_size == (
        zstandard.CONTENTSIZE_UNKNOWN)


def test_gzip_members_concatenate():
    assert decompress(Compression.GZIP, gzip.compress(b"ab") + gzip.compress(b"cd")) == b"abcd"


@pytest.mark.parametrize("compression", COMPRESSIONS[1:], ids=lambda c: c.name)
@pytest.mark.parametrize("damage", ["garbage", "truncated", "trailing"])
def test_invalid_compressed_data(compression, damage):
    packed = compress(compression, TEXT)
    bad = {"garbage": b"\x00not compressed at all" * 3, "truncated": packed[: len(packed) // 2],
           "trailing": packed + b"\x07junk"}[damage]
    with pytest.raises(CompressionError, match=compression.name):
        decompress(compression, bad)


@pytest.mark.parametrize("codec_id", [5, 6, 7])
def test_invalid_codec_id(codec_id):
    with pytest.raises(CompressionError, match=f"codec id {codec_id}"):
        Compression.of(codec_id)
    data = reseal(encode_batch(sample_records(0, 3)), attributes=codec_id)
    with pytest.raises(CompressionError, match=f"codec id {codec_id}") as info:
        decode_batch(data)
    assert info.value.offset == 0


# --- batch errors -----------------------------------------------------------------------------


def reseal(data: bytes, *, attributes: int | None = None, count: int | None = None,
           body: bytes | None = None) -> bytes:
    """A batch with some covered fields replaced and its length and CRC made right again."""
    out = bytearray(data[:61])
    if attributes is not None:
        struct.pack_into(">h", out, 21, attributes)
    if count is not None:
        struct.pack_into(">i", out, 57, count)
    out += data[61:] if body is None else body
    struct.pack_into(">i", out, 8, len(out) - 12)
    struct.pack_into(">I", out, 17, google_crc32c.value(bytes(out[21:])))
    return bytes(out)


def test_invalid_crc():
    data = bytearray(encode_batch(sample_records(0, 3)))
    data[-1] ^= 1
    with pytest.raises(CorruptBatchError, match="CRC32C") as info:
        decode_batch(bytes(data))
    assert info.value.offset == 0


@pytest.mark.parametrize("count", [2, 4, -1, 1 << 30])
def test_invalid_record_count(count):
    with pytest.raises(MalformedError, match=r"count|left after|bytes"):
        decode_batch(reseal(encode_batch(sample_records(0, 3)), count=count))


@pytest.mark.parametrize("compression", [c for c in Compression if c is not Compression.NONE])
def test_a_compressed_batch_counting_zero_records_is_refused_not_emptied(compression):
    """Issue 15 item 1: a count of 0 on a compressed batch (CRC resealed) used to skip the
    decompression, so every record behind it vanished without a word."""
    data = reseal(encode_batch(sample_records(0, 3), compression=compression), count=0)
    with pytest.raises(MalformedError, match="left after the 0 records"):
        decode_batch(data)


def test_invalid_compressed_records_with_a_valid_crc():
    data = encode_batch(sample_records(0, 3), compression=Compression.ZSTD)
    with pytest.raises(CompressionError, match="ZSTD"):
        decode_batch(reseal(data, body=b"\x28\xb5\x2f\xfd" + bytes(20)))


@pytest.mark.parametrize(("body", "words"), [
    (b"\x0e\x00\x00\x00\x00\x00\x00\x00", "fields take 6 bytes, its length says 7"),
    (b"\x0c\x00\x00\x00\x00\x00\x02", "header count 1 does not fit"),
    (b"\x0c\x00\x00\x00\x03\x00\x00", "key length -2"),
    (b"\x0c\x00\x00\x02\x00\x00\x00", "beyond the batch's last offset delta"),
    (b"\x10\x00\x00\x00\x02\xff\x00\x02\x00", "header key|fits|runs"),
])
def test_invalid_records(body, words):
    with pytest.raises(CodecError, match=words):
        decode_batch(reseal(encode_batch([Record(0, 0, None, None)]), count=1, body=body))


def test_invalid_header_key_utf8():
    body = b"\x12\x00\x00\x00\x01\x01\x02\x02\xff\xfe\x01"
    with pytest.raises(MalformedError, match="UTF-8"):
        decode_batch(reseal(encode_batch([Record(0, 0, None, None)]), count=1, body=body))


def test_lenient_reader_reports_bad_batches_and_goes_on():
    good1 = encode_batch(sample_records(0, 3))
    bad = bytearray(encode_batch(sample_records(10, 3), base_offset=10))
    bad[70] ^= 0x40
    good2 = encode_batch(sample_records(20, 3), base_offset=20)
    data = good1 + bytes(bad) + good2
    entries = list(read_batches(data, lenient=True))
    assert [pos for pos, _ in entries] == [0, len(good1), len(good1) + len(bad)]
    assert isinstance(entries[1][1], BadBatch)
    assert entries[1][1].raw == bytes(bad) and entries[1][1].offset == 10
    assert isinstance(entries[1][1].error, CorruptBatchError)
    assert [e.records for _, e in (entries[0], entries[2])] == [
        tuple(sample_records(0, 3)), tuple(sample_records(20, 3))]
    with pytest.raises(CorruptBatchError, match=f"batch at byte {len(good1)}") as info:
        list(read_batches(data))
    assert info.value.offset == 10


@pytest.mark.parametrize("length", [-5, 0, 13, 20, 48])
def test_invalid_batch_length_ends_even_a_lenient_read(length):
    good = encode_batch(sample_records(0, 3))
    broken = bytearray(encode_batch(sample_records(10, 3), base_offset=10))
    struct.pack_into(">i", broken, 8, length)
    with pytest.raises(MalformedError, match=f"batch length {length}"):
        list(read_batches(good + bytes(broken), lenient=True))


def test_offsets_must_grow():
    first = encode_batch(sample_records(0, 3))  # offsets 0..4
    again = encode_batch(sample_records(4, 3), base_offset=4)
    reader = BatchReader(lenient=True)
    entries = [e for _, e in reader.read(first + again)]
    assert isinstance(entries[1], BadBatch)
    assert "does not come after the last offset 4" in str(entries[1].error)
    assert reader.last_offset == 4  # a refused batch does not move the last offset (issue 15 item 2)
    with pytest.raises(MalformedError, match="negative"):
        list(read_batches(b"\xff" + first[1:]))


def test_partial_batches():
    data = encode_batch(sample_records(0, 3))
    for cut, needed in [(1, 17), (11, 17), (12, len(data)), (16, len(data)), (17, len(data)),
                        (len(data) - 1, len(data))]:
        [(_, entry)] = list(read_batches(data[:cut]))
        assert entry == PartialBatch(0, cut, needed, 0 if cut >= 8 else None)
        assert f"{cut} of {needed} bytes" in entry.describe()
    assert list(read_batches(b"")) == []
    with pytest.raises(TruncatedError):
        decode_batch(data[:-1])
    with pytest.raises(MalformedError, match="follow"):
        decode_batch(data + b"\x00")


# --- (5) the old message formats --------------------------------------------------------------


def legacy_message(offset: int, magic: int, key: bytes | None, value: bytes | None,
                   timestamp: int = 0) -> bytes:
    """One magic-0 or magic-1 message with its log header, from Kafka's legacy layout."""
    def field(data):
        return struct.pack(">i", -1) if data is None else struct.pack(">i", len(data)) + data

    after_crc = struct.pack(">bb", magic, 0) + (struct.pack(">q", timestamp) if magic == 1 else b"")
    after_crc += field(key) + field(value)
    message = struct.pack(">I", zlib.crc32(after_crc)) + after_crc
    return struct.pack(">qi", offset, len(message)) + message


@pytest.mark.parametrize("magic", [0, 1])
def test_old_message_formats_are_refused_by_name(magic):
    data = legacy_message(41, magic, b"k", b"v", 1_500_000_000_000) + legacy_message(42, magic, None, b"w")
    theirs = list(MemoryRecords(data))  # the hand-built bytes are valid legacy messages
    assert all(isinstance(b, LegacyRecordBatch) for b in theirs) and len(theirs) == 2
    with pytest.raises(UnsupportedMagicError) as info:
        list(read_batches(data))
    assert (info.value.offset, info.value.magic) == (41, magic)
    assert "offset 41" in str(info.value) and f"magic {magic}" in str(info.value)
    v2 = encode_batch(sample_records(43, 3), base_offset=43)
    entries = list(read_batches(data + v2, lenient=True))
    assert [type(e) for _, e in entries] == [BadBatch, BadBatch, RecordBatch]
    assert [e.error.magic for _, e in entries[:2]] == [magic, magic]
    assert entries[2][1].records == tuple(sample_records(43, 3))
    with pytest.raises(UnsupportedMagicError):
        decode_batch(data[: len(data) // 2])


def test_unknown_future_magic_is_refused():
    data = bytearray(encode_batch(sample_records(0, 2)))
    data[16] = 3
    with pytest.raises(UnsupportedMagicError, match="magic 3"):
        list(read_batches(bytes(data)))


# --- bad arguments to the writer --------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"records": [Record(5, 0, None, None), Record(5, 0, None, None)]}, "records[1].offset"),
    ({"records": [Record(1, 0, None, None)], "base_offset": 2}, "records[0].offset"),
    ({"records": [Record(1 << 32, 0, None, None)]}, "records[0].offset"),
    ({"records": [Record(0, -2, None, None)]}, "records[0].timestamp"),
    ({"records": [Record(0, 0, "text", None)]}, "records[0].key"),
    ({"records": [Record(0, 0, None, None, (("k", 3),))]}, "records[0].headers[0].value"),
    ({"records": [("not", "a record")]}, "records[0]"),
    ({"records": [], "is_transactional": True}, "producer_id"),
    ({"records": [], "producer_epoch": 1 << 15}, "producer_epoch"),
    ({"records": [], "base_offset": -1}, "base_offset"),
    ({"records": [Record(3, 0, None, None)], "last_offset_delta": 2}, "last_offset_delta"),
    ({"records": [], "delete_horizon_ms": 5, "base_timestamp": 6}, "base_timestamp"),
])
def test_invalid_encode_arguments(kwargs, field):
    with pytest.raises(InputError) as info:
        encode_batch(**kwargs)
    assert info.value.field == field


@given(st.data())
def test_resealed_damage_decodes_or_raises_codec_errors(data):
    """Damage the covered bytes and make the CRC right again: the decoder meets garbage it cannot
    detect by checksum (compressed streams, varints, lengths, counts). It must return a batch or
    raise a CodecError, nothing else."""
    compression = data.draw(st.sampled_from(COMPRESSIONS))
    original = encode_batch(data.draw(record_lists(base_offset=0, max_records=6)), compression=compression)
    covered = bytearray(original[21:])
    for _ in range(data.draw(st.integers(1, 4))):
        how = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        at = data.draw(st.integers(0, len(covered)))
        if how == "flip" and at < len(covered):
            covered[at] ^= data.draw(st.integers(1, 255))
        elif how == "insert":
            covered[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        else:
            del covered[at:at + data.draw(st.integers(1, 8))]
    header = bytearray(original[:21])
    struct.pack_into(">iibI", header, 8, 9 + len(covered), -1, 2, google_crc32c.value(bytes(covered)))
    damaged = bytes(header + covered)
    try:
        batch = decode_batch(damaged)
    except CodecError as exc:
        assert exc.offset == 0
        outcome = type(exc).__name__
    else:
        assert isinstance(batch, RecordBatch)
        outcome = "decoded"
    event(f"{compression.name}: {outcome}")
    if len(damaged) < 61:
        with pytest.raises(MalformedError, match="below the minimum"):
            list(read_batches(damaged, lenient=True))
        return
    later = struct.pack(">q", 1 << 62) + original[8:]  # the base offset is outside the CRC
    entries = list(read_batches(damaged + later, lenient=True))
    assert [type(e) for _, e in entries] == [RecordBatch if outcome == "decoded" else BadBatch,
                                                  RecordBatch]

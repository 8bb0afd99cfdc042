"""Conformance vectors of the writing side of the records machine: ``encode_batch`` (a batch's
fields and records, named as ``groupspec decode`` prints them, in; the batch's bytes out) and
``write_log`` (batches in; the segment files of the partition directory a leader writes out).

Expectations come from groupspec's writer. Every encode_batch vector kafka-python's
``DefaultRecordBatchBuilder`` can express (CreateTime, no control flag or delete horizon, the
base and max timestamps and last offset it derives itself) is also built by kafka-python, and
the generator refuses to publish one the two writers disagree on: byte for byte when
uncompressed, by what the batch reads back as when compressed (compressed bytes differ between
encoders; docs/conformance.md, "encode_batch"). The base offset and partition leader epoch,
which kafka-python leaves to the broker, are set in its bytes (both are outside the CRC).
write_log's roll rule is Kafka's (``LogSegment.shouldRoll``: roll when the segment's size plus
the batch would pass segment.bytes, or when the batch's last offset is more than 2^31 - 1 past
the segment's base offset; storage/.../internals/log/LogSegment.java).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Any

from tests.scenarios.records.log_cases import COMMIT_KEY, COMMIT_V3, GROUP_EMPTY_V3, GROUP_KEY, T0

_INT32_MAX = (1 << 31) - 1
_REF = "MemoryRecordsBuilder.java, DefaultRecordBatch.java, DefaultRecord.java"


def _rec(offset: int, timestamp: int = T0, key: bytes | None = COMMIT_KEY, value: bytes | None = COMMIT_V3,
         headers: list[tuple[str, bytes | None]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"offset": offset, "timestamp": timestamp,
                           "key": None if key is None else key.hex(),
                           "value": None if value is None else value.hex()}
    if headers is not None:
        out["headers"] = [{"key": k, "value": None if v is None else v.hex()} for k, v in headers]
    return out


def _mixed(base: int) -> list[dict[str, Any]]:
    return [_rec(base), _rec(base + 1, T0 + 10, GROUP_KEY, GROUP_EMPTY_V3),
            _rec(base + 2, T0 + 20, value=None)]


def _marker(offset: int, marker: str, epoch: int, timestamp: int = T0 + 50) -> dict[str, Any]:
    return {"offset": offset, "timestamp": timestamp, "control": True, "marker": marker,
            "coordinatorEpoch": epoch}


_PRODUCER = {"producerId": 4000, "producerEpoch": 3, "baseSequence": 0}
#: A records section that compresses well and takes more than one snappy chunk (32 KiB) and
#: more than one lz4 block (64 KiB).
_BIG = [_rec(i, T0 + i, value=bytes(range(256)) * 40) for i in range(8)]
def _noise(size: int, seed: bytes) -> bytes:
    """Bytes no codec shrinks (a SHA-256 chain, the same on every run): lz4 stores them raw."""
    import hashlib

    out = bytearray()
    block = seed
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


_NOISE = _noise(3000, b"records")
#: 20,000 bytes, twice: the second copy's matches are 20,000 bytes back, past a 16 KiB window.
_FAR = _noise(20_000, b"far") * 2

#: (case, description, batch fields, records).
ENCODE_CASES: tuple[tuple[str, str, dict[str, Any], list[dict[str, Any]]], ...] = (
    ("batch_one_record", "one OffsetCommit record, every batch field left to the writer's "
     "defaults (no producer, CreateTime, base and max timestamp the record's)", {}, [_rec(0)]),
    ("batch_mixed_records", "a commit, a group and a tombstone at base offset 1000 from an "
     "idempotent producer, leader epoch 5", {"baseOffset": 1000, "partitionLeaderEpoch": 5, **_PRODUCER},
     _mixed(1000)),
    ("batch_offset_gaps", "records at offsets 10, 12 and 75 (a compacted batch): offset deltas "
     "0, 2 and 65, the last two bytes of zig-zag varint", {"baseOffset": 10},
     [_rec(10), _rec(12, T0 + 1), _rec(75, T0 + 2)]),
    ("batch_timestamp_deltas", "record timestamps before the first one (negative deltas), 64 ms "
     "after it (two varint bytes) and 2^33 ms after it (a varlong beyond 32 bits)", {},
     [_rec(0, T0), _rec(1, T0 - 1), _rec(2, T0 - 65), _rec(3, T0 + 64), _rec(4, T0 + (1 << 33))]),
    ("batch_long_fields", "a 63-byte key (one varint byte), a 64-byte value (two), a 8192-byte "
     "value (three) and empty key and value", {},
     [_rec(0, key=b"k" * 63, value=b"v" * 64), _rec(1, key=b"", value=b"w" * 8192),
      _rec(2, key=b"", value=b"")]),
    ("batch_null_key_and_value", "a record with neither key nor value (both length -1)", {},
     [_rec(0, key=None, value=None)]),
    ("batch_headers", "record headers: a null value, an empty key and value, a non-ASCII key",
     {}, [_rec(0, headers=[("trace", b"\x01\x02"), ("none", None), ("", b""), ("naïve", b"x" * 70)]),
          _rec(1, headers=[])]),
    ("batch_transactional", "a transactional batch of two commits (attribute bit 4)",
     {"transactional": True, **_PRODUCER}, _mixed(0)[:2]),
    ("batch_log_append_time", "a LogAppendTime batch (attribute bit 3): the max timestamp is the "
     "broker's append time, the records keep their own", {"timestampType": "LogAppendTime",
                                                           "maxTimestamp": T0 + 5000}, _mixed(0)),
    ("batch_explicit_timestamps", "base and max timestamps given, not derived from the records",
     {"baseTimestamp": T0 - 100, "maxTimestamp": T0 + 100}, _mixed(0)),
    ("batch_delete_horizon", "a batch the cleaner has given a delete horizon (attribute bit 6): "
     "the horizon is the base timestamp, the records' deltas count from it",
     {"deleteHorizonMs": T0 + 86_400_000}, _mixed(0)),
    ("batch_delete_horizon_same_base", "a delete horizon with the same base timestamp given",
     {"deleteHorizonMs": T0, "baseTimestamp": T0}, _mixed(0)),
    ("batch_last_offset_after_records", "a batch whose last records were compacted away: its last "
     "offset (5) stays beyond its last record's (2)", {"lastOffset": 5}, _mixed(0)),
    ("batch_last_offset_given_as_the_last_records", "a last offset given, equal to the last "
     "record's", {"lastOffset": 2}, _mixed(0)),
    ("batch_timestamp_delta_smallest", "base timestamp 2^63 - 1 and a record without a timestamp "
     "(-1): the delta -2^63 is the smallest varlong", {"baseTimestamp": (1 << 63) - 1}, [_rec(0, -1)]),
    ("batch_timestamp_delta_largest", "base timestamp -1 and a record at 2^63 - 2: the delta "
     "2^63 - 1 is the largest varlong", {"baseTimestamp": -1}, [_rec(0, (1 << 63) - 2)]),
    ("batch_empty_kept_for_producer", "an empty batch the cleaner keeps for its producer state: no "
     "records, last offset 4, base timestamp -1 and the max timestamp kept (the cleaner's "
     "MemoryRecords#filterTo writes it with DefaultRecordBatch#writeEmptyHeader)",
     {"baseOffset": 20, "lastOffset": 24, "baseTimestamp": -1, "maxTimestamp": T0, **_PRODUCER}, []),
    ("batch_empty_defaults", "an empty batch with every field left to the writer: timestamps -1, "
     "last offset delta 0", {}, []),
    ("batch_no_timestamp", "records without a timestamp (-1, as magic-0 data converted up carries)",
     {}, [_rec(0, -1), _rec(1, -1)]),
    ("batch_field_maxima", "every header field at its largest (base offset 2^63 - 2^31, so that the "
     "last offset 2^63 - 1 is 2^31 - 1 past it): "
     "leader epoch, producer id and epoch, sequence, last offset delta",
     {"baseOffset": (1 << 63) - (1 << 31), "partitionLeaderEpoch": _INT32_MAX, "producerId": (1 << 63) - 1,
      "producerEpoch": 32767, "baseSequence": _INT32_MAX, "lastOffset": (1 << 63) - 1},
     [_rec((1 << 63) - (1 << 31)), _rec((1 << 63) - 1, T0 + 1)]),
    ("batch_field_minima", "signed header fields at their smallest: leader epoch -2^31, producer "
     "id -2^63, producer epoch -2^15, timestamps -2^63 (the sequence 0: Kafka's builder wants a "
     "sequence >= 0 from a producer)",
     {"partitionLeaderEpoch": -(1 << 31), "producerId": -(1 << 63), "producerEpoch": -(1 << 15),
      "baseSequence": 0, "baseTimestamp": -(1 << 63), "maxTimestamp": -(1 << 63)}, []),
    ("batch_sequence_minimum", "base sequence -2^31 in a batch without a producer",
     {"baseSequence": -(1 << 31)}, [_rec(0)]),
    ("batch_marker_commit", "the COMMIT marker batch a transaction coordinator writes: control, "
     "transactional, no sequence, one record of key (version 0, type 1) and value (version 0, "
     "coordinator epoch 11)", {"baseOffset": 7, "partitionLeaderEpoch": 5, "producerId": 4000,
                               "producerEpoch": 3, "transactional": True, "control": True},
     [_marker(7, "COMMIT", 11)]),
    ("batch_marker_abort", "an ABORT marker with the largest coordinator epoch",
     {"producerId": 1, "producerEpoch": 0, "transactional": True, "control": True},
     [_marker(0, "ABORT", _INT32_MAX)]),
    ("batch_marker_epoch_negative", "a marker with coordinator epoch -2^31",
     {"producerId": 1, "producerEpoch": 0, "transactional": True, "control": True},
     [_marker(0, "COMMIT", -(1 << 31))]),
    *((f"batch_{codec}", f"the mixed records compressed with {codec}: compared by what they read back "
       "as, the compressed bytes are the encoder's", {"compression": codec, **_PRODUCER}, _mixed(0))
      for codec in ("gzip", "snappy", "lz4", "zstd")),
    *((f"batch_{codec}_large", f"about 82 KB of records compressed with {codec}: several snappy chunks "
       "and lz4 blocks", {"compression": codec}, _BIG) for codec in ("gzip", "snappy", "lz4", "zstd")),
    *((f"batch_{codec}_incompressible", f"{codec} on bytes it cannot shrink (compressed anyway, as "
       "Kafka's producer does)", {"compression": codec}, [_rec(0, key=None, value=_NOISE)])
      for codec in ("lz4", "snappy")),
    ("batch_lz4_incompressible_large", "lz4 on 70,000 bytes it cannot shrink: a whole 64 KiB block "
     "stored raw (a packed one would pass the frame's 64 KiB block size)", {"compression": "lz4"},
     [_rec(0, key=None, value=_noise(70_000, b"lz4"))]),
    ("batch_gzip_odd_length", "gzip of a records section of odd length (the gzip trailer's ISIZE "
     "counts every byte)", {"compression": "gzip"}, [_rec(0, key=None, value=b"x" * 100)]),
    ("batch_gzip_far_matches", "gzip of data repeating 20,000 bytes back: the reader needs deflate's "
     "full 32 KiB window", {"compression": "gzip"}, [_rec(0, key=None, value=_FAR)]),
    *((f"batch_{codec}_empty", f"an empty {codec} batch: the codec's stream of no bytes",
       {"compression": codec, "lastOffset": 0}, []) for codec in ("gzip", "snappy", "lz4", "zstd")),
)

#: (case, description, batch fields, records): inputs the writer refuses (``invalid_input``).
REFUSED_CASES: tuple[tuple[str, str, dict[str, Any], list[dict[str, Any]]], ...] = (
    ("batch_refused_base_offset_negative", "base offset -1", {"baseOffset": -1}, []),
    ("batch_refused_leader_epoch_past_int32", "partition leader epoch 2^31",
     {"partitionLeaderEpoch": 1 << 31}, []),
    ("batch_refused_leader_epoch_below_int32", "partition leader epoch -2^31 - 1",
     {"partitionLeaderEpoch": -(1 << 31) - 1}, []),
    ("batch_refused_producer_id_past_int64", "producer id 2^63", {"producerId": 1 << 63}, []),
    ("batch_refused_producer_id_below_int64", "producer id -2^63 - 1", {"producerId": -(1 << 63) - 1}, []),
    ("batch_refused_producer_epoch_past_int16", "producer epoch 32768", {"producerEpoch": 32768}, []),
    ("batch_refused_producer_epoch_below_int16", "producer epoch -32769", {"producerEpoch": -32769}, []),
    ("batch_refused_sequence_past_int32", "base sequence 2^31", {"baseSequence": 1 << 31}, []),
    ("batch_refused_sequence_below_int32", "base sequence -2^31 - 1", {"baseSequence": -(1 << 31) - 1}, []),
    ("batch_refused_transactional_without_producer", "a transactional batch without a producer id "
     "(Kafka: 'Cannot write transactional messages without a valid producer ID')",
     {"transactional": True}, [_rec(0)]),
    ("batch_refused_transactional_producer_id_minus_one", "transactional with producer id -1",
     {"transactional": True, "producerId": -1, "producerEpoch": 0}, [_rec(0)]),
    ("batch_refused_delete_horizon_other_base", "a delete horizon and a different base timestamp: "
     "the horizon is stored as the base timestamp", {"deleteHorizonMs": T0, "baseTimestamp": T0 + 1}, []),
    ("batch_refused_base_timestamp_past_int64", "base timestamp 2^63", {"baseTimestamp": 1 << 63}, []),
    ("batch_refused_base_timestamp_below_int64", "base timestamp -2^63 - 1",
     {"baseTimestamp": -(1 << 63) - 1}, []),
    ("batch_refused_max_timestamp_past_int64", "max timestamp 2^63", {"maxTimestamp": 1 << 63}, []),
    ("batch_refused_max_timestamp_below_int64", "max timestamp -2^63 - 1",
     {"maxTimestamp": -(1 << 63) - 1}, []),
    ("batch_refused_offsets_repeat", "two records at the same offset", {}, [_rec(0), _rec(0)]),
    ("batch_refused_offsets_go_back", "a record before the one ahead of it", {}, [_rec(1), _rec(0)]),
    ("batch_refused_record_before_base", "a record offset below the base offset", {"baseOffset": 5},
     [_rec(4)]),
    ("batch_refused_record_offset_negative", "a record at offset -1", {}, [_rec(-1)]),
    ("batch_refused_last_offset_before_record", "a last offset before the last record's",
     {"lastOffset": 1}, _mixed(0)),
    ("batch_refused_offset_delta_past_int32", "a record 2^31 past the base offset: its delta does not "
     "fit an int32", {}, [_rec(0), _rec(1 << 31)]),
    ("batch_refused_last_offset_delta_past_int32", "a last offset 2^31 past the base offset",
     {"lastOffset": 1 << 31}, []),
    ("batch_refused_timestamp_below_minus_one", "a record timestamp of -2 (Kafka: 'Invalid negative "
     "timestamp')", {}, [_rec(0, -2)]),
    ("batch_refused_timestamp_delta_past_int64", "a record timestamp 2^63 - 1 in a batch whose base "
     "timestamp is -1: the delta does not fit an int64 varlong", {"baseTimestamp": -1},
     [_rec(0, (1 << 63) - 1)]),
    ("batch_refused_marker_epoch_past_int32", "a marker with coordinator epoch 2^31",
     {"producerId": 1, "producerEpoch": 0, "transactional": True, "control": True},
     [_marker(0, "COMMIT", 1 << 31)]),
    ("batch_refused_marker_not_transactional", "a marker in a batch not flagged transactional",
     {"producerId": 1, "producerEpoch": 0, "control": True}, [_marker(0, "COMMIT", 1)]),
    ("batch_refused_marker_without_producer", "a marker without a producer id",
     {"transactional": True, "control": True}, [_marker(0, "COMMIT", 1)]),
    ("batch_refused_marker_type", "a marker that is neither COMMIT nor ABORT",
     {"producerId": 1, "producerEpoch": 0, "transactional": True, "control": True},
     [{**_marker(0, "COMMIT", 1), "marker": "LEADER_CHANGE"}]),
)


def _kafka_python(batch: dict[str, Any], records: list[dict[str, Any]]) -> bytes | None:
    """kafka-python's bytes for the batch, or None where it cannot express it."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    own = {"baseOffset", "partitionLeaderEpoch", "producerId", "producerEpoch", "baseSequence",
           "transactional", "compression"}
    if set(batch) - own or not records or any(r.get("control") for r in records):
        return None
    ids = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
    codec = ids[batch.get("compression", "none")]
    base = batch.get("baseOffset", 0)
    builder = DefaultRecordBatchBuilder(
        magic=2, compression_type=codec, is_transactional=batch.get("transactional", False),
        producer_id=batch.get("producerId", -1), producer_epoch=batch.get("producerEpoch", -1),
        base_sequence=batch.get("baseSequence", -1), batch_size=1 << 24)
    for r in records:
        headers = [(h["key"], None if h["value"] is None else bytes.fromhex(h["value"]))
                   for h in r.get("headers", [])]
        builder.append(r["offset"] - base, timestamp=r["timestamp"],
                       key=None if r["key"] is None else bytes.fromhex(r["key"]),
                       value=None if r["value"] is None else bytes.fromhex(r["value"]), headers=headers)
    data = bytearray(builder.build())
    if data[22] & 0x07 != codec:
        return None  # kafka-python sends it uncompressed when compression does not shrink it
    struct.pack_into(">q", data, 0, base)
    struct.pack_into(">i", data, 12, batch.get("partitionLeaderEpoch", -1))
    return bytes(data)


def _doc(handler: str, case: str, description: str, doc_input: dict[str, Any], expected: dict[str, Any],
         ref: str, kind: str = "hand-made") -> dict[str, Any]:
    from groupspec.conformance import vector_format as vf

    return {"format": vf.FORMAT_VERSION, "machine": "records", "handler": handler, "case": case,
            "description": description, "source": {"kind": kind, "ref": ref}, "mode": "exact",
            "properties": [], "input": doc_input, "expected": expected, "expected_kafka": expected}


def _encode_docs() -> Iterator[dict[str, Any]]:
    return encode_batch_docs(ENCODE_CASES, REFUSED_CASES)


def encode_batch_docs(encode_cases: tuple[tuple[str, str, dict[str, Any], list[dict[str, Any]]], ...],
                      refused_cases: tuple[tuple[str, str, dict[str, Any], list[dict[str, Any]]], ...],
                      ) -> Iterator[dict[str, Any]]:
    """encode_batch's vectors of a catalogue: each written batch checked against kafka-python's
    writer where it can write it, each refusal checked to be one (of the input, by kind)."""
    from groupspec.conformance.records_batch import compare_batch, encode_batch_answer
    from groupspec.conformance.targets import error_kind

    for case, description, batch, records in encode_cases:
        doc_input = {"batch": batch, "records": records}
        expected = encode_batch_answer(doc_input)
        theirs = _kafka_python(batch, records)
        ref = _REF
        if theirs is not None:
            found = compare_batch(expected, {"batch": theirs.hex()})
            if found:  # the generator refuses to publish a vector the two writers disagree on
                raise AssertionError(f"{case}: kafka-python writes another batch: {found}")
            ref += "; checked against kafka-python's DefaultRecordBatchBuilder"
        yield _doc("encode_batch", case, description, doc_input, expected, ref)
    for case, description, batch, records in refused_cases:
        doc_input = {"batch": batch, "records": records}
        try:
            encode_batch_answer(doc_input)
        except Exception as exc:
            refused = {"error": error_kind(exc)}
        else:
            raise AssertionError(f"{case}: the writer takes it")
        if refused["error"] != "invalid_input":
            raise AssertionError(f"{case}: refused as {refused['error']}")
        yield _doc("encode_batch", case, description, doc_input, refused, _REF)


# --- write_log ----------------------------------------------------------------------------------


def _batch(count: int, *, last_delta: int | None = None, size: int = 0) -> str:
    """A batch of ``count`` commits at base offset 0 (the writer gives it its place), hex."""
    from groupspec.impl.codec.batch import Record, encode_batch

    records = [Record(i, T0 + i, COMMIT_KEY, COMMIT_V3 + b"\x00" * size) for i in range(count)]
    return encode_batch(records, last_offset_delta=last_delta).hex()


def _placed(base: int, *counts: int) -> str:
    """Batches of ``counts`` commits one after the other from offset ``base``, hex: a segment's bytes."""
    from groupspec.impl.codec.batch import Record, encode_batch

    out = []
    for count in counts:
        out.append(encode_batch([Record(base + i, T0 + i, COMMIT_KEY, COMMIT_V3) for i in range(count)],
                                base_offset=base).hex())
        base += count
    return "".join(out)


_ONE = _batch(1)
_SEG_NAME = "00000000000000000000.log"
_ONE_BYTES = len(_ONE) // 2
_KAFKA_LOG = "UnifiedLog.java (append, maybeRoll), LogSegment.java (shouldRoll), LogFileUtils.java"

#: (case, description, write_log input).
WRITE_CASES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("log_write_new_partition", "no batches: one empty segment file, named by the base offset",
     {"batches": []}),
    ("log_write_new_partition_at_offset", "no batches, base offset 1234567: the file name is the "
     "offset in 20 digits", {"baseOffset": 1234567, "batches": []}),
    ("log_write_offsets_assigned", "three batches of 1, 3 and 2 records written at base offset 100: "
     "each gets the log's next offset (100, 101, 104), CRCs unchanged",
     {"baseOffset": 100, "batches": [_batch(1), _batch(3), _batch(2)]}),
    ("log_write_leader_epoch", "batches given partition leader epoch 9 (outside the CRC)",
     {"partitionLeaderEpoch": 9, "batches": [_batch(1), _batch(2)]}),
    ("log_write_leader_epoch_smallest", "leader epoch -2^31, the smallest int32",
     {"partitionLeaderEpoch": -(1 << 31), "batches": [_batch(1)]}),
    ("log_write_leader_epoch_largest", "leader epoch 2^31 - 1, the largest int32",
     {"partitionLeaderEpoch": _INT32_MAX, "batches": [_batch(1)]}),
    ("log_write_roll_exact_fit", "segment.bytes twice a batch: two batches fill a segment exactly, "
     "the third rolls", {"segmentBytes": 2 * _ONE_BYTES, "batches": [_ONE] * 5}),
    ("log_write_roll_one_byte_short", "segment.bytes one byte less than two batches: every batch "
     "rolls a new segment", {"segmentBytes": 2 * _ONE_BYTES - 1, "batches": [_ONE] * 3}),
    ("log_write_roll_names", "segments rolled at base offset 1000 with batches of 2 records: named "
     "1000, 1004, 1008", {"baseOffset": 1000, "segmentBytes": len(_batch(2)),  # hex: two batches' bytes
                          "batches": [_batch(2)] * 5}),
    ("log_write_batch_fills_segment", "segment.bytes exactly one batch: each batch its own segment",
     {"segmentBytes": _ONE_BYTES, "batches": [_ONE] * 3}),
    ("log_write_roll_offsets", "a segment holds offsets up to its base + 2^31 - 1 (an index's "
     "relative offset): a batch whose last offset is beyond rolls a new segment",
     {"baseOffset": 5, "batches": [_batch(0, last_delta=_INT32_MAX - 1), _batch(1), _batch(1),
                  _batch(0, last_delta=_INT32_MAX), _batch(1)]}),
    ("log_write_resume", "a log reopened: its last segment (2 batches, next offset 4) is continued, "
     "not replaced", {"baseOffset": 4, "existing": {"00000000000000000000.log": _placed(0, 2, 2)},
                      "batches": [_batch(1)]}),
    ("log_write_resume_rolls", "a log reopened with a full last segment: the next batch rolls",
     {"baseOffset": 3, "segmentBytes": _ONE_BYTES * 2,
      "existing": {"00000000000000000000.log": _placed(0, 1), "00000000000000000001.log": _placed(1, 1, 1)},
      "batches": [_ONE, _ONE]}),
    ("log_write_resume_empty_segment", "a log whose last segment is empty (a torn first batch "
     "truncated): written into, not refused", {"baseOffset": 7,
                                                "existing": {"00000000000000000007.log": ""},
                                                "batches": [_ONE]}),
    ("log_write_resume_other_files", "files that are not segments (indexes, checkpoints, a deleted "
     "segment) are left alone and the last segment found by its name",
     {"baseOffset": 1, "existing": {"00000000000000000000.log": _placed(0, 1),
                                    "00000000000000000000.index": "",
                                    "00000000000000000005.log.deleted": _placed(5, 1),
                                    "leader-epoch-checkpoint": "00"},
      "batches": [_ONE]}),
    ("log_write_resume_defaults", "a reopened log with only its empty first segment and no settings: "
     "the next offset is 0", {"resume": True, "existing": {_SEG_NAME: ""}, "batches": [_ONE, _ONE]}),
    ("log_write_segment_bytes_one", "segment.bytes 1 (as Kafka's internal.segment.bytes allows) and "
     "no batches: one empty segment", {"segmentBytes": 1, "batches": []}),
    ("log_write_resume_empty_segment_offset_roll", "a reopened log whose empty last segment "
     "cannot address the next offset (more than 2^31 - 1 past its base): a new segment is rolled",
     {"baseOffset": (1 << 31) + 5, "existing": {"00000000000000000000.log": ""}, "batches": [_ONE]}),
    ("log_write_resume_rolls_for_offsets", "a reopened log whose last segment has room but whose "
     "next batch ends more than 2^31 - 1 past its base: a new segment is rolled",
     {"baseOffset": 2, "existing": {"00000000000000000000.log": _placed(0, 1, 1)},
      "batches": [_batch(0, last_delta=_INT32_MAX - 1), _ONE]}),
    ("log_write_refused_batch_over_segment_bytes", "a batch larger than segment.bytes: refused, as "
     "Kafka refuses it (RecordBatchTooLargeException)", {"segmentBytes": _ONE_BYTES - 1, "batches": [_ONE]}),
    ("log_write_refused_existing_without_resume", "a new log over a directory that holds its first "
     "segment file already: refused, never overwritten",
     {"resume": False, "existing": {"00000000000000000000.log": _placed(0, 1)}, "batches": [_ONE]}),
    ("log_write_resume_refused_gap", "a reopened log whose last segment starts after the next "
     "offset: refused", {"baseOffset": 3, "existing": {"00000000000000000005.log": ""}, "batches": [_ONE]}),
    ("log_write_refused_bad_batch", "a batch that is not a valid v2 batch (its CRC broken): "
     "refused", {"batches": [_ONE[:-2] + ("00" if _ONE[-2:] != "00" else "01")]}),
    ("log_write_refused_short_batch", "a batch of 16 bytes, short of the 17 every batch header "
     "starts with: refused", {"batches": [_ONE[:32]]}),
    ("log_write_refused_cut_batch", "a batch cut short of its length: refused",
     {"batches": [_ONE[:-2]]}),
    ("log_write_refused_base_offset_negative", "base offset -1", {"baseOffset": -1, "batches": []}),
    ("log_write_refused_segment_bytes_zero", "segment.bytes 0", {"segmentBytes": 0, "batches": []}),
    ("log_write_refused_leader_epoch_past_int32", "leader epoch 2^31",
     {"partitionLeaderEpoch": 1 << 31, "batches": []}),
    ("log_write_refused_leader_epoch_2_pow_32", "leader epoch 2^32",
     {"partitionLeaderEpoch": 1 << 32, "batches": []}),
    ("log_write_refused_leader_epoch_below_int32", "leader epoch -2^31 - 1",
     {"partitionLeaderEpoch": -(1 << 31) - 1, "batches": []}),
)


_SEG = "00000000000000000000.log"
_GARBAGE = "00" * 30

#: (case, description, read_log input).
READ_CASES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("log_read_two_segments", "two segments, offsets 0-2 and 3-4, read in order",
     {"files": {_SEG: _placed(0, 2, 1), "00000000000000000003.log": _placed(3, 1, 1)}}),
    ("log_read_numeric_order", "segment files named 9.log and 10.log (any digits name a base offset): "
     "read by offset, not by name", {"files": {"9.log": _placed(9, 1), "10.log": _placed(10, 1)}}),
    ("log_read_ignored_files", "an index, a checkpoint and deleted and cleaned segments (which "
     "Kafka's loader deletes) are not segments", {"files": {
         _SEG: _placed(0, 1), "00000000000000000000.index": _GARBAGE, "leader-epoch-checkpoint": "30",
         "00000000000000000001.log.deleted": _GARBAGE, "00000000000000000001.log.cleaned": _GARBAGE}}),
    ("log_read_empty_segments", "empty segment files hold nothing", {"files": {_SEG: "", "5.log": ""}}),
    ("log_read_empty_directory", "a directory without segments holds nothing", {"files": {}}),
    ("log_read_batch_before_its_segment", "a batch at offset 4 in segment 5.log: refused (a segment "
     "holds offsets from its base on)", {"files": {"5.log": _placed(4, 1)}}),
    ("log_read_batch_before_its_segment_lenient", "the same, read leniently: a bad batch",
     {"lenient": True, "files": {"5.log": _placed(4, 1) + _placed(5, 1)}}),
    ("log_read_batch_at_its_segment_base", "a batch at offset 5 in segment 5.log",
     {"files": {"5.log": _placed(5, 1)}}),
    ("log_read_segment_base_after_the_last_offset", "segment 0 ends at offset 1, segment 10 starts "
     "with a batch at 8: refused (before its segment's base)",
     {"lenient": True, "files": {_SEG: _placed(0, 2), "10.log": _placed(8, 1) + _placed(10, 1)}}),
    ("log_read_segment_base_before_the_last_offset", "segment 0 holds offsets 0-9, segment 5 starts "
     "with a batch at 10: the offsets still grow, read",
     {"files": {_SEG: _placed(0, 10), "5.log": _placed(10, 1)}}),
    ("log_read_batch_below_segment_one", "segment 1.log starting with a batch at offset 0: refused",
     {"lenient": True, "files": {"1.log": _placed(0, 1) + _placed(1, 1)}}),
    ("log_read_gap_of_one_before_segment", "segment 0 holds offsets 0-3, segment 5 starts with a "
     "batch at 4: refused (before its segment's base), though after the last offset",
     {"lenient": True, "files": {_SEG: _placed(0, 4), "5.log": _placed(4, 1) + _placed(5, 1)}}),
    ("log_read_segment_base_at_the_last_offset", "segment 0 holds offsets 0-5, segment 5 starts with "
     "a batch at 5: refused (offset 5 is taken)",
     {"lenient": True, "files": {_SEG: _placed(0, 6), "5.log": _placed(5, 1) + _placed(6, 1)}}),
    ("log_read_offsets_go_back_across_segments", "segment 0 holds 0-9, segment 5 a batch at 7: refused",
     {"lenient": True, "files": {_SEG: _placed(0, 10), "5.log": _placed(7, 1) + _placed(10, 1)}}),
    ("log_read_torn_tail_then_next_segment", "the first segment ends in a torn tail, the next is read",
     {"files": {_SEG: _placed(0, 1) + _placed(1, 1)[:40], "1.log": _placed(1, 1)}}),
    ("log_read_unframed_strict", "garbage after a batch: strict reading refuses the log",
     {"files": {_SEG: _placed(0, 1) + "ff" * 20, "1.log": _placed(1, 1)}}),
    ("log_read_unframed_lenient", "garbage after a batch, read leniently: the rest of that file is "
     "unframed, the next file is read", {"lenient": True,
                                         "files": {_SEG: _placed(0, 1) + "ff" * 20, "1.log": _placed(1, 1)}}),
    ("log_read_tail_offset_within_segment", "a torn tail claiming offset base + 2^31 - 1, the last "
     "its segment can address: a torn tail", {"files": {
         "7.log": _placed(7, 1) + struct.pack(">q", 7 + _INT32_MAX).hex()}}),
    ("log_read_torn_header_of_12_bytes", "a torn tail of 12 bytes, base offset and length: the "
     "batch it starts is known by its offset and size",
     {"files": {_SEG: _placed(0, 1) + _placed(1, 1)[:24]}}),
    ("log_read_tail_offset_past_segment", "a torn tail claiming offset base + 2^31: no segment "
     "holds it, so it is no torn tail but garbage", {"lenient": True, "files": {
         "7.log": _placed(7, 1) + struct.pack(">q", 7 + (1 << 31)).hex()}}),
)


def _read_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance.records_batch import read_log_answer
    from groupspec.conformance.targets import error_kind

    for case, description, doc_input in READ_CASES:
        try:
            expected: dict[str, Any] = read_log_answer(doc_input)
        except Exception as exc:  # the reader's refusal is the expectation
            expected = {"error": error_kind(exc)}
        yield _doc("read_log", case, description, doc_input, expected,
                   "LogLoader.java, LogFileUtils.java, FileLogInputStream.java")


def _write_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance.records_batch import write_log_answer
    from groupspec.conformance.targets import error_kind

    for case, description, doc_input in WRITE_CASES:
        try:
            expected: dict[str, Any] = write_log_answer(doc_input)
        except Exception as exc:  # the writer's refusal is the expectation
            expected = {"error": error_kind(exc)}
        yield _doc("write_log", case, description, doc_input, expected, _KAFKA_LOG)


# --- decode_log: reader edges the batch module's survivors showed -------------------------------


def _wide_varints() -> bytes:
    """Three-byte varints whose second byte is 0x80 (a value of 8192 bytes, deltas of 8192 and
    16384, a record length of 8204): the reader's two-byte fast path must not take them."""
    from groupspec.impl.codec.batch import Record, encode_batch

    records = [Record(0, T0, COMMIT_KEY, COMMIT_V3), Record(8192, T0 + 8192, None, bytes(8192)),
               Record(16384, T0 + 16384, b"k" * 8192, None)]
    return encode_batch(records)


def _timestamp_delta_minus_64() -> bytes:
    """A record 64 ms before the batch's first: its timestamp delta -64 is the one-byte varint 7f."""
    from groupspec.impl.codec.batch import Record, encode_batch

    return encode_batch([Record(0, T0, COMMIT_KEY, COMMIT_V3), Record(1, T0 - 64, COMMIT_KEY, COMMIT_V3)])


def _varint_cut_at_batch_end() -> bytes:
    """A batch counting two records whose second is only the first byte of a length varint (80),
    then a good batch: the varint must not be read on into the next batch's bytes."""
    from tests.scenarios.records.log_cases import _commit, _one_raw_record, _ours, _raw_body, _zz

    return _one_raw_record(0, _raw_body(_zz(0)), count=2, after=b"\x80") + _ours(1, [_commit(1)])


def _negative_record_length() -> bytes:
    """A record whose length is -7 (the zig-zag byte 0d) over six bytes that would be a record of
    null key and value, then a good batch (Kafka refuses a negative record size)."""
    from tests.scenarios.records.log_cases import _commit, _ours, _recrc

    batch = bytearray(_ours(0, [_commit(0)])[:61]) + bytes.fromhex("0d" "000000010100")
    struct.pack_into(">i", batch, 8, len(batch) - 12)
    return _recrc(batch) + _ours(1, [_commit(1)])


def _header_key_null_at_end() -> bytes:
    """A record whose one header has key length -1 and ends there (Kafka's readHeaders refuses a
    negative header key size), then a good batch."""
    from tests.scenarios.records.log_cases import _commit, _one_raw_record, _ours, _raw_body, _zz

    return _one_raw_record(0, _raw_body(_zz(1) + _zz(-1))) + _ours(1, [_commit(1)])


def _fields_past_length() -> bytes:
    """A record whose length field says one byte less than its fields take (the records section
    ends where its fields end), then a good batch."""
    from tests.scenarios.records.log_cases import _commit, _ours, _raw_body, _recrc, _zz

    body = _raw_body(_zz(0))
    batch = bytearray(_ours(0, [_commit(0)])[:61]) + _zz(len(body) - 1) + body
    struct.pack_into(">i", batch, 8, len(batch) - 12)
    return _recrc(batch) + _ours(1, [_commit(1)])


def _codec_cut(codec: str) -> Any:
    def build() -> bytes:
        from groupspec.impl.codec.compression import Compression
        from tests.scenarios.records.log_cases import _commit, _mixed, _ours

        second = _ours(3, [_commit(3), _commit(4, partition=1), _commit(5, partition=2)],
                       compression=Compression[codec.upper()])
        return _ours(0, _mixed()) + second[:len(second) - 7]
    return build


def _cut_after_bad_record() -> bytes:
    """A good batch, then a batch of three records cut right after its second, whose offset
    delta repeats the first's: the records present are not a start of a batch's records."""
    from tests.scenarios.records.log_cases import COMMIT_KEY as K
    from tests.scenarios.records.log_cases import _commit, _mixed, _ours, _recrc, _zz

    def record(delta: int) -> bytes:
        body = b"\x00\x00" + _zz(delta) + _zz(len(K)) + K + _zz(-1) + _zz(0)
        return _zz(len(body)) + body
    header = _ours(3, [_commit(3), _commit(4), _commit(5)])[:61]
    second = bytearray(header) + record(0) + record(0) + record(1)
    struct.pack_into(">i", second, 8, len(second) - 12)
    full = _recrc(second)
    return _ours(0, _mixed()) + full[:len(full) - len(record(1))]


def _cut_with_bytes_after_count() -> bytes:
    """A good batch, then a batch counting one record, cut after that record and 5 more bytes:
    bytes follow the records it counts, so it is no torn tail (its CRC field zeroed, so that no
    CRC32C match shows where it ends)."""
    from tests.scenarios.records.log_cases import _commit, _mixed, _ours

    second = bytearray(_ours(3, [_commit(3)]))
    struct.pack_into(">i", second, 8, struct.unpack_from(">i", second, 8)[0] + 20)
    struct.pack_into(">I", second, 17, 0)
    return _ours(0, _mixed()) + bytes(second) + b"\x00" * 5


def _cut_holding_bad_crc_batch() -> bytes:
    """A good batch, then a torn batch whose one record's value holds a whole batch with a
    zeroed CRC32C (below the CRC its bytes give): no valid batch inside, so a torn tail."""
    from groupspec.impl.codec.batch import Record, encode_batch
    from tests.scenarios.records.log_cases import _commit, _mixed, _ours

    inner = bytearray(_ours(9, [_commit(9)]))
    struct.pack_into(">I", inner, 17, 0)
    second = encode_batch([Record(3, T0, COMMIT_KEY, bytes(inner) + b"\x00" * 40)], base_offset=3)
    return _ours(0, _mixed()) + second[:len(second) - 20]


def _repacked(codec: str, payload: Callable[[bytes], bytes], count: int | None = None) -> Callable[[], bytes]:
    """A batch of three commits whose compressed payload is ``payload(records section)``, its
    count set to ``count`` when given, length and CRC recomputed; then a good batch."""
    def build() -> bytes:
        from groupspec.impl.codec.compression import Compression
        from tests.scenarios.records.log_cases import _commit, _ours, _recrc

        plain = _ours(0, [_commit(0), _commit(1, partition=1), _commit(2, partition=2)])
        batch = bytearray(plain[:61]) + payload(plain[61:])
        struct.pack_into(">h", batch, 21, int(Compression[codec.upper()]))
        struct.pack_into(">i", batch, 8, len(batch) - 12)
        if count is not None:
            struct.pack_into(">i", batch, 57, count)
        return _recrc(batch) + _ours(3, [_commit(3)])
    return build


def _zlib(section: bytes) -> bytes:
    import zlib

    return zlib.compress(section)


def _raw_snappy(section: bytes) -> bytes:
    import cramjam

    return bytes(cramjam.snappy.compress_raw(section))


def _xerial_then_junk(section: bytes) -> bytes:
    from groupspec.impl.codec.compression import Compression, compress

    return compress(Compression.SNAPPY, section) + b"\xff" * 16


#: (case, description, writer, build).
LOG_CASES: tuple[tuple[str, str, str, Any], ...] = (
    ("log_three_byte_varints", "records with three-byte varints whose second byte is 0x80: a value "
     "and a key of 8192 bytes, offset and timestamp deltas of 8192 and 16384, a record length of 8204",
     "groupspec", _wide_varints),
    ("log_timestamp_delta_minus_64", "a record 64 ms older than the batch's first: timestamp delta -64, "
     "the one-byte varint 7f", "groupspec", _timestamp_delta_minus_64),
    ("log_record_length_cut_at_batch_end", "a batch whose last record is one byte, the start of a "
     "two-byte length: the batch is refused", "groupspec, damaged", _varint_cut_at_batch_end),
    ("log_record_length_negative", "a record length of -7 over six bytes of a record: the batch is "
     "refused", "groupspec, damaged", _negative_record_length),
    ("log_header_key_length_minus_one", "a record ending in a header whose key length is -1 "
     "(Kafka: 'Invalid negative header key size'): the batch is refused", "groupspec, damaged",
     _header_key_null_at_end),
    ("log_record_fields_past_its_length", "a record whose fields take one byte more than its length "
     "says: the batch is refused", "groupspec, damaged", _fields_past_length),
    *((f"log_{codec}_cut", f"a {codec} last batch cut 7 bytes short: a torn tail, as Kafka's reader "
       "stops there", "groupspec", _codec_cut(codec)) for codec in ("snappy", "lz4", "zstd")),
    ("log_gzip_holding_zlib", "a gzip batch whose payload is a zlib stream, not gzip (Java's "
     "GZIPInputStream refuses it): the batch is refused", "groupspec, damaged", _repacked("gzip", _zlib)),
    ("log_snappy_raw_block", "a snappy batch whose payload is one raw snappy block, without xerial's "
     "framing (some clients write that; xerial's reader takes it)", "groupspec, damaged",
     _repacked("snappy", _raw_snappy)),
    ("log_snappy_header_cut", "a snappy batch of no records whose payload is the first 15 bytes of "
     "xerial's 16-byte header: refused", "groupspec, damaged",
     _repacked("snappy", lambda _: b"\x82SNAPPY\x00\x00\x00\x00\x01\x00\x00\x00", count=0)),
    ("log_snappy_negative_chunk_length", "a xerial snappy stream followed by 16 bytes of ff: a chunk "
     "length of -1, refused", "groupspec, damaged", _repacked("snappy", _xerial_then_junk)),
    ("log_cut_after_a_bad_record", "a last batch cut at a record boundary whose second record "
     "repeats the first's offset delta: no torn tail", "groupspec, damaged", _cut_after_bad_record),
    ("log_cut_with_bytes_after_its_count", "a last batch counting one record, cut 5 bytes after it: "
     "no torn tail", "groupspec, damaged", _cut_with_bytes_after_count),
    ("log_cut_holding_a_bad_crc_batch", "a torn last batch whose record holds a whole batch with a "
     "CRC32C of 0: that inner batch is not valid, so the tail is still torn", "groupspec, damaged",
     _cut_holding_bad_crc_batch),
)


def _log_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance.records import decode_log_answer
    from groupspec.conformance.targets import error_kind
    from groupspec.types.records import OFFSETS_TOPIC

    for case, description, writer, build in LOG_CASES:
        doc_input = {"topic": OFFSETS_TOPIC, "log": build().hex()}
        try:
            expected: dict[str, Any] = decode_log_answer(doc_input)
        except Exception as exc:  # the reader's refusal is the expectation
            expected = {"error": error_kind(exc)}
        doc = _doc("decode_log", case, description, doc_input, expected, f"bytes written by {writer}")
        yield {**doc, "source": {"kind": "generated", "ref": f"bytes written by {writer}"}}


def batch_vector_docs() -> Iterator[dict[str, Any]]:
    """encode_batch's vectors, then write_log's and read_log's, then decode_log's of this catalogue."""
    yield from _encode_docs()
    yield from _write_docs()
    yield from _read_docs()
    yield from _log_docs()

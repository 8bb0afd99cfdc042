"""The writing side of the records machine in conformance: ``encode_batch`` (one record batch's
fields and records in, its bytes out) and ``write_log`` (batches in, the segment files a
partition leader writes for them out). Registered in :mod:`groupspec.machines` next to the
reading handlers of :mod:`groupspec.conformance.records`.

Compressed payloads have no one right byte string: gzip, snappy, lz4 and zstd encoders (and
their levels) differ between Kafka's Java client, kafka-python, librdkafka and groupspec, and
every broker accepts any valid stream. So an ``encode_batch`` answer is compared byte for byte
only when its batch is uncompressed; a compressed one is compared by what it reads back as (the
header fields but the length and CRC, and the decompressed records section), see
:func:`compare_batch`. ``write_log`` takes batches that are already bytes, so its files are
exact.
"""

from __future__ import annotations

from typing import Any

from groupspec.conformance.records import hex_bytes, hex_files
from groupspec.conformance.targets import Handler
from groupspec.conformance.vector_format import object_at, only_keys
from groupspec.types import InputError

#: The batch view's names (``groupspec decode --batches``) of the fields a writer chooses.
BATCH_FIELDS = {
    "baseOffset", "lastOffset", "partitionLeaderEpoch", "producerId", "producerEpoch", "baseSequence",
    "transactional", "control", "timestampType", "compression", "baseTimestamp", "maxTimestamp",
    "deleteHorizonMs",
}
RECORD_FIELDS = {"offset", "timestamp", "key", "value", "headers"}
MARKER_FIELDS = {"offset", "timestamp", "control", "marker", "coordinatorEpoch"}


# --- encode_batch -------------------------------------------------------------------------------


def check_input_encode_batch(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"batch", "records"}, "input")
    only_keys(object_at(body.get("batch"), "input.batch"), BATCH_FIELDS, "input.batch")
    records = body.get("records")
    if not isinstance(records, list):
        raise InputError("input.records", "expected a list")
    for i, record in enumerate(records):
        where = f"input.records[{i}]"
        if not isinstance(record, dict):
            raise InputError(where, "expected an object")
        only_keys(record, MARKER_FIELDS if record.get("control") else RECORD_FIELDS, where)


def check_output_encode_batch(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"batch"}, "output")
    hex_bytes(body.get("batch"), "output.batch")


def _int(body: dict[str, Any], name: str, where: str, default: int | None = None) -> Any:
    value = body.get(name, default)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
        raise InputError(f"{where}.{name}", "expected an integer")
    return value


def _headers(value: Any, where: str) -> tuple[tuple[str, bytes | None], ...]:
    if not isinstance(value, list):
        raise InputError(where, "expected a list of {key, value}")
    out = []
    for j, header in enumerate(value):
        if not isinstance(header, dict) or set(header) != {"key", "value"} \
                or not isinstance(header["key"], str):
            raise InputError(f"{where}[{j}]", "expected {\"key\": string, \"value\": hex or null}")
        out.append((header["key"], hex_bytes(header["value"], f"{where}[{j}].value", nullable=True)))
    return tuple(out)


def encode_batch_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """The bytes (hex) of the batch a writer makes from the fields and records given.

    Fields left out take the defaults of Kafka's ``MemoryRecordsBuilder`` (base offset 0, no
    producer, CreateTime, base timestamp the first record's, max timestamp the largest, last
    offset the last record's). A batch whose one record is a transaction marker (``control``,
    ``marker``, ``coordinatorEpoch``, as the record view prints it) is built as a coordinator
    builds the marker batch.
    """
    from groupspec.impl.codec.batch import (
        ControlType,
        Record,
        TimestampType,
        encode_batch,
        encode_control_batch,
    )
    from groupspec.impl.codec.compression import Compression

    batch = doc["batch"]
    base_offset = _int(batch, "baseOffset", "input.batch", 0)
    records = doc["records"]
    if len(records) == 1 and records[0].get("control"):
        marker = records[0]
        extra = sorted(set(batch) - {"baseOffset", "partitionLeaderEpoch", "producerId", "producerEpoch",
                                     "transactional", "control"})
        if extra or batch.get("transactional") is not True or batch.get("control") is not True:
            raise InputError("input.batch", "a transaction marker's batch is transactional and control, "
                             f"and takes no other fields than the producer's and the epoch (has {extra})")
        if marker.get("marker") not in ("COMMIT", "ABORT"):
            raise InputError("input.records[0].marker", "expected COMMIT or ABORT")
        if _int(marker, "offset", "input.records[0]") != base_offset:
            raise InputError("input.records[0].offset", "a marker batch's one record is at its base offset")
        data = encode_control_batch(
            ControlType[marker["marker"]], offset=base_offset,
            timestamp=_int(marker, "timestamp", "input.records[0]"),
            producer_id=_int(batch, "producerId", "input.batch"),
            producer_epoch=_int(batch, "producerEpoch", "input.batch"),
            coordinator_epoch=_int(marker, "coordinatorEpoch", "input.records[0]"),
            **({"partition_leader_epoch": _int(batch, "partitionLeaderEpoch", "input.batch")}
               if "partitionLeaderEpoch" in batch else {}))
        return {"batch": data.hex()}
    typed = []
    for i, record in enumerate(records):
        where = f"input.records[{i}]"
        if record.get("control"):
            raise InputError(where, "a transaction marker is the one record of its batch")
        typed.append(Record(_int(record, "offset", where), _int(record, "timestamp", where),
                            hex_bytes(record.get("key"), f"{where}.key", nullable=True),
                            hex_bytes(record.get("value"), f"{where}.value", nullable=True),
                            _headers(record.get("headers", []), f"{where}.headers")))
    last = _int(batch, "lastOffset", "input.batch")
    names = {"CreateTime": TimestampType.CREATE_TIME, "LogAppendTime": TimestampType.LOG_APPEND_TIME}
    if batch.get("timestampType", "CreateTime") not in names:
        raise InputError("input.batch.timestampType", "expected CreateTime or LogAppendTime")
    codec = batch.get("compression", "none")
    if not isinstance(codec, str) or codec.upper() not in Compression.__members__:
        raise InputError("input.batch.compression", "expected none, gzip, snappy, lz4 or zstd")
    flags = {}
    for name in ("transactional", "control"):
        flags[name] = batch.get(name, False)
        if not isinstance(flags[name], bool):
            raise InputError(f"input.batch.{name}", "expected true or false")
    # Only the fields given are passed: the writer's own defaults are Kafka's, and what is left
    # out is left to them.
    given = {name: _int(batch, key, "input.batch") for key, name in (
        ("baseOffset", "base_offset"), ("partitionLeaderEpoch", "partition_leader_epoch"),
        ("producerId", "producer_id"), ("producerEpoch", "producer_epoch"),
        ("baseSequence", "base_sequence"), ("baseTimestamp", "base_timestamp"),
        ("maxTimestamp", "max_timestamp"), ("deleteHorizonMs", "delete_horizon_ms")) if key in batch}
    if last is not None:
        given["last_offset_delta"] = last - base_offset
    if "compression" in batch:
        given["compression"] = Compression[codec.upper()]
    if "timestampType" in batch:
        given["timestamp_type"] = names[batch["timestampType"]]
    if "transactional" in batch:
        given["is_transactional"] = flags["transactional"]
    if "control" in batch:
        given["is_control"] = flags["control"]
    return {"batch": encode_batch(typed, **given).hex()}


def handler_encode_batch(target: str) -> Handler:
    return encode_batch_answer


def read_back(data: bytes) -> dict[str, Any]:
    """What a batch's bytes stand for whatever its codec wrote: every header field but the
    length and the CRC (which follow from the compressed bytes), and the records section
    decompressed (hex)."""
    import struct

    from groupspec.impl.codec.batch import RECORD_BATCH_OVERHEAD, decode_batch
    from groupspec.impl.codec.compression import decompress

    batch = decode_batch(data)  # checks the CRC and that the records decompress and decode
    fields = struct.unpack_from(">qiibIhiqqqhii", data, 0)
    header = dict(zip(("baseOffset", "length", "partitionLeaderEpoch", "magic", "crc", "attributes",
                       "lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch",
                       "baseSequence", "count"), fields, strict=True))
    del header["length"], header["crc"]
    section = decompress(batch.compression, data[RECORD_BATCH_OVERHEAD:])
    return {**header, "records": section.hex()}


def compare_batch(expected: dict[str, Any], actual: Any) -> list[str]:
    """An encode_batch answer against its vector: bytes for an uncompressed batch, what the bytes
    read back as for a compressed one (the module doc says why)."""
    want_hex, got_hex = expected["batch"], actual.get("batch") if isinstance(actual, dict) else None
    if not isinstance(got_hex, str):
        return [f"batch: expected hex bytes, got {str(got_hex)[:200]}"]
    want = bytes.fromhex(want_hex)
    if len(want) <= 21 or not want[22] & 0x07:
        return [] if got_hex == want_hex else [f"batch: expected {want_hex[:200]}, got {got_hex[:200]}"]
    try:
        got_fields = read_back(bytes.fromhex(got_hex))
    except Exception as exc:  # not hex, or not a batch that reads back
        return [f"batch: the compressed batch does not read back ({exc})"]
    want_fields = read_back(want)
    return [f"batch.{k}: expected {str(v)[:200]}, got {str(got_fields.get(k))[:200]}"
            for k, v in want_fields.items() if got_fields.get(k) != v]


# --- write_log ----------------------------------------------------------------------------------

_WRITE_KEYS = {"baseOffset", "segmentBytes", "partitionLeaderEpoch", "existing", "resume", "batches"}


def check_input_write_log(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, _WRITE_KEYS, "input")
    batches = body.get("batches")
    if not isinstance(batches, list):
        raise InputError("input.batches", "expected a list of hex batches")
    for i, batch in enumerate(batches):
        hex_bytes(batch, f"input.batches[{i}]")
    hex_files(body.get("existing", {}), "input.existing")




def check_output_write_log(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"files", "appends"}, "output")
    hex_files(body.get("files"), "output.files")
    if not isinstance(body.get("appends"), list):
        raise InputError("output.appends", "expected a list")


def write_log_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """The files of a partition directory after a leader appends ``batches`` (each given its
    base offset, the log's next, and the leader epoch when one is given), rolling segments by
    ``segmentBytes``, and where each batch went (``appends``: file, position, base and last
    offset). ``existing`` files are there first; with ``resume`` (the default when there are
    some) the log is reopened and its last segment continued from ``baseOffset``, its next
    offset; without, a new log starts at ``baseOffset``. Settings left out take the writer's
    defaults (base offset 0, segment.bytes 100 MiB as the coordinator topics', no epoch)."""
    import tempfile
    from pathlib import Path

    from groupspec.impl.codec.segment import SegmentWriter, write_segment

    existing = hex_files(doc.get("existing", {}), "input.existing")
    resume = doc.get("resume", bool(existing))
    if not isinstance(resume, bool):
        raise InputError("input.resume", "expected true or false")
    settings = {name: _int(doc, key, "input") for key, name in (
        ("baseOffset", "base_offset"), ("segmentBytes", "segment_bytes"),
        ("partitionLeaderEpoch", "partition_leader_epoch")) if key in doc}
    batches = [bytes.fromhex(b) for b in doc["batches"]]
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        for name, data in existing.items():
            (directory / name).write_bytes(bytes.fromhex(data))
        appends = []
        if resume:
            with SegmentWriter(directory, resume=True, **settings) as writer:
                for batch in batches:
                    info = writer.append(batch)
                    appends.append({"file": info.file.name, "position": info.position,
                                    "baseOffset": info.base_offset, "lastOffset": info.last_offset})
                if not writer.files:
                    writer.roll()
        else:  # the whole log at once, as a new partition's
            write_segment(directory, batches, **settings)
        files = {p.name: p.read_bytes().hex() for p in sorted(directory.iterdir())}
    return {"files": files, "appends": appends}


def handler_write_log(target: str) -> Handler:
    return write_log_answer


# --- read_log -----------------------------------------------------------------------------------


def check_input_read_log(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"files", "lenient"}, "input")
    hex_files(body.get("files"), "input.files")
    if not isinstance(body.get("lenient", False), bool):
        raise InputError("input.lenient", "expected true or false")


def check_output_read_log(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"items"}, "output")
    if not isinstance(body.get("items"), list):
        raise InputError("output.items", "expected a list")


def read_log_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """Every entry of a partition directory's log, the segments in base-offset order and offsets
    growing across them: per entry its file, position and kind (``batch``, ``bad`` for a batch
    refused in lenient reading, ``torn`` for a torn tail, ``unframed`` for bytes that cannot be
    framed) with its offsets or error kind. Strict reading answers the first refusal's kind."""
    import tempfile
    from pathlib import Path

    from groupspec.conformance.targets import error_kind
    from groupspec.impl.codec.batch import BadBatch, PartialBatch, RecordBatch, UnframedRest
    from groupspec.impl.codec.segment import read_log

    files = hex_files(doc.get("files"), "input.files")
    items: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        for name, data in files.items():
            (directory / name).write_bytes(bytes.fromhex(data))
        for item in read_log(directory, lenient=bool(doc.get("lenient"))):
            line: dict[str, Any] = {"file": item.file.name, "position": item.position}
            entry = item.entry
            if isinstance(entry, RecordBatch):
                line.update(kind="batch", baseOffset=entry.base_offset, lastOffset=entry.last_offset,
                            records=[r.offset for r in entry.records])
            elif isinstance(entry, BadBatch):
                line.update(kind="bad", baseOffset=entry.offset, size=len(entry.raw),
                            error=error_kind(entry.error))
            elif isinstance(entry, PartialBatch):
                line.update(kind="torn", baseOffset=entry.offset, present=entry.present, needed=entry.needed)
            elif isinstance(entry, UnframedRest):  # (a RawBatch comes only from a raw reader)
                line.update(kind="unframed", baseOffset=entry.offset, size=entry.size,
                            error=error_kind(entry.error))
            items.append(line)
    return {"items": items}


def handler_read_log(target: str) -> Handler:
    return read_log_answer

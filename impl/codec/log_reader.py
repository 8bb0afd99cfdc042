"""Read coordinator topic logs into JSON lines, keeping every bad record instead of dying.

This is the loop behind `groupspec decode`: files or partition directories in, one JSON line per
record (or, in the batch view, per batch) out, through the batch reader
(:mod:`groupspec.impl.codec.batch`) and the record codec (:mod:`groupspec.impl.codec.records`).
What goes wrong is sorted the way Kafka's loader sorts it:

- an unknown record type id is skipped with a warning (a newer broker wrote it);
- anything else that fails to decode is a :class:`CodecError`: ``strict`` re-raises it, otherwise
  the record (or the whole batch, when the batch itself is bad) is quarantined with its offset,
  raw bytes and reason, and reading goes on;
- a torn tail (the start of a batch at the end of a segment, as a crash leaves it; the exact
  rule is in :mod:`groupspec.impl.codec.batch`) ends that segment cleanly and is reported;
- bytes that cannot be framed (a batch length that cannot be right, data ending inside a batch
  that is not a torn tail) end the reading of that file with one quarantined entry naming the
  byte position, and reading goes on with the next file (segment files are independent); a
  file that does not even start like a batch is not a segment: named on the command line it is
  refused before anything is printed;
- a batch that would decompress to more than ``max_batch_bytes`` is a bad batch.

Counting, so that a summary always adds up: every record of every valid batch that is looked at
ends in exactly one of *printed*, *filtered out* (group, type, offset range, control records
without ``control``), *skipped* (unknown type) or *quarantined*. Bad batches and unframeable rests
of files are counted apart (their records cannot be counted). A ``limit`` stops reading at the
limit-th output line, so the records after it are not looked at.

Speed: the record view turns key and value bytes straight into JSON text with the per-type
decoders of :mod:`groupspec.impl.codec.json_form` (no record object), formats what every record
of a batch shares once per batch, and hands the caller one string per batch, instead of a dict
per record through ``json.dumps`` (that path ran at a tenth of the codec's speed). Rare lines
(quarantined, control, consumer-protocol members) still go through dicts. :func:`read_logs`
keeps the dict-per-line interface for library callers.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any, Protocol

import google_crc32c

from groupspec.impl.codec import records as record_codec
from groupspec.impl.codec.batch import (
    CURRENT_MAGIC,
    HEADER_SIZE_UP_TO_MAGIC,
    LOG_OVERHEAD,
    MIN_LEGACY_LENGTH,
    RECORD_BATCH_OVERHEAD,
    BadBatch,
    BatchReader,
    PartialBatch,
    Record,
    RecordBatch,
    decode_control_marker,
)
from groupspec.impl.codec.compression import DEFAULT_MAX_BATCH_BYTES
from groupspec.impl.codec.consumer_protocol import decode_assignment, decode_subscription, highest_version
from groupspec.impl.codec.errors import CodecError, FramingError, UnknownRecordTypeError
from groupspec.impl.codec.json_form import text_decoder, text_encoder, to_json
from groupspec.impl.codec.segment import base_offset_of, segment_files
from groupspec.types import InputError
from groupspec.types.records import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    GroupMetadataValue,
    record_type_of,
    record_types,
)

TOPICS = (OFFSETS_TOPIC, SHARE_STATE_TOPIC)
_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)$")
_HEADER = struct.Struct(">qiibIhiqqqhii")
_PREFIX = struct.Struct(">qiib")
_INT32_MAX = (1 << 31) - 1
#: A segment holds offsets up to this far past its base offset (an index's relative offsets).
_MAX_RELATIVE_OFFSET = _INT32_MAX
_INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True)
class LogReadOptions:
    topic: str | None = None
    groups: frozenset[str] = frozenset()
    #: Record type names ("OffsetCommit") or ids ("1"); empty means every type.
    types: tuple[str, ...] = ()
    strict: bool = False
    raw_bytes: str = "hex"
    consumer_protocol: bool = True
    control: bool = False
    #: Offsets to print, both ends included; None leaves that end open.
    offset_start: int | None = None
    offset_end: int | None = None
    #: Stop after this many output lines (records, or batches in the batch view).
    limit: int | None = None
    #: One line per batch (its header) instead of one per record.
    batches: bool = False
    #: The most bytes one batch may decompress to (a bigger one is a bad batch).
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES


@dataclass
class ReadReport:
    """What a read saw; ``records == printed + filtered + skipped + quarantined_records``."""

    files: int = 0
    #: Segment files of a directory left unread because they end before ``offset_start``.
    files_passed_over: int = 0
    #: Valid batches read (bad ones are ``bad_batches``).
    batches: int = 0
    #: Records looked at in those batches (in the batch view: none).
    records: int = 0
    #: Records printed (in the batch view: batches printed).
    printed: int = 0
    #: Records (batches, in the batch view) left out by a filter or the offset range.
    filtered: int = 0
    #: Records of a type this groupspec does not know, by type id.
    unknown_types: dict[int, int] = field(default_factory=dict)
    quarantined_records: int = 0
    bad_batches: int = 0
    #: Files (or rests of files) that could not be framed: one quarantined entry each.
    unreadable: int = 0
    partial_tails: list[str] = field(default_factory=list)
    #: Output lines written (printed records or batches, and quarantined entries).
    lines: int = 0
    stopped_at_limit: bool = False
    batch_view: bool = False
    #: Bytes of the files opened so far (a file counts whole once it is opened, read to its end or
    #: not).
    bytes_read: int = 0

    @property
    def skipped(self) -> int:
        return sum(self.unknown_types.values())

    @property
    def quarantined(self) -> int:
        """Quarantined entries of every kind: what makes ``decode`` exit 1."""
        return self.quarantined_records + self.bad_batches + self.unreadable


def partition_of(path: Path) -> tuple[str | None, int | None]:
    """(topic, partition) from a Kafka partition directory name such as ``__consumer_offsets-27``."""
    directory = path if path.is_dir() else path.parent
    m = _PARTITION_DIR.match(directory.name)
    if m is None:
        return None, None
    return m.group("topic"), int(m.group("partition"))


def wanted_types(topic: str, names: Iterable[str]) -> frozenset[int] | None:
    """Type ids from names or ids; anything that is not a record type of ``topic`` is refused."""
    names = list(names)
    if not names:
        return None
    known = record_types(topic)
    by_name = {rt.name.lower(): rt.type_id for rt in known.values()}
    wanted = set()
    for name in names:
        text = name.strip()
        if text.lstrip("-").isdigit():
            if int(text) not in known:
                # Each coordinator topic's type ids run without a gap (a test holds them to it).
                raise InputError("--type", f"{text} is not a record type id of {topic} "
                                 f"(ids {min(known)}-{max(known)})")
            wanted.add(int(text))
        elif text.lower() in by_name:
            wanted.add(by_name[text.lower()])
        else:
            choices = ", ".join(sorted(rt.name for rt in known.values()))
            raise InputError("--type", f"{name!r} is not a record type of {topic} (one of {choices})")
    return frozenset(wanted)


def segment_start_problem(head: bytes) -> str | None:
    """Why bytes cannot be the start of a log segment (None when they can).

    A segment starts with a batch header in any message format: base offset >= 0, a batch length
    no smaller than the format's smallest batch, and magic 0, 1 or 2 at byte 16. A text file or
    other stray file fails at least one of these (an ASCII or UTF-8 text byte is never 0-2).
    Fewer than 17 bytes are left to the reader (a segment cut inside its first batch).
    """
    if len(head) < HEADER_SIZE_UP_TO_MAGIC:
        return None
    base_offset, length, _epoch, magic = _PREFIX.unpack_from(head, 0)
    if magic not in (0, 1, CURRENT_MAGIC):
        return (f"byte 16 (the message format magic of the first batch) is {magic}, "
                "not 0, 1 or 2")
    if base_offset < 0:
        return f"the first batch's base offset {base_offset} is negative"
    minimum = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD if magic == CURRENT_MAGIC else MIN_LEGACY_LENGTH
    if length < minimum:
        return f"the first batch's length {length} is below the minimum {minimum}"
    return None


@dataclass(frozen=True)
class _Input:
    """One PATH argument, checked: its topic, partition, files and type filter."""

    path: Path
    topic: str
    partition: int | None
    files: tuple[Path, ...]
    wanted: frozenset[int] | None
    passed_over: int


def plan(paths: Iterable[str | Path], options: LogReadOptions,
         warn: Callable[[str], None]) -> list[_Input]:
    """Check every path before anything is printed: a usage mistake costs no output."""
    if options.offset_start is not None and options.offset_end is not None \
            and options.offset_start > options.offset_end:
        raise InputError("--offset-start", f"{options.offset_start} is after --offset-end "
                         f"{options.offset_end}")
    if options.limit is not None and options.limit < 1:
        raise InputError("--limit", f"{options.limit} is not a positive number of lines")
    if options.raw_bytes not in ("hex", "base64"):
        raise InputError("--raw-bytes", f"{options.raw_bytes!r} is not a way to print bytes (hex or base64)")
    if options.batches and (options.groups or options.types):
        raise InputError("--batches", "shows batch headers; --group and --type filter records")
    inputs = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(str(path), "no such file or directory")
        named, partition = partition_of(path)
        topic = options.topic
        if topic is None:
            if named not in TOPICS:
                what = "" if named is None else f" ({named} is not a coordinator topic)"
                raise InputError(str(path), f"cannot tell which topic this is{what}: name the partition "
                                 "directory like __consumer_offsets-27 or pass --topic")
            topic = named
        elif named is not None and named != topic:
            warn(f"{path}: --topic {topic} overrides the topic {named} that the directory name says")
        if path.is_dir():
            files = segment_files(path)
            if not files:
                warn(f"{path}: no segment files (<base offset>.log) in this directory")
        elif path.is_file():
            files = [path]
            problem = segment_start_problem(_head(path))
            if problem is not None:
                raise InputError(str(path), f"not a Kafka log segment: {problem}")
        else:
            raise InputError(str(path), "neither a file nor a directory")
        files, passed_over = _from_offset(files, options.offset_start)
        inputs.append(_Input(path, topic, partition, tuple(files), wanted_types(topic, options.types),
                             passed_over))
    return inputs


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(HEADER_SIZE_UP_TO_MAGIC)
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None


def _from_offset(files: list[Path], start: int | None) -> tuple[list[Path], int]:
    """Drop the segments that end before ``start``: the next segment's name says where each ends."""
    if start is None or len(files) < 2:
        return files, 0
    first = 0
    for i in range(len(files) - 1):
        following = base_offset_of(files[i + 1])
        if following is not None and following <= start:
            first = i + 1
    return files[first:], first


class ProgressMeter(Protocol):
    """What :func:`decode_logs` tells a progress display (``groupspec decode``'s is
    :class:`groupspec.commands.decode_report.Progress`): once per batch, at the end, and before
    an error ends the read."""

    def at(self, position: int, report: ReadReport) -> None:
        """Reading is at byte ``position`` of the file after ``report.bytes_read`` bytes."""

    def end(self, report: ReadReport) -> None: ...

    def clear(self) -> None: ...


class _Stop(Exception):
    """The line limit was reached: reading ends everywhere."""


def decode_logs(
    paths: Iterable[str | Path],
    options: LogReadOptions,
    write: Callable[[str], object],
    warn: Callable[[str], None],
    progress: Callable[[list[Path]], ProgressMeter | None] | None = None,
) -> ReadReport:
    """Decode every path in order, calling ``write`` with whole JSON lines (one call per batch).

    ``progress``, if given, is called with the files to be read and returns the
    :class:`ProgressMeter` to report to (or None).
    """
    inputs = plan(paths, options, warn)
    report = ReadReport(batch_view=options.batches)
    meter = progress([f for inp in inputs for f in inp.files]) if progress is not None else None
    reader = _Reader(options, write, warn, report, meter)
    try:
        for inp in inputs:
            reader.read_input(inp)
    except _Stop:
        report.stopped_at_limit = True
    except BaseException:
        if meter is not None:
            meter.clear()
        raise
    if meter is not None:
        meter.end(report)
    return report


def read_logs(
    paths: Iterable[str | Path],
    options: LogReadOptions,
    emit: Callable[[dict[str, Any]], None],
    warn: Callable[[str], None],
) -> ReadReport:
    """:func:`decode_logs` with one dict per line, for library callers and tests."""

    def write(text: str) -> None:
        # JSON escapes a newline inside a string, so "\n" only ever ends a line.
        for line in text.split("\n"):
            if line:
                emit(json.loads(line))

    return decode_logs(paths, options, write, warn)


# --- the reader -----------------------------------------------------------------------------------


class _TypeInfo:
    """What decoding and printing a record of one type needs, worked out once per run."""

    __slots__ = ("consumer_protocol", "group_attr", "head", "key_decoder", "key_text", "key_text_decoder",
                 "record_type", "tail_after_value", "tombstone", "values", "wanted")

    def __init__(self, topic: str, type_id: int, wanted: frozenset[int] | None,
                 consumer_protocol: bool) -> None:
        found = record_codec.type_decoders(topic, type_id)
        if found is None:
            raise KeyError(type_id)
        rtype, self.key_decoder, value_decoders = found
        self.record_type = rtype
        self.wanted = wanted is None or type_id in wanted
        #: Print the members' consumer-protocol bytes decoded (classic groups' GroupMetadata only).
        self.consumer_protocol = consumer_protocol and rtype.value is GroupMetadataValue
        names = {f.name for f in dataclasses.fields(rtype.key)}
        self.group_attr = next((a for a in ("group", "group_id") if a in names), "")
        self.head = f',"type":{encode_basestring(rtype.name)},"typeId":{type_id},"key":'
        self.key_text = text_encoder(rtype.key, record_codec.KEY_VERSION)
        self.key_text_decoder = text_decoder(rtype.key, record_codec.KEY_VERSION)
        #: version -> (bytes to JSON text, bytes to object, object to JSON text)
        self.values = {v: (text_decoder(rtype.value, v), dec, text_encoder(rtype.value, v))
                       for v, dec in value_decoders.items()}
        retired = f',"retiredIn":{encode_basestring(rtype.retired)}' if rtype.retired else ""
        self.tail_after_value = ',"tombstone":false' + retired
        self.tombstone = ',"valueVersion":null,"value":null,"tombstone":true' + retired


class _TypeInfos(dict[int, _TypeInfo]):
    """The type infos of one topic, built on first use; an unknown id is a KeyError."""

    def __init__(self, topic: str, wanted: frozenset[int] | None, consumer_protocol: bool) -> None:
        super().__init__()
        self.topic = topic
        self.wanted = wanted
        self.consumer_protocol = consumer_protocol

    def __missing__(self, type_id: int) -> _TypeInfo:
        info = _TypeInfo(self.topic, type_id, self.wanted, self.consumer_protocol)
        self[type_id] = info
        return info


class _Fallback(Exception):
    """The fast path met something unusual: decode the record the ordinary way."""


class _Reader:
    def __init__(self, options: LogReadOptions, write: Callable[[str], object], warn: Callable[[str], None],
                 report: ReadReport, meter: ProgressMeter | None) -> None:
        self.options = options
        self.write = write
        self.warn = warn
        self.report = report
        self.meter = meter
        self.lo = -1 if options.offset_start is None else options.offset_start
        self.hi = _INT64_MAX if options.offset_end is None else options.offset_end
        self.room = sys.maxsize if options.limit is None else options.limit
        self.infos: dict[str, _TypeInfos] = {}

    # -- per path and file ---------------------------------------------------------------------

    def read_input(self, inp: _Input) -> None:
        report = self.report
        report.files_passed_over += inp.passed_over
        reader = BatchReader(lenient=not self.options.strict, max_batch_bytes=self.options.max_batch_bytes)
        topic_text = encode_basestring(inp.topic)
        partition_text = "null" if inp.partition is None else str(inp.partition)
        for file in inp.files:
            try:
                data = file.read_bytes()
            except OSError as exc:
                raise InputError(str(file), f"cannot read: {exc.strerror or exc}") from None
            report.files += 1
            file_text = encode_basestring(str(file))
            where = f'{{"topic":{topic_text},"partition":{partition_text},"file":{file_text}'
            try:
                ended = self.read_file(inp, file, data, reader, where)
            except CodecError as exc:
                # The framing itself is broken (a batch length that cannot be right, a file that
                # is no segment): nothing after this point of the file can be located, so the rest
                # of the file is one quarantined entry. Segment files are independent: the next
                # one is read.
                if self.options.strict:
                    raise
                report.unreadable += 1
                doc: dict[str, Any] = {"topic": inp.topic, "partition": inp.partition, "file": str(file)}
                if isinstance(exc, FramingError):
                    doc.update({"position": exc.position, "size": exc.size})
                doc.update({"quarantined": True, "offset": exc.offset, "reason": str(exc)})
                self.emit_doc(doc)
                continue
            finally:
                report.bytes_read += len(data)
            if ended:
                return

    def read_file(self, inp: _Input, file: Path, data: bytes, reader: BatchReader, where: str) -> bool:
        """Every batch of one file; True when the offset range has been passed (stop this path)."""
        problem = segment_start_problem(data[:HEADER_SIZE_UP_TO_MAGIC])
        if problem is not None:
            raise FramingError(f"{file}: not a Kafka log segment: {problem}", 0, len(data))
        base = base_offset_of(file)
        if base is not None and base > 0 and (reader.last_offset is None or reader.last_offset < base - 1):
            reader.last_offset = base - 1
        reader.max_tail_offset = None if base is None else base + _MAX_RELATIVE_OFFSET
        report = self.report
        batch_view = self.options.batches
        try:
            for position, entry in reader.read(data):
                if self.meter is not None:
                    self.meter.at(position, report)
                if entry.__class__ is RecordBatch:
                    assert isinstance(entry, RecordBatch)
                    if entry.base_offset > self.hi:
                        return True
                    report.batches += 1
                    if batch_view:
                        self.batch_line(entry, where, position, data)
                    else:
                        self.batch_records(inp, entry, where, position)
                elif isinstance(entry, PartialBatch):
                    report.partial_tails.append(f"{file}@{position}")
                    self.warn(f"{file}: {entry.describe()}")
                elif isinstance(entry, BadBatch):
                    report.bad_batches += 1
                    if batch_view:
                        self.bad_batch_line(entry, inp, file)
                    else:
                        self.emit_doc({"topic": inp.topic, "partition": inp.partition, "file": str(file),
                                       "position": position, "quarantined": True, "offset": entry.offset,
                                       "reason": str(entry.error),
                                       "batch": _raw(bytes(entry.raw), self.options.raw_bytes)})
        except CodecError as exc:
            CodecError.__init__(exc, f"{file}, {exc.reason}", exc.offset)
            raise
        return False

    # -- output --------------------------------------------------------------------------------

    def emit_doc(self, doc: dict[str, Any]) -> None:
        """One line from a dict (the rare lines); counts toward the limit."""
        self.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.count_line()

    def count_line(self) -> None:
        self.report.lines += 1
        self.room -= 1
        if self.room <= 0:
            raise _Stop

    # -- the batch view ------------------------------------------------------------------------

    def batch_line(self, batch: RecordBatch, where: str, position: int, data: bytes) -> None:
        report = self.report
        if batch.last_offset < self.lo:
            report.filtered += 1
            return
        size = LOG_OVERHEAD + struct.unpack_from(">i", data, position + 8)[0]
        doc = {
            "position": position,
            "baseOffset": batch.base_offset,
            "lastOffset": batch.last_offset,
            "count": len(batch.records),
            "size": size,
            "magic": batch.magic,
            "compression": batch.compression.name.lower(),
            "crc": batch.crc,
            "crcValid": True,
            "partitionLeaderEpoch": batch.partition_leader_epoch,
            "producerId": batch.producer_id,
            "producerEpoch": batch.producer_epoch,
            "baseSequence": batch.base_sequence,
            "lastSequence": _last_sequence(batch.base_sequence, batch.last_offset_delta),
            "transactional": batch.is_transactional,
            "control": batch.is_control,
            "timestampType": "LogAppendTime" if batch.timestamp_type else "CreateTime",
            "baseTimestamp": batch.base_timestamp,
            "maxTimestamp": batch.max_timestamp,
            "deleteHorizonMs": batch.delete_horizon_ms,
        }
        text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
        self.write(where + "," + text[1:] + "\n")
        report.printed += 1
        self.count_line()

    def bad_batch_line(self, bad: BadBatch, inp: _Input, file: Path) -> None:
        raw = bytes(bad.raw)
        doc: dict[str, Any] = {"topic": inp.topic, "partition": inp.partition, "file": str(file),
                               "position": bad.position, "baseOffset": bad.offset, "size": len(raw)}
        if len(raw) >= RECORD_BATCH_OVERHEAD and raw[16] == CURRENT_MAGIC:
            (_, _, epoch, magic, crc, attributes, last_delta, base_ts, max_ts, producer_id, producer_epoch,
             base_sequence, count) = _HEADER.unpack_from(raw, 0)
            doc.update({
                "lastOffset": bad.offset + last_delta, "count": count, "magic": magic,
                "compression": _codec_name(attributes & 0x07), "crc": crc,
                "crcValid": google_crc32c.value(raw[21:]) == crc, "partitionLeaderEpoch": epoch,
                "producerId": producer_id, "producerEpoch": producer_epoch, "baseSequence": base_sequence,
                "transactional": bool(attributes & 0x10), "control": bool(attributes & 0x20),
                "timestampType": "LogAppendTime" if attributes & 0x08 else "CreateTime",
                "baseTimestamp": base_ts, "maxTimestamp": max_ts,
            })
        elif len(raw) >= HEADER_SIZE_UP_TO_MAGIC:
            doc["magic"] = raw[16]
        doc.update({"quarantined": True, "reason": str(bad.error),
                    "batch": _raw(raw, self.options.raw_bytes)})
        self.emit_doc(doc)

    # -- the record view -----------------------------------------------------------------------

    def type_infos(self, inp: _Input) -> _TypeInfos:
        found = self.infos.get(inp.topic)
        if found is None:
            found = _TypeInfos(inp.topic, inp.wanted, self.options.consumer_protocol)
            self.infos[inp.topic] = found
        return found

    def batch_records(self, inp: _Input, batch: RecordBatch, where: str, position: int) -> None:
        report = self.report
        options = self.options
        records = batch.records
        if batch.is_control:
            self.control_records(inp, batch, where, position)
            return
        lo, hi = self.lo, self.hi
        check_range = batch.base_offset < lo or batch.last_offset > hi
        if check_range and batch.last_offset < lo:
            report.records += len(records)
            report.filtered += len(records)
            return
        prefix = f'{where},"position":{position},"offset":'
        common = (f',"producerId":{batch.producer_id},"producerEpoch":{batch.producer_epoch},'
                  f'"transactional":{"true" if batch.is_transactional else "false"},'
                  f'"timestampType":"{"LogAppendTime" if batch.timestamp_type else "CreateTime"}"')
        infos = self.type_infos(inp)
        groups = options.groups
        lines: list[str] = []
        append = lines.append
        printed = filtered = 0
        room = self.room
        seen = len(records)
        try:
            for index, record in enumerate(records):
                offset = record.offset
                if check_range and (offset < lo or offset > hi):
                    filtered += 1
                    continue
                kb = record.key
                vb = record.value
                # The usual case inline: the type's decoders straight to JSON text, no record or
                # key object (a key object only to filter by group, a value object only to decode
                # consumer-protocol members). (A cache of decoded keys was tried: 15% slower on a
                # log of distinct keys, as compacted segments are.) Anything unusual (no key,
                # unknown type or version, bytes left over, a decode error) goes through
                # decode_record, which raises exactly the error it always raises.
                try:
                    info = infos[kb[0] << 8 | kb[1]]  # type: ignore[index]
                    if groups:
                        key, end = info.key_decoder(kb, 2)  # type: ignore[arg-type]
                        key_json = info.key_text(key)
                    else:
                        key_json, end = info.key_text_decoder(kb, 2)  # type: ignore[arg-type]
                    if end != len(kb):  # type: ignore[arg-type]
                        raise _Fallback
                    if vb is not None:
                        version = vb[0] << 8 | vb[1]
                        as_text, as_object, object_text = info.values[version]
                        if info.consumer_protocol:
                            value, end = as_object(vb, 2)
                            value_json = object_text(value)
                            members = _consumer_protocol_text(value)
                        else:
                            value_json, end = as_text(vb, 2)
                            members = ""
                        if end != len(vb):
                            raise _Fallback
                except Exception:
                    try:
                        if kb is None:
                            raise CodecError("a coordinator record without a key") from None
                        rec = record_codec.decode_record(inp.topic, kb, vb)
                    except UnknownRecordTypeError as exc:
                        self.unknown_type(inp, exc.type_id, offset)
                        continue
                    except CodecError as exc:
                        exc.at(offset)
                        if options.strict:
                            seen = index + 1
                            raise
                        report.quarantined_records += 1
                        append(self.quarantined_line(batch, record, exc, where, position))
                        room -= 1
                        if room <= 0:
                            seen = index + 1
                            break
                        continue
                    key, value = rec.key, rec.value
                    info = infos[record_type_of(type(key)).type_id]
                    key_json = info.key_text(key)
                    if value is not None:
                        version = rec.value_version or 0
                        value_json = info.values[version][2](value)
                        members = _consumer_protocol_text(value) if info.consumer_protocol else ""
                if not info.wanted or (groups and getattr(key, info.group_attr, None) not in groups):
                    filtered += 1
                    continue
                if vb is None:
                    append(f'{prefix}{offset},"timestamp":{record.timestamp}{common}{info.head}{key_json}'
                           f'{info.tombstone}}}\n')
                else:
                    append(f'{prefix}{offset},"timestamp":{record.timestamp}{common}{info.head}{key_json}'
                           f',"valueVersion":{version},"value":{value_json}{info.tail_after_value}{members}}}\n')
                printed += 1
                room -= 1
                if room <= 0:
                    seen = index + 1
                    break
        finally:
            report.records += seen
            report.printed += printed
            report.filtered += filtered
            report.lines += self.room - room
            self.room = room
            if lines:
                self.write("".join(lines))
        if room <= 0:
            raise _Stop

    def unknown_type(self, inp: _Input, type_id: int, offset: int) -> None:
        unknown = self.report.unknown_types
        seen_before = unknown.get(type_id, 0)
        unknown[type_id] = seen_before + 1
        if not seen_before:  # once per type: a streams-heavy log holds millions of them
            self.warn(f"{inp.path}: offset {offset}: skipping records of unknown type {type_id} "
                      "(the summary counts them)")

    def quarantined_line(self, batch: RecordBatch, record: Record, exc: CodecError, where: str,
                         position: int) -> str:
        raw = self.options.raw_bytes
        doc = {"position": position, "offset": record.offset, "timestamp": record.timestamp,
               "producerId": batch.producer_id, "producerEpoch": batch.producer_epoch,
               "transactional": batch.is_transactional,
               "timestampType": "LogAppendTime" if batch.timestamp_type else "CreateTime",
               "quarantined": True, "reason": exc.reason,
               "key": _raw(record.key, raw), "value": _raw(record.value, raw)}
        return where + "," + json.dumps(doc, ensure_ascii=False, separators=(",", ":"))[1:] + "\n"

    def control_records(self, inp: _Input, batch: RecordBatch, where: str, position: int) -> None:
        report = self.report
        common = {"producerId": batch.producer_id, "producerEpoch": batch.producer_epoch,
                  "transactional": batch.is_transactional,
                  "timestampType": "LogAppendTime" if batch.timestamp_type else "CreateTime"}
        for record in batch.records:
            report.records += 1
            if not self.options.control or not self.lo <= record.offset <= self.hi:
                report.filtered += 1
                continue
            doc = {"position": position, "offset": record.offset, "timestamp": record.timestamp, **common,
                   **_control_document(record, self.options)}
            self.write(where + "," + json.dumps(doc, ensure_ascii=False, separators=(",", ":"))[1:] + "\n")
            if doc.get("quarantined"):
                report.quarantined_records += 1
            else:
                report.printed += 1
            self.count_line()


def _last_sequence(base_sequence: int, delta: int) -> int:
    """Kafka's ``DefaultRecordBatch.lastSequence``: the base sequence plus the delta, wrapping at int32."""
    if base_sequence < 0:
        return -1
    if base_sequence > _INT32_MAX - delta:
        return delta - (_INT32_MAX - base_sequence) - 1
    return base_sequence + delta


def _codec_name(codec_id: int) -> str:
    names = ("none", "gzip", "snappy", "lz4", "zstd")
    return names[codec_id] if codec_id < len(names) else f"unknown ({codec_id})"


def _raw(data: bytes | None, how: str) -> str | None:
    if data is None:
        return None
    return data.hex() if how == "hex" else base64.b64encode(data).decode("ascii")


def _consumer_protocol_text(value: Any) -> str:
    members = _consumer_members(value)
    if members is None:
        return ""
    return ',"consumerProtocol":' + json.dumps(members, ensure_ascii=False, separators=(",", ":"))


def _consumer_members(value: Any) -> list[dict[str, Any]] | None:
    if getattr(value, "protocol_type", None) != "consumer":
        return None
    out = []
    for member in value.members:
        entry: dict[str, Any] = {"memberId": member.member_id}
        parts = (("subscription", member.subscription, decode_subscription),
                 ("assignment", member.assignment, decode_assignment))
        for name, data, decode in parts:
            if not data:
                entry[name] = None  # a member between generations has no assignment yet
                continue
            try:
                decoded, version = decode(data)
            except CodecError as exc:
                entry[name] = {"error": exc.reason, "hex": data.hex()}
            else:
                # A version above the known ones is read with the highest known layout (see
                # consumer_protocol); its fields are that layout's.
                shown = min(version, highest_version(type(decoded)))
                entry[name] = {"version": version, **to_json(decoded, shown)}
        out.append(entry)
    return out


def _control_document(record: Record, options: LogReadOptions) -> dict[str, Any]:
    try:
        marker = decode_control_marker(record)
    except CodecError as exc:
        if options.strict:  # --strict stops at a bad control record as at any other
            raise
        return {"control": True, "quarantined": True, "reason": exc.reason,
                "key": _raw(record.key, options.raw_bytes), "value": _raw(record.value, options.raw_bytes)}
    return {"control": True, "marker": marker.kind, "coordinatorEpoch": marker.coordinator_epoch}

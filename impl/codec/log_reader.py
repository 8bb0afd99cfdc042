"""Read coordinator topic logs into decoded records, keeping every bad record instead of dying.

This is the loop behind `groupspec decode` and the offsets/share-state audits: files or partition
directories in, one JSON-ready document per record out, through the batch reader
(:mod:`groupspec.impl.codec.segment`) and the record codec (:mod:`groupspec.impl.codec.records`).
What goes wrong is sorted the way Kafka's loader sorts it:

- an unknown record type id is skipped with a warning (a newer broker wrote it);
- anything else that fails to decode is a :class:`CodecError`: ``strict`` re-raises it, otherwise
  the record (or the whole batch, when the batch itself is bad) is quarantined with its offset,
  raw bytes and reason, and reading goes on;
- a partial batch at the end of a segment ends that segment cleanly and is reported.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groupspec.impl.codec import records as record_codec
from groupspec.impl.codec.batch import BadBatch, Record, RecordBatch, decode_control_marker
from groupspec.impl.codec.consumer_protocol import decode_assignment, decode_subscription
from groupspec.impl.codec.errors import CodecError, UnknownRecordTypeError
from groupspec.impl.codec.json_form import to_json
from groupspec.impl.codec.segment import PartialBatch, read_log
from groupspec.types import InputError
from groupspec.types.records import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    CoordinatorRecord,
    RecordType,
    record_type_of,
    record_types,
)

TOPICS = (OFFSETS_TOPIC, SHARE_STATE_TOPIC)
_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)$")


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


@dataclass
class ReadReport:
    files: int = 0
    batches: int = 0
    records: int = 0
    printed: int = 0
    filtered: int = 0
    quarantined: int = 0
    unknown_types: dict[int, int] = field(default_factory=dict)
    partial_tails: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = [f"{self.files} files", f"{self.batches} batches", f"{self.records} records",
                 f"{self.printed} printed"]
        if self.filtered:
            parts.append(f"{self.filtered} filtered out")
        if self.unknown_types:
            skipped = sum(self.unknown_types.values())
            ids = ", ".join(str(t) for t in sorted(self.unknown_types))
            parts.append(f"{skipped} of unknown types {ids} skipped")
        parts.append(f"{self.quarantined} quarantined")
        if self.partial_tails:
            parts.append(f"{len(self.partial_tails)} partial batch at a segment end")
        return ", ".join(parts)


def partition_of(path: Path) -> tuple[str | None, int | None]:
    """(topic, partition) from a Kafka partition directory name such as ``__consumer_offsets-27``."""
    directory = path if path.is_dir() else path.parent
    m = _PARTITION_DIR.match(directory.name)
    if m is None:
        return None, None
    return m.group("topic"), int(m.group("partition"))


def _wanted_types(topic: str, names: Iterable[str]) -> frozenset[int] | None:
    names = list(names)
    if not names:
        return None
    known = record_types(topic)
    by_name = {rt.name.lower(): rt.type_id for rt in known.values()}
    wanted = set()
    for name in names:
        if name.isdigit():
            wanted.add(int(name))
        elif name.lower() in by_name:
            wanted.add(by_name[name.lower()])
        else:
            choices = ", ".join(sorted(rt.name for rt in known.values()))
            raise InputError("--type", f"{name!r} is not a record type of {topic} (one of {choices})")
    return frozenset(wanted)


def _group_of(key: object) -> str | None:
    for attr in ("group", "group_id"):
        value = getattr(key, attr, None)
        if isinstance(value, str):
            return value
    return None


def _raw(data: bytes | None, how: str) -> str | None:
    if data is None:
        return None
    return data.hex() if how == "hex" else base64.b64encode(data).decode("ascii")


def read_logs(
    paths: Iterable[str | Path],
    options: LogReadOptions,
    emit: Callable[[dict[str, Any]], None],
    warn: Callable[[str], None],
) -> ReadReport:
    """Decode every path in order, calling ``emit`` once per printed document."""
    report = ReadReport()
    for raw_path in paths:
        path = Path(raw_path)
        if not path.exists():
            raise InputError(str(path), "no such file or directory")
        topic, partition = partition_of(path)
        if options.topic is not None:
            topic = options.topic
        if topic not in TOPICS:
            raise InputError(str(path), "cannot tell which topic this is: name the partition directory "
                             "like __consumer_offsets-27 or pass --topic")
        wanted = _wanted_types(topic, options.types)
        for doc in _documents(path, topic, partition, options, wanted, report, warn):
            report.printed += 1
            emit(doc)
    return report


def _documents(
    path: Path,
    topic: str,
    partition: int | None,
    options: LogReadOptions,
    wanted: frozenset[int] | None,
    report: ReadReport,
    warn: Callable[[str], None],
) -> Iterator[dict[str, Any]]:
    seen_files: set[Path] = set()
    try:
        yield from _entries(path, topic, partition, options, wanted, report, warn, seen_files)
    except CodecError as exc:
        # The framing itself is broken (a batch length that cannot be right): nothing after this
        # point in the file can be located, so the rest of the file is one quarantined entry.
        if options.strict:
            raise
        report.quarantined += 1
        yield {"topic": topic, "partition": partition, "file": str(path), "quarantined": True,
               "offset": exc.offset, "reason": str(exc)}


def _entries(
    path: Path,
    topic: str,
    partition: int | None,
    options: LogReadOptions,
    wanted: frozenset[int] | None,
    report: ReadReport,
    warn: Callable[[str], None],
    seen_files: set[Path],
) -> Iterator[dict[str, Any]]:
    for item in read_log(path, lenient=not options.strict):
        if item.file not in seen_files:
            seen_files.add(item.file)
            report.files += 1
        entry = item.entry
        where = {"topic": topic, "partition": partition, "file": str(item.file), "position": item.position}
        if isinstance(entry, PartialBatch):
            report.partial_tails.append(f"{item.file}@{item.position}")
            warn(f"{item.file}: {entry.describe()}")
            continue
        if isinstance(entry, BadBatch):
            report.quarantined += 1
            yield {**where, "quarantined": True, "offset": entry.offset, "reason": str(entry.error),
                   "batch": _raw(bytes(entry.raw), options.raw_bytes)}
            continue
        report.batches += 1
        yield from _batch_documents(entry, topic, where, options, wanted, report, warn)


def _batch_documents(
    batch: RecordBatch,
    topic: str,
    where: dict[str, Any],
    options: LogReadOptions,
    wanted: frozenset[int] | None,
    report: ReadReport,
    warn: Callable[[str], None],
) -> Iterator[dict[str, Any]]:
    common = {
        "producerId": batch.producer_id,
        "producerEpoch": batch.producer_epoch,
        "transactional": batch.is_transactional,
        "timestampType": "LogAppendTime" if batch.timestamp_type else "CreateTime",
    }
    for record in batch.records:
        report.records += 1
        head = {**where, "offset": record.offset, "timestamp": record.timestamp, **common}
        if batch.is_control:
            if options.control:
                yield {**head, **_control_document(record, options)}
            else:
                report.filtered += 1
            continue
        try:
            decoded = _decode(topic, record)
        except UnknownRecordTypeError as exc:
            report.unknown_types[exc.type_id] = report.unknown_types.get(exc.type_id, 0) + 1
            warn(f"offset {record.offset}: skipped a record of unknown type {exc.type_id}")
            continue
        except CodecError as exc:
            exc.at(record.offset)
            if options.strict:
                raise
            report.quarantined += 1
            yield {**head, "quarantined": True, "reason": exc.reason,
                   "key": _raw(record.key, options.raw_bytes),
                   "value": _raw(record.value, options.raw_bytes)}
            continue
        rtype = record_type_of(type(decoded.key))
        group = _group_of(decoded.key)
        if (wanted is not None and rtype.type_id not in wanted) or (
            options.groups and group not in options.groups
        ):
            report.filtered += 1
            continue
        yield {**head, **_record_document(rtype, decoded, options)}


def _decode(topic: str, record: Record) -> CoordinatorRecord:
    if record.key is None:
        raise CodecError("a coordinator record without a key")
    return record_codec.decode_record(topic, record.key, record.value)


def _record_document(rtype: RecordType, rec: CoordinatorRecord, options: LogReadOptions) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "type": rtype.name,
        "typeId": rtype.type_id,
        "key": to_json(rec.key),
        "valueVersion": rec.value_version,
        "value": None if rec.value is None else to_json(rec.value),
        "tombstone": rec.value is None,
    }
    if rtype.retired:
        doc["retiredIn"] = rtype.retired
    if options.consumer_protocol and rec.value is not None and rtype.name == "GroupMetadata":
        members = _consumer_members(rec.value)
        if members is not None:
            doc["consumerProtocol"] = members
    return doc


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
                entry[name] = {"version": version, **to_json(decoded)}
        out.append(entry)
    return out


def _control_document(record: Record, options: LogReadOptions) -> dict[str, Any]:
    try:
        marker = decode_control_marker(record)
    except CodecError as exc:
        return {"control": True, "quarantined": True, "reason": exc.reason,
                "key": _raw(record.key, options.raw_bytes), "value": _raw(record.value, options.raw_bytes)}
    return {"control": True, "marker": marker.kind, "coordinatorEpoch": marker.coordinator_epoch}

"""The records machine's ``decode_partition`` handler: a partition directory in, what the library's
reader (:func:`groupspec.impl.codec.log_reader.read_logs`) yields for it out.

``decode_log`` reads one nameless buffer with fixed options; the rules that only show across
files or under an option need more: segments read in base-offset order, offsets that must keep
growing from one segment into the next, the segments passed over when reading starts at an
offset, the offset range and the batch that straddles its ends, the line limit, the group and
type filters, control records, the consumer-protocol view, unknown record types (warned once per
type) and what is quarantined where. The input names each segment file; the output is every line
read_logs yields (the file by its name only, the topic and partition left out: the directory
says them), the warnings it gave, in a form that does not depend on their English, and the full
read report. Registered in :mod:`groupspec.machines` (``handler_modules``).
"""

from __future__ import annotations

import base64
import re
from typing import Any

from groupspec.conformance.records import hex_files
from groupspec.conformance.targets import Handler
from groupspec.conformance.vector_format import object_at, only_keys, string_at
from groupspec.types import InputError

#: Vector option (camelCase) -> LogReadOptions field, with the JSON type it must have.
OPTIONS: dict[str, tuple[str, type | tuple[type, ...]]] = {
    "topic": ("topic", str),
    "groups": ("groups", list),
    "types": ("types", list),
    "strict": ("strict", bool),
    "rawBytes": ("raw_bytes", str),
    "consumerProtocol": ("consumer_protocol", bool),
    "control": ("control", bool),
    "offsetStart": ("offset_start", int),
    "offsetEnd": ("offset_end", int),
    "limit": ("limit", int),
    "batches": ("batches", bool),
    "maxBatchBytes": ("max_batch_bytes", int),
}

_UNKNOWN_TYPE = re.compile(r"offset (?P<offset>-?\d+): skipping records of unknown type (?P<type>-?\d+)")


def check_input_decode_partition(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"topic", "files", "options"}, "input")
    string_at(body, "topic", "input")
    hex_files(body.get("files"), "input.files")
    options = body.get("options", {})
    object_at(options, "input.options")
    only_keys(options, set(OPTIONS), "input.options")
    for name, value in options.items():
        kind = OPTIONS[name][1]
        if value is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
            raise InputError(f"input.options.{name}", f"expected {getattr(kind, '__name__', kind)}")


def check_output_decode_partition(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"lines", "warnings", "report"}, "output")
    for name in ("lines", "warnings"):
        if not isinstance(body.get(name), list):
            raise InputError(f"output.{name}", "expected a list")
    object_at(body.get("report"), "output.report")


def _options(given: dict[str, Any]) -> Any:
    from groupspec.impl.codec.log_reader import LogReadOptions

    fields: dict[str, Any] = {}
    for name, value in given.items():
        field_name = OPTIONS[name][0]
        if name == "groups":
            value = frozenset(value)
        elif name == "types":
            value = tuple(str(t) for t in value)
        fields[field_name] = value
    return LogReadOptions(**fields)


def _bytes(text: str | None, how: str) -> bytes | None:
    if text is None:
        return None
    return bytes.fromhex(text) if how == "hex" else base64.b64decode(text)


def _warning(line: str, folder: str) -> dict[str, Any]:
    """A warning as what it says, not its words: the kind and the numbers it names."""
    m = _UNKNOWN_TYPE.search(line)
    if m is not None:
        return {"kind": "unknownType", "typeId": int(m.group("type")), "offset": int(m.group("offset"))}
    if "no segment files" in line:
        return {"kind": "noSegments"}
    if "overrides the topic" in line:
        return {"kind": "topicOverridden"}
    if line.startswith(folder + "/"):  # a segment's own warning: its torn tail
        return {"kind": "partialBatch", "file": line[len(folder) + 1:].partition(":")[0]}
    return {"kind": "other"}


def _error_kinds(folder: Any, max_batch_bytes: int) -> dict[tuple[str, int], str]:
    """Where the segment reader (:func:`groupspec.impl.codec.segment.read_log`, offsets carried
    from file to file) refuses a batch or stops framing a file: (file name, position) -> kind."""
    from groupspec.conformance.targets import error_kind
    from groupspec.impl.codec.batch import BadBatch
    from groupspec.impl.codec.segment import UnframedRest, read_log

    kinds: dict[tuple[str, int], str] = {}
    for item in read_log(folder, lenient=True, max_batch_bytes=max_batch_bytes):
        if isinstance(item.entry, (BadBatch, UnframedRest)):
            kinds[(item.file.name, item.position)] = error_kind(item.entry.error)
    return kinds


def decode_partition_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """The lines read_logs yields for the directory ``<topic>-0`` holding the given files (an
    option ``topic`` overrides the directory's), with
    each quarantined entry's English reason replaced by its error kind (as in ``decode_log``)."""
    import tempfile
    from pathlib import Path

    from groupspec.conformance.records import _protocol_kinds, _record_kind
    from groupspec.impl.codec.log_reader import read_logs

    options = _options(doc.get("options") or {})
    topic = options.topic or doc["topic"]
    lines: list[dict[str, Any]] = []
    warnings: list[str] = []
    with tempfile.TemporaryDirectory() as parent:
        folder = Path(parent) / f"{doc['topic']}-0"
        folder.mkdir()
        for name, data in doc["files"].items():
            (folder / name).write_bytes(bytes.fromhex(data))
        kinds = _error_kinds(folder, options.max_batch_bytes)
        report = read_logs([folder], options, lines.append, warnings.append)
        shown_warnings = [_warning(w, str(folder)) for w in warnings]
        tails = [t.replace(str(folder) + "/", "") for t in report.partial_tails]
    out = []
    for line in lines:
        if line.pop("topic") != topic or line.pop("partition") != 0:
            raise AssertionError(f"a line of another partition: {line}")
        name = Path(line["file"]).name
        line["file"] = name
        if line.get("quarantined"):
            del line["reason"]
            if "key" in line:
                raw = {k: _bytes(line[k], options.raw_bytes) for k in ("key", "value")}
                probe = {**line, **{k: None if v is None else v.hex() for k, v in raw.items()}}
                line["error"] = _record_kind(topic, probe)
            else:
                line["error"] = kinds.get((name, line["position"]), "unknown")
        for member in line.get("consumerProtocol", ()):
            _protocol_kinds(member)
        out.append(line)
    return {
        "lines": out,
        "warnings": shown_warnings,
        "report": {
            "files": report.files, "filesPassedOver": report.files_passed_over,
            "batches": report.batches, "records": report.records, "printed": report.printed,
            "filtered": report.filtered,
            "skipped": {str(t): n for t, n in sorted(report.unknown_types.items())},
            "quarantinedRecords": report.quarantined_records, "badBatches": report.bad_batches,
            "unreadable": report.unreadable, "quarantined": report.quarantined,
            "partialTails": [{"file": f, "position": int(p)} for f, _, p in
                             (t.rpartition("@") for t in tails)],
            "lines": report.lines, "stoppedAtLimit": report.stopped_at_limit,
            "bytesRead": report.bytes_read,
        },
    }


def handler_decode_partition(target: str) -> Handler:
    return decode_partition_answer

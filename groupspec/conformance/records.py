"""The records machine in conformance: one record's key and value bytes in, its decoded form
out (or the codec's error); compared field by field. Registered in :mod:`groupspec.machines`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from groupspec.conformance.judging import Judge
from groupspec.conformance.targets import Handler
from groupspec.conformance.vector_format import object_at, only_keys, string_at
from groupspec.types import InputError


def _compare_json(expected: Any, actual: Any) -> list[str]:
    if isinstance(expected, dict) and set(expected) == {"batch"}:  # encode_batch: records_batch.py
        from groupspec.conformance.records_batch import compare_batch

        return compare_batch(expected, actual)
    if not isinstance(actual, dict):
        return [f"expected an object, got {json.dumps(actual)[:200]}"]
    keys = list(expected) + [k for k in actual if k not in expected]
    return [f"{k}: expected {json.dumps(expected.get(k))[:200]}, got {json.dumps(actual.get(k))[:200]}"
            for k in keys if expected.get(k) != actual.get(k)]


def _no_properties(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    return {p: [f"{p}: this machine checks no properties"] for p in properties}


JUDGE = Judge(_compare_json, _no_properties, unit="field(s)")


PROPERTIES: tuple[str, ...] = ()


def hex_bytes(value: Any, where: str, *, nullable: bool = False) -> bytes | None:
    """Hex text as bytes (None for null where ``nullable``); an InputError naming ``where``."""
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise InputError(where, "expected hex bytes" + (" or null" if nullable else ""))
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise InputError(where, "not hex") from None


def hex_files(files: Any, where: str) -> dict[str, str]:
    """A directory spelled as {file name: hex}: names without a path, contents hex."""
    if not isinstance(files, dict):
        raise InputError(where, "expected {file name: hex}")
    for name, data in files.items():
        if "/" in name or name in ("", ".", ".."):
            raise InputError(f"{where}.{name}", "not a file name")
        hex_bytes(data, f"{where}.{name}")
    return files


def check_input(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"topic", "key", "value"}, "input")
    string_at(body, "topic", "input")
    hex_bytes(body.get("key"), "input.key")
    hex_bytes(body.get("value"), "input.value", nullable=True)


def check_output(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"type", "typeId", "key", "valueVersion", "value"}, "output")
    for name in ("type", "typeId", "key", "valueVersion", "value"):
        if name not in body:
            raise InputError(f"output.{name}", "missing")


def decode_answer(doc: Any, *, kafka: bool = False) -> dict[str, Any]:
    """The implementation's answer for one input: what every target is compared with.

    ``kafka`` reads as Kafka 4.2's ``CoordinatorRecordSerde`` does: bytes after a key or value
    struct are ignored (groupspec refuses them) and a type retired by 4.2 is unknown
    (groupspec decodes it).
    """
    from groupspec.impl.codec.json_form import to_json
    from groupspec.impl.codec.records import KEY_VERSION, decode_record, refuse_retired
    from groupspec.types.records import record_type_of

    key = bytes.fromhex(doc["key"])
    value = None if doc["value"] is None else bytes.fromhex(doc["value"])
    if kafka and len(key) >= 2:
        refuse_retired(doc["topic"], int.from_bytes(key[:2], "big", signed=True))
    rec = decode_record(doc["topic"], key, value, strict=not kafka)
    rtype = record_type_of(type(rec.key))
    # Kafka's JSON form: the fields of the version the bytes were written at (docs/machines/records.md).
    return {"type": rtype.name, "typeId": rtype.type_id, "key": to_json(rec.key, KEY_VERSION),
            "valueVersion": rec.value_version,
            "value": None if rec.value is None else to_json(rec.value, rec.value_version)}


def _decode_answer_kafka(doc: Any) -> dict[str, Any]:
    return decode_answer(doc, kafka=True)


def handler(target: str) -> Handler:
    return _decode_answer_kafka if target == "impl-kafka" else decode_answer


# --- decode_log: a whole log (record batches back to back) in, what the reader makes of it out ---

#: The keys every line of ``groupspec decode`` carries that say where the bytes came from; a
#: vector's log is one nameless buffer, so they are left out.
_WHERE = ("topic", "partition", "file")


def check_input_decode_log(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"topic", "log"}, "input")
    string_at(body, "topic", "input")
    hex_bytes(body.get("log"), "input.log")  # "" is a log too: an empty segment


def check_output_decode_log(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"batches", "records", "tornTail", "summary"}, "output")
    for name in ("batches", "records"):
        if not isinstance(body.get(name), list):
            raise InputError(f"output.{name}", "expected a list")
    if "tornTail" not in body:
        raise InputError("output.tornTail", "missing")
    object_at(body.get("summary"), "output.summary")


def _error_kinds(topic: str, data: bytes) -> dict[int, str]:
    """Where the batch reader refuses a batch or stops framing: byte position -> error kind."""
    from groupspec.conformance.targets import error_kind
    from groupspec.impl.codec.batch import BadBatch, BatchReader
    from groupspec.impl.codec.errors import FramingError

    kinds: dict[int, str] = {}
    reader = BatchReader(lenient=True)
    reader.max_tail_offset = (1 << 31) - 1
    try:
        for position, entry in reader.read(data):
            if isinstance(entry, BadBatch):
                kinds[position] = error_kind(entry.error)
    except FramingError as exc:
        kinds[exc.position] = error_kind(exc)
    return kinds


def _record_kind(topic: str, line: dict[str, Any]) -> str:
    """The error kind of a quarantined record: its key and value decoded again."""
    from groupspec.conformance.targets import error_kind
    from groupspec.impl.codec.batch import Record, decode_control_marker
    from groupspec.impl.codec.records import decode_record

    key = None if line["key"] is None else bytes.fromhex(line["key"])
    value = None if line["value"] is None else bytes.fromhex(line["value"])
    try:
        if line.get("control"):
            decode_control_marker(Record(line["offset"], line["timestamp"], key, value))
        elif key is None:
            return "Codec"
        else:
            decode_record(topic, key, value)
    except Exception as exc:
        return error_kind(exc)
    return "none"


def _protocol_kinds(member: dict[str, Any]) -> None:
    """A member's consumer-protocol bytes that do not decode: the reason as its error kind."""
    from groupspec.conformance.targets import error_kind
    from groupspec.impl.codec.consumer_protocol import decode_assignment, decode_subscription

    for name, decode in (("subscription", decode_subscription), ("assignment", decode_assignment)):
        entry = member.get(name)
        if isinstance(entry, dict) and "error" in entry:
            try:
                decode(bytes.fromhex(entry["hex"]))
            except Exception as exc:
                entry["error"] = error_kind(exc)


def decode_log_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """What ``groupspec decode`` prints for a log, read both ways (``--batches``, and the record
    view with ``--control``), the lines without where the bytes came from and each quarantined
    entry's reason as its error kind (the exception's name, as a refused vector's ``error``)."""
    import tempfile
    from pathlib import Path

    from groupspec.impl.codec.log_reader import LogReadOptions, read_logs

    data = bytes.fromhex(doc["log"])
    topic = doc["topic"]
    kinds = _error_kinds(topic, data)
    with tempfile.TemporaryDirectory() as folder:
        # A segment file of base offset 0: the shape the reader reads (and a fetch response's
        # records are the same bytes).
        path = Path(folder) / "00000000000000000000.log"
        path.write_bytes(data)
        views: dict[str, list[dict[str, Any]]] = {"batches": [], "records": []}
        reports = {}
        for view, batches in (("batches", True), ("records", False)):
            options = LogReadOptions(topic=topic, batches=batches, control=not batches)
            reports[view] = read_logs([path], options, views[view].append, lambda _: None)
    for lines in views.values():
        for i, line in enumerate(lines):
            line = {k: v for k, v in line.items() if k not in _WHERE}
            if line.get("quarantined"):
                del line["reason"]
                if "key" in line:  # a record (or a control record) the codec refused
                    line["error"] = _record_kind(topic, line)
                else:
                    line["error"] = kinds.get(line["position"], "unknown")
            for member in line.get("consumerProtocol", ()):
                _protocol_kinds(member)
            lines[i] = line
    records = reports["records"]
    tails = records.partial_tails
    summary = {"batches": records.batches, "records": records.records, "printed": records.printed,
               "filtered": records.filtered,
               "skipped": {str(t): n for t, n in sorted(records.unknown_types.items())},
               "quarantinedRecords": records.quarantined_records, "badBatches": records.bad_batches,
               "unreadable": records.unreadable}
    return {"batches": views["batches"], "records": views["records"],
            "tornTail": int(tails[0].rpartition("@")[2]) if tails else None, "summary": summary}


def handler_decode_log(target: str) -> Handler:
    return decode_log_answer


# --- encode_record: the typed record in Kafka's JSON form in, its key and value bytes out ---------


def check_input_encode_record(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"topic", "type", "typeId", "key", "valueVersion", "value"}, "input")
    string_at(body, "topic", "input")
    for name in ("type", "typeId", "key", "valueVersion", "value"):
        if name not in body:
            raise InputError(f"input.{name}", "missing")


def check_output_encode_record(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"key", "value"}, "output")
    for name in ("key", "value"):
        if name not in body:
            raise InputError(f"output.{name}", "missing")


def encode_answer(doc: dict[str, Any], *, kafka: bool = False) -> dict[str, Any]:
    """The key and value bytes (hex) a broker writes for a record given as decode_record prints it
    (``kafka``: as Kafka 4.2's serde writes it, which refuses a type retired by 4.2)."""
    from groupspec.impl.codec.json_form import from_json
    from groupspec.impl.codec.records import encode_key, encode_value, encode_value_as_kafka, refuse_retired
    from groupspec.types.records import record_types

    rtype = record_types(doc["topic"]).get(doc["typeId"])
    if rtype is None or rtype.name != doc["type"]:
        raise InputError("input.typeId", f"no record type {doc['typeId']} {doc['type']} in {doc['topic']}")
    if kafka:
        refuse_retired(doc["topic"], rtype.type_id)
    # Kafka's mode reads uuids as Kafka's JSON converters do (docs/divergences.md, records_uuid_stray_bits)
    key = encode_key(from_json(rtype.key, doc["key"], "input.key", canonical_uuids=not kafka))
    if doc["value"] is None:
        return {"key": key.hex(), "value": None}
    version = doc["valueVersion"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise InputError("input.valueVersion", "expected a version number")
    typed: Any = from_json(rtype.value, doc["value"], "input.value", canonical_uuids=not kafka)
    value = encode_value_as_kafka(typed, version) if kafka else encode_value(typed, version)
    return {"key": key.hex(), "value": value.hex()}


def _encode_answer_kafka(doc: dict[str, Any]) -> dict[str, Any]:
    return encode_answer(doc, kafka=True)


def handler_encode_record(target: str) -> Handler:
    return _encode_answer_kafka if target == "impl-kafka" else encode_answer

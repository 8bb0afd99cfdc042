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
    if not isinstance(actual, dict):
        return [f"expected an object, got {json.dumps(actual)[:200]}"]
    keys = list(expected) + [k for k in actual if k not in expected]
    return [f"{k}: expected {json.dumps(expected.get(k))[:200]}, got {json.dumps(actual.get(k))[:200]}"
            for k in keys if expected.get(k) != actual.get(k)]


def _no_properties(doc: Any, output: Any, properties: Sequence[str]) -> dict[str, list[str]]:
    return {p: [f"{p}: this machine checks no properties"] for p in properties}


JUDGE = Judge(_compare_json, _no_properties)


PROPERTIES: tuple[str, ...] = ()


def check_input(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"topic", "key", "value"}, "input")
    string_at(body, "topic", "input")
    for name in ("key", "value"):
        value = body.get(name)
        if name == "value" and value is None:
            continue
        if not isinstance(value, str):
            raise InputError(f"input.{name}", "expected hex bytes")
        try:
            bytes.fromhex(value)
        except ValueError:
            raise InputError(f"input.{name}", "not hex") from None


def check_output(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"type", "typeId", "key", "valueVersion", "value"}, "output")
    for name in ("type", "typeId", "key", "valueVersion", "value"):
        if name not in body:
            raise InputError(f"output.{name}", "missing")


def decode_answer(doc: Any) -> dict[str, Any]:
    """The implementation's answer for one input: what every target is compared with."""
    from groupspec.impl.codec.json_form import to_json
    from groupspec.impl.codec.records import KEY_VERSION, decode_record
    from groupspec.types.records import record_type_of

    key = bytes.fromhex(doc["key"])
    value = None if doc["value"] is None else bytes.fromhex(doc["value"])
    rec = decode_record(doc["topic"], key, value)
    rtype = record_type_of(type(rec.key))
    # Kafka's JSON form: the fields of the version the bytes were written at (docs/machines/records.md).
    return {"type": rtype.name, "typeId": rtype.type_id, "key": to_json(rec.key, KEY_VERSION),
            "valueVersion": rec.value_version,
            "value": None if rec.value is None else to_json(rec.value, rec.value_version)}


def handler(target: str) -> Handler:
    return decode_answer


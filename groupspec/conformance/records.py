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


def _decode_record(doc: Any) -> dict[str, Any]:
    from groupspec.conformance.cases.records import decode_answer

    return decode_answer(doc)


def handler(target: str) -> Handler:
    return _decode_record


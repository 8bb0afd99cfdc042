"""Records as JSON, the way Kafka's generated JSON converters print them.

Why this shape: ``groupspec decode`` output, conformance vectors and Kafka's own tools
(``kafka-dump-log --offsets-decoder``, the ``*JsonConverter`` classes) should be comparable by
eye and by script. So field names are Kafka's lower-camel JSON names (``leaderEpoch``), a uuid is
``Uuid.toString()`` (URL-safe base64 of the 16 bytes without padding, 22 characters), bytes are
standard base64 (what Jackson writes for a binary node), null stays null, and nested structs and
arrays nest. Every field is printed, whatever the version, since an object has no version.

:func:`from_json` is the strict inverse: unknown names, wrong types, ints out of range, nulls
where no version allows them and bad base64 raise :class:`InputError` naming the JSON path
(``members[0].memberId``). A missing field takes its default. A uuid may also be given in the
usual 36-character hex form.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from typing import Any, TypeVar

from groupspec.impl.codec.messages import INT_RANGES, field_default
from groupspec.types.errors import InputError
from groupspec.types.records.schema import FieldSpec, field_specs, json_name

T = TypeVar("T")

_KAFKA_UUID = re.compile(r"^[A-Za-z0-9_-]{22}$")


def uuid_to_kafka(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(value.bytes).decode("ascii").rstrip("=")


def uuid_from_kafka(text: str, path: str = "uuid") -> uuid.UUID:
    """The inverse of :func:`uuid_to_kafka`; also accepts ``xxxxxxxx-xxxx-...`` hex."""
    if _KAFKA_UUID.match(text):
        raw = base64.urlsafe_b64decode(text + "==")
        value = uuid.UUID(bytes=raw)
        if uuid_to_kafka(value) != text:
            raise InputError(path, f"{text!r} is not a canonical Kafka uuid (stray bits at its end)")
        return value
    try:
        return uuid.UUID(text)
    except ValueError:
        raise InputError(path, f"{text!r} is not a uuid (22 characters of URL-safe base64, or hex)") from None


# --- to JSON --------------------------------------------------------------------------------------


def to_json(obj: Any) -> dict[str, Any]:
    """A record, struct or consumer-protocol object as a JSON-ready dict with Kafka's names."""
    out: dict[str, Any] = {}
    for name, spec in field_specs(type(obj)):
        out[json_name(name, spec)] = _value_to_json(spec.wire, getattr(obj, name), spec)
    return out


def _value_to_json(wire: str, value: Any, spec: FieldSpec) -> Any:
    if value is None:
        return None
    if wire == "uuid":
        return uuid_to_kafka(value)
    if wire == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    if wire == "struct":
        return to_json(value)
    if wire.startswith("[]"):
        element = wire[2:]
        return [_value_to_json(element, item, spec) for item in value]
    return value


# --- from JSON ------------------------------------------------------------------------------------


def from_json(cls: type[T], data: Any, path: str = "") -> T:
    """A ``cls`` object from its JSON form; bad input raises InputError naming the path."""
    if not isinstance(data, dict):
        raise InputError(path or "(root)", f"expected an object, got {_kind(data)}")
    specs = field_specs(cls)
    by_json = {json_name(name, spec): (name, spec) for name, spec in specs}
    unknown = [key for key in data if key not in by_json]
    if unknown:
        where = _join(path, str(unknown[0]))
        raise InputError(where, f"not a field of {cls.__qualname__} (fields: {', '.join(by_json)})")
    kwargs: dict[str, Any] = {}
    for key, (name, spec) in by_json.items():
        if key in data:
            kwargs[name] = _value_from_json(spec.wire, data[key], spec, _join(path, key), nullable=True)
        else:
            kwargs[name] = field_default(cls, name)
    return cls(**kwargs)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _value_from_json(wire: str, value: Any, spec: FieldSpec, path: str, nullable: bool) -> Any:
    if value is None:
        # An element of an array is never null; a field may be where some version allows it.
        if nullable and spec.nullable.lo <= spec.nullable.hi:
            return None
        raise InputError(path, "is null, but no version of this field is nullable")
    if wire in INT_RANGES:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(path, f"expected an integer, got {_kind(value)}")
        lo, hi = INT_RANGES[wire]
        if not lo <= value <= hi:
            raise InputError(path, f"{value} is out of the {wire} range [{lo}, {hi}]")
        return value
    if wire == "bool":
        if not isinstance(value, bool):
            raise InputError(path, f"expected a boolean, got {_kind(value)}")
        return value
    if wire == "float64":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise InputError(path, f"expected a number, got {_kind(value)}")
        return float(value)
    if wire in ("string", "uuid", "bytes") and not isinstance(value, str):
        raise InputError(path, f"expected a string, got {_kind(value)}")
    if wire == "string":
        return value
    if wire == "uuid":
        return uuid_from_kafka(value, path)
    if wire == "bytes":
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise InputError(path, "is not valid base64") from None
    if wire == "struct":
        if spec.struct is None:
            raise TypeError(f"{path}: struct field without struct=")
        return from_json(spec.struct, value, path)
    if wire.startswith("[]"):
        if not isinstance(value, list):
            raise InputError(path, f"expected an array, got {_kind(value)}")
        element = wire[2:]
        if element == "struct":
            if spec.struct is None:
                raise TypeError(f"{path}: struct array without struct=")
            return tuple(from_json(spec.struct, item, f"{path}[{i}]") for i, item in enumerate(value))
        return tuple(
            _value_from_json(element, item, spec, f"{path}[{i}]", nullable=False)
            for i, item in enumerate(value)
        )
    raise TypeError(f"{path}: unknown wire type {wire!r}")

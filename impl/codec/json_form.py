"""Records as JSON, the way Kafka's generated JSON converters print them.

Why this shape: ``groupspec decode`` output, conformance vectors and Kafka's own tools
(``kafka-dump-log --offsets-decoder``, the ``*JsonConverter`` classes) should be comparable by
eye and by script. So field names are Kafka's lower-camel JSON names (``leaderEpoch``), a uuid is
``Uuid.toString()`` (URL-safe base64 of the 16 bytes without padding, 22 characters), bytes are
standard base64 (what Jackson writes for a binary node), null stays null, and nested structs and
arrays nest.

Which fields: with a version (the version the bytes were written at), a field is printed only
in the versions that define it, and a tagged field only when it holds something other than its
default, which is what Kafka's generated converters do (``write(object, version)``: a field
outside its versions is left out, a tagged one is guarded by a non-default check). So an
OffsetCommit value at v3 has no ``expireTimestamp`` (v1 only) and no ``topicId`` (tagged, v4+),
and at v4 a ``topicId`` appears only when it is not the zero uuid. Nested structs take the
version of the message around them. Without a version (an object built in memory has none)
every field is printed.

:func:`to_json_text` is the same form as compact JSON text, from an encoder generated per
(class, version) that writes the text directly instead of building dicts, and
:func:`text_decoder` goes from bytes to that text in one generated function (the reading code of
:mod:`~groupspec.impl.codec.messages`, ending in the text instead of an object): ``groupspec
decode`` prints hundreds of thousands of records a second through them. Their output equals
``json.dumps(to_json(obj, version), ensure_ascii=False, separators=(",", ":"))`` character for
character (tests/cover/test_codec_messages.py checks both on every record type and version).

:func:`from_json` is the strict inverse: unknown names, wrong types, ints out of range, nulls
where no version allows them and bad base64 raise :class:`InputError` naming the JSON path
(``members[0].memberId``). A missing field takes its default, so both forms read back. A uuid
may also be given in the usual 36-character hex form.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any, TypeVar

from groupspec.impl.codec.messages import (
    INT_RANGES,
    Decoder,
    DecoderWriter,
    Slot,
    check_version,
    decoder,
    field_default,
    is_flexible,
)
from groupspec.types.errors import InputError
from groupspec.types.records.schema import FieldSpec, field_specs, json_name

T = TypeVar("T")

_KAFKA_UUID = re.compile(r"^[A-Za-z0-9_-]{22}$")


def uuid_to_kafka(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(value.bytes).decode("ascii").rstrip("=")


def uuid_from_kafka(text: str, path: str = "uuid", *, canonical: bool = True) -> uuid.UUID:
    """The inverse of :func:`uuid_to_kafka`; also accepts ``xxxxxxxx-xxxx-...`` hex.

    22 characters hold 132 bits, 4 more than a uuid: ``canonical`` refuses a text with any of
    them set (two texts would name one uuid); Kafka's ``Uuid.fromString`` drops them.
    """
    if _KAFKA_UUID.match(text):
        raw = base64.urlsafe_b64decode(text + "==")
        value = uuid.UUID(bytes=raw)
        if canonical and uuid_to_kafka(value) != text:
            raise InputError(path, f"{text!r} is not a canonical Kafka uuid (stray bits at its end)")
        return value
    try:
        return uuid.UUID(text)
    except ValueError:
        raise InputError(path, f"{text!r} is not a uuid (22 characters of URL-safe base64, or hex)") from None


# --- to JSON --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _JsonField:
    """One field as the JSON form prints it at one version."""

    attr: str
    name: str
    spec: FieldSpec
    tagged: bool  # printed only when not its default
    default: Any


_JSON_FIELDS: dict[tuple[type, int | None], tuple[_JsonField, ...]] = {}


def json_fields(cls: type, version: int | None) -> tuple[_JsonField, ...]:
    """The fields of ``cls`` printed at ``version`` (None: every field), in schema order."""
    key = (cls, version)
    found = _JSON_FIELDS.get(key)
    if found is not None:
        return found
    if version is not None and getattr(cls, "__kafka_message__", None) is not None:
        check_version(cls, version)
    out = []
    for name, spec in field_specs(cls):
        if version is None:
            tagged = False
        elif spec.tag is not None and version in spec.tagged:
            tagged = True
        elif version in spec.versions:
            tagged = False
        else:
            continue
        out.append(_JsonField(name, json_name(name, spec), spec, tagged, field_default(cls, name)))
    found = tuple(out)
    _JSON_FIELDS[key] = found
    return found


def _is_default(value: Any, default: Any) -> bool:
    return value is None if default is None else bool(value == default)


def to_json(obj: Any, version: int | None = None) -> dict[str, Any]:
    """A record, struct or consumer-protocol object as a JSON-ready dict with Kafka's names.

    ``version`` is the version the object was (or would be) written at; see the module doc for
    which fields that leaves out.
    """
    out: dict[str, Any] = {}
    for f in json_fields(type(obj), version):
        value = getattr(obj, f.attr)
        if f.tagged and _is_default(value, f.default):
            continue
        out[f.name] = _value_to_json(f.spec.wire, value, f.spec, version)
    return out


def _value_to_json(wire: str, value: Any, spec: FieldSpec, version: int | None) -> Any:
    if value is None:
        return None
    if wire == "uuid":
        return uuid_to_kafka(value)
    if wire == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    if wire == "struct":
        return to_json(value, version)
    if wire.startswith("[]"):
        element = wire[2:]
        return [_value_to_json(element, item, spec, version) for item in value]
    return value


# --- to JSON text, compiled -----------------------------------------------------------------------

#: Kafka uuids already rendered: topic ids repeat on every record of a topic.
_UUID_TEXT: dict[uuid.UUID, str] = {}
_UUID_CACHE_SIZE = 4096


def _uuid_text(value: uuid.UUID) -> str:
    text = _UUID_TEXT.get(value)
    if text is None:
        text = '"' + uuid_to_kafka(value) + '"'
        if len(_UUID_TEXT) >= _UUID_CACHE_SIZE:
            _UUID_TEXT.clear()
        _UUID_TEXT[value] = text
    return text


def _bytes_text(value: Any) -> str:
    return '"' + binascii.b2a_base64(value, newline=False).decode("ascii") + '"'


def _float_text(value: float) -> str:
    return json.dumps(value)


def _array(fn: Callable[[Any], str]) -> Callable[[Any], str]:
    def text(value: Any) -> str:
        return "[" + ",".join(map(fn, value)) + "]"

    return text


_BOOL_TEXT = {True: "true", False: "false"}
_SCALAR_TEXT: dict[str, Callable[[Any], str]] = {
    "string": encode_basestring,
    "bytes": _bytes_text,
    "uuid": _uuid_text,
    "bool": _BOOL_TEXT.__getitem__,
    "float64": _float_text,
}
_INT_WIRES = frozenset(INT_RANGES)
_TEXT_ENCODERS: dict[tuple[type, int | None], Callable[[Any], str]] = {}


def _element_text(wire: str, spec: FieldSpec, version: int | None) -> Callable[[Any], str]:
    if wire in _INT_WIRES:
        return str
    if wire == "struct":
        if spec.struct is None:
            raise TypeError("a struct field without struct=")
        return text_encoder(spec.struct, version)
    if wire.startswith("[]"):
        return _array(_element_text(wire[2:], spec, version))
    return _SCALAR_TEXT[wire]


def _text_body(cls: type, version: int | None, ref: Callable[[str], str], ns: dict[str, Any],
               tag: str) -> tuple[list[str], str]:
    """Statements and the final expression that build the JSON text of one ``cls`` at ``version``.

    ``ref(attr)`` is the source text of a field's value (``o.offset``, or a decoder's local);
    helper objects go into ``ns`` under names starting with ``tag``.
    """
    fields = json_fields(cls, version)
    # Literal runs of an f-string; a tagged field breaks the run with a guarded append.
    run: list[str] = []
    body: list[str] = []
    for i, f in enumerate(fields):
        wire = f.spec.wire
        nullable = f.spec.nullable.lo <= f.spec.nullable.hi
        value = ref(f.attr)
        if wire in _INT_WIRES and not nullable:
            expr = value
        else:
            ns[f"{tag}f{i}"] = _element_text(wire, f.spec, version)
            expr = f"{tag}f{i}({value})"
            if nullable:  # inline (double quotes inside the single-quoted f-string): no wrapper call
                expr = f'"null" if {value} is None else {expr}'
        piece = f',"{f.name}":{{{expr}}}'
        if not f.tagged:
            run.append(piece)
            continue
        if run:
            body.append(f"s += f'{''.join(run)}'")
            run = []
        ns[f"{tag}d{i}"] = f.default
        # Identity first: decoders hand out the shared default objects and small ints.
        test = (f"{value} is not None" if f.default is None
                else f"{value} is not {tag}d{i} and {value} != {tag}d{i}")
        body.append(f"if {test}:")
        body.append(f"    s += f'{piece}'")
    if not body:
        text = "".join(run)
        return [], (f"f'{{{{{text[1:]}}}}}'" if text else "'{}'")
    tail = [f"s += f'{''.join(run)}'"] if run else []
    if not fields[0].tagged:
        # The leading run opens the object itself: no empty start, no comma to cut at the end.
        opening = "s += f',"
        assert body[0].startswith(opening)
        return ["s = f'{{" + body[0][len(opening):], *body[1:], *tail], "s + '}'"
    return ["s = ''", *body, *tail], "'{' + s[1:] + '}'"


def text_encoder(cls: type, version: int | None) -> Callable[[Any], str]:
    """The compiled ``obj -> str`` of :func:`to_json_text` for one class at one version."""
    key = (cls, version)
    found = _TEXT_ENCODERS.get(key)
    if found is not None:
        return found
    ns: dict[str, Any] = {}
    setup, result = _text_body(cls, version, lambda attr: f"o.{attr}", ns, "_j")
    source = "\n".join(["def _text(o):", *(f"    {line}" for line in setup), f"    return {result}"]) + "\n"
    exec(compile(source, f"<json text {cls.__qualname__} v{version}>", "exec"), ns)
    found = ns["_text"]
    _TEXT_ENCODERS[key] = found
    return found  # type: ignore[no-any-return]


class _TextDecoderWriter(DecoderWriter):
    """The struct decoder of :mod:`messages`, ending in JSON text instead of an object."""

    def construct(self, slots: tuple[Slot, ...], values: dict[str, str]) -> None:
        setup, result = _text_body(self.cls, self.version, values.__getitem__, self.src.ns, "_j")
        for line in setup:
            self.src.emit(1, line)
        self.src.emit(1, f"return {result}, pos")


_TEXT_DECODERS: dict[tuple[type, int], Decoder] = {}


def text_decoder(cls: type, version: int) -> Decoder:
    """``(buf, pos) -> (JSON text, end)``: :func:`messages.decoder` and :func:`to_json_text` in one.

    The same generated reading code as the object decoder (same checks, same errors), but the
    fields' locals go straight into the text: no object is built for the top-level struct
    (nested ones still are). ``groupspec decode`` prints keys and values through it.
    """
    found = _TEXT_DECODERS.get((cls, version))
    if found is None:
        check_version(cls, version)
        if "__post_init__" in vars(cls):
            found = _through_object(decoder(cls, version), text_encoder(cls, version))
        else:
            found = _TextDecoderWriter(cls, version, is_flexible(cls, version)).write()
        _TEXT_DECODERS[(cls, version)] = found
    return found


def _through_object(dec: Decoder, enc: Callable[[Any], str]) -> Decoder:
    """For a class whose ``__post_init__`` checks its fields: build the object, then its text."""

    def text(buf: bytes, pos: int) -> tuple[Any, int]:
        obj, end = dec(buf, pos)
        return enc(obj), end

    return text


def to_json_text(obj: Any, version: int | None = None) -> str:
    """:func:`to_json` as compact JSON text (no spaces, UTF-8 characters left as they are)."""
    return text_encoder(type(obj), version)(obj)


# --- from JSON ------------------------------------------------------------------------------------


def from_json(cls: type[T], data: Any, path: str = "", *, canonical_uuids: bool = True) -> T:
    """A ``cls`` object from its JSON form; bad input raises InputError naming the path.

    ``canonical_uuids`` False reads a uuid as Kafka's JSON converters do (:func:`uuid_from_kafka`).
    """
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
            kwargs[name] = _value_from_json(spec.wire, data[key], spec, _join(path, key), True,
                                            canonical_uuids)
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


def _value_from_json(wire: str, value: Any, spec: FieldSpec, path: str, nullable: bool,
                     canonical: bool) -> Any:
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
        return uuid_from_kafka(value, path, canonical=canonical)
    if wire == "bytes":
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise InputError(path, "is not valid base64") from None
    if wire == "struct":
        if spec.struct is None:
            raise TypeError(f"{path}: struct field without struct=")
        return from_json(spec.struct, value, path, canonical_uuids=canonical)
    if wire.startswith("[]"):
        if not isinstance(value, list):
            raise InputError(path, f"expected an array, got {_kind(value)}")
        element = wire[2:]
        if element == "struct":
            if spec.struct is None:
                raise TypeError(f"{path}: struct array without struct=")
            return tuple(from_json(spec.struct, item, f"{path}[{i}]", canonical_uuids=canonical)
                         for i, item in enumerate(value))
        return tuple(
            _value_from_json(element, item, spec, f"{path}[{i}]", False, canonical)
            for i, item in enumerate(value)
        )
    raise TypeError(f"{path}: unknown wire type {wire!r}")

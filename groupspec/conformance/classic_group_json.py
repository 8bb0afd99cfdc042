"""A lossless JSON form of the classic group vocabulary, for vectors and outside adapters.

Why a form of its own: a conformance vector of the ``classic_group`` machine carries events,
answers, log entries and the final view, and an outside program (any language) must read and
write them. Both the spec and the implementation must be checkable through it, and the spec has
no binary codec, so the form is derived from the type declarations alone: the annotations of
:mod:`groupspec.types.classic_group` and the field schemas of the record classes
(:mod:`groupspec.types.records.schema`). No byte encoder is involved.

The rules (docs/conformance.md, "Machine classic_group", states them for adapter writers):

- a dataclass is a JSON object with its attribute names as keys (snake_case, record classes
  included: their attributes are Kafka's field names in snake_case);
- where the position does not fix the class (the top level, ``Answer.response``, an entry of
  ``Output.records``, an event, a record's key and value) the object carries ``"type"``: the
  class name (``"JoinGroup"``, ``"OffsetCommitValue"``); elsewhere ``"type"`` may be given and
  must then name the expected class;
- bytes are lowercase hex, an :class:`~groupspec.types.errors.Errors` is its name (``"NONE"``),
  a uuid is the 36-character hex form, a tuple is an array, None is null;
- :func:`to_json` writes every field; :func:`from_json` takes a missing field's default (a field
  without one is required) and refuses unknown fields, wrong types, unknown names and record
  integers outside their wire range with an :class:`InputError` naming the JSON path
  (``events[3].protocols[0].metadata``).
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from groupspec.conformance.dataclass_json import body
from groupspec.conformance.dataclass_json import join as _join
from groupspec.conformance.dataclass_json import kind as _kind
from groupspec.types import classic_group
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC, CoordinatorRecord, record_types
from groupspec.types.records.schema import FieldSpec, field_specs

TYPE_TAG = "type"

_HEX = re.compile(r"^(?:[0-9a-fA-F]{2})*$")
_INT_RANGES: Mapping[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def _classic_classes() -> dict[str, type]:
    return {
        name: obj for name, obj in vars(classic_group).items()
        if isinstance(obj, type) and dataclasses.is_dataclass(obj)
        and obj.__module__ == classic_group.__name__
    }


def _record_classes() -> tuple[dict[str, type], frozenset[type], frozenset[type]]:
    by_name: dict[str, type] = {}
    keys: set[type] = set()
    values: set[type] = set()
    for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
        for rtype in record_types(topic).values():
            by_name[rtype.key.__name__] = rtype.key
            by_name[rtype.value.__name__] = rtype.value
            keys.add(rtype.key)
            values.add(rtype.value)
    return by_name, frozenset(keys), frozenset(values)


_CLASSIC = _classic_classes()
_RECORDS, _KEY_CLASSES, _VALUE_CLASSES = _record_classes()
if set(_CLASSIC) & set(_RECORDS) or "CoordinatorRecord" in _CLASSIC:
    raise TypeError("a classic class and a record class share a name; the type tag would be ambiguous")
#: Every class a ``"type"`` tag may name.
CLASSES: Mapping[str, type] = types.MappingProxyType(
    {**_CLASSIC, "CoordinatorRecord": CoordinatorRecord, **_RECORDS}
)
_ANY_TAGGED: tuple[type, ...] = tuple(CLASSES.values())


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _where(path: str) -> str:
    return path or "(root)"


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a classic dataclass (cached: resolution is not cheap)."""
    found = _HINTS.get(cls)
    if found is None:
        found = typing.get_type_hints(cls, vars(classic_group))
        _HINTS[cls] = found
    return found


def _union_args(hint: Any) -> tuple[Any, ...] | None:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return typing.get_args(hint)
    return None


def _is_record_message(cls: type) -> bool:
    return cls in _KEY_CLASSES or cls in _VALUE_CLASSES


# ---------------------------------------------------------------------------------------------
# To JSON
# ---------------------------------------------------------------------------------------------


def to_json(obj: object, *, tag: bool = True) -> dict[str, Any]:
    """``obj`` (any class of :data:`CLASSES`) as a JSON-ready dict carrying its ``"type"``
    (``tag=False`` leaves the tag out, for a position whose class the reader knows)."""
    if type(obj) not in _ANY_TAGGED:
        raise InputError(TYPE_TAG, f"{type(obj).__qualname__} has no classic JSON form")
    return _tagged_to_json(obj) if tag else _object_to_json(obj)


def _tagged_to_json(obj: object) -> dict[str, Any]:
    return {TYPE_TAG: type(obj).__name__, **_object_to_json(obj)}


def _object_to_json(obj: object) -> dict[str, Any]:
    cls = type(obj)
    if cls is CoordinatorRecord:
        assert isinstance(obj, CoordinatorRecord)
        return {"key": _tagged_to_json(obj.key),
                "value": None if obj.value is None else _tagged_to_json(obj.value),
                "value_version": obj.value_version}
    if _is_record_message(cls) or _is_struct(cls):
        return {name: _wire_to_json(spec.wire, getattr(obj, name), spec) for name, spec in field_specs(cls)}
    hints = _hints(cls)
    return {f.name: _hinted_to_json(hints[f.name], getattr(obj, f.name))
            for f in dataclasses.fields(cls)}  # type: ignore[arg-type]


def _is_struct(cls: type) -> bool:
    """A record's nested struct class (its fields carry wire specs, the class no message spec)."""
    if not dataclasses.is_dataclass(cls) or cls.__module__ == classic_group.__name__:
        return False
    return all(isinstance(f.metadata.get("kafka"), FieldSpec) for f in dataclasses.fields(cls))


def _hinted_to_json(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    args = _union_args(hint)
    if args is not None:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return _hinted_to_json(rest[0], value)
        return _tagged_to_json(value)
    if hint is object:
        return _tagged_to_json(value)
    if hint is bytes:
        return bytes(value).hex()
    if hint is Errors:
        return Errors(value).name
    if hint in (str, int, bool):
        return value
    origin = typing.get_origin(hint)
    if origin is tuple:
        items = typing.get_args(hint)
        if len(items) == 2 and items[1] is Ellipsis:
            return [_hinted_to_json(items[0], v) for v in value]
        return [_hinted_to_json(h, v) for h, v in zip(items, value, strict=True)]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _object_to_json(value)
    raise TypeError(f"no JSON form for the annotation {hint!r}")


def _wire_to_json(wire: str, value: Any, spec: FieldSpec) -> Any:
    if value is None:
        return None
    if wire == "bytes":
        return bytes(value).hex()
    if wire == "uuid":
        return str(value)
    if wire == "struct":
        return _object_to_json(value)
    if wire.startswith("[]"):
        return [_wire_to_json(wire[2:], item, spec) for item in value]
    return value


# ---------------------------------------------------------------------------------------------
# From JSON
# ---------------------------------------------------------------------------------------------


def from_json(doc: Any, path: str = "") -> Any:
    """The object a tagged JSON document describes; InputError names the bad field's path."""
    return _tagged_from_json(doc, _ANY_TAGGED, path)


def from_json_as(cls: type, doc: Any, path: str = "") -> Any:
    """A ``cls`` object from its JSON form; the ``"type"`` tag is optional but must match."""
    return _object_from_json(cls, doc, path, tag_required=False)


def _tagged_from_json(doc: Any, allowed: tuple[type, ...], path: str) -> Any:
    if not isinstance(doc, dict):
        raise InputError(_where(path), f"expected an object, got {_kind(doc)}")
    tag = doc.get(TYPE_TAG)
    if not isinstance(tag, str):
        raise InputError(_join(path, TYPE_TAG), "missing: this object must name its class")
    cls = CLASSES.get(tag)
    if cls is None or cls not in allowed:
        names = sorted(c.__name__ for c in allowed)
        shown = ", ".join(names) if len(names) <= 12 else ", ".join(names[:12]) + ", ..."
        raise InputError(_join(path, TYPE_TAG), f"{tag!r} is not allowed here (expected one of {shown})")
    return _object_from_json(cls, doc, path, tag_required=True)


def _object_from_json(cls: type, doc: Any, path: str, *, tag_required: bool) -> Any:
    if not isinstance(doc, dict):
        raise InputError(_where(path), f"expected an object, got {_kind(doc)}")
    tag = doc.get(TYPE_TAG)
    if tag is not None and tag != cls.__name__:
        raise InputError(_join(path, TYPE_TAG), f"expected {cls.__name__!r}, got {tag!r}")
    if tag_required and tag is None:
        raise InputError(_join(path, TYPE_TAG), "missing: this object must name its class")
    body = {k: v for k, v in doc.items() if k != TYPE_TAG}
    if cls is CoordinatorRecord:
        return _record_from_json(body, path)
    decoders = _field_decoders(cls)
    unknown = [k for k in body if k not in decoders]
    if unknown:
        raise InputError(_join(path, str(unknown[0])),
                         f"not a field of {cls.__qualname__} (fields: {', '.join(decoders)})")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        where = _join(path, f.name)
        if f.name in body:
            kwargs[f.name] = decoders[f.name](body[f.name], where)
        elif f.default is not dataclasses.MISSING:
            kwargs[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            kwargs[f.name] = f.default_factory()
        else:
            raise InputError(where, "missing")
    try:
        return cls(**kwargs)
    except InputError as exc:  # a class that checks its own fields
        raise InputError(_join(path, exc.field), exc.problem) from None


Decoder = Callable[[Any, str], Any]


def _field_decoders(cls: type) -> dict[str, Decoder]:
    if _is_record_message(cls) or _is_struct(cls):
        return {name: _wire_decoder(spec.wire, spec) for name, spec in field_specs(cls)}
    hints = _hints(cls)
    return {f.name: _hinted_decoder(hints[f.name]) for f in dataclasses.fields(cls)}


def _record_from_json(body: dict[str, Any], path: str) -> CoordinatorRecord:
    allowed = {"key", "value", "value_version"}
    unknown = [k for k in body if k not in allowed]
    if unknown:
        raise InputError(_join(path, str(unknown[0])),
                         "not a field of CoordinatorRecord (fields: key, value, value_version)")
    if "key" not in body:
        raise InputError(_join(path, "key"), "missing")
    key = _tagged_from_json(body["key"], tuple(_KEY_CLASSES), _join(path, "key"))
    raw_value = body.get("value")
    value = None
    if raw_value is not None:
        value = _tagged_from_json(raw_value, tuple(_VALUE_CLASSES), _join(path, "value"))
    version = body.get("value_version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise InputError(_join(path, "value_version"), f"expected an integer or null, got {_kind(version)}")
    try:
        return CoordinatorRecord(key, value, version)
    except InputError as exc:
        raise InputError(_join(path, exc.field), exc.problem) from None


def _hinted_decoder(hint: Any) -> Decoder:
    args = _union_args(hint)
    if args is not None:
        nullable = type(None) in args
        rest = [a for a in args if a is not type(None)]
        inner = _hinted_decoder(rest[0]) if len(rest) == 1 else _tagged_decoder(tuple(rest))

        def union(value: Any, path: str) -> Any:
            if value is None:
                if nullable:
                    return None
                raise InputError(_where(path), "must not be null")
            return inner(value, path)

        return union
    if hint is object:
        return _tagged_decoder(_ANY_TAGGED)
    if hint is bytes:
        return _hex
    if hint is Errors:
        return _error
    if hint is str:
        return _string
    if hint is bool:
        return _boolean
    if hint is int:
        return _integer
    origin = typing.get_origin(hint)
    if origin is tuple:
        items = typing.get_args(hint)
        if len(items) == 2 and items[1] is Ellipsis:
            return _array_decoder(_hinted_decoder(items[0]))
        return _fixed_decoder(tuple(_hinted_decoder(h) for h in items))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        cls = hint
        return lambda value, path: _object_from_json(cls, value, path, tag_required=False)
    raise TypeError(f"no JSON form for the annotation {hint!r}")


def _tagged_decoder(allowed: tuple[type, ...]) -> Decoder:
    return lambda value, path: _tagged_from_json(value, allowed, path)


def _array_decoder(element: Decoder) -> Decoder:
    def array(value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise InputError(_where(path), f"expected an array, got {_kind(value)}")
        return tuple(element(item, _join(path, i)) for i, item in enumerate(value))

    return array


def _fixed_decoder(elements: tuple[Decoder, ...]) -> Decoder:
    def fixed(value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(elements):
            raise InputError(_where(path), f"expected an array of {len(elements)} items, got {_kind(value)}"
                             + (f" of {len(value)}" if isinstance(value, list) else ""))
        pairs = enumerate(zip(elements, value, strict=True))
        return tuple(decode(item, _join(path, i)) for i, (decode, item) in pairs)

    return fixed


def _wire_decoder(wire: str, spec: FieldSpec, element: bool = False) -> Decoder:
    nullable = not element and spec.nullable.lo <= spec.nullable.hi
    inner = _wire_value_decoder(wire, spec)

    def wire_value(value: Any, path: str) -> Any:
        if value is None:
            if nullable:
                return None
            raise InputError(_where(path), "is null, but no version of this field is nullable")
        return inner(value, path)

    return wire_value


def _wire_value_decoder(wire: str, spec: FieldSpec) -> Decoder:
    if wire in _INT_RANGES:
        lo, hi = _INT_RANGES[wire]

        def ranged(value: Any, path: str) -> int:
            number = _integer(value, path)
            if not lo <= number <= hi:
                raise InputError(path, f"{number} is out of the {wire} range [{lo}, {hi}]")
            return number

        return ranged
    if wire == "bool":
        return _boolean
    if wire == "float64":
        return _number
    if wire == "string":
        return _string
    if wire == "bytes":
        return _hex
    if wire == "uuid":
        return _uuid
    if wire == "struct":
        struct = spec.struct
        assert struct is not None
        return lambda value, path: _object_from_json(struct, value, path, tag_required=False)
    if wire.startswith("[]"):
        return _array_decoder(_wire_decoder(wire[2:], spec, element=True))
    raise TypeError(f"unknown wire type {wire!r}")


def _string(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(_where(path), f"expected a string, got {_kind(value)}")
    return value


def _boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(_where(path), f"expected a boolean, got {_kind(value)}")
    return value


def _integer(value: Any, path: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(_where(path), f"expected an integer, got {_kind(value)}")
    return value


def _number(value: Any, path: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise InputError(_where(path), f"expected a number, got {_kind(value)}")
    return float(value)


def _hex(value: Any, path: str) -> bytes:
    if not isinstance(value, str) or not _HEX.match(value):
        raise InputError(_where(path), f"expected bytes as hex digits (an even count), got {_kind(value)}"
                         + (f" {value[:20]!r}" if isinstance(value, str) else ""))
    return bytes.fromhex(value)


def _error(value: Any, path: str) -> Errors:
    if not isinstance(value, str) or value not in Errors.__members__:
        shown = repr(value) if isinstance(value, str) else _kind(value)
        raise InputError(_where(path), f"expected the name of a Kafka error code (e.g. 'NONE'), got {shown}")
    return Errors[value]


def _uuid(value: Any, path: str) -> uuid.UUID:
    if not isinstance(value, str):
        raise InputError(_where(path), f"expected a uuid string, got {_kind(value)}")
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        raise InputError(_where(path), f"{value!r} is not a uuid (8-4-4-4-12 hex digits)") from None
    if str(parsed) != value.lower():
        raise InputError(_where(path), f"{value!r} is not in the 8-4-4-4-12 hex form")
    return parsed


# ---------------------------------------------------------------------------------------------
# The documents of machine classic_group, handler run
# ---------------------------------------------------------------------------------------------

#: The classes an event of a run may be (requests, clock advances, restarts).
EVENT_CLASSES: tuple[type, ...] = typing.get_args(classic_group.ClassicEvent)


@dataclasses.dataclass(frozen=True)
class RunInput:
    """A vector's input: the coordinator's config, its clock at start, and the events in order."""

    config: classic_group.ClassicConfig
    start_ms: int
    events: tuple[classic_group.ClassicEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    """What a run produced: one Output per event (in event order) and the view after the last."""

    outputs: tuple[classic_group.Output, ...]
    view: classic_group.CoordinatorView


def run_input_to_json(run: RunInput) -> dict[str, Any]:
    return {"config": to_json(run.config, tag=False), "start_ms": run.start_ms,
            "events": [to_json(e) for e in run.events]}


def run_input_from_json(doc: Any, path: str = "input") -> RunInput:
    top = body(doc, path, ("config", "start_ms", "events"), required=("events",))
    config = classic_group.ClassicConfig()
    if "config" in top:
        config = from_json_as(classic_group.ClassicConfig, top["config"], _join(path, "config"))
    start = _integer(top.get("start_ms", 0), _join(path, "start_ms"))
    if start < 0:
        raise InputError(_join(path, "start_ms"), f"a clock reading is never negative, got {start}")
    events = _array_decoder(_tagged_decoder(EVENT_CLASSES))(top["events"], _join(path, "events"))
    return RunInput(config, start, events)


def run_output_to_json(run: RunOutput) -> dict[str, Any]:
    return {"outputs": [to_json(o, tag=False) for o in run.outputs], "view": to_json(run.view, tag=False)}


def run_output_from_json(doc: Any, path: str = "output") -> RunOutput:
    top = body(doc, path, ("outputs", "view"), required=("outputs", "view"))
    outputs = _array_decoder(lambda v, p: from_json_as(classic_group.Output, v, p))(
        top["outputs"], _join(path, "outputs"))
    view = from_json_as(classic_group.CoordinatorView, top["view"], _join(path, "view"))
    return RunOutput(outputs, view)

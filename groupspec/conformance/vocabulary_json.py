"""One lossless JSON form for the vocabulary of every stateful machine, for vectors and adapters.

Theory of operation. A vector of a stateful machine carries events, answers, log entries and a
final view, and an outside program in any language must read and write them. The spec has no
byte codec, so the form is read off the declarations alone: a :class:`JsonForm` is built over a
machine's vocabulary modules (frozen dataclasses in ``groupspec.types``), and every field's type
gives a :class:`Codec` (how to write a value, how to read one back): from its annotation, or, for
the keys and values of coordinator records and their nested structs, from the wire
:class:`~groupspec.types.records.schema.FieldSpec` each record field declares. A machine's
``*_json`` module only declares: its form, its run's input and output dataclasses, and a
:class:`RunForm` over them. Nothing machine-specific lives here: the only classes named are the
shared vocabulary (error codes, coordinator records).

The rules (docs/conformance.md states them for adapter writers):

- a dataclass is a JSON object with its attribute names as keys, in declaration order (a record
  key or value: Kafka's field names in snake_case);
- where the position does not fix the class (a member of a union such as an event, a field
  annotated ``object`` such as ``Answer.response``, a record's key and value) the object carries
  ``"type"``: the class name; elsewhere ``"type"`` may be given and must then name the expected
  class; a form may write it always for some classes (``tag_always``);
- an enum is its member's name (an error code: ``"NONE"``), bytes are lowercase hex, a uuid is
  its 8-4-4-4-12 hex form, a tuple is an array, None is null;
- writing gives every field; reading takes a missing field's default (a field without one is
  required) and refuses unknown fields, wrong types, unknown names and record integers outside
  their wire range with an :class:`InputError` naming the JSON path
  (``input.events[3].protocols[0].metadata``).
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Generic, NamedTuple, TypeVar, cast

from groupspec.types.errors import Errors, InputError
from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC, CoordinatorRecord, record_types
from groupspec.types.records.schema import FieldSpec, field_specs

TYPE_TAG = "type"


class Codec(NamedTuple):
    """How values of one declared type are written to JSON and read back; ``read(doc, path)``
    raises InputError naming ``path`` (or a path below it)."""

    write: Callable[[Any], Any]
    read: Callable[[Any, str], Any]


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def kind(value: Any) -> str:
    names = {type(None): "null", bool: "a boolean", int: "an integer", float: "a number",
             str: "a string", list: "an array", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _where(path: str) -> str:
    return path or "(root)"


# ---------------------------------------------------------------------------------------------
# Scalars, and the shapes built from other codecs
# ---------------------------------------------------------------------------------------------


def _same(value: Any) -> Any:
    return value


def _integer(value: Any, path: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(_where(path), f"expected an integer, got {kind(value)}")
    return value


def _number(value: Any, path: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise InputError(_where(path), f"expected a number, got {kind(value)}")
    return float(value)


def _string(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(_where(path), f"expected a string, got {kind(value)}")
    return value


def _boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(_where(path), f"expected a boolean, got {kind(value)}")
    return value


_HEX = re.compile(r"^(?:[0-9a-fA-F]{2})*$")


def _hex(value: Any, path: str) -> bytes:
    if not isinstance(value, str) or not _HEX.match(value):
        raise InputError(_where(path), f"expected bytes as hex digits (an even count), got {kind(value)}"
                         + (f" {value[:20]!r}" if isinstance(value, str) else ""))
    return bytes.fromhex(value)


def _uuid(value: Any, path: str) -> uuid.UUID:
    if not isinstance(value, str):
        raise InputError(_where(path), f"expected a uuid string, got {kind(value)}")
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        raise InputError(_where(path), f"{value!r} is not a uuid (8-4-4-4-12 hex digits)") from None
    if str(parsed) != value.lower():
        raise InputError(_where(path), f"{value!r} is not in the 8-4-4-4-12 hex form")
    return parsed


_INTEGER = Codec(_same, _integer)
_NUMBER = Codec(_same, _number)
_STRING = Codec(_same, _string)
_BOOLEAN = Codec(_same, _boolean)
_BYTES = Codec(lambda value: bytes(value).hex(), _hex)
_UUID = Codec(str, _uuid)
_SCALARS: Mapping[Any, Codec] = {int: _INTEGER, float: _NUMBER, str: _STRING, bool: _BOOLEAN, bytes: _BYTES}

#: What a name of these enums is, where listing the members would not help.
_ENUM_WHAT: Mapping[type, str] = {Errors: "the name of a Kafka error code, e.g. 'NONE'"}


def _enum(cls: type[enum.Enum]) -> Codec:
    what = _ENUM_WHAT.get(cls) or ", ".join(cls.__members__)
    article = "an" if cls.__name__[0] in "AEIOU" else "a"

    def read(value: Any, path: str) -> enum.Enum:
        if not isinstance(value, str) or value not in cls.__members__:
            shown = repr(value) if isinstance(value, str) else kind(value)
            raise InputError(_where(path), f"expected {article} {cls.__name__} name ({what}), got {shown}")
        return cls[value]

    return Codec(lambda value: cls(value).name, read)


def _nullable(inner: Codec, refusal: str | None = None) -> Codec:
    """``inner``, with None written as null; null reads as None, or is refused with ``refusal``."""
    def read(value: Any, path: str) -> Any:
        if value is None:
            if refusal is None:
                return None
            raise InputError(_where(path), refusal)
        return inner.read(value, path)

    return Codec(lambda value: None if value is None else inner.write(value), read)


def _array(item: Codec) -> Codec:
    def read(value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise InputError(_where(path), f"expected an array, got {kind(value)}")
        return tuple(item.read(v, join(path, i)) for i, v in enumerate(value))

    return Codec(lambda value: [item.write(v) for v in value], read)


def _fixed(items: tuple[Codec, ...]) -> Codec:
    """A tuple of a fixed length, ``tuple[str, int]``: an array of that many items."""
    def read(value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(items):
            raise InputError(_where(path), f"expected an array of {len(items)} items, got {kind(value)}"
                             + (f" of {len(value)}" if isinstance(value, list) else ""))
        return tuple(c.read(v, join(path, i)) for i, (c, v) in enumerate(zip(items, value, strict=True)))

    return Codec(lambda value: [c.write(v) for c, v in zip(items, value, strict=True)], read)


_INT_RANGES: Mapping[str, tuple[int, int]] = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


def _ranged(wire: str) -> Codec:
    lo, hi = _INT_RANGES[wire]

    def read(value: Any, path: str) -> int:
        number = _integer(value, path)
        if not lo <= number <= hi:
            raise InputError(_where(path), f"{number} is out of the {wire} range [{lo}, {hi}]")
        return number

    return Codec(_same, read)


_WIRE_SCALARS: Mapping[str, Codec] = {
    **{wire: _ranged(wire) for wire in _INT_RANGES},
    "bool": _BOOLEAN, "float64": _NUMBER, "string": _STRING, "bytes": _BYTES, "uuid": _UUID,
}


# ---------------------------------------------------------------------------------------------
# Coordinator records
# ---------------------------------------------------------------------------------------------


def _record_types() -> tuple[tuple[type, ...], tuple[type, ...]]:
    kinds = [r for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC) for r in record_types(topic).values()]
    return tuple(r.key for r in kinds), tuple(r.value for r in kinds)


RECORD_KEYS, RECORD_VALUES = _record_types()
#: Every record key and value class, each key before its value.
RECORD_MESSAGES: tuple[type, ...] = tuple(c for pair in zip(RECORD_KEYS, RECORD_VALUES, strict=True)
                                          for c in pair)

#: Fields annotated ``object`` whose classes the form knows without being told: a record's key
#: and value (``CoordinatorRecord`` checks that they belong together).
_OPEN_FIELDS: Mapping[tuple[type, str], tuple[type, ...]] = {
    (CoordinatorRecord, "key"): RECORD_KEYS,
    (CoordinatorRecord, "value"): RECORD_VALUES,
}


def _has_wire_schema(cls: type) -> bool:
    """A record key or value, or a struct nested in one: every field carries its FieldSpec."""
    fields = dataclasses.fields(cls)
    return bool(fields) and all(isinstance(f.metadata.get("kafka"), FieldSpec) for f in fields)


# ---------------------------------------------------------------------------------------------
# The form
# ---------------------------------------------------------------------------------------------

Fields = tuple[tuple[dataclasses.Field[Any], Codec], ...]


class JsonForm:
    """The JSON form of the dataclasses declared in ``modules``, and of the classes ``extra``.

    ``"type"`` tags name these classes; ``responses`` are the classes a field annotated
    ``object`` (an ``Answer.response``) may hold (None: any of them); ``tag_always`` are classes
    written with their tag even where the position fixes the class.
    """

    def __init__(self, what: str, modules: tuple[types.ModuleType, ...], *, extra: tuple[type, ...] = (),
                 responses: tuple[type, ...] | None = None, tag_always: tuple[type, ...] = ()) -> None:
        self.what = what
        declared = [obj for m in modules for obj in vars(m).values() if isinstance(obj, type)
                    and dataclasses.is_dataclass(obj) and obj.__module__ == m.__name__]
        classes: dict[str, type] = {}
        for cls in (*declared, *extra):
            if classes.setdefault(cls.__name__, cls) is not cls:
                raise TypeError(f"two classes are named {cls.__name__}: the type tag would be ambiguous")
        self.classes: Mapping[str, type] = types.MappingProxyType(classes)
        self.responses = tuple(classes.values()) if responses is None else responses
        self.tag_always = frozenset(tag_always)
        self._fields: dict[type, Fields] = {}

    # -- the public calls -------------------------------------------------------------------------

    def to_json(self, obj: object, *, tag: bool = True) -> dict[str, Any]:
        """``obj`` (a class of the form) as a JSON-ready dict carrying its ``"type"`` (``tag=False``
        leaves the tag out, for a position whose class the reader knows)."""
        cls = type(obj)
        if self.classes.get(cls.__name__) is not cls:
            raise InputError(TYPE_TAG, f"{cls.__qualname__} has no {self.what} JSON form")
        return self._write(obj, tag)

    def from_json(self, doc: Any, path: str = "") -> Any:
        """The object a tagged JSON document describes, of any class of the form."""
        return self._tagged(tuple(self.classes.values())).read(doc, path)

    def from_json_as(self, cls: type, doc: Any, path: str = "") -> Any:
        """A ``cls`` object from its JSON form; the ``"type"`` tag is optional but must match."""
        return self._read(cls, doc, path)

    def codec(self, hint: Any) -> Codec:
        """The codec of an annotation (``int``, ``tuple[Event, ...]``, a dataclass)."""
        return self._hinted(hint, self.responses)

    # -- objects ----------------------------------------------------------------------------------

    def _write(self, obj: object, tag: bool) -> dict[str, Any]:
        body = {f.name: codec.write(getattr(obj, f.name)) for f, codec in self._fields_of(type(obj))}
        return {TYPE_TAG: type(obj).__name__, **body} if tag else body

    def _read(self, cls: type, doc: Any, path: str) -> Any:
        if not isinstance(doc, dict):
            raise InputError(_where(path), f"expected an object, got {kind(doc)}")
        tag = doc.get(TYPE_TAG)
        if tag is not None and tag != cls.__name__:
            raise InputError(join(path, TYPE_TAG), f"expected {cls.__name__!r}, got {tag!r}")
        fields = self._fields_of(cls)
        names = [f.name for f, _ in fields]
        unknown = [key for key in doc if key != TYPE_TAG and key not in names]
        if unknown:
            listed = ", ".join(names) or "none"
            raise InputError(join(path, str(unknown[0])),
                             f"unknown field: not a field of {cls.__name__} (fields: {listed})")
        kwargs: dict[str, Any] = {}
        for f, codec in fields:
            where = join(path, f.name)
            if f.name in doc:
                kwargs[f.name] = codec.read(doc[f.name], where)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(where, "missing")
        try:
            return cls(**kwargs)
        except InputError as exc:  # a class that checks its own fields (CoordinatorRecord)
            raise InputError(join(path, exc.field), exc.problem) from None

    def _object(self, cls: type) -> Codec:
        tag = cls in self.tag_always
        return Codec(lambda obj: self._write(obj, tag), lambda doc, path: self._read(cls, doc, path))

    def _tagged(self, allowed: tuple[type, ...]) -> Codec:
        """An object that must name its class, one of ``allowed``."""
        by_name = {cls.__name__: cls for cls in allowed}
        shown = ", ".join(list(by_name)[:12]) + (", ..." if len(by_name) > 12 else "")

        def read(doc: Any, path: str) -> Any:
            if not isinstance(doc, dict):
                raise InputError(_where(path), f"expected an object, got {kind(doc)}")
            tag = doc.get(TYPE_TAG)
            if not isinstance(tag, str):
                raise InputError(join(path, TYPE_TAG), "missing: this object must name its class")
            if tag not in by_name:
                raise InputError(join(path, TYPE_TAG),
                                 f"{tag!r} is not allowed here (expected one of {shown})")
            return self._read(by_name[tag], doc, path)

        return Codec(lambda obj: self._write(obj, True), read)

    def _fields_of(self, cls: type) -> Fields:
        """Each field of ``cls`` with its codec (built once: resolving annotations is not cheap)."""
        found = self._fields.get(cls)
        if found is None:
            if _has_wire_schema(cls):
                codecs = {name: self._wired(spec.wire, spec) for name, spec in field_specs(cls)}
            else:
                hints = typing.get_type_hints(cls)
                codecs = {f.name: self._hinted(hints[f.name], _OPEN_FIELDS.get((cls, f.name), self.responses))
                          for f in dataclasses.fields(cls)}
            found = tuple((f, codecs[f.name]) for f in dataclasses.fields(cls))
            self._fields[cls] = found
        return found

    # -- codecs from annotations and from wire types ----------------------------------------------

    def _hinted(self, hint: Any, objects: tuple[type, ...]) -> Codec:
        """``objects``: the classes ``object`` stands for in this annotation."""
        if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
            args = typing.get_args(hint)
            rest = tuple(a for a in args if a is not type(None))
            inner = self._hinted(rest[0], objects) if len(rest) == 1 else self._tagged(rest)
            return _nullable(inner) if type(None) in args else inner
        if hint is object:
            return self._tagged(objects)
        if hint in _SCALARS:
            return _SCALARS[hint]
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return _enum(hint)
        if typing.get_origin(hint) is tuple:
            items = typing.get_args(hint)
            if len(items) == 2 and items[1] is Ellipsis:
                return _array(self._hinted(items[0], objects))
            return _fixed(tuple(self._hinted(h, objects) for h in items))
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._object(hint)
        raise TypeError(f"no JSON form for the annotation {hint!r}")

    def _wired(self, wire: str, spec: FieldSpec, element: bool = False) -> Codec:
        """A record field's codec from its wire type; null only where some version allows it."""
        if wire.startswith("[]"):
            inner = _array(self._wired(wire[2:], spec, element=True))
        elif wire == "struct":
            assert spec.struct is not None
            inner = self._object(spec.struct)
        elif wire in _WIRE_SCALARS:
            inner = _WIRE_SCALARS[wire]
        else:
            raise TypeError(f"unknown wire type {wire!r}")
        if not element and spec.nullable.lo <= spec.nullable.hi:
            return _nullable(inner)
        return _nullable(inner, "is null, but no version of this field is nullable")


# ---------------------------------------------------------------------------------------------
# A run's documents
# ---------------------------------------------------------------------------------------------

In = TypeVar("In")
Out = TypeVar("Out")


@dataclasses.dataclass(frozen=True)
class RunForm(Generic[In, Out]):
    """A stateful machine's vector documents: ``input`` (config, clock, events, ...) and
    ``output`` (one Output per event and the final view) are dataclasses the form reads like any
    other, so a missing field takes its default and an event must name its class.

    ``at_least`` bounds integers of the input: a field name maps to the least value of that
    field, or of every integer field of the object it holds (a config); ``"config.name"``
    gives one field of that object its own bound.
    """

    form: JsonForm
    input: type[In]
    output: type[Out]
    at_least: Mapping[str, int]

    def input_to_json(self, run: In) -> dict[str, Any]:
        return cast(dict[str, Any], self.form.codec(self.input).write(run))

    def input_from_json(self, doc: Any, path: str = "input") -> In:
        run = self.form.codec(self.input).read(doc, path)
        for name, least in self.at_least.items():
            if "." in name:
                continue  # a field's own bound, read below
            value = getattr(run, name)
            where = join(path, name)
            numbers = ([(join(where, f.name), getattr(value, f.name),
                         self.at_least.get(f"{name}.{f.name}", least)) for f in dataclasses.fields(value)]
                       if dataclasses.is_dataclass(value) else [(where, value, least)])
            for at, number, least in numbers:
                if isinstance(number, int) and not isinstance(number, bool) and number < least:
                    bound = "must not be negative" if least == 0 else f"must be at least {least}"
                    raise InputError(at, f"{bound}, got {number}")
        return cast(In, run)

    def output_to_json(self, run: Out) -> dict[str, Any]:
        return cast(dict[str, Any], self.form.codec(self.output).write(run))

    def output_from_json(self, doc: Any, path: str = "output") -> Out:
        return cast(Out, self.form.codec(self.output).read(doc, path))

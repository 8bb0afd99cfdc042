"""How a record class states its own wire schema.

Kafka describes each coordinator record in a JSON file (fields, types, versions, nullable
versions, tagged fields, flexible versions) and generates Java classes from it. groupspec keeps
that description as the record classes themselves: every field of a frozen dataclass carries a
:class:`FieldSpec` in its metadata, and every message class carries a :class:`MessageSpec`.
So the typed vocabulary and the schema table are one thing that cannot drift apart, the codec
(``groupspec.impl.codec``) compiles encoders and decoders from it, and a test compares it with
Kafka's JSON files whenever ``../shared/kafka-schemas`` is present.

Attribute names are Kafka's field names in snake_case (``LeaderEpoch`` -> ``leader_epoch``); the
Kafka spelling is derived by :func:`kafka_name` and checked by that test.

Version ranges use Kafka's notation: ``"0+"``, ``"3+"``, ``"1"``, ``"0-2"``, ``"none"``.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

#: The primitive wire types of Kafka's message format (MESSAGE_FORMAT_README.md). Arrays are
#: written ``"[]" + element`` where element is a primitive or ``"struct"``; a nested single
#: struct is ``"struct"``.
PRIMITIVES = frozenset(
    {"bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64", "string", "bytes", "uuid"}
)

#: Kafka's all-zero Uuid, the default of every uuid field.
ZERO_UUID = uuid.UUID(int=0)


@dataclass(frozen=True)
class Versions:
    """A closed range of versions; ``lo > hi`` means no version at all (``"none"``)."""

    lo: int
    hi: int

    NONE: ClassVar[Versions]

    @classmethod
    def parse(cls, text: str) -> Versions:
        text = text.strip()
        if text == "none":
            return cls(1, 0)
        if text.endswith("+"):
            return cls(int(text[:-1]), 32767)
        if "-" in text:
            lo, hi = text.split("-")
            return cls(int(lo), int(hi))
        return cls(int(text), int(text))

    def __contains__(self, version: object) -> bool:
        return isinstance(version, int) and self.lo <= version <= self.hi

    def __str__(self) -> str:
        if self.lo > self.hi:
            return "none"
        if self.hi == 32767:
            return f"{self.lo}+"
        if self.lo == self.hi:
            return str(self.lo)
        return f"{self.lo}-{self.hi}"


Versions.NONE = Versions(1, 0)


@dataclass(frozen=True)
class FieldSpec:
    """One field's wire description: what Kafka's JSON says about it, in parsed form.

    ``default`` is the value a decoder fills in at versions where the field is absent and the
    value an encoder may silently drop there; any other value at such a version cannot be
    written unless the field is ``ignorable`` (Kafka's UnsupportedVersionException rule).
    """

    wire: str
    versions: Versions
    nullable: Versions = Versions.NONE
    tag: int | None = None
    tagged: Versions = Versions.NONE
    ignorable: bool = False
    struct: type | None = None
    #: A Kafka name that snake_case cannot derive, if any.
    kafka: str | None = None


@dataclass(frozen=True)
class MessageSpec:
    """A top-level message: its record type id (``api_key``; None for plain data such as the
    consumer protocol), whether it is a key or a value, its valid and flexible versions."""

    name: str
    kind: str  # "coordinator-key", "coordinator-value", "data", "request" or "response"
    api_key: int | None
    versions: Versions
    flexible: Versions


def kfield(
    wire: str,
    versions: str = "0+",
    *,
    default: Any = dataclasses.MISSING,
    nullable: str = "none",
    tag: int | None = None,
    tagged: str = "none",
    ignorable: bool = False,
    struct: type | None = None,
    kafka: str | None = None,
    kw_only: bool = False,
) -> Any:
    """A dataclass field with its wire description.

    Without an explicit ``default`` the field takes Kafka's implicit default for its type
    (0, false, "", empty bytes, the zero uuid, an empty tuple) so a record can be built with
    only the fields that matter, as Kafka's generated classes allow. ``kw_only`` lets a field
    Kafka added in the middle of a schema keep its schema position without moving the
    positional arguments of the fields after it.
    """
    spec = FieldSpec(
        wire=wire,
        versions=Versions.parse(versions),
        nullable=Versions.parse(nullable),
        tag=tag,
        tagged=Versions.parse(tagged),
        ignorable=ignorable,
        struct=struct,
        kafka=kafka,
    )
    meta = {"kafka": spec}
    if default is not dataclasses.MISSING:
        if isinstance(default, (list, dict, set)):
            raise TypeError("use a tuple or None as a record field default")
        return dataclasses.field(default=default, metadata=meta, kw_only=kw_only)
    if wire.startswith("[]"):
        return dataclasses.field(default=(), metadata=meta)
    if wire == "struct":
        if struct is None:
            raise TypeError("a struct field needs struct=")
        return dataclasses.field(default_factory=struct, metadata=meta)
    return dataclasses.field(default=_IMPLICIT_DEFAULTS[wire], metadata=meta)


_IMPLICIT_DEFAULTS: dict[str, Any] = {
    "bool": False,
    "int8": 0,
    "int16": 0,
    "uint16": 0,
    "int32": 0,
    "uint32": 0,
    "int64": 0,
    "float64": 0.0,
    "string": "",
    "bytes": b"",
    "uuid": ZERO_UUID,
}

T = TypeVar("T")


def message(
    name: str, kind: str, api_key: int | None, versions: str, flexible: str = "none"
) -> Callable[[type[T]], type[T]]:
    """Mark a dataclass as a top-level Kafka message (a record key, a record value, data, or the
    body of a request or response of the wire protocol, ``groupspec.wire``)."""
    if kind not in MESSAGE_KINDS:
        raise ValueError(f"unknown message kind {kind!r}")
    spec = MessageSpec(name, kind, api_key, Versions.parse(versions), Versions.parse(flexible))

    def mark(cls: type[T]) -> type[T]:
        _check_struct(cls, spec)
        setattr(cls, "__kafka_message__", spec)  # noqa: B010 - a class attribute set after the fact
        return cls

    return mark


#: What a message class can be: Kafka's schema ``type`` values that groupspec uses.
MESSAGE_KINDS = ("coordinator-key", "coordinator-value", "data", "request", "response")

_NULLABLE_WIRES = ("string", "bytes", "uuid", "struct")


def _check_struct(cls: type, spec: MessageSpec) -> None:
    """Refuse, at import time, a schema Kafka's generator would refuse too.

    A wrong table would otherwise surface only as bytes that disagree with Kafka's.
    """
    tags: set[int] = set()
    for name, f in field_specs(cls):
        where = f"{cls.__qualname__}.{name}"
        if (f.tag is None) != (f.tagged.lo > f.tagged.hi):
            raise TypeError(f"{where}: tag and tagged versions go together")
        if f.tag is not None:
            if f.tag in tags:
                raise TypeError(f"{where}: tag {f.tag} used twice")
            tags.add(f.tag)
            if f.tagged.lo < spec.flexible.lo or f.tagged.hi > spec.flexible.hi:
                raise TypeError(f"{where}: tagged versions {f.tagged} outside the flexible versions")
        if f.nullable.lo <= f.nullable.hi and not (f.wire.startswith("[]") or f.wire in _NULLABLE_WIRES):
            raise TypeError(f"{where}: a {f.wire} cannot be nullable")
        default = next(x.default for x in dataclasses.fields(cls) if x.name == name)
        if default is None and not (f.nullable.lo <= f.versions.lo and f.versions.hi <= f.nullable.hi):
            raise TypeError(f"{where}: a null default needs every version nullable")
        element = f.wire.removeprefix("[]")
        if element == "struct":
            if f.struct is None:
                raise TypeError(f"{where}: a struct field needs struct=")
            _check_struct(f.struct, spec)
        elif element not in PRIMITIVES:
            raise TypeError(f"{where}: unknown wire type {f.wire!r}")


def struct_classes(cls: type) -> list[type]:
    """Every struct class nested in a message or struct class, depth first, each once."""
    found: list[type] = []

    def walk(c: type) -> None:
        for _, f in field_specs(c):
            if f.struct is not None and f.struct not in found:
                found.append(f.struct)
                walk(f.struct)

    walk(cls)
    return found


def message_spec(cls: type) -> MessageSpec:
    spec = getattr(cls, "__kafka_message__", None)
    if not isinstance(spec, MessageSpec):
        raise TypeError(f"{cls.__name__} is not a Kafka message class")
    return spec


def field_specs(cls: type) -> list[tuple[str, FieldSpec]]:
    """The fields of a record or struct class in schema order, with their wire descriptions."""
    out = []
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("kafka")
        if not isinstance(spec, FieldSpec):
            raise TypeError(f"{cls.__name__}.{f.name} has no kfield() description")
        out.append((f.name, spec))
    return out


def kafka_name(attribute: str, spec: FieldSpec | None = None) -> str:
    """Kafka's field name for a snake_case attribute: ``leader_epoch`` -> ``LeaderEpoch``."""
    if spec is not None and spec.kafka is not None:
        return spec.kafka
    return "".join(part[:1].upper() + part[1:] for part in attribute.split("_"))


def json_name(attribute: str, spec: FieldSpec | None = None) -> str:
    """The name Kafka's generated JSON converters print: lower camel case (``leaderEpoch``)."""
    name = kafka_name(attribute, spec)
    return name[:1].lower() + name[1:]


def snake_name(kafka: str) -> str:
    """``LeaderEpoch`` -> ``leader_epoch``; the inverse of :func:`kafka_name` for plain names."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", kafka).lower()

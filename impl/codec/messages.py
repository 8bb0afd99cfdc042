"""Kafka's message format for record keys and values, compiled from the record classes' schemas.

Theory of operation. Every record class carries its wire schema (:mod:`groupspec.types.records.schema`).
For each (class, version) pair this module writes the source of one decoder and one encoder
function specialised to that layout, execs it once and caches it; nested structs get their own
functions at the same version. No record has a hand-written codec. What the generated code does:

- adjacent fixed-size fields (and, in non-flexible versions, the int16/int32 length prefix of the
  string, bytes or array that follows them) are read with one precompiled ``struct`` call;
- compact lengths (flexible versions) take a one-byte fast path before the general varint reader;
- decoded objects are built without calling the dataclass ``__init__``: a slots-compatible twin
  class (not frozen) receives the fields by plain attribute stores and then becomes an instance of
  the record class by ``__class__`` assignment. The result is an ordinary instance of the record
  class, equal to one built by calling it; classes with a ``__post_init__`` are called instead.

Rules, as Kafka's generated message classes apply them (generator/.../MessageDataGenerator.java):

- A field absent at a version is filled with its default when reading. When writing, it must hold
  its default unless it is ignorable (then it is dropped); otherwise :class:`FieldVersionError`
  (Kafka's UnsupportedVersionException "Attempted to write a non-default X at version N").
- Null only where ``nullableVersions`` allow; a negative length of a non-nullable field is
  :class:`MalformedError`. Strings are UTF-8 of at most 32767 bytes, in both forms.
- Flexible versions end every struct with a tagged-field section. A tagged field is written only
  when it differs from its default, in increasing tag order. Unknown tags are skipped when reading:
  Kafka keeps them as raw bytes and writes them back, groupspec drops them, so a record carrying
  tags from a newer broker decodes but does not re-encode byte for byte. Groupspec also checks that
  a known tagged field's data fills exactly the size its header gave (Kafka does not).
- A nullable struct carries a marker: int8 -1/1 in place, uvarint 0/1 when tagged.
- Bad UTF-8 is :class:`MalformedError`; Java's decoder would substitute U+FFFD instead.
- A bool is true for any non-zero byte, as in Java; it re-encodes as 1.

Decoding arbitrary bytes raises only :class:`CodecError` subclasses: truncation is
:class:`TruncatedError`, an impossible length or count (including a count above the bytes left,
Kafka's "Tried to allocate a collection of size N" check) is Truncated/Malformed, and the work done
is bounded by the input's length.

Trailing bytes: Kafka's record reader (coordinator-common/.../CoordinatorRecordSerde.java,
``readMessage``) reads the struct and never looks at what remains in the buffer, so bytes after
the struct are ignored. :func:`decode` returns the end position and leaves that choice to the
caller; :func:`decode_all` insists the struct fills the buffer.
"""

from __future__ import annotations

import dataclasses
import struct
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from groupspec.impl.codec.errors import CodecError, MalformedError, TruncatedError, UnsupportedVersionError
from groupspec.impl.codec.varint import read_int32_uvarint, uvarint
from groupspec.types.records.schema import FieldSpec, field_specs, message_spec

T = TypeVar("T")

#: A compiled decoder: (buffer, position) -> (object, end position); raises only CodecError.
Decoder = Callable[[bytes, int], tuple[Any, int]]
#: A compiled encoder: object -> bytes; raises only CodecError.
Encoder = Callable[[Any], bytes]
#: A compiled struct body encoder: (object, append) appends the struct's byte strings.
StructEncoder = Callable[[Any, Callable[[bytes], None]], None]

MAX_STRING_BYTES = 0x7FFF

_FIXED_FORMAT = {
    "bool": "?",
    "int8": "b",
    "int16": "h",
    "uint16": "H",
    "int32": "i",
    "uint32": "I",
    "int64": "q",
    "float64": "d",
    "uuid": "16s",
}
_FORMAT_SIZE = {"?": 1, "b": 1, "B": 1, "h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "d": 8, "16s": 16}
INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "uint16": (0, (1 << 16) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "uint32": (0, (1 << 32) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
}
_VARIABLE = ("string", "bytes")
_ZERO16 = bytes(16)
_UV1 = tuple(bytes((i,)) for i in range(128))


class EncodeError(CodecError):
    """A value that cannot be written at the requested version (wrong type, out of range, ...)."""

    def __init__(self, message: str, field: str, version: int, problem: str) -> None:
        self.message_name = message
        self.field = field
        self.version = version
        self.problem = problem
        CodecError.__init__(self, f"{message} v{version}: {field}: {problem}")


class FieldVersionError(EncodeError, UnsupportedVersionError):
    """A field that does not exist at the version holds something other than its default.

    Kafka refuses to drop such a value silently (UnsupportedVersionException) unless the schema
    marks the field ignorable.
    """

    def __init__(self, message: str, field: str, version: int) -> None:
        self.name = message
        problem = f"holds a non-default value but does not exist at v{version}"
        super().__init__(message, field, version, problem)


# --- layouts --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slot:
    """One field of a struct at one version: where it goes and what may be in it."""

    name: str
    spec: FieldSpec
    default: Any
    mode: str  # "plain", "tagged" or "absent"
    nullable: bool

    @property
    def wire(self) -> str:
        return self.spec.wire


def is_flexible(cls: type, version: int) -> bool:
    return version in message_spec(cls).flexible


def check_version(cls: type, version: int) -> None:
    spec = message_spec(cls)
    if version not in spec.versions:
        raise UnsupportedVersionError(spec.name, version)


def field_default(cls: type, name: str) -> Any:
    for f in dataclasses.fields(cls):
        if f.name == name:
            if f.default is not dataclasses.MISSING:
                return f.default
            if f.default_factory is not dataclasses.MISSING:
                return f.default_factory()
    raise TypeError(f"{cls.__qualname__}.{name} has no default")


_LAYOUTS: dict[tuple[type, int, bool], tuple[Slot, ...]] = {}


def layout(cls: type, version: int, flexible: bool) -> tuple[Slot, ...]:
    """The fields of ``cls`` as they appear on the wire at ``version`` (schema order)."""
    key = (cls, version, flexible)
    found = _LAYOUTS.get(key)
    if found is not None:
        return found
    slots = []
    for name, spec in field_specs(cls):
        if spec.tag is not None and version in spec.tagged:
            if not flexible:
                raise TypeError(f"{cls.__qualname__}.{name} is tagged at v{version}, which is not flexible")
            mode = "tagged"
        elif version in spec.versions:
            mode = "plain"
        else:
            mode = "absent"
        slots.append(Slot(name, spec, field_default(cls, name), mode, version in spec.nullable))
    found = tuple(slots)
    _LAYOUTS[key] = found
    return found


def _title(cls: type, version: int) -> str:
    spec = getattr(cls, "__kafka_message__", None)
    name = spec.name if spec is not None else cls.__qualname__
    return f"{name} v{version}"


# --- source generation ----------------------------------------------------------------------------


class _Source:
    """The text of one generated function and the objects its names refer to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ns: dict[str, Any] = {}
        self._count = 0

    def local(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def const(self, value: Any, hint: str = "k") -> str:
        name = self.local("_" + hint)
        self.ns[name] = value
        return name

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def build(self, name: str, filename: str) -> Any:
        text = "\n".join(self.lines) + "\n"
        code = compile(text, filename, "exec")
        exec(code, self.ns)
        fn = self.ns[name]
        fn.__source__ = text  # kept for debugging: print(fn.__source__)
        return fn


class _ReadRun:
    """Adjacent fixed-size reads, emitted as one struct call."""

    def __init__(self, src: _Source) -> None:
        self.src = src
        self.formats: list[str] = []
        self.targets: list[str] = []
        self.labels: list[str] = []
        self.uuids: list[str] = []

    def add(self, fmt: str, target: str, label: str) -> None:
        self.formats.append(fmt)
        self.targets.append(target)
        self.labels.append(label)
        if fmt == "16s":
            self.uuids.append(target)

    def flush(self, indent: int) -> None:
        if not self.formats:
            return
        fmt = ">" + "".join(self.formats)
        size = sum(_FORMAT_SIZE[f] for f in self.formats)
        unpack = self.src.const(struct.Struct(fmt).unpack_from, "unpack")
        self.src.emit(indent, f"at = {', '.join(dict.fromkeys(self.labels))!r}")
        self.src.emit(indent, f"{', '.join(self.targets)}, = {unpack}(buf, pos)")
        self.src.emit(indent, f"pos += {size}")
        for target in self.uuids:
            self.src.emit(indent, f"{target} = _uuid_from({target})")
        self.formats, self.targets, self.labels, self.uuids = [], [], [], []


def _uuid_from(raw: bytes) -> uuid.UUID:
    """A UUID from 16 bytes without UUID.__init__'s argument parsing (the hot path of share records)."""
    if raw == _ZERO16:
        return _ZERO_UUID
    u = object.__new__(uuid.UUID)
    object.__setattr__(u, "int", int.from_bytes(raw, "big"))
    object.__setattr__(u, "is_safe", uuid.SafeUUID.unknown)
    return u


def _placed(exc: CodecError, pos: int) -> CodecError:
    """The error with the innermost position known: a nested struct's decoder places it first."""
    if exc.position is None:
        exc.position = pos
    return exc


_ZERO_UUID = uuid.UUID(int=0)
_DECODE_BASE: dict[str, Any] = {
    "_CE": CodecError,
    "_placed": _placed,
    "_TE": TruncatedError,
    "_ME": MalformedError,
    "_uv": read_int32_uvarint,
    "_up": struct.unpack_from,
    "_new": object.__new__,
    "_uuid_from": _uuid_from,
    "_StructError": struct.error,
}


def _twin(cls: type) -> type | None:
    """A mutable class with ``cls``'s slot layout, or None when the ``__class__`` switch is unsafe."""
    if "__post_init__" in vars(cls) or not dataclasses.is_dataclass(cls):
        return None
    own = vars(cls).get("__slots__")
    if own is None or cls.__bases__ != (object,):
        return None
    twin = type(f"_{cls.__name__}Twin", (), {"__slots__": tuple(own)})
    try:
        probe: Any = object.__new__(twin)
        for f in dataclasses.fields(cls):
            setattr(probe, f.name, field_default(cls, f.name))
        probe.__class__ = cls
    except (TypeError, AttributeError):
        return None
    if probe != cls() or type(probe) is not cls:
        return None
    return twin


class _DecoderWriter:
    """Writes the decoder of one struct at one version."""

    def __init__(self, cls: type, version: int, flexible: bool) -> None:
        self.cls = cls
        self.version = version
        self.flexible = flexible
        self.title = _title(cls, version)
        self.src = _Source()
        self.src.ns.update(_DECODE_BASE)

    def msg(self, text: str) -> str:
        return self.src.const(f"{self.title}: {text}", "msg")

    def write(self) -> Decoder:
        src = self.src
        slots = layout(self.cls, self.version, self.flexible)
        src.emit(0, "def _decode(buf, pos):")
        src.emit(1, "blen = len(buf)")
        src.emit(1, "at = 'the start'")
        src.emit(1, "try:")
        src.emit(2, "pass  # a struct with no field on the wire at this version (ListGroupsRequest v0)")
        run = _ReadRun(src)
        values: dict[str, str] = {}
        for slot in slots:
            if slot.mode == "absent":
                values[slot.name] = src.const(slot.default, "default")
            elif slot.mode == "plain":
                var = f"v_{slot.name}"
                values[slot.name] = var
                self.read(slot, var, 2, run)
        run.flush(2)
        if self.flexible:
            self.tagged_section([s for s in slots if s.mode == "tagged"], values, 2)
        src.emit(1, "except (_StructError, IndexError):")
        src.emit(2, f"raise _placed(_TE({self.msg('the data ends inside ')} + at), pos) from None")
        src.emit(1, "except UnicodeDecodeError:")
        src.emit(2, f"raise _placed(_ME({self.msg('invalid UTF-8 in ')} + at), pos) from None")
        src.emit(1, "except _CE as exc:")
        src.emit(2, "raise _placed(exc, pos)")
        self.construct(slots, values)
        return src.build("_decode", f"<decoder {self.title}>")  # type: ignore[no-any-return]

    def construct(self, slots: tuple[Slot, ...], values: dict[str, str]) -> None:
        src = self.src
        twin = _twin(self.cls)
        cls_name = src.const(self.cls, "cls")
        if twin is None:
            args = ", ".join(f"{s.name}={values[s.name]}" for s in slots)
            src.emit(1, f"return {cls_name}({args}), pos")
            return
        twin_name = src.const(twin, "twin")
        src.emit(1, f"o = _new({twin_name})")
        for s in slots:
            src.emit(1, f"o.{s.name} = {values[s.name]}")
        src.emit(1, f"o.__class__ = {cls_name}")
        src.emit(1, "return o, pos")

    # -- pieces ------------------------------------------------------------------------------------

    def uvarint_into(self, target: str, indent: int, minus_one: bool) -> None:
        src = self.src
        b = src.local("b")
        src.emit(indent, f"{b} = buf[pos]")
        src.emit(indent, f"if {b} < 128:")
        src.emit(indent + 1, "pos += 1")
        src.emit(indent + 1, f"{target} = {b} - 1" if minus_one else f"{target} = {b}")
        src.emit(indent, "else:")
        src.emit(indent + 1, f"{target}, pos = _uv(buf, pos)")
        if minus_one:
            src.emit(indent + 1, f"{target} = ({target} - 1 & 0xFFFFFFFF ^ 0x80000000) - 0x80000000")

    def length_into(self, target: str, prefix: str, indent: int, run: _ReadRun, label: str) -> None:
        """Read a length or count: int16/int32 in the run, or a compact uvarint - 1."""
        if self.flexible:
            run.flush(indent)
            self.src.emit(indent, f"at = {label!r}")
            self.uvarint_into(target, indent, True)
        else:
            run.add(prefix, target, label)
            run.flush(indent)

    def null_or_fail(self, slot_name: str, nullable: bool, target: str, indent: int) -> None:
        if nullable:
            self.src.emit(indent, f"{target} = None")
        else:
            msg = self.msg(f"{slot_name} is null but is not nullable at v{self.version}")
            self.src.emit(indent, f"raise _ME({msg})")

    def read(self, slot: Slot, var: str, indent: int, run: _ReadRun, tagged: bool = False) -> None:
        wire = slot.wire
        src = self.src
        fmt = _FIXED_FORMAT.get(wire)
        if fmt is not None:
            if slot.nullable:
                raise TypeError(f"{self.title}: nullable {wire} field {slot.name} is not supported")
            run.add(fmt, var, slot.name)
            return
        if wire == "struct":
            self.read_struct(slot, var, indent, run, tagged)
            return
        n = src.local("n")
        if wire in _VARIABLE:
            self.length_into(n, "h" if wire == "string" else "i", indent, run, slot.name)
            src.emit(indent, f"if {n} < 0:")
            self.null_or_fail(slot.name, slot.nullable, var, indent + 1)
            src.emit(indent, "else:")
            self.read_body(wire, n, var, slot.name, indent + 1)
            return
        if not wire.startswith("[]"):
            raise TypeError(f"{self.title}: field {slot.name} has unknown wire type {wire!r}")
        self.length_into(n, "i", indent, run, slot.name)
        src.emit(indent, f"if {n} < 0:")
        self.null_or_fail(slot.name, slot.nullable, var, indent + 1)
        src.emit(indent, "else:")
        src.emit(indent + 1, f"if {n} > blen - pos:")
        src.emit(indent + 2, f"raise _TE({self.msg(f'{slot.name} claims more elements than bytes remain')})")
        self.read_elements(slot, wire[2:], n, var, indent + 1)

    def read_body(self, wire: str, n: str, var: str, name: str, indent: int) -> None:
        """The content of a string or bytes field whose (non-negative) length is in ``n``."""
        src = self.src
        if wire == "string" and self.flexible:
            src.emit(indent, f"if {n} > {MAX_STRING_BYTES}:")
            src.emit(indent + 1, f"raise _ME({self.msg(f'{name} is longer than {MAX_STRING_BYTES} bytes')})")
        e = src.local("e")
        src.emit(indent, f"{e} = pos + {n}")
        src.emit(indent, f"if {e} > blen:")
        src.emit(indent + 1, f"raise _TE({self.msg(f'the data ends inside {name}')})")
        if wire == "string":
            src.emit(indent, f"at = {name!r}")
            src.emit(indent, f"{var} = buf[pos:{e}].decode()")
        else:
            src.emit(indent, f"{var} = buf[pos:{e}]")
        src.emit(indent, f"pos = {e}")

    def read_elements(self, slot: Slot, element: str, n: str, var: str, indent: int) -> None:
        src = self.src
        fmt = _FIXED_FORMAT.get(element)
        if fmt is not None and fmt != "16s":
            src.emit(indent, f"{var} = _up(f'>{{{n}}}{fmt}', buf, pos)")
            src.emit(indent, f"pos += {n} * {_FORMAT_SIZE[fmt]}")
            return
        items = src.local("items")
        add = src.local("add")
        src.emit(indent, f"{items} = []")
        src.emit(indent, f"{add} = {items}.append")
        src.emit(indent, f"for _ in range({n}):")
        inner = indent + 1
        el = src.local("el")
        if element == "uuid":
            unpack = src.const(struct.Struct(">16s").unpack_from, "unpack")
            src.emit(inner, f"{el}, = {unpack}(buf, pos)")
            src.emit(inner, "pos += 16")
            src.emit(inner, f"{add}(_uuid_from({el}))")
        elif element == "struct":
            if slot.spec.struct is None:
                raise TypeError(f"{self.title}: {slot.name} is an array of structs without struct=")
            dec = src.const(_struct_decoder(slot.spec.struct, self.version, self.flexible), "dec")
            src.emit(inner, f"{el}, pos = {dec}(buf, pos)")
            src.emit(inner, f"{add}({el})")
        elif element in _VARIABLE:
            m = src.local("m")
            run = _ReadRun(src)
            self.length_into(m, "h" if element == "string" else "i", inner, run, slot.name)
            src.emit(inner, f"if {m} < 0:")
            self.null_or_fail(f"an element of {slot.name}", False, el, inner + 1)
            self.read_body(element, m, el, f"an element of {slot.name}", inner)
            src.emit(inner, f"{add}({el})")
        elif fmt is not None:  # bool
            src.emit(inner, f"{add}(buf[pos] != 0)")
            src.emit(inner, "pos += 1")
        else:
            raise TypeError(f"{self.title}: field {slot.name} has unknown element type {element!r}")
        src.emit(indent, f"{var} = tuple({items})")

    def read_struct(self, slot: Slot, var: str, indent: int, run: _ReadRun, tagged: bool) -> None:
        src = self.src
        if slot.spec.struct is None:
            raise TypeError(f"{self.title}: struct field {slot.name} without struct=")
        dec = src.const(_struct_decoder(slot.spec.struct, self.version, self.flexible), "dec")
        if not slot.nullable:
            run.flush(indent)
            src.emit(indent, f"{var}, pos = {dec}(buf, pos)")
            return
        marker = src.local("marker")
        if tagged:  # a tagged nullable struct starts with uvarint 0 (null) or 1
            run.flush(indent)
            self.uvarint_into(marker, indent, False)
            src.emit(indent, f"if {marker} <= 0:")
        else:  # in place: int8 -1 (null) or 1
            run.add("b", marker, slot.name)
            run.flush(indent)
            src.emit(indent, f"if {marker} < 0:")
        src.emit(indent + 1, f"{var} = None")
        src.emit(indent, "else:")
        src.emit(indent + 1, f"{var}, pos = {dec}(buf, pos)")

    def tagged_section(self, tagged: list[Slot], values: dict[str, str], indent: int) -> None:
        src = self.src
        src.emit(indent, "at = 'the tagged fields'")
        for slot in tagged:
            var = f"v_{slot.name}"
            values[slot.name] = var
            src.emit(indent, f"{var} = {src.const(slot.default, 'default')}")
        count = src.local("count")
        src.emit(indent, "if buf[pos] == 0:  # no tagged fields: the usual case")
        src.emit(indent + 1, "pos += 1")
        src.emit(indent, "else:")
        indent += 1
        self.uvarint_into(count, indent, False)
        src.emit(indent, f"for _ in range({count}):")
        inner = indent + 1
        tag, size, end = src.local("tag"), src.local("size"), src.local("end")
        self.uvarint_into(tag, inner, False)
        self.uvarint_into(size, inner, False)
        src.emit(inner, f"{end} = pos + {size}")
        src.emit(inner, f"if {end} > blen or {end} < pos:")
        src.emit(inner + 1, f"raise (_ME if {size} < 0 else _TE)({self.msg('bad tagged field size')})")
        keyword = "if"
        for slot in sorted(tagged, key=lambda s: s.spec.tag or 0):
            src.emit(inner, f"{keyword} {tag} == {slot.spec.tag}:")
            keyword = "elif"
            src.emit(inner + 1, f"at = {slot.name!r}")
            run = _ReadRun(src)
            self.read(slot, values[slot.name], inner + 1, run, tagged=True)
            run.flush(inner + 1)
            src.emit(inner + 1, f"if pos != {end}:")
            short = self.msg(f"tagged field {slot.name} does not fill the size in its header")
            src.emit(inner + 2, f"raise _ME({short})")
        src.emit(inner, f"pos = {end}")


#: The decoder writer, for subclasses that end a decoder in something other than the object
#: (json_form's bytes-to-JSON-text decoders override ``construct``).
DecoderWriter = _DecoderWriter


# --- encoders -------------------------------------------------------------------------------------


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"expected bytes, got {type(value).__name__}")


def _uvarint_bytes(value: int) -> bytes:
    return _UV1[value] if value < 128 else uvarint(value)


_ENCODE_BASE: dict[str, Any] = {
    "_UV1": _UV1,
    "_uvb": _uvarint_bytes,
    "_pk": struct.pack,
    "_pack_h": struct.Struct(">h").pack,
    "_pack_i": struct.Struct(">i").pack,
    "_as_bytes": _as_bytes,
    "_join": b"".join,
    "_FVE": FieldVersionError,
}


class _WriteRun:
    """Adjacent fixed-size writes, emitted as one struct call."""

    def __init__(self, src: _Source, append: str) -> None:
        self.src = src
        self.append = append
        self.formats: list[str] = []
        self.values: list[str] = []

    def add(self, fmt: str, value: str) -> None:
        self.formats.append(fmt)
        self.values.append(value)

    def flush(self, indent: int) -> None:
        if not self.formats:
            return
        pack = self.src.const(struct.Struct(">" + "".join(self.formats)).pack, "pack")
        self.src.emit(indent, f"{self.append}({pack}({', '.join(self.values)}))")
        self.formats, self.values = [], []


class _EncoderWriter:
    """Writes the encoder of one struct at one version: ``_encode(o, ap)`` appends byte strings."""

    def __init__(self, cls: type, version: int, flexible: bool) -> None:
        self.cls = cls
        self.version = version
        self.flexible = flexible
        self.title = _title(cls, version)
        self.src = _Source()
        self.src.ns.update(_ENCODE_BASE)
        self.src.ns["_TITLE"] = self.title.rsplit(" v", 1)[0]

    def write(self) -> StructEncoder:
        src = self.src
        slots = layout(self.cls, self.version, self.flexible)
        src.emit(0, "def _encode(o, ap):")
        run = _WriteRun(src, "ap")
        for slot in slots:
            if slot.mode == "absent":
                if not slot.spec.ignorable:
                    default = src.const(slot.default, "default")
                    src.emit(1, f"if o.{slot.name} != {default}:")
                    src.emit(2, f"raise _FVE(_TITLE, {slot.name!r}, {self.version})")
            elif slot.mode == "plain":
                var = f"v_{slot.name}"
                src.emit(1, f"{var} = o.{slot.name}")
                self.write_field(slot, var, 1, run)
        if self.flexible:
            self.tagged_section([s for s in slots if s.mode == "tagged"], run)
        run.flush(1)
        src.emit(1, "return None")
        return src.build("_encode", f"<encoder {self.title}>")  # type: ignore[no-any-return]

    def length(self, n: str, prefix: str, indent: int, run: _WriteRun) -> None:
        if self.flexible:
            run.flush(indent)
            self.src.emit(indent, f"{run.append}(_UV1[{n} + 1] if {n} < 127 else _uvb({n} + 1))")
        else:
            run.add(prefix, n)
            run.flush(indent)

    def write_field(self, slot: Slot, var: str, indent: int, run: _WriteRun, tagged: bool = False) -> None:
        src = self.src
        wire = slot.wire
        ap = run.append
        fmt = _FIXED_FORMAT.get(wire)
        if fmt is not None:
            if slot.nullable:
                raise TypeError(f"{self.title}: nullable {wire} field {slot.name} is not supported")
            if wire == "bool":
                src.emit(indent, f"if {var}.__class__ is not bool:")
                src.emit(indent + 1, "raise TypeError('not a bool')")
            run.add(fmt, f"{var}.bytes" if wire == "uuid" else var)
            return
        if wire == "struct":
            self.write_struct(slot, var, indent, run, tagged)
            return
        n = src.local("n")
        data = src.local("data")
        if slot.nullable:
            src.emit(indent, f"if {var} is None:")
            src.emit(indent + 1, f"{n} = -1")
            if wire in _VARIABLE:
                src.emit(indent + 1, f"{data} = b''")
            src.emit(indent, "else:")
            inner = indent + 1
        else:
            inner = indent
        if wire == "string":
            src.emit(inner, f"{data} = {var}.encode()")
            src.emit(inner, f"{n} = len({data})")
            src.emit(inner, f"if {n} > {MAX_STRING_BYTES}:")
            src.emit(inner + 1, "raise ValueError('string too long')")
        elif wire == "bytes":
            src.emit(inner, f"{data} = {var} if {var}.__class__ is bytes else _as_bytes({var})")
            src.emit(inner, f"{n} = len({data})")
        elif wire.startswith("[]"):
            src.emit(inner, f"if {var}.__class__ is not tuple and {var}.__class__ is not list:")
            src.emit(inner + 1, "raise TypeError('not a tuple')")
            src.emit(inner, f"{n} = len({var})")
        else:
            raise TypeError(f"{self.title}: field {slot.name} has unknown wire type {wire!r}")
        self.length(n, "h" if wire == "string" else "i", indent, run)
        if wire in _VARIABLE:
            src.emit(indent, f"{ap}({data})")
        else:
            src.emit(indent, f"if {n} > 0:")
            self.write_elements(slot, wire[2:], var, n, indent + 1, ap)

    def write_elements(self, slot: Slot, element: str, var: str, n: str, indent: int, ap: str) -> None:
        src = self.src
        fmt = _FIXED_FORMAT.get(element)
        if fmt is not None and element not in ("bool", "uuid"):
            src.emit(indent, f"{ap}(_pk(f'>{{{n}}}{fmt}', *{var}))")
            return
        el = src.local("el")
        src.emit(indent, f"for {el} in {var}:")
        inner = indent + 1
        if element == "uuid":
            src.emit(inner, f"{ap}({el}.bytes)")
        elif element == "bool":
            src.emit(inner, f"if {el}.__class__ is not bool:")
            src.emit(inner + 1, "raise TypeError('not a bool')")
            src.emit(inner, f"{ap}(b'\\x01' if {el} else b'\\x00')")
        elif element == "struct":
            struct_cls = slot.spec.struct
            if struct_cls is None:
                raise TypeError(f"{self.title}: {slot.name} is an array of structs without struct=")
            enc = src.const(_struct_encoder(struct_cls, self.version, self.flexible), "enc")
            expected = src.const(struct_cls, "cls")
            src.emit(inner, f"if {el}.__class__ is not {expected}:")
            src.emit(inner + 1, "raise TypeError('wrong element class')")
            src.emit(inner, f"{enc}({el}, {ap})")
        elif element in _VARIABLE:
            data, m = src.local("data"), src.local("m")
            if element == "string":
                src.emit(inner, f"{data} = {el}.encode()")
            else:
                src.emit(inner, f"{data} = {el} if {el}.__class__ is bytes else _as_bytes({el})")
            src.emit(inner, f"{m} = len({data})")
            if element == "string":
                src.emit(inner, f"if {m} > {MAX_STRING_BYTES}:")
                src.emit(inner + 1, "raise ValueError('string too long')")
            if self.flexible:
                src.emit(inner, f"{ap}(_UV1[{m} + 1] if {m} < 127 else _uvb({m} + 1))")
            else:
                src.emit(inner, f"{ap}({'_pack_h' if element == 'string' else '_pack_i'}({m}))")
            src.emit(inner, f"{ap}({data})")
        else:
            raise TypeError(f"{self.title}: field {slot.name} has unknown element type {element!r}")

    def write_struct(self, slot: Slot, var: str, indent: int, run: _WriteRun, tagged: bool) -> None:
        src = self.src
        struct_cls = slot.spec.struct
        if struct_cls is None:
            raise TypeError(f"{self.title}: struct field {slot.name} without struct=")
        enc = src.const(_struct_encoder(struct_cls, self.version, self.flexible), "enc")
        expected = src.const(struct_cls, "cls")
        ap = run.append
        run.flush(indent)
        inner = indent
        if slot.nullable:
            null, present = (b"\x00", b"\x01") if tagged else (b"\xff", b"\x01")
            src.emit(indent, f"if {var} is None:")
            src.emit(indent + 1, f"{ap}({null!r})")
            src.emit(indent, "else:")
            inner = indent + 1
            src.emit(inner, f"{ap}({present!r})")
        src.emit(inner, f"if {var}.__class__ is not {expected}:")
        src.emit(inner + 1, "raise TypeError('wrong struct class')")
        src.emit(inner, f"{enc}({var}, {ap})")

    def tagged_section(self, tagged: list[Slot], run: _WriteRun) -> None:
        src = self.src
        if not tagged:
            run.add("B", "0")
            return
        run.flush(1)
        fields = src.local("tagged")
        src.emit(1, f"{fields} = []")
        for slot in sorted(tagged, key=lambda s: s.spec.tag or 0):
            var = f"v_{slot.name}"
            default = src.const(slot.default, "default")
            src.emit(1, f"{var} = o.{slot.name}")
            test = f"{var} is not None" if slot.default is None else f"{var} != {default}"
            src.emit(1, f"if {test}:")
            parts = src.local("parts")
            src.emit(2, f"{parts} = []")
            sub = _WriteRun(src, f"{parts}.append")
            self.write_field(slot, var, 2, sub, tagged=True)
            sub.flush(2)
            body = src.local("body")
            header = src.const(uvarint(slot.spec.tag or 0), "tag")
            src.emit(2, f"{body} = _join({parts})")
            src.emit(2, f"{fields}.append({header} + _uvb(len({body})) + {body})")
        src.emit(1, f"ap(_uvb(len({fields})))")
        src.emit(1, f"for t in {fields}:")
        src.emit(2, "ap(t)")


# --- caches and the public surface ----------------------------------------------------------------

_STRUCT_DECODERS: dict[tuple[type, int, bool], Decoder] = {}
_STRUCT_ENCODERS: dict[tuple[type, int, bool], StructEncoder] = {}
_DECODERS: dict[tuple[type, int], Decoder] = {}
_ENCODERS: dict[tuple[type, int], Encoder] = {}


def _struct_decoder(cls: type, version: int, flexible: bool) -> Decoder:
    key = (cls, version, flexible)
    found = _STRUCT_DECODERS.get(key)
    if found is None:
        found = _DecoderWriter(cls, version, flexible).write()
        _STRUCT_DECODERS[key] = found
    return found


def _struct_encoder(cls: type, version: int, flexible: bool) -> StructEncoder:
    key = (cls, version, flexible)
    found = _STRUCT_ENCODERS.get(key)
    if found is None:
        found = _EncoderWriter(cls, version, flexible).write()
        _STRUCT_ENCODERS[key] = found
    return found


def decoder(cls: type, version: int) -> Decoder:
    """The compiled decoder of a message class at a version: ``(bytes, pos) -> (object, end)``.

    It expects ``bytes`` (not bytearray or memoryview) and a position inside them; :func:`decode`
    is the checked entry point. Raises :class:`UnsupportedVersionError` for a version the class
    does not have.
    """
    found = _DECODERS.get((cls, version))
    if found is None:
        check_version(cls, version)
        found = _struct_decoder(cls, version, is_flexible(cls, version))
        _DECODERS[(cls, version)] = found
    return found


def encoder(cls: type, version: int) -> Encoder:
    """The compiled encoder of a message class at a version: ``object -> bytes``."""
    found = _ENCODERS.get((cls, version))
    if found is not None:
        return found
    check_version(cls, version)
    flexible = is_flexible(cls, version)
    body = _struct_encoder(cls, version, flexible)
    name = message_spec(cls).name

    def encode_one(obj: Any) -> bytes:
        parts: list[bytes] = []
        try:
            body(obj, parts.append)
            return b"".join(parts)
        except CodecError:
            raise
        except (struct.error, TypeError, AttributeError, ValueError, OverflowError) as exc:
            raise explain(obj, version, flexible, exc, name) from None

    _ENCODERS[(cls, version)] = encode_one
    return encode_one


def encode(obj: Any, version: int) -> bytes:
    """The bytes of a message object at ``version`` (no version prefix)."""
    found = _ENCODERS.get((obj.__class__, version))
    if found is None:
        found = encoder(obj.__class__, version)
    return found(obj)


def decode(cls: type[T], buf: bytes | bytearray | memoryview, version: int, pos: int = 0) -> tuple[T, int]:
    """A ``cls`` object read at ``pos``, and the position just after it (trailing bytes are left)."""
    data = buf if isinstance(buf, bytes) else bytes(buf)
    if pos < 0:
        raise ValueError("pos must not be negative")
    found = _DECODERS.get((cls, version))
    if found is None:
        found = decoder(cls, version)
    return found(data, pos)


def decode_all(cls: type[T], buf: bytes | bytearray | memoryview, version: int) -> T:
    """A ``cls`` object that must fill ``buf`` exactly; trailing bytes are :class:`MalformedError`."""
    obj, end = decode(cls, buf, version)
    if end != len(buf):
        raise MalformedError(f"{_title(cls, version)}: {len(buf) - end} bytes after the end of the struct")
    return obj


# --- explaining an encode failure -----------------------------------------------------------------


def explain(
    obj: Any, version: int, flexible: bool, exc: BaseException, name: str | None = None
) -> CodecError:
    """The typed error for a value the fast encoder refused, naming the field that caused it."""
    title = name or _title(type(obj), version).rsplit(" v", 1)[0]
    found = _first_problem(type(obj), obj, version, flexible, "", title)
    if found is not None:
        return found
    return EncodeError(title, "?", version, f"cannot be encoded: {exc}")


def _first_problem(
    cls: type, obj: Any, version: int, flexible: bool, path: str, title: str
) -> CodecError | None:
    for slot in layout(cls, version, flexible):
        where = f"{path}{slot.name}"
        value = getattr(obj, slot.name, None)
        if slot.mode == "absent":
            if not slot.spec.ignorable and value != slot.default:
                return FieldVersionError(title, where, version)
            continue
        problem = value_problem(slot.wire, value, slot.nullable, slot.spec.struct)
        if problem is not None:
            return EncodeError(title, where, version, problem)
        struct_cls = slot.spec.struct
        if struct_cls is None or value is None:
            continue
        items = (value,) if slot.wire == "struct" else value
        for i, item in enumerate(items):
            inner = f"{where}." if slot.wire == "struct" else f"{where}[{i}]."
            found = _first_problem(struct_cls, item, version, flexible, inner, title)
            if found is not None:
                return found
    return None


def value_problem(wire: str, value: Any, nullable: bool, struct_cls: type | None = None) -> str | None:
    """Why ``value`` cannot be written as ``wire`` (None when it can); nested structs not entered."""
    if value is None:
        return None if nullable else "is None but the field is not nullable at this version"
    if wire in INT_RANGES:
        lo, hi = INT_RANGES[wire]
        if not isinstance(value, int):
            return f"expected an int, got {type(value).__name__}"
        if not lo <= value <= hi:
            return f"{value} is out of the {wire} range [{lo}, {hi}]"
        return None
    if wire == "bool":
        return None if isinstance(value, bool) else f"expected a bool, got {type(value).__name__}"
    if wire == "float64":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"expected a float, got {type(value).__name__}"
    if wire == "string":
        if not isinstance(value, str):
            return f"expected a str, got {type(value).__name__}"
        try:
            size = len(value.encode())
        except UnicodeEncodeError:
            return "is not encodable as UTF-8 (lone surrogate)"
        return None if size <= MAX_STRING_BYTES else f"is {size} bytes of UTF-8, more than {MAX_STRING_BYTES}"
    if wire == "bytes":
        ok = isinstance(value, (bytes, bytearray, memoryview))
        return None if ok else f"expected bytes, got {type(value).__name__}"
    if wire == "uuid":
        return None if isinstance(value, uuid.UUID) else f"expected a uuid.UUID, got {type(value).__name__}"
    if wire == "struct":
        if type(value) is struct_cls:
            return None
        return f"expected a {getattr(struct_cls, '__qualname__', '?')}, got {type(value).__name__}"
    if wire.startswith("[]"):
        if not isinstance(value, (tuple, list)):
            return f"expected a tuple, got {type(value).__name__}"
        for i, element in enumerate(value):
            problem = value_problem(wire[2:], element, False, struct_cls)
            if problem is not None:
                return f"element {i}: {problem}"
        return None
    return f"unknown wire type {wire!r}"

"""The coordinator record envelope: type-prefixed keys, version-prefixed values, tombstones.

A record key is an int16 record type id and then the key struct at version 0 (never flexible);
a record value is an int16 version and then the value struct at that version; a null value is a
tombstone (classic_group.md §5.1; coordinator-common/.../CoordinatorRecordSerde.java). Ids are per
topic: type 0 is LegacyOffsetCommit in ``__consumer_offsets`` and ShareSnapshot in
``__share_group_state``. LegacyOffsetCommit (0) and OffsetCommit (1) keys share one layout; only
the id tells them apart, and each decodes to its own class.

Failures, as Kafka's loader sorts them: an id the registry does not know is
:class:`UnknownRecordTypeError` (readers skip it with a warning: newer brokers write types older
ones do not know); a known type with a value version outside its versions is
:class:`UnsupportedVersionError` naming the type and the version; anything else is a
:class:`CodecError` from the struct codec.

Trailing bytes after a key or value struct: Kafka ignores them (``CoordinatorRecordSerde`` reads
the message and never checks what is left). Groupspec refuses them by default (``strict=True``,
:class:`MalformedError`), because in a CRC-checked batch they can only come from a writer bug
and an audit should see them; ``strict=False`` reads as Kafka does.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

from groupspec.impl.codec.errors import (
    MalformedError,
    TruncatedError,
    UnknownRecordTypeError,
    UnsupportedVersionError,
)
from groupspec.impl.codec.messages import Decoder, decoder, encode
from groupspec.types.errors import InputError
from groupspec.types.records import (
    CoordinatorRecord,
    RecordType,
    record_type_of,
    record_types,
    written_version,
)
from groupspec.types.records.schema import message_spec

_pack_int16 = struct.Struct(">h").pack
#: The key struct is always version 0 (classic_group.md §5.1).
KEY_VERSION = 0


class _Entry:
    """What decoding one record type needs, looked up once per record."""

    __slots__ = ("key_decoder", "record_type", "value_decoders", "value_name")

    def __init__(self, rtype: RecordType) -> None:
        self.record_type = rtype
        self.key_decoder: Decoder = decoder(rtype.key, KEY_VERSION)
        versions = message_spec(rtype.value).versions
        self.value_decoders: dict[int, Decoder] = {
            v: decoder(rtype.value, v) for v in range(versions.lo, versions.hi + 1)
        }
        self.value_name = f"record type {rtype.type_id} ({rtype.name}) value"


_TABLES: dict[str, dict[int, _Entry]] = {}


def _table(topic: str) -> Mapping[int, _Entry]:
    table = _TABLES.get(topic)
    if table is None:
        table = {type_id: _Entry(rtype) for type_id, rtype in record_types(topic).items()}
        _TABLES[topic] = table
    return table


def type_decoders(topic: str, type_id: int) -> tuple[RecordType, Decoder, Mapping[int, Decoder]] | None:
    """The record type, key decoder and value decoders (by version) of one type id of ``topic``.

    For loops that decode millions of records and want the compiled decoders without
    :func:`decode_record`'s envelope (``groupspec decode``); None for an unknown id.
    """
    entry = (_TABLES.get(topic) or _table(topic)).get(type_id)
    if entry is None:
        return None
    return entry.record_type, entry.key_decoder, entry.value_decoders


def _entry_of(rtype: RecordType) -> _Entry:
    entry = (_TABLES.get(rtype.topic) or _table(rtype.topic)).get(rtype.type_id)
    if entry is None or entry.record_type != rtype:
        raise UnknownRecordTypeError(rtype.topic, rtype.type_id)
    return entry


def _as_bytes(data: bytes | bytearray | memoryview, what: str) -> bytes:
    buf = data if data.__class__ is bytes else bytes(data)
    if len(buf) < 2:
        raise TruncatedError(f"a record {what} needs at least 2 bytes, got {len(buf)}")
    return buf


def _signed(raw: int) -> int:
    return raw - 0x10000 if raw >= 0x8000 else raw


def _check_end(buf: bytes, end: int, what: str, strict: bool) -> None:
    if strict and end != len(buf):
        raise MalformedError(f"{what}: {len(buf) - end} bytes after the end of the struct")


# --- encoding -------------------------------------------------------------------------------------


def encode_key(key: Any) -> bytes:
    """Record type id, then the key struct at version 0."""
    rtype = record_type_of(type(key))
    if type(key) is not rtype.key:
        raise InputError("key", f"{type(key).__qualname__} is a value class, not a record key class")
    return _pack_int16(rtype.type_id) + encode(key, KEY_VERSION)


def encode_value(value: Any, version: int | None = None) -> bytes:
    """Value version, then the value struct; ``version`` None means the one Kafka 4.2 writes."""
    if version is None:
        version = written_version(value)
    return _pack_int16(version) + encode(value, version)


def encode_record(rec: CoordinatorRecord) -> tuple[bytes, bytes | None]:
    """The key and value bytes of a record (value None for a tombstone)."""
    key = encode_key(rec.key)
    if rec.value is None:
        return key, None
    return key, encode_value(rec.value, rec.value_version)


# --- decoding -------------------------------------------------------------------------------------


def decode_key(topic: str, data: bytes | bytearray | memoryview, *, strict: bool = True) -> Any:
    """The key object of a record of ``topic``; unknown type ids raise UnknownRecordTypeError."""
    buf = data if data.__class__ is bytes and len(data) >= 2 else _as_bytes(data, "key")
    type_id = buf[0] << 8 | buf[1]
    entry = (_TABLES.get(topic) or _table(topic)).get(type_id)
    if entry is None:
        raise UnknownRecordTypeError(topic, _signed(type_id))
    key, end = entry.key_decoder(buf, 2)
    if end != len(buf):
        _check_end(buf, end, f"record type {type_id} key", strict)
    return key


def decode_value(
    record_type: RecordType, data: bytes | bytearray | memoryview, *, strict: bool = True
) -> tuple[Any, int]:
    """The value object of a record of ``record_type`` and the version it was written at."""
    entry = _entry_of(record_type)
    buf = data if data.__class__ is bytes and len(data) >= 2 else _as_bytes(data, "value")
    version = buf[0] << 8 | buf[1]
    dec = entry.value_decoders.get(version)
    if dec is None:
        raise UnsupportedVersionError(entry.value_name, _signed(version))
    value, end = dec(buf, 2)
    if end != len(buf):
        _check_end(buf, end, entry.value_name, strict)
    return value, version


def _record_twin() -> type:
    """A mutable class with CoordinatorRecord's slots (see messages.py on the ``__class__`` switch)."""
    twin = type("_CoordinatorRecordTwin", (), {"__slots__": CoordinatorRecord.__slots__})
    probe: Any = object.__new__(twin)
    probe.__class__ = CoordinatorRecord  # fails at import if the layouts ever stop matching
    return twin


_new = object.__new__
_RecordTwin = _record_twin()


def decode_record(
    topic: str,
    key_bytes: bytes | bytearray | memoryview,
    value_bytes: bytes | bytearray | memoryview | None,
    *,
    strict: bool = True,
) -> CoordinatorRecord:
    """A whole record: key, value (None = tombstone) and the value's version.

    One path with :func:`decode_key` and :func:`decode_value`: the key names the record type,
    whose value decoder reads the value.
    """
    key = decode_key(topic, key_bytes, strict=strict)
    value: Any = None
    version: int | None = None
    if value_bytes is not None:
        value, version = decode_value(record_type_of(type(key)), value_bytes, strict=strict)
    # Built without CoordinatorRecord.__init__: its __post_init__ re-checks what the table lookup
    # already guarantees (key and value classes of one type, a valid version).
    rec: Any = _new(_RecordTwin)
    rec.key = key
    rec.value = value
    rec.value_version = version
    rec.__class__ = CoordinatorRecord
    return rec  # type: ignore[no-any-return]


# --- Kafka 4.2's serde, where it differs (the Kafka-exact mode; docs/divergences.md) ------------


def refuse_retired(topic: str, type_id: int) -> None:
    """Kafka 4.2's serdes no longer know a type retired by 4.2 (its schema files are gone), so
    reading or writing one fails as an unknown type; groupspec keeps decoding old logs."""
    rtype = record_types(topic).get(type_id)
    if rtype is not None and rtype.retired is not None:
        raise UnknownRecordTypeError(topic, type_id)


def encode_value_as_kafka(value: Any, version: int) -> bytes:
    """Kafka's serializer writes whatever version it is asked for, even one its own
    deserializer refuses (records_writes_unreadable_version). Its generated writer guards a
    field by version only when the field lacks some of the message's valid versions, so above
    the highest version a field that has them all is written, and one without an upper bound
    too. Where that gives the highest version's layout (the usual case), the bytes are that
    layout under the asked number; otherwise what Kafka writes is not known here and the version
    is refused."""
    spec = message_spec(type(value))
    top = spec.versions.hi
    if version <= top:
        return encode_value(value, version)
    ranges = (spec.versions, version, top)
    if not _layout_holds_above(type(value), ranges) or (top in spec.flexible) != (version in spec.flexible):
        raise UnsupportedVersionError(spec.name, version)
    return _pack_int16(version) + encode_value(value, top)[2:]


def _layout_holds_above(cls: type, ranges: tuple[Any, int, int]) -> bool:
    from groupspec.types.records.schema import field_specs

    valid, version, top = ranges
    for _, f in field_specs(cls):
        for r in (f.versions, f.nullable, f.tagged):
            unguarded = r.lo <= valid.lo and valid.hi <= r.hi
            if (top in r) != (unguarded or version in r):
                return False
        if f.struct is not None and not _layout_holds_above(f.struct, ranges):
            return False
    return True

"""What Kafka's wire format lets a request field hold, checked before a machine sees the request.

A broker parses a request before any coordinator code runs: a string is at most 32767 UTF-8
bytes (an int16 length), an int32 field cannot hold 2**31, a Java ``String`` cannot hold a lone
surrogate once it is written out as UTF-8. groupspec's events are Python values, so nothing
stops a caller from handing a machine a 40,000-character group id, ``None`` for a member id or a
clock of 2**70; left unchecked, such a value fails deep inside a step (an EncodeError when its
record is written, an AttributeError) after part of the step has already happened. The machines'
vocabularies (``groupspec.types.classic_group``, ``groupspec.types.share_group``) run these checks at
the edge, so that both layers refuse the same input with the same :class:`InputError`, naming
the field by its path, before anything changes.
"""

from __future__ import annotations

from typing import Any

from groupspec.types.errors import InputError

#: Kafka's string limit (an int16 length prefix), in UTF-8 bytes.
MAX_STRING_BYTES = 0x7FFF
#: A ``bytes`` field carries an int32 length.
MAX_BYTES_LENGTH = 0x7FFF_FFFF

INT16 = (-(1 << 15), (1 << 15) - 1)
INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)
_WIRE = {"int16": INT16, "int32": INT32, "int64": INT64}


def wrap_int64(value: int) -> int:
    """Java's ``long`` arithmetic: the value modulo 2**64, read as signed."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def utf8_length(value: str, path: str) -> int:
    """The UTF-8 size of ``value``; a lone surrogate (no UTF-8 form) is an InputError."""
    if value.isascii():
        return len(value)
    try:
        return len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InputError(path, f"not valid Unicode text: a lone surrogate at character {exc.start} "
                               "has no UTF-8 form") from None


def text(value: object, path: str, *, nullable: bool = False) -> None:
    """A Kafka string: a ``str`` (or None where the field is nullable) of at most 32767 UTF-8 bytes."""
    if value is None and nullable:
        return
    if not isinstance(value, str):
        wanted = "a string or null" if nullable else "a string"
        raise InputError(path, f"expected {wanted}, got {type(value).__name__}")
    if len(value) > MAX_STRING_BYTES // 3 or not value.isascii():
        size = utf8_length(value, path)
        if size > MAX_STRING_BYTES:
            raise InputError(path, f"{size} UTF-8 bytes; a Kafka string holds at most {MAX_STRING_BYTES}")


def integer(value: object, path: str, wire: str, *, minimum: int | None = None,
            maximum: int | None = None, nullable: bool = False) -> None:
    """An int that fits the field's wire type (int16/int32/int64), within optional tighter bounds."""
    if value is None and nullable:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        wanted = "an integer or null" if nullable else "an integer"
        raise InputError(path, f"expected {wanted}, got {type(value).__name__}")
    low, high = _WIRE[wire]
    if minimum is not None:
        low = max(low, minimum)
    if maximum is not None:
        high = min(high, maximum)
    if not low <= value <= high:
        what = f"{wire} {low}..{high}" if (low, high) == _WIRE[wire] else f"{low}..{high}"
        shown = str(value) if abs(value) < 10**30 else f"a {value.bit_length()}-bit number"
        raise InputError(path, f"{shown} is out of range ({what})")


def blob(value: object, path: str) -> None:
    """A Kafka ``bytes`` field."""
    if not isinstance(value, bytes):
        raise InputError(path, f"expected bytes, got {type(value).__name__}")
    if len(value) > MAX_BYTES_LENGTH:
        raise InputError(path, f"{len(value)} bytes; a Kafka bytes field holds at most {MAX_BYTES_LENGTH}")


def boolean(value: object, path: str) -> None:
    if not isinstance(value, bool):
        raise InputError(path, f"expected true or false, got {type(value).__name__}")


def array(value: object, path: str, *, nullable: bool = False) -> tuple[Any, ...]:
    """A Kafka array: a tuple (the vocabulary's frozen form; a list would compare unequal to it)."""
    if value is None and nullable:
        return ()
    if not isinstance(value, tuple):
        wanted = "a tuple or null" if nullable else "a tuple"
        raise InputError(path, f"expected {wanted}, got {type(value).__name__}")
    if len(value) > INT32[1]:
        raise InputError(path, f"{len(value)} elements; a Kafka array holds at most {INT32[1]}")
    return value


def instance(value: object, path: str, cls: type) -> None:
    if type(value) is not cls:
        raise InputError(path, f"expected a {cls.__name__}, got {type(value).__name__}")


def texts(value: object, path: str, *, nullable: bool = False) -> None:
    """An array of strings."""
    for i, item in enumerate(array(value, path, nullable=nullable)):
        text(item, f"{path}[{i}]")

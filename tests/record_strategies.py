"""Hypothesis strategies for record keys and values: any object a given version can carry.

``message_values(cls, version)`` builds instances valid at that version, driven by the classes'
own schemas: every present field over its whole wire range (full int ranges, unicode strings,
bytes, zero and random uuids, nested arrays of structs), null only where the version allows it,
fields absent at the version at their default, except ignorable ones, which may hold anything
(the encoder drops them; :func:`normalized` gives what a decoder returns for such an object).
Sizes stay small (arrays of up to 3, strings of up to 12 characters) so the codec tests are fast;
string-length limits are tested separately.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from hypothesis import strategies as st

from groupspec.impl.codec.messages import INT_RANGES, Slot, is_flexible, layout
from groupspec.types.records.schema import ZERO_UUID, message_spec

MAX_ARRAY = 3
MAX_TEXT = 12

_uuids = st.one_of(st.just(ZERO_UUID), st.uuids())
_texts = st.text(max_size=MAX_TEXT)
_bytes = st.binary(max_size=16)


def _scalar(wire: str) -> st.SearchStrategy[Any]:
    if wire in INT_RANGES:
        lo, hi = INT_RANGES[wire]
        return st.integers(lo, hi)
    if wire == "bool":
        return st.booleans()
    if wire == "float64":
        return st.floats(allow_nan=False)
    if wire == "string":
        return _texts
    if wire == "bytes":
        return _bytes
    if wire == "uuid":
        return _uuids
    raise TypeError(f"no strategy for wire type {wire!r}")


def _field_values(slot: Slot, version: int, flexible: bool) -> st.SearchStrategy[Any]:
    wire = slot.wire
    if wire == "struct":
        assert slot.spec.struct is not None
        values: st.SearchStrategy[Any] = struct_values(slot.spec.struct, version, flexible)
    elif wire.startswith("[]"):
        element = wire[2:]
        if element == "struct":
            assert slot.spec.struct is not None
            items = struct_values(slot.spec.struct, version, flexible)
        else:
            items = _scalar(element)
        values = st.lists(items, max_size=MAX_ARRAY).map(tuple)
    else:
        values = _scalar(wire)
    if slot.nullable:
        values = st.none() | values
    return values


def _any_value(slot: Slot) -> st.SearchStrategy[Any]:
    """Something an ignorable absent field may hold: its default or another well-typed value."""
    if slot.wire == "struct" or slot.wire.startswith("[]"):
        return st.just(slot.default)
    return st.one_of(st.just(slot.default), _scalar(slot.wire))


@functools.cache  # built once: a strategy drawn from inside a test is otherwise rebuilt every example
def struct_values(cls: type, version: int, flexible: bool) -> st.SearchStrategy[Any]:
    """Instances of a (nested) struct class as they may be written at ``version``."""
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for slot in layout(cls, version, flexible):
        if slot.mode == "absent":
            fields[slot.name] = _any_value(slot) if slot.spec.ignorable else st.just(slot.default)
        else:
            fields[slot.name] = _field_values(slot, version, flexible)
    return st.builds(cls, **fields)


@functools.cache
def message_values(cls: type, version: int) -> st.SearchStrategy[Any]:
    """Instances of a top-level message class that can be written at ``version``."""
    if version not in message_spec(cls).versions:
        raise ValueError(f"{cls.__qualname__} has no version {version}")
    return struct_values(cls, version, is_flexible(cls, version))


def normalized(obj: Any, version: int, flexible: bool | None = None) -> Any:
    """What decoding the encoding of ``obj`` at ``version`` gives: absent fields at their defaults."""
    cls = type(obj)
    if flexible is None:
        flexible = is_flexible(cls, version)
    changes: dict[str, Any] = {}
    for slot in layout(cls, version, flexible):
        value = getattr(obj, slot.name)
        if slot.mode == "absent":
            changes[slot.name] = slot.default
        elif slot.spec.struct is not None and value is not None:
            if slot.wire == "struct":
                changes[slot.name] = normalized(value, version, flexible)
            else:
                changes[slot.name] = tuple(normalized(item, version, flexible) for item in value)
    return dataclasses.replace(obj, **changes)


def every_version(classes: tuple[type, ...]) -> list[tuple[type, int]]:
    """(class, version) for every valid version of every class, for parametrized tests."""
    out: list[tuple[type, int]] = []
    for cls in classes:
        versions = message_spec(cls).versions
        out.extend((cls, v) for v in range(versions.lo, versions.hi + 1))
    return out

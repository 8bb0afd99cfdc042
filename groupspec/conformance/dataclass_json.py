"""A lossless JSON form for a vocabulary module of frozen dataclasses.

The stateful machines' JSON forms (``share_partition_json``, ``share_group_json``) are this form over
their vocabulary modules, so the rules are stated once (docs/conformance.md):

- a dataclass is a JSON object with its attribute names as keys;
- where the position does not fix the class (an event, the response inside an ``Answer``) the
  object carries ``"type"``: the class name; elsewhere ``"type"`` may be given and must then
  name the expected class;
- an enum (``Errors``, ``RecordState``) is its member name; a tuple is an array; None is null;
  a coordinator record is in the classic machine's record form (``classic_group_json``);
- writing gives every field; reading takes a missing field's default (a field without one is
  required) and refuses unknown fields, wrong types and unknown names with an
  :class:`InputError` naming the JSON path (``events[3].batches[0].types``).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from typing import Any

from groupspec.types.errors import InputError
from groupspec.types.records import CoordinatorRecord

TYPE_TAG = "type"


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def kind(value: Any) -> str:
    names = {type(None): "null", bool: "a boolean", int: "an integer", float: "a number",
             str: "a string", list: "an array", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _optional(hint: Any) -> Any | None:
    """X for ``X | None``; None for any other hint."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        rest = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return None


class DataclassForm:
    """The JSON form of the dataclasses declared in ``module`` (and the modules ``also``, whose
    classes its fields use); ``responses`` are the classes an ``object``-typed field (an Answer's
    response) may hold."""

    def __init__(self, module: types.ModuleType, responses: tuple[type, ...], what: str,
                 also: tuple[types.ModuleType, ...] = ()) -> None:
        self.what = what
        self.classes: dict[str, type] = {}
        for m in (module, *also):
            for name, obj in vars(m).items():
                ours = (isinstance(obj, type) and dataclasses.is_dataclass(obj)
                        and obj.__module__ == m.__name__)
                if ours and self.classes.setdefault(name, obj) is not obj:
                    raise TypeError(f"two classes are named {name}: the type tag would be ambiguous")
        self.responses = responses
        self._hints: dict[type, dict[str, Any]] = {}

    def hints(self, cls: type) -> dict[str, Any]:
        found = self._hints.get(cls)
        if found is None:
            found = typing.get_type_hints(cls)
            self._hints[cls] = found
        return found

    # -- to JSON ----------------------------------------------------------------------------------

    def to_json(self, obj: object, *, tag: bool = True) -> dict[str, Any]:
        cls = type(obj)
        if self.classes.get(cls.__name__) is not cls:
            raise InputError(TYPE_TAG, f"{cls.__qualname__} has no {self.what} JSON form")
        hints = self.hints(cls)
        body = {f.name: self.value_to_json(hints[f.name], getattr(obj, f.name))
                for f in dataclasses.fields(obj)}  # type: ignore[arg-type]
        return {TYPE_TAG: cls.__name__, **body} if tag else body

    def value_to_json(self, hint: Any, value: Any) -> Any:
        if value is None:
            return None
        inner = _optional(hint)
        if inner is not None:
            return self.value_to_json(inner, value)
        if hint is CoordinatorRecord:
            from groupspec.conformance import classic_group_json

            return classic_group_json.to_json(value)
        if hint is object:
            return self.to_json(value)
        if isinstance(value, enum.Enum):
            return value.name
        if hint in (int, str, bool):
            return value
        if typing.get_origin(hint) is tuple:
            items = typing.get_args(hint)
            if len(items) == 2 and items[1] is Ellipsis:
                return [self.value_to_json(items[0], v) for v in value]
            return [self.value_to_json(h, v) for h, v in zip(items, value, strict=True)]
        if dataclasses.is_dataclass(hint):
            return self.to_json(value, tag=False)
        raise TypeError(f"no JSON form for the annotation {hint!r}")

    # -- from JSON --------------------------------------------------------------------------------

    def from_json_as(self, cls: type, doc: Any, path: str = "") -> Any:
        """A ``cls`` object from its JSON form; the ``"type"`` tag is optional but must match."""
        if not isinstance(doc, dict):
            raise InputError(path or "(root)", f"expected an object, got {kind(doc)}")
        tag = doc.get(TYPE_TAG)
        if tag is not None and tag != cls.__name__:
            raise InputError(join(path, TYPE_TAG), f"expected {cls.__name__!r}, got {tag!r}")
        hints = self.hints(cls)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = [k for k in doc if k != TYPE_TAG and k not in fields]
        if unknown:
            raise InputError(join(path, str(unknown[0])),
                             f"not a field of {cls.__name__} (fields: {', '.join(fields)})")
        kwargs: dict[str, Any] = {}
        for name, f in fields.items():
            where = join(path, name)
            if name in doc:
                kwargs[name] = self.value_from_json(hints[name], doc[name], where)
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(where, "missing")
        return cls(**kwargs)

    def tagged_from_json(self, doc: Any, allowed: tuple[type, ...], path: str) -> Any:
        """An object whose ``"type"`` names one of ``allowed``."""
        if not isinstance(doc, dict):
            raise InputError(path or "(root)", f"expected an object, got {kind(doc)}")
        tag = doc.get(TYPE_TAG)
        if not isinstance(tag, str):
            raise InputError(join(path, TYPE_TAG), "missing: this object must name its class")
        cls = self.classes.get(tag)
        if cls is None or cls not in allowed:
            names = ", ".join(c.__name__ for c in allowed)
            raise InputError(join(path, TYPE_TAG), f"{tag!r} is not allowed here (expected one of {names})")
        return self.from_json_as(cls, doc, path)

    def value_from_json(self, hint: Any, value: Any, path: str) -> Any:
        inner = _optional(hint)
        if inner is not None:
            return None if value is None else self.value_from_json(inner, value, path)
        if hint is CoordinatorRecord:
            from groupspec.conformance import classic_group_json

            return classic_group_json.from_json_as(CoordinatorRecord, value, path)
        if hint is object:
            return self.tagged_from_json(value, self.responses, path)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            if not isinstance(value, str) or value not in hint.__members__:
                raise InputError(path, f"expected a {hint.__name__} name, got {value!r}")
            return hint[value]
        if hint is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(path, f"expected an integer, got {kind(value)}")
            return value
        if hint is str:
            if not isinstance(value, str):
                raise InputError(path, f"expected a string, got {kind(value)}")
            return value
        if hint is bool:
            if not isinstance(value, bool):
                raise InputError(path, f"expected a boolean, got {kind(value)}")
            return value
        if typing.get_origin(hint) is tuple:
            if not isinstance(value, list):
                raise InputError(path, f"expected an array, got {kind(value)}")
            items = typing.get_args(hint)
            if len(items) == 2 and items[1] is Ellipsis:
                return tuple(self.value_from_json(items[0], v, join(path, i)) for i, v in enumerate(value))
            if len(value) != len(items):
                raise InputError(path, f"expected {len(items)} items, got {len(value)}")
            return tuple(self.value_from_json(h, v, join(path, i))
                         for i, (h, v) in enumerate(zip(items, value, strict=True)))
        if dataclasses.is_dataclass(hint):
            return self.from_json_as(hint, value, path)  # type: ignore[arg-type]
        raise TypeError(f"no JSON form for the annotation {hint!r}")


def body(doc: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...]) -> dict[str, Any]:
    """A run document's top-level object, its keys checked."""
    if not isinstance(doc, dict):
        raise InputError(path, f"expected an object, got {kind(doc)}")
    unknown = [k for k in doc if k not in allowed]
    if unknown:
        raise InputError(join(path, str(unknown[0])), f"unknown field (expected one of {list(allowed)})")
    for key in required:
        if key not in doc:
            raise InputError(join(path, key), "missing")
    return doc


def array(doc: Any, path: str, item: Callable[[Any, str], Any]) -> tuple[Any, ...]:
    if not isinstance(doc, list):
        raise InputError(path, f"expected an array, got {kind(doc)}")
    return tuple(item(v, join(path, i)) for i, v in enumerate(doc))

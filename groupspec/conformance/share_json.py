"""A lossless JSON form of the share partition vocabulary, for vectors and outside adapters.

The form is read off the declarations in :mod:`groupspec.types.share_partition`, so it cannot
drift from them (docs/conformance.md, "Machine share_partition", states it for adapter writers):

- a dataclass is a JSON object with its attribute names as keys;
- an event, and the response inside an ``Answer``, carry ``"type"``: the class name
  (``"Fetch"``, ``"AcknowledgeResponse"``); elsewhere ``"type"`` may be given and must then
  name the expected class;
- an :class:`~groupspec.types.errors.Errors` or a
  :class:`~groupspec.types.share_partition.RecordState` is its name (``"NONE"``,
  ``"ACKNOWLEDGED"``); a tuple is an array; None is null;
- :func:`to_json` writes every field; reading takes a missing field's default (a field without
  one is required) and refuses unknown fields, wrong types and unknown names with an
  :class:`InputError` naming the JSON path (``events[3].batches[0].types``).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable
from typing import Any

from groupspec.types import share_partition as sp
from groupspec.types.errors import InputError

TYPE_TAG = "type"

CLASSES: dict[str, type] = {
    name: obj for name, obj in vars(sp).items()
    if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == sp.__name__
}
#: The classes an event of a run may be.
EVENT_CLASSES: tuple[type, ...] = typing.get_args(sp.SharePartitionEvent)
#: The classes an Answer's response may be.
RESPONSE_CLASSES: tuple[type, ...] = (sp.FetchResponse, sp.AcknowledgeResponse, sp.ReleaseResponse,
                                      sp.ReloadResponse)
_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    found = _HINTS.get(cls)
    if found is None:
        found = typing.get_type_hints(cls, vars(sp))
        _HINTS[cls] = found
    return found


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
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


# ---------------------------------------------------------------------------------------------
# To JSON
# ---------------------------------------------------------------------------------------------


def to_json(obj: object, *, tag: bool = True) -> dict[str, Any]:
    """``obj`` (a class of :data:`CLASSES`) as a JSON-ready dict, with its ``"type"`` unless
    ``tag`` is false."""
    cls = type(obj)
    if CLASSES.get(cls.__name__) is not cls:
        raise InputError(TYPE_TAG, f"{cls.__qualname__} has no share partition JSON form")
    hints = _hints(cls)
    body = {f.name: _value_to_json(hints[f.name], getattr(obj, f.name))
            for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return {TYPE_TAG: cls.__name__, **body} if tag else body


def _value_to_json(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    inner = _optional(hint)
    if inner is not None:
        return _value_to_json(inner, value)
    if hint is object:
        return to_json(value)
    if isinstance(value, enum.Enum):
        return value.name
    if hint in (int, str, bool):
        return value
    if typing.get_origin(hint) is tuple:
        items = typing.get_args(hint)
        if len(items) == 2 and items[1] is Ellipsis:
            return [_value_to_json(items[0], v) for v in value]
        return [_value_to_json(h, v) for h, v in zip(items, value, strict=True)]
    if dataclasses.is_dataclass(hint):
        return to_json(value, tag=False)
    raise TypeError(f"no JSON form for the annotation {hint!r}")


# ---------------------------------------------------------------------------------------------
# From JSON
# ---------------------------------------------------------------------------------------------


def from_json_as(cls: type, doc: Any, path: str = "") -> Any:
    """A ``cls`` object from its JSON form; the ``"type"`` tag is optional but must match."""
    if not isinstance(doc, dict):
        raise InputError(path or "(root)", f"expected an object, got {_kind(doc)}")
    tag = doc.get(TYPE_TAG)
    if tag is not None and tag != cls.__name__:
        raise InputError(_join(path, TYPE_TAG), f"expected {cls.__name__!r}, got {tag!r}")
    hints = _hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [k for k in doc if k != TYPE_TAG and k not in fields]
    if unknown:
        raise InputError(_join(path, str(unknown[0])),
                         f"not a field of {cls.__name__} (fields: {', '.join(fields)})")
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        where = _join(path, name)
        if name in doc:
            kwargs[name] = _value_from_json(hints[name], doc[name], where)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise InputError(where, "missing")
    return cls(**kwargs)


def tagged_from_json(doc: Any, allowed: tuple[type, ...], path: str) -> Any:
    """An object whose ``"type"`` names one of ``allowed``."""
    if not isinstance(doc, dict):
        raise InputError(path or "(root)", f"expected an object, got {_kind(doc)}")
    tag = doc.get(TYPE_TAG)
    if not isinstance(tag, str):
        raise InputError(_join(path, TYPE_TAG), "missing: this object must name its class")
    cls = CLASSES.get(tag)
    if cls is None or cls not in allowed:
        names = ", ".join(c.__name__ for c in allowed)
        raise InputError(_join(path, TYPE_TAG), f"{tag!r} is not allowed here (expected one of {names})")
    return from_json_as(cls, doc, path)


def _value_from_json(hint: Any, value: Any, path: str) -> Any:
    inner = _optional(hint)
    if inner is not None:
        return None if value is None else _value_from_json(inner, value, path)
    if hint is object:
        return tagged_from_json(value, RESPONSE_CLASSES, path)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        if not isinstance(value, str) or value not in hint.__members__:
            raise InputError(path, f"expected a {hint.__name__} name, got {value!r}")
        return hint[value]
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(path, f"expected an integer, got {_kind(value)}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise InputError(path, f"expected a string, got {_kind(value)}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise InputError(path, f"expected a boolean, got {_kind(value)}")
        return value
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list):
            raise InputError(path, f"expected an array, got {_kind(value)}")
        items = typing.get_args(hint)
        if len(items) == 2 and items[1] is Ellipsis:
            return tuple(_value_from_json(items[0], v, _join(path, i)) for i, v in enumerate(value))
        if len(value) != len(items):
            raise InputError(path, f"expected {len(items)} items, got {len(value)}")
        return tuple(_value_from_json(h, v, _join(path, i)) for i, (h, v) in enumerate(zip(items, value,
                                                                                             strict=True)))
    if dataclasses.is_dataclass(hint):
        return from_json_as(hint, value, path)  # type: ignore[arg-type]
    raise TypeError(f"no JSON form for the annotation {hint!r}")


# ---------------------------------------------------------------------------------------------
# The documents of machine share_partition, handler run
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunInput:
    """A vector's input: the broker config, what the persister holds at the start, the clock at
    start, the log's latest offset (used when the persisted start offset is -1), the events."""

    config: sp.SharePartitionConfig
    persisted: sp.PersistedState
    start_ms: int
    latest_offset: int
    events: tuple[sp.SharePartitionEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    """One Output per event (in event order) and the view after the last."""

    outputs: tuple[sp.Output, ...]
    view: sp.SharePartitionView


def _body(doc: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise InputError(path, f"expected an object, got {_kind(doc)}")
    unknown = [k for k in doc if k not in allowed]
    if unknown:
        raise InputError(_join(path, str(unknown[0])), f"unknown field (expected one of {list(allowed)})")
    for key in required:
        if key not in doc:
            raise InputError(_join(path, key), "missing")
    return doc


def _array(doc: Any, path: str, item: Callable[[Any, str], Any]) -> tuple[Any, ...]:
    if not isinstance(doc, list):
        raise InputError(path, f"expected an array, got {_kind(doc)}")
    return tuple(item(v, _join(path, i)) for i, v in enumerate(doc))


def run_input_to_json(run: RunInput) -> dict[str, Any]:
    return {"config": to_json(run.config, tag=False), "persisted": to_json(run.persisted, tag=False),
            "start_ms": run.start_ms, "latest_offset": run.latest_offset,
            "events": [to_json(e) for e in run.events]}


def run_input_from_json(doc: Any, path: str = "input") -> RunInput:
    body = _body(doc, path, ("config", "persisted", "start_ms", "latest_offset", "events"),
                 required=("events",))
    config = sp.SharePartitionConfig()
    if "config" in body:
        config = from_json_as(sp.SharePartitionConfig, body["config"], _join(path, "config"))
        for f in dataclasses.fields(config):
            if getattr(config, f.name) < 1:
                raise InputError(_join(_join(path, "config"), f.name),
                                 f"must be at least 1, got {getattr(config, f.name)}")
    persisted = sp.PersistedState()
    if "persisted" in body:
        persisted = from_json_as(sp.PersistedState, body["persisted"], _join(path, "persisted"))
    numbers = []
    for name in ("start_ms", "latest_offset"):
        value = _value_from_json(int, body.get(name, 0), _join(path, name))
        if value < 0:
            raise InputError(_join(path, name), f"must not be negative, got {value}")
        numbers.append(value)
    events = _array(body["events"], _join(path, "events"), lambda v, p: tagged_from_json(v, EVENT_CLASSES, p))
    return RunInput(config, persisted, numbers[0], numbers[1], events)


def run_output_to_json(run: RunOutput) -> dict[str, Any]:
    return {"outputs": [to_json(o, tag=False) for o in run.outputs], "view": to_json(run.view, tag=False)}


def run_output_from_json(doc: Any, path: str = "output") -> RunOutput:
    body = _body(doc, path, ("outputs", "view"), required=("outputs", "view"))
    outputs = _array(body["outputs"], _join(path, "outputs"), lambda v, p: from_json_as(sp.Output, v, p))
    view = from_json_as(sp.SharePartitionView, body["view"], _join(path, "view"))
    return RunOutput(outputs, view)

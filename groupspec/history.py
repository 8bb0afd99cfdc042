"""Histories in Jepsen's shape: what clients asked, and what they were told, in order.

Why: a simulation of many clients, a lossy network and crashing brokers cannot be judged step by
step against a model (which request a lost answer belongs to is the point of the exercise); it is
judged afterwards, from what each client saw. Jepsen's histories are the common form for that: a
list of operations, each an ``invoke`` followed (in the same process) by ``ok`` (it happened),
``fail`` (it did not) or ``info`` (unknown: the answer was lost), with the operation's function
and value. groupspec writes them as JSON lines, one operation a line, so any checker (ours or
Knossos / Elle-style tools after a conversion) can read them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from groupspec.types import InputError

TYPES = ("invoke", "ok", "fail", "info")


@dataclass(frozen=True)
class Op:
    """One line of a history. ``value`` is plain JSON data whose shape the function decides."""

    index: int
    time_ms: int
    process: str
    type: str
    f: str
    value: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "time": self.time_ms, "process": self.process, "type": self.type,
                "f": self.f, "value": self.value}


class History:
    """Operations in the order they happened, numbered as they are added."""

    def __init__(self) -> None:
        self.ops: list[Op] = []

    def add(self, time_ms: int, process: str, type_: str, f: str, value: Any = None) -> Op:
        if type_ not in TYPES:
            raise InputError("type", f"one of {', '.join(TYPES)}, got {type_!r}")
        op = Op(len(self.ops), time_ms, process, type_, f, value)
        self.ops.append(op)
        return op

    def __iter__(self) -> Iterator[Op]:
        return iter(self.ops)

    def __len__(self) -> int:
        return len(self.ops)

    def write(self, out: TextIO) -> None:
        for op in self.ops:
            out.write(json.dumps(op.to_json(), separators=(",", ":")) + "\n")


def read_history(lines: Iterable[str]) -> History:
    """A history from JSON lines; a line that is not an operation is an InputError naming it."""
    history = History()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            doc = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(where, f"not JSON: {e.msg}") from None
        if not isinstance(doc, dict):
            raise InputError(where, "expected an object")
        for key, kind in (("time", int), ("process", str), ("type", str), ("f", str)):
            if not isinstance(doc.get(key), kind) or isinstance(doc.get(key), bool):
                raise InputError(f"{where}.{key}", f"expected {kind.__name__}, got {doc.get(key)!r}")
        history.add(doc["time"], doc["process"], doc["type"], doc["f"], doc.get("value"))
    return history

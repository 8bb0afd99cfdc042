"""Judging helpers every machine's judge uses: the Judge record, value diffs, and the
property bookkeeping shared by the stateful machines' judges.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Judge:
    """How a machine's outputs are compared (-> diff lines, empty when equal) and checked
    (-> each listed property that does not hold, with lines saying where it breaks)."""

    compare: Callable[[Any, Any], list[str]]
    violated: Callable[[Any, Any, Sequence[str]], dict[str, list[str]]]
    #: What one diff line counts, for the failure reason ("output differs for 3 member(s)").
    unit: str = "member(s)"


def short(value: Any) -> str:
    from enum import Enum

    if isinstance(value, bytes):
        text = value.hex() or '""'
    elif isinstance(value, Enum):
        text = value.name
    else:
        text = repr(value)
    return text if len(text) <= 160 else text[:160] + "..."


def diff(path: str, want: Any, got: Any, out: list[str]) -> None:
    """Field-by-field differences of two values of the classic vocabulary, as ``path: ...`` lines."""
    import dataclasses

    if want == got:
        return
    if type(want) is not type(got):
        out.append(f"{path}: expected {short(want)}, got {short(got)}")
    elif dataclasses.is_dataclass(want):
        for f in dataclasses.fields(want):
            diff(f"{path}.{f.name}", getattr(want, f.name), getattr(got, f.name), out)
    elif isinstance(want, tuple):
        if len(want) != len(got):
            out.append(f"{path}: expected {len(want)} item(s), got {len(got)}")
        for i, (a, b) in enumerate(zip(want, got, strict=False)):
            diff(f"{path}[{i}]", a, b, out)
    else:
        out.append(f"{path}: expected {short(want)}, got {short(got)}")


def kept(properties: Sequence[str], found: dict[str, list[str]]) -> dict[str, list[str]]:
    """The listed properties among those found broken, each with at most a few places."""
    return {p: [f"{p}: {line}" for line in found[p][:WITNESSES]]
            + ([f"{p}: ... and {len(found[p]) - WITNESSES} more"] if len(found[p]) > WITNESSES else [])
            for p in properties if found.get(p)}


def outputs_per_event(events: int, outputs: int, found: dict[str, list[str]]) -> None:
    if outputs != events:
        found.setdefault("one_answer_each", []).append(f"{outputs} output(s) for {events} event(s)")


def answered_at_once(events: Sequence[Any], outputs: Sequence[Any], responses: dict[type, type],
                      properties: Sequence[str]) -> dict[str, list[str]]:
    """The listed properties that fail, for machines that answer every request in its own step:
    one_answer_each (one output per event; each request answered exactly once, there; nothing
    else answered) and answer_types (each answer of its request's response class)."""
    found: dict[str, list[str]] = {}
    outputs_per_event(len(events), len(outputs), found)
    for k, (event, out) in enumerate(zip(events, outputs, strict=False)):
        wanted = responses.get(type(event))
        answered = [a.request for a in out.answers]
        if answered != ([k] if wanted is not None else []):
            should = f"request {k}" if wanted is not None else "nothing"
            found.setdefault("one_answer_each", []).append(
                f"event {k} ({type(event).__name__}) answered requests {answered}, expected {should}")
        for a in out.answers:
            if wanted is None or type(a.response) is not wanted:
                found.setdefault("answer_types", []).append(
                    f"event {k} ({type(event).__name__}) answered with {type(a.response).__name__}"
                    + (f", expected {wanted.__name__}" if wanted is not None else ""))
    return kept(properties, found)


WITNESSES = 3  # places named per broken property


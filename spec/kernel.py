"""The part of every stateful spec that is the same for each machine, written once.

A machine's spec is three things: a frozen ``State``, a transition table naming the rule that
handles each event in each machine state, and the rules. This module holds what joins them:

* :class:`Step` is one step in progress. It holds the state reached so far (always a frozen
  value; a rule changes it only through :meth:`Step.set`, which builds a new one with
  ``dataclasses.replace``) and what the step emitted (answers to requests, records written).
  The state handed to ``step`` is never touched, so a caller may keep and compare it.
* :class:`Table` maps ``(machine state, event type)`` to a rule. Dispatch reads it, and the
  docs' tables are rendered from it (``groupspec.diagrams``), so the two cannot drift. A row
  keyed by :data:`ANY` holds in every machine state that has no row of its own.
* :func:`put` and :func:`drop` give a changed copy of a mapping held in a frozen state.

Why frozen: a rule that forgot to copy before changing would corrupt the caller's state, and
spec-vs-impl agreement could not see it (both sides would be handed the corrupted value).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

S = TypeVar("S")
K = TypeVar("K")
V = TypeVar("V")

#: The row of a table that applies in every machine state without a row of its own.
ANY = "*"


class Step(Generic[S]):
    """One step's progress: the frozen state so far and what was emitted, in order."""

    def __init__(self, state: S) -> None:
        self.state = state
        self.answers: list[tuple[int, object]] = []
        self.records: list[object] = []

    def set(self, **changes: Any) -> S:
        self.state = replace(self.state, **changes)  # type: ignore[type-var]
        return self.state

    def answer(self, index: int, response: object) -> None:
        self.answers.append((index, response))

    def write(self, record: object) -> None:
        self.records.append(record)


Rule = Callable[..., None]


@dataclass(frozen=True)
class Table:
    """Which rule handles an event type in a machine state: ``rules[(state, event type)]``."""

    name: str
    rules: Mapping[tuple[Hashable, type], Rule]

    def rule(self, state: Hashable, event: object) -> Rule:
        kind = type(event)
        found = self.rules.get((state, kind)) or self.rules.get((ANY, kind))
        if found is None:
            raise LookupError(f"{self.name}: no rule for {kind.__name__} in state {state}")
        return found

    def cells(self) -> Iterator[tuple[Hashable, type, Rule]]:
        """Every row, in the order written (the docs render them in this order)."""
        for (state, kind), rule in self.rules.items():
            yield state, kind, rule

    def event_types(self) -> tuple[type, ...]:
        return tuple(dict.fromkeys(kind for _, kind in self.rules))


def rows(rule: Rule, *kinds: type,
         states: tuple[Hashable, ...] = (ANY,)) -> dict[tuple[Hashable, type], Rule]:
    """Table rows giving ``rule`` for each event type in ``kinds`` in each of ``states``."""
    return {(state, kind): rule for kind in kinds for state in states}


def put(mapping: Mapping[K, V], key: K, value: V) -> dict[K, V]:
    """A copy of ``mapping`` with ``key`` set (last in order if it is new)."""
    out = dict(mapping)
    out[key] = value
    return out


def drop(mapping: Mapping[K, V], *keys: K) -> dict[K, V]:
    """A copy of ``mapping`` without ``keys`` (missing keys are ignored)."""
    return {k: v for k, v in mapping.items() if k not in keys}

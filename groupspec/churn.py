"""The membership churn a simulation follows: who joins, leaves or crashes, and when.

The share-group simulation (``groupspec.simulation``) and the classic-group one
(``groupspec.classic_simulation``) take their plans in this one form and refuse the same
impossible plans the same way; what differs (the classic one's coordinator ``restart``, the
member names its history keeps for itself, how a restarted consumer is told apart) is passed in.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from groupspec.types import InputError


@dataclass(frozen=True)
class Churn:
    """At ``at_ms``, ``member`` joins, leaves (unsubscribes) or crashes (falls silent); in the
    classic simulation the coordinator may also restart."""

    at_ms: int
    member: str
    action: str


def check_plan(plan: Iterable[Churn], *, renamed: str, expected: str, also: Collection[str] = (),
               reserved: Collection[str] = ()) -> None:
    """Refuse a plan no run could follow, naming its entry (``plan[i]``, in time order).

    A member joins once (a consumer that comes back is a new member, under a new ``renamed``)
    and leaves or crashes only after it joined; ``also`` are the simulation's other actions,
    ``expected`` says which actions it takes, ``reserved`` are names its history keeps.
    """
    joined: set[str] = set()
    for i, churn in enumerate(sorted(plan, key=lambda c: c.at_ms)):
        where = f"plan[{i}]"
        if churn.at_ms < 0:
            raise InputError(where, f"at_ms must not be negative, got {churn.at_ms}")
        if churn.action == "join":
            if churn.member in joined:
                raise InputError(where, f"{churn.member!r} joins twice "
                                        f"(a restarted consumer has a new {renamed})")
            if churn.member in reserved:
                raise InputError(where, f"{churn.member!r} is the history's name for the faults")
            joined.add(churn.member)
        elif churn.action in ("leave", "crash"):
            if churn.member not in joined:
                raise InputError(where, f"{churn.member!r} {churn.action}s before it joins")
        elif churn.action not in also:
            raise InputError(where, f"action must be {expected}, got {churn.action!r}")

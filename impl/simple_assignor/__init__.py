"""Share-group assignors, Kafka-shaped.

``assign(group)`` follows groupspec's rules (spec/simple_assignor.py) and gives exactly the spec's
answer, fast. ``assign(group, compat="kafka")`` reproduces Kafka 4.2's SimpleAssignor bit for bit:
Java hash orders, double arithmetic and the quirks listed in docs/divergences.md.
"""

from __future__ import annotations

from typing import Literal

from groupspec.types import AssignorInput, GroupAssignment

Compat = Literal["groupspec", "kafka"]
COMPAT_MODES: tuple[Compat, ...] = ("groupspec", "kafka")


def assign(group: AssignorInput, *, compat: Compat = "groupspec") -> GroupAssignment:
    """Every member's target assignment; the module docstring explains ``compat``."""
    if compat == "groupspec":
        from groupspec.impl.simple_assignor import simple

        return simple.assign(group)
    if compat == "kafka":
        from groupspec.impl.simple_assignor import kafka_compat

        return kafka_compat.assign(group)
    raise ValueError(f"compat: unknown mode {compat!r}; expected one of {COMPAT_MODES}")

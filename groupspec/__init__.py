"""groupspec: an executable specification and reference implementation of Kafka's group protocols.

The library surface, for the share-group SimpleAssignor (docs/machines/simple_assignor.md)::

    from groupspec import AssignorInput, MemberSpec, assign, spec_assign, check_properties

    group = AssignorInput(members=(MemberSpec("a", ("orders",)),), topics={"orders": 2})
    assign(group)                    # the implementation: {'a': {'orders': frozenset({0, 1})}}
    assign(group, compat="kafka")    # Kafka 4.2's exact answer (hash orders, doubles, quirks)
    spec_assign(group)               # the reference model; always equal to assign(group)
    check_properties(group, result)  # each rule of a valid assignment -> bool

Subpackages: ``groupspec.types`` (shared vocabulary), ``groupspec.spec`` (the model),
``groupspec.impl`` (the implementation), ``groupspec.models`` (Z3), ``groupspec.conformance``
(vectors and their runner), ``groupspec.pipeline`` (Spark jobs).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groupspec.impl.simple_assignor import assign
    from groupspec.spec.simple_assignor import assign as spec_assign
    from groupspec.spec.simple_assignor import check_properties, is_valid_assignment
    from groupspec.types import (
        AssignorInput,
        Errors,
        GroupAssignment,
        GroupspecError,
        InputError,
        MemberSpec,
        PartitionAssignorError,
    )

# The library surface is loaded on first use (PEP 562), so that importing the vocabulary
# (`groupspec.types`, `groupspec.types.errors`) costs neither the spec, the impl nor icontract.
_LAZY: dict[str, tuple[str, str]] = {
    "assign": ("groupspec.impl.simple_assignor", "assign"),
    "spec_assign": ("groupspec.spec.simple_assignor", "assign"),
    "check_properties": ("groupspec.spec.simple_assignor", "check_properties"),
    "is_valid_assignment": ("groupspec.spec.simple_assignor", "is_valid_assignment"),
    **{name: ("groupspec.types", name) for name in (
        "AssignorInput", "Errors", "GroupAssignment", "GroupspecError", "InputError", "MemberSpec",
        "PartitionAssignorError")},
}


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'groupspec' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


__version__ = "0.1.0"

__all__ = [
    "AssignorInput",
    "Errors",
    "GroupAssignment",
    "GroupspecError",
    "InputError",
    "MemberSpec",
    "PartitionAssignorError",
    "__version__",
    "assign",
    "check_properties",
    "is_valid_assignment",
    "spec_assign",
]

"""groupspec: an executable specification and reference implementation of Kafka's group protocols.

The library surface, for the share-group SimpleAssignor (docs/assignor.md)::

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

from groupspec.impl.assignors import assign
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

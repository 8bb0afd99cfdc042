"""The shared vocabulary of groupspec: requests, responses, error codes, records, configs.

Frozen data only. The spec, the implementation and the models import from here and from nowhere
else in common, so they share words but never logic.
"""

from groupspec.types.errors import Errors, GroupspecError, InputError, PartitionAssignorError
from groupspec.types.simple_assignor import AssignorInput, GroupAssignment, MemberSpec

__all__ = [
    "AssignorInput",
    "Errors",
    "GroupAssignment",
    "GroupspecError",
    "InputError",
    "MemberSpec",
    "PartitionAssignorError",
]

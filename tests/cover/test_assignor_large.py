"""The implementation's fast paths (closed-form from-empty fill, shared work for topics of the same
shape, untouched balanced topics) agree with the spec on groups far larger than Hypothesis draws."""

from __future__ import annotations

from dataclasses import replace

import pytest

from groupspec.impl.simple_assignor.simple import assign as impl_assign
from groupspec.spec.simple_assignor import assign as spec_assign
from groupspec.spec.simple_assignor import check_properties
from groupspec.types import AssignorInput, MemberSpec

SHAPES = [  # members, topics, partitions per topic, heterogeneous
    (1, 3, 7, False), (7, 1, 29, False), (150, 4, 37, False), (300, 2, 250, False),
    (37, 1, 5, False), (200, 20, 3, False), (120, 10, 41, True), (300, 25, 12, True),
    (64, 5, 64, True), (9, 7, 2, True),
]


def _group(members: int, topics: int, partitions: int, heterogeneous: bool) -> AssignorInput:
    names = [f"t{k}" for k in range(topics)]
    specs = []
    for i in range(members):
        subs = tuple(names[(i % 5)::5] or names) if heterogeneous else tuple(names)
        specs.append(MemberSpec(f"m{i:04d}", subs))
    return AssignorInput(tuple(specs), dict.fromkeys(names, partitions))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_from_empty_then_churn_agrees_with_the_spec(shape):
    group = _group(*shape)
    result = impl_assign(group)
    assert result == spec_assign(group)
    assert all(check_properties(group, result).values())
    # a stable group, then one member added and the first one gone
    stable = tuple(replace(m, assignment=result[m.member_id]) for m in group.members)
    for members in ((*stable, MemberSpec("new", stable[-1].topics)), stable[1:] or stable):
        churned = replace(group, members=members)
        again = impl_assign(churned)
        assert again == spec_assign(churned)
        assert all(check_properties(churned, again).values())

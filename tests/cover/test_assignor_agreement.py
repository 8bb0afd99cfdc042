"""The implementation gives exactly the spec's answer, and the answer is stable.

Stability is a guarantee, not a hope: reassigning with the result as every member's previous
target keeps all of it (the result holds only pool partitions, so nothing is revoked as
stale; it satisfies ``counts`` and ``sharing``, so the trims take nothing; it satisfies
``fill``, so every under-shared partition is already held by every member below its count
and the fill has no taker). So the tests below assert equality, not just validity.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given

from groupspec.impl.simple_assignor import assign as dispatch
from groupspec.impl.simple_assignor.simple import assign as impl_assign
from groupspec.spec.simple_assignor import assign as spec_assign
from groupspec.spec.simple_assignor import check_properties
from groupspec.types import AssignorInput, GroupAssignment
from tests.strategies import groups


def _with_previous(group: AssignorInput, result: GroupAssignment) -> AssignorInput:
    return replace(group, members=tuple(replace(m, assignment=dict(result[m.member_id]))
                                        for m in group.members))


def _agree(group: AssignorInput) -> GroupAssignment:
    expected = spec_assign(group)
    got = impl_assign(group)
    assert got == expected
    assert list(got) == list(expected)  # member order too
    assert all(list(got[m]) == list(expected[m]) for m in got)  # and topic order
    failed = [name for name, ok in check_properties(group, got).items() if not ok]
    assert failed == []
    return got


@given(groups())
def test_impl_matches_spec(group):
    _agree(group)


@given(groups(clean=True))
def test_impl_matches_spec_clean(group):
    _agree(group)


@given(groups())
def test_dispatch_defaults_to_the_canonical_assignor(group):
    assert dispatch(group) == impl_assign(group)


@given(groups())
def test_reassigning_the_result_changes_nothing(group):
    first = _agree(group)
    again = _with_previous(group, first)
    assert _agree(again) == first


@given(groups(clean=True, max_members=6))
def test_impl_does_not_alias_its_input(group):
    before = {m.member_id: dict(m.assignment) for m in group.members}
    impl_assign(group)
    assert {m.member_id: dict(m.assignment) for m in group.members} == before

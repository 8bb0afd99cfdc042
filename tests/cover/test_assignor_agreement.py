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
from groupspec.types import AssignorInput, GroupAssignment, MemberSpec
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


def test_a_repeated_member_id_merges_its_positions_topic_by_topic():
    """Outside the spec's domain (it requires unique ids) but reachable from the library: a
    heterogeneous group naming member A twice. A's positions share one answer, written topic by
    topic in name order and position order, the later position winning (simple.py's
    ``HeterogeneousBuilder.result``). t1 (3 partitions) goes round-robin to positions 0 and 1
    (A 0 and 2, B 1); t2 (2 partitions) to positions 0 and 2 (0, then 1, which wins): A ends
    with t1 0 and 2 and t2 1."""
    group = AssignorInput((MemberSpec("A", ("t1", "t2")), MemberSpec("B", ("t1",)),
                           MemberSpec("A", ("t2",))), {"t1": 3, "t2": 2}, {})
    got = impl_assign(group)
    assert got == {"A": {"t1": frozenset({0, 2}), "t2": frozenset({1})}, "B": {"t1": frozenset({1})}}
    assert list(got["A"]) == ["t1", "t2"]

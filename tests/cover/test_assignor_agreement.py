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


def test_a_repeated_member_id_in_a_homogeneous_group_keeps_the_first_position():
    """The homogeneous builder keys its answer with ``dict(zip(...))``: a repeated id keeps the
    place of its first position and the targets of its last, exactly as the same group with
    the ids made unique would give its last A."""
    group = AssignorInput((MemberSpec("A", ("t",)), MemberSpec("B", ("t",)),
                           MemberSpec("A", ("t",))), {"t": 4}, {})
    unique = replace(group, members=tuple(replace(m, member_id=f"{m.member_id}{k}")
                                          for k, m in enumerate(group.members)))
    apart = impl_assign(unique)
    got = impl_assign(group)
    assert list(got) == ["A", "B"]
    assert got == {"A": apart["A2"], "B": apart["B1"]}


def test_a_repeated_member_id_merges_positions_that_share_no_topic():
    """Heterogeneous, A named twice with disjoint subscriptions (t1 at position 0, t2 at
    position 2) and B on both: A's answer is the union of its positions' topics, each taken
    from the position subscribed to it, so nothing of either position is lost."""
    group = AssignorInput((MemberSpec("A", ("t1",)), MemberSpec("B", ("t1", "t2")),
                           MemberSpec("A", ("t2",))), {"t1": 2, "t2": 2}, {})
    got = impl_assign(group)
    assert got == {"A": {"t1": frozenset({0}), "t2": frozenset({1})},
                   "B": {"t1": frozenset({1}), "t2": frozenset({0})}}
    assert list(got["A"]) == ["t1", "t2"]


def test_untouched_previous_targets_come_back_with_their_topics_in_name_order():
    """A balanced homogeneous group whose previous targets list topic b before a: nothing
    changes, and the targets handed back list a first (simple.py's ``_sorted_copies``)."""
    group = AssignorInput(
        (MemberSpec("A", ("a", "b"), {"b": frozenset({0}), "a": frozenset({0})}),
         MemberSpec("B", ("a", "b"), {"b": frozenset({1}), "a": frozenset({1})}),
         MemberSpec("C", ("a", "b"), {"a": frozenset({2})})), {"a": 3, "b": 2}, {})
    got = _agree(group)
    assert got == {m.member_id: dict(m.assignment) for m in group.members}
    assert [list(targets) for targets in got.values()] == [["a", "b"], ["a", "b"], ["a"]]


def test_a_subscribed_topic_without_partitions_is_left_out_of_the_answer():
    """Heterogeneous and new: topic e has no partitions, so no member gets an entry for it
    (not even an empty one)."""
    group = AssignorInput((MemberSpec("A", ("e", "t")), MemberSpec("B", ("e",))),
                          {"e": 0, "t": 2}, {})
    got = _agree(group)
    assert got == {"A": {"t": frozenset({0, 1})}, "B": {}}


def test_a_partition_every_unfilled_member_holds_leaves_the_cursor_where_it_was():
    """The vector edge_every_unfilled_member_holds_the_partition, in process: m00, m04 and m08
    have room and all hold partition 0 (short of its sharing). The walk gives 0 to nobody and
    leaves the cursor on m00, so partition 3's two free places go to m00 and m04; a walk one
    step too far, or one that never gives up, would hand 0 to a member holding it and use up
    that member's room."""
    from tests.scenarios.simple_assignor.cases import edge_cases

    case = next(c for c in edge_cases() if c.name == "edge_every_unfilled_member_holds_the_partition")
    got = _agree(case.group)
    assert {m: sorted(got[m]["t"]) for m in ("m00", "m04", "m08")} == \
        {"m00": [0, 3], "m04": [0, 3], "m08": [0]}

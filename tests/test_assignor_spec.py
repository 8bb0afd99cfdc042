"""Unit tests of the SimpleAssignor spec: the arithmetic, seed 000's examples, the properties.

The last section is about the tests themselves: a planted bug must make ``check_properties``
fail within the Hypothesis budget, or the property tests elsewhere prove nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from fractions import Fraction
from math import ceil

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from groupspec.spec.simple_assignor import (
    PROPERTIES,
    Pool,
    assign,
    check_properties,
    desired_counts,
    desired_sharing,
    is_valid_assignment,
    pools,
)
from groupspec.types import AssignorInput, GroupAssignment, MemberSpec
from tests.strategies import groups


def _group(n_members: int, partitions: int, **previous: dict[str, frozenset[int]]
           ) -> AssignorInput:
    members = tuple(MemberSpec(f"m{i}", ("t",), previous.get(f"m{i}", {}))
                    for i in range(n_members))
    return AssignorInput(members, {"t": partitions})


def _counts(result: GroupAssignment) -> list[int]:
    return [sum(len(ps) for ps in a.values()) for a in result.values()]


def _holders(result: GroupAssignment, topic: str = "t") -> dict[int, int]:
    holders: dict[int, int] = {}
    for a in result.values():
        for p in a.get(topic, ()):
            holders[p] = holders.get(p, 0) + 1
    return holders


# ---------------------------------------------------------------------------------------------
# Seed 000's worked examples
# ---------------------------------------------------------------------------------------------


def test_seed_three_members_seven_partitions():
    assert desired_sharing(3, 7) == 1
    assert desired_counts(3, 7) == [3, 2, 2]
    result = assign(_group(3, 7))
    assert _counts(result) == [3, 2, 2]
    assert _holders(result) == dict.fromkeys(range(7), 1)


def test_seed_six_members_four_partitions():
    assert desired_sharing(6, 4) == 2
    assert desired_counts(6, 4) == [2, 1, 1, 2, 1, 1]
    result = assign(_group(6, 4))
    assert _counts(result) == [2, 1, 1, 2, 1, 1]
    assert _holders(result) == dict.fromkeys(range(4), 2)


def test_seed_seven_members_three_partitions():
    assert desired_sharing(7, 3) == 3
    result = assign(_group(7, 3))
    assert _holders(result) == dict.fromkeys(range(3), 3)
    assert sorted(_counts(result)) == [1, 1, 1, 1, 1, 2, 2]


def test_exact_arithmetic_where_kafka_drifts():
    # Kafka's doubles give [5, 4, 4, 4, 4, 4, 5] (sum 30) for 7 members and 29 partitions.
    assert desired_counts(7, 29) == [5, 4, 4, 4, 4, 4, 4]


# ---------------------------------------------------------------------------------------------
# desired_sharing and desired_counts against brute force
# ---------------------------------------------------------------------------------------------


def _brute_sharing(n: int, p: int) -> int:
    """The least s with s*P >= N members (0 when there is nothing to share)."""
    if n == 0 or p == 0:
        return 0
    return next(s for s in itertools.count(1) if s * p >= n)


def _brute_counts(n: int, p: int) -> list[int]:
    """Kafka's formula on exact rationals: ceil(x*(i+1)) - ceil(x*i) with x = s*P/N."""
    x = Fraction(_brute_sharing(n, p) * p, n) if n else Fraction(0)
    return [ceil(x * (i + 1)) - ceil(x * i) for i in range(n)]


@pytest.mark.parametrize("n", range(0, 25))
def test_desired_counts_match_brute_force(n):
    for p in range(0, 25):
        assert desired_sharing(n, p) == (_brute_sharing(n, p) if p else 0), (n, p)
        assert desired_counts(n, p) == _brute_counts(n, p), (n, p)


@given(st.integers(1, 2000), st.integers(1, 2000))
def test_desired_counts_are_balanced_and_spread(n, p):
    counts = desired_counts(n, p)
    s = desired_sharing(n, p)
    total = s * p
    assert sum(counts) == total
    assert set(counts) <= {total // n, -(-total // n)}
    assert min(counts) >= 1  # s*P >= N, so nobody is left out
    # Every prefix is as close to its fair share as integers allow: the larger counts are
    # spread out, not bunched at the front.
    prefix = 0
    for i, c in enumerate(counts, start=1):
        prefix += c
        assert 0 <= prefix * n - i * total < n


# ---------------------------------------------------------------------------------------------
# check_properties on hand-made assignments: every property can fail
# ---------------------------------------------------------------------------------------------

FOUR_SHARE_TWO = AssignorInput(  # 4 members, 2 partitions: s = 2, desired [1, 1, 1, 1]
    members=(MemberSpec("a", ("t",)), MemberSpec("b", ("t",)), MemberSpec("c", ("t",)),
             MemberSpec("d", ("t",), {"t": frozenset({1})})),
    topics={"t": 2},
)


def _failing(group: AssignorInput, result: Mapping[str, Mapping[str, frozenset[int]]]
             ) -> set[str]:
    return {name for name, ok in check_properties(group, result).items() if not ok}


def test_valid_assignment_has_every_property():
    two = _group(2, 3)  # desired [2, 1]
    assert _failing(two, {"m0": {"t": frozenset({0, 1})}, "m1": {"t": frozenset({2})}}) == set()
    shared = {"a": {"t": frozenset({0})}, "b": {"t": frozenset({0})},
              "c": {"t": frozenset({1})}, "d": {"t": frozenset({1})}}
    assert _failing(FOUR_SHARE_TWO, shared) == set()
    assert is_valid_assignment(FOUR_SHARE_TWO, shared)


@pytest.mark.parametrize("result", [
    {"m0": {"t": frozenset({0, 1})}},
    {"m0": {"t": frozenset({0, 1})}, "m1": {"t": frozenset({2})}, "m9": {}},
])
def test_invalid_complete(result):
    assert "complete" in _failing(_group(2, 3), result)


@pytest.mark.parametrize("result", [
    {"m0": {"t": frozenset({0, 1})}, "m1": {"t": frozenset({2}), "u": frozenset({0})}},
    {"m0": {"t": frozenset({0, 1, 7})}, "m1": {"t": frozenset({2})}},
])
def test_invalid_subscribed(result):
    group = AssignorInput(_group(2, 3).members, {"t": 3, "u": 1})
    assert _failing(group, result) == {"subscribed"}


def test_invalid_subscribed_not_assignable():
    group = AssignorInput(_group(2, 3).members, {"t": 3}, assignable={"t": frozenset({0, 1})})
    result = {"m0": {"t": frozenset({0})}, "m1": {"t": frozenset({1, 2})}}
    assert "subscribed" in _failing(group, result)


def test_invalid_coverage():
    result = {"m0": {"t": frozenset({0, 1})}, "m1": {}}
    assert _failing(_group(2, 3), result) == {"coverage", "fill"}


def test_invalid_sharing():
    result = {"m0": {"t": frozenset({0, 1})}, "m1": {"t": frozenset({1})}}
    assert "sharing" in _failing(_group(2, 3), result)


def test_invalid_counts():
    result = {"m0": {"t": frozenset({0})}, "m1": {"t": frozenset({1, 2})}}
    assert _failing(_group(2, 3), result) == {"counts"}


def test_invalid_fill():
    # Partition 1 has one holder of two, and c is below its count without it.
    group = AssignorInput((*FOUR_SHARE_TWO.members[:3], MemberSpec("d", ("t",))), {"t": 2})
    result = {"a": {"t": frozenset({0})}, "b": {"t": frozenset({0})},
              "c": {"t": frozenset({1})}, "d": {}}
    assert _failing(group, result) == {"fill"}


def test_invalid_sticky():
    # d held partition 1, is below its count, and partition 1 is below its sharing.
    result = {"a": {"t": frozenset({0})}, "b": {"t": frozenset({0})},
              "c": {"t": frozenset({1})}, "d": {}}
    assert _failing(FOUR_SHARE_TWO, result) == {"fill", "sticky"}


def test_properties_are_the_documented_ones():
    assert set(check_properties(_group(1, 1), assign(_group(1, 1)))) == set(PROPERTIES)


# ---------------------------------------------------------------------------------------------
# The spec on generated groups
# ---------------------------------------------------------------------------------------------


@given(groups())
def test_assign_is_valid(group):
    result = assign(group)
    assert list(result) == list(group.member_ids())
    assert is_valid_assignment(group, result)


@given(groups())
def test_pools_partition_the_subscriptions(group):
    seen: set[tuple[str, int]] = set()
    for pool in pools(group):
        assert not seen & set(pool.partitions)
        seen |= set(pool.partitions)
        assert list(pool.partitions) == sorted(pool.partitions)
        assert list(pool.subscribers) == sorted(pool.subscribers)
    assert all(group.is_assignable(t, p) for t, p in seen)


# ---------------------------------------------------------------------------------------------
# Quality: planted bugs that check_properties must find within the budget
# ---------------------------------------------------------------------------------------------


def _planted(group: AssignorInput, bug: str) -> GroupAssignment:
    """The spec's four phases, rewritten with one deliberate bug (``bug`` names it)."""
    result: dict[str, dict[str, set[int]]] = {m.member_id: {} for m in group.members}
    for pool in pools(group):
        for i, parts in _planted_pool(group, pool, bug).items():
            for topic, p in parts:
                result[group.members[i].member_id].setdefault(topic, set()).add(p)
    return {m: {t: frozenset(ps) for t, ps in a.items()} for m, a in result.items()}


def _planted_pool(group: AssignorInput, pool: Pool, bug: str) -> dict[int, list[tuple[str, int]]]:
    s, desired = pool.sharing, pool.desired()
    held = {i: [tp for tp in pool.partitions
                if tp[1] in group.members[i].assignment.get(tp[0], ())]
            for i in pool.subscribers}
    if bug != "no_member_trim":
        for i in pool.subscribers:
            del held[i][desired[i]:]
    keep = s + 1 if bug == "share_trim_off_by_one" else s
    for tp in pool.partitions:
        for i in [i for i in pool.subscribers if tp in held[i]][keep:]:
            held[i].remove(tp)
    last = -1
    for tp in pool.partitions:
        have = sum(1 for i in pool.subscribers if tp in held[i])
        while have < s:
            takers = [i for i in pool.subscribers
                      if len(held[i]) < desired[i] and tp not in held[i]]
            if not takers:
                break
            later = [i for i in takers if i > last]
            last = later[0] if later else takers[0]
            held[last].append(tp)
            have += 1
            if bug == "fill_once":
                break  # gives up on a partition after its first new holder
    return held


@pytest.mark.parametrize("bug", ["fill_once", "no_member_trim", "share_trim_off_by_one"])
def test_quality_planted_bug_is_found(bug):
    # No shrinking (only finding counts here) and no database (a saved example would find
    # the bug at once even if generation stopped reaching it).
    @settings(phases=[Phase.generate], database=None)
    @given(groups())
    def holds(group):
        assert is_valid_assignment(group, _planted(group, bug))

    with pytest.raises(AssertionError):
        holds()


@pytest.mark.xfail(strict=True, reason="check_properties cannot see lost stickiness: 'sticky' "
                   "is implied by 'fill', and an assignor that ignores previous targets still "
                   "fills everyone (reported to the lead)")
def test_quality_ignoring_previous_targets_is_found():
    @settings(phases=[Phase.generate], database=None)
    @given(groups(clean=True))
    def holds(group):
        forgetful = AssignorInput(tuple(MemberSpec(m.member_id, m.topics) for m in group.members),
                                  group.topics, group.topic_ids, group.assignable)
        assert is_valid_assignment(group, assign(forgetful))

    with pytest.raises(AssertionError):
        holds()

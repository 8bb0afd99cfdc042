"""groupspec.models: the Z3 lemmas, the float finding and the min-moves optimiser.

Each proof must be able to fail: a planted wrong lemma is refuted with a counterexample, and the
Z3 encodings are evaluated against the spec on concrete sizes so a drifting encoding shows up.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.models import assignor_arith as arith
from groupspec.models import assignor_float as flt
from groupspec.models import range_split as split
from groupspec.models.min_moves import is_full, min_moves, moves, solve, valid_prior
from groupspec.spec.classic_assignors import range_counts
from groupspec.spec.simple_assignor import (
    assign,
    check_properties,
    desired_counts,
    desired_sharing,
)
from groupspec.types import AssignorInput, MemberSpec
from tests.strategies import groups

DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"


# --- integer lemmas --------------------------------------------------------------------------


@pytest.mark.parametrize("lemma", arith.LEMMAS, ids=lambda f: f.__name__)
def test_lemma_proved(lemma):
    result = lemma()
    assert result.status == "proved", result
    assert result.seconds < 5


def test_invalid_planted_sum_is_refuted():
    result = arith.lemma_sum(lambda n, p: arith.total(n, p) + 1, name="planted")
    assert result.status == "refuted"
    n, p = result.counterexample["N"], result.counterexample["P"]
    assert sum(desired_counts(n, p)) != desired_sharing(n, p) * p + 1


def test_invalid_planted_bound_is_refuted():
    wrong = arith.Obligation("desired_i <= P - 1", arith.POSITION,
                             arith.desired(arith.N, arith.P, arith.POS_I) <= arith.P - 1,
                             (arith.N, arith.P, arith.POS_I))
    result = arith.check_obligations("planted", "desired_i < P", [wrong])
    assert result.status == "refuted"
    ce = result.counterexample
    assert desired_counts(ce["N"], ce["P"])[ce["i"]] >= ce["P"]


def test_encoding_matches_spec():
    term = arith.desired(arith.N, arith.P, arith.POS_I)
    for n in range(1, 13):
        for p in range(1, 13):
            got = [arith.evaluate(term, N=n, P=p, i=i) for i in range(n)]
            assert got == desired_counts(n, p), (n, p)


# --- float -----------------------------------------------------------------------------------


def test_kafka_formula_reproduces_fact_sheet():
    assert flt.kafka_desired(7, 29) == [5, 4, 4, 4, 4, 4, 5]
    assert flt.exact_desired(7, 29) == [5, 4, 4, 4, 4, 4, 4]
    assert flt.kafka_desired(19, 3)[-1] == 2
    assert flt.kafka_desired(28, 9)[20:22] == [2, 1]


def test_smallest_float_counterexample_matches_brute_force():
    bf = flt.brute_force_smallest()
    assert bf == (19, 3)
    search = flt.z3_smallest(flt.DEFAULT_MAX_SUM, bf)
    assert search.minimal
    assert (search.n, search.p) == bf
    assert search.k is not None and flt.kafka_desired(19, 3) != flt.exact_desired(19, 3)


@pytest.mark.parametrize(("n", "p", "expected"), [
    (19, 3, True), (7, 29, True), (28, 9, True), (18, 3, False), (6, 29, False)])
def test_float_encoding_agrees_with_python_floats(n, p, expected):
    assert (flt.first_difference(n, p) is not None) == expected
    assert flt.z3_pair_differs(n, p) == expected


def test_float_count_matches_cache():
    for bound in (10, 50, 100):
        assert flt.count_differences(bound) == flt.CACHED_COUNTS[bound]


@pytest.mark.skipif(not DEEP, reason="deep profile only (about 30 s)")
def test_float_deep_report():
    report = flt.float_report(deep=True)
    assert report.agrees, report.as_dict()
    assert report.count == 80_777


# --- min moves -------------------------------------------------------------------------------


@given(groups(max_members=8))
def test_min_moves_flow_agrees_with_z3(group):
    flow, exact = solve(group, "flow"), solve(group, "z3")
    assert flow.moves == exact.moves
    assert flow.full and exact.full
    # The optimum minimises total moves but may spread them over other members than the
    # assignor's trims would, so only `sticky` (a per-member retention bound) may fail.
    assert {p for p, ok in check_properties(group, flow.assignment).items() if not ok} <= {"sticky"}
    assert is_full(group, flow.assignment)
    assert moves(group, flow.assignment) == flow.moves


@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_min_moves_flow_agrees_with_z3_on_dense_pools(n, p, data):
    prior = [frozenset(data.draw(st.sets(st.integers(0, p - 1)))) for _ in range(n)]
    group = AssignorInput(tuple(MemberSpec(f"m{i}", ("t",), {"t": prior[i]}) for i in range(n)),
                          {"t": p})
    assert solve(group, "flow").moves == solve(group, "z3").moves


@given(groups(clean=True))
def test_spec_moves_at_least_minimum_when_full(group):
    result = assign(group)
    if is_full(group, result):
        assert moves(group, result) >= min_moves(group)
    assert moves(group, result) <= len(valid_prior(group))


def test_not_full_result_may_beat_the_full_minimum():
    # 3 members, 2 partitions: s = 2, counts [2, 1, 1]. The spec keeps both prior holders of
    # partition 0 and leaves partition 1 with one holder (the tricky case); a full assignment
    # must give member a both partitions, so one of b, c loses partition 0.
    group = AssignorInput((MemberSpec("a", ("t",)),
                           MemberSpec("b", ("t",), {"t": frozenset({0})}),
                           MemberSpec("c", ("t",), {"t": frozenset({0})})), {"t": 2})
    result = assign(group)
    assert not is_full(group, result)
    assert moves(group, result) == 0
    assert min_moves(group) == 1


# --- classic Range's split sizes -------------------------------------------------------------


@pytest.mark.parametrize("lemma", split.LEMMAS, ids=lambda f: f.__name__)
def test_range_split_lemma_proved(lemma):
    result = lemma()
    assert result.status == "proved", result
    assert result.seconds < 5


def test_range_split_encoding_matches_spec():
    term = split.range_count(split.P, split.C, split.POS_I)
    for p in range(0, 25):
        for c in range(1, 13):
            got = [arith.evaluate(term, P=p, C=c, i=i) for i in range(c)]
            assert got == range_counts(p, c), (p, c)


def test_range_split_planted_extra_last_is_refuted():
    """Extra partitions given to the last subscribers: balanced and summing to P, but not Range."""
    for lemma in (split.lemma_extra_first, split.lemma_unique):
        result = lemma(split.extra_last)
        assert result.status == "refuted", result
    ce = split.lemma_extra_first(split.extra_last).counterexample
    wrong = [arith.evaluate(split.extra_last(split.P, split.C, split.POS_I), P=ce["P"], C=ce["C"], i=i)
             for i in range(ce["C"])]
    assert wrong[ce["i"]] < wrong[ce["j"]] and wrong != range_counts(ce["P"], ce["C"])


def test_range_split_planted_round_up_is_refuted():
    """Everyone rounded up (ceil(P/C) each) hands out more partitions than exist."""
    result = split.lemma_sum(lambda p, c, i: (p + c - 1) / c)
    assert result.status == "refuted", result
    p, c = result.counterexample["P"], result.counterexample["C"]
    assert c * -(-p // c) != p

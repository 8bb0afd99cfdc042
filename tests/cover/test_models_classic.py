"""The classic assignors' balance lemmas (models/classic_balance.py) and stickiness against the
minimum (models/classic_moves.py), each tied to the impl's answers on generated groups.

A lemma is only worth as much as the link between its terms and the code: every term is
evaluated against the impl on small sizes, the impl's answers on generated groups are held to
the proved bound, and a planted wrong bound is refuted with numbers the impl then reproduces.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.classic_assignors import assign
from groupspec.impl.classic_assignors.sticky import ConstrainedBuilder
from groupspec.impl.classic_assignors.sticky_racks import RackInfo
from groupspec.models import classic_balance as cb
from groupspec.models import classic_moves as cm
from groupspec.models.assignor_arith import evaluate
from groupspec.spec.classic_assignors import member_order, range_counts
from groupspec.types.classic_assignors import (
    ASSIGNORS,
    COOPERATIVE_STICKY,
    RANGE,
    ROUNDROBIN,
    STICKY,
    STICKY_ASSIGNORS,
    ClassicAssignorInput,
    ClassicMember,
)
from tests.scenarios.classic_assignors.sticky_cases import random_sticky_group

seeds = st.integers(0, 2**32 - 1)


def _group(assignor: str, members: list[tuple[str, tuple[str, ...]]],
           topics: dict[str, int]) -> ClassicAssignorInput:
    return ClassicAssignorInput(assignor, tuple(ClassicMember(m, t) for m, t in members), topics)


def _totals(group: ClassicAssignorInput, answer) -> list[int]:
    """Totals in the spec's member order (the order the proofs' positions mean)."""
    return [len(answer[m.member_id]) for m in member_order(group)]


# --- the lemmas ------------------------------------------------------------------------------


@pytest.mark.parametrize("lemma", cb.LEMMAS, ids=lambda f: f.__name__)
def test_classic_balance_lemma_proved(lemma):
    result = lemma()
    assert result.status == "proved", result
    assert result.seconds < 5


def test_roundrobin_term_matches_impl():
    for p in range(0, 20):
        for m in range(1, 8):
            group = _group(ROUNDROBIN, [(f"m{k}", ("t",)) for k in range(m)], {"t": p})
            want = [evaluate(cb.roundrobin_count(cb.P, cb.M, cb.POS_I), P=p, M=m, i=i) for i in range(m)]
            assert _totals(group, assign(group)) == want == range_counts(p, m), (p, m)


def test_two_member_roundrobin_term_matches_impl():
    for p1 in range(0, 8):
        for p2 in range(0, 8):
            group = _group(ROUNDROBIN, [("a", ("t1", "t2")), ("b", ("t2",))], {"t1": p1, "t2": p2})
            answer = assign(group)
            a, b = cb.roundrobin_two(cb.P1, cb.P2)
            want = (evaluate(a, P1=p1, P2=p2), evaluate(b, P1=p1, P2=p2))
            assert (len(answer["a"]), len(answer["b"])) == want


def test_sticky_quota_terms_match_the_builder():
    for p in range(0, 30):
        for m in range(1, 10):
            group = _group(STICKY, [(f"m{k}", ("t",)) for k in range(m)], {"t": p})
            racks = RackInfo(group, group.members, ("t",))
            builder = ConstrainedBuilder(group, {f"m{k}": [] for k in range(m)}, set(), racks)
            assert builder.min_quota == evaluate(cb.min_quota(cb.P, cb.M), P=p, M=m)
            assert builder.expected_over == evaluate(cb.expected_over(cb.P, cb.M), P=p, M=m)
            assert builder.max_quota == evaluate(cb.max_quota(cb.P, cb.M), P=p, M=m) == -(-p // m)


# --- planted wrong bounds ---------------------------------------------------------------------


def test_planted_roundrobin_within_one_across_subscriptions_is_refuted():
    """'Totals within one' is false once subscriptions differ; the impl reproduces Z3's numbers."""
    result = cb.lemma_roundrobin_two_members(lambda p1, p2: 1)
    assert result.status == "refuted", result
    p1, p2 = result.counterexample["P1"], result.counterexample["P2"]
    answer = assign(_group(ROUNDROBIN, [("a", ("t1", "t2")), ("b", ("t2",))], {"t1": p1, "t2": p2}))
    assert len(answer["a"]) - len(answer["b"]) > 1


def test_planted_range_bound_below_topic_count_is_refuted():
    """Range's imbalance really reaches #topics: '<= T - 1' is refuted, and the impl agrees."""
    result = cb.lemma_range_total_bound(max_t=4, slack=-1)
    assert result.status == "refuted", result
    ce = result.counterexample
    sizes = {f"t{k}": ce[f"P{k}"] for k in range(4) if f"P{k}" in ce}
    c = ce["M"]
    group = _group(RANGE, [(f"m{k}", tuple(sizes)) for k in range(c)], sizes)
    totals = _totals(group, assign(group))
    assert totals[ce["i"]] - totals[ce["j"]] == len(sizes)


def test_planted_round_up_quota_is_refuted():
    """A builder that always added one to the minimum quota would hand out more than P."""
    result = cb.lemma_sticky_quotas(lambda p, m: p / m + 1)
    assert result.status == "refuted", result
    p, m = result.counterexample["P"], result.counterexample["M"]
    assert p % m == 0  # only an exact division tells the two apart


def test_planted_move_between_near_equal_members_lowering_the_score_is_refuted():
    """A move to a member holding one fewer only swaps the two counts: the score stays, which is
    why the general builder's hand-back can leave it where it was."""
    result = cb.lemma_sticky_move_score(max_m=3, gap=1)
    assert result.status == "refuted", result
    ce = result.counterexample
    assert ce["s0"] == ce["s1"] + 1


def test_move_score_term_matches_the_builder():
    from groupspec.impl.classic_assignors.sticky_general import _score

    rnd = random.Random(5)
    for _ in range(200):
        sizes = [rnd.randint(0, 6) for _ in range(rnd.randint(1, 6))]
        assignment = {f"m{k}": [("t", p) for p in range(n)] for k, n in enumerate(sizes)}
        names = [f"s{k}" for k in range(len(sizes))]
        term = cb.balance_score([cb.z3.Int(n) for n in names])
        assert evaluate(term, **dict(zip(names, sizes, strict=True))) == _score(assignment)


def test_planted_extra_last_roundrobin_is_refuted():
    result = cb.lemma_roundrobin_is_range(lambda p, m, i: p / m + cb.z3.If(i >= m - p % m, 1, 0))
    assert result.status == "refuted", result
    ce = result.counterexample
    assert ce["P"] % ce["M"] != 0


# --- the impl's answers obey the proved bounds -------------------------------------------------


def _random_classic(rng: random.Random, assignor: str, same: bool) -> ClassicAssignorInput:
    topics = {f"t{k}": rng.randint(0, 12) for k in range(rng.randint(1, 5))}
    names = sorted(topics)
    members = []
    for k in range(rng.randint(1, 9)):
        subs = tuple(names) if same else tuple(t for t in names if rng.random() < 0.6)
        members.append((f"m{rng.randrange(100)}-{k}", subs))
    return _group(assignor, members, topics)


@given(seeds)
def test_roundrobin_identical_subscriptions_deal_ranges_split(seed):
    group = _random_classic(random.Random(seed), ROUNDROBIN, same=True)
    total = sum(group.topics.values())
    totals = _totals(group, assign(group))
    assert totals == range_counts(total, len(group.members))
    assert max(totals) - min(totals) <= 1


@given(seeds)
def test_roundrobin_differing_subscriptions_balance_each_topic(seed):
    """Across subscriptions nothing is promised, but within one topic its partitions go round its
    subscribers consecutively, so their counts differ by at most one."""
    group = _random_classic(random.Random(seed), ROUNDROBIN, same=False)
    answer = assign(group)
    for topic in group.topics:
        subs = [m.member_id for m in group.members if topic in m.topics]
        per = [sum(1 for t, _ in answer[s] if t == topic) for s in subs]
        assert not per or max(per) - min(per) <= 1, topic


@pytest.mark.parametrize("k", [1, 2, 5])
def test_roundrobin_equal_subscriptions_among_others_are_unbounded(k):
    """Found here: two members with the SAME subscription are not within one once another
    subscription sits between their topics. t0..t(2k) with one partition each, m0 on the odd
    topics, m1 and m2 on the even ones: the even topics all land on m1 (the cursor passes m2 to
    reach m0, then stops at m1), so m1 gets k + 1 and m2 none (smallest case k = 1: 3 members,
    3 partitions, found by exhaustive search over 3 topics of <= 3 partitions)."""
    topics = {f"t{n:02d}": 1 for n in range(2 * k + 1)}  # names sort as numbered
    even = tuple(t for n, t in enumerate(topics) if n % 2 == 0)
    odd = tuple(t for n, t in enumerate(topics) if n % 2 == 1)
    answer = assign(_group(ROUNDROBIN, [("m0", odd), ("m1", even), ("m2", even)], topics))
    assert (len(answer["m1"]), len(answer["m2"])) == (k + 1, 0)


@given(seeds)
def test_range_totals_within_topic_count(seed):
    group = _random_classic(random.Random(seed), RANGE, same=True)
    for compat in ("groupspec", "kafka"):
        totals = _totals(group, assign(group, compat=compat))  # type: ignore[arg-type]
        assert max(totals) - min(totals) <= sum(1 for n in group.topics.values() if n)


@given(seeds, st.sampled_from(STICKY_ASSIGNORS), st.booleans())
def test_sticky_answers_have_the_balanced_shape(seed, assignor, messy):
    group = random_sticky_group(random.Random(seed), assignor, messy)
    total = sum(group.topics.values())
    lo, over = divmod(total, len(group.members))
    hi = lo + (1 if over else 0)
    totals = Counter(len(v) for v in assign(group).values())
    if assignor == STICKY:
        assert set(totals) <= {lo, hi}
        assert (totals[hi] if hi != lo else 0) == over
    else:  # withheld partitions leave members short, never over
        assert max(totals) <= hi


# --- stickiness against the minimum ------------------------------------------------------------


@given(seeds, st.sampled_from(ASSIGNORS))
def test_min_moves_flow_z3_and_closed_form_agree(seed, assignor):
    """Range and RoundRobin read claims from the subscription, as CooperativeSticky does."""
    reader = STICKY if assignor == STICKY else COOPERATIVE_STICKY
    source = random_sticky_group(random.Random(seed), reader, True)
    group = ClassicAssignorInput(assignor, source.members, source.topics)
    flow, z3 = cm.solve(group), cm.solve(group, method="z3")
    assert flow.moves == z3.moves
    assert flow.kept == cm.closed_form_kept(flow.owned, flow.min_quota, flow.expected_over)
    lens = Counter(len(v) for v in flow.assignment.values())
    assert sum(lens.values()) == len(group.members)
    assert sorted(tp for v in flow.assignment.values() for tp in v) == sorted(
        (t, p) for t, n in group.topics.items() for p in range(n))
    assert cm.moves(group, flow.assignment) == flow.moves


@given(seeds, st.sampled_from(STICKY_ASSIGNORS), st.booleans())
def test_sticky_moves_equal_the_minimum_on_any_claims(seed, assignor, messy):
    """The constrained builder is optimal: it keeps min(owned, minQuota) for every member and
    gives the extra places to owners of more than minQuota while any are left."""
    group = random_sticky_group(random.Random(seed), assignor, messy)
    assert cm.moves(group, assign(group)) == cm.solve(group).moves
    if not messy:
        assert cm.moves(group, assign(group, compat="kafka")) == cm.solve(group).moves


@given(seeds, st.sampled_from(STICKY_ASSIGNORS), st.sampled_from(cm.MEASURED),
       st.sampled_from(("groupspec", "kafka")))
def test_sticky_moves_equal_the_minimum_after_a_change(seed, assignor, change, compat):
    row = cm.measure(random.Random(seed), assignor, change, lambda g: assign(g, compat=compat),
                     max_members=12, max_partitions=40)
    assert row.moves == row.min_moves
    assert row.followup_moves == 0


def test_roundrobin_is_not_sticky():
    """The contrast the measurement shows: a join reshuffles RoundRobin far beyond the minimum."""
    rows = [cm.measure(random.Random(k), ROUNDROBIN, "join", assign) for k in range(10)]
    assert sum(r.moves for r in rows) > 2 * sum(r.min_moves for r in rows)


def test_min_moves_refuses_differing_subscriptions():
    group = _group(COOPERATIVE_STICKY, [("a", ("t1",)), ("b", ("t2",))], {"t1": 1, "t2": 1})
    with pytest.raises(cm.InputError, match="members"):
        cm.solve(group)


def test_stickiness_bench_reports_sticky_at_the_minimum():
    """bench/bench_classic_stickiness.py's rows, shrunk: the figures docs quote come from here."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "bench_classic_stickiness.py"
    spec = importlib.util.spec_from_file_location("bench_classic_stickiness", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = bench.run(3, 0, 8, 30, 1, ["groupspec"])
    assert {(r["assignor"], r["change"]) for r in rows} == {(a, c) for a in ASSIGNORS for c in cm.MEASURED}
    for r in rows:
        assert r["cases"] == 3
        if r["assignor"] in STICKY_ASSIGNORS:
            assert r["at_minimum"] == 3 and r["excess_sum"] == 0 and r["followup_moves"] == 0

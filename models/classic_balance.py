"""Z3 proofs of the classic assignors' balance arithmetic: RoundRobin, Range across topics, Sticky.

Theory of operation
-------------------
models/range_split.py proves Range's split of one topic. This module carries the same method
(unbounded integer unknowns, ``hypotheses and not goal`` found unsat, a model reported as a
counterexample) to the other balance claims the classic assignors make or rely on:

* **RoundRobin, identical subscriptions.** Dealing P sorted partitions cyclically to M members
  hands position i the partitions k < P with k mod M = i: ``(P - i + M - 1) div M`` of them.
  ``roundrobin_is_range`` proves that equals Range's ``P div M + [i < P mod M]`` for every P, M
  and i, so range_split's lemmas (floor or ceil, within one, sum to P) carry over; they are also
  run on the RoundRobin term directly.
* **RoundRobin, differing subscriptions.** Kafka promises nothing across members
  (RoundRobinAssignor.java's class comment: skipping members not subscribed to a topic "can
  result in imbalanced assignments"). What does hold, and what the tests check on the impl's
  answers: within one topic its subscribers' counts differ by at most one (its partitions are
  dealt consecutively, so they go round its subscribers in cyclic order). Not even two members
  with the same subscription stay within one: topics of another subscription between theirs move
  the cursor (tests/cover/test_models_classic.py builds m1 with k + 1 partitions and m2, on the
  same topics, with none). Across members with different subscriptions no
  bound in the member count exists: ``roundrobin_two_members`` models A subscribed to t1 and t2,
  B to t2 only (``A = P1 + P2 div 2``, ``B = P2 - P2 div 2`` once t1 has a partition) and proves
  A - B <= P1 + 1 (P1 when t1 has a partition); the planted "within one" is refuted with numbers.
* **Range across topics.** Each topic is balanced within one, but the extra partitions of
  every topic go to the first subscribers in member order, so with T topics and identical
  subscriptions totals differ by up to T. ``range_total_bound`` proves ``total_i - total_j <=
  T`` for T = 1..``RANGE_MAX_T`` (T is the number of unknown topic sizes, so it is bounded;
  P_1..P_T and C are not), and ``range_total_tight`` proves T is reached whenever each topic
  size leaves a remainder (the tests also plant "<= T - 1", which Z3 refutes).
* **Sticky quotas.** The constrained builder (impl/classic_assignors/sticky.py, after
  AbstractStickyAssignor.ConstrainedAssignmentBuilder) computes ``minQuota = P div M``,
  ``expected = P mod M`` members allowed one more, ``maxQuota = minQuota + [expected > 0]``.
  ``sticky_quotas`` proves maxQuota = ceil(P/M), 0 <= expected < M, expected*maxQuota +
  (M - expected)*minQuota = P, and maxQuota - minQuota <= 1; ``sticky_balanced_shape`` proves
  that any M counts summing to P with max - min <= 1 are minQuota or maxQuota with exactly
  ``expected`` at maxQuota (M = 1..``SHAPE_MAX_M``, one unknown per member; P unbounded): the
  balanced answers are exactly those the quotas describe.
* **Sticky moves and the balance score.** The general builder reverts a balancing that ends no
  lower on getBalanceScore (the sum over member pairs of their count difference).
  ``sticky_move_score`` proves a move from count x to count y with x >= y + 2 lowers it by
  2 + 2 * #{others strictly between}, and one with x <= y + 1 never lowers it (M = 2..``MOVE_MAX_M``,
  counts unbounded); the planted "x >= y + 1 lowers it" is refuted.

Every lemma takes its terms as arguments where a test can plant a wrong one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import z3

from groupspec.models.assignor_arith import (
    DEFAULT_TIMEOUT_MS,
    Obligation,
    ProofResult,
    Status,
    check_obligations,
)
from groupspec.models.range_split import lemma_in_floor_or_ceil, lemma_sum, lemma_within_one, range_count

P, M, POS_I, POS_J = z3.Ints("P M i j")
P1, P2 = z3.Ints("P1 P2")
#: Range's total bound is proved for up to this many topics (each topic size is one unknown).
RANGE_MAX_T = 8
#: The balanced-shape lemma is proved for up to this many members (one unknown count each).
SHAPE_MAX_M = 12

SIZES = (P >= 0, M >= 1)
POSITION = (*SIZES, POS_I >= 0, POS_I < M)
TWO_POSITIONS = (*POSITION, POS_J >= 0, POS_J < M)


def roundrobin_count(p: Any, m: Any, i: Any) -> Any:
    """How many of P cyclically dealt partitions land on position i: #{k < P : k mod M = i}."""
    return (p - i + m - 1) / m


def min_quota(p: Any, m: Any) -> Any:
    return p / m


def expected_over(p: Any, m: Any) -> Any:
    return p % m


def max_quota(p: Any, m: Any) -> Any:
    """The builder's ``minQuota + (expected > 0 ? 1 : 0)``."""
    return p / m + z3.If(p % m > 0, 1, 0)


def lemma_roundrobin_is_range(count: Callable[[Any, Any, Any], Any] = roundrobin_count,
                              timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """RoundRobin on identical subscriptions deals exactly Range's split of the total."""
    return check_obligations(
        "roundrobin_is_range", "(P - i + M - 1) div M = P div M + [i < P mod M]",
        [Obligation("rr_i = range_i", POSITION, count(P, M, POS_I) == range_count(P, M, POS_I),
                    (P, M, POS_I))], timeout_ms)


def lemma_roundrobin_split() -> ProofResult:
    """range_split's floor-or-ceil, within-one and sum lemmas, run on the RoundRobin term."""
    parts = [lemma_in_floor_or_ceil(roundrobin_count), lemma_within_one(roundrobin_count),
             lemma_sum(roundrobin_count)]
    status: Status = next((r.status for r in parts if r.status != "proved"), "proved")
    counterexample = next((r.counterexample for r in parts if r.counterexample), None)
    return ProofResult("roundrobin_split", "RoundRobin counts: floor or ceil, within one, sum P",
                       status, sum(r.seconds for r in parts), counterexample,
                       tuple(o for r in parts for o in r.obligations))


def roundrobin_two(p1: Any, p2: Any) -> tuple[Any, Any]:
    """(A, B) for A on t1 and t2, B on t2 only, A first in member order: t1's partitions all go
    to A, leaving the cursor on B when there were any, then t2 alternates from there."""
    b_first = p1 > 0
    a = p1 + z3.If(b_first, p2 / 2, p2 - p2 / 2)
    b = z3.If(b_first, p2 - p2 / 2, p2 / 2)
    return a, b


def lemma_roundrobin_two_members(bound: Callable[[Any, Any], Any] = lambda p1, p2: p1 + 1,
                                 timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """A - B <= bound(P1, P2) and B - A <= 1: the lead grows with the partitions only A takes."""
    a, b = roundrobin_two(P1, P2)
    sizes = (P1 >= 0, P2 >= 0)
    return check_obligations("roundrobin_two_members", "A - B <= P1 + 1 and B - A <= 1", [
        Obligation("A - B <= bound", sizes, a - b <= bound(P1, P2), (P1, P2)),
        Obligation("B - A <= 1", sizes, b - a <= 1, (P1, P2)),
        Obligation("A + B = P1 + P2", sizes, a + b == P1 + P2, (P1, P2)),
    ], timeout_ms)


def _topic_sizes(t: int) -> list[Any]:
    return list(z3.Ints(" ".join(f"P{k}" for k in range(t)))) if t else []


def lemma_range_total_bound(max_t: int = RANGE_MAX_T, slack: int = 0,
                            timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """With T topics all C members subscribe to, two members' totals differ by at most T (+ slack;
    tests plant slack = -1)."""
    obligations = []
    for t in range(1, max_t + 1):
        sizes = _topic_sizes(t)
        hyps = (M >= 1, POS_I >= 0, POS_I < M, POS_J >= 0, POS_J < M, *[s >= 0 for s in sizes])
        diff = z3.Sum([range_count(s, M, POS_I) - range_count(s, M, POS_J) for s in sizes])
        obligations.append(Obligation(f"T = {t}", hyps, diff <= t + slack, (M, POS_I, POS_J, *sizes)))
    return check_obligations("range_total_bound", f"total_i - total_j <= T (T <= {max_t})",
                             obligations, timeout_ms)


def lemma_range_total_tight(max_t: int = RANGE_MAX_T, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """The bound is reached: if every topic size leaves a remainder, the first member has T more
    than the last."""
    obligations = []
    for t in range(1, max_t + 1):
        sizes = _topic_sizes(t)
        hyps = (M >= 1, *[s >= 0 for s in sizes], *[s % M != 0 for s in sizes])
        diff = z3.Sum([range_count(s, M, 0) - range_count(s, M, M - 1) for s in sizes])
        obligations.append(Obligation(f"T = {t}", hyps, diff == t, (M, *sizes)))
    return check_obligations("range_total_tight", "every P_t mod C > 0 => total_0 - total_{C-1} = T",
                             obligations, timeout_ms)


def lemma_sticky_quotas(max_q: Callable[[Any, Any], Any] = max_quota,
                        timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """The builder's quota arithmetic: the counts it aims at are ceil/floor and add up to P."""
    lo, hi, over = min_quota(P, M), max_q(P, M), expected_over(P, M)
    return check_obligations("sticky_quotas", "maxQuota = ceil(P/M); expected*max + (M-expected)*min = P", [
        Obligation("maxQuota = ceil(P/M)", SIZES, hi == -((-P) / M), (P, M)),
        Obligation("0 <= expected < M", SIZES, z3.And(over >= 0, over < M), (P, M)),
        Obligation("expected*max + (M - expected)*min = P", SIZES, over * hi + (M - over) * lo == P, (P, M)),
        Obligation("max - min <= 1", SIZES, z3.And(hi - lo >= 0, hi - lo <= 1), (P, M)),
        Obligation("expected = 0 => max = min", (*SIZES, over == 0), hi == lo, (P, M)),
    ], timeout_ms)


def lemma_sticky_balanced_shape(max_m: int = SHAPE_MAX_M, max_q: Callable[[Any, Any], Any] = max_quota,
                                timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """Counts summing to P, pairwise within one, are the quotas with exactly P mod M at the top."""
    obligations = []
    for m in range(1, max_m + 1):
        xs = list(z3.Ints(" ".join(f"x{k}" for k in range(m))))
        mm = z3.IntVal(m)
        lo, hi = min_quota(P, mm), max_q(P, mm)
        # max - min <= 1 is "every count is L or L + 1" for some L (L = the minimum); stated so,
        # Z3 answers in milliseconds where the M*(M-1) pairwise differences took it minutes.
        low = z3.Int("L")
        hyps = (P >= 0, z3.Sum(xs) == P, low >= 0, *[z3.Or(x == low, x == low + 1) for x in xs])
        goal = z3.And(*[z3.Or(x == lo, x == hi) for x in xs],
                      z3.Sum([z3.If(z3.And(x == hi, hi != lo), 1, 0) for x in xs]) == expected_over(P, mm))
        obligations.append(Obligation(f"M = {m}", hyps, goal, (P, low, *xs)))
    return check_obligations("sticky_balanced_shape",
                             f"balanced counts are min/max quota with P mod M at max (M <= {max_m})",
                             obligations, timeout_ms)


#: The one-move score lemma is proved for groups of up to this many members (one unknown each).
MOVE_MAX_M = 8


def balance_score(sizes: Sequence[Any]) -> Any:
    """getBalanceScore (AbstractStickyAssignor.java): the sum over member pairs of the absolute
    difference of their partition counts."""
    terms = [z3.If(a >= b, a - b, b - a) for i, a in enumerate(sizes) for b in sizes[i + 1:]]
    return z3.Sum(terms) if terms else z3.IntVal(0)


def lemma_sticky_move_score(max_m: int = MOVE_MAX_M, gap: int = 2,
                            timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """Why the general builder's revert needs a hand-back to be reached: a move from a member of
    count x to one of count y with x >= y + ``gap`` lowers the score by 2 + 2 * #{others strictly
    between y and x}, so never less than 2; with x <= y + 1 (what the reverse-pair hand-back of
    PartitionMovements can do, the partition taken from its first source) it never lowers it.
    The revert fires only on a pass ending no lower than it began, so only on a pass with such a
    hand-back (tests/quality/test_sticky_revert_guard.py enumerates the small groups)."""
    obligations = []
    for m in range(2, max_m + 1):
        xs = list(z3.Ints(" ".join(f"s{k}" for k in range(m))))
        giver, taker, others = xs[0], xs[1], xs[2:]
        after = [giver - 1, taker + 1, *others]
        change = balance_score(after) - balance_score(xs)
        flags = [z3.If(z3.And(taker < o, o < giver), 1, 0) for o in others]
        between = z3.Sum(flags) if flags else z3.IntVal(0)
        counts = tuple(x >= 0 for x in xs)
        obligations.append(Obligation(f"M = {m}, x >= y + {gap}", (*counts, giver >= taker + gap),
                                      change == -2 - 2 * between, tuple(xs)))
        obligations.append(Obligation(f"M = {m}, x <= y + 1", (*counts, giver >= 1, giver <= taker + 1),
                                      change >= 0, tuple(xs)))
    return check_obligations("sticky_move_score",
                             f"x >= y + 2 => score drops by 2 + 2 * #between; x <= y + 1 => it does not drop"
                             f" (M <= {max_m})", obligations, timeout_ms)


LEMMAS: tuple[Callable[[], ProofResult], ...] = (
    lemma_roundrobin_is_range, lemma_roundrobin_split, lemma_roundrobin_two_members,
    lemma_range_total_bound, lemma_range_total_tight, lemma_sticky_quotas, lemma_sticky_balanced_shape,
    lemma_sticky_move_score,
)


def prove_all() -> list[ProofResult]:
    return [lemma() for lemma in LEMMAS]


if __name__ == "__main__":
    for result in prove_all():
        print(f"{result.name:24} {result.status:8} {result.seconds:.3f}s  {result.statement}")

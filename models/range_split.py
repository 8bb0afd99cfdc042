"""Z3 proofs that classic Range's split sizes are the only balanced, extra-first split.

Theory of operation
-------------------
Without the rack phase, classic Range gives a topic's P partitions to its C subscribers in
member order, subscriber i taking ``P // C`` partitions plus one when ``i < P % C``
(``groupspec.spec.classic_assignors.range_counts``). The vectors and tests try sizes one at a
time; here P and i are unbounded unknowns (C too, except in the uniqueness lemma), so an
``unsat`` answer covers every topic size at once. The term is written as the spec computes it:
``q, r = divmod(P, C)`` is Z3's ``div``/``mod``, which round down for a positive divisor like
Python's; tests/cover/test_models.py evaluates the term against the spec on small sizes so that
the two cannot drift apart.

The lemmas (each an obligation list, proved by finding ``hypotheses and not goal`` unsat, as in
models/assignor_arith.py, whose checker this module reuses):

* ``in_floor_or_ceil``: every count is ``P // C`` or ``P // C + 1``;
* ``extra_first``: for positions i < j, count_i >= count_j (the longer runs come first);
* ``within_one``: any two counts differ by at most one;
* ``sum``: the counts add up to P. Z3 does no induction, so, as in assignor_arith, the partial
  sum S(k) is an uninterpreted function with three obligations: S(0) = 0, the step
  S(k) = k*q + min(k, r) => S(k+1) = (k+1)*q + min(k+1, r), and the close C*q + min(C, r) = P;
  base and step give the closed form for every k by ordinary induction (the one step taken
  outside Z3);
* ``unique``: any split x_0..x_{C-1} with each x_i in {q, q+1}, non-increasing and summing to P
  is this one. The split is C separate unknowns, so C is bounded (1..``UNIQUE_MAX_C``, one
  obligation per C) while P stays unbounded.

Every lemma takes the split formula as an argument, so a test can plant a wrong one (the extra
partitions given last, or everyone rounded up) and watch Z3 refute it with concrete numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from groupspec.models.assignor_arith import (
    DEFAULT_TIMEOUT_MS,
    Obligation,
    ProofResult,
    check_obligations,
)

P, C, POS_I, POS_J, POS_K = z3.Ints("P C i j k")
#: The largest subscriber count the uniqueness lemma is proved for (its split is C unknowns).
UNIQUE_MAX_C = 16

#: A split formula: (partitions, subscribers, position) -> that position's count, as Z3 terms.
Split = Callable[[Any, Any, Any], Any]


def range_count(p: Any, c: Any, i: Any) -> Any:
    """The spec's ``range_counts(P, C)[i]``: P // C, plus one for the first P % C positions."""
    return p / c + z3.If(i < p % c, 1, 0)


SIZES = (P >= 0, C >= 1)
POSITION = (*SIZES, POS_I >= 0, POS_I < C)
TWO_POSITIONS = (*POSITION, POS_J >= 0, POS_J < C)


def _min(a: Any, b: Any) -> Any:
    return z3.If(a < b, a, b)


def lemma_in_floor_or_ceil(split: Split = range_count, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """Each subscriber gets P // C or one more: Range's promise of balance within a topic."""
    q = P / C
    return check_obligations(
        "in_floor_or_ceil", "every count is P // C or P // C + 1",
        [Obligation("count_i in {q, q+1}", POSITION,
                    z3.Or(split(P, C, POS_I) == q, split(P, C, POS_I) == q + 1), (P, C, POS_I))], timeout_ms)


def lemma_extra_first(split: Split = range_count, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """Earlier subscribers never get fewer than later ones, so the P % C longer runs lead."""
    return check_obligations(
        "extra_first", "i < j => count_i >= count_j",
        [Obligation("count_i >= count_j", (*TWO_POSITIONS, POS_I < POS_J),
                    split(P, C, POS_I) >= split(P, C, POS_J), (P, C, POS_I, POS_J))], timeout_ms)


def lemma_within_one(split: Split = range_count, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """max - min <= 1, stated on any two positions."""
    return check_obligations(
        "within_one", "count_i - count_j <= 1",
        [Obligation("count_i - count_j <= 1", TWO_POSITIONS,
                    split(P, C, POS_I) - split(P, C, POS_J) <= 1, (P, C, POS_I, POS_J))], timeout_ms)


def lemma_sum(split: Split = range_count, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """The counts add up to P: every partition is handed out, none twice (module docstring)."""
    q, r = P / C, P % C
    partial = z3.Function("partial_sum", z3.IntSort(), z3.IntSort())
    closed = POS_K * q + _min(POS_K, r)
    step_hyp = (*SIZES, POS_K >= 0, POS_K < C, partial(POS_K) == closed,
                partial(POS_K + 1) == partial(POS_K) + split(P, C, POS_K))
    return check_obligations("sum", "sum of count_i over the C subscribers = P", [
        Obligation("base: S(0) = 0", SIZES, 0 * q + _min(0, r) == 0, (P, C)),
        Obligation("step: S(k) = k*q + min(k, r) => S(k+1) = (k+1)*q + min(k+1, r)", step_hyp,
                   partial(POS_K + 1) == (POS_K + 1) * q + _min(POS_K + 1, r), (P, C, POS_K)),
        Obligation("close: C*q + min(C, r) = P", SIZES, C * q + _min(C, r) == P, (P, C)),
    ], timeout_ms)


def lemma_unique(split: Split = range_count, max_c: int = UNIQUE_MAX_C,
                 timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """Any split in {q, q+1}, non-increasing, summing to P is ``split``: for C <= max_c, all P."""
    obligations = []
    for c in range(1, max_c + 1):
        xs = z3.Ints(" ".join(f"x{k}" for k in range(c)))
        q = P / c
        hyps = [P >= 0, sum(xs) == P]
        hyps += [z3.Or(x == q, x == q + 1) for x in xs]
        hyps += [xs[k] >= xs[k + 1] for k in range(c - 1)]
        goal = z3.And(*[xs[k] == split(P, z3.IntVal(c), z3.IntVal(k)) for k in range(c)])
        obligations.append(Obligation(f"C = {c}", tuple(hyps), goal, (P, *xs)))
    return check_obligations("unique", f"the only balanced extra-first split with sum P (C <= {max_c})",
                             obligations, timeout_ms)


LEMMAS: tuple[Callable[[], ProofResult], ...] = (
    lemma_in_floor_or_ceil, lemma_extra_first, lemma_within_one, lemma_sum, lemma_unique,
)


def prove_all() -> list[ProofResult]:
    return [lemma() for lemma in LEMMAS]


def extra_last(p: Any, c: Any, i: Any) -> Any:
    """A wrong split for the planted-bug checks: the P % C longer runs given to the last positions."""
    return p / c + z3.If(i >= c - p % c, 1, 0)


if __name__ == "__main__":
    for result in prove_all():
        print(f"{result.name:18} {result.status:8} {result.seconds:.3f}s  {result.statement}")

"""Where Kafka's double-precision count formula departs from exact arithmetic, found with Z3.

Theory of operation
-------------------
Kafka 4.2 computes a member's desired count in IEEE-754 doubles (reference fact sheet §4.2)::

    precise = (s*P) / (double) N                                   // one rounding (RNE)
    desired[i] = (int)ceil(precise*(i+1)) - (int)ceil(precise*i)   // one more per product

The spec uses exact integers (``ceil(sP(i+1)/N) - ceil(sPi/N)``). Both vectors start from the
same boundary ceil(0) = 0 and are differences of consecutive boundaries, so they differ exactly
when some boundary differs: when, for some 1 <= k <= N, ``ceil(fl(fl(sP/N) * k)) != ceil(sPk/N)``.
That single-k condition is what the Z3 query encodes, in the floating-point theory (Float64,
round-nearest-even for the division and the product, round-toward-positive for the ceiling) with
N, P, k as bit-vectors, so Z3 reasons about the very doubles Java computes. Python floats are the
same IEEE doubles with the same operations, so a brute force over Python floats is an
independent check of the encoding.

"Smallest" counterexample means least N + P, ties broken by least N. Z3 finds it by
tightening: ask for any difference lexicographically below the best pair so far, take the model
as the new best, and stop when the question is unsatisfiable, which proves nothing smaller
exists. Seeding the search with the brute force's answer leaves Z3 one confirmation (fast) and
one unsat proof (a few seconds); that is the quick mode CI runs. Counting differences over a
1000 x 1000 grid and the search from scratch are the deep mode.

Floating-point queries are bit-blasted, so the bit-vector widths are sized to the bound in use,
and a fixed tactic pipeline (fpa2bv, bit-blast, SAT) is used: it proved the minimality query
about three times faster than the default solver.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import z3

from groupspec.models.assignor_arith import ProofResult

#: Pairs (N, P) with 1 <= N, P <= bound whose Kafka desired vector differs from the exact one.
#: Computed by ``count_differences`` (the deep mode recomputes and compares); 80,777 for 1000
#: matches the reference fact sheet.
CACHED_COUNTS: dict[int, int] = {10: 0, 50: 81, 100: 465, 200: 2223, 500: 19022, 1000: 80777}

#: The largest K with no difference anywhere in 1 <= N, P <= K (the first is N=19, P=3).
CLEAN_BOX = 18

#: Where the lexicographic search looks by default: N + P <= this.
DEFAULT_MAX_SUM = 40


# ---------------------------------------------------------------------------------------------
# Brute force over Python floats (IEEE doubles, the same operations in the same order)
# ---------------------------------------------------------------------------------------------


def kafka_desired(n: int, p: int) -> list[int]:
    """Kafka's desired vector, double arithmetic, exactly as Java evaluates it."""
    if p == 0:
        return [0] * n
    s = (n + p - 1) // p
    precise = (s * p) / float(n)
    return [math.ceil(precise * float(i + 1)) - math.ceil(precise * float(i)) for i in range(n)]


def exact_desired(n: int, p: int) -> list[int]:
    """The spec's desired vector (exact integers)."""
    from groupspec.spec.simple_assignor import desired_counts

    return desired_counts(n, p)


def first_difference(n: int, p: int) -> int | None:
    """The least k in 1..N where Kafka's boundary ceil(precise*k) is off, or None."""
    s = (n + p - 1) // p
    t = s * p
    precise = t / float(n)
    for k in range(1, n + 1):
        if math.ceil(precise * float(k)) != -(-t * k // n):
            return k
    return None


def brute_force_smallest(max_sum: int = DEFAULT_MAX_SUM) -> tuple[int, int] | None:
    """The smallest differing (N, P) with N + P <= max_sum, by (N + P, N), or None."""
    for pair_sum in range(2, max_sum + 1):
        for n in range(1, pair_sum):
            if first_difference(n, pair_sum - n) is not None:
                return n, pair_sum - n
    return None


def count_differences(bound: int) -> int:
    """How many (N, P) in [1, bound]^2 differ; numpy when available (the 1000 grid takes ~5 s)."""
    try:
        import numpy as np
    except ImportError:  # pure Python: fine for bound <= 200, minutes for 1000
        return sum(1 for n in range(1, bound + 1) for p in range(1, bound + 1)
                   if first_difference(n, p) is not None)
    ps = np.arange(1, bound + 1, dtype=np.int64)
    count = 0
    for n in range(1, bound + 1):
        t = ((n + ps - 1) // ps) * ps
        k = np.arange(1, n + 1, dtype=np.int64)
        floats = np.ceil((t.astype(np.float64) / np.float64(n))[:, None] * k.astype(np.float64))
        exact = -((-t[:, None] * k[None, :]) // n)
        count += int((floats != exact).any(axis=1).sum())
    return count


def difference_kinds(bound: int) -> dict[str, int]:
    """Differing pairs up to ``bound`` by effect on the total: 'sum+1' (last member inflated),
    'same sum' (neighbouring counts swapped), or other."""
    kinds: dict[str, int] = {}
    for n in range(1, bound + 1):
        for p in range(1, bound + 1):
            if first_difference(n, p) is None:
                continue
            excess = sum(kafka_desired(n, p)) - ((n + p - 1) // p) * p
            key = {0: "same sum", 1: "sum+1"}.get(excess, f"sum{excess:+d}")
            kinds[key] = kinds.get(key, 0) + 1
    return kinds


# ---------------------------------------------------------------------------------------------
# Z3, floating-point theory
# ---------------------------------------------------------------------------------------------


def _width(bound: int) -> int:
    # Largest bit-vector value: T*k + N with T < 2*bound and k <= bound; one spare bit.
    return (2 * bound * bound + bound).bit_length() + 1


class _Encoding:
    """N, P, k as bit-vectors below ``bound``, and "Kafka's boundary k is off" as a formula."""

    def __init__(self, bound: int) -> None:
        w = _width(bound)
        self.n, self.p, self.k = z3.BitVecs("N P k", w)
        rne, f64 = z3.RNE(), z3.Float64()

        def to_double(x: Any) -> Any:
            return z3.fpUnsignedToFP(rne, x, f64)

        t = z3.UDiv(self.n + self.p - 1, self.p) * self.p  # s*P, Java int arithmetic
        precise = z3.fpDiv(rne, to_double(t), to_double(self.n))
        product = z3.fpMul(rne, precise, to_double(self.k))
        exact = z3.UDiv(t * self.k + self.n - 1, self.n)  # ceil(sPk/N), exact
        # ceil(product) != exact  <=>  product > exact  or  product <= exact - 1
        self.differs = z3.Or(z3.fpGT(product, to_double(exact)),
                             z3.fpLEQ(product, to_double(exact - 1)))
        self.domain = [z3.ULE(1, self.n), z3.ULE(self.n, bound), z3.ULE(1, self.p),
                       z3.ULE(self.p, bound), z3.ULE(1, self.k), z3.ULE(self.k, self.n)]

    def check(self, *extra: Any) -> tuple[Any, tuple[int, int, int] | None]:
        solver = z3.Then("simplify", "propagate-values", "fpa2bv", "simplify", "solve-eqs",
                         "bit-blast", "sat").solver()
        solver.add(*self.domain, self.differs, *extra)
        answer = solver.check()
        if answer != z3.sat:
            return answer, None
        m = solver.model()
        return answer, (m.eval(self.n).as_long(), m.eval(self.p).as_long(),
                        m.eval(self.k).as_long())


@dataclass(frozen=True)
class SmallestSearch:
    """Z3's answer to "which differing (N, P) is smallest by (N + P, N)?".

    ``minimal`` is True once Z3 proved nothing smaller differs within N + P <= ``max_sum``;
    ``k`` is the boundary Z3's model picked (1 <= k <= N); ``rounds`` counts solver calls.
    """

    n: int | None
    p: int | None
    k: int | None
    minimal: bool
    max_sum: int
    rounds: int
    seconds: float
    hint: tuple[int, int] | None

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "p": self.p, "k": self.k, "minimal": self.minimal,
                "max_sum": self.max_sum, "rounds": self.rounds,
                "seconds": round(self.seconds, 3), "hint": list(self.hint) if self.hint else None}


@lru_cache(maxsize=8)
def z3_smallest(max_sum: int = DEFAULT_MAX_SUM,
                hint: tuple[int, int] | None = None) -> SmallestSearch:
    """Search by lexicographic tightening; ``hint`` (a pair believed to differ) seeds the best.

    Z3 first confirms the hint differs (it is dropped if not), so a wrong hint can cost time
    but never change the answer. Cached: the CLI and the tests ask the same question.
    """
    started = time.perf_counter()
    enc = _Encoding(max_sum)
    n, p = enc.n, enc.p
    in_range = z3.ULE(n + p, max_sum)
    best: tuple[int, int, int] | None = None
    rounds = 0
    if hint is not None:
        rounds += 1
        answer, model = enc.check(n == hint[0], p == hint[1])
        if model is not None:
            best = model
    while True:
        rounds += 1
        below = [] if best is None else [z3.Or(
            z3.ULT(n + p, best[0] + best[1]),
            z3.And(n + p == best[0] + best[1], z3.ULT(n, best[0])))]
        answer, model = enc.check(in_range, *below)
        if model is None:
            minimal = answer == z3.unsat
            break
        best = model
    elapsed = time.perf_counter() - started
    if best is None:
        return SmallestSearch(None, None, None, minimal, max_sum, rounds, elapsed, hint)
    return SmallestSearch(best[0], best[1], best[2], minimal, max_sum, rounds, elapsed, hint)


def z3_pair_differs(n: int, p: int) -> bool:
    """Z3's verdict for one concrete pair (cross-checks the encoding against the brute force)."""
    enc = _Encoding(max(n, p))
    answer, _ = enc.check(enc.n == n, enc.p == p)
    return bool(answer == z3.sat)


def z3_clean_box(bound: int = CLEAN_BOX) -> ProofResult:
    """Prove Kafka's doubles agree with exact arithmetic for every 1 <= N, P <= ``bound``.

    About ten seconds for the default 18 (deep mode); with 19 Z3 returns the pair (19, 3).
    """
    started = time.perf_counter()
    enc = _Encoding(bound)
    answer, model = enc.check()
    elapsed = time.perf_counter() - started
    statement = f"Kafka's double desired vector equals the exact one for all N, P <= {bound}"
    name = f"float_exact_box_{bound}"
    if answer == z3.unsat:
        return ProofResult(name, statement, "proved", elapsed)
    if model is not None:
        return ProofResult(name, statement, "refuted", elapsed,
                           {"N": model[0], "P": model[1], "k": model[2]})
    return ProofResult(name, statement, "unknown", elapsed)


@dataclass(frozen=True)
class FloatReport:
    """Everything the float check found, for the CLI table and its JSON."""

    search: SmallestSearch
    brute_force: tuple[int, int] | None
    count_bound: int
    count: int
    expected_count: int | None
    box: ProofResult | None
    kinds: dict[str, int] | None

    @property
    def agrees(self) -> bool:
        """Z3 and the brute force name the same smallest pair, and the count is as cached."""
        z3_pair = (self.search.n, self.search.p) if self.search.n is not None else None
        return (self.search.minimal and z3_pair == self.brute_force
                and (self.expected_count is None or self.count == self.expected_count)
                and (self.box is None or self.box.proved))

    def as_dict(self) -> dict[str, Any]:
        return {"search": self.search.as_dict(),
                "brute_force": list(self.brute_force) if self.brute_force else None,
                "count_bound": self.count_bound, "count": self.count,
                "expected_count": self.expected_count,
                "box": self.box.as_dict() if self.box else None, "kinds": self.kinds,
                "agrees": self.agrees}


def float_report(deep: bool = False) -> FloatReport:
    """Quick (seconds): seeded Z3 search, brute force and count to 100 against the cache.

    Deep (about half a minute): Z3 from scratch, the clean-box proof, and the 1000 x 1000 count.
    """
    bf = brute_force_smallest(DEFAULT_MAX_SUM)
    search = z3_smallest(DEFAULT_MAX_SUM, None if deep else bf)
    bound = 1000 if deep else 100
    return FloatReport(search, bf, bound, count_differences(bound), CACHED_COUNTS.get(bound),
                       z3_clean_box() if deep else None,
                       difference_kinds(200) if deep else None)

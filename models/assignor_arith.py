"""Z3 proofs of the SimpleAssignor's count arithmetic, for every group size at once.

Theory of operation
-------------------
The spec (``groupspec.spec.simple_assignor``) gives a pool of N members and P partitions the
sharing ``s = ceil(N/P)`` and member position i the count
``desired_i = ceil(s*P*(i+1)/N) - ceil(s*P*i/N)``. Tests can only try sizes one at a time; here
N, P and the position i are unbounded integer unknowns, so an ``unsat`` answer covers every group
there is. The terms are written exactly as the spec computes them: ``s = (N + P - 1) div P`` and
``ceil(a/b) = -((-a) div b)`` (Z3's ``div`` rounds down for a positive divisor, like Python's
``//``), so a mismatch between this encoding and the spec would show up in
tests/cover/test_models.py, which evaluates both on small sizes.

Each lemma is a list of obligations ``hypotheses => goal``; Z3 proves one by finding
``hypotheses and not goal`` unsatisfiable. A satisfying model is a counterexample and is returned,
so a wrong lemma (tests plant one) is refuted with concrete numbers rather than by a timeout.

Why the sum lemma has three obligations: Z3 does not do induction, and "the sum of desired_i
over i < N" is not a term it can reason about for symbolic N. Writing S(i) for the partial sum
(an uninterpreted function), the obligations are the base case S(0) = ceil(0) = 0, the step
S(i) = ceil(sPi/N) => S(i+1) = ceil(sP(i+1)/N), and the closing S(N) = ceil(sPN/N) = sP.
Base and step give S(i) = ceil(sPi/N) for all i by ordinary induction (the one step taken
outside Z3, and a textbook one); the closing turns that into the total.

Everything is integer arithmetic: the setup notes measured these at well under a second each,
where bit-vector encodings were much slower. Kafka's double-precision version of the same
formula does NOT satisfy these lemmas; models/assignor_float.py shows where it departs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import z3

Status = Literal["proved", "refuted", "unknown"]

#: Milliseconds Z3 may spend on one obligation before the lemma is reported "unknown".
DEFAULT_TIMEOUT_MS = 20_000


@dataclass(frozen=True)
class ProofResult:
    """What a proof attempt established, in a form a table or JSON report can print as is.

    ``counterexample`` maps each named unknown to its value when Z3 found the statement false;
    ``obligations`` names the parts proved, for lemmas split into several (the sum lemma).
    """

    name: str
    statement: str
    status: Status
    seconds: float
    counterexample: dict[str, int] | None = None
    obligations: tuple[str, ...] = field(default_factory=tuple)

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "statement": self.statement, "status": self.status,
                "seconds": round(self.seconds, 4), "counterexample": self.counterexample,
                "obligations": list(self.obligations)}


@dataclass(frozen=True)
class Obligation:
    """One ``hypotheses => goal`` check; ``shown`` lists the unknowns a counterexample reports."""

    name: str
    hypotheses: tuple[Any, ...]
    goal: Any
    shown: tuple[Any, ...]


def check_obligations(name: str, statement: str, obligations: Sequence[Obligation],
                      timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """Prove every obligation; the first that fails (or times out) decides the status."""
    started = time.perf_counter()
    for ob in obligations:
        solver = z3.Solver()
        solver.set("timeout", timeout_ms)
        solver.add(*ob.hypotheses)
        solver.add(z3.Not(ob.goal))
        answer = solver.check()
        if answer == z3.sat:
            model = solver.model()
            values = {str(v): model.eval(v, model_completion=True).as_long() for v in ob.shown}
            return ProofResult(name, statement, "refuted", time.perf_counter() - started,
                               values, (ob.name,))
        if answer != z3.unsat:
            return ProofResult(name, statement, "unknown", time.perf_counter() - started,
                               None, (ob.name,))
    return ProofResult(name, statement, "proved", time.perf_counter() - started, None,
                       tuple(ob.name for ob in obligations))


# ---------------------------------------------------------------------------------------------
# The spec's arithmetic as Z3 terms
# ---------------------------------------------------------------------------------------------

N, P, POS_I, POS_J = z3.Ints("N P i j")


def sharing(n: Any, p: Any) -> Any:
    """``desired_sharing``: (N + P - 1) div P, i.e. ceil(N/P) for P >= 1."""
    return (n + p - 1) / p


def ceil_div(a: Any, b: Any) -> Any:
    """The spec's ``_ceil_div``: -((-a) div b)."""
    return -((-a) / b)


def total(n: Any, p: Any) -> Any:
    """s*P: how many (member, partition) slots a pool fills."""
    return sharing(n, p) * p


def boundary(n: Any, p: Any, k: Any) -> Any:
    """ceil(s*P*k/N): the partial sum of the first k counts, if the sum lemma holds."""
    return ceil_div(total(n, p) * k, n)


def desired(n: Any, p: Any, i: Any) -> Any:
    """desired_i = ceil(sP(i+1)/N) - ceil(sPi/N), as ``desired_counts`` computes it."""
    return boundary(n, p, i + 1) - boundary(n, p, i)


SIZES = (N >= 1, P >= 1)
POSITION = (*SIZES, POS_I >= 0, POS_I < N)


# ---------------------------------------------------------------------------------------------
# The lemmas
# ---------------------------------------------------------------------------------------------


def _sum_obligations(claimed_total: Callable[[Any, Any], Any]) -> list[Obligation]:
    partial = z3.Function("partial_sum", z3.IntSort(), z3.IntSort())
    return [
        Obligation("base: S(0) = ceil(0) = 0", SIZES,
                   boundary(N, P, 0) == 0, (N, P)),
        Obligation("step: S(i) = ceil(sPi/N) and S(i+1) = S(i) + desired_i "
                   "=> S(i+1) = ceil(sP(i+1)/N)",
                   (*POSITION, partial(POS_I) == boundary(N, P, POS_I),
                    partial(POS_I + 1) == partial(POS_I) + desired(N, P, POS_I)),
                   partial(POS_I + 1) == boundary(N, P, POS_I + 1), (N, P, POS_I)),
        Obligation("close: S(N) = ceil(sPN/N) = claimed total", SIZES,
                   boundary(N, P, N) == claimed_total(N, P), (N, P)),
    ]


def lemma_sum(claimed_total: Callable[[Any, Any], Any] = total,
              name: str = "sum", statement: str = "sum of desired_i over all N members = s*P",
              timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """(a) Telescoping: the counts add up to s*P, so a full assignment fills every slot.

    ``claimed_total`` exists so a test can plant a wrong total and watch it be refuted.
    """
    return check_obligations(name, statement, _sum_obligations(claimed_total), timeout_ms)


def lemma_floor_or_ceil(timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """(b) Each count is floor(sP/N) or ceil(sP/N): the balance the assignor promises."""
    t = total(N, P)
    return check_obligations(
        "floor_or_ceil", "every desired_i is floor(sP/N) or ceil(sP/N)",
        [Obligation("desired_i in {floor, ceil}", POSITION,
                    z3.Or(desired(N, P, POS_I) == t / N, desired(N, P, POS_I) == ceil_div(t, N)),
                    (N, P, POS_I))], timeout_ms)


def lemma_within_one(timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """(b') Any two members' counts differ by at most one, stated directly on two positions."""
    return check_obligations(
        "within_one", "for any members i, j: desired_i - desired_j <= 1",
        [Obligation("desired_i - desired_j <= 1", (*POSITION, POS_J >= 0, POS_J < N),
                    desired(N, P, POS_I) - desired(N, P, POS_J) <= 1,
                    (N, P, POS_I, POS_J))], timeout_ms)


def lemma_at_least_one(timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """(c) With P >= 1 every member wants at least one partition: nobody is left idle."""
    return check_obligations(
        "at_least_one", "desired_i >= 1 whenever P >= 1",
        [Obligation("desired_i >= 1", POSITION, desired(N, P, POS_I) >= 1, (N, P, POS_I))],
        timeout_ms)


def lemma_at_most_partitions(timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """(d) No member wants more partitions than exist, so a count can be met without repeats."""
    return check_obligations(
        "at_most_partitions", "desired_i <= P",
        [Obligation("desired_i <= P", POSITION, desired(N, P, POS_I) <= P, (N, P, POS_I))],
        timeout_ms)


def lemma_sharing_minimal(timeout_ms: int = DEFAULT_TIMEOUT_MS) -> ProofResult:
    """(d') s is the least sharing that seats everyone, and never more than N.

    (s-1)*P < N <= s*P says s is minimal: one fewer holder per partition would leave a member
    with nothing. s <= N says no partition asks for more holders than there are members.
    """
    s = sharing(N, P)
    return check_obligations(
        "sharing_minimal", "1 <= s <= N and (s-1)*P < N <= s*P",
        [Obligation("s >= 1", SIZES, s >= 1, (N, P)),
         Obligation("(s-1)*P < N", SIZES, (s - 1) * P < N, (N, P)),
         Obligation("N <= s*P", SIZES, s * P >= N, (N, P)),
         Obligation("s <= N", SIZES, s <= N, (N, P))], timeout_ms)


LEMMAS: tuple[Callable[[], ProofResult], ...] = (
    lemma_sum, lemma_floor_or_ceil, lemma_within_one, lemma_at_least_one,
    lemma_at_most_partitions, lemma_sharing_minimal,
)


def prove_all() -> list[ProofResult]:
    """Every lemma of this module, in the order the brief lists them (a, b, b', c, d, d')."""
    return [lemma() for lemma in LEMMAS]


def evaluate(term: Any, **values: int) -> int:
    """The integer value of a term here for concrete sizes (cross-checks against the spec)."""
    subs = [(z3.Int(k), z3.IntVal(v)) for k, v in values.items()]
    result = z3.simplify(z3.substitute(term, *subs))
    value: int = result.as_long()
    return value

"""`groupspec check-assignor`: the SimpleAssignor's proofs, property sweep and stickiness.

One table, one row per check:

* the Z3 lemmas of groupspec.models.assignor_arith (for all N, P, i): ``proved (0.01 s)``;
* every property of ``spec.simple_assignor.PROPERTIES`` on the target's answer for generated
  groups (groupspec.generate): ``held on N cases`` or the first counterexample as
  ``seed``/``index`` plus the shape, enough to rebuild it with ``generate.case``;
* Kafka's double arithmetic against exact arithmetic (groupspec.models.assignor_float);
* moves made against the proved minimum (groupspec.models.min_moves).

Expected findings, which do not fail the command (each row says "finding"):

* the float row: Kafka's doubles differ from exact arithmetic; that is a fact about Kafka, and
  the row fails only if Z3 and the brute force disagree about it;
* under ``--target impl-kafka``, the violations Kafka 4.2 is known to commit (stale partitions
  kept, positions in hash order, counts in doubles, the fill giving up, its
  NoSuchElementException; groupspec.pipeline.expected lists them against the sections of
  docs/divergences.md that explain them).

Everything else failing exits 1: a lemma not proved, a property of the spec or the
implementation violated (or one Kafka is not known to break, under impl-kafka), an exception
that is not Kafka's own, or a full valid result making fewer moves than the proved minimum
(which would mean the optimiser is wrong). The stickiness row is informational otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

TARGETS = ("impl", "spec", "impl-kafka")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", type=int, default=200, help="generated groups to sweep")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--max-members", type=int, default=60,
                        help="largest generated group (default 60)")
    parser.add_argument("--max-partitions", type=int, default=120,
                        help="most partitions in a generated group (default 120)")
    parser.add_argument("--target", choices=TARGETS, default="impl",
                        help="impl (default), spec, or impl-kafka (Kafka's known violations are findings)")
    parser.add_argument("--deep", action="store_true",
                        help="also the 1000x1000 float count, the Z3 search from scratch and "
                        "the clean-box proof (about half a minute)")
    parser.add_argument("--no-moves", action="store_true",
                        help="skip the stickiness row (the min-moves optimiser)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


@dataclass
class Row:
    """One table row; ``ok`` False fails the run unless ``finding`` (an expected finding)."""

    check: str
    result: str
    ok: bool = True
    finding: bool = False
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"check": self.check, "result": self.result, "ok": self.ok,
                "finding": self.finding, "detail": self.detail}


def _assigner(target: str) -> Any:
    from groupspec.spec.simple_assignor import assign as spec_assign

    if target == "spec":
        return spec_assign
    from groupspec.impl.simple_assignor import assign as impl_assign

    if target == "impl-kafka":
        return lambda group: impl_assign(group, compat="kafka")
    return impl_assign


def _proof_rows() -> list[Row]:
    from groupspec.models.assignor_arith import prove_all

    rows = []
    for proof in prove_all():
        if proof.proved:
            text = f"proved ({proof.seconds:.2f} s)"
        elif proof.status == "refuted":
            text = f"refuted: {proof.counterexample}"
        else:
            text = f"unknown after {proof.seconds:.1f} s"
        rows.append(Row(f"lemma {proof.name}: {proof.statement}", text, proof.proved,
                        detail=proof.as_dict()))
    return rows


def _float_row(deep: bool) -> Row:
    from groupspec.models.assignor_float import float_report

    report = float_report(deep)
    s = report.search
    text = (f"differs: smallest N={s.n} P={s.p} (by N+P, then N; Z3 {s.seconds:.1f} s); "
            f"{report.count} pairs differ for N,P <= {report.count_bound}")
    if report.box is not None:
        text += f"; none for N,P <= {report.box.name.rsplit('_', 1)[-1]} ({report.box.status})"
    if not report.agrees:
        text += f"; DISAGREEMENT: brute force says {report.brute_force}, " \
                f"expected count {report.expected_count}"
    return Row("float: Kafka's double desired vs exact", text, report.agrees, True,
               report.as_dict())


def _describe(shape: Any) -> str:
    kind = "hetero" if shape.heterogeneous else "homo"
    prior = shape.prior + (f"/{shape.churn}" if shape.churn else "")
    return (f"{shape.members} members, {shape.topics}x{shape.partitions_per_topic} "
            f"partitions, {kind}, prior {prior}")


def _sweep_rows(args: argparse.Namespace) -> list[Row]:
    from groupspec.generate import cases
    from groupspec.pipeline.expected import (
        DIVERGENCES_DOC,
        expected_exception,
        expected_violation,
        why,
    )
    from groupspec.spec.simple_assignor import PROPERTIES, check_properties

    assign = _assigner(args.target)
    first_failure: dict[str, tuple[int, str]] = {}
    failures = dict.fromkeys(PROPERTIES, 0)
    errors: list[tuple[int, str]] = []
    crashes: list[tuple[int, str]] = []  # Kafka's own exception, reproduced
    sticky = _Stickiness()
    count = 0
    for index, shape, group in cases(args.seed, args.cases, args.max_members,
                                     args.max_partitions):
        count += 1
        try:
            result = assign(group)
        except Exception as exc:  # a crash is a counterexample too (Kafka's NoSuchElement)
            kafka = getattr(exc, "kafka_exception", None)
            named = f"{type(exc).__name__}{f' ({kafka})' if kafka else ''}"
            where = (index, f"{named}: {exc} ({_describe(shape)})")
            (crashes if expected_exception(args.target, exc) else errors).append(where)
            continue
        verdicts = check_properties(group, result)
        for name, ok in verdicts.items():
            if not ok:
                failures[name] += 1
                first_failure.setdefault(name, (index, _describe(shape)))
        if not args.no_moves:
            sticky.add(group, result, verdicts)
    rows = []
    for name in PROPERTIES:
        if name in first_failure:
            index, shape_text = first_failure[name]
            finding = expected_violation(args.target, name)
            text = (f"counterexample: seed={args.seed} index={index} ({shape_text}); "
                    f"{failures[name]} of {count} cases")
            if finding:
                text += f"; expected of Kafka 4.2, {why(name)}"
            rows.append(Row(f"property {name}", text, False, finding,
                            {"failures": failures[name], "cases": count, "index": index}))
        else:
            rows.append(Row(f"property {name}", f"held on {count} cases",
                            detail={"failures": 0, "cases": count}))
    if crashes:
        index, text = crashes[0]
        rows.append(Row("assignor raised Kafka's own exception",
                        f"seed={args.seed} index={index}: {text}; {len(crashes)} of {count} "
                        f"cases; expected of Kafka 4.2, see {DIVERGENCES_DOC}: "
                        "no_such_element_crash", False, True, {"errors": len(crashes)}))
    if errors:
        index, text = errors[0]
        rows.append(Row("assignor raised", f"seed={args.seed} index={index}: {text}; "
                        f"{len(errors)} of {count} cases", False, False,
                        {"errors": len(errors)}))
    if not args.no_moves:
        rows.append(sticky.row(count, args.target))
    return rows


class _Stickiness:
    """Moves each result made against the proved minimum, over the results it bounds.

    The minimum is taken over full assignments that keep the `counts` and `sharing` bounds, so
    it bounds only such results. A result that is not full (the spec's tricky case, Kafka's
    early give-up) may keep more of the prior than any full assignment can, and one that breaks
    `counts` or `sharing` (Kafka's positions in hash order, its double arithmetic) is not a
    valid assignment at all: both are counted apart, and falling below the minimum is expected
    of them. Below the minimum on a full result within the bounds would mean the optimiser is
    wrong; that alone fails the row.
    """

    def __init__(self) -> None:
        self.ratios: list[float] = []
        self.optimal = self.zero_min = self.not_full = self.invalid = self.below_min = 0
        self.below_not_full = self.below_invalid = 0
        self.excess = 0

    def add(self, group: Any, result: Any, verdicts: dict[str, bool]) -> None:
        from groupspec.models.min_moves import is_full, min_moves, moves

        full = is_full(group, result)
        bounded = verdicts["counts"] and verdicts["sharing"]
        if not (full and bounded):
            below = moves(group, result) < min_moves(group)
            if not full:
                self.not_full += 1
                self.below_not_full += below
            else:
                self.invalid += 1
                self.below_invalid += below
            return
        made, least = moves(group, result), min_moves(group)
        self.below_min += made < least
        self.optimal += made == least
        self.excess += max(0, made - least)
        if least == 0:
            self.zero_min += 1
        else:
            self.ratios.append(made / least)

    def row(self, count: int, target: str) -> Row:
        from groupspec.pipeline.expected import DIVERGENCES_DOC, KAFKA_TARGET

        compared = count - self.not_full - self.invalid
        if self.ratios:
            text = (f"moves/min ratio mean {sum(self.ratios) / len(self.ratios):.2f}, "
                    f"max {max(self.ratios):.2f} on {len(self.ratios)} cases with min > 0; ")
        else:
            text = "no case with min > 0; "
        text += (f"optimal on {self.optimal} of {compared} full valid results, "
                 f"{self.excess} extra moves in all; {self.not_full} not full")
        if self.invalid:
            text += f", {self.invalid} full but breaking counts or sharing"
        apart = self.below_not_full + self.below_invalid
        if apart:
            text += (f" ({apart} of those below the minimum, which bounds only full valid "
                     "results")
            text += (f"; expected of Kafka 4.2, see {DIVERGENCES_DOC})" if target == KAFKA_TARGET
                     else ")")
        if self.below_min:
            text += f"; {self.below_min} full valid results BELOW the minimum (optimiser wrong?)"
        return Row("stickiness: moves vs proved minimum", text, self.below_min == 0,
                   detail={"ratios_mean": sum(self.ratios) / len(self.ratios)
                           if self.ratios else None,
                           "ratio_max": max(self.ratios) if self.ratios else None,
                           "optimal": self.optimal, "full": count - self.not_full,
                           "compared": compared, "not_full": self.not_full,
                           "invalid": self.invalid, "zero_min": self.zero_min,
                           "extra_moves": self.excess, "below_min": self.below_min,
                           "below_min_not_full": self.below_not_full,
                           "below_min_invalid": self.below_invalid})


def _print_table(rows: list[Row]) -> None:
    width = max(len(r.check) for r in rows)
    print(f"{'check':<{width}} | result")
    print(f"{'-' * width}-+-{'-' * 40}")
    for r in rows:
        print(f"{r.check:<{width}} | {r.result}{' [finding]' if _is_finding(r) else ''}")


def _is_finding(row: Row) -> bool:
    """Shown as a finding: an expected violation, or the float row's (always expected) news."""
    return row.finding and (not row.ok or row.check.startswith("float"))


def run(args: argparse.Namespace) -> int:
    from groupspec.pipeline.options import at_least

    at_least("--cases", args.cases, 0)
    at_least("--max-members", args.max_members, 1)
    at_least("--max-partitions", args.max_partitions, 1)
    started = time.perf_counter()
    rows = [*_proof_rows(), _float_row(args.deep), *_sweep_rows(args)]
    failed = [r for r in rows if not r.ok and not r.finding]
    code = 1 if failed else 0
    if args.json:
        json.dump({"target": args.target, "seed": args.seed, "cases": args.cases,
                   "rows": [r.as_dict() for r in rows], "exit_code": code,
                   "seconds": round(time.perf_counter() - started, 2)}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(rows)
        print(f"\n{len(rows)} checks, {len(failed)} failed, "
              f"{sum(1 for r in rows if _is_finding(r))} expected findings "
              f"({time.perf_counter() - started:.1f} s)")
    return code

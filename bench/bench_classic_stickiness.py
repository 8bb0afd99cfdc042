"""How many partitions the classic assignors move, against the fewest any balanced answer moves.

For every assignor and change (a member joins, a member leaves, a topic grows; or ``claims``:
no change, but members claiming random unbalanced handfuls), ``--cases``
seeded groups (``groupspec.models.classic_moves.measure``): members on one subscription over
1-4 topics, settled by the assignor itself from empty, put through ``--churn`` random settled
changes, then the measured change; the next answer's moves (prior pairs taken from their valid
owner) beside ``classic_moves.solve``'s minimum. CooperativeSticky's figure is its first round
(the withheld partitions are taken from their owners there); ``followup`` is what its next round
takes away on top (0 when the two-round protocol keeps its promise).

``--big`` adds the bench's 1,000 members x 10,000 partitions (100 topics of 100), settled,
with one member joining: the minimum is 9 moves (each of 1,000 members owns 10; the quotas are
9 and 10 with 991 members at 10).

    python bench/bench_classic_stickiness.py                       # 200 cases each, ~1 min
    python bench/bench_classic_stickiness.py --cases 50 --compat kafka --json

Range and RoundRobin are there for contrast: they do not try to be sticky, and Range's answers
are not balanced across topics (up to #topics apart, models/classic_balance.py), so they can
even come in below the minimum for balanced answers (``below``).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

from groupspec.impl.classic_assignors import Compat, assign
from groupspec.models import classic_moves as cm
from groupspec.types.classic_assignors import ASSIGNORS, ClassicAssignment, ClassicAssignorInput


def _assign_fn(compat: Compat) -> Callable[[ClassicAssignorInput], ClassicAssignment]:
    return lambda group: assign(group, compat=compat)


def run(cases: int, seed: int, max_members: int, max_partitions: int, churn: int,
        compats: list[Compat]) -> list[dict[str, Any]]:
    out = []
    for compat in compats:
        for assignor in ASSIGNORS:
            for change in cm.MEASURED:
                started = time.perf_counter()
                rng = random.Random(f"{seed}-{assignor}-{change}")
                fn = _assign_fn(compat)
                rows = [cm.measure(rng, assignor, change, fn, max_members, max_partitions, churn)
                        for _ in range(cases)]
                summary = dict(cm.summarize(rows))
                summary.update(assignor=assignor, change=change, compat=compat,
                               seconds=round(time.perf_counter() - started, 2))
                out.append(summary)
    return out


def big(compat: Compat) -> list[dict[str, Any]]:
    topics = {f"topic-{k:03d}": 100 for k in range(100)}
    out = []
    for assignor in ASSIGNORS:
        members = tuple(cm.member(assignor, f"member-{k:04d}", sorted(topics)) for k in range(1000))
        group, _ = cm.settle(ClassicAssignorInput(assignor, members, topics), _assign_fn(compat), 1)
        newcomer = cm.member(assignor, "newMember", sorted(topics))
        joined = ClassicAssignorInput(assignor, (*group.members, newcomer), topics)
        started = time.perf_counter()
        made = cm.moves(joined, assign(joined, compat=compat))
        best = cm.solve(joined)
        out.append({"assignor": assignor, "compat": compat, "moves": made, "min_moves": best.moves,
                    "prior": best.prior, "seconds": round(time.perf_counter() - started, 2)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-members", type=int, default=30)
    parser.add_argument("--max-partitions", type=int, default=120)
    parser.add_argument("--churn", type=int, default=2)
    parser.add_argument("--compat", choices=("groupspec", "kafka", "both"), default="both")
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    compats: list[Compat] = ["groupspec", "kafka"] if args.compat == "both" else [args.compat]
    rows = run(args.cases, args.seed, args.max_members, args.max_partitions, args.churn, compats)
    bigs = [r for c in compats for r in big(c)] if args.big else []
    if args.json:
        print(json.dumps({"args": vars(args), "rows": rows, "big": bigs}, indent=1))
        return 0
    print(f"cases={args.cases} seed={args.seed} max_members={args.max_members} "
          f"max_partitions={args.max_partitions} churn={args.churn}")
    print(f"{'compat':9} {'assignor':18} {'change':6} {'at min':>9} {'below':>5} {'moves':>6} {'min':>5} "
          f"{'excess max':>10} {'ratio':>6} {'followup':>8}")
    for r in rows:
        ratio = "-" if r["ratio_mean"] is None else f"{r['ratio_mean']:.2f}"
        print(f"{r['compat']:9} {r['assignor']:18} {r['change']:6} {r['at_minimum']:>4}/{r['cases']:<4} "
              f"{r['below_minimum']:>5} {r['moves_sum']:>6} {r['min_sum']:>5} {r['excess_max']:>10} "
              f"{ratio:>6} {r['followup_moves']:>8}")
    for r in bigs:
        print(f"big 1000x10000 +1 member  {r['compat']:9} {r['assignor']:18} moves {r['moves']:>5}  "
              f"min {r['min_moves']:>3}  ({r['seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

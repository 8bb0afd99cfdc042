"""`groupspec simulate-classic`: seeded end-to-end runs of a classic consumer group, judged.

Why a command: a run that fails in CI is repeated from its seed alone, and its history (JSON
lines, groupspec.history) can be kept and judged again with `groupspec check-history --classic`.
Exit status: 0 every run kept every promise; 1 a run broke one (each printed); 2 bad usage.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys

from groupspec.commands.simulate_delivery import _probability, _whole, _write_history
from groupspec.types import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groupspec.types.classic_assignors import ASSIGNORS

    parser.add_argument("--seed", default="0", metavar="S", help="the first run's seed (default 0)")
    parser.add_argument("--runs", default="1", metavar="N", help="runs with seeds S, S+1, ... (default 1)")
    parser.add_argument("--history", metavar="FILE",
                        help="write the first run's history here as JSON lines ('-' for stdout)")
    parser.add_argument("--assignor", default="range", metavar="NAME",
                        help=f"the consumers' assignor: {', '.join(ASSIGNORS)}, or 'all' to take them "
                             "in turn by seed (default range)")
    parser.add_argument("--consumers", default="4", metavar="N",
                        help="consumers joining at first; each that leaves or crashes is replaced "
                             "(default 4)")
    parser.add_argument("--loss", default="0.05", metavar="P",
                        help="chance that one request or answer is lost while churn lasts (default 0.05)")
    parser.add_argument("--restarts", default="1", metavar="N",
                        help="coordinator restarts per run (default 1)")
    parser.add_argument("--churn-ms", default="20000", metavar="MS",
                        help="the time within which members join, leave and crash (default 20000)")
    parser.add_argument("--layer", default="impl", choices=("impl", "spec"),
                        help="the coordinator: the implementation (default) or the spec")
    parser.add_argument("--ignore", action="append", default=[], metavar="KIND",
                        help="do not count violations of this kind (repeatable), e.g. a known fault")


def run(args: argparse.Namespace) -> int:
    from groupspec.classic_check import KINDS, check
    from groupspec.classic_simulation import ClassicSimConfig, random_plan, simulate
    from groupspec.types.classic_assignors import ASSIGNORS

    seed = _whole("--seed", args.seed, 0)
    runs = _whole("--runs", args.runs, 1)
    consumers = _whole("--consumers", args.consumers, 1)
    restarts = _whole("--restarts", args.restarts, 0)
    churn_ms = _whole("--churn-ms", args.churn_ms, 2)
    loss = _probability("--loss", args.loss)
    if args.assignor != "all" and args.assignor not in ASSIGNORS:
        raise InputError("--assignor", f"one of {', '.join(ASSIGNORS)} or all, got {args.assignor!r}")
    for kind in args.ignore:
        if kind not in KINDS:
            raise InputError("--ignore", f"one of {', '.join(KINDS)}, got {kind!r}")
    out = sys.stderr if args.history == "-" else sys.stdout
    broken = 0
    for s in range(seed, seed + runs):
        assignor = ASSIGNORS[s % len(ASSIGNORS)] if args.assignor == "all" else args.assignor
        plan = random_plan(random.Random(s), consumers, churn_ms, restarts)
        config = ClassicSimConfig(plan=plan, assignor=assignor, seed=s, loss=loss)
        history, stats = simulate(config, args.layer)
        if s == seed and args.history is not None:
            _write_history(history, args.history)
        violations = [v for v in check(history) if v.kind not in args.ignore]
        broken += bool(violations)
        for v in violations:
            print(json.dumps({"seed": s, "kind": v.kind, "op": v.op, "detail": v.detail}), file=out)
        settled = None if stats.settled_at_ms is None else stats.settled_at_ms - max(c.at_ms for c in plan)
        print(json.dumps({"seed": s, "assignor": assignor, "ops": len(history), "violations": len(violations),
                          "settled_after_ms": settled, **dataclasses.asdict(stats)}), file=out)
    print(f"{runs - broken} of {runs} runs kept every promise", file=out)
    return 1 if broken else 0

"""`groupspec simulate-delivery`: seeded end-to-end share-group delivery runs, judged per record.

Why a command: a run that fails in CI is repeated from its seed alone, and its history (JSON
lines, groupspec.history) can be kept and read by `groupspec check-history` or other tools.
Exit status: 0 every run kept every promise; 1 a run broke one (each printed); 2 bad usage.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from groupspec.types import InputError

if TYPE_CHECKING:
    from groupspec.history import History


def _whole(option: str, text: str, lowest: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InputError(option, f"{text!r} is not a whole number") from None
    if value < lowest:
        raise InputError(option, f"{value} is below {lowest}")
    return value


def _probability(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(option, f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise InputError(option, f"a probability in 0..1, got {value}")
    return value


def _write_history(history: History, target: str) -> None:
    """``--history``: '-' is stdout; a file that cannot be written is a usage error, not a traceback."""
    if target == "-":
        history.write(sys.stdout)
        return
    try:
        with Path(target).open("w", encoding="utf-8") as f:
            history.write(f)
    except OSError as e:
        raise InputError("--history", f"cannot write {target}: {e.strerror}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", default="0", metavar="S", help="the first run's seed (default 0)")
    parser.add_argument("--runs", default="1", metavar="N", help="runs with seeds S, S+1, ... (default 1)")
    parser.add_argument("--history", metavar="FILE",
                        help="write the first run's history here as JSON lines ('-' for stdout)")
    parser.add_argument("--consumers", default="4", metavar="N", help="share consumers (default 4)")
    parser.add_argument("--crashes", default="2", metavar="N",
                        help="broker crash-restarts per run (default 2)")
    parser.add_argument("--loss", default="0.05", metavar="P",
                        help="chance that one request or answer is lost (default 0.05)")
    parser.add_argument("--batches", default="60", metavar="N", help="batches produced per run (default 60)")
    parser.add_argument("--renew", default=None, metavar="P",
                        help="explicit consumers' chance to RENEW a held record first "
                             "(default: the simulation's, DeliverySimConfig.renew)")


def run(args: argparse.Namespace) -> int:
    from groupspec.delivery_simulation import DeliverySimConfig, simulate
    from groupspec.share_delivery_check import check

    seed = _whole("--seed", args.seed, 0)
    runs = _whole("--runs", args.runs, 1)
    base = DeliverySimConfig(consumers=_whole("--consumers", args.consumers, 1),
                             crashes=_whole("--crashes", args.crashes, 0),
                             loss=_probability("--loss", args.loss),
                             batches=_whole("--batches", args.batches, 0))
    if args.renew is not None:
        base = dataclasses.replace(base, renew=_probability("--renew", args.renew))
    out = sys.stderr if args.history == "-" else sys.stdout
    broken = 0
    for s in range(seed, seed + runs):
        config = dataclasses.replace(base, seed=s)
        history, stats = simulate(config)
        if s == seed and args.history is not None:
            _write_history(history, args.history)
        violations = check(history, config.delivery_limit)
        broken += bool(violations)
        for v in violations:
            print(json.dumps({"seed": s, "kind": v.kind, "record": v.record, "op": v.op, "detail": v.detail}),
                  file=out)
        print(json.dumps({"seed": s, "ops": len(history), "violations": len(violations),
                          **dataclasses.asdict(stats)}), file=out)
    print(f"{runs - broken} of {runs} runs kept every promise", file=out)
    return 1 if broken else 0

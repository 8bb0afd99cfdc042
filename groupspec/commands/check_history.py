"""`groupspec check-history FILE`: the share-delivery checker (or, with ``--classic``, the classic
consumer group's, groupspec.classic_check) on a history of JSON lines.

Why: a history written by `groupspec simulate-delivery`, kept from a CI failure, or converted from
a real cluster's clients is judged without re-running anything. Exit status: 0 it keeps every
promise; 1 it breaks one (each printed as a JSON line); 2 bad usage or a line that is not an
operation (the error names the line).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from groupspec.types import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="FILE", help="a history, one operation a JSON line ('-' for stdin)")
    parser.add_argument("--delivery-limit", default="4", metavar="N",
                        help="the group's delivery count limit (default 4, the simulation's)")
    parser.add_argument("--classic", action="store_true",
                        help="judge a classic consumer group's history (groupspec simulate-classic)")


def run(args: argparse.Namespace) -> int:
    from groupspec.history import read_history
    from groupspec.share_delivery_check import check

    try:
        limit = int(args.delivery_limit)
    except ValueError:
        raise InputError("--delivery-limit", f"{args.delivery_limit!r} is not a whole number") from None
    if args.path == "-":
        history = read_history(sys.stdin)
    else:
        try:
            with Path(args.path).open(encoding="utf-8") as f:
                history = read_history(f)
        except OSError as e:
            raise InputError("FILE", f"cannot read {args.path}: {e.strerror}") from None
        except UnicodeDecodeError:
            raise InputError("FILE", f"{args.path} is not UTF-8 text") from None
    if args.classic:
        from groupspec.classic_check import check as check_classic

        found = check_classic(history)
        for c in found:
            print(json.dumps({"kind": c.kind, "op": c.op, "detail": c.detail}))
        print(f"{len(history)} operations, {len(found)} broken promises", file=sys.stderr)
        return 1 if found else 0
    violations = check(history, limit)
    for v in violations:
        print(json.dumps({"kind": v.kind, "record": v.record, "op": v.op, "detail": v.detail}))
    print(f"{len(history)} operations, {len(violations)} broken promises", file=sys.stderr)
    return 1 if violations else 0

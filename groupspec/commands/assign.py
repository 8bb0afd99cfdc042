"""`groupspec assign FILE|-`: a share group's target assignment, JSON in and JSON out.

The whole input is read and validated, and the whole answer computed, before a byte is written,
so a failure prints one error line to stderr and nothing to stdout.

Exit status (docs/cli.md): 0 answered; 1 the assignor refused the group, which only Kafka's
exact mode does (it reproduces the Java exception Kafka's SimpleAssignor throws, and the line
names it); 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

from groupspec.types import InputError, PartitionAssignorError

TARGETS = ("impl", "spec", "impl-kafka")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE|-", help="the group as JSON (docs/cli.md); - for stdin")
    parser.add_argument("--target", choices=TARGETS, default="impl",
                        help="impl: the implementation (default); spec: the reference model; "
                        "impl-kafka: the implementation reproducing Kafka 4.2 exactly")
    parser.add_argument("--indent", type=int, default=None, help="pretty-print with this indent")
    parser.add_argument("--strict", action="store_true",
                        help="refuse a subscription to a topic missing from `topics` (by default "
                        "it is assigned nothing, as in Kafka, with a warning on stderr)")


def read_source(name: str) -> str:
    """The text of FILE, or of stdin for '-', as an InputError when it cannot be read."""
    if name == "-":
        return sys.stdin.read()
    try:
        with open(name, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None
    except UnicodeDecodeError:
        raise InputError(name, "not UTF-8 text") from None


def run(args: argparse.Namespace) -> int:
    from groupspec.group_json import assignment_to_json, group_from_json, loads
    from groupspec.impl.assignors import assign as impl_assign
    from groupspec.spec.simple_assignor import assign as spec_assign

    source = "stdin" if args.file == "-" else args.file
    warnings: list[str] = []
    group = group_from_json(loads(read_source(args.file), source), strict_topics=args.strict,
                            warn=warnings.append)
    for line in warnings:
        print(f"groupspec assign: warning: {line}", file=sys.stderr)
    if args.target == "spec":
        result = spec_assign(group)
    elif args.target == "impl-kafka":
        try:
            result = impl_assign(group, compat="kafka")
        except PartitionAssignorError as exc:
            print(f"groupspec assign: Kafka's SimpleAssignor throws {exc.kafka_exception} on this "
                  f"group ({exc}); the coordinator answers UNKNOWN_SERVER_ERROR. See "
                  "docs/divergences.md; --target impl gives groupspec's answer.", file=sys.stderr)
            return 1
    else:
        result = impl_assign(group)
    text = json.dumps(assignment_to_json(result), indent=args.indent)
    sys.stdout.write(text + "\n")
    return 0

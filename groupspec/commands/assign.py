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
    parser.add_argument("--max-partitions", type=int, default=None, metavar="N",
                        help="the most partitions the group's topics may have in all "
                        "(default 1,000,000; each costs memory and time)")


def read_source(name: str) -> bytes:
    """The bytes of FILE, or of stdin for '-', as an InputError when they cannot be read.

    Bytes, not text: the JSON reader checks they are UTF-8 the same way for a file and for
    stdin (a text stdin would have replaced bad bytes with other characters).
    """
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        with open(name, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from groupspec.group_json import MAX_PARTITIONS, assignment_to_json, group_from_json, loads
    from groupspec.impl.simple_assignor import assign as impl_assign
    from groupspec.spec.simple_assignor import assign as spec_assign

    max_partitions = MAX_PARTITIONS if args.max_partitions is None else args.max_partitions
    if max_partitions < 1:
        raise InputError("--max-partitions", f"must be at least 1, got {max_partitions}")
    source = "stdin" if args.file == "-" else args.file
    warnings: list[str] = []
    group = group_from_json(loads(read_source(args.file), source), strict_topics=args.strict,
                            warn=warnings.append, max_partitions=max_partitions)
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

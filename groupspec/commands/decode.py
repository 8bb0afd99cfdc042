"""`groupspec decode PATH...`: the records of `__consumer_offsets` / `__share_group_state` as JSON lines.

Why a tool of our own: Kafka's `kafka-dump-log --offsets-decoder` needs a Kafka installation and
breaks on record versions it does not know; third-party decoders broke when 4.1 started writing
OffsetCommitValue v4. This one is the project's codec, so whatever groupspec can replay it can
print, and a bad record is kept (quarantined with its bytes and the reason) instead of ending the
run. See docs/records.md for the output fields.

Exit status: 0 everything decoded (a partial batch at a segment's end is a warning, as in Kafka);
1 some records were quarantined; 2 bad usage or, with --strict, the first bad record.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="a segment file (*.log) or a partition directory such as "
                        "__consumer_offsets-27/")
    parser.add_argument("--topic", choices=("__consumer_offsets", "__share_group_state"),
                        help="which topic the files belong to, when the directory name does not say")
    parser.add_argument("--group", action="append", default=[], metavar="GROUP",
                        help="only records of this group id (repeatable)")
    parser.add_argument("--type", action="append", default=[], metavar="TYPE", dest="types",
                        help="only records of this type, by name (OffsetCommit) or id (repeatable)")
    parser.add_argument("--strict", action="store_true",
                        help="stop at the first bad record instead of quarantining it")
    parser.add_argument("--bytes", choices=("hex", "base64"), default="hex",
                        help="how quarantined raw bytes are printed (default hex)")
    parser.add_argument("--no-consumer-protocol", action="store_true",
                        help="leave classic members' subscription/assignment bytes undecoded")
    parser.add_argument("--control", action="store_true",
                        help="also print control records (transaction markers)")


def run(args: argparse.Namespace) -> int:
    from groupspec.impl.codec.log_reader import LogReadOptions, read_logs

    options = LogReadOptions(
        topic=args.topic,
        groups=frozenset(args.group),
        types=tuple(args.types),
        strict=args.strict,
        raw_bytes=args.bytes,
        consumer_protocol=not args.no_consumer_protocol,
        control=args.control,
    )
    out = sys.stdout
    report = read_logs(args.paths, options, emit=lambda doc: _write(out, doc),
                       warn=lambda line: print(f"groupspec decode: warning: {line}", file=sys.stderr))
    print(f"groupspec decode: {report.summary()}", file=sys.stderr)
    return 1 if report.quarantined else 0


def _write(out: Any, doc: dict[str, Any]) -> None:
    out.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")

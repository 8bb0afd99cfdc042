"""`groupspec gen-log`: write generated coordinator logs (groupspec.pipeline.audit_gen) to audit.

Large realistic logs are what the audit's throughput and scaling are measured on, and a log with
planted faults is how an operator sees what each finding looks like; both come from one seeded
function, so a run can be repeated exactly.
"""

from __future__ import annotations

import argparse
import sys
import time


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", metavar="DIR", help="a new or empty folder for the partition directories")
    parser.add_argument("--groups", type=int, default=1000, help="groups (default 1000)")
    parser.add_argument("--commits", type=int, default=100,
                        help="offset commits per group, each of the topic's 4 partitions (default 100)")
    parser.add_argument("--partitions", type=int, default=4, help="__consumer_offsets partitions (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--segment-bytes", type=int, default=16 * 1024 * 1024,
                        help="roll to a new segment file past this size (default 16 MiB)")
    parser.add_argument("--writer", choices=("kafka-python", "groupspec"), default="kafka-python",
                        help="who writes the batches' bytes (default kafka-python, the independent one)")
    parser.add_argument("--compact", type=int, default=0, metavar="N",
                        help="leave out one superseded commit or group record in N, as a cleaned log "
                             "(1: all; default 0, none)")
    parser.add_argument("--gaps", type=int, default=0, metavar="N",
                        help="skip a run of offsets after every N-th batch (default 0, none)")
    parser.add_argument("--faults", action="store_true", help="plant one fault of each kind the audit finds")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from groupspec.pipeline.audit_gen import write_offsets_log
    from groupspec.types import InputError

    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(str(out), "is not a new or empty folder")
    start = time.perf_counter()
    log = write_offsets_log(out, groups=args.groups, commits=args.commits, partitions=args.partitions,
                            faults=args.faults, seed=args.seed, segment_bytes=args.segment_bytes,
                            writer=args.writer, compact=args.compact, gaps=args.gaps)
    seconds = time.perf_counter() - start
    codecs = ", ".join(f"{k} {v}" for k, v in sorted(log.codecs.items()))
    print(f"groupspec gen-log: {log.records} records ({log.compacted} compacted away) of {log.groups} "
          f"groups in {log.segments} segments, {log.bytes / 1e6:.1f} MB, {len(log.directories)} "
          f"partition directories under {out}; batches by codec: {codecs}; writer {log.writer}; "
          f"{seconds:.1f} s", file=sys.stderr)
    for kind, group in sorted(log.planted.items()):
        print(f"planted {kind}: {group or '(no group)'}", file=sys.stderr)
    return 0

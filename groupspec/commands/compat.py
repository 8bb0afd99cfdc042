"""`groupspec compat`: the compatibility matrix of the brokers that can run here (docs/compatibility.md).

Starts each implementation in turn on a free localhost port (Kafka 4.2.1, librdkafka's mock
cluster, franz-go's kfake, Tansu; any ``--broker kafka://HOST:PORT`` is only probed and used),
asks it which group and share APIs it serves, runs the wire-realisable vectors (classic_group,
share_group, share_partition) through the ``kafka://`` conformance target, stops it, and writes
the matrix to ``--out`` as compat.md, compat.html and compat.json; prints a summary table.

Exit status: 0 when the matrix was written (failing vectors and implementations that cannot run
here are the matrix's content, not errors), 2 on bad usage (an unknown --impl, a malformed
--broker address).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groupspec.compat.launchers import DEFAULT_START_TIMEOUT_S, LAUNCHERS

    parser.add_argument("--impl", default=None, metavar="NAMES",
                        help=f"comma-separated implementations to start: {', '.join(LAUNCHERS)} "
                        "(default: all; '' for none, with --broker)")
    parser.add_argument("--broker", action="append", default=[], metavar="kafka://HOST:PORT",
                        help="a running broker to include (repeatable); probed, never started or stopped")
    parser.add_argument("--filter", default="", metavar="S",
                        help="only vectors whose id (machine/handler/case) contains S")
    parser.add_argument("--out", type=Path, default=Path("compat-out"), metavar="DIR",
                        help="where compat.md, compat.html and compat.json go (default compat-out)")
    parser.add_argument("--flavour", choices=("groupspec", "kafka"), default="kafka",
                        help="hold answers to Kafka 4.2's (default) or to groupspec's rules")
    parser.add_argument("--timeout", type=float, default=10.0, metavar="S",
                        help="seconds the wire target may take per vector (default 10)")
    parser.add_argument("--start-timeout", type=float, default=DEFAULT_START_TIMEOUT_S, metavar="S",
                        help="seconds an implementation may take to answer after its start "
                        f"(default {DEFAULT_START_TIMEOUT_S:g}; a first Go build or Maven "
                        "resolution comes on top)")
    parser.add_argument("--target-options", default="", metavar="QUERY",
                        help="appended as ?QUERY to the kafka:// address of each started "
                        "implementation: the wire target's options and the broker settings it "
                        "cannot ask (docs/conformance.md); a --broker address keeps its own")
    parser.add_argument("--probe-only", action="store_true",
                        help="start and probe each implementation, run no vectors")


def run(args: argparse.Namespace) -> int:
    from groupspec.compat import launchers, matrix
    from groupspec.compat.probe import WIRE_MACHINES
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.targets import Target
    from groupspec.kafka_versions import DEFAULT
    from groupspec.types import InputError

    for option, value in (("--timeout", args.timeout), ("--start-timeout", args.start_timeout)):
        if not value > 0:
            raise InputError(option, f"{value:g} is not a positive number of seconds")
    chosen = launchers.choose(args.impl, args.broker)
    if args.probe_only:
        vectors: list[vf.Vector] = []
    else:
        vectors = [v for v in vf.load_release(DEFAULT.line)
                   if v.machine in WIRE_MACHINES and args.filter in v.id]
        if not vectors:
            raise InputError("--filter", f"no vector of {', '.join(WIRE_MACHINES)} contains {args.filter!r}")

    def make_target(address: str, timeout: float) -> Target:
        from groupspec.conformance import targets

        return targets.make_target(address, timeout)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    import datetime
    import platform

    what = ("the probe only" if args.probe_only else f"{len(vectors)} vectors of the {DEFAULT.line} set"
            + (f" matching {args.filter!r}" if args.filter else ""))
    made = (f"Made {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC on {platform.system()} "
            f"{platform.machine()}, {what}.")
    with tempfile.TemporaryDirectory(prefix="groupspec-compat-") as work:
        result = matrix.run(chosen, vectors, args.flavour, Path(work),
                            start_timeout_s=args.start_timeout, vector_timeout_s=args.timeout,
                            make_target=make_target, progress=progress,
                            made=made, query=args.target_options.removeprefix("?"),
                            done=lambda partial: matrix.write(partial, args.out))
    written = matrix.write(result, args.out)
    print(matrix.summary(result))
    print()
    print("wrote " + ", ".join(str(p) for p in written))
    return 0

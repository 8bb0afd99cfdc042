"""The `groupspec` command: one subcommand a module under groupspec.commands.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``; they are imported
only when chosen, so `groupspec assign` does not pay for Spark or Z3.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from groupspec.types import GroupspecError

COMMANDS: dict[str, tuple[str, str]] = {
    "conformance": ("groupspec.commands.conformance",
                    "run the conformance vectors against a target (the main job)"),
    "assign": ("groupspec.commands.assign", "assign a share group's partitions (JSON in, JSON out)"),
    "check-assignor": ("groupspec.commands.check_assignor",
                       "prove the assignor's arithmetic with Z3 and sweep its properties"),
    "sweep": ("groupspec.commands.sweep", "the assignor property sweep as a PySpark job"),
    "fuzz": ("groupspec.commands.fuzz", "seeded spec-vs-impl runs of the stateful machines as a PySpark "
             "job; disagreements shrunk to vectors"),
    "decode": ("groupspec.commands.decode",
               "decode __consumer_offsets / __share_group_state log segments as JSON lines"),
    "describe": ("groupspec.commands.describe",
                 "each group as __consumer_offsets / __share_group_state segments say it was"),
    "audit": ("groupspec.commands.audit",
              "coordinator logs replayed per group on Spark: state, violations, quarantine"),
    "gen-log": ("groupspec.commands.gen_log",
                "write a generated __consumer_offsets / __share_group_state log (kafka-python's writer)"),
    "simulate-delivery": ("groupspec.commands.simulate_delivery",
                          "seeded end-to-end share-group delivery runs, judged per record"),
    "simulate-classic": ("groupspec.commands.simulate_classic",
                         "seeded end-to-end classic consumer group runs (consumers, assignor, lossy "
                         "network, coordinator), judged"),
    "check-history": ("groupspec.commands.check_history",
                      "judge a share-delivery history (JSON lines) per record, or with --classic a "
                      "classic group's"),
    "broker": ("groupspec.commands.broker",
               "start, stop or inspect a real Kafka 4.2.1 node on this machine (Java, Maven)"),
    "spark-cluster": ("groupspec.commands.spark_cluster",
                      "start, stop or inspect a Spark standalone cluster on this machine (for --master)"),
    "compat": ("groupspec.commands.compat",
               "the compatibility matrix: start the brokers that run here, probe them, run the vectors"),
    "adapter": ("groupspec.commands.adapter",
                "serve the conformance JSON-lines protocol on stdin/stdout"),
}


def _version_line() -> str:
    """The package version, the Kafka versions its vectors describe, and the Python running it."""
    import platform
    from pathlib import Path

    from groupspec import __version__

    vectors = Path(__file__).resolve().parent / "vectors"
    kafka = sorted(p.name for p in vectors.iterdir() if p.is_dir() and p.name.startswith("kafka-"))
    return (f"groupspec {__version__} (vectors: {', '.join(kafka) or 'none'}; "
            f"Python {platform.python_version()})")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that command's module is imported to fill in its options."""
    # No abbreviated options: `compat --target kafka://...` would otherwise be taken for
    # `--target-options` and start every broker of the matrix instead of failing.
    parser = argparse.ArgumentParser(
        prog="groupspec", allow_abbrev=False,
        description="Executable specification and reference implementation of Kafka's group "
        "protocols.",
    )
    parser.add_argument("--version", action="version", version=_version_line())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text, allow_abbrev=False)
        if only is None or name == only:
            importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(chosen if chosen in COMMANDS else "").parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        code: int = module.run(args)
    except GroupspecError as exc:
        print(f"groupspec {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        # Ctrl-C is the user's choice, not a crash: one line, the shell's code for SIGINT. What
        # the command started is stopped by its own finally blocks on the way out.
        print(f"groupspec {args.command}: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())

"""`groupspec fuzz`: seeded spec-vs-impl runs of the stateful machines as a PySpark job
(docs/pipeline.md, "Fuzzing").

Exit status: 0 when the two targets agreed on every run, 1 when some run disagreed (the shrunk
vectors, the summary and the report are still written), 2 on bad options or when Spark cannot
start. Every option is checked before the JVM starts, so a typo costs neither the JVM's start
nor a stack trace.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groupspec.pipeline.fuzz import DEFAULT_LENGTH, DEFAULT_MAX_VECTORS, DEFAULT_RUNS, OUTPUTS, TARGETS
    from groupspec.pipeline.fuzz_gen import FUZZ_MACHINES
    from groupspec.pipeline.options import add_spark_arguments

    parser.add_argument("--machine", action="append", default=None, metavar="M",
                        help="a machine to fuzz (repeat for several; default all: "
                        f"{', '.join(FUZZ_MACHINES)})")
    parser.add_argument("--runs", type=int, default=DEFAULT_RUNS, metavar="N",
                        help=f"runs per machine: indices 0 .. N-1 (default {DEFAULT_RUNS})")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed; (machine, seed, index) fixes a run (default 0)")
    parser.add_argument("--length", type=int, default=DEFAULT_LENGTH, metavar="L",
                        help=f"events per run, at most (default {DEFAULT_LENGTH})")
    parser.add_argument("--target-a", default="spec", choices=TARGETS,
                        help="the reference: its answers become the vectors' expected (default spec)")
    parser.add_argument("--target-b", default="impl", choices=TARGETS,
                        help="the target judged against it (default impl); kafka: Kafka 4.2.1's own "
                        "classes through adapters/kafka (Java 17 and Maven; built once, before Spark)")
    parser.add_argument("--max-vectors", type=int, default=DEFAULT_MAX_VECTORS, metavar="K",
                        help="shrink and write at most K counterexamples per machine, the lowest "
                        f"indices (default {DEFAULT_MAX_VECTORS})")
    add_spark_arguments(parser, default_out="./fuzz-out", outputs=", ".join(OUTPUTS),
                        partitions_help="Spark partitions (tasks) to split the runs into "
                        "(default: about 25 runs a task, at least twice the cores)")


def run(args: argparse.Namespace) -> int:
    from groupspec.pipeline.fuzz import EXECUTOR_MODULES, OUTPUTS, FuzzConfig, check_call_available, run_fuzz
    from groupspec.pipeline.fuzz_gen import FUZZ_MACHINES
    from groupspec.pipeline.options import check_spark_arguments, start_spark
    from groupspec.pipeline.session import default_master

    config = FuzzConfig(machines=tuple(dict.fromkeys(args.machine or FUZZ_MACHINES)), runs=args.runs,
                        seed=args.seed, length=args.length, target_a=args.target_a,
                        target_b=args.target_b, partitions=args.partitions,
                        max_vectors=args.max_vectors)
    config.validate()
    check_call_available(config)
    out = check_spark_arguments(args, outputs=OUTPUTS)
    adapter_paths: tuple[str, ...] = ()
    if "kafka" in (config.target_a, config.target_b):
        import dataclasses

        from groupspec.conformance import kafka_target

        try:
            command = kafka_target.command(kafka_target.build())
        except BaseException:
            out.discard()
            raise
        config = dataclasses.replace(config, kafka_command=command)
        # Each executor starts the adapter by these paths: the probe before the job looks for them.
        adapter_paths = kafka_target.command_paths(command)
    master = args.master or default_master()
    try:
        spark = start_spark(master, app_name="groupspec-fuzz", executor_modules=EXECUTOR_MODULES,
                            executor_paths=adapter_paths, paths_for="the Kafka adapter (target kafka)")
    except BaseException:
        out.discard()
        raise
    try:
        outcome = run_fuzz(spark, config, out.path, progress=None if args.quiet else sys.stderr,
                           master=master or str(spark.sparkContext.master))
    finally:
        spark.stop()
    s = outcome.summary
    print(f"fuzz: {config.target_b} against {config.target_a}, seed {config.seed}, up to "
          f"{config.length} events a run, in {outcome.wall_seconds:.1f} s "
          f"({s['timing']['runs_per_second']} runs/s)")
    for name, m in s["machines"].items():
        line = f"  {name:<16} runs {m['runs']:>6}  disagreements {m['disagreements']}"
        if m["order_only"]:
            line += f" ({m['order_only']} in the order of one event's records only)"
        if m["first"]:
            line += f"  first: run {m['first']['index']}: {m['first']['first_difference']}"
        if m["minimal_length"] is not None:
            line += f"  (shrunk to {m['minimal_length']} event(s))"
        if m["unsupported"]:
            line += f"  no verdict on {m['unsupported']} (a target cannot express them)"
        if m["generator_errors"]:
            line += f"  generator failed on {m['generator_errors']}: {m['first_generator_error']}"
        print(line)
    if s["replay"]:
        print(f"vectors: {len(outcome.vectors)}; replay: {s['replay']}")
    print(f"report:  {outcome.report}")
    return 1 if s["disagreements"] or s["generator_errors"] else 0

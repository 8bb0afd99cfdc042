"""`groupspec sweep`: the assignor property sweep as a PySpark job (docs/pipeline.md).

Two modes. The sweep itself generates ``--cases`` groups from ``--seed``, runs ``--target`` on
each on Spark, checks every property and writes results.parquet, summary.json and report.html
to ``--out``. ``--replay SEED INDEX`` starts no Spark at all: it prints case INDEX of seed SEED as
the group JSON `groupspec assign` reads, which is how a counterexample from the report is
rebuilt. Exit status: 0 when every property held on every case, 1 when there were
counterexamples (the outputs are still written), 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

TARGETS = ("impl", "impl-kafka", "spec")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", type=int, default=2000, metavar="N",
                        help="how many generated groups to sweep (default 2000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the generator; (seed, index) fixes a case (default 0)")
    parser.add_argument("--max-members", type=int, default=2000, metavar="M",
                        help="largest group drawn, in members (default 2000)")
    parser.add_argument("--max-partitions", type=int, default=5000, metavar="P",
                        help="largest group drawn, in partitions (default 5000)")
    parser.add_argument("--target", choices=TARGETS, default="impl",
                        help="impl: the implementation (default); impl-kafka: its Kafka 4.2 "
                        "mode; spec: the reference model")
    parser.add_argument("--out", default="./sweep-out", metavar="DIR",
                        help="folder for results.parquet, summary.json, report.html "
                        "(default ./sweep-out)")
    parser.add_argument("--parquet", default=None, metavar="URI",
                        help="where Spark writes the results table instead of DIR/results.parquet "
                        "(on a cluster: a path every executor can reach, e.g. hdfs://...)")
    parser.add_argument("--master", default=None, metavar="URL",
                        help="Spark master: local[*] (default), local[2], spark://host:7077, "
                        "yarn, k8s://...; under spark-submit, its --master is used")
    parser.add_argument("--partitions", type=int, default=None, metavar="K",
                        help="Spark partitions (tasks) to split the cases into (default: about "
                        "25 cases a task, at least twice the cores)")
    parser.add_argument("--min-moves-cap", type=int, default=None, metavar="WORK",
                        help="compute the proved minimum of moves only for groups whose "
                        "members x partitions x sharing (summed over pools) is at most WORK "
                        "(default 500000)")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.add_argument("--replay", nargs=2, type=int, default=None, metavar=("SEED", "INDEX"),
                        help="print case INDEX of seed SEED as group JSON (for `groupspec assign`) "
                        "and exit; pass the sweep's --max-members/--max-partitions too")


def _replay(args: argparse.Namespace) -> int:
    from groupspec.pipeline.sweep import replay

    seed, index = args.replay
    shape, doc = replay(seed, index, args.max_members, args.max_partitions)
    print(f"# case seed={seed} index={index}: {shape}", file=sys.stderr)
    sys.stdout.write(json.dumps(doc) + "\n")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.replay is not None:
        return _replay(args)

    from groupspec.pipeline.session import default_master, get_spark
    from groupspec.pipeline.sweep import DEFAULT_MIN_MOVES_CAP, SweepConfig, run_sweep

    config = SweepConfig(
        cases=args.cases, seed=args.seed, max_members=args.max_members,
        max_partitions=args.max_partitions, target=args.target, partitions=args.partitions,
        min_moves_cap=DEFAULT_MIN_MOVES_CAP if args.min_moves_cap is None else args.min_moves_cap)
    config.validate()  # before paying for a JVM
    master = args.master or default_master()
    spark = get_spark(master, app_name=f"groupspec-sweep-{args.target}")
    try:
        outcome = run_sweep(spark, config, args.out, parquet=args.parquet,
                            progress=None if args.quiet else sys.stderr,
                            master=master or str(spark.sparkContext.master))
    finally:
        spark.stop()

    s = outcome.summary
    print(f"sweep: {s['cases']} cases of target {config.target} (seed {config.seed}) in "
          f"{outcome.wall_seconds:.1f} s, {s['timing']['cases_per_second']} cases/s")
    for name, tally in s["properties"].items():
        first = tally["first_counterexample"]
        where = f"  first: seed {first['seed']} index {first['index']}" if first else ""
        print(f"  {name:<11} held {tally['held']}/{s['cases']}{where}")
    if s["errors"]["count"]:
        print(f"  {'error':<11} raised on {s['errors']['count']} cases  first: index "
              f"{s['errors']['first']['index']}")
    for note in outcome.notes:
        print(f"note: {note}")
    print(f"results: {outcome.parquet}")
    print(f"report:  {outcome.report}")
    return 0 if s["counterexamples"] == 0 else 1

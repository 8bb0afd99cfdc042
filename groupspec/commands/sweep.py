"""`groupspec sweep`: the assignor property sweep as a PySpark job (docs/pipeline.md).

Two modes. The sweep itself generates ``--cases`` groups from ``--seed``, runs ``--target`` on
each on Spark, checks every property and writes results.parquet, summary.json and report.html
to ``--out``. ``--replay SEED INDEX`` starts no Spark at all: it prints case INDEX of seed SEED as
the group JSON `groupspec assign` reads, which is how a counterexample from the report is
rebuilt. Exit status: 0 when every property held on every case (for impl-kafka: when every
counterexample is one of Kafka's known divergences, groupspec.pipeline.expected), 1 when there
were other counterexamples (the outputs are still written), 2 on bad input. Every option is
checked before the JVM starts (groupspec.pipeline.options), and a Spark that fails to start is
one error line with exit 2 too: a user's typo costs neither seconds nor a stack trace.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groupspec.pipeline.sweep import SweepConfig, SweepOutcome

TARGETS = ("impl", "impl-kafka", "spec")


#: What the sweep writes into --out (named in errors about that folder).
OUTPUTS = ("results.parquet", "summary.json", "report.html")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groupspec.pipeline.options import add_spark_arguments

    parser.add_argument("--cases", type=int, default=2000, metavar="N",
                        help="how many generated groups to sweep (default 2000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the generator; (seed, index) fixes a case (default 0)")
    parser.add_argument("--max-members", type=int, default=2000, metavar="M",
                        help="largest group drawn, in members (default 2000)")
    parser.add_argument("--max-partitions", type=int, default=5000, metavar="P",
                        help="largest group drawn, in partitions (default 5000)")
    parser.add_argument("--assignor", default="simple", metavar="NAME",
                        help="simple: the share groups' SimpleAssignor (default); range, roundrobin "
                        "(and every other classic assignor groupspec has): that classic assignor's "
                        "properties and spec/impl agreement")
    parser.add_argument("--target", choices=TARGETS, default="impl",
                        help="impl: the implementation (default); impl-kafka: its Kafka 4.2 "
                        "mode; spec: the reference model")
    add_spark_arguments(parser, default_out="./sweep-out", outputs=", ".join(OUTPUTS),
                        partitions_help="Spark partitions (tasks) to split the cases into "
                        "(default: about 25 cases a task, at least twice the cores)")
    parser.add_argument("--parquet", default=None, metavar="URI",
                        help="where Spark writes the results table instead of DIR/results.parquet "
                        "(on a cluster: a path every executor can reach, e.g. hdfs://...)")
    parser.add_argument("--min-moves-cap", type=int, default=None, metavar="WORK",
                        help="compute the proved minimum of moves only for groups whose "
                        "members x partitions x sharing (summed over pools) is at most WORK "
                        "(default 500000)")
    parser.add_argument("--measure", choices=("stickiness",), default=None,
                        help="classic assignors only; stickiness: each case's moves next to the "
                        "fewest any balanced answer needs (cases on one subscription)")
    parser.add_argument("--replay", nargs=2, type=int, default=None, metavar=("SEED", "INDEX"),
                        help="print case INDEX of seed SEED as group JSON (for `groupspec assign`) "
                        "and exit; pass the sweep's --max-members/--max-partitions too")


def _replay(args: argparse.Namespace) -> int:
    from groupspec.pipeline import classic_sweep
    from groupspec.pipeline.options import at_least
    from groupspec.pipeline.sweep import replay

    seed, index = args.replay
    at_least("--replay INDEX", index, 0)
    at_least("--max-members", args.max_members, 1)
    at_least("--max-partitions", args.max_partitions, 1)
    if classic_sweep.check_assignor(args.assignor) != "simple":
        doc = classic_sweep.replay(seed, index, args.assignor, args.max_members, args.max_partitions)
        print(f"# case seed={seed} index={index}: classic {args.assignor}", file=sys.stderr)
        sys.stdout.write(json.dumps(doc) + "\n")
        return 0
    shape, doc = replay(seed, index, args.max_members, args.max_partitions)
    print(f"# case seed={seed} index={index}: {shape}", file=sys.stderr)
    sys.stdout.write(json.dumps(doc) + "\n")
    return 0


def run(args: argparse.Namespace) -> int:
    from groupspec.pipeline.classic_sweep import check_assignor

    if args.replay is not None:
        return _replay(args)
    if check_assignor(args.assignor) != "simple":
        return _run_classic(args)
    if args.measure is not None:
        from groupspec.types import InputError

        raise InputError("--measure", "takes a classic --assignor; the SimpleAssignor sweep always "
                                      "measures moves")

    from groupspec.pipeline.options import check_spark_arguments, start_spark
    from groupspec.pipeline.session import default_master
    from groupspec.pipeline.sweep import DEFAULT_MIN_MOVES_CAP, SweepConfig, run_sweep

    config = SweepConfig(
        cases=args.cases, seed=args.seed, max_members=args.max_members,
        max_partitions=args.max_partitions, target=args.target, partitions=args.partitions,
        min_moves_cap=DEFAULT_MIN_MOVES_CAP if args.min_moves_cap is None else args.min_moves_cap)
    # Every check before paying for a JVM: the numbers, the master's form, the output paths.
    config.validate()
    out = check_spark_arguments(args, outputs=OUTPUTS)
    master = args.master or default_master()
    try:
        spark = start_spark(master, app_name=f"groupspec-sweep-{args.target}",
                            executor_modules=("groupspec.pipeline.sweep", "icontract"))
    except BaseException:
        out.discard()
        raise
    try:
        outcome = run_sweep(spark, config, out.path, parquet=args.parquet,
                            overwrite=args.overwrite,
                            progress=None if args.quiet else sys.stderr,
                            master=master or str(spark.sparkContext.master))
    finally:
        spark.stop()

    return _print_outcome(outcome, config)


def _run_classic(args: argparse.Namespace) -> int:
    """The classic assignors' sweep (groupspec.pipeline.classic_sweep): same options, same checks
    before the JVM, its own smaller table."""
    from groupspec.pipeline.classic_sweep import ClassicSweepConfig, run_classic_sweep
    from groupspec.pipeline.options import check_spark_arguments, start_spark
    from groupspec.pipeline.session import default_master
    from groupspec.types.classic_assignors import STICKY_ASSIGNORS

    config = ClassicSweepConfig(assignor=args.assignor, cases=args.cases, seed=args.seed,
                                max_members=args.max_members, max_partitions=args.max_partitions,
                                target=args.target, partitions=args.partitions,
                                measure=args.measure)
    config.validate()
    out = check_spark_arguments(args, outputs=OUTPUTS)
    master = args.master or default_master()
    try:
        spark = start_spark(master, app_name=f"groupspec-sweep-{args.assignor}-{args.target}",
                            executor_modules=("groupspec.pipeline.classic_sweep", "icontract"))
    except BaseException:
        out.discard()
        raise
    try:
        outcome = run_classic_sweep(spark, config, out.path, parquet=args.parquet,
                                    overwrite=args.overwrite,
                                    progress=None if args.quiet else sys.stderr)
    finally:
        spark.stop()
    s = outcome.summary
    print(f"sweep: {s['cases']} cases of {config.assignor} on target {config.target} (seed "
          f"{config.seed}) in {outcome.wall_seconds:.1f} s, {s['timing']['cases_per_second']} cases/s")
    for name, tally in s["properties"].items():
        first = tally["first_counterexample"]
        where = f"  first: index {first['index']}" if first else ""
        why = " (expected of Kafka 4.2)" if first and tally["expected"] else ""
        print(f"  {name:<12} held {tally['held']}/{s['cases']}{where}{why}")
    if s["errors"]["count"]:
        print(f"  {'error':<12} raised on {s['errors']['count']} cases  first: index "
              f"{s['errors']['first']['index']}")
    sticky_above = 0
    if s.get("stickiness"):
        st = s["stickiness"]
        sticky_above = st["measured"] - st["at_minimum"] - st["below_minimum"]
        first = st["first_above"]
        print(f"  {'stickiness':<12} at the minimum on {st['at_minimum']}/{st['measured']} cases on one "
              f"subscription ({st['below_minimum']} below: unbalanced answers), moves {st['moves']} for "
              f"{st['min_moves']} needed" + (f"  first above: index {first['index']}" if first else ""))
        # Kafka's constrained builder is optimal (docs/models.md, section 7): a sticky assignor
        # above the minimum on these clean claims is a finding; Range and RoundRobin never try.
        if config.assignor not in STICKY_ASSIGNORS:
            sticky_above = 0
    print(f"results: {outcome.parquet}")
    print(f"report:  {outcome.report}")
    return 0 if s["counterexamples"] == s["expected_counterexamples"] and not sticky_above else 1


def _print_outcome(outcome: SweepOutcome, config: SweepConfig) -> int:
    """The short verdict on stdout; the exit code (1 only for unexpected findings)."""
    from groupspec.pipeline.expected import DIVERGENCES_DOC
    from groupspec.pipeline.sweep import unexpected

    s = outcome.summary
    known = " (expected of Kafka 4.2)"
    print(f"sweep: {s['cases']} cases of target {config.target} (seed {config.seed}) in "
          f"{outcome.wall_seconds:.1f} s, {s['timing']['cases_per_second']} cases/s")
    for name, tally in s["properties"].items():
        first = tally["first_counterexample"]
        where = f"  first: seed {first['seed']} index {first['index']}" if first else ""
        why = known if first and tally.get("expected") else ""
        print(f"  {name:<11} held {tally['held']}/{s['cases']}{where}{why}")
    errors = s["errors"]
    if errors["count"]:
        why = known if errors.get("expected") == errors["count"] else ""
        print(f"  {'error':<11} raised on {errors['count']} cases  first: index "
              f"{errors['first']['index']}{why}")
    moves = s["moves"]
    if moves.get("below_minimum_unexplained"):
        print(f"  {'min moves':<11} {moves['below_minimum_unexplained']} full valid results "
              "below the proved minimum (the optimiser is wrong)")
    if s.get("expected_counterexamples"):
        print(f"expected: {s['expected_counterexamples']} of {s['counterexamples']} "
              f"counterexamples are Kafka 4.2's known divergences ({DIVERGENCES_DOC}); they do "
              "not fail the sweep")
    for note in outcome.notes:
        print(f"note: {note}")
    print(f"results: {outcome.parquet}")
    print(f"report:  {outcome.report}")
    return 0 if unexpected(s) == 0 else 1

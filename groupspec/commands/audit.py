"""`groupspec audit`: coordinator logs decoded, grouped and replayed as a PySpark job.

Exit status: 0 when the logs hold no violation and no quarantined record, 1 when they do (the
outputs are still written), 2 on bad input. Paths, format and the Spark options are checked
before the JVM starts, so a typo costs neither seconds nor a stack trace.
"""

from __future__ import annotations

import argparse
import sys

from groupspec.types import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groupspec.pipeline.audit import FORMATS, OUTPUTS
    from groupspec.pipeline.options import add_spark_arguments

    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="segments: partition directories (__consumer_offsets-27/, "
                        "__share_group_state-3/) or segment files in them; parquet/json: dump "
                        "files or folders in Spark's Kafka source schema")
    parser.add_argument("--format", choices=FORMATS, default="segments",
                        help="what PATH holds (default segments)")
    add_spark_arguments(parser, default_out="./audit-out", outputs=", ".join(OUTPUTS),
                        partitions_help="Spark tasks that replay groups (default: twice the cores); "
                        "the results do not depend on it")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from groupspec.pipeline.audit import OUTPUTS, run_audit, segment_inputs
    from groupspec.pipeline.options import check_spark_arguments, start_spark
    from groupspec.pipeline.session import default_master

    if args.format == "segments":
        files = segment_inputs(args.paths)
    else:
        for p in args.paths:
            if "://" not in p and not Path(p).exists():
                raise InputError(p, "no such file or directory")
    out = check_spark_arguments(args, outputs=OUTPUTS)
    if args.format == "segments" and not args.quiet:
        print(f"audit: {len(files)} segment files, {sum(f.size for f in files):,} bytes",
              file=sys.stderr)
    master = args.master or default_master()
    try:
        spark = start_spark(master, app_name="groupspec-audit")
    except BaseException:
        out.discard()
        raise
    try:
        outcome = run_audit(spark, args.paths, out.path, fmt=args.format, partitions=args.partitions,
                            overwrite=args.overwrite, progress=None if args.quiet else sys.stderr,
                            master=master or str(spark.sparkContext.master))
    finally:
        spark.stop()
    s = outcome.summary
    t = s["timing"]
    print(f"audit: {t['records']} records, {s['groups']} groups, {s['share_partitions']} share "
          f"partitions in {t['wall_seconds']} s ({t['records_per_second']} records/s)")
    for kind, n in s["violations_by_kind"].items():
        print(f"  {kind:<24} {n}")
    if s["quarantined"]:
        print(f"  {'quarantined records':<24} {s['quarantined']}")
    print(f"results: {outcome.out}")
    print(f"report:  {outcome.report}")
    return 1 if s["violations"] or s["quarantined"] else 0

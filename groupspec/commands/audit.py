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

    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="segments: partition directories (__consumer_offsets-27/, "
                        "__share_group_state-3/) or segment files in them; parquet/json: dump "
                        "files or folders in Spark's Kafka source schema; kafka://HOST:PORT: a "
                        "live cluster (as --format kafka --bootstrap HOST:PORT)")
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="what PATH holds (default segments; kafka reads a live cluster "
                        "through Spark's Kafka connector)")
    parser.add_argument("--bootstrap", metavar="HOST:PORT", default=None,
                        help="the cluster --format kafka reads __consumer_offsets and "
                        "__share_group_state from (end offsets for lag come from it too)")
    parser.add_argument("--end-offsets", metavar="FILE", default=None,
                        help='JSON {"topic": {"partition": end offset}}: lag per committed partition '
                        "in the state table and the report (a live audit asks the cluster instead)")
    parser.add_argument("--connector-version", metavar="VERSION", default=None,
                        help="spark-sql-kafka-0-10_2.13 version to resolve from Maven Central "
                        "(default: the installed pyspark's, else the newest published release of "
                        "its major version; env GROUPSPEC_SPARK_KAFKA_VERSION)")
    parser.add_argument("--split-bytes", metavar="N", type=int, default=None,
                        help="segments: read segment files in pieces of about N bytes, cut at batch "
                        "boundaries (0: one task a file; default: three tasks a core, pieces of "
                        "1-32 MiB); the results do not depend on it")
    add_spark_arguments(parser, default_out="./audit-out", outputs=", ".join(OUTPUTS),
                        partitions_help="Spark tasks that replay groups (default: twice the cores); "
                        "the results do not depend on it")


def run(args: argparse.Namespace) -> int:
    from functools import partial
    from pathlib import Path

    from groupspec.pipeline.audit import EXECUTOR_MODULES, OUTPUTS, run_audit, segment_inputs
    from groupspec.pipeline.options import at_least, check_spark_arguments, start_spark
    from groupspec.pipeline.session import default_master

    conf: dict[str, str] | None = None
    end_offsets = None
    live = [p for p in args.paths if p.startswith("kafka://")]
    if live or args.bootstrap is not None or args.format == "kafka":
        from groupspec.pipeline import audit_live

        if args.format not in (None, "kafka"):
            raise InputError("--format", f"{args.format} does not read a cluster; use --format kafka")
        given = live + ([args.bootstrap] if args.bootstrap is not None else [])
        if len(given) != 1 or len(args.paths) != len(live):
            raise InputError("--bootstrap", "a live audit reads one cluster: give --bootstrap HOST:PORT "
                             "or one kafka://HOST:PORT, and no other PATH")
        args.format = "kafka"
        bootstrap = audit_live.parse_bootstrap(given[0])
        args.paths = [bootstrap]
    elif not args.paths:
        raise InputError("PATH", "give segment files, partition directories or dumps "
                         "(or --format kafka --bootstrap HOST:PORT)")
    args.format = args.format or "segments"
    if args.end_offsets is not None:
        from groupspec.pipeline.audit_live import read_end_offsets

        given_ends = read_end_offsets(args.end_offsets)
        end_offsets = lambda _committed: given_ends  # noqa: E731
    if args.format == "segments":
        files = segment_inputs(args.paths)
    elif args.format == "kafka":
        version = audit_live.connector_version(args.connector_version)
        conf = audit_live.session_conf(version)
        if end_offsets is None:
            end_offsets = partial(audit_live.end_offsets, bootstrap)
        audit_live.coordinator_partitions(bootstrap)  # an unreachable cluster fails before the JVM
        if not args.quiet:
            print(f"audit: {bootstrap} through {conf['spark.jars.packages']} (Ivy cache "
                  f"{conf['spark.jars.ivy']})", file=sys.stderr)
    else:
        for p in args.paths:
            if "://" not in p and not Path(p).exists():
                raise InputError(p, "no such file or directory")
    at_least("--split-bytes", args.split_bytes, 0)
    out = check_spark_arguments(args, outputs=OUTPUTS)
    if args.format == "segments" and not args.quiet:
        print(f"audit: {len(files)} segment files, {sum(f.size for f in files):,} bytes",
              file=sys.stderr)
    master = args.master or default_master()
    try:
        spark = start_spark(master, app_name="groupspec-audit", conf=conf, quiet_start=conf is not None,
                            executor_modules=EXECUTOR_MODULES)
    except BaseException:
        out.discard()
        raise
    try:
        outcome = run_audit(spark, args.paths, out.path, fmt=args.format, partitions=args.partitions,
                            overwrite=args.overwrite, progress=None if args.quiet else sys.stderr,
                            master=master or str(spark.sparkContext.master), end_offsets=end_offsets,
                            split_bytes=args.split_bytes)
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
    if s.get("lag"):
        print(f"  lag: {s['lag']['total']} records behind over {s['lag']['partitions']} committed "
              f"partitions of {s['lag']['groups']} groups")
    print(f"results: {outcome.out}")
    print(f"report:  {outcome.report}")
    return 1 if s["violations"] or s["quarantined"] else 0

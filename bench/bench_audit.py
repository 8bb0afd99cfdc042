"""Audit throughput: `groupspec audit` on local[1] and local[2] against one process.

    .venv/bin/python bench/bench_audit.py                      # ~1M records in /tmp/groupspec-audit-bench
    .venv/bin/python bench/bench_audit.py --groups 200 --commits 60   # a quick run

Generates a log with groupspec.pipeline.audit_gen (once; reused when the folder exists), then
times (1) decode + audit in this process (the same stage functions, no Spark), (2) the Spark job
on each master given. Prints the inputs and records/s for each.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from groupspec.impl.codec.segment import segment_files
from groupspec.pipeline.audit_core import audit_rows, segment_rows
from groupspec.pipeline.audit_gen import write_offsets_log


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=600)
    parser.add_argument("--partitions", type=int, default=4, help="__consumer_offsets partitions")
    parser.add_argument("--dir", default="/tmp/groupspec-audit-bench")
    parser.add_argument("--masters", default="local[1],local[2]")
    args = parser.parse_args()

    root = Path(args.dir) / f"g{args.groups}-c{args.commits}-p{args.partitions}"
    if not root.exists():
        t = time.perf_counter()
        log = write_offsets_log(root, groups=args.groups, commits=args.commits,
                                partitions=args.partitions, segment_bytes=16 * 1024 * 1024)
        print(f"generated {log.records} records in {time.perf_counter() - t:.1f} s", flush=True)
    dirs = sorted(p for p in root.iterdir() if p.is_dir())
    files = [f for d in dirs for f in segment_files(d)]
    size = sum(f.stat().st_size for f in files)
    print(f"input: {root}, {len(files)} segment files, {size / 1e6:.1f} MB", flush=True)

    t = time.perf_counter()
    rows = []
    for d in dirs:
        topic, number = d.name.rsplit("-", 1)
        for f in segment_files(d):
            rows += [item for tag, item in segment_rows(str(f), topic, int(number)) if tag == "row"]
    decoded = time.perf_counter() - t
    states, violations, quarantined = audit_rows(rows)
    single = time.perf_counter() - t
    n = len(rows)
    print(f"single process: {n} records, {len(states)} keys, {len(violations)} violations, "
          f"{len(quarantined)} quarantined; "
          f"read {decoded:.1f} s, read + audit {single:.1f} s = {n / single:,.0f} records/s", flush=True)
    del rows, states

    from groupspec.pipeline.audit import run_audit
    from groupspec.pipeline.session import get_spark

    for master in args.masters.split(","):
        spark = get_spark(master, app_name="bench-audit")
        out = Path(tempfile.mkdtemp(prefix="audit-bench-"))
        try:
            outcome = run_audit(spark, [str(d) for d in dirs], out / "o", progress=sys.stderr)
        finally:
            spark.stop()
            shutil.rmtree(out, ignore_errors=True)
        t = outcome.summary["timing"]
        print(f"{master}: {t['records']} records in {t['wall_seconds']} s = "
              f"{t['records_per_second']:,.0f} records/s (tasks {outcome.summary['inputs']['partitions']})",
              flush=True)


if __name__ == "__main__":
    main()

"""`groupspec audit` on 1 and 2 cores, repeated, with the time of each Spark stage.

    .venv/bin/python bench/bench_audit_stages.py LOG_DIR                 # local[1], local[2], 3 runs each
    .venv/bin/python bench/bench_audit_stages.py LOG_DIR --repeats 1 --masters 'local[2]'

LOG_DIR holds ``__consumer_offsets-N`` / ``__share_group_state-N`` directories (bench_audit.py
or ``groupspec gen-log`` writes one). Each run is ``run_audit`` in a fresh session with Spark's
event log on; the log gives each stage's wall time, task count, and the sums over its tasks of
executor run time, CPU time, JVM GC, result serialisation and shuffle write / read. Runs
alternate between masters (1, 2, 1, 2, ...) so a change in the machine's load hits both; the
load average is printed with each run. Prints best and median records/s per master and the
2-core / 1-core ratio of the best and of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any


def stage_times(event_dir: Path) -> list[dict[str, Any]]:
    stages: dict[int, dict[str, Any]] = {}
    for log in (p for p in event_dir.rglob("*") if p.is_file()):
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            kind = event.get("Event")
            if kind == "SparkListenerTaskEnd":
                m = event.get("Task Metrics") or {}
                s = stages.setdefault(event["Stage ID"], {"run": 0, "cpu": 0, "gc": 0, "ser": 0,
                                                          "shuffle_write": 0, "shuffle_read": 0})
                s["run"] += m.get("Executor Run Time", 0)
                s["cpu"] += m.get("Executor CPU Time", 0) // 1_000_000
                s["gc"] += m.get("JVM GC Time", 0)
                s["ser"] += m.get("Result Serialization Time", 0)
                write = m.get("Shuffle Write Metrics") or {}
                s["shuffle_write"] += write.get("Shuffle Write Time", 0) // 1_000_000
                s["shuffle_read"] += (m.get("Shuffle Read Metrics") or {}).get("Fetch Wait Time", 0)
            elif kind == "SparkListenerStageCompleted":
                info = event["Stage Info"]
                s = stages.setdefault(info["Stage ID"], {"run": 0, "cpu": 0, "gc": 0, "ser": 0,
                                                         "shuffle_write": 0, "shuffle_read": 0})
                s.update(name=info["Stage Name"].split(" at ")[0], tasks=info["Number of Tasks"],
                         wall=info["Completion Time"] - info["Submission Time"])
    return [dict(id=k, **v) for k, v in sorted(stages.items()) if "wall" in v]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log_dir")
    parser.add_argument("--masters", default="local[1],local[2]")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from groupspec.pipeline.audit import run_audit
    from groupspec.pipeline.session import get_spark

    dirs = sorted(str(p) for p in Path(args.log_dir).iterdir() if p.is_dir())
    masters = args.masters.split(",")
    rates: dict[str, list[float]] = {m: [] for m in masters}
    for run in range(args.repeats):
        for master in masters:
            work = Path(tempfile.mkdtemp(prefix="audit-stages-"))
            events = work / "events"
            events.mkdir()
            load = os.getloadavg()
            spark = get_spark(master, app_name="bench-audit-stages",
                              conf={"spark.eventLog.enabled": "true",
                                    "spark.eventLog.dir": events.as_uri(),
                                    "spark.eventLog.compress": "false",
                                    "spark.eventLog.rolling.enabled": "false"})
            try:
                outcome = run_audit(spark, dirs, work / "out")
            finally:
                spark.stop()
            t = outcome.summary["timing"]
            rates[master].append(t["records_per_second"])
            print(f"run {run + 1} {master}: {t['records']:,} records in {t['wall_seconds']:.1f} s = "
                  f"{t['records_per_second']:,.0f} records/s; load average {load[0]:.1f} "
                  f"{load[1]:.1f} {load[2]:.1f}", flush=True)
            for s in stage_times(events):
                print(f"    stage {s['id']} {s['name']:<22} tasks {s['tasks']:>3}  "
                      f"wall {s['wall'] / 1000:6.1f} s  task run {s['run'] / 1000:6.1f} s  "
                      f"cpu {s['cpu'] / 1000:6.1f} s  jvm gc {s['gc'] / 1000:4.1f} s  "
                      f"shuffle write {s['shuffle_write'] / 1000:4.1f} s", flush=True)
            shutil.rmtree(work, ignore_errors=True)
    for master in masters:
        r = rates[master]
        print(f"{master}: best {max(r):,.0f}, median {statistics.median(r):,.0f} records/s "
              f"over {len(r)} runs", flush=True)
    if len(masters) == 2:
        a, b = rates[masters[0]], rates[masters[1]]
        print(f"{masters[1]} / {masters[0]}: best {max(b) / max(a):.2f}, median "
              f"{statistics.median(b) / statistics.median(a):.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())

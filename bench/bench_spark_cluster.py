"""`groupspec audit` and `groupspec fuzz` on local masters and on standalone clusters on this machine.

    .venv/bin/python bench/bench_spark_cluster.py                       # the docs/pipeline.md table
    .venv/bin/python bench/bench_spark_cluster.py --repeats 1 --groups 200 --commits 50   # quick

Generates an audit log with `groupspec gen-log` (once; reused when the folder exists), starts one
standalone cluster per "NxC" entry of --masters (groupspec.pipeline.standalone: N workers of C
cores, 1g each), then runs each command as a user would (the CLI in a subprocess, so every run
pays its own driver start) on every master, the masters interleaved within each repeat so that
a change of the machine's load falls on all of them. Prints per run the wall time of the whole
command, the job's own time from its summary.json and the load average before it; then best and
median per master; and whether every master's outputs equal the first master's (the audit's three
tables and counts, the fuzz's disagreements and vectors).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from groupspec.pipeline import standalone


def _run(argv: list[str], out: Path) -> tuple[float, int, str]:
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "groupspec.cli", *argv, "--out", str(out), "--quiet"],
                          capture_output=True, text=True)
    return time.perf_counter() - t, done.returncode, done.stderr.strip().splitlines()[-1:][0] \
        if done.returncode not in (0, 1) and done.stderr.strip() else ""


def _audit_outputs(out: Path) -> object:
    import pyarrow.parquet as pq

    summary = json.loads((out / "summary.json").read_text())
    keys = ("groups", "share_partitions", "groups_by_state", "violations_by_kind", "quarantined",
            "commit_rate", "members_per_group")
    tables = {n: sorted(repr(sorted(r.items())) for r in pq.read_table(out / f"{n}.parquet").to_pylist())
              for n in ("state", "violations", "quarantine")}
    return {k: summary[k] for k in keys}, tables


def _fuzz_outputs(out: Path) -> object:
    summary = json.loads((out / "summary.json").read_text())
    vectors = sorted(str(p.relative_to(out)) + p.read_text() for p in (out / "vectors").rglob("*.json")
                     if p.name != "manifest.json") if (out / "vectors").exists() else []
    machines = {m: (v["runs"], v["disagreements"]) for m, v in summary["machines"].items()}
    return summary["disagreements"], machines, vectors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--dir", default="/tmp/groupspec-cluster-bench")
    parser.add_argument("--masters", default="local[1],local[2],1x1,2x1",
                        help="local masters and NxC standalone clusters (N workers of C cores)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", default="audit,fuzz")
    args = parser.parse_args()

    root = Path(args.dir)
    log = root / f"log-g{args.groups}-c{args.commits}"
    if not log.exists():
        cmd = ["gen-log", str(log), "--groups", str(args.groups), "--commits", str(args.commits),
               "--compact", "3", "--gaps", "50"]
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "groupspec.cli", *cmd], check=True, capture_output=True)
        print(f"generated: groupspec {' '.join(cmd)} in {time.perf_counter() - t:.1f} s", flush=True)
    dirs = sorted(str(p) for p in log.iterdir() if p.is_dir())
    size = sum(f.stat().st_size for p in log.iterdir() for f in p.glob("*.log"))
    print(f"audit input: {log}, {len(dirs)} partition directories, {size / 1e6:.1f} MB", flush=True)
    jobs = {"audit": [*dirs], "fuzz": []}
    chosen = [j for j in args.jobs.split(",") if j]

    masters: dict[str, str] = {}
    clusters = []
    try:
        for name in args.masters.split(","):
            if name.startswith("local"):
                masters[name] = name
                continue
            workers, cores = (int(x) for x in name.split("x"))
            t = time.perf_counter()
            cluster = standalone.start(root / f"cluster-{name}", workers=workers, cores=cores)
            clusters.append(cluster)
            masters[name] = cluster.master_url
            print(f"cluster {name}: {cluster.master_url}, ready in {time.perf_counter() - t:.1f} s",
                  flush=True)
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        outputs: dict[tuple[str, str], object] = {}
        work = Path(tempfile.mkdtemp(prefix="bench-", dir=root))
        for rep in range(args.repeats):
            for job in chosen:
                for name, url in masters.items():
                    out = work / f"{job}-{name}-{rep}"
                    load = os.getloadavg()[0]
                    wall, code, error = _run([job, *jobs[job], "--master", url], out)
                    if error:
                        print(f"{job} {name}: exit {code}: {error}", flush=True)
                        continue
                    summary = json.loads((out / "summary.json").read_text())
                    own = summary["timing"].get("wall_seconds") or \
                        summary["timing"]["run_seconds"] + summary["timing"]["shrink_seconds"]
                    times.setdefault((job, name), []).append((wall, own))
                    got = _audit_outputs(out) if job == "audit" else _fuzz_outputs(out)
                    first = outputs.setdefault((job, "first"), got)
                    same = "same" if got == first else "DIFFERENT"
                    extra = f"{summary['timing']['records']} records" if job == "audit" else \
                        f"{sum(m['runs'] for m in summary['machines'].values())} runs"
                    print(f"{job:<5} {name:<9} repeat {rep + 1}: {wall:6.1f} s command, {own:6.1f} s job, "
                          f"{extra}, exit {code}, load {load:.2f}, outputs {same}", flush=True)
                    shutil.rmtree(out, ignore_errors=True)
        print("\njob   master    command best / median   job best / median")
        for (job, name), runs in times.items():
            walls, owns = [w for w, _ in runs], [o for _, o in runs]
            print(f"{job:<5} {name:<9} {min(walls):6.1f} / {statistics.median(walls):6.1f} s"
                  f"        {min(owns):6.1f} / {statistics.median(owns):6.1f} s   ({len(runs)} runs)")
    finally:
        for cluster in clusters:
            cluster.stop()


if __name__ == "__main__":
    main()

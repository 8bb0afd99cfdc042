"""`groupspec spark-cluster start|stop|status`: a Spark standalone cluster on this machine
(groupspec.pipeline.standalone), to run `groupspec audit|sweep|fuzz --master spark://...` the way a
real cluster runs them: executors in JVMs and work folders of their own.

``start`` returns once every worker is registered with the master, printing the master URL
first (``master spark://127.0.0.1:PORT``), and leaves the daemons running; ``stop`` and
``status`` find them through the state file in the same ``--dir``, by default in groupspec's
cache.

Exit status: 0 done (``status``: every daemon runs); 1 ``status`` of a cluster that is not
(wholly) running; 2 an error (no Java, no pyspark, a daemon died or the workers never registered:
its log's last lines follow).
"""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path


def _default_dir() -> Path:
    from groupspec.broker import cache_root

    return cache_root() / "spark-cluster" / "default"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groupspec.pipeline import standalone

    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = functools.partial(sub.add_parser, allow_abbrev=False)  # as groupspec.cli: no guessing
    start = add("start", help="start a master and its workers; print the master URL")
    stop = add("stop", help="stop the cluster started in --dir")
    status = add("status", help="whether the cluster in --dir runs, its workers and memory")
    for p in (start, stop, status):
        p.add_argument("--dir", type=Path, default=None, metavar="DIR",
                       help="the cluster's folder: state file, logs/, work/ (default: "
                       "<cache>/spark-cluster/default, the cache being ~/.cache/groupspec)")
    start.add_argument("--workers", type=int, default=1, metavar="N", help="workers (default 1)")
    start.add_argument("--cores", type=int, default=1, metavar="C", help="cores of each worker (default 1)")
    start.add_argument("--memory", default=standalone.DEFAULT_MEMORY, metavar="SIZE",
                       help="memory of each worker for its executors (default "
                       f"{standalone.DEFAULT_MEMORY}; at least spark.executor.memory, 1g unless set)")
    start.add_argument("--timeout", type=float, default=standalone.DEFAULT_READY_TIMEOUT_S, metavar="S",
                       help="seconds the workers may take to register (default "
                       f"{standalone.DEFAULT_READY_TIMEOUT_S:g})")
    stop.add_argument("--timeout", type=float, default=standalone.DEFAULT_STOP_TIMEOUT_S, metavar="S",
                      help="seconds to wait after SIGTERM before SIGKILL (default "
                      f"{standalone.DEFAULT_STOP_TIMEOUT_S:g})")
    stop.add_argument("--remove", action="store_true",
                      help="delete the folder (logs and executors' work folders) too")
    status.add_argument("--json", action="store_true", help="the status as one JSON object")


def run(args: argparse.Namespace) -> int:
    from groupspec.pipeline import standalone

    directory = args.dir if args.dir is not None else _default_dir()
    if args.action == "start":
        cluster = standalone.start(directory, workers=args.workers, cores=args.cores, memory=args.memory,
                                   ready_timeout_s=args.timeout)
        s = cluster.state
        print(f"master {s.master_url}", flush=True)
        print(f"ui {s.ui_url}")
        print(f"workers {len(s.workers)} x {s.cores} cores, {s.memory}")
        print(f"pids {s.master.pid} {' '.join(str(w.pid) for w in s.workers)}")
        print(f"state {cluster.directory / standalone.STATE_FILE}")
        print(f"ready in {cluster.ready_s:.1f} s")
        return 0
    if args.action == "stop":
        cluster = standalone.attach(directory)
        running = [d.pid for d in cluster.daemons() if d.alive()]
        killed = cluster.stop(args.timeout, remove=args.remove)
        how = (f"stopped {len(running)} daemons" if running else "was not running") + \
            (f" ({len(killed)} killed)" if killed else "")
        print(f"spark cluster {cluster.master_url} {how}"
              + (f"; removed {cluster.directory}" if args.remove else ""))
        return 0
    info = standalone.status(directory)
    if args.json:
        print(json.dumps(info, sort_keys=True))
    else:
        print(f"{'running' if info['running'] else 'not running'}: {info['master_url']}, "
              f"{len(info['workers'])} workers x {info['cores']} cores, {info['memory']}")
        for d in info["daemons"]:
            print(f"  {d['class']} pid {d['pid']}: {'alive' if d['alive'] else 'gone'}"
                  + (f", {d['rss_kib']} KiB" if d["rss_kib"] else ""))
        for key in ("alive_workers", "cores_free", "active_apps", "answering", "ui_url"):
            if key in info:
                print(f"  {key}: {info[key]}")
    return 0 if info["running"] else 1

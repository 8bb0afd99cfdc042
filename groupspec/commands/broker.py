"""`groupspec broker start|stop|status|workload`: a real Kafka 4.2.1 node on this machine (groupspec.broker).

``workload`` runs real clients on the node (groupspec.broker_workload: a classic group through
three generations, a KIP-848 group, a share group that accepts, releases and rejects, then three
such groups left running), so its coordinator writes logs to read with ``groupspec decode`` and
``groupspec describe``; it prints what the broker reported as JSON (``--stop``: stopping the node
before the live groups' members leave).

``start`` returns once the node answers, printing its bootstrap address, pid and state file, and
leaves it running; ``stop`` and ``status`` find it through the state file in the same ``--dir``.
The default directory is in groupspec's cache, so the three commands need no options by hand.

Exit status: 0 done (``status``: the node runs); 1 ``status`` of a node that is not running;
2 an error (Java or Maven missing, the node died or never answered: its log's last lines follow).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from pathlib import Path


def _default_dir() -> Path:
    from groupspec.broker import cache_root

    return cache_root() / "broker" / "default"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from groupspec import broker

    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    add = functools.partial(sub.add_parser, allow_abbrev=False)  # as groupspec.cli: no guessing
    start = add("start", help="format and start a node; print its bootstrap address")
    stop = add("stop", help="stop the node started in --dir")
    status = add("status", help="whether the node in --dir runs, its address and memory")
    workload = add("workload", help="run real clients (confluent-kafka) on the node in --dir; "
                   "print what the broker reported")
    for p in (start, stop, status, workload):
        p.add_argument("--dir", type=Path, default=None, metavar="DIR",
                       help="the node's directory: state file, data/, logs/ (default: "
                       "<cache>/broker/default, the cache being ~/.cache/groupspec)")
    start.add_argument("--kafka-version", default=broker.DEFAULT_VERSION, choices=broker.VERSIONS,
                       help=f"the Kafka release (default {broker.DEFAULT_VERSION})")
    start.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="settings",
                       help="a server.properties setting added to the test settings (repeatable)")
    start.add_argument("--heap", default=broker.DEFAULT_HEAP,
                       help=f"the JVM's -Xmx (default {broker.DEFAULT_HEAP})")
    start.add_argument("--timeout", type=float, default=broker.DEFAULT_READY_TIMEOUT_S, metavar="S",
                       help="seconds the node may take to answer (default "
                       f"{broker.DEFAULT_READY_TIMEOUT_S:g})")
    start.add_argument("--reset", action="store_true",
                       help="delete the data an earlier node left in --dir instead of refusing")
    stop.add_argument("--timeout", type=float, default=broker.DEFAULT_STOP_TIMEOUT_S, metavar="S",
                      help="seconds to wait after SIGTERM before SIGKILL (default "
                      f"{broker.DEFAULT_STOP_TIMEOUT_S:g})")
    stop.add_argument("--remove", action="store_true",
                      help="delete the directory (data and logs) too; kept by default for "
                      "`groupspec decode DIR/data/__consumer_offsets-0`")
    status.add_argument("--json", action="store_true", help="the status as one JSON object")
    workload.add_argument("--prefix", default=None,
                          help="the start of the topic and group names (default: wl-<random>)")
    workload.add_argument("--stop", action="store_true",
                          help="stop the node once it has described the groups, before the live "
                          "groups' members leave, so its logs end with them in (as "
                          "tests/data/kafka-4.2.1-real was made)")


def run(args: argparse.Namespace) -> int:
    from groupspec import broker

    directory = args.dir if args.dir is not None else _default_dir()
    if args.action == "start":
        if args.timeout <= 0:
            from groupspec.types import InputError

            raise InputError("--timeout", f"{args.timeout:g} is not a positive number of seconds")
        node = broker.start(directory, version=args.kafka_version,
                            overrides=broker.parse_overrides(args.settings), heap=args.heap,
                            ready_timeout_s=args.timeout, reset=args.reset)
        print(f"bootstrap {node.bootstrap}")
        print(f"pid {node.state.pid}")
        print(f"state {node.directory / broker.STATE_FILE}")
        print(f"data {node.data_dir}")
        print(f"log {node.state.log_file}")
        print(f"ready in {node.ready_s:.1f} s")
        return 0
    if args.action == "stop":
        node = broker.attach(directory)
        was_running = node.alive()
        killed = node.stop(args.timeout, remove=args.remove)
        how = "killed" if killed else "stopped" if was_running else "was not running"
        print(f"broker pid {node.state.pid} {how}"
              + ("; removed " + str(node.directory) if args.remove else f"; data kept in {node.data_dir}"))
        return 0
    if args.action == "workload":
        from groupspec import broker_workload

        node = broker.attach(directory)
        if not node.alive():
            raise broker.NotRunningError(f"no running node in {directory}: `groupspec broker start` first")
        def stop_node(_rep: broker_workload.Reported) -> None:
            node.stop(broker.DEFAULT_STOP_TIMEOUT_S)

        rep = broker_workload.run(node.bootstrap, prefix=args.prefix, at_end=stop_node if args.stop else None,
                                  close=not args.stop)
        print(json.dumps({
            "topic": rep.topic, "live_topic": rep.live_topic,
            "groups": [rep.classic_group, rep.consumer_group, rep.share_group],
            "live_groups": [rep.live_classic, rep.live_consumer, rep.live_share],
            "offsets": rep.offsets, "states": rep.states,
            "share_acks": {f"{p}:{o}": acks for (p, o), acks in sorted(rep.share_acks.items())},
            "share_deliveries": {f"{p}:{o}": n for (p, o), n in sorted(rep.share_deliveries.items())},
            "described": rep.described, "end_offsets": rep.end_offsets,
            "data": str(node.data_dir)}, indent=1), flush=True)
        if args.stop:
            # The live clients are still open on a stopped node: closing them (or letting the
            # interpreter's exit do it) waits on the node for their leave; nothing is left to keep.
            sys.stderr.flush()
            os._exit(0)
        return 0
    info = broker.status(directory)
    if args.json:
        print(json.dumps(info, sort_keys=True))
    else:
        print(f"{'running' if info['running'] else 'not running'}: pid {info['pid']}, "
              f"bootstrap {info['bootstrap']}, Kafka {info['version']}")
        for key in ("rss_kib", "apis", "features", "share_groups", "answering", "data_dir", "log_file"):
            if key in info:
                print(f"  {key}: {info[key]}")
    return 0 if info["running"] else 1

"""A small Spark standalone cluster on this machine: one master and N workers from pyspark's jars.

Why: `groupspec audit`, `sweep` and `fuzz` had only ever run with ``local[*]``, where the Python
workers are children of the driver's JVM, share its working directory and environment, and run
its interpreter. A standalone cluster takes all three away (executors are JVMs of their own,
started by a worker in a work folder of its own, running whatever ``python3`` they find), which is
what a user's cluster does; running the jobs against one here is how those differences are found
and tested (docs/pipeline.md, "A cluster on one machine").

The pyspark wheel ships Spark's ``bin/spark-class`` and jars but not the ``sbin/start-*.sh``
scripts, so the daemons are started here with ``spark-class`` directly, each on free ports on
127.0.0.1 (the master's REST submission port, fixed at 6066 by default, is turned off). A
started cluster is described by its state file (``spark-cluster.json`` in its folder): the
master URL, the web UI and each daemon's pid and log, so ``groupspec spark-cluster stop|status``
find it from any process. Readiness is the master's own JSON status (``/json/`` on its web UI)
listing every worker ALIVE, not merely a port accepting.

Time is a parameter (``now``, ``sleep``) of everything that waits, so the waiting logic is tested
without a JVM or a real clock.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groupspec import statefile
from groupspec.broker import free_port, log_tail, memory_kib, stop_process
from groupspec.types import GroupspecError, InputError

STATE_FILE = "spark-cluster.json"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"
#: A worker's memory must hold at least one executor: spark.executor.memory is 1g by default,
#: and an application whose executors fit no worker waits for resources for ever.
DEFAULT_MEMORY = "1g"
#: The daemons themselves only schedule; Spark's scripts give them 1 GiB each.
DAEMON_HEAP = "256m"
#: The client compiler only and a serial collector, as for the test broker (groupspec.broker):
#: a quicker start on few cores for JVMs that are never busy. Executors are not affected.
DAEMON_JAVA_OPTIONS = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1"
DEFAULT_READY_TIMEOUT_S = 90.0
DEFAULT_STOP_TIMEOUT_S = 20.0
#: Settings of every daemon: no REST submission server (its port is fixed, and the jobs connect
#: as clients, not through it).
DAEMON_SETTINGS = {"spark.master.rest.enabled": "false"}


class SparkClusterError(GroupspecError):
    """The cluster could not be started, reached or stopped; the message says why."""


class SparkClusterStartError(SparkClusterError):
    """A daemon died or the master never listed every worker; ``log_tail`` holds its last lines."""

    def __init__(self, what: str, tail: str) -> None:
        self.log_tail = tail
        rest = f"\nlast lines of its log:\n{tail}" if tail else "\n(its log is empty)"
        super().__init__(f"{what}{rest}")


class NotRunningError(SparkClusterError):
    """No cluster was started in that folder, or it has stopped."""


def spark_home() -> Path:
    """``$SPARK_HOME`` when it holds ``bin/spark-class``, else the pyspark package folder (the
    wheel carries the scripts and jars there)."""
    given = os.environ.get("SPARK_HOME")
    if given and (Path(given) / "bin" / "spark-class").is_file():
        return Path(given)
    try:
        import pyspark
    except ImportError:
        raise SparkClusterError("needs pyspark (pip install -e '.[spark]') or SPARK_HOME") from None
    home = Path(pyspark.__file__).resolve().parent
    if not (home / "bin" / "spark-class").is_file():
        raise SparkClusterError(f"{home} has no bin/spark-class; set SPARK_HOME to a Spark install")
    return home


def check_memory(memory: str, field: str = "--memory") -> str:
    """A worker memory size as Spark writes it (``512m``, ``1g``)."""
    if not re.fullmatch(r"[1-9][0-9]*[mMgG]", memory):
        raise InputError(field, f"{memory!r} is not a memory size such as 512m or 1g")
    return memory


# -- the daemons ------------------------------------------------------------------------------------


class _Daemon(statefile.Process):
    """A master or worker JVM: alive only while its pid still runs that Spark class (a pid the
    OS has since given to something else is not it)."""

    def __init__(self, pid: int, main_class: str, child: subprocess.Popen[bytes] | None = None) -> None:
        super().__init__(pid, main_class.encode(), child)
        self.main_class = main_class


@dataclass(frozen=True)
class DaemonState:
    pid: int
    log_file: str
    ui_port: int


@dataclass(frozen=True)
class ClusterState:
    """What the state file says: enough to use, inspect and stop the cluster."""

    master_url: str
    ui_url: str
    directory: str
    spark_home: str
    master: DaemonState
    workers: tuple[DaemonState, ...]
    cores: int
    memory: str
    started_at: float

    def to_json(self) -> str:
        return statefile.dumps(self)

    @staticmethod
    def read(directory: Path) -> ClusterState:
        return statefile.read(directory, STATE_FILE, "Spark cluster", ClusterState._parse,
                              missing=NotRunningError, invalid=SparkClusterError)

    @staticmethod
    def _parse(raw: dict[str, Any]) -> ClusterState:
        return ClusterState(**{**statefile.fields(ClusterState, raw), "master": DaemonState(**raw["master"]),
                               "workers": tuple(DaemonState(**w) for w in raw["workers"])})


@dataclass
class Cluster:
    """A started cluster. ``stop()`` ends its daemons (and with them their executors)."""

    state: ClusterState
    ready_s: float = 0.0
    children: dict[int, subprocess.Popen[bytes]] = dataclasses.field(default_factory=dict)

    @property
    def master_url(self) -> str:
        return self.state.master_url

    @property
    def directory(self) -> Path:
        return Path(self.state.directory)

    def daemons(self) -> list[_Daemon]:
        """Workers first: a worker stopping first ends its executors, and the master then sees
        no worker lost."""
        return [*(_Daemon(w.pid, WORKER_CLASS, self.children.get(w.pid)) for w in self.state.workers),
                _Daemon(self.state.master.pid, MASTER_CLASS, self.children.get(self.state.master.pid))]

    def alive(self) -> bool:
        return all(d.alive() for d in self.daemons())

    def stop(self, timeout_s: float = DEFAULT_STOP_TIMEOUT_S, *, remove: bool = False) -> list[int]:
        """SIGTERM each daemon (SIGKILL after ``timeout_s``); the pids that had to be killed.
        ``remove`` deletes the folder (logs and the executors' work folders)."""
        killed = [d.pid for d in self.daemons() if stop_process(d, timeout_s)]
        if remove:
            shutil.rmtree(self.directory, ignore_errors=True)
        return killed


def master_status(ui_url: str, timeout_s: float = 2.0) -> dict[str, Any]:
    """The master's JSON status page (its URL, workers and their states, applications)."""
    with urllib.request.urlopen(f"{ui_url}/json/", timeout=timeout_s) as answer:
        status: dict[str, Any] = json.loads(answer.read())
    return status


def alive_workers(status: dict[str, Any]) -> int:
    return sum(1 for w in status.get("workers", ()) if w.get("state") == "ALIVE")


def wait_ready(daemons: list[tuple[_Daemon, Path]], ui_url: str, workers: int, timeout_s: float, *,
               now: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
               probe: Callable[[str], dict[str, Any]] = master_status) -> float:
    """Wait until the master lists ``workers`` workers ALIVE; the seconds it took.

    A daemon that exits first, or a master that does not list them all after ``timeout_s``, is a
    SparkClusterStartError with the relevant log's last lines (the caller stops the rest).
    """
    start = now()
    seen = 0
    while True:
        for daemon, log in daemons:
            if not daemon.alive():
                code = daemon.exit_code()
                ended = f" with status {code}" if code is not None else ""
                name = daemon.main_class.rsplit(".", 1)[-1].lower()
                raise SparkClusterStartError(f"the Spark {name} (pid {daemon.pid}) exited{ended} "
                                             "before the cluster was ready", log_tail(log))
        try:
            seen = alive_workers(probe(ui_url))
            if seen >= workers:
                return now() - start
        except (OSError, ValueError):
            pass
        if now() - start >= timeout_s:
            logs = [log for _, log in daemons]
            raise SparkClusterStartError(
                f"the Spark master listed {seen} of {workers} workers alive within {timeout_s:g} s "
                f"({ui_url}/json/)", log_tail(*logs[1:], logs[0]))
        sleep(0.25)


def daemon_environment(home: Path, conf_dir: Path) -> dict[str, str]:
    """The daemons' environment: this one, with Spark's home, a conf folder of the cluster's own
    (a ``SPARK_CONF_DIR`` that groupspec's jobs point at their quiet log4j2 configuration would
    leave the daemons' logs empty), the loopback address and a small heap."""
    env = dict(os.environ)
    env.update({"SPARK_HOME": str(home), "SPARK_CONF_DIR": str(conf_dir), "SPARK_LOCAL_IP": "127.0.0.1",
                "SPARK_DAEMON_MEMORY": DAEMON_HEAP, "SPARK_DAEMON_JAVA_OPTS": DAEMON_JAVA_OPTIONS})
    return env


def start(directory: Path, *, workers: int = 1, cores: int = 1, memory: str = DEFAULT_MEMORY,
          ready_timeout_s: float = DEFAULT_READY_TIMEOUT_S, detach: bool = True) -> Cluster:
    """Start a master and ``workers`` workers of ``cores`` cores and ``memory`` each, on free ports
    of 127.0.0.1, with their logs and work folders in ``directory``; return once every worker is
    registered.

    A folder whose cluster still runs is refused. ``detach`` puts the daemons in a session of
    their own, so that the end of ``groupspec spark-cluster start`` (or a Ctrl-C in its terminal)
    does not reach them; a test leaves them attached, so that a Ctrl-C of pytest ends them too.
    """
    for field, value in (("--workers", workers), ("--cores", cores)):
        if value < 1:
            raise InputError(field, f"must be >= 1, got {value}")
    check_memory(memory)
    if ready_timeout_s <= 0:
        raise InputError("--timeout", f"{ready_timeout_s:g} is not a positive number of seconds")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise SparkClusterError("needs 'java' on PATH (or JAVA_HOME): Spark's daemons are JVMs")
    directory = Path(directory).resolve()
    old = statefile.still_running(directory, STATE_FILE, ClusterState.read,
                                  lambda state: any(d.alive() for d in Cluster(state).daemons()))
    if old is not None:
        raise SparkClusterError(f"a Spark cluster already runs from {directory}: {old.master_url}; "
                                "stop it first")
    home = spark_home()
    logs, conf, work = directory / "logs", directory / "conf", directory / "work"
    for folder in (logs, conf, work):
        folder.mkdir(parents=True, exist_ok=True)
    (conf / "spark-defaults.conf").write_text("".join(f"{k} {v}\n" for k, v in DAEMON_SETTINGS.items()))
    env = daemon_environment(home, conf)
    spark_class = str(home / "bin" / "spark-class")
    children: dict[int, subprocess.Popen[bytes]] = {}
    launched: list[tuple[_Daemon, Path]] = []

    def launch(name: str, main_class: str, args: list[str]) -> DaemonState:
        log = logs / f"{name}.log"
        ui_port = free_port()
        with open(log, "wb") as out:
            child = subprocess.Popen([spark_class, main_class, "--host", "127.0.0.1",
                                      "--webui-port", str(ui_port), *args],
                                     stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                     env=env, cwd=directory, start_new_session=detach)
        children[child.pid] = child
        launched.append((_Daemon(child.pid, main_class, child), log))
        return DaemonState(child.pid, str(log), ui_port)

    try:
        port = free_port()
        master = launch("master", MASTER_CLASS, ["--port", str(port)])
        master_url = f"spark://127.0.0.1:{port}"
        ui_url = f"http://127.0.0.1:{master.ui_port}"
        # A worker that finds no master retries after 5 to 15 s: start them once it answers.
        waited = wait_ready(launched, ui_url, 0, ready_timeout_s)
        started = [launch(f"worker-{n}", WORKER_CLASS,
                          ["--cores", str(cores), "--memory", memory, "--work-dir", str(work / f"worker-{n}"),
                           master_url]) for n in range(1, workers + 1)]
        state = ClusterState(master_url=master_url, ui_url=ui_url,
                             directory=str(directory), spark_home=str(home), master=master,
                             workers=tuple(started), cores=cores, memory=memory, started_at=time.time())
        statefile.write(directory, STATE_FILE, state)
        ready = waited + wait_ready(launched, ui_url, workers, ready_timeout_s - waited)
    except BaseException:
        for daemon, _ in reversed(launched):
            stop_process(daemon, 10.0)
        (directory / STATE_FILE).unlink(missing_ok=True)
        raise
    return Cluster(state, ready, children)


def attach(directory: Path) -> Cluster:
    """The cluster started in ``directory`` (by this or another process), from its state file."""
    return Cluster(ClusterState.read(Path(directory).resolve()))


def status(directory: Path) -> dict[str, Any]:
    """What ``groupspec spark-cluster status`` prints: the state file, which daemons run, their
    memory and (when the master answers) the workers it lists alive and its applications."""
    cluster = attach(directory)
    daemons = cluster.daemons()
    out: dict[str, Any] = {"running": all(d.alive() for d in daemons), **dataclasses.asdict(cluster.state)}
    out["daemons"] = [{"pid": d.pid, "class": d.main_class.rsplit(".", 1)[-1], "alive": d.alive(),
                       "rss_kib": memory_kib(d.pid) if d.alive() else None} for d in daemons]
    if any(d.alive() for d in daemons):
        try:
            answer = master_status(cluster.state.ui_url)
            out["alive_workers"] = alive_workers(answer)
            out["cores_free"] = sum(w.get("coresfree", 0) for w in answer.get("workers", ())
                                    if w.get("state") == "ALIVE")
            out["active_apps"] = [a.get("name") for a in answer.get("activeapps", ())]
        except (OSError, ValueError) as exc:
            out["answering"] = f"no: {exc}"
    return out

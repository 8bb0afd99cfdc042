"""A real Kafka broker on this machine: one KRaft node (broker and controller) from Maven jars.

Why: groupspec's coordinator logs, decoder and (later) wire client must meet a coordinator that
Kafka itself runs, not only Kafka's classes driven one call at a time (``--target kafka``). A
node of Kafka 4.2.1 needs no installation here: Maven resolves ``kafka_2.13`` and its runtime
dependencies from Maven Central into a cache directory (like the Kafka adapter's build, offline
first), and ``java`` runs ``kafka.tools.StorageTool`` to format it and ``kafka.Kafka`` to start it.

The node is made for tests: every coordinator topic has one partition (so the records of all
groups land in ``__consumer_offsets-0`` and ``__share_group_state-0``), share groups are on
(feature ``share.version=1``), the group minimums (session timeouts, heartbeat intervals, record
lock duration) are low so that a group's own configuration can make a test quick, and both
listeners take free ports on 127.0.0.1. ``FAST_TEST_SETTINGS`` holds them; ``overrides`` adds to
or replaces them.

A started node is described by its state file (``broker.json`` in its directory): the pid, the
bootstrap address and where its data and logs are. ``groupspec broker stop|status`` find the node
through it, so the process that started it may have exited. Readiness is Kafka answering an
ApiVersions request on the broker listener (a request handled, not merely a port accepting); its
answer also carries the finalized features, ``share.version`` among them.

Time is a parameter (``now``, ``sleep``) of everything that waits, so the waiting logic is tested
without a JVM or a real clock.
"""

from __future__ import annotations

import base64
import dataclasses
import fcntl
import hashlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groupspec import statefile
from groupspec.types import GroupspecError, InputError

#: The Kafka releases whose broker this module runs (the settings below are checked on these).
VERSIONS = ("4.2.1",)
DEFAULT_VERSION = "4.2.1"
#: Kafka's own build binds slf4j 1.7 to log4j2 with log4j-slf4j-impl (its ``log4jReleaseLibs``);
#: the slf4j2 bridge would find no slf4j 2 API and the broker would log nothing.
LOG4J_VERSION = "2.25.1"
#: Pinned so that the offline attempt finds the plugin the Kafka adapter's build already fetched.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"
RESOLVE_TIMEOUT_S = 900.0
STATE_FILE = "broker.json"
#: A modest heap: a test node holds a few small topics (Kafka's scripts default to 1 GiB).
DEFAULT_HEAP = "256m"
#: The client compiler only and a serial collector: a quicker start and a smaller footprint on
#: few cores (measured: docs/broker.md); a test node is never busy enough to need C2.
JVM_OPTIONS = ("-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true")
DEFAULT_READY_TIMEOUT_S = 120.0
DEFAULT_STOP_TIMEOUT_S = 30.0
LOG_TAIL_LINES = 30

#: Kafka's ranges for these are in GroupCoordinatorConfig, ShareGroupConfig and
#: ShareCoordinatorConfig: a minimum must stay <= its default, the lock minimum >= 1000.
FAST_TEST_SETTINGS: dict[str, str] = {
    "num.partitions": "1",
    "num.network.threads": "2",
    "num.io.threads": "2",
    "offsets.topic.num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "share.coordinator.state.topic.num.partitions": "1",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    # A snapshot every few updates: a short test sees both ShareSnapshot and ShareUpdate records.
    "share.coordinator.snapshot.update.records.per.snapshot": "3",
    # The log cleaner takes its dedupe buffer (128 MiB by default) from the heap at start: a small
    # node keeps a small one, or a modest -Xmx fails with OutOfMemoryError in LogCleaner.
    "log.cleaner.dedupe.buffer.size": str(16 * 1024 * 1024),
    "group.initial.rebalance.delay.ms": "0",
    "group.min.session.timeout.ms": "1000",
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.min.heartbeat.interval.ms": "100",
    "group.share.min.session.timeout.ms": "1000",
    "group.share.min.heartbeat.interval.ms": "100",
    "group.share.min.record.lock.duration.ms": "1000",
}

_POM = """<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by groupspec.broker: the jars of a Kafka {version} broker, nothing built. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>groupspec</groupId>
  <artifactId>groupspec-kafka-broker</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>{version}</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j-impl</artifactId>
      <version>{log4j}</version>
    </dependency>
  </dependencies>
</project>
"""

_LOG4J2 = """status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:groupspec.broker.log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = INFO
"""


class BrokerError(GroupspecError):
    """The broker could not be resolved, started, reached or stopped; the message says why."""


class ToolMissingError(BrokerError):
    """``java`` or ``mvn`` is not on PATH."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        super().__init__(f"needs {tool!r} on PATH (Java 17 runs the broker, Maven fetches its jars "
                         "from Maven Central)")


class BrokerStartError(BrokerError):
    """Formatting or starting failed, the process died, or it never answered; ``log_tail`` holds
    the last lines it wrote."""

    def __init__(self, what: str, log_tail: str) -> None:
        self.log_tail = log_tail
        tail = f"\nlast lines of its log:\n{log_tail}" if log_tail else "\n(its log is empty)"
        super().__init__(f"{what}{tail}")


class NotRunningError(BrokerError):
    """No broker was started in that directory, or it has stopped."""


def tools_available() -> str | None:
    """None when Java and Maven are on PATH, else what is missing (a skip reason for tests)."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    return None if not missing else f"{' and '.join(missing)} not on PATH"


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise ToolMissingError(tool)
    return found


def check_version(version: str) -> str:
    if version not in VERSIONS:
        raise InputError("--kafka-version", f"no broker settings checked for Kafka {version!r}; "
                         f"known: {', '.join(VERSIONS)}")
    return version


def cache_root() -> Path:
    """The same cache directory as the Kafka adapter's build (``$GROUPSPEC_CACHE`` etc.)."""
    from groupspec.conformance.kafka_target import cache_root as adapter_cache_root

    return adapter_cache_root()


# -- resolving the jars -----------------------------------------------------------------------------


def resolve(version: str = DEFAULT_VERSION, cache: Path | None = None) -> Path:
    """The directory of the broker's jars (every runtime dependency), fetched on first use.

    The cache entry is named by the version and a digest of the pom, so a changed dependency list
    resolves again and an unchanged one never does.
    """
    check_version(version)
    pom = _POM.format(version=version, log4j=LOG4J_VERSION)
    digest = hashlib.sha256(pom.encode()).hexdigest()[:16]
    out = (cache or cache_root()) / "kafka-broker" / f"{version}-{digest}"
    lib = out / "lib"
    if (out / "complete").is_file():
        return lib
    mvn = _need("mvn")
    _need("java")
    out.parent.mkdir(parents=True, exist_ok=True)
    # Two test workers may ask at once: the second waits and finds the first's.
    with open(out.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (out / "complete").is_file():
            return lib
        _resolve(mvn, pom, out)
    return lib


def _resolve(mvn: str, pom: str, out: Path) -> None:
    print(f"fetching the Kafka broker's jars into {out} (Maven; first use only)", file=sys.stderr)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        work = Path(tmp) / "out"
        work.mkdir()
        (work / "pom.xml").write_text(pom)
        failure = ""
        for offline in (True, False):
            argv = [mvn, "-q", "-B", *(["-o"] if offline else []), "-f", str(work / "pom.xml"),
                    f"{DEPENDENCY_PLUGIN}:copy-dependencies", f"-DoutputDirectory={work / 'lib'}",
                    "-DincludeScope=runtime"]
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                failure = f"Maven took over {RESOLVE_TIMEOUT_S:.0f} s"
                continue
            if done.returncode == 0 and any((work / "lib").glob("kafka_2.13-*.jar")):
                break
            failure = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        else:
            raise BrokerError(f"Maven could not fetch the broker's jars:\n{failure}")
        (work / "complete").write_text("")
        shutil.rmtree(out, ignore_errors=True)
        work.rename(out)


# -- the node's files -------------------------------------------------------------------------------


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the OS picks it; a race with another process is possible,
    and a broker losing it fails to start with the bind error in its log)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((host, 0))
            port: int = s.getsockname()[1]
            return port
    except OSError as exc:
        raise BrokerError(f"no free port on {host}: {exc}") from None


def server_properties(port: int, controller_port: int, data_dir: Path,
                      overrides: Mapping[str, str] = {}) -> str:
    """The node's server.properties: listeners on 127.0.0.1, then the test settings."""
    listeners = f"PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}"
    settings = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.bootstrap.servers": f"127.0.0.1:{controller_port}",
        "listeners": listeners,
        "advertised.listeners": listeners,
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(data_dir),
        **FAST_TEST_SETTINGS,
        **overrides,
    }
    for key, value in settings.items():
        if not key or any(c in key for c in "=:\n ") or "\n" in value:
            raise InputError("--set", f"{key}={value!r} is not a property line")
    return "".join(f"{key}={value}\n" for key, value in settings.items())


def parse_overrides(items: Iterable[str]) -> dict[str, str]:
    """``key=value`` strings (``--set``) as a mapping."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError("--set", f"{item!r} is not KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


@dataclass(frozen=True)
class BrokerState:
    """What the state file says about a node: enough to reach, inspect and stop it."""

    pid: int
    bootstrap: str
    controller: str
    directory: str
    data_dir: str
    log_file: str
    version: str
    started_at: float

    def to_json(self) -> str:
        return statefile.dumps(self)

    @staticmethod
    def read(directory: Path) -> BrokerState:
        return statefile.read(directory, STATE_FILE, "broker",
                              lambda raw: BrokerState(**statefile.fields(BrokerState, raw)),
                              missing=NotRunningError, invalid=BrokerError)


def log_tail(*files: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last lines of the first of ``files`` that has any (the log, then the console)."""
    for file in files:
        try:
            text = file.read_text(errors="replace")
        except OSError:
            continue
        if text.strip():
            return "\n".join(text.rstrip().splitlines()[-lines:])
    return ""


# -- the readiness probe ----------------------------------------------------------------------------

#: The probe reads the cluster's finalized features (ApiVersions v3 and later), which say whether
#: share groups are on; the API list alone does not (a node formatted with share.version=0 lists
#: ShareGroupHeartbeat all the same, checked on 4.2.1).


@dataclass(frozen=True)
class ApiVersionsAnswer:
    """What a node told the probe: each API key with its version range, and the finalized
    features (name -> (min level, max level)) at ``features_epoch`` (-1: not known)."""

    apis: dict[int, tuple[int, int]]
    features: dict[str, tuple[int, int]]
    features_epoch: int
    #: How the negotiation departed from Kafka's way of answering ("": it did not); see
    #: :attr:`groupspec.wire.connection.Connection.fallback`.
    fallback: str = ""


def api_versions(host: str, port: int, timeout_s: float = 2.0) -> ApiVersionsAnswer:
    """ApiVersions over groupspec's own wire client: the APIs and the finalized features.

    A wrong or cut answer, or an error code, raises BrokerError naming what was wrong; a refused,
    closed or silent socket raises OSError (``timeout_s`` bounds the whole exchange), so
    :func:`wait_ready` can tell "not up yet" from "not Kafka".
    """
    from groupspec.wire import errors as wire_errors
    from groupspec.wire.connection import Connection

    where = f"{host}:{port}"
    try:
        with Connection.connect(host, port, timeout=timeout_s, client_id="groupspec-broker-probe",
                                negotiate=False) as conn:
            answer = conn.negotiate()
    except (wire_errors.ConnectError, wire_errors.ClosedError, wire_errors.WireTimeoutError) as exc:
        raise ConnectionError(f"{where}: {exc}") from None
    except wire_errors.WireError as exc:
        raise BrokerError(f"{where}: {exc}") from None
    apis = {k.api_key: (k.min_version, k.max_version) for k in answer.api_keys}
    features = {f.name: (f.min_version_level, f.max_version_level) for f in answer.finalized_features}
    return ApiVersionsAnswer(apis, features, answer.finalized_features_epoch, conn.fallback)


class _Process(statefile.Process):
    """A node's process: alive only while its pid still runs ``kafka.Kafka``."""

    def __init__(self, pid: int, child: subprocess.Popen[bytes] | None = None) -> None:
        super().__init__(pid, b"kafka.Kafka", child)


def wait_ready(process: _Process, host: str, port: int, logs: tuple[Path, ...], timeout_s: float,
               *, now: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], None] = time.sleep,
               probe: Callable[[str, int], object] = api_versions) -> float:
    """Wait until the node answers ApiVersions; the seconds it took.

    A node that exits first, or is not answering after ``timeout_s``, is a BrokerStartError with
    its log tail (the caller stops what is left of it).
    """
    start = now()
    while True:
        if not process.alive():
            code = process.exit_code()
            ended = f" with status {code}" if code is not None else ""
            raise BrokerStartError(f"the broker (pid {process.pid}) exited{ended} before it was ready",
                                   log_tail(*logs))
        try:
            probe(host, port)
            return now() - start
        except (OSError, BrokerError):
            pass
        if now() - start >= timeout_s:
            raise BrokerStartError(f"the broker (pid {process.pid}) did not answer ApiVersions on "
                                   f"{host}:{port} within {timeout_s:g} s", log_tail(*logs))
        sleep(0.2)


def stop_process(process: statefile.Process, timeout_s: float = DEFAULT_STOP_TIMEOUT_S, *,
                 now: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> bool:
    """SIGTERM (Kafka's controlled shutdown), then SIGKILL after ``timeout_s``; True if it had to
    be killed."""
    if not process.alive():
        return False
    process.signal(signal.SIGTERM)
    start = now()
    while process.alive():
        if now() - start >= timeout_s:
            process.signal(signal.SIGKILL)
            if process.child is not None:
                process.child.wait()
            return True
        sleep(0.1)
    return False


# -- a node -----------------------------------------------------------------------------------------


@dataclass
class Broker:
    """A started node. ``stop()`` ends it; the state file and data stay unless removed."""

    state: BrokerState
    process: _Process
    ready_s: float = 0.0

    @property
    def bootstrap(self) -> str:
        return self.state.bootstrap

    @property
    def data_dir(self) -> Path:
        return Path(self.state.data_dir)

    @property
    def directory(self) -> Path:
        return Path(self.state.directory)

    def partition_dir(self, topic: str, partition: int = 0) -> Path:
        return self.data_dir / f"{topic}-{partition}"

    def alive(self) -> bool:
        return self.process.alive()

    def rss_kib(self) -> int | None:
        return memory_kib(self.state.pid)

    def stop(self, timeout_s: float = DEFAULT_STOP_TIMEOUT_S, *, remove: bool = False) -> bool:
        """Stop the node (True if it had to be killed); ``remove`` deletes its whole directory.

        The state file stays otherwise, so ``status`` can say where the stopped node's data is.
        """
        killed = stop_process(self.process, timeout_s)
        if remove:
            shutil.rmtree(self.directory, ignore_errors=True)
        return killed


def memory_kib(pid: int, field: str = "VmRSS") -> int | None:
    """A Linux process's resident memory (``VmRSS``, or its peak ``VmHWM``) in KiB; None elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def start(directory: Path, *, version: str = DEFAULT_VERSION, overrides: Mapping[str, str] = {},
          heap: str = DEFAULT_HEAP, ready_timeout_s: float = DEFAULT_READY_TIMEOUT_S,
          reset: bool = False, cache: Path | None = None, detach: bool = True) -> Broker:
    """Resolve, format and start a node in ``directory``; return it once it answers.

    ``directory`` gets server.properties, log4j2.properties, ``data/`` (the log dirs), ``logs/``
    and the state file. A directory whose node still runs is refused; one holding an earlier
    node's data is refused unless ``reset`` (which deletes it): formatting binds the data to one
    controller address. ``detach`` puts the node in a session of its own, so that a Ctrl-C in the
    terminal that ran ``groupspec broker start``, or the end of that command, does not reach it;
    the test fixture leaves it attached, so that a Ctrl-C of pytest ends it too.
    """
    directory = Path(directory).resolve()
    check_version(version)
    if not re.fullmatch(r"[1-9][0-9]*[kKmMgG]?", heap):
        raise InputError("--heap", f"{heap!r} is not a JVM heap size such as 256m or 1g")
    java = _need("java")
    old = statefile.still_running(directory, STATE_FILE, BrokerState.read,
                                  lambda state: _Process(state.pid).alive())
    if old is not None:
        raise BrokerError(f"a broker already runs from {directory}: pid {old.pid}, "
                          f"bootstrap {old.bootstrap}")
    data_dir = directory / "data"
    if data_dir.exists():
        if not reset:
            raise BrokerError(f"{data_dir} holds an earlier broker's data: choose another directory, "
                              "or reset it (--reset deletes it)")
        shutil.rmtree(data_dir)
    lib = resolve(version, cache)
    jvm = [java, f"-Xmx{heap}", *JVM_OPTIONS, "-cp", str(lib / "*")]
    try:
        return _launch(directory, jvm, version, overrides, ready_timeout_s, detach)
    except BrokerStartError as exc:
        # The ports were free when picked; another process may have taken one since.
        if "Address already in use" not in exc.log_tail:
            raise
        shutil.rmtree(data_dir, ignore_errors=True)
        return _launch(directory, jvm, version, overrides, ready_timeout_s, detach)


def _launch(directory: Path, jvm: list[str], version: str, overrides: Mapping[str, str],
            ready_timeout_s: float, detach: bool) -> Broker:
    """One attempt: ports, files, format, start, wait."""
    data_dir = directory / "data"
    logs = directory / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    port, controller_port = free_port(), free_port()
    while controller_port == port:
        controller_port = free_port()
    props = directory / "server.properties"
    props.write_text(server_properties(port, controller_port, data_dir, overrides))
    log4j = directory / "log4j2.properties"
    log4j.write_text(_LOG4J2)
    server_log, console = logs / "server.log", logs / "console.log"
    for f in (server_log, console):
        f.write_text("")
    jvm = [*jvm, f"-Dlog4j2.configurationFile={log4j}", f"-Dgroupspec.broker.log={server_log}"]
    _format(jvm, props, logs)
    with open(console, "ab") as out:
        child = subprocess.Popen([*jvm, "kafka.Kafka", str(props)], stdin=subprocess.DEVNULL,
                                 stdout=out, stderr=subprocess.STDOUT, start_new_session=detach)
    state = BrokerState(pid=child.pid, bootstrap=f"127.0.0.1:{port}",
                        controller=f"127.0.0.1:{controller_port}", directory=str(directory),
                        data_dir=str(data_dir), log_file=str(server_log), version=version,
                        started_at=time.time())
    existing = statefile.write(directory, STATE_FILE, state)
    process = _Process(child.pid, child)
    try:
        ready = wait_ready(process, "127.0.0.1", port, (server_log, console), ready_timeout_s)
    except BaseException:
        stop_process(process, 10.0)
        existing.unlink(missing_ok=True)
        raise
    return Broker(state, process, ready)


def cluster_id() -> str:
    """What ``StorageTool random-uuid`` prints, without a JVM start (a second of a node's start):
    a random UUID in Kafka's URL-safe base64 form, never starting with '-' (Uuid.randomUuid in
    kafka-clients; a version-4 UUID is never one of its reserved ids)."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def _format(jvm: list[str], props: Path, logs: Path) -> None:
    """``StorageTool format --standalone`` with share groups on: the node's metadata log."""
    tool = [*jvm, "kafka.tools.StorageTool"]
    try:
        done = subprocess.run([*tool, "format", "-t", cluster_id(), "-c", str(props), "--standalone",
                               "--feature", "share.version=1"],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as exc:
        raise BrokerStartError(f"StorageTool took over {exc.timeout:g} s", "") from None
    (logs / "format.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise BrokerStartError(f"StorageTool format failed (status {done.returncode})",
                               log_tail(logs / "format.log", logs / "server.log"))


def attach(directory: Path) -> Broker:
    """The node started in ``directory`` (by this or another process), from its state file."""
    state = BrokerState.read(Path(directory).resolve())
    return Broker(state, _Process(state.pid))


def status(directory: Path) -> dict[str, Any]:
    """What ``groupspec broker status`` prints: the state file, whether it runs, its memory and
    (when it answers) how many APIs it serves."""
    broker = attach(directory)
    running = broker.alive()
    out: dict[str, Any] = {"running": running, **dataclasses.asdict(broker.state)}
    if running:
        out["rss_kib"] = broker.rss_kib()
        host, _, port = broker.bootstrap.rpartition(":")
        try:
            answer = api_versions(host, int(port))
            out["apis"] = len(answer.apis)
            out["features"] = {name: high for name, (_, high) in sorted(answer.features.items())}
            out["share_groups"] = answer.features.get("share.version", (0, 0))[1] >= 1
        except (OSError, BrokerError) as exc:
            out["answering"] = f"no: {exc}"
    return out

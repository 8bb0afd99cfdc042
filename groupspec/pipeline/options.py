"""Checking a Spark job's options before any JVM starts, and starting Spark with one-line errors.

Why a module of its own: a Spark session costs seconds to start, so a typo in ``--out`` or
``--master`` must be caught before that, and every Spark job of groupspec (the sweep now; later
jobs read logs or fuzz) takes the same ``--master``, ``--out``, ``--overwrite`` and
``--partitions`` options and must refuse them the same way. Everything here raises
:class:`~groupspec.types.InputError` (the CLI prints ``groupspec <command>: error: <field>:
<problem>`` and exits 2) or :class:`~groupspec.types.GroupspecError`; nothing imports pyspark
until :func:`start_spark`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import socket
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from groupspec.types import GroupspecError, InputError

#: The master URL forms Spark 4 accepts, for the error message.
MASTER_FORMS = ("local", "local[N]", "local[*]", "local[N,F]", "local-cluster[N,C,M]",
                "spark://HOST:PORT[,HOST:PORT...]", "yarn", "k8s://[https://]HOST[:PORT]")

_LOCAL = re.compile(r"local(?:\[\s*(?P<n>[0-9]+|\*)\s*(?:,\s*(?P<f>[0-9]+)\s*)?\])?")
_LOCAL_CLUSTER = re.compile(r"local-cluster\[\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*\]")
_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]+)")

#: Seconds to wait for a standalone master's port before calling it unreachable.
CONNECT_TIMEOUT = 5.0


def at_least(field: str, value: int | None, low: int) -> None:
    """``value`` (None means "not given") must be an integer >= ``low``."""
    if value is not None and value < low:
        raise InputError(field, f"must be >= {low}, got {value}")


def check_master(master: str | None, field: str = "--master") -> None:
    """Refuse a master URL Spark would reject, by its form alone (no network, no JVM).

    The forms are those of Spark 4's ``SparkContext.createTaskScheduler`` and the cluster
    managers shipped with PySpark (standalone, YARN, Kubernetes). Mesos was removed in Spark 4.0,
    so ``mesos://`` is refused with that reason rather than Spark's "Could not parse Master URL".
    """
    if master is None:
        return
    text = master.strip()
    if not text:
        raise InputError(field, "empty master URL")
    if match := _LOCAL.fullmatch(text):
        threads, failures = match.group("n"), match.group("f")
        if threads is not None and threads != "*" and int(threads) < 1:
            raise InputError(field, f"{master!r}: a local master needs at least 1 thread")
        if failures is not None and int(failures) < 1:
            raise InputError(field, f"{master!r}: the task failure limit F must be >= 1")
        return
    if match := _LOCAL_CLUSTER.fullmatch(text):
        if min(int(g) for g in match.groups()) < 1:
            raise InputError(field, f"{master!r}: workers, cores and memory must be >= 1")
        return
    if text == "yarn":
        if not (os.environ.get("HADOOP_CONF_DIR") or os.environ.get("YARN_CONF_DIR")):
            raise InputError(field, "'yarn' needs HADOOP_CONF_DIR or YARN_CONF_DIR in the "
                             "environment (the folder with the cluster's yarn-site.xml)")
        return
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise InputError(field, f"{master!r} is not a Spark master URL; expected one of "
                         f"{', '.join(MASTER_FORMS)}")
    if scheme == "spark":
        for part in rest.split(","):
            _host_port(field, master, part)
        return
    if scheme == "k8s":
        api = rest if "://" in rest else f"https://{rest}"
        parts = urlsplit(api)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(field, f"{master!r}: expected k8s://[https://]HOST[:PORT] (the "
                             "Kubernetes API server)")
        return
    if scheme == "mesos":
        raise InputError(field, f"{master!r}: Mesos support was removed in Spark 4.0, which "
                         "groupspec's pipeline needs; use a standalone, YARN or Kubernetes master")
    raise InputError(field, f"{master!r}: unknown scheme {scheme + '://'!r}; expected one of "
                     f"{', '.join(MASTER_FORMS)}")


def _host_port(field: str, master: str, part: str) -> tuple[str, int]:
    match = _HOST_PORT.fullmatch(part.strip())
    if match is None:
        raise InputError(field, f"{master!r}: expected spark://HOST:PORT, got {part!r}")
    port = int(match.group("port"))
    if not 1 <= port <= 65535:
        raise InputError(field, f"{master!r}: port {port} is out of range 1-65535")
    return match.group("host").strip("[]"), port


def check_reachable(master: str | None, field: str = "--master",
                    timeout: float = CONNECT_TIMEOUT) -> None:
    """For a standalone master, open (and close) a TCP connection to each of its addresses.

    Spark itself would start, then retry registering with an unreachable master for about a
    minute before giving up with stack traces; one refused connection says the same at once.
    Other masters are left to Spark: their reachability depends on configuration read later.
    """
    if master is None or not master.strip().startswith("spark://"):
        return
    reasons = []
    parts = master.strip().removeprefix("spark://").split(",")
    for part in parts:
        host, port = _host_port(field, master, part)
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return  # one live master of an HA list is enough
        except OSError as exc:
            reasons.append(f"{host}:{port}: {_os_reason(exc)}")
    raise InputError(field, f"cannot reach the Spark master ({'; '.join(reasons)})")


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, socket.gaierror):
        return "unknown host"
    if isinstance(exc, TimeoutError | socket.timeout):
        return "timed out"
    return (exc.strerror or str(exc)).lower()


def is_local_path(uri: str) -> bool:
    """True when ``uri`` names the local file system (a plain path or ``file:``)."""
    scheme = urlsplit(uri).scheme
    return scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt")


@dataclass
class OutDir:
    """An output folder checked (and created) before Spark starts.

    ``created`` lists the folders this check made, so :meth:`discard` can take them away again
    when the job fails before writing anything.
    """

    path: Path
    created: list[Path]

    def discard(self) -> None:
        """Remove the folders the check created, if they are still empty."""
        for folder in reversed(self.created):
            with contextlib.suppress(OSError):
                folder.rmdir()


def check_out_dir(out: str | os.PathLike[str], *, overwrite: bool, outputs: Iterable[str],
                  field: str = "--out") -> Path:
    """Refuse an output folder that is an existing file, that already holds something (unless
    ``overwrite``: then only the named outputs are replaced and anything else in it stays), or
    whose nearest existing ancestor is a file. Creates nothing."""
    path = Path(out).expanduser()
    names = ", ".join(outputs)
    if path.exists() and not path.is_dir():
        raise InputError(field, f"{path} is an existing file; give a folder for {names}")
    if path.is_dir():
        try:
            taken = next(iter(path.iterdir()), None) is not None
        except OSError as exc:
            raise InputError(field, f"cannot read {path}: {_os_reason(exc)}") from None
        if taken and not overwrite:
            raise InputError(field, f"{path} is not empty; pass --overwrite to replace {names} "
                             "there, or choose another folder")
    for folder in path.absolute().parents:
        if folder.exists():
            if not folder.is_dir():
                raise InputError(field, f"{folder} is a file, so {path} cannot be created")
            break
    return path


def prepare_out_dir(out: str | os.PathLike[str], *, overwrite: bool, outputs: Iterable[str],
                    field: str = "--out") -> OutDir:
    """:func:`check_out_dir`, then create the folder and prove it writable.

    Writability is probed by creating and removing a file, because ``os.access`` says yes to
    root even on read-only or pseudo file systems.
    """
    path = check_out_dir(out, overwrite=overwrite, outputs=outputs, field=field)
    created: list[Path] = []
    for folder in [*reversed(path.absolute().parents), path.absolute()]:
        if folder.exists():
            continue
        try:
            folder.mkdir()
        except OSError as exc:
            OutDir(path, created).discard()
            raise InputError(field, f"cannot create {folder}: {_os_reason(exc)}") from None
        created.append(folder)
    try:
        fd, probe = tempfile.mkstemp(prefix=".groupspec-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        OutDir(path, created).discard()
        raise InputError(field, f"cannot write in {path}: {_os_reason(exc)}") from None
    return OutDir(path, created)


def check_local_table(uri: str | None, *, overwrite: bool, field: str = "--parquet") -> None:
    """A table path on the local file system must not be a file, nor hold data unless
    ``overwrite``; its nearest existing folder must be a folder. Remote URIs are Spark's to
    judge (it refuses an existing table itself unless the job overwrites)."""
    if uri is None or not is_local_path(uri):
        return
    path = Path(urlsplit(uri).path if uri.startswith("file:") else uri).expanduser()
    if path.exists() and not path.is_dir():
        raise InputError(field, f"{path} is an existing file; Spark writes a table as a folder")
    if path.is_dir() and next(iter(path.iterdir()), None) is not None and not overwrite:
        raise InputError(field, f"{path} already holds data; pass --overwrite to replace it")
    for folder in path.absolute().parents:
        if folder.exists():
            if not folder.is_dir():
                raise InputError(field, f"{folder} is a file, so {path} cannot be created")
            break


# ---------------------------------------------------------------------------------------------
# Options every Spark job shares
# ---------------------------------------------------------------------------------------------


def add_spark_arguments(parser: argparse.ArgumentParser, *, default_out: str, outputs: str,
                        partitions_help: str = "Spark partitions (tasks) to split the work "
                        "into") -> None:
    """``--out``, ``--overwrite``, ``--master``, ``--partitions``, ``--quiet``, spelled the same
    for every Spark job of groupspec; :func:`check_spark_arguments` checks them."""
    parser.add_argument("--out", default=default_out, metavar="DIR",
                        help=f"folder for {outputs} (default {default_out}); it must be new or "
                        "empty unless --overwrite")
    parser.add_argument("--overwrite", action="store_true",
                        help="write into a folder (and a --parquet path) that already holds "
                        "files, replacing this job's outputs there")
    parser.add_argument("--master", default=None, metavar="URL",
                        help="Spark master: local[*] (default), local[2], spark://host:7077, "
                        "yarn, k8s://...; under spark-submit, its --master is used")
    parser.add_argument("--partitions", type=int, default=None, metavar="K", help=partitions_help)
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")


def check_spark_arguments(args: argparse.Namespace, *, outputs: Iterable[str]) -> OutDir:
    """Check the shared options and create the output folder, before any JVM starts.

    Order: the options' forms first, then the file system (nothing is created while a later
    check can still fail, except the folder itself), the network (a standalone master's port)
    last but one, so that a refused option leaves nothing behind. Raises InputError.
    """
    at_least("--partitions", args.partitions, 1)
    check_master(args.master)
    check_local_table(getattr(args, "parquet", None), overwrite=args.overwrite)
    check_out_dir(args.out, overwrite=args.overwrite, outputs=outputs)
    check_reachable(args.master)
    return prepare_out_dir(args.out, overwrite=args.overwrite, outputs=outputs)


# ---------------------------------------------------------------------------------------------
# Starting Spark
# ---------------------------------------------------------------------------------------------


class _JvmStderr:
    """Holds back what the JVM writes to stderr while it starts, and lets it through afterwards.

    The JVM is a child process writing straight to the inherited file descriptor 2, below
    anything Python can catch: when it fails to start, spark-submit prints its error and a Java
    stack trace there. During the start, descriptor 2 is a pipe read by a thread. If the start
    succeeds, what was held back and everything the JVM writes later is copied to the real
    stderr (so errors during a job still show); if it fails, the text is kept for the one-line
    error instead. Python's own descriptor 2 is restored as soon as the start is over.
    """

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.forwarding = self.ended = False
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.saved = -1
        self.forward_fd = -1

    def __enter__(self) -> _JvmStderr:
        sys.stderr.flush()
        read_fd, write_fd = os.pipe()
        self.saved = os.dup(2)
        self.forward_fd = os.dup(2)
        os.dup2(write_fd, 2)
        os.close(write_fd)
        self.thread = threading.Thread(target=self._pump, args=(read_fd,), daemon=True,
                                       name="groupspec-jvm-stderr")
        self.thread.start()
        return self

    def _pump(self, read_fd: int) -> None:
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while data := pipe.read(65536):
                with self.lock:
                    if self.forwarding:
                        self._write(data)
                    else:
                        self.chunks.append(data)
        with self.lock:  # the JVM is gone; keep the descriptor only for a release to come
            self.ended = True
            if self.forwarding:
                self._close_forward()

    def _write(self, data: bytes) -> None:
        """Copy to the real stderr; a closed terminal must not kill the pump with a traceback."""
        view = memoryview(data)
        with contextlib.suppress(OSError):
            while view and self.forward_fd >= 0:
                view = view[os.write(self.forward_fd, view):]

    def _close_forward(self) -> None:
        if self.forward_fd >= 0:
            os.close(self.forward_fd)
            self.forward_fd = -1

    def __exit__(self, *exc: object) -> None:
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)

    def discard(self) -> None:
        """The start failed: drop the descriptor kept for forwarding (the text stays)."""
        with self.lock:
            self.forwarding = False
            self._close_forward()

    def release(self, show_held: bool = True) -> None:
        """The start succeeded: show what was held back (unless ``show_held`` is False), and
        forward from now on."""
        with self.lock:
            for chunk in self.chunks if show_held else ():
                self._write(chunk)
            self.chunks.clear()
            self.forwarding = True
            if self.ended:
                self._close_forward()

    def text(self, wait: float = 1.0) -> str:
        """What the JVM wrote: all of it once it has exited; if it is still running (it failed
        inside SparkContext), what reached the pipe within ``wait`` seconds."""
        if self.thread is not None:
            self.thread.join(wait)
        with self.lock:
            return b"".join(self.chunks).decode("utf-8", "replace")


def start_spark(master: str | None, app_name: str, conf: Mapping[str, str] | None = None,
                quiet_start: bool = False, executor_modules: Sequence[str] = (),
                executor_paths: Sequence[str] = (), paths_for: str = "") -> Any:
    """A SparkSession from :func:`groupspec.pipeline.session.get_spark`; a failure to start is
    one :class:`GroupspecError` line (the innermost cause Spark gave) instead of Java and Python
    stack traces. ``quiet_start`` drops what the JVM wrote while a start succeeded: with
    ``spark.jars.packages`` that is Ivy's resolution report, dozens of lines (warnings about
    repositories it tried first included) that say nothing once the jars are there.

    On a cluster (any master but a local one) the start also imports ``executor_modules`` on the
    executors and looks there for ``executor_paths`` (what ``paths_for`` names needs them:
    :func:`groupspec.pipeline.session.check_executors`): executors that cannot are one line too,
    and the session is stopped. Local masters skip it: their Python workers run
    the driver's interpreter, which has just imported the same modules.
    """
    from groupspec.pipeline.session import ExecutorEnvironmentError, check_executors, get_spark, is_local

    unusable: ExecutorEnvironmentError | None = None
    with _JvmStderr() as jvm:
        try:
            spark = get_spark(master, app_name=app_name, conf=conf)
        except Exception as exc:  # py4j, PySpark and JVM errors have no common type
            failure: Exception | None = exc
        else:
            failure = None
            if executor_modules and not is_local(str(spark.sparkContext.master)):
                try:
                    check_executors(spark, executor_modules, paths=executor_paths, paths_for=paths_for)
                except ExecutorEnvironmentError as exc:
                    unusable = exc
    if unusable is not None:
        jvm.discard()  # the failed tasks' stack traces, and the JVM's shutdown, stay unseen
        spark.stop()
        raise unusable
    if failure is None:
        jvm.release(show_held=not quiet_start)
        return spark
    text = jvm.text()
    jvm.discard()
    reason = start_failure_reason(text) or start_failure_reason(str(failure)) or \
        type(failure).__name__
    raise GroupspecError(f"Spark did not start (master {master or 'from spark-submit'}): "
                         f"{reason}")


_EXCEPTION_LINE = re.compile(r"(?:[a-z_][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error): (.+)")


def start_failure_reason(text: str) -> str:
    """The line of a Spark start-up error worth showing ("" when there is none): the innermost
    Java cause's message, else the first exception message, else spark-submit's own ``Error:``
    line, else the first line that is not part of a stack trace."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    causes = [m.group(1) for ln in lines if ln.startswith("Caused by:")
              and (m := _EXCEPTION_LINE.search(ln))]
    if causes:
        return causes[-1]
    for line in lines:
        if match := _EXCEPTION_LINE.search(line):
            return match.group(1)
    for line in lines:
        if line.startswith("Error: "):
            return line.removeprefix("Error: ")
    meaningful = [ln for ln in lines if not ln.startswith(("at ", "...", "Traceback", "File ",
                                                           "WARNING: ", "Usage: "))]
    return meaningful[0] if meaningful else ""

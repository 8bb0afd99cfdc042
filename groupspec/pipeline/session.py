"""Starting Spark for groupspec's jobs, the same way from the CLI, from tests and on a cluster.

Why a helper rather than a bare ``SparkSession.builder``: on a single machine Spark needs a few
nudges to be pleasant (a loopback address instead of whatever the hostname resolves to, error-level
logging so the progress line stays readable, a handful of shuffle partitions instead of 200, no
web UI to bind), and the Python workers must run the interpreter that has groupspec installed.
None of those nudges are wanted on a cluster, so they are applied to ``local`` masters only; for
``spark://``, ``yarn`` or ``k8s://`` masters the helper ships the groupspec package to the
executors and otherwise leaves the cluster's configuration alone.
"""

from __future__ import annotations

import ipaddress
import os
import platform
import re
import sys
import tempfile
import threading
import zipfile
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from groupspec.types import GroupspecError

_PIPELINE_DIR = Path(__file__).resolve().parent
_PACKAGE_DIR = _PIPELINE_DIR.parent

#: Settings for a single machine; a user's explicit ``conf`` wins over these.
LOCAL_DEFAULTS: Mapping[str, str] = {
    "spark.sql.shuffle.partitions": "4",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.python.worker.reuse": "true",
}

#: Settings for every master: Arrow makes ``toPandas`` of a results table cheap.
COMMON_DEFAULTS: Mapping[str, str] = {
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.ui.showConsoleProgress": "false",
}


def is_local(master: str | None) -> bool:
    """True for ``local``, ``local[4]``, ``local[*]``, ``local-cluster[...]`` and friends."""
    return master is not None and master.startswith("local")


def launched_by_spark_submit() -> bool:
    """True when this Python driver was started by ``spark-submit`` (it then owns the master)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def default_master() -> str | None:
    """``local[*]``, unless spark-submit started us: its ``--master`` must then stay in force."""
    return None if launched_by_spark_submit() else "local[*]"


_LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


def on_this_machine(master: str | None) -> bool:
    """True for a standalone master whose every address is a loopback one (``spark://127.0.0.1:
    7077``, ``spark://localhost:7077``): its workers, and so its executors, can only run here."""
    if master is None or not master.strip().startswith("spark://"):
        return False
    for part in master.strip().removeprefix("spark://").split(","):
        host = part.rsplit(":", 1)[0].strip("[]").lower()
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host in _LOOPBACK_NAMES
        if not loopback:
            return False
    return True


def prepare_environment(master: str | None) -> None:
    """Set the environment the JVM and the Python workers read at start-up, never overriding
    what the user already set.

    Must run before the first SparkContext of the process: the JVM reads these once.
    """
    log4j = _PIPELINE_DIR / "log4j2.properties"
    if "SPARK_CONF_DIR" not in os.environ and log4j.is_file():
        os.environ["SPARK_CONF_DIR"] = str(_PIPELINE_DIR)
    if is_local(master) or on_this_machine(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        # Workers are started with PYSPARK_PYTHON or plain "python3", which may not be the venv
        # that has groupspec; on one machine the driver's interpreter is the right answer. The
        # driver sends this path with every task, so it holds for a standalone cluster's
        # executors too, as long as they run here (on a loopback master they must).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


# ---------------------------------------------------------------------------------------------
# Whether a cluster's executors can run groupspec's tasks
# ---------------------------------------------------------------------------------------------

#: Seconds the probe job may wait for executors. A cluster whose workers have fewer free cores
#: or less memory than the application asks for never gives it one, and Spark waits for ever.
EXECUTOR_WAIT_S = 180.0


class ExecutorEnvironmentError(GroupspecError):
    """A cluster's executors cannot run groupspec's tasks (no executor came, their Python did not
    start, or it lacks a module); the message says which and how to fix it."""


_FIX = ("set PYSPARK_PYTHON (or --conf spark.pyspark.python) to a Python {version} that has "
        "groupspec's dependencies on every node, or ship a packed environment "
        "(docs/pipeline.md, \"Running the Spark jobs on a cluster\")")


def probe_imports(modules: Sequence[str], _index: int, paths: Sequence[str] = ()) -> tuple[
        str, str, str, tuple[str, ...]]:
    """Run on an executor: its host, interpreter and version, and which of ``modules`` do not
    import there (``module (missing name)``) and which of ``paths`` do not exist there (as given:
    absolute paths, which no module name can be mistaken for)."""
    import importlib
    import platform
    import socket

    missing: set[str] = set()
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            missing.add(getattr(exc, "name", None) or name)
    missing.update(path for path in paths if not os.path.exists(path))
    return socket.gethostname(), sys.executable, platform.python_version(), tuple(sorted(missing))


def check_executors(spark: Any, modules: Sequence[str], timeout_s: float = EXECUTOR_WAIT_S, *,
                    paths: Sequence[str] = (), paths_for: str = "") -> list[
        tuple[str, str, str, tuple[str, ...]]]:
    """Import ``modules`` on the executors in one small job before the real one, and look for
    ``paths`` (files or folders the tasks use by the driver's path: ``paths_for`` says whose);
    raise ExecutorEnvironmentError (one line) when that cannot be done, else return what each
    answered.

    Without it, a cluster whose Python lacks a dependency fails the first stage with a Python
    traceback per task, and one that can give no executor hangs without a word (both seen on a
    standalone cluster); a program missing on a node fails every task that starts it. The job
    runs as many tasks as the cluster has cores, so that every executor present takes part;
    with dynamic allocation the ones started later are not probed.
    """
    sc = spark.sparkContext
    tasks = max(2, int(sc.defaultParallelism))
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def job() -> None:
        try:
            outcome["rows"] = sc.parallelize(range(tasks), tasks).map(
                partial(probe_imports, tuple(modules), paths=tuple(paths))).collect()
        except Exception as exc:  # py4j and PySpark errors have no common type
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=job, daemon=True, name="groupspec-executor-probe").start()
    version = ".".join(platform.python_version_tuple()[:2])
    if not done.wait(timeout_s):
        sc.cancelAllJobs()
        done.wait(10.0)
        raise ExecutorEnvironmentError(
            f"no executor ran a task within {timeout_s:g} s on {sc.master}: the workers may have "
            "fewer free cores or less memory than the application asks for (spark.executor.memory "
            "is 1g unless set; see the master's web UI)")
    if "error" in outcome:
        from groupspec.pipeline.options import start_failure_reason

        text = str(outcome["error"])
        # The JVM's "Cannot run program" names the interpreter; its innermost cause does not.
        program = re.search(r'Cannot run program "[^"]*"', text)
        reason = program.group(0) if program else start_failure_reason(text) or text.strip()[:300]
        raise ExecutorEnvironmentError(f"the executors' Python did not run a task ({reason}); "
                                       + _FIX.format(version=version))
    rows: list[tuple[str, str, str, tuple[str, ...]]] = sorted(set(outcome["rows"]))
    looked_for = set(paths)
    bad = [(host, python, v, imports) for host, python, v, missing in rows
           if (imports := [m for m in missing if m not in looked_for])]
    if bad:
        where = "; ".join(f"{python} ({v}) on {host} cannot import {', '.join(imports)}"
                          for host, python, v, imports in bad)
        raise ExecutorEnvironmentError(f"the executors cannot run groupspec's tasks: {where}; "
                                       + _FIX.format(version=version))
    absent = [(host, gone) for host, _, _, missing in rows
              if (gone := [m for m in missing if m in looked_for])]
    if absent:
        where = "; ".join(f"no {', '.join(gone)} on {host}" for host, gone in absent)
        raise ExecutorEnvironmentError(
            f"the executors cannot start {paths_for or 'what the tasks run'}: {where}; every node "
            "needs it at the driver's path (a shared home, or the same install on each node; "
            "docs/pipeline.md, \"Running the Spark jobs on a cluster\")")
    return rows


def package_zip(target_dir: Path | None = None) -> Path:
    """A zip of the groupspec package (symlinked layers followed), for ``addPyFile``.

    On a cluster the executors' Python may not have groupspec installed; shipping the source is
    enough because its own dependencies at executor level are only icontract (and z3-solver for
    the optimal-moves column), which docs/pipeline.md asks the cluster to provide.
    """
    out_dir = target_dir or Path(tempfile.mkdtemp(prefix="groupspec-pyfiles-"))
    out = out_dir / "groupspec.zip"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for root, dirs, files in os.walk(_PACKAGE_DIR, followlinks=True):
            dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
            for name in files:
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = Path(root) / name
                zf.write(path, Path("groupspec") / path.relative_to(_PACKAGE_DIR))
    return out


def get_spark(master: str | None = "local[*]", app_name: str = "groupspec",
              conf: Mapping[str, str] | None = None, ship_code: bool | None = None) -> Any:
    """A SparkSession (typed ``Any``: pyspark ships no type information mypy can use).

    ``master`` None leaves the choice to spark-submit or spark-defaults.conf. ``ship_code``
    (default: only for non-local masters) adds a zip of groupspec to the executors' path.
    An already running session in this process is returned as is, with its own settings.
    """
    prepare_environment(master)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    settings = dict(COMMON_DEFAULTS)
    if is_local(master):
        settings.update(LOCAL_DEFAULTS)
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    effective = spark.sparkContext.master
    if ship_code if ship_code is not None else not is_local(effective):
        spark.sparkContext.addPyFile(str(package_zip()))
    return spark

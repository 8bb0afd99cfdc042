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

import os
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

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


def prepare_environment(master: str | None) -> None:
    """Set the environment the JVM and the Python workers read at start-up, never overriding
    what the user already set.

    Must run before the first SparkContext of the process: the JVM reads these once.
    """
    log4j = _PIPELINE_DIR / "log4j2.properties"
    if "SPARK_CONF_DIR" not in os.environ and log4j.is_file():
        os.environ["SPARK_CONF_DIR"] = str(_PIPELINE_DIR)
    if is_local(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        # Workers are started with PYSPARK_PYTHON or plain "python3", which may not be the venv
        # that has groupspec; on one machine the driver's interpreter is the right answer.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


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

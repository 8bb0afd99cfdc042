"""The Spark jobs on a standalone cluster (groupspec.pipeline.standalone): a real master and
worker on this machine run `groupspec audit --master spark://...` to the same tables as local mode
and `groupspec fuzz`'s job to the same vectors, and what a cluster takes away (the driver's working
folder and interpreter, the driver's files) is handled or refused in one line.

The cluster test is marked ``spark``: a master, a worker, a second driver and its executor (one
for the audit, one for the fuzz) are more JVMs, started on every run. On the shared 2-core
machine at load average 10 to 12 (2026-11-27) its call took 110 and 116 s and the cluster 22 to
26 s to start; the test before the fuzz was added took 82 to 114 s in four runs at load 10 to 15.
The fuzz runs after the audit on the cluster: from the audit application's end to the driver's
exit, 16 to 17 s (the fuzz application itself 13 s). The rest fake the JVMs, the clock and the
executors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from groupspec import cli
from groupspec.pipeline import options, session, standalone
from groupspec.pipeline.audit_gen import PLANTED, write_offsets_log
from groupspec.types import GroupspecError, InputError


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


class FakeDaemon(standalone._Daemon):
    def __init__(self, main_class: str, lives: int = 10**9, code: int | None = 1) -> None:
        super().__init__(4242, main_class)
        self.lives, self.code = lives, code

    def alive(self) -> bool:
        self.lives -= 1
        return self.lives >= 0

    def exit_code(self) -> int | None:
        return self.code


@pytest.mark.parametrize(("master", "here"), [
    ("spark://127.0.0.1:7077", True), ("spark://localhost:7077", True), ("spark://[::1]:7077", True),
    ("spark://127.0.0.1:7077,localhost:7078", True), ("spark://127.0.0.1:7077,spark-master:7077", False),
    ("spark://10.0.0.5:7077", False), ("local[2]", False), ("yarn", False), (None, False)])
def test_only_a_loopback_standalone_master_is_known_to_run_here(master, here):
    assert session.on_this_machine(master) is here


def test_a_loopback_master_gets_the_drivers_python_and_address(monkeypatch):
    for name in ("PYSPARK_PYTHON", "SPARK_LOCAL_IP"):
        monkeypatch.delenv(name, raising=False)
    session.prepare_environment("spark://10.0.0.5:7077")
    assert "PYSPARK_PYTHON" not in os.environ  # a remote cluster's nodes may not have this path
    session.prepare_environment("spark://localhost:7077")
    assert os.environ["PYSPARK_PYTHON"] == sys.executable and os.environ["SPARK_LOCAL_IP"] == "127.0.0.1"
    monkeypatch.setenv("PYSPARK_PYTHON", "/opt/py/bin/python")
    session.prepare_environment("spark://127.0.0.1:7077")
    assert os.environ["PYSPARK_PYTHON"] == "/opt/py/bin/python"  # the user's choice stays


def test_segment_paths_are_absolute_so_an_executor_in_another_folder_finds_them(tmp_path, monkeypatch):
    from groupspec.pipeline.audit import segment_inputs

    log = write_offsets_log(tmp_path / "log", groups=4, faults=False, seed=1)
    monkeypatch.chdir(tmp_path)
    found = segment_inputs([str(Path("log") / d.name) for d in log.directories])
    assert found and all(Path(f.path).is_absolute() and Path(f.path).is_file() for f in found)
    assert {(f.topic, str(f.partition)) for f in found} == {
        tuple(d.name.rsplit("-", 1)) for d in log.directories}


# -- probing the executors --------------------------------------------------------------------------


class FakeContext:
    """A SparkContext whose probe job answers ``rows``, raises ``error`` or never ends."""

    master = "spark://127.0.0.1:7077"
    defaultParallelism = 2

    def __init__(self, rows=None, error=None, hang=False):
        self.rows, self.error, self.hang = rows, error, hang
        self.cancelled = threading.Event()

    def parallelize(self, items, slices):
        assert list(items) == list(range(slices)) and slices == 2
        return self

    def map(self, fn):
        self.fn = fn
        return self

    def collect(self):
        if self.hang:
            self.cancelled.wait(30)
            raise RuntimeError("Job cancelled")
        if self.error is not None:
            raise self.error
        return self.rows if self.rows is not None else [self.fn(i) for i in range(2)]

    def cancelAllJobs(self):
        self.cancelled.set()


class FakeSession:
    def __init__(self, sc):
        self.sparkContext = sc
        self.stopped = False

    def stop(self):
        self.stopped = True


def test_the_probe_names_what_does_not_import_on_the_executor():
    host, python, version, missing = session.probe_imports(("json", "no_such_module_xyz"), 0)
    assert python == sys.executable and missing == ("no_such_module_xyz",)
    ok = session.check_executors(FakeSession(FakeContext()), ("json",))
    assert ok == [(host, sys.executable, version, ())]
    rows = [("node-1", "/usr/bin/python3", "3.11.2", ("cramjam", "google_crc32c"))] * 2
    with pytest.raises(session.ExecutorEnvironmentError) as caught:
        session.check_executors(FakeSession(FakeContext(rows=rows)), ("cramjam",))
    message = str(caught.value)
    assert ("/usr/bin/python3 (3.11.2) on node-1 cannot import cramjam, google_crc32c; set "
            "PYSPARK_PYTHON") in message and "\n" not in message


def test_an_executor_python_that_does_not_start_is_one_line():
    text = ('An error occurred while calling z:org.apache.spark.api.python.PythonRDD.collectAndServe.\n'
            'java.io.IOException: Cannot run program "/opt/nowhere/python": error=2, No such file or '
            'directory\n\tat java.base/java.lang.ProcessBuilder.start(ProcessBuilder.java:1143)\n'
            'Caused by: java.io.IOException: error=2, No such file or directory\n')
    with pytest.raises(session.ExecutorEnvironmentError,
                       match=r'did not run a task \(Cannot run program "/opt/nowhere/python"\); set '):
        session.check_executors(FakeSession(FakeContext(error=RuntimeError(text))), ("json",))
    mismatch = ("pyspark.errors.exceptions.base.PySparkRuntimeError: [PYTHON_VERSION_MISMATCH] Python "
                "in worker has different version: 3.12 than that in driver: 3.11, PySpark cannot run "
                "with different minor versions.")
    with pytest.raises(session.ExecutorEnvironmentError,
                       match=r"\[PYTHON_VERSION_MISMATCH\] Python in worker"):
        session.check_executors(FakeSession(FakeContext(error=RuntimeError(mismatch))), ("json",))


def test_the_probe_looks_for_the_paths_a_job_runs_by_the_drivers_path(tmp_path):
    there = tmp_path / "adapter.jar"
    there.write_bytes(b"")
    gone = str(tmp_path / "nowhere" / "lib")
    *_, missing = session.probe_imports(("json", "no_such_module_xyz"), 0, paths=(str(there), gone))
    assert missing == tuple(sorted(("no_such_module_xyz", gone)))
    rows = [("node-1", "/usr/bin/python3", "3.11.2", (gone,)), ("node-2", "/usr/bin/python3", "3.11.2", ())]
    with pytest.raises(session.ExecutorEnvironmentError) as caught:
        session.check_executors(FakeSession(FakeContext(rows=rows)), ("json",), paths=(str(there), gone),
                                paths_for="the Kafka adapter (target kafka)")
    message = str(caught.value)
    assert message.startswith(f"the executors cannot start the Kafka adapter (target kafka): no {gone} on "
                              "node-1; every node needs it at the driver's path") and "\n" not in message
    # A module the executors lack is said first: their Python is the thing to fix.
    rows = [("node-1", "/usr/bin/python3", "3.11.2", ("icontract", gone))]
    with pytest.raises(session.ExecutorEnvironmentError, match=r"on node-1 cannot import icontract; set "):
        session.check_executors(FakeSession(FakeContext(rows=rows)), ("icontract",), paths=(gone,))
    assert session.check_executors(FakeSession(FakeContext()), ("json",), paths=(str(there),))


@pytest.mark.spark
def test_the_probe_finds_a_missing_path_on_real_executors(spark, tmp_path):
    """On local Spark, where the probe is not run before a job (its executors share the driver's
    files) but runs the same way when asked."""
    gone = str(tmp_path / "kafka-adapter" / "groupspec-kafka-adapter.jar")
    with pytest.raises(session.ExecutorEnvironmentError, match=f"cannot start the adapter: no {gone} on "):
        session.check_executors(spark, ("json",), paths=(str(tmp_path), gone), paths_for="the adapter")
    assert session.check_executors(spark, ("json",), paths=(str(tmp_path),))


def test_fuzz_against_kafka_refuses_executors_without_the_adapter(tmp_path, monkeypatch, capsys):
    """The whole command up to Spark, with a fake session whose probe runs in this process: the
    adapter was "built" into a folder that holds nothing, as on a node without the driver's cache."""
    from groupspec.conformance import kafka_target

    java, built = tmp_path / "java", tmp_path / "kafka-adapter"
    java.write_bytes(b"")
    monkeypatch.setattr(kafka_target, "build", lambda *args, **kwargs: built)
    monkeypatch.setattr(kafka_target, "_need", lambda tool: str(java))
    monkeypatch.setattr(options, "check_reachable", lambda master: None)
    fake = FakeSession(FakeContext())
    monkeypatch.setattr(session, "get_spark", lambda *args, **kwargs: fake)
    out = tmp_path / "out"
    assert cli.main(["fuzz", "--machine", "share_state", "--target-a", "impl-kafka", "--target-b", "kafka",
                     "--master", "spark://127.0.0.1:7077", "--out", str(out), "--quiet"]) == 2
    host = session.probe_imports((), 0)[0]
    assert capsys.readouterr().err == (
        "groupspec fuzz: error: the executors cannot start the Kafka adapter (target kafka): no "
        f"{built / kafka_target.JAR}, {built / 'lib'} on {host}; every node needs it at the driver's path "
        '(a shared home, or the same install on each node; docs/pipeline.md, "Running the Spark jobs on '
        'a cluster")\n')
    assert fake.stopped and not out.exists()


def test_a_cluster_that_gives_no_executor_is_an_error_not_a_hang():
    sc = FakeContext(hang=True)
    with pytest.raises(session.ExecutorEnvironmentError, match=r"no executor ran a task within 0\.2 s"):
        session.check_executors(FakeSession(sc), ("json",), timeout_s=0.2)
    assert sc.cancelled.is_set()


def test_start_spark_probes_a_cluster_and_stops_a_session_it_cannot_use(monkeypatch):
    sc = FakeContext(rows=[("node-1", "python3", "3.11.2", ("icontract",))])
    fake = FakeSession(sc)
    monkeypatch.setattr(session, "get_spark", lambda *a, **k: fake)
    with pytest.raises(session.ExecutorEnvironmentError, match="cannot import icontract"):
        options.start_spark("spark://127.0.0.1:7077", "t", executor_modules=("icontract",))
    assert fake.stopped
    # Local masters, and jobs that name no modules, are not probed.
    sc.master = "local[2]"
    assert options.start_spark("local[2]", "t", executor_modules=("icontract",)) is fake
    sc.master = "spark://127.0.0.1:7077"
    assert options.start_spark("spark://127.0.0.1:7077", "t") is fake
    assert issubclass(session.ExecutorEnvironmentError, GroupspecError)


# -- the cluster's daemons without JVMs -------------------------------------------------------------


def test_wait_ready_returns_once_the_master_lists_every_worker():
    clock, answers = FakeClock(), iter([OSError("refused"), {"workers": []},
                                         {"workers": [{"state": "ALIVE"}, {"state": "DEAD"}]},
                                         {"workers": [{"state": "ALIVE"}, {"state": "ALIVE"}]}])
    daemons = [(FakeDaemon(standalone.MASTER_CLASS), Path("m.log"))]

    def probe(url):
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    took = standalone.wait_ready(daemons, "http://127.0.0.1:1", 2, 60.0, now=clock.now, sleep=clock.sleep,
                                 probe=probe)
    assert took == pytest.approx(0.75)


def test_a_worker_that_dies_is_reported_with_its_log(tmp_path):
    log = tmp_path / "worker-1.log"
    log.write_text("".join(f"line {i}\n" for i in range(50)) + "BindException: Address already in use\n")
    daemons = [(FakeDaemon(standalone.MASTER_CLASS), tmp_path / "master.log"),
               (FakeDaemon(standalone.WORKER_CLASS, lives=3, code=1), log)]
    clock = FakeClock()
    with pytest.raises(standalone.SparkClusterStartError) as caught:
        standalone.wait_ready(daemons, "http://x", 1, 60.0, now=clock.now, sleep=clock.sleep,
                              probe=lambda url: {"workers": []})
    assert str(caught.value).startswith("the Spark worker (pid 4242) exited with status 1 before")
    assert caught.value.log_tail.endswith("Address already in use")


def test_workers_that_never_register_time_out(tmp_path):
    clock = FakeClock()
    with pytest.raises(standalone.SparkClusterStartError, match="listed 1 of 2 workers alive within 5 s"):
        standalone.wait_ready([(FakeDaemon(standalone.MASTER_CLASS), tmp_path / "m.log")], "http://x", 2, 5.0,
                              now=clock.now, sleep=clock.sleep,
                              probe=lambda url: {"workers": [{"state": "ALIVE"}]})
    assert clock.t == pytest.approx(5.0)


def test_a_pid_that_runs_something_else_is_not_a_daemon():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not standalone._Daemon(child.pid, standalone.MASTER_CLASS).alive()
        assert standalone._Daemon(child.pid, standalone.MASTER_CLASS, child).alive()
    finally:
        child.kill()
        child.wait()


def test_bad_options_are_refused_before_anything_starts(tmp_path, capsys):
    for argv, says in ((["--workers", "0"], "--workers: must be >= 1, got 0"),
                       (["--cores", "0"], "--cores: must be >= 1, got 0"),
                       (["--memory", "lots"], "--memory: 'lots' is not a memory size such as 512m or 1g"),
                       (["--timeout", "0"], "--timeout: 0 is not a positive number of seconds")):
        assert cli.main(["spark-cluster", "start", "--dir", str(tmp_path / "c"), *argv]) == 2
        assert capsys.readouterr().err == f"groupspec spark-cluster: error: {says}\n"
    assert not (tmp_path / "c").exists()
    with pytest.raises(InputError):
        standalone.check_memory("1.5g")


def test_a_folder_without_a_cluster_is_a_clear_error(tmp_path, capsys):
    for action in ("stop", "status"):
        assert cli.main(["spark-cluster", action, "--dir", str(tmp_path)]) == 2
        assert capsys.readouterr().err == (f"groupspec spark-cluster: error: no Spark cluster was started "
                                           f"in {tmp_path} (no spark-cluster.json)\n")
    (tmp_path / standalone.STATE_FILE).write_text("{}")
    assert cli.main(["spark-cluster", "status", "--dir", str(tmp_path)]) == 2
    assert "is not a Spark cluster state file" in capsys.readouterr().err


# -- a real cluster ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if standalone.shutil.which("java") is None:
        pytest.skip("java not on PATH")
    started = standalone.start(tmp_path_factory.mktemp("spark-cluster"), workers=1, cores=1, detach=False)
    yield started
    started.stop()


def _tables(out):
    import pyarrow.parquet as pq

    return {name: sorted(repr(sorted(r.items())) for r in pq.read_table(out / f"{name}.parquet").to_pylist())
            for name in ("state", "violations", "quarantine")}


#: The driver on the cluster: first the audit through the CLI, exactly as ``groupspec audit``
#: runs (a fresh process, which starts and stops its own session), then, in the same process
#: and JVM, which saves a second driver's start, ``run_fuzz`` with test_fuzz's planted pruning
#: bug in a session of its own, as the hand run of docs/pipeline.md did. test_fuzz is pickled by
#: value, so the executors (which cannot import ``tests``) get the bugged call itself. The exit
#: status is the audit's; the fuzz's outcome is its summary.
_DRIVER = """
import sys
from groupspec import cli

master, fuzz_out, runs, *audit = sys.argv[1:]
status = cli.main(audit)

from pyspark import cloudpickle
import tests.pipeline.test_fuzz as planted
from groupspec.pipeline import fuzz, options

cloudpickle.register_pickle_by_value(planted)
spark = options.start_spark(master, "groupspec-fuzz", executor_modules=fuzz.EXECUTOR_MODULES)
try:
    fuzz.run_fuzz(spark, fuzz.FuzzConfig(machines=("share_state",), runs=int(runs)), fuzz_out,
                  call=planted.planted_call(), master=master)
finally:
    spark.stop()
sys.exit(status)
"""
#: Runs of the cluster's fuzz: the planted bug shows in about a third of them (69 of 200), and
#: the stages cost little next to the executor's start.
_FUZZ_RUNS = 40


def _shrunk(summary):
    """What the fuzz says of its counterexamples, but the seconds each shrink took."""
    return [{k: v for k, v in s.items() if k != "seconds"}
            for s in summary["machines"]["share_state"]["shrunk"]]


def _files(root):
    return {str(f.relative_to(root)): f.read_bytes() for f in sorted(root.rglob("*")) if f.is_file()}


@pytest.mark.spark
def test_audit_and_fuzz_on_a_standalone_cluster_give_the_local_results(spark, cluster, tmp_path):
    """The audit through the CLI as a user runs it: relative segment paths and no PYSPARK_PYTHON,
    which are what broke on the first cluster run (executors work in a folder of their own, and
    ran the system ``python3`` without the codec's modules). Then the fuzz with a planted bug,
    from the same driver process: the same disagreements and byte for byte the same vectors as
    local mode."""
    from groupspec.pipeline import fuzz
    from groupspec.pipeline.audit import run_audit
    from tests.pipeline.test_fuzz import planted_call

    log = write_offsets_log(tmp_path / "log", groups=24, faults=True, seed=3)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "SPARK_CONF_DIR")}
    root = Path(__file__).resolve().parents[2]  # for ``tests``, after the audit
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    remote_run = subprocess.Popen([sys.executable, "-c", _DRIVER, cluster.master_url,
                                   str(tmp_path / "fuzz-on-cluster"), str(_FUZZ_RUNS), "audit",
                                   *[str(Path("log") / d.name) for d in log.directories],
                                   "--master", cluster.master_url, "--partitions", "3", "--out",
                                   "on-cluster", "--quiet"], cwd=tmp_path, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:  # the local runs meanwhile, while the other driver starts
        local = run_audit(spark, [str(d) for d in log.directories], tmp_path / "local", partitions=2)
        local_fuzz = fuzz.run_fuzz(spark, fuzz.FuzzConfig(machines=("share_state",), runs=_FUZZ_RUNS),
                                   tmp_path / "fuzz-local", call=planted_call())
        _, stderr = remote_run.communicate(timeout=400)
    finally:
        if remote_run.poll() is None:
            remote_run.kill()
            remote_run.wait()
    assert remote_run.returncode == 1, stderr  # the planted faults
    remote = json.loads((tmp_path / "on-cluster" / "summary.json").read_text())
    assert remote["inputs"]["master"] == cluster.master_url
    assert set(remote["violations_by_kind"]) == set(PLANTED) and remote["quarantined"] == 1
    counted = ("groups", "share_partitions", "groups_by_state", "violations_by_kind", "violation_examples",
               "quarantined", "quarantined_by_reason", "commit_rate", "members_per_group")
    here = json.loads((tmp_path / "local" / "summary.json").read_text())
    assert {k: remote[k] for k in counted} == {k: here[k] for k in counted}
    assert remote["timing"]["records"] == local.summary["timing"]["records"] == log.records
    assert _tables(tmp_path / "on-cluster") == _tables(tmp_path / "local")

    assert (tmp_path / "fuzz-on-cluster" / "summary.json").is_file(), stderr
    found = json.loads((tmp_path / "fuzz-on-cluster" / "summary.json").read_text())
    assert found["inputs"]["master"] == cluster.master_url
    assert found["disagreements"] == local_fuzz.summary["disagreements"] > 0  # the planted bug
    assert _shrunk(found) == _shrunk(local_fuzz.summary)
    vectors = _files(tmp_path / "fuzz-on-cluster" / "vectors")
    assert len(vectors) == 1 + len(local_fuzz.vectors) > 1  # the manifest and each vector
    assert vectors == _files(tmp_path / "fuzz-local" / "vectors")
    # The cluster, not a local fallback, ran both: the master lists the finished applications.
    apps = standalone.master_status(cluster.state.ui_url)["completedapps"]
    assert sorted(a["name"] for a in apps) == ["groupspec-audit", "groupspec-fuzz"]
    assert all(a["cores"] == 1 for a in apps)

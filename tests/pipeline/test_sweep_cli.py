"""`groupspec sweep`'s options: every mistake is one line and exit 2, found before Spark starts.

"Before Spark starts" is checked, not timed: ``groupspec.pipeline.session.get_spark`` is replaced
by a function that fails the test (in-process) or exits 99 (in a subprocess), so a check that
ran only after a JVM had started would show up as the wrong exit code.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from groupspec.cli import main
from groupspec.pipeline import options
from groupspec.types import GroupspecError, InputError

#: Runs the CLI with Spark's start replaced by "exit 99".
NO_SPARK = textwrap.dedent("""
    import sys
    import groupspec.pipeline.session as session

    def no_spark(*args, **kwargs):
        print("SPARK WAS STARTED", file=sys.stderr)
        sys.exit(99)

    session.get_spark = no_spark
    from groupspec.cli import main
    sys.exit(main(sys.argv[1:]))
""")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def no_spark(monkeypatch):
    """Fail the test if the command gets as far as starting Spark."""
    from groupspec.pipeline import session

    def started(*args, **kwargs):
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session, "get_spark", started)


@pytest.fixture
def places(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n")
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine\n")
    return {"file": str(a_file), "full": str(full), "new": str(tmp_path / "new" / "out")}


BAD = [
    (["--out", "{file}"], "--out: {file} is an existing file"),
    (["--out", "{full}"], "--out: {full} is not empty; pass --overwrite"),
    (["--out", "{file}/sub"], "--out: {file} is a file, so"),
    (["--master", "bogus://x"], "--master: 'bogus://x': unknown scheme 'bogus://'"),
    (["--master", "local[0]"], "--master: 'local[0]': a local master needs at least 1 thread"),
    (["--master", "localhost"], "--master: 'localhost' is not a Spark master URL"),
    (["--master", "spark://host"], "--master: 'spark://host': expected spark://HOST:PORT"),
    (["--master", "spark://host:99999"], "--master: 'spark://host:99999': port 99999 is out"),
    (["--master", "k8s://"], "--master: 'k8s://': expected k8s://"),
    (["--master", "mesos://host:5050"], "--master: 'mesos://host:5050': Mesos support was removed"),
    (["--master", "spark://127.0.0.1:{port}"], "--master: cannot reach the Spark master "
     "(127.0.0.1:{port}: connection refused)"),
    (["--cases", "0"], "--cases: must be >= 1, got 0"),
    (["--max-members", "0"], "--max-members: must be >= 1, got 0"),
    (["--max-partitions", "-3"], "--max-partitions: must be >= 1, got -3"),
    (["--partitions", "0"], "--partitions: must be >= 1, got 0"),
    (["--min-moves-cap", "-1"], "--min-moves-cap: must be >= 0, got -1"),
    (["--parquet", "{file}"], "--parquet: {file} is an existing file"),
    (["--parquet", "{full}"], "--parquet: {full} already holds data; pass --overwrite"),
    (["--assignor", "range", "--parquet", "{full}"],
     "--parquet: {full} already holds data; pass --overwrite"),
    (["--replay", "1", "-1"], "--replay INDEX: must be >= 0, got -1"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_option_is_one_line_and_exit_2_before_spark(argv, message, places, no_spark,
                                                          capsys):
    port = closed_port()
    fill = {**places, "port": port}
    argv = [a.format(**fill) for a in argv]
    if "--out" not in argv:
        argv += ["--out", places["new"]]
    assert main(["sweep", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith(f"groupspec sweep: error: {message.format(**fill)}"), err
    assert not Path(places["new"]).exists()  # a refused run leaves nothing behind


@pytest.mark.parametrize("argv", [["--out", "{file}"], ["--master", "bogus://x"]])
def test_in_a_real_process_there_is_no_traceback(argv, places):
    argv = [a.format(**places) for a in argv]
    done = subprocess.run([sys.executable, "-c", NO_SPARK, "sweep", *argv],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("groupspec sweep: error: "), done.stderr
    assert "Traceback" not in done.stderr and "SPARK WAS STARTED" not in done.stderr


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_an_unwritable_parent_is_refused(tmp_path, no_spark, capsys):
    if os.geteuid() == 0:  # root writes anywhere permissions forbid; a pseudo file system does not
        if not Path("/sys/kernel").is_dir():
            pytest.skip("running as root without /sys")
        target = "/sys/groupspec-sweep-test/out"
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        target = str(locked / "out")
    assert main(["sweep", "--out", target]) == 2
    err = capsys.readouterr().err
    assert err.startswith("groupspec sweep: error: --out: cannot create "), err
    assert err.count("\n") == 1


def fake_spark_start(monkeypatch, child_stderr: str, error: Exception | None) -> list[str]:
    """Replace get_spark with a child process that writes ``child_stderr`` to the inherited
    descriptor 2 (as the JVM does) and then raises ``error`` (or returns a stand-in)."""
    from groupspec.pipeline import session

    calls: list[str] = []

    def start(master, app_name="groupspec", **kwargs):
        calls.append(master)
        subprocess.run([sys.executable, "-c", f"import sys; sys.stderr.write({child_stderr!r})"],
                       check=True)
        if error is not None:
            raise error
        return object()

    monkeypatch.setattr(session, "get_spark", start)
    return calls


JAVA_TRACE = ('Exception in thread "main" org.apache.spark.SparkException: Master must either be '
              "yarn or start with spark, k8s, or local\n"
              "\tat org.apache.spark.deploy.SparkSubmit.error(SparkSubmit.scala:1068)\n")


def test_a_spark_start_failure_is_one_line_without_java_or_python_traces(monkeypatch, tmp_path,
                                                                         capfd):
    gateway = RuntimeError("[JAVA_GATEWAY_EXITED] Java gateway process exited before sending "
                           "its port number.")
    calls = fake_spark_start(monkeypatch, JAVA_TRACE, gateway)
    out = tmp_path / "made-by-the-checks"
    assert main(["sweep", "--out", str(out), "--master", "local[1]"]) == 2
    assert calls == ["local[1]"]  # the checks passed; Spark was asked to start
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err == ("groupspec sweep: error: Spark did not start (master local[1]): "
                            "Master must either be yarn or start with spark, k8s, or local\n")
    assert not out.exists()  # the folder the checks made is taken away again


def test_a_started_jvm_keeps_its_stderr(monkeypatch, capfd):
    """What the JVM says while it starts is held back, then shown once the start succeeded."""
    with options._JvmStderr() as jvm:
        subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('jvm says hi\\n')"],
                       check=True)
    jvm.release()
    assert jvm.thread is not None
    jvm.thread.join(10)
    assert "jvm says hi" in capfd.readouterr().err


def test_overwrite_lets_a_used_folder_through(monkeypatch, places, capfd):
    calls = fake_spark_start(monkeypatch, "", RuntimeError("stop here"))
    assert main(["sweep", "--out", places["full"], "--overwrite"]) == 2
    assert calls == ["local[*]"]
    assert "Spark did not start" in capfd.readouterr().err
    assert (Path(places["full"]) / "notes.txt").read_text() == "mine\n"  # not ours to remove


@pytest.mark.parametrize("master", ["local", "local[4]", "local[*]", "local[2,3]", "local[*, 2]",
                                    "local-cluster[2,1,1024]", "spark://h:7077",
                                    "spark://h1:7077,h2:7077", "spark://[::1]:7077", "yarn",
                                    "k8s://https://api.example:6443", "k8s://api.example:443"])
def test_master_urls_spark_accepts_pass(master, monkeypatch):
    monkeypatch.setenv("HADOOP_CONF_DIR", "/etc/hadoop")
    options.check_master(master)


def test_start_failure_reason_prefers_the_innermost_cause():
    text = ("py4j.protocol.Py4JJavaError: An error occurred while calling None.org.apache.spark."
            "api.java.JavaSparkContext.\n: org.apache.spark.SparkException: External scheduler "
            "cannot be instantiated\n\tat org.apache.spark.SparkContext.x(SparkContext.scala:1)\n"
            "Caused by: io.fabric8.kubernetes.client.KubernetesClientException: Operation failed"
            "\nCaused by: java.net.ConnectException: Connection refused\n\tat sun.nio.ch.Net.x\n")
    assert options.start_failure_reason(text) == "Connection refused"
    assert options.start_failure_reason("Error: Unrecognized option: --x\n\nUsage: spark-submit"
                                        ) == "Unrecognized option: --x"
    assert options.start_failure_reason("") == ""


def test_errors_are_typed():
    with pytest.raises(InputError) as caught:
        options.check_master("nope")
    assert caught.value.field == "--master"
    assert issubclass(InputError, GroupspecError)


@pytest.mark.spark
def test_a_real_jvm_that_fails_to_start_is_one_line(tmp_path):
    """A real spark-submit refusing its arguments (PYSPARK_SUBMIT_ARGS): its usage text and
    PySpark's traceback stay off the terminal; the reason is the one line."""
    env = {**os.environ, "PYSPARK_SUBMIT_ARGS": "--no-such-spark-option x pyspark-shell"}
    done = subprocess.run([sys.executable, "-m", "groupspec.cli", "sweep", "--master", "local[1]",
                           "--out", str(tmp_path / "out"), "--cases", "1"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("groupspec sweep: error: Spark did not start (master local[1]): "
                           "Unrecognized option: --no-such-spark-option\n")
    assert not (tmp_path / "out").exists()

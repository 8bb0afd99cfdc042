"""groupspec.statefile, and the two commands that share it (``broker`` and ``spark-cluster``):
a second ``start`` in a folder whose daemons still run is refused, for each of them alike.

The running daemons here are Python sleepers whose command line carries the marker a real one
would (``kafka.Kafka``, Spark's master class): the check reads /proc, not the JVM.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from groupspec import broker, statefile
from groupspec.pipeline import standalone
from groupspec.types import GroupspecError


class Missing(GroupspecError):
    pass


class Invalid(GroupspecError):
    pass


@dataclasses.dataclass(frozen=True)
class Note:
    pid: int
    where: str


def _read(directory: Path) -> Note:
    return statefile.read(directory, "note.json", "note taker",
                          lambda raw: Note(**statefile.fields(Note, raw)), missing=Missing, invalid=Invalid)


def test_a_state_reads_back_as_written_and_a_bad_file_names_itself(tmp_path):
    with pytest.raises(Missing) as caught:
        _read(tmp_path)
    assert str(caught.value) == f"no note taker was started in {tmp_path} (no note.json)"
    path = statefile.write(tmp_path, "note.json", Note(7, "here"))
    assert path == tmp_path / "note.json" and path.read_text().endswith("\n")
    assert _read(tmp_path) == Note(7, "here")
    for text, says in (('{"pid": 7}', "'where'"), ("{not json", "Expecting property name"),
                       ("[1]", "list indices must be integers")):
        path.write_text(text)
        with pytest.raises(Invalid) as caught:
            _read(tmp_path)
        message = str(caught.value)
        assert message.startswith(f"{path} is not a note taker state file: ") and says in message
    assert statefile.still_running(tmp_path, "note.json", _read, lambda note: True) is None  # unreadable
    path.write_text('{"pid": 7, "where": "here", "added_later": 1}')
    assert _read(tmp_path) == Note(7, "here")
    here = statefile.still_running(tmp_path, "note.json", _read, lambda note: note.where == "here")
    assert here == Note(7, "here")
    assert statefile.still_running(tmp_path, "note.json", _read, lambda note: False) is None
    assert statefile.still_running(tmp_path / "elsewhere", "note.json", _read, lambda note: True) is None


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A process whose command line names both programs' main classes."""
    child = subprocess.Popen([sys.executable, "-c", "import time; print(flush=True); time.sleep(60)",
                              "kafka.Kafka", standalone.MASTER_CLASS], stdout=subprocess.PIPE)
    assert child.stdout is not None
    child.stdout.readline()  # exec'd: /proc shows its own command line, no longer pytest's
    yield child
    child.kill()
    child.wait()


def test_a_recorded_pid_counts_only_while_it_runs_the_recorded_program(sleeper):
    if not Path("/proc/self").exists():
        pytest.skip("reads /proc")
    assert statefile.runs(sleeper.pid, b"kafka.Kafka")
    assert not statefile.runs(sleeper.pid, standalone.WORKER_CLASS.encode())
    assert statefile.Process(sleeper.pid, b"no such program", sleeper).alive()  # a child: its own status
    sleeper.kill()
    sleeper.wait()
    assert not statefile.runs(sleeper.pid, b"kafka.Kafka")


def test_a_second_start_in_a_folder_whose_daemons_run_is_refused(tmp_path, sleeper, monkeypatch):
    """Before the shared helper, ``spark-cluster start`` raised this refusal inside a block that
    suppressed its own error class, so it started a second cluster over the first one's state
    file (and the first could then be stopped only by pid)."""
    if not Path("/proc/self").exists():
        pytest.skip("reads /proc")
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")

    def no_jvm(*args: object, **kwargs: object) -> None:
        raise AssertionError("not refused: it went on to start JVMs")

    monkeypatch.setattr(broker, "resolve", no_jvm)
    monkeypatch.setattr(standalone, "spark_home", no_jvm)
    node = broker.BrokerState(sleeper.pid, "127.0.0.1:1", "127.0.0.1:2", str(tmp_path),
                              str(tmp_path / "data"), str(tmp_path / "server.log"), "4.2.1", 0.0)
    statefile.write(tmp_path, broker.STATE_FILE, node)
    with pytest.raises(broker.BrokerError) as refused:
        broker.start(tmp_path)
    assert str(refused.value) == (f"a broker already runs from {tmp_path}: pid {sleeper.pid}, "
                                  "bootstrap 127.0.0.1:1")
    daemon = standalone.DaemonState(sleeper.pid, str(tmp_path / "master.log"), 1)
    cluster = standalone.ClusterState("spark://127.0.0.1:1", "http://127.0.0.1:1", str(tmp_path), "/nowhere",
                                      daemon, (), 1, "1g", 0.0)
    statefile.write(tmp_path, standalone.STATE_FILE, cluster)
    assert standalone.ClusterState.read(tmp_path) == cluster
    with pytest.raises(standalone.SparkClusterError) as refused:
        standalone.start(tmp_path)
    assert str(refused.value) == (f"a Spark cluster already runs from {tmp_path}: spark://127.0.0.1:1; "
                                  "stop it first")
    assert not (tmp_path / "logs").exists()  # refused before anything was made

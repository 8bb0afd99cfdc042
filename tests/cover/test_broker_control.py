"""groupspec.broker without a JVM: waiting, stopping, the files it writes and the errors it gives.

The waiting and stopping loops take the clock as parameters, so a node that never answers or
never exits is simulated here in no time; the tests that start a real node are in tests/broker/.
"""

from __future__ import annotations

import base64
import signal
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from groupspec import broker, cli
from groupspec.types import InputError


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


class FakeProcess(broker._Process):
    """A node that lives ``lives`` checks, then exits with ``code``; SIGTERM ends it unless it is
    ``stubborn``."""

    def __init__(self, lives: int = 10**9, code: int | None = 1, stubborn: bool = False) -> None:
        super().__init__(4242)
        self.lives, self.code, self.stubborn = lives, code, stubborn
        self.signals: list[int] = []

    def alive(self) -> bool:
        self.lives -= 1
        return self.lives >= 0

    def exit_code(self) -> int | None:
        return self.code

    def signal(self, sig: int) -> None:
        self.signals.append(sig)
        if sig == signal.SIGKILL or not self.stubborn:
            self.lives = 0


def test_wait_ready_returns_the_seconds_until_the_first_answer():
    clock, calls = FakeClock(), []

    def probe(host, port):
        calls.append((host, port))
        if len(calls) < 4:
            raise ConnectionRefusedError("not yet")

    took = broker.wait_ready(FakeProcess(), "127.0.0.1", 9, (), 60.0, now=clock.now, sleep=clock.sleep,
                             probe=probe)
    assert calls == [("127.0.0.1", 9)] * 4
    assert took == pytest.approx(0.6)


def test_a_node_that_never_answers_times_out_with_its_log_tail(tmp_path):
    clock = FakeClock()
    log = tmp_path / "server.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)))

    def probe(host, port):
        raise broker.BrokerError("garbage")

    with pytest.raises(broker.BrokerStartError) as caught:
        broker.wait_ready(FakeProcess(), "127.0.0.1", 9, (tmp_path / "absent.log", log), 5.0,
                          now=clock.now, sleep=clock.sleep, probe=probe)
    message = str(caught.value)
    assert "did not answer ApiVersions on 127.0.0.1:9 within 5 s" in message
    assert caught.value.log_tail.splitlines() == [f"line {i}" for i in range(70, 100)]
    assert "line 69\n" not in message and message.endswith("line 99")
    assert clock.t == pytest.approx(105.0)


def test_a_node_that_dies_is_reported_with_its_status_and_log(tmp_path):
    empty, console = tmp_path / "server.log", tmp_path / "console.log"
    empty.write_text("")
    console.write_text("Error: Could not find or load main class kafka.Kafka\n")
    with pytest.raises(broker.BrokerStartError) as caught:
        broker.wait_ready(FakeProcess(lives=2, code=1), "127.0.0.1", 9, (empty, console), 60.0,
                          now=FakeClock().now, sleep=lambda s: None,
                          probe=lambda h, p: (_ for _ in ()).throw(OSError("refused")))
    assert "exited with status 1 before it was ready" in str(caught.value)
    assert caught.value.log_tail == "Error: Could not find or load main class kafka.Kafka"


def test_stop_sends_sigterm_and_kills_only_after_the_timeout():
    clock = FakeClock()
    polite = FakeProcess()
    assert broker.stop_process(polite, 30.0, now=clock.now, sleep=clock.sleep) is False
    assert polite.signals == [signal.SIGTERM] and clock.t == 100.0
    stubborn = FakeProcess(stubborn=True)
    assert broker.stop_process(stubborn, 30.0, now=clock.now, sleep=clock.sleep) is True
    assert stubborn.signals == [signal.SIGTERM, signal.SIGKILL]
    assert 130.0 <= clock.t <= 130.2  # one poll step of 0.1 s (float sums) past the timeout
    gone = FakeProcess(lives=0)
    assert broker.stop_process(gone, 30.0, now=clock.now, sleep=clock.sleep) is False
    assert gone.signals == []


def test_stop_ends_a_real_child_and_reaps_it():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    process = broker._Process(child.pid, child)
    assert process.alive()
    assert broker.stop_process(process, 10.0) is False
    assert child.poll() == -signal.SIGTERM and not process.alive()


def test_a_pid_that_is_not_kafka_is_not_the_node():
    """A state file's pid that the OS gave to another program since is not taken for the node."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert broker._Process(child.pid).alive() is (not Path("/proc/self").exists())
    finally:
        child.kill()
        child.wait()
    assert broker._Process(child.pid).alive() is False


def test_server_properties_put_the_listeners_and_test_settings_and_take_overrides(tmp_path):
    text = broker.server_properties(9092, 9093, tmp_path / "data", {"group.share.delivery.count.limit": "3",
                                                                     "offsets.topic.num.partitions": "2"})
    props = dict(line.split("=", 1) for line in text.splitlines())
    assert props["listeners"] == "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093"
    assert props["controller.quorum.bootstrap.servers"] == "127.0.0.1:9093"
    assert props["log.dirs"] == str(tmp_path / "data")
    assert props["share.coordinator.state.topic.num.partitions"] == "1"
    assert props["group.share.delivery.count.limit"] == "3"
    assert props["offsets.topic.num.partitions"] == "2"  # an override wins
    with pytest.raises(InputError, match="is not a property line"):
        broker.server_properties(1, 2, tmp_path, {"a b": "1"})


def test_overrides_are_key_value():
    assert broker.parse_overrides(["a.b=1", " c = x=y "]) == {"a.b": "1", "c": "x=y"}
    with pytest.raises(InputError, match="'nokey' is not KEY=VALUE"):
        broker.parse_overrides(["nokey"])
    with pytest.raises(InputError, match="--kafka-version"):
        broker.check_version("3.9.0")
    with pytest.raises(InputError, match="'256 m' is not a JVM heap size"):
        broker.start(Path("unused"), heap="256 m")


def test_cluster_ids_have_kafkas_form():
    for _ in range(200):
        text = broker.cluster_id()
        assert len(text) == 22 and not text.startswith("-")
        assert len(base64.urlsafe_b64decode(text + "==")) == 16


def test_a_directory_without_a_node_is_a_clear_error(tmp_path, capsys):
    assert cli.main(["broker", "status", "--dir", str(tmp_path)]) == 2
    assert f"no broker was started in {tmp_path}" in capsys.readouterr().err
    assert cli.main(["broker", "stop", "--dir", str(tmp_path)]) == 2
    (tmp_path / broker.STATE_FILE).write_text("{not json")
    assert cli.main(["broker", "status", "--dir", str(tmp_path)]) == 2
    assert "is not a broker state file" in capsys.readouterr().err


def test_status_of_a_stopped_node_says_where_its_data_is(tmp_path, capsys):
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    state = broker.BrokerState(child.pid, "127.0.0.1:1", "127.0.0.1:2", str(tmp_path), str(tmp_path / "data"),
                               str(tmp_path / "logs" / "server.log"), "4.2.1", 0.0)
    (tmp_path / broker.STATE_FILE).write_text(state.to_json())
    assert cli.main(["broker", "status", "--dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"not running: pid {child.pid}, bootstrap 127.0.0.1:1") and "data_dir" in out
    assert cli.main(["broker", "stop", "--dir", str(tmp_path), "--remove"]) == 0
    assert "was not running; removed" in capsys.readouterr().out
    assert not tmp_path.exists()


def test_missing_java_or_maven_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert broker.tools_available() == "java and mvn not on PATH"
    assert cli.main(["broker", "start", "--dir", str(tmp_path / "node")]) == 2
    assert "needs 'java' on PATH" in capsys.readouterr().err


def test_start_refuses_an_earlier_nodes_data_unless_reset(tmp_path, monkeypatch):
    monkeypatch.setattr(broker.shutil, "which", lambda tool: "/bin/" + tool)
    (tmp_path / "data").mkdir()
    with pytest.raises(broker.BrokerError, match="holds an earlier broker's data"):
        broker.start(tmp_path)
    assert (tmp_path / "data").is_dir()  # refused: nothing deleted


def _serve_once(answer: bytes) -> int:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def run():
        conn, _ = server.accept()
        with conn:
            conn.recv(1024)
            conn.sendall(answer)
        server.close()

    threading.Thread(target=run, daemon=True).start()
    port: int = server.getsockname()[1]
    return port


def _answer(error: int = 0, apis=((18, 0, 4),), features=(("share.version", 1, 1),), tail: bytes = b"",
            correlation: int = 1) -> bytes:
    """An ApiVersions v3 answer as Kafka frames it (flexible body, header v0)."""
    body = struct.pack(">ih", correlation, error) + bytes([len(apis) + 1])
    body += b"".join(struct.pack(">hhh", *api) + b"\0" for api in apis) + struct.pack(">i", 0)
    field = bytes([len(features) + 1]) + b"".join(
        bytes([len(name) + 1]) + name.encode() + struct.pack(">hh", high, low) + b"\0"
        for name, low, high in features)
    epoch = struct.pack(">q", 7)
    body += b"\2" + b"\1" + bytes([len(epoch)]) + epoch + b"\2" + bytes([len(field)]) + field + tail
    return struct.pack(">i", len(body)) + body


def test_the_probe_reads_apis_and_finalized_features_and_refuses_anything_else():
    answer = broker.api_versions("127.0.0.1", _serve_once(_answer(apis=((18, 0, 4), (76, 1, 1)))))
    assert answer.apis == {18: (0, 4), 76: (1, 1)}
    assert answer.features == {"share.version": (1, 1)} and answer.features_epoch == 7
    with pytest.raises(broker.BrokerError, match="response size 1195725856 outside"):
        broker.api_versions("127.0.0.1", _serve_once(b"GET / HTTP/1.1\r\n\r\n"))
    with pytest.raises(ConnectionError, match="closed the connection after 6 of 16 bytes"):
        broker.api_versions("127.0.0.1", _serve_once(b"\x00\x00\x00\x10" + b"\x00" * 6))
    with pytest.raises(broker.BrokerError, match="answered error code 31"):
        broker.api_versions("127.0.0.1", _serve_once(_answer(error=31)))
    with pytest.raises(broker.BrokerError, match="correlation id 9, expected 1"):
        broker.api_versions("127.0.0.1", _serve_once(_answer(correlation=9)))
    with pytest.raises(broker.BrokerError, match="ApiVersions v0: api_keys claims more elements"):
        broker.api_versions("127.0.0.1", _serve_once(_answer(tail=b"xyz")))
    cut = _answer()
    cut = struct.pack(">i", 12) + cut[4:16]  # the frame says 12 bytes: the key list ends early
    with pytest.raises(broker.BrokerError, match=r"claims more elements than bytes remain \(byte 10\)"):
        broker.api_versions("127.0.0.1", _serve_once(cut))


def test_a_port_taken_between_picking_and_binding_gets_one_more_try(tmp_path, monkeypatch):
    monkeypatch.setattr(broker.shutil, "which", lambda tool: "/bin/" + tool)
    monkeypatch.setattr(broker, "resolve", lambda version, cache: tmp_path / "lib")
    tries = []

    def launch(directory, jvm, version, overrides, timeout, detach):
        tries.append(detach)
        (directory / "data").mkdir(parents=True, exist_ok=True)  # what a failed format leaves
        if len(tries) == 1:
            raise broker.BrokerStartError("exited", "KafkaException: Socket server failed to bind to "
                                          "127.0.0.1:40000: Address already in use.")
        return "started"

    monkeypatch.setattr(broker, "_launch", launch)
    assert broker.start(tmp_path / "node", detach=False) == "started"
    assert tries == [False, False]
    tries.clear()

    def other_failure(*args):
        tries.append(1)
        raise broker.BrokerStartError("exited", "java.lang.OutOfMemoryError: Java heap space")

    monkeypatch.setattr(broker, "_launch", other_failure)
    with pytest.raises(broker.BrokerStartError, match="OutOfMemoryError"):
        broker.start(tmp_path / "other")
    assert tries == [1]


def test_workload_needs_a_node_started_in_its_directory(tmp_path, capsys):
    from groupspec.cli import main

    assert main(["broker", "workload", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no broker was started in" in err and "Traceback" not in err

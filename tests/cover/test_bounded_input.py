"""Outside input within bounds (issue 15 items 10 and 11): JSON a user, an adapter's caller or a
conformance peer hands groupspec is refused with a typed error naming what is wrong, never a
traceback, a hang or unbounded memory.

The audit's own inputs are the regressions: ``'[' * 100000``, a 5,000-digit integer, a topic or
member id with a lone surrogate (under every target of ``assign``), bytes that are not UTF-8 on
stdin, partition counts of 3,000,000,000 and 10**8, a peer answering deeply nested JSON, a huge
integer, or a line that never ends. A Hypothesis test puts random bytes through every reader.
"""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec import bounded_json
from groupspec.cli import main
from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf
from groupspec.group_json import group_from_json, loads
from groupspec.types import InputError

GROUP = {"members": {"a": {"topics": ["t"]}}, "topics": {"t": 3}}
TARGETS = ("impl", "spec", "impl-kafka")


def _group_text(**changes: object) -> str:
    doc = json.loads(json.dumps(GROUP))
    doc.update(changes)
    return json.dumps(doc)


# What the audit sent, and the words the one-line error must hold.
BAD_TEXTS = [
    ("[" * 100_000, "nested deeper than 64 levels"),
    ("[" * 65 + "]" * 65, "nested deeper than 64 levels"),
    ('{"members": {"a": {"topics": ["t"]}}, "topics": {"t": ' + "9" * 5000 + "}}",
     "an integer of 5000 digits"),
    ('{"members": {"a": {"topics": ["\\udc80"]}}, "topics": {"\\udc80": 3}}',
     "topics.\\udc80: holds a lone surrogate"),
    ('{"members": {"\\ud800x": {"topics": ["t"]}}, "topics": {"t": 3}}',
     "members.\\ud800x: holds a lone surrogate (\\ud800) at character 0"),
    (_group_text(topics={"t": 3_000_000_000}), "topics.t: must be at most 2,147,483,647"),
    (_group_text(topics={"t": 10**8}), "100,000,000 partitions in all, more than the limit of 1,000,000"),
    (_group_text(topics={"t": 2**63}), "topics.t: must be at most 2,147,483,647"),
    (_group_text(topics={"t": 600_000, "u": 600_000}), "1,200,000 partitions in all"),
    (_group_text(assignable={"t": [2**31]}), "assignable.t[0]: must be at most 2,147,483,647"),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("text", "words"), BAD_TEXTS, ids=[w[:40] for _, w in BAD_TEXTS])
def test_assign_refuses_out_of_bounds_input_in_one_line(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path, target: str, text: str,
                                                       words: str) -> None:
    path = tmp_path / "group.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    assert main(["assign", str(path), "--target", target]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("groupspec assign: error: ") and words in line, line


def test_invalid_utf8_is_refused_alike_from_stdin_and_from_a_file(tmp_path: Path) -> None:
    data = b'{"members": {"\xff\xfe": {"topics": ["t"]}}, "topics": {"t": 3}}'
    path = tmp_path / "group.json"
    path.write_bytes(data)
    lines = []
    for argv, stdin in ((["-"], data), ([str(path)], b"")):
        done = subprocess.run([sys.executable, "-m", "groupspec.cli", "assign", *argv], input=stdin,
                              capture_output=True, timeout=120)
        assert done.returncode == 2 and done.stdout == b""
        lines.append(done.stderr.decode())
    assert lines[0] == "groupspec assign: error: stdin: not UTF-8 text: byte 14 is 0xff\n"
    assert lines[1] == f"groupspec assign: error: {path}: not UTF-8 text: byte 14 is 0xff\n"


def test_max_partitions_raises_and_lowers_the_limit(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    path = tmp_path / "group.json"
    path.write_text(_group_text(topics={"t": 1_500_000}))
    assert main(["assign", str(path), "--max-partitions", "2000000"]) == 0
    assert len(json.loads(capsys.readouterr().out)["assignment"]["a"]["t"]) == 1_500_000
    path.write_text(_group_text(topics={"t": 3}))
    assert main(["assign", str(path), "--max-partitions", "2"]) == 2
    assert "3 partitions in all, more than the limit of 2" in capsys.readouterr().err
    assert main(["assign", str(path), "--max-partitions", "0"]) == 2
    assert "--max-partitions: must be at least 1, got 0" in capsys.readouterr().err


def test_a_partition_count_at_the_int32_bound_is_read() -> None:
    group = group_from_json(json.loads(_group_text(topics={"t": 2**31 - 1})),
                            max_partitions=2**31 - 1)
    assert group.topics == {"t": 2**31 - 1}


# ---------------------------------------------------------------------------------------------
# The reader itself: any bytes give a value or an InputError, nothing else.

@given(st.binary(max_size=200))
def test_any_bytes_parse_or_raise_input_error(data: bytes) -> None:
    try:
        bounded_json.parse(data, "input")
    except InputError as exc:
        assert exc.field.startswith("input")


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                    max_leaves=20))
def test_any_json_text_either_reads_back_equal_or_is_refused_by_name(value: object) -> None:
    text = json.dumps(value)
    try:
        assert bounded_json.parse(text, "doc") == value
    except InputError as exc:
        # Only the three bounds can refuse what json.dumps wrote.
        assert any(words in exc.problem for words in
                   ("lone surrogate", "digits; no number", "nested deeper")), exc


def test_a_value_at_each_bound_is_read() -> None:
    assert bounded_json.parse("[" * 64 + "]" * 64, "doc") is not None
    assert bounded_json.parse(str(-(2**63)), "doc") == -(2**63)
    assert bounded_json.parse("9" * 20, "doc") == int("9" * 20)
    with pytest.raises(InputError, match="an integer of 21 digits"):
        bounded_json.parse("9" * 21, "doc")
    with pytest.raises(InputError, match=r"doc: \[0\]\.k: holds a lone surrogate"):
        bounded_json.parse('[{"k": "ok\\udfff"}]', "doc")


def test_duplicate_keys_are_still_refused_after_the_bounds() -> None:
    with pytest.raises(InputError, match=r"members\.a: duplicate key"):
        group_from_json(loads('{"members": {"a": {}, "a": {}}, "topics": {}}'))


@pytest.mark.parametrize("limit", [2, 5, 16])
def test_read_line_keeps_the_stream_in_step_past_an_overlong_line(limit: int) -> None:
    stream = io.BytesIO(b"x" * 40 + b"\nok\n" + b"y" * 40)
    assert bounded_json.read_line(stream, limit) == (b"", True)
    assert bounded_json.read_line(stream, limit) == (b"ok\n", False)
    assert bounded_json.read_line(stream, limit) == (b"", True)
    assert bounded_json.read_line(stream, limit) == (b"", False)


# ---------------------------------------------------------------------------------------------
# The adapter: every bad line answered, the next line still served.

def _serve(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes,
           limit: int = bounded_json.MAX_LINE_BYTES) -> list[dict[str, object]]:
    monkeypatch.setattr(bounded_json, "MAX_LINE_BYTES", limit)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["adapter", "--target", "impl"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _request(request_id: int, doc: object) -> bytes:
    return json.dumps({"id": request_id, "machine": "simple_assignor", "handler": "assign",
                       "input": doc}).encode() + b"\n"


def test_the_adapter_answers_every_bad_line_and_serves_the_next(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        _request(1, json.loads(_group_text(topics={"t": 3_000_000_000}))),
        b"[" * 100_000 + b"\n",
        b'{"id": 3, "input": ' + b"7" * 5000 + b"}\n",
        b'{"id": "\\udc80", "machine": "m", "handler": "h", "input": {}}\n',
        b'\xff\xfe{"id": 5}\n',
        _request(6, GROUP),
    ]
    answers = _serve(monkeypatch, capsys, b"".join(lines))
    assert len(answers) == 6
    assert answers[0]["error"] == {"kind": "invalid_input", "message": "InputError: topics.t: must be "
                                   "at most 2,147,483,647 (an int32 in Kafka), got 3,000,000,000"}
    kinds = [a["error"]["kind"] for a in answers[1:5]]  # type: ignore[index]
    assert kinds == ["bad_request"] * 4
    messages = [a["error"]["message"] for a in answers[1:5]]  # type: ignore[index]
    assert "nested deeper than 64" in messages[0]
    assert "an integer of 5000 digits" in messages[1]
    assert "lone surrogate" in messages[2]
    assert messages[3] == "request: not UTF-8 text: byte 0 is 0xff"
    assert answers[5] == {"id": 6, "output": {"assignment": {"a": {"t": [0, 1, 2]}}}}


def test_the_adapter_drops_an_overlong_line_and_answers_the_next(monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = b"{" + b" " * 5000 + b"\n" + _request(2, GROUP)
    answers = _serve(monkeypatch, capsys, data, limit=1000)
    assert answers[0] == {"id": None, "error": {"kind": "bad_request", "message":
                          "a request line longer than 1,000 bytes (skipped to its end)"}}
    assert answers[1]["id"] == 2 and "output" in answers[1]


# ---------------------------------------------------------------------------------------------
# The runner reading a misbehaving peer: the vector in hand fails with the reason, the run goes on.

ROOT = vf.default_root()
EDGES = [v for v in vf.load(ROOT) if v.machine == "simple_assignor" and v.case.startswith("edge_")][:4]

_PEER = """
    import json, sys
    for line in sys.stdin:
        r = json.loads(line)
        if r["machine"] == "groupspec":
            print(json.dumps({{"id": r["id"], "unsupported": {{"reason": "no handshake"}}}}), flush=True)
            continue
        if r["id"] == {bad_id!r}:
            sys.stdout.write({first})
            sys.stdout.flush()
            continue
        members = {{m: {{}} for m in r["input"]["members"]}}
        print(json.dumps({{"id": r["id"], "output": {{"assignment": members}}}}), flush=True)
"""

PEER_ANSWERS = [
    ("'[' * 100000 + '\\n'", "nested deeper than 64 levels"),
    ("json.dumps({'id': r['id'], 'output': 1}).replace('1}', '9' * 5000 + '}') + '\\n'",
     "an integer of 5000 digits"),
    ("json.dumps({'id': r['id'], 'output': {'assignment': {'\\udc80': {}}}}) + '\\n'",
     "holds a lone surrogate"),
    ("'x' * 300_000", "answered a line longer than 200,000 bytes (read no further)"),
]


@pytest.mark.parametrize(("first", "words"), PEER_ANSWERS, ids=["deep", "long-int", "surrogate", "endless"])
def test_a_peer_answer_out_of_bounds_fails_its_vector_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                          first: str, words: str) -> None:
    monkeypatch.setattr(bounded_json, "MAX_LINE_BYTES", 200_000)
    path = tmp_path / "peer.py"
    path.write_text(textwrap.dedent(_PEER.format(first=first, bad_id=EDGES[0].id)))
    target = targets.make_target(f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}", 20.0)
    report = runner.run(EDGES, target, "groupspec", root=ROOT)
    assert [o.id for o in report.failed][:1] == [EDGES[0].id]
    assert words in report.failed[0].reason, report.failed[0].reason
    # The peer was restarted; the vectors after the bad answer were judged on their answers.
    assert all(o.reason.startswith("output differs") or o.passed for o in report.outcomes[1:]), \
        runner.failures_text(report)

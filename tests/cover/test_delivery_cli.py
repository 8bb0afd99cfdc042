"""`groupspec simulate-delivery` and `groupspec check-history`: exit codes, written histories,
and one-line errors for bad arguments and bad history lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groupspec.cli import main


def test_a_run_writes_its_history_and_it_checks_clean(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "h.jsonl"
    assert main(["simulate-delivery", "--seed", "7", "--runs", "2", "--history", str(history)]) == 0
    out = capsys.readouterr().out
    runs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["seed"] for r in runs] == [7, 8] and all(r["violations"] == 0 for r in runs)
    lines = history.read_text().splitlines()
    assert len(lines) == runs[0]["ops"]
    assert main(["check-history", str(history)]) == 0


def test_check_history_reports_a_broken_promise_with_exit_1(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    ops = [("c1", "ok", "poll", [["t", 0, 0, 1]]), ("c1", "invoke", "acknowledge", [["t", 0, 0, "ACCEPT"]]),
           ("c1", "ok", "acknowledge", [["t", 0, 0, "NONE"]]), ("c2", "ok", "poll", [["t", 0, 0, 2]])]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps({"time": i, "process": p, "type": t, "f": f, "value": v}) + "\n"
                            for i, (p, t, f, v) in enumerate(ops)))
    assert main(["check-history", str(path)]) == 1
    kinds = [json.loads(line)["kind"] for line in capsys.readouterr().out.splitlines()]
    assert kinds == ["delivered_after_final"]


@pytest.mark.parametrize("argv, message", [
    (["simulate-delivery", "--runs", "0"], "--runs: 0 is below 1"),
    (["simulate-delivery", "--seed", "x"], "--seed: 'x' is not a whole number"),
    (["simulate-delivery", "--loss", "2"], "--loss: a probability in 0..1, got 2.0"),
    (["simulate-delivery", "--renew", "-0.5"], "--renew: a probability in 0..1, got -0.5"),
    (["simulate-delivery", "--history", "/nonexistent/dir/h.jsonl"], "--history: cannot write"),
    (["check-history", "/nonexistent/h.jsonl"], "FILE: cannot read /nonexistent/h.jsonl"),
    (["check-history", "-", "--delivery-limit", "0"], "delivery_limit: must be at least 1"),
])
def test_bad_arguments_are_one_line_errors(argv: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_bad_history_line_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('{"time":0,"process":"c","type":"ok","f":"poll","value":[]}\nnot json\n')
    assert main(["check-history", str(path)]) == 2
    assert "line 2: not JSON" in capsys.readouterr().err


def test_an_acknowledgement_of_a_delivery_never_made_is_named(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    ops = [("c1", "ok", "poll", [["t", 0, 0, 1]]),
           ("c1", "invoke", "acknowledge", [["t", 0, 0, "ACCEPT", 1, 5]]),
           ("c1", "ok", "acknowledge", [["t", 0, 0, "NONE"]])]
    path = tmp_path / "h.jsonl"
    path.write_text("".join(json.dumps({"time": i, "process": p, "type": t, "f": f, "value": v}) + "\n"
                            for i, (p, t, f, v) in enumerate(ops)))
    assert main(["check-history", str(path)]) == 2
    err = capsys.readouterr().err
    assert "op 1.value[0]" in err and "poll op 5" in err and "Traceback" not in err


def test_renew_sets_the_chance_of_renewals(capsys: pytest.CaptureFixture[str]) -> None:
    def types(*extra: str) -> set[str]:
        assert main(["simulate-delivery", "--seed", "5", "--history", "-", *extra]) == 0
        ops = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        return {item[3] for op in ops if op["f"] == "acknowledge" and op["type"] == "invoke"
                for item in op["value"]}

    assert "RENEW" in types()  # the simulation's default renews
    assert types("--renew", "0") == {"ACCEPT", "RELEASE", "REJECT"}

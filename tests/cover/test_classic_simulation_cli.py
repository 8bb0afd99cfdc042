"""`groupspec simulate-classic` and `groupspec check-history --classic`: exit codes, written
histories, a broken promise reported, and one-line errors for bad arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groupspec.cli import main


def test_runs_write_their_history_and_it_checks_clean(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "h.jsonl"
    argv = ["simulate-classic", "--seed", "3", "--runs", "2", "--assignor", "all", "--history", str(history)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    runs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [(r["seed"], r["assignor"]) for r in runs] == [(3, "cooperative-sticky"), (4, "range")]
    assert all(r["violations"] == 0 and r["settled_after_ms"] is not None for r in runs)
    assert len(history.read_text().splitlines()) == runs[0]["ops"]
    assert main(["check-history", "--classic", str(history)]) == 0


def test_check_history_reports_a_classic_broken_promise(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "h.jsonl"
    assert main(["simulate-classic", "--seed", "1", "--history", str(history)]) == 0
    lines = [json.loads(line) for line in history.read_text().splitlines()]
    sync = next(op for op in lines if op["f"] == "sync" and op["type"] == "ok" and op["value"]["assigned"])
    # Hand the same partition to a second consumer in the same generation.
    lines.append({**sync, "process": "intruder", "index": len(lines)})
    history.write_text("".join(json.dumps(op) + "\n" for op in lines))
    capsys.readouterr()
    assert main(["check-history", "--classic", str(history)]) == 1
    kinds = {json.loads(line)["kind"] for line in capsys.readouterr().out.splitlines()}
    assert "double-assignment" in kinds


def test_ignore_leaves_a_kind_out(capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 31 (cooperative-sticky) reaches the consumer's known stale claim (docs/classic_simulation.md);
    --ignore leaves that kind out of the verdict and the printed violations."""
    assert main(["simulate-classic", "--seed", "31", "--assignor", "all", "--ignore", "stale-claim"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [line["seed"] for line in lines] == [31] and lines[0]["violations"] == 0


@pytest.mark.parametrize("argv, message", [
    (["simulate-classic", "--runs", "0"], "--runs: 0 is below 1"),
    (["simulate-classic", "--assignor", "fair"], "--assignor: one of range"),
    (["simulate-classic", "--loss", "2"], "--loss: a probability in 0..1, got 2.0"),
    (["simulate-classic", "--ignore", "nothing"], "--ignore: one of double-assignment"),
    (["simulate-classic", "--history", "/nonexistent/dir/h.jsonl"], "--history: cannot write"),
    (["check-history", "--classic", "-"], "history: no setup operation"),
])
def test_bad_arguments_are_one_line_errors(argv: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err

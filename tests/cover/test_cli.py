"""The `groupspec` command itself, apart from its subcommands."""

from __future__ import annotations

import pytest

from groupspec.cli import main


def test_version(capsys):
    import groupspec

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"groupspec {groupspec.__version__} (vectors: kafka-4.2")


@pytest.mark.parametrize("argv", [
    ["compat", "--target", "kafka://127.0.0.1:1"],        # not --target-options
    ["broker", "start", "--di", "/nonexistent"],           # not --dir
    ["conformance", "--targ", "impl"],                     # not --target
])
def test_an_abbreviated_option_is_refused_not_guessed(argv, capsys):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    assert f"unrecognized arguments: {argv[-2]}" in capsys.readouterr().err


def test_ctrl_c_is_one_line_and_code_130(monkeypatch, capsys):
    import groupspec.commands.conformance as command

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "run", interrupted)
    assert main(["conformance", "--target", "impl"]) == 130
    err = capsys.readouterr().err
    assert err == "groupspec conformance: interrupted\n"

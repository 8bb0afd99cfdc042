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

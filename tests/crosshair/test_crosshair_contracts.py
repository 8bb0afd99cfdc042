"""CrossHair checks the spec's contracts symbolically, within a fixed time budget.

The budget is per condition (CrossHair gives up on a condition, without failing, when it runs
out), so this test can miss a deep violation but never flakes on a slow machine. The planted
violation shows the check is live: CrossHair must find it within the same budget.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.crosshair

BUDGET = ["--analysis_kind=icontract", "--per_condition_timeout=8"]
CONTRACTED = [
    "groupspec.spec.simple_assignor.desired_sharing",
    "groupspec.spec.simple_assignor.desired_counts",
]


def _crosshair(*targets: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("crosshair")
    return subprocess.run([str(exe), "check", *BUDGET, *targets], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def test_spec_arithmetic_contracts_hold() -> None:
    done = _crosshair(*CONTRACTED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_planted_contract_violation_is_found(tmp_path: Path) -> None:
    (tmp_path / "planted.py").write_text(textwrap.dedent("""
        import icontract

        @icontract.require(lambda n_members: n_members >= 0)
        @icontract.require(lambda n_partitions: n_partitions >= 0)
        @icontract.ensure(lambda n_partitions, result: (result == 0) == (n_partitions == 0))
        def desired_sharing(n_members: int, n_partitions: int) -> int:
            if n_partitions == 0:
                return 0
            return (n_members + n_partitions - 1) // n_partitions
    """))
    done = _crosshair("planted.desired_sharing", cwd=tmp_path)
    assert done.returncode != 0
    assert "desired_sharing(0," in done.stdout

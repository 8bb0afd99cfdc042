"""The CI gate of issue 17: the vectors' mutation score may not fall below the recorded figure.

Each run draws the same sample of each machine's impl mutants (mutation_floor.json: its size and
seed) and runs them against the machine's vectors, a few seconds a machine; the deep profile runs
every mutant and holds it to the full pass's figure. A vector that loses its power, or new impl
code that no vector reaches, lowers the score and fails here with the survivors listed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.quality import mutation

FLOORS = mutation.floors()
DEEP = os.environ.get("HYPOTHESIS_PROFILE") == "deep"


@pytest.mark.parametrize("machine", sorted(FLOORS["sampled"]))
def test_the_vectors_keep_their_sampled_mutation_score(machine: str) -> None:
    result = mutation.gate(machine, FLOORS["sample"], FLOORS["seed"], FLOORS["sampled"][machine])
    assert result.holds, result.explain()


@pytest.mark.skipif(not DEEP, reason="deep profile only (every mutant of every machine: many minutes)")
def test_the_vectors_keep_their_full_mutation_score() -> None:
    results = [mutation.gate(machine, None, 0, floor, workers=2) for machine, floor in FLOORS["full"].items()]
    assert all(r.holds for r in results), "\n\n".join(r.explain() for r in results if not r.holds)


@pytest.mark.parametrize("path", sorted(mutation.QUICK_LOOP_ONLY))
def test_files_the_vectors_cannot_see_are_held_by_their_own_tests(path: str) -> None:
    machine = next(m for m in FLOORS["sampled"] if Path(path) in mutation.impl_files(m))
    result = mutation.quick_loop_gate(machine, path, FLOORS["sample"] // 3, FLOORS["seed"])
    assert result.holds, result.explain()


def test_the_quick_loop_gate_fails_when_the_tests_see_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: tests that never touch the file kill none of its mutants, and the gate says so."""
    path = "impl/classic_group/fast_offsets.py"
    monkeypatch.setitem(mutation.QUICK_LOOP_ONLY, path, ("tests/cover/test_codec_varint.py",))
    result = mutation.quick_loop_gate("classic_group", path, 3, FLOORS["seed"])
    assert not result.holds and result.score.killed == 0 and result.survivors
    assert "its tests kill 0.0%" in result.explain()


def test_files_the_vectors_cannot_see_are_left_out_of_the_vectors_sample() -> None:
    for path in mutation.QUICK_LOOP_ONLY:
        owners = [m for m in FLOORS["sampled"] if Path(path) in mutation.impl_files(m)]
        assert len(owners) == 1, (path, owners)
        assert Path(path) not in mutation.vector_files(owners[0])
        assert set(mutation.vector_files(owners[0])) == set(mutation.impl_files(owners[0])) - {Path(path)}


def test_the_gate_fails_when_the_vectors_see_nothing() -> None:
    """Planted: a check that runs the vectors but ignores their outcome kills nothing, so the
    gate fails and names the survivors."""
    vectors = mutation.vectors_check("share_consumer")

    def blind() -> tuple[bool, object]:
        vectors()
        return True, None

    result = mutation.gate("share_consumer", 10, FLOORS["seed"], 0.5, check=blind)
    assert not result.holds
    assert result.score.killed == 0 and result.survivors
    assert "below the recorded 50.0%" in result.explain()


def test_every_machine_has_a_floor() -> None:
    from groupspec import machines

    assert set(FLOORS["sampled"]) == set(FLOORS["full"]) == {m.name for m in machines.MACHINES}
    assert all(0 < f <= 1 for f in [*FLOORS["sampled"].values(), *FLOORS["full"].values()])

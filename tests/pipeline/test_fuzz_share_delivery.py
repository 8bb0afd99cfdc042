"""``groupspec fuzz`` on share_delivery: a bug planted in the implementation's share session (a
SHARE_SESSION_NOT_FOUND answer no longer resets the session epoch) is found within the default
budget, shrunk, and written as a vector that ``groupspec conformance --vectors`` runs: failing on
the bugged implementation, passing on the real one."""

from __future__ import annotations

import pytest

from groupspec.cli import main
from groupspec.conformance import runner, vector_format
from groupspec.conformance.targets import InProcessTarget
from groupspec.pipeline import fuzz
from groupspec.types.errors import Errors

MACHINE = "share_delivery"


def _bugged_errors():
    from groupspec.impl.share_delivery import network

    return frozenset(network.SESSION_ERRORS) - {Errors.SHARE_SESSION_NOT_FOUND}


def planted_call():
    """A dispatch whose ``impl`` keeps its session epoch after SHARE_SESSION_NOT_FOUND; built in
    a function so cloudpickle ships it to the executors by value."""

    def call(target, machine, doc):
        from groupspec.impl.share_delivery import network

        if target != "impl":
            return fuzz.default_call(target, machine, doc)
        real = network.SESSION_ERRORS
        network.SESSION_ERRORS = _bugged_errors()
        try:
            return fuzz.default_call(target, machine, doc)
        finally:
            network.SESSION_ERRORS = real

    return call


def test_the_planted_bug_is_found_in_the_default_budget_and_shrinks_small():
    config = fuzz.FuzzConfig(machines=(MACHINE,))  # default runs and length
    call = planted_call()
    rows = [fuzz.run_one(config, MACHINE, i, call) for i in range(config.runs)]
    bad = [r for r in rows if r["disagree"]]
    assert bad and not any(r["generator_error"] for r in rows)
    small, tried = fuzz.shrink(config, MACHINE, bad[0]["input"], call)
    assert (small, tried) == fuzz.shrink(config, MACHINE, bad[0]["input"], call)
    assert 0 < len(small["events"]) <= 6 < len(bad[0]["input"]["events"])
    assert fuzz.differences(MACHINE, fuzz.answer(call, "spec", MACHINE, small),
                            fuzz.answer(call, "impl", MACHINE, small))
    # Clean layers agree on the same runs.
    clean = [fuzz.run_one(config, MACHINE, r["index"]) for r in bad[:20]]
    assert not any(r["disagree"] for r in clean)


@pytest.mark.spark
def test_fuzz_on_spark_writes_a_vector_conformance_runs(spark, tmp_path, monkeypatch, capsys):
    config = fuzz.FuzzConfig(machines=(MACHINE,))
    outcome = fuzz.run_fuzz(spark, config, tmp_path / "bad", call=planted_call())
    found = outcome.summary["machines"][MACHINE]
    assert found["runs"] == fuzz.DEFAULT_RUNS and found["disagreements"] > 0
    assert outcome.vectors and found["minimal_length"] <= 6
    root = tmp_path / "bad" / "vectors"
    assert not vector_format.manifest_problems(root)
    vectors = vector_format.load(root)
    assert {v.machine for v in vectors} == {MACHINE}
    assert not runner.run(vectors, InProcessTarget("impl"), "groupspec").failed
    assert main(["conformance", "--vectors", str(root), "--target", "impl"]) == 0
    capsys.readouterr()
    from groupspec.impl.share_delivery import network

    monkeypatch.setattr(network, "SESSION_ERRORS", _bugged_errors())
    assert len(runner.run(vectors, InProcessTarget("impl"), "groupspec").failed) == len(vectors)
    assert main(["conformance", "--vectors", str(root), "--target", "impl"]) == 1

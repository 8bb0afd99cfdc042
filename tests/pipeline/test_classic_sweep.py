"""``groupspec sweep --assignor`` for the classic assignors: per case without Spark, one short
local Spark run, a planted bug found, and an unknown name refused before any JVM starts."""

from __future__ import annotations

import json

import pytest

from groupspec.cli import main
from groupspec.conformance.classic_assignors import group_from_json
from groupspec.pipeline import classic_sweep as cs
from groupspec.spec.classic_assignors import assign as spec_assign
from groupspec.types import InputError
from groupspec.types.classic_assignors import ASSIGNORS, STICKY_ASSIGNORS

SMALL = {"max_members": 30, "max_partitions": 60}


def planted_target():
    """Forgets the last member; built in a function so cloudpickle ships it by value."""

    def forget_last(group):
        result = dict(spec_assign(group))
        if group.members:
            result.pop(group.members[-1].member_id, None)
        return result

    return forget_last


@pytest.mark.parametrize("assignor", ASSIGNORS)
@pytest.mark.parametrize("target", cs.TARGETS)
def test_every_case_holds_and_agrees(assignor, target):
    racks = prior = 0
    for index in range(25):
        row = cs.run_classic_case(3, index, assignor=assignor, target=target, **SMALL)
        assert row["error"] is None, row
        assert set(row) == {name for name, _, _ in cs.columns()}
        known = target == "impl-kafka" and "agrees" in cs.kafka_expected(assignor)
        assert row["prop_agrees"] is True or known, row
        assert not row["counterexample"] or row["expected"], row
        racks += row["racks"]
        prior += row["prior"]
    assert prior > 0  # the generator reaches both corners (racks where the assignor takes them)
    assert racks > 0 or assignor not in ("range", "roundrobin")


def test_a_planted_bug_is_a_counterexample():
    row = cs.run_classic_case(3, 1, assignor="range", target="planted", assign_fn=planted_target(),
                              **SMALL)
    assert row["counterexample"] and "complete" in row["failed"] and "agrees" in row["failed"]


def test_replay_prints_the_classic_case(capsys):
    assert main(["sweep", "--assignor", "roundrobin", "--replay", "4", "2", "--max-members", "30",
                 "--max-partitions", "60"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert group_from_json(doc) == cs.classic_case(4, 2, "roundrobin", **SMALL)[0]


def test_an_unknown_assignor_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch):
    from groupspec.pipeline import session

    def started(*args, **kwargs):
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session, "get_spark", started)
    assert main(["sweep", "--assignor", "stiky", "--out", str(tmp_path / "o")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("groupspec sweep: error: --assignor: unknown assignor 'stiky'"), err
    assert not (tmp_path / "o").exists()


@pytest.mark.spark
def test_a_short_classic_sweep_on_local_spark(spark, tmp_path):
    config = cs.ClassicSweepConfig(assignor="range", cases=24, seed=5, partitions=3, **SMALL)
    outcome = cs.run_classic_sweep(spark, config, tmp_path / "good")
    s = outcome.summary
    assert s["stickiness"] is None
    assert s["cases"] == 24 and s["counterexamples"] == 0 and s["errors"]["count"] == 0
    assert set(s["properties"]) == set(cs.properties())
    assert all(t["held"] == 24 for t in s["properties"].values())
    assert spark.read.parquet(outcome.parquet).count() == 24
    assert "groupspec sweep: range" in outcome.report.read_text()

    bad = cs.run_classic_sweep(spark, config, tmp_path / "bad", assign_fn=planted_target())
    assert bad.summary["counterexamples"] == 24
    first = bad.summary["properties"]["complete"]["first_counterexample"]
    assert first["index"] == 0 and "--assignor range --replay 5 0" in first["replay"]


@pytest.mark.parametrize("assignor", ASSIGNORS)
def test_stickiness_is_measured_on_one_subscription(assignor):
    """``--measure stickiness``: moves and the minimum on cases sharing one subscription; the
    sticky assignors are at the minimum on every one (docs/models.md, section 7), and their
    previous assignment really reaches them (Sticky reads it from the user data only)."""
    measured = needed = 0
    # Since the sticky assignors take groups off one subscription, fewer cases share one: two
    # seeds give enough of them, with previous assignments that make members give partitions up.
    for seed, index in [(3, i) for i in range(25)] + [(5, i) for i in range(40)]:
        row = cs.run_classic_case(seed, index, assignor=assignor, target="impl", measure="stickiness",
                                  **SMALL)
        assert row["error"] is None, row
        group = cs.classic_case(seed, index, assignor, **SMALL)[0]
        if len({frozenset(m.topics) for m in group.members}) > 1:
            assert row["moves"] is None and row["min_moves"] is None
            continue
        measured += 1
        needed += row["min_moves"]
        if assignor in STICKY_ASSIGNORS:
            assert row["moves"] == row["min_moves"], row
    assert measured > 0
    if assignor in STICKY_ASSIGNORS:
        assert needed > 0  # the prior cases make someone give partitions up
    assert cs.run_classic_case(3, 0, assignor=assignor, **SMALL)["moves"] is None  # not asked


def test_measure_is_checked_before_spark(tmp_path, capsys, monkeypatch):
    from groupspec.pipeline import session

    def started(*args, **kwargs):
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session, "get_spark", started)
    with pytest.raises(InputError, match="--measure"):
        cs.ClassicSweepConfig(assignor="sticky", measure="speed").validate()
    assert main(["sweep", "--measure", "stickiness", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("groupspec sweep: error: --measure: takes a classic --assignor"), err

"""The assignor sweep: its per-case function without Spark, and the whole job on local Spark.

The Spark tests share one session (tests/conftest.py) and two tiny sweeps: a correct target,
whose outputs are checked for shape, and a planted bug (a target that forgets a member), which
must surface as counterexamples that point back to a rebuildable case.
"""

from __future__ import annotations

import io
import json
import re
import time

import pytest

from groupspec.generate import case
from groupspec.group_json import group_from_json
from groupspec.pipeline import sweep
from groupspec.pipeline.sweep import COLUMN_NAMES, SweepConfig, run_case
from groupspec.spec.simple_assignor import PROPERTIES
from groupspec.spec.simple_assignor import assign as spec_assign

SMALL = {"max_members": 30, "max_partitions": 60}


def planted_target():
    """A target that forgets the first member. Built in a function so that cloudpickle ships it
    to the executors by value (a module-level function would be imported there by name)."""

    def forget_first_member(group):
        result = dict(spec_assign(group))
        result.pop(group.members[0].member_id, None)
        return result

    return forget_first_member


#: Stand-ins for groupspec.models.min_moves: every case "could" move 1 partition but moved 3.
FAKE_MOVES = (lambda group: 1, lambda group, result: 3, "")


# ---------------------------------------------------------------------------------------------
# Without Spark
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["spec", "impl"])
def test_run_case_fills_every_column_and_holds(target):
    for index in range(15):
        row = run_case(5, index, target=target, **SMALL)
        assert set(row) == set(COLUMN_NAMES)
        assert row["error"] is None, row["error"]
        assert all(row[f"prop_{p}"] is True for p in PROPERTIES), row
        assert row["counterexample"] is False and row["failed"] == []
        shape, group = case(5, index, **SMALL)
        assert row["members"] == len(group.members) and row["shape_members"] == shape.members
        assert row["balance_pool"] in (0, 1)
        assert row["seconds"] >= 0


def test_run_case_reports_a_planted_bug():
    row = run_case(5, 0, target="planted", assign_fn=planted_target(), **SMALL)
    assert row["prop_complete"] is False
    assert row["counterexample"] is True and "complete" in row["failed"]


def test_run_case_records_an_exception_instead_of_raising():
    def explode(group):
        raise RuntimeError("boom")

    row = run_case(5, 1, target="planted", assign_fn=explode, **SMALL)
    assert row["error"] == "RuntimeError: boom"
    assert row["failed"] == ["error"] and row["counterexample"] is True
    assert all(row[f"prop_{p}"] is None for p in PROPERTIES)


def test_run_case_moves_columns_and_size_cap():
    row = run_case(5, 2, target="spec", moves_fns=FAKE_MOVES, **SMALL)
    assert (row["moves"], row["min_moves"], row["min_moves_status"]) == (3, 1, "ok")
    capped = run_case(5, 2, target="spec", moves_fns=FAKE_MOVES, min_moves_cap=0, **SMALL)
    if capped["partitions"] and capped["members"]:
        assert capped["min_moves"] is None and capped["min_moves_status"] == "over-cap"
    missing = run_case(5, 2, target="spec", moves_fns=(None, None, "absent"), **SMALL)
    assert missing["moves"] is None and missing["min_moves_status"] == "unavailable"


def test_replay_prints_the_case_as_group_json(capsys):
    from groupspec.cli import main

    assert main(["sweep", "--replay", "9", "4", "--max-members", "30",
                 "--max-partitions", "60"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert group_from_json(doc) == case(9, 4, **SMALL)[1]


def test_progress_line_counts_cases():
    out = io.StringIO()
    done = [0]
    with sweep.Progress(10, lambda: done[0], out, interval=0.01):
        done[0] = 4
        time.sleep(0.2)
        done[0] = 10
    lines = out.getvalue().splitlines()
    assert "cases 4/10 (40%)" in lines[1]
    assert "cases 10/10 (100%)" in lines[-1]
    assert sweep.default_partitions(40, 2) == 4 and sweep.default_partitions(3, 8) == 3


def test_package_zip_carries_the_layers_behind_their_symlinks(tmp_path):
    import zipfile

    from groupspec.pipeline.session import package_zip

    names = set(zipfile.ZipFile(package_zip(tmp_path)).namelist())
    for needed in ("groupspec/__init__.py", "groupspec/pipeline/sweep.py",
                   "groupspec/spec/simple_assignor.py", "groupspec/impl/simple_assignor/__init__.py"):
        assert needed in names
    assert not any("__pycache__" in n for n in names)


# ---------------------------------------------------------------------------------------------
# On Spark (one shared session)
# ---------------------------------------------------------------------------------------------

CONFIG = SweepConfig(cases=40, seed=11, target="impl", partitions=4, **SMALL)


@pytest.fixture(scope="module")
def good_run(spark, tmp_path_factory):
    progress = io.StringIO()
    outcome = sweep.run_sweep(spark, CONFIG, tmp_path_factory.mktemp("sweep"), progress=progress)
    return outcome, progress.getvalue()


@pytest.fixture(scope="module")
def planted_run(spark, tmp_path_factory):
    config = SweepConfig(cases=40, seed=11, target="planted", partitions=4, **SMALL)
    return sweep.run_sweep(spark, config, tmp_path_factory.mktemp("planted"),
                           assign_fn=planted_target(), moves_fns=FAKE_MOVES)


@pytest.mark.spark
def test_results_table_has_the_schema_and_one_row_per_case(spark, good_run):
    outcome, _ = good_run
    table = spark.read.parquet(outcome.parquet)
    assert [f.name for f in table.schema.fields] == list(COLUMN_NAMES)
    # Parquet reads every column back as nullable; names and types must survive unchanged.
    assert [f.dataType.simpleString() for f in table.schema.fields] == [
        f.dataType.simpleString() for f in sweep.spark_schema().fields]
    assert table.count() == 40
    assert sorted(r["index"] for r in table.select("index").collect()) == list(range(40))


@pytest.mark.spark
def test_summary_json_tallies_every_property(good_run):
    outcome, _ = good_run
    summary = json.loads((outcome.out_dir / "summary.json").read_text())
    assert summary["cases"] == 40 and summary["counterexamples"] == 0
    assert summary["inputs"]["seed"] == 11 and summary["inputs"]["target"] == "impl"
    assert summary["inputs"]["partitions"] == 4
    assert set(summary["properties"]) == set(PROPERTIES)
    for tally in summary["properties"].values():
        assert tally["held"] == 40 and tally["first_counterexample"] is None
    assert summary["errors"]["count"] == 0
    assert summary["timing"]["cases_per_second"] > 0
    assert {"groupspec", "python", "pyspark"} <= set(summary["versions"])
    if sweep.moves_functions()[0] is not None:  # groupspec.models.min_moves is present
        assert summary["moves"]["measured"] == 40
        assert summary["moves"]["min_moves_status"].get("ok", 0) > 0
        assert summary["notes"] == []


@pytest.mark.spark
def test_full_results_never_beat_the_proved_minimum(spark, good_run):
    outcome, _ = good_run
    table = spark.read.parquet(outcome.parquet)
    assert table.where("full AND moves < min_moves").count() == 0


@pytest.mark.spark
def test_report_is_self_contained_with_plots(good_run):
    outcome, progress = good_run
    html = outcome.report.read_text()
    assert html.count("data:image/png;base64,") == 4
    assert not re.search(r"""(src|href)=["']?https?:""", html)
    assert "<script" not in html
    assert "cases 40/40 (100%)" in progress


@pytest.mark.spark
def test_planted_bug_yields_rebuildable_counterexamples(spark, planted_run):
    summary = planted_run.summary
    assert summary["counterexamples"] == 40
    complete = summary["properties"]["complete"]
    assert complete["failed"] == 40
    first = complete["first_counterexample"]
    assert (first["seed"], first["index"]) == (11, 0)
    assert "groupspec sweep --replay 11 0 --max-members 30 --max-partitions 60" in first["replay"]
    table = spark.read.parquet(planted_run.parquet)
    assert table.where("array_contains(failed, 'complete')").count() == 40
    assert summary["moves"]["compared_with_minimum"] > 0
    html = planted_run.report.read_text()
    assert "seed 11, index 0" in html and "40 of 40 cases are counterexamples" in html


# ---------------------------------------------------------------------------------------------
# Kafka's known divergences (issue 14, item 10)
# ---------------------------------------------------------------------------------------------

#: Seed 0 at these sizes holds index 29 (15 members, a topic deleted), where Kafka's answer is
#: full, breaks `counts`, and moves fewer partitions than any full valid assignment could.
KAFKA_CONFIG = SweepConfig(cases=30, seed=0, target="impl-kafka", partitions=3, **SMALL)


def test_run_case_marks_kafkas_known_divergences_as_expected():
    row = run_case(0, 29, target="impl-kafka", **SMALL)
    assert row["prop_counts"] is False and row["full"] is True
    assert row["moves"] < row["min_moves"]
    assert row["counterexample"] and row["expected"]
    # The same answer under another label is a plain counterexample.
    from groupspec.impl.simple_assignor import assign

    plain = run_case(0, 29, target="other", assign_fn=lambda g: assign(g, compat="kafka"),
                     **SMALL)
    assert plain["counterexample"] and not plain["expected"]


def test_run_case_a_rule_kafka_keeps_is_not_expected():
    row = run_case(5, 0, target="impl-kafka", assign_fn=planted_target(), **SMALL)
    assert "complete" in row["failed"] and row["expected"] is False


def test_run_case_kafkas_own_exception_is_expected_and_named():
    from groupspec.types import PartitionAssignorError

    def crash(group):
        raise PartitionAssignorError("iterator on an empty set",
                                     kafka_exception="java.util.NoSuchElementException")

    row = run_case(5, 1, target="impl-kafka", assign_fn=crash, **SMALL)
    assert row["expected"] is True
    assert row["error"] == ("PartitionAssignorError (java.util.NoSuchElementException): "
                            "iterator on an empty set")
    assert run_case(5, 1, target="impl", assign_fn=crash, **SMALL)["expected"] is False


def moves_summary(**below):
    moves = {"measured": 30, "compared_with_minimum": 30, "optimal": 20, "mean_excess": 0.5,
             "max_excess": 4, "min_moves_status": {"ok": 30}, "below_minimum": 0,
             "below_minimum_not_full": 0, "below_minimum_invalid": 0,
             "below_minimum_unexplained": 0}
    moves.update(below)
    return {"cases": 30, "counterexamples": 0, "expected_counterexamples": 0, "moves": moves}


def test_report_wording_is_true_for_full_rows_below_the_minimum():
    from groupspec.pipeline.report import _moves_text, _verdict

    kafka = moves_summary(below_minimum=3, below_minimum_invalid=2, below_minimum_not_full=1)
    text = _moves_text(kafka["moves"], "impl-kafka")
    assert "possible only for results that are not full" not in text
    assert "3 moved fewer than the minimum: 1 not full and 2 full but breaking counts" in text
    assert "docs/divergences.md" in text
    assert "docs/divergences.md" not in _moves_text(kafka["moves"], "impl")
    assert "No result moved fewer" in _moves_text(moves_summary()["moves"], "impl")
    wrong = moves_summary(below_minimum=1, below_minimum_unexplained=1)
    assert "optimiser is wrong" in _moves_text(wrong["moves"], "impl")
    assert sweep.unexpected(wrong) == 1 and "verdict bad" in _verdict(wrong)
    known = {**kafka, "counterexamples": 12, "expected_counterexamples": 12}
    assert sweep.unexpected(known) == 0
    assert "verdict ok" in _verdict(known) and "12 of them Kafka 4.2" in _verdict(known)


@pytest.fixture(scope="module")
def kafka_run(spark, tmp_path_factory):
    return sweep.run_sweep(spark, KAFKA_CONFIG, tmp_path_factory.mktemp("kafka"))


@pytest.mark.spark
def test_kafka_sweep_reports_expected_divergences_and_passes(kafka_run, capsys):
    from groupspec.commands.sweep import _print_outcome

    summary = kafka_run.summary
    assert summary["counterexamples"] > 0
    assert summary["expected_counterexamples"] == summary["counterexamples"]
    assert summary["properties"]["counts"]["expected"] is True
    assert summary["properties"]["complete"]["expected"] is False
    moves = summary["moves"]
    assert moves["below_minimum_invalid"] >= 1 and moves["below_minimum_unexplained"] == 0
    html = kafka_run.report.read_text()
    assert "possible only for results that are not full" not in html
    assert "docs/divergences.md" in html and "verdict ok" in html
    assert _print_outcome(kafka_run, KAFKA_CONFIG) == 0
    assert "Kafka 4.2's known divergences (docs/divergences.md)" in capsys.readouterr().out


@pytest.mark.spark
def test_an_existing_table_is_refused_without_overwrite(spark, tmp_path):
    from groupspec.types import InputError

    table = tmp_path / "table"
    table.mkdir()
    (table / "part-0.parquet").write_text("someone else's data")
    config = SweepConfig(cases=2, seed=1, target="impl", partitions=1, **SMALL)
    with pytest.raises(InputError, match=r"--parquet: .* already exists; pass --overwrite"):
        sweep.run_sweep(spark, config, tmp_path / "out", parquet=str(table), overwrite=False)
    assert (table / "part-0.parquet").read_text() == "someone else's data"

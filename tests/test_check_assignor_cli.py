"""`groupspec check-assignor`: the table, the JSON and the exit code."""

from __future__ import annotations

import json

from groupspec.cli import main
from groupspec.spec.simple_assignor import PROPERTIES

SMALL = ["--cases", "30", "--seed", "3", "--max-members", "30", "--max-partitions", "60"]


def test_check_assignor_table(capsys):
    assert main(["check-assignor", *SMALL]) == 0
    out = capsys.readouterr().out
    assert out.count("| proved (") == 6
    for name in PROPERTIES:
        assert f"property {name}" in out
    assert out.count("held on 30 cases") == len(PROPERTIES)
    assert "differs: smallest N=19 P=3" in out
    assert "moves/min ratio" in out or "no case with min > 0" in out


def test_check_assignor_json(capsys):
    assert main(["check-assignor", *SMALL, "--target", "spec", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exit_code"] == 0
    rows = {r["check"]: r for r in report["rows"]}
    assert rows["float: Kafka's double desired vs exact"]["detail"]["search"]["n"] == 19
    sticky = rows["stickiness: moves vs proved minimum"]["detail"]
    assert sticky["below_min"] == 0
    assert sticky["full"] + sticky["not_full"] == 30


def test_check_assignor_kafka_violations_are_findings(capsys):
    assert main(["check-assignor", *SMALL, "--target", "impl-kafka", "--no-moves",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    failed = [r for r in report["rows"] if not r["ok"]]
    assert all(r["finding"] for r in failed)

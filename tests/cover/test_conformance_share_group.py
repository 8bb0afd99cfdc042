"""The share_group conformance machine: its JSON form, its vectors, its judge."""

from __future__ import annotations

import copy
import json
import shlex
import sys
from typing import Any

import pytest

from groupspec.conformance import runner, targets
from groupspec.conformance import share_group_json as gj
from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import Response
from groupspec.types import InputError
from groupspec.types import share_group as sg
from tests.scenarios.share_group.cases import Answered, Case, Ends, all_cases

VECTORS = [v for v in vf.load(vf.default_root()) if v.machine == "share_group"]
CASES = {case.name: case for case in all_cases()}


def test_the_catalogue_is_the_vector_folder() -> None:
    assert sorted(v.case for v in VECTORS) == sorted(CASES)


def test_vectors_pass_through_the_adapter() -> None:
    program = f"cmd:{shlex.quote(sys.executable)} -m groupspec.cli adapter --target impl"
    report = runner.run(VECTORS, targets.make_target(program, 30.0), "groupspec")
    assert report.failed == [], runner.failures_text(report)


def _unmet(case: Case, output: gj.RunOutput) -> list[str]:
    wrong = []
    for claim in case.shows:
        if isinstance(claim, Answered):
            answers = output.outputs[claim.event].answers
            response = answers[0].response if answers else None
            results = getattr(response, "results", None)
            error = results[0].error if results else getattr(response, "error", None)
            ok = error is claim.error and (
                claim.epoch is None or getattr(response, "member_epoch", None) == claim.epoch
            )
        else:
            assert isinstance(claim, Ends)
            group = next((g for g in output.view.groups if g.group_id == claim.group), None)
            ok = (
                group is None
                if claim.state is None
                else group is not None and (group.state, group.group_epoch) == (claim.state, claim.epoch)
            )
        if not ok:
            wrong.append(repr(claim))
    return wrong


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.case)
def test_each_vector_shows_what_its_case_says(vector: vf.Vector) -> None:
    case = CASES[vector.case]
    assert case.shows, "a case must claim something"
    assert _unmet(case, gj.run_output_from_json(vector.expected)) == []


def test_runs_round_trip_through_json() -> None:
    for vector in VECTORS:
        run = gj.run_input_from_json(vector.input)
        assert gj.run_input_from_json(json.loads(json.dumps(gj.run_input_to_json(run)))) == run
        out = gj.run_output_from_json(vector.expected)
        assert gj.run_output_to_json(out) == vector.expected


@pytest.mark.parametrize(
    ("doc", "field", "words"),
    [
        ({"events": [{"type": "Fetch"}]}, "input.events[0].type", "not allowed here"),
        (
            {"events": [{"type": "ShareGroupHeartbeat", "group_id": "g", "member_id": "m"}]},
            "input.events[0].member_epoch",
            "missing",
        ),
        (
            {
                "events": [
                    {"type": "ShareGroupHeartbeat", "group_id": "g", "member_id": "m", "member_epoch": "0"}
                ]
            },
            "input.events[0].member_epoch",
            "expected an integer",
        ),
        ({"events": [], "topics": [{"name": "t", "topic_id": "x"}]}, "input.topics[0].partitions", "missing"),
        ({"events": [], "config": {"max_size": 0}}, "input.config.max_size", "at least 1"),
        (
            {"events": [{"type": "PersisterAnswer", "request": 0, "error": "OOPS"}]},
            "input.events[0].error",
            "Errors name",
        ),
    ],
)
def test_bad_documents_name_the_field(doc: Any, field: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        gj.run_input_from_json(doc)
    assert caught.value.field == field and words in caught.value.problem


def _vector(case: str) -> vf.Vector:
    return next(v for v in VECTORS if v.case == case)


def test_a_planted_wrong_answer_or_record_fails() -> None:
    vector = _vector("first_heartbeat_gets_an_empty_assignment")
    planted = copy.deepcopy(vector.expected)
    planted["outputs"][0]["answers"][0]["response"]["member_epoch"] = 2
    passed, _, diff = runner.judge(vector, Response(output=planted), "groupspec")
    assert not passed and diff[0].startswith("event 0: answers[0].response.member_epoch")
    planted = copy.deepcopy(vector.expected)
    records = planted["outputs"][0]["records"]
    records[0], records[1] = records[1], records[0]
    passed, _, diff = runner.judge(vector, Response(output=planted), "groupspec")
    assert not passed and "records of group 'g'" in diff[0]


def test_records_of_different_groups_may_interleave() -> None:
    doc = {
        "topics": [gj.to_json(sg.TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 1), tag=False)],
        "events": [
            gj.to_json(sg.ShareGroupHeartbeat(g, "m", 0, subscribed_topic_names=("t1",))) for g in ("a", "b")
        ]
        + [gj.to_json(sg.AdvanceClock(45_000))],
    }
    expected = targets.dispatch("spec", "share_group", "run", doc)
    vector = vf.Vector(
        "share_group", "run", "x", "", {"kind": "hand-made"}, "exact", (), doc, expected, None, None, "x"
    )
    swapped = copy.deepcopy(expected)
    records = swapped["outputs"][2]["records"]
    assert [r["key"]["group_id"] for r in records] == ["a"] * 4 + ["b"] * 4
    swapped["outputs"][2]["records"] = records[4:] + records[:4]
    assert runner.judge(vector, Response(output=swapped), "groupspec") == (True, "", ())

"""The share_consumer conformance machine: its vectors, their claims, its judge."""

from __future__ import annotations

import copy
import json
import shlex
import sys
from typing import Any

import pytest

from groupspec.conformance import runner, targets
from groupspec.conformance import share_consumer as cc
from groupspec.conformance import share_consumer_json as cj
from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import Response
from groupspec.types import InputError
from tests.scenarios.share_consumer.cases import Ends, Sent, all_cases

VECTORS = [v for v in vf.load(vf.default_root()) if v.machine == "share_consumer"]
CASES = {case.name: case for case in all_cases()}


def test_the_catalogue_is_the_vector_folder() -> None:
    assert sorted(v.case for v in VECTORS) == sorted(CASES)


def test_vectors_pass_through_the_adapter() -> None:
    program = f"cmd:{shlex.quote(sys.executable)} -m groupspec.cli adapter --target impl"
    report = runner.run(VECTORS, targets.make_target(program, 30.0), "groupspec")
    assert report.failed == [], runner.failures_text(report)


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.case)
def test_each_vector_shows_what_its_case_says(vector: vf.Vector) -> None:
    output = cj.run_output_from_json(vector.expected)
    for claim in CASES[vector.case].shows:
        if isinstance(claim, Sent):
            sent = output.outputs[claim.event].sent
            assert (None if sent is None else sent.member_epoch) == claim.epoch, claim
        else:
            assert isinstance(claim, Ends)
            assert output.view.state is claim.state
    assert (
        cc._violated_share_consumer(vector.input, vector.expected, cc.PROPERTIES) == {}
    )


def test_round_trip_and_a_planted_difference() -> None:
    vector = next(v for v in VECTORS if v.case == "join_and_heartbeat")
    run = cj.run_input_from_json(vector.input)
    assert cj.run_input_from_json(json.loads(json.dumps(cj.run_input_to_json(run)))) == run
    planted = copy.deepcopy(vector.expected)
    planted["outputs"][1]["sent"]["rack_id"] = None
    passed, _, diff = runner.judge(vector, Response(output=planted), "groupspec")
    assert not passed and diff == ("event 1.sent.rack_id: expected 'r1', got None",)
    twice = copy.deepcopy(vector.expected)
    twice["outputs"][2]["sent"] = twice["outputs"][1]["sent"]  # a second heartbeat while one is in flight
    assert cc._violated_share_consumer(vector.input, twice, cc.PROPERTIES) == {
        "one_in_flight": ["one_in_flight: event 2 sent a heartbeat while the one sent at event 1 awaited "
                          "its answer"]
    }


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        ({"events": [{"type": "Poll", "when": 1}]}, "input.events[0].when"),
        ({"events": [{"type": "Subscribe", "topics": "t1"}]}, "input.events[0].topics"),
        ({"events": [], "config": {"retry_backoff_ms": 0}}, "input.config.retry_backoff_ms"),
        (
            {"events": [{"type": "HeartbeatAnswered", "response": {"error": "NOPE"}}]},
            "input.events[0].response.error",
        ),
    ],
)
def test_bad_documents_name_the_field(doc: Any, field: str) -> None:
    with pytest.raises(InputError) as caught:
        cj.run_input_from_json(doc)
    assert caught.value.field == field

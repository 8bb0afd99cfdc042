"""The classic_consumer conformance machine: its vectors, their claims, its judge."""

from __future__ import annotations

import copy
import shlex
import sys

import pytest

from groupspec.conformance import classic_consumer as cc
from groupspec.conformance import classic_consumer_json as cj
from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import Response
from tests.scenarios.classic_consumer.cases import CASES

VECTORS = [v for v in vf.load(vf.default_root()) if v.machine == "classic_consumer"]
BY_NAME = {case.name: case for case in CASES}


def test_the_catalogue_is_the_vector_folder() -> None:
    assert sorted(v.case for v in VECTORS) == sorted(BY_NAME)


def test_vectors_pass_through_the_adapter() -> None:
    program = f"cmd:{shlex.quote(sys.executable)} -m groupspec.cli adapter --target impl"
    report = runner.run(VECTORS, targets.make_target(program, 30.0), "groupspec")
    assert report.failed == [], runner.failures_text(report)


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.case)
def test_each_vector_shows_what_its_case_says(vector: vf.Vector) -> None:
    output = cj.run_output_from_json(vector.expected)
    case = BY_NAME[vector.case]
    for k, step in enumerate(case.steps):
        assert output.outputs[k] == step.shows, (vector.case, k)
    last = case.steps[-1]
    if last.ends is not None:
        assert output.view.state is last.ends
    if last.expect_epoch is not None:
        assert output.view.generation == last.expect_epoch
    assert cc._violated(vector.input, vector.expected, cc.PROPERTIES) == {}


def test_a_planted_difference_and_a_second_request_in_flight() -> None:
    vector = next(v for v in VECTORS if v.case == "heartbeat_after_the_interval")
    planted = copy.deepcopy(vector.expected)
    planted["outputs"][5][0]["request"]["generation_id"] = 2
    passed, _, diff = runner.judge(vector, Response(output=planted), "groupspec")
    assert not passed and diff == ("event 5[0].request.generation_id: expected 1, got 2",)
    # a second heartbeat before the first is answered is Kafka's way, not a violation
    assert vector.expected["outputs"][6] == vector.expected["outputs"][5]
    assert cc._violated(vector.input, vector.expected, cc.PROPERTIES) == {}
    syncing = next(v for v in VECTORS if v.case == "heartbeat_goes_while_the_sync_awaits")
    twice = copy.deepcopy(syncing.expected)
    twice["outputs"][3] = twice["outputs"][1]  # a JoinGroup while the SyncGroup awaits
    assert cc._violated(syncing.input, twice, cc.PROPERTIES) == {
        "one_request_in_flight": ["one_request_in_flight: event 3 sent JoinGroup while the request "
                                  "of event 2 awaited its answer"]}
    anonymous = copy.deepcopy(syncing.expected)
    anonymous["outputs"][3][0]["request"]["generation_id"] = -1
    assert cc._violated(syncing.input, anonymous, cc.PROPERTIES) == {
        "heartbeat_in_a_generation": ["heartbeat_in_a_generation: event 3 sent a Heartbeat outside "
                                      "a generation"]}


def test_a_lost_sync_may_be_sent_again_without_an_answer() -> None:
    """After a session timeout's worth of time the SyncGroup may be gone with the connection:
    the JoinGroup that follows it is no second request in flight."""
    vector = next(v for v in VECTORS if v.case == "an_unanswered_sync_times_out_and_its_round_fails")
    doc = copy.deepcopy(vector.input)
    out = copy.deepcopy(vector.expected)
    answer = next(k for k, e in enumerate(doc["events"]) if e["type"] == "SyncAnswered")
    del doc["events"][answer], out["outputs"][answer]
    assert cc._violated(doc, out, cc.PROPERTIES) == {}
    early = copy.deepcopy(doc)
    for e in early["events"]:
        if "now_ms" in e:
            e["now_ms"] = min(e["now_ms"], 29_000)
    assert cc._violated(early, out, cc.PROPERTIES)["one_request_in_flight"]


def test_a_poll_before_the_clock_starts_is_refused_by_name() -> None:
    from groupspec.types import InputError

    vector = next(v for v in VECTORS if v.case == "heartbeat_after_the_interval")
    doc = copy.deepcopy(vector.input)
    poll = next(e for e in doc["events"] if e["type"] == "Poll")
    assert cj.run_input_from_json(doc).events  # as written, it reads
    poll["now_ms"] = -1
    with pytest.raises(InputError, match="now_ms"):
        cj.run_input_from_json(doc)

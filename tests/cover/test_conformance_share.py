"""The share_partition conformance machine: its JSON form, its vectors, its judge.

- share_partition_json is lossless for every event, output and view, and refuses bad documents with the
  path of the bad field;
- every share_partition vector passes against the spec, the implementation and the JSON-lines
  adapter, and shows what its case says it shows;
- the judge compares what the contract fixes (answers, writes, the view) and only that: a
  planted wrong answer, write or view fails, a different grouping of acquired ranges does not.
"""

from __future__ import annotations

import copy
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.conformance import runner, targets
from groupspec.conformance import share_partition as sc
from groupspec.conformance import share_partition_json as sj
from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import Response
from groupspec.types import InputError
from groupspec.types import share_partition as sp
from groupspec.types.errors import Errors
from tests.scenarios.share_partition.cases import Acquired, Answered, Case, Ends, Gated, all_cases

VECTORS = [v for v in vf.load(vf.default_root()) if v.machine == "share_partition"]
CASES = {case.name: case for case in all_cases()}

# ---------------------------------------------------------------------------------------------
# The JSON form
# ---------------------------------------------------------------------------------------------

_ints = st.integers(0, 2**40)
_events = st.one_of(
    st.builds(sp.Fetch, st.text(max_size=5), _ints,
              st.lists(st.builds(sp.LogBatch, _ints, _ints), max_size=3).map(tuple), _ints, _ints),
    st.builds(sp.Acknowledge, st.text(max_size=5),
              st.lists(st.builds(sp.AckBatch, _ints, _ints,
                                 st.lists(st.integers(0, 4), max_size=4).map(tuple)), max_size=3).map(tuple)),
    st.builds(sp.ReleaseMember, st.text(max_size=5)),
    st.builds(sp.MoveLogStart, _ints), st.builds(sp.AdvanceClock, _ints),
    st.builds(sp.SetPersisterError, st.sampled_from(list(Errors))), st.just(sp.FenceLeader()),
    st.builds(sp.ResetShareState, _ints), st.builds(sp.Reload, _ints), st.just(sp.CanAcquire()),
)
_states = st.sampled_from(list(sp.RecordState))
_errors = st.sampled_from(list(Errors))
_batches = st.lists(st.builds(sp.PersisterBatch, _ints, _ints, _states, _ints), max_size=3).map(tuple)
_responses = st.one_of(
    st.builds(sp.FetchResponse,
              st.lists(st.builds(sp.AcquiredRecords, _ints, _ints, _ints), max_size=3).map(tuple), _ints),
    st.builds(sp.AcknowledgeResponse, st.sampled_from(list(Errors))),
    st.builds(sp.ReleaseResponse, st.sampled_from(list(Errors))),
    st.builds(sp.ReloadResponse, st.sampled_from(list(Errors))),
    st.builds(sp.CanAcquireResponse, st.booleans()),
)
_outputs = st.builds(sp.Output, st.lists(st.builds(sp.Answer, _ints, _responses), max_size=2).map(tuple),
                     st.lists(st.builds(sp.StateWrite, _ints, _ints, _ints, _batches, _errors),
                              max_size=2).map(tuple))
_views = st.builds(
    sp.SharePartitionView, _ints, st.sampled_from(("ACTIVE", "FAILED")), _ints, _ints, _ints, _ints,
    _ints,
    st.lists(st.builds(sp.BatchView, _ints, _ints, st.booleans()), max_size=2).map(tuple),
    st.lists(st.builds(sp.RecordView, _ints, _states, _ints, st.text(max_size=3), st.none() | _ints),
             max_size=2).map(tuple),
    st.none() | st.tuples(_ints, _ints), _ints, _ints, _ints, _batches)


@given(st.lists(_events, max_size=4), _outputs, _views)
def test_runs_round_trip(events: list[Any], output: sp.Output, view: sp.SharePartitionView) -> None:
    run = sj.RunInput(config=sp.SharePartitionConfig(3, 10, 5), persisted=sp.PersistedState(), start_ms=7,
                 latest_offset=9, events=tuple(events))
    text = json.dumps(sj.run_input_to_json(run))
    assert sj.run_input_from_json(json.loads(text)) == run
    result = sj.RunOutput((output,), view)
    assert sj.run_output_from_json(json.loads(json.dumps(sj.run_output_to_json(result)))) == result


def test_the_shape_of_an_event_and_an_answer() -> None:
    event = sj.to_json(sp.Acknowledge("m", (sp.AckBatch(3, 5, (1,)),)))
    assert event == {"type": "Acknowledge", "member_id": "m",
                     "batches": [{"first_offset": 3, "last_offset": 5, "types": [1]}]}
    write = sp.StateWrite(4, 1, 0, (sp.PersisterBatch(4, 4, sp.RecordState.ARCHIVED, 2),))
    out = sj.to_json(sp.Output((sp.Answer(2, sp.ReleaseResponse(Errors.INVALID_RECORD_STATE)),), (write,)),
                     tag=False)
    assert out == {"answers": [{"request": 2, "response": {"type": "ReleaseResponse",
                                                           "error": "INVALID_RECORD_STATE"}}],
                   "writes": [{"start_offset": 4, "state_epoch": 1, "leader_epoch": 0, "error": "NONE",
                               "batches": [{"first_offset": 4, "last_offset": 4,
                                            "delivery_state": "ARCHIVED", "delivery_count": 2}]}]}


@pytest.mark.parametrize(("doc", "field", "words"), [
    ({"events": [{"type": "Heartbeat"}]}, "input.events[0].type", "not allowed here"),
    ({"events": [{"member_id": "m"}]}, "input.events[0].type", "must name its class"),
    ({"events": [{"type": "Fetch", "member_id": "m", "fetch_offset": "0", "log": []}]},
     "input.events[0].fetch_offset", "expected an integer"),
    ({"events": [{"type": "Fetch", "member_id": "m", "log": []}]}, "input.events[0].fetch_offset",
     "missing"),
    ({"events": [{"type": "ReleaseMember", "member_id": "m", "why": 1}]}, "input.events[0].why",
     "not a field"),
    ({"events": [{"type": "SetPersisterError", "error": "NOPE"}]}, "input.events[0].error", "Errors name"),
    ({"events": [], "config": {"delivery_count_limit": 0}}, "input.config.delivery_count_limit",
     "at least 1"),
    ({"events": [], "start_ms": -1}, "input.start_ms", "not be negative"),
    ({"events": [], "persisted": {"batches": [{"first_offset": 1, "last_offset": 2, "delivery_state": "LOST",
                                               "delivery_count": 1}]}},
     "input.persisted.batches[0].delivery_state", "RecordState name"),
    ({"events": {}}, "input.events", "expected an array"),
    ({"events": [], "clock": 0}, "input.clock", "unknown field"),
])
def test_bad_documents_name_the_field(doc: Any, field: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        sj.run_input_from_json(doc)
    assert caught.value.field == field and words in caught.value.problem


def test_a_persisted_state_no_coordinator_could_hold_is_refused_by_both_layers() -> None:
    batch = {"first_offset": 3, "last_offset": 4, "delivery_state": "AVAILABLE", "delivery_count": 1}
    doc = {"persisted": {"start_offset": 5, "batches": [batch]}, "events": []}
    for target in ("spec", "impl"):
        with pytest.raises(InputError, match="below the start offset"):
            targets.dispatch(target, "share_partition", "run", doc)


# ---------------------------------------------------------------------------------------------
# The vectors
# ---------------------------------------------------------------------------------------------


def test_the_catalogue_is_the_vector_folder() -> None:
    assert sorted(v.case for v in VECTORS) == sorted(CASES)
    assert len(VECTORS) >= 25
    kinds = {v.source["kind"] for v in VECTORS}
    assert kinds == {"upstream", "fact-sheet", "hand-made", "divergence"}
    # Both layers follow Kafka's code (docs/divergences.md explains) except where its code fails
    # its own rules and groupspec keeps its answer: those vectors name their entry.
    page = (Path(__file__).resolve().parents[2] / "docs" / "divergences.md").read_text(encoding="utf-8")
    for v in VECTORS:
        if v.source["kind"] == "divergence":
            assert f"\n## {v.source['name']}:" in page and v.source["docs"].endswith(v.source["name"])


def test_vectors_pass_through_the_adapter() -> None:
    program = f"cmd:{shlex.quote(sys.executable)} -m groupspec.cli adapter --target impl"
    report = runner.run(VECTORS, targets.make_target(program, 30.0), "groupspec")
    assert report.failed == [], runner.failures_text(report)


def _unmet(case: Case, output: sj.RunOutput) -> list[str]:
    wrong = []
    for claim in case.shows:
        if isinstance(claim, Ends):
            v = output.view
            ok = (v.start_offset, v.end_offset, v.next_fetch_offset) == (
                claim.start_offset, claim.end_offset, claim.next_fetch_offset)
        else:
            answers = output.outputs[claim.event].answers
            response = answers[0].response if answers else None
            if isinstance(claim, Answered):
                ok = getattr(response, "error", None) is claim.error
            elif isinstance(claim, Gated):
                ok = response == sp.CanAcquireResponse(claim.can_acquire)
            else:
                assert isinstance(claim, Acquired)
                ok = isinstance(response, sp.FetchResponse) and response.count == claim.count
        if not ok:
            wrong.append(repr(claim))
    return wrong


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.case)
def test_each_vector_shows_what_its_case_says(vector: vf.Vector) -> None:
    case = CASES[vector.case]
    assert case.shows, "a case must claim something"
    assert _unmet(case, sj.run_output_from_json(vector.expected)) == []


# ---------------------------------------------------------------------------------------------
# The judge
# ---------------------------------------------------------------------------------------------


def _vector(case: str) -> vf.Vector:
    return next(v for v in VECTORS if v.case == case)


def _judge(vector: vf.Vector, output: Any, flavour: str = "groupspec") -> tuple[bool, str, tuple[str, ...]]:
    return runner.judge(vector, Response(output=output), flavour)


def test_a_planted_wrong_answer_write_or_view_fails() -> None:
    vector = _vector("worked_example")
    planted = copy.deepcopy(vector.expected)
    answer = planted["outputs"][1]["answers"][0]
    assert answer["response"] == {"type": "AcknowledgeResponse", "error": "NONE"}
    answer["response"]["error"] = "INVALID_RECORD_STATE"
    passed, reason, diff = _judge(vector, planted)
    assert not passed and reason == "output differs for 1 difference(s)"
    assert diff == ("event 1: answer.response.error: expected NONE, got INVALID_RECORD_STATE",)

    planted = copy.deepcopy(vector.expected)
    planted["outputs"][1]["writes"][0]["start_offset"] = 5
    assert _judge(vector, planted)[2] == ("event 1: writes[0].start_offset: expected 0, got 5",)
    planted = copy.deepcopy(vector.expected)
    planted["view"]["records"][6]["delivery_count"] = 2
    assert _judge(vector, planted)[2] == ("view.records[6].delivery_count: expected 3, got 2",)


def test_acquired_ranges_may_be_grouped_differently() -> None:
    vector = _vector("worked_example")
    output = copy.deepcopy(vector.expected)
    fetch = output["outputs"][0]["answers"][0]["response"]
    assert fetch["acquired"] == [{"first_offset": 0, "last_offset": 9, "delivery_count": 1}]
    fetch["acquired"] = [{"first_offset": 5, "last_offset": 9, "delivery_count": 1},
                         {"first_offset": 0, "last_offset": 4, "delivery_count": 1}]
    assert _judge(vector, output) == (True, "", ())
    fetch["acquired"][0]["delivery_count"] = 2
    passed, _, diff = _judge(vector, output)
    assert not passed and diff[0].startswith("event 0: answer: acquired (offset, delivery count)")


def test_the_properties_catch_a_missing_or_misplaced_answer() -> None:
    vector = _vector("worked_example")
    output = copy.deepcopy(vector.expected)
    output["outputs"][3]["answers"] = [output["outputs"][2]["answers"][0]]  # an answer to a clock tick
    bad = sc._violated_share(vector.input, output, sc.PROPERTIES)
    assert list(bad) == ["one_answer_each", "answer_types"]
    assert bad["answer_types"][0].startswith("answer_types: event 3 (AdvanceClock) answered with ")
    output = copy.deepcopy(vector.expected)
    output["outputs"][0]["answers"] = []
    assert sc._violated_share(vector.input, output, sc.PROPERTIES) == {
        "one_answer_each": ["one_answer_each: event 0 (Fetch) answered requests [], expected request 0"]}
    assert sc._violated_share(vector.input, vector.expected, sc.PROPERTIES) == {}


def test_a_malformed_output_is_reported_with_its_path() -> None:
    vector = _vector("worked_example")
    output = copy.deepcopy(vector.expected)
    output["outputs"][0]["answers"][0]["response"]["count"] = "10"
    passed, reason, _ = _judge(vector, output)
    assert not passed and reason.startswith("malformed output: output.outputs[0].answers[0].response.count")

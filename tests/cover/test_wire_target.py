"""The kafka:// conformance target without a broker: names both ways, the scaling and
configuration rules, the judge's masking, and a run over fake connections on a fake clock."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from groupspec.conformance import runner, targets
from groupspec.conformance import wire_target as wt
from groupspec.conformance.classic_group_json import RunInput, run_output_to_json
from groupspec.types import InputError
from groupspec.types import classic_group as cg
from groupspec.types.errors import Errors
from groupspec.wire import messages as w

U1 = "00000000-0000-4000-8000-000000000001"
U2 = "00000000-0000-4000-8000-000000000002"


def test_names_map_groups_topics_and_bound_members_both_ways() -> None:
    names = wt.Names("gsabc")
    assert names.group("g") == "gsabc-g" and names.group_back("gsabc-g") == "g"
    assert names.group("") == "" and names.group_back("") == ""
    assert names.group_back("someone-elses") is None
    assert names.topic_back(names.topic("orders")) == "orders"
    names.bind(f"a-{U1}", "a-real")
    assert names.member(f"a-{U1}") == "a-real" and names.member_back("a-real") == f"a-{U1}"
    assert names.member("stranger") == "stranger" and names.member_back("unbound") == "unbound"
    names.bind(f"a-{U1}", "a-again")  # a rebinding forgets the old broker id
    assert names.member_back("a-real") == "a-real" and names.member_back("a-again") == f"a-{U1}"


def test_the_symbol_is_the_instance_id_or_client_id_with_the_vectors_uuid() -> None:
    assert wt.symbol_of(cg.JoinGroup("g", client_id="c", new_member_uuid=U1)) == f"c-{U1}"
    assert wt.symbol_of(cg.JoinGroup("g", group_instance_id="i", client_id="c",
                                     new_member_uuid=U1)) == f"i-{U1}"


def test_requests_go_out_in_the_brokers_names_and_answers_come_back_in_the_vectors() -> None:
    names = wt.Names("t")
    names.bind("a-1", "a-X")
    names.bind("b-2", "b-Y")
    sync = cg.SyncGroup("g", 1, "a-1", assignments=(cg.SyncAssignment("b-2", b"x"),))
    out = wt.request_out(sync, names)
    assert (out.group_id, out.member_id, out.assignments[0].member_id) == ("t-g", "a-X", "b-Y")
    commit = wt.request_out(cg.OffsetCommit("g", topics=(cg.CommitTopic("o", ()),)), names)
    assert commit.topics[0].name == "t-o"
    joined = cg.JoinGroupResponse(Errors.NONE, 1, leader="a-X", member_id="b-Y",
                                  members=(cg.JoinGroupMember("a-X", None, b""),))
    back = wt.response_back(joined, names)
    assert (back.leader, back.member_id, back.members[0].member_id) == ("a-1", "b-2", "a-1")
    listed = cg.ListGroupsResponse(Errors.NONE, (cg.ListedGroup("t-z", "consumer", "Empty"),
                                                 cg.ListedGroup("other-run-g", "consumer", "Empty"),
                                                 cg.ListedGroup("t-a", "", "Empty")))
    assert [g.group_id for g in wt.response_back(listed, names).groups] == ["a", "z"]


def _run(*events: Any, config: cg.ClassicConfig | None = None) -> RunInput:
    return RunInput(config=config or cg.ClassicConfig(), events=events)


@pytest.mark.parametrize("events, why", [
    ((cg.Restart(),), "restart"),
    ((cg.BeginLoad(),), "load"),
    # a producer fenced by a later epoch: the broker draws the epochs
    ((cg.TxnOffsetCommit("t", 1, 0, "g"), cg.TxnMarker(1, 1, True)), "epochs 0 and 1"),
    ((cg.OffsetCommit("g", topics=(cg.CommitTopic("o", ()),), version=10),), "without a topic id"),
])
def test_what_the_wire_cannot_express_is_unrealisable(events: tuple[Any, ...], why: str) -> None:
    with pytest.raises(wt.Unrealisable, match=why):
        wt.plan(_run(*events), wt.Scaling())


def test_transactions_offset_deletion_and_group_deletion_are_realisable() -> None:
    commit = cg.TxnOffsetCommit("t", 7, 1, "g", topics=(cg.CommitTopic("o", (cg.CommitPartition(0, 5),)),))
    wt.plan(_run(commit, cg.TxnMarker(7, 1, True), cg.TxnMarker(8, 0, False),
                 cg.OffsetDelete("g", (cg.FetchTopic("o", (0,)),)), cg.DeleteGroups(("g",)),
                 cg.OffsetCommit("g", topics=(cg.CommitTopic("o", (), topic_id=U1),), version=10)),
            wt.Scaling())


def test_the_budget_and_the_resolution_bound_the_clock() -> None:
    wt.plan(_run(cg.AdvanceClock(3000), cg.AdvanceClock(6000)), wt.Scaling(budget_s=6))
    with pytest.raises(wt.Unrealisable, match="budget of 5 s"):
        wt.plan(_run(cg.AdvanceClock(6000)), wt.Scaling(budget_s=5))
    with pytest.raises(wt.Unrealisable, match="from 2999 to 3000"):
        wt.plan(_run(cg.AdvanceClock(2999), cg.AdvanceClock(3000)), wt.Scaling())
    wt.plan(_run(cg.AdvanceClock(0)), wt.Scaling())  # a zero step with no zero timer: harmless
    with pytest.raises(wt.Unrealisable, match="steps by 0 ms"):
        wt.plan(_run(cg.AdvanceClock(0), config=cg.ClassicConfig(initial_rebalance_delay_ms=0)),
                wt.Scaling())


def test_unaskable_configuration_matters_only_where_the_run_shows_it() -> None:
    small = cg.ClassicConfig(max_size=1)
    one = _run(cg.JoinGroup("g"), config=small)
    two = _run(cg.JoinGroup("g"), cg.JoinGroup("g"), config=small)
    assert wt.assumed_problems(one, {}) == []
    assert wt.assumed_problems(two, {}) == [
        "the vector needs group.max.size=1, the broker has 2147483647 (Kafka's default, assumed)"]
    assert wt.assumed_problems(two, {"group.max.size": "1"}) == []
    meta = _run(cg.OffsetCommit("g", topics=(cg.CommitTopic("o", (
        cg.CommitPartition(0, 1, committed_metadata="123456789"),)),)),
        config=cg.ClassicConfig(offset_metadata_max_bytes=8))
    assert "offset.metadata.max.bytes=8" in wt.assumed_problems(meta, {})[0]


def test_the_address_carries_options_and_declared_broker_properties() -> None:
    host, port, scaling, declared = wt.parse("kafka://h:9092?budget_s=4&group.max.size=1")
    assert (host, port, scaling.budget_s, declared) == ("h", 9092, 4.0, {"group.max.size": "1"})
    with pytest.raises(InputError, match="unknown option 'budget'"):
        wt.parse("kafka://h:9092?budget=4")
    with pytest.raises(InputError, match="not a number"):
        wt.parse("kafka://h:9092?settle_s=soon")
    target = targets.make_target("kafka://127.0.0.1:1?budget_s=2", 5.0)
    assert isinstance(target, wt.WireTarget) and target.scaling.budget_s == 2.0
    answer = target.call("x", "share_state", "run", {})
    assert answer.unsupported is not None and "broker-internal" in answer.unsupported
    assert target.call("x", "share_partition", "run", {}).error == ("invalid_input", "input.events: missing")
    assert target.call("x", "classic_group", "run", {}).error == ("invalid_input", "input.events: missing")


def test_masking_takes_unobserved_parts_and_unordered_lists_from_the_output() -> None:
    want = {"outputs": [{"answers": [{"response": {"t": "consumer", "m": [1, 2]}}], "records": [7]}],
            "view": {"now_ms": 5}}
    got = {"outputs": [{"answers": [{"response": {"t": None, "m": [2, 1]}}], "records": []}],
           "view": {"now_ms": 0}}
    out = runner.masked(want, got, ("outputs[].records", "view", "outputs.0.answers.0.response.t"),
                        ("outputs.0.answers.0.response.m",))
    assert out == got
    assert want["outputs"][0]["records"] == [7]  # the reference itself is left alone
    other = {**got, "outputs": [{"answers": [{"response": {"t": None, "m": [2, 3]}}], "records": []}]}
    kept = runner.masked(want, other, (), ("outputs.0.answers.0.response.m",))
    assert kept["outputs"][0]["answers"][0]["response"]["m"] == [1, 2]  # different items: kept


def test_an_unordered_list_ignores_the_order_of_lists_inside_its_items_too() -> None:
    want = {"topics": [{"name": "a", "p": [0, 2]}, {"name": "b", "p": [1]}]}
    got = {"topics": [{"name": "b", "p": [1]}, {"name": "a", "p": [2, 0]}]}
    assert runner.masked(want, got, (), ("topics",)) == got
    other = {"topics": [{"name": "b", "p": [1]}, {"name": "a", "p": [2, 1]}]}
    assert runner.masked(want, other, (), ("topics",)) == want


def test_masking_finds_answers_by_request_whatever_their_order() -> None:
    want = {"answers": [{"request": 9, "response": {"m": []}}, {"request": 8, "response": {"m": [1]}}]}
    got = {"answers": [{"request": 8, "response": {"m": [1]}}, {"request": 9, "response": {"m": [5]}}]}
    out = runner.masked(want, got, ("answers[request=9].response.m",))
    assert out["answers"] == [{"request": 9, "response": {"m": [5]}}, {"request": 8, "response": {"m": [1]}}]


# ---------------------------------------------------------------------------------------------
# A run over fake connections on a fake clock
# ---------------------------------------------------------------------------------------------


@dataclass
class FakeClock:
    now: float = 100.0


@dataclass
class FakeConn:
    client_id: str
    broker: FakeBroker
    sent: list[Any] = field(default_factory=list)
    pending: Any = None
    ready_at: float = float("inf")
    answer: Any = None

    def send(self, request: Any, version: int | None = None) -> Any:
        self.sent.append(request)
        self.pending = type("P", (), {"version": version or 9})()
        self.ready_at, self.answer = self.broker.answer(request)
        return self.pending

    def receive(self, pending: Any) -> Any:
        assert pending is self.pending
        self.pending = None
        return self.answer

    def request(self, request: Any, version: int | None = None) -> Any:
        return self.receive(self.send(request, version))

    def version(self, api_key: int) -> int:
        return 9

    def fileno(self) -> int:
        return -1

    def close(self) -> None:
        pass


@dataclass
class FakeBroker:
    """Answers a first JoinGroup with MEMBER_ID_REQUIRED at once, and parks the second for the
    initial delay (3 s after it arrives)."""

    clock: FakeClock
    seen: list[Any] = field(default_factory=list)

    def answer(self, request: Any) -> tuple[float, Any]:
        self.seen.append(request)
        assert isinstance(request, w.JoinGroupRequest)
        if request.member_id == "":
            return self.clock.now + 0.001, w.JoinGroupResponse(
                error_code=Errors.MEMBER_ID_REQUIRED, generation_id=-1, protocol_name=None, leader="",
                member_id="a-broker-drawn", members=())
        return self.clock.now + 3.0, w.JoinGroupResponse(
            error_code=0, generation_id=1, protocol_type="consumer", protocol_name="range",
            leader="a-broker-drawn", member_id="a-broker-drawn",
            members=(w.JoinGroupResponse.JoinGroupResponseMember("a-broker-drawn", None, b""),))


def test_a_parked_join_is_answered_in_the_advance_that_releases_it_in_the_vectors_names() -> None:
    clock = FakeClock()
    broker = FakeBroker(clock)
    conns: list[FakeConn] = []

    def connect(client: str) -> FakeConn:
        conns.append(FakeConn(client, broker))
        return conns[-1]

    def wait(busy: Any, timeout: float) -> list[Any]:
        due = [c for c in busy if c.ready_at <= clock.now + timeout]
        if due:
            clock.now = max(clock.now, min(c.ready_at for c in due))
            return [c for c in due if c.ready_at <= clock.now]
        clock.now += timeout
        return []

    protocols = (cg.Protocol("range", b""),)
    run = _run(cg.JoinGroup("g", client_id="a", new_member_uuid=U1, protocols=protocols),
               cg.JoinGroup("g", f"a-{U1}", client_id="a", protocols=protocols),
               cg.AdvanceClock(3000))
    scaling = wt.Scaling()
    driver = wt.ClassicRun(run, wt.Names("t"), connect, scaling, clock=lambda: clock.now, wait=wait)
    out = driver.drive()
    assert [r.group_id for r in broker.seen] == ["t-g", "t-g"]
    assert [r.member_id for r in broker.seen] == ["", "a-broker-drawn"]
    assert [[a.request for a in o.answers] for o in out.outputs] == [[0], [], [1]]
    first, second = out.outputs[0].answers[0].response, out.outputs[2].answers[0].response
    assert first.member_id == f"a-{U1}"
    assert (second.leader, second.members[0].member_id) == (f"a-{U1}", f"a-{U1}")
    # The advance slept until 3 s after the run's start, behind by at most the settle, plus slack.
    assert 103.0 + scaling.slack_s <= clock.now <= 103.0 + scaling.slack_s + scaling.settle_s + 0.1
    assert "outputs.2.answers[request=1].response.members" in driver.unordered
    assert run_output_to_json(out)["view"] == {"now_ms": 3000, "groups": []}


# ---------------------------------------------------------------------------------------------
# share_group
# ---------------------------------------------------------------------------------------------


def _share(*events: Any, topics: tuple[Any, ...] = ()) -> Any:
    from groupspec.conformance.share_group_json import RunInput as ShareInput

    return ShareInput(topics=topics, events=events)


def test_a_share_run_that_races_the_brokers_initialization_is_unrealisable() -> None:
    from groupspec.types import share_group as sg

    t1 = sg.TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 2)
    join = sg.ShareGroupHeartbeat("g", "m1", 0, subscribed_topic_names=("t1",))
    again = sg.ShareGroupHeartbeat("g", "m1", 1)
    wt.share_plan(_share(join, topics=(t1,)), wt.Scaling())  # one heartbeat: nothing to race
    wt.share_plan(_share(sg.ShareGroupHeartbeat("g", "m1", 0, subscribed_topic_names=("t9",)),
                         again, topics=(t1,)), wt.Scaling())  # a topic that does not exist
    with pytest.raises(wt.Unrealisable, match="initializing"):
        wt.share_plan(_share(join, again, topics=(t1,)), wt.Scaling())
    with pytest.raises(wt.Unrealisable, match="PersisterAnswer"):
        wt.share_plan(_share(join, sg.PersisterAnswer(0)), wt.Scaling())


def test_a_share_run_maps_groups_topics_and_assigned_topic_ids() -> None:
    from groupspec.types import share_group as sg

    broker_id = "5f0e6f4a-1c1b-4e0e-9f5e-0d4b8a1c2b3d"
    vector_id = "00000000-0000-4000-8000-000000000001"
    sent: list[Any] = []

    class OneConn(FakeConn):
        def send(self, request: Any, version: int | None = None) -> Any:
            sent.append(request)
            self.pending = type("P", (), {"version": 1})()
            self.answer = w.ShareGroupHeartbeatResponse(
                error_code=0, member_id="m1", member_epoch=1, heartbeat_interval_ms=5000,
                assignment=w.ShareGroupHeartbeatResponse.Assignment(topic_partitions=(
                    w.ShareGroupHeartbeatResponse.TopicPartitions(uuid.UUID(broker_id), (0, 1)),)))
            return self.pending

    conn = OneConn("c", FakeBroker(FakeClock()))
    run = _share(sg.ShareGroupHeartbeat("g", "m1", 0, subscribed_topic_names=("t1",)))
    out = wt.ShareRun(run, wt.Names("t"), {vector_id: broker_id}, conn, wt.Scaling()).drive()
    assert (sent[0].group_id, sent[0].subscribed_topic_names, sent[0].member_id) == (
        "t-g", ("t-t1",), "m1")
    answer = out.outputs[0].answers[0].response
    assert answer.assignment == (sg.TopicPartitions(vector_id, (0, 1)),)


def test_the_judge_leaves_out_what_the_wire_target_cannot_observe_and_nothing_else() -> None:
    import copy

    from groupspec.conformance import vector_format as vf

    vector = next(v for v in vf.load(vf.default_root()) if v.id == "classic_group/run/heartbeat_answers")
    assert vector.expected is not None
    seen = copy.deepcopy(dict(vector.expected))
    for out in seen["outputs"]:
        out["records"] = []
    seen["view"] = {"now_ms": seen["view"]["now_ms"], "groups": []}
    blind = targets.Response(output=seen, unobserved=wt.CLASSIC_UNOBSERVED)
    assert runner.judge(vector, blind, "groupspec")[0]
    assert not runner.judge(vector, targets.Response(output=seen), "groupspec")[0]
    seen["outputs"][0]["answers"][0]["response"]["error"] = "NONE"  # an answer is still judged
    assert not runner.judge(vector, blind, "groupspec")[0]


def test_a_slow_answer_to_a_request_that_never_parks_stays_with_its_event() -> None:
    clock = FakeClock()

    class SlowBroker(FakeBroker):
        def answer(self, request: Any) -> tuple[float, Any]:
            return self.clock.now + 0.5, w.HeartbeatResponse(error_code=Errors.UNKNOWN_MEMBER_ID)

    broker = SlowBroker(clock)

    def wait(busy: Any, timeout: float) -> list[Any]:
        due = [c for c in busy if c.ready_at <= clock.now + timeout]
        if due:
            clock.now = max(clock.now, min(c.ready_at for c in due))
            return due
        clock.now += timeout
        return []

    run = _run(cg.Heartbeat("g", 1, "x"), cg.Heartbeat("g", 1, "y"))
    out = wt.ClassicRun(run, wt.Names("t"), lambda client: FakeConn(client, broker), wt.Scaling(),
                        clock=lambda: clock.now, wait=wait).drive()
    assert [[a.request for a in o.answers] for o in out.outputs] == [[0], [1]]


def test_a_broker_without_an_api_the_run_needs_answers_unsupported_and_a_dead_one_broken() -> None:
    from groupspec.wire import ConnectError, NoCommonVersionError

    def no_api(host: str, port: int, client: str) -> Any:
        raise NoCommonVersionError("the peer does not offer it", "FindCoordinator")

    def dead(host: str, port: int, client: str) -> Any:
        raise ConnectError("cannot connect")

    doc = {"events": [{"type": "Heartbeat", "group_id": "g", "generation_id": 1, "member_id": "x",
                       "group_instance_id": None, "version": 4}]}
    answer = wt.WireTarget("h", 1, 1.0, connect=no_api).call("v", "classic_group", "run", doc)
    assert answer.unsupported is not None and "FindCoordinator" in answer.unsupported
    answer = wt.WireTarget("h", 1, 1.0, connect=dead).call("v", "classic_group", "run", doc)
    assert answer.broken is not None and "cannot connect" in answer.broken


def test_delete_groups_results_are_compared_without_order() -> None:
    """A broker answers DeleteGroups in the hash order of the group ids it was given
    (docs/divergences.md, classic_delete_groups_order): the same results in another order pass,
    other results do not."""
    assert wt.UNORDERED[cg.DeleteGroupsResponse] == ("results",)
    busy = {"group_id": "busy", "error": "NON_EMPTY_GROUP"}
    nope = {"group_id": "nope", "error": "GROUP_ID_NOT_FOUND"}

    def answer(*results: dict[str, str]) -> dict[str, Any]:
        return {"outputs": [{"answers": [{"request": 0, "response": {"results": list(results)}}]}]}

    path = ("outputs.0.answers[request=0].response.results",)
    want, swapped = answer(busy, nope), answer(nope, busy)
    assert runner.masked(want, swapped, (), path) == swapped
    wrong = answer({"group_id": "nope", "error": "NONE"}, busy)
    assert runner.masked(want, wrong, (), path) == want

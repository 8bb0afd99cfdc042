"""share_partition over the wire (groupspec.conformance.wire_share_partition) without a broker.

A fake node answers the requests a run sends by stepping groupspec's implementation the way a
broker steps its SharePartition: it reads the log from the share partition's next fetch offset,
keeps share session epochs, leaves a quiet partition out of an incremental ShareFetch answer,
and releases a closed session's records. Every vector the planner lets through must then pass
the machine's own judge, which checks the mapping (epochs, produced batches, answers back).
"""

from __future__ import annotations

import json
import re
import uuid
from types import SimpleNamespace as NS
from typing import Any

import pytest

from groupspec.conformance import runner
from groupspec.conformance import share_partition_json as form
from groupspec.conformance import vector_format as vf
from groupspec.conformance import wire_share_partition as wsp
from groupspec.conformance.targets import Response
from groupspec.conformance.wire_target import Names, Scaling, Unrealisable, WireTarget
from groupspec.impl.codec.batch import decode_batch
from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.types import share_partition as sp
from groupspec.types.errors import Errors
from groupspec.wire import messages as w

TOPIC_ID = uuid.UUID(int=7)


class FakeNode:
    """One node with the run's one partition, answering as a broker would (module docstring)."""

    def __init__(self, run: Any, clock: list[float]) -> None:
        self.client_id = "fake"
        self.run = run
        #: Loaded at the first share request, at the log's end (share.auto.offset.reset=latest).
        self.loaded: SharePartitionMachine | None = None
        self.start_ms, self.clock = run.start_ms, clock
        self.log: list[sp.LogBatch] = []
        self.sessions: dict[str, int] = {}
        self.index = 0
        self.lock_ms = run.config.record_lock_duration_ms
        #: Leave a quiet partition out of the answer that opens a session too (franz-go's kfake).
        self.quiet_full = False

    @property
    def machine(self) -> SharePartitionMachine:
        if self.loaded is None:
            end = self.log[-1].last_offset + 1 if self.log else 0
            self.loaded = SharePartitionMachine(self.run.config, sp.PersistedState(0, -1, ()),
                                                start_ms=self.start_ms, latest_offset=end)
        return self.loaded

    def _step(self, event: Any) -> Any:
        self.machine.handle(sp.AdvanceClock(self.start_ms + int(self.clock[0] * 1000)), self.index)
        out = self.machine.handle(event, self.index)
        self.index += 1
        return out.answers[0].response if out.answers else None

    def version(self, api_key: int) -> int:
        return {0: 12, 78: 1, 79: 1}.get(api_key, 1)

    def request(self, request: Any, version: int | None = None) -> Any:
        if isinstance(request, w.ShareGroupHeartbeatRequest):
            epoch = -1 if request.member_epoch == -1 else 1
            return NS(error_code=0, error_message=None, member_epoch=epoch,
                      assignment=NS(topic_partitions=(NS(topic_id=TOPIC_ID, partitions=(0,)),)))
        if isinstance(request, w.ProduceRequest):
            batch = decode_batch(request.topic_data[0].partition_data[0].records)
            base = self.log[-1].last_offset + 1 if self.log else 0
            self.log.append(sp.LogBatch(base, base + len(batch.records) - 1))
            return NS(responses=(NS(partition_responses=(NS(index=0, error_code=0, error_message=None,
                                                               base_offset=base),)),))
        if isinstance(request, (w.ShareFetchRequest, w.ShareAcknowledgeRequest)):
            return self._share(request)
        raise AssertionError(f"the run sent {type(request).__name__}")

    def _share(self, request: Any) -> Any:
        member, epoch = request.member_id, request.share_session_epoch
        fetch = isinstance(request, w.ShareFetchRequest)
        if epoch == -1:
            self.sessions.pop(member, None)
            self._step(sp.ReleaseMember(member))
            return self._answer(())
        if epoch != self.sessions.get(member, 0) or (epoch == 0 and not fetch):
            return self._answer((), Errors.INVALID_SHARE_SESSION_EPOCH)
        self.sessions[member] = epoch + 1
        if not request.topics:
            return self._answer(())
        if not fetch:
            p = request.topics[0].partitions[0]
            batches = tuple(sp.AckBatch(b.first_offset, b.last_offset, tuple(b.acknowledge_types))
                            for b in p.acknowledgement_batches)
            answer = self._step(sp.Acknowledge(member, batches))
            part = NS(partition_index=0, error_code=int(answer.error))
            return self._answer((NS(topic_id=TOPIC_ID, partitions=(part,)),))
        view = self.machine.view()
        read = tuple(b for b in self.log if b.last_offset >= view.next_fetch_offset)
        acquired: tuple[Any, ...] = ()
        if read:
            answer = self._step(sp.Fetch(member, view.next_fetch_offset, read, request.max_records,
                                         request.batch_size))
            acquired = tuple(NS(first_offset=a.first_offset, last_offset=a.last_offset,
                                delivery_count=a.delivery_count) for a in answer.acquired)
        if (epoch > 0 or self.quiet_full) and not acquired:  # a quiet partition left out
            responses: tuple[Any, ...] = ()
        else:
            part = NS(partition_index=0, error_code=0, error_message=None, acquired_records=acquired)
            responses = (NS(topic_id=TOPIC_ID, partitions=(part,)),)
        return self._answer(responses)

    def _answer(self, responses: tuple[Any, ...], error: Errors = Errors.NONE) -> Any:
        return NS(error_code=int(error), error_message=None, responses=responses,
                  acquisition_lock_timeout_ms=self.lock_ms)


def _drive(doc: Any, *, quiet_full: bool = False) -> Response:
    run = form.run_input_from_json(doc)
    scaling = Scaling(budget_s=120.0)
    plan = wsp.plan(run, scaling)
    clock = [0.0]

    def wait(conns: Any, seconds: float) -> list[Any]:
        clock[0] += max(seconds, 0.0)
        return []

    node = FakeNode(run, clock)
    node.quiet_full = quiet_full
    driver = wsp.SharePartitionRun(run, plan, Names("t"), coordinator=node, leader=node, topic="t-topic",
                                   topic_id=TOPIC_ID, scaling=scaling, timeout=5.0,
                                   clock=lambda: clock[0], wait=wait)
    driver.fill()
    driver.join()
    driver.prime()
    driver.open_bare()
    output = driver.drive()
    return Response(output=form.run_output_to_json(output), unobserved=wsp.UNOBSERVED)


def _vectors() -> list[vf.Vector]:
    return [v for v in vf.load(vf.default_root()) if v.machine == "share_partition"]


def _plannable() -> list[vf.Vector]:
    out = []
    for v in _vectors():
        run = form.run_input_from_json(v.input)
        try:
            wsp.plan(run, Scaling(budget_s=120.0))
        except Unrealisable:
            continue
        if not wsp.config_problems(run, {}):
            out.append(v)
    return out


def test_every_realisable_vector_passes_through_a_broker_that_follows_the_implementation() -> None:
    chosen = _plannable()
    assert len(chosen) >= 18  # measured: 18 of 120 with a 120 s budget
    failed = {}
    for v in chosen:
        passed, reason, diff = runner.judge(v, _drive(v.input), "groupspec")
        if not passed:
            failed[v.id] = (reason, diff)
    assert failed == {}


def test_a_session_opening_answer_without_the_quiet_partition_is_no_error() -> None:
    """Kafka lists every partition in the answer that opens a share session; kfake leaves a quiet
    one out, which says nothing went wrong either."""
    for name in ("/live_two_members_share_the_log", "/only_the_holder_acknowledges"):
        v = next(v for v in _vectors() if v.id.endswith(name))
        assert runner.judge(v, _drive(v.input, quiet_full=True), "groupspec")[0], name


def test_a_wrong_session_epoch_shows_as_a_different_answer() -> None:
    """The fake refuses a stale epoch, so the drive's epoch bookkeeping is what the pass rests on."""
    v = next(v for v in _vectors() if v.id.endswith("/throttling_near_the_delivery_limit"))
    run = form.run_input_from_json(v.input)
    clock = [0.0]
    node = FakeNode(run, clock)
    driver = wsp.SharePartitionRun(run, wsp.plan(run, Scaling()), Names("t"), coordinator=node, leader=node,
                                   topic="t-topic", topic_id=TOPIC_ID, scaling=Scaling(), timeout=5.0,
                                   clock=lambda: clock[0], wait=lambda c, s: [])
    driver.join()
    driver.prime()
    driver.sessions["member-1"] += 1
    with pytest.raises(Unrealisable, match="INVALID_SHARE_SESSION_EPOCH"):
        driver.drive()


def _doc(events: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    config = {"delivery_count_limit": 5, "max_in_flight_records": 200, "record_lock_duration_ms": 30000}
    return {"config": config, "events": events, **extra}


def _fetch(member: str, offset: int, log: list[tuple[int, int]], max_records: int = 500) -> dict[str, Any]:
    return {"type": "Fetch", "member_id": member, "fetch_offset": offset,
            "log": [{"base_offset": a, "last_offset": b} for a, b in log], "max_fetch_records": max_records}


@pytest.mark.parametrize(("doc", "reason"), [
    (_doc([_fetch("m", 0, [(0, 4)])], persisted={"state_epoch": 1, "start_offset": 3, "batches": []}),
     "starts from a persisted state"),
    (_doc([_fetch("m", 0, [(0, 4)]), {"type": "MoveLogStart", "log_start_offset": 2}]), "DeleteRecords"),
    (_doc([_fetch("m", 0, [(0, 4), (7, 9)])]), "no records at offsets 5..6"),
    (_doc([_fetch("m", 0, [(0, 4)]), _fetch("m", 0, [(0, 9)])]), "two batches at offset 0"),
    (_doc([_fetch("m", 3, [(0, 4)])]), "fetches from offset 3; a broker reads from the share partition's "
                                       "next fetch offset, 0"),
    (_doc([_fetch("m", 0, [(0, 4)]), _fetch("m", 5, [(0, 4), (5, 9)])]), "a broker reads every batch from"),
    (_doc([_fetch("m", 0, [(0, 4)]), {"type": "AdvanceClock", "to_ms": 100}]), "finer than real time"),
    (_doc([_fetch("m", 0, [(0, 4)]), {"type": "AdvanceClock", "to_ms": 29_800}]),
     "200 ms before a lock deadline at 30000 ms"),
    (_doc([_fetch("m", 0, [(0, 4)]), {"type": "AdvanceClock", "to_ms": 30_000}]),
     "per-vector budget of 10 s"),
])
def test_what_the_wire_cannot_realise_is_named(doc: dict[str, Any], reason: str) -> None:
    with pytest.raises(Unrealisable, match=re.escape(reason)):
        wsp.plan(form.run_input_from_json(doc), Scaling())


def test_a_different_broker_setting_matters_only_where_the_answers_show_it() -> None:
    # Five deliveries of a batch: at limit 3 the third is the last and archives; at 5 not.
    events = [_fetch("m", 0, [(0, 1)])]
    for _ in range(3):
        events += [{"type": "Acknowledge", "member_id": "m", "batches": [{"first_offset": 0, "last_offset": 1,
                                                                        "types": [2]}]},
                   _fetch("m", 0, [(0, 1)])]
    doc = _doc(events)
    doc["config"]["delivery_count_limit"] = 3
    run = form.run_input_from_json(doc)
    assert wsp.config_problems(run, {}) == [
        "the vector needs group.share.delivery.count.limit=3, the broker has 5 (Kafka's default, assumed)"]
    assert wsp.config_problems(run, {"group.share.delivery.count.limit": "3"}) == []
    one = _doc([_fetch("m", 0, [(0, 1)])])
    one["config"]["delivery_count_limit"] = 3
    assert wsp.config_problems(form.run_input_from_json(one), {}) == []
    observed = {"group.share.record.lock.duration.ms": 15_000}
    timed = _doc([_fetch("m", 0, [(0, 1)]), {"type": "AdvanceClock", "to_ms": 20_000},
                  _fetch("m", 0, [(0, 1)])])
    assert "(from the broker)" in wsp.config_problems(form.run_input_from_json(timed), {}, observed)[0]


def test_the_target_answers_unsupported_before_it_connects() -> None:
    def refuse(host: str, port: int, client: str) -> Any:
        raise AssertionError("connected")

    target = WireTarget("localhost", 1, 5.0, connect=refuse)
    doc = _doc([_fetch("m", 0, [(0, 4)]), {"type": "SetPersisterError", "error": "UNKNOWN_SERVER_ERROR"}])
    answer = target.call("r", "share_partition", "run", json.loads(json.dumps(doc)))
    assert answer.unsupported is not None and answer.unsupported.startswith("SetPersisterError:")
    bad = target.call("r", "share_partition", "run", {"events": "no"})
    assert bad.error is not None and bad.error[0] == "invalid_input"


def test_member_ids_are_what_a_kafka_client_draws() -> None:
    import base64

    drawn = wsp.member_id()
    assert len(drawn) == 22 and len(base64.urlsafe_b64decode(drawn + "==")) == 16


def test_a_member_acknowledging_before_its_first_fetch_keeps_one_session() -> None:
    """The first member to fetch is also the priming one: its session, opened by the priming
    fetch, is not opened again empty (which would restart its epochs)."""
    from groupspec.conformance.share_partition import drive

    doc = _doc([{"type": "Acknowledge", "member_id": "m", "batches": [{"first_offset": 0, "last_offset": 0,
                                                                      "types": [1]}]},
                _fetch("m", 0, [(0, 4)]),
                {"type": "Acknowledge", "member_id": "m", "batches": [{"first_offset": 0, "last_offset": 4,
                                                                      "types": [1]}]}])
    run = form.run_input_from_json(doc)
    assert wsp.plan(run, Scaling()).bare == ("m",)
    got = form.run_output_from_json(_drive(doc).output)
    want = drive("impl", run)
    assert [o.answers for o in got.outputs] == [o.answers for o in want.outputs]
    assert want.outputs[2].answers[0].response == sp.AcknowledgeResponse(Errors.NONE)

"""The share group stateful test's random runs, on Kafka 4.2.1's own GroupCoordinatorShard too.

tests/stateful/test_share_group_stateful.py drives groupspec's spec and implementation side by
side with random commands (six members in two groups heartbeating with every kind of epoch,
rejoins, persister answers and failures, metadata changes, clock moves, DeleteGroups, group
configs, failovers). Here the same machine runs, with the same checks after every step, and at
its end the whole run goes to Kafka's shards through one long-lived adapter process
(adapters/kafka/, ShareGroupRun.java; docs/conformance.md, "Machine share_group") and must give
groupspec's answers, records (group by group, in order), InitializeShareGroupState requests and
final view, judged as the vectors are (flavour groupspec).

What is not compared as it stands, and why:

- share_group_orders (docs/divergences.md): Kafka's SimpleAssignor sees the members in a Java
  HashMap's order and walks partitions in another, where groupspec takes join order and
  ascending partitions; with two or more members on a topic, who gets which partition (and so
  epochs, answers and records downstream) can differ. The expectation held against Kafka is
  therefore groupspec's spec with one change: its SimpleAssignor is groupspec's own Kafka-exact
  mode (``impl.simple_assignor.assign(compat="kafka")``, checked against Kafka's assignor by
  tests/kafka/test_kafka_simple_assignor.py). Everything else (validation, epochs, reconciliation,
  records, initialization bookkeeping, sessions, replay) is the spec's own rule. Each run also
  says (Hypothesis statistics) whether the spec with its own assignor would have matched Kafka
  exactly too, which it does whenever the orders agree.
- The same entry: the ShareGroupTargetAssignmentMember records one heartbeat writes come in the
  assignor's member order on Kafka; they are compared as a set (sorted by member id), in place.
- The same entry, found by this test (vector ``sessions_a_failover_rearms_expire_in_join_order``):
  after a failover Kafka re-arms sessions in its member map's order, groupspec in join order;
  where two or more sessions of one group re-armed by the same failover expire in one step, that
  step's records of that group are compared as a set of keys only (the same members expire, and
  the state after the step is the same).
- docs/divergences.md, deleted_topic_copied_through: Kafka's SimpleAssignor copies a deleted
  topic's partitions from a member's previous target into its new one (the target record keeps
  them; the member's assignment does not); groupspec's Kafka-exact assignor is handed previous
  targets without deleted topics, so a run is compared up to the first step that computes a
  target while a previous target of its group still holds a deleted topic.
- docs/divergences.md, empty_topic_kept_in_target: Kafka's builders can leave a topic with no
  partitions in a member's target, and when that empty key goes Kafka writes a
  ShareGroupTargetAssignmentMember record that changes nothing; groupspec's targets never hold
  an empty topic, so it writes none. A Kafka target record of a step at which groupspec computed
  the group's target but wrote no record for that member, and whose partitions are exactly the
  member's target in groupspec before the step, is dropped from Kafka's side before comparing,
  and nothing else: a record that changes a target, or one for a member groupspec does not have,
  still fails the run (``test_the_no_op_set_aside_keeps_real_differences``).
- Events a broker never hands a coordinator (the agreement test's ``unparseable`` rule: a
  40,000-character group id, a clock beyond int64, ...) cannot be written as a run; that rule is
  left out here, and any other event both layers refuse is dropped from the run sent to Kafka
  (refused events change nothing; a PersisterAnswer naming a dropped event is pointed at an
  index no event has, which both sides ignore).
- Client hosts: the agreement test's ``/h1`` and ``/h2`` become ``/10.0.0.1`` and ``/10.0.0.2``
  (the adapter resolves a host to an InetAddress, as the broker's request context holds one).

Budget: the profiles' (tests/conftest.py): ci 200 runs of up to 30 steps, deep 5000 of up to 100.
A deep run can outlast the time given to it, and Hypothesis prints its statistics only at the
end: with ``GROUPSPEC_THREEWAY_PROGRESS=<file>`` each run compared appends a line there (events
sent to Kafka, set-asides used), so a stopped run can still be counted.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from hypothesis import event

import groupspec.spec.share_group as spec_module
from groupspec.conformance import share_group as share_group_conformance
from groupspec.conformance import share_group_json as sgj
from groupspec.conformance import targets
from groupspec.conformance import vector_format as vf
from groupspec.impl.simple_assignor import assign as impl_assign
from groupspec.types import AssignorInput
from groupspec.types import share_group as sg
from groupspec.types.records import (
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMetadataKey,
)
from groupspec.types.share_group import (
    AdvanceClock,
    Output,
    PersisterAnswer,
    Restart,
    ShareGroupEvent,
    ShareGroupHeartbeat,
    UpdateMetadata,
)
from tests.kafka import needs_java_and_maven
from tests.stateful.test_share_group_stateful import CONFIG, START, ShareGroupAgreement

pytestmark = needs_java_and_maven

#: The agreement test's client hosts, as addresses the adapter can resolve without a lookup.
HOSTS = {"/h1": "/10.0.0.1", "/h2": "/10.0.0.2"}
#: A request index no event of a run has: an answer to it is ignored by every side.
NO_SUCH_REQUEST = 999_999

_KAFKA: list[targets.Target] = []


@pytest.fixture(scope="module", autouse=True)
def _one_adapter() -> Iterator[None]:
    """One long-lived adapter process for the random runs of this module."""
    yield
    while _KAFKA:
        _KAFKA.pop().close()


def _kafka() -> targets.Target:
    if not _KAFKA:
        _KAFKA.append(targets.make_target("kafka", 60.0))
    return _KAFKA[0]


def _kafka_ordered_assign(group: AssignorInput) -> Any:
    return impl_assign(group, compat="kafka")


def _target_members_as_a_set(doc: dict[str, Any]) -> dict[str, Any]:
    """Each event's consecutive ShareGroupTargetAssignmentMember records sorted by group and
    member id, where they stand (share_group_orders: Kafka writes them in its assignor's order)."""
    doc = _records_copied(doc)
    for output in doc["outputs"]:
        records, i = output["records"], 0
        while i < len(records):
            j = i
            while j < len(records) and records[j]["key"]["type"] == "ShareGroupTargetAssignmentMemberKey":
                j += 1
            records[i:j] = sorted(records[i:j], key=lambda r: (r["key"]["group_id"], r["key"]["member_id"]))
            i = max(j, i + 1)
    return doc


class KafkaShareGroupAgreement(ShareGroupAgreement):
    """The agreement machine, its accepted events kept for a run on Kafka at the end."""

    def __init__(self) -> None:
        super().__init__()
        #: (index in the agreement run, event) of every event the layers accepted.
        self.accepted: list[tuple[int, ShareGroupEvent]] = []

    def send(self, event_: ShareGroupEvent) -> Output | None:
        if isinstance(event_, ShareGroupHeartbeat) and event_.client_host in HOSTS:
            event_ = dataclasses.replace(event_, client_host=HOSTS[event_.client_host])
        index = self.index
        output = super().send(event_)
        if output is not None:
            self.accepted.append((index, event_))
        return output

    def unparseable(self) -> None:  # type: ignore[override]
        """Left out: no run can carry such an event (the agreement test keeps it)."""

    def _run(self) -> sgj.RunInput:
        position = {index: k for k, (index, _) in enumerate(self.accepted)}
        events = []
        for _, e in self.accepted:
            if isinstance(e, PersisterAnswer):
                e = dataclasses.replace(e, request=position.get(e.request, NO_SUCH_REQUEST))
            events.append(e)
        return sgj.RunInput(config=CONFIG, topics=START, events=tuple(events))

    def teardown(self) -> None:
        if not self.accepted:
            return
        run = self._run()
        with mock.patch.object(spec_module, "assign", _kafka_ordered_assign):
            ours, ties, stale, no_ops = _spec_run(run)
        if stale is not None:
            # docs/divergences.md, deleted_topic_copied_through: from a target computed over a
            # previous target that still holds a deleted topic, Kafka's target keeps that topic
            # and groupspec's does not; the run up to that event must agree.
            event("kafka: compared up to a target over a deleted topic (deleted_topic_copied_through)")
            run = dataclasses.replace(run, events=run.events[:stale])
            if not run.events:
                return
            with mock.patch.object(spec_module, "assign", _kafka_ordered_assign):
                ours, ties, _, no_ops = _spec_run(run)
        theirs, dropped = _without_no_ops(_on_kafka(run), no_ops)
        differences = _differences(ours, theirs, ties)
        assert differences == [], "\n".join(differences[:20])
        exact = share_group_conformance.JUDGE.compare(_spec_run(run)[0], theirs) == []
        event("kafka: " + ("groupspec's own orders agree too" if exact
                           else "agrees with the assignor in Kafka's orders and the restart ties set aside"))
        if ties:
            event("kafka: sessions a failover re-armed expired together (records order set aside)")
        for record in dropped:
            emptied = record["value"]["topic_partitions"] == []
            event("kafka: a target record that changes nothing set aside (empty_topic_kept_in_target, "
                  + ("no partitions)" if emptied else "partitions kept)"))
        _progress(run, stale, ties, dropped)
        if _answer_after_a_topic_went(run):
            event("kafka: a persister answer after a topic was deleted or recreated, compared")
        event(f"kafka: {len(run.events) // 10 * 10}+ events compared")


def _progress(run: sgj.RunInput, stale: int | None, ties: list[tuple[int, str]], dropped: list[Any]) -> None:
    """One line per run compared, when GROUPSPEC_THREEWAY_PROGRESS names a file (see above)."""
    path = os.environ.get("GROUPSPEC_THREEWAY_PROGRESS")
    if path:
        line = {"at": time.time(), "events": len(run.events), "truncated": stale is not None,
                "ties": len(ties), "no_ops": len(dropped)}
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def _on_kafka(run: sgj.RunInput) -> dict[str, Any]:
    """Kafka's output for the run, target member records of each step as a set."""
    response = _kafka().call("random", "share_group", "run", sgj.run_input_to_json(run))
    assert response.broken is None and response.unsupported is None, response
    assert response.error is None, f"Kafka's shard threw: {response.error}\n{response.stderr}"
    return _target_members_as_a_set(response.output)


def _differences(ours: dict[str, Any], theirs: dict[str, Any], ties: list[tuple[int, str]]) -> list[str]:
    """The judge's differences, a tied step's records of its group set aside once their keys
    agree (the same members expired, whatever the order)."""
    for k, g in ties:
        assert _keys(ours, k, g) == _keys(theirs, k, g), (k, g)
    return [line for line in share_group_conformance.JUDGE.compare(ours, theirs)
            if not any(line.startswith(f"event {k}: records of group {g!r}") for k, g in ties)]


def _without_no_ops(theirs: dict[str, Any], no_ops: dict[int, set[str]]) -> tuple[dict[str, Any], list[Any]]:
    """Kafka's output without its target member records that change nothing in groupspec's
    terms (empty_topic_kept_in_target), and the records dropped. Only a record spelled exactly
    as one of ``no_ops`` of its step goes: the member's target in groupspec before that step,
    at a step where groupspec computed the group's target and wrote no record for the member."""
    doc, dropped = _records_copied(theirs), []
    for k, spelled in no_ops.items():
        if k >= len(doc["outputs"]):
            continue
        kept = []
        for record in doc["outputs"][k]["records"]:
            if (record["key"]["type"] == "ShareGroupTargetAssignmentMemberKey"
                    and _canonical(record) in spelled):
                dropped.append(record)
            else:
                kept.append(record)
        doc["outputs"][k]["records"] = kept
    return doc, dropped


def _records_copied(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with its outputs and their record lists copied: enough to reorder or drop records
    (no record is changed in place), much cheaper than a deep copy of a long run."""
    return {**doc, "outputs": [{**o, "records": list(o["records"])} for o in doc["outputs"]]}


def _canonical(record_json: Any) -> str:
    return json.dumps(record_json, sort_keys=True)


def _answer_after_a_topic_went(run: sgj.RunInput) -> bool:
    """Whether a PersisterAnswer follows a metadata change that took a topic id away (deleted,
    or its name published again under a new id): where groupspec once wrote a record on a
    refusal with nothing initializing (docs/conformance.md, "Machine share_group")."""
    ids, went = {t.topic_id for t in run.topics}, False
    for e in run.events:
        if isinstance(e, UpdateMetadata):
            now = {t.topic_id for t in e.topics}
            went, ids = went or bool(ids - now), now
        elif went and isinstance(e, PersisterAnswer):
            return True
    return False


def _spec_run(
    run: sgj.RunInput,
) -> tuple[dict[str, Any], list[tuple[int, str]], int | None, dict[int, set[str]]]:
    """The spec's output for the run (as JSON, target member records as a set); the events at
    which two or more sessions of one group, armed by the same failover, expire together
    ((event, group): Kafka re-arms a loaded group's sessions in its member map's order,
    GroupMetadataManager#onLoaded iterating a TimelineHashMap, groupspec in join order, so such
    sessions expire in different orders; docs/divergences.md, share_group_orders); and the first
    event that computes a target while a previous target of its group holds a topic no longer
    in the image (None if none does); and per step that computes targets, the target member
    records (as canonical JSON) that would change nothing: for each member of such a group that
    had a target before the step, keeps one after it, and got no record at the step, its target
    as it stood (empty_topic_kept_in_target)."""
    state = spec_module.initial_state(run.config, run.topics, run.start_ms)
    outputs, ties, stale = [], [], None
    no_ops: dict[int, set[str]] = {}
    rearmed: set[int] = set()
    for k, e in enumerate(run.events):
        if isinstance(e, AdvanceClock):
            due: dict[tuple[str, int], int] = {}
            for (group, _), session in state.sessions.items():
                if session.deadline <= e.to_ms and session.seq in rearmed:
                    due[(group, session.deadline)] = due.get((group, session.deadline), 0) + 1
            ties.extend(sorted({(k, group) for (group, _), n in due.items() if n > 1}))
        ids = {t.topic_id for t in state.topics.values()}
        held = {g.group_id: {t for target in g.target.values() for t in target}
                for g in state.groups.values()}
        before = state
        state, output = spec_module.step(state, e, k)
        computed = {r.key.group_id for r in output.records  # tombstones are no computation
                    if isinstance(r.key, ShareGroupTargetAssignmentMetadataKey) and r.value is not None}
        for group_id in computed:
            written = {r.key.member_id for r in output.records
                       if isinstance(r.key, ShareGroupTargetAssignmentMemberKey)
                       and r.key.group_id == group_id}
            old, new = before.groups.get(group_id), state.groups[group_id]
            for member_id, target in (old.target.items() if old is not None else ()):
                if member_id not in written and member_id in new.target:
                    record = sg.target_member_record(group_id, member_id, target)
                    spelled = sgj.to_json(sg.Output(records=(record,)))["records"][0]
                    no_ops.setdefault(k, set()).add(_canonical(spelled))
        if stale is None and any(isinstance(r.key, ShareGroupTargetAssignmentMetadataKey)
                                 and held.get(r.key.group_id, set()) - ids for r in output.records):
            stale = k
        if isinstance(e, Restart):
            rearmed = {session.seq for session in state.sessions.values()}
        outputs.append(output)
    doc = sgj.run_output_to_json(sgj.RunOutput(tuple(outputs), spec_module.view(state)))
    return _target_members_as_a_set(doc), ties, stale, no_ops


def _keys(doc: dict[str, Any], k: int, group: str) -> list[str]:
    return sorted(json.dumps(r["key"], sort_keys=True) for r in doc["outputs"][k]["records"]
                  if r["key"]["group_id"] == group)


TestKafkaShareGroupAgreement = KafkaShareGroupAgreement.TestCase

#: The vectors showing empty_topic_kept_in_target: at event 4 Kafka rewrites m1's target, empty
#: before and after (its emptied t2 key goes), where groupspec writes nothing for m1; at event 5
#: of the second the same with t1-0 kept beside the emptied key.
EMPTIED = "a_target_emptied_of_a_topic_is_rewritten_when_the_topic_goes"
KEEPING = "a_target_keeping_partitions_is_rewritten_when_an_empty_topic_goes"


def _member_target_record(doc: dict[str, Any], k: int, member_id: str) -> dict[str, Any]:
    return next(r for r in doc["outputs"][k]["records"]
                if r["key"]["type"] == "ShareGroupTargetAssignmentMemberKey"
                and r["key"]["member_id"] == member_id)


def _vector_on_both(name: str) -> tuple[sgj.RunInput, dict[str, Any], dict[str, Any], dict[int, set[str]]]:
    """A vector's run: the expectation held against Kafka, Kafka's output, the no-op records."""
    path = vf.default_root() / "share_group" / "run" / name / "vector.json"
    run = sgj.run_input_from_json(json.loads(path.read_text(encoding="utf-8"))["input"])
    with mock.patch.object(spec_module, "assign", _kafka_ordered_assign):
        ours, ties, stale, no_ops = _spec_run(run)
    assert ties == [] and stale is None
    return run, ours, _on_kafka(run), no_ops


@pytest.mark.parametrize(("name", "k", "partitions"), [(EMPTIED, 4, 0), (KEEPING, 5, 1)])
def test_the_no_op_set_aside_drops_the_no_op_record(name: str, k: int, partitions: int) -> None:
    """On Kafka's shard, the vector differs by m1's no-op record, which the set-aside drops,
    and by nothing else."""
    _, ours, raw, no_ops = _vector_on_both(name)
    assert f"event {k}: records of group 'g': expected 5 item(s), got 6" in _differences(ours, raw, [])
    theirs, dropped = _without_no_ops(raw, no_ops)
    assert dropped == [_member_target_record(raw, k, "m1")]
    assert len(dropped[0]["value"]["topic_partitions"]) == partitions
    assert _differences(ours, theirs, []) == []


def test_the_no_op_set_aside_keeps_real_differences() -> None:
    """Planted changes to the no-op record Kafka writes (a partition in it, another member,
    another step) are kept and fail the comparison."""
    run, ours, raw, no_ops = _vector_on_both(EMPTIED)
    ties: list[tuple[int, str]] = []

    t1 = next(t.topic_id for t in run.topics if t.name == "t1")
    changes = {
        "a partition in it":
            lambda r: r["value"].update(topic_partitions=[{"topic_id": t1, "partitions": [0]}]),
        "another member": lambda r: r["key"].update(member_id="m9"),
    }
    for what, change in changes.items():
        planted = copy.deepcopy(raw)
        change(_member_target_record(planted, 4, "m1"))
        theirs, dropped = _without_no_ops(planted, no_ops)
        assert dropped == [], what
        lines = _differences(ours, theirs, ties)
        assert any(line.startswith("event 4: records of group 'g'") for line in lines), what
    # The same record one step earlier, at a step where groupspec wrote m1's target: kept.
    planted = copy.deepcopy(raw)
    record = _member_target_record(planted, 4, "m1")
    planted["outputs"][4]["records"].remove(record)
    planted["outputs"][3]["records"].insert(0, record)
    theirs, dropped = _without_no_ops(planted, no_ops)
    assert dropped == []
    assert any(line.startswith("event 3: records of group 'g'") for line in _differences(ours, theirs, ties))

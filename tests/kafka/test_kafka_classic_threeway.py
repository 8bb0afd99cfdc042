"""Three-way: the classic stateful agreement's command sequences, run on Kafka's shard as well.

tests/stateful/test_classic_stateful.py drives the spec and the impl with the same random
requests and checks them step by step. Here each of its examples is also handed, whole, to Kafka
4.2.1's GroupCoordinatorShard through the adapter, as a ``run`` vector whose expectation is what
groupspec answered; the vectors' judge (flavour ``groupspec``: every answer, record and the final
view) decides. One adapter process serves the whole module (a run costs it some milliseconds;
starting the JVM for each example, as ``runner.run`` would, cost two seconds). Requests both
layers refuse as bad input are left out: no broker would hand them to a coordinator. An instance
id on a request whose version cannot carry it (JoinGroup below v5, OffsetCommit below v7) is
dropped before the request goes anywhere, as a client at that version would never send one:
Kafka's generated code refuses to write it, so the whole example could not run there.

Some choices Kafka makes from its HashMap order of random member ids differ from groupspec's
by design (docs/divergences.md: classic_member_order, classic_tombstone_order). An example whose
groupspec run makes such a choice is run on Kafka all the same, and counted, but not judged.
Kafka's answer to an OffsetFetch of every offset lists them in hash order; it is sorted as
groupspec's is before judging (classic_fetch_all_order), and so are the offset tombstones its
expiration job writes (classic_tombstone_order). The adapter runs one
``__consumer_offsets`` partition, so the stateful test runs with one here too (a group a refused
commit made becomes visible when its partition writes: which writes count depends on that).

Budget: the ``ci`` profile (200 examples of up to 30 steps, about a minute here); with
HYPOTHESIS_PROFILE=deep, 5000 of up to 100.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import event as event_

from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf
from groupspec.conformance.classic_group import drive
from groupspec.conformance.classic_group_json import RunInput, run_input_to_json, run_output_to_json
from groupspec.spec import classic_group as spec
from groupspec.types import InputError
from groupspec.types.classic_group import (
    AdvanceClock,
    ClassicEvent,
    DeleteGroups,
    JoinGroup,
    LeaveGroup,
    OffsetCommit,
    OffsetFetch,
)
from tests.kafka import needs_java_and_maven
from tests.stateful import test_classic_stateful as stateful

pytestmark = needs_java_and_maven

_TARGET: list[targets.Target] = []
#: Examples run on Kafka by outcome, and the requests they held (printed at the end; see them with -s).
TALLY = {"judged": 0, "not judged": 0, "not runnable": 0, "requests": 0}


#: The adapter runs one ``__consumer_offsets`` partition, so groupspec runs one too here: which
#: groups a write makes visible to reads depends on which share its partition.
ONE_PARTITION = replace(stateful.CONFIG, offsets_topic_partitions=1)


@pytest.fixture(scope="module", autouse=True)
def kafka() -> Iterator[None]:
    _TARGET.append(targets.make_target("kafka", 120.0))
    fifty = stateful.CONFIG
    stateful.CONFIG = ONE_PARTITION  # read at call time by the stateful test's helpers
    try:
        yield
    finally:
        stateful.CONFIG = fifty
        _TARGET.pop().close()
    print(f"\nclassic three-way on Kafka 4.2.1: {TALLY}")


def _leaves_a_leader_choice(events: list[ClassicEvent]) -> bool:
    """Whether a leader may leave a group of several (Kafka then names the next one in hash order)
    or offsets of more than one topic are deleted at once (Kafka writes those tombstones in its
    own order): the example's outcome may differ by design."""
    return any(isinstance(e, (LeaveGroup, DeleteGroups)) for e in events)


def _fetch_all_sorted(events: list[ClassicEvent], output: Any) -> None:
    """Kafka's answers to an OffsetFetch of every offset, in groupspec's order (docs/divergences.md,
    classic_fetch_all_order): Kafka lists them in its TimelineHashMaps' order, groupspec by topic
    and partition."""
    for event, out in zip(events, output["outputs"], strict=False):
        if not isinstance(event, OffsetFetch) or event.topics is not None:
            continue
        for answer in out["answers"]:
            topics = answer["response"].get("topics")
            if topics is None:
                continue
            for topic in topics:
                topic["partitions"].sort(key=lambda p: p["partition"])
            topics.sort(key=lambda t: t["name"])


def _expired_sorted(events: list[ClassicEvent], output: Any) -> None:
    """The offset tombstones Kafka's expiration job writes, in groupspec's order (by group, topic
    and partition): Kafka walks its TimelineHashMaps, as for a deleted group's tombstones
    (docs/divergences.md, classic_tombstone_order). Only their slots among the event's records
    are reordered."""
    for event, out in zip(events, output["outputs"], strict=False):
        if not isinstance(event, AdvanceClock):
            continue
        records = out["records"]
        slots = [i for i, r in enumerate(records) if r.get("value") is None
                 and r.get("key", {}).get("type") == "OffsetCommitKey"]
        ordered = sorted((records[i] for i in slots),
                         key=lambda r: (r["key"]["group"], r["key"]["topic"], r["key"]["partition"]))
        for i, record in zip(slots, ordered, strict=True):
            records[i] = record


def _as_a_client_sends(event: ClassicEvent) -> ClassicEvent:
    """The request without an instance id its version has no field for."""
    if isinstance(event, JoinGroup) and event.version < 5 and event.group_instance_id is not None:
        return replace(event, group_instance_id=None)
    if isinstance(event, OffsetCommit) and event.version < 7 and event.group_instance_id is not None:
        return replace(event, group_instance_id=None)
    return event


class ThreeWay(stateful.ClassicAgreement):
    def __init__(self) -> None:
        super().__init__()
        assert self.state.config == ONE_PARTITION
        self.accepted: list[ClassicEvent] = []
        #: Whether a leader left a group that kept other members (by a timer too): Kafka names
        #: the next leader in hash order (classic_member_order).
        self.leader_chosen = False

    def send(self, event: ClassicEvent) -> None:
        event = _as_a_client_sends(event)
        leaders = {g.group_id: g.leader_id for g in spec.view(self.state).groups}
        try:
            spec.step(self.state, event, self.index)
        except InputError:
            refused = True
        else:
            refused = False
        super().send(event)
        if not refused:
            self.accepted.append(event)
        for g in spec.view(self.state).groups:
            old = leaders.get(g.group_id)
            if old and g.leader_id and g.leader_id != old and old not in {m.member_id for m in g.members}:
                self.leader_chosen = True

    def teardown(self) -> None:
        if not self.accepted:
            return
        run = RunInput(config=ONE_PARTITION, start_ms=0, events=tuple(self.accepted))
        doc: dict[str, Any] = {
            "format": vf.FORMAT_VERSION, "machine": "classic_group", "handler": "run", "case": "three_way",
            "description": "an example of the classic stateful agreement test",
            "source": {"kind": "generated", "ref": "tests/kafka/test_kafka_classic_threeway.py"},
            "mode": "exact", "properties": [],
            "input": run_input_to_json(run), "expected": run_output_to_json(drive("impl", run)),
        }
        vector = vf.vector_from_json(doc, "three_way")
        # The module's one adapter process (runner.run would close it after each example).
        response = _TARGET[0].call("three_way", "classic_group", "run", vector.input)
        TALLY["requests"] += len(self.accepted)
        if response.unsupported is not None:
            TALLY["not runnable"] += 1
            event_(f"kafka: unsupported ({response.unsupported.split(':')[-1].strip()[:60]})")
            return
        if response.output is not None:
            _fetch_all_sorted(self.accepted, response.output)
            _expired_sorted(self.accepted, response.output)
        passed, reason, diff = runner.judge(vector, response, "groupspec")
        if _leaves_a_leader_choice(self.accepted) or self.leader_chosen:
            TALLY["not judged"] += 1
            event_(f"kafka: {'passed' if passed else 'failed'} (not judged)")
            return
        TALLY["judged"] += 1
        event_(f"kafka: {'passed' if passed else 'failed'}")
        named = sorted({int(m.group(1)) for line in diff if (m := re.match(r"event (\d+):", line))})
        events = [f"event {i}: {self.accepted[i]!r}"[:400] for i in named if i < len(self.accepted)]
        assert passed, "\n".join([reason, *diff, *events, response.stderr[-2000:]])


TestThreeWay = ThreeWay.TestCase

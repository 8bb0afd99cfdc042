"""groupspec's decoder and replay against logs a real Kafka 4.2.1 wrote, with no JVM needed.

The segments, Kafka's own DumpLogSegments output for them and what the broker reported are in
tests/data/kafka-4.2.1-real (its README says how they were made); tests/broker/test_real_logs.py
does the same on fresh logs of the test broker.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from groupspec import broker_workload
from groupspec.impl.codec.consumer_protocol import decode_assignment
from groupspec.impl.codec.log_reader import LogReadOptions, read_logs
from groupspec.kafka_dump import DumpError, differences, kafka_form, parse_dump

DATA = Path(__file__).resolve().parents[1] / "data" / "kafka-4.2.1-real"
TOPICS = ("__consumer_offsets", "__share_group_state")
REPORTED = json.loads((DATA / "reported.json").read_text())
DESCRIBED: dict[str, dict[str, Any]] = REPORTED["described"]
LIVE = ("real-live-classic", "real-live-consumer", "real-live-share")


def _ours(topic: str) -> list[dict]:
    lines: list[dict] = []
    report = read_logs([DATA / f"{topic}-0"], LogReadOptions(), lines.append, pytest.fail)
    assert report.quarantined == 0
    return lines


def _theirs(topic: str) -> list[dict]:
    return parse_dump((DATA / f"{topic}-0" / "dump-log-segments.txt").read_text())


@pytest.mark.parametrize("topic", TOPICS)
def test_every_record_decodes_as_kafkas_own_tool_printed_it(topic):
    ours, theirs = _ours(topic), _theirs(topic)
    assert len(ours) == len(theirs) > 5
    assert differences(ours, theirs) == []


def test_the_comparison_sees_a_changed_field_a_missing_record_and_a_tombstone():
    ours, theirs = _ours("__consumer_offsets"), _theirs("__consumer_offsets")
    commit = next(i for i, line in enumerate(ours) if line["type"] == "OffsetCommit")
    value = ours[commit]["value"]
    changed = dict(ours[commit], value=dict(value, offset=value["offset"] + 1))
    found = differences([*ours[:commit], changed, *ours[commit + 1:]], theirs)
    assert len(found) == 1 and "payload" in found[0] and f"offset {ours[commit]['offset']}" in found[0]
    assert differences(ours[1:], theirs) == [f"offset {ours[0]['offset']}: only Kafka printed it"]
    dead = next(i for i, line in enumerate(ours) if line["tombstone"])
    revived = dict(ours[dead], tombstone=False, valueVersion=0, value={})
    assert differences([*ours[:dead], revived, *ours[dead + 1:]], theirs)


def test_a_classic_member_is_compared_with_its_subscription_decoded_in_place():
    [line] = [x for x in _ours("__consumer_offsets") if x["type"] == "GroupMetadata"
              and x["value"]["generation"] == 2][:1]
    member = kafka_form(line)["payload"]["data"]["members"][0]
    assert member["subscription"]["topics"] == ["real-topic"] and "version" not in member["subscription"]
    assert isinstance(line["value"]["members"][0]["subscription"], str)  # groupspec keeps the bytes


def test_a_member_whose_bytes_do_not_decode_keeps_them_as_kafka_does():
    """Kafka's dump leaves undecodable subscription or assignment bytes as base64 (a wire test's
    member with assignment b"a" showed it); groupspec's error object is not compared."""
    [line] = [x for x in _ours("__consumer_offsets") if x["type"] == "GroupMetadata"
              and x["value"]["generation"] == 2][:1]
    member = line["value"]["members"][0]
    broken = dict(line, value=dict(line["value"], members=[dict(member, assignment="YQ==")]),
                  consumerProtocol=[dict(line["consumerProtocol"][0], assignment={
                      "error": "ConsumerProtocolAssignment: 1 bytes, too short for the int16 version",
                      "hex": "61"})])
    shown = kafka_form(broken)["payload"]["data"]["members"][0]
    assert shown["assignment"] == "YQ==" and shown["subscription"]["topics"] == ["real-topic"]


def test_dump_lines_it_cannot_read_are_a_typed_error():
    with pytest.raises(DumpError, match="line 1 not understood"):
        parse_dump('| offset: 3 CreateTime: 1 key: {"type":"1","data":{}} value: {}')
    marker = "| offset: 9 CreateTime: 1 isControl: true endTxnMarker: COMMIT coordinatorEpoch: 0"
    assert parse_dump(marker) == []


def _classic_replay(tmp_path: Path) -> dict[str, Any]:
    from groupspec.impl.classic_group import ClassicCoordinator
    from groupspec.types.classic_group import ClassicConfig

    shutil.copytree(DATA / "__consumer_offsets-0", tmp_path / "__consumer_offsets-0")
    coordinator = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1), log_dir=tmp_path)
    try:
        return {g.group_id: g for g in coordinator.view().groups}
    finally:
        coordinator.runtime.close()


def classic_differences(groups: dict[str, Any], described: dict[str, dict[str, Any]]) -> list[str]:
    """The classic coordinator impl's groups after the replay against the broker's answers:
    state, protocol, generation (where the broker confirmed one), members and their decoded
    assignments, committed offsets."""
    out = []
    for group, b in sorted(described.items()):
        if b["kind"] != "classic":
            continue
        g = groups[group]
        members = sorted(({"member_id": m.member_id, "group_instance_id": m.group_instance_id,
                           "client_id": m.client_id, "client_host": m.client_host,
                           "assignment": sorted(f"{tp.topic}-{p}" for tp in decode_assignment(
                               m.assignment)[0].assigned_partitions for p in tp.partitions)
                           if m.assignment else []} for m in g.members), key=lambda m: m["member_id"])
        ours = {"state": g.state, "protocol_type": g.protocol_type, "protocol": g.protocol_name or "",
                "generation": g.generation_id if b["generation"] is not None else None, "members": members,
                "offsets": sorted([o.topic, o.partition, o.committed_offset] for o in g.offsets)}
        for key, value in ours.items():
            if value != b[key]:
                out.append(f"{group}: {key}: replay {value!r}, broker {b[key]!r}")
    return out


def test_replaying_the_offsets_log_gives_what_the_broker_reported(tmp_path):
    groups = _classic_replay(tmp_path)
    assert classic_differences(groups, DESCRIBED) == []
    for group, offsets in REPORTED["offsets"].items():  # the admin client's answer, as well
        assert {str(o.partition): o.committed_offset for o in groups[group].offsets} == offsets
    live = groups["real-live-classic"]
    assert (live.state, live.generation_id, len(live.members)) == ("Stable", 2, 3)  # not vacuous
    assert {m.group_instance_id for m in live.members} == {None, "live-static"}
    assert groups["real-classic"].state == "Empty" and REPORTED["states"]["real-classic"] == "EMPTY"


def test_the_replay_comparison_sees_a_planted_difference(tmp_path):
    groups = _classic_replay(tmp_path)
    for change in (lambda b: b.update(generation=3), lambda b: b.update(state="PreparingRebalance"),
                   lambda b: b["members"][0].update(client_id="someone"),
                   lambda b: b["members"][2].update(group_instance_id=None),
                   lambda b: b["members"][1].update(assignment=["real-live-topic-0"]),
                   lambda b: b["offsets"][0].__setitem__(2, 99), lambda b: b.update(protocol="roundrobin")):
        planted = copy.deepcopy(DESCRIBED)
        change(planted["real-live-classic"])
        assert len(classic_differences(groups, planted)) == 1


def test_replaying_the_share_state_log_gives_what_the_consumer_acknowledged():
    from groupspec.impl.share_state import ShareCoordinator
    from groupspec.types.share_state import ShareStateConfig

    coordinator = ShareCoordinator(ShareStateConfig(state_topic_partitions=1))
    segment = DATA / "__share_group_state-0" / "00000000000000000000.log"
    coordinator.runtime.log(0).append_raw(segment.read_bytes())
    coordinator.runtime.unload(0)
    coordinator.runtime.load(0)
    states = {v.partition: v for v in coordinator.view().share_partitions if v.group_id == "real-share"}
    checked = 0
    for where, acks in REPORTED["share_acks"].items():
        partition, offset = map(int, where.split(":"))
        view = states[partition]
        if offset < view.start_offset:
            continue
        [batch] = [b for b in view.state_batches if b.first_offset <= offset <= b.last_offset]
        assert batch.delivery_state == (4 if acks[-1] == "REJECT" else 2), where
        assert batch.delivery_count == REPORTED["share_deliveries"][where], where
        checked += 1
    assert checked >= 10


def _described() -> list[Any]:
    from groupspec.describe import describe

    return describe([DATA / "__consumer_offsets-0", DATA / "__share_group_state-0"]).groups


def test_describe_gives_exactly_what_the_broker_reported():
    """Every group the broker described, finished or live: state, protocol, generation or group
    and assignment epochs, members (ids, client ids, hosts, instance ids, epochs, assignments),
    committed offsets, share-partition start offsets, leader epochs and finished-record counts."""
    groups = _described()
    assert broker_workload.differences(DESCRIBED, groups, REPORTED["end_offsets"]) == []
    assert sorted(g.group_id for g in groups) == sorted(DESCRIBED)
    # Not vacuous: the live groups have members, assignments and a confirmed generation.
    assert [len(DESCRIBED[g]["members"]) for g in LIVE] == [3, 2, 1]
    assert DESCRIBED["real-live-classic"]["generation"] == 2
    assert all(m["assignment"] for g in LIVE for m in DESCRIBED[g]["members"])
    assert [DESCRIBED[g]["state"] for g in LIVE] == ["Stable"] * 3
    assert len(DESCRIBED["real-live-share"]["start_offsets"]) == 3


PLANTED: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("real-live-classic", lambda b: b.update(generation=1)),
    ("real-live-classic", lambda b: b.update(state="CompletingRebalance")),
    ("real-live-classic", lambda b: b["members"][2].update(group_instance_id="other")),
    ("real-live-classic", lambda b: b["members"][0].update(assignment=[])),
    ("real-live-classic", lambda b: b["members"][1].update(client_host="/10.0.0.1")),
    ("real-live-classic", lambda b: b["offsets"][1].__setitem__(2, 0)),
    ("real-classic", lambda b: b.update(protocol="range")),
    ("real-live-consumer", lambda b: b.update(group_epoch=3)),
    ("real-live-consumer", lambda b: b.update(assignment_epoch=1)),
    ("real-live-consumer", lambda b: b["members"][0].update(member_epoch=1)),
    ("real-live-consumer", lambda b: b["members"][1].update(target_assignment=[])),
    ("real-live-consumer", lambda b: b["members"][0].update(member_id="x")),
    ("real-consumer", lambda b: b.update(state="Stable")),
    ("real-live-share", lambda b: b["members"][0].update(assignment=["real-live-topic-0"])),
    ("real-live-share", lambda b: b.update(group_epoch=1)),
    ("real-live-share", lambda b: b["start_offsets"][2].update(start_offset=5)),
    ("real-live-share", lambda b: b["start_offsets"][0].update(lag=1)),
    ("real-live-share", lambda b: b["start_offsets"][1].update(leader_epoch=1)),
    ("real-share", lambda b: b["start_offsets"].pop()),
    ("real-share", lambda b: b.update(kind="consumer", group_epoch=3, assignment_epoch=2, members=[],
                                      offsets=[])),
]


@pytest.mark.parametrize(("group", "change"), PLANTED, ids=[f"{g}-{i}" for i, (g, _) in enumerate(PLANTED)])
def test_the_describe_comparison_sees_a_planted_difference(group, change):
    groups = _described()
    planted = copy.deepcopy(DESCRIBED)
    change(planted[group])
    found = broker_workload.differences(planted, groups, REPORTED["end_offsets"])
    assert found and all(line.startswith(f"{group}: ") for line in found), found


def test_a_group_the_broker_described_but_describe_lost_is_a_difference():
    groups = [g for g in _described() if g.group_id != "real-live-share"]
    assert broker_workload.differences(DESCRIBED, groups, REPORTED["end_offsets"]) == [
        "real-live-share: not in describe's output"]

"""groupspec's decoder and replay against logs a real Kafka 4.2.1 wrote, with no JVM needed.

The segments, Kafka's own DumpLogSegments output for them and what the broker reported are in
tests/data/kafka-4.2.1-real (its README says how they were made); tests/broker/test_real_logs.py
does the same on fresh logs of the test broker.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from groupspec.impl.codec.log_reader import LogReadOptions, read_logs
from groupspec.kafka_dump import DumpError, differences, kafka_form, parse_dump

DATA = Path(__file__).resolve().parents[1] / "data" / "kafka-4.2.1-real"
TOPICS = ("__consumer_offsets", "__share_group_state")
REPORTED = json.loads((DATA / "reported.json").read_text())


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


def test_dump_lines_it_cannot_read_are_a_typed_error():
    with pytest.raises(DumpError, match="line 1 not understood"):
        parse_dump('| offset: 3 CreateTime: 1 key: {"type":"1","data":{}} value: {}')
    marker = "| offset: 9 CreateTime: 1 isControl: true endTxnMarker: COMMIT coordinatorEpoch: 0"
    assert parse_dump(marker) == []


def test_replaying_the_offsets_log_gives_what_the_broker_reported(tmp_path):
    from groupspec.impl.classic_group import ClassicCoordinator
    from groupspec.types.classic_group import ClassicConfig

    shutil.copytree(DATA / "__consumer_offsets-0", tmp_path / "__consumer_offsets-0")
    coordinator = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1), log_dir=tmp_path)
    try:
        groups = {g.group_id: g for g in coordinator.view().groups}
    finally:
        coordinator.runtime.close()
    for group, offsets in REPORTED["offsets"].items():
        assert {str(o.partition): o.committed_offset for o in groups[group].offsets} == offsets
    assert groups["real-classic"].state == "Empty" and REPORTED["states"]["real-classic"] == "EMPTY"


def test_replaying_the_share_state_log_gives_what_the_consumer_acknowledged():
    from groupspec.impl.share_state import ShareCoordinator
    from groupspec.types.share_state import ShareStateConfig

    coordinator = ShareCoordinator(ShareStateConfig(state_topic_partitions=1))
    segment = DATA / "__share_group_state-0" / "00000000000000000000.log"
    coordinator.runtime.log(0).append_raw(segment.read_bytes())
    coordinator.runtime.unload(0)
    coordinator.runtime.load(0)
    states = {v.partition: v for v in coordinator.view().share_partitions}
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

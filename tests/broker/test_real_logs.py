"""The logs a real Kafka 4.2.1 coordinator wrote for real clients, read four ways.

librdkafka's clients (groupspec.broker_workload) run a classic group through two rebalances, a
KIP-848 group and a share group that accepts, releases and rejects records, then leave a classic
group of three (one static), a KIP-848 group of two and a share group of one running. The broker
describes every group, and the segments are copied before any live member leaves. Then:

* ``groupspec decode`` and Kafka's own ``DumpLogSegments`` agree on every record of the
  ``__consumer_offsets`` and ``__share_group_state`` segments (groupspec.kafka_dump);
* replaying ``__consumer_offsets`` through groupspec's classic coordinator gives the states,
  generations, members, assignments and committed offsets the broker reported;
* ``groupspec describe`` gives every field the broker reported for all six groups
  (``broker_workload.differences``);
* replaying ``__share_group_state`` through groupspec's share coordinator gives, for every
  record the share consumer finished, the state its last acknowledgement asks for and the number
  of times the consumer received it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.broker

ACKED, ARCHIVED = 2, 4  # delivery states in the share-state records


@pytest.fixture(scope="module")
def copies(kafka_broker, tmp_path_factory) -> Path:
    """The coordinator topics' segments as they were while the live members were in."""
    return tmp_path_factory.mktemp("real-logs")


@pytest.fixture(scope="module")
def workload(kafka_broker, copies):
    pytest.importorskip("confluent_kafka", reason="the real-client workload needs confluent-kafka")
    from groupspec import broker_workload

    def copy(_rep) -> None:
        for topic in TOPICS:
            _copy(kafka_broker, topic, copies)

    return broker_workload.run(kafka_broker.bootstrap, at_end=copy)


TOPICS = ("__consumer_offsets", "__share_group_state")


def _copy(kafka_broker, topic: str, into: Path) -> Path:
    """The topic's segment files as they are now (Kafka keeps appending to the live ones)."""
    target = into / f"{topic}-0"
    target.mkdir(parents=True)
    for segment in kafka_broker.partition_dir(topic).glob("*.log"):
        shutil.copy(segment, target)
    return target


def _ours(directory: Path) -> list[dict]:
    from groupspec.impl.codec.log_reader import LogReadOptions, read_logs

    lines: list[dict] = []
    report = read_logs([directory], LogReadOptions(), lines.append, pytest.fail)
    assert report.quarantined == 0
    return lines


@pytest.mark.parametrize("topic", ["__consumer_offsets", "__share_group_state"])
def test_decode_agrees_with_kafkas_dump_log_segments(workload, copies, topic):
    from groupspec import broker
    from groupspec.kafka_dump import differences, parse_dump, run_dump

    copy = copies / f"{topic}-0"
    ours, theirs = _ours(copy), []
    for segment in sorted(copy.glob("*.log")):
        theirs += parse_dump(run_dump(broker.resolve(), segment, topic))
    assert differences(ours, theirs) == []
    # Not a vacuous agreement: the workload's groups wrote records of the kinds each topic holds.
    mine = {workload.classic_group, workload.consumer_group, workload.share_group, workload.live_classic,
            workload.live_consumer, workload.live_share}
    kinds = {line["type"] for line in ours if line["key"].get("groupId", line["key"].get("group")) in mine}
    if topic == "__consumer_offsets":
        assert {"GroupMetadata", "OffsetCommit", "ConsumerGroupMetadata", "ConsumerGroupMemberMetadata",
                "ShareGroupMetadata", "ShareGroupMemberMetadata", "ShareGroupStatePartitionMetadata"} <= kinds
        assert any(line["tombstone"] for line in ours)  # members leaving
    else:
        assert {"ShareSnapshot", "ShareUpdate"} <= kinds
        assert any(line["value"].get("deliveryCompleteCount", -1) >= 0 for line in ours
                   if line["type"] == "ShareUpdate")  # KIP-1226's tag, written by 4.2.1


def test_classic_replay_gives_what_the_broker_reported(workload, copies, tmp_path):
    from groupspec.impl.classic_group import ClassicCoordinator
    from groupspec.types.classic_group import ClassicConfig
    from tests.cover.test_real_logs_data import classic_differences

    shutil.copytree(copies / "__consumer_offsets-0", tmp_path / "__consumer_offsets-0")
    coordinator = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1), log_dir=tmp_path)
    try:
        groups = {g.group_id: g for g in coordinator.view().groups}
    finally:
        coordinator.runtime.close()
    assert classic_differences(groups, workload.described) == []
    live = workload.described[workload.live_classic]
    assert live["state"] == "Stable" and live["generation"] is not None and len(live["members"]) == 3
    for group in (workload.classic_group, workload.consumer_group):
        view = groups[group]
        committed = {o.partition: o.committed_offset for o in view.offsets if o.topic == workload.topic}
        assert committed == workload.offsets[group], group
        assert view.members == ()
    classic = groups[workload.classic_group]
    assert (classic.state, workload.states[workload.classic_group]) == ("Empty", "EMPTY")


def test_share_state_replay_matches_the_consumers_acknowledgements(workload, copies):
    from groupspec.impl.share_state import ShareCoordinator
    from groupspec.types.share_state import ShareStateConfig

    copy = copies / "__share_group_state-0"
    coordinator = ShareCoordinator(ShareStateConfig(state_topic_partitions=1))
    for segment in sorted(copy.glob("*.log")):
        coordinator.runtime.log(0).append_raw(segment.read_bytes())
    coordinator.runtime.unload(0)
    coordinator.runtime.load(0)  # a failover: the shard rebuilt from the real records alone
    views = coordinator.view().share_partitions
    states = {v.partition: v for v in views if v.group_id == workload.share_group}
    assert sorted(states) == [0, 1]
    checked = 0
    for (partition, offset), acks in workload.share_acks.items():
        view = states[partition]
        if offset < view.start_offset:
            continue  # finished and below the start offset: no batch needed
        [batch] = [b for b in view.state_batches if b.first_offset <= offset <= b.last_offset]
        assert batch.delivery_state == (ARCHIVED if acks[-1] == "REJECT" else ACKED), (partition, offset)
        assert batch.delivery_count == workload.share_deliveries[(partition, offset)], (partition, offset)
        checked += 1
    assert checked > 0
    assert any(count == 2 for count in workload.share_deliveries.values())  # a released record came back


def test_describe_gives_what_the_broker_reported(workload, copies):
    from groupspec import broker_workload
    from groupspec.describe import describe

    paths = [copies / f"{topic}-0" for topic in TOPICS]
    found = describe(paths, groups=list(workload.described)).groups
    assert broker_workload.differences(workload.described, found, workload.end_offsets) == []
    assert sorted(g.group_id for g in found) == sorted(workload.described)
    names = (workload.live_classic, workload.live_consumer, workload.live_share)
    live = [workload.described[g] for g in names]
    assert [(b["state"], len(b["members"])) for b in live] == [("Stable", 3), ("Stable", 2), ("Stable", 1)]
    # The comparison can fail: one planted difference per kind of group.
    planted = json.loads(json.dumps(workload.described))
    planted[workload.live_classic]["members"][0]["assignment"] = []
    planted[workload.live_consumer]["assignment_epoch"] += 1
    planted[workload.live_share]["start_offsets"][0]["start_offset"] += 1
    named = {line.split(":")[0] for line in broker_workload.differences(planted, found, workload.end_offsets)}
    assert named == set(names)

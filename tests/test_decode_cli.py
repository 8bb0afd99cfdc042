"""`groupspec decode` end to end: segments written by groupspec's writer, read back as JSON lines."""

from __future__ import annotations

import json
import uuid

import pytest

from groupspec.cli import main
from groupspec.impl.codec.batch import ControlType, Record, encode_batch, encode_control_batch
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.consumer_protocol import encode_assignment, encode_subscription
from groupspec.impl.codec.records import encode_key, encode_value
from groupspec.impl.codec.segment import SegmentWriter
from groupspec.types.records import (
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    ShareSnapshotKey,
    ShareSnapshotValue,
)


def _commit(offset: int, group: str, partition: int, committed: int) -> Record:
    key = encode_key(OffsetCommitKey(group=group, topic="orders", partition=partition))
    value = encode_value(OffsetCommitValue(offset=committed, leader_epoch=7, metadata="m",
                                           commit_timestamp=1_700_000_000_000))
    return Record(offset, 1_700_000_000_000, key, value)


def _group_metadata(offset: int) -> Record:
    sub = encode_subscription(ConsumerProtocolSubscription(topics=("orders",)))
    assignment = encode_assignment(ConsumerProtocolAssignment(
        assigned_partitions=(ConsumerProtocolAssignment.TopicPartition(topic="orders", partitions=(0, 1)),)))
    member = GroupMetadataValue.MemberMetadata(member_id="c-1", client_id="c", client_host="/h",
                                               session_timeout=45000, rebalance_timeout=300000,
                                               subscription=sub, assignment=assignment)
    value = GroupMetadataValue(protocol_type="consumer", generation=1, protocol="range", leader="c-1",
                               current_state_timestamp=5, members=(member,))
    return Record(offset, 5, encode_key(GroupMetadataKey(group="testgroup")), encode_value(value))


@pytest.fixture
def offsets_dir(tmp_path):
    directory = tmp_path / "__consumer_offsets-27"
    with SegmentWriter(directory, segment_bytes=400) as log:
        log.append(encode_batch([_commit(0, "testgroup", 0, 42), _commit(1, "other", 1, 7)]))
        log.append(encode_batch([_group_metadata(2)], base_offset=2, compression=Compression.GZIP))
        # a tombstone, and a record of a type this groupspec does not know (a streams record, 17)
        tomb = Record(3, 6, encode_key(OffsetCommitKey(group="testgroup", topic="orders", partition=0)), None)
        unknown = Record(4, 6, b"\x00\x11\x00\x01g", b"\x00\x00")
        log.append(encode_batch([tomb, unknown], base_offset=3, compression=Compression.ZSTD))
        txn = [_commit(5, "testgroup", 2, 99)]
        log.append(encode_batch(txn, base_offset=5, is_transactional=True, producer_id=9, producer_epoch=0))
        log.append(encode_control_batch(ControlType.COMMIT, offset=6, timestamp=7, producer_id=9,
                                        producer_epoch=0, coordinator_epoch=3))
        bad_key = encode_key(OffsetCommitKey(group="testgroup", topic="t", partition=0))
        bad = Record(7, 8, bad_key, b"\x00\x63junk")
        log.append(encode_batch([bad], base_offset=7))
    return directory


def _run(capsys, *argv):
    code = main(["decode", *map(str, argv)])
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_decodes_every_record_and_quarantines_the_bad_one(offsets_dir, capsys):
    code, docs, err = _run(capsys, offsets_dir)
    assert code == 1  # one record quarantined
    by_offset = {d["offset"]: d for d in docs}
    assert sorted(by_offset) == [0, 1, 2, 3, 5, 7]
    first = by_offset[0]
    assert first["type"] == "OffsetCommit" and first["typeId"] == 1 and first["partition"] == 27
    assert first["key"] == {"group": "testgroup", "topic": "orders", "partition": 0}
    assert first["valueVersion"] == 4 and first["value"]["offset"] == 42
    assert first["value"]["leaderEpoch"] == 7
    members = by_offset[2]["consumerProtocol"]
    assert members[0]["memberId"] == "c-1"
    assert members[0]["subscription"]["topics"] == ["orders"]
    assert members[0]["assignment"]["assignedPartitions"][0]["partitions"] == [0, 1]
    assert by_offset[3]["tombstone"] is True and by_offset[3]["value"] is None
    assert by_offset[5]["transactional"] is True and by_offset[5]["producerId"] == 9
    assert by_offset[7]["quarantined"] is True and "99" in by_offset[7]["reason"]
    assert by_offset[7]["value"] == "00636a756e6b"
    assert "unknown type 17" in err and "1 quarantined" in err


def test_filters_and_control_records(offsets_dir, capsys):
    # A quarantined record cannot be filtered (its group and type are unknown): always shown.
    _, docs, _ = _run(capsys, offsets_dir, "--group", "other")
    assert [(d["offset"], d.get("quarantined", False)) for d in docs] == [(1, False), (7, True)]
    _, docs, _ = _run(capsys, offsets_dir, "--type", "GroupMetadata")
    assert [d["offset"] for d in docs] == [2, 7]
    _, docs, _ = _run(capsys, offsets_dir, "--type", "2", "--control")
    assert [d.get("marker") for d in docs] == [None, "COMMIT", None]
    assert docs[1]["coordinatorEpoch"] == 3


def test_strict_stops_at_the_first_bad_record(offsets_dir, capsys):
    code, _, err = _run(capsys, offsets_dir, "--strict")
    assert code == 2
    assert "offset 7" in err and "99" in err


def test_bad_usage_is_one_clear_line(tmp_path, capsys):
    code, _, err = _run(capsys, tmp_path / "missing")
    assert code == 2 and "no such file" in err
    loose = tmp_path / "00000000000000000000.log"
    loose.write_bytes(b"")
    code, _, err = _run(capsys, loose)
    assert code == 2 and "--topic" in err
    code, _, err = _run(capsys, loose, "--topic", "__consumer_offsets", "--type", "Nope")
    assert code == 2 and "Nope" in err


def test_share_state_partition(tmp_path, capsys):
    directory = tmp_path / "__share_group_state-3"
    topic_id = uuid.UUID(int=0x0102030405060708090A0B0C0D0E0F10)
    key = encode_key(ShareSnapshotKey(group_id="sg", topic_id=topic_id, partition=4))
    value = encode_value(ShareSnapshotValue(snapshot_epoch=1, state_epoch=0, leader_epoch=2, start_offset=10))
    with SegmentWriter(directory) as log:
        log.append(encode_batch([Record(0, 1, key, value)]))
    code, docs, _ = _run(capsys, directory)
    assert code == 0
    assert docs[0]["type"] == "ShareSnapshot" and docs[0]["value"]["startOffset"] == 10
    assert docs[0]["key"]["topicId"] == "AQIDBAUGBwgJCgsMDQ4PEA"

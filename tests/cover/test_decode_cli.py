"""`groupspec decode` end to end: segments written by groupspec's writer, read back as JSON lines."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import uuid

import pytest

from groupspec.cli import main
from groupspec.commands.decode_report import Progress
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


# --- issue 14: counting, refusals, the JSON form, the batch view, ranges, limit, progress -------

_SUMMARY = re.compile(r"(\d+) records?: (\d+) printed(?:, (\d+) filtered out)?"
                      r"(?:, (\d+) skipped \(unknown type [\d, ]+\))?, (\d+) quarantined")


def _counts(err: str) -> dict[str, int]:
    m = _SUMMARY.search(err)
    assert m is not None, err
    records, printed, filtered, skipped, quarantined = (int(g or 0) for g in m.groups())
    return {"records": records, "printed": printed, "filtered": filtered, "skipped": skipped,
            "quarantined": quarantined}


def _append_corrupt_batch(directory, offset: int) -> None:
    """A batch whose CRC does not match (a flipped byte in a value), at the end of the last segment."""
    data = bytearray(encode_batch([_commit(offset, "testgroup", 3, 1)], base_offset=offset))
    data[-3] ^= 0xFF
    last = sorted(directory.glob("*.log"))[-1]
    with last.open("ab") as f:
        f.write(data)


def test_summary_counts_add_up(offsets_dir, capsys):
    _append_corrupt_batch(offsets_dir, 8)
    code, docs, err = _run(capsys, offsets_dir)
    assert code == 1
    counts = _counts(err)
    # Every record looked at is printed, filtered out, skipped or quarantined: nothing twice.
    assert counts == {"records": 8, "printed": 5, "filtered": 1, "skipped": 1, "quarantined": 1}
    assert "1 bad batch quarantined" in err
    # Lines out: the printed records, the quarantined record and the bad batch.
    assert len(docs) == 5 + 1 + 1
    assert [d["offset"] for d in docs if d.get("quarantined")] == [7, 8]


def test_a_file_that_is_not_a_segment_is_refused(tmp_path, capsys):
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
    code, docs, err = _run(capsys, text, "--topic", "__consumer_offsets")
    assert code == 2 and docs == []
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(text) in lines[0] and "not a Kafka log segment" in lines[0]
    assert "magic" in lines[0]
    # Inside a partition directory the same bytes are a damaged segment: quarantined, exit 1.
    directory = tmp_path / "__consumer_offsets-5"
    directory.mkdir()
    (directory / "00000000000000000000.log").write_bytes(text.read_bytes())
    code, docs, err = _run(capsys, directory)
    assert code == 1
    assert docs[0]["quarantined"] is True and "not a Kafka log segment" in docs[0]["reason"]
    assert "1 unreadable rest of a file quarantined" in err


@pytest.mark.parametrize("given", ["99", "-1", "17", "Nope"])
def test_unknown_types_are_refused_by_name_or_id(offsets_dir, capsys, given):
    code, docs, err = _run(capsys, offsets_dir, "--type", given)
    assert code == 2 and docs == []
    assert "--type" in err and given in err and err.count("\n") == 1


def test_a_refused_type_id_names_the_range_of_ids(offsets_dir, capsys):
    # The message says "ids 0-16": right only while each topic's type ids run without a gap.
    from groupspec.types.records import SHARE_STATE_TOPIC, record_types

    for topic in ("__consumer_offsets", SHARE_STATE_TOPIC):
        ids = sorted(record_types(topic))
        assert ids == list(range(ids[0], ids[-1] + 1)), topic
    _, _, err = _run(capsys, offsets_dir, "--type", "99")
    assert f"(ids 0-{max(record_types('__consumer_offsets'))})" in err


def test_topic_overriding_the_directory_name_warns(offsets_dir, capsys):
    _, _, err = _run(capsys, offsets_dir, "--topic", "__share_group_state")
    assert "warning" in err and "overrides the topic __consumer_offsets" in err
    _, _, err = _run(capsys, offsets_dir, "--topic", "__consumer_offsets")
    assert "overrides" not in err


def test_json_form_follows_the_written_version(tmp_path, capsys):
    directory = tmp_path / "__consumer_offsets-1"
    key = encode_key(OffsetCommitKey(group="g", topic="t", partition=0))
    value = OffsetCommitValue(offset=5, leader_epoch=2, metadata="m", commit_timestamp=10)
    expiring = OffsetCommitValue(offset=6, metadata="m", commit_timestamp=10, expire_timestamp=99)
    with SegmentWriter(directory) as log:
        log.append(encode_batch([Record(0, 1, key, encode_value(value, 3)),
                                 Record(1, 1, key, encode_value(expiring, 1)),
                                 Record(2, 1, key, encode_value(value, 4))]))
    code, docs, _ = _run(capsys, directory)
    assert code == 0
    assert docs[0]["value"] == {"offset": 5, "leaderEpoch": 2, "metadata": "m", "commitTimestamp": 10}
    assert docs[1]["value"] == {"offset": 6, "metadata": "m", "commitTimestamp": 10, "expireTimestamp": 99}
    assert docs[2]["value"] == docs[0]["value"]  # v4 with the zero topic id: the tag is not printed


def test_output_is_utf8_json_lines(tmp_path, capsys):
    directory = tmp_path / "__consumer_offsets-2"
    with SegmentWriter(directory) as log:
        log.append(encode_batch([_commit(0, "grüppe-✓\n\u2028", 0, 1)]))
    code = main(["decode", str(directory)])
    raw = capsys.readouterr().out
    assert code == 0 and raw.count("\n") == 1
    assert json.loads(raw)["key"]["group"] == "grüppe-✓\n\u2028"


def test_batch_view(offsets_dir, capsys):
    _append_corrupt_batch(offsets_dir, 8)
    code, docs, err = _run(capsys, offsets_dir, "--batches")
    assert code == 1
    assert [(d["baseOffset"], d.get("lastOffset")) for d in docs] == [(0, 1), (2, 2), (3, 4), (5, 5), (6, 6),
                                                                       (7, 7), (8, 8)]
    first = docs[0]
    assert first["count"] == 2 and first["compression"] == "none" and first["crcValid"] is True
    assert first["size"] == len(encode_batch([_commit(0, "testgroup", 0, 42), _commit(1, "other", 1, 7)]))
    assert first["position"] == 0 and first["partition"] == 27 and first["magic"] == 2
    assert docs[1]["compression"] == "gzip" and docs[2]["compression"] == "zstd"
    assert docs[3]["transactional"] is True and docs[3]["producerId"] == 9 and docs[3]["control"] is False
    assert docs[4]["control"] is True
    bad = docs[6]
    assert bad["crcValid"] is False and bad["quarantined"] is True and "CRC" in bad["reason"]
    assert "7 batches: 6 printed" not in err and "6 batches: 6 printed" in err and "1 bad batch" in err
    code, docs, _ = _run(capsys, offsets_dir, "--batches", "--offset-start", "4", "--offset-end", "6")
    assert [d["baseOffset"] for d in docs] == [3, 5, 6]
    code, _, err = _run(capsys, offsets_dir, "--batches", "--group", "g")
    assert code == 2 and "--batches" in err


def test_batch_view_sequences(tmp_path, capsys):
    directory = tmp_path / "__consumer_offsets-3"
    with SegmentWriter(directory) as log:
        log.append(encode_batch([_commit(0, "g", 0, 1), _commit(1, "g", 1, 1), _commit(2, "g", 2, 1)],
                                producer_id=4, producer_epoch=1, base_sequence=2**31 - 2))
    _, docs, _ = _run(capsys, directory, "--batches")
    # Kafka's lastSequence wraps past int32's maximum: base 2^31-2 plus 2 is 0.
    assert (docs[0]["baseSequence"], docs[0]["lastSequence"]) == (2**31 - 2, 0)


def test_offset_range_and_limit(offsets_dir, capsys):
    code, docs, err = _run(capsys, offsets_dir, "--offset-start", "2", "--offset-end", "5")
    assert [d["offset"] for d in docs] == [2, 3, 5]
    counts = _counts(err)
    assert counts["records"] == sum(counts[k] for k in ("printed", "filtered", "skipped", "quarantined"))
    code, docs, err = _run(capsys, offsets_dir, "-c", "2")
    assert code == 0 and [d["offset"] for d in docs] == [0, 1] and "stopped at --limit (2 lines)" in err
    # A quarantined entry is an output line too.
    code, docs, err = _run(capsys, offsets_dir, "--offset-start", "7", "--limit", "1")
    assert code == 1 and [d["offset"] for d in docs] == [7]
    code, _, err = _run(capsys, offsets_dir, "--offset-start", "5", "--offset-end", "4")
    assert code == 2 and "--offset-start" in err
    for bad in ("0", "ten"):
        code, _, err = _run(capsys, offsets_dir, "--limit", bad)
        assert code == 2 and err.count("\n") == 1 and "--limit" in err


def test_offset_start_passes_over_earlier_segments(offsets_dir, capsys):
    files = sorted(offsets_dir.glob("*.log"))
    assert len(files) >= 3  # segment_bytes=400 in the fixture
    last_base = int(files[-1].name.split(".")[0])
    _, docs, err = _run(capsys, offsets_dir, "--offset-start", str(last_base))
    assert f"({len(files) - 1} before --offset-start passed over)" in err
    assert "groupspec decode: 1 file (" in err and all(d["offset"] >= last_base for d in docs)


def test_progress_when_forced(offsets_dir, capsys):
    _, _, err = _run(capsys, offsets_dir, "--progress")
    assert "100% of" in err and "records/s" in err
    _, _, err = _run(capsys, offsets_dir)  # not a terminal: no progress unless asked
    assert "%" not in err


def test_progress_reports_at_most_every_interval():
    now = [0.0]
    stream = io.StringIO()
    meter = Progress(1000, stream, tty=True, interval=0.5, clock=lambda: now[0])
    meter.update(100, 10)
    assert stream.getvalue() == ""
    now[0] = 0.6
    meter.update(250, 25)
    meter.update(300, 30)
    assert stream.getvalue().count("\r") == 1 and "25%" in stream.getvalue()
    meter.finish(1000, 100)
    assert stream.getvalue().endswith("\r\x1b[K")  # the line is cleared at the end on a terminal


def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path):
    # `groupspec decode ... | head -1`: the pipe closes while lines are still coming.
    directory = tmp_path / "__consumer_offsets-4"
    with SegmentWriter(directory) as log:
        for start in range(0, 20_000, 100):
            records = [_commit(start + k, "g", k, start) for k in range(100)]
            log.append(encode_batch(records, base_offset=start))
    child = subprocess.Popen([sys.executable, "-m", "groupspec.cli", "decode", str(directory)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    first = child.stdout.readline()
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=60) == 1
    assert json.loads(first)["offset"] == 0
    assert "Traceback" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("extra", [[], ["--group", "testgroup", "--group", "other"],
                                   ["--no-consumer-protocol"]])
def test_record_lines_hold_the_json_form_of_the_decoded_record(offsets_dir, capsys, extra):
    # The fast text path (with and without the group filter's key objects) against the dict form.
    from groupspec.impl.codec.batch import read_batches
    from groupspec.impl.codec.json_form import to_json
    from groupspec.impl.codec.records import decode_record

    expected = {}
    for file in sorted(offsets_dir.glob("*.log")):
        for _, batch in read_batches(file.read_bytes(), lenient=True):
            for record in getattr(batch, "records", ()):
                try:
                    rec = decode_record("__consumer_offsets", record.key, record.value)
                except Exception:
                    continue
                value = None if rec.value is None else to_json(rec.value, rec.value_version)
                expected[record.offset] = (to_json(rec.key, 0), rec.value_version, value)
    _, docs, _ = _run(capsys, offsets_dir, *extra)
    printed = [d for d in docs if not d.get("quarantined")]
    assert len(printed) == 5
    for doc in printed:
        assert (doc["key"], doc["valueVersion"], doc["value"]) == expected[doc["offset"]]
        members_shown = doc["type"] == "GroupMetadata" and "--no-consumer-protocol" not in extra
        assert ("consumerProtocol" in doc) == members_shown

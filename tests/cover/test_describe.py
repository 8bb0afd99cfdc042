"""`groupspec describe`: groups rebuilt from coordinator logs (groupspec.describe).

The real logs of tests/data/kafka-4.2.1-real (a Kafka 4.2.1 broker and librdkafka's clients)
must give what that broker reported; a log groupspec writes itself gives a group with members;
bad paths and damaged logs are typed errors, and the user's files are never written.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from groupspec.cli import main
from groupspec.describe import describe
from groupspec.impl.codec.batch import Record, encode_batch
from groupspec.impl.codec.consumer_protocol import encode_assignment
from groupspec.impl.codec.records import encode_record
from groupspec.impl.codec.segment import write_segment
from groupspec.types import InputError
from groupspec.types.records import (
    ConsumerProtocolAssignment,
    CoordinatorRecord,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "kafka-4.2.1-real"
REAL = [DATA / "__consumer_offsets-0", DATA / "__share_group_state-0"]
REPORTED = json.loads((DATA / "reported.json").read_text())


def test_the_real_logs_give_what_the_broker_reported():
    found = {g.group_id: g for g in describe(REAL).groups}
    assert sorted(found) == ["real-classic", "real-consumer", "real-live-classic", "real-live-consumer",
                             "real-live-share", "real-share"]
    assert [found[g].kind for g in sorted(found)] == ["classic", "consumer", "classic", "consumer", "share",
                                                     "share"]
    # Every field against the broker's answers: tests/cover/test_real_logs_data.py. Here the
    # finished groups against the admin client's answers and what the workload did.
    for group, offsets in REPORTED["offsets"].items():
        assert {str(o.partition): o.offset for o in found[group].offsets} == offsets
        assert found[group].state.upper() == REPORTED["states"][group]
        assert found[group].members == ()
    assert found["real-classic"].generation == 4  # a alone, a and b, b alone, then empty
    share = found["real-share"]
    assert share.state == "Empty" and [p.partition for p in share.share_partitions] == [0, 1]
    for p in share.share_partitions:
        last = {int(w.split(":")[1]): acks[-1] for w, acks in REPORTED["share_acks"].items()
                if int(w.split(":")[0]) == p.partition and int(w.split(":")[1]) >= p.start_offset}
        assert p.topic == "real-topic"  # the name, from the share group's initialized topics
        assert p.batches == {"acknowledged": sum(a == "ACCEPT" for a in last.values()),
                             "archived": sum(a == "REJECT" for a in last.values())}


def _stable_group_log(directory: Path) -> None:
    assignment = encode_assignment(ConsumerProtocolAssignment(assigned_partitions=(
        ConsumerProtocolAssignment.TopicPartition("orders", (0, 2)),)))
    member = GroupMetadataValue.MemberMetadata(member_id="m-1", client_id="app", client_host="/10.0.0.7",
                                               rebalance_timeout=60000, session_timeout=45000,
                                               subscription=b"", assignment=assignment)
    records = [
        CoordinatorRecord(GroupMetadataKey("g"), GroupMetadataValue(
            protocol_type="consumer", generation=7, protocol="range", leader="m-1",
            current_state_timestamp=5, members=(member,))),
        CoordinatorRecord(OffsetCommitKey("g", "orders", 0), OffsetCommitValue(
            offset=41, commit_timestamp=6)),
        CoordinatorRecord(OffsetCommitKey("g", "orders", 1), OffsetCommitValue(
            offset=3, commit_timestamp=6)),
    ]
    batch = encode_batch([Record(i, 10, *encode_record(r)) for i, r in enumerate(records)], base_offset=0)
    write_segment(directory, [batch])


def test_a_stable_group_shows_its_members_and_who_owns_each_committed_partition(tmp_path, capsys):
    log = tmp_path / "__consumer_offsets-13"
    _stable_group_log(log)
    [g] = describe([log]).groups
    assert (g.kind, g.state, g.protocol, g.generation, g.coordinator_partition) == ("classic", "Stable",
                                                                                    "range", 7, 13)
    assert [(m.member_id, m.client_id, m.host, m.assignment) for m in g.members] == [
        ("m-1", "app", "/10.0.0.7", ("orders-0", "orders-2"))]
    assert main(["describe", str(log)]) == 0
    out = capsys.readouterr().out
    assert "state Stable, protocol consumer/range, generation 7" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("g ")]
    assert rows == [["g", "orders", "0", "41", "m-1", "/10.0.0.7", "app"],
                    ["g", "orders", "1", "3", "-", "-", "-"]]
    assert main(["describe", "--json", str(log)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["groups"] == [json.loads(json.dumps(dataclasses.asdict(g)))]


def test_the_group_filter_and_a_group_not_in_the_logs(tmp_path, capsys):
    assert [g.group_id for g in describe(REAL, groups=["real-share"]).groups] == ["real-share"]
    assert main(["describe", "--group", "nope", *map(str, REAL)]) == 1
    assert "group 'nope' is not in these logs" in capsys.readouterr().err


def test_bad_inputs_are_typed_errors_without_a_traceback(tmp_path, capsys):
    elsewhere = tmp_path / "orders-0"
    elsewhere.mkdir()
    empty = tmp_path / "__consumer_offsets-0"
    empty.mkdir()
    for path, says in ((tmp_path / "missing", "no such file"), (elsewhere, "not in a partition directory"),
                       (empty, "holds no segment files")):
        with pytest.raises(InputError, match=says):
            describe([path])
        assert main(["describe", str(path)]) == 2
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err
    damaged = tmp_path / "d" / "__consumer_offsets-0"
    _stable_group_log(damaged)
    segment = next(damaged.glob("*.log"))
    data = bytearray(segment.read_bytes())
    data[-3] ^= 0xFF  # inside the last record: the CRC no longer matches
    segment.write_bytes(bytes(data))
    with pytest.raises(InputError, match="CRC32C mismatch"):
        describe([damaged])


def test_the_users_files_are_only_read(tmp_path):
    copy = tmp_path / "real"
    shutil.copytree(DATA, copy)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in copy.rglob("*") if p.is_file()}
    describe([copy / "__consumer_offsets-0", copy / "__share_group_state-0"])
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in copy.rglob("*") if p.is_file()}
    assert after == before

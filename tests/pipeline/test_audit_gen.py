"""The generated logs (``groupspec gen-log``) and KIP-848 group state in describe and audit.

kafka-python's batch builder is a writer groupspec shares no code with, so a log it framed and
compressed, read back by groupspec in every codec, shows the reader is right about bytes it did
not write itself; the same content written by groupspec's own writer must give the same states.
KIP-848 states are checked on generated groups that end in each state and on the real broker's
log, whole and cut after the record where the broker had the group Stable.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from kafka.record.default_records import DefaultRecordBatch

from groupspec.cli import main
from groupspec.describe import describe
from groupspec.impl.codec.batch import RecordBatch
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.segment import read_log, segment_files
from groupspec.pipeline.audit_core import STATE_NAMES, audit_rows, segment_rows
from groupspec.pipeline.audit_gen import CONSUMER_ENDINGS, write_offsets_log

REAL = Path(__file__).resolve().parents[1] / "data" / "kafka-4.2.1-real"
ARGS = {"groups": 32, "commits": 20, "seed": 5, "segment_bytes": 4096, "faults": True, "compact": 2,
        "gaps": 7}


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    return {w: write_offsets_log(tmp_path_factory.mktemp(w), writer=w, **ARGS)
            for w in ("kafka-python", "groupspec")}


@pytest.fixture(scope="module")
def clean_logs(tmp_path_factory):
    """Without planted faults: describe, like a loading broker, refuses an unknown value version."""
    return {w: write_offsets_log(tmp_path_factory.mktemp(w), writer=w, **{**ARGS, "faults": False})
            for w in ("kafka-python", "groupspec")}


def _length(data: bytes, position: int) -> int:
    """The whole batch's size: its length field counts from after itself (offset 8-11)."""
    return 12 + int.from_bytes(data[position + 8:position + 12], "big")


def rows_of(directories):
    rows = []
    for directory in directories:
        topic, partition = directory.name.rsplit("-", 1)
        for f in segment_files(directory):
            for tag, item in segment_rows(str(f), topic, int(partition)):
                assert tag == "row", item
                rows.append(item)
    return rows


def test_kafka_python_bytes_are_read_in_every_codec(logs):
    log = logs["kafka-python"]
    assert set(log.codecs) == {c.name.lower() for c in Compression}
    seen: Counter[str] = Counter()
    for directory in log.directories:
        for f in segment_files(directory):
            data = f.read_bytes()
            for item in read_log(f):
                assert isinstance(item.entry, RecordBatch), item.entry
                batch = item.entry
                seen[batch.compression.name.lower()] += 1
                # kafka-python's own reader agrees with groupspec's on the same bytes.
                theirs = DefaultRecordBatch(data[item.position:item.position + _length(data, item.position)])
                assert theirs.validate_crc() and theirs.base_offset == batch.base_offset
                assert [(r.offset, r.key, r.value) for r in theirs] == \
                    [(r.offset, r.key, r.value) for r in batch.records]
    assert seen == Counter(log.codecs)


def test_both_writers_give_the_same_records_and_the_same_audit(logs):
    a, b = (rows_of(logs[w].directories) for w in ("kafka-python", "groupspec"))
    assert len(a) == logs["kafka-python"].records == logs["groupspec"].records
    # Key, value, topic, partition, offset, timestamp, producer and control flag agree record by record.
    assert [r[:6] + r[8:] for r in a] == [r[:6] + r[8:] for r in b]
    states_a, violations_a, quarantined_a = audit_rows(a)
    states_b, violations_b, quarantined_b = audit_rows(b)
    assert states_a == states_b and violations_a == violations_b
    assert [q.reason for q in quarantined_a] == [q.reason for q in quarantined_b]
    kinds = {v.group_id for v in violations_a}
    assert all(g is None or g.startswith("fault-") for g in kinds)


def test_the_log_has_gaps_compaction_and_base_offset_names(logs):
    log = logs["kafka-python"]
    assert log.compacted > 0 and log.segments > len(log.directories)
    for directory in log.directories:
        offsets = [r[4] for r in rows_of([directory])]
        files = segment_files(directory)
        if len(offsets) > 10:
            assert offsets[-1] - offsets[0] + 1 > len(offsets)  # unused offsets: gaps
        for f in files:
            first = next(iter(read_log(f)), None)
            if first is not None:
                assert isinstance(first.entry, RecordBatch)
                assert int(f.stem) == first.entry.base_offset and len(f.stem) == 20
        assert not list(directory.glob("*.index")) and not list(directory.glob("*.timeindex"))


def test_index_files_beside_the_segments_are_ignored(logs, tmp_path):
    source = logs["kafka-python"].directories[0]
    copy = tmp_path / source.name
    shutil.copytree(source, copy)
    for f in segment_files(copy):
        f.with_suffix(".index").write_bytes(b"\0" * 8)
        f.with_suffix(".timeindex").write_bytes(b"")
    assert rows_of([copy]) == rows_of([source])


def test_describe_is_the_same_over_both_writers_and_shows_each_kip848_state(clean_logs):
    a, b = (describe(clean_logs[w].directories) for w in ("kafka-python", "groupspec"))
    assert a.records == b.records and a.groups == b.groups
    consumers = [g for g in a.groups if g.kind == "consumer" and g.group_id.startswith("g")]
    assert [g.state for g in consumers] == [CONSUMER_ENDINGS[i % 4] for i in range(len(consumers))]
    by_state = {g.state: g for g in consumers}
    stable = by_state["Stable"]
    assert (stable.generation, stable.assignment_epoch) == (2, 2)
    assert [(m.member_epoch, m.member_state, len(m.assignment)) for m in stable.members] == \
        [(2, "STABLE", 2), (2, "STABLE", 2)]
    rec = by_state["Reconciling"]
    assert [(m.member_epoch, m.member_state, len(m.pending_revocation)) for m in rec.members] == \
        [(1, "UNREVOKED_PARTITIONS", 2), (2, "UNRELEASED_PARTITIONS", 0)]
    assigning = by_state["Assigning"]
    assert (assigning.generation, assigning.assignment_epoch, len(assigning.members)) == (3, 2, 3)
    empty = by_state["Empty"]
    assert (empty.generation, empty.members) == (4, ())


def test_audit_shows_kip848_states_and_epochs(clean_logs):
    states, violations, _ = audit_rows(rows_of(clean_logs["kafka-python"].directories))
    assert violations == []
    rows = [dict(zip(STATE_NAMES, s, strict=True)) for s in states]
    consumer = {r["group_id"]: r for r in rows if r["kind"] == "consumer" and r["group_id"].startswith("g")}
    described = {g.group_id: g for g in describe(clean_logs["kafka-python"].directories).groups}
    assert {r["state"] for r in consumer.values()} == set(CONSUMER_ENDINGS)
    for group, r in consumer.items():
        d = described[group]
        assert (r["state"], r["generation"], r["assignment_epoch"]) == (d.state, d.generation,
                                                                          d.assignment_epoch)
        assert r["members"] == [m.member_id for m in d.members]
        assert sorted(r["assignments"]) == sorted(f"{m.member_id} {p}" for m in d.members
                                                  for p in m.assignment)


def _cut(directory: Path, out: Path, last_offset: int) -> Path:
    """The partition's first segment holding only the batches up to ``last_offset``."""
    out.mkdir(parents=True)
    source = segment_files(directory)[0]
    data = source.read_bytes()
    end = 0
    for item in read_log(source):
        assert isinstance(item.entry, RecordBatch)
        if item.entry.base_offset > last_offset:
            break
        end = item.position + _length(data, item.position)
    (out / source.name).write_bytes(data[:end])
    return out


def test_the_real_kip848_group_as_the_broker_had_it(tmp_path):
    """Whole log: Empty at group epoch 2 (the broker reported EMPTY; Kafka's dump shows epoch 2
    after the member's tombstones) with target epoch 1. Cut after offset 29 (the member's current
    assignment at epoch 1, both partitions), it was Stable at epochs 1/1: the consumer was then
    polling and committing, which the offsets after 29 show."""
    reported = json.loads((REAL / "reported.json").read_text())
    whole = {g.group_id: g for g in describe([REAL / "__consumer_offsets-0",
                                              REAL / "__share_group_state-0"]).groups}
    g = whole["real-consumer"]
    assert g.state.upper() == reported["states"]["real-consumer"] == "EMPTY"
    assert (g.generation, g.assignment_epoch, g.members) == (2, 1, ())
    cut = describe([_cut(REAL / "__consumer_offsets-0", tmp_path / "__consumer_offsets-0", 29)],
                   groups=["real-consumer"]).groups
    assert len(cut) == 1 and (cut[0].state, cut[0].generation, cut[0].assignment_epoch) == ("Stable", 1, 1)
    (m,) = cut[0].members
    assert (m.member_id, m.client_id, m.host, m.member_epoch, m.member_state) == \
        ("VFiVxWRzTfiMWPj5wHpf/A", "rdkafka", "/127.0.0.1", 1, "STABLE")
    assert [a.rsplit("-", 1)[1] for a in m.assignment] == ["0", "1"] and m.target_assignment == m.assignment
    states, _, _ = audit_rows(rows_of([REAL / "__consumer_offsets-0"]))
    audited = next(dict(zip(STATE_NAMES, r, strict=True)) for r in states if r[2] == "real-consumer")
    assert (audited["state"], audited["generation"], audited["assignment_epoch"], audited["members"]) == \
        ("Empty", 2, 1, [])
    # Record by record (offsets 25-29 are one batch, so no cut of the file falls inside it), as
    # Kafka's ConsumerGroup.maybeUpdateGroupState sees it after each replayed record: the member
    # alone at epochs 0/0 is Stable; the group epoch (26) makes it Assigning until the target's
    # epoch (28); the current assignment (29) reconciles it; the assignment's tombstone (50) puts
    # the member at epoch -1, not reconciled, until its member record goes (52).
    from groupspec.consumer_group_state import ConsumerGroupState
    from groupspec.impl.codec.records import decode_record

    fold, states = ConsumerGroupState("real-consumer"), {}
    for item in read_log(segment_files(REAL / "__consumer_offsets-0")[0]):
        assert isinstance(item.entry, RecordBatch)
        for r in item.entry.records:
            if r.key is not None and r.key[:2] != b"\0\1" and not item.entry.is_control:
                rec = decode_record("__consumer_offsets", r.key, r.value)
                if getattr(rec.key, "group_id", None) == "real-consumer" and fold.apply(rec):
                    states[r.offset] = fold.state
    assert states == {25: "Stable", 26: "Assigning", 27: "Assigning", 28: "Reconciling", 29: "Stable",
                      50: "Reconciling", 51: "Reconciling", 52: "Empty", 53: "Empty"}


def test_the_cli_writes_a_log_and_describe_prints_kip848_states(tmp_path, capsys):
    out = tmp_path / "log"
    assert main(["gen-log", str(out), "--groups", "12", "--commits", "4", "--partitions", "2",
                 "--segment-bytes", "2048", "--compact", "1", "--gaps", "3"]) == 0
    err = capsys.readouterr().err
    assert "writer kafka-python" in err and "zstd" in err
    assert main(["describe", *(str(p) for p in sorted(out.iterdir())), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    states = {g["group_id"]: g["state"] for g in found["groups"] if g["kind"] == "consumer"}
    assert states == {"g00002": "Empty", "g00006": "Stable", "g00010": "Reconciling"}
    assert main(["gen-log", str(out)]) == 2
    assert "is not a new or empty folder" in capsys.readouterr().err
    assert main(["gen-log", str(tmp_path / "x"), "--writer", "groupspec", "--groups", "-1"]) == 2


def test_every_description_field_survives_json():
    g = describe([REAL / "__consumer_offsets-0"], groups=["real-consumer"]).groups[0]
    assert json.loads(json.dumps(dataclasses.asdict(g), default=str))["assignment_epoch"] == 1


def test_without_kafka_python_the_writer_is_a_typed_error(tmp_path, monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "kafka.record.default_records", None)  # import fails
    assert main(["gen-log", str(tmp_path / "a"), "--groups", "2"]) == 2
    assert "kafka-python is not installed" in capsys.readouterr().err
    assert not (tmp_path / "a" / "__consumer_offsets-0").exists()
    assert main(["gen-log", str(tmp_path / "b"), "--groups", "2", "--writer", "groupspec"]) == 0

"""``groupspec audit``: each planted fault found and none in clean or real logs, in-process and on
local Spark, with results that do not depend on how many Spark partitions replay the groups.

The in-process tests call the same two stages the Spark job runs (``audit_rows``); the Spark
tests (marked ``spark``, one shared session, a few hundred records) check the distribution:
reading segments in splits (one task each), the shuffle by coordinator key, the broadcast markers, the
dumps in Spark's Kafka source schema and the written tables.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from groupspec.cli import main
from groupspec.impl.codec.segment import segment_files
from groupspec.pipeline.audit_core import STATE_NAMES, VIOLATION_KINDS, audit_rows, segment_rows
from groupspec.pipeline.audit_gen import PLANTED, QUARANTINED_GROUP, write_offsets_log

REAL = Path(__file__).resolve().parents[1] / "data" / "kafka-4.2.1-real"
REAL_DIRS = [REAL / "__consumer_offsets-0", REAL / "__share_group_state-0"]


def rows_of(directories):
    rows, quarantined = [], []
    for directory in directories:
        topic, partition = directory.name.rsplit("-", 1)
        for f in segment_files(directory):
            for tag, item in segment_rows(str(f), topic, int(partition)):
                (rows if tag == "row" else quarantined).append(item)
    return rows, quarantined


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    return write_offsets_log(tmp_path_factory.mktemp("faulty"), groups=24, faults=True, seed=3,
                             segment_bytes=8192)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return write_offsets_log(tmp_path_factory.mktemp("clean"), groups=24, faults=False, seed=3,
                             segment_bytes=8192)


def test_a_clean_generated_log_has_no_finding(clean):
    rows, broken = rows_of(clean.directories)
    assert len(rows) == clean.records and not broken
    states, violations, quarantined = audit_rows(rows)
    assert violations == [] and quarantined == []
    kinds = Counter(s[STATE_NAMES.index("kind")] for s in states)
    # Every kind of group the generator writes was rebuilt, and every group once.
    assert kinds["classic"] == 12 and kinds["consumer"] == 6 and kinds["share"] == 6
    assert kinds["share-partition"] == 12
    assert len(clean.directories) == 4 and sum(len(segment_files(d)) for d in clean.directories) > 4


def test_every_planted_fault_is_found_in_its_group(faulty):
    rows, _ = rows_of(faulty.directories)
    _, violations, quarantined = audit_rows(rows)
    found = {(v.kind, v.group_id) for v in violations}
    for kind in PLANTED:
        group = faulty.planted[kind] or None  # an unknown type names no group
        assert (kind, group) in found, (kind, sorted(found))
    assert {v.kind for v in violations} == set(PLANTED)
    assert all(v.group_id is None or v.group_id.startswith("fault-") for v in violations)
    assert [q.reason.split(":")[0] for q in quarantined] == ["record does not decode"]
    assert quarantined[0].key is not None and QUARANTINED_GROUP.encode() in quarantined[0].key
    assert set(PLANTED) <= set(VIOLATION_KINDS)


def test_the_real_broker_segments_have_no_finding_and_the_reported_state():
    rows, broken = rows_of(REAL_DIRS)
    assert not broken
    states, violations, quarantined = audit_rows(rows)
    assert violations == [] and quarantined == []
    reported = json.loads((REAL / "reported.json").read_text())
    by_group = {s[STATE_NAMES.index("group_id")]: dict(zip(STATE_NAMES, s, strict=True)) for s in states
                if s[STATE_NAMES.index("kind")] != "share-partition"}
    for group, offsets in reported["offsets"].items():
        got = {str(p): o for t, p, o in by_group[group]["offsets"] if t == "real-topic"}
        assert got == offsets
        assert by_group[group]["state"].upper() == reported["states"][group]
    assert by_group["real-classic"]["generation"] == 4 and by_group["real-share"]["kind"] == "share"
    for group, b in reported["described"].items():  # the live groups too, as the broker described them
        audited = by_group[group]
        assert audited["state"] == b["state"], group
        confirmed = b.get("group_epoch", b.get("generation"))  # None: a classic group with no member
        assert confirmed is None or audited["generation"] == confirmed, group
        assert len(audited["members"]) == len(b["members"]), group
    assert len(by_group["real-live-classic"]["members"]) == 3


def test_a_fault_in_an_otherwise_clean_group_is_still_seen(clean):
    """The walk is per group: a stray assignment appended to a clean group is flagged there."""
    from groupspec.impl.codec.records import encode_record
    from groupspec.types.records import (
        ConsumerGroupTargetAssignmentMemberKey,
        ConsumerGroupTargetAssignmentMemberValue,
        CoordinatorRecord,
    )

    rows, _ = rows_of(clean.directories)
    key, value = encode_record(CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey("g00002", "x"),
                                                 ConsumerGroupTargetAssignmentMemberValue(())))
    last = max(r[4] for r in rows if r[2] == "__consumer_offsets" and r[3] == 2)
    rows.append((key, value, "__consumer_offsets", 2, last + 1, 0, 0, [], None, None, False))
    _, violations, _ = audit_rows(rows)
    assert [(v.kind, v.group_id, v.offset) for v in violations] == [("unknown_member", "g00002", last + 1)]


def test_a_damaged_segment_is_quarantined_and_the_rest_read(tmp_path, clean):
    """A batch whose bytes changed fails its CRC: quarantined with file and byte, the batches
    after it in the same file still read."""
    import shutil

    source = segment_files(clean.directories[0])[0]
    folder = tmp_path / "__consumer_offsets-0"
    folder.mkdir()
    copy = folder / source.name
    shutil.copy(source, copy)
    data = bytearray(copy.read_bytes())
    data[70] ^= 0xFF  # inside the first batch's records, under its CRC
    copy.write_bytes(bytes(data))
    good = [i for t, i in segment_rows(str(source), "__consumer_offsets", 0) if t == "row"]
    items = list(segment_rows(str(copy), "__consumer_offsets", 0))
    bad = [i for t, i in items if t == "quarantine"]
    assert len(bad) == 1 and bad[0].reason.startswith("bad batch") and bad[0].source == f"{copy}@0"
    rows = [i for t, i in items if t == "row"]
    assert 0 < len(rows) < len(good) and rows == good[len(good) - len(rows):]


def test_bad_inputs_are_one_line_before_spark(tmp_path, capsys, monkeypatch):
    from groupspec.pipeline import session

    def started(*args, **kwargs):
        raise AssertionError("Spark was started")

    monkeypatch.setattr(session, "get_spark", started)
    stray = tmp_path / "notes.txt"
    stray.write_text("hello")
    cases = [
        ([str(tmp_path / "missing")], "no such file or directory"),
        ([str(stray)], "not in a partition directory"),
        ([str(tmp_path / "missing.parquet"), "--format", "parquet"], "no such file or directory"),
        ([str(REAL_DIRS[0]), "--master", "mesos://x:5050"], "Mesos support was removed"),
        ([str(REAL_DIRS[0]), "--partitions", "0"], "--partitions: must be >= 1"),
        ([str(REAL_DIRS[0]), "--split-bytes", "-1"], "--split-bytes: must be >= 0"),
    ]
    for argv, problem in cases:
        assert main(["audit", *argv, "--out", str(tmp_path / "o")]) == 2
        _, err = capsys.readouterr()
        assert err.startswith("groupspec audit: error: ") and err.count("\n") == 1, err
        assert problem in err, err
    empty = tmp_path / "__consumer_offsets-4"
    empty.mkdir()
    assert main(["audit", str(empty), "--out", str(tmp_path / "o")]) == 2
    assert "holds no segment files" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------------------------------------
# On Spark
# ---------------------------------------------------------------------------------------------


def tables(spark, out):
    got = {}
    for name in ("state", "violations", "quarantine"):
        frame = spark.read.parquet(str(out / f"{name}.parquet"))
        got[name] = sorted(repr(tuple(r)) for r in frame.collect())
    return got


@pytest.mark.spark
def test_audit_on_spark_finds_every_fault_whatever_the_partitions(spark, faulty, tmp_path):
    from groupspec.pipeline.audit import dump_segments, read_dump, run_audit

    paths = [str(d) for d in faulty.directories]
    one = run_audit(spark, paths, tmp_path / "one", partitions=1)
    three = run_audit(spark, paths, tmp_path / "three", partitions=3)
    s = one.summary
    assert set(s["violations_by_kind"]) == set(PLANTED)
    assert s["quarantined"] == 1 and s["timing"]["records"] == faulty.records
    assert s["inputs"]["files"] > 4  # by default these small files are not cut: one task a file
    counted = ("groups", "groups_by_state", "violations_by_kind", "violation_examples",
               "quarantined", "commit_rate", "members_per_group")
    assert {k: three.summary[k] for k in counted} == {k: s[k] for k in counted}
    first = tables(spark, tmp_path / "one")
    assert first == tables(spark, tmp_path / "three")
    # Segment files read in splits (the default cuts none of these 8 KiB files: 1 MiB at least;
    # 2000 bytes cuts each in four or five) give the same tables as one task a file.
    assert s["inputs"]["read_tasks"] == s["inputs"]["files"]
    whole = run_audit(spark, paths, tmp_path / "whole", partitions=2, split_bytes=0)
    cut = run_audit(spark, paths, tmp_path / "cut", partitions=3, split_bytes=2000)
    assert cut.summary["inputs"]["read_tasks"] > 3 * s["inputs"]["files"]
    assert whole.summary["inputs"]["read_tasks"] == s["inputs"]["files"]
    for other in (whole, cut):
        assert {k: other.summary[k] for k in counted} == {k: s[k] for k in counted}
        assert other.summary["timing"]["records"] == faulty.records
    assert tables(spark, tmp_path / "whole") == first == tables(spark, tmp_path / "cut")
    assert len(first["violations"]) == sum(s["violations_by_kind"].values())
    # The same log as a Parquet dump in Spark's Kafka source schema gives the same tables, and
    # as a JSON dump the same rows (binary columns travel as base64 there).
    for fmt in ("parquet", "json"):
        dump_segments(spark, paths, str(tmp_path / f"dump.{fmt}"), fmt)
    run_audit(spark, [str(tmp_path / "dump.parquet")], tmp_path / "parquet", fmt="parquet",
              partitions=2)
    assert tables(spark, tmp_path / "parquet") == first
    as_rows = {fmt: sorted(repr(tuple(r)) for r in read_dump(
        spark, [str(tmp_path / f"dump.{fmt}")], fmt).collect()) for fmt in ("parquet", "json")}
    assert as_rows["parquet"] == as_rows["json"] and len(as_rows["json"]) == faulty.records
    html = (tmp_path / "one" / "report.html").read_text()
    assert "fenced_commit" in html and "data:image/png;base64," in html


@pytest.mark.spark
def test_audit_on_spark_of_the_real_segments_is_clean(spark, tmp_path):
    from groupspec.pipeline.audit import read_dump, run_audit
    from groupspec.types import InputError

    spark.createDataFrame([(1,)], "offset long").write.parquet(str(tmp_path / "not-kafka"))
    with pytest.raises(InputError, match="no column key, value, topic, partition"):
        read_dump(spark, [str(tmp_path / "not-kafka")], "parquet")
    outcome = run_audit(spark, [str(d) for d in REAL_DIRS], tmp_path / "real", partitions=2)
    s = outcome.summary
    assert s["violations"] == 0 and s["quarantined"] == 0
    # Six groups (three finished, three live), 2 + 3 share-partitions, 103 + 12 records of which
    # 46 offset commits (DumpLogSegments counts the same).
    assert s["groups"] == 6 and s["share_partitions"] == 5 and s["timing"]["records"] == 115
    assert sum(n for _, n in s["commit_rate"]["buckets"]) == 46


@pytest.mark.spark
def test_audit_on_spark_shows_lag_where_end_offsets_are_given(spark, tmp_path):
    import pyarrow.parquet as pq

    from groupspec.pipeline.audit import run_audit

    asked = []

    def ends(committed):
        asked.append(set(committed))
        return {tp: 25 if tp[1] == 0 else 10 for tp in committed}

    outcome = run_audit(spark, [str(d) for d in REAL_DIRS], tmp_path / "lag", partitions=2, end_offsets=ends)
    rows = [r for r in pq.read_table(tmp_path / "lag" / "state.parquet").to_pylist() if r["offsets"]]
    assert len(asked) == 1 and asked[0] == {(o["topic"], o["partition"]) for r in rows for o in r["offsets"]}
    assert rows
    for r in rows:
        got = sorted(tuple(x[k] for k in ("topic", "partition", "committed", "end_offset", "lag"))
                     for x in r["lag"])
        end = {o["partition"]: 25 if o["partition"] == 0 else 10 for o in r["offsets"]}
        assert got == sorted((o["topic"], o["partition"], o["offset"], end[o["partition"]],
                              max(0, end[o["partition"]] - o["offset"])) for o in r["offsets"])
    lag = outcome.summary["lag"]
    assert lag["total"] == sum(x["lag"] for r in rows for x in r["lag"]) > 0
    assert "Lag behind the end offsets" in outcome.report.read_text()
    # Without end offsets the column is null and the report has no lag section.
    plain = run_audit(spark, [str(REAL_DIRS[0])], tmp_path / "plain", partitions=2)
    assert plain.summary["lag"] is None
    assert all(r["lag"] is None for r in pq.read_table(tmp_path / "plain" / "state.parquet").to_pylist())


def damaged_partition(source_dir, folder):
    """The segment files of ``source_dir`` copied into ``folder``, damaged: in the first, a batch
    out of order (under the one before it) and a CRC failure; in the second, a batch length
    running past the end (the rest of that file cannot be framed); the last cut short inside its
    last batch (a torn tail)."""
    import shutil
    import struct

    from groupspec.impl.codec.segment import read_segment

    folder.mkdir()
    files = segment_files(source_dir)
    assert len(files) >= 3
    for f in files:
        shutil.copy(f, folder / f.name)
    copies = segment_files(folder)
    for n, path in enumerate(copies):
        items = list(read_segment(path))
        starts = [i.position for i in items]
        data = bytearray(path.read_bytes())
        k = len(items) // 2
        if n == 0:
            struct.pack_into(">q", data, starts[k], items[k - 1].entry.base_offset)
            data[starts[k + 3] + 70] ^= 0xFF
        elif n == 1:
            struct.pack_into(">i", data, starts[k] + 8, len(data))
        elif n == len(copies) - 1:
            data = data[:starts[-1] + 40]
        path.write_bytes(bytes(data))
    return folder


@pytest.mark.spark
def test_audit_on_spark_of_damaged_segments_whatever_the_splits(spark, tmp_path):
    """Splits cut through damage (every batch its own split; a split ending at a corrupt batch;
    a torn last batch; an out-of-order batch right after a cut, which makes the job read the rest
    of that file again): the tables and counts of one task a file, whatever the partitions."""
    from groupspec.pipeline.audit import run_audit

    # A small log with the planted faults (43 batches in 4 files of __consumer_offsets-0): one
    # batch a split is one task a batch.
    small = write_offsets_log(tmp_path / "small", groups=4, commits=3, partitions=1, faults=True,
                              seed=5, segment_bytes=2000)
    folder = damaged_partition(small.directories[0], tmp_path / "__consumer_offsets-0")
    runs = {(split, parts): run_audit(spark, [str(folder)], tmp_path / f"out-{split}-{parts}",
                                      partitions=parts, split_bytes=split)
            for split, parts in ((0, 1), (1, 3), (700, 2))}
    base = runs[(0, 1)].summary
    damage = {"bad batch": 2, "torn tail": 1, "unframed bytes": 1}
    assert damage.items() <= base["quarantined_by_reason"].items()
    counted = ("groups", "groups_by_state", "violations_by_kind", "violation_examples",
               "quarantined", "quarantined_by_reason", "commit_rate", "members_per_group")
    first = tables(spark, tmp_path / "out-0-1")
    for (split, parts), outcome in runs.items():
        s = outcome.summary
        assert {k: s[k] for k in counted} == {k: base[k] for k in counted}, (split, parts)
        assert s["timing"]["records"] == base["timing"]["records"], (split, parts)
        assert tables(spark, tmp_path / f"out-{split}-{parts}") == first, (split, parts)
    assert runs[(1, 3)].summary["inputs"]["read_tasks"] > 35
    assert base["violations"] > 0  # planted faults were read around the damage
    # One batch a split puts a cut right before the out-of-order batch: only the true last
    # offset refuses it, so the rest of that file was read again; whole files need no check.
    assert runs[(1, 3)].summary["inputs"]["read_again"] == 1
    assert base["inputs"]["read_again"] == 0 and base["timing"]["records"] > 0

"""The OffsetCommit fast path gives what the general path gives, or steps aside.

``fast_offsets`` reads OffsetCommit keys and values into tuples; the classic shard's
``replay_batches`` uses it and the general decoders for everything else. Each test here holds
the fast path against the general one: field by field on generated, mutated and real bytes, and
as whole shard states after replaying generated logs (with planted faults) and the real broker's
segments, including the error a record that does not decode must still raise.
"""

from __future__ import annotations

import struct
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import google_crc32c
import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.impl.classic_group.fast_offsets import offset_commit_at, offset_commit_key, offset_commit_value
from groupspec.impl.codec.batch import (
    BatchReader,
    ControlType,
    RawBatch,
    Record,
    RecordBatch,
    encode_batch,
    encode_control_batch,
    read_batches,
)
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.errors import CodecError
from groupspec.impl.codec.raw import RawBatchReader, raw_batch_error
from groupspec.impl.codec.records import decode_key, decode_record, encode_key, encode_value
from groupspec.impl.codec.segment import read_log, segment_files
from groupspec.impl.codec.varint import uvarint
from groupspec.impl.runtime.log import log_entries
from groupspec.pipeline.audit_gen import write_offsets_log
from groupspec.types.classic_group import ClassicConfig
from groupspec.types.records import OFFSETS_TOPIC, GroupMetadataKey, OffsetCommitKey, OffsetCommitValue

REAL = Path(__file__).resolve().parents[1] / "data" / "kafka-4.2.1-real" / f"{OFFSETS_TOPIC}-0"

int32 = st.integers(-(2**31), 2**31 - 1)
int64 = st.integers(-(2**63), 2**63 - 1)
text = st.text(max_size=140)  # past 126 characters v4's length takes two varint bytes


def fast_value(data: bytes) -> tuple[int, int, str, int, int] | None:
    """What the fast reader makes of a value, as the general decoder's fields (the entry it
    builds also carries the record's log offset, which must be the one passed)."""
    entry = offset_commit_value(data, 42)
    if entry is None:
        return None
    assert entry.log_offset == 42
    return (entry.offset, entry.leader_epoch, entry.metadata, entry.commit_timestamp_ms,
            entry.expire_timestamp_ms)


def general_key(data: bytes) -> tuple[str, str, int] | None:
    try:
        key = decode_key(OFFSETS_TOPIC, data)
    except CodecError:
        return None
    if not isinstance(key, OffsetCommitKey):
        return None
    return key.group, key.topic, key.partition


def general_value(data: bytes) -> tuple[int, int, str, int, int] | None:
    try:
        rec = decode_record(OFFSETS_TOPIC, encode_key(OffsetCommitKey("g", "t", 0)), data)
    except CodecError:
        return None
    v = rec.value
    assert isinstance(v, OffsetCommitValue)
    return v.offset, v.leader_epoch, v.metadata, v.commit_timestamp, v.expire_timestamp


def agree(fast: Any, general: Any) -> None:
    """The fast reader may decline (None) what the general one reads, never differ from it."""
    if fast is not None:
        assert fast == general


values = st.builds(OffsetCommitValue, offset=int64, leader_epoch=int32, metadata=text,
                   commit_timestamp=int64, expire_timestamp=int64,
                   topic_id=st.sampled_from([uuid.UUID(int=0), uuid.UUID(int=7),
                                             uuid.uuid5(uuid.NAMESPACE_DNS, "t")]))


@given(st.text(max_size=40), st.text(max_size=40), int32)
def test_keys_read_as_the_general_decoder_reads_them(group: str, topic: str, partition: int) -> None:
    data = encode_key(OffsetCommitKey(group, topic, partition))
    assert offset_commit_key(data) == general_key(data) == (group, topic, partition)


@given(values, st.integers(0, 4))
def test_values_of_every_version_read_as_the_general_decoder_reads_them(value: OffsetCommitValue,
                                                                        version: int) -> None:
    data = encode_value(value, version)
    general = general_value(data)
    assert general is not None
    fast = fast_value(data)
    agree(fast, general)
    if version < 4 or len(value.metadata.encode()) < 127:
        assert fast is not None  # the common shapes take the fast path


edits = st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), max_size=3)


def mutate(data: bytes, cut: int, extra: bytes, changes: list[tuple[int, int]]) -> bytes:
    buf = bytearray(data[:max(0, len(data) - cut)] + extra)
    for at, byte in changes:
        if buf:
            buf[at % len(buf)] = byte
    return bytes(buf)


@given(st.text(max_size=12), st.text(max_size=12), int32, st.integers(0, 6), st.binary(max_size=3), edits)
def test_damaged_keys_are_declined_or_read_alike(group: str, topic: str, partition: int, cut: int,
                                                 extra: bytes, changes: list[tuple[int, int]]) -> None:
    data = mutate(encode_key(OffsetCommitKey(group, topic, partition)), cut, extra, changes)
    agree(offset_commit_key(data), general_key(data))


@given(values, st.integers(0, 4), st.integers(0, 6), st.binary(max_size=3), edits)
def test_damaged_values_are_declined_or_read_alike(value: OffsetCommitValue, version: int, cut: int,
                                                   extra: bytes, changes: list[tuple[int, int]]) -> None:
    data = mutate(encode_value(value, version), cut, extra, changes)
    agree(fast_value(data), general_value(data))


def test_what_the_fast_reader_declines_has_a_reason() -> None:
    key = encode_key(OffsetCommitKey("g", "t", 1))
    assert offset_commit_key(key + b"\x00") is None  # trailing bytes: the general path refuses
    assert offset_commit_key(b"\x00\x02" + key[2:]) is None  # another record type
    assert offset_commit_key(key[:-1]) is None
    value = encode_value(OffsetCommitValue(1, 2, "m", 3), 3)
    assert fast_value(b"\x00\x05" + value[2:]) is None  # an unknown version
    assert fast_value(value[:-2]) is None
    for short in (b"", b"\x00", b"\x00\x03"):  # too short to hold a version, or anything after it
        assert fast_value(short) is None
    bad_utf8 = encode_value(OffsetCommitValue(1, 2, "\u00e9", 3), 3).replace("\u00e9".encode(), b"\xff\xfe")
    assert general_value(bad_utf8) is None and fast_value(bad_utf8) is None


def test_real_broker_commits_take_the_fast_path() -> None:
    seen = 0
    for file in segment_files(REAL):
        for item in read_log(file):
            assert isinstance(item.entry, RecordBatch)
            for r in item.entry.records:
                assert r.key is not None
                fields = offset_commit_key(r.key)
                if r.key[:2] != b"\x00\x01":
                    assert fields is None
                    continue
                assert fields is not None and fields == general_key(r.key)
                if r.value is not None:
                    fast = fast_value(r.value)
                    assert fast is not None and fast == general_value(r.value)
                seen += 1
    assert seen >= 40


# -- whole replays --------------------------------------------------------------------------------


def shard_state(coordinator: ClassicCoordinator) -> Any:
    """Everything a replay leaves in the shard, in dict order (which the views show)."""
    shard = coordinator.runtime.shard(0)
    om, gm = shard.offset_manager, shard.group_manager
    groups = [(g.group_id, g.state, g.protocol_type, g.protocol_name, g.generation_id, g.leader_id,
               [(m.member_id, m.assignment) for m in g.members.values()])
              for g in gm.groups.values()]
    return (coordinator.view(), groups,
            [(g, list(tps.items())) for g, tps in om.offsets.items()],
            [(g, [(p, list(tps.items())) for p, tps in by.items()]) for g, by in om.pending.items()],
            {p: sorted(gs) for p, gs in om.open_transactions.items()})


def replay(batches: list[RecordBatch], fast: bool) -> tuple[Any, str | None]:
    c = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1))
    c.runtime.unload(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if fast:
                c.runtime.load_with(0, lambda s: s.replay_batches(OFFSETS_TOPIC, 0, batches))
            else:
                c.runtime.load_from(0, log_entries(OFFSETS_TOPIC, 0, batches))
    except CodecError as exc:
        return None, f"{type(exc).__name__}: {exc}"
    return shard_state(c), None


def batches_of(directory: Path) -> list[RecordBatch]:
    out = []
    for file in segment_files(directory):
        for item in read_log(file, lenient=True):
            if isinstance(item.entry, RecordBatch):
                out.append(item.entry)
    return out


@pytest.mark.parametrize("faults", [False, True])
def test_generated_logs_replay_to_the_same_state(tmp_path: Path, faults: bool) -> None:
    log = write_offsets_log(tmp_path, groups=60, commits=30, partitions=2, faults=faults, seed=3)
    replayed = 0
    for directory in log.directories:
        if not directory.name.startswith(OFFSETS_TOPIC):
            continue
        batches = batches_of(directory)
        general, fast = replay(batches, False), replay(batches, True)
        assert fast == general
        replayed += general[0] is not None
    assert replayed >= 1


def test_real_segments_replay_to_the_same_state() -> None:
    batches = batches_of(REAL)
    general, fast = replay(batches, False), replay(batches, True)
    assert general[1] is None and fast == general
    assert general[0][2]  # the broker's committed offsets are there


def _commit(offset: int, group: str, partition: int, value: OffsetCommitValue | None) -> Record:
    key = encode_key(OffsetCommitKey(group, "t", partition))
    return Record(offset, 0, key, None if value is None else encode_value(value, 3))


def test_a_commit_that_does_not_decode_fails_both_paths_with_one_error() -> None:
    good = [_commit(i, "g", i % 3, OffsetCommitValue(i, 0, "", 5)) for i in range(5)]
    bad = Record(5, 0, encode_key(OffsetCommitKey("g", "t", 0)), b"\x00\x03\x00")  # truncated v3
    tail = [_commit(6, "g", 0, None)]
    data = encode_batch(good, base_offset=0) + encode_batch([bad, *tail], base_offset=5,
                                                            compression=Compression.GZIP)
    batches = [b for _, b in read_batches(data)]
    general, fast = replay(batches, False), replay(batches, True)
    assert general[0] is None and general[1] is not None and "offset 5" in general[1]
    assert fast == general


def test_transactional_commits_and_tombstones_replay_alike() -> None:
    v = OffsetCommitValue(9, 1, "x", 5)
    data = (encode_batch([_commit(0, "g", 0, v), _commit(1, "h", 1, v)], base_offset=0)
            + encode_batch([_commit(2, "g", 0, OffsetCommitValue(11, 1, "", 6))], base_offset=2,
                           producer_id=7, producer_epoch=0, is_transactional=True)
            + encode_batch([_commit(3, "g", 0, None), _commit(4, "h", 1, None)], base_offset=3)
            + encode_batch([_commit(5, "g", 1, v)], base_offset=5, producer_id=8, producer_epoch=0,
                           is_transactional=True))
    batches = [b for _, b in read_batches(data)]
    general, fast = replay(batches, False), replay(batches, True)
    assert general[1] is None and fast == general
    assert general[0][3]  # producer 8's commit is still pending


def test_a_caller_watching_the_records_hears_each_commits_group() -> None:
    """``on_commit`` (what describe passes) names the group of each fast-path commit, and
    ``on_entry`` sees the rest, so a watcher misses no record."""
    v = OffsetCommitValue(9, 1, "x", 5)
    data = (encode_batch([_commit(0, "g", 0, v), _commit(1, "h", 1, None)], base_offset=0)
            + encode_batch([_commit(2, "g", 2, v)], base_offset=2, producer_id=7, producer_epoch=0,
                           is_transactional=True))
    heard: list[str] = []
    entries: list[int] = []
    c = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1))
    c.runtime.unload(0)
    batches = [b for _, b in read_batches(data)]
    c.runtime.load_with(0, lambda s: s.replay_batches(OFFSETS_TOPIC, 0, batches, heard.append,
                                                      lambda offset, entry: entries.append(offset)))
    assert heard == ["g", "h", "g"] and entries == []


# -- the audit's stage 1 ---------------------------------------------------------------------------


def _rows(directories: list[Path]) -> list[tuple[Any, ...]]:
    from groupspec.pipeline.audit_core import segment_rows

    rows = []
    for d in directories:
        topic, number = d.name.rsplit("-", 1)
        for f in segment_files(d):
            rows += [item for tag, item in segment_rows(str(f), topic, int(number)) if tag == "row"]
    return rows


@pytest.mark.parametrize("real", [False, True])
def test_the_audit_gives_the_same_rows_with_and_without_the_fast_key(
        tmp_path: Path, real: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from groupspec.pipeline import audit_core

    if real:
        directories = sorted(p for p in REAL.parent.iterdir() if p.is_dir())
    else:
        directories = list(write_offsets_log(tmp_path, groups=40, commits=20, partitions=2,
                                             faults=True, seed=5).directories)
    rows = _rows(directories)
    fast = audit_core.audit_rows(rows)
    monkeypatch.setattr(audit_core, "offset_commit_key", lambda key: None)
    general = audit_core.audit_rows(rows)
    assert fast == general
    states, violations, quarantined = fast
    assert states
    if not real:  # the planted faults are all still found, the garbage still quarantined
        assert {v.kind for v in violations} >= set(audit_core.VIOLATION_KINDS) - {"replay_failed"}
        assert quarantined and all(q.reason for q in quarantined)


# -- describe ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["generated", "faults", "real"])
def test_describe_says_the_same_with_and_without_its_fast_reads(
        tmp_path: Path, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from groupspec import describe as describe_module
    from groupspec.impl.classic_group import fast_offsets as fast_module
    from groupspec.types import InputError

    if source == "real":
        directories = sorted(p for p in REAL.parent.iterdir() if p.is_dir())
    else:
        directories = list(write_offsets_log(tmp_path, groups=40, commits=20, partitions=2,
                                             faults=source == "faults", seed=9).directories)

    def run() -> Any:
        try:
            return describe_module.describe(directories)
        except InputError as exc:  # the planted garbage: the same typed error either way
            return str(exc)

    fast = run()
    monkeypatch.setattr(fast_module, "offset_commit_key", lambda key: None)
    monkeypatch.setattr(describe_module, "_raw_batches", describe_module._batches)  # no raw batches
    monkeypatch.setattr(describe_module, "_share_entries",
                        lambda part: describe_module._entries(part, lambda n: None))
    general = run()
    assert fast == general
    if source == "faults":
        assert isinstance(fast, str) and "does not decode" in fast
    else:
        assert not isinstance(fast, str) and fast.groups and fast.records > 0


# -- crafted records at the fast reader's edges -----------------------------------------------------
#
# Each record below sits on one of the fast reader's boundaries: a string length at the int16
# limits or past 255 bytes, a v4 metadata length at the end of one varint byte, a negative or
# null length, an unknown version, a tagged-field section that is nearly the topic id's. Random
# edits (the damaged-bytes tests above) almost never land on them, and a wrong boundary there
# either declines a record it should read (slower, invisible to a replay) or reads one the
# general decoder refuses (a state, or a quarantine reason, the general path would not give).

_HEAD4 = b"\x00\x04" + (5).to_bytes(8, "big") + (2).to_bytes(4, "big")  # v4: offset 5, epoch 2
_COMMIT_TS = (7).to_bytes(8, "big")


def _raw_key(group_length: int, group: bytes, topic_length: int, topic: bytes, partition: int = 0) -> bytes:
    return (b"\x00\x01" + group_length.to_bytes(2, "big") + group + topic_length.to_bytes(2, "big")
            + topic + partition.to_bytes(4, "big"))


#: Well-formed records the fast reader must read itself: strings whose int16 length has a high
#: byte (256 bytes and more, up to the int16 maximum), and v4 metadata of 126 bytes (length 127,
#: the last that fits one varint byte).
WELL_FORMED_KEYS = {
    "group of 256 bytes": OffsetCommitKey("g" * 256, "t", 1),
    "group of 300 bytes": OffsetCommitKey("g" * 300, "t", 2),
    "topic of 256 bytes": OffsetCommitKey("g", "t" * 256, 3),
    "topic of 300 bytes": OffsetCommitKey("g", "t" * 300, 4),
    "group of 32767 bytes (the int16 maximum)": OffsetCommitKey("g" * 32767, "t", 5),
    "topic of 32767 bytes (the int16 maximum)": OffsetCommitKey("g", "t" * 32767, 6),
}
WELL_FORMED_VALUES = {
    "v4 metadata of 126 bytes": (OffsetCommitValue(1, 2, "m" * 126, 3), 4),
    "v4 metadata of 125 bytes": (OffsetCommitValue(1, 2, "m" * 125, 3), 4),
    "v4 metadata of 126 bytes with a topic id":
        (OffsetCommitValue(1, 2, "m" * 126, 3, topic_id=uuid.UUID(int=9)), 4),
}

#: Keys the general decoder refuses and a loosened bound would read: negative int16 string
#: lengths followed by as many bytes as the length read unsigned, and a group length past the end.
BAD_KEYS = {
    "group length -32768": _raw_key(0x8000, b"a" * 0x8000, 1, b"t"),
    "group length -32767": _raw_key(0x8001, b"a" * 0x8001, 1, b"t"),
    "topic length -32768": _raw_key(1, b"g", 0x8000, b"a" * 0x8000),
    "topic length -32767": _raw_key(1, b"g", 0x8001, b"a" * 0x8001),
    "group length past the end": b"\x00\x01\x00\x08abcdef",
    "record type -1": b"\xff\xff" + encode_key(OffsetCommitKey("g", "t", 1))[2:],
    "record type -32767": b"\x80\x01" + encode_key(OffsetCommitKey("g", "t", 1))[2:],
}

_v3 = encode_value(OffsetCommitValue(1, 2, "m", 3), 3)
_v4 = encode_value(OffsetCommitValue(1, 2, "m", 3), 4)
assert _v4.endswith(b"\x00")  # no tagged field: the section is its count, 0
#: Values the general decoder refuses and a loosened bound would read.
BAD_VALUES = {
    "version 259 (first version byte not 0)": b"\x01\x03" + _v3[2:],
    "version 5 with a v4 body": b"\x00\x05" + _v4[2:],
    "v4 null metadata": _HEAD4 + b"\x00" + b"\x00" * 7 + b"\x00",
    "v4 metadata length 0x80 0x61: two varint bytes": _HEAD4 + b"\x80" + b"a" * 127 + _COMMIT_TS + b"\x00",
    "v4 metadata length 0x81 0x61: two varint bytes": _HEAD4 + b"\x81" + b"a" * 128 + _COMMIT_TS + b"\x00",
    "v4 one tagged field announced, none there": _v4[:-1] + b"\x01",
    "v4 a byte after the tagged fields": _v4 + b"\x00",
    "v4 topic id tag whose size says 17": _v4[:-1] + b"\x01\x00\x11" + b"\x00" * 16,
    "v4 topic id tag whose size says 15": _v4[:-1] + b"\x01\x00\x0f" + b"\x00" * 16,
    "v3 null metadata":
        b"\x00\x03" + (1).to_bytes(8, "big") + (2).to_bytes(4, "big") + b"\xff\xff" + b"\x00" * 7,
    "v1 metadata length -2": b"\x00\x01" + (1).to_bytes(8, "big") + b"\xff\xfe" + b"\x00" * 14,
}


@pytest.mark.parametrize("name", sorted(WELL_FORMED_KEYS))
def test_long_strings_take_the_fast_path(name: str) -> None:
    key = WELL_FORMED_KEYS[name]
    data = encode_key(key)
    assert offset_commit_key(data) == general_key(data) == (key.group, key.topic, key.partition)


@pytest.mark.parametrize("name", sorted(WELL_FORMED_VALUES))
def test_metadata_at_the_end_of_one_varint_byte_takes_the_fast_path(name: str) -> None:
    value, version = WELL_FORMED_VALUES[name]
    data = encode_value(value, version)
    fast = fast_value(data)
    assert fast is not None and fast == general_value(data)


def _replay_and_audit(key: bytes, value: bytes | None) -> None:
    """A good commit then the crafted record, replayed with and without the fast reader (the
    same state, or the same error at the same offset) and audited with and without the fast key
    (the same states, violations and quarantined records with their reasons)."""
    from groupspec.pipeline import audit_core

    good = _commit(0, "g", 0, OffsetCommitValue(1, 0, "", 5))
    batches = [b for _, b in read_batches(encode_batch([good, Record(1, 0, key, value)], base_offset=0))]
    general, fast = replay(batches, False), replay(batches, True)
    assert fast == general
    rows = [(r.key, r.value, OFFSETS_TOPIC, 0, r.offset, 0) for r in (good, Record(1, 0, key, value))]
    with_fast = audit_core.audit_rows(rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(audit_core, "offset_commit_key", lambda key: None)
        without = audit_core.audit_rows(rows)
    assert with_fast == without


@pytest.mark.parametrize("name", sorted(BAD_KEYS))
def test_keys_the_general_decoder_refuses_are_declined(name: str) -> None:
    data = BAD_KEYS[name]
    assert general_key(data) is None
    assert offset_commit_key(data) is None
    _replay_and_audit(data, encode_value(OffsetCommitValue(1, 0, "", 5), 3))


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_values_the_general_decoder_refuses_are_declined(name: str) -> None:
    data = BAD_VALUES[name]
    assert general_value(data) is None
    assert fast_value(data) is None
    _replay_and_audit(encode_key(OffsetCommitKey("g", "t", 1)), data)
    general = replay([b for _, b in read_batches(encode_batch(
        [Record(0, 0, encode_key(OffsetCommitKey("g", "t", 1)), data)], base_offset=0))], False)
    assert general[0] is None and general[1] is not None and "offset 0" in general[1]


@pytest.mark.parametrize("name", sorted(WELL_FORMED_KEYS))
def test_long_keys_replay_and_audit_alike(name: str) -> None:
    _replay_and_audit(encode_key(WELL_FORMED_KEYS[name]), encode_value(OffsetCommitValue(1, 0, "", 5), 3))


def test_a_commit_after_its_group_was_deleted_recreates_the_group_alike() -> None:
    """The fast replay stores a commit straight into its group's table once the group has
    committed offsets; after a group tombstone (which removes them) the next commit must again
    create the "simple" group, as the general replay does, and not land in a stale table."""
    from groupspec.types.records import GroupMetadataKey

    v = OffsetCommitValue(9, 1, "x", 5)
    records = [_commit(0, "g", 0, v), _commit(1, "g", 1, v), _commit(2, "h", 0, v),
               Record(3, 0, encode_key(GroupMetadataKey("g")), None),
               _commit(4, "g", 2, v), _commit(5, "h", 1, v), _commit(6, "g", 0, None)]
    batches = [b for _, b in read_batches(encode_batch(records, base_offset=0))]
    general, fast = replay(batches, False), replay(batches, True)
    assert general[1] is None and fast == general
    _view, groups, offsets, _pending, _open = general[0]
    assert [g[0] for g in groups] == ["h", "g"]  # g made again by its commit at offset 4
    assert [(g, [tp for tp, _ in tps]) for g, tps in offsets] == [("h", [("t", 0), ("t", 1)]),
                                                                  ("g", [("t", 2)])]


# -- raw batches: records replayed from the batch's bytes ------------------------------------------
#
# A RawBatchReader hands uncompressed data batches on unread and the shard frames their records
# itself (fast_offsets.replay_raw_batch). The general path (log_entries over the strict reader's
# decoded batches) is the oracle: the same shard state, or the same error (type, wording, offset),
# and the same warnings, on every log below; and the same commits heard as the Record fast path.


def _log_batches(data: bytes | Path, raw: bool) -> Iterator[RecordBatch | RawBatch]:
    reader = RawBatchReader() if raw else BatchReader()
    items = ((i.entry for i in read_log(data, reader=reader)) if isinstance(data, Path)
             else (e for _, e in reader.read(data)))
    for entry in items:
        if not isinstance(entry, RecordBatch | RawBatch):
            raise CodecError(f"not a whole batch: {entry}")
        yield entry


def replay_log(data: bytes | Path, how: str, topic: str = OFFSETS_TOPIC) -> dict[str, Any]:
    """Replay a buffer of batches (or a segment file or directory) ``how``: "general" (decoded
    batches, one entry at a time), "fast" (decoded batches, ``replay_batches``) or "raw"
    (``replay_batches`` fed by a ``RawBatchReader``)."""
    c = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1))
    c.runtime.unload(0)
    heard: list[Any] = []
    out: dict[str, Any] = {"state": None, "error": None}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if how == "general":
                c.runtime.load_from(0, log_entries(topic, 0, _log_batches(data, False)))
            else:
                batches = _log_batches(data, how == "raw")
                c.runtime.load_with(0, lambda s: s.replay_batches(
                    topic, 0, batches, heard.append, lambda offset, entry: heard.append((offset, entry))))
        except CodecError as exc:
            out["error"] = (type(exc).__name__, str(exc), exc.offset)
        else:
            out["state"] = shard_state(c)
    out["warnings"] = [str(w.message) for w in caught]
    out["heard"] = heard if out["error"] is None else None
    out["where"] = [(w.filename, w.lineno) for w in caught]
    return out


def alike(data: bytes | Path, topic: str = OFFSETS_TOPIC) -> dict[str, Any]:
    """The raw replay of ``data`` against the general one and the Record fast path."""
    general, fast, raw = (replay_log(data, how, topic) for how in ("general", "fast", "raw"))
    assert raw["state"] == general["state"]
    assert raw["error"] == general["error"]
    assert raw["warnings"] == general["warnings"] == fast["warnings"]
    assert raw["heard"] == fast["heard"] and raw["where"] == fast["where"]
    assert all(file == __file__ for file, _ in raw["where"])  # warned at replay_batches's caller
    return raw


def _rebuilt(batch: bytes, body: bytes, *, count: int | None = None, last_delta: int | None = None) -> bytes:
    """``batch`` with its records section replaced by ``body`` (and its record count or last
    offset delta by the ones given), length and CRC made right again: the records are what the
    reader must judge, not the CRC."""
    out = bytearray(batch[:61] + body)
    struct.pack_into(">i", out, 8, len(out) - 12)
    if count is not None:
        struct.pack_into(">i", out, 57, count)
    if last_delta is not None:
        struct.pack_into(">i", out, 23, last_delta)
    struct.pack_into(">I", out, 17, google_crc32c.value(bytes(out[21:])))
    return bytes(out)


def _commits(base: int, n: int, *, step: int = 1, value_version: int = 3, tombstone_every: int = 0,
             metadata: str = "") -> list[Record]:
    return [Record(base + i * step, 1000 + i, encode_key(OffsetCommitKey(f"g{i % 3}", "t", i)),
                   None if tombstone_every and i % tombstone_every == tombstone_every - 1
                   else encode_value(OffsetCommitValue(i, 1, metadata, 5), value_version))
            for i in range(n)]


def _three(middle: bytes) -> bytes:
    """A good batch, ``middle`` at offsets 10.., and a good batch after it."""
    return (encode_batch(_commits(0, 3), base_offset=0) + middle
            + encode_batch(_commits(1000, 2), base_offset=1000))


@given(st.integers(1, 6), st.booleans(), st.integers(0, 4), st.integers(0, 12), st.binary(max_size=4),
       st.lists(st.tuples(st.integers(0, 600), st.integers(0, 255)), max_size=3),
       st.sampled_from([None, -1, 0, 1, 2, 5, 7, 200]), st.sampled_from([None, -1, 0, 1, 3, 40]))
def test_raw_batches_whose_records_are_damaged_fail_as_the_strict_reader_fails(
        n: int, transactional: bool, version: int, cut: int, extra: bytes,
        changes: list[tuple[int, int]], count: int | None, last_delta: int | None) -> None:
    """The CRC made right after the damage, so every check of the record framing is reached."""
    txn: dict[str, Any] = ({"producer_id": 4, "producer_epoch": 0, "is_transactional": True}
                           if transactional else {})
    batch = encode_batch(_commits(10, n, value_version=version, tombstone_every=3), base_offset=10, **txn)
    body = mutate(batch[61:], cut, extra, changes)
    alike(_three(_rebuilt(batch, body, count=count, last_delta=last_delta)))


def _record(offset_delta: int, timestamp_delta: int, key: bytes | None, value: bytes | None,
            headers: bytes = b"\x00", attributes: bytes = b"\x00") -> bytes:
    """One record's bytes, written by hand (lengths as zig-zag varints)."""
    def varint(v: int) -> bytes:
        return uvarint((v << 1) ^ (v >> 63))

    def sized(b: bytes | None) -> bytes:
        return varint(-1) if b is None else varint(len(b)) + b

    body = attributes + varint(timestamp_delta) + varint(offset_delta) + sized(key) + sized(value) + headers
    return varint(len(body)) + body


_KEY = encode_key(OffsetCommitKey("g", "t", 1))
_VALUE = encode_value(OffsetCommitValue(1, 0, "m", 5), 3)
_HEADER_BYTES = b"\x02\x02h\x02v1"  # one header: key "h", value b"v1"

#: Batches of records written by hand, each on one check of the record framing (or its edge).
HAND_RECORDS: dict[str, tuple[list[bytes], int]] = {  # records, last offset delta
    "plain": ([_record(0, 0, _KEY, _VALUE), _record(1, 5, _KEY, None)], 1),
    "a header": ([_record(0, 0, _KEY, _VALUE, _HEADER_BYTES)], 0),
    "a header count past the record": ([_record(0, 0, _KEY, _VALUE, b"\x10")], 0),
    "a header key that is not UTF-8": ([_record(0, 0, _KEY, _VALUE, b"\x02\x02\xff\x01")], 0),
    "null key": ([_record(0, 0, None, _VALUE)], 0),
    "key length -2": ([_record(0, 0, _KEY, _VALUE)[:3] + b"\x03" + _record(0, 0, _KEY, _VALUE)[4:]], 0),
    "value length -2": ([_record(0, 0, _KEY, None)[:-2] + b"\x03\x00"], 0),
    "key past the record": ([_record(0, 0, _KEY + b"\x00" * 3, None)[:-5] + b"\x01\x00"], 0),
    "offset deltas that do not grow": ([_record(1, 0, _KEY, _VALUE), _record(1, 0, _KEY, _VALUE)], 1),
    "offset deltas going back": ([_record(2, 0, _KEY, _VALUE), _record(1, 0, _KEY, _VALUE)], 2),
    "an offset delta past the last offset delta":
        ([_record(0, 0, _KEY, _VALUE), _record(3, 0, _KEY, _VALUE)], 2),
    "an offset delta at the last offset delta":
        ([_record(0, 0, _KEY, _VALUE), _record(2, 0, _KEY, _VALUE)], 2),
    "a byte too many in a record": ([_record(0, 0, _KEY, _VALUE, b"\x00\x00")], 0),
    "a record length of 5": ([b"\x0a" + b"\x00" * 5], 0),
    "a record length past the batch": ([b"\x7e" + _record(0, 0, _KEY, _VALUE)[1:]], 0),
    "a negative record length": ([b"\x03" + _record(0, 0, _KEY, _VALUE)[1:]], 0),
    "a record length on 6 varint bytes": ([b"\xff\xff\xff\xff\xff\x01"], 0),
    "a timestamp delta on 11 varint bytes": ([b"\x1e\x00" + b"\xff" * 10 + b"\x01\x00\x01\x01\x00"], 0),
    "a timestamp delta on 3 bytes": ([_record(0, 10_000, _KEY, _VALUE)], 0),
    "a negative offset delta on two bytes": ([_record(-65, 0, _KEY, _VALUE)], 100),
    "negative offset deltas on one and two bytes":
        ([_record(-1, 0, _KEY, _VALUE), _record(-64, 0, _KEY, _VALUE)], 100),
    "timestamp deltas at the varint byte edges": (
        [_record(i, t, _KEY, _VALUE)
         for i, t in enumerate((-1, 63, 64, -64, -65, 8191, 8192, -8193, 1 << 40))], 8),
    "offset deltas at the varint byte edges": (
        [_record(d, 0, _KEY, _VALUE) for d in (0, 63, 64, 65, 8191, 8192, 8193, 1 << 20)], 1 << 20),
    "a record that ends inside its value": ([_record(0, 0, _KEY, _VALUE)[:-4]], 0),
    "bytes after the last record": ([_record(0, 0, _KEY, _VALUE), b"\x00\x00"], 0),
    "one record fewer than counted": ([_record(0, 0, _KEY, _VALUE)], 1),
    "no records where one is counted": ([], 0),
    "a record cut inside its length": ([b"\x80"], 0),
    "a record cut inside its offset delta": ([b"\x0c\x00\x00\x80"], 0),
    "a record cut inside its key length": ([b"\x0c\x00\x00\x00\x80"], 0),
    "a record cut inside its value length": ([b"\x0c\x00\x00\x00\x01\x80"], 0),
    "a record cut before its header count": ([b"\x0c\x00\x00\x00\x01\x01"], 0),
    "a record cut inside its timestamp delta": ([b"\x0c\x00\x80"], 0),
}


def _hand_batch(records: list[bytes], last_delta: int, count: int | None = None) -> bytes:
    template = encode_batch([Record(10, 0, _KEY, _VALUE)], base_offset=10)
    return _rebuilt(template, b"".join(records), count=len(records) if count is None else count,
                    last_delta=last_delta)


@pytest.mark.parametrize("name", sorted(HAND_RECORDS))
def test_raw_batches_frame_as_the_strict_reader_frames(name: str) -> None:
    records, last_delta = HAND_RECORDS[name]
    count = 1 if name.startswith(("no records", "a record cut", "one record fewer")) else None
    if name == "one record fewer than counted":
        count = 2
    alike(_three(_hand_batch(records, last_delta, count)))


#: Lengths on either side of the varint byte edges (63/64: one byte to two; 8191/8192: two to three).
_EDGES = (0, 1, 55, 56, 57, 58, 62, 63, 64, 65, 66, 126, 127, 128, 8180, 8190, 8191, 8192, 8193)


@pytest.mark.parametrize("size", _EDGES)
def test_lengths_at_the_varint_edges_replay_alike(size: int) -> None:
    """Keys, values and whole records of each size around the varint edges, each one a record
    that replays (a commit, a tombstone) or is skipped with a warning (an unknown type), so that
    every one is reached: a length read with the wrong width moves everything after it."""
    unknown = b"\x00\x63"  # type 99: skipped, warned
    records = [
        _record(0, 0, unknown + b"k" * max(0, size - 2), b"x"),  # a key of `size` bytes
        _record(1, 0, unknown, b"v" * size),  # a value of `size` bytes
    ]
    if size >= 11:  # a commit whose key is `size` bytes, and its tombstone
        key = encode_key(OffsetCommitKey("g" * (size - 11), "t", 1))
        records += [_record(2, 0, key, _VALUE), _record(3, 0, key, None)]
    if size >= 24:  # a commit whose value (v3) is `size` bytes
        records.append(_record(4, 0, _KEY, encode_value(OffsetCommitValue(1, 0, "m" * (size - 24), 5), 3)))
    # A record whose body (what its length counts) is `size` bytes, when that can be: its
    # attributes, two deltas, the key's length and bytes, a null value and no headers.
    for pad in range(max(0, size - 7)):
        key = unknown + b"p" * pad
        if 5 + len(uvarint(2 * len(key))) + len(key) == size:
            records.append(_record(5, 0, key, None))
    records.append(_record(6, 0, _KEY, _VALUE))
    out = alike(_three(_hand_batch(records, 6)))
    assert out["error"] is None and len(out["warnings"]) == sum(unknown in r for r in records)


def test_raw_reader_hands_on_what_it_can_and_decodes_the_rest() -> None:
    """Uncompressed data batches (transactional, empty, of one record, of minimal records) come
    raw, with the header's fields and their place; compressed and control batches decoded."""
    plain = encode_batch(_commits(0, 3), base_offset=0)
    txn = encode_batch(_commits(3, 2), base_offset=3, producer_id=9, producer_epoch=2, is_transactional=True)
    empty = encode_batch([], base_offset=5, last_offset_delta=0)
    one = encode_batch(_commits(6, 1), base_offset=6)
    minimal = encode_batch([Record(7 + i, 0, None, None) for i in range(4)], base_offset=7)
    gz = encode_batch(_commits(11, 2), base_offset=11, compression=Compression.GZIP)
    marker = encode_control_batch(ControlType.COMMIT, offset=13, timestamp=0, producer_id=9, producer_epoch=2,
                                  coordinator_epoch=1)
    data = plain + txn + empty + one + minimal + gz + marker
    raw = [e for _, e in RawBatchReader().read(data)]
    strict = [e for _, e in BatchReader().read(data)]
    assert [type(e).__name__ for e in raw] == ["RawBatch"] * 5 + ["RecordBatch"] * 2
    assert raw[5:] == strict[5:]
    assert minimal[57:61] == (4).to_bytes(4, "big") and len(minimal) == 61 + 4 * 7  # count fills the length
    position = 0
    for entry, decoded in zip(raw[:5], strict[:5], strict=True):
        assert isinstance(entry, RawBatch)
        size = 12 + int.from_bytes(data[position + 8:position + 12], "big")
        assert (entry.base_offset, entry.last_offset_delta, entry.is_transactional, entry.producer_id,
                entry.producer_epoch, entry.count) == (
            decoded.base_offset, decoded.last_offset_delta, decoded.is_transactional, decoded.producer_id,
            decoded.producer_epoch, len(decoded.records))
        assert (entry.position, entry.total, entry.start, entry.end) == (position, size, position + 61,
                                                                         position + size)
        assert entry.buf is data and entry.source is None and raw_batch_error(entry) is None
        position += size
    assert position == len(data) - len(gz) - len(marker)
    alike(data)


@pytest.mark.parametrize("case", ["overlap by one", "same base", "before the last", "negative base",
                                  "bad crc", "negative count", "negative last delta",
                                  "count past the length", "count one past the length",
                                  "crc one below", "crc one above"])
def test_batches_the_raw_reader_refuses_fail_as_the_strict_reader_fails(case: str) -> None:
    first = encode_batch(_commits(0, 3), base_offset=0)
    base = {"overlap by one": 2, "same base": 0, "before the last": 1, "negative base": -5}.get(case, 3)
    second = bytearray(encode_batch(_commits(3, 2), base_offset=3))
    struct.pack_into(">q", second, 0, base)  # not covered by the CRC
    if case == "bad crc":
        second[-1] ^= 1
    elif case.startswith("crc one"):  # a stored CRC just under and just over the computed one
        computed = google_crc32c.value(bytes(second[21:]))
        struct.pack_into(">I", second, 17, (computed + (1 if case.endswith("above") else -1)) % (1 << 32))
    elif case == "count one past the length":
        struct.pack_into(">i", second, 57, (len(second) - 61) // 7 + 1)
        struct.pack_into(">I", second, 17, google_crc32c.value(bytes(second[21:])))
    elif case in ("negative count", "negative last delta", "count past the length"):
        at, value = {"negative count": (57, -1), "negative last delta": (23, -1),
                     "count past the length": (57, 1000)}[case]
        struct.pack_into(">i", second, at, value)
        struct.pack_into(">I", second, 17, google_crc32c.value(bytes(second[21:])))
    data = first + bytes(second) + encode_batch(_commits(100, 1), base_offset=100)
    out = alike(data)
    assert out["error"] is not None
    with pytest.raises(CodecError) as raised:
        list(RawBatchReader().read(data))
    assert (type(raised.value).__name__, str(raised.value), raised.value.offset) == out["error"]


def test_a_batch_right_after_the_last_is_read_raw() -> None:
    data = encode_batch(_commits(0, 3), base_offset=0) + encode_batch(_commits(3, 2), base_offset=3)
    assert [type(e).__name__ for _, e in RawBatchReader(after_offset=-1).read(data)] == ["RawBatch"] * 2
    with pytest.raises(CodecError, match="does not come after the last offset 2"):
        list(RawBatchReader(after_offset=2).read(data))


def test_a_record_that_does_not_decode_yields_to_a_framing_error_later_in_its_batch() -> None:
    """The strict reader frames the whole batch before replaying it: a framing error after a
    record that does not decode is the error, as is the decode error when the batch frames."""
    bad_value = _record(1, 0, _KEY, b"\x00\x03\x00")  # a truncated v3 value
    framed = _hand_batch([_record(0, 0, _KEY, _VALUE), bad_value, _record(2, 0, _KEY, _VALUE)], 2)
    out = alike(_three(framed))
    assert out["error"] is not None and out["error"][2] == 11
    unframed = _hand_batch([_record(0, 0, _KEY, _VALUE), bad_value, _record(2, 0, _KEY, _VALUE) + b"\x00"], 2)
    out = alike(_three(unframed))
    assert out["error"] is not None and out["error"][2] == 10 and "bytes are left" in out["error"][1]


def test_raw_batch_errors_name_the_file_as_the_strict_reader_does(tmp_path: Path) -> None:
    directory = tmp_path / f"{OFFSETS_TOPIC}-0"
    directory.mkdir()
    bad = _hand_batch([_record(0, 0, _KEY, _VALUE, b"\x00\x00")], 0)
    (directory / "00000000000000000000.log").write_bytes(_three(bad))
    out = alike(directory)
    assert out["error"] is not None
    assert str(directory) in out["error"][1] and "batch at byte" in out["error"][1]
    assert alike(directory / "00000000000000000000.log")["error"] == out["error"]


def test_transactions_markers_and_compressed_batches_replay_alike() -> None:
    v = OffsetCommitValue(9, 1, "x", 5)
    data = (encode_batch([_commit(0, "g", 0, v), _commit(1, "h", 1, v)], base_offset=0)
            + encode_batch([_commit(2, "g", 0, OffsetCommitValue(11, 1, "", 6)), _commit(3, "h", 0, v)],
                           base_offset=2, producer_id=7, producer_epoch=0, is_transactional=True)
            + encode_batch([_commit(4, "g", 1, v)], base_offset=4, producer_id=8, producer_epoch=0,
                           is_transactional=True)
            + encode_control_batch(ControlType.COMMIT, offset=5, timestamp=0, producer_id=7, producer_epoch=0,
                                   coordinator_epoch=1)
            + encode_batch([_commit(6, "g", 0, None), _commit(7, "h", 1, None)], base_offset=6,
                           compression=Compression.LZ4)
            + encode_batch([_commit(8, "g", 2, v)], base_offset=8, producer_id=8, producer_epoch=0,
                           is_transactional=True, compression=Compression.ZSTD)
            + encode_control_batch(ControlType.ABORT, offset=9, timestamp=0, producer_id=8, producer_epoch=0,
                                   coordinator_epoch=1)
            + encode_batch([_commit(10, "g", 0, v), _commit(11, "g", 0, None), _commit(12, "g", 3, v),
                            Record(13, 0, encode_key(GroupMetadataKey("g")), None), _commit(14, "g", 4, v)],
                           base_offset=10)
            + encode_batch([_commit(15, "k", 0, v)], base_offset=15, producer_id=9, producer_epoch=0,
                           is_transactional=True))
    out = alike(data)
    assert out["error"] is None and out["state"][3]  # producer 9's commit is still pending
    assert any(isinstance(h, tuple) for h in out["heard"]) and "g" in out["heard"]


def test_a_raw_batch_on_another_topic_takes_the_general_path() -> None:
    """Type 1 on __share_group_state is not an OffsetCommit: no raw commit reading there."""
    from groupspec.types.records import SHARE_STATE_TOPIC

    out = alike(encode_batch(_commits(0, 4), base_offset=0), topic=SHARE_STATE_TOPIC)
    assert not any(isinstance(h, str) for h in out["heard"] or [])


@pytest.mark.parametrize("writer", ["kafka-python", "groupspec"])
@pytest.mark.parametrize("faults", [False, True])
def test_generated_logs_replay_raw_to_the_same_state(tmp_path: Path, faults: bool, writer: str) -> None:
    log = write_offsets_log(tmp_path, groups=60, commits=30, partitions=2, faults=faults, seed=3,
                            writer=writer)
    raw = seen = 0
    for directory in log.directories:
        if directory.name.startswith(OFFSETS_TOPIC):
            out = alike(directory)
            seen += out["state"] is not None
            raw += sum(isinstance(b, RawBatch) for b in _log_batches(directory, True))
    assert raw >= 10 and seen == (1 if faults else 2)  # the planted garbage fails one partition


def test_real_segments_replay_raw_to_the_same_state() -> None:
    out = alike(REAL)
    assert out["error"] is None and out["state"][2]


def test_a_loaded_coordinator_replays_its_log_raw() -> None:
    """The runtime's load (every coordinator restart) reads its log through the raw reader."""
    from groupspec.impl.runtime import log as log_module

    calls: list[int] = []
    real = log_module.RawBatchReader

    class Counting(real):  # type: ignore[misc, valid-type]
        def _batch(self, buf: bytes, pos: int, total: int, limit: int) -> RecordBatch | RawBatch:
            found = super()._batch(buf, pos, total, limit)
            calls.append(isinstance(found, RawBatch))
            return found

    c = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1))
    log = c.runtime._logs[0]
    log.append_raw(encode_batch(_commits(0, 3), base_offset=0))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(log_module, "RawBatchReader", Counting)
        c.runtime.unload(0)
        c.runtime.load(0)
    assert calls == [True]
    assert c.runtime.shard(0).offset_manager.offsets


# -- offset_commit_at: key and value read in one call from a batch's bytes --------------------------


def _at(key: bytes, value: bytes | None, before: bytes, after: bytes) -> Any:
    buf = before + key + (value or b"") + after
    k, kend = len(before), len(before) + len(key)
    v, vend = (-1, -1) if value is None else (kend, kend + len(value))
    return offset_commit_at(buf, k, kend, v, vend, 42)


def _split(key: bytes, value: bytes | None) -> Any:
    """What the two one-field readers say, as offset_commit_at's answer."""
    fields = offset_commit_key(key)
    if fields is None:
        return None
    if value is None:
        return (*fields, None)
    entry = offset_commit_value(value, 42)
    return None if entry is None else (*fields, entry)


_junk = st.sampled_from([b"", b"\x00", b"\x00" * 20, b"\x01" * 20, b"\x00\x01\x00\x10" + b"\x00" * 20,
                         b"\xff" * 30])


@given(st.text(max_size=12), st.text(max_size=12), int32, values, st.integers(0, 4), st.booleans(),
       _junk, _junk)
def test_key_and_value_read_in_one_call_as_the_two_readers_read_them(
        group: str, topic: str, partition: int, value: OffsetCommitValue, version: int, tombstone: bool,
        before: bytes, after: bytes) -> None:
    key = encode_key(OffsetCommitKey(group, topic, partition))
    data = None if tombstone else encode_value(value, version)
    got = _at(key, data, before, after)
    assert got == _split(key, data)
    if data is not None and got is not None:
        assert got[3].log_offset == 42 and got[3] == offset_commit_value(data, 42)


@given(st.text(max_size=12), values, st.integers(0, 4), st.integers(0, 6), st.binary(max_size=3), edits,
       st.integers(0, 6), st.binary(max_size=3), edits, _junk, _junk)
def test_damaged_keys_and_values_read_in_one_call_as_the_two_readers_read_them(
        group: str, value: OffsetCommitValue, version: int, kcut: int, kextra: bytes,
        kchanges: list[tuple[int, int]], vcut: int, vextra: bytes, vchanges: list[tuple[int, int]],
        before: bytes, after: bytes) -> None:
    key = mutate(encode_key(OffsetCommitKey(group, "t", 3)), kcut, kextra, kchanges)
    data = mutate(encode_value(value, version), vcut, vextra, vchanges)
    assert _at(key, data, before, after) == _split(key, data)


@pytest.mark.parametrize("name", sorted(BAD_VALUES) + sorted(WELL_FORMED_VALUES))
def test_edge_values_read_in_one_call_as_alone(name: str) -> None:
    data = BAD_VALUES[name] if name in BAD_VALUES else encode_value(*WELL_FORMED_VALUES[name])
    key = encode_key(OffsetCommitKey("g", "t", 1))
    for before, after in ((b"", b""), (b"\x00" * 3, b"\x00" * 40), (b"\x01", b"\x01\x00\x10" + b"\x00" * 30)):
        assert _at(key, data, before, after) == _split(key, data)
    assert (_at(key, data, b"", b"") is None) == (name in BAD_VALUES)


@pytest.mark.parametrize("name", sorted(BAD_KEYS) + sorted(WELL_FORMED_KEYS))
def test_edge_keys_read_in_one_call_as_alone(name: str) -> None:
    key = BAD_KEYS[name] if name in BAD_KEYS else encode_key(WELL_FORMED_KEYS[name])
    for before, after in ((b"", b""), (b"\x00" * 3, b"\x00" * 40)):
        assert _at(key, _VALUE, before, after) == _split(key, _VALUE)
        assert _at(key, None, before, after) == _split(key, None)
    assert (_at(key, None, b"", b"") is None) == (name in BAD_KEYS)


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4])
def test_values_whose_third_byte_is_a_version_read_in_one_call_as_alone(version: int) -> None:
    """An offset whose high byte is 4 (the byte after the version) must not make any version
    read as v4 inline."""
    key = encode_key(OffsetCommitKey("g", "t", 1))
    for offset in (4 << 56, (4 << 56) + 5):
        data = encode_value(OffsetCommitValue(offset, 2, "", 3), version)
        assert data[2] == 4
        got = _at(key, data, b"", b"\x00" * 30)
        assert got == _split(key, data) and got is not None and got[3].offset == offset


@pytest.mark.parametrize("metadata", ["", "ab"])
@pytest.mark.parametrize("topic_id", [uuid.UUID(int=0), uuid.UUID(int=3)])
def test_cut_v4_values_read_in_one_call_as_alone(metadata: str, topic_id: uuid.UUID) -> None:
    """v4 values cut at every byte, with what followed them or other bytes after them: where
    the inline v4 read starts, and each of its bounds (no metadata is read in one go)."""
    key = encode_key(OffsetCommitKey("g", "t", 1))
    full = encode_value(OffsetCommitValue(1, 2, metadata, 3, topic_id=topic_id), 4)
    for size in range(len(full) + 1):
        for after in (b"", full[size:], b"\x00" * 30):
            assert _at(key, full[:size], b"", after) == _split(key, full[:size])
    got = _at(key, full, b"", b"")
    assert got is not None and got[3].metadata == metadata and got[3].commit_timestamp_ms == 3

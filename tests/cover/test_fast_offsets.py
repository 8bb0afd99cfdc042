"""The OffsetCommit fast path gives what the general path gives, or steps aside.

``fast_offsets`` reads OffsetCommit keys and values into tuples; the classic shard's
``replay_batches`` uses it and the general decoders for everything else. Each test here holds
the fast path against the general one: field by field on generated, mutated and real bytes, and
as whole shard states after replaying generated logs (with planted faults) and the real broker's
segments, including the error a record that does not decode must still raise.
"""

from __future__ import annotations

import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.impl.classic_group.fast_offsets import offset_commit_key, offset_commit_value
from groupspec.impl.codec.batch import Record, RecordBatch, encode_batch, read_batches
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.errors import CodecError
from groupspec.impl.codec.records import decode_key, decode_record, encode_key, encode_value
from groupspec.impl.codec.segment import read_log, segment_files
from groupspec.impl.runtime.log import log_entries
from groupspec.pipeline.audit_gen import write_offsets_log
from groupspec.types.classic_group import ClassicConfig
from groupspec.types.records import OFFSETS_TOPIC, OffsetCommitKey, OffsetCommitValue

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
    from groupspec.impl.classic_group import shard as shard_module
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
    monkeypatch.setattr(shard_module, "offset_commit_key", lambda key: None)
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

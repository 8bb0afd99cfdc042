"""Log segments: the writer's files read back, directory order, partial tails, and mutated segments.

The mutation tests state what the reader must do with each damaged byte. The CRC32C covers a
batch from its attributes to its end, and it detects every change confined to 4 consecutive
bytes, so a single flipped byte there is always caught. It does not cover the base offset
(bytes 0-7), the batch length (8-11), the partition leader epoch (12-15), the magic (16) or the
CRC itself (17-20); for those the reader relies on offset order, the magic check, the CRC
comparison and the framing, and the expectations below say exactly what comes out.
"""

from __future__ import annotations

import dataclasses
import struct
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from groupspec.impl.codec.batch import (
    BadBatch,
    PartialBatch,
    Record,
    RecordBatch,
    decode_batch,
    encode_batch,
)
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.errors import (
    CodecError,
    CorruptBatchError,
    MalformedError,
    UnsupportedMagicError,
)
from groupspec.impl.codec.segment import (
    SegmentWriter,
    base_offset_of,
    read_log,
    read_segment,
    segment_file_name,
    segment_files,
    write_segment,
)
from groupspec.types import InputError

with warnings.catch_warnings():  # kafka-python 3.0.12 loads its schemas through a deprecated importlib call
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.record.memory_records import MemoryRecords

COMMIT_KEY = b"\x00\x01\x00\x09testgroup\x00\x06orders\x00\x00\x00\x03"


def batch_bytes(n: int, *, first: int = 0, compression: Compression = Compression.NONE, **kwargs) -> bytes:
    value = b"\x00\x03" + bytes(20)
    records = [Record(first + i, 1_700_000_000_000 + i, COMMIT_KEY + bytes([i % 256]), value)
               for i in range(n)]
    return encode_batch(records, base_offset=first, compression=compression, **kwargs)


def entries(items):
    return [(item.position, item.entry) for item in items]


# --- (7) the writer's output read back --------------------------------------------------------


def test_written_segments_read_back(tmp_path):
    batches = [batch_bytes(n, compression=c) for n, c in zip([3, 1, 5, 2, 4], list(Compression), strict=True)]
    assert [len(b) for b in batches] == [226, 115, 170, 135, 136]
    # 226 + 115 fit in 350 bytes, 170 more do not: roll at 1004; 170 + 135 fit, 136 more do not: roll at 1011.
    files = write_segment(tmp_path / "__consumer_offsets-7", batches, base_offset=1000, segment_bytes=350,
                          partition_leader_epoch=5)
    assert [f.name for f in files] == [segment_file_name(b) for b in (1000, 1004, 1011)]
    assert files[0].name == "00000000000000001000.log"
    read = [item.entry for item in read_log(tmp_path / "__consumer_offsets-7")]
    assert all(isinstance(b, RecordBatch) for b in read)
    assert [b.base_offset for b in read] == [1000, 1003, 1004, 1009, 1011]
    assert [len(b.records) for b in read] == [3, 1, 5, 2, 4]
    assert [r.offset for b in read for r in b.records] == list(range(1000, 1015))
    assert {b.partition_leader_epoch for b in read} == {5}
    # The files hold the batches byte for byte, but for the base offset and leader epoch.
    expected = []
    for batch, base in zip(batches, [1000, 1003, 1004, 1009, 1011], strict=True):
        patched = bytearray(batch)
        struct.pack_into(">qii", patched, 0, base, len(batch) - 12, 5)
        expected.append(bytes(patched))
    assert b"".join(f.read_bytes() for f in files) == b"".join(expected)
    for f in files:
        assert f.stat().st_size <= 350


def test_kafka_python_reads_written_segments(tmp_path):
    batches = [batch_bytes(4, compression=c) for c in Compression]
    [file] = write_segment(tmp_path, batches, base_offset=50)
    theirs = list(MemoryRecords(file.read_bytes()))
    assert [b.base_offset for b in theirs] == [50, 54, 58, 62, 66]
    assert all(b.validate_crc() for b in theirs)
    ours = [r for item in read_segment(file) for r in item.entry.records]
    assert [(r.offset, r.key, r.value) for b in theirs for r in b] == [
        (r.offset, r.key, r.value) for r in ours]


def test_segments_roll_before_relative_offsets_overflow(tmp_path):
    first = batch_bytes(1)
    wide = encode_batch([Record(0, 0, b"k", b"v")], last_offset_delta=(1 << 31) - 1)
    files = write_segment(tmp_path, [first, wide, first])
    assert [base_offset_of(f) for f in files] == [0, 1, (1 << 31) + 1]


def test_writer_refuses_to_overwrite_and_bad_batches(tmp_path):
    write_segment(tmp_path, [batch_bytes(2)])
    with pytest.raises(InputError, match=r"00000000000000000000\.log") as info:
        write_segment(tmp_path, [batch_bytes(2)])
    assert "exists" in info.value.problem
    with SegmentWriter(tmp_path / "other") as writer, pytest.raises(InputError, match="CRC32C") as info:
        writer.append(batch_bytes(2)[:-1] + b"\x01")
    assert info.value.field == "batch"
    with pytest.raises(InputError, match="segment_bytes"):
        SegmentWriter(tmp_path, segment_bytes=0)


def test_empty_logs(tmp_path):
    [file] = write_segment(tmp_path / "p-0", [], base_offset=42)
    assert file.name == "00000000000000000042.log" and file.read_bytes() == b""
    assert list(read_log(tmp_path / "p-0")) == []
    (tmp_path / "empty-0").mkdir()
    assert list(read_log(tmp_path / "empty-0")) == []
    with pytest.raises(InputError, match="no such file"):
        list(read_log(tmp_path / "missing"))


def test_directory_order_and_ignored_files(tmp_path):
    directory = tmp_path / "__share_group_state-3"
    directory.mkdir()
    bases = [0, 9, 10, 100, 12345678901]
    for base in reversed(bases):  # written last-first; names of different widths sort as numbers
        name = f"{base}.log" if base in (9, 10) else segment_file_name(base)
        (directory / name).write_bytes(batch_bytes(1, first=base))
    for junk in ("00000000000000000000.index", "00000000000000000000.timeindex",
                 "00000000000000000009.snapshot", "leader-epoch-checkpoint", "partition.metadata",
                 "00000000000000000001.log.deleted", "00000000000000000002.log.cleaned", "notes.log"):
        (directory / junk).write_bytes(b"\xff" * 40)
    (directory / "00000000000000000077.log").mkdir()  # a directory with a segment's name is no segment
    assert [base_offset_of(f) for f in segment_files(directory)] == bases
    assert [item.entry.base_offset for item in read_log(directory)] == bases
    assert [item.file.name for item in read_log(directory)][1:3] == ["9.log", "10.log"]


def test_batches_must_not_precede_their_segment(tmp_path):
    (tmp_path / segment_file_name(100)).write_bytes(batch_bytes(2, first=99))
    with pytest.raises(MalformedError, match="after the last offset 99"):
        list(read_log(tmp_path))
    [item] = read_log(tmp_path, lenient=True)
    assert isinstance(item.entry, BadBatch)


def test_offsets_must_grow_across_segments(tmp_path):
    (tmp_path / segment_file_name(0)).write_bytes(batch_bytes(5))
    (tmp_path / segment_file_name(3)).write_bytes(batch_bytes(2, first=3))
    with pytest.raises(MalformedError, match="after the last offset 4"):
        list(read_log(tmp_path))


def test_errors_name_the_file_and_position(tmp_path):
    good = batch_bytes(2)
    bad = bytearray(batch_bytes(2, first=2))
    bad[-3] ^= 0x10
    path = tmp_path / segment_file_name(0)
    path.write_bytes(good + bytes(bad))
    with pytest.raises(CorruptBatchError) as info:
        list(read_segment(path))
    assert str(path) in str(info.value) and f"byte {len(good)}" in str(info.value)
    assert info.value.offset == 2


# --- (6) a partial batch at the end of a segment ----------------------------------------------


def test_partial_final_batch_is_reported_and_ends_the_segment(tmp_path):
    batches = [batch_bytes(3), batch_bytes(4, first=3), batch_bytes(2, first=7)]
    data = b"".join(batches)
    cut = len(batches[0]) + len(batches[1]) + 30
    directory = tmp_path / "__consumer_offsets-0"
    directory.mkdir()
    (directory / segment_file_name(0)).write_bytes(data[:cut])  # a broker killed mid-write, then restarted
    (directory / segment_file_name(7)).write_bytes(batches[2])
    items = list(read_log(directory))
    assert [type(i.entry) for i in items] == [RecordBatch, RecordBatch, PartialBatch, RecordBatch]
    offsets = [r.offset for i in items if isinstance(i.entry, RecordBatch) for r in i.entry.records]
    assert offsets == list(range(9))
    tail = items[2]
    assert tail.file.name == segment_file_name(0)
    assert tail.entry == PartialBatch(len(batches[0]) + len(batches[1]), 30, len(batches[2]), 7)
    assert tail.position == tail.entry.position
    assert "30 of" in tail.entry.describe()


# --- (4) mutations of valid segments ----------------------------------------------------------


@st.composite
def logs(draw):
    """1-4 batches of 0-5 records in any compression, offsets growing with gaps: (bytes, batches)."""
    out = []
    offset = draw(st.integers(0, 3))
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 5))
        records = []
        for i in range(n):
            records.append(Record(offset + i, 1_700_000_000_000 + draw(st.integers(-3, 3)),
                                  draw(st.none() | st.binary(max_size=12)), draw(st.binary(max_size=12)),
                                  (("h", b"1"),) if draw(st.booleans()) else ()))
        extra = draw(st.integers(0, 2))
        compression = draw(st.sampled_from(list(Compression)))
        out.append(encode_batch(records, base_offset=offset, compression=compression,
                                last_offset_delta=max(n - 1, 0) + extra,
                                producer_id=draw(st.sampled_from([-1, 7]))))
        offset += max(n - 1, 0) + extra + 1 + draw(st.integers(0, 2))
    return b"".join(out), [decode_batch(b) for b in out], [len(b) for b in out]


def walk(data: bytes, lenient: bool):
    """The (position, entry) pairs read from ``data`` as a segment file, and the error that ended it."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / segment_file_name(0)
        path.write_bytes(data)
        found = []
        try:
            for item in read_segment(path, lenient=lenient):
                found.append((item.position, item.entry))
        except CodecError as exc:
            return found, exc
    return found, None


def check_common(data, lenient_found, lenient_error, strict_found, strict_error):
    """What holds for any damage: typed errors, bounded work, strict = lenient up to its first bad batch."""
    for found in (lenient_found, strict_found):
        assert len(found) <= len(data) // 26 + 1  # every step consumes a whole header or ends the walk
    first_bad = next((k for k, (_, e) in enumerate(lenient_found) if isinstance(e, BadBatch)), None)
    if first_bad is None:
        assert strict_found == lenient_found
        assert type(strict_error) is type(lenient_error)
    else:
        assert strict_found == lenient_found[:first_bad]
        assert type(strict_error) is type(lenient_found[first_bad][1].error)
        assert strict_error.offset == lenient_found[first_bad][1].offset


def only_original_batches(found, allowed):
    """Every batch read whole is an original batch at a position it may be at: no silent new records."""
    for position, entry in found:
        if isinstance(entry, RecordBatch):
            assert allowed.get(position) == entry, f"batch at {position} is not the original there"


@given(logs(), st.data())
def test_flipped_bytes(log, data):
    raw, originals, sizes = log
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    k = data.draw(st.integers(0, len(starts) - 1), label="batch")
    regions = [(0, 7), (8, 11), (12, 15), (16, 16), (17, 20), (21, sizes[k] - 1)]
    low, high = data.draw(st.sampled_from(regions), label="region")
    index = starts[k] + data.draw(st.integers(low, high), label="byte")
    mask = data.draw(st.integers(1, 255), label="mask")
    mutated = bytearray(raw)
    mutated[index] ^= mask
    found, error = walk(bytes(mutated), lenient=True)
    check_common(mutated, found, error, *walk(bytes(mutated), lenient=False))

    field = index - starts[k]
    event("flipped: " + ("base offset" if field < 8 else "length" if field < 12 else "leader epoch"
                         if field < 16 else "magic" if field == 16 else "crc" if field < 21 else "covered"))
    expected: list[object] = list(originals)
    if 8 <= field < 12:  # batch length: the framing moves; what was read before k is intact
        assert found[:k] == list(zip(starts[:k], originals[:k], strict=True))
        others = {s: b for j, (s, b) in enumerate(zip(starts, originals, strict=True)) if j != k}
        only_original_batches(found, others)
        return
    assert error is None
    if field < 8:  # base offset: caught by offset order, unless the order still holds
        old = originals[k]
        new_base = struct.unpack_from(">q", mutated, starts[k])[0]
        previous = originals[k - 1].last_offset if k else None
        if new_base < 0 or (previous is not None and new_base <= previous):
            expected[k] = MalformedError
        else:
            shift = new_base - old.base_offset
            shifted = tuple(dataclasses.replace(r, offset=r.offset + shift) for r in old.records)
            expected[k] = dataclasses.replace(old, base_offset=new_base, records=shifted)
            # Every later batch is checked against the last accepted one: the shifted batch k.
            for j in range(k + 1, len(originals)):
                if originals[j].base_offset <= new_base + old.last_offset_delta:
                    expected[j] = MalformedError
    elif field < 16:  # partition leader epoch: not checked, changes no record
        epoch = struct.unpack_from(">i", mutated, starts[k] + 12)[0]
        expected[k] = dataclasses.replace(originals[k], partition_leader_epoch=epoch)
    else:  # the magic, the CRC, or a covered byte
        expected[k] = UnsupportedMagicError if field == 16 else CorruptBatchError
    assert [p for p, _ in found] == starts
    for (_, entry), want in zip(found, expected, strict=True):
        if isinstance(want, type):
            assert isinstance(entry, BadBatch) and type(entry.error) is want
        else:
            assert entry == want


@given(logs(), st.data())
def test_truncated_segments(log, data):
    raw, originals, sizes = log
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    cut = data.draw(st.integers(0, len(raw)), label="cut")
    found, error = walk(raw[:cut], lenient=True)
    check_common(raw[:cut], found, error, *walk(raw[:cut], lenient=False))
    assert error is None
    whole = [(s, b) for s, b, n in zip(starts, originals, sizes, strict=True) if s + n <= cut]
    assert found[:len(whole)] == whole
    rest = found[len(whole):]
    if cut in starts or cut == len(raw):
        assert rest == []
    else:
        k = len(whole)
        present = cut - starts[k]
        needed = sizes[k] if present >= 12 else 17
        offset = originals[k].base_offset if present >= 8 else None
        assert rest == [(starts[k], PartialBatch(starts[k], present, needed, offset))]


@given(logs(), st.data())
def test_inserted_bytes(log, data):
    raw, originals, sizes = log
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    at = data.draw(st.integers(0, len(raw)), label="at")
    extra = data.draw(st.binary(min_size=1, max_size=24), label="extra")
    mutated = raw[:at] + extra + raw[at:]
    # The same bytes arise from inserting a rotation of ``extra`` further left whenever the byte
    # before ``at`` equals extra's last one (b"\x00" after a 0x00 byte), and further right
    # whenever the byte at ``at`` equals extra's first one. A batch that any of these insertions
    # leaves whole (in place, or merely moved) is the original.
    left, left_extra = at, extra
    while left > 0 and raw[left - 1] == left_extra[-1]:
        left -= 1
        left_extra = raw[left:left + 1] + left_extra[:-1]
    right, right_extra = at, extra
    while right < len(raw) and raw[right] == right_extra[0]:
        right_extra = right_extra[1:] + raw[right:right + 1]
        right += 1
    assert raw[:left] + left_extra + raw[left:] == mutated == raw[:right] + right_extra + raw[right:]
    at = left
    found, error = walk(mutated, lenient=True)
    check_common(mutated, found, error, *walk(mutated, lenient=False))
    allowed = {}
    for s, b, n in zip(starts, originals, sizes, strict=True):
        if s + n <= right:
            allowed[s] = b  # untouched, in place
        if s >= left:
            allowed[s + len(extra)] = b  # untouched, moved
    before = [(s, b) for s, b in allowed.items() if s < at]
    assert found[:len(before)] == before
    only_original_batches(found, allowed)


# --- what the writer does with the operating system (no vector can see it) ------------------------


def test_writer_syncs_only_when_asked(tmp_path, monkeypatch):
    """The defaults do not fsync (each costs a disk flush); fsync=True syncs the new segment's
    directory, then every append; a roll syncs the directory again."""
    import os
    import stat

    synced: list[str] = []
    real = os.fsync

    def counted(fd: int) -> None:
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    one = batch_bytes(1)
    write_segment(tmp_path / "default", [one, one], segment_bytes=len(one))
    with SegmentWriter(tmp_path / "writer") as writer:
        writer.append(one)
    assert synced == []
    write_segment(tmp_path / "careful", [one, one], segment_bytes=len(one), fsync=True)
    assert synced == ["dir", "file", "dir", "file"]


def test_directory_sync_tolerates_only_an_unsupported_sync(tmp_path, monkeypatch):
    """A file system that cannot sync a directory (EINVAL, ENOTSUP) is no error; any other
    failure is the disk's and is reported with its reason."""
    import errno
    import os

    from groupspec.impl.codec import segment

    for code in (errno.EINVAL, errno.ENOTSUP):
        monkeypatch.setattr(os, "fsync", lambda fd, code=code: (_ for _ in ()).throw(OSError(code, "nope")))
        segment._fsync_directory(tmp_path)
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.EIO, "I/O error")))
    with pytest.raises(InputError, match="cannot sync: I/O error"):
        segment._fsync_directory(tmp_path)


def test_writer_creates_missing_parents_and_names_os_errors(tmp_path):
    one = batch_bytes(1)
    [path] = write_segment(tmp_path / "a" / "b" / "__consumer_offsets-0", [one])
    assert path.name == "00000000000000000000.log"
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    with pytest.raises(InputError, match="cannot create: Not a directory"):
        SegmentWriter(blocker / "log")
    with pytest.raises(InputError, match="cannot list: No such file or directory"):
        segment_files(tmp_path / "missing")


def test_default_segment_size_is_the_coordinator_topics():
    """100 MiB: Kafka's offsets.topic.segment.bytes and share.coordinator.state.topic.segment.bytes
    (GroupCoordinatorConfig.OFFSETS_TOPIC_SEGMENT_BYTES_DEFAULT, ShareCoordinatorConfig)."""
    from groupspec.impl.codec.segment import DEFAULT_SEGMENT_BYTES

    assert DEFAULT_SEGMENT_BYTES == 104_857_600

"""Damaged logs through `decode`'s reader: nothing dropped silently, only typed errors, bounded memory.

Issue 15 items 1-4 and 9. Logs are written by two independent writers (groupspec's batch encoder
and kafka-python's ``DefaultRecordBatchBuilder``), in every compression, with transactional and
control batches, over one or three segment files; then one kind of damage is applied and the
whole log is read the way ``groupspec decode`` reads it (:func:`log_reader.read_logs`), lenient
and strict. :func:`check` states what must hold for any damage:

- no crash: lenient reading raises nothing, strict reading raises only a ``CodecError``, and it
  raises exactly when lenient reading quarantines something;
- strict = lenient up to the first error: the lines strict reading printed before it stopped
  are the lenient lines before the first quarantined one;
- no overlap: the offsets printed only grow;
- no silent drop: every record of a batch the damage left intact is printed, unless the damage
  is reported (something quarantined: exit 1). A batch that ends a segment file cut short (a
  torn tail) is reported with a warning only (exit 0), and only a real cut produces one.

Run as a script, the same checks make a counted campaign over seeded random mutations
(``python tests/cover/test_decode_mutations.py --mutations 20000``); it prints how many mutations
were tried, how many dropped records silently and how many crashed.
"""

from __future__ import annotations

import argparse
import itertools
import random
import resource
import struct
import subprocess
import sys
import tempfile
import tracemalloc
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import google_crc32c
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from groupspec.commands.decode_report import summary
from groupspec.impl.codec.batch import (
    BadBatch,
    BatchReader,
    ControlType,
    PartialBatch,
    Record,
    RecordBatch,
    UnframedRest,
    encode_batch,
    encode_control_batch,
    read_batches,
)
from groupspec.impl.codec.compression import Compression, compress, decompress
from groupspec.impl.codec.errors import CodecError, DecompressionLimitError, FramingError, MalformedError
from groupspec.impl.codec.log_reader import LogReadOptions, read_logs
from groupspec.impl.codec.records import encode_key, encode_value
from groupspec.impl.codec.segment import read_log, segment_file_name
from groupspec.types.records import OffsetCommitKey, OffsetCommitValue

with warnings.catch_warnings():  # kafka-python 3.0.12 loads its schemas through a deprecated importlib call
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.record.default_records import DefaultRecordBatchBuilder as KafkaBatchBuilder

TOPIC = "__consumer_offsets"
COMPRESSIONS = list(Compression)

# A few distinct commit records (key, value), encoded once.
_RECORDS = [
    (encode_key(OffsetCommitKey(group=f"g{i % 3}", topic="orders", partition=i)),
     encode_value(OffsetCommitValue(offset=1000 + i, leader_epoch=i, metadata="m" * (i % 4),
                                    commit_timestamp=1_700_000_000_000 + i)))
    for i in range(8)
]


# --- logs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    """One batch of a generated log: its bytes and the offsets `decode` prints for it."""

    data: bytes
    offsets: tuple[int, ...]
    base_offset: int
    last_offset: int


def make_batch(kind: str, base: int, n: int, compression: Compression, gap: int) -> Batch:
    """``kind``: "ours", "kafka-python", "txn" (ours, transactional) or "control" (a COMMIT marker)."""
    if kind == "control":
        data = encode_control_batch(ControlType.COMMIT, offset=base, timestamp=5, producer_id=9,
                                    producer_epoch=0, coordinator_epoch=3)
        return Batch(data, (base,), base, base)
    offsets = [base + i * gap for i in range(n)]
    records = [Record(o, 1_700_000_000_000 + i, *_RECORDS[(o + i) % len(_RECORDS)])
               for i, o in enumerate(offsets)]
    if kind == "kafka-python":
        builder = KafkaBatchBuilder(2, int(compression), False, -1, -1, -1, batch_size=1 << 30)
        for r in records:
            builder.append(r.offset - base, r.timestamp, r.key, r.value, [])
        raw = bytearray(builder.build())
        struct.pack_into(">q", raw, 0, base)  # the base offset is outside the CRC: a leader sets it
        data = bytes(raw)
    else:
        txn = kind == "txn"
        data = encode_batch(records, base_offset=base, compression=compression, is_transactional=txn,
                            producer_id=9 if txn else -1, producer_epoch=0 if txn else -1)
    return Batch(data, tuple(offsets), base, offsets[-1])


@dataclass
class Log:
    """Segment files of batches; ``files[i]`` is the list of batches of file i."""

    files: list[list[Batch]]

    @property
    def batches(self) -> list[Batch]:
        return [b for f in self.files for b in f]

    def file_bytes(self, i: int) -> bytes:
        return b"".join(b.data for b in self.files[i])

    def file_base(self, i: int) -> int:
        return self.files[i][0].base_offset


def random_log(rnd: random.Random, *, files: int = 1, max_batches: int = 5) -> Log:
    out: list[list[Batch]] = []
    offset = rnd.randrange(0, 4)
    for _ in range(files):
        batches = []
        for _ in range(rnd.randint(1, max_batches)):
            kind = rnd.choice(["ours", "ours", "kafka-python", "txn", "control"])
            b = make_batch(kind, offset, rnd.randint(1, 4), rnd.choice(COMPRESSIONS), rnd.randint(1, 2))
            batches.append(b)
            offset = b.last_offset + 1 + rnd.randrange(0, 3)
        out.append(batches)
    return Log(out)


@st.composite
def logs(draw: Any, files: int = 1) -> Log:
    return random_log(random.Random(draw(st.integers(0, 2**32 - 1), label="log seed")), files=files)


# --- reading and checking -------------------------------------------------------------------------


@dataclass
class Outcome:
    lenient: list[dict[str, Any]]
    report: Any
    strict: list[dict[str, Any]]
    strict_error: BaseException | None
    warnings: list[str] = field(default_factory=list)

    @property
    def printed(self) -> list[int]:
        return [d["offset"] for d in self.lenient if not d.get("quarantined")]


def decode(files: list[bytes], bases: list[int], *, max_batch_bytes: int | None = None) -> Outcome:
    """Write the files as a partition directory and read it lenient, then strict."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / f"{TOPIC}-0"
        directory.mkdir()
        for data, base in zip(files, bases, strict=True):
            (directory / segment_file_name(base)).write_bytes(data)
        extra = {} if max_batch_bytes is None else {"max_batch_bytes": max_batch_bytes}
        lenient: list[dict[str, Any]] = []
        said: list[str] = []
        report = read_logs([directory], LogReadOptions(control=True, **extra), lenient.append, said.append)
        strict: list[dict[str, Any]] = []
        error: BaseException | None = None
        try:
            read_logs([directory], LogReadOptions(control=True, strict=True, **extra), strict.append,
                      lambda _: None)
        except Exception as exc:  # judged by check(): only CodecError is allowed
            error = exc
    return Outcome(lenient, report, strict, error, said)


class SilentDrop(AssertionError):
    """Records of an intact batch are missing and nothing says so (or an overlap got through)."""


class Crash(AssertionError):
    """An exception that is not a typed CodecError, or strict and lenient disagree."""


def check(outcome: Outcome, *, intact: list[Batch], before_damage: list[Batch], cut: bool) -> None:
    """The properties of the module doc. ``intact``: batches the damage left whole;
    ``before_damage``: intact batches of the damaged file before the damage (and of earlier files);
    ``cut``: the damage truncated a file (a torn-tail warning is allowed then)."""
    report = outcome.report
    error = outcome.strict_error
    if error is not None and not isinstance(error, CodecError):
        raise Crash(f"strict reading raised {type(error).__name__}: {error}")
    if (error is not None) != (report.quarantined > 0):
        raise Crash(f"strict raised {error!r} but lenient quarantined {report.quarantined}")
    first_bad = next((i for i, d in enumerate(outcome.lenient) if d.get("quarantined")), len(outcome.lenient))
    if outcome.strict != outcome.lenient[:first_bad]:
        raise Crash("strict output differs from lenient output before the first error")
    printed = outcome.printed
    if any(b <= a for a, b in itertools.pairwise(printed)):
        raise SilentDrop(f"printed offsets do not grow (an overlap was accepted): {printed}")
    shown = set(printed)
    for batch in before_damage:
        if not set(batch.offsets) <= shown:
            raise SilentDrop(f"records {batch.offsets} before the damage are not printed")
    if report.quarantined == 0:
        if report.partial_tails and not cut:
            raise SilentDrop(f"a torn tail reported where nothing was cut: {report.partial_tails}")
        for batch in intact:
            if not set(batch.offsets) <= shown:
                raise SilentDrop(f"records {batch.offsets} of an intact batch are missing, exit 0")


def reseal(data: bytearray, start: int, size: int) -> None:
    """Recompute the CRC of the batch at ``start``: the damage then reaches the decoder."""
    struct.pack_into(">I", data, start + 17, google_crc32c.value(bytes(data[start + 21:start + size])))


def starts_of(batches: list[Batch]) -> list[int]:
    out, at = [], 0
    for b in batches:
        out.append(at)
        at += len(b.data)
    return out


# --- mutations (each returns the damaged files and what check() needs) -------------------------------


@dataclass
class Damage:
    kind: str
    files: list[bytes]
    intact: list[Batch]
    before_damage: list[Batch]
    cut: bool = False
    expect_reported: bool = False


def damage_file0(log: Log, kind: str, rnd: random.Random) -> Damage:
    """One kind of damage to the first file; the other files stay whole."""
    batches = log.files[0]
    starts = starts_of(batches)
    raw = bytearray(log.file_bytes(0))
    k = rnd.randrange(len(batches))
    size = len(batches[k].data)
    at = starts[k]
    others = [b for f in log.files[1:] for b in f]
    reported = False
    cut = False
    hit_from = at  # first damaged byte
    hit_to = at + size  # end of the damaged batches
    if kind == "record-count":
        old = struct.unpack_from(">i", raw, at + 57)[0]
        new = rnd.choice([0, old - 1, old + 1, rnd.randrange(-(1 << 31), 1 << 31)])
        if new == old:
            new = old + 1
        struct.pack_into(">i", raw, at + 57, new)
        reseal(raw, at, size)
        reported = True
    elif kind == "overlap":
        if k == 0:
            k = min(1, len(batches) - 1)
            at, size = starts[k], len(batches[k].data)
            hit_from, hit_to = at, at + size
        if k == 0:  # one batch only: overlap the segment's own start instead
            struct.pack_into(">q", raw, at, max(0, batches[0].base_offset - 1))
            return Damage(kind, [bytes(raw)] + [log.file_bytes(i) for i in range(1, len(log.files))],
                          batches[1:] + others, [], expect_reported=False)
        earlier = batches[rnd.randrange(k)]
        new_base = rnd.randint(max(0, earlier.base_offset - 3), batches[k - 1].last_offset)
        struct.pack_into(">q", raw, at, new_base)
        reported = True
        # Often also the batch after it, just after the refused one's new range but still
        # overlapping what was accepted (issue 15 item 2).
        if k + 1 < len(batches) and rnd.random() < 0.5:
            nxt = starts[k + 1]
            low = new_base + (batches[k].last_offset - batches[k].base_offset) + 1
            struct.pack_into(">q", raw, nxt, rnd.randint(min(low, batches[k - 1].last_offset),
                                                       batches[k - 1].last_offset))
            hit_to = nxt + len(batches[k + 1].data)
    elif kind == "length":
        old = struct.unpack_from(">i", raw, at + 8)[0]
        rest = len(raw) - at - 12
        new = rnd.choice([rest + rnd.randint(1, 5000), old + rnd.randint(1, 64), old - rnd.randint(1, 64),
                          rnd.randrange(-(1 << 31), 1 << 31)])
        if new == old:
            new = old + 1
        struct.pack_into(">i", raw, at + 8, new)
        hit_to = len(raw)
        reported = True
    elif kind == "flip":
        index = at + rnd.randrange(size)
        raw[index] ^= rnd.randrange(1, 256)
        if index >= at + 21 and rnd.random() < 0.5:
            reseal(raw, at, size)
        hit_from, hit_to = index, at + size
        if 8 <= index - at < 12:
            hit_to = len(raw)
    elif kind == "cut":
        index = rnd.randrange(at, at + size)
        del raw[index:]
        cut = True
        hit_from = hit_to = index
    elif kind == "insert":
        index = rnd.randrange(at, at + size + 1)
        raw[index:index] = rnd.randbytes(rnd.randint(1, 24))
        hit_from, hit_to = index, len(raw)
    elif kind == "delete":
        index = rnd.randrange(at, at + size)
        del raw[index:index + rnd.randint(1, 24)]
        hit_from, hit_to = index, len(raw)
        # Bytes taken out of the last batch leave a file that ends inside it, as a cut does: a
        # torn tail unless what is left shows otherwise (see "Torn tail" in the batch module).
        cut = k == len(batches) - 1
    else:
        raise ValueError(kind)
    before = [b for b, s in zip(batches, starts, strict=True) if s + len(b.data) <= hit_from]
    moved = kind in ("cut", "insert", "delete")  # what follows is gone or shifted: not counted as intact
    after = [b for b, s in zip(batches, starts, strict=True) if s >= hit_to and not moved]
    return Damage(kind, [bytes(raw)] + [log.file_bytes(i) for i in range(1, len(log.files))],
                  before + after + others, before, cut=cut, expect_reported=reported)


def run_damage(log: Log, damage: Damage, *, max_batch_bytes: int | None = None) -> Outcome:
    outcome = decode(damage.files, [log.file_base(i) for i in range(len(log.files))],
                     max_batch_bytes=max_batch_bytes)
    check(outcome, intact=damage.intact, before_damage=damage.before_damage, cut=damage.cut)
    if damage.expect_reported and outcome.report.quarantined == 0:
        raise SilentDrop(f"{damage.kind} damage was not reported")
    return outcome


# --- the Hypothesis properties ----------------------------------------------------------------------


@given(logs(), st.integers(0, 2**32 - 1))
def test_record_count_damage_is_always_reported(log, seed):
    """Item 1: a count that disagrees with the records (CRC resealed) is a bad batch, any codec."""
    damage = damage_file0(log, "record-count", random.Random(seed))
    outcome = run_damage(log, damage)
    assert outcome.report.bad_batches == 1


@given(logs(), st.integers(0, 2**32 - 1))
def test_overlapping_offsets_are_refused(log, seed):
    """Item 2: a batch overlapping an accepted one is refused, and so is the one after it if it does."""
    run_damage(log, damage_file0(log, "overlap", random.Random(seed)))


@given(logs(), st.integers(0, 2**32 - 1))
def test_length_damage_mid_segment_is_reported(log, seed):
    """Item 3: a changed batch length is never a silent end-of-segment warning."""
    outcome = run_damage(log, damage_file0(log, "length", random.Random(seed)))
    assert outcome.report.quarantined  # (a torn tail may still follow a bad batch; it is not all)


@given(logs(files=3), st.sampled_from(["length", "flip", "cut", "insert", "delete", "record-count"]),
       st.integers(0, 2**32 - 1))
def test_damage_in_the_first_of_three_files(log, kind, seed):
    """Item 4: segment files are independent; the later files are read and counted."""
    event(kind)
    outcome = run_damage(log, damage_file0(log, kind, random.Random(seed)))
    assert outcome.report.files == 3
    if kind == "length":  # framing: the files after are read whole
        later = {o for f in log.files[1:] for b in f for o in b.offsets}
        assert later <= set(outcome.printed)


@given(logs(), st.sampled_from(["flip", "cut", "insert", "delete"]), st.integers(0, 2**32 - 1))
def test_any_damage(log, kind, seed):
    event(kind)
    run_damage(log, damage_file0(log, kind, random.Random(seed)))


@given(st.integers(0, 2**64 - 1))
def test_a_random_file_in_a_partition_directory_is_not_a_clean_read(seed):
    """Item 3: 5,000 random bytes are never taken for a log with a torn tail (exit 0)."""
    outcome = decode([random.Random(seed).randbytes(5000)], [0])
    assert outcome.report.quarantined > 0
    assert isinstance(outcome.strict_error, CodecError)


# --- the defects, one by one ------------------------------------------------------------------------


def _batch(base: int, n: int, compression: Compression = Compression.NONE) -> Batch:
    return make_batch("ours", base, n, compression, 1)


def test_a_refused_batch_does_not_move_the_last_offset():
    """Item 2: A [10..14], then B claiming 0 (refused), then C claiming 5: C overlaps A."""
    a, b, c = _batch(10, 5), bytearray(_batch(20, 3).data), bytearray(_batch(30, 3).data)
    struct.pack_into(">q", b, 0, 0)
    struct.pack_into(">q", c, 0, 5)
    reader = BatchReader(lenient=True)
    entries = [e for _, e in reader.read(a.data + bytes(b) + bytes(c))]
    assert [type(e) for e in entries] == [RecordBatch, BadBatch, BadBatch]
    assert "does not come after the last offset 14" in str(entries[2].error)
    assert reader.last_offset == 14


def _three_batches() -> tuple[list[Batch], bytes]:
    batches = [_batch(0, 3), _batch(3, 2, Compression.GZIP), _batch(5, 4)]
    return batches, b"".join(b.data for b in batches)


def test_a_length_running_past_the_end_mid_segment_is_corruption():
    """Item 3: the middle batch's length made larger than the rest of the file."""
    batches, data = _three_batches()
    at = len(batches[0].data)
    raw = bytearray(data)
    struct.pack_into(">i", raw, at + 8, len(data))
    size = len(batches[1].data)
    with pytest.raises(FramingError, match=f"batch at byte {at}: .*not a torn tail: its CRC32C matches its "
                       f"first {size} bytes") as info:
        list(read_batches(bytes(raw), lenient=True))
    assert info.value.position == at and info.value.size == len(data) - at
    # The middle batch cut short inside the file, the last one whole after it.
    # (an lz4 one: gzip and uncompressed records would already show that its data stops fitting)
    lz4 = _batch(3, 2, Compression.LZ4)
    raw = bytearray(batches[0].data + lz4.data[:70] + batches[2].data)
    struct.pack_into(">i", raw, at + 8, len(raw))
    with pytest.raises(FramingError, match=f"a complete batch with a valid CRC32C starts at byte {at + 70}"):
        list(read_batches(bytes(raw)))
    # The last batch's length made larger: its CRC still matches up to the end of the file.
    raw = bytearray(data)
    last = len(data) - len(batches[2].data)
    struct.pack_into(">i", raw, last + 8, len(batches[2].data) + 100)
    with pytest.raises(FramingError, match="CRC32C matches its first"):
        list(read_batches(bytes(raw)))
    # A real cut at any byte of the last batch stays a torn tail.
    for cut in range(last + 1, len(data)):
        entries = [e for _, e in read_batches(data[:cut])]
        assert entries[-1] == PartialBatch(last, cut - last, 17 if cut - last < 12 else len(batches[2].data),
                                           5 if cut - last >= 8 else None)


def test_decode_reports_mid_segment_length_damage_with_its_position(tmp_path, capsys):
    from groupspec.cli import main

    batches, data = _three_batches()
    raw = bytearray(data)
    at = len(batches[0].data)
    struct.pack_into(">i", raw, at + 8, 0x7FFF0000)
    directory = tmp_path / f"{TOPIC}-0"
    directory.mkdir()
    (directory / segment_file_name(0)).write_bytes(bytes(raw))
    assert main(["decode", str(directory)]) == 1
    out, err = capsys.readouterr()
    import json

    docs = [json.loads(line) for line in out.splitlines()]
    assert [d["offset"] for d in docs[:3]] == [0, 1, 2]
    assert docs[3]["quarantined"] and docs[3]["position"] == at and "not a torn tail" in docs[3]["reason"]
    assert "partial" not in err
    assert main(["decode", "--strict", str(directory)]) == 2
    _, err = capsys.readouterr()
    assert f"batch at byte {at}" in err and len(err.strip().splitlines()) == 1


def test_strict_stops_at_a_bad_control_record():
    """Found by the campaign: --strict printed a bad transaction marker as quarantined and went on."""
    bad = encode_batch([Record(3, 5, b"\xff\x00\x00\x01", b"\x00\x00\x00\x00\x00\x03")], base_offset=3,
                       is_control=True, is_transactional=True, producer_id=9, producer_epoch=0)
    outcome = decode([_batch(0, 3).data + bad + _batch(4, 1).data], [0])
    assert outcome.report.quarantined_records == 1 and outcome.printed == [0, 1, 2, 4]
    assert isinstance(outcome.strict_error, CodecError) and "key version" in str(outcome.strict_error)
    assert outcome.strict == outcome.lenient[:3]


def test_text_files_in_a_partition_directory_are_not_clean(tmp_path):
    for text in (b"hello\n", b"# notes about this partition\n" * 40):
        outcome = decode([text], [0])
        assert outcome.report.unreadable == 1 and isinstance(outcome.strict_error, FramingError)


def test_a_framing_error_in_the_first_of_three_files_does_not_stop_the_reader(tmp_path):
    """Item 4, through read_log and through decode."""
    first = [_batch(0, 2), _batch(2, 2)]
    raw = bytearray(b"".join(b.data for b in first))
    struct.pack_into(">i", raw, len(first[0].data) + 8, 3)  # below the minimum length
    files = [bytes(raw), _batch(10, 3).data, _batch(20, 2, Compression.ZSTD).data]
    directory = tmp_path / f"{TOPIC}-0"
    directory.mkdir()
    for data, base in zip(files, [0, 10, 20], strict=True):
        (directory / segment_file_name(base)).write_bytes(data)
    items = list(read_log(directory, lenient=True))
    assert [type(i.entry) for i in items] == [RecordBatch, UnframedRest, RecordBatch, RecordBatch]
    assert items[1].position == len(first[0].data) and items[1].file.name == segment_file_name(0)
    with pytest.raises(FramingError):
        list(read_log(directory))
    outcome = decode(files, [0, 10, 20])
    assert outcome.printed == [0, 1, 10, 11, 12, 20, 21]
    assert outcome.report.files == 3 and outcome.report.unreadable == 1
    assert "3 files" in summary(outcome.report)


# --- decompression bombs (item 9) -------------------------------------------------------------------

LIMIT = 64 * 1024


def zstd_rle_frame(blocks: int) -> bytes:
    """A zstd frame of ``blocks`` RLE blocks of 128 KiB each: 4 bytes of input per 128 KiB of output."""
    out = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")  # magic; no content size; window 128 KiB
    for i in range(blocks):
        out += ((131072 << 3) | (1 << 1) | (i == blocks - 1)).to_bytes(3, "little") + b"\x00"
    return bytes(out)


@pytest.mark.parametrize("codec", COMPRESSIONS[1:], ids=lambda c: c.name)
def test_decompression_stops_at_the_limit(codec):
    exact = compress(codec, bytes(LIMIT))
    assert decompress(codec, exact, LIMIT) == bytes(LIMIT)
    with pytest.raises(DecompressionLimitError, match=f"more than {LIMIT:,} bytes"):
        decompress(codec, compress(codec, bytes(LIMIT + 1)), LIMIT)
    bomb = zstd_rle_frame(64) if codec is Compression.ZSTD else compress(codec, bytes(8 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(DecompressionLimitError):
            decompress(codec, bomb, LIMIT)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * LIMIT + 2 * len(bomb)  # 8 MiB of output never materialises


def test_snappy_declared_sizes_are_checked_before_anything_is_allocated():
    huge = b"\xff\xff\xff\xff\x0f" + bytes(60)  # a raw block declaring 4 GiB - 1 bytes
    with pytest.raises(DecompressionLimitError):
        decompress(Compression.SNAPPY, huge)
    # xerial chunks, each under the limit, together over it
    chunk = compress(Compression.SNAPPY, bytes(40_000))[16:]
    stream = compress(Compression.SNAPPY, b"")[:16] + chunk * 2
    assert len(decompress(Compression.SNAPPY, stream)) == 80_000
    with pytest.raises(DecompressionLimitError):
        decompress(Compression.SNAPPY, stream, LIMIT)
    with pytest.raises(CodecError):
        decompress(Compression.SNAPPY, b"\xff\xff")  # a length varint that never ends


def test_a_bomb_batch_is_a_bad_batch_naming_its_offset():
    big = [Record(7, 0, b"k", bytes(LIMIT))]
    batch = encode_batch(big, base_offset=7, compression=Compression.ZSTD)
    entries = [e for _, e in read_batches(batch, lenient=True, max_batch_bytes=LIMIT)]
    assert isinstance(entries[0], BadBatch)
    assert isinstance(entries[0].error, DecompressionLimitError) and entries[0].error.offset == 7
    with pytest.raises(DecompressionLimitError, match="offset 7: batch at byte 0"):
        list(read_batches(batch, max_batch_bytes=LIMIT))
    assert next(e for _, e in read_batches(batch)).records == tuple(big)  # under the default limit


def test_decode_max_batch_bytes(tmp_path, capsys):
    from groupspec.cli import main

    directory = tmp_path / f"{TOPIC}-0"
    directory.mkdir()
    records = [Record(i, 0, *_RECORDS[i % len(_RECORDS)]) for i in range(400)]
    (directory / segment_file_name(0)).write_bytes(encode_batch(records, compression=Compression.GZIP))
    assert main(["decode", str(directory), "--max-batch-bytes", "1000"]) == 1
    out, err = capsys.readouterr()
    assert "more than 1,000 bytes" in out and "1 bad batch quarantined" in err
    assert main(["decode", str(directory)]) == 0
    capsys.readouterr()
    assert main(["decode", str(directory), "--max-batch-bytes", "0"]) == 2
    assert "--max-batch-bytes" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit")
def test_bombs_under_a_memory_limit(tmp_path):
    """The issue's bombs with the default limit, in a child limited to 1.5 GiB of address space."""
    directory = tmp_path / f"{TOPIC}-0"
    directory.mkdir()
    huge_snappy = b"\xff\xff\xff\xff\x0f" + bytes(60)
    batches = []
    for base, payload, codec in ((0, huge_snappy, Compression.SNAPPY),
                                 (1, zstd_rle_frame(16384), Compression.ZSTD)):  # 2 GiB of zstd output
        raw = bytearray(encode_batch([Record(base, 0, b"k", b"v")], base_offset=base, compression=codec))
        raw[61:] = payload
        struct.pack_into(">i", raw, 8, len(raw) - 12)
        reseal(raw, 0, len(raw))
        batches.append(bytes(raw))
    (directory / segment_file_name(0)).write_bytes(b"".join(batches))
    limit = 1536 << 20
    child = subprocess.run(
        [sys.executable, "-c", "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, "
         f"({limit}, {limit})); from groupspec.cli import main; sys.exit(main(['decode', sys.argv[1]]))",
         str(directory)], capture_output=True, text=True, timeout=120)
    assert child.returncode == 1, child.stderr[-2000:]
    assert "2 bad batches quarantined" in child.stderr
    assert child.stdout.count("decompresses to more than 67,108,864 bytes") == 2
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < limit // 1024


def test_max_batch_bytes_is_checked():
    with pytest.raises(Exception, match="max_batch_bytes"):
        BatchReader(max_batch_bytes=-1)
    assert issubclass(FramingError, MalformedError)


# --- the campaign --------------------------------------------------------------------------------------

KINDS = ["record-count", "overlap", "length", "flip", "cut", "insert", "delete"]


def campaign(mutations: int, seed: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    rnd = random.Random(seed)
    for i in range(mutations):
        files = 3 if i % 4 == 3 else 1
        log = random_log(rnd, files=files)
        kind = KINDS[i % len(KINDS)]
        damage = damage_file0(log, kind, rnd)
        counts["tried"] += 1
        counts[f"tried {kind}{' (3 files)' if files == 3 else ''}"] += 1
        try:
            outcome = run_damage(log, damage)
        except SilentDrop as exc:
            counts["silent drops"] += 1
            print(f"silent drop: mutation {i} ({kind}): {exc}", file=sys.stderr)
            continue
        except Crash as exc:
            counts["crashes"] += 1
            print(f"crash: mutation {i} ({kind}): {exc}", file=sys.stderr)
            continue
        except Exception as exc:  # lenient reading raised
            counts["crashes"] += 1
            print(f"crash: mutation {i} ({kind}): {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        counts["reported" if outcome.report.quarantined else "exit 0"] += 1
        if outcome.report.partial_tails and not outcome.report.quarantined:
            counts["torn tails"] += 1
            counts[f"torn tail (exit 0) after {kind}"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description="a counted mutation campaign over decode's reader")
    parser.add_argument("--mutations", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    print(f"mutations {args.mutations}, seed {args.seed}, kinds {', '.join(KINDS)}; writers groupspec and "
          f"kafka-python; compressions {', '.join(c.name.lower() for c in COMPRESSIONS)}")
    counts = campaign(args.mutations, args.seed)
    for key in ("tried", "silent drops", "crashes", "reported", "exit 0", "torn tails"):
        print(f"{key:>14}: {counts[key]}")
    for key in sorted(k for k in counts if k.startswith(("tried ", "torn tail "))):
        print(f"  {key}: {counts[key]}")


if __name__ == "__main__":
    main()

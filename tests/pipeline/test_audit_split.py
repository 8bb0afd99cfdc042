"""Segment files cut at batch boundaries (``groupspec.pipeline.audit_split``), without Spark.

The claim: whatever the split size, the splits' items (rows, quarantine rows with their reasons
and byte positions) are exactly those ``segment_rows`` gives for the whole file, on clean files
and on files damaged every way the reader tells apart (a CRC failure, batches out of order,
an offset jump, a torn tail, a length below the minimum, a length running past the end, garbage
at the end), with cuts at every batch (size 1) and at every size in between. The Spark job runs
the same functions (tests/pipeline/test_audit.py runs it on split sizes too).
"""

from __future__ import annotations

import re
import shutil
import struct
from pathlib import Path

import pytest

from groupspec.impl.codec.batch import RecordBatch
from groupspec.impl.codec.segment import read_segment, segment_files
from groupspec.pipeline.audit_core import segment_rows
from groupspec.pipeline.audit_gen import write_offsets_log
from groupspec.pipeline.audit_split import (
    SPLIT_MAX,
    SPLIT_MIN,
    Incoming,
    Outcome,
    first_wrong,
    plan_splits,
    read_in_process,
    redo,
    split_rows,
    split_size,
)
from groupspec.types import InputError

TOPIC = "__consumer_offsets"


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """Two segment files of a generated log with planted faults: the first of its partition
    (base offset 0) and a later one (its name's base offset is where its reader starts)."""
    log = write_offsets_log(tmp_path_factory.mktemp("split-src"), groups=24, faults=True, seed=3,
                            segment_bytes=8192)
    files = segment_files(log.directories[0])
    assert len(files) >= 2 and files[1].name != "00000000000000000000.log"
    return files[0], files[1]


def batches(path):
    """(position, size, base offset) of each batch of a clean file."""
    found = []
    items = list(read_segment(path))
    ends = [i.position for i in items[1:]] + [path.stat().st_size]
    for item, end in zip(items, ends, strict=True):
        assert isinstance(item.entry, RecordBatch)
        found.append((item.position, end - item.position, item.entry.base_offset))
    return found


def copy(source, tmp_path, name=None):
    folder = tmp_path / f"{TOPIC}-0"
    folder.mkdir(exist_ok=True)
    target = folder / (name or source.name)
    shutil.copy(source, target)
    return target


def damaged(source, tmp_path, how):
    """A copy of ``source`` damaged as ``how`` says (see DAMAGE)."""
    path = copy(source, tmp_path)
    data = bytearray(path.read_bytes())
    b = batches(source)
    k = len(b) // 2
    pos, size, base = b[k]
    if how == "crc":
        data[pos + size - 1] ^= 0xFF
    elif how == "rewound":  # under the previous batch's offsets: refused, the next one read
        struct.pack_into(">q", data, pos, b[k - 1][2])
    elif how == "two rewound":
        struct.pack_into(">q", data, pos, b[k - 1][2])
        struct.pack_into(">q", data, b[k + 1][0], b[k - 1][2])
    elif how == "crc then rewound":  # the refused batch does not move the order check
        data[pos + size - 1] ^= 0xFF
        struct.pack_into(">q", data, b[k + 1][0], b[k - 1][2] + 1)
    elif how == "jump":  # accepted far ahead; the batches after it are then out of order
        struct.pack_into(">q", data, pos, base + 10_000)
    elif how == "rewound first":  # the first batch under the file's base offset, or negative
        named = int(source.name.removesuffix(".log"))
        struct.pack_into(">q", data, 0, named - 5 if named >= 5 else -1)
    elif how.startswith("torn "):
        data = data[:b[-1][0] + int(how.split()[1])]
    elif how == "cut rewound":  # a cut-short last batch that does not follow: not a torn tail
        data = data[:b[-1][0] + 30]
        struct.pack_into(">q", data, b[-1][0], b[-3][2])
    elif how == "short length":
        struct.pack_into(">i", data, pos + 8, 20)
    elif how == "long length":  # runs past the end, whole batches inside: not a torn tail
        struct.pack_into(">i", data, pos + 8, len(data))
        data[pos + size - 1] ^= 0xFF  # nor a complete batch with a wrong length
    elif how == "garbage tail":
        data += bytes(range(7, 250, 3))
    elif how == "empty":
        data = bytearray()
    elif how == "header only":
        data = data[:10]
    else:
        raise AssertionError(how)
    path.write_bytes(bytes(data))
    return path


DAMAGE = ("none", "crc", "rewound", "two rewound", "crc then rewound", "jump", "rewound first",
          "torn 5", "torn 11", "torn 16", "torn 40", "torn 70", "cut rewound", "short length",
          "long length", "garbage tail", "empty", "header only")


def targets(path):
    """Split sizes from every batch its own split to the whole file, every one that changes
    where the cuts go at this file's batch sizes (a step of 37 bytes reaches each)."""
    size = path.stat().st_size
    return [1, *range(2, size + 40, 37), 0]


@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.parametrize("which", [0, 1])
def test_splits_give_what_the_whole_file_gives(sources, tmp_path, how, which):
    path = copy(sources[which], tmp_path) if how == "none" else damaged(sources[which], tmp_path, how)
    whole = list(segment_rows(str(path), TOPIC, 0))
    if how not in ("none", "empty", "header only"):
        assert any(t == "quarantine" for t, _ in whole), "the damage shows in the whole file"
    cut = False
    for target in targets(path):
        splits = plan_splits(str(path), TOPIC, 0, 0, target)
        cut = cut or len(splits) > 1
        assert read_in_process(splits) == whole, target
    assert cut or how in ("empty", "header only")


def test_a_wrong_assumption_is_caught_and_read_again(sources, tmp_path):
    """Out-of-order batches right after a cut are only seen with the true last offset: the
    split's noted comparison differs, and the rest of the file is read again."""
    path = damaged(sources[0], tmp_path, "rewound")
    splits = plan_splits(str(path), TOPIC, 0, 0, 1)
    outcomes = [list(split_rows(s, watch=s.index > 0))[-1][1] for s in splits]
    pieces = redo(splits, outcomes)
    k = len(batches(sources[0])) // 2
    assert [(p.index, p.end) for p in pieces] == [(k, None)]
    assert pieces[0].after == outcomes[k - 1].last and pieces[0].after != splits[k].after
    # A CRC failure alone needs nothing read again: the order check never compares it.
    crc = damaged(sources[1], tmp_path, "crc")
    splits = plan_splits(str(crc), TOPIC, 0, 0, 1)
    assert redo(splits, [list(split_rows(s, watch=s.index > 0))[-1][1] for s in splits]) == []


def test_the_walk_cuts_at_batch_starts_of_about_the_target_size(sources):
    path = sources[1]
    b = batches(path)
    every = plan_splits(str(path), TOPIC, 3, 7, 1)
    assert [s.start for s in every] == [p for p, _, _ in b]
    assert [s.end for s in every] == [p for p, _, _ in b[1:]] + [None]
    assert {(s.topic, s.partition, s.file) for s in every} == {(TOPIC, 3, 7)}
    base = int(path.name.removesuffix(".log"))
    assert every[0].after == base - 1  # from the file's name, as the whole-file reader
    assert [s.after for s in every[1:]] == [o - 1 for _, _, o in b[1:]]
    size = path.stat().st_size
    for target in (500, 2000, size // 2 + 1):
        splits = plan_splits(str(path), TOPIC, 0, 0, target)
        # As many pieces as targets the file holds, rounded up, of equal size: each cut is the
        # first batch start past its share.
        pieces = -(-size // target)
        share = -(-size // pieces)
        assert 1 < len(splits) <= pieces
        assert all(share <= s.end - s.start < share + max(n for _, n, _ in b) for s in splits[:-1])
        assert splits[-1].end is None and splits[-1].start < size
    assert len(plan_splits(str(path), TOPIC, 0, 0, size)) == 1
    assert len(plan_splits(str(path), TOPIC, 0, 0, 0)) == 1


@pytest.mark.parametrize("how", ["short length", "long length", "garbage tail", "torn 40"])
def test_where_the_walk_meets_garbage_the_rest_is_one_split(sources, tmp_path, how):
    """The walk does not go past a header it cannot frame: from the last cut before it to the
    end is one split, which the reader meets as it meets the whole file."""
    path = damaged(sources[0], tmp_path, how)
    whole = list(segment_rows(str(path), TOPIC, 0))
    bad = next(q for t, q in whole if t == "quarantine" and "bad batch" not in q.reason)
    at = int(re.search(r"batch at byte (\d+)", bad.reason).group(1))
    splits = plan_splits(str(path), TOPIC, 0, 0, 1)
    last = splits[-1]
    assert last.end is None
    if how in ("short length", "long length"):  # framing ends in the middle: unframed bytes
        assert bad.reason.startswith("unframed bytes") and "@" not in bad.source
        assert last.start == at == batches(sources[0])[len(batches(sources[0])) // 2][0]
    else:
        assert last.start <= at
    got = [q for t, q in read_in_process(splits) if t == "quarantine"]
    assert got == [q for t, q in whole if t == "quarantine"]


def test_a_cut_off_batch_names_its_byte_in_the_file_not_in_the_split(sources, tmp_path):
    path = damaged(sources[0], tmp_path, "long length")
    whole = [q for t, q in segment_rows(str(path), TOPIC, 0) if t == "quarantine"]
    assert len(whole) == 1 and "a complete batch with a valid CRC32C starts at byte" in whole[0].reason
    b = batches(sources[0])
    assert f"starts at byte {b[len(b) // 2 + 1][0]}" in whole[0].reason
    crc = damaged(sources[1], tmp_path, "crc")
    pos = batches(sources[1])[len(batches(sources[1])) // 2][0]
    q = [q for t, q in read_in_process(plan_splits(str(crc), TOPIC, 0, 0, 1)) if t == "quarantine"]
    assert [(x.source, x.reason.split(":")[1]) for x in q] == [(f"{crc}@{pos}", f" batch at byte {pos}")]


def test_incoming_notes_every_comparison_until_replaced():
    noted = []
    start = Incoming(41, noted)
    # The reader writes ``base <= last``: the int on the left, so Python asks the subclass's __ge__.
    left = (42 <= start, 41 <= start)  # noqa: SIM300
    assert (*left, start < 50, start == 41, f"{start}") == (False, True, True, True, "41")
    assert noted == [("ge", 42, False), ("ge", 41, True), ("lt", 50, True), ("eq", 41, True)]
    assert start + 1 == 42 and type(start + 1) is int  # arithmetic gives plain ints: not noted
    assert len(noted) == 4
    # The driver's check replays the noted comparisons with the true value.
    held = Outcome(0, 1, (("ge", 42, False),), 60, 3)
    assert first_wrong(40, [Outcome(0, 0, (), None, 0), held]) is None
    assert first_wrong(45, [Outcome(0, 0, (), None, 0), held]) == 1
    assert first_wrong(45, [Outcome(0, 0, (), 41, 0), held]) is None  # the first split ends at 41


def test_split_size_defaults_and_bounds():
    assert split_size(10 << 30, 2, None) == SPLIT_MAX
    assert split_size(1000, 2, None) == SPLIT_MIN
    assert split_size(60 << 20, 2, None) == 10 << 20  # three tasks a core
    assert split_size(60 << 20, 2, 0) == 0 and split_size(60 << 20, 2, 4096) == 4096
    with pytest.raises(InputError, match="--split-bytes"):
        split_size(1, 1, -1)
    with pytest.raises(InputError, match="cannot read"):
        plan_splits(str(Path("/nonexistent/00000000000000000000.log")), TOPIC, 0, 0, 1)


def test_a_file_that_cannot_be_mapped_is_read_whole(sources, monkeypatch):
    """No walk, no cuts: the file is one split, as before splits existed."""
    import mmap

    def refused(*args, **kwargs):
        raise OSError("mmap not supported here")

    assert len(plan_splits(str(sources[0]), TOPIC, 0, 0, 1)) > 1
    monkeypatch.setattr(mmap, "mmap", refused)
    splits = plan_splits(str(sources[0]), TOPIC, 0, 0, 1)
    assert [(s.start, s.end) for s in splits] == [(0, None)]
    assert read_in_process(splits) == list(segment_rows(str(sources[0]), TOPIC, 0))

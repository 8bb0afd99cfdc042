"""Segment files cut at batch boundaries, so that the audit's read tasks outnumber the cores.

Why: one read task a segment file leaves cores idle whenever the files are fewer than the cores,
or when their count is not a multiple of them (5 files on 2 cores end on one task), and a 1 GB
segment is one task however large the cluster. A *split* is a byte range of one file that starts
where a batch starts; its task reads only those bytes.

Where the cuts go (:func:`plan_splits`, on the driver): a walk of the batch headers' first 12
bytes (base offset, batch length), jumping from one header to the next without reading or
decoding a body. The walk frames exactly as the reader does (a length of at least 49 bytes that
ends inside the file is where the reader goes on too). It stops at the first header it cannot
frame that way (a length below 49, which the reader might take as a legacy message or as
garbage, or a batch running past the end of the file: a torn tail or garbage), and everything
from the last cut to the end of the file is one split, read the way the whole file was. So a
fault that ends a file's framing is met by the same reader, in the same state, at the same byte.

What crosses a cut: the reader's only state carried from batch to batch is the last offset of the
last *accepted* batch (:class:`~groupspec.impl.codec.batch.BatchReader`, its order check and its
torn-tail judgement compare a batch's base offset with it; a refused batch leaves it as it
was). A split's task cannot know it before the splits ahead of it are decoded, so it starts from
an assumed value (the base offset of its first batch, less one: what a healthy log gives) and
notes every comparison made with that value until its first batch is accepted, after which the
value no longer matters (:class:`Incoming`). The driver then walks each file's splits in order
with the true value (:func:`first_wrong`): where a split's noted comparisons come out the same
with the true value, its rows, quarantine rows and messages are exactly those the whole-file
reader gives for those bytes; where one does not (an out-of-order or damaged batch right after a
cut), that split and the rest of its file are read again as one piece from the true value. Every
other kind of check is inside one batch (CRC, magic, records, compression) or reads forward to
the end of the data (the torn-tail judgement, in the last split), and positions are counted from
the start of the file (``BatchReader.read(origin=...)``), so the outputs are byte for byte those
of one task a file, whatever the split size.
"""

from __future__ import annotations

import mmap
import operator
import os
import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groupspec.impl.codec.batch import LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, BatchReader
from groupspec.impl.codec.errors import CodecError
from groupspec.impl.codec.segment import base_offset_of
from groupspec.types import InputError

#: Split sizes chosen when none is given: enough splits for 3 tasks a core, none smaller than
#: SPLIT_MIN (a task costs some milliseconds of scheduling) nor larger than SPLIT_MAX.
SPLIT_MIN = 1 << 20
SPLIT_MAX = 32 << 20
TASKS_PER_CORE = 3
#: The smallest length the walk follows: a v2 batch's bare header (the reader's minimum for v2;
#: legacy formats allow 14, which the walk leaves to the reader by stopping there).
_MIN_LENGTH = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD
_BASE = struct.Struct(">q")
_LENGTH = struct.Struct(">i")
#: The highest offset a segment may hold past its base offset (an index's relative offsets).
_MAX_RELATIVE_OFFSET = (1 << 31) - 1


@dataclass(frozen=True)
class Split:
    """Bytes ``start`` to ``end`` (None: to the end of the file, as it is when read) of one file.

    ``after`` is the last offset the reader starts from: exact for a file's first split (one
    less than the base offset its name states, or -1), assumed for the others. ``file`` numbers
    the file, ``index`` the split within it.
    """

    path: str
    topic: str
    partition: int
    file: int
    index: int
    start: int
    end: int | None
    after: int


def split_size(total_bytes: int, cores: int, given: int | None) -> int:
    """The target split size: ``given`` (0: whole files), else enough splits for
    TASKS_PER_CORE tasks a core, within SPLIT_MIN..SPLIT_MAX."""
    if given is not None:
        if given < 0:
            raise InputError("--split-bytes", f"must be >= 0, got {given}")
        return given
    wanted = total_bytes // max(1, TASKS_PER_CORE * cores)
    return max(SPLIT_MIN, min(SPLIT_MAX, wanted))


def first_after(path: str | Path) -> int:
    """The last offset a file's reader starts from: one less than the base offset in its name
    (-1 for a base of 0 or a name without one, which the reader treats alike)."""
    base = base_offset_of(Path(path))
    return base - 1 if base is not None and base > 0 else -1


def plan_splits(path: str, topic: str, partition: int, file: int, target: int) -> list[Split]:
    """``path`` cut at batch starts into as many splits as pieces of ``target`` bytes it holds
    (rounded up), of about equal size (so a file a little over the target gives two halves, not
    a full piece and a sliver); one split, the whole file, for a target of 0 or a file no larger
    than it."""
    after = first_after(path)
    whole = [Split(path, topic, partition, file, 0, 0, None, after)]
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    if target <= 0 or size <= target:
        return whole
    pieces = -(-size // target)
    cuts = list(_cuts(path, size, -(-size // pieces)))
    if not cuts:
        return whole
    splits = []
    start = 0
    for index, (cut, base) in enumerate(cuts):
        splits.append(Split(path, topic, partition, file, index, start, cut, after))
        start, after = cut, base - 1
    splits.append(Split(path, topic, partition, file, len(cuts), start, None, after))
    return splits


def _cuts(path: str, size: int, target: int) -> Iterator[tuple[int, int]]:
    """(position, base offset in its header) of each cut: the first batch start at least
    ``target`` bytes past the previous cut, never at the end of the file nor past where the
    headers stop framing."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            length_at, base_at = _LENGTH.unpack_from, _BASE.unpack_from
            pos = start = 0
            while pos + LOG_OVERHEAD <= size:
                length = length_at(data, pos + 8)[0]
                if length < _MIN_LENGTH or pos + LOG_OVERHEAD + length > size:
                    return  # the reader decides about the rest, in the last split
                pos += LOG_OVERHEAD + length
                if pos - start >= target and pos + LOG_OVERHEAD <= size:
                    start = pos
                    yield pos, base_at(data, pos)[0]
    except (OSError, ValueError, struct.error):
        # A file that cannot be mapped (a file system without mmap) or is shorter than when it
        # was listed: no more cuts; the rest is one split, which meets any error as the old
        # reading of the whole file did.
        return


class Incoming(int):
    """The last offset a split's reader starts from, noting each comparison made with it.

    The reader compares it with base offsets (``base <= last``); Python hands such a comparison
    to this subclass's reflected method, so every one is seen here and kept as ``(operator,
    other, outcome)``. The reader replaces it with a plain int once a batch is accepted, which
    ends the noting: from there on, the split's outcome no longer depends on it.
    """

    noted: list[tuple[str, int, bool]]

    def __new__(cls, value: int, noted: list[tuple[str, int, bool]]) -> Incoming:
        made = super().__new__(cls, value)
        made.noted = noted
        return made

    def _note(self, name: str, other: object) -> Any:
        outcome = getattr(int(self), f"__{name}__")(other)
        if isinstance(other, int) and isinstance(outcome, bool):
            self.noted.append((name, int(other), outcome))
        return outcome

    def __lt__(self, other: object) -> Any:
        return self._note("lt", other)

    def __le__(self, other: object) -> Any:
        return self._note("le", other)

    def __gt__(self, other: object) -> Any:
        return self._note("gt", other)

    def __ge__(self, other: object) -> Any:
        return self._note("ge", other)

    def __eq__(self, other: object) -> Any:
        return self._note("eq", other)

    def __ne__(self, other: object) -> Any:
        return self._note("ne", other)

    __hash__ = int.__hash__


_OPERATORS: dict[str, Callable[[int, int], bool]] = {
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
    "eq": operator.eq, "ne": operator.ne}


@dataclass(frozen=True)
class Outcome:
    """What the driver needs of a read split: the comparisons made with its assumed start
    (``noted``), the last offset it ends on (None: no batch accepted, it passes its start on)
    and how many rows it gave."""

    file: int
    index: int
    noted: tuple[tuple[str, int, bool], ...]
    last: int | None
    rows: int


def first_wrong(start: int, outcomes: Sequence[Outcome]) -> int | None:
    """The position in ``outcomes`` (one file's splits, in order) of the first split whose
    assumed start compares differently from the true one, or None when all hold.

    ``start`` is the true last offset before the first split; a split that accepted no batch
    passes it on unchanged.
    """
    true = start
    for at, read in enumerate(outcomes):
        if any(_OPERATORS[name](true, other) != seen for name, other, seen in read.noted):
            return at
        if read.last is not None:
            true = read.last
    return None


def true_start(start: int, outcomes: Sequence[Outcome]) -> int:
    """The true last offset after ``outcomes`` (all of them correct; see :func:`first_wrong`)."""
    for outcome in outcomes:
        if outcome.last is not None:
            start = outcome.last
    return start


def read_split(split: Split, watch: list[tuple[str, int, bool]] | None = None,
               ) -> Iterator[tuple[str, Any]]:
    """The split's bytes as the whole-file reader gives them: ``("entry", (position, entry))``
    for each batch, ``("unframed", CodecError)`` where framing failed (the rest of the file is
    lost, as in ``segment_rows``), and last ``("last", last offset or None)``.

    With ``watch``, the start is an :class:`Incoming` noting into it; without, the start is
    taken as true.
    """
    path = Path(split.path)
    try:
        with open(path, "rb") as f:
            f.seek(split.start)
            data = f.read() if split.end is None else f.read(split.end - split.start)
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None
    reader = BatchReader(lenient=True)
    base = base_offset_of(path)
    reader.max_tail_offset = None if base is None else base + _MAX_RELATIVE_OFFSET
    first: int = Incoming(split.after, watch) if watch is not None else split.after
    reader.last_offset = first
    try:
        for position, entry in reader.read(data, origin=split.start):
            yield "entry", (position, entry)
    except CodecError as exc:
        CodecError.__init__(exc, f"{path}, {exc.reason}", exc.offset)  # as read_segment words it
        yield "unframed", exc
    last = reader.last_offset
    yield "last", None if last is None or isinstance(last, Incoming) else last


def split_rows(split: Split, *, watch: bool = True) -> Iterator[tuple[str, Any]]:
    """A split as ``segment_rows`` items, then ``("split", Outcome)``.

    ``watch``: the split's start is assumed, and the comparisons made with it are noted for the
    driver's check; without, it is taken as true (the first split of a file, or a split read
    again from the true value).
    """
    from groupspec.pipeline.audit_core import entry_items, unframed_item

    noted: list[tuple[str, int, bool]] = []
    rows = 0
    last: int | None = None
    for tag, item in read_split(split, noted if watch else None):
        if tag == "entry":
            for found in entry_items(item[1], split.topic, split.partition, split.path):
                rows += found[0] == "row"
                yield found
        elif tag == "unframed":
            yield unframed_item(item, split.topic, split.partition, split.path)
        else:
            last = item
    yield "split", Outcome(split.file, split.index, tuple(noted), last, rows)


def again(split: Split, start: int) -> Split:
    """``split`` and the rest of its file as one piece, from the true last offset ``start``."""
    return Split(split.path, split.topic, split.partition, split.file, split.index, split.start,
                 None, start)


def redo(splits: Sequence[Split], outcomes: Sequence[Outcome]) -> list[Split]:
    """The pieces to read again (at most one a file) given every split's outcome: for each file
    whose chain of assumed starts fails (:func:`first_wrong`), the rest of it from the first
    wrong split, with the true start."""
    by_file: dict[int, list[tuple[Split, Outcome]]] = {}
    found = {(o.file, o.index): o for o in outcomes}
    for s in splits:
        by_file.setdefault(s.file, []).append((s, found[(s.file, s.index)]))
    pieces = []
    for pairs in by_file.values():
        pairs.sort(key=lambda pair: pair[0].index)
        start = pairs[0][0].after
        done = [o for _, o in pairs]
        wrong = first_wrong(start, done)
        if wrong is not None:
            pieces.append(again(pairs[wrong][0], true_start(start, done[:wrong])))
    return pieces


def read_in_process(splits: Sequence[Split]) -> list[tuple[str, Any]]:
    """Every split read and checked as the Spark job does it, in this process (tests): the
    items of the splits that hold, then those of the pieces read again, ``split`` items left out."""
    items: dict[tuple[int, int], list[tuple[str, Any]]] = {}
    outcomes = []
    for s in splits:
        got = list(split_rows(s, watch=s.index > 0))
        outcomes.append(got[-1][1])
        items[(s.file, s.index)] = got[:-1]
    again_read = redo(splits, outcomes)
    dropped = {(p.file, i) for p in again_read for s in splits
               if s.file == p.file and (i := s.index) >= p.index}
    out = [item for key, got in sorted(items.items()) if key not in dropped for item in got]
    for piece in again_read:
        out += [item for item in split_rows(piece, watch=False) if item[0] != "split"]
    return out

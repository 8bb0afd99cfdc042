"""Kafka log segments: the ``.log`` files of a partition directory, read and written.

A partition directory (``__consumer_offsets-27/``) holds one ``.log`` file per segment, named by
the segment's base offset in 20 zero-padded digits (``00000000000000000000.log``), next to index
files (``.index``, ``.timeindex``, ``.txnindex``), producer ``.snapshot`` files and
``leader-epoch-checkpoint``. A ``.log`` file is nothing but record batches back to back (see
:mod:`groupspec.impl.codec.batch`); everything else can be rebuilt from it.

Reading: :func:`read_log` takes a segment file or a partition directory and yields a
:class:`LogItem` (file, byte position, entry) per batch, the segments in base-offset order, one
:class:`~groupspec.impl.codec.batch.BatchReader` across all of them, so offsets must grow across
files too, and a batch must not start before its file's base offset. Files other than
``<digits>.log`` are ignored (including ``.log.deleted``/``.log.cleaned``/``.log.swap`` left by
the cleaner and by deletion). A segment that ends inside a batch yields a
:class:`~groupspec.impl.codec.batch.PartialBatch` and reading goes on with the next segment, as
Kafka's ``FileLogInputStream`` stops at such a tail (fewer bytes than the 17-byte header, or than
the batch length says) without an error; recovery later truncates it. An empty file yields
nothing. A file is read into memory whole (segments of the coordinator topics are 100 MiB by
default). Errors carry the file path and byte position in their message.

Writing: :class:`SegmentWriter` (or :func:`write_segment`) appends encoded batches the way a
partition leader does: it assigns each batch its base offset (the next offset of the log) and,
if asked, the partition leader epoch, both outside the CRC so the rest of the batch is kept byte
for byte, and rolls to a new segment file when the next batch would take the file past
``segment_bytes`` (Kafka's ``segment.bytes`` check: roll when a non-empty segment cannot take the
batch) or past the 2^31-1 offsets that an index's relative offsets can address. The ``.log``
files are exactly the bytes Kafka would hold for those batches.

It writes no ``.index``/``.timeindex`` files, on purpose. Kafka's ``LogLoader.loadSegmentFiles``
(storage/.../internals/log/LogLoader.java) opens every ``.log`` file and calls
``LogSegment.sanityCheck``; a missing offset index raises ``NoSuchFileException``, which the
loader answers by recovering the segment: it re-reads and validates every batch, rebuilds the
offset, time and transaction indexes and the producer state, and truncates an invalid tail. A
missing time index is simply created anew. So a directory of ``.log`` files alone is one a broker
loads, and index files we wrote could only be wrong in ways Kafka would then have to repair.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from groupspec.impl.codec.batch import (
    LOG_OVERHEAD,
    BadBatch,
    BatchReader,
    Entry,
    PartialBatch,
    RecordBatch,
    decode_batch,
)
from groupspec.impl.codec.errors import CodecError
from groupspec.types import InputError

__all__ = [
    "DEFAULT_SEGMENT_BYTES",
    "AppendInfo",
    "BadBatch",
    "LogItem",
    "PartialBatch",
    "RecordBatch",
    "SegmentWriter",
    "base_offset_of",
    "read_log",
    "read_segment",
    "segment_file_name",
    "segment_files",
    "write_segment",
]

#: ``offsets.topic.segment.bytes`` and ``share.coordinator.state.topic.segment.bytes``: 100 MiB.
DEFAULT_SEGMENT_BYTES = 100 * 1024 * 1024
_SEGMENT_NAME = re.compile(r"^(\d+)\.log$")
_MAX_RELATIVE_OFFSET = (1 << 31) - 1


@dataclass(frozen=True)
class LogItem:
    """One entry of a log, with the file it is in and its byte position there."""

    file: Path
    position: int
    entry: Entry


def segment_file_name(base_offset: int) -> str:
    """Kafka's name for the segment starting at ``base_offset``: 20 digits and ``.log``."""
    return f"{base_offset:020d}.log"


def base_offset_of(path: Path) -> int | None:
    """The base offset a segment file's name states, or None for another name."""
    m = _SEGMENT_NAME.match(path.name)
    return int(m.group(1)) if m else None


def segment_files(directory: Path) -> list[Path]:
    """The segment files of a partition directory, in base-offset order."""
    try:
        names = list(directory.iterdir())
    except OSError as exc:
        raise InputError(str(directory), f"cannot list: {exc.strerror or exc}") from None
    found = [(base, p) for p in names if (base := base_offset_of(p)) is not None and p.is_file()]
    return [p for _, p in sorted(found)]


def read_log(path: str | Path, *, lenient: bool = False) -> Iterator[LogItem]:
    """Every batch of a segment file or of all segments of a partition directory, in log order."""
    path = Path(path)
    if path.is_dir():
        files = segment_files(path)
    elif path.is_file():
        files = [path]
    else:
        raise InputError(str(path), "no such file or directory")
    reader = BatchReader(lenient=lenient)
    for file in files:
        yield from read_segment(file, lenient=lenient, reader=reader)


def read_segment(
    path: str | Path, *, lenient: bool = False, reader: BatchReader | None = None
) -> Iterator[LogItem]:
    """Every batch of one segment file; ``reader`` carries offset order over from earlier segments."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if reader is None:
        reader = BatchReader(lenient=lenient)
    base = base_offset_of(path)
    if base is not None and base > 0 and (reader.last_offset is None or reader.last_offset < base - 1):
        reader.last_offset = base - 1
    try:
        for position, entry in reader.read(data):
            yield LogItem(path, position, entry)
    except CodecError as exc:
        CodecError.__init__(exc, f"{path}, {exc.reason}", exc.offset)
        raise


@dataclass(frozen=True)
class AppendInfo:
    """Where an appended batch went."""

    file: Path
    position: int
    base_offset: int
    last_offset: int


class SegmentWriter:
    """Appends batches to a partition directory as a partition leader would (see the module doc).

    Use it as a context manager (or call :meth:`close`): the active segment stays open between
    appends. Files are created, never overwritten: a segment file that already exists is an
    error. Time-based rolls and full-index rolls do not apply here.
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        base_offset: int = 0,
        segment_bytes: int = DEFAULT_SEGMENT_BYTES,
        partition_leader_epoch: int | None = None,
    ) -> None:
        if not isinstance(base_offset, int) or base_offset < 0:
            raise InputError("base_offset", f"{base_offset!r} is not an offset (>= 0)")
        if not isinstance(segment_bytes, int) or segment_bytes < 1:
            raise InputError("segment_bytes", f"{segment_bytes!r} is not a positive size")
        if partition_leader_epoch is not None and not -(1 << 31) <= partition_leader_epoch < (1 << 31):
            raise InputError("partition_leader_epoch", f"{partition_leader_epoch!r} is not an int32")
        self.directory = Path(directory)
        self.next_offset = base_offset
        self.segment_bytes = segment_bytes
        self.partition_leader_epoch = partition_leader_epoch
        #: The segment files written so far, in order.
        self.files: list[Path] = []
        self._out: BinaryIO | None = None
        self._segment_base = base_offset
        self._size = 0
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(str(self.directory), f"cannot create: {exc.strerror or exc}") from None

    def append(self, batch: bytes) -> AppendInfo:
        """Append one encoded v2 batch (checked whole first) at the log's next offset."""
        try:
            decoded = decode_batch(batch)
        except CodecError as exc:
            raise InputError("batch", f"not a valid v2 batch: {exc}") from None
        base = self.next_offset
        last = base + decoded.last_offset_delta
        if self._out is None or (self._size > 0 and (
                self._size + len(batch) > self.segment_bytes
                or last - self._segment_base > _MAX_RELATIVE_OFFSET)):
            self.roll()
        assert self._out is not None
        data = bytearray(batch)
        struct.pack_into(">q", data, 0, base)
        if self.partition_leader_epoch is not None:
            struct.pack_into(">i", data, LOG_OVERHEAD, self.partition_leader_epoch)
        position = self._size
        self._out.write(data)
        self._size += len(data)
        self.next_offset = last + 1
        return AppendInfo(self.files[-1], position, base, last)

    def roll(self) -> Path:
        """Start a new segment at the next offset (an empty one, if nothing follows)."""
        self.close()
        path = self.directory / segment_file_name(self.next_offset)
        try:
            self._out = path.open("xb")
        except FileExistsError:
            raise InputError(str(path), "exists already (SegmentWriter never overwrites)") from None
        except OSError as exc:
            raise InputError(str(path), f"cannot create: {exc.strerror or exc}") from None
        self._segment_base = self.next_offset
        self._size = 0
        self.files.append(path)
        return path

    def flush(self) -> None:
        """Push what was appended to the file, so a reader sees it while the segment stays open."""
        if self._out is not None:
            self._out.flush()

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def __enter__(self) -> SegmentWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def write_segment(
    directory: str | Path,
    batches: Iterable[bytes],
    *,
    base_offset: int = 0,
    segment_bytes: int = DEFAULT_SEGMENT_BYTES,
    partition_leader_epoch: int | None = None,
) -> list[Path]:
    """Write ``batches`` as a log starting at ``base_offset``; the segment files written, in order.

    With no batches, one empty segment file is written (a new partition's log).
    """
    with SegmentWriter(directory, base_offset=base_offset, segment_bytes=segment_bytes,
                       partition_leader_epoch=partition_leader_epoch) as writer:
        for batch in batches:
            writer.append(batch)
        if not writer.files:
            writer.roll()
    return list(writer.files)

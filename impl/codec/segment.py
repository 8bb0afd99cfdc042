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
the cleaner and by deletion). A segment that ends in a torn tail (the start of a batch, as a
broker killed mid-write leaves it; the batch module's doc has the exact rule) yields a
:class:`~groupspec.impl.codec.batch.PartialBatch` and reading goes on with the next segment, as
Kafka's ``FileLogInputStream`` stops at such a tail without an error; recovery later truncates
it. Segment files are independent: bytes that cannot be framed (a length below the minimum, or
one that runs past the end of the file without being a torn tail) end the reading of that file
only. Strict reading raises at them; lenient reading yields an
:class:`~groupspec.impl.codec.batch.UnframedRest` for the rest of the file and goes on with the
next file. An empty file yields nothing. A file is read into memory whole (segments of the
coordinator topics are 100 MiB by default). Errors carry the file path and byte position in
their message.

Writing: :class:`SegmentWriter` (or :func:`write_segment`) appends encoded batches the way a
partition leader does: it assigns each batch its base offset (the next offset of the log) and,
if asked, the partition leader epoch, both outside the CRC so the rest of the batch is kept byte
for byte, and rolls to a new segment file when the next batch would take the file past
``segment_bytes`` (Kafka's ``segment.bytes`` check in ``LogSegment.shouldRoll``; a batch larger
than ``segment_bytes`` is refused, as Kafka's ``UnifiedLog.append`` refuses it) or past the
2^31-1 offsets that an index's relative offsets can address. The ``.log``
files are exactly the bytes Kafka would hold for those batches.

Each append is written straight through to the file (no buffer in this process), so once
:meth:`SegmentWriter.append` returns the batch is in the operating system's hands and survives
the death of this process; ``fsync=True`` also forces it to the disk before returning, which is
what survives a power loss (Kafka's ``flush.messages=1``; see docs/runtime.md for the cost).
``resume=True`` continues the directory's last segment file (the active segment of a log
reopened after a restart) instead of creating a new one, so an empty last segment, such as the
one left after a torn first batch is truncated, is written into rather than refused.

It writes no ``.index``/``.timeindex`` files, on purpose. Kafka's ``LogLoader.loadSegmentFiles``
(storage/.../internals/log/LogLoader.java) opens every ``.log`` file and calls
``LogSegment.sanityCheck``; a missing offset index raises ``NoSuchFileException``, which the
loader answers by recovering the segment: it re-reads and validates every batch, rebuilds the
offset, time and transaction indexes and the producer state, and truncates an invalid tail. A
missing time index is simply created anew. So a directory of ``.log`` files alone is one a broker
loads, and index files we wrote could only be wrong in ways Kafka would then have to repair.
"""

from __future__ import annotations

import errno
import os
import re
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from io import FileIO
from pathlib import Path
from types import TracebackType

from groupspec.impl.codec.batch import (
    LOG_OVERHEAD,
    BadBatch,
    BatchReader,
    Entry,
    PartialBatch,
    RecordBatch,
    UnframedRest,
    decode_batch,
)
from groupspec.impl.codec.compression import DEFAULT_MAX_BATCH_BYTES
from groupspec.impl.codec.errors import CodecError, FramingError
from groupspec.types import InputError

__all__ = [
    "DEFAULT_SEGMENT_BYTES",
    "AppendInfo",
    "BadBatch",
    "LogItem",
    "PartialBatch",
    "RecordBatch",
    "SegmentWriter",
    "UnframedRest",
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


def read_log(path: str | Path, *, lenient: bool = False,
             max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
             reader: BatchReader | None = None) -> Iterator[LogItem]:
    """Every batch of a segment file or of all segments of a partition directory, in log order.

    ``max_batch_bytes`` bounds what one batch may decompress to. Lenient, a file whose framing
    fails ends in an :class:`UnframedRest` item and the next file is read; strict, the
    :class:`~groupspec.impl.codec.errors.FramingError` is raised. With ``reader`` given (a
    :class:`~groupspec.impl.codec.raw.RawBatchReader`, say), its own leniency and bound apply.
    """
    path = Path(path)
    if path.is_dir():
        files = segment_files(path)
    elif path.is_file():
        files = [path]
    else:
        raise InputError(str(path), "no such file or directory")
    if reader is None:
        reader = BatchReader(lenient=lenient, max_batch_bytes=max_batch_bytes)
    lenient = reader.lenient
    for file in files:
        try:
            yield from read_segment(file, lenient=lenient, reader=reader)
        except FramingError as exc:
            if not lenient:
                raise
            # Segment files are independent: the rest of this one is lost, the next is read.
            yield LogItem(file, exc.position, UnframedRest(exc.position, exc.size, exc.offset, exc))


def read_segment(
    path: str | Path, *, lenient: bool = False, reader: BatchReader | None = None,
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
) -> Iterator[LogItem]:
    """Every batch of one segment file; ``reader`` carries offset order over from earlier segments.

    With ``reader`` given, its own leniency and ``max_batch_bytes`` apply. Bytes that cannot be
    framed raise a :class:`~groupspec.impl.codec.errors.FramingError` in either mode (the file
    cannot be read further); :func:`read_log` turns it into an entry.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if reader is None:
        reader = BatchReader(lenient=lenient, max_batch_bytes=max_batch_bytes)
    base = base_offset_of(path)
    if base is not None and base > 0 and (reader.last_offset is None or reader.last_offset < base - 1):
        reader.last_offset = base - 1
    reader.max_tail_offset = None if base is None else base + _MAX_RELATIVE_OFFSET
    reader.source = str(path)
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
    error, except the last one with ``resume=True``, which is appended to. Time-based rolls and
    full-index rolls do not apply here.
    """

    def __init__(
        self,
        directory: str | Path,
        *,
        base_offset: int = 0,
        segment_bytes: int = DEFAULT_SEGMENT_BYTES,
        partition_leader_epoch: int | None = None,
        fsync: bool = False,
        resume: bool = False,
    ) -> None:
        if not isinstance(base_offset, int) or base_offset < 0:
            raise InputError("base_offset", f"{base_offset!r} is not an offset (>= 0)")
        if not isinstance(segment_bytes, int) or segment_bytes < 1:
            raise InputError("segment_bytes", f"{segment_bytes!r} is not a positive size")
        if partition_leader_epoch is not None and not -(1 << 31) <= partition_leader_epoch < (1 << 31):
            raise InputError("partition_leader_epoch", f"{partition_leader_epoch!r} is not an int32")
        if not isinstance(fsync, bool):
            raise InputError("fsync", f"{fsync!r} is not a bool")
        self.directory = Path(directory)
        self.next_offset = base_offset
        self.segment_bytes = segment_bytes
        self.partition_leader_epoch = partition_leader_epoch
        self.fsync = fsync
        #: The segment files written so far, in order (with ``resume``, the one continued first).
        self.files: list[Path] = []
        self._out: FileIO | None = None
        self._segment_base = base_offset
        self._size = 0
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(str(self.directory), f"cannot create: {exc.strerror or exc}") from None
        if resume:
            self._resume()

    def _resume(self) -> None:
        existing = segment_files(self.directory)
        if not existing:
            return
        last = existing[-1]
        base = base_offset_of(last)
        assert base is not None
        if base > self.next_offset:
            raise InputError(str(last), f"starts at offset {base}, after the log's next offset "
                             f"{self.next_offset}")
        try:
            self._out = FileIO(last, "ab")
        except OSError as exc:
            raise InputError(str(last), f"cannot open for appending: {exc.strerror or exc}") from None
        self._segment_base = base
        self._size = os.fstat(self._out.fileno()).st_size
        self.files.append(last)

    def append(self, batch: bytes) -> AppendInfo:
        """Append one encoded v2 batch (checked whole first) at the log's next offset.

        When this returns, the batch is in the file (and on the disk with ``fsync``); when it
        raises, the file is as it was before the call, as far as the operating system allows.
        """
        try:
            decoded = decode_batch(batch)
        except CodecError as exc:
            raise InputError("batch", f"not a valid v2 batch: {exc}") from None
        if len(batch) > self.segment_bytes:
            # Kafka refuses it too (RecordBatchTooLargeException in UnifiedLog.append): no
            # segment could hold it. So a batch always fits an empty segment, and only a
            # non-empty one rolls for size.
            raise InputError("batch", f"{len(batch)} bytes do not fit a segment of {self.segment_bytes}")
        base = self.next_offset
        last = base + decoded.last_offset_delta
        if self._out is None or self._size + len(batch) > self.segment_bytes \
                or last - self._segment_base > _MAX_RELATIVE_OFFSET:
            self.roll()
        assert self._out is not None
        data = bytearray(batch)
        struct.pack_into(">q", data, 0, base)
        if self.partition_leader_epoch is not None:
            struct.pack_into(">i", data, LOG_OVERHEAD, self.partition_leader_epoch)
        position = self._size
        self._write_through(data, position)
        self._size += len(data)
        self.next_offset = last + 1
        return AppendInfo(self.files[-1], position, base, last)

    def _write_through(self, data: bytearray, position: int) -> None:
        assert self._out is not None
        out = self._out
        view = memoryview(data)
        try:
            while view:
                written = out.write(view)
                if not written:
                    raise OSError(f"the file took none of the {len(view)} bytes left to write")
                view = view[written:]
            if self.fsync:
                os.fsync(out.fileno())
        except OSError as exc:
            # Take back a partial write, so the next append does not follow a torn batch.
            try:
                os.ftruncate(out.fileno(), position)
                out.seek(position)
            except OSError:
                pass
            raise InputError(str(self.files[-1]), f"cannot write: {exc.strerror or exc}") from None

    def roll(self) -> Path:
        """Start a new segment at the next offset (an empty one, if nothing follows)."""
        self.close()
        path = self.directory / segment_file_name(self.next_offset)
        try:
            self._out = FileIO(path, "xb")
        except FileExistsError:
            raise InputError(str(path), "exists already (SegmentWriter never overwrites)") from None
        except OSError as exc:
            raise InputError(str(path), f"cannot create: {exc.strerror or exc}") from None
        self._segment_base = self.next_offset
        self._size = 0
        self.files.append(path)
        if self.fsync:
            _fsync_directory(self.directory)
        return path

    def flush(self) -> None:
        """Nothing is buffered here (each append writes through); kept for callers that flush."""

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


def _fsync_directory(directory: Path) -> None:
    """Make a new file's name durable: its directory entry is only on disk once the directory is."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # a platform that cannot open directories (Windows) has nothing to sync here
    try:
        os.fsync(fd)
    except OSError as exc:
        # Some file systems cannot sync a directory at all; any other failure is the disk's.
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise InputError(str(directory), f"cannot sync: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def write_segment(
    directory: str | Path,
    batches: Iterable[bytes],
    *,
    base_offset: int = 0,
    segment_bytes: int = DEFAULT_SEGMENT_BYTES,
    partition_leader_epoch: int | None = None,
    fsync: bool = False,
) -> list[Path]:
    """Write ``batches`` as a log starting at ``base_offset``; the segment files written, in order.

    With no batches, one empty segment file is written (a new partition's log).
    """
    with SegmentWriter(directory, base_offset=base_offset, segment_bytes=segment_bytes,
                       partition_leader_epoch=partition_leader_epoch, fsync=fsync) as writer:
        for batch in batches:
            writer.append(batch)
        if not writer.files:
            writer.roll()
    return list(writer.files)

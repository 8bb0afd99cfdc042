"""A coordinator partition's log: what a shard wrote, as real Kafka record batches.

The runtime does not keep the records it appends as Python objects: it encodes them into v2
batches with groupspec's codecs, exactly as the partition leader would store them, and a shard
that loads reads them back through the same decoders a ``groupspec decode`` of a real cluster's
segments uses. So every replay test is also a codec test, and a log written here can be dumped
to segment files that Kafka's tools read.

One write operation's records become one batch, as Kafka's runtime appends them atomically; a
run of transactional records becomes a transactional batch carrying the producer id and epoch,
and a transaction marker a control batch. Unknown record types are skipped on load with a
warning, as Kafka's loader does; any other decoding problem fails the load (a typed
``CodecError``).

Durability (docs/runtime.md): an append returns only once its batches are in the segment file
(``fsync=True``: on the disk), so a write whose answer was released survives a crash of this
process. Opening a directory recovers it: a torn tail (the last segment ends inside a batch, or
in bytes that were never written, all zero) is cut off back to the last whole batch and recorded
in :attr:`PartitionLog.truncations`; any other damage raises :class:`LogCorruptionError` naming
the file and byte position, and nothing is truncated.
"""

from __future__ import annotations

import os
import struct
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from groupspec.impl.codec.batch import (
    LOG_OVERHEAD,
    BadBatch,
    BatchReader,
    ControlType,
    PartialBatch,
    RawBatch,
    Record,
    RecordBatch,
    decode_control_marker,
    encode_batch,
    encode_control_batch,
)
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.errors import CodecError, UnknownRecordTypeError
from groupspec.impl.codec.raw import RawBatchReader
from groupspec.impl.codec.records import decode_record, encode_record
from groupspec.impl.codec.segment import (
    DEFAULT_SEGMENT_BYTES,
    SegmentWriter,
    base_offset_of,
    read_log,
    read_segment,
    segment_files,
)
from groupspec.types import InputError
from groupspec.types.classic_group import LogEntry, TxnEnd, TxnRecord
from groupspec.types.records import CoordinatorRecord


@dataclass(frozen=True)
class Appended:
    """Where one write's entries went: their offsets, in order."""

    offsets: tuple[int, ...]


@dataclass(frozen=True)
class Truncation:
    """A torn tail cut off when a log was opened: what a crash in the middle of an append left.

    ``file`` now ends at ``position`` (the end of its last whole batch); ``removed`` bytes were
    dropped. ``reason`` says what they were.
    """

    file: Path
    position: int
    removed: int
    reason: str

    def describe(self) -> str:
        return f"{self.file}: truncated to byte {self.position}, {self.removed} bytes dropped ({self.reason})"


class LogCorruptionError(InputError):
    """A log damaged somewhere other than its tail: refused, not truncated (docs/runtime.md)."""

    def __init__(self, file: Path, position: int, reason: str) -> None:
        super().__init__(str(file), f"byte {position}: {reason}; this is not a torn tail, so the log is "
                         "not truncated (truncating here would drop every batch after it)")
        self.file = file
        self.position = position
        self.reason = reason


class PartitionLog:
    """The append-only log of one coordinator partition, in memory or in segment files.

    ``directory`` None keeps the batches in one in-memory buffer (the default: fast, and what
    the tests use); otherwise they are appended to Kafka-named segment files under
    ``directory/<topic>-<partition>``, and an existing log there is recovered and read first
    (see the module docstring), so a coordinator built on the same directory later loads what
    an earlier one wrote. ``fsync`` forces each append to the disk before it returns.
    """

    def __init__(
        self,
        topic: str,
        partition: int,
        *,
        directory: Path | None = None,
        compression: Compression = Compression.NONE,
        fsync: bool = False,
        segment_bytes: int = DEFAULT_SEGMENT_BYTES,
    ) -> None:
        self.topic = topic
        self.partition = partition
        self.compression = compression
        self._buffer = bytearray()
        self._writer: SegmentWriter | None = None
        self.path: Path | None = None
        self.next_offset = 0
        self.batches = 0
        #: Torn tails cut off when the log was opened (at most one: the last segment's).
        self.truncations: list[Truncation] = []
        if directory is not None:
            self.path = Path(directory) / f"{topic}-{partition}"
            if self.path.is_dir():
                self._recover(self.path, fsync)
            self._writer = SegmentWriter(self.path, base_offset=self.next_offset, segment_bytes=segment_bytes,
                                         fsync=fsync, resume=True)

    # -- recovery ---------------------------------------------------------------------------------

    def _recover(self, directory: Path, fsync: bool) -> None:
        """Check every batch, cut a torn tail off the last segment, refuse any other damage.

        Kafka's ``LogSegment.recover`` would truncate at any invalid batch and the loader would
        delete the segments after it; a broker can afford that because a follower fetches the
        lost suffix back from the leader. This log is the only copy, so only a tail that a crash
        mid-append can leave is cut: everything before it was acknowledged and is kept.
        """
        files = segment_files(directory)
        reader = BatchReader(lenient=True)
        for index, file in enumerate(files):
            last = index == len(files) - 1
            batch_at: int | None = None
            problem: str | None = None
            position = 0
            try:
                for item in read_segment(file, lenient=True, reader=reader):
                    entry = item.entry
                    if isinstance(entry, RecordBatch):
                        batch_at = item.position
                        self.next_offset = entry.next_offset
                        self.batches += 1
                        continue
                    position = item.position
                    if isinstance(entry, PartialBatch):
                        problem = (f"the file ends inside a batch: {entry.present} of its {entry.needed} "
                                   "bytes are there")
                        if last:
                            self._truncate(file, position, problem, fsync)
                            return
                    elif isinstance(entry, BadBatch):
                        problem = f"bad batch at offset {entry.offset}: {entry.error.reason}"
                    else:
                        problem = f"bytes that cannot be read as batches: {entry}"
                    break
            except CodecError as exc:
                position = 0 if batch_at is None else _batch_end(file, batch_at)
                problem = exc.reason.removeprefix(f"{file}, ")
            if problem is None:
                self.next_offset = max(self.next_offset, _base(file))
                continue
            if last and _zeros_from(file, position):
                self._truncate(file, position, "bytes never written (all zero) after the last batch", fsync)
                return
            raise LogCorruptionError(file, position, problem)

    def _truncate(self, file: Path, position: int, reason: str, fsync: bool) -> None:
        size = file.stat().st_size
        try:
            with file.open("r+b") as out:
                out.truncate(position)
                if fsync:
                    os.fsync(out.fileno())
        except OSError as exc:
            raise InputError(str(file), f"cannot truncate a torn tail: {exc.strerror or exc}") from None
        self.truncations.append(Truncation(file, position, size - position, reason))
        self.next_offset = max(self.next_offset, _base(file))

    # -- writing --------------------------------------------------------------------------------

    def append(self, entries: Sequence[LogEntry], timestamp: int) -> Appended:
        """Append one write operation's entries (see the module docstring for the batching)."""
        offsets: list[int] = []
        run: list[CoordinatorRecord] = []
        producer: tuple[int, int] | None = None
        for entry in entries:
            if isinstance(entry, TxnEnd):
                offsets += self._flush(run, producer, timestamp)
                run, producer = [], None
                offsets.append(self._append_marker(entry, timestamp))
                continue
            if isinstance(entry, TxnRecord):
                this: tuple[int, int] | None = (entry.producer_id, entry.producer_epoch)
                record = entry.record
            elif isinstance(entry, CoordinatorRecord):
                this, record = None, entry
            else:
                raise InputError("entries", f"{type(entry).__name__} is not a log entry")
            if run and this != producer:
                offsets += self._flush(run, producer, timestamp)
                run = []
            producer = this
            run.append(record)
        offsets += self._flush(run, producer, timestamp)
        return Appended(tuple(offsets))

    def _flush(self, run: list[CoordinatorRecord], producer: tuple[int, int] | None,
               timestamp: int) -> list[int]:
        if not run:
            return []
        base = self.next_offset
        records = []
        for i, rec in enumerate(run):
            key, value = encode_record(rec)
            records.append(Record(base + i, timestamp, key, value))
        if producer is None:
            data = encode_batch(records, base_offset=base, compression=self.compression)
        else:
            data = encode_batch(records, base_offset=base, compression=self.compression,
                                is_transactional=True, producer_id=producer[0],
                                producer_epoch=producer[1])
        self._write(data, len(run))
        return list(range(base, base + len(run)))

    def _append_marker(self, end: TxnEnd, timestamp: int) -> int:
        offset = self.next_offset
        data = encode_control_batch(ControlType.COMMIT if end.commit else ControlType.ABORT,
                                    offset=offset, timestamp=timestamp, producer_id=end.producer_id,
                                    producer_epoch=end.producer_epoch,
                                    coordinator_epoch=end.coordinator_epoch)
        self._write(data, 1)
        return offset

    def append_raw(self, data: bytes) -> int:
        """Append batches that are already encoded (another log's bytes, a segment file's).

        Each batch is checked whole and renumbered to follow this log, as a leader assigns
        offsets on append. Returns how many batches were appended.
        """
        buf = bytes(data)
        appended = 0
        for position, entry in BatchReader().read(buf):
            batch = self._whole(entry)
            size = 12 + struct.unpack_from(">i", buf, position + 8)[0]
            raw = bytearray(buf[position:position + size])
            # The base offset is outside the CRC's cover, so renumbering keeps the batch valid.
            struct.pack_into(">q", raw, 0, self.next_offset)
            self._write(bytes(raw), batch.last_offset_delta + 1)
            appended += 1
        return appended

    def _write(self, data: bytes, count: int) -> None:
        if self._writer is not None:
            self._writer.append(data)
        else:
            self._buffer += data
        self.next_offset += count
        self.batches += 1

    # -- reading --------------------------------------------------------------------------------

    def batches_read(self) -> Iterator[RecordBatch]:
        """Every batch of the log, decoded and checked (CRC, framing), in order."""
        if self._writer is not None:
            assert self.path is not None
            for item in read_log(self.path):
                yield self._whole(item.entry)
            return
        for _, entry in BatchReader().read(bytes(self._buffer)):
            yield self._whole(entry)

    def raw_batches_read(self) -> Iterator[RecordBatch | RawBatch]:
        """:meth:`batches_read` with uncompressed data batches handed on unread
        (:class:`~groupspec.impl.codec.raw.RawBatchReader`), for a shard that replays records
        from their bytes (the classic shard's ``replay_batches``)."""
        if self._writer is not None:
            assert self.path is not None
            for item in read_log(self.path, reader=RawBatchReader()):
                yield self._whole_or_raw(item.entry)
            return
        for _, entry in RawBatchReader().read(bytes(self._buffer)):
            yield self._whole_or_raw(entry)

    def _whole_or_raw(self, entry: object) -> RecordBatch | RawBatch:
        return entry if isinstance(entry, RawBatch) else self._whole(entry)

    def _whole(self, entry: object) -> RecordBatch:
        if not isinstance(entry, RecordBatch):
            raise InputError(f"{self.topic}-{self.partition}", f"the log is damaged: {entry}")
        return entry

    def entries(self) -> Iterator[tuple[int, LogEntry]]:
        """``(offset, entry)`` for everything written, decoded back into log entries."""
        return log_entries(self.topic, self.partition, self.batches_read())

    def raw(self) -> bytes:
        """The whole log as one buffer of batches (for an in-memory log: what a segment would hold)."""
        if self._writer is None:
            return bytes(self._buffer)
        assert self.path is not None
        return b"".join(path.read_bytes() for path in segment_files(self.path))

    def size_bytes(self) -> int:
        return len(self.raw())

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


def log_entries(topic: str, partition: int, batches: Iterable[RecordBatch]) -> Iterator[tuple[int, LogEntry]]:
    """``(offset, entry)`` of a coordinator log's batches, as a shard replays them: records
    decoded (transactional ones tagged with their producer), markers as transaction ends, and
    record types this reader does not know skipped with a warning, as Kafka's loader skips them."""
    for batch in batches:
        if batch.is_control:
            for record in batch.records:
                marker = decode_control_marker(record)
                yield record.offset, TxnEnd(batch.producer_id, batch.producer_epoch,
                                            marker.type is ControlType.COMMIT, marker.coordinator_epoch)
            continue
        for record in batch.records:
            entry = record_entry(topic, partition, batch, record)
            if entry is not None:
                yield record.offset, entry


def record_entry(topic: str, partition: int, batch: RecordBatch, record: Record,
                 stacklevel: int = 4) -> LogEntry | None:
    """One data record of ``batch`` as :func:`log_entries` gives it; None (and a warning) for a
    record type this reader does not know. The warning names the caller of the caller (of
    :func:`log_entries`, say) unless ``stacklevel`` says otherwise (see :func:`data_entry`)."""
    return data_entry(topic, partition, record.offset, record.key, record.value, batch.is_transactional,
                      batch.producer_id, batch.producer_epoch, stacklevel)


def data_entry(topic: str, partition: int, offset: int, key: bytes | None, value: bytes | None,
               transactional: bool, producer_id: int, producer_epoch: int,
               stacklevel: int = 3) -> LogEntry | None:
    """:func:`record_entry` from a record's fields, for a reader that frames records itself (a
    raw batch's: :mod:`~groupspec.impl.codec.raw`). ``stacklevel`` is the warning's, counted
    from here: readers put it at the code that asked for the replay, whatever helpers lie
    between (``shard.replay_batches``'s caller, for the classic shard's loads)."""
    if key is None:
        raise CodecError("a coordinator record without a key", offset)
    try:
        rec = decode_record(topic, key, value)
    except UnknownRecordTypeError as exc:
        warnings.warn(f"{topic}-{partition} offset {offset}: {exc}; skipped", stacklevel=stacklevel)
        return None
    except CodecError as exc:
        raise exc.at(offset) from None
    if transactional:
        return TxnRecord(rec, producer_id, producer_epoch)
    return rec


def _base(file: Path) -> int:
    base = base_offset_of(file)
    assert base is not None  # segment_files lists only files named by their base offset
    return base


def _batch_end(file: Path, position: int) -> int:
    """Where the whole batch starting at ``position`` ends (its length field says)."""
    with file.open("rb") as f:
        f.seek(position + 8)
        return position + LOG_OVERHEAD + int.from_bytes(f.read(4), "big", signed=True)


def _zeros_from(file: Path, position: int) -> bool:
    """Whether every byte from ``position`` to the end is zero: space a crash left unwritten."""
    with file.open("rb") as f:
        f.seek(position)
        while chunk := f.read(1 << 20):
            if chunk.count(0) != len(chunk):
                return False
    return True

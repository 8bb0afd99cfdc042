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
"""

from __future__ import annotations

import struct
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from groupspec.impl.codec.batch import (
    BatchReader,
    ControlType,
    Record,
    RecordBatch,
    decode_control_marker,
    encode_batch,
    encode_control_batch,
)
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.errors import CodecError, UnknownRecordTypeError
from groupspec.impl.codec.records import decode_record, encode_record
from groupspec.impl.codec.segment import SegmentWriter, read_log, segment_files
from groupspec.types import InputError
from groupspec.types.classic import LogEntry, TxnEnd, TxnRecord
from groupspec.types.records import CoordinatorRecord


@dataclass(frozen=True)
class Appended:
    """Where one write's entries went: their offsets, in order."""

    offsets: tuple[int, ...]


class PartitionLog:
    """The append-only log of one coordinator partition, in memory or in segment files.

    ``directory`` None keeps the batches in one in-memory buffer (the default: fast, and what
    the tests use); otherwise they are appended to Kafka-named segment files under
    ``directory/<topic>-<partition>``, and an existing log there is read first, so a coordinator
    built on the same directory later loads what an earlier one wrote.
    """

    def __init__(
        self,
        topic: str,
        partition: int,
        *,
        directory: Path | None = None,
        compression: Compression = Compression.NONE,
    ) -> None:
        self.topic = topic
        self.partition = partition
        self.compression = compression
        self._buffer = bytearray()
        self._writer: SegmentWriter | None = None
        self.path: Path | None = None
        self.next_offset = 0
        self.batches = 0
        if directory is not None:
            self.path = Path(directory) / f"{topic}-{partition}"
            if self.path.is_dir():
                for item in read_log(self.path):
                    entry = item.entry
                    if not isinstance(entry, RecordBatch):
                        raise InputError(str(self.path), f"cannot continue a damaged log: {entry}")
                    self.next_offset = entry.next_offset
                    self.batches += 1
            self._writer = SegmentWriter(self.path, base_offset=self.next_offset)

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
            self._writer.flush()
            for item in read_log(self.path):
                yield self._whole(item.entry)
            return
        for _, entry in BatchReader().read(bytes(self._buffer)):
            yield self._whole(entry)

    def _whole(self, entry: object) -> RecordBatch:
        if not isinstance(entry, RecordBatch):
            raise InputError(f"{self.topic}-{self.partition}", f"the log is damaged: {entry}")
        return entry

    def entries(self) -> Iterator[tuple[int, LogEntry]]:
        """``(offset, entry)`` for everything written, decoded back into log entries."""
        for batch in self.batches_read():
            if batch.is_control:
                for record in batch.records:
                    marker = decode_control_marker(record)
                    yield record.offset, TxnEnd(batch.producer_id, batch.producer_epoch,
                                                marker.type is ControlType.COMMIT, marker.coordinator_epoch)
                continue
            for record in batch.records:
                if record.key is None:
                    raise CodecError("a coordinator record without a key", record.offset)
                try:
                    rec = decode_record(self.topic, record.key, record.value)
                except UnknownRecordTypeError as exc:
                    warnings.warn(f"{self.topic}-{self.partition} offset {record.offset}: {exc}; skipped",
                                  stacklevel=2)
                    continue
                except CodecError as exc:
                    raise exc.at(record.offset) from None
                if batch.is_transactional:
                    yield record.offset, TxnRecord(rec, batch.producer_id, batch.producer_epoch)
                else:
                    yield record.offset, rec

    def raw(self) -> bytes:
        """The whole log as one buffer of batches (for an in-memory log: what a segment would hold)."""
        if self._writer is None:
            return bytes(self._buffer)
        assert self.path is not None
        self._writer.flush()
        return b"".join(path.read_bytes() for path in segment_files(self.path))

    def size_bytes(self) -> int:
        return len(self.raw())

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


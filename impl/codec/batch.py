"""Record batches in message format v2 ("magic 2"): how every Kafka log stores its records.

Theory of operation
-------------------
A log (a segment file, a fetch response) is a run of batches with no gaps. Every batch starts
with the same 17 bytes in every message format: ``baseOffset int64``, ``batchLength int32`` (bytes
after this field), 4 format-specific bytes, then ``magic int8``. In v2 those 4 bytes are the
``partitionLeaderEpoch``; in the old formats (magic 0 and 1: a "message set" whose entries are
``offset int64, size int32, crc int32, magic int8, attributes int8 [, timestamp int64], key, value``)
they are the message's CRC-32. So a reader can frame any format by its length and must look at
the magic before reading anything else (Kafka's ``FileLogInputStream`` does the same). The v2
header is 61 bytes; docs/machines/records.md draws it, and ``_HEADER`` below spells it.

The CRC32C covers the attributes through the end of the batch. It does **not** cover the base
offset, the batch length, the partition leader epoch, the magic byte or the CRC itself (brokers
rewrite the offset and the leader epoch without recomputing it). What the reader does about each:

- batch length: must be at least 14 (Kafka's smallest legacy message) and, for magic 2, at least
  49 (a bare header); a smaller one is garbage and ends the read (below). A length reaching past
  the end of the data is a torn tail or garbage (below). A length that is wrong but plausible
  moves the CRC window, so the CRC check fails.
- magic: anything but 2 is :class:`UnsupportedMagicError` naming the offset and the magic.
- CRC field: compared with the CRC computed over the covered bytes.
- base offset: must be >= 0 and greater than the last offset of the last batch accepted before
  it (offsets in a partition only grow; :class:`BatchReader` remembers the last offset across
  buffers and files; a refused batch does not move it, so the batch after a refused one is still
  checked against the last good one). Only a change that keeps the order (typically in the last
  batch of a log) goes unnoticed, and then it shifts that batch's offsets only.
- partition leader epoch: not checked (any int32 is possible); it changes no record.

Inside the covered bytes the reader also checks what Kafka's reader checks (record lengths,
header counts, that exactly ``recordCount`` records fill the records section) and a little more
(record offset deltas strictly increase and stay within ``lastOffsetDelta``; a key or value
length below -1 is malformed, where Kafka's reader takes any negative length as null).

Strict and lenient reading
--------------------------
:class:`BatchReader` walks a buffer and yields ``(position, entry)`` pairs. An entry is a
:class:`RecordBatch`, or, in lenient mode, a :class:`BadBatch` for a batch whose framing (its
length) is sound but whose content is not (CRC, magic, compression, records, offset order,
decompressed size): the reader reports it and goes on with the next batch. In strict mode the
same problems raise their :class:`CodecError`.

When the framing itself fails there is no next batch to go on with: in either mode the walk
raises a :class:`FramingError` (a :class:`MalformedError` that carries the byte ``position``).
Callers that go on with other data (the next segment file) turn it into an :class:`UnframedRest`
entry. Framing fails on a batch length below the minimum, and on data that ends inside a batch
unless that batch is a **torn tail**.

Torn tail: a broker killed in the middle of a write leaves the start of one batch at the end of
its active segment, and Kafka's own reader stops there quietly. Corruption can look the same (a
length field made larger mid-segment runs past the end of the file too), so the reader takes
the end of the data as a torn tail, yields a :class:`PartialBatch` and ends the walk, only when
all three hold:

1. the header, as far as it is present, is one a broker writes: base offset >= 0, after the
   last accepted offset and, in a segment file, at most 2^31 - 1 past the file's base offset
   (the offsets an index can address: Kafka rolls a new segment before that); batch length
   >= 49; magic 2; compression id 0-4 and attribute bits 7-15 clear; last offset delta >= 0;
   record count >= 0, at most last offset delta + 1 and (no compression) at most what the
   declared length can hold;
2. the records present are a start of its records: those wholly present decode (lengths,
   fields, offset deltas growing within the last offset delta) and, uncompressed, nothing
   follows the last record the count allows; gzip data inflates without error as far as it
   goes (the other codecs are not looked into: a damaged lz4, snappy or zstd last batch cut
   short reads as a torn tail);
3. nothing shows that the batch really ends before the data does: no position after its 61-byte
   header where the batch's CRC32C matches the bytes so far (a complete batch with a wrong
   length) and no complete batch with a matching CRC32C that starts there (a batch that follows).

Every cut of a real batch at any byte passes all three (a false match needs a CRC32C collision);
random bytes and a length corrupted mid-segment fail one of them.

Writing
-------
:func:`encode_batch` builds any batch (compression, transactional and control flags, producer
fields, timestamp types, delete horizon, headers); :func:`encode_control_batch` builds the
COMMIT/ABORT marker batch a transaction coordinator writes, and :func:`decode_control_marker`
reads one back. Record offsets and timestamps are absolute in :class:`Record`; the batch stores
them as deltas from ``base_offset`` and the base timestamp.

Speed: the uncompressed record loop decodes one- and two-byte varints inline and builds records
without the dataclass ``__init__`` (a frozen dataclass's ``__init__`` goes through
``object.__setattr__`` once per field, which is most of the cost of a small record): it fills an
unfrozen class of the same slots and then re-labels it a :class:`Record` (``_UnfrozenRecord``).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum

import google_crc32c

from groupspec.impl.codec.compression import DEFAULT_MAX_BATCH_BYTES, Compression, compress, decompress
from groupspec.impl.codec.errors import (
    CodecError,
    CorruptBatchError,
    FramingError,
    MalformedError,
    TruncatedError,
    UnsupportedMagicError,
)
from groupspec.impl.codec.varint import Buffer, read_varint, read_varlong, uvarint
from groupspec.types import InputError

#: ``baseOffset`` + ``batchLength``: the bytes in front of what ``batchLength`` counts.
LOG_OVERHEAD = 12
#: Bytes a reader needs before it can tell the format of a batch.
HEADER_SIZE_UP_TO_MAGIC = 17
#: The v2 batch header, up to and including ``recordCount``.
RECORD_BATCH_OVERHEAD = 61
#: Kafka's smallest legal ``batchLength`` of any format (a magic-0 message with null key and value).
MIN_LEGACY_LENGTH = 14
#: The smallest record: length, attributes, timestamp delta, offset delta, key and value lengths
#: and header count, one byte each.
MIN_RECORD_SIZE = 7
CURRENT_MAGIC = 2
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1
NO_TIMESTAMP = -1

_CRC_START = 21  # first byte the CRC covers: the attributes
_MIN_V2_LENGTH = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD
_HEADER = struct.Struct(">qiibIhiqqqhii")
_PREFIX = struct.Struct(">qiib")  # the 17 bytes every message format starts with
_COMPRESSION_MASK = 0x07
_TIMESTAMP_TYPE_MASK = 0x08
_TRANSACTIONAL_MASK = 0x10
_CONTROL_MASK = 0x20
_DELETE_HORIZON_MASK = 0x40
_INT32_MAX = (1 << 31) - 1
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class TimestampType(IntEnum):
    """Attribute bit 3: whose clock the timestamps are."""

    CREATE_TIME = 0
    LOG_APPEND_TIME = 1


class ControlType(IntEnum):
    """The control record types that end a transaction (``ControlRecordType``)."""

    ABORT = 0
    COMMIT = 1


# Other control record types Kafka knows; they belong to KRaft's metadata log, never to the
# coordinator topics, so they are only named in error messages.
_OTHER_CONTROL_TYPES = {2: "LEADER_CHANGE", 3: "SNAPSHOT_HEADER", 4: "SNAPSHOT_FOOTER",
                        5: "KRAFT_VERSION", 6: "KRAFT_VOTERS"}


@dataclass(frozen=True, slots=True)
class Record:
    """One record of a batch, with its absolute offset and timestamp (Kafka's ``Record``).

    ``timestamp`` is the batch's max timestamp for every record of a LogAppendTime batch, as
    Kafka's reader reports it. Header keys are strings (Kafka's are), values bytes or null.
    """

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


@dataclass(frozen=True)
class RecordBatch:
    """One decoded v2 batch; field names follow Kafka's ``DefaultRecordBatch`` header."""

    base_offset: int
    partition_leader_epoch: int
    magic: int
    crc: int
    compression: Compression
    timestamp_type: TimestampType
    is_transactional: bool
    is_control: bool
    has_delete_horizon: bool
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records: tuple[Record, ...]

    @property
    def last_offset(self) -> int:
        """The batch's last offset, kept even when compaction removed that record."""
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.last_offset + 1

    @property
    def delete_horizon_ms(self) -> int | None:
        """When the cleaner may drop this batch's tombstones; it is stored in the base timestamp."""
        return self.base_timestamp if self.has_delete_horizon else None


@dataclass(frozen=True)
class ControlMarker:
    """The end of a transaction: which end, and the epoch of the coordinator that wrote it."""

    type: ControlType
    coordinator_epoch: int
    key_version: int = 0
    value_version: int = 0

    @property
    def kind(self) -> str:
        """``"COMMIT"`` or ``"ABORT"``."""
        return self.type.name


@dataclass(frozen=True)
class BadBatch:
    """A batch whose framing is sound but whose content is not (lenient reading only).

    ``offset`` is the base offset its header claims, ``position`` where it starts in the data,
    ``raw`` its bytes, ``error`` what is wrong with them.
    """

    offset: int
    position: int
    raw: bytes
    error: CodecError


@dataclass(frozen=True)
class PartialBatch:
    """The data ends inside a batch: ``present`` of the ``needed`` bytes are there.

    ``needed`` is what the batch length says (or the 17 bytes of a header, when even the length
    is not all there); ``offset`` is the base offset when its 8 bytes are present.
    """

    position: int
    present: int
    needed: int
    offset: int | None

    def describe(self) -> str:
        where = f"batch at byte {self.position}" + ("" if self.offset is None else f" (offset {self.offset})")
        return (f"{where} is cut short: {self.present} of {self.needed} bytes present; "
                "reading of this data ends here, as Kafka's does")


@dataclass(frozen=True)
class UnframedRest:
    """Bytes that cannot be framed, from ``position`` to the end of the data (lenient reading only).

    :class:`BatchReader` raises a :class:`FramingError` there; a reader of several files (see
    :func:`~groupspec.impl.codec.segment.read_log`) reports the rest of the file as this entry and
    goes on with the next file.

    ``size`` is how many bytes that is, ``offset`` the base offset of the batch header found there
    (when its 8 bytes are present), ``error`` why framing failed (its reason names the position).
    """

    position: int
    size: int
    offset: int | None
    error: CodecError


@dataclass(slots=True)
class RawBatch:
    """An uncompressed data batch whose header and CRC a raw reader has checked, handed on with
    its records still unread (:mod:`~groupspec.impl.codec.raw`).

    A loop that replays millions of records reads them straight from ``buf[start:end]`` and
    needs no :class:`Record` per record; it must still refuse what :func:`_decode_records`
    refuses, and :func:`~groupspec.impl.codec.raw.raw_batch_error` gives the very error the
    strict reader would have raised for the batch. ``position``, ``total`` and
    ``max_batch_bytes`` are where the batch sits and the reader's bound, for that error;
    ``source`` the file it came from (None for a buffer), which that error names.
    """

    base_offset: int
    last_offset_delta: int
    is_transactional: bool
    producer_id: int
    producer_epoch: int
    count: int
    buf: bytes
    start: int
    end: int
    position: int
    total: int
    max_batch_bytes: int
    source: str | None


Entry = RecordBatch | RawBatch | BadBatch | PartialBatch | UnframedRest

_CODECS = tuple(Compression)
_TIMESTAMP_TYPES = (TimestampType.CREATE_TIME, TimestampType.LOG_APPEND_TIME)


class _UnfrozenRecord:
    """:class:`Record`'s slots without its frozen ``__setattr__``. The record loop fills one
    with plain attribute stores and then turns it into a ``Record`` by assigning ``__class__``,
    which Python allows between classes of one slot layout: a frozen dataclass's ``__init__``
    (or its slots' ``__set__``, one call per field) costs about twice as much, and a log
    replay builds one per record. The assignment below fails at import if the layouts ever
    part, rather than on the first record."""

    __slots__ = ("headers", "key", "offset", "timestamp", "value")  # Python sorts slots anyway
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...]


_UnfrozenRecord().__class__ = Record  # type: ignore[assignment]


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


class BatchReader:
    """Walks buffers of batches, remembering the last offset so that offsets must keep growing.

    One reader can walk several buffers in log order (the segments of a partition): pass each
    to :meth:`read`. ``after_offset`` is an offset every batch must come after (for a segment,
    one less than the base offset in its file name). ``max_batch_bytes`` bounds what one batch
    may decompress to (see :mod:`compression`).
    """

    def __init__(self, *, lenient: bool = False, after_offset: int | None = None,
                 max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> None:
        if not isinstance(max_batch_bytes, int) or isinstance(max_batch_bytes, bool) or max_batch_bytes < 0:
            raise InputError("max_batch_bytes", f"{max_batch_bytes!r} is not a size in bytes (>= 0)")
        self.lenient = lenient
        self.last_offset = after_offset
        self.max_batch_bytes = max_batch_bytes
        #: The largest base offset a torn tail may claim (set per segment file from its name).
        self.max_tail_offset: int | None = None
        #: The file being read (set per segment file), for errors raised after a batch was
        #: handed on (a :class:`RawBatch`'s records).
        self.source: str | None = None

    def read(self, data: Buffer, start: int = 0, *, origin: int = 0) -> Iterator[tuple[int, Entry]]:
        """``(position, entry)`` for every batch from ``start`` to the end of ``data``.

        ``origin`` is where ``data`` begins in a larger whole (a piece of a segment file read on
        its own, as the audit's read tasks do): positions, in entries and in error reasons, are
        counted from the whole's start, so a piece reports a fault as the whole file would.
        """
        buf = data if isinstance(data, bytes) else bytes(data)
        end = len(buf)
        pos = start
        limit = self.max_batch_bytes
        while pos < end:
            left = end - pos
            if left < HEADER_SIZE_UP_TO_MAGIC:
                problem = _tail_problem(buf, pos, self.last_offset, self.max_tail_offset, limit, origin)
                if problem is None:
                    yield origin + pos, _partial(buf, pos, left, origin)
                    return
                offset = struct.unpack_from(">q", buf, pos)[0] if left >= 8 else None
                raise _framing_error(origin + pos, left, offset, f"the data ends {left} bytes into a "
                                     f"batch header, and this is not a torn tail: {problem}")
            base_offset, length, _epoch, magic = _PREFIX.unpack_from(buf, pos)
            minimum = _MIN_V2_LENGTH if magic == CURRENT_MAGIC else MIN_LEGACY_LENGTH
            if length < minimum:
                raise _framing_error(origin + pos, left, base_offset, f"batch length {length} is below "
                                     f"the minimum {minimum}")
            total = LOG_OVERHEAD + length
            if total > left:
                problem = _tail_problem(buf, pos, self.last_offset, self.max_tail_offset, limit, origin)
                if problem is None:
                    yield origin + pos, PartialBatch(origin + pos, left, total, base_offset)
                    return
                raise _framing_error(origin + pos, left, base_offset, f"batch length {length} runs past "
                                     f"the end of the data ({left} bytes left), and this is not a torn "
                                     f"tail: {problem}")
            try:
                if magic != CURRENT_MAGIC:
                    raise UnsupportedMagicError(magic, base_offset)
                batch = self._batch(buf, pos, total, limit)
            except CodecError as exc:
                _place(exc, base_offset, f"batch at byte {origin + pos}")
                if not self.lenient:
                    raise
                yield origin + pos, BadBatch(base_offset, origin + pos, buf[pos:pos + total], exc)
            else:
                yield origin + pos, batch
            pos += total

    def _batch(self, buf: bytes, pos: int, total: int, limit: int) -> RecordBatch | RawBatch:
        """The v2 batch of ``total`` bytes at ``pos``, decoded and in order, or its error. A raw
        reader (:class:`~groupspec.impl.codec.raw.RawBatchReader`) hands some on unread."""
        batch = _decode_v2(buf, pos, total, limit)
        self._check_order(batch)
        return batch

    def _check_order(self, batch: RecordBatch) -> None:
        # last_offset moves only once the batch is accepted: the batch after a refused one is
        # still checked against the last good one.
        previous = self.last_offset
        if batch.base_offset < 0:
            raise MalformedError(f"base offset {batch.base_offset} is negative")
        if previous is not None and batch.base_offset <= previous:
            raise MalformedError(f"base offset {batch.base_offset} does not come after the last offset "
                                 f"{previous} before it (offsets in a log only grow)")
        self.last_offset = batch.last_offset


def read_batches(data: Buffer, *, lenient: bool = False,
                 max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> Iterator[tuple[int, Entry]]:
    """``(position, entry)`` for every batch in ``data``; see :class:`BatchReader`."""
    return BatchReader(lenient=lenient, max_batch_bytes=max_batch_bytes).read(data)


def decode_batch(data: Buffer, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> RecordBatch:
    """Exactly one v2 batch, which must fill ``data``."""
    buf = data if isinstance(data, bytes) else bytes(data)
    if len(buf) < HEADER_SIZE_UP_TO_MAGIC:
        raise TruncatedError(f"{len(buf)} bytes are too few for a batch header")
    base_offset, length = struct.unpack_from(">qi", buf, 0)
    magic = struct.unpack_from(">b", buf, 16)[0]
    if magic != CURRENT_MAGIC:
        raise UnsupportedMagicError(magic, base_offset)
    total = LOG_OVERHEAD + length
    if length < _MIN_V2_LENGTH:
        raise MalformedError(f"batch length {length} is below the minimum {_MIN_V2_LENGTH}", base_offset)
    if total > len(buf):
        raise TruncatedError(f"batch length {length} needs {total} bytes, {len(buf)} present", base_offset)
    if total < len(buf):
        raise MalformedError(f"{len(buf) - total} bytes follow the batch", base_offset)
    try:
        return _decode_v2(buf, 0, total, max_batch_bytes)
    except CodecError as exc:
        raise exc.at(base_offset) from None


def decode_control_marker(record: Record) -> ControlMarker:
    """The transaction marker a control batch's record holds (``EndTransactionMarker``).

    Like Kafka, a key or value version above the known 0 is read as version 0 (newer versions
    may only add fields at the end); a negative version is corruption.
    """
    key = record.key
    if key is None or len(key) < 4:
        raise TruncatedError("a control record key needs 4 bytes (version int16, type int16)", record.offset)
    key_version, type_id = struct.unpack_from(">hh", key, 0)
    if key_version < 0:
        raise MalformedError(f"control record key version {key_version} is negative", record.offset)
    if type_id not in (ControlType.ABORT, ControlType.COMMIT):
        name = _OTHER_CONTROL_TYPES.get(type_id, "unknown")
        raise MalformedError(f"control record type {type_id} ({name}) is not a transaction marker",
                             record.offset)
    value = record.value
    if value is None or len(value) < 6:
        raise TruncatedError("a transaction marker value needs 6 bytes (version int16, coordinator epoch "
                             "int32)", record.offset)
    value_version, epoch = struct.unpack_from(">hi", value, 0)
    if value_version < 0:
        raise MalformedError(f"transaction marker value version {value_version} is negative", record.offset)
    return ControlMarker(ControlType(type_id), epoch, key_version, value_version)


def _partial(buf: bytes, pos: int, left: int, origin: int = 0) -> PartialBatch:
    offset = struct.unpack_from(">q", buf, pos)[0] if left >= 8 else None
    needed = HEADER_SIZE_UP_TO_MAGIC
    if left >= LOG_OVERHEAD:
        needed = max(needed, LOG_OVERHEAD + struct.unpack_from(">i", buf, pos + 8)[0])
    return PartialBatch(origin + pos, left, needed, offset)


def _framing_error(pos: int, size: int, offset: int | None, reason: str) -> FramingError:
    return FramingError(f"batch at byte {pos}: {reason}; the data cannot be framed past this point",
                        pos, size, offset)


def _tail_problem(buf: bytes, pos: int, last_offset: int | None, highest: int | None,
                  limit: int = DEFAULT_MAX_BATCH_BYTES, origin: int = 0) -> str | None:
    """Why the data from ``pos`` on, which ends inside the batch it starts, is not a torn tail.

    None when it is one: see "Torn tail" in the module doc for the two conditions checked.
    """
    end = len(buf)
    left = end - pos
    if left >= 8:
        base = low = struct.unpack_from(">q", buf, pos)[0]
        shown = str(base)
    else:
        # The base offset is cut short: the range of offsets its present bytes allow.
        base = int.from_bytes(buf[pos:end] + b"\xff" * (8 - left), "big", signed=True)
        low = int.from_bytes(buf[pos:end] + bytes(8 - left), "big", signed=True)
        shown = f"(from its first bytes {buf[pos:end].hex()}, {low} to {base})"
    if base < 0:
        return f"its base offset {shown} is negative"
    if last_offset is not None and base <= last_offset:
        return f"its base offset {shown} does not come after the last offset {last_offset}"
    if highest is not None and low > highest:
        return f"its base offset {shown} is beyond {highest}, the last offset its segment can hold"
    if left < LOG_OVERHEAD:
        return None
    length = struct.unpack_from(">i", buf, pos + 8)[0]
    if length < _MIN_V2_LENGTH:
        return f"its batch length {length} is below the minimum {_MIN_V2_LENGTH}"
    if left < HEADER_SIZE_UP_TO_MAGIC:
        return None
    magic = buf[pos + 16]
    if magic != CURRENT_MAGIC:
        return f"its magic is {magic}, not {CURRENT_MAGIC}"
    if left < _CRC_START + 2:
        return None
    attributes = struct.unpack_from(">h", buf, pos + _CRC_START)[0]
    if attributes & _COMPRESSION_MASK >= len(_CODECS):
        return f"its compression id {attributes & _COMPRESSION_MASK} names no codec"
    if attributes & ~0x7F:
        return f"its attributes {attributes & 0xFFFF:#06x} set bits no writer sets (7-15)"
    if left < _CRC_START + 6:
        return None
    last_delta = struct.unpack_from(">i", buf, pos + 23)[0]
    if last_delta < 0:
        return f"its last offset delta {last_delta} is negative"
    if left < RECORD_BATCH_OVERHEAD:
        return None
    count = struct.unpack_from(">i", buf, pos + 57)[0]
    if count < 0 or count > last_delta + 1:
        return f"its record count {count} does not fit its last offset delta {last_delta}"
    if attributes & _COMPRESSION_MASK == 0 and count > (length - _MIN_V2_LENGTH) // MIN_RECORD_SIZE:
        return f"its record count {count} cannot fit in its length {length}"
    return _prefix_problem(buf, pos, attributes, count, last_delta, limit) or \
        _hidden_end(buf, pos, base + last_delta, origin)


def _prefix_problem(buf: bytes, pos: int, attributes: int, count: int, last_delta: int,
                    limit: int) -> str | None:
    """Why the records present (uncompressed or gzip) cannot be the start of this batch's records.

    The records wholly present must decode as the first records of the batch would (lengths,
    fields, growing offset deltas within the last offset delta), and no bytes may follow the
    last one the count allows; gzip data must inflate without error as far as it goes (at most
    ``limit`` bytes of it). The other codecs cannot tell a cut stream from a damaged one cheaply
    and are not looked into.
    """
    codec = attributes & _COMPRESSION_MASK
    start = pos + RECORD_BATCH_OVERHEAD
    if codec == Compression.GZIP:
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            body = decoder.decompress(buf[start:], max(limit, 1))  # (0 would mean no bound)
        except zlib.error as exc:
            return f"its gzip data is damaged ({exc})"
        start = 0
    elif codec == Compression.NONE:
        body = buf
    else:
        return None
    end = len(body)
    at = start
    complete = 0
    while complete < count and at < end:
        try:
            size, after = read_varint(body, at)
        except CodecError:
            if end - at < 5:
                break  # the data ends inside the length
            return f"record {complete} of its records has no valid length"
        if size < 6:
            return f"record {complete} of its records has length {size}"
        if after + size > end:
            break
        at = after + size
        complete += 1
    if complete:
        base_timestamp = struct.unpack_from(">q", buf, pos + 27)[0]
        try:
            _decode_records(body, start, at, complete, 0, base_timestamp, None, last_delta)
        except CodecError as exc:
            return f"its first {complete} records do not decode ({exc.reason})"
    if complete == count and at < end and codec == Compression.NONE:
        return f"{end - at} bytes follow the {count} records it counts"
    return None


def _hidden_end(buf: bytes, pos: int, last: int, origin: int = 0) -> str | None:
    """Where the batch at ``pos`` (last offset ``last``) shows that it ends before the data does.

    Candidates are the positions after the 61-byte header where a v2 batch header that could
    follow this batch starts (magic 2 at +16, a base offset after ``last``, a length of at least
    49), the end of the data, and the 16 positions before it (a torn tail shorter than a header
    could follow). At each the batch's own CRC32C over the bytes so far is compared (computed
    incrementally: one pass over the data), and a following batch that is complete has its CRC
    checked.
    """
    end = len(buf)
    crc = struct.unpack_from(">I", buf, pos + 17)[0]
    first = pos + RECORD_BATCH_OVERHEAD
    candidates: list[int] = []
    magic_at = buf.find(b"\x02", first + 16, end)
    while magic_at != -1 and magic_at - 16 <= end - HEADER_SIZE_UP_TO_MAGIC:
        q = magic_at - 16
        next_base, next_length = struct.unpack_from(">qi", buf, q)
        if next_base > last and next_length >= _MIN_V2_LENGTH:
            candidates.append(q)
        magic_at = buf.find(b"\x02", magic_at + 1, end)
    candidates.extend(range(max(first, end - HEADER_SIZE_UP_TO_MAGIC + 1), end + 1))
    running = 0
    covered = pos + _CRC_START
    for q in candidates:
        running = google_crc32c.extend(running, buf[covered:q])
        covered = q
        if running == crc:
            return (f"its CRC32C matches its first {q - pos} bytes: it is complete and its length "
                    f"field is wrong")
        if end - q >= RECORD_BATCH_OVERHEAD:
            next_length = struct.unpack_from(">i", buf, q + 8)[0]
            next_end = q + LOG_OVERHEAD + next_length
            if next_end <= end and google_crc32c.value(buf[q + _CRC_START:next_end]) == \
                    struct.unpack_from(">I", buf, q + 17)[0]:
                return f"a complete batch with a valid CRC32C starts at byte {origin + q}, inside it"
    return None


def _place(exc: CodecError, offset: int, where: str) -> None:
    """Put the batch's position in front of the reason, and its offset where none is known yet."""
    CodecError.__init__(exc, f"{where}: {exc.reason}", exc.offset if exc.offset is not None else offset)


def _decode_v2(buf: bytes, pos: int, total: int, limit: int = DEFAULT_MAX_BATCH_BYTES) -> RecordBatch:
    (base_offset, _length, leader_epoch, magic, crc, attributes, last_offset_delta, base_timestamp,
     max_timestamp, producer_id, producer_epoch, base_sequence, count) = _HEADER.unpack_from(buf, pos)
    computed = google_crc32c.value(buf[pos + _CRC_START:pos + total])
    if computed != crc:
        raise CorruptBatchError(f"CRC32C mismatch: the batch says {crc:#010x}, "
                                f"its bytes give {computed:#010x}")
    codec_id = attributes & _COMPRESSION_MASK
    compression = _CODECS[codec_id] if codec_id < len(_CODECS) else Compression.of(codec_id)
    timestamp_type = _TIMESTAMP_TYPES[1 if attributes & _TIMESTAMP_TYPE_MASK else 0]
    if count < 0:
        raise MalformedError(f"record count {count} is negative")
    if last_offset_delta < 0:
        raise MalformedError(f"last offset delta {last_offset_delta} is negative")
    if compression is Compression.NONE:
        body, start, end = buf, pos + RECORD_BATCH_OVERHEAD, pos + total
    else:
        # Decompressed even when the count says 0: records behind a wrong count must be found
        # (and the batch refused) rather than dropped unseen.
        payload = buf[pos + RECORD_BATCH_OVERHEAD:pos + total]
        body = decompress(compression, payload, limit) if count or payload else b""
        start, end = 0, len(body)
    if count > (end - start) // MIN_RECORD_SIZE:
        raise MalformedError(f"record count {count} cannot fit in {end - start} bytes of records")
    log_append_time = max_timestamp if timestamp_type is TimestampType.LOG_APPEND_TIME else None
    records = _decode_records(body, start, end, count, base_offset, base_timestamp, log_append_time,
                              last_offset_delta)
    # Positional, in field order: measurably cheaper than keywords for one-record batches.
    return RecordBatch(base_offset, leader_epoch, magic, crc, compression, timestamp_type,
                       attributes & _TRANSACTIONAL_MASK != 0, attributes & _CONTROL_MASK != 0,
                       attributes & _DELETE_HORIZON_MASK != 0, last_offset_delta, base_timestamp,
                       max_timestamp, producer_id, producer_epoch, base_sequence, records)


def _decode_records(
    buf: bytes,
    pos: int,
    end: int,
    count: int,
    base_offset: int,
    base_timestamp: int,
    log_append_time: int | None,
    last_offset_delta: int,
) -> tuple[Record, ...]:
    """``count`` records filling ``buf[pos:end]`` exactly.

    The varint reads are written out inline (one and two bytes cover almost every length and
    delta of a coordinator record); longer varints go through :mod:`varint`. Reading past
    ``end`` is caught by the length checks, reading past the buffer by the IndexError handler.
    """
    out: list[Record] = []
    append = out.append
    building, record_class = _UnfrozenRecord, Record
    no_headers: tuple[tuple[str, bytes | None], ...] = ()
    previous_delta = -1
    index = 0
    try:
        for index in range(count):  # index names the record in errors
            if pos >= end:
                raise MalformedError(f"the batch counts {count} records, its records section holds {index}")
            b = buf[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    length = (raw >> 1) ^ -(raw & 1)
                    pos += 2
                else:
                    length, pos = read_varint(buf, pos)
            body_end = pos + length
            if length < 6 or body_end > end:
                raise MalformedError(f"record {index}: length {length} does not fit the "
                                     f"{end - pos} bytes left")
            pos += 1  # the record attributes: unused
            b = buf[pos]
            if b < 0x80:
                timestamp_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    timestamp_delta = (raw >> 1) ^ -(raw & 1)
                    pos += 2
                else:
                    timestamp_delta, pos = read_varlong(buf, pos)
            b = buf[pos]
            if b < 0x80:
                offset_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    offset_delta = (raw >> 1) ^ -(raw & 1)
                    pos += 2
                else:
                    offset_delta, pos = read_varint(buf, pos)
            if offset_delta <= previous_delta:
                raise MalformedError(f"record {index}: offset delta {offset_delta} does not grow "
                                     f"(previous {previous_delta})")
            previous_delta = offset_delta
            b = buf[pos]
            if b < 0x80:
                size = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    size = (raw >> 1) ^ -(raw & 1)
                    pos += 2
                else:
                    size, pos = read_varint(buf, pos)
            if size >= 0:
                if pos + size > body_end:
                    raise MalformedError(f"record {index}: key length {size} runs past the record")
                key: bytes | None = buf[pos:pos + size]
                pos += size
            elif size == -1:
                key = None
            else:
                raise MalformedError(f"record {index}: key length {size}")
            b = buf[pos]
            if b < 0x80:
                size = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    size = (raw >> 1) ^ -(raw & 1)
                    pos += 2
                else:
                    size, pos = read_varint(buf, pos)
            if size >= 0:
                if pos + size > body_end:
                    raise MalformedError(f"record {index}: value length {size} runs past the record")
                value: bytes | None = buf[pos:pos + size]
                pos += size
            elif size == -1:
                value = None
            else:
                raise MalformedError(f"record {index}: value length {size}")
            if buf[pos] == 0:
                headers = no_headers
                pos += 1
            else:
                headers, pos = _read_headers(buf, pos, body_end, index)
            if pos != body_end:
                raise MalformedError(f"record {index}: its fields take {pos - body_end + length} bytes, "
                                     f"its length says {length}")
            record = building()
            record.offset = base_offset + offset_delta
            record.timestamp = (base_timestamp + timestamp_delta if log_append_time is None
                                else log_append_time)
            record.key = key
            record.value = value
            record.headers = headers
            record.__class__ = record_class  # type: ignore[assignment]
            append(record)  # type: ignore[arg-type]
    except IndexError:
        raise TruncatedError(f"record {index} runs past the end of the records") from None
    if pos != end:
        raise MalformedError(f"{end - pos} bytes are left after the {count} records the batch counts")
    if previous_delta > last_offset_delta:
        raise MalformedError(f"record offset delta {previous_delta} is beyond the batch's last offset delta "
                             f"{last_offset_delta}")
    return tuple(out)


Headers = tuple[tuple[str, bytes | None], ...]


def _read_headers(buf: bytes, pos: int, body_end: int, index: int) -> tuple[Headers, int]:
    count, pos = read_varint(buf, pos)
    if count < 0 or count > body_end - pos:
        raise MalformedError(f"record {index}: header count {count} does not fit the record")
    headers = []
    for _ in range(count):
        size, pos = read_varint(buf, pos)
        if size < 0 or pos + size > body_end:
            raise MalformedError(f"record {index}: header key length {size} does not fit the record")
        try:
            name = buf[pos:pos + size].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedError(f"record {index}: header key is not UTF-8 ({exc.reason})") from None
        pos += size
        size, pos = read_varint(buf, pos)
        if size >= 0:
            if pos + size > body_end:
                raise MalformedError(f"record {index}: header value length {size} runs past the record")
            header_value: bytes | None = buf[pos:pos + size]
            pos += size
        elif size == -1:
            header_value = None
        else:
            raise MalformedError(f"record {index}: header value length {size}")
        headers.append((name, header_value))
    return tuple(headers), pos


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def encode_batch(
    records: Iterable[Record],
    *,
    base_offset: int = 0,
    compression: Compression = Compression.NONE,
    timestamp_type: TimestampType = TimestampType.CREATE_TIME,
    is_transactional: bool = False,
    is_control: bool = False,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
    producer_id: int = NO_PRODUCER_ID,
    producer_epoch: int = NO_PRODUCER_EPOCH,
    base_sequence: int = NO_SEQUENCE,
    last_offset_delta: int | None = None,
    base_timestamp: int | None = None,
    max_timestamp: int | None = None,
    delete_horizon_ms: int | None = None,
) -> bytes:
    """The bytes of one v2 batch holding ``records`` (absolute offsets, strictly increasing).

    Defaults follow Kafka's ``MemoryRecordsBuilder``: the base timestamp is the first record's
    (``-1`` for an empty batch), the max timestamp the largest record timestamp (for a
    LogAppendTime batch pass the append time), the last offset delta the last record's. A
    delete horizon, when given, becomes the base timestamp and sets attribute bit 6. Compression
    is applied even when it does not shrink the data, as Kafka's producer does.
    """
    records = tuple(records)
    for i, record in enumerate(records):
        if not isinstance(record, Record):
            raise InputError(f"records[{i}]", f"not a Record: {type(record).__name__}")
    _check_int("base_offset", base_offset, 0, _INT64_MAX)
    _check_int("partition_leader_epoch", partition_leader_epoch, -(1 << 31), _INT32_MAX)
    _check_int("producer_id", producer_id, _INT64_MIN, _INT64_MAX)
    _check_int("producer_epoch", producer_epoch, -(1 << 15), (1 << 15) - 1)
    _check_int("base_sequence", base_sequence, -(1 << 31), _INT32_MAX)
    if is_transactional and producer_id < 0:
        raise InputError("producer_id", "a transactional batch needs a producer id (>= 0)")
    if delete_horizon_ms is not None:
        if base_timestamp is not None and base_timestamp != delete_horizon_ms:
            raise InputError("base_timestamp",
                             "a batch with a delete horizon stores it as its base timestamp")
        base_timestamp = delete_horizon_ms
    if base_timestamp is None:
        base_timestamp = records[0].timestamp if records else NO_TIMESTAMP
    _check_int("base_timestamp", base_timestamp, _INT64_MIN, _INT64_MAX)
    if max_timestamp is None:
        max_timestamp = max((r.timestamp for r in records), default=NO_TIMESTAMP)
    _check_int("max_timestamp", max_timestamp, _INT64_MIN, _INT64_MAX)

    body = bytearray()
    previous = base_offset - 1
    for i, record in enumerate(records):
        _check_int(f"records[{i}].offset", record.offset, 0, _INT64_MAX)
        if record.offset <= previous:
            raise InputError(f"records[{i}].offset", f"{record.offset} does not come after {previous} "
                             "(offsets start at base_offset and strictly increase)")
        previous = record.offset
        body += _encode_record(i, record, record.offset - base_offset, record.timestamp - base_timestamp)
    last_delta = previous - base_offset if records else 0
    if last_offset_delta is None:
        last_offset_delta = last_delta
    elif last_offset_delta < last_delta:
        raise InputError("last_offset_delta",
                         f"{last_offset_delta} is before the last record's delta {last_delta}")
    _check_int("last_offset_delta", last_offset_delta, 0, _INT32_MAX)

    payload = compress(compression, bytes(body)) if compression is not Compression.NONE else bytes(body)
    attributes = int(compression)
    if timestamp_type is TimestampType.LOG_APPEND_TIME:
        attributes |= _TIMESTAMP_TYPE_MASK
    if is_transactional:
        attributes |= _TRANSACTIONAL_MASK
    if is_control:
        attributes |= _CONTROL_MASK
    if delete_horizon_ms is not None:
        attributes |= _DELETE_HORIZON_MASK
    length = _batch_length(len(payload))
    out = bytearray(RECORD_BATCH_OVERHEAD)
    _HEADER.pack_into(out, 0, base_offset, length, partition_leader_epoch, CURRENT_MAGIC, 0, attributes,
                      last_offset_delta, base_timestamp, max_timestamp, producer_id, producer_epoch,
                      base_sequence, len(records))
    out += payload
    struct.pack_into(">I", out, 17, google_crc32c.value(bytes(out[_CRC_START:])))
    return bytes(out)


def encode_control_batch(
    marker: ControlType,
    *,
    offset: int,
    timestamp: int,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int,
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
) -> bytes:
    """The control batch that ends a transaction, as ``MemoryRecords.withEndTransactionMarker`` builds it:
    transactional, no sequence, one record (key version 0 + type, value version 0 + coordinator epoch).
    """
    _check_int("coordinator_epoch", coordinator_epoch, -(1 << 31), _INT32_MAX)
    record = Record(offset, timestamp, struct.pack(">hh", 0, ControlType(marker)),
                    struct.pack(">hi", 0, coordinator_epoch))
    return encode_batch([record], base_offset=offset, is_transactional=True, is_control=True,
                        partition_leader_epoch=partition_leader_epoch, producer_id=producer_id,
                        producer_epoch=producer_epoch, base_sequence=NO_SEQUENCE)


def _batch_length(payload_size: int) -> int:
    """The batch's length field for a payload of ``payload_size`` bytes, refused past an int32.

    A function of the size alone so that the edge (a batch of 2 GiB) is testable with an int:
    building the bytes takes gigabytes of memory (tests/cover/test_codec_length_widths.py)."""
    length = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD + payload_size
    if length > _INT32_MAX:
        raise InputError("records", f"a batch of {length} bytes does not fit an int32 length")
    return length


def _check_int(name: str, value: int, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InputError(name, f"{value!r} is not an integer in [{low}, {high}]")


#: Zig-zag varints of 0..63 (one byte each): most lengths and deltas in coordinator batches.
_SMALL_ZIGZAG = tuple(bytes((v << 1,)) for v in range(64))


def _zigzag(name: str, value: int, bits: int) -> bytes:
    if type(value) is int and 0 <= value < 64:
        return _SMALL_ZIGZAG[value]
    low = -(1 << (bits - 1))
    if not isinstance(value, int) or not low <= value < -low:
        raise InputError(name, f"{value!r} does not fit a {bits}-bit varint")
    return uvarint((value << 1) ^ (value >> (bits - 1)))


def _varint32(name: str, value: int) -> bytes:
    """A length, count or offset delta of a record: a zig-zag varint of 32 bits. One function
    for all of them, so that its width is tested with plain ints (a length of 1 GiB or 2 GiB)
    rather than with buffers of that size (tests/cover/test_codec_length_widths.py)."""
    return _zigzag(name, value, 32)


def _encode_bytes(name: str, data: bytes | None) -> bytes:
    if data is None:
        return b"\x01"  # zig-zag -1
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InputError(name, f"expected bytes or None, got {type(data).__name__}")
    return _varint32(name, len(data)) + bytes(data)


def _encode_record(index: int, record: Record, offset_delta: int, timestamp_delta: int) -> bytes:
    where = f"records[{index}]"
    if not isinstance(record.timestamp, int) or record.timestamp < NO_TIMESTAMP:
        raise InputError(f"{where}.timestamp", f"{record.timestamp!r} is not a timestamp (>= -1)")
    parts = [
        b"\x00",  # record attributes: unused
        _zigzag(f"{where}.timestamp", timestamp_delta, 64),
        _varint32(f"{where}.offset", offset_delta),
        _encode_bytes(f"{where}.key", record.key),
        _encode_bytes(f"{where}.value", record.value),
        _varint32(f"{where}.headers", len(record.headers)),
    ]
    for j, header in enumerate(record.headers):
        if not (isinstance(header, tuple) and len(header) == 2 and isinstance(header[0], str)):
            raise InputError(f"{where}.headers[{j}]", "expected a (str, bytes | None) pair")
        parts.append(_encode_bytes(f"{where}.headers[{j}].key", header[0].encode("utf-8")))
        parts.append(_encode_bytes(f"{where}.headers[{j}].value", header[1]))
    body = b"".join(parts)
    return _varint32(where, len(body)) + body

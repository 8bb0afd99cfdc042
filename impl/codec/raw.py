"""A batch reader that hands uncompressed data batches on with their records unread.

Framing a batch into :class:`~groupspec.impl.codec.batch.Record` objects costs about a third of
replaying a busy ``__consumer_offsets`` log, and a replay needs only each record's offset, key
and value: it can read them from the batch's bytes itself (the classic shard's fast path,
:func:`~groupspec.impl.classic_group.fast_offsets.replay_raw_batch`). :class:`RawBatchReader`
reads like the strict :class:`~groupspec.impl.codec.batch.BatchReader` and yields the same
batches, except that an uncompressed, non-control v2 batch whose header checks pass (CRC, record
count, last offset delta, offset order) comes as a
:class:`~groupspec.impl.codec.batch.RawBatch`. Every other batch, and every batch one of those
checks refuses, goes through the strict reader's own code, so it decodes or fails as it always did.

The records of a raw batch are checked by whoever reads them, and only there. A reader that
finds something wrong asks :func:`raw_batch_error` for the error: it decodes the batch as the
strict reader does and returns the error that reader would have raised, with the same position,
offset and file, so a replay through raw batches fails as a replay through decoded ones does.
The strict reader checks offset order after the records, this one before: a batch out of order
goes to the strict code, which still reports a record problem first.
"""

from __future__ import annotations

import google_crc32c

from groupspec.impl.codec.batch import (
    _COMPRESSION_MASK,
    _CONTROL_MASK,
    _CRC_START,
    _HEADER,
    _TRANSACTIONAL_MASK,
    MIN_RECORD_SIZE,
    RECORD_BATCH_OVERHEAD,
    BatchReader,
    RawBatch,
    RecordBatch,
    _decode_v2,
    _place,
)
from groupspec.impl.codec.compression import DEFAULT_MAX_BATCH_BYTES
from groupspec.impl.codec.errors import CodecError

_RAW_REFUSES = _COMPRESSION_MASK | _CONTROL_MASK


class RawBatchReader(BatchReader):
    """A strict :class:`BatchReader` that yields :class:`RawBatch` where it can (see above).

    Strict only: a lenient reader turns a bad batch into a ``BadBatch`` and goes on, which a
    batch whose records are read later cannot do.
    """

    def __init__(self, *, after_offset: int | None = None,
                 max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> None:
        super().__init__(lenient=False, after_offset=after_offset, max_batch_bytes=max_batch_bytes)

    def _batch(self, buf: bytes, pos: int, total: int, limit: int) -> RecordBatch | RawBatch:
        if buf[pos + _CRC_START + 1] & _RAW_REFUSES:  # the attributes' low byte: compressed, or control
            return super()._batch(buf, pos, total, limit)
        (base_offset, _length, _epoch, _magic, crc, attributes, last_offset_delta, _base_timestamp,
         _max_timestamp, producer_id, producer_epoch, _sequence, count) = _HEADER.unpack_from(buf, pos)
        previous = self.last_offset
        if (count < 0 or last_offset_delta < 0 or base_offset < 0
                or count > (total - RECORD_BATCH_OVERHEAD) // MIN_RECORD_SIZE
                or (previous is not None and base_offset <= previous)
                or google_crc32c.value(buf[pos + _CRC_START:pos + total]) != crc):
            # Something the strict reader refuses: its code raises, in its order of checks.
            return super()._batch(buf, pos, total, limit)
        self.last_offset = base_offset + last_offset_delta
        return RawBatch(base_offset, last_offset_delta, attributes & _TRANSACTIONAL_MASK != 0, producer_id,
                        producer_epoch, count, buf, pos + RECORD_BATCH_OVERHEAD, pos + total, pos,
                        total, limit, self.source)


def raw_batch_error(batch: RawBatch) -> CodecError | None:
    """The error the strict reader raises for ``batch``'s bytes, worded as it words it (batch
    position, offset, file); None when it decodes them."""
    try:
        _decode_v2(batch.buf, batch.position, batch.total, batch.max_batch_bytes)
    except CodecError as exc:
        _place(exc, batch.base_offset, f"batch at byte {batch.position}")
        if batch.source is not None:
            CodecError.__init__(exc, f"{batch.source}, {exc.reason}", exc.offset)
        return exc
    return None


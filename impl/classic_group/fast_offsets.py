"""OffsetCommit records read straight into plain fields, for loops that replay millions of them.

Most of a busy ``__consumer_offsets`` log is OffsetCommit records (type 1). Replaying one through
:func:`~groupspec.impl.codec.records.decode_record` builds a key object, a value object and a
``CoordinatorRecord``, and the shard then copies five numbers and a string out of them; those
objects and the layers around them cost more than reading the bytes. The two functions here
read the same struct layouts (key v0; value v0-v4): the key into a tuple, the value straight
into the offset manager's entry, since the replay needs nothing else of it.

They accept only what the general decoders accept, with the same result, and return None for
everything else: another record type, an unknown version, a null or non-UTF-8 string, a string
length on more than one varint byte, a tagged field other than one topic id, bytes past the end
or missing. A caller then takes the general path, which gives the object or the typed error it
always gave. So a replay using these can be faster but never says something different; the
tests (tests/cover/test_fast_offsets.py) compare both on generated, real and mutated bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TYPE_CHECKING

from groupspec.impl.classic_group.offsets import OffsetAndMetadata
from groupspec.impl.codec.batch import RawBatch, RecordBatch, _decode_records, _read_headers
from groupspec.impl.codec.raw import raw_batch_error
from groupspec.impl.codec.varint import read_varint, read_varlong
from groupspec.impl.runtime.log import data_entry, record_entry
from groupspec.types.classic_group import LogEntry
from groupspec.types.records import OFFSETS_TOPIC

if TYPE_CHECKING:
    from groupspec.impl.classic_group.shard import GroupCoordinatorShard

#: A key's record type and its group's string length, read in one call (both int16).
_TYPE_AND_LENGTH = struct.Struct(">hh")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_TWO_INT64 = struct.Struct(">qq")
_INT64_INT16 = struct.Struct(">qh")  # offset, metadata length (v0-v2)
_INT64_INT32_INT16 = struct.Struct(">qih")  # offset, leader epoch, metadata length (v3)
_INT64_INT32_UINT8 = struct.Struct(">qiB")  # offset, leader epoch, metadata's first length byte (v4)
_INT64_INT32 = struct.Struct(">qi")  # offset, leader epoch (v4)
#: v4 with empty metadata: offset, leader epoch, the metadata's length byte (1), the commit time.
_V4_NO_METADATA = struct.Struct(">qiBq")
#: Zig-zag varints of one or two bytes, by their 7-bit groups put together: a record's lengths
#: and deltas decoded by one index (a raw batch's record loop).
_ZIGZAG = tuple((raw >> 1) ^ -(raw & 1) for raw in range(0x4000))
#: v4's tagged fields when the topic id (tag 0, 16 bytes) is written: one field, tag 0, size 16.
_TOPIC_ID_TAG = b"\x01\x00\x10"

#: (group, topic, partition)
KeyFields = tuple[str, str, int]
#: (group, topic, partition, the entry its value replays to; None for a tombstone)
CommitFields = tuple[str, str, int, OffsetAndMetadata | None]


def offset_commit_key(key: bytes) -> KeyFields | None:
    """The fields of an OffsetCommit key, or None where :func:`decode_key` must decide."""
    size = len(key)
    if size < 10:  # type, two string lengths, the partition
        return None
    kind, n = _TYPE_AND_LENGTH.unpack_from(key)
    end = 4 + n
    if kind != 1 or n < 0 or end + 6 > size:  # a negative (null) length, or no room for the rest
        return None
    n = key[end] << 8 | key[end + 1]
    start = end + 2
    stop = start + n
    if n >= 0x8000 or stop + 4 != size:
        return None
    try:
        group = key[4:end].decode()
        topic = key[start:stop].decode()
    except UnicodeDecodeError:
        return None
    partition, = _INT32.unpack_from(key, stop)
    return group, topic, partition


def offset_commit_value(value: bytes, log_offset: int) -> OffsetAndMetadata | None:
    """The entry an OffsetCommit value (v0-v4) at ``log_offset`` replays to, or None where
    :func:`decode_value` must decide. A field the version lacks is -1, as the value class's
    defaults say."""
    size = len(value)
    if size < 2 or value[0] != 0:
        return None
    version = value[1]
    try:
        if version == 4:
            offset, leader_epoch, b = _INT64_INT32_UINT8.unpack_from(value, 2)
            if b == 0 or b >= 0x80:  # null, or a length on more than one byte
                return None
            end = 14 + b  # 15 + (b - 1)
            if end > size:
                return None
            metadata = value[15:end].decode()
            commit, = _INT64.unpack_from(value, end)
            pos = end + 8
            if pos + 1 == size and value[pos] == 0:
                return OffsetAndMetadata(offset, leader_epoch, metadata, commit, -1, log_offset)
            if pos + 19 == size and value[pos:pos + 3] == _TOPIC_ID_TAG:  # the topic id: not replayed
                return OffsetAndMetadata(offset, leader_epoch, metadata, commit, -1, log_offset)
            return None
        if version == 3:
            offset, leader_epoch, n = _INT64_INT32_INT16.unpack_from(value, 2)
            start = 16
        elif version <= 2:
            offset, n = _INT64_INT16.unpack_from(value, 2)
            leader_epoch = -1
            start = 12
        else:
            return None
        end = start + n
        if n < 0 or end > size:
            return None
        metadata = value[start:end].decode()
        if version == 1:
            commit, expire = _TWO_INT64.unpack_from(value, end)
            end += 16
        else:
            commit, = _INT64.unpack_from(value, end)
            expire = -1
            end += 8
    except (struct.error, UnicodeDecodeError, IndexError):
        return None
    if end != size:
        return None
    return OffsetAndMetadata(offset, leader_epoch, metadata, commit, expire, log_offset)


def offset_commit_at(buf: bytes, k: int, kend: int, v: int, vend: int,
                     log_offset: int) -> CommitFields | None:
    """An OffsetCommit record whose key is ``buf[k:kend]`` and value ``buf[v:vend]`` (``v`` < 0:
    null), as :func:`offset_commit_key` and :func:`offset_commit_value` read them, in one call
    and with no bytes objects for key or value: what a replay of a raw batch's records calls
    once per record. None where either of those would say None."""
    if kend - k < 10:
        return None
    kind, n = _TYPE_AND_LENGTH.unpack_from(buf, k)
    end = k + 4 + n
    if kind != 1 or n < 0 or end + 6 > kend:
        return None
    n = buf[end] << 8 | buf[end + 1]
    start = end + 2
    stop = start + n
    if n >= 0x8000 or stop + 4 != kend:
        return None
    try:
        group = buf[k + 4:end].decode()
        topic = buf[start:stop].decode()
    except UnicodeDecodeError:
        return None
    partition, = _INT32.unpack_from(buf, stop)
    if v < 0:
        return group, topic, partition, None
    if vend - v >= 15 and buf[v] == 0 and buf[v + 1] == 4:  # v4, inline (the current version)
        b = buf[v + 14]  # the metadata's length + 1, one varint byte
        if b == 1:  # no metadata (most commits): one read up to the commit time
            if v + 24 > vend:  # the commit time and at least the tagged-field count
                return None
            offset, leader_epoch, _, commit = _V4_NO_METADATA.unpack_from(buf, v + 2)
            metadata = ""
            pos = v + 23
        else:
            if b == 0 or b >= 0x80:  # null, or a length on more than one byte
                return None
            end = v + 14 + b
            if end + 9 > vend:  # the metadata, the commit time and at least the tagged-field count
                return None
            try:
                metadata = buf[v + 15:end].decode()
            except UnicodeDecodeError:
                return None
            offset, leader_epoch = _INT64_INT32.unpack_from(buf, v + 2)
            commit, = _INT64.unpack_from(buf, end)
            pos = end + 8
        if (pos + 1 == vend and buf[pos] == 0) or (pos + 19 == vend and buf[pos:pos + 3] == _TOPIC_ID_TAG):
            return group, topic, partition, OffsetAndMetadata(offset, leader_epoch, metadata, commit, -1,
                                                              log_offset)
        return None
    entry = offset_commit_value(buf[v:vend], log_offset)
    if entry is None:
        return None
    return group, topic, partition, entry


def replay_decoded_batch(shard: GroupCoordinatorShard, topic: str, partition: int, batch: RecordBatch,
                         on_commit: Callable[[str], None] | None,
                         on_entry: Callable[[int, LogEntry], None] | None) -> None:
    """``shard.replay_batches`` for one decoded data batch (a compressed one, or any batch of
    a reader that decodes them all): its OffsetCommit records read by :func:`offset_commit_key`
    and :func:`offset_commit_value` straight into the offset manager, every other record, and
    any commit they decline, through the general decoders and ``shard.replay``."""
    offsets = shard.offset_manager
    store = offsets.replay_entry
    # A plain commit of a group that already has committed offsets (nearly every commit of a
    # long log) goes straight into that group's table: what replay_entry does, less the call
    # and its checks. A group with committed offsets exists (replay_entry creates it before its
    # first offset, and a group tombstone removes its offsets with it), so the "simple" group
    # creation cannot be skipped.
    committed_by_group = offsets.offsets
    read_key, read_value = offset_commit_key, offset_commit_value
    fast = topic == OFFSETS_TOPIC  # type 1 is another record on __share_group_state
    producer_id = batch.producer_id if batch.is_transactional else None
    for record in batch.records:
        key = record.key
        if key is not None and fast and (fields := read_key(key)) is not None:
            group, topic_name, topic_partition = fields
            value = record.value
            if value is None:
                if on_commit is not None:
                    on_commit(group)
                store(group, (topic_name, topic_partition), None, producer_id)
                continue
            commit = read_value(value, record.offset)
            if commit is not None:
                if on_commit is not None:
                    on_commit(group)
                committed = None if producer_id is not None else committed_by_group.get(group)
                if committed is not None:
                    committed[topic_name, topic_partition] = commit
                else:
                    store(group, (topic_name, topic_partition), commit, producer_id)
                continue
        found = record_entry(topic, partition, batch, record, 5)  # warnings: replay_batches's caller
        if found is not None:
            if on_entry is not None:
                on_entry(record.offset, found)
            shard.replay(record.offset, found)


class _Refused(Exception):
    """A raw batch's records break a rule of the strict reader's (its error is asked for)."""


def replay_raw_batch(shard: GroupCoordinatorShard, topic: str, partition: int, batch: RawBatch,
                     on_commit: Callable[[str], None] | None,
                     on_entry: Callable[[int, LogEntry], None] | None) -> None:
    """Replay ``batch``'s records from its bytes, as ``shard.replay_batches`` replays the
    records of the same batch decoded, with no ``Record`` per record.

    The framing is the strict reader's (``batch._decode_records``), check for check; where it
    would refuse the records, ``raw_batch_error`` gives the error it raises. The strict reader
    frames a whole batch before its first record is replayed, so a framing error anywhere in a
    batch is the error that surfaces, before any warning, ``on_entry`` call or decode error of
    its records: the batch is framed whole before its first record that takes the general
    path, and anything raised while its records are replayed is held against its framing
    first. Only OffsetCommit records read here may have been stored (and ``on_commit`` told)
    before a framing error later in their batch; a load that fails keeps no shard.
    """
    buf, pos, end = batch.buf, batch.start, batch.end
    base = batch.base_offset
    transactional = batch.is_transactional
    producer_id = batch.producer_id if transactional else None
    offsets = shard.offset_manager
    store = offsets.replay_entry
    committed_by_group = offsets.offsets
    read = offset_commit_at if topic == OFFSETS_TOPIC else None  # type 1 is another record elsewhere
    zigzag = _ZIGZAG
    previous = -1
    framed = False
    try:
        for _ in range(batch.count):
            if pos >= end:
                raise _Refused
            b = buf[pos]
            if b < 0x80:
                length = zigzag[b]
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    length = zigzag[raw]
                    pos += 2
                else:
                    length, pos = read_varint(buf, pos)
            body_end = pos + length
            if length < 6 or body_end > end:
                raise _Refused
            pos += 1  # the record attributes
            # The timestamp delta: not replayed, but read as the strict reader reads it.
            if buf[pos] < 0x80:
                pos += 1
            elif buf[pos + 1] < 0x80:
                pos += 2
            else:
                pos = read_varlong(buf, pos)[1]
            b = buf[pos]
            if b < 0x80:
                delta = zigzag[b]
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    delta = zigzag[raw]
                    pos += 2
                else:
                    delta, pos = read_varint(buf, pos)
            if delta <= previous:
                raise _Refused
            previous = delta
            b = buf[pos]
            if b < 0x80:
                size = zigzag[b]
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    size = zigzag[raw]
                    pos += 2
                else:
                    size, pos = read_varint(buf, pos)
            k = pos
            if size >= 0:
                pos += size
                if pos > body_end:
                    raise _Refused
            elif size == -1:
                k = -1
            else:
                raise _Refused
            kend = pos
            b = buf[pos]
            if b < 0x80:
                size = zigzag[b]
                pos += 1
            else:
                b2 = buf[pos + 1]
                if b2 < 0x80:
                    raw = (b & 0x7F) | (b2 << 7)
                    size = zigzag[raw]
                    pos += 2
                else:
                    size, pos = read_varint(buf, pos)
            v = pos
            if size >= 0:
                pos += size
                if pos > body_end:
                    raise _Refused
            elif size == -1:
                v = -1
            else:
                raise _Refused
            vend = pos
            if buf[pos] == 0:
                pos += 1
            else:
                pos = _read_headers(buf, pos, body_end, 0)[1]  # headers: checked, not replayed
            if pos != body_end:
                raise _Refused
            offset = base + delta
            if k >= 0 and read is not None and (fields := read(buf, k, kend, v, vend, offset)) is not None:
                group, topic_name, topic_partition, commit = fields
                if on_commit is not None:
                    on_commit(group)
                if commit is not None and producer_id is None:
                    committed = committed_by_group.get(group)
                    if committed is not None:
                        committed[topic_name, topic_partition] = commit
                        continue
                store(group, (topic_name, topic_partition), commit, producer_id)
                continue
            if not framed:
                # Before the first record that takes the general path (which may warn, call
                # on_entry or fail to decode), the batch's records are framed whole, as the
                # strict reader frames them before any is replayed (its header and CRC were
                # checked by the reader; a refusal raises, and the handler below words it).
                _decode_records(buf, batch.start, end, batch.count, base, base, None, batch.last_offset_delta)
                framed = True
            found = data_entry(topic, partition, offset, None if k < 0 else buf[k:kend],
                               None if v < 0 else buf[v:vend], transactional, batch.producer_id,
                               batch.producer_epoch, 4)  # warnings: replay_batches's caller
            if found is not None:
                if on_entry is not None:
                    on_entry(offset, found)
                shard.replay(offset, found)
        if pos != end or previous > batch.last_offset_delta:
            raise _Refused
    except Exception as exc:
        problem = raw_batch_error(batch)
        if problem is not None:
            raise problem from None
        if isinstance(exc, _Refused):  # a rule of the strict reader's read wrongly here
            raise AssertionError(f"the raw reading of the batch at offset {base} refused what the "
                                 "strict reader reads") from exc
        raise

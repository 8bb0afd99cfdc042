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

from groupspec.impl.classic_group.offsets import OffsetAndMetadata

#: A key's record type and its group's string length, read in one call (both int16).
_TYPE_AND_LENGTH = struct.Struct(">hh")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_TWO_INT64 = struct.Struct(">qq")
_INT64_INT16 = struct.Struct(">qh")  # offset, metadata length (v0-v2)
_INT64_INT32_INT16 = struct.Struct(">qih")  # offset, leader epoch, metadata length (v3)
_INT64_INT32_UINT8 = struct.Struct(">qiB")  # offset, leader epoch, metadata's first length byte (v4)
#: v4's tagged fields when the topic id (tag 0, 16 bytes) is written: one field, tag 0, size 16.
_TOPIC_ID_TAG = b"\x01\x00\x10"

#: (group, topic, partition)
KeyFields = tuple[str, str, int]


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

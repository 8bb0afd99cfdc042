"""Conformance vectors of whole logs (machine ``records``, handler ``decode_log``): the bytes of
record batches back to back, as a segment file or a fetch response holds them, in; what
groupspec's reader (``groupspec decode``) makes of them out.

Each case says which writer made its bytes: groupspec's own batch writer
(:func:`groupspec.impl.codec.batch.encode_batch`), kafka-python's (``DefaultRecordBatchBuilder``
for message format v2, ``LegacyRecordBatchBuilder`` for the magic 0 and 1 message sets), or the
writer's bytes then damaged by hand (the damage is spelled out in the case). The records inside
are coordinator records encoded by groupspec's codec (the hand-computed bytes of
classic_group.md §5.2 where there are some). Expectations come from groupspec's reader.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC

#: OffsetCommit v3 of testgroup/orders-0 and its key (classic_group.md §5.2).
COMMIT_KEY = bytes.fromhex("0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000")
COMMIT_V3 = bytes.fromhex("0003" "0000000000003039" "00000007" "0006" "6d6574612d78" "0000018bcfe5687b")
#: GroupMetadata v3 of an empty testgroup and its key.
GROUP_KEY = bytes.fromhex("0002" "0009" "7465737467726f7570")
GROUP_EMPTY_V3 = bytes.fromhex("0003" "0000" "00000000" "ffff" "ffff" "0000018bcfe56800" "00000000")
T0 = 1_700_000_000_000


@dataclass(frozen=True)
class LogCase:
    case: str
    description: str
    #: Who wrote the bytes: "groupspec", "kafka-python", or either then damaged by hand.
    writer: str
    topic: str
    build: Callable[[], bytes]


def _commit(offset: int, group: str = "testgroup", partition: int = 0) -> tuple[bytes, bytes]:
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import OffsetCommitKey, OffsetCommitValue

    key = encode_key(OffsetCommitKey(group=group, topic="orders", partition=partition))
    value = encode_value(OffsetCommitValue(offset=12345, leader_epoch=7, metadata="m",
                                           commit_timestamp=T0 + offset), 3)
    return key, value


def _records(base: int, pairs: list[tuple[bytes | None, bytes | None]], step: int = 1) -> list[Any]:
    from groupspec.impl.codec.batch import Record

    return [Record(base + i * step, T0 + 10 * i, k, v) for i, (k, v) in enumerate(pairs)]


def _ours(base: int, pairs: list[tuple[bytes | None, bytes | None]], **kw: Any) -> bytes:
    from groupspec.impl.codec.batch import encode_batch

    return encode_batch(_records(base, pairs), base_offset=base, **kw)


def _mixed() -> list[tuple[bytes | None, bytes | None]]:
    """A commit, a group and a tombstone: three record types of the offsets topic."""
    return [(COMMIT_KEY, COMMIT_V3), (GROUP_KEY, GROUP_EMPTY_V3), (COMMIT_KEY, None)]


def _compressed(codec: str) -> Callable[[], bytes]:
    def build() -> bytes:
        from groupspec.impl.codec.compression import Compression

        return _ours(0, [*_mixed(), _commit(3, partition=1)], compression=Compression[codec.upper()],
                     producer_id=-1)
    return build


def _kafka_python(codec: str) -> Callable[[], bytes]:
    def build() -> bytes:
        from kafka.record.default_records import DefaultRecordBatchBuilder

        ids = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
        builder = DefaultRecordBatchBuilder(magic=2, compression_type=ids[codec], is_transactional=False,
                                            producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                            batch_size=1 << 20)
        for i, (key, value) in enumerate(_mixed()):
            builder.append(i, timestamp=T0 + 10 * i, key=key, value=value, headers=[])
        # Python's gzip writes the current time into its header: a fixed clock keeps the bytes
        # (and so the vector) the same on every run.
        with mock.patch("gzip.time") as clock:
            clock.time.return_value = T0 // 1000
            return bytes(builder.build())
    return build


def _legacy(magic: int) -> Callable[[], bytes]:
    def build() -> bytes:
        from kafka.record.legacy_records import LegacyRecordBatchBuilder

        builder = LegacyRecordBatchBuilder(magic=magic, compression_type=0, batch_size=1 << 20)
        builder.append(0, timestamp=T0 if magic else None, key=COMMIT_KEY, value=COMMIT_V3)
        builder.append(1, timestamp=T0 + 1 if magic else None, key=GROUP_KEY, value=GROUP_EMPTY_V3)
        # then the broker upgraded: a v2 batch follows the old message set
        return bytes(builder.build()) + _ours(2, [_commit(2)])
    return build


def _recrc(batch: bytearray) -> bytes:
    import google_crc32c

    struct.pack_into(">I", batch, 17, google_crc32c.value(bytes(batch[21:])))
    return bytes(batch)


def _transaction(marker: str) -> Callable[[], bytes]:
    def build() -> bytes:
        from groupspec.impl.codec.batch import ControlType, encode_control_batch

        data = _ours(0, [_commit(0), _commit(1, partition=1)], is_transactional=True, producer_id=4000,
                     producer_epoch=3, base_sequence=0, partition_leader_epoch=5)
        control = encode_control_batch(ControlType[marker], offset=2, timestamp=T0 + 50, producer_id=4000,
                                       producer_epoch=3, coordinator_epoch=11, partition_leader_epoch=5)
        return data + control + _ours(3, [_commit(3, partition=2)], partition_leader_epoch=5)
    return build


def _torn_tail() -> bytes:
    second = _ours(3, [_commit(3), _commit(4, partition=1)])
    return _ours(0, _mixed()) + second[: len(second) - 9]


def _torn_header() -> bytes:
    return _ours(0, _mixed()) + _ours(3, [_commit(3)])[:10]


def _crc_mismatch() -> bytes:
    bad = bytearray(_ours(3, [_commit(3)]))
    bad[-1] ^= 0x01  # the last byte of the record (the commit timestamp's): the CRC no longer matches
    return _ours(0, _mixed()) + bytes(bad) + _ours(4, [_commit(4)])


def _length_below_minimum() -> bytes:
    bad = bytearray(_ours(3, [_commit(3)]))
    struct.pack_into(">i", bad, 8, 20)  # a batch length of 20: below the v2 minimum of 49
    return _ours(0, _mixed()) + bytes(bad)


def _unknown_compression() -> bytes:
    bad = bytearray(_ours(3, [_commit(3)]))
    struct.pack_into(">h", bad, 21, 5)  # compression id 5, CRC recomputed
    return _ours(0, _mixed()) + _recrc(bad) + _ours(4, [_commit(4)])


def _bad_records() -> bytes:
    """A record whose value is cut short, a key-less record, an unknown type, a value version 9, a
    good record, and a key of type id 0xffff (-1 as Kafka's int16 reads it: unknown, skipped)."""
    key, value = _commit(1)
    return _ours(0, [(COMMIT_KEY, COMMIT_V3), (key, value[:-3]), (None, value),
                     (bytes.fromhex("0011" "0001" "67"), bytes.fromhex("0000")),
                     (GROUP_KEY, bytes.fromhex("0009" "00")), _commit(5, partition=3),
                     (bytes.fromhex("ffff" "0001" "67"), None)])


def _empty_first() -> bytes:
    """A batch with no records (the cleaner leaves these to keep a producer's last sequence)
    first: its length is 49, exactly the smallest a v2 batch can have."""
    return _ours(0, [], last_offset_delta=2, producer_id=5, producer_epoch=0, base_sequence=7) + _ours(
        3, [_commit(3)])


def _offset_order() -> bytes:
    return _ours(5, [_commit(5)]) + _ours(2, [_commit(2)]) + _ours(6, [_commit(6)])


def _several() -> bytes:
    from groupspec.impl.codec.batch import TimestampType
    from groupspec.impl.codec.compression import Compression

    return (_ours(0, _mixed(), partition_leader_epoch=0, producer_id=17, producer_epoch=0, base_sequence=0)
            + _ours(3, [_commit(3), _commit(4, partition=1)], partition_leader_epoch=1, producer_id=17,
                    producer_epoch=0, base_sequence=3, timestamp_type=TimestampType.LOG_APPEND_TIME,
                    max_timestamp=T0 + 999)
            + _ours(10, [(COMMIT_KEY, None)], partition_leader_epoch=2, delete_horizon_ms=T0 + 86_400_000)
            + _ours(20, [_commit(20, group="g2")], compression=Compression.GZIP, last_offset_delta=4,
                    base_sequence=2147483646, producer_id=18, producer_epoch=1))


def _share_state() -> bytes:
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import record_types
    from tests.scenarios.records.cases import _sample

    pairs: list[tuple[bytes | None, bytes | None]] = [
        (encode_key(_sample(rt.key, type_id)), encode_value(_sample(rt.value, type_id)))
        for type_id, rt in sorted(record_types(SHARE_STATE_TOPIC).items())]
    return _ours(0, pairs)


def _bad_control() -> bytes:
    from groupspec.impl.codec.batch import Record, encode_batch

    # a control batch whose one record has a 1-byte value (a marker value holds version and epoch)
    rec = Record(0, T0, struct.pack(">hh", 0, 1), b"\x00")
    return encode_batch([rec], is_transactional=True, is_control=True, producer_id=9, producer_epoch=0)


def _consumer_group() -> bytes:
    from groupspec.impl.codec.consumer_protocol import encode_assignment, encode_subscription
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import GroupMetadataKey, GroupMetadataValue
    from groupspec.types.records.consumer_protocol import ConsumerProtocolAssignment as Assignment
    from groupspec.types.records.consumer_protocol import ConsumerProtocolSubscription as Subscription

    member_metadata = GroupMetadataValue.MemberMetadata
    member = member_metadata(
        member_id="c-1", group_instance_id=None, client_id="c", client_host="/10.0.0.1",
        rebalance_timeout=300000, session_timeout=45000,
        subscription=encode_subscription(Subscription(
            topics=("orders",), owned_partitions=(Subscription.TopicPartition("orders", (1,)),)), 1),
        assignment=encode_assignment(Assignment(
            assigned_partitions=(Assignment.TopicPartition("orders", (0, 1)),)), 1))
    waiting = member_metadata(
        member_id="c-2", group_instance_id=None, client_id="c", client_host="/10.0.0.2",
        rebalance_timeout=300000, session_timeout=45000, subscription=b"\x00\x09\xff", assignment=b"")
    value = GroupMetadataValue(protocol_type="consumer", generation=4, protocol="range", leader="c-1",
                               current_state_timestamp=T0, members=(member, waiting))
    return _ours(0, [(encode_key(GroupMetadataKey(group="g")), encode_value(value, 3))])


def _every_type(topic: str) -> Callable[[], bytes]:
    """decode_record's generated cases of one topic (every record type at every value version)
    as one batch: the reader prints each through its own text path, so it must agree with them."""
    def build() -> bytes:
        from tests.scenarios.records.cases import _every_type as every

        return _ours(0, [(bytes.fromhex(k), None if v is None else bytes.fromhex(v))
                         for _, _, t, k, v in every() if t == topic])
    return build


def _boundaries() -> bytes:
    """decode_record's hand-made boundary and decode-only cases as one batch: compact lengths of
    one and two bytes, nulls, zero uuids, unknown and zero tags."""
    from tests.scenarios.records.cases import BOUNDARIES, DECODE_ONLY, HAND_COMPUTED

    pairs: list[tuple[bytes | None, bytes | None]] = [
        (bytes.fromhex(k), None if v is None else bytes.fromhex(v))
        for _, _, t, k, v in HAND_COMPUTED[:5] + BOUNDARIES + DECODE_ONLY
        if t == OFFSETS_TOPIC and len(v or "") < 4096]  # the 32 KiB strings are decode_record's to check
    return _ours(0, pairs)



def _refusals() -> bytes:
    """decode_record's hand-made refusals as one batch, each between two good commits."""
    from tests.scenarios.records.cases import REFUSALS

    pairs: list[tuple[bytes | None, bytes | None]] = [_commit(0)]
    for _, _, _, k, v in REFUSALS:
        pairs += [(bytes.fromhex(k), None if v is None else bytes.fromhex(v)), _commit(len(pairs))]
    return _ours(0, pairs)


def _bad_batch_headers() -> bytes:
    """Bad batches whose headers the batch view still prints, each between good batches: two
    records under a zeroed CRC (the stored CRC below the computed one), an empty batch of exactly
    the 61-byte minimum with a flipped CRC byte, and compression id 6 (CRC recomputed)."""
    zeroed = bytearray(_ours(1, [_commit(1), _commit(2, partition=1)]))
    struct.pack_into(">I", zeroed, 17, 0)
    empty = bytearray(_ours(4, [], last_offset_delta=0))
    empty[17] ^= 0xFF
    codec6 = bytearray(_ours(6, [_commit(6)]))
    struct.pack_into(">h", codec6, 21, 6)
    return (_ours(0, [_commit(0)]) + bytes(zeroed) + _ours(3, [_commit(3)]) + bytes(empty)
            + _ours(5, [_commit(5)]) + _recrc(codec6) + _ours(7, [_commit(7)]))


def _sequence_at_int32_max() -> bytes:
    """Two records from base sequence 2147483646: the last sequence is 2147483647, no wrap yet."""
    return _ours(0, [_commit(0), _commit(1, partition=1)], producer_id=21, producer_epoch=0,
                 base_sequence=2147483646)


def _type_ids_at_the_int16_edges() -> bytes:
    """Records of type ids 0x7fff and 0x8000 (both unknown, skipped): a type id is Kafka's int16
    (``readShort``), so the summary counts them under 32767 and -32768."""
    body = COMMIT_KEY[2:]
    return _ours(0, [(bytes.fromhex("7fff") + body, COMMIT_V3), (bytes.fromhex("8000") + body, COMMIT_V3),
                     (bytes.fromhex("8000") + body, None), _commit(0)])


def _odd_groups() -> bytes:
    """Two records of type id 256 (0x0100; unknown, skipped) whose key is a LegacyOffsetCommit
    key's body, one a tombstone; a classic group of protocol type "custom" (its members' bytes
    are not the consumer protocol, so they are not decoded); a consumer group whose member has no
    subscription bytes but an assignment."""
    from groupspec.impl.codec.consumer_protocol import encode_assignment
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import GroupMetadataKey, GroupMetadataValue
    from groupspec.types.records.consumer_protocol import ConsumerProtocolAssignment as Assignment

    member_metadata = GroupMetadataValue.MemberMetadata
    assignment = encode_assignment(
        Assignment(assigned_partitions=(Assignment.TopicPartition("orders", (0,)),)), 1)
    custom = GroupMetadataValue(
        protocol_type="custom", generation=1, protocol="p", leader="m-1", current_state_timestamp=T0,
        members=(member_metadata(member_id="m-1", group_instance_id=None, client_id="c", client_host="/h",
                                 rebalance_timeout=1000, session_timeout=1000, subscription=b"\x01\x02",
                                 assignment=assignment),))
    consumer = GroupMetadataValue(
        protocol_type="consumer", generation=2, protocol="range", leader="c-1", current_state_timestamp=T0,
        members=(member_metadata(member_id="c-1", group_instance_id=None, client_id="c", client_host="/h",
                                 rebalance_timeout=1000, session_timeout=1000, subscription=b"",
                                 assignment=assignment),))
    type_256 = bytes.fromhex("0100") + COMMIT_KEY[2:]
    return _ours(0, [(type_256, COMMIT_V3), (type_256, None),
                     (encode_key(GroupMetadataKey(group="c1")), encode_value(custom, 3)),
                     (encode_key(GroupMetadataKey(group="c2")), encode_value(consumer, 3))])


def _first_base_offset_negative() -> bytes:
    """A batch whose base offset (outside the CRC) says -1: no segment starts like that."""
    bad = bytearray(_ours(0, [_commit(0)]))
    struct.pack_into(">q", bad, 0, -1)
    return bytes(bad)


def _first_length_below_minimum() -> bytes:
    """A v2 batch whose length says 20 (below 49) at the very start of the log."""
    bad = bytearray(_ours(0, [_commit(0)]))
    struct.pack_into(">i", bad, 8, 20)
    return bytes(bad)


def _legacy_short_first() -> bytes:
    """A magic 0 message set whose one message (null key, a 1-byte value) has length 15: below a
    v2 batch's minimum of 49, at least the 14 of a magic 0 message, so still a segment's start."""
    def build() -> bytes:
        from kafka.record.legacy_records import LegacyRecordBatchBuilder

        builder = LegacyRecordBatchBuilder(magic=0, compression_type=0, batch_size=1 << 20)
        builder.append(0, timestamp=None, key=None, value=b"x")
        return bytes(builder.build()) + _ours(1, [_commit(1)])
    return build()


def _kp_batch(base: int, entries: list[tuple[int, int, bytes | None, bytes | None, list[Any]]],
              codec: int = 0) -> bytes:
    """kafka-python's v2 batch of ``(offset delta, timestamp, key, value, headers)`` records, then
    moved to ``base``: the base offset is outside the CRC, brokers set it the same way."""
    from kafka.record.default_records import DefaultRecordBatchBuilder

    builder = DefaultRecordBatchBuilder(magic=2, compression_type=codec, is_transactional=False,
                                        producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                        batch_size=1 << 20)
    for delta, timestamp, key, value, headers in entries:
        builder.append(delta, timestamp=timestamp, key=key, value=value, headers=headers)
    with mock.patch("gzip.time") as clock:
        clock.time.return_value = T0 // 1000
        data = bytearray(builder.build())
    struct.pack_into(">q", data, 0, base)
    return bytes(data)


def _headers() -> bytes:
    """Record headers (offsets-topic records carry none, but a reader must step over them): a
    header with a value, one with a null value, one with an empty key and empty value, and a key
    in UTF-8 beyond ASCII."""
    return _kp_batch(0, [
        (0, T0, COMMIT_KEY, COMMIT_V3, [("trace", b"abc"), ("none", None)]),
        (1, T0 + 1, GROUP_KEY, GROUP_EMPTY_V3,
         [("", b""), ("z\u00fcrich", b"\x00\xff"), ("x" * 70, b"y" * 70)]),
        (2, T0 + 2, COMMIT_KEY, None, []),
    ])


def _long_metadata(size: int) -> tuple[bytes, bytes]:
    from groupspec.impl.codec.records import encode_value
    from groupspec.types.records import OffsetCommitValue

    return COMMIT_KEY, encode_value(OffsetCommitValue(offset=1, leader_epoch=-1, metadata="m" * size,
                                                      commit_timestamp=T0), 3)


def _wide_deltas() -> bytes:
    """Varints of every width the records section uses: offset deltas 0, 70 (two bytes), 9000
    (three); timestamp deltas 0, -5 (negative), 100 (two bytes), 10,000,000 (four), -2^40 (six);
    value lengths 13, 80 (two bytes) and 9000 (three: a record of over 8 KiB)."""
    k80, v80 = _long_metadata(60)
    k9000, v9000 = _long_metadata(8980)
    return _kp_batch(0, [
        (0, T0, COMMIT_KEY, COMMIT_V3, []),
        (1, T0 - 5, k80, v80, []),
        (70, T0 + 100, GROUP_KEY, GROUP_EMPTY_V3, []),
        (71, T0 + 10_000_000, k9000, v9000, []),
        (9000, T0 - (1 << 40), COMMIT_KEY, None, []),
    ])


def _control_markers() -> bytes:
    """One control batch per marker record, at the edges Kafka's ``ControlRecordType.parseTypeId``
    and ``EndTransactionMarker.deserializeValue`` check: a key of 3 bytes (refused) and of exactly
    4, a key version -1 (refused) and 3 (read as 0), type 2 (LEADER_CHANGE: no transaction
    marker), a value of 5 bytes (refused) and of exactly 6, a value version -1 (refused) and 2
    with a byte more (read as version 0), a null key and a null value."""
    from groupspec.impl.codec.batch import Record, encode_batch

    pairs: list[tuple[bytes | None, bytes | None]] = [
        (bytes.fromhex("000000"), bytes.fromhex("00000000000b")),
        (bytes.fromhex("00000001"), bytes.fromhex("00000000000b")),
        (bytes.fromhex("ffff0001"), bytes.fromhex("00000000000b")),
        (bytes.fromhex("00030000"), bytes.fromhex("00000000000c")),
        (bytes.fromhex("00000002"), bytes.fromhex("00000000000b")),
        (bytes.fromhex("00000001"), bytes.fromhex("0000000000")),
        (bytes.fromhex("00000001"), bytes.fromhex("ffff0000000b")),
        (bytes.fromhex("00000001"), bytes.fromhex("00020000000dff")),
        (None, bytes.fromhex("00000000000b")),
        (bytes.fromhex("00000001"), None),
    ]
    return b"".join(encode_batch([Record(i, T0 + i, key, value)], base_offset=i, is_transactional=True,
                                 is_control=True, producer_id=9, producer_epoch=0)
                    for i, (key, value) in enumerate(pairs))


def _cut_at(size: int, **fields: int) -> Callable[[], bytes]:
    """A good batch, then the first ``size`` bytes of a second whose header field ``fields`` names
    was set by hand (``base``, ``length``, ``magic``, ``attributes``, ``delta``, ``count``)."""
    where = {"base": (0, ">q"), "length": (8, ">i"), "magic": (16, ">b"), "attributes": (21, ">h"),
             "delta": (23, ">i"), "count": (57, ">i")}

    def build() -> bytes:
        second = bytearray(_ours(3, [_commit(3), _commit(4, partition=1)]))
        for name, value in fields.items():
            at, fmt = where[name]
            struct.pack_into(fmt, second, at, value)
        return _ours(0, _mixed()) + bytes(second[:size])
    return build


def _count_at_fit(extra: int) -> Callable[[], bytes]:
    """A good batch, then the first 100 bytes of a second (uncompressed, two records) whose last
    offset delta says 100 and whose record count is the most its length can hold (seven-byte
    records), plus ``extra``."""
    def build() -> bytes:
        second = bytearray(_ours(3, [_commit(3), _commit(4, partition=1)]))
        length = struct.unpack_from(">i", second, 8)[0]
        struct.pack_into(">i", second, 23, 100)
        struct.pack_into(">i", second, 57, (length - 49) // 7 + extra)
        return _ours(0, _mixed()) + bytes(second[:100])
    return build


def _long_records_cut(tail: bytes) -> Callable[[], bytes]:
    """A good batch, then the header and first byte of a batch of records longer than 63 bytes
    (two-byte lengths), followed by ``tail``."""
    def build() -> bytes:
        second = _ours(3, [_long_metadata(60), _long_metadata(61)])
        return _ours(0, _mixed()) + second[:62] + tail
    return build


def _complete_with_longer_length() -> bytes:
    """A good batch, then a complete batch whose length says 10 bytes more, then 3 bytes: its
    CRC32C matches where it really ends, so the end of the data is no torn tail."""
    last = bytearray(_ours(3, [_commit(3)]))
    struct.pack_into(">i", last, 8, struct.unpack_from(">i", last, 8)[0] + 10)
    return _ours(0, _mixed()) + bytes(last) + b"\x00\x00\x00"


def _swallowing_batch() -> bytes:
    """A zstd batch whose CRC field was flipped and whose length reaches past the end of the data,
    over a complete batch that follows it: that batch shows where the first one ends."""
    from groupspec.impl.codec.compression import Compression

    first = bytearray(_ours(0, _mixed(), compression=Compression.ZSTD))
    struct.pack_into(">i", first, 8, struct.unpack_from(">i", first, 8)[0] + 500)
    first[20] ^= 0x01
    return bytes(first) + _ours(3, [_commit(3)])


def _gzip_cut(damage: bool) -> Callable[[], bytes]:
    """A good batch, then the first 90 bytes of a gzip batch (the gzip stream cut short), its
    deflate data damaged by hand when ``damage``."""
    def build() -> bytes:
        from groupspec.impl.codec.compression import Compression

        second = bytearray(_ours(3, [_commit(3), _commit(4, partition=1), _commit(5, partition=2)],
                                 compression=Compression.GZIP))
        if damage:
            second[61 + 10] = 0xFF  # the first byte of the deflate stream: a reserved block type
        return _ours(0, _mixed()) + bytes(second[:90])
    return build


def _zz(value: int) -> bytes:
    from groupspec.impl.codec.varint import uvarint

    return uvarint((value << 1) ^ (value >> 63))


def _one_raw_record(base: int, body: bytes, count: int = 1, after: bytes = b"") -> bytes:
    """An uncompressed batch of ``count`` records whose records section is one record of ``body``
    (then ``after``), CRC recomputed: for damage no writer makes."""
    batch = bytearray(_ours(base, [_commit(base)])[:61]) + _zz(len(body)) + body + after
    struct.pack_into(">i", batch, 8, len(batch) - 12)
    struct.pack_into(">i", batch, 57, count)
    return _recrc(batch)


def _raw_body(headers: bytes) -> bytes:
    """A record at offset delta 0 holding the commit of COMMIT_KEY/COMMIT_V3, then ``headers``
    (the header count and headers as bytes)."""
    return (b"\x00\x00\x00" + _zz(len(COMMIT_KEY)) + COMMIT_KEY + _zz(len(COMMIT_V3)) + COMMIT_V3
            + headers)


def _bad_headers() -> bytes:
    """One batch per damage of a record's headers (the checks of Kafka's ``DefaultRecord.readFrom``):
    a header count of -1, a count larger than the bytes left, a header key length of -1, a key
    running past the record, a value running past the record, a byte left after the headers;
    between them good records with a null header value and an empty header key."""
    damaged = [
        _zz(-1),
        _zz(100) + _zz(0) + _zz(-1),
        _zz(1) + _zz(-1) + _zz(-1),
        _zz(1) + _zz(50) + b"k" + _zz(-1),
        _zz(1) + _zz(1) + b"k" + _zz(50) + b"v",
        _zz(1) + _zz(1) + b"k" + _zz(-1) + b"\x00",
    ]
    good = [_zz(1) + _zz(1) + b"k" + _zz(-1), _zz(2) + _zz(0) + _zz(0) + _zz(1) + b"k" + _zz(1) + b"v"]
    bodies = [damaged[0], good[0], *damaged[1:4], good[1], *damaged[4:]]
    return b"".join(_one_raw_record(i, _raw_body(h)) for i, h in enumerate(bodies))


def _bad_records_sections() -> bytes:
    """Batches whose records section disagrees with its count: a byte after the one record it
    counts; a count of 2 over one record; a gzip batch counting 40 records, more than its records
    (seven bytes at least each) can hold."""
    from groupspec.impl.codec.compression import Compression

    record = _raw_body(_zz(0))
    gzip = bytearray(_ours(2, [_commit(2)], compression=Compression.GZIP))
    struct.pack_into(">i", gzip, 57, 40)
    return (_one_raw_record(0, record, after=b"\x00") + _one_raw_record(1, record, count=2)
            + _recrc(gzip) + _ours(3, [_commit(3)]))


def _consumer_versions() -> bytes:
    """A consumer group's members with subscription and assignment at versions 0 to 3, a version
    4 subscription (read with the version 3 layout, its extra byte left unread, as Kafka's
    ``ConsumerProtocol`` does), and subscriptions of version -1 and of a single byte (refused)."""
    from groupspec.impl.codec.consumer_protocol import encode_assignment, encode_subscription
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import GroupMetadataKey, GroupMetadataValue
    from groupspec.types.records.consumer_protocol import ConsumerProtocolAssignment as Assignment
    from groupspec.types.records.consumer_protocol import ConsumerProtocolSubscription as Subscription

    sub = Subscription(topics=("orders", "pay"), user_data=b"\x07",
                       owned_partitions=(Subscription.TopicPartition("orders", (2,)),), generation_id=4,
                       rack_id="r1")
    assign = Assignment(assigned_partitions=(Assignment.TopicPartition("orders", (0, 2)),), user_data=b"\x08")

    def member(n: int, subscription: bytes, assignment: bytes) -> GroupMetadataValue.MemberMetadata:
        return GroupMetadataValue.MemberMetadata(
            member_id=f"c-{n}", group_instance_id=None, client_id="c", client_host="/10.0.0.1",
            rebalance_timeout=300000, session_timeout=45000, subscription=subscription, assignment=assignment)

    v3 = encode_subscription(sub, 3)
    members = [member(v, encode_subscription(sub, v) if v < 3 else v3, encode_assignment(assign, v))
               for v in range(4)]
    members += [member(4, b"\x00\x04" + v3[2:] + b"\x00", encode_assignment(assign, 3)),
                member(5, b"\xff\xff" + v3[2:], b""), member(6, b"\x00", b"")]
    value = GroupMetadataValue(protocol_type="consumer", generation=4, protocol="range", leader="c-0",
                               current_state_timestamp=T0, members=tuple(members))
    return _ours(0, [(encode_key(GroupMetadataKey(group="g")), encode_value(value, 3))])


def _overlong_varints() -> bytes:
    """Varints as Kafka's ``ByteUtils`` reads them: a record whose timestamp delta takes 10 bytes
    with a last byte of 3 (bit 64 dropped, bit 63 kept: 2^62), offset delta 5 bytes (0), key length 5
    bytes with a last byte of 0x10 (the bit past 32 dropped: 25) and header count 5 bytes with
    a last byte of 0x70 (0) is read; a 6-byte offset delta and an 11-byte timestamp delta are
    refused (a continuation bit on the last byte a varint or varlong may have)."""
    rest = _zz(len(COMMIT_V3)) + COMMIT_V3
    key_length = bytes((2 * len(COMMIT_KEY) | 0x80,)) + b"\x80\x80\x80\x10"
    good = (b"\x00" + b"\x80" * 9 + b"\x03" + b"\x80" * 4 + b"\x00" + key_length + COMMIT_KEY + rest
            + b"\x80\x80\x80\x80\x70")
    six = b"\x00\x00" + b"\x80" * 5 + b"\x00" + _zz(len(COMMIT_KEY)) + COMMIT_KEY + rest + b"\x00"
    eleven = b"\x00" + b"\x80" * 10 + b"\x00\x00" + _zz(len(COMMIT_KEY)) + COMMIT_KEY + rest + b"\x00"
    return (_one_raw_record(0, good) + _one_raw_record(1, six) + _one_raw_record(2, eleven)
            + _ours(3, [_commit(3)]))


def _snappy_framings() -> bytes:
    """Snappy as xerial's ``SnappyInputStream`` (Kafka's reader) takes it: a raw block with no
    stream header, two streams back to back (the header again between chunks), then a chunk
    whose length runs past the stream, and a block whose length varint never ends (both refused);
    then a good batch."""
    import cramjam

    from groupspec.impl.codec.compression import Compression

    header = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)

    def raw(data: bytes) -> bytes:
        return bytes(cramjam.snappy.compress_raw(data))

    def chunk(data: bytes) -> bytes:
        block = raw(data)
        return struct.pack(">i", len(block)) + block

    def with_body(base: int, pairs: list[tuple[bytes | None, bytes | None]],
                  frame: Callable[[bytes], bytes]) -> bytes:
        plain = _ours(base, pairs)
        body = plain[61:]
        batch = bytearray(plain[:61]) + frame(body)
        struct.pack_into(">i", batch, 8, len(batch) - 12)
        struct.pack_into(">h", batch, 21, Compression.SNAPPY)
        return _recrc(batch)

    two: list[tuple[bytes | None, bytes | None]] = [_commit(1), _commit(2, partition=1)]
    return (with_body(0, [_commit(0)], raw)
            + with_body(1, two, lambda b: header + chunk(b[:40]) + header + chunk(b[40:]))
            + with_body(3, [_commit(3)], lambda b: header + struct.pack(">i", len(raw(b)) + 1) + raw(b))
            + with_body(4, [_commit(4)], lambda b: b"\xff\xff\xff\xff\xff\xff")
            + _ours(5, [_commit(5)]))


def _big_decompressed(codec: str) -> Callable[[], bytes]:
    """A batch whose records section decompresses to over 64 KiB (the first output buffer the
    reader tries for lz4 and zstd): a record of an unknown type (skipped) with 70,000 zero bytes
    of value, then a commit."""
    def build() -> bytes:
        from groupspec.impl.codec.compression import Compression

        return _ours(0, [(bytes.fromhex("0011" "0001" "67"), bytes(70_000)), _commit(1)],
                     compression=Compression[codec.upper()])
    return build


def _legacy_smallest(length: int) -> Callable[[], bytes]:
    """A v2 batch, then a magic 0 message at offset 1 of null key and value (kafka-python's
    ``LegacyRecordBatchBuilder``): its length is 14, the smallest Kafka frames
    (``LegacyRecord.RECORD_OVERHEAD_V0``); set to ``length`` by hand when it is not 14. Then a v2
    batch."""
    def build() -> bytes:
        from kafka.record.legacy_records import LegacyRecordBatchBuilder

        builder = LegacyRecordBatchBuilder(magic=0, compression_type=0, batch_size=1 << 20)
        builder.append(0, timestamp=None, key=None, value=None)
        message = bytearray(builder.build())
        struct.pack_into(">qi", message, 0, 1, length)
        return _ours(0, [_commit(0)]) + bytes(message) + _ours(2, [_commit(2)])
    return build


LOG_CASES: tuple[LogCase, ...] = (
    LogCase("log_uncompressed", "one batch of three offsets-topic records (a commit, a group, a "
            "tombstone), no compression", "groupspec", OFFSETS_TOPIC, _compressed("none")),
    *(LogCase(f"log_{c}", f"one {c}-compressed batch of four records", "groupspec", OFFSETS_TOPIC,
              _compressed(c)) for c in ("gzip", "snappy", "lz4", "zstd")),
    *(LogCase(f"log_kafka_python_{c}", f"a {c} batch built by kafka-python's DefaultRecordBatchBuilder",
              "kafka-python", OFFSETS_TOPIC, _kafka_python(c))
      for c in ("none", "gzip", "snappy", "lz4", "zstd")),
    LogCase("log_legacy_magic0", "a magic 0 message set (kafka-python's LegacyRecordBatchBuilder) "
            "then a v2 batch: the old format is refused as a bad batch, the v2 batch is read",
            "kafka-python, then groupspec", OFFSETS_TOPIC, _legacy(0)),
    LogCase("log_legacy_magic1", "a magic 1 message set (kafka-python's LegacyRecordBatchBuilder) "
            "then a v2 batch", "kafka-python, then groupspec", OFFSETS_TOPIC, _legacy(1)),
    LogCase("log_transaction_commit", "a transactional batch, its COMMIT marker (a control batch), "
            "then a plain batch", "groupspec", OFFSETS_TOPIC, _transaction("COMMIT")),
    LogCase("log_transaction_abort", "a transactional batch, its ABORT marker, then a plain batch",
            "groupspec", OFFSETS_TOPIC, _transaction("ABORT")),
    LogCase("log_bad_control_record", "a control batch whose record's value is one byte: quarantined",
            "groupspec", OFFSETS_TOPIC, _bad_control),
    LogCase("log_torn_tail", "a batch, then the second batch without its last 9 bytes (a crash "
            "mid-write): a torn tail, reading ends quietly", "groupspec, cut by hand", OFFSETS_TOPIC,
            _torn_tail),
    LogCase("log_torn_header", "a batch, then the first 10 bytes of a batch header", "groupspec, cut by hand",
            OFFSETS_TOPIC, _torn_header),
    LogCase("log_crc_mismatch", "a batch whose last byte was flipped between two good ones: a "
            "bad batch (CRC32C mismatch), reading goes on", "groupspec, damaged by hand", OFFSETS_TOPIC,
            _crc_mismatch),
    LogCase("log_batch_length_below_minimum", "a batch, then one whose length says 20 (below 49): "
            "the rest cannot be framed", "groupspec, damaged by hand", OFFSETS_TOPIC, _length_below_minimum),
    LogCase("log_unknown_compression", "a batch with compression id 5 (CRC recomputed) between two "
            "good ones", "groupspec, damaged by hand", OFFSETS_TOPIC, _unknown_compression),
    LogCase("log_bad_records", "one batch: a good record, a value cut short, a key-less record, an "
            "unknown type (skipped), a value version 9, a good record, type id 0xffff (skipped)",
            "groupspec", OFFSETS_TOPIC, _bad_records),
    LogCase("log_empty_batch_first", "a segment starting with a batch of no records (length 49, the "
            "minimum), then a batch of one", "groupspec", OFFSETS_TOPIC, _empty_first),
    LogCase("log_offsets_go_back", "batches at offsets 5, 2, 6: the one going back is a bad batch",
            "groupspec", OFFSETS_TOPIC, _offset_order),
    LogCase("log_several_batches", "four batches: producer fields, leader epochs, LogAppendTime, a "
            "delete horizon, gzip with a last offset delta past its record and a wrapping sequence",
            "groupspec", OFFSETS_TOPIC, _several),
    LogCase("log_share_state", "one batch of every share-state record type", "groupspec",
            SHARE_STATE_TOPIC, _share_state),
    LogCase("log_consumer_group", "a consumer group's GroupMetadata: members' subscription and "
            "assignment decoded (one member's subscription is bad, one has no assignment)",
            "groupspec", OFFSETS_TOPIC, _consumer_group),
    LogCase("log_every_offsets_record", "one batch of every __consumer_offsets record type at "
            "every value version (decode_record's generated cases)", "groupspec", OFFSETS_TOPIC,
            _every_type(OFFSETS_TOPIC)),
    LogCase("log_every_share_state_record", "one batch of every __share_group_state record type at "
            "every value version", "groupspec", SHARE_STATE_TOPIC, _every_type(SHARE_STATE_TOPIC)),
    LogCase("log_record_boundaries", "one batch of decode_record's hand-made offsets-topic records "
            "and boundaries (two-byte compact lengths, nulls, zero uuids, unknown tags)", "groupspec",
            OFFSETS_TOPIC, _boundaries),
    LogCase("log_record_refusals", "one batch of decode_record's hand-made refusals, each between "
            "two good commits: quarantined with their error kinds, the commits read", "groupspec",
            OFFSETS_TOPIC, _refusals),
    LogCase("log_bad_batch_headers", "bad batches between good ones, their headers in the batch "
            "view: a zeroed CRC over two records, an empty 61-byte batch with a bad CRC, compression "
            "id 6", "groupspec, damaged by hand", OFFSETS_TOPIC, _bad_batch_headers),
    LogCase("log_sequence_at_int32_max", "a batch of two records from base sequence 2147483646: "
            "last sequence 2147483647 (Kafka's DefaultRecordBatch.incrementSequence)", "groupspec",
            OFFSETS_TOPIC, _sequence_at_int32_max),
    LogCase("log_odd_groups", "type id 256 twice (unknown: skipped), a classic group of protocol type "
            "custom (members not decoded), a consumer member with an assignment but no subscription",
            "groupspec", OFFSETS_TOPIC, _odd_groups),
    LogCase("log_type_ids_at_the_int16_edges", "type ids 32767 and -32768 (0x7fff, 0x8000; unknown, "
            "skipped and counted under their signed int16 values), then a commit", "groupspec",
            OFFSETS_TOPIC, _type_ids_at_the_int16_edges),
    LogCase("log_first_base_offset_negative", "a log whose first batch says base offset -1: not "
            "a segment, refused", "groupspec, damaged by hand", OFFSETS_TOPIC, _first_base_offset_negative),
    LogCase("log_first_length_below_minimum", "a log whose first v2 batch says length 20 (below "
            "49): not a segment, refused", "groupspec, damaged by hand", OFFSETS_TOPIC,
            _first_length_below_minimum),
    LogCase("log_legacy_short_first", "a magic 0 message of length 15 (a v2 batch's minimum is 49, "
            "a magic 0 message's 14) then a v2 batch: a segment; the old format is a bad batch",
            "kafka-python, then groupspec", OFFSETS_TOPIC, _legacy_short_first),
    LogCase("log_kafka_python_headers", "records with headers (kafka-python): a value, a null value, an "
            "empty key and value, a UTF-8 key beyond ASCII, a 70-byte key and value", "kafka-python",
            OFFSETS_TOPIC, _headers),
    LogCase("log_kafka_python_wide_varints", "kafka-python's batch of records whose offset deltas, "
            "timestamp deltas (negative ones too) and value lengths take one to six varint bytes",
            "kafka-python", OFFSETS_TOPIC, _wide_deltas),
    LogCase("log_control_marker_edges", "ten one-record control batches at the edges of a marker's "
            "key and value: too short, exactly long enough, negative versions, later versions, a "
            "LEADER_CHANGE type, null key, null value", "groupspec", OFFSETS_TOPIC, _control_markers),
    LogCase("log_torn_in_base_offset", "a batch, then 5 bytes of a header: a torn tail",
            "groupspec, cut by hand", OFFSETS_TOPIC, _cut_at(5)),
    LogCase("log_cut_base_offset_negative", "a batch, then 5 bytes of a header whose base offset is -1: "
            "no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(5, base=-1)),
    LogCase("log_cut_base_offset_past_segment", "a batch, then 5 bytes of a header whose base offset "
            "is 2^31: beyond what a segment of base 0 holds, no torn tail",
            "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(5, base=1 << 31)),
    LogCase("log_cut_7_bytes_offset_could_grow", "a batch up to offset 2, then 7 bytes of a header "
            "whose base offset says 2: its missing byte may still make it grow, a torn tail",
            "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(7, base=2)),
    LogCase("log_cut_8_bytes_offset_goes_back", "a batch up to offset 2, then 8 bytes of a header "
            "whose base offset is 2: no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(8, base=2)),
    LogCase("log_cut_8_bytes_past_segment", "a batch, then 8 bytes of a header whose base offset is "
            "2^31: no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(8, base=1 << 31)),
    LogCase("log_cut_11_bytes_short_length", "a batch, then 11 bytes of a header whose length says 20: "
            "the length is not all there, a torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(11, length=20)),
    LogCase("log_cut_12_bytes_short_length", "a batch, then 12 bytes of a header whose length says 20: "
            "no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(12, length=20)),
    LogCase("log_cut_16_bytes_magic_1", "a batch, then 16 bytes of a header whose magic is 1: the "
            "magic is not there, a torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(16, magic=1)),
    LogCase("log_cut_17_bytes_magic_1", "a batch, then 17 bytes of a header whose magic is 1: no torn tail",
            "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(17, magic=1)),
    LogCase("log_cut_22_bytes_attribute_bit_7", "a batch, then 22 bytes of a header whose attributes set "
            "bit 7: they are not all there, a torn tail", "groupspec, cut and damaged by hand",
            OFFSETS_TOPIC, _cut_at(22, attributes=0x80)),
    LogCase("log_cut_23_bytes_attribute_bit_7", "a batch, then 23 bytes of a header whose attributes set "
            "bit 7: no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(23, attributes=0x80)),
    LogCase("log_cut_23_bytes_compression_5", "a batch, then 23 bytes of a header of compression id 5: "
            "no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(23, attributes=5)),
    LogCase("log_cut_26_bytes_negative_delta", "a batch, then 26 bytes of a header whose last offset "
            "delta is -1: not all there, a torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(26, delta=-1)),
    LogCase("log_cut_27_bytes_negative_delta", "a batch, then 27 bytes of a header whose last offset "
            "delta is -1: no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(27, delta=-1)),
    LogCase("log_cut_60_bytes_count_past_delta", "a batch, then 60 bytes of a header whose record count "
            "is 3 with a last offset delta of 1: the count is not all there, a torn tail",
            "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(60, count=3)),
    LogCase("log_cut_61_bytes_count_past_delta", "a batch, then the 61-byte header of a batch whose "
            "record count is 3 with a last offset delta of 1: no torn tail",
            "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _cut_at(61, count=3)),
    LogCase("log_cut_61_bytes_count_negative", "a batch, then the 61-byte header of a batch whose "
            "record count is -1: no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _cut_at(61, count=-1)),
    LogCase("log_cut_count_fills_length", "a batch, then 100 bytes of a batch whose record count is "
            "the most its length holds: a torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _count_at_fit(0)),
    LogCase("log_cut_count_past_length", "a batch, then 100 bytes of a batch whose record count is one "
            "more than its length holds: no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _count_at_fit(1)),
    LogCase("log_cut_in_record_length", "a batch, then a batch cut after the first byte of its first "
            "record's two-byte length: a torn tail", "groupspec, cut by hand", OFFSETS_TOPIC,
            _long_records_cut(b"")),
    LogCase("log_cut_record_length_too_long", "a batch, then a batch cut where its first record's "
            "length has five bytes each saying more follow: no torn tail",
            "groupspec, cut and damaged by hand", OFFSETS_TOPIC, _long_records_cut(b"\x80\x80\x80\x80")),
    LogCase("log_complete_batch_longer_length", "a batch, then a complete batch whose length says 10 "
            "bytes more, then 3 bytes: no torn tail", "groupspec, damaged by hand", OFFSETS_TOPIC,
            _complete_with_longer_length),
    LogCase("log_length_over_next_batch", "a zstd batch (CRC field flipped) whose length reaches past "
            "the end, over a complete batch: no torn tail", "groupspec, damaged by hand", OFFSETS_TOPIC,
            _swallowing_batch),
    LogCase("log_gzip_cut", "a batch, then a gzip batch cut inside its gzip stream: a torn tail",
            "groupspec, cut by hand", OFFSETS_TOPIC, _gzip_cut(False)),
    LogCase("log_gzip_cut_damaged", "a batch, then a gzip batch cut inside its gzip stream, its deflate "
            "data damaged: no torn tail", "groupspec, cut and damaged by hand", OFFSETS_TOPIC,
            _gzip_cut(True)),
    LogCase("log_bad_headers", "one-record batches: six with damaged headers (negative count, count "
            "past the bytes left, negative key length, key or value past the record, a byte left "
            "over) and two good ones", "groupspec, damaged by hand", OFFSETS_TOPIC, _bad_headers),
    LogCase("log_records_disagree_with_count", "a byte after the one record counted, a count of 2 over "
            "one record, a gzip batch counting 40 records in too few bytes, then a good batch",
            "groupspec, damaged by hand", OFFSETS_TOPIC, _bad_records_sections),
    LogCase("log_consumer_protocol_versions", "a consumer group's members with subscription and "
            "assignment at versions 0-3, a version 4 subscription with a byte more (read as version "
            "3), a version -1 and a one-byte subscription (refused)", "groupspec, the last three by hand",
            OFFSETS_TOPIC, _consumer_versions),
    LogCase("log_overlong_varints", "overlong varints read as Kafka reads them (bits past 32 or 64 "
            "dropped), then a 6-byte varint and an 11-byte varlong refused, then a good batch",
            "groupspec, damaged by hand", OFFSETS_TOPIC, _overlong_varints),
    LogCase("log_snappy_framings", "snappy batches: a raw block without xerial's header, two xerial "
            "streams back to back, a chunk running past the stream, a block length that never ends; "
            "then a good batch", "groupspec, framed by hand",
            OFFSETS_TOPIC, _snappy_framings),
    *(LogCase(f"log_{c}_past_first_buffer", f"a {c} batch decompressing to over 64 KiB: a skipped "
              "record of 70,000 bytes, then a commit", "groupspec", OFFSETS_TOPIC, _big_decompressed(c))
      for c in ("lz4", "zstd")),
    LogCase("log_legacy_smallest_message", "a v2 batch, a magic 0 message of length 14 (the smallest "
            "Kafka frames: a bad batch, magic 0), then a v2 batch read", "kafka-python, then groupspec",
            OFFSETS_TOPIC, _legacy_smallest(14)),
    LogCase("log_legacy_length_13", "a v2 batch, then a magic 0 message whose length says 13 "
            "(below 14): the rest cannot be framed", "kafka-python, damaged by hand", OFFSETS_TOPIC,
            _legacy_smallest(13)),
    LogCase("log_empty", "no bytes at all: nothing to read", "none", OFFSETS_TOPIC, lambda: b""),
    LogCase("log_not_a_segment", "text where a segment's first batch belongs: refused",
            "by hand", OFFSETS_TOPIC, lambda: b"this is not a kafka log segment at all\n"),
)


def log_vector_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.records import decode_log_answer
    from groupspec.conformance.targets import error_kind

    for c in LOG_CASES:
        doc_input = {"topic": c.topic, "log": c.build().hex()}
        try:
            expected: dict[str, Any] = decode_log_answer(doc_input)
        except Exception as exc:  # the reader's refusal is the expectation
            expected = {"error": error_kind(exc)}
        yield {
            "format": vf.FORMAT_VERSION, "machine": "records", "handler": "decode_log", "case": c.case,
            "description": c.description,
            "source": {"kind": "generated", "ref": f"bytes written by {c.writer}"},
            "mode": "exact", "properties": [], "input": doc_input,
            "expected": expected, "expected_kafka": expected,
        }

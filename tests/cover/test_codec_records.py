"""The record envelope (groupspec.impl.codec.records) and the consumer-protocol bytes.

Keys are an int16 record type then the key struct; values an int16 version then the value
struct; a null value is a tombstone (classic_group.md §5.1). The hex strings are the worked
bytes of classic_group.md §5.2, or computed by hand field by field as the comments show.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.codec.consumer_protocol import (
    decode_assignment,
    decode_member_metadata,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from groupspec.impl.codec.errors import (
    CodecError,
    MalformedError,
    TruncatedError,
    UnknownRecordTypeError,
    UnsupportedVersionError,
)
from groupspec.impl.codec.messages import encode
from groupspec.impl.codec.records import (
    decode_key,
    decode_record,
    decode_value,
    encode_key,
    encode_record,
    encode_value,
)
from groupspec.types.errors import InputError
from groupspec.types.records import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
    CoordinatorRecord,
    GroupMetadataKey,
    GroupMetadataValue,
    LegacyOffsetCommitKey,
    LegacyOffsetCommitValue,
    OffsetCommitKey,
    OffsetCommitValue,
    ShareSnapshotKey,
    record_types,
)
from groupspec.types.records.schema import message_spec
from tests.record_strategies import message_values, normalized

KEY = OffsetCommitKey("testgroup", "orders", 0)
VALUE = OffsetCommitValue(offset=12345, leader_epoch=7, metadata="meta-x", commit_timestamp=1700000000123)
OFFSET_COMMIT = record_types(OFFSETS_TOPIC)[1]
GROUP_METADATA = record_types(OFFSETS_TOPIC)[2]


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# --- classic_group.md §5.2 ------------------------------------------------------------------------


def test_offset_commit_record_bytes() -> None:
    key = h("0001 0009 7465737467726f7570 0006 6f7264657273 00000000")
    v3 = h("0003 0000000000003039 00000007 0006 6d6574612d78 0000018bcfe5687b")
    v4 = h("0004 0000000000003039 00000007 07 6d6574612d78 0000018bcfe5687b 00")
    assert encode_key(KEY) == key
    assert encode_value(VALUE, 3) == v3
    assert encode_value(VALUE, 4) == v4
    assert encode_value(VALUE) == v4  # what Kafka 4.1+ writes
    assert decode_record(OFFSETS_TOPIC, key, v3) == CoordinatorRecord(KEY, VALUE, 3)
    assert decode_record(OFFSETS_TOPIC, key, v4) == CoordinatorRecord(KEY, VALUE, 4)
    topic_id = uuid.UUID(bytes=bytes(range(1, 17)))
    with_topic = OffsetCommitValue(12345, 7, "meta-x", 1700000000123, topic_id=topic_id)
    assert encode_value(with_topic) == v4[:-1] + h("01 00 10 0102030405060708090a0b0c0d0e0f10")


def test_offset_commit_with_expire_timestamp_is_v1() -> None:
    value = OffsetCommitValue(offset=1, metadata="", commit_timestamp=2, expire_timestamp=3)
    raw = encode_value(value)
    assert raw == h("0001 0000000000000001 0000 0000000000000002 0000000000000003")
    assert decode_value(OFFSET_COMMIT, raw) == (value, 1)


def test_group_metadata_record_bytes() -> None:
    key = h("0002 0009 7465737467726f7570")
    empty = h("0003 0000 00000000 ffff ffff 0000018bcfe56800 00000000")
    value = GroupMetadataValue(
        protocol_type="", generation=0, protocol=None, leader=None, current_state_timestamp=1700000000000
    )
    assert encode_key(GroupMetadataKey("testgroup")) == key
    assert encode_value(value) == empty  # Kafka 4.x writes v3
    rec = decode_record(OFFSETS_TOPIC, key, empty)
    assert rec == CoordinatorRecord(GroupMetadataKey("testgroup"), value, 3)
    assert rec.record_type.name == "GroupMetadata"


# --- the envelope ---------------------------------------------------------------------------------


def test_tombstone() -> None:
    key = encode_key(KEY)
    rec = decode_record(OFFSETS_TOPIC, key, None)
    assert rec == CoordinatorRecord(KEY, None) and rec.is_tombstone and rec.value_version is None
    assert encode_record(rec) == (key, None)


def test_decoded_record_is_an_ordinary_coordinator_record() -> None:
    rec = decode_record(OFFSETS_TOPIC, encode_key(KEY), encode_value(VALUE, 3))
    assert type(rec) is CoordinatorRecord
    assert rec == CoordinatorRecord(KEY, VALUE, 3) and hash(rec) == hash(CoordinatorRecord(KEY, VALUE, 3))


def test_unknown_record_type() -> None:
    # Type 17 (StreamsGroupMetadata) has no schema here: readers skip it with a warning.
    with pytest.raises(UnknownRecordTypeError) as info:
        decode_key(OFFSETS_TOPIC, h("0011 0001 67"))
    assert (info.value.topic, info.value.type_id) == (OFFSETS_TOPIC, 17)
    with pytest.raises(UnknownRecordTypeError) as info:
        decode_record(OFFSETS_TOPIC, h("ffff 0001 67"), None)
    assert info.value.type_id == -1
    with pytest.raises(UnknownRecordTypeError, match="unknown record type 2 in __share_group_state"):
        decode_record(SHARE_STATE_TOPIC, h("0002 0001 67"), h("0000"))


def test_invalid_topic() -> None:
    with pytest.raises(InputError, match="not a coordinator topic"):
        decode_key("orders", encode_key(KEY))


def test_value_version_above_highest() -> None:
    raw = h("0005") + encode_value(VALUE, 4)[2:]
    for call in (
        lambda: decode_record(OFFSETS_TOPIC, encode_key(KEY), raw),
        lambda: decode_value(OFFSET_COMMIT, raw),
    ):
        message = r"record type 1 \(OffsetCommit\) value version 5"
        with pytest.raises(UnsupportedVersionError, match=message) as info:
            call()
        assert info.value.version == 5
    with pytest.raises(UnsupportedVersionError) as info:
        decode_value(GROUP_METADATA, h("ffff"))
    assert info.value.version == -1


def test_legacy_offset_commit_shares_the_key_layout() -> None:
    legacy = LegacyOffsetCommitKey("testgroup", "orders", 0)
    assert encode_key(legacy)[2:] == encode_key(KEY)[2:]
    assert encode_key(legacy)[:2] == h("0000")
    value = h("0000 0000000000003039 0006 6d6574612d78 0000018bcfe5687b")
    rec = decode_record(OFFSETS_TOPIC, encode_key(legacy), value)
    assert rec == CoordinatorRecord(legacy, LegacyOffsetCommitValue(12345, "meta-x", 1700000000123), 0)
    assert type(rec.key) is LegacyOffsetCommitKey
    message = r"record type 0 \(LegacyOffsetCommit\) value version 1"
    with pytest.raises(UnsupportedVersionError, match=message):
        decode_record(OFFSETS_TOPIC, encode_key(legacy), h("0001") + value[2:])


def test_type_ids_are_per_topic() -> None:
    key = ShareSnapshotKey("g", uuid.UUID(int=1), 3)
    raw = encode_key(key)
    assert raw[:2] == h("0000")
    assert decode_key(SHARE_STATE_TOPIC, raw) == key
    with pytest.raises(CodecError):  # the same bytes are not a LegacyOffsetCommit key
        decode_key(OFFSETS_TOPIC, raw)


def test_invalid_short_or_trailing_bytes() -> None:
    for short in (b"", b"\x00"):
        with pytest.raises(TruncatedError):
            decode_key(OFFSETS_TOPIC, short)
        with pytest.raises(TruncatedError):
            decode_record(OFFSETS_TOPIC, encode_key(KEY), short)
    key, value = encode_key(KEY) + b"\x00", encode_value(VALUE, 3) + b"\x00"
    with pytest.raises(MalformedError, match="key: 1 bytes after"):
        decode_record(OFFSETS_TOPIC, key, encode_value(VALUE, 3))
    with pytest.raises(MalformedError, match="value: 1 bytes after"):
        decode_value(OFFSET_COMMIT, value)
    # Kafka's reader ignores trailing bytes; strict=False does too.
    assert decode_record(OFFSETS_TOPIC, key, value, strict=False) == CoordinatorRecord(KEY, VALUE, 3)


def test_invalid_classes_for_encoding() -> None:
    with pytest.raises(InputError):
        encode_key(VALUE)
    with pytest.raises(InputError):
        encode_key(ConsumerProtocolAssignment())


def test_memoryview_input() -> None:
    key, value = encode_key(KEY), encode_value(VALUE, 3)
    assert decode_record(OFFSETS_TOPIC, memoryview(key), bytearray(value)) == CoordinatorRecord(KEY, VALUE, 3)


_ALL_TYPES = [rt for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC) for rt in record_types(topic).values()]


@given(data=st.data())
def test_every_record_type_round_trips(data: st.DataObject) -> None:
    rtype = data.draw(st.sampled_from(_ALL_TYPES))
    versions = message_spec(rtype.value).versions
    version = data.draw(st.integers(versions.lo, versions.hi))
    key = data.draw(message_values(rtype.key, 0))
    value = data.draw(st.none() | message_values(rtype.value, version))
    rec = CoordinatorRecord(key, value, None if value is None else version)
    key_bytes, value_bytes = encode_record(rec)
    back = decode_record(rtype.topic, key_bytes, value_bytes)
    expected_value = None if value is None else normalized(value, version)
    assert back == CoordinatorRecord(key, expected_value, rec.value_version)
    assert encode_record(back) == (key_bytes, value_bytes)


@given(key=st.binary(max_size=24), value=st.none() | st.binary(max_size=40))
def test_arbitrary_envelopes_raise_only_codec_errors(key: bytes, value: bytes | None) -> None:
    for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
        try:
            rec = decode_record(topic, key, value)
        except CodecError:
            continue
        assert encode_record(rec)[0] == key


# --- consumer protocol ----------------------------------------------------------------------------

SUB_V3 = ConsumerProtocolSubscription(
    topics=("t",),
    user_data=None,
    owned_partitions=(ConsumerProtocolSubscription.TopicPartition("t", (0, 1)),),
    generation_id=5,
    rack_id="r1",
)
SUB_V3_BYTES = h(
    "0003"  # version
    "00000001 0001 74"  # topics ["t"]
    "ffffffff"  # userData null
    "00000001 0001 74 00000002 00000000 00000001"  # ownedPartitions [t: 0, 1]
    "00000005"  # generationId
    "0002 7231"  # rackId "r1"
)
ASSIGN_V3 = ConsumerProtocolAssignment(
    assigned_partitions=(ConsumerProtocolAssignment.TopicPartition("t", (0,)),), user_data=b""
)
ASSIGN_V3_BYTES = h("0003 00000001 0001 74 00000001 00000000 00000000")


def test_consumer_protocol_bytes() -> None:
    v0 = h("0000 00000002 0001 61 0001 62 ffffffff")
    assert decode_subscription(v0) == (ConsumerProtocolSubscription(topics=("a", "b")), 0)
    assert encode_subscription(ConsumerProtocolSubscription(topics=("a", "b")), 0) == v0
    assert encode_subscription(SUB_V3) == SUB_V3_BYTES
    assert decode_subscription(SUB_V3_BYTES) == (SUB_V3, 3)
    assert encode_assignment(ASSIGN_V3) == ASSIGN_V3_BYTES
    assert decode_assignment(ASSIGN_V3_BYTES) == (ASSIGN_V3, 3)


def test_consumer_protocol_newer_version_reads_as_highest() -> None:
    # ConsumerProtocol.java: a version above the highest known is parsed with the highest layout,
    # and whatever a newer version appended is left unread.
    newer = h("0004") + SUB_V3_BYTES[2:] + h("deadbeef")
    assert decode_subscription(newer) == (SUB_V3, 4)
    assert decode_assignment(h("7fff") + ASSIGN_V3_BYTES[2:]) == (ASSIGN_V3, 0x7FFF)
    assert encode_subscription(SUB_V3, 9)[:2] == h("0003")


def test_invalid_consumer_protocol_bytes() -> None:
    with pytest.raises(UnsupportedVersionError, match="ConsumerProtocolSubscription version -1"):
        decode_subscription(h("ffff") + SUB_V3_BYTES[2:])
    with pytest.raises(TruncatedError):
        decode_assignment(b"\x00")
    with pytest.raises(TruncatedError):
        decode_subscription(SUB_V3_BYTES[:-1])
    with pytest.raises(UnsupportedVersionError):
        encode_assignment(ASSIGN_V3, -1)
    with pytest.raises(InputError):
        encode_subscription(ASSIGN_V3)  # type: ignore[arg-type]


def test_decode_member_metadata() -> None:
    decoded = decode_member_metadata("consumer", SUB_V3_BYTES, ASSIGN_V3_BYTES)
    assert decoded is not None
    assert (decoded.subscription, decoded.subscription_version) == (SUB_V3, 3)
    assert (decoded.assignment, decoded.assignment_version) == (ASSIGN_V3, 3)
    unassigned = decode_member_metadata("consumer", SUB_V3_BYTES, b"")
    assert unassigned is not None and unassigned.assignment is None and unassigned.assignment_version is None
    assert decode_member_metadata("connect", b"\x01", b"\x02") is None
    assert decode_member_metadata(None, SUB_V3_BYTES, b"") is None
    with pytest.raises(CodecError):
        decode_member_metadata("consumer", b"\x00\x00\x00", b"")


def test_group_metadata_members_hold_consumer_protocol_bytes() -> None:
    member = GroupMetadataValue.MemberMetadata(
        member_id="m", client_id="c", client_host="/h", session_timeout=10000,
        subscription=SUB_V3_BYTES, assignment=ASSIGN_V3_BYTES,
    )
    value = GroupMetadataValue("consumer", 1, "range", "m", 0, (member,))
    rec = decode_record(OFFSETS_TOPIC, encode_key(GroupMetadataKey("g")), encode_value(value))
    assert isinstance(rec.value, GroupMetadataValue)
    got = rec.value.members[0]
    decoded = decode_member_metadata(rec.value.protocol_type, got.subscription, got.assignment)
    assert decoded is not None and decoded.subscription == SUB_V3 and decoded.assignment == ASSIGN_V3


@given(data=st.data())
def test_consumer_protocol_round_trips(data: st.DataObject) -> None:
    version = data.draw(st.integers(0, 3))
    sub = data.draw(message_values(ConsumerProtocolSubscription, version))
    assign = data.draw(message_values(ConsumerProtocolAssignment, version))
    assert decode_subscription(encode_subscription(sub, version)) == (normalized(sub, version), version)
    assert decode_assignment(encode_assignment(assign, version)) == (assign, version)
    assert encode_subscription(sub, version)[2:] == encode(sub, version)

"""The struct codec (groupspec.impl.codec.messages) and the JSON form, against hand-made bytes.

Every message class round-trips at every version; hand-computed byte strings (classic_group.md
§5.2 and a few more, each worked out field by field in a comment) pin the layout; damaged bytes
only ever raise CodecError subclasses.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.codec.errors import CodecError, MalformedError, TruncatedError, UnsupportedVersionError
from groupspec.impl.codec.json_form import (
    from_json,
    text_decoder,
    to_json,
    to_json_text,
    uuid_from_kafka,
    uuid_to_kafka,
)
from groupspec.impl.codec.messages import (
    EncodeError,
    FieldVersionError,
    decode,
    decode_all,
    decoder,
    encode,
)
from groupspec.types.errors import GroupspecError, InputError
from groupspec.types.records import (
    ALL_MESSAGE_CLASSES,
    ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataValue,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    ShareSnapshotKey,
    ShareSnapshotValue,
)
from groupspec.types.records.schema import ZERO_UUID, Versions, kfield, message, message_spec
from tests.cover.test_record_schemas import load_copies, needs_schemas
from tests.record_strategies import every_version, message_values, normalized

TOPIC_ID = uuid.UUID(bytes=bytes(range(1, 17)))


# A test-only message exercising what no real record has: a non-ignorable field absent at some
# versions, a field nullable only from v1, bool, float64, uint16, a tagged string with a tag > 0.
@message("ProbeValue", "data", None, "0-2", "2+")
@dataclass(frozen=True, slots=True)
class ProbeValue:
    @dataclass(frozen=True, slots=True)
    class Item:
        name: str = kfield("string", "0+")
        flag: bool = kfield("bool", "1+")

    count: int = kfield("int32", "0+")
    strict_new: int = kfield("int64", "1+")
    note: str | None = kfield("string", "0+", nullable="1+")
    items: tuple[Item, ...] = kfield("[]struct", "0+", struct=Item)
    ratio: float = kfield("float64", "0+")
    small: int = kfield("uint16", "0+")
    ids: tuple[uuid.UUID, ...] = kfield("[]uuid", "1+", ignorable=True)
    blobs: tuple[bytes, ...] = kfield("[]bytes", "0+")
    extra: str = kfield("string", "2+", tag=3, tagged="2+")


CASES = every_version(ALL_MESSAGE_CLASSES) + every_version((ProbeValue,))


def _case_id(case: tuple[type, int]) -> str:
    return f"{case[0].__name__}-v{case[1]}"


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


# --- round trips ----------------------------------------------------------------------------------


def test_every_message_class_is_covered() -> None:
    assert len(ALL_MESSAGE_CLASSES) >= 36
    assert (OffsetCommitValue, 4) in CASES and (GroupMetadataValue, 0) in CASES


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@given(data=st.data())
def test_round_trip(case: tuple[type, int], data: st.DataObject) -> None:
    cls, version = case
    obj = data.draw(message_values(cls, version))
    raw = encode(obj, version)
    back: Any = decode_all(cls, raw, version)
    assert back == normalized(obj, version)
    assert type(back) is cls
    assert encode(back, version) == raw


@given(data=st.data())
def test_decoded_objects_are_ordinary_instances(data: st.DataObject) -> None:
    cls, version = data.draw(st.sampled_from(CASES))
    obj = data.draw(message_values(cls, version))
    back: Any = decode_all(cls, encode(obj, version), version)
    names = [f.name for f in dataclasses.fields(cls)]
    rebuilt = cls(**{name: getattr(back, name) for name in names})
    assert rebuilt == back and hash(rebuilt) == hash(back)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(back, names[0], None)


# --- hand-computed bytes --------------------------------------------------------------------------


def test_offset_commit_key_bytes() -> None:
    # classic_group.md §5.2, without the 0001 type prefix: group, topic, partition.
    key = OffsetCommitKey("testgroup", "orders", 0)
    raw = h("0009 7465737467726f7570 0006 6f7264657273 00000000")
    assert encode(key, 0) == raw
    assert decode_all(OffsetCommitKey, raw, 0) == key


def test_offset_commit_value_bytes() -> None:
    # §5.2: v3 = offset int64, leaderEpoch int32, metadata int16+utf8, commitTimestamp int64.
    value = OffsetCommitValue(offset=12345, leader_epoch=7, metadata="meta-x", commit_timestamp=1700000000123)
    v3 = h("0000000000003039 00000007 0006 6d6574612d78 0000018bcfe5687b")
    # v4: the same, metadata as compact string (len+1 = 07), then an empty tagged section (00).
    v4 = h("0000000000003039 00000007 07 6d6574612d78 0000018bcfe5687b 00")
    # v4 with topicId: one tagged field: tag 0, size 16, the uuid.
    v4_topic = h("0000000000003039 00000007 07 6d6574612d78 0000018bcfe5687b 01 00 10") + bytes(range(1, 17))
    assert encode(value, 3) == v3 and decode_all(OffsetCommitValue, v3, 3) == value
    assert encode(value, 4) == v4 and decode_all(OffsetCommitValue, v4, 4) == value
    with_topic = OffsetCommitValue(12345, 7, "meta-x", 1700000000123, topic_id=TOPIC_ID)
    assert encode(with_topic, 4) == v4_topic
    assert decode_all(OffsetCommitValue, v4_topic, 4) == with_topic


def test_group_metadata_bytes() -> None:
    # §5.2: the key is just the group; the "empty" v3 value of a new group.
    assert encode(GroupMetadataKey("testgroup"), 0) == h("0009 7465737467726f7570")
    empty = GroupMetadataValue(
        protocol_type="", generation=0, protocol=None, leader=None, current_state_timestamp=1700000000000
    )
    raw = h("0000 00000000 ffff ffff 0000018bcfe56800 00000000")
    assert encode(empty, 3) == raw
    assert decode_all(GroupMetadataValue, raw, 3) == empty


ONE_MEMBER = GroupMetadataValue(
    protocol_type="consumer",
    generation=1,
    protocol="range",
    leader="m1",
    current_state_timestamp=1700000000000,
    members=(
        GroupMetadataValue.MemberMetadata(
            member_id="m1",
            group_instance_id=None,
            client_id="c",
            client_host="/h",
            rebalance_timeout=300,
            session_timeout=10000,
            subscription=b"\x00\x01",
            assignment=b"",
        ),
    ),
)


def test_group_metadata_with_one_member_bytes() -> None:
    v3 = h(
        "0008 636f6e73756d6572"  # protocolType "consumer"
        "00000001"  # generation
        "0005 72616e6765"  # protocol "range"
        "0002 6d31"  # leader "m1"
        "0000018bcfe56800"  # currentStateTimestamp
        "00000001"  # one member:
        "0002 6d31"  # memberId
        "ffff"  # groupInstanceId null (nullable from v3)
        "0001 63"  # clientId "c"
        "0002 2f68"  # clientHost "/h"
        "0000012c"  # rebalanceTimeout 300
        "00002710"  # sessionTimeout 10000
        "00000002 0001"  # subscription
        "00000000"  # assignment (empty)
    )
    v4 = h(
        "09 636f6e73756d6572 00000001 06 72616e6765 03 6d31 0000018bcfe56800"
        "02"  # compact array of one
        "03 6d31 00 02 63 03 2f68 0000012c 00002710 03 0001 01"
        "00"  # the member's tagged fields
        "00"  # the value's tagged fields
    )
    assert encode(ONE_MEMBER, 3) == v3 and decode_all(GroupMetadataValue, v3, 3) == ONE_MEMBER
    assert encode(ONE_MEMBER, 4) == v4 and decode_all(GroupMetadataValue, v4, 4) == ONE_MEMBER


def test_share_snapshot_bytes() -> None:
    key = ShareSnapshotKey(group_id="g", topic_id=TOPIC_ID, partition=5)
    assert encode(key, 0) == h("0001 67") + bytes(range(1, 17)) + h("00000005")
    value = ShareSnapshotValue(
        snapshot_epoch=1,
        state_epoch=2,
        leader_epoch=3,
        start_offset=100,
        create_timestamp=1700000000000,
        write_timestamp=1700000000123,
        state_batches=(ShareSnapshotValue.StateBatch(100, 109, 2, 1),),
    )
    raw = h(
        "00000001 00000002 00000003"  # snapshot, state, leader epochs
        "0000000000000064"  # startOffset 100
        "0000018bcfe56800 0000018bcfe5687b"  # create and write timestamps
        "02"  # compact array of one batch:
        "0000000000000064 000000000000006d 02 0001 00"  # first 100, last 109, state 2, count 1, tags
        "00"  # the value's tagged fields
    )
    assert encode(value, 0) == raw
    assert decode_all(ShareSnapshotValue, raw, 0) == value


def test_tagged_int64_bytes() -> None:
    # ConsumerGroupMetadataValue v0 (flexible): epoch, then metadataHash as tag 0 when not 0.
    with_hash = ConsumerGroupMetadataValue(epoch=5, metadata_hash=0x0102030405060708)
    raw = h("00000005 01 00 08 0102030405060708")
    assert encode(with_hash, 0) == raw and decode_all(ConsumerGroupMetadataValue, raw, 0) == with_hash
    without = ConsumerGroupMetadataValue(epoch=5)
    assert encode(without, 0) == h("00000005 00")


def test_tagged_nullable_struct_bytes() -> None:
    # A tagged nullable struct: tag, size, then uvarint 1 (present) and the struct
    # (generator/.../MessageDataGenerator.java; the generated NullableStructMessageData).
    meta = ConsumerGroupMemberMetadataValue.ClassicMemberMetadata
    value = ConsumerGroupMemberMetadataValue(
        instance_id=None,
        rack_id=None,
        client_id="c",
        client_host="h",
        subscribed_topic_names=("t",),
        subscribed_topic_regex=None,
        rebalance_timeout_ms=300000,
        server_assignor="uniform",
        classic_member_metadata=meta(45000, (meta.ClassicProtocol("range", b"\x01"),)),
    )
    raw = h(
        "00 00 02 63 02 68"  # instanceId null, rackId null, clientId "c", clientHost "h"
        "02 02 74"  # subscribedTopicNames ["t"]
        "00"  # subscribedTopicRegex null
        "000493e0"  # rebalanceTimeoutMs 300000
        "08 756e69666f726d"  # serverAssignor "uniform"
        "01 00 10"  # one tagged field, tag 0, 16 bytes:
        "01"  # present
        "0000afc8"  # sessionTimeoutMs 45000
        "02 06 72616e6765 02 01 00"  # supportedProtocols [("range", 01)] with its tags
        "00"  # ClassicMemberMetadata's tags
    )
    assert encode(value, 0) == raw
    assert decode_all(ConsumerGroupMemberMetadataValue, raw, 0) == value
    # A null marker inside the tagged field decodes to None as well.
    null_marked = raw[: raw.index(h("01 00 10"))] + h("01 00 01 00")
    assert decode_all(ConsumerGroupMemberMetadataValue, null_marked, 0).classic_member_metadata is None


def test_probe_tagged_string_with_higher_tag() -> None:
    value = ProbeValue(count=1, strict_new=2, note=None, extra="x")
    raw = encode(value, 2)
    assert raw.endswith(h("01 03 02 02 78"))  # one field, tag 3, size 2, compact "x"
    assert decode_all(ProbeValue, raw, 2) == value


# --- decoding rules -------------------------------------------------------------------------------


def test_unknown_tagged_fields_are_skipped() -> None:
    base = h("0000000000003039 00000007 07 6d6574612d78 0000018bcfe5687b")
    raw = base + h("02 00 10") + bytes(range(1, 17)) + h("05 02 abcd")
    assert decode_all(OffsetCommitValue, raw, 4).topic_id == TOPIC_ID
    only_unknown = base + h("01 07 03 aabbcc")
    assert decode_all(OffsetCommitValue, only_unknown, 4).topic_id == ZERO_UUID


def test_bool_is_true_for_any_nonzero_byte() -> None:
    value = ProbeValue(items=(ProbeValue.Item("a", True),), strict_new=0)
    raw = bytearray(encode(value, 1))
    flag_at = raw.index(b"\x00\x01a") + 3
    raw[flag_at] = 0x7F
    assert decode_all(ProbeValue, bytes(raw), 1).items[0].flag is True


def test_invalid_null_for_non_nullable_string() -> None:
    raw = h("0000000000003039 00000007 ffff 0000018bcfe5687b")
    with pytest.raises(MalformedError, match="metadata is null"):
        decode_all(OffsetCommitValue, raw, 3)


def test_invalid_utf8() -> None:
    raw = h("0002 c328 0006 6f7264657273 00000000")
    with pytest.raises(MalformedError, match="UTF-8"):
        decode_all(OffsetCommitKey, raw, 0)


def test_invalid_compact_string_too_long() -> None:
    raw = h("0000000000003039 00000007 818002") + b"x" * 40000
    with pytest.raises(MalformedError, match="longer than 32767"):
        decode(OffsetCommitValue, raw, 4)


def test_invalid_array_count_above_remaining_bytes() -> None:
    raw = h("0000 00000000 ffff ffff 0000018bcfe56800 7fffffff")
    with pytest.raises(TruncatedError, match="members"):
        decode_all(GroupMetadataValue, raw, 3)


def test_invalid_tagged_field_size() -> None:
    raw = h("0000000000003039 00000007 07 6d6574612d78 0000018bcfe5687b 01 00 11") + bytes(17)
    with pytest.raises(MalformedError, match="topic_id"):
        decode_all(OffsetCommitValue, raw, 4)


def test_invalid_varint() -> None:
    raw = h("0000000000003039 00000007 ffffffffff7f")
    with pytest.raises(MalformedError):
        decode(OffsetCommitValue, raw, 4)


def test_invalid_trailing_bytes_in_decode_all() -> None:
    raw = encode(GroupMetadataKey("g"), 0)
    assert decode(GroupMetadataKey, raw + b"\x00", 0) == (GroupMetadataKey("g"), len(raw))
    with pytest.raises(MalformedError, match="1 bytes after"):
        decode_all(GroupMetadataKey, raw + b"\x00", 0)


def test_invalid_version() -> None:
    with pytest.raises(UnsupportedVersionError, match="OffsetCommitValue version 5"):
        decode(OffsetCommitValue, b"", 5)
    with pytest.raises(UnsupportedVersionError):
        encode(OffsetCommitKey("g", "t", 0), 1)


def test_decode_accepts_bytearray_memoryview_and_offset() -> None:
    raw = b"xx" + encode(GroupMetadataKey("abc"), 0)
    for buf in (raw, bytearray(raw), memoryview(raw)):
        assert decode(GroupMetadataKey, buf, 0, pos=2) == (GroupMetadataKey("abc"), len(raw))


# --- encoding rules -------------------------------------------------------------------------------


def test_invalid_non_default_field_absent_at_version() -> None:
    with pytest.raises(FieldVersionError, match=r"ProbeValue v0: strict_new") as info:
        encode(ProbeValue(strict_new=5), 0)
    assert isinstance(info.value, UnsupportedVersionError) and info.value.version == 0
    with pytest.raises(FieldVersionError, match=r"ProbeValue.Item v0: flag"):
        encode(ProbeValue(items=(ProbeValue.Item("a", True),)), 0)
    assert decode_all(ProbeValue, encode(ProbeValue(strict_new=5), 1), 1).strict_new == 5


def test_ignorable_absent_fields_are_dropped() -> None:
    value = OffsetCommitValue(1, 2, "m", 3, expire_timestamp=99, topic_id=TOPIC_ID)
    assert decode_all(OffsetCommitValue, encode(value, 3), 3) == OffsetCommitValue(1, 2, "m", 3)
    assert decode_all(OffsetCommitValue, encode(value, 0), 0) == OffsetCommitValue(1, -1, "m", 3)


def test_invalid_null_where_version_forbids_it() -> None:
    with pytest.raises(EncodeError, match="note: is None"):
        encode(ProbeValue(note=None), 0)
    assert decode_all(ProbeValue, encode(ProbeValue(note=None), 1), 1).note is None
    with pytest.raises(EncodeError, match=r"GroupMetadataValue v3: members\[0\].member_id: is None"):
        member = GroupMetadataValue.MemberMetadata(member_id=None)  # type: ignore[arg-type]
        encode(GroupMetadataValue(members=(member,)), 3)


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("count", 2**31, "out of the int32 range"),
        ("count", -(2**31) - 1, "out of the int32 range"),
        ("small", -1, "out of the uint16 range"),
        ("small", 65536, "out of the uint16 range"),
        ("count", "7", "expected an int"),
        ("ratio", "x", "expected a float"),
        ("note", 5, "expected a str"),
        ("note", "\ud800", "UTF-8"),
        ("note", "é" * 16384, "more than 32767"),
        ("items", ["x"], "expected a ProbeValue.Item"),
        ("items", "ab", "expected a tuple"),
        ("blobs", ("text",), "expected bytes"),
    ],
)
def test_invalid_values_on_encode(field: str, value: Any, match: str) -> None:
    obj = ProbeValue(**{field: value})
    with pytest.raises(EncodeError, match=f"{field}.*{match}"):
        encode(obj, 1)


def test_invalid_bool_and_uuid_types() -> None:
    with pytest.raises(EncodeError, match="flag: expected a bool"):
        encode(ProbeValue(items=(ProbeValue.Item("a", 1),)), 1)  # type: ignore[arg-type]
    with pytest.raises(EncodeError, match="topic_id: expected a uuid"):
        encode(OffsetCommitValue(topic_id=str(TOPIC_ID)), 4)  # type: ignore[arg-type]
    with pytest.raises(EncodeError, match=r"ids: element 0: expected a uuid"):
        encode(ProbeValue(ids=("x",)), 1)  # type: ignore[arg-type]


def test_encode_accepts_lists_and_bytearrays() -> None:
    obj = ProbeValue(items=[ProbeValue.Item("a")], blobs=[bytearray(b"\x01")])  # type: ignore[arg-type]
    expected = ProbeValue(items=(ProbeValue.Item("a"),), blobs=(b"\x01",))
    assert decode_all(ProbeValue, encode(obj, 0), 0) == expected


def test_codec_errors_are_groupspec_errors() -> None:
    assert issubclass(EncodeError, CodecError) and issubclass(CodecError, GroupspecError)


# --- damaged bytes --------------------------------------------------------------------------------


@given(data=st.data())
def test_truncation_at_every_prefix(data: st.DataObject) -> None:
    cls, version = data.draw(st.sampled_from(CASES))
    raw = encode(data.draw(message_values(cls, version)), version)
    for cut in range(len(raw)):
        with pytest.raises(TruncatedError):
            decode(cls, raw[:cut], version)


_mutations = st.lists(
    st.tuples(st.sampled_from(["set", "insert", "delete"]), st.integers(0, 10_000), st.integers(0, 255)),
    min_size=1,
    max_size=4,
)


def _mutate(raw: bytes, ops: list[tuple[str, int, int]]) -> bytes:
    buf = bytearray(raw)
    for op, where, byte in ops:
        at = where % (len(buf) + 1)
        if op == "insert":
            buf.insert(at, byte)
        elif buf and at < len(buf):
            if op == "set":
                buf[at] = byte
            else:
                del buf[at]
    return bytes(buf)


def _decode_or_codec_error(cls: type, raw: bytes, version: int) -> object | None:
    """Decode; on success the object must encode again (it is a valid object of its class)."""
    try:
        obj: Any
        obj, _end = decode(cls, raw, version)
    except CodecError:
        return None
    assert type(obj) is cls
    encode(obj, version)
    return obj


@given(data=st.data(), ops=_mutations)
def test_mutated_bytes_decode_or_raise_codec_errors(
    data: st.DataObject, ops: list[tuple[str, int, int]]
) -> None:
    cls, version = data.draw(st.sampled_from(CASES))
    raw = encode(data.draw(message_values(cls, version)), version)
    _decode_or_codec_error(cls, _mutate(raw, ops), version)


@given(data=st.data(), raw=st.binary(max_size=64))
def test_arbitrary_bytes_decode_or_raise_codec_errors(data: st.DataObject, raw: bytes) -> None:
    cls, version = data.draw(st.sampled_from(CASES))
    _decode_or_codec_error(cls, raw, version)


def test_decoders_are_compiled_once() -> None:
    assert decoder(OffsetCommitValue, 4) is decoder(OffsetCommitValue, 4)


# --- JSON form ------------------------------------------------------------------------------------


@given(data=st.data())
def test_json_round_trip(data: st.DataObject) -> None:
    cls, version = data.draw(st.sampled_from(CASES))
    obj = data.draw(message_values(cls, version))
    doc = to_json(obj)
    assert from_json(cls, json.loads(json.dumps(doc))) == obj


def test_json_names_and_kafka_forms() -> None:
    doc = to_json(OffsetCommitValue(12345, 7, "meta-x", 1700000000123, topic_id=TOPIC_ID))
    assert doc == {
        "offset": 12345,
        "leaderEpoch": 7,
        "metadata": "meta-x",
        "commitTimestamp": 1700000000123,
        "expireTimestamp": -1,
        "topicId": "AQIDBAUGBwgJCgsMDQ4PEA",
    }
    member = to_json(ONE_MEMBER)["members"][0]
    assert member["subscription"] == "AAE=" and member["groupInstanceId"] is None
    assert uuid_to_kafka(ZERO_UUID) == "AAAAAAAAAAAAAAAAAAAAAA"
    assert uuid_from_kafka(str(TOPIC_ID)) == TOPIC_ID


@given(data=st.data())
def test_versioned_json_reads_back_as_what_the_bytes_hold(data: st.DataObject) -> None:
    cls, version = data.draw(st.sampled_from(CASES))
    obj = data.draw(message_values(cls, version))
    doc = to_json(obj, version)
    assert from_json(cls, json.loads(json.dumps(doc))) == normalized(obj, version)


@given(data=st.data())
def test_json_text_is_json_dumps_of_the_json_form(data: st.DataObject) -> None:
    # The compiled text encoders `groupspec decode` prints with must agree with the dict form
    # character for character, at every version and without one.
    cls, version = data.draw(st.sampled_from(CASES))
    obj = data.draw(message_values(cls, version))
    for v in (version, None):
        assert to_json_text(obj, v) == json.dumps(to_json(obj, v), ensure_ascii=False, separators=(",", ":"))


@given(data=st.data(), tail=st.binary(max_size=3))
def test_text_decoder_is_decode_then_json_text(data: st.DataObject, tail: bytes) -> None:
    # `groupspec decode` goes from bytes to JSON text without the object; same text, same end.
    cls, version = data.draw(st.sampled_from(CASES))
    raw = encode(data.draw(message_values(cls, version)), version) + tail
    obj, end = decode(cls, raw, version)
    assert text_decoder(cls, version)(raw, 0) == (to_json_text(obj, version), end)


@given(data=st.data(), raw=st.binary(max_size=64))
def test_text_decoder_fails_as_the_decoder_does(data: st.DataObject, raw: bytes) -> None:
    cls, version = data.draw(st.sampled_from(CASES))
    try:
        obj, end = decode(cls, raw, version)
    except CodecError as exc:
        with pytest.raises(type(exc)) as info:
            text_decoder(cls, version)(raw, 0)
        assert str(info.value) == str(exc)
    else:
        assert text_decoder(cls, version)(raw, 0) == (to_json_text(obj, version), end)


def test_json_form_prints_a_field_only_in_the_versions_that_define_it() -> None:
    # Kafka's generated converters: OffsetCommitValue's expireTimestamp is v1 only, leaderEpoch
    # v3+, topicId tagged v4+ and printed only when not the zero uuid.
    value = OffsetCommitValue(12345, 7, "meta-x", 1700000000123)
    assert list(to_json(value, 3)) == ["offset", "leaderEpoch", "metadata", "commitTimestamp"]
    assert list(to_json(value, 4)) == ["offset", "leaderEpoch", "metadata", "commitTimestamp"]
    assert list(to_json(value, 0)) == list(to_json(value, 2)) == ["offset", "metadata", "commitTimestamp"]
    assert to_json(OffsetCommitValue(1, expire_timestamp=99), 1)["expireTimestamp"] == 99
    with_id = to_json(dataclasses.replace(value, topic_id=TOPIC_ID), 4)
    assert with_id["topicId"] == "AQIDBAUGBwgJCgsMDQ4PEA"
    # Nested structs take the message's version: v0 members have no groupInstanceId, no rebalanceTimeout.
    group = GroupMetadataValue(protocol_type="consumer", members=(ONE_MEMBER.members[0],))
    assert set(to_json(group, 0)["members"][0]) == {"memberId", "clientId", "clientHost", "sessionTimeout",
                                                      "subscription", "assignment"}
    assert "currentStateTimestamp" not in to_json(group, 1) and "currentStateTimestamp" in to_json(group, 2)
    assert {"groupInstanceId", "rebalanceTimeout"} <= set(to_json(group, 3)["members"][0])
    # A tagged field with its default is left out; any other value is printed.
    assert to_json(ConsumerGroupMetadataValue(epoch=3), 0) == {"epoch": 3}
    hashed = ConsumerGroupMetadataValue(epoch=3, metadata_hash=-5)
    assert to_json(hashed, 0) == {"epoch": 3, "metadataHash": -5}
    assert "classicMemberMetadata" not in to_json(ConsumerGroupMemberMetadataValue(), 0)
    with pytest.raises(UnsupportedVersionError):
        to_json(value, 5)


@pytest.mark.parametrize(
    ("cls", "doc", "path"),
    [
        (OffsetCommitValue, {"offset": "1"}, "offset"),
        (OffsetCommitValue, {"offset": True}, "offset"),
        (OffsetCommitValue, {"leaderEpoch": 2**31}, "leaderEpoch"),
        (OffsetCommitValue, {"metadata": None}, "metadata"),
        (OffsetCommitValue, {"topicId": "nope"}, "topicId"),
        (OffsetCommitValue, {"topicId": "AQIDBAUGBwgJCgsMDQ4PEB"}, "topicId"),
        (OffsetCommitValue, {"leader_epoch": 1}, "leader_epoch"),
        (OffsetCommitValue, [], "(root)"),
        (GroupMetadataValue, {"members": [{"subscription": "!!"}]}, "members[0].subscription"),
        (GroupMetadataValue, {"members": [{"sessionTimeout": 1.5}]}, "members[0].sessionTimeout"),
        (GroupMetadataValue, {"members": {}}, "members"),
        (ShareSnapshotValue, {"stateBatches": [{"deliveryState": 128}]}, "stateBatches[0].deliveryState"),
        (ConsumerGroupMemberMetadataValue, {"subscribedTopicNames": [None]}, "subscribedTopicNames[0]"),
    ],
)
def test_invalid_json(cls: type, doc: Any, path: str) -> None:
    with pytest.raises(InputError) as info:
        from_json(cls, doc)
    assert info.value.field == path


def test_json_missing_fields_take_defaults() -> None:
    assert from_json(OffsetCommitValue, {"offset": 5}) == OffsetCommitValue(offset=5)
    assert from_json(GroupMetadataValue, {"protocol": None}) == GroupMetadataValue(protocol=None)


@needs_schemas
def test_json_form_fields_follow_kafkas_schema_files() -> None:
    # For every record and consumer-protocol schema copy and every valid version: the top-level
    # fields printed for an object with every field set are the file's fields of that version.
    # (Fields Kafka added after these copies are left to test_record_schemas' drift list.)
    from tests.scenarios.records.cases import _sample

    by_name = {message_spec(cls).name: cls for cls in ALL_MESSAGE_CLASSES}
    for name, doc in load_copies().items():
        cls = by_name[name]
        valid = Versions.parse(doc["validVersions"])
        for version in range(valid.lo, valid.hi + 1):
            obj = normalized(_sample(cls, 1), version)
            names = [f["name"][:1].lower() + f["name"][1:] for f in doc["fields"]]
            printed = [key for key in to_json(obj, version) if key in names]
            expected = [name for name, f in zip(names, doc["fields"], strict=True)
                        if version in Versions.parse(f["versions"])]
            assert printed == expected, (name, version)


@message("ProbeTaggedFirst", "data", None, "0-1", "1+")
@dataclass(frozen=True, slots=True)
class ProbeTaggedFirst:
    """No real record starts with a tagged field; the text encoder has a path for it anyway."""

    first: int = kfield("int32", "1+", tag=0, tagged="1+")
    plain: str | None = kfield("string", "0+", nullable="0+")
    last: tuple[uuid.UUID, ...] = kfield("[]uuid", "1+", tag=1, tagged="1+")


@pytest.mark.parametrize("obj", [ProbeTaggedFirst(), ProbeTaggedFirst(3, None, (TOPIC_ID,)),
                                 ProbeTaggedFirst(0, "é\\\"", ()), ProbeTaggedFirst(-1, "x", (ZERO_UUID,))])
@pytest.mark.parametrize("version", [0, 1, None])
def test_json_text_with_a_tagged_first_field(obj: ProbeTaggedFirst, version: int | None) -> None:
    expected = json.dumps(to_json(obj, version), ensure_ascii=False, separators=(",", ":"))
    assert to_json_text(obj, version) == expected

"""What the records machine's vectors cannot show of the record envelope and consumer-protocol
codecs: inputs only a library caller can give (bytearray and memoryview, a RecordType that is not
the registry's, the ``strict`` defaults), a cold decoder cache, and the messages and attributes of
errors (a vector names an error by its kind only)."""

from __future__ import annotations

import dataclasses

import pytest

from groupspec.impl.codec import records
from groupspec.impl.codec.consumer_protocol import decode_assignment, decode_subscription
from groupspec.impl.codec.errors import (
    MalformedError,
    TruncatedError,
    UnknownRecordTypeError,
    UnsupportedVersionError,
)
from groupspec.impl.codec.records import (
    decode_key,
    decode_record,
    decode_value,
    encode_key,
    encode_record,
    encode_value,
    type_decoders,
)
from groupspec.types.records import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    CoordinatorRecord,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    record_types,
)

KEY = OffsetCommitKey("g", "orders", 0)
VALUE = OffsetCommitValue(offset=5, leader_epoch=1, metadata="m", commit_timestamp=7)
OFFSET_COMMIT = record_types(OFFSETS_TOPIC)[1]
MEMBER = GroupMetadataValue.MemberMetadata(member_id="m", client_id="c", client_host="/h", session_timeout=10,
                                           subscription=b"\x01", assignment=b"\x02")
GROUP = GroupMetadataValue("consumer", 1, "range", "m", 0, (MEMBER,))


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_buffers_other_than_bytes_decode_as_bytes_do(kind: type) -> None:
    key, value = encode_key(GroupMetadataKey("g")), encode_value(GROUP, 3)
    rec = decode_record(OFFSETS_TOPIC, kind(key), kind(value))
    assert rec == CoordinatorRecord(GroupMetadataKey("g"), GROUP, 3)
    assert type(rec.value.members[0].subscription) is bytes  # not a view of the caller's buffer
    assert decode_key(OFFSETS_TOPIC, kind(encode_key(KEY))) == KEY
    assert decode_value(OFFSET_COMMIT, kind(encode_value(VALUE, 3))) == (VALUE, 3)
    sub = bytes.fromhex("0000 00000001 0001 74 00000001 ab")
    decoded, version = decode_subscription(kind(sub))
    assert version == 0 and type(decoded.user_data) is bytes


def test_short_buffers_are_refused_naming_what_was_short() -> None:
    with pytest.raises(TruncatedError, match="key needs at least 2 bytes, got 1"):
        decode_key(OFFSETS_TOPIC, bytearray(b"\x00"))
    # Two bytes hold a type id or a version: what is missing is the struct's first field.
    with pytest.raises(TruncatedError, match="group"):
        decode_key(OFFSETS_TOPIC, bytearray(b"\x00\x02"))
    with pytest.raises(TruncatedError, match="ends inside topics"):
        decode_subscription(b"\x00\x03")
    with pytest.raises(TruncatedError, match="ends inside assigned_partitions"):
        decode_assignment(b"\x00\x00")


def test_trailing_bytes_message_counts_them() -> None:
    with pytest.raises(MalformedError, match="key: 3 bytes after the end"):
        decode_key(OFFSETS_TOPIC, encode_key(KEY) + b"\x00\x00\x00")


def test_strict_is_the_default_of_decode_key_and_decode_value() -> None:
    with pytest.raises(MalformedError):
        decode_key(OFFSETS_TOPIC, encode_key(KEY) + b"\x00")
    with pytest.raises(MalformedError):
        decode_value(OFFSET_COMMIT, encode_value(VALUE, 3) + b"\x00")
    assert decode_key(OFFSETS_TOPIC, encode_key(KEY) + b"\x00", strict=False) == KEY


def test_a_refused_version_or_type_id_is_reported_as_the_signed_int16_written() -> None:
    with pytest.raises(UnsupportedVersionError) as info:
        decode_value(OFFSET_COMMIT, bytes.fromhex("0100") + encode_value(VALUE, 3)[2:])
    assert info.value.version == 256
    with pytest.raises(UnsupportedVersionError) as info:
        decode_value(OFFSET_COMMIT, bytes.fromhex("8000"))
    assert info.value.version == -32768
    for raw, type_id in (("7fff", 32767), ("8000", -32768), ("ffff", -1)):
        with pytest.raises(UnknownRecordTypeError) as unknown:
            decode_key(OFFSETS_TOPIC, bytes.fromhex(raw + "0001"))
        assert unknown.value.type_id == type_id


def test_a_record_type_not_from_the_registry() -> None:
    equal = dataclasses.replace(OFFSET_COMMIT)
    assert equal is not OFFSET_COMMIT
    assert decode_value(equal, encode_value(VALUE, 3)) == (VALUE, 3)
    renamed = dataclasses.replace(OFFSET_COMMIT, name="Other")
    for foreign in (renamed, dataclasses.replace(OFFSET_COMMIT, type_id=99)):
        with pytest.raises(UnknownRecordTypeError):
            decode_value(foreign, encode_value(VALUE, 3))


def test_a_cold_decoder_cache_is_filled_by_whichever_call_comes_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for first in (
        lambda: type_decoders(SHARE_STATE_TOPIC, 0),
        lambda: decode_value(OFFSET_COMMIT, encode_value(VALUE, 3)),
        lambda: decode_key(OFFSETS_TOPIC, encode_key(KEY)),
    ):
        monkeypatch.setattr(records, "_TABLES", {})
        assert first() is not None
    monkeypatch.setattr(records, "_TABLES", {})
    found = type_decoders(OFFSETS_TOPIC, 1)
    assert found is not None and found[0] is OFFSET_COMMIT
    assert type_decoders(OFFSETS_TOPIC, 99) is None


def test_encode_record_of_a_tombstone_and_of_a_record() -> None:
    assert encode_record(CoordinatorRecord(KEY, None, None)) == (encode_key(KEY), None)
    assert encode_record(CoordinatorRecord(KEY, VALUE, 3)) == (encode_key(KEY), encode_value(VALUE, 3))

"""Conformance vectors of the record codec (machine ``records``): key and value bytes in, the
decoded record out, so a Go or Rust decoder of ``__consumer_offsets`` can be checked.

Inputs are hand-computed bytes (classic_group.md §5.2), one record of every type at every value
version built from fixed field values, and bytes that must be refused (unknown type id, value
version above the known ones, truncation). Expectations come from groupspec's codec; the
hand-computed ones are also asserted byte for byte in tests/cover/test_codec_messages.py.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from typing import Any

from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC, record_types
from groupspec.types.records.schema import message_spec
from tests.scenarios.records import struct_cases, value_cases
from tests.scenarios.records.hex_forms import _cs, _s16, _uv

MACHINE = "records"
HANDLER = "decode_record"

#: (case, description, topic, key hex, value hex or None), from classic_group.md §5.2.
HAND_COMPUTED = (
    ("offset_commit_v3_testgroup", "OffsetCommit v3 of seed 002's testgroup", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0003" "0000000000003039" "00000007" "0006" "6d6574612d78" "0000018bcfe5687b"),
    ("offset_commit_v4_no_topic_id", "OffsetCommit v4 (flexible, Kafka 4.1+) without a topic id",
     OFFSETS_TOPIC, "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "07" "6d6574612d78" "0000018bcfe5687b" "00"),
    ("offset_commit_v4_topic_id", "OffsetCommit v4 with the tagged topic id (tag 0)", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "07" "6d6574612d78" "0000018bcfe5687b"
     "01" "00" "10" "0102030405060708090a0b0c0d0e0f10"),
    ("offset_commit_tombstone", "a null value deletes the committed offset", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000", None),
    ("offset_commit_v4_long_metadata", "OffsetCommit v4 with 200 bytes of metadata: its compact "
     "length (201) takes two varint bytes", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "c901" + "6d" * 200 + "0000018bcfe5687b" "00"),
    ("offset_commit_v4_metadata_127", "OffsetCommit v4 with 127 bytes of metadata: its compact "
     "length (128) is the smallest that takes two varint bytes", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "8001" + "6d" * 127 + "0000018bcfe5687b" "00"),
    ("offset_commit_v4_metadata_16255", "OffsetCommit v4 with 16,255 bytes of metadata: its compact "
     "length (16,256 = 127 x 128) takes the varint 80 7f", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "807f" + "6d" * 16255 + "0000018bcfe5687b" "00"),
    ("group_metadata_empty_group", "the GroupMetadata v3 written when a JoinGroup creates a group",
     OFFSETS_TOPIC, "0002" "0009" "7465737467726f7570",
     "0003" "0000" "00000000" "ffff" "ffff" "0000018bcfe56800" "00000000"),
    ("offset_commit_key_trailing_byte", "an OffsetCommit key with a byte after its struct: "
     "groupspec refuses it, Kafka reads the struct and ignores the byte", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000" "ff",
     "0003" "0000000000003039" "00000007" "0006" "6d6574612d78" "0000018bcfe5687b"),
    ("offset_commit_value_trailing_bytes", "an OffsetCommit v3 value with two bytes after its "
     "struct: groupspec refuses it, Kafka ignores them", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0003" "0000000000003039" "00000007" "0006" "6d6574612d78" "0000018bcfe5687b" "0000"),
    ("group_metadata_key_trailing_byte_tombstone", "a GroupMetadata key with a byte after its "
     "struct and no value", OFFSETS_TOPIC, "0002" "0009" "7465737467726f7570" "00", None),
    ("offset_commit_v4_overlong_tag_count", "OffsetCommit v4 whose tagged-field count 0 takes five "
     "varint bytes (80 80 80 80 00): Kafka's readUnsignedVarint reads it", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "07" "6d6574612d78" "0000018bcfe5687b" "8080808000"),
    ("offset_commit_v4_six_byte_tag_count", "OffsetCommit v4 whose tagged-field count takes six "
     "varint bytes: refused (a continuation bit on the fifth)", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "07" "6d6574612d78" "0000018bcfe5687b" "808080808000"),
    ("offset_commit_v4_tag_2_pow_31", "OffsetCommit v4 with a tagged field of tag 2^31 (80 80 80 80 "
     "08: a negative int in Kafka, no known tag) and 16 bytes: skipped, no topic id", OFFSETS_TOPIC,
     "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000",
     "0004" "0000000000003039" "00000007" "07" "6d6574612d78" "0000018bcfe5687b" "01" "8080808008" "10"
     + "01" * 16),
    ("unknown_type_24", "a record type no Kafka release has used (24): unknown, readers skip it",
     OFFSETS_TOPIC, "0018" "0001" "67", "0000"),
    ("offset_commit_value_v9", "a value version above the highest known (4): refused",
     OFFSETS_TOPIC, "0001" "0001" "67" "0001" "74" "00000000", "0009" "00"),
    ("key_of_one_byte", "a key shorter than its type id", OFFSETS_TOPIC, "00", None),
    ("value_of_one_byte", "a value shorter than its version", OFFSETS_TOPIC,
     "0001" "0001" "67" "0001" "74" "00000000", "00"),
    ("value_of_its_version_only", "an OffsetCommit value of its version alone", OFFSETS_TOPIC,
     "0001" "0001" "67" "0001" "74" "00000000", "0003"),
    ("offset_commit_value_truncated", "a value that ends inside its commit timestamp",
     OFFSETS_TOPIC, "0001" "0001" "67" "0001" "74" "00000000",
     "0003" "0000000000003039" "00000007" "0000" "0000"),
)


# --- boundaries and refusals, by hand from Kafka's generated readers and writers ----------------
# (generator/.../MessageDataGenerator.java: compact lengths are uvarint length + 1, a negative
# length is null and refused where the field is not nullable, a compact string longer than 0x7fff
# is refused, an array count above the bytes left is refused, unknown tags are skipped.)




_COMMIT_KEY = "0001" "0009" "7465737467726f7570" "0006" "6f7264657273" "00000000"
_COMMIT_V4_HEAD = "0004" "0000000000003039" "00000007"
_COMMIT_TS = "0000018bcfe5687b"
_TOPIC_ID = "0102030405060708090a0b0c0d0e0f10"
_MEMBER_KEY_10 = "000a" + _s16("g") + _s16("m")
_SNAPSHOT_KEY = "0000" + _s16("g") + _TOPIC_ID + "00000000"
#: ShareSnapshot v0 with every integer at an end of its range.
_SNAPSHOT_EXTREMES = ("0000" "7fffffff" "80000000" "ffffffff" "8000000000000000" "7fffffffffffffff"
                      "0000000000000000" "03"
                      "0000000000000000" "7fffffffffffffff" "7f" "7fff" "00"
                      "ffffffffffffffff" "8000000000000000" "80" "8000" "00"
                      "00")
_GROUP_KEY = "0002" + _s16("testgroup")

#: Round-trip boundaries (decoded, then encoded back to the same bytes).
BOUNDARIES: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("offset_commit_v4_metadata_126_bytes", "OffsetCommit v4 whose metadata is 126 bytes: the "
     "longest compact length of one byte (127)", OFFSETS_TOPIC, _COMMIT_KEY,
     _COMMIT_V4_HEAD + _cs("a" * 126) + _COMMIT_TS + "00"),
    ("offset_commit_v4_metadata_127_bytes", "OffsetCommit v4 whose metadata is 127 bytes: the "
     "compact length 128 takes two varint bytes (80 01)", OFFSETS_TOPIC, _COMMIT_KEY,
     _COMMIT_V4_HEAD + _cs("a" * 127) + _COMMIT_TS + "00"),
    ("share_member_client_id_32767_bytes", "ShareGroupMemberMetadata v0 whose clientId is 32767 "
     "bytes, the longest string there is (compact length 32768, three varint bytes)", OFFSETS_TOPIC,
     _MEMBER_KEY_10, "0000" "00" + _cs("c" * 32767) + _cs("") + "01" "00"),
    ("target_member_zero_topic_id", "ConsumerGroupTargetAssignmentMember v0 assigning partition 0 "
     "of the all-zero topic id", OFFSETS_TOPIC, "0007" + _s16("g") + _s16("m"),
     "0000" "02" + "00" * 16 + "02" "00000000" "00" "00"),
    ("share_snapshot_integer_extremes", "ShareSnapshot v0 with int8, int16, int32 and int64 fields "
     "at both ends of their ranges", SHARE_STATE_TOPIC, _SNAPSHOT_KEY, _SNAPSHOT_EXTREMES),
    ("group_metadata_v3_member_nulls", "GroupMetadata v3 (not flexible) with a null protocol, a null "
     "leader and a member whose groupInstanceId is null (int16 -1)", OFFSETS_TOPIC, _GROUP_KEY,
     "0003" + _s16("consumer") + "00000001" "ffff" "ffff" "0000018bcfe56800" "00000001"
     + _s16("m1") + "ffff" + _s16("c") + _s16("/h") + "000493e0" "0000afc8" "00000000" "00000000"),
    ("group_metadata_v4_member_nulls", "GroupMetadata v4 (flexible) with a null protocol, a null "
     "leader and a member whose groupInstanceId is null (compact length 0)", OFFSETS_TOPIC,
     _GROUP_KEY, "0004" + _cs("consumer") + "00000001" "00" "00" "0000018bcfe56800" "02"
     + _cs("m1") + "00" + _cs("c") + _cs("/h") + "000493e0" "0000afc8" "01" "01" "00" "00"),
    ("consumer_group_metadata_negative_hash", "ConsumerGroupMetadata v0 whose metadataHash (tag 0, "
     "default 0) is -5: not its default, so written and printed", OFFSETS_TOPIC, "0003" + _s16("g"),
     "0000" "00000003" "01" "00" "08" "fffffffffffffffb"),
    ("group_metadata_v4_subscription_32768_bytes", "GroupMetadata v4 (flexible) whose member's "
     "subscription is 32768 bytes: bytes have no 32767 limit, only strings do", OFFSETS_TOPIC,
     _GROUP_KEY, "0004" + _cs("consumer") + "00000001" "00" "00" "0000018bcfe56800" "02"
     + _cs("m1") + "00" + _cs("c") + _cs("/h") + "000493e0" "0000afc8" + _uv(32769) + "ab" * 32768
     + "01" "00" "00"),
    ("consumer_member_all_nulls", "ConsumerGroupMemberMetadata v0 with every nullable string null "
     "and no classic member metadata (tag 0 absent)", OFFSETS_TOPIC, "0005" + _s16("g") + _s16("m"),
     "0000" "00" "00" + _cs("c") + _cs("h") + "01" "00" "00002710" "00" "00"),
)

#: Read as Kafka reads them, but not what a writer produces (so not turned around).
DECODE_ONLY: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("offset_commit_v4_unknown_tags", "OffsetCommit v4 carrying tags 5 and 200 (unknown here): "
     "skipped, the record reads as if they were absent", OFFSETS_TOPIC, _COMMIT_KEY,
     _COMMIT_V4_HEAD + _cs("meta-x") + _COMMIT_TS + "02" "05" "02" "abcd" + _uv(200) + "00"),
    ("offset_commit_v4_topic_id_then_unknown_tag", "OffsetCommit v4 with the topic id (tag 0) "
     "and then an unknown tag 9 of no bytes", OFFSETS_TOPIC, _COMMIT_KEY,
     _COMMIT_V4_HEAD + _cs("meta-x") + _COMMIT_TS + "02" "00" "10" + _TOPIC_ID + "09" "00"),
    ("offset_commit_v4_zero_topic_id_tag", "OffsetCommit v4 whose tag 0 holds the zero uuid: its "
     "default, so the JSON form leaves topicId out", OFFSETS_TOPIC, _COMMIT_KEY,
     _COMMIT_V4_HEAD + _cs("meta-x") + _COMMIT_TS + "01" "00" "10" + "00" * 16),
    ("consumer_member_null_classic_tag", "ConsumerGroupMemberMetadata v0 whose tag 0 "
     "(classicMemberMetadata, a nullable struct) holds the marker uvarint 0: null, its default, "
     "so left out; then an unknown tag 3 of one byte, skipped", OFFSETS_TOPIC,
     "0005" + _s16("g") + _s16("m"),
     "0000" "00" "00" + _cs("c") + _cs("h") + "01" "00" "00002710" "00" "02" "00" "01" "00" "03" "01" "07"),
    ("consumer_member_unknown_tag_only", "ConsumerGroupMemberMetadata v0 carrying only an unknown "
     "tag 5 of two bytes: skipped, classicMemberMetadata stays null", OFFSETS_TOPIC,
     "0005" + _s16("g") + _s16("m"),
     "0000" "00" "00" + _cs("c") + _cs("h") + "01" "00" "00002710" "00" "01" "05" "02" "0102"),
)

#: Refused: the error kind is the expectation.
REFUSALS: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("offset_commit_v4_tag_past_end", "OffsetCommit v4 whose tag 0 claims 16 bytes but 4 remain",
     OFFSETS_TOPIC, _COMMIT_KEY, _COMMIT_V4_HEAD + _cs("meta-x") + _COMMIT_TS + "01" "00" "10" "01020304"),
    ("share_member_client_id_32768_bytes", "ShareGroupMemberMetadata v0 whose clientId's compact "
     "length says 32768 bytes: longer than any string (Kafka: 'had invalid length')", OFFSETS_TOPIC,
     _MEMBER_KEY_10, "0000" "00" + _uv(32769) + "63" * 8),
    ("share_member_client_id_cut_short", "ShareGroupMemberMetadata v0 whose clientId says 10 "
     "bytes but 2 remain", OFFSETS_TOPIC, _MEMBER_KEY_10, "0000" "00" "0b" "6364"),
    ("offset_commit_key_null_group", "an OffsetCommit key whose group has length -1: not nullable",
     OFFSETS_TOPIC, "0001" "ffff" "0006" "6f7264657273" "00000000", None),
    ("regular_expression_null_topics", "a ConsumerGroupRegularExpression value whose topics array "
     "is null (compact length 0): not nullable", OFFSETS_TOPIC, "0010" + _s16("g") + _s16("r"),
     "0000" "00" "0000000000000001" "0000000000000002" "00"),
    ("regular_expression_topics_above_bytes", "a ConsumerGroupRegularExpression value whose topics "
     "array claims 100 elements with 3 bytes left (Kafka: 'Tried to allocate a collection')",
     OFFSETS_TOPIC, "0010" + _s16("g") + _s16("r"), "0000" + _uv(101) + "026100"),
    ("regular_expression_null_topic_element", "a ConsumerGroupRegularExpression value whose second "
     "topic is null (compact length 0): array elements are never nullable", OFFSETS_TOPIC,
     "0010" + _s16("g") + _s16("r"),
     "0000" "03" + _cs("a") + "00" "0000000000000001" "0000000000000002" "00"),
)

#: Cases whose bytes a reader takes but no writer writes (overlong varints, an unknown tag):
#: encoding their record gives other bytes, so they have no encode_record vector.
NOT_AS_WRITTEN = frozenset({"offset_commit_v4_overlong_tag_count", "offset_commit_v4_tag_2_pow_31"})

#: A ShareUpdate a real Kafka 4.2.1 broker wrote (tests/broker/test_real_logs.py's workload: a share
#: consumer RELEASEd offsets 1, 4 and 7 of ten, each then redelivered): its tagged
#: deliveryCompleteCount (KIP-1226) says 6 of the offsets from the start offset on are finished.
_REAL_SHARE_UPDATE_KEY = "0001" + _s16("wl-share2") + "1c5351fba57c43448042880015c8755d" + "00000000"
_REAL_SHARE_UPDATE = ("0000" "00000000" "00000000" "0000000000000001" "04"
                      "0000000000000001" "0000000000000001" "00" "0002" "00"
                      "0000000000000004" "0000000000000004" "00" "0002" "00"
                      "0000000000000007" "0000000000000007" "00" "0002" "00"
                      "01" "00" "04" "00000006")
BOUNDARIES += (
    ("share_update_delivery_complete_count_from_kafka_421", "ShareUpdate v0 as a Kafka 4.2.1 broker "
     "wrote it, with the tagged deliveryCompleteCount (tag 0, default -1; KIP-1226) at 6",
     SHARE_STATE_TOPIC, _REAL_SHARE_UPDATE_KEY, _REAL_SHARE_UPDATE),
)
DECODE_ONLY += (
    ("share_snapshot_delivery_complete_count_default_written", "ShareSnapshot v0 that writes its "
     "deliveryCompleteCount tag at the default -1: a reader takes it (a writer would leave it out, "
     "so the bytes do not round-trip)", SHARE_STATE_TOPIC, _SNAPSHOT_KEY,
     "0000" "00000000" "00000001" "00000000" "ffffffffffffffff" "0000019ae3a1f2c9" "0000019ae3a1f2c9"
     "01" "01" "00" "04" "ffffffff"),
)

# The struct codec's own boundaries (tests/scenarios/records/struct_cases.py), after the ones above.
BOUNDARIES += struct_cases.BOUNDARIES
DECODE_ONLY += struct_cases.DECODE_ONLY
REFUSALS += struct_cases.REFUSALS


def _sample(cls: type, salt: int) -> Any:
    """A deterministic instance with every field away from its default where the type allows."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        spec = f.metadata["kafka"]
        wire = spec.wire
        if wire in ("int8", "int16", "int32", "int64", "uint16", "uint32"):
            values[f.name] = salt % 100 + 1
        elif wire == "bool":
            values[f.name] = True
        elif wire == "float64":
            values[f.name] = 0.5
        elif wire == "string":
            values[f.name] = f"{f.name}-{salt}"
        elif wire == "bytes":
            values[f.name] = bytes([salt % 256, 1, 2])
        elif wire == "uuid":
            values[f.name] = uuid.UUID(int=(salt + 1) * 0x0101010101010101)
        elif wire == "struct" and spec.struct is not None:
            values[f.name] = _sample(spec.struct, salt + 1)
        elif wire == "[]struct" and spec.struct is not None:
            values[f.name] = (_sample(spec.struct, salt + 1), _sample(spec.struct, salt + 2))
        elif wire == "[]int32":
            values[f.name] = (0, 3, salt % 7 + 4)
        elif wire == "[]string":
            values[f.name] = ("a", f"b{salt}")
    return cls(**values)


def _every_type() -> Iterator[tuple[str, str, str, str, str | None]]:
    from groupspec.impl.codec.messages import EncodeError
    from groupspec.impl.codec.records import encode_key, encode_value

    for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
        for type_id, rt in sorted(record_types(topic).items()):
            key = encode_key(_sample(rt.key, type_id)).hex()
            versions = message_spec(rt.value).versions
            for version in range(versions.lo, versions.hi + 1):
                value = _sample(rt.value, type_id + version)
                try:
                    data = encode_value(value, version)
                except EncodeError:
                    # fields absent at this version must hold defaults: keep only those present
                    value = _present_only(rt.value, value, version)
                    data = encode_value(value, version)
                short = "offsets" if topic == OFFSETS_TOPIC else "share_state"
                yield (f"{short}_{rt.name}_v{version}".lower(),
                       f"{rt.name} (type {type_id} of {topic}) at value version {version}",
                       topic, key, data.hex())


def _present_only(cls: type, value: Any, version: int) -> Any:
    changes = {}
    for f in dataclasses.fields(cls):
        spec = f.metadata["kafka"]
        if version not in spec.versions:
            if f.default is not dataclasses.MISSING:
                changes[f.name] = f.default
            elif f.default_factory is not dataclasses.MISSING:
                changes[f.name] = f.default_factory()
    return dataclasses.replace(value, **changes)


def record_vector_docs() -> Iterator[dict[str, Any]]:
    """Every vector of the machine: decode_record's, then encode_record's (its cases turned
    around), then decode_log's (tests/scenarios/records/log_cases.py), then encode_batch's,
    write_log's and read_log's (tests/scenarios/records/batch_cases.py), then the batch reader's
    edges (tests/scenarios/records/batch_edge_cases.py), then those of
    tests/scenarios/records/batch_write_cases.py, then decode_partition's
    (tests/scenarios/records/partition_cases.py, then tests/scenarios/records/reader_cases.py),
    then decode_consumer_protocol's and encode_consumer_protocol's
    (tests/scenarios/records/protocol_cases.py)."""
    from tests.scenarios.records.batch_cases import batch_vector_docs
    from tests.scenarios.records.batch_edge_cases import batch_edge_vector_docs
    from tests.scenarios.records.batch_write_cases import batch_write_vector_docs
    from tests.scenarios.records.log_cases import log_vector_docs
    from tests.scenarios.records.partition_cases import partition_vector_docs
    from tests.scenarios.records.protocol_cases import protocol_vector_docs
    from tests.scenarios.records.reader_cases import reader_vector_docs

    decoded = list(_decode_vector_docs())
    yield from decoded
    yield from _encode_vector_docs(decoded)
    yield from _encode_only_docs()
    yield from log_vector_docs()
    yield from batch_vector_docs()
    yield from batch_edge_vector_docs()
    yield from batch_write_vector_docs()
    yield from partition_vector_docs()
    yield from reader_vector_docs()
    yield from protocol_vector_docs()


def _encode_vector_docs(decoded: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """decode_record's vectors turned around: the decoded record in, the bytes it came from out
    (so every record type at every value version round-trips byte for byte). The refusals have
    no record to turn around."""
    from groupspec.conformance.records import encode_answer
    from groupspec.conformance.targets import error_kind

    decode_only = {case for case, *_ in DECODE_ONLY}
    for doc in decoded:
        if "error" in doc["expected"] or doc["case"] in decode_only or doc["case"] in NOT_AS_WRITTEN:
            continue
        doc_input = {"topic": doc["input"]["topic"], **doc["expected"]}
        expected = {"key": doc["input"]["key"], "value": doc["input"]["value"]}
        written = encode_answer(doc_input)
        if written != expected:  # the generator refuses to publish a vector the codec fails
            raise AssertionError(f"{doc['case']}: encodes to {written}, decoded from {expected}")
        try:  # Kafka's serde refuses a type retired by 4.2
            expected_kafka: dict[str, Any] = encode_answer(doc_input, kafka=True)
        except Exception as exc:
            expected_kafka = {"error": error_kind(exc)}
        yield {**doc, "handler": "encode_record",
               "description": f"{doc['description']}: encoded back to the same bytes",
               "input": doc_input, "expected": expected, "expected_kafka": expected_kafka}


def _decode_vector_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.records import decode_answer
    from groupspec.conformance.targets import error_kind

    rules = "MessageDataGenerator.java (Kafka's generated readers and writers)"
    cases = [(c, d, t, k, v, "hand-made", "classic_group.md §5.2") for c, d, t, k, v in HAND_COMPUTED]
    cases += [(c, d, t, k, v, "hand-made", rules) for c, d, t, k, v in BOUNDARIES + DECODE_ONLY + REFUSALS]
    cases += [(c, d, t, k, v, "generated", "groupspec.types.records") for c, d, t, k, v in _every_type()]
    for case, description, topic, key, value, kind, ref in cases:
        doc_input = {"topic": topic, "key": key, "value": value}
        try:
            expected: dict[str, Any] = decode_answer(doc_input)
        except Exception as exc:  # the codec's refusal is the expectation
            expected = {"error": error_kind(exc)}
        try:  # Kafka ignores bytes after a key or value struct and no longer knows retired types
            expected_kafka: dict[str, Any] = decode_answer(doc_input, kafka=True)
        except Exception as exc:
            expected_kafka = {"error": error_kind(exc)}
        yield {
            "format": vf.FORMAT_VERSION,
            "machine": MACHINE,
            "handler": HANDLER,
            "case": case,
            "description": description,
            "source": {"kind": kind, "ref": ref},
            "mode": "exact",
            "properties": [],
            "input": doc_input,
            "expected": expected,
            "expected_kafka": expected_kafka,
        }


# --- encode_record only: JSON in that no decode_record vector prints ------------------------------

_COMMIT_JSON_KEY = {"group": "testgroup", "topic": "orders", "partition": 0}
_COMMIT_JSON = {"offset": 12345, "leaderEpoch": 7, "metadata": "meta-x", "commitTimestamp": 1700000000123}
_SNAPSHOT_JSON_KEY = {"groupId": "g", "topicId": "AQIDBAUGBwgJCgsMDQ4PEA", "partition": 0}
_BATCH_JSON = {"firstOffset": 0, "lastOffset": 9, "deliveryState": 0, "deliveryCount": 1}
_SNAPSHOT_JSON: dict[str, Any] = {"snapshotEpoch": 1, "stateEpoch": 1, "leaderEpoch": 1, "startOffset": 0,
                  "createTimestamp": 0, "writeTimestamp": 0,
                  "stateBatches": [_BATCH_JSON]}
_MEMBER_JSON = {"memberId": "m1", "groupInstanceId": None, "clientId": "c", "clientHost": "/h",
                "rebalanceTimeout": 300000, "sessionTimeout": 45000, "subscription": "", "assignment": ""}
_GROUP_JSON = {"protocolType": "consumer", "generation": 1, "protocol": None, "leader": None,
               "currentStateTimestamp": 1700000000000, "members": [_MEMBER_JSON]}


def _commit_doc(version: int, **value: Any) -> dict[str, Any]:
    return {"topic": OFFSETS_TOPIC, "type": "OffsetCommit", "typeId": 1, "key": _COMMIT_JSON_KEY,
            "valueVersion": version, "value": value}


def _snapshot_doc(**changes: Any) -> dict[str, Any]:
    return {"topic": SHARE_STATE_TOPIC, "type": "ShareSnapshot", "typeId": 0, "key": _SNAPSHOT_JSON_KEY,
            "valueVersion": 0, "value": {**_SNAPSHOT_JSON, **changes}}


def _batch(**changes: Any) -> list[dict[str, Any]]:
    return [{**_BATCH_JSON, **changes}]


def _group_doc(version: int, **member: Any) -> dict[str, Any]:
    return {"topic": OFFSETS_TOPIC, "type": "GroupMetadata", "typeId": 2, "key": {"group": "testgroup"},
            "valueVersion": version, "value": {**_GROUP_JSON, "members": [{**_MEMBER_JSON, **member}]}}


#: (case, description, encode_record input). A field a version does not have is dropped when its
#: schema marks it ignorable (every such field of the coordinator records is), as Kafka's writers
#: do. Bad input is what Kafka's JSON readers (MessageUtil.jsonNodeTo*, the generated *JsonConverter)
#: refuse too: an integer outside its type's range, a JSON type that is not the field's, a null
#: where the field is not nullable, bad base64, a string that is not a uuid. Left out because
#: groupspec's reader differs from Kafka's there: an int8 of 128..256 (Kafka maps it into range),
#: a field missing at a version that has it (Kafka refuses, groupspec takes the default), an
#: unknown field (Kafka ignores it, groupspec refuses) and a uuid in hex (Kafka refuses).
ENCODE_CASES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("encode_offset_commit_v3_drops_expire_timestamp", "OffsetCommit v3 given an expireTimestamp "
     "(v1 only, ignorable): written without it, the bytes of classic_group.md §5.2",
     _commit_doc(3, **_COMMIT_JSON, expireTimestamp=99)),
    ("encode_offset_commit_v1_expire_timestamp", "OffsetCommit v1: no leaderEpoch (v3+, "
     "ignorable, dropped), the expireTimestamp after the commit timestamp",
     _commit_doc(1, **_COMMIT_JSON, expireTimestamp=99)),
    ("encode_offset_commit_v0_drops_leader_epoch", "OffsetCommit v0: offset, metadata, commit "
     "timestamp; the leaderEpoch is dropped", _commit_doc(0, **_COMMIT_JSON)),
    ("encode_offset_commit_v5", "OffsetCommit at value version 5, above the highest (4): groupspec "
     "refuses it; Kafka's serializer writes it (v4's layout under the number 5), which its own "
     "deserializer then refuses (docs/divergences.md, records_writes_unreadable_version)",
     _commit_doc(5, **_COMMIT_JSON)),
    ("encode_legacy_offset_commit_v1", "LegacyOffsetCommit at value version 1, above its only "
     "version 0: groupspec refuses it; Kafka's serializer writes the version 0 fields under the "
     "number 1 (they have every valid version, so its writer never checks theirs)",
     {"topic": OFFSETS_TOPIC, "type": "LegacyOffsetCommit", "typeId": 0,
      "key": {"group": "g", "topic": "t", "partition": 0}, "valueVersion": 1,
      "value": {"offset": 5, "metadata": "", "commitTimestamp": 7}}),
    ("encode_type_name_mismatch", "type id 1 named GroupMetadata: refused as bad input",
     {**_commit_doc(3, **_COMMIT_JSON), "type": "GroupMetadata"}),
    ("encode_delivery_state_min", "deliveryState -129, below int8: bad input",
     _snapshot_doc(stateBatches=_batch(deliveryState=-129))),
    ("encode_delivery_count_max", "deliveryCount 32768, above int16: bad input",
     _snapshot_doc(stateBatches=_batch(deliveryCount=32768))),
    ("encode_delivery_count_min", "deliveryCount -32769, below int16: bad input",
     _snapshot_doc(stateBatches=_batch(deliveryCount=-32769))),
    ("encode_snapshot_epoch_max", "snapshotEpoch 2147483648, above int32: bad input",
     _snapshot_doc(snapshotEpoch=2147483648)),
    ("encode_state_epoch_min", "stateEpoch -2147483649, below int32: bad input",
     _snapshot_doc(stateEpoch=-2147483649)),
    ("encode_start_offset_max", "startOffset 2^63, above int64: bad input",
     _snapshot_doc(startOffset=9223372036854775808)),
    ("encode_start_offset_min", "startOffset -2^63-1, below int64: bad input",
     _snapshot_doc(startOffset=-9223372036854775809)),
    ("encode_epoch_as_string", "snapshotEpoch given as the string \"1\": bad input",
     _snapshot_doc(snapshotEpoch="1")),
    ("encode_epoch_as_boolean", "snapshotEpoch given as true: bad input", _snapshot_doc(snapshotEpoch=True)),
    ("encode_epoch_as_fraction", "snapshotEpoch given as 1.5: bad input", _snapshot_doc(snapshotEpoch=1.5)),
    ("encode_batches_not_an_array", "stateBatches given as an object: bad input",
     _snapshot_doc(stateBatches={"firstOffset": 0})),
    ("encode_batch_not_an_object", "an element of stateBatches given as a number: bad input",
     _snapshot_doc(stateBatches=[1])),
    ("encode_topic_id_not_a_uuid", "a key whose topicId is neither Kafka's form nor hex: bad input",
     {**_snapshot_doc(), "key": {**_SNAPSHOT_JSON_KEY, "topicId": "not-a-uuid"}}),
    ("encode_topic_id_stray_bits_above", "a key whose topicId has bits set after the uuid's 128 "
     "(AQIDBAUGBwgJCgsMDQ4PEB, canonically ...EA): groupspec refuses it as bad input; Kafka's "
     "Uuid.fromString drops those bits (docs/divergences.md, records_uuid_stray_bits)",
     {**_snapshot_doc(), "key": {**_SNAPSHOT_JSON_KEY, "topicId": "AQIDBAUGBwgJCgsMDQ4PEB"}}),
    ("encode_topic_id_stray_bits_below", "a key whose topicId's last character sorts below its "
     "canonical one (AQIDBAUGBwgJCgsMDQ4P_0, canonically ..._w; a stray bit, not a bigger "
     "number): bad input to groupspec, dropped by Kafka",
     {**_snapshot_doc(), "key": {**_SNAPSHOT_JSON_KEY, "topicId": "AQIDBAUGBwgJCgsMDQ4P_0"}}),
    ("encode_topic_id_as_number", "a key whose topicId is a number: bad input",
     {**_snapshot_doc(), "key": {**_SNAPSHOT_JSON_KEY, "topicId": 7}}),
    ("encode_key_not_an_object", "a key given as a string: bad input",
     {**_snapshot_doc(), "key": "g"}),
    ("encode_member_client_id_null", "a GroupMetadata member whose clientId (never nullable) is "
     "null: bad input", _group_doc(3, clientId=None)),
    ("encode_member_subscription_bad_base64", "a GroupMetadata member whose subscription is not "
     "base64: bad input", _group_doc(3, subscription="!!")),
    ("encode_member_instance_id_v2_dropped", "GroupMetadata v2 with a member's groupInstanceId "
     "(v3+, ignorable): dropped", _group_doc(2, groupInstanceId="i-1")),
    ("encode_topic_names_null_element", "ConsumerGroupMemberMetadata whose subscribedTopicNames "
     "holds a null: bad input",
     {"topic": OFFSETS_TOPIC, "type": "ConsumerGroupMemberMetadata", "typeId": 5,
      "key": {"groupId": "g", "memberId": "m"}, "valueVersion": 0,
      "value": {"clientId": "c", "clientHost": "h", "subscribedTopicNames": ["a", None],
                "rebalanceTimeoutMs": 1}}),
    ("encode_partitions_string_element", "ConsumerGroupTargetAssignmentMember whose partitions "
     "hold a string: bad input",
     {"topic": OFFSETS_TOPIC, "type": "ConsumerGroupTargetAssignmentMember", "typeId": 7,
      "key": {"groupId": "g", "memberId": "m"}, "valueVersion": 0,
      "value": {"topicPartitions": [{"topicId": "AQIDBAUGBwgJCgsMDQ4PEA", "partitions": [1, "2"]}]}}),
    ("encode_topic_name_32768_bytes", "ConsumerGroupRegularExpression whose one topic name is "
     "32768 bytes: refused by the writer, as a field of that length is",
     {"topic": OFFSETS_TOPIC, "type": "ConsumerGroupRegularExpression", "typeId": 16,
      "key": {"groupId": "g", "regularExpression": "r"}, "valueVersion": 0,
      "value": {"topics": ["t" * 32768], "version": 1, "timestamp": 2}}),
    ("encode_classic_member_metadata_null", "ConsumerGroupMemberMetadata whose "
     "classicMemberMetadata is null: not its default (Kafka 4.2.1's is an empty struct), so "
     "written as tag 0 holding the null marker, as Kafka writes every consumer-protocol member",
     {"topic": OFFSETS_TOPIC, "type": "ConsumerGroupMemberMetadata", "typeId": 5,
      "key": {"groupId": "g", "memberId": "m"}, "valueVersion": 0,
      "value": {"instanceId": None, "rackId": None, "clientId": "c", "clientHost": "h",
                "subscribedTopicNames": [], "subscribedTopicRegex": None, "rebalanceTimeoutMs": 10000,
                "serverAssignor": None, "classicMemberMetadata": None}}),
    ("encode_classic_member_metadata_absent", "ConsumerGroupMemberMetadata without "
     "classicMemberMetadata: its default, the empty struct, so tag 0 is not written",
     {"topic": OFFSETS_TOPIC, "type": "ConsumerGroupMemberMetadata", "typeId": 5,
      "key": {"groupId": "g", "memberId": "m"}, "valueVersion": 0,
      "value": {"instanceId": None, "rackId": None, "clientId": "c", "clientHost": "h",
                "subscribedTopicNames": [], "subscribedTopicRegex": None, "rebalanceTimeoutMs": 10000,
                "serverAssignor": None}}),
    ("encode_client_id_32768_bytes", "ShareGroupMemberMetadata whose clientId is 32768 bytes: "
     "refused by the writer (Kafka: 'field is too long to be serialized')",
     {"topic": OFFSETS_TOPIC, "type": "ShareGroupMemberMetadata", "typeId": 10,
      "key": {"groupId": "g", "memberId": "m"}, "valueVersion": 0,
      "value": {"rackId": None, "clientId": "c" * 32768, "clientHost": "", "subscribedTopicNames": []}}),
)

ENCODE_CASES += struct_cases.ENCODE_CASES
ENCODE_CASES += value_cases.ENCODE_CASES


#: Encode cases where Kafka's code breaks the rule the vector states (docs/divergences.md).
DIVERGENT_ENCODES = {
    "encode_topic_id_stray_bits_above": (
        "records_uuid_stray_bits", "clients/src/main/java/org/apache/kafka/common/Uuid.java",
    ),
    "encode_topic_id_stray_bits_below": (
        "records_uuid_stray_bits", "clients/src/main/java/org/apache/kafka/common/Uuid.java",
    ),
    "encode_legacy_offset_commit_v1": (
        "records_writes_unreadable_version",
        "coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/CoordinatorRecordSerde.java",
    ),
    "encode_offset_commit_v5": (
        "records_writes_unreadable_version",
        "coordinator-common/src/main/java/org/apache/kafka/coordinator/common/runtime/CoordinatorRecordSerde.java",
    ),
}


def _encode_only_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.records import encode_answer
    from groupspec.conformance.targets import error_kind

    for case, description, doc_input in ENCODE_CASES:
        try:
            expected: dict[str, Any] = encode_answer(doc_input)
        except Exception as exc:  # the writer's refusal is the expectation
            expected = {"error": error_kind(exc)}
        try:  # Kafka's serde: retired types refused, versions above the highest written anyway
            expected_kafka: dict[str, Any] = encode_answer(doc_input, kafka=True)
        except Exception as exc:
            expected_kafka = {"error": error_kind(exc)}
        source: dict[str, str] = {"kind": "hand-made", "ref": "MessageDataGenerator.java, MessageUtil.java"}
        if case in DIVERGENT_ENCODES:
            name, upstream = DIVERGENT_ENCODES[case]
            source = {"kind": "divergence", "name": name, "upstream": upstream,
                      "docs": f"docs/divergences.md#{name}"}
        yield {
            "format": vf.FORMAT_VERSION, "machine": MACHINE, "handler": "encode_record", "case": case,
            "description": description,
            "source": source,
            "mode": "exact", "properties": [], "input": doc_input,
            "expected": expected, "expected_kafka": expected_kafka,
        }

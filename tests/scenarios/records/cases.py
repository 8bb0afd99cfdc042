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
    ("unknown_type_17", "a streams-group record (type 17): unknown here, readers skip it",
     OFFSETS_TOPIC, "0011" "0001" "67", "0000"),
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


#: Cases whose bytes a reader takes but no writer writes (overlong varints, an unknown tag):
#: encoding their record gives other bytes, so they have no encode_record vector.
NOT_AS_WRITTEN = frozenset({"offset_commit_v4_overlong_tag_count", "offset_commit_v4_tag_2_pow_31"})


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
    around), then decode_log's (tests/scenarios/records/log_cases.py)."""
    from tests.scenarios.records.log_cases import log_vector_docs

    decoded = list(_decode_vector_docs())
    yield from decoded
    yield from _encode_vector_docs(decoded)
    yield from log_vector_docs()


def _encode_vector_docs(decoded: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """decode_record's vectors turned around: the decoded record in, the bytes it came from out
    (so every record type at every value version round-trips byte for byte). The refusals have
    no record to turn around."""
    from groupspec.conformance.records import encode_answer

    for doc in decoded:
        if "error" in doc["expected"] or doc["case"] in NOT_AS_WRITTEN:
            continue
        doc_input = {"topic": doc["input"]["topic"], **doc["expected"]}
        expected = {"key": doc["input"]["key"], "value": doc["input"]["value"]}
        written = encode_answer(doc_input)
        if written != expected:  # the generator refuses to publish a vector the codec fails
            raise AssertionError(f"{doc['case']}: encodes to {written}, decoded from {expected}")
        yield {**doc, "handler": "encode_record",
               "description": f"{doc['description']}: encoded back to the same bytes",
               "input": doc_input, "expected": expected, "expected_kafka": expected}


def _decode_vector_docs() -> Iterator[dict[str, Any]]:
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.records import decode_answer
    from groupspec.conformance.targets import error_kind

    cases = [(c, d, t, k, v, "hand-made") for c, d, t, k, v in HAND_COMPUTED]
    cases += [(c, d, t, k, v, "generated") for c, d, t, k, v in _every_type()]
    for case, description, topic, key, value, kind in cases:
        doc_input = {"topic": topic, "key": key, "value": value}
        try:
            expected: dict[str, Any] = decode_answer(doc_input)
        except Exception as exc:  # the codec's refusal is the expectation
            expected = {"error": error_kind(exc)}
        try:  # Kafka ignores bytes after a key or value struct, groupspec refuses them
            expected_kafka: dict[str, Any] = decode_answer(doc_input, strict=False)
        except Exception as exc:
            expected_kafka = {"error": error_kind(exc)}
        yield {
            "format": vf.FORMAT_VERSION,
            "machine": MACHINE,
            "handler": HANDLER,
            "case": case,
            "description": description,
            "source": {"kind": kind, "ref": "classic_group.md §5.2" if kind == "hand-made"
                       else "groupspec.types.records"},
            "mode": "exact",
            "properties": [],
            "input": doc_input,
            "expected": expected,
            "expected_kafka": expected_kafka,
        }

"""Conformance vectors of the classic consumer protocol (machine ``records``, handlers
``decode_consumer_protocol`` and ``encode_consumer_protocol``): the bytes a classic ``consumer``
member puts in JoinGroup (ConsumerProtocolSubscription) and its leader in SyncGroup
(ConsumerProtocolAssignment), stored opaque in a GroupMetadataValue member.

The bytes are spelled by hand here (int16 version, then the non-flexible struct of the schema
files ConsumerProtocolSubscription.json / ConsumerProtocolAssignment.json, versions 0-3), not by
groupspec's writer; the expectations are what groupspec's codec makes of them, which follows
Kafka's client ``ConsumerProtocol``: a version above 3 is read with the version-3 layout and
reported as written, bytes after the struct are ignored, a negative version is refused; a writer
asked for a version above 3 writes version 3, and one asked for no version writes the highest.
Every decode vector that reads its bytes exactly as written is also turned around into an
encode vector (the decoded message and version in, the same bytes out).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

KAFKA_REF = "clients/.../consumer/internals/ConsumerProtocol.java; ConsumerProtocol*.json schemas"


def i16(n: int) -> bytes:
    return struct.pack(">h", n)


def i32(n: int) -> bytes:
    return struct.pack(">i", n)


def s(text: str | None) -> bytes:
    """A (nullable) string: int16 length, UTF-8."""
    if text is None:
        return i16(-1)
    raw = text.encode()
    return i16(len(raw)) + raw


def b(data: bytes | None) -> bytes:
    """A nullable bytes field: int32 length (-1 null), then the bytes."""
    return i32(-1) if data is None else i32(len(data)) + data


def strings(items: list[str]) -> bytes:
    return i32(len(items)) + b"".join(s(x) for x in items)


def partitions(items: list[tuple[str, list[int]]]) -> bytes:
    """An array of {topic, []int32 partitions}: both messages' TopicPartition layout."""
    out = i32(len(items))
    for topic, parts in items:
        out += s(topic) + i32(len(parts)) + b"".join(i32(p) for p in parts)
    return out


OWNED = [("orders", [0, 2]), ("payments", [1])]
ASSIGNED = [("orders", [0, 1, 2]), ("payments", [])]

SUB_V0 = i16(0) + strings(["orders", "payments"]) + b(None)
SUB_V3 = i16(3) + strings(["orders"]) + b(b"\x01\x02") + partitions(OWNED) + i32(7) + s("rack-1")

#: (case, description, kind, bytes, turned around into an encode vector too)
DECODE_CASES: list[tuple[str, str, str, bytes, bool]] = [
    ("subscription_v0", "version 0: two topics, null user data", "subscription", SUB_V0, True),
    ("subscription_v0_user_data", "version 0 with three bytes of user data", "subscription",
     i16(0) + strings(["orders"]) + b(b"\x00\xfe\x7f"), True),
    ("subscription_v0_empty_user_data", "version 0 with empty (not null) user data and no topics",
     "subscription", i16(0) + strings([]) + b(b""), True),
    ("subscription_v1_owned_partitions", "version 1 adds the partitions the member owns", "subscription",
     i16(1) + strings(["orders", "payments"]) + b(None) + partitions(OWNED), True),
    ("subscription_v1_no_owned_partitions", "version 1 with an empty owned-partitions array",
     "subscription", i16(1) + strings(["orders"]) + b(b"u") + partitions([]), True),
    ("subscription_v2_generation", "version 2 adds the member's generation id", "subscription",
     i16(2) + strings(["orders"]) + b(None) + partitions(OWNED) + i32(42), True),
    ("subscription_v2_no_generation", "version 2 with generation -1 (the default: no generation yet)",
     "subscription", i16(2) + strings(["orders"]) + b(None) + partitions([]) + i32(-1), True),
    ("subscription_v3_rack", "version 3 (what clients write) with every field set", "subscription",
     SUB_V3, True),
    ("subscription_v3_null_rack", "version 3 with a null rack id", "subscription",
     i16(3) + strings(["orders"]) + b(None) + partitions([]) + i32(3) + s(None), True),
    ("subscription_v4_read_as_v3",
     "a version above 3 is read with the version-3 layout and reported as written; the bytes a "
     "later field would take are left unread", "subscription",
     i16(4) + SUB_V3[2:] + b"\x00\x00\x00\x09", False),
    ("subscription_v256_read_as_v3", "version 256 (a high byte set) is above 3 too", "subscription",
     i16(256) + SUB_V3[2:], False),
    ("subscription_trailing_bytes", "bytes after a version-0 struct are ignored", "subscription",
     SUB_V0 + b"\xde\xad\xbe\xef", False),
    ("subscription_negative_user_data_length",
     "a user-data length below -1 reads as null, as any negative length does", "subscription",
     i16(0) + strings(["orders"]) + i32(-2), False),
    ("subscription_v1_header_v0_body", "a version-1 header on a version-0 body: owned partitions missing",
     "subscription", i16(1) + SUB_V0[2:], False),
    ("subscription_v3_truncated_rack", "version 3 cut inside the rack id", "subscription",
     SUB_V3[:-3], False),
    ("subscription_v2_truncated_generation", "version 2 cut inside the generation id", "subscription",
     i16(2) + strings(["orders"]) + b(None) + partitions([]) + b"\x00\x00", False),
    ("subscription_version_only", "nothing but the version", "subscription", i16(3), False),
    ("subscription_one_byte", "one byte: not even the version", "subscription", b"\x00", False),
    ("subscription_empty", "no bytes at all", "subscription", b"", False),
    ("subscription_negative_version", "version -1 is refused", "subscription",
     i16(-1) + SUB_V0[2:], False),
    ("subscription_min_version", "version -32768 is refused", "subscription",
     i16(-32768) + SUB_V0[2:], False),
    ("subscription_null_topics", "a null topics array: the array is not nullable", "subscription",
     i16(0) + i32(-1) + b(None), False),
    ("subscription_null_topic_name", "a null topic name inside the topics array", "subscription",
     i16(0) + i32(1) + s(None) + b(None), False),
    ("assignment_v0", "version 0: partitions of two topics, null user data", "assignment",
     i16(0) + partitions(ASSIGNED) + b(None), True),
    ("assignment_v0_user_data", "version 0 with user data", "assignment",
     i16(0) + partitions([("orders", [5])]) + b(b"\xff\x00"), True),
    ("assignment_v0_empty", "version 0: nothing assigned, empty user data", "assignment",
     i16(0) + partitions([]) + b(b""), True),
    ("assignment_v1", "version 1: the same layout as version 0", "assignment",
     i16(1) + partitions(ASSIGNED) + b(None), True),
    ("assignment_v2", "version 2: the same layout as version 0", "assignment",
     i16(2) + partitions(ASSIGNED) + b(b"\x2a"), True),
    ("assignment_v3", "version 3 (what clients write): the same layout as version 0", "assignment",
     i16(3) + partitions([("payments", [7, 3])]) + b(None), True),
    ("assignment_v4_read_as_v3", "a version above 3 is read with the version-3 layout", "assignment",
     i16(4) + partitions(ASSIGNED) + b(None) + b"\x01", False),
    ("assignment_trailing_bytes", "bytes after a version-0 struct are ignored", "assignment",
     i16(0) + partitions([]) + b(None) + b"\x00\x00", False),
    ("assignment_truncated_partitions", "cut inside a topic's partition list", "assignment",
     i16(0) + i32(1) + s("orders") + i32(2) + i32(0), False),
    ("assignment_no_user_data", "the user data field missing altogether", "assignment",
     i16(3) + partitions(ASSIGNED), False),
    ("assignment_version_only", "nothing but the version", "assignment", i16(0), False),
    ("assignment_one_byte", "one byte: not even the version", "assignment", b"\x03", False),
    ("assignment_negative_version", "version -1 is refused", "assignment",
     i16(-1) + partitions([]) + b(None), False),
]

_SUB_JSON: dict[str, Any] = {"topics": ["orders", "payments"], "userData": "AQI=",
                             "ownedPartitions": [{"topic": "orders", "partitions": [0, 2]}],
                             "generationId": 9, "rackId": "rack-2"}
_ASSIGN_JSON: dict[str, Any] = {"assignedPartitions": [{"topic": "orders", "partitions": [1]}],
                                "userData": None}

#: (case, description, kind, version, value): JSON in that no decode vector turns around.
ENCODE_ONLY: list[tuple[str, str, str, int | None, dict[str, Any]]] = [
    ("subscription_no_version", "no version asked: a client writes the highest, 3", "subscription",
     None, _SUB_JSON),
    ("subscription_v5_writes_v3", "a version above 3 asked: version 3 is written, header included",
     "subscription", 5, _SUB_JSON),
    ("subscription_v0_drops_later_fields",
     "version 0 asked: owned partitions, generation and rack are ignorable and are left out",
     "subscription", 0, _SUB_JSON),
    ("subscription_v2_drops_rack", "version 2 asked: the rack id (3+, ignorable) is left out",
     "subscription", 2, _SUB_JSON),
    ("subscription_negative_version", "a negative version is refused", "subscription", -1, _SUB_JSON),
    ("assignment_no_version", "no version asked: a client writes the highest, 3", "assignment",
     None, _ASSIGN_JSON),
    ("assignment_v9_writes_v3", "a version above 3 asked: version 3 is written", "assignment", 9,
     _ASSIGN_JSON),
    ("assignment_negative_version", "a negative version is refused", "assignment", -2, _ASSIGN_JSON),
]


def _doc(handler: str, case: str, description: str, doc_input: dict[str, Any],
         expected: dict[str, Any]) -> dict[str, Any]:
    from groupspec.conformance import vector_format as vf

    return {
        "format": vf.FORMAT_VERSION, "machine": "records", "handler": handler, "case": case,
        "description": description, "source": {"kind": "hand-made", "ref": KAFKA_REF},
        "mode": "exact", "properties": [], "input": doc_input,
        "expected": expected, "expected_kafka": expected,
    }


def protocol_vector_docs() -> Iterator[dict[str, Any]]:
    """decode_consumer_protocol's vectors, then encode_consumer_protocol's (the decode vectors
    that read their bytes exactly, turned around, then the encode-only ones)."""
    from groupspec.conformance.records_protocol import decode_protocol_answer, encode_protocol_answer
    from groupspec.conformance.targets import error_kind

    turned = []
    for case, description, kind, data, round_trip in DECODE_CASES:
        doc_input: dict[str, Any] = {"kind": kind, "hex": data.hex()}
        try:
            expected: dict[str, Any] = decode_protocol_answer(doc_input)
        except Exception as exc:  # the codec's refusal is the expectation
            expected = {"error": error_kind(exc)}
        if round_trip:
            if "error" in expected:
                raise AssertionError(f"{case}: a refused vector cannot be turned around")
            turned.append((case, f"{description}: encoded back to the same bytes",
                           {"kind": kind, **expected}, {"hex": data.hex()}))
        yield _doc("decode_consumer_protocol", case, description, doc_input, expected)
    for case, description, doc_input, expected in turned:
        written = encode_protocol_answer(doc_input)
        if written != expected:  # the generator refuses to publish a vector the codec fails
            raise AssertionError(f"{case}: encodes to {written}, decoded from {expected}")
        yield _doc("encode_consumer_protocol", case, description, doc_input, expected)
    for case, description, kind, version, value in ENCODE_ONLY:
        doc_input = {"kind": kind, "version": version, "value": value}
        try:
            expected = encode_protocol_answer(doc_input)
        except Exception as exc:
            expected = {"error": error_kind(exc)}
        yield _doc("encode_consumer_protocol", case, description, doc_input, expected)

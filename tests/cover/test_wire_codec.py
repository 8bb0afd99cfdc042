"""groupspec.wire's codec: every request and response at every version, frames and headers, and
what bad bytes from a peer turn into.

Round trips draw objects from the classes' own schemas (tests/record_strategies.py); the byte
layout itself is checked against other codecs in test_wire_kafka_python.py (and the schemas
against Kafka's files in test_wire_schemas.py).
"""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.codec.messages import _twin, decode_all, encode
from groupspec.types.records.schema import message_spec, struct_classes
from groupspec.wire import BadResponseError, RequestEncodeError, UnknownApiError, WireError
from groupspec.wire.frames import decode_request, decode_response, encode_request, encode_response
from groupspec.wire.headers import RequestHeader, encode_request_header, read_request_header
from groupspec.wire.messages import (
    ALL_WIRE_CLASSES,
    APIS,
    ApiVersionsResponse,
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    OffsetCommitRequest,
    ShareFetchResponse,
    api_of,
)
from tests.record_strategies import every_version, message_values, normalized

WIRE_APIS = {
    "ApiVersions": 18, "FindCoordinator": 10, "JoinGroup": 11, "SyncGroup": 14, "Heartbeat": 12,
    "LeaveGroup": 13, "OffsetCommit": 8, "OffsetFetch": 9, "DescribeGroups": 15, "ListGroups": 16,
    "ConsumerGroupHeartbeat": 68, "ShareGroupHeartbeat": 76, "ShareGroupDescribe": 77, "ShareFetch": 78,
    "ShareAcknowledge": 79, "Metadata": 3, "CreateTopics": 19, "Produce": 0,
    # what the conformance target needs beyond issue 19's list: transactional offset commits,
    # offset and group deletion, group configuration
    "InitProducerId": 22, "AddOffsetsToTxn": 25, "EndTxn": 26, "TxnOffsetCommit": 28,
    "DescribeConfigs": 32, "DeleteGroups": 42, "IncrementalAlterConfigs": 44, "OffsetDelete": 47,
    # what the real-log tests ask a live broker (groupspec.broker_workload.broker_view)
    "ConsumerGroupDescribe": 69, "DescribeShareGroupOffsets": 90,
}


def test_the_apis_of_issue_19_are_all_there_with_their_kafka_keys() -> None:
    assert {a.name: a.key for a in APIS.values()} == WIRE_APIS
    assert len(ALL_WIRE_CLASSES) == 2 * len(WIRE_APIS)
    for a in APIS.values():
        assert message_spec(a.request).kind == "request" and message_spec(a.response).kind == "response"
        assert api_of(a.request) is api_of(a.response) is a


def test_versions_are_those_a_42_broker_accepts() -> None:
    """Kafka 4.0 removed OffsetCommit 0-1, OffsetFetch 0 and CreateTopics 0-1; 4.1 the share APIs' v0."""
    ranges = {a.name: str(a.versions) for a in APIS.values()}
    assert ranges["OffsetCommit"] == "2-10" and ranges["OffsetFetch"] == "1-10"
    assert ranges["CreateTopics"] == "2-7"
    assert ranges["ShareGroupHeartbeat"] == ranges["ShareGroupDescribe"] == "1"
    assert ranges["ShareFetch"] == ranges["ShareAcknowledge"] == "1-2"
    assert ranges["JoinGroup"] == "0-9" and ranges["ConsumerGroupHeartbeat"] == "0-1"


def test_every_message_and_struct_class_decodes_through_a_twin() -> None:
    """The decoders' fast path (and the codec mutants judged equivalent on its account) needs
    every class to derive from object alone: a struct shared by subclassing would lose it."""
    classes = {c for m in ALL_WIRE_CLASSES for c in (m, *struct_classes(m))}
    assert len(classes) > len(ALL_WIRE_CLASSES)
    assert sorted(c.__qualname__ for c in classes if _twin(c) is None) == []


@pytest.mark.parametrize(("cls", "version"), every_version(ALL_WIRE_CLASSES),
                         ids=lambda p: getattr(p, "__name__", str(p)))
def test_default_object_round_trips_at_every_version(cls: type, version: int) -> None:
    obj = cls()
    assert decode_all(cls, encode(obj, version), version) == normalized(obj, version)


@pytest.mark.parametrize("cls", ALL_WIRE_CLASSES, ids=lambda c: c.__name__)
def test_round_trip_any_object_any_version(cls: type) -> None:
    versions = message_spec(cls).versions

    cases = st.integers(versions.lo, versions.hi).flatmap(
        lambda v: st.tuples(st.just(v), message_values(cls, v)))

    @given(cases)
    def check(case: tuple[int, Any]) -> None:
        version, obj = case
        data = encode(obj, version)
        assert decode_all(cls, data, version) == normalized(obj, version)

    check()


@given(st.sampled_from(sorted(APIS)).flatmap(
    lambda key: st.tuples(st.just(key), st.integers(APIS[key].versions.lo, APIS[key].versions.hi))
).flatmap(lambda kv: st.tuples(st.just(kv[1]), message_values(APIS[kv[0]].request, kv[1]),
                               message_values(APIS[kv[0]].response, kv[1]))),
       st.integers(0, 2**31 - 1), st.none() | st.text(max_size=8))
def test_frames_round_trip_with_their_headers(case: tuple[int, Any, Any], correlation_id: int,
                                               client_id: str | None) -> None:
    version, request, response = case
    frame = encode_request(request, version, correlation_id, client_id)
    assert struct.unpack(">i", frame[:4])[0] == len(frame) - 4
    header, got = decode_request(frame[4:])
    assert header == RequestHeader(api_of(type(request)).key, version, correlation_id, client_id)
    assert got == normalized(request, version)
    answer = encode_response(response, version, correlation_id)
    assert struct.unpack(">i", answer[:4])[0] == len(answer) - 4
    assert decode_response(api_of(type(response)).key, version, answer[4:]) == (
        correlation_id, normalized(response, version))


def test_header_versions_follow_flexibility_and_api_versions_always_answers_with_v0() -> None:
    request = encode_request(HeartbeatRequest(group_id="g"), 3, 9, "c")  # v3: not flexible
    assert request[4:16] == struct.pack(">hhih", 12, 3, 9, 1) + b"c"[:0] + request[14:16]
    assert request[14:15] == b"c" and request[15:17] != b"\x00"  # header v1: no tagged section
    flexible = encode_request(HeartbeatRequest(group_id="g"), 4, 9, "c")
    # header v2 keeps the int16 client id length, then an empty tagged section
    assert flexible[4:16] == struct.pack(">hhih", 12, 4, 9, 1) + b"c" + b"\x00"
    answer = encode_response(HeartbeatResponse(), 4, 9)
    assert answer[4:9] == struct.pack(">i", 9) + b"\x00"  # response header v1
    assert encode_response(HeartbeatResponse(), 3, 9)[4:8] == struct.pack(">i", 9)
    api_versions = encode_response(ApiVersionsResponse(), 3, 9)  # flexible body, header v0
    assert api_versions[8:10] == b"\x00\x00"  # error code right after the correlation id
    assert decode_response(18, 3, api_versions[4:]) == (9, ApiVersionsResponse())


def test_unknown_tagged_fields_in_headers_are_skipped() -> None:
    head = encode_request_header(RequestHeader(12, 4, 1, "x"), 2)
    with_tags = head[:-1] + b"\x02" + b"\x05\x01\xaa" + b"\x07\x00"
    body = encode(HeartbeatRequest(group_id="g"), 4)
    header, got = decode_request(with_tags + body)
    assert header == RequestHeader(12, 4, 1, "x") and got == HeartbeatRequest(group_id="g")
    response = struct.pack(">i", 3) + b"\x01\x09\x02\xbb\xcc" + encode(HeartbeatResponse(error_code=25), 4)
    assert decode_response(12, 4, response) == (3, HeartbeatResponse(error_code=25))


def test_api_versions_answer_at_v0_for_an_unknown_version_is_read() -> None:
    """A broker that does not know the version asked for answers in the v0 layout (Kafka's
    ApiVersionsResponse.parse falls back the same way)."""
    old = ApiVersionsResponse(error_code=35, api_keys=(ApiVersionsResponse.ApiVersion(18, 0, 2),))
    frame = encode_response(old, 0, 4)
    assert decode_response(18, 4, frame[4:]) == (4, old)


# --- bad bytes -----------------------------------------------------------------------------------


def _response_frame() -> bytes:
    member = JoinGroupResponse.JoinGroupResponseMember("m-1", "i-1", b"\x00\x03abc")
    resp = JoinGroupResponse(error_code=0, generation_id=3, protocol_type="consumer", protocol_name="range",
                             leader="m-1", member_id="m-1", members=(member,))
    return encode_response(resp, 7, 77)[4:]


@pytest.mark.parametrize("cut", range(len(_response_frame())))
def test_every_truncation_is_a_typed_error_naming_api_version_and_offset(cut: int) -> None:
    payload = _response_frame()[:cut]
    with pytest.raises(BadResponseError) as err:
        decode_response(11, 7, payload)
    assert err.value.api == "JoinGroup" and err.value.version == 7
    assert err.value.offset is not None and 0 <= err.value.offset <= cut
    assert "JoinGroup v7" in str(err.value) and f"(byte {err.value.offset})" in str(err.value)


def test_offset_points_at_the_bad_field() -> None:
    payload = bytearray(_response_frame())
    # header v1 (4 + 1), throttle (4), error code (2), generation (4): protocol_type's compact length
    payload[15] = 0x7F  # a string length (126) that runs past the end
    with pytest.raises(BadResponseError, match="ends inside protocol_type") as err:
        decode_response(11, 7, bytes(payload))
    assert err.value.offset == 16, err.value  # where its contents would start
    payload = bytearray(_response_frame())
    at = payload.index(b"m-1")  # the leader's contents
    payload[at] = 0xFF
    with pytest.raises(BadResponseError, match="invalid UTF-8 in leader") as err:
        decode_response(11, 7, bytes(payload))
    assert err.value.offset == at


def test_trailing_bytes_are_refused_with_their_offset() -> None:
    payload = _response_frame()
    with pytest.raises(BadResponseError, match="2 bytes after the end") as err:
        decode_response(11, 7, payload + b"\x00\x00")
    assert err.value.offset == len(payload)


@given(st.binary(max_size=64), st.sampled_from(sorted(APIS)), st.data())
def test_garbage_is_a_typed_error_or_a_response(garbage: bytes, key: int, data: st.DataObject) -> None:
    version = data.draw(st.integers(APIS[key].versions.lo, APIS[key].versions.hi))
    try:
        _, body = decode_response(key, version, garbage)
    except BadResponseError as exc:
        assert exc.api == APIS[key].name and exc.offset is not None
        assert 0 <= exc.offset <= len(garbage)
    else:
        assert isinstance(body, APIS[key].response)


def test_shared_decode_request_refuses_garbage_with_a_typed_error() -> None:
    with pytest.raises(WireError):
        decode_request(b"\x00\x0c\x00")
    with pytest.raises(UnknownApiError, match="API key 999"):
        decode_request(struct.pack(">hhih", 999, 0, 1, -1))
    with pytest.raises(UnknownApiError, match="version 5 is not one of 0-4"):
        decode_request(struct.pack(">hhih", 12, 5, 1, -1))


def test_request_header_reader_refuses_a_bad_client_id_length() -> None:
    with pytest.raises(WireError):
        decode_request(struct.pack(">hhih", 12, 0, 1, -7))
    with pytest.raises(Exception, match="client id length -7"):
        read_request_header(struct.pack(">hhih", 12, 0, 1, -7), 0, lambda k, v: 1)


# --- caller mistakes -----------------------------------------------------------------------------


def test_a_request_that_cannot_be_written_names_the_field() -> None:
    with pytest.raises(RequestEncodeError, match=r"JoinGroup v4: .*group_instance_id") as err:
        encode_request(JoinGroupRequest(group_instance_id="static-1"), 4, 1)
    assert err.value.api == "JoinGroup" and err.value.version == 4
    with pytest.raises(RequestEncodeError, match="session_timeout_ms"):
        encode_request(JoinGroupRequest(session_timeout_ms=2**31), 9, 1)


def test_version_outside_the_range_and_wrong_direction_are_refused() -> None:
    with pytest.raises(UnknownApiError, match="version 1 is not one of 2-10"):
        encode_request(OffsetCommitRequest(), 1, 1)
    with pytest.raises(UnknownApiError, match="is a response"):
        encode_request(HeartbeatResponse(), 0, 1)
    with pytest.raises(TypeError, match="not a request or response"):
        encode_request(object(), 0, 1)


def test_share_fetch_records_are_null_only_at_v0() -> None:
    """Kafka 4.2's schema keeps nullableVersions "0" for Records, a version 4.1 removed: from v1 on
    a null record set cannot be written (and is refused when read)."""
    partition = ShareFetchResponse.ShareFetchableTopicResponse.PartitionData(records=None)
    topic = ShareFetchResponse.ShareFetchableTopicResponse(partitions=(partition,))
    with pytest.raises(WireError, match="records"):
        encode_response(ShareFetchResponse(responses=(topic,)), 1, 1)

"""groupspec.wire.Connection against fake peers: local sockets that answer well, badly or not at
all. Every bad peer must end in a typed WireError within the timeout, never a hang."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.wire import (
    BadResponseError,
    BrokerError,
    ClosedError,
    ConnectError,
    Connection,
    NoCommonVersionError,
    WireError,
    WireTimeoutError,
)
from groupspec.wire.frames import encode_response
from groupspec.wire.headers import RequestHeader
from groupspec.wire.messages import (
    ApiVersionsResponse,
    HeartbeatRequest,
    HeartbeatResponse,
    OffsetCommitRequest,
)
from tests.wire_peers import BROKER, FakePeer, Handler, broker, fake_peers, read_request, versions_answer

TIMEOUT = 0.5


@pytest.fixture
def peer() -> Iterator[Callable[[Handler], FakePeer]]:
    yield from fake_peers()


def test_negotiates_the_highest_common_version_and_matches_correlation_ids(peer: Any) -> None:
    seen: list[RequestHeader] = []
    ranges = dict(BROKER) | {12: (0, 3)}  # Heartbeat only up to v3 (not flexible)
    p = peer(broker(seen, ranges, lambda h, b: HeartbeatResponse(error_code=27)))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT, client_id="t") as conn:
        assert conn.version(12) == 3 and conn.version(11) == 9 and conn.version(76) == 1
        assert conn.request(HeartbeatRequest(group_id="g")) == HeartbeatResponse(error_code=27)
        assert conn.request(HeartbeatRequest(group_id="g"), 0) == HeartbeatResponse(error_code=27)
    assert [(h.api_key, h.api_version, h.correlation_id, h.client_id) for h in seen] == [
        (18, 4, 1, "t"), (12, 3, 2, "t"), (12, 0, 3, "t")]


def test_an_older_peer_answers_api_versions_at_v0_and_the_client_asks_again(peer: Any) -> None:
    seen: list[RequestHeader] = []
    p = peer(broker(seen, dict(BROKER) | {18: (0, 2)}))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        assert conn.peer_versions[18].hi == 2
    assert [(h.api_key, h.api_version) for h in seen] == [(18, 4), (18, 2)]


def mock_like(seen: list[RequestHeader], fallback: bytes) -> Handler:
    """A peer that speaks ApiVersions v0-2 and answers a higher version with ``fallback`` (the
    body after the correlation id), as librdkafka's mock cluster does."""

    def handle(sock: socket.socket) -> None:
        while True:
            try:
                header, _ = read_request(sock)
            except EOFError:
                return
            seen.append(header)
            if header.api_version > 2:
                body = struct.pack(">i", header.correlation_id) + fallback
                sock.sendall(struct.pack(">i", len(body)) + body)
            else:
                answer = versions_answer(dict(BROKER) | {18: (0, 2)})
                sock.sendall(encode_response(answer, header.api_version, header.correlation_id))

    return handle


#: librdkafka 2.16.0's mock cluster, asked ApiVersions v4: UNSUPPORTED_VERSION, then bytes that
#: are not the v0 layout (a one-byte count where v0 has a 4-byte array length).
MOCK_FALLBACK = bytes.fromhex("0023" "01" "0012" "0000" "0002" "00000000")


@pytest.mark.parametrize(("fallback", "why"), [
    (MOCK_FALLBACK, "its UNSUPPORTED_VERSION answer to v4 could not be read (api_keys claims more "
                    "elements than bytes remain); asked again at v0"),
    (bytes.fromhex("0023" "00000000"), "its UNSUPPORTED_VERSION answer to v4 named no range; "
                                       "asked again at v0"),
])
def test_a_fallback_without_a_readable_range_is_followed_by_v0(peer: Any, fallback: bytes, why: str) -> None:
    seen: list[RequestHeader] = []
    p = peer(mock_like(seen, fallback))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        assert conn.peer_versions[18].hi == 2 and conn.version(11) == 9
        assert conn.fallback == why
    assert [(h.api_key, h.api_version, h.correlation_id) for h in seen] == [(18, 4, 1), (18, 0, 2)]


def test_an_unreadable_answer_that_is_not_the_fallback_still_breaks_the_connection(peer: Any) -> None:
    p = peer(mock_like([], bytes.fromhex("0000" "01" "0012")))
    with pytest.raises(BadResponseError, match="ApiVersions v0: the data ends inside"):
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT)


def test_no_common_version_is_a_typed_error(peer: Any) -> None:
    ranges = {18: (0, 4), 8: (0, 1)}  # OffsetCommit 0-1 only: Kafka 4 removed both; no Heartbeat
    p = peer(broker([], ranges))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        with pytest.raises(NoCommonVersionError, match="OffsetCommit: the peer offers 0-1, groupspec speaks"):
            conn.request(OffsetCommitRequest())
        with pytest.raises(NoCommonVersionError, match="Heartbeat: the peer does not offer it"):
            conn.version(12)


def test_without_negotiation_a_version_must_be_given(peer: Any) -> None:
    p = peer(broker([]))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT, negotiate=False) as conn:
        with pytest.raises(NoCommonVersionError, match="not negotiated"):
            conn.request(HeartbeatRequest())
        assert conn.request(HeartbeatRequest(), 4) == HeartbeatResponse()


def test_api_versions_error_is_a_broker_error(peer: Any) -> None:
    def handle(sock: socket.socket) -> None:
        header, _ = read_request(sock)
        sock.sendall(encode_response(ApiVersionsResponse(error_code=-1), 4, header.correlation_id))

    p = peer(handle)
    with pytest.raises(BrokerError, match="ApiVersions v4: answered error code -1") as err:
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT)
    assert err.value.error_code == -1


# --- bad peers ----------------------------------------------------------------------------------


def test_a_peer_that_never_answers_times_out(peer: Any) -> None:
    p = peer(lambda sock: read_request(sock))
    start = time.monotonic()
    with pytest.raises(WireTimeoutError, match=r"ApiVersions v4: no complete response within 0.5s \(0 of 4"):
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT)
    assert time.monotonic() - start < TIMEOUT + 2


def test_a_peer_that_drips_bytes_times_out_on_the_whole_response(peer: Any) -> None:
    def drip(sock: socket.socket) -> None:
        header, _ = read_request(sock)
        frame = encode_response(versions_answer(BROKER), 4, header.correlation_id)
        for byte in frame:  # the whole answer would take about 40 s
            sock.sendall(bytes([byte]))
            time.sleep(0.05)

    p = peer(drip)
    start = time.monotonic()
    with pytest.raises(WireTimeoutError, match="no complete response"):
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT)
    assert time.monotonic() - start < TIMEOUT + 2


def test_the_injected_clock_decides_the_deadline(peer: Any) -> None:
    """A clock that has already run past the deadline: the first read gives up without waiting."""
    p = peer(lambda sock: read_request(sock))
    ticks = iter([0.0, 100.0, 200.0, 300.0])
    start = time.monotonic()
    with pytest.raises(WireTimeoutError):
        Connection.connect("127.0.0.1", p.port, timeout=30.0, clock=lambda: next(ticks))
    assert time.monotonic() - start < 5


def test_a_peer_that_closes_mid_response_is_a_closed_error_with_the_offset(peer: Any) -> None:
    def half(sock: socket.socket) -> None:
        header, _ = read_request(sock)
        frame = encode_response(versions_answer(BROKER), 4, header.correlation_id)
        sock.sendall(frame[:20])
        sock.shutdown(socket.SHUT_WR)

    p = peer(half)
    with pytest.raises(ClosedError, match="closed the connection") as err:
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT)
    assert (err.value.api, err.value.version, err.value.offset) == ("ApiVersions", 4, 16)


def test_garbage_in_a_well_sized_frame_names_api_version_and_offset(peer: Any) -> None:
    def garbage(sock: socket.socket) -> None:
        header, _ = read_request(sock)
        body = struct.pack(">ihi", header.correlation_id, 0, 5)  # v0 header, error 0, 5 api keys...
        sock.sendall(struct.pack(">i", len(body)) + body)  # ... that never come

    p = peer(garbage)
    with pytest.raises(BadResponseError) as err:
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT)
    assert err.value.api == "ApiVersions" and err.value.offset is not None and err.value.offset <= 10


@pytest.mark.parametrize("size", [-1, 0, 3, 1 << 30])
def test_an_impossible_size_prefix_is_refused_before_reading(peer: Any, size: int) -> None:
    p = peer(lambda sock: (read_request(sock), sock.sendall(struct.pack(">i", size))))
    with pytest.raises(BadResponseError, match=f"response size {size} outside"):
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT, max_response_bytes=1 << 20)


def test_a_wrong_correlation_id_is_refused_and_breaks_the_connection(peer: Any) -> None:
    def wrong(sock: socket.socket) -> None:
        header, _ = read_request(sock)
        sock.sendall(encode_response(HeartbeatResponse(), 4, header.correlation_id + 1))

    p = peer(wrong)
    conn = Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT, negotiate=False)
    with conn:
        with pytest.raises(BadResponseError, match="correlation id 2, expected 1"):
            conn.request(HeartbeatRequest(), 4)
        with pytest.raises(ClosedError, match="unusable after an earlier error"):
            conn.request(HeartbeatRequest(), 4)


def test_connecting_to_a_closed_port_is_a_connect_error() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    server.close()
    with pytest.raises(ConnectError, match=f"cannot connect to 127.0.0.1:{port}"):
        Connection.connect("127.0.0.1", port, timeout=TIMEOUT)


def test_timeout_must_be_positive() -> None:
    with socket.socket() as sock, pytest.raises(ValueError, match="timeout must be positive"):
        Connection(sock, timeout=0)


def test_a_port_that_speaks_another_protocol_is_a_bad_response(peer: Any) -> None:
    """An HTTP server's answer: its first four bytes read as a size of about 1.2 GB."""
    def http(sock: socket.socket) -> None:
        sock.recv(1024)
        sock.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    p = peer(http)
    with pytest.raises(BadResponseError, match=r"ApiVersions v4: response size 1213486160 outside"):
        Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT)


@given(st.binary(max_size=80))
def test_any_bytes_then_a_close_end_in_a_wire_error_or_an_answer(answer: bytes) -> None:
    def reply(sock: socket.socket) -> None:
        read_request(sock)
        sock.sendall(answer)
        sock.shutdown(socket.SHUT_WR)

    p = FakePeer(reply)
    try:
        with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT, negotiate=False) as conn:
            try:
                conn.request(HeartbeatRequest(group_id="g"), 4)
            except WireError as exc:
                assert exc.api == "Heartbeat" and exc.version == 4
                assert not isinstance(exc, WireTimeoutError)  # the close ends the wait
    finally:
        p.stop()


def test_send_and_receive_apart_keep_one_request_in_flight(peer: Any) -> None:
    p = peer(broker([], dict(BROKER), lambda h, b: HeartbeatResponse(error_code=27)))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        pending = conn.send(HeartbeatRequest(group_id="g"))
        assert conn.in_flight is pending
        with pytest.raises(ClosedError, match="already in flight"):
            conn.send(HeartbeatRequest(group_id="g"))
        assert conn.receive(pending) == HeartbeatResponse(error_code=27)
        assert conn.in_flight is None
        with pytest.raises(ClosedError, match="no such request"):
            conn.receive(pending)

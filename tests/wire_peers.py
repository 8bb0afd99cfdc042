"""Fake Kafka peers for groupspec.wire's tests: local sockets that answer well, badly or not at all."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator
from typing import Any

from groupspec.wire.frames import decode_request, encode_response
from groupspec.wire.headers import RequestHeader
from groupspec.wire.messages import APIS, ApiVersionsResponse

Handler = Callable[[socket.socket], None]


def read_request(sock: socket.socket) -> tuple[RequestHeader, Any]:
    head = _exactly(sock, 4)
    (size,) = struct.unpack(">i", head)
    return decode_request(_exactly(sock, size))


def _exactly(sock: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise EOFError
        out += chunk
    return out


def versions_answer(ranges: dict[int, tuple[int, int]], error: int = 0) -> ApiVersionsResponse:
    keys = tuple(ApiVersionsResponse.ApiVersion(k, lo, hi) for k, (lo, hi) in sorted(ranges.items()))
    return ApiVersionsResponse(error_code=error, api_keys=keys)


#: What a Kafka 4.2 broker offers for the APIs here (its own ranges are groupspec's).
BROKER = {a.key: (a.versions.lo, a.versions.hi) for a in APIS.values()}


class FakePeer:
    """A one-connection server on localhost running ``handler`` on the accepted socket."""

    def __init__(self, handler: Handler) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.seen: list[RequestHeader] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(handler,), daemon=True)
        self.thread.start()

    def _run(self, handler: Handler) -> None:
        try:
            sock, _ = self.server.accept()
            with sock:
                handler(sock)
                self.done.wait(5)  # keep the socket open until the test is over
        except (OSError, EOFError):
            pass

    def stop(self) -> None:
        self.done.set()
        self.server.close()
        self.thread.join(5)


def fake_peers() -> Iterator[Callable[[Handler], FakePeer]]:
    """The body of a ``peer`` fixture: a factory of fake peers, all stopped afterwards."""
    made: list[FakePeer] = []

    def start(handler: Handler) -> FakePeer:
        made.append(FakePeer(handler))
        return made[-1]

    yield start
    for p in made:
        p.stop()


def broker(seen: list[RequestHeader], ranges: dict[int, tuple[int, int]] = BROKER,
           answer: Callable[[RequestHeader, Any], Any] | None = None) -> Handler:
    """A well-behaved peer: ApiVersions from ``ranges`` (v0 error layout above its own range),
    anything else answered by ``answer`` (default: an empty response)."""

    def handle(sock: socket.socket) -> None:
        while True:
            try:
                header, body = read_request(sock)
            except EOFError:
                return
            seen.append(header)
            if header.api_key == 18:
                if header.api_version > ranges[18][1]:
                    sock.sendall(encode_response(versions_answer(ranges, 35), 0, header.correlation_id))
                    continue
                reply: Any = versions_answer(ranges)
            else:
                reply = answer(header, body) if answer else APIS[header.api_key].response()
            sock.sendall(encode_response(reply, header.api_version, header.correlation_id))

    return handle

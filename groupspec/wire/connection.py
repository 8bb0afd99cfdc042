"""One TCP connection to a Kafka-protocol peer, one request in flight at a time.

Why one at a time: the conformance target replays a vector step by step and needs each answer
before the next step; pipelining would only make a broken stream harder to explain. Every read
has a deadline (the connection's ``timeout`` for the whole response, however slowly the peer
drips bytes), so a silent or slow peer ends in :class:`WireTimeoutError`, never a hang. After any
error the stream position is unknown and the connection refuses further requests.

Version negotiation (:meth:`Connection.negotiate`) follows Kafka's client: ApiVersions at the
highest version groupspec speaks; a peer that does not know it answers UNSUPPORTED_VERSION in the
v0 layout with its own range, and the request is sent again at the highest common version. Each
API then uses the highest version both sides support (:meth:`Connection.version`).
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from groupspec.types.records.schema import Versions
from groupspec.wire.errors import (
    BadResponseError,
    BrokerError,
    ClosedError,
    ConnectError,
    NoCommonVersionError,
    WireError,
    WireTimeoutError,
)
from groupspec.wire.frames import api, decode_response, encode_request
from groupspec.wire.messages import APIS, ApiVersionsRequest, ApiVersionsResponse, api_of

#: A response larger than this is refused before it is read (a garbage size prefix would
#: otherwise make the client wait for, or allocate, gigabytes). Kafka's brokers refuse requests
#: above 100 MiB by default (socket.request.max.bytes); group API answers are far smaller.
MAX_RESPONSE_BYTES = 100 * 1024 * 1024
UNSUPPORTED_VERSION = 35
API_VERSIONS = 18

_SIZE = struct.Struct(">i")


@dataclass(frozen=True)
class Pending:
    """A request sent on a connection and not yet answered."""

    api_key: int
    api: str
    version: int
    correlation_id: int


def _software_version() -> str:
    try:
        from importlib.metadata import version

        return version("groupspec")
    except Exception:  # not installed as a distribution: any valid name will do
        return "unknown"


class Connection:
    """A connected socket, the peer's API versions once negotiated, and the next correlation id."""

    def __init__(
        self,
        sock: socket.socket,
        *,
        timeout: float = 10.0,
        client_id: str | None = "groupspec",
        clock: Callable[[], float] = time.monotonic,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self._sock = sock
        self.timeout = timeout
        self.client_id = client_id
        self._clock = clock
        self._max = max_response_bytes
        self._next_id = 1
        self._broken: WireError | None = None
        self._pending: Pending | None = None
        #: The peer's version range of every API it offers (after :meth:`negotiate`).
        self.peer_versions: dict[int, Versions] = {}
        #: How :meth:`negotiate` departed from the v0-layout fallback of Kafka's brokers ("": it did not).
        self.fallback = ""

    @classmethod
    def connect(
        cls,
        host: str,
        port: int,
        *,
        timeout: float = 10.0,
        client_id: str | None = "groupspec",
        clock: Callable[[], float] = time.monotonic,
        negotiate: bool = True,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> Connection:
        """Connect within ``timeout`` seconds and, unless told not to, negotiate versions."""
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise ConnectError(f"cannot connect to {host}:{port}: {exc}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = cls(sock, timeout=timeout, client_id=client_id, clock=clock,
                   max_response_bytes=max_response_bytes)
        if negotiate:
            try:
                conn.negotiate()
            except BaseException:
                conn.close()
                raise
        return conn

    # -- versions ----------------------------------------------------------------------------------

    def negotiate(self) -> ApiVersionsResponse:
        """Ask the peer for its API versions (ApiVersions) and keep them in :attr:`peer_versions`.

        An UNSUPPORTED_VERSION answer names the peer's ApiVersions range and the request is sent
        again at the highest common version. One that names no range, or cannot be read at all
        (librdkafka's mock cluster writes its fallback in a layout of its own, docs/compatibility.md),
        is followed by v0, which every peer answers: Kafka's Java client does the same
        (``NetworkClient.handleApiVersionsResponse`` retries at the fallback's range, else v0).
        :attr:`fallback` then says what happened.
        """
        ours = APIS[API_VERSIONS].versions
        request = ApiVersionsRequest(client_software_name="groupspec",
                                     client_software_version=_software_version())
        version = ours.hi
        response = self._first_versions(request, version)
        if response is None or response.error_code == UNSUPPORTED_VERSION:
            theirs = None if response is None else {k.api_key: k for k in response.api_keys}.get(API_VERSIONS)
            if theirs is None:
                version = 0
                self.fallback = (self.fallback
                                 or f"its UNSUPPORTED_VERSION answer to v{ours.hi} named no range")
                self.fallback += "; asked again at v0"
            elif min(theirs.max_version, ours.hi) < max(theirs.min_version, ours.lo):
                raise NoCommonVersionError("no ApiVersions version in common", "ApiVersions", version)
            else:
                version = min(theirs.max_version, ours.hi)
            response = self.request(request, version)
        if response.error_code != 0:
            raise BrokerError(f"answered error code {response.error_code}", response.error_code,
                              "ApiVersions", version)
        self.peer_versions = {k.api_key: Versions(k.min_version, k.max_version) for k in response.api_keys}
        return response

    def _first_versions(self, request: ApiVersionsRequest, version: int) -> ApiVersionsResponse | None:
        """The first ApiVersions exchange: its answer, or None for an UNSUPPORTED_VERSION answer
        that does not decode (the frame was read whole, so the connection stays usable)."""
        name = APIS[API_VERSIONS].name
        correlation_id = self._next_id
        self._next_id = (self._next_id + 1) & 0x7FFFFFFF
        frame = encode_request(request, version, correlation_id, self.client_id)
        try:
            deadline = self._clock() + self.timeout
            self._send(frame, deadline, name, version)
            payload = self._receive(deadline, name, version)
            # Every ApiVersions response starts with the correlation id and the error code.
            if payload[:6] == struct.pack(">ih", correlation_id, UNSUPPORTED_VERSION):
                try:
                    response: ApiVersionsResponse = decode_response(API_VERSIONS, version, payload)[1]
                except BadResponseError as exc:
                    self.fallback = (f"its UNSUPPORTED_VERSION answer to v{version} could not be read "
                                     f"({exc.reason})")
                    return None
                return response
            got, response = decode_response(API_VERSIONS, version, payload)
            if got != correlation_id:
                raise BadResponseError(f"correlation id {got}, expected {correlation_id}", name, version, 0)
        except WireError as exc:
            self._broken = exc
            raise
        return response

    def version(self, api_key: int) -> int:
        """The highest version of an API both sides speak (negotiate first)."""
        a = api(api_key)
        theirs = self.peer_versions.get(api_key)
        if theirs is None:
            why = "versions not negotiated yet" if not self.peer_versions else "the peer does not offer it"
            raise NoCommonVersionError(why, a.name)
        hi, lo = min(theirs.hi, a.versions.hi), max(theirs.lo, a.versions.lo)
        if hi < lo:
            raise NoCommonVersionError(f"the peer offers {theirs}, groupspec speaks {a.versions}", a.name)
        return hi

    # -- requests ----------------------------------------------------------------------------------

    def request(self, request: Any, version: int | None = None) -> Any:
        """Send one request (at ``version``, else the negotiated one) and return its response."""
        return self.receive(self.send(request, version))

    def send(self, request: Any, version: int | None = None) -> Pending:
        """Send one request without waiting for its answer; :meth:`receive` collects it.

        Why apart: a classic JoinGroup parks at the broker until its rebalance completes, so a
        caller driving several members sends, goes on with other connections, and collects the
        answer once :meth:`fileno` turns readable. One request stays in flight at a time.
        """
        a = api_of(type(request))
        if version is None:
            version = self.version(a.key)
        if self._broken is not None:
            raise ClosedError(f"the connection is unusable after an earlier error ({self._broken})",
                              a.name, version)
        if self._pending is not None:
            raise ClosedError("a request is already in flight on this connection", a.name, version)
        correlation_id = self._next_id
        self._next_id = (self._next_id + 1) & 0x7FFFFFFF
        frame = encode_request(request, version, correlation_id, self.client_id)
        try:
            self._send(frame, self._clock() + self.timeout, a.name, version)
        except WireError as exc:
            self._broken = exc
            raise
        self._pending = Pending(a.key, a.name, version, correlation_id)
        return self._pending

    def receive(self, pending: Pending) -> Any:
        """The response to ``pending``, read within the connection's timeout from now."""
        if pending is not self._pending:
            raise ClosedError("no such request in flight on this connection", pending.api, pending.version)
        try:
            payload = self._receive(self._clock() + self.timeout, pending.api, pending.version)
            got, response = decode_response(pending.api_key, pending.version, payload)
            if got != pending.correlation_id:
                raise BadResponseError(f"correlation id {got}, expected {pending.correlation_id}",
                                       pending.api, pending.version, 0)
        except WireError as exc:
            self._broken = exc
            raise
        finally:
            self._pending = None
        return response

    @property
    def in_flight(self) -> Pending | None:
        """The request sent and not yet received, if any."""
        return self._pending

    def fileno(self) -> int:
        return self._sock.fileno()

    def _remaining(self, deadline: float, name: str, version: int, what: str) -> float:
        left = deadline - self._clock()
        if left <= 0:
            raise WireTimeoutError(f"no complete response within {self.timeout}s ({what})", name, version)
        return left

    def _send(self, frame: bytes, deadline: float, name: str, version: int) -> None:
        try:
            self._sock.settimeout(self._remaining(deadline, name, version, "sending"))
            self._sock.sendall(frame)
        except TimeoutError:
            raise WireTimeoutError(f"could not send within {self.timeout}s", name, version) from None
        except OSError as exc:
            raise ClosedError(f"sending failed: {exc}", name, version) from None

    def _receive(self, deadline: float, name: str, version: int) -> bytes:
        (size,) = _SIZE.unpack(self._read(4, deadline, name, version, -4))
        if size < 4 or size > self._max:
            raise BadResponseError(f"response size {size} outside [4, {self._max}]", name, version)
        return self._read(size, deadline, name, version, 0)

    def _read(self, n: int, deadline: float, name: str, version: int, start: int) -> bytes:
        """Exactly ``n`` bytes; ``start`` is the frame offset of the first (negative: the size)."""
        parts: list[bytes] = []
        got = 0
        while got < n:
            what = f"{got} of {n} bytes" + (" of the size prefix" if start < 0 else "")
            try:
                self._sock.settimeout(self._remaining(deadline, name, version, what))
                chunk = self._sock.recv(min(n - got, 1 << 16))
            except TimeoutError:
                raise WireTimeoutError(f"no complete response within {self.timeout}s ({what})",
                                       name, version) from None
            except OSError as exc:
                raise ClosedError(f"receiving failed: {exc}", name, version, max(start + got, 0)) from None
            if not chunk:
                raise ClosedError(f"the peer closed the connection after {what}", name, version,
                                  max(start + got, 0))
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    # -- lifetime ----------------------------------------------------------------------------------

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

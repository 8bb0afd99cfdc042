"""groupspec's own Kafka protocol client for the group APIs (docs/wire.md).

``Connection.connect(host, port)`` opens a socket and negotiates versions; ``request(obj)``
sends one request body (a class from :mod:`groupspec.wire.messages`) and returns the response
body. :mod:`groupspec.wire.frames` encodes and decodes whole frames without a socket.
"""

from __future__ import annotations

from groupspec.wire.connection import Connection, Pending
from groupspec.wire.errors import (
    BadResponseError,
    BrokerError,
    ClosedError,
    ConnectError,
    NoCommonVersionError,
    RequestEncodeError,
    UnknownApiError,
    WireError,
    WireTimeoutError,
)

__all__ = [
    "BadResponseError",
    "BrokerError",
    "ClosedError",
    "ConnectError",
    "Connection",
    "NoCommonVersionError",
    "Pending",
    "RequestEncodeError",
    "UnknownApiError",
    "WireError",
    "WireTimeoutError",
]

"""What can go wrong between groupspec and a peer, as typed errors.

Every error names the API and version of the exchange it broke (when one was under way), so a
report over many brokers says which call failed and how; a peer's bad bytes also name the byte
``offset`` in the response frame (0 is the first byte after the 4-byte size prefix, where the
response header starts).
"""

from __future__ import annotations

from groupspec.types.errors import GroupspecError


class WireError(GroupspecError):
    """Root of the errors of ``groupspec.wire``."""

    def __init__(self, reason: str, api: str | None = None, version: int | None = None,
                 offset: int | None = None) -> None:
        self.reason = reason
        self.api = api
        self.version = version
        self.offset = offset
        where = ""
        if api is not None:
            where = f"{api} v{version}: " if version is not None else f"{api}: "
        at = f" (byte {offset})" if offset is not None else ""
        super().__init__(f"{where}{reason}{at}")


class ConnectError(WireError):
    """The TCP connection could not be made within the timeout."""


class WireTimeoutError(WireError):
    """The peer did not send the whole response within the timeout."""


class ClosedError(WireError):
    """The peer closed the connection before the response ended (``offset``: bytes received)."""


class BadResponseError(WireError):
    """Response bytes that are not the message they claim to be: a size, header or body that does
    not decode at the version asked for, a correlation id that does not match, trailing bytes."""


class RequestEncodeError(WireError, ValueError):
    """A request object that cannot be written at the version chosen (a caller's mistake)."""


class NoCommonVersionError(WireError):
    """The peer does not support the API, or no version of it that groupspec speaks."""


class BrokerError(WireError):
    """The peer answered, in good bytes, with an error code where the exchange needs success
    (only where groupspec itself needs the answer, as in version negotiation; the responses of
    :meth:`~groupspec.wire.connection.Connection.request` carry their error codes to the caller)."""

    def __init__(self, reason: str, error_code: int, api: str | None = None,
                 version: int | None = None) -> None:
        self.error_code = error_code
        super().__init__(reason, api, version)


class UnknownApiError(WireError, ValueError):
    """An API key, or a message class, that groupspec.wire does not know."""

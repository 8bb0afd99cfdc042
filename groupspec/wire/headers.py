"""Request and response headers, and which header version goes with which body version.

Written by hand rather than through the schema codec: the request header's client id keeps its
int16 length even in the flexible header v2 (the schema exempts that one field from flexible
encoding, which the codec has no notion of), and the two headers are small enough that a table
would only hide that exception.

Header versions (Kafka 4.2 dropped request header v0):

- request: v2 when the body version is flexible, else v1;
- response: v1 when the body version is flexible, else v0; ApiVersions answers always use v0, so
  that a client that asked at a version the broker does not know can still read the error.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

from groupspec.impl.codec.errors import CodecError, MalformedError, TruncatedError
from groupspec.impl.codec.varint import read_uvarint

API_VERSIONS_KEY = 18

_PREFIX = struct.Struct(">hhi")
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")


@dataclass(frozen=True)
class RequestHeader:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None = None


def request_header_version(flexible: bool) -> int:
    return 2 if flexible else 1


def response_header_version(api_key: int, flexible: bool) -> int:
    return 1 if flexible and api_key != API_VERSIONS_KEY else 0


def encode_request_header(header: RequestHeader, header_version: int) -> bytes:
    if header_version not in (1, 2):
        raise ValueError(f"request header version {header_version} does not exist in Kafka 4.2")
    out = [_PREFIX.pack(header.api_key, header.api_version, header.correlation_id)]
    if header.client_id is None:
        out.append(_INT16.pack(-1))
    else:
        data = header.client_id.encode()
        if len(data) > 0x7FFF:
            raise ValueError("client id longer than 32767 bytes of UTF-8")
        out += [_INT16.pack(len(data)), data]
    if header_version == 2:
        out.append(b"\x00")  # no tagged fields
    return b"".join(out)


def skip_tagged_fields(buf: bytes, pos: int) -> int:
    """The position after a tagged-field section whose fields are all unknown (and dropped)."""
    start = pos
    try:
        count, pos = read_uvarint(buf, pos)
        for _ in range(count):
            start = pos
            _, pos = read_uvarint(buf, pos)
            size, pos = read_uvarint(buf, pos)
            if pos + size > len(buf):
                raise TruncatedError("a tagged field runs past the end of the header")
            pos += size
    except CodecError as exc:
        if exc.position is None:
            exc.position = start
        raise
    return pos


def read_request_header(buf: bytes, pos: int, header_version_of: Callable[[int, int], int]
                        ) -> tuple[RequestHeader, int]:
    """A request header at ``pos`` and where it ends; ``header_version_of(key, version)`` says
    whether tagged fields follow (it raises for an API the reader does not know)."""
    if len(buf) - pos < _PREFIX.size + 2:
        raise TruncatedError("the data ends inside the request header")
    key, version, correlation_id = _PREFIX.unpack_from(buf, pos)
    pos += _PREFIX.size
    (n,) = _INT16.unpack_from(buf, pos)
    pos += 2
    client_id: str | None = None
    if n >= 0:
        if pos + n > len(buf):
            raise TruncatedError("the data ends inside the client id")
        try:
            client_id = buf[pos:pos + n].decode()
        except UnicodeDecodeError:
            raise MalformedError("the client id is not UTF-8") from None
        pos += n
    elif n != -1:
        raise MalformedError(f"client id length {n}")
    header = RequestHeader(key, version, correlation_id, client_id)
    if header_version_of(key, version) == 2:
        pos = skip_tagged_fields(buf, pos)
    return header, pos


def read_response_header(buf: bytes, header_version: int) -> tuple[int, int]:
    """The correlation id of a response frame's header and where the body starts."""
    if len(buf) < 4:
        exc = TruncatedError("the data ends inside the response header")
        exc.position = 0
        raise exc
    (correlation_id,) = _INT32.unpack_from(buf, 0)
    pos = 4
    if header_version == 1:
        pos = skip_tagged_fields(buf, pos)
    return correlation_id, pos


def encode_response_header(correlation_id: int, header_version: int) -> bytes:
    return _INT32.pack(correlation_id) + (b"\x00" if header_version == 1 else b"")


__all__ = [
    "API_VERSIONS_KEY",
    "RequestHeader",
    "encode_request_header",
    "encode_response_header",
    "read_request_header",
    "read_response_header",
    "request_header_version",
    "response_header_version",
    "skip_tagged_fields",
]

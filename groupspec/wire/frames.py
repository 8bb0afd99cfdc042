"""Whole frames: a size prefix, a header and a body, for both directions.

A client uses :func:`encode_request` and :func:`decode_response`; a fake broker in a test (or a
future server-side target) uses :func:`decode_request` and :func:`encode_response`. Bodies go
through the schema-compiled codec of ``groupspec.impl.codec.messages``; this module adds the
headers and turns codec failures into :class:`~groupspec.wire.errors.WireError` subclasses that
name the API, the version and the byte offset in the frame.
"""

from __future__ import annotations

import struct
from typing import Any

from groupspec.impl.codec.errors import CodecError
from groupspec.impl.codec.messages import decode, encode
from groupspec.types.records.schema import message_spec
from groupspec.wire.errors import BadResponseError, RequestEncodeError, UnknownApiError
from groupspec.wire.headers import (
    RequestHeader,
    encode_request_header,
    encode_response_header,
    read_request_header,
    read_response_header,
    request_header_version,
    response_header_version,
)
from groupspec.wire.messages import APIS, Api, api_of

_SIZE = struct.Struct(">i")


def api(key: int) -> Api:
    found = APIS.get(key)
    if found is None:
        raise UnknownApiError(f"API key {key} is not one groupspec.wire speaks")
    return found


def _check_version(a: Api, version: int) -> None:
    if version not in a.versions:
        raise UnknownApiError(f"version {version} is not one of {a.versions}", a.name, version)


def encode_request(request: Any, version: int, correlation_id: int, client_id: str | None = "groupspec"
                   ) -> bytes:
    """The frame of ``request`` at ``version``: size prefix, header (v1 or v2), body."""
    a = api_of(type(request))
    if type(request) is not a.request:
        raise UnknownApiError(f"{type(request).__name__} is a response, not a request", a.name, version)
    _check_version(a, version)
    flexible = a.flexible(version)
    header = RequestHeader(a.key, version, correlation_id, client_id)
    try:
        head = encode_request_header(header, request_header_version(flexible))
        body = encode(request, version)
    except (CodecError, ValueError, struct.error) as exc:
        raise RequestEncodeError(str(exc), a.name, version) from None
    return _SIZE.pack(len(head) + len(body)) + head + body


def decode_response(api_key: int, version: int, payload: bytes) -> tuple[int, Any]:
    """The correlation id and body of a response frame (``payload``: the bytes after the size).

    ApiVersions answers a version the broker does not know in the v0 layout (with error code
    UNSUPPORTED_VERSION); as Kafka's client does, a body that does not decode at the version
    asked for is read again at v0 before giving up.
    """
    a = api(api_key)
    _check_version(a, version)
    flexible = a.flexible(version)
    try:
        correlation_id, pos = read_response_header(payload, response_header_version(a.key, flexible))
    except CodecError as exc:
        raise BadResponseError(f"bad response header: {exc.reason}", a.name, version,
                               exc.position) from None
    try:
        return correlation_id, _body(a.response, payload, version, pos, a.name)
    except BadResponseError:
        if a.name != "ApiVersions" or version == 0:
            raise
        return correlation_id, _body(a.response, payload, 0, pos, a.name)


def _body(cls: type, payload: bytes, version: int, pos: int, name: str) -> Any:
    body: Any
    try:
        body, end = decode(cls, payload, version, pos)
    except CodecError as exc:
        # the codec names the message and version too; the WireError says them once
        reason = exc.reason.removeprefix(f"{message_spec(cls).name} v{version}: ")
        raise BadResponseError(reason, name, version, exc.position) from None
    if end != len(payload):
        raise BadResponseError(f"{len(payload) - end} bytes after the end of the body", name, version, end)
    return body


def decode_request(payload: bytes) -> tuple[RequestHeader, Any]:
    """A request frame's header and body (``payload``: the bytes after the size prefix)."""

    def header_version(key: int, version: int) -> int:
        a = api(key)
        _check_version(a, version)
        return request_header_version(a.flexible(version))

    try:
        header, pos = read_request_header(payload, 0, header_version)
    except CodecError as exc:
        raise BadResponseError(f"bad request header: {exc.reason}", None, None, exc.position) from None
    a = api(header.api_key)
    body: Any
    try:
        body, end = decode(a.request, payload, header.api_version, pos)
    except CodecError as exc:
        raise BadResponseError(exc.reason, message_spec(a.request).name, header.api_version,
                               exc.position) from None
    if end != len(payload):
        raise BadResponseError(f"{len(payload) - end} bytes after the end of the body",
                               message_spec(a.request).name, header.api_version, end)
    return header, body


def encode_response(response: Any, version: int, correlation_id: int) -> bytes:
    """The frame of ``response`` at ``version``: size prefix, header (v0 or v1), body."""
    a = api_of(type(response))
    _check_version(a, version)
    try:
        body = encode(response, version)
    except CodecError as exc:
        raise RequestEncodeError(str(exc), a.name, version) from None
    head = encode_response_header(correlation_id, response_header_version(a.key, a.flexible(version)))
    return _SIZE.pack(len(head) + len(body)) + head + body

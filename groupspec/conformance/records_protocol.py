"""The classic consumer protocol in the records machine: ``decode_consumer_protocol`` (a member's
subscription or assignment bytes in, the decoded message and the version it was written at out)
and ``encode_consumer_protocol`` (the message in Kafka's JSON form and a version in, its bytes
out). Registered in :mod:`groupspec.machines` (``handler_modules``).

These are the bytes a classic ``consumer`` member sends in JoinGroup (subscription) and its
leader in SyncGroup (assignments), which the coordinator stores opaque in GroupMetadataValue; the
codec is :mod:`groupspec.impl.codec.consumer_protocol`, following Kafka's client
``ConsumerProtocol``: a version above the highest known is read with the highest layout (the
protocol only ever appends fields) and reported as written, bytes after the struct are ignored,
a negative version is refused; writing at a version above the highest writes the highest, and
``version`` null is what a client writes (the highest).
"""

from __future__ import annotations

from typing import Any

from groupspec.conformance.records import hex_bytes
from groupspec.conformance.targets import Handler
from groupspec.conformance.vector_format import object_at, only_keys
from groupspec.types import InputError

#: The ``kind`` of an input: which of the two messages the bytes hold.
KINDS = ("subscription", "assignment")


def _kind(body: dict[str, Any]) -> str:
    kind = body.get("kind")
    if kind not in KINDS:
        raise InputError("input.kind", f"expected one of {', '.join(KINDS)}")
    return str(kind)


def _version(body: dict[str, Any]) -> int | None:
    version = body.get("version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise InputError("input.version", "expected a version number or null")
    return version


def _cls(kind: str) -> type:
    from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

    return ConsumerProtocolSubscription if kind == "subscription" else ConsumerProtocolAssignment


# --- decode_consumer_protocol ---------------------------------------------------------------------


def check_input_decode_consumer_protocol(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"kind", "hex"}, "input")
    _kind(body)
    hex_bytes(body.get("hex"), "input.hex")


def check_output_decode_consumer_protocol(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"version", "value"}, "output")
    for name in ("version", "value"):
        if name not in body:
            raise InputError(f"output.{name}", "missing")


def decode_protocol_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """The version as written and the message in Kafka's JSON form: the fields of the layout the
    bytes were read with (the highest known one for a version above it)."""
    from groupspec.impl.codec.consumer_protocol import decode_assignment, decode_subscription, highest_version
    from groupspec.impl.codec.json_form import to_json

    kind = _kind(doc)
    data = hex_bytes(doc.get("hex"), "input.hex")
    assert data is not None
    decoded, version = (decode_subscription if kind == "subscription" else decode_assignment)(data)
    shown = min(version, highest_version(type(decoded)))
    return {"version": version, "value": to_json(decoded, shown)}


def handler_decode_consumer_protocol(target: str) -> Handler:
    return decode_protocol_answer


# --- encode_consumer_protocol ---------------------------------------------------------------------


def check_input_encode_consumer_protocol(doc: Any) -> None:
    body = object_at(doc, "input")
    only_keys(body, {"kind", "version", "value"}, "input")
    _kind(body)
    _version(body)
    if "version" not in body:
        raise InputError("input.version", "missing (null for the version a client writes)")
    object_at(body.get("value"), "input.value")


def check_output_encode_consumer_protocol(doc: Any) -> None:
    body = object_at(doc, "output")
    only_keys(body, {"hex"}, "output")
    hex_bytes(body.get("hex"), "output.hex")


def encode_protocol_answer(doc: dict[str, Any]) -> dict[str, Any]:
    """The version prefix and struct (hex) a client writes for the message given."""
    from groupspec.impl.codec.consumer_protocol import encode_assignment, encode_subscription
    from groupspec.impl.codec.json_form import from_json

    kind = _kind(doc)
    version = _version(doc)
    typed: Any = from_json(_cls(kind), doc.get("value"), "input.value")
    data = (encode_subscription if kind == "subscription" else encode_assignment)(typed, version)
    return {"hex": data.hex()}


def handler_encode_consumer_protocol(target: str) -> Handler:
    return encode_protocol_answer

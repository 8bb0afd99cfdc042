"""groupspec's decoder held to Kafka's own: ``kafka.tools.DumpLogSegments`` on the same segment.

Kafka ships a decoder for each coordinator topic (``--offsets-decoder`` for ``__consumer_offsets``,
``--share-group-state-decoder`` for ``__share_group_state``; ``core/.../tools/DumpLogSegments.scala``)
that prints every record's key and value as JSON after a line of batch and record headers. This
module runs it on the jars of the test broker (groupspec.broker), reads its lines back, and
compares them with ``groupspec decode``'s, record by record: same offsets, same record types and
value versions, same keys and values, and the same tombstones.

The two JSON forms differ in two ways only, both by design, and :func:`kafka_form` maps
groupspec's line onto Kafka's before comparing:

* Kafka wraps the key as ``{"type": "<id>", "data": {...}}`` and the value as
  ``{"version": "<n>", "data": {...}}``, with ``<DELETE>`` for a tombstone; groupspec's line has
  ``typeId``, ``key``, ``valueVersion``, ``value`` and ``tombstone``.
* Kafka prints a classic member's subscription and assignment decoded in place (without their
  version); groupspec keeps the bytes in ``value`` and prints the decoded form beside it
  (``consumerProtocol``), so a member whose bytes do not decode is still shown as it is stored.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from groupspec.types import GroupspecError

#: Kafka's decoder option for each coordinator topic.
DECODERS = {
    "__consumer_offsets": "--offsets-decoder",
    "__share_group_state": "--share-group-state-decoder",
}

_RECORD_LINE = "| offset: "
_DELETE = "<DELETE>"


class DumpError(GroupspecError):
    """Kafka's tool failed, or printed a line this module cannot read."""


def dump_command(lib: Path, segment: Path, topic: str, *, java: str = "java") -> list[str]:
    """The command line of DumpLogSegments on one segment, with the decoder of ``topic``."""
    if topic not in DECODERS:
        raise DumpError(f"no Kafka decoder for topic {topic!r}: one of {', '.join(DECODERS)}")
    return [java, "-cp", f"{lib}/*", "kafka.tools.DumpLogSegments", "--files", str(segment), DECODERS[topic]]


def run_dump(lib: Path, segment: Path, topic: str, *, java: str = "java", timeout_s: float = 120.0) -> str:
    """DumpLogSegments's output for one segment file, with the decoder of ``topic``."""
    command = dump_command(lib, segment, topic, java=java)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DumpError(f"DumpLogSegments on {segment}: {exc}") from None
    if done.returncode != 0:
        raise DumpError(f"DumpLogSegments on {segment} exited with {done.returncode}: "
                        f"{done.stderr.strip()[-2000:]}")
    return done.stdout


def parse_dump(text: str) -> list[dict[str, Any]]:
    """Kafka's record lines as ``{"offset", "key", "payload"}`` (payload None for a tombstone).

    Control records (transaction markers) print no key and are left out, as ``groupspec decode``
    leaves them out without ``--control``.
    """
    decoder = json.JSONDecoder()
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith(_RECORD_LINE):
            continue
        at = line.find(" key: ")
        if at < 0:
            continue  # a control record: endTxnMarker ... instead of a key
        try:
            offset = int(line[len(_RECORD_LINE):].split(" ", 1)[0])
            key, end = decoder.raw_decode(line, at + len(" key: "))
            rest = line[end:]
            if not rest.startswith(" payload: "):
                raise ValueError("no payload after the key")
            rest = rest[len(" payload: "):]
            payload = None if rest == _DELETE else decoder.decode(rest)
        except ValueError as exc:
            raise DumpError(f"DumpLogSegments line {number} not understood ({exc}): {line[:200]}") from None
        records.append({"offset": offset, "key": key, "payload": payload})
    return records


def kafka_form(line: dict[str, Any]) -> dict[str, Any]:
    """One ``groupspec decode`` record line in the shape DumpLogSegments prints it."""
    value = line.get("value")
    decoded = {m["memberId"]: m for m in line.get("consumerProtocol") or ()}
    if decoded and isinstance(value, dict):
        value = dict(value, members=[_member_inline(m, decoded.get(m["memberId"])) for m in value["members"]])
    payload = None if line["tombstone"] else {"version": str(line["valueVersion"]), "data": value}
    return {"offset": line["offset"], "key": {"type": str(line["typeId"]), "data": line["key"]},
            "payload": payload}


def _member_inline(member: dict[str, Any], decoded: dict[str, Any] | None) -> dict[str, Any]:
    if decoded is None:
        return member
    out = dict(member)
    for part in ("subscription", "assignment"):
        found = decoded.get(part)
        # Bytes that do not decode stay as they are stored, in Kafka's dump too (its parser
        # swallows the error: DumpLogSegments.scala, prepareGroupMetadataValue); groupspec
        # prints an {"error", "hex"} object for them instead.
        if isinstance(found, dict) and "error" not in found:
            out[part] = {k: v for k, v in found.items() if k != "version"}
    return out


def differences(ours: Iterable[dict[str, Any]], theirs: Iterable[dict[str, Any]],
                limit: int = 20) -> list[str]:
    """Where groupspec's records (decode lines) and Kafka's (:func:`parse_dump`) part, by offset."""
    mine = {r["offset"]: kafka_form(r) for r in ours}
    kafka = {r["offset"]: r for r in theirs}
    found = [f"offset {o}: only Kafka printed it" for o in sorted(kafka.keys() - mine.keys())]
    found += [f"offset {o}: only groupspec printed it" for o in sorted(mine.keys() - kafka.keys())]
    for offset in sorted(mine.keys() & kafka.keys()):
        for part in ("key", "payload"):
            if mine[offset][part] != kafka[offset][part]:
                found.append(f"offset {offset} {part}: groupspec {json.dumps(mine[offset][part])} "
                             f"!= Kafka {json.dumps(kafka[offset][part])}")
    return found[:limit]

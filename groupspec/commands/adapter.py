"""`groupspec adapter --target T`: serve the conformance JSON-lines protocol on stdin/stdout.

One request per line in, one answer per line out, in order (docs/conformance.md)::

    {"id": "...", "machine": "simple_assignor", "handler": "assign", "input": {...}}
    {"id": "...", "output": {"assignment": {...}}}
    {"id": "...", "error": {"kind": "...", "message": "..."}}
    {"id": "...", "unsupported": {"reason": "..."}}

It takes part in the handshake (machine ``groupspec``, handler ``handshake``): its answer lists
the machines and handlers its target implements, so the runner never sends the others; a
request for one anyway (a runner without the handshake) is answered ``unsupported``.

Requests go through the same table the in-process targets use
(``groupspec.conformance.targets.handlers()``, derived from ``groupspec.machines``), so
``groupspec conformance --target 'cmd:groupspec adapter --target spec'`` must agree with
``--target spec``. A bad line gets an error answer naming what is wrong (kind
``bad_request``), never a crash: that includes bytes that are not UTF-8, nesting deeper than
64, integers of more than 20 digits, lone surrogates and a line over 64 MiB (read to its end
and dropped, so the next line is answered); blank lines are skipped. Topic ids are read in
Kafka's 22-character form or as UUIDs, and an answer spells each id the way its request did.
The adapter ends at the end of its input.

Every machine is served: ``simple_assignor/assign``, ``records/decode_record`` (impl and
impl-kafka; the spec has no codec, so ``--target spec`` answers it unsupported) and
``classic_group/run``, whose input is a whole scenario (config, start time, events in the
JSON form of ``groupspec.conformance.classic_group_json``) and whose output is every event's answers
and records plus the final view. A classic run starts a fresh coordinator per request, so one
adapter process can serve any number of vectors; a malformed event is answered
``invalid_input`` with its JSON path (``input.events[3].group_id``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from groupspec import bounded_json
from groupspec.types import InputError
from groupspec.types.topic_id import TopicIdSpellings

TARGETS = ("impl", "impl-kafka", "spec")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", choices=TARGETS, default="impl",
                        help="impl (default), impl-kafka (Kafka 4.2 exactly) or spec")


def _bad(request_id: Any, message: str, kind: str = "bad_request") -> dict[str, Any]:
    return {"id": request_id, "error": {"kind": kind, "message": message}}


def answer(target: str, line: str | bytes) -> dict[str, Any]:
    """The answer to one request line."""
    from groupspec.conformance import targets

    bad = _bad
    try:
        request = bounded_json.parse(line, "request")
    except InputError as exc:
        return bad(None, str(exc))
    if not isinstance(request, dict):
        return bad(None, "a request must be a JSON object")
    request_id = request.get("id")
    if "id" not in request:
        return bad(None, "missing field 'id'")
    for key in ("machine", "handler"):
        if not isinstance(request.get(key), str):
            return bad(request_id, f"field {key!r} must be a string")
    if "input" not in request:
        return bad(request_id, "missing field 'input'")
    if (request["machine"], request["handler"]) == (targets.HANDSHAKE_MACHINE, targets.HANDSHAKE_HANDLER):
        return {"id": request_id, "output": targets.handshake_answer(target)}
    # Topic ids may come in Kafka's 22-character form; the answer spells them the same way.
    spellings = TopicIdSpellings()
    try:
        output = spellings.restore(targets.dispatch(target, request["machine"], request["handler"],
                                                    spellings.normalize(request["input"])))
    except targets.Unsupported as exc:
        return {"id": request_id, "unsupported": {"reason": exc.reason}}
    except targets.UnknownHandler as exc:
        return bad(request_id, str(exc), "unknown_handler")
    except Exception as exc:
        return bad(request_id, f"{type(exc).__name__}: {exc}", targets.error_kind(exc))
    return {"id": request_id, "output": output}


def run(args: argparse.Namespace) -> int:
    stdin = sys.stdin.buffer
    while True:
        line, overlong = bounded_json.read_line(stdin)
        if overlong:
            reply = _bad(None, f"a request line longer than {bounded_json.MAX_LINE_BYTES:,} bytes "
                         "(skipped to its end)")
        elif not line:
            return 0
        elif not line.strip():
            continue
        else:
            reply = answer(args.target, line)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()

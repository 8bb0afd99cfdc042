"""JSON from outside groupspec, read within bounds: a user's file or stdin, an adapter's request
line, a vector file, a conformance peer's answer.

Python's ``json`` accepts documents that later break a program far from the parser: nesting deep
enough to exhaust the stack (a RecursionError in the parser, or in the first recursive walk over
the value), integers of thousands of digits (a ValueError past 4300 digits, slow arithmetic
below), strings holding a lone surrogate escape (``"\\udc80"``) that no UTF-8 writer can write
back, and bytes that are not UTF-8 (which a text stream decoding with ``errors="replace"`` or
``surrogateescape`` would turn silently into other member ids). :func:`parse` refuses each with an
:class:`InputError` naming the source and, when the problem sits inside the document, its JSON
path. Nothing groupspec reads needs more: its deepest vector nests 12 levels, and every number in
Kafka's group protocols fits an int64.

:func:`read_line` bounds a line read from a stream, so a peer that never writes a newline costs
at most :data:`MAX_LINE_BYTES` of memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from groupspec.types.errors import InputError

#: Deepest nesting accepted (objects and arrays).
MAX_DEPTH = 64
#: Most digits in an integer: an int64 has at most 19.
MAX_INT_DIGITS = 20
#: Longest line read from a stream (a request to an adapter, an answer from a peer): 64 MiB.
MAX_LINE_BYTES = 64 * 1024 * 1024


class _LongInteger(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _integer(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > MAX_INT_DIGITS:
        raise _LongInteger(digits)
    return int(text)


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as text; bytes that are not UTF-8 are an InputError naming the first one."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"not UTF-8 text: byte {exc.start} is {data[exc.start]:#04x}") from None


def parse(text: str | bytes, source: str,
          object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """The value of a JSON document, within the module's bounds; else an InputError."""
    if isinstance(text, bytes | bytearray):
        text = decode_utf8(bytes(text), source)
    try:
        value = json.loads(text, parse_int=_integer, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"malformed JSON: {exc.msg} at line {exc.lineno} column "
                         f"{exc.colno}") from None
    except _LongInteger as exc:
        raise InputError(source, f"an integer of {exc.digits} digits; no number in Kafka's group "
                         f"protocols has more than 19") from None
    except RecursionError:
        raise InputError(source, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # what else the parser refuses (its messages are its own)
        raise InputError(source, f"malformed JSON: {exc}") from None
    _check_tree(value, source)
    return value


def _check_tree(value: Any, source: str) -> None:
    """Depth and strings of a parsed value, walked without recursion."""
    stack: list[tuple[Any, str, int]] = [(value, "", 1)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, str):
            _check_string(node, source, path)
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise InputError(_where(source, path), f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, dict):
            for key, item in node.items():
                child = f"{path}.{_shown(key)}" if path else _shown(key)
                _check_string(key, source, child)
                stack.append((item, child, depth + 1))
        else:
            stack.extend((item, f"{path}[{k}]", depth + 1) for k, item in enumerate(node))


def _check_string(text: str, source: str, path: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        escape = ascii(text[exc.start])[1:-1]
        raise InputError(_where(source, path), f"holds a lone surrogate ({escape}) at character "
                         f"{exc.start}, which has no UTF-8 form") from None


def _shown(key: str) -> str:
    """A key as it can be printed: a lone surrogate spelled as its escape."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _where(source: str, path: str) -> str:
    return f"{source}: {path}" if path else source


def read_line(stream: IO[bytes], limit: int | None = None) -> tuple[bytes, bool]:
    """The next line of ``stream`` (b"" at its end) and whether it was longer than ``limit`` bytes
    (:data:`MAX_LINE_BYTES` unless given; the newline is not counted).

    An over-long line is read to its end in pieces and thrown away, so the stream stays in step
    (the next call reads the next line) and memory stays within ``limit``.
    """
    if limit is None:
        limit = MAX_LINE_BYTES
    line = stream.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line, False
    while True:
        rest = stream.readline(limit + 1)
        if not rest or rest.endswith(b"\n"):
            return b"", True

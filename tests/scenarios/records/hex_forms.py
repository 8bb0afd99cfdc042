"""Kafka's primitive encodings as hex, written here rather than taken from the codec under test,
for the records cases (cases.py, struct_cases.py) to build bytes from."""

from __future__ import annotations


def _uv(n: int) -> str:
    """An unsigned varint as hex, written here rather than taken from the codec under test."""
    out = []
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out).hex()


def _s16(text: str) -> str:
    """A non-flexible string: int16 length, UTF-8."""
    raw = text.encode()
    return f"{len(raw):04x}{raw.hex()}"


def _cs(text: str) -> str:
    """A compact (flexible) string: uvarint length + 1, UTF-8."""
    raw = text.encode()
    return _uv(len(raw) + 1) + raw.hex()

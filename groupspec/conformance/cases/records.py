"""Conformance vectors of the record codec (machine ``records``): bytes in, decoded JSON out.

Filled in with the codec; until then the machine has no vectors.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def record_vector_docs() -> Iterator[dict[str, Any]]:
    yield from ()

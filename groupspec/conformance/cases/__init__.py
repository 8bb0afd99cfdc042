"""Hand-made cases the conformance vectors are generated from."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol


class RunCase(Protocol):
    """What a stateful machine's case offers the generator."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def source(self) -> Mapping[str, str]: ...


def spec_run_vectors(machine: str, handler: str, cases: Iterable[RunCase],
                     vector_input: Callable[[Any], dict[str, object]],
                     properties: Sequence[str]) -> Iterator[dict[str, object]]:
    """One exact vector per case of a stateful machine: the input as written, and as
    ``expected`` what the spec answers for exactly that input."""
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.targets import dispatch

    for case in cases:
        doc_input = vector_input(case)
        yield {
            "format": vf.FORMAT_VERSION,
            "machine": machine,
            "handler": handler,
            "case": case.name,
            "description": case.description,
            "source": dict(case.source),
            "mode": "exact",
            "properties": list(properties),
            "input": doc_input,
            "expected": dispatch("spec", machine, handler, doc_input),
        }

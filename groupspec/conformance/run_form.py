"""What the stateful machines' conformance modules share: a run's input and output checks and
the in-process handler, given the machine's JSON form module and its driver.

A stateful machine's vector holds a whole run (``run_input_from_json`` reads it) and its
expected outputs (``run_output_from_json`` / ``run_output_to_json``); only the JSON form and the
driver differ from machine to machine. The JSON form is imported when first used, so a
conformance module costs nothing until a vector of its machine is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, cast

from groupspec.conformance import vector_format as vf
from groupspec.conformance.targets import Handler, dispatch

Check = Callable[[Any], None]


def checks(json_form: str) -> tuple[Check, Check]:
    """``(check_input, check_output)``: each raises InputError naming the bad field."""
    def check_input(doc: Any) -> None:
        importlib.import_module(json_form).run_input_from_json(doc, "input")

    def check_output(doc: Any) -> None:
        importlib.import_module(json_form).run_output_from_json(doc, "output")

    return check_input, check_output


def handler(json_form: str, drive: Callable[[str, Any], Any]) -> Callable[[str], Handler]:
    """``handler(target)``: reads a run, drives ``target`` through it, writes its outputs."""
    def for_target(target: str) -> Handler:
        def run(doc: Any) -> dict[str, Any]:
            form = importlib.import_module(json_form)
            return cast(dict[str, Any], form.run_output_to_json(drive(target, form.run_input_from_json(doc))))
        return run
    return for_target


class RunCase(Protocol):
    """What a stateful machine's case (tests/scenarios/<machine>/cases.py) offers the generator."""

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

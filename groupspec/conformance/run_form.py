"""What the stateful machines' conformance modules share: a run's input and output checks and
the in-process handler, given the machine's JSON form module and its driver.

A stateful machine's vector holds a whole run (``run_input_from_json`` reads it) and its
expected outputs (``run_output_from_json`` / ``run_output_to_json``); only the JSON form and the
driver differ from machine to machine. The JSON form is imported when first used, so a
conformance module costs nothing until a vector of its machine is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, cast

from groupspec.conformance.targets import Handler

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

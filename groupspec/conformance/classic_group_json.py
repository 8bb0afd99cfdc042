"""The JSON form of the classic group vocabulary (machine ``classic_group``).

:mod:`groupspec.conformance.vocabulary_json` over :mod:`groupspec.types.classic_group` and the
coordinator records (:mod:`groupspec.types.records`), whose keys and values may also stand alone
as tagged documents. docs/conformance.md, "Machine classic_group", states the form for adapter
writers.
"""

from __future__ import annotations

import dataclasses
import typing

from groupspec.conformance.vocabulary_json import RECORD_MESSAGES, JsonForm, RunForm
from groupspec.types import classic_group as c
from groupspec.types.records import CoordinatorRecord

FORM = JsonForm("classic", (c,), extra=(CoordinatorRecord, *RECORD_MESSAGES))
#: Every class a ``"type"`` tag may name (an ``Answer.response`` may be any of them).
CLASSES = FORM.classes
#: The classes an event of a run may be (requests, clock advances, restarts).
EVENT_CLASSES: tuple[type, ...] = typing.get_args(c.ClassicEvent)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunInput:
    """A vector's input: the coordinator's config, its clock at start, and the events in order."""

    config: c.ClassicConfig = dataclasses.field(default_factory=c.ClassicConfig)
    start_ms: int = 0
    events: tuple[c.ClassicEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    """What a run produced: one Output per event (in event order) and the view after the last."""

    outputs: tuple[c.Output, ...]
    view: c.CoordinatorView


RUN = RunForm(FORM, RunInput, RunOutput, at_least={"start_ms": 0})
to_json, from_json, from_json_as = FORM.to_json, FORM.from_json, FORM.from_json_as
run_input_to_json, run_input_from_json = RUN.input_to_json, RUN.input_from_json
run_output_to_json, run_output_from_json = RUN.output_to_json, RUN.output_from_json

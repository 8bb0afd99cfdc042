"""The JSON form of the share coordinator's vocabulary (machine ``share_state``).

:mod:`groupspec.conformance.vocabulary_json` over :mod:`groupspec.types.share_state`; the records a
run writes are in the classic machine's record form, always tagged. docs/conformance.md,
"Machine share_state", states it for adapter writers.
"""

from __future__ import annotations

import dataclasses
import typing

from groupspec.conformance.vocabulary_json import JsonForm, RunForm
from groupspec.types import share_state as ss
from groupspec.types.records import CoordinatorRecord

EVENT_CLASSES: tuple[type, ...] = typing.get_args(ss.ShareStateEvent)
RESPONSE_CLASSES: tuple[type, ...] = tuple(ss.RESPONSE_FOR.values())
FORM = JsonForm("share state", (ss,), responses=RESPONSE_CLASSES, tag_always=(CoordinatorRecord,))
CLASSES = FORM.classes


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunInput:
    """A vector's input: the coordinator config, the metadata image, the clock at start, the events."""

    config: ss.ShareStateConfig = dataclasses.field(default_factory=ss.ShareStateConfig)
    topics: tuple[ss.TopicMetadata, ...] = ()
    start_ms: int = 0
    events: tuple[ss.ShareStateEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    """One Output per event (in event order) and the view after the last."""

    outputs: tuple[ss.Output, ...]
    view: ss.ShareStateView


RUN = RunForm(FORM, RunInput, RunOutput, at_least={"config": 0, "start_ms": 0})
to_json, from_json_as = FORM.to_json, FORM.from_json_as
run_input_to_json, run_input_from_json = RUN.input_to_json, RUN.input_from_json
run_output_to_json, run_output_from_json = RUN.output_to_json, RUN.output_from_json

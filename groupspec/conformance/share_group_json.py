"""The JSON form of the share group coordinator's vocabulary (machine ``share_group``).

:mod:`groupspec.conformance.vocabulary_json` over :mod:`groupspec.types.share_group`; the records a
run writes are in the classic machine's record form, always tagged. docs/conformance.md,
"Machine share_group", states it for adapter writers.
"""

from __future__ import annotations

import dataclasses
import typing

from groupspec.conformance.vocabulary_json import JsonForm, RunForm
from groupspec.types import share_group as sg
from groupspec.types.records import CoordinatorRecord

EVENT_CLASSES: tuple[type, ...] = typing.get_args(sg.ShareGroupEvent)
RESPONSE_CLASSES: tuple[type, ...] = (sg.ShareGroupHeartbeatResponse, sg.DeleteGroupsResponse,
                                      sg.SetGroupConfigResponse)
FORM = JsonForm("share group", (sg,), responses=RESPONSE_CLASSES, tag_always=(CoordinatorRecord,))
CLASSES = FORM.classes


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunInput:
    """A vector's input: the broker config, the metadata image, the clock at start, the events."""

    config: sg.ShareGroupConfig = dataclasses.field(default_factory=sg.ShareGroupConfig)
    topics: tuple[sg.TopicMetadata, ...] = ()
    start_ms: int = 0
    events: tuple[sg.ShareGroupEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    outputs: tuple[sg.Output, ...]
    view: sg.ShareCoordinatorView


RUN = RunForm(FORM, RunInput, RunOutput, at_least={"config": 1, "config.initial_group_epoch": 0,
                                                             "start_ms": 0})
to_json, from_json_as = FORM.to_json, FORM.from_json_as
run_input_to_json, run_input_from_json = RUN.input_to_json, RUN.input_from_json
run_output_to_json, run_output_from_json = RUN.output_to_json, RUN.output_from_json

"""The JSON form of the share partition vocabulary (machine ``share_partition``).

:mod:`groupspec.conformance.vocabulary_json` over :mod:`groupspec.types.share_partition`;
docs/conformance.md, "Machine share_partition", states it for adapter writers.
"""

from __future__ import annotations

import dataclasses
import typing

from groupspec.conformance.vocabulary_json import JsonForm, RunForm
from groupspec.types import share_partition as sp

#: The classes an event of a run may be.
EVENT_CLASSES: tuple[type, ...] = typing.get_args(sp.SharePartitionEvent)
#: The classes an Answer's response may be.
RESPONSE_CLASSES: tuple[type, ...] = (sp.FetchResponse, sp.AcknowledgeResponse, sp.ReleaseResponse,
                                      sp.ReloadResponse, sp.CanAcquireResponse)
FORM = JsonForm("share partition", (sp,), responses=RESPONSE_CLASSES)
CLASSES = FORM.classes


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunInput:
    """A vector's input: the broker config, what the persister holds at the start, the clock at
    start, the log's latest offset (used when the persisted start offset is -1), the events."""

    config: sp.SharePartitionConfig = dataclasses.field(default_factory=sp.SharePartitionConfig)
    persisted: sp.PersistedState = dataclasses.field(default_factory=sp.PersistedState)
    start_ms: int = 0
    latest_offset: int = 0
    events: tuple[sp.SharePartitionEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    """One Output per event (in event order) and the view after the last."""

    outputs: tuple[sp.Output, ...]
    view: sp.SharePartitionView


RUN = RunForm(FORM, RunInput, RunOutput, at_least={"config": 1, "start_ms": 0, "latest_offset": 0})
to_json, from_json_as = FORM.to_json, FORM.from_json_as
run_input_to_json, run_input_from_json = RUN.input_to_json, RUN.input_from_json
run_output_to_json, run_output_from_json = RUN.output_to_json, RUN.output_from_json

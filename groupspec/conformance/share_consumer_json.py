"""The JSON form of the share consumer's membership vocabulary (machine ``share_consumer``).

:mod:`groupspec.conformance.vocabulary_json` over :mod:`groupspec.types.share_consumer` and the
heartbeat classes of :mod:`groupspec.types.share_group`; docs/conformance.md, "Machine
share_consumer", states it.
"""

from __future__ import annotations

import dataclasses
import typing

from groupspec.conformance.vocabulary_json import JsonForm, RunForm
from groupspec.types import share_consumer as sc
from groupspec.types import share_group as sg

EVENT_CLASSES: tuple[type, ...] = typing.get_args(sc.ShareConsumerEvent)
FORM = JsonForm("share consumer", (sc, sg), responses=())


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunInput:
    config: sc.ShareConsumerConfig = dataclasses.field(default_factory=sc.ShareConsumerConfig)
    start_ms: int = 0
    events: tuple[sc.ShareConsumerEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    outputs: tuple[sc.ClientOutput, ...]
    view: sc.ClientView


#: A config's integers are its poll interval and retry backoff, both at least 1.
RUN = RunForm(FORM, RunInput, RunOutput, at_least={"config": 1, "start_ms": 0})
to_json, from_json_as = FORM.to_json, FORM.from_json_as
run_input_to_json, run_input_from_json = RUN.input_to_json, RUN.input_from_json
run_output_to_json, run_output_from_json = RUN.output_to_json, RUN.output_from_json

"""The JSON form of the share consumer's delivery vocabulary (machine ``share_delivery``).

:mod:`groupspec.conformance.vocabulary_json` over :mod:`groupspec.types.share_delivery`;
docs/conformance.md, "Machine share_delivery", states it.
"""

from __future__ import annotations

import dataclasses
import typing

from groupspec.conformance.vocabulary_json import JsonForm, RunForm
from groupspec.types import share_delivery as sd

EVENT_CLASSES: tuple[type, ...] = typing.get_args(sd.DeliveryEvent)
FORM = JsonForm("share delivery", (sd,), responses=())


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunInput:
    config: sd.DeliveryConfig = dataclasses.field(default_factory=sd.DeliveryConfig)
    events: tuple[sd.DeliveryEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    outputs: tuple[sd.DeliveryOutput, ...]
    view: sd.DeliveryView


#: A config's integer (max.poll.records) is at least 1.
RUN = RunForm(FORM, RunInput, RunOutput, at_least={"config": 1})
to_json, from_json_as = FORM.to_json, FORM.from_json_as
run_input_to_json = RUN.input_to_json
run_output_to_json, run_output_from_json = RUN.output_to_json, RUN.output_from_json


def run_input_from_json(doc: typing.Any, path: str = "input") -> RunInput:
    """A run, refused (InputError naming the event) when it holds what the model leaves out:
    a ShareAcknowledge error Kafka retries."""
    from groupspec.spec.share_delivery import modelled
    from groupspec.types import InputError

    run = RUN.input_from_json(doc, path)
    for k, event in enumerate(run.events):
        if not modelled(event):
            raise InputError(f"{path}.events[{k}]",
                             "not modelled: a ShareAcknowledge error Kafka retries")
    return run

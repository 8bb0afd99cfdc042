"""The JSON form of the share partition vocabulary, for vectors and outside adapters.

The form (``dataclass_json``) is read off the declarations in
:mod:`groupspec.types.share_partition`, so it cannot drift from them; docs/conformance.md,
"Machine share_partition", states it for adapter writers.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from groupspec.conformance.dataclass_json import DataclassForm, array, body, join
from groupspec.types import share_partition as sp
from groupspec.types.errors import InputError

#: The classes an event of a run may be.
EVENT_CLASSES: tuple[type, ...] = typing.get_args(sp.SharePartitionEvent)
#: The classes an Answer's response may be.
RESPONSE_CLASSES: tuple[type, ...] = (sp.FetchResponse, sp.AcknowledgeResponse, sp.ReleaseResponse,
                                      sp.ReloadResponse)
FORM = DataclassForm(sp, RESPONSE_CLASSES, "share partition")
CLASSES = FORM.classes
to_json = FORM.to_json
from_json_as = FORM.from_json_as


@dataclasses.dataclass(frozen=True)
class RunInput:
    """A vector's input: the broker config, what the persister holds at the start, the clock at
    start, the log's latest offset (used when the persisted start offset is -1), the events."""

    config: sp.SharePartitionConfig
    persisted: sp.PersistedState
    start_ms: int
    latest_offset: int
    events: tuple[sp.SharePartitionEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    """One Output per event (in event order) and the view after the last."""

    outputs: tuple[sp.Output, ...]
    view: sp.SharePartitionView


def run_input_to_json(run: RunInput) -> dict[str, Any]:
    return {"config": to_json(run.config, tag=False), "persisted": to_json(run.persisted, tag=False),
            "start_ms": run.start_ms, "latest_offset": run.latest_offset,
            "events": [to_json(e) for e in run.events]}


def run_input_from_json(doc: Any, path: str = "input") -> RunInput:
    top = body(doc, path, ("config", "persisted", "start_ms", "latest_offset", "events"),
               required=("events",))
    config = sp.SharePartitionConfig()
    if "config" in top:
        config = from_json_as(sp.SharePartitionConfig, top["config"], join(path, "config"))
        for f in dataclasses.fields(config):
            if getattr(config, f.name) < 1:
                raise InputError(join(join(path, "config"), f.name),
                                 f"must be at least 1, got {getattr(config, f.name)}")
    persisted = sp.PersistedState()
    if "persisted" in top:
        persisted = from_json_as(sp.PersistedState, top["persisted"], join(path, "persisted"))
    numbers = []
    for name in ("start_ms", "latest_offset"):
        value = FORM.value_from_json(int, top.get(name, 0), join(path, name))
        if value < 0:
            raise InputError(join(path, name), f"must not be negative, got {value}")
        numbers.append(value)
    events = array(top["events"], join(path, "events"),
                   lambda v, p: FORM.tagged_from_json(v, EVENT_CLASSES, p))
    return RunInput(config, persisted, numbers[0], numbers[1], events)


def run_output_to_json(run: RunOutput) -> dict[str, Any]:
    return {"outputs": [to_json(o, tag=False) for o in run.outputs], "view": to_json(run.view, tag=False)}


def run_output_from_json(doc: Any, path: str = "output") -> RunOutput:
    top = body(doc, path, ("outputs", "view"), required=("outputs", "view"))
    outputs = array(top["outputs"], join(path, "outputs"), lambda v, p: from_json_as(sp.Output, v, p))
    view = from_json_as(sp.SharePartitionView, top["view"], join(path, "view"))
    return RunOutput(outputs, view)

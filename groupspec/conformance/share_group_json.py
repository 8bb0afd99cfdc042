"""The JSON form of the share group coordinator's vocabulary, for vectors and outside adapters.

The form (``dataclass_json``) is read off the declarations in :mod:`groupspec.types.share_group`;
records are in the classic machine's record form. docs/conformance.md, "Machine share_group",
states it for adapter writers.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from groupspec.conformance.dataclass_json import DataclassForm, array, body, join
from groupspec.types import share_group as sg
from groupspec.types.errors import InputError

EVENT_CLASSES: tuple[type, ...] = typing.get_args(sg.ShareGroupEvent)
RESPONSE_CLASSES: tuple[type, ...] = (sg.ShareGroupHeartbeatResponse, sg.DeleteGroupsResponse,
                                      sg.SetGroupConfigResponse)
FORM = DataclassForm(sg, RESPONSE_CLASSES, "share group")
CLASSES = FORM.classes
to_json = FORM.to_json
from_json_as = FORM.from_json_as


@dataclasses.dataclass(frozen=True)
class RunInput:
    """A vector's input: the broker config, the metadata image, the clock at start, the events."""

    config: sg.ShareGroupConfig
    topics: tuple[sg.TopicMetadata, ...]
    start_ms: int
    events: tuple[sg.ShareGroupEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    outputs: tuple[sg.Output, ...]
    view: sg.ShareCoordinatorView


def run_input_to_json(run: RunInput) -> dict[str, Any]:
    return {"config": to_json(run.config, tag=False), "topics": [to_json(t, tag=False) for t in run.topics],
            "start_ms": run.start_ms, "events": [to_json(e) for e in run.events]}


def run_input_from_json(doc: Any, path: str = "input") -> RunInput:
    top = body(doc, path, ("config", "topics", "start_ms", "events"), required=("events",))
    config = sg.ShareGroupConfig()
    if "config" in top:
        config = from_json_as(sg.ShareGroupConfig, top["config"], join(path, "config"))
        for f in dataclasses.fields(config):
            if getattr(config, f.name) < 1:
                raise InputError(join(join(path, "config"), f.name),
                                 f"must be at least 1, got {getattr(config, f.name)}")
    topics = array(top.get("topics", []), join(path, "topics"),
                   lambda v, p: from_json_as(sg.TopicMetadata, v, p))
    start = FORM.value_from_json(int, top.get("start_ms", 0), join(path, "start_ms"))
    if start < 0:
        raise InputError(join(path, "start_ms"), f"must not be negative, got {start}")
    events = array(top["events"], join(path, "events"),
                   lambda v, p: FORM.tagged_from_json(v, EVENT_CLASSES, p))
    return RunInput(config, topics, start, events)


def run_output_to_json(run: RunOutput) -> dict[str, Any]:
    return {"outputs": [to_json(o, tag=False) for o in run.outputs], "view": to_json(run.view, tag=False)}


def run_output_from_json(doc: Any, path: str = "output") -> RunOutput:
    top = body(doc, path, ("outputs", "view"), required=("outputs", "view"))
    outputs = array(top["outputs"], join(path, "outputs"), lambda v, p: from_json_as(sg.Output, v, p))
    view = from_json_as(sg.ShareCoordinatorView, top["view"], join(path, "view"))
    return RunOutput(outputs, view)

"""The JSON form of the share consumer's membership vocabulary (machine ``share_consumer``).

``dataclass_json``'s form over :mod:`groupspec.types.share_consumer` and the heartbeat classes of
:mod:`groupspec.types.share_group`; docs/conformance.md, "Machine share_consumer", states it.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from groupspec.conformance.dataclass_json import DataclassForm, array, body, join
from groupspec.types import share_consumer as sc
from groupspec.types import share_group as sg
from groupspec.types.errors import InputError

EVENT_CLASSES: tuple[type, ...] = typing.get_args(sc.ShareConsumerEvent)
FORM = DataclassForm(sc, (), "share consumer", also=(sg,))
to_json = FORM.to_json
from_json_as = FORM.from_json_as


@dataclasses.dataclass(frozen=True)
class RunInput:
    config: sc.ShareConsumerConfig
    start_ms: int
    events: tuple[sc.ShareConsumerEvent, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    outputs: tuple[sc.ClientOutput, ...]
    view: sc.ClientView


def run_input_to_json(run: RunInput) -> dict[str, Any]:
    return {
        "config": to_json(run.config, tag=False),
        "start_ms": run.start_ms,
        "events": [to_json(e) for e in run.events],
    }


def run_input_from_json(doc: Any, path: str = "input") -> RunInput:
    top = body(doc, path, ("config", "start_ms", "events"), required=("events",))
    config = sc.ShareConsumerConfig()
    if "config" in top:
        config = from_json_as(sc.ShareConsumerConfig, top["config"], join(path, "config"))
        for name in ("max_poll_interval_ms", "retry_backoff_ms"):
            if getattr(config, name) < 1:
                raise InputError(
                    join(join(path, "config"), name), f"must be at least 1, got {getattr(config, name)}"
                )
    start = FORM.value_from_json(int, top.get("start_ms", 0), join(path, "start_ms"))
    if start < 0:
        raise InputError(join(path, "start_ms"), f"must not be negative, got {start}")
    events = array(
        top["events"], join(path, "events"), lambda v, p: FORM.tagged_from_json(v, EVENT_CLASSES, p)
    )
    return RunInput(config, start, events)


def run_output_to_json(run: RunOutput) -> dict[str, Any]:
    return {"outputs": [to_json(o, tag=False) for o in run.outputs], "view": to_json(run.view, tag=False)}


def run_output_from_json(doc: Any, path: str = "output") -> RunOutput:
    top = body(doc, path, ("outputs", "view"), required=("outputs", "view"))
    outputs = array(top["outputs"], join(path, "outputs"), lambda v, p: from_json_as(sc.ClientOutput, v, p))
    view = from_json_as(sc.ClientView, top["view"], join(path, "view"))
    return RunOutput(outputs, view)

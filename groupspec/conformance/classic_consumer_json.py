"""The JSON form of the classic consumer's client vocabulary (machine ``classic_consumer``).

:mod:`groupspec.conformance.vocabulary_json` over :mod:`groupspec.types.classic_consumer`, the
requests and answers of :mod:`groupspec.types.classic_group`, and the two consumer-protocol
structs that stand for the member metadata and assignment bytes.
"""

from __future__ import annotations

import dataclasses

from groupspec.conformance.vocabulary_json import JsonForm, RunForm
from groupspec.types import classic_consumer as cc
from groupspec.types import classic_group as cg
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

FORM = JsonForm("classic consumer", (cc, cg),
                extra=(ConsumerProtocolSubscription, ConsumerProtocolAssignment), responses=())


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunInput:
    config: cc.Config = dataclasses.field(default_factory=cc.Config)
    events: tuple[cc.Event, ...]


@dataclasses.dataclass(frozen=True)
class RunOutput:
    #: What the client did at each event, in order.
    outputs: tuple[tuple[cc.Output, ...], ...]
    view: cc.View


#: The config's integers (heartbeat interval, timeouts) are at least 1.
RUN = RunForm(FORM, RunInput, RunOutput, at_least={"config": 1})
run_input_to_json, run_input_from_json = RUN.input_to_json, RUN.input_from_json
run_output_to_json, run_output_from_json = RUN.output_to_json, RUN.output_from_json

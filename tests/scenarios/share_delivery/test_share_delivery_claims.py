"""The catalogue's claims (tests/scenarios/share_delivery/cases.py, ``shows``) hold for the spec's
answer, and both layers answer every case alike (the vectors' test, tests/scenarios/test_cases.py,
judges them against the committed vectors)."""

from __future__ import annotations

import icontract
import pytest

from groupspec.impl.share_delivery import ShareDeliveryConsumer
from groupspec.spec import share_delivery as spec
from groupspec.types import InputError
from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    AcknowledgeAnswered,
    AcknowledgePartition,
    DeliveryEvent,
)
from tests.scenarios.share_delivery.cases import Case, all_cases

CASES = all_cases()


def test_the_catalogue_has_its_cases() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) and 15 <= len(names) <= 40


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_claims(case: Case) -> None:
    state = spec.initial_state(case.config)
    consumer = ShareDeliveryConsumer(case.config)
    outputs = []
    for event in case.events:
        state, out = spec.step(state, event)
        assert consumer.handle(event) == out, event
        outputs.append(out)
    assert consumer.view() == spec.view(state)
    for claim in case.shows:
        value = getattr(outputs[claim.event], claim.field)
        present = value is not None if claim.field == "committed" else value not in (None, ())
        assert present == claim.present, f"event {claim.event}: {claim.field} = {value!r}"


@pytest.mark.parametrize("event", [
    AcknowledgeAnswered(Errors.SHARE_SESSION_NOT_FOUND),
    AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 0, Errors.REQUEST_TIMED_OUT),)),
], ids=["retried_error", "retried_partition_error"])
def test_what_is_not_modelled_is_refused(event: DeliveryEvent) -> None:
    """The ShareAcknowledge errors Kafka retries are outside the model: the vectors'
    input check, the implementation and the spec's precondition refuse them."""
    from groupspec.conformance.share_delivery_json import RunInput, run_input_from_json, run_input_to_json

    doc = run_input_to_json(RunInput(events=(event,)))
    with pytest.raises(InputError, match=r"input\.events\[0\]"):
        run_input_from_json(doc)
    with pytest.raises(InputError):
        ShareDeliveryConsumer().handle(event)
    with pytest.raises(icontract.ViolationError):
        spec.step(spec.initial_state(), event)

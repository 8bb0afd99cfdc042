"""The catalogue's claims (tests/scenarios/share_delivery/cases.py, ``shows``) hold for the spec's
answer, and both layers answer every case alike (the vectors' test, tests/scenarios/test_cases.py,
judges them against the committed vectors)."""

from __future__ import annotations

import pytest

from groupspec.impl.share_delivery import ShareDeliveryConsumer
from groupspec.spec import share_delivery as spec
from tests.scenarios.share_delivery.cases import Case, all_cases

CASES = all_cases()


def test_the_catalogue_has_its_cases() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)) and 15 <= len(names) <= 30


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

"""Each catalogued case on both layers: the outputs at every step, and the claimed end states."""

from __future__ import annotations

import pytest

from tests.scenarios.classic_consumer.cases import CASES, Case
from tests.scenarios.classic_consumer.targets import LAYERS, Client


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Case, layer: str) -> None:
    client = Client(layer, case.config)
    for i, step in enumerate(case.steps):
        out = client.send(step.event)
        assert out == step.shows, f"step {i} ({type(step.event).__name__}) of {case.name}"
        view = client.view()
        if step.ends is not None:
            assert view.state is step.ends, f"step {i} of {case.name}"
        if step.expect_epoch is not None:
            assert view.generation == step.expect_epoch, f"step {i} of {case.name}"


def test_every_case_claims_something() -> None:
    for case in CASES:
        assert any(s.shows or s.ends or s.expect_epoch is not None for s in case.steps), case.name

"""Each catalogued case on both layers: the outputs at every step, and the claimed end states."""

from __future__ import annotations

import pytest

from groupspec.types.classic_consumer import Close, Config, Consumed, Poll, Subscribe
from groupspec.types.errors import InputError
from tests.scenarios.classic_consumer.cases import AUTO, CASES, Case, _stable
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


@pytest.mark.parametrize("layer", LAYERS)
def test_no_call_while_close_waits_for_its_commit(layer: str) -> None:
    """close() blocks the application until its commit is answered: a run that calls the
    consumer meanwhile cannot happen, and is refused by name rather than given an answer."""
    client = Client(layer, AUTO)
    for step in _stable(AUTO, ("t", 0)):
        client.send(step.event)
    client.send(Consumed(((("t", 0), 9),)))
    assert client.send(Close())  # the commit goes; the close waits
    for call in (Poll(1), Subscribe(("u",)), Close()):
        with pytest.raises(InputError, match="blocked in close"):
            client.send(call)
    assert client.view().closing and not client.view().closed


def test_close_refuses_an_unknown_operation() -> None:
    with pytest.raises(InputError, match="operation"):
        Close("LEAVE")
    assert Config().enable_auto_commit is False  # the model's default (Kafka's is true)

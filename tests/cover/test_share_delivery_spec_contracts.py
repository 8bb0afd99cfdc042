"""The share_delivery spec's own checks on what it sends, held to the outputs they refuse.

The spec never produces such an output, so neither the vectors nor the scenarios can tell a
weakened check from the real one: these hand the checks the wrong outputs directly."""

from __future__ import annotations

import pytest

from groupspec.spec import share_delivery as spec
from groupspec.types.share_delivery import (
    AcknowledgementBatch,
    AcknowledgementMode,
    AcknowledgeType,
    DeliveryConfig,
    DeliveryOutput,
    Partition,
    PartitionAcknowledgements,
    Record,
    Request,
    ShareAcknowledgeSent,
    ShareFetchSent,
)

BEFORE = spec.State(DeliveryConfig(AcknowledgementMode.EXPLICIT),
                    delivered=(Record("t", 0, 3, 1), Record("t", 0, 4, 1)))
HELD = (PartitionAcknowledgements("t", 0, (AcknowledgementBatch(3, 4, (1,)),)),)


def _fetch(epoch: int, acks: tuple[PartitionAcknowledgements, ...] = ()) -> DeliveryOutput:
    return DeliveryOutput(sent=ShareFetchSent(epoch, (), (), acks))


def _acknowledge(epoch: int, kind: Request) -> DeliveryOutput:
    return DeliveryOutput(sent=ShareAcknowledgeSent(epoch, kind, HELD))


@pytest.mark.parametrize(("out", "well"), [
    (DeliveryOutput(), True),
    (_fetch(0), True),
    (_fetch(3, HELD), True),
    (_fetch(-1), False),  # no fetch closes
    (_fetch(0, HELD), False),  # a new session carries no acknowledgements
    (_acknowledge(2, Request.COMMIT_SYNC), True),
    (_acknowledge(-1, Request.CLOSE), True),
    (_acknowledge(0, Request.COMMIT_ASYNC), False),  # a ShareAcknowledge cannot open a session
    (_acknowledge(-1, Request.COMMIT_SYNC), False),  # -1 is the close's alone
    (_acknowledge(2, Request.CLOSE), False),  # a close goes at -1
    (_acknowledge(-2, Request.CLOSE), False),  # no epoch below -1
])
def test_sent_well(out: DeliveryOutput, well: bool) -> None:
    assert spec._sent_well(BEFORE, out) is well


def test_held_records_only() -> None:
    assert spec._held_records_only(BEFORE, DeliveryOutput())
    assert spec._held_records_only(BEFORE, _acknowledge(2, Request.COMMIT_SYNC))
    for first, last in ((5, 5), (4, 5), (2, 3)):
        unheld = (PartitionAcknowledgements("t", 0, (AcknowledgementBatch(first, last, (1,)),)),)
        out = DeliveryOutput(sent=ShareAcknowledgeSent(2, Request.COMMIT_SYNC, unheld))
        assert not spec._held_records_only(BEFORE, out), (first, last)
    # Offsets the application marked, or that ride on the next fetch, count as held too.
    riding = spec.State(BEFORE.config, riding={Partition("t", 0): {5: AcknowledgeType.ACCEPT}})
    late = (PartitionAcknowledgements("t", 0, (AcknowledgementBatch(5, 5, (1,)),)),)
    assert spec._held_records_only(riding, _fetch(2, late))


EXPLICIT_POLL = "explicit mode: a poll returns records only with the last batch all taken"


def _explicit_poll_holds(mode: AcknowledgementMode, returned: bool, marked: bool) -> bool:
    """``step``'s explicit-mode postcondition on a result whose poll returned records or not,
    with marks left in the state or not."""
    (contract,) = [c for c in spec.step.__postconditions__  # type: ignore[attr-defined]
                   if c.description == EXPLICIT_POLL]
    state = spec.State(DeliveryConfig(mode),
                       marked={Partition("t", 0): {3: AcknowledgeType.ACCEPT}} if marked else {})
    out = DeliveryOutput(records=(Record("t", 0, 5, 1),) if returned else ())
    return bool(contract.condition(result=(state, out)))


@pytest.mark.parametrize(("mode", "returned", "marked", "holds"), [
    (AcknowledgementMode.EXPLICIT, True, True, False),  # records returned over marks not yet taken
    (AcknowledgementMode.EXPLICIT, True, False, True),
    (AcknowledgementMode.EXPLICIT, False, True, True),
    (AcknowledgementMode.EXPLICIT, False, False, True),
    (AcknowledgementMode.IMPLICIT, True, True, True),  # implicit mode is not held to it
])
def test_explicit_poll_postcondition(mode: AcknowledgementMode, returned: bool, marked: bool,
                                     holds: bool) -> None:
    assert _explicit_poll_holds(mode, returned, marked) is holds

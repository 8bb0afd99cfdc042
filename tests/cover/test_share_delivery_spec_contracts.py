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

"""The consumer's words and the share partition's meet in groupspec/delivery_wire.py: a request's
acknowledgements become one Acknowledge a partition with the same batches, and the history
spells each offset with its own type and its own partition's outcome."""

from __future__ import annotations

from groupspec import delivery_wire as wire
from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    AcknowledgeAnswered,
    AcknowledgementBatch,
    AcknowledgePartition,
    FetchAnswered,
    FetchPartition,
    Partition,
    PartitionAcknowledgements,
)
from groupspec.types.share_partition import AckBatch, Acknowledge

ACKS = (PartitionAcknowledgements("t", 0, (AcknowledgementBatch(0, 2, (1,)),
                                           AcknowledgementBatch(5, 7, (1, 2, 3)))),
        PartitionAcknowledgements("t", 1, (AcknowledgementBatch(4, 4, (3,)),)))


def test_acknowledgements_become_one_event_a_partition_with_the_same_batches() -> None:
    assert wire.acknowledge_events("m", ACKS) == [
        (Partition("t", 0), Acknowledge("m", (AckBatch(0, 2, (1,)), AckBatch(5, 7, (1, 2, 3))))),
        (Partition("t", 1), Acknowledge("m", (AckBatch(4, 4, (3,)),))),
    ]


def test_the_history_spells_every_offset_with_its_type_and_its_partitions_outcome() -> None:
    items = wire.history_acknowledgements(ACKS)
    assert items == [["t", 0, 0, "ACCEPT"], ["t", 0, 1, "ACCEPT"], ["t", 0, 2, "ACCEPT"],
                     ["t", 0, 5, "ACCEPT"], ["t", 0, 6, "RELEASE"], ["t", 0, 7, "REJECT"],
                     ["t", 1, 4, "REJECT"]]
    kind, value = wire.acknowledgement_outcome(items, FetchAnswered(partitions=(
        FetchPartition("t", 0, (), Errors.NONE),)))
    # A partition the answer leaves out completes with INVALID_RECORD_STATE, as the client does.
    assert kind == "ok" and value is not None
    assert [v[3] for v in value] == ["NONE"] * 6 + ["INVALID_RECORD_STATE"]
    kind, value = wire.acknowledgement_outcome(items, AcknowledgeAnswered(partitions=(
        AcknowledgePartition("t", 0, Errors.INVALID_RECORD_STATE), AcknowledgePartition("t", 1))))
    assert value is not None and [v[3] for v in value] == ["INVALID_RECORD_STATE"] * 6 + ["NONE"]
    refused = FetchAnswered(Errors.SHARE_SESSION_NOT_FOUND)
    assert wire.acknowledgement_outcome(items, refused) == ("fail", None)

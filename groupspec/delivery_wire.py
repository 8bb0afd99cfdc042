"""The one place where the consumer's words meet the share partition's.

Why a module of its own: machine share_delivery speaks as Kafka's client does (a ShareFetch with
acknowledgements per partition, a FetchAnswered with acquired ranges), machine share_partition as
Kafka's ``SharePartition`` does (one ``Fetch`` or ``Acknowledge`` event per partition, a
``FetchResponse``). The end-to-end simulation and its benchmark translate between the two here and
nowhere else, so a mismatch of vocabulary is found in one small file. It also spells the
acknowledgements in the history's shape (``groupspec.share_delivery_check``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    AcknowledgeAnswered,
    AcknowledgePartition,
    AcknowledgeType,
    AcquiredRecords,
    FetchAnswered,
    FetchPartition,
    Partition,
    PartitionAcknowledgements,
)
from groupspec.types.share_partition import AckBatch, Acknowledge, Fetch, FetchResponse, LogBatch


def acknowledge_events(member_id: str, acks: tuple[PartitionAcknowledgements, ...]
                       ) -> list[tuple[Partition, Acknowledge]]:
    """A request's acknowledgements as one share partition ``Acknowledge`` event per partition
    (the batches carry the same wire ids on both sides)."""
    return [(Partition(a.topic, a.partition),
             Acknowledge(member_id, tuple(AckBatch(b.first_offset, b.last_offset, b.acknowledge_types)
                                          for b in a.batches)))
            for a in acks]


def fetch_event(member_id: str, fetch_offset: int, log: tuple[LogBatch, ...], max_records: int) -> Fetch:
    """The broker's ``SharePartition#acquire`` call for one partition of a ShareFetch: the log
    read from the partition's next fetch offset, MaxRecords and BatchSize both the consumer's
    ``max.poll.records``."""
    return Fetch(member_id, fetch_offset, log, max_records, max_records)


def fetch_partition(p: Partition, response: FetchResponse | None,
                    acknowledge_error: Errors = Errors.NONE) -> FetchPartition:
    acquired = () if response is None else tuple(
        AcquiredRecords(a.first_offset, a.last_offset, a.delivery_count) for a in response.acquired)
    return FetchPartition(p.topic, p.partition, acquired, acknowledge_error)


def fetch_answered(partitions: list[FetchPartition], error: Errors = Errors.NONE) -> FetchAnswered:
    return FetchAnswered(error, tuple(partitions))


def acknowledge_answered(errors: dict[Partition, Errors]) -> AcknowledgeAnswered:
    return AcknowledgeAnswered(Errors.NONE, tuple(AcknowledgePartition(p.topic, p.partition, e)
                                                  for p, e in sorted(errors.items())))


# -- the history's spelling ------------------------------------------------------------------------


Copy = Callable[[str, int, int], tuple[int, int]]


def history_acknowledgements(acks: tuple[PartitionAcknowledgements, ...],
                             copy: Copy | None = None) -> list[list[Any]]:
    """``[[topic, partition, offset, type], ...]``: one item per offset, a batch of one type
    spelled out over its range. With ``copy`` (the delivered copy each offset's acknowledgement
    was given for, as its delivery count and the index of the poll that handed it out) each
    item carries both after the type, so the checker can tell two copies of one record apart."""
    out: list[list[Any]] = []
    for a in acks:
        for b in a.batches:
            for offset in range(b.first_offset, b.last_offset + 1):
                wire = b.acknowledge_types[0] if len(b.acknowledge_types) == 1 else \
                    b.acknowledge_types[offset - b.first_offset]
                item: list[Any] = [a.topic, a.partition, offset, AcknowledgeType(wire).name]
                if copy is not None:
                    item.extend(copy(a.topic, a.partition, offset))
                out.append(item)
    return out


def acknowledgement_outcome(acks: list[list[Any]], answer: FetchAnswered | AcknowledgeAnswered
                            ) -> tuple[str, list[list[Any]] | None]:
    """The completion of an acknowledge operation from the answer to the request it rode on:
    ``fail`` when the request as a whole was refused (nothing was acknowledged), else ``ok``
    with each offset's partition-level error."""
    if answer.error is not Errors.NONE:
        return "fail", None
    errors: dict[tuple[str, int], Errors] = {}
    if isinstance(answer, FetchAnswered):
        errors = {(p.topic, p.partition): p.acknowledge_error for p in answer.partitions}
    else:
        errors = {(p.topic, p.partition): p.error for p in answer.partitions}
    # A partition the answer leaves out is completed with INVALID_RECORD_STATE by the client.
    return "ok", [[t, p, o, errors.get((t, p), Errors.INVALID_RECORD_STATE).name]
                  for t, p, o in (item[:3] for item in acks)]

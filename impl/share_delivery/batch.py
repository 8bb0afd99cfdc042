"""What the application holds: the records of its last poll and the acknowledgements it gave
them (Kafka's ``Acknowledgements``, ``ShareInFlightBatch`` and ``ShareFetch``)."""

from __future__ import annotations

from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    AcknowledgementBatch,
    AcknowledgeType,
    CallbackInvocation,
    Partition,
    Record,
)

#: Acknowledgements.MAX_RECORDS_WITH_SAME_ACKNOWLEDGE_TYPE
MAX_RECORDS_WITH_SAME_ACKNOWLEDGE_TYPE = 10


class Acknowledgements:
    """One partition's acknowledgements by offset, and how they complete.

    ``copies`` keeps the delivered record each acknowledgement was given for. Kafka's wire names
    offsets only, and so do the requests built here; but a consumer may hold two copies of one
    offset (one fetched before a broker restart, one after), and a history of what was
    acknowledged must say which (groupspec.share_delivery_check judges per delivered copy)."""

    def __init__(self) -> None:
        self.types: dict[int, AcknowledgeType] = {}
        self.copies: dict[int, Record] = {}

    def add(self, offset: int, type_: AcknowledgeType, copy: Record | None = None) -> None:
        self.types[offset] = type_
        self._keep(offset, copy)

    def add_if_absent(self, offset: int, type_: AcknowledgeType, copy: Record | None = None) -> bool:
        if offset in self.types:
            return False
        self.types[offset] = type_
        self._keep(offset, copy)
        return True

    def _keep(self, offset: int, copy: Record | None) -> None:
        if copy is not None:
            self.copies[offset] = copy
        else:
            self.copies.pop(offset, None)

    def merge(self, other: Acknowledgements) -> Acknowledgements:
        """The later acknowledgement of an offset wins, with the copy it was given for."""
        for offset in other.types:
            self.copies.pop(offset, None)
        self.types.update(other.types)
        self.copies.update(other.copies)
        return self

    def is_empty(self) -> bool:
        return not self.types

    def offsets(self) -> tuple[int, ...]:
        return tuple(sorted(self.types))

    def batches(self) -> tuple[AcknowledgementBatch, ...]:
        """Contiguous offsets make a batch; a long run of one type is cut out into its own;
        a batch of one type carries it once (``getAcknowledgementBatches``)."""
        out: list[AcknowledgementBatch] = []
        offsets = sorted(self.types)
        i = 0
        while i < len(offsets):
            j = i
            while j + 1 < len(offsets) and offsets[j + 1] == offsets[j] + 1:
                j += 1
            out.extend(self._optimised(offsets[i], [self.types[o].value for o in offsets[i:j + 1]]))
            i = j + 1
        return tuple(out)

    @staticmethod
    def _optimised(first: int, ids: list[int]) -> list[AcknowledgementBatch]:
        pieces: list[tuple[int, list[int]]] = []
        start = 0  # index where the current piece begins
        same = 1
        k = 1
        while k < len(ids):
            if ids[k] == ids[k - 1] and same >= MAX_RECORDS_WITH_SAME_ACKNOWLEDGE_TYPE:
                while k < len(ids) and ids[k] == ids[k - 1]:
                    k += 1
                    same += 1
                run_start = k - same
                if run_start > start:
                    pieces.append((first + start, ids[start:run_start]))
                pieces.append((first + run_start, ids[run_start:k]))
                start, same = k, 1
                k += 1
                continue
            same = same + 1 if ids[k] == ids[k - 1] else 1
            k += 1
        if start < len(ids):
            pieces.append((first + start, ids[start:]))
        return [AcknowledgementBatch(at, at + len(p) - 1, tuple(p[:1]) if len(set(p)) == 1 else tuple(p))
                for at, p in pieces]


class InFlightBatch:
    """One partition's records of the last poll, held until acknowledged and taken."""

    def __init__(self, partition: Partition) -> None:
        self.partition = partition
        self.in_flight: dict[int, Record] = {}
        self.acknowledged: set[int] = set()
        self.acknowledgements = Acknowledgements()
        #: Taken with a RENEW mark, waiting for the acknowledgements to complete.
        self.renewing: dict[int, Record] = {}
        #: Renewed, waiting for a poll to put them back in flight.
        self.renewed: dict[int, Record] = {}

    def acknowledge(self, offset: int, type_: AcknowledgeType) -> bool:
        if offset not in self.in_flight:
            return False
        self.acknowledgements.add(offset, type_, self.in_flight[offset])
        self.acknowledged.add(offset)
        return True

    def acknowledge_all(self, type_: AcknowledgeType) -> None:
        for offset, record in self.in_flight.items():
            if self.acknowledgements.add_if_absent(offset, type_, record):
                self.acknowledged.add(offset)

    def all_acknowledged(self) -> bool:
        return len(self.in_flight) == len(self.acknowledged)

    def take_acknowledged(self) -> Acknowledgements:
        for offset in self.acknowledged:
            if self.acknowledgements.types.get(offset) is AcknowledgeType.RENEW:
                self.renewing[offset] = self.in_flight[offset]
            del self.in_flight[offset]
        self.acknowledged.clear()
        taken, self.acknowledgements = self.acknowledgements, Acknowledgements()
        return taken

    def renew(self, completed: CallbackInvocation) -> None:
        """Completed acknowledgements: a renewing record among them is renewed if they
        succeeded, dropped if not."""
        for offset in completed.offsets:
            record = self.renewing.pop(offset, None)
            if record is not None and completed.error is Errors.NONE:
                self.renewed[offset] = record

    def has_renewals(self) -> bool:
        return bool(self.renewing or self.renewed)

    def take_renewals(self) -> None:
        """Renewed records are in flight again, kept in offset order (a TreeMap in Kafka)."""
        merged = {**self.in_flight, **self.renewed}
        self.in_flight = {o: merged[o] for o in sorted(merged)}
        self.renewed.clear()


class ShareFetch:
    """The records one poll returned, by partition."""

    def __init__(self) -> None:
        self.batches: dict[Partition, InFlightBatch] = {}

    def add(self, record: Record) -> None:
        p = Partition(record.topic, record.partition)
        self.batches.setdefault(p, InFlightBatch(p)).in_flight[record.offset] = record

    def records(self) -> tuple[Record, ...]:
        return tuple(r for b in self.batches.values() for r in b.in_flight.values())

    def is_empty(self) -> bool:
        return not any(b.in_flight for b in self.batches.values())

    def acknowledge(self, partition: Partition, offset: int, type_: AcknowledgeType) -> bool:
        batch = self.batches.get(partition)
        return batch is not None and batch.acknowledge(offset, type_)

    def acknowledge_all(self, type_: AcknowledgeType) -> None:
        for batch in self.batches.values():
            batch.acknowledge_all(type_)

    def check_all_in_flight_acknowledged(self) -> bool:
        return all(b.all_acknowledged() for b in self.batches.values())

    def renew(self, completed: CallbackInvocation) -> None:
        batch = self.batches.get(Partition(completed.topic, completed.partition))
        if batch is not None:
            batch.renew(completed)

    def has_renewals(self) -> bool:
        return any(b.has_renewals() for b in self.batches.values())

    def take_renewed_records(self) -> None:
        for batch in self.batches.values():
            batch.take_renewals()

    def take_acknowledged_records(self) -> dict[Partition, Acknowledgements]:
        out: dict[Partition, Acknowledgements] = {}
        for p, batch in self.batches.items():
            acks = batch.take_acknowledged()
            if not acks.is_empty():
                out[p] = acks
        return out

"""One driver for both layers of the share partition, for scenario tests."""

from __future__ import annotations

from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.spec import share_partition as spec
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    AcknowledgeResponse,
    AdvanceClock,
    FetchResponse,
    LogBatch,
    MoveLogStart,
    Output,
    PersistedState,
    RecordState,
    ReleaseMember,
    ReleaseResponse,
    SetPersisterError,
    SharePartitionConfig,
    SharePartitionEvent,
    SharePartitionView,
    StateWrite,
)
from groupspec.types.share_partition import Fetch as FetchEvent

LAYERS = ("spec", "impl")
M1 = "member-1"
#: SharePartitionTest's defaults (docs/reference/share-partition-kafka.md §16).
TEST_CONFIG = SharePartitionConfig(delivery_count_limit=5, max_in_flight_records=200,
                                   record_lock_duration_ms=30_000)

AV, ACQ, ACK, ARCH = (RecordState.AVAILABLE, RecordState.ACQUIRED, RecordState.ACKNOWLEDGED,
                      RecordState.ARCHIVED)


class Partition:
    def __init__(self, layer: str, config: SharePartitionConfig = TEST_CONFIG,
                 persisted: PersistedState = PersistedState(), latest_offset: int = 0) -> None:  # noqa: B008
        self.layer = layer
        self.index = 0
        self.outputs: list[Output] = []
        if layer == "spec":
            self._state = spec.initial_state(config, persisted, 0, latest_offset)
        else:
            self._impl = SharePartitionMachine(config, persisted, latest_offset=latest_offset)

    def send(self, event: SharePartitionEvent) -> object | None:
        index = self.index
        self.index += 1
        if self.layer == "spec":
            self._state, out = spec.step(self._state, event, index)
        else:
            out = self._impl.handle(event, index)
        self.outputs.append(out)
        return out.answers[0].response if out.answers else None

    def fetch(self, fetch_offset: int, *log: tuple[int, int], member: str = M1, max_records: int = 500,
              batch_size: int = 500) -> tuple[list[tuple[int, int, int]], int]:
        """Acquire from the log batches (base, last); returns ([(first, last, dc)], count)."""
        response = self.send(FetchEvent(member, fetch_offset, tuple(LogBatch(b, last) for b, last in log),
                                        max_records, batch_size))
        assert isinstance(response, FetchResponse)
        return [(a.first_offset, a.last_offset, a.delivery_count) for a in response.acquired], response.count

    def ack(self, *batches: tuple[int, int, int | tuple[int, ...]], member: str = M1) -> Errors:
        """Acknowledge (first, last, type or per-offset types)."""
        acks = tuple(AckBatch(f, last, t if isinstance(t, tuple) else (t,)) for f, last, t in batches)
        response = self.send(Acknowledge(member, acks))
        assert isinstance(response, AcknowledgeResponse)
        return response.error

    def release(self, member: str = M1) -> Errors:
        response = self.send(ReleaseMember(member))
        assert isinstance(response, ReleaseResponse)
        return response.error

    def move_log_start(self, offset: int) -> None:
        self.send(MoveLogStart(offset))

    def advance(self, by_ms: int) -> None:
        self.send(AdvanceClock(self.view().now_ms + by_ms))

    def fail_writes(self, error: Errors) -> None:
        self.send(SetPersisterError(error))

    def view(self) -> SharePartitionView:
        return spec.view(self._state) if self.layer == "spec" else self._impl.view()

    @property
    def nfo(self) -> int:
        return self.view().next_fetch_offset

    @property
    def spso(self) -> int:
        return self.view().start_offset

    @property
    def end(self) -> int:
        return self.view().end_offset

    def rec(self, offset: int) -> tuple[RecordState, int, str]:
        for r in self.view().records:
            if r.offset == offset:
                return r.state, r.delivery_count, r.member_id
        raise KeyError(offset)

    def batches(self) -> list[tuple[int, int, bool]]:
        return [(b.first_offset, b.last_offset, b.split) for b in self.view().batches]

    def locks(self) -> int:
        """How many acquisition locks are running: one per unsplit batch, one per split offset."""
        view = self.view()
        locks = set()
        for r in view.records:
            if r.lock_deadline_ms is None:
                continue
            batch = next(b for b in view.batches if b.first_offset <= r.offset <= b.last_offset)
            locks.add(r.offset if batch.split else batch.first_offset)
        return len(locks)

    def writes(self) -> list[StateWrite]:
        return [w for out in self.outputs for w in out.writes]

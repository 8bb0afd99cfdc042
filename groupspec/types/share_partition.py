"""The share partition's words: record states, acknowledge types, events, responses, persister writes.

A share partition (KIP-932, Kafka's ``SharePartition``) tracks the in-flight records of one
(share group, topic partition): which member holds which offset, how often each was delivered,
where the share-partition start offset (SPSO) is. The spec (``groupspec.spec.share_partition``)
and the implementation (``groupspec.impl.share_partition``) take the same events and answer the same
values, so a test can drive both and compare.

The log is an input: a :class:`Fetch` carries the log batches the broker read (first and last
offset of each), exactly what Kafka hands to ``SharePartition#acquire``. The persister (Kafka's
share coordinator behind ``Persister``) is part of the machine: writes go to it synchronously and
its answer (success, or an injected error) is known within the step.

Names and numbers follow Kafka 4.x trunk (docs/reference/share-partition-kafka.md, "L3").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from groupspec.types.errors import Errors, InputError


class RecordState(IntEnum):
    """``RecordState``: the wire ids used in persisted state batches."""

    AVAILABLE = 0
    ACQUIRED = 1
    ACKNOWLEDGED = 2
    ARCHIVED = 4

    @property
    def terminal(self) -> bool:
        return self in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED)


class AcknowledgeType(IntEnum):
    """The acknowledgement byte of ShareFetch/ShareAcknowledge; 0 marks an offset with no record."""

    GAP = 0
    ACCEPT = 1
    RELEASE = 2
    REJECT = 3
    RENEW = 4


#: The member id of a record nobody holds (``SharePartition.EMPTY_MEMBER_ID`` in trunk).
EMPTY_MEMBER_ID = ""


@dataclass(frozen=True)
class SharePartitionConfig:
    """The broker settings a share partition is created with (``ShareGroupConfig`` defaults).

    ``max_in_flight_records`` is group.share.partition.max.record.locks (range 100..10000 on a
    broker; any positive value is accepted here, as Kafka's own tests do).
    """

    delivery_count_limit: int = 5
    max_in_flight_records: int = 2_000
    record_lock_duration_ms: int = 30_000

    @property
    def throttle_limit(self) -> int:
        """T = max(2, ceil(limit / 2)): from this delivery count on, a batch is handed out in halves."""
        return max(2, -(-self.delivery_count_limit // 2))


# ---------------------------------------------------------------------------------------------
# Persisted state
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PersisterBatch:
    """One state batch as the share coordinator stores and returns it (``PersisterStateBatch``)."""

    first_offset: int
    last_offset: int
    delivery_state: RecordState
    delivery_count: int


@dataclass(frozen=True)
class PersistedState:
    """What a ReadShareGroupState returns: the SPSO, the state epoch and the state batches.

    ``start_offset`` -1 means "never initialized": the share partition then starts at
    ``share.auto.offset.reset`` (given to it as the log's latest offset).
    """

    state_epoch: int = 0
    start_offset: int = 0
    batches: tuple[PersisterBatch, ...] = ()


def check_persisted(config: SharePartitionConfig, persisted: PersistedState) -> None:
    """Refuse a persisted state no healthy share coordinator with this config could hold.

    The state epoch is the group epoch the group coordinator initialized the state with, so never
    negative; a write carrying -1 is not checked against it (ShareCoordinatorShard), which a
    stored -1 would turn into a share partition whose writes no reset could fence.
    """
    _integer("persisted.state_epoch", persisted.state_epoch, 0, INT32_MAX)
    if persisted.start_offset < -1 or (persisted.start_offset == -1 and persisted.batches):
        raise InputError("persisted.start_offset", "must be >= 0, or -1 with no state batches")
    previous = persisted.start_offset - 1
    for i, b in enumerate(persisted.batches):
        where = f"persisted.batches[{i}]"
        if b.first_offset < persisted.start_offset:
            raise InputError(where, f"starts below the start offset {persisted.start_offset}")
        if b.first_offset > b.last_offset or b.first_offset <= previous:
            raise InputError(where, "state batches must be sorted, non-empty and not overlap")
        if b.delivery_state == RecordState.ACQUIRED:
            raise InputError(where, "ACQUIRED is never persisted (a lock does not survive a load)")
        if b.delivery_count < 0 or (b.delivery_state == RecordState.AVAILABLE
                                    and b.delivery_count >= config.delivery_count_limit):
            raise InputError(where, f"delivery count {b.delivery_count} is not possible for "
                             f"{b.delivery_state.name} with limit {config.delivery_count_limit}")
        previous = b.last_offset


@dataclass(frozen=True)
class StateWrite:
    """One WriteShareGroupState the share partition sent, and the persister's answer."""

    start_offset: int
    state_epoch: int
    leader_epoch: int
    batches: tuple[PersisterBatch, ...]
    error: Errors = Errors.NONE


#: The share-partition key a lone share partition (a machine run, a vector) is persisted under
#: in the share coordinator that both layers persist through.
LONE_GROUP = "share-group"
LONE_TOPIC_ID = "00000000-0000-4000-8000-00000000d1ce"


@dataclass(frozen=True)
class ReadResult:
    """What a ReadShareGroupState answered the share partition: an error, or the state."""

    error: Errors
    state: PersistedState = PersistedState()


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogBatch:
    """A record batch read from the partition's log: its base offset and last offset.

    Offsets inside it may have no record (compaction, control records); a share partition
    acquires them too and the client acknowledges them as gaps.
    """

    base_offset: int
    last_offset: int


@dataclass(frozen=True)
class Fetch:
    """``SharePartition#acquire`` for one ShareFetch: the member, the fetch offset the broker
    read from, the log batches read, and the request's MaxRecords and BatchSize."""

    member_id: str
    fetch_offset: int
    log: tuple[LogBatch, ...]
    max_fetch_records: int = 500
    batch_size: int = 500


@dataclass(frozen=True)
class AckBatch:
    """One acknowledgement batch: one type for the whole range, or one type per offset."""

    first_offset: int
    last_offset: int
    types: tuple[int, ...]


@dataclass(frozen=True)
class Acknowledge:
    """A member's acknowledgements for this partition (ShareAcknowledge or a ShareFetch's)."""

    member_id: str
    batches: tuple[AckBatch, ...]


@dataclass(frozen=True)
class ReleaseMember:
    """The member left or closed its share session: its ACQUIRED records are released."""

    member_id: str


@dataclass(frozen=True)
class MoveLogStart:
    """The log's start offset moved (retention, DeleteRecords): a fetch got OFFSET_OUT_OF_RANGE."""

    log_start_offset: int


@dataclass(frozen=True)
class AdvanceClock:
    """Move the injected clock to ``to_ms``; expired acquisition locks fire in order."""

    to_ms: int


@dataclass(frozen=True)
class SetPersisterError:
    """From now on the persister answers every write (and read) with ``error`` (NONE: healthy)."""

    error: Errors = Errors.NONE


@dataclass(frozen=True)
class FenceLeader:
    """Another broker became the partition's leader and read the state with a higher leader
    epoch: this share partition's writes are fenced (FENCED_LEADER_EPOCH) from now on."""


@dataclass(frozen=True)
class ResetShareState:
    """InitializeShareGroupState (an offsets reset of the group): a new state epoch and start
    offset, no batches; writes with the old state epoch are fenced (FENCED_STATE_EPOCH)."""

    start_offset: int


@dataclass(frozen=True)
class Reload:
    """This broker loads the share partition again (leader failover back, or after it was
    dropped): a new object with the next leader epoch reads the persisted state; locks and
    anything not persisted are gone."""

    #: The log's latest offset, used when the persisted start offset is -1.
    latest_offset: int = 0


@dataclass(frozen=True)
class CanAcquire:
    """A share fetch's question before it reads the log for this partition: may records be
    acquired here now? Kafka's DelayedShareFetch#acquirablePartitions reads the log only for a
    partition that is loaded (its fetch lock refuses any other) and whose canAcquireRecords
    holds: a record to deliver again inside the cache, or room under the in-flight limit
    (core/src/main/java/kafka/server/share/SharePartition.java). A fetch that finds no such
    partition waits instead of answering, so a client sees the difference as a long poll."""


ShareRequest = Fetch | Acknowledge | ReleaseMember | Reload | CanAcquire
SharePartitionEvent = (ShareRequest | MoveLogStart | AdvanceClock | SetPersisterError | FenceLeader
                       | ResetShareState)

# ---------------------------------------------------------------------------------------------
# What Kafka would never hand a share partition
# ---------------------------------------------------------------------------------------------

#: Offsets, times and epochs are int64 on the wire; record counts and sizes int32; an
#: acknowledge type int8.
INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1
#: The widest delivery count limits any configuration allows: the broker's
#: group.share.min.delivery.count.limit is at least 2 and group.share.max.delivery.count.limit
#: at most 25 (ShareGroupConfig); a group's own limit must lie between them.
DELIVERY_COUNT_LIMIT_RANGE = (2, 25)


def _integer(where: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(where, f"expected an integer, got {type(value).__name__}")
    if not low <= value <= high:
        raise InputError(where, f"must be in {low}..{high}, got {value}")
    return value


def _text(where: str, value: object) -> None:
    if not isinstance(value, str):
        raise InputError(where, f"expected a string, got {type(value).__name__}")


def _member(where: str, value: object) -> None:
    """A member id is never empty: the empty id marks a record no member holds (Kafka's
    EMPTY_MEMBER_ID, SharePartition.java), so a member called "" would own what nobody holds."""
    _text(where, value)
    if value == "":
        raise InputError(where, "a member id is never empty (the empty id marks records no member holds)")


def _tuple_of(where: str, value: object, cls: type) -> tuple[object, ...]:
    if not isinstance(value, tuple):
        raise InputError(where, f"expected a tuple of {cls.__name__}, got {type(value).__name__}")
    for i, item in enumerate(value):
        if not isinstance(item, cls):
            raise InputError(f"{where}[{i}]", f"expected a {cls.__name__}, got {type(item).__name__}")
    return value


def check_config(config: object) -> SharePartitionConfig:
    """Refuse settings no broker would run a share partition with.

    Lock durations and the in-flight limit only need to be positive: Kafka's own tests run
    share partitions with 100 ms locks and small limits, below what a broker config allows.
    """
    if not isinstance(config, SharePartitionConfig):
        raise InputError("config", f"expected a SharePartitionConfig, got {type(config).__name__}")
    _integer("config.delivery_count_limit", config.delivery_count_limit, *DELIVERY_COUNT_LIMIT_RANGE)
    _integer("config.max_in_flight_records", config.max_in_flight_records, 1, INT32_MAX)
    _integer("config.record_lock_duration_ms", config.record_lock_duration_ms, 1, INT32_MAX)
    return config


def check_event(event: object) -> None:
    """Refuse an event carrying a value Kafka could not produce; both layers call it first,
    so a refused event changes nothing anywhere.

    Values Kafka does answer stay answers: an acknowledgement of offsets below the start offset
    is skipped, an unknown acknowledge type is INVALID_REQUEST, a MaxRecords of 0 acquires
    nothing. What is refused here never reaches a share partition: a negative fetch or log
    offset, log batches out of order, a start offset below -1 (-1 is "not initialized"), a
    clock or offset past int64, a wrong type.
    """
    match event:
        case Fetch():
            _member("event.member_id", event.member_id)
            _integer("event.fetch_offset", event.fetch_offset, 0, INT64_MAX)
            previous = -1
            for i, b in enumerate(_tuple_of("event.log", event.log, LogBatch)):
                assert isinstance(b, LogBatch)
                _integer(f"event.log[{i}].base_offset", b.base_offset, 0, INT64_MAX)
                _integer(f"event.log[{i}].last_offset", b.last_offset, b.base_offset, INT64_MAX)
                if b.base_offset <= previous:
                    raise InputError(f"event.log[{i}]", "log batches must be in offset order without overlap")
                previous = b.last_offset
            _integer("event.max_fetch_records", event.max_fetch_records, -INT32_MAX - 1, INT32_MAX)
            _integer("event.batch_size", event.batch_size, 1, INT32_MAX)
        case Acknowledge():
            _member("event.member_id", event.member_id)
            for i, b in enumerate(_tuple_of("event.batches", event.batches, AckBatch)):
                assert isinstance(b, AckBatch)
                where = f"event.batches[{i}]"
                _integer(f"{where}.first_offset", b.first_offset, -INT64_MAX - 1, INT64_MAX)
                _integer(f"{where}.last_offset", b.last_offset, -INT64_MAX - 1, INT64_MAX)
                if not isinstance(b.types, tuple):
                    raise InputError(f"{where}.types", f"expected a tuple, got {type(b.types).__name__}")
                for j, t in enumerate(b.types):
                    _integer(f"{where}.types[{j}]", t, -128, 127)
        case ReleaseMember():
            _member("event.member_id", event.member_id)
        case MoveLogStart():
            _integer("event.log_start_offset", event.log_start_offset, 0, INT64_MAX)
        case AdvanceClock():
            _integer("event.to_ms", event.to_ms, 0, INT64_MAX)
        case SetPersisterError():
            if not isinstance(event.error, Errors):
                raise InputError("event.error",
                                 f"expected an Errors member, got {type(event.error).__name__}")
        case FenceLeader():
            pass
        case ResetShareState():
            _integer("event.start_offset", event.start_offset, -1, INT64_MAX)
        case Reload():
            _integer("event.latest_offset", event.latest_offset, 0, INT64_MAX)
        case CanAcquire():
            pass
        case _:
            raise InputError("event", f"{type(event).__name__} is not a share partition event")


# ---------------------------------------------------------------------------------------------
# Responses
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AcquiredRecords:
    first_offset: int
    last_offset: int
    delivery_count: int


@dataclass(frozen=True)
class FetchResponse:
    acquired: tuple[AcquiredRecords, ...] = ()
    #: Offsets acquired, holes included (Kafka's ShareAcquiredRecords count).
    count: int = 0


@dataclass(frozen=True)
class AcknowledgeResponse:
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class ReleaseResponse:
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class ReloadResponse:
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class CanAcquireResponse:
    can_acquire: bool


@dataclass(frozen=True)
class Answer:
    request: int
    response: object


@dataclass(frozen=True)
class Output:
    answers: tuple[Answer, ...] = ()
    writes: tuple[StateWrite, ...] = ()


# ---------------------------------------------------------------------------------------------
# The observable state
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordView:
    offset: int
    state: RecordState
    delivery_count: int
    member_id: str
    #: When the acquisition lock expires; None when no lock is running.
    lock_deadline_ms: int | None


@dataclass(frozen=True)
class RecordRun:
    """Consecutive cached offsets whose records look the same (state, count, holder, lock).

    ``SharePartitionView.records`` lists every offset, so its size is the cache's width; a run
    list is the same information sized by how many different states there are.
    """

    first_offset: int
    last_offset: int
    state: RecordState
    delivery_count: int
    member_id: str
    lock_deadline_ms: int | None


def record_runs(records: Iterable[RecordView]) -> tuple[RecordRun, ...]:
    """A view's records as maximal runs (what ``SharePartitionMachine.record_runs`` answers)."""
    runs: list[RecordRun] = []
    for r in records:
        last = runs[-1] if runs else None
        if (last is not None and last.last_offset + 1 == r.offset
                and (last.state, last.delivery_count, last.member_id, last.lock_deadline_ms)
                == (r.state, r.delivery_count, r.member_id, r.lock_deadline_ms)):
            runs[-1] = RecordRun(last.first_offset, r.offset, r.state, r.delivery_count, r.member_id,
                                 r.lock_deadline_ms)
        else:
            runs.append(RecordRun(r.offset, r.offset, r.state, r.delivery_count, r.member_id,
                                  r.lock_deadline_ms))
    return tuple(runs)


@dataclass(frozen=True)
class BatchView:
    """A cached in-flight batch: its range and whether it keeps per-offset state."""

    first_offset: int
    last_offset: int
    split: bool


@dataclass(frozen=True)
class SharePartitionView:
    now_ms: int
    #: "ACTIVE", or "FAILED" after a reload whose read failed.
    status: str
    leader_epoch: int
    state_epoch: int
    start_offset: int
    end_offset: int
    next_fetch_offset: int
    batches: tuple[BatchView, ...]
    records: tuple[RecordView, ...]
    #: (gap start, end offset) of the persisted state's first gap while it is still being filled.
    gap_window: tuple[int, int] | None
    #: What the persister holds: state epoch, leader epoch, start offset, canonical batches.
    persisted_state_epoch: int
    persisted_leader_epoch: int
    persisted_start_offset: int
    persisted: tuple[PersisterBatch, ...]

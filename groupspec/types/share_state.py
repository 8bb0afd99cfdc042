"""The share coordinator's words: share-group state requests, state batches, answers and the view.

The share coordinator (KIP-932, Kafka's ``share-coordinator`` module) keeps the durable state of
every share-partition, keyed by (group id, topic id, partition), in the ``__share_group_state``
topic. A key lives on coordinator partition ``abs(hash("group:topicId:partition")) % partitions``
with the topic id in Kafka's 22-character spelling (``ShareCoordinatorService#partitionFor``,
``SharePartitionKey#asCoordinatorKey``). Its state is a ShareSnapshot record (the whole state)
followed by ShareUpdate records (deltas folded into it on replay).

Five requests reach it, each carrying one key as the shard sees it (the service splits a
request by key): InitializeShareGroupState (the group coordinator starting or resetting a
share-partition), ReadShareGroupState (a broker loading the share-partition as its leader; a
newer leader epoch is recorded), WriteShareGroupState (the leader persisting acknowledged and
released offsets), DeleteShareGroupState and ReadShareGroupStateSummary. The answer to each is
the partition result of Kafka's response message (error code and the fields it carries).

The spec (``groupspec.spec.share_state``) and the implementation (``groupspec.impl.share_state``)
take the same events and answer the same values. Names and numbers follow Kafka 4.2.1's
released sources; the KIP-1226 ``DeliveryCompleteCount`` (a tagged field of both records and of
the write and summary messages) is not modelled, as the records vocabulary does not carry it.
"""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types import wire_bounds as wire
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import CoordinatorRecord
from groupspec.types.topic_id import canonical, kafka_string, parse_topic_id

#: Kafka's "no start offset yet" (PartitionFactory.UNINITIALIZED_START_OFFSET): an
#: InitializeShareGroupState with it leaves the share partition to share.auto.offset.reset.
UNINITIALIZED_START_OFFSET = -1
#: A leader or state epoch of -1 in a request means "not given": it is never checked.
NO_EPOCH = -1
#: The share.coordinator.snapshot.update.records.per.snapshot range (ShareCoordinatorConfig).
UPDATES_PER_SNAPSHOT_RANGE = (0, 500)


@dataclass(frozen=True)
class ShareStateConfig:
    """The share coordinator's settings (ShareCoordinatorConfig defaults).

    ``updates_per_snapshot`` is share.coordinator.snapshot.update.records.per.snapshot: how many
    ShareUpdate records may follow a ShareSnapshot before a write becomes a snapshot again.
    ``cold_snapshot_interval_ms`` is share.coordinator.cold.partition.snapshot.interval.ms: how
    often the service snapshots every key whose last snapshot is at least that old.
    """

    state_topic_partitions: int = 50
    updates_per_snapshot: int = 500
    cold_snapshot_interval_ms: int = 300_000
    #: Whether a ReadShareGroupState without a leader epoch (-1) is fenced below a recorded one:
    #: yes in Kafka 4.2, no from 4.3 (KAFKA-20694), as the write path always skipped -1.
    fence_read_without_leader_epoch: bool = True


@dataclass(frozen=True)
class TopicMetadata:
    """A topic of the metadata image: the shard refuses keys of a topic or partition it lacks."""

    topic_id: str
    partitions: int


@dataclass(frozen=True)
class StateBatch:
    """A run of offsets sharing one delivery state and count (Kafka's ``PersisterStateBatch``).

    ``delivery_state`` is the RecordState byte (0 available, 2 acknowledged, 4 archived).
    """

    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitializeShareGroupState:
    """Start (or reset) a share-partition's state at ``start_offset`` with ``state_epoch``."""

    group_id: str
    topic_id: str
    partition: int
    state_epoch: int
    start_offset: int = UNINITIALIZED_START_OFFSET


@dataclass(frozen=True)
class ReadShareGroupState:
    """A broker becoming the share-partition's leader reads its state with its leader epoch."""

    group_id: str
    topic_id: str
    partition: int
    leader_epoch: int = NO_EPOCH


@dataclass(frozen=True)
class WriteShareGroupState:
    """The leader persists a new start offset (-1: unchanged) and state batches."""

    group_id: str
    topic_id: str
    partition: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    state_batches: tuple[StateBatch, ...] = ()


@dataclass(frozen=True)
class DeleteShareGroupState:
    """Drop a share-partition's state (a tombstone of its ShareSnapshot key)."""

    group_id: str
    topic_id: str
    partition: int


@dataclass(frozen=True)
class ReadShareGroupStateSummary:
    """Start offset and epochs of a share-partition, without its batches (admin describe)."""

    group_id: str
    topic_id: str
    partition: int
    leader_epoch: int = NO_EPOCH


@dataclass(frozen=True)
class AdvanceClock:
    """Move the injected clock to ``to_ms`` (snapshots carry the time they were written); when
    the cold-partition interval has passed, keys not snapshotted for that long get a snapshot."""

    to_ms: int


@dataclass(frozen=True)
class DeleteTopics:
    """Topics were deleted: they leave the metadata image, and every shard writes a tombstone for
    each key of theirs (ShareCoordinatorService#onTopicsDeleted, Shard#maybeCleanupShareState)."""

    topic_ids: tuple[str, ...]


@dataclass(frozen=True)
class Restart:
    """Every shard fails over: memory is dropped and each partition's log is replayed."""


ShareStateRequest = (InitializeShareGroupState | ReadShareGroupState | WriteShareGroupState
                     | DeleteShareGroupState | ReadShareGroupStateSummary)
ShareStateEvent = ShareStateRequest | AdvanceClock | DeleteTopics | Restart
REQUEST_TYPES: tuple[type, ...] = (InitializeShareGroupState, ReadShareGroupState, WriteShareGroupState,
                                   DeleteShareGroupState, ReadShareGroupStateSummary)


#: A share-partition key's two states in a shard (the spec's table dispatches on them) and the
#: states each may be entered from; the docs' diagram is checked against it.
ABSENT, PRESENT = "ABSENT", "PRESENT"
KEY_PREDECESSORS: dict[str, frozenset[str]] = {
    PRESENT: frozenset({ABSENT, PRESENT}),
    ABSENT: frozenset({PRESENT}),
}


def coordinator_key(group_id: str, topic_id: str, partition: int) -> str:
    """``SharePartitionKey#asCoordinatorKey``: the string whose hash picks the coordinator partition."""
    return f"{group_id}:{kafka_string(parse_topic_id(topic_id))}:{partition}"


# ---------------------------------------------------------------------------------------------
# Responses: one partition result of each response message
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InitializeShareGroupStateResponse:
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class ReadShareGroupStateResponse:
    error: Errors = Errors.NONE
    state_epoch: int = 0
    start_offset: int = 0
    state_batches: tuple[StateBatch, ...] = ()


@dataclass(frozen=True)
class WriteShareGroupStateResponse:
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class DeleteShareGroupStateResponse:
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class ReadShareGroupStateSummaryResponse:
    error: Errors = Errors.NONE
    state_epoch: int = 0
    leader_epoch: int = 0
    start_offset: int = 0


RESPONSE_FOR: dict[type, type] = {
    InitializeShareGroupState: InitializeShareGroupStateResponse,
    ReadShareGroupState: ReadShareGroupStateResponse,
    WriteShareGroupState: WriteShareGroupStateResponse,
    DeleteShareGroupState: DeleteShareGroupStateResponse,
    ReadShareGroupStateSummary: ReadShareGroupStateSummaryResponse,
}


@dataclass(frozen=True)
class Answer:
    request: int
    response: object


@dataclass(frozen=True)
class Output:
    """What one event produced: its answer and the records written, in log order."""

    answers: tuple[Answer, ...] = ()
    records: tuple[CoordinatorRecord, ...] = ()


# ---------------------------------------------------------------------------------------------
# The observable state
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SharePartitionStateView:
    """One key's state as the shard holds it after replay (``ShareGroupOffset`` and the epoch maps).

    ``fenced_leader_epoch`` / ``fenced_state_epoch`` are the highest epochs seen in its records
    (the shard's leaderEpochMap / stateEpochMap: requests below them are fenced; None: none seen).
    ``updates_since_snapshot`` is the shard's snapshotUpdateCount (None: no update yet).
    """

    group_id: str
    topic_id: str
    partition: int
    coordinator_partition: int
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    state_batches: tuple[StateBatch, ...]
    create_timestamp: int
    write_timestamp: int
    fenced_leader_epoch: int
    fenced_state_epoch: int | None
    updates_since_snapshot: int | None


@dataclass(frozen=True)
class CoordinatorPartitionView:
    """One ``__share_group_state`` partition that has a log: where its log ends and the offset
    below which every record is redundant (ShareCoordinatorOffsetsManager; None: none yet)."""

    partition: int
    log_end_offset: int
    last_redundant_offset: int | None


@dataclass(frozen=True)
class ShareStateView:
    now_ms: int
    #: By (coordinator partition, group id, topic id, partition).
    share_partitions: tuple[SharePartitionStateView, ...]
    #: Partitions whose log is not empty, ascending.
    coordinator_partitions: tuple[CoordinatorPartitionView, ...]


# ---------------------------------------------------------------------------------------------
# The edge: what a broker's request parsing would never hand the shard
# ---------------------------------------------------------------------------------------------


def _key(e: ShareStateRequest) -> None:
    wire.text(e.group_id, "group_id")
    if e.group_id == "":
        raise InputError("group_id", "the service answers an empty group id with an empty response")
    canonical(e.topic_id, "topic_id")
    wire.integer(e.partition, "partition", "int32")


def check_batches(batches: object, path: str) -> None:
    for i, b in enumerate(wire.array(batches, path)):
        where = f"{path}[{i}]"
        wire.instance(b, where, StateBatch)
        wire.integer(b.first_offset, f"{where}.first_offset", "int64", minimum=0)
        wire.integer(b.last_offset, f"{where}.last_offset", "int64", minimum=b.first_offset)
        wire.integer(b.delivery_state, f"{where}.delivery_state", "int16", minimum=0, maximum=4)
        wire.integer(b.delivery_count, f"{where}.delivery_count", "int16", minimum=0)


def check_event(event: object, index: object = 0) -> None:
    """Refuse what no broker would hand the shard (an :class:`InputError` naming the field).

    Both layers call it first, so a refused event changes nothing. Values Kafka answers stay
    answers: a negative partition is INVALID_REQUEST, an unknown topic UNKNOWN_TOPIC_OR_PARTITION.
    Refused: an empty group id, a topic id that is not one, batches with negative offsets or
    first > last (a share partition never writes them), epochs below -1.
    """
    wire.integer(index, "index", "int64", minimum=0)
    match event:
        case InitializeShareGroupState():
            _key(event)
            wire.integer(event.state_epoch, "state_epoch", "int32", minimum=NO_EPOCH)
            wire.integer(event.start_offset, "start_offset", "int64", minimum=UNINITIALIZED_START_OFFSET)
        case ReadShareGroupState() | ReadShareGroupStateSummary():
            _key(event)
            wire.integer(event.leader_epoch, "leader_epoch", "int32", minimum=NO_EPOCH)
        case WriteShareGroupState():
            _key(event)
            wire.integer(event.state_epoch, "state_epoch", "int32", minimum=NO_EPOCH)
            wire.integer(event.leader_epoch, "leader_epoch", "int32", minimum=NO_EPOCH)
            wire.integer(event.start_offset, "start_offset", "int64", minimum=UNINITIALIZED_START_OFFSET)
            check_batches(event.state_batches, "state_batches")
        case DeleteShareGroupState():
            _key(event)
        case AdvanceClock():
            wire.integer(event.to_ms, "to_ms", "int64", minimum=0)
        case DeleteTopics():
            for i, t in enumerate(wire.array(event.topic_ids, "topic_ids")):
                canonical(t, f"topic_ids[{i}]")
        case Restart():
            pass
        case _:
            raise InputError("event", f"{type(event).__name__} is not a share state event")


def check_config(config: object) -> ShareStateConfig:
    if not isinstance(config, ShareStateConfig):
        raise InputError("config", f"expected a ShareStateConfig, got {type(config).__name__}")
    wire.integer(config.state_topic_partitions, "config.state_topic_partitions", "int32", minimum=1)
    low, high = UPDATES_PER_SNAPSHOT_RANGE
    wire.integer(config.updates_per_snapshot, "config.updates_per_snapshot", "int32",
                 minimum=low, maximum=high)
    wire.integer(config.cold_snapshot_interval_ms, "config.cold_snapshot_interval_ms", "int32", minimum=1)
    wire.boolean(config.fence_read_without_leader_epoch, "config.fence_read_without_leader_epoch")
    return config


def check_topics(topics: object) -> dict[str, int]:
    """The metadata image as topic id (36-character spelling) -> partition count."""
    out: dict[str, int] = {}
    for i, t in enumerate(wire.array(topics, "topics")):
        wire.instance(t, f"topics[{i}]", TopicMetadata)
        topic_id = canonical(t.topic_id, f"topics[{i}].topic_id")
        wire.integer(t.partitions, f"topics[{i}].partitions", "int32", minimum=1)
        if topic_id in out:
            raise InputError(f"topics[{i}].topic_id", f"topic id {topic_id} appears twice")
        out[topic_id] = t.partitions
    return out

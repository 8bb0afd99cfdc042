"""The classic group protocol's words: requests, responses, events and configs.

Field names follow Kafka's request and response schemas (JoinGroupRequest.json and friends) in
snake_case; only what the group coordinator reads or answers is kept. The spec
(``groupspec.spec.classic_group``) and the implementation (``groupspec.impl.classic_group``) take the
same :data:`ClassicEvent` values and answer the same response values, so a test, a conformance
vector or an outside adapter can drive both and compare field by field.

Two things Kafka leaves to chance are inputs here, so that every run is repeatable:

- time: :class:`AdvanceClock` events move the injected clock; timers fire only then;
- new member ids: Kafka appends a random ``java.util.UUID`` to the client id (or instance id).
  A :class:`JoinGroup` carries the UUID the coordinator would draw, ``new_member_uuid``, chosen
  by whoever drives the machine; a join that issues no id ignores it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from groupspec.types import wire_bounds as wire
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import CoordinatorRecord
from groupspec.types.topic_id import parse_topic_id

#: The classic group's states, as Kafka names them (``ClassicGroupState``).
EMPTY = "Empty"
PREPARING_REBALANCE = "PreparingRebalance"
COMPLETING_REBALANCE = "CompletingRebalance"
STABLE = "Stable"
DEAD = "Dead"
GROUP_STATES = (EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD)

#: The states each state may be entered from: ``validPreviousStates`` in Kafka's
#: ClassicGroupState.java; ``ClassicGroup.transitionTo`` throws IllegalStateException on any
#: other change, and both layers refuse it too. A group loaded from the log starts in Stable
#: (members) or Empty (none) without a transition.
GROUP_PREDECESSORS: dict[str, frozenset[str]] = {
    EMPTY: frozenset({PREPARING_REBALANCE}),
    PREPARING_REBALANCE: frozenset({STABLE, COMPLETING_REBALANCE, EMPTY}),
    COMPLETING_REBALANCE: frozenset({PREPARING_REBALANCE}),
    STABLE: frozenset({COMPLETING_REBALANCE}),
    DEAD: frozenset({STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD}),
}

#: JoinGroup/SyncGroup/OffsetCommit's "no generation" and the anonymous member's id.
NO_GENERATION = -1
UNKNOWN_MEMBER_ID = ""
#: Kafka's constant join timeout for a member's first join (not a config).
NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000


@dataclass(frozen=True)
class ClassicConfig:
    """GroupCoordinatorConfig's classic-group settings, with Kafka 4.x defaults (classic_group.md §4.5)."""

    min_session_timeout_ms: int = 6_000
    max_session_timeout_ms: int = 1_800_000
    initial_rebalance_delay_ms: int = 3_000
    max_size: int = 2_147_483_647
    offsets_retention_ms: int = 10_080 * 60_000
    offsets_retention_check_interval_ms: int = 600_000
    offset_metadata_max_bytes: int = 4_096
    offsets_topic_partitions: int = 50


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Protocol:
    """One (name, metadata) entry of a JoinGroup; order is the member's preference."""

    name: str
    metadata: bytes = b""


@dataclass(frozen=True)
class JoinGroup:
    group_id: str
    member_id: str = UNKNOWN_MEMBER_ID
    group_instance_id: str | None = None
    session_timeout_ms: int = 45_000
    rebalance_timeout_ms: int = 300_000
    protocol_type: str = "consumer"
    protocols: tuple[Protocol, ...] = ()
    client_id: str = "client"
    client_host: str = "/127.0.0.1"
    reason: str | None = None
    #: The request's API version: v4+ gets MEMBER_ID_REQUIRED, v9+ skipAssignment.
    version: int = 9
    #: The UUID the coordinator would draw for a new member id (see the module docstring).
    new_member_uuid: str = "00000000-0000-0000-0000-000000000000"


@dataclass(frozen=True)
class SyncAssignment:
    member_id: str
    assignment: bytes


@dataclass(frozen=True)
class SyncGroup:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None = None
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignments: tuple[SyncAssignment, ...] = ()
    version: int = 5


@dataclass(frozen=True)
class Heartbeat:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None = None
    version: int = 4


@dataclass(frozen=True)
class MemberIdentity:
    member_id: str = UNKNOWN_MEMBER_ID
    group_instance_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class LeaveGroup:
    group_id: str
    members: tuple[MemberIdentity, ...]
    version: int = 5


@dataclass(frozen=True)
class CommitPartition:
    partition: int
    committed_offset: int
    committed_leader_epoch: int = -1
    committed_metadata: str | None = ""


@dataclass(frozen=True)
class CommitTopic:
    name: str
    partitions: tuple[CommitPartition, ...]
    topic_id: str | None = None


@dataclass(frozen=True)
class OffsetCommit:
    group_id: str
    generation_id_or_member_epoch: int = NO_GENERATION
    member_id: str = UNKNOWN_MEMBER_ID
    group_instance_id: str | None = None
    #: -1 = the broker's retention; other values are honoured only by request v2-v4.
    retention_time_ms: int = -1
    topics: tuple[CommitTopic, ...] = ()
    version: int = 9


@dataclass(frozen=True)
class TxnOffsetCommit:
    transactional_id: str
    producer_id: int
    producer_epoch: int
    group_id: str
    generation_id: int = NO_GENERATION
    member_id: str = UNKNOWN_MEMBER_ID
    group_instance_id: str | None = None
    topics: tuple[CommitTopic, ...] = ()


@dataclass(frozen=True)
class TxnMarker:
    """The transaction coordinator's COMMIT or ABORT for a producer's pending offsets."""

    producer_id: int
    producer_epoch: int
    commit: bool
    coordinator_epoch: int = 0


@dataclass(frozen=True)
class FetchTopic:
    name: str
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class OffsetFetch:
    group_id: str
    #: None fetches every committed offset of the group.
    topics: tuple[FetchTopic, ...] | None = None
    require_stable: bool = False


@dataclass(frozen=True)
class OffsetDelete:
    group_id: str
    topics: tuple[FetchTopic, ...]


@dataclass(frozen=True)
class DeleteGroups:
    group_ids: tuple[str, ...]


@dataclass(frozen=True)
class DescribeGroups:
    group_ids: tuple[str, ...]


@dataclass(frozen=True)
class ListGroups:
    states_filter: tuple[str, ...] = ()


@dataclass(frozen=True)
class AdvanceClock:
    """Move the injected clock to ``to_ms`` (never back); due timers fire in order."""

    to_ms: int


@dataclass(frozen=True)
class Restart:
    """A coordinator failover, at the current clock time.

    Every ``__consumer_offsets`` partition unloads (parked JoinGroups and SyncGroups are
    answered NOT_COORDINATOR, as ``onUnloaded`` does) and loads again by replaying what was
    written (``onLoaded``: session timers re-armed for every loaded member, the offset
    expiration job re-armed). Nothing that was not written survives.
    """


@dataclass(frozen=True)
class BeginLoad:
    """The first half of a failover: every partition unloads, then stays *loading*.

    Parked JoinGroups and SyncGroups are answered NOT_COORDINATOR, as in :class:`Restart`.
    Until :class:`CompleteLoad` (or a ``Restart``) the runtime refuses requests with
    COORDINATOR_LOAD_IN_PROGRESS after the coordinator's own checks, except a Heartbeat, which
    ``GroupCoordinatorService#heartbeat`` answers NONE so that members keep their sessions; a
    ListGroups fails as a whole. Nothing is in memory and no timer runs while loading.
    """


@dataclass(frozen=True)
class CompleteLoad:
    """The second half of a failover: loading partitions replay their logs, as Restart's load does.

    Without a preceding :class:`BeginLoad` it changes nothing.
    """


ClassicRequest = (
    JoinGroup | SyncGroup | Heartbeat | LeaveGroup | OffsetCommit | TxnOffsetCommit | TxnMarker
    | OffsetFetch | OffsetDelete | DeleteGroups | DescribeGroups | ListGroups
)
ClassicEvent = ClassicRequest | AdvanceClock | Restart | BeginLoad | CompleteLoad


# ---------------------------------------------------------------------------------------------
# Responses
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JoinGroupMember:
    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclass(frozen=True)
class JoinGroupResponse:
    error: Errors
    generation_id: int = NO_GENERATION
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    skip_assignment: bool = False
    member_id: str = ""
    members: tuple[JoinGroupMember, ...] = ()


@dataclass(frozen=True)
class SyncGroupResponse:
    error: Errors
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


@dataclass(frozen=True)
class HeartbeatResponse:
    error: Errors


@dataclass(frozen=True)
class MemberLeaveResult:
    member_id: str
    group_instance_id: str | None
    error: Errors


@dataclass(frozen=True)
class LeaveGroupResponse:
    error: Errors
    members: tuple[MemberLeaveResult, ...] = ()


@dataclass(frozen=True)
class PartitionResult:
    partition: int
    error: Errors


@dataclass(frozen=True)
class TopicResult:
    name: str
    partitions: tuple[PartitionResult, ...]


@dataclass(frozen=True)
class OffsetCommitResponse:
    topics: tuple[TopicResult, ...]


@dataclass(frozen=True)
class TxnOffsetCommitResponse:
    topics: tuple[TopicResult, ...]


@dataclass(frozen=True)
class TxnMarkerResponse:
    """The outcome of writing one producer's transaction marker (WriteTxnMarkers, simplified)."""

    error: Errors


@dataclass(frozen=True)
class FetchedPartition:
    partition: int
    committed_offset: int = -1
    committed_leader_epoch: int = -1
    metadata: str = ""
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class FetchedTopic:
    name: str
    partitions: tuple[FetchedPartition, ...]


@dataclass(frozen=True)
class OffsetFetchResponse:
    error: Errors
    topics: tuple[FetchedTopic, ...] = ()


@dataclass(frozen=True)
class OffsetDeleteResponse:
    error: Errors
    topics: tuple[TopicResult, ...] = ()


@dataclass(frozen=True)
class GroupResult:
    group_id: str
    error: Errors


@dataclass(frozen=True)
class DeleteGroupsResponse:
    results: tuple[GroupResult, ...]


@dataclass(frozen=True)
class DescribedMember:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass(frozen=True)
class DescribedGroup:
    group_id: str
    error: Errors
    state: str
    protocol_type: str = ""
    protocol_data: str = ""
    members: tuple[DescribedMember, ...] = ()


@dataclass(frozen=True)
class DescribeGroupsResponse:
    groups: tuple[DescribedGroup, ...]


@dataclass(frozen=True)
class ListedGroup:
    group_id: str
    protocol_type: str
    state: str


@dataclass(frozen=True)
class ListGroupsResponse:
    error: Errors
    groups: tuple[ListedGroup, ...] = field(default=())


@dataclass(frozen=True)
class Answer:
    """A response to the request with index ``request`` among the events driven so far.

    Responses can come later than their request (a parked JoinGroup is answered when the join
    phase completes, possibly during a clock advance), so a step returns every answer it
    released, each tagged with the request it belongs to.
    """

    request: int
    response: object


# ---------------------------------------------------------------------------------------------
# What a step writes
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TxnRecord:
    """A record written inside a transaction (a TxnOffsetCommit's offset): pending until its marker."""

    record: CoordinatorRecord
    producer_id: int
    producer_epoch: int


@dataclass(frozen=True)
class TxnEnd:
    """A COMMIT (``commit``) or ABORT control marker for one producer's pending records."""

    producer_id: int
    producer_epoch: int
    commit: bool
    coordinator_epoch: int = 0


#: One entry of the log a step appends to: a plain record, a transactional one, or a marker.
LogEntry = CoordinatorRecord | TxnRecord | TxnEnd


@dataclass(frozen=True)
class Output:
    """What one event produced: the answers it released and the log entries it wrote, in order.

    ``answers`` may answer earlier requests (a parked JoinGroup completed by this event).
    """

    answers: tuple[Answer, ...] = ()
    records: tuple[LogEntry, ...] = ()


# ---------------------------------------------------------------------------------------------
# Observable state: what the spec and the implementation must agree on after every step
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemberView:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    #: The member's protocols in its preference order (after a load: only the selected one).
    protocols: tuple[Protocol, ...]
    assignment: bytes
    #: A JoinGroup of this member is parked, waiting for the join phase to complete.
    awaiting_join: bool
    #: A SyncGroup of this member is parked, waiting for the leader's assignment.
    awaiting_sync: bool
    #: Not yet through a completed join (``isNew``): its heartbeat is never "satisfied".
    is_new: bool


@dataclass(frozen=True)
class OffsetView:
    topic: str
    partition: int
    committed_offset: int
    committed_leader_epoch: int
    metadata: str
    commit_timestamp_ms: int
    #: -1 unless an OffsetCommit v2-v4 carried a retention time.
    expire_timestamp_ms: int = -1


@dataclass(frozen=True)
class PendingOffsetView:
    """A transactional offset waiting for its producer's marker."""

    producer_id: int
    offset: OffsetView


@dataclass(frozen=True)
class GroupView:
    group_id: str
    state: str
    protocol_type: str | None
    protocol_name: str | None
    generation_id: int
    leader_id: str | None
    #: When the group last changed state (None after a load from a record without it).
    state_timestamp_ms: int | None
    #: In the group's member order: the order members were added (see docs/machines/classic_group.md).
    members: tuple[MemberView, ...]
    #: Ids issued with MEMBER_ID_REQUIRED that have not joined yet, sorted.
    pending_members: tuple[str, ...]
    #: Members that have not sent SyncGroup in this generation, sorted.
    pending_sync: tuple[str, ...]
    #: Committed offsets, sorted by (topic, partition).
    offsets: tuple[OffsetView, ...]
    #: Pending transactional offsets, sorted by (producer id, topic, partition).
    pending_offsets: tuple[PendingOffsetView, ...]
    #: This group's armed timers (heartbeat-, join-, sync- keys) and deadlines, sorted by key.
    timers: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class CoordinatorView:
    now_ms: int
    #: Every group the coordinator holds (including offset-only "simple" groups), by group id.
    groups: tuple[GroupView, ...]


# ---------------------------------------------------------------------------------------------
# The edge: what a broker's request parsing would refuse
# ---------------------------------------------------------------------------------------------


def _check_protocol(p: object, path: str) -> None:
    wire.instance(p, path, Protocol)
    assert isinstance(p, Protocol)
    wire.text(p.name, f"{path}.name")
    wire.blob(p.metadata, f"{path}.metadata")


def _check_join(e: JoinGroup) -> None:
    wire.text(e.group_id, "group_id")
    wire.text(e.member_id, "member_id")
    wire.text(e.group_instance_id, "group_instance_id", nullable=True)
    wire.integer(e.session_timeout_ms, "session_timeout_ms", "int32")
    # Kafka would arm a join timer that is already due; groupspec's timers never lie in the past.
    wire.integer(e.rebalance_timeout_ms, "rebalance_timeout_ms", "int32", minimum=0)
    wire.text(e.protocol_type, "protocol_type")
    for i, p in enumerate(wire.array(e.protocols, "protocols")):
        _check_protocol(p, f"protocols[{i}]")
    wire.text(e.client_id, "client_id")
    wire.text(e.client_host, "client_host")
    wire.text(e.reason, "reason", nullable=True)
    wire.integer(e.version, "version", "int16", minimum=0)
    wire.text(e.new_member_uuid, "new_member_uuid")
    if e.member_id == UNKNOWN_MEMBER_ID:
        # The id the coordinator would issue must itself fit a string: it goes into the answer
        # and into every GroupMetadata record of the member.
        prefix, field = ((e.group_instance_id, "group_instance_id") if e.group_instance_id is not None
                         else (e.client_id, "client_id"))
        size = wire.utf8_length(prefix, field) + 1 + wire.utf8_length(e.new_member_uuid, "new_member_uuid")
        if size > wire.MAX_STRING_BYTES:
            raise InputError(field, f"the member id it makes ({field}, '-', new_member_uuid) would be "
                                    f"{size} UTF-8 bytes; a Kafka string holds at most "
                                    f"{wire.MAX_STRING_BYTES}")


def _check_sync(e: SyncGroup) -> None:
    wire.text(e.group_id, "group_id")
    wire.integer(e.generation_id, "generation_id", "int32")
    wire.text(e.member_id, "member_id")
    wire.text(e.group_instance_id, "group_instance_id", nullable=True)
    wire.text(e.protocol_type, "protocol_type", nullable=True)
    wire.text(e.protocol_name, "protocol_name", nullable=True)
    for i, a in enumerate(wire.array(e.assignments, "assignments")):
        wire.instance(a, f"assignments[{i}]", SyncAssignment)
        wire.text(a.member_id, f"assignments[{i}].member_id")
        wire.blob(a.assignment, f"assignments[{i}].assignment")
    wire.integer(e.version, "version", "int16", minimum=0)


def _check_heartbeat(e: Heartbeat) -> None:
    wire.text(e.group_id, "group_id")
    wire.integer(e.generation_id, "generation_id", "int32")
    wire.text(e.member_id, "member_id")
    wire.text(e.group_instance_id, "group_instance_id", nullable=True)
    wire.integer(e.version, "version", "int16", minimum=0)


def _check_leave(e: LeaveGroup) -> None:
    wire.text(e.group_id, "group_id")
    for i, m in enumerate(wire.array(e.members, "members")):
        path = f"members[{i}]"
        wire.instance(m, path, MemberIdentity)
        wire.text(m.member_id, f"{path}.member_id")
        wire.text(m.group_instance_id, f"{path}.group_instance_id", nullable=True)
        wire.text(m.reason, f"{path}.reason", nullable=True)
    wire.integer(e.version, "version", "int16", minimum=0)
    # LeaveGroupRequest.json: below v3 the request has one MemberId and no Members array.
    if e.version < 3 and (len(e.members) != 1 or e.members[0].group_instance_id is not None):
        raise InputError("members", f"LeaveGroup v{e.version} names exactly one member, by member id "
                         "alone (Members, with GroupInstanceId, from v3)")


_INT32_MAX = wire.INT32[1]
_INT64_MIN, _INT64_MAX = wire.INT64


def _plain_partition(p: object) -> bool:
    """Whether ``p`` is a CommitPartition that obviously passes (ASCII metadata, ints in range)."""
    if type(p) is not CommitPartition:
        return False
    metadata = p.committed_metadata
    return (type(p.partition) is int and 0 <= p.partition <= _INT32_MAX
            and type(p.committed_offset) is int and _INT64_MIN <= p.committed_offset <= _INT64_MAX
            and type(p.committed_leader_epoch) is int
            and -_INT32_MAX - 1 <= p.committed_leader_epoch <= _INT32_MAX
            and (metadata is None or (type(metadata) is str and len(metadata) <= wire.MAX_STRING_BYTES
                                      and metadata.isascii())))


def _check_commit_topics(topics: object) -> None:
    for i, t in enumerate(wire.array(topics, "topics")):
        path = f"topics[{i}]"
        wire.instance(t, path, CommitTopic)
        wire.text(t.name, f"{path}.name")
        if t.topic_id is not None:
            parse_topic_id(t.topic_id, f"{path}.topic_id")
        for j, p in enumerate(wire.array(t.partitions, f"{path}.partitions")):
            if _plain_partition(p):
                continue  # the common case, without building a path for every field
            where = f"{path}.partitions[{j}]"
            wire.instance(p, where, CommitPartition)
            wire.integer(p.partition, f"{where}.partition", "int32", minimum=0)
            wire.integer(p.committed_offset, f"{where}.committed_offset", "int64")
            wire.integer(p.committed_leader_epoch, f"{where}.committed_leader_epoch", "int32")
            wire.text(p.committed_metadata, f"{where}.committed_metadata", nullable=True)


def _check_commit(e: OffsetCommit) -> None:
    wire.text(e.group_id, "group_id")
    wire.integer(e.generation_id_or_member_epoch, "generation_id_or_member_epoch", "int32")
    wire.text(e.member_id, "member_id")
    wire.text(e.group_instance_id, "group_instance_id", nullable=True)
    wire.integer(e.retention_time_ms, "retention_time_ms", "int64")
    _check_commit_topics(e.topics)
    wire.integer(e.version, "version", "int16", minimum=0)


def _check_txn_commit(e: TxnOffsetCommit) -> None:
    wire.text(e.transactional_id, "transactional_id")
    # A transactional batch carries a real producer id and epoch (never NO_PRODUCER_ID, -1).
    wire.integer(e.producer_id, "producer_id", "int64", minimum=0)
    wire.integer(e.producer_epoch, "producer_epoch", "int16", minimum=0)
    wire.text(e.group_id, "group_id")
    wire.integer(e.generation_id, "generation_id", "int32")
    wire.text(e.member_id, "member_id")
    wire.text(e.group_instance_id, "group_instance_id", nullable=True)
    _check_commit_topics(e.topics)


def _check_marker(e: TxnMarker) -> None:
    wire.integer(e.producer_id, "producer_id", "int64", minimum=0)
    wire.integer(e.producer_epoch, "producer_epoch", "int16", minimum=0)
    wire.boolean(e.commit, "commit")
    wire.integer(e.coordinator_epoch, "coordinator_epoch", "int32")


def _check_fetch_topics(topics: object, nullable: bool) -> None:
    for i, t in enumerate(wire.array(topics, "topics", nullable=nullable)):
        path = f"topics[{i}]"
        wire.instance(t, path, FetchTopic)
        wire.text(t.name, f"{path}.name")
        for j, p in enumerate(wire.array(t.partitions, f"{path}.partitions")):
            wire.integer(p, f"{path}.partitions[{j}]", "int32", minimum=0)


def _check_fetch(e: OffsetFetch) -> None:
    wire.text(e.group_id, "group_id")
    _check_fetch_topics(e.topics, True)
    wire.boolean(e.require_stable, "require_stable")


def _check_offset_delete(e: OffsetDelete) -> None:
    wire.text(e.group_id, "group_id")
    _check_fetch_topics(e.topics, False)


def _check_nothing(e: object) -> None:
    pass


_CHECKS: dict[type, Callable[[Any], None]] = {
    JoinGroup: _check_join,
    SyncGroup: _check_sync,
    Heartbeat: _check_heartbeat,
    LeaveGroup: _check_leave,
    OffsetCommit: _check_commit,
    TxnOffsetCommit: _check_txn_commit,
    TxnMarker: _check_marker,
    OffsetFetch: _check_fetch,
    OffsetDelete: _check_offset_delete,
    DeleteGroups: lambda e: wire.texts(e.group_ids, "group_ids"),
    DescribeGroups: lambda e: wire.texts(e.group_ids, "group_ids"),
    ListGroups: lambda e: wire.texts(e.states_filter, "states_filter"),
    AdvanceClock: lambda e: wire.integer(e.to_ms, "to_ms", "int64"),
    Restart: _check_nothing,
    BeginLoad: _check_nothing,
    CompleteLoad: _check_nothing,
}


def check_event(event: object, index: object = 0) -> None:
    """Refuse what a broker would never hand the coordinator: an :class:`InputError` naming the field.

    Both layers call this first, so a refused event changes nothing in either and both raise
    the same error. Wrong types count as well as values out of their wire range: strings above
    32767 UTF-8 bytes or holding a lone surrogate, ints outside their field's int16/int32/int64,
    a negative partition number, a new member id (client or instance id, '-', the UUID) too long
    to be written.
    """
    wire.integer(index, "index", "int64", minimum=0)
    check = _CHECKS.get(type(event))
    if check is None:
        raise InputError("event", f"{type(event).__name__} is not a classic group event")
    check(event)


def check_config(config: object) -> None:
    """A ClassicConfig whose settings are ints in the ranges Kafka's config definitions allow."""
    if not isinstance(config, ClassicConfig):
        raise InputError("config", f"expected a ClassicConfig, got {type(config).__name__}")
    for name in ("min_session_timeout_ms", "max_session_timeout_ms", "initial_rebalance_delay_ms",
                 "offset_metadata_max_bytes"):
        wire.integer(getattr(config, name), f"config.{name}", "int32", minimum=0)
    wire.integer(config.max_size, "config.max_size", "int32", minimum=1)
    wire.integer(config.offsets_topic_partitions, "config.offsets_topic_partitions", "int32", minimum=1)
    wire.integer(config.offsets_retention_ms, "config.offsets_retention_ms", "int64", minimum=1)
    wire.integer(config.offsets_retention_check_interval_ms, "config.offsets_retention_check_interval_ms",
                 "int64", minimum=1)


"""The classic group protocol's words: requests, responses, events and configs.

Field names follow Kafka's request and response schemas (JoinGroupRequest.json and friends) in
snake_case; only what the group coordinator reads or answers is kept. The spec
(``groupspec.spec.classic_group``) and the implementation (``groupspec.impl.classic``) take the
same :data:`ClassicEvent` values and answer the same response values, so a test, a conformance
vector or an outside adapter can drive both and compare field by field.

Two things Kafka leaves to chance are inputs here, so that every run is repeatable:

- time: :class:`AdvanceClock` events move the injected clock; timers fire only then;
- new member ids: Kafka appends a random ``java.util.UUID`` to the client id (or instance id).
  A :class:`JoinGroup` carries the UUID the coordinator would draw, ``new_member_uuid``, chosen
  by whoever drives the machine; a join that issues no id ignores it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord

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
    #: In the group's member order: the order members were added (see docs/classic-group.md).
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

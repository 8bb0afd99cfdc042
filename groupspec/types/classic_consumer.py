"""Vocabulary of the classic consumer's client side (machine ``classic_consumer``).

The requests it sends are classic_group's (JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
OffsetCommit), so that a run of this machine can be fed to the coordinator machine unchanged.
The opaque member metadata and assignment bytes travel typed here: the subscription a JoinGroup
carries is a ConsumerProtocolSubscription next to the request (the request's protocol entries
keep empty metadata), and a SyncGroup answer's assignment is a ConsumerProtocolAssignment. The
bytes are the codec's business (impl/codec/consumer_protocol.py), not a membership rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from groupspec.types.classic_group import (
    NO_GENERATION,
    UNKNOWN_MEMBER_ID,
    Heartbeat,
    HeartbeatResponse,
    JoinGroup,
    JoinGroupResponse,
    LeaveGroup,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetFetchResponse,
    SyncGroup,
    SyncGroupResponse,
)
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

__all__ = [
    "APPLICATION_CALLS",
    "CLOSE_OPERATIONS",
    "EXCEPTION_CLASSES",
    "NOT_SUBSCRIBED",
    "NO_GENERATION",
    "PREDECESSORS",
    "RETRIABLE_ERRORS",
    "TP",
    "UNKNOWN_MEMBER_ID",
    "Assign",
    "Callback",
    "Close",
    "CommitAsync",
    "CommitCallback",
    "CommitSync",
    "Config",
    "Consumed",
    "Event",
    "HeartbeatAnswered",
    "JoinAnswered",
    "JoinedMember",
    "MemberState",
    "Metadata",
    "Mode",
    "OffsetCommitAnswered",
    "OffsetFetchAnswered",
    "Output",
    "Poll",
    "Raised",
    "RebalanceProtocol",
    "ResetOffset",
    "Sent",
    "Subscribe",
    "SubscribePattern",
    "SyncAnswered",
    "Tick",
    "TopicMetadata",
    "Unsubscribe",
    "View",
]

#: A topic partition, (topic, partition).
TP = tuple[str, int]

#: The simple name of the exception class each group error is raised as (Kafka's Errors table):
#: what the application catches and what a failed rebalance's rejoin reason names. An error not
#: listed reaches the application as a plain KafkaException.
EXCEPTION_CLASSES: dict[Errors, str] = {
    Errors.UNKNOWN_MEMBER_ID: "UnknownMemberIdException",
    Errors.MEMBER_ID_REQUIRED: "MemberIdRequiredException",
    Errors.REBALANCE_IN_PROGRESS: "RebalanceInProgressException",
    Errors.ILLEGAL_GENERATION: "IllegalGenerationException",
    Errors.FENCED_INSTANCE_ID: "FencedInstanceIdException",
    Errors.COORDINATOR_NOT_AVAILABLE: "CoordinatorNotAvailableException",
    Errors.NOT_COORDINATOR: "NotCoordinatorException",
    Errors.COORDINATOR_LOAD_IN_PROGRESS: "CoordinatorLoadInProgressException",
    Errors.GROUP_AUTHORIZATION_FAILED: "GroupAuthorizationException",
    Errors.INCONSISTENT_GROUP_PROTOCOL: "InconsistentGroupProtocolException",
    Errors.INVALID_SESSION_TIMEOUT: "InvalidSessionTimeoutException",
    Errors.INVALID_GROUP_ID: "InvalidGroupIdException",
    Errors.GROUP_MAX_SIZE_REACHED: "GroupMaxSizeReachedException",
    Errors.UNSUPPORTED_VERSION: "UnsupportedVersionException",
}


#: The error codes whose exception Kafka's client counts as retriable (a RetriableException
#: subclass in kafka-clients' org.apache.kafka.common.errors): a request failing with one of
#: them is tried again rather than reported, where the handler leaves the choice to the class.
RETRIABLE_ERRORS = frozenset({
    Errors.CORRUPT_MESSAGE, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.LEADER_NOT_AVAILABLE,
    Errors.NOT_LEADER_OR_FOLLOWER, Errors.REQUEST_TIMED_OUT, Errors.NETWORK_EXCEPTION,
    Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
    Errors.FENCED_LEADER_EPOCH, Errors.UNSTABLE_OFFSET_COMMIT, Errors.SHARE_SESSION_NOT_FOUND,
    Errors.INVALID_SHARE_SESSION_EPOCH, Errors.SHARE_SESSION_LIMIT_REACHED,
})


class MemberState(Enum):
    """AbstractCoordinator.MemberState: where the member is in the join/sync round trip."""

    UNJOINED = "UNJOINED"
    PREPARING_REBALANCE = "PREPARING_REBALANCE"
    COMPLETING_REBALANCE = "COMPLETING_REBALANCE"
    STABLE = "STABLE"


_M = MemberState
#: The member states each state may be entered from within one step (a step may pass through
#: UNJOINED on the way: a fenced JoinGroup resets and resends at once). The spec checks every step
#: against it and docs/machines/classic_consumer.md draws it (groupspec/diagrams.py checks the drawing).
PREDECESSORS: dict[MemberState, frozenset[MemberState]] = {
    _M.UNJOINED: frozenset({_M.PREPARING_REBALANCE, _M.COMPLETING_REBALANCE, _M.STABLE}),
    _M.PREPARING_REBALANCE: frozenset({_M.UNJOINED, _M.PREPARING_REBALANCE, _M.COMPLETING_REBALANCE,
                                       _M.STABLE}),
    _M.COMPLETING_REBALANCE: frozenset({_M.PREPARING_REBALANCE}),
    _M.STABLE: frozenset({_M.COMPLETING_REBALANCE}),
}


class Mode(Enum):
    """SubscriptionState's subscription type: a consumer either joins a group or assigns itself."""

    NONE = "NONE"
    SUBSCRIBED = "AUTO_TOPICS"
    ASSIGNED = "USER_ASSIGNED"


class RebalanceProtocol(Enum):
    EAGER = "EAGER"
    COOPERATIVE = "COOPERATIVE"


_RESETS = ("earliest", "latest", "none")


@dataclass(frozen=True)
class Config:
    group_id: str = "group"
    #: The assignor names the member offers, in preference order (JoinGroup protocols).
    assignors: tuple[str, ...] = ("range",)
    protocol: RebalanceProtocol = RebalanceProtocol.EAGER
    heartbeat_interval_ms: int = 3_000
    #: How long the heartbeat thread goes without a successful heartbeat answer before it takes
    #: the coordinator for dead (and finds it again: the requests in flight are lost).
    session_timeout_ms: int = 45_000
    #: ``max.poll.interval.ms``: the consumer's rebalance timeout, and how long the heartbeat
    #: thread lets the application go without a poll before it leaves the group for it.
    rebalance_timeout_ms: int = 300_000
    auto_offset_reset: str = "latest"
    #: ``group.instance.id``: a static member when set. It goes with every JoinGroup, SyncGroup,
    #: Heartbeat and subscribed OffsetCommit, and such a member sends no LeaveGroup when it
    #: unsubscribes (its session timeout, not a leave, ends its membership).
    group_instance_id: str | None = None
    #: ``client.rack``: sent in the subscription (rack-aware assignors read it).
    client_rack: str | None = None
    #: ``enable.auto.commit``. Kafka's default is true when a group id is set; the model's is
    #: false, so a run commits only where it says so unless it asks for auto-commit.
    enable_auto_commit: bool = False
    auto_commit_interval_ms: int = 5_000
    #: ``retry.backoff.ms``: how long a retriable auto-commit failure delays the next one, and
    #: the first backoff of the heartbeat thread after a failed heartbeat.
    retry_backoff_ms: int = 100
    #: ``request.timeout.ms``: a request unanswered this long (a JoinGroup: the rebalance timeout
    #: and 5 s more, if that is longer) closes the connection, losing everything in flight on it.
    request_timeout_ms: int = 30_000
    #: ``retry.backoff.max.ms``: the failed heartbeats' backoff doubles from ``retry_backoff_ms``
    #: up to this (Kafka draws it within 20% either side; the model takes the middle).
    retry_backoff_max_ms: int = 1_000

    def __post_init__(self) -> None:
        if not self.group_id:
            raise InputError("group_id", "must not be empty")
        if self.group_instance_id == "":
            raise InputError("group_instance_id", "must not be empty (leave it out for a dynamic member)")
        if not self.assignors:
            raise InputError("assignors", "must name at least one assignor")
        if self.heartbeat_interval_ms <= 0:
            raise InputError("heartbeat_interval_ms", f"must be positive, got {self.heartbeat_interval_ms}")
        if self.auto_commit_interval_ms <= 0:
            raise InputError("auto_commit_interval_ms",
                             f"must be positive, got {self.auto_commit_interval_ms}")
        if self.retry_backoff_ms < 0:
            raise InputError("retry_backoff_ms", f"must be 0 or more, got {self.retry_backoff_ms}")
        if self.retry_backoff_max_ms < 0:
            raise InputError("retry_backoff_max_ms", f"must be 0 or more, got {self.retry_backoff_max_ms}")
        if self.heartbeat_interval_ms >= self.session_timeout_ms:
            # Kafka's Heartbeat refuses it: the session would end before the first heartbeat
            raise InputError("heartbeat_interval_ms", f"must be below session_timeout_ms "
                             f"({self.session_timeout_ms}), got {self.heartbeat_interval_ms}")
        if self.request_timeout_ms <= 0:
            raise InputError("request_timeout_ms", f"must be positive, got {self.request_timeout_ms}")
        if self.rebalance_timeout_ms <= 0:
            raise InputError("rebalance_timeout_ms", f"must be positive, got {self.rebalance_timeout_ms}")
        if self.auto_offset_reset not in _RESETS:
            raise InputError("auto_offset_reset", f"must be one of {_RESETS}, got {self.auto_offset_reset!r}")


# --- events: application calls ---------------------------------------------------------------


@dataclass(frozen=True)
class Subscribe:
    topics: tuple[str, ...]


@dataclass(frozen=True)
class SubscribePattern:
    """subscribe(Pattern): the topics are those of the consumer's metadata whose whole name the
    pattern matches (Python's ``re.fullmatch``; java.util.regex agrees on the common syntax),
    matched again at every metadata refresh."""

    pattern: str

    def __post_init__(self) -> None:
        if not self.pattern:
            raise InputError("pattern", "a topic pattern must not be empty")
        try:
            re.compile(self.pattern)
        except re.error as e:
            raise InputError("pattern", f"not a regular expression: {e}") from None


@dataclass(frozen=True)
class Assign:
    partitions: tuple[TP, ...]


@dataclass(frozen=True)
class Unsubscribe:
    pass


@dataclass(frozen=True)
class Poll:
    """The application's poll at ``now_ms``; the membership work happens inside it."""

    now_ms: int

    def __post_init__(self) -> None:
        # The consumer's clock starts at 0 and only moves forward; a poll before it is a mistake
        # in the run, not a time the client could see.
        if self.now_ms < 0:
            raise InputError("now_ms", f"a poll's time is 0 or later, got {self.now_ms}")


@dataclass(frozen=True)
class Tick:
    """Time passes while the application is busy elsewhere: the clock moves to ``now_ms`` and
    only the heartbeat thread acts (a heartbeat, the session or the poll timeout)."""

    now_ms: int

    def __post_init__(self) -> None:
        if self.now_ms < 0:
            raise InputError("now_ms", f"a tick's time is 0 or later, got {self.now_ms}")


@dataclass(frozen=True)
class CommitSync:
    offsets: tuple[tuple[TP, int], ...]


@dataclass(frozen=True)
class CommitAsync:
    """commitAsync: the OffsetCommit goes now; its outcome reaches the application as a
    CommitCallback at a later poll or commit call."""

    offsets: tuple[tuple[TP, int], ...]


@dataclass(frozen=True)
class Consumed:
    """Records reached the application: each listed partition's position (the next offset to
    read) is now the given one. Auto-commit commits these positions; partitions the consumer
    does not own are ignored (the fetcher drops their records)."""

    offsets: tuple[tuple[TP, int], ...]


#: CloseOptions.GroupMembershipOperation: whether close() sends a LeaveGroup. DEFAULT leaves
#: for a dynamic member only, LEAVE_GROUP always, REMAIN_IN_GROUP never.
CLOSE_OPERATIONS = ("DEFAULT", "LEAVE_GROUP", "REMAIN_IN_GROUP")


@dataclass(frozen=True)
class Close:
    """close(): the auto-commit (if on) is committed and waited for, then the partitions are given
    up and the member leaves as ``operation`` says; every later call fails."""

    operation: str = "DEFAULT"

    def __post_init__(self) -> None:
        if self.operation not in CLOSE_OPERATIONS:
            raise InputError("operation", f"must be one of {CLOSE_OPERATIONS}, got {self.operation!r}")


@dataclass(frozen=True)
class TopicMetadata:
    """One topic as a metadata refresh describes it.

    ``replica_racks`` lists, per partition, the racks of that partition's replicas (replicas on
    brokers without a rack left out); () when the refresh named no racks at all.
    """

    name: str
    partitions: int
    replica_racks: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        if not self.name:
            raise InputError("name", "a topic name must not be empty")
        if self.partitions < 0:
            raise InputError(f"topics.{self.name}.partitions", f"must be 0 or more, got {self.partitions}")
        if self.replica_racks and len(self.replica_racks) != self.partitions:
            listed = len(self.replica_racks)
            raise InputError(f"topics.{self.name}.replica_racks",
                             f"{listed} partition(s) listed, but the topic has {self.partitions}")


@dataclass(frozen=True)
class Metadata:
    """A metadata refresh: the cluster's topics as the consumer now knows them (the whole set,
    replacing what it knew before). The leader's assignor reads it."""

    topics: tuple[TopicMetadata, ...]

    def __post_init__(self) -> None:
        names = [t.name for t in self.topics]
        for name in names:
            if names.count(name) > 1:
                raise InputError(f"topics.{name}", "a topic is listed twice")


# --- events: answers --------------------------------------------------------------------------


@dataclass(frozen=True)
class JoinedMember:
    """One member of a leader's JoinGroup answer, its metadata bytes decoded (the codec's work)."""

    member_id: str
    subscription: ConsumerProtocolSubscription
    group_instance_id: str | None = None


@dataclass(frozen=True)
class JoinAnswered:
    response: JoinGroupResponse
    #: An override of what the leader sends in its SyncGroup (member id -> assignment): when
    #: given, the leader sends it as it is and runs no assignor (drivers that script the leader).
    leader_assignments: tuple[tuple[str, ConsumerProtocolAssignment], ...] = ()
    #: The group's members with their subscriptions, in the answer's order: what the leader's
    #: assignor reads (followers get none). Without them and without an override the leader
    #: sends no assignments.
    members: tuple[JoinedMember, ...] = ()


@dataclass(frozen=True)
class SyncAnswered:
    response: SyncGroupResponse
    assignment: ConsumerProtocolAssignment = field(
        default_factory=lambda: ConsumerProtocolAssignment(assigned_partitions=()))


@dataclass(frozen=True)
class HeartbeatAnswered:
    """The answer to the oldest heartbeat still unanswered (one connection answers in order)."""

    response: HeartbeatResponse


@dataclass(frozen=True)
class OffsetFetchAnswered:
    response: OffsetFetchResponse


@dataclass(frozen=True)
class OffsetCommitAnswered:
    """The answer to the oldest OffsetCommit still unanswered (one connection answers in order)."""

    response: OffsetCommitResponse


Event = (Subscribe | SubscribePattern | Assign | Unsubscribe | Poll | CommitSync | JoinAnswered
         | SyncAnswered | HeartbeatAnswered | OffsetFetchAnswered | Metadata | CommitAsync | Consumed
         | OffsetCommitAnswered | Close | Tick)

#: What poll() raises (IllegalStateException) when the consumer neither subscribed nor assigned
#: itself partitions (ClassicKafkaConsumer#poll's first check).
NOT_SUBSCRIBED = "the consumer is not subscribed to any topics or assigned any partitions"

#: The events that are the application's own calls (the others arrive from the network): a
#: closed consumer refuses them, and none can happen while close() waits for its commit.
APPLICATION_CALLS = (Subscribe, SubscribePattern, Assign, Unsubscribe, Poll, CommitSync, CommitAsync,
                     Consumed, Close)


# --- outputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    """A request the client sends; a JoinGroup's subscription rides next to it, typed."""

    request: JoinGroup | SyncGroup | Heartbeat | LeaveGroup | OffsetCommit
    subscription: ConsumerProtocolSubscription | None = None
    #: A leader's SyncGroup assignments, typed (the request's own list stays empty).
    assignments: tuple[tuple[str, ConsumerProtocolAssignment], ...] = ()


@dataclass(frozen=True)
class Callback:
    """A ConsumerRebalanceListener call: ``revoked``, ``assigned`` or ``lost``, sorted partitions."""

    kind: str
    partitions: tuple[TP, ...]


@dataclass(frozen=True)
class ResetOffset:
    """No committed offset: the position starts at the ``earliest`` or ``latest`` offset."""

    partition: TP
    to: str


@dataclass(frozen=True)
class Raised:
    """An exception the application sees from the call (its Kafka class name) and why."""

    error: str
    detail: str = ""


@dataclass(frozen=True)
class CommitCallback:
    """An OffsetCommitCallback call for one commitAsync: its offsets and the exception's class
    name (None: committed). Kafka runs these from the next poll, commitSync or commitAsync."""

    offsets: tuple[tuple[TP, int], ...]
    error: str | None = None


Output = Sent | Callback | ResetOffset | Raised | CommitCallback

#: Requests a Sent may carry (re-exported so callers need one import).
REQUESTS = (JoinGroup, SyncGroup, LeaveGroup, OffsetCommit)


@dataclass(frozen=True)
class View:
    """What both layers must agree on after each event."""

    state: MemberState
    mode: Mode
    member_id: str
    generation: int
    subscription: tuple[str, ...]
    owned: tuple[TP, ...]
    rejoin_needed: bool
    in_flight: str | None
    fatal: str | None
    #: Positions of owned partitions (what auto-commit commits).
    positions: tuple[tuple[TP, int], ...] = ()
    #: OffsetCommits sent and not yet answered.
    commits_in_flight: int = 0
    #: The subscribed pattern, if the subscription is one (``subscription`` is then its matches).
    pattern: str | None = None
    #: close() is waiting for its commit's answer.
    closing: bool = False
    closed: bool = False
    #: Heartbeats sent and not yet answered (the thread does not wait for one before the next;
    #: ``in_flight`` says "heartbeat" when they are all that is outstanding).
    heartbeats_in_flight: int = 0

"""The share group coordinator's words: ShareGroupHeartbeat, topic metadata, share-state
initialization, records, configs and the observable view.

A share group (KIP-932) is run by the group coordinator through one request, ShareGroupHeartbeat
(API key 76, v1): a member joins with epoch 0, heartbeats with its epoch, leaves with -1, and
gets its target assignment straight away (no revocation: several members may share a
partition). Every change is a record in ``__consumer_offsets`` (types 10-15). A partition is
assignable only once its share state exists: the coordinator asks the share-state persister to
initialize it (InitializeShareGroupState) and records the outcome.

The spec (``groupspec.spec.share_group``) and the implementation take the same events and must
answer the same values. The persister is outside the coordinator here: an
:class:`InitializeRequest` appears in the step's output and a :class:`PersisterAnswer` event
brings its answer back, so a driver controls when (and whether) it lands.

Names, defaults and numbers follow Kafka 4.2 (share_group_coordinator.md, the shared reference
folder's fact sheet; its section numbers are quoted as §n).
"""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord

#: Member epochs with a meaning of their own (§1.1).
JOIN_EPOCH = 0
LEAVE_EPOCH = -1
#: ShareGroupCurrentMemberAssignment's State: share members are always STABLE (§1.5).
MEMBER_STABLE = 0


@dataclass(frozen=True)
class ShareGroupConfig:
    """The broker's share-group settings (GroupCoordinatorConfig / ShareGroupConfig, §5).

    ``min_*``/``max_*`` bound the per-group overrides (:class:`SetGroupConfig`).
    """

    session_timeout_ms: int = 45_000
    min_session_timeout_ms: int = 45_000
    max_session_timeout_ms: int = 60_000
    heartbeat_interval_ms: int = 5_000
    min_heartbeat_interval_ms: int = 5_000
    max_heartbeat_interval_ms: int = 15_000
    max_size: int = 200
    initialize_retry_interval_ms: int = 30_000
    offsets_commit_timeout_ms: int = 5_000
    offsets_topic_partitions: int = 50

    @property
    def retry_interval_ms(self) -> int:
        """§3.2: an initializing entry younger than this is not requested again."""
        return max(self.initialize_retry_interval_ms, self.offsets_commit_timeout_ms)


# ---------------------------------------------------------------------------------------------
# Topic metadata (the broker's metadata image, as far as the coordinator reads it)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopicMetadata:
    name: str
    #: The topic id, 36-character uuid text.
    topic_id: str
    partitions: int
    #: Racks of each partition's replicas, one tuple per partition; empty when racks are unknown.
    racks: tuple[tuple[str, ...], ...] = ()


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShareGroupHeartbeat:
    """ShareGroupHeartbeatRequest v1 with what the broker adds (client id from the request
    header, host from the connection). ``None`` fields were not sent (unchanged)."""

    group_id: str
    member_id: str
    member_epoch: int
    rack_id: str | None = None
    subscribed_topic_names: tuple[str, ...] | None = None
    client_id: str = "client"
    client_host: str = "/127.0.0.1"


@dataclass(frozen=True)
class UpdateMetadata:
    """A new metadata image: the topics that exist from now on (replaces the previous image)."""

    topics: tuple[TopicMetadata, ...]


@dataclass(frozen=True)
class PersisterAnswer:
    """The share-state persister answers the InitializeShareGroupState request issued by event
    ``request`` (NONE: every partition initialized; anything else: the request failed)."""

    request: int
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class AdvanceClock:
    to_ms: int


@dataclass(frozen=True)
class DeleteGroups:
    group_ids: tuple[str, ...]


@dataclass(frozen=True)
class SetGroupConfig:
    """IncrementalAlterConfigs on a GROUP resource: the share group's dynamic overrides (§5);
    ``None`` removes an override."""

    group_id: str
    session_timeout_ms: int | None = None
    heartbeat_interval_ms: int | None = None


@dataclass(frozen=True)
class Restart:
    """The coordinator shard fails over: everything not written is forgotten, the log is
    replayed, every member gets a fresh session timeout (§1.7)."""


ShareGroupRequest = ShareGroupHeartbeat | DeleteGroups | SetGroupConfig
ShareGroupEvent = ShareGroupRequest | UpdateMetadata | PersisterAnswer | AdvanceClock | Restart


# ---------------------------------------------------------------------------------------------
# Responses and other outputs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopicPartitions:
    topic_id: str
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class ShareGroupHeartbeatResponse:
    error: Errors = Errors.NONE
    member_id: str | None = None
    member_epoch: int = 0
    heartbeat_interval_ms: int = 0
    #: Set on a join, on a full request (subscription sent) or when the partitions changed;
    #: topics sorted by id, partitions ascending.
    assignment: tuple[TopicPartitions, ...] | None = None


@dataclass(frozen=True)
class GroupResult:
    group_id: str
    error: Errors


@dataclass(frozen=True)
class DeleteGroupsResponse:
    results: tuple[GroupResult, ...]


@dataclass(frozen=True)
class SetGroupConfigResponse:
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class Answer:
    request: int
    response: object


@dataclass(frozen=True)
class InitializeRequest:
    """InitializeShareGroupState sent to the persister after the event's records are written:
    each partition starts at offset -1 with ``state_epoch`` = the group epoch (§3.2)."""

    request: int
    group_id: str
    state_epoch: int
    topics: tuple[TopicPartitions, ...]


@dataclass(frozen=True)
class Output:
    answers: tuple[Answer, ...] = ()
    records: tuple[CoordinatorRecord, ...] = ()
    initialize: tuple[InitializeRequest, ...] = ()


# ---------------------------------------------------------------------------------------------
# The observable state
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemberView:
    member_id: str
    member_epoch: int
    previous_member_epoch: int
    rack_id: str | None
    client_id: str
    client_host: str
    subscribed_topic_names: tuple[str, ...]
    assigned: tuple[TopicPartitions, ...]
    target: tuple[TopicPartitions, ...]
    #: When the session timeout fires.
    session_deadline_ms: int | None


@dataclass(frozen=True)
class InitTopicView:
    topic_id: str
    topic_name: str
    partitions: tuple[int, ...]
    timestamp_ms: int


@dataclass(frozen=True)
class GroupView:
    group_id: str
    #: "Empty" or "Stable".
    state: str
    group_epoch: int
    assignment_epoch: int
    metadata_hash: int
    members: tuple[MemberView, ...]
    initializing: tuple[InitTopicView, ...]
    initialized: tuple[InitTopicView, ...]
    deleting: tuple[str, ...]
    session_timeout_ms: int | None
    heartbeat_interval_ms: int | None


@dataclass(frozen=True)
class ShareCoordinatorView:
    now_ms: int
    groups: tuple[GroupView, ...]
    #: InitializeShareGroupState requests not answered yet, by request index.
    pending_initialize: tuple[int, ...]

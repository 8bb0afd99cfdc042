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

import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from groupspec.types import records as r
from groupspec.types import wire_bounds as wire
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import CoordinatorRecord
from groupspec.types.topic_id import canonical

_ZERO_UUID = "00000000-0000-0000-0000-000000000000"

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
    #: The group epoch and target assignment epoch a new group starts at: 0 in Kafka 4.2, 1 from
    #: 4.3 (KAFKA-20268, ``ModernGroup``'s constructor), so every later epoch is one higher there.
    #: groupspec.kafka_versions names the value each release has.
    initial_group_epoch: int = 0

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
# The records the coordinator writes, spelled from plain values (GroupCoordinatorRecordHelpers)
# ---------------------------------------------------------------------------------------------

#: A member's assignment or target: topic id -> partitions.
Assignment = Mapping[str, frozenset[int]]


def topic_partitions(assignment: Assignment) -> tuple[TopicPartitions, ...]:
    """An assignment as answers and records list it: topics by id, partitions ascending, no
    topic without partitions."""
    return tuple(TopicPartitions(t, tuple(sorted(assignment[t]))) for t in sorted(assignment)
                 if assignment[t])


def member_record(group_id: str, member_id: str, rack_id: str | None, client_id: str,
                  client_host: str, subscription: Iterable[str]) -> CoordinatorRecord:
    value = r.ShareGroupMemberMetadataValue(rack_id, client_id, client_host, tuple(sorted(subscription)))
    return CoordinatorRecord(r.ShareGroupMemberMetadataKey(group_id, member_id), value, 0)


def epoch_record(group_id: str, epoch: int, metadata_hash: int) -> CoordinatorRecord:
    value = r.ShareGroupMetadataValue(epoch, metadata_hash)
    return CoordinatorRecord(r.ShareGroupMetadataKey(group_id), value, 0)


def target_member_record(group_id: str, member_id: str, target: Assignment) -> CoordinatorRecord:
    entry = r.ShareGroupTargetAssignmentMemberValue.TopicPartition
    parts = tuple(entry(uuid.UUID(tp.topic_id), tp.partitions) for tp in topic_partitions(target))
    return CoordinatorRecord(r.ShareGroupTargetAssignmentMemberKey(group_id, member_id),
                             r.ShareGroupTargetAssignmentMemberValue(parts), 0)


def target_epoch_record(group_id: str, assignment_epoch: int) -> CoordinatorRecord:
    return CoordinatorRecord(r.ShareGroupTargetAssignmentMetadataKey(group_id),
                             r.ShareGroupTargetAssignmentMetadataValue(assignment_epoch), 0)


def current_record(group_id: str, member_id: str, epoch: int, previous_epoch: int,
                   assigned: Assignment) -> CoordinatorRecord:
    entry = r.ShareGroupCurrentMemberAssignmentValue.TopicPartitions
    parts = tuple(entry(uuid.UUID(tp.topic_id), tp.partitions) for tp in topic_partitions(assigned))
    value = r.ShareGroupCurrentMemberAssignmentValue(epoch, previous_epoch, MEMBER_STABLE, parts)
    return CoordinatorRecord(r.ShareGroupCurrentMemberAssignmentKey(group_id, member_id), value, 0)


def state_record(group_id: str, initializing: Mapping[str, tuple[str, frozenset[int]]],
                 initialized: Mapping[str, tuple[str, frozenset[int]]],
                 deleting: Mapping[str, str]) -> CoordinatorRecord:
    """ShareGroupStatePartitionMetadata; the first two map topic id -> (topic name, partitions)."""
    value = r.ShareGroupStatePartitionMetadataValue

    def listed(entries: Mapping[str, tuple[str, frozenset[int]]]) -> tuple[Any, ...]:
        return tuple(value.TopicPartitionsInfo(uuid.UUID(t), entries[t][0], tuple(sorted(entries[t][1])))
                     for t in sorted(entries))

    topics = tuple(value.TopicInfo(uuid.UUID(t), deleting[t]) for t in sorted(deleting))
    return CoordinatorRecord(r.ShareGroupStatePartitionMetadataKey(group_id),
                             value(listed(initializing), listed(initialized), topics), 0)


def tombstone(key: object) -> CoordinatorRecord:
    return CoordinatorRecord(key, None, None)


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


# ---------------------------------------------------------------------------------------------
# The edge: what a broker (its request parsing, its metadata image) would never hand the coordinator
# ---------------------------------------------------------------------------------------------

#: groupspec's bound on a topic's partition count. Kafka's is the int32 range, but a coordinator
#: walks every partition of a subscribed topic on a heartbeat (hashing, initialization), so an
#: image claiming billions would exhaust memory long before Kafka's limit.
MAX_TOPIC_PARTITIONS = 1_000_000
_TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")


def _check_topic(t: object, path: str) -> TopicMetadata:
    """A topic as Kafka's metadata image holds it; the id comes back in the vocabulary's spelling."""
    wire.instance(t, path, TopicMetadata)
    assert isinstance(t, TopicMetadata)
    wire.text(t.name, f"{path}.name")
    if not _TOPIC_NAME.fullmatch(t.name) or t.name in (".", ".."):
        raise InputError(f"{path}.name", f"{t.name!r} is not a legal topic name (1 to 249 of "
                                         "a-z A-Z 0-9 . _ -, and not '.' or '..')")
    topic_id = canonical(t.topic_id, f"{path}.topic_id")
    if topic_id == _ZERO_UUID:
        raise InputError(f"{path}.topic_id", "the zero Uuid is reserved (Uuid.ZERO_UUID names no topic)")
    wire.integer(t.partitions, f"{path}.partitions", "int32", minimum=1, maximum=MAX_TOPIC_PARTITIONS)
    racks = wire.array(t.racks, f"{path}.racks")
    if len(racks) > t.partitions:
        raise InputError(f"{path}.racks", f"{len(racks)} entries for {t.partitions} partitions")
    for i, replicas in enumerate(racks):
        wire.texts(replicas, f"{path}.racks[{i}]")
    return t if topic_id == t.topic_id else replace(t, topic_id=topic_id)


def check_topics(topics: object, path: str = "topics") -> tuple[TopicMetadata, ...]:
    """A metadata image: legal topics, no name or id twice; ids in the 36-character spelling."""
    checked = tuple(_check_topic(t, f"{path}[{i}]") for i, t in enumerate(wire.array(topics, path)))
    names: set[str] = set()
    ids: set[str] = set()
    for i, t in enumerate(checked):
        if t.name in names:
            raise InputError(f"{path}[{i}].name", f"topic {t.name!r} appears twice in one image")
        if t.topic_id in ids:
            raise InputError(f"{path}[{i}].topic_id", f"topic id {t.topic_id} appears twice in one image")
        names.add(t.name)
        ids.add(t.topic_id)
    return checked


def check_no_rename(previous: Iterable[TopicMetadata], topics: tuple[TopicMetadata, ...]) -> None:
    """A topic keeps its name for life: an image giving a known topic id another name is refused.

    Kafka never renames a topic (a topic deleted and created again gets a new id), so no image
    it publishes does this; a machine that took it would find members assigned a topic they do
    not subscribe to.
    """
    names = {t.topic_id: t.name for t in previous}
    for i, t in enumerate(topics):
        before = names.get(t.topic_id)
        if before is not None and before != t.name:
            raise InputError(f"topics[{i}].name", f"topic id {t.topic_id} is topic {before!r}; "
                                                  f"a topic is never renamed (got {t.name!r})")


def _check_heartbeat(e: ShareGroupHeartbeat) -> ShareGroupHeartbeat:
    wire.text(e.group_id, "group_id")
    wire.text(e.member_id, "member_id")
    wire.integer(e.member_epoch, "member_epoch", "int32")
    wire.text(e.rack_id, "rack_id", nullable=True)
    wire.texts(e.subscribed_topic_names, "subscribed_topic_names", nullable=True)
    wire.text(e.client_id, "client_id")
    wire.text(e.client_host, "client_host")
    return e


def _check_update(e: UpdateMetadata) -> UpdateMetadata:
    topics = check_topics(e.topics)
    return e if topics == e.topics else UpdateMetadata(topics)


def _check_answer(e: PersisterAnswer) -> PersisterAnswer:
    wire.integer(e.request, "request", "int64", minimum=0)
    if not isinstance(e.error, Errors):
        raise InputError("error", f"expected an Errors code, got {type(e.error).__name__}")
    return e


def _check_clock(e: AdvanceClock) -> AdvanceClock:
    wire.integer(e.to_ms, "to_ms", "int64")
    return e


def _check_delete(e: DeleteGroups) -> DeleteGroups:
    wire.texts(e.group_ids, "group_ids")
    return e


def _check_config(e: SetGroupConfig) -> SetGroupConfig:
    wire.text(e.group_id, "group_id")
    wire.integer(e.session_timeout_ms, "session_timeout_ms", "int32", nullable=True)
    wire.integer(e.heartbeat_interval_ms, "heartbeat_interval_ms", "int32", nullable=True)
    return e


_CHECKS: dict[type, Callable[[Any], ShareGroupEvent]] = {
    ShareGroupHeartbeat: _check_heartbeat,
    UpdateMetadata: _check_update,
    PersisterAnswer: _check_answer,
    AdvanceClock: _check_clock,
    DeleteGroups: _check_delete,
    SetGroupConfig: _check_config,
    Restart: lambda e: e,
}


def check_event(event: object, index: object = 0) -> ShareGroupEvent:
    """Refuse what a broker would never hand the coordinator: an :class:`InputError` naming the field.

    Both layers call this first and go on with what it returns (the event with its topic ids in
    the 36-character spelling, whichever spelling was given), so a refused event changes
    nothing in either, and both raise the same error.
    """
    wire.integer(index, "index", "int64", minimum=0)
    check = _CHECKS.get(type(event))
    if check is None:
        raise InputError("event", f"{type(event).__name__} is not a share group event")
    return check(event)


def check_config(config: object) -> None:
    """A ShareGroupConfig whose settings are positive int32s, as Kafka's config definitions require."""
    if not isinstance(config, ShareGroupConfig):
        raise InputError("config", f"expected a ShareGroupConfig, got {type(config).__name__}")
    for name in ("session_timeout_ms", "min_session_timeout_ms", "max_session_timeout_ms",
                 "heartbeat_interval_ms", "min_heartbeat_interval_ms", "max_heartbeat_interval_ms",
                 "max_size", "initialize_retry_interval_ms", "offsets_commit_timeout_ms",
                 "offsets_topic_partitions"):
        wire.integer(getattr(config, name), f"config.{name}", "int32", minimum=1)
    wire.integer(config.initial_group_epoch, "config.initial_group_epoch", "int32", minimum=0, maximum=1)

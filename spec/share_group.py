"""The share group coordinator, as rules: ShareGroupHeartbeat and everything it writes.

Theory of operation
-------------------
One step function over events (heartbeats, metadata images, persister answers, clock advances,
group deletions and configs, failovers). Every durable change is a record of
``__consumer_offsets`` (types 10-15), appended to ``log``; a ``Restart`` forgets everything and
replays the log, so the records alone must rebuild the groups. The fact sheet
(share_group_coordinator.md, shared reference folder) gives each rule's upstream source; its
section numbers are quoted as §n.

* A member heartbeats with its epoch: 0 to join, its current (or previous) epoch to stay, -1 to
  leave. Validation follows Kafka's order (§1.2); the first failure answers and changes nothing.
* The group epoch rises when a subscription or the subscribed topics' metadata hash changes,
  when newly initialized partitions are waiting to be assigned (§3.4), and when a member leaves
  or times out. A heartbeat that finds the group epoch above the target's computes a new target
  for everyone with the SimpleAssignor (``spec.simple_assignor``), restricted to partitions whose
  share state is initialized (§3.3).
* A member takes its target at once (no revocation, §1.5): its epoch jumps to the target epoch
  and it gets the target partitions of the topics it subscribes to.
* After the records, the heartbeat asks the share-state persister to initialize subscribed
  partitions not yet covered (§3.2); a :class:`PersisterAnswer` event brings the outcome back.

Canonical choices where Kafka leaves orders to Java hash maps (docs/divergences.md): members in
the order they joined; record lists of topics sorted by topic id, partitions ascending.

Out of scope for now: partition ownership and loading (every group is hosted here), group types
other than share (no GROUP_ID_NOT_FOUND for a consumer group's id), the persister round trip of
DeleteGroups (deleteState is taken to succeed at once), DeleteShareGroupOffsets and
AlterShareGroupOffsets, authorization.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field

import icontract

from groupspec.spec.simple_assignor import assign
from groupspec.types import AssignorInput, MemberSpec
from groupspec.types import wire_bounds as wire
from groupspec.types.errors import Errors
from groupspec.types.records import (
    CoordinatorRecord,
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupCurrentMemberAssignmentValue,
    ShareGroupMemberMetadataKey,
    ShareGroupMemberMetadataValue,
    ShareGroupMetadataKey,
    ShareGroupMetadataValue,
    ShareGroupStatePartitionMetadataKey,
    ShareGroupStatePartitionMetadataValue,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMemberValue,
    ShareGroupTargetAssignmentMetadataKey,
    ShareGroupTargetAssignmentMetadataValue,
)
from groupspec.types.records.metadata_hash import group_hash, topic_hash
from groupspec.types.share_group import (
    JOIN_EPOCH,
    LEAVE_EPOCH,
    MEMBER_STABLE,
    AdvanceClock,
    Answer,
    DeleteGroups,
    DeleteGroupsResponse,
    GroupResult,
    GroupView,
    InitializeRequest,
    InitTopicView,
    MemberView,
    Output,
    PersisterAnswer,
    Restart,
    SetGroupConfig,
    SetGroupConfigResponse,
    ShareCoordinatorView,
    ShareGroupConfig,
    ShareGroupEvent,
    ShareGroupHeartbeat,
    ShareGroupHeartbeatResponse,
    TopicMetadata,
    TopicPartitions,
    UpdateMetadata,
    check_config,
    check_event,
    check_no_rename,
    check_topics,
)

INT_MAX = 2**31 - 1
UNKNOWN_TOPIC_NAME = "<UNKNOWN>"
#: topic id -> partitions
Assignment = dict[str, frozenset[int]]


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


@dataclass
class Member:
    member_id: str
    epoch: int = 0
    previous_epoch: int = -1
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscription: frozenset[str] = frozenset()
    assigned: Assignment = field(default_factory=dict)


@dataclass
class InitEntry:
    name: str
    partitions: frozenset[int]
    #: When it was requested (or replayed); only initializing entries use it (§3.2).
    timestamp: int


@dataclass
class StateMetadata:
    """ShareGroupStatePartitionMetadataInfo (§3.1), keyed by topic id."""

    initializing: dict[str, InitEntry] = field(default_factory=dict)
    initialized: dict[str, InitEntry] = field(default_factory=dict)
    #: topic id -> topic name
    deleting: dict[str, str] = field(default_factory=dict)


@dataclass
class Group:
    group_id: str
    epoch: int = 0
    metadata_hash: int = 0
    assignment_epoch: int = 0
    #: In join order.
    members: dict[str, Member] = field(default_factory=dict)
    target: dict[str, Assignment] = field(default_factory=dict)
    state_metadata: StateMetadata | None = None
    #: (deadline ms, group epoch): the subscribed topics' metadata is refreshed when the clock
    #: reaches the deadline or the epoch falls below it (§1.3 step 4).
    refresh: tuple[int, int] = (0, 0)

    @property
    def subscribed_names(self) -> frozenset[str]:
        return frozenset(t for m in self.members.values() for t in m.subscription)


@dataclass
class Session:
    deadline: int
    seq: int


@dataclass
class State:
    config: ShareGroupConfig
    now: int
    topics: dict[str, TopicMetadata] = field(default_factory=dict)
    groups: dict[str, Group] = field(default_factory=dict)
    #: (group id, member id) -> its session timer.
    sessions: dict[tuple[str, str], Session] = field(default_factory=dict)
    seq: int = 0
    #: request index -> (group id, topic id -> partitions) of unanswered initialize requests.
    pending: dict[int, tuple[str, dict[str, frozenset[int]]]] = field(default_factory=dict)
    #: group id -> (session timeout, heartbeat interval) overrides; broker metadata, not records.
    group_configs: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)
    log: list[CoordinatorRecord] = field(default_factory=list)

    def topic_by_id(self, topic_id: str) -> TopicMetadata | None:
        return next((t for t in self.topics.values() if t.topic_id == topic_id), None)


class _Step:
    def __init__(self, state: State) -> None:
        self.s = state
        self.answers: list[Answer] = []
        self.records: list[CoordinatorRecord] = []
        self.initialize: list[InitializeRequest] = []

    def write(self, record: CoordinatorRecord) -> None:
        self.records.append(record)
        self.s.log.append(record)

    def arm(self, group_id: str, member_id: str) -> None:
        self.s.seq += 1
        timeout = self.s.group_configs.get(group_id, (None, None))[0] or self.s.config.session_timeout_ms
        self.s.sessions[(group_id, member_id)] = Session(self.s.now + timeout, self.s.seq)


# ---------------------------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------------------------


def _group_ok(s: State, g: Group) -> bool:
    if g.assignment_epoch > g.epoch or len(g.members) > s.config.max_size:
        return False
    for m in g.members.values():
        if m.epoch > g.assignment_epoch or (g.group_id, m.member_id) not in s.sessions:
            return False
        for topic_id in m.assigned:
            topic = s.topic_by_id(topic_id)
            if topic is not None and topic.name not in m.subscription:
                return False
    return True


def invariants_hold(s: State) -> bool:
    """Epochs ordered, sessions for every member, assignments within subscriptions, no group
    above its maximum size, no session overdue."""
    return (all(_group_ok(s, g) for g in s.groups.values())
            and all(gid in s.groups and mid in s.groups[gid].members for gid, mid in s.sessions)
            and all(t.deadline > s.now for t in s.sessions.values()))


def _epochs_kept(before: State, after: State) -> bool:
    return all(after.groups[g].epoch >= before.groups[g].epoch for g in before.groups if g in after.groups)


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


@icontract.ensure(lambda result: invariants_hold(result))
def initial_state(config: ShareGroupConfig = ShareGroupConfig(),  # noqa: B008
                  topics: tuple[TopicMetadata, ...] = (), now_ms: int = 0) -> State:
    """A coordinator hosting every group, with this metadata image, and no groups."""
    check_config(config)
    topics = check_topics(topics)
    wire.integer(now_ms, "now_ms", "int64")
    return State(config=config, now=now_ms, topics={t.name: t for t in topics})


@icontract.require(lambda state: invariants_hold(state))
@icontract.ensure(lambda result: invariants_hold(result[0]))
@icontract.ensure(lambda state, result: _epochs_kept(state, result[0]))
@icontract.ensure(lambda state, result: result[0].now >= state.now)
def step(state: State, event: ShareGroupEvent, index: int) -> tuple[State, Output]:
    """Apply one event (request ``index``, or an image, a persister answer, a clock advance).

    An event a broker would refuse (:func:`check_event`) raises its InputError before anything
    happens; what the step goes on with is the checked event (topic ids in one spelling).
    """
    event = check_event(event, index)
    st = _Step(copy.deepcopy(state))
    match event:
        case ShareGroupHeartbeat():
            st.answers.append(Answer(index, _heartbeat(st, event, index)))
        case DeleteGroups():
            st.answers.append(Answer(index, _delete_groups(st, event)))
        case SetGroupConfig():
            st.answers.append(Answer(index, _set_config(st, event)))
        case UpdateMetadata():
            _update_metadata(st, event)
        case PersisterAnswer():
            _persister_answer(st, event)
        case AdvanceClock():
            _advance(st, event.to_ms)
        case Restart():
            _restart(st)
    return st.s, Output(tuple(st.answers), tuple(st.records), tuple(st.initialize))


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------


def _ids(assignment: Assignment) -> list[str]:
    return sorted(t for t, ps in assignment.items() if ps)


def _member_record(g: Group, m: Member) -> CoordinatorRecord:
    return CoordinatorRecord(ShareGroupMemberMetadataKey(g.group_id, m.member_id),
                             ShareGroupMemberMetadataValue(m.rack_id, m.client_id, m.client_host,
                                                           tuple(sorted(m.subscription))), 0)


def _epoch_record(g: Group) -> CoordinatorRecord:
    return CoordinatorRecord(ShareGroupMetadataKey(g.group_id),
                             ShareGroupMetadataValue(g.epoch, g.metadata_hash), 0)


def _target_member_record(g: Group, member_id: str, target: Assignment) -> CoordinatorRecord:
    tps = tuple(ShareGroupTargetAssignmentMemberValue.TopicPartition(uuid.UUID(t), tuple(sorted(target[t])))
                for t in _ids(target))
    return CoordinatorRecord(ShareGroupTargetAssignmentMemberKey(g.group_id, member_id),
                             ShareGroupTargetAssignmentMemberValue(tps), 0)


def _target_epoch_record(g: Group) -> CoordinatorRecord:
    return CoordinatorRecord(ShareGroupTargetAssignmentMetadataKey(g.group_id),
                             ShareGroupTargetAssignmentMetadataValue(g.assignment_epoch), 0)


def _current_record(g: Group, m: Member) -> CoordinatorRecord:
    entry = ShareGroupCurrentMemberAssignmentValue.TopicPartitions
    tps = tuple(entry(uuid.UUID(t), tuple(sorted(m.assigned[t]))) for t in _ids(m.assigned))
    value = ShareGroupCurrentMemberAssignmentValue(m.epoch, m.previous_epoch, MEMBER_STABLE, tps)
    return CoordinatorRecord(ShareGroupCurrentMemberAssignmentKey(g.group_id, m.member_id), value, 0)


def _state_record(g: Group) -> CoordinatorRecord:
    value = ShareGroupStatePartitionMetadataValue
    meta = g.state_metadata or StateMetadata()

    def listed(entries: dict[str, InitEntry]) -> tuple[_TopicPartitionsInfo, ...]:
        return tuple(_TopicPartitionsInfo(uuid.UUID(t), e.name, tuple(sorted(e.partitions)))
                     for t, e in sorted(entries.items()))

    deleting = tuple(value.TopicInfo(uuid.UUID(t), meta.deleting[t]) for t in sorted(meta.deleting))
    return CoordinatorRecord(ShareGroupStatePartitionMetadataKey(g.group_id),
                             ShareGroupStatePartitionMetadataValue(listed(meta.initializing),
                                                                   listed(meta.initialized), deleting), 0)


_TopicPartitionsInfo = ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo


def _write_state(st: _Step, g: Group) -> None:
    """Write the group's share-state bookkeeping. Kafka replays the record it writes, and replay
    stamps every entry with the current time (§2.3), so any such write restarts the retry clock
    of every topic still initializing, not only of the ones it changed."""
    for entry in (g.state_metadata or StateMetadata()).initializing.values():
        entry.timestamp = st.s.now
    st.write(_state_record(g))


def _tombstone(key: object) -> CoordinatorRecord:
    return CoordinatorRecord(key, None, None)


# ---------------------------------------------------------------------------------------------
# Heartbeat (§1.2-§1.6)
# ---------------------------------------------------------------------------------------------


def _interval(s: State, group_id: str) -> int:
    return s.group_configs.get(group_id, (None, None))[1] or s.config.heartbeat_interval_ms


def _invalid(req: ShareGroupHeartbeat) -> str | None:
    """Rows 5-9 of §1.2 (GroupCoordinatorService#throwIfShareGroupHeartbeatRequestIsInvalid)."""
    if not req.member_id.strip():
        return "MemberId can't be empty."
    if not req.group_id.strip():
        return "GroupId can't be empty."
    if req.rack_id is not None and not req.rack_id.strip():
        return "RackId can't be empty."
    if req.member_epoch == JOIN_EPOCH and not req.subscribed_topic_names:
        return "SubscribedTopicNames must be set in first request."
    if req.member_epoch < LEAVE_EPOCH:
        return "MemberEpoch is invalid."
    return None


def _heartbeat(st: _Step, req: ShareGroupHeartbeat, index: int) -> ShareGroupHeartbeatResponse:
    if _invalid(req) is not None:
        return ShareGroupHeartbeatResponse(Errors.INVALID_REQUEST)
    if req.member_epoch == LEAVE_EPOCH:
        return _leave(st, req)
    s = st.s
    g = s.groups.get(req.group_id)
    if g is None and req.member_epoch != JOIN_EPOCH:
        return ShareGroupHeartbeatResponse(Errors.GROUP_ID_NOT_FOUND)
    if g is None:
        g = Group(req.group_id)  # joins s.groups only once the heartbeat succeeds
    if len(g.members) >= s.config.max_size and req.member_id not in g.members:
        return ShareGroupHeartbeatResponse(Errors.GROUP_MAX_SIZE_REACHED)
    old = g.members.get(req.member_id)
    if old is None and req.member_epoch != JOIN_EPOCH:
        return ShareGroupHeartbeatResponse(Errors.UNKNOWN_MEMBER_ID)
    current = old or Member(req.member_id)
    if req.member_epoch > current.epoch or (req.member_epoch < current.epoch
                                            and req.member_epoch != current.previous_epoch):
        return ShareGroupHeartbeatResponse(Errors.FENCED_MEMBER_EPOCH)
    s.groups[g.group_id] = g

    # Step 2-3: the member as this request describes it.
    updated = copy.deepcopy(current)
    if req.rack_id is not None:
        updated.rack_id = req.rack_id
    if req.subscribed_topic_names is not None:
        updated.subscription = frozenset(req.subscribed_topic_names)
    updated.client_id, updated.client_host = req.client_id, req.client_host
    subscription_changed = updated.subscription != current.subscription
    bump = subscription_changed or _initialized_assignment_pending(s, g)
    if old is None or updated != old:
        st.write(_member_record(g, updated))
    g.members[updated.member_id] = updated

    # Step 4: the subscribed topics' metadata, and the group epoch.
    deadline, deadline_epoch = g.refresh
    if bump or s.now >= deadline or g.epoch < deadline_epoch:
        new_hash = _metadata_hash(s, g.subscribed_names)
        if new_hash != g.metadata_hash:
            bump = True
        if bump:
            g.epoch += 1
            g.metadata_hash = new_hash
            st.write(_epoch_record(g))
        g.refresh = (s.now + INT_MAX, g.epoch)

    # Step 5: a new target for everyone.
    if g.epoch > g.assignment_epoch:
        _compute_target(st, g)

    # Step 6: the member takes its target (§1.5).
    member = g.members[updated.member_id]
    before = (member.epoch, member.previous_epoch, dict(member.assigned))
    if member.epoch != g.assignment_epoch:
        member.previous_epoch, member.epoch = member.epoch, g.assignment_epoch
        member.assigned = _filtered(s, g.target.get(member.member_id, {}), member.subscription)
    elif bump:
        member.assigned = _filtered(s, g.target.get(member.member_id, {}), member.subscription)
    if (member.epoch, member.previous_epoch, member.assigned) != before:
        st.write(_current_record(g, member))

    st.arm(g.group_id, member.member_id)  # step 7
    send = (req.member_epoch == JOIN_EPOCH or req.subscribed_topic_names is not None
            or member.assigned != before[2])
    assignment = tuple(TopicPartitions(t, tuple(sorted(member.assigned[t]))) for t in _ids(member.assigned))
    _maybe_initialize(st, g, index)  # step 9
    return ShareGroupHeartbeatResponse(Errors.NONE, member.member_id, member.epoch, _interval(s, g.group_id),
                                       assignment if send else None)


def _filtered(s: State, target: Assignment, subscription: frozenset[str]) -> Assignment:
    out = {}
    for topic_id, parts in target.items():
        topic = s.topic_by_id(topic_id)
        if topic is not None and topic.name in subscription and parts:
            out[topic_id] = parts
    return out


def _metadata_hash(s: State, names: frozenset[str]) -> int:
    hashes = {n: topic_hash(t.topic_id, t.name, t.partitions, t.racks) for n in names
              if (t := s.topics.get(n)) is not None}
    return group_hash(hashes)


def _compute_target(st: _Step, g: Group) -> None:
    """TargetAssignmentBuilder with the SimpleAssignor over initialized partitions (§1.3 step 5)."""
    s = st.s
    initialized = g.state_metadata.initialized if g.state_metadata else {}
    assignable = {}
    for topic_id, entry in initialized.items():
        topic = s.topic_by_id(topic_id)
        if topic is not None:
            assignable[topic.name] = entry.partitions
    members = []
    for m in g.members.values():
        previous = {}
        for topic_id, parts in g.target.get(m.member_id, {}).items():
            topic = s.topic_by_id(topic_id)
            if topic is not None:
                previous[topic.name] = parts
        members.append(MemberSpec(m.member_id, tuple(sorted(m.subscription)), previous))
    group = AssignorInput(tuple(members), {t.name: t.partitions for t in s.topics.values()},
                          {t.name: t.topic_id for t in s.topics.values()}, assignable)
    result = assign(group)
    for m in g.members.values():
        new = {s.topics[name].topic_id: parts for name, parts in result[m.member_id].items() if parts}
        # A member with no target yet gets a record even for an empty one (null != empty).
        if m.member_id not in g.target or new != g.target[m.member_id]:
            g.target[m.member_id] = new
            st.write(_target_member_record(g, m.member_id, new))
    g.assignment_epoch = g.epoch
    st.write(_target_epoch_record(g))


def _initialized_assignment_pending(s: State, g: Group) -> bool:
    """§3.4: initialized partitions of a subscribed topic that the target does not hold."""
    meta = g.state_metadata
    names = g.subscribed_names
    if not g.members or meta is None or not meta.initialized or not names:
        return False
    held: dict[str, set[int]] = {}
    for target in g.target.values():
        for topic_id, parts in target.items():
            held.setdefault(topic_id, set()).update(parts)
    for topic_id, entry in meta.initialized.items():
        if entry.name in names and held.get(topic_id) != set(entry.partitions):
            return True
    return False


def _maybe_initialize(st: _Step, g: Group, index: int) -> None:
    """§3.2: ask the persister for subscribed partitions that are neither initialized nor being
    initialized recently."""
    s = st.s
    names = g.subscribed_names
    if not names or not s.topics:
        return
    meta = g.state_metadata or StateMetadata()
    wanted: dict[str, frozenset[int]] = {}
    wanted_names: dict[str, str] = {}
    for name in sorted(names):
        topic = s.topics.get(name)
        if topic is None:
            continue
        covered: set[int] = set()
        if topic.topic_id in meta.initialized:
            covered |= meta.initialized[topic.topic_id].partitions
        entry = meta.initializing.get(topic.topic_id)
        if entry is not None and s.now - entry.timestamp < s.config.retry_interval_ms:
            covered |= entry.partitions
        if not covered or len(covered) < topic.partitions:
            missing = frozenset(range(topic.partitions)) - covered
            if missing:
                wanted[topic.topic_id] = missing
                wanted_names[topic.topic_id] = name
    if not wanted:
        return
    for topic_id, parts in wanted.items():
        entry = meta.initializing.get(topic_id)
        meta.initializing[topic_id] = InitEntry(wanted_names[topic_id],
                                                parts | (entry.partitions if entry else frozenset()), s.now)
        meta.deleting.pop(topic_id, None)
    g.state_metadata = meta
    _write_state(st, g)
    s.pending[index] = (g.group_id, wanted)
    st.initialize.append(InitializeRequest(index, g.group_id, g.epoch, tuple(
        TopicPartitions(t, tuple(sorted(wanted[t]))) for t in sorted(wanted))))


def _remove_member(st: _Step, g: Group, member_id: str) -> None:
    """shareGroupFenceMember: the four records of a leave or an expiry (§1.6)."""
    st.write(_tombstone(ShareGroupCurrentMemberAssignmentKey(g.group_id, member_id)))
    st.write(_tombstone(ShareGroupTargetAssignmentMemberKey(g.group_id, member_id)))
    st.write(_tombstone(ShareGroupMemberMetadataKey(g.group_id, member_id)))
    del g.members[member_id]
    g.target.pop(member_id, None)
    g.epoch += 1
    g.metadata_hash = _metadata_hash(st.s, g.subscribed_names)
    st.write(_epoch_record(g))
    st.s.sessions.pop((g.group_id, member_id), None)


def _leave(st: _Step, req: ShareGroupHeartbeat) -> ShareGroupHeartbeatResponse:
    g = st.s.groups.get(req.group_id)
    if g is None:
        return ShareGroupHeartbeatResponse(Errors.GROUP_ID_NOT_FOUND)
    if req.member_id not in g.members:
        return ShareGroupHeartbeatResponse(Errors.UNKNOWN_MEMBER_ID)
    _remove_member(st, g, req.member_id)
    return ShareGroupHeartbeatResponse(Errors.NONE, req.member_id, LEAVE_EPOCH, 0, None)


# ---------------------------------------------------------------------------------------------
# The persister's answers, metadata, deletion, configs (§1.8, §1.9, §3.5, §5)
# ---------------------------------------------------------------------------------------------


def _persister_answer(st: _Step, event: PersisterAnswer) -> None:
    s = st.s
    pending = s.pending.pop(event.request, None)
    if pending is None:
        return  # answered already, or issued before a failover
    group_id, parts = pending
    g = s.groups.get(group_id)
    if g is None:
        return
    meta = g.state_metadata or StateMetadata()
    if event.error == Errors.NONE:
        for topic_id, done in parts.items():
            topic = s.topic_by_id(topic_id)
            name = topic.name if topic is not None else UNKNOWN_TOPIC_NAME
            old = meta.initialized.get(topic_id)
            meta.initialized[topic_id] = InitEntry(name, done | (old.partitions if old else frozenset()),
                                                   old.timestamp if old else s.now)
    for topic_id, done in parts.items():
        entry = meta.initializing.get(topic_id)
        if entry is not None:
            left = entry.partitions - done
            if left:
                entry.partitions = left
            else:
                del meta.initializing[topic_id]
    g.state_metadata = meta
    _write_state(st, g)


def _update_metadata(st: _Step, event: UpdateMetadata) -> None:
    s = st.s
    old = s.topics
    check_no_rename(old.values(), event.topics)
    s.topics = {t.name: t for t in event.topics}
    changed = {name for name in set(old) | set(s.topics) if old.get(name) != s.topics.get(name)}
    deleted = {t.topic_id for t in old.values()} - {t.topic_id for t in s.topics.values()}
    for gid in sorted(s.groups):
        g = s.groups[gid]
        if g.subscribed_names & changed:
            g.refresh = (0, 0)
        meta = g.state_metadata
        if meta is None:
            continue
        mentioned = (set(meta.initializing) | set(meta.initialized) | set(meta.deleting)) & deleted
        if mentioned:
            for topic_id in mentioned:
                meta.initializing.pop(topic_id, None)
                meta.initialized.pop(topic_id, None)
                meta.deleting.pop(topic_id, None)
            _write_state(st, g)


def _delete_groups(st: _Step, req: DeleteGroups) -> DeleteGroupsResponse:
    results = []
    for gid in req.group_ids:
        g = st.s.groups.get(gid)
        if g is None:
            results.append(GroupResult(gid, Errors.GROUP_ID_NOT_FOUND))
            continue
        if g.members:
            results.append(GroupResult(gid, Errors.NON_EMPTY_GROUP))
            continue
        if g.state_metadata is not None:
            meta = g.state_metadata
            meta.deleting.update({t: e.name for t, e in {**meta.initializing, **meta.initialized}.items()})
            meta.initializing.clear()
            meta.initialized.clear()
            _write_state(st, g)
        st.write(_tombstone(ShareGroupTargetAssignmentMetadataKey(gid)))
        st.write(_tombstone(ShareGroupStatePartitionMetadataKey(gid)))
        st.write(_tombstone(ShareGroupMetadataKey(gid)))
        del st.s.groups[gid]
        results.append(GroupResult(gid, Errors.NONE))
    return DeleteGroupsResponse(tuple(results))


def _set_config(st: _Step, req: SetGroupConfig) -> SetGroupConfigResponse:
    c = st.s.config
    session = req.session_timeout_ms if req.session_timeout_ms is not None else c.session_timeout_ms
    interval = req.heartbeat_interval_ms if req.heartbeat_interval_ms is not None else c.heartbeat_interval_ms
    if (not c.min_session_timeout_ms <= session <= c.max_session_timeout_ms
            or not c.min_heartbeat_interval_ms <= interval <= c.max_heartbeat_interval_ms
            or session <= interval):
        return SetGroupConfigResponse(Errors.INVALID_CONFIG)
    if req.session_timeout_ms is None and req.heartbeat_interval_ms is None:
        st.s.group_configs.pop(req.group_id, None)
    else:
        st.s.group_configs[req.group_id] = (req.session_timeout_ms, req.heartbeat_interval_ms)
    return SetGroupConfigResponse(Errors.NONE)


# ---------------------------------------------------------------------------------------------
# Time and failover
# ---------------------------------------------------------------------------------------------


def _advance(st: _Step, to_ms: int) -> None:
    s = st.s
    s.now = max(s.now, to_ms)
    while True:
        due = [(t.deadline, t.seq, key) for key, t in s.sessions.items() if t.deadline <= s.now]
        if not due:
            return
        _, _, (gid, mid) = min(due)
        _remove_member(st, s.groups[gid], mid)


def replay(records: list[CoordinatorRecord], now: int) -> dict[str, Group]:
    """The groups the records describe (§2.3); initializing entries are stamped ``now``."""
    groups: dict[str, Group] = {}
    for r in records:
        key, value = r.key, r.value
        gid = key.group_id  # type: ignore[attr-defined]
        g = groups.get(gid)
        if value is None:
            if g is None:
                continue
            if isinstance(key, ShareGroupMemberMetadataKey):
                g.members.pop(key.member_id, None)
            elif isinstance(key, ShareGroupMetadataKey):
                del groups[gid]
            elif isinstance(key, ShareGroupTargetAssignmentMemberKey):
                g.target.pop(key.member_id, None)
            elif isinstance(key, ShareGroupTargetAssignmentMetadataKey):
                g.assignment_epoch = -1
            elif isinstance(key, ShareGroupCurrentMemberAssignmentKey):
                m = g.members.get(key.member_id)
                if m is not None:
                    m.epoch, m.previous_epoch, m.assigned = -1, -1, {}
            elif isinstance(key, ShareGroupStatePartitionMetadataKey):
                g.state_metadata = None
            continue
        if g is None:
            g = groups[gid] = Group(gid)
        match value:
            case ShareGroupMemberMetadataValue():
                m = g.members.setdefault(key.member_id, Member(key.member_id))  # type: ignore[attr-defined]
                m.rack_id, m.client_id, m.client_host = value.rack_id, value.client_id, value.client_host
                m.subscription = frozenset(value.subscribed_topic_names)
            case ShareGroupMetadataValue():
                g.epoch, g.metadata_hash = value.epoch, value.metadata_hash
            case ShareGroupTargetAssignmentMemberValue():
                g.target[key.member_id] = {str(tp.topic_id): frozenset(tp.partitions)  # type: ignore[attr-defined]
                                           for tp in value.topic_partitions}
            case ShareGroupTargetAssignmentMetadataValue():
                g.assignment_epoch = value.assignment_epoch
            case ShareGroupCurrentMemberAssignmentValue():
                m = g.members.setdefault(key.member_id, Member(key.member_id))  # type: ignore[attr-defined]
                m.epoch, m.previous_epoch = value.member_epoch, value.previous_member_epoch
                m.assigned = {str(tp.topic_id): frozenset(tp.partitions) for tp in value.assigned_partitions}
            case ShareGroupStatePartitionMetadataValue():
                g.state_metadata = StateMetadata(
                    {str(t.topic_id): InitEntry(t.topic_name, frozenset(t.partitions), now)
                     for t in value.initializing_topics},
                    {str(t.topic_id): InitEntry(t.topic_name, frozenset(t.partitions), now)
                     for t in value.initialized_topics},
                    {str(t.topic_id): t.topic_name for t in value.deleting_topics})
    return groups


def _restart(st: _Step) -> None:
    s = st.s
    s.pending.clear()
    s.sessions.clear()
    s.groups = replay(s.log, s.now)
    for gid in sorted(s.groups):
        for mid in s.groups[gid].members:
            st.arm(gid, mid)


# ---------------------------------------------------------------------------------------------
# The observable view
# ---------------------------------------------------------------------------------------------


def _tps(assignment: Assignment) -> tuple[TopicPartitions, ...]:
    return tuple(TopicPartitions(t, tuple(sorted(assignment[t]))) for t in _ids(assignment))


def _init_view(entries: dict[str, InitEntry], stamped: bool) -> tuple[InitTopicView, ...]:
    return tuple(InitTopicView(t, entries[t].name, tuple(sorted(entries[t].partitions)),
                               entries[t].timestamp if stamped else -1) for t in sorted(entries))


def view(s: State) -> ShareCoordinatorView:
    groups = []
    for gid in sorted(s.groups):
        g = s.groups[gid]
        members = tuple(
            MemberView(m.member_id, m.epoch, m.previous_epoch, m.rack_id, m.client_id, m.client_host,
                       tuple(sorted(m.subscription)), _tps(m.assigned), _tps(g.target.get(m.member_id, {})),
                       s.sessions[(gid, m.member_id)].deadline if (gid, m.member_id) in s.sessions else None)
            for m in g.members.values())
        meta = g.state_metadata or StateMetadata()
        overrides = s.group_configs.get(gid, (None, None))
        groups.append(GroupView(gid, "Stable" if g.members else "Empty", g.epoch, g.assignment_epoch,
                                g.metadata_hash, members, _init_view(meta.initializing, True),
                                _init_view(meta.initialized, False), tuple(sorted(meta.deleting)),
                                overrides[0], overrides[1]))
    return ShareCoordinatorView(s.now, tuple(groups), tuple(sorted(s.pending)))

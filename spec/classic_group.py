"""The classic group coordinator, as rules: one pure step function over requests and clock ticks.

Theory of operation
-------------------
Kafka 4.x's group coordinator runs classic groups (JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
OffsetCommit and the admin requests) in ``GroupMetadataManager``, ``ClassicGroup`` and
``OffsetMetadataManager`` (group-coordinator module). This module says what those classes do in
plain code, small enough to read in one sitting. The project's fact sheet on the classic group
(``classic_group.md``) gives each rule's upstream source; docs/machines/classic_group.md has the diagram.

* **State** is every group (members in the order they were added, parked requests, pending
  members, offsets and pending transactional offsets), every armed timer, the clock, and the
  log written so far. ``step`` never changes the state it is given; it returns a new one.
* **Requests** are answered by ``Answer(index, response)``. A JoinGroup or SyncGroup can be
  *parked*: its member remembers the request's index, and a later event (another member's
  request, a timer) releases the answer.
* **Timers** are keyed like Kafka's (``heartbeat-<group>-<member>``, ``join-<group>``,
  ``sync-<group>``, ``expire-group-metadata``); arming a key replaces its timer. Only
  ``AdvanceClock`` fires them: the clock moves first, then due timers run one at a time by
  (deadline, order armed), each seeing the new time; a timer armed by a callback that is
  already due runs in the same advance.
* **Records** are what Kafka appends to ``__consumer_offsets``. The state changes here are made
  directly; the log is kept so that ``Restart`` can rebuild the groups from it exactly as a
  coordinator does when it loads a partition (:func:`replay`).

Where Kafka leaves an order to a Java HashMap, this spec fixes one (member order = order added,
a replaced static member's new id last; vote ties to the smallest protocol name; expired offsets
by topic and partition; groups by id). docs/divergences.md lists each.
"""

from __future__ import annotations

import copy
import struct
from dataclasses import dataclass, field

import icontract

from groupspec.types import wire_bounds as wire
from groupspec.types.classic_group import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    GROUP_PREDECESSORS,
    NEW_MEMBER_JOIN_TIMEOUT_MS,
    NO_GENERATION,
    PREPARING_REBALANCE,
    STABLE,
    UNKNOWN_MEMBER_ID,
    AdvanceClock,
    Answer,
    BeginLoad,
    ClassicConfig,
    ClassicEvent,
    CommitTopic,
    CompleteLoad,
    CoordinatorView,
    DeleteGroups,
    DeleteGroupsResponse,
    DescribedGroup,
    DescribedMember,
    DescribeGroups,
    DescribeGroupsResponse,
    FetchedPartition,
    FetchedTopic,
    GroupResult,
    GroupView,
    Heartbeat,
    HeartbeatResponse,
    JoinGroup,
    JoinGroupMember,
    JoinGroupResponse,
    LeaveGroup,
    LeaveGroupResponse,
    ListedGroup,
    ListGroups,
    ListGroupsResponse,
    LogEntry,
    MemberLeaveResult,
    MemberView,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetDelete,
    OffsetDeleteResponse,
    OffsetFetch,
    OffsetFetchResponse,
    OffsetView,
    Output,
    PartitionResult,
    PendingOffsetView,
    Protocol,
    Restart,
    SyncGroup,
    SyncGroupResponse,
    TopicResult,
    TxnEnd,
    TxnMarker,
    TxnMarkerResponse,
    TxnOffsetCommit,
    TxnOffsetCommitResponse,
    TxnRecord,
    check_config,
    check_event,
)
from groupspec.types.errors import Errors
from groupspec.types.records import (
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
)
from groupspec.types.records.registry import CoordinatorRecord

PREPARING = PREPARING_REBALANCE
COMPLETING = COMPLETING_REBALANCE
EXPIRE_KEY = "expire-group-metadata"

TopicPartition = tuple[str, int]


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


@dataclass
class Member:
    member_id: str
    instance_id: str | None
    client_id: str
    client_host: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: tuple[Protocol, ...]
    assignment: bytes = b""
    #: Index of the parked JoinGroup / SyncGroup, if any.
    join_request: int | None = None
    sync_request: int | None = None
    is_new: bool = False

    def metadata(self, protocol: str | None) -> bytes:
        for p in self.protocols:
            if p.name == protocol:
                return p.metadata
        return b""


@dataclass
class Offset:
    offset: int
    leader_epoch: int
    metadata: str
    commit_timestamp_ms: int
    expire_timestamp_ms: int
    #: Where its record sits in the log: a transaction's COMMIT keeps the newer of two offsets.
    position: int


@dataclass
class Group:
    group_id: str
    state: str = EMPTY
    previous_state: str = DEAD
    state_timestamp_ms: int | None = None
    protocol_type: str | None = None
    protocol_name: str | None = None
    generation: int = 0
    leader: str | None = None
    members: dict[str, Member] = field(default_factory=dict)
    static: dict[str, str] = field(default_factory=dict)
    pending: set[str] = field(default_factory=set)
    pending_sync: set[str] = field(default_factory=set)
    new_member_added: bool = False
    #: Topics the members subscribe to (consumer protocol); None = unknown.
    subscribed: frozenset[str] | None = None
    offsets: dict[TopicPartition, Offset] = field(default_factory=dict)
    #: Pending transactional offsets by producer id.
    txn: dict[int, dict[TopicPartition, Offset]] = field(default_factory=dict)


@dataclass
class Timer:
    deadline: int
    seq: int
    group_id: str | None
    member_id: str | None = None
    #: The initial-rebalance delay chain's (delay, remaining); None for an ordinary join timer.
    delay: tuple[int, int] | None = None
    #: The generation a sync timer was armed for.
    generation: int = 0


@dataclass
class State:
    config: ClassicConfig
    now: int
    groups: dict[str, Group] = field(default_factory=dict)
    timers: dict[str, Timer] = field(default_factory=dict)
    seq: int = 0
    #: Everything written so far, in order (Restart replays it).
    log: list[LogEntry] = field(default_factory=list)
    #: Between BeginLoad and CompleteLoad: nothing in memory, requests refused by the runtime.
    loading: bool = False


class _Step:
    """One step's working state: a private copy of the state plus what the step released."""

    def __init__(self, state: State) -> None:
        self.s = state
        self.answers: list[Answer] = []
        self.records: list[LogEntry] = []

    @property
    def cfg(self) -> ClassicConfig:
        return self.s.config

    def answer(self, request: int, response: object) -> None:
        self.answers.append(Answer(request, response))

    def write(self, entry: LogEntry) -> int:
        self.records.append(entry)
        self.s.log.append(entry)
        return len(self.s.log) - 1

    def arm(self, key: str, delay_ms: int, timer: Timer) -> None:
        self.s.seq += 1
        timer.deadline = self.s.now + delay_ms
        timer.seq = self.s.seq
        self.s.timers[key] = timer

    def cancel(self, key: str) -> None:
        self.s.timers.pop(key, None)


def _heartbeat_key(group_id: str, member_id: str) -> str:
    return f"heartbeat-{group_id}-{member_id}"


# ---------------------------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------------------------


def _group_ok(g: Group) -> bool:
    if g.state == EMPTY and g.members:
        return False
    if (g.leader is None) != (not g.members) or (g.leader is not None and g.leader not in g.members):
        return False
    if g.generation < 0:
        return False
    for m in g.members.values():
        if m.join_request is not None and g.state != PREPARING:
            return False
        if m.sync_request is not None and g.state != COMPLETING:
            return False
        if m.instance_id is not None and g.static.get(m.instance_id) != m.member_id:
            return False
    return all(mid in g.members for mid in g.static.values())


def _parked_unique(s: State) -> bool:
    parked = [r for g in s.groups.values() for m in g.members.values()
              for r in (m.join_request, m.sync_request) if r is not None]
    return len(parked) == len(set(parked))


def invariants_hold(s: State) -> bool:
    """Every group is well formed, no request is parked twice, no timer is overdue."""
    return (all(_group_ok(g) for g in s.groups.values()) and _parked_unique(s)
            and all(t.deadline >= s.now for t in s.timers.values()))


def _generations_kept(before: State, after: State) -> bool:
    return all(after.groups[g].generation >= before.groups[g].generation
               for g in before.groups if g in after.groups)


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


@icontract.ensure(lambda result: invariants_hold(result))
def initial_state(config: ClassicConfig = ClassicConfig(), now_ms: int = 0) -> State:  # noqa: B008
    """A coordinator hosting every partition, with no groups; the offset expiration job is armed."""
    check_config(config)
    wire.integer(now_ms, "now_ms", "int64")
    s = State(config=config, now=now_ms)
    st = _Step(s)
    st.arm(EXPIRE_KEY, config.offsets_retention_check_interval_ms, Timer(0, 0, None))
    return s


@icontract.require(lambda state: invariants_hold(state))
@icontract.ensure(lambda result: invariants_hold(result[0]))
# A restart may go back: a generation never written (no leader SyncGroup yet) is lost on load.
@icontract.ensure(lambda state, event, result:
                  isinstance(event, Restart) or _generations_kept(state, result[0]))
@icontract.ensure(lambda state, result: result[0].now >= state.now)
def step(state: State, event: ClassicEvent, index: int) -> tuple[State, Output]:
    """Apply one event (request ``index``, or a clock advance, or a restart).

    An event a broker would refuse to parse (:func:`check_event`) raises its InputError before
    anything happens: the step is all or nothing.
    """
    check_event(event, index)
    st = _Step(copy.deepcopy(state))
    # First failure wins: the coordinator's own checks, then the runtime (a loading partition),
    # then the group.
    refusal = _coordinator_refusal(st.cfg, event)
    if refusal is not None:
        st.answer(index, refusal)
        return st.s, Output(tuple(st.answers), ())
    if st.s.loading and not isinstance(event, AdvanceClock | Restart | BeginLoad | CompleteLoad):
        st.answer(index, _loading_answer(event))
        return st.s, Output(tuple(st.answers), ())
    match event:
        case JoinGroup():
            _join(st, event, index)
        case SyncGroup():
            _sync(st, event, index)
        case Heartbeat():
            _heartbeat(st, event, index)
        case LeaveGroup():
            _leave(st, event, index)
        case OffsetCommit():
            _commit(st, event, index)
        case TxnOffsetCommit():
            _txn_commit(st, event, index)
        case TxnMarker():
            _txn_marker(st, event, index)
        case OffsetFetch():
            _fetch(st, event, index)
        case OffsetDelete():
            _offset_delete(st, event, index)
        case DeleteGroups():
            _delete_groups(st, event, index)
        case DescribeGroups():
            st.answer(index, DescribeGroupsResponse(tuple(_describe(st.s, gid) for gid in event.group_ids)))
        case ListGroups():
            _list_groups(st, event, index)
        case AdvanceClock():
            _advance(st, event.to_ms)
        case Restart():
            _restart(st)
        case BeginLoad():
            _unload(st)
            st.s.loading = True
        case CompleteLoad():
            if st.s.loading:
                _restart(st)
    return st.s, Output(tuple(st.answers), tuple(st.records))


# ---------------------------------------------------------------------------------------------
# Before the group: the coordinator's checks and a loading runtime
# ---------------------------------------------------------------------------------------------


def _coordinator_refusal(cfg: ClassicConfig, event: ClassicEvent) -> object | None:
    """What the coordinator service (or KafkaApis) answers before a shard sees the request."""
    match event:
        case JoinGroup() if event.group_id == "":
            return JoinGroupResponse(Errors.INVALID_GROUP_ID, member_id=event.member_id)
        case JoinGroup() if not (cfg.min_session_timeout_ms <= event.session_timeout_ms
                                 <= cfg.max_session_timeout_ms):
            return JoinGroupResponse(Errors.INVALID_SESSION_TIMEOUT, member_id=event.member_id)
        case SyncGroup() if event.group_id == "":
            return SyncGroupResponse(Errors.INVALID_GROUP_ID)
        case SyncGroup() if event.version >= 5 and (event.protocol_type is None
                                                     or event.protocol_name is None):
            return SyncGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL)
        case Heartbeat() if event.group_id == "":
            return HeartbeatResponse(Errors.INVALID_GROUP_ID)
        case LeaveGroup() if event.group_id == "":
            return LeaveGroupResponse(Errors.INVALID_GROUP_ID)
    return None


def _loading_answer(event: ClassicEvent) -> object:
    """A request that reaches a loading partition: COORDINATOR_LOAD_IN_PROGRESS in its shape.

    Two exceptions, both GroupCoordinatorService's: a Heartbeat is answered NONE (the group is
    loading, so the member is told to carry on rather than rejoin), and a JoinGroup's answer
    carries no member id (the runtime's error path builds a bare response).
    """
    load = Errors.COORDINATOR_LOAD_IN_PROGRESS
    match event:
        case JoinGroup():
            return JoinGroupResponse(load)
        case SyncGroup():
            return SyncGroupResponse(load)
        case Heartbeat():
            return HeartbeatResponse(Errors.NONE)
        case LeaveGroup():
            return LeaveGroupResponse(load)
        case OffsetCommit():
            return OffsetCommitResponse(_all_partitions(event.topics, load))
        case TxnOffsetCommit():
            return TxnOffsetCommitResponse(_all_partitions(event.topics, load))
        case TxnMarker():
            return TxnMarkerResponse(load)
        case OffsetFetch():
            return OffsetFetchResponse(load)
        case OffsetDelete():
            return OffsetDeleteResponse(load)
        case DeleteGroups():
            return DeleteGroupsResponse(tuple(GroupResult(gid, load) for gid in event.group_ids))
        case DescribeGroups():
            return DescribeGroupsResponse(tuple(DescribedGroup(gid, load, "") for gid in event.group_ids))
        case ListGroups():
            return ListGroupsResponse(load)
    raise AssertionError(f"{type(event).__name__} is not a request")


# ---------------------------------------------------------------------------------------------
# Group helpers
# ---------------------------------------------------------------------------------------------


@icontract.require(lambda g, to: g.state in GROUP_PREDECESSORS[to],
                   "only Kafka's valid previous states (ClassicGroupState) lead to a state")
def _transition(st: _Step, g: Group, to: str) -> None:
    g.previous_state = g.state
    g.state = to
    g.state_timestamp_ms = st.s.now


def _new_group(st: _Step, group_id: str) -> Group:
    g = Group(group_id, state_timestamp_ms=st.s.now)
    st.s.groups[group_id] = g
    return g


def _rebalance_timeout(g: Group) -> int:
    return max((m.rebalance_timeout_ms for m in g.members.values()), default=0)


def _all_joined(g: Group) -> bool:
    return not g.pending and all(m.join_request is not None for m in g.members.values())


def _supports(g: Group, protocol_type: str, names: list[str]) -> bool:
    if g.state == EMPTY:
        return protocol_type != "" and bool(names)
    if g.protocol_type != protocol_type:
        return False
    return any(all(n in (p.name for p in m.protocols) for m in g.members.values()) for n in names)


def _select_protocol(g: Group) -> str:
    candidates = [p.name for p in next(iter(g.members.values())).protocols
                  if all(p.name in (q.name for q in m.protocols) for m in g.members.values())]
    votes: dict[str, int] = {}
    for m in g.members.values():
        choice = next(p.name for p in m.protocols if p.name in candidates)
        votes[choice] = votes.get(choice, 0) + 1
    best = max(votes.values())
    return min(name for name, n in votes.items() if n == best)


class _Reader:
    """Big-endian reads of a non-flexible Kafka struct; ValueError on anything malformed."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def number(self, fmt: str) -> int:
        try:
            (value,) = struct.unpack_from(fmt, self.data, self.pos)
        except struct.error as exc:
            raise ValueError(str(exc)) from exc
        self.pos += struct.calcsize(fmt)
        return int(value)

    def blob(self, length_fmt: str, nullable: bool) -> bytes | None:
        n = self.number(length_fmt)
        if n < 0:
            if nullable:
                return None
            raise ValueError("a non-nullable field is null")
        if self.pos + n > len(self.data):
            raise ValueError("the data ends inside a field")
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def string(self, nullable: bool = False) -> str | None:
        raw = self.blob(">h", nullable)
        if raw is None:
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(str(exc)) from exc

    def count(self) -> int:
        n = self.number(">i")
        if n < 0:
            raise ValueError("a non-nullable array is null")
        return n


def _parse_topics(metadata: bytes) -> list[str]:
    """The topics of a ConsumerProtocolSubscription; ValueError if malformed.

    Read whole at the version its int16 prefix names, as Kafka's ConsumerProtocol does (a
    version above 3 with the version-3 layout, trailing bytes ignored): a subscription whose
    later fields are cut short is malformed even though its topics were readable.
    """
    r = _Reader(metadata)
    version = r.number(">h")
    if version < 0:
        raise ValueError("negative subscription version")
    topics = [str(r.string()) for _ in range(r.count())]
    r.blob(">i", True)  # user data
    if version >= 1:  # owned partitions
        for _ in range(r.count()):
            r.string()
            for _ in range(r.count()):
                r.number(">i")
    if version >= 2:
        r.number(">i")  # generation
    if version >= 3:
        r.string(nullable=True)  # rack
    return topics


def _compute_subscribed(g: Group) -> frozenset[str] | None:
    if g.protocol_type != "consumer":
        return None
    if not g.members:
        return frozenset()
    if g.protocol_name is None:
        return None
    topics: set[str] = set()
    try:
        for m in g.members.values():
            topics.update(_parse_topics(m.metadata(g.protocol_name)))
    except ValueError:
        return None
    return frozenset(topics)


def _is_subscribed(g: Group, topic: str) -> bool:
    if g.subscribed is None:
        return g.protocol_type == "consumer"
    return topic in g.subscribed


def _validate_member(g: Group, member_id: str, instance_id: str | None) -> Errors:
    if instance_id is not None:
        known = g.static.get(instance_id)
        if known is None:
            return Errors.UNKNOWN_MEMBER_ID
        if known != member_id:
            return Errors.FENCED_INSTANCE_ID
    if member_id not in g.members:
        return Errors.UNKNOWN_MEMBER_ID
    return Errors.NONE


def _remove(g: Group, member_id: str) -> None:
    """ClassicGroup#remove: drop a member or pending id; a removed leader passes to the first left."""
    g.pending.discard(member_id)
    m = g.members.pop(member_id, None)
    if m is None:
        return
    if m.instance_id is not None and g.static.get(m.instance_id) == member_id:
        del g.static[m.instance_id]
    g.pending_sync.discard(member_id)
    if g.leader == member_id:
        g.leader = next(iter(g.members), None)


def _add(st: _Step, g: Group, m: Member, join_index: int) -> None:
    """addMemberThenRebalanceOrCompleteJoin."""
    m.is_new = True
    if g.state == PREPARING and g.previous_state == EMPTY:
        g.new_member_added = True
    if not g.members:
        g.protocol_type = m.protocol_type
    g.pending.discard(m.member_id)
    g.members[m.member_id] = m
    if m.instance_id is not None:
        g.static[m.instance_id] = m.member_id
    if g.leader is None:
        g.leader = m.member_id
    m.join_request = join_index
    st.arm(_heartbeat_key(g.group_id, m.member_id), NEW_MEMBER_JOIN_TIMEOUT_MS,
           Timer(0, 0, g.group_id, m.member_id))
    if g.state in (STABLE, COMPLETING, EMPTY):
        _prepare_rebalance(st, g)
    else:
        _maybe_complete_join(st, g)


def _rearm_session(st: _Step, g: Group, m: Member) -> None:
    st.arm(_heartbeat_key(g.group_id, m.member_id), m.session_timeout_ms,
           Timer(0, 0, g.group_id, m.member_id))


def _sync_response(g: Group, error: Errors, assignment: bytes = b"") -> SyncGroupResponse:
    if error != Errors.NONE:
        return SyncGroupResponse(error)
    return SyncGroupResponse(error, g.protocol_type, g.protocol_name, assignment)


def _prepare_rebalance(st: _Step, g: Group) -> None:
    if g.state == COMPLETING:
        for m in g.members.values():
            m.assignment = b""
            if m.sync_request is not None:
                st.answer(m.sync_request, SyncGroupResponse(Errors.REBALANCE_IN_PROGRESS))
                m.sync_request = None
                _rearm_session(st, g, m)
    g.pending_sync.clear()
    st.cancel(f"sync-{g.group_id}")
    initial = g.state == EMPTY
    if initial:
        delay = st.cfg.initial_rebalance_delay_ms
        remaining = max(_rebalance_timeout(g) - delay, 0)
        st.arm(f"join-{g.group_id}", delay, Timer(0, 0, g.group_id, delay=(delay, remaining)))
    _transition(st, g, PREPARING)
    if not initial:
        if _all_joined(g):
            _complete_join(st, g)
        else:
            st.arm(f"join-{g.group_id}", _rebalance_timeout(g), Timer(0, 0, g.group_id))


def _maybe_complete_join(st: _Step, g: Group) -> None:
    if g.state == PREPARING and g.previous_state != EMPTY and _all_joined(g):
        _complete_join(st, g)


def _group_metadata_record(g: Group, assignments: dict[str, bytes]) -> CoordinatorRecord:
    members = tuple(
        GroupMetadataValue.MemberMetadata(
            member_id=m.member_id, group_instance_id=m.instance_id, client_id=m.client_id,
            client_host=m.client_host, rebalance_timeout=m.rebalance_timeout_ms,
            session_timeout=m.session_timeout_ms, subscription=m.metadata(g.protocol_name),
            assignment=assignments.get(m.member_id, b""))
        for m in g.members.values())
    value = GroupMetadataValue(
        protocol_type=g.protocol_type or "", generation=g.generation, protocol=g.protocol_name,
        leader=g.leader, current_state_timestamp=-1 if g.state_timestamp_ms is None else g.state_timestamp_ms,
        members=members)
    return CoordinatorRecord(GroupMetadataKey(g.group_id), value)


def _leader_members(g: Group) -> tuple[JoinGroupMember, ...]:
    return tuple(JoinGroupMember(m.member_id, m.instance_id, m.metadata(g.protocol_name))
                 for m in g.members.values())


def _complete_join(st: _Step, g: Group) -> None:
    """completeClassicGroupJoin: drop dynamic members that did not rejoin, then the next generation."""
    st.cancel(f"join-{g.group_id}")
    for mid in [mid for mid, m in g.members.items() if m.join_request is None and m.instance_id is None]:
        _remove(g, mid)
        st.cancel(_heartbeat_key(g.group_id, mid))
    if g.members:
        leader = g.members[g.leader] if g.leader is not None else None
        if leader is None or leader.join_request is None:
            joined = next((mid for mid, m in g.members.items() if m.join_request is not None), None)
            if joined is None:
                st.arm(f"join-{g.group_id}", _rebalance_timeout(g), Timer(0, 0, g.group_id))
                return
            g.leader = joined
    g.generation += 1
    g.pending_sync.clear()
    if g.members:
        g.protocol_name = _select_protocol(g)
        g.subscribed = _compute_subscribed(g)
        _transition(st, g, COMPLETING)
        for m in g.members.values():
            if m.join_request is not None:
                st.answer(m.join_request, JoinGroupResponse(
                    Errors.NONE, g.generation, g.protocol_type, g.protocol_name, g.leader or "",
                    False, m.member_id, _leader_members(g) if m.member_id == g.leader else ()))
                m.join_request = None
            _rearm_session(st, g, m)
            m.is_new = False
            g.pending_sync.add(m.member_id)
        st.arm(f"sync-{g.group_id}", _rebalance_timeout(g), Timer(0, 0, g.group_id, generation=g.generation))
    else:
        g.protocol_name = None
        g.subscribed = _compute_subscribed(g)
        _transition(st, g, EMPTY)
        st.write(_group_metadata_record(g, {}))


def _remove_and_update(st: _Step, g: Group, m: Member) -> None:
    """removeMemberAndUpdateClassicGroup: a member expired."""
    if m.join_request is not None:
        st.answer(m.join_request, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID))
        m.join_request = None
    _remove(g, m.member_id)
    if g.state in (STABLE, COMPLETING):
        _prepare_rebalance(st, g)
    elif g.state == PREPARING and _all_joined(g):
        _complete_join(st, g)


# ---------------------------------------------------------------------------------------------
# JoinGroup
# ---------------------------------------------------------------------------------------------


def _accepts(st: _Step, g: Group, member_id: str) -> bool:
    m = g.members.get(member_id)
    if g.state in (EMPTY, DEAD):
        return True
    if g.state == PREPARING:
        awaiting = sum(1 for x in g.members.values() if x.join_request is not None)
        return (m is not None and m.join_request is not None) or awaiting < st.cfg.max_size
    return m is not None or len(g.members) < st.cfg.max_size


def _join(st: _Step, req: JoinGroup, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    created = False
    if g is None:
        if req.member_id != UNKNOWN_MEMBER_ID:
            st.answer(index, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID, member_id=req.member_id))
            return
        g = _new_group(st, req.group_id)
        created = True
    written = len(st.records)
    _join_group(st, g, req, index)
    if created and len(st.records) == written:
        st.write(CoordinatorRecord(GroupMetadataKey(g.group_id), GroupMetadataValue(
            protocol_type="", generation=0, protocol=None, leader=None,
            current_state_timestamp=st.s.now if g.state_timestamp_ms is None else g.state_timestamp_ms,
            members=())))


def _join_group(st: _Step, g: Group, req: JoinGroup, index: int) -> None:
    if not _accepts(st, g, req.member_id):
        _remove(g, req.member_id)
        st.answer(index, JoinGroupResponse(Errors.GROUP_MAX_SIZE_REACHED))
        return
    names = [p.name for p in req.protocols]
    if not _supports(g, req.protocol_type, names):
        st.answer(index, JoinGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL, member_id=req.member_id))
        return
    if req.member_id == UNKNOWN_MEMBER_ID:
        if req.group_instance_id is not None:
            old = g.static.get(req.group_instance_id)
            if old is None:
                _add(st, g, _member_from(req, f"{req.group_instance_id}-{req.new_member_uuid}"), index)
            else:
                _replace_static(st, g, req, old, index)
        elif req.version >= 4:
            new_id = f"{req.client_id}-{req.new_member_uuid}"
            g.pending.add(new_id)
            st.arm(_heartbeat_key(g.group_id, new_id), req.session_timeout_ms,
                   Timer(0, 0, g.group_id, new_id))
            st.answer(index, JoinGroupResponse(Errors.MEMBER_ID_REQUIRED, member_id=new_id))
        else:
            _add(st, g, _member_from(req, f"{req.client_id}-{req.new_member_uuid}"), index)
        return
    if req.member_id in g.pending:
        if req.group_instance_id is not None:
            st.answer(index, JoinGroupResponse(Errors.UNKNOWN_SERVER_ERROR, member_id=req.member_id))
            return
        _add(st, g, _member_from(req, req.member_id), index)
        return
    error = _validate_member(g, req.member_id, req.group_instance_id)
    if error != Errors.NONE:
        st.answer(index, JoinGroupResponse(error, member_id=req.member_id))
        return
    m = g.members[req.member_id]
    if g.state == PREPARING:
        _update_member(m, req, index)
        _maybe_complete_join(st, g)
    elif g.state == COMPLETING:
        if m.protocols == req.protocols:
            st.answer(index, JoinGroupResponse(
                Errors.NONE, g.generation, g.protocol_type, g.protocol_name, g.leader or "", False,
                m.member_id, _leader_members(g) if m.member_id == g.leader else ()))
        else:
            _update_member(m, req, index)
            _prepare_rebalance(st, g)
    elif g.state == STABLE:
        if m.member_id == g.leader or m.protocols != req.protocols:
            _update_member(m, req, index)
            _prepare_rebalance(st, g)
        else:
            st.answer(index, JoinGroupResponse(
                Errors.NONE, g.generation, g.protocol_type, g.protocol_name, g.leader or "", False,
                m.member_id, ()))
    else:
        st.answer(index, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID, member_id=req.member_id))


def _member_from(req: JoinGroup, member_id: str) -> Member:
    return Member(member_id, req.group_instance_id, req.client_id, req.client_host, req.session_timeout_ms,
                  req.rebalance_timeout_ms, req.protocol_type, req.protocols)


def _update_member(m: Member, req: JoinGroup, index: int) -> None:
    """updateMember: new protocols and timeouts; the new JoinGroup replaces any parked one unanswered."""
    m.protocols = req.protocols
    m.rebalance_timeout_ms = req.rebalance_timeout_ms
    m.session_timeout_ms = req.session_timeout_ms
    m.join_request = index


def _replace_static(st: _Step, g: Group, req: JoinGroup, old_id: str, index: int) -> None:
    """A known instance id joins with no member id: a new id replaces the old one (the old is fenced)."""
    previous_leader = g.leader
    old = g.members.pop(old_id)
    if old.join_request is not None:
        st.answer(old.join_request, JoinGroupResponse(Errors.FENCED_INSTANCE_ID, member_id=old_id))
    if old.sync_request is not None:
        st.answer(old.sync_request, SyncGroupResponse(Errors.FENCED_INSTANCE_ID))
    new_id = f"{req.group_instance_id}-{req.new_member_uuid}"
    new = Member(new_id, old.instance_id, old.client_id, old.client_host, old.session_timeout_ms,
                 old.rebalance_timeout_ms, old.protocol_type, old.protocols, old.assignment)
    g.members[new_id] = new
    if g.leader == old_id:
        g.leader = new_id
    assert req.group_instance_id is not None
    g.static[req.group_instance_id] = new_id
    # Armed before the request's timeouts apply: the old session timeout (updateStaticMember...).
    _rearm_session(st, g, new)
    _update_member(new, req, index)
    if g.state == STABLE:
        if g.protocol_name == _select_protocol(g):
            st.write(_group_metadata_record(g, {m.member_id: m.assignment for m in g.members.values()}))
            new.join_request = None
            is_leader = g.leader == new_id
            skip = req.version >= 9
            st.answer(index, JoinGroupResponse(
                Errors.NONE, g.generation, g.protocol_type, g.protocol_name,
                (g.leader or "") if skip else (previous_leader or ""), skip and is_leader, new_id,
                _leader_members(g) if skip and is_leader else ()))
        else:
            _prepare_rebalance(st, g)
    elif g.state == COMPLETING:
        _prepare_rebalance(st, g)
    else:
        _maybe_complete_join(st, g)


# ---------------------------------------------------------------------------------------------
# SyncGroup, Heartbeat, LeaveGroup
# ---------------------------------------------------------------------------------------------


def _remove_pending_sync(st: _Step, g: Group, member_id: str) -> None:
    g.pending_sync.discard(member_id)
    if not g.pending_sync:
        st.cancel(f"sync-{g.group_id}")


def _sync(st: _Step, req: SyncGroup, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    if g is None or g.state == EMPTY:
        st.answer(index, SyncGroupResponse(Errors.UNKNOWN_MEMBER_ID))
        return
    error = _validate_member(g, req.member_id, req.group_instance_id)
    if error == Errors.NONE and req.generation_id != g.generation:
        error = Errors.ILLEGAL_GENERATION
    if error == Errors.NONE and (
            (req.protocol_type is not None and req.protocol_type != g.protocol_type)
            or (req.protocol_name is not None and req.protocol_name != g.protocol_name)):
        error = Errors.INCONSISTENT_GROUP_PROTOCOL
    if error == Errors.NONE and g.state == PREPARING:
        error = Errors.REBALANCE_IN_PROGRESS
    if error != Errors.NONE:
        st.answer(index, SyncGroupResponse(error))
        return
    m = g.members[req.member_id]
    if g.state == STABLE:
        _remove_pending_sync(st, g, m.member_id)
        st.answer(index, _sync_response(g, Errors.NONE, m.assignment))
        return
    m.sync_request = index
    _remove_pending_sync(st, g, m.member_id)
    if m.member_id != g.leader:
        return
    given = {a.member_id: a.assignment for a in req.assignments}
    assignments = {mid: given.get(mid, b"") for mid in g.members}
    st.write(_group_metadata_record(g, assignments))
    for x in g.members.values():
        x.assignment = assignments[x.member_id]
        if x.sync_request is not None:
            st.answer(x.sync_request, _sync_response(g, Errors.NONE, x.assignment))
            x.sync_request = None
            _rearm_session(st, g, x)
    _transition(st, g, STABLE)


def _heartbeat(st: _Step, req: Heartbeat, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    if g is None:
        st.answer(index, HeartbeatResponse(Errors.UNKNOWN_MEMBER_ID))
        return
    error = _validate_member(g, req.member_id, req.group_instance_id)
    if error == Errors.NONE and req.generation_id != g.generation:
        error = Errors.ILLEGAL_GENERATION
    if error == Errors.NONE and g.state == EMPTY:
        error = Errors.UNKNOWN_MEMBER_ID
    if error != Errors.NONE:
        st.answer(index, HeartbeatResponse(error))
        return
    _rearm_session(st, g, g.members[req.member_id])
    st.answer(index, HeartbeatResponse(Errors.REBALANCE_IN_PROGRESS if g.state == PREPARING else Errors.NONE))


def _leave(st: _Step, req: LeaveGroup, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    if g is None:
        st.answer(index, LeaveGroupResponse(Errors.NONE, tuple(
            MemberLeaveResult(x.member_id, x.group_instance_id, Errors.UNKNOWN_MEMBER_ID)
            for x in req.members)))
        return
    results = []
    removed = False
    for x in req.members:
        target: str | None = None
        if x.member_id == UNKNOWN_MEMBER_ID:
            target = g.static.get(x.group_instance_id) if x.group_instance_id is not None else None
            error = Errors.NONE if target is not None else Errors.UNKNOWN_MEMBER_ID
        elif x.member_id in g.pending:
            g.pending.discard(x.member_id)
            st.cancel(_heartbeat_key(g.group_id, x.member_id))
            error, removed = Errors.NONE, True
        else:
            error = _validate_member(g, x.member_id, x.group_instance_id)
            target = x.member_id if error == Errors.NONE else None
        if target is not None:
            m = g.members[target]
            st.cancel(_heartbeat_key(g.group_id, target))
            if m.join_request is not None:
                st.answer(m.join_request, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID))
                m.join_request = None
            _remove(g, target)
            removed = True
        results.append(MemberLeaveResult(x.member_id, x.group_instance_id, error))
    st.answer(index, LeaveGroupResponse(Errors.NONE, tuple(results)))
    if removed:
        if g.state in (STABLE, COMPLETING):
            _prepare_rebalance(st, g)
        elif g.state == PREPARING:
            _maybe_complete_join(st, g)


# ---------------------------------------------------------------------------------------------
# Offsets
# ---------------------------------------------------------------------------------------------


def _java_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _all_partitions(topics: tuple[CommitTopic, ...], error: Errors) -> tuple[TopicResult, ...]:
    return tuple(TopicResult(t.name, tuple(PartitionResult(p.partition, error) for p in t.partitions))
                 for t in topics)


def _validate_commit(g: Group, generation: int, member_id: str, instance_id: str | None,
                     transactional: bool) -> Errors:
    """ClassicGroup#validateOffsetCommit (after the group lookup)."""
    if generation < 0 and g.state == EMPTY:
        return Errors.NONE
    if (transactional and generation == NO_GENERATION and member_id == UNKNOWN_MEMBER_ID
            and instance_id is None):
        return Errors.NONE
    if generation >= 0 or member_id != UNKNOWN_MEMBER_ID or instance_id is not None:
        error = _validate_member(g, member_id, instance_id)
        if error != Errors.NONE:
            return error
        if generation != g.generation:
            return Errors.ILLEGAL_GENERATION
    elif g.state != EMPTY:
        return Errors.UNKNOWN_MEMBER_ID
    if not transactional and g.state == COMPLETING:
        return Errors.REBALANCE_IN_PROGRESS
    return Errors.NONE


def _write_offsets(st: _Step, g: Group, topics: tuple[CommitTopic, ...], expire: int,
                   producer: tuple[int, int] | None) -> tuple[TopicResult, ...]:
    results = []
    for t in topics:
        parts = []
        for p in t.partitions:
            metadata = p.committed_metadata or ""
            if _java_length(metadata) > st.cfg.offset_metadata_max_bytes:
                parts.append(PartitionResult(p.partition, Errors.OFFSET_METADATA_TOO_LARGE))
                continue
            value = OffsetCommitValue(offset=p.committed_offset, leader_epoch=p.committed_leader_epoch,
                                      metadata=metadata, commit_timestamp=st.s.now, expire_timestamp=expire)
            record = CoordinatorRecord(OffsetCommitKey(g.group_id, t.name, p.partition), value)
            entry = Offset(p.committed_offset, p.committed_leader_epoch, metadata, st.s.now, expire, 0)
            if producer is None:
                entry.position = st.write(record)
                g.offsets[(t.name, p.partition)] = entry
            else:
                entry.position = st.write(TxnRecord(record, producer[0], producer[1]))
                g.txn.setdefault(producer[0], {})[(t.name, p.partition)] = entry
            parts.append(PartitionResult(p.partition, Errors.NONE))
        results.append(TopicResult(t.name, tuple(parts)))
    return tuple(results)


def _commit(st: _Step, req: OffsetCommit, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    if g is None:
        if req.generation_id_or_member_epoch >= 0:
            error = Errors.GROUP_ID_NOT_FOUND if req.version >= 9 else Errors.ILLEGAL_GENERATION
            st.answer(index, OffsetCommitResponse(_all_partitions(req.topics, error)))
            return
        g = _new_group(st, req.group_id)
    error = _validate_commit(g, req.generation_id_or_member_epoch, req.member_id, req.group_instance_id,
                             False)
    if error != Errors.NONE:
        st.answer(index, OffsetCommitResponse(_all_partitions(req.topics, error)))
        return
    if g.state in (STABLE, PREPARING) and req.member_id in g.members:
        _rearm_session(st, g, g.members[req.member_id])
    expire = -1
    if 2 <= req.version <= 4 and req.retention_time_ms != -1:
        # Added as Java longs: a retention near 2**63 wraps to a time already past.
        expire = wire.wrap_int64(st.s.now + req.retention_time_ms)
    st.answer(index, OffsetCommitResponse(_write_offsets(st, g, req.topics, expire, None)))


def _txn_commit(st: _Step, req: TxnOffsetCommit, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    if g is None:
        if req.generation_id >= 0:
            st.answer(index, TxnOffsetCommitResponse(_all_partitions(req.topics, Errors.ILLEGAL_GENERATION)))
            return
        g = _new_group(st, req.group_id)
    error = _validate_commit(g, req.generation_id, req.member_id, req.group_instance_id, True)
    if error != Errors.NONE:
        st.answer(index, TxnOffsetCommitResponse(_all_partitions(req.topics, error)))
        return
    producer = (req.producer_id, req.producer_epoch)
    st.answer(index, TxnOffsetCommitResponse(_write_offsets(st, g, req.topics, -1, producer)))


def _end_txn(s: State, end: TxnEnd) -> None:
    for g in s.groups.values():
        pending = g.txn.pop(end.producer_id, None)
        if pending is None or not end.commit:
            continue
        for tp, entry in pending.items():
            current = g.offsets.get(tp)
            if current is None or current.position < entry.position:
                g.offsets[tp] = entry


def _txn_marker(st: _Step, req: TxnMarker, index: int) -> None:
    if any(req.producer_id in g.txn for g in st.s.groups.values()):
        end = TxnEnd(req.producer_id, req.producer_epoch, req.commit, req.coordinator_epoch)
        st.write(end)
        _end_txn(st.s, end)
    st.answer(index, TxnMarkerResponse(Errors.NONE))


def _pending_partitions(g: Group) -> set[TopicPartition]:
    return {tp for offsets in g.txn.values() for tp in offsets}


def _fetched(g: Group | None, topic: str, partition: int, require_stable: bool) -> FetchedPartition:
    if g is None:
        return FetchedPartition(partition)
    if require_stable and (topic, partition) in _pending_partitions(g):
        return FetchedPartition(partition, error=Errors.UNSTABLE_OFFSET_COMMIT)
    o = g.offsets.get((topic, partition))
    if o is None:
        return FetchedPartition(partition)
    return FetchedPartition(partition, o.offset, o.leader_epoch, o.metadata)


def _fetch(st: _Step, req: OffsetFetch, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    if req.topics is not None:
        topics = tuple(FetchedTopic(t.name, tuple(_fetched(g, t.name, p, req.require_stable)
                                                  for p in t.partitions))
                       for t in req.topics)
    elif g is None:
        topics = ()
    else:
        names = sorted({t for t, _ in g.offsets})
        topics = tuple(FetchedTopic(name, tuple(_fetched(g, name, p, req.require_stable)
                                                for t, p in sorted(g.offsets) if t == name))
                       for name in names)
    st.answer(index, OffsetFetchResponse(Errors.NONE, topics))


def _tombstone(st: _Step, g: Group, tp: TopicPartition) -> None:
    st.write(CoordinatorRecord(OffsetCommitKey(g.group_id, tp[0], tp[1]), None))
    g.offsets.pop(tp, None)
    for pending in g.txn.values():
        pending.pop(tp, None)
    for producer in [p for p, offsets in g.txn.items() if not offsets]:
        del g.txn[producer]


def _offset_delete(st: _Step, req: OffsetDelete, index: int) -> None:
    g = st.s.groups.get(req.group_id)
    if g is None:
        st.answer(index, OffsetDeleteResponse(Errors.GROUP_ID_NOT_FOUND))
        return
    if g.state != EMPTY and g.protocol_type != "consumer":
        st.answer(index, OffsetDeleteResponse(Errors.NON_EMPTY_GROUP))
        return
    results = []
    for t in req.topics:
        subscribed = _is_subscribed(g, t.name)
        parts = []
        for p in t.partitions:
            if subscribed:
                parts.append(PartitionResult(p, Errors.GROUP_SUBSCRIBED_TO_TOPIC))
                continue
            if (t.name, p) in g.offsets:
                _tombstone(st, g, (t.name, p))
            parts.append(PartitionResult(p, Errors.NONE))
        results.append(TopicResult(t.name, tuple(parts)))
    st.answer(index, OffsetDeleteResponse(Errors.NONE, tuple(results)))


def _delete_group(st: _Step, g: Group) -> None:
    for tp in sorted(set(g.offsets) | _pending_partitions(g)):
        _tombstone(st, g, tp)
    st.write(CoordinatorRecord(GroupMetadataKey(g.group_id), None))
    del st.s.groups[g.group_id]


def _delete_groups(st: _Step, req: DeleteGroups, index: int) -> None:
    results = []
    for gid in req.group_ids:
        g = st.s.groups.get(gid)
        if g is None:
            results.append(GroupResult(gid, Errors.GROUP_ID_NOT_FOUND))
        elif g.state != EMPTY:
            results.append(GroupResult(gid, Errors.NON_EMPTY_GROUP))
        else:
            _delete_group(st, g)
            results.append(GroupResult(gid, Errors.NONE))
    st.answer(index, DeleteGroupsResponse(tuple(results)))


def _expired_offsets(st: _Step, g: Group) -> tuple[list[TopicPartition], bool]:
    """cleanupExpiredOffsets: the offsets to tombstone, and whether the group has none left."""
    if not g.offsets:
        return [], not g.txn
    base_of_state = g.protocol_type is not None and g.state == EMPTY
    by_commit = g.protocol_type is None or (
        g.protocol_type == "consumer" and g.subscribed is not None and g.state == STABLE)
    if not base_of_state and not by_commit:
        return [], False
    pending = _pending_partitions(g)
    expired = []
    for tp, o in sorted(g.offsets.items()):
        if _is_subscribed(g, tp[0]) or tp in pending:
            continue
        if o.expire_timestamp_ms != -1:
            gone = st.s.now >= o.expire_timestamp_ms
        else:
            base = (g.state_timestamp_ms if base_of_state and g.state_timestamp_ms is not None
                    else o.commit_timestamp_ms)
            gone = st.s.now - base >= st.cfg.offsets_retention_ms
        if gone:
            expired.append(tp)
    return expired, len(expired) == len(g.offsets) and not g.txn


def _expire_group_metadata(st: _Step) -> None:
    for gid in sorted(st.s.groups):
        g = st.s.groups[gid]
        expired, all_gone = _expired_offsets(st, g)
        for tp in expired:
            _tombstone(st, g, tp)
        if all_gone and g.state == EMPTY:
            st.write(CoordinatorRecord(GroupMetadataKey(gid), None))
            del st.s.groups[gid]
    st.arm(EXPIRE_KEY, st.cfg.offsets_retention_check_interval_ms, Timer(0, 0, None))


# ---------------------------------------------------------------------------------------------
# Describe, list
# ---------------------------------------------------------------------------------------------


def _describe(s: State, group_id: str) -> DescribedGroup:
    g = s.groups.get(group_id)
    if g is None:
        return DescribedGroup(group_id, Errors.GROUP_ID_NOT_FOUND, DEAD)
    stable = g.state == STABLE
    members = tuple(DescribedMember(m.member_id, m.instance_id, m.client_id, m.client_host,
                                    m.metadata(g.protocol_name) if stable else b"",
                                    m.assignment if stable else b"")
                    for m in g.members.values())
    return DescribedGroup(group_id, Errors.NONE, g.state, g.protocol_type or "",
                          (g.protocol_name or "") if stable else "", members)


def _list_groups(st: _Step, req: ListGroups, index: int) -> None:
    wanted = {name.lower() for name in req.states_filter}
    groups = tuple(ListedGroup(g.group_id, g.protocol_type or "", g.state)
                   for _, g in sorted(st.s.groups.items()) if not wanted or g.state.lower() in wanted)
    st.answer(index, ListGroupsResponse(Errors.NONE, groups))


# ---------------------------------------------------------------------------------------------
# Time
# ---------------------------------------------------------------------------------------------


def _advance(st: _Step, to_ms: int) -> None:
    st.s.now = max(st.s.now, to_ms)
    while True:
        due = [(t.deadline, t.seq, key) for key, t in st.s.timers.items() if t.deadline <= st.s.now]
        if not due:
            return
        _, _, key = min(due)
        _fire(st, key, st.s.timers.pop(key))


def _fire(st: _Step, key: str, timer: Timer) -> None:
    if key == EXPIRE_KEY:
        _expire_group_metadata(st)
        return
    g = st.s.groups.get(timer.group_id or "")
    if g is None:
        return
    if key.startswith("join-"):
        if timer.delay is not None:
            delay, remaining = timer.delay
            if g.new_member_added and remaining != 0:
                g.new_member_added = False
                new_delay = min(st.cfg.initial_rebalance_delay_ms, remaining)
                st.arm(key, new_delay, Timer(0, 0, g.group_id, delay=(new_delay, max(remaining - delay, 0))))
                return
        _complete_join(st, g)
    elif key.startswith("sync-"):
        if timer.generation != g.generation or g.state not in (COMPLETING, STABLE) or not g.pending_sync:
            return
        for mid in sorted(g.pending_sync):
            _remove(g, mid)
            st.cancel(_heartbeat_key(g.group_id, mid))
        _prepare_rebalance(st, g)
    else:
        member_id = timer.member_id or ""
        if member_id in g.pending:
            g.pending.discard(member_id)
            if g.state == PREPARING and _all_joined(g):
                _complete_join(st, g)
            return
        m = g.members.get(member_id)
        if m is None:
            return
        satisfied = not m.is_new and (m.join_request is not None or m.sync_request is not None)
        if not satisfied:
            _remove_and_update(st, g, m)


# ---------------------------------------------------------------------------------------------
# Restart: unload, replay the log, load
# ---------------------------------------------------------------------------------------------


def replay(config: ClassicConfig, log: list[LogEntry]) -> dict[str, Group]:
    """The groups a coordinator rebuilds from a log (GroupMetadataManager/OffsetMetadataManager#replay)."""
    groups: dict[str, Group] = {}
    for position, entry in enumerate(log):
        if isinstance(entry, TxnEnd):
            s = State(config, 0, groups)
            _end_txn(s, entry)
            continue
        record = entry.record if isinstance(entry, TxnRecord) else entry
        key, value = record.key, record.value
        if isinstance(key, GroupMetadataKey):
            if value is None:
                groups.pop(key.group, None)
            else:
                assert isinstance(value, GroupMetadataValue)
                old = groups.get(key.group)
                groups[key.group] = _group_from_record(key.group, value, old)
        elif isinstance(key, OffsetCommitKey):
            g = groups.get(key.group)
            if g is None:
                g = groups[key.group] = Group(key.group)
            tp = (key.topic, key.partition)
            if value is None:
                g.offsets.pop(tp, None)
                for pending in g.txn.values():
                    pending.pop(tp, None)
                for producer in [p for p, offsets in g.txn.items() if not offsets]:
                    del g.txn[producer]
                continue
            assert isinstance(value, OffsetCommitValue)
            entry_offset = Offset(value.offset, value.leader_epoch, value.metadata, value.commit_timestamp,
                                  value.expire_timestamp, position)
            if isinstance(entry, TxnRecord):
                g.txn.setdefault(entry.producer_id, {})[tp] = entry_offset
            else:
                g.offsets[tp] = entry_offset
    return groups


def _group_from_record(group_id: str, value: GroupMetadataValue, old: Group | None) -> Group:
    g = Group(group_id, state=STABLE if value.members else EMPTY,
              state_timestamp_ms=(None if value.current_state_timestamp == -1
                                  else value.current_state_timestamp),
              protocol_type=value.protocol_type or None, protocol_name=value.protocol,
              generation=value.generation, leader=value.leader)
    for mm in value.members:
        rebalance = mm.rebalance_timeout if mm.rebalance_timeout != -1 else mm.session_timeout
        protocols = (Protocol(value.protocol or "", mm.subscription),)
        g.members[mm.member_id] = Member(mm.member_id, mm.group_instance_id, mm.client_id, mm.client_host,
                                         mm.session_timeout, rebalance, value.protocol_type, protocols,
                                         mm.assignment)
        if mm.group_instance_id is not None:
            g.static[mm.group_instance_id] = mm.member_id
    g.subscribed = _compute_subscribed(g)
    if old is not None:
        g.offsets, g.txn = old.offsets, old.txn
    return g


def _unload(st: _Step) -> None:
    """onUnloaded: parked requests are answered NOT_COORDINATOR; memory and timers go."""
    for g in st.s.groups.values():
        for m in g.members.values():
            if m.join_request is not None:
                st.answer(m.join_request, JoinGroupResponse(Errors.NOT_COORDINATOR, member_id=m.member_id))
            if m.sync_request is not None:
                st.answer(m.sync_request, SyncGroupResponse(Errors.NOT_COORDINATOR))
    st.s.timers.clear()
    st.s.groups = {}


def _restart(st: _Step) -> None:
    _unload(st)
    st.s.loading = False
    st.s.groups = replay(st.cfg, st.s.log)
    for gid in sorted(st.s.groups):
        g = st.s.groups[gid]
        for m in g.members.values():
            _rearm_session(st, g, m)
    st.arm(EXPIRE_KEY, st.cfg.offsets_retention_check_interval_ms, Timer(0, 0, None))


# ---------------------------------------------------------------------------------------------
# The observable view
# ---------------------------------------------------------------------------------------------


def _offset_view(tp: TopicPartition, o: Offset) -> OffsetView:
    return OffsetView(tp[0], tp[1], o.offset, o.leader_epoch, o.metadata, o.commit_timestamp_ms,
                      o.expire_timestamp_ms)


def _group_view(s: State, g: Group) -> GroupView:
    members = tuple(MemberView(m.member_id, m.instance_id, m.client_id, m.client_host, m.session_timeout_ms,
                               m.rebalance_timeout_ms, m.protocols, m.assignment, m.join_request is not None,
                               m.sync_request is not None, m.is_new)
                    for m in g.members.values())
    pending = tuple(PendingOffsetView(producer, _offset_view(tp, o))
                    for producer in sorted(g.txn) for tp, o in sorted(g.txn[producer].items()))
    timers = tuple(sorted((key, t.deadline) for key, t in s.timers.items() if t.group_id == g.group_id))
    return GroupView(
        group_id=g.group_id, state=g.state, protocol_type=g.protocol_type, protocol_name=g.protocol_name,
        generation_id=g.generation, leader_id=g.leader, state_timestamp_ms=g.state_timestamp_ms,
        members=members, pending_members=tuple(sorted(g.pending)), pending_sync=tuple(sorted(g.pending_sync)),
        offsets=tuple(_offset_view(tp, o) for tp, o in sorted(g.offsets.items())),
        pending_offsets=pending, timers=timers)


def view(state: State) -> CoordinatorView:
    """What an operator (DescribeGroups, OffsetFetch, the timer wheel) could see of every group."""
    groups = tuple(_group_view(state, state.groups[g]) for g in sorted(state.groups))
    return CoordinatorView(state.now, groups)

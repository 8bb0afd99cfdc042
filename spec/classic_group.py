"""The classic group coordinator, as rules: one pure step over requests, clock ticks and loads.

Theory of operation
-------------------
Kafka 4.x's group coordinator runs classic groups (JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
OffsetCommit and the admin requests) in ``GroupMetadataManager``, ``ClassicGroup`` and
``OffsetMetadataManager`` (group-coordinator module). This module says what those classes do, as
rules small enough to read in an afternoon. The project's fact sheet on the classic group
(``classic_group.md``) gives each rule's upstream source; docs/machines/classic_group.md has the
diagram and the request table.

* **State** is frozen: every group (members in the order they were added, parked requests,
  pending members, offsets, pending transactional offsets), every armed timer, the clock and the
  log written so far. ``step`` never changes the state it is given; a rule builds new values
  (``dataclasses.replace``, :func:`kernel.put`, :func:`kernel.drop`). A helper that changes a
  group takes a ``Group`` and returns the changed one; the rule stores it (``_Step.save``).
* **Dispatch** is :data:`TABLE`: after the edge check (:func:`check_event`) and the
  coordinator's own refusals, ``(state, event type)`` names the rule. The state is the named
  group's (Dead when there is none), or ``Loading`` while a partition loads; coordinator-wide
  events (admin requests, the clock, loads) have one row for every state (``kernel.ANY``).
* **Rules** verify first, answering Kafka's error, then change. A JoinGroup or SyncGroup can be
  *parked*: its member remembers the request's index, and a later event (another member's
  request, a timer) releases the answer.
* **Timers** are keyed like Kafka's (``heartbeat-<group>-<member>``, ``join-<group>``,
  ``sync-<group>``, ``expire-group-metadata``); arming a key replaces its timer. Only
  ``AdvanceClock`` fires them: the clock moves first, then due timers run one at a time by
  (deadline, order armed), each seeing the new time; a timer armed by a callback that is
  already due runs in the same advance. What a timer does is code (:func:`_fire`), not a row.
* **Records** are what Kafka appends to ``__consumer_offsets``. Group changes are made directly
  (Kafka's group handlers do not replay their own writes); an offset changes by applying the
  entry just written (:func:`_apply_offset`), the function a load replays with. The log is kept
  so that ``Restart`` can rebuild the groups from it exactly as a coordinator does when it loads
  a partition (:func:`replay`).
* **Answer forms** follow the request's version, as KafkaApis builds the response with it
  (:func:`_as_sent`): a JoinGroup's null protocol name is "" below v7, a LeaveGroup below v3 has
  one error and no member list. A parked JoinGroup's version is kept until it is answered.

Where Kafka leaves an order to a Java HashMap, this spec fixes one (member order = order added,
a replaced static member's new id last; vote ties to the smallest protocol name; expired offsets
and a deleted group's offset tombstones by topic and partition; groups by id).
docs/divergences.md lists each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import cast

import icontract

from groupspec.spec import kernel
from groupspec.spec.kernel import ANY, drop, put, rows
from groupspec.types import classic_group as c
from groupspec.types import wire_bounds as wire
from groupspec.types.classic_group import DEAD, EMPTY, STABLE, UNKNOWN_MEMBER_ID, ClassicConfig, Protocol
from groupspec.types.errors import Errors
from groupspec.types.records import GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue
from groupspec.types.records.consumer_protocol import subscription_topics
from groupspec.types.records.registry import CoordinatorRecord

PREPARING = c.PREPARING_REBALANCE
COMPLETING = c.COMPLETING_REBALANCE
#: The machine state of every event while a partition loads (BeginLoad until CompleteLoad).
LOADING = "Loading"
EXPIRE_KEY = "expire-group-metadata"

TopicPartition = tuple[str, int]


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
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
        return next((p.metadata for p in self.protocols if p.name == protocol), b"")


@dataclass(frozen=True)
class Offset:
    offset: int
    leader_epoch: int
    metadata: str
    commit_timestamp_ms: int
    expire_timestamp_ms: int
    #: Where its record sits in the log: a transaction's COMMIT keeps the newer of two offsets.
    position: int


@dataclass(frozen=True)
class Group:
    group_id: str
    state: str = EMPTY
    previous_state: str = DEAD
    state_timestamp_ms: int | None = None
    protocol_type: str | None = None
    protocol_name: str | None = None
    generation: int = 0
    leader: str | None = None
    members: Mapping[str, Member] = field(default_factory=dict)
    #: Instance id -> member id of the static members.
    static: Mapping[str, str] = field(default_factory=dict)
    pending: frozenset[str] = frozenset()
    pending_sync: frozenset[str] = frozenset()
    new_member_added: bool = False
    #: Topics the members subscribe to (consumer protocol); None = unknown.
    subscribed: frozenset[str] | None = None
    offsets: Mapping[TopicPartition, Offset] = field(default_factory=dict)
    #: Pending transactional offsets by producer id.
    txn: Mapping[int, Mapping[TopicPartition, Offset]] = field(default_factory=dict)
    #: Made in memory by a write that logged nothing (a commit outside any generation, refused
    #: for every partition). Kafka reads at the partition's last written record, so DescribeGroups
    #: and ListGroups do not see the group until its partition writes its next record.
    unwritten: bool = False


@dataclass(frozen=True)
class Timer:
    deadline: int
    seq: int
    group_id: str | None = None
    member_id: str | None = None
    #: The initial-rebalance delay chain's (delay, remaining); None for an ordinary join timer.
    delay: tuple[int, int] | None = None
    #: The generation a sync timer was armed for.
    generation: int = 0


@dataclass(frozen=True)
class State:
    config: ClassicConfig
    now: int
    groups: Mapping[str, Group] = field(default_factory=dict)
    timers: Mapping[str, Timer] = field(default_factory=dict)
    seq: int = 0
    #: Everything written so far, in order (Restart replays it).
    log: tuple[c.LogEntry, ...] = ()
    #: Between BeginLoad and CompleteLoad: nothing in memory, requests refused by the runtime.
    loading: bool = False
    #: The version of each JoinGroup not answered yet, by request index (its answer's form).
    join_versions: Mapping[int, int] = field(default_factory=dict)
    #: Each producer whose open transaction added this coordinator's partitions, with the groups
    #: its TxnOffsetCommits named since its last marker (whatever they were answered): the
    #: transaction coordinator sends its marker to those partitions. Not in the log: it is the
    #: transaction coordinator's, so a restart keeps it.
    in_txn: Mapping[int, frozenset[str]] = field(default_factory=dict)


class _Step(kernel.Step[State]):
    """The kernel's step with this machine's writes: groups, the log, timers."""

    @property
    def cfg(self) -> ClassicConfig:
        return self.state.config

    def save(self, g: Group) -> Group:
        self.set(groups=put(self.state.groups, g.group_id, g))
        return g

    def delete(self, group_id: str) -> None:
        self.set(groups=drop(self.state.groups, group_id))

    def log(self, entry: c.LogEntry) -> int:
        """Append to the log; the entry's position."""
        self.write(entry)
        self.set(log=(*self.state.log, entry))
        return len(self.state.log) - 1

    def arm(self, key: str, delay_ms: int, group_id: str | None = None, member_id: str | None = None,
            delay: tuple[int, int] | None = None, generation: int = 0) -> None:
        seq = self.state.seq + 1
        timer = Timer(self.state.now + delay_ms, seq, group_id, member_id, delay, generation)
        self.set(seq=seq, timers=put(self.state.timers, key, timer))

    def cancel(self, key: str) -> None:
        self.set(timers=drop(self.state.timers, key))


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


def _join_versions_parked(s: State) -> bool:
    return set(s.join_versions) == _parked_joins(s)


def invariants_hold(s: State) -> bool:
    """Every group is well formed, no request is parked twice, no timer is overdue; a version
    is kept for exactly the parked JoinGroups."""
    return (all(_group_ok(g) for g in s.groups.values()) and _parked_unique(s)
            and all(t.deadline >= s.now for t in s.timers.values()) and _join_versions_parked(s))


def _generations_kept(before: State, after: State) -> bool:
    return all(after.groups[g].generation >= before.groups[g].generation
               for g in before.groups if g in after.groups)


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


@icontract.ensure(lambda result: invariants_hold(result))
def initial_state(config: ClassicConfig = ClassicConfig(), now_ms: int = 0) -> State:  # noqa: B008
    """A coordinator hosting every partition, with no groups; the offset expiration job is armed."""
    c.check_config(config)
    wire.integer(now_ms, "now_ms", "int64")
    st = _Step(State(config, now_ms))
    st.arm(EXPIRE_KEY, config.offsets_retention_check_interval_ms)
    return st.state


@icontract.require(lambda state: invariants_hold(state))
@icontract.ensure(lambda result: invariants_hold(result[0]))
# A restart may go back: a generation never written (no leader SyncGroup yet) is lost on load.
@icontract.ensure(lambda state, event, result:
                  isinstance(event, c.Restart) or _generations_kept(state, result[0]))
@icontract.ensure(lambda state, result: result[0].now >= state.now)
def step(state: State, event: c.ClassicEvent, index: int) -> tuple[State, c.Output]:
    """Apply one event (request ``index``, or a clock advance, or a restart).

    An event a broker would refuse to parse (:func:`check_event`) raises its InputError before
    anything happens: the step is all or nothing. First failure wins: the coordinator's own
    checks, then the runtime (a loading partition: the ``Loading`` rows), then the group.
    """
    c.check_event(event, index)
    st = _Step(state)
    if isinstance(event, c.JoinGroup):
        st.set(join_versions=put(state.join_versions, index, event.version))
    if isinstance(event, c.TxnOffsetCommit):  # AddOffsetsToTxn added the group's partition
        st.set(in_txn=put(state.in_txn, event.producer_id,
                          state.in_txn.get(event.producer_id, frozenset()) | {event.group_id}))
    refusal = _coordinator_refusal(state.config, event)
    if refusal is not None:
        st.answer(index, refusal)
    else:
        TABLE.rule(_machine_state(state, event), event)(st, event, index)
    versions = st.state.join_versions
    if isinstance(event, c.LeaveGroup):  # answered at once: its version is needed only now
        versions = put(versions, index, event.version)
    answers = tuple(_as_sent(versions.get(request), request, response) for request, response in st.answers)
    # Answered joins, and a parked join another replaced (never answered), need no version now.
    st.set(join_versions={r: v for r, v in versions.items() if r in _parked_joins(st.state)})
    _written_partitions_show_their_groups(st, state, cast(tuple[c.LogEntry, ...], tuple(st.records)))
    return st.state, c.Output(answers, cast(tuple[c.LogEntry, ...], tuple(st.records)))


def partition_of(config: ClassicConfig, group_id: str) -> int:
    """The group's ``__consumer_offsets`` partition (GroupCoordinatorService#partitionFor):
    Java's String.hashCode over UTF-16 code units, Kafka's Utils.abs (0 for Integer.MIN_VALUE)."""
    h = 0
    data = group_id.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    if h >= 1 << 31:
        h -= 1 << 32
    return (0 if h == -(1 << 31) else abs(h)) % config.offsets_topic_partitions


def _written_partitions_show_their_groups(st: _Step, before: State, records: tuple[c.LogEntry, ...]) -> None:
    """A partition that wrote a record shows the groups it made without one (``unwritten``)."""
    if not records or not any(g.unwritten for g in st.state.groups.values()):
        return
    cfg = st.cfg
    written: set[int] = set()
    for entry in records:
        if isinstance(entry, c.TxnEnd):  # on each partition the producer's transaction added
            written |= {partition_of(cfg, gid) for gid in before.in_txn.get(entry.producer_id, ())}
            written |= {partition_of(cfg, gid) for gid, g in before.groups.items()
                        if entry.producer_id in g.txn}
        else:
            record = entry.record if isinstance(entry, c.TxnRecord) else entry
            written.add(partition_of(cfg, str(record.key.group)))  # type: ignore[attr-defined]
    shown = {gid for gid, g in st.state.groups.items() if g.unwritten and partition_of(cfg, gid) in written}
    st.set(groups={gid: replace(g, unwritten=False) if gid in shown else g
                   for gid, g in st.state.groups.items()})


def _parked_joins(s: State) -> set[int]:
    return {m.join_request for g in s.groups.values() for m in g.members.values()
            if m.join_request is not None}


def _as_sent(version: int | None, request: int, response: object) -> c.Answer:
    """An answer in its request's version, as KafkaApis builds JoinGroupResponse and
    LeaveGroupResponse with it. A JoinGroup's protocol name, nullable only from v7, is "" below
    v7 when the coordinator has none, and null from v7 when it is "". Below v3 a LeaveGroup's
    answer has no member list: its error is the request's, or else its one member's."""
    if version is not None and isinstance(response, c.LeaveGroupResponse) and version < 3:
        error = response.error if response.error != Errors.NONE else response.members[0].error
        return c.Answer(request, c.LeaveGroupResponse(error))
    if version is None or not isinstance(response, c.JoinGroupResponse):
        return c.Answer(request, response)
    if version < 7 and response.protocol_name is None:
        response = replace(response, protocol_name="")
    elif version >= 7 and response.protocol_name == "":
        response = replace(response, protocol_name=None)
    return c.Answer(request, response)


def _machine_state(s: State, event: c.ClassicEvent) -> str:
    if s.loading:
        return LOADING
    group_id = getattr(event, "group_id", None)
    if group_id is None:
        return ANY
    g = s.groups.get(group_id)
    return DEAD if g is None else g.state


def _coordinator_refusal(cfg: ClassicConfig, event: c.ClassicEvent) -> object | None:
    """What the coordinator service (or KafkaApis) answers before a shard sees the request."""
    match event:
        case c.JoinGroup() if event.group_id == "":
            return c.JoinGroupResponse(Errors.INVALID_GROUP_ID, member_id=event.member_id)
        case c.JoinGroup() if not (cfg.min_session_timeout_ms <= event.session_timeout_ms
                                   <= cfg.max_session_timeout_ms):
            return c.JoinGroupResponse(Errors.INVALID_SESSION_TIMEOUT, member_id=event.member_id)
        case c.SyncGroup() if event.group_id == "":
            return c.SyncGroupResponse(Errors.INVALID_GROUP_ID)
        case c.SyncGroup() if event.version >= 5 and (event.protocol_type is None
                                                       or event.protocol_name is None):
            return c.SyncGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL)
        case c.Heartbeat() if event.group_id == "":
            return c.HeartbeatResponse(Errors.INVALID_GROUP_ID)
        case c.LeaveGroup() if event.group_id == "":
            return c.LeaveGroupResponse(Errors.INVALID_GROUP_ID)
    return None


def _answer(response: object) -> kernel.Rule:
    """A rule that answers the request with ``response`` and changes nothing."""
    def rule(st: _Step, event: object, index: int) -> None:
        st.answer(index, response)
    error = getattr(response, "error", None)
    rule.__name__ = f"_answer({getattr(error, 'name', '')})"  # as the docs' rule table shows it
    rule.__doc__ = f"Answers {getattr(error, 'name', '')}; nothing changes."
    return rule


def _loading(st: _Step, event: c.ClassicRequest, index: int) -> None:
    """COORDINATOR_LOAD_IN_PROGRESS for each partition or group a request names."""
    load = Errors.COORDINATOR_LOAD_IN_PROGRESS
    match event:
        case c.OffsetCommit():
            st.answer(index, c.OffsetCommitResponse(_all_partitions(event.topics, load)))
        case c.TxnOffsetCommit():
            st.answer(index, c.TxnOffsetCommitResponse(_all_partitions(event.topics, load)))
        case c.DeleteGroups():
            st.answer(index, c.DeleteGroupsResponse(tuple(c.GroupResult(g, load) for g in event.group_ids)))
        case c.DescribeGroups():
            st.answer(index, c.DescribeGroupsResponse(tuple(c.DescribedGroup(g, load, "")
                                                            for g in event.group_ids)))


# ---------------------------------------------------------------------------------------------
# Group helpers: each takes a group and returns the changed one
# ---------------------------------------------------------------------------------------------


@icontract.require(lambda g, to: g.state in c.GROUP_PREDECESSORS[to],
                   "only Kafka's valid previous states (ClassicGroupState) lead to a state")
def _transition(st: _Step, g: Group, to: str) -> Group:
    return replace(g, previous_state=g.state, state=to, state_timestamp_ms=st.state.now)


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
    """Every member votes for its first protocol all support; ties go to the smallest name."""
    candidates = [p.name for p in next(iter(g.members.values())).protocols
                  if all(p.name in (q.name for q in m.protocols) for m in g.members.values())]
    votes: dict[str, int] = {}
    for m in g.members.values():
        choice = next(p.name for p in m.protocols if p.name in candidates)
        votes[choice] = votes.get(choice, 0) + 1
    best = max(votes.values())
    return min(name for name, n in votes.items() if n == best)


def _compute_subscribed(g: Group) -> frozenset[str] | None:
    """ClassicGroup#computeSubscribedTopics: unknown unless every consumer subscription parses."""
    if g.protocol_type != "consumer":
        return None
    if not g.members:
        return frozenset()
    if g.protocol_name is None:
        return None
    try:
        return frozenset(t for m in g.members.values()
                         for t in subscription_topics(m.metadata(g.protocol_name)))
    except ValueError:
        return None


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


def _with_member(g: Group, m: Member) -> Group:
    """The group with ``m`` added or updated (and its instance id mapped to it)."""
    static = g.static if m.instance_id is None else put(g.static, m.instance_id, m.member_id)
    return replace(g, members=put(g.members, m.member_id, m), static=static)


def _remove(g: Group, member_id: str) -> Group:
    """ClassicGroup#remove: drop a member or pending id; a removed leader passes to the first left."""
    g = replace(g, pending=g.pending - {member_id})
    m = g.members.get(member_id)
    if m is None:
        return g
    members = drop(g.members, member_id)
    static = g.static
    if m.instance_id is not None and static.get(m.instance_id) == member_id:
        static = drop(static, m.instance_id)
    return replace(g, members=members, static=static,
                   pending_sync=g.pending_sync - {member_id},
                   leader=next(iter(members), None) if g.leader == member_id else g.leader)


def _add(st: _Step, g: Group, m: Member, join_index: int) -> Group:
    """addMemberThenRebalanceOrCompleteJoin."""
    g = replace(g, new_member_added=g.new_member_added or (g.state == PREPARING
                                                           and g.previous_state == EMPTY),
                protocol_type=g.protocol_type if g.members else m.protocol_type,
                pending=g.pending - {m.member_id},
                leader=m.member_id if g.leader is None else g.leader)
    g = _with_member(g, replace(m, is_new=True, join_request=join_index))
    st.arm(_heartbeat_key(g.group_id, m.member_id), c.NEW_MEMBER_JOIN_TIMEOUT_MS, g.group_id, m.member_id)
    if g.state in (STABLE, COMPLETING, EMPTY):
        return _prepare_rebalance(st, g)
    return _maybe_complete_join(st, g)


def _rearm_session(st: _Step, g: Group, m: Member) -> None:
    st.arm(_heartbeat_key(g.group_id, m.member_id), m.session_timeout_ms, g.group_id, m.member_id)


def _prepare_rebalance(st: _Step, g: Group) -> Group:
    """prepareRebalance: parked syncs are refused, assignments dropped, the join phase armed."""
    if g.state == COMPLETING:
        for m in g.members.values():
            if m.sync_request is not None:
                st.answer(m.sync_request, c.SyncGroupResponse(Errors.REBALANCE_IN_PROGRESS))
                _rearm_session(st, g, m)
        g = replace(g, members={mid: replace(m, assignment=b"", sync_request=None)
                                for mid, m in g.members.items()})
    g = replace(g, pending_sync=frozenset())
    st.cancel(f"sync-{g.group_id}")
    initial = g.state == EMPTY
    if initial:
        delay = st.cfg.initial_rebalance_delay_ms
        remaining = max(_rebalance_timeout(g) - delay, 0)
        st.arm(f"join-{g.group_id}", delay, g.group_id, delay=(delay, remaining))
    g = _transition(st, g, PREPARING)
    if initial:
        return g
    if _all_joined(g):
        return _complete_join(st, g)
    st.arm(f"join-{g.group_id}", _rebalance_timeout(g), g.group_id)
    return g


def _maybe_complete_join(st: _Step, g: Group) -> Group:
    if g.state == PREPARING and g.previous_state != EMPTY and _all_joined(g):
        return _complete_join(st, g)
    return g


def _group_metadata_record(g: Group, assignments: Mapping[str, bytes]) -> CoordinatorRecord:
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


def _joined(g: Group, m: Member, with_members: bool) -> c.JoinGroupResponse:
    """A successful JoinGroup answer for ``m``; the members list goes to the leader only."""
    members = tuple(c.JoinGroupMember(x.member_id, x.instance_id, x.metadata(g.protocol_name))
                    for x in g.members.values()) if with_members else ()
    return c.JoinGroupResponse(Errors.NONE, g.generation, g.protocol_type, g.protocol_name, g.leader or "",
                               False, m.member_id, members)


@icontract.require(lambda g: g.state == PREPARING, "only a rebalancing group completes its join phase")
def _complete_join(st: _Step, g: Group) -> Group:
    """completeClassicGroupJoin: drop dynamic members that did not rejoin, then the next generation."""
    st.cancel(f"join-{g.group_id}")
    for mid in [mid for mid, m in g.members.items() if m.join_request is None and m.instance_id is None]:
        g = _remove(g, mid)
        st.cancel(_heartbeat_key(g.group_id, mid))
    leader = g.members[g.leader] if g.leader is not None else None
    if g.members and (leader is None or leader.join_request is None):
        joined = next((mid for mid, m in g.members.items() if m.join_request is not None), None)
        if joined is None:
            st.arm(f"join-{g.group_id}", _rebalance_timeout(g), g.group_id)
            return g
        g = replace(g, leader=joined)
    g = replace(g, generation=g.generation + 1, pending_sync=frozenset())
    if not g.members:
        g = _transition(st, replace(g, protocol_name=None, subscribed=_compute_subscribed(g)), EMPTY)
        st.log(_group_metadata_record(g, {}))
        return g
    g = replace(g, protocol_name=_select_protocol(g))
    g = _transition(st, replace(g, subscribed=_compute_subscribed(g)), COMPLETING)
    for m in g.members.values():
        if m.join_request is not None:
            st.answer(m.join_request, _joined(g, m, m.member_id == g.leader))
        _rearm_session(st, g, m)
    st.arm(f"sync-{g.group_id}", _rebalance_timeout(g), g.group_id, generation=g.generation)
    return replace(g, pending_sync=frozenset(g.members), members={
        mid: replace(m, join_request=None, is_new=False) for mid, m in g.members.items()})


def _remove_and_update(st: _Step, g: Group, m: Member) -> Group:
    """removeMemberAndUpdateClassicGroup: a member expired."""
    if m.join_request is not None:
        st.answer(m.join_request, c.JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID))
    g = _remove(g, m.member_id)
    if g.state in (STABLE, COMPLETING):
        return _prepare_rebalance(st, g)
    if g.state == PREPARING and _all_joined(g):
        return _complete_join(st, g)
    return g


# ---------------------------------------------------------------------------------------------
# JoinGroup: the checks every state shares, then one rule per state for a known member
# ---------------------------------------------------------------------------------------------


def _join_creates_group(st: _Step, req: c.JoinGroup, index: int) -> None:
    """A JoinGroup without a member id creates a missing group (and its generation-0 record)."""
    # Verify: a member id the coordinator issued names a group it holds
    if req.member_id != UNKNOWN_MEMBER_ID:
        st.answer(index, c.JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID, member_id=req.member_id))
        return
    st.log(_group_metadata_record(st.save(Group(req.group_id, state_timestamp_ms=st.state.now)), {}))
    _join_empty(st, req, index)


def _join_empty(st: _Step, req: c.JoinGroup, index: int) -> None:
    """An Empty group has no member to rejoin: a new member joins, or the shared checks answer."""
    _join_known_member(st, req, index)


def _join_preparing(st: _Step, req: c.JoinGroup, index: int) -> None:
    """A known member rejoins a rebalance: its join is parked until all have joined."""
    if (found := _join_known_member(st, req, index)) is not None:
        g, m = found
        st.save(_maybe_complete_join(st, _update_member(g, m, req, index)))


def _join_completing(st: _Step, req: c.JoinGroup, index: int) -> None:
    """Same metadata: answered at once with the current generation; else a new rebalance."""
    if (found := _join_known_member(st, req, index)) is not None:
        g, m = found
        if m.protocols == req.protocols:
            st.answer(index, _joined(g, m, m.member_id == g.leader))
        else:
            st.save(_prepare_rebalance(st, _update_member(g, m, req, index)))


def _join_stable(st: _Step, req: c.JoinGroup, index: int) -> None:
    """The leader or a member with new metadata rebalances; a follower is answered at once."""
    if (found := _join_known_member(st, req, index)) is not None:
        g, m = found
        if m.member_id == g.leader or m.protocols != req.protocols:
            st.save(_prepare_rebalance(st, _update_member(g, m, req, index)))
        else:
            st.answer(index, _joined(g, m, False))


@icontract.ensure(lambda result: result is None or result[0].state != EMPTY, "an Empty group has no members")
def _join_known_member(st: _Step, req: c.JoinGroup, index: int) -> tuple[Group, Member] | None:
    """The JoinGroup rules every state shares; the group and member if a known member rejoins."""
    g = st.state.groups[req.group_id]
    # Verify: room for the member, a protocol every member supports
    accepted = g.members.get(req.member_id)
    if g.state == PREPARING:
        awaiting = sum(1 for m in g.members.values() if m.join_request is not None)
        room = (accepted is not None and accepted.join_request is not None) or awaiting < st.cfg.max_size
    else:
        room = g.state == EMPTY or accepted is not None or len(g.members) < st.cfg.max_size
    if not room:
        st.save(_remove(g, req.member_id))
        st.answer(index, c.JoinGroupResponse(Errors.GROUP_MAX_SIZE_REACHED))
        return None
    if not _supports(g, req.protocol_type, [p.name for p in req.protocols]):
        st.answer(index, c.JoinGroupResponse(Errors.INCONSISTENT_GROUP_PROTOCOL, member_id=req.member_id))
        return None
    if req.member_id == UNKNOWN_MEMBER_ID:
        _join_new_member(st, g, req, index)
        return None
    if req.member_id in g.pending:
        # Verify: a pending id is a dynamic member's (Kafka throws IllegalStateException; the
        # service answers the exception with a fresh response: the error alone, member id "")
        if req.group_instance_id is not None:
            st.answer(index, c.JoinGroupResponse(Errors.UNKNOWN_SERVER_ERROR, member_id=""))
        else:
            st.save(_add(st, g, _member_from(req, req.member_id), index))
        return None
    error = _validate_member(g, req.member_id, req.group_instance_id)
    if error != Errors.NONE:
        st.answer(index, c.JoinGroupResponse(error, member_id=req.member_id))
        return None
    return g, g.members[req.member_id]


def _join_new_member(st: _Step, g: Group, req: c.JoinGroup, index: int) -> None:
    """No member id: a static member joins or replaces its old id; a dynamic one from v4 is
    first given an id to come back with (MEMBER_ID_REQUIRED, a pending member)."""
    if req.group_instance_id is not None:
        old = g.static.get(req.group_instance_id)
        if old is None:
            st.save(_add(st, g, _member_from(req, f"{req.group_instance_id}-{req.new_member_uuid}"), index))
        else:
            st.save(_replace_static(st, g, req, old, index))
    elif req.version >= 4:
        new_id = f"{req.client_id}-{req.new_member_uuid}"
        st.save(replace(g, pending=g.pending | {new_id}))
        st.arm(_heartbeat_key(g.group_id, new_id), req.session_timeout_ms, g.group_id, new_id)
        st.answer(index, c.JoinGroupResponse(Errors.MEMBER_ID_REQUIRED, member_id=new_id))
    else:
        st.save(_add(st, g, _member_from(req, f"{req.client_id}-{req.new_member_uuid}"), index))


def _member_from(req: c.JoinGroup, member_id: str) -> Member:
    return Member(member_id, req.group_instance_id, req.client_id, req.client_host, req.session_timeout_ms,
                  req.rebalance_timeout_ms, req.protocol_type, req.protocols)


def _update_member(g: Group, m: Member, req: c.JoinGroup, index: int) -> Group:
    """updateMember: new protocols and timeouts; the new JoinGroup replaces any parked one unanswered."""
    return _with_member(g, replace(m, protocols=req.protocols, rebalance_timeout_ms=req.rebalance_timeout_ms,
                                   session_timeout_ms=req.session_timeout_ms, join_request=index))


def _replace_static(st: _Step, g: Group, req: c.JoinGroup, old_id: str, index: int) -> Group:
    """A known instance id joins with no member id: a new id replaces the old one (the old is fenced)."""
    previous_leader = g.leader
    old = g.members[old_id]
    if old.join_request is not None:
        st.answer(old.join_request, c.JoinGroupResponse(Errors.FENCED_INSTANCE_ID, member_id=old_id))
    if old.sync_request is not None:
        st.answer(old.sync_request, c.SyncGroupResponse(Errors.FENCED_INSTANCE_ID))
    new = Member(f"{req.group_instance_id}-{req.new_member_uuid}", old.instance_id, old.client_id,
                 old.client_host, old.session_timeout_ms, old.rebalance_timeout_ms, old.protocol_type,
                 old.protocols, old.assignment)
    g = _with_member(replace(g, members=drop(g.members, old_id),
                             leader=new.member_id if g.leader == old_id else g.leader), new)
    # Armed before the request's timeouts apply: the old session timeout (updateStaticMember...).
    _rearm_session(st, g, new)
    g = _update_member(g, new, req, index)
    if g.state == STABLE and g.protocol_name == _select_protocol(g):
        st.log(_group_metadata_record(g, {m.member_id: m.assignment for m in g.members.values()}))
        new = g.members[new.member_id]
        skip = req.version >= 9
        is_leader = skip and g.leader == new.member_id
        st.answer(index, replace(_joined(g, new, is_leader), skip_assignment=is_leader,
                                 leader=(g.leader if skip else previous_leader) or ""))
        return _with_member(g, replace(new, join_request=None))
    if g.state in (STABLE, COMPLETING):
        return _prepare_rebalance(st, g)
    return _maybe_complete_join(st, g)


# ---------------------------------------------------------------------------------------------
# SyncGroup, Heartbeat, LeaveGroup
# ---------------------------------------------------------------------------------------------


def _sync_error(g: Group, req: c.SyncGroup) -> Errors:
    """The checks of a SyncGroup in every state with members: member, generation, protocol."""
    error = _validate_member(g, req.member_id, req.group_instance_id)
    if error != Errors.NONE:
        return error
    if req.generation_id != g.generation:
        return Errors.ILLEGAL_GENERATION
    # Verify: GroupMetadataManager#isProtocolInconsistent: only when both sides name one (a first
    # rebalance has no protocol name yet: any name passes)
    if (_inconsistent(req.protocol_type, g.protocol_type)
            or _inconsistent(req.protocol_name, g.protocol_name)):
        return Errors.INCONSISTENT_GROUP_PROTOCOL
    return Errors.NONE


def _inconsistent(asked: str | None, held: str | None) -> bool:
    return asked is not None and held is not None and asked != held


def _sync_preparing(st: _Step, req: c.SyncGroup, index: int) -> None:
    """Too early: the member must rejoin first (after the same checks as in the other states)."""
    error = _sync_error(st.state.groups[req.group_id], req)
    st.answer(index, c.SyncGroupResponse(Errors.REBALANCE_IN_PROGRESS if error == Errors.NONE else error))


def _sync_stable(st: _Step, req: c.SyncGroup, index: int) -> None:
    """A member of a stable group gets the assignment already stored."""
    g = st.state.groups[req.group_id]
    # Verify: member, generation, protocol
    if (error := _sync_error(g, req)) != Errors.NONE:
        st.answer(index, c.SyncGroupResponse(error))
        return
    g = st.save(_remove_pending_sync(st, g, req.member_id))
    st.answer(index, _synced(g, g.members[req.member_id].assignment))


def _sync_completing(st: _Step, req: c.SyncGroup, index: int) -> None:
    """Parked until the leader's SyncGroup, which stores every assignment and answers all."""
    g = st.state.groups[req.group_id]
    # Verify: member, generation, protocol
    if (error := _sync_error(g, req)) != Errors.NONE:
        st.answer(index, c.SyncGroupResponse(error))
        return
    g = _remove_pending_sync(st, _with_member(g, replace(g.members[req.member_id], sync_request=index)),
                             req.member_id)
    if req.member_id != g.leader:
        st.save(g)
        return
    given = {a.member_id: a.assignment for a in req.assignments}
    assignments = {mid: given.get(mid, b"") for mid in g.members}
    st.log(_group_metadata_record(g, assignments))
    for m in g.members.values():
        if m.sync_request is not None:
            st.answer(m.sync_request, _synced(g, assignments[m.member_id]))
            _rearm_session(st, g, m)
    g = replace(g, members={mid: replace(m, assignment=assignments[mid], sync_request=None)
                            for mid, m in g.members.items()})
    st.save(_transition(st, g, STABLE))


def _synced(g: Group, assignment: bytes) -> c.SyncGroupResponse:
    return c.SyncGroupResponse(Errors.NONE, g.protocol_type, g.protocol_name, assignment)


def _remove_pending_sync(st: _Step, g: Group, member_id: str) -> Group:
    g = replace(g, pending_sync=g.pending_sync - {member_id})
    if not g.pending_sync:
        st.cancel(f"sync-{g.group_id}")
    return g


def _heartbeat(st: _Step, req: c.Heartbeat, index: int) -> None:
    """A member of the current generation keeps its session; during a rebalance it is told to rejoin."""
    g = st.state.groups[req.group_id]
    # Verify: member, generation
    error = _validate_member(g, req.member_id, req.group_instance_id)
    if error == Errors.NONE and req.generation_id != g.generation:
        error = Errors.ILLEGAL_GENERATION
    if error != Errors.NONE:
        st.answer(index, c.HeartbeatResponse(error))
        return
    _rearm_session(st, g, g.members[req.member_id])
    st.answer(index, c.HeartbeatResponse(Errors.REBALANCE_IN_PROGRESS if g.state == PREPARING
                                         else Errors.NONE))


def _leave_no_group(st: _Step, req: c.LeaveGroup, index: int) -> None:
    """No such group: the request succeeds and each listed member is UNKNOWN_MEMBER_ID."""
    st.answer(index, c.LeaveGroupResponse(Errors.NONE, tuple(c.MemberLeaveResult(
        x.member_id, x.group_instance_id, Errors.UNKNOWN_MEMBER_ID) for x in req.members)))


def _leave(st: _Step, req: c.LeaveGroup, index: int) -> None:
    """Each listed member (by member id, or by instance id alone) or pending id leaves; then the group
    rebalances, or a rebalance in progress may complete."""
    g = st.state.groups[req.group_id]
    results = []
    removed = False
    for x in req.members:
        target: str | None = None
        if x.member_id == UNKNOWN_MEMBER_ID:
            target = g.static.get(x.group_instance_id) if x.group_instance_id is not None else None
            error = Errors.NONE if target is not None else Errors.UNKNOWN_MEMBER_ID
        elif x.member_id in g.pending:
            g = replace(g, pending=g.pending - {x.member_id})
            st.cancel(_heartbeat_key(g.group_id, x.member_id))
            error, removed = Errors.NONE, True
        else:
            error = _validate_member(g, x.member_id, x.group_instance_id)
            target = x.member_id if error == Errors.NONE else None
        if target is not None:
            st.cancel(_heartbeat_key(g.group_id, target))
            if (parked := g.members[target].join_request) is not None:
                st.answer(parked, c.JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID))
            g, removed = _remove(g, target), True
        results.append(c.MemberLeaveResult(x.member_id, x.group_instance_id, error))
    st.answer(index, c.LeaveGroupResponse(Errors.NONE, tuple(results)))
    if removed and g.state in (STABLE, COMPLETING):
        g = _prepare_rebalance(st, g)
    elif removed:
        g = _maybe_complete_join(st, g)
    st.save(g)


# ---------------------------------------------------------------------------------------------
# Offsets
# ---------------------------------------------------------------------------------------------


def _all_partitions(topics: tuple[c.CommitTopic, ...], error: Errors) -> tuple[c.TopicResult, ...]:
    return tuple(c.TopicResult(t.name, tuple(c.PartitionResult(p.partition, error) for p in t.partitions))
                 for t in topics)


def _validate_commit(g: Group, generation: int, member_id: str, instance_id: str | None,
                     transactional: bool) -> Errors:
    """ClassicGroup#validateOffsetCommit (after the group lookup). An anonymous commit (any
    negative generation, no member id, no instance id) is accepted into an Empty group, and a
    transactional one into a group in any state: a producer need not send group metadata."""
    if generation < 0 and g.state == EMPTY:
        return Errors.NONE
    if generation >= 0 or member_id != UNKNOWN_MEMBER_ID or instance_id is not None:
        error = _validate_member(g, member_id, instance_id)
        if error != Errors.NONE:
            return error
        if generation != g.generation:
            return Errors.ILLEGAL_GENERATION
    elif not transactional:
        return Errors.UNKNOWN_MEMBER_ID
    if not transactional and g.state == COMPLETING:
        return Errors.REBALANCE_IN_PROGRESS
    return Errors.NONE


def _write_offsets(st: _Step, g: Group, topics: tuple[c.CommitTopic, ...], expire: int,
                   producer: tuple[int, int] | None) -> tuple[Group, tuple[c.TopicResult, ...]]:
    """One record per partition whose metadata fits (UTF-16 units, as Java counts); the group with
    the offsets committed, or pending under the producer."""
    results = []
    for t in topics:
        parts = []
        for p in t.partitions:
            metadata = p.committed_metadata or ""
            if len(metadata.encode("utf-16-le")) // 2 > st.cfg.offset_metadata_max_bytes:
                parts.append(c.PartitionResult(p.partition, Errors.OFFSET_METADATA_TOO_LARGE))
                continue
            record = CoordinatorRecord(OffsetCommitKey(g.group_id, t.name, p.partition), OffsetCommitValue(
                offset=p.committed_offset, leader_epoch=p.committed_leader_epoch, metadata=metadata,
                commit_timestamp=st.state.now, expire_timestamp=expire))
            g = _write_offset(st, g, record if producer is None else c.TxnRecord(record, *producer))
            parts.append(c.PartitionResult(p.partition, Errors.NONE))
        results.append(c.TopicResult(t.name, tuple(parts)))
    return g, tuple(results)


def _write_offset(st: _Step, g: Group, entry: c.LogEntry) -> Group:
    return _apply_offset(g, st.log(entry), entry)


def _apply_offset(g: Group, position: int, entry: c.LogEntry) -> Group:
    """What an offset entry does to its group, written or replayed (OffsetMetadataManager#replay):
    an offset is set (pending under its producer if transactional) or, by a tombstone, removed."""
    record = cast(CoordinatorRecord, entry.record if isinstance(entry, c.TxnRecord) else entry)
    key, v = cast(OffsetCommitKey, record.key), cast(OffsetCommitValue | None, record.value)
    tp = (key.topic, key.partition)
    if v is None:
        return replace(g, offsets=drop(g.offsets, tp),
                       txn={p: rest for p, pending in g.txn.items() if (rest := drop(pending, tp))})
    o = Offset(v.offset, v.leader_epoch, v.metadata, v.commit_timestamp, v.expire_timestamp, position)
    if isinstance(entry, c.TxnRecord):
        return replace(g, txn=put(g.txn, entry.producer_id, put(g.txn.get(entry.producer_id, {}), tp, o)))
    return replace(g, offsets=put(g.offsets, tp, o))


def _commit_creates_group(st: _Step, req: c.OffsetCommit, index: int) -> None:
    """A commit outside any generation creates a missing (simple) group; no record for the group."""
    # Verify: a generation names a group the coordinator holds
    if req.generation_id_or_member_epoch >= 0:
        error = Errors.GROUP_ID_NOT_FOUND if req.version >= 9 else Errors.ILLEGAL_GENERATION
        st.answer(index, c.OffsetCommitResponse(_all_partitions(req.topics, error)))
        return
    st.save(Group(req.group_id, state_timestamp_ms=st.state.now, unwritten=True))
    _commit(st, req, index)


def _commit(st: _Step, req: c.OffsetCommit, index: int) -> None:
    """Offsets committed by a member of the current generation, or outside any generation."""
    g = st.state.groups[req.group_id]
    # Verify: ClassicGroup#validateOffsetCommit
    error = _validate_commit(g, req.generation_id_or_member_epoch, req.member_id, req.group_instance_id,
                             False)
    if error != Errors.NONE:
        st.answer(index, c.OffsetCommitResponse(_all_partitions(req.topics, error)))
        return
    if g.state in (STABLE, PREPARING) and req.member_id in g.members:
        _rearm_session(st, g, g.members[req.member_id])
    expire = -1
    if 2 <= req.version <= 4 and req.retention_time_ms != -1:
        # Added as Java longs: a retention near 2**63 wraps to a time already past.
        expire = wire.wrap_int64(st.state.now + req.retention_time_ms)
    g, results = _write_offsets(st, g, req.topics, expire, None)
    st.save(g)
    st.answer(index, c.OffsetCommitResponse(results))


def _txn_commit_creates_group(st: _Step, req: c.TxnOffsetCommit, index: int) -> None:
    """A transactional commit outside any generation creates a missing group; with one, ILLEGAL_GENERATION."""
    # Verify: a generation names a group the coordinator holds
    if req.generation_id >= 0:
        st.answer(index, c.TxnOffsetCommitResponse(_all_partitions(req.topics, Errors.ILLEGAL_GENERATION)))
        return
    st.save(Group(req.group_id, state_timestamp_ms=st.state.now, unwritten=True))
    _txn_commit(st, req, index)


def _txn_commit(st: _Step, req: c.TxnOffsetCommit, index: int) -> None:
    """Offsets written in the producer's transaction, pending until its marker."""
    g = st.state.groups[req.group_id]
    # Verify: ClassicGroup#validateOffsetCommit, transactional
    error = _validate_commit(g, req.generation_id, req.member_id, req.group_instance_id, True)
    if error != Errors.NONE:
        st.answer(index, c.TxnOffsetCommitResponse(_all_partitions(req.topics, error)))
        return
    g, results = _write_offsets(st, g, req.topics, -1, (req.producer_id, req.producer_epoch))
    st.save(g)
    st.answer(index, c.TxnOffsetCommitResponse(results))


def _end_txn(g: Group, end: c.TxnEnd) -> Group:
    """A marker ends the producer's pending offsets: COMMIT keeps each unless a newer one is committed."""
    pending = g.txn.get(end.producer_id)
    if pending is None:
        return g
    g = replace(g, txn=drop(g.txn, end.producer_id))
    if not end.commit:
        return g
    newer = {tp: o for tp, o in pending.items() if tp not in g.offsets or g.offsets[tp].position < o.position}
    return replace(g, offsets={**g.offsets, **newer})


def _txn_marker(st: _Step, req: c.TxnMarker, index: int) -> None:
    """A marker reaches the partitions the producer's transaction added (a TxnOffsetCommit since
    its last marker), and each writes it whatever is still pending there (CoordinatorRuntime
    appends the control record for every completed transaction); it ends the pending offsets."""
    if req.producer_id in st.state.in_txn or any(req.producer_id in g.txn for g in st.state.groups.values()):
        end = c.TxnEnd(req.producer_id, req.producer_epoch, req.commit, req.coordinator_epoch)
        st.log(end)
        st.set(groups={gid: _end_txn(g, end) for gid, g in st.state.groups.items()},
               in_txn=drop(st.state.in_txn, req.producer_id))
    st.answer(index, c.TxnMarkerResponse(Errors.NONE))


def _pending_partitions(g: Group) -> set[TopicPartition]:
    return {tp for offsets in g.txn.values() for tp in offsets}


def _fetched(g: Group | None, topic: str, partition: int, require_stable: bool) -> c.FetchedPartition:
    if g is None:
        return c.FetchedPartition(partition)
    if require_stable and (topic, partition) in _pending_partitions(g):
        return c.FetchedPartition(partition, error=Errors.UNSTABLE_OFFSET_COMMIT)
    o = g.offsets.get((topic, partition))
    if o is None:
        return c.FetchedPartition(partition)
    return c.FetchedPartition(partition, o.offset, o.leader_epoch, o.metadata)


def _fetch(st: _Step, req: c.OffsetFetch, index: int) -> None:
    """The named partitions, or every committed one (by topic and partition)."""
    g = st.state.groups.get(req.group_id)
    committed = sorted(g.offsets) if g is not None else []
    wanted = ([(t.name, t.partitions) for t in req.topics] if req.topics is not None else
              [(name, tuple(p for t, p in committed if t == name))
               for name in dict.fromkeys(t for t, _ in committed)])
    st.answer(index, c.OffsetFetchResponse(Errors.NONE, tuple(
        c.FetchedTopic(name, tuple(_fetched(g, name, p, req.require_stable) for p in partitions))
        for name, partitions in wanted)))


def _tombstone(st: _Step, g: Group, tp: TopicPartition) -> Group:
    return _write_offset(st, g, CoordinatorRecord(OffsetCommitKey(g.group_id, *tp), None))


def _offset_delete(st: _Step, req: c.OffsetDelete, index: int) -> None:
    """Offsets of topics the group does not subscribe to are deleted: a tombstone where an offset
    is committed or a transaction's is pending (OffsetMetadataManager#deleteOffsets)."""
    g = st.state.groups[req.group_id]
    # Verify: an empty group, or a consumer group (whose subscriptions are known)
    if g.state != EMPTY and g.protocol_type != "consumer":
        st.answer(index, c.OffsetDeleteResponse(Errors.NON_EMPTY_GROUP))
        return
    results = []
    for t in req.topics:
        subscribed = _is_subscribed(g, t.name)
        for p in t.partitions:
            if not subscribed and ((t.name, p) in g.offsets or (t.name, p) in _pending_partitions(g)):
                g = _tombstone(st, g, (t.name, p))
        error = Errors.GROUP_SUBSCRIBED_TO_TOPIC if subscribed else Errors.NONE
        results.append(c.TopicResult(t.name, tuple(c.PartitionResult(p, error) for p in t.partitions)))
    st.save(g)
    st.answer(index, c.OffsetDeleteResponse(Errors.NONE, tuple(results)))


def _delete_group(st: _Step, g: Group) -> None:
    # Sorted; Kafka writes committed ones in hash order, then pending-only ones (classic_tombstone_order).
    for tp in sorted(set(g.offsets) | _pending_partitions(g)):
        g = _tombstone(st, g, tp)
    st.log(CoordinatorRecord(GroupMetadataKey(g.group_id), None))
    st.delete(g.group_id)


def _delete_groups(st: _Step, req: c.DeleteGroups, index: int) -> None:
    """Each empty group named goes, with its offsets (tombstones)."""
    results = []
    for gid in req.group_ids:
        g = st.state.groups.get(gid)
        if g is None:
            results.append(c.GroupResult(gid, Errors.GROUP_ID_NOT_FOUND))
        elif g.state != EMPTY:
            results.append(c.GroupResult(gid, Errors.NON_EMPTY_GROUP))
        else:
            _delete_group(st, g)
            results.append(c.GroupResult(gid, Errors.NONE))
    st.answer(index, c.DeleteGroupsResponse(tuple(results)))


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
            gone = st.state.now >= o.expire_timestamp_ms
        else:
            base = (g.state_timestamp_ms if base_of_state and g.state_timestamp_ms is not None
                    else o.commit_timestamp_ms)
            gone = st.state.now - base >= st.cfg.offsets_retention_ms
        if gone:
            expired.append(tp)
    return expired, len(expired) == len(g.offsets) and not g.txn


def _expire_group_metadata(st: _Step) -> None:
    for gid in sorted(st.state.groups):
        g = st.state.groups[gid]
        expired, all_gone = _expired_offsets(st, g)
        for tp in expired:
            g = st.save(_tombstone(st, g, tp))
        if all_gone and g.state == EMPTY:
            st.log(CoordinatorRecord(GroupMetadataKey(gid), None))
            st.delete(gid)
    st.arm(EXPIRE_KEY, st.cfg.offsets_retention_check_interval_ms)


# ---------------------------------------------------------------------------------------------
# Describe, list
# ---------------------------------------------------------------------------------------------


def _describe_groups(st: _Step, req: c.DescribeGroups, index: int) -> None:
    """Each named group as it stands; a missing one, or one its partition's records do not show
    yet, is reported Dead. Members show the assignment they hold in any state (while
    rebalancing: the last generation's, none for one that joined since); only a Stable group
    shows its protocol and their metadata (ClassicGroupMember#describe, else
    #describeNoMetadata)."""
    st.answer(index, c.DescribeGroupsResponse(tuple(_describe(st.state, gid) for gid in req.group_ids)))


def _describe(s: State, group_id: str) -> c.DescribedGroup:
    g = s.groups.get(group_id)
    if g is None or g.unwritten:
        return c.DescribedGroup(group_id, Errors.GROUP_ID_NOT_FOUND, DEAD)
    stable = g.state == STABLE
    members = tuple(c.DescribedMember(m.member_id, m.instance_id, m.client_id, m.client_host,
                                      m.metadata(g.protocol_name) if stable else b"",
                                      m.assignment)
                    for m in g.members.values())
    return c.DescribedGroup(group_id, Errors.NONE, g.state, g.protocol_type or "",
                            (g.protocol_name or "") if stable else "", members)


def _list_groups(st: _Step, req: c.ListGroups, index: int) -> None:
    """Every group its partition's records show (by id), or those in the requested states
    (compared without case)."""
    wanted = {name.lower() for name in req.states_filter}
    groups = tuple(c.ListedGroup(g.group_id, g.protocol_type or "", g.state)
                   for _, g in sorted(st.state.groups.items())
                   if not g.unwritten and (not wanted or g.state.lower() in wanted))
    st.answer(index, c.ListGroupsResponse(Errors.NONE, groups))


# ---------------------------------------------------------------------------------------------
# Time: the clock moves, then due timers fire in order
# ---------------------------------------------------------------------------------------------


def _advance(st: _Step, event: c.AdvanceClock, index: int) -> None:
    """The clock moves first (never back); then due timers fire by (deadline, order armed)."""
    st.set(now=max(st.state.now, event.to_ms))
    while due := [(t.deadline, t.seq, k) for k, t in st.state.timers.items() if t.deadline <= st.state.now]:
        _, _, key = min(due)
        timer = st.state.timers[key]
        st.cancel(key)
        _fire(st, key, timer)


def _fire(st: _Step, key: str, timer: Timer) -> None:
    """What each kind of timer does: the one place dispatch is by key rather than by the table."""
    if key == EXPIRE_KEY:
        _expire_group_metadata(st)
        return
    g = st.state.groups.get(timer.group_id or "")
    if g is None:
        return
    if key.startswith("join-"):
        st.save(_join_timeout(st, g, key, timer))
    elif key.startswith("sync-"):
        st.save(_sync_timeout(st, g, timer))
    else:
        st.save(_session_timeout(st, g, timer.member_id or ""))


def _join_timeout(st: _Step, g: Group, key: str, timer: Timer) -> Group:
    """The join phase ends, unless the initial delay is extended because new members arrived."""
    if timer.delay is not None:
        delay, remaining = timer.delay
        if g.new_member_added and remaining != 0:
            new_delay = min(st.cfg.initial_rebalance_delay_ms, remaining)
            st.arm(key, new_delay, g.group_id, delay=(new_delay, max(remaining - delay, 0)))
            return replace(g, new_member_added=False)
    return _complete_join(st, g)


def _sync_timeout(st: _Step, g: Group, timer: Timer) -> Group:
    """Members that did not SyncGroup in the timer's generation are removed; the group rebalances."""
    if timer.generation != g.generation or g.state not in (COMPLETING, STABLE) or not g.pending_sync:
        return g
    for mid in sorted(g.pending_sync):
        g = _remove(g, mid)
        st.cancel(_heartbeat_key(g.group_id, mid))
    return _prepare_rebalance(st, g)


def _session_timeout(st: _Step, g: Group, member_id: str) -> Group:
    """A pending id lapses; a member whose heartbeat is not satisfied (parked) is removed."""
    if member_id in g.pending:
        g = replace(g, pending=g.pending - {member_id})
        return _complete_join(st, g) if g.state == PREPARING and _all_joined(g) else g
    m = g.members.get(member_id)
    if m is None or (not m.is_new and (m.join_request is not None or m.sync_request is not None)):
        return g
    return _remove_and_update(st, g, m)


# ---------------------------------------------------------------------------------------------
# Restart: unload, replay the log, load
# ---------------------------------------------------------------------------------------------


def replay(config: ClassicConfig, log: tuple[c.LogEntry, ...], now: int) -> dict[str, Group]:
    """The groups a coordinator rebuilds from a log at time ``now`` (GroupMetadataManager and
    OffsetMetadataManager#replay). An offset of a group no GroupMetadata record made creates a
    simple Empty group whose state timestamp is the time of the load, as a group created by a
    commit gets the time of the commit; a tombstone creates nothing."""
    groups: dict[str, Group] = {}
    for position, entry in enumerate(log):
        if isinstance(entry, c.TxnEnd):
            groups = {gid: _end_txn(g, entry) for gid, g in groups.items()}
            continue
        record = entry.record if isinstance(entry, c.TxnRecord) else entry
        key, value = record.key, record.value
        if isinstance(key, GroupMetadataKey):
            if value is None:
                groups.pop(key.group, None)
            else:
                groups[key.group] = _group_from_record(key.group, cast(GroupMetadataValue, value),
                                                       groups.get(key.group))
        elif isinstance(key, OffsetCommitKey):
            g = groups.get(key.group)
            if g is None and value is not None:
                g = Group(key.group, state_timestamp_ms=now)
            if g is not None:
                groups[key.group] = _apply_offset(g, position, entry)
    return groups


def _group_from_record(group_id: str, value: GroupMetadataValue, old: Group | None) -> Group:
    g = Group(group_id, state=STABLE if value.members else EMPTY,
              state_timestamp_ms=(None if value.current_state_timestamp == -1
                                  else value.current_state_timestamp),
              protocol_type=value.protocol_type or None, protocol_name=value.protocol,
              generation=value.generation, leader=value.leader)
    for mm in value.members:
        rebalance = mm.rebalance_timeout if mm.rebalance_timeout != -1 else mm.session_timeout
        g = _with_member(g, Member(mm.member_id, mm.group_instance_id, mm.client_id, mm.client_host,
                                   mm.session_timeout, rebalance, value.protocol_type,
                                   (Protocol(value.protocol or "", mm.subscription),), mm.assignment))
    g = replace(g, subscribed=_compute_subscribed(g))
    return g if old is None else replace(g, offsets=old.offsets, txn=old.txn)


def _unload(st: _Step) -> None:
    """onUnloaded: parked requests are answered NOT_COORDINATOR; memory and timers go."""
    for g in st.state.groups.values():
        for m in g.members.values():
            if m.join_request is not None:
                st.answer(m.join_request, c.JoinGroupResponse(Errors.NOT_COORDINATOR, member_id=m.member_id))
            if m.sync_request is not None:
                st.answer(m.sync_request, c.SyncGroupResponse(Errors.NOT_COORDINATOR))
    st.set(timers={}, groups={})


def _restart(st: _Step, event: c.Restart | c.CompleteLoad, index: int) -> None:
    """onUnloaded then onLoaded: replay, a session timer for every loaded member, the expiration job."""
    _unload(st)
    groups = st.set(loading=False, groups=replay(st.cfg, st.state.log, st.state.now)).groups
    for gid in sorted(groups):
        for m in groups[gid].members.values():
            _rearm_session(st, groups[gid], m)
    st.arm(EXPIRE_KEY, st.cfg.offsets_retention_check_interval_ms)


def _begin_load(st: _Step, event: c.BeginLoad, index: int) -> None:
    """The partition starts loading: everything in memory goes, requests are refused until it completes."""
    _unload(st)
    st.set(loading=True)


def _complete_load(st: _Step, event: c.CompleteLoad, index: int) -> None:
    """The load completes: the groups are replayed from the log, as after a restart."""
    if st.state.loading:
        _restart(st, event, index)


# ---------------------------------------------------------------------------------------------
# The transition table: (group state, or Loading, or ANY; event type) -> rule
# ---------------------------------------------------------------------------------------------


UNKNOWN = Errors.UNKNOWN_MEMBER_ID
LOAD = Errors.COORDINATOR_LOAD_IN_PROGRESS

TABLE = kernel.Table("classic_group", {
    (DEAD, c.JoinGroup): _join_creates_group,
    (EMPTY, c.JoinGroup): _join_empty,
    (PREPARING, c.JoinGroup): _join_preparing,
    (COMPLETING, c.JoinGroup): _join_completing,
    (STABLE, c.JoinGroup): _join_stable,
    **rows(_answer(c.SyncGroupResponse(UNKNOWN)), c.SyncGroup, states=(DEAD, EMPTY)),
    (PREPARING, c.SyncGroup): _sync_preparing,
    (COMPLETING, c.SyncGroup): _sync_completing,
    (STABLE, c.SyncGroup): _sync_stable,
    **rows(_answer(c.HeartbeatResponse(UNKNOWN)), c.Heartbeat, states=(DEAD, EMPTY)),
    **rows(_heartbeat, c.Heartbeat, states=(PREPARING, COMPLETING, STABLE)),
    (DEAD, c.LeaveGroup): _leave_no_group,
    (ANY, c.LeaveGroup): _leave,
    (DEAD, c.OffsetCommit): _commit_creates_group,
    (ANY, c.OffsetCommit): _commit,
    (DEAD, c.TxnOffsetCommit): _txn_commit_creates_group,
    (ANY, c.TxnOffsetCommit): _txn_commit,
    (ANY, c.TxnMarker): _txn_marker,
    (ANY, c.OffsetFetch): _fetch,
    (DEAD, c.OffsetDelete): _answer(c.OffsetDeleteResponse(Errors.GROUP_ID_NOT_FOUND)),
    (ANY, c.OffsetDelete): _offset_delete,
    (ANY, c.DeleteGroups): _delete_groups,
    (ANY, c.DescribeGroups): _describe_groups,
    (ANY, c.ListGroups): _list_groups,
    # A loading partition (GroupCoordinatorService): a Heartbeat is told to carry on (NONE) rather
    # than rejoin; a JoinGroup's error carries no member id (the runtime builds a bare response).
    (LOADING, c.JoinGroup): _answer(c.JoinGroupResponse(LOAD)),
    (LOADING, c.SyncGroup): _answer(c.SyncGroupResponse(LOAD)),
    (LOADING, c.Heartbeat): _answer(c.HeartbeatResponse(Errors.NONE)),
    (LOADING, c.LeaveGroup): _answer(c.LeaveGroupResponse(LOAD)),
    (LOADING, c.TxnMarker): _answer(c.TxnMarkerResponse(LOAD)),
    (LOADING, c.OffsetFetch): _answer(c.OffsetFetchResponse(LOAD)),
    (LOADING, c.OffsetDelete): _answer(c.OffsetDeleteResponse(LOAD)),
    (LOADING, c.ListGroups): _answer(c.ListGroupsResponse(LOAD)),
    **rows(_loading, c.OffsetCommit, c.TxnOffsetCommit, c.DeleteGroups, c.DescribeGroups, states=(LOADING,)),
    (ANY, c.AdvanceClock): _advance,
    (ANY, c.Restart): _restart,
    (ANY, c.BeginLoad): _begin_load,
    (ANY, c.CompleteLoad): _complete_load,
})


# ---------------------------------------------------------------------------------------------
# The observable view
# ---------------------------------------------------------------------------------------------


def _offset_view(tp: TopicPartition, o: Offset) -> c.OffsetView:
    return c.OffsetView(tp[0], tp[1], o.offset, o.leader_epoch, o.metadata, o.commit_timestamp_ms,
                        o.expire_timestamp_ms)


def _group_view(s: State, g: Group) -> c.GroupView:
    members = tuple(c.MemberView(m.member_id, m.instance_id, m.client_id, m.client_host,
                                 m.session_timeout_ms, m.rebalance_timeout_ms, m.protocols, m.assignment,
                                 m.join_request is not None, m.sync_request is not None, m.is_new)
                    for m in g.members.values())
    pending = tuple(c.PendingOffsetView(producer, _offset_view(tp, o))
                    for producer in sorted(g.txn) for tp, o in sorted(g.txn[producer].items()))
    timers = tuple(sorted((key, t.deadline) for key, t in s.timers.items() if t.group_id == g.group_id))
    return c.GroupView(
        group_id=g.group_id, state=g.state, protocol_type=g.protocol_type, protocol_name=g.protocol_name,
        generation_id=g.generation, leader_id=g.leader, state_timestamp_ms=g.state_timestamp_ms,
        members=members, pending_members=tuple(sorted(g.pending)), pending_sync=tuple(sorted(g.pending_sync)),
        offsets=tuple(_offset_view(tp, o) for tp, o in sorted(g.offsets.items())),
        pending_offsets=pending, timers=timers)


def view(state: State) -> c.CoordinatorView:
    """What an operator (DescribeGroups, OffsetFetch, the timer wheel) could see of every group."""
    groups = tuple(_group_view(state, state.groups[g]) for g in sorted(state.groups))
    return c.CoordinatorView(state.now, groups)

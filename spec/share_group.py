"""The share group coordinator, as rules: ShareGroupHeartbeat and everything it writes.

Theory of operation
-------------------
The coordinator is a frozen :class:`State` and one ``step`` over events (heartbeats, metadata
images, persister answers, clock advances, group deletions and configs, failovers). ``step``
checks the event at the edge (``check_event``), looks its rule up in :data:`TABLE` and runs it
on a ``kernel.Step``; a rule changes the state only through ``Step.set`` and the frozen-mapping
helpers ``put``/``drop``, so the state handed in is never touched. Each rule verifies first
(the first failing check is Kafka's error answer and changes nothing), then changes. The fact
sheet (share_group_coordinator.md, shared reference folder) gives each rule's upstream source;
its section numbers are quoted as §n.

* Every durable change is a record of ``__consumer_offsets`` (types 10-15), appended to
  ``log``; a ``Restart`` forgets everything and replays the log, so the records alone must
  rebuild the groups. What no record holds (session timers, the metadata refresh deadline,
  pending initialize requests) is rebuilt otherwise.
* A member heartbeats with its epoch: 0 to join (or rejoin: a known member's epoch 0 is
  accepted whatever its epochs, as in Kafka 4.2.1 since KAFKA-19233), its current (or previous)
  epoch to stay, -1 to leave. Validation follows Kafka's order (§1.2).
* The group epoch rises when a subscription or the subscribed topics' metadata hash changes,
  when newly initialized partitions are waiting to be assigned (§3.4), and when a member leaves
  or times out. A heartbeat that finds the group epoch above the target's computes a new target
  for everyone with the SimpleAssignor (``spec.simple_assignor``), restricted to partitions whose
  share state is initialized (§3.3).
* A member takes its target at once (no revocation, §1.5): its epoch jumps to the target epoch
  and it gets the target partitions of the topics it subscribes to.
* After the records, the heartbeat asks the share-state persister to initialize subscribed
  partitions not yet covered (§3.2); a :class:`PersisterAnswer` event brings the outcome back.

The coordinator has no machine state of its own (a group is Empty or Stable by its members), so
every row of the table holds in any state. Canonical choices where Kafka leaves orders to Java
hash maps (docs/divergences.md): members in the order they joined; record lists of topics
sorted by topic id, partitions ascending. The records are spelled by the vocabulary.

Out of scope for now: partition ownership and loading (every group is hosted here), group types
other than share (no GROUP_ID_NOT_FOUND for a consumer group's id), the persister round trip of
DeleteGroups (deleteState is taken to succeed at once), DeleteShareGroupOffsets and
AlterShareGroupOffsets, authorization.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import cast

import icontract

from groupspec.spec import kernel
from groupspec.spec.kernel import drop, put
from groupspec.spec.simple_assignor import assign
from groupspec.types import AssignorInput, MemberSpec
from groupspec.types import records as r
from groupspec.types import share_group as sg
from groupspec.types import wire_bounds as wire
from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord
from groupspec.types.records.metadata_hash import group_hash, topic_hash
from groupspec.types.share_group import JOIN_EPOCH, LEAVE_EPOCH

INT_MAX = 2**31 - 1
UNKNOWN_TOPIC_NAME = "<UNKNOWN>"


# ---------------------------------------------------------------------------------------------
# State (frozen: a rule builds a new value with dataclasses.replace, put and drop)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    member_id: str
    epoch: int = 0
    previous_epoch: int = -1
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscription: frozenset[str] = frozenset()
    assigned: sg.Assignment = field(default_factory=dict)


@dataclass(frozen=True)
class InitEntry:
    name: str
    partitions: frozenset[int]
    #: When it was requested (or replayed); only initializing entries use it (§3.2).
    timestamp: int


@dataclass(frozen=True)
class StateMetadata:
    """ShareGroupStatePartitionMetadataInfo (§3.1), keyed by topic id."""

    initializing: Mapping[str, InitEntry] = field(default_factory=dict)
    initialized: Mapping[str, InitEntry] = field(default_factory=dict)
    #: topic id -> topic name
    deleting: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Group:
    group_id: str
    epoch: int = 0
    metadata_hash: int = 0
    assignment_epoch: int = 0
    #: In join order.
    members: Mapping[str, Member] = field(default_factory=dict)
    target: Mapping[str, sg.Assignment] = field(default_factory=dict)
    #: None until the first ShareGroupStatePartitionMetadata (DeleteGroups writes one only then).
    state_metadata: StateMetadata | None = None
    #: The subscribed topics' metadata is refreshed when the clock reaches this deadline (§1.3
    #: step 4). Kafka pairs it with the group epoch to refresh after a timeline revert lowers the
    #: epoch; the model never reverts (group epochs only rise), so the deadline alone is kept.
    refresh: int = 0

    @property
    def subscribed_names(self) -> frozenset[str]:
        return frozenset(t for m in self.members.values() for t in m.subscription)


@dataclass(frozen=True)
class Session:
    deadline: int
    #: Arming order: of two sessions due at once, the one armed first expires first.
    seq: int


@dataclass(frozen=True)
class State:
    config: sg.ShareGroupConfig
    now: int
    topics: Mapping[str, sg.TopicMetadata] = field(default_factory=dict)
    groups: Mapping[str, Group] = field(default_factory=dict)
    #: (group id, member id) -> its session timer.
    sessions: Mapping[tuple[str, str], Session] = field(default_factory=dict)
    seq: int = 0
    #: request index -> (group id, topic id -> partitions) of unanswered initialize requests.
    pending: Mapping[int, tuple[str, sg.Assignment]] = field(default_factory=dict)
    #: group id -> (session timeout, heartbeat interval) overrides; broker metadata, not records.
    group_configs: Mapping[str, tuple[int | None, int | None]] = field(default_factory=dict)
    log: tuple[CoordinatorRecord, ...] = ()

    @property
    def topic_names(self) -> dict[str, str]:
        """topic id -> name, of the topics in the image."""
        return {t.topic_id: t.name for t in self.topics.values()}


class _Step(kernel.Step[State]):
    """The kernel's step, plus the InitializeShareGroupState requests sent after the records."""

    def __init__(self, state: State) -> None:
        super().__init__(state)
        self.initialize: list[sg.InitializeRequest] = []


# ---------------------------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------------------------


def _group_ok(s: State, g: Group) -> bool:
    names = s.topic_names
    return g.assignment_epoch <= g.epoch and len(g.members) <= s.config.max_size and all(
        m.epoch <= g.assignment_epoch and (g.group_id, m.member_id) in s.sessions
        and all(t not in names or names[t] in m.subscription for t in m.assigned)
        for m in g.members.values())


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
def initial_state(config: sg.ShareGroupConfig = sg.ShareGroupConfig(),  # noqa: B008
                  topics: tuple[sg.TopicMetadata, ...] = (), now_ms: int = 0) -> State:
    """A coordinator hosting every group, with this metadata image, and no groups."""
    sg.check_config(config)
    topics = sg.check_topics(topics)
    wire.integer(now_ms, "now_ms", "int64")
    return State(config=config, now=now_ms, topics={t.name: t for t in topics})


@icontract.require(lambda state: invariants_hold(state))
@icontract.ensure(lambda result: invariants_hold(result[0]))
@icontract.ensure(lambda state, result: _epochs_kept(state, result[0]))
@icontract.ensure(lambda state, result: result[0].now >= state.now)
def step(state: State, event: sg.ShareGroupEvent, index: int) -> tuple[State, sg.Output]:
    """Apply one event (request ``index``, or an image, a persister answer, a clock advance).

    An event a broker would refuse (:func:`check_event`) raises its InputError before anything
    happens; what the step goes on with is the checked event (topic ids in one spelling).
    """
    event = sg.check_event(event, index)
    st = _Step(state)
    TABLE.rule(kernel.ANY, event)(st, event, index)
    records = tuple(cast(list[CoordinatorRecord], st.records))
    st.set(log=st.state.log + records)
    answers = tuple(sg.Answer(i, response) for i, response in st.answers)
    return st.state, sg.Output(answers, records, tuple(st.initialize))


def _put_group(st: _Step, g: Group) -> Group:
    st.set(groups=put(st.state.groups, g.group_id, g))
    return g


# ---------------------------------------------------------------------------------------------
# Heartbeat (§1.2-§1.6)
# ---------------------------------------------------------------------------------------------


def heartbeat(st: _Step, req: sg.ShareGroupHeartbeat, index: int) -> None:
    """§1.2-§1.6: verify in Kafka's order (the first failure is the answer), then a leave, or a
    join or heartbeat."""
    error = _refusal(st.state, req)
    if error is not None:
        st.answer(index, sg.ShareGroupHeartbeatResponse(error))
    elif req.member_epoch == LEAVE_EPOCH:
        _remove_member(st, req.group_id, req.member_id)
        st.answer(index, sg.ShareGroupHeartbeatResponse(Errors.NONE, req.member_id, LEAVE_EPOCH, 0, None))
    else:
        _join_or_stay(st, req, index)


def _join_or_stay(st: _Step, req: sg.ShareGroupHeartbeat, index: int) -> None:
    """Steps 2-9 of §1.3; the group joins the state only now that the heartbeat is accepted."""
    g = st.state.groups.get(req.group_id) or _new_group(st.state.config, req.group_id)
    g = _describe_member(st, g, req)
    if g.epoch > g.assignment_epoch:
        g = _compute_target(st, g)
    held = g.members[req.member_id].assigned
    member = _put_group(st, _take_target(st, g, req.member_id)).members[req.member_id]
    _arm(st, g.group_id, member.member_id)
    _maybe_initialize(st, g.group_id, index)
    send = (req.member_epoch == JOIN_EPOCH or req.subscribed_topic_names is not None
            or member.assigned != held)
    assignment = sg.topic_partitions(member.assigned) if send else None
    st.answer(index, sg.ShareGroupHeartbeatResponse(Errors.NONE, member.member_id, member.epoch,
                                                    _interval(st.state, g.group_id), assignment))


def _refusal(s: State, req: sg.ShareGroupHeartbeat) -> Errors | None:
    """Verify the request (§1.2 rows 5-9), then the group, its size, the member and its epoch;
    the first check that fails is the answer. Epoch 0 from a known member is a rejoin and is
    never fenced (Kafka 4.2.1, KAFKA-19233): it goes on as a heartbeat that re-sends the
    assignment; the epoch check (§1.2 rows 16-17) is for the other epochs only."""
    if (not req.member_id.strip() or not req.group_id.strip()
            or (req.rack_id is not None and not req.rack_id.strip())
            or (req.member_epoch == JOIN_EPOCH and not req.subscribed_topic_names)
            or req.member_epoch < LEAVE_EPOCH):
        return Errors.INVALID_REQUEST
    g = s.groups.get(req.group_id)
    members = g.members if g is not None else {}
    old = members.get(req.member_id)
    if g is None and req.member_epoch != JOIN_EPOCH:
        return Errors.GROUP_ID_NOT_FOUND
    if old is None and req.member_epoch != LEAVE_EPOCH and len(members) >= s.config.max_size:
        return Errors.GROUP_MAX_SIZE_REACHED  # before the lookup: even an unknown epoch gets it
    if old is None and req.member_epoch != JOIN_EPOCH:
        return Errors.UNKNOWN_MEMBER_ID
    if old is None or req.member_epoch in (JOIN_EPOCH, LEAVE_EPOCH):
        return None  # 4.2.1 (KAFKA-19233): epoch 0 is a (re)join, whatever the member's epochs
    epoch = req.member_epoch
    if epoch > old.epoch or (epoch < old.epoch and epoch != old.previous_epoch):
        return Errors.FENCED_MEMBER_EPOCH
    return None


def _describe_member(st: _Step, g: Group, req: sg.ShareGroupHeartbeat) -> Group:
    """Steps 2-4: the member as this request describes it (a record if anything differs), then
    the group epoch, which rises if the subscription changed, if initialized partitions wait to
    be assigned (§3.4), or if the subscribed topics' metadata hash changed. The hash is checked
    when the epoch rises anyway, when the refresh deadline passed, or after a metadata change."""
    old = g.members.get(req.member_id)
    current = old or Member(req.member_id)
    names = req.subscribed_topic_names
    new = replace(current, client_id=req.client_id, client_host=req.client_host,
                  rack_id=current.rack_id if req.rack_id is None else req.rack_id,
                  subscription=current.subscription if names is None else frozenset(names))
    bump = new.subscription != current.subscription or _initialized_assignment_pending(g)
    if new != old:
        st.write(sg.member_record(g.group_id, new.member_id, new.rack_id, new.client_id,
                                  new.client_host, new.subscription))
    g = replace(g, members=put(g.members, new.member_id, new))
    s = st.state
    if not (bump or s.now >= g.refresh):
        return g
    new_hash = _metadata_hash(s, g.subscribed_names)
    if bump or new_hash != g.metadata_hash:
        g = replace(g, epoch=g.epoch + 1, metadata_hash=new_hash)
        st.write(sg.epoch_record(g.group_id, g.epoch, g.metadata_hash))
    return replace(g, refresh=s.now + INT_MAX)


def _initialized_assignment_pending(g: Group) -> bool:
    """§3.4: initialized partitions of a subscribed topic that the target does not hold."""
    meta = g.state_metadata or StateMetadata()
    held: dict[str, set[int]] = {}
    for target in g.target.values():
        for topic_id, parts in target.items():
            held.setdefault(topic_id, set()).update(parts)
    return bool(g.members) and any(entry.name in g.subscribed_names and held.get(t) != set(entry.partitions)
                                   for t, entry in meta.initialized.items())


def _metadata_hash(s: State, names: frozenset[str]) -> int:
    hashes = {n: topic_hash(t.topic_id, t.name, t.partitions, t.racks) for n in names
              if (t := s.topics.get(n)) is not None}
    return group_hash(hashes)


@icontract.require(lambda g: g.epoch > g.assignment_epoch)
def _compute_target(st: _Step, g: Group) -> Group:
    """Step 5 (§1.3, §3.3): TargetAssignmentBuilder with the SimpleAssignor over initialized
    partitions; a record for each member whose target changed, and for a member with none yet
    even if it is empty (null is not empty), then the target epoch."""
    topics, names = st.state.topics.values(), st.state.topic_names
    initialized = (g.state_metadata or StateMetadata()).initialized
    members = tuple(MemberSpec(m.member_id, tuple(sorted(m.subscription)),
                               {names[t]: ps for t, ps in g.target.get(m.member_id, {}).items()
                                if t in names}) for m in g.members.values())
    result = assign(AssignorInput(members, {t.name: t.partitions for t in topics},
                                  {t.name: t.topic_id for t in topics},
                                  {names[t]: e.partitions for t, e in initialized.items() if t in names}))
    ids = {t.name: t.topic_id for t in topics}
    target = g.target
    for member_id in g.members:
        new = {ids[name]: parts for name, parts in result[member_id].items() if parts}
        if member_id not in target or new != target[member_id]:
            target = put(target, member_id, new)
            st.write(sg.target_member_record(g.group_id, member_id, new))
    st.write(sg.target_epoch_record(g.group_id, g.epoch))
    return replace(g, target=target, assignment_epoch=g.epoch)


def _take_target(st: _Step, g: Group, member_id: str) -> Group:
    """Step 6 (§1.5): a member behind the target epoch takes it, with the target's partitions
    of the topics it subscribes to; a record if that changed anything."""
    m = g.members[member_id]
    if m.epoch == g.assignment_epoch:
        return g
    names = st.state.topic_names
    target = {t: ps for t, ps in g.target.get(member_id, {}).items()
              if ps and t in names and names[t] in m.subscription}
    new = replace(m, epoch=g.assignment_epoch, previous_epoch=m.epoch, assigned=target)
    st.write(sg.current_record(g.group_id, member_id, new.epoch, new.previous_epoch, new.assigned))
    return replace(g, members=put(g.members, member_id, new))


@icontract.require(lambda st, group_id, member_id: member_id in st.state.groups[group_id].members)
def _arm(st: _Step, group_id: str, member_id: str) -> None:
    """Step 7: the member's session timer, from now, with the group's timeout."""
    s = st.set(seq=st.state.seq + 1)
    timeout = s.group_configs.get(group_id, (None, None))[0] or s.config.session_timeout_ms
    st.set(sessions=put(s.sessions, (group_id, member_id), Session(s.now + timeout, s.seq)))


def _interval(s: State, group_id: str) -> int:
    return s.group_configs.get(group_id, (None, None))[1] or s.config.heartbeat_interval_ms


def _maybe_initialize(st: _Step, group_id: str, index: int) -> None:
    """Step 9 (§3.2): ask the persister for subscribed partitions neither initialized nor asked
    for within the retry interval; the request stays pending until answered (or a failover)."""
    s = st.state
    g = s.groups[group_id]
    meta = g.state_metadata or StateMetadata()
    wanted = {topic.topic_id: (name, missing) for name in sorted(g.subscribed_names)
              if (topic := s.topics.get(name)) is not None and (missing := _uncovered(s, meta, topic))}
    if not wanted:
        return
    initializing = meta.initializing
    for topic_id, (name, parts) in wanted.items():
        old = initializing.get(topic_id)
        initializing = put(initializing, topic_id,
                           InitEntry(name, parts | (old.partitions if old else frozenset()), s.now))
    g = _write_state(st, g, replace(meta, initializing=initializing, deleting=drop(meta.deleting, *wanted)))
    request = {topic_id: parts for topic_id, (_, parts) in wanted.items()}
    st.set(pending=put(st.state.pending, index, (group_id, request)))
    st.initialize.append(sg.InitializeRequest(index, group_id, g.epoch, sg.topic_partitions(request)))


def _uncovered(s: State, meta: StateMetadata, topic: sg.TopicMetadata) -> frozenset[int]:
    """The topic's partitions neither initialized nor being initialized recently."""
    done, entry = meta.initialized.get(topic.topic_id), meta.initializing.get(topic.topic_id)
    covered = set(done.partitions) if done else set()
    if entry is not None and s.now - entry.timestamp < s.config.retry_interval_ms:
        covered |= entry.partitions
    if len(covered) >= topic.partitions:
        return frozenset()
    return frozenset(range(topic.partitions)) - covered


def _write_state(st: _Step, g: Group, meta: StateMetadata) -> Group:
    """Write the group's share-state bookkeeping. Kafka replays the record it writes, and replay
    stamps every entry with the current time (§2.3), so any such write restarts the retry clock
    of every topic still initializing, not only of the ones it changed."""
    meta = replace(meta, initializing={t: replace(e, timestamp=st.state.now)
                                       for t, e in meta.initializing.items()})

    def listed(entries: Mapping[str, InitEntry]) -> dict[str, tuple[str, frozenset[int]]]:
        return {t: (e.name, e.partitions) for t, e in entries.items()}

    st.write(sg.state_record(g.group_id, listed(meta.initializing), listed(meta.initialized), meta.deleting))
    return _put_group(st, replace(g, state_metadata=meta))


@icontract.require(lambda st, group_id, member_id: member_id in st.state.groups[group_id].members)
def _remove_member(st: _Step, group_id: str, member_id: str) -> None:
    """shareGroupFenceMember, for a leave or an expiry (§1.6): three tombstones, then the group
    epoch + 1 with the hash of what the others subscribe to; the session timer goes."""
    for key in (r.ShareGroupCurrentMemberAssignmentKey, r.ShareGroupTargetAssignmentMemberKey,
                r.ShareGroupMemberMetadataKey):
        st.write(sg.tombstone(key(group_id, member_id)))
    g = st.state.groups[group_id]
    g = replace(g, members=drop(g.members, member_id), target=drop(g.target, member_id))
    new_hash = _metadata_hash(st.state, g.subscribed_names)
    g = _put_group(st, replace(g, epoch=g.epoch + 1, metadata_hash=new_hash))
    st.write(sg.epoch_record(group_id, g.epoch, g.metadata_hash))
    st.set(sessions=drop(st.state.sessions, (group_id, member_id)))


# ---------------------------------------------------------------------------------------------
# The persister's answers, metadata, deletion, configs (§1.8, §1.9, §3.5, §5)
# ---------------------------------------------------------------------------------------------


def persister_answer(st: _Step, event: sg.PersisterAnswer, index: int) -> None:
    """The answered partitions leave initializing and, on success, join initialized (a topic
    deleted since the request under the name ``<UNKNOWN>``). A refusal only takes partitions
    out of initializing: with nothing initializing (a deleted or recreated topic already left
    it, or another answer emptied it) it writes nothing."""
    s = st.state
    pending = s.pending.get(event.request)
    if pending is None:
        return  # answered already, or issued before a failover
    st.set(pending=drop(s.pending, event.request))
    group_id, parts = pending
    g = s.groups.get(group_id)
    if g is None:
        return
    if event.error != Errors.NONE and (g.state_metadata is None or not g.state_metadata.initializing):
        return  # uninitializeShareGroupState: nothing to take out, no record
    meta = g.state_metadata or StateMetadata()
    initialized, initializing = meta.initialized, meta.initializing
    for topic_id, done in parts.items():
        if event.error == Errors.NONE:
            old = initialized.get(topic_id)
            initialized = put(initialized, topic_id, InitEntry(
                s.topic_names.get(topic_id, UNKNOWN_TOPIC_NAME),
                done | (old.partitions if old else frozenset()), old.timestamp if old else s.now))
        entry = initializing.get(topic_id)
        if entry is not None and entry.partitions - done:
            initializing = put(initializing, topic_id, replace(entry, partitions=entry.partitions - done))
        elif entry is not None:
            initializing = drop(initializing, topic_id)
    _write_state(st, g, replace(meta, initializing=initializing, initialized=initialized))


def update_metadata(st: _Step, event: sg.UpdateMetadata, index: int) -> None:
    """A new image: groups subscribed to a changed topic re-check their hash on the next
    heartbeat; a deleted topic leaves every group's bookkeeping."""
    old = st.state.topics
    sg.check_no_rename(old.values(), event.topics)
    s = st.set(topics={t.name: t for t in event.topics})
    changed = {name for name in {*old, *s.topics} if old.get(name) != s.topics.get(name)}
    deleted = {t.topic_id for t in old.values()} - {t.topic_id for t in s.topics.values()}
    for group_id in sorted(s.groups):
        g = st.state.groups[group_id]
        if g.subscribed_names & changed:
            g = _put_group(st, replace(g, refresh=0))
        meta = g.state_metadata
        if meta is not None and (gone := {*meta.initializing, *meta.initialized, *meta.deleting} & deleted):
            _write_state(st, g, StateMetadata(drop(meta.initializing, *gone), drop(meta.initialized, *gone),
                                              drop(meta.deleting, *gone)))


def delete_groups(st: _Step, req: sg.DeleteGroups, index: int) -> None:
    """§1.9: each group answered on its own; only an empty one goes (its share state to deleting,
    then three tombstones)."""
    results = tuple(sg.GroupResult(gid, _delete_group(st, gid)) for gid in req.group_ids)
    st.answer(index, sg.DeleteGroupsResponse(results))


def _delete_group(st: _Step, group_id: str) -> Errors:
    """§1.9: only an empty group goes; its share state moves to deleting, then three tombstones."""
    g = st.state.groups.get(group_id)
    if g is None:
        return Errors.GROUP_ID_NOT_FOUND
    if g.members:
        return Errors.NON_EMPTY_GROUP
    meta = g.state_metadata
    if meta is not None:
        named = {t: e.name for t, e in {**meta.initializing, **meta.initialized}.items()}
        _write_state(st, g, StateMetadata(deleting={**meta.deleting, **named}))
    for key in (r.ShareGroupTargetAssignmentMetadataKey, r.ShareGroupStatePartitionMetadataKey,
                r.ShareGroupMetadataKey):
        st.write(sg.tombstone(key(group_id)))
    st.set(groups=drop(st.state.groups, group_id))
    return Errors.NONE


def set_group_config(st: _Step, req: sg.SetGroupConfig, index: int) -> None:
    """§5: overrides within the broker's bounds, the session above the interval; None unsets."""
    c = st.state.config
    session = c.session_timeout_ms if req.session_timeout_ms is None else req.session_timeout_ms
    interval = c.heartbeat_interval_ms if req.heartbeat_interval_ms is None else req.heartbeat_interval_ms
    if (not c.min_session_timeout_ms <= session <= c.max_session_timeout_ms
            or not c.min_heartbeat_interval_ms <= interval <= c.max_heartbeat_interval_ms
            or session <= interval):
        st.answer(index, sg.SetGroupConfigResponse(Errors.INVALID_CONFIG))
        return
    overrides = (req.session_timeout_ms, req.heartbeat_interval_ms)
    configs = st.state.group_configs
    st.set(group_configs=drop(configs, req.group_id) if overrides == (None, None)
           else put(configs, req.group_id, overrides))
    st.answer(index, sg.SetGroupConfigResponse(Errors.NONE))


# ---------------------------------------------------------------------------------------------
# Time and failover
# ---------------------------------------------------------------------------------------------


def advance_clock(st: _Step, event: sg.AdvanceClock, index: int) -> None:
    """Sessions due by the new time expire one by one, earliest (then first armed) first."""
    s = st.set(now=max(st.state.now, event.to_ms))
    while due := [(t.deadline, t.seq, key) for key, t in s.sessions.items() if t.deadline <= s.now]:
        _, _, (group_id, member_id) = min(due)
        _remove_member(st, group_id, member_id)
        s = st.state


def restart(st: _Step, event: sg.Restart, index: int) -> None:
    """§1.7: what no record holds is forgotten; the groups are replayed from the log and every
    member gets a full session timeout."""
    s = st.set(pending={}, sessions={}, groups=replay(st.state.log, st.state.now, st.state.config))
    for group_id in sorted(s.groups):
        for member_id in s.groups[group_id].members:
            _arm(st, group_id, member_id)


def _new_group(config: sg.ShareGroupConfig, group_id: str) -> Group:
    """A group no record describes yet, at the release's first epoch (0, or 1 from Kafka 4.3)."""
    first = config.initial_group_epoch
    return Group(group_id, epoch=first, assignment_epoch=first)


def replay(records: Iterable[CoordinatorRecord], now: int,
           config: sg.ShareGroupConfig = sg.ShareGroupConfig()) -> dict[str, Group]:  # noqa: B008
    """The groups the records describe (§2.3); initializing entries are stamped ``now``."""
    groups: dict[str, Group] = {}
    for record in records:
        group_id: str = record.key.group_id  # type: ignore[attr-defined]
        g = groups.get(group_id)
        if record.value is not None:
            groups[group_id] = _replayed(g or _new_group(config, group_id), record.key, record.value, now)
        elif g is not None and isinstance(record.key, r.ShareGroupMetadataKey):
            del groups[group_id]
        elif g is not None:
            groups[group_id] = _forgotten(g, record.key)
    return groups


def _replayed(g: Group, key: object, value: object, now: int) -> Group:
    member_id: str = getattr(key, "member_id", "")
    m = g.members.get(member_id) or Member(member_id)
    match value:
        case r.ShareGroupMemberMetadataValue():
            m = replace(m, rack_id=value.rack_id, client_id=value.client_id, client_host=value.client_host,
                        subscription=frozenset(value.subscribed_topic_names))
            return replace(g, members=put(g.members, member_id, m))
        case r.ShareGroupMetadataValue():
            return replace(g, epoch=value.epoch, metadata_hash=value.metadata_hash)
        case r.ShareGroupTargetAssignmentMemberValue():
            target = {str(tp.topic_id): frozenset(tp.partitions) for tp in value.topic_partitions}
            return replace(g, target=put(g.target, member_id, target))
        case r.ShareGroupTargetAssignmentMetadataValue():
            return replace(g, assignment_epoch=value.assignment_epoch)
        case r.ShareGroupCurrentMemberAssignmentValue():
            m = replace(m, epoch=value.member_epoch, previous_epoch=value.previous_member_epoch, assigned={
                str(tp.topic_id): frozenset(tp.partitions) for tp in value.assigned_partitions})
            return replace(g, members=put(g.members, member_id, m))
        case r.ShareGroupStatePartitionMetadataValue():
            return replace(g, state_metadata=StateMetadata(
                _entries(value.initializing_topics, now), _entries(value.initialized_topics, now),
                {str(t.topic_id): t.topic_name for t in value.deleting_topics}))
    return g


def _entries(topics: Iterable[r.ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo],
             now: int) -> dict[str, InitEntry]:
    return {str(t.topic_id): InitEntry(t.topic_name, frozenset(t.partitions), now) for t in topics}


def _forgotten(g: Group, key: object) -> Group:
    """A tombstone (the group's own, ShareGroupMetadata, removes the group: see :func:`replay`)."""
    match key:
        case r.ShareGroupMemberMetadataKey(member_id=member_id):
            return replace(g, members=drop(g.members, member_id))
        case r.ShareGroupTargetAssignmentMemberKey(member_id=member_id):
            return replace(g, target=drop(g.target, member_id))
        case r.ShareGroupTargetAssignmentMetadataKey():
            return replace(g, assignment_epoch=-1)
        case r.ShareGroupCurrentMemberAssignmentKey(member_id=member_id) if member_id in g.members:
            m = replace(g.members[member_id], epoch=-1, previous_epoch=-1, assigned={})
            return replace(g, members=put(g.members, member_id, m))
        case r.ShareGroupStatePartitionMetadataKey():
            return replace(g, state_metadata=None)
    return g


# ---------------------------------------------------------------------------------------------
# The transition table: every event type's rule (the same in every state, see the docstring)
# ---------------------------------------------------------------------------------------------

TABLE = kernel.Table("share_group", {
    **kernel.rows(heartbeat, sg.ShareGroupHeartbeat),
    **kernel.rows(delete_groups, sg.DeleteGroups),
    **kernel.rows(set_group_config, sg.SetGroupConfig),
    **kernel.rows(update_metadata, sg.UpdateMetadata),
    **kernel.rows(persister_answer, sg.PersisterAnswer),
    **kernel.rows(advance_clock, sg.AdvanceClock),
    **kernel.rows(restart, sg.Restart),
})


# ---------------------------------------------------------------------------------------------
# The observable view
# ---------------------------------------------------------------------------------------------


def view(s: State) -> sg.ShareCoordinatorView:
    groups = tuple(_group_view(s, s.groups[gid]) for gid in sorted(s.groups))
    return sg.ShareCoordinatorView(s.now, groups, tuple(sorted(s.pending)))


def _group_view(s: State, g: Group) -> sg.GroupView:
    members = tuple(
        sg.MemberView(m.member_id, m.epoch, m.previous_epoch, m.rack_id, m.client_id, m.client_host,
                      tuple(sorted(m.subscription)), sg.topic_partitions(m.assigned),
                      sg.topic_partitions(g.target.get(m.member_id, {})),
                      session.deadline if (session := s.sessions.get((g.group_id, m.member_id))) else None)
        for m in g.members.values())
    meta = g.state_metadata or StateMetadata()
    overrides = s.group_configs.get(g.group_id, (None, None))
    return sg.GroupView(g.group_id, "Stable" if g.members else "Empty", g.epoch, g.assignment_epoch,
                        g.metadata_hash, members, _init_view(meta.initializing, True),
                        _init_view(meta.initialized, False), tuple(sorted(meta.deleting)), *overrides)


def _init_view(entries: Mapping[str, InitEntry], stamped: bool) -> tuple[sg.InitTopicView, ...]:
    return tuple(sg.InitTopicView(t, e.name, tuple(sorted(e.partitions)), e.timestamp if stamped else -1)
                 for t, e in sorted(entries.items()))

"""The classic half of Kafka's ``GroupMetadataManager``: JoinGroup, SyncGroup, Heartbeat, LeaveGroup.

Like Kafka's, these handlers change the in-memory groups themselves and write GroupMetadata
records for the log (their writes do not replay); a load rebuilds the groups from those records
(:meth:`GroupMetadataManager.replay`). Parked requests are request indices on the member; a
handler or a timer that completes them appends ``Answer``s to the operation's result.

Timers use Kafka's names (``heartbeat-<group>-<member>``, ``join-<group>``, ``sync-<group>``) on
the shard's context. Each callback looks its group up again when it fires, so a timer that
outlives its member or group does nothing, or acts on whatever now has that id, as Kafka's do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from groupspec.impl.classic_group.group import (
    COMPLETING_REBALANCE,
    CONSUMER_PROTOCOL_TYPE,
    DEAD,
    EMPTY,
    PREPARING_REBALANCE,
    STABLE,
    ClassicGroup,
    ClassicGroupMember,
)
from groupspec.impl.codec.consumer_protocol import decode_subscription
from groupspec.impl.codec.errors import CodecError
from groupspec.impl.runtime.runtime import ShardContext, WriteResult
from groupspec.types.classic_group import (
    NEW_MEMBER_JOIN_TIMEOUT_MS,
    UNKNOWN_MEMBER_ID,
    Answer,
    ClassicConfig,
    DescribedGroup,
    DescribedMember,
    Heartbeat,
    HeartbeatResponse,
    JoinGroup,
    JoinGroupMember,
    JoinGroupResponse,
    LeaveGroup,
    LeaveGroupResponse,
    MemberLeaveResult,
    Protocol,
    SyncGroup,
    SyncGroupResponse,
)
from groupspec.types.errors import Errors
from groupspec.types.records import GroupMetadataKey, GroupMetadataValue
from groupspec.types.records.registry import CoordinatorRecord


def heartbeat_key(group_id: str, member_id: str) -> str:
    return f"heartbeat-{group_id}-{member_id}"


def join_key(group_id: str) -> str:
    return f"join-{group_id}"


def sync_key(group_id: str) -> str:
    return f"sync-{group_id}"


def subscribed_topics(group: ClassicGroup) -> frozenset[str] | None:
    """ClassicGroup#computeSubscribedTopics: None unless every consumer subscription parses."""
    if group.protocol_type != CONSUMER_PROTOCOL_TYPE:
        return None
    if not group.members:
        return frozenset()
    if group.protocol_name is None:
        return None
    topics: set[str] = set()
    for member in group.members.values():
        try:
            subscription, _ = decode_subscription(member.metadata(group.protocol_name))
        except CodecError:
            return None
        topics.update(subscription.topics)
    return frozenset(topics)


def _inconsistent(asked: str | None, held: str | None) -> bool:
    """GroupMetadataManager#isProtocolInconsistent: only where both name one."""
    return asked is not None and held is not None and asked != held


class GroupMetadataManager:
    def __init__(self, config: ClassicConfig, context: ShardContext) -> None:
        self.config = config
        self.context = context
        self.groups: dict[str, ClassicGroup] = {}
        #: Groups made in memory by a write that logged nothing (a commit outside any generation
        #: refused for every partition), with the log end when they were made. Kafka creates them
        #: in its timeline map after the partition's last snapshot, and reads are made at that
        #: snapshot: DescribeGroups and ListGroups do not see them until the partition writes again.
        self.unwritten: dict[str, int] = {}
        #: Which group each armed timer key belongs to (for the observable view).
        self.timer_groups: dict[str, str] = {}

    # -- lookups --------------------------------------------------------------------------------

    def group(self, group_id: str) -> ClassicGroup | None:
        return self.groups.get(group_id)

    def get_or_create(self, group_id: str) -> ClassicGroup:
        group = self.groups.get(group_id)
        if group is None:
            group = self.groups[group_id] = ClassicGroup(group_id, self.context.now())
        return group

    def create_unwritten(self, group_id: str) -> ClassicGroup:
        """A simple group an offset commit makes; reads see it once the partition writes."""
        self.unwritten[group_id] = self.context.log_end()
        return self.get_or_create(group_id)

    def visible(self, group_id: str) -> ClassicGroup | None:
        """The group as a read sees it: not one made since the partition's last record."""
        group = self.groups.get(group_id)
        made_at = self.unwritten.get(group_id)
        if made_at is not None and self.context.log_end() > made_at:
            del self.unwritten[group_id]
            made_at = None
        return group if made_at is None else None

    # -- timers ---------------------------------------------------------------------------------

    def _schedule(self, key: str, delay_ms: int, group_id: str, op: Callable[[WriteResult], None]) -> None:
        def run() -> WriteResult:
            self.timer_groups.pop(key, None)
            out = WriteResult(replay=False)
            op(out)
            return out

        self.timer_groups[key] = group_id
        self.context.schedule(key, delay_ms, run)

    def _cancel(self, key: str) -> None:
        self.timer_groups.pop(key, None)
        self.context.cancel(key)

    def schedule_session(self, group: ClassicGroup, member_id: str, delay_ms: int) -> None:
        group_id = group.group_id
        self._schedule(heartbeat_key(group_id, member_id), delay_ms, group_id,
                       lambda out: self._on_heartbeat_expired(out, group_id, member_id))

    def _rearm_session(self, group: ClassicGroup, member: ClassicGroupMember) -> None:
        self.schedule_session(group, member.member_id, member.session_timeout_ms)

    def timers_by_group(self) -> dict[str, list[tuple[str, int]]]:
        out: dict[str, list[tuple[str, int]]] = {}
        for key, deadline in self.context.armed().items():
            group_id = self.timer_groups.get(key)
            if group_id is not None:
                out.setdefault(group_id, []).append((key, deadline))
        return out

    # -- records --------------------------------------------------------------------------------

    @staticmethod
    def group_record(group: ClassicGroup, assignments: dict[str, bytes]) -> CoordinatorRecord:
        members = tuple(
            GroupMetadataValue.MemberMetadata(
                member_id=m.member_id, group_instance_id=m.instance_id, client_id=m.client_id,
                client_host=m.client_host, rebalance_timeout=m.rebalance_timeout_ms,
                session_timeout=m.session_timeout_ms, subscription=m.metadata(group.protocol_name),
                assignment=assignments.get(m.member_id, b""))
            for m in group.members.values())
        timestamp = -1 if group.state_timestamp_ms is None else group.state_timestamp_ms
        return CoordinatorRecord(GroupMetadataKey(group.group_id), GroupMetadataValue(
            protocol_type=group.protocol_type or "", generation=group.generation_id,
            protocol=group.protocol_name, leader=group.leader_id, current_state_timestamp=timestamp,
            members=members))

    def replay(self, key: GroupMetadataKey, value: GroupMetadataValue | None) -> None:
        """Rebuild a group from its record (a tombstone removes it); members are Stable, unparked."""
        if value is None:
            self.groups.pop(key.group, None)
            self.unwritten.pop(key.group, None)
            return
        timestamp = None if value.current_state_timestamp == -1 else value.current_state_timestamp
        group = ClassicGroup(key.group, timestamp)
        group.state = STABLE if value.members else EMPTY
        group.protocol_type = value.protocol_type or None
        group.protocol_name = value.protocol
        group.generation_id = value.generation
        for mm in value.members:
            rebalance = mm.rebalance_timeout if mm.rebalance_timeout != -1 else mm.session_timeout
            group.add(ClassicGroupMember(
                mm.member_id, mm.group_instance_id, mm.client_id, mm.client_host, mm.session_timeout,
                rebalance, value.protocol_type, (Protocol(value.protocol or "", mm.subscription),),
                mm.assignment))
        group.leader_id = value.leader
        group.subscribed_topics = subscribed_topics(group)
        self.groups[key.group] = group

    def on_loaded(self) -> None:
        """Kafka's onLoaded: every loaded member gets a session timer."""
        for group in self.groups.values():
            for member in group.members.values():
                self._rearm_session(group, member)

    def on_unloaded(self) -> list[Answer]:
        answers = []
        for group in self.groups.values():
            for member in group.members.values():
                if member.join_index is not None:
                    answers.append(Answer(member.join_index, JoinGroupResponse(
                        Errors.NOT_COORDINATOR, member_id=member.member_id)))
                if member.sync_index is not None:
                    answers.append(Answer(member.sync_index, SyncGroupResponse(Errors.NOT_COORDINATOR)))
        return answers

    # -- the rebalance ----------------------------------------------------------------------------

    def _join_response(self, group: ClassicGroup, member: ClassicGroupMember,
                       with_members: bool) -> JoinGroupResponse:
        members = self._leader_members(group) if with_members else ()
        return JoinGroupResponse(Errors.NONE, group.generation_id, group.protocol_type, group.protocol_name,
                                 group.leader_id or "", False, member.member_id, members)

    @staticmethod
    def _leader_members(group: ClassicGroup) -> tuple[JoinGroupMember, ...]:
        protocol = group.protocol_name
        return tuple(JoinGroupMember(m.member_id, m.instance_id, m.metadata(protocol))
                     for m in group.members.values())

    def _prepare_rebalance(self, out: WriteResult, group: ClassicGroup) -> None:
        if group.state == COMPLETING_REBALANCE:
            # The assignments being synced are void: parked SyncGroups learn of the rebalance.
            for member in group.members.values():
                member.assignment = b""
                if member.sync_index is not None:
                    out.answers.append(Answer(member.sync_index,
                                              SyncGroupResponse(Errors.REBALANCE_IN_PROGRESS)))
                    member.sync_index = None
                    self._rearm_session(group, member)
        group.pending_sync_members.clear()
        self._cancel(sync_key(group.group_id))
        first = group.state == EMPTY
        if first:
            delay = self.config.initial_rebalance_delay_ms
            remaining = max(group.max_rebalance_timeout_ms() - delay, 0)
            self._schedule_initial_delay(group, delay, delay, remaining)
        group.transition_to(PREPARING_REBALANCE, self.context.now())
        if not first:
            if group.all_members_joined():
                self._complete_join(out, group)
            else:
                self._schedule_join(group, group.max_rebalance_timeout_ms())

    def _schedule_join(self, group: ClassicGroup, delay_ms: int) -> None:
        group_id = group.group_id
        self._schedule(join_key(group_id), delay_ms, group_id,
                       lambda out: self._on_join_timeout(out, group_id))

    def _schedule_initial_delay(self, group: ClassicGroup, delay_ms: int, delay: int, remaining: int) -> None:
        """The initial rebalance delay: extended by up to ``delay`` while new members keep coming."""
        group_id = group.group_id
        self._schedule(join_key(group_id), delay_ms, group_id,
                       lambda out: self._on_initial_delay(out, group_id, delay, remaining))

    def _on_initial_delay(self, out: WriteResult, group_id: str, delay: int, remaining: int) -> None:
        group = self.groups.get(group_id)
        if group is None:
            return
        if group.new_member_added and remaining != 0:
            group.new_member_added = False
            next_delay = min(self.config.initial_rebalance_delay_ms, remaining)
            self._schedule_initial_delay(group, next_delay, next_delay, max(remaining - delay, 0))
            return
        self._complete_join(out, group)

    def _on_join_timeout(self, out: WriteResult, group_id: str) -> None:
        group = self.groups.get(group_id)
        if group is not None:
            self._complete_join(out, group)

    def _maybe_complete_join(self, out: WriteResult, group: ClassicGroup) -> None:
        # During the initial delay only the delay's timer completes the join.
        if (group.state == PREPARING_REBALANCE and group.previous_state != EMPTY
                and group.all_members_joined()):
            self._complete_join(out, group)

    def _complete_join(self, out: WriteResult, group: ClassicGroup) -> None:
        group_id = group.group_id
        self._cancel(join_key(group_id))
        gone = [mid for mid, m in group.members.items() if m.join_index is None and m.instance_id is None]
        for member_id in gone:
            group.remove(member_id)
            self._cancel(heartbeat_key(group_id, member_id))
        if group.members:
            leader = group.members.get(group.leader_id) if group.leader_id is not None else None
            if leader is None or leader.join_index is None:
                joined = next((mid for mid, m in group.members.items() if m.join_index is not None), None)
                if joined is None:
                    # Only static members that have not rejoined: wait for them another round.
                    self._schedule_join(group, group.max_rebalance_timeout_ms())
                    return
                group.leader_id = joined
        group.generation_id += 1
        group.pending_sync_members.clear()
        now = self.context.now()
        if not group.members:
            group.protocol_name = None
            group.subscribed_topics = subscribed_topics(group)
            group.transition_to(EMPTY, now)
            out.records.append(self.group_record(group, {}))
            return
        group.protocol_name = group.select_protocol()
        group.subscribed_topics = subscribed_topics(group)
        group.transition_to(COMPLETING_REBALANCE, now)
        for member in group.members.values():
            index = group.unpark_join(member)
            if index is not None:
                out.answers.append(Answer(index, self._join_response(
                    group, member, member.member_id == group.leader_id)))
            self._rearm_session(group, member)
            member.is_new = False
            group.pending_sync_members.add(member.member_id)
        generation = group.generation_id
        self._schedule(sync_key(group_id), group.max_rebalance_timeout_ms(), group_id,
                       lambda o: self._on_sync_timeout(o, group_id, generation))

    def _on_sync_timeout(self, out: WriteResult, group_id: str, generation: int) -> None:
        group = self.groups.get(group_id)
        if (group is None or group.generation_id != generation
                or group.state not in (COMPLETING_REBALANCE, STABLE) or not group.pending_sync_members):
            return
        for member_id in sorted(group.pending_sync_members):
            group.remove(member_id)
            self._cancel(heartbeat_key(group_id, member_id))
        self._prepare_rebalance(out, group)

    def _on_heartbeat_expired(self, out: WriteResult, group_id: str, member_id: str) -> None:
        group = self.groups.get(group_id)
        if group is None:
            return
        if member_id in group.pending_join_members:
            group.pending_join_members.discard(member_id)
            if group.state == PREPARING_REBALANCE and group.all_members_joined():
                self._complete_join(out, group)
            return
        member = group.members.get(member_id)
        if member is None:
            return
        # A member whose JoinGroup or SyncGroup is parked is alive, unless it never got through a join.
        if not member.is_new and (member.join_index is not None or member.sync_index is not None):
            return
        index = group.unpark_join(member)
        if index is not None:
            out.answers.append(Answer(index, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID)))
        group.remove(member_id)
        if group.state in (STABLE, COMPLETING_REBALANCE):
            self._prepare_rebalance(out, group)
        elif group.state == PREPARING_REBALANCE and group.all_members_joined():
            self._complete_join(out, group)

    # -- JoinGroup --------------------------------------------------------------------------------

    def classic_group_join(self, out: WriteResult, req: JoinGroup, index: int) -> None:
        # The session timeout's bounds are checked by the coordinator service, before the runtime.
        group = self.groups.get(req.group_id)
        created = group is None
        if group is None:
            if req.member_id != UNKNOWN_MEMBER_ID:
                out.answers.append(Answer(index, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID,
                                                                   member_id=req.member_id)))
                return
            group = self.get_or_create(req.group_id)
        written = len(out.records)
        self._join(out, group, req, index)
        if created and len(out.records) == written:
            # A new group is persisted at once, as an empty group (newEmptyGroupMetadataRecord),
            # even when this join added nobody.
            timestamp = self.context.now() if group.state_timestamp_ms is None else group.state_timestamp_ms
            out.records.append(CoordinatorRecord(GroupMetadataKey(group.group_id), GroupMetadataValue(
                protocol_type="", generation=0, protocol=None, leader=None, current_state_timestamp=timestamp,
                members=())))

    def _accepts(self, group: ClassicGroup, member_id: str) -> bool:
        """Whether the group has room for this member (group.max.size)."""
        if group.state in (EMPTY, DEAD):
            return True
        member = group.members.get(member_id)
        if group.state == PREPARING_REBALANCE:
            return ((member is not None and member.join_index is not None)
                    or group.awaiting_join() < self.config.max_size)
        return member is not None or len(group.members) < self.config.max_size

    def _join(self, out: WriteResult, group: ClassicGroup, req: JoinGroup, index: int) -> None:
        def answer(error: Errors, member_id: str = req.member_id) -> None:
            out.answers.append(Answer(index, JoinGroupResponse(error, member_id=member_id)))

        if not self._accepts(group, req.member_id):
            group.remove(req.member_id)
            answer(Errors.GROUP_MAX_SIZE_REACHED, "")
            return
        if not group.supports(req.protocol_type, [p.name for p in req.protocols]):
            answer(Errors.INCONSISTENT_GROUP_PROTOCOL)
            return
        if req.member_id == UNKNOWN_MEMBER_ID:
            self._join_unknown_member(out, group, req, index)
            return
        if req.member_id in group.pending_join_members:
            if req.group_instance_id is not None:  # Kafka throws: the answer carries no member id
                answer(Errors.UNKNOWN_SERVER_ERROR, "")
                return
            self._add_member(out, group, self._new_member(req, req.member_id), index)
            return
        error = self._validate_member(group, req.member_id, req.group_instance_id)
        if error is not Errors.NONE:
            answer(error)
            return
        self._join_known_member(out, group, group.members[req.member_id], req, index)

    def _join_unknown_member(self, out: WriteResult, group: ClassicGroup, req: JoinGroup, index: int) -> None:
        if req.group_instance_id is not None:
            old_id = group.static_members.get(req.group_instance_id)
            if old_id is None:
                member_id = f"{req.group_instance_id}-{req.new_member_uuid}"
                self._add_member(out, group, self._new_member(req, member_id), index)
            else:
                self._replace_static_member(out, group, req, old_id, index)
        elif req.version >= 4:
            # KIP-394: issue an id and make the client come back with it.
            member_id = f"{req.client_id}-{req.new_member_uuid}"
            group.pending_join_members.add(member_id)
            self.schedule_session(group, member_id, req.session_timeout_ms)
            out.answers.append(Answer(index, JoinGroupResponse(Errors.MEMBER_ID_REQUIRED,
                                                               member_id=member_id)))
        else:
            member_id = f"{req.client_id}-{req.new_member_uuid}"
            self._add_member(out, group, self._new_member(req, member_id), index)

    def _join_known_member(self, out: WriteResult, group: ClassicGroup, member: ClassicGroupMember,
                           req: JoinGroup, index: int) -> None:
        if group.state == PREPARING_REBALANCE:
            self._update(out, group, member, req, index)
            self._maybe_complete_join(out, group)
        elif group.state == COMPLETING_REBALANCE:
            if member.protocols == req.protocols:
                # A retry of a join that was answered: answer it again.
                out.answers.append(Answer(index, self._join_response(
                    group, member, member.member_id == group.leader_id)))
            else:
                self._update(out, group, member, req, index)
                self._prepare_rebalance(out, group)
        elif group.state == STABLE:
            if member.member_id == group.leader_id or member.protocols != req.protocols:
                self._update(out, group, member, req, index)
                self._prepare_rebalance(out, group)
            else:
                out.answers.append(Answer(index, self._join_response(group, member, False)))
        else:
            out.answers.append(Answer(index, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID,
                                                               member_id=req.member_id)))

    @staticmethod
    def _new_member(req: JoinGroup, member_id: str) -> ClassicGroupMember:
        return ClassicGroupMember(member_id, req.group_instance_id, req.client_id, req.client_host,
                                  req.session_timeout_ms, req.rebalance_timeout_ms, req.protocol_type,
                                  req.protocols)

    @staticmethod
    def _update(out: WriteResult, group: ClassicGroup, member: ClassicGroupMember, req: JoinGroup,
                index: int) -> None:
        """updateMember; a JoinGroup parked before is replaced and never answered."""
        replaced = group.update_member(member, req.protocols, req.rebalance_timeout_ms,
                                       req.session_timeout_ms, index)
        if replaced is not None:
            out.dropped.append(replaced)

    def _add_member(self, out: WriteResult, group: ClassicGroup, member: ClassicGroupMember,
                    index: int) -> None:
        """addMemberThenRebalanceOrCompleteJoin."""
        member.is_new = True
        if group.state == PREPARING_REBALANCE and group.previous_state == EMPTY:
            group.new_member_added = True
        member.join_index = index
        group.add(member)
        self.schedule_session(group, member.member_id, NEW_MEMBER_JOIN_TIMEOUT_MS)
        if group.state in (STABLE, COMPLETING_REBALANCE, EMPTY):
            self._prepare_rebalance(out, group)
        else:
            self._maybe_complete_join(out, group)

    def _replace_static_member(self, out: WriteResult, group: ClassicGroup, req: JoinGroup, old_id: str,
                               index: int) -> None:
        previous_leader = group.leader_id
        old = group.members[old_id]
        new_id = f"{req.group_instance_id}-{req.new_member_uuid}"
        new = ClassicGroupMember(new_id, old.instance_id, old.client_id, old.client_host,
                                 old.session_timeout_ms, old.rebalance_timeout_ms, old.protocol_type,
                                 old.protocols, old.assignment)
        group.replace_static(old_id, new)
        if old.join_index is not None:
            out.answers.append(Answer(old.join_index, JoinGroupResponse(Errors.FENCED_INSTANCE_ID,
                                                                        member_id=old_id)))
        if old.sync_index is not None:
            out.answers.append(Answer(old.sync_index, SyncGroupResponse(Errors.FENCED_INSTANCE_ID)))
        # The new id's session timer runs on the old member's timeout (updateStaticMember...).
        self._rearm_session(group, new)
        self._update(out, group, new, req, index)
        if group.state == STABLE:
            if group.protocol_name == group.select_protocol():
                out.records.append(self.group_record(
                    group, {m.member_id: m.assignment for m in group.members.values()}))
                group.unpark_join(new)
                is_leader = group.leader_id == new_id
                skip = req.version >= 9
                leader = (group.leader_id or "") if skip else (previous_leader or "")
                out.answers.append(Answer(index, JoinGroupResponse(
                    Errors.NONE, group.generation_id, group.protocol_type, group.protocol_name, leader,
                    skip and is_leader, new_id, self._leader_members(group) if skip and is_leader else ())))
            else:
                self._prepare_rebalance(out, group)
        elif group.state == COMPLETING_REBALANCE:
            self._prepare_rebalance(out, group)
        else:
            self._maybe_complete_join(out, group)

    @staticmethod
    def _validate_member(group: ClassicGroup, member_id: str, instance_id: str | None) -> Errors:
        if instance_id is not None:
            known = group.static_members.get(instance_id)
            if known is None:
                return Errors.UNKNOWN_MEMBER_ID
            if known != member_id:
                return Errors.FENCED_INSTANCE_ID
        if member_id not in group.members:
            return Errors.UNKNOWN_MEMBER_ID
        return Errors.NONE

    validate_member = _validate_member

    # -- SyncGroup ----------------------------------------------------------------------------------

    def _remove_pending_sync(self, group: ClassicGroup, member_id: str) -> None:
        group.pending_sync_members.discard(member_id)
        if not group.pending_sync_members:
            self._cancel(sync_key(group.group_id))

    def classic_group_sync(self, out: WriteResult, req: SyncGroup, index: int) -> None:
        group = self.groups.get(req.group_id)
        if group is None or group.state == EMPTY:
            out.answers.append(Answer(index, SyncGroupResponse(Errors.UNKNOWN_MEMBER_ID)))
            return
        error = self._validate_member(group, req.member_id, req.group_instance_id)
        if error is Errors.NONE and req.generation_id != group.generation_id:
            error = Errors.ILLEGAL_GENERATION
        if error is Errors.NONE and (_inconsistent(req.protocol_type, group.protocol_type)
                                     or _inconsistent(req.protocol_name, group.protocol_name)):
            error = Errors.INCONSISTENT_GROUP_PROTOCOL
        if error is Errors.NONE and group.state == PREPARING_REBALANCE:
            error = Errors.REBALANCE_IN_PROGRESS
        if error is not Errors.NONE:
            out.answers.append(Answer(index, SyncGroupResponse(error)))
            return
        member = group.members[req.member_id]
        if group.state == STABLE:
            self._remove_pending_sync(group, member.member_id)
            out.answers.append(Answer(index, self._sync_ok(group, member.assignment)))
            return
        member.sync_index = index
        self._remove_pending_sync(group, member.member_id)
        if member.member_id != group.leader_id:
            return
        given = {a.member_id: a.assignment for a in req.assignments}
        assignments = {member_id: given.get(member_id, b"") for member_id in group.members}
        out.records.append(self.group_record(group, assignments))
        for m in group.members.values():
            m.assignment = assignments[m.member_id]
            if m.sync_index is not None:
                out.answers.append(Answer(m.sync_index, self._sync_ok(group, m.assignment)))
                m.sync_index = None
                self._rearm_session(group, m)
        group.transition_to(STABLE, self.context.now())

    @staticmethod
    def _sync_ok(group: ClassicGroup, assignment: bytes) -> SyncGroupResponse:
        return SyncGroupResponse(Errors.NONE, group.protocol_type, group.protocol_name, assignment)

    # -- Heartbeat, LeaveGroup --------------------------------------------------------------------

    def classic_group_heartbeat(self, out: WriteResult, req: Heartbeat, index: int) -> None:
        group = self.groups.get(req.group_id)
        if group is None:
            out.answers.append(Answer(index, HeartbeatResponse(Errors.UNKNOWN_MEMBER_ID)))
            return
        error = self._validate_member(group, req.member_id, req.group_instance_id)
        if error is Errors.NONE and req.generation_id != group.generation_id:
            error = Errors.ILLEGAL_GENERATION
        if error is Errors.NONE and group.state == EMPTY:
            error = Errors.UNKNOWN_MEMBER_ID
        if error is not Errors.NONE:
            out.answers.append(Answer(index, HeartbeatResponse(error)))
            return
        self._rearm_session(group, group.members[req.member_id])
        error = Errors.REBALANCE_IN_PROGRESS if group.state == PREPARING_REBALANCE else Errors.NONE
        out.answers.append(Answer(index, HeartbeatResponse(error)))

    def classic_group_leave(self, out: WriteResult, req: LeaveGroup, index: int) -> None:
        group = self.groups.get(req.group_id)
        if group is None:
            out.answers.append(Answer(index, LeaveGroupResponse(Errors.NONE, tuple(
                MemberLeaveResult(x.member_id, x.group_instance_id, Errors.UNKNOWN_MEMBER_ID)
                for x in req.members))))
            return
        results = []
        removed = False
        for identity in req.members:
            target: str | None = None
            if identity.member_id == UNKNOWN_MEMBER_ID:
                if identity.group_instance_id is not None:
                    target = group.static_members.get(identity.group_instance_id)
                error = Errors.NONE if target is not None else Errors.UNKNOWN_MEMBER_ID
            elif identity.member_id in group.pending_join_members:
                group.pending_join_members.discard(identity.member_id)
                self._cancel(heartbeat_key(group.group_id, identity.member_id))
                error, removed = Errors.NONE, True
            else:
                error = self._validate_member(group, identity.member_id, identity.group_instance_id)
                target = identity.member_id if error is Errors.NONE else None
            if target is not None:
                member = group.members[target]
                self._cancel(heartbeat_key(group.group_id, target))
                parked = group.unpark_join(member)
                if parked is not None:
                    out.answers.append(Answer(parked, JoinGroupResponse(Errors.UNKNOWN_MEMBER_ID)))
                group.remove(target)
                removed = True
            results.append(MemberLeaveResult(identity.member_id, identity.group_instance_id, error))
        out.answers.append(Answer(index, LeaveGroupResponse(Errors.NONE, tuple(results))))
        if removed:
            if group.state in (STABLE, COMPLETING_REBALANCE):
                self._prepare_rebalance(out, group)
            elif group.state == PREPARING_REBALANCE:
                self._maybe_complete_join(out, group)

    # -- reads ------------------------------------------------------------------------------------

    def describe(self, group_id: str) -> DescribedGroup:
        """The group as it stands. Members keep showing the assignment they hold while the group
        rebalances (the last generation's, until the leader's SyncGroup or a restarted rebalance
        replaces it); metadata and the protocol name only when Stable."""
        group = self.visible(group_id)
        if group is None:
            return DescribedGroup(group_id, Errors.GROUP_ID_NOT_FOUND, DEAD)
        stable = group.state == STABLE
        members = tuple(DescribedMember(m.member_id, m.instance_id, m.client_id, m.client_host,
                                        m.metadata(group.protocol_name) if stable else b"",
                                        m.assignment)
                        for m in group.members.values())
        return DescribedGroup(group_id, Errors.NONE, group.state, group.protocol_type or "",
                              (group.protocol_name or "") if stable else "", members)

    def all_groups(self) -> Iterator[ClassicGroup]:
        return iter(self.groups.values())

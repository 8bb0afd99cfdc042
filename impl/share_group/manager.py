"""Share groups of one ``__consumer_offsets`` shard: the share half of Kafka's
``GroupMetadataManager`` (``shareGroupHeartbeat``, ``shareGroupLeave``, ``shareGroupFenceMember``,
``maybeCreateInitializeShareGroupStateRequest``, ``initializeShareGroupState``,
``uninitializeShareGroupState``, the share ``replay`` overloads).

Handlers compute records and never touch the groups; the runtime appends the records and hands
them back to :meth:`ShareGroupManager.replay`, which is the only writer of group state, so a
shard loaded from its log is the shard that wrote it. Section numbers (§n) are those of the
share-group coordinator fact sheet (share_group_coordinator.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from groupspec.impl.runtime.runtime import ShardContext, WriteResult
from groupspec.impl.share_group.group import (
    Assignment,
    InitMapValue,
    ShareGroup,
    ShareGroupMember,
    StatePartitionMetadataInfo,
)
from groupspec.impl.simple_assignor import assign
from groupspec.types import AssignorInput, MemberSpec
from groupspec.types.classic_group import LogEntry
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
    ShareGroupConfig,
    ShareGroupHeartbeat,
    ShareGroupHeartbeatResponse,
    TopicMetadata,
    TopicPartitions,
)

INT_MAX = 2**31 - 1
UNKNOWN_TOPIC_NAME = "<UNKNOWN>"


#: What a write does to memory no record carries, once its records are in the log.
AfterCommit = Callable[[], None]


def _nothing() -> None:
    pass


def _epoch_acceptable(member: ShareGroupMember, epoch: int) -> bool:
    """The member epoch check of Kafka 4.2.1 (KAFKA-19233). Epoch 0 asks to (re)join and passes
    for any member, known or new; otherwise the epoch must be the member's current one, or its
    previous one (the answer that moved it on may have been lost)."""
    if epoch == JOIN_EPOCH:
        return True
    current, previous = member.member_epoch, member.previous_member_epoch
    return epoch == current or (epoch < current and epoch == previous)


def session_timeout_key(group_id: str, member_id: str) -> str:
    return f"session-timeout-{group_id}-{member_id}"


class MetadataImage:
    """The topics the coordinator knows, by name and by id, with their hashes cached."""

    def __init__(self, topics: Iterable[TopicMetadata] = ()) -> None:
        self.by_name: dict[str, TopicMetadata] = {t.name: t for t in topics}
        self.by_id: dict[str, TopicMetadata] = {t.topic_id: t for t in self.by_name.values()}
        self._hashes: dict[str, int] = {}

    def topic_hash(self, name: str) -> int | None:
        topic = self.by_name.get(name)
        if topic is None:
            return None
        cached = self._hashes.get(name)
        if cached is None:
            cached = self._hashes[name] = topic_hash(
                topic.topic_id, topic.name, topic.partitions, topic.racks
            )
        return cached

    def group_hash(self, names: Iterable[str]) -> int:
        hashes = {}
        for name in names:
            h = self.topic_hash(name)
            if h is not None:
                hashes[name] = h
        return group_hash(hashes)


@dataclass
class InitializeWork:
    """An InitializeShareGroupState to send once the heartbeat's records are written."""

    group_id: str
    state_epoch: int
    topics: dict[str, frozenset[int]]


def topic_partitions(assignment: Assignment) -> tuple[TopicPartitions, ...]:
    return tuple(
        TopicPartitions(t, tuple(sorted(assignment[t]))) for t in sorted(assignment) if assignment[t]
    )


# -- records (GroupCoordinatorRecordHelpers) ------------------------------------------------------


def member_record(group_id: str, m: ShareGroupMember) -> CoordinatorRecord:
    return CoordinatorRecord(
        ShareGroupMemberMetadataKey(group_id, m.member_id),
        ShareGroupMemberMetadataValue(
            m.rack_id, m.client_id, m.client_host, tuple(sorted(m.subscribed_topic_names))
        ),
        0,
    )


def epoch_record(group_id: str, epoch: int, metadata_hash: int) -> CoordinatorRecord:
    return CoordinatorRecord(
        ShareGroupMetadataKey(group_id), ShareGroupMetadataValue(epoch, metadata_hash), 0
    )


def target_member_record(group_id: str, member_id: str, target: Assignment) -> CoordinatorRecord:
    entry = ShareGroupTargetAssignmentMemberValue.TopicPartition
    return CoordinatorRecord(
        ShareGroupTargetAssignmentMemberKey(group_id, member_id),
        ShareGroupTargetAssignmentMemberValue(
            tuple(entry(uuid.UUID(tp.topic_id), tp.partitions) for tp in topic_partitions(target))
        ),
        0,
    )


def target_epoch_record(group_id: str, epoch: int) -> CoordinatorRecord:
    return CoordinatorRecord(
        ShareGroupTargetAssignmentMetadataKey(group_id), ShareGroupTargetAssignmentMetadataValue(epoch), 0
    )


def current_record(group_id: str, m: ShareGroupMember) -> CoordinatorRecord:
    entry = ShareGroupCurrentMemberAssignmentValue.TopicPartitions
    parts = tuple(entry(uuid.UUID(tp.topic_id), tp.partitions) for tp in topic_partitions(m.assigned))
    return CoordinatorRecord(
        ShareGroupCurrentMemberAssignmentKey(group_id, m.member_id),
        ShareGroupCurrentMemberAssignmentValue(m.member_epoch, m.previous_member_epoch, MEMBER_STABLE, parts),
        0,
    )


_TopicPartitionsInfo = ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo


def state_record(group_id: str, info: StatePartitionMetadataInfo) -> CoordinatorRecord:
    value = ShareGroupStatePartitionMetadataValue

    def listed(entries: dict[str, InitMapValue]) -> tuple[_TopicPartitionsInfo, ...]:
        return tuple(
            _TopicPartitionsInfo(uuid.UUID(t), entries[t].name, tuple(sorted(entries[t].partitions)))
            for t in sorted(entries)
        )

    return CoordinatorRecord(
        ShareGroupStatePartitionMetadataKey(group_id),
        value(
            listed(info.initializing),
            listed(info.initialized),
            tuple(value.TopicInfo(uuid.UUID(t), info.deleting[t]) for t in sorted(info.deleting)),
        ),
        0,
    )


def tombstone(key: object) -> CoordinatorRecord:
    return CoordinatorRecord(key, None, None)


class ShareGroupManager:
    def __init__(
        self,
        config: ShareGroupConfig,
        context: ShardContext,
        image: Callable[[], MetadataImage],
        group_config: Callable[[str], tuple[int | None, int | None]],
    ) -> None:
        self.config = config
        self.context = context
        self._image = image
        self._group_config = group_config
        self.groups: dict[str, ShareGroup] = {}
        self.state_metadata: dict[str, StatePartitionMetadataInfo] = {}

    @property
    def image(self) -> MetadataImage:
        return self._image()

    def session_timeout_ms(self, group_id: str) -> int:
        return self._group_config(group_id)[0] or self.config.session_timeout_ms

    def heartbeat_interval_ms(self, group_id: str) -> int:
        return self._group_config(group_id)[1] or self.config.heartbeat_interval_ms

    # -- the heartbeat (§1.3) -----------------------------------------------------------------------

    def share_group_heartbeat(
        self, out: WriteResult, req: ShareGroupHeartbeat
    ) -> tuple[ShareGroupHeartbeatResponse, InitializeWork | None, AfterCommit]:
        """The heartbeat's records, its answer, and what to do once the records are written.

        Memory that no record carries (the session timer, the metadata refresh deadline) changes
        in the returned callback, which the service runs only after the write succeeded.
        """
        if req.member_epoch == LEAVE_EPOCH:
            return self._leave(out, req)
        refused = _nothing  # a refusal writes nothing, so nothing follows it
        group = self.groups.get(req.group_id)
        if group is None:
            if req.member_epoch != JOIN_EPOCH:
                return ShareGroupHeartbeatResponse(Errors.GROUP_ID_NOT_FOUND), None, refused
            group = self._new_group(req.group_id)  # in memory once its records are replayed
        if len(group.members) >= self.config.max_size and req.member_id not in group.members:
            return ShareGroupHeartbeatResponse(Errors.GROUP_MAX_SIZE_REACHED), None, refused
        member = group.members.get(req.member_id)
        if member is None:
            if req.member_epoch != JOIN_EPOCH:
                return ShareGroupHeartbeatResponse(Errors.UNKNOWN_MEMBER_ID), None, refused
            member = ShareGroupMember(req.member_id)
            stored = None
        else:
            stored = member
        if not _epoch_acceptable(member, req.member_epoch):
            return ShareGroupHeartbeatResponse(Errors.FENCED_MEMBER_EPOCH), None, refused
        now = self.context.now()
        records = out.records

        updated = replace(
            member,
            rack_id=req.rack_id if req.rack_id is not None else member.rack_id,
            subscribed_topic_names=(
                frozenset(req.subscribed_topic_names)
                if req.subscribed_topic_names is not None
                else member.subscribed_topic_names
            ),
            client_id=req.client_id,
            client_host=req.client_host,
        )
        subscription_changed = updated.subscribed_topic_names != member.subscribed_topic_names
        bump = subscription_changed or self._initialized_assignment_pending(group)
        if stored is None or updated != stored:
            records.append(member_record(group.group_id, updated))

        group_epoch = group.group_epoch
        subscribed = group.compute_subscribed_topic_names(stored, updated)
        refresh: tuple[int, int] | None = None
        if bump or group.has_metadata_expired(now):
            metadata_hash = self.image.group_hash(subscribed)
            if metadata_hash != group.metadata_hash:
                bump = True
            if bump:
                group_epoch += 1
                records.append(epoch_record(group.group_id, group_epoch, metadata_hash))
            refresh = (now + INT_MAX, group_epoch)

        target_epoch = group.target_assignment_epoch
        target = group.target_assignment.get(updated.member_id, {})
        if group_epoch > target_epoch:
            target = self._update_target_assignment(group, updated, group_epoch, records)
            target_epoch = group_epoch

        # ShareGroupAssignmentBuilder (§1.5): the member takes its target directly.
        reconciled = updated
        if updated.member_epoch != target_epoch:
            reconciled = replace(
                updated, member_epoch=target_epoch, previous_member_epoch=updated.member_epoch
            ).with_assigned(self._filtered(target, updated.subscribed_topic_names))
        elif bump:
            reconciled = updated.with_assigned(self._filtered(target, updated.subscribed_topic_names))
        if (reconciled.member_epoch, reconciled.previous_member_epoch, reconciled.assigned_partitions) != (
            updated.member_epoch,
            updated.previous_member_epoch,
            updated.assigned_partitions,
        ):
            records.append(current_record(group.group_id, reconciled))

        group_id, member_id = group.group_id, updated.member_id

        def after() -> None:
            self._schedule_session(group_id, member_id)
            if refresh is not None:
                self.groups[group_id].set_metadata_refresh_deadline(*refresh)

        send = (
            req.member_epoch == JOIN_EPOCH
            or req.subscribed_topic_names is not None
            or reconciled.assigned_partitions != updated.assigned_partitions
        )
        response = ShareGroupHeartbeatResponse(
            Errors.NONE,
            updated.member_id,
            reconciled.member_epoch,
            self.heartbeat_interval_ms(group.group_id),
            topic_partitions(reconciled.assigned) if send else None,
        )
        return response, self._maybe_initialize(group, subscribed, group_epoch, records), after

    def _filtered(self, target: Assignment, subscription: frozenset[str]) -> Assignment:
        by_id = self.image.by_id
        return {t: p for t, p in target.items() if p and t in by_id and by_id[t].name in subscription}

    def _update_target_assignment(
        self, group: ShareGroup, updated: ShareGroupMember, epoch: int, records: list[LogEntry]
    ) -> Assignment:
        """TargetAssignmentBuilder: the SimpleAssignor over initialized partitions (§3.3)."""
        image = self.image
        members = dict(group.members)
        members[updated.member_id] = updated
        info = self.state_metadata.get(group.group_id)
        assignable = {}
        for topic_id, entry in (info.initialized if info else {}).items():
            topic = image.by_id.get(topic_id)
            if topic is not None:
                assignable[topic.name] = entry.partitions
        specs = []
        for m in members.values():
            previous = {
                image.by_id[t].name: p
                for t, p in group.target_assignment.get(m.member_id, {}).items()
                if t in image.by_id
            }
            specs.append(MemberSpec(m.member_id, tuple(sorted(m.subscribed_topic_names)), previous))
        result = assign(
            AssignorInput(
                tuple(specs),
                {t.name: t.partitions for t in image.by_name.values()},
                {t.name: t.topic_id for t in image.by_name.values()},
                assignable,
            )
        )
        mine: Assignment = {}
        for member_id in members:
            new = {image.by_name[name].topic_id: parts for name, parts in result[member_id].items() if parts}
            if member_id not in group.target_assignment or new != group.target_assignment[member_id]:
                records.append(target_member_record(group.group_id, member_id, new))
            if member_id == updated.member_id:
                mine = new
        records.append(target_epoch_record(group.group_id, epoch))
        return mine

    def _initialized_assignment_pending(self, group: ShareGroup) -> bool:
        info = self.state_metadata.get(group.group_id)
        names = group.subscribed_topic_names
        if not group.members or info is None or not info.initialized or not names:
            return False
        # The union of all targets per topic is kept by the group as partition counts, so this
        # check (made on every heartbeat) does not walk every member's target.
        held = group.target_partition_counts
        return any(
            entry.name in names and (topic_id not in held or held[topic_id].keys() != entry.partitions)
            for topic_id, entry in info.initialized.items()
        )

    def _maybe_initialize(
        self, group: ShareGroup, subscribed: frozenset[str], epoch: int, records: list[LogEntry]
    ) -> InitializeWork | None:
        """maybeCreateInitializeShareGroupStateRequest (§3.2)."""
        image = self.image
        if not subscribed or not image.by_name:
            return None
        now = self.context.now()
        info = self.state_metadata.get(group.group_id) or StatePartitionMetadataInfo()
        wanted: dict[str, frozenset[int]] = {}
        for name in sorted(subscribed):
            topic = image.by_name.get(name)
            if topic is None:
                continue
            covered: set[int] = set()
            done = info.initialized.get(topic.topic_id)
            if done is not None:
                covered |= done.partitions
            pending = info.initializing.get(topic.topic_id)
            if pending is not None and now - pending.timestamp < self.config.retry_interval_ms:
                covered |= pending.partitions
            if len(covered) < topic.partitions:
                missing = frozenset(range(topic.partitions)) - covered
                if missing:
                    wanted[topic.topic_id] = missing
        if not wanted:
            return None
        initializing = dict(info.initializing)
        for topic_id, parts in wanted.items():
            old = initializing.get(topic_id)
            initializing[topic_id] = InitMapValue(
                image.by_id[topic_id].name, parts | (old.partitions if old else frozenset()), now
            )
        deleting = {t: n for t, n in info.deleting.items() if t not in wanted}
        records.append(
            state_record(
                group.group_id, StatePartitionMetadataInfo(initializing, dict(info.initialized), deleting)
            )
        )
        return InitializeWork(group.group_id, epoch, wanted)

    # -- leaving, fencing, session timeouts (§1.6, §1.7) ---------------------------------------------

    def _leave(
        self, out: WriteResult, req: ShareGroupHeartbeat
    ) -> tuple[ShareGroupHeartbeatResponse, None, AfterCommit]:
        group = self.groups.get(req.group_id)
        if group is None:
            return ShareGroupHeartbeatResponse(Errors.GROUP_ID_NOT_FOUND), None, _nothing
        if req.member_id not in group.members:
            return ShareGroupHeartbeatResponse(Errors.UNKNOWN_MEMBER_ID), None, _nothing
        self._fence(out, group, req.member_id)
        key = session_timeout_key(group.group_id, req.member_id)
        response = ShareGroupHeartbeatResponse(Errors.NONE, req.member_id, LEAVE_EPOCH, 0, None)
        return response, None, lambda: self.context.cancel(key)

    def _fence(self, out: WriteResult, group: ShareGroup, member_id: str) -> None:
        member = group.members[member_id]
        out.records.append(tombstone(ShareGroupCurrentMemberAssignmentKey(group.group_id, member_id)))
        out.records.append(tombstone(ShareGroupTargetAssignmentMemberKey(group.group_id, member_id)))
        out.records.append(tombstone(ShareGroupMemberMetadataKey(group.group_id, member_id)))
        subscribed = group.compute_subscribed_topic_names(member, None)
        out.records.append(
            epoch_record(group.group_id, group.group_epoch + 1, self.image.group_hash(subscribed))
        )

    def _schedule_session(self, group_id: str, member_id: str) -> None:
        def expire() -> WriteResult:
            out = WriteResult(replay=True)
            group = self.groups.get(group_id)
            if group is not None and member_id in group.members:
                self._fence(out, group, member_id)  # this timer has fired: nothing to cancel
            return out

        self.context.schedule(
            session_timeout_key(group_id, member_id), self.session_timeout_ms(group_id), expire
        )

    def on_loaded(self) -> None:
        """§1.7: after a load every member gets a fresh, full session."""
        for group in self.groups.values():
            for member_id in group.members:
                self._schedule_session(group.group_id, member_id)

    # -- the persister's answers, metadata, deletion (§1.8, §1.9, §3.5) -----------------------------

    def initialize_done(
        self, out: WriteResult, group_id: str, topics: dict[str, frozenset[int]], error: Errors
    ) -> None:
        """initializeShareGroupState on success, uninitializeShareGroupState otherwise."""
        if group_id not in self.groups:
            return
        found = self.state_metadata.get(group_id)
        if error != Errors.NONE and (found is None or not found.initializing):
            return  # uninitializeShareGroupState has nothing to take out and writes nothing
        info = found or StatePartitionMetadataInfo()
        now = self.context.now()
        initialized = dict(info.initialized)
        if error == Errors.NONE:
            for topic_id, parts in topics.items():
                topic = self.image.by_id.get(topic_id)
                old = initialized.get(topic_id)
                initialized[topic_id] = InitMapValue(
                    topic.name if topic else UNKNOWN_TOPIC_NAME,
                    parts | (old.partitions if old else frozenset()),
                    old.timestamp if old else now,
                )
        initializing = {}
        for topic_id, entry in info.initializing.items():
            left = entry.partitions - topics.get(topic_id, frozenset())
            if left:
                initializing[topic_id] = InitMapValue(entry.name, left, entry.timestamp)
        out.records.append(
            state_record(group_id, StatePartitionMetadataInfo(initializing, initialized, dict(info.deleting)))
        )

    def on_metadata_update(self, out: WriteResult, changed: set[str], deleted: set[str]) -> None:
        """onNewMetadataImage and maybeCleanupShareGroupState for this shard's groups."""
        for group in self.groups.values():
            if any(name in group.subscribed_topic_names for name in changed):
                group.request_metadata_refresh()
        for group_id, info in self.state_metadata.items():
            mentioned = (set(info.initializing) | set(info.initialized) | set(info.deleting)) & deleted
            if mentioned:
                out.records.append(
                    state_record(
                        group_id,
                        StatePartitionMetadataInfo(
                            {t: e for t, e in info.initializing.items() if t not in mentioned},
                            {t: e for t, e in info.initialized.items() if t not in mentioned},
                            {t: n for t, n in info.deleting.items() if t not in mentioned},
                        ),
                    )
                )

    def delete_group(self, out: WriteResult, group_id: str) -> Errors:
        group = self.groups.get(group_id)
        if group is None:
            return Errors.GROUP_ID_NOT_FOUND
        if group.members:
            return Errors.NON_EMPTY_GROUP
        info = self.state_metadata.get(group_id)
        if info is not None:
            deleting = dict(info.deleting)
            deleting.update({t: e.name for t, e in {**info.initializing, **info.initialized}.items()})
            out.records.append(state_record(group_id, StatePartitionMetadataInfo({}, {}, deleting)))
        out.records.append(tombstone(ShareGroupTargetAssignmentMetadataKey(group_id)))
        out.records.append(tombstone(ShareGroupStatePartitionMetadataKey(group_id)))
        out.records.append(tombstone(ShareGroupMetadataKey(group_id)))
        return Errors.NONE

    # -- replay (§2.3) ---------------------------------------------------------------------------------

    def _new_group(self, group_id: str) -> ShareGroup:
        """ModernGroup's constructor: 4.3 starts both epochs at 1 (KAFKA-20268), 4.2 at 0."""
        first = self.config.initial_group_epoch
        return ShareGroup(group_id, group_epoch=first, target_assignment_epoch=first)

    def replay(self, record: CoordinatorRecord) -> None:
        key, value = record.key, record.value
        group_id: str = key.group_id  # type: ignore[attr-defined]
        group = self.groups.get(group_id)
        if value is None:
            self._replay_tombstone(group, key)
            return
        if group is None:
            group = self.groups[group_id] = self._new_group(group_id)
        match value:
            case ShareGroupMemberMetadataValue():
                assert isinstance(key, ShareGroupMemberMetadataKey)
                old = group.members.get(key.member_id) or ShareGroupMember(key.member_id)
                group.update_member(
                    replace(
                        old,
                        rack_id=value.rack_id,
                        client_id=value.client_id,
                        client_host=value.client_host,
                        subscribed_topic_names=frozenset(value.subscribed_topic_names),
                    )
                )
            case ShareGroupMetadataValue():
                group.group_epoch, group.metadata_hash = value.epoch, value.metadata_hash
            case ShareGroupTargetAssignmentMemberValue():
                assert isinstance(key, ShareGroupTargetAssignmentMemberKey)
                group.set_target(
                    key.member_id,
                    {str(tp.topic_id): frozenset(tp.partitions) for tp in value.topic_partitions},
                )
            case ShareGroupTargetAssignmentMetadataValue():
                group.target_assignment_epoch = value.assignment_epoch
            case ShareGroupCurrentMemberAssignmentValue():
                assert isinstance(key, ShareGroupCurrentMemberAssignmentKey)
                old = group.members.get(key.member_id) or ShareGroupMember(key.member_id)
                group.update_member(
                    replace(
                        old,
                        member_epoch=value.member_epoch,
                        previous_member_epoch=value.previous_member_epoch,
                    ).with_assigned(
                        {str(tp.topic_id): frozenset(tp.partitions) for tp in value.assigned_partitions}
                    )
                )
            case ShareGroupStatePartitionMetadataValue():
                now = self.context.now()
                self.state_metadata[group_id] = StatePartitionMetadataInfo(
                    {
                        str(t.topic_id): InitMapValue(t.topic_name, frozenset(t.partitions), now)
                        for t in value.initializing_topics
                    },
                    {
                        str(t.topic_id): InitMapValue(t.topic_name, frozenset(t.partitions), now)
                        for t in value.initialized_topics
                    },
                    {str(t.topic_id): t.topic_name for t in value.deleting_topics},
                )

    def _replay_tombstone(self, group: ShareGroup | None, key: object) -> None:
        if group is None:
            return
        if isinstance(key, ShareGroupMemberMetadataKey):
            group.remove_member(key.member_id)
        elif isinstance(key, ShareGroupMetadataKey):
            del self.groups[group.group_id]
            self.state_metadata.pop(group.group_id, None)
        elif isinstance(key, ShareGroupTargetAssignmentMemberKey):
            group.remove_target(key.member_id)
        elif isinstance(key, ShareGroupTargetAssignmentMetadataKey):
            group.target_assignment_epoch = -1
        elif isinstance(key, ShareGroupCurrentMemberAssignmentKey):
            member = group.members.get(key.member_id)
            if member is not None:
                group.update_member(
                    replace(member, member_epoch=-1, previous_member_epoch=-1, assigned_partitions=())
                )
        elif isinstance(key, ShareGroupStatePartitionMetadataKey):
            self.state_metadata.pop(group.group_id, None)

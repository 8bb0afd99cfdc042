"""A KIP-848 consumer group as its ``__consumer_offsets`` records leave it, for describe and audit.

groupspec has no coordinator machine for consumer-protocol groups, yet an operator reading a log
wants what ``kafka-consumer-groups.sh --describe --state`` would have shown: the state, the group
epoch, the target assignment's epoch and each member's assignment. All of it is in the records
(types 3-8), so it is folded here record by record, as Kafka's loader replays them into its
``ConsumerGroup``, without any rule of a machine: the last value of each key wins, a tombstone
removes it.

The state is derived as Kafka 4.2 derives it after every replayed record
(``ConsumerGroup.maybeUpdateGroupState`` in group-coordinator/.../modern/consumer/ConsumerGroup.java):
no member is Empty; a group epoch above the target assignment's epoch is Assigning (a new target
is still to be computed); a member that is not reconciled to the target's epoch (its member epoch
differs, or its state is not STABLE, i.e. it still has partitions to revoke or to wait for) makes
it Reconciling; otherwise Stable. A member with no current-assignment record yet is at epoch 0
in state STABLE, Kafka's defaults for a new member, so it is reconciled only to a target epoch
of 0 (a group whose first member record is all there is reads as Stable, as it does in Kafka).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from groupspec.types.records import (
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue,
    ConsumerGroupPartitionMetadataKey,
    ConsumerGroupPartitionMetadataValue,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMetadataValue,
    CoordinatorRecord,
)

#: Kafka's MemberState byte values (group-coordinator/.../modern/MemberState.java).
MEMBER_STATES = {0: "STABLE", 1: "UNREVOKED_PARTITIONS", 2: "UNRELEASED_PARTITIONS", 127: "UNKNOWN"}

Partitions = tuple[tuple[uuid.UUID, tuple[int, ...]], ...]


@dataclass
class ConsumerMember:
    member_id: str
    client_id: str = ""
    client_host: str = ""
    instance_id: str | None = None
    subscribed_topics: tuple[str, ...] = ()
    #: From the member's current-assignment record; Kafka's defaults until there is one.
    member_epoch: int = 0
    previous_member_epoch: int = -1
    state: int = 0
    assigned: Partitions = ()
    pending_revocation: Partitions = ()

    def reconciled_to(self, assignment_epoch: int) -> bool:
        return self.state == 0 and self.member_epoch == assignment_epoch


@dataclass
class ConsumerGroupState:
    """One group's records folded; ``seen`` is False until a record of types 3-8 names it."""

    group_id: str
    seen: bool = False
    #: None after the group's metadata tombstone (the group was deleted).
    group_epoch: int | None = None
    assignment_epoch: int = 0
    members: dict[str, ConsumerMember] = field(default_factory=dict)
    targets: dict[str, Partitions] = field(default_factory=dict)
    #: Topic id -> name, where the (pre-4.1) partition metadata record gives it.
    topic_names: dict[uuid.UUID, str] = field(default_factory=dict)
    deleted: bool = False

    def apply(self, record: CoordinatorRecord) -> bool:
        """Fold one record in; False when it is not a consumer-group record (left alone)."""
        key, value = record.key, record.value
        if isinstance(key, ConsumerGroupMetadataKey):
            if value is None:
                self.group_epoch = None
                self.deleted = True
            else:
                assert isinstance(value, ConsumerGroupMetadataValue)
                self.group_epoch = value.epoch
                self.deleted = False
        elif isinstance(key, ConsumerGroupMemberMetadataKey):
            if value is None:
                self.members.pop(key.member_id, None)
            else:
                assert isinstance(value, ConsumerGroupMemberMetadataValue)
                m = self.members.setdefault(key.member_id, ConsumerMember(key.member_id))
                m.client_id, m.client_host = value.client_id, value.client_host
                m.instance_id, m.subscribed_topics = value.instance_id, value.subscribed_topic_names
        elif isinstance(key, ConsumerGroupCurrentMemberAssignmentKey):
            # Kafka's replay creates the member for an assignment record, and a tombstone of
            # one leaves the member in place at epoch -1 (LEAVE_GROUP_MEMBER_EPOCH) with nothing
            # assigned and its state unchanged (GroupMetadataManager.replay).
            if value is None:
                member = self.members.get(key.member_id)
                if member is not None:
                    member.member_epoch = member.previous_member_epoch = -1
                    member.assigned = member.pending_revocation = ()
            else:
                assert isinstance(value, ConsumerGroupCurrentMemberAssignmentValue)
                _set_current(self.members.setdefault(key.member_id, ConsumerMember(key.member_id)), value)
        elif isinstance(key, ConsumerGroupTargetAssignmentMemberKey):
            if value is None:
                self.targets.pop(key.member_id, None)
            else:
                assert isinstance(value, ConsumerGroupTargetAssignmentMemberValue)
                self.targets[key.member_id] = tuple((tp.topic_id, tuple(tp.partitions))
                                                    for tp in value.topic_partitions)
        elif isinstance(key, ConsumerGroupTargetAssignmentMetadataKey):
            if value is None:
                self.assignment_epoch = 0
            else:
                assert isinstance(value, ConsumerGroupTargetAssignmentMetadataValue)
                self.assignment_epoch = value.assignment_epoch
        elif isinstance(key, ConsumerGroupPartitionMetadataKey):
            if value is not None:
                assert isinstance(value, ConsumerGroupPartitionMetadataValue)
                self.topic_names.update((t.topic_id, t.topic_name) for t in value.topics)
        else:
            return False
        self.seen = True
        return True

    @property
    def state(self) -> str:
        """Kafka's state name: Empty, Assigning, Reconciling or Stable (Dead once deleted)."""
        if self.deleted and not self.members:
            return "Dead"
        if not self.members:
            return "Empty"
        if (self.group_epoch or 0) > self.assignment_epoch:
            return "Assigning"
        if any(not m.reconciled_to(self.assignment_epoch) for m in self.members.values()):
            return "Reconciling"
        return "Stable"

    def name(self, topic_id: uuid.UUID, names: dict[uuid.UUID, str] | None = None) -> str:
        found = self.topic_names.get(topic_id) or (names or {}).get(topic_id)
        return found if found is not None else str(topic_id)


def partition_names(parts: Partitions, name: dict[uuid.UUID, str] | None = None) -> tuple[str, ...]:
    """``topic-partition`` strings, the topic by name where known, else by its id."""
    names = name or {}
    return tuple(f"{names.get(t, str(t))}-{p}" for t, ps in parts for p in ps)


def _set_current(m: ConsumerMember, value: ConsumerGroupCurrentMemberAssignmentValue) -> None:
    m.member_epoch, m.previous_member_epoch, m.state = (value.member_epoch, value.previous_member_epoch,
                                                        value.state)
    m.assigned = tuple((tp.topic_id, tuple(tp.partitions)) for tp in value.assigned_partitions)
    m.pending_revocation = tuple((tp.topic_id, tuple(tp.partitions))
                                 for tp in value.partitions_pending_revocation)

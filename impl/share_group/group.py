"""A share group in memory: Kafka's ``ShareGroup`` / ``ShareGroupMember`` (modern/share/).

Only record replay changes these objects (``ShareGroupManager.replay``); handlers read them and
compute records. What is not in any record lives here too and is rebuilt differently: the
metadata refresh deadline (reset by a load) and the initializing entries' timestamps (stamped
at replay time, share_group_coordinator.md §2.3).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

#: topic id -> partitions
Assignment = dict[str, frozenset[int]]


@dataclass(frozen=True)
class ShareGroupMember:
    """Immutable, as Kafka's member is; an update is a new object (``dataclasses.replace``)."""

    member_id: str
    member_epoch: int = 0
    previous_member_epoch: int = -1
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    subscribed_topic_names: frozenset[str] = frozenset()
    assigned_partitions: tuple[tuple[str, frozenset[int]], ...] = ()

    @property
    def assigned(self) -> Assignment:
        return dict(self.assigned_partitions)

    def with_assigned(self, assigned: Assignment) -> ShareGroupMember:
        return replace(self, assigned_partitions=tuple(sorted((t, p) for t, p in assigned.items() if p)))


@dataclass
class InitMapValue:
    name: str
    partitions: frozenset[int]
    timestamp: int


@dataclass
class StatePartitionMetadataInfo:
    """ShareGroupStatePartitionMetadataInfo: initializing, initialized, deleting (by topic id)."""

    initializing: dict[str, InitMapValue] = field(default_factory=dict)
    initialized: dict[str, InitMapValue] = field(default_factory=dict)
    #: topic id -> topic name
    deleting: dict[str, str] = field(default_factory=dict)


@dataclass
class ShareGroup:
    group_id: str
    group_epoch: int = 0
    metadata_hash: int = 0
    target_assignment_epoch: int = 0
    #: Join order (groupspec's rule where Kafka's map order is its hash order).
    members: dict[str, ShareGroupMember] = field(default_factory=dict)
    target_assignment: dict[str, Assignment] = field(default_factory=dict)
    #: topic id -> partition -> how many members' targets hold it (the union of all targets).
    target_partition_counts: dict[str, Counter[int]] = field(default_factory=dict)
    #: Subscribed topic name -> how many members subscribe to it (ModernGroup's counts).
    subscribed_topic_names: Counter[str] = field(default_factory=Counter)
    metadata_refresh_deadline_ms: int = 0
    metadata_refresh_deadline_epoch: int = 0

    @property
    def state(self) -> str:
        return "Stable" if self.members else "Empty"

    def update_member(self, member: ShareGroupMember) -> None:
        old = self.members.get(member.member_id)
        if old is not None:
            self.subscribed_topic_names.subtract(old.subscribed_topic_names)
        self.subscribed_topic_names.update(member.subscribed_topic_names)
        self.subscribed_topic_names = +self.subscribed_topic_names
        self.members[member.member_id] = member

    def set_target(self, member_id: str, assignment: Assignment) -> None:
        self.remove_target(member_id)
        self.target_assignment[member_id] = assignment
        for topic_id, parts in assignment.items():
            self.target_partition_counts.setdefault(topic_id, Counter()).update(parts)

    def remove_target(self, member_id: str) -> None:
        old = self.target_assignment.pop(member_id, None)
        for topic_id, parts in (old or {}).items():
            counts = self.target_partition_counts[topic_id]
            counts.subtract(parts)
            for p in parts:
                if counts[p] <= 0:
                    del counts[p]
            if not counts:
                del self.target_partition_counts[topic_id]

    def remove_member(self, member_id: str) -> None:
        old = self.members.pop(member_id, None)
        if old is not None:
            self.subscribed_topic_names.subtract(old.subscribed_topic_names)
            self.subscribed_topic_names = +self.subscribed_topic_names

    def compute_subscribed_topic_names(
        self, old: ShareGroupMember | None, new: ShareGroupMember | None
    ) -> frozenset[str]:
        """The group's subscribed names if ``old`` were replaced by ``new`` (either may be None)."""
        counts = Counter(self.subscribed_topic_names)
        if old is not None:
            counts.subtract(old.subscribed_topic_names)
        if new is not None:
            counts.update(new.subscribed_topic_names)
        return frozenset(name for name, n in counts.items() if n > 0)

    def has_metadata_expired(self, now: int) -> bool:
        return (
            now >= self.metadata_refresh_deadline_ms
            or self.group_epoch < self.metadata_refresh_deadline_epoch
        )

    def set_metadata_refresh_deadline(self, deadline_ms: int, epoch: int) -> None:
        self.metadata_refresh_deadline_ms = deadline_ms
        self.metadata_refresh_deadline_epoch = epoch

    def request_metadata_refresh(self) -> None:
        self.set_metadata_refresh_deadline(0, 0)

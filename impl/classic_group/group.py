"""A classic group in memory: Kafka's ``ClassicGroup`` and ``ClassicGroupMember``.

The group keeps the bookkeeping that makes the hot paths constant time, as Kafka's does: how
many members support each protocol (``supportedProtocols``), how many members have a JoinGroup
parked (``numMembersAwaitingJoinResponse``), the static instance-id map. Everything that changes
those counts goes through the methods here, so they cannot drift from the member table.
"""

from __future__ import annotations

from collections import Counter

from groupspec.types.classic_group import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    GROUP_PREDECESSORS,
    PREPARING_REBALANCE,
    STABLE,
    Protocol,
)

__all__ = ["COMPLETING_REBALANCE", "DEAD", "EMPTY", "PREPARING_REBALANCE", "STABLE"]

CONSUMER_PROTOCOL_TYPE = "consumer"


class ClassicGroupMember:
    __slots__ = (
        "assignment",
        "client_host",
        "client_id",
        "instance_id",
        "is_new",
        "join_index",
        "member_id",
        "protocol_type",
        "protocols",
        "rebalance_timeout_ms",
        "session_timeout_ms",
        "sync_index",
    )

    def __init__(self, member_id: str, instance_id: str | None, client_id: str, client_host: str,
                 session_timeout_ms: int, rebalance_timeout_ms: int, protocol_type: str,
                 protocols: tuple[Protocol, ...], assignment: bytes = b"") -> None:
        self.member_id = member_id
        self.instance_id = instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.protocol_type = protocol_type
        self.protocols = protocols
        self.assignment = assignment
        #: The request index of a parked JoinGroup / SyncGroup (Kafka keeps the response future).
        self.join_index: int | None = None
        self.sync_index: int | None = None
        self.is_new = False

    def metadata(self, protocol: str | None) -> bytes:
        for p in self.protocols:
            if p.name == protocol:
                return p.metadata
        return b""

    def protocol_names(self) -> set[str]:
        return {p.name for p in self.protocols}


class ClassicGroup:
    def __init__(self, group_id: str, state_timestamp_ms: int | None) -> None:
        self.group_id = group_id
        self.state = EMPTY
        self.previous_state = DEAD
        self.state_timestamp_ms = state_timestamp_ms
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.generation_id = 0
        self.leader_id: str | None = None
        self.members: dict[str, ClassicGroupMember] = {}
        self.static_members: dict[str, str] = {}
        self.pending_join_members: set[str] = set()
        self.pending_sync_members: set[str] = set()
        self.new_member_added = False
        #: Topics of the members' consumer subscriptions; None when they cannot be known.
        self.subscribed_topics: frozenset[str] | None = None
        self._supported: Counter[str] = Counter()
        self._awaiting_join = 0

    # -- state ----------------------------------------------------------------------------------

    def transition_to(self, state: str, now_ms: int) -> None:
        if self.state not in GROUP_PREDECESSORS[state]:  # Kafka: IllegalStateException
            raise AssertionError(f"group {self.group_id} cannot go from {self.state} to {state}")
        self.previous_state = self.state
        self.state = state
        self.state_timestamp_ms = now_ms

    def is_in(self, *states: str) -> bool:
        return self.state in states

    # -- membership -----------------------------------------------------------------------------

    def add(self, member: ClassicGroupMember) -> None:
        if not self.members:
            self.protocol_type = member.protocol_type
        self.pending_join_members.discard(member.member_id)
        self.members[member.member_id] = member
        self._supported.update(member.protocol_names())
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        if member.join_index is not None:
            self._awaiting_join += 1
        if self.leader_id is None:
            self.leader_id = member.member_id

    def remove(self, member_id: str) -> None:
        """Drop a member (or a pending id); a removed leader passes to the oldest member left."""
        self.pending_join_members.discard(member_id)
        member = self.members.pop(member_id, None)
        if member is None:
            return
        self._forget(member)
        if member.instance_id is not None and self.static_members.get(member.instance_id) == member_id:
            del self.static_members[member.instance_id]
        self.pending_sync_members.discard(member_id)
        if self.leader_id == member_id:
            self.leader_id = next(iter(self.members), None)

    def _forget(self, member: ClassicGroupMember) -> None:
        self._supported.subtract(member.protocol_names())
        if member.join_index is not None:
            self._awaiting_join -= 1

    def replace_static(self, old_id: str, new: ClassicGroupMember) -> ClassicGroupMember:
        """A new member id takes over an instance id; the old id leaves no trace but in pending sync.

        Kafka's replaceStaticMember: the new member goes last in the member order, takes the
        leadership if the old one held it, and nothing else about the group changes.
        """
        old = self.members.pop(old_id)
        self._forget(old)
        self.members[new.member_id] = new
        self._supported.update(new.protocol_names())
        if self.leader_id == old_id:
            self.leader_id = new.member_id
        assert new.instance_id is not None
        self.static_members[new.instance_id] = new.member_id
        return old

    def update_member(self, member: ClassicGroupMember, protocols: tuple[Protocol, ...],
                      rebalance_timeout_ms: int, session_timeout_ms: int, join_index: int) -> int | None:
        """The member's new protocols and timeouts, its JoinGroup parked; the one it replaces, if any."""
        self._supported.subtract(member.protocol_names())
        member.protocols = protocols
        self._supported.update(member.protocol_names())
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        return self.park_join(member, join_index)

    def park_join(self, member: ClassicGroupMember, index: int) -> int | None:
        """Remember a JoinGroup to answer later; one parked earlier is dropped unanswered (returned)."""
        replaced = member.join_index
        if replaced is None:
            self._awaiting_join += 1
        member.join_index = index
        return replaced

    def unpark_join(self, member: ClassicGroupMember) -> int | None:
        index = member.join_index
        if index is not None:
            self._awaiting_join -= 1
            member.join_index = None
        return index

    def awaiting_join(self) -> int:
        return self._awaiting_join

    def all_members_joined(self) -> bool:
        return not self.pending_join_members and self._awaiting_join == len(self.members)

    def max_rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    # -- protocols ------------------------------------------------------------------------------

    def supports(self, protocol_type: str, names: list[str]) -> bool:
        if self.state == EMPTY:
            return protocol_type != "" and bool(names)
        if self.protocol_type != protocol_type:
            return False
        everyone = len(self.members)
        return any(self._supported.get(name, 0) == everyone for name in names)

    def select_protocol(self) -> str:
        """Each member votes for its favourite protocol that all support; most votes wins.

        Kafka breaks a tie by HashMap iteration order; groupspec by the smallest name
        (docs/divergences.md, classic_protocol_tie).
        """
        everyone = len(self.members)
        candidates = {name for name, n in self._supported.items() if n == everyone}
        votes: Counter[str] = Counter()
        for member in self.members.values():
            votes[next(p.name for p in member.protocols if p.name in candidates)] += 1
        best = max(votes.values())
        return min(name for name, n in votes.items() if n == best)

    def is_subscribed(self, topic: str) -> bool:
        if self.subscribed_topics is None:
            return self.protocol_type == CONSUMER_PROTOCOL_TYPE
        return topic in self.subscribed_topics

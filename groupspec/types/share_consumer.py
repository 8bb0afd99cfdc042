"""The share consumer's group membership, as the client sees it (KafkaShareConsumer's
``ShareMembershipManager`` and ``ShareHeartbeatRequestManager``; share_group_coordinator.md §6).

The client machine takes events (the application subscribes, polls, unsubscribes; time passes;
a heartbeat response or a transport failure arrives; the coordinator is found) and says what to
send: at most one ShareGroupHeartbeat in flight at a time. The spec
(``groupspec.spec.share_consumer``) and the implementation take the same events.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from groupspec.types.share_group import ShareGroupHeartbeat, ShareGroupHeartbeatResponse, TopicPartitions


class MemberState(Enum):
    UNSUBSCRIBED = "UNSUBSCRIBED"
    JOINING = "JOINING"
    RECONCILING = "RECONCILING"
    ACKNOWLEDGING = "ACKNOWLEDGING"
    STABLE = "STABLE"
    FENCED = "FENCED"
    PREPARE_LEAVING = "PREPARE_LEAVING"
    LEAVING = "LEAVING"
    FATAL = "FATAL"
    STALE = "STALE"


#: §6.1: the states each state may be entered from.
PREDECESSORS: dict[MemberState, frozenset[MemberState]] = {
    MemberState.STABLE: frozenset({MemberState.JOINING, MemberState.ACKNOWLEDGING,
                                   MemberState.RECONCILING}),
    MemberState.RECONCILING: frozenset({MemberState.STABLE, MemberState.JOINING, MemberState.ACKNOWLEDGING,
                                        MemberState.RECONCILING}),
    MemberState.ACKNOWLEDGING: frozenset({MemberState.RECONCILING}),
    MemberState.FATAL: frozenset({MemberState.JOINING, MemberState.STABLE, MemberState.RECONCILING,
                                  MemberState.ACKNOWLEDGING, MemberState.PREPARE_LEAVING, MemberState.LEAVING,
                                  MemberState.UNSUBSCRIBED}),
    MemberState.FENCED: frozenset({MemberState.JOINING, MemberState.STABLE, MemberState.RECONCILING,
                                   MemberState.ACKNOWLEDGING, MemberState.PREPARE_LEAVING,
                                   MemberState.LEAVING}),
    MemberState.JOINING: frozenset({MemberState.FENCED, MemberState.UNSUBSCRIBED, MemberState.STALE}),
    MemberState.PREPARE_LEAVING: frozenset({MemberState.JOINING, MemberState.STABLE, MemberState.RECONCILING,
                                            MemberState.ACKNOWLEDGING, MemberState.UNSUBSCRIBED}),
    MemberState.LEAVING: frozenset({MemberState.PREPARE_LEAVING}),
    MemberState.UNSUBSCRIBED: frozenset({MemberState.PREPARE_LEAVING, MemberState.LEAVING,
                                         MemberState.FENCED}),
    MemberState.STALE: frozenset({MemberState.LEAVING}),
}


@dataclass(frozen=True)
class ShareConsumerConfig:
    group_id: str = "g"
    #: Generated once per consumer (``Uuid.randomUuid()``); kept across fences and rejoins.
    member_id: str = "member"
    rack_id: str | None = None
    client_id: str = "client"
    max_poll_interval_ms: int = 300_000
    retry_backoff_ms: int = 100


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subscribe:
    topics: tuple[str, ...]


@dataclass(frozen=True)
class Unsubscribe:
    """``unsubscribe()`` or ``close()``: leave the group."""


@dataclass(frozen=True)
class Poll:
    """The application polls: joins after a subscribe, wakes the network thread, resets the poll timer."""


@dataclass(frozen=True)
class Tick:
    """Time passes to ``to_ms``; heartbeats that come due are sent."""

    to_ms: int


@dataclass(frozen=True)
class HeartbeatAnswered:
    """The in-flight heartbeat's response arrived."""

    response: ShareGroupHeartbeatResponse


@dataclass(frozen=True)
class HeartbeatFailed:
    """The in-flight heartbeat got no response: ``retriable`` (disconnect, timeout), or not."""

    retriable: bool = True


ShareConsumerEvent = Subscribe | Unsubscribe | Poll | Tick | HeartbeatAnswered | HeartbeatFailed


# ---------------------------------------------------------------------------------------------
# Outputs and the view
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClientOutput:
    #: The heartbeat sent in this step, if one was.
    sent: ShareGroupHeartbeat | None = None
    #: The partitions the application now consumes, when reconciliation changed them.
    assigned: tuple[TopicPartitions, ...] | None = None
    #: Why the consumer failed, when it entered FATAL in this step.
    fatal: str | None = None


@dataclass(frozen=True)
class ClientView:
    now_ms: int
    state: MemberState
    member_epoch: int
    assignment: tuple[TopicPartitions, ...]
    target: tuple[TopicPartitions, ...] | None
    in_flight: bool
    coordinator_known: bool
    #: When the next heartbeat goes out if nothing else happens (None: none scheduled).
    next_heartbeat_ms: int | None
    heartbeat_interval_ms: int

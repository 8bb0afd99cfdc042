"""The share consumer's membership, as rules: when it heartbeats, what it sends, what it does
with each answer (share_group_coordinator.md §6; KafkaShareConsumer's ``ShareMembershipManager``,
``ShareHeartbeatRequestManager`` and their abstract bases).

Theory of operation
-------------------
One step function over client events. The member joins with epoch 0 on the first poll after a
subscribe, takes the epoch and assignment each answer gives, and applies a new assignment on
the next poll (RECONCILING -> ACKNOWLEDGING), telling the coordinator at once with its next
heartbeat (ACKNOWLEDGING -> STABLE). Fencing errors make it rejoin with the same member id;
most other errors are fatal. At most one heartbeat is in flight.

* A heartbeat is sent at once in JOINING, ACKNOWLEDGING and LEAVING, otherwise when the interval
  the coordinator returned has passed; never without a known coordinator, in flight, or in
  UNSUBSCRIBED, FENCED, FATAL and STALE. An error or failure resets the interval timer, so the
  retry goes as soon as the coordinator is known again and any backoff (``retry_backoff_ms``,
  after a transport failure or COORDINATOR_LOAD_IN_PROGRESS) has passed.
* A request always carries group, member and epoch; the rack only in the first request after a
  reset; the topics when joining or when the subscription differs from what was last sent.
  Any error or failure resets what was sent, so the next request is full.
* Every state change obeys Kafka's table of allowed predecessors (``PREDECESSORS``).

Simplifications: rediscovering the coordinator takes ``retry_backoff_ms``; a
TOPIC_AUTHORIZATION_FAILED answer backs off and goes on (Kafka also reports it to the
application); acknowledgement flushing on close is not modelled.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import icontract

from groupspec.types.errors import Errors
from groupspec.types.share_consumer import (
    PREDECESSORS,
    ClientOutput,
    ClientView,
    HeartbeatAnswered,
    HeartbeatFailed,
    MemberState,
    Poll,
    ShareConsumerConfig,
    ShareConsumerEvent,
    Subscribe,
    Tick,
    Unsubscribe,
)
from groupspec.types.share_group import ShareGroupHeartbeat, ShareGroupHeartbeatResponse, TopicPartitions

S = MemberState
IN_GROUP = frozenset({S.JOINING, S.RECONCILING, S.ACKNOWLEDGING, S.STABLE})
NO_HEARTBEAT = frozenset({S.UNSUBSCRIBED, S.FENCED, S.FATAL, S.STALE})
URGENT = frozenset({S.JOINING, S.ACKNOWLEDGING, S.LEAVING})
FENCING = frozenset({Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID})
REDISCOVER = frozenset({Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE})


@dataclass
class State:
    config: ShareConsumerConfig
    now: int = 0
    state: MemberState = S.UNSUBSCRIBED
    epoch: int = 0
    subscription: frozenset[str] = frozenset()
    assignment: tuple[TopicPartitions, ...] = ()
    target: tuple[TopicPartitions, ...] | None = None
    interval: int = 0
    #: The periodic heartbeat is due at this time.
    due: int = 0
    #: No heartbeat before this time (a failure's backoff).
    backoff_until: int = 0
    in_flight: bool = False
    coordinator_known: bool = True
    rediscover_at: int = 0
    sent_topics: tuple[str, ...] | None = None
    rack_sent: bool = False
    last_poll: int = 0
    #: The leave in progress was caused by the poll timer: end in STALE, not UNSUBSCRIBED.
    leaving_stale: bool = False
    transitions: list[tuple[MemberState, MemberState]] = field(default_factory=list)


class _Step:
    def __init__(self, s: State) -> None:
        self.s = s
        self.sent: ShareGroupHeartbeat | None = None
        self.assigned: tuple[TopicPartitions, ...] | None = None
        self.fatal: str | None = None

    def go(self, to: MemberState) -> None:
        s = self.s
        if to is not s.state:
            s.transitions.append((s.state, to))
        s.state = to

    def set_assignment(self, assignment: tuple[TopicPartitions, ...]) -> None:
        if assignment != self.s.assignment:
            self.s.assignment = assignment
            self.assigned = assignment


def _transitions_legal(s: State) -> bool:
    return all(before in PREDECESSORS[after] for before, after in s.transitions)


@icontract.ensure(lambda result: _transitions_legal(result))
def initial_state(config: ShareConsumerConfig = ShareConsumerConfig(), now_ms: int = 0) -> State:  # noqa: B008
    return State(config, now_ms, last_poll=now_ms)


@icontract.ensure(lambda result: _transitions_legal(result[0]))
@icontract.ensure(lambda result: result[0].state is not S.FENCED, "FENCED is left within the step")
@icontract.ensure(lambda state, result: result[0].now >= state.now)
def step(state: State, event: ShareConsumerEvent) -> tuple[State, ClientOutput]:
    st = _Step(copy.deepcopy(state))
    st.s.transitions = []
    match event:
        case Subscribe():
            _subscribe(st, event.topics)
        case Unsubscribe():
            st.s.subscription = frozenset()
            _leave(st, stale=False)
        case Poll():
            _poll(st)
        case Tick():
            _tick(st, event.to_ms)
        case HeartbeatAnswered():
            st.s.in_flight = False
            _answered(st, event.response)
        case HeartbeatFailed():
            st.s.in_flight = False
            _failed(st, event.retriable)
    _maybe_send(st)
    return st.s, ClientOutput(st.sent, st.assigned, st.fatal)


def _subscribe(st: _Step, topics: tuple[str, ...]) -> None:
    if not topics:
        st.s.subscription = frozenset()
        _leave(st, stale=False)
        return
    st.s.subscription = frozenset(topics)


def _join(st: _Step) -> None:
    s = st.s
    st.go(S.JOINING)
    s.epoch = 0
    s.target = None
    s.sent_topics, s.rack_sent = None, False


def _poll(st: _Step) -> None:
    s = st.s
    s.last_poll = s.now
    if s.state in (S.UNSUBSCRIBED, S.STALE) and s.subscription:
        _join(st)
    elif s.state is S.RECONCILING and s.target is not None:
        st.set_assignment(s.target)
        st.go(S.ACKNOWLEDGING)


def _leave(st: _Step, *, stale: bool) -> None:
    s = st.s
    if s.state not in IN_GROUP:
        return
    st.go(S.PREPARE_LEAVING)
    st.set_assignment(())
    s.target = None
    st.go(S.LEAVING)
    s.epoch = -1
    s.leaving_stale = stale


def _tick(st: _Step, to_ms: int) -> None:
    s = st.s
    s.now = max(s.now, to_ms)
    if not s.coordinator_known and s.now >= s.rediscover_at:
        s.coordinator_known = True
    if s.state in IN_GROUP and s.now - s.last_poll >= s.config.max_poll_interval_ms:
        _leave(st, stale=True)


def _reset_sent(s: State) -> None:
    s.sent_topics, s.rack_sent = None, False


def _answered(st: _Step, r: ShareGroupHeartbeatResponse) -> None:
    s = st.s
    if r.error is not Errors.NONE:
        _error(st, r.error)
        return
    if s.state is S.LEAVING or s.state in NO_HEARTBEAT or r.member_epoch < 0:
        return  # a completed leave, or an answer the member no longer waits for
    s.epoch = r.member_epoch
    s.interval = r.heartbeat_interval_ms
    s.due = s.now + s.interval
    if r.assignment is not None:
        s.target = r.assignment
    if s.target is None:
        return
    if s.target == s.assignment:
        if s.state in (S.JOINING, S.RECONCILING):
            st.go(S.STABLE)
    elif s.state in (S.STABLE, S.JOINING, S.ACKNOWLEDGING, S.RECONCILING):
        st.go(S.RECONCILING)


def _error(st: _Step, error: Errors) -> None:
    s = st.s
    _reset_sent(s)
    s.due = s.now  # the heartbeat timer is reset: the retry goes as soon as it may
    if error in REDISCOVER:
        s.coordinator_known = False
        s.rediscover_at = s.now + s.config.retry_backoff_ms
    elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.TOPIC_AUTHORIZATION_FAILED):
        s.backoff_until = s.now + s.config.retry_backoff_ms
    elif error in FENCING:
        if s.state in (S.PREPARE_LEAVING, S.LEAVING):
            st.go(S.UNSUBSCRIBED)
        elif s.state in IN_GROUP:
            st.go(S.FENCED)
            st.set_assignment(())
            s.target = None
            _join(st)
    else:
        _fatal(st, f"{error.name} from ShareGroupHeartbeat")


def _failed(st: _Step, retriable: bool) -> None:
    s = st.s
    _reset_sent(s)
    s.due = s.now
    if retriable:
        s.coordinator_known = False
        s.rediscover_at = s.now + s.config.retry_backoff_ms
        s.backoff_until = s.now + s.config.retry_backoff_ms
    else:
        _fatal(st, "ShareGroupHeartbeat failed and cannot be retried")


def _fatal(st: _Step, why: str) -> None:
    if st.s.state in PREDECESSORS[S.FATAL]:
        st.go(S.FATAL)
        st.fatal = why


def _maybe_send(st: _Step) -> None:
    s = st.s
    if s.in_flight:
        return
    if not s.coordinator_known:
        if s.state is S.LEAVING:
            st.go(S.STALE if s.leaving_stale else S.UNSUBSCRIBED)
        return
    if s.state in NO_HEARTBEAT or s.state is S.PREPARE_LEAVING:
        return
    if s.now < s.backoff_until or (s.state not in URGENT and s.now < s.due):
        return
    topics = tuple(sorted(s.subscription))
    send_topics = s.state is S.JOINING or topics != s.sent_topics
    c = s.config
    st.sent = ShareGroupHeartbeat(c.group_id, c.member_id, -1 if s.state is S.LEAVING else s.epoch,
                                  rack_id=None if s.rack_sent else c.rack_id,
                                  subscribed_topic_names=topics if send_topics and s.state is not S.LEAVING
                                  else None,
                                  client_id=c.client_id)
    s.in_flight = True
    s.rack_sent = True
    if send_topics:
        s.sent_topics = topics
    s.due = s.now + s.interval
    if s.state is S.ACKNOWLEDGING:
        st.go(S.STABLE if s.target == s.assignment else S.RECONCILING)
    elif s.state is S.LEAVING:
        st.go(S.STALE if s.leaving_stale else S.UNSUBSCRIBED)


def view(s: State) -> ClientView:
    next_due: int | None = None
    if not s.in_flight and s.coordinator_known and s.state not in NO_HEARTBEAT:
        next_due = max(s.backoff_until, s.now if s.state in URGENT else s.due)
    return ClientView(s.now, s.state, s.epoch, s.assignment, s.target, s.in_flight, s.coordinator_known,
                      next_due, s.interval)

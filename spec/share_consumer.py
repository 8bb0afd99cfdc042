"""The share consumer's membership, as rules: when it heartbeats, what it sends, what it does
with each answer (share_group_coordinator.md §6; KafkaShareConsumer's ``ShareMembershipManager``,
``ShareHeartbeatRequestManager`` and their abstract bases).

Theory of operation
-------------------
One step function over client events. The member joins with epoch 0 on the first poll after a
subscribe and takes the epoch and assignment each answer gives. A target that differs from the
current assignment is applied by the network thread in the pass that handles the answer
(``ShareMembershipManager.poll`` reconciles on every pass), so the partitions change with the
answer (RECONCILING -> ACKNOWLEDGING); the acknowledging heartbeat goes when the thread next
wakes (ACKNOWLEDGING -> STABLE). A member that has just joined holds no assignment at all
(Kafka's ``LocalAssignment.NONE``), so its first target, even an empty one, is reconciled and
acknowledged like any other. Fencing errors make it rejoin with the same member id; most other
errors are fatal. After every event the member decides whether to send, in the order of Kafka's
``AbstractHeartbeatRequestManager.poll`` (seed 000 §5-1 quotes it), then reconciles:

* The network thread sleeps after reconciling: every event but a Tick wakes it, and so does a
  Tick reaching ``ack_wake`` (the least of ``ConsumerNetworkThread.MAX_POLL_TIMEOUT_MS``, 5 s,
  and the heartbeat timer's wait, counted from the reconciliation); until then the
  acknowledgement waits and a Tick does nothing. Every other Tick is one wake of the thread at
  its ``to_ms`` (a Tick past the wake sends at ``to_ms`` what Kafka sends at the wake).
* Nothing without a known coordinator or in UNSUBSCRIBED, FENCED, FATAL and STALE; a leave that
  cannot be sent is complete (UNSUBSCRIBED).
* The poll timer (``max_poll_interval_ms`` since the last poll) is read only then: expired in
  the group, the member sends its leave at once, whatever is in flight, and is STALE; the leave's
  answer is ignored, and the in-flight flag, the backoff and the sent fields start over.
* A leave goes at once, in flight or not; a join or an acknowledgement at once unless a request
  is in flight (neither waits for the interval or a backoff); any other heartbeat when nothing is
  in flight, the interval has passed since the last send, and the backoff has passed.
* Every answer without an error sets the interval, even one the member ignores; only a changed
  interval restarts the timer, from the answer. Every answer and error starts a backoff of
  ``retry_backoff_ms`` (``RequestState``); a rediscovery or a fencing clears it. An error or
  failure also drops the interval timer to zero. Answers arrive in the order of the requests.
* A request always carries group, member and epoch; the rack only in the first request after a
  reset; the topics when joining or when the subscription differs from what was last sent, a
  leave included (``HeartbeatState.buildRequestData``: ``[]`` after an unsubscribe).
  Any error or failure resets what was sent, so the next request is full.
* Every state change obeys Kafka's table of allowed predecessors (``PREDECESSORS``).

The rules are the rows of ``TABLE`` ((member state, event type) -> rule; docs/machines/share_consumer.md
renders it); the state is frozen and each rule replaces it (``spec/kernel.py``).

Simplifications: every backoff is ``retry_backoff_ms``, where Kafka's grows exponentially with
each failed attempt up to ``retry.backoff.max.ms`` and adds 20% jitter; rediscovering the
coordinator takes ``retry_backoff_ms`` (a timeout that keeps the coordinator is not told from a
disconnect); a TOPIC_AUTHORIZATION_FAILED answer backs off and goes on (Kafka also reports it to
the application); acknowledgement flushing on close is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import icontract

from groupspec.spec import kernel
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
#: ConsumerNetworkThread.MAX_POLL_TIMEOUT_MS: the longest the network thread sleeps.
WAKE_CAP_MS = 5_000
Assignment = tuple[TopicPartitions, ...]


@dataclass(frozen=True)
class State:
    config: ShareConsumerConfig
    now: int = 0
    state: MemberState = S.UNSUBSCRIBED
    epoch: int = 0
    subscription: frozenset[str] = frozenset()
    assignment: Assignment = ()
    #: No assignment reconciled since the member joined (Kafka's LocalAssignment.NONE): the first
    #: target, even one equal to ``assignment``, is reconciled and acknowledged.
    unreconciled: bool = True
    target: Assignment | None = None
    #: The network thread, asleep after a reconciliation, wakes by itself at this time.
    ack_wake: int = 0
    interval: int = 0
    #: The periodic heartbeat is due at this time.
    due: int = 0
    #: No periodic heartbeat before this time: the backoff after the last answer or failure.
    backoff_until: int = 0
    #: Kafka's in-flight flag: set by a send, cleared by an answer, a failure or a reset.
    in_flight: bool = False
    #: The requests sent and not yet answered, oldest first; True for one whose answer is ignored
    #: (the leave sent when the poll timer expires). Answers arrive in send order.
    pending: tuple[bool, ...] = ()
    coordinator_known: bool = True
    rediscover_at: int = 0
    sent_topics: tuple[str, ...] | None = None
    rack_sent: bool = False
    last_poll: int = 0
    #: The leave in progress was caused by the poll timer: end in STALE, not UNSUBSCRIBED.
    leaving_stale: bool = False
    #: The state changes of the last step, for the contract on PREDECESSORS.
    transitions: tuple[tuple[MemberState, MemberState], ...] = ()


class _Step(kernel.Step[State]):
    sent: ShareGroupHeartbeat | None = None
    assigned: Assignment | None = None
    fatal: str | None = None

    def go(self, to: MemberState) -> None:
        s = self.state
        if to is not s.state:
            self.set(state=to, transitions=(*s.transitions, (s.state, to)))

    def assign(self, assignment: Assignment) -> None:
        if assignment != self.state.assignment:
            self.set(assignment=assignment)
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
    st = _Step(replace(state, transitions=()))
    TABLE.rule(state.state, event)(st, event)
    _maybe_send(st, woken=not isinstance(event, Tick))
    _reconcile(st)
    return st.state, ClientOutput(st.sent, st.assigned, st.fatal)


# ---------------------------------------------------------------------------------------------
# The application thread: subscribe, unsubscribe, poll, the poll timer
# ---------------------------------------------------------------------------------------------


def _subscribe(st: _Step, event: Subscribe) -> None:
    """A new subscription goes with the next heartbeat; an empty one leaves the group."""
    st.set(subscription=frozenset(event.topics))
    if not event.topics:
        _leave(st, stale=False)


def _unsubscribe(st: _Step, event: Unsubscribe) -> None:
    """Leave the group (a member not in it has nothing to do)."""
    st.set(subscription=frozenset())
    _leave(st, stale=False)


def _poll(st: _Step, event: Poll) -> None:
    """A poll restarts the poll timer (max.poll.interval.ms)."""
    st.set(last_poll=st.state.now)


def _poll_to_join(st: _Step, event: Poll) -> None:
    """The first poll after a subscribe (or after the poll timer made the member stale) joins."""
    _poll(st, event)
    if st.state.subscription:
        _join(st)


def _tick(st: _Step, event: Tick) -> None:
    """Time passes: the coordinator may be found again (the poll timer is read before a send)."""
    s = st.set(now=max(st.state.now, event.to_ms))
    if not s.coordinator_known and s.now >= s.rediscover_at:
        st.set(coordinator_known=True)


def _join(st: _Step) -> None:
    st.go(S.JOINING)
    st.set(epoch=0, target=None, unreconciled=True, sent_topics=None, rack_sent=False)


def _leave(st: _Step, *, stale: bool) -> None:
    if st.state.state not in IN_GROUP:
        return
    st.go(S.PREPARE_LEAVING)
    st.assign(())
    st.go(S.LEAVING)
    st.set(target=None, epoch=-1, leaving_stale=stale)


# ---------------------------------------------------------------------------------------------
# The network thread: answers and failures
# ---------------------------------------------------------------------------------------------


def _answer_counts(st: _Step) -> bool:
    """Take the oldest request off the pending list: False if its answer is to be ignored."""
    s = st.state
    ignored = s.pending[:1] == (True,)
    st.set(pending=s.pending[1:])
    return not ignored


def _answered(st: _Step, event: HeartbeatAnswered) -> None:
    """Take the epoch, interval and assignment the coordinator gave, or handle its error."""
    if not _answer_counts(st):
        return
    st.set(in_flight=False)
    r: ShareGroupHeartbeatResponse = event.response
    if r.error is not Errors.NONE:
        _error(st, r.error)
        return
    # A success also holds the next periodic heartbeat back for one backoff.
    s = st.set(backoff_until=st.state.now + st.state.config.retry_backoff_ms)
    if r.heartbeat_interval_ms != s.interval:
        # Every answer without an error sets the interval, even one the member then ignores; the
        # timer restarts only when the interval changed, else it runs on from the send.
        s = st.set(interval=r.heartbeat_interval_ms, due=s.now + r.heartbeat_interval_ms)
    if s.state is S.LEAVING or s.state in NO_HEARTBEAT or r.member_epoch < 0:
        return  # a completed leave, or an answer the member no longer waits for
    target = s.target if r.assignment is None else r.assignment
    s = st.set(epoch=r.member_epoch, target=target)
    if s.target is not None and (s.unreconciled or s.target != s.assignment):
        # A new target (from JOINING, STABLE or ACKNOWLEDGING), reconciled at the end of the step.
        # Kafka's way back to STABLE for a target equal to the assignment held is never taken: a
        # joining member holds none yet, and a RECONCILING one reconciles in the answer's pass.
        st.go(S.RECONCILING)


def _error(st: _Step, error: Errors) -> None:
    # Any error resets what was sent (the next request is full) and the heartbeat timer, and
    # backs off; a rediscovery or a fencing clears the backoff again (RequestState.reset).
    s = st.set(sent_topics=None, rack_sent=False, due=st.state.now,
               backoff_until=st.state.now + st.state.config.retry_backoff_ms)
    if error in REDISCOVER:
        st.set(coordinator_known=False, rediscover_at=s.now + s.config.retry_backoff_ms, backoff_until=0)
    elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.TOPIC_AUTHORIZATION_FAILED):
        return  # retried after the backoff, the member state unchanged
    elif error in FENCING:
        st.set(backoff_until=0)
        if s.state in (S.PREPARE_LEAVING, S.LEAVING):
            st.go(S.UNSUBSCRIBED)
        elif s.state in IN_GROUP:  # rejoin with the same member id
            st.go(S.FENCED)
            st.assign(())
            st.set(target=None)
            _join(st)
    else:
        _fatal(st, f"{error.name} from ShareGroupHeartbeat")


def _failed(st: _Step, event: HeartbeatFailed) -> None:
    """A transport failure: back off and rediscover the coordinator, or give up if not retriable."""
    if not _answer_counts(st):
        return
    s = st.set(in_flight=False, sent_topics=None, rack_sent=False, due=st.state.now)
    if event.retriable:
        back = s.now + s.config.retry_backoff_ms
        st.set(coordinator_known=False, rediscover_at=back, backoff_until=back)
    else:
        _fatal(st, "ShareGroupHeartbeat failed and cannot be retried")


def _fatal(st: _Step, why: str) -> None:
    """A fatal error releases what the member holds and drops any target still to reconcile
    (Kafka's clearAssignment), unless a leave was under way, which had released it already."""
    before = st.state.state
    if before in PREDECESSORS[S.FATAL]:
        st.go(S.FATAL)
        st.fatal = why
        if before not in (S.PREPARE_LEAVING, S.LEAVING):
            st.assign(())
            st.set(unreconciled=True, target=None)


# ---------------------------------------------------------------------------------------------
# After every event: send the heartbeat if one is due
# ---------------------------------------------------------------------------------------------


def _reconcile(st: _Step) -> None:
    """The network thread applies a new target at once (ShareMembershipManager.poll ->
    maybeReconcile) and sleeps: the acknowledgement goes at its next wake."""
    s = st.state
    if s.state is not S.RECONCILING or s.target is None:
        return
    st.assign(s.target)
    st.set(unreconciled=False)
    st.go(S.ACKNOWLEDGING)
    # The heartbeat manager polled before the reconciliation in this pass: its wait is the
    # heartbeat timer's, or the backoff's once that timer has run out.
    wait = s.due - s.now if s.due > s.now else max(0, s.backoff_until - s.now)
    st.set(ack_wake=s.now + min(WAKE_CAP_MS, wait))


def _maybe_send(st: _Step, *, woken: bool) -> None:
    s = st.state
    if s.state is S.ACKNOWLEDGING and not woken and s.now < s.ack_wake:
        return  # the network thread sleeps until ack_wake
    if not s.coordinator_known or s.state in NO_HEARTBEAT:
        if s.state is S.LEAVING:  # a leave that cannot be sent is complete
            st.go(S.UNSUBSCRIBED)
        return
    if s.state in IN_GROUP and s.now - s.last_poll >= s.config.max_poll_interval_ms:
        # The poll timer expired: the leave goes at once whatever is in flight, its answer is
        # ignored, and the request state and the sent fields start over.
        _leave(st, stale=True)
        _send(st, ignored=True)
        st.set(in_flight=False, backoff_until=0, sent_topics=None, rack_sent=False)
        return
    # LEAVING, JOINING and ACKNOWLEDGING do not wait for the interval or a backoff; only
    # LEAVING (the share consumer leaves right away) does not wait for an answer either.
    now = s.state is S.LEAVING or (s.state in URGENT and not s.in_flight)
    due = not s.in_flight and s.now >= s.backoff_until and s.now >= s.due
    if now or due:
        _send(st, ignored=False)


def _send(st: _Step, *, ignored: bool) -> None:
    s = st.state
    topics = tuple(sorted(s.subscription))
    send_topics = s.state is S.JOINING or topics != s.sent_topics
    c = s.config
    st.sent = ShareGroupHeartbeat(c.group_id, c.member_id, -1 if s.state is S.LEAVING else s.epoch,
                                  rack_id=None if s.rack_sent else c.rack_id,
                                  subscribed_topic_names=topics if send_topics else None,
                                  client_id=c.client_id)
    st.set(in_flight=True, rack_sent=True, due=s.now + s.interval, pending=(*s.pending, ignored),
           sent_topics=topics if send_topics else s.sent_topics)
    if s.state is S.ACKNOWLEDGING:  # the target is reconciled already: it is the assignment
        st.go(S.STABLE)
    elif s.state is S.LEAVING:
        st.go(S.STALE if s.leaving_stale else S.UNSUBSCRIBED)


TABLE = kernel.Table("share_consumer", {
    **kernel.rows(_subscribe, Subscribe),
    **kernel.rows(_unsubscribe, Unsubscribe),
    **kernel.rows(_poll_to_join, Poll, states=(S.UNSUBSCRIBED, S.STALE)),
    **kernel.rows(_poll, Poll),
    **kernel.rows(_tick, Tick),
    **kernel.rows(_answered, HeartbeatAnswered),
    **kernel.rows(_failed, HeartbeatFailed),
})


def view(s: State) -> ClientView:
    # After a step every heartbeat that could go has gone: what is left waits for an answer, the
    # coordinator, or the interval and the backoff.
    next_due: int | None = None
    if not s.in_flight and s.coordinator_known and s.state not in NO_HEARTBEAT:
        next_due = max(s.backoff_until, s.due)
    return ClientView(s.now, s.state, s.epoch, s.assignment, s.target, s.in_flight, s.coordinator_known,
                      next_due, s.interval)

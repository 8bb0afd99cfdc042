"""The classic consumer's client side, as rules: what it sends while joining, syncing and
heartbeating, which listener callbacks it makes and when, and how it commits and resets offsets
(seeds 003 and 004; Kafka's AbstractCoordinator, ConsumerCoordinator and SubscriptionState).

Theory of operation
-------------------
One step function over client events; the member state is AbstractCoordinator's four.

* A consumer either subscribes (it joins the group) or assigns itself partitions (it never
  joins); mixing the two is the application's mistake (IllegalStateException).
* A changed subscription asks for a rejoin. The join starts in a poll from UNJOINED or STABLE:
  first the partitions are given up (the join-prepare step), then JoinGroup goes with the
  subscription (topics, owned partitions, generation). Giving up depends on the generation: a
  member whose generation or member id was reset by an error has *lost* what it owned (nothing
  to revoke politely: others may hold them already); otherwise the eager protocol revokes all it
  owns (the callback runs even with nothing owned), the cooperative one only partitions of
  topics no longer subscribed (and calls back only when there are some).
* JoinGroup's answer makes the member the leader (its id is the answer's leader) or a follower;
  both send SyncGroup, only the leader with assignments. The leader computes them: it runs the
  assignor the coordinator chose (one it offered, else IllegalStateException) on the members'
  subscriptions and the topics its last metadata refresh gave (spec/classic_assignors.py); under
  the cooperative protocol an assignor other than cooperative-sticky must not hand a partition
  straight from one owner to another (IllegalStateException). A failed assignment sends no
  SyncGroup and rejoins at the next poll. A returning static leader told to skip the assignment
  sends none; an answer carrying ``leader_assignments`` has them sent as they are. A protocol
  the member did not offer is refused before anything is assigned (IllegalStateException).
  Errors that Kafka's join loop retries at once (UNKNOWN_MEMBER_ID, MEMBER_ID_REQUIRED,
  REBALANCE_IN_PROGRESS) resend JoinGroup in the same step after resetting what the error says;
  the join-prepare step is not run again. A retriable error makes the next poll resend it. Any
  other error is thrown from the poll as its own exception class (KafkaException where the
  handler has no case for it, ILLEGAL_GENERATION too: JoinGroup carries no generation), and
  nothing sticks: the next poll joins again, without another join-prepare.
* Every JoinGroup says why it goes: "" at first and after a SyncGroup that succeeded, else the
  short reason of the last request for a rejoin (a trigger found while one is already asked for
  keeps the earlier reason). The subscription shown is the first protocol's; cooperative-sticky
  puts in it the generation it was last assigned in.
* SyncGroup's answer completes the join. An assignment naming a topic the member no longer
  subscribes to was made for an older subscription: the member takes nothing, calls nothing
  back and rejoins at the next poll. Otherwise eager assigns everything it got; cooperative first
  revokes what it owned and did not get (and then needs a second rebalance), then calls back
  with only the added partitions (always, even none). The join loop then goes round again in
  the same step: a rejoin that is due (a revocation, an older subscription's assignment, a
  subscription changed meanwhile) gives partitions up and sends JoinGroup at once. A follower
  that finds the chosen protocol is not one it offered takes nothing and throws
  IllegalStateException, then again at every poll until its generation is lost.
* The heartbeat thread runs on the injected clock after every event, at the event's time (a
  ``Tick`` moves the clock with nothing else happening). It acts only once the member has a
  JoinGroup answer (COMPLETING_REBALANCE and STABLE); that answer restarts its three timers. In
  order it looks at: the session (no successful heartbeat answer for the session timeout: the
  coordinator is taken for dead and found again at once, and what was in flight to it is lost),
  the poll timeout (no poll for ``rebalance_timeout_ms``, Kafka's max.poll.interval.ms: a
  dynamic member sends LeaveGroup; static or dynamic, the generation and member id are reset, so
  the next poll rejoins and loses the partitions), and the heartbeat interval (a heartbeat goes
  whatever is in flight, and the interval restarts). A failed heartbeat moves the next one to a
  doubling backoff instead. Answers come in the order heartbeats went: REBALANCE_IN_PROGRESS in
  STABLE asks for a rejoin (partitions revoked normally); ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID
  and FENCED_INSTANCE_ID reset the generation (the member id too, except for
  ILLEGAL_GENERATION), so the next join loses the partitions, but only when the heartbeat went
  with the generation the member still has (an error about an older one is ignored);
  FENCED_INSTANCE_ID also fails the heartbeat thread, which the next poll throws before it does
  anything else. A request unanswered for the request timeout (a JoinGroup: the rebalance
  timeout and 5 s more) closes the connection, with the same losses as a dead coordinator; so
  does an answer saying the coordinator is gone (on a heartbeat, JoinGroup, SyncGroup,
  OffsetCommit or OffsetFetch).
* Unsubscribe gives up the partitions (lost if the generation was reset or a rebalance is under
  way, revoked otherwise), sends LeaveGroup if the member had joined and is dynamic (a static
  member, one with a group instance id, stays in the group until its session times out), and
  forgets everything. A static member's requests carry its instance id; a self-assigned
  consumer's commits carry none.
* Beyond an asked-for rejoin, a poll rejoins when the subscription differs from the one the
  last JoinGroup went with (a changed subscribe() raises no flag of its own), or when the
  member that last assigned sees the partitions of the topics it watches change in a newer
  metadata refresh (only the leader watches: it alone assigned from what it knew). A pattern
  subscription is the metadata's topics the pattern matches, matched again at each refresh.
* A commit from an assigning consumer carries generation -1 and no member id; a subscribed one
  commits with its generation only when STABLE (RebalanceInProgressException while rebalancing,
  CommitFailedException when not in the group). Commits are answered in the order sent; an
  error is judged against the generation the commit went with (a member that joined a newer
  one is not reset by an old commit's fencing). commitSync's caller gets the outcome when the
  answer comes; commitAsync's callbacks, and the auto-commit's, run at the next call, in order.
* Auto-commit commits the positions on its interval, and before a rejoin gives partitions up,
  holding the rejoin until the answer (at most a rebalance timeout); close() commits them the
  same way before it gives up the partitions and leaves as its membership operation says.
* An OffsetFetch answer with no committed offset for a partition resets it to earliest or
  latest, or fails with NoOffsetForPartitionException when the reset policy is ``none``. A
  group error that may pass fails the fetch quietly: the next poll fetches again.

The rules are the rows of ``TABLE`` ((member state, event type) -> rule); the docs' table is
rendered from it (docs/machines/classic_consumer.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum

import icontract

from groupspec.spec import classic_assignors, kernel
from groupspec.types.classic_assignors import (
    ASSIGNORS,
    COOPERATIVE_STICKY,
    ClassicAssignorInput,
    ClassicMember,
    check_input,
)
from groupspec.types.classic_consumer import (
    APPLICATION_CALLS,
    EXCEPTION_CLASSES,
    NO_GENERATION,
    NOT_SUBSCRIBED,
    PREDECESSORS,
    RETRIABLE_ERRORS,
    TP,
    UNKNOWN_MEMBER_ID,
    Assign,
    Callback,
    Close,
    CommitAsync,
    CommitCallback,
    CommitSync,
    Config,
    Consumed,
    Event,
    HeartbeatAnswered,
    JoinAnswered,
    JoinedMember,
    MemberState,
    Metadata,
    Mode,
    OffsetCommitAnswered,
    OffsetFetchAnswered,
    Output,
    Poll,
    Raised,
    RebalanceProtocol,
    ResetOffset,
    Sent,
    Subscribe,
    SubscribePattern,
    SyncAnswered,
    Tick,
    TopicMetadata,
    Unsubscribe,
    View,
)
from groupspec.types.classic_group import (
    CommitPartition,
    CommitTopic,
    Heartbeat,
    JoinGroup,
    LeaveGroup,
    MemberIdentity,
    OffsetCommit,
    OffsetCommitResponse,
    Protocol,
    SyncGroup,
)
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

S = MemberState
#: JoinGroup has no generation, so Kafka's join handler has no ILLEGAL_GENERATION case: that
#: error is an unexpected one there (AbstractCoordinator.JoinGroupResponseHandler).
RETRY_JOIN = frozenset({Errors.UNKNOWN_MEMBER_ID, Errors.MEMBER_ID_REQUIRED, Errors.REBALANCE_IN_PROGRESS})
COORDINATOR = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR})
#: The join errors raised as their own class (Errors#exception); any other is an unexpected one.
JOIN_RAISES_OWN = frozenset(EXCEPTION_CLASSES) - {Errors.ILLEGAL_GENERATION}
SYNC_RAISES_OWN = frozenset({Errors.GROUP_AUTHORIZATION_FAILED, Errors.REBALANCE_IN_PROGRESS,
                             Errors.FENCED_INSTANCE_ID, Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION,
                             Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR})
#: Join errors the join loop waits out without raising: the next poll sends JoinGroup again.
RETRIABLE_JOIN = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
                            Errors.COORDINATOR_LOAD_IN_PROGRESS})
LEAVING = "consumer pro-actively leaving the group"
#: A SyncGroup answer reaching a member reset meanwhile, that the join loop retries in the same
#: poll (a success stands for ILLEGAL_GENERATION there).
SYNC_AGAIN_AT_ONCE = frozenset({Errors.NONE, Errors.REBALANCE_IN_PROGRESS, Errors.UNKNOWN_MEMBER_ID,
                                Errors.ILLEGAL_GENERATION})
#: The LeaveGroup reason of a member whose application stopped polling (handlePollTimeoutExpiry).
POLL_TIMEOUT = "consumer poll timeout has expired."
FENCING = frozenset({Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID})


Offsets = tuple[tuple[TP, int], ...]
#: Each watched topic's partitions, each as the racks of its replicas (see _partitions_now).
Snapshot = tuple[tuple[str, tuple[frozenset[str], ...]], ...]


class Kind(Enum):
    """Who asked for a commit: commitSync, commitAsync, the auto-commit timer, the auto-commit
    before a rejoin (PREPARE), or close()."""

    SYNC = "sync"
    ASYNC = "async"
    AUTO = "auto"
    PREPARE = "prepare"
    CLOSE = "close"


class Settling(Enum):
    """Where the commit a rejoin waits for stands: sent, failed retriably (the next poll but one
    sends another), or done (succeeded or failed for good)."""

    PENDING = "pending"
    RETRY = "retry"
    DONE = "done"


@dataclass(frozen=True)
class PendingCommit:
    """An OffsetCommit in flight: who asked, and the generation and member id it went with (an
    error is judged against them)."""

    kind: Kind
    offsets: Offsets
    generation: int
    member_id: str
    sent_ms: int = 0


@dataclass(frozen=True)
class Completed:
    """A finished commit whose callback has not run yet; ``retriable``: the failure may pass."""

    kind: Kind
    offsets: Offsets
    error: str | None
    retriable: bool


@dataclass(frozen=True)
class State:
    config: Config
    state: MemberState = S.UNJOINED
    mode: Mode = Mode.NONE
    member_id: str = UNKNOWN_MEMBER_ID
    generation: int = NO_GENERATION
    subscription: tuple[str, ...] = ()
    owned: tuple[TP, ...] = ()
    rejoin_needed: bool = False
    #: The short reason the next JoinGroup carries: "" until something asks for a rejoin, and
    #: again once a SyncGroup succeeds.
    rejoin_reason: str = ""
    in_flight: str | None = None
    #: The JoinGroup or SyncGroup in flight went down with the coordinator: no answer will come,
    #: and the next poll finds the round failed (the one after sends JoinGroup again).
    in_flight_lost: bool = False
    #: The answer that failed the round in flight while the member had unsubscribed: it waits
    #: for the join loop of the first poll after a new subscription.
    failed_round: JoinAnswered | SyncAnswered | None = None
    #: The heartbeat's failure the next poll raises (the heartbeat thread's failure cause).
    fatal: str | None = None
    #: The protocol the coordinator chose at the last successful JoinGroup.
    protocol_name: str | None = None
    #: The generation cooperative-sticky last saw assigned (its subscription user data).
    assignor_generation: int = NO_GENERATION
    #: A SyncGroup completed a join under a protocol this member did not offer: every poll
    #: throws again until the generation is lost (the join's result is never taken).
    refused_protocol: str | None = None
    now_ms: int = 0
    #: The heartbeat thread's timers (Kafka's Heartbeat): when the next heartbeat is due, when
    #: the session runs out without a successful answer, when the poll timeout does.
    heartbeat_due_ms: int = 0
    session_deadline_ms: int = 0
    poll_deadline_ms: int = 0
    #: Failed heartbeats since the last answered one (the backoff doubles with each).
    heartbeat_failures: int = 0
    #: The (generation, member id, time sent) of each unanswered heartbeat, oldest first.
    heartbeats: tuple[tuple[int, str, int], ...] = ()
    #: When the JoinGroup or SyncGroup in flight went (its request timeout counts from there).
    in_flight_since_ms: int = 0
    #: The topics the last metadata refresh described (what the leader's assignor reads).
    metadata: tuple[TopicMetadata, ...] = ()
    #: OffsetCommits sent and not yet answered, oldest first (answers come in order).
    commits: tuple[PendingCommit, ...] = ()
    #: Finished commits whose callbacks run at the next poll or commit call, in order.
    completed: tuple[Completed, ...] = ()
    #: A commitAsync was fenced (FENCED_INSTANCE_ID): every later poll and commit call raises.
    fenced_async: bool = False
    #: Positions of owned partitions (what auto-commit commits), sorted.
    positions: tuple[tuple[TP, int], ...] = ()
    next_auto_commit_ms: int = 0
    #: The auto-commit a rejoin waits for before giving partitions up (None: none).
    prepare_commit: Settling | None = None
    #: When the rejoin stops waiting for it (None: no rejoin has started waiting).
    prepare_deadline_ms: int | None = None
    #: subscribe(Pattern)'s pattern (``subscription`` is then the metadata's topics it matches).
    pattern: str | None = None
    #: How many metadata refreshes arrived.
    metadata_version: int = 0
    #: The topics the last JoinGroup went with.
    joined_subscription: tuple[str, ...] | None = None
    #: The whole group's topics, as the member last saw them leading (() otherwise).
    group_subscription: tuple[str, ...] = ()
    is_leader: bool = False
    #: The refresh the member last assigned from and the watched partitions then.
    assignment_snapshot: tuple[int, Snapshot] | None = None
    #: close() waits for its commit, and will leave as this operation says (None: not closing).
    closing: str | None = None
    closed: bool = False

    def view(self) -> View:
        # a round still out for a member that was reset meanwhile is no longer its rebalance
        # (it only waits to fail it): the view names rounds of a member that is rebalancing
        awaited = self.in_flight if self.state is not S.UNJOINED else None
        in_flight = awaited or ("heartbeat" if self.heartbeats else None)
        # only a subscribed consumer rejoins (Kafka's rejoinNeededOrPending): a fencing error on a
        # commit of a consumer without a subscription raises the flag for nothing
        return View(state=self.state, mode=self.mode, member_id=self.member_id, generation=self.generation,
                    subscription=self.subscription, owned=self.owned,
                    rejoin_needed=self.rejoin_needed and self.mode is Mode.SUBSCRIBED,
                    in_flight=in_flight, fatal=self.fatal, positions=self.positions,
                    commits_in_flight=len(self.commits), pattern=self.pattern,
                    closing=self.closing is not None, closed=self.closed,
                    heartbeats_in_flight=len(self.heartbeats))


class _Step(kernel.Step[State]):
    def __init__(self, state: State) -> None:
        super().__init__(state)
        self.out: list[Output] = []
        #: A commit answer said the coordinator is gone: its connection closes once the answer
        #: is handled (what else went on it fails then).
        self.disconnect = False

    def emit(self, output: Output) -> None:
        self.out.append(output)


def initial(config: Config) -> State:
    return State(config=config, next_auto_commit_ms=config.auto_commit_interval_ms)


@icontract.ensure(lambda result: result[0].mode is not Mode.ASSIGNED or result[0].state is S.UNJOINED,
                  "an assigning consumer never joins")
@icontract.ensure(lambda state, result: result[0].state is state.state
                  or state.state in PREDECESSORS[result[0].state], "a state change Kafka allows")
def step(state: State, event: Event) -> tuple[State, tuple[Output, ...]]:
    """The state after ``event`` and what the client sent, called back or raised, in order."""
    st = _Step(state)
    calling = isinstance(event, APPLICATION_CALLS)
    if state.closed:
        if calling:  # answers reaching a closed consumer are dropped
            st.emit(Raised("IllegalStateException", "the consumer is closed"))
    else:
        if calling and state.closing is not None:
            raise InputError("event", f"{type(event).__name__}: the application is still blocked in close()")
        TABLE.rule(state.state, event)(st, event)
        if not st.state.closed:
            _time_out_requests(st)
            _heartbeat_thread(st)
        # a position lives only while its partition is owned (a partition given up and later
        # assigned again starts from its committed offset, not from where it was)
        owned = set(st.state.owned)
        st.set(positions=tuple((tp, o) for tp, o in st.state.positions if tp in owned))
    return st.state, tuple(st.out)


def _sorted(partitions: Iterable[TP]) -> tuple[TP, ...]:
    return tuple(sorted(set(partitions)))


def _lost_generation(s: State) -> bool:
    return s.generation == NO_GENERATION or s.member_id == UNKNOWN_MEMBER_ID


# --- application calls ---------------------------------------------------------------------------


def _subscribe(st: _Step, ev: Subscribe) -> None:
    """Only a changed topic set leads to a rejoin, so re-subscribing the same topics is free."""
    if not ev.topics:  # checked first: an empty subscribe is an unsubscribe in either mode
        _unsubscribe(st, Unsubscribe())
        return
    if st.state.mode is Mode.ASSIGNED:
        st.emit(Raised("IllegalStateException", "subscribe() after assign()"))
        return
    if st.state.pattern is not None:
        st.emit(Raised("IllegalStateException", "subscribe() after subscribe(Pattern)"))
        return
    topics = tuple(sorted(set(ev.topics)))
    if topics != st.state.subscription:
        # a first subscription finds the rejoin asked for already (since the consumer was made,
        # or since it last left); a changed one is seen by the next poll's check
        if st.state.mode is not Mode.SUBSCRIBED:
            st.set(rejoin_needed=True)
        st.set(subscription=topics)
    st.set(mode=Mode.SUBSCRIBED)


def _subscribe_pattern(st: _Step, ev: SubscribePattern) -> None:
    """The pattern is matched at once against the metadata the consumer has, and again at each
    refresh; the first subscription asks for a join even when nothing matches yet (a later
    pattern's matches, like a refresh's, make the next poll rejoin if they differ)."""
    s = st.state
    if s.mode is Mode.ASSIGNED or (s.mode is Mode.SUBSCRIBED and s.pattern is None):
        st.emit(Raised("IllegalStateException", "subscribe(Pattern) after "
                       + ("assign()" if s.mode is Mode.ASSIGNED else "subscribe()")))
        return
    if s.pattern is None:
        st.set(rejoin_needed=True)  # a changed pattern's new matches are seen at the next poll
    st.set(mode=Mode.SUBSCRIBED, pattern=ev.pattern)
    _match_pattern(st)


def _assign(st: _Step, ev: Assign) -> None:
    """Self-assignment never touches the group: no callbacks, no requests."""
    if not ev.partitions:  # checked first, as for subscribe
        _unsubscribe(st, Unsubscribe())
        return
    if st.state.mode is Mode.SUBSCRIBED:
        st.emit(Raised("IllegalStateException", "assign() after subscribe()"))
        return
    s = st.state
    if s.config.enable_auto_commit and s.now_ms >= s.next_auto_commit_ms:
        # a due auto-commit goes first (the partitions given up meet no rebalance that would
        # commit them), finished callbacks before it; a fenced async commit stops the call
        if not _run_callbacks(st):
            return
        _maybe_auto_commit(st)
    st.set(mode=Mode.ASSIGNED, owned=_sorted(ev.partitions))


def _unsubscribe(st: _Step, ev: Unsubscribe) -> None:
    """Partitions are given up before the LeaveGroup goes, so the application can still commit.

    A JoinGroup or SyncGroup still out stays awaited: leaving resets the member, not the round
    (Kafka keeps its join future), so a poll after a new subscribe waits for that answer, which
    fails the round (the member is no longer rebalancing), and only then joins again."""
    s = st.state
    _give_up(st)
    if s.state is not S.UNJOINED and s.member_id != UNKNOWN_MEMBER_ID and s.config.group_instance_id is None:
        leaving = MemberIdentity(s.member_id, reason="the consumer unsubscribed from all topics")
        st.emit(Sent(LeaveGroup(s.config.group_id, (leaving,))))
    st.set(state=S.UNJOINED, mode=Mode.NONE, member_id=UNKNOWN_MEMBER_ID, generation=NO_GENERATION,
           subscription=(), owned=(), rejoin_needed=False, pattern=None,
           group_subscription=(), rejoin_reason=LEAVING, refused_protocol=None)


def _give_up(st: _Step) -> None:
    """onLeavePrepare's callback for what a subscribed member owns: lost if its generation was
    reset or a rebalance is under way (others may hold them already), revoked otherwise."""
    s = st.state
    if s.mode is Mode.SUBSCRIBED and s.owned:
        lost = _lost_generation(s) or s.state in (S.PREPARING_REBALANCE, S.COMPLETING_REBALANCE)
        st.emit(Callback("lost" if lost else "revoked", s.owned))


def _poll(st: _Step, ev: Poll) -> None:
    """The application's membership work happens inside poll: finished commits' callbacks
    first, then (the application being alive) the poll timeout starts again, then the join
    (after the auto-commit and giving partitions up), then a due auto-commit unless a rebalance
    is under way. Heartbeats are the heartbeat thread's, which acts after the poll."""
    st.set(now_ms=max(st.state.now_ms, ev.now_ms))
    if st.state.mode is Mode.NONE:  # refused before anything runs, even finished callbacks
        st.emit(Raised("IllegalStateException", NOT_SUBSCRIBED))
        return
    if not _run_callbacks(st):
        return
    if st.state.mode is Mode.SUBSCRIBED and st.state.fatal is not None:
        # the heartbeat failed for good: this poll throws it, the next one goes on
        st.emit(Raised(EXCEPTION_CLASSES[Errors[st.state.fatal]], st.state.fatal))
        st.set(fatal=None)
        return
    if st.state.mode is Mode.SUBSCRIBED:  # the application is alive: the poll timeout restarts
        st.set(poll_deadline_ms=st.state.now_ms + st.state.config.rebalance_timeout_ms)
    if st.state.mode is Mode.SUBSCRIBED:
        due = _rejoin_due(st.state)
        if due is not None:
            _request_rejoin_if_necessary(st, due)
    s = st.state
    if s.mode is Mode.SUBSCRIBED and s.refused_protocol is not None:
        # the join loop reads the completed join again, and refuses it again
        if not _lost_generation(s):
            st.emit(Raised("IllegalStateException", _unoffered(s.refused_protocol)))
            return
        st.set(refused_protocol=None)
    s = st.state
    if s.mode is Mode.SUBSCRIBED and s.failed_round is not None:
        # the join loop reads the round that failed while the member had unsubscribed
        st.set(failed_round=None)
        _stale_round_failed(st, s.failed_round)
        return
    if s.mode is Mode.SUBSCRIBED:
        if s.in_flight is not None and not s.in_flight_lost:
            # the join loop polls the network while it waits for its round: a request that timed
            # out closes the connection there, and the loop sees its round fail in this poll
            _time_out_requests(st)
            s = st.state
        if s.in_flight_lost:
            # the join loop finds its round failed; with no time left in the poll it stops there
            st.set(in_flight=None, in_flight_lost=False)
            _rebalance_failed(st, "DisconnectException")
            return
        if s.in_flight is not None:  # a JoinGroup or SyncGroup awaits its answer
            return
        if s.state in (S.PREPARING_REBALANCE, S.COMPLETING_REBALANCE):
            # a join or sync error came between: the join-prepare step was spent already
            _send_join(st)
            return
        if s.rejoin_needed:
            _join_loop(st)
            return
    _maybe_auto_commit(st)


def _tick(st: _Step, ev: Tick) -> None:
    """Time passes without a call: only the heartbeat thread, run after every event, acts."""
    st.set(now_ms=max(st.state.now_ms, ev.now_ms))


# --- the heartbeat thread ------------------------------------------------------------------------


def _request_timed_out(s: State) -> bool:
    """Whether a request has gone unanswered past its timeout: a JoinGroup may wait out the
    rebalance (and 5 s more), every other request the request timeout."""
    c = s.config
    sent = [ms for _, _, ms in s.heartbeats] + [p.sent_ms for p in s.commits]
    if any(ms + c.request_timeout_ms <= s.now_ms for ms in sent):
        return True
    if s.in_flight is None or s.in_flight_lost:
        return False
    wait = max(c.request_timeout_ms, c.rebalance_timeout_ms + 5_000) if s.in_flight == "join" \
        else c.request_timeout_ms
    return s.in_flight_since_ms + wait <= s.now_ms


def _time_out_requests(st: _Step) -> None:
    """A request unanswered for too long closes the connection it went on, which is the
    coordinator's: everything in flight there is lost, as when the coordinator is lost."""
    if _request_timed_out(st.state):
        _coordinator_lost(st)


def _heartbeat_thread(st: _Step) -> None:
    """The heartbeat thread wakes at the event's time and acts until it only has to wait.

    It has nothing to do before a JoinGroup answer or after a reset (the member is not in a
    generation), nor once it failed. A session without a successful answer means the
    coordinator may be gone: it is dropped and found again, which loses what was in flight. An
    application that stopped polling would hold partitions the group cannot move: the member
    leaves. Otherwise the heartbeat keeps the membership alive, sent on its timer alone.
    """
    while True:
        s = st.state
        if s.state not in (S.COMPLETING_REBALANCE, S.STABLE) or s.fatal is not None:
            return
        if s.now_ms >= s.session_deadline_ms:
            _coordinator_lost(st)
        elif s.now_ms >= s.poll_deadline_ms:
            _leave_on_poll_timeout(st)
        elif s.now_ms >= s.heartbeat_due_ms:
            c = s.config
            st.emit(Sent(Heartbeat(c.group_id, s.generation, s.member_id, c.group_instance_id)))
            st.set(heartbeats=(*s.heartbeats, (s.generation, s.member_id, s.now_ms)),
                   heartbeat_due_ms=s.now_ms + c.heartbeat_interval_ms)
        else:
            return


def _heartbeat_backoff(c: Config, failures: int) -> int:
    """The delay after a failed heartbeat: the retry backoff doubled per earlier failure, capped
    (the middle of Kafka's jittered ExponentialBackoff)."""
    first = min(c.retry_backoff_ms, c.retry_backoff_max_ms)
    if c.retry_backoff_max_ms <= first:
        return first
    return int(min(first * 2 ** min(failures, 64), c.retry_backoff_max_ms))


def _heartbeat_failed(st: _Step) -> None:
    s = st.state
    st.set(heartbeat_due_ms=s.now_ms + _heartbeat_backoff(s.config, s.heartbeat_failures),
           heartbeat_failures=s.heartbeat_failures + 1)


def _heartbeat_received(st: _Step) -> None:
    """An answer that keeps the membership alive: the session starts again."""
    s = st.state
    st.set(session_deadline_ms=s.now_ms + s.config.session_timeout_ms, heartbeat_failures=0)


def _coordinator_lost(st: _Step, commits: int | None = None) -> None:
    """The coordinator is taken for dead: every request in flight to it fails as disconnected
    (heartbeats back off, a JoinGroup or SyncGroup is sent again at the next poll, commits fail
    retriably), and it is found again at once (FindCoordinator is not modelled), which restarts
    the session. ``commits``: how many of the oldest commits went on the closed connection (all,
    unless a commit's own answer lost the coordinator and its retry went to the one found again)."""
    s = st.state
    for _ in s.heartbeats:
        _heartbeat_failed(st)
    st.set(heartbeats=())
    if s.in_flight is not None:
        st.set(in_flight_lost=True)
    for _ in s.commits[:commits]:
        if not st.state.commits:
            break  # close() was waiting on one of them, and is done
        sent = st.state.commits[0]
        st.set(commits=st.state.commits[1:])
        _commit_finished(st, sent, "RetriableCommitFailedException", True)
    st.set(session_deadline_ms=st.state.now_ms + s.config.session_timeout_ms)


def _leave_on_poll_timeout(st: _Step) -> None:
    """The application went longer than the poll timeout without a poll: a dynamic member
    leaves so the group can move its partitions on; a static one stays until its session runs
    out. Either way the generation is forgotten, so the next poll rejoins and loses them."""
    s = st.state
    if s.member_id != UNKNOWN_MEMBER_ID and s.config.group_instance_id is None:
        leaving = MemberIdentity(s.member_id, reason=POLL_TIMEOUT)
        st.emit(Sent(LeaveGroup(s.config.group_id, (leaving,))))
    st.set(state=S.UNJOINED, generation=NO_GENERATION, member_id=UNKNOWN_MEMBER_ID)
    _request_rejoin(st, LEAVING)


def _join_loop(st: _Step) -> None:
    """A rejoin that is due starts: partitions are given up (after the auto-commit settles)
    and JoinGroup goes."""
    if st.state.mode is not Mode.SUBSCRIBED:
        return
    due = _rejoin_due(st.state)
    if due is not None:
        _request_rejoin_if_necessary(st, due)
    if st.state.rejoin_needed and _prepare_commit_settled(st):
        _join_prepare(st)
        _send_join(st)


def _prepare_again_and_join(st: _Step) -> None:
    """A join or sync answer that resets the generation asks for the join-prepare again before
    the retry (Kafka's resetStateAndRejoin sets needsJoinPrepare): with the generation gone,
    what the member owned is lost, not still claimed in the next JoinGroup."""
    if _prepare_commit_settled(st):
        _join_prepare(st)
        _send_join(st)


def _consumed_offsets(s: State) -> Offsets:
    # the positions of the partitions still owned (Kafka's SubscriptionState#allConsumed walks
    # the assignment): one a cooperative SyncGroup answer revoked in this very event is gone,
    # although step() drops its position only once the event is over
    owned = set(s.owned)
    return tuple((tp, o) for tp, o in s.positions if tp in owned)


def _maybe_auto_commit(st: _Step) -> None:
    """The auto-commit timer: once due, it restarts and the positions go as an async commit."""
    s = st.state
    if not s.config.enable_auto_commit or s.now_ms < s.next_auto_commit_ms:
        return
    st.set(next_auto_commit_ms=s.now_ms + s.config.auto_commit_interval_ms)
    _commit_now(st, Kind.AUTO, _consumed_offsets(s))


def _prepare_commit_settled(st: _Step) -> bool:
    """Whether the rejoin may give partitions up now. With auto-commit on, the positions are
    committed first and the rejoin waits for the answer, but not past the rebalance timeout
    counted from the first try. An answer is acted on at the next poll: success or a lasting
    failure lets the rejoin go on; a retriable failure holds it one more poll, and the poll
    after sends the commit again (Kafka's onJoinPrepare clears the finished request first)."""
    s = st.state
    if not s.config.enable_auto_commit:
        return True
    if s.prepare_deadline_ms is None:
        st.set(prepare_deadline_ms=s.now_ms + s.config.rebalance_timeout_ms)
    if s.prepare_commit is None:
        sent = _commit_now(st, Kind.PREPARE, _consumed_offsets(s))
        # unsent: nothing to commit, or not in the group
        st.set(prepare_commit=Settling.PENDING if sent else Settling.DONE)
    s = st.state
    assert s.prepare_deadline_ms is not None
    go_on = s.now_ms >= s.prepare_deadline_ms or s.prepare_commit is Settling.DONE
    if s.prepare_commit is Settling.RETRY:
        st.set(prepare_commit=None)
    if not go_on:
        return False
    # a commit still in flight no longer holds anything: it ends as an auto-commit does
    st.set(prepare_commit=None, prepare_deadline_ms=None,
           commits=tuple(replace(c, kind=Kind.AUTO) if c.kind is Kind.PREPARE else c for c in s.commits))
    return True


def _join_prepare(st: _Step) -> None:
    st.set(is_leader=False, group_subscription=())
    s = st.state
    if _lost_generation(s):
        if s.owned:
            st.emit(Callback("lost", s.owned))
            st.set(owned=())
    elif s.config.protocol is RebalanceProtocol.EAGER:
        st.emit(Callback("revoked", s.owned))
        st.set(owned=())
    else:
        gone = tuple(tp for tp in s.owned if tp[0] not in s.subscription)
        if gone:
            st.emit(Callback("revoked", gone))
            st.set(owned=tuple(tp for tp in s.owned if tp not in gone))


def _grouped(partitions: tuple[TP, ...]) -> tuple[ConsumerProtocolSubscription.TopicPartition, ...]:
    topics = sorted({t for t, _ in partitions})
    return tuple(ConsumerProtocolSubscription.TopicPartition(t, tuple(p for u, p in partitions if u == t))
                 for t in topics)


def _send_join(st: _Step) -> None:
    s = st.state
    c = s.config
    request = JoinGroup(group_id=c.group_id, member_id=s.member_id, session_timeout_ms=c.session_timeout_ms,
                       rebalance_timeout_ms=c.rebalance_timeout_ms, group_instance_id=c.group_instance_id,
                       protocols=tuple(Protocol(name) for name in c.assignors), reason=s.rejoin_reason)
    # the subscription shown is the first protocol's; cooperative-sticky's user data is the
    # generation it was last assigned in, kept across a reset of the member's own generation
    user_data = (s.assignor_generation.to_bytes(4, "big", signed=True)
                 if c.assignors[0] == COOPERATIVE_STICKY else None)
    subscription = ConsumerProtocolSubscription(topics=s.subscription, owned_partitions=_grouped(s.owned),
                                                generation_id=s.generation, rack_id=c.client_rack,
                                                user_data=user_data)
    st.emit(Sent(request, subscription))
    st.set(state=S.PREPARING_REBALANCE, in_flight="join", joined_subscription=s.subscription,
           in_flight_since_ms=s.now_ms)


def _commit(st: _Step, ev: CommitSync) -> None:
    """A member commits only for the generation it is stable in; a self-assigned one as nobody."""
    if not _run_callbacks(st) or not ev.offsets:
        return
    failed = _local_failure(st.state, ev.offsets)
    if failed is not None:
        st.emit(Raised(*failed))
        return
    _commit_now(st, Kind.SYNC, ev.offsets)


def _commit_async(st: _Step, ev: CommitAsync) -> None:
    """The request goes now; whatever happens to it is told by a later callback."""
    if _run_callbacks(st):
        _commit_now(st, Kind.ASYNC, ev.offsets)


def _local_failure(s: State, offsets: Offsets) -> tuple[str, str] | None:
    """Why a commit fails before any request goes (exception, detail), or None."""
    if not offsets:
        return None
    bad = [o for _, o in sorted(offsets) if o < 0]
    if bad:
        return "IllegalArgumentException", f"Invalid offset: {bad[0]}"
    if s.mode is Mode.SUBSCRIBED:
        if s.state in (S.PREPARING_REBALANCE, S.COMPLETING_REBALANCE):
            return "RebalanceInProgressException", "the group is rebalancing"
        if s.state is not S.STABLE:
            return "CommitFailedException", "the consumer is not in an active group"
    return None


def _commit_now(st: _Step, kind: Kind, offsets: Offsets) -> bool:
    """Send the OffsetCommit; False when it settled without one (then, but for a commitSync, a
    callback is queued with the outcome: nothing to commit succeeds, a local failure fails)."""
    s = st.state
    failed = _local_failure(s, offsets)
    if failed is not None or not offsets:
        if kind is not Kind.SYNC:
            st.set(completed=(*s.completed, Completed(kind, offsets, failed[0] if failed else None, False)))
        return False
    if s.mode is Mode.SUBSCRIBED:
        generation, member, instance = s.generation, s.member_id, s.config.group_instance_id
    else:  # a self-assigned consumer commits as nobody, static or not
        generation, member, instance = NO_GENERATION, UNKNOWN_MEMBER_ID, None
    by_tp = dict(offsets)
    topics = tuple(CommitTopic(t, tuple(CommitPartition(p, by_tp[(t, p)])
                                        for u, p in sorted(by_tp) if u == t))
                   for t in sorted({t for t, _ in by_tp}))
    st.emit(Sent(OffsetCommit(s.config.group_id, generation, member, group_instance_id=instance,
                              topics=topics)))
    st.set(commits=(*s.commits, PendingCommit(kind, offsets, generation, member, s.now_ms)))
    return True


def _run_callbacks(st: _Step, swallow: bool = False) -> bool:
    """Finished commits' callbacks, in order: a commitAsync's is the application's; the
    auto-commit's only delays the next auto-commit after a retriable failure. False (and
    FencedInstanceIdException, unless close() swallows it) once an async commit (the
    application's or the auto-commit's) was fenced: the call goes no further."""
    s = st.state
    if s.fenced_async:
        if not swallow:
            st.emit(Raised("FencedInstanceIdException", "an asynchronous commit was fenced"))
        return False
    for done in s.completed:
        if done.kind is Kind.ASYNC:
            st.emit(CommitCallback(done.offsets, done.error))
        elif done.retriable:
            st.set(next_auto_commit_ms=s.now_ms + s.config.retry_backoff_ms)
    st.set(completed=())
    return True


_RETRIABLE_COMMIT = frozenset({Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                               Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
                               Errors.REQUEST_TIMED_OUT})
#: The retriable commit errors that say the coordinator is gone (markCoordinatorUnknown).
_COMMIT_COORDINATOR_GONE = frozenset({Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
                                      Errors.REQUEST_TIMED_OUT})
_RAISED_AS_IS = {Errors.OFFSET_METADATA_TOO_LARGE: "OffsetMetadataTooLarge",
                 Errors.INVALID_COMMIT_OFFSET_SIZE: "InvalidCommitOffsetSizeException"}


def _commit_failure(st: _Step, sent: PendingCommit,
                    response: OffsetCommitResponse) -> tuple[str | None, bool]:
    """The exception an OffsetCommit answer makes (None: committed) and whether it may pass; an
    error saying the coordinator is gone also closes its connection.

    The first failed partition decides, except that topics the member may not write are all
    named after every partition was read. Fencing errors are judged against the generation the
    commit went with: if the member has joined again since, the commit only failed; if not, the
    member's generation is reset (its member id too, but for ILLEGAL_GENERATION) and it rejoins.
    """
    s = st.state
    unchanged = (s.generation, s.member_id) == (sent.generation, sent.member_id)
    unauthorized = False
    for topic in response.topics:
        for partition in topic.partitions:
            e = partition.error
            if e is Errors.NONE:
                continue
            if e is Errors.GROUP_AUTHORIZATION_FAILED:
                return "GroupAuthorizationException", False
            if e is Errors.TOPIC_AUTHORIZATION_FAILED:
                unauthorized = True
                continue
            if e in _RAISED_AS_IS:
                return _RAISED_AS_IS[e], False
            if e in _RETRIABLE_COMMIT:
                if e in _COMMIT_COORDINATOR_GONE:
                    st.disconnect = True
                return "RetriableCommitFailedException", True
            if e is Errors.FENCED_INSTANCE_ID:
                if unchanged:
                    return "FencedInstanceIdException", False
                rebalancing = s.state is S.PREPARING_REBALANCE
                return ("RebalanceInProgressException" if rebalancing else "CommitFailedException"), False
            if e is Errors.REBALANCE_IN_PROGRESS:
                _request_rejoin(st, "offset commit failed since group is already rebalancing")
                return "RebalanceInProgressException", False
            if e in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
                if not unchanged and s.state is S.PREPARING_REBALANCE:
                    return "RebalanceInProgressException", False
                st.set(state=S.UNJOINED, generation=NO_GENERATION)
                _request_rejoin(st, f"encountered {e.name} from OFFSET_COMMIT response")
                if e is Errors.UNKNOWN_MEMBER_ID:
                    st.set(member_id=UNKNOWN_MEMBER_ID)
                return "CommitFailedException", False
            return "KafkaException", False
    return ("TopicAuthorizationException", False) if unauthorized else (None, False)


def _commit_answered(st: _Step, ev: OffsetCommitAnswered) -> None:
    """The oldest commit in flight is answered. commitSync's caller sees the outcome at once
    (a retriable failure sends the commit again); the others' callbacks wait for the next call."""
    s = st.state
    if not s.commits:
        return  # nothing in flight: an answer nobody waits for
    sent = s.commits[0]
    st.set(commits=s.commits[1:])
    error, retriable = _commit_failure(st, sent, ev.response)
    _commit_finished(st, sent, error, retriable)
    if st.disconnect:
        # the connection the answer came by is closed: the commits sent before this one's retry
        # (which goes to the coordinator found again) fail with it
        _coordinator_lost(st, len(s.commits) - 1)


def _commit_finished(st: _Step, sent: PendingCommit, error: str | None, retriable: bool) -> None:
    """A commit's outcome reaches whoever waits for it: commitSync's caller (a retriable failure
    sends the commit again), close() (likewise, anything else lets it go on), or the callbacks."""
    if sent.kind is Kind.CLOSE:
        # close()'s own commitSync: a retriable failure is tried again, anything else (logged
        # only) lets the close go on
        if _run_callbacks(st, swallow=True) and retriable and _local_failure(st.state, sent.offsets) is None:
            _commit_now(st, Kind.CLOSE, sent.offsets)
            return
        _finish_close(st)
        return
    if sent.kind is Kind.SYNC:
        if not _run_callbacks(st) or error is None:
            return
        if retriable:
            failed = _local_failure(st.state, sent.offsets)
            if failed is None:
                _commit_now(st, Kind.SYNC, sent.offsets)
            else:
                st.emit(Raised(*failed))
        else:
            st.emit(Raised(error, "the offset commit failed"))
        return
    st.set(completed=(*st.state.completed, Completed(sent.kind, sent.offsets, error, retriable)))
    if error == "FencedInstanceIdException":  # any async commit fences, the auto-commit's too
        st.set(fenced_async=True)
    if sent.kind is Kind.PREPARE and st.state.prepare_commit is Settling.PENDING:
        st.set(prepare_commit=Settling.RETRY if retriable else Settling.DONE)


def _close(st: _Step, ev: Close) -> None:
    """close(): with auto-commit on, the positions are committed first and the close waits for
    the answer (what fails is only logged); then the partitions are given up as on unsubscribe
    and the member leaves as the operation says; the consumer is closed for good."""
    st.set(closing=ev.operation)
    s = st.state
    if s.config.enable_auto_commit and _run_callbacks(st, swallow=True):
        offsets = _consumed_offsets(s)
        if offsets and _local_failure(s, offsets) is None:
            _commit_now(st, Kind.CLOSE, offsets)
            return
    _finish_close(st)


def _finish_close(st: _Step) -> None:
    s = st.state
    operation = s.closing
    _give_up(st)
    dynamic = s.config.group_instance_id is None
    if (s.state is not S.UNJOINED and s.member_id != UNKNOWN_MEMBER_ID
            and (operation == "LEAVE_GROUP" or (operation == "DEFAULT" and dynamic))):
        leaving = MemberIdentity(s.member_id, reason="the consumer is being closed")
        st.emit(Sent(LeaveGroup(s.config.group_id, (leaving,))))
    st.set(state=S.UNJOINED, member_id=UNKNOWN_MEMBER_ID, generation=NO_GENERATION, owned=(),
           rejoin_needed=False, in_flight=None, commits=(), completed=(), closing=None, closed=True,
           heartbeats=(), in_flight_lost=False,
           rejoin_reason=LEAVING)


def _consumed(st: _Step, ev: Consumed) -> None:
    """Positions move only for owned partitions."""
    owned = set(st.state.owned)
    positions = dict(st.state.positions)
    positions.update((tp, o) for tp, o in ev.offsets if tp in owned)
    st.set(positions=tuple(sorted(positions.items())))


# --- answers -------------------------------------------------------------------------------------


def _join_answered(st: _Step, ev: JoinAnswered) -> None:
    """Success moves on to SyncGroup; transient errors resend JoinGroup at once, as Kafka's join loop does."""
    r = ev.response
    if st.state.in_flight_lost:
        return  # its request went down with the coordinator: nobody waits for this answer
    st.set(in_flight=None)
    if r.error is Errors.NONE:
        c = st.state.config
        now = st.state.now_ms
        # the heartbeat thread is enabled from here on, its timers started afresh
        st.set(member_id=r.member_id, generation=r.generation_id, state=S.COMPLETING_REBALANCE,
               protocol_name=r.protocol_name, heartbeat_due_ms=now + c.heartbeat_interval_ms,
               session_deadline_ms=now + c.session_timeout_ms, poll_deadline_ms=now + c.rebalance_timeout_ms)
        assignments: Assignments = ()
        if r.leader == r.member_id:
            found = _leader_assignments(st, ev)
            if isinstance(found, str):  # the leader's assignment failed: no SyncGroup goes
                # (the member stays COMPLETING_REBALANCE, where the answer put it; the next
                # poll joins again from there)
                st.emit(Raised("IllegalStateException", found))
                _rebalance_failed(st, "IllegalStateException")
                return
            assignments = found
        st.emit(Sent(SyncGroup(st.state.config.group_id, r.generation_id, r.member_id,
                               group_instance_id=st.state.config.group_instance_id,
                               protocol_type=r.protocol_type, protocol_name=r.protocol_name),
                     assignments=assignments))
        st.set(in_flight="sync", in_flight_since_ms=st.state.now_ms)
    elif r.error is Errors.UNKNOWN_MEMBER_ID:
        st.set(state=S.UNJOINED, member_id=UNKNOWN_MEMBER_ID, generation=NO_GENERATION)
        _rebalance_failed(st, EXCEPTION_CLASSES[r.error])
        _prepare_again_and_join(st)
    elif r.error in RETRY_JOIN:
        if r.error is Errors.MEMBER_ID_REQUIRED:
            st.set(member_id=r.member_id, generation=NO_GENERATION)
            _request_rejoin(st, f"need to re-join with the given member-id: {r.member_id}")
        else:
            _rebalance_failed(st, EXCEPTION_CLASSES[r.error])
        _send_join(st)
    else:
        # the next poll resends; only an error that is not retriable reaches the application
        _fail(st, r.error, EXCEPTION_CLASSES[r.error] if r.error in JOIN_RAISES_OWN else "KafkaException",
              raised=r.error not in RETRIABLE_JOIN)
        if r.error in COORDINATOR:
            _coordinator_lost(st)


def _partitions(owned: Iterable[ConsumerProtocolSubscription.TopicPartition]) -> tuple[TP, ...]:
    return tuple((tp.topic, p) for tp in owned for p in tp.partitions)


def _assignment_of(partitions: Iterable[TP]) -> ConsumerProtocolAssignment:
    """One member's partitions as the assignment struct, topics and partitions in order."""
    parts = _sorted(partitions)
    topics = sorted({t for t, _ in parts})
    return ConsumerProtocolAssignment(tuple(
        ConsumerProtocolAssignment.TopicPartition(t, tuple(p for u, p in parts if u == t)) for t in topics))


def assignor_input(s: State, name: str, members: tuple[JoinedMember, ...]) -> ClassicAssignorInput:
    """What the leader hands its assignor: each member's subscription as decoded and the topics
    of the last metadata refresh (a topic it never heard of has no partitions to give)."""
    def member(m: JoinedMember) -> ClassicMember:
        sub = m.subscription
        return ClassicMember(m.member_id, sub.topics, owned_partitions=_partitions(sub.owned_partitions),
                             group_instance_id=m.group_instance_id, generation_id=sub.generation_id,
                             rack_id=sub.rack_id, user_data=sub.user_data)
    racks = {t.name: tuple(frozenset(r) for r in t.replica_racks) for t in s.metadata if t.replica_racks}
    return ClassicAssignorInput(assignor=name, members=tuple(member(m) for m in members),
                                topics={t.name: t.partitions for t in s.metadata}, replica_racks=racks)


Assignments = tuple[tuple[str, ConsumerProtocolAssignment], ...]


def _leader_assignments(st: _Step, ev: JoinAnswered) -> Assignments | str:
    """The leader's SyncGroup assignments, or why it cannot send any (IllegalStateException).

    A protocol the member did not offer is the coordinator's mistake and fails the join; one
    that groupspec has no model of is the input's (InputError). The leader watches the topics
    of the whole group from here on, and keeps the metadata it assigned from, to rejoin when
    their partitions change. Under the cooperative protocol a partition may change owner only
    through a generation in which nobody holds it: an assignment that hands one straight over
    fails, except from cooperative-sticky, whose own reading of the owners' generations is
    trusted (Kafka skips the check for it).
    """
    s = st.state
    r = ev.response
    name = r.protocol_name or ""
    if name not in s.config.assignors:  # looked up first, whatever the leader then sends
        return _unoffered(name)
    group_topics = {t for m in ev.members for t in m.subscription.topics}
    st.set(is_leader=True, group_subscription=tuple(sorted(group_topics)))
    if ev.leader_assignments or r.skip_assignment or not ev.members:
        _keep_assignment_snapshot(st)
        return ev.leader_assignments
    if name not in ASSIGNORS:
        raise InputError("members", f"no model of assignor {name!r}: give leader_assignments instead")
    group = assignor_input(s, name, ev.members)
    check_input(group)
    result = classic_assignors.assign(group)
    if s.config.protocol is RebalanceProtocol.COOPERATIVE and name != COOPERATIVE_STICKY:
        owned = {m.member_id: set(_partitions(m.subscription.owned_partitions)) for m in ev.members}
        added = {tp for m, parts in result.items() for tp in parts if tp not in owned.get(m, set())}
        revoked = {tp for m, parts in owned.items() for tp in parts if tp not in result.get(m, ())}
        if added & revoked:
            moved = ", ".join(f"{t}-{p}" for t, p in sorted(added & revoked))
            return f"the cooperative protocol forbids handing owned partitions straight over ({moved})"
    _keep_assignment_snapshot(st)
    return tuple((m.member_id, _assignment_of(result.get(m.member_id, ()))) for m in ev.members)


def _unoffered(name: str) -> str:
    return f"the coordinator chose assignment protocol {name!r}, which this member did not offer"


def _partitions_now(s: State) -> Snapshot:
    """Each watched topic the metadata knows -> its partitions, each as the racks of its
    replicas when the member has a rack (else no racks): what a change of triggers a rejoin.
    Watched: the member's own topics and, after it led, the whole group's."""
    watched = set(s.subscription) | set(s.group_subscription)
    rack = s.config.client_rack is not None
    return tuple((t.name, tuple(frozenset(t.replica_racks[p]) if rack and t.replica_racks else frozenset()
                                for p in range(t.partitions)))
                 for t in s.metadata if t.name in watched)


def _keep_assignment_snapshot(st: _Step) -> None:
    st.set(assignment_snapshot=(st.state.metadata_version, _partitions_now(st.state)))


def _rejoin_due(s: State) -> str | None:
    """Why a rejoin is due beyond an asked-for one (None: it is not): for the member that last
    assigned, the metadata moved on from the refresh it assigned from and the watched topics'
    partitions are no longer the same (looked at first, so its reason wins); or the
    subscription differs from the one last joined with."""
    if s.assignment_snapshot is not None:
        version, partitions = s.assignment_snapshot
        if version != s.metadata_version and partitions != _partitions_now(s):
            return "cached metadata has changed"
    if s.joined_subscription is not None and s.joined_subscription != s.subscription:
        return "subscription has changed"
    return None


def _request_rejoin(st: _Step, reason: str) -> None:
    st.set(rejoin_needed=True, rejoin_reason=reason)


def _request_rejoin_if_necessary(st: _Step, reason: str) -> None:
    """A trigger seen while a rejoin is already asked for keeps the earlier reason."""
    if not st.state.rejoin_needed:
        _request_rejoin(st, reason)


def _rebalance_failed(st: _Step, exception: str) -> None:
    """A failed JoinGroup or SyncGroup round names its exception in the next JoinGroup."""
    _request_rejoin(st, f"rebalance failed due to {exception}")


def _metadata(st: _Step, ev: Metadata) -> None:
    """A refresh replaces what the consumer knew of the cluster's topics; a pattern is matched
    against them again (a changed match set makes the next poll rejoin)."""
    st.set(metadata=tuple(sorted(ev.topics, key=lambda t: t.name)),
           metadata_version=st.state.metadata_version + 1)
    _match_pattern(st)


def _match_pattern(st: _Step) -> None:
    s = st.state
    if s.pattern is not None:
        st.set(subscription=tuple(t.name for t in s.metadata if re.fullmatch(s.pattern, t.name)))


def _subscribed_to(s: State, topic: str) -> bool:
    return re.fullmatch(s.pattern, topic) is not None if s.pattern is not None else topic in s.subscription


def _sync_answered(st: _Step, ev: SyncAnswered) -> None:
    """Success completes the rebalance and calls the listener; errors go back to joining."""
    r = ev.response
    if st.state.in_flight_lost:
        return  # its request went down with the coordinator: nobody waits for this answer
    st.set(in_flight=None)
    if r.error is Errors.NONE:
        _sync_succeeded(st, ev)
        # the poll blocked in the join loop goes round again: a rejoin the assignment asked for
        # (or a subscription changed meanwhile) starts in this same poll
        if st.state.refused_protocol is None:
            _join_loop(st)
    elif r.error is Errors.REBALANCE_IN_PROGRESS:
        _rebalance_failed(st, EXCEPTION_CLASSES[r.error])
        _send_join(st)
    elif r.error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
        st.set(state=S.UNJOINED, generation=NO_GENERATION)
        if r.error is Errors.UNKNOWN_MEMBER_ID:
            st.set(member_id=UNKNOWN_MEMBER_ID)
        _rebalance_failed(st, EXCEPTION_CLASSES[r.error])
        _prepare_again_and_join(st)
    elif r.error in COORDINATOR:
        # the member stays COMPLETING_REBALANCE, where the JoinGroup's answer put it, until the
        # next poll's JoinGroup (as after any failed SyncGroup); the coordinator is dropped and
        # the heartbeat thread goes on with the one found again
        _rebalance_failed(st, EXCEPTION_CLASSES[r.error])
        _coordinator_lost(st)
    else:
        _fail(st, r.error, EXCEPTION_CLASSES[r.error] if r.error in SYNC_RAISES_OWN else "KafkaException")


def _sync_succeeded(st: _Step, ev: SyncAnswered) -> None:
    s = st.state
    assigned = _sorted((tp.topic, p) for tp in ev.assignment.assigned_partitions for p in tp.partitions)
    st.set(state=S.STABLE, rejoin_needed=False, rejoin_reason="")
    if not s.is_leader:
        st.set(assignment_snapshot=None)  # only the member that assigned watches the metadata
    if (s.protocol_name or "") not in s.config.assignors:
        # a protocol the member did not offer: the join's result cannot be read, and is not
        st.emit(Raised("IllegalStateException", _unoffered(s.protocol_name or "")))
        st.set(refused_protocol=s.protocol_name or "")
        return
    if any(not _subscribed_to(s, t) for t, _ in assigned):
        # an assignment made for an older subscription: nothing taken, nothing called back
        _request_rejoin(st, "received assignment does not match the current subscription")
        return
    if s.pattern is not None and s.joined_subscription is not None:
        # the leader may give matching topics this member did not know of: they join both sets
        extra = {t for t, _ in assigned} - set(s.joined_subscription)
        st.set(subscription=tuple(sorted(set(s.subscription) | extra)),
               joined_subscription=tuple(sorted(set(s.joined_subscription) | extra)))
    st.set(next_auto_commit_ms=s.now_ms + s.config.auto_commit_interval_ms)
    if s.protocol_name == COOPERATIVE_STICKY:
        st.set(assignor_generation=s.generation)
    if s.config.protocol is RebalanceProtocol.COOPERATIVE:
        revoked = tuple(tp for tp in s.owned if tp not in assigned)
        if revoked:
            st.emit(Callback("revoked", revoked))
            _request_rejoin(st, "need to revoke partitions and re-join")
        added = tuple(tp for tp in assigned if tp not in s.owned)
    else:
        added = assigned
    st.set(owned=assigned)
    st.emit(Callback("assigned", added))


def _heartbeat_answered(st: _Step, ev: HeartbeatAnswered) -> None:
    """A rebalance or fencing seen by a heartbeat only flags the rejoin; the next poll acts on
    it. A fencing error about a generation the member has already left behind says nothing
    about the one it is in, and is ignored."""
    s = st.state
    if not s.heartbeats:
        return  # no heartbeat outstanding: an answer the member no longer waits for
    (generation, member_id, _), rest = s.heartbeats[0], s.heartbeats[1:]
    sent = (generation, member_id)
    st.set(heartbeats=rest)
    e = ev.response.error
    if e is Errors.NONE:
        _heartbeat_received(st)
    elif e in COORDINATOR:
        _heartbeat_failed(st)
        _coordinator_lost(st)
    elif e is Errors.REBALANCE_IN_PROGRESS:
        if s.state is S.STABLE:
            _request_rejoin(st, "group is already rebalancing")
        _heartbeat_received(st)  # the member is still in the group while it rebalances
    elif e in FENCING and sent == (s.generation, s.member_id):
        st.set(state=S.UNJOINED, generation=NO_GENERATION)
        _request_rejoin(st, f"encountered {e.name} from HEARTBEAT response")
        if e is not Errors.ILLEGAL_GENERATION:
            st.set(member_id=UNKNOWN_MEMBER_ID)
        if e is Errors.FENCED_INSTANCE_ID:  # the heartbeat thread fails: the next poll throws
            st.set(fatal=e.name)
        else:
            _heartbeat_failed(st)
    elif e in FENCING:
        _heartbeat_received(st)  # about a generation gone by: answered, not failed
    else:
        _heartbeat_failed(st)


def _offsets_fetched(st: _Step, ev: OffsetFetchAnswered) -> None:
    """A partition without a committed offset needs a starting position: the reset policy decides.

    A failed fetch that may pass (a retriable group error) is not reported: the next poll fetches
    again. When the error says the coordinator is gone, what was in flight to it goes too."""
    error = ev.response.error
    if error in COORDINATOR:
        _coordinator_lost(st)
    elif error is Errors.GROUP_AUTHORIZATION_FAILED:
        st.emit(Raised("GroupAuthorizationException", f"offset fetch failed: {error.name}"))
    elif error not in RETRIABLE_ERRORS and error is not Errors.NONE:
        st.emit(Raised("KafkaException", f"offset fetch failed: {error.name}"))
    if error is not Errors.NONE:
        return
    failed = [(t.name, p.partition, p.error) for t in ev.response.topics for p in t.partitions
              if p.error is not Errors.NONE]
    raised = [(t, p, e) for t, p, e in failed if e is not Errors.UNSTABLE_OFFSET_COMMIT]
    if raised:  # the first such partition fails the whole fetch
        t, p, e = raised[0]
        st.emit(Raised("KafkaException", f"offset fetch failed for {t}-{p}: {e.name}"))
    if failed:  # an unstable offset alone: fetched again once its transaction settles
        return
    # a committed offset is where fetching starts: the partition's position, which the
    # auto-commit commits again, unless the application's records moved it already
    positions = dict(st.state.positions)
    owned = set(st.state.owned)
    for topic in ev.response.topics:
        for part in topic.partitions:
            if part.committed_offset >= 0 and (topic.name, part.partition) in owned:
                positions.setdefault((topic.name, part.partition), part.committed_offset)
    st.set(positions=tuple(sorted(positions.items())))
    missing = _sorted((t.name, p.partition) for t in ev.response.topics for p in t.partitions
                      if p.committed_offset < 0)
    policy = st.state.config.auto_offset_reset
    if not missing:
        return
    if policy == "none":
        st.emit(Raised("NoOffsetForPartitionException", ", ".join(f"{t}-{p}" for t, p in missing)))
    else:
        for tp in missing:
            st.emit(ResetOffset(tp, policy))


def _stale(st: _Step, ev: JoinAnswered | SyncAnswered) -> None:
    """A join or sync answer outside the round trip it belongs to is dropped; if it was the one
    awaited (a commit's fencing error, a fenced heartbeat or the poll timeout reset the member
    meanwhile) the member joins again: after a JoinGroup at the next poll, after a SyncGroup at
    once, as the join loop does with a round whose generation is gone.

    The answer fails the round all the same, and the failure names the next JoinGroup: a
    successful join as UnjoinedGroupException (retriable: the next poll joins), a successful
    sync as IllegalGenerationException. The errors the join loop retries at once are retried at
    once, after giving up what the reset lost; a retriable one waits for the next poll; any other
    is thrown. The answer says nothing about the generation the member no longer has (it resets
    nothing), but a coordinator error loses the coordinator whatever the member's state. A member
    that unsubscribed meanwhile runs no join loop: the failed round waits (Kafka's join future
    stays failed) for the first poll after it subscribes again, whose join loop reads it as it
    would have at the answer, so a retriable failure costs that poll its JoinGroup."""
    s = st.state
    if s.in_flight != ("join" if isinstance(ev, JoinAnswered) else "sync") or s.in_flight_lost:
        return
    st.set(in_flight=None)
    if ev.response.error in COORDINATOR:
        _coordinator_lost(st)
    if s.mode is not Mode.SUBSCRIBED:
        if isinstance(ev, JoinAnswered) and ev.response.error is Errors.MEMBER_ID_REQUIRED:
            # the handler takes the given member id at once; the join loop comes later
            st.set(member_id=ev.response.member_id, generation=NO_GENERATION)
        st.set(failed_round=ev)
        return
    _stale_round_failed(st, ev)


def _stale_round_failed(st: _Step, ev: JoinAnswered | SyncAnswered) -> None:
    """The join loop reads a round that an answer after a reset failed (see ``_stale``)."""
    e = ev.response.error
    if isinstance(ev, JoinAnswered):
        if e is Errors.NONE:
            _rebalance_failed(st, "UnjoinedGroupException")
        elif e is Errors.MEMBER_ID_REQUIRED:
            st.set(member_id=ev.response.member_id, generation=NO_GENERATION)
            _request_rejoin(st, f"need to re-join with the given member-id: {ev.response.member_id}")
        else:
            _fail(st, e, EXCEPTION_CLASSES[e] if e in JOIN_RAISES_OWN else "KafkaException",
                  raised=e not in RETRIABLE_JOIN | RETRY_JOIN)
        again = e in RETRY_JOIN
    else:
        error = Errors.ILLEGAL_GENERATION if e is Errors.NONE else e
        _fail(st, error, EXCEPTION_CLASSES[error] if error in SYNC_RAISES_OWN else "KafkaException",
              raised=error not in SYNC_AGAIN_AT_ONCE | COORDINATOR)
        again = error in SYNC_AGAIN_AT_ONCE
    if again:
        _prepare_again_and_join(st)


def _fail(st: _Step, error: Errors, exception: str, raised: bool = True) -> None:
    """A join or sync round that failed for good: the application's poll throws (unless the
    error is retriable) and the next poll joins again; nothing stays failed."""
    _rebalance_failed(st, exception)
    if raised:
        st.emit(Raised(exception, error.name))


TABLE = kernel.Table("classic_consumer", {
    **kernel.rows(_subscribe, Subscribe),
    **kernel.rows(_subscribe_pattern, SubscribePattern),
    **kernel.rows(_assign, Assign),
    **kernel.rows(_unsubscribe, Unsubscribe),
    **kernel.rows(_poll, Poll),
    **kernel.rows(_commit, CommitSync),
    **kernel.rows(_join_answered, JoinAnswered, states=(S.PREPARING_REBALANCE,)),
    **kernel.rows(_sync_answered, SyncAnswered, states=(S.COMPLETING_REBALANCE,)),
    **kernel.rows(_heartbeat_answered, HeartbeatAnswered),
    **kernel.rows(_offsets_fetched, OffsetFetchAnswered),
    **kernel.rows(_metadata, Metadata),
    **kernel.rows(_commit_async, CommitAsync),
    **kernel.rows(_commit_answered, OffsetCommitAnswered),
    **kernel.rows(_consumed, Consumed),
    **kernel.rows(_close, Close),
    **kernel.rows(_tick, Tick),
    **kernel.rows(_stale, JoinAnswered, SyncAnswered),
})


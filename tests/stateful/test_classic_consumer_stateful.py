"""The classic consumer's client side: spec and implementation driven side by side.

The application subscribes, assigns, polls as time passes, commits and unsubscribes; time also
passes without a poll (the heartbeat thread alone acts: heartbeats, session and request
timeouts, the poll timeout's leave); whatever request is in flight is answered with success or
one of the errors the client handles (and one it does not). Answers are built from what the
client last sent, so joins, syncs and heartbeats succeed often enough to reach STABLE and
rebalance again, eager and cooperative alike. After every step both layers did the same things
in the same order and show the same view; every state change was one the vocabulary's table
allows (the spec's contract); a member never has two of JoinGroup and SyncGroup outstanding
(heartbeats go on their own timer, but only with a generation and member id).
"""

from __future__ import annotations

import hypothesis
from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from groupspec.impl.classic_consumer import ClassicConsumer
from groupspec.spec import classic_consumer as spec
from groupspec.types.classic_consumer import (
    APPLICATION_CALLS,
    Assign,
    Close,
    CommitAsync,
    CommitSync,
    Config,
    Consumed,
    Event,
    HeartbeatAnswered,
    JoinAnswered,
    JoinedMember,
    Metadata,
    Mode,
    OffsetCommitAnswered,
    OffsetFetchAnswered,
    Poll,
    RebalanceProtocol,
    Sent,
    Subscribe,
    SubscribePattern,
    SyncAnswered,
    Tick,
    TopicMetadata,
    Unsubscribe,
)
from groupspec.types.classic_group import (
    FetchedPartition,
    FetchedTopic,
    Heartbeat,
    HeartbeatResponse,
    JoinGroupResponse,
    LeaveGroup,
    OffsetCommitResponse,
    OffsetFetchResponse,
    PartitionResult,
    SyncGroupResponse,
    TopicResult,
)
from groupspec.types.errors import Errors
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

TOPICS = ("t", "u")
PARTITIONS = tuple((t, p) for t in TOPICS for p in range(2))
ERRORS = (Errors.NONE,) * 16 + (
    Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION, Errors.REBALANCE_IN_PROGRESS,
    Errors.MEMBER_ID_REQUIRED, Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.FENCED_INSTANCE_ID, Errors.GROUP_AUTHORIZATION_FAILED,
)

#: What an OffsetCommit answer's partitions may carry: every branch of Kafka's handler.
COMMIT = (Errors.NONE,) * 10 + (
    Errors.GROUP_AUTHORIZATION_FAILED, Errors.TOPIC_AUTHORIZATION_FAILED, Errors.OFFSET_METADATA_TOO_LARGE,
    Errors.INVALID_COMMIT_OFFSET_SIZE, Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.UNKNOWN_TOPIC_OR_PARTITION,
    Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR, Errors.REQUEST_TIMED_OUT,
    Errors.FENCED_INSTANCE_ID, Errors.REBALANCE_IN_PROGRESS, Errors.UNKNOWN_MEMBER_ID,
    Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_SERVER_ERROR,
)

FENCING = (Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID)

#: What a heartbeat answer may carry: every branch of Kafka's handler and the thread's listener.
HEARTBEAT = (Errors.NONE,) * 6 + (
    Errors.REBALANCE_IN_PROGRESS, Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID,
    Errors.FENCED_INSTANCE_ID, Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
    Errors.GROUP_AUTHORIZATION_FAILED, Errors.UNKNOWN_SERVER_ERROR,
)

FETCH = (Errors.NONE,) * 6 + (Errors.UNSTABLE_OFFSET_COMMIT, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                              Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.GROUP_AUTHORIZATION_FAILED)

#: What an OffsetFetch answer's group error may be: every branch of Kafka's handler (the
#: coordinator's own errors, authorization, a retriable error, an unexpected one).
GROUP_FETCH = (Errors.NONE,) * 8 + (
    Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR, Errors.GROUP_AUTHORIZATION_FAILED,
    Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.REQUEST_TIMED_OUT,
    Errors.UNSTABLE_OFFSET_COMMIT, Errors.UNKNOWN_SERVER_ERROR, Errors.STALE_MEMBER_EPOCH,
)


def _assignment(partitions: list[tuple[str, int]]) -> ConsumerProtocolAssignment:
    return ConsumerProtocolAssignment(tuple(
        ConsumerProtocolAssignment.TopicPartition(t, tuple(sorted(p for u, p in partitions if u == t)))
        for t in sorted({t for t, _ in partitions})))


class Agreement(RuleBasedStateMachine):
    @initialize(cooperative=st.booleans(), reset=st.sampled_from(("earliest", "latest", "none")),
                assigning=st.integers(0, 4), instance=st.sampled_from((None, "i1")),
                assignor=st.sampled_from(("range", "roundrobin", "sticky")), auto_commit=st.booleans(),
                session=st.sampled_from((10_000, 45_000)), request=st.sampled_from((20_000, 30_000)),
                max_poll=st.sampled_from((15_000, 300_000)))
    def start(self, cooperative: bool, reset: str, assigning: int, instance: str | None,
              assignor: str, auto_commit: bool, session: int, request: int, max_poll: int) -> None:
        """One run in five may assign() (which locks subscribe() out), so most runs reach STABLE.
        A cooperative member offers cooperative-sticky or range (the latter a stand-in for a
        custom cooperative assignor, whose answers the leader must check)."""
        self.assigning = assigning == 0
        if cooperative:
            assignors = ("cooperative-sticky",) if assignor != "range" else ("range",)
        else:
            assignors = (assignor,)
        config = Config(assignors=assignors,
                        protocol=RebalanceProtocol.COOPERATIVE if cooperative else RebalanceProtocol.EAGER,
                        auto_offset_reset=reset, group_instance_id=instance,
                        enable_auto_commit=auto_commit, auto_commit_interval_ms=4_000,
                        session_timeout_ms=session, request_timeout_ms=request, rebalance_timeout_ms=max_poll)
        self.state = spec.initial(config)
        self.impl = ClassicConsumer(config)
        self.now = 0
        self.generation = 0
        self.joined: ConsumerProtocolSubscription | None = None

    def _send(self, event: Event) -> None:
        if self.state.closing is not None and isinstance(event, APPLICATION_CALLS):
            return  # the application is blocked in close() until its commit is answered
        note(repr(event))
        hypothesis.event(f"from {self.state.state.value}")
        # a JoinGroup or SyncGroup already out (and not lost with its connection) holds back
        # another, but for the one its own answer sends, or an unsubscribe's reset
        before = self.state
        waiting = before.in_flight if not before.in_flight_lost else None
        self.state, want = spec.step(self.state, event)
        got = self.impl.handle(event)
        assert got == want
        assert self.impl.view() == self.state.view()
        emptied = isinstance(event, Subscribe | Assign) and not (
            event.topics if isinstance(event, Subscribe) else event.partitions)
        if emptied or isinstance(event, JoinAnswered | SyncAnswered | Unsubscribe):
            waiting = None
        for output in want:
            if isinstance(output, Sent) and output.subscription is not None:
                self.joined = output.subscription
            if not isinstance(output, Sent):
                continue
            name = type(output.request).__name__
            if name in ("JoinGroup", "SyncGroup"):
                assert waiting is None, f"{name} while a {waiting} is outstanding"
                waiting = name
            if isinstance(output.request, Heartbeat):
                hypothesis.event("heartbeat sent")
                assert output.request.generation_id >= 0 and output.request.member_id
            if isinstance(output.request, LeaveGroup) and event.__class__ in (Tick, Poll, HeartbeatAnswered,
                                                                              JoinAnswered, SyncAnswered):
                hypothesis.event("left on the poll timeout")

    @rule(topics=st.lists(st.sampled_from(TOPICS), min_size=1, max_size=2))
    def subscribe(self, topics: list[str]) -> None:
        self._send(Subscribe(tuple(topics)))

    @rule(operation=st.sampled_from(("DEFAULT", "LEAVE_GROUP", "REMAIN_IN_GROUP")), now=st.integers(0, 30))
    def close(self, operation: str, now: int) -> None:
        """Rarely (the run ends in effect): a closed consumer only refuses calls."""
        if now == 0:
            self._send(Close(operation))

    @rule(pattern=st.sampled_from(("t", "t|u", "u.*", "x")))
    def subscribe_pattern(self, pattern: str) -> None:
        self._send(SubscribePattern(pattern))

    @rule(partitions=st.lists(st.sampled_from(PARTITIONS), max_size=3))
    def assign(self, partitions: list[tuple[str, int]]) -> None:
        if not self.assigning and partitions:
            partitions = []  # an unsubscribe: the run stays a subscribing one
        self._send(Assign(tuple(partitions)))

    @rule()
    def unsubscribe(self) -> None:
        self._send(Unsubscribe())

    @rule(ms=st.sampled_from((0, 1, 1_000, 3_000, 10_000)))
    def poll(self, ms: int) -> None:
        self.now += ms
        self._send(Poll(self.now))

    @rule(ms=st.sampled_from((1, 100, 3_000, 12_000, 40_000)))
    def tick(self, ms: int) -> None:
        """Time passes with the application busy: only the heartbeat thread acts."""
        self.now += ms
        self._send(Tick(self.now))

    @rule(error=st.sampled_from(HEARTBEAT))
    def heartbeat_answered(self, error: Errors) -> None:
        self._send(HeartbeatAnswered(HeartbeatResponse(error)))

    @rule(error=st.sampled_from(FENCING),
          partitions=st.lists(st.sampled_from(PARTITIONS), max_size=4))
    def stale_heartbeat_answered(self, error: Errors, partitions: list[tuple[str, int]]) -> None:
        """From STABLE: two heartbeats go, the first reports a rebalance, the member joins a new
        generation, and only then is the second answered, with a fencing error about the old one."""
        if self.state.state.value != "STABLE" or self.state.heartbeats:
            return
        self.tick(self.state.config.heartbeat_interval_ms)
        self.tick(self.state.config.heartbeat_interval_ms)
        self.heartbeat_answered(Errors.REBALANCE_IN_PROGRESS)
        for _ in range(3):
            self.poll(1)
            if self.state.in_flight is None:
                break
            self.answer(Errors.NONE, False, partitions)
        self.heartbeat_answered(error)

    @rule(ms=st.sampled_from((0, 3_000)), error=st.sampled_from(ERRORS), leader=st.booleans(),
          partitions=st.lists(st.sampled_from(PARTITIONS), max_size=4))
    def poll_and_answer(self, ms: int, error: Errors, leader: bool,
                        partitions: list[tuple[str, int]]) -> None:
        """A poll and the answer to what it sent, in one rule, so that runs get deep into the group."""
        self.poll(ms)
        self.answer(error, leader, partitions)

    @rule(topics=st.lists(st.sampled_from(TOPICS), min_size=1, max_size=2),
          partitions=st.lists(st.sampled_from(PARTITIONS), max_size=4), leader=st.booleans())
    def rebalance_cleanly(self, topics: list[str], partitions: list[tuple[str, int]], leader: bool) -> None:
        """Subscribe, then poll and answer until the member is STABLE or gives up (a few rounds)."""
        self.subscribe(topics)
        for _ in range(4):
            self.poll(0)
            if self.state.in_flight is None:
                break
            self.answer(Errors.NONE, leader, partitions)

    @rule(partitions=st.lists(st.sampled_from(PARTITIONS), max_size=2), offset=st.integers(0, 9))
    def commit(self, partitions: list[tuple[str, int]], offset: int) -> None:
        self._send(CommitSync(tuple((tp, offset) for tp in partitions)))

    @rule(partitions=st.lists(st.sampled_from(PARTITIONS), max_size=2), offset=st.integers(-1, 9))
    def commit_async(self, partitions: list[tuple[str, int]], offset: int) -> None:
        self._send(CommitAsync(tuple((tp, offset) for tp in partitions)))

    @rule(partitions=st.lists(st.sampled_from(PARTITIONS), max_size=3), offset=st.integers(0, 20))
    def consumed(self, partitions: list[tuple[str, int]], offset: int) -> None:
        self._send(Consumed(tuple((tp, offset) for tp in partitions)))

    @rule(errors=st.lists(st.sampled_from(COMMIT), min_size=1, max_size=3))
    def commit_answered(self, errors: list[Errors]) -> None:
        """The oldest commit's answer: one result per partition, errors in the order drawn."""
        results = tuple(PartitionResult(k, e) for k, e in enumerate(errors))
        self._send(OffsetCommitAnswered(OffsetCommitResponse((TopicResult("t", results),))))

    @rule(error=st.sampled_from(ERRORS), leader=st.booleans(),
          partitions=st.lists(st.sampled_from(PARTITIONS), max_size=4))
    def answer(self, error: Errors, leader: bool, partitions: list[tuple[str, int]]) -> None:
        """Answers whatever is in flight (or, with nothing in flight, a stray join answer)."""
        flight = self.state.in_flight
        if flight == "sync":
            self._send(SyncAnswered(SyncGroupResponse(error, "consumer", "range"), _assignment(partitions)))
        elif flight is None and self.state.heartbeats:
            self._send(HeartbeatAnswered(HeartbeatResponse(error)))
        else:
            self.generation += 1
            member = self.state.member_id or "m1"
            self._send(JoinAnswered(
                JoinGroupResponse(error, generation_id=self.generation, protocol_type="consumer",
                                  protocol_name="range", leader=member if leader else "other",
                                  member_id=member),
                ((member, _assignment(partitions)),)))

    @rule(topics=st.lists(st.tuples(st.sampled_from(TOPICS), st.integers(0, 3)), max_size=2))
    def metadata(self, topics: list[tuple[str, int]]) -> None:
        self._send(Metadata(tuple(TopicMetadata(t, n) for t, n in dict(topics).items())))

    @rule(others=st.integers(0, 2), theirs=st.lists(st.sampled_from(PARTITIONS), max_size=3),
          offered=st.booleans(), skip=st.integers(0, 9))
    def led(self, others: int, theirs: list[tuple[str, int]], offered: bool, skip: int) -> None:
        """A JoinGroup answer naming the member leader, with the group's subscriptions (its own
        as it sent it, and up to two others on the same topics owning some partitions) and no
        scripted assignment: the leader runs the assignor, or fails to (a protocol it did not
        offer; a cooperative assignor handing a partition over directly)."""
        if self.state.in_flight != "join" or self.joined is None:
            return
        self.generation += 1
        me = self.state.member_id or "m1"
        mine = self.joined
        topic = ConsumerProtocolSubscription.TopicPartition
        owned = tuple(topic(t, tuple(sorted({p for u, p in theirs if u == t})))
                      for t in sorted({t for t, _ in theirs}))
        others_joined = tuple(
            JoinedMember(f"o{k}", ConsumerProtocolSubscription(topics=mine.topics, owned_partitions=owned,
                                                               generation_id=self.generation - 1))
            for k in range(others))
        members = (JoinedMember(me, mine), *others_joined)
        protocol = self.state.config.assignors[0] if offered else "roundrobin"
        self._send(JoinAnswered(
            JoinGroupResponse(Errors.NONE, generation_id=self.generation, protocol_type="consumer",
                              protocol_name=protocol, leader=me, member_id=me, skip_assignment=skip == 0),
            members=members))
        hypothesis.event("leader failed" if self.state.in_flight is None else "leader synced")

    @rule(offsets=st.lists(st.tuples(st.sampled_from(PARTITIONS), st.integers(-1, 5), st.sampled_from(FETCH)),
                           max_size=3),
          error=st.sampled_from(GROUP_FETCH))
    def offsets_fetched(self, offsets: list[tuple[tuple[str, int], int, Errors]], error: Errors) -> None:
        topics = tuple(FetchedTopic(t, tuple(FetchedPartition(p, o, error=e)
                                             for (u, p), o, e in offsets if u == t))
                       for t in sorted({t for (t, _), _, _ in offsets}))
        self._send(OffsetFetchAnswered(OffsetFetchResponse(error, topics)))

    @invariant()
    def assigning_consumer_holds_only_its_own(self) -> None:
        if hasattr(self, "state") and self.state.mode is Mode.ASSIGNED:
            assert self.state.member_id == "" and self.state.generation == -1


TestClassicConsumerAgreement = Agreement.TestCase

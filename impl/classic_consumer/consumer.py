"""The classic consumer's membership, written the way Kafka's client is: a coordinator object
with mutable state (AbstractCoordinator's member state and generation), the consumer-specific
hooks (ConsumerCoordinator's join-prepare and join-complete), and SubscriptionState apart.

Kafka's join loop (``joinGroupIfNeeded``) retries a failed JoinGroup or SyncGroup within the same
poll for the errors it knows are transient; here the answer handler sends the retry directly,
which gives the same requests in the same order. The heartbeat thread has no thread of its own:
after every event it runs its loop at the event's time until it only has to wait (``Tick``
moves the time with nothing else happening), so the interleaving is one fixed order.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum

from groupspec.impl import classic_assignors
from groupspec.impl.classic_consumer import heartbeat as hb
from groupspec.impl.classic_consumer.subscriptions import SubscriptionState
from groupspec.types.classic_assignors import (
    ASSIGNORS,
    ClassicAssignment,
    ClassicAssignorInput,
    ClassicMember,
)
from groupspec.types.classic_consumer import (
    APPLICATION_CALLS,
    EXCEPTION_CLASSES,
    NO_GENERATION,
    NOT_SUBSCRIBED,
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
    JoinGroupResponse,
    LeaveGroup,
    MemberIdentity,
    OffsetCommit,
    OffsetCommitResponse,
    Protocol,
    SyncGroup,
)
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

COOPERATIVE_STICKY_ASSIGNOR_NAME = "cooperative-sticky"
LEAVE_GROUP_REASON = "consumer pro-actively leaving the group"
POLL_TIMEOUT_LEAVE_REASON = "consumer poll timeout has expired."


@dataclass(frozen=True)
class MetadataSnapshot:
    version: int
    partitions_per_topic: dict[str, tuple[frozenset[str], ...]]

    def matches(self, other: MetadataSnapshot) -> bool:
        return self.version == other.version or self.partitions_per_topic == other.partitions_per_topic


class _AssignmentFailed(Exception):
    """onLeaderElected's IllegalStateException: the join fails and the application sees it."""


Offsets = tuple[tuple[TP, int], ...]


class _Kind(Enum):
    """Who a commit is for: commitSync's caller, a commitAsync callback, the auto-commit's own
    callback (on the interval and in onJoinPrepare), or close()'s commitSync."""

    SYNC = "sync"
    ASYNC = "async"
    AUTO = "auto"
    CLOSE = "close"


@dataclass
class _CommitFuture:
    """One OffsetCommit request's future: whose it is and the generation it went with; done
    once answered."""

    kind: _Kind
    offsets: Offsets
    generation: int
    member_id: str
    sent_ms: int
    done: bool = False
    error: str | None = None
    retriable: bool = False


@dataclass
class _Completion:
    """OffsetCommitCompletion: a finished commit whose callback waits for the next call."""

    kind: _Kind
    offsets: Offsets
    error: str | None
    retriable: bool


@dataclass(frozen=True)
class _InFlight:
    """A heartbeat on the wire: the generation it speaks for, and when it went."""

    generation: int
    member_id: str
    sent_ms: int


#: JoinGroupResponseHandler raises these as their own class, anything else as "unexpected";
#: SyncGroupResponseHandler likewise for its list.
_JOIN_OWN_EXCEPTION = tuple(e for e in EXCEPTION_CLASSES if e is not Errors.ILLEGAL_GENERATION)
_SYNC_OWN_EXCEPTION = (Errors.GROUP_AUTHORIZATION_FAILED, Errors.REBALANCE_IN_PROGRESS,
                       Errors.FENCED_INSTANCE_ID, Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION,
                       Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR)
#: The join errors joinGroupIfNeeded goes round again for at once.
_JOIN_AGAIN_AT_ONCE = (Errors.UNKNOWN_MEMBER_ID, Errors.REBALANCE_IN_PROGRESS)
_RETRIABLE_JOIN_ERRORS = (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
                          Errors.COORDINATOR_LOAD_IN_PROGRESS)

_COORDINATOR_ERRORS = (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR)
#: OffsetCommitResponseHandler retries these; the last three also mark the coordinator unknown.
_RETRIABLE_COMMIT_ERRORS = (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                            Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
                            Errors.REQUEST_TIMED_OUT)
_COMMIT_COORDINATOR_ERRORS = (*_COORDINATOR_ERRORS, Errors.REQUEST_TIMED_OUT)


class ClassicConsumer:
    """One consumer; ``handle`` takes an event and returns what the client did, in order."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.subscriptions = SubscriptionState()
        self.state = MemberState.UNJOINED
        self.generation_id = NO_GENERATION
        self.member_id = UNKNOWN_MEMBER_ID
        self.rejoin_needed = False
        self.rejoin_reason = ""
        self.pending: str | None = None
        # the answer that failed the round while the consumer had unsubscribed: Kafka's join
        # future stays failed, and the join loop of the first poll after a subscription reads it
        self.failed_join: JoinGroupResponse | None = None
        self.failed_sync: Errors | None = None
        self.heartbeat_failure: Errors | None = None  # the heartbeat thread's failure cause
        self.protocol_name: str | None = None
        # a completed join whose protocol this member did not offer: onJoinComplete refuses it
        # at every poll, as the join future stays completed (joinGroupIfNeeded reads it again)
        self.refused_protocol: str | None = None
        self.assignor_generation = NO_GENERATION  # CooperativeStickyAssignor's own generation
        self.now_ms = 0
        self.heartbeat = hb.Heartbeat(config)
        # (generation, member id) of each heartbeat sent and not answered, oldest first
        self.heartbeats_in_flight: deque[_InFlight] = deque()
        self.pending_since_ms = 0
        # the JoinGroup / SyncGroup in flight was disconnected: its future has failed
        self.pending_lost = False
        # a handler marked the coordinator unknown: its connection is closed at the next network
        # poll (ConsumerNetworkClient#disconnectAsync)
        self.disconnect_pending = False
        self.cluster: dict[str, TopicMetadata] = {}
        self.is_leader = False
        # ConsumerCoordinator's commit bookkeeping
        self.in_flight_commits: deque[_CommitFuture] = deque()
        self.completed_offset_commits: deque[_Completion] = deque()
        self.async_commit_fenced = False
        self.next_auto_commit_deadline = config.auto_commit_interval_ms
        self.auto_commit_offset_request_future: _CommitFuture | None = None
        self.join_prepare_deadline: int | None = None
        # what makes a rejoin due (rejoinNeededOrPending)
        self.metadata_version = 0
        self.joined_subscription: frozenset[str] | None = None
        self.assignment_snapshot: MetadataSnapshot | None = None
        self.closing: str | None = None  # close()'s membership operation while it waits
        self.closed = False
        self._out: list[Output] = []

    # --- the application's calls -----------------------------------------------------------

    def handle(self, event: Event) -> tuple[Output, ...]:
        self._out = []
        if self.closed:
            if isinstance(event, APPLICATION_CALLS):
                self._out.append(Raised("IllegalStateException", "the consumer is closed"))
        elif self.closing is not None and isinstance(event, APPLICATION_CALLS):
            raise InputError("event", f"{type(event).__name__}: the application is still blocked in close()")
        elif isinstance(event, Close):
            self.close(event.operation)
        elif isinstance(event, Subscribe):
            self.subscribe(event.topics)
        elif isinstance(event, Assign):
            self.assign(event.partitions)
        elif isinstance(event, Unsubscribe):
            self.unsubscribe()
        elif isinstance(event, Poll):
            self.poll(event.now_ms)
        elif isinstance(event, CommitSync):
            self.commit_sync(event.offsets)
        elif isinstance(event, JoinAnswered):
            if self.pending_lost:
                pass  # its request was disconnected: no answer is awaited on that connection
            elif self.state is MemberState.PREPARING_REBALANCE:
                self.on_join_response(event)
            elif self.pending == "join":
                self.on_join_response_after_reset(event.response)
        elif isinstance(event, SyncAnswered):
            if self.pending_lost:
                pass
            elif self.state is MemberState.COMPLETING_REBALANCE:
                self.on_sync_response(event)
            elif self.pending == "sync":
                self.on_sync_response_after_reset(event.response.error)
        elif isinstance(event, Tick):
            self.now_ms = max(self.now_ms, event.now_ms)
        elif isinstance(event, HeartbeatAnswered):
            self.on_heartbeat_response(event.response.error)
        elif isinstance(event, OffsetFetchAnswered):
            self.on_offset_fetch(event)
        elif isinstance(event, SubscribePattern):
            self.subscribe_pattern(event.pattern)
        elif isinstance(event, Metadata):
            self.cluster = {t.name: t for t in event.topics}
            self.metadata_version += 1
            if self.subscriptions.has_pattern_subscription():
                self.update_pattern_subscription()
        elif isinstance(event, CommitAsync):
            self.commit_async(event.offsets)
        elif isinstance(event, OffsetCommitAnswered):
            self.on_offset_commit_response(event.response)
        elif isinstance(event, Consumed):
            self.subscriptions.consumed(event.offsets)
        if not self.closed:
            self.poll_network()
            self.run_heartbeat_thread()
        return tuple(self._out)

    def subscribe(self, topics: tuple[str, ...]) -> None:
        if not topics:
            self.unsubscribe()
        elif self.subscriptions.mode is Mode.ASSIGNED:
            self._out.append(Raised("IllegalStateException", "subscribe() after assign()"))
        elif self.subscriptions.has_pattern_subscription():
            self._out.append(Raised("IllegalStateException", "subscribe() after subscribe(Pattern)"))
        else:
            # AbstractCoordinator's flag is set from the start and after a leave; a changed
            # subscription is found by rejoinNeededOrPending at the next poll
            subscribed_before = self.subscriptions.mode is Mode.SUBSCRIBED
            if self.subscriptions.subscribe(set(topics)) and not subscribed_before:
                self.rejoin_needed = True

    def subscribe_pattern(self, pattern: str) -> None:
        mode = self.subscriptions.mode
        topics_subscribed = mode is Mode.SUBSCRIBED and not self.subscriptions.has_pattern_subscription()
        if mode is Mode.ASSIGNED or topics_subscribed:
            after = "assign()" if mode is Mode.ASSIGNED else "subscribe()"
            self._out.append(Raised("IllegalStateException", f"subscribe(Pattern) after {after}"))
            return
        if mode is Mode.NONE:
            self.rejoin_needed = True  # a changed pattern's new matches are seen at the next poll
        self.subscriptions.subscribe_pattern(pattern)
        self.update_pattern_subscription()

    def update_pattern_subscription(self) -> None:
        self.subscriptions.subscribe_from_pattern(
            {t for t in self.cluster if self.subscriptions.matches_subscribed_pattern(t)})

    def assign(self, partitions: tuple[TP, ...]) -> None:
        if not partitions:
            self.unsubscribe()
        elif self.subscriptions.mode is Mode.SUBSCRIBED:
            self._out.append(Raised("IllegalStateException", "assign() after subscribe()"))
        else:
            # ClassicKafkaConsumer#assign: maybeAutoCommitOffsetsAsync first (the partitions
            # given up meet no rebalance that would commit them); commitOffsetsAsync runs the
            # finished callbacks before it sends, and a fenced async commit stops the call
            if self.config.enable_auto_commit and self.now_ms >= self.next_auto_commit_deadline:
                if not self.invoke_completed_offset_commit_callbacks():
                    return
                self.maybe_auto_commit_offsets_async()
            self.subscriptions.assign_from_user(set(partitions))

    def unsubscribe(self) -> None:
        self.refused_protocol = None
        self.on_leave_prepare()
        self.maybe_leave_group("DEFAULT", "the consumer unsubscribed from all topics")
        # the join future survives the leave: a JoinGroup or SyncGroup still out stays awaited
        self.subscriptions.unsubscribe()
        self.rejoin_needed = False

    def close(self, operation: str) -> None:
        """ConsumerCoordinator.close: maybeAutoCommitOffsetsSync (waits for the answer), then
        AbstractCoordinator.close: onLeavePrepare and maybeLeaveGroup."""
        self.closing = operation
        if self.config.enable_auto_commit and self.invoke_completed_offset_commit_callbacks(swallow=True):
            offsets = self.subscriptions.all_consumed()
            if offsets and self.check_commit(offsets) is None:
                self.send_offset_commit_request(_Kind.CLOSE, offsets)
                return
        self.finish_close()

    def finish_close(self) -> None:
        operation = self.closing or "DEFAULT"
        self.on_leave_prepare()
        self.maybe_leave_group(operation, "the consumer is being closed")
        self.pending, self.pending_lost = None, False
        self.heartbeats_in_flight.clear()  # the heartbeat thread is closed with the consumer
        self.subscriptions.assign_from_subscribed(set())
        self.rejoin_needed = False
        self.in_flight_commits.clear()
        self.completed_offset_commits.clear()
        self.closing = None
        self.closed = True

    def poll(self, now_ms: int) -> None:
        self.now_ms = max(self.now_ms, now_ms)
        if self.subscriptions.mode is Mode.NONE:  # ClassicKafkaConsumer#poll refuses first
            self._out.append(Raised("IllegalStateException", NOT_SUBSCRIBED))
            return
        if not self.invoke_completed_offset_commit_callbacks():
            return
        if self.subscriptions.has_auto_assigned_partitions():
            if self.heartbeat_failure is not None:  # pollHeartbeat throws the thread's failure
                failure, self.heartbeat_failure = self.heartbeat_failure, None
                self._out.append(Raised(EXCEPTION_CLASSES[failure], failure.name))
                return
            self.heartbeat.poll(self.now_ms)  # the application is alive
            self.check_rejoin_triggers()
            if self.refused_protocol is not None:
                if not self.generation_reset():
                    self._out.append(Raised("IllegalStateException", self.unoffered(self.refused_protocol)))
                    return
                self.refused_protocol = None
            if self.failed_join is not None or self.failed_sync is not None:
                # the join loop reads the round that failed while the consumer had unsubscribed
                join, sync = self.failed_join, self.failed_sync
                self.failed_join = self.failed_sync = None
                if join is not None:
                    self.read_failed_join(join)
                elif sync is not None:
                    self.read_failed_sync(sync)
                return
            if self.pending is not None and not self.pending_lost:
                self.poll_network()  # the join loop's client.poll on the pending round's future
            if self.pending_lost:
                # joinGroupIfNeeded finds the join future failed (retriable) and, its timer
                # spent, returns: the JoinGroup goes at the next poll
                self.pending, self.pending_lost = None, False
                self.request_rejoin("rebalance failed due to DisconnectException")
                return
            if self.pending is not None:
                return  # a rebalance is under way: the poll ends before the auto-commit
            if self.state in (MemberState.PREPARING_REBALANCE, MemberState.COMPLETING_REBALANCE):
                self.send_join_group()  # after a failed round: needsJoinPrepare is spent
                return
            if self.rejoin_needed:
                self.join_group_if_needed()
                return
        self.maybe_auto_commit_offsets_async()

    def join_group_if_needed(self) -> None:
        """onJoinPrepare (once its auto-commit settles) and the JoinGroup, if a rejoin is needed."""
        if self.rejoin_needed and self.on_join_prepare_commit():
            self.on_join_prepare()
            self.send_join_group()

    def commit_sync(self, offsets: Offsets) -> None:
        if not self.invoke_completed_offset_commit_callbacks() or not offsets:
            return
        failure = self.check_commit(offsets)
        if failure is not None:
            self._out.append(Raised(*failure))
            return
        self.send_offset_commit_request(_Kind.SYNC, offsets)

    def commit_async(self, offsets: Offsets) -> None:
        if self.invoke_completed_offset_commit_callbacks():
            self.do_commit_offsets_async(_Kind.ASYNC, offsets)

    # --- ConsumerCoordinator's commits ---------------------------------------------------------

    def check_commit(self, offsets: Offsets) -> tuple[str, str] | None:
        """sendOffsetCommitRequest's refusals before anything is sent."""
        if not offsets:
            return None
        for _, offset in sorted(offsets):
            if offset < 0:
                return "IllegalArgumentException", f"Invalid offset: {offset}"
        if self.subscriptions.has_auto_assigned_partitions() and self.state is not MemberState.STABLE:
            if self.rebalance_in_progress():
                return "RebalanceInProgressException", "the group is rebalancing"
            return "CommitFailedException", "the consumer is not in an active group"
        return None

    def send_offset_commit_request(self, kind: _Kind, offsets: Offsets) -> _CommitFuture:
        if self.subscriptions.has_auto_assigned_partitions():
            generation, member, instance = self.generation_id, self.member_id, self.config.group_instance_id
        else:
            generation, member, instance = NO_GENERATION, UNKNOWN_MEMBER_ID, None
        by_topic: dict[str, list[CommitPartition]] = {}
        for (topic, partition), offset in sorted(dict(offsets).items()):
            by_topic.setdefault(topic, []).append(CommitPartition(partition, offset))
        topics = tuple(CommitTopic(t, tuple(ps)) for t, ps in by_topic.items())
        self._out.append(Sent(OffsetCommit(self.config.group_id, generation, member,
                                           group_instance_id=instance, topics=topics)))
        future = _CommitFuture(kind, offsets, generation, member, sent_ms=self.now_ms)
        self.in_flight_commits.append(future)
        return future

    def do_commit_offsets_async(self, kind: _Kind, offsets: Offsets) -> _CommitFuture | None:
        """The request, or None when the commit finished at once (its completion is queued)."""
        failure = self.check_commit(offsets)
        if failure is None and offsets:
            return self.send_offset_commit_request(kind, offsets)
        self.completed_offset_commits.append(
            _Completion(kind, offsets, failure[0] if failure else None, retriable=False))
        return None

    def invoke_completed_offset_commit_callbacks(self, swallow: bool = False) -> bool:
        if self.async_commit_fenced:
            if not swallow:  # close() logs it and goes on
                self._out.append(Raised("FencedInstanceIdException", "an asynchronous commit was fenced"))
            return False
        while self.completed_offset_commits:
            completion = self.completed_offset_commits.popleft()
            if completion.kind is _Kind.ASYNC:
                self._out.append(CommitCallback(completion.offsets, completion.error))
            elif completion.retriable:  # the auto-commit's own callback backs off
                self.next_auto_commit_deadline = self.now_ms + self.config.retry_backoff_ms
        return True

    def maybe_auto_commit_offsets_async(self) -> None:
        if self.config.enable_auto_commit and self.now_ms >= self.next_auto_commit_deadline:
            self.next_auto_commit_deadline = self.now_ms + self.config.auto_commit_interval_ms
            self.do_commit_offsets_async(_Kind.AUTO, self.subscriptions.all_consumed())

    def on_join_prepare_commit(self) -> bool:
        """The first half of onJoinPrepare: commit the positions before giving partitions up."""
        if not self.config.enable_auto_commit:
            return True
        if self.join_prepare_deadline is None:
            self.join_prepare_deadline = self.now_ms + self.config.rebalance_timeout_ms
        if self.auto_commit_offset_request_future is None:
            # None back: it finished at once (nothing to commit, or not in the group)
            self.auto_commit_offset_request_future = self.do_commit_offsets_async(
                _Kind.AUTO, self.subscriptions.all_consumed())
        future = self.auto_commit_offset_request_future
        if future is not None:
            if self.now_ms >= self.join_prepare_deadline:
                completed = True
            elif not future.done:
                completed = False
            else:
                completed = not future.retriable
            if future.done:
                self.auto_commit_offset_request_future = None
            if not completed:
                return False
        self.join_prepare_deadline = None
        self.auto_commit_offset_request_future = None
        return True

    def on_offset_commit_response(self, response: OffsetCommitResponse) -> None:
        if not self.in_flight_commits:
            return
        future = self.in_flight_commits.popleft()
        on_the_connection = len(self.in_flight_commits)
        error, retriable = self.commit_error(future, response)
        self.complete_offset_commit(future, error, retriable)
        if self.disconnect_pending:
            # the commits sent before a retry (which went to the coordinator found again) fail
            self.disconnect_pending = False
            self.mark_coordinator_unknown(on_the_connection)

    def complete_offset_commit(self, future: _CommitFuture, error: str | None, retriable: bool) -> None:
        """The commit's future completes: answered, or failed by a disconnect."""
        future.done, future.error, future.retriable = True, error, retriable
        if future.kind is _Kind.CLOSE:
            if (self.invoke_completed_offset_commit_callbacks(swallow=True) and retriable
                    and self.check_commit(future.offsets) is None):
                self.send_offset_commit_request(_Kind.CLOSE, future.offsets)
            else:
                self.finish_close()
            return
        if future.kind is _Kind.SYNC:
            # commitOffsetsSync: earlier async callbacks first, then the outcome; a retriable
            # failure is tried again at once
            if not self.invoke_completed_offset_commit_callbacks() or error is None:
                return
            if retriable:
                failure = self.check_commit(future.offsets)
                if failure is None:
                    self.send_offset_commit_request(_Kind.SYNC, future.offsets)
                else:
                    self._out.append(Raised(*failure))
            else:
                self._out.append(Raised(error, "the offset commit failed"))
            return
        self.completed_offset_commits.append(_Completion(future.kind, future.offsets, error, retriable))
        if error == "FencedInstanceIdException":  # any async commit, the auto-commit's too
            self.async_commit_fenced = True

    def commit_error(self, sent: _CommitFuture, response: OffsetCommitResponse) -> tuple[str | None, bool]:
        """OffsetCommitResponseHandler: the exception (None: committed) and whether it is retriable."""
        unchanged = self.generation_id == sent.generation and self.member_id == sent.member_id
        unauthorized_topics: set[str] = set()
        for topic in response.topics:
            for partition in topic.partitions:
                error = partition.error
                if error is Errors.NONE:
                    continue
                if error is Errors.GROUP_AUTHORIZATION_FAILED:
                    return "GroupAuthorizationException", False
                elif error is Errors.TOPIC_AUTHORIZATION_FAILED:
                    unauthorized_topics.add(topic.name)
                elif error is Errors.OFFSET_METADATA_TOO_LARGE:
                    return "OffsetMetadataTooLarge", False
                elif error is Errors.INVALID_COMMIT_OFFSET_SIZE:
                    return "InvalidCommitOffsetSizeException", False
                elif error in _RETRIABLE_COMMIT_ERRORS:
                    if error in _COMMIT_COORDINATOR_ERRORS:
                        self.disconnect_pending = True  # markCoordinatorUnknown
                    return "RetriableCommitFailedException", True
                elif error is Errors.FENCED_INSTANCE_ID:
                    if unchanged:
                        return "FencedInstanceIdException", False
                    if self.state is MemberState.PREPARING_REBALANCE:
                        return "RebalanceInProgressException", False
                    return "CommitFailedException", False
                elif error is Errors.REBALANCE_IN_PROGRESS:
                    self.request_rejoin("offset commit failed since group is already rebalancing")
                    return "RebalanceInProgressException", False
                elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
                    if not unchanged and self.state is MemberState.PREPARING_REBALANCE:
                        return "RebalanceInProgressException", False
                    self.reset_state_on_response_error("OFFSET_COMMIT", error)
                    return "CommitFailedException", False
                else:
                    return "KafkaException", False
        if unauthorized_topics:
            return "TopicAuthorizationException", False
        return None, False

    # --- AbstractCoordinator ------------------------------------------------------------------

    def has_not_joined_group(self) -> bool:
        """MemberState#hasNotJoinedGroup: no JoinGroup answer yet for the current round."""
        return self.state in (MemberState.UNJOINED, MemberState.PREPARING_REBALANCE)

    def rebalance_in_progress(self) -> bool:
        return self.state in (MemberState.PREPARING_REBALANCE, MemberState.COMPLETING_REBALANCE)

    def generation_reset(self) -> bool:
        return self.generation_id == NO_GENERATION or self.member_id == UNKNOWN_MEMBER_ID

    def reset_state(self, reset_member_id: bool) -> None:
        self.state = MemberState.UNJOINED
        self.generation_id = NO_GENERATION
        if reset_member_id:
            self.member_id = UNKNOWN_MEMBER_ID

    def request_rejoin(self, reason: str) -> None:
        self.rejoin_reason = reason
        self.rejoin_needed = True

    def request_rejoin_if_necessary(self, reason: str) -> None:
        if not self.rejoin_needed:
            self.request_rejoin(reason)

    def reset_state_on_response_error(self, api: str, error: Errors) -> None:
        self.reset_state(reset_member_id=error is not Errors.ILLEGAL_GENERATION)
        self.request_rejoin(f"encountered {error.name} from {api} response")

    def send_join_group(self) -> None:
        self.state = MemberState.PREPARING_REBALANCE
        self.pending = "join"
        self.pending_since_ms = self.now_ms
        self.joined_subscription = frozenset(self.subscriptions.subscription)
        owned: dict[str, list[int]] = {}
        for topic, partition in sorted(self.subscriptions.assigned):
            owned.setdefault(topic, []).append(partition)
        user_data = None
        if self.config.assignors[0] == COOPERATIVE_STICKY_ASSIGNOR_NAME:  # the first protocol's is shown
            user_data = self.assignor_generation.to_bytes(4, "big", signed=True)
        metadata = ConsumerProtocolSubscription(
            topics=tuple(sorted(self.subscriptions.subscription)),
            owned_partitions=tuple(ConsumerProtocolSubscription.TopicPartition(t, tuple(ps))
                                   for t, ps in owned.items()),
            generation_id=self.generation_id, rack_id=self.config.client_rack, user_data=user_data)
        request = JoinGroup(group_id=self.config.group_id, member_id=self.member_id,
                            session_timeout_ms=self.config.session_timeout_ms,
                            rebalance_timeout_ms=self.config.rebalance_timeout_ms,
                            group_instance_id=self.config.group_instance_id,
                            protocols=tuple(Protocol(a) for a in self.config.assignors),
                            reason=self.rejoin_reason)
        self._out.append(Sent(request, metadata))

    def on_join_response(self, event: JoinAnswered) -> None:
        self.pending = None
        response = event.response
        error = response.error
        if error is Errors.NONE:
            self.member_id = response.member_id
            self.generation_id = response.generation_id
            self.protocol_name = response.protocol_name
            self.state = MemberState.COMPLETING_REBALANCE
            self.heartbeat.reset_timeouts(self.now_ms)  # HeartbeatThread#enable
            group_assignment: tuple[tuple[str, ConsumerProtocolAssignment], ...] = ()
            if response.leader == response.member_id:
                try:
                    group_assignment = self.on_leader_elected(event)
                except _AssignmentFailed as e:
                    # the join future fails: no SyncGroup; the next poll joins again (without
                    # another join-prepare, as joinGroupIfNeeded's needsJoinPrepare is spent).
                    # The state stays COMPLETING_REBALANCE, set before onLeaderElected ran.
                    self.request_rejoin("rebalance failed due to IllegalStateException")
                    self._out.append(Raised("IllegalStateException", str(e)))
                    return
            self.pending = "sync"
            self.pending_since_ms = self.now_ms
            self._out.append(Sent(
                SyncGroup(self.config.group_id, response.generation_id, response.member_id,
                          group_instance_id=self.config.group_instance_id,
                          protocol_type=response.protocol_type, protocol_name=response.protocol_name),
                assignments=group_assignment))
        elif error is Errors.UNKNOWN_MEMBER_ID:
            self.reset_state_on_response_error("JOIN_GROUP", error)
            self.join_failed(error, "UnknownMemberIdException", thrown=False)
            self.join_group_if_needed()  # resetStateAndRejoin set needsJoinPrepare: lost first
        elif error is Errors.MEMBER_ID_REQUIRED:
            self.member_id = response.member_id
            self.generation_id = NO_GENERATION
            self.request_rejoin(f"need to re-join with the given member-id: {response.member_id}")
            self.send_join_group()
        elif error is Errors.REBALANCE_IN_PROGRESS:
            self.join_failed(error, "RebalanceInProgressException", thrown=False)
            self.send_join_group()
        else:
            exception = EXCEPTION_CLASSES[error] if error in _JOIN_OWN_EXCEPTION else "KafkaException"
            self.join_failed(error, exception, thrown=error not in _RETRIABLE_JOIN_ERRORS)
            if error in _COORDINATOR_ERRORS:
                self.mark_coordinator_unknown()  # JoinGroupResponseHandler: its connection closes

    def on_leader_elected(self, event: JoinAnswered) -> tuple[tuple[str, ConsumerProtocolAssignment], ...]:
        """ConsumerCoordinator.onLeaderElected: run the chosen assignor over the members'
        subscriptions and the cluster metadata; a driver's ``leader_assignments`` replace the run."""
        response = event.response
        strategy = response.protocol_name or ""
        scripted = bool(event.leader_assignments) or response.skip_assignment or not event.members
        if strategy not in self.config.assignors:  # lookupAssignor comes first
            raise _AssignmentFailed(self.unoffered(strategy))
        self.subscriptions.group_subscribe({t for m in event.members for t in m.subscription.topics})
        self.is_leader = True
        if scripted:
            self.assignment_snapshot = self.metadata_snapshot()
            return event.leader_assignments
        if strategy not in ASSIGNORS:
            raise InputError("members", f"no model of assignor {strategy!r}: give leader_assignments instead")
        owned: dict[str, list[TP]] = {}
        subscriptions: list[ClassicMember] = []
        for m in event.members:
            sub = m.subscription
            owned[m.member_id] = [(tp.topic, p) for tp in sub.owned_partitions for p in tp.partitions]
            subscriptions.append(ClassicMember(
                m.member_id, sub.topics, owned_partitions=tuple(owned[m.member_id]),
                group_instance_id=m.group_instance_id, generation_id=sub.generation_id,
                rack_id=sub.rack_id, user_data=sub.user_data))
        cluster = ClassicAssignorInput(
            assignor=strategy, members=tuple(subscriptions),
            topics={name: t.partitions for name, t in self.cluster.items()},
            replica_racks={name: tuple(frozenset(r) for r in t.replica_racks)
                           for name, t in self.cluster.items() if t.replica_racks})
        assignments = classic_assignors.assign(cluster)
        if (self.config.protocol is RebalanceProtocol.COOPERATIVE
                and strategy != COOPERATIVE_STICKY_ASSIGNOR_NAME):
            self.validate_cooperative_assignment(owned, assignments)
        self.assignment_snapshot = self.metadata_snapshot()
        return tuple((m.member_id, self.serialize_assignment(assignments.get(m.member_id, ())))
                     for m in event.members)

    @staticmethod
    def validate_cooperative_assignment(owned: dict[str, list[TP]],
                                        assignments: ClassicAssignment) -> None:
        total_revoked: set[TP] = set()
        total_added: set[TP] = set()
        for member, partitions in assignments.items():
            had = set(owned.get(member, ()))
            total_added |= set(partitions) - had
            total_revoked |= had - set(partitions)
        moved = total_added & total_revoked
        if moved:
            names = ", ".join(f"{t}-{p}" for t, p in sorted(moved))
            raise _AssignmentFailed(
                f"the cooperative protocol forbids handing owned partitions straight over ({names})")

    @staticmethod
    def serialize_assignment(partitions: tuple[TP, ...]) -> ConsumerProtocolAssignment:
        by_topic: dict[str, list[int]] = {}
        for topic, partition in sorted(set(partitions)):
            by_topic.setdefault(topic, []).append(partition)
        return ConsumerProtocolAssignment(tuple(
            ConsumerProtocolAssignment.TopicPartition(t, tuple(ps)) for t, ps in by_topic.items()))

    def on_sync_response(self, event: SyncAnswered) -> None:
        self.pending = None
        error = event.response.error
        if error is Errors.NONE:
            self.state = MemberState.STABLE
            self.rejoin_needed = False
            assigned = {(tp.topic, p) for tp in event.assignment.assigned_partitions for p in tp.partitions}
            self.rejoin_reason = ""
            if not self.on_join_complete(assigned):
                return  # thrown out of the join loop
            # joinGroupIfNeeded loops while a rejoin is needed or pending, in the same poll
            self.check_rejoin_triggers()
            self.join_group_if_needed()
            return
        exception = EXCEPTION_CLASSES[error] if error in _SYNC_OWN_EXCEPTION else "KafkaException"
        if error is Errors.REBALANCE_IN_PROGRESS:
            self.join_failed(error, exception, thrown=False)
            self.send_join_group()
        elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
            self.reset_state_on_response_error("SYNC_GROUP", error)
            self.join_failed(error, exception, thrown=False)
            self.join_group_if_needed()  # resetStateAndRejoin set needsJoinPrepare: lost first
        elif error in _COORDINATOR_ERRORS:
            # the state stays COMPLETING_REBALANCE until the next poll's JoinGroup; the
            # coordinator's connection closes, and what else was in flight on it fails
            self.join_failed(error, exception, thrown=False)
            self.mark_coordinator_unknown()
        else:
            self.join_failed(error, exception)

    def on_join_response_after_reset(self, response: JoinGroupResponse) -> None:
        """JoinGroupResponseHandler when the member was reset meanwhile: a success is refused
        (UnjoinedGroupException), generationUnchanged() is false so nothing is reset, and
        joinGroupIfNeeded treats the failure as any other (needsJoinPrepare was set again by
        the reset)."""
        self.pending = None
        if response.error in _COORDINATOR_ERRORS:
            self.mark_coordinator_unknown()  # in the handler, whatever the subscription
        if self.subscriptions.mode is not Mode.SUBSCRIBED:
            # it left: no join loop runs, and the join future stays failed until one does
            if response.error is Errors.MEMBER_ID_REQUIRED:  # the handler takes the id at once
                self.member_id = response.member_id
                self.generation_id = NO_GENERATION
            self.failed_join = response
            return
        self.read_failed_join(response)

    def read_failed_join(self, response: JoinGroupResponse) -> None:
        """joinGroupIfNeeded reading a join future that failed after a reset."""
        error = response.error
        if error is Errors.NONE:
            self.request_rejoin("rebalance failed due to UnjoinedGroupException")
            return
        if error is Errors.MEMBER_ID_REQUIRED:
            self.member_id = response.member_id
            self.generation_id = NO_GENERATION
            self.request_rejoin(f"need to re-join with the given member-id: {response.member_id}")
        else:
            exception = EXCEPTION_CLASSES[error] if error in _JOIN_OWN_EXCEPTION else "KafkaException"
            retried = error in _RETRIABLE_JOIN_ERRORS or error in _JOIN_AGAIN_AT_ONCE
            self.join_failed(error, exception, thrown=not retried)
        if error in _JOIN_AGAIN_AT_ONCE or error is Errors.MEMBER_ID_REQUIRED:
            self.join_group_if_needed()

    def on_sync_response_after_reset(self, error: Errors) -> None:
        """SyncGroupResponseHandler when the generation was cleared meanwhile: a success is
        raised as ILLEGAL_GENERATION, and the join loop goes round again at once for it and for
        the errors it always retries at once; a coordinator error waits for the next poll, and
        any other is thrown."""
        self.pending = None
        if error in _COORDINATOR_ERRORS:
            self.mark_coordinator_unknown()  # in the handler, whatever the subscription
        if self.subscriptions.mode is not Mode.SUBSCRIBED:
            # it left: no join loop runs, and the join future stays failed until one does
            self.failed_sync = error
            return
        self.read_failed_sync(error)

    def read_failed_sync(self, error: Errors) -> None:
        """joinGroupIfNeeded reading a join future whose SyncGroup failed after a reset."""
        if error is Errors.NONE:
            error = Errors.ILLEGAL_GENERATION
        exception = EXCEPTION_CLASSES[error] if error in _SYNC_OWN_EXCEPTION else "KafkaException"
        again = error in (Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.REBALANCE_IN_PROGRESS)
        self.join_failed(error, exception, thrown=not again and error not in _COORDINATOR_ERRORS)
        if again:
            self.join_group_if_needed()

    # --- the heartbeat thread (AbstractCoordinator.HeartbeatThread) -----------------------------

    def poll_network(self) -> None:
        """NetworkClient's request timeouts: a request unanswered past its timeout closes the
        coordinator's connection (a JoinGroup waits out the rebalance timeout and 5 s more)."""
        now, timeout = self.now_ms, self.config.request_timeout_ms
        expired = any(h.sent_ms + timeout <= now for h in self.heartbeats_in_flight)
        expired = expired or any(f.sent_ms + timeout <= now for f in self.in_flight_commits)
        if self.pending is not None and not self.pending_lost:
            if self.pending == "join":
                timeout = max(timeout, self.config.rebalance_timeout_ms + 5_000)
            expired = expired or self.pending_since_ms + timeout <= now
        if expired:
            self.mark_coordinator_unknown()

    def run_heartbeat_thread(self) -> None:
        """HeartbeatThread#run's loop at the current time, until it would wait."""
        while True:
            if self.has_not_joined_group() or self.heartbeat_failure is not None:
                return  # disabled until the next JoinGroup answer enables it
            now = self.now_ms
            if self.heartbeat.session_timeout_expired(now):
                self.mark_coordinator_unknown()
            elif self.heartbeat.poll_timeout_expired(now):
                self.handle_poll_timeout_expiry()
            elif not self.heartbeat.should_heartbeat(now):
                return
            else:
                self.heartbeat.sent_heartbeat(now)
                self.send_heartbeat_request()

    def send_heartbeat_request(self) -> None:
        self.heartbeats_in_flight.append(_InFlight(self.generation_id, self.member_id, self.now_ms))
        self._out.append(Sent(Heartbeat(self.config.group_id, self.generation_id, self.member_id,
                                        self.config.group_instance_id)))

    def on_heartbeat_response(self, error: Errors) -> None:
        """HeartbeatResponseHandler and the thread's listener on the heartbeat's future."""
        if not self.heartbeats_in_flight:
            return
        sent = self.heartbeats_in_flight.popleft()
        now = self.now_ms
        if error is Errors.NONE:
            self.heartbeat.receive_heartbeat(now)
        elif error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
            self.heartbeat.fail_heartbeat(now)
            self.mark_coordinator_unknown()
        elif error is Errors.REBALANCE_IN_PROGRESS:
            if self.state is MemberState.STABLE:
                self.request_rejoin("group is already rebalancing")
            self.heartbeat.receive_heartbeat(now)  # still a member while the group rebalances
        elif error in (Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID):
            if (sent.generation, sent.member_id) != (self.generation_id, self.member_id):
                self.heartbeat.receive_heartbeat(now)  # generationUnchanged() is false: ignored
                return
            self.reset_state_on_response_error("HEARTBEAT", error)
            if error is Errors.FENCED_INSTANCE_ID:
                self.heartbeat_failure = error
            else:
                self.heartbeat.fail_heartbeat(now)
        else:
            self.heartbeat.fail_heartbeat(now)

    def mark_coordinator_unknown(self, commits: int | None = None) -> None:
        """The coordinator is dropped and its connection closed: every request in flight on it
        (of the commits, the oldest ``commits``, all by default) fails as disconnected.
        Discovery is not modelled: it is found again at once (FindCoordinatorResponseHandler
        resets the session timer)."""
        now = self.now_ms
        while self.heartbeats_in_flight:
            self.heartbeats_in_flight.popleft()
            self.heartbeat.fail_heartbeat(now)
        if self.pending is not None:
            self.pending_lost = True
        for _ in range(len(self.in_flight_commits) if commits is None else commits):
            if not self.in_flight_commits:
                break  # close() finished on one of them
            self.complete_offset_commit(self.in_flight_commits.popleft(),
                                        "RetriableCommitFailedException", retriable=True)
        self.heartbeat.reset_session_timeout(now)

    def handle_poll_timeout_expiry(self) -> None:
        self.maybe_leave_group("DEFAULT", POLL_TIMEOUT_LEAVE_REASON)

    def maybe_leave_group(self, operation: str, reason: str) -> None:
        if self.should_send_leave_group_request(operation):
            leaving = MemberIdentity(self.member_id, reason=reason)
            self._out.append(Sent(LeaveGroup(self.config.group_id, (leaving,))))
        self.reset_state(reset_member_id=True)
        self.request_rejoin(LEAVE_GROUP_REASON)  # resetGenerationOnLeaveGroup

    def should_send_leave_group_request(self, operation: str) -> bool:
        if self.state is MemberState.UNJOINED or self.member_id == UNKNOWN_MEMBER_ID:
            return False
        dynamic = self.config.group_instance_id is None
        return operation == "LEAVE_GROUP" or (dynamic and operation == "DEFAULT")

    @staticmethod
    def unoffered(protocol: str) -> str:
        return f"the coordinator chose assignment protocol {protocol!r}, which this member did not offer"

    def join_failed(self, error: Errors, exception: str, thrown: bool = True) -> None:
        """joinGroupIfNeeded after a failed round: the rejoin names the exception, and poll
        throws it unless it is retriable; the next poll joins again."""
        self.request_rejoin(f"rebalance failed due to {exception}")
        if thrown:
            self._out.append(Raised(exception, error.name))

    # --- ConsumerCoordinator ------------------------------------------------------------------

    def on_join_prepare(self) -> None:
        owned = self.subscriptions.assigned
        if self.generation_reset():
            if owned:
                self._out.append(Callback("lost", tuple(sorted(owned))))
                self.subscriptions.assign_from_subscribed(set())
        elif self.config.protocol is RebalanceProtocol.EAGER:
            self._out.append(Callback("revoked", tuple(sorted(owned))))
            self.subscriptions.assign_from_subscribed(set())
        else:
            revoked = {tp for tp in owned if tp[0] not in self.subscriptions.subscription}
            if revoked:
                self._out.append(Callback("revoked", tuple(sorted(revoked))))
                self.subscriptions.assign_from_subscribed(owned - revoked)
        self.is_leader = False
        self.subscriptions.reset_group_subscription()

    def on_join_complete(self, assigned: set[TP]) -> bool:
        """False when the chosen protocol is not one this member offered (lookupAssignor)."""
        if not self.is_leader:
            self.assignment_snapshot = None  # only the leader watches for metadata changes
        if (self.protocol_name or "") not in self.config.assignors:
            self.refused_protocol = self.protocol_name or ""
            self._out.append(Raised("IllegalStateException", self.unoffered(self.refused_protocol)))
            return False
        if not self.subscriptions.check_assignment_matched_subscription(assigned):
            # an assignment for an older subscription: join again
            self.request_rejoin("received assignment does not match the current subscription")
            return True
        self.maybe_update_joined_subscription(assigned)
        if self.protocol_name == COOPERATIVE_STICKY_ASSIGNOR_NAME:
            self.assignor_generation = self.generation_id  # the assignor's onAssignment
        self.next_auto_commit_deadline = self.now_ms + self.config.auto_commit_interval_ms
        owned = self.subscriptions.assigned
        added = assigned - owned
        if self.config.protocol is RebalanceProtocol.COOPERATIVE:
            revoked = owned - assigned
            if revoked:
                self._out.append(Callback("revoked", tuple(sorted(revoked))))
                self.request_rejoin("need to revoke partitions and re-join")
        self.subscriptions.assign_from_subscribed(assigned)
        self._out.append(Callback("assigned", tuple(sorted(added))))
        return True

    def maybe_update_joined_subscription(self, assigned: set[TP]) -> None:
        """A pattern member takes matching topics the leader assigned but it did not know of."""
        if self.subscriptions.has_pattern_subscription() and self.joined_subscription is not None:
            added = {topic for topic, _ in assigned} - self.joined_subscription
            if added:
                self.subscriptions.subscribe_from_pattern(self.subscriptions.subscription | added)
                self.joined_subscription = self.joined_subscription | added

    def metadata_snapshot(self) -> MetadataSnapshot:
        """MetadataSnapshot: the watched topics' partitions (with replica racks when the member
        has a rack) at the current metadata version."""
        per_topic: dict[str, tuple[frozenset[str], ...]] = {}
        for topic in self.subscriptions.metadata_topics():
            info = self.cluster.get(topic)
            if info is not None:
                per_topic[topic] = tuple(
                    frozenset(info.replica_racks[p])
                    if self.config.client_rack is not None and info.replica_racks else frozenset()
                    for p in range(info.partitions))
        return MetadataSnapshot(self.metadata_version, per_topic)

    def check_rejoin_triggers(self) -> None:
        """rejoinNeededOrPending's own checks: the leader's metadata, then the subscription."""
        snapshot = self.assignment_snapshot
        metadata_changed = snapshot is not None and not snapshot.matches(self.metadata_snapshot())
        subscription_changed = (self.joined_subscription is not None
                                and self.joined_subscription != self.subscriptions.subscription)
        if metadata_changed:
            self.request_rejoin_if_necessary("cached metadata has changed")
        if subscription_changed:
            self.request_rejoin_if_necessary("subscription has changed")

    def on_leave_prepare(self) -> None:
        dropped = self.subscriptions.assigned
        if self.subscriptions.has_auto_assigned_partitions() and dropped:
            lost = self.generation_reset() or self.rebalance_in_progress()
            self._out.append(Callback("lost" if lost else "revoked", tuple(sorted(dropped))))

    def on_offset_fetch(self, event: OffsetFetchAnswered) -> None:
        """OffsetFetchResponseHandler, then fetchCommittedOffsets: a retriable failure is not
        thrown; the timer spent, the next poll fetches again."""
        error = event.response.error
        if error in _COORDINATOR_ERRORS:
            self.mark_coordinator_unknown()
            return
        if error is Errors.GROUP_AUTHORIZATION_FAILED:
            self._out.append(Raised("GroupAuthorizationException", f"offset fetch failed: {error.name}"))
            return
        if error in RETRIABLE_ERRORS:
            return
        if error is not Errors.NONE:
            self._out.append(Raised("KafkaException", f"offset fetch failed: {error.name}"))
            return
        unstable = False
        for topic in event.response.topics:
            for partition in topic.partitions:
                if partition.error is Errors.UNSTABLE_OFFSET_COMMIT:
                    unstable = True
                elif partition.error is not Errors.NONE:
                    self._out.append(Raised("KafkaException", f"offset fetch failed for {topic.name}-"
                                            f"{partition.partition}: {partition.error.name}"))
                    return
        if unstable:
            return  # fetched again once the pending transaction is settled
        self.subscriptions.start_from_committed(
            tuple(((t.name, p.partition), p.committed_offset) for t in event.response.topics
                  for p in t.partitions if p.committed_offset >= 0))
        missing = sorted({(t.name, p.partition) for t in event.response.topics for p in t.partitions
                          if p.committed_offset < 0})
        if not missing:
            return
        strategy = self.config.auto_offset_reset
        if strategy == "none":
            self._out.append(Raised("NoOffsetForPartitionException",
                                    ", ".join(f"{t}-{p}" for t, p in missing)))
            return
        for tp in missing:
            self._out.append(ResetOffset(tp, strategy))

    def view(self) -> View:
        return View(state=self.state, mode=self.subscriptions.mode, member_id=self.member_id,
                    generation=self.generation_id,
                    subscription=tuple(sorted(self.subscriptions.subscription)),
                    owned=tuple(sorted(self.subscriptions.assigned)),
                    rejoin_needed=self.rejoin_needed and self.subscriptions.mode is Mode.SUBSCRIBED,
                    in_flight=(self.pending if self.state is not MemberState.UNJOINED else None)
                    or ("heartbeat" if self.heartbeats_in_flight else None),
                    fatal=None if self.heartbeat_failure is None else self.heartbeat_failure.name,
                    positions=self.subscriptions.all_consumed(),
                    commits_in_flight=len(self.in_flight_commits), pattern=self.subscriptions.pattern,
                    closing=self.closing is not None, closed=self.closed,
                    heartbeats_in_flight=len(self.heartbeats_in_flight))

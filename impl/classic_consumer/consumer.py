"""The classic consumer's membership, written the way Kafka's client is: a coordinator object
with mutable state (AbstractCoordinator's member state and generation), the consumer-specific
hooks (ConsumerCoordinator's join-prepare and join-complete), and SubscriptionState apart.

Kafka's join loop (``joinGroupIfNeeded``) retries a failed JoinGroup or SyncGroup within the same
poll for the errors it knows are transient; here the answer handler sends the retry directly,
which gives the same requests in the same order. The heartbeat thread is folded into polls.
"""

from __future__ import annotations

from groupspec.impl import classic_assignors
from groupspec.impl.classic_consumer.subscriptions import SubscriptionState
from groupspec.types.classic_assignors import (
    ASSIGNORS,
    ClassicAssignment,
    ClassicAssignorInput,
    ClassicMember,
)
from groupspec.types.classic_consumer import (
    NO_GENERATION,
    TP,
    UNKNOWN_MEMBER_ID,
    Assign,
    Callback,
    CommitSync,
    Config,
    Event,
    HeartbeatAnswered,
    JoinAnswered,
    MemberState,
    Metadata,
    Mode,
    OffsetFetchAnswered,
    Output,
    Poll,
    Raised,
    RebalanceProtocol,
    ResetOffset,
    Sent,
    Subscribe,
    SyncAnswered,
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
    Protocol,
    SyncGroup,
)
from groupspec.types.errors import Errors, InputError
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

COOPERATIVE_STICKY_ASSIGNOR_NAME = "cooperative-sticky"


class _AssignmentFailed(Exception):
    """onLeaderElected's IllegalStateException: the join fails and the application sees it."""


class ClassicConsumer:
    """One consumer; ``handle`` takes an event and returns what the client did, in order."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.subscriptions = SubscriptionState()
        self.state = MemberState.UNJOINED
        self.generation_id = NO_GENERATION
        self.member_id = UNKNOWN_MEMBER_ID
        self.rejoin_needed = False
        self.pending: str | None = None
        self.failed: str | None = None
        self.now_ms = 0
        self.last_heartbeat_ms = 0
        self.cluster: dict[str, TopicMetadata] = {}
        self.is_leader = False
        self._out: list[Output] = []

    # --- the application's calls -----------------------------------------------------------

    def handle(self, event: Event) -> tuple[Output, ...]:
        self._out = []
        if self.failed is not None:
            self._out.append(Raised("KafkaException", f"the consumer failed earlier: {self.failed}"))
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
            if self.state is MemberState.PREPARING_REBALANCE:
                self.on_join_response(event)
        elif isinstance(event, SyncAnswered):
            if self.state is MemberState.COMPLETING_REBALANCE:
                self.on_sync_response(event)
        elif isinstance(event, HeartbeatAnswered):
            self.on_heartbeat_response(event.response.error)
        elif isinstance(event, OffsetFetchAnswered):
            self.on_offset_fetch(event)
        elif isinstance(event, Metadata):
            self.cluster = {t.name: t for t in event.topics}
        return tuple(self._out)

    def subscribe(self, topics: tuple[str, ...]) -> None:
        if not topics:
            self.unsubscribe()
        elif self.subscriptions.mode is Mode.ASSIGNED:
            self._out.append(Raised("IllegalStateException", "subscribe() after assign()"))
        elif self.subscriptions.subscribe(set(topics)):
            self.rejoin_needed = True

    def assign(self, partitions: tuple[TP, ...]) -> None:
        if not partitions:
            self.unsubscribe()
        elif self.subscriptions.mode is Mode.SUBSCRIBED:
            self._out.append(Raised("IllegalStateException", "assign() after subscribe()"))
        else:
            self.subscriptions.assign_from_user(set(partitions))

    def unsubscribe(self) -> None:
        self.on_leave_prepare()
        self.maybe_leave_group()
        self.subscriptions.unsubscribe()
        self.rejoin_needed = False

    def poll(self, now_ms: int) -> None:
        self.now_ms = max(self.now_ms, now_ms)
        if not self.subscriptions.has_auto_assigned_partitions() or self.pending is not None:
            return
        if self.state is MemberState.PREPARING_REBALANCE:
            self.send_join_group()
        elif self.rejoin_needed:
            self.on_join_prepare()
            self.send_join_group()
        elif (self.state is MemberState.STABLE
              and self.now_ms >= self.last_heartbeat_ms + self.config.heartbeat_interval_ms):
            self.last_heartbeat_ms = self.now_ms
            self.pending = "heartbeat"
            self._out.append(Sent(Heartbeat(self.config.group_id, self.generation_id, self.member_id,
                                            self.config.group_instance_id)))

    def commit_sync(self, offsets: tuple[tuple[TP, int], ...]) -> None:
        if not offsets:
            return
        if self.subscriptions.has_auto_assigned_partitions():
            if self.state is not MemberState.STABLE:
                if self.rebalance_in_progress():
                    self._out.append(Raised("RebalanceInProgressException", "the group is rebalancing"))
                else:
                    self._out.append(Raised("CommitFailedException",
                                            "the consumer is not in an active group"))
                return
            generation, member, instance = self.generation_id, self.member_id, self.config.group_instance_id
        else:
            generation, member, instance = NO_GENERATION, UNKNOWN_MEMBER_ID, None
        by_topic: dict[str, list[CommitPartition]] = {}
        for (topic, partition), offset in sorted(dict(offsets).items()):
            by_topic.setdefault(topic, []).append(CommitPartition(partition, offset))
        topics = tuple(CommitTopic(t, tuple(ps)) for t, ps in by_topic.items())
        self._out.append(Sent(OffsetCommit(self.config.group_id, generation, member,
                                           group_instance_id=instance, topics=topics)))

    # --- AbstractCoordinator ------------------------------------------------------------------

    def rebalance_in_progress(self) -> bool:
        return self.state in (MemberState.PREPARING_REBALANCE, MemberState.COMPLETING_REBALANCE)

    def generation_reset(self) -> bool:
        return self.generation_id == NO_GENERATION or self.member_id == UNKNOWN_MEMBER_ID

    def reset_state(self, reset_member_id: bool) -> None:
        self.state = MemberState.UNJOINED
        self.generation_id = NO_GENERATION
        if reset_member_id:
            self.member_id = UNKNOWN_MEMBER_ID

    def send_join_group(self) -> None:
        self.state = MemberState.PREPARING_REBALANCE
        self.pending = "join"
        owned: dict[str, list[int]] = {}
        for topic, partition in sorted(self.subscriptions.assigned):
            owned.setdefault(topic, []).append(partition)
        metadata = ConsumerProtocolSubscription(
            topics=tuple(sorted(self.subscriptions.subscription)),
            owned_partitions=tuple(ConsumerProtocolSubscription.TopicPartition(t, tuple(ps))
                                   for t, ps in owned.items()),
            generation_id=self.generation_id, rack_id=self.config.client_rack)
        request = JoinGroup(group_id=self.config.group_id, member_id=self.member_id,
                            session_timeout_ms=self.config.session_timeout_ms,
                            rebalance_timeout_ms=self.config.rebalance_timeout_ms,
                            group_instance_id=self.config.group_instance_id,
                            protocols=tuple(Protocol(a) for a in self.config.assignors))
        self._out.append(Sent(request, metadata))

    def on_join_response(self, event: JoinAnswered) -> None:
        self.pending = None
        response = event.response
        error = response.error
        if error is Errors.NONE:
            self.member_id = response.member_id
            self.generation_id = response.generation_id
            self.state = MemberState.COMPLETING_REBALANCE
            group_assignment: tuple[tuple[str, ConsumerProtocolAssignment], ...] = ()
            if response.leader == response.member_id:
                try:
                    group_assignment = self.on_leader_elected(event)
                except _AssignmentFailed as e:
                    # the join future fails: no SyncGroup; the next poll joins again (without
                    # another join-prepare, as joinGroupIfNeeded's needsJoinPrepare is spent)
                    self.state = MemberState.PREPARING_REBALANCE
                    self.rejoin_needed = True
                    self._out.append(Raised("IllegalStateException", str(e)))
                    return
            self.pending = "sync"
            self._out.append(Sent(
                SyncGroup(self.config.group_id, response.generation_id, response.member_id,
                          group_instance_id=self.config.group_instance_id,
                          protocol_type=response.protocol_type, protocol_name=response.protocol_name),
                assignments=group_assignment))
        elif error is Errors.UNKNOWN_MEMBER_ID:
            self.reset_state(reset_member_id=True)
            self.send_join_group()
        elif error is Errors.MEMBER_ID_REQUIRED:
            self.member_id = response.member_id
            self.generation_id = NO_GENERATION
            self.send_join_group()
        elif error is Errors.REBALANCE_IN_PROGRESS:
            self.send_join_group()
        elif error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
            pass
        else:
            self.fail(error)

    def on_leader_elected(self, event: JoinAnswered) -> tuple[tuple[str, ConsumerProtocolAssignment], ...]:
        """ConsumerCoordinator.onLeaderElected: run the chosen assignor over the members'
        subscriptions and the cluster metadata; a driver's ``leader_assignments`` replace the run."""
        self.is_leader = True
        response = event.response
        if event.leader_assignments:
            return event.leader_assignments
        if response.skip_assignment or not event.members:
            return ()
        strategy = response.protocol_name or ""
        if strategy not in self.config.assignors:
            raise _AssignmentFailed(
                f"the coordinator chose assignment protocol {strategy!r}, which this member did not offer")
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
            self.last_heartbeat_ms = self.now_ms
            assigned = {(tp.topic, p) for tp in event.assignment.assigned_partitions for p in tp.partitions}
            self.on_join_complete(assigned)
        elif error is Errors.REBALANCE_IN_PROGRESS:
            self.send_join_group()
        elif error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
            self.reset_state(reset_member_id=error is Errors.UNKNOWN_MEMBER_ID)
            self.send_join_group()
        elif error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
            self.state = MemberState.PREPARING_REBALANCE
        else:
            self.fail(error)

    def on_heartbeat_response(self, error: Errors) -> None:
        if self.pending != "heartbeat":
            return
        self.pending = None
        if error is Errors.REBALANCE_IN_PROGRESS:
            if self.state is MemberState.STABLE:
                self.rejoin_needed = True
        elif error in (Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID):
            self.reset_state(reset_member_id=error is not Errors.ILLEGAL_GENERATION)
            self.rejoin_needed = True

    def maybe_leave_group(self) -> None:
        # shouldSendLeaveGroupRequest: on unsubscribe (DEFAULT) only a dynamic member leaves
        if (self.state is not MemberState.UNJOINED and self.member_id != UNKNOWN_MEMBER_ID
                and self.config.group_instance_id is None):
            self._out.append(Sent(LeaveGroup(self.config.group_id, (
                MemberIdentity(self.member_id, reason="the consumer unsubscribed from all topics"),))))
        self.reset_state(reset_member_id=True)
        self.pending = None

    def fail(self, error: Errors) -> None:
        self.failed = error.name
        self._out.append(Raised("KafkaException", error.name))

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

    def on_join_complete(self, assigned: set[TP]) -> None:
        if not self.subscriptions.check_assignment_matched_subscription(assigned):
            self.rejoin_needed = True  # an assignment for an older subscription: join again
            return
        owned = self.subscriptions.assigned
        added = assigned - owned
        if self.config.protocol is RebalanceProtocol.COOPERATIVE:
            revoked = owned - assigned
            if revoked:
                self._out.append(Callback("revoked", tuple(sorted(revoked))))
                self.rejoin_needed = True
        self.subscriptions.assign_from_subscribed(assigned)
        self._out.append(Callback("assigned", tuple(sorted(added))))

    def on_leave_prepare(self) -> None:
        dropped = self.subscriptions.assigned
        if self.subscriptions.has_auto_assigned_partitions() and dropped:
            lost = self.generation_reset() or self.rebalance_in_progress()
            self._out.append(Callback("lost" if lost else "revoked", tuple(sorted(dropped))))

    def on_offset_fetch(self, event: OffsetFetchAnswered) -> None:
        error = event.response.error
        if error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR,
                     Errors.COORDINATOR_LOAD_IN_PROGRESS):
            return  # retried
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
                    owned=tuple(sorted(self.subscriptions.assigned)), rejoin_needed=self.rejoin_needed,
                    in_flight=self.pending, fatal=self.failed)

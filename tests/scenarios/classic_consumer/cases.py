"""The classic consumer's scenarios as data: each case is a run of events with what the client
must do at each step and, where it matters, the member's state afterwards. Most are retold from
Kafka's ConsumerCoordinatorTest / AbstractCoordinatorTest (the ``source`` names the test); the
claims are Kafka's behaviour, checked on both layers by test_classic_consumer_scenarios.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace

from groupspec.types.classic_consumer import (
    NOT_SUBSCRIBED,
    TP,
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
)
from groupspec.types.classic_group import (
    CommitPartition,
    CommitTopic,
    FetchedPartition,
    FetchedTopic,
    Heartbeat,
    HeartbeatResponse,
    JoinGroup,
    JoinGroupResponse,
    LeaveGroup,
    MemberIdentity,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetFetchResponse,
    PartitionResult,
    Protocol,
    SyncGroup,
    SyncGroupResponse,
    TopicResult,
)
from groupspec.types.errors import Errors
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

GROUP = "group"
EAGER = Config(group_id=GROUP)
COOP = Config(group_id=GROUP, assignors=("cooperative-sticky",), protocol=RebalanceProtocol.COOPERATIVE)


@dataclass(frozen=True)
class Step:
    event: Event
    #: What the client must do, exactly and in order.
    shows: tuple[Output, ...] = ()
    #: The member state afterwards, when the case claims it.
    ends: MemberState | None = None
    #: The generation afterwards, when the case claims it.
    expect_epoch: int | None = None


@dataclass(frozen=True)
class Case:
    name: str
    #: The Kafka test or class the case is retold from.
    origin: str
    config: Config
    steps: tuple[Step, ...] = field(default_factory=tuple)
    #: The docs/divergences.md entry where Kafka's own client breaks the case's rule and groupspec
    #: keeps it (--target kafka: the vector diverges, tests/kafka/test_kafka_classic_consumer.py).
    divergence: str | None = None

    @property
    def description(self) -> str:
        return self.name.replace("_", " ").capitalize() + f" (retold from {self.origin})."

    @property
    def source(self) -> Mapping[str, str]:
        test_class, _, test = self.origin.partition(".")
        if self.divergence is not None:
            file, where = _DIVERGENCES[self.divergence]
            return {"kind": "divergence", "name": self.divergence,
                    "docs": f"docs/divergences.md#{self.divergence}",
                    "upstream": _INTERNALS.replace("/test/", "/main/") + file, "where": where}
        if test_class in _TESTS and test and " " not in test:
            return {"kind": "upstream", "file": _TESTS[test_class], "test": test}
        main = "clients/src/main/java/org/apache/kafka/clients/consumer/internals/"
        return {"kind": "upstream", "file": main + test_class.split(" ")[0] + ".java", "about": self.origin}


_INTERNALS = "clients/src/test/java/org/apache/kafka/clients/consumer/internals/"
#: Each divergence's upstream file (under the client's internals) and the place in it.
_DIVERGENCES = {
    "classic_commit_partition_order": ("ConsumerCoordinator.java",
                                       "ConsumerCoordinator#sendOffsetCommitRequest"),
}
_TESTS = {"ConsumerCoordinatorTest": _INTERNALS + "ConsumerCoordinatorTest.java",
          "AbstractCoordinatorTest": _INTERNALS + "AbstractCoordinatorTest.java"}
MACHINE = "classic_consumer"
HANDLER = "run"


# --- rejoin reasons (AbstractCoordinator#requestRejoin's short reasons, as JoinGroup carries them) ---
REBALANCING = "group is already rebalancing"
SUBSCRIPTION_CHANGED = "subscription has changed"
METADATA_CHANGED = "cached metadata has changed"
LEFT = "consumer pro-actively leaving the group"
REVOKED = "need to revoke partitions and re-join"
OLD_ASSIGNMENT = "received assignment does not match the current subscription"
COMMIT_REBALANCING = "offset commit failed since group is already rebalancing"
MEMBER_ID_GIVEN = "need to re-join with the given member-id: "


def failed(exception: str) -> str:
    return f"rebalance failed due to {exception}"


def encountered(error: Errors, api: str) -> str:
    return f"encountered {error.name} from {api} response"


# --- builders -----------------------------------------------------------------------------------


def join(config: Config, topics: tuple[str, ...], member: str = "", generation: int = -1,
         owned: tuple[TP, ...] = (), reason: str = "", assigned_in: int | None = None) -> Sent:
    """A JoinGroup as sent; ``reason`` is the rejoin reason ("" for a first join and after a
    completed rebalance); ``assigned_in`` the generation cooperative-sticky's user data names
    (the member's own generation unless that was reset)."""
    grouped = tuple(ConsumerProtocolSubscription.TopicPartition(t, tuple(p for u, p in owned if u == t))
                    for t in sorted({t for t, _ in owned}))
    protocols = tuple(Protocol(a) for a in config.assignors)
    request = JoinGroup(group_id=GROUP, member_id=member, protocols=protocols, reason=reason,
                        session_timeout_ms=config.session_timeout_ms,
                        rebalance_timeout_ms=config.rebalance_timeout_ms)
    user_data = None
    if config.assignors[0] == "cooperative-sticky":
        user_data = (generation if assigned_in is None else assigned_in).to_bytes(4, "big", signed=True)
    return Sent(request, ConsumerProtocolSubscription(topics=topics, owned_partitions=grouped,
                                                      generation_id=generation, user_data=user_data))


def joined(member: str, generation: int, leader: str, protocol: str = "range",
           leader_assignments: tuple[tuple[str, ConsumerProtocolAssignment], ...] = ()) -> JoinAnswered:
    return JoinAnswered(JoinGroupResponse(Errors.NONE, generation_id=generation, protocol_type="consumer",
                                          protocol_name=protocol, leader=leader, member_id=member),
                        leader_assignments)


def join_error(error: Errors, member: str = "") -> JoinAnswered:
    return JoinAnswered(JoinGroupResponse(error, member_id=member))


def sync(member: str, generation: int, protocol: str = "range",
         assignments: tuple[tuple[str, ConsumerProtocolAssignment], ...] = ()) -> Sent:
    return Sent(SyncGroup(GROUP, generation, member, protocol_type="consumer", protocol_name=protocol),
                assignments=assignments)


def assignment(*partitions: TP) -> ConsumerProtocolAssignment:
    topics = sorted({t for t, _ in partitions})
    return ConsumerProtocolAssignment(tuple(
        ConsumerProtocolAssignment.TopicPartition(t, tuple(sorted(p for u, p in partitions if u == t)))
        for t in topics))


def synced(*partitions: TP, protocol: str = "range") -> SyncAnswered:
    # The answer names the protocol the JoinGroup answer chose: Kafka's SyncGroup handler refuses
    # another one (INCONSISTENT_GROUP_PROTOCOL), as --target kafka showed.
    return SyncAnswered(SyncGroupResponse(Errors.NONE, "consumer", protocol), assignment(*partitions))


def sync_error(error: Errors) -> SyncAnswered:
    return SyncAnswered(SyncGroupResponse(error))


def heartbeat(member: str, generation: int) -> Sent:
    return Sent(Heartbeat(GROUP, generation, member))


def beat(error: Errors = Errors.NONE) -> HeartbeatAnswered:
    return HeartbeatAnswered(HeartbeatResponse(error))


def commit(generation: int, member: str, *offsets: tuple[TP, int]) -> Sent:
    topics = tuple(CommitTopic(t, tuple(CommitPartition(p, o) for (u, p), o in sorted(offsets) if u == t))
                   for t in sorted({t for (t, _), _ in offsets}))
    return Sent(OffsetCommit(GROUP, generation, member, topics=topics))


def leave(member: str) -> Sent:
    why = "the consumer unsubscribed from all topics"  # ClassicKafkaConsumer#unsubscribe's reason
    return Sent(LeaveGroup(GROUP, (MemberIdentity(member, reason=why),)))


def fetched(*partitions: tuple[TP, int]) -> OffsetFetchAnswered:
    topics = sorted({t for (t, _), _ in partitions})
    return OffsetFetchAnswered(OffsetFetchResponse(Errors.NONE, tuple(
        FetchedTopic(t, tuple(FetchedPartition(p, o) for (u, p), o in partitions if u == t))
        for t in topics)))


STATIC = Config(group_id=GROUP, group_instance_id="i1")


def static(sent: Sent) -> Sent:
    """The same request from a static member: it carries the group instance id."""
    request = sent.request
    assert not isinstance(request, LeaveGroup), "a LeaveGroup names its members' instance ids itself"
    return replace(sent, request=replace(request, group_instance_id="i1"))


T0, T1, U0 = ("t", 0), ("t", 1), ("u", 0)
CCT, ACT = "ConsumerCoordinatorTest.", "AbstractCoordinatorTest."
S = MemberState


def _stable(config: Config, *owned: TP, member: str = "m1", generation: int = 1) -> tuple[Step, ...]:
    """Subscribe to t, join as the sole member (the leader) and get ``owned``."""
    protocol = config.assignors[0]
    return (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(config, ("t",)),), ends=S.PREPARING_REBALANCE),
        Step(joined(member, generation, member, protocol, ((member, assignment(*owned)),)),
             (sync(member, generation, protocol, ((member, assignment(*owned)),)),),
             ends=S.COMPLETING_REBALANCE),
        Step(synced(*owned, protocol=protocol), (Callback("assigned", tuple(sorted(owned))),), ends=S.STABLE,
             expect_epoch=generation),
    )


CASES: tuple[Case, ...] = (
    Case("leader_joins_and_gets_its_assignment", CCT + "testNormalJoinGroupLeader", EAGER,
         _stable(EAGER, T0, T1)),
    Case("follower_syncs_without_assignments", CCT + "testNormalJoinGroupFollower", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m2", 1, "m1", leader_assignments=(("m2", assignment(T1)),)), (sync("m2", 1),)),
        Step(synced(T1), (Callback("assigned", (T1,)),), ends=S.STABLE, expect_epoch=1),
    )),
    Case("heartbeat_after_the_interval", CCT + "testNormalHeartbeat", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(2_999)),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        # the interval ran out again at 6000: the thread does not wait for the first answer
        Step(Poll(7_000), (heartbeat("m1", 1),)),
        Step(beat(), ends=S.STABLE),
        Step(Poll(7_000)),  # the interval restarted at the second heartbeat
    )),
    Case("heartbeat_goes_while_the_sync_awaits", ACT + "testHeartbeatSentWhenCompletingRebalance", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),), ends=S.COMPLETING_REBALANCE),
        # the JoinGroup answer enabled the heartbeat thread: it beats while the SyncGroup awaits
        Step(Poll(3_000), (heartbeat("m1", 1),), ends=S.COMPLETING_REBALANCE),
        # a rebalance reported while the member is rebalancing already changes nothing
        Step(beat(Errors.REBALANCE_IN_PROGRESS), ends=S.COMPLETING_REBALANCE, expect_epoch=1),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE, expect_epoch=1),
    )),
    Case("member_id_required_rejoins_at_once_with_the_given_id",
         ACT + "testJoinGroupRequestWithMemberIdRequired", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(join_error(Errors.MEMBER_ID_REQUIRED, "m1"), (join(EAGER, ("t",), member="m1",
                                                                reason=MEMBER_ID_GIVEN + "m1"),),
             ends=S.PREPARING_REBALANCE, expect_epoch=-1),
    )),
    Case("rebalance_in_progress_on_heartbeat_revokes_all_then_rejoins", CCT + "testRejoinGroup",
         EAGER, (
        *_stable(EAGER, T0, T1),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS), ends=S.STABLE),
        Step(Poll(3_001), (Callback("revoked", (T0, T1)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING)),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("illegal_generation_on_heartbeat_loses_the_partitions", CCT + "testIllegalGeneration",
         EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.ILLEGAL_GENERATION), ends=S.UNJOINED, expect_epoch=-1),
        # the member id survives ILLEGAL_GENERATION; the partitions are lost, not revoked
        Step(Poll(3_001), (Callback("lost", (T0,)), join(EAGER, ("t",), "m1", -1,
                                                         reason=encountered(Errors.ILLEGAL_GENERATION,
                                                                            "HEARTBEAT")))),
    )),
    Case("unknown_member_on_heartbeat_forgets_the_member_id", CCT + "testUnknownMemberId", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.UNKNOWN_MEMBER_ID), ends=S.UNJOINED, expect_epoch=-1),
        Step(Poll(3_001), (Callback("lost", (T0,)), join(EAGER, ("t",),
                                                         reason=encountered(Errors.UNKNOWN_MEMBER_ID,
                                                                            "HEARTBEAT")))),
    )),
    Case("unknown_member_on_sync_rejoins_without_id", CCT + "testUnknownMemberIdOnSyncGroup",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(sync_error(Errors.UNKNOWN_MEMBER_ID), (join(EAGER, ("t",),
                                                         reason=failed("UnknownMemberIdException")),),
             ends=S.PREPARING_REBALANCE,
             expect_epoch=-1),
    )),
    Case("illegal_generation_on_sync_keeps_the_member_id",
         CCT + "testIllegalGenerationOnSyncGroup", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(sync_error(Errors.ILLEGAL_GENERATION), (join(EAGER, ("t",), member="m1",
                                                          reason=failed("IllegalGenerationException")),),
             expect_epoch=-1),
    )),
    Case("rebalance_in_progress_on_sync_rejoins", CCT + "testRebalanceInProgressOnSyncGroup",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(sync_error(Errors.REBALANCE_IN_PROGRESS), (join(EAGER, ("t",), "m1", 1,
                                                             reason=failed("RebalanceInProgressException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("fenced_instance_on_join_raises_then_rejoins",
         "AbstractCoordinatorTest (FENCED_INSTANCE_ID on JoinGroup)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        # thrown from poll as its own class; the consumer does not stay failed: the next poll
        # joins again, naming the failure
        Step(join_error(Errors.FENCED_INSTANCE_ID),
             (Raised("FencedInstanceIdException", "FENCED_INSTANCE_ID"),)),
        Step(Poll(1), (join(EAGER, ("t",), reason=failed("FencedInstanceIdException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("fenced_instance_on_sync_raises_then_rejoins",
         "AbstractCoordinator.SyncGroupResponseHandler (FENCED_INSTANCE_ID)",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(sync_error(Errors.FENCED_INSTANCE_ID),
             (Raised("FencedInstanceIdException", "FENCED_INSTANCE_ID"),),
             ends=S.COMPLETING_REBALANCE),
        # the join-prepare step is not run again: the JoinGroup goes with the generation it had
        Step(Poll(1), (join(EAGER, ("t",), "m1", 1, reason=failed("FencedInstanceIdException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("heartbeat_answer_without_a_heartbeat_is_ignored", "AbstractCoordinator.HeartbeatResponseHandler",
         EAGER, (
        *_stable(EAGER, T0),
        Step(beat(Errors.UNKNOWN_MEMBER_ID), ends=S.STABLE, expect_epoch=1),
    )),
    Case("unknown_member_on_join_forgets_the_member_id",
         "AbstractCoordinator.JoinGroupResponseHandler (UNKNOWN_MEMBER_ID)", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        # the rejoin goes at once, as a new member: no member id, no generation
        Step(join_error(Errors.UNKNOWN_MEMBER_ID), (join(EAGER, ("t",),
                                                         reason=failed("UnknownMemberIdException")),),
             ends=S.PREPARING_REBALANCE,
             expect_epoch=-1),
    )),
    Case("illegal_generation_on_join_is_an_unexpected_error",
         "AbstractCoordinator.JoinGroupResponseHandler (no ILLEGAL_GENERATION case)", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(join_error(Errors.ILLEGAL_GENERATION), (Raised("KafkaException", "ILLEGAL_GENERATION"),)),
        Step(Poll(3_002), (join(EAGER, ("t",), "m1", 1, reason=failed("KafkaException")),)),
    )),
    Case("unknown_server_error_on_join_raises_then_rejoins",
         "AbstractCoordinator.JoinGroupResponseHandler (unexpected error)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(join_error(Errors.UNKNOWN_SERVER_ERROR), (Raised("KafkaException", "UNKNOWN_SERVER_ERROR"),)),
        Step(Poll(1), (join(EAGER, ("t",), reason=failed("KafkaException")),)),
    )),
    Case("unknown_server_error_on_sync_raises_then_rejoins",
         "AbstractCoordinator.SyncGroupResponseHandler (unexpected error)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(sync_error(Errors.UNKNOWN_SERVER_ERROR), (Raised("KafkaException", "UNKNOWN_SERVER_ERROR"),)),
        Step(Poll(1), (join(EAGER, ("t",), "m1", 1, reason=failed("KafkaException")),)),
    )),
    Case("follower_sends_no_assignments_whatever_its_id",
         "AbstractCoordinator.onJoinFollower", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        # a member id that sorts before the leader's changes nothing: only equality makes a leader
        Step(joined("a1", 1, "m9", leader_assignments=(("a1", assignment(T0)),)), (sync("a1", 1),)),
    )),
    Case("fenced_instance_on_heartbeat_forgets_the_member_id",
         "AbstractCoordinator.HeartbeatResponseHandler (FENCED_INSTANCE_ID)", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.FENCED_INSTANCE_ID), ends=S.UNJOINED, expect_epoch=-1),
        # the heartbeat thread failed: the next poll throws that, the one after rejoins
        Step(Poll(3_001), (Raised("FencedInstanceIdException", "FENCED_INSTANCE_ID"),)),
        Step(Poll(3_002), (Callback("lost", (T0,)),
                           join(EAGER, ("t",), reason=encountered(Errors.FENCED_INSTANCE_ID, "HEARTBEAT")))),
    )),
    Case("unsubscribe_during_the_first_join_sends_no_leave", "AbstractCoordinator.maybeLeaveGroup",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        # no member id yet: there is no membership to leave
        Step(Unsubscribe(), ends=S.UNJOINED),
    )),
    # Found by groupspec fuzz against Kafka's client (seed 0: 30 of 200 runs): groupspec forgot
    # the JoinGroup still out and sent another at the next poll.
    Case("a_join_still_out_when_the_member_left_is_awaited_after_it_subscribes_again",
         "AbstractCoordinator#initiateJoinGroup (the join future outlives maybeLeaveGroup)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Unsubscribe(), ends=S.UNJOINED),
        Step(Subscribe(("t",))),
        # the first round is still out: nothing goes until its answer
        Step(Poll(1), (), ends=S.UNJOINED),
        # the answer fails that round (the member is no longer rebalancing) ...
        Step(joined("m1", 1, "m0"), (), ends=S.UNJOINED),
        # ... and the next poll joins afresh, naming the failure
        Step(Poll(2), (join(EAGER, ("t",), reason="rebalance failed due to UnjoinedGroupException"),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("rebalance_in_progress_on_join_keeps_the_member_id_and_generation",
         "AbstractCoordinator.JoinGroupResponseHandler (REBALANCE_IN_PROGRESS)", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(join_error(Errors.REBALANCE_IN_PROGRESS), (join(EAGER, ("t",), "m1", 1,
                                                             reason=failed("RebalanceInProgressException")),),
             ends=S.PREPARING_REBALANCE, expect_epoch=1),
    )),
    Case("heartbeat_interval_counts_from_the_sync", "AbstractCoordinator.HeartbeatThread", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(5_000), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m1", leader_assignments=(("m1", assignment(T0)),)),
             (sync("m1", 1, assignments=(("m1", assignment(T0)),)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE),
        Step(Poll(5_001)),
        Step(Poll(7_999)),
        Step(Poll(8_000), (heartbeat("m1", 1),)),
    )),
    Case("cooperative_rejoin_sends_what_it_owns_per_topic",
         "ConsumerCoordinator (cooperative protocol: the subscription's owned partitions)", COOP, (
        Step(Subscribe(("t", "u"))),
        Step(Poll(0), (join(COOP, ("t", "u")),)),
        Step(joined("m1", 1, "m0", "cooperative-sticky"), (sync("m1", 1, "cooperative-sticky"),)),
        Step(synced(T0, T1, U0, protocol="cooperative-sticky"), (Callback("assigned", (T0, T1, U0)),)),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (join(COOP, ("t", "u"), "m1", 1, (T0, T1, U0), reason=REBALANCING),)),
    )),
    # Found by the classic simulation (docs/classic_simulation.md, stale-claim): a reset of the
    # generation by a join or sync answer runs the join-prepare again before the retry, so a
    # cooperative member's partitions are lost rather than claimed by a member with no generation.
    Case("cooperative_unknown_member_on_join_loses_what_it_owned",
         "AbstractCoordinator.resetStateAndRejoin (needsJoinPrepare), ConsumerCoordinator.onJoinPrepare",
         COOP, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(COOP, ("t",)),)),
        Step(joined("m1", 1, "m0", "cooperative-sticky"), (sync("m1", 1, "cooperative-sticky"),)),
        Step(synced(T0, T1, protocol="cooperative-sticky"), (Callback("assigned", (T0, T1)),)),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (join(COOP, ("t",), "m1", 1, (T0, T1), reason=REBALANCING),)),
        Step(join_error(Errors.UNKNOWN_MEMBER_ID),
             (Callback("lost", (T0, T1)),
              join(COOP, ("t",), reason=failed("UnknownMemberIdException"), assigned_in=1)),
             ends=S.PREPARING_REBALANCE, expect_epoch=-1),
    )),
    Case("cooperative_illegal_generation_on_sync_loses_what_it_owned",
         "AbstractCoordinator.SyncGroupResponseHandler, resetStateAndRejoin (needsJoinPrepare)", COOP, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(COOP, ("t",)),)),
        Step(joined("m1", 1, "m0", "cooperative-sticky"), (sync("m1", 1, "cooperative-sticky"),)),
        Step(synced(T0, T1, protocol="cooperative-sticky"), (Callback("assigned", (T0, T1)),)),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (join(COOP, ("t",), "m1", 1, (T0, T1), reason=REBALANCING),)),
        Step(joined("m1", 2, "m0", "cooperative-sticky"), (sync("m1", 2, "cooperative-sticky"),)),
        Step(sync_error(Errors.ILLEGAL_GENERATION),
             (Callback("lost", (T0, T1)),
              join(COOP, ("t",), "m1", reason=failed("IllegalGenerationException"), assigned_in=1)),
             ends=S.PREPARING_REBALANCE, expect_epoch=-1),
    )),
    Case("coordinator_lost_during_join_retries_at_the_next_poll", CCT + "testDisconnectInJoin",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(join_error(Errors.NOT_COORDINATOR), ends=S.PREPARING_REBALANCE),
        Step(Poll(100), (join(EAGER, ("t",), reason=failed("NotCoordinatorException")),)),
    )),
    Case("cooperative_revokes_only_what_moved_and_rebalances_again",
         "ConsumerCoordinatorTest (cooperative protocol: onJoinComplete)", COOP, (
        *_stable(COOP, T0, T1),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        # cooperative join-prepare keeps every partition of a still-subscribed topic
        Step(Poll(3_001), (join(COOP, ("t",), "m1", 1, (T0, T1), reason=REBALANCING),)),
        Step(joined("m1", 2, "m0", "cooperative-sticky"), (sync("m1", 2, "cooperative-sticky"),)),
        # the join loop goes round at once: the second JoinGroup goes in the same poll
        Step(synced(T0, protocol="cooperative-sticky"),
             (Callback("revoked", (T1,)), Callback("assigned", ()),
              join(COOP, ("t",), "m1", 2, (T0,), reason=REVOKED)),
             ends=S.PREPARING_REBALANCE, expect_epoch=2),
        Step(Poll(3_002), ends=S.PREPARING_REBALANCE),
    )),
    Case("cooperative_revokes_an_unsubscribed_topic_before_joining",
         "ConsumerCoordinatorTest (cooperative protocol: onJoinPrepare)", COOP, (
        Step(Subscribe(("t", "u"))),
        Step(Poll(0), (join(COOP, ("t", "u")),)),
        Step(joined("m1", 1, "m0", "cooperative-sticky"), (sync("m1", 1, "cooperative-sticky"),)),
        Step(synced(T0, U0, protocol="cooperative-sticky"), (Callback("assigned", (T0, U0)),)),
        Step(Subscribe(("t",))),
        Step(Poll(1), (Callback("revoked", (U0,)), join(COOP, ("t",), "m1", 1, (T0,),
                                                        reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("assign_mode_commits_without_generation",
         "ConsumerCoordinator.sendOffsetCommitRequest (user-assigned)", EAGER, (
        Step(Assign((T0,))),
        Step(Poll(0)),
        Step(CommitSync(((T0, 5),)), (commit(-1, "", (T0, 5)),), ends=S.UNJOINED),
    )),
    Case("subscribed_commit_carries_the_generation", CCT + "testCommitOffsetMetadataSync", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
    )),
    Case("a_commit_groups_its_offsets_by_topic", CCT + "testCommitOffsetMetadataSync", EAGER, (
        Step(Assign((T0, T1, U0))),
        Step(CommitSync(((U0, 3), (T1, 2), (T0, 1))), (commit(-1, "", (T0, 1), (T1, 2), (U0, 3)),)),
    ), divergence="classic_commit_partition_order"),
    Case("commit_while_rebalancing_fails", CCT + "testCommitOffsetRebalanceInProgress", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(CommitSync(((T0, 1),)), (Raised("RebalanceInProgressException", "the group is rebalancing"),)),
    )),
    Case("commit_outside_the_group_fails", "ConsumerCoordinator.sendOffsetCommitRequest (no generation)",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(CommitSync(((T0, 1),)),
             (Raised("CommitFailedException", "the consumer is not in an active group"),)),
    )),
    Case("static_member_sends_its_instance_id_with_every_request",
         "AbstractCoordinator / ConsumerCoordinator (group.instance.id)", STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m1", leader_assignments=(("m1", assignment(T0)),)),
             (static(sync("m1", 1, assignments=(("m1", assignment(T0)),))),)),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE),
        Step(Poll(3_000), (static(heartbeat("m1", 1)),)),
        Step(CommitSync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
    )),
    Case("static_member_unsubscribes_without_leaving",
         "AbstractCoordinator.shouldSendLeaveGroupRequest (a static member on unsubscribe)", STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        # the partitions are revoked, but no LeaveGroup goes: the session timeout ends the membership
        Step(Unsubscribe(), (Callback("revoked", (T0,)),), ends=S.UNJOINED, expect_epoch=-1),
    )),
    Case("assigning_static_consumer_commits_as_nobody",
         "ConsumerCoordinator.sendOffsetCommitRequest (user-assigned: no instance id)", STATIC, (
        Step(Assign((T0,))),
        Step(CommitSync(((T0, 2),)), (commit(-1, "", (T0, 2)),)),
    )),
    Case("subscribe_after_assign_is_refused", "SubscriptionState.setSubscriptionType", EAGER, (
        Step(Assign((T0,))),
        Step(Subscribe(("t",)), (Raised("IllegalStateException", "subscribe() after assign()"),)),
    )),
    Case("unsubscribe_with_a_valid_generation_revokes_and_leaves",
         CCT + "testUnsubscribeWithValidGeneration", EAGER, (
        *_stable(EAGER, T0),
        Step(Unsubscribe(), (Callback("revoked", (T0,)), leave("m1")), ends=S.UNJOINED, expect_epoch=-1),
    )),
    Case("unsubscribe_with_an_invalid_generation_loses", CCT + "testUnsubscribeWithInvalidGeneration",
         EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.UNKNOWN_MEMBER_ID)),
        Step(Unsubscribe(), (Callback("lost", (T0,)),), ends=S.UNJOINED),
    )),
    Case("unsubscribe_after_illegal_generation_sends_no_leave",
         "ConsumerCoordinator.onLeavePrepare / AbstractCoordinator.maybeLeaveGroup", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.ILLEGAL_GENERATION)),
        # the member id survives, but an UNJOINED member has no membership to leave
        Step(Unsubscribe(), (Callback("lost", (T0,)),), ends=S.UNJOINED),
    )),
    Case("unsubscribe_of_an_assigning_consumer_calls_nothing", "ConsumerCoordinator.onLeavePrepare", EAGER, (
        Step(Assign((T0,))),
        Step(Unsubscribe(), ends=S.UNJOINED),
        Step(Subscribe(("t",))),  # subscribing is allowed again
        Step(Poll(0), (join(EAGER, ("t",), reason=LEFT),), ends=S.PREPARING_REBALANCE),
    )),
    Case("offset_fetch_errors_reset_nothing", "ConsumerCoordinator.OffsetFetchResponseHandler", EAGER, (
        Step(Assign((T0, T1))),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.COORDINATOR_LOAD_IN_PROGRESS))),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.NONE, (FetchedTopic("t", (
            FetchedPartition(0, -1), FetchedPartition(1, -1, error=Errors.UNSTABLE_OFFSET_COMMIT))),)))),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.NONE, (FetchedTopic("t", (
            FetchedPartition(0, -1, error=Errors.UNKNOWN_TOPIC_OR_PARTITION), FetchedPartition(1, -1))),))),
             (Raised("KafkaException", "offset fetch failed for t-0: UNKNOWN_TOPIC_OR_PARTITION"),)),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.GROUP_AUTHORIZATION_FAILED)),
             (Raised("GroupAuthorizationException", "offset fetch failed: GROUP_AUTHORIZATION_FAILED"),)),
    )),
    Case("offset_fetch_unexpected_errors_raise", "ConsumerCoordinator.OffsetFetchResponseHandler", EAGER, (
        Step(Assign((T0, T1))),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.UNKNOWN_SERVER_ERROR)),
             (Raised("KafkaException", "offset fetch failed: UNKNOWN_SERVER_ERROR"),)),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.NONE, (FetchedTopic("t", (
            FetchedPartition(0, 4), FetchedPartition(1, -1, error=Errors.UNKNOWN_SERVER_ERROR))),))),
             (Raised("KafkaException", "offset fetch failed for t-1: UNKNOWN_SERVER_ERROR"),)),
        # any partition error but UNSTABLE_OFFSET_COMMIT fails the fetch, whatever its code
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.NONE, (FetchedTopic("t", (
            FetchedPartition(0, 4), FetchedPartition(1, -1, error=Errors.STALE_MEMBER_EPOCH))),))),
             (Raised("KafkaException", "offset fetch failed for t-1: STALE_MEMBER_EPOCH"),)),
        # two failed partitions: the first in the answer is the one named
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.NONE, (FetchedTopic("t", (
            FetchedPartition(0, -1, error=Errors.UNKNOWN_TOPIC_OR_PARTITION),
            FetchedPartition(1, -1, error=Errors.UNKNOWN_SERVER_ERROR))),))),
             (Raised("KafkaException", "offset fetch failed for t-0: UNKNOWN_TOPIC_OR_PARTITION"),)),
    )),
    Case("missing_offset_resets_to_latest", "SubscriptionState (auto.offset.reset=latest)", EAGER, (
        Step(Assign((T0, T1))),
        # a committed offset of 0 is a position like any other
        Step(fetched((T0, 0), (T1, -1)), (ResetOffset(T1, "latest"),)),
    )),
    Case("missing_offset_resets_to_earliest", "SubscriptionState (auto.offset.reset=earliest)",
         Config(group_id=GROUP, auto_offset_reset="earliest"), (
        Step(Assign((T0,))),
        Step(fetched((T0, -1)), (ResetOffset(T0, "earliest"),)),
    )),
    Case("missing_offset_without_reset_policy_fails", "SubscriptionState (auto.offset.reset=none)",
         Config(group_id=GROUP, auto_offset_reset="none"), (
        Step(Assign((T0, T1))),
        Step(fetched((T0, -1), (T1, -1)), (Raised("NoOffsetForPartitionException", "t-0, t-1"),)),
    )),
    Case("missing_offset_without_reset_policy_names_only_the_missing",
         "SubscriptionState (auto.offset.reset=none)", Config(group_id=GROUP, auto_offset_reset="none"), (
        Step(Assign((T0, T1))),
        Step(fetched((T0, 5), (T1, -1)), (Raised("NoOffsetForPartitionException", "t-1"),)),
    )),
)


# --- the leader runs the assignor (ConsumerCoordinator.onLeaderElected) ---------------------------


def member(member_id: str, *topics: str, owned: tuple[TP, ...] = (), generation: int = -1,
           rack: str | None = None, instance: str | None = None) -> JoinedMember:
    grouped = tuple(ConsumerProtocolSubscription.TopicPartition(t, tuple(p for u, p in owned if u == t))
                    for t in sorted({t for t, _ in owned}))
    return JoinedMember(member_id, ConsumerProtocolSubscription(
        topics=topics, owned_partitions=grouped, generation_id=generation, rack_id=rack), instance)


def led(me: str, generation: int, protocol: str, *members: JoinedMember,
        skip: bool = False) -> JoinAnswered:
    """A JoinGroup answer naming ``me`` the leader, with the members' subscriptions."""
    return JoinAnswered(JoinGroupResponse(Errors.NONE, generation_id=generation, protocol_type="consumer",
                                          protocol_name=protocol, leader=me, member_id=me,
                                          skip_assignment=skip), members=members)


def cluster(**topics: int) -> Metadata:
    return Metadata(tuple(TopicMetadata(t, n) for t, n in topics.items()))


T2, U1 = ("t", 2), ("u", 1)
ROUNDROBIN = Config(group_id=GROUP, assignors=("roundrobin", "range"))
COOP_RANGE = Config(group_id=GROUP, assignors=("range",), protocol=RebalanceProtocol.COOPERATIVE)
RACKED = Config(group_id=GROUP, client_rack="a")
RACKS = Metadata((TopicMetadata("t", 2, (("b",), ("a",))),))

LEADER_CASES: tuple[Case, ...] = (
    Case("leader_runs_range_over_every_members_subscription", CCT + "testNormalJoinGroupLeader", EAGER, (
        Step(cluster(t=3)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        # range: three partitions over two members, the first in member-id order gets the extra one
        Step(led("m1", 1, "range", member("m1", "t"), member("m2", "t")),
             (sync("m1", 1, "range", (("m1", assignment(T0, T1)), ("m2", assignment(T2)))),),
             ends=S.COMPLETING_REBALANCE, expect_epoch=1),
        Step(synced(T0, T1), (Callback("assigned", (T0, T1)),), ends=S.STABLE),
    )),
    Case("leader_runs_the_protocol_the_coordinator_chose", CCT + "testNormalJoinGroupLeader", ROUNDROBIN, (
        Step(cluster(t=2, u=2)),
        Step(Subscribe(("t", "u"))),
        Step(Poll(0), (join(ROUNDROBIN, ("t", "u")),)),
        # roundrobin deals t-0, t-1, u-0, u-1 in turn to m1, m2
        Step(led("m1", 1, "roundrobin", member("m1", "t", "u"), member("m2", "t", "u")),
             (sync("m1", 1, "roundrobin", (("m1", assignment(T0, U0)), ("m2", assignment(T1, U1)))),),
             ends=S.COMPLETING_REBALANCE),
    )),
    Case("leader_gives_nothing_of_a_topic_its_metadata_lacks", "ConsumerCoordinator.onLeaderElected",
         EAGER, (
        Step(cluster(u=1)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(led("m1", 1, "range", member("m1", "t")), (sync("m1", 1, "range", (("m1", assignment()),)),)),
    )),
    Case("leader_matches_racks_when_members_and_replicas_have_them", CCT + "testSubscriptionRackId",
         RACKED, (
        Step(RACKS),
        Step(Subscribe(("t",))),
        Step(Poll(0), (replace(join(RACKED, ("t",)), subscription=ConsumerProtocolSubscription(
            topics=("t",), generation_id=-1, rack_id="a")),)),
        # without racks range would give t-0 to m1; rack-aware, each member takes the partition
        # whose replica shares its rack
        Step(led("m1", 1, "range", member("m1", "t", rack="a"), member("m2", "t", rack="b")),
             (sync("m1", 1, "range", (("m1", assignment(T1)), ("m2", assignment(T0)))),)),
    )),
    Case("returning_static_leader_skips_the_assignment", CCT + "testOnLeaderElectedShouldSkipAssignment",
         STATIC, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(led("m1", 1, "range", member("m1", "t", instance="i1"), skip=True),
             (static(sync("m1", 1, "range")),), ends=S.COMPLETING_REBALANCE),
    )),
    Case("a_scripted_assignment_wins_over_the_assignor", "groupspec (leader_assignments override)", EAGER, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(replace(led("m1", 1, "range", member("m1", "t"), member("m2", "t")),
                     leader_assignments=(("m2", assignment(T0, T1)),)),
             (sync("m1", 1, "range", (("m2", assignment(T0, T1)),)),)),
    )),
    Case("leader_refuses_a_protocol_it_did_not_offer", "ConsumerCoordinator.onLeaderElected (lookupAssignor)",
         EAGER, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(led("m1", 1, "roundrobin", member("m1", "t")),
             (Raised("IllegalStateException", "the coordinator chose assignment protocol 'roundrobin', "
                                              "which this member did not offer"),),
             ends=S.COMPLETING_REBALANCE, expect_epoch=1),  # where the answer put it
        # no SyncGroup went; the next poll joins again without revoking a second time
        Step(Poll(1), (join(EAGER, ("t",), "m1", 1, reason=failed("IllegalStateException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("cooperative_leader_refuses_an_assignment_that_moves_owned_partitions",
         CCT + "testPerformAssignmentShouldValidateCooperativeAssignment", COOP_RANGE, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(COOP_RANGE, ("t",)),)),
        # range gives t-0 to m1 and t-1 to m2, but each is still owned by the other
        Step(led("m1", 2, "range", member("m1", "t", owned=(T1,), generation=1),
                 member("m2", "t", owned=(T0,), generation=1)),
             (Raised("IllegalStateException", "the cooperative protocol forbids handing owned partitions "
                                              "straight over (t-0, t-1)"),),
             ends=S.COMPLETING_REBALANCE),
    )),
    Case("cooperative_leader_accepts_an_assignment_that_keeps_owners",
         CCT + "testPerformAssignmentShouldValidateCooperativeAssignment", COOP_RANGE, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(COOP_RANGE, ("t",)),)),
        Step(led("m1", 2, "range", member("m1", "t", owned=(T0,), generation=1),
                 member("m2", "t", owned=(T1,), generation=1)),
             (sync("m1", 2, "range", (("m1", assignment(T0)), ("m2", assignment(T1)))),),
             ends=S.COMPLETING_REBALANCE),
    )),
    Case("eager_leader_does_not_check_what_moves",
         CCT + "testPerformAssignmentShouldValidateCooperativeAssignment", EAGER, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        # the same answers that fail a cooperative leader: under eager everything was revoked first
        Step(led("m1", 2, "range", member("m1", "t", owned=(T1,), generation=1),
                 member("m2", "t", owned=(T0,), generation=1)),
             (sync("m1", 2, "range", (("m1", assignment(T0)), ("m2", assignment(T1)))),),
             ends=S.COMPLETING_REBALANCE),
    )),
    Case("cooperative_sticky_leader_is_trusted_with_its_own_owners",
         CCT + "testPerformAssignmentShouldSkipValidateCooperativeAssignment"
               "ForBuiltInCooperativeStickyAssignor",
         COOP, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(COOP, ("t",)),)),
        # the owners keep what they hold (the sticky rule), so nothing moves
        Step(led("m1", 2, "cooperative-sticky", member("m1", "t", owned=(T1,), generation=1),
                 member("m2", "t", owned=(T0,), generation=1)),
             (sync("m1", 2, "cooperative-sticky", (("m1", assignment(T1)), ("m2", assignment(T0)))),)),
    )),
    Case("an_assignment_for_an_older_subscription_is_not_taken", CCT + "testOutdatedCoordinatorAssignment",
         EAGER, (
        Step(Subscribe(("u",))),
        Step(Poll(0), (join(EAGER, ("u",)),)),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        Step(Subscribe(("t",))),
        # the answer still gives u: nothing is assigned or called back, and the join loop goes
        # round at once (the eager join-prepare revokes the nothing it owns)
        Step(synced(U0), (Callback("revoked", ()), join(EAGER, ("t",), "m2", 1, reason=OLD_ASSIGNMENT)),
             ends=S.PREPARING_REBALANCE),
        Step(Poll(1), ends=S.PREPARING_REBALANCE),
    )),
)

CASES = CASES + LEADER_CASES


# --- commit outcomes, commitAsync, auto-commit ----------------------------------------------------


def committed(*results: tuple[TP, Errors]) -> OffsetCommitAnswered:
    """An OffsetCommit answer: each partition's error, topics in order of first mention."""
    topics = list(dict.fromkeys(t for (t, _), _ in results))
    return OffsetCommitAnswered(OffsetCommitResponse(tuple(
        TopicResult(t, tuple(PartitionResult(p, e) for (u, p), e in results if u == t)) for t in topics)))


def fails(error: str) -> Raised:
    return Raised(error, "the offset commit failed")


AUTO = Config(group_id=GROUP, enable_auto_commit=True, auto_commit_interval_ms=2_000)
AUTO_ASSIGN = Config(group_id=GROUP, enable_auto_commit=True)
COOP_AUTO = replace(COOP, enable_auto_commit=True)
#: AUTO whose session, heartbeat interval and request timeout outlast a run that waits out a
#: rebalance timeout (only that timeout is the run's subject).
AUTO_LONG = replace(AUTO, session_timeout_ms=900_000, heartbeat_interval_ms=800_000,
                    request_timeout_ms=900_000)
FENCED = Raised("FencedInstanceIdException", "an asynchronous commit was fenced")
OK = Errors.NONE

COMMIT_CASES: tuple[Case, ...] = (
    # Found by groupspec fuzz against Kafka's client (seed 0, 5 of 200 runs): groupspec's view said
    # a rejoin was due.
    Case("a_fenced_commit_without_a_subscription_asks_for_no_rejoin",
         "ConsumerCoordinator#rejoinNeededOrPending (subscribed consumers only)", EAGER, (
        # neither subscribed nor assigned: the commit goes as nobody
        Step(CommitSync(((T0, 8),)), (commit(-1, "", (T0, 8)),), ends=S.UNJOINED),
        Step(committed((T0, Errors.ILLEGAL_GENERATION)), (fails("CommitFailedException"),),
             ends=S.UNJOINED),
    )),
    # Kafka's side of this was a gap in the adapter, found by groupspec fuzz (seed 0, 11 of 200
    # runs): the adapter went on with commitSync's loop only when an answer came.
    Case("commit_sync_sends_again_when_its_request_timed_out",
         "ConsumerCoordinator#commitOffsetsSync (a retriable failure: another round)", EAGER, (
        Step(Assign((T0,))),
        Step(CommitSync(((T0, 3),)), (commit(-1, "", (T0, 3)),), ends=S.UNJOINED),
        Step(Tick(29_999), ()),
        # the request timeout closes the connection: the commit failed retriably, and goes again
        Step(Tick(30_000), (commit(-1, "", (T0, 3)),), ends=S.UNJOINED),
        Step(committed((T0, Errors.NONE)), ()),
    )),
    Case("commit_sync_succeeds_quietly", CCT + "testCommitOffsetMetadataSync", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        Step(committed((T0, OK)), ()),
    )),
    Case("commit_sync_retries_a_retriable_error", CCT + "testRetryCommitUnknownTopicOrPartition", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        Step(committed((T0, Errors.UNKNOWN_TOPIC_OR_PARTITION)), (commit(1, "m1", (T0, 7)),)),
        Step(committed((T0, Errors.NOT_COORDINATOR)), (commit(1, "m1", (T0, 7)),)),
        Step(committed((T0, OK)), ()),
    )),
    Case("commit_sync_retry_fails_once_the_group_rebalances", CCT + "testCommitOffsetSyncNotCoordinator",
         EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),  # no heartbeat outstanding: ignored
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        # the retry finds the member rebalancing and fails without a request
        Step(committed((T0, Errors.COORDINATOR_LOAD_IN_PROGRESS)),
             (Raised("RebalanceInProgressException", "the group is rebalancing"),)),
    )),
    Case("commit_illegal_generation_resets_the_generation_only",
         CCT + "testCommitOffsetIllegalGenerationShouldResetGenerationId", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        Step(committed((T0, Errors.ILLEGAL_GENERATION)), (fails("CommitFailedException"),),
             ends=S.UNJOINED, expect_epoch=-1),
        Step(Poll(1), (Callback("lost", (T0,)), join(EAGER, ("t",), "m1", -1,
                                                     reason=encountered(Errors.ILLEGAL_GENERATION,
                                                                        "OFFSET_COMMIT")))),
    )),
    Case("commit_unknown_member_resets_the_member_id",
         CCT + "testCommitOffsetUnknownMemberShouldResetToNoGeneration", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        Step(committed((T0, Errors.UNKNOWN_MEMBER_ID)), (fails("CommitFailedException"),),
             ends=S.UNJOINED, expect_epoch=-1),
        Step(Poll(1), (Callback("lost", (T0,)), join(EAGER, ("t",),
                                                     reason=encountered(Errors.UNKNOWN_MEMBER_ID,
                                                                        "OFFSET_COMMIT")))),
    )),
    Case("commit_fencing_error_for_an_older_generation_only_fails",
         CCT + "testCommitOffsetIllegalGenerationWithNewGeneration", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),)),
        Step(sync_error(Errors.REBALANCE_IN_PROGRESS), (join(EAGER, ("t",), "m1", 2,
                                                             reason=failed("RebalanceInProgressException")),),
             ends=S.PREPARING_REBALANCE),
        # the commit went with generation 1; the member has joined generation 2 since
        Step(committed((T0, Errors.ILLEGAL_GENERATION)), (fails("RebalanceInProgressException"),),
             ends=S.PREPARING_REBALANCE, expect_epoch=2),
    )),
    Case("commit_fenced_instance_of_an_older_generation_fails_the_commit",
         CCT + "testCommitOffsetFencedInstanceWithNewGeneration", STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(CommitSync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(Poll(3_000), (static(heartbeat("m1", 1)),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), static(join(STATIC, ("t",), "m1", 1,
                                                                   reason=REBALANCING)))),
        Step(joined("m1", 2, "m0"), (static(sync("m1", 2)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), (fails("CommitFailedException"),), ends=S.STABLE),
    )),
    Case("commit_fenced_instance_of_the_current_generation_is_raised",
         CCT + "testCommitOffsetRequestSyncWithFencedInstanceIdException", STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(CommitSync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), (fails("FencedInstanceIdException"),),
             ends=S.STABLE, expect_epoch=1),
    )),
    Case("commit_rebalance_in_progress_asks_for_a_rejoin", CCT + "testCommitOffsetRebalanceInProgress",
         EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        Step(committed((T0, Errors.REBALANCE_IN_PROGRESS)), (fails("RebalanceInProgressException"),),
             ends=S.STABLE, expect_epoch=1),
        Step(Poll(1), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=COMMIT_REBALANCING))),
    )),
    Case("commit_errors_raised_as_they_are", CCT + "testCommitOffsetMetadataTooLarge", EAGER, (
        Step(Assign((T0, T1))),
        Step(CommitSync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(committed((T0, Errors.OFFSET_METADATA_TOO_LARGE)), (fails("OffsetMetadataTooLarge"),)),
        Step(CommitSync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(committed((T0, Errors.INVALID_COMMIT_OFFSET_SIZE)),
             (fails("InvalidCommitOffsetSizeException"),)),
        Step(CommitSync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(committed((T0, Errors.UNKNOWN_SERVER_ERROR)), (fails("KafkaException"),)),
        Step(CommitSync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(committed((T0, Errors.GROUP_AUTHORIZATION_FAILED)), (fails("GroupAuthorizationException"),)),
        # codes the handler names no case for, either side of its fencing cases
        Step(CommitSync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(committed((T0, Errors.GROUP_ID_NOT_FOUND)), (fails("KafkaException"),)),
        Step(CommitSync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(committed((T0, Errors.UNSTABLE_OFFSET_COMMIT)), (fails("KafkaException"),)),
        # a failed partition after a committed one of the same topic still decides
        Step(CommitSync(((T0, 1), (T1, 1))), (commit(-1, "", (T0, 1), (T1, 1)),)),
        Step(committed((T0, OK), (T1, Errors.UNKNOWN_SERVER_ERROR)), (fails("KafkaException"),)),
    ), divergence="classic_commit_partition_order"),
    Case("commit_topic_authorization_waits_for_every_partition",
         "ConsumerCoordinator.OffsetCommitResponseHandler (unauthorized topics)", EAGER, (
        Step(Assign((T0, T1, U0))),
        Step(CommitSync(((T0, 1), (T1, 1), (U0, 1))), (commit(-1, "", (T0, 1), (T1, 1), (U0, 1)),)),
        # a later partition's group authorization failure wins over a topic one read before it
        Step(committed((T0, Errors.TOPIC_AUTHORIZATION_FAILED), (T1, OK),
                       (U0, Errors.GROUP_AUTHORIZATION_FAILED)),
             (fails("GroupAuthorizationException"),)),
        Step(CommitSync(((T0, 1), (U0, 1))), (commit(-1, "", (T0, 1), (U0, 1)),)),
        Step(committed((T0, Errors.TOPIC_AUTHORIZATION_FAILED), (U0, OK)),
             (fails("TopicAuthorizationException"),)),
        # ... and so does one in the same topic
        Step(CommitSync(((T0, 1), (T1, 1))), (commit(-1, "", (T0, 1), (T1, 1)),)),
        Step(committed((T0, Errors.TOPIC_AUTHORIZATION_FAILED), (T1, Errors.GROUP_AUTHORIZATION_FAILED)),
             (fails("GroupAuthorizationException"),)),
    ), divergence="classic_commit_partition_order"),
    Case("commit_of_a_negative_offset_is_refused", "ConsumerCoordinator.sendOffsetCommitRequest", EAGER, (
        Step(Assign((T0,))),
        Step(CommitSync(((T0, -1),)), (Raised("IllegalArgumentException", "Invalid offset: -1"),)),
        Step(CommitSync(((T0, 0),)), (commit(-1, "", (T0, 0)),)),  # 0 is a valid offset
        Step(CommitSync(((T1, -3), (T0, -1))), (Raised("IllegalArgumentException", "Invalid offset: -1"),)),
        Step(CommitAsync(((T0, -2),)), ()),
        Step(Poll(0), (CommitCallback(((T0, -2),), "IllegalArgumentException"),)),
    ), divergence="classic_commit_partition_order"),
    Case("commit_async_calls_back_at_the_next_poll", CCT + "testCommitOffsetAsyncWithDefaultCallback",
         EAGER, (
        *_stable(EAGER, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(committed((T0, OK)), (), expect_epoch=1),
        Step(Poll(1), (CommitCallback(((T0, 5),)),)),
        Step(Poll(2), ()),  # each callback runs once
    )),
    Case("commit_async_retriable_failure_is_only_reported",
         CCT + "testCommitOffsetAsyncCoordinatorNotAvailable",
         EAGER, (
        *_stable(EAGER, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(committed((T0, Errors.COORDINATOR_NOT_AVAILABLE)), ()),
        # callbacks of earlier async commits run first in the next commit call
        Step(CommitAsync(((T0, 6),)), (CommitCallback(((T0, 5),), "RetriableCommitFailedException"),
                                       commit(1, "m1", (T0, 6)))),
        Step(committed((T0, OK)), ()),
        Step(CommitSync(((T0, 7),)), (CommitCallback(((T0, 6),)), commit(1, "m1", (T0, 7)))),
    )),
    Case("commit_sync_answer_runs_earlier_async_callbacks_first",
         CCT + "testAsyncCommitCallbacksInvokedPriorToSyncCommitCompletion", EAGER, (
        Step(Assign((T0,))),
        Step(CommitAsync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(CommitSync(((T0, 2),)), (commit(-1, "", (T0, 2)),)),
        Step(committed((T0, OK)), ()),
        Step(committed((T0, Errors.UNKNOWN_SERVER_ERROR)),
             (CommitCallback(((T0, 1),)), fails("KafkaException"))),
    )),
    Case("commit_async_while_rebalancing_fails_in_its_callback", CCT + "testCommitOffsetRebalanceInProgress",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(CommitAsync(((T0, 1),)), ()),
        Step(CommitAsync(()), (CommitCallback(((T0, 1),), "RebalanceInProgressException"),)),
        Step(Poll(1), (CommitCallback((), None),)),  # an empty commit succeeds without a request
    )),
    Case("fenced_async_commit_fences_every_later_call",
         CCT + "testCommitOffsetRequestAsyncAlwaysReceiveFencedException", STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(CommitAsync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), ()),
        Step(Poll(1), (FENCED,)),
        Step(CommitSync(((T0, 5),)), (FENCED,)),
        Step(CommitAsync(((T0, 5),)), (FENCED,)),
    )),
    Case("answer_without_a_commit_is_ignored", "ConsumerCoordinator (no OffsetCommit in flight)", EAGER, (
        Step(Assign((T0,))),
        Step(committed((T0, Errors.UNKNOWN_MEMBER_ID)), (), ends=S.UNJOINED),
        Step(CommitSync(((T0, 3),)), (commit(-1, "", (T0, 3)),)),
    )),
    Case("auto_commit_commits_positions_on_the_interval", CCT + "testAutoCommitDynamicAssignment", AUTO, (
        *_stable(AUTO, T0, T1),
        Step(Consumed(((T0, 10), (U0, 4)))),  # u-0 is not owned: no position
        Step(Poll(1_999), ()),
        Step(Poll(2_000), (commit(1, "m1", (T0, 10)),)),
        Step(committed((T0, OK)), ()),
        Step(Consumed(((T1, 3),))),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(Poll(3_999), ()),
        Step(Poll(4_000), (commit(1, "m1", (T0, 10), (T1, 3)),)),
    ), divergence="classic_commit_partition_order"),
    Case("a_fetched_committed_offset_is_the_position_auto_commit_commits",
         "ConsumerCoordinator#refreshCommittedOffsets", AUTO_ASSIGN, (
        Step(Assign((T0, U0))),
        Step(Consumed(((U0, 3),))),
        # t-0 starts at its committed offset (u-0 has a position, so only t-0 was fetched)
        Step(fetched((T0, 7)), ()),
        Step(Poll(5_000), (commit(-1, "", (T0, 7), (U0, 3)),)),
    )),
    # Found by groupspec fuzz against Kafka's client (seed 0, run 393 of 1000, spec against impl):
    # the spec's join-prepare committed the position of a partition the same answer revoked.
    Case("a_partition_revoked_by_the_answer_is_not_committed_by_the_next_rejoin",
         "SubscriptionState#allConsumed (the assigned partitions' positions only)",
         COOP_AUTO, (
        *_stable(COOP_AUTO, T1),
        Step(Subscribe(("t", "u"))),
        Step(Poll(1), (join(COOP_AUTO, ("t", "u"), "m1", 1, (T1,),
                            reason=SUBSCRIPTION_CHANGED),), ends=S.PREPARING_REBALANCE),
        Step(joined("m1", 2, "m1", "cooperative-sticky", (("m1", assignment(T0, U0)),)),
             (sync("m1", 2, "cooperative-sticky", (("m1", assignment(T0, U0)),)),)),
        # t-1 gets its position from the committed offset while the SyncGroup is out
        Step(fetched((T1, 2)), ()),
        # the answer revokes t-1: the rejoin it asks for commits the positions of what is still
        # owned (none yet), so the JoinGroup goes at once rather than a commit of t-1 at 2
        Step(synced(T0, U0, protocol="cooperative-sticky"),
             (Callback("revoked", (T1,)), Callback("assigned", (T0, U0)),
              join(COOP_AUTO, ("t", "u"), "m1", 2, (T0, U0), reason=REVOKED)),
             ends=S.PREPARING_REBALANCE, expect_epoch=2),
    )),
    Case("poll_without_a_subscription_or_assignment_is_refused",
         "ClassicKafkaConsumer#poll (hasNoSubscriptionOrUserAssignment)", EAGER, (
        Step(CommitAsync(())),
        # refused before anything runs: the finished commitAsync's callback waits
        Step(Poll(5_000), (Raised("IllegalStateException", NOT_SUBSCRIBED),)),
        Step(Assign((T0,))),
        Step(Poll(5_001), (CommitCallback(()),)),
    )),
    Case("assign_runs_a_due_auto_commit_first", "ClassicKafkaConsumer#assign (maybeAutoCommitOffsetsAsync)",
         AUTO_ASSIGN, (
        Step(CommitAsync(())),
        Step(Poll(5_000), (Raised("IllegalStateException", NOT_SUBSCRIBED),)),  # the clock moved
        # the auto-commit is due: the finished commitAsync's callback runs before it (nothing to
        # commit yet), and the next one is due 5 s later
        Step(Assign((T0,)), (CommitCallback(()),)),
        Step(Consumed(((T0, 4),))),
        Step(Poll(5_001), ()),
        Step(Poll(10_000), (commit(-1, "", (T0, 4)),)),
    )),
    Case("auto_commit_backs_off_after_a_retriable_failure", CCT + "testAutoCommitRetryBackoff", AUTO_ASSIGN, (
        Step(Assign((T0,))),
        Step(Consumed(((T0, 7),))),
        Step(Poll(5_000), (commit(-1, "", (T0, 7)),)),
        Step(committed((T0, Errors.COORDINATOR_NOT_AVAILABLE)), ()),
        # the failure's callback runs in this poll: the next try is due 100 ms later
        Step(Poll(5_050), ()),
        Step(Poll(5_149), ()),
        Step(Poll(5_150), (commit(-1, "", (T0, 7)),)),
    )),
    Case("auto_commit_backs_off_after_its_request_timed_out",
         "NetworkClient request timeout, ConsumerCoordinator.doAutoCommitOffsetsAsync (retriable: backoff)",
         replace(AUTO_ASSIGN, auto_commit_interval_ms=60_000), (
        Step(Assign((T0,))),
        Step(Consumed(((T0, 7),))),
        Step(Poll(60_000), (commit(-1, "", (T0, 7)),)),
        Step(Poll(90_000), ()),  # 30 s unanswered: the connection closes after this poll's work
        # the failure is retriable: its callback, in this poll, makes the next try due 100 ms later
        Step(Poll(90_001), ()),
        Step(Poll(90_100), ()),
        Step(Poll(90_101), (commit(-1, "", (T0, 7)),)),
    )),
    Case("auto_commit_of_a_self_assigned_consumer", CCT + "testAutoCommitManualAssignment", AUTO_ASSIGN, (
        Step(Assign((T0,))),
        Step(Poll(4_999), ()),
        Step(Poll(5_000), ()),  # nothing consumed: nothing to commit
        Step(Consumed(((T0, 2),))),
        Step(Poll(9_999), ()),
        Step(Poll(10_000), (commit(-1, "", (T0, 2)),)),
    )),
    Case("auto_commit_waits_while_rebalancing", CCT + "testAutoCommitDynamicAssignmentRebalance", AUTO, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(AUTO, ("t",)),)),
        Step(Poll(5_000), ()),  # due, but a rebalance is under way
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(Consumed(((T0, 1),))),
        # the timer restarted with the assignment, at the last poll's time
        Step(Poll(6_999), ()),
        Step(Poll(7_000), (commit(1, "m1", (T0, 1)),)),
    )),
    Case("rejoin_commits_before_revoking", CCT + "testJoinPrepareAndCommitCompleted", AUTO, (
        *_stable(AUTO, T0),
        Step(Consumed(((T0, 9),))),
        Step(Poll(1_000)),
        Step(Subscribe(("t", "u"))),
        Step(Poll(1_001), (commit(1, "m1", (T0, 9)),), ends=S.STABLE),
        Step(Poll(1_002), ()),  # still waiting for the answer
        Step(committed((T0, OK)), ()),
        Step(Poll(1_003), (Callback("revoked", (T0,)), join(AUTO, ("t", "u"), "m1", 1,
                                                            reason=SUBSCRIPTION_CHANGED)),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("rejoin_commit_retried_after_a_retriable_failure",
         CCT + "testOnJoinPrepareWithOffsetCommitShouldSuccessAfterRetry", AUTO, (
        *_stable(AUTO, T0),
        Step(Consumed(((T0, 9),))),
        Step(Subscribe(("u", "t"))),
        Step(Poll(1), (commit(1, "m1", (T0, 9)),)),
        Step(committed((T0, Errors.COORDINATOR_LOAD_IN_PROGRESS)), ()),
        Step(Poll(2), ()),  # the failure is seen: no join yet
        Step(Poll(3), (commit(1, "m1", (T0, 9)),)),
        Step(committed((T0, OK)), ()),
        Step(Poll(4), (Callback("revoked", (T0,)), join(AUTO, ("t", "u"), "m1", 1,
                                                        reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("rejoin_commit_lasting_failure_still_joins",
         CCT + "testOnJoinPrepareWithOffsetCommitShouldKeepJoinAfterNonRetryableException", AUTO, (
        *_stable(AUTO, T0),
        Step(Consumed(((T0, 9),))),
        Step(Subscribe(("u", "t"))),
        Step(Poll(1), (commit(1, "m1", (T0, 9)),)),
        Step(committed((T0, Errors.UNKNOWN_MEMBER_ID)), (), ends=S.UNJOINED),
        # the failure reset the member: its partitions are lost, not revoked
        Step(Poll(2), (Callback("lost", (T0,)), join(AUTO, ("t", "u"),
                                                     reason=encountered(Errors.UNKNOWN_MEMBER_ID,
                                                                        "OFFSET_COMMIT")))),
    )),
    # the session, heartbeat interval and request timeout outlast the run: only the rebalance
    # timeout counts
    Case("rejoin_stops_waiting_for_the_commit_at_the_rebalance_timeout",
         CCT + "testOnJoinPrepareWithOffsetCommitShouldKeepJoinAfterRebalanceTimeout", AUTO_LONG, (
        *_stable(AUTO_LONG, T0),
        Step(Consumed(((T0, 9),))),
        Step(Subscribe(("u", "t"))),
        Step(Poll(10), (commit(1, "m1", (T0, 9)),)),
        Step(Poll(300_009), ()),
        Step(Poll(300_010), (Callback("revoked", (T0,)), join(AUTO_LONG, ("t", "u"), "m1", 1,
                                                              reason=SUBSCRIPTION_CHANGED))),
        # the late answer changes nothing
        Step(committed((T0, Errors.COORDINATOR_NOT_AVAILABLE)), (), ends=S.PREPARING_REBALANCE),
    )),
    Case("rejoin_with_nothing_consumed_joins_at_once", CCT + "testJoinPrepareWithDisableAutoCommit", AUTO, (
        *_stable(AUTO, T0),
        Step(Subscribe(("u", "t"))),
        Step(Poll(1), (Callback("revoked", (T0,)), join(AUTO, ("t", "u"), "m1", 1,
                                                        reason=SUBSCRIPTION_CHANGED))),
    )),
)

CASES = CASES + COMMIT_CASES


# --- rejoin triggers: the leader's metadata, a changed subscription, a pattern's matches ----------


def _led_stable(config: Config, *others: JoinedMember, topics: tuple[str, ...] = ("t",),
                protocol: str = "range", gets: tuple[TP, ...] = (T0, T1),
                theirs: tuple[tuple[str, ConsumerProtocolAssignment], ...] = ()) -> tuple[Step, ...]:
    """Subscribe to ``topics``, lead generation 1 with ``others`` (who get ``theirs``), assign
    itself ``gets`` and take it."""
    mine = ConsumerProtocolSubscription(topics=topics, generation_id=-1, rack_id=config.client_rack)
    return (
        Step(Subscribe(topics)),
        Step(Poll(0), (replace(join(config, topics), subscription=mine),)),
        Step(JoinAnswered(JoinGroupResponse(Errors.NONE, generation_id=1, protocol_type="consumer",
                                            protocol_name=protocol, leader="m1", member_id="m1"),
                          members=(JoinedMember("m1", mine), *others)),
             (sync("m1", 1, protocol, (("m1", assignment(*gets)), *theirs)),), ends=S.COMPLETING_REBALANCE),
        Step(synced(*gets), (Callback("assigned", tuple(sorted(gets))),), ends=S.STABLE),
    )


RACKED_B = Metadata((TopicMetadata("t", 2, (("a",), ("b",))),))
PLAIN = Config(group_id=GROUP)
V0, X0 = ("v", 0), ("x", 0)

REJOIN_CASES: tuple[Case, ...] = (
    Case("leader_rejoins_when_a_topic_gains_partitions", CCT + "testMetadataChangeTriggersRebalance", EAGER, (
        Step(cluster(t=2)),
        *_led_stable(EAGER),
        Step(cluster(t=3)),
        Step(Poll(1), (Callback("revoked", (T0, T1)), join(EAGER, ("t",), "m1", 1, reason=METADATA_CHANGED)),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("leader_stays_when_a_refresh_changes_nothing_it_watches",
         CCT + "testRackAwareConsumerRebalanceWithNoMetadataChange", EAGER, (
        Step(cluster(t=2)),
        *_led_stable(EAGER),
        Step(cluster(t=2, x=5)),  # a topic nobody subscribes to
        Step(Poll(1), (), ends=S.STABLE),
    )),
    Case("leader_watches_the_other_members_topics",
         CCT + "testStaticLeaderRejoinsGroupAndCanDetectMetadataChangesForOtherMembers", EAGER, (
        Step(cluster(t=2, u=1)),
        *_led_stable(EAGER, member("m2", "u"), theirs=(("m2", assignment(U0)),)),
        Step(cluster(t=2, u=2)),
        Step(Poll(1), (Callback("revoked", (T0, T1)), join(EAGER, ("t",), "m1", 1, reason=METADATA_CHANGED))),
    )),
    Case("follower_leaves_metadata_changes_to_the_leader",
         "ConsumerCoordinator.onJoinComplete (not the leader)",
         EAGER, (
        Step(cluster(t=2)),
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        Step(synced(T1), (Callback("assigned", (T1,)),)),
        Step(cluster(t=3)),
        Step(Poll(1), (), ends=S.STABLE),
    )),
    Case("a_member_that_led_before_stops_watching_once_it_follows",
         "ConsumerCoordinator.onJoinComplete (assignmentSnapshot)", EAGER, (
        Step(cluster(t=2)),
        *_led_stable(EAGER),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0, T1)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(cluster(t=3)),
        Step(Poll(3_002), (), ends=S.STABLE),
    )),
    Case("rack_aware_leader_rejoins_when_replica_racks_change",
         CCT + "testRackAwareConsumerRebalanceWithDifferentRacks", RACKED, (
        Step(RACKS),
        *_led_stable(RACKED),
        Step(RACKED_B),
        Step(Poll(1), (Callback("revoked", (T0, T1)), replace(join(RACKED, ("t",), "m1", 1,
                                                                   reason=METADATA_CHANGED), subscription=(
            ConsumerProtocolSubscription(topics=("t",), generation_id=1, rack_id="a"))))),
    )),
    Case("leader_without_a_rack_ignores_replica_racks",
         CCT + "testNonRackAwareConsumerRebalanceWithDifferentRacks", EAGER, (
        Step(RACKS),
        *_led_stable(EAGER),
        Step(RACKED_B),
        Step(Poll(1), (), ends=S.STABLE),
    )),
    Case("subscription_changed_during_the_rebalance_rejoins_after_it",
         "ConsumerCoordinator.rejoinNeededOrPending (joinedSubscription)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Subscribe(("t", "u"))),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        # the assignment fits the new subscription, so it is taken; the join went with the old
        # one, so the join loop goes round again in the same poll
        Step(synced(T0), (Callback("assigned", (T0,)), Callback("revoked", (T0,)),
                          join(EAGER, ("t", "u"), "m2", 1, reason=SUBSCRIPTION_CHANGED)),
             ends=S.PREPARING_REBALANCE),
        Step(Poll(1), ends=S.PREPARING_REBALANCE),
    )),
    Case("pattern_subscribes_to_the_matching_topics", CCT + "testPatternJoinGroupLeader", PLAIN, (
        Step(cluster(t=1, tx=1, u=1)),
        Step(SubscribePattern("t.*")),
        Step(Poll(0), (join(PLAIN, ("t", "tx")),), ends=S.PREPARING_REBALANCE),
    )),
    Case("pattern_matching_nothing_still_joins", "ClassicKafkaConsumer.subscribe(Pattern)", PLAIN, (
        Step(SubscribePattern("t.*")),
        Step(Poll(0), (join(PLAIN, ()),)),
        Step(cluster(t=1)),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        # a matching topic appeared: the match set changed, so the join loop goes round again
        Step(synced(), (Callback("assigned", ()), Callback("revoked", ()),
                        join(PLAIN, ("t",), "m2", 1, reason=SUBSCRIPTION_CHANGED))),
        Step(Poll(1), ends=S.PREPARING_REBALANCE),
    )),
    Case("pattern_match_set_change_triggers_a_rejoin",
         CCT + "testRebalanceAfterTopicUnavailableWithPatternSubscribe", PLAIN, (
        Step(cluster(t=1, u=1)),
        Step(SubscribePattern("t|u")),
        Step(Poll(0), (join(PLAIN, ("t", "u")),)),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        Step(synced(T0, U0), (Callback("assigned", (T0, U0)),)),
        Step(cluster(t=1, v=1)),  # u is gone
        Step(Poll(1), (Callback("revoked", (T0, U0)), join(PLAIN, ("t",), "m2", 1,
                                                           reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("pattern_follower_takes_matching_topics_it_did_not_know", CCT + "testPatternJoinGroupFollower",
         PLAIN, (
        Step(cluster(t=1)),
        Step(SubscribePattern("t.*")),
        Step(Poll(0), (join(PLAIN, ("t",)),)),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        Step(synced(T0, ("tx", 0)), (Callback("assigned", (T0, ("tx", 0))),), ends=S.STABLE),
        # the refresh the new topic asks for (upstream prepares it too) names tx: still a match
        Step(cluster(t=1, tx=1)),
        Step(Poll(1), (), ends=S.STABLE),  # both sets took tx: no rejoin
    )),
    Case("pattern_member_refuses_topics_outside_its_pattern",
         "SubscriptionState.checkAssignmentMatchedSubscription (pattern)", PLAIN, (
        Step(cluster(t=1)),
        Step(SubscribePattern("t.*")),
        Step(Poll(0), (join(PLAIN, ("t",)),)),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        Step(synced(T0, V0), (Callback("revoked", ()), join(PLAIN, ("t",), "m2", 1, reason=OLD_ASSIGNMENT))),
        Step(Poll(1), ends=S.PREPARING_REBALANCE),
    )),
    Case("pattern_and_topic_subscriptions_exclude_each_other", "SubscriptionState.setSubscriptionType",
         PLAIN, (
        Step(SubscribePattern("t.*")),
        Step(Subscribe(("t",)), (Raised("IllegalStateException", "subscribe() after subscribe(Pattern)"),)),
        Step(SubscribePattern("x.*"), ()),  # a new pattern replaces the old
        Step(cluster(x=1)),
        Step(Poll(0), (join(PLAIN, ("x",)),)),
        Step(Unsubscribe()),
        Step(Subscribe(("t",))),
        Step(SubscribePattern("t.*"),
             (Raised("IllegalStateException", "subscribe(Pattern) after subscribe()"),)),
        Step(Unsubscribe()),
        Step(Assign((X0,))),
        Step(SubscribePattern("t.*"),
             (Raised("IllegalStateException", "subscribe(Pattern) after assign()"),)),
    )),
)

CASES = CASES + REJOIN_CASES


# --- close() -------------------------------------------------------------------------------------


def leaving(member: str) -> Sent:
    return Sent(LeaveGroup(GROUP, (MemberIdentity(member, reason="the consumer is being closed"),)))


CLOSED = Raised("IllegalStateException", "the consumer is closed")
AUTO_STATIC = Config(group_id=GROUP, enable_auto_commit=True, group_instance_id="i1")

CLOSE_CASES: tuple[Case, ...] = (
    Case("close_commits_then_revokes_and_leaves", CCT + "testCloseDynamicAssignment", AUTO, (
        *_stable(AUTO, T0),
        Step(Consumed(((T0, 9),))),
        Step(Close(), (commit(1, "m1", (T0, 9)),), ends=S.STABLE),
        Step(committed((T0, OK)), (Callback("revoked", (T0,)), leaving("m1")), ends=S.UNJOINED,
             expect_epoch=-1),
        Step(Poll(1), (CLOSED,)),
        Step(CommitSync(((T0, 1),)), (CLOSED,)),
        Step(beat(), ()),  # answers reaching a closed consumer are dropped
    )),
    Case("close_without_auto_commit_leaves_at_once", CCT + "testLeaveGroupOnClose", EAGER, (
        *_stable(EAGER, T0),
        Step(Consumed(((T0, 9),))),
        Step(Close(), (Callback("revoked", (T0,)), leaving("m1")), ends=S.UNJOINED),
        Step(Close(), (CLOSED,)),
    )),
    Case("close_retries_a_retriable_commit_failure_and_swallows_others",
         CCT + "testCloseCoordinatorUnavailableNoCommits", AUTO, (
        *_stable(AUTO, T0),
        Step(Consumed(((T0, 9),))),
        Step(Close(), (commit(1, "m1", (T0, 9)),)),
        Step(committed((T0, Errors.COORDINATOR_NOT_AVAILABLE)), (commit(1, "m1", (T0, 9)),)),
        # a lasting failure is only logged: the close goes on
        Step(committed((T0, Errors.OFFSET_METADATA_TOO_LARGE)), (Callback("revoked", (T0,)), leaving("m1"))),
    )),
    Case("close_of_a_static_member_stays_in_the_group_by_default",
         "AbstractCoordinator.shouldSendLeaveGroupRequest (close, DEFAULT)", STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(Close(), (Callback("revoked", (T0,)),), ends=S.UNJOINED),
    )),
    Case("close_with_leave_group_makes_a_static_member_leave",
         "AbstractCoordinator.shouldSendLeaveGroupRequest (close, LEAVE_GROUP)", STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(Close("LEAVE_GROUP"), (Callback("revoked", (T0,)), leaving("m1")), ends=S.UNJOINED),
    )),
    Case("close_remaining_in_the_group_sends_no_leave",
         "AbstractCoordinator.shouldSendLeaveGroupRequest (close, REMAIN_IN_GROUP)", EAGER, (
        *_stable(EAGER, T0),
        Step(Close("REMAIN_IN_GROUP"), (Callback("revoked", (T0,)),), ends=S.UNJOINED),
    )),
    Case("close_of_a_self_assigned_consumer_commits_as_nobody", CCT + "testCloseManualAssignment",
         AUTO_ASSIGN, (
        Step(Assign((T0,))),
        Step(Consumed(((T0, 4),))),
        Step(Close(), (commit(-1, "", (T0, 4)),)),
        Step(committed((T0, OK)), ()),
        Step(Poll(1), (CLOSED,)),
    )),
    Case("close_while_rebalancing_loses_and_leaves", "AbstractCoordinator.close (onLeavePrepare)", COOP, (
        *_stable(COOP, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (join(COOP, ("t",), "m1", 1, (T0,), reason=REBALANCING),)),
        Step(Close(), (Callback("lost", (T0,)), leaving("m1")), ends=S.UNJOINED),
        Step(joined("m1", 2, "m1"), ()),
    )),
    Case("close_runs_finished_async_callbacks_first", "ConsumerCoordinator.close (commitOffsetsSync)", AUTO, (
        *_stable(AUTO, T0),
        Step(CommitAsync(((T0, 3),)), (commit(1, "m1", (T0, 3)),)),
        Step(committed((T0, OK)), ()),
        Step(Consumed(((T0, 5),))),
        Step(Close(), (CommitCallback(((T0, 3),)), commit(1, "m1", (T0, 5)))),
        Step(committed((T0, OK)), (Callback("revoked", (T0,)), leaving("m1"))),
    )),
    Case("close_after_a_fenced_async_commit_still_closes", "ConsumerCoordinator.maybeAutoCommitOffsetsSync",
         AUTO_STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(AUTO_STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(CommitAsync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), ()),
        Step(Consumed(((T0, 5),))),
        # the fence is swallowed: no commit, the partitions are revoked, and a static member stays
        Step(Close(), (Callback("revoked", (T0,)),), ends=S.UNJOINED),
    )),
)

CASES = CASES + CLOSE_CASES


# --- corners: stale answers after a commit's reset, fencing by generation, stray answers ----------


def _rebalancing(config: Config, *owned: TP) -> tuple[Step, ...]:
    """From STABLE at generation 1: a heartbeat reports a rebalance and the next poll rejoins."""
    eager = config.protocol is RebalanceProtocol.EAGER
    prepare = (Callback("revoked", tuple(sorted(owned))),) if eager else ()
    mine = () if eager else owned
    sent = join(config, ("t",), "m1", 1, mine, reason=REBALANCING)
    if config.group_instance_id is not None:
        sent = static(sent)
    return (
        Step(Poll(3_000), (heartbeat("m1", 1) if config.group_instance_id is None
                           else static(heartbeat("m1", 1)),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (*prepare, sent), ends=S.PREPARING_REBALANCE),
    )


def _static_stable() -> tuple[Step, ...]:
    return (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE),
    )


COOP_AUTO = Config(group_id=GROUP, assignors=("cooperative-sticky",), protocol=RebalanceProtocol.COOPERATIVE,
                   enable_auto_commit=True)

CORNER_CASES: tuple[Case, ...] = (
    Case("commit_reset_while_joining_drops_the_join_answer", CCT + "testCommitOffsetIllegalGeneration",
         EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        *_rebalancing(EAGER, T0),
        # the commit's generation is still the member's: it is reset although a join is out
        Step(committed((T0, Errors.ILLEGAL_GENERATION)), (fails("CommitFailedException"),),
             ends=S.UNJOINED, expect_epoch=-1),
        # answers a join the reset abandoned: JoinGroupResponseHandler fails it
        # (UnjoinedGroupException, retriable), which names the next JoinGroup
        Step(joined("m1", 2, "m0"), (), ends=S.UNJOINED),
        Step(Poll(3_002), (join(EAGER, ("t",), "m1", -1,
                                reason="rebalance failed due to UnjoinedGroupException"),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("commit_reset_while_syncing_rejoins_on_the_sync_answer", CCT + "testCommitOffsetUnknownMemberId",
         EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        *_rebalancing(EAGER, T0),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),), ends=S.COMPLETING_REBALANCE),
        # a newer generation, but not rebalancing-before-join: the member is reset
        Step(committed((T0, Errors.UNKNOWN_MEMBER_ID)), (fails("CommitFailedException"),),
             ends=S.UNJOINED, expect_epoch=-1),
        # the join loop reads the success for a generation gone as ILLEGAL_GENERATION and joins
        # again at once (AbstractCoordinator.SyncGroupResponseHandler: "Generation data was cleared")
        Step(synced(T0), (join(EAGER, ("t",), reason=failed("IllegalGenerationException")),),
             ends=S.PREPARING_REBALANCE),
        Step(Poll(3_002), ()),
    )),
    Case("stray_answers_change_nothing", "AbstractCoordinator (answers to nothing outstanding)", EAGER, (
        *_stable(EAGER, T0),
        Step(synced(T1), ()),
        Step(joined("m1", 2, "m0"), (), ends=S.STABLE, expect_epoch=1),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(synced(T1), ()),
        Step(joined("m1", 2, "m0"), (), ends=S.STABLE, expect_epoch=1),
    )),
    Case("stray_join_answer_while_syncing_changes_nothing", "AbstractCoordinator.JoinGroupResponseHandler",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(joined("m1", 2, "m0"), (), ends=S.COMPLETING_REBALANCE, expect_epoch=1),
    )),
    Case("commit_fenced_instance_while_rejoining_a_newer_generation",
         CCT + "testCommitOffsetFencedInstanceWithRebalancingGeneration", STATIC, (
        *_static_stable(),
        Step(CommitSync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        *_rebalancing(STATIC, T0),
        Step(joined("m1", 2, "m0"), (static(sync("m1", 2)),)),
        Step(sync_error(Errors.REBALANCE_IN_PROGRESS), (static(join(STATIC, ("t",), "m1", 2,
                                                                    reason=failed("RebalanceInProgressException"))),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), (fails("RebalanceInProgressException"),),
             ends=S.PREPARING_REBALANCE, expect_epoch=2),
    )),
    Case("commit_fenced_after_the_generation_was_reset",
         "ConsumerCoordinator.OffsetCommitResponseHandler (FENCED_INSTANCE_ID)", STATIC, (
        *_static_stable(),
        Step(CommitSync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(Poll(3_000), (static(heartbeat("m1", 1)),)),
        Step(beat(Errors.ILLEGAL_GENERATION), ends=S.UNJOINED, expect_epoch=-1),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), (fails("CommitFailedException"),), ends=S.UNJOINED),
    )),
    Case("commit_fenced_for_another_member_id_of_the_same_generation_number",
         "ConsumerCoordinator.OffsetCommitResponseHandler (generationUnchanged)", STATIC, (
        *_static_stable(),
        Step(CommitSync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(Poll(3_000), (static(heartbeat("m1", 1)),)),
        Step(beat(Errors.UNKNOWN_MEMBER_ID), ends=S.UNJOINED),
        Step(Poll(3_001), (Callback("lost", (T0,)), static(join(STATIC, ("t",),
                                                                reason=encountered(Errors.UNKNOWN_MEMBER_ID,
                                                                                   "HEARTBEAT"))))),
        # a scripted coordinator hands out generation 1 again, to another member id
        Step(joined("m2", 1, "m0"), (static(sync("m2", 1)),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), (fails("CommitFailedException"),),
             ends=S.COMPLETING_REBALANCE),
    )),
    Case("commit_fenced_for_a_member_id_sorting_first", "ConsumerCoordinator.OffsetCommitResponseHandler "
         "(generationUnchanged)", STATIC, (
        *_static_stable(),
        Step(CommitSync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(Poll(3_000), (static(heartbeat("m1", 1)),)),
        Step(beat(Errors.UNKNOWN_MEMBER_ID)),
        Step(Poll(3_001), (Callback("lost", (T0,)), static(join(STATIC, ("t",),
                                                                reason=encountered(Errors.UNKNOWN_MEMBER_ID,
                                                                                   "HEARTBEAT"))))),
        Step(joined("a0", 1, "m0"), (static(sync("a0", 1)),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), (fails("CommitFailedException"),)),
    )),
    Case("auto_commit_is_due_at_any_later_poll", CCT + "testAutoCommitAwaitsInterval", AUTO_ASSIGN, (
        Step(Assign((T0,))),
        Step(Consumed(((T0, 3),))),
        Step(Poll(7_500), (commit(-1, "", (T0, 3)),)),
        Step(Poll(12_499), ()),
        Step(Poll(12_500), (commit(-1, "", (T0, 3)),)),
    )),
    # the session, heartbeat interval and request timeout outlast the run (with 30 s, Kafka's
    # poll would first see the commit's request time out, long before: not this case's point)
    Case("rejoin_stops_waiting_at_any_poll_past_the_rebalance_timeout",
         CCT + "testOnJoinPrepareWithOffsetCommitShouldKeepJoinAfterRebalanceTimeout", AUTO_LONG, (
        *_stable(AUTO_LONG, T0),
        Step(Consumed(((T0, 9),))),
        Step(Subscribe(("u", "t"))),
        Step(Poll(10), (commit(1, "m1", (T0, 9)),)),
        Step(Poll(400_000), (Callback("revoked", (T0,)), join(AUTO_LONG, ("t", "u"), "m1", 1,
                                                              reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("an_abandoned_rejoin_commit_does_not_settle_the_next_one",
         "ConsumerCoordinator.onJoinPrepare (autoCommitOffsetRequestFuture)", AUTO_LONG, (
        *_stable(AUTO_LONG, T0),
        Step(Consumed(((T0, 9),))),
        Step(Subscribe(("u", "t"))),
        Step(Poll(10), (commit(1, "m1", (T0, 9)),)),
        Step(Poll(300_010), (Callback("revoked", (T0,)), join(AUTO_LONG, ("t", "u"), "m1", 1,
                                                              reason=SUBSCRIPTION_CHANGED))),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(Consumed(((T0, 12),))),
        Step(Subscribe(("t",))),
        Step(Poll(300_011), (commit(2, "m1", (T0, 12)),)),
        # the first commit's late answer is not the one this rejoin waits for
        Step(committed((T0, OK)), ()),
        Step(Poll(300_012), ()),
        Step(committed((T0, OK)), ()),
        Step(Poll(300_013), (Callback("revoked", (T0,)), join(AUTO_LONG, ("t",), "m1", 2,
                                                              reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("fenced_auto_commit_fences_every_later_call", "ConsumerCoordinator.doCommitOffsetsAsync",
         replace(AUTO_STATIC, auto_commit_interval_ms=2_000), (
        *_static_stable(),
        Step(Consumed(((T0, 2),))),
        Step(Poll(2_000), (static(commit(1, "m1", (T0, 2))),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), ()),
        Step(Poll(2_001), (FENCED,)),
    )),
    Case("close_with_nothing_consumed_commits_nothing", CCT + "testCloseDynamicAssignment", AUTO, (
        *_stable(AUTO, T0),
        Step(Close(), (Callback("revoked", (T0,)), leaving("m1")), ends=S.UNJOINED),
    )),
    Case("close_while_rebalancing_commits_nothing", "ConsumerCoordinator.maybeAutoCommitOffsetsSync",
         COOP_AUTO, (
        *_stable(COOP_AUTO, T0),
        Step(Consumed(((T0, 6),))),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (commit(1, "m1", (T0, 6)),)),
        Step(committed((T0, OK)), ()),
        Step(Poll(3_002), (join(COOP_AUTO, ("t",), "m1", 1, (T0,), reason=REBALANCING),),
             ends=S.PREPARING_REBALANCE),
        # rebalancing: the commit is refused before it is sent, and the close goes on
        Step(Close(), (Callback("lost", (T0,)), leaving("m1")), ends=S.UNJOINED),
    )),
    Case("close_swallows_a_fence_that_arrives_while_it_waits", "ConsumerCoordinator.close", AUTO_STATIC, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(AUTO_STATIC, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(CommitAsync(((T0, 4),)), (static(commit(1, "m1", (T0, 4))),)),
        Step(Consumed(((T0, 5),))),
        Step(Close(), (static(commit(1, "m1", (T0, 5))),)),
        Step(committed((T0, Errors.FENCED_INSTANCE_ID)), ()),
        Step(committed((T0, OK)), (Callback("revoked", (T0,)),), ends=S.UNJOINED),
    )),
    Case("a_heartbeat_in_flight_does_not_hold_the_rejoin",
         "ConsumerCoordinator.poll (a rejoin pending ends the poll before the auto-commit)", AUTO, (
        *_stable(AUTO, T0),
        Step(Consumed(((T0, 1),))),
        Step(Poll(2_000), (commit(1, "m1", (T0, 1)),)),
        Step(committed((T0, OK)), ()),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(Subscribe(("t", "u"))),
        # the auto-commit is due, but the rejoin comes first: its own commit goes, unanswered
        # heartbeat or not, and the rejoin waits for that commit only
        Step(Poll(4_000), (commit(1, "m1", (T0, 1)),)),
        Step(beat()),
        Step(Poll(4_001), ()),
        Step(committed((T0, OK)), ()),
        Step(Poll(4_002), (Callback("revoked", (T0,)), join(AUTO, ("t", "u"), "m1", 1,
                                                            reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("an_earlier_async_answer_does_not_settle_the_rejoin_commit",
         "ConsumerCoordinator.onJoinPrepare (autoCommitOffsetRequestFuture)", AUTO, (
        *_stable(AUTO, T0),
        Step(CommitAsync(((T0, 3),)), (commit(1, "m1", (T0, 3)),)),
        Step(Consumed(((T0, 9),))),
        Step(Subscribe(("u", "t"))),
        Step(Poll(1), (commit(1, "m1", (T0, 9)),)),
        Step(committed((T0, OK)), ()),  # the commitAsync's answer comes first
        Step(Poll(2), (CommitCallback(((T0, 3),)),)),
        Step(committed((T0, OK)), ()),
        Step(Poll(3), (Callback("revoked", (T0,)), join(AUTO, ("t", "u"), "m1", 1,
                                                        reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("close_during_the_first_join_sends_no_leave", "AbstractCoordinator.shouldSendLeaveGroupRequest",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),), ends=S.PREPARING_REBALANCE),
        Step(Close(), (), ends=S.UNJOINED),
    )),
    Case("resubscribing_the_same_topics_changes_nothing", "SubscriptionState.subscribe", EAGER, (
        *_stable(EAGER, T0),
        Step(Subscribe(("t",))),
        Step(Poll(1), (), ends=S.STABLE),
    )),
    Case("a_new_subscription_is_seen_by_the_next_poll", "ConsumerCoordinator.rejoinNeededOrPending", EAGER, (
        *_stable(EAGER, T0),
        # the rejoin flag stays down until the poll compares the subscription with the joined one
        Step(Subscribe(("u",)), (), ends=S.STABLE),
    )),
    Case("a_new_subscription_rejoins_at_the_next_poll", "ConsumerCoordinator.rejoinNeededOrPending", EAGER, (
        *_stable(EAGER, T0),
        Step(Subscribe(("u",)), (), ends=S.STABLE),
        Step(Poll(1), (Callback("revoked", (T0,)), join(EAGER, ("u",), "m1", 1, reason=SUBSCRIPTION_CHANGED)),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("a_new_pattern_with_the_same_matches_changes_nothing", "SubscriptionState.subscribe(Pattern)",
         PLAIN, (
        Step(cluster(t=1, u=1)),
        Step(SubscribePattern("t")),
        Step(Poll(0), (join(PLAIN, ("t",)),)),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        Step(synced(T0), (Callback("assigned", (T0,)),)),
        Step(SubscribePattern("t.?")),
        Step(Poll(1), (), ends=S.STABLE),
        Step(SubscribePattern("t|u")),
        Step(Poll(2), (Callback("revoked", (T0,)), join(PLAIN, ("t", "u"), "m2", 1,
                                                        reason=SUBSCRIPTION_CHANGED))),
    )),
    Case("subscription_changed_during_the_rebalance_rejoins_even_with_the_new_topic_assigned",
         "ConsumerCoordinator.maybeUpdateJoinedSubscription (topics, not a pattern)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Subscribe(("t", "u"))),
        Step(joined("m2", 1, "m1"), (sync("m2", 1),)),
        # the join went with the old subscription: the join loop goes round again at once
        Step(synced(T0, U0), (Callback("assigned", (T0, U0)), Callback("revoked", (T0, U0)),
                              join(EAGER, ("t", "u"), "m2", 1, reason=SUBSCRIPTION_CHANGED))),
        Step(Poll(1), ends=S.PREPARING_REBALANCE),
    )),
)

CASES = CASES + CORNER_CASES


# --- as Kafka 4.2.1's client answers: offered protocols, the first protocol's user data ----------

RANGE_FIRST = Config(group_id=GROUP, assignors=("range", "cooperative-sticky"))
STICKY_FIRST = Config(group_id=GROUP, assignors=("cooperative-sticky", "range"))
#: An assignor of the application's own, which Kafka's client only names (the coordinator may choose it).
CUSTOM_FIRST = Config(group_id=GROUP, assignors=("a-custom", "cooperative-sticky"))
CUSTOM_SECOND = Config(group_id=GROUP, assignors=("cooperative-sticky", "a-custom"))

KAFKA_CLIENT_CASES: tuple[Case, ...] = (
    Case("leader_refuses_an_unoffered_protocol_even_with_its_assignments_scripted",
         "ConsumerCoordinator.onLeaderElected (lookupAssignor)", COOP, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(COOP, ("t",)),)),
        # the chosen protocol is looked up before anything is assigned or sent
        Step(joined("m1", 1, "m1", "range", leader_assignments=(("m1", assignment(T0)),)),
             (Raised("IllegalStateException", "the coordinator chose assignment protocol 'range', "
                     "which this member did not offer"),)),
        Step(Poll(1), (join(COOP, ("t",), "m1", 1, reason=failed("IllegalStateException"), assigned_in=-1),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("follower_refuses_an_unoffered_protocol_at_every_poll",
         "ConsumerCoordinator.onJoinComplete (lookupAssignor)", COOP, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(COOP, ("t",)),)),
        Step(joined("m1", 1, "m0", "range"), (sync("m1", 1, "range"),)),
        Step(Subscribe(("t", "u"))),
        # the join completed, but its result cannot be read: nothing is assigned, no rejoin goes
        # for the changed subscription, and every poll reads it again and throws again
        Step(synced(T0, protocol="range"),
             (Raised("IllegalStateException", "the coordinator chose assignment protocol 'range', "
                     "which this member did not offer"),), ends=S.STABLE, expect_epoch=1),
        Step(Poll(1), (Raised("IllegalStateException", "the coordinator chose assignment protocol 'range', "
                              "which this member did not offer"),), ends=S.STABLE),
    )),
    Case("only_the_first_protocols_user_data_is_shown", "ConsumerCoordinator.metadata", RANGE_FIRST, (
        Step(Subscribe(("t",))),
        # range comes first and has no user data (cooperative-sticky's rides in the second protocol)
        Step(Poll(0), (join(RANGE_FIRST, ("t",)),)),
    )),
    Case("cooperative_sticky_keeps_its_generation_when_another_protocol_is_chosen",
         "CooperativeStickyAssignor.onAssignment", STICKY_FIRST, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(STICKY_FIRST, ("t",)),)),
        Step(joined("m1", 1, "m1", "range", leader_assignments=(("m1", assignment(T0)),)),
             (sync("m1", 1, "range", (("m1", assignment(T0)),)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        # only the chosen assignor hears of the assignment: cooperative-sticky still says -1
        Step(Poll(3_001), (Callback("revoked", (T0,)),
                           join(STICKY_FIRST, ("t",), "m1", 1, reason=REBALANCING, assigned_in=-1))),
    )),
    Case("a_leader_whose_metadata_did_not_move_names_the_subscription",
         "ConsumerCoordinator.rejoinNeededOrPending (metadata first, then the subscription)", EAGER, (
        Step(cluster(t=2, u=1)),
        *_led_stable(EAGER),
        # u is known, but no refresh came since the assignment: the subscription names the rejoin
        Step(Subscribe(("t", "u"))),
        Step(Poll(1), (Callback("revoked", (T0, T1)), join(EAGER, ("t", "u"), "m1", 1,
                                                            reason=SUBSCRIPTION_CHANGED)),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("a_custom_first_assignor_shows_no_user_data", "ConsumerCoordinator.metadata", CUSTOM_FIRST, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(CUSTOM_FIRST, ("t",)),)),
    )),
    Case("cooperative_sticky_ignores_a_custom_protocol_chosen", "CooperativeStickyAssignor.onAssignment",
         CUSTOM_SECOND, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(CUSTOM_SECOND, ("t",)),)),
        Step(joined("m1", 1, "m0", "a-custom"), (sync("m1", 1, "a-custom"),)),
        Step(synced(T0, protocol="a-custom"), (Callback("assigned", (T0,)),), ends=S.STABLE),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)),
                           join(CUSTOM_SECOND, ("t",), "m1", 1, reason=REBALANCING, assigned_in=-1))),
    )),
    Case("coordinator_lost_during_sync_rejoins_at_the_next_poll",
         "AbstractCoordinator.SyncGroupResponseHandler (NOT_COORDINATOR)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        # retriable: not thrown; the next poll finds the coordinator again and rejoins
        Step(sync_error(Errors.NOT_COORDINATOR), (), ends=S.COMPLETING_REBALANCE),
        Step(Poll(1), (join(EAGER, ("t",), "m1", 1, reason=failed("NotCoordinatorException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    # Found by groupspec fuzz against Kafka's client (seed 0: 8 of 200 runs, and 5 more for the
    # heartbeat): groupspec went back to PREPARING_REBALANCE at once, and kept the heartbeat.
    Case("a_lost_coordinator_on_sync_leaves_the_member_completing",
         "AbstractCoordinator.SyncGroupResponseHandler (markCoordinatorUnknown; no state change)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        # the heartbeat thread runs while the SyncGroup is out
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        # the coordinator is dropped and its connection closed: the heartbeat goes down with it
        Step(sync_error(Errors.COORDINATOR_NOT_AVAILABLE), (), ends=S.COMPLETING_REBALANCE),
    )),
    Case("a_lost_coordinator_on_join_fails_the_heartbeat_in_flight",
         "AbstractCoordinator.JoinGroupResponseHandler (markCoordinatorUnknown disconnects)", EAGER, (
        *_stable(EAGER, T0),
        Step(Poll(3_000), (heartbeat("m1", 1),)),
        Step(Subscribe(("t", "u"))),
        Step(Poll(3_001), (Callback("revoked", (T0,)),
                           join(EAGER, ("t", "u"), "m1", 1, reason=SUBSCRIPTION_CHANGED))),
        # the heartbeat still out goes down with the connection
        Step(join_error(Errors.NOT_COORDINATOR, "m1"), (), ends=S.PREPARING_REBALANCE),
    )),
    Case("offset_fetch_errors_other_than_authorization_are_unexpected",
         "ConsumerCoordinator.OffsetFetchResponseHandler", EAGER, (
        Step(Assign((T0,))),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.UNSUPPORTED_VERSION)),
             (Raised("KafkaException", "offset fetch failed: UNSUPPORTED_VERSION"),)),
    )),
)

CASES = CASES + KAFKA_CLIENT_CASES


# --- the heartbeat thread ------------------------------------------------------------------------

#: max.poll.interval.ms (the rebalance timeout) short enough for a run to outlast it.
POLL10 = Config(group_id=GROUP, rebalance_timeout_ms=10_000)
STATIC_POLL10 = replace(POLL10, group_instance_id="i1")
#: A session shorter than the request timeout, so that it ends first.
SHORT_SESSION = Config(group_id=GROUP, session_timeout_ms=10_000)
POLL_TIMEOUT = "consumer poll timeout has expired."


def left_on_poll_timeout(member: str) -> Sent:
    return Sent(LeaveGroup(GROUP, (MemberIdentity(member, reason=POLL_TIMEOUT),)))


def _older_generation_error(error: Errors, test: str) -> Case:
    """A heartbeat that went at generation 1 is answered with a fencing error once the member
    is in generation 2: the error is about a generation it has left, and changes nothing."""
    return Case(f"{error.name.lower()}_on_a_heartbeat_of_an_older_generation_is_ignored",
                ACT + test + "OldGeneration", EAGER, (
        *_stable(EAGER, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(Tick(6_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),  # answers the first
        Step(Poll(6_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),)),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE, expect_epoch=2),
        Step(beat(error), ends=S.STABLE, expect_epoch=2),  # answers the second, sent in generation 1
        Step(Poll(6_002), ends=S.STABLE, expect_epoch=2),  # nothing to throw, nothing to rejoin
    ))


HEARTBEAT_CASES: tuple[Case, ...] = (
    Case("no_heartbeat_before_the_join_answer", "AbstractCoordinator.HeartbeatThread#run (hasNotJoinedGroup)",
         EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Tick(10_000), ends=S.PREPARING_REBALANCE),
        Step(Poll(10_000), ends=S.PREPARING_REBALANCE),
    )),
    Case("the_heartbeat_thread_beats_between_polls", ACT + "testPollHeartbeatAwakesHeartbeatThread", EAGER, (
        *_stable(EAGER, T0),
        Step(Tick(2_999)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(Tick(5_999)),
        Step(Tick(6_000), (heartbeat("m1", 1),)),  # the first is still unanswered
        Step(beat()),
        Step(beat(), ends=S.STABLE, expect_epoch=1),
    )),
    _older_generation_error(Errors.ILLEGAL_GENERATION, "testHeartbeatIllegalGenerationResponseWith"),
    _older_generation_error(Errors.UNKNOWN_MEMBER_ID, "testHeartbeatUnknownMemberResponseWith"),
    _older_generation_error(Errors.FENCED_INSTANCE_ID, "testHeartbeatInstanceFencedResponseWith"),
    Case("poll_timeout_leaves_the_group_and_the_next_poll_loses_the_partitions",
         "AbstractCoordinator.HeartbeatThread#run, handlePollTimeoutExpiry", POLL10, (
        *_stable(POLL10, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(6_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(9_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(9_999), ends=S.STABLE),
        # ten seconds since the last poll (the JoinGroup answer restarted the count): the member
        # leaves, and forgets its generation and member id
        Step(Tick(10_000), (left_on_poll_timeout("m1"),), ends=S.UNJOINED, expect_epoch=-1),
        Step(Tick(20_000), ends=S.UNJOINED),  # no heartbeat from a member out of the group
        Step(Poll(20_001), (Callback("lost", (T0,)), join(POLL10, ("t",), reason=LEFT)),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("a_tick_past_the_poll_timeout_leaves_all_the_same",
         "AbstractCoordinator.HeartbeatThread#run (pollTimer.isExpired: at or after its deadline)", POLL10, (
        *_stable(POLL10, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(6_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(9_000), (heartbeat("m1", 1),)),
        Step(beat()),
        # the thread wakes only after the deadline (10 000) has passed: the poll timeout has
        # expired all the same, and it leaves before the heartbeat due at 12 000
        Step(Tick(10_500), (left_on_poll_timeout("m1"),), ends=S.UNJOINED, expect_epoch=-1),
    )),
    Case("a_fencing_heartbeat_answer_after_the_poll_timeout_reset_is_ignored",
         "AbstractCoordinator.HeartbeatResponseHandler (generationUnchanged: the member's generation "
         "is now older than the one sent)", POLL10, (
        *_stable(POLL10, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(6_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(9_000), (heartbeat("m1", 1),)),
        Step(Tick(10_000), (left_on_poll_timeout("m1"),), ends=S.UNJOINED, expect_epoch=-1),
        # sent in generation 1, answered once the member has none: about a membership it left
        Step(beat(Errors.FENCED_INSTANCE_ID), ends=S.UNJOINED, expect_epoch=-1),
        Step(Poll(10_001), (Callback("lost", (T0,)), join(POLL10, ("t",), reason=LEFT)),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("poll_timeout_of_a_static_member_sends_no_leave_but_resets_it",
         "AbstractCoordinator.maybeLeaveGroup (static member, DEFAULT operation)", STATIC_POLL10, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (static(join(STATIC_POLL10, ("t",))),)),
        Step(joined("m1", 1, "m0"), (static(sync("m1", 1)),)),
        Step(synced(T0), (Callback("assigned", (T0,)),), ends=S.STABLE),
        Step(Poll(9_000), (static(heartbeat("m1", 1)),)),
        Step(beat()),
        # the poll timeout is looked at before the heartbeat that is also due: no heartbeat,
        # and no LeaveGroup from a static member, but its generation and member id are gone
        Step(Tick(19_000), ends=S.UNJOINED, expect_epoch=-1),
        Step(Poll(19_001), (Callback("lost", (T0,)), static(join(STATIC_POLL10, ("t",), reason=LEFT)))),
    )),
    Case("a_poll_restarts_the_poll_timeout", CCT + "testUpdateLastHeartbeatPollWhenCoordinatorUnknown",
         POLL10, (
        *_stable(POLL10, T0),
        Step(Poll(9_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(18_999), (heartbeat("m1", 1),), ends=S.STABLE),
        Step(beat()),
        Step(Tick(19_000), (left_on_poll_timeout("m1"),), ends=S.UNJOINED),
    )),
    Case("poll_timeout_while_the_sync_awaits_rejoins_on_its_answer",
         "AbstractCoordinator.SyncGroupResponseHandler (generation cleared by the heartbeat thread)",
         POLL10, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(POLL10, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(10_000), (left_on_poll_timeout("m1"),), ends=S.UNJOINED, expect_epoch=-1),
        Step(synced(T0), (join(POLL10, ("t",), reason=failed("IllegalGenerationException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    # Kafka draws each backoff within 20% either side of the one the model takes: the ticks
    # below stay outside those bands
    Case("session_timeout_drops_the_coordinator_and_the_heartbeat_backs_off",
         "AbstractCoordinator.HeartbeatThread#run (sessionTimeoutExpired), Heartbeat#failHeartbeat",
         SHORT_SESSION, (
        *_stable(SHORT_SESSION, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(Tick(9_999), (heartbeat("m1", 1),)),
        # 10 s without a successful answer: both heartbeats are lost with the connection, each
        # doubling the backoff (100 ms, then 200 ms)
        Step(Tick(10_000), ends=S.STABLE, expect_epoch=1),
        Step(beat()),  # nothing is in flight any more: ignored
        Step(Tick(10_159)),
        Step(Tick(10_240), (heartbeat("m1", 1),)),
        Step(beat(Errors.UNKNOWN_SERVER_ERROR)),  # a failure again: 400 ms
        Step(Tick(10_559)),
        Step(Tick(10_720), (heartbeat("m1", 1),)),
        Step(beat()),  # answered: the backoff is over, the interval is back
        Step(Tick(13_719)),
        Step(Tick(13_720), (heartbeat("m1", 1),), ends=S.STABLE, expect_epoch=1),
        Step(beat(Errors.UNKNOWN_SERVER_ERROR)),  # the answer reset the count: 100 ms again
        Step(Tick(13_799)),
        Step(Tick(13_840), (heartbeat("m1", 1),), ends=S.STABLE),
    )),
    Case("an_unanswered_heartbeat_times_out_the_connection",
         "NetworkClient request timeout (request.timeout.ms), AbstractCoordinator.CoordinatorResponseHandler",
         EAGER, (
        *_stable(EAGER, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(Tick(32_999), (heartbeat("m1", 1),)),
        # the first heartbeat has waited 30 s: the connection closes, both are lost, and the
        # coordinator found again starts a new session
        Step(Tick(33_000), ends=S.STABLE, expect_epoch=1),
        Step(Tick(33_159)),
        Step(Tick(33_240), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(36_239)),
        Step(Tick(36_240), (heartbeat("m1", 1),), ends=S.STABLE),
    )),
    Case("coordinator_error_on_a_heartbeat_fails_the_commit_in_flight",
         "AbstractCoordinator.HeartbeatResponseHandler (NOT_COORDINATOR: markCoordinatorUnknown)", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.NOT_COORDINATOR)),
        Step(Poll(3_001), (CommitCallback(((T0, 5),), "RetriableCommitFailedException"),)),
        Step(Tick(3_079)),
        Step(Tick(3_120), (heartbeat("m1", 1),), ends=S.STABLE),
    )),
    Case("an_unanswered_sync_times_out_and_its_round_fails",
         "AbstractCoordinator.joinGroupIfNeeded (a disconnected round is retriable)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(Tick(29_999), (heartbeat("m1", 1),)),
        Step(Tick(30_000), ends=S.COMPLETING_REBALANCE),  # the SyncGroup waited 30 s
        Step(synced(T0)),  # its request went with the connection: nobody waits for it
        Step(Poll(30_001)),  # the join loop finds the round failed; no time is left in this poll
        Step(Poll(30_002), (join(EAGER, ("t",), "m1", 1, reason=failed("DisconnectException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("an_unanswered_join_times_out_after_the_rebalance_timeout_and_5_s",
         "AbstractCoordinator.sendJoinGroupRequest (joinGroupTimeoutMs), joinGroupIfNeeded", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Poll(304_999), ends=S.PREPARING_REBALANCE),
        # the join loop's network poll closes the connection, and the loop sees its round fail
        Step(Poll(305_000), ends=S.PREPARING_REBALANCE),
        Step(Poll(305_001), (join(EAGER, ("t",), reason=failed("DisconnectException")),)),
    )),
    Case("an_unanswered_commit_times_out_and_fails_retriably",
         "NetworkClient request timeout, ConsumerCoordinator.doCommitOffsetsAsync (retriable)",
         EAGER, (
        Step(Assign((T0,))),
        Step(CommitAsync(((T0, 3),)), (commit(-1, "", (T0, 3)),)),
        Step(Poll(29_999)),
        Step(Poll(30_000)),  # 30 s unanswered: the connection closes after this poll's work
        Step(Poll(30_001), (CommitCallback(((T0, 3),), "RetriableCommitFailedException"),)),
        Step(committed((T0, OK)), ends=S.UNJOINED),  # nothing is in flight to answer
    )),
    Case("a_poll_well_past_a_commits_timeout_fails_it",
         "NetworkClient request timeout (at or after the deadline), ConsumerCoordinator.doCommitOffsetsAsync",
         EAGER, (
        Step(Assign((T0,))),
        Step(CommitAsync(((T0, 3),)), (commit(-1, "", (T0, 3)),)),
        Step(Poll(29_999)),
        Step(Poll(30_500)),  # past the 30 s timeout: the connection closes after this poll's work
        Step(Poll(30_501), (CommitCallback(((T0, 3),), "RetriableCommitFailedException"),)),
    )),
    Case("close_stops_the_heartbeat_thread", CCT + "testHeartbeatThreadClose", EAGER, (
        *_stable(EAGER, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(Close(), (Callback("revoked", (T0,)), leaving("m1"))),
        Step(beat()),
        Step(Tick(10_000), ends=S.UNJOINED),
    )),
)

CASES = CASES + HEARTBEAT_CASES

#: Cases written while fuzzing against Kafka's client (docs/pipeline.md, the fuzz section), for
#: code the sampled mutation gate reached and no vector pinned down.
FUZZ_CASES: tuple[Case, ...] = (
    Case("assign_before_the_auto_commit_is_due_commits_nothing",
         "ClassicKafkaConsumer#assign (maybeAutoCommitOffsetsAsync: only once due)", AUTO_ASSIGN, (
        Step(Assign((T0,))),
        Step(Consumed(((T0, 4),))),
        # the auto-commit is due at 5 s: assigning again before then sends nothing
        Step(Poll(4_999), ()),
        Step(Assign((T0, U0)), (), ends=S.UNJOINED),
    )),
    # Found by the vector below on Kafka's client: groupspec dropped such an answer silently.
    Case("an_unexpected_sync_error_after_a_reset_is_thrown_from_the_poll",
         "AbstractCoordinator.SyncGroupResponseHandler (an unexpected error: KafkaException)", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitSync(((T0, 7),)), (commit(1, "m1", (T0, 7)),)),
        *_rebalancing(EAGER, T0),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),), ends=S.COMPLETING_REBALANCE),
        Step(committed((T0, Errors.UNKNOWN_MEMBER_ID)), (fails("CommitFailedException"),),
             ends=S.UNJOINED, expect_epoch=-1),
        # not one of the errors the join loop goes round again for at once: the poll the answer
        # continues throws it, and the next poll joins
        Step(sync_error(Errors.UNKNOWN_SERVER_ERROR), (Raised("KafkaException", "UNKNOWN_SERVER_ERROR"),),
             ends=S.UNJOINED),
        Step(Poll(3_002), (join(EAGER, ("t",), reason=failed("KafkaException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("a_session_that_ran_out_between_two_events_drops_the_coordinator",
         "AbstractCoordinator.HeartbeatThread#run (sessionTimeoutExpired: at or past the deadline)",
         SHORT_SESSION, (
        *_stable(SHORT_SESSION, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        # nothing answered for 10 s: at 10 001 ms the session is over (a heartbeat is due as well,
        # but the lost coordinator fails the one in flight and the next waits out the backoff)
        Step(Tick(10_001), (), ends=S.STABLE),
        # after the backoff's band (100 ms, Kafka's random factor up to 1.2)
        Step(Tick(10_121), (heartbeat("m1", 1),)),
    )),
    Case("a_heartbeat_unanswered_past_the_request_timeout_drops_the_coordinator",
         "NetworkClient request timeout (at or past it), AbstractCoordinator.HeartbeatThread", EAGER, (
        *_stable(EAGER, T0),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        # 30 s and a little more without its answer: the connection closes, the heartbeat fails,
        # and the one due meanwhile waits out the backoff
        Step(Tick(33_001), (), ends=S.STABLE),
        Step(Tick(33_122), (heartbeat("m1", 1),)),
    )),
)
CASES = CASES + FUZZ_CASES


# --- a coordinator error on any answer loses the coordinator (markCoordinatorUnknown) ------------

RETRIABLY = "RetriableCommitFailedException"
#: An OffsetFetch answer's partitions that would need a reset, were they read.
UNREAD = (FetchedTopic("t", (FetchedPartition(0, -1), FetchedPartition(1, -1))),)

COORDINATOR_CASES: tuple[Case, ...] = (
    Case("coordinator_error_on_a_join_fails_the_commit_in_flight",
         "AbstractCoordinator.JoinGroupResponseHandler (NOT_COORDINATOR: markCoordinatorUnknown)", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        # the connection closes: the commit sent before the rejoin fails with it
        Step(join_error(Errors.NOT_COORDINATOR), (), ends=S.PREPARING_REBALANCE),
        Step(Poll(3_002), (CommitCallback(((T0, 5),), RETRIABLY),
                           join(EAGER, ("t",), "m1", 1, reason=failed("NotCoordinatorException")))),
        Step(committed((T0, OK)), ()),  # nothing is in flight any more: dropped
    )),
    Case("coordinator_error_on_a_sync_fails_the_commit_in_flight",
         "AbstractCoordinator.SyncGroupResponseHandler (COORDINATOR_NOT_AVAILABLE: markCoordinatorUnknown)",
         EAGER, (
        *_stable(EAGER, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),)),
        Step(sync_error(Errors.COORDINATOR_NOT_AVAILABLE), ()),
        Step(Poll(3_002), (CommitCallback(((T0, 5),), RETRIABLY),
                           join(EAGER, ("t",), "m1", 2, reason=failed("CoordinatorNotAvailableException"))),
             ends=S.PREPARING_REBALANCE, expect_epoch=2),
        Step(committed((T0, OK)), ()),
    )),
    Case("coordinator_error_on_a_sync_keeps_the_heartbeat_thread_going",
         "AbstractCoordinator.SyncGroupResponseHandler, HeartbeatThread (COMPLETING_REBALANCE until the "
         "next poll)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        # the heartbeat in flight is lost with the connection (a backoff of 100 ms); the member
        # is still completing the rebalance, so the thread beats on until the next poll joins
        Step(sync_error(Errors.NOT_COORDINATOR), (), ends=S.COMPLETING_REBALANCE),
        Step(beat(Errors.UNKNOWN_MEMBER_ID)),  # nothing is in flight any more: ignored
        Step(Tick(3_079), ends=S.COMPLETING_REBALANCE, expect_epoch=1),
        Step(Tick(3_120), (heartbeat("m1", 1),)),
        Step(beat()),
        Step(Tick(6_120), (heartbeat("m1", 1),)),
        Step(Poll(6_121), (join(EAGER, ("t",), "m1", 1, reason=failed("NotCoordinatorException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("coordinator_error_on_a_commit_fails_the_commits_behind_it",
         "ConsumerCoordinator.OffsetCommitResponseHandler (markCoordinatorUnknown)", EAGER, (
        Step(Assign((T0,))),
        Step(CommitAsync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(CommitAsync(((T0, 2),)), (commit(-1, "", (T0, 2)),)),
        # a loading coordinator is still there: only the answered commit fails
        Step(committed((T0, Errors.COORDINATOR_LOAD_IN_PROGRESS)), ()),
        Step(CommitAsync(((T0, 3),)), (CommitCallback(((T0, 1),), RETRIABLY), commit(-1, "", (T0, 3)))),
        Step(CommitAsync(((T0, 4),)), (commit(-1, "", (T0, 4)),)),
        # a timed-out commit marks the coordinator unknown: the commits behind it fail too
        Step(committed((T0, Errors.REQUEST_TIMED_OUT)), ()),
        Step(Poll(1), (CommitCallback(((T0, 2),), RETRIABLY), CommitCallback(((T0, 3),), RETRIABLY),
                       CommitCallback(((T0, 4),), RETRIABLY)), ends=S.UNJOINED),
        Step(committed((T0, OK)), ()),
        # the coordinator found again: answers that do not lose it keep what is behind them
        Step(CommitAsync(((T0, 5),)), (commit(-1, "", (T0, 5)),)),
        Step(CommitAsync(((T0, 6),)), (commit(-1, "", (T0, 6)),)),
        Step(CommitAsync(((T0, 7),)), (commit(-1, "", (T0, 7)),)),
        Step(committed((T0, OK)), ()),
        Step(committed((T0, Errors.OFFSET_METADATA_TOO_LARGE)), ()),
        Step(Poll(2), (CommitCallback(((T0, 5),)), CommitCallback(((T0, 6),), "OffsetMetadataTooLarge"))),
        Step(committed((T0, OK)), ()),
        Step(Poll(3), (CommitCallback(((T0, 7),)),)),
    )),
    Case("coordinator_error_on_a_commit_sends_the_commit_sync_behind_it_again",
         "ConsumerCoordinator.OffsetCommitResponseHandler, commitOffsetsSync (a disconnect is retriable)",
         EAGER, (
        Step(Assign((T0,))),
        Step(CommitAsync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(CommitSync(((T0, 2),)), (commit(-1, "", (T0, 2)),)),
        # the commitSync's request goes with the connection; its loop runs the finished async
        # callback, then sends again to the coordinator found again
        Step(committed((T0, Errors.NOT_COORDINATOR)),
             (CommitCallback(((T0, 1),), RETRIABLY), commit(-1, "", (T0, 2)))),
        Step(committed((T0, OK)), ()),
        Step(Poll(1), ()),
    )),
    Case("coordinator_error_on_an_offset_fetch_fails_the_commit_in_flight",
         "ConsumerCoordinator.OffsetFetchResponseHandler (NOT_COORDINATOR: markCoordinatorUnknown)", EAGER, (
        Step(Assign((T0,))),
        Step(CommitAsync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.NOT_COORDINATOR)), ()),
        Step(Poll(1), (CommitCallback(((T0, 1),), RETRIABLY),)),
        # the next poll fetches again
        Step(fetched((T0, -1)), (ResetOffset(T0, "latest"),)),
    )),
    Case("retriable_offset_fetch_errors_are_fetched_again",
         "ConsumerCoordinator.OffsetFetchResponseHandler (RetriableException), fetchCommittedOffsets",
         EAGER, (
        Step(Assign((T0, T1))),
        Step(CommitAsync(((T0, 1),)), (commit(-1, "", (T0, 1)),)),
        # retriable: nothing thrown, nothing reset (the partitions the failed answer lists are not
        # read), and the coordinator is kept (the commit is not lost)
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION, UNREAD)), ()),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.REQUEST_TIMED_OUT, UNREAD)), ()),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.NOT_LEADER_OR_FOLLOWER)), ()),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.UNSTABLE_OFFSET_COMMIT)), ()),
        Step(Poll(1), ()),
        Step(committed((T0, OK)), ()),
        Step(Poll(2), (CommitCallback(((T0, 1),)),)),
        # an error whose exception is not retriable is still thrown, and its partitions not read
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.STALE_MEMBER_EPOCH, UNREAD)),
             (Raised("KafkaException", "offset fetch failed: STALE_MEMBER_EPOCH"),)),
        Step(OffsetFetchAnswered(OffsetFetchResponse(Errors.UNKNOWN_SERVER_ERROR, UNREAD)),
             (Raised("KafkaException", "offset fetch failed: UNKNOWN_SERVER_ERROR"),)),
        Step(fetched((T0, 4), (T1, -1)), (ResetOffset(T1, "latest"),)),
    )),
)


def _reset_while_joining(config: Config, *stable: Step) -> tuple[Step, ...]:
    """STABLE with t-0 (and then the ``stable`` steps); two heartbeats go, the first reports a
    rebalance, the JoinGroup goes (eager: t-0 revoked), and the second heartbeat's
    UNKNOWN_MEMBER_ID resets the member while the JoinGroup is out."""
    return (
        *_stable(config, T0),
        *stable,
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(Tick(6_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(6_001), (Callback("revoked", (T0,)), join(config, ("t",), "m1", 1, reason=REBALANCING))),
        Step(beat(Errors.UNKNOWN_MEMBER_ID), ends=S.UNJOINED, expect_epoch=-1),
    )


ANSWERED_AFTER_A_RESET = ("AbstractCoordinator.JoinGroupResponseHandler and joinGroupIfNeeded "
                          "(member reset meanwhile)")

STALE_CASES: tuple[Case, ...] = (
    Case("coordinator_error_on_a_join_the_member_was_reset_under", ANSWERED_AFTER_A_RESET, EAGER, (
        *_reset_while_joining(EAGER, Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),))),
        # the round fails and names the next JoinGroup; the coordinator is lost all the same,
        # and the commit still in flight with it
        Step(join_error(Errors.NOT_COORDINATOR), (), ends=S.UNJOINED),
        Step(Poll(6_002), (CommitCallback(((T0, 5),), RETRIABLY),
                           join(EAGER, ("t",), reason=failed("NotCoordinatorException"))),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("error_on_a_join_the_member_was_reset_under_is_thrown", ANSWERED_AFTER_A_RESET, EAGER, (
        *_reset_while_joining(EAGER),
        Step(join_error(Errors.GROUP_AUTHORIZATION_FAILED),
             (Raised("GroupAuthorizationException", "GROUP_AUTHORIZATION_FAILED"),), ends=S.UNJOINED),
        Step(Poll(6_002), (join(EAGER, ("t",), reason=failed("GroupAuthorizationException")),)),
    )),
    Case("full_group_on_a_join_the_member_was_reset_under_is_thrown", ANSWERED_AFTER_A_RESET, EAGER, (
        *_reset_while_joining(EAGER),
        Step(join_error(Errors.GROUP_MAX_SIZE_REACHED),
             (Raised("GroupMaxSizeReachedException", "GROUP_MAX_SIZE_REACHED"),), ends=S.UNJOINED),
        Step(Poll(6_002), (join(EAGER, ("t",), reason=failed("GroupMaxSizeReachedException")),)),
    )),
    Case("unexpected_error_on_a_join_the_member_was_reset_under_is_thrown", ANSWERED_AFTER_A_RESET, EAGER, (
        *_reset_while_joining(EAGER),
        Step(join_error(Errors.UNKNOWN_SERVER_ERROR), (Raised("KafkaException", "UNKNOWN_SERVER_ERROR"),),
             ends=S.UNJOINED),
        Step(Poll(6_002), (join(EAGER, ("t",), reason=failed("KafkaException")),)),
    )),
    Case("rebalance_in_progress_on_a_join_the_member_was_reset_under_joins_at_once",
         ANSWERED_AFTER_A_RESET, EAGER, (
        *_reset_while_joining(EAGER),
        Step(join_error(Errors.REBALANCE_IN_PROGRESS),
             (join(EAGER, ("t",), reason=failed("RebalanceInProgressException")),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("member_id_required_on_a_join_the_member_was_reset_under_joins_at_once",
         ANSWERED_AFTER_A_RESET, EAGER, (
        *_reset_while_joining(EAGER),
        Step(join_error(Errors.MEMBER_ID_REQUIRED, "m2"),
             (join(EAGER, ("t",), "m2", reason=MEMBER_ID_GIVEN + "m2"),), ends=S.PREPARING_REBALANCE),
    )),
    Case("coordinator_error_on_a_sync_the_member_was_reset_under",
         "AbstractCoordinator.SyncGroupResponseHandler and joinGroupIfNeeded (member reset meanwhile)",
         POLL10, (
        *_stable(POLL10, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(POLL10, ("t",), "m1", 1, reason=REBALANCING))),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),)),
        Step(Tick(13_001), (left_on_poll_timeout("m1"),), ends=S.UNJOINED, expect_epoch=-1),
        # the round fails and names the next JoinGroup; the commit from before is lost with the
        # coordinator
        Step(sync_error(Errors.NOT_COORDINATOR), (), ends=S.UNJOINED),
        Step(Poll(13_002), (CommitCallback(((T0, 5),), RETRIABLY),
                            join(POLL10, ("t",), reason=failed("NotCoordinatorException")))),
    )),
    Case("error_on_a_sync_the_member_was_reset_under_is_thrown",
         "AbstractCoordinator.SyncGroupResponseHandler and joinGroupIfNeeded (member reset meanwhile)",
         POLL10, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(POLL10, ("t",)),)),
        Step(joined("m1", 1, "m0"), (sync("m1", 1),)),
        Step(Tick(10_000), (left_on_poll_timeout("m1"),), ends=S.UNJOINED),
        Step(sync_error(Errors.UNKNOWN_SERVER_ERROR), (Raised("KafkaException", "UNKNOWN_SERVER_ERROR"),)),
        Step(Poll(10_001), (join(POLL10, ("t",), reason=failed("KafkaException")),)),
    )),
    # A member that unsubscribed while its JoinGroup or SyncGroup was out runs no join loop, but
    # the handlers drop the coordinator on its errors whatever the subscription: the commit sent
    # before goes down with the connection. The failed round waits for the join loop of the first
    # poll after a new subscription (Kafka's join future stays failed), which names it in the
    # JoinGroup of the poll after (found on Kafka's client: groupspec joined in the first poll).
    Case("coordinator_error_on_a_join_after_unsubscribe_fails_the_commit_in_flight",
         "AbstractCoordinator.JoinGroupResponseHandler (COORDINATOR_NOT_AVAILABLE: markCoordinatorUnknown "
         "whatever the state)", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(Unsubscribe(), (leave("m1"),), ends=S.UNJOINED, expect_epoch=-1),
        Step(join_error(Errors.COORDINATOR_NOT_AVAILABLE, "m1"), (), ends=S.UNJOINED, expect_epoch=-1),
        Step(Subscribe(("t",))),
        # the join loop reads the failed round: retriable, it ends this poll without a JoinGroup
        Step(Poll(3_002), (CommitCallback(((T0, 5),), RETRIABLY),), ends=S.UNJOINED),
        Step(Poll(3_003), (join(EAGER, ("t",), reason=failed("CoordinatorNotAvailableException")),),
             ends=S.PREPARING_REBALANCE),
        Step(committed((T0, OK)), ()),  # its request went with the connection: dropped
    )),
    Case("coordinator_error_on_a_sync_after_unsubscribe_fails_the_commit_in_flight",
         "AbstractCoordinator.SyncGroupResponseHandler (COORDINATOR_NOT_AVAILABLE: markCoordinatorUnknown "
         "whatever the state)", EAGER, (
        *_stable(EAGER, T0),
        Step(CommitAsync(((T0, 5),)), (commit(1, "m1", (T0, 5)),)),
        Step(Tick(3_000), (heartbeat("m1", 1),)),
        Step(beat(Errors.REBALANCE_IN_PROGRESS)),
        Step(Poll(3_001), (Callback("revoked", (T0,)), join(EAGER, ("t",), "m1", 1, reason=REBALANCING))),
        Step(joined("m1", 2, "m0"), (sync("m1", 2),)),
        Step(Unsubscribe(), (leave("m1"),), ends=S.UNJOINED, expect_epoch=-1),
        Step(sync_error(Errors.COORDINATOR_NOT_AVAILABLE), (), ends=S.UNJOINED, expect_epoch=-1),
        Step(Subscribe(("t",))),
        # the join loop reads the failed round: retriable, it ends this poll without a JoinGroup
        Step(Poll(3_002), (CommitCallback(((T0, 5),), RETRIABLY),), ends=S.UNJOINED),
        Step(Poll(3_003), (join(EAGER, ("t",), reason=failed("CoordinatorNotAvailableException")),),
             ends=S.PREPARING_REBALANCE),
        Step(committed((T0, OK)), ()),
    )),
    Case("a_join_answered_after_unsubscribe_fails_the_round_at_the_first_poll_after_subscribing",
         "AbstractCoordinator.joinGroupIfNeeded (a failed join future read by the next join loop)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Unsubscribe(), ends=S.UNJOINED),
        # refused (UnjoinedGroupException); nobody reads the round until a join loop runs again
        Step(joined("m1", 1, "m0"), (), ends=S.UNJOINED, expect_epoch=-1),
        Step(Subscribe(("t",))),
        Step(Poll(1), (), ends=S.UNJOINED),  # retriable: the loop stops for this poll
        Step(Poll(2), (join(EAGER, ("t",), reason="rebalance failed due to UnjoinedGroupException"),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("an_unexpected_join_error_after_unsubscribe_is_thrown_after_subscribing",
         "AbstractCoordinator.joinGroupIfNeeded (a failed join future read by the next join loop)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Unsubscribe(), ends=S.UNJOINED),
        Step(join_error(Errors.UNKNOWN_SERVER_ERROR), (), ends=S.UNJOINED),
        Step(Subscribe(("t",))),
        Step(Poll(1), (Raised("KafkaException", "UNKNOWN_SERVER_ERROR"),), ends=S.UNJOINED),
        Step(Poll(2), (join(EAGER, ("t",), reason=failed("KafkaException")),), ends=S.PREPARING_REBALANCE),
    )),
    Case("member_id_required_after_unsubscribe_takes_the_id_at_the_answer",
         "AbstractCoordinator.JoinGroupResponseHandler (MEMBER_ID_REQUIRED: the generation's member id "
         "set in the handler)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Unsubscribe(), ends=S.UNJOINED),
        # the view shows m2 already: the handler, not the join loop, takes the given id
        Step(join_error(Errors.MEMBER_ID_REQUIRED, "m2"), (), ends=S.UNJOINED, expect_epoch=-1),
    )),
    Case("member_id_required_after_unsubscribe_joins_with_it_at_the_first_poll_after_subscribing",
         "AbstractCoordinator.joinGroupIfNeeded (MemberIdRequiredException: round again at once)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Unsubscribe(), ends=S.UNJOINED),
        Step(join_error(Errors.MEMBER_ID_REQUIRED, "m2"), (), ends=S.UNJOINED),
        Step(Subscribe(("t",))),
        Step(Poll(1), (join(EAGER, ("t",), "m2", reason=MEMBER_ID_GIVEN + "m2"),),
             ends=S.PREPARING_REBALANCE),
    )),
    Case("rebalance_in_progress_on_a_join_after_unsubscribe_joins_at_the_first_poll_after_subscribing",
         "AbstractCoordinator.joinGroupIfNeeded (a failed join future read by the next join loop)", EAGER, (
        Step(Subscribe(("t",))),
        Step(Poll(0), (join(EAGER, ("t",)),)),
        Step(Unsubscribe(), ends=S.UNJOINED),
        Step(join_error(Errors.REBALANCE_IN_PROGRESS), (), ends=S.UNJOINED),
        Step(Subscribe(("t",))),
        # the join loop goes round again at once
        Step(Poll(1), (join(EAGER, ("t",), reason=failed("RebalanceInProgressException")),),
             ends=S.PREPARING_REBALANCE),
    )),
)

CASES = CASES + COORDINATOR_CASES + STALE_CASES


def vector_input(case: Case) -> dict[str, object]:
    from groupspec.conformance.classic_consumer_json import RunInput, run_input_to_json

    return run_input_to_json(RunInput(config=case.config, events=tuple(s.event for s in case.steps)))


def classic_consumer_vector_docs() -> Iterator[dict[str, object]]:
    """One vector per case; ``expected`` is what the spec answers for the input as written."""
    from groupspec.conformance.classic_consumer import PROPERTIES
    from groupspec.conformance.run_form import spec_run_vectors

    return spec_run_vectors(MACHINE, HANDLER, CASES, vector_input, PROPERTIES)

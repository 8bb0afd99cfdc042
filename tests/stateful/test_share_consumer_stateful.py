"""The share consumer's membership: spec and implementation driven side by side.

The application subscribes (to topics, or to nothing), polls, unsubscribes; time passes (past
the heartbeat interval, the backoff, the poll timeout); the in-flight heartbeat is answered
with any error or with an epoch and maybe an assignment, or fails. After every step both
layers sent the same heartbeat, released the same assignment and show the same view; every
state change was one Kafka's member state table allows (the spec's contract); at most one
heartbeat is ever in flight, and none goes out in UNSUBSCRIBED, FENCED, FATAL or STALE.
"""

from __future__ import annotations

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from groupspec.impl.share_consumer import ShareConsumerMembership
from groupspec.spec import share_consumer as spec
from groupspec.types.errors import Errors
from groupspec.types.share_consumer import (
    ClientOutput,
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
from groupspec.types.share_group import ShareGroupHeartbeatResponse, TopicPartitions

CONFIG = ShareConsumerConfig(member_id="m", rack_id="r1", max_poll_interval_ms=20_000)
ERRORS = (Errors.NONE,) * 6 + (
    Errors.FENCED_MEMBER_EPOCH,
    Errors.UNKNOWN_MEMBER_ID,
    Errors.NOT_COORDINATOR,
    Errors.COORDINATOR_NOT_AVAILABLE,
    Errors.COORDINATOR_LOAD_IN_PROGRESS,
    Errors.TOPIC_AUTHORIZATION_FAILED,
    Errors.GROUP_MAX_SIZE_REACHED,
    Errors.UNKNOWN_SERVER_ERROR,
)
ASSIGNMENTS = (
    None,
    None,
    (),
    (TopicPartitions("a", (0,)),),
    (TopicPartitions("a", (0, 1)),),
    (TopicPartitions("a", (1,)), TopicPartitions("b", (0,))),
)


class ClientAgreement(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = spec.initial_state(CONFIG)
        self.impl = ShareConsumerMembership(CONFIG)

    def send(self, event: ShareConsumerEvent) -> ClientOutput:
        note(repr(event))
        before = spec.view(self.state)
        self.state, expected = spec.step(self.state, event)
        actual = self.impl.handle(event)
        assert actual == expected, f"{event!r}\nspec: {expected}\nimpl: {actual}"
        if expected.sent is not None:
            # One heartbeat in flight, but a leave goes at once (the share consumer's rule).
            assert (not before.in_flight or isinstance(event, HeartbeatAnswered | HeartbeatFailed)
                    or expected.sent.member_epoch == -1)
            assert before.state not in (MemberState.FATAL,)
        return expected

    @rule(topics=st.sampled_from(((), ("a",), ("a", "b"), ("b",))))
    def subscribe(self, topics: tuple[str, ...]) -> None:
        self.send(Subscribe(topics))

    @rule()
    def poll(self) -> None:
        self.send(Poll())

    @rule()
    def unsubscribe(self) -> None:
        self.send(Unsubscribe())

    @rule(by=st.sampled_from((1, 99, 100, 4_999, 5_000, 8_000, 20_000)))
    def tick(self, by: int) -> None:
        self.send(Tick(spec.view(self.state).now_ms + by))

    @rule(
        error=st.sampled_from(ERRORS),
        bump=st.sampled_from((0, 0, 1, 2)),
        assignment=st.sampled_from(ASSIGNMENTS),
        interval=st.sampled_from((5_000, 8_000)),
    )
    def answer(
        self, error: Errors, bump: int, assignment: tuple[TopicPartitions, ...] | None, interval: int
    ) -> None:
        v = spec.view(self.state)
        if not v.in_flight:
            return
        epoch = -1 if v.state is MemberState.UNSUBSCRIBED and bump == 2 else max(v.member_epoch, 0) + bump
        self.send(HeartbeatAnswered(ShareGroupHeartbeatResponse(error, "m", epoch, interval, assignment)))

    @rule(retriable=st.sampled_from((True, True, False)))
    def fail(self, retriable: bool) -> None:
        if spec.view(self.state).in_flight:
            self.send(HeartbeatFailed(retriable))

    @invariant()
    def same_view(self) -> None:
        assert self.impl.view() == spec.view(self.state)


TestClientAgreement = ClientAgreement.TestCase

"""The share consumer's membership, scenario by scenario, on both layers (share_group_coordinator.md §6)."""

from __future__ import annotations

import pytest

from groupspec.types.errors import Errors
from groupspec.types.share_consumer import (
    HeartbeatFailed,
    MemberState,
    Poll,
    ShareConsumerConfig,
    Subscribe,
    Tick,
    Unsubscribe,
)
from groupspec.types.share_group import ShareGroupHeartbeat, TopicPartitions
from tests.scenarios.share_consumer.targets import LAYERS, T1, Client

S = MemberState
P0 = (TopicPartitions(T1, (0,)),)
P01 = (TopicPartitions(T1, (0, 1)),)


def _joined(layer: str) -> Client:
    c = Client(layer)
    c.send(Subscribe(("t1",)))
    c.send(Poll())
    c.answer(epoch=1, assignment=())
    return c


def _stable(layer: str) -> Client:
    """Joined at 0, the empty first assignment acknowledged at 5 s and that answered: STABLE,
    the next heartbeat due at 10 s."""
    c = _joined(layer)
    assert c.send(Tick(5_000)).sent == ShareGroupHeartbeat("g", "member", 1)
    c.answer(epoch=1)
    assert c.view().state is S.STABLE
    return c


@pytest.mark.parametrize("layer", LAYERS)
def test_join_then_steady(layer: str) -> None:
    c = Client(layer)
    assert c.send(Subscribe(("t1",))).sent is None  # subscribing only flags the change
    out = c.send(Poll())
    assert out.sent == ShareGroupHeartbeat("g", "member", 0, rack_id="r1", subscribed_topic_names=("t1",))
    assert (c.view().state, c.view().in_flight) == (S.JOINING, True)
    assert c.send(Poll()).sent is None  # one in flight at a time
    c.answer(epoch=1, assignment=())
    v = c.view()
    # The empty first assignment is reconciled at once and waits for its acknowledgement.
    assert (v.state, v.member_epoch, v.next_heartbeat_ms, v.heartbeat_interval_ms) == (
        S.ACKNOWLEDGING,
        1,
        5_000,
        5_000,
    )
    assert c.send(Tick(4_999)).sent is None
    out = c.send(Tick(5_000))
    assert out.sent == ShareGroupHeartbeat("g", "member", 1)  # nothing but the epoch: unchanged fields
    assert c.view().state is S.STABLE
    c.answer(epoch=1)
    assert c.send(Tick(9_999)).sent is None
    assert c.send(Tick(10_000)).sent == ShareGroupHeartbeat("g", "member", 1)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_new_assignment_is_applied_with_its_answer_and_acknowledged_at_the_next_wake(layer: str) -> None:
    """ShareMembershipManager.poll reconciles on every pass of the network thread: the partitions
    change with the answer; the acknowledgement goes when the thread next wakes, here a poll."""
    c = _stable(layer)
    assert c.send(Tick(10_000)).sent is not None
    out = c.answer(epoch=2, assignment=P01)
    assert out.assigned == P01 and out.sent is None
    assert (c.view().state, c.view().assignment) == (S.ACKNOWLEDGING, P01)
    out = c.send(Poll())
    assert out.assigned is None and out.sent == ShareGroupHeartbeat("g", "member", 2)
    assert c.view().state is S.STABLE


@pytest.mark.parametrize("layer", LAYERS)
def test_an_acknowledgement_waits_for_the_thread_to_wake(layer: str) -> None:
    """Without an application call, the acknowledgement goes when the sleeping network thread
    wakes by itself: at most ConsumerNetworkThread.MAX_POLL_TIMEOUT_MS (5 s) after the answer,
    sooner when the heartbeat timer runs out first."""
    c = _stable(layer)
    c.send(Tick(10_000))
    c.answer(epoch=2, assignment=P0, interval=60_000)  # answered at 10 s: a 5 s sleep
    assert c.view().state is S.ACKNOWLEDGING
    assert c.send(Tick(14_999)).sent is None
    assert c.send(Tick(15_000)).sent == ShareGroupHeartbeat("g", "member", 2)
    c2 = _stable(layer)
    c2.send(Tick(10_000))
    c2.send(Tick(13_000))
    c2.answer(epoch=2, assignment=P0)  # answered at 13 s; the heartbeat timer runs out at 15 s
    assert c2.send(Tick(14_999)).sent is None
    assert c2.send(Tick(15_000)).sent == ShareGroupHeartbeat("g", "member", 2)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_joining_members_first_assignment_is_acknowledged_even_empty(layer: str) -> None:
    """A member that (re)joins holds no assignment at all (LocalAssignment.NONE), so its first
    target differs even when empty: JOINING -> RECONCILING -> ACKNOWLEDGING, and a heartbeat
    acknowledges it (ShareMembershipManagerTest#testTransitionToReconcilingIfEmptyAssignmentReceived)."""
    c = _joined(layer)
    assert c.view().state is S.ACKNOWLEDGING and c.outputs[-1].assigned is None
    assert c.send(Poll()).sent == ShareGroupHeartbeat("g", "member", 1)  # the poll wakes the thread
    c.answer(epoch=1, assignment=())  # the same target again: nothing more to acknowledge
    assert c.view().state is S.STABLE
    out = c.answer(Errors.FENCED_MEMBER_EPOCH)
    assert out.sent is not None and out.sent.member_epoch == 0
    c.answer(epoch=3, assignment=())  # the rejoin's empty target is acknowledged again
    assert c.view().state is S.ACKNOWLEDGING
    assert c.send(Poll()).sent == ShareGroupHeartbeat("g", "member", 3)


@pytest.mark.parametrize("layer", LAYERS)
def test_a_subscription_change_rides_the_next_heartbeat(layer: str) -> None:
    c = _stable(layer)
    c.send(Subscribe(("t1", "t2")))
    assert c.view().state is S.STABLE
    out = c.send(Tick(10_000))
    assert out.sent == ShareGroupHeartbeat("g", "member", 1, subscribed_topic_names=("t1", "t2"))


@pytest.mark.parametrize("layer", LAYERS)
def test_a_leave_carries_the_topics_when_they_changed(layer: str) -> None:
    """HeartbeatState.buildRequestData has no case for a leave: after an unsubscribe it sends the
    empty subscription; a poll-timer leave after an error (sent fields reset) sends them all."""
    c = _stable(layer)
    assert c.send(Unsubscribe()).sent == ShareGroupHeartbeat("g", "member", -1, subscribed_topic_names=())
    c2 = Client(layer, ShareConsumerConfig(max_poll_interval_ms=10_000))
    c2.send(Subscribe(("t1",)))
    c2.send(Poll())
    c2.answer(epoch=1, assignment=())
    c2.send(Poll())  # acknowledges at 0
    c2.answer(Errors.COORDINATOR_LOAD_IN_PROGRESS)  # resets the sent fields
    leave = ShareGroupHeartbeat("g", "member", -1, subscribed_topic_names=("t1",))
    assert c2.send(Tick(10_000)).sent == leave
    assert c2.view().state is S.STALE


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("error", [Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID])
def test_fencing_rejoins_with_the_same_id(layer: str, error: Errors) -> None:
    c = _joined(layer)
    c.send(Tick(5_000))
    c.answer(epoch=2, assignment=P0)
    c.send(Poll())
    c.answer(epoch=2)
    out = c.answer(error)
    assert out.assigned == () and c.view().state is S.JOINING
    assert out.sent == ShareGroupHeartbeat("g", "member", 0, rack_id="r1", subscribed_topic_names=("t1",))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize(
    "error",
    [
        Errors.GROUP_MAX_SIZE_REACHED,
        Errors.INVALID_REQUEST,
        Errors.GROUP_ID_NOT_FOUND,
        Errors.UNKNOWN_SERVER_ERROR,
        Errors.GROUP_AUTHORIZATION_FAILED,
    ],
)
def test_fatal_errors(layer: str, error: Errors) -> None:
    c = Client(layer)
    c.send(Subscribe(("t1",)))
    c.send(Poll())
    out = c.answer(error)
    assert out.fatal == f"{error.name} from ShareGroupHeartbeat" and c.view().state is S.FATAL
    assert c.send(Tick(60_000)).sent is None and c.send(Poll()).sent is None


@pytest.mark.parametrize("layer", LAYERS)
def test_coordinator_moves_and_the_next_request_is_full(layer: str) -> None:
    c = _joined(layer)
    c.send(Tick(5_000))
    out = c.answer(Errors.NOT_COORDINATOR)
    assert out.sent is None and not c.view().coordinator_known
    out = c.send(Tick(5_100))  # rediscovered after the backoff
    assert out.sent == ShareGroupHeartbeat("g", "member", 1, rack_id="r1", subscribed_topic_names=("t1",))


@pytest.mark.parametrize("layer", LAYERS)
def test_load_in_progress_backs_off(layer: str) -> None:
    c = Client(layer)
    c.send(Subscribe(("t1",)))
    c.send(Poll())
    # A join does not wait for the backoff (AbstractHeartbeatRequestManager.poll: heartbeatNow).
    assert c.answer(Errors.COORDINATOR_LOAD_IN_PROGRESS).sent is not None
    c.answer(epoch=1, assignment=())
    assert c.send(Tick(5_000)).sent is not None
    assert c.answer(Errors.COORDINATOR_LOAD_IN_PROGRESS).sent is None  # in the group it does
    assert c.send(Tick(5_099)).sent is None
    assert c.send(Tick(5_100)).sent is not None


@pytest.mark.parametrize("layer", LAYERS)
def test_transport_failures(layer: str) -> None:
    c = _joined(layer)
    c.send(Tick(5_000))
    assert c.send(HeartbeatFailed(retriable=True)).sent is None
    assert c.send(Tick(5_100)).sent is not None
    out = c.send(HeartbeatFailed(retriable=False))
    assert out.fatal is not None and c.view().state is S.FATAL


@pytest.mark.parametrize("layer", LAYERS)
def test_unsubscribe_leaves_at_once(layer: str) -> None:
    c = _joined(layer)
    c.send(Tick(5_000))
    c.answer(epoch=2, assignment=P0)
    c.send(Poll())
    out = c.send(Unsubscribe())
    # The leave goes at once, although the acknowledging heartbeat is still in flight.
    assert out.assigned == ()
    assert out.sent == ShareGroupHeartbeat("g", "member", -1, subscribed_topic_names=())
    assert c.view().state is S.UNSUBSCRIBED
    assert c.answer(epoch=2).sent is None  # no longer concerns the member
    assert c.view().member_epoch == -1
    assert c.answer(epoch=-1).sent is None


@pytest.mark.parametrize("layer", LAYERS)
def test_the_poll_timer_makes_the_member_stale(layer: str) -> None:
    c = Client(layer, ShareConsumerConfig(max_poll_interval_ms=10_000))
    c.send(Subscribe(("t1",)))
    c.send(Poll())
    c.answer(epoch=1, assignment=P0)
    c.send(Poll())
    c.answer(epoch=1)
    out = c.send(Tick(10_000))
    assert out.assigned == () and out.sent == ShareGroupHeartbeat("g", "member", -1)
    assert c.view().state is S.STALE
    c.answer(epoch=-1)
    out = c.send(Poll())
    assert c.view().state is S.JOINING and out.sent is not None and out.sent.member_epoch == 0


@pytest.mark.parametrize("layer", LAYERS)
def test_a_rejoin_after_leaving_sends_everything_again(layer: str) -> None:
    """Found by the deep stateful run: joining starts a new membership, so the first request
    carries the rack and the topics even if the last one sent them."""
    c = Client(layer)
    c.send(Subscribe(("t1",)))
    c.send(Poll())  # the join, with the rack, is in flight
    # Leaves at once, with the emptied subscription.
    assert c.send(Subscribe(())).sent == ShareGroupHeartbeat("g", "member", -1, subscribed_topic_names=())
    c.send(Subscribe(("t1",)))
    assert c.answer(epoch=1).sent is None
    c.answer(epoch=-1)
    out = c.send(Poll())
    assert out.sent == ShareGroupHeartbeat("g", "member", 0, rack_id="r1", subscribed_topic_names=("t1",))

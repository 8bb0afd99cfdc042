"""The impl's share consumer built without a start time starts its clock at 0.

The conformance target always passes a start time, so the vectors never see the default; a
library user who builds the membership plainly relies on it, and every timer (the poll timer
first of all) counts from it."""

from __future__ import annotations

from groupspec.impl.share_consumer import ShareConsumerMembership
from groupspec.types.errors import Errors
from groupspec.types.share_consumer import HeartbeatAnswered, Poll, ShareConsumerConfig, Subscribe, Tick
from groupspec.types.share_group import ShareGroupHeartbeatResponse

CONFIG = ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000)


def test_the_clock_starts_at_0() -> None:
    assert ShareConsumerMembership(CONFIG).view().now_ms == 0


def test_the_first_poll_without_a_start_time_is_at_0() -> None:
    # Polled at the start and never again: the member is still in the group 1 ms before
    # max.poll.interval.ms and leaves (a heartbeat with epoch -1) exactly at it.
    client = ShareConsumerMembership(CONFIG)
    client.handle(Subscribe(("t1",)))
    assert client.handle(Poll()).sent is not None
    client.handle(HeartbeatAnswered(ShareGroupHeartbeatResponse(Errors.NONE, "member", 1, 60_000, ())))
    before = client.handle(Tick(9_999)).sent
    assert before is None or before.member_epoch != -1
    at = client.handle(Tick(10_000)).sent
    assert at is not None and at.member_epoch == -1

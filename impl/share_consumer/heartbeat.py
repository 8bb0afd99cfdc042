"""When to heartbeat and what to put in it: Kafka's ``ShareHeartbeatRequestManager`` with its
``HeartbeatRequestState`` (interval and backoff timers) and ``HeartbeatState`` (the fields sent
last, so that an unchanged subscription is not sent again)."""

from __future__ import annotations

from collections import deque

from groupspec.impl.share_consumer.membership import MembershipManager
from groupspec.types.share_consumer import MemberState, ShareConsumerConfig
from groupspec.types.share_group import ShareGroupHeartbeat

#: ConsumerNetworkThread.MAX_POLL_TIMEOUT_MS: the network thread never sleeps longer.
MAX_POLL_TIMEOUT_MS = 5_000


class HeartbeatRequestState:
    def __init__(self) -> None:
        self.interval_ms = 0
        self.next_ms = 0
        self.backoff_until_ms = 0
        self.in_flight = False

    def can_send(self, now: int) -> bool:
        """canSendRequest: the interval has passed, no backoff, nothing in flight."""
        return not self.in_flight and now >= self.backoff_until_ms and now >= self.next_ms

    def on_sent(self, now: int) -> None:
        self.in_flight = True
        self.next_ms = now + self.interval_ms

    def on_success(self, now: int, interval_ms: int, backoff_ms: int) -> None:
        """onSuccessfulAttempt starts a backoff of its own; updateHeartbeatIntervalMs keeps the
        timer set at the send running unless the interval changed."""
        self.in_flight = False
        self.backoff_until_ms = now + backoff_ms
        if interval_ms != self.interval_ms:
            self.interval_ms = interval_ms
            self.next_ms = now + interval_ms

    def on_failure(self, now: int, backoff_ms: int) -> None:
        """onFailedAttempt: the heartbeat timer drops to zero, and the next one waits the backoff."""
        self.in_flight = False
        self.next_ms = now
        self.backoff_until_ms = now + backoff_ms

    def time_to_next_heartbeat(self, now: int) -> int:
        """timeToNextHeartbeatMs: the heartbeat timer's remaining time, or once it has run out the
        backoff's."""
        return self.next_ms - now if self.next_ms > now else max(0, self.backoff_until_ms - now)

    def reset(self) -> None:
        """Forget the attempt: nothing in flight, no backoff."""
        self.in_flight = False
        self.backoff_until_ms = 0


class SentFields:
    """HeartbeatState: what the last request carried."""

    def __init__(self) -> None:
        self.topics: tuple[str, ...] | None = None
        self.rack_sent = False

    def reset(self) -> None:
        self.topics, self.rack_sent = None, False


class HeartbeatRequestManager:
    def __init__(self, config: ShareConsumerConfig, membership: MembershipManager) -> None:
        self.config = config
        self.membership = membership
        self.request_state = HeartbeatRequestState()
        self.sent = SentFields()
        self.coordinator_known = True
        self.rediscover_at = 0
        #: Requests awaiting their answer, oldest first: True where the answer is to be ignored.
        self.pending: deque[bool] = deque()
        #: When the network thread, asleep after a reconciliation, wakes by itself.
        self.wake_at = 0
        membership.on_join.append(self.sent.reset)

    def poll(self, now: int, poll_timer_expired: bool, *, woken: bool) -> ShareGroupHeartbeat | None:
        """One pass of the network thread; ``woken`` when an application event or an answer woke
        it (a Tick only wakes it at ``wake_at``, while an acknowledgement waits)."""
        m = self.membership
        if m.state is MemberState.ACKNOWLEDGING and not woken and now < self.wake_at:
            return None
        if not self.coordinator_known or m.should_skip_heartbeat():
            m.on_heartbeat_request_skipped()
            return None
        if poll_timer_expired and m.in_group():
            # The leave goes whatever is in flight; its answer is only logged, and the request
            # state and the sent fields start over.
            m.leave_group(stale=True)
            request = self._send(now, ignore_answer=True)
            self.request_state.reset()
            self.sent.reset()
            return request
        rs = self.request_state
        urgent = m.state is MemberState.LEAVING or (m.should_heartbeat_now() and not rs.in_flight)
        if not urgent and not rs.can_send(now):
            return None
        return self._send(now, ignore_answer=False)

    def after_reconciliation(self, now: int) -> None:
        """The thread sleeps until the least of its cap and this manager's wait, computed in the
        pass before the membership reconciled."""
        self.wake_at = now + min(MAX_POLL_TIMEOUT_MS, self.request_state.time_to_next_heartbeat(now))

    def counts(self) -> bool:
        """An answer or failure arrived for the oldest request: False if it is to be ignored."""
        return not (self.pending and self.pending.popleft())

    def _send(self, now: int, *, ignore_answer: bool) -> ShareGroupHeartbeat:
        m = self.membership
        request = self._build(m)
        self.request_state.on_sent(now)
        self.pending.append(ignore_answer)
        m.on_heartbeat_request_generated()
        return request

    def _build(self, m: MembershipManager) -> ShareGroupHeartbeat:
        c = self.config
        leaving = m.state is MemberState.LEAVING
        topics = tuple(sorted(m.subscription))
        send_topics = m.state is MemberState.JOINING or topics != self.sent.topics
        rack = None if self.sent.rack_sent else c.rack_id
        self.sent.rack_sent = True
        if send_topics:
            self.sent.topics = topics
        return ShareGroupHeartbeat(
            c.group_id,
            c.member_id,
            -1 if leaving else m.member_epoch,
            rack_id=rack,
            subscribed_topic_names=topics if send_topics else None,
            client_id=c.client_id,
        )

    def coordinator_unknown(self, now: int) -> None:
        self.coordinator_known = False
        self.rediscover_at = now + self.config.retry_backoff_ms

    def on_time(self, now: int) -> None:
        if not self.coordinator_known and now >= self.rediscover_at:
            self.coordinator_known = True

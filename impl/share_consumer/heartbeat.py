"""When to heartbeat and what to put in it: Kafka's ``ShareHeartbeatRequestManager`` with its
``HeartbeatRequestState`` (interval and backoff timers) and ``HeartbeatState`` (the fields sent
last, so that an unchanged subscription is not sent again)."""

from __future__ import annotations

from groupspec.impl.share_consumer.membership import MembershipManager
from groupspec.types.share_consumer import MemberState, ShareConsumerConfig
from groupspec.types.share_group import ShareGroupHeartbeat


class HeartbeatRequestState:
    def __init__(self) -> None:
        self.interval_ms = 0
        self.next_ms = 0
        self.backoff_until_ms = 0
        self.in_flight = False

    def can_send(self, now: int, urgent: bool) -> bool:
        return not self.in_flight and now >= self.backoff_until_ms and (urgent or now >= self.next_ms)

    def on_sent(self, now: int) -> None:
        self.in_flight = True
        self.next_ms = now + self.interval_ms

    def on_success(self, now: int, interval_ms: int) -> None:
        """updateHeartbeatIntervalMs: the timer set at the send keeps running unless the interval
        changed."""
        self.in_flight = False
        if interval_ms != self.interval_ms:
            self.interval_ms = interval_ms
            self.next_ms = now + interval_ms

    def on_failure(self, now: int, backoff_ms: int | None) -> None:
        """reset(): the next heartbeat goes as soon as the backoff (if any) allows."""
        self.in_flight = False
        self.next_ms = now
        if backoff_ms is not None:
            self.backoff_until_ms = now + backoff_ms


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
        membership.on_join.append(self.sent.reset)

    def poll(self, now: int) -> ShareGroupHeartbeat | None:
        m = self.membership
        if self.request_state.in_flight:
            return None
        if not self.coordinator_known:
            if m.state is MemberState.LEAVING:
                m.on_leave_sent()  # skipped while leaving: give up the leave without sending
            return None
        if m.should_skip_heartbeat():
            return None
        if not self.request_state.can_send(now, m.should_heartbeat_now()):
            return None
        request = self._build(m)
        self.request_state.on_sent(now)
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
            subscribed_topic_names=topics if send_topics and not leaving else None,
            client_id=c.client_id,
        )

    def coordinator_unknown(self, now: int) -> None:
        self.coordinator_known = False
        self.rediscover_at = now + self.config.retry_backoff_ms

    def on_time(self, now: int) -> None:
        if not self.coordinator_known and now >= self.rediscover_at:
            self.coordinator_known = True

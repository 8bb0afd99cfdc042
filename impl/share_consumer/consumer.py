"""The consumer's membership as one object: events in, the heartbeat to send and the partitions
to consume out. It plays the parts of the consumer's application thread (subscribe, poll,
unsubscribe, the poll timer) and of its network thread (responses, failures, and the
reconciliation of a new assignment right after the answer that brought it)."""

from __future__ import annotations

from groupspec.impl.share_consumer.heartbeat import HeartbeatRequestManager
from groupspec.impl.share_consumer.membership import MembershipManager
from groupspec.types import InputError
from groupspec.types.errors import Errors
from groupspec.types.share_consumer import (
    ClientOutput,
    ClientView,
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

S = MemberState


class ShareConsumerMembership:
    def __init__(self, config: ShareConsumerConfig = ShareConsumerConfig(), *, now_ms: int = 0) -> None:  # noqa: B008
        if not isinstance(config, ShareConsumerConfig):
            raise InputError("config", f"expected a ShareConsumerConfig, got {type(config).__name__}")
        self.config = config
        self.now = now_ms
        self.last_poll = now_ms
        self.membership = MembershipManager()
        self.heartbeats = HeartbeatRequestManager(config, self.membership)

    def handle(self, event: ShareConsumerEvent) -> ClientOutput:
        m, hb = self.membership, self.heartbeats
        m.assignment_changed, m.fatal_reason = None, None
        match event:
            case Subscribe():
                m.subscription = frozenset(event.topics)
                if not event.topics:
                    m.leave_group(stale=False)
            case Unsubscribe():
                m.subscription = frozenset()
                m.leave_group(stale=False)
            case Poll():
                self.last_poll = self.now
                m.on_poll()
            case Tick():
                self.now = max(self.now, event.to_ms)
                hb.on_time(self.now)
            case HeartbeatAnswered():
                if hb.counts():
                    self._answered(event)
            case HeartbeatFailed():
                if hb.counts():
                    self._failed(event)
            case _:
                raise InputError("event", f"{type(event).__name__} is not a share consumer event")
        sent = hb.poll(self.now, self.now - self.last_poll >= self.config.max_poll_interval_ms,
                       woken=not isinstance(event, Tick))
        if m.maybe_reconcile():
            hb.after_reconciliation(self.now)
        return ClientOutput(sent, m.assignment_changed, m.fatal_reason)

    def _failed(self, event: HeartbeatFailed) -> None:
        m, hb = self.membership, self.heartbeats
        hb.sent.reset()
        hb.request_state.on_failure(self.now, self.config.retry_backoff_ms)
        if event.retriable:
            hb.coordinator_unknown(self.now)
        else:
            m.transition_to_fatal("ShareGroupHeartbeat failed and cannot be retried")

    def _answered(self, event: HeartbeatAnswered) -> None:
        m, hb = self.membership, self.heartbeats
        response = event.response
        error = response.error
        if error is Errors.NONE:
            # AbstractHeartbeatRequestManager takes the interval from every answer without an
            # error, before the membership decides whether the answer still concerns it.
            hb.request_state.on_success(self.now, response.heartbeat_interval_ms,
                                        self.config.retry_backoff_ms)
            m.on_heartbeat_success(response)
            return
        hb.sent.reset()
        hb.request_state.on_failure(self.now, self.config.retry_backoff_ms)
        if error in (Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE):
            hb.request_state.reset()  # the next heartbeat goes as soon as the coordinator is back
            hb.coordinator_unknown(self.now)
        elif error in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.TOPIC_AUTHORIZATION_FAILED):
            pass  # keep the backoff
        elif error in (Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID):
            hb.request_state.reset()  # rejoin at once
            m.transition_to_fenced()
        else:
            m.transition_to_fatal(f"{error.name} from ShareGroupHeartbeat")

    def view(self) -> ClientView:
        m, hb = self.membership, self.heartbeats
        rs = hb.request_state
        next_due: int | None = None
        if (
            not rs.in_flight
            and hb.coordinator_known
            and m.state not in (S.UNSUBSCRIBED, S.FENCED, S.FATAL, S.STALE)
        ):
            next_due = max(rs.backoff_until_ms, rs.next_ms)
        return ClientView(
            self.now,
            m.state,
            m.member_epoch,
            m.current_assignment,
            m.target_assignment,
            rs.in_flight,
            hb.coordinator_known,
            next_due,
            rs.interval_ms,
        )

"""The heartbeat thread's clocks, shaped like Kafka's ``Heartbeat``: three deadlines on the
injected time, and the backoff after failed heartbeats. The thread itself (when it acts, what
it sends) is the coordinator's (consumer.py), as in AbstractCoordinator.
"""

from __future__ import annotations

from groupspec.types.classic_consumer import Config


def exponential_backoff(initial_ms: int, max_ms: int, attempts: int) -> int:
    """ExponentialBackoff(retry.backoff.ms, 2, retry.backoff.max.ms) without its jitter: Kafka
    multiplies by a random factor in [0.8, 1.2), which a deterministic model cannot follow; the
    middle keeps every answer inside Kafka's band."""
    initial = min(initial_ms, max_ms)
    if max_ms <= initial:
        return initial
    return int(min(initial * 2 ** min(attempts, 64), max_ms))


class Heartbeat:
    """Kafka's Heartbeat: a timer per concern, each a deadline in milliseconds."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.heartbeat_deadline = config.heartbeat_interval_ms
        self.session_deadline = config.session_timeout_ms
        self.poll_deadline = config.rebalance_timeout_ms  # max.poll.interval.ms
        self.attempts = 0

    def poll(self, now: int) -> None:
        self.poll_deadline = now + self.config.rebalance_timeout_ms

    def sent_heartbeat(self, now: int) -> None:
        self.heartbeat_deadline = now + self.config.heartbeat_interval_ms

    def fail_heartbeat(self, now: int) -> None:
        c = self.config
        self.heartbeat_deadline = now + exponential_backoff(c.retry_backoff_ms, c.retry_backoff_max_ms,
                                                            self.attempts)
        self.attempts += 1

    def receive_heartbeat(self, now: int) -> None:
        self.attempts = 0
        self.reset_session_timeout(now)

    def should_heartbeat(self, now: int) -> bool:
        return now >= self.heartbeat_deadline

    def session_timeout_expired(self, now: int) -> bool:
        return now >= self.session_deadline

    def poll_timeout_expired(self, now: int) -> bool:
        return now >= self.poll_deadline

    def reset_timeouts(self, now: int) -> None:
        c = self.config
        self.session_deadline = now + c.session_timeout_ms
        self.poll_deadline = now + c.rebalance_timeout_ms
        self.heartbeat_deadline = now + c.heartbeat_interval_ms

    def reset_session_timeout(self, now: int) -> None:
        self.session_deadline = now + self.config.session_timeout_ms

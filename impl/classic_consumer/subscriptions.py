"""SubscriptionState's part that membership needs: the mode, the topics, the assigned partitions."""

from __future__ import annotations

from groupspec.types.classic_consumer import TP, Mode


class SubscriptionState:
    """Kept apart from the coordinator as in Kafka, so that assign() never touches the group."""

    def __init__(self) -> None:
        self.mode = Mode.NONE
        self.subscription: set[str] = set()
        self.assigned: set[TP] = set()

    def has_auto_assigned_partitions(self) -> bool:
        return self.mode is Mode.SUBSCRIBED

    def subscribe(self, topics: set[str]) -> bool:
        """Whether the topic set changed (a changed subscription needs a rejoin)."""
        self.mode = Mode.SUBSCRIBED
        changed = topics != self.subscription
        self.subscription = set(topics)
        return changed

    def check_assignment_matched_subscription(self, assigned: set[TP]) -> bool:
        return all(topic in self.subscription for topic, _ in assigned)

    def assign_from_user(self, partitions: set[TP]) -> None:
        self.mode = Mode.ASSIGNED
        self.assigned = set(partitions)

    def assign_from_subscribed(self, partitions: set[TP]) -> None:
        self.assigned = set(partitions)

    def unsubscribe(self) -> None:
        self.mode = Mode.NONE
        self.subscription = set()
        self.assigned = set()

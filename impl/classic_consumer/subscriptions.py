"""SubscriptionState's part that membership needs: the mode, the topics, the assigned partitions."""

from __future__ import annotations

import re

from groupspec.types.classic_consumer import TP, Mode


class SubscriptionState:
    """Kept apart from the coordinator as in Kafka, so that assign() never touches the group."""

    def __init__(self) -> None:
        self.mode = Mode.NONE
        self.subscription: set[str] = set()
        self.assigned: set[TP] = set()
        #: The next offset to read of each owned partition that has one.
        self.positions: dict[TP, int] = {}
        self.pattern: str | None = None
        #: The whole group's topics while this member leads (empty otherwise).
        self.group_subscription: set[str] = set()

    def has_auto_assigned_partitions(self) -> bool:
        return self.mode is Mode.SUBSCRIBED

    def subscribe(self, topics: set[str]) -> bool:
        """Whether the topic set changed (a changed subscription needs a rejoin)."""
        self.mode = Mode.SUBSCRIBED
        changed = topics != self.subscription
        self.subscription = set(topics)
        return changed

    def check_assignment_matched_subscription(self, assigned: set[TP]) -> bool:
        if self.pattern is not None:
            return all(self.matches_subscribed_pattern(topic) for topic, _ in assigned)
        return all(topic in self.subscription for topic, _ in assigned)

    def has_pattern_subscription(self) -> bool:
        return self.pattern is not None

    def subscribe_pattern(self, pattern: str) -> None:
        self.mode = Mode.SUBSCRIBED
        self.pattern = pattern

    def matches_subscribed_pattern(self, topic: str) -> bool:
        return self.pattern is not None and re.fullmatch(self.pattern, topic) is not None

    def subscribe_from_pattern(self, topics: set[str]) -> None:
        self.subscription = set(topics)

    def group_subscribe(self, topics: set[str]) -> None:
        self.group_subscription = set(topics)

    def reset_group_subscription(self) -> None:
        self.group_subscription = set()

    def metadata_topics(self) -> set[str]:
        return self.group_subscription | self.subscription

    def assign_from_user(self, partitions: set[TP]) -> None:
        self.mode = Mode.ASSIGNED
        self._set_assignment(partitions)

    def assign_from_subscribed(self, partitions: set[TP]) -> None:
        self._set_assignment(partitions)

    def _set_assignment(self, partitions: set[TP]) -> None:
        """Partitions kept keep their positions; the others' are forgotten."""
        self.assigned = set(partitions)
        self.positions = {tp: o for tp, o in self.positions.items() if tp in self.assigned}

    def consumed(self, offsets: tuple[tuple[TP, int], ...]) -> None:
        for tp, offset in offsets:
            if tp in self.assigned:
                self.positions[tp] = offset

    def start_from_committed(self, offsets: tuple[tuple[TP, int], ...]) -> None:
        """refreshCommittedOffsets seeks only partitions still without a position."""
        for tp, offset in offsets:
            if tp in self.assigned:
                self.positions.setdefault(tp, offset)

    def all_consumed(self) -> tuple[tuple[TP, int], ...]:
        return tuple(sorted(self.positions.items()))

    def unsubscribe(self) -> None:
        self.mode = Mode.NONE
        self.pattern = None
        self.group_subscription = set()
        self.subscription = set()
        self._set_assignment(set())

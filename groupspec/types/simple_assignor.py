"""What a share-group assignor is given and what it returns.

Shared by the spec, the implementation, the models, the conformance vectors and the pipeline.
Data only, no logic beyond construction checks. Kafka's assignor works on topic ids; groupspec's
vocabulary uses topic names (what users see) and keeps the ids only for the Kafka-compatible mode,
whose iteration orders depend on them (docs/divergences.md).

Member order matters: members are positions, in the order given. Kafka's own order (Java String
hash order of member ids) is reproduced only by the Kafka-compatible mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: member id -> topic name -> partitions. Every member of the input appears, possibly with {}.
GroupAssignment = Mapping[str, Mapping[str, frozenset[int]]]

@dataclass(frozen=True)
class MemberSpec:
    """One member as the assignor sees it: what it subscribes to and its current target.

    ``assignment`` is the member's previous TARGET assignment (Kafka passes the target, not the
    reconciled current assignment). It may name topics the member no longer subscribes to, topics
    that were deleted, or partitions that no longer exist: the assignor must cope with all three.
    """

    member_id: str
    topics: tuple[str, ...]
    assignment: Mapping[str, frozenset[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class AssignorInput:
    """A group handed to an assignor (Kafka's GroupSpec plus SubscribedTopicDescriber).

    ``topics`` gives the partition count of every topic that exists. ``assignable`` restricts,
    per topic, which partitions may be handed out (the coordinator only assigns partitions whose
    share state is initialized); ``None`` means every existing partition is assignable, and a
    topic missing from a non-None map has no assignable partition. ``topic_ids`` (UUID strings)
    only influence the Kafka-compatible mode.
    """

    members: tuple[MemberSpec, ...]
    topics: Mapping[str, int]
    topic_ids: Mapping[str, str] = field(default_factory=dict)
    assignable: Mapping[str, frozenset[int]] | None = None

    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.member_id for m in self.members)

    def is_assignable(self, topic: str, partition: int) -> bool:
        """True when ``topic``-``partition`` exists and may be assigned."""
        count = self.topics.get(topic)
        if count is None or not 0 <= partition < count:
            return False
        if self.assignable is None:
            return True
        allowed = self.assignable.get(topic)
        return allowed is not None and partition in allowed

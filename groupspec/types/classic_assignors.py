"""What a classic consumer group's leader hands its partition assignor, and what it gets back.

The leader of a classic group (protocol type ``consumer``) runs the assignor the coordinator
chose, on every member's subscription as the JoinGroup response listed them and on the cluster
metadata it knows (clients/.../consumer/ConsumerPartitionAssignor.java: ``assign(Cluster,
GroupSubscription)``). This module is that input and that answer as data, for every classic
assignor: Range and RoundRobin read only topics, member ids, instance ids and racks; the sticky
assignors (later) also read owned partitions, the generation and the user data, which is why
they are here already.

Member order matters: members are listed in the order the JoinGroup response gave them (the
order the leader put them into its subscription map). groupspec's answers never depend on it;
Kafka's do in two corners (docs/machines/classic_assignors.md), which its Kafka-exact mode
reproduces.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from groupspec.types.errors import InputError

#: The assignors, by the names Kafka registers them under (``partition.assignment.strategy``
#: classes' ``name()``, the protocol name in JoinGroup).
RANGE = "range"
ROUNDROBIN = "roundrobin"
STICKY = "sticky"
COOPERATIVE_STICKY = "cooperative-sticky"
ASSIGNORS: tuple[str, ...] = (RANGE, ROUNDROBIN, STICKY, COOPERATIVE_STICKY)
STICKY_ASSIGNORS: tuple[str, ...] = (STICKY, COOPERATIVE_STICKY)

#: A topic and a partition number.
TopicPartition = tuple[str, int]

#: member id -> the partitions assigned to it, in the order the assignor listed them. Every
#: member of the input appears, possibly with ().
ClassicAssignment = Mapping[str, tuple[TopicPartition, ...]]

INT32_MAX = (1 << 31) - 1


@dataclass(frozen=True)
class ClassicMember:
    """One member's subscription, as the leader decoded it (Kafka's ``Subscription`` plus the
    member id and group instance id the JoinGroup response carries beside it).

    ``generation_id`` None is Kafka's empty Optional (a subscription older than version 2);
    ``rack_id`` None or "" is a member without a rack (Kafka ignores an empty rack).
    """

    member_id: str
    topics: tuple[str, ...]
    owned_partitions: tuple[TopicPartition, ...] = ()
    group_instance_id: str | None = None
    generation_id: int | None = None
    rack_id: str | None = None
    user_data: bytes | None = None

    @property
    def rack(self) -> str | None:
        """The rack an assignor sees: None for no rack or an empty one."""
        return self.rack_id or None


@dataclass(frozen=True)
class ClassicAssignorInput:
    """A group handed to a classic assignor: which assignor, the members, the cluster.

    ``topics`` gives the partition count of every topic the metadata knows (0 or missing: the
    assignor skips the topic). ``replica_racks`` gives, per topic, each partition's set of
    racks of its replicas (replicas on brokers without a rack are left out); a topic missing
    from it has no rack on any replica.
    """

    assignor: str
    members: tuple[ClassicMember, ...]
    topics: Mapping[str, int]
    replica_racks: Mapping[str, tuple[frozenset[str], ...]] = field(default_factory=dict)

    def member_ids(self) -> tuple[str, ...]:
        return tuple(m.member_id for m in self.members)

    def partition_count(self, topic: str) -> int:
        return self.topics.get(topic, 0)

    def racks_of(self, topic: str, partition: int) -> frozenset[str]:
        """The racks of ``topic``-``partition``'s replicas (empty when none is known)."""
        racks = self.replica_racks.get(topic)
        return racks[partition] if racks is not None and partition < len(racks) else frozenset()


def check_input(group: ClassicAssignorInput) -> None:
    """Raise InputError naming the first thing an assignor cannot be asked about.

    Kafka's leader never builds such an input (member ids are map keys, counts come from the
    metadata), so these are mistakes of whoever wrote the input, not states to model.
    """
    if group.assignor not in ASSIGNORS:
        raise InputError("assignor", f"unknown assignor {group.assignor!r} (known: {list(ASSIGNORS)})")
    seen: set[str] = set()
    for k, m in enumerate(group.members):
        if m.member_id in seen:
            raise InputError(f"members[{k}].member_id", f"duplicate member id {m.member_id!r}")
        seen.add(m.member_id)
        for j, (_, p) in enumerate(m.owned_partitions):
            if not 0 <= p <= INT32_MAX:
                raise InputError(f"members[{k}].owned_partitions[{j}]", "a partition is an int32 >= 0")
    for topic, count in group.topics.items():
        if not 0 <= count <= INT32_MAX:
            raise InputError(f"topics.{topic}", "a partition count is an int32 >= 0")
    if group.assignor in STICKY_ASSIGNORS:
        _check_sticky_scope(group)
    for topic, racks in group.replica_racks.items():
        if len(racks) != group.topics.get(topic, 0):
            raise InputError(
                f"replica_racks.{topic}",
                f"{len(racks)} partition(s) listed, but the topic has {group.topics.get(topic, 0)}",
            )


def _check_sticky_scope(group: ClassicAssignorInput) -> None:
    """A topic listed twice in one subscription is refused for the sticky assignors: Kafka's
    builders count such a member twice among the topic's subscribers (a consumer's own
    subscription is a set, so no Kafka client sends one), and no rule is modelled for it."""
    for k, m in enumerate(group.members):
        if len(m.topics) != len(set(m.topics)):
            raise InputError(
                f"members[{k}].topics", f"{group.assignor}: a topic listed twice is not modelled"
            )


# ---------------------------------------------------------------------------------------------
# The sticky assignors' user data (a wire format, hence vocabulary)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StickyUserData:
    """What StickyAssignor's user data carries: the partitions its member held and, from
    version 1, the generation it held them in (None: a version 0 blob, or one that failed to
    parse, which Kafka reads as generation -1 -- ``malformed``)."""

    partitions: tuple[TopicPartition, ...]
    generation: int | None
    malformed: bool = False


def encode_sticky_user_data(partitions: tuple[TopicPartition, ...], generation: int | None) -> bytes:
    """StickyAssignor's user data, version 1 when a generation is given, else version 0: an
    array of (topic, array of int32 partitions) grouped by topic in first-seen order, then the
    generation."""
    by_topic: dict[str, list[int]] = {}
    for t, p in partitions:
        by_topic.setdefault(t, []).append(p)
    out = bytearray(len(by_topic).to_bytes(4, "big", signed=True))
    for t, ps in by_topic.items():
        name = t.encode("utf-8")
        out += len(name).to_bytes(2, "big", signed=True) + name
        out += len(ps).to_bytes(4, "big", signed=True)
        for p in ps:
            out += p.to_bytes(4, "big", signed=True)
    if generation is not None:
        out += generation.to_bytes(4, "big", signed=True)
    return bytes(out)


def decode_sticky_user_data(data: bytes) -> StickyUserData:
    """Reads version 1, else version 0; a blob neither parses as is ``malformed`` (no partitions,
    generation -1), as StickyAssignor treats it. Trailing bytes are ignored, as Kafka's schema
    reader does."""

    def read(with_generation: bool) -> StickyUserData:
        pos = 0

        def take(n: int) -> bytes:
            nonlocal pos
            if pos + n > len(data):
                raise ValueError("short")
            chunk = data[pos : pos + n]
            pos += n
            return chunk

        def i32() -> int:
            return int.from_bytes(take(4), "big", signed=True)

        parts: list[TopicPartition] = []
        topics = i32()
        if topics < 0:
            raise ValueError("null array")
        for _ in range(topics):
            size = int.from_bytes(take(2), "big", signed=True)
            if size < 0:
                raise ValueError("null string")
            topic = take(size).decode("utf-8")
            count = i32()
            if count < 0:
                raise ValueError("null array")
            parts += [(topic, i32()) for _ in range(count)]
        return StickyUserData(tuple(parts), i32() if with_generation else None)

    for with_generation in (True, False):
        try:
            return read(with_generation)
        except (ValueError, UnicodeDecodeError):
            continue
    return StickyUserData((), -1, malformed=True)

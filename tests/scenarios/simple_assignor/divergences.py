"""Where groupspec's SimpleAssignor rules and Kafka 4.2's answers part ways: one group each.

Each :class:`Divergence` is a small, hand-made group on which ``spec.simple_assignor.assign``
and ``impl.assignors.kafka_compat.assign`` (Kafka's exact behaviour) give different answers
(or Kafka throws). The name is the vector folder name; docs/divergences.md has a section per
case with the evidence. tests/cover/test_assignor_kafka_compat.py checks that every case really
differs, so a case cannot silently stop showing what it claims.

Member ids ``M0``..``M9`` and ``A``/``B`` are chosen because Java's String hash order of them
equals their input order, so only the divergence a case is about shows up in it (except in
``member_hash_order``, which is about exactly that).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from groupspec.types import AssignorInput, MemberSpec

_BUILDERS = ("group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/"
             "SimpleHomogeneousAssignmentBuilder.java")
_HETERO = ("group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/"
           "SimpleHeterogeneousAssignmentBuilder.java")
_TARGET = ("group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/"
           "TargetAssignmentBuilder.java")


@dataclass(frozen=True)
class Divergence:
    """One group on which groupspec's rules and Kafka's SimpleAssignor disagree.

    ``kafka_variant``, when set, is the same group with other topic ids, on which Kafka answers
    differently again (groupspec ignores topic ids, so its answer is the same for both).
    """

    name: str          # snake_case, used as the vector folder name
    title: str         # one line
    upstream: str      # upstream file(s) showing Kafka's behaviour
    explanation: str   # why groupspec's rule differs
    group: AssignorInput
    kafka_variant: AssignorInput | None = None


def _group(
    members: Sequence[tuple[str, Sequence[str], Mapping[str, Sequence[int]]]],
    topics: Mapping[str, int],
    topic_ids: Mapping[str, str] | None = None,
) -> AssignorInput:
    return AssignorInput(
        members=tuple(MemberSpec(m, tuple(subs), {t: frozenset(ps) for t, ps in prev.items()})
                      for m, subs, prev in members),
        topics=dict(topics),
        topic_ids=dict(topic_ids or {}),
    )


_ID_1 = "00000000-0000-0000-0000-000000000001"
_ID_3 = "00000000-0000-0000-0000-000000000003"

_DRIFT_PREVIOUS = (range(0, 5), range(5, 9), range(9, 13), range(13, 17), range(17, 21),
                   range(21, 24), range(24, 29))

DIVERGENCES: tuple[Divergence, ...] = (
    Divergence(
        name="double_drift",
        title="7 members and 29 partitions: Kafka's doubles let the last member desire 5",
        upstream=_BUILDERS,
        explanation=(
            "Kafka computes desired counts as ceil(x*(i+1)) - ceil(x*i) in doubles with x = 29/7; "
            "7*x lands just above 29, so the last member desires 5 and the counts sum to 30. "
            "With previous loads 5,4,4,4,4,3,5 Kafka moves nothing and member M5 stays one short; "
            "groupspec's exact counts [5,4,4,4,4,4,4] trim M6 and give partition 28 to M5."),
        group=_group([(f"M{i}", ["t"], {"t": list(r)}) for i, r in enumerate(_DRIFT_PREVIOUS)],
                     {"t": 29}),
    ),
    Divergence(
        name="stale_partition_kept",
        title="a previous partition beyond the topic's count stays in Kafka's target",
        upstream=_BUILDERS,
        explanation=(
            "The homogeneous builder counts and keeps every previous partition of a subscribed "
            "topic without checking the partition count or the assignable set, so the stale "
            "partition 7 of a 2-partition topic is kept and partition 1 is never assigned. "
            "groupspec revokes stale partitions and assigns partition 1."),
        group=_group([("M0", ["t"], {"t": [0, 7]})], {"t": 2}),
    ),
    Divergence(
        name="deleted_topic_copied_through",
        title="the heterogeneous builder keeps previous partitions of a deleted topic",
        upstream=_HETERO,
        explanation=(
            "The heterogeneous builder only visits subscribed topics; a member's previous "
            "partitions of any other topic (here the deleted topic 'gone') are copied into its "
            "new target untouched. groupspec's target holds only subscribed, existing partitions."),
        group=_group([("A", ["t1"], {"t1": [0], "gone": [0]}), ("B", ["t2"], {})],
                     {"t1": 1, "t2": 1}),
    ),
    Divergence(
        name="fill_gives_up",
        title="after one fruitless pass Kafka's fill skips every later partition",
        upstream=_BUILDERS,
        explanation=(
            "7 members share 3 partitions (sharing 3). Partition 2 is under-shared but both "
            "members below their count (M0, M3) already hold it; Kafka's round-robin makes one "
            "fruitless pass, and since nothing was assigned since its last restart it then skips "
            "partition 0 as well, leaving it under-shared while M0 could take it. groupspec gives "
            "up on a partition only when no member below its count can take it."),
        group=_group([("M0", ["t"], {"t": [2]}), ("M1", ["t"], {"t": [1]}),
                      ("M2", ["t"], {"t": [0]}), ("M3", ["t"], {"t": [2]}),
                      ("M4", ["t"], {"t": [1]}), ("M5", ["t"], {"t": [1]}),
                      ("M6", ["t"], {"t": [0]})],
                     {"t": 3}, {"t": _ID_1}),
    ),
    Divergence(
        name="no_such_element_crash",
        title="Kafka throws NoSuchElementException when its fill runs out of members",
        upstream=_BUILDERS,
        explanation=(
            "A keeps the stale partition 1, which counts toward its load, so only B is below its "
            "count; B takes partition 0, leaves the unfilled set, and the fill restarts its "
            "member iterator on the now empty set to find a second holder: "
            "java.util.NoSuchElementException, which the coordinator reports as "
            "UNKNOWN_SERVER_ERROR. groupspec revokes the stale partition and assigns normally."),
        group=_group([("A", ["t"], {"t": [1]}), ("B", ["t"], {})], {"t": 1}),
    ),
    Divergence(
        name="topic_uuid_dependence",
        title="the same group gets different Kafka assignments under different topic ids",
        upstream=_BUILDERS,
        explanation=(
            "The homogeneous builder keys partitions by TopicIdPartition, whose hash mixes in "
            "the topic UUID, and drops an overfilled member's partitions in that hash order. "
            "A holds all 4 partitions and must give up 2: with topic id ...0001 it keeps {0, 3}, "
            "with ...0003 it keeps {1, 2}. groupspec keeps the first ones by partition number, "
            "whatever the id."),
        group=_group([("A", ["t"], {"t": [0, 1, 2, 3]}), ("B", ["t"], {})], {"t": 4},
                     {"t": _ID_1}),
        kafka_variant=_group([("A", ["t"], {"t": [0, 1, 2, 3]}), ("B", ["t"], {})], {"t": 4},
                             {"t": _ID_3}),
    ),
    Divergence(
        name="member_hash_order",
        title="Kafka ranks members by Java String hash of their ids, not by input order",
        upstream=f"{_TARGET}, {_BUILDERS}",
        explanation=(
            "Kafka numbers members in the iteration order of a HashMap keyed by member id, so "
            "'A' (hash 65) comes before 'B' (hash 66) whatever order they joined in, and gets "
            "the larger desired count. groupspec uses input order: B, listed first, gets 2 "
            "partitions."),
        group=_group([("B", ["t"], {}), ("A", ["t"], {})], {"t": 3}),
    ),
)

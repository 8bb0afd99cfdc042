"""The classic assignors' cases (Range, RoundRobin) the conformance vectors are generated from.

Each :class:`Case` is a group and where it comes from; ``expected`` is computed by the generator
from the spec and ``expected_kafka`` from the implementation's Kafka-exact mode, never written
here. Cases transcribed from Kafka's tests also carry ``upstream``: the answer the upstream test
asserts (as sets per member, as the tests compare them), which
tests/cover/test_conformance_classic_assignors.py holds the spec and the Kafka mode to.

Sources:

* ``upstream``: Kafka's RangeAssignorTest and RoundRobinAssignorTest, and for the sticky
  assignors AbstractStickyAssignorTest, StickyAssignorTest and CooperativeStickyAssignorTest
  (their variants without racks, on one subscription) (clients/src/test/java/org/
  apache/kafka/clients/consumer/, trunk), transcribed as data. The tests' racks come from
  AbstractPartitionAssignorTest's helpers: brokers on racks "a".."f" in turn, partition i of a
  topic on brokers i, i+1, ... (shifted by the partitions of the topics listed before it).
  Variants that set the test-only switch ``preferRackAwareLogic`` are left out: production
  Kafka never sets it.
* ``hand-made``: corners (Java string order, equal instance ids, empty topics, racks given to
  RoundRobin, a topic listed twice in a subscription, hash-ordered topic lists).
* ``generated``: random groups (seeded), exact.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groupspec.types import PartitionAssignorError
from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition

MACHINE = "classic_assignors"
HANDLER = "assign"
TESTS = "clients/src/test/java/org/apache/kafka/clients/consumer/"
ALL_RACKS = ("a", "b", "c", "d", "e", "f")


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    source: Mapping[str, Any]
    group: ClassicAssignorInput
    mode: str = "exact"
    #: What the upstream test asserts: member id -> its partitions (compared as sets).
    upstream: Mapping[str, frozenset[TopicPartition]] | None = None
    #: CooperativeSticky tests that assert after their follow-up rebalances: ``upstream`` holds
    #: once the group is re-run, each member reporting its answer in the same generation, until
    #: no member loses a partition it reported.
    settle: bool = False
    #: The upstream answer follows Kafka's member map order (which member keeps the maximum
    #: quota); groupspec visits members by id and may pick another: only the Kafka mode is held
    #: to it, the spec to its properties.
    kafka_only: bool = False


def parse_parts(text: str) -> frozenset[TopicPartition]:
    """``"t1-0, t2-3"`` (the upstream tests' spelling) as a set of partitions."""
    out = set()
    for item in filter(None, (s.strip() for s in text.split(","))):
        topic, _, p = item.rpartition("-")
        out.add((topic, int(p)))
    return frozenset(out)


def member(
    member_id: str, topics: Sequence[str], instance: str | None = None, rack: str | None = None
) -> ClassicMember:
    return ClassicMember(member_id, tuple(topics), group_instance_id=instance, rack_id=rack, generation_id=-1)


def broker_racks(
    topics: Mapping[str, int], replication: int, brokers: Sequence[str | None], per_topic_offset: bool
) -> dict[str, tuple[frozenset[str], ...]]:
    """Replica racks the upstream helpers build: partition i of a topic on brokers
    ``(i + j + offset) % len(brokers)`` for j < replication; brokers without a rack add none."""
    out: dict[str, tuple[frozenset[str], ...]] = {}
    offset = 0
    for topic, count in topics.items():
        out[topic] = tuple(
            frozenset(
                r for j in range(replication) if (r := brokers[(i + j + offset) % len(brokers)]) is not None
            )
            for i in range(count)
        )
        if per_topic_offset:
            offset += count
    return out


def _up(
    test: str,
    file: str,
    description: str,
    group: ClassicAssignorInput,
    upstream: Mapping[str, str] | None,
    suffix: str = "",
) -> Case:
    snake = "".join("_" + c.lower() if c.isupper() else c for c in test.removeprefix("test")).strip("_")
    return Case(
        f"upstream_{group.assignor}_{snake}{suffix}",
        description,
        {"kind": "upstream", "file": TESTS + file, "test": test},
        group,
        upstream=None if upstream is None else {m: parse_parts(s) for m, s in upstream.items()},
    )


# ---------------------------------------------------------------------------------------------
# RangeAssignorTest: the tests run under three rack configurations
# ---------------------------------------------------------------------------------------------

RACK_CONFIGS = ("no_broker_rack", "no_consumer_rack", "broker_and_consumer_rack")


def _range_config(
    test: str,
    description: str,
    config: str,
    topics: Mapping[str, int],
    subs: Sequence[tuple[str, Sequence[str], str | None]],
    upstream: Mapping[str, str],
    max_consumers: int = 3,
) -> Case:
    """RangeAssignorTest's ``initializeRacks``: replication = max consumers; brokers on as many
    racks (none for no_broker_rack); consumer k on rack k % racks (none for no_consumer_rack)."""
    broker_racks_n = 0 if config == "no_broker_rack" else max_consumers
    brokers: list[str | None] = (
        [ALL_RACKS[i % broker_racks_n] for i in range(broker_racks_n * max_consumers)]
        if broker_racks_n
        else [None] * max_consumers
    )
    n_racks = broker_racks_n or len(ALL_RACKS)
    members = tuple(
        member(m, ts, inst, None if config == "no_consumer_rack" else ALL_RACKS[k % n_racks])
        for k, (m, ts, inst) in enumerate(subs)
    )
    g = ClassicAssignorInput(
        "range", members, dict(topics), broker_racks(topics, max_consumers, brokers, per_topic_offset=False)
    )
    return _up(
        test,
        "RangeAssignorTest.java",
        f"{description} ({config.replace('_', ' ')})",
        g,
        upstream,
        suffix=f"_{config}",
    )


def _verify(
    test: str,
    description: str,
    topics: Mapping[str, int],
    replication: int,
    brokers: Sequence[str | None],
    consumer_racks: Sequence[str | None],
    consumer_topics: Sequence[Sequence[str]],
    expected: Sequence[str],
    suffix: str,
) -> Case:
    """AbstractPartitionAssignorTest.verifyRackAssignment: consumers ``consumer<i>``."""
    members = tuple(
        member(f"consumer{i}", ts, None, r)
        for i, (ts, r) in enumerate(zip(consumer_topics, consumer_racks, strict=True))
    )
    g = ClassicAssignorInput(
        "range", members, dict(topics), broker_racks(topics, replication, brokers, per_topic_offset=True)
    )
    return _up(
        test,
        "RangeAssignorTest.java",
        description,
        g,
        {f"consumer{i}": e for i, e in enumerate(expected)},
        suffix=suffix,
    )


def _racks(n: int) -> list[str | None]:
    return [ALL_RACKS[i % len(ALL_RACKS)] for i in range(n)]


def range_cases() -> list[Case]:
    t1, t2 = "topic1", "topic2"
    out: list[Case] = []
    for c in RACK_CONFIGS:
        out += [
            _range_config(
                "testOneConsumerNoTopic",
                "one consumer, no subscription",
                c,
                {},
                [("consumer", [], None)],
                {"consumer": ""},
            ),
            _range_config(
                "testOneConsumerNonexistentTopic",
                "one consumer, its topic unknown",
                c,
                {},
                [("consumer", ["topic"], None)],
                {"consumer": ""},
            ),
            _range_config(
                "testOneConsumerOneTopic",
                "one consumer takes all 3 partitions",
                c,
                {t1: 3},
                [("consumer1", [t1], None)],
                {"consumer1": "topic1-0, topic1-1, topic1-2"},
            ),
            _range_config(
                "testOnlyAssignsPartitionsFromSubscribedTopics",
                "an unsubscribed topic is left alone",
                c,
                {t1: 3, "other": 3},
                [("consumer1", [t1], None)],
                {"consumer1": "topic1-0, topic1-1, topic1-2"},
            ),
            _range_config(
                "testOneConsumerMultipleTopics",
                "one consumer, two topics",
                c,
                {t1: 1, t2: 2},
                [("consumer1", [t1, t2], None)],
                {"consumer1": "topic1-0, topic2-0, topic2-1"},
            ),
            _range_config(
                "testTwoConsumersOneTopicOnePartition",
                "the first consumer gets the only partition",
                c,
                {t1: 1},
                [("consumer1", [t1], None), ("consumer2", [t1], None)],
                {"consumer1": "topic1-0", "consumer2": ""},
            ),
            _range_config(
                "testTwoConsumersOneTopicTwoPartitions",
                "one partition each",
                c,
                {t1: 2},
                [("consumer1", [t1], None), ("consumer2", [t1], None)],
                {"consumer1": "topic1-0", "consumer2": "topic1-1"},
            ),
            _range_config(
                "testMultipleConsumersMixedTopics",
                "three consumers, one of them on both topics",
                c,
                {t1: 3, t2: 2},
                [("consumer1", [t1], None), ("consumer2", [t1, t2], None), ("consumer3", [t1], None)],
                {
                    "consumer1": "topic1-0",
                    "consumer2": "topic1-1, topic2-0, topic2-1",
                    "consumer3": "topic1-2",
                },
            ),
            _range_config(
                "testTwoConsumersTwoTopicsSixPartitions",
                "the first consumer gets the extra of each topic",
                c,
                {t1: 3, t2: 3},
                [("consumer1", [t1, t2], None), ("consumer2", [t1, t2], None)],
                {"consumer1": "topic1-0, topic1-1, topic2-0, topic2-1", "consumer2": "topic1-2, topic2-2"},
            ),
            _range_config(
                "testTwoStaticConsumersTwoTopicsSixPartitions",
                "static members order by instance id, not member id",
                c,
                {t1: 3, t2: 3},
                [("consumer-b", [t1, t2], "instance1"), ("consumer-a", [t1, t2], "instance2")],
                {"consumer-b": "topic1-0, topic1-1, topic2-0, topic2-1", "consumer-a": "topic1-2, topic2-2"},
            ),
            _range_config(
                "testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
                "a static member comes before a dynamic one",
                c,
                {t1: 3, t2: 3},
                [("consumer-b", [t1, t2], "instance1"), ("consumer-a", [t1, t2], None)],
                {"consumer-b": "topic1-0, topic1-1, topic2-0, topic2-1", "consumer-a": "topic1-2, topic2-2"},
            ),
        ]
        statics = [(f"consumer{k}", [t1, t2], f"instance{k}") for k in (1, 2, 3)]
        # (Upstream's consumer5 takes the next consumer index, so the next rack; every partition
        # there is on all 5 racks, so no rack phase runs and the rack does not matter.)
        for dyn in ("consumer4", "consumer5"):
            out.append(
                _range_config(
                    "testStaticMemberRangeAssignmentPersistent",
                    f"three static members and dynamic {dyn}",
                    c,
                    {t1: 5, t2: 4},
                    [*statics, (dyn, [t1, t2], None)],
                    {
                        "consumer1": "topic1-0, topic1-1, topic2-0",
                        "consumer2": "topic1-2, topic2-1",
                        "consumer3": "topic1-3, topic2-2",
                        dyn: "topic1-4, topic2-3",
                    },
                    max_consumers=5,
                )
            )
            out[-1] = _rename(out[-1], f"_{dyn}")
        by_instance = {
            "instance1": "topic1-0, topic1-1, topic2-0, topic2-1",
            "instance2": "topic1-2, topic1-3, topic2-2, topic2-3",
            "instance3": "topic1-4, topic2-4",
        }
        for ids in (("consumer1", "consumer2", "consumer3"), ("consumer1", "consumer5", "consumer4")):
            subs = [(m, [t1, t2], f"instance{k}") for k, m in enumerate(ids, 1)]
            case = _range_config(
                "testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
                f"static members keep their ranges under member ids {', '.join(ids)}",
                c,
                {t1: 5, t2: 5},
                subs,
                {m: by_instance[f"instance{k}"] for k, m in enumerate(ids, 1)},
            )
            out.append(_rename(case, "_" + ids[-1]))
    return out + range_rack_cases()


def _rename(case: Case, suffix: str) -> Case:
    from dataclasses import replace

    return replace(case, name=case.name + suffix)


def range_rack_cases() -> list[Case]:
    out: list[Case] = []
    t123 = ["t1", "t2", "t3"]
    # testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges: brokers and
    # consumers on racks, replication 2 over 3 racks (partition i on racks i, i+1).
    by_instance = {
        "instance1": "topic1-0, topic1-2, topic2-0, topic2-2",
        "instance2": "topic1-1, topic1-3, topic2-1, topic2-3",
        "instance3": "topic1-4, topic2-4",
    }
    for ids in (("consumer1", "consumer2", "consumer3"), ("consumer1", "consumer5", "consumer4")):
        members = tuple(
            member(m, ["topic1", "topic2"], f"instance{k}", ALL_RACKS[(k - 1) % 3])
            for k, m in enumerate(ids, 1)
        )
        topics = {"topic1": 5, "topic2": 5}
        brokers = [ALL_RACKS[i % 3] for i in range(6)]
        g = ClassicAssignorInput(
            "range", members, topics, broker_racks(topics, 2, brokers, per_topic_offset=False)
        )
        out.append(
            _up(
                "testRackAwareStaticMemberRangeAssignmentPersistentAfterMemberIdChanges",
                "RangeAssignorTest.java",
                "rack-aware ranges stay with the static members' instance ids",
                g,
                {m: by_instance[f"instance{k}"] for k, m in enumerate(ids, 1)},
                suffix="_" + ids[-1],
            )
        )
    uniform = {"t1": 6, "t2": 7, "t3": 2}
    for name, subs, plain, rack1, rack2, rack3 in (
        (
            "testRackAwareAssignmentWithUniformSubscription",
            [t123] * 3,
            ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"],
            ["t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"],
            ["t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"],
            ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"],
        ),
        (
            "testRackAwareAssignmentWithNonEqualSubscription",
            [t123, t123, ["t1", "t3"]],
            ["t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"],
            ["t1-0, t1-3, t2-0, t2-2, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0", "t1-2, t1-5, t3-1"],
            ["t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1", "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0", "t1-4, t1-5"],
            ["t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"],
        ),
        (
            "testRackAwareAssignmentWithUniformPartitions",
            [t123] * 3,
            ["t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"],
            ["t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"],
            ["t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"],
            ["t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"],
        ),
        (
            "testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription",
            [t123, t123, ["t1", "t3"]],
            ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"],
            ["t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t3-4"],
            ["t1-2, t2-0, t2-1, t2-3, t3-2", "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3", "t1-1, t1-4, t3-1, t3-4"],
            ["t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"],
        ),
    ):
        topics = {"t1": 5, "t2": 5, "t3": 5} if "UniformPartitions" in name else uniform
        desc = "rack-aware Range: {}"
        out += [
            _verify(
                name,
                desc.format("no broker racks"),
                topics,
                3,
                [None] * 3,
                _racks(3),
                subs,
                plain,
                "_no_broker_racks",
            ),
            _verify(
                name,
                desc.format("no consumer racks"),
                topics,
                3,
                _racks(3),
                [None] * 3,
                subs,
                plain,
                "_no_consumer_racks",
            ),
            _verify(
                name,
                desc.format("every partition on every rack"),
                topics,
                3,
                _racks(3),
                _racks(3),
                subs,
                plain,
                "_all_racks_everywhere",
            ),
            _verify(
                name,
                desc.format("4 racks, replication 4"),
                topics,
                4,
                _racks(4),
                _racks(3),
                subs,
                plain,
                "_four_racks",
            ),
            _verify(
                name,
                desc.format("consumers on racks no broker is on"),
                topics,
                3,
                _racks(3),
                ["d", "e", "f"],
                subs,
                plain,
                "_disjoint_racks",
            ),
            _verify(
                name,
                desc.format("one consumer without a rack, the others on foreign racks"),
                topics,
                3,
                _racks(3),
                [None, "e", "f"],
                subs,
                plain,
                "_mixed_foreign_racks",
            ),
            _verify(
                name,
                desc.format("replication 1"),
                topics,
                1,
                _racks(3),
                _racks(3),
                subs,
                rack1,
                "_replication_1",
            ),
            _verify(
                name,
                desc.format("replication 2"),
                topics,
                2,
                _racks(3),
                _racks(3),
                subs,
                rack2,
                "_replication_2",
            ),
            _verify(
                name,
                desc.format("a consumer on a rack with no partitions"),
                topics,
                3,
                _racks(2),
                _racks(3),
                subs,
                rack3,
                "_rack_without_partitions",
            ),
        ]
    copart = {"t1": 6, "t2": 6, "t3": 2, "t4": 2}
    crack: list[str | None] = ["a", "b", "b", "a"]
    split = [["t1", "t2"], ["t1", "t2"], ["t3", "t4"], ["t3", "t4"]]
    plain = [
        "t1-0, t1-1, t1-2, t2-0, t2-1, t2-2",
        "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5",
        "t3-0, t4-0",
        "t3-1, t4-1",
    ]
    name = "testRackAwareAssignmentWithCoPartitioning"
    out += [
        _verify(
            name,
            "co-partitioned pairs, replication 3 on 2 racks",
            copart,
            3,
            _racks(2),
            crack,
            split,
            plain,
            "_split_replication_3",
        ),
        _verify(
            name,
            "co-partitioned pairs, replication 2 on 2 racks",
            copart,
            2,
            _racks(2),
            crack,
            split,
            plain,
            "_split_replication_2",
        ),
        _verify(
            name,
            "co-partitioned pairs follow the racks, replication 1",
            copart,
            1,
            _racks(2),
            crack,
            split,
            [
                "t1-0, t1-2, t1-4, t2-0, t2-2, t2-4",
                "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5",
                "t3-1, t4-1",
                "t3-0, t4-0",
            ],
            "_split_replication_1",
        ),
    ]
    every = [["t1", "t2", "t3", "t4"]] * 4
    plain = [
        "t1-0, t1-1, t2-0, t2-1, t3-0, t4-0",
        "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1",
        "t1-4, t2-4",
        "t1-5, t2-5",
    ]
    out += [
        _verify(
            name,
            "four co-partitioned topics, replication 3 on 2 racks",
            copart,
            3,
            _racks(2),
            crack,
            every,
            plain,
            "_all_replication_3",
        ),
        _verify(
            name,
            "four co-partitioned topics, replication 2 on 2 racks",
            copart,
            2,
            _racks(2),
            crack,
            every,
            plain,
            "_all_replication_2",
        ),
        _verify(
            name,
            "four co-partitioned topics, replication 1 on 2 racks",
            copart,
            1,
            _racks(2),
            crack,
            every,
            [
                "t1-0, t1-2, t2-0, t2-2, t3-0, t4-0",
                "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1",
                "t1-5, t2-5",
                "t1-4, t2-4",
            ],
            "_all_replication_1_two_racks",
        ),
        _verify(
            name,
            "four co-partitioned topics, replication 1 on 3 racks",
            copart,
            1,
            _racks(3),
            crack,
            every,
            [
                "t1-0, t1-3, t2-0, t2-3, t3-0, t4-0",
                "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1",
                "t1-2, t2-2",
                "t1-5, t2-5",
            ],
            "_all_replication_1_three_racks",
        ),
    ]
    six = {"t1": 6, "t2": 6, "t3": 2, "t4": 2, "t5": 4, "t6": 4}
    nine = [[f"t{k}" for k in range(1, 10)]] * 3
    name = "testCoPartitionedAssignmentWithSameSubscription"
    out += [
        _verify(
            name,
            "co-partitioned topics, brokers without racks (t7-t9 do not exist)",
            six,
            3,
            [None] * 3,
            _racks(3),
            nine,
            [
                "t1-0, t1-1, t2-0, t2-1, t3-0, t4-0, t5-0, t5-1, t6-0, t6-1",
                "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1, t5-2, t6-2",
                "t1-4, t1-5, t2-4, t2-5, t5-3, t6-3",
            ],
            "_no_broker_racks",
        ),
        _verify(
            name,
            "co-partitioned topics follow the racks, replication 2",
            six,
            2,
            _racks(3),
            _racks(3),
            nine,
            [
                "t1-0, t1-2, t2-0, t2-2, t3-0, t4-0, t5-1, t6-1",
                "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1, t5-2, t6-2",
                "t1-4, t1-5, t2-4, t2-5, t5-0, t5-3, t6-0, t6-3",
            ],
            "_replication_2",
        ),
    ]
    return out


# ---------------------------------------------------------------------------------------------
# RoundRobinAssignorTest
# ---------------------------------------------------------------------------------------------


def _rr(
    test: str,
    description: str,
    topics: Mapping[str, int],
    subs: Sequence[tuple[str, Sequence[str], str | None]],
    upstream: Mapping[str, str],
    suffix: str = "",
) -> Case:
    g = ClassicAssignorInput("roundrobin", tuple(member(m, ts, inst) for m, ts, inst in subs), dict(topics))
    return _up(test, "RoundRobinAssignorTest.java", description, g, upstream, suffix)


def roundrobin_cases() -> list[Case]:
    t, t1, t2 = "topic", "topic1", "topic2"
    out = [
        _rr(
            "testOneConsumerNoTopic",
            "one consumer, no subscription",
            {},
            [("consumer", [], None)],
            {"consumer": ""},
        ),
        _rr(
            "testOneConsumerNonexistentTopic",
            "one consumer, its topic unknown",
            {},
            [("consumer", [t], None)],
            {"consumer": ""},
        ),
        _rr(
            "testOneConsumerOneTopic",
            "one consumer takes all",
            {t: 3},
            [("consumer", [t], None)],
            {"consumer": "topic-0, topic-1, topic-2"},
        ),
        _rr(
            "testOnlyAssignsPartitionsFromSubscribedTopics",
            "an unsubscribed topic is left alone",
            {t: 3, "other": 3},
            [("consumer", [t], None)],
            {"consumer": "topic-0, topic-1, topic-2"},
        ),
        _rr(
            "testOneConsumerMultipleTopics",
            "one consumer, two topics",
            {t1: 1, t2: 2},
            [("consumer", [t1, t2], None)],
            {"consumer": "topic1-0, topic2-0, topic2-1"},
        ),
        _rr(
            "testTwoConsumersOneTopicOnePartition",
            "the first consumer gets the only partition",
            {t: 1},
            [("consumer1", [t], None), ("consumer2", [t], None)],
            {"consumer1": "topic-0", "consumer2": ""},
        ),
        _rr(
            "testTwoConsumersOneTopicTwoPartitions",
            "one each",
            {t: 2},
            [("consumer1", [t], None), ("consumer2", [t], None)],
            {"consumer1": "topic-0", "consumer2": "topic-1"},
        ),
        _rr(
            "testMultipleConsumersMixedTopics",
            "members not on topic2 are passed over",
            {t1: 3, t2: 2},
            [("consumer1", [t1], None), ("consumer2", [t1, t2], None), ("consumer3", [t1], None)],
            {"consumer1": "topic1-0", "consumer2": "topic1-1, topic2-0, topic2-1", "consumer3": "topic1-2"},
        ),
        _rr(
            "testTwoDynamicConsumersTwoTopicsSixPartitions",
            "two members alternate over six partitions",
            {t1: 3, t2: 3},
            [("consumer1", [t1, t2], None), ("consumer2", [t1, t2], None)],
            {"consumer1": "topic1-0, topic1-2, topic2-1", "consumer2": "topic1-1, topic2-0, topic2-2"},
        ),
        _rr(
            "testTwoStaticConsumersTwoTopicsSixPartitions",
            "static members order by instance id",
            {t1: 3, t2: 3},
            [("consumer-b", [t1, t2], "instance1"), ("consumer-a", [t1, t2], "instance2")],
            {"consumer-b": "topic1-0, topic1-2, topic2-1", "consumer-a": "topic1-1, topic2-0, topic2-2"},
        ),
        _rr(
            "testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
            "a static member comes first",
            {t1: 3, t2: 3},
            [("consumer-b", [t1, t2], "instance1"), ("consumer-a", [t1, t2], None)],
            {"consumer-b": "topic1-0, topic1-2, topic2-1", "consumer-a": "topic1-1, topic2-0, topic2-2"},
        ),
    ]
    statics = [(f"consumer{k}", [t1, t2], f"instance{k}") for k in (1, 2, 3)]
    for dyn in ("consumer4", "consumer5"):
        out.append(
            _rr(
                "testStaticMemberRoundRobinAssignmentPersistent",
                f"three static members and dynamic {dyn}",
                {t1: 3, t2: 3},
                [*statics, (dyn, [t1, t2], None)],
                {
                    "consumer1": "topic1-0, topic2-1",
                    "consumer2": "topic1-1, topic2-2",
                    "consumer3": "topic1-2",
                    dyn: "topic2-0",
                },
                suffix=f"_{dyn}",
            )
        )
    by_instance = {
        "instance1": "topic1-0, topic1-3, topic2-1, topic2-4",
        "instance2": "topic1-1, topic1-4, topic2-2",
        "instance3": "topic1-2, topic2-0, topic2-3",
    }
    for ids in (("consumer1", "consumer2", "consumer3"), ("consumer1", "consumer5", "consumer4")):
        out.append(
            _rr(
                "testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges",
                f"static members keep their partitions under member ids {', '.join(ids)}",
                {t1: 5, t2: 5},
                [(m, [t1, t2], f"instance{k}") for k, m in enumerate(ids, 1)],
                {m: by_instance[f"instance{k}"] for k, m in enumerate(ids, 1)},
                suffix="_" + ids[-1],
            )
        )
    return out


# ---------------------------------------------------------------------------------------------
# Hand-made corners
# ---------------------------------------------------------------------------------------------


def _hand(name: str, description: str, g: ClassicAssignorInput) -> Case:
    return Case(name, description, {"kind": "hand-made"}, g)


def hand_cases() -> list[Case]:
    out = []
    # Java orders strings by UTF-16 code units: U+10000 (a surrogate pair, D800 DC00) sorts
    # before U+E000, where Python's code point order puts it after.
    astral, private = "\U00010000", "\ue000"
    for a in ("range", "roundrobin"):
        out.append(
            _hand(
                f"hand_{a}_java_string_order",
                "member ids compare as Java strings (UTF-16 units)",
                ClassicAssignorInput(a, (member(private, ["t"]), member(astral, ["t"])), {"t": 3}),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_instance_ids_java_order",
                "instance ids compare as Java strings",
                ClassicAssignorInput(
                    a, (member("m1", ["t"], private), member("m2", ["t"], astral)), {"t": 3}
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_equal_instance_ids",
                "two members claim one instance id (no coordinator admits this): groupspec orders them "
                "by member id, Kafka by its member map's hash order",
                ClassicAssignorInput(
                    a,
                    (member("zz", ["t"], "same"), member("Ab", ["t"], "same"), member("BC", ["t"], "same")),
                    {"t": 5},
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_empty_and_unknown_topics",
                "topics with no partitions or no metadata are skipped",
                ClassicAssignorInput(
                    a,
                    (member("m1", ["empty", "gone", "t"]), member("m2", ["t", "empty"])),
                    {"empty": 0, "t": 3},
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_topic_listed_twice",
                "a subscription naming a topic twice counts once",
                ClassicAssignorInput(a, (member("m1", ["t", "t"]), member("m2", ["t"])), {"t": 4}),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_no_members",
                "an empty group (never seen: the leader is a member); Kafka's "
                "RoundRobin throws IllegalArgumentException",
                ClassicAssignorInput(a, (), {"t": 2}),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_fields_sticky_assignors_read",
                "owned partitions, generation and user data are carried but not read by this assignor",
                ClassicAssignorInput(
                    a,
                    (
                        ClassicMember("m1", ("t",), (("t", 0), ("t", 1)), None, 4, None, b"\x00\x01"),
                        ClassicMember("m2", ("t",), (), "i2", None, "r1", None),
                    ),
                    {"t": 3},
                ),
            )
        )
    out.append(
        _hand(
            "hand_range_topics_in_hash_order",
            "one member, many topics: Kafka lists them in its topic map's hash order, groupspec sorted",
            ClassicAssignorInput(
                "range",
                (member("m", ["zeta", "alpha", "topic-10", "topic-9", "b"]),),
                {"zeta": 2, "alpha": 1, "topic-10": 1, "topic-9": 2, "b": 1},
            ),
        )
    )
    out.append(
        _hand(
            "hand_roundrobin_ignores_racks",
            "RoundRobin reads no racks",
            ClassicAssignorInput(
                "roundrobin",
                (member("m1", ["t"], rack="a"), member("m2", ["t"], rack="b")),
                {"t": 4},
                {"t": (frozenset("a"), frozenset("a"), frozenset("b"), frozenset("b"))},
            ),
        )
    )
    out.append(
        _hand(
            "hand_range_empty_rack_is_no_rack",
            "an empty rack id is no rack",
            ClassicAssignorInput(
                "range",
                (member("m1", ["t"], rack=""), member("m2", ["t"], rack="b")),
                {"t": 4},
                {"t": (frozenset("a"), frozenset("b"), frozenset("a"), frozenset("b"))},
            ),
        )
    )
    out.append(
        _hand(
            "hand_range_lone_topic_rack_phase",
            "a topic without co-partitioned peers takes rack matches first",
            ClassicAssignorInput(
                "range",
                (
                    member("m1", ["t", "u"], rack="a"),
                    member("m2", ["t"], rack="b"),
                    member("m3", ["t"], rack="c"),
                ),
                {"t": 5, "u": 2},
                {
                    "t": tuple(frozenset(r) for r in ("c", "c", "b", "a", "a")),
                    "u": (frozenset("a"), frozenset()),
                },
            ),
        )
    )
    # Co-partitioned t and u (7 partitions, 3 members: 2 each, one extra). m-b takes the extra
    # at p4, after m-a already holds its 2: m-a has no room left but still matches p5, which
    # must wait for the plain ranges (m-c) rather than go to m-a.
    layout = tuple(frozenset(r) for r in ("a", "a", "b", "b", "b", "a", "c"))
    out.append(_hand("hand_range_copartitioned_extra_runs_out",
                     "co-partitioned rack phase: a member whose room the last extra used up gets no more",
                     ClassicAssignorInput("range", (member("m-a", ["t", "u"], rack="a"),
                                                    member("m-b", ["t", "u"], rack="b"),
                                                    member("m-c", ["t", "u"], rack="c")),
                                          {"t": 7, "u": 7}, {"t": layout, "u": layout})))
    # A topic whose subscribers have no rack sorts first; the racked topic after it still gets
    # its rack phase (m2 on rack a takes t's partitions on a, m3 those on b).
    out.append(_hand("hand_range_rackless_topic_before_racked_one",
                     "a topic of rackless members does not end the rack phase for the topics after it",
                     ClassicAssignorInput("range", (member("m1", ["a-topic"]), member("m2", ["t"], rack="a"),
                                                    member("m3", ["t"], rack="b")),
                                          {"a-topic": 2, "t": 4},
                                          {"t": tuple(frozenset(r) for r in ("b", "b", "a", "a"))})))
    # 13 subscribed names, one with no partitions: Kafka's partitionsPerTopic holds the 12 others
    # (16 buckets); holding the empty one too would resize it to 32 and reorder the lists.
    names = [f"orders-{k}" for k in range(12)] + ["empty"]
    out.append(_hand("hand_range_many_topics_one_empty",
                     "a topic without partitions stays out of Kafka's topic map, whose size sets its order",
                     ClassicAssignorInput("range", (member("m", names),),
                                          {**{n: 1 for n in names[:12]}, "empty": 0})))
    return out


# ---------------------------------------------------------------------------------------------
# Generated
# ---------------------------------------------------------------------------------------------

GENERATED = ((2101, 40), (2102, 12))


def random_group(
    rng: random.Random, assignor: str, max_members: int, max_topics: int, max_partitions: int, racks: bool
) -> ClassicAssignorInput:
    topic_names = [f"topic-{k}" for k in range(rng.randint(1, max_topics))]
    topics = {t: rng.randint(0, max_partitions) for t in topic_names if rng.random() < 0.9}
    rack_names = ["a", "b", "c"]
    members = []
    for k in range(rng.randint(1, max_members)):
        subs = rng.sample(topic_names, rng.randint(0, len(topic_names)))
        inst = f"instance-{rng.randint(0, 99)}" if rng.random() < 0.3 else None
        rack = rng.choice(rack_names) if racks and rng.random() < 0.8 else None
        members.append(member(f"member-{k}-{rng.randint(0, 999)}", subs, inst, rack))
    ids = set()
    unique = []
    for m in members:  # instance ids unique, as a coordinator keeps them
        if m.group_instance_id in ids:
            m = ClassicMember(m.member_id, m.topics, rack_id=m.rack_id, generation_id=-1)
        ids.add(m.group_instance_id)
        unique.append(m)
    replica: dict[str, tuple[frozenset[str], ...]] = {}
    if racks:
        for t, n in topics.items():
            replica[t] = tuple(frozenset(rng.sample(rack_names, rng.randint(0, 2))) for _ in range(n))
    return ClassicAssignorInput(assignor, tuple(unique), topics, replica)


def generated_cases() -> list[Case]:
    out = []
    for seed, count in GENERATED:
        rng = random.Random(seed)
        for i in range(count):
            assignor = ("range", "roundrobin")[i % 2]
            racks = assignor == "range" and i % 4 == 0
            g = random_group(rng, assignor, 8, 4, 9, racks)
            out.append(
                Case(
                    f"generated_s{seed}_i{i:03d}",
                    f"random {assignor} group" + (" with racks" if racks else ""),
                    {"kind": "generated", "seed": seed, "index": i},
                    g,
                )
            )
    return out


def all_cases() -> Iterator[Case]:
    yield from range_cases()
    yield from roundrobin_cases()
    yield from hand_cases()
    yield from generated_cases()
    from tests.scenarios.classic_assignors.sticky_cases import sticky_cases

    yield from sticky_cases()


def vector_doc(case: Case) -> dict[str, Any]:
    """One vector: the canonical input, the spec's answer, and Kafka's (the Kafka-exact mode)."""
    from groupspec.conformance import classic_assignors as form
    from groupspec.conformance import vector_format as vf
    from groupspec.impl.classic_assignors import assign as impl_assign
    from groupspec.spec.classic_assignors import PROPERTIES, assign, check_properties

    doc_input = form.group_to_json(case.group)
    group = form.group_from_json(doc_input)
    doc = vf.vector_head(MACHINE, HANDLER, case, PROPERTIES)
    try:
        kafka = impl_assign(group, compat="kafka")
    except PartitionAssignorError as exc:
        expected_kafka: dict[str, Any] = {"error": exc.kafka_exception}
    else:
        held = check_properties(group, kafka)
        doc["properties_kafka"] = [p for p in PROPERTIES if held[p]]
        expected_kafka = form.assignment_to_json(kafka)
    doc["input"] = doc_input
    doc["expected"] = form.assignment_to_json(assign(group))
    doc["expected_kafka"] = expected_kafka
    return doc


def classic_assignors_vector_docs() -> Iterator[dict[str, Any]]:
    for case in all_cases():
        yield vector_doc(case)


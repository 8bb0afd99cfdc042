"""The sticky assignors' cases (Sticky, CooperativeSticky): upstream transcriptions, hand-made
corners and seeded random groups; joined into the catalogue by cases.all_cases."""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from groupspec.spec.classic_assignors import sticky_plain
from groupspec.types import PartitionAssignorError
from groupspec.types.classic_assignors import (
    ClassicAssignorInput,
    ClassicMember,
    TopicPartition,
    encode_sticky_user_data,
)
from tests.scenarios.classic_assignors.cases import Case, _hand, _up, parse_parts

# ---------------------------------------------------------------------------------------------
# Sticky and CooperativeSticky
# ---------------------------------------------------------------------------------------------


def sticky_member(
    assignor: str,
    member_id: str,
    topics: Sequence[str],
    owned: Sequence[TopicPartition] = (),
    generation: int | None = None,
    instance: str | None = None,
) -> ClassicMember:
    """A member as a Kafka 4.2 client sends it: owned partitions and generation in the
    subscription and, for ``sticky``, also in the user data (the only place StickyAssignor
    reads them; a member that owned nothing yet sends no user data)."""
    user_data = None
    if assignor == "sticky" and (owned or generation is not None):
        user_data = encode_sticky_user_data(tuple(owned), generation)
    return ClassicMember(member_id, tuple(topics), tuple(owned), instance, generation, None, user_data)


def random_sticky_group(
    rng: random.Random, assignor: str, messy: bool, racks: bool = False
) -> ClassicAssignorInput:
    """Members with one subscription; each claims a random handful of partitions. ``messy``
    also lets claims go beyond a topic's count, repeat, and clash within one generation;
    ``racks`` puts members and replicas on racks a-c."""
    topics = {f"topic-{k}": rng.randint(0, 8) for k in range(rng.randint(1, 4))}
    subscribed = sorted(topics)
    pool = [(t, p) for t, n in topics.items() for p in range(n + (2 if messy else 0))]
    free = list(pool)
    rng.shuffle(free)
    members = []
    for k in range(rng.randint(1, 8)):
        take = rng.randint(0, 4)
        if messy:
            owned = [rng.choice(pool) for _ in range(take)] if pool else []
        else:
            owned, free = free[:take], free[take:]
        generation = rng.choice((None, 1, 2, 3)) if owned or rng.random() < 0.5 else None
        member_id = f"member-{k}-{rng.randint(0, 999)}"
        members.append(sticky_member(assignor, member_id, subscribed, owned, generation))
    if not racks:
        return ClassicAssignorInput(assignor, tuple(members), topics)
    on_racks = tuple(replace(m, rack_id=rng.choice("abc") if rng.random() < 0.8 else None) for m in members)
    replica = {
        t: tuple(frozenset(rng.sample("abc", rng.randint(0, 2))) for _ in range(n)) for t, n in topics.items()
    }
    return ClassicAssignorInput(assignor, on_racks, topics, replica)


def next_round(
    group: ClassicAssignorInput, answer: Mapping[str, Sequence[TopicPartition]], generation: int
) -> ClassicAssignorInput:
    """The group's next rebalance: every member reports what it was given, in ``generation``."""
    members = tuple(
        replace(
            sticky_member(group.assignor, m.member_id, m.topics, answer[m.member_id], generation),
            rack_id=m.rack_id,
        )
        for m in group.members
    )
    return ClassicAssignorInput(group.assignor, members, group.topics, group.replica_racks)


#: Upstream scenarios as data: (test, file, description, topics, members as (id, topics, owned,
#: generation), what the test asserts). File "abstract" runs on both assignors (the cooperative
#: one asserting after its follow-up rebalances); the others on the one their file tests.
_ABSTRACT = "internals/AbstractStickyAssignorTest.java"
_STICKY_T = "StickyAssignorTest.java"
_COOP_T = "CooperativeStickyAssignorTest.java"
_T = ("topic",)
_T12 = ("topic1", "topic2")
_MAP_ORDERED = {"testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers"}
_StickyRow = tuple[
    str, str, str, dict[str, int], list[tuple[str, tuple[str, ...], str, int | None]], dict[str, str]
]
STICKY_UPSTREAM: list[_StickyRow] = [
    (
        "testOneConsumerOneTopic",
        _ABSTRACT,
        "a lone member takes every partition",
        {"topic": 3},
        [("consumer", _T, "", None)],
        {"consumer": "topic-0, topic-1, topic-2"},
    ),
    (
        "testTwoConsumersOneTopicTwoPartitions",
        _ABSTRACT,
        "two new members, one partition each",
        {"topic": 2},
        [("consumer1", _T, "", None), ("consumer2", _T, "", None)],
        {"consumer1": "topic-0", "consumer2": "topic-1"},
    ),
    (
        "testTwoConsumersTwoTopicsSixPartitions",
        _ABSTRACT,
        "new members are dealt partitions in turns",
        {"topic1": 3, "topic2": 3},
        [("consumer1", _T12, "", None), ("consumer2", _T12, "", None)],
        {"consumer1": "topic1-0, topic1-2, topic2-1", "consumer2": "topic1-1, topic2-0, topic2-2"},
    ),
    (
        "testConsumerOwningMinQuotaExpectedMaxQuota",
        _ABSTRACT,
        "a member at the minimum quota takes the one extra partition",
        {"topic1": 2, "topic2": 3},
        [("consumer1", _T12, "topic1-0, topic2-1", 1), ("consumer2", _T12, "topic1-1, topic2-2", 1)],
        {"consumer1": "topic1-0, topic2-1, topic2-0", "consumer2": "topic1-1, topic2-2"},
    ),
    (
        "testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers",
        _ABSTRACT,
        "more members own the maximum quota than may keep it: the first keeps it, the other gives one up",
        {"topic1": 2, "topic2": 2},
        [
            ("consumer1", _T12, "topic1-0, topic2-0", 1),
            ("consumer2", _T12, "topic1-1, topic2-1", 1),
            ("consumer3", _T12, "", 1),
        ],
        {"consumer1": "topic1-0", "consumer2": "topic1-1, topic2-1", "consumer3": "topic2-0"},
    ),
    (
        "testAllConsumersAreUnderMinQuota",
        _ABSTRACT,
        "every member below the minimum keeps what it owns",
        {"topic1": 2, "topic2": 3},
        [("consumer1", _T12, "topic1-0", 1), ("consumer2", _T12, "topic1-1", 1), ("consumer3", _T12, "", 1)],
        {"consumer1": "topic1-0, topic2-1", "consumer2": "topic1-1, topic2-2", "consumer3": "topic2-0"},
    ),
    (
        "testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration",
        _ABSTRACT,
        "a claim from an older generation loses to the newer one",
        {"topic": 3, "topic2": 3},
        [
            ("consumer1", ("topic", "topic2"), "topic-0, topic-2, topic2-1", 10),
            ("consumer2", ("topic", "topic2"), "topic-0, topic-2, topic2-1", 9),
        ],
        {"consumer1": "topic-0, topic-2, topic2-1", "consumer2": "topic-1, topic2-0, topic2-2"},
    ),
    (
        "testEnsurePartitionsAssignedToHighestGeneration",
        _ABSTRACT,
        "each partition claimed in several generations goes to the highest",
        {"topic": 3, "topic2": 3, "topic3": 3},
        [
            ("consumer1", ("topic", "topic2", "topic3"), "topic-0, topic2-0, topic3-0", 10),
            ("consumer2", ("topic", "topic2", "topic3"), "topic-1, topic2-1, topic3-1", 9),
            ("consumer3", ("topic", "topic2", "topic3"), "topic2-1, topic3-0, topic3-2", 8),
        ],
        {
            "consumer1": "topic-0, topic2-0, topic3-0",
            "consumer2": "topic-1, topic2-1, topic3-1",
            "consumer3": "topic-2, topic2-2, topic3-2",
        },
    ),
    (
        "testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration",
        _ABSTRACT,
        "a partition two members claim in one generation is kept by neither (KAFKA-12984)",
        {"topic": 3},
        [
            ("consumer1", _T, "topic-0, topic-1", 1),
            ("consumer2", _T, "topic-0, topic-2", 1),
            ("consumer3", _T, "", 1),
        ],
        {"consumer1": "topic-1", "consumer2": "topic-2", "consumer3": "topic-0"},
    ),
    (
        "testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer",
        _STICKY_T,
        "a doubly claimed partition goes to the member with room; the spare one to a keeper",
        {"topic": 4},
        [
            ("consumer1", _T, "topic-0, topic-1", 1),
            ("consumer2", _T, "topic-0, topic-2", 1),
            ("consumer3", _T, "", 1),
        ],
        {"consumer1": "topic-1, topic-3", "consumer2": "topic-2", "consumer3": "topic-0"},
    ),
    (
        "testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer",
        _COOP_T,
        "cooperative: the doubly claimed partition is withheld this round",
        {"topic": 3},
        [
            ("consumer1", _T, "topic-0, topic-1", 1),
            ("consumer2", _T, "topic-0, topic-2", 1),
            ("consumer3", _T, "", 1),
        ],
        {"consumer1": "topic-1", "consumer2": "topic-2", "consumer3": ""},
    ),
    (
        "testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer",
        _COOP_T,
        "cooperative: withheld as well with an unequal split",
        {"topic": 4},
        [
            ("consumer1", _T, "topic-0, topic-1", 1),
            ("consumer2", _T, "topic-0, topic-2", 1),
            ("consumer3", _T, "", 1),
        ],
        {"consumer1": "topic-1, topic-3", "consumer2": "topic-2", "consumer3": ""},
    ),
]


def sticky_cases() -> list[Case]:
    out = []
    for test, file, description, topics, rows, asserted in STICKY_UPSTREAM:
        on = {
            _ABSTRACT: ("sticky", "cooperative-sticky"),
            _STICKY_T: ("sticky",),
            _COOP_T: ("cooperative-sticky",),
        }
        for assignor in on[file]:
            members = tuple(
                sticky_member(
                    assignor,
                    mid,
                    subs,
                    sorted(parse_parts(owned), key=lambda tp: owned.index(f"{tp[0]}-{tp[1]}")),
                    gen,
                )
                for mid, subs, owned, gen in rows
            )
            case = _up(test, file, description, ClassicAssignorInput(assignor, members, topics), asserted)
            out.append(
                replace(
                    case,
                    settle=file == _ABSTRACT and assignor == "cooperative-sticky",
                    kafka_only=test in _MAP_ORDERED,
                )
            )
    # CooperativeStickyAssignorTest.testAssignorWithOldVersionSubscriptions: two members send
    # subscription version 1 (no generation field; the generation only in the user data).
    old = (
        *(
            ClassicMember(mid, ("topic1",), owned, None, None, None, (1).to_bytes(4, "big"))
            for mid, owned in (("consumer1", (("topic1", 0),)), ("consumer2", (("topic1", 1),)))
        ),
        ClassicMember("consumer3", ("topic1",), (), None, 1, None, (1).to_bytes(4, "big")),
    )
    out.append(
        _up(
            "testAssignorWithOldVersionSubscriptions",
            _COOP_T,
            "cooperative: a generation only in the user data still counts",
            ClassicAssignorInput("cooperative-sticky", old, {"topic1": 3}),
            {"consumer1": "topic1-0", "consumer2": "topic1-1", "consumer3": "topic1-2"},
        )
    )
    out += sticky_hand_cases()
    out += rack_upstream_cases()
    out += mixed_hand_cases()
    out += mixed_generated_cases()
    for i in range(40):
        rng = random.Random(2201 + i)
        assignor = ("sticky", "cooperative-sticky")[i % 2]
        messy = i % 4 >= 2
        g = random_sticky_group(rng, assignor, messy)
        out.append(
            Case(
                f"generated_sticky_s{2201 + i}",
                f"random {assignor} group" + (" with invalid claims" if messy else ""),
                {"kind": "generated", "seed": 2201 + i, "index": 0},
                g,
            )
        )
    return out


def sticky_hand_cases() -> list[Case]:
    """Corners where Kafka's bookkeeping and groupspec's rules part (docs/divergences.md)."""
    out = []
    for a in ("sticky", "cooperative-sticky"):
        m = functools.partial(sticky_member, a)
        t = ("t",)
        out.append(
            _hand(
                f"hand_{a}_owned_beyond_the_count",
                "a claim beyond the topic's count: Kafka's bookkeeping breaks, groupspec drops it",
                ClassicAssignorInput(a, (m("c1", t, [("t", 0), ("t", 5)], 1), m("c2", t, [], 1)), {"t": 3}),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_owned_twice_by_one_member",
                "a member listing a partition twice: Kafka keeps both copies, groupspec one",
                ClassicAssignorInput(a, (m("c1", t, [("t", 0), ("t", 0)], 1), m("c2", t, [], 1)), {"t": 4}),
            )
        )
        # Map order a, b, c: a and b tie in generation 1 (the partition is marked disputed), then c
        # claims it in generation 2: Kafka still treats it as disputed, groupspec gives it to c.
        out.append(
            _hand(
                f"hand_{a}_higher_generation_after_a_tie",
                "three claims of one partition, the highest generation last: the tie still voids it in Kafka",
                ClassicAssignorInput(
                    a,
                    (m("a", t, [("t", 0)], 1), m("b", t, [("t", 0)], 1), m("c", t, [("t", 0)], 2)),
                    {"t": 3},
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_empty_group",
                "no members: nothing to assign",
                ClassicAssignorInput(a, (), {"t": 3}),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_topic_without_partitions",
                "a subscribed topic with no partitions and a claim on it are left out",
                ClassicAssignorInput(
                    a, (m("c1", ("t", "u"), [("u", 0)], 1), m("c2", ("t", "u"), [], 1)), {"t": 3, "u": 0}
                ),
            )
        )
    # StickyAssignor reads claims from the user data only; the other claimant's generation,
    # though, from its subscription: here a (user data generation 5, no subscription
    # generation) loses t-0 to b (generation 3) in Kafka, since b is compared with -1.
    a_data = encode_sticky_user_data((("t", 0),), 5)
    out.append(
        _hand(
            "hand_sticky_rival_generation_from_the_subscription",
            "Sticky compares a claim with the other claimant's subscription generation, not its user data's",
            ClassicAssignorInput(
                "sticky",
                (
                    ClassicMember("a", ("t",), (("t", 0),), None, None, None, a_data),
                    sticky_member("sticky", "b", ("t",), [("t", 0)], 3),
                ),
                {"t": 2},
            ),
        )
    )
    out.append(
        _hand(
            "hand_sticky_claims_only_in_the_subscription",
            "Sticky ignores owned partitions sent without user data",
            ClassicAssignorInput(
                "sticky",
                (ClassicMember("a", ("t",), (("t", 1),), None, 1), ClassicMember("b", ("t",))),
                {"t": 2},
            ),
        )
    )
    # Generation 0 is a generation (Kafka treats only negative ones as absent); a claim with
    # no generation anywhere counts as -1, so two of those tie.
    t = ("t",)
    out.append(
        _hand(
            "hand_cooperative-sticky_generation_zero_beats_none",
            "generation 0 outranks a claim that carries no generation",
            ClassicAssignorInput(
                "cooperative-sticky",
                (ClassicMember("a", t, (("t", 0),), None, 0), ClassicMember("b", t, (("t", 0),))),
                {"t": 2},
            ),
        )
    )
    out.append(
        _hand(
            "hand_cooperative-sticky_two_claims_without_generation",
            "two claims without any generation tie at -1: the partition is disputed and withheld",
            ClassicAssignorInput(
                "cooperative-sticky",
                (
                    ClassicMember("a", t, (("t", 0),)),
                    ClassicMember("b", t, (("t", 0),)),
                    ClassicMember("c", t),
                ),
                {"t": 3},
            ),
        )
    )
    out.append(
        _hand(
            "hand_cooperative-sticky_unreadable_user_data",
            "user data too short for a generation reads as generation -1, tying a claim without one",
            ClassicAssignorInput(
                "cooperative-sticky",
                (
                    ClassicMember("a", t, (("t", 0),)),
                    ClassicMember("b", t, (("t", 0),), None, None, None, b"\x00\x00\x07"),
                ),
                {"t": 2},
            ),
        )
    )

    # CooperativeSticky reads a generation from the user data when the subscription has none;
    # Kafka reads the first four bytes as an int32 and ignores the rest.
    def by_user_data(name: str, description: str, rival: int | None, data: bytes) -> Case:
        return _hand(
            name,
            description,
            ClassicAssignorInput(
                "cooperative-sticky",
                (
                    ClassicMember("a", t, (("t", 1),), None, rival),
                    ClassicMember("b", t, (("t", 1),), None, None, None, data),
                    ClassicMember("c", t),
                ),
                {"t": 3},
            ),
        )

    out.append(
        by_user_data(
            "hand_cooperative-sticky_user_data_generation_outranks",
            "a generation only in the user data (5, trailing byte ignored) outranks a subscription's 3",
            3,
            (5).to_bytes(4, "big") + b"\x01",
        )
    )
    out.append(
        by_user_data(
            "hand_cooperative-sticky_user_data_generation_loses",
            "a generation only in the user data (5) loses to a subscription's 6",
            6,
            (5).to_bytes(4, "big") + b"\x01",
        )
    )
    out.append(
        by_user_data(
            "hand_cooperative-sticky_negative_user_data_generation",
            "a negative generation in the user data (-2) loses even to a claim without one",
            None,
            (-2).to_bytes(4, "big", signed=True),
        )
    )
    # A negative partition can only arrive in Sticky user data: groupspec drops it; Kafka keeps it,
    # and here its count leaves no member to take the partitions it did not keep.
    out.append(
        _hand(
            "hand_sticky_negative_partition_in_user_data",
            "a claim on partition -1 (user data only): dropped by groupspec, kept by Kafka until it throws",
            ClassicAssignorInput(
                "sticky",
                (
                    ClassicMember(
                        "c1",
                        t,
                        (),
                        None,
                        1,
                        None,
                        encode_sticky_user_data((("t", -1), ("t", 0), ("t", 1)), 1),
                    ),
                ),
                {"t": 2},
            ),
        )
    )
    v0 = encode_sticky_user_data((("t", 2),), None)
    out.append(
        _hand(
            "hand_sticky_two_version_0_claims",
            "two Sticky claims in version 0 user data (no generation) tie at -1",
            ClassicAssignorInput(
                "sticky",
                (
                    ClassicMember("a", t, (("t", 2),), None, None, None, v0),
                    ClassicMember("b", t, (("t", 2),), None, None, None, v0),
                    ClassicMember("c", t),
                ),
                {"t": 3},
            ),
        )
    )
    return out


def random_mixed_group(
    rng: random.Random, assignor: str, messy: bool, racks: bool, scale: int = 1
) -> ClassicAssignorInput:
    """Members with different subscriptions (Kafka's general builder), claims as in
    :func:`random_sticky_group`; ``racks`` puts members and replicas on racks a-c; ``scale``
    multiplies the largest partition count and member count."""
    topics = {f"topic-{k}": rng.randint(0, 6 * scale) for k in range(rng.randint(1, 4))}
    names = sorted(topics) + (["unknown"] if rng.random() < 0.2 else [])
    pool = [(t, p) for t, n in topics.items() for p in range(n + (2 if messy else 0))]
    free = list(pool)
    rng.shuffle(free)
    members = []
    for k in range(rng.randint(2, 7 * scale)):
        subscribed = rng.sample(names, rng.randint(0 if messy else 1, len(names)))
        take = rng.randint(0, 4)
        if messy:
            owned = [rng.choice(pool) for _ in range(take)] if pool else []
        else:
            owned, free = free[:take], free[take:]
        generation = rng.choice((None, 1, 2, 3)) if owned or rng.random() < 0.5 else None
        member = sticky_member(assignor, f"member-{k}-{rng.randint(0, 999)}", subscribed, owned, generation)
        if racks and rng.random() < 0.8:
            member = replace(member, rack_id=rng.choice("abc"))
        members.append(member)
    replica = (
        {
            t: tuple(frozenset(rng.sample("abc", rng.randint(0, 2))) for _ in range(n))
            for t, n in topics.items()
        }
        if racks
        else {}
    )
    return ClassicAssignorInput(assignor, tuple(members), topics, replica)


# ---------------------------------------------------------------------------------------------
# Different subscriptions and racks (Kafka's general builder, rack-aware sticky)
# ---------------------------------------------------------------------------------------------

_RACK_TOPICS = {"t1": 6, "t2": 7, "t3": 2}
_ALL3 = ("t1", "t2", "t3")
_NON_RACK_AWARE_NON_EQUAL = (
    "t1-5, t2-0, t2-2, t2-4, t2-6",
    "t1-3, t2-1, t2-3, t2-5, t3-0",
    "t1-0, t1-1, t1-2, t1-4, t3-1",
)
_NON_RACK_AWARE_UNIFORM = (
    "t1-0, t1-3, t2-0, t2-3, t2-6",
    "t1-1, t1-4, t2-1, t2-4, t3-0",
    "t1-2, t1-5, t2-2, t2-5, t3-1",
)
_RF1_NON_EQUAL = (
    "t1-3, t2-0, t2-2, t2-3, t2-6",
    "t1-4, t2-1, t2-4, t2-5, t3-0",
    "t1-0, t1-1, t1-2, t1-5, t3-1",
)
_MISALIGNED_OWNED = (
    "t1-0, t1-1, t1-2, t1-3, t1-4",
    "t1-5, t2-0, t2-1, t2-2, t2-3",
    "t2-4, t2-5, t2-6, t3-0, t3-1",
)


def _rack_group(
    assignor: str,
    replication: int,
    brokers: Sequence[str | None],
    consumer_racks: Sequence[str | None],
    subscriptions: Sequence[Sequence[str]],
    owned: Sequence[str] | None,
) -> ClassicAssignorInput:
    """AbstractPartitionAssignorTest.verifyRackAssignment's group: consumer0.. with the given
    racks and topics, owned partitions in the subscription only (no generation, no user data:
    StickyAssignor, which reads only user data, sees no claims), replicas laid out by
    ``broker_racks``."""
    from tests.scenarios.classic_assignors.cases import broker_racks

    members = tuple(
        ClassicMember(
            f"consumer{i}",
            tuple(subscriptions[i]),
            tuple(sorted(parse_parts(owned[i]))) if owned else (),
            None,
            None,
            consumer_racks[i],
        )
        for i in range(len(consumer_racks))
    )
    return ClassicAssignorInput(
        assignor, members, dict(_RACK_TOPICS), broker_racks(_RACK_TOPICS, replication, brokers, True)
    )


_NONE3: tuple[str | None, ...] = (None, None, None)
_ABC = ("a", "b", "c")


def rack_upstream_cases() -> list[Case]:
    """testRackAwareAssignmentWithNonEqualSubscription and ...WithUniformSubscription, the calls
    made with the test-only ``preferRackAwareLogic`` off (production's behaviour); each
    verifyUniform/NonEqualSubscription call runs twice, without and then with the expected
    answer as owned partitions."""
    out = []
    for assignor in ("sticky", "cooperative-sticky"):
        for test, subs, plain in (
            (
                "testRackAwareAssignmentWithNonEqualSubscription",
                (_ALL3, _ALL3, ("t1", "t3")),
                _NON_RACK_AWARE_NON_EQUAL,
            ),
            (
                "testRackAwareAssignmentWithUniformSubscription",
                (_ALL3, _ALL3, _ALL3),
                _NON_RACK_AWARE_UNIFORM,
            ),
        ):
            uniform = plain is _NON_RACK_AWARE_UNIFORM
            variants: list[tuple[str, int, Sequence[str | None], Sequence[str | None], Sequence[str]]] = [
                ("brokers_without_racks", 3, _NONE3, _ABC, plain),
                ("consumers_without_racks", 3, _ABC, _NONE3, plain),
                ("every_rack_has_every_partition", 3, _ABC, _ABC, plain),
                ("consumer_racks_without_replicas", 3, _ABC, ("d", "e", "f"), plain),
                ("one_consumer_without_a_rack", 3, _ABC, (None, "e", "f"), plain),
                ("replication_1", 1, _ABC, _ABC, _NON_RACK_AWARE_UNIFORM if uniform else _RF1_NON_EQUAL),
                (
                    "replication_2",
                    2,
                    _ABC,
                    _ABC,
                    _NON_RACK_AWARE_UNIFORM
                    if uniform
                    else (
                        "t1-3, t2-0, t2-2, t2-5, t2-6",
                        "t1-0, t2-1, t2-3, t2-4, t3-0",
                        "t1-1, t1-2, t1-4, t1-5, t3-1",
                    ),
                ),
                ("a_consumer_rack_without_replicas", 3, ("a", "b"), _ABC, plain),
            ]
            for suffix, rf, brokers, racks, expected in variants:
                for owned_suffix, owned in (("", None), ("_owning_it", expected)):
                    g = _rack_group(assignor, rf, brokers, racks, subs, owned)
                    out.append(
                        replace(
                            _up(
                                test,
                                _ABSTRACT,
                                f"racks: {suffix.replace('_', ' ')}"
                                + (", owning the answer" if owned else ""),
                                g,
                                {f"consumer{i}": e for i, e in enumerate(expected)},
                                f"_{suffix}{owned_suffix}",
                            ),
                            kafka_only=not sticky_plain(g),
                        )
                    )
        # Owned partitions on the wrong racks (replication 1): Sticky sees no claims (they are
        # not in its user data); CooperativeSticky gives up the misaligned ones first.
        if assignor == "sticky":
            steps = [("misaligned_owned", _MISALIGNED_OWNED, _RF1_NON_EQUAL)]
        else:
            middle = ("t1-3", "t2-1", "t3-1")
            steps = [
                ("misaligned_owned", _MISALIGNED_OWNED, middle),
                ("misaligned_owned_next_round", middle, _RF1_NON_EQUAL),
            ]
        for suffix, owned, expected in steps:
            g = _rack_group(assignor, 1, _ABC, _ABC, (_ALL3, _ALL3, ("t1", "t3")), owned)
            out.append(
                replace(
                    _up(
                        "testRackAwareAssignmentWithNonEqualSubscription",
                        _ABSTRACT,
                        f"racks: {suffix.replace('_', ' ')}",
                        g,
                        {f"consumer{i}": e for i, e in enumerate(expected)},
                        f"_{suffix}",
                    ),
                    kafka_only=not sticky_plain(g),
                )
            )
        # testMultipleConsumersMixedTopicSubscriptions (without racks).
        members = (
            sticky_member(assignor, "consumer1", ("topic1",)),
            sticky_member(assignor, "consumer2", ("topic1", "topic2")),
            sticky_member(assignor, "consumer3", ("topic1",)),
        )
        out.append(
            replace(
                _up(
                    "testMultipleConsumersMixedTopicSubscriptions",
                    _ABSTRACT,
                    "the member alone on topic2 takes it all, the others share topic1",
                    ClassicAssignorInput(assignor, members, {"topic1": 3, "topic2": 2}),
                    {
                        "consumer1": "topic1-0, topic1-2",
                        "consumer2": "topic2-0, topic2-1",
                        "consumer3": "topic1-1",
                    },
                ),
                kafka_only=True,
            )
        )
        # testSubscriptionNotEqualAndAssignSamePartitionWith3Generation: topic-2 claimed in three
        # generations; upstream asserts only no partition twice and 1 or 2 per member.
        for k, gens in enumerate(((1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1))):
            rows = (
                ("consumer1", ("topic",), [("topic", 0), ("topic", 2)], gens[0]),
                ("consumer2", ("topic",), [("topic", 1), ("topic", 2), ("topic", 3)], gens[1]),
                ("consumer3", ("topic",), [("topic", 2), ("topic", 4), ("topic", 5)], gens[2]),
                ("consumer4", ("topic1",), [("topic1", 0)], 2),
            )
            out.append(
                _up(
                    "testSubscriptionNotEqualAndAssignSamePartitionWith3Generation",
                    _ABSTRACT,
                    f"one partition claimed in generations {gens}, a fourth member on another topic",
                    ClassicAssignorInput(
                        assignor,
                        tuple(sticky_member(assignor, *row) for row in rows),
                        {"topic": 6, "topic1": 1},
                    ),
                    None,
                    f"_{k}",
                )
            )
    return out


def mixed_hand_cases() -> list[Case]:
    """Corners of the general builder where Kafka and groupspec part (docs/divergences.md)."""
    out = []
    for a in ("sticky", "cooperative-sticky"):
        m = functools.partial(sticky_member, a)
        # b claimed u-0 in an older generation and now subscribes to t only: Kafka's hand-back to
        # the older owner gives it u-0 anyway.
        out.append(
            _hand(
                f"hand_{a}_older_owner_no_longer_subscribed",
                "a partition handed back to its older-generation owner, no longer subscribed to its topic",
                ClassicAssignorInput(
                    a,
                    (
                        m("a", ("t", "u"), [("u", 0), ("u", 1), ("u", 2), ("t", 0)], 3),
                        m("b", ("t",), [("u", 0)], 1),
                        m("c", ("t", "u"), [], 3),
                    ),
                    {"t": 2, "u": 4},
                ),
            )
        )
        # Kafka compares each subscription with the first non-empty one it meets: a member
        # subscribed to nothing that comes first in map order is overlooked.
        out.append(
            _hand(
                f"hand_{a}_empty_subscription_first",
                "a member subscribed to nothing, first in Kafka's map: the constrained builder serves it",
                ClassicAssignorInput(a, (m("c0", ()), m("c1", ("t",))), {"t": 4}),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_mixed_claim_beyond_the_count",
                "different subscriptions and a claim beyond the count: Kafka's merge walk stalls",
                ClassicAssignorInput(
                    a,
                    (m("c1", ("t", "u"), [("t", 5), ("t", 0)], 1), m("c2", ("t",), [], 1)),
                    {"t": 3, "u": 1},
                ),
            )
        )
        # m's claims beyond t's one partition put it over its maximum (1), yet t has a second
        # subscriber, so m is not set aside; Kafka's balance check skips only a member at exactly
        # its maximum, so it scans m, finds t-0 with h, two above m, and moves t-0 to m.
        out.append(
            _hand(
                f"hand_{a}_over_its_maximum_still_scanned",
                "a member over its maximum (claims beyond the count) is scanned by the balance check",
                ClassicAssignorInput(
                    a,
                    (
                        m("m", ("t",), [("t", 1), ("t", 2), ("t", 3)], 1),
                        m("h", ("t", "u"), [("t", 0), ("u", 0), ("u", 1), ("u", 2), ("u", 3)], 1),
                    ),
                    {"t": 1, "u": 4},
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_lone_subscribers",
                "every topic has one subscriber: nothing can move",
                ClassicAssignorInput(
                    a, (m("c1", ("t",), [("t", 1)], 2), m("c2", ("u",), [], 2)), {"t": 3, "u": 2}
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_stale_claim_moves_back",
                "an older generation's claim pulls a partition back to a member that has two fewer",
                ClassicAssignorInput(
                    a,
                    (
                        m("c1", ("t", "u"), [("t", 0), ("t", 1), ("t", 2), ("t", 3)], 5),
                        m("c2", ("t", "u"), [("t", 0)], 4),
                        m("c3", ("u",), [("u", 0)], 5),
                    ),
                    {"t": 4, "u": 2},
                ),
            )
        )
        # b claimed t-0 in an older generation and subscribes to nothing, so the balancing sets
        # it aside; with racks in play the hand-back still reads its size (Kafka throws
        # NullPointerException on claims that are otherwise clean).
        out.append(
            _hand(
                f"hand_{a}_older_owner_subscribed_to_nothing_with_racks",
                "an older-generation claimant subscribed to nothing, in a rack-aware group",
                ClassicAssignorInput(
                    a,
                    (m("a", ("t",)), m("b", (), [("t", 0)], 0), replace(m("c", ("t",), [], 1), rack_id="r1")),
                    {"t": 4},
                    {"t": (frozenset(), frozenset(), frozenset(), frozenset({"r1"}))},
                ),
            )
        )
    out += _older_claim_cases()
    out += _set_aside_subscriber_cases()
    out += _moved_on_cases()
    return out


def _set_aside_subscriber_cases() -> list[Case]:
    """A member whose claims beyond t's one partition put it over its maximum holds only t, so
    Kafka's general builder sets it aside, yet it still subscribes to u and comes first among
    u's subscribers. Whether the builder reads its size (NullPointerException) depends on the
    racks: a lighter subscriber on the partition's racks is asked first and answers before
    it is reached; with none, the read throws."""
    out = []
    ab, a_, b_ = frozenset("ab"), frozenset("a"), frozenset("b")
    shapes = (
        (
            "a_lighter_subscriber_on_its_racks",
            "a lighter one three behind on u-0's racks",
            {"t": (a_,), "u": (ab, a_, a_)},
        ),
        (
            "two_behind_on_its_racks",
            "a lighter one exactly two behind on u-0's racks",
            {"t": (a_,), "u": (ab, a_)},
        ),
        (
            "none_lighter_on_its_racks",
            "no lighter one on u's racks, so its size is read",
            {"t": (b_,), "u": (a_, a_, a_)},
        ),
    )
    for a in ("sticky", "cooperative-sticky"):
        m = functools.partial(sticky_member, a)
        for name, what, replicas in shapes:
            members = (
                m("a", ("t", "u"), [("t", p) for p in range(5)], 1),
                replace(m("b", ("u",)), rack_id="a"),
                replace(m("c", ("u",)), rack_id="b"),
            )
            out.append(
                _hand(
                    f"hand_{a}_set_aside_subscriber_{name}",
                    f"a subscriber set aside over its maximum comes first; {what}",
                    ClassicAssignorInput(a, members, {"t": 1, "u": len(replicas["u"])}, replicas),
                )
            )
    # The holder off the partition's racks: s is set aside as above; l (rack a) is dealt u's four
    # partitions (all on a), then hands u-0 back to h (rack b) and the rest to g (rack c), its
    # older owners, which leaves h two above l. When the next pass asks whether u-0 may move on,
    # h is not on u-0's racks, so Kafka skips the subscribers on them and reads s's size first.
    for a in ("sticky", "cooperative-sticky"):
        m = functools.partial(sticky_member, a)
        off_rack = (
            m("s", ("t", "u"), [("t", p) for p in range(10)], 2),
            replace(m("h", ("a_h", "u"), [("u", 0)], 1), rack_id="b"),
            replace(m("l", ("a_l", "u"), [("a_l", p) for p in range(3)], 2), rack_id="a"),
            replace(m("g", ("u",), [("u", 1), ("u", 2), ("u", 3)], 1), rack_id="c"),
        )
        replicas = {"t": (a_,), "u": (a_,) * 4, "a_h": (b_,) * 5, "a_l": (a_,) * 3}
        out.append(
            _hand(
                f"hand_{a}_set_aside_subscriber_holder_off_the_racks",
                "a subscriber set aside over its maximum comes first; the holder is off the partition racks",
                ClassicAssignorInput(a, off_rack, {"t": 1, "u": 4, "a_h": 5, "a_l": 3}, replicas),
            )
        )
    return out


def _moved_on_cases() -> list[Case]:
    """A partition moved on to a third member keeps its first source in Kafka's
    PartitionMovements: t-0 goes m3 -> m1 -> m4, recorded as moved m3 -> m4; when t-1 (moved
    m4 -> m1) is then asked to go to m3, Kafka looks for a partition moved m3 -> m4 and sends
    t-0 from m4 back to m3 instead, so m3 ends with t-0 and m1 keeps t-1 (found by a search for
    groups that read such a record)."""
    out = []
    for a in ("sticky", "cooperative-sticky"):
        m = functools.partial(sticky_member, a)
        u = [("u", p) for p in range(7)]
        pn = [("pn", p) for p in range(4)]
        members = (
            m("m1", ("u", "t")),
            m("m5", ("u", "px"), u + [("px", p) for p in range(5)], 3),
            m("m2", ("v", "py"), [("v", 0)], 2),
            m("m3", ("t", "pn", "v"), [("t", 0), ("t", 2), ("t", 3), *pn, ("v", 0)], 3),
            m("m4", ("t", "ps"), [("t", 1), ("ps", 0), ("ps", 1), ("ps", 2)], 3),
            m("m6", ("u", "ph"), [("t", 1)] + [tp for tp in u if tp != ("u", 5)], 1),
        )
        topics = {"pn": 4, "ps": 3, "ph": 3, "px": 5, "py": 2, "t": 4, "u": 7, "v": 1}
        out.append(
            _hand(
                f"hand_{a}_partition_moved_on_keeps_its_first_source",
                "a partition moved on to a third member: Kafka's record keeps where it first came from",
                ClassicAssignorInput(a, members, topics),
            )
        )
    return out


def _older_claim_cases() -> list[Case]:
    """Which older claim Kafka's general builder hands a partition back to (its
    prepopulateCurrentAssignments): the claims below the highest generation, a claim without a
    generation counting as -1 once some member has one, the first claimant keeping a tie. In
    each group c (or a1) holds t1 whole and the older claimants differ in load, so the
    hand-back's target shows in the answer."""
    out = []
    full = [("t1", 0), ("t1", 1), ("t1", 2), ("t1", 3)]
    topics = {"t1": 4, "t2": 1}
    for a in ("sticky", "cooperative-sticky"):
        m = functools.partial(sticky_member, a)
        out.append(
            _hand(
                f"hand_{a}_older_claim_without_generation_below_generation_0",
                "t1-0 claimed without a generation (-1) and at generation 0: handed back to the later",
                ClassicAssignorInput(
                    a,
                    (
                        m("a", ("t1", "t2"), [("t1", 0)]),
                        m("b", ("t1",), [("t1", 0)], 0),
                        m("c", ("t1",), full, 1),
                    ),
                    topics,
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_older_claim_without_generation_under_generation_0",
                "the highest generation is 0: a claim without one is still older (-1) and pulls t1-0 back",
                ClassicAssignorInput(
                    a, (m("a", ("t1", "t2"), [("t1", 0)]), m("b", ("t1",)), m("c", ("t1",), full, 0)), topics
                ),
            )
        )
        out.append(
            _hand(
                f"hand_{a}_older_claims_tie",
                "two claims of t1-0 at the same older generation: the first in map order keeps it",
                ClassicAssignorInput(
                    a,
                    (
                        m("a", ("t1", "t2"), [("t1", 0)], 0),
                        m("b", ("t1",), [("t1", 0)], 0),
                        m("c", ("t1",), full, 1),
                    ),
                    topics,
                ),
            )
        )
    s = functools.partial(sticky_member, "sticky")
    out.append(
        _hand(
            "hand_sticky_user_data_generation_minus_1_after_none",
            "user data at generation -1 after a claim without one: both -1, the first keeps t1-0",
            ClassicAssignorInput(
                "sticky",
                (
                    s("a", ("t1", "t2"), [("t1", 0)]),
                    s("b", ("t1",), [("t1", 0)], -1),
                    s("c", ("t1",), full, 1),
                ),
                topics,
            ),
        )
    )
    # Generation -2 (a user data field Kafka reads as is) is below the default -1 the highest
    # generation starts from, so a1, whose claims carry no generation, counts as newer.
    out.append(
        _hand(
            "hand_sticky_user_data_generation_minus_2",
            "a claim at generation -2 is older than claims without one: t1-0 goes back to c1",
            ClassicAssignorInput(
                "sticky",
                (s("a1", ("t1",), full), s("b1", ("t1",)), s("c1", ("t1", "t2"), [("t1", 0)], -2)),
                topics,
            ),
        )
    )
    c = functools.partial(sticky_member, "cooperative-sticky")
    out.append(
        _hand(
            "hand_cooperative-sticky_user_data_generation_minus_2",
            "no subscription generation, -2 in the user data: older than none, t1-0 back to c1",
            ClassicAssignorInput(
                "cooperative-sticky",
                (
                    c("a1", ("t1",), full),
                    c("b1", ("t1",)),
                    replace(
                        c("c1", ("t1", "t2"), [("t1", 0)]), user_data=(-2).to_bytes(4, "big", signed=True)
                    ),
                ),
                topics,
            ),
        )
    )
    return out


def mixed_generated_cases() -> list[Case]:
    out = []
    for i in range(48):
        seed = 2301 + i
        rng = random.Random(seed)
        assignor = ("sticky", "cooperative-sticky")[i % 2]
        messy, racks = i % 4 >= 2, i % 3 == 0
        g = (
            random_mixed_group(rng, assignor, messy, racks)
            if i % 8
            else random_sticky_group(rng, assignor, messy, True)
        )
        what = "different subscriptions" if i % 8 else "one subscription, racks"
        out.append(
            Case(
                f"generated_sticky_mixed_s{seed}",
                f"random {assignor} group, {what}"
                + (", racks" if racks and i % 8 else "")
                + (", invalid claims" if messy else ""),
                {"kind": "generated", "seed": seed, "index": 0},
                g,
            )
        )
    for i in range(60):
        seed = 2401 + i
        assignor = ("sticky", "cooperative-sticky")[i % 2]
        racks = i % 3 == 0
        g = living_mixed_group(random.Random(seed), assignor, racks, 1 + i % 3)
        out.append(
            Case(
                f"generated_sticky_living_s{seed}",
                f"random {assignor} group some rebalances on" + (", racks" if racks else ""),
                {"kind": "generated", "seed": seed, "index": 0},
                g,
            )
        )
    # Seeds found by a search for groups whose rebalance moves one partition twice and hands a
    # moved partition back along its reverse pair (PartitionMovements' bookkeeping by topic); 6984
    # picks from two such partitions, in the hash set's order.
    for seed, scale in ((3184, 2), (3266, 3), (6984, 2)):
        assignor = ("sticky", "cooperative-sticky")[seed % 2]
        g = living_mixed_group(random.Random(seed), assignor, seed % 3 == 0, scale)
        out.append(
            Case(
                f"generated_sticky_living_s{seed}",
                f"random {assignor} group some rebalances on, a partition moved twice",
                {"kind": "generated", "seed": seed, "index": 0},
                g,
            )
        )
    # Seeds found by a search for groups that tell the builders apart from small changes to
    # them (tests/quality: the mutation pass of the sticky assignors): the general builder's
    # older claims on a tie, a partition moved twice back to its source, a hand-back before the
    # pass over all partitions, a member over its maximum, the balance check's margin, the hash
    # set's order among two partitions to hand back, the record of a partition moved on to a
    # third member; rack-aware dealing to members at the minimum; members whose racks hold no
    # replica.
    for kind, seed in _SEARCHED:
        out.append(
            Case(
                f"generated_sticky_{kind}_s{seed}",
                f"random group found by the mutation search ({kind.replace('_', ' ')})",
                {"kind": "generated", "seed": seed, "index": 0},
                searched_group(kind, seed),
            )
        )
    return out


_SEARCHED = (
    ("living", 100032),
    ("living", 100128),
    ("one_subscription_racks", 100050),
    ("one_subscription_racks", 100070),
    ("one_subscription_racks", 100074),
    ("mixed", 100161),
    ("mixed", 100169),
    ("mixed", 100309),
    ("mixed", 100565),
    ("mixed", 100929),
    ("living_racks", 100407),
    ("living_moved", 614288),
    ("living_moved", 710528),
    ("living_moved", 723164),
)


def searched_group(kind: str, seed: int) -> ClassicAssignorInput:
    """The group the mutation search drew for ``seed``: the assignor alternates with the seed,
    and racks, invalid claims and scale follow from it as the search drew them."""
    assignor = ("sticky", "cooperative-sticky")[seed % 2]
    rng = random.Random(seed)
    if kind == "living":
        return living_mixed_group(rng, assignor, seed % 3 == 0, 1 + seed % 3)
    if kind == "living_racks":
        return living_mixed_group(rng, assignor, True, 2)
    if kind == "living_moved":
        return living_mixed_group(rng, assignor, seed % 4 == 0, 1 + seed % 3)
    if kind == "mixed":
        return random_mixed_group(rng, assignor, seed % 5 == 0, seed % 3 == 0, 1 + seed % 3)
    return random_sticky_group(rng, assignor, seed % 5 == 0, True)


def living_mixed_group(rng: random.Random, assignor: str, racks: bool, scale: int) -> ClassicAssignorInput:
    """A group with different subscriptions some rebalances on: each round every member reports
    what Kafka's assignor gave it, then a member joins, leaves, changes its subscription, or comes
    back with the claim of an older generation -- the moves Kafka's general builder makes when
    it rebalances a group that already has owners (partition movements, hand-backs, reverts)."""
    from groupspec.impl.classic_assignors import assign

    group = random_mixed_group(rng, assignor, False, racks, scale)
    names = sorted(group.topics)
    stale: ClassicMember | None = None
    for generation in range(2, 2 + rng.randint(1, 4)):
        try:
            answer = assign(group, compat="kafka")
        except PartitionAssignorError:
            return group
        group = next_round(group, answer, generation)
        step = rng.choice(("join", "leave", "resubscribe", "stale"))
        members = list(group.members)
        if step == "join" or len(members) < 3:
            subs = tuple(rng.sample(names, rng.randint(1, len(names))))
            rack = rng.choice("abc") if racks else None
            members.append(replace(sticky_member(assignor, f"joined-{generation}", subs), rack_id=rack))
        elif step == "leave":
            gone = members.pop(rng.randrange(len(members)))
            stale = stale or gone
        elif step == "resubscribe":
            k = rng.randrange(len(members))
            subs = tuple(rng.sample(names, rng.randint(1, len(names))))
            members[k] = replace(
                sticky_member(assignor, members[k].member_id, subs, members[k].owned_partitions, generation),
                rack_id=members[k].rack_id,
            )
        elif stale is not None and all(m.member_id != stale.member_id for m in members):
            members.append(stale)
        group = replace(group, members=tuple(members))
    return group

"""The SimpleAssignor cases the conformance vectors are generated from.

Each :class:`Case` is a group and where it comes from; the expectations are NOT written here.
groupspec/conformance/generate.py computes them from the spec (and from the Kafka-compatible
mode of the implementation), so a case can never state an answer the spec does not give.

Sources, in the order the vectors list them:

* ``seed``: the worked examples of seed 000 (section 5-2-1-2 and its summary near line 2077):
  3 members on 7 partitions, 6 on 4, 7 on 3.
* ``upstream``: Kafka's SimpleAssignorTest (apache/kafka trunk, 4.2.0-SNAPSHOT). The upstream
  test uses random topic ids; here they are fixed, so Kafka's answer is known exactly. Tests
  that assert a whole assignment are exact vectors; tests that only count assigned partitions
  are property-only. The incremental tests are sampled at a few group sizes, with previous
  targets produced the way the test produces them (Kafka's own answers, here the Kafka mode).
* ``divergence``: every case of cases/assignor_divergences.py (when that module is present).
* ``hand-made``: edge cases.
* ``observed``: a few groups from tests/data/kafka_simple_assignor*_observed.jsonl, whose
  answers were observed by running Kafka 4.2's own SimpleAssignor classes; the tree-bin ones
  make java.util.HashMap tree bins, which decide Kafka's answer there. Picked because together
  they run the most of the implementation's code the other cases leave unrun (issue 17).
* ``generated``: ``groupspec.generate.cases`` with small sizes (exact) and larger ones
  (property-only).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from groupspec.types import AssignorInput, GroupAssignment, MemberSpec

MACHINE = "simple_assignor"
HANDLER = "assign"

UPSTREAM_TEST = ("group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/"
                 "SimpleAssignorTest.java")
SEED = "seeds/000_f58efeefa0b8fa89.txt"

#: (seed, count, max members, max partitions, mode) of the generated cases.
GENERATED = ((42, 90, 12, 24, "exact"), (4242, 12, 250, 500, "properties"))


@dataclass(frozen=True)
class Case:
    """One group to put in a vector, with its provenance."""

    name: str
    description: str
    source: Mapping[str, Any]
    group: AssignorInput
    mode: str = "exact"  # or "properties"
    notes: Mapping[str, Any] = field(default_factory=dict)


Members = Sequence[tuple[str, Sequence[str], Mapping[str, Sequence[int]]]]


def group(members: Members, topics: Mapping[str, int],
          topic_ids: Mapping[str, str] | None = None,
          assignable: Mapping[str, Sequence[int]] | None = None) -> AssignorInput:
    """A group from plain lists: (member id, subscribed names, previous target)."""
    return AssignorInput(
        members=tuple(MemberSpec(m, tuple(subs), {t: frozenset(ps) for t, ps in prev.items()})
                      for m, subs, prev in members),
        topics=dict(topics),
        topic_ids=dict(topic_ids or {}),
        assignable=None if assignable is None else {t: frozenset(p) for t, p in
                                                    assignable.items()},
    )


# ---------------------------------------------------------------------------------------------
# Seed 000
# ---------------------------------------------------------------------------------------------


def _seed(name: str, n_members: int, n_partitions: int, text: str, where: str) -> Case:
    members: Members = [(f"M{i}", ["topic1"], {}) for i in range(1, n_members + 1)]
    return Case(name, text, {"kind": "seed", "file": SEED, "where": where},
                group(members, {"topic1": n_partitions}))


def seed_cases() -> list[Case]:
    return [
        _seed("seed_3_members_7_partitions", 3, 7,
              "3 members, 7 partitions: fewer members than partitions, so nobody shares "
              "(sharing 1) and the counts are 3, 2, 2.", "section 5-2-1-2, example 1"),
        _seed("seed_6_members_4_partitions", 6, 4,
              "6 members, 4 partitions: sharing ceil(6/4) = 2; members 1 and 4 hold 2 "
              "partitions, members 2, 3, 5 and 6 hold 1.", "section 5-2-1-2, example 2"),
        _seed("seed_7_members_3_partitions", 7, 3,
              "7 members, 3 partitions: every partition shared by 3 members; 2 members hold 2 "
              "partitions and 5 hold 1.", "summary of the share-group assignment, near line 2077"),
    ]


# ---------------------------------------------------------------------------------------------
# Kafka's SimpleAssignorTest
# ---------------------------------------------------------------------------------------------

#: Fixed stand-ins for the test's Uuid.randomUuid() topic ids.
UPSTREAM_IDS = {f"topic{k}": f"5a3e0c1e-0000-4000-8000-00000000000{k}" for k in range(1, 5)}


def _up(test: str, description: str, members: Members, topics: Mapping[str, int],
        mode: str = "exact", assignable: Mapping[str, Sequence[int]] | None = None,
        name: str | None = None, **notes: Any) -> Case:
    ids = {t: UPSTREAM_IDS[t] for t in topics}
    return Case(name or f"upstream_{_snake(test)}", description,
                {"kind": "upstream", "file": UPSTREAM_TEST, "test": test, **notes},
                group(members, topics, ids, assignable), mode)


def _snake(test: str) -> str:
    name = test.removeprefix("test")
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def upstream_cases(kafka_assign: Callable[[AssignorInput], GroupAssignment]) -> list[Case]:
    """SimpleAssignorTest's cases; ``kafka_assign`` builds the incremental tests' previous
    targets, as the test does with the assignor under test."""
    t13 = {"topic1": 3, "topic3": 2}
    hetero = {"topic1": 3, "topic2": 3, "topic3": 2}
    a_b_c: Members = [("A", ["topic1", "topic2"], {}), ("B", ["topic3"], {}),
             ("C", ["topic2", "topic3"], {})]
    cases = [
        _up("testAssignWithEmptyMembers", "No members: the assignment is empty.", [], {}),
        _up("testAssignWithNoSubscribedTopic",
            "One member subscribed to nothing gets nothing.", [("A", [], {})], {"topic1": 3}),
        _up("testAssignWithSubscribedToNonExistentTopic",
            "A member subscribed to a topic the metadata does not have. Upstream passes a raw "
            "topic id and expects PartitionAssignorException; through the coordinator (and in "
            "this vector) the subscription is a topic NAME, which TopicIds silently drops, so "
            "the member gets nothing.", [("A", ["topic2"], {})], {"topic1": 3},
            adapted="subscription by unknown name instead of unknown raw topic id"),
        _up("testAssignWithTwoMembersAndTwoTopicsHomogeneous",
            "Two members share two topics (3 + 2 partitions); upstream checks all 5 are "
            "assigned.", [("A", ["topic1", "topic3"], {}), ("B", ["topic1", "topic3"], {})],
            t13, "properties"),
        _up("testAssignWithTwoMembersAndTwoTopicsHomogeneousWithAllowedMap",
            "As above with topic3 partition 2 not assignable; upstream checks 5 are assigned.",
            [("A", ["topic1", "topic3"], {}), ("B", ["topic1", "topic3"], {})],
            {"topic1": 3, "topic3": 3}, "properties", {"topic1": [0, 1, 2], "topic3": [0, 1]}),
        _up("testAssignWithTwoMembersAndTwoTopicsHomogeneousWithNonAssignableTopic",
            "topic3 has no assignable partition; upstream checks topic1's 3 are assigned.",
            [("A", ["topic1", "topic3"], {}), ("B", ["topic1", "topic3"], {})],
            t13, "properties", {"topic1": [0, 1, 2]}),
        _up("testAssignWithThreeMembersThreeTopicsHeterogeneous",
            "A {topic1, topic2}, B {topic3}, C {topic2, topic3}; upstream checks all 8 "
            "partitions are assigned.", a_b_c, hetero, "properties"),
        _up("testAssignWithThreeMembersThreeTopicsHeterogeneousWithAllowedMap",
            "As above with some partitions of each topic not assignable; upstream checks the 5 "
            "assignable ones are assigned.", a_b_c, hetero, "properties",
            {"topic1": [0, 1], "topic2": [0, 2], "topic3": [1]}),
        _up("testAssignWithThreeMembersThreeTopicsHeterogeneousWithNonAssignableTopic",
            "topic3 is not assignable: B gets nothing, A takes topic1 and shares topic2 with C "
            "(A 0 and 2, C 1).", a_b_c, hetero, "exact",
            {"topic1": [0, 1, 2], "topic2": [0, 1, 2]}),
        _up("testAssignWithOneMemberNoAssignedTopicHeterogeneous",
            "A subscribes to both topics and gets every partition; B subscribes to nothing.",
            [("A", ["topic1", "topic2"], {}), ("B", [], {})], {"topic1": 3, "topic2": 2}),
        _up("testAssignWithCurrentAssignmentHeterogeneous",
            "First round: A {topic1, topic2}, B {topic3}, C {topic2, topic3}, all new; upstream "
            "checks all 8 partitions are assigned.", a_b_c, hetero, "properties",
            name="upstream_assign_with_current_assignment_heterogeneous_round_1"),
        _up("testAssignWithCurrentAssignmentHeterogeneous",
            "Second round: A now {topic1, topic2, topic3} holding topic1 0-2 and topic2 0 and 2, "
            "B {topic3, topic4} holding topic3 0-1, topic4 new; upstream checks all 9 "
            "partitions are assigned.",
            [("A", ["topic1", "topic2", "topic3"], {"topic1": [0, 1, 2], "topic2": [0, 2]}),
             ("B", ["topic3", "topic4"], {"topic3": [0, 1]})],
            {**hetero, "topic4": 1}, "properties",
            name="upstream_assign_with_current_assignment_heterogeneous_round_2"),
    ]
    cases += _incremental(kafka_assign)
    return cases


_INCREASING_SIZES = (1, 2, 24, 25, 49, 101)
_DECREASING_SIZES = (100, 49, 25, 24, 2, 1)
_HETERO_SUBSCRIPTIONS = (("topic1", "topic2", "topic3"), ("topic2",), ("topic3",),
                         ("topic1", "topic2"))


def _incremental(kafka_assign: Callable[[AssignorInput], GroupAssignment]) -> list[Case]:
    """The four incremental tests (24 partitions, up to 101 members), at a few sizes each."""
    homo_topics = {"topic1": 24}
    het_topics = {"topic1": 12, "topic2": 8, "topic3": 4}
    ids = {t: UPSTREAM_IDS[t] for t in ("topic1", "topic2", "topic3")}

    def subs(heterogeneous: bool, m: int) -> tuple[str, ...]:
        return _HETERO_SUBSCRIPTIONS[m % 4] if heterogeneous else ("topic1",)

    out: list[Case] = []
    for heterogeneous in (False, True):
        topics = het_topics if heterogeneous else homo_topics
        kind = "Heterogeneous" if heterogeneous else "Homogeneous"
        topic_ids = {t: ids[t] for t in topics}

        def make(members: dict[str, MemberSpec], _topics: Mapping[str, int] = topics,
                 _ids: Mapping[str, str] = topic_ids) -> AssignorInput:
            return AssignorInput(tuple(members.values()), dict(_topics), dict(_ids))

        # Increasing: add M0..M100 one at a time, feeding back the previous answer.
        test = f"testIncrementalAssignmentIncreasingMembers{kind}"
        members: dict[str, MemberSpec] = {}
        for k in range(101):
            members[f"M{k}"] = MemberSpec(f"M{k}", subs(heterogeneous, k))
            g = make(members)
            if k + 1 in _INCREASING_SIZES:
                out.append(_incremental_case(test, g, k + 1, "increasing"))
            result = kafka_assign(g)
            # The homogeneous test feeds back every member; the heterogeneous one all but the
            # newest (its loop stops at m < member), which keeps an empty target.
            for m in (range(k + 1) if not heterogeneous else range(k)):
                mid = f"M{m}"
                members[mid] = replace(members[mid], assignment=dict(result[mid]))

        # Decreasing: 101 members, then remove M100..M1 one at a time.
        test = f"testIncrementalAssignmentDecreasingMembers{kind}"
        members = {f"M{k}": MemberSpec(f"M{k}", subs(heterogeneous, k)) for k in range(101)}
        result = kafka_assign(make(members))
        for mid in members:
            members[mid] = replace(members[mid], assignment=dict(result[mid]))
        for k in range(100, 0, -1):
            del members[f"M{k}"]
            g = make(members)
            if len(members) in _DECREASING_SIZES:
                out.append(_incremental_case(test, g, len(members), "decreasing"))
            result = kafka_assign(g)
            for mid in members:
                members[mid] = replace(members[mid], assignment=dict(result[mid]))
    return out


def _incremental_case(test: str, g: AssignorInput, size: int, direction: str) -> Case:
    return Case(
        f"upstream_{_snake(test)}_{size:03d}",
        f"{test} at {size} members: previous targets are Kafka's answers to the previous "
        f"step ({direction} membership); upstream checks every partition is assigned.",
        {"kind": "upstream", "file": UPSTREAM_TEST, "test": test, "members": size},
        g, "properties")


# ---------------------------------------------------------------------------------------------
# Divergences from Kafka (another engineer's catalogue; included when present)
# ---------------------------------------------------------------------------------------------


def divergence_cases() -> list[Case]:
    try:
        from tests.scenarios.simple_assignor.divergences import DIVERGENCES
    except ImportError:
        return []
    out = []
    for d in DIVERGENCES:
        source = {"kind": "divergence", "name": d.name, "upstream": d.upstream,
                  "docs": f"docs/divergences.md#{d.name}"}
        out.append(Case(d.name, f"{d.title}. {d.explanation}", source, d.group))
        variant = getattr(d, "kafka_variant", None)
        if variant is not None:
            out.append(Case(f"{d.name}_kafka_variant",
                            f"{d.title} (the same group under other topic ids: groupspec's "
                            "answer is the same, Kafka's differs).", source, variant))
    return out


# ---------------------------------------------------------------------------------------------
# Hand-made edge cases
# ---------------------------------------------------------------------------------------------


def _edge(name: str, description: str, g: AssignorInput) -> Case:
    return Case(f"edge_{name}", description, {"kind": "hand-made"}, g)


#: The blocks of colliding_member_ids_outside_ascii: X and Y hash alike (31 * 0xFC + 0x61 =
#: 31 * 0xFD + 0x42), and so do A and B (two UTF-16 units each: 31 * 0xDB80 + 0xDC00 =
#: 31 * 0xE000 + 0x5080).
_BLOCKS = {"X": "\u00fca", "Y": "\u00fdB", "A": "\U000F0000", "B": "\ue000\u5080"}


def _block_id(blocks: str) -> str:
    return "".join(_BLOCKS[b] for b in blocks)


def edge_cases() -> list[Case]:
    e = _edge
    return [
        e("no_members", "A group without members gets an empty assignment.",
          group([], {"t": 3})),
        e("no_topics", "Members subscribed to nothing, in a cluster without topics.",
          group([("A", [], {}), ("B", [], {})], {})),
        e("empty_subscription_with_previous",
          "Every member unsubscribed from everything: previous targets are all revoked.",
          group([("A", [], {"t": [0, 1]}), ("B", [], {"t": [2]})], {"t": 3})),
        e("empty_subscription_among_subscribers",
          "One member subscribed to nothing makes the group heterogeneous; it loses its "
          "previous partition, which goes to a subscriber.",
          group([("A", ["t"], {"t": [0]}), ("B", [], {"t": [1]}), ("C", ["t"], {})], {"t": 2})),
        e("unknown_subscribed_name",
          "A subscription naming a topic that does not exist (library input; the JSON is read "
          "with unknown subscription names allowed): the unknown name contributes nothing.",
          group([("A", ["t", "typo"], {}), ("B", ["t", "typo"], {})], {"t": 3})),
        e("unknown_name_makes_heterogeneous",
          "Subscriptions that differ only in an unknown name make the group heterogeneous.",
          group([("A", ["t", "typo"], {}), ("B", ["t"], {}), ("C", ["t"], {})], {"t": 4})),
        e("stale_partition_heterogeneous",
          "A previous partition beyond the topic's count (the topic shrank in the metadata view) "
          "in a heterogeneous group.",
          group([("A", ["t1"], {"t1": [0, 5]}), ("B", ["t1", "t2"], {"t1": [1]})],
                {"t1": 2, "t2": 2})),
        e("deleted_topic_homogeneous",
          "A previous target naming a deleted topic, in a homogeneous group.",
          group([("A", ["t1"], {"gone": [0, 1], "t1": [0]}), ("B", ["t1"], {})], {"t1": 2})),
        e("assignable_restriction",
          "Only partitions 0 and 2 of t are assignable (share state initialized); A previously "
          "held the non-assignable partition 1.",
          group([("A", ["t"], {"t": [1]}), ("B", ["t"], {})], {"t": 4}, assignable={"t": [0, 2]})),
        e("assignable_empty_map",
          "The assignable map is present but names no topic: nothing may be assigned.",
          group([("A", ["t"], {"t": [0]}), ("B", ["t"], {})], {"t": 2}, assignable={})),
        e("shrunk_topic_keeps_what_still_exists",
          "A homogeneous group whose topic shrank to 4 partitions (a previous target names 5): "
          "A keeps partition 0, which still exists, and B keeps 1; only 2 and 3 are handed out.",
          group([("A", ["t"], {"t": [0, 5]}), ("B", ["t"], {"t": [1]}), ("C", ["t"], {})], {"t": 4})),
        e("assignable_subset_keeps_what_is_still_assignable",
          "Only partitions 0, 2, 3 and 5 are assignable: A keeps 2 and 3 of its previous target, "
          "B keeps 0, and the one left (5) goes to C.",
          group([("A", ["t"], {"t": [2, 3]}), ("B", ["t"], {"t": [0]}), ("C", ["t"], {})], {"t": 6},
                assignable={"t": [0, 2, 3, 5]})),
        e("zero_partition_topic", "A subscribed topic with no partitions.",
          group([("A", ["t"], {}), ("B", ["t"], {})], {"t": 0})),
        e("members_more_than_partitions",
          "5 members on 2 partitions: sharing 3, counts 2, 1, 1, 1, 1.",
          group([(f"M{i}", ["t"], {}) for i in range(5)], {"t": 2})),
        e("members_equal_partitions", "4 members on 4 partitions: one each.",
          group([(f"M{i}", ["t"], {}) for i in range(4)], {"t": 4})),
        e("sticky_join",
          "A third member joins a balanced pair: each of the two gives up one partition and "
          "keeps the rest.",
          group([("M0", ["t"], {"t": [0, 1, 2]}), ("M1", ["t"], {"t": [3, 4, 5]}),
                 ("M2", ["t"], {})], {"t": 6})),
        e("overfilled_previous",
          "One member held every partition: it keeps its first ones up to its count.",
          group([("A", ["t"], {"t": [0, 1, 2, 3, 4, 5]}), ("B", ["t"], {}), ("C", ["t"], {})],
                {"t": 6})),
        e("overshared_previous",
          "Three members all held partition 0 of 2 (sharing 2): the third loses it and the "
          "under-shared partition 1 is filled.",
          group([("M0", ["t"], {"t": [0]}), ("M1", ["t"], {"t": [0]}), ("M2", ["t"], {"t": [0]})],
                {"t": 2})),
        e("unsubscribed_topic_heterogeneous",
          "A dropped t2 from its subscription; its previous t2 partition goes to B.",
          group([("A", ["t1"], {"t1": [0], "t2": [0]}), ("B", ["t2"], {})], {"t1": 1, "t2": 1})),
        e("heterogeneous_mix",
          "Four members with overlapping subscriptions and previous targets; balance holds per "
          "topic only.",
          group([("A", ["t1"], {"t1": [0, 1]}), ("B", ["t1", "t2"], {"t2": [0]}),
                 ("C", ["t2", "t3"], {"t3": [0, 1, 2]}), ("D", [], {"t1": [2]})],
                {"t1": 3, "t2": 2, "t3": 3})),
        e("many_topics_one_member", "One member subscribed to four topics takes them all.",
          group([("solo", ["d", "a", "c", "b"], {})], {"a": 1, "b": 2, "c": 3, "d": 1})),
        e("kafka_style_member_ids",
          "Member ids shaped like Kafka's (base64 UUIDs); member order is input order.",
          group([("6DXJNAQLQ9SSx_d-1nxsNw", ["orders"], {}),
                 ("Ux3cTmZ8RcuYHsRMwdYh2A", ["orders"], {}),
                 ("0x9kWBqfTmChx2rJJbH1Zg", ["orders"], {})], {"orders": 8})),
        e("non_ascii_names", "Topic and member names outside ASCII.",
          group([("消费者-1", ["主题"], {}), ("consumer-ü", ["主题"], {})], {"主题": 3})),
        e("same_topics_in_another_order",
          "B lists the same topics as A and C in another order: the subscriptions are equal as "
          "sets, so the group is homogeneous: one pool of 3 partitions over both topics, 1 each "
          "(per-topic pools would have every member share t1-0).",
          group([("A", ["t1", "t2"], {}), ("B", ["t2", "t1"], {}), ("C", ["t1", "t2"], {})],
                {"t1": 1, "t2": 2})),
        e("stale_partitions_next_to_an_empty_topic",
          "Heterogeneous, with a topic of no partitions named first: A keeps partitions 1 and 2 of "
          "b (its 7 no longer exists) and B gets the other two; the empty topic assigns nothing "
          "and stops nothing.",
          group([("A", ["a", "b"], {"b": [1, 2, 7]}), ("B", ["b"], {})], {"a": 0, "b": 4})),
        e("assignable_names_a_partition_beyond_the_count",
          "The assignable map names partitions 3 and 5 of a topic of 3 partitions (0 to 2) and "
          "leaves 0 out: only 1 and 2 are handed out.",
          group([("A", ["t"], {}), ("B", ["t"], {})], {"t": 3}, assignable={"t": [1, 2, 3, 5]})),
        e("overshared_previous_at_the_counts_heterogeneous",
          "Heterogeneous: A and B each held partition 1 of 2 (sharing 1), so each is at its count "
          "yet partition 0 is unheld: B gives up 1 and takes 0.",
          group([("A", ["t"], {"t": [1]}), ("B", ["t"], {"t": [1]}), ("C", [], {})], {"t": 2})),
        e("fill_in_rounds_with_uneven_room",
          "Three members on two topics (18 partitions, 6 each), B and C holding some of them "
          "(B's 3 and 8 also in C's previous target, where they are revoked): the fill hands out "
          "the rest in rounds while the members' room differs.",
          group([("A", ["t0", "t1"], {}), ("B", ["t0", "t1"], {"t0": [3, 6, 8]}),
                 ("C", ["t0", "t1"], {"t0": [1, 3, 4, 7, 8, 9]})], {"t0": 10, "t1": 8})),
        e("colliding_member_ids_outside_ascii",
          "16 member ids outside ASCII with one Java String hash code: three blocks each \"üa\" "
          "or \"ýB\" (equal hashes), then U+F0000 (UTF-16 DB80 DC00) or U+E000 U+5080 (equal "
          "hashes again). Kafka's HashMap of member ids holds them in one tree bin ordered by "
          "String.compareTo, which compares UTF-16 code units: U+F0000 sorts BEFORE U+E000 there, "
          "though after it by code point. The member order decides who gets which partition.",
          group([(_block_id(blocks), ["t"], {}) for blocks in (
              "YXYA", "YYYA", "XYXB", "XXXB", "YXXB", "XXYA", "XXYB", "YXYB", "YYXB", "XYYB",
              "YXXA", "XYXA", "XXXA", "XYYA", "YYYB", "YYXA")], {"t": 16})),
        e("every_subscribed_topic_deleted_heterogeneous",
          "Heterogeneous subscriptions (A gone1, B gone2, C both) to topics deleted since the "
          "previous targets, which still name them: no member is subscribed to a topic that "
          "exists, so the assignment is empty and the previous targets are dropped, not kept.",
          group([("A", ["gone1"], {"gone1": [0, 1]}), ("B", ["gone2"], {"gone2": [0]}),
                 ("C", ["gone1", "gone2"], {})], {"t": 2})),
        e("unsubscribed_existing_topic_homogeneous",
          "Homogeneous: A and B subscribe to t1 and t2 only, but A's previous target still names "
          "t3, which exists. A subscription that does not name a topic revokes it, even a live "
          "one: nobody keeps t3.",
          group([("A", ["t1", "t2"], {"t3": [1]}), ("B", ["t1", "t2"], {"t1": [0]})],
                {"t1": 3, "t2": 2, "t3": 2})),
        e("stale_partition_held_three_times_heterogeneous",
          "Heterogeneous (D subscribes to nothing): A, B and C all held partition 9 of t, which "
          "has only 8 now. Sharing is 1, so the partition is over-shared: holders are dropped in "
          "Kafka's holder-set order until one is left, and exactly one keeps the stale partition.",
          group([("A", ["t"], {"t": [9]}), ("B", ["t"], {"t": [9]}), ("C", ["t"], {"t": [9]}),
                 ("D", [], {})], {"t": 8})),
        e("topic_shrunk_to_no_partitions",
          "A held partition 0 of t, whose count is now 0: the partition is revoked and A's answer "
          "has no entry for t at all (not an empty one).",
          group([("A", ["t"], {"t": [0]}), ("B", ["t"], {})], {"t": 0, "u": 5})),
        e("same_topics_listed_in_other_orders_homogeneous",
          "Two members subscribe to the same three topics, listed in different orders: the group "
          "is homogeneous and Kafka walks the topics in the order of the FIRST member's name set "
          "(in member order); topic15 and t39 share a hash bucket, where insertion order "
          "counts, so the two name sets iterate differently. That order decides the order of the "
          "partitions and so who gets which.",
          group([("m2", ["topic15", "t39", "u10"], {}), ("m3", ["t39", "u10", "topic15"], {})],
                {"u10": 3, "t39": 3, "topic15": 2})),
        e("fill_restarts_then_finds_only_holders",
          "13 members on 2 partitions (sharing 7, one member desires 2): seven held partition 1 and "
          "m0 held 0. The fill hands out partition 0 until its iterator runs out, restarts it, "
          "and then meets only members that already hold 0: having assigned nothing since the "
          "restart, it stops there (restarting again would loop forever).",
          group([("m0", ["t"], {"t": [0]}), ("m1", ["t"], {}), ("m2", ["t"], {"t": [1]}),
                 ("m3", ["t"], {}), ("m4", ["t"], {"t": [1]}), ("m5", ["t"], {}),
                 ("m6", ["t"], {"t": [1]}), ("m7", ["t"], {"t": [1]}), ("m8", ["t"], {"t": [1]}),
                 ("m9", ["t"], {}), ("m10", ["t"], {"t": [1]}), ("m11", ["t"], {}),
                 ("m12", ["t"], {"t": [1]})], {"t": 2})),
        e("every_unfilled_member_holds_the_partition",
          "13 members on 4 partitions (sharing 4; m00, m04 and m08 desire two, the rest one). "
          "Only m00, m04 and m08 have room, and all three already hold partition 0, which has "
          "room for a fourth holder: the round-robin passes partition 0 by without moving its "
          "cursor, so partition 3's two free places go to m00 and m04, and m08 keeps one.",
          group([(f"m{k:02}", ["t"], {"t": [held]})
                 for k, held in enumerate((0, 1, 1, 1, 0, 1, 2, 2, 0, 2, 2, 3, 3))], {"t": 4})),
        e("previous_target_of_twelve_copied_into_32_buckets",
          "A held 12 partitions of t (70 partitions, 7 members, 10 each): Kafka copies the set into "
          "a HashSet(Collection) of (int)(12 / .75f) + 1 = 17, so 32 buckets, and walks it in "
          "that order when it counts A's partitions and drops the two over its count.",
          group([("A", ["t"], {"t": [16, 26, 29, 31, 32, 33, 38, 47, 51, 56, 57, 64]})]
                + [(m, ["t"], {}) for m in "BCDEFG"], {"t": 70})),
        e("previous_target_of_nine_copied_into_16_buckets",
          "35 members on three topics; m2 held 9 partitions of t0, several of them 16 or more. "
          "Kafka's copy of the set asks for (int)(9 / .75f) + 1 = 13, which HashMap rounds up to "
          "16 buckets (a power of two asked for exactly would stay as it is), so the partitions "
          "iterate by their value modulo 16.",
          group([(f"m{k}", ["t0", "t1", "t2"],
                  {"t0": [0, 18, 19, 22, 28, 33, 35, 44, 65]} if k == 2 else {})
                 for k in (2, 5, 6, 7, 8, 9, *range(11, 40))], {"t0": 64, "t1": 130, "t2": 2})),
    ]


# ---------------------------------------------------------------------------------------------
# Observed from Kafka 4.2
# ---------------------------------------------------------------------------------------------

OBSERVED_DATA = "tests/data/kafka_simple_assignor_observed.jsonl"
TREE_BIN_DATA = "tests/data/kafka_simple_assignor_treebins_observed.jsonl"

#: (name, data file, row (1 = the line after the header), what the group is).
OBSERVED = (
    ("observed_tree_bins_partition_stride", TREE_BIN_DATA, 24,
     "59 members on one topic of 702 partitions, previous targets of partitions k*64+c (equal "
     "Integer buckets): the HashSets of previous partitions become tree bins"),
    ("observed_tree_bins_many_topics", TREE_BIN_DATA, 41,
     "2 members with different subscriptions over 57 topics whose topic ids pile up in few "
     "HashMap buckets: the maps keyed by topic id become tree bins"),
    ("observed_tree_bins_colliding_member_ids", TREE_BIN_DATA, 14,
     "40 members with previous targets on 28 partitions, many of them with ids of equal String "
     "hash codes (\"Aa\"/\"BB\" blocks): the maps keyed by member id become tree bins"),
    ("observed_heterogeneous_previous_targets", OBSERVED_DATA, 46,
     "5 members with different subscriptions over 4 topics, with previous targets"),
)


def observed_cases() -> list[Case]:
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    out = []
    for name, data, row, what in OBSERVED:
        lines = (root / data).read_text(encoding="utf-8").splitlines()
        header, doc = json.loads(lines[0]), json.loads(lines[row])
        d = doc["input"]
        g = group([(m, b["topics"], b["assignment"]) for m, b in d["members"].items()],
                  d["topics"], d.get("topic_ids"), d.get("assignable"))
        out.append(Case(name, f"{what}. Kafka's answer was observed from Kafka 4.2's own "
                        "SimpleAssignor classes.",
                        {"kind": "observed", "file": data, "row": row,
                         "kafka_commit": header["kafka_commit"],
                         "what": "observed from Kafka 4.2"}, g))
    return out


# ---------------------------------------------------------------------------------------------
# Tree bins taking removals
# ---------------------------------------------------------------------------------------------

#: The topic id of tree_bin_holders_removed: the order of a member's previous partitions in
#: Kafka's HashSet<TopicIdPartition> (which it gives up first) depends on it.
TREE_BIN_TOPIC_ID = "9b0c5a4e-3f21-4d8e-a6b7-1c2d3e4f5a6b"

#: How many members held partition j (j = 0..19) of tree_bin_holders_removed: those at positions
#: j, j + 64, j + 128, ... of Kafka's member order.
TREE_BIN_HOLDERS = (11, 12, 12, 12, 12, 11, 11, 12, 12, 12, 11, 12, 11, 11, 11, 11, 11, 11, 12, 12)

#: The other partitions the member at a position held too (partitions 20 and up): a member
#: over its count gives up its shared partition before these, so its holder set loses it.
TREE_BIN_EXTRA: dict[int, tuple[int, ...]] = {
    0: (33, 49), 4: (48, 53), 6: (23, 24), 9: (143, 144), 10: (22, 27), 11: (70,), 13: (150, 151),
    14: (175,), 15: (208, 209), 18: (174, 179), 64: (65,), 68: (62, 63), 70: (25,), 72: (101,),
    73: (145, 146), 74: (28, 29), 75: (71,), 76: (125, 134), 77: (152, 153), 79: (224, 225),
    80: (353, 369), 82: (180, 181), 83: (229, 238), 128: (81, 97), 134: (34,), 135: (72, 73),
    136: (105, 114), 138: (38, 43), 139: (76, 77), 142: (176, 177), 143: (240,), 144: (385, 401),
    146: (190, 195), 194: (20, 21), 196: (64,), 198: (35, 39), 200: (115, 116), 207: (241,),
    210: (196,), 261: (96,), 262: (40, 41), 264: (117, 121), 267: (86, 87), 269: (159,),
    271: (256, 257), 272: (417,), 274: (197, 206), 320: (113,), 322: (30,), 326: (50, 51),
    327: (82, 83), 328: (127,), 331: (92,), 335: (272, 273), 390: (52,), 392: (128, 130),
    394: (44, 45), 395: (93,), 397: (160, 161), 399: (288, 289), 400: (433, 449), 452: (69,),
    455: (84, 88), 456: (131, 132), 459: (102, 103), 461: (162, 163), 463: (304,), 466: (207,),
    515: (36, 37), 517: (110, 111), 518: (55, 56), 521: (147, 148), 522: (54,), 523: (104, 108),
    526: (191, 192), 527: (305,), 530: (211,), 578: (31,), 580: (78, 79), 581: (112,),
    582: (57, 66), 585: (149, 158), 586: (59,), 587: (109, 118), 588: (135, 136), 591: (320, 321),
    594: (212, 213), 595: (239,), 640: (129,), 642: (32,), 643: (46, 47), 644: (80, 85),
    645: (126,), 646: (67, 68), 647: (89, 98), 648: (133,), 650: (60, 61), 651: (119,),
    653: (164, 165), 654: (193,), 655: (336, 337), 658: (222, 223), 708: (94, 95), 711: (99, 100),
    712: (137, 142), 715: (120,), 722: (227, 228),
}


def tree_bin_cases(member_order: Callable[[AssignorInput], Sequence[str]]) -> list[Case]:
    """Groups whose answer depends on tree bins losing keys (Map.remove, Iterator.remove).

    ``member_order`` is Kafka's member order (the key order of its HashMap of member ids), used
    only to place the previous targets at the positions the case is built around.
    """
    topic_ids = {"t": TREE_BIN_TOPIC_ID}

    def place(n: int, previous: Mapping[int, Sequence[int]], partitions: int = 600) -> AssignorInput:
        """n members on t; ``previous`` gives the partitions held at each member position."""
        topics = {"t": partitions}
        ids = [f"member-{k:04d}" for k in range(n)]
        order = member_order(group([(m, ["t"], {}) for m in ids], topics, topic_ids))
        held = {order[position]: partitions for position, partitions in previous.items()}
        return group([(m, ["t"], {"t": held[m]} if m in held else {}) for m in ids], topics,
                     topic_ids)

    removed: dict[int, list[int]] = {}
    for partition, count in enumerate(TREE_BIN_HOLDERS):
        for k in range(count):
            removed.setdefault(partition + 64 * k, []).append(partition)
    for position, partitions in TREE_BIN_EXTRA.items():
        removed[position] += partitions
    split: dict[int, list[int]] = {}
    for position in [64 * k for k in range(14)] + list(range(833, 873)):
        split[position] = [0]
    for position in ([1 + 64 * k for k in range(11)] + list(range(873, 900))
                     + [2 + 64 * k for k in range(11)]):
        split[position] = [1]
    return [Case(
        "tree_bin_holders_removed",
        "730 members on one topic of 600 partitions (sharing 2, counts 1 or 2), after the group "
        "shrank: partitions 0 to 19 were each held by 11 or 12 members, at positions j, j + 64, "
        "j + 128, ... of Kafka's member order, so each such partition's set of holder indices "
        "becomes a java.util.HashMap tree bin. 107 of those members also held one or two of "
        "partitions 20 and up and are over their count: each gives up its shared partition "
        "first, so the holder trees lose keys one by one (red-black deletion, the root moved to "
        "the front of the bin's list, the bin turned back into a list once too small), and the "
        "order left decides which two holders keep each overshared partition.",
        {"kind": "hand-made"}, place(730, removed)),
        Case(
        "tree_bin_holders_split",
        "900 members on one topic of 600 partitions (sharing 2), previous targets left from "
        "when the topic had far fewer partitions: partition 0 was held by 54 members, the 14 at "
        "positions 0, 64, ..., 832 of Kafka's member order and those at 833 to 872; partition 1 "
        "by 49, the 11 at positions 1, 65, ..., 641, those at 873 to 899 and the 11 at 2, 66, "
        "..., 642. Each holder set gets a java.util.HashMap tree bin while its table has 64 "
        "buckets, then outgrows the table: the resize splits the tree's list in two halves, "
        "which stay trees (partition 0: 7 and 7) or turn back into lists (partition 1: 6 and "
        "5), and the order that leaves decides which two holders keep each partition.",
        {"kind": "hand-made"}, place(900, split)),
        *[_holder_trees_losing_keys(seed, n, partitions, place)
          for seed, n, partitions in ((1, 800, 400), (0, 800, 400), (12, 800, 270), (10, 800, 270),
                                      (32, 1100, 550))]]


def _holder_trees_losing_keys(seed: int, n: int, partitions: int,
                              place: Callable[[int, Mapping[int, Sequence[int]], int], AssignorInput],
                              ) -> Case:
    """n members on t; 16 of the partitions below 64 are each held by the members at some of
    the positions j, j + 64, ... (a tree bin of holder indices), and all but sharing + 1 or
    sharing + 2 of those holders also held one partition of 64 and up, which comes later
    in their HashSet<TopicIdPartition> and so is the one they keep.

    Each such holder's removal is a Map.remove from a red-black tree (rebalanced, its root moved
    to the front of the bin's list, or the bin turned back into a list); the one or two holders
    left over the sharing are then revoked in list order, so they are the latest roots.
    """
    import random

    from groupspec.impl.simple_assignor.java_collections import (
        spread,
        topic_id_partition_hash,
        uuid_hash,
    )

    rng = random.Random(seed)
    sharing = -(-n // partitions)
    topic_hash = uuid_hash(TREE_BIN_TOPIC_ID)

    def bucket(partition: int) -> int:  # in a member's HashSet<TopicIdPartition> of 16 buckets
        return spread(topic_id_partition_hash(topic_hash, partition)) & 15

    held: dict[int, list[int]] = {}
    extras = range(64, partitions)
    for j in rng.sample(range(64), 16):
        places = (n - 1 - j) // 64 + 1
        holders = sorted(rng.sample(range(places), rng.randint(min(sharing + 2, places), places)))
        leaving = rng.sample(holders, max(len(holders) - sharing - rng.randint(1, 2), 0))
        for k in holders:
            held[j + 64 * k] = [j]
            if k in leaving:
                later = [e for e in extras if bucket(e) > bucket(j)]
                if later:
                    held[j + 64 * k].append(rng.choice(later))
    return Case(
        f"tree_bin_holders_removed_seed_{seed}_{n}_members_{partitions}_partitions",
        f"{n} members on one topic of {partitions} partitions (sharing {sharing}, counts 1 "
        f"or 2): 16 partitions below 64 were each held by up to {(n + 63) // 64} members at "
        "positions j, j + 64, "
        "... of Kafka's member order, so each holder set is a java.util.HashMap tree bin. Most "
        "of those holders also held a partition of 64 or more, which they keep, so each holder "
        "tree loses all but sharing + 1 or 2 keys through Map.remove: red-black deletion, "
        "the root moved to the front of the bin's list after each, the bin turned back into a "
        "list once it looks small. The holders over the sharing are revoked in that list's "
        "order, so the last roots decide who keeps each partition.",
        {"kind": "hand-made"}, place(n, held, partitions))


# ---------------------------------------------------------------------------------------------
# java.util.HashMap corners the Kafka mode must get right
# ---------------------------------------------------------------------------------------------

#: String.hashCode 0x80008000, so HashMap's spread hash is 0x80000000: Integer.MIN_VALUE, the
#: smallest key a tree bin can hold (it lands in bucket 0 of every table).
MIN_SPREAD_MEMBER_ID = "member-2998-3aus"

#: The topic every member of the colliding-member-id cases subscribes to.
TREE_BIN_MEMBERS_TOPIC_ID = "3f0a1b2c-4d5e-4f60-8a71-b2c3d4e5f607"


def _colliding_member_ids(seed: int, n: int) -> list[str]:
    """n member ids in a shuffled order: three crowds of 9 to 24 ids sharing a bucket of a
    64-bucket table (one crowd in bucket 0, with MIN_SPREAD_MEMBER_ID), each crowd with 2 to 4
    ids of one equal String hash ("Aa"/"BB" blocks), and ids in other buckets around them.

    The member map grows 16 -> 32 -> 64 -> 128 buckets while the ids go in, so each crowd is
    first a list, then a red-black tree, then split in two by the resize.
    """
    import itertools
    import random

    from groupspec.impl.simple_assignor.java_collections import spread, string_hash

    rng = random.Random(seed)
    used = {MIN_SPREAD_MEMBER_ID}
    ids = [MIN_SPREAD_MEMBER_ID]

    def bucket(member_id: str) -> int:
        return spread(string_hash(member_id)) & 63

    crowds = [0, *rng.sample(range(1, 64), 2)]
    blocks = ["".join(b) for b in itertools.product(["Aa", "BB"], repeat=3)]
    for c in crowds:
        size, ties = rng.randint(9, 24), rng.randint(2, 4)
        while True:  # ids that differ only in Aa/BB blocks have equal hash codes
            prefix = f"t{rng.randrange(10**6)}-"
            equal = [prefix + b for b in blocks]
            if bucket(equal[0]) == c and not used & set(equal):
                break
        chosen = rng.sample(equal, ties)
        while len(chosen) < size:
            candidate = f"m{rng.randrange(10**6)}"
            if candidate not in used and candidate not in chosen and bucket(candidate) == c:
                chosen.append(candidate)
        used.update(chosen)
        ids += chosen
    while len(ids) < n:
        candidate = f"f{rng.randrange(10**6)}"
        if candidate not in used and bucket(candidate) not in crowds:
            used.add(candidate)
            ids.append(candidate)
    rng.shuffle(ids)
    return ids


def _topic_id_of_hash(rng: Any, h: int, msb: int) -> str:
    """A topic id whose Kafka Uuid.hashCode is ``h``: the bits of msb ^ lsb are ``h`` then 0."""
    import uuid

    lsb = msb ^ ((h & 0xFFFFFFFF) << 32)
    return str(uuid.UUID(int=(msb << 64) | lsb))


def _equal_hash_topic_ids(seed: int, b_msb_min: bool) -> AssignorInput:
    """40 one-partition topics; member X held all of them, 39 members hold nothing.

    Topics ...-A and ...-B have equal Uuid hash codes (A's most significant bits positive, B's
    negative, or exactly Long.MIN_VALUE with ``b_msb_min``), and they and 9 others share one
    bucket of X's previous-target map (a HashMap<Uuid, ...>, 64 buckets once it holds 26).
    X's map gets the 26 others first, then those 11, so the crowded bucket is a tree bin that
    places A and B by Uuid.compareTo (signed). X keeps one partition: the last of its
    HashSet<TopicIdPartition> order, where A-0 and B-0 (equal hash codes) share the last
    bucket in the order X's map listed them.
    """
    import random

    from groupspec.impl.simple_assignor.java_collections import int32, spread

    rng = random.Random(seed)
    b = rng.randrange(63)

    def pick(ok: Callable[[int], bool]) -> int:
        while True:
            h = int32(rng.getrandbits(32))
            if ok(h):
                return h

    def msb(negative: bool) -> int:
        return rng.getrandbits(63) | ((1 << 63) if negative else 0)

    hab = pick(lambda h: spread(h) & 63 == b and spread(31 * h) & 63 == 63)
    ids = {"A": _topic_id_of_hash(rng, hab, msb(False)), "B": _topic_id_of_hash(rng, hab, msb(True))}
    if b_msb_min:
        ids["B"] = _topic_id_of_hash(rng, hab, 1 << 63)
    crowd = ["A", "B"]
    for k in range(9):
        h = pick(lambda h: spread(h) & 63 == b and spread(31 * h) & 63 != 63)
        ids[f"c{k}"] = _topic_id_of_hash(rng, h, msb(rng.random() < .5))
        crowd.append(f"c{k}")
    others = []
    for k in range(29):
        h = pick(lambda h: spread(h) & 63 != b and spread(31 * h) & 63 != 63)
        ids[f"o{k}"] = _topic_id_of_hash(rng, h, msb(rng.random() < .5))
        others.append(f"o{k}")
    rng.shuffle(crowd)
    rng.shuffle(others)
    # A vector lists a previous target's topics by name, and Kafka's map is filled in that
    # order: names led by their position keep the order designed here.
    order = [f"t{k:02d}-{name}" for k, name in enumerate(others[:26] + crowd + others[26:])]
    ids = {name: ids[name.partition("-")[2]] for name in order}
    members: list[tuple[str, Sequence[str], Mapping[str, Sequence[int]]]] = [
        ("X", order, {t: [0] for t in order})]
    members += [(f"m{k:02d}", order, {}) for k in range(39)]
    return group(members, {t: 1 for t in order}, ids)


def _crowded_partition_map() -> AssignorInput:
    """59 members on 9 one-partition topics and a topic z of 50: 59 partitions, one each.

    The 9 topic ids are picked so that their partitions' TopicIdPartition hash codes share a
    bucket of the 128 Kafka's partition map allocates (newHashMap(59)).
    """
    import random

    from groupspec.impl.simple_assignor.java_collections import int32, spread

    rng = random.Random(0)
    bucket = rng.randrange(128)
    ids: dict[str, str] = {}
    seen: set[int] = set()
    for k in range(9):
        while True:
            h = int32(rng.getrandbits(32))
            if spread(int32(31 * h)) & 127 == bucket and h not in seen:
                break
        seen.add(h)
        ids[f"c{k}"] = _topic_id_of_hash(rng, h, rng.getrandbits(63))
    topics = {name: 1 for name in ids} | {"z": 50}
    return group([(f"m{k:02d}", list(topics), {}) for k in range(59)], topics, ids)


def java_hashmap_cases() -> list[Case]:
    """Groups whose Kafka answer hangs on one detail of java.util.HashMap (issue 17).

    Kafka's member positions are the iteration order of its member map, so a group of n
    members with a topic of n partitions shows that order whole: position k gets the k-th
    partition the fill visits.
    """
    tid = {"t": TREE_BIN_MEMBERS_TOPIC_ID}
    out = []
    for seed in (0, 5):
        ids = _colliding_member_ids(seed, 120)
        out.append(Case(
            f"tree_bin_member_ids_seed_{seed}",
            "120 new members on one topic of 120 partitions; the member ids crowd three buckets "
            "of Kafka's member map (9 to 24 ids each, a few with equal String hash codes), so "
            "each crowd becomes a red-black tree bin once the map has 64 buckets and is split "
            "again when it grows to 128. A tree bin's iteration order follows the tree: its "
            "root moves to the front and a new key is linked right after its parent, so the "
            "balancing decides the member order, and so who gets which partition. One id "
            f"({MIN_SPREAD_MEMBER_ID!r}) has the spread hash Integer.MIN_VALUE, which the tree "
            "orders as the smallest of all.",
            {"kind": "hand-made"}, group([(m, ["t"], {}) for m in ids], {"t": 120}, tid)))
    held = [1, 17, 33, 2, 18, 34, 3, 19, 35, 4, 20, 36]
    out.append(Case(
        "previous_target_of_twelve_copied_into_32_buckets_then_revoked",
        "Heterogeneous: A held 12 partitions of t and, with 9 other subscribers of t's 40 "
        "partitions, may keep 4. Its previous partitions arrive as new HashSet<>(collection) "
        "of 12, which allocates (int)(12 / .75f) + 1 = 17, so 32 buckets: 1 and 33 share one, "
        "17 has its own. A gives up partitions in the order of its per-topic HashSet of 16 "
        "buckets filled from that order, where 1, 33, 17 share a chain in that order: it keeps "
        "19, 4, 20 and 36 (a table of 16 for the copy would have made it keep 35 instead of 19).",
        {"kind": "hand-made"},
        group([("A", ["t"], {"t": held}), *[(f"S{k}", ["t"], {}) for k in range(9)],
               ("U", ["u"], {})], {"t": 40, "u": 1})))
    out.append(Case(
        "previous_target_of_eleven_copied_into_16_buckets_then_revoked",
        "Heterogeneous: A held 11 partitions of t and, with 9 other subscribers of t's 30 "
        "partitions, may keep 3. new HashSet<>(collection) of 11 allocates (int)(11 / .75f) "
        "+ 1 = 15, so 16 buckets (tableSizeFor of an exact power of two is itself), where 1, "
        "17 and 33 share a chain in that order; A gives up partitions in the order of its "
        "per-topic HashSet filled from it and keeps 35, 4 and 20 (32 buckets would have kept "
        "19 instead of 35).",
        {"kind": "hand-made"},
        group([("A", ["t"], {"t": [1, 17, 33, 2, 18, 34, 3, 19, 35, 4, 20]}),
               *[(f"S{k}", ["t"], {}) for k in range(9)], ("U", ["u"], {})],
              {"t": 30, "u": 1})))
    out.append(Case(
        "partition_map_bucket_treeified_by_compute_if_absent",
        "Homogeneous, 59 new members on 59 partitions: 9 one-partition topics whose "
        "TopicIdPartition hash codes share a bucket of Kafka's 128-bucket partition map, and "
        "a topic of 50. The assignor adds every partition with computeIfAbsent, which links a "
        "new key at the head of its chain and turns the chain into a tree bin when it already "
        "holds 7 keys (put waits for 8); the fill then hands out partitions in that map's "
        "order, so the 8th key's treeify shows in who gets which partition.",
        {"kind": "hand-made"}, _crowded_partition_map()))
    out.append(Case(
        "stale_partitions_fill_the_partition_map_to_its_threshold",
        "Homogeneous on t of 2 partitions; three members held partitions far beyond the "
        "count (29 to 41), which Kafka keeps counting. Its partition map is newHashMap(2): 8 "
        "buckets, threshold 6, and computeIfAbsent resizes only when the map is already over "
        "the threshold before it looks, so the 7th key still goes into 8 buckets and the "
        "resize waits for the 8th; the fill then follows that map's order.",
        {"kind": "hand-made"},
        group([("m0", ["t"], {"t": [30, 37, 40]}), ("m1", ["t"], {}),
               ("m2", ["t"], {"t": [3, 4, 29, 30, 31, 37, 40]}), ("m3", ["t"], {}),
               ("m4", ["t"], {}), ("m5", ["t"], {"t": [17, 25, 33, 41]})], {"t": 2, "u": 2})))
    out.append(Case(
        "stale_partitions_overflow_a_partition_map_sized_for_three",
        "Homogeneous on t of 3 partitions; five members held 24 different partitions, most "
        "beyond the count. Kafka's partition map, newHashMap(3) (8 buckets), grows through "
        "computeIfAbsent calls, each resizing first whenever the map is already over its "
        "threshold, and the fill follows that map's order.",
        {"kind": "hand-made"},
        group([("m0", ["t"], {"t": [1, 3, 7, 10, 15, 23, 29, 30]}), ("m1", ["t"], {"t": [6, 24, 34]}),
               ("m2", ["t"], {"t": [0, 4, 10, 11, 13, 15, 17, 24, 26]}),
               ("m3", ["t"], {"t": [28, 39]}), ("m4", ["t"], {"t": [0, 8]}), ("m5", ["t"], {})],
              {"t": 3, "u": 2})))
    for name, b_msb_min, what in (
            ("topic_ids_of_equal_hash_in_a_tree_bin", False,
             "B's most significant bits are negative, so Uuid.compareTo puts B first"),
            ("topic_ids_of_equal_hash_in_a_tree_bin_msb_min", True,
             "B's most significant bits are exactly Long.MIN_VALUE, the smallest of all")):
        out.append(Case(
            name,
            "Homogeneous, 40 members and 40 topics of one partition; X held every partition "
            "and keeps one. The topics named ...-A and ...-B have equal Uuid hash codes and "
            "sit, with 9 more topic ids, in one bucket of X's previous-target HashMap (filled "
            "in name order), which is a tree bin by then: "
            f"{what}. Which of A's and B's partition X keeps follows that tree's order.",
            {"kind": "hand-made"}, _equal_hash_topic_ids(7, b_msb_min)))
    return out


# ---------------------------------------------------------------------------------------------
# Generated cases
# ---------------------------------------------------------------------------------------------


def generated_cases() -> list[Case]:
    from groupspec.generate import cases as generate

    out = []
    for seed, n, max_members, max_partitions, mode in GENERATED:
        for index, shape, g in generate(seed, n, max_members, max_partitions):
            shape_doc = {"members": shape.members, "topics": shape.topics,
                         "partitions_per_topic": shape.partitions_per_topic,
                         "heterogeneous": shape.heterogeneous, "prior": shape.prior,
                         "churn": shape.churn}
            out.append(Case(
                f"generated_s{seed}_i{index:03d}",
                f"groupspec.generate.case({seed}, {index}, {max_members}, {max_partitions}): "
                f"{shape.members} members, {shape.topics} topics of {shape.partitions_per_topic}"
                f" partitions, {'heterogeneous' if shape.heterogeneous else 'homogeneous'}, "
                f"prior {shape.prior}{' (' + shape.churn + ')' if shape.churn else ''}.",
                {"kind": "generated", "seed": seed, "index": index, "max_members": max_members,
                 "max_partitions": max_partitions, "shape": shape_doc},
                g, mode))
    return out


def all_cases(kafka_assign: Callable[[AssignorInput], GroupAssignment]) -> Iterator[Case]:
    """Every case, grouped by source; names are unique."""
    from groupspec.impl.simple_assignor.kafka_compat import member_order

    yield from seed_cases()
    yield from upstream_cases(kafka_assign)
    yield from divergence_cases()
    yield from edge_cases()
    yield from observed_cases()
    yield from tree_bin_cases(member_order)
    yield from java_hashmap_cases()
    yield from generated_cases()


def assignor_vector_docs() -> Iterator[dict[str, Any]]:
    """The SimpleAssignor's vectors: every catalogued case, expectations from the spec."""
    from groupspec.conformance.generate import kafka_assign, vector_doc

    for case in all_cases(kafka_assign):
        yield vector_doc(case)

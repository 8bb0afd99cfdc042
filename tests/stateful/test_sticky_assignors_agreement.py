"""Spec and implementation of the sticky assignors agree, round after round (Hypothesis).

The first tests draw groups sharing one subscription (the plain case); the last ones draw
members with their own subscriptions and racks, where the groupspec mode answers by the spec's
rules (exactly the spec's answer) and the Kafka mode runs Kafka's general builder or its
rack-aware paths, held to the same rules apart from the divergences docs/divergences.md names.

Claims are drawn freely: beyond a topic's count, repeated, clashing in one generation or across
generations, in the user data (Sticky) or the subscription (CooperativeSticky). On each group
the spec's answer keeps its contract, the implementation's groupspec mode gives exactly that
answer, and the Kafka-exact mode either throws as Kafka does or, on claims that are clean (each
partition claimed once, within its count), hands the same partitions to the same members. Then
the group lives on: a stateful machine feeds each answer back as the members' claims, generation
+ 1, while members join and leave, and checks that the cooperative rounds settle (nothing
withheld once no member reports a partition it must give up) and that a settled Sticky group
stays put.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import event, given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from groupspec.impl.classic_assignors import assign as impl_assign
from groupspec.impl.classic_assignors import orders
from groupspec.impl.classic_assignors.sticky import kafka_subscriptions_equal
from groupspec.spec.classic_assignors import assign as spec_assign
from groupspec.spec.classic_assignors import check_properties, claim, sticky_plain, sticky_rack_aware
from groupspec.types import PartitionAssignorError
from groupspec.types.classic_assignors import (
    STICKY_ASSIGNORS,
    ClassicAssignment,
    ClassicAssignorInput,
    TopicPartition,
)
from tests.scenarios.classic_assignors.sticky_cases import next_round, sticky_member

TOPICS = ("t0", "t1", "t2")


@st.composite
def groups(draw: st.DrawFn) -> ClassicAssignorInput:
    assignor = draw(st.sampled_from(STICKY_ASSIGNORS))
    counts = draw(st.dictionaries(st.sampled_from(TOPICS), st.integers(0, 7), min_size=1))
    subscribed = tuple(counts)
    claimable = st.tuples(st.sampled_from(subscribed), st.integers(0, 9))
    ids = draw(st.lists(st.text("abc\u00e9\U00010000", min_size=1, max_size=3), max_size=7, unique=True))
    members = tuple(
        sticky_member(
            assignor,
            member_id,
            subscribed,
            draw(st.lists(claimable, max_size=5)),
            draw(st.none() | st.integers(0, 3)),
        )
        for member_id in ids
    )
    return ClassicAssignorInput(assignor, members, counts)


def clean(group: ClassicAssignorInput) -> bool:
    claims = [tp for m in group.members for tp in m.owned_partitions]
    return len(claims) == len(set(claims)) and all(p < group.partition_count(t) for t, p in claims)


@given(groups())
def test_spec_impl_and_kafka_mode_agree(group: ClassicAssignorInput) -> None:
    spec = spec_assign(group)
    assert all(check_properties(group, spec).values())
    assert impl_assign(group) == spec
    try:
        kafka = impl_assign(group, compat="kafka")
    except PartitionAssignorError as exc:
        event(f"Kafka throws {exc.kafka_exception}")
        assert not clean(group) or not group.members
        return
    if clean(group):
        assert {m: sorted(ps) for m, ps in kafka.items()} == {m: sorted(ps) for m, ps in spec.items()} or (
            # with clean claims only the member map order may differ: who keeps the extra one
            all(check_properties(group, kafka)[p] for p in ("complete", "exactly_once", "sticky", "balanced"))
        )


class LivingGroup(RuleBasedStateMachine):
    """One group over many rebalances, spec and impl side by side."""

    @initialize(
        assignor=st.sampled_from(STICKY_ASSIGNORS), counts=st.tuples(st.integers(1, 6), st.integers(0, 6))
    )
    def start(self, assignor: str, counts: tuple[int, int]) -> None:
        self.group = ClassicAssignorInput(assignor, (), {"t0": counts[0], "t1": counts[1]})
        self.generation = 1
        self.answer: dict[str, tuple[TopicPartition, ...]] = {}
        self.withheld_rounds = 0
        self.next_id = 0

    def _rebalance(self) -> None:
        answer = spec_assign(self.group)
        assert impl_assign(self.group) == answer
        assert all(check_properties(self.group, answer).values())
        held = {tp for ps in answer.values() for tp in ps}
        everything = {(t, p) for t, n in self.group.topics.items() for p in range(n)}
        withheld = bool(self.group.members) and held != everything
        event(f"{self.group.assignor}: {'partitions withheld' if withheld else 'nothing withheld'}")
        self.withheld_rounds = self.withheld_rounds + 1 if withheld else 0
        self.answer = dict(answer)
        self.generation += 1
        self.group = next_round(self.group, answer, self.generation)

    @rule()
    def join(self) -> None:
        self.next_id += 1
        newcomer = sticky_member(self.group.assignor, f"m{self.next_id}", ("t0", "t1"))
        self.group = ClassicAssignorInput(
            self.group.assignor, (*self.group.members, newcomer), self.group.topics
        )
        self._rebalance()

    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        if not self.group.members:
            return
        gone = data.draw(st.sampled_from(self.group.members))
        rest = tuple(m for m in self.group.members if m is not gone)
        self.group = ClassicAssignorInput(self.group.assignor, rest, self.group.topics)
        self._rebalance()

    @rule()
    def rebalance_again(self) -> None:
        before = self.answer
        settled = self.withheld_rounds == 0
        self._rebalance()
        if settled and self.group.members:
            # Nobody joined or left and nothing was withheld: the answer stays put.
            assert {m: set(ps) for m, ps in self.answer.items()} == {m: set(ps) for m, ps in before.items()}
        else:
            # The owners revoked what was withheld: this round deals it, withholding nothing.
            assert self.withheld_rounds == 0


TestLivingGroup = LivingGroup.TestCase


# ---------------------------------------------------------------------------------------------
# Different subscriptions and racks (Kafka's general builder, rack-aware sticky)
# ---------------------------------------------------------------------------------------------

RACKS = ("r1", "r2", "r3")
#: What Kafka's answers keep on clean claims whatever the path (docs/divergences.md names the rest).
KAFKA_KEEPS = ("complete", "exactly_once", "balanced", "sticky", "revoke_first")


@st.composite
def mixed_groups(draw: st.DrawFn) -> ClassicAssignorInput:
    """Members each with their own subscription (unknown topics included) and optionally a
    rack; replicas on racks; claims as in :func:`groups`."""
    assignor = draw(st.sampled_from(STICKY_ASSIGNORS))
    counts = draw(st.dictionaries(st.sampled_from(TOPICS), st.integers(0, 6), min_size=1))
    names = (*TOPICS, "gone")
    claimable = st.tuples(st.sampled_from(TOPICS), st.integers(0, 8))
    ids = draw(
        st.lists(st.text("abc\u00e9\U00010000", min_size=1, max_size=3), min_size=1, max_size=6, unique=True)
    )
    members = tuple(
        replace(
            sticky_member(
                assignor,
                member_id,
                tuple(draw(st.lists(st.sampled_from(names), unique=True, max_size=4))),
                draw(st.lists(claimable, max_size=4)),
                draw(st.none() | st.integers(0, 3)),
            ),
            rack_id=draw(st.none() | st.sampled_from(RACKS)),
        )
        for member_id in ids
    )
    racks = {}
    if draw(st.booleans()):
        racks = {
            t: tuple(draw(st.frozensets(st.sampled_from(RACKS), max_size=2)) for _ in range(n))
            for t, n in counts.items()
        }
    return ClassicAssignorInput(assignor, members, counts, racks)


def handed_back(group: ClassicAssignorInput, answer: ClassicAssignment) -> bool:
    """Whether every partition a member holds outside its subscription is one it claimed (Kafka's
    hand-back to an older generation's owner, docs/divergences.md)."""
    by_id = {m.member_id: m for m in group.members}
    return all(
        tp[0] in by_id[member].topics or tp in set(claim(group, by_id[member])[0])
        for member, parts in answer.items()
        for tp in parts
    )


def overlooked_empty(group: ClassicAssignorInput) -> bool:
    """Kafka took its constrained builder though subscriptions differ: a member subscribed to
    nothing came first in its map (docs/divergences.md)."""
    members = orders.kafka_member_map_order(group)
    return kafka_subscriptions_equal(members) and len({frozenset(m.topics) for m in members}) > 1


def older_claimant_set_aside(group: ClassicAssignorInput) -> bool:
    """A member claimed partitions in an older generation than the group's newest and can take
    nothing from anyone (each topic it subscribes to has it alone): Kafka's balancing sets it
    aside, and a hand-back to it then reads its size from a map without it, which throws even on
    clean claims (docs/divergences.md, classic_sticky_general_invalid_claims)."""
    claims = {m.member_id: claim(group, m) for m in group.members}
    newest = max((gen for _, gen in claims.values()), default=-1)
    subscribers = Counter(t for m in group.members for t in set(m.topics))
    return any(
        claims[m.member_id][0]
        and claims[m.member_id][1] < newest
        and all(subscribers[t] == 1 for t in m.topics if group.partition_count(t))
        for m in group.members
    )


@given(mixed_groups())
def test_mixed_groups_keep_the_rules_in_both_layers_and_in_kafka_mode(group: ClassicAssignorInput) -> None:
    spec = spec_assign(group)
    mine = impl_assign(group)
    assert all(check_properties(group, spec).values())
    assert all(check_properties(group, mine).values()), check_properties(group, mine)
    event("plain" if sticky_plain(group) else "general" + (" rack-aware" if sticky_rack_aware(group) else ""))
    assert mine == spec
    try:
        kafka = impl_assign(group, compat="kafka")
    except PartitionAssignorError as exc:
        event(f"Kafka throws {exc.kafka_exception}")
        assert not clean(group) or (
            exc.kafka_exception == "NullPointerException" and older_claimant_set_aside(group)
        ) or exc.kafka_exception == "none (Kafka's leader loops for ever)", group
        return
    assert {m: sorted(ps) for m, ps in kafka.items()} != {} or not group.members
    if clean(group):
        held = check_properties(group, kafka)
        assert all(held[p] for p in KAFKA_KEEPS), held
        assert held["subscribed"] or handed_back(group, kafka) or overlooked_empty(group)


class LivingMixedGroup(RuleBasedStateMachine):
    """A group whose members come and go with their own subscriptions and racks; every round's
    groupspec answer is fed back as the claims, and every answer keeps the rules."""

    @initialize(assignor=st.sampled_from(STICKY_ASSIGNORS), counts=st.tuples(*(st.integers(0, 5),) * 3))
    def start(self, assignor: str, counts: tuple[int, int, int]) -> None:
        self.group = ClassicAssignorInput(assignor, (), dict(zip(TOPICS, counts, strict=True)))
        self.generation = 1
        self.next_id = 0

    def _rebalance(self) -> None:
        spec, mine = spec_assign(self.group), impl_assign(self.group)
        assert all(check_properties(self.group, spec).values())
        assert mine == spec
        if self.group.members:  # Kafka divides by the member count
            held = check_properties(self.group, impl_assign(self.group, compat="kafka"))
            assert all(held[p] for p in KAFKA_KEEPS), held
        self.generation += 1
        self.group = next_round(self.group, mine, self.generation)

    @rule(
        topics=st.lists(st.sampled_from(TOPICS), unique=True, min_size=1),
        rack=st.none() | st.sampled_from(RACKS),
    )
    def join(self, topics: list[str], rack: str | None) -> None:
        self.next_id += 1
        newcomer = replace(
            sticky_member(self.group.assignor, f"m{self.next_id}", tuple(topics)), rack_id=rack
        )
        self.group = replace(self.group, members=(*self.group.members, newcomer))
        self._rebalance()

    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        if self.group.members:
            gone = data.draw(st.sampled_from(self.group.members))
            self.group = replace(self.group, members=tuple(m for m in self.group.members if m is not gone))
            self._rebalance()

    @rule(data=st.data(), topics=st.lists(st.sampled_from(TOPICS), unique=True, min_size=1))
    def resubscribe(self, data: st.DataObject, topics: list[str]) -> None:
        if self.group.members:
            who = data.draw(st.sampled_from(self.group.members))
            changed = replace(who, topics=tuple(topics))
            self.group = replace(
                self.group, members=tuple(changed if m is who else m for m in self.group.members)
            )
            self._rebalance()

    @rule()
    def rebalance_again(self) -> None:
        if self.group.members:
            self._rebalance()


TestLivingMixedGroup = LivingMixedGroup.TestCase

"""Spec and implementation of the sticky assignors agree, round after round (Hypothesis).

Groups share one subscription (the part groupspec models). Claims are drawn freely: beyond a
topic's count, repeated, clashing in one generation or across generations, in the user data
(Sticky) or the subscription (CooperativeSticky). On each group the spec's answer keeps its
contract, the implementation's groupspec mode gives exactly that answer, and the Kafka-exact
mode either throws as Kafka does or, on claims that are clean (each partition claimed once,
within its count), hands the same partitions to the same members. Then the group lives on: a
stateful machine feeds each answer back as the members' claims, generation + 1, while members
join and leave, and checks that the cooperative rounds settle (nothing withheld once no member
reports a partition it must give up) and that a settled Sticky group stays put.
"""

from __future__ import annotations

from hypothesis import event, given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from groupspec.impl.classic_assignors import assign as impl_assign
from groupspec.spec.classic_assignors import assign as spec_assign
from groupspec.spec.classic_assignors import check_properties
from groupspec.types import PartitionAssignorError
from groupspec.types.classic_assignors import STICKY_ASSIGNORS, ClassicAssignorInput, TopicPartition
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

"""One share group evolving under churn; spec and implementation reassign it after every step.

Each step changes the group the way a coordinator sees it change (members join, leave and
resubscribe, topics are created, grow and are deleted, share state gets initialized or not),
then both assignors run with the spec's last target as every member's previous target, and
must agree exactly and produce a valid assignment. Moves (valid previous partitions a member
loses) are counted per step and reported with ``event``; a step that changes nothing must move
nothing.
"""

from __future__ import annotations

import itertools

from hypothesis import event, note
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
)

from groupspec.impl.simple_assignor.simple import assign as impl_assign
from groupspec.spec.simple_assignor import assign as spec_assign
from groupspec.spec.simple_assignor import check_properties, pools
from groupspec.types import AssignorInput, GroupAssignment, MemberSpec
from tests.strategies import TOPIC_NAMES, UNKNOWN

MAX_MEMBERS = 10
NAMES = st.sampled_from(TOPIC_NAMES)
SUBSCRIPTIONS = st.lists(st.sampled_from((*TOPIC_NAMES, UNKNOWN)), unique=True, max_size=3).map(
    tuple)


class ShareGroupChurn(RuleBasedStateMachine):
    """The group's metadata and members; ``target`` is the spec's latest answer."""

    members = Bundle("members")

    def __init__(self) -> None:
        super().__init__()
        self.ids = (f"m{k}" for k in itertools.count())
        self.subscriptions: dict[str, tuple[str, ...]] = {}
        self.topics: dict[str, int] = {}
        self.assignable: dict[str, frozenset[int]] | None = None
        self.target: GroupAssignment = {}
        #: extra previous partitions a member claims at the next reassignment (stale ones).
        self.planted: dict[str, dict[str, frozenset[int]]] = {}
        self.moves: list[int] = []

    # -- the reassignment every rule ends with -------------------------------------------------

    def _group(self) -> AssignorInput:
        members = []
        for member_id, topics in self.subscriptions.items():
            previous = {t: frozenset(ps) for t, ps in self.target.get(member_id, {}).items()}
            for t, ps in self.planted.get(member_id, {}).items():
                previous[t] = previous.get(t, frozenset()) | ps
            members.append(MemberSpec(member_id, topics, previous))
        return AssignorInput(tuple(members), dict(self.topics), assignable=self.assignable)

    def _reassign(self) -> int:
        group = self._group()
        expected = spec_assign(group)
        assert impl_assign(group) == expected
        failed = [name for name, ok in check_properties(group, expected).items() if not ok]
        assert failed == [], failed
        moves = _moves(group, expected)
        self.target, self.planted = expected, {}
        self.moves.append(moves)
        event(f"moves in one step: {min(moves, 5)}{'+' if moves >= 5 else ''}")
        note(f"target: {_show(expected)}; moves {moves}")
        return moves

    # -- members -------------------------------------------------------------------------------

    @initialize(name=NAMES, partitions=st.integers(1, 6))
    def first_topic(self, name, partitions):
        self.topics[name] = partitions
        self._reassign()

    @initialize(target=members, topics=SUBSCRIPTIONS)
    def first_member(self, topics):
        return self._join(topics)

    @precondition(lambda self: len(self.subscriptions) < MAX_MEMBERS)
    @rule(target=members, topics=SUBSCRIPTIONS)
    def join(self, topics):
        return self._join(topics)

    @precondition(lambda self: len(self.subscriptions) < MAX_MEMBERS and self.subscriptions)
    @rule(target=members)
    def join_like_the_others(self):
        """Homogeneous groups are the common case; keep returning to one."""
        return self._join(next(iter(self.subscriptions.values())))

    def _join(self, topics: tuple[str, ...]) -> str:
        member_id = next(self.ids)
        self.subscriptions[member_id] = topics
        self._reassign()
        return member_id

    @rule(member=consumes(members))
    def leave(self, member):
        del self.subscriptions[member]
        self._reassign()

    @rule(member=members, topics=SUBSCRIPTIONS)
    def resubscribe(self, member, topics):
        self.subscriptions[member] = topics
        self._reassign()

    @precondition(lambda self: self.subscriptions)
    @rule(topics=SUBSCRIPTIONS)
    def everyone_subscribes(self, topics):
        self.subscriptions = dict.fromkeys(self.subscriptions, topics)
        self._reassign()

    # -- topics --------------------------------------------------------------------------------

    @rule(name=NAMES, partitions=st.integers(0, 6))
    def create_topic(self, name, partitions):
        if name not in self.topics:
            self.topics[name] = partitions
        self._reassign()

    @rule(name=NAMES, more=st.integers(1, 4))
    def add_partitions(self, name, more):
        if name in self.topics:
            self.topics[name] += more
        self._reassign()

    @rule(name=NAMES)
    def delete_topic(self, name):
        self.topics.pop(name, None)
        if self.assignable is not None:
            self.assignable.pop(name, None)
        self._reassign()

    # -- share state initialization (what may be assigned) -------------------------------------

    @rule(name=NAMES, initialized=st.frozensets(st.integers(0, 9)))
    def restrict_assignable(self, name, initialized):
        if name in self.topics:
            if self.assignable is None:  # until now every existing partition was initialized
                self.assignable = {t: frozenset(range(n)) for t, n in self.topics.items()}
            self.assignable = {**self.assignable, name: initialized}
        self._reassign()

    @rule()
    def everything_assignable(self):
        self.assignable = None
        self._reassign()

    # -- stale previous targets ----------------------------------------------------------------

    @rule(member=members, name=st.sampled_from((*TOPIC_NAMES, UNKNOWN)),
          partition=st.integers(0, 12))
    def plant_stale_partition(self, member, name, partition):
        """The member's previous target claims a partition that may not exist (any more)."""
        self.planted.setdefault(member, {})[name] = frozenset({partition})
        self._reassign()

    # -- nothing changes -----------------------------------------------------------------------

    @rule()
    def reassign_unchanged(self):
        before = self.target
        assert self._reassign() == 0
        assert self.target == before

    @invariant()
    def every_member_has_a_target(self):
        assert list(self.target) == list(self.subscriptions)


def _moves(group: AssignorInput, result: GroupAssignment) -> int:
    """Valid previous partitions (in the member's pool) that the member no longer holds."""
    moved = 0
    for pool in pools(group):
        for i in pool.subscribers:
            member = group.members[i]
            now = result[member.member_id]
            moved += sum(1 for t, p in pool.partitions
                         if p in member.assignment.get(t, ()) and p not in now.get(t, ()))
    return moved


def _show(result: GroupAssignment) -> str:
    return ", ".join(f"{m}: {{{', '.join(f'{t}: {sorted(ps)}' for t, ps in a.items())}}}"
                     for m, a in result.items())


TestShareGroupChurn = ShareGroupChurn.TestCase

"""The share-group SimpleAssignor, as rules.

Theory of operation
-------------------
Kafka's SimpleAssignor (group-coordinator/.../assignor/SimpleAssignor.java and its two builders)
balances partitions over the members of a share group, letting several members share a
partition when there are more members than partitions, and keeping members on the partitions
they already have where it can. This module states what it is meant to do, in plain loops:

* A **pool** is a set of partitions balanced together, with its subscribers in member order.
  A homogeneous group (every member subscribes to the same topic names, or nobody subscribes to
  anything) has one pool: every assignable partition of the common subscription. A
  heterogeneous group has one pool per subscribed topic, and balance holds per topic only.
* With N subscribers and P partitions a pool wants each partition shared by
  ``s = ceil(N / P)`` members and member i (its position among the subscribers) to hold
  ``desired[i] = ceil(s*P*(i+1)/N) - ceil(s*P*i/N)`` partitions: counts within one of each
  other, summing to ``s*P``.
* Four phases, in Kafka 4.2's order: keep the valid part of each member's previous target;
  trim members above their count; trim partitions above the sharing; fill the gaps round-robin.

What groupspec keeps from Kafka, and what it deliberately does not (docs/divergences.md has the
evidence and a vector for each):

* Kept: the pools, ``s``, the count formula, the phase order, the round-robin fill.
* Exact integer arithmetic for ``desired``; Kafka uses doubles, which drift (7 members and
  29 partitions desire 30 partitions in Kafka).
* Explicit orders instead of Java hash orders: members in input order; a pool's partitions by
  topic name, then partition number. Kafka's result depends on Java String hashes of member ids
  and on topic UUIDs, which makes it unpredictable without emulating java.util.HashMap.
* Previous partitions that are stale (deleted topic, partition number out of range, not
  assignable) or of topics the member no longer subscribes to are revoked. Kafka's homogeneous
  builder keeps stale ones; its heterogeneous builder keeps partitions of topics nobody
  subscribes to.
* The fill gives up on a partition only when no member below its count can take it. Kafka's
  fill gives up after one fruitless pass and then skips every later partition too.

The Kafka-compatible mode of groupspec.impl reproduces Kafka exactly, quirks included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import icontract

from groupspec.types import AssignorInput, GroupAssignment

HOMOGENEOUS = "HOMOGENEOUS"
HETEROGENEOUS = "HETEROGENEOUS"

TopicPartition = tuple[str, int]


# ---------------------------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------------------------


@icontract.require(lambda n_members: n_members >= 0)
@icontract.require(lambda n_partitions: n_partitions >= 0)
@icontract.ensure(lambda n_members, n_partitions, result:
                  (result == 0) == (n_partitions == 0 or n_members == 0))
@icontract.ensure(lambda n_members, n_partitions, result: n_partitions == 0 or n_members == 0 or (
    result * n_partitions >= n_members > (result - 1) * n_partitions))
def desired_sharing(n_members: int, n_partitions: int) -> int:
    """How many members should share each partition: ceil(N/P), or 0 when there is nothing."""
    if n_partitions == 0:
        return 0
    return (n_members + n_partitions - 1) // n_partitions


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@icontract.require(lambda n_members: n_members >= 0)
@icontract.require(lambda n_partitions: n_partitions >= 0)
@icontract.ensure(lambda n_members, result: len(result) == n_members)
@icontract.ensure(lambda n_members, n_partitions, result: n_members == 0 or
                  sum(result) == desired_sharing(n_members, n_partitions) * n_partitions)
@icontract.ensure(lambda result: not result or max(result) - min(result) <= 1)
@icontract.ensure(lambda n_partitions, result: all(c <= n_partitions for c in result))
def desired_counts(n_members: int, n_partitions: int) -> list[int]:
    """How many partitions each member position should hold, with exact arithmetic.

    Kafka's formula ``ceil(x*(i+1)) - ceil(x*i)`` with ``x = s*P/N``, evaluated on integers.
    """
    if n_members == 0:
        return []
    total = desired_sharing(n_members, n_partitions) * n_partitions
    return [
        _ceil_div(total * (i + 1), n_members) - _ceil_div(total * i, n_members)
        for i in range(n_members)
    ]


# ---------------------------------------------------------------------------------------------
# Pools
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pool:
    """Partitions balanced together, and the member positions subscribed to all of them."""

    partitions: tuple[TopicPartition, ...]
    subscribers: tuple[int, ...]

    @property
    def sharing(self) -> int:
        return desired_sharing(len(self.subscribers), len(self.partitions))

    def desired(self) -> dict[int, int]:
        """Member position -> how many of this pool's partitions it should hold."""
        counts = desired_counts(len(self.subscribers), len(self.partitions))
        return dict(zip(self.subscribers, counts, strict=True))


def subscription_type(group: AssignorInput) -> str:
    """Kafka's rule (ModernGroup.subscriptionType): decided on topic NAMES, known or not."""
    subscriptions = {frozenset(m.topics) for m in group.members}
    return HOMOGENEOUS if len(subscriptions) <= 1 else HETEROGENEOUS


def _assignable_partitions(group: AssignorInput, topic: str) -> list[TopicPartition]:
    return [(topic, p) for p in range(group.topics.get(topic, 0)) if group.is_assignable(topic, p)]


def pools(group: AssignorInput) -> list[Pool]:
    """The pools of a group: one for a homogeneous group, one per subscribed topic otherwise.

    Subscribed names that are not in ``group.topics`` contribute no partitions.
    """
    if not group.members:
        return []
    if subscription_type(group) == HOMOGENEOUS:
        topics = sorted(set(group.members[0].topics))
        everyone = tuple(range(len(group.members)))
        parts = [tp for t in topics for tp in _assignable_partitions(group, t)]
        return [Pool(tuple(parts), everyone)] if topics else []
    result = []
    for topic in sorted({t for m in group.members for t in m.topics}):
        subscribers = tuple(i for i, m in enumerate(group.members) if topic in m.topics)
        result.append(Pool(tuple(_assignable_partitions(group, topic)), subscribers))
    return result


# ---------------------------------------------------------------------------------------------
# The assignor
# ---------------------------------------------------------------------------------------------


def _assign_pool(pool: Pool, previous: Sequence[Mapping[str, frozenset[int]]]) -> dict[int, list[
        TopicPartition]]:
    """Run the four phases on one pool; returns member position -> partitions in pool order."""
    s = pool.sharing
    desired = pool.desired()

    # Keep: the valid part of each member's previous target, in pool order.
    held = {i: [tp for tp in pool.partitions if tp[1] in previous[i].get(tp[0], ())]
            for i in pool.subscribers}

    # Trim members above their count: each keeps its first desired[i] partitions.
    for i in pool.subscribers:
        del held[i][desired[i]:]

    # Trim partitions above the sharing: each keeps its first s holders, in member order.
    for tp in pool.partitions:
        holders = [i for i in pool.subscribers if tp in held[i]]
        for i in holders[s:]:
            held[i].remove(tp)

    # Fill: round-robin over members below their count, resuming after the last one served;
    # a partition stays under-shared only when every such member already holds it.
    last = -1
    for tp in pool.partitions:
        count = sum(1 for i in pool.subscribers if tp in held[i])
        while count < s:
            takers = [i for i in pool.subscribers
                      if len(held[i]) < desired[i] and tp not in held[i]]
            if not takers:
                break
            later = [i for i in takers if i > last]
            last = later[0] if later else takers[0]
            held[last].append(tp)
            count += 1
    return held


def _valid_input(group: AssignorInput) -> bool:
    ids = group.member_ids()
    return (len(set(ids)) == len(ids)
            and all(n >= 0 for n in group.topics.values())
            and all(p >= 0 for m in group.members for ps in m.assignment.values() for p in ps))


@icontract.require(_valid_input, "member ids are unique; counts and partitions are not negative")
@icontract.ensure(lambda group, result: is_valid_assignment(group, result))
def assign(group: AssignorInput) -> GroupAssignment:
    """The target assignment of every member of ``group`` (members with nothing map to {})."""
    previous = [m.assignment for m in group.members]
    result: dict[str, dict[str, set[int]]] = {m.member_id: {} for m in group.members}
    for pool in pools(group):
        for i, parts in _assign_pool(pool, previous).items():
            for topic, partition in parts:
                result[group.members[i].member_id].setdefault(topic, set()).add(partition)
    return {m: {t: frozenset(ps) for t, ps in sorted(a.items())} for m, a in result.items()}


# ---------------------------------------------------------------------------------------------
# Properties any valid answer satisfies (used by contracts, tests, vectors and the sweep)
# ---------------------------------------------------------------------------------------------

PROPERTIES = ("complete", "subscribed", "coverage", "sharing", "counts", "fill", "sticky")


def check_properties(group: AssignorInput, result: GroupAssignment) -> dict[str, bool]:
    """Each property of PROPERTIES -> whether ``result`` satisfies it for ``group``.

    complete:   exactly the group's members appear.
    subscribed: a member only holds existing, assignable partitions of topics it subscribes to.
    coverage:   every pool partition has at least one holder.
    sharing:    no pool partition has more than s holders.
    counts:     no member holds more than desired[i] partitions of a pool (exact arithmetic).
    fill:       a partition with fewer than s holders is held by every member below its count.
    sticky:     a member keeps at least min(|V|, desired[i]) of the valid previous partitions V
                it has in a pool, counting as kept a lost one that ended with s holders who
                all held it before (a tie among previous holders that it lost).

    ``sticky`` follows the phases: the member trim leaves min(|V|, desired[i]) of V; the
    partition trim only takes partitions that keep s previous holders, and the fill leaves
    those alone. Which partitions a trimmed member keeps and who loses a tie are orders (Java
    hash orders in Kafka), so the property counts instead of naming them. No other property
    implies it: an assignor that ignores previous targets can pass all the rest. In the tricky
    case a full assignment (every partition at s holders) can fail it: the assignor prefers
    keeping previous holders to reaching the sharing. docs/machines/simple_assignor.md says when Kafka's own
    answers satisfy it.
    """
    ids = group.member_ids()
    ok = dict.fromkeys(PROPERTIES, True)
    if set(result) != set(ids) or len(result) != len(ids):
        ok["complete"] = False
    got: list[Mapping[str, frozenset[int]]] = [result.get(i, {}) for i in ids]
    for m, a in zip(group.members, got, strict=True):
        for topic, parts in a.items():
            if topic not in m.topics or not all(group.is_assignable(topic, p) for p in parts):
                ok["subscribed"] = False
    for pool in pools(group):
        s, desired = pool.sharing, pool.desired()
        mine = {i: {tp for tp in pool.partitions if tp[1] in got[i].get(tp[0], ())}
                for i in pool.subscribers}
        holders = {tp: sum(1 for i in pool.subscribers if tp in mine[i]) for tp in pool.partitions}
        for tp, h in holders.items():
            ok["coverage"] &= h >= 1
            ok["sharing"] &= h <= s
            ok["fill"] &= h >= s or all(tp in mine[i] for i in pool.subscribers
                                        if len(mine[i]) < desired[i])
        before = {i: {tp for tp in pool.partitions
                      if tp[1] in group.members[i].assignment.get(tp[0], ())}
                  for i in pool.subscribers}
        # Partitions at their sharing whose holders all held them before: a previous holder
        # that lost one lost a tie, not its stickiness.
        tied = {tp for tp, h in holders.items()
                if h >= s and all(tp in before[i] for i in pool.subscribers if tp in mine[i])}
        for i in pool.subscribers:
            ok["counts"] &= len(mine[i]) <= desired[i]
            credited = len(before[i] & mine[i]) + len((before[i] - mine[i]) & tied)
            ok["sticky"] &= credited >= min(len(before[i]), desired[i])
    return ok


def is_valid_assignment(group: AssignorInput, result: GroupAssignment) -> bool:
    """True when ``result`` satisfies every property in PROPERTIES for ``group``."""
    return all(check_properties(group, result).values())

"""How sticky the classic assignors are, against the fewest moves any balanced assignment needs.

Definitions
-----------
For a classic group whose members all subscribe to the same topics (the sticky assignors'
constrained case), with P partitions and M members, ``minQuota, expected = divmod(P, M)`` and
``maxQuota = minQuota + [expected > 0]`` (models/classic_balance.py proves these are the only
balanced shapes: every member at minQuota or maxQuota, exactly ``expected`` at maxQuota).

* The **prior** is what the group validly owned: each partition with a valid owner
  (``spec.classic_assignors.valid_owners``: the sole highest-generation claimant of an
  existing partition, claims read as the group's assignor reads them). A partition whose owner
  left, that was claimed by a tie, or that is new has no prior pair: handing it out is no move.
* The **moves** of an answer are the prior pairs it does not contain: partitions taken from
  their valid owner. A CooperativeSticky answer withholds a partition changing owner; it is
  still taken from its owner in that round, so it counts.
* ``solve(group)`` gives the least moves over balanced assignments (every partition once,
  totals within one).

Methods
-------
Unlike the SimpleAssignor's positional counts (models/min_moves.py), a balanced classic answer
may give the ``expected`` extra partitions to any members. Which ones is the only choice that
matters: given the per-member counts, the fewest moves are min-cost flow, which
``min_moves._solve_flow`` computes (sharing 1). The choice is made greedily: the extra goes to
the members owning the most (a member that owns more than minQuota keeps one more by it, any
other gains nothing). ``method="z3"`` leaves the choice free (per-member counts between the
quotas, each partition exactly once, most kept pairs by Optimize) and the tests hold the two to
the same minimum. The closed form the greedy gives, ``kept = sum min(o_i, minQuota) +
min(expected, #{o_i > minQuota})`` (o_i: what member i validly owns), is checked too.

``measure`` runs one rebalance of a settled group after a change (a member joins, a member
leaves, a topic grows) and reports the assignor's moves beside the minimum.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from groupspec.models.min_moves import _solve_flow
from groupspec.spec.classic_assignors import all_partitions, valid_owners
from groupspec.types import InputError
from groupspec.types.classic_assignors import (
    COOPERATIVE_STICKY,
    STICKY,
    ClassicAssignment,
    ClassicAssignorInput,
    ClassicMember,
    TopicPartition,
    encode_sticky_user_data,
)

Method = Literal["flow", "z3"]
Change = Literal["join", "leave", "grow", "claims"]
#: The changes a settled group goes through; "claims" (measured only) is no change but a group
#: whose members claim random disjoint handfuls, unbalanced, as after an outage or a rollout.
CHANGES: tuple[Change, ...] = ("join", "leave", "grow")
MEASURED: tuple[Change, ...] = (*CHANGES, "claims")


@dataclass(frozen=True)
class ClassicMinMoves:
    """The minimum, with what it was computed from (``owned``: valid prior per member, in
    the group's member order)."""

    moves: int
    prior: int
    kept: int
    min_quota: int
    expected_over: int
    owned: tuple[int, ...]
    assignment: dict[str, tuple[TopicPartition, ...]]


def _check_scope(group: ClassicAssignorInput) -> None:
    if len({frozenset(m.topics) for m in group.members}) > 1:
        raise InputError("members", "min moves: members with different subscriptions are not modelled "
                                    "(balance across them has no common quota)")


def prior(group: ClassicAssignorInput) -> dict[str, set[TopicPartition]]:
    """Each member's validly owned partitions (the pairs a move takes away)."""
    out: dict[str, set[TopicPartition]] = {m.member_id: set() for m in group.members}
    for tp, owner in valid_owners(group).items():
        if owner is not None:
            out[owner].add(tp)
    return out


def moves(group: ClassicAssignorInput, result: ClassicAssignment) -> int:
    """How many prior pairs ``result`` took away from their owner."""
    return sum(1 for member, parts in prior(group).items() for tp in parts
               if tp not in set(result.get(member, ())))


def closed_form_kept(owned: Sequence[int], min_quota: int, expected: int) -> int:
    """Most prior pairs a balanced answer keeps: everyone up to minQuota, plus one for each of
    the ``expected`` extra places given to a member owning more than minQuota."""
    return sum(min(o, min_quota) for o in owned) + min(expected, sum(1 for o in owned if o > min_quota))


def solve(group: ClassicAssignorInput, method: Method = "flow") -> ClassicMinMoves:
    """An optimal balanced assignment and its numbers (module docstring)."""
    if method not in ("flow", "z3"):
        raise ValueError(f"method: expected 'flow' or 'z3', got {method!r}")
    _check_scope(group)
    parts = all_partitions(group)
    index = {tp: j for j, tp in enumerate(parts)}
    owners = prior(group)
    mine = [{index[tp] for tp in owners[m.member_id]} for m in group.members]
    n = len(group.members)
    lo, over = divmod(len(parts), n) if n else (0, 0)
    if method == "flow":
        richest = sorted(range(n), key=lambda k: -len(mine[k]))[:over]
        counts = [lo + (1 if k in richest else 0) for k in range(n)]
        held = _solve_flow(counts, 1, len(parts), mine) if n else []
    else:
        held = _solve_z3_free(n, lo, over, len(parts), mine)
    kept = sum(len(h & o) for h, o in zip(held, mine, strict=True))
    total = sum(len(o) for o in mine)
    assignment = {m.member_id: tuple(parts[j] for j in sorted(h))
                  for m, h in zip(group.members, held, strict=True)}
    return ClassicMinMoves(total - kept, total, kept, lo, over, tuple(len(o) for o in mine), assignment)


def _solve_z3_free(n: int, lo: int, over: int, n_parts: int,
                   prior_sets: Sequence[set[int]]) -> list[set[int]]:
    """Balanced with the extra places free: lo <= count_i <= lo + [over > 0], each partition
    once, most kept prior pairs (soft constraints). Small groups only."""
    import z3

    hi = lo + (1 if over else 0)
    x = [[z3.Bool(f"x_{i}_{j}") for j in range(n_parts)] for i in range(n)]
    opt = z3.Optimize()
    for j in range(n_parts):
        opt.add(z3.PbEq([(x[i][j], 1) for i in range(n)], 1))
    for i in range(n):
        opt.add(z3.PbGe([(x[i][j], 1) for j in range(n_parts)], lo))
        opt.add(z3.PbLe([(x[i][j], 1) for j in range(n_parts)], hi))
        for j in prior_sets[i]:
            opt.add_soft(x[i][j])
    if opt.check() != z3.sat:
        raise RuntimeError("Z3 Optimize gave no model for a satisfiable problem")
    model = opt.model()
    return [{j for j in range(n_parts) if z3.is_true(model.eval(x[i][j], model_completion=True))}
            for i in range(n)]


# ---------------------------------------------------------------------------------------------
# Measuring an assignor
# ---------------------------------------------------------------------------------------------

Assign = Callable[[ClassicAssignorInput], ClassicAssignment]


def member(assignor: str, member_id: str, topics: Sequence[str],
           owned: Sequence[TopicPartition] = (), generation: int | None = None) -> ClassicMember:
    """A member as a Kafka 4.2 client sends it: owned partitions and generation in the
    subscription, and for ``sticky`` in the user data too (the only place StickyAssignor reads)."""
    data = encode_sticky_user_data(tuple(owned), generation) if assignor == STICKY and owned else None
    return ClassicMember(member_id, tuple(topics), tuple(owned), None, generation, None, data)


def next_round(group: ClassicAssignorInput, answer: ClassicAssignment,
               generation: int) -> ClassicAssignorInput:
    members = tuple(member(group.assignor, m.member_id, m.topics, answer[m.member_id], generation)
                    for m in group.members)
    return ClassicAssignorInput(group.assignor, members, group.topics)


def settle(group: ClassicAssignorInput, assign: Assign, generation: int) -> tuple[ClassicAssignorInput, int]:
    """Rebalance until nothing is withheld (one round for the eager assignors; a cooperative
    round that revoked something is followed by another); the next round's input and generation."""
    for _ in range(4):
        answer = assign(group)
        group = next_round(group, answer, generation)
        generation += 1
        if sum(len(v) for v in answer.values()) == len(all_partitions(group)):
            return group, generation
    raise RuntimeError("no settled answer after 4 rounds")


@dataclass(frozen=True)
class Measurement:
    assignor: str
    change: Change
    members: int
    partitions: int
    moves: int
    min_moves: int
    prior: int
    followup_moves: int  # CooperativeSticky: moves of the round after (what it then revokes)


def random_change(rng: random.Random, group: ClassicAssignorInput, change: Change) -> ClassicAssignorInput:
    """The group after ``change``: a new member without claims, a member gone (its partitions
    orphaned), or one topic grown by 1 to 100% of its size (at least one partition)."""
    topics = sorted(group.members[0].topics) if group.members else sorted(group.topics)
    members = list(group.members)
    counts = dict(group.topics)
    if change == "join":
        members.append(member(group.assignor, f"m-new-{rng.randrange(10**6)}", topics))
    elif change == "leave" and len(members) > 1:
        members.pop(rng.randrange(len(members)))
    elif change == "grow":
        t = rng.choice(topics)
        counts[t] += rng.randint(1, max(1, counts[t]))
    return ClassicAssignorInput(group.assignor, tuple(members), counts)


def random_group(rng: random.Random, assignor: str, max_members: int,
                 max_partitions: int) -> ClassicAssignorInput:
    """Members on one subscription over 1-4 topics, no claims yet."""
    n_topics = rng.randint(1, 4)
    sizes = [rng.randint(0, max(1, max_partitions // n_topics)) for _ in range(n_topics)]
    topics = {f"t{k}": s for k, s in enumerate(sizes)}
    names = sorted(topics)
    members = tuple(member(assignor, f"m{k:04d}-{rng.randrange(1000)}", names)
                    for k in range(rng.randint(1, max_members)))
    return ClassicAssignorInput(assignor, members, topics)


def random_claims(rng: random.Random, group: ClassicAssignorInput) -> ClassicAssignorInput:
    """Every member claims, at generation 1, a random share (0 to twice the fair share) of the
    partitions nobody claimed yet."""
    free = list(all_partitions(group))
    rng.shuffle(free)
    fair = max(1, len(free) // max(1, len(group.members)))
    members = []
    for m in group.members:
        take = rng.randint(0, 2 * fair)
        members.append(member(group.assignor, m.member_id, m.topics, sorted(free[:take]), 1))
        free = free[take:]
    return ClassicAssignorInput(group.assignor, tuple(members), group.topics)


def measure(rng: random.Random, assignor: str, change: Change, assign: Assign,
            max_members: int = 30, max_partitions: int = 120, churn: int = 2) -> Measurement:
    """Settle a random group with ``assign``, put it through ``churn`` random changes (each
    settled), then make ``change`` and compare the next answer's moves with the minimum."""
    group = random_group(rng, assignor, max_members, max_partitions)
    if change == "claims":
        group, gen = random_claims(rng, group), 2
    else:
        group, gen = settle(group, assign, 1)
        for _ in range(churn):
            group, gen = settle(random_change(rng, group, rng.choice(CHANGES)), assign, gen)
        group = random_change(rng, group, change)
    answer = assign(group)
    made = moves(group, answer)
    followup = 0
    if assignor == COOPERATIVE_STICKY:
        after = next_round(group, answer, gen)
        followup = moves(after, assign(after))
    best = solve(group)
    return Measurement(assignor, change, len(group.members), len(all_partitions(group)), made,
                       best.moves, best.prior, followup)


def summarize(rows: Sequence[Measurement]) -> Mapping[str, object]:
    """Cases, how many at the minimum, excess moves (sum, max) and the moves / min ratio."""
    at_min = sum(1 for r in rows if r.moves == r.min_moves)
    excess = [r.moves - r.min_moves for r in rows]
    with_min = [r for r in rows if r.min_moves > 0]
    return {
        "cases": len(rows),
        "at_minimum": at_min,
        "below_minimum": sum(1 for e in excess if e < 0),
        "excess_sum": sum(excess),
        "excess_max": max(excess, default=0),
        "moves_sum": sum(r.moves for r in rows),
        "min_sum": sum(r.min_moves for r in rows),
        "ratio_mean": (round(sum(r.moves / r.min_moves for r in with_min) / len(with_min), 3)
                       if with_min else None),
        "followup_moves": sum(r.followup_moves for r in rows),
    }

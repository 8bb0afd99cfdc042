"""Seeded generators of share-group shapes for sweeps, checks, benchmarks and vectors.

A case is fully determined by ``(seed, index)``, so a counterexample found by a Spark executor
on a cluster can be rebuilt on a laptop from two integers. Sizes are drawn log-uniformly, so a
sweep sees many small groups (where corner cases live) and still reaches thousands of members
and partitions. Prior assignments come from running the assignor on an earlier version of the
group and then applying churn, which is how real targets evolve.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

from groupspec.types import AssignorInput, MemberSpec

PRIORS = ("empty", "stable", "churn")
CHURNS = ("join", "leave", "add_partitions", "delete_topic", "resubscribe", "stale")


@dataclass(frozen=True)
class Shape:
    """The parameters a case was drawn from; recorded next to every result."""

    members: int
    topics: int
    partitions_per_topic: int
    heterogeneous: bool
    prior: str  # one of PRIORS
    churn: str = ""  # one of CHURNS when prior == "churn"

    @property
    def partitions(self) -> int:
        return self.topics * self.partitions_per_topic


def _log_uniform(rng: random.Random, low: int, high: int) -> int:
    if high <= low:
        return low
    return min(high, int(math.exp(rng.uniform(math.log(low), math.log(high + 1)))))


def random_shape(rng: random.Random, max_members: int = 2000, max_partitions: int = 5000) -> Shape:
    members = _log_uniform(rng, 1, max_members)
    topics = _log_uniform(rng, 1, min(20, max_partitions))
    per_topic = _log_uniform(rng, 1, max(1, max_partitions // topics))
    prior = rng.choice(PRIORS)
    return Shape(members, topics, per_topic, rng.random() < 0.5, prior,
                 rng.choice(CHURNS) if prior == "churn" else "")


def _subscriptions(rng: random.Random, shape: Shape, names: list[str]) -> list[tuple[str, ...]]:
    if not shape.heterogeneous or len(names) == 1:
        return [tuple(names)] * shape.members
    return [tuple(sorted(rng.sample(names, rng.randint(1, len(names)))))
            for _ in range(shape.members)]


def build_group(shape: Shape, seed: int) -> AssignorInput:
    """The group a shape describes, with its prior assignment; deterministic in (shape, seed)."""
    from groupspec.impl.simple_assignor import assign

    rng = random.Random(seed)
    names = [f"topic-{t}" for t in range(shape.topics)]
    counts = dict.fromkeys(names, shape.partitions_per_topic)
    subs = _subscriptions(rng, shape, names)
    members = tuple(MemberSpec(f"member-{i}", s) for i, s in enumerate(subs))
    group = AssignorInput(members, counts)
    if shape.prior == "empty":
        return group
    stable = assign(group)
    members = tuple(replace(m, assignment=stable[m.member_id]) for m in members)
    group = replace(group, members=members)
    if shape.prior == "stable":
        return group
    return churn(group, shape.churn, rng)


def churn(group: AssignorInput, kind: str, rng: random.Random) -> AssignorInput:
    """One change to a stable group, keeping the survivors' prior assignments."""
    members = list(group.members)
    topics = dict(group.topics)
    names = sorted(topics)
    if kind == "join":
        base = len(members)
        for k in range(max(1, len(members) // 10) if rng.random() < 0.5 else 1):
            subs = members[0].topics if members else tuple(names)
            if rng.random() < 0.3 and names:
                subs = tuple(sorted(rng.sample(names, rng.randint(1, len(names)))))
            members.append(MemberSpec(f"member-{base + k}", subs))
    elif kind == "leave" and len(members) > 1:
        leaving = set(rng.sample(range(len(members)), max(1, len(members) // 10)))
        members = [m for i, m in enumerate(members) if i not in leaving] or members[:1]
    elif kind == "add_partitions" and names:
        topic = rng.choice(names)
        topics[topic] += max(1, topics[topic] // 4)
    elif kind == "delete_topic" and len(names) > 1:
        gone = rng.choice(names)
        del topics[gone]
        members = [replace(m, topics=tuple(t for t in m.topics if t != gone) or
                           tuple(n for n in names if n != gone)[:1]) for m in members]
    elif kind == "resubscribe" and names:
        for i in rng.sample(range(len(members)), max(1, len(members) // 10)):
            subs = tuple(sorted(rng.sample(names, rng.randint(1, len(names)))))
            members[i] = replace(members[i], topics=subs)
    elif kind == "stale" and names:
        topic = rng.choice(names)
        topics[topic] = max(0, topics[topic] - max(1, topics[topic] // 4))
    return replace(group, members=tuple(members), topics=topics)


def case(seed: int, index: int, max_members: int = 2000,
         max_partitions: int = 5000) -> tuple[Shape, AssignorInput]:
    """Case ``index`` of the sweep seeded ``seed``."""
    rng = random.Random(f"{seed}:{index}")
    shape = random_shape(rng, max_members, max_partitions)
    return shape, build_group(shape, rng.randrange(2**32))


def cases(seed: int, n: int, max_members: int = 2000,
          max_partitions: int = 5000) -> Iterator[tuple[int, Shape, AssignorInput]]:
    """The first ``n`` cases of the sweep seeded ``seed``, with their indices."""
    for index in range(n):
        shape, group = case(seed, index, max_members, max_partitions)
        yield index, shape, group

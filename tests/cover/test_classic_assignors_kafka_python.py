"""Differential run: groupspec's Range and RoundRobin against kafka-python's (3.0.12) on random
groups without racks (kafka-python's assignors read none).

Every difference must have a known cause, checked by removing the cause and seeing the
difference go: docs/divergences.md ("kafka-python's classic assignors") lists the three.

* ``interleaved``: kafka-python splits members into static and dynamic with an unsorted
  ``itertools.groupby`` and keeps one run per kind, so when the two kinds alternate in the
  JoinGroup order, every run but the last of each kind is dropped from the assignment.
* ``code_points``: kafka-python sorts ids in Python's code point order; Kafka compares Java
  strings by UTF-16 units, which differ once a character beyond U+FFFF meets one at U+E000 or above.
* ``skip_crash``: kafka-python's RoundRobin raises KeyError whenever it must pass over a member
  not subscribed to a partition's topic (its loop binds the cycle's (instance id, member id)
  pair where a member id belongs), so it answers only groups where it never has to skip.
* ``listed_twice``: kafka-python's Range counts a member once per time its subscription names a
  topic, so a topic named twice gets one consumer too many and loses partitions.

``python -m tests.cover.test_classic_assignors_kafka_python`` prints the counts.
"""

from __future__ import annotations

import itertools
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor

from groupspec.spec.classic_assignors import assign as spec_assign
from groupspec.spec.classic_assignors import java_string_key
from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition

CASES, SEED = 2000, 2026


@dataclass
class _Cluster:
    counts: Mapping[str, int]

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return set(range(self.counts[topic])) if topic in self.counts else None


@dataclass
class _Metadata:
    topics: list[str]


@dataclass
class _Member:
    member_id: str
    group_instance_id: str | None
    metadata: _Metadata


def kafka_python(group: ClassicAssignorInput) -> dict[str, tuple[TopicPartition, ...]] | str:
    """kafka-python's answer, or the name of the exception it raised."""
    cls: Any = RangePartitionAssignor if group.assignor == "range" else RoundRobinPartitionAssignor
    members = [_Member(m.member_id, m.group_instance_id, _Metadata(list(m.topics))) for m in group.members]
    try:
        answer = cls.assign(_Cluster(dict(group.topics)), members)
    except KeyError:
        return "KeyError"
    return {m: tuple((t, p) for t, ps in a.assigned_partitions for p in ps) for m, a in answer.items()}


def causes(group: ClassicAssignorInput) -> set[str]:
    found = set()
    kinds = [m.group_instance_id is not None for m in group.members]
    if sum(1 for a, b in itertools.pairwise(kinds) if a != b) >= 2:
        found.add("interleaved")
    ids = [s for m in group.members for s in (m.member_id, m.group_instance_id) if s is not None]
    if sorted(ids) != sorted(ids, key=java_string_key):
        found.add("code_points")
    if group.assignor == "range" and any(len(set(m.topics)) != len(m.topics) for m in group.members):
        found.add("listed_twice")
    return found


def without(group: ClassicAssignorInput, cause: str) -> ClassicAssignorInput:
    """The same group with ``cause`` removed and nothing else changed that matters."""
    members = list(group.members)
    if cause == "interleaved":
        members.sort(key=lambda m: m.group_instance_id is None)  # statics first: one run each
    elif cause == "code_points":
        members = [
            replace(
                m,
                member_id=_ascii(m.member_id),
                group_instance_id=None if m.group_instance_id is None else _ascii(m.group_instance_id),
            )
            for m in members
        ]
    else:
        members = [replace(m, topics=tuple(dict.fromkeys(m.topics))) for m in members]
    return replace(group, members=tuple(members))


def _ascii(s: str) -> str:
    """Orders like Java's UTF-16 order, in ASCII: each UTF-16 unit as 4 hex digits."""
    return java_string_key(s).hex()


ALPHABET = ("a", "b", "B", "\ue000", "\U00010000")


def random_group(rng: random.Random) -> ClassicAssignorInput:
    topics = {f"t{k}": rng.randint(0, 9) for k in range(rng.randint(1, 4)) if rng.random() < 0.9}
    names = [f"t{k}" for k in range(5)]
    members, instances = [], set()
    for k in range(rng.randint(1, 8)):
        mid = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 2))) + str(k)
        inst = None
        if rng.random() < 0.4:
            inst = "".join(rng.choice(ALPHABET) for _ in range(2)) + f"-{k}"
            instances.add(inst)
        subs = rng.sample(names, rng.randint(0, 3))
        if subs and rng.random() < 0.05:
            subs.append(subs[0])
        members.append(ClassicMember(mid, tuple(subs), group_instance_id=inst))
    return ClassicAssignorInput(rng.choice(("range", "roundrobin")), tuple(members), topics)


@dataclass
class Tally:
    cases: int = 0
    differences: int = 0
    by_cause: dict[str, int] | None = None
    unexplained: list[ClassicAssignorInput] | None = None


def differential(cases: int = CASES, seed: int = SEED) -> Tally:
    rng = random.Random(seed)
    tally = Tally(by_cause={}, unexplained=[])
    assert tally.by_cause is not None and tally.unexplained is not None
    for _ in range(cases):
        group = random_group(rng)
        tally.cases += 1
        if kafka_python(group) == spec_assign(group):
            continue
        tally.differences += 1
        if kafka_python(group) == "KeyError":
            assert group.assignor == "roundrobin" and len({frozenset(m.topics) for m in group.members}) > 1
            tally.by_cause["skip_crash"] = tally.by_cause.get("skip_crash", 0) + 1
            continue
        present = causes(group)
        fixed = group
        for cause in sorted(present):
            fixed = without(fixed, cause)
        if not present or not _agrees(fixed):
            tally.unexplained.append(group)
        for cause in present:
            if _agrees(without(group, cause)) or len(present) > 1:
                tally.by_cause[cause] = tally.by_cause.get(cause, 0) + 1
    return tally


def _agrees(group: ClassicAssignorInput) -> bool:
    """kafka-python gives the spec's answer, or crashes for the ``skip_crash`` cause."""
    answer = kafka_python(group)
    if answer == "KeyError":
        return group.assignor == "roundrobin" and len({frozenset(m.topics) for m in group.members}) > 1
    return answer == spec_assign(group)


def test_every_difference_from_kafka_python_has_a_known_cause() -> None:
    tally = differential(400)
    assert tally.unexplained == [], tally.unexplained[:3]
    assert tally.by_cause is not None
    # Each cause really changes answers (were it gone, this run would show no differences).
    assert set(tally.by_cause) == {"interleaved", "code_points", "listed_twice", "skip_crash"}


def test_interleaved_static_members_lose_their_partitions_in_kafka_python() -> None:
    members = (
        ClassicMember("m1", ("t",), group_instance_id="i1"),
        ClassicMember("m2", ("t",)),
        ClassicMember("m3", ("t",), group_instance_id="i3"),
    )
    group = ClassicAssignorInput("roundrobin", members, {"t": 3})
    assert spec_assign(group) == {"m1": (("t", 0),), "m3": (("t", 1),), "m2": (("t", 2),)}
    assert kafka_python(group) == {"m1": (), "m2": (("t", 1),), "m3": (("t", 0), ("t", 2))}


def test_kafka_python_roundrobin_crashes_when_it_must_pass_over_a_member() -> None:
    members = (ClassicMember("a", ("u",)), ClassicMember("b", ("t",)))
    group = ClassicAssignorInput("roundrobin", members, {"t": 2, "u": 1})
    assert spec_assign(group) == {"a": (("u", 0),), "b": (("t", 0), ("t", 1))}
    assert kafka_python(group) == "KeyError"


def main(argv: Sequence[str]) -> int:
    cases = int(argv[0]) if argv else CASES
    tally = differential(cases)
    print(
        f"{tally.cases} random groups (seed {SEED}, no racks): {tally.differences} differ from kafka-python; "
        f"by cause {tally.by_cause}; unexplained {len(tally.unexplained or [])}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

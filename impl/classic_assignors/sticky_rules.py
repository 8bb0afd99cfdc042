"""groupspec's own sticky answer off the plain case (different subscriptions, or a rack-aware
group): the rules of spec/classic_assignors.py, built with counts kept up to date rather than
recomputed, so that large groups stay quick.

Kafka's general builder answers these groups its own way (:mod:`.sticky_general`, the Kafka
mode); groupspec's mode answers by the spec's rules, which fix every choice Kafka leaves to its
greedy order: keep every keepable partition, give each other partition to the least loaded
subscriber (a matching one first when rack-aware), then, while some member holds a partition that
a member with at least two fewer could hold, move one along the widest such gap.
"""

from __future__ import annotations

from collections.abc import Sequence

from groupspec.impl.classic_assignors.orders import java_key, partition_key, sorted_topics
from groupspec.impl.classic_assignors.sticky_racks import RackInfo
from groupspec.types.classic_assignors import ClassicAssignorInput, ClassicMember, TopicPartition

Assignment = dict[str, list[TopicPartition]]


def build(
    group: ClassicAssignorInput,
    members: Sequence[ClassicMember],
    owned: dict[str, list[TopicPartition]],
    racks: RackInfo,
) -> Assignment:
    """``owned``: each member's valid owned partitions (groupspec's cleaned claims)."""
    topics = sorted_topics(group)
    subscribers: dict[str, list[ClassicMember]] = {t: [] for t in topics}
    for m in members:
        for t in dict.fromkeys(m.topics):
            if t in subscribers:
                subscribers[t].append(m)
    by_id = {m.member_id: m for m in members}
    keep = {
        member: {tp for tp in parts if tp[0] in by_id[member].topics and not racks.mismatch(member, tp)}
        for member, parts in owned.items()
    }
    held: Assignment = {m.member_id: sorted(keep[m.member_id], key=partition_key) for m in members}
    kept = {tp for parts in keep.values() for tp in parts}

    rest = [(t, p) for t in topics for p in range(group.partition_count(t)) if (t, p) not in kept]
    rest.sort(key=lambda tp: (len(subscribers[tp[0]]), partition_key(tp)))
    for tp in rest:
        takers = [m.member_id for m in subscribers[tp[0]] if not racks.mismatch(m.member_id, tp)]
        takers = takers or [m.member_id for m in subscribers[tp[0]]]
        held[min(takers, key=lambda c: (len(held[c]), java_key(c)))].append(tp)

    owner = {tp: member for member, parts in owned.items() for tp in parts}
    while True:
        gap = _widest_gap(members, held)
        if gap is None:
            return held
        giver, taker = gap
        wanted = by_id[taker].topics
        tp = min(
            (tp for tp in held[giver] if tp[0] in wanted),
            key=lambda tp: (
                tp not in keep[taker],
                owner.get(tp) == giver,
                racks.mismatch(taker, tp),
                partition_key(tp),
            ),
        )
        held[giver].remove(tp)
        held[taker].append(tp)


def _widest_gap(members: Sequence[ClassicMember], held: Assignment) -> tuple[str, str] | None:
    """(giver, taker) with the largest difference of counts, at least two, where the taker
    subscribes to a topic the giver holds; ties to the smaller giver id, then taker id."""
    best: tuple[int, bytes, bytes, str, str] | None = None
    for giver in members:
        count = len(held[giver.member_id])
        topics = {t for t, _ in held[giver.member_id]}
        for taker in members:
            gap = count - len(held[taker.member_id])
            if gap < 2 or topics.isdisjoint(taker.topics):
                continue
            key = (
                -gap,
                java_key(giver.member_id),
                java_key(taker.member_id),
                giver.member_id,
                taker.member_id,
            )
            if best is None or key < best:
                best = key
    return None if best is None else (best[3], best[4])

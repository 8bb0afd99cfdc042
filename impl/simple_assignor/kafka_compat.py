"""Kafka 4.2's SimpleAssignor, bit for bit: hash orders, double arithmetic and quirks included.

Theory of operation
-------------------
groupspec's own rules (spec/simple_assignor.py) deliberately differ from Kafka in a few places
(docs/divergences.md). This module is the other side of that comparison: it follows Kafka 4.2's
``SimpleAssignor``, ``SimpleHomogeneousAssignmentBuilder`` and
``SimpleHeterogeneousAssignmentBuilder`` step for step, over emulated ``java.util.HashMap`` and
``HashSet`` (java_collections), so that every iteration order, and so every answer and every
exception, is Kafka's. It was checked against the real Java classes compiled from Kafka's tree
(tests/data/kafka_simple_assignor_observed.jsonl holds a sample of those observations).

How an :class:`AssignorInput` becomes what Kafka's assignor is given. These are the modelling
decisions; each follows what the coordinator does (TargetAssignmentBuilder.build,
ShareGroupMember, Assignment.fromRecord, TopicIds) unless said otherwise:

* **Members.** ``GroupSpec.memberIds()`` is the key set of a ``java.util.HashMap<String, ...>``
  created with the default capacity and filled with ``put`` in input order (TargetAssignmentBuilder
  fills ``new HashMap<>()`` from the group's member map). So member positions follow Java String
  hash order of the member ids, with input order deciding only within a hash bucket (and only
  partly once a bucket is a tree bin, which orders by hash and String.compareTo). ASSUMPTION:
  the coordinator fills that map from a TimelineHashMap whose own order groupspec does not model;
  input order stands in for it (it only matters for ids whose hashes share a bucket).
* **Subscriptions.** A member's topic names go into ``new HashSet<>(names)`` in input order (as
  ShareGroupMember does) and reach the assignor as ``TopicIds``: a name resolves to an id when
  it is in ``group.topics`` or ``group.topic_ids``; other names are silently dropped from
  iteration and ``contains``. A name with an id but no partition count (in ``topic_ids`` but not
  in ``topics``) is the direct-use/race case: ``numPartitions`` answers -1 and the assignor throws
  PartitionAssignorException.
* **Topic ids.** ``group.topic_ids`` gives Kafka's topic UUIDs. A topic without one gets
  ``uuid5(TOPIC_ID_NAMESPACE, name)``, deterministic across runs and machines. Kafka's answers
  depend on these ids (through ``TopicIdPartition`` hashes), so two groups that differ only in
  topic ids can get different Kafka assignments. Two names with the same id are refused.
* **Previous targets.** Each member's previous target is ``new HashMap<>()`` filled with ``put``
  in the order of ``member.assignment``'s topics, each value ``new HashSet<>(partitions)`` with
  the partitions in ascending order (Assignment.fromRecord builds it that way from a record; the
  ascending order is groupspec's choice, since MemberSpec keeps partitions as a set). Topics with
  no id are given derived ids too, so deleted topics can be carried through.
* **Subscription type.** Decided on names, as ModernGroup.subscriptionType does: HOMOGENEOUS
  when nobody subscribes to anything or every subscribed name has every member as subscriber.
* **Assignable partitions.** ``group.assignable`` None is ``Optional.empty()`` (everything
  assignable); otherwise a partition is assignable when its topic is in the map and the
  partition in its set.

Key classes matter beyond their hash codes: where Java turns a crowded bucket into a tree bin
(java_collections), keys with equal hashes are ordered by ``compareTo``. String, Integer and
Uuid keys are Comparable and are given their comparators here; TopicIdPartition (a record) is
not, so a tree bin holding two of them with equal hash codes would be ordered by identity hash
in Java, and this mode raises TreeBinError rather than guess (only crafted topic ids get there).

Output: every input member, ``{topic name: frozenset}``, topics with empty sets omitted (a
member absent from Kafka's result, as when the subscription is empty, maps to ``{}``). Kafka's
exceptions become :class:`PartitionAssignorError` with ``kafka_exception`` naming the Java class:
``PartitionAssignorException`` (a subscribed topic id without metadata) or
``java.util.NoSuchElementException`` (the fill restarts its member iterator on an empty set).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from groupspec.impl.simple_assignor.java_collections import (
    JavaHashMap,
    JavaHashSet,
    helper_capacity,
    integer_compare,
    integer_hash,
    string_compare,
    string_hash,
    topic_id_partition_hash,
    uuid_compare,
    uuid_hash,
)
from groupspec.types import AssignorInput, GroupAssignment, InputError, PartitionAssignorError
from groupspec.types.topic_id import parse_topic_id

#: Namespace of the topic ids derived for topics that have none in ``group.topic_ids``.
TOPIC_ID_NAMESPACE = uuid.UUID("6f1c2d3e-9a4b-5c6d-8e7f-0a1b2c3d4e5f")

HOMOGENEOUS = "HOMOGENEOUS"
HETEROGENEOUS = "HETEROGENEOUS"

NO_SUCH_ELEMENT = "java.util.NoSuchElementException"
PARTITION_ASSIGNOR_EXCEPTION = "PartitionAssignorException"

TopicId = str  # a canonical UUID string
TopicIdPartition = tuple[TopicId, int]
OldMap = JavaHashMap[TopicId, JavaHashSet[int]]
_V = TypeVar("_V")


def derived_topic_id(name: str) -> str:
    """The topic id the Kafka mode uses for a topic without one in ``group.topic_ids``."""
    return str(uuid.uuid5(TOPIC_ID_NAMESPACE, name))


# ---------------------------------------------------------------------------------------------
# What the assignor is given (GroupSpec, TopicIds, SubscribedTopicDescriber)
# ---------------------------------------------------------------------------------------------


@dataclass
class _Member:
    topic_names: JavaHashSet[str]
    old: OldMap


class _Metadata:
    """Topic ids and hashes, the TopicIds resolver and the SubscribedTopicDescriber."""

    def __init__(self, group: AssignorInput) -> None:
        self.group = group
        names: list[str] = list(group.topics) + list(group.topic_ids)
        for m in group.members:
            names += list(m.topics) + list(m.assignment)
        self.id_of: dict[str, TopicId] = {}
        self.name_of: dict[TopicId, str] = {}
        for name in names:
            if name in self.id_of:
                continue
            explicit = group.topic_ids.get(name)
            tid = (str(parse_topic_id(explicit, f"topic_ids.{name}")) if explicit is not None
                   else derived_topic_id(name))
            if tid in self.name_of:
                raise InputError(f"topic_ids.{name}",
                                 f"topic id {tid} is also the id of {self.name_of[tid]!r}")
            self.id_of[name] = tid
            self.name_of[tid] = name
        self._uuid_hash = {tid: uuid_hash(tid) for tid in self.name_of}

    def uuid_map(self, capacity: int | None = None) -> JavaHashMap[TopicId, _V]:
        """A HashMap keyed by Uuid: Kafka's hash code, Uuid.compareTo for tree bins."""
        return JavaHashMap(self.uuid_hasher, capacity, compare=uuid_compare)

    def tip_set(self) -> JavaHashSet[TopicIdPartition]:
        """``new HashSet<TopicIdPartition>()``: a record, so not Comparable."""
        return JavaHashSet(self.tip_hasher)

    def resolvable(self, name: str) -> bool:
        return name in self.group.topics or name in self.group.topic_ids

    def uuid_hasher(self, tid: TopicId) -> int:
        return self._uuid_hash[tid]

    def tip_hasher(self, tp: TopicIdPartition) -> int:
        return topic_id_partition_hash(self._uuid_hash[tp[0]], tp[1])

    def subscribed_ids(self, member: _Member) -> list[TopicId]:
        """TopicIds iteration: the name set's order, names without an id dropped."""
        return [self.id_of[n] for n in member.topic_names.order() if self.resolvable(n)]

    def subscription_contains(self, member: _Member, tid: TopicId) -> bool:
        """TopicIds.contains: the id must resolve to a name, and the name be subscribed."""
        name = self.name_of.get(tid)
        return name is not None and self.resolvable(name) and name in member.topic_names

    def num_partitions(self, tid: TopicId) -> int:
        return self.group.topics.get(self.name_of[tid], -1)

    def is_assignable(self, tid: TopicId, partition: int) -> bool:
        if self.group.assignable is None:
            return True
        allowed = self.group.assignable.get(self.name_of[tid])
        return allowed is not None and partition in allowed

    def target_partitions(self, tid: TopicId) -> list[TopicIdPartition]:
        count = self.num_partitions(tid)
        if count == -1:
            raise PartitionAssignorError(
                f"Members are subscribed to topic {tid} ({self.name_of[tid]!r}) which doesn't "
                "exist in the topic metadata.", kafka_exception=PARTITION_ASSIGNOR_EXCEPTION)
        return [(tid, p) for p in range(count) if self.is_assignable(tid, p)]


def _final(old: JavaHashMap[int, OldMap], new: JavaHashMap[int, OldMap], n: int) -> dict[
        int, OldMap]:
    """Each member's new map when one was made, else its untouched previous map."""
    result = {}
    for i in range(n):
        found = new.get(i)
        result[i] = old[i] if found is None else found
    return result


def _new_int_set(capacity: int | None = None) -> JavaHashSet[int]:
    return JavaHashSet(integer_hash, capacity, compare=integer_compare)


def _int_map(capacity: int | None = None) -> JavaHashMap[int, _V]:
    return JavaHashMap(integer_hash, capacity, compare=integer_compare)


def _int_set_copy(parts: list[int]) -> JavaHashSet[int]:
    return JavaHashSet.copy_of(integer_hash, parts, compare=integer_compare)


def _deep_copy(meta: _Metadata, old: OldMap) -> OldMap:
    """AssignorHelpers.deepCopyAssignment: ``HashMap(size)`` of ``HashSet(collection)``."""
    copy: OldMap = meta.uuid_map(len(old))
    for tid, parts in old.items():
        copy.put(tid, _int_set_copy(parts.order()))
    return copy


def _new_map_getter(meta: _Metadata, old: JavaHashMap[int, OldMap],
                    new: JavaHashMap[int, OldMap]) -> Callable[[int], OldMap]:
    """``newGroupAssignment.get(i)``, deep-copying the member's previous map on first use.

    Both builders repeat this null-check-then-copy before every change to a member's target.
    """
    def new_map(i: int) -> OldMap:
        found = new.get(i)
        if found is None:
            found = _deep_copy(meta, old[i])
            new.put(i, found)
        return found

    return new_map


def desired_counts_java(n_members: int, sharing: int, n_partitions: int) -> list[int]:
    """Kafka's desired counts, in IEEE doubles with Java's operation order.

    ``precise = (s * P) / (double) N``; ``desired[i] = (int)ceil(precise * (double)(i + 1)) -
    (int)ceil(precise * (double)i)``. Python floats are IEEE doubles, so this drifts exactly as
    Kafka does (7 members, 29 partitions: [5, 4, 4, 4, 4, 4, 5]).
    """
    precise = (sharing * n_partitions) / float(n_members)
    return [math.ceil(precise * float(i + 1)) - math.ceil(precise * float(i))
            for i in range(n_members)]


class _MemberIterator:
    """A HashSet iterator over ``unfilled`` whose only concurrent change is its own ``remove``."""

    def __init__(self, members: JavaHashSet[int]) -> None:
        self._members = members
        self._order = members.order()
        self._pos = 0

    def has_next(self) -> bool:
        return self._pos < len(self._order)

    def next(self) -> int:
        if not self.has_next():
            raise PartitionAssignorError("the fill restarted its member iterator on an empty set",
                                         kafka_exception=NO_SUCH_ELEMENT)
        self._pos += 1
        return self._order[self._pos - 1]

    def remove(self) -> None:
        self._members.remove(self._order[self._pos - 1], from_iterator=True)


def _fill(
    partitions: list[tuple[TopicIdPartition, JavaHashSet[int]]],
    sharing: int,
    unfilled: JavaHashSet[int],
    give: Callable[[int, TopicIdPartition], bool],
) -> None:
    """assignRemainingPartitions, shared by both builders.

    ``give(member, tp)`` records the assignment and answers whether the member is now full.
    The holder set of a partition is NOT updated as members are given it (Kafka's code only
    reads it), so one member can be "given" the same partition twice when the iterator wraps.
    """
    iterator = _MemberIterator(unfilled)
    assigned_since_restart = False
    for tp, holders in partitions:
        if len(holders) < sharing:
            to_make = sharing - len(holders)
            while to_make > 0:
                if not iterator.has_next():
                    if not assigned_since_restart:
                        break
                    iterator = _MemberIterator(unfilled)
                    assigned_since_restart = False
                member = iterator.next()
                if member not in holders:
                    to_make -= 1
                    assigned_since_restart = True
                    if give(member, tp):
                        iterator.remove()
        if len(unfilled) == 0:
            break


# ---------------------------------------------------------------------------------------------
# SimpleHomogeneousAssignmentBuilder
# ---------------------------------------------------------------------------------------------


def _homogeneous(meta: _Metadata, members: list[_Member]) -> dict[int, OldMap] | None:
    """Member index -> final map, or None for Kafka's empty result (empty subscription)."""
    first = members[0]
    subscribed = meta.subscribed_ids(first)
    n = len(members)
    targets = [tp for tid in subscribed for tp in meta.target_partitions(tid)]
    p_count = len(targets)
    sharing = 0 if p_count == 0 else (n + p_count - 1) // p_count
    desired = desired_counts_java(n, sharing, p_count)
    old: JavaHashMap[int, OldMap] = _int_map(helper_capacity(n))
    new: JavaHashMap[int, OldMap] = _int_map(helper_capacity(n))
    by_partition: JavaHashMap[TopicIdPartition, JavaHashSet[int]] = JavaHashMap(
        meta.tip_hasher, helper_capacity(p_count))  # TopicIdPartition: not Comparable
    by_member: JavaHashMap[int, JavaHashSet[TopicIdPartition]] = _int_map(helper_capacity(n))
    unfilled = _new_int_set(helper_capacity(n))
    overfilled = _new_int_set(helper_capacity(n))
    for i, m in enumerate(members):
        old.put(i, m.old)
    if not first.topic_names.order():
        return None
    new_map = _new_map_getter(meta, old, new)
    tip_set = meta.tip_set

    # revokeUnassignablePartitions: keep subscribed topics (stale partitions included).
    for i, old_map in old.items():
        copy: OldMap | None = None
        count = 0
        for tid, parts in old_map.items():
            if meta.subscription_contains(first, tid):
                for p in parts.order():
                    count += 1
                    by_partition.compute_if_absent((tid, p), _new_int_set).add(i)
                    by_member.compute_if_absent(i, tip_set).add((tid, p))
                    if count >= desired[i] and copy is None:
                        copy = _deep_copy(meta, old_map)
            else:
                if copy is None:
                    copy = _deep_copy(meta, old_map)
                copy.remove(tid)
        if copy is not None:
            new.put(i, copy)
        if count < desired[i]:
            unfilled.add(i)
        elif count > desired[i]:
            overfilled.add(i)

    # revokeOverfilledMembers: drop partitions in the member's set order.
    for i in overfilled.order():
        held = by_member[i]
        if len(held) > desired[i]:
            for tid, p in held.order():
                new[i][tid].remove(p)
                by_partition[(tid, p)].remove(i)
                held.remove((tid, p), from_iterator=True)
                if len(held) == desired[i]:
                    break

    # revokeOversharedPartitions: drop holders in the holder set's order.
    for (tid, p), holders in by_partition.items():
        count = len(holders)
        if count > sharing:
            for i in holders.order():
                kept = new_map(i).get(tid)
                if kept is not None and kept.remove(p):
                    count -= 1
                    holders.remove(i, from_iterator=True)
                    by_member[i].remove((tid, p))
                    unfilled.add(i)
                if count <= sharing:
                    break

    for tp in targets:
        by_partition.compute_if_absent(tp, _new_int_set)

    def give(i: int, tp: TopicIdPartition) -> bool:
        new_map(i).compute_if_absent(tp[0], _new_int_set).add(tp[1])
        held = by_member.compute_if_absent(i, tip_set)
        held.add(tp)
        return len(held) >= desired[i]

    if len(unfilled) > 0:
        _fill(by_partition.items(), sharing, unfilled, give)
    return _final(old, new, n)


# ---------------------------------------------------------------------------------------------
# SimpleHeterogeneousAssignmentBuilder
# ---------------------------------------------------------------------------------------------


def _heterogeneous(meta: _Metadata, members: list[_Member]) -> dict[int, OldMap] | None:
    n = len(members)
    subscribed: JavaHashSet[TopicId] = JavaHashSet(meta.uuid_hasher, compare=uuid_compare)
    for m in members:
        for tid in meta.subscribed_ids(m):
            subscribed.add(tid)
    targets_by_topic: JavaHashMap[TopicId, list[TopicIdPartition]] = meta.uuid_map(
        helper_capacity(len(subscribed)))
    for tid in subscribed.order():
        targets_by_topic.put(tid, meta.target_partitions(tid))
    subscribers_by_topic: JavaHashMap[TopicId, list[int]] = meta.uuid_map(
        helper_capacity(len(subscribed)))
    for i, m in enumerate(members):
        for tid in meta.subscribed_ids(m):
            subscribers_by_topic.compute_if_absent(tid, list).append(i)
    old: JavaHashMap[int, OldMap] = _int_map(helper_capacity(n))
    new: JavaHashMap[int, OldMap] = _int_map(helper_capacity(n))
    for i, m in enumerate(members):
        old.put(i, m.old)
    if len(subscribed) == 0:
        return None
    new_map = _new_map_getter(meta, old, new)

    for tid in subscribed.order():
        _heterogeneous_topic(meta, tid, n, targets_by_topic[tid], subscribers_by_topic[tid],
                             old, new_map)
    return _final(old, new, n)


def _heterogeneous_topic(
    meta: _Metadata,
    tid: TopicId,
    n: int,
    targets: list[TopicIdPartition],
    subscribers: list[int],
    old: JavaHashMap[int, OldMap],
    new_map: Callable[[int], OldMap],
) -> None:
    """TopicAssignmentPartialBuilder: one topic, keys are plain partition numbers."""
    p_count, n_subscribed = len(targets), len(subscribers)
    by_partition: JavaHashMap[int, JavaHashSet[int]] = _int_map(helper_capacity(p_count))
    by_member: JavaHashMap[int, JavaHashSet[int]] = _int_map(helper_capacity(n_subscribed))
    sharing = 0 if p_count == 0 else (n_subscribed + p_count - 1) // p_count
    desired = [0] * n
    for k, i in enumerate(desired_counts_java(n_subscribed, sharing, p_count)):
        desired[subscribers[k]] = i

    # revokeUnassignablePartitions: every previous holder of this topic, subscribed or not.
    for i, old_map in old.items():
        if len(old_map) == 0:
            continue
        parts = old_map.get(tid)
        if parts is not None:
            for p in parts.order():
                by_partition.compute_if_absent(p, _new_int_set).add(i)
                by_member.compute_if_absent(i, _new_int_set).add(p)

    # revokeOverfilledMembers (non-subscribers desire 0).
    for i, held in by_member.items():
        if len(held) > desired[i]:
            for p in held.order():
                if len(held) <= desired[i]:
                    break
                by_partition[p].remove(i)
                held.remove(p, from_iterator=True)
                new_map(i)[tid].remove(p)

    # revokeOversharedPartitions.
    for p, holders in by_partition.items():
        count = len(holders)
        if count > sharing:
            for i in holders.order():
                kept = new_map(i).get(tid)
                if kept is not None and kept.remove(p):
                    count -= 1
                    holders.remove(i, from_iterator=True)
                    by_member[i].remove(p)
                if count <= sharing:
                    break

    for _, p in targets:
        by_partition.compute_if_absent(p, lambda: _new_int_set(helper_capacity(n_subscribed)))

    unfilled = _new_int_set(helper_capacity(n))
    for i in subscribers:
        current = by_member.get(i)
        if (0 if current is None else len(current)) < desired[i]:
            unfilled.add(i)

    def give(i: int, tp: TopicIdPartition) -> bool:
        new_map(i).compute_if_absent(tid, _new_int_set).add(tp[1])
        held = by_member.compute_if_absent(i, _new_int_set)
        held.add(tp[1])
        return len(held) >= desired[i]

    _fill([((tid, p), h) for p, h in by_partition.items()], sharing, unfilled, give)


# ---------------------------------------------------------------------------------------------
# SimpleAssignor.assign
# ---------------------------------------------------------------------------------------------


def subscription_type(group: AssignorInput) -> str:
    """ModernGroup.subscriptionType, on names: every subscribed name has every member."""
    counts: dict[str, int] = {}
    for m in group.members:
        for name in set(m.topics):
            counts[name] = counts.get(name, 0) + 1
    n = len(group.members)
    return HOMOGENEOUS if all(c == n for c in counts.values()) else HETEROGENEOUS


def member_order(group: AssignorInput) -> tuple[str, ...]:
    """Kafka's member positions: the key order of a default HashMap filled in input order."""
    members: JavaHashMap[str, None] = JavaHashMap(string_hash, compare=string_compare)
    for m in group.members:
        members.put(m.member_id, None)
    return tuple(members.keys())


def assign(group: AssignorInput) -> GroupAssignment:
    """Kafka 4.2 SimpleAssignor's target assignment for ``group`` (see the module docstring).

    Raises PartitionAssignorError where Kafka throws, with ``kafka_exception`` set.
    """
    ids = group.member_ids()
    if len(set(ids)) != len(ids):
        raise InputError("members", "duplicate member id")
    if not ids:
        return {}
    meta = _Metadata(group)
    by_id = {m.member_id: m for m in group.members}
    order = member_order(group)
    members: list[_Member] = []
    for member_id in order:
        spec = by_id[member_id]
        old: OldMap = meta.uuid_map()
        for name, parts in spec.assignment.items():
            old.put(meta.id_of[name], _int_set_copy(sorted(parts)))
        members.append(_Member(JavaHashSet.copy_of(string_hash, spec.topics, compare=string_compare),
                               old))
    if subscription_type(group) == HOMOGENEOUS:
        final = _homogeneous(meta, members)
    else:
        final = _heterogeneous(meta, members)
    result: dict[str, dict[str, frozenset[int]]] = {}
    for member_id in ids:
        result[member_id] = {}
    if final is not None:
        for i, member_map in final.items():
            result[order[i]] = {
                meta.name_of[tid]: frozenset(parts.order())
                for tid, parts in sorted(member_map.items(), key=lambda e: meta.name_of[e[0]])
                if len(parts) > 0
            }
    return result

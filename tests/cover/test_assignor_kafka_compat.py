"""The Kafka-compatible SimpleAssignor (impl/simple_assignor/kafka_compat.py) and its Java emulation.

* Replays outputs observed from Kafka 4.2's own assignor classes (tests/data/...jsonl).
* Unit tests of java_collections: hashes and HashMap/HashSet iteration orders, each checked
  once against OpenJDK 17.
* The fact sheet's double-drift examples.
* Every case of Kafka's SimpleAssignorTest whose expectation does not depend on random topic
  UUIDs, transcribed; the property-only upstream cases are checked over several topic ids.
* The divergence cases really diverge.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from groupspec.impl.simple_assignor import assign as dispatch_assign
from groupspec.impl.simple_assignor import kafka_compat
from groupspec.impl.simple_assignor.java_collections import (
    JavaHashMap,
    JavaHashSet,
    TreeBinError,
    hash_set_copy_capacity,
    helper_capacity,
    int32,
    int64,
    integer_hash,
    string_hash,
    table_size_for,
    topic_id_partition_hash,
    uuid_compare,
    uuid_hash,
)
from groupspec.spec import simple_assignor as spec
from groupspec.types import AssignorInput, InputError, MemberSpec, PartitionAssignorError
from tests.scenarios.simple_assignor.divergences import DIVERGENCES

DATA = Path(__file__).resolve().parents[1] / "data" / "kafka_simple_assignor_observed.jsonl"


def _group(members: list[tuple[str, list[str], dict[str, list[int]]]], topics: dict[str, int],
           topic_ids: dict[str, str] | None = None,
           assignable: dict[str, list[int]] | None = None) -> AssignorInput:
    return AssignorInput(
        tuple(MemberSpec(m, tuple(s), {t: frozenset(ps) for t, ps in a.items()})
              for m, s, a in members),
        topics, topic_ids or {},
        None if assignable is None else {t: frozenset(ps) for t, ps in assignable.items()})


def _from_doc(doc: dict[str, Any]) -> AssignorInput:
    """The data file's input shape (topic_ids may name topics absent from topics)."""
    return _group([(m, b["topics"], b["assignment"]) for m, b in doc["members"].items()],
                  doc["topics"], doc.get("topic_ids"), doc.get("assignable"))


def _outcome(group: AssignorInput) -> dict[str, Any]:
    try:
        result = kafka_compat.assign(group)
    except PartitionAssignorError as exc:
        return {"error": exc.kafka_exception}
    return {"assignment": {m: {t: sorted(ps) for t, ps in sorted(a.items())}
                           for m, a in result.items()}}


def _rows() -> list[dict[str, Any]]:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


# ---------------------------------------------------------------------------------------------
# Observed Kafka outputs
# ---------------------------------------------------------------------------------------------


def test_observed_data_header_cites_kafka_commit():
    header = json.loads(DATA.read_text(encoding="utf-8").splitlines()[0])
    assert header["kafka_commit"] == "da9b183a74d7973691bae8d30340d447848ebb24"
    assert header["rows"] == len(_rows())


def test_observed_data_covers_every_outcome():
    rows = _rows()
    assert len(rows) >= 300
    outcomes = {r["output"].get("error", "ok") for r in rows}
    assert outcomes == {"ok", "PartitionAssignorException", "java.util.NoSuchElementException"}
    sizes = [len(r["input"]["members"]) for r in rows]
    assert max(sizes) > 16
    types = {kafka_compat.subscription_type(_from_doc(r["input"])) for r in rows}
    assert types == {kafka_compat.HOMOGENEOUS, kafka_compat.HETEROGENEOUS}


def test_replays_observed_kafka_outputs():
    rows = _rows()
    mismatches = [i for i, r in enumerate(rows) if _outcome(_from_doc(r["input"])) != r["output"]]
    assert mismatches == []


def test_dispatch_kafka_mode_uses_kafka_compat():
    group = DIVERGENCES[-1].group
    assert dispatch_assign(group, compat="kafka") == kafka_compat.assign(group)


# ---------------------------------------------------------------------------------------------
# java_collections
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("", 0), ("A", 65), ("B", 66), ("C", 67), ("M0", 2435), ("M9", 2444), ("M10", 75564),
    ("hello", 99162322), ("member-1", -649440834), ("😀x", 54959989),
])
def test_string_hash(text, expected):
    """Expected values printed by OpenJDK 17's String.hashCode (UTF-16 units, int32)."""
    assert string_hash(text) == expected


def test_uuid_and_topic_id_partition_hash():
    # Uuid(msb=1, lsb=2): x = 3, hash = 0 ^ 3; TopicIdPartition: 31*3 + 5.
    tid = str(uuid.UUID(int=(1 << 64) | 2))
    assert uuid_hash(tid) == 3
    assert topic_id_partition_hash(3, 5) == 98
    assert uuid_hash("ffffffff-ffff-ffff-0000-000000000000") == 0
    assert topic_id_partition_hash(-1, 0) == -31


def test_member_ids_iterate_in_string_hash_order():
    members = JavaHashMap(string_hash)
    for m in ["C", "A", "B"]:
        members.put(m, None)
    assert members.keys() == ["A", "B", "C"]
    members = JavaHashMap(string_hash)
    for k in reversed(range(10)):
        members.put(f"M{k}", None)
    assert members.keys() == [f"M{k}" for k in range(10)]


def test_put_appends_at_tail_compute_if_absent_inserts_at_head():
    put: JavaHashMap[int, int] = JavaHashMap(integer_hash)
    head: JavaHashMap[int, int] = JavaHashMap(integer_hash)
    for k in (1, 17, 33):
        put.put(k, 0)
        head.compute_if_absent(k, lambda: 0)
    assert put.keys() == [1, 17, 33]
    assert head.keys() == [33, 17, 1]


def test_resize_keeps_relative_order_and_splits_chains():
    m: JavaHashMap[int, int] = JavaHashMap(integer_hash)
    for k in (16, 0, 32, 48, 1, 2, 3, 4, 5, 6, 7, 8):
        m.put(k, 0)
    assert m.capacity == 16
    assert m.keys() == [16, 0, 32, 48, 1, 2, 3, 4, 5, 6, 7, 8]
    m.put(9, 0)  # 13 > threshold 12: doubles to 32, chain 16,0,32,48 splits into 0,32 | 16,48
    assert m.capacity == 32
    assert m.keys() == [0, 32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 48]


def test_compute_if_absent_resizes_before_not_after():
    """Orders printed by OpenJDK 17 for the same calls."""
    m: JavaHashMap[int, int] = JavaHashMap(integer_hash)
    for k in range(12):
        m.put(k, 0)
    m.compute_if_absent(16, lambda: 0)  # 13 > threshold 12, but no resize after insertion
    assert m.keys() == [16, *range(12)]
    m.compute_if_absent(0, lambda: 0)  # present, yet the call resizes first
    assert m.keys() == [*range(12), 16]


def test_capacities():
    assert JavaHashMap(integer_hash, 0).capacity == 1
    assert JavaHashMap(integer_hash, 5).capacity == 8
    assert helper_capacity(0) == 2 and helper_capacity(3) == 6 and helper_capacity(40) == 55
    assert JavaHashMap(integer_hash, helper_capacity(40)).capacity == 64
    assert JavaHashSet.copy_of(integer_hash, range(20)).capacity == 32
    assert JavaHashSet.copy_of(integer_hash, [40, 8, 24]).order() == [40, 8, 24]


def test_holder_sets_of_more_than_16_members_iterate_by_index_mod_capacity():
    holders = JavaHashSet(integer_hash)
    for i in (20, 3, 17, 1):
        holders.add(i)
    assert holders.order() == [17, 1, 3, 20]


def test_remove_does_not_reorder():
    s = JavaHashSet(integer_hash)
    for i in (5, 21, 37, 2):
        s.add(i)
    s.remove(21)
    assert s.order() == [2, 5, 37]


def test_tree_bin_moves_its_root_to_the_front():
    """Order printed by OpenJDK 17 (more in tests/cover/test_java_tree_bins.py)."""
    m: JavaHashMap[int, int] = JavaHashMap(integer_hash, 64)
    for k in range(10):
        m.put(k * 64, 0)
    assert m.tree_bins() == 1
    assert m.keys() == [192, 0, 64, 128, 256, 320, 384, 448, 512, 576]


def test_tree_bin_ties_of_non_comparable_keys_are_refused_not_guessed():
    m: JavaHashMap[tuple[int, int], int] = JavaHashMap(lambda k: k[0] * 64, 64)
    for k in range(8):
        m.put((k, 0), 0)
    with pytest.raises(TreeBinError):
        m.put((0, 1), 0)  # same hash as (0, 0): Java would use System.identityHashCode
    assert m.keys() == [(k, 0) for k in range(8)] and m.tree_bins() == 0


# ---------------------------------------------------------------------------------------------
# Double arithmetic (fact sheet §4.2)
# ---------------------------------------------------------------------------------------------


def _kafka_desired(n: int, p: int) -> list[int]:
    return kafka_compat.desired_counts_java(n, spec.desired_sharing(n, p), p)


def test_double_drift_7_members_29_partitions():
    assert _kafka_desired(7, 29) == [5, 4, 4, 4, 4, 4, 5]
    assert spec.desired_counts(7, 29) == [5, 4, 4, 4, 4, 4, 4]


@pytest.mark.parametrize(("n", "p", "total"), [(19, 3, 22), (25, 7, 29), (22, 89, 90)])
def test_double_drift_last_member_one_too_many(n, p, total):
    kafka, exact = _kafka_desired(n, p), spec.desired_counts(n, p)
    assert sum(kafka) == total == sum(exact) + 1
    assert kafka[:-1] == exact[:-1] and kafka[-1] == exact[-1] + 1


def test_double_drift_19_members_3_partitions_last_desires_2():
    assert _kafka_desired(19, 3)[-1] == 2 and spec.desired_counts(19, 3)[-1] == 1


def test_double_drift_25_members_7_partitions_four_desire_2():
    assert _kafka_desired(25, 7).count(2) == 4


def test_double_drift_28_members_9_partitions_swap():
    kafka, exact = _kafka_desired(28, 9), spec.desired_counts(28, 9)
    assert (kafka[20], kafka[21]) == (2, 1) and (exact[20], exact[21]) == (1, 2)
    assert [i for i in range(28) if kafka[i] != exact[i]] == [20, 21]


def test_seed_examples_hold_in_doubles():
    assert _kafka_desired(3, 7) == [3, 2, 2]
    assert _kafka_desired(6, 4) == [2, 1, 1, 2, 1, 1]


# ---------------------------------------------------------------------------------------------
# Kafka's SimpleAssignorTest, transcribed
# ---------------------------------------------------------------------------------------------

T1, T2, T3, T4 = "topic1", "topic2", "topic3", "topic4"
SOME_IDS = [None] + [str(uuid.UUID(int=(k * 0x9E3779B97F4A7C15) << 17)) for k in range(1, 6)]


def _ids(seed: str | None, *names: str) -> dict[str, str]:
    if seed is None:
        return {}
    return {n: str(uuid.uuid5(uuid.UUID(seed), n)) for n in names}


def _covered(result) -> int:
    return len({(t, p) for a in result.values() for t, ps in a.items() for p in ps})


def test_assign_with_empty_members():
    assert kafka_compat.assign(AssignorInput((), {T1: 3})) == {}


def test_assign_with_no_subscribed_topic():
    assert kafka_compat.assign(_group([("A", [], {})], {T1: 3})) == {"A": {}}


def test_assign_with_subscribed_to_non_existent_topic():
    group = _group([("A", [T2], {})], {T1: 3}, {T2: str(uuid.uuid4())})
    with pytest.raises(PartitionAssignorError) as exc:
        kafka_compat.assign(group)
    assert exc.value.kafka_exception == "PartitionAssignorException"


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_two_members_and_two_topics_homogeneous(seed):
    group = _group([("A", [T1, T3], {}), ("B", [T1, T3], {})], {T1: 3, T3: 2}, _ids(seed, T1, T3))
    assert _covered(kafka_compat.assign(group)) == 5


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_two_members_and_two_topics_homogeneous_with_allowed_map(seed):
    group = _group([("A", [T1, T3], {}), ("B", [T1, T3], {})], {T1: 3, T3: 3},
                   _ids(seed, T1, T3), {T1: [0, 1, 2], T3: [0, 1]})
    assert _covered(kafka_compat.assign(group)) == 5


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_two_members_and_two_topics_homogeneous_with_non_assignable_topic(seed):
    group = _group([("A", [T1, T3], {}), ("B", [T1, T3], {})], {T1: 3, T3: 2},
                   _ids(seed, T1, T3), {T1: [0, 1, 2]})
    assert _covered(kafka_compat.assign(group)) == 3


def _abc(assignable=None, seed=None):
    return _group([("A", [T1, T2], {}), ("B", [T3], {}), ("C", [T2, T3], {})],
                  {T1: 3, T2: 3, T3: 2}, _ids(seed, T1, T2, T3), assignable)


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_three_members_three_topics_heterogeneous(seed):
    assert _covered(kafka_compat.assign(_abc(seed=seed))) == 8


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_three_members_three_topics_heterogeneous_with_allowed_map(seed):
    group = _abc({T1: [0, 1], T2: [0, 2], T3: [1]}, seed)
    assert _covered(kafka_compat.assign(group)) == 5


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_three_members_three_topics_heterogeneous_with_non_assignable_topic(seed):
    result = kafka_compat.assign(_abc({T1: [0, 1, 2], T2: [0, 1, 2]}, seed))
    assert result == {"A": {T1: frozenset({0, 1, 2}), T2: frozenset({0, 2})}, "B": {},
                      "C": {T2: frozenset({1})}}
    assert _covered(result) == 6


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_one_member_no_assigned_topic_heterogeneous(seed):
    group = _group([("A", [T1, T2], {}), ("B", [], {})], {T1: 3, T2: 2}, _ids(seed, T1, T2))
    assert kafka_compat.assign(group) == {"A": {T1: frozenset({0, 1, 2}), T2: frozenset({0, 1})},
                                          "B": {}}


def _as_previous(result, subscriptions):
    return [(m, subscriptions[m], {t: sorted(ps) for t, ps in a.items()})
            for m, a in result.items()]


def test_incremental_assignment_increasing_members_homogeneous():
    subs: dict[str, list[str]] = {}
    previous: list[tuple[str, list[str], dict[str, list[int]]]] = []
    for k in range(101):
        subs[f"M{k}"] = [T1]
        group = _group([*previous, (f"M{k}", [T1], {})], {T1: 24})
        result = kafka_compat.assign(group)
        assert _covered(result) == 24
        previous = _as_previous(result, subs)


def test_incremental_assignment_decreasing_members_homogeneous():
    subs = {f"M{k}": [T1] for k in range(101)}
    result = kafka_compat.assign(_group([(m, s, {}) for m, s in subs.items()], {T1: 24}))
    assert _covered(result) == 24
    for k in range(100, 0, -1):
        del subs[f"M{k}"]
        previous = [p for p in _as_previous(result, {**subs, f"M{k}": [T1]}) if p[0] in subs]
        result = kafka_compat.assign(_group(previous, {T1: 24}))
        assert _covered(result) == 24


_HETERO_SUBS = [[T1, T2, T3], [T2], [T3], [T1, T2]]
_HETERO_TOPICS = {T1: 12, T2: 8, T3: 4}


def test_incremental_assignment_increasing_members_heterogeneous():
    subs: dict[str, list[str]] = {}
    previous: list[tuple[str, list[str], dict[str, list[int]]]] = []
    for k in range(101):
        subs[f"M{k}"] = _HETERO_SUBS[k % 4]
        result = kafka_compat.assign(
            _group([*previous, (f"M{k}", subs[f"M{k}"], {})], _HETERO_TOPICS))
        assert _covered(result) == 24
        previous = _as_previous(result, subs)


def test_incremental_assignment_decreasing_members_heterogeneous():
    subs = {f"M{k}": _HETERO_SUBS[k % 4] for k in range(101)}
    result = kafka_compat.assign(_group([(m, s, {}) for m, s in subs.items()], _HETERO_TOPICS))
    assert _covered(result) == 24
    for k in range(100, 0, -1):
        gone = subs.pop(f"M{k}")
        previous = [p for p in _as_previous(result, {**subs, f"M{k}": gone}) if p[0] in subs]
        result = kafka_compat.assign(_group(previous, _HETERO_TOPICS))
        assert _covered(result) == 24


@pytest.mark.parametrize("seed", SOME_IDS)
def test_assign_with_current_assignment_heterogeneous(seed):
    first = kafka_compat.assign(_abc(seed=seed))
    assert _covered(first) == 8
    group = _group([("A", [T1, T2, T3], {T1: [0, 1, 2], T2: [0, 2]}),
                    ("B", [T3, T4], {T3: [0, 1]})],
                   {T1: 3, T2: 3, T3: 2, T4: 1}, _ids(seed, T1, T2, T3, T4))
    assert _covered(kafka_compat.assign(group)) == 9


# ---------------------------------------------------------------------------------------------
# Other Kafka behaviour the mode must keep
# ---------------------------------------------------------------------------------------------


def test_unknown_subscribed_names_are_dropped_but_make_the_group_heterogeneous():
    group = _group([("A", [T1, "ghost"], {}), ("B", [T1], {})], {T1: 2})
    assert kafka_compat.subscription_type(group) == kafka_compat.HETEROGENEOUS
    assert kafka_compat.assign(group) == {"A": {T1: frozenset({0})}, "B": {T1: frozenset({1})}}


def test_derived_topic_ids_are_deterministic():
    assert kafka_compat.derived_topic_id("orders") == str(
        uuid.uuid5(kafka_compat.TOPIC_ID_NAMESPACE, "orders"))
    group = _group([("A", ["orders"], {})], {"orders": 3})
    explicit = _group([("A", ["orders"], {})], {"orders": 3},
                      {"orders": kafka_compat.derived_topic_id("orders")})
    assert kafka_compat.assign(group) == kafka_compat.assign(explicit)


def test_every_member_appears_in_the_output():
    group = _group([("A", [T1], {}), ("B", [T1], {}), ("C", [T1], {})], {T1: 1})
    assert set(kafka_compat.assign(group)) == {"A", "B", "C"}


# ---------------------------------------------------------------------------------------------
# Divergences: groupspec's rules and Kafka's answers really differ on each case
# ---------------------------------------------------------------------------------------------


def test_divergence_names_are_unique_snake_case():
    names = [d.name for d in DIVERGENCES]
    assert len(set(names)) == len(names) == 7
    assert all(n.replace("_", "").isalnum() and n == n.lower() for n in names)


@pytest.mark.parametrize("case", DIVERGENCES, ids=lambda d: d.name)
def test_divergence_spec_and_kafka_differ(case):
    assert _outcome(case.group) != {"assignment": {
        m: {t: sorted(ps) for t, ps in sorted(a.items())}
        for m, a in spec.assign(case.group).items()}}


def test_divergence_topic_uuid_variant_changes_kafka_only():
    case = next(d for d in DIVERGENCES if d.name == "topic_uuid_dependence")
    assert case.kafka_variant is not None
    assert kafka_compat.assign(case.group) != kafka_compat.assign(case.kafka_variant)
    assert spec.assign(case.group) == spec.assign(case.kafka_variant)


def test_divergence_crash_case_raises_no_such_element():
    case = next(d for d in DIVERGENCES if d.name == "no_such_element_crash")
    with pytest.raises(PartitionAssignorError) as exc:
        kafka_compat.assign(case.group)
    assert exc.value.kafka_exception == "java.util.NoSuchElementException"


def test_divergence_cases_were_observed_from_kafka():
    observed = {r["case"]: r for r in _rows() if "case" in r}
    for case in DIVERGENCES:
        assert observed[case.name]["input"]["members"].keys() == {
            m.member_id for m in case.group.members}
        assert _outcome(case.group) == observed[case.name]["output"]


@pytest.mark.parametrize("compat", ["bogus", "hello", "zzz", ""])
def test_dispatch_refuses_an_unknown_compat_mode(compat):
    """Only the two exact names are modes: names sorting before, between or after them fail."""
    group = AssignorInput((MemberSpec("A", ("t",)),), {"t": 1}, {})
    with pytest.raises(ValueError, match="unknown mode"):
        dispatch_assign(group, compat=compat)  # type: ignore[arg-type]


def test_a_topic_known_only_by_its_count_is_assigned_without_an_explicit_id():
    """A library caller may leave ``topic_ids`` empty: a topic in the metadata is resolvable
    through its partition count alone (the id is then derived)."""
    group = AssignorInput((MemberSpec("A", ("t",)), MemberSpec("B", ("t",))), {"t": 2}, {})
    got = kafka_compat.assign(group)
    assert sorted(p for a in got.values() for p in a.get("t", ())) == [0, 1]


def test_a_topic_shrunk_to_no_partitions_leaves_no_empty_entry():
    """A's previous partition of t is revoked (t has no partitions now) and A's answer has no
    entry for t, not an empty one; the JSON form would not show the difference, the library does."""
    group = AssignorInput((MemberSpec("A", ("t",), {"t": frozenset({0})}), MemberSpec("B", ("t",))),
                          {"t": 0, "u": 5}, {})
    assert kafka_compat.assign(group) == {"A": {}, "B": {}}


def test_repeated_member_ids_are_refused():
    """Kafka keys members by id, so the compat assignor refuses a list naming one twice."""
    group = AssignorInput((MemberSpec("A", ("t",)), MemberSpec("A", ("t",))), {"t": 2}, {})
    with pytest.raises(InputError, match="duplicate member id"):
        kafka_compat.assign(group)


def test_table_sizes_capped_at_two_to_the_thirtieth():
    """HashMap.tableSizeFor: the next power of two, 1 for 0 and 1, and never above 2^30."""
    assert [table_size_for(c) for c in (0, 1, 2, 3, 16, 17)] == [1, 1, 2, 4, 16, 32]
    assert table_size_for((1 << 29) + 1) == 1 << 30
    assert table_size_for((1 << 30) + 5) == 1 << 30
    assert table_size_for(1 << 31) == 1 << 30


def test_hash_set_copy_capacities():
    """HashSet(Collection): (int)(size / .75f) + 1, at least 16."""
    assert [hash_set_copy_capacity(s) for s in (0, 11, 12, 13, 20, 100)] == [
        16, 16, 17, 18, 27, 134]


def test_java_int_and_long_wrapping():
    assert [int32(v) for v in (5, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 32)] == [
        5, (1 << 31) - 1, -(1 << 31), -1, 0]
    assert [int64(v) for v in (5, 1 << 62, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64)] == [
        5, 1 << 62, (1 << 63) - 1, -(1 << 63), -1, 0]


def test_uuid_compare_is_antisymmetric_and_signed():
    """Uuid.compareTo compares signed longs: an id with the top bit set sorts first."""
    low, high = "00000000-0000-0000-0000-000000000001", "80000000-0000-0000-0000-000000000000"
    assert uuid_compare(low, high) == 1 and uuid_compare(high, low) == -1
    assert uuid_compare(low, low) == 0


def test_remove_and_add_report_whether_anything_changed():
    m: JavaHashMap[int, int] = JavaHashMap(integer_hash)
    assert m.remove(3) is False
    m.put(3, 0)
    assert m.remove(3) is True and m.remove(3) is False
    s = JavaHashSet(integer_hash)
    assert s.add(1) is True and s.add(1) is False
    assert s.remove(1) is True and s.remove(1) is False


def test_tree_bins_are_counted():
    """Nine keys sharing bucket 0 of a 64-bucket table make one tree bin."""
    m: JavaHashMap[int, None] = JavaHashMap(integer_hash, 64)
    assert m.tree_bins() == 0
    for k in range(9):
        m.put(k * 64, None)
    assert m.tree_bins() == 1 and m.capacity == 64

"""HashMap tree bins (java_collections) and the Kafka-exact assignor on groups that make them.

* Replays operation sequences whose key orders were printed by java.util.HashMap on OpenJDK 17
  (tests/data/java_tree_bins_observed.json): directed cases (treeify, putTreeVal, Map.remove
  against Iterator.remove, untreeify, resize splits, String/Uuid ties) and random ones.
* The case Java itself cannot order reproducibly (equal-hash TopicIdPartitions, where the JVM
  and even Kafka's assignor answer differently under different JVM flags) raises TreeBinError
  and leaves the map untouched.
* A Hypothesis check of the tree's own invariants (the ones HashMap.TreeNode.checkInvariants
  asserts) after random operations on colliding keys.
* Replays Kafka 4.2's SimpleAssignor outputs on groups that make tree bins
  (tests/data/kafka_simple_assignor_treebins_observed.jsonl), like the other observed-cases test.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.simple_assignor import java_collections as jc
from groupspec.impl.simple_assignor import kafka_compat
from groupspec.impl.simple_assignor.java_collections import (
    JavaHashMap,
    JavaHashSet,
    TreeBinError,
    integer_compare,
    integer_hash,
    string_compare,
    string_hash,
    topic_id_partition_hash,
    uuid_bits,
    uuid_compare,
    uuid_hash,
)
from groupspec.types import AssignorInput, GroupspecError, MemberSpec
from tests.cover.test_assignor_kafka_compat import _from_doc as _group  # the data files share one shape
from tests.cover.test_assignor_kafka_compat import _outcome

DATA = Path(__file__).resolve().parents[1] / "data"
MAP_CASES = DATA / "java_tree_bins_observed.json"
ASSIGNOR_CASES = DATA / "kafka_simple_assignor_treebins_observed.jsonl"

Key = Any


# ---------------------------------------------------------------------------------------------
# Replaying the recorded operation sequences
# ---------------------------------------------------------------------------------------------


def _uuid_text(msb: int, lsb: int) -> str:
    return str(uuid.UUID(int=((msb & (2**64 - 1)) << 64) | (lsb & (2**64 - 1))))


def _decode(kind: str, token: str) -> Key:
    if kind == "int":
        return int(token)
    if kind == "str":
        return bytes.fromhex(token[1:]).decode("utf-8")
    parts = token.split(":")
    tid = _uuid_text(int(parts[0]), int(parts[1]))
    return tid if kind == "uuid" else (tid, int(parts[2]))


def _encode(kind: str, key: Key) -> str:
    if kind == "int":
        return str(key)
    if kind == "str":
        return "x" + str(key).encode("utf-8").hex()
    if kind == "uuid":
        msb, lsb = uuid_bits(key)
        return f"{msb}:{lsb}"
    msb, lsb = uuid_bits(key[0])
    return f"{msb}:{lsb}:{key[1]}"


def _tip_hash(key: tuple[str, int]) -> int:
    return topic_id_partition_hash(uuid_hash(key[0]), key[1])


KEY_KINDS: dict[str, tuple[Callable[[Any], int], Callable[[Any, Any], int] | None]] = {
    "int": (integer_hash, integer_compare),
    "str": (string_hash, string_compare),
    "uuid": (uuid_hash, uuid_compare),
    "tip": (_tip_hash, None),  # a record: not Comparable
}


def replay(ops: list[str]) -> tuple[list[str], int]:
    """The orders printed at each I/copy, and how many of those prints saw a tree bin."""
    kind = ""
    m: JavaHashMap[Key, int] | None = None
    printed: list[str] = []
    with_tree = 0
    for line in ops:
        op, *args = line.split(" ")
        if op == "new":
            kind = args[0]
            hasher, compare = KEY_KINDS[kind]
            capacity = int(args[1])
            m = JavaHashMap(hasher, None if capacity < 0 else capacity, compare=compare)
            continue
        assert m is not None
        if op == "I":
            printed.append(" ".join(_encode(kind, k) for k in m))
            with_tree += m.tree_bins() > 0
        elif op == "copy":
            hasher, compare = KEY_KINDS[kind]
            copy = JavaHashSet.copy_of(hasher, [_decode(kind, t) for t in args], compare=compare)
            printed.append(" ".join(_encode(kind, k) for k in copy.order()))
            with_tree += copy.tree_bins() > 0
        elif op == "P":
            m.put(_decode(kind, args[0]), 0)
        elif op == "C":
            m.compute_if_absent(_decode(kind, args[0]), lambda: 0)
        elif op == "R":
            m.remove(_decode(kind, args[0]))
        elif op == "X":
            m.remove(_decode(kind, args[0]), from_iterator=True)
        else:
            raise AssertionError(f"unknown op {line!r}")
    return printed, with_tree


def _map_doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(MAP_CASES.read_text(encoding="utf-8"))
    return doc


MAP_CASE_LIST = _map_doc()["cases"]


def test_observed_map_cases_cover_every_operation_and_key_type():
    ops = {line.split(" ")[0] for case in MAP_CASE_LIST for line in case["ops"]}
    kinds = {case["ops"][0].split(" ")[1] for case in MAP_CASE_LIST}
    assert ops == {"new", "P", "C", "R", "X", "I", "copy"}
    assert kinds == {"int", "str", "uuid", "tip"}
    assert len(MAP_CASE_LIST) >= 39


@pytest.mark.parametrize("case", MAP_CASE_LIST, ids=[c["name"] for c in MAP_CASE_LIST])
def test_replays_java_tree_bin_orders(case):
    printed, with_tree = replay(case["ops"])
    assert printed == case["java_orders"]
    assert with_tree > 0  # the case really exercises a tree bin


def test_equal_hash_non_comparable_keys_are_refused_and_the_map_is_unchanged():
    undefined = _map_doc()["undefined"]
    assert len(set(undefined["java_orders_by_jvm_flags"].values())) == 2  # Java disagrees with itself
    new, *puts = [line for line in undefined["ops"] if line != "I"]
    m: JavaHashMap[tuple[str, int], int] = JavaHashMap(_tip_hash, int(new.split(" ")[2]))
    refused = []
    for line in puts:
        key = _decode("tip", line.split(" ")[1])
        before = m.keys()
        try:
            m.put(key, 0)
        except TreeBinError as exc:
            assert "identityHashCode" in str(exc)
            assert m.keys() == before and key not in m
            refused.append(key)
    assert refused


def test_string_compare_uses_utf16_code_units():
    # U+10000 is the surrogate pair D800 DC00, which Java orders before U+E000; Python would not
    assert string_compare("\U00010000", "\ue000") < 0 < string_compare("\ue000", "\U00010000")
    assert string_compare("Aa", "BB") < 0 and string_compare("ab", "ab") == 0
    assert string_hash("Aa") == string_hash("BB")


def test_uuid_compare_is_signed():
    negative = _uuid_text(-1, 0)
    positive = _uuid_text(1, 0)
    assert uuid_compare(negative, positive) < 0
    assert uuid_compare(_uuid_text(5, -2), _uuid_text(5, 3)) < 0
    assert uuid_compare(positive, positive) == 0


# ---------------------------------------------------------------------------------------------
# Tree invariants under random operations (HashMap.TreeNode.checkInvariants and more)
# ---------------------------------------------------------------------------------------------


def _tree_nodes(tree: Any) -> Iterator[Any]:
    node = tree.head
    while node is not None:
        yield node
        node = node.next


def _check_tree(tree: Any, compare: Callable[[Any, Any], int]) -> None:
    """Links agree, the tree is a search tree in (hash, compareTo) order, red-black holds."""
    listed = list(_tree_nodes(tree))
    assert listed and listed[0].prev is None
    assert {n.key for n in listed} == set(tree.nodes) and len(listed) == len(tree.nodes)
    for a, b in itertools.pairwise(listed):
        assert a.next is b and b.prev is a
    root = listed[0]
    while root.parent is not None:
        root = root.parent
    assert not root.red

    def walk(node: Any) -> tuple[list[Any], int]:
        if node is None:
            return [], 1
        for child in (node.left, node.right):
            if child is not None:
                assert child.parent is node
                assert not (node.red and child.red)
        left, black_left = walk(node.left)
        right, black_right = walk(node.right)
        assert black_left == black_right
        return [*left, node, *right], black_left + (0 if node.red else 1)

    in_order, _ = walk(root)
    assert {id(n) for n in in_order} == {id(n) for n in listed}
    for a, b in itertools.pairwise(in_order):
        assert a.hash < b.hash or (a.hash == b.hash and compare(a.key, b.key) < 0)


def _op_strategy() -> st.SearchStrategy[tuple[str, int]]:
    # keys that pile up in few buckets of tables from 16 to 256 buckets
    key = st.builds(lambda low, k: low + 256 * k, st.sampled_from([0, 64, 128, 3]),
                    st.integers(0, 40))
    return st.tuples(st.sampled_from(["P", "P", "P", "C", "C", "R", "X"]), key)


@given(st.sampled_from([None, 16, 64, 128]), st.lists(_op_strategy(), min_size=12, max_size=150))
def test_tree_bins_keep_their_invariants(capacity, ops):
    m: JavaHashMap[int, int] = JavaHashMap(integer_hash, capacity, compare=integer_compare)
    present: set[int] = set()
    for op, key in ops:
        if op == "P":
            m.put(key, 0)
            present.add(key)
        elif op == "C":
            m.compute_if_absent(key, lambda: 0)
            present.add(key)
        else:
            m.remove(key, from_iterator=op == "X")
            present.discard(key)
        assert sorted(m.keys()) == sorted(present)
        for slot in m._table or ():
            if isinstance(slot, jc._TreeBin):
                _check_tree(slot, integer_compare)


def test_string_tree_bins_keep_their_invariants():
    """Equal-hash strings: only compareTo separates them."""
    blocks = [format(k, "05b").replace("0", "Aa").replace("1", "BB") for k in range(32)]
    m: JavaHashMap[str, int] = JavaHashMap(string_hash, compare=string_compare)
    for s in blocks:
        m.put(s, 0)
    for s in blocks[::3]:
        m.remove(s)
    trees = [slot for slot in m._table or () if isinstance(slot, jc._TreeBin)]
    assert len(trees) == 1
    _check_tree(trees[0], string_compare)


# ---------------------------------------------------------------------------------------------
# The assignor on groups that make tree bins
# ---------------------------------------------------------------------------------------------


def _assignor_rows() -> list[dict[str, Any]]:
    lines = ASSIGNOR_CASES.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


@pytest.fixture
def tree_bins_built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts tree bins the emulation builds while a test runs."""
    built = [0]
    original = jc._TreeBin.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        original(self, *args, **kwargs)

    monkeypatch.setattr(jc._TreeBin, "__init__", counting)
    return built


def test_observed_treebin_data_header_cites_kafka_commit():
    header = json.loads(ASSIGNOR_CASES.read_text(encoding="utf-8").splitlines()[0])
    assert header["kafka_commit"] == "da9b183a74d7973691bae8d30340d447848ebb24"
    assert header["rows"] == len(_assignor_rows())


def test_observed_treebin_groups_cover_both_builders_and_outcomes():
    rows = _assignor_rows()
    assert len(rows) >= 60
    types = {kafka_compat.subscription_type(_group(r["input"])) for r in rows}
    assert types == {kafka_compat.HOMOGENEOUS, kafka_compat.HETEROGENEOUS}
    assert {r["output"].get("error", "ok") for r in rows} == {"ok", "java.util.NoSuchElementException"}


def test_replays_observed_kafka_outputs_with_tree_bins(tree_bins_built):
    rows = _assignor_rows()
    mismatches = []
    without_trees = []
    for i, row in enumerate(rows):
        before = tree_bins_built[0]
        if _outcome(_group(row["input"])) != row["output"]:
            mismatches.append(i)
        if tree_bins_built[0] == before:
            without_trees.append(i)
    assert mismatches == []
    assert without_trees == []  # every row really makes a tree bin


def _uuid_with_hash(h: int, salt: int) -> str:
    """A Uuid whose Kafka hash code is ``h``: msb ^ lsb = (r << 32) | (r ^ h)."""
    r = (salt * 0x9E3779B9) & 0xFFFFFFFF
    msb = (salt * 0x9E3779B97F4A7C15) & (2**64 - 1)
    tid = str(uuid.UUID(int=(msb << 64) | (msb ^ ((r << 32) | (r ^ h)))))
    assert uuid_hash(tid) & 0xFFFFFFFF == h
    return tid


def test_topic_ids_with_equal_hashes_make_the_homogeneous_builder_refuse():
    """Two topic ids with one Uuid hash give TopicIdPartitions with one hash; Java would order
    them by identity hash inside a tree bin, so the Kafka mode raises TreeBinError.

    Eleven topics whose ``31 * uuidHash`` differ only in bits 27-31 put partition p of every
    topic in one bucket of the 128-bucket partition map; the last topic repeats the first hash.
    """
    inv31 = pow(31, -1, 1 << 32)
    hashes = [((0x5EED + (k << 27)) * inv31) & 0xFFFFFFFF for k in range(10)]
    topic_ids = {f"t{k}": _uuid_with_hash(h, k + 1) for k, h in enumerate(hashes)}
    topic_ids["twin"] = _uuid_with_hash(hashes[0], 99)
    topics = dict.fromkeys(topic_ids, 8)
    group = AssignorInput((MemberSpec("a", tuple(topics)), MemberSpec("b", tuple(topics))),
                          topics, topic_ids)
    with pytest.raises(TreeBinError):
        kafka_compat.assign(group)
    # the heterogeneous builder keys its maps by Uuid and partition number, both Comparable
    hetero = AssignorInput((MemberSpec("a", tuple(topics)), MemberSpec("b", ("t0", "twin"))),
                           topics, topic_ids)
    result = kafka_compat.assign(hetero)
    assert sum(len(ps) for a in result.values() for ps in a.values()) == 88


def test_kafka_itself_answers_differently_when_topic_ids_tie():
    """Observed: the same group, the same Kafka classes, four JVM flag sets, three answers."""
    undefined = _map_doc()["undefined_assignor"]
    answers = {json.dumps(a, sort_keys=True) for a in undefined["outputs_by_jvm_flags"].values()}
    assert len(answers) > 1
    group = _group(undefined["input"])
    assert kafka_compat.subscription_type(group) == kafka_compat.HOMOGENEOUS
    with pytest.raises(TreeBinError):
        kafka_compat.assign(group)


def test_tree_bin_error_is_a_groupspec_error():
    assert issubclass(TreeBinError, GroupspecError) and issubclass(TreeBinError, NotImplementedError)


# ---------------------------------------------------------------------------------------------
# The HashMap details the issue-17 vectors hang on (tests/scenarios/simple_assignor/cases.py)
# ---------------------------------------------------------------------------------------------


def test_a_spread_hash_of_min_value_is_the_smallest_key_of_its_tree():
    from tests.scenarios.simple_assignor.cases import MIN_SPREAD_MEMBER_ID

    assert jc.int32(jc.spread(string_hash(MIN_SPREAD_MEMBER_ID))) == -(2**31)
    others = [f"k{i}" for i in range(10**5) if jc.spread(string_hash(f"k{i}")) & 63 == 0][:9]
    members: JavaHashMap[str, None] = JavaHashMap(string_hash, 64, compare=string_compare)
    for key in [*others, MIN_SPREAD_MEMBER_ID]:
        members.put(key, None)
    assert members.tree_bins() == 1
    # the new key is linked right after its tree parent: the leftmost node, the smallest key
    tree: Any = members._table[0]  # type: ignore[index]
    leftmost = tree._root()
    while leftmost.left is not None:
        leftmost = leftmost.left
    assert leftmost.key == MIN_SPREAD_MEMBER_ID


def test_a_hash_set_copy_of_twelve_allocates_32_buckets():
    held = [1, 17, 33, 2, 18, 34, 3, 19, 35, 4, 20, 36]
    copy = JavaHashSet.copy_of(integer_hash, sorted(held), compare=integer_compare)
    assert copy.capacity == 32
    assert copy.order() == [1, 33, 2, 34, 3, 35, 4, 36, 17, 18, 19, 20]


def test_uuid_compare_puts_a_long_min_value_msb_first():
    assert uuid_compare(_uuid_text(-(2**63), 7), _uuid_text(2**63 - 1, 0)) < 0
    assert uuid_compare(_uuid_text(-(2**63), 7), _uuid_text(-1, 0)) < 0
    assert uuid_bits(_uuid_text(-(2**63), 0))[0] == -(2**63)


def _holder_tree(keys: list[int]) -> JavaHashSet[int]:
    holders = JavaHashSet(integer_hash, compare=integer_compare)
    for key in keys:
        holders.add(key)
    assert holders.tree_bins() == 1
    return holders


def test_map_remove_moves_the_new_root_to_the_front_and_an_iterator_remove_does_not():
    keys = [5 + 64 * k for k in range(13)]  # one bucket of 64: a tree, built in ascending order
    for from_iterator in (False, True):
        holders = _holder_tree(keys)
        tree: Any = holders._map._table[5]  # type: ignore[index]
        root = tree._root().key
        assert holders.order()[0] == root
        holders.remove(root, from_iterator=from_iterator)
        new_root = tree._root().key
        assert new_root != root
        assert (holders.order()[0] == new_root) is not from_iterator
        assert sorted(holders.order()) == sorted(k for k in keys if k != root)


def test_map_remove_turns_a_small_looking_tree_back_into_a_list_in_list_order():
    keys = [5 + 64 * k for k in range(13)]
    holders = _holder_tree(keys)
    while True:
        before = holders.order()
        holders.remove(before[-1])
        if not holders.tree_bins():
            break
    # the list is kept as it was, only the removed key is gone; no root moves any more
    assert holders.order() == before[:-1]
    assert isinstance(holders._map._table[5], list)  # type: ignore[index]

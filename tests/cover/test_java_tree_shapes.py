"""HashMap tree bins node for node: the red-black shapes Java builds, and the capacity bound.

The order tests (test_java_tree_bins.py) see a tree only through its list order, and the groups
the vectors can build insert holder keys in ascending order, so deletion's mirrored cases (the
replacement a right child) and the untreeify test on a root with one subtree left never showed
in an order. Here Java's own trees are compared: tests/data/java_tree_shapes_observed.json holds
the shape of one bucket after every operation of shuffled puts and removes, printed from
java.util.HashMap's TreeNodes by reflection (tests/data/java/TreeShapes.java).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groupspec.impl.simple_assignor import java_collections as jc
from groupspec.impl.simple_assignor.java_collections import (
    JavaHashMap,
    JavaHashSet,
    integer_compare,
    integer_hash,
)

SHAPES = Path(__file__).resolve().parents[1] / "data" / "java_tree_shapes_observed.json"
BUCKET = 5
CASES: list[dict[str, Any]] = json.loads(SHAPES.read_text(encoding="utf-8"))["cases"]


def shape(m: JavaHashMap[int, int], bucket: int) -> str:
    """One bucket in the data file's notation: a tree's preorder with colours, then its list."""
    slot: Any = m._table[bucket] if m._table else []
    if not isinstance(slot, jc._TreeBin):
        return " ".join(["L", *map(str, slot)])
    out: list[str] = []

    def pre(node: Any) -> None:
        if node is None:
            out.append(".")
            return
        out.append(f"{node.key}{'r' if node.red else 'b'}")
        pre(node.left)
        pre(node.right)

    pre(slot._root())
    return " ".join(["T", *out, "|", *map(str, slot)])


def replay(ops: list[str]) -> list[str]:
    new, *rest = ops
    m: JavaHashMap[int, int] = JavaHashMap(integer_hash, int(new.split(" ")[1]), compare=integer_compare)
    shapes = []
    for line in rest:
        op, token = line.split(" ")
        key = int(token)
        if op == "P":
            m.put(key, 0)
        elif op == "C":
            m.compute_if_absent(key, lambda: 0)
        elif op == "R":
            assert m.remove(key)  # Map.remove: the default
        elif op == "X":
            assert m.remove(key, from_iterator=True)
        else:
            raise AssertionError(f"unknown op {line!r}")
        shapes.append(shape(m, BUCKET))
    return shapes


def test_the_observed_shapes_exercise_trees_chains_and_every_operation():
    shapes = [s for case in CASES for s in case["java_shapes"]]
    assert len(CASES) >= 20
    assert {line.split(" ")[0] for case in CASES for line in case["ops"]} == {"new", "P", "C", "R", "X"}
    assert sum(s.startswith("T") for s in shapes) > 1000
    # Map.remove turned a tree back into a chain somewhere, and a later put re-treeified it
    assert any(a.startswith("T") and b.startswith("L") and op.startswith("R")
               for case in CASES
               for a, b, op in zip(case["java_shapes"], case["java_shapes"][1:], case["ops"][2:],
                                   strict=False))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_tree_shapes_match_java_node_for_node(case):
    got = replay(case["ops"])
    expected = case["java_shapes"]
    first = next((i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b), None)
    assert first is None, (case["ops"][first + 1], got[first], expected[first])


def test_set_remove_defaults_to_map_remove():
    """JavaHashSet.remove without from_iterator is Set.remove: the new root moves to the front."""
    keys = [5 + 64 * k for k in (7, 3, 11, 1, 5, 9, 13, 0, 2, 4, 6, 8, 10, 12)]
    held = JavaHashSet(integer_hash, compare=integer_compare)
    for key in keys:
        held.add(key)
    tree: Any = held._map._table[BUCKET]  # type: ignore[index]
    root = tree._root().key
    assert held.remove(root)
    assert held.order()[0] == tree._root().key != root


def test_a_requested_capacity_is_capped_at_two_to_the_thirtieth():
    """tableSizeFor's cap, read without allocating: the table is made on the first insert."""
    assert jc.MAXIMUM_CAPACITY == 2**30
    assert JavaHashMap(integer_hash, 2**31 - 1).capacity == 2**30
    assert JavaHashMap(integer_hash, 2**30).capacity == 2**30
    assert JavaHashMap(integer_hash, 2**29 + 1).capacity == 2**30
    assert jc.table_size_for(2**29) == 2**29


def test_a_table_at_the_maximum_capacity_stops_doubling(monkeypatch: pytest.MonkeyPatch):
    """HashMap.resize leaves a table of MAXIMUM_CAPACITY buckets as it is; a stand-in maximum of
    32 buckets shows the rule without the 2^30 buckets (and 800 million keys) Java's would need."""
    monkeypatch.setattr(jc, "MAXIMUM_CAPACITY", 32)
    m: JavaHashMap[int, int] = JavaHashMap(integer_hash)
    for key in range(24):  # 12 is 16 buckets' threshold, 24 is 32 buckets'
        m.put(key, 0)
    assert m.capacity == 32
    for key in range(24, 200):
        m.put(key, 0)
    assert m.capacity == 32
    assert m.keys() == [k for b in range(32) for k in range(200) if k % 32 == b]

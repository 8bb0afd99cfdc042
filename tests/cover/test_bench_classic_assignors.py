"""bench/bench_classic_assignors.py's harness, shrunk: the groups it builds and the way it feeds
kafka-python must be right, or its ratios compare different work."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from groupspec.impl.classic_assignors import assign
from groupspec.types.classic_assignors import ASSIGNORS

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_classic_assignors.py"


@pytest.fixture
def bench(monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_classic_assignors", BENCH)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_classic_assignors", module)  # dataclasses look it up
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "MEMBERS", 20)
    monkeypatch.setattr(module, "TOPICS", 10)
    monkeypatch.setattr(module, "PARTITIONS", 7)
    return module


def _flat(answer):
    return {m: sorted((t, p) for t, ps in a.assigned_partitions for p in ps) for m, a in answer.items()}


@pytest.mark.parametrize("assignor", ASSIGNORS)
def test_kafka_python_gets_the_same_group(bench, assignor):
    group = bench.build(assignor, "all", "+1")
    assert len(group.members) == 21 and group.members[-1].member_id == "newMember"
    assert all(m.generation_id == 1 for m in group.members[:-1])
    owned = sorted(tp for m in group.members for tp in m.owned_partitions)
    assert owned == sorted((t, p) for t in group.topics for p in range(group.topics[t]))
    call = bench.kafka_python_call(group)
    assert callable(call)
    theirs = _flat(call())
    assert set(theirs) == set(group.member_ids())
    held = sorted(tp for parts in theirs.values() for tp in parts)
    every = sorted((t, p) for t in group.topics for p in range(group.topics[t]))
    if assignor == "cooperative-sticky":  # the first round withholds what changes owner
        assert set(held) <= set(every) and len(held) == len(set(held))
    else:
        assert held == every
    if assignor in ("range", "roundrobin"):  # ASCII ids: kafka-python's order is Kafka's
        assert theirs == {m: sorted(ps) for m, ps in assign(group).items()}


def test_mixed_buckets_overlap_as_documented(bench):
    group = bench.build("range", "mixed", "empty")
    subscribers = {t: sum(t in m.topics for m in group.members) for t in group.topics}
    assert set(subscribers.values()) == {8}  # two member buckets of 4 (of 20) per topic
    assert len({m.topics for m in group.members}) == 5


def test_kafka_python_roundrobin_crash_is_reported_not_raised(bench):
    group = bench.build("roundrobin", "mixed", "empty")
    ms, note = bench.measure(bench.kafka_python_call(group), 0.01, 1)
    assert ms is None and note == "raises KeyError"

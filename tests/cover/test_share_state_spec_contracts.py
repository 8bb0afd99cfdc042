"""The share_state spec's own checks and helpers, held to inputs the rules never give them.

The spec's rules keep every state within ``invariants_hold`` and every combined list within
``combine``'s postconditions, so neither the vectors nor the scenarios can tell a weakened check
from the real one: these hand the checks states and results that break one rule each (and
boundary ones they must accept). ``_java_hash`` and ``coordinator_partition`` are held to values
computed with Kafka 4.2.1's own ``String#hashCode``, ``SharePartitionKey#asCoordinatorKey`` and
``Utils.abs``, and ``_meaning`` (what the combiner's contract compares) to worked examples.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from groupspec.spec import share_state as spec
from groupspec.types.errors import Errors
from groupspec.types.share_state import (
    InitializeShareGroupState,
    ReadShareGroupState,
    ShareStateConfig,
    StateBatch,
    TopicMetadata,
)
from tests.scenarios.share_state.cases import HASHED_GROUPS, T

CONFIG = ShareStateConfig()
KEY = ("g", T, 0)


def _state(*entries: spec.Entry, logs: dict[int, spec.Log] | None = None) -> spec.State:
    keys = {("g", T, i): e for i, e in enumerate(entries)}
    return spec.State(CONFIG, {T: len(entries) or 1}, 0, CONFIG.cold_snapshot_interval_ms, keys,
                      logs or {})


def _entry(start: int, *bs: tuple[int, int], leader_epoch: int = 2, leader_seen: int = 2) -> spec.Entry:
    batches = tuple(StateBatch(f, last, 0, 1) for f, last in bs)
    return spec.Entry(spec.Offset(0, 0, leader_epoch, start, batches), leader_seen)


# ---------------------------------------------------------------------------------------------
# invariants_hold
# ---------------------------------------------------------------------------------------------

GOOD_STATES = {
    "no start offset, batches touching": _state(_entry(-1, (0, 4), (5, 9))),
    "first batch at the start offset": _state(_entry(5, (5, 6))),
    "a fence above the key's leader epoch": _state(_entry(0, (0, 1), leader_epoch=2, leader_seen=3)),
    "a snapshot just below the log end": _state(_entry(0), logs={4: spec.Log(3, {KEY: 2})}),
}
BAD_STATES = {
    "batches sharing an offset": _state(_entry(-1, (0, 4), (4, 6))),
    "batches out of order": _state(_entry(-1, (5, 6), (0, 3))),
    "a batch below the start offset": _state(_entry(5, (3, 6))),
    "the later key broken": _state(_entry(0, (0, 1)), _entry(5, (4, 4))),
    "a fence below the key's leader epoch": _state(_entry(0, leader_epoch=2, leader_seen=1)),
    "a snapshot at the log end": _state(_entry(0), logs={4: spec.Log(3, {KEY: 3})}),
    "a snapshot past the log end": _state(_entry(0), logs={4: spec.Log(3, {KEY: 7})}),
}


@pytest.mark.parametrize("name", GOOD_STATES)
def test_invariants_accept_states_on_their_edges(name: str) -> None:
    assert spec.invariants_hold(GOOD_STATES[name])


@pytest.mark.parametrize("name", BAD_STATES)
def test_invariants_refuse_each_broken_rule(name: str) -> None:
    assert not spec.invariants_hold(BAD_STATES[name])


# ---------------------------------------------------------------------------------------------
# Kafka's hash and partitioning
# ---------------------------------------------------------------------------------------------

#: Java's String#hashCode, each printed by a JVM: the empty string, one ASCII letter, a string
#: hashing to Integer.MIN_VALUE, a character above U+00FF (the high byte counts), a surrogate
#: pair (two UTF-16 code units), a hash of 2^30 or more, a negative one.
JAVA_HASHES = [("", 0), ("a", 97), ("polygenelubricants", -(1 << 31)), ("\u20ac", 8364),
               ("\U0001f600", 1772899), ("hello world", 1794106052), ("grupo-\u20ac", 298826824),
               ("neg:AAAAAAAAQACAAAAAAAAACg:0", -300096558)]


@pytest.mark.parametrize(("text", "expected"), JAVA_HASHES)
def test_java_hash_is_string_hashcode(text: str, expected: int) -> None:
    assert spec._java_hash(text) == expected


@pytest.mark.parametrize(("group", "hashed", "partition"), HASHED_GROUPS)
def test_coordinator_partition_is_kafkas(group: str, hashed: int, partition: int) -> None:
    """Kafka 4.2.1's ShareCoordinatorService#partitionFor gave each of these (50 partitions)."""
    from groupspec.types.share_state import coordinator_key

    s = spec.initial_state(CONFIG, (TopicMetadata(T, 1),), 0)
    assert spec._java_hash(coordinator_key(group, T, 0)) == hashed
    assert spec.coordinator_partition(s, (group, T, 0)) == partition


# ---------------------------------------------------------------------------------------------
# _meaning and combine's postconditions
# ---------------------------------------------------------------------------------------------


def _b(first: int, last: int, count: int, state: int = 0) -> StateBatch:
    return StateBatch(first, last, state, count)


@pytest.mark.parametrize(("batches", "meaning"), [
    ((), []),
    # an overlap: the higher count wins the shared offsets
    ((_b(0, 4, 1), _b(3, 6, 2)), [(0, 2, (1, 0)), (3, 6, (2, 0))]),
    # a gap stays a gap, even between equal batches, and what follows it still counts
    ((_b(0, 4, 1), _b(6, 8, 1)), [(0, 4, (1, 0)), (6, 8, (1, 0))]),
    # neighbours with different values stay apart, whichever is higher
    ((_b(0, 2, 2), _b(3, 5, 1)), [(0, 2, (2, 0)), (3, 5, (1, 0))]),
    ((_b(0, 2, 1, 0), _b(3, 5, 1, 2)), [(0, 2, (1, 0)), (3, 5, (1, 2))]),
    # neighbours with the same value join; a batch inside a lower one splits it in three
    ((_b(0, 2, 1), _b(3, 5, 1)), [(0, 5, (1, 0))]),
    ((_b(0, 9, 1), _b(4, 4, 3)), [(0, 3, (1, 0)), (4, 4, (3, 0)), (5, 9, (1, 0))]),
])
def test_meaning_offset_by_offset(batches: tuple[StateBatch, ...], meaning: list[Any]) -> None:
    assert spec._meaning(batches) == meaning


def _holds(**values: Any) -> list[bool]:
    """Each of combine's postconditions on the arguments it names."""
    out = []
    for contract in spec.combine.__postconditions__:  # type: ignore[attr-defined]
        names = inspect.signature(contract.condition).parameters
        out.append(bool(contract.condition(**{n: values[n] for n in names})))
    return out


NEW = (_b(0, 4, 2),)


@pytest.mark.parametrize(("start", "result"), [
    (-1, NEW),
    (3, (_b(3, 4, 2),)),
    (-1, (_b(0, 1, 2), _b(2, 4, 2))),  # apart though touching with equal values: Kafka keeps that
])
def test_combine_contracts_accept_the_right_answers(start: int, result: tuple[StateBatch, ...]) -> None:
    assert all(_holds(so_far=(), new=NEW, start=start, result=result))


MEANING = "every kept offset has the highest (count, state) any batch gave it"
ABOVE_START = "nothing below the start offset"
DISJOINT = "combined batches are sorted and disjoint"


@pytest.mark.parametrize(("start", "result", "refused_by"), [
    (-1, (_b(0, 4, 3),), MEANING),  # an offset given a higher count than any batch gave it
    (-1, (_b(0, 4, 1),), MEANING),  # ... a lower one
    (3, (_b(2, 4, 2),), ABOVE_START),  # an offset below the start kept
    (-1, (_b(0, 2, 2), _b(2, 4, 2)), DISJOINT),  # two batches sharing an offset
    (-1, (_b(3, 4, 2), _b(0, 2, 2)), DISJOINT),  # batches out of order
])
def test_combine_contracts_refuse_a_wrong_result(start: int, result: tuple[StateBatch, ...],
                                                 refused_by: str) -> None:
    names = [c.description for c in spec.combine.__postconditions__]  # type: ignore[attr-defined]
    held = dict(zip(names, _holds(so_far=(), new=NEW, start=start, result=result), strict=True))
    assert held[refused_by] is False


# ---------------------------------------------------------------------------------------------
# The state's values and defaults
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [
    spec.Offset(0, 0, 0, -1, ()), spec.Entry(spec.Offset(0, 0, 0, -1, ()), 0), spec.Log(),
    _state(),
], ids=["Offset", "Entry", "Log", "State"])
def test_state_values_cannot_change_in_place(value: object) -> None:
    """A step hands back a new state and the caller may keep the old one (the Restart contract
    compares them): a value changed in place would change history."""
    name = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, name, None)


def test_initial_state_starts_where_the_implementation_does() -> None:
    """Without a start time both layers start the clock at 0 and arm the cold-snapshot timer one
    interval later."""
    from groupspec.impl.share_state import ShareCoordinator

    topics = (TopicMetadata(T, 1),)
    s = spec.initial_state(CONFIG, topics)
    assert (s.now, s.cold_due) == (0, CONFIG.cold_snapshot_interval_ms)
    assert spec.view(s) == ShareCoordinator(CONFIG, topics).view()


def test_read_without_a_leader_epoch_records_nothing_when_not_fenced() -> None:
    """From Kafka 4.3 a read at leader epoch -1 is answered, not fenced; -1 is no epoch, so it
    writes no record of one (a read at a newer real epoch does)."""
    config = ShareStateConfig(fence_read_without_leader_epoch=False)
    s = spec.initial_state(config, (TopicMetadata(T, 1),), 0)
    s, _ = spec.step(s, InitializeShareGroupState("g", T, 0, 0, 0), 0)
    s, out = spec.step(s, ReadShareGroupState("g", T, 0, 3), 1)
    assert len(out.records) == 1
    s, out = spec.step(s, ReadShareGroupState("g", T, 0, -1), 2)
    assert out.answers[0].response.error == Errors.NONE and out.records == ()
    assert spec.view(s).share_partitions[0].leader_epoch == 3


@pytest.mark.parametrize(("fence_minus_one", "errors"), [
    (True, (Errors.NONE, Errors.FENCED_LEADER_EPOCH, Errors.FENCED_LEADER_EPOCH)),
    (False, (Errors.NONE, Errors.FENCED_LEADER_EPOCH, Errors.NONE)),
])
def test_read_fences_a_stale_leader_epoch_in_either_release(fence_minus_one: bool,
                                                            errors: tuple[Errors, ...]) -> None:
    """A read below the recorded leader epoch is fenced in Kafka 4.2 and 4.3 alike; only a read
    without an epoch (-1) is answered from 4.3 on."""
    config = ShareStateConfig(fence_read_without_leader_epoch=fence_minus_one)
    s = spec.initial_state(config, (TopicMetadata(T, 1),), 0)
    s, _ = spec.step(s, InitializeShareGroupState("g", T, 0, 0, 0), 0)
    got = []
    for i, epoch in enumerate((3, 1, -1)):
        s, out = spec.step(s, ReadShareGroupState("g", T, 0, epoch), i + 1)
        got.append(out.answers[0].response.error)
    assert tuple(got) == errors

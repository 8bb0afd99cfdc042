"""Rules where groupspec was shown wrong by Kafka 4.2.1's own shard (issue 18), on both layers.

Each test is the behaviour Kafka's GroupCoordinatorShard showed through the adapter
(tests/kafka/test_kafka_classic_group.py), which the spec and the implementation now follow.
"""

from __future__ import annotations

import pytest

from groupspec.types.classic_group import (
    BeginLoad,
    CommitPartition,
    CommitTopic,
    CompleteLoad,
    OffsetCommit,
    OffsetCommitResponse,
    Restart,
    TxnOffsetCommit,
    TxnOffsetCommitResponse,
)
from groupspec.types.errors import Errors
from tests.scenarios.classic_group.targets import LAYERS, Driver
from tests.scenarios.classic_group.test_classic_group_scenarios import DELAY, sync

ORDERS_0 = (CommitTopic("orders", (CommitPartition(0, 5),)),)


def _stable_group(d: Driver) -> str:
    c1, _ = d.new_member("g", "consumer-1")
    d.advance(DELAY)
    sync(d, c1, 1, {c1: b"all"})
    assert d.state("g") == "Stable"
    return c1


def _txn(d: Driver, generation: int, member: str = "", instance: str | None = None,
         producer: int = 7) -> Errors:
    response = d.answer(d.send(TxnOffsetCommit("tx", producer, 0, "g", generation, member, instance,
                                               ORDERS_0)))
    assert isinstance(response, TxnOffsetCommitResponse)
    return response.topics[0].partitions[0].error


def _plain(d: Driver, generation: int, member: str = "") -> Errors:
    response = d.answer(d.send(OffsetCommit("g", generation, member, topics=ORDERS_0)))
    assert isinstance(response, OffsetCommitResponse)
    return response.topics[0].partitions[0].error


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("generation", [-1, -2, -2_147_483_648])
def test_anonymous_transactional_commit_any_negative_generation(layer: str, generation: int) -> None:
    """ClassicGroup#validateOffsetCommit: without member and instance id, a negative generation
    is refused (UNKNOWN_MEMBER_ID) in a group in use only when the commit is not transactional."""
    d = Driver(layer)
    c1 = _stable_group(d)
    assert _plain(d, generation) is Errors.UNKNOWN_MEMBER_ID
    assert _txn(d, generation) is Errors.NONE
    assert [p.producer_id for p in d.group("g").pending_offsets] == [7]
    # Any identity makes the generation count, negative or not.
    assert _txn(d, generation, member=c1, producer=8) is Errors.ILLEGAL_GENERATION
    assert _txn(d, generation, instance="i", producer=8) is Errors.UNKNOWN_MEMBER_ID
    assert _txn(d, 1, member=c1, producer=8) is Errors.NONE


@pytest.mark.parametrize("layer", LAYERS)
def test_group_of_offsets_alone_is_loaded_with_the_time_of_the_load(layer: str) -> None:
    """OffsetMetadataManager#replay creates a group no GroupMetadata record made as a new
    ClassicGroup, whose state timestamp is the clock at replay: the time of the load, not of
    the commit; a group with a record keeps the record's timestamp."""
    d = Driver(layer, start_ms=1_000)
    assert _plain(d, -1) is Errors.NONE
    assert d.group("g").state_timestamp_ms == 1_000
    d.new_member("h", "consumer-1")               # h's creation record: Empty at 1 s
    d.advance(DELAY)                              # h: CompletingRebalance at 4 s, no record since
    d.advance(1_000)
    d.send(Restart())
    assert (d.group("g").state, d.group("g").state_timestamp_ms) == ("Empty", 5_000)
    assert (d.group("h").state, d.group("h").state_timestamp_ms) == ("Empty", 1_000)
    d.send(BeginLoad())
    d.advance(2_000)
    d.send(CompleteLoad())
    assert d.group("g").state_timestamp_ms == 7_000

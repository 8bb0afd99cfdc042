"""The in-memory share-state persister behind the coordinator's InitializeShareGroupState."""

from __future__ import annotations

import dataclasses

import pytest

from groupspec.impl.share_group.persister import InMemoryShareStatePersister, ShareSnapshot
from groupspec.types.errors import Errors
from groupspec.types.share_group import InitializeRequest, TopicPartitions

T = "00000000-0000-4000-8000-000000000001"


def test_initialize_writes_fresh_snapshots_and_fences_older_epochs() -> None:
    p = InMemoryShareStatePersister({T: 2}.get)
    assert p.initialize(InitializeRequest(0, "g", 3, (TopicPartitions(T, (0, 1)),))) is Errors.NONE
    assert p.snapshots[("g", T, 0)] == ShareSnapshot(0, 3)
    assert p.initialize(InitializeRequest(1, "g", 4, (TopicPartitions(T, (0,)),))) is Errors.NONE
    assert p.snapshots[("g", T, 0)] == ShareSnapshot(1, 4)
    stale = InitializeRequest(2, "g", 2, (TopicPartitions(T, (0, 1)),))
    assert p.initialize(stale) is Errors.FENCED_STATE_EPOCH
    assert p.snapshots[("g", T, 1)] == ShareSnapshot(0, 3)  # fenced too (2 < 3): unchanged
    assert p.initialize(InitializeRequest(3, "g", 5, (TopicPartitions(T, (2,)),))) is \
        Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert p.initialize(InitializeRequest(4, "g", 5, (TopicPartitions("nope", (0,)),))) is \
        Errors.UNKNOWN_TOPIC_OR_PARTITION
    assert p.initialize(InitializeRequest(5, "g", 5, (TopicPartitions(T, (-1,)),))) is Errors.INVALID_REQUEST


def test_snapshots_are_frozen_and_start_at_offset_minus_one() -> None:
    snapshot = ShareSnapshot(0, 1)
    assert snapshot.start_offset == -1
    with pytest.raises(dataclasses.FrozenInstanceError):
        snapshot.state_epoch = 2  # type: ignore[misc]


def test_state_epoch_fencing_boundaries() -> None:
    """Only a state epoch strictly below the stored one is fenced; -1 (unknown) never is, any
    other value below it is (share coordinator: ``initializeState``'s epoch check)."""
    p = InMemoryShareStatePersister({T: 4}.get)
    assert p.initialize(InitializeRequest(0, "g", -1, (TopicPartitions(T, (0,)),))) is Errors.NONE
    assert p.initialize(InitializeRequest(1, "g", 3, (TopicPartitions(T, (0, 1, 2)),))) is Errors.NONE
    assert p.initialize(InitializeRequest(2, "g", 3, (TopicPartitions(T, (0,)),))) is Errors.NONE
    assert p.snapshots[("g", T, 0)] == ShareSnapshot(2, 3)
    assert p.initialize(InitializeRequest(3, "g", -1, (TopicPartitions(T, (0,)),))) is Errors.NONE
    assert p.snapshots[("g", T, 0)] == ShareSnapshot(3, -1)
    for index, (state_epoch, partition) in enumerate(((0, 1), (-2, 2)), start=4):
        request = InitializeRequest(index, "g", state_epoch, (TopicPartitions(T, (partition,)),))
        assert p.initialize(request) is Errors.FENCED_STATE_EPOCH
    assert p.snapshots[("g", T, 1)] == p.snapshots[("g", T, 2)] == ShareSnapshot(0, 3)


def test_partition_bounds() -> None:
    p = InMemoryShareStatePersister({T: 2}.get)
    assert p.initialize(InitializeRequest(0, "g", 1, (TopicPartitions(T, (0,)),))) is Errors.NONE
    for partition in (2, 3):
        request = InitializeRequest(1, "g", 1, (TopicPartitions(T, (partition,)),))
        assert p.initialize(request) is Errors.UNKNOWN_TOPIC_OR_PARTITION
    for partition in (-1, -2):
        request = InitializeRequest(2, "g", 1, (TopicPartitions(T, (partition,)),))
        assert p.initialize(request) is Errors.INVALID_REQUEST
    assert set(p.snapshots) == {("g", T, 0)}


def test_the_first_failure_is_the_answer_and_the_other_partitions_still_initialize() -> None:
    p = InMemoryShareStatePersister({T: 2}.get)
    request = InitializeRequest(0, "g", 1, (TopicPartitions(T, (-1, 5, 1)), TopicPartitions(T, (0,))))
    assert p.initialize(request) is Errors.INVALID_REQUEST
    assert set(p.snapshots) == {("g", T, 0), ("g", T, 1)}
    request = InitializeRequest(1, "g", 1, (TopicPartitions(T, (7, -1)),))
    assert p.initialize(request) is Errors.UNKNOWN_TOPIC_OR_PARTITION

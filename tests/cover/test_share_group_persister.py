"""The in-memory share-state persister behind the coordinator's InitializeShareGroupState."""

from __future__ import annotations

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

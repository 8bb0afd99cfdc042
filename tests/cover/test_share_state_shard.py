"""The share coordinator as a library: what no conformance run reaches.

A run only writes a ShareUpdate after its key's snapshot, so the shard's replay of a ShareUpdate
for a key with no state (a log written elsewhere, or cut short) is reached only by feeding the
shard such a log directly. Kafka 4.2.1 builds the key's state from the update alone
(``ShareGroupOffset.fromRecord(ShareUpdateValue)``): state epoch 0 (``UNINITIALIZED_EPOCH``),
both timestamps 0 (``NO_TIMESTAMP``), the rest as the update says.
"""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from groupspec.impl.share_state import ShareCoordinator
from groupspec.impl.share_state.shard import ShareGroupOffset, ShareStateShard
from groupspec.types import records as r
from groupspec.types.records import CoordinatorRecord
from groupspec.types.share_state import ShareStateConfig, StateBatch, TopicMetadata

TOPIC = "00000000-0000-4000-8000-00000000000a"
KEY = ("g", TOPIC, 0)


def _shard() -> ShareStateShard:
    c = ShareCoordinator(ShareStateConfig(state_topic_partitions=1), (TopicMetadata(TOPIC, 1),), start_ms=5)
    return next(shard for _, shard in c.runtime.shards())


def _update(snapshot_epoch: int, leader_epoch: int, start: int) -> CoordinatorRecord:
    value = r.ShareUpdateValue(snapshot_epoch=snapshot_epoch, leader_epoch=leader_epoch, start_offset=start,
                               state_batches=(r.ShareUpdateValue.StateBatch(3, 7, 2, 1),))
    return CoordinatorRecord(r.ShareUpdateKey("g", uuid.UUID(TOPIC), 0), value, 0)


def test_a_share_update_for_a_key_with_no_state_is_its_whole_state() -> None:
    shard = _shard()
    shard.replay(0, _update(snapshot_epoch=4, leader_epoch=2, start=3))
    assert shard.share_state[KEY] == ShareGroupOffset(
        snapshot_epoch=4, state_epoch=0, leader_epoch=2, start_offset=3,
        state_batches=(StateBatch(3, 7, 2, 1),), create_timestamp=0, write_timestamp=0)
    assert shard.leader_epochs[KEY] == 2
    assert shard.update_counts[KEY] == 1
    assert KEY not in shard.state_epochs  # a ShareUpdate carries no state epoch


def test_a_key_state_is_an_immutable_value() -> None:
    """The view and the records are built from the state the shard holds; it is never changed
    in place (a new value replaces it), so it can be shared and hashed."""
    shard = _shard()
    shard.replay(0, _update(snapshot_epoch=0, leader_epoch=0, start=0))
    state = shard.share_state[KEY]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.start_offset = 9  # type: ignore[misc]
    assert hash(state) == hash(dataclasses.replace(state))


def test_the_library_default_starts_the_clock_at_zero() -> None:
    """The vectors always give ``start_ms``; a caller that does not starts at 0, and the cold
    snapshot timer is due one interval later."""
    c = ShareCoordinator(ShareStateConfig(cold_snapshot_interval_ms=1_000))
    assert c.view().now_ms == 0
    assert c.cold_due == 1_000


def test_a_shard_built_without_the_release_setting_fences_a_read_at_epoch_minus_one() -> None:
    """The library default is Kafka 4.2's rule (KAFKA-20694 lifts the fence in 4.3): a read with
    no leader epoch is fenced by a key whose leader epoch is known."""
    from groupspec.types.errors import Errors

    built = _shard()
    shard = ShareStateShard(built.context, dict(built.topics), 5, 1_000)
    shard.replay(0, _update(snapshot_epoch=0, leader_epoch=2, start=3))
    response, records = shard.read_state(KEY, -1)
    assert response.error is Errors.FENCED_LEADER_EPOCH and records == []
    lifted = ShareStateShard(built.context, dict(built.topics), 5, 1_000,
                             fence_read_without_leader_epoch=False)
    lifted.replay(0, _update(snapshot_epoch=0, leader_epoch=2, start=3))
    assert lifted.read_state(KEY, -1)[0].error is Errors.NONE

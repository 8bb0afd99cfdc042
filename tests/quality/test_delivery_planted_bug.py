"""The end-to-end checker can fail: a real fault planted in the share coordinator (or in the share
partition's read of it) makes seeded simulation runs break the per-record promises, and the
checker says which.

The fault is injected by monkeypatching the share coordinator shard's batch combiner to drop the
newest batch of every write (a plausible bug: an off-by-one in the merge). The share partition's
own memory still holds the truth, so nothing shows until a broker restart replays the share
coordinator's log and reloads the partitions from it: then acknowledged records come back.
"""

from __future__ import annotations

from typing import Any

import pytest

import groupspec.impl.share_state.shard as shard
from groupspec.delivery_simulation import DeliverySimConfig, simulate
from groupspec.share_delivery_check import check

SEEDS = range(4)


def _kinds(config: DeliverySimConfig) -> set[str]:
    history, _ = simulate(config)
    return {v.kind for v in check(history, config.delivery_limit)}


def test_a_combiner_that_drops_a_batch_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    assert all(_kinds(DeliverySimConfig(seed=s)) == set() for s in SEEDS)
    honest = shard.combine_state_batches

    def dropping(so_far: list[Any], new: list[Any], start: int) -> list[Any]:
        return honest(so_far, new[:-1], start)

    monkeypatch.setattr(shard, "combine_state_batches", dropping)
    found = [_kinds(DeliverySimConfig(seed=s)) for s in SEEDS]
    assert all("delivered_after_final" in kinds for kinds in found), found
    # Without a restart the lost state is never read back: the bug stays invisible.
    assert _kinds(DeliverySimConfig(seed=0, crashes=0)) == set()


def test_a_load_that_forgets_acknowledgements_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A share partition reading its state back with every ACKNOWLEDGED batch turned AVAILABLE
    (one count less, as if the acknowledgement was never written) hands accepted records out again."""
    import dataclasses

    from groupspec.impl.share_partition.store import PartitionStore
    from groupspec.types.share_partition import PersisterBatch, ReadResult, RecordState

    honest = PartitionStore.read_state

    def forgetful(self: PartitionStore, leader_epoch: int) -> ReadResult:
        read = honest(self, leader_epoch)
        batches = tuple(
            PersisterBatch(b.first_offset, b.last_offset, RecordState.AVAILABLE, b.delivery_count - 1)
            if b.delivery_state == RecordState.ACKNOWLEDGED else b for b in read.state.batches)
        return dataclasses.replace(read, state=dataclasses.replace(read.state, batches=batches))

    monkeypatch.setattr(PartitionStore, "read_state", forgetful)
    found = [_kinds(DeliverySimConfig(seed=s)) for s in SEEDS]
    assert all("delivered_after_final" in kinds for kinds in found), found

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


def test_a_consumer_that_sends_its_acknowledgements_twice_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that lets the acknowledgements of a successful ShareFetch ride again on the next
    one (an ACCEPT of one delivery sent twice). Kafka answers NONE to the second once the record
    is below the start offset, so the consumer is told twice that one delivery was accepted:
    the checker, which judges ACCEPTs per delivered copy, reports the same delivery."""
    from groupspec.impl.share_delivery.batch import Acknowledgements
    from groupspec.impl.share_delivery.network import ShareConsumeRequestManager
    from groupspec.types.errors import Errors
    from groupspec.types.share_delivery import FetchAnswered, Record

    def details(config: DeliverySimConfig) -> list[str]:
        history, _ = simulate(config)
        return [v.detail for v in check(history, config.delivery_limit) if v.kind == "accepted_twice"]

    renewing = [DeliverySimConfig(seed=s, renew=0.1) for s in SEEDS]
    assert all(details(c) == [] for c in renewing)
    honest = ShareConsumeRequestManager.on_fetch_answered
    # The copies queued again (kept alive, so ids are not reused): each is sent twice, not forever.
    resent: dict[int, Acknowledgements] = {}

    def again(self: ShareConsumeRequestManager, answer: FetchAnswered) -> list[Record]:
        sent = {p: a for p, a in self.fetch_acknowledgements_in_flight.items() if id(a) not in resent}
        records = honest(self, answer)
        if answer.error is Errors.NONE:
            for p, acks in sent.items():
                copy = Acknowledgements().merge(acks)
                resent[id(copy)] = copy
                self.fetch_acknowledgements_to_send[p] = copy.merge(
                    self.fetch_acknowledgements_to_send.get(p, Acknowledgements()))
        return records

    monkeypatch.setattr(ShareConsumeRequestManager, "on_fetch_answered", again)
    found = [details(c) for c in renewing]
    assert all(any("same delivery" in d for d in f) for f in found), found


def test_a_broker_that_applies_a_stale_acknowledgement_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A share partition that does not check who acknowledges: an ACCEPT or RELEASE from a
    consumer whose lock expired is applied to the acquisition another consumer now holds. The
    consumer is told NONE while the record could not have ended, which Kafka never answers."""
    import dataclasses

    from groupspec.impl.share_partition.machine import SharePartitionMachine
    from groupspec.types.share_partition import Acknowledge, RecordState

    seeds = range(8)
    assert all(_kinds(DeliverySimConfig(seed=s)) == set() for s in seeds)
    honest = SharePartitionMachine.handle

    def careless(self: SharePartitionMachine, event: Any, index: int) -> Any:
        if isinstance(event, Acknowledge) and event.batches:
            first = event.batches[0].first_offset
            holder = next((r.member_id for r in self.record_runs() if r.state == RecordState.ACQUIRED
                           and r.first_offset <= first <= r.last_offset), None)
            if holder is not None:
                event = dataclasses.replace(event, member_id=holder)
        return honest(self, event, index)

    monkeypatch.setattr(SharePartitionMachine, "handle", careless)
    found = [_kinds(DeliverySimConfig(seed=s)) for s in seeds]
    assert sum("stale_acknowledgement_took" in kinds for kinds in found) >= len(seeds) // 2, found

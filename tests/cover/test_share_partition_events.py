"""Events no broker could produce are refused, on both layers, before anything changes (issue 15
item 8): a typed InputError naming the field, the same on the spec and the impl, and the view
(persisted state included) exactly as before."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.spec import share_partition as spec
from groupspec.types import InputError
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    AdvanceClock,
    Fetch,
    FetchResponse,
    LogBatch,
    MoveLogStart,
    PersistedState,
    ReleaseMember,
    Reload,
    ResetShareState,
    SetPersisterError,
    SharePartitionConfig,
    SharePartitionEvent,
)
from tests.scenarios.share_partition.targets import LAYERS, M1, TEST_CONFIG, Partition

BAD_EVENTS: list[tuple[Any, str]] = [
    (ResetShareState(-7), "event.start_offset"),
    (ResetShareState(2**63), "event.start_offset"),
    (ResetShareState("5"), "event.start_offset"),
    (Reload(-1), "event.latest_offset"),
    (MoveLogStart(-3), "event.log_start_offset"),
    (AdvanceClock(2**70), "event.to_ms"),
    (AdvanceClock(-1), "event.to_ms"),
    (Fetch(M1, -1, (LogBatch(0, 4),)), "event.fetch_offset"),
    (Fetch(M1, 0, (LogBatch(-5, 4),)), "event.log[0].base_offset"),
    (Fetch(M1, 0, (LogBatch(5, 4),)), "event.log[0].last_offset"),
    (Fetch(M1, 0, (LogBatch(0, 4), LogBatch(3, 9))), "event.log[1]"),
    (Fetch(M1, 0, (LogBatch(0, 4),), 500, 0), "event.batch_size"),
    (Fetch(M1, 0, (LogBatch(0, 4),), 2**31), "event.max_fetch_records"),
    (Fetch(None, 0, (LogBatch(0, 4),)), "event.member_id"),
    (Fetch(M1, 0, [LogBatch(0, 4)]), "event.log"),
    (Acknowledge(None, (AckBatch(0, 0, (1,)),)), "event.member_id"),
    (Acknowledge(M1, (AckBatch(0, 0, (1.0,)),)), "event.batches[0].types[0]"),
    (Acknowledge(M1, (AckBatch(0, 0, (1,)), (0, 0, (1,)))), "event.batches[1]"),
    (Acknowledge(M1, (AckBatch(True, 0, (1,)),)), "event.batches[0].first_offset"),
    (ReleaseMember(7), "event.member_id"),
    # The empty id marks records no member holds: a member called "" would hold what nobody does
    # (found by the spec's postcondition: a release of another member made an offset below the
    # start offset AVAILABLE when "" held the batch the start offset sat in).
    (Fetch("", 0, (LogBatch(0, 4),)), "event.member_id"),
    (Acknowledge("", (AckBatch(0, 0, (1,)),)), "event.member_id"),
    (ReleaseMember(""), "event.member_id"),
    (SetPersisterError(5), "event.error"),
]


def _started(layer: str) -> Partition:
    p = Partition(layer)
    p.fetch(0, (0, 9))
    p.ack((0, 2, 1))
    return p


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize(("event", "field"), BAD_EVENTS, ids=[f for _, f in BAD_EVENTS])
def test_a_refused_event_names_its_field_and_changes_nothing(layer: str, event: SharePartitionEvent,
                                                             field: str) -> None:
    p = _started(layer)
    before = p.view()
    state_before = p._state if layer == "spec" else None
    with pytest.raises(InputError) as caught:
        p.send(event)
    assert caught.value.field == field
    assert p.view() == before
    if state_before is not None:
        assert p._state is state_before


@pytest.mark.parametrize("layer", LAYERS)
def test_a_negative_reset_never_hands_out_negative_offsets(layer: str) -> None:
    """The audit's case: ResetShareState(-7) then Reload() acquired -7..-1."""
    p = _started(layer)
    with pytest.raises(InputError, match=r"event\.start_offset: must be in -1\.\."):
        p.send(ResetShareState(-7))
    p.send(Reload(latest_offset=10))
    acquired, _ = p.fetch(3, (0, 9))
    assert acquired and min(first for first, _, _ in acquired) >= 3
    assert p.spso == 3


@pytest.mark.parametrize("layer", LAYERS)
def test_a_reset_to_minus_one_means_not_initialized(layer: str) -> None:
    """-1 is the share coordinator's "never initialized": a reload starts at the log's latest."""
    p = _started(layer)
    p.send(ResetShareState(-1))
    p.send(Reload(latest_offset=10))
    assert (p.spso, p.end, p.nfo) == (10, 10, 10)


@given(st.integers(max_value=-2) | st.integers(min_value=2**63))
def test_start_offsets_out_of_int64_or_below_minus_one_are_refused_by_both(offset: int) -> None:
    state = spec.initial_state(TEST_CONFIG)
    impl = SharePartitionMachine(TEST_CONFIG)
    for run in (lambda: spec.step(state, ResetShareState(offset), 0),
                lambda: impl.handle(ResetShareState(offset), 0)):
        with pytest.raises(InputError) as caught:
            run()
        assert caught.value.field == "event.start_offset"
    assert impl.view() == spec.view(state) and impl.view().persisted_state_epoch == 0


@pytest.mark.parametrize("epoch", [-1, -2, 2**31])
def test_a_persisted_state_epoch_out_of_int32_or_negative_is_refused_by_both(epoch: int) -> None:
    """-1 would be a write nobody fences by state epoch in Kafka's coordinator, where the spec's
    rule fences every write below the stored epoch: no coordinator stores it, both refuse it."""
    persisted = PersistedState(epoch, 0, ())
    for make in (lambda: spec.initial_state(TEST_CONFIG, persisted),
                 lambda: SharePartitionMachine(TEST_CONFIG, persisted)):
        with pytest.raises(InputError) as caught:
            make()
        assert caught.value.field == "persisted.state_epoch"


@pytest.mark.parametrize(("config", "field"), [
    (SharePartitionConfig(delivery_count_limit=1), "config.delivery_count_limit"),
    (SharePartitionConfig(delivery_count_limit=26), "config.delivery_count_limit"),
    (SharePartitionConfig(max_in_flight_records=0), "config.max_in_flight_records"),
    (SharePartitionConfig(record_lock_duration_ms=-5), "config.record_lock_duration_ms"),
    (SharePartitionConfig(record_lock_duration_ms=2**31), "config.record_lock_duration_ms"),
    ("not a config", "config"),
])
def test_configs_out_of_kafkas_bounds_are_refused_by_both(config: Any, field: str) -> None:
    for make in (lambda: spec.initial_state(config), lambda: SharePartitionMachine(config)):
        with pytest.raises(InputError) as caught:
            make()
        assert caught.value.field == field


def test_acknowledgements_kafka_answers_are_still_answers() -> None:
    """Not refused: Kafka answers these (skip below the start offset, INVALID_REQUEST; KafkaApis
    refuses a first batch from -2 or lower)."""
    p = _started("impl")
    assert p.ack((-1, -1, 1)) is Errors.NONE
    assert p.ack((-5, -3, 1)) is Errors.INVALID_REQUEST
    assert p.ack((3, 3, 9)) is Errors.INVALID_REQUEST
    response = p.send(Fetch(M1, 0, (LogBatch(0, 9),), 0))
    assert response == FetchResponse()

"""The share coordinator's catalogued cases and Kafka's combiner examples, on both layers.

Each case of ``cases.py`` (most restate a test of Kafka's ShareCoordinatorShardTest) runs on the
spec and the implementation; its claims (answers, record kinds, final key state, redundant
offset) must hold on each, and the two layers must agree on every output and the view.
"""

from __future__ import annotations

import pytest

from groupspec.types.errors import InputError
from groupspec.types.share_state import (
    InitializeShareGroupState,
    ShareStateConfig,
    StateBatch,
    WriteShareGroupState,
)
from tests.scenarios.share_state.cases import (
    COMBINER_EXAMPLES,
    OWN_COMBINER_EXAMPLES,
    TOPICS,
    Answered,
    Case,
    Ends,
    Redundant,
    Wrote,
    all_cases,
    batches,
)
from tests.scenarios.share_state.targets import LAYERS, Coordinator, combine

CASES = all_cases()


def _run(layer: str, case: Case) -> Coordinator:
    c = Coordinator(layer, case.topics, case.config)
    for event in case.events:
        c.send(event)
    return c


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_claims(layer: str, case: Case) -> None:
    c = _run(layer, case)
    for claim in case.shows:
        match claim:
            case Answered(event, error):
                response = c.outputs[event].answers[0].response
                assert response.error == error, (claim, response)
            case Wrote(event, kinds):
                assert c.kinds(event) == kinds, claim
            case Ends(group, topic, partition, exists):
                v = c.key(group, topic, partition)
                assert (v is not None) == exists, claim
                if v is None:
                    continue
                for name in ("start_offset", "snapshot_epoch", "leader_epoch", "state_epoch",
                             "coordinator_partition"):
                    if getattr(claim, name) is not None:
                        assert getattr(v, name) == getattr(claim, name), (name, claim, v)
                if claim.state_batches is not None:
                    assert v.state_batches == batches(*claim.state_batches), (claim, v)
            case Redundant(partition, offset):
                got = {p.partition: p.last_redundant_offset for p in c.view().coordinator_partitions}
                assert got.get(partition) == offset, (claim, got)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_layers_agree(case: Case) -> None:
    a, b = _run("spec", case), _run("impl", case)
    assert a.outputs == b.outputs
    assert a.view() == b.view()


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize(("name", "so_far", "new", "start", "expected"),
                         COMBINER_EXAMPLES + OWN_COMBINER_EXAMPLES,
                         ids=[e[0] for e in COMBINER_EXAMPLES + OWN_COMBINER_EXAMPLES])
def test_combiner_examples(layer: str, name: str, so_far: tuple[tuple[int, int, int, int], ...],
                           new: tuple[tuple[int, int, int, int], ...], start: int,
                           expected: tuple[tuple[int, int, int, int], ...]) -> None:
    assert combine(layer, batches(*so_far), batches(*new), start) == batches(*expected)


@pytest.mark.parametrize("layer", LAYERS)
def test_invalid_batches_are_refused_before_anything_changes(layer: str) -> None:
    c = Coordinator(layer, TOPICS)
    c.send(InitializeShareGroupState("g", TOPICS[0].topic_id, 0, 0, 0))
    before = c.view()
    for bad in (StateBatch(5, 4, 0, 1), StateBatch(-1, 4, 0, 1), StateBatch(0, 4, 9, 1)):
        with pytest.raises(InputError):
            c.send(WriteShareGroupState("g", TOPICS[0].topic_id, 0, 0, 0, 0, (bad,)))
    with pytest.raises(InputError):
        c.send(InitializeShareGroupState("", TOPICS[0].topic_id, 0, 0, 0))
    assert c.view() == before


@pytest.mark.parametrize("layer", LAYERS)
def test_invalid_config_is_refused(layer: str) -> None:
    with pytest.raises(InputError):
        Coordinator(layer, TOPICS, ShareStateConfig(updates_per_snapshot=501))
    with pytest.raises(InputError):
        Coordinator(layer, TOPICS, ShareStateConfig(state_topic_partitions=0))


@pytest.mark.parametrize("layer", LAYERS)
def test_the_coordinator_partition_is_kafkas_hash_of_the_key(layer: str) -> None:
    """``abs(hash("group:topicId:partition")) % partitions`` with the id in Kafka's 22-character
    spelling; the implementation uses the runtime's partitioning (Java String.hashCode)."""
    from groupspec.impl.runtime.partitioning import partition_for
    from groupspec.types.share_state import coordinator_key
    from groupspec.types.topic_id import kafka_string, parse_topic_id

    topic = TOPICS[0].topic_id
    c = Coordinator(layer, TOPICS)
    c.send(InitializeShareGroupState("group1", topic, 1, 0, 0))
    key = coordinator_key("group1", topic, 1)
    assert key == f"group1:{kafka_string(parse_topic_id(topic))}:1"
    v = c.key("group1", topic, 1)
    assert v is not None and v.coordinator_partition == partition_for(key, 50)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_replaying_the_logs_rebuilds_the_same_state(case: Case) -> None:
    """Every state change is a record: a coordinator built afresh over the logs the
    implementation wrote (every shard unloaded, then loaded from its log) holds the same view."""
    from groupspec.types.share_state import Restart

    c = _run("impl", case)
    before = c.view()
    c.send(Restart())
    assert c.view() == before
    assert c.outputs[-1].records == ()

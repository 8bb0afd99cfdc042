"""Each Kafka release's rules where releases differ (groupspec.kafka_versions), on both layers.

The registry names a config setting per difference; these cases show each layer following
either value, from the first answer through a replay, so a user of a 4.3 broker can hold
groupspec to 4.3's answers and a user of 4.2 to 4.2's.
"""

from __future__ import annotations

import dataclasses

import pytest

from groupspec.kafka_versions import DEFAULT, VERSIONS
from groupspec.types.errors import Errors
from groupspec.types.share_group import DeleteGroups, Restart, ShareGroupConfig
from groupspec.types.share_state import (
    InitializeShareGroupState,
    ReadShareGroupState,
    ReadShareGroupStateResponse,
    ShareStateConfig,
)
from tests.scenarios.share_group.cases import T1
from tests.scenarios.share_group.targets import LAYERS
from tests.scenarios.share_group.targets import Coordinator as Group
from tests.scenarios.share_state.cases import TOPICS
from tests.scenarios.share_state.targets import Coordinator as State

LINES = tuple(VERSIONS)


def _group_config(line: str) -> ShareGroupConfig:
    return dataclasses.replace(ShareGroupConfig(), **VERSIONS[line].settings.get("share_group", {}))


def _state_config(line: str) -> ShareStateConfig:
    return dataclasses.replace(ShareStateConfig(), **VERSIONS[line].settings.get("share_state", {}))


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize(("line", "first"), [("4.2", 1), ("4.3", 2)])
def test_first_heartbeat_takes_the_releases_next_epoch(layer: str, line: str, first: int) -> None:
    """KAFKA-20268: a 4.3 group starts at epoch 1, so its first bump gives 2; every later epoch
    follows from there, a replay keeps it, and a group created again starts over at 1."""
    g = Group(layer, T1, config=_group_config(line))
    assert g.hb("m1", 0, ("t1",)).member_epoch == first
    assert (g.view().group_epoch, g.view().assignment_epoch) == (first, first)
    assert g.hb("m2", 0, ("t1",)).member_epoch == first + 1
    assert g.hb("m1", first).member_epoch == first + 1
    g.send(Restart())
    assert g.view().group_epoch == first + 1
    assert g.hb("m1", first + 1).error == Errors.NONE
    assert g.hb("m1", -1).error == Errors.NONE and g.hb("m2", -1).error == Errors.NONE
    g.send(DeleteGroups(("g",)))
    assert g.hb("m3", 0, ("t1",)).member_epoch == first


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize(("line", "error"), [("4.2", Errors.FENCED_LEADER_EPOCH), ("4.3", Errors.NONE)])
def test_read_without_a_leader_epoch(layer: str, line: str, error: Errors) -> None:
    """KAFKA-20694: after a read at leader epoch 2, a read at -1 is fenced on 4.2 and answered
    (without a record: -1 never raises the epoch) on 4.3; a read at 1 is fenced on both."""
    c = State(layer, TOPICS, _state_config(line))
    topic = TOPICS[0].topic_id
    c.send(InitializeShareGroupState("g", topic, 0, 0, 5))
    assert c.send(ReadShareGroupState("g", topic, 0, 2)) == ReadShareGroupStateResponse(Errors.NONE, 0, 5, ())
    answer = c.send(ReadShareGroupState("g", topic, 0, -1))
    assert isinstance(answer, ReadShareGroupStateResponse) and answer.error == error
    assert c.outputs[-1].records == ()
    if error == Errors.NONE:
        assert (answer.state_epoch, answer.start_offset) == (0, 5)
    fenced = c.send(ReadShareGroupState("g", topic, 0, 1))
    assert isinstance(fenced, ReadShareGroupStateResponse) and fenced.error == Errors.FENCED_LEADER_EPOCH


def test_the_default_line_changes_nothing() -> None:
    """The defaults of every config are the default line's rules: a registry entry for 4.2
    with settings would silently change what every existing user runs."""
    assert DEFAULT.line == "4.2" and not DEFAULT.settings
    assert set(LINES) >= {"4.2", "4.3"}
    for line in LINES:
        assert set(VERSIONS[line].settings) == set(VERSIONS[line].why)

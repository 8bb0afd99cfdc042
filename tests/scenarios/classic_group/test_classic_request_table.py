"""The classic group's request x state table (docs/machines/classic_group.md, drawn from
groupspec/diagrams.py) is executable: every cell that names an error is checked here, on both
layers, by driving a group into the cell's state and sending the row's probe request.

The group: member A joins alone and becomes leader (CompletingRebalance after the initial
delay), syncs (Stable); member B's join then starts a rebalance (PreparingRebalance). Empty is a
group an anonymous commit created. A is "member ok" with the current generation in every state
but Empty, where no member exists.
"""

from __future__ import annotations

import pytest

from groupspec import diagrams
from groupspec.types.classic_group import (
    ClassicConfig,
    CommitPartition,
    CommitTopic,
    DeleteGroups,
    Heartbeat,
    JoinGroup,
    OffsetCommit,
    SyncAssignment,
    SyncGroup,
)
from groupspec.types.errors import Errors
from tests.scenarios.classic_group.targets import LAYERS, PROTOCOLS, Driver

G = "g"
TOPICS = (CommitTopic("orders", (CommitPartition(0, 7),)),)
TABLE = diagrams.CLASSIC_REQUESTS


def _in_state(layer: str, state: str) -> tuple[Driver, str, int]:
    """A driver whose group ``g`` is in ``state``: (driver, member A's id, generation)."""
    d = Driver(layer, ClassicConfig())
    if state == "Empty":
        d.send(OffsetCommit(G, topics=TOPICS))
        assert d.state(G) == "Empty"
        return d, "ghost", 0
    a, _ = d.new_member(G, "a")
    d.advance(ClassicConfig().initial_rebalance_delay_ms)
    assert d.state(G) == "CompletingRebalance", d.state(G)
    generation = d.group(G).generation_id
    if state != "CompletingRebalance":
        sync = d.send(SyncGroup(G, generation, a, None, "consumer", "range", (SyncAssignment(a, b"x"),)))
        assert d.error(sync) is Errors.NONE and d.state(G) == "Stable"
    if state == "PreparingRebalance":
        d.new_member(G, "b")
        assert d.state(G) == "PreparingRebalance", d.state(G)
    return d, a, generation


def _probe(d: Driver, probe: str, member: str, generation: int) -> Errors:
    if probe == "join_new":
        request = JoinGroup(G, client_id="c", protocols=PROTOCOLS, new_member_uuid="c-uuid")
    elif probe == "sync":
        request = SyncGroup(G, generation, member, None, "consumer", "range")
    elif probe == "heartbeat":
        request = Heartbeat(G, generation, member)
    elif probe == "commit_simple":
        request = OffsetCommit(G, topics=TOPICS)
    elif probe == "commit_member":
        request = OffsetCommit(G, generation, member, topics=TOPICS)
    elif probe == "commit_stale":
        request = OffsetCommit(G, generation + 1, member, topics=TOPICS)
    elif probe == "delete":
        index = d.send(DeleteGroups((G,)))
        return d.answer(index).results[0].error  # type: ignore[attr-defined, no-any-return]
    else:
        raise AssertionError(probe)
    index = d.send(request)
    answer = d.answer(index)
    topics = getattr(answer, "topics", None)
    if topics is not None:  # an OffsetCommit answers per partition
        return topics[0].partitions[0].error  # type: ignore[no-any-return]
    return answer.error  # type: ignore[attr-defined, no-any-return]


CELLS = [(row.request, row.probe, state, cell.error)
         for row in TABLE.rows if row.probe is not None
         for state, cell in zip(TABLE.states, row.cells, strict=True) if cell.error is not None]


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize(("request_name", "probe", "state", "error"), CELLS,
                         ids=[f"{p}-{s}" for _, p, s, _ in CELLS])
def test_each_error_cell_is_what_the_layer_answers(layer: str, request_name: str, probe: str, state: str,
                                                   error: str) -> None:
    d, member, generation = _in_state(layer, state)
    assert _probe(d, probe, member, generation) is Errors[error], (request_name, state)


def test_the_table_checks_most_of_its_cells() -> None:
    assert len(CELLS) >= 27  # of 40: the rest describe effects, not one error
    assert {state for _, _, state, _ in CELLS} == set(TABLE.states)

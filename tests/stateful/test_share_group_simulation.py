"""End to end: share consumers and the coordinator, with delays, losses and churn, converge.

Once members stop joining, leaving and crashing (and messages stop being lost), every live
member must end up STABLE at the group's epoch, holding exactly its target, with every
partition of the subscribed topics held by someone, within the session timeout plus a few
heartbeat intervals. The run is seeded and repeats exactly; the spec and the implementation as
the coordinator give the same run.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.simulation import Churn, SimConfig, Simulation
from groupspec.types import InputError
from groupspec.types.share_group import TopicMetadata

TOPICS = (
    TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 6),
    TopicMetadata("t2", "00000000-0000-4000-8000-000000000002", 3),
)
#: Session timeout (45 s), plus time for the persister, the epochs and a few 5 s heartbeats.
SETTLE_MS = 45_000 + 30_000


def _plan_config(plan: tuple[Churn, ...], seed: int, loss: float, **persister: float) -> SimConfig:
    return SimConfig(TOPICS, ("t1", "t2"), plan, seed=seed, loss=loss, **persister)  # type: ignore[arg-type]


def test_a_lossy_run_with_churn_settles_the_same_on_both_layers() -> None:
    plan = (
        *(Churn(i * 300, f"m{i}", "join") for i in range(5)),
        Churn(4_000, "m1", "leave"),
        Churn(5_000, "m2", "crash"),
        Churn(6_000, "m9", "join"),
    )
    runs = []
    for layer in ("spec", "impl"):
        sim = Simulation(_plan_config(plan, seed=3, loss=0.2), layer)
        sim.run_until(6_000 + SETTLE_MS)
        assert sim.settled() == []
        runs.append((sim.stats, sim.coordinator.view()))
    assert runs[0] == runs[1]
    stats, view = runs[1]
    assert stats.lost > 0 and stats.settled_at_ms is not None
    assert sorted(m.member_id for m in view.groups[0].members) == ["m0", "m3", "m4", "m9"]


@st.composite
def plans(draw: st.DrawFn) -> tuple[Churn, ...]:
    joins = draw(st.integers(1, 6))
    plan = [Churn(draw(st.integers(0, 20_000)), f"m{i}", "join") for i in range(joins)]
    for i in range(joins):
        action = draw(st.sampled_from(("stay", "stay", "leave", "crash")))
        if action != "stay":
            plan.append(Churn(plan[i].at_ms + draw(st.integers(1, 20_000)), f"m{i}", action))
    return tuple(sorted(plan, key=lambda c: c.at_ms))


@given(plans(), st.integers(0, 2**32 - 1), st.sampled_from((0.0, 0.05, 0.3)), st.sampled_from((0.0, 0.3)))
def test_every_run_settles_once_the_churn_stops(plan: tuple[Churn, ...], seed: int, loss: float,
                                                failure: float) -> None:
    sim = Simulation(_plan_config(plan, seed, loss, persister_min_delay_ms=1, persister_delay_ms=400,
                                  persister_failure=failure))
    quiet = max(c.at_ms for c in plan)
    sim.run_until(quiet + SETTLE_MS)
    assert sim.settled() == [], (sim.settled(), sim.stats)
    _share_state_is_initialized(sim)


def _share_state_is_initialized(sim: Simulation) -> None:
    """Once settled with members, the share coordinator holds a state for exactly the partitions
    the group coordinator lists as initialized, which are every partition of the subscribed topics
    (the group's initialize requests reached it), each at a state epoch no later than the group's."""
    if sim.settled() != [] or not any(m.alive and m.client.membership.subscription
                                      for m in sim.members.values()):
        return
    held = {(v.topic_id, v.partition): v.state_epoch
            for v in sim.share_coordinator.view().share_partitions if v.group_id == "g"}
    group = next(g for g in sim.coordinator.view().groups if g.group_id == "g")
    listed = {(t.topic_id, p) for t in group.initialized for p in t.partitions}
    wanted = {(t.topic_id, p) for t in TOPICS for p in range(t.partitions)}
    assert set(held) == listed == wanted
    assert all(0 < epoch <= group.group_epoch for epoch in held.values())


def test_answers_that_fail_or_come_back_out_of_order_still_settle_on_both_layers() -> None:
    plan = tuple(Churn(i * 10, f"m{i}", "join") for i in range(3))
    runs = []
    for layer in ("spec", "impl"):
        sim = Simulation(_plan_config(plan, seed=7, loss=0.0, persister_min_delay_ms=1,
                                      persister_delay_ms=2_000, persister_failure=0.5), layer)
        sim.run_until(SETTLE_MS)
        assert sim.settled() == []
        _share_state_is_initialized(sim)
        runs.append((sim.stats, sim.coordinator.view(), sim.share_coordinator.view()))
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("plan", "loss", "field"),
    [
        ((Churn(0, "m1", "join"), Churn(5, "m1", "join")), 0.0, "plan[1]"),
        ((Churn(0, "m1", "leave"),), 0.0, "plan[0]"),
        ((Churn(0, "m1", "dance"),), 0.0, "plan[0]"),
        ((Churn(-1, "m1", "join"),), 0.0, "plan[0]"),
        ((Churn(0, "m1", "join"),), 1.5, "loss"),
    ],
)
def test_a_plan_no_run_could_follow_is_refused(plan: tuple[Churn, ...], loss: float, field: str) -> None:
    with pytest.raises(InputError) as caught:
        Simulation(_plan_config(plan, seed=0, loss=loss))
    assert caught.value.field == field


@pytest.mark.parametrize(("persister", "field"), [
    ({"persister_failure": -0.1}, "persister_failure"),
    ({"persister_min_delay_ms": 30, "persister_delay_ms": 20}, "persister_min_delay_ms"),
    ({"persister_min_delay_ms": -1}, "persister_min_delay_ms"),
])
def test_a_persister_no_run_could_follow_is_refused(persister: dict[str, float], field: str) -> None:
    with pytest.raises(InputError) as caught:
        Simulation(_plan_config((Churn(0, "m1", "join"),), seed=0, loss=0.0, **persister))
    assert caught.value.field == field

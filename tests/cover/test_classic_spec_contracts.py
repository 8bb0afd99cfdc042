"""The classic group spec's own contracts refuse what they exist to refuse (issue 17, point 3).

``step`` checks ``invariants_hold`` before and after every event and ``_generations_kept``
across it. Every state a run reaches satisfies them, so no vector can tell a weakened contract
from the real one: these tests hand the checks states that break one rule each.
"""

from __future__ import annotations

from dataclasses import replace

import icontract
import pytest

from groupspec.spec import classic_group as spec
from groupspec.types.classic_group import (
    COMPLETING_REBALANCE,
    EMPTY,
    PREPARING_REBALANCE,
    STABLE,
    ClassicConfig,
    Protocol,
)

CONFIG = ClassicConfig()


def _member(member_id: str, instance_id: str | None = None, **changes: object) -> spec.Member:
    m = spec.Member(member_id, instance_id, "client", "/host", 45_000, 300_000, "consumer",
                    (Protocol("range"),))
    return replace(m, **changes)  # type: ignore[arg-type]


def _group(**changes: object) -> spec.Group:
    g = spec.Group("g", STABLE, EMPTY, 0, "consumer", "range", 1, "m1",
                   {"m1": _member("m1", "i1"), "m2": _member("m2")}, {"i1": "m1"})
    return replace(g, **changes)  # type: ignore[arg-type]


def _state(*groups: spec.Group, **changes: object) -> spec.State:
    s = spec.initial_state(CONFIG)
    return replace(s, groups={g.group_id: g for g in groups}, **changes)  # type: ignore[arg-type]


def test_the_base_state_holds() -> None:
    assert spec.invariants_hold(_state(_group()))
    parked = _group(state=PREPARING_REBALANCE, members={"m1": _member("m1", "i1", join_request=3),
                                                        "m2": _member("m2")})
    assert spec.invariants_hold(_state(parked, join_versions={3: 5}))


BROKEN = {
    "an Empty group with members": _state(_group(state=EMPTY)),
    "members without a leader": _state(_group(leader=None)),
    "a leader without members": _state(_group(members={}, static={}, state=EMPTY)),
    "a leader who is not a member": _state(_group(leader="m3")),
    "a negative generation": _state(_group(generation=-1)),
    "a JoinGroup parked outside PreparingRebalance": _state(
        _group(members={"m1": _member("m1", "i1", join_request=3), "m2": _member("m2")}),
        join_versions={3: 5}),
    "a SyncGroup parked outside CompletingRebalance": _state(
        _group(members={"m1": _member("m1", "i1", sync_request=3), "m2": _member("m2")})),
    "a JoinGroup parked in CompletingRebalance": _state(_group(state=COMPLETING_REBALANCE, members={
        "m1": _member("m1", "i1", join_request=3), "m2": _member("m2")}), join_versions={3: 5}),
    "a parked JoinGroup without its version": _state(_group(state=PREPARING_REBALANCE, members={
        "m1": _member("m1", "i1", join_request=3), "m2": _member("m2")})),
    "a static member the instance map does not name": _state(_group(static={})),
    "a static member's instance mapped to a later id": _state(_group(static={"i1": "m2"})),
    "a static member's instance mapped to an earlier id": _state(
        _group(members={"m1": _member("m1", "i1"), "m0": _member("m0")}, static={"i1": "m0"})),
    "an instance mapped to no member": _state(_group(static={"i1": "m1", "i2": "m9"})),
    "a request parked twice": _state(_group(state=COMPLETING_REBALANCE, members={
        "m1": _member("m1", "i1", sync_request=3), "m2": _member("m2", sync_request=3)})),
    "an overdue timer": _state(_group(), now=10**9),
    "a version kept for no parked JoinGroup": _state(_group(), join_versions={3: 5}),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_invariants_refuse(name: str) -> None:
    assert not spec.invariants_hold(BROKEN[name]), name


def test_generations_kept() -> None:
    before = _state(_group(generation=3))
    assert spec._generations_kept(before, _state(_group(generation=3)))
    assert spec._generations_kept(before, _state(_group(generation=4)))
    assert spec._generations_kept(before, _state())  # the group went away
    assert not spec._generations_kept(before, _state(_group(generation=2)))


@pytest.mark.parametrize("state", [STABLE, COMPLETING_REBALANCE])
def test_only_a_rebalancing_group_completes_its_join(state: str) -> None:
    g = _group(state=state)
    with pytest.raises(icontract.ViolationError):
        spec._complete_join(spec._Step(_state(g)), g)


def test_initial_state_defaults() -> None:
    """The clock starts at 0 unless given; the expiration job is armed from there."""
    s = spec.initial_state(CONFIG)
    assert s.now == 0
    assert s.timers[spec.EXPIRE_KEY].deadline == CONFIG.offsets_retention_check_interval_ms

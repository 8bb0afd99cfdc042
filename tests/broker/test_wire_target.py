"""The kafka:// conformance target against a real Kafka 4.2.1 node (marker ``broker``).

The classic vectors assume Kafka's own group settings (an initial rebalance delay of 3 s, a
minimum session timeout of 6 s), which the session's ``kafka_broker`` node lowers for speed; so
this module starts a node of its own with Kafka's values (or uses ``GROUPSPEC_WIRE_BROKER``, a
running node's host:port, whose settings the target then probes). The budget keeps the module
to a couple of minutes: vectors whose clock advances more than ``BUDGET_S`` answer unsupported.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf

pytestmark = pytest.mark.broker

BUDGET_S = 3.5
#: Kafka's defaults that the classic vectors' configuration states.
KAFKA_GROUP_DEFAULTS = {"group.initial.rebalance.delay.ms": "3000", "group.min.session.timeout.ms": "6000",
                        # the bounds of a share group's own settings, which SetGroupConfig vectors need
                        "group.share.min.session.timeout.ms": "45000",
                        "group.share.min.heartbeat.interval.ms": "5000"}
#: Vectors the live broker answers differently, each explained in docs/divergences.md.
KNOWN: dict[str, str] = {}
#: At least this many vectors pass within the budget (measured on Kafka 4.2.1 with BUDGET_S: 27
#: classic, 3 share_group, since the target realises transactions, OffsetDelete, DeleteGroups and
#: group configuration; docs/conformance.md). One below the classic count: a loaded machine may
#: push one run past max_lag_s, which answers unsupported, not failed.
FLOOR = {"classic_group": 26, "share_group": 3}


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    given = os.environ.get("GROUPSPEC_WIRE_BROKER")
    if given:
        yield given
        return
    from groupspec import broker

    missing = broker.tools_available()
    if missing is not None:
        pytest.skip(f"a real Kafka broker needs Java 17 and Maven: {missing}")
    home: Path = tmp_path_factory.mktemp("wire-target-broker")
    node = broker.start(home, overrides=KAFKA_GROUP_DEFAULTS, reset=True, detach=False)
    try:
        yield node.bootstrap
    finally:
        node.stop()


@pytest.mark.parametrize("machine", ["classic_group", "share_group"])
def test_vectors_pass_on_kafka_or_are_unsupported_with_a_reason(address: str, machine: str) -> None:
    root = vf.default_root()
    vectors = [v for v in vf.load(root) if v.machine == machine]
    target = targets.make_target(f"kafka://{address}?budget_s={BUDGET_S}", 15.0)
    report = runner.run(vectors, target, "groupspec", root=root)
    print(runner.table(report))
    print(runner.unsupported_text(report))
    failed = {o.id: o for o in report.failed}
    unexplained = {i: f"{o.reason} {list(o.diff)}" for i, o in failed.items() if i not in KNOWN}
    assert unexplained == {}
    assert len([o for o in report.outcomes if o.passed]) >= FLOOR[machine]
    assert all(o.reason for o in report.unsupported)


def test_the_sessions_fast_node_is_refused_by_its_measured_delay(request: pytest.FixtureRequest) -> None:
    """The session's node sets group.initial.rebalance.delay.ms=0 (groupspec.broker's test
    settings): a classic vector that assumes Kafka's 3000 ms is refused by the measured delay,
    not run into a failure; the one vector that assumes 0 steps its clock by 0 ms to fire that
    delay, which no broker can be made to wait for."""
    given = os.environ.get("GROUPSPEC_BROKER")
    address = given or request.getfixturevalue("kafka_broker").bootstrap
    root = vf.default_root()
    chosen = ("classic_group/run/heartbeat_answers", "classic_group/run/join_v4_member_id_required",
              "classic_group/run/book_three_consumers_one_assignment")
    vectors = [v for v in vf.load(root) if v.id in chosen]
    report = runner.run(vectors, targets.make_target(f"kafka://{address}?budget_s={BUDGET_S}", 15.0),
                        "groupspec", root=root)
    reasons = {o.id: o.reason for o in report.unsupported}
    assert set(reasons) == set(chosen), runner.failures_text(report)
    assert "the broker's measured" in reasons["classic_group/run/heartbeat_answers"]
    assert "delay is 3000 ms" in reasons["classic_group/run/join_v4_member_id_required"]
    assert "steps by 0 ms" in reasons["classic_group/run/book_three_consumers_one_assignment"]

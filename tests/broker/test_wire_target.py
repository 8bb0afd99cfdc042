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


#: share_partition vectors a Kafka 4.2.1 node with its default share settings realises (lock
#: 30 s, delivery limit 5): one member fetching and settling, two members, a session closed
#: with records held, RENEW, throttling near the delivery limit, empty fetches, malformed
#: acknowledgements.
SHARE_PARTITION_PASS = (
    "share_partition/run/batch_cuts_counted_from_the_last_cut",
    "share_partition/run/live_two_members_share_the_log",
    "share_partition/run/live_release_on_close_redelivers",
    "share_partition/run/live_renew_then_accept",
    "share_partition/run/throttling_near_the_delivery_limit",
    "share_partition/run/empty_log_or_no_records_wanted",
    "share_partition/run/malformed_acknowledgements_are_invalid_requests",
)
#: ... and ones it cannot, each with the reason it gives.
SHARE_PARTITION_UNSUPPORTED = {
    "share_partition/run/worked_example": "SetPersisterError:",
    "share_partition/run/initialize_from_persisted_state": "starts from a persisted state",
    "share_partition/run/split_keeps_the_lock_deadline": "per-vector budget",
    "share_partition/run/in_flight_limit_counts_every_cached_offset":
        "group.share.partition.max.record.locks=5, the broker has 2000",
}


def test_share_partition_vectors_on_a_live_node(request: pytest.FixtureRequest) -> None:
    """A handful of share_partition runs on the session's node (its share settings are Kafka's
    defaults): the realisable ones pass, the others name why they cannot be realised."""
    given = os.environ.get("GROUPSPEC_BROKER")
    address = given or request.getfixturevalue("kafka_broker").bootstrap
    root = vf.default_root()
    wanted = set(SHARE_PARTITION_PASS) | set(SHARE_PARTITION_UNSUPPORTED)
    vectors = [v for v in vf.load(root) if v.id in wanted]
    assert len(vectors) == len(wanted)
    report = runner.run(vectors, targets.make_target(f"kafka://{address}?budget_s={BUDGET_S}", 15.0),
                        "groupspec", root=root)
    passed = {o.id for o in report.outcomes if o.passed}
    assert passed == set(SHARE_PARTITION_PASS), runner.failures_text(report)
    reasons = {o.id: o.reason for o in report.unsupported}
    assert set(reasons) == set(SHARE_PARTITION_UNSUPPORTED)
    for vid, why in SHARE_PARTITION_UNSUPPORTED.items():
        assert why in reasons[vid], reasons[vid]

"""What only the implementation has: shards, hosting, logs on disk, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groupspec.cli import main
from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.impl.runtime.partitioning import partition_for
from groupspec.types import InputError
from groupspec.types.classic_group import (
    AdvanceClock,
    ClassicConfig,
    CommitPartition,
    CommitTopic,
    DeleteGroups,
    DescribeGroups,
    FetchTopic,
    Heartbeat,
    JoinGroup,
    JoinGroupResponse,
    ListGroups,
    OffsetCommit,
    OffsetDelete,
    OffsetFetch,
    Restart,
    SyncGroup,
)
from groupspec.types.errors import Errors
from tests.scenarios.classic_group.targets import PROTOCOLS

TOPICS = (CommitTopic("orders", (CommitPartition(0, 42),)),)


def stable_group(coordinator: ClassicCoordinator, group_id: str = "testgroup") -> str:
    """One member, Stable at generation 1; returns its member id."""
    first = coordinator.handle(JoinGroup(group_id, protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    member = first.answers[0].response.member_id  # type: ignore[attr-defined]
    coordinator.handle(JoinGroup(group_id, member_id=member, protocols=PROTOCOLS), 1)
    coordinator.handle(AdvanceClock(3_000), 2)
    coordinator.handle(SyncGroup(group_id, 1, member, protocol_type="consumer", protocol_name="range"), 3)
    return str(member)


def test_a_group_lives_on_its_partition() -> None:
    coordinator = ClassicCoordinator()
    stable_group(coordinator)
    assert coordinator.partition_for("testgroup") == 27  # seed 002
    assert coordinator.runtime.log(27).next_offset > 0
    assert all(coordinator.runtime.log(p).next_offset == 0 for p in range(50) if p != 27)


def test_an_unhosted_shard_answers_not_coordinator() -> None:
    coordinator = ClassicCoordinator()
    member = stable_group(coordinator)
    coordinator.runtime.unload(27)
    out = coordinator.handle(Heartbeat("testgroup", 1, member), 4)
    assert out.answers[0].response.error is Errors.NOT_COORDINATOR  # type: ignore[attr-defined]
    commit = coordinator.handle(OffsetCommit("testgroup", 1, member, topics=TOPICS), 5)
    assert commit.answers[0].response.topics[0].partitions[0].error is Errors.NOT_COORDINATOR  # type: ignore[attr-defined]
    fetch = coordinator.handle(OffsetFetch("testgroup"), 6).answers[0].response
    assert fetch.error is Errors.NOT_COORDINATOR  # type: ignore[attr-defined]
    described = coordinator.handle(DescribeGroups(("testgroup",)), 7).answers[0].response
    assert described.groups[0].error is Errors.NOT_COORDINATOR  # type: ignore[attr-defined]
    deleted = coordinator.handle(DeleteGroups(("testgroup",)), 8).answers[0].response
    assert deleted.results[0].error is Errors.NOT_COORDINATOR  # type: ignore[attr-defined]
    assert "testgroup" not in [g.group_id for g in coordinator.view().groups]
    # Loading again brings the group back from its log, its member's session timer re-armed.
    coordinator.runtime.begin_load(27)
    # A heartbeat to a loading shard is answered NONE (GroupCoordinatorService#heartbeat); a
    # commit gets COORDINATOR_LOAD_IN_PROGRESS, and a listing fails while any shard loads.
    loading = coordinator.handle(Heartbeat("testgroup", 1, member), 9).answers[0].response
    assert loading.error is Errors.NONE  # type: ignore[attr-defined]
    commit = coordinator.handle(OffsetCommit("testgroup", 1, member, topics=TOPICS), 9)
    assert commit.answers[0].response.topics[0].partitions[0].error is Errors.COORDINATOR_LOAD_IN_PROGRESS  # type: ignore[attr-defined]
    listed = coordinator.handle(ListGroups(), 9).answers[0].response
    assert (listed.error, listed.groups) == (Errors.COORDINATOR_LOAD_IN_PROGRESS, ())  # type: ignore[attr-defined]
    coordinator.runtime.load(27)
    group = coordinator.view().groups[0]
    assert (group.group_id, group.state, group.generation_id) == ("testgroup", "Stable", 1)
    assert group.timers == ((f"heartbeat-testgroup-{member}", 3_000 + 45_000),)
    ok = coordinator.handle(Heartbeat("testgroup", 1, member), 10).answers[0].response
    assert ok.error is Errors.NONE  # type: ignore[attr-defined]


def test_unloading_answers_parked_requests() -> None:
    coordinator = ClassicCoordinator()
    first = coordinator.handle(JoinGroup("testgroup", protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    member = first.answers[0].response.member_id  # type: ignore[attr-defined]
    parked = coordinator.handle(JoinGroup("testgroup", member_id=member, protocols=PROTOCOLS), 1)
    assert parked.answers == ()
    out = coordinator.handle(Restart(), 2)
    assert [(a.request, a.response) for a in out.answers] == [
        (1, JoinGroupResponse(Errors.NOT_COORDINATOR, member_id=member))]
    # Only the empty group record was written, so the group comes back Empty and memberless.
    assert [(g.state, g.members) for g in coordinator.view().groups] == [("Empty", ())]


def test_logs_on_disk_reload_and_decode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    coordinator = ClassicCoordinator(log_dir=tmp_path)
    member = stable_group(coordinator)
    coordinator.handle(OffsetCommit("testgroup", 1, member, topics=TOPICS), 4)
    before = coordinator.view()
    coordinator.runtime.close()
    again = ClassicCoordinator(log_dir=tmp_path, start_ms=before.now_ms)
    after = again.view()
    # What a record carries survives; parked state and timers are rebuilt by the load.
    assert [(g.group_id, g.state, g.generation_id, g.leader_id, g.offsets) for g in after.groups] == [
        (g.group_id, g.state, g.generation_id, g.leader_id, g.offsets) for g in before.groups]
    again.runtime.close()
    assert main(["decode", str(tmp_path / "__consumer_offsets-27")]) == 0
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # The new group's empty record, the leader's SyncGroup (generation 1), the commit.
    assert [d["type"] for d in docs] == ["GroupMetadata", "GroupMetadata", "OffsetCommit"]
    assert docs[1]["value"]["generation"] == 1
    assert docs[1]["consumerProtocol"][0]["subscription"]["topics"] == ["orders"]
    assert docs[2]["value"]["offset"] == 42


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(InputError, match="config"):
        ClassicCoordinator({"max_size": 3})  # type: ignore[arg-type]
    with pytest.raises(InputError, match="partitions"):
        ClassicCoordinator(ClassicConfig(offsets_topic_partitions=0))
    coordinator = ClassicCoordinator()
    with pytest.raises(InputError, match="event"):
        coordinator.handle("JoinGroup", 0)  # type: ignore[arg-type]
    assert coordinator.view().groups == ()  # nothing was lost or half-done


def test_thousands_of_groups_spread_over_shards() -> None:
    coordinator = ClassicCoordinator(ClassicConfig(initial_rebalance_delay_ms=0))
    for n in range(2_000):
        coordinator.handle(OffsetCommit(f"simple-{n}", topics=TOPICS), n)
    used = {partition_for(f"simple-{n}") for n in range(2_000)}
    assert len(used) == 50
    assert len(coordinator.view().groups) == 2_000


def test_by_default_the_clock_starts_at_zero_and_writes_are_not_synced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The constructor's defaults, which no vector sees (the driver passes every argument)."""
    import os

    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    coordinator = ClassicCoordinator(log_dir=tmp_path / "plain")
    out = coordinator.handle(JoinGroup("g", protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    assert out.records[0].value.current_state_timestamp == 0  # type: ignore[union-attr]
    assert synced == []
    coordinator.runtime.close()
    syncing = ClassicCoordinator(log_dir=tmp_path / "synced", fsync=True)
    syncing.handle(JoinGroup("g", protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    assert synced
    syncing.runtime.close()


def test_a_group_built_from_python_literals_is_a_consumer_group() -> None:
    """Events built in Python carry the very ``"consumer"`` string object the implementation
    compares with; the vectors' decoded strings never do, so only a library user sees whether a
    protocol type is compared by value: a Stable consumer group knows its subscription (an
    unsubscribed topic's offset can be deleted, and expires counted from its commit)."""
    coordinator = ClassicCoordinator(ClassicConfig(offsets_retention_ms=10_000,
                                                   offsets_retention_check_interval_ms=20_000))
    member = stable_group(coordinator)
    audit = (CommitTopic("audit", (CommitPartition(0, 1), CommitPartition(1, 2))),)
    commit = coordinator.handle(OffsetCommit("testgroup", 1, member, topics=audit), 4)
    assert [p.error for p in commit.answers[0].response.topics[0].partitions] == [Errors.NONE] * 2  # type: ignore[attr-defined]
    deleted = coordinator.handle(OffsetDelete("testgroup", (FetchTopic("audit", (0,)),)), 5)
    assert deleted.answers[0].response.topics[0].partitions[0].error is Errors.NONE  # type: ignore[attr-defined]
    assert len(deleted.records) == 1
    coordinator.handle(Heartbeat("testgroup", 1, member), 6)
    expired = coordinator.handle(AdvanceClock(20_000), 7)
    assert [(r.key.topic, r.key.partition, r.value) for r in expired.records] == [("audit", 1, None)]  # type: ignore[union-attr]


def test_the_library_defaults_start_the_clock_at_zero_and_do_not_sync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a library user gets without arguments (the vectors always give start_ms): the clock
    starts at 0, so the first record's state timestamp is 0; writes to a log directory are not
    forced to the disk unless ``fsync=True`` asks for it."""
    import os

    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    coordinator = ClassicCoordinator(log_dir=tmp_path)
    out = coordinator.handle(JoinGroup("g", protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    assert [e.value.current_state_timestamp for e in out.records] == [0]  # type: ignore[union-attr]
    assert synced == []
    ClassicCoordinator(log_dir=tmp_path / "synced", fsync=True).handle(
        JoinGroup("g", protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    assert synced


def test_a_replaced_parked_join_leaves_no_version_behind() -> None:
    """A JoinGroup replaced while parked is never answered; its version (kept to shape the
    answer) must go when it is dropped, or every rejoin of a long-lived coordinator leaks one."""
    coordinator = ClassicCoordinator()
    first = coordinator.handle(JoinGroup("testgroup", protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    member = first.answers[0].response.member_id  # type: ignore[attr-defined]
    assert coordinator.handle(JoinGroup("testgroup", member_id=member, protocols=PROTOCOLS), 1).answers == ()
    assert coordinator.handle(JoinGroup("testgroup", member_id=member, protocols=PROTOCOLS), 2).answers == ()
    assert set(coordinator._join_versions) == {2}
    done = coordinator.handle(AdvanceClock(3_000), 3)
    assert [a.request for a in done.answers] == [2]
    assert coordinator._join_versions == {}

"""The share group's in-memory objects (impl/share_group/group.py) and the coordinator's
defaults, as a library user sees them: what the vectors cannot reach because every record batch
overwrites it before anything is answered."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from groupspec.impl.share_group import ShareGroupCoordinator
from groupspec.impl.share_group.group import ShareGroup, ShareGroupMember
from groupspec.types.errors import Errors
from groupspec.types.share_group import ShareGroupConfig, ShareGroupHeartbeat, TopicMetadata


def test_a_member_is_immutable_with_kafkas_defaults() -> None:
    member = ShareGroupMember("m1")
    assert (member.member_epoch, member.previous_member_epoch, member.rack_id) == (0, -1, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        member.member_epoch = 3  # type: ignore[misc]
    assert hash(member) == hash(ShareGroupMember("m1"))


def test_a_new_group_starts_at_zero_with_its_metadata_due() -> None:
    group = ShareGroup("g")
    assert (group.group_epoch, group.metadata_hash, group.target_assignment_epoch) == (0, 0, 0)
    assert (group.metadata_refresh_deadline_ms, group.metadata_refresh_deadline_epoch) == (0, 0)
    assert group.has_metadata_expired(0)


def test_metadata_expiry_by_time_or_by_an_older_epoch() -> None:
    group = ShareGroup("g", group_epoch=5)
    group.set_metadata_refresh_deadline(100, 5)
    assert not group.has_metadata_expired(99)
    assert group.has_metadata_expired(100)
    assert group.has_metadata_expired(101)
    group.group_epoch = 6
    assert not group.has_metadata_expired(99)
    group.group_epoch = 4  # the write that set the deadline's epoch was lost
    assert group.has_metadata_expired(99)
    group.request_metadata_refresh()
    assert (group.metadata_refresh_deadline_ms, group.metadata_refresh_deadline_epoch) == (0, 0)


def test_the_coordinator_clock_starts_at_zero_by_default() -> None:
    assert ShareGroupCoordinator().view().now_ms == 0
    assert ShareGroupCoordinator(start_ms=7).view().now_ms == 7


def test_a_group_above_a_lowered_max_size_takes_no_new_member(tmp_path: Path) -> None:
    """group.share.max.size lowered across a restart: the loaded group is above it, so a new
    member is refused (a count at or above the limit, not only equal to it)."""
    t1 = TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 2)
    first = ShareGroupCoordinator(ShareGroupConfig(max_size=3), (t1,), log_dir=tmp_path)
    for i, member in enumerate(("m1", "m2", "m3")):
        first.handle(ShareGroupHeartbeat("g", member, 0, subscribed_topic_names=("t1",)), i)
    second = ShareGroupCoordinator(ShareGroupConfig(max_size=2), (t1,), log_dir=tmp_path)
    assert len(second.view().groups[0].members) == 3
    out = second.handle(ShareGroupHeartbeat("g", "m4", 0, subscribed_topic_names=("t1",)), 3)
    assert out.answers[0].response.error is Errors.GROUP_MAX_SIZE_REACHED
    out = second.handle(ShareGroupHeartbeat("g", "m1", 1), 4)
    assert out.answers[0].response.error is Errors.NONE


def test_epochs_above_the_small_int_cache_compare_by_value(tmp_path: Path) -> None:
    """Epochs past 256 (CPython caches smaller ints, so equal larger ones may be distinct
    objects) are compared by value: after a load that decodes them from the log, a heartbeat with
    the member's epoch is neither fenced nor given a new target. A vector would need 257 epochs."""
    t1 = TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 2)
    t2 = TopicMetadata("t2", "00000000-0000-4000-8000-000000000002", 2)
    first = ShareGroupCoordinator(topics=(t1, t2), log_dir=tmp_path)
    epoch = 0
    for i in range(260):
        topics = ("t1", "t2") if i % 2 else ("t1",)
        out = first.handle(ShareGroupHeartbeat("g", "m1", epoch, subscribed_topic_names=topics), i)
        epoch = out.answers[0].response.member_epoch
    assert epoch == 260
    second = ShareGroupCoordinator(topics=(t1, t2), log_dir=tmp_path)
    out = second.handle(ShareGroupHeartbeat("g", "m1", int(str(epoch))), 260)
    assert out.answers[0].response.error is Errors.NONE
    assert out.answers[0].response.member_epoch == 260
    assert out.records == ()

"""Conformance cases of the share group coordinator (machine ``share_group``, handler ``run``).

Each case is a short scenario: a broker config, a metadata image, and events (heartbeats,
persister answers, metadata changes, clock advances, admin requests, failovers). The generator
runs the spec and writes every answer, record, initialize request and the final view; ``shows``
holds a few claims per case that tests/cover/test_conformance_share_group.py checks against the
spec's output. Sources are sections of the share-group coordinator fact sheet
(share_group_coordinator.md) and upstream tests it names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from groupspec.types.errors import Errors
from groupspec.types.share_group import (
    AdvanceClock,
    DeleteGroups,
    PersisterAnswer,
    Restart,
    SetGroupConfig,
    ShareGroupConfig,
    ShareGroupEvent,
    ShareGroupHeartbeat,
    TopicMetadata,
    UpdateMetadata,
)

MACHINE = "share_group"
HANDLER = "run"
FACT_SHEET = "share_group_coordinator.md"
T1 = TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 2)
T2 = TopicMetadata("t2", "00000000-0000-4000-8000-000000000002", 2)


@dataclass(frozen=True)
class Answered:
    """The request at ``event`` is answered with ``error`` (and, for a heartbeat, ``epoch``)."""

    event: int
    error: Errors
    epoch: int | None = None


@dataclass(frozen=True)
class Ends:
    """After the last event, ``group`` is in ``state`` at ``epoch`` (state None: gone)."""

    group: str
    state: str | None
    epoch: int = 0


Claim = Answered | Ends


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    source: Mapping[str, str]
    events: tuple[ShareGroupEvent, ...]
    topics: tuple[TopicMetadata, ...]
    config: ShareGroupConfig = ShareGroupConfig()  # noqa: RUF009 (frozen, immutable)
    shows: tuple[Claim, ...] = ()


@dataclass
class Script:
    topics: tuple[TopicMetadata, ...] = (T1,)
    config: ShareGroupConfig = field(default_factory=ShareGroupConfig)
    events: list[ShareGroupEvent] = field(default_factory=list)
    shows: list[Claim] = field(default_factory=list)
    now: int = 0

    def add(self, event: ShareGroupEvent) -> int:
        self.events.append(event)
        if isinstance(event, AdvanceClock):
            self.now = event.to_ms
        return len(self.events) - 1

    def hb(
        self,
        member: str,
        epoch: int,
        topics: tuple[str, ...] | None = None,
        *,
        group: str = "g",
        error: Errors | None = None,
        expect_epoch: int | None = None,
    ) -> int:
        index = self.add(ShareGroupHeartbeat(group, member, epoch, subscribed_topic_names=topics))
        if error is not None:
            self.shows.append(Answered(index, error, expect_epoch))
        return index

    def answer(self, request: int, error: Errors = Errors.NONE) -> int:
        return self.add(PersisterAnswer(request, error))

    def advance(self, by_ms: int) -> int:
        return self.add(AdvanceClock(self.now + by_ms))

    def ends(self, group: str, state: str | None, epoch: int = 0) -> None:
        self.shows.append(Ends(group, state, epoch))

    def case(self, name: str, description: str, source: Mapping[str, str]) -> Case:
        return Case(
            name, description, source, tuple(self.events), self.topics, self.config, tuple(self.shows)
        )


def _sheet(section: str, **extra: str) -> dict[str, str]:
    return {"kind": "fact-sheet", "file": FACT_SHEET, "section": section, **extra}


def _first_heartbeat() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=1)
    s.ends("g", "Stable", 1)
    return s.case(
        "first_heartbeat_gets_an_empty_assignment",
        "A new group's first heartbeat: epoch 1, an empty assignment (nothing is initialized), "
        "six records ending with the share-state bookkeeping, and an InitializeShareGroupState "
        "for every subscribed partition with state epoch 1.",
        _sheet("§1.3, §2.2, §3.2, §8 item 1"),
    )


def _partitions_arrive() -> Case:
    s = Script(topics=(T1, T2))
    join = s.hb("m1", 0, ("t1", "t2"))
    s.answer(join)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=2)
    s.ends("g", "Stable", 2)
    return s.case(
        "partitions_arrive_one_epoch_after_initialization",
        "Once the persister answers, the next heartbeat finds initialized partitions nobody "
        "holds, bumps the epoch and assigns them; the heartbeat after that writes nothing.",
        _sheet("§3.3, §3.4"),
    )


def _second_member() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.answer(join)
    s.hb("m1", 1)
    s.hb("m2", 0, ("t1",), error=Errors.NONE, expect_epoch=3)
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    s.ends("g", "Stable", 3)
    return s.case(
        "second_member_shares_the_partitions",
        "A second member joins: a new target for both (the first keeps partition 0, the "
        "second gets 1); each takes it on its next heartbeat.",
        _sheet("§1.3 steps 5-6, §1.5"),
    )


def _retry() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.answer(join, Errors.UNKNOWN_SERVER_ERROR)
    s.advance(10_000)
    s.hb("m1", 1)
    s.advance(10_000)
    s.hb("m1", 1)
    s.advance(20_000)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=1)
    return s.case(
        "failed_initialization_is_retried",
        "A failed initialization leaves nothing initializing; the next heartbeat asks again, "
        "and while that request is younger than the retry interval nobody asks again.",
        _sheet("§3.2, §3.5"),
    )


def _validation() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",))
    for request, error in (
        (ShareGroupHeartbeat("g", " ", 0, subscribed_topic_names=("t1",)), Errors.INVALID_REQUEST),
        (ShareGroupHeartbeat("g", "m2", 0), Errors.INVALID_REQUEST),
        (ShareGroupHeartbeat("g", "m2", -2), Errors.INVALID_REQUEST),
        (ShareGroupHeartbeat("other", "m2", 1), Errors.GROUP_ID_NOT_FOUND),
        (ShareGroupHeartbeat("other", "m2", -1), Errors.GROUP_ID_NOT_FOUND),
        (ShareGroupHeartbeat("g", "m2", 1), Errors.UNKNOWN_MEMBER_ID),
        (ShareGroupHeartbeat("g", "m2", -1), Errors.UNKNOWN_MEMBER_ID),
        (ShareGroupHeartbeat("g", "m1", 2), Errors.FENCED_MEMBER_EPOCH),
    ):
        s.shows.append(Answered(s.add(request), error))
    s.ends("g", "Stable", 1)
    return s.case(
        "heartbeat_validation_errors",
        "Each invalid heartbeat gets its error and changes nothing.",
        _sheet("§1.2"),
    )


def _epochs() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",))
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=1)
    join = 0
    s.answer(join)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=2)
    return s.case(
        "lost_responses_and_stale_epochs",
        "A repeated join right after joining is accepted, so is a heartbeat with the previous "
        "epoch after a lost response, and so is a join from a member two epochs on: in Kafka "
        "4.2.1 epoch 0 is a rejoin whatever the member's epochs (KAFKA-19233); it keeps epoch 2 "
        "and gets its assignment again.",
        {**_sheet("§1.2 rows 16-17, §1.4"), **_KAFKA_19233},
    )


#: Where Kafka 4.2.1 accepts epoch 0 from a known member (the fact sheet's §1.2 note and §8 item 11
#: describe the earlier trunk, which fenced it unless the previous epoch was 0).
_KAFKA_19233 = {
    "upstream": "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java"
                "#throwIfShareGroupMemberEpochIsInvalid (4.2.1)",
    "change": "KAFKA-19233, apache/kafka#21309",
}


def _fenced_member_rejoins() -> Case:
    s = Script(topics=(T1, T2))
    s.answer(s.hb("m1", 0, ("t1",)))
    s.hb("m2", 0, ("t1",))
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)  # the client never sees this answer
    s.hb("m3", 0, ("t1",))
    s.advance(1_000)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=3)  # its previous epoch: accepted, now at 3
    s.hb("m1", 1, error=Errors.FENCED_MEMBER_EPOCH)  # two behind: fenced
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=3)
    s.hb("m1", 0, ("t1", "t2"), error=Errors.NONE, expect_epoch=4)
    s.advance(44_500)
    s.ends("g", "Stable", 6)
    return s.case(
        "a_fenced_member_rejoins_under_its_id",
        "A member fenced for missing two answers rejoins at once with epoch 0 and the same id "
        "(Kafka 4.2.1, KAFKA-19233): with the same subscription it is answered at its epoch 3 "
        "with its assignment and nothing is written; with a wider one its member record and a "
        "new group epoch follow, as for any heartbeat. Its session restarted at the rejoin: the "
        "other two expire first.",
        {**_sheet("§1.2 rows 16-17, §1.7"), **_KAFKA_19233},
    )


def _max_size() -> Case:
    s = Script(config=ShareGroupConfig(max_size=1))
    s.hb("m1", 0, ("t1",))
    s.hb("m2", 0, ("t1",), error=Errors.GROUP_MAX_SIZE_REACHED)
    s.hb("m2", 5, error=Errors.GROUP_MAX_SIZE_REACHED)
    return s.case(
        "group_size_limit_before_member_lookup",
        "A full group refuses a new member, and an unknown member with an epoch gets "
        "GROUP_MAX_SIZE_REACHED rather than UNKNOWN_MEMBER_ID.",
        _sheet("§1.2 row 14, §8 item 11"),
    )


def _leave() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",))
    s.hb("m2", 0, ("t1",))
    s.hb("m1", -1, error=Errors.NONE, expect_epoch=-1)
    s.hb("m2", -1, error=Errors.NONE, expect_epoch=-1)
    s.ends("g", "Empty", 4)
    return s.case(
        "leaving_bumps_the_epoch",
        "A leave writes three tombstones and a new group epoch, without a new target; the "
        "last leave leaves an Empty group.",
        _sheet("§1.6, §2.2", test="testShareGroupLeavingMemberBumpsGroupEpoch"),
    )


def _expiry() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",))
    s.advance(30_000)
    s.hb("m2", 0, ("t1",))
    s.advance(15_000)
    s.add(Restart())
    s.advance(45_000)
    s.ends("g", "Empty", 4)
    return s.case(
        "session_expiry_and_failover",
        "m1's session expires at 45 s (the same four records as a leave); a failover gives m2 "
        "a fresh full session, which expires 45 s later.",
        _sheet("§1.7", test="testSessionTimeoutExpirationForShareMember"),
    )


def _configs() -> Case:
    s = Script()
    s.shows.append(Answered(s.add(SetGroupConfig("g", 50_000, 8_000)), Errors.NONE))
    s.shows.append(Answered(s.add(SetGroupConfig("g", 40_000, None)), Errors.INVALID_CONFIG))
    s.shows.append(Answered(s.add(SetGroupConfig("g", None, 16_000)), Errors.INVALID_CONFIG))
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=1)
    s.advance(49_999)
    s.ends("g", "Stable", 1)
    return s.case(
        "group_configs_with_bounds",
        "Per-group session timeout and heartbeat interval, within the broker's bounds; the "
        "interval is returned in the heartbeat and the session lasts 50 s.",
        _sheet("§5"),
    )


def _grow() -> Case:
    s = Script(topics=(T1, T2))
    join = s.hb("m1", 0, ("t1", "t2"))
    s.answer(join)
    s.hb("m1", 1)
    s.add(UpdateMetadata((replace(T1, partitions=4), T2)))
    grown = s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    s.answer(grown)
    s.hb("m1", 3, error=Errors.NONE, expect_epoch=4)
    s.ends("g", "Stable", 4)
    return s.case(
        "added_partitions_take_two_epochs",
        "Partitions added to a subscribed topic change the metadata hash (one epoch) and start "
        "initializing; once initialized they are assigned (a second epoch).",
        _sheet("§1.9, §3.5", test="testShareGroupHeartbeatInitializeOnPartitionUpdate"),
    )


def _deleted_topic() -> Case:
    s = Script(topics=(T1, T2))
    join = s.hb("m1", 0, ("t1", "t2"))
    s.answer(join)
    s.add(UpdateMetadata((T1,)))
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    return s.case(
        "deleted_topic_leaves_the_bookkeeping",
        "A deleted topic is removed from the group's share-state bookkeeping at once; the next "
        "heartbeat assigns what is left.",
        _sheet("§3.5"),
    )


def _delete_groups() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.answer(join)
    s.shows.append(Answered(s.add(DeleteGroups(("g",))), Errors.NON_EMPTY_GROUP))
    s.hb("m1", -1)
    s.shows.append(Answered(s.add(DeleteGroups(("g",))), Errors.NONE))
    s.add(Restart())
    s.ends("g", None)
    return s.case(
        "delete_an_empty_group",
        "DeleteGroups refuses a group with members; an empty one moves its topics to deleting, "
        "then writes its tombstones, and stays gone after a failover.",
        _sheet("§1.8", test="testShareGroupDeleteTombstones"),
    )


def _restamp() -> Case:
    s = Script(topics=(T1, T2))
    s.hb("m1", 0, ("t1",))
    s.advance(20_000)
    second = s.hb("m1", 1, ("t1", "t2"))
    s.answer(second)
    s.advance(15_000)
    s.hb("m1", 2)
    s.advance(15_000)
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    return s.case(
        "state_writes_restart_retry_clocks",
        "Replaying a ShareGroupStatePartitionMetadata record stamps every initializing topic with "
        "the current time, and Kafka replays what it writes: t1 is asked for again 30 s after "
        "the last such write, not 30 s after its own request.",
        _sheet("§2.3, §3.2"),
    )


def _retry_after_the_interval() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",))
    s.advance(35_000)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=1)
    return s.case(
        "unanswered_initialization_is_asked_again",
        "An InitializeShareGroupState request nobody answered is asked again by the first "
        "heartbeat after the retry interval (30 s) has passed, here at 35 s.",
        _sheet("§3.2, §3.5"),
    )


def _blank_rack() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=1)
    s.shows.append(Answered(s.add(ShareGroupHeartbeat("g", "m1", 1, rack_id="  ")), Errors.INVALID_REQUEST))
    s.ends("g", "Stable", 1)
    return s.case(
        "blank_rack_is_refused",
        "A rack id that is present but blank is an invalid request; the member is not touched.",
        _sheet("§1.2"),
    )


def _config_bounds_are_inclusive() -> Case:
    s = Script()
    s.shows.append(Answered(s.add(SetGroupConfig("g", 60_000, 15_000)), Errors.NONE))
    s.shows.append(Answered(s.add(SetGroupConfig("g", 50_000, None)), Errors.NONE))
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=1)
    s.advance(49_999)
    s.ends("g", "Stable", 1)
    return s.case(
        "group_config_bounds_are_inclusive",
        "The broker's maximum session timeout and heartbeat interval are allowed values; a session "
        "timeout set alone keeps the default interval and applies (the member outlives 45 s).",
        _sheet("§5"),
    )


def _grown_topic_noticed_later() -> Case:
    s = Script(topics=(T1, T2))
    join = s.hb("m1", 0, ("t1",))
    s.answer(join)
    s.hb("m1", 1)
    s.add(UpdateMetadata((replace(T1, partitions=4), T2)))
    s.advance(10_000)
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    s.ends("g", "Stable", 3)
    return s.case(
        "a_grown_topic_is_noticed_by_a_later_heartbeat",
        "A metadata change to the only topic the group subscribes to (t2, unchanged, is not "
        "subscribed) asks for a refresh that waits for the next heartbeat, here 10 s later: the "
        "new hash (lower than the old one) bumps the epoch.",
        _sheet("§1.9, §3.5"),
    )


def _failover_rechecks_hash() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.answer(join)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.add(Restart())
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=2)
    s.add(UpdateMetadata((replace(T1, partitions=4),)))
    s.add(Restart())
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    s.ends("g", "Stable", 3)
    return s.case(
        "a_failover_rechecks_the_metadata_hash",
        "After a load the first heartbeat recomputes the metadata hash: unchanged, it writes "
        "nothing; changed before the failover (and not yet seen), it bumps the epoch even at the "
        "same instant.",
        _sheet("§1.7, §1.9"),
    )


def _between_epochs() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",))
    s.hb("m2", 0, ("t1",))
    s.hb("m3", 0, ("t1",))
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=3)
    s.hb("m1", 2, error=Errors.FENCED_MEMBER_EPOCH)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=3)
    return s.case(
        "an_epoch_between_previous_and_current_is_fenced",
        "A member that went from epoch 1 to 3 in one answer accepts 3 and its previous 1, but "
        "an epoch in between (2), which it never had, is fenced.",
        _sheet("§1.2 rows 16-17, §1.4"),
    )


T3 = TopicMetadata("t3", "00000000-0000-4000-8000-000000000003", 3)


def _own_target() -> Case:
    s = Script(topics=(T3,))
    join = s.hb("b", 0, ("t3",))
    s.hb("a", 0, ("t3",))
    s.hb("c", 0, ("t3",))
    s.answer(join)
    s.hb("b", 1, error=Errors.NONE, expect_epoch=4)
    s.hb("a", 2, error=Errors.NONE, expect_epoch=4)
    s.hb("c", 3, error=Errors.NONE, expect_epoch=4)
    s.ends("g", "Stable", 4)
    return s.case(
        "the_heartbeating_member_takes_its_own_target",
        "A heartbeat that computes a new target for the whole group (here b's, the first to "
        "join, after the initialization landed) answers with b's own share of it, whatever the "
        "other members' ids; the others take theirs on their next heartbeat.",
        _sheet("§1.3 steps 5-7, §1.5"),
    )


def _rack_kept() -> Case:
    s = Script()
    first = s.add(ShareGroupHeartbeat("g", "m1", 0, rack_id="rack-a", subscribed_topic_names=("t1",)))
    s.shows.append(Answered(first, Errors.NONE, 1))
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=1)
    s.add(ShareGroupHeartbeat("g", "m1", 1, rack_id="rack-b"))
    return s.case(
        "rack_is_kept_until_sent_again",
        "A member's rack is recorded on join, kept by a heartbeat that does not send one, and "
        "replaced by one that sends another.",
        _sheet("§1.3 step 4"),
    )


def _narrower_subscription() -> Case:
    s = Script(topics=(T1, T2))
    s.hb("m1", 0, ("t1", "t2"))
    s.hb("m1", 1, ("t1",), error=Errors.NONE, expect_epoch=2)
    s.hb("m1", 2, ("t1", "t2"), error=Errors.NONE, expect_epoch=3)
    s.ends("g", "Stable", 3)
    return s.case(
        "a_narrower_subscription_bumps_the_epoch",
        "Dropping a topic from the subscription is a subscription change like adding one: the "
        "group epoch rises each time.",
        _sheet("§1.3 step 5"),
    )


def _unknown_topics() -> Case:
    s = Script()
    s.hb("m1", 0, ("t9",), error=Errors.NONE, expect_epoch=1)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=1)
    s.hb("m1", 0, ("t0", "t1"), group="h", error=Errors.NONE, expect_epoch=1)
    s.ends("g", "Stable", 1)
    s.ends("h", "Stable", 1)
    return s.case(
        "topics_missing_from_the_metadata_are_skipped",
        "A subscribed topic the metadata image does not have is skipped: a group that names no "
        "known topic writes no share-state bookkeeping and asks for nothing, and keeps "
        "heartbeating; one that also names a known topic (t1, after the unknown t0) asks for "
        "that topic's partitions.",
        _sheet("§3.2"),
    )


def _refused_initialization() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.answer(join, Errors.UNKNOWN_TOPIC_OR_PARTITION)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=1)
    s.ends("g", "Stable", 1)
    return s.case(
        "a_refused_initialization_assigns_nothing",
        "The persister refusing the request with any error (here UNKNOWN_TOPIC_OR_PARTITION) "
        "initializes nothing: the partitions leave initializing and the next heartbeat assigns "
        "nothing.",
        _sheet("§3.5"),
    )


def _config_edges() -> Case:
    s = Script()
    for request, error in (
        (SetGroupConfig("g", 45_000, 5_000), Errors.NONE),
        (SetGroupConfig("g", 60_001, None), Errors.INVALID_CONFIG),
        (SetGroupConfig("g", None, 4_999), Errors.INVALID_CONFIG),
        (SetGroupConfig("g", None, 8_000), Errors.NONE),
    ):
        s.shows.append(Answered(s.add(request), error))
    s.hb("m1", 0, ("t1",), error=Errors.NONE, expect_epoch=1)
    return s.case(
        "group_config_edges",
        "The broker's minimum session timeout and heartbeat interval are allowed; one above the "
        "maximum session or below the minimum interval is refused; an interval set alone "
        "applies (the heartbeat answers 8000).",
        _sheet("§5"),
    )


def _session_above_interval() -> Case:
    s = Script(config=ShareGroupConfig(min_session_timeout_ms=10_000, max_heartbeat_interval_ms=20_000))
    for request, error in (
        (SetGroupConfig("g", 15_000, 15_000), Errors.INVALID_CONFIG),
        (SetGroupConfig("g", 12_000, 15_000), Errors.INVALID_CONFIG),
        (SetGroupConfig("g", 15_001, 15_000), Errors.NONE),
    ):
        s.shows.append(Answered(s.add(request), error))
    return s.case(
        "group_session_must_exceed_interval",
        "With bounds that overlap, a session timeout equal to the heartbeat interval, or below "
        "it, is refused; one above it is allowed.",
        _sheet("§5"),
    )


SOLO = TopicMetadata("solo", "00000000-0000-4000-8000-000000000004", 1)


def _shared_partition() -> Case:
    s = Script(topics=(SOLO, T1))
    join = s.hb("m1", 0, ("solo",))
    s.hb("m2", 0, ("solo",))
    s.answer(join)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=3)
    s.hb("m2", 2, error=Errors.NONE, expect_epoch=3)
    s.hb("m1", 3, ("t1",), error=Errors.NONE, expect_epoch=4)
    s.hb("m2", 3, error=Errors.NONE, expect_epoch=4)
    s.hb("m2", 4, error=Errors.NONE, expect_epoch=4)
    s.ends("g", "Stable", 4)
    return s.case(
        "a_partition_one_member_drops_stays_assigned",
        "Two members share a one-partition topic; when one moves to another topic the other "
        "still holds the partition, so nothing initialized is waiting and the epoch stays.",
        _sheet("§3.4, §1.5"),
    )


def _topic_back_under_its_id() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.answer(join)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.add(UpdateMetadata(()))
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    s.add(UpdateMetadata((T1,)))
    back = s.hb("m1", 3, error=Errors.NONE, expect_epoch=4)
    s.answer(back)
    s.hb("m1", 4, error=Errors.NONE, expect_epoch=5)
    s.ends("g", "Stable", 5)
    return s.case(
        "a_topic_published_again_is_assigned_again",
        "A subscribed topic leaves the image (its partitions leave the target) and is published "
        "again under the same id: it is initialized anew and, once the persister answers, "
        "assigned again, one epoch later.",
        _sheet("§3.4, §3.5"),
    )


def _unknown_member_leaves_a_full_group() -> Case:
    s = Script(config=ShareGroupConfig(max_size=1))
    s.hb("m1", 0, ("t1",))
    s.hb("m2", -1, error=Errors.UNKNOWN_MEMBER_ID)
    s.ends("g", "Stable", 1)
    return s.case(
        "a_full_group_answers_an_unknown_leave_with_unknown_member",
        "The size limit guards only the regular path: an unknown member leaving a full group "
        "gets UNKNOWN_MEMBER_ID, not GROUP_MAX_SIZE_REACHED, and nothing changes.",
        _sheet("§1.2 rows 12 and 14"),
    )


def _expiries_in_arming_order() -> Case:
    s = Script()
    s.hb("m2", 0, ("t1",))
    s.hb("m1", 0, ("t1",))
    s.advance(50_000)
    s.ends("g", "Empty", 4)
    return s.case(
        "sessions_due_together_expire_in_arming_order",
        "m2 and m1 join at the same instant, so their sessions end at 45 s together; a clock "
        "that jumps past that expires both, m2 (armed first) before m1. Kafka fires timers due "
        "in the same millisecond in no defined order; groupspec fires them in scheduling order "
        "(docs/divergences.md, timer_tie_order).",
        _sheet("§1.7"),
    )


def _failover_rearms_in_join_order() -> Case:
    s = Script()
    s.hb("m1", 0, ("t1",))
    s.hb("m2", 0, ("t1",))
    s.add(Restart())
    s.advance(50_000)
    s.ends("g", "Empty", 4)
    return s.case(
        "sessions_a_failover_rearms_expire_in_join_order",
        "A failover re-arms every member's session at once, in groupspec in join order, so m1 "
        "expires before m2 when both end together. Kafka 4.2.1 re-arms a loaded group's members "
        "in its member map's (TimelineHashMap) order, which puts m2 first: on Kafka's code this "
        "vector's records differ (docs/divergences.md, share_group_orders).",
        _sheet("§1.7"),
    )


def _deleted_topic_leaves_the_target() -> Case:
    t2_again = TopicMetadata("t2", "00000000-0000-4000-8000-000000000022", 2)
    s = Script(topics=(T1, T2))
    s.answer(s.hb("m1", 0, ("t1", "t2")))
    s.hb("m2", 0, ("t2",))
    s.hb("m1", 1)
    s.hb("m2", 2)
    s.add(UpdateMetadata((T1, t2_again)))
    s.hb("m1", 2, ("t1",), error=Errors.NONE, expect_epoch=3)
    s.hb("m2", 2, error=Errors.NONE, expect_epoch=3)
    s.hb("m2", 3)
    s.ends("g", "Stable", 3)
    return s.case(
        "a_deleted_topic_leaves_the_target",
        "t2 is deleted and created again under a new id; the next target (m1 now subscribes to t1 "
        "only) holds t1 for m1 and nothing for m2, so both target records are written. Kafka "
        "4.2.1's SimpleAssignor copies the deleted t2's partitions from the previous targets, "
        "finds both targets unchanged and writes neither (docs/divergences.md, "
        "deleted_topic_copied_through).",
        _sheet("§3.3"),
    )


def _partial_answer() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.add(UpdateMetadata((replace(T1, partitions=4),)))
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.answer(join)
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    s.ends("g", "Stable", 3)
    return s.case(
        "an_answer_for_some_partitions_leaves_the_others_initializing",
        "t1 grows from 2 to 4 partitions while the join's request for 0-1 is unanswered, so the "
        "next heartbeat asks for 2-3 only; the answer to the first request moves 0-1 to "
        "initialized and leaves 2-3 initializing, and the initialized pair is assigned one "
        "epoch later.",
        _sheet("§3.2, §3.5"),
    )


#: t1 deleted and created again under a new id (same name, same partition count).
T1_AGAIN = TopicMetadata("t1", "00000000-0000-4000-8000-000000000011", 2)
#: Where Kafka 4.2.1 decides what a persister answer writes (the service's persisterInitialize
#: calls one or the other).
_ANSWER_WRITE = {
    "upstream": "group-coordinator/src/main/java/org/apache/kafka/coordinator/group/GroupMetadataManager.java"
                "#initializeShareGroupState, #uninitializeShareGroupState (4.2.1)",
}


def _refused_after_the_topic_went() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.add(UpdateMetadata(()))
    s.answer(join, Errors.UNKNOWN_SERVER_ERROR)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.ends("g", "Stable", 2)
    return s.case(
        "a_refusal_after_the_topic_was_deleted_writes_nothing",
        "t1 is deleted while the join's initialize request is unanswered, which takes it out of "
        "initializing at once; the persister then refuses the request. Nothing is initializing "
        "any more, so the refusal has nothing to take out and writes no record.",
        {**_sheet("§3.5"), **_ANSWER_WRITE},
    )


def _answered_after_the_topic_went() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.add(UpdateMetadata(()))
    s.answer(join)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.ends("g", "Stable", 2)
    return s.case(
        "a_success_after_the_topic_was_deleted_is_recorded",
        "t1 is deleted while the join's initialize request is unanswered; the persister's "
        "success still adds the deleted id's partitions to initialized, named <UNKNOWN> since "
        "the image no longer has it, and nothing is assigned from it.",
        {**_sheet("§3.5"), **_ANSWER_WRITE},
    )


def _refused_after_the_topic_came_back() -> Case:
    t1_third = replace(T1_AGAIN, topic_id="00000000-0000-4000-8000-000000000012")
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.add(UpdateMetadata((T1_AGAIN,)))
    s.answer(join, Errors.UNKNOWN_SERVER_ERROR)
    again = s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.add(UpdateMetadata((t1_third,)))
    s.answer(again, Errors.UNKNOWN_SERVER_ERROR)
    s.hb("m1", 2, error=Errors.NONE, expect_epoch=3)
    return s.case(
        "a_refusal_after_the_topic_was_recreated_writes_nothing",
        "t1 is deleted and created again under a new id before the persister refuses the "
        "request for the old id: the old id already left initializing and nothing else is "
        "initializing, so no record. The next heartbeat asks for the new id; t1 is recreated "
        "once more and that request is refused too: again nothing is written.",
        {**_sheet("§3.5"), **_ANSWER_WRITE},
    )


def _answered_after_the_topic_came_back() -> Case:
    s = Script()
    join = s.hb("m1", 0, ("t1",))
    s.add(UpdateMetadata((T1_AGAIN,)))
    s.answer(join)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    return s.case(
        "a_success_after_the_topic_was_recreated_keeps_the_old_id",
        "t1 is deleted and created again under a new id before the persister answers the "
        "request for the old id with success: the old id joins initialized under <UNKNOWN>, the "
        "new id is not initialized by it, and the next heartbeat asks for the new id.",
        {**_sheet("§3.5"), **_ANSWER_WRITE},
    )


def _refusal_after_a_success() -> Case:
    s = Script()
    first = s.hb("m1", 0, ("t1",))
    s.advance(30_000)
    second = s.hb("m1", 1)
    s.answer(first)
    s.answer(second, Errors.COORDINATOR_NOT_AVAILABLE)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    return s.case(
        "a_refusal_with_nothing_initializing_writes_nothing",
        "The join's request goes unanswered for the retry interval, so t1 is asked for again; "
        "the first answer (success) empties initializing, and the second request's refusal "
        "(COORDINATOR_NOT_AVAILABLE: any error, whatever its code), finding nothing "
        "initializing, writes nothing: t1 stays initialized and is assigned.",
        {**_sheet("§3.5"), **_ANSWER_WRITE},
    )

def _emptied_topic_in_target() -> Case:
    s = Script(topics=(T1, TopicMetadata("t2", "00000000-0000-4000-8000-000000000002", 1)))
    first = s.hb("m1", 0, ("t2",))
    s.answer(first)
    s.hb("m2", 0, ("t2",))
    s.hb("m1", 1, ("t1",), error=Errors.NONE, expect_epoch=3)
    s.hb("m2", 2, ("t1",), error=Errors.NONE, expect_epoch=4)
    s.ends("g", "Stable", 4)
    return s.case(
        "a_target_emptied_of_a_topic_is_rewritten_when_the_topic_goes",
        "m1 and m2 share t2-0; m1 moves to t1 (not yet initialized) while m2 stays on t2, then m2 "
        "moves too. groupspec's target for m1 is empty from the first move on, so the second "
        "writes only m2's record. Kafka 4.2.1's heterogeneous builder leaves t2 in m1's target "
        "with no partitions, and when the homogeneous builder drops it Kafka writes m1's record "
        "again, with the same (no) partitions (docs/divergences.md, empty_topic_kept_in_target).",
        _sheet("§3.3"),
    )


def _emptied_topic_beside_partitions() -> Case:
    one = TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 1)
    s = Script(topics=(one, TopicMetadata("t2", "00000000-0000-4000-8000-000000000002", 1)))
    first = s.hb("m1", 0, ("t1", "t2"))
    s.answer(first)
    s.hb("m1", 1, error=Errors.NONE, expect_epoch=2)
    s.hb("m2", 0, ("t2",), error=Errors.NONE, expect_epoch=3)
    s.hb("m1", 2, ("t1",), error=Errors.NONE, expect_epoch=4)
    s.hb("m2", 3, ("t1",), error=Errors.NONE, expect_epoch=5)
    s.ends("g", "Stable", 5)
    return s.case(
        "a_target_keeping_partitions_is_rewritten_when_an_empty_topic_goes",
        "m1 holds t1-0 and t2-0, m2 joins on t2 (sharing t2-0), m1 drops t2, then m2 moves to "
        "t1 (sharing t1-0). groupspec's target for m1 is t1-0 from m1's move on, so m2's move "
        "writes only m2's record. Kafka 4.2.1's heterogeneous builder leaves t2 in m1's target "
        "with no partitions beside t1-0, and when the homogeneous builder drops it Kafka writes "
        "m1's record again with the same t1-0 (docs/divergences.md, empty_topic_kept_in_target).",
        _sheet("§3.3"),
    )


def all_cases() -> list[Case]:
    builders: list[Callable[[], Case]] = [
        _emptied_topic_in_target,
        _emptied_topic_beside_partitions,
        _first_heartbeat,
        _partitions_arrive,
        _second_member,
        _retry,
        _retry_after_the_interval,
        _validation,
        _blank_rack,
        _config_bounds_are_inclusive,
        _epochs,
        _fenced_member_rejoins,
        _max_size,
        _leave,
        _expiry,
        _configs,
        _grow,
        _deleted_topic,
        _delete_groups,
        _restamp,
        _grown_topic_noticed_later,
        _failover_rechecks_hash,
        _between_epochs,
        _own_target,
        _rack_kept,
        _narrower_subscription,
        _unknown_topics,
        _refused_initialization,
        _config_edges,
        _session_above_interval,
        _shared_partition,
        _topic_back_under_its_id,
        _unknown_member_leaves_a_full_group,
        _expiries_in_arming_order,
        _failover_rearms_in_join_order,
        _deleted_topic_leaves_the_target,
        _partial_answer,
        _refused_after_the_topic_went,
        _answered_after_the_topic_went,
        _refused_after_the_topic_came_back,
        _answered_after_the_topic_came_back,
        _refusal_after_a_success,
    ]
    cases = [build() for build in builders]
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise ValueError("two share_group cases share a name")
    return cases


def vector_input(case: Case) -> dict[str, object]:
    from groupspec.conformance.share_group_json import RunInput, run_input_to_json

    return run_input_to_json(RunInput(config=case.config, topics=case.topics, events=case.events))


def share_group_vector_docs() -> Iterator[dict[str, object]]:
    """One vector per case; ``expected`` is what the spec answers for the input as written."""
    from groupspec.conformance.run_form import spec_run_vectors
    from groupspec.conformance.share_group import PROPERTIES as SHARE_GROUP_PROPERTIES

    return spec_run_vectors(MACHINE, HANDLER, all_cases(), vector_input, SHARE_GROUP_PROPERTIES)

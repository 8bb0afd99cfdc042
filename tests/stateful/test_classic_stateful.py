"""The classic group coordinator: spec and implementation driven side by side.

A few members of two groups send every kind of request, valid, stale and malformed (unknown
ids, wrong generations, other instance ids, empty protocol lists, session timeouts out of
bounds), while the clock moves, sometimes exactly onto the next timer's deadline, and the
coordinator sometimes fails over (Restart, or BeginLoad ... CompleteLoad with requests between,
which a loading coordinator refuses). Now and then a request carries what a broker would never
hand a coordinator (a 40,000-character id, a clock or a retention beyond int64, a lone surrogate,
None for a member id): both layers must refuse it with the same InputError and change nothing.
After every step, refused ones included:

- the spec and the implementation released the same answers and wrote the same records (per
  group, in order) and show the same view of every group;
- replay agrees: the implementation's logs, decoded and replayed into a fresh coordinator, give
  the same view as the spec's own replay of what it wrote (the spec's Restart), and for a group
  with no rebalance in flight the replayed group equals the live one in everything a record
  carries.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import event as event_
from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.spec import classic_group as spec
from groupspec.types import InputError
from groupspec.types.classic_group import (
    AdvanceClock,
    Answer,
    BeginLoad,
    ClassicConfig,
    ClassicEvent,
    CommitPartition,
    CommitTopic,
    CompleteLoad,
    CoordinatorView,
    DeleteGroups,
    DescribeGroups,
    FetchTopic,
    GroupView,
    Heartbeat,
    JoinGroup,
    LeaveGroup,
    ListGroups,
    LogEntry,
    MemberIdentity,
    OffsetCommit,
    OffsetDelete,
    OffsetFetch,
    Output,
    Protocol,
    Restart,
    SyncAssignment,
    SyncGroup,
    TxnEnd,
    TxnMarker,
    TxnOffsetCommit,
    TxnRecord,
)
from groupspec.types.records import CoordinatorRecord

GROUPS = ("g1", "g2")
INSTANCES = (None, None, None, "i1", "i2")
CLIENTS = ("c1", "c2", "c3")
TOPICS = ("orders", "audit")
PROTOCOL_LISTS: tuple[tuple[Protocol, ...], ...] = (
    (Protocol("range", b"r1"),),
    (Protocol("range", b"r2"),),
    (Protocol("roundrobin", b"x"), Protocol("range", b"r1")),
    (Protocol("roundrobin", b"x"),),
    (),
)
CONFIG = ClassicConfig(initial_rebalance_delay_ms=3_000, offsets_retention_ms=3_600_000,
                       offsets_retention_check_interval_ms=600_000, max_size=4)
STEPS = (0, 1, 999, 3_000, 6_000, 10_000, 45_000, 300_000, 600_000)


def group_of(entry: LogEntry) -> str | None:
    record = entry.record if isinstance(entry, TxnRecord) else entry
    if isinstance(record, CoordinatorRecord):
        return str(record.key.group)  # type: ignore[attr-defined]
    return None


def normalised(answers: tuple[Answer, ...], records: tuple[LogEntry, ...]) -> tuple[Any, ...]:
    """The contract's comparison: answers by request, records per group in order, markers as a set."""
    per_group: dict[str, list[LogEntry]] = defaultdict(list)
    markers = set()
    for entry in records:
        if isinstance(entry, TxnEnd):
            markers.add(entry)
        else:
            per_group[group_of(entry) or ""].append(entry)
    return (sorted(answers, key=lambda a: a.request), dict(per_group), markers)


def replayed_impl_view(live: ClassicCoordinator) -> CoordinatorView:
    """A fresh coordinator that loads the live one's logs, as a failover would."""
    fresh = ClassicCoordinator(CONFIG, start_ms=live.runtime.clock.now())
    fresh.runtime.unload_all()
    for partition in range(CONFIG.offsets_topic_partitions):
        fresh.runtime.log(partition).append_raw(live.runtime.log(partition).raw())
    fresh.runtime.load_all()
    return fresh.view()


def persisted(group: GroupView) -> tuple[Any, ...]:
    """What a record carries of a group (protocol lists are not: a load keeps only the chosen one)."""
    members = tuple((m.member_id, m.group_instance_id, m.client_id, m.client_host, m.session_timeout_ms,
                     m.rebalance_timeout_ms, m.assignment) for m in group.members)
    return (group.state, group.protocol_type or None, group.protocol_name, group.generation_id,
            group.leader_id, members, group.offsets, group.pending_offsets)


class ClassicAgreement(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = spec.initial_state(CONFIG)
        self.impl = ClassicCoordinator(CONFIG)
        self.index = 0
        self.uuids = 0
        self.known: dict[str, list[str]] = {g: [] for g in GROUPS}
        self.producers: set[int] = set()

    # -- driving both ------------------------------------------------------------------------------

    def send(self, event: ClassicEvent) -> None:
        index = self.index
        self.index += 1
        note(f"#{index}: {event!r}"[:300])
        try:
            self.state, expected = spec.step(self.state, event, index)
        except InputError as exc:
            logs = self.log_ends()
            with pytest.raises(InputError) as refused:
                self.impl.handle(event, index)
            assert str(refused.value) == str(exc)
            assert logs == self.log_ends()
            event_(f"refused: {exc.field}")
            return  # same_view and replay_agrees check that memory did not change either
        actual = self.impl.handle(event, index)
        assert isinstance(actual, Output)
        assert normalised(actual.answers, actual.records) == normalised(expected.answers, expected.records), (
            f"event #{index} {event!r}\nspec: {expected}\nimpl: {actual}")
        self._learn()

    def log_ends(self) -> list[int]:
        return [self.impl.runtime.log(p).next_offset for p in range(CONFIG.offsets_topic_partitions)]

    def _learn(self) -> None:
        """Remember every member id the groups held, so that later requests reuse them (or go stale)."""
        view = spec.view(self.state)
        for group in view.groups:
            ids = self.known.setdefault(group.group_id, [])
            for member_id in (*group.pending_members, *(m.member_id for m in group.members)):
                if member_id not in ids:
                    ids.append(member_id)

    def group(self, group_id: str) -> GroupView | None:
        for group in spec.view(self.state).groups:
            if group.group_id == group_id:
                return group
        return None

    def member(self, data: st.DataObject, group_id: str) -> str:
        return data.draw(st.sampled_from([*self.known.get(group_id, [])[-6:], "", "ghost"]), label="member")

    def generation(self, data: st.DataObject, group_id: str) -> int:
        group = self.group(group_id)
        current = group.generation_id if group else 0
        return data.draw(st.sampled_from([current, current, current, current - 1, current + 1, -1]),
                         label="generation")

    def instance(self, data: st.DataObject) -> str | None:
        return data.draw(st.sampled_from(INSTANCES), label="instance")

    def identity(self, data: st.DataObject, group_id: str) -> tuple[str, str | None]:
        """Mostly a current member as it is (its own instance id), else any id and instance.

        Without the first, most heartbeats came from unknown members (151 of 195 answered
        UNKNOWN_MEMBER_ID) and a planted REBALANCE_IN_PROGRESS -> NONE went unseen.
        """
        group = self.group(group_id)
        if group is not None and group.members and data.draw(st.booleans(), label="a current member"):
            m = data.draw(st.sampled_from(group.members), label="current member")
            return m.member_id, m.group_instance_id
        return self.member(data, group_id), self.instance(data)

    # -- a start from a Stable group -----------------------------------------------------------------

    @initialize(size=st.sampled_from((0, 2, 3)), instances=st.booleans())
    def stable_group(self, size: int, instances: bool) -> None:
        """Two runs in three start from g1 Stable with two or three members (joined through the
        member-id round trip and the initial delay, synced by the leader). Random requests alone
        almost never got a group that far: mutation testing (issue 17) found the rebalance of a
        populated group, a member leaving while others rejoin, unsearched."""
        for k in range(size):
            instance = f"i{k + 1}" if instances else None
            self.uuids += 1
            join = JoinGroup("g1", "", instance, 10_000, 20_000, "consumer", PROTOCOL_LISTS[0], "c1",
                             version=9, new_member_uuid=f"uuid-{self.uuids:04d}")
            self.send(join)
            group = self.group("g1")
            if instance is None and group is not None and group.pending_members:
                fresh = [p for p in group.pending_members if p not in {m.member_id for m in group.members}]
                self.send(dataclasses.replace(join, member_id=fresh[-1]))
        for _ in range(4):
            group = self.group("g1")
            if group is None or group.state != "PreparingRebalance":
                break
            self.send(AdvanceClock(spec.view(self.state).now_ms + CONFIG.initial_rebalance_delay_ms))
        group = self.group("g1")
        if group is None or group.state != "CompletingRebalance":
            return
        assignments = tuple(SyncAssignment(m.member_id, f"a-{m.member_id}".encode()) for m in group.members)
        for m in group.members:
            self.send(SyncGroup("g1", group.generation_id, m.member_id, m.group_instance_id, "consumer",
                                "range", assignments if m.member_id == group.leader_id else ()))
        final = self.group("g1")
        event_(f"started {final.state if final else None} with {len(final.members) if final else 0}")

    # -- rules ---------------------------------------------------------------------------------------

    @rule(data=st.data(), group_id=st.sampled_from(GROUPS), version=st.sampled_from((9, 9, 3)),
          protocols=st.sampled_from(PROTOCOL_LISTS), client=st.sampled_from(CLIENTS),
          session=st.sampled_from((10_000, 10_000, 30_000, 5_000)),
          rebalance=st.sampled_from((10_000, 20_000, 60_000)))
    def join(self, data: st.DataObject, group_id: str, version: int, protocols: tuple[Protocol, ...],
             client: str, session: int, rebalance: int) -> None:
        self.uuids += 1
        self.send(JoinGroup(group_id, self.member(data, group_id), self.instance(data), session, rebalance,
                            "consumer", protocols, client, version=version,
                            new_member_uuid=f"uuid-{self.uuids:04d}"))

    @rule(data=st.data(), group_id=st.sampled_from(GROUPS), assign=st.booleans())
    def sync(self, data: st.DataObject, group_id: str, assign: bool) -> None:
        group = self.group(group_id)
        members = [m.member_id for m in group.members] if group else []
        assignments = tuple(SyncAssignment(m, f"a-{m}".encode()) for m in members) if assign else ()
        protocol_name = data.draw(st.sampled_from((None, "range", "roundrobin")), label="protocol")
        member_id, instance_id = self.identity(data, group_id)
        self.send(SyncGroup(group_id, self.generation(data, group_id), member_id, instance_id,
                            "consumer" if protocol_name else None, protocol_name, assignments))

    @rule(data=st.data(), group_id=st.sampled_from(GROUPS))
    def heartbeat(self, data: st.DataObject, group_id: str) -> None:
        member_id, instance_id = self.identity(data, group_id)
        self.send(Heartbeat(group_id, self.generation(data, group_id), member_id, instance_id))

    @rule(data=st.data(), group_id=st.sampled_from(GROUPS), count=st.integers(1, 2))
    def leave(self, data: st.DataObject, group_id: str, count: int) -> None:
        # Weighted toward a boundary mutation testing found unsearched (issue 17): during a
        # rebalance, the member whose JoinGroup the group still awaits leaving, which must
        # complete the join at once when it was the last one awaited.
        group = self.group(group_id)
        awaited = [m for m in group.members if not m.awaiting_join] if group is not None \
            and group.state == "PreparingRebalance" else []
        if awaited and data.draw(st.booleans(), label="an awaited member leaves"):
            m = data.draw(st.sampled_from(awaited), label="awaited member")
            self.send(LeaveGroup(group_id, (MemberIdentity(m.member_id, m.group_instance_id),)))
            return
        members = tuple(MemberIdentity(*self.identity(data, group_id)) for _ in range(count))
        self.send(LeaveGroup(group_id, members))

    def topics(self, data: st.DataObject) -> tuple[CommitTopic, ...]:
        offset = data.draw(st.integers(0, 100), label="offset")
        metadata = data.draw(st.sampled_from(("", "m", None, "x" * 5000)), label="metadata")
        topic = data.draw(st.sampled_from(TOPICS), label="topic")
        partitions = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=2, unique=True),
                               label="partitions")
        return (CommitTopic(topic, tuple(CommitPartition(p, offset + p, -1, metadata) for p in partitions)),)

    @rule(data=st.data(), group_id=st.sampled_from(GROUPS), anonymous=st.booleans(),
          retention=st.sampled_from((-1, -1, 1_000_000, -5, 2**63 - 1)), version=st.sampled_from((9, 8, 4)))
    def commit(self, data: st.DataObject, group_id: str, anonymous: bool, retention: int,
               version: int) -> None:
        if anonymous:
            event = OffsetCommit(group_id, -1, "", None, retention, self.topics(data), version)
        else:
            event = OffsetCommit(group_id, self.generation(data, group_id), self.member(data, group_id),
                                 self.instance(data), retention, self.topics(data), version)
        self.send(event)

    @rule(data=st.data(), group_id=st.sampled_from(GROUPS), producer=st.sampled_from((7, 8)))
    def txn_commit(self, data: st.DataObject, group_id: str, producer: int) -> None:
        self.producers.add(producer)
        anonymous = data.draw(st.booleans(), label="anonymous")
        generation = -1 if anonymous else self.generation(data, group_id)
        member = "" if anonymous else self.member(data, group_id)
        self.send(TxnOffsetCommit(f"tx-{producer}", producer, 0, group_id, generation, member, None,
                                  self.topics(data)))

    @rule(producer=st.sampled_from((7, 8)), commit=st.booleans())
    def txn_marker(self, producer: int, commit: bool) -> None:
        self.send(TxnMarker(producer, 0, commit))

    @rule(group_id=st.sampled_from((*GROUPS, "nobody")), stable=st.booleans(), everything=st.booleans())
    def fetch(self, group_id: str, stable: bool, everything: bool) -> None:
        topics = None if everything else (FetchTopic("orders", (0, 1)), FetchTopic("audit", (2,)))
        self.send(OffsetFetch(group_id, topics, stable))

    @rule(group_id=st.sampled_from((*GROUPS, "nobody")))
    def offset_delete(self, group_id: str) -> None:
        self.send(OffsetDelete(group_id, (FetchTopic("orders", (0, 1, 2)),)))

    @rule(ids=st.lists(st.sampled_from((*GROUPS, "nobody", "")), min_size=1, max_size=2))
    def delete_groups(self, ids: list[str]) -> None:
        self.send(DeleteGroups(tuple(ids)))

    @rule(ids=st.lists(st.sampled_from((*GROUPS, "nobody")), min_size=1, max_size=2))
    def describe(self, ids: list[str]) -> None:
        self.send(DescribeGroups(tuple(ids)))

    @rule(states=st.sampled_from(((), ("Stable",), ("Empty", "PreparingRebalance"))))
    def list_groups(self, states: tuple[str, ...]) -> None:
        self.send(ListGroups(states))

    @rule(data=st.data())
    def advance(self, data: st.DataObject) -> None:
        now = spec.view(self.state).now_ms
        deadlines = sorted({d for g in spec.view(self.state).groups for _, d in g.timers if d >= now})
        choices = [now + s for s in STEPS] + deadlines[:3]
        self.send(AdvanceClock(data.draw(st.sampled_from(choices), label="to")))

    @rule(data=st.data(), group_id=st.sampled_from(GROUPS))
    def unparseable(self, data: st.DataObject, group_id: str) -> None:
        """A request no broker would pass on: refused whole, by both layers alike."""
        long = "x" * 40_000
        member = self.member(data, group_id)
        now = spec.view(self.state).now_ms
        bad_topic = (CommitTopic("orders", (CommitPartition(0, 1, -1, "\ud800"),)),)
        event = data.draw(st.sampled_from((
            JoinGroup(group_id, "", None, 10_000, 10_000, "consumer", PROTOCOL_LISTS[0], long),
            JoinGroup(group_id, "", None, 10_000, 10_000, "consumer", PROTOCOL_LISTS[0], "c" * 32_760,
                      new_member_uuid="uuid-0000"),
            SyncGroup(group_id, 1, member, None, "consumer", "range", (SyncAssignment(long, b""),)),
            OffsetCommit(long, -1, "", None, -1, self.topics(data)),
            OffsetCommit(group_id, -1, "", None, 2**63, self.topics(data), 2),
            OffsetCommit(group_id, -1, "", None, -1, bad_topic),
            TxnMarker(7, 2**15, True),
            Heartbeat(group_id, 1, None),  # type: ignore[arg-type]
            LeaveGroup(group_id, [MemberIdentity(member)]),  # type: ignore[arg-type]
            AdvanceClock(2**70),
            AdvanceClock(now + 2**63),
        )), label="unparseable")
        self.send(event)

    @rule()
    def restart(self) -> None:
        self.send(Restart())

    @rule()
    def begin_load(self) -> None:
        self.send(BeginLoad())

    @rule()
    def complete_load(self) -> None:
        self.send(CompleteLoad())

    # -- after every step ------------------------------------------------------------------------

    @invariant()
    def same_view(self) -> None:
        assert self.impl.view() == spec.view(self.state)

    @invariant()
    def replay_agrees(self) -> None:
        live = spec.view(self.state)
        restarted, _ = spec.step(self.state, Restart(), self.index)
        replayed = spec.view(restarted)
        assert replayed_impl_view(self.impl) == replayed
        by_id = {g.group_id: g for g in replayed.groups}
        for group in live.groups:
            quiet = group.state in ("Stable", "Empty") and not group.pending_members and not any(
                m.awaiting_join or m.awaiting_sync for m in group.members)
            # A group that nothing was written for (a simple group whose offsets were deleted)
            # is not in the log, so a load does not bring it back; Kafka's loader neither.
            written = group.protocol_type is not None or group.offsets or group.pending_offsets
            if quiet and written:
                assert group.group_id in by_id, group.group_id
                assert persisted(by_id[group.group_id]) == persisted(group)


TestClassicAgreement = ClassicAgreement.TestCase

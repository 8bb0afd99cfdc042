"""The share group coordinator: spec and implementation driven side by side.

Six members in two groups heartbeat with every kind of epoch (join, current, previous, stale,
leave, invalid, a known member's rejoin at epoch 0), change subscriptions (to topics that
exist, grow, disappear or never existed), and time out; the persister answers initialize
requests, or fails them; the metadata image changes (partitions added, topics deleted and
re-created, racks); groups are deleted; per-group configs change; the coordinator fails over
and replays its log; topic ids come in either spelling; now and then an event carries what a
broker would never hand a coordinator (a 40,000-character group id, a clock beyond int64, -4
partitions, a topic id that is no Uuid, None for a member id), which both layers must refuse
with the same InputError, changing nothing. After every step, refused ones included:

- both layers answered the same, asked the persister the same, and wrote the same records for
  each group in the same order (records of different groups may interleave differently: the
  implementation keeps groups on their ``__consumer_offsets`` shards, so timers of different
  groups that are due together fire shard by shard);
- both show the same view: every group's epochs, hash, members with their epochs, assignment,
  target and session deadline, the share-state bookkeeping, the pending initialize requests;
- memory equals a replay of the log: the implementation's logs loaded into a fresh coordinator,
  and the spec's own log replayed by a Restart, rebuild the groups as they are, except what a
  failover resets by design (session deadlines, initializing stamps, unanswered initialize
  requests);
- the spec's invariants held (icontract, on every step).
"""

from __future__ import annotations

import dataclasses
import uuid

import pytest
from hypothesis import event, note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from groupspec.impl.share_group import ShareGroupCoordinator
from groupspec.kafka_versions import VERSIONS
from groupspec.spec import share_group as spec
from groupspec.types import InputError
from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord, ShareGroupTargetAssignmentMetadataKey
from groupspec.types.share_group import (
    AdvanceClock,
    DeleteGroups,
    MemberView,
    Output,
    PersisterAnswer,
    Restart,
    SetGroupConfig,
    ShareCoordinatorView,
    ShareGroupConfig,
    ShareGroupEvent,
    ShareGroupHeartbeat,
    TopicMetadata,
    UpdateMetadata,
)
from groupspec.types.topic_id import kafka_string

MEMBERS = ("m1", "m2", "m3", "m4", "m5", "m6")
GROUPS = ("g1", "g2")
NAMES = ("t1", "t2", "t3", "ghost")
CONFIG = ShareGroupConfig(max_size=4, offsets_topic_partitions=5)


def _topic(
    name: str, generation: int, partitions: int, racks: tuple[tuple[str, ...], ...] = ()
) -> TopicMetadata:
    return TopicMetadata(
        name, f"00000000-0000-4000-8000-{generation:06d}{int(name[1:]):06d}", partitions, racks
    )


START = (_topic("t1", 1, 2), _topic("t2", 1, 3), _topic("t3", 1, 1))


def _durable(view: ShareCoordinatorView) -> object:
    """The view without what a failover resets by design."""
    groups = []
    for g in view.groups:
        members = tuple(dataclasses.replace(m, session_deadline_ms=None) for m in g.members)
        initializing = tuple(dataclasses.replace(i, timestamp_ms=0) for i in g.initializing)
        groups.append(dataclasses.replace(g, members=members, initializing=initializing))
    return tuple(groups)


def _replayed_impl_view(live: ShareGroupCoordinator) -> ShareCoordinatorView:
    """A fresh coordinator that loads the live one's logs, as a failover would."""
    image = tuple(live.image.by_name.values())
    fresh = ShareGroupCoordinator(live.config, image, start_ms=live.runtime.clock.now())
    fresh.group_configs = dict(live.group_configs)
    fresh.runtime.unload_all()
    for partition in range(CONFIG.offsets_topic_partitions):
        fresh.runtime.log(partition).append_raw(live.runtime.log(partition).raw())
    fresh.runtime.load_all()
    return fresh.view()


def _per_group(out: Output) -> dict[str, list[CoordinatorRecord]]:
    groups: dict[str, list[CoordinatorRecord]] = {}
    for r in out.records:
        groups.setdefault(r.key.group_id, []).append(r)  # type: ignore[attr-defined]
    return groups


class ShareGroupAgreement(RuleBasedStateMachine):
    #: Kafka 4.2's rules; the subclass below runs the same search under 4.3's.
    config = CONFIG

    def __init__(self) -> None:
        super().__init__()
        self.state = spec.initial_state(self.config, START)
        self.impl = ShareGroupCoordinator(self.config, START)
        self.index = 0
        self.topics = {t.name: t for t in START}
        self.generation = 1
        #: (what a replay reads, the durable view it rebuilt) of the last replay_rebuilds.
        self.replayed: tuple[object, object] | None = None

    def send(self, event_: ShareGroupEvent) -> Output | None:
        index = self.index
        self.index += 1
        note(f"#{index}: {event_!r}"[:300])
        try:
            self.state, expected = spec.step(self.state, event_, index)
        except InputError as exc:
            logs = self.log_ends()
            with pytest.raises(InputError) as refused:
                self.impl.handle(event_, index)
            assert str(refused.value) == str(exc)
            assert logs == self.log_ends()
            event(f"refused: {exc.field}")
            return None  # same_view and replay_rebuilds check that memory did not change either
        actual = self.impl.handle(event_, index)
        assert actual.answers == expected.answers, (
            f"#{index}\nspec: {expected.answers}\nimpl: {actual.answers}"
        )
        assert actual.initialize == expected.initialize, (
            f"#{index}\nspec: {expected.initialize}\nimpl: {actual.initialize}"
        )
        assert _per_group(actual) == _per_group(expected), (
            f"#{index}\nspec: {expected.records}\nimpl: {actual.records}"
        )
        for answer in expected.answers:
            response = answer.response
            results = getattr(response, "results", None)
            error = results[0].error if results else getattr(response, "error", Errors.NONE)
            event(f"{type(event_).__name__}: {error.name}")
        if any(isinstance(r.key, ShareGroupTargetAssignmentMetadataKey) for r in expected.records):
            event("a new target")
        return expected

    def log_ends(self) -> list[int]:
        return [self.impl.runtime.log(p).next_offset for p in range(CONFIG.offsets_topic_partitions)]

    def _member(self, group: str, member: str) -> MemberView | None:
        for g in spec.view(self.state).groups:
            if g.group_id == group:
                return next((m for m in g.members if m.member_id == member), None)
        return None

    # -- members ------------------------------------------------------------------------------------

    @rule(
        data=st.data(),
        group=st.sampled_from(GROUPS),
        member=st.sampled_from(MEMBERS),
        kind=st.sampled_from(("current", "current", "current", "previous", "join", "leave", "stale", "bad")),
    )
    def heartbeat(self, data: st.DataObject, group: str, member: str, kind: str) -> None:
        known = self._member(group, member)
        epoch = {
            "current": known.member_epoch if known else 0,
            "previous": known.previous_member_epoch if known else 0,
            "join": 0,
            "leave": -1,
            "stale": (known.member_epoch if known else 0) + 1,
            "bad": -2,
        }[kind]
        topics = None
        if epoch == 0 or data.draw(st.integers(0, 3), label="resubscribe") == 0:
            topics = tuple(
                data.draw(
                    st.lists(
                        st.sampled_from(NAMES), min_size=0 if epoch != 0 else 1, max_size=3, unique=True
                    ),
                    label="topics",
                )
            )
        rack = data.draw(st.sampled_from((None, None, "r1", "r2")), label="rack")
        self.send(
            ShareGroupHeartbeat(
                group,
                member,
                epoch,
                rack_id=rack,
                subscribed_topic_names=topics,
                client_host=data.draw(st.sampled_from(("/h1", "/h2")), label="host"),
            )
        )

    @rule(
        group=st.sampled_from(GROUPS),
        member=st.sampled_from(MEMBERS),
        topics=st.sampled_from((("t1",), ("t1", "t2"), ("t2", "t3"))),
    )
    def steady(self, group: str, member: str, topics: tuple[str, ...]) -> None:
        """The common case, weighted up: a member heartbeats at its epoch, or joins."""
        known = self._member(group, member)
        if known is None:
            self.send(ShareGroupHeartbeat(group, member, 0, subscribed_topic_names=topics))
        else:
            self.send(ShareGroupHeartbeat(group, member, known.member_epoch))

    @rule(
        data=st.data(),
        group=st.sampled_from(GROUPS),
        topics=st.sampled_from((None, ("t1",), ("t1", "t2"), ("t2", "t3"))),
    )
    def rejoin(self, data: st.DataObject, group: str, topics: tuple[str, ...] | None) -> None:
        """A known member heartbeats with epoch 0, as a fenced client does (same id, its topics or
        new ones): Kafka 4.2.1 accepts it whatever the member's epochs (KAFKA-19233)."""
        known = [m for g in spec.view(self.state).groups if g.group_id == group for m in g.members]
        if not known:
            return
        member = data.draw(st.sampled_from(known), label="rejoining")
        event("a known member rejoins " + ("(previous epoch 0)" if member.previous_member_epoch == 0
                                           else "(previous epoch not 0)"))
        self.send(ShareGroupHeartbeat(group, member.member_id, 0,
                                      subscribed_topic_names=topics or member.subscribed_topic_names))

    @rule(data=st.data(), error=st.sampled_from((Errors.NONE, Errors.NONE, Errors.UNKNOWN_SERVER_ERROR)))
    def persister_answers(self, data: st.DataObject, error: Errors) -> None:
        pending = spec.view(self.state).pending_initialize
        request = data.draw(st.sampled_from(pending), label="request") if pending else 0
        self.send(PersisterAnswer(request, error))

    @rule(data=st.data())
    def advance(self, data: st.DataObject) -> None:
        view = spec.view(self.state)
        deadlines = sorted(
            {
                m.session_deadline_ms
                for g in view.groups
                for m in g.members
                if m.session_deadline_ms is not None
            }
        )
        to = data.draw(
            st.sampled_from([view.now_ms + 1_000, view.now_ms + 31_000, *deadlines[:2]]), label="to"
        )
        self.send(AdvanceClock(to))

    # -- the world ------------------------------------------------------------------------------------

    @rule(
        data=st.data(),
        name=st.sampled_from(("t1", "t2", "t3")),
        change=st.sampled_from(("grow", "delete", "recreate", "racks")),
    )
    def metadata(self, data: st.DataObject, name: str, change: str) -> None:
        topic = self.topics.get(name)
        if change == "delete":
            self.topics.pop(name, None)
        elif change == "recreate" or topic is None:
            self.generation += 1
            self.topics[name] = _topic(
                name, self.generation, data.draw(st.integers(1, 4), label="partitions")
            )
        elif change == "grow":
            self.topics[name] = _topic(name, int(topic.topic_id[-12:-6]), min(topic.partitions + 1, 6))
        else:
            self.topics[name] = _topic(
                name,
                int(topic.topic_id[-12:-6]),
                topic.partitions,
                tuple(("r1", "r2") for _ in range(topic.partitions)),
            )
        image = tuple(self.topics[n] for n in sorted(self.topics))
        if data.draw(st.booleans(), label="kafka spelling"):
            # Kafka's 22-character ids: read as the same topics, shown in the vocabulary's spelling.
            image = tuple(dataclasses.replace(t, topic_id=kafka_string(uuid.UUID(t.topic_id))) for t in image)
        self.send(UpdateMetadata(image))

    @rule(data=st.data(), group=st.sampled_from(GROUPS), member=st.sampled_from(MEMBERS))
    def unparseable(self, data: st.DataObject, group: str, member: str) -> None:
        """An event no broker would pass on: refused whole, by both layers alike."""
        now = spec.view(self.state).now_ms
        t1 = START[0]
        self.send(data.draw(st.sampled_from((
            ShareGroupHeartbeat("g" * 40_000, member, 0, subscribed_topic_names=("t1",)),
            ShareGroupHeartbeat(group, member, 0, subscribed_topic_names=("t1", "\udcff")),
            ShareGroupHeartbeat(group, None, 0, subscribed_topic_names=("t1",)),  # type: ignore[arg-type]
            ShareGroupHeartbeat(group, member, 2**31),
            AdvanceClock(2**70),
            AdvanceClock(now + 2**63),
            UpdateMetadata((dataclasses.replace(t1, partitions=-4),)),
            UpdateMetadata((dataclasses.replace(t1, topic_id="not-a-uuid"),)),
            UpdateMetadata((t1, dataclasses.replace(t1, name="t2"))),
            PersisterAnswer(0, 0),  # type: ignore[arg-type]
            SetGroupConfig(group, 2**31),
        )), label="unparseable"))

    @rule(group=st.sampled_from(GROUPS))
    def delete(self, group: str) -> None:
        self.send(DeleteGroups((group,)))

    @rule(
        group=st.sampled_from(GROUPS),
        session=st.sampled_from((None, 45_000, 50_000, 30_000)),
        interval=st.sampled_from((None, 5_000, 8_000)),
    )
    def configure(self, group: str, session: int | None, interval: int | None) -> None:
        self.send(SetGroupConfig(group, session, interval))

    @rule()
    def restart(self) -> None:
        self.send(Restart())

    # -- after every step ------------------------------------------------------------------------------

    @invariant()
    def same_view(self) -> None:
        assert self.impl.view() == spec.view(self.state)

    @invariant()
    def replay_rebuilds(self) -> None:
        live = _durable(spec.view(self.state))
        restarted, _ = spec.step(self.state, Restart(), self.index)
        assert _durable(spec.view(restarted)) == live
        assert self._impl_replayed() == live

    def _impl_replayed(self) -> object:
        """The durable view of a fresh coordinator loading the implementation's logs. That replay
        reads only the logs, the image, the group configs and the clock, so after a step that
        changed none of them (most write nothing) it would rebuild the same view: the last one is
        reused, and compared with the live view all the same."""
        reads = (tuple(self.impl.runtime.log(p).raw() for p in range(CONFIG.offsets_topic_partitions)),
                 tuple(self.impl.image.by_name.values()), dict(self.impl.group_configs),
                 self.impl.runtime.clock.now())
        if self.replayed is None or self.replayed[0] != reads:
            self.replayed = (reads, _durable(_replayed_impl_view(self.impl)))
        return self.replayed[1]


TestShareGroupAgreement = ShareGroupAgreement.TestCase


class ShareGroupAgreementKafka43(ShareGroupAgreement):
    """Groups start at epoch 1 (Kafka 4.3, groupspec.kafka_versions): the epoch checks, targets
    and replays must agree from there too."""

    config = dataclasses.replace(CONFIG, **VERSIONS["4.3"].settings["share_group"])


TestShareGroupAgreementKafka43 = ShareGroupAgreementKafka43.TestCase

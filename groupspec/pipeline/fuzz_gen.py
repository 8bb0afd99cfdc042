"""Seeded random runs for ``groupspec fuzz``: one event sequence per (machine, seed, index).

Why not Hypothesis: a Spark task must rebuild exactly the run the driver names from three
integers, on any executor, with no example database and no shrinking of its own (the fuzz job
shrinks by deleting events, :mod:`groupspec.pipeline.fuzz`). A :class:`random.Random` seeded with
the string ``"machine:seed:index"`` (hashed with SHA-512 by Python, so the same on every
machine and every run) does that.

Why the spec is consulted while generating: random requests alone rarely reach the interesting
states (the stateful tests found the same, see their docstrings): a heartbeat needs the member's
current epoch, an acknowledgement needs offsets someone holds, a clock jump is most useful when
it lands on a deadline. Each generator therefore steps the spec alongside and reads its view to
pick the next event. The spec is deterministic, so the run stays a function of the three
integers; the run is then replayed through the conformance handlers of both targets from
scratch, so this shadow never takes part in the comparison. An event the spec refuses with an
InputError is dropped (a vector's run is refused whole by either layer on such an event, which
would hide everything after it); the generators seldom draw one.

The vocabularies' values (groups, members, topics, epochs, offsets) are kept to small pools on
purpose, so that events collide: a fuzzer over wide pools sends requests for groups nobody has.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping
from typing import Any

from groupspec.types import InputError

#: Machines whose vector is a run of events and that have a generator here.
FUZZ_MACHINES = ("classic_consumer", "classic_group", "share_consumer", "share_delivery", "share_group",
                 "share_partition", "share_state")


def rng_for(machine: str, seed: int, index: int) -> random.Random:
    """The generator of run ``index`` of ``seed`` for ``machine``: the same everywhere."""
    return random.Random(f"{machine}:{seed}:{index}")


@dataclasses.dataclass
class Shadow:
    """The spec stepped alongside the generator: its state and the events it took."""

    step: Callable[[Any, Any, int], tuple[Any, Any]]
    view_of: Callable[[Any], Any]
    state: Any
    events: list[Any] = dataclasses.field(default_factory=list)
    tries: int = 0
    #: The spec raised something other than InputError: a finding, so the run ends with the
    #: event that did it, for the targets to be compared on.
    crashed: bool = False

    def more(self, length: int) -> bool:
        """Whether to draw another event: fewer than ``length`` taken, the spec not crashed, and
        not so many draws already that a generator stuck on refused events would loop for ever."""
        self.tries += 1
        return not self.crashed and len(self.events) < length and self.tries <= 20 * length + 20

    def view(self) -> Any:
        return self.view_of(self.state)

    def send(self, event: Any) -> bool:
        """Step the spec; False (and the event dropped) when the spec refuses it as input."""
        try:
            self.state, _ = self.step(self.state, event, len(self.events))
        except InputError:
            return False
        except Exception:
            self.crashed = True
            self.events.append(event)
            return False
        self.events.append(event)
        return True


# ---------------------------------------------------------------------------------------------
# share_state: the share coordinator
# ---------------------------------------------------------------------------------------------

_SS_T1 = "00000000-0000-4000-8000-000000000001"
_SS_T2 = "00000000-0000-4000-8000-000000000002"
_SS_GHOST = "00000000-0000-4000-8000-0000000000ff"


def _share_state(rng: random.Random, length: int) -> Any:
    from groupspec.conformance.share_state_json import RunInput
    from groupspec.spec import share_state as spec
    from groupspec.types import share_state as ss

    # Kafka 4.2's rules (fence_read_without_leader_epoch stays at its default), so that the
    # Kafka target, built against 4.2.1, can answer every run.
    # Mostly three coordinator partitions, so that keys share shards; sometimes one, or Kafka's
    # default of 50. A clock that does not start at 0 moves every deadline off round numbers.
    config = ss.ShareStateConfig(state_topic_partitions=rng.choice((3, 3, 1, 50)),
                                 updates_per_snapshot=rng.choice((1, 2, 5)),
                                 cold_snapshot_interval_ms=3_000)
    topics = (ss.TopicMetadata(_SS_T1, 2), ss.TopicMetadata(_SS_T2, 1))
    start_ms = rng.choice((0, 0, 1_700))
    shadow = Shadow(spec.step, spec.view, spec.initial_state(config, topics, start_ms))

    def key() -> tuple[str, str, int]:
        return (rng.choice(("g1", "g1", "g2")), rng.choice((_SS_T1, _SS_T1, _SS_T2, _SS_GHOST)),
                rng.choice((0, 0, 1, -1)))

    def epoch() -> int:
        return rng.randint(-1, 4)

    def start() -> int:
        return rng.choice((-1, 0, 3, 8, 15))

    def batches() -> tuple[Any, ...]:
        out = []
        for _ in range(rng.randint(0, 4)):
            first = rng.randint(0, 24)
            out.append(ss.StateBatch(first, first + rng.randint(0, 6), rng.choice((0, 2, 4)),
                                     rng.randint(0, 3)))
        return tuple(out)

    while shadow.more(length):
        kind = rng.choices(("init", "read", "write", "leader", "delete", "summary", "clock",
                            "topics", "restart"), (3, 3, 2, 6, 1, 2, 2, 1, 1))[0]
        known = sorted(shadow.state.keys)
        event: Any
        if kind == "init":
            event = ss.InitializeShareGroupState(*key(), epoch(), start())
        elif kind == "read":
            event = ss.ReadShareGroupState(*key(), epoch())
        elif kind == "write" or (kind == "leader" and not known):
            event = ss.WriteShareGroupState(*key(), epoch(), epoch(), start(), batches())
        elif kind == "leader":
            k = rng.choice(known)
            entry = shadow.state.keys[k]
            seen = entry.state_seen if entry.state_seen is not None else -1
            group, topic, partition = k
            event = ss.WriteShareGroupState(group, topic, partition, seen,
                                            entry.leader_seen + rng.choice((0, 0, 1)), start(), batches())
        elif kind == "delete":
            event = ss.DeleteShareGroupState(*key())
        elif kind == "summary":
            event = ss.ReadShareGroupStateSummary(*key(), epoch())
        elif kind == "clock":
            event = ss.AdvanceClock(shadow.state.now + rng.choice((0, 1, 999, 3_000, 5_000)))
        elif kind == "topics":
            event = ss.DeleteTopics((rng.choice((_SS_T2, _SS_GHOST)),))
        else:
            event = ss.Restart()
        shadow.send(event)
    return RunInput(config=config, topics=topics, start_ms=start_ms, events=tuple(shadow.events))


# ---------------------------------------------------------------------------------------------
# share_partition: one share partition's in-flight records
# ---------------------------------------------------------------------------------------------

def _share_partition(rng: random.Random, length: int) -> Any:
    from groupspec.conformance.share_partition_json import RunInput
    from groupspec.spec import share_partition as spec
    from groupspec.types import share_partition as sp
    from groupspec.types.errors import Errors

    config = sp.SharePartitionConfig(delivery_count_limit=rng.choice((3, 4)), max_in_flight_records=40,
                                     record_lock_duration_ms=1_000)
    persisted = rng.choice((
        sp.PersistedState(),
        sp.PersistedState(1, 3, (sp.PersisterBatch(5, 7, sp.RecordState.AVAILABLE, 2),
                                 sp.PersisterBatch(10, 12, sp.RecordState.ACKNOWLEDGED, 1))),
    ))
    shadow = Shadow(spec.step, spec.view, spec.initial_state(config, persisted, 0, 0))
    log = [sp.LogBatch(3, 9), sp.LogBatch(10, 14)]
    members = ("m1", "m2", "m3")

    def fetch(member: str) -> Any:
        nfo = shadow.view().next_fetch_offset
        offset = rng.choice((nfo, nfo, nfo, max(0, nfo - 4), nfo + 2))
        ahead = [b for b in log if b.last_offset >= offset][:rng.randint(0, 4)]
        return sp.Fetch(member, offset, tuple(ahead), rng.choice((1, 5, 500)), rng.choice((3, 500)))

    def acknowledge(member: str) -> Any:
        view = shadow.view()
        held = [r for r in view.records if r.state == sp.RecordState.ACQUIRED]
        if held and rng.random() < 0.75:
            member = rng.choice(sorted({r.member_id for r in held}))
        mine = sorted(r.offset for r in held if r.member_id == member)
        offsets = mine or [r.offset for r in held] or [view.start_offset]
        out: list[Any] = []
        low = 0
        for _ in range(rng.randint(1, 3)):
            candidates = [o for o in offsets if o >= low]
            if not candidates and out:
                break
            first = rng.choice(candidates or offsets)
            if mine and rng.random() < 0.5:
                end = first
                while end + 1 in mine:
                    end += 1
                last = rng.randint(first, end)
            else:
                last = first + rng.choice((0, 0, 1, 3, 9))
            if rng.random() < 0.5:
                types: tuple[int, ...] = (rng.choice((1, 1, 2, 3, 0, 4)),)
            else:
                types = tuple(rng.choice((0, 1, 2, 3, 4)) for _ in range(last - first + 1))
            out.append(sp.AckBatch(first, last, types))
            low = last + 1
        return sp.Acknowledge(member, tuple(out))

    while shadow.more(length):
        kind = rng.choices(("produce", "start", "fetch", "ack", "fetch_ack", "release", "can", "clock",
                            "persister", "fence", "reset", "reload"),
                           (6, 2, 8, 6, 8, 2, 2, 4, 1, 1, 1, 2))[0]
        member = rng.choice(members)
        view = shadow.view()
        if kind == "produce":
            if log[-1].last_offset <= 150:
                base = log[-1].last_offset + 1 + rng.choice((0, 0, 0, 1, 3))
                log.append(sp.LogBatch(base, base + rng.randint(1, 12) - 1))
            continue
        event: Any
        if kind == "start":
            edges = sorted({o for b in view.batches for o in (b.first_offset, b.last_offset,
                                                                b.last_offset + 1)
                            if o >= view.start_offset})
            to = rng.choice(edges) if edges and rng.random() < 0.5 else \
                rng.randint(view.start_offset, view.start_offset + 15)
            log = [b for b in log if b.last_offset >= to] or [sp.LogBatch(to, to)]
            event = sp.MoveLogStart(to)
        elif kind == "fetch":
            event = fetch(member)
        elif kind == "ack":
            event = acknowledge(member)
        elif kind == "fetch_ack":
            if shadow.send(fetch(member)) and len(shadow.events) < length:
                shadow.send(acknowledge(member))
            continue
        elif kind == "release":
            event = sp.ReleaseMember(member)
        elif kind == "can":
            event = sp.CanAcquire()
        elif kind == "clock":
            deadlines = sorted({r.lock_deadline_ms for r in view.records if r.lock_deadline_ms is not None})
            event = sp.AdvanceClock(rng.choice([view.now_ms + 1, view.now_ms + 400, *deadlines[:3]]))
        elif kind == "persister":
            event = sp.SetPersisterError(rng.choice((Errors.NONE, Errors.NONE, Errors.GROUP_ID_NOT_FOUND,
                                                     Errors.UNKNOWN_SERVER_ERROR,
                                                     Errors.COORDINATOR_NOT_AVAILABLE)))
        elif kind == "fence":
            event = sp.FenceLeader()
        elif kind == "reset":
            event = sp.ResetShareState(view.start_offset)
        else:
            event = sp.Reload(latest_offset=log[-1].last_offset + 1)
        shadow.send(event)
    return RunInput(config=config, persisted=persisted, start_ms=0, latest_offset=0,
                    events=tuple(shadow.events))


# ---------------------------------------------------------------------------------------------
# share_group: the share group coordinator
# ---------------------------------------------------------------------------------------------

def _sg_topic(name: str, generation: int, partitions: int, racks: tuple[tuple[str, ...], ...] = ()) -> Any:
    from groupspec.types.share_group import TopicMetadata

    return TopicMetadata(name, f"00000000-0000-4000-8000-{generation:06d}{int(name[1:]):06d}", partitions,
                         racks)


def _share_group(rng: random.Random, length: int) -> Any:
    from groupspec.conformance.share_group_json import RunInput
    from groupspec.spec import share_group as spec
    from groupspec.types import share_group as sg
    from groupspec.types.errors import Errors

    config = sg.ShareGroupConfig(max_size=4, offsets_topic_partitions=5)
    start = (_sg_topic("t1", 1, 2), _sg_topic("t2", 1, 3), _sg_topic("t3", 1, 1))
    shadow = Shadow(spec.step, spec.view, spec.initial_state(config, start))
    topics = {t.name: t for t in start}
    generation = 1
    names = ("t1", "t2", "t3", "ghost")

    def member_view(group: str, member: str) -> Any:
        for g in shadow.view().groups:
            if g.group_id == group:
                return next((m for m in g.members if m.member_id == member), None)
        return None

    while shadow.more(length):
        kind = rng.choices(("heartbeat", "steady", "rejoin", "persister", "clock", "metadata", "delete",
                            "configure", "restart"), (4, 6, 1, 2, 2, 1, 1, 1, 1))[0]
        group = rng.choice(("g1", "g2"))
        member = rng.choice(("m1", "m2", "m3", "m4", "m5", "m6"))
        known = member_view(group, member)
        view = shadow.view()
        event: Any
        if kind == "heartbeat":
            how = rng.choice(("current", "current", "current", "previous", "join", "leave", "stale", "bad"))
            epoch = {"current": known.member_epoch if known else 0,
                     "previous": known.previous_member_epoch if known else 0,
                     "join": 0, "leave": -1, "stale": (known.member_epoch if known else 0) + 1,
                     "bad": -2}[how]
            subscribed = None
            if epoch == 0 or rng.random() < 0.25:
                subscribed = tuple(rng.sample(names, rng.randint(1 if epoch == 0 else 0, 3)))
            event = sg.ShareGroupHeartbeat(group, member, epoch, rack_id=rng.choice((None, None, "r1", "r2")),
                                           subscribed_topic_names=subscribed,
                                           client_host=rng.choice(("/127.0.0.1", "/10.0.0.2")))
        elif kind == "steady":
            if known is None:
                event = sg.ShareGroupHeartbeat(group, member, 0, subscribed_topic_names=rng.choice(
                    (("t1",), ("t1", "t2"), ("t2", "t3"))))
            else:
                event = sg.ShareGroupHeartbeat(group, member, known.member_epoch)
        elif kind == "rejoin":
            current = [m for g in view.groups if g.group_id == group for m in g.members]
            if not current:
                continue
            m = rng.choice(current)
            event = sg.ShareGroupHeartbeat(group, m.member_id, 0, subscribed_topic_names=rng.choice(
                (None, ("t1",), ("t1", "t2"))) or m.subscribed_topic_names)
        elif kind == "persister":
            pending = view.pending_initialize
            event = sg.PersisterAnswer(rng.choice(pending) if pending else 0,
                                       rng.choice((Errors.NONE, Errors.NONE, Errors.UNKNOWN_SERVER_ERROR)))
        elif kind == "clock":
            deadlines = sorted({m.session_deadline_ms for g in view.groups for m in g.members
                                if m.session_deadline_ms is not None})
            event = sg.AdvanceClock(rng.choice([view.now_ms + 1_000, view.now_ms + 31_000, *deadlines[:2]]))
        elif kind == "metadata":
            name = rng.choice(("t1", "t2", "t3"))
            change = rng.choice(("grow", "delete", "recreate", "racks"))
            topic = topics.get(name)
            if change == "delete":
                topics.pop(name, None)
            elif change == "recreate" or topic is None:
                generation += 1
                topics[name] = _sg_topic(name, generation, rng.randint(1, 4))
            elif change == "grow":
                topics[name] = _sg_topic(name, int(topic.topic_id[-12:-6]), min(topic.partitions + 1, 6))
            else:
                topics[name] = _sg_topic(name, int(topic.topic_id[-12:-6]), topic.partitions,
                                         tuple(("r1", "r2") for _ in range(topic.partitions)))
            event = sg.UpdateMetadata(tuple(topics[n] for n in sorted(topics)))
        elif kind == "delete":
            event = sg.DeleteGroups((group,))
        elif kind == "configure":
            event = sg.SetGroupConfig(group, rng.choice((None, 45_000, 50_000, 30_000)),
                                      rng.choice((None, 5_000, 8_000)))
        else:
            event = sg.Restart()
        shadow.send(event)
    return RunInput(config=config, topics=start, start_ms=0, events=tuple(shadow.events))


# ---------------------------------------------------------------------------------------------
# classic_group: the classic group coordinator
# ---------------------------------------------------------------------------------------------

def _classic_group(rng: random.Random, length: int) -> Any:
    from groupspec.conformance.classic_group_json import RunInput
    from groupspec.spec import classic_group as spec
    from groupspec.types import classic_group as c

    config = c.ClassicConfig(initial_rebalance_delay_ms=3_000, offsets_retention_ms=3_600_000,
                             offsets_retention_check_interval_ms=600_000, max_size=4)
    shadow = Shadow(spec.step, spec.view, spec.initial_state(config))
    protocols = ((c.Protocol("range", b"r1"),), (c.Protocol("range", b"r2"),),
                 (c.Protocol("roundrobin", b"x"), c.Protocol("range", b"r1")),
                 (c.Protocol("roundrobin", b"x"),))
    known: dict[str, list[str]] = {"g1": [], "g2": []}
    uuids = 0

    def group_view(group_id: str) -> Any:
        return next((g for g in shadow.view().groups if g.group_id == group_id), None)

    def learn() -> None:
        """Remember every member id the groups held, so later requests reuse them (or go stale)."""
        for gv in shadow.view().groups:
            ids = known.setdefault(gv.group_id, [])
            for member_id in (*gv.pending_members, *(m.member_id for m in gv.members)):
                if member_id not in ids:
                    ids.append(member_id)

    def some_member(group_id: str) -> str:
        return rng.choice([*known.get(group_id, [])[-6:], "", "ghost"])

    def generation(group_id: str) -> int:
        g = group_view(group_id)
        now = g.generation_id if g else 0
        return rng.choice((now, now, now, now - 1, now + 1, -1))

    def identity(group_id: str) -> tuple[str, str | None]:
        g = group_view(group_id)
        if g is not None and g.members and rng.random() < 0.6:
            m = rng.choice(g.members)
            return m.member_id, m.group_instance_id
        return some_member(group_id), rng.choice((None, None, None, "i1", "i2"))

    def commit_topics() -> tuple[Any, ...]:
        offset = rng.randint(0, 100)
        metadata = rng.choice(("", "m", None))
        parts = rng.sample((0, 1, 2), rng.randint(1, 2))
        return (c.CommitTopic(rng.choice(("orders", "audit")),
                              tuple(c.CommitPartition(p, offset + p, -1, metadata) for p in parts)),)

    def settle(group_id: str) -> Any:
        """The step that moves a rebalance on, as well-behaved clients and time would: a pending
        member joins with its issued id, a member the join awaits rejoins, the clock reaches
        the join deadline, the leader syncs. Random requests alone left groups in
        PreparingRebalance: 1 run in 60 reached Stable before this step was added."""
        nonlocal uuids
        g = group_view(group_id)
        if g is None or g.state in ("Empty", "Dead"):
            uuids += 1
            return c.JoinGroup(group_id, "", None, 10_000, 20_000, "consumer", protocols[0], "c1",
                               version=9, new_member_uuid=f"uuid-{uuids:04d}")
        if g.pending_members:
            return c.JoinGroup(group_id, g.pending_members[0], None, 10_000, 20_000, "consumer",
                               protocols[0], "c1", version=9)
        if g.state == "PreparingRebalance":
            awaited = [m for m in g.members if not m.awaiting_join]
            if awaited and rng.random() < 0.5:
                m = awaited[0]
                return c.JoinGroup(group_id, m.member_id, m.group_instance_id, m.session_timeout_ms,
                                   m.rebalance_timeout_ms, "consumer", protocols[0], m.client_id, version=9)
            now = shadow.view().now_ms
            due = sorted(d for _, d in g.timers if d >= now)
            return c.AdvanceClock(due[0] if due else now + config.initial_rebalance_delay_ms)
        if g.state == "CompletingRebalance" and g.members:
            pending = [m for m in g.members if m.member_id in g.pending_sync] or list(g.members)
            leader = next((m for m in pending if m.member_id == g.leader_id), pending[0])
            assignments = tuple(c.SyncAssignment(m.member_id, f"a-{m.member_id}".encode())
                                for m in g.members) if leader.member_id == g.leader_id else ()
            return c.SyncGroup(group_id, g.generation_id, leader.member_id, leader.group_instance_id,
                               "consumer", g.protocol_name, assignments)
        m = rng.choice(g.members) if g.members else None
        if m is None:
            return c.ListGroups(())
        return c.Heartbeat(group_id, g.generation_id, m.member_id, m.group_instance_id)

    while shadow.more(length):
        if rng.random() < 0.3:
            if shadow.send(settle(rng.choice(("g1", "g1", "g2")))):
                learn()
            continue
        kind = rng.choices(("join", "rejoin_pending", "sync", "leader_sync", "heartbeat", "leave", "commit",
                            "txn_commit", "txn_marker", "fetch", "offset_delete", "delete", "describe",
                            "list", "clock", "restart", "load"),
                           (5, 3, 2, 3, 4, 2, 3, 1, 1, 1, 1, 1, 1, 1, 4, 1, 1))[0]
        group_id = rng.choice(("g1", "g1", "g2"))
        g = group_view(group_id)
        event: Any
        if kind in ("join", "rejoin_pending"):
            uuids += 1
            member = some_member(group_id)
            if kind == "rejoin_pending" and g is not None and g.pending_members:
                member = rng.choice(g.pending_members)
            elif kind == "rejoin_pending" and g is not None and g.members:
                member = rng.choice(g.members).member_id
            instance = rng.choice((None, None, None, "i1", "i2"))
            # Version 3 cannot carry an instance id on the wire (static membership came in v5),
            # so such a request could not reach Kafka's coordinator.
            version = 9 if instance is not None else rng.choice((9, 9, 3))
            event = c.JoinGroup(group_id, member, instance,
                                rng.choice((10_000, 10_000, 30_000, 5_000)),
                                rng.choice((10_000, 20_000, 60_000)),
                                "consumer", rng.choice(protocols), rng.choice(("c1", "c2")),
                                version=version, new_member_uuid=f"uuid-{uuids:04d}")
        elif kind == "leader_sync" and g is not None and g.members:
            leader = next((m for m in g.members if m.member_id == g.leader_id), g.members[0])
            target = leader if rng.random() < 0.6 else rng.choice(g.members)
            assignments = tuple(c.SyncAssignment(m.member_id, f"a-{m.member_id}".encode()) for m in g.members)
            event = c.SyncGroup(group_id, g.generation_id, target.member_id, target.group_instance_id,
                                "consumer", g.protocol_name or "range",
                                assignments if target.member_id == g.leader_id else ())
        elif kind in ("sync", "leader_sync"):
            members = [m.member_id for m in g.members] if g else []
            assignments = tuple(c.SyncAssignment(m, f"a-{m}".encode()) for m in members) \
                if rng.random() < 0.5 else ()
            protocol_name = rng.choice((None, "range", "roundrobin"))
            member_id, instance_id = identity(group_id)
            event = c.SyncGroup(group_id, generation(group_id), member_id, instance_id,
                                "consumer" if protocol_name else None, protocol_name, assignments)
        elif kind == "heartbeat":
            member_id, instance_id = identity(group_id)
            event = c.Heartbeat(group_id, generation(group_id), member_id, instance_id)
        elif kind == "leave":
            event = c.LeaveGroup(group_id, tuple(c.MemberIdentity(*identity(group_id))
                                                 for _ in range(rng.randint(1, 2))))
        elif kind == "commit":
            if rng.random() < 0.4:
                event = c.OffsetCommit(group_id, -1, "", None, rng.choice((-1, 1_000_000)), commit_topics(),
                                       rng.choice((9, 8, 4)))
            else:
                instance = rng.choice((None, "i1"))
                version = rng.choice((9, 8)) if instance else rng.choice((9, 8, 4))  # v7+ carry it
                event = c.OffsetCommit(group_id, generation(group_id), some_member(group_id), instance, -1,
                                       commit_topics(), version)
        elif kind == "txn_commit":
            producer = rng.choice((7, 8))
            anonymous = rng.random() < 0.5
            event = c.TxnOffsetCommit(f"tx-{producer}", producer, 0, group_id,
                                      -1 if anonymous else generation(group_id),
                                      "" if anonymous else some_member(group_id), None, commit_topics())
        elif kind == "txn_marker":
            event = c.TxnMarker(rng.choice((7, 8)), 0, rng.random() < 0.5)
        elif kind == "fetch":
            event = c.OffsetFetch(rng.choice(("g1", "g2", "nobody")), None if rng.random() < 0.5 else (
                c.FetchTopic("orders", (0, 1)), c.FetchTopic("audit", (2,))), rng.random() < 0.5)
        elif kind == "offset_delete":
            event = c.OffsetDelete(group_id, (c.FetchTopic("orders", (0, 1, 2)),))
        elif kind == "delete":
            event = c.DeleteGroups((rng.choice(("g1", "g2", "nobody")),))
        elif kind == "describe":
            event = c.DescribeGroups((rng.choice(("g1", "g2", "nobody")),))
        elif kind == "list":
            event = c.ListGroups(rng.choice(((), ("Stable",), ("Empty", "PreparingRebalance"))))
        elif kind == "clock":
            view = shadow.view()
            deadlines = sorted({d for gv in view.groups for _, d in gv.timers if d >= view.now_ms})
            steps = (0, 1, 999, 3_000, 6_000, 10_000, 45_000, 300_000, 600_000)
            event = c.AdvanceClock(rng.choice([view.now_ms + s for s in steps] + deadlines[:3] * 3))
        elif kind == "restart":
            event = c.Restart()
        else:
            event = rng.choice((c.BeginLoad(), c.CompleteLoad()))
        if shadow.send(event):
            learn()
    return RunInput(config=config, start_ms=0, events=tuple(shadow.events))


# ---------------------------------------------------------------------------------------------
# share_consumer: the share consumer's membership (client side)
# ---------------------------------------------------------------------------------------------

def _share_consumer(rng: random.Random, length: int) -> Any:
    from groupspec.conformance.share_consumer_json import RunInput
    from groupspec.spec import share_consumer as spec
    from groupspec.types import share_consumer as sc
    from groupspec.types.errors import Errors
    from groupspec.types.share_group import ShareGroupHeartbeatResponse, TopicPartitions

    config = sc.ShareConsumerConfig(member_id="m", rack_id=rng.choice((None, "r1")),
                                    max_poll_interval_ms=rng.choice((20_000, 300_000)))
    shadow = Shadow(lambda state, event, _: spec.step(state, event), spec.view, spec.initial_state(config))
    errors = (Errors.NONE,) * 6 + (Errors.FENCED_MEMBER_EPOCH, Errors.UNKNOWN_MEMBER_ID,
                                   Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE,
                                   Errors.COORDINATOR_LOAD_IN_PROGRESS,
                                   Errors.TOPIC_AUTHORIZATION_FAILED, Errors.GROUP_MAX_SIZE_REACHED,
                                   Errors.UNKNOWN_SERVER_ERROR)
    # Assignments name topics by id (Kafka's client reads them as Uuids).
    ta, tb = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
    assignments = (None, None, (), (TopicPartitions(ta, (0,)),), (TopicPartitions(ta, (0, 1)),),
                   (TopicPartitions(ta, (1,)), TopicPartitions(tb, (0,))))
    while shadow.more(length):
        view = shadow.view()
        kind = rng.choices(("subscribe", "poll", "unsubscribe", "tick", "answer", "fail"),
                           (2, 3, 1, 4, 6 if view.in_flight else 0, 1 if view.in_flight else 0))[0]
        event: Any
        if kind == "subscribe":
            event = sc.Subscribe(rng.choice(((), ("a",), ("a", "b"), ("b",))))
        elif kind == "poll":
            event = sc.Poll()
        elif kind == "unsubscribe":
            event = sc.Unsubscribe()
        elif kind == "tick":
            to = view.now_ms + rng.choice((1, 99, 100, 4_999, 5_000, 8_000, 20_000))
            expiry = shadow.state.last_poll + config.max_poll_interval_ms
            # a heartbeat and then the poll timer's leave could both go in one Tick, and an
            # output holds one request (Kafka's adapter answers unsupported): the clock stops
            # just short of the leave first
            if view.now_ms + 1 < expiry <= to and (not shadow.send(sc.Tick(expiry - 1))
                                                   or not shadow.more(length)):
                continue
            event = sc.Tick(to)
        elif kind == "answer":
            bump = rng.choice((0, 0, 1, 2))
            epoch = -1 if view.state is sc.MemberState.UNSUBSCRIBED and bump == 2 \
                else max(view.member_epoch, 0) + bump
            event = sc.HeartbeatAnswered(ShareGroupHeartbeatResponse(
                rng.choice(errors), "m", epoch, rng.choice((5_000, 8_000)), rng.choice(assignments)))
        else:
            event = sc.HeartbeatFailed(rng.choice((True, True, False)))
        shadow.send(event)
    return RunInput(config=config, start_ms=0, events=tuple(shadow.events))


# ---------------------------------------------------------------------------------------------
# classic_consumer: the classic consumer's client side
# ---------------------------------------------------------------------------------------------

#: The generator's kinds of event that are the application's calls (an OffsetFetch answer
#: stands for a poll's fetch).
CC_APPLICATION = frozenset({"subscribe", "assign", "unsubscribe", "poll", "poll_answer", "commit", "fetched",
                            "commit_async", "consumed", "close"})
#: The share of classic_consumer runs whose answers need not match what the consumer asked
#: (see :func:`_classic_consumer`); Kafka's client cannot be driven through most of them.
CC_ODD_SHARE = 0.1


def _classic_consumer(rng: random.Random, length: int) -> Any:
    """Most runs (all but ``CC_ODD_SHARE``) answer only what the consumer asked, so that Kafka's
    own client (the ``kafka`` target, which refuses a run no broker could send as *unsupported*)
    can be driven through them: the cluster's metadata comes first (Kafka's adapter and
    groupspec then know the same topics); a SyncGroup's or a leader's assignment names only the
    topics the member joined with (partitions as far as its metadata knows them); an
    OffsetFetch answer comes only while some assigned partition awaits its starting position,
    and names exactly those partitions; an OffsetCommit answer names exactly the partitions of
    the oldest commit in flight; a JoinGroup or SyncGroup answer comes while a poll waits for it
    (after another call of the application's that poll has returned, and Kafka's adapter, which
    continues a poll on such an answer, runs its first steps again, finished commit callbacks
    among them, where groupspec only takes the answer); and while the application waits in commitSync
    (or in close()'s commit) it makes no call, only answers and the clock move. Which partitions await a
    position is followed here as Kafka's SubscriptionState keeps it (groupspec's state has no
    such set): a partition newly in ``owned`` awaits one until records are consumed from it or
    a fetch answer gives it an offset or a reset (under ``auto.offset.reset=none`` a missing
    offset leaves it waiting); leaving ``owned`` forgets it.

    The other runs (``odd``) keep the older, looser answers: offsets fetched for partitions
    nobody asked about, commit answers naming partitions the commit did not carry, assignments
    naming topics outside the subscription, calls made while a commitSync waits, and no
    metadata to start with. They are meaningful for spec against impl, which must agree on how
    such input is read (which partitions a fetch answer resets, that a commit answer's
    strangers change nothing, the rejoin an unsubscribed topic asks for, a call the model
    allows where a real application would still be blocked); Kafka's adapter answers
    *unsupported* to the first two, and takes the others.
    """
    from groupspec.conformance.classic_consumer_json import RunInput
    from groupspec.spec import classic_consumer as spec
    from groupspec.types import classic_consumer as cc
    from groupspec.types import classic_group as c
    from groupspec.types.errors import Errors
    from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

    CC_CALLS = (cc.Subscribe, cc.SubscribePattern, cc.Assign, cc.Unsubscribe, cc.CommitSync, cc.CommitAsync,
                cc.Consumed, cc.Close)
    cooperative = rng.random() < 0.5
    protocol = cc.RebalanceProtocol.COOPERATIVE if cooperative else cc.RebalanceProtocol.EAGER
    config = cc.Config(assignors=("cooperative-sticky",) if cooperative else ("range",), protocol=protocol,
                       auto_offset_reset=rng.choice(("earliest", "latest", "none")),
                       enable_auto_commit=rng.random() < 0.5, auto_commit_interval_ms=4_000)
    # One run in five may assign() (which locks subscribe() out); the rest subscribe, so that
    # most runs reach a stable group.
    assigning = rng.random() < 0.2
    odd = rng.random() < CC_ODD_SHARE
    shadow = Shadow(lambda state, event, _: spec.step(state, event), lambda state: state.view(),
                    spec.initial(config))
    all_partitions = tuple((t, p) for t in ("t", "u") for p in range(2))
    errors = (Errors.NONE,) * 16 + (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION,
                                    Errors.REBALANCE_IN_PROGRESS, Errors.MEMBER_ID_REQUIRED,
                                    Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE,
                                    Errors.FENCED_INSTANCE_ID, Errors.GROUP_AUTHORIZATION_FAILED)
    fetch_errors = (Errors.NONE,) * 6 + (Errors.UNSTABLE_OFFSET_COMMIT, Errors.UNKNOWN_TOPIC_OR_PARTITION,
                                         Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR,
                                         Errors.GROUP_AUTHORIZATION_FAILED, Errors.REQUEST_TIMED_OUT)
    now = 0
    generation = 0
    #: Owned partitions awaiting a starting position (Kafka's INITIALIZING fetch state).
    fresh: set[tuple[str, int]] = set()

    def partitions(most: int) -> list[tuple[str, int]]:
        return rng.sample(all_partitions, rng.randint(0, most))

    def granted(most: int) -> list[tuple[str, int]]:
        """Partitions a leader could hand this member: of the topics it joined with, numbered
        within the metadata it has (two partitions for a topic it knows nothing of)."""
        if odd:
            return partitions(most)
        topics = shadow.state.joined_subscription or shadow.state.subscription
        counts = {m.name: m.partitions for m in shadow.state.metadata}
        pool = [(t, p) for t in sorted(topics) for p in range(counts.get(t) or 2)]
        return rng.sample(pool, rng.randint(0, min(most, len(pool))))

    def assignment(held: list[tuple[str, int]]) -> Any:
        return ConsumerProtocolAssignment(tuple(
            ConsumerProtocolAssignment.TopicPartition(t, tuple(sorted(p for u, p in held if u == t)))
            for t in sorted({t for t, _ in held})))

    # a heartbeat's answer may carry any error the thread handles
    heartbeat_errors = (*errors, Errors.UNKNOWN_SERVER_ERROR)
    commit_errors = (Errors.NONE,) * 6 + (Errors.REBALANCE_IN_PROGRESS, Errors.UNKNOWN_MEMBER_ID,
                                          Errors.ILLEGAL_GENERATION, Errors.COORDINATOR_NOT_AVAILABLE,
                                          Errors.TOPIC_AUTHORIZATION_FAILED, Errors.FENCED_INSTANCE_ID,
                                          Errors.REQUEST_TIMED_OUT)

    polling = [False]  # whether the application's last call was a poll, still in the join loop

    def send(event: Any) -> bool:
        """Step the shadow and follow which owned partitions await a starting position, and
        whether the application still waits in a poll."""
        before = set(shadow.state.owned)
        taken = shadow.send(event)
        owned = set(shadow.state.owned)
        if isinstance(event, cc.Poll):
            polling[0] = taken
        elif isinstance(event, CC_CALLS):
            polling[0] = False
        if taken and isinstance(event, cc.Consumed):
            fresh.difference_update(tp for tp, _ in event.offsets)
        if taken and isinstance(event, cc.OffsetFetchAnswered):
            response = event.response
            if response.error is Errors.NONE and all(p.error is Errors.NONE for t in response.topics
                                                     for p in t.partitions):
                fresh.difference_update(
                    (t.name, p.partition) for t in response.topics for p in t.partitions
                    if p.committed_offset >= 0 or config.auto_offset_reset != "none")
        fresh.update(owned - before)
        fresh.intersection_update(owned)
        return taken

    def blocked() -> bool:
        """Whether the application waits in commitSync (or close()'s commit): it makes no call
        then, so a realisable run sends only answers and lets time pass."""
        return not odd and any(p.kind in (spec.Kind.SYNC, spec.Kind.CLOSE) for p in shadow.state.commits)

    def led() -> Any:
        """A JoinGroup answer making the member leader, with the group's subscriptions: the
        leader runs the assignor over them and the metadata it has."""
        nonlocal generation
        generation += 1
        member = shadow.state.member_id or "m1"
        topics = shadow.state.subscription or ("t",)
        members = tuple(cc.JoinedMember(m, ConsumerProtocolSubscription(topics=topics, generation_id=-1))
                        for m in (member, "o1")[: rng.randint(1, 2)])
        response = c.JoinGroupResponse(Errors.NONE, generation_id=generation, protocol_type="consumer",
                                       protocol_name=config.assignors[0], leader=member, member_id=member)
        return cc.JoinAnswered(response, members=members)

    def answer() -> Any:
        """An answer to what is in flight (with nothing in flight, a stray join answer)."""
        nonlocal generation
        flight = shadow.state.in_flight
        error = rng.choice(errors)
        if flight == "join" and rng.random() < 0.3:
            return led()
        if flight == "sync":
            # the protocol the member offered: Kafka refuses any other (IllegalStateException)
            return cc.SyncAnswered(c.SyncGroupResponse(error, "consumer", config.assignors[0]),
                                   assignment(granted(4)))
        if flight is None and shadow.state.heartbeats:  # the oldest heartbeat's answer
            return cc.HeartbeatAnswered(c.HeartbeatResponse(rng.choice(heartbeat_errors)))
        generation += 1
        member = shadow.state.member_id or "m1"
        return cc.JoinAnswered(
            c.JoinGroupResponse(error, generation_id=generation, protocol_type="consumer",
                                protocol_name=config.assignors[0],
                                leader=member if rng.random() < 0.5 else "other",
                                member_id=member),
            ((member, assignment(granted(4))),))

    def committed() -> Any:
        """The oldest commit in flight answered, partition by partition (mostly one error for
        all); an odd run may answer partitions of its own choosing."""
        if (odd and rng.random() < 0.5) or not shadow.state.commits:
            if not odd:
                return None
            results = tuple(c.PartitionResult(p, rng.choice(commit_errors)) for p in range(rng.randint(1, 2)))
            return cc.OffsetCommitAnswered(c.OffsetCommitResponse((c.TopicResult("t", results),)))
        carried = [tp for tp, _ in shadow.state.commits[0].offsets]
        common = rng.choice(commit_errors)
        topics = tuple(c.TopicResult(t, tuple(
            c.PartitionResult(p, common if rng.random() < 0.7 else rng.choice(commit_errors))
            for u, p in carried if u == t)) for t in sorted({t for t, _ in carried}))
        return cc.OffsetCommitAnswered(c.OffsetCommitResponse(topics))

    def fetched() -> Any:
        """The answer to the OffsetFetch a poll sends for the partitions awaiting a position
        (none goes while no partition awaits one); an odd run may name any partitions."""
        if odd and rng.random() < 0.5:
            asked = partitions(3)
        elif fresh:
            asked = sorted(fresh)
        else:
            return None
        offsets = [(tp, rng.randint(-1, 5), rng.choice(fetch_errors) if rng.random() < 0.3 else Errors.NONE)
                   for tp in asked]
        topics = tuple(c.FetchedTopic(t, tuple(c.FetchedPartition(p, o, error=e)
                                               for (u, p), o, e in offsets if u == t))
                       for t in sorted({t for (t, _), _, _ in offsets}))
        return cc.OffsetFetchAnswered(c.OffsetFetchResponse(rng.choice(fetch_errors), topics))

    def consumed() -> Any:
        """Records returned to the application: from owned partitions, mostly."""
        owned = list(shadow.state.owned)
        chosen = rng.sample(owned, rng.randint(1, min(3, len(owned)))) if owned and rng.random() < 0.8 \
            else partitions(3)
        return cc.Consumed(tuple((tp, rng.randint(0, 20)) for tp in chosen))

    if not odd:
        # The cluster as it stands before anything happens, as both sides must know it: without
        # a Metadata event Kafka's adapter makes up a cluster of the topics the run names,
        # groupspec a cluster of none, and a leader would assign differently.
        send(cc.Metadata(tuple(cc.TopicMetadata(t, rng.randint(1, 3)) for t in ("t", "u"))))
    while shadow.more(length):
        kind = rng.choices(("subscribe", "assign", "unsubscribe", "poll", "poll_answer", "answer", "commit",
                            "fetched", "metadata", "commit_async", "consumed", "committed", "close", "tick"),
                           (2, 1, 1, 3, 6, 3, 1, 1, 1, 1, 1, 1, 0.1, 1))[0]
        if kind in CC_APPLICATION and blocked():
            kind = rng.choice(("committed", "committed", "tick"))
        if kind == "answer" and not odd and not polling[0] and shadow.state.in_flight in ("join", "sync"):
            # a JoinGroup or SyncGroup answer comes while a poll waits in the join loop: after a
            # call the application made since, it is read by a poll of its own
            kind = "poll_answer"
        event: Any
        if kind == "subscribe":
            event = cc.Subscribe(tuple(rng.sample(("t", "u"), rng.randint(1, 2))))
        elif kind == "assign":
            event = cc.Assign(tuple(partitions(3)) if assigning else ())
        elif kind == "unsubscribe":
            event = cc.Unsubscribe()
        elif kind in ("poll", "poll_answer"):
            now += rng.choice((0, 1, 1_000, 3_000, 10_000) if kind == "poll" else (0, 3_000))
            if kind == "poll_answer":
                if send(cc.Poll(now)) and len(shadow.events) < length:
                    send(answer())
                continue
            event = cc.Poll(now)
        elif kind == "answer":
            event = answer()
        elif kind == "commit":
            event = cc.CommitSync(tuple((tp, rng.randint(0, 9)) for tp in partitions(2)))
        elif kind == "commit_async":
            event = cc.CommitAsync(tuple((tp, rng.randint(0, 9)) for tp in partitions(2)))
        elif kind == "consumed":
            event = consumed()
        elif kind == "metadata":
            event = cc.Metadata(tuple(cc.TopicMetadata(t, rng.randint(0, 3))
                                      for t in rng.sample(("t", "u"), rng.randint(0, 2))))
        elif kind == "committed":
            event = committed()
        elif kind == "close":
            event = cc.Close(rng.choice(cc.CLOSE_OPERATIONS))
        elif kind == "tick":  # time passes without a poll: the heartbeat thread's timers run
            now += rng.choice((1, 100, 3_000, 12_000, 40_000))
            event = cc.Tick(now)
        else:
            event = fetched()
        if event is None:  # nothing asked for such an answer
            event = cc.Poll(now)
        send(event)
    return RunInput(config=config, events=tuple(shadow.events))


# ---------------------------------------------------------------------------------------------
# share_delivery: one share consumer's delivery path (poll, acknowledge, commit, close)
# ---------------------------------------------------------------------------------------------

def _share_delivery(rng: random.Random, length: int) -> Any:
    """As the stateful test drives it (tests/stateful/test_share_delivery_stateful.py): answers
    only for the request in flight (mostly), acquired offsets laid out after each partition's
    last one (a broker acquires an offset for this consumer once), and acknowledgements mostly
    of records the last poll returned, often all of them in a row, as explicit mode's loop does."""
    from groupspec.conformance.share_delivery_json import RunInput
    from groupspec.spec import share_delivery as spec
    from groupspec.types import share_delivery as sd
    from groupspec.types.errors import Errors

    partitions = (sd.Partition("a", 0), sd.Partition("a", 1), sd.Partition("b", 0))
    types = (sd.AcknowledgeType.ACCEPT, sd.AcknowledgeType.RELEASE, sd.AcknowledgeType.REJECT,
             sd.AcknowledgeType.RENEW)
    fetch_errors = (Errors.NONE,) * 6 + (Errors.SHARE_SESSION_NOT_FOUND, Errors.INVALID_SHARE_SESSION_EPOCH,
                                         Errors.SHARE_SESSION_LIMIT_REACHED, Errors.UNKNOWN_SERVER_ERROR)
    ack_errors = (Errors.NONE,) * 4 + (Errors.INVALID_RECORD_STATE, Errors.NOT_LEADER_OR_FOLLOWER)
    acknowledge_errors = (Errors.NONE,) * 6 + (Errors.INVALID_REQUEST, Errors.GROUP_AUTHORIZATION_FAILED)
    config = sd.DeliveryConfig(rng.choice(tuple(sd.AcknowledgementMode)), rng.choice((1, 3, 500)))
    shadow = Shadow(lambda state, event, _k: spec.step(state, event), spec.view, spec.initial_state(config))
    next_offset = dict.fromkeys(partitions, 0)

    def some(k: int | None = None) -> tuple[Any, ...]:
        """``k`` of the partitions (by default at least one), in a random order."""
        return tuple(rng.sample(partitions, rng.randint(1, len(partitions)) if k is None else k))

    shadow.send(sd.Assign(some()))
    while shadow.more(length):
        view = shadow.view()
        held = view.delivered
        kind = rng.choices(("assign", "poll", "ack", "ack_all", "sync", "async", "close", "answer", "fail",
                            "stray"), (1, 6, 4, 3, 2, 2, 1, 8, 1, 1))[0]
        event: Any
        if kind == "answer" and view.in_flight is None:
            kind = "poll"
        if kind == "assign":
            event = sd.Assign(some(rng.randint(0, len(partitions))))
        elif kind == "poll":
            event = sd.Poll()
        elif kind == "ack":
            if held and rng.random() < 0.85:
                r = rng.choice(held)
                event = sd.Acknowledge(r.topic, r.partition, r.offset, rng.choice(types))
            else:
                event = sd.Acknowledge("a", 0, rng.randint(0, 40), rng.choice(types))
        elif kind == "ack_all" and held:
            first, last = rng.choice(types), rng.choice((None, *types))
            for k, r in enumerate(held):
                if not shadow.more(length):
                    break
                shadow.send(sd.Acknowledge(r.topic, r.partition, r.offset,
                                           last if last is not None and k == len(held) - 1 else first))
            continue
        elif kind == "ack_all":
            event = sd.Poll()
        elif kind == "sync":
            event = sd.CommitSync()
        elif kind == "async":
            event = sd.CommitAsync()
        elif kind == "close":
            event = sd.Close()
        elif kind == "answer" and view.in_flight is sd.Request.SHARE_FETCH:
            parts = []
            for p in rng.sample(partitions, rng.randint(0, len(partitions))):
                acquired = []
                for _ in range(rng.randint(0, 2)):
                    lo = next_offset[p] + rng.randint(0, 2)
                    hi = lo + rng.choice((0, 1, 2, 9, 10, 11, 12))
                    acquired.append(sd.AcquiredRecords(lo, hi, rng.randint(1, 4)))
                    next_offset[p] = hi + 1
                parts.append(sd.FetchPartition(p.topic, p.partition, tuple(acquired), rng.choice(ack_errors)))
            event = sd.FetchAnswered(rng.choice(fetch_errors), tuple(parts))
        elif kind == "answer":
            event = sd.AcknowledgeAnswered(rng.choice(acknowledge_errors), tuple(
                sd.AcknowledgePartition(p.topic, p.partition, rng.choice(ack_errors)) for p in some(
                    rng.randint(0, len(partitions)))))
        elif kind == "fail" and view.in_flight is not None:
            event = sd.RequestFailed()
        else:
            event = sd.FetchAnswered()  # an answer for no request in flight: changes nothing
        shadow.send(event)
    return RunInput(config=config, events=tuple(shadow.events))


def _cc_setup(doc: Mapping[str, Any]) -> int:
    """A realisable classic_consumer run's first Metadata event: without it Kafka's adapter
    makes up a cluster of every topic the run names where groupspec knows none, so a run shrunk
    without it shows that difference of conventions instead of the one found."""
    events = doc.get("events") or []
    return 1 if events and isinstance(events[0], dict) and events[0].get("type") == "Metadata" else 0


#: Per machine, how many of a run's first events set it up and are kept when it is shrunk.
SETUP: dict[str, Callable[[Mapping[str, Any]], int]] = {"classic_consumer": _cc_setup}


GENERATORS: dict[str, Callable[[random.Random, int], Any]] = {
    "classic_consumer": _classic_consumer,
    "classic_group": _classic_group,
    "share_consumer": _share_consumer,
    "share_delivery": _share_delivery,
    "share_group": _share_group,
    "share_partition": _share_partition,
    "share_state": _share_state,
}


def generate(machine: str, seed: int, index: int, length: int) -> Any:
    """Run ``index`` of ``seed`` for ``machine``: its ``RunInput`` (the machine's JSON form's
    dataclass), at most ``length`` events."""
    try:
        make = GENERATORS[machine]
    except KeyError:
        raise InputError("--machine", f"no fuzz generator for {machine!r} (have: "
                         f"{', '.join(FUZZ_MACHINES)})") from None
    return make(rng_for(machine, seed, index), length)

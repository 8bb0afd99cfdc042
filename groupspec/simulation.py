"""A deterministic end-to-end simulation of a share group: consumers talking to the coordinator.

Why it exists: the coordinator and the client are each checked against their spec, but the
protocol's promise is about them together: after members come and go, messages are delayed or
lost and the persister is slow, the group settles on one assignment that every member holds
and that covers every subscribed partition. This module plays that out on one injected clock,
with every random choice drawn from a seeded generator, so a run repeats exactly.

The world: one coordinator (the spec or the implementation behind the same events), N consumer
membership machines (``ShareConsumerMembership``), a network that delivers each heartbeat and
each answer after a random delay or drops it (the sender then sees a retriable failure after
``request_timeout_ms``), and the share coordinator (``groupspec.impl.share_state``) answering
each initialize request after a random delay (:func:`initialize_share_state`), so answers to
requests issued close together can arrive in either order, and some fail.
Every consumer polls every ``poll_interval_ms``. A plan schedules members joining, leaving
cleanly, or crashing (falling silent until their session expires).
"""

from __future__ import annotations

import functools
import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from groupspec.churn import Churn, check_plan
from groupspec.impl.share_consumer import ShareConsumerMembership
from groupspec.impl.share_state import ShareCoordinator
from groupspec.types import InputError
from groupspec.types.errors import Errors
from groupspec.types.share_consumer import (
    ClientOutput,
    HeartbeatAnswered,
    HeartbeatFailed,
    MemberState,
    Poll,
    ShareConsumerConfig,
    Subscribe,
    Tick,
    Unsubscribe,
)
from groupspec.types.share_group import (
    AdvanceClock,
    InitializeRequest,
    Output,
    PersisterAnswer,
    ShareCoordinatorView,
    ShareGroupConfig,
    ShareGroupEvent,
    ShareGroupHeartbeat,
    ShareGroupHeartbeatResponse,
    TopicMetadata,
)
from groupspec.types.share_state import InitializeShareGroupState, InitializeShareGroupStateResponse
from groupspec.types.share_state import TopicMetadata as StateTopic


class Coordinator(Protocol):
    def handle(self, event: ShareGroupEvent, index: int) -> Output: ...

    def view(self) -> ShareCoordinatorView: ...


def initialize_share_state(coordinator: ShareCoordinator, request: InitializeRequest, index: int) -> Errors:
    """The share group coordinator's InitializeShareGroupState, as Kafka's persister carries it to
    the share coordinator: one request a partition, with the state epoch it gives and no start
    offset (the partition then starts where its reset policy says). The request fails as a whole
    when one partition fails, so the first error is the answer; the others are still initialized."""
    first = Errors.NONE
    for tp in request.topics:
        for partition in tp.partitions:
            out = coordinator.handle(InitializeShareGroupState(request.group_id, tp.topic_id, partition,
                                                               request.state_epoch), index)
            answer = out.answers[0].response
            assert isinstance(answer, InitializeShareGroupStateResponse)
            if first is Errors.NONE:
                first = answer.error
    return first


class SpecCoordinator:
    """The spec behind the implementation's interface."""

    def __init__(self, config: ShareGroupConfig, topics: tuple[TopicMetadata, ...]) -> None:
        from groupspec.spec import share_group as spec

        self._spec = spec
        self._state = spec.initial_state(config, topics)

    def handle(self, event: ShareGroupEvent, index: int) -> Output:
        self._state, out = self._spec.step(self._state, event, index)
        return out

    def view(self) -> ShareCoordinatorView:
        return self._spec.view(self._state)


def make_coordinator(layer: str, config: ShareGroupConfig, topics: tuple[TopicMetadata, ...]) -> Coordinator:
    if layer == "spec":
        return SpecCoordinator(config, topics)
    from groupspec.impl.share_group import ShareGroupCoordinator

    return ShareGroupCoordinator(config, topics)


@dataclass(frozen=True)
class SimConfig:
    topics: tuple[TopicMetadata, ...]
    subscription: tuple[str, ...]
    plan: tuple[Churn, ...]
    seed: int = 0
    group_id: str = "g"
    min_delay_ms: int = 1
    max_delay_ms: int = 50
    #: Probability that one message (a heartbeat or its answer) is lost, while churn lasts.
    loss: float = 0.0
    request_timeout_ms: int = 3_000
    poll_interval_ms: int = 1_000
    #: Each initialize request is answered after a delay drawn from this range (so answers to
    #: requests issued close together may come back in either order) ...
    persister_min_delay_ms: int = 20
    persister_delay_ms: int = 20
    #: ... or, with this probability while churn lasts, fails without reaching the share
    #: coordinator (as when it is unavailable).
    persister_failure: float = 0.0
    coordinator: ShareGroupConfig = field(default_factory=ShareGroupConfig)


@dataclass
class Member:
    member_id: str
    client: ShareConsumerMembership
    alive: bool = True
    #: Bumped when a request is sent, so a stale timeout or answer is recognised.
    attempt: int = 0
    #: When this member's next wake-up (for a due heartbeat) is scheduled.
    wake_at: int | None = None


@dataclass
class SimStats:
    heartbeats: int = 0
    lost: int = 0
    records: int = 0
    #: The end of the first run (:meth:`Simulation.run_until`) after the plan at which the group
    #: was settled and has stayed so at every later run's end; None while it is not.
    settled_at_ms: int | None = None


def _check(config: SimConfig) -> None:
    """Refuse a plan or a network no run could follow, naming the field."""
    for name in ("loss", "persister_failure"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise InputError(name, f"a probability, got {getattr(config, name)}")
    if not 0 <= config.persister_min_delay_ms <= config.persister_delay_ms:
        raise InputError("persister_min_delay_ms", "need 0 <= min <= max, got "
                         f"{config.persister_min_delay_ms}..{config.persister_delay_ms}")
    if not 0 <= config.min_delay_ms <= config.max_delay_ms:
        raise InputError(
            "min_delay_ms", f"need 0 <= min <= max, got {config.min_delay_ms}..{config.max_delay_ms}"
        )
    for name in ("request_timeout_ms", "poll_interval_ms"):
        if getattr(config, name) < 1:
            raise InputError(name, f"must be at least 1, got {getattr(config, name)}")
    check_plan(config.plan, renamed="id", expected="join, leave or crash")


class Simulation:
    """One seeded run; :meth:`run_until` moves time forward, :meth:`settled` judges the result."""

    def __init__(self, config: SimConfig, layer: str = "impl") -> None:
        _check(config)
        if layer not in ("spec", "impl"):
            raise InputError("layer", f"expected 'spec' or 'impl', got {layer!r}")
        self.config = config
        self.random = random.Random(config.seed)
        self.coordinator = make_coordinator(layer, config.coordinator, config.topics)
        #: The share coordinator: the group's share-state persister.
        self.share_coordinator = ShareCoordinator(
            topics=tuple(StateTopic(t.topic_id, t.partitions) for t in config.topics))
        self.now = 0
        self.index = 0
        self.members: dict[str, Member] = {}
        self.stats = SimStats()
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._quiet_after = max((c.at_ms for c in config.plan), default=0)
        for churn in config.plan:
            self._at(churn.at_ms, functools.partial(self._churn, churn))

    # -- the event queue ----------------------------------------------------------------------------

    def _at(self, when: int, action: Callable[[], None]) -> None:
        heapq.heappush(self._queue, (when, next(self._seq), action))

    def run_until(self, to_ms: int) -> None:
        while self._queue and self._queue[0][0] <= to_ms:
            when, _, action = heapq.heappop(self._queue)
            self._advance(when)
            action()
        self._advance(to_ms)
        # Judged at the end of each run (the whole group is looked at: too costly per event).
        if self.settled() != []:
            self.stats.settled_at_ms = None
        elif self.stats.settled_at_ms is None and to_ms >= self._quiet_after:
            self.stats.settled_at_ms = to_ms

    def _advance(self, to_ms: int) -> None:
        if to_ms > self.now:
            self.now = to_ms
            self._coordinator(AdvanceClock(to_ms))

    def _delay(self) -> int:
        return self.random.randint(self.config.min_delay_ms, self.config.max_delay_ms)

    def _lost(self) -> bool:
        return self.now < self._quiet_after and self.random.random() < self.config.loss

    # -- the coordinator's side ---------------------------------------------------------------------

    def _coordinator(self, event: ShareGroupEvent) -> Output:
        index = self.index
        self.index += 1
        out = self.coordinator.handle(event, index)
        self.stats.records += len(out.records)
        for request in out.initialize:
            low, high = self.config.persister_min_delay_ms, self.config.persister_delay_ms
            delay = high if low == high else self.random.randint(low, high)
            self._at(self.now + delay, functools.partial(self._persister_answers, request))
        return out

    def _persister_answers(self, request: InitializeRequest) -> None:
        failure = self.config.persister_failure
        if failure and self.now < self._quiet_after and self.random.random() < failure:
            error = Errors.COORDINATOR_NOT_AVAILABLE
        else:
            error = initialize_share_state(self.share_coordinator, request, self.index)
        self._coordinator(PersisterAnswer(request.request, error))

    def _deliver_heartbeat(self, member: Member, attempt: int, request: ShareGroupHeartbeat) -> None:
        out = self._coordinator(request)
        response = out.answers[0].response
        assert isinstance(response, ShareGroupHeartbeatResponse)
        if self._lost():
            self.stats.lost += 1
            return
        self._at(self.now + self._delay(), lambda: self._answer(member, attempt, response))

    # -- the members' side --------------------------------------------------------------------------

    def _churn(self, churn: Churn) -> None:
        member = self.members.get(churn.member)
        if churn.action == "join":
            client = ShareConsumerMembership(
                ShareConsumerConfig(self.config.group_id, churn.member), now_ms=self.now
            )
            member = self.members[churn.member] = Member(churn.member, client)
            self._client(member, Subscribe(self.config.subscription))
            self._poll_loop(member)
        elif member is not None and member.alive:
            if churn.action == "leave":
                self._client(member, Unsubscribe())
            else:
                member.alive = False

    def _poll_loop(self, member: Member) -> None:
        if not member.alive or not member.client.membership.subscription:
            return
        self._client(member, Poll())
        self._at(self.now + self.config.poll_interval_ms, lambda: self._poll_loop(member))

    def _wake(self, member: Member) -> None:
        member.wake_at = None
        self._client(member, Tick(self.now))

    def _client(self, member: Member, event: Any) -> None:
        if not member.alive:
            return
        out: ClientOutput = member.client.handle(Tick(self.now))
        self._send(member, out)
        out = member.client.handle(event)
        self._send(member, out)
        due = member.client.view().next_heartbeat_ms
        if due is not None and due > self.now and (member.wake_at is None or due < member.wake_at):
            member.wake_at = due
            self._at(due, lambda: self._wake(member))

    def _send(self, member: Member, out: ClientOutput) -> None:
        if out.sent is None:
            return
        self.stats.heartbeats += 1
        member.attempt += 1
        attempt = member.attempt
        self._at(self.now + self.config.request_timeout_ms, lambda: self._timeout(member, attempt))
        if self._lost():
            self.stats.lost += 1
            return
        request = out.sent
        self._at(self.now + self._delay(), lambda: self._deliver_heartbeat(member, attempt, request))

    def _answer(self, member: Member, attempt: int, response: ShareGroupHeartbeatResponse) -> None:
        if member.attempt == attempt and member.client.view().in_flight:
            member.attempt += 1  # answered: its timeout no longer applies
            self._client(member, HeartbeatAnswered(response))

    def _timeout(self, member: Member, attempt: int) -> None:
        if member.attempt == attempt and member.client.view().in_flight:
            member.attempt += 1
            self._client(member, HeartbeatFailed(retriable=True))

    # -- the verdict --------------------------------------------------------------------------------

    def settled(self) -> list[str]:
        """Why the group is not settled yet ([] when it is): every live subscribed member is
        STABLE in the group at the group's epoch holding exactly its target, the coordinator knows
        no other members, and together they hold every partition of the subscribed topics."""
        view = self.coordinator.view()
        group = next((g for g in view.groups if g.group_id == self.config.group_id), None)
        live = {m.member_id: m for m in self.members.values() if m.alive and m.client.membership.subscription}
        if group is None:
            return ["no group"] if live else []
        problems = []
        known = {m.member_id: m for m in group.members}
        if set(known) != set(live):
            problems.append(f"coordinator members {sorted(known)} != live members {sorted(live)}")
        for member_id, member in live.items():
            v = member.client.view()
            coordinator_member = known.get(member_id)
            if v.state is not MemberState.STABLE:
                problems.append(f"{member_id} is {v.state.name}")
            elif coordinator_member is None or v.member_epoch != group.group_epoch:
                problems.append(f"{member_id} at epoch {v.member_epoch}, group at {group.group_epoch}")
            elif v.assignment != coordinator_member.target:
                problems.append(f"{member_id} holds {v.assignment}, target {coordinator_member.target}")
        held = {
            (tp.topic_id, p)
            for m in live.values()
            for tp in m.client.view().assignment
            for p in tp.partitions
        }
        wanted = {
            (t.topic_id, p)
            for t in self.config.topics
            if t.name in self.config.subscription
            for p in range(t.partitions)
        }
        if live and held != wanted:
            problems.append(f"partitions held {len(held)} of {len(wanted)}")
        return problems

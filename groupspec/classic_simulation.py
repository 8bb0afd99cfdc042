"""A deterministic end-to-end simulation of a classic consumer group: consumers, network, coordinator.

Why it exists: the classic consumer (machine classic_consumer), the classic coordinator (machine
classic_group) and the four assignors (machine classic_assignors) each agree with their spec one
step at a time, but what users rely on is about them together: no partition held by two members
of one generation, the cooperative protocol revoking before it reassigns, generations that only
go forward, a group that settles once members stop coming and going, committed offsets that do
not go back. This module plays that out on one injected clock, every random choice drawn from
one seeded generator (a run repeats exactly), and writes a Jepsen-shaped
:class:`~groupspec.history.History` that :mod:`groupspec.classic_check` judges afterwards.

The world:

* N classic consumers (``groupspec.impl.classic_consumer.ClassicConsumer``), all subscribed to
  the same topics, polling every ``poll_interval_ms``; each poll consumes a few records of every
  partition it owns and every ``commit_every`` polls commits its positions (commitAsync: the
  driver does not hand commit answers back to the client, so a commitSync would stay pending
  in it for ever, and be sent again, with its old offsets, whenever the client's heartbeat
  thread loses the coordinator);
* the leader's assignor: when a JoinGroup answer names the member its own leader, the driver
  decodes every member's subscription from the answer and runs the chosen assignor
  (``groupspec.impl.classic_assignors``) on it, and hands the result to the consumer with the
  answer (``JoinAnswered.leader_assignments``);
* one classic coordinator (the spec or the implementation behind the same events);
* a network that delivers each request and each answer after a seeded delay, or loses it while
  churn lasts (the sender then sees a failure after its request timeout: the JoinGroup's is the
  rebalance timeout plus 5 s, as Kafka's client computes it, the others ``request_timeout_ms``);
* a plan of churn: consumers joining, leaving (unsubscribe, which sends a LeaveGroup), crashing
  (falling silent until their session expires), and coordinator restarts (``Restart``: the
  coordinator reloads from its log and answers parked requests NOT_COORDINATOR);
* scripted faults (:class:`Fault`) for worked scenarios: one named request or answer lost, cut
  (the connection drops: the sender sees the failure after the normal delay) or held back.

Simplifications, each stated:

* a failed or timed-out request reaches the consumer as the coordinator being unavailable
  (COORDINATOR_NOT_AVAILABLE), which is how Kafka's client treats a disconnect: it forgets the
  coordinator and retries at its next poll;
* a consumer learns where a newly assigned partition starts by reading the group's committed
  offset at the moment the assignment arrives (an OffsetFetch without network delay or loss;
  no committed offset: the start of the log, offset 0);
* the cluster's topics never change, and every consumer subscribes to all of them.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from groupspec.churn import Churn, check_plan
from groupspec.history import History
from groupspec.impl.classic_assignors import assign as run_assignor
from groupspec.impl.classic_consumer import ClassicConsumer
from groupspec.impl.codec.consumer_protocol import (
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)
from groupspec.types import InputError
from groupspec.types.classic_assignors import (
    ASSIGNORS,
    COOPERATIVE_STICKY,
    ClassicAssignorInput,
    ClassicMember,
)
from groupspec.types.classic_consumer import (
    Callback,
    CommitAsync,
    Config,
    HeartbeatAnswered,
    JoinAnswered,
    MemberState,
    Poll,
    Raised,
    RebalanceProtocol,
    Sent,
    Subscribe,
    SyncAnswered,
    Unsubscribe,
)
from groupspec.types.classic_group import (
    AdvanceClock,
    ClassicConfig,
    ClassicEvent,
    CoordinatorView,
    FetchTopic,
    Heartbeat,
    HeartbeatResponse,
    JoinGroup,
    JoinGroupResponse,
    LeaveGroup,
    LeaveGroupResponse,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetFetch,
    OffsetFetchResponse,
    Output,
    Restart,
    SyncAssignment,
    SyncGroup,
    SyncGroupResponse,
)
from groupspec.types.classic_group import (
    Protocol as JoinProtocol,
)
from groupspec.types.errors import Errors
from groupspec.types.records import ConsumerProtocolAssignment, ConsumerProtocolSubscription

#: Kafka's client waits this much longer than the rebalance timeout for a JoinGroup answer
#: (AbstractCoordinator's JOIN_GROUP_TIMEOUT_LAPSE).
JOIN_TIMEOUT_LAPSE_MS = 5_000
#: The failure a consumer sees for a request whose answer never came (see the module docstring).
UNREACHABLE = Errors.COORDINATOR_NOT_AVAILABLE
#: Churn actions; "restart" restarts the coordinator (the member name is then ignored).
ACTIONS = ("join", "leave", "crash", "restart")
#: Scripted faults: the request lost on its way, its answer lost (both: the sender times out),
#: the answer replaced by a dropped connection (the sender fails at once), or the request held
#: back ``ms`` longer than its drawn delay.
FAULT_KINDS = ("lose-request", "lose-answer", "cut-answer", "hold-request")
#: Mutations of the driver, for the checkers' planted-bug tests: ``duplicate`` makes the leader
#: also hand its own first partition to a second member; ``eager-moves`` makes a cooperative
#: leader run the eager sticky assignor (partitions move without being revoked first).
DRIVER_BUGS = ("duplicate", "eager-moves")


class Coordinator(Protocol):
    def handle(self, event: ClassicEvent, index: int) -> Output: ...

    def view(self) -> CoordinatorView: ...


class SpecCoordinator:
    """The spec behind the implementation's interface."""

    def __init__(self, config: ClassicConfig) -> None:
        from groupspec.spec import classic_group as spec

        self._spec = spec
        self._state = spec.initial_state(config)

    def handle(self, event: ClassicEvent, index: int) -> Output:
        self._state, out = self._spec.step(self._state, event, index)
        return out

    def view(self) -> CoordinatorView:
        return self._spec.view(self._state)


def make_coordinator(layer: str, config: ClassicConfig) -> Coordinator:
    if layer == "spec":
        return SpecCoordinator(config)
    if layer == "impl":
        from groupspec.impl.classic_group import ClassicCoordinator

        return ClassicCoordinator(config)
    raise InputError("layer", f"expected 'spec' or 'impl', got {layer!r}")


@dataclass(frozen=True)
class Fault:
    """The ``nth`` (1-based) request of kind ``f`` (join, sync, heartbeat, commit, leave) that
    ``member`` sends meets the fault ``kind`` (:data:`FAULT_KINDS`); ``ms`` is a hold's length."""

    member: str
    f: str
    nth: int
    kind: str
    ms: int = 0


@dataclass(frozen=True)
class ClassicSimConfig:
    #: (name, partitions) of each topic; every consumer subscribes to all of them.
    topics: tuple[tuple[str, int], ...] = (("t1", 6), ("t2", 3))
    plan: tuple[Churn, ...] = ()
    assignor: str = "range"
    seed: int = 0
    group_id: str = "g"
    min_delay_ms: int = 1
    max_delay_ms: int = 50
    #: Probability that one message (request or answer) is lost, while churn lasts.
    loss: float = 0.0
    faults: tuple[Fault, ...] = ()
    request_timeout_ms: int = 5_000
    poll_interval_ms: int = 500
    heartbeat_interval_ms: int = 1_000
    session_timeout_ms: int = 10_000
    rebalance_timeout_ms: int = 15_000
    #: A consumer commits its positions every this many polls (0: never).
    commit_every: int = 3
    coordinator: ClassicConfig = field(default_factory=ClassicConfig)
    #: A planted driver bug (:data:`DRIVER_BUGS`), for the checkers' own tests only.
    bug: str | None = None

    @property
    def protocol(self) -> RebalanceProtocol:
        cooperative = self.assignor == COOPERATIVE_STICKY
        return RebalanceProtocol.COOPERATIVE if cooperative else RebalanceProtocol.EAGER

    @property
    def settle_bound_ms(self) -> int:
        """How long after the last churn the group must have settled (docs/reliability.md).

        A crashed member is noticed after its session timeout; a JoinGroup whose answer was lost
        just before the churn ended is retried after the join timeout; then at most two
        rebalances (the cooperative protocol's second one), each bounded by the rebalance timeout
        with the coordinator's initial delay, plus a heartbeat interval for the members to see
        that a rebalance started and a poll interval to act on it.
        """
        join_timeout = self.rebalance_timeout_ms + JOIN_TIMEOUT_LAPSE_MS
        return (self.session_timeout_ms + join_timeout
                + 2 * (self.rebalance_timeout_ms + self.coordinator.initial_rebalance_delay_ms
                       + self.heartbeat_interval_ms + self.poll_interval_ms))

    def partitions(self) -> list[tuple[str, int]]:
        return [(t, p) for t, count in self.topics for p in range(count)]


def check_config(config: ClassicSimConfig) -> None:
    """Refuse a plan, a network or a fault no run could follow, naming the field."""
    if config.assignor not in ASSIGNORS:
        raise InputError("assignor", f"one of {', '.join(ASSIGNORS)}, got {config.assignor!r}")
    if not 0.0 <= config.loss <= 1.0:
        raise InputError("loss", f"a probability, got {config.loss}")
    if not 0 <= config.min_delay_ms <= config.max_delay_ms:
        raise InputError("min_delay_ms",
                         f"need 0 <= min <= max, got {config.min_delay_ms}..{config.max_delay_ms}")
    for name in ("request_timeout_ms", "poll_interval_ms", "heartbeat_interval_ms",
                 "session_timeout_ms", "rebalance_timeout_ms"):
        if getattr(config, name) < 1:
            raise InputError(name, f"must be at least 1, got {getattr(config, name)}")
    if config.commit_every < 0:
        raise InputError("commit_every", f"must be 0 or more, got {config.commit_every}")
    if not config.topics:
        raise InputError("topics", "at least one topic")
    names = [t for t, _ in config.topics]
    for i, (name, count) in enumerate(config.topics):
        if not name or names.count(name) > 1 or count < 1:
            raise InputError(f"topics[{i}]", f"a unique non-empty name and 1 or more partitions, got "
                                             f"{(name, count)!r}")
    if config.bug is not None and config.bug not in DRIVER_BUGS:
        raise InputError("bug", f"one of {', '.join(DRIVER_BUGS)}, got {config.bug!r}")
    check_plan(config.plan, renamed="name", expected=f"one of {', '.join(ACTIONS)}", also=("restart",),
               reserved=("nemesis", "coordinator"))
    for i, fault in enumerate(config.faults):
        if fault.kind not in FAULT_KINDS:
            raise InputError(f"faults[{i}].kind", f"one of {', '.join(FAULT_KINDS)}, got {fault.kind!r}")
        if fault.nth < 1 or fault.ms < 0:
            raise InputError(f"faults[{i}]", f"nth counts from 1 and ms is 0 or more, got {fault}")


@dataclass
class InFlight:
    """A request the network carries: whose, which, and the history value of its invoke."""

    member: Member
    f: str
    value: Any
    done: bool = False
    #: The scripted fault this request meets (:data:`FAULT_KINDS`), if any.
    fault: str | None = None


@dataclass
class Member:
    name: str
    client: ClassicConsumer
    alive: bool = True
    subscribed: bool = True
    polls: int = 0
    #: The next offset this consumer reads, by partition it owns.
    positions: dict[tuple[str, int], int] = field(default_factory=dict)
    #: Requests sent so far, by kind (for :class:`Fault`'s ``nth``).
    sent: dict[str, int] = field(default_factory=dict)
    #: A commit is in flight (commitSync blocks the application until it is answered).
    committing: bool = False


@dataclass
class ClassicSimStats:
    requests: int = 0
    lost: int = 0
    #: Rebalances completed: SyncGroup answers with an assignment the group's leader made.
    generations: int = 0
    commits_ok: int = 0
    #: The first time after the last churn at which the group was settled (checked every poll
    #: interval) and stayed so to the end of the run; None while it is not.
    settled_at_ms: int | None = None
    #: The end of the run: the last churn plus the settle bound.
    end_ms: int = 0


def _tps(assignment: ConsumerProtocolAssignment | ConsumerProtocolSubscription) -> list[list[Any]]:
    parts = (assignment.assigned_partitions if isinstance(assignment, ConsumerProtocolAssignment)
             else assignment.owned_partitions)
    return sorted([tp.topic, p] for tp in parts for p in tp.partitions)


def _as_assignment(partitions: tuple[tuple[str, int], ...]) -> ConsumerProtocolAssignment:
    by_topic: dict[str, list[int]] = {}
    for topic, p in partitions:
        by_topic.setdefault(topic, []).append(p)
    return ConsumerProtocolAssignment(assigned_partitions=tuple(
        ConsumerProtocolAssignment.TopicPartition(t, tuple(ps)) for t, ps in sorted(by_topic.items())))


class ClassicSimulation:
    """One seeded run: :meth:`run` plays it to the end and returns the history."""

    def __init__(self, config: ClassicSimConfig, layer: str = "impl") -> None:
        check_config(config)
        self.config = config
        self.random = random.Random(config.seed)
        self.coordinator = make_coordinator(layer, config.coordinator)
        self.history = History()
        self.stats = ClassicSimStats()
        self.now = 0
        self.index = 0
        self.members: dict[str, Member] = {}
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        #: Requests the coordinator has not answered yet, by event index.
        self._awaiting: dict[int, InFlight] = {}
        self._quiet_after = max((c.at_ms for c in config.plan), default=0)
        self.stats.end_ms = self._quiet_after + config.settle_bound_ms
        self.history.add(0, "nemesis", "info", "setup", {
            "assignor": config.assignor, "protocol": config.protocol.value, "seed": config.seed,
            "partitions": [list(tp) for tp in config.partitions()],
            "settle_bound_ms": config.settle_bound_ms})
        for churn in config.plan:
            self._at(churn.at_ms, functools.partial(self._churn, churn))
        self._at(self._quiet_after, self._go_quiet)

    # -- the event queue ----------------------------------------------------------------------------

    def _at(self, when: int, action: Callable[[], None]) -> None:
        heapq.heappush(self._queue, (when, next(self._seq), action))

    def run(self) -> History:
        """Play the run to its end (the last churn plus the settle bound) and read the final state."""
        end = self.stats.end_ms
        while self._queue and self._queue[0][0] <= end:
            when, _, action = heapq.heappop(self._queue)
            self._advance(when)
            action()
        self._advance(end)
        self._final_reads()
        return self.history

    def _advance(self, to_ms: int) -> None:
        if to_ms > self.now:
            self.now = to_ms
            self._coordinator(AdvanceClock(to_ms), None)

    def _delay(self) -> int:
        return self.random.randint(self.config.min_delay_ms, self.config.max_delay_ms)

    def _lost(self) -> bool:
        lost = self.now < self._quiet_after and self.random.random() < self.config.loss
        self.stats.lost += lost
        return lost

    # -- the coordinator's side ---------------------------------------------------------------------

    def _coordinator(self, event: ClassicEvent, flight: InFlight | None) -> Output:
        index = self.index
        self.index += 1
        if flight is not None:
            self._awaiting[index] = flight
        out = self.coordinator.handle(event, index)
        for answer in out.answers:
            waiting = self._awaiting.pop(answer.request, None)
            if waiting is not None:
                self._answer_travels(waiting, answer.response)
        return out

    def _answer_travels(self, flight: InFlight, response: object) -> None:
        fault = flight.fault
        if fault == "lose-answer" or (fault is None and self._lost()):
            return
        if fault == "cut-answer":
            self._at(self.now + self._delay(), functools.partial(self._failed, flight))
            return
        self._at(self.now + self._delay(), functools.partial(self._answered, flight, response))

    # -- the members' side --------------------------------------------------------------------------

    def _churn(self, churn: Churn) -> None:
        if churn.action == "restart":
            self.history.add(self.now, "nemesis", "info", "restart-coordinator", None)
            self._coordinator(Restart(), None)
            return
        member = self.members.get(churn.member)
        if churn.action == "join":
            client = ClassicConsumer(Config(
                group_id=self.config.group_id, assignors=(self.config.assignor,),
                protocol=self.config.protocol, heartbeat_interval_ms=self.config.heartbeat_interval_ms,
                session_timeout_ms=self.config.session_timeout_ms,
                rebalance_timeout_ms=self.config.rebalance_timeout_ms, auto_offset_reset="earliest"))
            member = self.members[churn.member] = Member(churn.member, client)
            self.history.add(self.now, "nemesis", "info", "start", churn.member)
            self._client(member, Subscribe(tuple(t for t, _ in self.config.topics)))
            self._poll_loop(member)
        elif member is not None and member.alive and member.subscribed:
            if churn.action == "leave":
                self.history.add(self.now, "nemesis", "info", "leave", churn.member)
                member.subscribed = False
                self._client(member, Unsubscribe())
            else:
                self.history.add(self.now, "nemesis", "info", "crash", churn.member)
                member.alive = False

    def _go_quiet(self) -> None:
        self.history.add(self.now, "nemesis", "ok", "quiet", {"settle_by": self.stats.end_ms})
        self._settle_watch()

    def _settle_watch(self) -> None:
        if self.settled() != []:
            self.stats.settled_at_ms = None
        elif self.stats.settled_at_ms is None:
            self.stats.settled_at_ms = self.now
        self._at(self.now + self.config.poll_interval_ms, self._settle_watch)

    def _poll_loop(self, member: Member) -> None:
        if not member.alive or not member.subscribed:
            return
        member.polls += 1
        self._client(member, Poll(self.now))
        for tp in member.positions:
            member.positions[tp] += self.random.randint(0, 5)
        every = self.config.commit_every
        view = member.client.view()
        if (every and member.polls % every == 0 and view.state is MemberState.STABLE and member.positions
                and not member.committing):
            self._client(member, CommitAsync(tuple(sorted(member.positions.items()))))
        self._at(self.now + self.config.poll_interval_ms, functools.partial(self._poll_loop, member))

    def _client(self, member: Member, event: Any) -> None:
        if not member.alive:
            return
        for output in member.client.handle(event):
            if isinstance(output, Sent):
                self._send(member, output)
            elif isinstance(output, Callback):
                self._callback(member, output)
            elif isinstance(output, Raised):
                self.history.add(self.now, member.name, "info", "raised",
                                 {"error": output.error, "detail": output.detail})

    def _callback(self, member: Member, callback: Callback) -> None:
        value = {"generation": member.client.view().generation,
                 "partitions": [list(tp) for tp in callback.partitions]}
        self.history.add(self.now, member.name, "invoke", callback.kind, value)
        self.history.add(self.now, member.name, "ok", callback.kind, value)
        if callback.kind == "assigned":
            self._fetch_positions(member, callback.partitions)
        else:
            for tp in callback.partitions:
                member.positions.pop(tp, None)

    def _fetch_positions(self, member: Member, partitions: tuple[tuple[str, int], ...]) -> None:
        if not partitions:
            return
        by_topic: dict[str, list[int]] = {}
        for t, p in partitions:
            by_topic.setdefault(t, []).append(p)
        asked = [list(tp) for tp in partitions]
        self.history.add(self.now, member.name, "invoke", "fetch", {"partitions": asked})
        out = self._coordinator(OffsetFetch(self.config.group_id, tuple(
            FetchTopic(t, tuple(ps)) for t, ps in sorted(by_topic.items()))), None)
        response = out.answers[0].response
        assert isinstance(response, OffsetFetchResponse)
        if response.error is not Errors.NONE:
            self.history.add(self.now, member.name, "fail", "fetch", {"error": response.error.name})
            return
        got = {(t.name, p.partition): p.committed_offset for t in response.topics for p in t.partitions}
        offsets = []
        for tp in partitions:
            committed = got.get(tp, -1)
            member.positions[tp] = max(committed, 0)
            offsets.append([tp[0], tp[1], committed])
        self.history.add(self.now, member.name, "ok", "fetch", {"offsets": sorted(offsets)})

    # -- requests and answers -----------------------------------------------------------------------

    def _send(self, member: Member, sent: Sent) -> None:
        request = sent.request
        f, value, wire_request = self._on_the_wire(member, sent)
        self.stats.requests += 1
        member.sent[f] = member.sent.get(f, 0) + 1
        fault = next((x for x in self.config.faults
                      if x.member == member.name and x.f == f and x.nth == member.sent[f]), None)
        flight = InFlight(member, f, value, fault=fault.kind if fault is not None else None)
        member.committing = member.committing or f == "commit"
        self.history.add(self.now, member.name, "invoke", f, value)
        timeout = (self.config.rebalance_timeout_ms + JOIN_TIMEOUT_LAPSE_MS if isinstance(request, JoinGroup)
                   else self.config.request_timeout_ms)
        self._at(self.now + timeout, functools.partial(self._failed, flight, "timeout"))
        if (fault is not None and fault.kind == "lose-request") or (fault is None and self._lost()):
            return
        hold = fault.ms if fault is not None and fault.kind == "hold-request" else 0
        self._at(self.now + self._delay() + hold, functools.partial(self._arrives, flight, wire_request))

    def _on_the_wire(self, member: Member, sent: Sent) -> tuple[str, Any, ClassicEvent]:
        """The history's name and value for a request, and the request as the coordinator gets it:
        the subscription and the leader's assignments encoded into the bytes the protocol carries,
        the client id the connection names, and the UUID the coordinator would draw for a new id."""
        request = sent.request
        if isinstance(request, JoinGroup):
            subscription = sent.subscription or ConsumerProtocolSubscription(topics=())
            metadata = encode_subscription(subscription)
            bits = self.random.getrandbits
            uuid = f"{bits(32):08x}-{bits(16):04x}-4{bits(12):03x}-8{bits(12):03x}-{bits(48):012x}"
            wire = replace(request, client_id=member.name, new_member_uuid=uuid,
                           protocols=tuple(JoinProtocol(p.name, metadata) for p in request.protocols))
            return "join", {"member_id": request.member_id, "owned": _tps(subscription),
                            "subscription_generation": subscription.generation_id}, wire
        if isinstance(request, SyncGroup):
            assignments = tuple(SyncAssignment(m, encode_assignment(a)) for m, a in sent.assignments)
            return "sync", {"generation": request.generation_id, "member_id": request.member_id,
                            "assignments": {m: _tps(a) for m, a in sent.assignments}}, \
                replace(request, assignments=assignments)
        if isinstance(request, Heartbeat):
            return "heartbeat", {"generation": request.generation_id}, request
        if isinstance(request, OffsetCommit):
            return "commit", {"generation": request.generation_id_or_member_epoch,
                              "member_id": request.member_id,
                              "offsets": [[t.name, p.partition, p.committed_offset]
                                          for t in request.topics for p in t.partitions]}, request
        assert isinstance(request, LeaveGroup)
        return "leave", {"member_id": request.members[0].member_id}, request

    def _arrives(self, flight: InFlight, request: ClassicEvent) -> None:
        self._coordinator(request, flight)

    def _failed(self, flight: InFlight, why: str = "cut") -> None:
        if flight.done:
            return
        flight.done = True
        member = flight.member
        member.committing = member.committing and flight.f != "commit"
        if not member.alive:
            return  # a crashed process records nothing more
        self.history.add(self.now, member.name, "info", flight.f, {"why": why})
        if not member.subscribed:
            return
        if flight.f == "join":
            self._client(member, JoinAnswered(JoinGroupResponse(UNREACHABLE)))
        elif flight.f == "sync":
            self._client(member, SyncAnswered(SyncGroupResponse(UNREACHABLE)))
        elif flight.f == "heartbeat":
            self._client(member, HeartbeatAnswered(HeartbeatResponse(UNREACHABLE)))

    def _answered(self, flight: InFlight, response: object) -> None:
        if flight.done:
            return  # its timeout came first
        flight.done = True
        member = flight.member
        member.committing = member.committing and flight.f != "commit"
        if not member.alive:
            return  # a crashed process records nothing more
        f = flight.f
        if isinstance(response, JoinGroupResponse):
            self._record(member, f, response.error, {
                "member_id": response.member_id, "generation": response.generation_id,
                "leader": response.leader == response.member_id and response.error is Errors.NONE,
                "owned": flight.value["owned"],
                "subscription_generation": flight.value["subscription_generation"]})
            if member.subscribed:
                self._client(member, JoinAnswered(response, self._leader_assignments(response)))
        elif isinstance(response, SyncGroupResponse):
            assignment = (decode_assignment(response.assignment)[0] if response.assignment
                          else ConsumerProtocolAssignment(assigned_partitions=()))
            if response.error is Errors.NONE:
                self.stats.generations += bool(flight.value["assignments"])
            self._record(member, f, response.error, {"generation": flight.value["generation"],
                                                     "member_id": flight.value["member_id"],
                                                     "assigned": _tps(assignment)})
            if member.subscribed:
                self._client(member, SyncAnswered(response, assignment))
        elif isinstance(response, HeartbeatResponse):
            self._record(member, f, response.error, flight.value)
            if member.subscribed:
                self._client(member, HeartbeatAnswered(response))
        elif isinstance(response, OffsetCommitResponse):
            errors = {(t.name, p.partition): p.error for t in response.topics for p in t.partitions}
            refused = sorted({e.name for e in errors.values() if e is not Errors.NONE})
            if refused:
                self.history.add(self.now, member.name, "fail", f, {**flight.value, "errors": refused})
            else:
                self.stats.commits_ok += 1
                self.history.add(self.now, member.name, "ok", f, flight.value)
        elif isinstance(response, LeaveGroupResponse):
            self._record(member, f, response.error, flight.value)

    def _record(self, member: Member, f: str, error: Errors, value: dict[str, Any]) -> None:
        if error is Errors.NONE:
            self.history.add(self.now, member.name, "ok", f, value)
        else:
            self.history.add(self.now, member.name, "fail", f, {**value, "error": error.name})

    # -- the leader's assignor ----------------------------------------------------------------------

    def _leader_assignments(
            self, response: JoinGroupResponse) -> tuple[tuple[str, ConsumerProtocolAssignment], ...]:
        """The assignor the coordinator chose, run on the members the JoinGroup answer lists, as
        the leader's ConsumerCoordinator does (onLeaderElected); nothing for a follower."""
        if response.error is not Errors.NONE or response.leader != response.member_id:
            return ()
        members = []
        for m in response.members:
            subscription, _ = decode_subscription(m.metadata)
            members.append(ClassicMember(
                member_id=m.member_id, topics=subscription.topics,
                owned_partitions=tuple((tp.topic, p) for tp in subscription.owned_partitions
                                       for p in tp.partitions),
                group_instance_id=m.group_instance_id, generation_id=subscription.generation_id,
                rack_id=subscription.rack_id, user_data=subscription.user_data))
        name = response.protocol_name or self.config.assignor
        if self.config.bug == "eager-moves" and name == COOPERATIVE_STICKY:
            name = "sticky"
        result = run_assignor(ClassicAssignorInput(name, tuple(members), dict(self.config.topics)))
        assigned = {m: tuple(parts) for m, parts in result.items()}
        if self.config.bug == "duplicate" and len(assigned) > 1:
            ids = sorted(assigned)
            mine = assigned[response.member_id]
            other = next(i for i in ids if i != response.member_id)
            if mine:
                assigned[other] = (*assigned[other], mine[0])
        return tuple((m, _as_assignment(parts)) for m, parts in sorted(assigned.items()))

    # -- the verdict --------------------------------------------------------------------------------

    def live(self) -> list[Member]:
        return [m for m in self.members.values() if m.alive and m.subscribed]

    def settled(self) -> list[str]:
        """Why the group is not settled yet ([] when it is): every live consumer STABLE in the
        coordinator's generation, the coordinator's group Stable with exactly them, and their
        partitions disjoint and covering every partition."""
        view = self.coordinator.view()
        group = next((g for g in view.groups if g.group_id == self.config.group_id), None)
        live = self.live()
        problems: list[str] = []
        if group is None:
            return ["no group"] if live else []
        members = {m.member_id for m in group.members}
        ids = {m.client.view().member_id for m in live}
        if members != ids:
            problems.append(f"coordinator members {sorted(members)} != live members {sorted(ids)}")
        if live and group.state != "Stable":
            problems.append(f"group is {group.state}")
        owned: list[tuple[str, int]] = []
        for m in live:
            v = m.client.view()
            if v.state is not MemberState.STABLE or v.generation != group.generation_id:
                problems.append(f"{m.name} is {v.state.name} at {v.generation}, "
                                f"group at {group.generation_id}")
            owned.extend(v.owned)
        if live and sorted(owned) != sorted(self.config.partitions()):
            problems.append(f"{len(owned)} partitions held ({len(set(owned))} distinct) "
                            f"of {len(self.config.partitions())}")
        return problems

    def _final_reads(self) -> None:
        """The run's last operations: every consumer's own view and the coordinator's group."""
        for m in sorted(self.members.values(), key=lambda m: m.name):
            if not m.alive or not m.subscribed:
                continue
            v = m.client.view()
            value = {"state": v.state.name, "generation": v.generation, "member_id": v.member_id,
                     "owned": [list(tp) for tp in v.owned]}
            self.history.add(self.now, m.name, "invoke", "read", None)
            self.history.add(self.now, m.name, "ok", "read", value)
        group = next((g for g in self.coordinator.view().groups if g.group_id == self.config.group_id), None)
        read: dict[str, object] | None = None if group is None else {
            "state": group.state, "generation": group.generation_id,
            "members": sorted(m.member_id for m in group.members)}
        self.history.add(self.now, "coordinator", "invoke", "read", None)
        self.history.add(self.now, "coordinator", "ok", "read", read)


def random_plan(rng: random.Random, consumers: int, churn_ms: int, restarts: int = 0) -> tuple[Churn, ...]:
    """A seeded plan: ``consumers`` join within ``churn_ms``; some leave or crash later, each then
    replaced by a new consumer; ``restarts`` coordinator restarts at random times."""
    plan = [Churn(rng.randint(0, churn_ms // 2), f"c{i}", "join") for i in range(consumers)]
    extra = consumers
    for i in range(consumers):
        action = rng.choice(("stay", "stay", "leave", "crash"))
        if action != "stay":
            at = plan[i].at_ms + rng.randint(1, churn_ms // 2)
            plan.append(Churn(at, f"c{i}", action))
            plan.append(Churn(at + rng.randint(0, 2_000), f"c{extra}", "join"))
            extra += 1
    plan += [Churn(rng.randint(0, churn_ms), "coordinator", "restart") for _ in range(restarts)]
    return tuple(sorted(plan, key=lambda c: (c.at_ms, c.member)))


def simulate(config: ClassicSimConfig, layer: str = "impl") -> tuple[History, ClassicSimStats]:
    sim = ClassicSimulation(config, layer)
    history = sim.run()
    return history, sim.stats

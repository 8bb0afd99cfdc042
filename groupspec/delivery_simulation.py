"""A deterministic end-to-end simulation of share-group delivery: producer, consumers, broker.

Why it exists: the consumer (machine share_delivery), the share partition and the share
coordinator each agree with their spec, but what users rely on is per record and end to end:
acknowledged at most once, redelivered after a RELEASE or an expired lock until the delivery
limit, nothing acknowledged lost when the broker restarts. This module plays that out on one
injected clock, every random choice drawn from one seeded generator (a run repeats exactly), and
writes a :class:`~groupspec.history.History` that :func:`groupspec.share_delivery_check.check`
judges afterwards.

The world (docs/machines/share_delivery.md, "End to end"):

* a producer appending batches of records to the partitions' logs while the run is lossy;
* N share consumers (``ShareDeliveryConsumer``), implicit and explicit acknowledgement mode mixed.
  Explicit ones ACCEPT / RELEASE / REJECT each record by a seeded choice, after RENEWing some
  (the broker restarts the lock, the client returns the record later); some commitSync or
  commitAsync; some stall longer than the record lock; some close and are replaced by a new
  member. The assignment is static (every consumer is assigned every partition, as a share group
  with more members than partitions does): membership is ``groupspec.simulation``'s business;
* one broker: a share partition machine per partition persisting through ONE share coordinator
  (its records in its ``__share_group_state`` logs), keeping share sessions per member;
* a network that delays each ShareFetch / ShareAcknowledge and each answer, and loses some: the
  sender sees a failure after ``request_timeout_ms`` and the history records ``info``;
* crash-restarts of the broker: sessions and everything in flight are lost, the share coordinator
  replays its logs and every share partition is reloaded from it with the next leader epoch;
* a quiet phase (no loss, no crash, no new records, consumers keep polling) that lasts until every
  record reached an end, so the checker can demand that nothing was lost.

Simplifications, each stated: one broker leads every partition; an empty ShareFetch is answered
after ``long_poll_ms`` (Kafka's MaxWaitMs) even if records arrive meanwhile; a ShareAcknowledge
on a session the broker does not know (lost in a restart) is answered by closing the connection
(the client sees a failed request) rather than with a session error, which the consumer model
does not take for ShareAcknowledge (Kafka retries it).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from groupspec import delivery_wire as wire
from groupspec.history import History
from groupspec.impl.share_delivery import ShareDeliveryConsumer
from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.impl.share_partition.store import partition_store
from groupspec.impl.share_state import ShareCoordinator
from groupspec.types import InputError
from groupspec.types import share_state as ss
from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    Acknowledge,
    AcknowledgeAnswered,
    AcknowledgementMode,
    AcknowledgeType,
    Assign,
    Close,
    CommitAsync,
    CommitSync,
    DeliveryConfig,
    DeliveryEvent,
    DeliveryOutput,
    FetchAnswered,
    Partition,
    Phase,
    Poll,
    Record,
    RequestFailed,
    ShareAcknowledgeSent,
    ShareFetchSent,
)
from groupspec.types.share_partition import (
    AcknowledgeResponse,
    FetchResponse,
    LogBatch,
    ReleaseMember,
    Reload,
    ReloadResponse,
    SharePartitionConfig,
)
from groupspec.types.share_partition import AdvanceClock as PartitionClock

GROUP = "sim-group"


@dataclass(frozen=True)
class DeliverySimConfig:
    seed: int = 0
    #: (name, partitions) of each topic; topic ids are derived from the position.
    topics: tuple[tuple[str, int], ...] = (("t0", 2), ("t1", 1))
    consumers: int = 4
    #: Batches the producer appends while the run is lossy (each 1..max_batch records).
    batches: int = 60
    max_batch: int = 4
    #: The lossy phase: produce, lose messages, crash the broker.
    lossy_ms: int = 20_000
    #: The quiet phase ends when every record reached an end, or after this long at the latest.
    quiet_limit_ms: int = 120_000
    loss: float = 0.05
    min_delay_ms: int = 1
    max_delay_ms: int = 30
    request_timeout_ms: int = 1_000
    long_poll_ms: int = 200
    poll_interval_ms: int = 50
    crashes: int = 2
    downtime_ms: int = 300
    delivery_limit: int = 4
    lock_duration_ms: int = 1_500
    #: Chance per poll that a consumer falls silent for twice the lock duration (lossy phase).
    stall: float = 0.01
    #: Chance that a consumer (other than the first) closes at some time of the lossy phase.
    close: float = 0.4
    #: Explicit mode's choice per record: ACCEPT, RELEASE, REJECT weights.
    weights: tuple[int, int, int] = (80, 15, 5)
    #: Explicit mode: chance that a held record is RENEWed instead (it comes back to be chosen again).
    #: A pending renewal holds the client's buffer back, so buffered copies outlive their locks and
    #: broker restarts more often: the runs hand one consumer two copies of a record more often.
    renew: float = 0.1
    updates_per_snapshot: int = 5


def check_config(config: DeliverySimConfig) -> None:
    """Refuse a run no broker or network could follow, naming the field."""
    for name in ("loss", "stall", "close", "renew"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise InputError(name, f"a probability, got {getattr(config, name)}")
    if not 0 <= config.min_delay_ms <= config.max_delay_ms:
        raise InputError("min_delay_ms",
                         f"need 0 <= min <= max, got {config.min_delay_ms}..{config.max_delay_ms}")
    for name in ("consumers", "max_batch", "request_timeout_ms", "poll_interval_ms", "lock_duration_ms",
                 "lossy_ms", "updates_per_snapshot", "downtime_ms"):
        if getattr(config, name) < 1:
            raise InputError(name, f"must be at least 1, got {getattr(config, name)}")
    for name in ("batches", "crashes", "long_poll_ms", "quiet_limit_ms"):
        if getattr(config, name) < 0:
            raise InputError(name, f"must not be negative, got {getattr(config, name)}")
    if not config.topics or any(n < 1 for _, n in config.topics):
        raise InputError("topics", "at least one topic, each with at least one partition")
    if config.max_delay_ms + config.long_poll_ms >= config.request_timeout_ms:
        raise InputError("request_timeout_ms", "must exceed max_delay_ms + long_poll_ms (else every "
                         "empty fetch would time out)")
    if config.crashes and config.downtime_ms >= config.lossy_ms:
        raise InputError("downtime_ms", "a crash must end within the lossy phase")
    if len(config.weights) != 3 or min(config.weights) < 0 or sum(config.weights) == 0:
        raise InputError("weights", f"three non-negative weights, not all 0, got {config.weights}")
    if not 2 <= config.delivery_limit <= 25:
        raise InputError("delivery_limit", f"must be in 2..25, got {config.delivery_limit}")


def topic_id(position: int) -> str:
    return f"00000000-0000-4000-8000-{position + 1:012x}"


@dataclass
class Session:
    """The broker's share session of one member: the next epoch it expects, its partitions."""

    epoch: int
    partitions: set[Partition]


class Broker:
    """One broker leading every partition: the logs, the share partitions, the share coordinator."""

    def __init__(self, config: DeliverySimConfig) -> None:
        self.config = config
        self.coordinator = ShareCoordinator(
            ss.ShareStateConfig(state_topic_partitions=3, updates_per_snapshot=config.updates_per_snapshot),
            tuple(ss.TopicMetadata(topic_id(i), n) for i, (_, n) in enumerate(config.topics)))
        self.index = itertools.count()
        self.partition_config = SharePartitionConfig(delivery_count_limit=config.delivery_limit,
                                                     max_in_flight_records=10_000,
                                                     record_lock_duration_ms=config.lock_duration_ms)
        self.ids = {name: topic_id(i) for i, (name, _) in enumerate(config.topics)}
        self.logs: dict[Partition, list[LogBatch]] = {}
        self.log_ends: dict[Partition, list[int]] = {}
        self.machines: dict[Partition, SharePartitionMachine] = {}
        for name, count in config.topics:
            for n in range(count):
                p = Partition(name, n)
                self.logs[p], self.log_ends[p] = [], []
                # The share group initialized the key at offset 0 (share.auto.offset.reset=earliest).
                self.coordinator.handle(ss.InitializeShareGroupState(GROUP, self.ids[name], n, 0, 0),
                                        next(self.index))
                self.machines[p] = SharePartitionMachine(
                    self.partition_config, store=partition_store(self.coordinator, GROUP, self.ids[name], n))
        self.sessions: dict[str, Session] = {}
        self.now = 0

    def latest_offset(self, p: Partition) -> int:
        log = self.logs[p]
        return log[-1].last_offset + 1 if log else 0

    def produce(self, p: Partition, count: int) -> tuple[int, int]:
        first = self.latest_offset(p)
        self.logs[p].append(LogBatch(first, first + count - 1))
        self.log_ends[p].append(first + count - 1)
        return first, first + count - 1

    def advance(self, now: int) -> None:
        """Locks expire on the broker's clock; the share coordinator's cold snapshots too."""
        self.now = now
        for m in self.machines.values():
            m.handle(PartitionClock(now), next(self.index))
        self.coordinator.handle(ss.AdvanceClock(now), next(self.index))

    def done(self) -> bool:
        """Every produced record reached an end: each partition's start offset is its log's end,
        or every record from it to the log's end is cached ACKNOWLEDGED or ARCHIVED. (After a
        reload the start offset can rest on an acknowledged record until the next record is
        fetched: the gap window still covers it. docs/machines/share_delivery.md, "End to end".)"""
        for p, m in self.machines.items():
            latest = self.latest_offset(p)
            if m.partition.start_offset >= latest:
                continue
            runs = m.record_runs()
            if (not runs or runs[0].first_offset > m.partition.start_offset
                    or runs[-1].last_offset < latest - 1
                    or any(not r.state.terminal for r in runs)
                    or any(a.last_offset + 1 != b.first_offset for a, b in itertools.pairwise(runs))):
                return False
        return True

    def crash_restart(self) -> None:
        """Sessions are gone; the share coordinator's shards replay their logs, and each share
        partition is read again from them by a new object at the next leader epoch."""
        self.sessions.clear()
        self.coordinator.handle(ss.Restart(), next(self.index))
        for p, m in self.machines.items():
            answer = m.handle(Reload(self.latest_offset(p)), next(self.index)).answers[0].response
            assert isinstance(answer, ReloadResponse) and answer.error is Errors.NONE, answer

    def _read(self, p: Partition, offset: int) -> tuple[LogBatch, ...]:
        """The log from the batch holding ``offset`` on: what the broker reads for a fetch."""
        at = bisect.bisect_left(self.log_ends[p], offset)
        return tuple(self.logs[p][at:at + 64])

    def _acknowledge(self, member: str, acks: Any) -> dict[Partition, Errors]:
        errors: dict[Partition, Errors] = {}
        for p, event in wire.acknowledge_events(member, acks):
            m = self.machines.get(p)
            if m is None:
                errors[p] = Errors.UNKNOWN_TOPIC_OR_PARTITION
                continue
            answer = m.handle(event, next(self.index)).answers[0].response
            assert isinstance(answer, AcknowledgeResponse)
            errors[p] = answer.error
        return errors

    def share_fetch(self, member: str, request: ShareFetchSent, max_records: int) -> FetchAnswered:
        if request.session_epoch == 0:
            session = self.sessions[member] = Session(1, set(request.added))
        else:
            found = self.sessions.get(member)
            if found is None:
                return wire.fetch_answered([], Errors.SHARE_SESSION_NOT_FOUND)
            if found.epoch != request.session_epoch:
                return wire.fetch_answered([], Errors.INVALID_SHARE_SESSION_EPOCH)
            session = found
            session.epoch += 1
            session.partitions = (session.partitions - set(request.forgotten)) | set(request.added)
        errors = self._acknowledge(member, request.acknowledgements)
        parts = []
        for p in sorted(session.partitions | set(errors)):
            response = None
            m = self.machines.get(p)
            # A ShareFetch carrying a RENEW asks for no records (IsRenewAck, max records 0).
            if p in session.partitions and m is not None and not _renews(request):
                offset = m.partition.next_fetch_offset()
                log = self._read(p, offset)
                if log:
                    answer = m.handle(wire.fetch_event(member, offset, log, max_records),
                                      next(self.index)).answers[0].response
                    assert isinstance(answer, FetchResponse)
                    response = answer
            parts.append(wire.fetch_partition(p, response, errors.get(p, Errors.NONE)))
        return wire.fetch_answered(parts)

    def share_acknowledge(self, member: str, request: ShareAcknowledgeSent) -> AcknowledgeAnswered | None:
        """The answer, or None when the broker knows no such session (the connection is closed)."""
        session = self.sessions.get(member)
        if session is None or (request.session_epoch != -1 and session.epoch != request.session_epoch):
            return None
        errors = self._acknowledge(member, request.acknowledgements)
        if request.session_epoch == -1:
            # Closing the share session releases what the member still holds.
            for p in sorted(session.partitions):
                self.machines[p].handle(ReleaseMember(member), next(self.index))
            del self.sessions[member]
        else:
            session.epoch += 1
        return wire.acknowledge_answered(errors)


@dataclass
class Consumer:
    member_id: str
    client: ShareDeliveryConsumer
    explicit: bool
    close_at: int | None
    attempt: int = 0
    #: The acknowledge operation awaiting its completion in the history (the offsets asked).
    asking: list[list[Any]] | None = None
    stalled_until: int = 0
    #: The request in flight is a ShareFetch (its poll operation awaits completion).
    fetching: bool = False
    closed: bool = False
    #: Each record object the client was handed (by identity: two copies of one offset are equal
    #: values), with the index of the poll operation that recorded its delivery.
    copies: dict[int, tuple[Record, int]] = field(default_factory=dict)


@dataclass
class DeliveryStats:
    #: Records the application's polls returned (the history's polls count what the broker handed out).
    deliveries: int = 0
    acknowledgements: int = 0
    requests: int = 0
    lost: int = 0
    crashes: int = 0
    closes: int = 0
    application_errors: int = 0
    #: When every record had reached an end (None: not within the quiet limit).
    done_at_ms: int | None = None


class DeliverySimulation:
    """One seeded run: :meth:`run` plays it to the end and returns the history."""

    def __init__(self, config: DeliverySimConfig = DeliverySimConfig()) -> None:
        check_config(config)
        self.config = config
        self.random = random.Random(config.seed)
        self.broker = Broker(config)
        self.history = History()
        self.stats = DeliveryStats()
        self.now = 0
        self.down_until = -1
        self.generation = 0
        self.quiet = False
        self.consumers: list[Consumer] = []
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._names = itertools.count()
        self.partitions = tuple(sorted(self.broker.machines))
        for i in range(config.consumers):
            self._join(may_close=i > 0)
        for _ in range(config.batches):
            self._at(self.random.randrange(config.lossy_ms), self._produce)
        for _ in range(config.crashes):
            self._at(self.random.randrange(config.lossy_ms - config.downtime_ms), self._crash)
        self._at(config.lossy_ms, self._go_quiet)
        self._at(config.lossy_ms, self._done_watch)

    # -- the event queue ----------------------------------------------------------------------------

    def _at(self, when: int, action: Callable[[], None]) -> None:
        heapq.heappush(self._queue, (when, next(self._seq), action))

    def run(self) -> History:
        end = self.config.lossy_ms + self.config.quiet_limit_ms
        while self._queue and self._queue[0][0] <= end and self.stats.done_at_ms is None:
            when, _, action = heapq.heappop(self._queue)
            if when > self.now:
                self.now = when
                self.broker.advance(when)
            action()
        return self.history

    def _up(self) -> bool:
        return self.now >= self.down_until

    def _delay(self) -> int:
        return self.random.randint(self.config.min_delay_ms, self.config.max_delay_ms)

    def _lost(self) -> bool:
        if self.quiet or self.random.random() >= self.config.loss:
            return False
        self.stats.lost += 1
        return True

    # -- the producer and the nemesis ---------------------------------------------------------------

    def _produce(self) -> None:
        if not self._up():
            return  # the leader is down: the producer's batch is not appended
        p = self.random.choice(self.partitions)
        first, last = self.broker.produce(p, self.random.randint(1, self.config.max_batch))
        self.history.add(self.now, "producer", "invoke", "produce", [[p.topic, p.partition, first, last]])
        self.history.add(self.now, "producer", "ok", "produce", [[p.topic, p.partition, first, last]])

    def _crash(self) -> None:
        if not self._up():
            return
        self.stats.crashes += 1
        self.generation += 1
        self.down_until = self.now + self.config.downtime_ms
        self.history.add(self.now, "nemesis", "info", "crash", None)
        self._at(self.down_until, self._restart)

    def _restart(self) -> None:
        self.broker.crash_restart()
        self.history.add(self.now, "nemesis", "info", "restart", None)

    def _go_quiet(self) -> None:
        self.quiet = True
        self.history.add(self.now, "nemesis", "ok", "quiet", None)

    # -- the consumers ------------------------------------------------------------------------------

    def _join(self, may_close: bool) -> None:
        c = self.config
        explicit = self.random.random() < 0.5
        mode = AcknowledgementMode.EXPLICIT if explicit else AcknowledgementMode.IMPLICIT
        closes = may_close and self.random.random() < c.close
        close_at = self.now + self.random.randrange(c.lossy_ms) if closes else None
        consumer = Consumer(f"c{next(self._names)}", ShareDeliveryConsumer(
            DeliveryConfig(mode, max_poll_records=self.random.randint(3, 20))), explicit, close_at)
        self.consumers.append(consumer)
        self._handle(consumer, Assign(self.partitions))
        self._at(self.now + self.random.randint(0, c.poll_interval_ms), lambda: self._tick(consumer))

    def _tick(self, c: Consumer) -> None:
        if c.closed:
            return
        interval = self.config.poll_interval_ms
        self._at(self.now + self.random.randint(interval // 2, interval), lambda: self._tick(c))
        if self.now < c.stalled_until:
            return
        if c.client.view().phase is Phase.BLOCKED:
            return
        if not self.quiet and self.random.random() < self.config.stall:
            c.stalled_until = self.now + 2 * self.config.lock_duration_ms
            return
        if c.explicit:
            marked = {(m.topic, m.partition, m.offset) for m in c.client.view().marked}
            for r in c.client.view().delivered:
                if (r.topic, r.partition, r.offset) not in marked:
                    if self.config.renew and self.random.random() < self.config.renew:  # no draw at 0
                        self._handle(c, Acknowledge(r.topic, r.partition, r.offset, AcknowledgeType.RENEW))
                        continue
                    kind = self.random.choices((AcknowledgeType.ACCEPT, AcknowledgeType.RELEASE,
                                                AcknowledgeType.REJECT), self.config.weights)[0]
                    self._handle(c, Acknowledge(r.topic, r.partition, r.offset, kind))
        if c.close_at is not None and self.now >= c.close_at:
            self._handle(c, Close())
            self.stats.closes += 1
            c.closed = True
            self._join(may_close=True)
            return
        choice = self.random.random()
        if choice < 0.05:
            self._handle(c, CommitSync())
            return
        if choice < 0.15:
            self._handle(c, CommitAsync())
        out = self._handle(c, Poll())
        self.stats.deliveries += len(out.records)

    def _handle(self, c: Consumer, event: DeliveryEvent) -> DeliveryOutput:
        out = c.client.handle(event)
        if out.error is not None:
            self.stats.application_errors += 1
        if out.sent is not None:
            self._send(c, out.sent)
        return out

    def _send(self, c: Consumer, sent: ShareFetchSent | ShareAcknowledgeSent) -> None:
        self.stats.requests += 1
        c.fetching = isinstance(sent, ShareFetchSent)
        if c.fetching:
            self.history.add(self.now, c.member_id, "invoke", "poll", None)
        acks = wire.history_acknowledgements(sent.acknowledgements, self._copy_of(c, sent))
        if acks:
            self.history.add(self.now, c.member_id, "invoke", "acknowledge", acks)
            c.asking = acks
            self.stats.acknowledgements += len(acks)
        c.attempt += 1
        attempt, generation = c.attempt, self.generation
        self._at(self.now + self.config.request_timeout_ms, lambda: self._failed(c, attempt))
        if self._lost():
            return
        self._at(self.now + self._delay(), lambda: self._arrive(c, attempt, generation, sent))

    def _copy_of(self, c: Consumer, sent: ShareFetchSent | ShareAcknowledgeSent
                 ) -> Callable[[str, int, int], tuple[int, int]]:
        """Which delivered copy each offset of ``sent`` acknowledges: the client's acknowledgements
        in flight keep the record object they were given for, and the simulation knows which poll
        handed that object out."""
        m = c.client.manager
        if isinstance(sent, ShareFetchSent):
            in_flight = m.fetch_acknowledgements_in_flight
        else:
            assert m.pending_state is not None
            in_flight = m.pending_state.in_flight

        def copy(topic: str, partition: int, offset: int) -> tuple[int, int]:
            record = in_flight[Partition(topic, partition)].copies[offset]
            kept, poll = c.copies[id(record)]
            assert kept is record
            return record.delivery_count, poll

        return copy

    def _arrive(self, c: Consumer, attempt: int, generation: int,
                sent: ShareFetchSent | ShareAcknowledgeSent) -> None:
        if generation != self.generation or not self._up():
            return  # the broker crashed with the request in flight, or is down
        answer: FetchAnswered | AcknowledgeAnswered | None
        delay = self._delay()
        if isinstance(sent, ShareFetchSent):
            answer = self.broker.share_fetch(c.member_id, sent, c.client.config.max_poll_records)
            if not sent.acknowledgements and answer.error is Errors.NONE and \
                    not any(p.acquired_records for p in answer.partitions):
                delay += self.config.long_poll_ms
        else:
            answer = self.broker.share_acknowledge(c.member_id, sent)
        if answer is None:
            self._at(self.now + delay, lambda: self._failed(c, attempt))
            return
        if self._lost():
            return
        reply = answer
        self._at(self.now + delay, lambda: self._answer(c, attempt, generation, reply))

    def _answer(self, c: Consumer, attempt: int, generation: int,
                answer: FetchAnswered | AcknowledgeAnswered) -> None:
        if c.attempt != attempt or generation != self.generation:
            return  # timed out already, or the crash closed the connection (its timeout reports it)
        c.attempt += 1
        if c.asking is not None:
            outcome, value = wire.acknowledgement_outcome(c.asking, answer)
            self.history.add(self.now, c.member_id, outcome, "acknowledge", value)
            c.asking = None
        if isinstance(answer, FetchAnswered) and answer.error is Errors.NONE:
            # Handed out when the consumer receives them, not when the application's poll takes
            # them from the buffer: a record may wait there past its lock, and what the broker
            # promises is about acquisitions (docs/machines/share_delivery.md, "End to end").
            value = [[p.topic, p.partition, o, a.delivery_count] for p in answer.partitions
                     for a in p.acquired_records for o in range(a.first_offset, a.last_offset + 1)]
            poll = self.history.add(self.now, c.member_id, "ok", "poll", value).index
            buffered = len(c.client.fetch_buffer)
            self._handle(c, answer)
            c.copies.update((id(r), (r, poll)) for r in c.client.fetch_buffer[buffered:])
            return
        if isinstance(answer, FetchAnswered):
            self.history.add(self.now, c.member_id, "fail", "poll", None)
        self._handle(c, answer)

    def _failed(self, c: Consumer, attempt: int) -> None:
        if c.attempt != attempt:
            return
        c.attempt += 1
        if c.fetching:
            # The fetch may have acquired records the consumer never saw.
            self.history.add(self.now, c.member_id, "info", "poll", None)
        if c.asking is not None:
            self.history.add(self.now, c.member_id, "info", "acknowledge", None)
            c.asking = None
        self._handle(c, RequestFailed())

    def _check_done(self) -> None:
        if (self.quiet and self.broker.done() and all(c.asking is None for c in self.consumers)
                and all(c.closed or c.client.view().phase is not Phase.BLOCKED for c in self.consumers)):
            self.stats.done_at_ms = self.now

    def _done_watch(self) -> None:
        self._check_done()
        if self.stats.done_at_ms is None:
            self._at(self.now + self.config.poll_interval_ms, self._done_watch)


def _renews(request: ShareFetchSent) -> bool:
    return any(AcknowledgeType.RENEW.value in b.acknowledge_types
               for pa in request.acknowledgements for b in pa.batches)


def simulate(config: DeliverySimConfig) -> tuple[History, DeliveryStats]:
    sim = DeliverySimulation(config)
    return sim.run(), sim.stats


__all__ = ["Broker", "DeliverySimConfig", "DeliverySimulation", "DeliveryStats", "check_config", "simulate",
           "topic_id"]

"""share_partition vectors realised against a live broker (``--target kafka://HOST:PORT``).

A share_partition vector drives one ``SharePartition`` from the inside: each Fetch names the
fetch offset and the log batches the broker read, and the answers are what ``acquire`` and
``acknowledge`` return. A live broker only shows its wire, so a run is realised as a share group
on a fresh one-partition topic, and only where the wire's steps are exactly the vector's:

* Setup. A unique topic (one partition) and group. Every member the vector names gets a member
  id of its own (Kafka parses share member ids as base64 uuids) and heartbeats
  (ShareGroupHeartbeat) until it is assigned the partition. The first member to fetch then sends
  a ShareFetch while the log is still empty: a new group starts at the log's end
  (share.auto.offset.reset=latest), so the share partition is loaded at offset 0 before any
  record exists, which is the vector's empty persisted state at start offset 0.
* Records. The vector's log batches are produced as record batches (groupspec's writer, one
  Produce per batch), each just before the first Fetch whose log names it. Offsets are the
  broker's, so the batches must tile the log without holes (a hole needs compaction or control
  records, which Produce cannot make). A log that starts above 0 gets that many records before
  the share partition loads, which then starts at the log's end instead of the vector's 0: only
  where the implementation answers every event the same from there.
* Fetch -> ShareFetch of that member (its share session's next epoch; the vector's MaxRecords
  and BatchSize; a short MaxWait, the time an empty answer costs). The broker reads the log
  from the share partition's next fetch offset, every batch from the one holding it, and reads
  nothing when its fetch gate is shut; so the run is realised only if, at every Fetch, the
  vector's fetch offset is that next fetch offset, its log is exactly those batches, and a shut
  gate goes with an empty answer. groupspec's implementation (which follows Kafka's code) is
  stepped through the vector to know these before anything is sent.
* Acknowledge -> ShareAcknowledge in the member's session (IsRenewAck when a RENEW is among
  the types); the partition's error code is the answer. ReleaseMember -> ShareAcknowledge at
  epoch -1, which closes the member's share session and releases what it holds (the broker does
  so after answering, so the run waits ``RELEASE_WAIT_S`` after it); a later Fetch opens a new
  session.
* Time. As for the other machines: 1:1 real time, a clock advance sleeps to the same instant
  after the run's start, shifted by how far the run fell behind; lock deadlines (the vector's
  clock at an acquiring Fetch or a RENEW, plus the lock duration) that a clock advance stops
  short of by less than ``resolution_s`` cannot be told apart by sleeping.
* Configuration. The delivery count limit, the in-flight limit and the lock duration are the
  broker's (group.share.delivery.count.limit, group.share.partition.max.record.locks,
  group.share.record.lock.duration.ms): read from the broker with DescribeConfigs, else as the
  address declares them, else Kafka's defaults (the target's notes say which), and the lock
  duration is checked against what ShareFetch answers. A vector whose value differs
  answers unsupported when the difference shows, that is when the implementation run with the
  broker's value answers differently.
* Not realised (unsupported with the reason): a non-empty persisted start state, persister
  errors, leader fencing, state resets, reloads, log start moves (DeleteRecords is not in
  groupspec.wire), the fetch gate asked alone.
* What is judged: the answers. The persister's writes and the share partition's internal state
  (the view) are the broker's inside, taken from the run's own output (``unobserved``).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from groupspec.conformance.targets import Response
from groupspec.conformance.wire_target import Conn, Names, Scaling, Unrealisable, Waiter, select_readable
from groupspec.types import InputError
from groupspec.types import share_partition as sp
from groupspec.types.errors import Errors

#: What the output of a share_partition run leaves to the broker's inside.
UNOBSERVED = ("outputs[].writes", "view")
#: The broker settings a share partition runs with: property -> (config field, Kafka's default)
#: (ShareGroupConfig).
ASSUMED = {
    "group.share.delivery.count.limit": ("delivery_count_limit", 5),
    "group.share.partition.max.record.locks": ("max_in_flight_records", 2_000),
    "group.share.record.lock.duration.ms": ("record_lock_duration_ms", 30_000),
}
#: How long a ShareFetch with nothing to acquire waits at the broker (what an empty answer costs).
MAX_WAIT_MS = 200
#: How long a closed share session's records take to be released after the broker answers (it
#: releases them once the answer is sent; a persister write, milliseconds on a test node).
RELEASE_WAIT_S = 0.25
#: ShareFetch's API key (v1 brought MaxRecords and BatchSize, which a run sends).
SHARE_FETCH = 78
#: Session-level errors: the request did not move the share session's epoch.
_SESSION_ERRORS = frozenset({Errors.SHARE_SESSION_NOT_FOUND, Errors.INVALID_SHARE_SESSION_EPOCH,
                             Errors.SHARE_SESSION_LIMIT_REACHED})
_WHY_NOT: dict[type, str] = {
    sp.SetPersisterError: "persister errors are scripted; a broker's share coordinator answers by itself",
    sp.FenceLeader: "a leader change needs a second broker and a partition reassignment",
    sp.ResetShareState: "a share state reset needs AlterShareGroupOffsets, which groupspec.wire "
                        "does not speak",
    sp.Reload: "reloading a share partition needs a leader failover or a broker restart",
    sp.MoveLogStart: "moving the log start needs DeleteRecords, which groupspec.wire does not speak",
    sp.CanAcquire: "the fetch gate is asked inside the broker; the wire shows it only as a "
                   "fetch that waits",
}


@dataclasses.dataclass(frozen=True)
class Plan:
    """What the run needs, worked out before anything is sent."""

    #: Member symbols, in the order the vector first names them.
    members: tuple[str, ...]
    #: Event index -> the log batches to produce just before it.
    produce: Mapping[int, tuple[sp.LogBatch, ...]]
    #: Whether the run's clock moves (lag then matters).
    timed: bool
    #: Members that acknowledge or leave before they ever fetch: their share sessions are opened
    #: empty at the start (a ShareFetch naming no partition), as a client with nothing fetched yet.
    bare: tuple[str, ...] = ()
    #: Records produced before the share partition is loaded (the log's first offset).
    filler: int = 0


def member_id() -> str:
    """A member id as a Kafka client draws one (``Uuid.toString``: url-safe base64, no padding)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


def _answers(run: Any, config: sp.SharePartitionConfig) -> list[tuple[object, ...]]:
    from groupspec.impl.share_partition import SharePartitionMachine

    machine = SharePartitionMachine(config, run.persisted, start_ms=run.start_ms,
                                    latest_offset=run.latest_offset)
    return [tuple(a.response for a in machine.handle(e, k).answers) for k, e in enumerate(run.events)]


def config_problems(run: Any, declared: Mapping[str, str],
                    observed: Mapping[str, int] | None = None) -> list[str]:
    """The broker settings that differ from the vector's where the answers would show it:
    the implementation run with the broker's value answers differently from the vector's."""
    problems = []
    base: list[tuple[object, ...]] | None = None
    for prop, (field, default) in ASSUMED.items():
        want = getattr(run.config, field)
        try:
            have = int(observed[prop]) if observed and prop in observed else int(declared.get(prop, default))
        except ValueError:
            raise InputError("--target", f"{prop}={declared[prop]!r} is not a number") from None
        if want == have:
            continue
        if base is None:
            base = _answers(run, run.config)
        try:
            other = _answers(run, sp.check_config(dataclasses.replace(run.config, **{field: have})))
        except InputError:
            other = None
        if other != base:
            source = ("from the broker" if observed and prop in observed
                      else "declared" if prop in declared else "Kafka's default, assumed")
            problems.append(f"the vector needs {prop}={want}, the broker has {have} ({source})")
    return problems


def plan(run: Any, scaling: Scaling) -> Plan:
    """Raise Unrealisable for a run the wire cannot realise (module docstring); else its Plan."""
    from groupspec.impl.share_partition import SharePartitionMachine

    for event in run.events:
        why = _WHY_NOT.get(type(event))
        if why is not None:
            raise Unrealisable(f"{type(event).__name__}: {why}")
    fresh = (run.persisted.batches == () and run.persisted.state_epoch == 0
             and (run.persisted.start_offset == 0
                  or (run.persisted.start_offset == -1 and run.latest_offset == 0)))
    if not fresh:
        raise Unrealisable("the vector starts from a persisted state (start offset "
                           f"{run.persisted.start_offset}, {len(run.persisted.batches)} state batch(es), "
                           f"state epoch {run.persisted.state_epoch}); a new share group's partition "
                           "starts empty at offset 0, and the share coordinator cannot be written over "
                           "the wire")
    members: list[str] = []
    fetched: set[str] = set()
    bare: list[str] = []
    for event in run.events:
        m = getattr(event, "member_id", None)
        if m is None:
            continue
        if m not in members:
            members.append(m)
        if m not in fetched and not isinstance(event, sp.Fetch):
            bare.append(m)
        fetched.add(m)
    # The log: batches tiling it from offset 0, each produced before the first fetch naming it.
    known: dict[int, int] = {}
    for event in run.events:
        if isinstance(event, sp.Fetch):
            for b in event.log:
                if known.setdefault(b.base_offset, b.last_offset) != b.last_offset:
                    raise Unrealisable(f"the vector's log has two batches at offset {b.base_offset}")
    # A log that starts above 0: that many records are produced before the share partition is
    # loaded, which then starts at the log's end (share.auto.offset.reset=latest), not at the
    # vector's start offset 0; realised only where the implementation answers the same from there.
    filler = min(known, default=0)
    if filler > 0:
        shifted = dataclasses.replace(run, persisted=sp.PersistedState(0, filler, ()))
        if _answers(shifted, run.config) != _answers(run, run.config):
            raise Unrealisable(f"the vector's log starts at offset {filler}: a new share group would "
                               f"start there (share.auto.offset.reset=latest), not at the vector's start "
                               "offset 0, and the answers tell the two apart")
        run = shifted
    end = filler
    for base in sorted(known):
        if base < end:
            raise Unrealisable(f"the vector's log has batches that overlap at offset {base}")
        if base > end:
            raise Unrealisable(f"the vector's log has no records at offsets {end}..{base - 1} (compaction "
                               "or control records), which Produce cannot make")
        end = known[base] + 1
    produced: list[sp.LogBatch] = []
    produce: dict[int, tuple[sp.LogBatch, ...]] = {}
    machine = SharePartitionMachine(run.config, run.persisted, start_ms=run.start_ms,
                                    latest_offset=run.latest_offset)
    now, lock = run.start_ms, run.config.record_lock_duration_ms
    deadlines: list[int] = []
    stops: list[int] = []
    for k, event in enumerate(run.events):
        if isinstance(event, sp.Fetch):
            for b in event.log:
                if b in produced:
                    continue
                end = produced[-1].last_offset + 1 if produced else filler
                if b.base_offset != end:
                    raise Unrealisable(f"event {k}: the vector's log names the batch {b.base_offset}.."
                                       f"{b.last_offset} while the log ends at {end}")
                produced.append(b)
                produce[k] = (*produce.get(k, ()), b)
            view = machine.view()
            if event.fetch_offset != view.next_fetch_offset:
                raise Unrealisable(f"event {k}: the vector fetches from offset {event.fetch_offset}; a "
                                   "broker reads from the share partition's next fetch offset, "
                                   f"{view.next_fetch_offset}")
            read = tuple(b for b in produced if b.last_offset >= view.next_fetch_offset)
            if tuple(event.log) != read:
                raise Unrealisable(f"event {k}: the vector's fetch read {_batches(event.log)}; a broker "
                                   f"reads every batch from its next fetch offset on, {_batches(read)}")
            gate = machine.handle(sp.CanAcquire(), k).answers[0].response
            output = machine.handle(event, k)
            got = output.answers[0].response
            assert isinstance(gate, sp.CanAcquireResponse) and isinstance(got, sp.FetchResponse)
            if not gate.can_acquire and got.acquired:
                raise Unrealisable(f"event {k}: the share partition's fetch gate is shut (no record to "
                                   "deliver again, the in-flight limit reached), so a broker would not read "
                                   "the log, yet the vector acquires")
            if got.acquired:
                deadlines.append(now + lock)
            continue
        if isinstance(event, sp.Acknowledge) and _renews(event):
            deadlines.append(now + lock)
        if isinstance(event, sp.AdvanceClock) and event.to_ms > now:
            if (event.to_ms - now) / 1000 < scaling.resolution_s:
                raise Unrealisable(f"the clock steps from {now} to {event.to_ms} ms, finer than real time "
                                   f"can realise (resolution_s={scaling.resolution_s:g})")
            now = event.to_ms
            stops.append(now)
        machine.handle(event, k)
    for t in stops:
        for d in deadlines:
            if 0 < d - t < scaling.resolution_s * 1000:
                raise Unrealisable(f"the clock stops at {t} ms, {d - t} ms before a lock deadline at {d} "
                                   "ms, closer than real time can keep apart "
                                   f"(resolution_s={scaling.resolution_s:g})")
    advance = now - run.start_ms
    if advance / 1000 > scaling.budget_s:
        raise Unrealisable(f"the clock advances {advance} ms, which real time 1:1 cannot realise within "
                           f"the per-vector budget of {scaling.budget_s:g} s (?budget_s=)")
    return Plan(tuple(members), produce, advance > 0, tuple(bare), filler)


def _batches(batches: Sequence[sp.LogBatch]) -> str:
    if not batches:
        return "nothing"
    return "[" + ", ".join(f"{b.base_offset}..{b.last_offset}" for b in batches) + "]"


def _renews(event: sp.Acknowledge) -> bool:
    return any(sp.AcknowledgeType.RENEW in b.types for b in event.batches)


def _error(code: int, api: str) -> Errors:
    try:
        return Errors(code)
    except ValueError:
        raise Unrealisable(f"{api} answered error code {code}, which groupspec's vocabulary does not "
                           "name") from None


class SharePartitionRun:
    """One share_partition run against a broker (module docstring)."""

    def __init__(self, run: Any, the_plan: Plan, names: Names, *, coordinator: Conn, leader: Conn,
                 topic: str, topic_id: uuid.UUID, scaling: Scaling, timeout: float,
                 clock: Callable[[], float] = time.monotonic, wait: Waiter = select_readable,
                 wall: Callable[[], float] = time.time) -> None:
        self.run, self.plan, self.names = run, the_plan, names
        self.wall = wall
        self.coordinator, self.leader = coordinator, leader
        self.topic, self.topic_id = topic, topic_id
        self.scaling, self.timeout = scaling, timeout
        self.clock, self.wait = clock, wait
        self.ids = {m: member_id() for m in the_plan.members}
        self.member_epochs = dict.fromkeys(the_plan.members, 0)
        #: A member's next share session epoch (0: no session open).
        self.sessions = dict.fromkeys(the_plan.members, 0)
        self.group = names.group("share-partition")
        #: The lock duration ShareFetch answered (None before the first answer).
        self.lock_ms: int | None = None

    # -- the group ----------------------------------------------------------------------------

    def _heartbeat(self, member: str, *, subscribe: bool = False, leave: bool = False) -> Any:
        from groupspec.wire import messages as w

        epoch = -1 if leave else self.member_epochs[member]
        request = w.ShareGroupHeartbeatRequest(
            group_id=self.group, member_id=self.ids[member], member_epoch=epoch,
            subscribed_topic_names=(self.topic,) if subscribe else None)
        answer = self.coordinator.request(request)
        if answer.error_code == 0 and not leave:
            self.member_epochs[member] = answer.member_epoch
        return answer

    def _assigned(self, answer: Any) -> bool:
        if answer.assignment is None:
            return False
        return any(t.topic_id == self.topic_id and 0 in t.partitions
                   for t in answer.assignment.topic_partitions)

    def join(self) -> None:
        """Every member heartbeats until the partition is its own (the last one's joining may
        move the assignment, so all are asked again after)."""
        deadline = self.clock() + max(self.timeout, 15.0)
        pending = set(self.plan.members)
        first = True
        while pending:
            for member in self.plan.members:
                answer = self._heartbeat(member, subscribe=first)
                if answer.error_code != 0:
                    raise Unrealisable(f"member {member!r}'s ShareGroupHeartbeat answered error code "
                                       f"{answer.error_code} {answer.error_message or ''}".rstrip())
                if self._assigned(answer):
                    pending.discard(member)
            first = False
            if pending:
                if self.clock() >= deadline:
                    raise Unrealisable(f"member(s) {sorted(pending)} were not assigned the partition within "
                                       f"{max(self.timeout, 15.0):g} s")
                self.wait([], 0.1)

    def leave(self) -> None:
        for member in self.plan.members:
            with contextlib.suppress(Exception):  # leaving is tidying; the run's answers are in
                self._heartbeat(member, leave=True)

    # -- share sessions -----------------------------------------------------------------------

    def _fetch(self, member: str, *, max_records: int, batch_size: int, max_wait_ms: int) -> Any:
        from groupspec.wire import messages as w

        T = w.ShareFetchRequest.FetchTopic
        partition = T.FetchPartition(partition_index=0, acknowledgement_batches=())
        request = w.ShareFetchRequest(
            group_id=self.group, member_id=self.ids[member], share_session_epoch=self.sessions[member],
            max_wait_ms=max_wait_ms, min_bytes=1, max_records=max_records, batch_size=batch_size,
            topics=(T(topic_id=self.topic_id, partitions=(partition,)),), forgotten_topics_data=())
        answer = self.leader.request(request)
        if _error(answer.error_code, "ShareFetch") not in _SESSION_ERRORS:
            self.sessions[member] += 1
        return answer

    def _partition(self, answer: Any, api: str, *, optional: bool = False) -> Any:
        """The run's partition in an answer; None when ``optional`` and it is not there (an
        incremental ShareFetch leaves out a partition with nothing to say)."""
        parts = [p for t in answer.responses if t.topic_id == self.topic_id for p in t.partitions
                 if p.partition_index == 0]
        if answer.error_code != 0:
            raise Unrealisable(f"{api} answered error {_error(answer.error_code, api).name}: "
                               f"{answer.error_message or ''}".rstrip(": "))
        if not parts and optional:
            return None
        if len(parts) != 1:
            raise Unrealisable(f"{api} answered {len(parts)} entries for the run's partition")
        return parts[0]

    def prime(self) -> None:
        """The first fetching member loads the share partition while the log is empty."""
        first = next(e.member_id for e in self.run.events if isinstance(e, sp.Fetch))
        deadline = self.clock() + max(self.timeout, 15.0)
        while True:
            answer = self._fetch(first, max_records=1, batch_size=1, max_wait_ms=MAX_WAIT_MS)
            # Kafka lists every partition in the answer that opens a session; one that leaves a
            # quiet partition out (franz-go's kfake) says nothing went wrong either.
            part = self._partition(answer, "ShareFetch", optional=True)
            if answer.acquisition_lock_timeout_ms:
                self.lock_ms = answer.acquisition_lock_timeout_ms
            if part is None:
                return
            if part.error_code == 0:
                if part.acquired_records:
                    got = ", ".join(f"{a.first_offset}..{a.last_offset}" for a in part.acquired_records)
                    raise Unrealisable(f"the share partition loaded below the log's end (the priming fetch "
                                       f"acquired {got}); a new share group starts at the end "
                                       "(share.auto.offset.reset=latest)")
                return
            if self.clock() >= deadline:
                raise Unrealisable(f"the share partition did not load: error code {part.error_code} "
                                   f"{part.error_message or ''}".rstrip())
            self.wait([], 0.2)

    def open_bare(self) -> None:
        """Open the share session of each member that acknowledges before it fetches, naming no
        partition: such a session acquires nothing."""
        from groupspec.wire import messages as w

        for member in self.plan.bare:
            if self.sessions[member]:  # the priming fetch opened it already
                continue
            request = w.ShareFetchRequest(
                group_id=self.group, member_id=self.ids[member], share_session_epoch=0, max_wait_ms=0,
                min_bytes=1, max_records=1, batch_size=1, topics=(), forgotten_topics_data=())
            answer = self.leader.request(request)
            if answer.error_code != 0:
                raise Unrealisable(f"member {member!r}'s empty ShareFetch answered error "
                                   f"{_error(answer.error_code, 'ShareFetch').name}")
            self.sessions[member] = 1

    def fill(self) -> None:
        """Records below the vector's log, produced before the share partition loads."""
        if self.plan.filler:
            self._produce(sp.LogBatch(0, self.plan.filler - 1))

    def _produce(self, batch: sp.LogBatch) -> None:
        from groupspec.wire.produce import produce

        values: list[tuple[bytes | None, bytes | None]] = [
            (None, b"groupspec-%d" % offset) for offset in range(batch.base_offset, batch.last_offset + 1)]
        # Stamped with the wall's time: a record from 1970 is past any retention the broker has.
        base = produce(cast(Any, self.leader), self.topic, 0, values, timestamp_ms=int(self.wall() * 1000),
                       timeout_ms=int(self.timeout * 1000))
        if base != batch.base_offset:
            raise Unrealisable(f"the vector's batch starts at offset {batch.base_offset}, the broker "
                               f"appended it at {base}")

    def _ack(self, event: sp.Acknowledge) -> sp.AcknowledgeResponse:
        from groupspec.wire import messages as w

        T = w.ShareAcknowledgeRequest.AcknowledgeTopic
        batches = tuple(T.AcknowledgePartition.AcknowledgementBatch(b.first_offset, b.last_offset, b.types)
                        for b in event.batches)
        renew = _renews(event)
        request = w.ShareAcknowledgeRequest(
            group_id=self.group, member_id=self.ids[event.member_id],
            share_session_epoch=self.sessions[event.member_id], is_renew_ack=renew,
            topics=(T(topic_id=self.topic_id, partitions=(T.AcknowledgePartition(0, batches),)),))
        answer = self.leader.request(request)
        top = _error(answer.error_code, "ShareAcknowledge")
        if top not in _SESSION_ERRORS:
            self.sessions[event.member_id] += 1
        if top != Errors.NONE:
            return sp.AcknowledgeResponse(top)
        part = self._partition(answer, "ShareAcknowledge")
        return sp.AcknowledgeResponse(_error(part.error_code, "ShareAcknowledge"))

    def _release(self, event: sp.ReleaseMember) -> sp.ReleaseResponse:
        from groupspec.wire import messages as w

        request = w.ShareAcknowledgeRequest(group_id=self.group, member_id=self.ids[event.member_id],
                                            share_session_epoch=-1, topics=())
        answer = self.leader.request(request)
        self.sessions[event.member_id] = 0
        # The broker releases the member's records after answering: give it that moment.
        self.wait([], max(self.scaling.grace_s, RELEASE_WAIT_S))
        return sp.ReleaseResponse(_error(answer.error_code, "ShareAcknowledge"))

    def _fetch_event(self, event: sp.Fetch) -> sp.FetchResponse:
        answer = self._fetch(event.member_id, max_records=event.max_fetch_records,
                             batch_size=event.batch_size, max_wait_ms=MAX_WAIT_MS)
        part = self._partition(answer, "ShareFetch", optional=True)
        if part is None:
            return sp.FetchResponse()
        if part.error_code != 0:
            raise Unrealisable(f"ShareFetch answered the partition error "
                               f"{_error(part.error_code, 'ShareFetch').name}, which the vector's Fetch "
                               "cannot answer")
        acquired = tuple(sp.AcquiredRecords(a.first_offset, a.last_offset, a.delivery_count)
                         for a in part.acquired_records)
        return sp.FetchResponse(acquired, sum(a.last_offset - a.first_offset + 1 for a in acquired))

    # -- the run ------------------------------------------------------------------------------

    def drive(self) -> Any:
        from groupspec.conformance.share_partition_json import RunOutput

        run, s = self.run, self.scaling
        origin = self.clock()
        now_ms = run.start_ms
        shift = 0.0
        first_shift: float | None = None
        outputs: list[sp.Output] = []
        for k, event in enumerate(run.events):
            behind = self.clock() - origin - (now_ms - run.start_ms) / 1000
            shift = max(shift, behind)
            first_shift = behind if first_shift is None else first_shift
            if self.plan.timed and shift - first_shift > s.max_lag_s:
                raise Unrealisable(f"the run fell {shift - first_shift:.2f} s behind the vector's clock by "
                                   f"event {k} (more than max_lag_s={s.max_lag_s:g})")
            if isinstance(event, sp.AdvanceClock):
                if event.to_ms > now_ms:
                    now_ms = event.to_ms
                    self._sleep_until(origin + (now_ms - run.start_ms) / 1000 + shift + s.slack_s)
                outputs.append(sp.Output())
                continue
            for batch in self.plan.produce.get(k, ()):
                self._produce(batch)
            response: object
            if isinstance(event, sp.Fetch):
                response = self._fetch_event(event)
            elif isinstance(event, sp.Acknowledge):
                response = self._ack(event)
            elif isinstance(event, sp.ReleaseMember):
                response = self._release(event)
            else:  # plan() let no other event through
                raise Unrealisable(f"{type(event).__name__} has no wire form")
            outputs.append(sp.Output(answers=(sp.Answer(k, response),)))
        view = sp.SharePartitionView(now_ms, "ACTIVE", 0, 0, 0, 0, 0, (), (), None, 0, 0, 0, ())
        return RunOutput(tuple(outputs), view)

    def _sleep_until(self, target: float) -> None:
        """Sleep, heartbeating the members often enough to keep them in the group."""
        while (left := target - self.clock()) > 0:
            self.wait([], min(left, 5.0))
            if target - self.clock() > 0:
                for member in self.plan.members:
                    self._heartbeat(member)


# ---------------------------------------------------------------------------------------------
# The target's side: called by WireTarget.call
# ---------------------------------------------------------------------------------------------


def call(target: Any, doc: Any) -> Response:
    """Answer one share_partition/run vector at ``target`` (a wire_target.WireTarget)."""
    from groupspec.conformance import share_partition_json as form
    from groupspec.wire import NoCommonVersionError, WireError

    try:
        run = form.run_input_from_json(doc)
    except InputError as exc:
        return Response(error=("invalid_input", str(exc)))
    try:
        the_plan = plan(run, target.scaling)
        read = target._broker_settings()
        observed = {prop: int(read[prop]) for prop in ASSUMED if prop in read and read[prop].isdigit()}
        problems = config_problems(run, target.declared, observed)
        if problems:
            raise Unrealisable("; ".join(problems))
        output = _realise(target, run, the_plan, observed)
    except Unrealisable as exc:
        return Response(unsupported=str(exc))
    except NoCommonVersionError as exc:
        return Response(unsupported=f"the broker does not speak what the run needs: {exc}")
    except WireError as exc:
        return Response(broken=f"{type(exc).__name__}: {exc}")
    return Response(output=form.run_output_to_json(output), unobserved=UNOBSERVED)


def _realise(target: Any, run: Any, the_plan: Plan, observed: Mapping[str, int]) -> Any:
    from groupspec.conformance.wire_target import _wait_loaded
    from groupspec.wire import messages as w
    from groupspec.wire.cluster import find_coordinator

    names = Names(f"gs{uuid.uuid4().hex[:10]}")
    topic = names.topic("share-partition")
    opened: list[Conn] = []
    control = target._connect(target.host, target.port, "groupspec")
    opened.append(control)
    try:
        if control.version(SHARE_FETCH) < 1:
            raise Unrealisable("the broker's ShareFetch has no MaxRecords and BatchSize (v1)")
        answer = control.request(w.CreateTopicsRequest(
            topics=(w.CreateTopicsRequest.CreatableTopic(topic, 1, -1, (), ()),),
            timeout_ms=int(target.timeout * 1000)))
        created = answer.topics[0]
        if created.error_code != 0:
            raise Unrealisable(f"cannot create topic {topic!r}: error code {created.error_code} "
                               f"{created.error_message or ''}".rstrip())
        leader = _leader(target, control, topic, opened)
        group = names.group("share-partition")
        node = find_coordinator(control, group)
        coordinator = control if (node.host, node.port) == (target.host, target.port) \
            else target._connect(node.host, node.port, "groupspec")
        if coordinator is not control:
            opened.append(coordinator)
        _wait_loaded(coordinator, group, target.clock, target.timeout)
        driver = SharePartitionRun(run, the_plan, names, coordinator=coordinator, leader=leader, topic=topic,
                                   topic_id=created.topic_id, scaling=target.scaling, timeout=target.timeout,
                                   clock=target.clock, wait=target.wait)
        try:
            driver.fill()
            driver.join()
            driver.prime()
            driver.open_bare()
            if driver.lock_ms is not None:
                answered = {**observed, "group.share.record.lock.duration.ms": driver.lock_ms}
                problems = config_problems(run, target.declared, answered)
                if problems:
                    raise Unrealisable("; ".join(problems))
            return driver.drive()
        finally:
            driver.leave()
    finally:
        for conn in opened:
            conn.close()


def _leader(target: Any, control: Conn, topic: str, opened: list[Conn]) -> Conn:
    """A connection to the partition's leader, once the broker's metadata shows one."""
    from groupspec.wire import messages as w

    deadline = target.clock() + max(target.timeout, 10.0)
    request = w.MetadataRequest(topics=(w.MetadataRequest.MetadataRequestTopic(name=topic),),
                                allow_auto_topic_creation=False)
    while True:
        meta = control.request(request)
        for t in meta.topics:
            if t.name == topic and t.error_code == 0 and t.partitions and t.partitions[0].leader_id >= 0:
                lead = t.partitions[0].leader_id
                broker = next((b for b in meta.brokers if b.node_id == lead), None)
                if broker is None or (broker.host, broker.port) == (target.host, target.port):
                    return control
                conn: Conn = target._connect(broker.host, broker.port, "groupspec")
                opened.append(conn)
                return conn
        if target.clock() >= deadline:
            raise Unrealisable(f"the run's topic had no leader within {max(target.timeout, 10.0):g} s")
        time.sleep(0.05)

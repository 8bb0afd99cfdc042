"""The share consumer's delivery path, as rules: what a poll returns, what each acknowledgement
mode requires, which request carries an acknowledgement, what the callback hears (Kafka 4.2.1's
``ShareConsumerImpl``, ``ShareConsumeRequestManager``, ``ShareFetch``, ``ShareInFlightBatch``,
``ShareSessionHandler``, ``Acknowledgements``; seed 000, the share consumer's poll).

Theory of operation
-------------------
One step function over the events of one consumer whose assignment is given. Each step runs
the rule for the event (the application thread's call, or the network thread taking an answer),
then one pass of the network thread, which sends at most one request: every assigned partition
is led by one broker, and Kafka's client has at most one request in flight to a node
(``nodesWithPendingRequests``).

* **Poll.** Callbacks waiting for the application run first. Implicit mode then marks every
  record the last poll returned ACCEPT (``acknowledgeBatchIfImplicitAcknowledgement``, which
  keeps a type already given); explicit mode refuses with IllegalStateException while one is
  unmarked (``ensureInFlightAcknowledgedIfExplicitAcknowledgement``). The marks are taken off
  the batch. With records buffered the poll returns up to ``max_poll_records`` of them at once
  and the marks go alone, as a commitAsync would send them; with none buffered it asks for a
  ShareFetch and the marks ride on it (``ShareConsumerImpl.collect``). Its timeout passes
  before any answer: records arriving later wait in the buffer for the next poll.
* **Acknowledge** (explicit mode only: implicit refuses with IllegalStateException) marks a
  record the last poll returned and still held; a later mark replaces an earlier one
  (``Acknowledgements.add`` is a map put). Any other record is refused.
* **Commit.** commitSync and commitAsync mark as a poll does (implicit mode), take the marks
  and send them by ShareAcknowledge; commitSync blocks until its answer and returns each
  partition's outcome. Only partitions of the share session are sent; marks of a partition the
  session forgot are dropped without a callback (``commitSync``/``commitAsync`` walk
  ``sessionPartitions()``).
* **Close** takes the marks *without* implicit ACCEPT (``sendAcknowledgementsAndLeaveGroup``
  calls ``acknowledgementsToSend`` only), adds those waiting to ride on a fetch, and sends them
  on a ShareAcknowledge at session epoch -1 (``AcknowledgeRequestState.buildRequest`` ->
  ``notifyClose``), even with none; it blocks until the answer. Without a share session it
  closes at once.
* **The network pass** sends, in Kafka's order (``processAcknowledgements`` then ``poll``):
  the commitAsync acknowledgements, the commitSync ones, the close; a ShareFetch only when no
  acknowledgement request is waiting, the consumer is not closing, and a poll asked for records
  since the last answer that brought some (``fetchMoreRecords``). A ShareAcknowledge cannot
  open a session: at epoch 0 its acknowledgements fail with SHARE_SESSION_NOT_FOUND unsent; a
  ShareFetch at epoch 0 carries none (they fail with INVALID_SHARE_SESSION_EPOCH,
  ``maybeAddAcknowledgements``). Acknowledgements of a partition no longer assigned ride alone.
* **Share session.** Epoch 0 opens it and adds every partition it ever held; later fetches add
  and forget the difference with the assignment. Every answer moves the epoch on (-1 stays),
  a session error (SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH,
  SHARE_SESSION_LIMIT_REACHED) or a failed request sets it back to 0
  (``ShareSessionHandler.handleResponse`` / ``handleError``).
* **Answers** complete the acknowledgements they carried, per partition; those the answer does
  not name complete with INVALID_RECORD_STATE. A ShareFetch's records go to the buffer, and
  any acquired record stops further fetching until the next poll asks.
* **RENEW** (explicit mode; KIP-1222). Taking the marks sets a RENEW-marked record aside as
  renewing. When the callback of its answer runs, it is renewed (success) or dropped (error)
  (``ShareInFlightBatch.renew``). While any record is renewing or renewed, a poll leaves the
  buffer alone and returns the renewed records, by partition then offset, to be acknowledged
  again; the marks ride on a fetch while some still renew, else go alone
  (``ShareConsumerImpl.collect``). A fetch carrying a RENEW asks for no records (not visible in
  the outputs), so fetching goes on after its answer.
* **The callback** (always registered here) hears each completed partition: offsets and error.
  It runs on the application thread: at the next poll, commit or close, or when the blocked
  commitSync or close returns. The invocations of one answer are listed by partition.

Not modelled: retries of retriable
ShareAcknowledge errors (the input checks take only the final ones, ``FINAL_*_ERRORS``);
time (timeouts, backoff, acquisition locks); leader changes; the record-limit acquire mode;
partition-level ShareFetch errors; answers naming partitions no request named.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import groupby

import icontract

from groupspec.spec import kernel
from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    FINAL_ACKNOWLEDGE_ERRORS,
    FINAL_PARTITION_ERRORS,
    PHASE_PREDECESSORS,
    SESSION_ERRORS,
    Acknowledge,
    AcknowledgeAnswered,
    AcknowledgementBatch,
    AcknowledgementMode,
    AcknowledgeType,
    Assign,
    CallbackInvocation,
    Close,
    CommitAsync,
    CommitResult,
    CommitSync,
    DeliveryConfig,
    DeliveryEvent,
    DeliveryOutput,
    DeliveryView,
    FetchAnswered,
    Marked,
    Partition,
    PartitionAcknowledgements,
    Phase,
    Poll,
    Record,
    Request,
    RequestFailed,
    ShareAcknowledgeSent,
    ShareFetchSent,
)

#: One partition's acknowledgements: offset -> type.
Marks = Mapping[int, AcknowledgeType]
Acks = Mapping[Partition, Marks]
#: ``Acknowledgements.MAX_RECORDS_WITH_SAME_ACKNOWLEDGE_TYPE``: a longer run is a batch of its own.
SAME_TYPE_RUN = 10
CLOSED_ERROR = "IllegalStateException: This consumer has already been closed."
IMPLICIT_ERROR = "IllegalStateException: Implicit acknowledgement of delivery is being used."
UNACKNOWLEDGED_ERROR = ("IllegalStateException: All records must be acknowledged in explicit "
                        "acknowledgement mode.")
UNKNOWN_RECORD_ERROR = "IllegalStateException: The record cannot be acknowledged."


@dataclass(frozen=True)
class State:
    config: DeliveryConfig
    phase: Phase = Phase.OPEN
    blocked: Request | None = None
    assigned: tuple[Partition, ...] = ()
    session_epoch: int = 0
    #: A share session handler exists (made by the first fetch, dropped by the close's answer).
    has_session: bool = False
    session: tuple[Partition, ...] = ()
    #: Partitions of a ShareAcknowledge sent since the last ShareFetch: the next ShareFetch
    #: counts them as wanted, so it does not forget them yet.
    lingering: tuple[Partition, ...] = ()
    in_flight: Request | None = None
    in_flight_acks: Acks = field(default_factory=dict)
    fetch_wanted: bool = False
    buffer: tuple[Record, ...] = ()
    delivered: tuple[Record, ...] = ()
    marked: Acks = field(default_factory=dict)
    riding: Acks = field(default_factory=dict)
    async_acks: Acks = field(default_factory=dict)
    sync_acks: Acks | None = None
    close_acks: Acks | None = None
    waiting: tuple[CallbackInvocation, ...] = ()
    #: Records marked RENEW whose acknowledgements have not completed yet (taken from the batch).
    renewing: tuple[Record, ...] = ()
    #: Renewed records waiting for the next poll to return them again.
    renewed: tuple[Record, ...] = ()
    #: The partitions of the batch the last buffered poll made, in the order Kafka's
    #: ``ShareFetch`` keeps them: renewed records come back in this order.
    fetch_order: tuple[Partition, ...] = ()


class _Step(kernel.Step[State]):
    def __init__(self, state: State) -> None:
        super().__init__(state)
        self.out_records: tuple[Record, ...] = ()
        self.error: str | None = None
        self.sent: ShareFetchSent | ShareAcknowledgeSent | None = None
        self.callbacks: tuple[CallbackInvocation, ...] = ()
        self.committed: tuple[CommitResult, ...] | None = None

    def output(self) -> DeliveryOutput:
        return DeliveryOutput(self.out_records, self.error, self.sent, self.callbacks, self.committed)


# ---------------------------------------------------------------------------------------------
# Acknowledgements as data
# ---------------------------------------------------------------------------------------------


def merge(a: Acks, b: Acks) -> dict[Partition, Marks]:
    """``a`` with ``b`` added, partition by partition (``Acknowledgements.merge``: b wins)."""
    out = dict(a)
    for p, marks in b.items():
        out[p] = {**out.get(p, {}), **marks}
    return out


def _segments(types: list[AcknowledgeType]) -> Iterator[list[AcknowledgeType]]:
    """A contiguous range's types cut where a run of one type longer than ``SAME_TYPE_RUN``
    starts and ends: such a run is a batch of its own, the stretches between are one each."""
    stretch: list[AcknowledgeType] = []
    for _, run in groupby(types):
        same = list(run)
        if len(same) > SAME_TYPE_RUN:
            if stretch:
                yield stretch
            yield same
            stretch = []
        else:
            stretch.extend(same)
    if stretch:
        yield stretch


def batches(marks: Marks) -> tuple[AcknowledgementBatch, ...]:
    """``Acknowledgements.getAcknowledgementBatches``: contiguous offsets form a range; a batch
    whose types are all one carries that type once."""
    out: list[AcknowledgementBatch] = []
    offsets = sorted(marks)
    start = 0
    for k in range(1, len(offsets) + 1):
        if k < len(offsets) and offsets[k] == offsets[k - 1] + 1:
            continue
        first = offsets[start]
        for seg in _segments([marks[o] for o in offsets[start:k]]):
            ids = tuple(t.value for t in seg)
            one_type = len(set(ids)) == 1
            out.append(AcknowledgementBatch(first, first + len(seg) - 1, ids[:1] if one_type else ids))
            first += len(seg)
        start = k
    return tuple(out)


def wire(acks: Acks) -> tuple[PartitionAcknowledgements, ...]:
    return tuple(PartitionAcknowledgements(p.topic, p.partition, batches(acks[p]))
                 for p in sorted(acks) if acks[p])


def _complete(st: _Step, acks: Acks, error: Errors) -> None:
    """Acknowledgements completed: the callback will hear each partition."""
    calls = tuple(CallbackInvocation(p.topic, p.partition, tuple(sorted(acks[p])), error)
                  for p in sorted(acks) if acks[p])
    st.set(waiting=(*st.state.waiting, *calls))


def _deliver(st: _Step) -> None:
    """``handleCompletedAcknowledgements``: the waiting callbacks run on the application thread,
    and only now does a completed RENEW count (``ShareInFlightBatch.renew``): a renewing record
    whose acknowledgements succeeded is renewed, one whose failed is dropped."""
    renewing, renewed = list(st.state.renewing), list(st.state.renewed)
    for call in st.state.waiting:
        hit = [r for r in renewing if (r.topic, r.partition) == (call.topic, call.partition)
               and r.offset in call.offsets]
        renewing = [r for r in renewing if r not in hit]
        if call.error is Errors.NONE:
            renewed.extend(hit)
    st.callbacks = (*st.callbacks, *st.state.waiting)
    st.set(waiting=(), renewing=tuple(renewing), renewed=tuple(renewed))


# ---------------------------------------------------------------------------------------------
# The application thread
# ---------------------------------------------------------------------------------------------


def _mark_all_accept(st: _Step) -> None:
    """Implicit mode: every held record not yet marked is ACCEPT (``acknowledgeAll``, putIfAbsent)."""
    s = st.state
    if s.config.mode is not AcknowledgementMode.IMPLICIT:
        return
    marked = dict(s.marked)
    for r in s.delivered:
        p = Partition(r.topic, r.partition)
        marked[p] = {r.offset: AcknowledgeType.ACCEPT, **marked.get(p, {})}
    st.set(marked=marked)


def _take_marked(st: _Step) -> Acks:
    """``takeAcknowledgedRecords``: the marks leave the batch with their records."""
    s = st.state
    held = tuple(r for r in s.delivered if r.offset not in s.marked.get(Partition(r.topic, r.partition), {}))
    renew = tuple(r for r in s.delivered
                  if s.marked.get(Partition(r.topic, r.partition), {}).get(r.offset) is AcknowledgeType.RENEW)
    st.set(delivered=held, marked={}, renewing=(*s.renewing, *renew))
    return {p: m for p, m in s.marked.items() if m}


def _in_session(st: _Step, acks: Acks) -> Acks:
    return {p: m for p, m in acks.items() if p in st.state.session}


def _assign(st: _Step, event: Assign) -> None:
    """The membership reconciled a new assignment: the next fetch asks for these partitions."""
    st.set(assigned=tuple(sorted(set(event.partitions))))


def _poll(st: _Step, event: Poll) -> None:
    """Run the callbacks, mark (implicit) or check (explicit) the last batch, then return
    buffered records (marks go alone) or ask for a fetch (marks ride on it)."""
    _deliver(st)
    _mark_all_accept(st)
    s = st.state
    if any(r.offset not in s.marked.get(Partition(r.topic, r.partition), {}) for r in s.delivered):
        st.error = UNACKNOWLEDGED_ERROR
        return
    acks = _take_marked(st)
    s = st.state
    if s.renewing or s.renewed:
        _poll_renewals(st, acks)
        return
    got, rest = s.buffer[:s.config.max_poll_records], s.buffer[s.config.max_poll_records:]
    if got:
        order = tuple(dict.fromkeys(Partition(r.topic, r.partition) for r in got))
        st.set(buffer=rest, delivered=got, fetch_order=order)
        st.out_records = got
        st.set(async_acks=merge(st.state.async_acks, _in_session(st, acks)))
    else:
        st.set(fetch_wanted=True, riding=merge(s.riding, acks))


def _poll_renewals(st: _Step, acks: Acks) -> None:
    """While records are renewing or renewed the buffer waits (``ShareConsumerImpl.collect``):
    the renewed come back as the batch, by partition then offset; while some still renew, the
    marks ride on a fetch (a RENEW one asks for no records), otherwise they go alone."""
    s = st.state
    back = tuple(sorted(s.renewed, key=lambda r: (s.fetch_order.index(Partition(r.topic, r.partition)),
                                                  r.offset)))
    st.set(renewed=(), delivered=back)
    st.out_records = back
    if s.renewing:
        st.set(fetch_wanted=True, riding=merge(s.riding, acks))
    else:
        st.set(async_acks=merge(s.async_acks, _in_session(st, acks)))


def _acknowledge(st: _Step, event: Acknowledge) -> None:
    """Explicit mode: mark a held record of the last poll (a later mark replaces an earlier)."""
    s = st.state
    if s.config.mode is AcknowledgementMode.IMPLICIT:
        st.error = IMPLICIT_ERROR
        return
    p = Partition(event.topic, event.partition)
    if not any(r.offset == event.offset and Partition(r.topic, r.partition) == p for r in s.delivered):
        st.error = UNKNOWN_RECORD_ERROR
        return
    marks = kernel.put(s.marked.get(p, {}), event.offset, event.acknowledge_type)
    st.set(marked=kernel.put(s.marked, p, marks))


def _commit_sync(st: _Step, event: CommitSync) -> None:
    """Send the marks by ShareAcknowledge and block until the answer (nothing to send: return
    an empty map at once)."""
    _deliver(st)
    _mark_all_accept(st)
    acks = _take_marked(st)
    kept = _in_session(st, acks)
    if not kept:
        st.committed = ()
        return
    st.set(sync_acks=kept, phase=Phase.BLOCKED, blocked=Request.COMMIT_SYNC)


def _commit_async(st: _Step, event: CommitAsync) -> None:
    """Send the marks by ShareAcknowledge, merged with any commitAsync not yet sent."""
    _deliver(st)
    _mark_all_accept(st)
    acks = _take_marked(st)
    st.set(async_acks=merge(st.state.async_acks, _in_session(st, acks)))


def _close(st: _Step, event: Close) -> None:
    """Send the marks (no implicit ACCEPT) and those waiting for a fetch at epoch -1, and block;
    without a share session, closed at once."""
    taken = _take_marked(st)
    if not st.state.has_session:
        st.set(phase=Phase.CLOSED)
        _deliver(st)
        return
    st.set(close_acks=merge(taken, st.state.riding), riding={}, phase=Phase.BLOCKED, blocked=Request.CLOSE)


def _closed(st: _Step, event: DeliveryEvent) -> None:
    """A closed consumer refuses every call (``acquireAndEnsureOpen``)."""
    st.error = CLOSED_ERROR


def _nothing(st: _Step, event: DeliveryEvent) -> None:
    """Nothing happens: the application is blocked (no call can be made), or already closed."""


# ---------------------------------------------------------------------------------------------
# The network thread: answers
# ---------------------------------------------------------------------------------------------


def _next_epoch(epoch: int) -> int:
    return -1 if epoch < 0 else epoch + 1


def _finish_sync(st: _Step, acks: Acks, outcome: Mapping[Partition, Errors]) -> None:
    """The blocked commitSync returns each partition's outcome and runs the callbacks."""
    st.committed = tuple(CommitResult(p.topic, p.partition, outcome[p]) for p in sorted(acks))
    st.set(phase=Phase.OPEN, blocked=None)
    _deliver(st)


def _finish_close(st: _Step) -> None:
    """The share session handler is dropped: no session is left."""
    st.set(phase=Phase.CLOSED, blocked=None, has_session=False, session_epoch=0, session=(), lingering=())
    _deliver(st)


def _take_in_flight(st: _Step) -> tuple[Request | None, Acks]:
    s = st.state
    st.set(in_flight=None, in_flight_acks={})
    return s.in_flight, s.in_flight_acks


def _fetch_answered(st: _Step, event: FetchAnswered) -> None:
    """Complete the acknowledgements that rode on the fetch; buffer its records."""
    if st.state.in_flight is not Request.SHARE_FETCH:
        return  # no ShareFetch waits for an answer
    _, acks = _take_in_flight(st)
    s = st.state
    if event.error is not Errors.NONE:
        st.set(session_epoch=0 if event.error in SESSION_ERRORS else _next_epoch(s.session_epoch))
        _complete(st, acks, event.error)
        return
    st.set(session_epoch=_next_epoch(s.session_epoch))
    left = dict(acks)
    for fp in event.partitions:
        p = Partition(fp.topic, fp.partition)
        if p in left:
            _complete(st, {p: left.pop(p)}, fp.acknowledge_error)
        records = tuple(Record(fp.topic, fp.partition, o, a.delivery_count)
                        for a in fp.acquired_records for o in range(a.first_offset, a.last_offset + 1))
        if fp.acquired_records:
            st.set(fetch_wanted=False)
        st.set(buffer=(*st.state.buffer, *records))
    _complete(st, left, Errors.INVALID_RECORD_STATE)


def _acknowledge_answered(st: _Step, event: AcknowledgeAnswered) -> None:
    """Complete the acknowledgements the ShareAcknowledge carried; a commitSync or close returns."""
    if st.state.in_flight not in (Request.COMMIT_ASYNC, Request.COMMIT_SYNC, Request.CLOSE):
        return  # no ShareAcknowledge waits for an answer
    kind, acks = _take_in_flight(st)
    outcome: dict[Partition, Errors] = {}
    if event.error is not Errors.NONE and kind is not Request.CLOSE:
        # A close's answer is read per partition only; another's error completes everything.
        st.set(session_epoch=_next_epoch(st.state.session_epoch))
        outcome = dict.fromkeys(acks, event.error)
    else:
        if kind is not Request.CLOSE:
            st.set(session_epoch=_next_epoch(st.state.session_epoch))
        for ap in event.partitions:
            p = Partition(ap.topic, ap.partition)
            if p in acks and p not in outcome:
                outcome[p] = ap.error
        outcome.update({p: Errors.INVALID_RECORD_STATE for p in acks if p not in outcome})
    for p in sorted(acks):
        _complete(st, {p: acks[p]}, outcome[p])
    if kind is Request.COMMIT_SYNC:
        _finish_sync(st, acks, outcome)
    elif kind is Request.CLOSE:
        _finish_close(st)


def _request_failed(st: _Step, event: RequestFailed) -> None:
    """No answer: the acknowledgements fail (a ShareFetch's with the disconnect, NETWORK_EXCEPTION;
    a ShareAcknowledge's with UNKNOWN_SERVER_ERROR, ``handleShareAcknowledgeFailure``'s code for
    it) and the session starts over."""
    if st.state.in_flight is None:
        return
    kind, acks = _take_in_flight(st)
    st.set(session_epoch=0)
    error = Errors.NETWORK_EXCEPTION if kind is Request.SHARE_FETCH else Errors.UNKNOWN_SERVER_ERROR
    _complete(st, acks, error)
    if kind is Request.COMMIT_SYNC:
        _finish_sync(st, acks, dict.fromkeys(acks, error))
    elif kind is Request.CLOSE:
        _finish_close(st)


# ---------------------------------------------------------------------------------------------
# The network thread: one pass, at most one request
# ---------------------------------------------------------------------------------------------


def _send_acknowledge(st: _Step, kind: Request, acks: Acks) -> bool:
    """Send a ShareAcknowledge, or fail it unsent at epoch 0 (a close always goes, at -1)."""
    s = st.state
    if kind is Request.CLOSE:
        s = st.set(session_epoch=-1)
    elif s.session_epoch == 0:
        st.set(lingering=())
        _complete(st, acks, Errors.SHARE_SESSION_NOT_FOUND)
        if kind is Request.COMMIT_SYNC:
            _finish_sync(st, acks, dict.fromkeys(acks, Errors.SHARE_SESSION_NOT_FOUND))
        return False
    st.sent = ShareAcknowledgeSent(s.session_epoch, kind, wire(acks))
    st.set(in_flight=kind, in_flight_acks=acks, lingering=tuple(sorted(set(s.lingering) | set(acks))))
    return True


def _send_fetch(st: _Step) -> None:
    s = st.state
    parts = s.assigned
    riding = dict(s.riding)
    carried: dict[Partition, Marks] = {}
    failed: dict[Partition, Marks] = {}
    include = bool(parts)
    for p in parts:
        if p in riding:
            (failed if s.session_epoch == 0 else carried)[p] = riding.pop(p)
    if s.has_session or parts:
        for p in list(riding):  # acknowledgements of partitions no longer assigned ride alone
            if s.session_epoch != 0:
                include = True
            (failed if s.session_epoch == 0 else carried)[p] = riding.pop(p)
    st.set(riding=riding)
    _complete(st, failed, Errors.INVALID_SHARE_SESSION_EPOCH)
    if not include:
        return
    wanted = tuple(sorted(set(parts) | set(s.lingering)))
    added: tuple[Partition, ...]
    forgotten: tuple[Partition, ...]
    if s.session_epoch == 0:
        session = tuple(sorted(set(s.session) | set(wanted)))
        added, forgotten = session, ()
    else:
        session = wanted
        added = tuple(p for p in wanted if p not in s.session)
        forgotten = tuple(p for p in s.session if p not in wanted)
    st.sent = ShareFetchSent(s.session_epoch, added, forgotten, wire(carried))
    st.set(has_session=True, session=session, lingering=(), in_flight=Request.SHARE_FETCH,
           in_flight_acks=carried)


def _network(st: _Step) -> None:
    """``ShareConsumeRequestManager.poll``: acknowledgements first (commitAsync, commitSync,
    close), a fetch only when none waits; one request at a time."""
    while st.state.in_flight is None:
        s = st.state
        if s.async_acks:
            st.set(async_acks={})
            if _send_acknowledge(st, Request.COMMIT_ASYNC, s.async_acks):
                return
        elif s.sync_acks is not None:
            st.set(sync_acks=None)
            if _send_acknowledge(st, Request.COMMIT_SYNC, s.sync_acks):
                return
        elif s.close_acks is not None:
            st.set(close_acks=None)
            _send_acknowledge(st, Request.CLOSE, s.close_acks)
            return
        else:
            if s.fetch_wanted and s.blocked is not Request.CLOSE and s.phase is not Phase.CLOSED:
                _send_fetch(st)
            return


# ---------------------------------------------------------------------------------------------
# The step, its table and its contracts
# ---------------------------------------------------------------------------------------------

P = Phase
_APPLICATION = (Poll, Acknowledge, CommitSync, CommitAsync, Close)
TABLE = kernel.Table("share_delivery", {
    **kernel.rows(_assign, Assign, states=(P.OPEN, P.BLOCKED)),
    **kernel.rows(_poll, Poll, states=(P.OPEN,)),
    **kernel.rows(_acknowledge, Acknowledge, states=(P.OPEN,)),
    **kernel.rows(_commit_sync, CommitSync, states=(P.OPEN,)),
    **kernel.rows(_commit_async, CommitAsync, states=(P.OPEN,)),
    **kernel.rows(_close, Close, states=(P.OPEN,)),
    **kernel.rows(_nothing, *_APPLICATION, states=(P.BLOCKED,)),
    **kernel.rows(_closed, Poll, Acknowledge, CommitSync, CommitAsync, states=(P.CLOSED,)),
    **kernel.rows(_nothing, Close, Assign, states=(P.CLOSED,)),
    **kernel.rows(_fetch_answered, FetchAnswered),
    **kernel.rows(_acknowledge_answered, AcknowledgeAnswered),
    **kernel.rows(_request_failed, RequestFailed),
})


def modelled(event: DeliveryEvent) -> bool:
    """The events the model takes: only ShareAcknowledge errors Kafka does not retry."""
    if isinstance(event, AcknowledgeAnswered):
        return (event.error in FINAL_ACKNOWLEDGE_ERRORS
                and all(p.error in FINAL_PARTITION_ERRORS for p in event.partitions))
    return True


def _sent_well(before: State, out: DeliveryOutput) -> bool:
    """One request at a time; a fetch at epoch 0 carries no acknowledgements; a ShareAcknowledge
    never goes at epoch 0, and at -1 only to close."""
    sent = out.sent
    if sent is None:
        return True
    if isinstance(sent, ShareFetchSent):
        return sent.session_epoch >= 0 and (sent.session_epoch > 0 or not sent.acknowledgements)
    return sent.session_epoch != 0 and (sent.session_epoch == -1) == (sent.request_type is Request.CLOSE)


def _held_records_only(before: State, out: DeliveryOutput) -> bool:
    """Every acknowledged offset sent was returned by a poll: it was held, marked, or waiting."""
    if out.sent is None:
        return True
    known: set[tuple[str, int, int]] = {(r.topic, r.partition, r.offset) for r in before.delivered}
    for acks in (before.marked, before.riding, before.async_acks, before.sync_acks or {},
                 before.close_acks or {}):
        known |= {(p.topic, p.partition, o) for p, m in acks.items() for o in m}
    for pa in out.sent.acknowledgements:
        for b in pa.batches:
            offsets = range(b.first_offset, b.last_offset + 1)
            if any((pa.topic, pa.partition, o) not in known for o in offsets):
                return False
    return True


def initial_state(config: DeliveryConfig = DeliveryConfig()) -> State:  # noqa: B008
    return State(config)


@icontract.require(lambda event: modelled(event), "retried errors are not modelled")
@icontract.ensure(lambda state, result: _sent_well(state, result[1]))
@icontract.ensure(lambda state, event, result: result[1].sent is None or state.in_flight is None
                  or isinstance(event, FetchAnswered | AcknowledgeAnswered | RequestFailed),
                  "nothing is sent while a request awaits its answer")
@icontract.ensure(lambda state, result: _held_records_only(state, result[1]))
@icontract.ensure(lambda result: result[0].in_flight is not None or not result[0].in_flight_acks,
                  "acknowledgements are in flight only with a request")
@icontract.ensure(lambda result: result[0].config.mode is AcknowledgementMode.IMPLICIT
                  or result[1].records == () or result[0].marked == {},
                  "explicit mode: a poll returns records only with the last batch all taken")
@icontract.ensure(lambda result: result[0].phase is not Phase.CLOSED or result[0].in_flight is None)
@icontract.ensure(lambda state, result: result[0].phase is state.phase
                  or state.phase in PHASE_PREDECESSORS[result[0].phase],
                  "every phase change is one PHASE_PREDECESSORS allows")
def step(state: State, event: DeliveryEvent) -> tuple[State, DeliveryOutput]:
    st = _Step(state)
    TABLE.rule(state.phase, event)(st, event)
    _network(st)
    return st.state, st.output()


def view(s: State) -> DeliveryView:
    queued = tuple(kind for kind, acks in ((Request.COMMIT_ASYNC, s.async_acks or None),
                                            (Request.COMMIT_SYNC, s.sync_acks), (Request.CLOSE, s.close_acks))
                   if acks is not None)
    marked = tuple(Marked(p.topic, p.partition, o, t)
                   for p in sorted(s.marked) for o, t in sorted(s.marked[p].items()))
    return DeliveryView(s.assigned, s.session_epoch, s.session, s.in_flight, s.fetch_wanted, s.buffer,
                        tuple(sorted(s.delivered)), marked, wire(s.riding), queued, len(s.waiting),
                        s.phase, s.blocked)

"""The share partition, as rules: in-flight record states of one (share group, topic partition).

Theory of operation
-------------------
Kafka's ``SharePartition`` (KIP-932) hands the records of one topic partition out to the members
of a share group and follows each offset until it is finished. Here it is one frozen
:class:`State`, a transition table (``TABLE``: partition status x event type -> rule) and one
short rule per row. docs/reference/share-partition-kafka.md gives each rule's upstream source
(Kafka trunk, "L3"); its section numbers are quoted as §n. Words shared with the
implementation (events, responses, persister batches, the view) are the vocabulary's, written
``sp.X``; everything else here is the spec's own.

* **Records, offset by offset.** ``recs`` maps every cached offset to a :class:`Rec`: state,
  delivery count, holder and lock. A record is AVAILABLE, ACQUIRED (by one member, under a
  lock), ACKNOWLEDGED or ARCHIVED. Acquiring counts a delivery; a release or a lock expiry at the
  delivery limit archives instead of making the record available again.
* **Locks** are ``(deadline, number)`` pairs held by ACQUIRED records; the running locks are
  the ones the records hold, so there is no timer table. When the clock moves, due locks fire
  earliest first, then oldest first; every record holding the fired lock goes back at once.
* **Batches, kept because Kafka's answers show them.** Kafka caches in-flight *batches*; one
  holds one state for its whole range until something touches part of it, then it is *split*
  and keeps a state per offset for good. The boundaries are observable, so ``batches`` keeps
  each batch's last offset and whether it is split: an unsplit batch is acquired and reported
  as one range, locked by one lock, written to the persister as one range and dropped whole;
  SPSO jumps to the next batch's first offset; throttling near the delivery limit halves by
  batch width. Its records are identical (an invariant), so most rules just walk offsets.
* **Pending, then final.** Acknowledge and release collect their records' new values in a
  :class:`_Call` and send its ranges to the persister; only a successful write makes them the
  state, so a failed write or a refused batch leaves every record as it was: nothing to undo.
  What the call did besides (splits, RENEW's new locks) stays, as in Kafka. Lock expiries are
  final whatever the write answers. The persister answers within the step
  (``SetPersisterError`` injects errors).
* **SPSO** (the share-partition start offset) moves past finished records after each write; the
  log start offset (``MoveLogStart``) moves it too, archiving what was never delivered.
* **The persister** is the share coordinator's spec (``groupspec.spec.share_state``) holding
  this partition's one key, initialized as the share group leaves it: its fencing, its batch
  combining and its records. A read returns the batches as the coordinator keeps them, and the
  cache gets one batch per returned batch: two touching batches with the same state and count
  can come back apart (the combiner leaves a batch it passed over early next to a piece cut
  later) and then stay two batches here, as in Kafka.
* **Status.** A partition whose read failed (a ``Reload`` refused by the persister) is FAILED
  until a reload succeeds: the table's FAILED rows acquire nothing, answer releases and
  well-formed acknowledgements with UNKNOWN_TOPIC_OR_PARTITION (a malformed one is
  INVALID_REQUEST, as in any status) and ignore the log start; the clock, the persister and
  reloads work in either status.

Out of scope for now: record_limit acquire mode, read_committed transaction filtering, the
deliveryCompleteCount field, writes held open across steps (Kafka's pending-while-timeout cases
E25/E26), and the manager dropping a partition after fatal errors (the machine keeps going).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TypeVar, cast

import icontract

from groupspec.spec import share_state as share_coordinator
from groupspec.spec.kernel import ANY, Step, Table, put
from groupspec.types import share_partition as sp
from groupspec.types import share_state as ss
from groupspec.types.errors import Errors

AVAILABLE, ACQUIRED = sp.RecordState.AVAILABLE, sp.RecordState.ACQUIRED
ACKNOWLEDGED, ARCHIVED = sp.RecordState.ACKNOWLEDGED, sp.RecordState.ARCHIVED
ACTIVE, FAILED = "ACTIVE", "FAILED"
EMPTY = sp.EMPTY_MEMBER_ID
NONE = Errors.NONE
_ACK_TYPES = frozenset(int(t) for t in sp.AcknowledgeType)
#: What an acknowledge type makes of an ACQUIRED record (RENEW keeps it and restarts its lock).
_TARGET = {sp.AcknowledgeType.GAP: ARCHIVED, sp.AcknowledgeType.ACCEPT: ACKNOWLEDGED,
           sp.AcknowledgeType.RELEASE: AVAILABLE, sp.AcknowledgeType.REJECT: ARCHIVED}
T = TypeVar("T")
_KEY = (sp.LONE_GROUP, sp.LONE_TOPIC_ID, 0)

# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------

#: An acquisition lock: when it expires, and a number telling locks made at once apart.
Lock = tuple[int, int]


@dataclass(frozen=True)
class Rec:
    state: sp.RecordState
    dc: int
    member: str = EMPTY
    lock: Lock | None = None


@dataclass(frozen=True)
class Batch:
    last: int
    split: bool = False


@dataclass(frozen=True)
class Persister:
    """The share coordinator (the share_state spec) holding this partition's one key, as the
    share group initialized it, and the error every call answers with from now on."""

    coordinator: share_coordinator.State
    error: Errors = NONE
    #: How many requests it was asked: numbers the next one.
    asked: int = 0

    @property
    def entry(self) -> share_coordinator.Entry:
        return self.coordinator.keys[_KEY]

    @property
    def leader_epoch(self) -> int:
        """The newest leader epoch that read the key: what fences an older leader."""
        return int(self.entry.leader_seen)


@dataclass(frozen=True)
class State:
    config: sp.SharePartitionConfig
    now: int
    persister: Persister
    status: str = ACTIVE
    leader_epoch: int = 0
    state_epoch: int = 0
    spso: int = 0
    end: int = 0
    batches: Mapping[int, Batch] = field(default_factory=dict)
    recs: Mapping[int, Rec] = field(default_factory=dict)
    #: (gap start, end offset) of the persisted state's first gap (§5.4); active while its end is ``end``.
    window: tuple[int, int] | None = None
    #: How many locks were made: numbers the next one.
    seq: int = 0


St = Step[State]

# ---------------------------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------------------------


def invariants_hold(s: State) -> bool:
    """Batches tile the cache, an unsplit one uniform; exactly the ACQUIRED records are held and
    locked, within the delivery limit; a lock is held by a whole unsplit batch or one offset of
    a split one, and is not yet due; nothing AVAILABLE below SPSO."""
    firsts = sorted(s.batches)
    if (any(s.batches[f].last < f for f in firsts)
            or [o for f in firsts for o in _span(s, f)] != sorted(s.recs)
            or any(not s.batches[f].split and len({s.recs[o] for o in _span(s, f)}) != 1 for f in firsts)):
        return False
    held: dict[Lock, list[int]] = {}
    for o in sorted(s.recs):
        r = s.recs[o]
        if (r.state == ACQUIRED) != (r.lock is not None) or (r.state == AVAILABLE and o < s.spso):
            return False
        if r.lock is None and r.member != EMPTY:
            return False
        if r.lock is not None:
            held.setdefault(r.lock, []).append(o)
            if not 1 <= r.dc <= s.config.delivery_count_limit or r.lock[0] < s.now:
                return False
    for offsets in held.values():
        first = _floor(s, offsets[0])
        assert first is not None
        if offsets != (list(_span(s, first)) if not s.batches[first].split else offsets[:1]):
            return False
    return bool(s.batches) or s.end == s.spso


def _monotonic(before: State, after: State) -> bool:
    """SPSO never moves back, and a record still cached never loses deliveries.

    Kafka breaks the first rule in two places, both after the log start moved SPSO past the
    cache (docs/divergences.md, share_spso_backwards): the gap-window cap of §13.3 pulls SPSO back
    to the window's start, and a cache that empties puts SPSO just after its last offset.
    """
    if after.spso < before.spso:
        to_window = before.window is not None and after.spso == before.window[0]
        to_cache_end = (not after.batches and bool(before.batches)
                        and after.spso == before.batches[max(before.batches)].last + 1)
        if not (to_window or to_cache_end):
            return False
    return all(after.recs[o].dc >= r.dc for o, r in before.recs.items() if o in after.recs)


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


@icontract.ensure(lambda result: invariants_hold(result))
def initial_state(config: sp.SharePartitionConfig = sp.SharePartitionConfig(),  # noqa: B008
                  persisted: sp.PersistedState = sp.PersistedState(),  # noqa: B008
                  now_ms: int = 0, latest_offset: int = 0) -> State:
    """A share partition that has just read ``persisted`` from the persister (leader epoch 0)."""
    sp.check_config(config)
    sp.check_persisted(config, persisted)
    p = Persister(share_coordinator.initial_state(ss.ShareStateConfig(state_topic_partitions=1),
                                                  (ss.TopicMetadata(sp.LONE_TOPIC_ID, 1),)))
    # The key as the share group leaves it: initialized, then the batches written.
    p, _ = _ask(p, ss.InitializeShareGroupState(*_KEY, persisted.state_epoch, persisted.start_offset))
    if persisted.batches:
        p, _ = _ask(p, ss.WriteShareGroupState(*_KEY, persisted.state_epoch, ss.NO_EPOCH,
                                               persisted.start_offset, _stored(persisted.batches)))
    st = Step(State(config, now_ms, p))
    _load(st, latest_offset)
    return st.state


@icontract.require(lambda state: invariants_hold(state))
@icontract.ensure(lambda result: invariants_hold(result[0]))
@icontract.ensure(lambda state, event, result:
                  isinstance(event, sp.Reload | sp.ResetShareState) or _monotonic(state, result[0]))
def step(state: State, event: sp.SharePartitionEvent, index: int) -> tuple[State, sp.Output]:
    """Apply one event; ``index`` numbers a request's answer. An event no broker could produce
    (a negative log offset, a start offset below -1, ...) is refused with an InputError naming
    the field, and ``state`` is left as it was."""
    sp.check_event(event)
    st = Step(state)
    TABLE.rule(state.status, event)(st, event, index)
    writes = cast("tuple[sp.StateWrite, ...]", tuple(st.records))
    return st.state, sp.Output(tuple(sp.Answer(i, response) for i, response in st.answers), writes)


# ---------------------------------------------------------------------------------------------
# Reading and changing the cache
# ---------------------------------------------------------------------------------------------


def _span(s: State, first: int) -> range:
    return range(first, s.batches[first].last + 1)


def _floor(s: State, offset: int) -> int | None:
    """The first offset of the last batch starting at or before ``offset``."""
    return max((f for f in s.batches if f <= offset), default=None)


def _holder(s: State, offset: int) -> int | None:
    """The first offset of the batch holding ``offset``, if it is cached."""
    first = _floor(s, offset)
    return first if first is not None and s.batches[first].last >= offset else None


def _window_start(s: State) -> int | None:
    """The gap window's start while it is active (its end is still the cache's end, §5.4)."""
    return s.window[0] if s.window is not None and s.window[1] == s.end else None


def _runs(items: Iterable[tuple[int, T]]) -> list[tuple[int, int, T]]:
    """(offset, value) pairs in offset order as maximal runs (first, last, value)."""
    runs: list[tuple[int, int, T]] = []
    for o, value in items:
        if runs and runs[-1][1] == o - 1 and runs[-1][2] == value:
            runs[-1] = (runs[-1][0], o, value)
        else:
            runs.append((o, o, value))
    return runs


def _set_recs(st: St, changes: Mapping[int, Rec]) -> None:
    st.set(recs={**st.state.recs, **changes})


def _new_lock(st: St, deadline: int | None = None) -> Lock:
    s = st.set(seq=st.state.seq + 1)
    return (s.now + s.config.record_lock_duration_ms if deadline is None else deadline, s.seq)


@icontract.require(lambda st, first: not st.state.batches[first].split)
def _split(st: St, first: int, relock: bool = True) -> None:
    """Per-offset state from now on; a batch lock becomes one lock per offset, expiring when it did."""
    s = st.set(batches=put(st.state.batches, first, Batch(st.state.batches[first].last, True)))
    lock = s.recs[first].lock
    if lock is not None and relock:  # numbered in offset order
        _set_recs(st, {o: replace(s.recs[o], lock=_new_lock(st, lock[0])) for o in _span(s, first)})


def next_fetch_offset(s: State) -> int:
    """§7: the first AVAILABLE offset, or a gap of the persisted state still to fetch, else the end."""
    if not s.batches or s.spso > s.batches[max(s.batches)].last:
        return s.end
    gap = _window_start(s)
    for first in sorted(s.batches):
        if gap is not None:
            if first > gap:
                return gap
            gap = max(s.batches[first].last + 1, gap)
        available = [o for o in _span(s, first) if s.recs[o].state == AVAILABLE]
        if available:
            return available[0]
    return s.end + 1


def _archive_available(st: St, start: int, stop: int, from_key: int) -> None:
    """§14.1/§14.3: AVAILABLE records in [start, stop) become ARCHIVED (not persisted).

    Batches from ``from_key`` on are visited; one not wholly inside the range is split if it is
    AVAILABLE, even when none of its offsets is in the range (SharePartition#archiveRecords).
    """
    for first in sorted(f for f in st.state.batches if from_key <= f < stop):
        s, b = st.state, st.state.batches[first]
        if not b.split and not (first >= start and b.last < stop):
            if s.recs[first].state != AVAILABLE:
                continue
            _split(st, first)
        span = range(max(first, start), min(b.last, stop - 1) + 1)
        _set_recs(st, {o: replace(s.recs[o], state=ARCHIVED) for o in span if s.recs[o].state == AVAILABLE})


# ---------------------------------------------------------------------------------------------
# Acquire (§8, §9)
# ---------------------------------------------------------------------------------------------


@icontract.require(lambda st: st.state.status == ACTIVE)
def acquire(st: St, event: sp.Fetch, index: int) -> None:
    """§8: AVAILABLE cached records and new log records go to the member, each under a new lock."""
    got: list[sp.AcquiredRecords] = []
    _acquire(st, event, got)
    st.answer(index, sp.FetchResponse(tuple(got), _width(got)))


def _width(got: list[sp.AcquiredRecords]) -> int:
    """Offsets acquired, holes included (Kafka's count)."""
    return sum(a.last_offset - a.first_offset + 1 for a in got)


def _acquire(st: St, event: sp.Fetch, got: list[sp.AcquiredRecords]) -> None:
    s, log = st.state, event.log
    # Verify there is something to fetch and room for it (§8.2); at the in-flight limit only
    # offsets up to the end are fetched again.
    if event.max_fetch_records <= 0 or not log or log[-1].last_offset < s.spso:
        return
    first_base, last = log[0].base_offset, log[-1].last_offset
    in_flight = s.end - s.spso + 1 if s.batches else 0
    room = min(event.max_fetch_records, s.config.max_in_flight_records - in_flight)
    if room <= 0 and event.fetch_offset <= s.end:
        room, last = min(event.max_fetch_records, s.end - event.fetch_offset + 1), min(last, s.end)
    if room <= 0:
        return
    if s.batches and event.fetch_offset < first_base:  # §14.3: compacted away
        holder = _holder(s, event.fetch_offset)
        from_key = event.fetch_offset if holder is None else holder
        _archive_available(st, event.fetch_offset, first_base, from_key)
        s = st.state
    # Start at the batch holding the first log offset; below SPSO with nothing cached, at SPSO.
    base = low = first_base
    if _floor(s, first_base) is None:
        base = max(first_base, s.spso)
    elif (holder := _holder(s, first_base)) is not None:
        base = low = holder
    overlapping = [f for f in sorted(s.batches) if low <= f <= last]
    if not overlapping:
        got += _acquire_new(st, event, base, last, room)
        return
    gap = base
    for first in overlapping:
        b = st.state.batches[first]
        if _width(got) >= room:
            break
        if _window_start(st.state) is not None:  # §5.4: the persisted state's holes are new records
            if gap < first:
                got += _acquire_new(st, event, gap, first - 1, room - _width(got))
            gap = b.last + 1
            if _width(got) >= room:
                break
        s = st.state
        throttled = _throttled(s, first, first_base, last)
        if throttled and got:
            room = 0  # the throttled batch waits for a fetch of its own
            break
        if b.split or throttled or first < first_base or b.last > last:
            if not b.split:
                if s.recs[first].state != AVAILABLE:
                    continue
                _split(st, first)
            more = _acquire_offsets(st, event.member_id, first, first_base, last)
            got += more
            if throttled and more:
                room = 0
                break
        elif (head := s.recs[first]).state == AVAILABLE:
            lock = _new_lock(st)
            _set_recs(st, {o: Rec(ACQUIRED, head.dc + 1, event.member_id, lock) for o in _span(s, first)})
            got.append(sp.AcquiredRecords(first, b.last, head.dc + 1))
    tail = st.state.batches[overlapping[-1]].last
    if _width(got) < room and tail < last:
        got += _acquire_new(st, event, tail + 1, last, room - _width(got))
    if got:
        _follow_window(st, got[-1].last_offset + 1)


def _acquire_new(st: St, event: sp.Fetch, first: int, last: int, room: int) -> list[sp.AcquiredRecords]:
    """§8.4: records never cached become new ACQUIRED batches, cut at log-batch bases (§8.5)."""
    s = st.state
    first = s.end if not s.batches and s.end > first else first
    stop = last
    if room < stop - first + 1:  # whole log batches, even past the room
        edge = first + room - 1
        stop = next((b.last_offset for b in event.log if b.base_offset <= edge <= b.last_offset), edge)
        if _window_start(s) is not None and stop > last:
            stop = last
    if stop < first:
        return []
    cuts = [first]
    if stop - first + 1 > event.batch_size:
        for b in event.log:
            if b.base_offset > stop:
                break
            if b.base_offset - cuts[-1] >= event.batch_size:
                cuts.append(b.base_offset)
    acquired = []
    for start, end in zip(cuts, [c - 1 for c in cuts[1:]] + [stop], strict=True):
        lock = _new_lock(st)
        st.set(batches=put(st.state.batches, start, Batch(end)))
        _set_recs(st, {o: Rec(ACQUIRED, 1, event.member_id, lock) for o in range(start, end + 1)})
        acquired.append(sp.AcquiredRecords(start, end, 1))
    s = st.state
    st.set(spso=first if min(s.batches) == first else s.spso, end=max(s.end, stop))
    _follow_window(st, stop + 1)
    return acquired


def _follow_window(st: St, offset: int) -> None:
    """§8.10: the gap window's start follows acquisition; it is dropped once the end moved on."""
    w, end = st.state.window, st.state.end
    if w is not None:
        st.set(window=(offset, w[1]) if w[1] == end and offset <= w[1] else None)


def _throttled(s: State, first: int, low: int, high: int) -> bool:
    """§9: an AVAILABLE batch (or offsets of the request range) delivered T times or more."""
    b = s.batches[first]
    span = range(max(first, low), min(b.last, high) + 1) if b.split else _span(s, first)
    return any(s.recs[o].state == AVAILABLE and s.recs[o].dc >= s.config.throttle_limit for o in span)


def _acquire_offsets(st: St, member: str, first: int, low: int, high: int) -> list[sp.AcquiredRecords]:
    """§8.7: offset by offset; near the limit fewer at a time (§9), and the last delivery alone."""
    s = st.state
    b, limit, throttle = s.batches[first], s.config.delivery_count_limit, s.config.throttle_limit
    taken: dict[int, Rec] = {}
    cap = -1
    for o in range(max(first, low), min(b.last, high) + 1):
        r = s.recs[o]
        if r.state != AVAILABLE:
            continue
        if limit > 2 and r.dc == limit - 1 and taken:
            break
        if r.dc >= throttle and cap < 0:
            cap = max(1, (b.last - first + 1) >> (r.dc - throttle + 1))
        taken[o] = Rec(ACQUIRED, r.dc + 1, member, _new_lock(st))
        if (r.dc + 1 == limit and limit > 2) or len(taken) == cap:
            break
    _set_recs(st, taken)
    # Consecutive offsets with the same delivery count are reported as one range (§8.7).
    return [sp.AcquiredRecords(*run) for run in _runs((o, r.dc) for o, r in taken.items())]


# ---------------------------------------------------------------------------------------------
# sp.Acknowledge and release (§10, §11)
# ---------------------------------------------------------------------------------------------


@dataclass
class _Call:
    """What one acknowledge or release will make of its records once the persister has it."""

    pending: dict[int, Rec] = field(default_factory=dict)
    written: list[sp.PersisterBatch] = field(default_factory=list)

    def start(self, s: State, first: int, last: int, target: sp.RecordState) -> None:
        dc = s.recs[first].dc
        if target == AVAILABLE and dc >= s.config.delivery_count_limit:
            target = ARCHIVED
        self.pending.update((o, Rec(target, dc)) for o in range(first, last + 1))
        self.written.append(sp.PersisterBatch(first, last, target, dc))


@icontract.require(lambda st: st.state.status == ACTIVE)
def acknowledge(st: St, event: sp.Acknowledge, index: int) -> None:
    """§10: the member's ACQUIRED records take the acknowledged states once they are written."""
    # Verify the batches are well formed (KafkaApis#validateAcknowledgementBatches, §10.1)
    if not _well_formed(event.batches):
        st.answer(index, sp.AcknowledgeResponse(Errors.INVALID_REQUEST))
        return
    # Verify each batch against the cache; the first error refuses the whole call
    call = _Call()
    for batch in event.batches:
        error = _ack_batch(st, event.member_id, batch, call)
        if error != NONE:
            st.answer(index, sp.AcknowledgeResponse(error))
            return
    st.answer(index, sp.AcknowledgeResponse(_finish(st, call)))


def _well_formed(batches: tuple[sp.AckBatch, ...]) -> bool:
    """Sorted (touching allowed), first <= last, one type or one per offset, every type known;
    KafkaApis counts -1 as the last offset before the first batch, so that one starts at -1 or later."""
    return (all(b.first_offset >= -1 for b in batches[:1])
            and all(a.last_offset <= b.first_offset for a, b in pairwise(batches))
            and all(b.first_offset <= b.last_offset and set(b.types) <= _ACK_TYPES
                    and len(b.types) in {1, b.last_offset - b.first_offset + 1} for b in batches))


def _ack_batch(st: St, member: str, ack: sp.AckBatch, call: _Call) -> Errors:
    """§10.2: one acknowledgement batch, over the cached batches it covers."""
    s = st.state
    if ack.last_offset < s.spso:
        return NONE  # finished already
    floor = _floor(s, ack.first_offset)
    if floor is None:
        if not ack.first_offset < s.spso <= ack.last_offset:
            return Errors.INVALID_RECORD_STATE
        floor = _floor(s, s.spso)
        if floor is None:
            return Errors.UNKNOWN_SERVER_ERROR  # Kafka dereferences a missing entry here (trap T18)
    covered = [f for f in sorted(s.batches) if floor <= f <= ack.last_offset]
    if ack.last_offset > s.batches[covered[-1]].last:
        return Errors.INVALID_REQUEST
    for first in covered:
        error = _ack_cached(st, member, ack, call, first)
        if error != NONE:
            return error
    return NONE


def _ack_cached(st: St, member: str, ack: sp.AckBatch, call: _Call, first: int) -> Errors:
    """One cached batch under an acknowledgement batch: whole, or split and offset by offset."""
    s, b = st.state, st.state.batches[first]
    head, several = s.recs[first], len(ack.types) > 1
    if b.last < s.spso:
        return NONE
    # Verify an unsplit batch is ACQUIRED by this member, none of it pending (§10.2 steps 7-9)
    if not b.split and (head.member == EMPTY or head.member != member
                        or first in call.pending or head.state != ACQUIRED):
        return Errors.INVALID_RECORD_STATE
    # Whole: unsplit, wholly inside the acknowledged range, one type, SPSO not inside it
    if not (b.split or several or first < ack.first_offset or b.last > ack.last_offset
            or first < s.spso <= b.last):
        _ack_range(st, call, first, b.last, ack.types[0])
        return NONE
    if not b.split:
        _split(st, first)
    for o in range(max(first, ack.first_offset, s.spso), min(b.last, ack.last_offset) + 1):
        r = st.state.recs[o]
        # Verify each offset is ACQUIRED by this member and not pending
        if r.state != ACQUIRED or o in call.pending or r.member != member:
            return Errors.INVALID_RECORD_STATE
        _ack_range(st, call, o, o, ack.types[o - ack.first_offset] if several else ack.types[0])
    return NONE


def _ack_range(st: St, call: _Call, first: int, last: int, kind: int) -> None:
    if kind == sp.AcknowledgeType.RENEW:  # a new lock now, nothing written
        lock = _new_lock(st)
        _set_recs(st, {o: replace(st.state.recs[o], lock=lock) for o in range(first, last + 1)})
    else:
        call.start(st.state, first, last, _TARGET[sp.AcknowledgeType(kind)])


@icontract.require(lambda st: st.state.status == ACTIVE)
def release(st: St, event: sp.ReleaseMember, index: int) -> None:
    """§11: every record the member holds goes back (or is archived at the limit / below SPSO);
    so do records held by nobody (the empty member id)."""
    call = _Call()
    holders = (event.member_id, EMPTY)
    for first in sorted(st.state.batches):
        s, b = st.state, st.state.batches[first]
        head = s.recs[first]
        mine = head.state == ACQUIRED and head.member == event.member_id
        if not b.split and mine and first < s.spso <= b.last:
            _split(st, first)
            s, b = st.state, st.state.batches[first]
        if not b.split:
            if head.member in holders and head.state == ACQUIRED:
                call.start(s, first, b.last, ARCHIVED if b.last < s.spso else AVAILABLE)
            continue
        for o in _span(s, first):
            if s.recs[o].member in holders and s.recs[o].state == ACQUIRED:
                call.start(s, o, o, ARCHIVED if o < s.spso else AVAILABLE)
    st.answer(index, sp.ReleaseResponse(_finish(st, call)))


def _finish(st: St, call: _Call) -> Errors:
    """§10.3: no write for nothing; a failed write leaves every record as it was."""
    if not call.written:
        return NONE
    error = _write(st, call.written)
    if error != NONE:
        return _told(error)
    _set_recs(st, call.pending)
    _advance_start(st)
    return NONE


# ---------------------------------------------------------------------------------------------
# The persister (§15)
# ---------------------------------------------------------------------------------------------

#: SharePartition#fetchPersisterError (§15.4): what a client is told of the persister's error.
#: Anything else is UNKNOWN_SERVER_ERROR.
_TOLD = {**dict.fromkeys((Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE,
                          Errors.COORDINATOR_LOAD_IN_PROGRESS), Errors.COORDINATOR_NOT_AVAILABLE),
         **dict.fromkeys((Errors.FENCED_LEADER_EPOCH, Errors.FENCED_STATE_EPOCH),
                         Errors.NOT_LEADER_OR_FOLLOWER),
         **{e: e for e in (Errors.GROUP_ID_NOT_FOUND, Errors.UNKNOWN_TOPIC_OR_PARTITION)}}


def _told(error: Errors) -> Errors:
    return _TOLD.get(error, Errors.UNKNOWN_SERVER_ERROR)


def _ask(p: Persister, request: ss.ShareStateEvent) -> tuple[Persister, object]:
    """One request to the share coordinator, and its answer."""
    state, out = share_coordinator.step(p.coordinator, request, p.asked)
    return replace(p, coordinator=state, asked=p.asked + 1), out.answers[0].response


def _stored(batches: Iterable[sp.PersisterBatch]) -> tuple[ss.StateBatch, ...]:
    return tuple(ss.StateBatch(b.first_offset, b.last_offset, int(b.delivery_state), b.delivery_count)
                 for b in batches)


def _write(st: St, batches: list[sp.PersisterBatch]) -> Errors:
    """WriteShareGroupState, fenced by both epochs (§15.6): the share coordinator's answer."""
    s, p = st.state, st.state.persister
    error = p.error
    if error == NONE:
        p, answer = _ask(p, ss.WriteShareGroupState(*_KEY, s.state_epoch, s.leader_epoch, s.spso,
                                                    _stored(batches)))
        assert isinstance(answer, ss.WriteShareGroupStateResponse)
        error = answer.error
        st.set(persister=p)
    st.write(sp.StateWrite(s.spso, s.state_epoch, s.leader_epoch, tuple(batches), error))
    return error


def persisted_batches(p: Persister) -> tuple[sp.PersisterBatch, ...]:
    """The key's batches as maximal runs of consecutive offsets with equal state and count (the
    coordinator may keep such neighbours apart; they mean the same records)."""
    runs = _runs((o, (sp.RecordState(b.delivery_state), b.delivery_count))
                 for b in p.entry.offset.batches for o in range(b.first_offset, b.last_offset + 1))
    return tuple(sp.PersisterBatch(first, last, state, dc) for first, last, (state, dc) in runs)


def set_persister_error(st: St, event: sp.SetPersisterError, index: int) -> None:
    """From now on every persister call fails with this error (NONE: it works again)."""
    st.set(persister=replace(st.state.persister, error=event.error))


def fence_leader(st: St, event: sp.FenceLeader, index: int) -> None:
    """Another broker read the state with a newer leader epoch."""
    p = st.state.persister
    p, _ = _ask(p, ss.ReadShareGroupState(*_KEY, max(p.leader_epoch, st.state.leader_epoch) + 1))
    st.set(persister=p)


def reset_share_state(st: St, event: sp.ResetShareState, index: int) -> None:
    """InitializeShareGroupState: a new state epoch and start offset, nothing persisted."""
    p = st.state.persister
    p, _ = _ask(p, ss.InitializeShareGroupState(*_KEY, p.entry.offset.state_epoch + 1, event.start_offset))
    st.set(persister=p)


# ---------------------------------------------------------------------------------------------
# Moving the start offset (§13, §14)
# ---------------------------------------------------------------------------------------------


def _advance_start(st: St) -> None:
    """maybeUpdateCachedStateAndOffsets: past finished records at the front, dropping their batches."""
    s = st.state
    floor = _floor(s, s.spso)
    if floor is None:
        return
    at = s.recs.get(s.spso if s.batches[floor].split else floor)  # an unsplit batch: its head
    if at is None or not at.state.terminal:
        return
    window, keys = _window_start(s), sorted(s.batches)
    last_done = None
    for first in keys:
        if window is not None and s.batches[first].last >= window:
            break
        unfinished = [o for o in _span(s, first) if not s.recs[o].state.terminal]
        if unfinished:
            if unfinished[0] > first:
                last_done = unfinished[0] - 1
            break
        last_done = s.batches[first].last
    if last_done is None:
        return
    if last_done == s.batches[keys[-1]].last:  # everything cached is finished
        st.set(spso=last_done + 1, end=last_done + 1, batches={}, recs={})
        return
    holder = _floor(s, last_done)
    assert holder is not None
    if last_done == s.batches[holder].last:  # SPSO to the next batch, capped by the gap window
        spso = max(s.spso, min(k for k in keys if k > holder))
        spso = spso if window is None else min(window, spso)
        kept = [k for k in keys if k > holder]
    else:
        spso, kept = max(s.spso, last_done + 1), [k for k in keys if k >= holder]
    st.set(spso=spso, batches={k: s.batches[k] for k in kept},
           recs={o: r for o, r in s.recs.items() if o >= kept[0]})


@icontract.require(lambda st: st.state.status == ACTIVE)
def move_log_start(st: St, event: sp.MoveLogStart, index: int) -> None:
    """updateCacheAndOffsets (§14.1): what is below the new log start was never delivered."""
    s, log_start = st.state, event.log_start_offset
    if log_start <= s.spso:
        return
    if s.batches:
        _archive_available(st, s.spso, log_start, min(s.batches))
    st.set(spso=log_start, end=max(st.state.end, log_start))


# ---------------------------------------------------------------------------------------------
# Lock expiry (§12)
# ---------------------------------------------------------------------------------------------


def advance_clock(st: St, event: sp.AdvanceClock, index: int) -> None:
    """The clock moves; due locks fire one at a time, earliest first, then oldest first."""
    st.set(now=max(st.state.now, event.to_ms))
    while True:
        due = [r.lock for r in st.state.recs.values() if r.lock is not None and r.lock[0] <= st.state.now]
        if not due:
            return
        _expire(st, min(due))


@icontract.require(lambda st, lock: any(r.lock == lock for r in st.state.recs.values()))
def _expire(st: St, lock: Lock) -> None:
    """Its records go back: AVAILABLE, or ARCHIVED at the limit or below SPSO. An unsplit batch
    is written as one range (split first if SPSO is inside it); a failed write is only logged."""
    s = st.state
    held = [o for o in sorted(s.recs) if s.recs[o].lock == lock]
    first = _floor(s, held[0])
    assert first is not None
    if not s.batches[first].split and first < s.spso <= s.batches[first].last:
        _split(st, first, relock=False)  # the offsets' lock is this one, firing now
    limit = s.config.delivery_count_limit
    back = {o: Rec(ARCHIVED if o < s.spso or s.recs[o].dc >= limit else AVAILABLE, s.recs[o].dc)
            for o in held}
    _set_recs(st, back)
    split = st.state.batches[first].split
    runs = [(o, o, back[o]) for o in held] if split else [(held[0], held[-1], back[first])]
    _write(st, [sp.PersisterBatch(f, last, r.state, r.dc) for f, last, r in runs])
    _advance_start(st)


# ---------------------------------------------------------------------------------------------
# Loading (§5)
# ---------------------------------------------------------------------------------------------


def _load(st: St, latest_offset: int) -> Errors:
    """maybeInitialize: read the persisted state and rebuild the cache from it."""
    s, p = st.state, st.state.persister
    answer = ss.ReadShareGroupStateResponse(p.error)
    if p.error == NONE:
        p, read = _ask(p, ss.ReadShareGroupState(*_KEY, s.leader_epoch))  # a read raises the leader epoch
        assert isinstance(read, ss.ReadShareGroupStateResponse)
        st.set(persister=p)
        answer = read
    if answer.error != NONE:
        st.set(status=FAILED)
        return _told(answer.error)
    spso = latest_offset if answer.start_offset == -1 else answer.start_offset
    # One batch of the cache per batch the coordinator returned, as it returned them.
    runs = [sp.PersisterBatch(b.first_offset, b.last_offset, sp.RecordState(b.delivery_state),
                              b.delivery_count) for b in answer.state_batches]
    s = st.set(status=ACTIVE, state_epoch=answer.state_epoch, spso=spso,
               end=runs[-1].last_offset if runs else spso,
               batches={b.first_offset: Batch(b.last_offset) for b in runs},
               recs={o: Rec(b.delivery_state, b.delivery_count)
                     for b in runs for o in range(b.first_offset, b.last_offset + 1)})
    # The first gap of the persisted state opens the gap window (§5.4).
    ends = [spso - 1] + [b.last_offset for b in runs]
    gap = next((ends[i] + 1 for i, b in enumerate(runs) if b.first_offset > ends[i] + 1), None)
    if gap is not None:
        st.set(window=(gap, s.end))
    _advance_start(st)
    return NONE


def reload(st: St, event: sp.Reload, index: int) -> None:
    """A new leader epoch reads the persisted state; locks and anything not persisted are gone."""
    s = st.state
    st.set(leader_epoch=max(s.leader_epoch, s.persister.leader_epoch) + 1, batches={}, recs={},
           window=None, spso=0, end=0, state_epoch=0)
    st.answer(index, sp.ReloadResponse(_load(st, event.latest_offset)))


@icontract.require(lambda st: st.state.status == ACTIVE)
def can_acquire(st: St, event: sp.CanAcquire, index: int) -> None:
    """§6's gate on the fetch path: the log is read for this partition only while a record
    waits to go again (the next fetch offset is inside the cache) or fewer offsets than the
    in-flight limit lie between SPSO and SPEO."""
    s = st.state
    in_flight = s.end - s.spso + 1 if s.batches else 0
    again = next_fetch_offset(s) != s.end + 1
    st.answer(index, sp.CanAcquireResponse(again or in_flight < s.config.max_in_flight_records))


# ---------------------------------------------------------------------------------------------
# A failed partition, and the table
# ---------------------------------------------------------------------------------------------


def nothing_to_fetch(st: St, event: sp.Fetch, index: int) -> None:
    """A partition whose load failed acquires nothing."""
    st.answer(index, sp.FetchResponse())


def not_loaded(st: St, event: sp.CanAcquire, index: int) -> None:
    """A partition whose load failed never gives a fetch its lock, so its log is never read."""
    st.answer(index, sp.CanAcquireResponse(False))


def unknown_partition(st: St, event: sp.ReleaseMember, index: int) -> None:
    """A partition whose load failed answers UNKNOWN_TOPIC_OR_PARTITION."""
    st.answer(index, sp.ReleaseResponse(Errors.UNKNOWN_TOPIC_OR_PARTITION))


def unknown_partition_if_well_formed(st: St, event: sp.Acknowledge, index: int) -> None:
    """The broker checks the batches first (§10.1), then answers UNKNOWN_TOPIC_OR_PARTITION."""
    error = Errors.UNKNOWN_TOPIC_OR_PARTITION if _well_formed(event.batches) else Errors.INVALID_REQUEST
    st.answer(index, sp.AcknowledgeResponse(error))


def ignore(st: St, event: object, index: int) -> None:
    """Nothing changes (a partition whose load failed has no cache to trim)."""


TABLE = Table("share_partition", {
    (ACTIVE, sp.Fetch): acquire,
    (ACTIVE, sp.Acknowledge): acknowledge,
    (ACTIVE, sp.ReleaseMember): release,
    (ACTIVE, sp.MoveLogStart): move_log_start,
    (ACTIVE, sp.CanAcquire): can_acquire,
    (FAILED, sp.Fetch): nothing_to_fetch,
    (FAILED, sp.Acknowledge): unknown_partition_if_well_formed,
    (FAILED, sp.ReleaseMember): unknown_partition,
    (FAILED, sp.MoveLogStart): ignore,
    (FAILED, sp.CanAcquire): not_loaded,
    (ANY, sp.AdvanceClock): advance_clock,
    (ANY, sp.SetPersisterError): set_persister_error,
    (ANY, sp.FenceLeader): fence_leader,
    (ANY, sp.ResetShareState): reset_share_state,
    (ANY, sp.Reload): reload,
})

# ---------------------------------------------------------------------------------------------
# The observable view
# ---------------------------------------------------------------------------------------------


def view(s: State) -> sp.SharePartitionView:
    p, window = s.persister, _window_start(s)
    return sp.SharePartitionView(
        now_ms=s.now, status=s.status, leader_epoch=s.leader_epoch, state_epoch=s.state_epoch,
        start_offset=s.spso, end_offset=s.end, next_fetch_offset=next_fetch_offset(s),
        batches=tuple(sp.BatchView(f, b.last, b.split) for f, b in sorted(s.batches.items())),
        records=tuple(sp.RecordView(o, r.state, r.dc, r.member, r.lock[0] if r.lock else None)
                      for o, r in sorted(s.recs.items())),
        gap_window=s.window if window is not None else None,
        persisted_state_epoch=p.entry.offset.state_epoch, persisted_leader_epoch=p.leader_epoch,
        persisted_start_offset=p.entry.offset.start_offset, persisted=persisted_batches(p))

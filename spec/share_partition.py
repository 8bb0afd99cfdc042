"""The share partition, as rules: in-flight record states of one (share group, topic partition).

Theory of operation
-------------------
Kafka's ``SharePartition`` (KIP-932) keeps a sorted map of in-flight *batches*. A batch covers
an offset range and holds one state for all of it until something touches part of it; then it is
*split* and keeps one state per offset, for good. Batch boundaries are observable (an unsplit
batch is acquired, acknowledged, timed out and persisted as one range), so this spec keeps them:
``batches`` maps a batch's first offset to its last offset and whether it is split, and ``recs``
holds every cached offset's state, identical across an unsplit batch. Every rule is a plain loop
over offsets. docs/reference/share-partition-kafka.md gives each rule's upstream source (Kafka
trunk, "L3"); its section numbers are quoted here as §n.

* A record is AVAILABLE, ACQUIRED (by one member, under a lock timer), ACKNOWLEDGED or
  ARCHIVED. Acquiring counts a delivery; a release or a lock expiry at the delivery limit
  archives instead of making the record available again.
* Acknowledgements and releases change records *pending* a persister write; a failed write puts
  every record of the call back. Lock expiries are written too, but a failed write changes
  nothing back. The persister answers within the step (``SetPersisterError`` injects errors).
* The share-partition start offset (SPSO) moves forward past finished records after each write;
  the log start offset (``MoveLogStart``) moves it too, archiving what was never delivered.
* The persister is a per-offset map here: a write overrides the offsets it names and drops
  everything below its start offset; a read returns maximal runs of equal (state, count).

Out of scope for now: record_limit acquire mode, read_committed transaction filtering, the
deliveryCompleteCount field, writes held open across steps (Kafka's pending-while-timeout cases
E25/E26), and the manager dropping a partition after fatal errors (the machine keeps going).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import icontract

from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    EMPTY_MEMBER_ID,
    AckBatch,
    AcknowledgeResponse,
    AcknowledgeType,
    AcquiredRecords,
    AdvanceClock,
    Answer,
    BatchView,
    FenceLeader,
    Fetch,
    FetchResponse,
    MoveLogStart,
    Output,
    PersistedState,
    PersisterBatch,
    RecordState,
    RecordView,
    ReleaseMember,
    ReleaseResponse,
    Reload,
    ReloadResponse,
    ResetShareState,
    SetPersisterError,
    SharePartitionConfig,
    SharePartitionEvent,
    SharePartitionView,
    StateWrite,
    check_config,
    check_event,
    check_persisted,
)
from groupspec.types.share_partition import Acknowledge as AcknowledgeEvent

AVAILABLE, ACQUIRED = RecordState.AVAILABLE, RecordState.ACQUIRED
ACKNOWLEDGED, ARCHIVED = RecordState.ACKNOWLEDGED, RecordState.ARCHIVED
ACTIVE, FAILED = "ACTIVE", "FAILED"
_ACK_TYPES = frozenset(int(t) for t in AcknowledgeType)

_TARGET = {AcknowledgeType.GAP: ARCHIVED, AcknowledgeType.ACCEPT: ACKNOWLEDGED,
           AcknowledgeType.RELEASE: AVAILABLE, AcknowledgeType.REJECT: ARCHIVED}


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


@dataclass
class Rec:
    state: RecordState
    dc: int
    member: str = EMPTY_MEMBER_ID
    #: The lock timer holding this record (shared by an unsplit batch's offsets).
    timer: int | None = None


@dataclass
class Batch:
    last: int
    split: bool = False


@dataclass
class Timer:
    deadline: int
    first: int
    last: int


@dataclass
class Persister:
    state_epoch: int
    leader_epoch: int
    start_offset: int
    offsets: dict[int, tuple[RecordState, int]] = field(default_factory=dict)
    error: Errors = Errors.NONE


@dataclass
class State:
    config: SharePartitionConfig
    now: int
    persister: Persister
    status: str = ACTIVE
    leader_epoch: int = 0
    state_epoch: int = 0
    spso: int = 0
    end: int = 0
    batches: dict[int, Batch] = field(default_factory=dict)
    recs: dict[int, Rec] = field(default_factory=dict)
    #: [gap start, end offset] of the persisted state's first gap (§5.4); active while its end is ``end``.
    window: list[int] | None = None
    timers: dict[int, Timer] = field(default_factory=dict)
    seq: int = 0


class _Step:
    def __init__(self, state: State) -> None:
        self.s = state
        self.answers: list[Answer] = []
        self.writes: list[StateWrite] = []

    @property
    def cfg(self) -> SharePartitionConfig:
        return self.s.config


# ---------------------------------------------------------------------------------------------
# Invariants
# ---------------------------------------------------------------------------------------------


def invariants_hold(s: State) -> bool:
    """Batches tile the cached offsets; unsplit batches are uniform; locks match ACQUIRED."""
    covered: set[int] = set()
    previous_last = None
    for first in sorted(s.batches):
        b = s.batches[first]
        if b.last < first or (previous_last is not None and first <= previous_last):
            return False
        previous_last = b.last
        offsets = range(first, b.last + 1)
        covered.update(offsets)
        if not b.split and len({(s.recs[o].state, s.recs[o].dc, s.recs[o].member, s.recs[o].timer)
                                for o in offsets}) != 1:
            return False
    if covered != set(s.recs):
        return False
    for o, r in s.recs.items():
        if r.state == ACQUIRED:
            if not 1 <= r.dc <= s.config.delivery_count_limit:
                return False
            if r.member != EMPTY_MEMBER_ID and (r.timer is None or r.timer not in s.timers):
                return False
        elif r.timer is not None or r.member != EMPTY_MEMBER_ID:
            return False
        if r.state == AVAILABLE and o < s.spso:
            return False
    if not s.batches and s.end != s.spso:
        return False
    return all(t.deadline >= s.now for t in s.timers.values())


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
def initial_state(config: SharePartitionConfig = SharePartitionConfig(),  # noqa: B008
                  persisted: PersistedState = PersistedState(),  # noqa: B008
                  now_ms: int = 0, latest_offset: int = 0) -> State:
    """A share partition that has just read ``persisted`` from the persister (leader epoch 0)."""
    check_config(config)
    check_persisted(config, persisted)
    offsets = {o: (b.delivery_state, b.delivery_count)
               for b in persisted.batches for o in range(b.first_offset, b.last_offset + 1)}
    s = State(config, now_ms, Persister(persisted.state_epoch, -1, persisted.start_offset, offsets))
    _load(_Step(s), latest_offset)
    return s


@icontract.require(lambda state: invariants_hold(state))
@icontract.ensure(lambda result: invariants_hold(result[0]))
@icontract.ensure(lambda state, event, result:
                  isinstance(event, Reload | ResetShareState) or _monotonic(state, result[0]))
def step(state: State, event: SharePartitionEvent, index: int) -> tuple[State, Output]:
    """Apply one event; ``index`` numbers a request's answer. An event no broker could produce
    (a negative log offset, a start offset below -1, ...) is refused with an InputError naming
    the field, and ``state`` is left as it was."""
    check_event(event)
    st = _Step(copy.deepcopy(state))
    match event:
        case Fetch():
            st.answers.append(Answer(index, _acquire(st, event)))
        case AcknowledgeEvent():
            st.answers.append(Answer(index, AcknowledgeResponse(_acknowledge(st, event))))
        case ReleaseMember():
            st.answers.append(Answer(index, ReleaseResponse(_release(st, event.member_id))))
        case MoveLogStart():
            if st.s.status == ACTIVE:
                _move_log_start(st.s, event.log_start_offset)
        case AdvanceClock():
            _advance(st, event.to_ms)
        case SetPersisterError():
            st.s.persister.error = event.error
        case FenceLeader():
            p = st.s.persister
            p.leader_epoch = max(p.leader_epoch, st.s.leader_epoch) + 1
        case ResetShareState():
            p = st.s.persister
            p.state_epoch += 1
            p.start_offset = event.start_offset
            p.offsets.clear()
        case Reload():
            st.answers.append(Answer(index, ReloadResponse(_reload(st, event.latest_offset))))
    return st.s, Output(tuple(st.answers), tuple(st.writes))


# ---------------------------------------------------------------------------------------------
# Cache helpers
# ---------------------------------------------------------------------------------------------


def _floor(s: State, offset: int) -> int | None:
    keys = [k for k in s.batches if k <= offset]
    return max(keys) if keys else None


def _window_active(s: State) -> bool:
    return s.window is not None and s.window[1] == s.end


def _update_window(s: State, offset: int) -> None:
    """§8.10: the gap window's start follows acquisition; it is dropped once the end moved on."""
    if s.window is None:
        return
    if s.window[1] == s.end and offset <= s.window[1]:
        s.window[0] = offset
    else:
        s.window = None


def _schedule(s: State, first: int, last: int, deadline: int | None = None) -> int:
    s.seq += 1
    s.timers[s.seq] = Timer(s.now + s.config.record_lock_duration_ms if deadline is None else deadline,
                            first, last)
    return s.seq


def _cancel(s: State, timer: int | None) -> None:
    if timer is not None:
        s.timers.pop(timer, None)


def _split(s: State, first: int) -> None:
    """Per-offset state from now on; a running batch lock becomes one lock per offset, same expiry."""
    b = s.batches[first]
    if b.split:
        return
    b.split = True
    timer = s.recs[first].timer
    if timer is None or timer not in s.timers:
        # A lock that just fired (a split inside its own expiry): the offsets expire right away.
        for o in range(first, b.last + 1):
            s.recs[o].timer = None
        return
    deadline = s.timers[timer].deadline
    _cancel(s, timer)
    for o in range(first, b.last + 1):
        s.recs[o].timer = _schedule(s, o, o, deadline)


def _set(s: State, offsets: range, state: RecordState, member: str, timer: int | None) -> None:
    for o in offsets:
        r = s.recs[o]
        r.state, r.member, r.timer = state, member, timer


def _archive(s: State, offsets: range) -> None:
    """InFlightState#archive: ARCHIVED whatever the state, lock cancelled, count unchanged."""
    for o in offsets:
        _cancel(s, s.recs[o].timer)
    _set(s, offsets, ARCHIVED, EMPTY_MEMBER_ID, None)


def _archive_available(s: State, start: int, end_exclusive: int, from_key: int) -> None:
    """§14.1/§14.3: AVAILABLE records in [start, end) become ARCHIVED (not persisted).

    Batches from ``from_key`` on are visited; one not wholly inside the range is split if it is
    AVAILABLE, even when none of its offsets is in the range (SharePartition#archiveRecords).
    """
    for first in sorted(s.batches):
        b = s.batches[first]
        if first < from_key:
            continue
        if first >= end_exclusive:
            break
        if not b.split and first >= start and b.last < end_exclusive:
            if s.recs[first].state == AVAILABLE:
                _archive(s, range(first, b.last + 1))
            continue
        if not b.split:
            if s.recs[first].state != AVAILABLE:
                continue
            _split(s, first)
        for o in range(max(first, start), min(b.last, end_exclusive - 1) + 1):
            if s.recs[o].state == AVAILABLE:
                _archive(s, range(o, o + 1))


def next_fetch_offset(s: State) -> int:
    """§7: the first AVAILABLE offset, or a gap of the persisted state still to fetch, else the end."""
    if not s.batches or s.spso > s.batches[max(s.batches)].last:
        return s.end
    active = _window_active(s)
    gap = s.window[0] if s.window is not None and active else -1
    for first in sorted(s.batches):
        b = s.batches[first]
        if active:
            if first > gap:
                return gap
            gap = max(b.last + 1, gap)
        for o in range(first, b.last + 1) if b.split else (first,):
            if s.recs[o].state == AVAILABLE:
                return o
    return s.end + 1


# ---------------------------------------------------------------------------------------------
# Acquire (§8)
# ---------------------------------------------------------------------------------------------


def _log_batch_last(event: Fetch, offset: int) -> int:
    for b in event.log:
        if b.base_offset <= offset <= b.last_offset:
            return b.last_offset
    return offset


def _acquire_new(st: _Step, event: Fetch, first: int, last: int,
                 limit: int) -> tuple[list[AcquiredRecords], int]:
    """§8.4: records never cached before become new ACQUIRED batches, cut at log-batch bases (§8.5)."""
    s = st.s
    first_acq = s.end if not s.batches and s.end > first else first
    last_acq = last
    if limit < last_acq - first_acq + 1:
        last_acq = _log_batch_last(event, first_acq + limit - 1)
        if _window_active(s) and last_acq > last:
            last_acq = last
    if last_acq < first_acq:
        return [], 0
    ranges = []
    cur = first_acq
    if last_acq - first_acq + 1 > event.batch_size:
        for b in event.log:
            if b.base_offset > last_acq:
                break
            if b.base_offset - cur >= event.batch_size:
                ranges.append((cur, b.base_offset - 1))
                cur = b.base_offset
    ranges.append((cur, last_acq))
    acquired = []
    for f, last_offset in ranges:
        timer = _schedule(s, f, last_offset)
        s.batches[f] = Batch(last_offset)
        for o in range(f, last_offset + 1):
            s.recs[o] = Rec(ACQUIRED, 1, event.member_id, timer)
        acquired.append(AcquiredRecords(f, last_offset, 1))
    if min(s.batches) == first_acq:
        s.spso = first_acq
    if last_acq > s.end:
        s.end = last_acq
    _update_window(s, last_acq + 1)
    return acquired, last_acq - first_acq + 1


def _should_throttle(st: _Step, first: int, low: int, high: int) -> bool:
    """§9: an AVAILABLE batch (or offsets in the request range) delivered T times or more."""
    s, b = st.s, st.s.batches[first]
    if not b.split:
        return s.recs[first].state == AVAILABLE and s.recs[first].dc >= st.cfg.throttle_limit
    counts = [s.recs[o].dc for o in range(max(first, low), min(b.last, high) + 1)
              if s.recs[o].state == AVAILABLE]
    return max(counts, default=0) >= st.cfg.throttle_limit


def _acquire_subset(st: _Step, member: str, first: int, low: int,
                    high: int) -> tuple[list[AcquiredRecords], int]:
    """§8.7: offset by offset; near the limit, fewer at a time, and the last delivery alone."""
    s = st.s
    b = s.batches[first]
    limit, throttle = st.cfg.delivery_count_limit, st.cfg.throttle_limit
    taken: list[tuple[int, int]] = []
    cap = -1
    for o in range(first, b.last + 1):
        if o < low:
            continue
        if o > high:
            break
        r = s.recs[o]
        if r.state != AVAILABLE:
            continue
        if limit > 2 and r.dc == limit - 1 and taken:
            break
        if r.dc >= throttle and cap < 0:
            cap = max(1, (b.last - first + 1) >> (r.dc - throttle + 1))
        r.state, r.dc, r.member = ACQUIRED, r.dc + 1, member
        r.timer = _schedule(s, o, o)
        taken.append((o, r.dc))
        if r.dc == limit and limit > 2:
            break
        if len(taken) == cap:
            break
    # Consecutive offsets with the same delivery count are reported as one range (§8.7).
    out: list[AcquiredRecords] = []
    for o, dc in taken:
        if out and out[-1].last_offset == o - 1 and out[-1].delivery_count == dc:
            out[-1] = AcquiredRecords(out[-1].first_offset, o, dc)
        else:
            out.append(AcquiredRecords(o, o, dc))
    return out, len(taken)


def _acquire(st: _Step, event: Fetch) -> FetchResponse:
    s, cfg = st.s, st.cfg
    if s.status != ACTIVE or event.max_fetch_records <= 0 or not event.log:
        return FetchResponse()
    first_batch, last_fetched = event.log[0], event.log[-1].last_offset
    if last_fetched < s.spso:
        return FetchResponse()
    # §8.2: room under the in-flight limit; at the limit only offsets up to the end are re-fetched.
    in_flight = s.end - s.spso + 1 if s.batches else 0
    max_records = min(event.max_fetch_records, cfg.max_in_flight_records - in_flight)
    last_to_acquire = last_fetched
    if max_records <= 0 and event.fetch_offset <= s.end:
        max_records = min(event.max_fetch_records, s.end - event.fetch_offset + 1)
        last_to_acquire = min(last_fetched, s.end)
    if max_records <= 0:
        return FetchResponse()
    base = first_batch.base_offset
    if s.batches and event.fetch_offset < base:  # §14.3: compacted away
        holder = _floor(s, event.fetch_offset)
        holds = holder is not None and s.batches[holder].last >= event.fetch_offset
        from_key = holder if holder is not None and holds else event.fetch_offset
        _archive_available(s, event.fetch_offset, base, from_key)
    floor = _floor(s, base)
    if floor is None and base < s.spso:
        base = s.spso
    elif floor is not None and s.batches[floor].last >= base:
        base = floor
    low = min(first_batch.base_offset, base)
    overlapping = [f for f in sorted(s.batches) if low <= f <= last_to_acquire]
    if not overlapping:
        acquired, count = _acquire_new(st, event, base, last_to_acquire, max_records)
        return FetchResponse(tuple(acquired), count)
    result: list[AcquiredRecords] = []
    count = 0
    gap = base
    for first in overlapping:
        b = s.batches[first]
        if count >= max_records:
            break
        if _window_active(s):
            if gap < first:
                more, n = _acquire_new(st, event, gap, first - 1, max_records - count)
                result += more
                count += n
            gap = b.last + 1
            if count >= max_records:
                break
        full = first >= first_batch.base_offset and b.last <= last_to_acquire
        throttled = _should_throttle(st, first, first_batch.base_offset, last_to_acquire)
        if throttled and count > 0:
            max_records = 0  # the throttled batch waits for a fetch of its own
            break
        if not full or b.split or throttled:
            if not b.split:
                if s.recs[first].state != AVAILABLE:
                    continue
                _split(s, first)
            more, n = _acquire_subset(st, event.member_id, first, first_batch.base_offset, last_to_acquire)
            result += more
            count += n
            if throttled and n > 0:
                max_records = 0
                break
            continue
        if s.recs[first].state != AVAILABLE:
            continue
        dc = s.recs[first].dc + 1
        timer = _schedule(s, first, b.last)
        for o in range(first, b.last + 1):
            s.recs[o].dc = dc
        _set(s, range(first, b.last + 1), ACQUIRED, event.member_id, timer)
        result.append(AcquiredRecords(first, b.last, dc))
        count += b.last - first + 1
    tail = s.batches[overlapping[-1]].last
    if count < max_records and tail < last_to_acquire:
        more, n = _acquire_new(st, event, tail + 1, last_to_acquire, max_records - count)
        result += more
        count += n
    if result:
        _update_window(s, result[-1].last_offset + 1)
    return FetchResponse(tuple(result), count)


# ---------------------------------------------------------------------------------------------
# Acknowledge and release (§10, §11), writes and rollback (§15)
# ---------------------------------------------------------------------------------------------


def _valid_request(batches: tuple[AckBatch, ...]) -> bool:
    """KafkaApis#validateAcknowledgementBatches (§10.1), RENEW admitted."""
    previous_last = None
    for b in batches:
        if b.first_offset > b.last_offset:
            return False
        if previous_last is not None and b.first_offset < previous_last:
            return False
        if not b.types:
            return False
        if len(b.types) > 1 and b.last_offset - b.first_offset != len(b.types) - 1:
            return False
        if any(t not in _ACK_TYPES for t in b.types):
            return False
        previous_last = b.last_offset
    return True


class _Call:
    """The transitions one acknowledge or release started: pending until the write answers."""

    def __init__(self) -> None:
        self.before: dict[int, tuple[RecordState, int, str]] = {}
        self.batches: list[PersisterBatch] = []

    def start(self, s: State, offsets: range, target: RecordState) -> None:
        head = s.recs[offsets[0]]
        if target == AVAILABLE and head.dc >= s.config.delivery_count_limit:
            target = ARCHIVED
        for o in offsets:
            r = s.recs[o]
            self.before[o] = (r.state, r.dc, r.member)
            r.state, r.member = target, EMPTY_MEMBER_ID
        self.batches.append(PersisterBatch(offsets[0], offsets[-1], target, head.dc))


def _renew(s: State, first: int, last: int) -> None:
    timer = _schedule(s, first, last)
    for o in range(first, last + 1):
        _cancel(s, s.recs[o].timer)
        s.recs[o].timer = timer


def _ack_batch(s: State, member: str, batch: AckBatch, call: _Call) -> Errors:
    if batch.last_offset < s.spso:
        return Errors.NONE
    floor = _floor(s, batch.first_offset)
    if floor is None:
        if not batch.first_offset < s.spso <= batch.last_offset:
            return Errors.INVALID_RECORD_STATE
        floor = _floor(s, s.spso)
        if floor is None:
            return Errors.UNKNOWN_SERVER_ERROR  # Kafka dereferences a missing entry here (trap T18)
    covered = [f for f in sorted(s.batches) if floor <= f <= batch.last_offset]
    if batch.last_offset > s.batches[covered[-1]].last:
        return Errors.INVALID_REQUEST
    several = len(batch.types) > 1
    for first in covered:
        c = s.batches[first]
        if c.last < s.spso:
            continue
        head = s.recs[first]
        # An unsplit batch: someone must hold it, and it must be this member (§10.2 steps 7-9).
        if not c.split and (head.member == EMPTY_MEMBER_ID or head.member != member or first in call.before):
            return Errors.INVALID_RECORD_STATE
        per_offset = (c.split or several or first < batch.first_offset or c.last > batch.last_offset
                      or first < s.spso <= c.last)
        if not per_offset:
            if head.state != ACQUIRED:
                return Errors.INVALID_RECORD_STATE
            kind = batch.types[0]
            if kind == AcknowledgeType.RENEW:
                _renew(s, first, c.last)
            else:
                call.start(s, range(first, c.last + 1), _TARGET[AcknowledgeType(kind)])
            continue
        if not c.split:
            if head.state != ACQUIRED:
                return Errors.INVALID_RECORD_STATE
            _split(s, first)
        for o in range(first, c.last + 1):
            if o < batch.first_offset or o < s.spso:
                continue
            if o > batch.last_offset:
                break
            r = s.recs[o]
            if r.state != ACQUIRED or o in call.before or r.member != member:
                return Errors.INVALID_RECORD_STATE
            kind = batch.types[o - batch.first_offset] if several else batch.types[0]
            if kind == AcknowledgeType.RENEW:
                _renew(s, o, o)
            else:
                call.start(s, range(o, o + 1), _TARGET[AcknowledgeType(kind)])
    return Errors.NONE


def _acknowledge(st: _Step, event: AcknowledgeEvent) -> Errors:
    s = st.s
    if s.status != ACTIVE:
        return Errors.UNKNOWN_TOPIC_OR_PARTITION
    if not _valid_request(event.batches):
        return Errors.INVALID_REQUEST
    call = _Call()
    for batch in event.batches:
        error = _ack_batch(s, event.member_id, batch, call)
        if error != Errors.NONE:
            _rollback(s, call)
            return error
    return _finish(st, call)


def _release(st: _Step, member: str) -> Errors:
    """§11: every record the member holds goes back (or is archived at the limit / below SPSO)."""
    s = st.s
    if s.status != ACTIVE:
        return Errors.UNKNOWN_TOPIC_OR_PARTITION
    call = _Call()
    for first in sorted(s.batches):
        c = s.batches[first]
        head = s.recs[first]
        if not c.split and head.state == ACQUIRED and head.member == member and first < s.spso <= c.last:
            _split(s, first)
        if c.split:
            for o in range(first, c.last + 1):
                r = s.recs[o]
                if r.member in (member, EMPTY_MEMBER_ID) and r.state == ACQUIRED:
                    call.start(s, range(o, o + 1), ARCHIVED if o < s.spso else AVAILABLE)
        elif head.member in (member, EMPTY_MEMBER_ID) and head.state == ACQUIRED:
            call.start(s, range(first, c.last + 1), ARCHIVED if c.last < s.spso else AVAILABLE)
    return _finish(st, call)


def _rollback(s: State, call: _Call) -> None:
    for o, (state, dc, member) in call.before.items():
        r = s.recs[o]
        r.state, r.dc, r.member = state, dc, member


def _persister_error(error: Errors) -> Errors:
    """SharePartition#fetchPersisterError (§15.4): what the client is told."""
    if error in (Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE,
                 Errors.COORDINATOR_LOAD_IN_PROGRESS):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.GROUP_ID_NOT_FOUND, Errors.UNKNOWN_TOPIC_OR_PARTITION):
        return error
    if error in (Errors.FENCED_LEADER_EPOCH, Errors.FENCED_STATE_EPOCH):
        return Errors.NOT_LEADER_OR_FOLLOWER
    return Errors.UNKNOWN_SERVER_ERROR


def _finish(st: _Step, call: _Call) -> Errors:
    """§10.3: no write for nothing; a failed write undoes the call; a good one makes it final."""
    s = st.s
    if not call.batches:
        return Errors.NONE
    error = _write(st, call.batches)
    if error != Errors.NONE:
        _rollback(s, call)
        return _persister_error(error)
    for o in call.before:
        _cancel(s, s.recs[o].timer)
        s.recs[o].timer = None
    _maybe_advance_start(s)
    return Errors.NONE


def _write(st: _Step, batches: list[PersisterBatch]) -> Errors:
    """WriteShareGroupState to the in-memory share coordinator, with its fencing rules (§15.6)."""
    s, p = st.s, st.s.persister
    error = p.error
    if error == Errors.NONE and p.leader_epoch > s.leader_epoch:
        error = Errors.FENCED_LEADER_EPOCH
    if error == Errors.NONE and p.state_epoch > s.state_epoch:
        error = Errors.FENCED_STATE_EPOCH
    st.writes.append(StateWrite(s.spso, s.state_epoch, s.leader_epoch, tuple(batches), error))
    if error == Errors.NONE:
        for b in batches:
            for o in range(b.first_offset, b.last_offset + 1):
                p.offsets[o] = (b.delivery_state, b.delivery_count)
        p.start_offset = s.spso
        for o in [o for o in p.offsets if o < p.start_offset]:
            del p.offsets[o]
    return error


# ---------------------------------------------------------------------------------------------
# Moving the start offset (§13, §14)
# ---------------------------------------------------------------------------------------------


def _maybe_advance_start(s: State) -> None:
    """maybeUpdateCachedStateAndOffsets: past finished records at the front, dropping their batches."""
    if not s.batches:
        return
    floor = _floor(s, s.spso)
    if floor is None:
        return
    at = s.recs.get(s.spso) if s.batches[floor].split else s.recs[floor]
    if at is None or not at.state.terminal:
        return
    last_done = -1
    for first in sorted(s.batches):
        b = s.batches[first]
        if _window_active(s) and s.window is not None and b.last >= s.window[0]:
            break
        if not b.split:
            if not s.recs[first].state.terminal:
                break
            last_done = b.last
            continue
        unfinished = next((o for o in range(first, b.last + 1) if not s.recs[o].state.terminal), None)
        if unfinished is not None:
            if unfinished > first:
                last_done = unfinished - 1
            break
        last_done = b.last
    if last_done == -1:
        return
    keys = sorted(s.batches)
    if last_done == s.batches[keys[-1]].last:
        s.spso = s.end = last_done + 1
        s.batches.clear()
        s.recs.clear()
        return
    holder = _floor(s, last_done)
    assert holder is not None
    if last_done == s.batches[holder].last:
        following = next(k for k in keys if k > holder)
        s.spso = max(s.spso, following)
        if _window_active(s) and s.window is not None:
            s.spso = min(s.window[0], s.spso)
        drop = [k for k in keys if k <= holder]
    else:
        s.spso = max(s.spso, last_done + 1)
        drop = [k for k in keys if k < holder]
    for k in drop:
        for o in range(k, s.batches[k].last + 1):
            del s.recs[o]
        del s.batches[k]


def _move_log_start(s: State, log_start: int) -> None:
    """updateCacheAndOffsets (§14.1): what is below the new log start was never delivered."""
    if log_start <= s.spso:
        return
    if not s.batches:
        s.spso = s.end = log_start
        return
    _archive_available(s, s.spso, log_start, min(s.batches))
    s.spso = log_start
    s.end = max(s.end, s.spso)


# ---------------------------------------------------------------------------------------------
# Lock expiry (§12)
# ---------------------------------------------------------------------------------------------


def _advance(st: _Step, to_ms: int) -> None:
    s = st.s
    s.now = max(s.now, to_ms)
    while True:
        due = [(t.deadline, key) for key, t in s.timers.items() if t.deadline <= s.now]
        if not due:
            return
        _, key = min(due)
        _expire(st, s.timers.pop(key))


def _expired_target(s: State, below_start: bool, dc: int) -> RecordState:
    if below_start or dc >= s.config.delivery_count_limit:
        return ARCHIVED
    return AVAILABLE


def _expire(st: _Step, timer: Timer) -> None:
    s = st.s
    floor = _floor(s, timer.first)
    if floor is None:
        return
    written: list[PersisterBatch] = []
    for first in [f for f in sorted(s.batches) if floor <= f <= timer.last]:
        c = s.batches[first]
        head = s.recs[first]
        if not c.split and head.state == ACQUIRED and first < s.spso <= c.last:
            _split(s, first)
        if not c.split:
            if head.state == ACQUIRED:
                target = _expired_target(s, c.last < s.spso, head.dc)
                _cancel(s, head.timer)
                _set(s, range(first, c.last + 1), target, EMPTY_MEMBER_ID, None)
                written.append(PersisterBatch(first, c.last, target, head.dc))
            continue
        for o in range(max(first, timer.first), min(c.last, timer.last) + 1):
            r = s.recs[o]
            if r.state == ACQUIRED:
                target = _expired_target(s, o < s.spso, r.dc)
                _cancel(s, r.timer)
                _set(s, range(o, o + 1), target, EMPTY_MEMBER_ID, None)
                written.append(PersisterBatch(o, o, target, r.dc))
    if written:
        _write(st, written)  # a failed write is only logged: the expiry stands
        _maybe_advance_start(s)


# ---------------------------------------------------------------------------------------------
# Loading (§5)
# ---------------------------------------------------------------------------------------------


def persisted_batches(p: Persister) -> tuple[PersisterBatch, ...]:
    """The persister's state as maximal runs of consecutive offsets with equal state and count."""
    runs: list[PersisterBatch] = []
    for o in sorted(p.offsets):
        state, dc = p.offsets[o]
        last = runs[-1] if runs else None
        if (last is not None and last.last_offset == o - 1
                and (last.delivery_state, last.delivery_count) == (state, dc)):
            runs[-1] = PersisterBatch(last.first_offset, o, state, dc)
        else:
            runs.append(PersisterBatch(o, o, state, dc))
    return tuple(runs)


def _load(st: _Step, latest_offset: int) -> Errors:
    """maybeInitialize: read the persisted state and rebuild the cache from it."""
    s, p = st.s, st.s.persister
    error = p.error
    if error == Errors.NONE and p.leader_epoch > s.leader_epoch:
        error = Errors.FENCED_LEADER_EPOCH
    if error != Errors.NONE:
        s.status = FAILED
        return _persister_error(error)
    p.leader_epoch = max(p.leader_epoch, s.leader_epoch)  # a read raises the stored leader epoch
    s.status = ACTIVE
    s.state_epoch = p.state_epoch
    s.spso = latest_offset if p.start_offset == -1 else p.start_offset
    previous_last = s.spso - 1
    gap_start = None
    for b in persisted_batches(p):
        if gap_start is None and b.first_offset > previous_last + 1:
            gap_start = previous_last + 1
        previous_last = b.last_offset
        s.batches[b.first_offset] = Batch(b.last_offset)
        for o in range(b.first_offset, b.last_offset + 1):
            s.recs[o] = Rec(b.delivery_state, b.delivery_count)
    if not s.batches:
        s.end = s.spso
        return Errors.NONE
    s.end = s.batches[max(s.batches)].last
    if gap_start is not None:
        s.window = [gap_start, s.end]
    _maybe_advance_start(s)
    return Errors.NONE


def _reload(st: _Step, latest_offset: int) -> Errors:
    s = st.s
    s.leader_epoch = max(s.leader_epoch, s.persister.leader_epoch) + 1
    s.timers.clear()
    s.batches.clear()
    s.recs.clear()
    s.window = None
    s.spso = s.end = s.state_epoch = 0
    return _load(st, latest_offset)


# ---------------------------------------------------------------------------------------------
# The observable view
# ---------------------------------------------------------------------------------------------


def view(s: State) -> SharePartitionView:
    records = []
    for o in sorted(s.recs):
        r = s.recs[o]
        deadline = s.timers[r.timer].deadline if r.timer is not None else None
        records.append(RecordView(o, r.state, r.dc, r.member, deadline))
    window = (s.window[0], s.window[1]) if s.window is not None and _window_active(s) else None
    p = s.persister
    return SharePartitionView(
        now_ms=s.now, status=s.status, leader_epoch=s.leader_epoch, state_epoch=s.state_epoch,
        start_offset=s.spso, end_offset=s.end, next_fetch_offset=next_fetch_offset(s),
        batches=tuple(BatchView(f, s.batches[f].last, s.batches[f].split) for f in sorted(s.batches)),
        records=tuple(records), gap_window=window, persisted_state_epoch=p.state_epoch,
        persisted_leader_epoch=p.leader_epoch, persisted_start_offset=p.start_offset,
        persisted=persisted_batches(p))

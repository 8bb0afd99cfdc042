"""Kafka's ``SharePartition``: the in-flight records of one (share group, topic partition).

The cache maps a batch's first offset to its :class:`InFlightBatch`; a sorted key list gives
floor and range lookups by bisection. Acquisition locks live on the injected clock's timer queue,
one per unsplit batch or per offset of a split one. Writes go through a :class:`Persister` and
answer within the call, so a pending transition never outlives the operation that started it.

Section numbers (§n) refer to docs/reference/share-partition-kafka.md, which cites the upstream
method for each rule.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterator

from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.timer import Fired, TimerQueue
from groupspec.impl.share_partition.in_flight import (
    ACKNOWLEDGED,
    ACQUIRED,
    ARCHIVED,
    AVAILABLE,
    DeliveryCountOps,
    InFlightBatch,
    InFlightState,
    LockTimer,
    Run,
)
from groupspec.impl.share_partition.persister import Persister
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    EMPTY_MEMBER_ID,
    AckBatch,
    AcknowledgeType,
    AcquiredRecords,
    FetchResponse,
    LogBatch,
    PersisterBatch,
    RecordState,
    SharePartitionConfig,
    StateWrite,
)

ACK_TYPE_TO_STATE = {AcknowledgeType.GAP: ARCHIVED, AcknowledgeType.ACCEPT: ACKNOWLEDGED,
                     AcknowledgeType.RELEASE: AVAILABLE, AcknowledgeType.REJECT: ARCHIVED}
_KNOWN_TYPES = frozenset(int(t) for t in AcknowledgeType)


class SharePartitionState:
    EMPTY = "EMPTY"
    ACTIVE = "ACTIVE"
    FAILED = "FAILED"


def persister_error(error: Errors) -> Errors:
    """fetchPersisterError: the error a client sees for a persister's answer (§15.4)."""
    if error in (Errors.NOT_COORDINATOR, Errors.COORDINATOR_NOT_AVAILABLE,
                 Errors.COORDINATOR_LOAD_IN_PROGRESS):
        return Errors.COORDINATOR_NOT_AVAILABLE
    if error in (Errors.GROUP_ID_NOT_FOUND, Errors.UNKNOWN_TOPIC_OR_PARTITION):
        return error
    if error in (Errors.FENCED_LEADER_EPOCH, Errors.FENCED_STATE_EPOCH):
        return Errors.NOT_LEADER_OR_FOLLOWER
    return Errors.UNKNOWN_SERVER_ERROR


def _stretches(batch: AckBatch, low: int, high: int) -> Iterator[tuple[AcknowledgeType, int, int]]:
    """[low, high] of ``batch`` as stretches of one acknowledge type: (type, first, last)."""
    if len(batch.types) == 1:
        yield AcknowledgeType(batch.types[0]), low, high
        return
    at = low
    for kind, group in itertools.groupby(batch.types[low - batch.first_offset:high - batch.first_offset + 1]):
        n = sum(1 for _ in group)
        yield AcknowledgeType(kind), at, at + n - 1
        at += n


def valid_acknowledgement_batches(batches: tuple[AckBatch, ...]) -> bool:
    """KafkaApis#validateAcknowledgementBatches (§10.1); an overlap by one offset passes (T10).

    The "previous batch's last offset" starts at -1, so a first batch from -2 or lower is refused.
    """
    previous_last = -1
    for b in batches:
        if b.first_offset > b.last_offset or not b.types:
            return False
        if b.first_offset < previous_last:
            return False
        if len(b.types) > 1 and b.last_offset - b.first_offset + 1 != len(b.types):
            return False
        if not _KNOWN_TYPES.issuperset(b.types):
            return False
        previous_last = b.last_offset
    return True


class _Transitions:
    """The states one acknowledge or release call moved, pending their write, and what to write."""

    def __init__(self) -> None:
        self.states: list[InFlightState] = []
        self.batches: list[PersisterBatch] = []

    def start(self, state: InFlightState, first: int, last: int, target: RecordState,
              max_delivery: int) -> bool:
        """A whole unsplit batch: one state batch in the write."""
        if state.start_state_transition(target, max_delivery) is None:
            return False
        self.states.append(state)
        self.batches.append(PersisterBatch(first, last, state.state, state.delivery_count))
        return True

    def start_run(self, run: Run, target: RecordState, max_delivery: int) -> bool:
        """A run of a split batch: written offset by offset, as Kafka writes a split batch."""
        state = run.state
        if state.start_state_transition(target, max_delivery) is None:
            return False
        self.states.append(state)
        self.batches.extend(PersisterBatch(o, o, state.state, state.delivery_count) for o in run.offsets())
        return True


class SharePartition:
    def __init__(self, config: SharePartitionConfig, persister: Persister, clock: ManualClock,
                 timers: TimerQueue[LockTimer], leader_epoch: int = 0) -> None:
        self.config = config
        self.persister = persister
        self.clock = clock
        self.timers = timers
        self.leader_epoch = leader_epoch
        self.state_epoch = 0
        self.partition_state = SharePartitionState.EMPTY
        self.start_offset = 0
        self.end_offset = 0
        self.cached: dict[int, InFlightBatch] = {}
        self._keys: list[int] = []
        self.find_next_fetch_offset = False
        #: GapWindow: [gap start, end offset] of the persisted state's first uncovered offset.
        self.gap_window: list[int] | None = None
        self._timer_ids = itertools.count()
        #: The acknowledge or release call under way: a run cut while pending joins it.
        self._call: _Transitions | None = None

    # -- the cache ----------------------------------------------------------------------------------

    def _put(self, batch: InFlightBatch) -> None:
        if batch.first_offset not in self.cached:
            insort(self._keys, batch.first_offset)
        self.cached[batch.first_offset] = batch

    def _floor(self, offset: int) -> InFlightBatch | None:
        i = bisect_right(self._keys, offset)
        return self.cached[self._keys[i - 1]] if i else None

    def _range(self, low: int, high: int) -> list[InFlightBatch]:
        """Cached batches whose first offset is in [low, high], ascending."""
        keys = self._keys[bisect_left(self._keys, low):bisect_right(self._keys, high)]
        return [self.cached[k] for k in keys]

    def _batches(self) -> Iterator[InFlightBatch]:
        for k in list(self._keys):
            yield self.cached[k]

    def _drop_through(self, index: int) -> None:
        """Remove the first ``index`` batches."""
        for k in self._keys[:index]:
            del self.cached[k]
        del self._keys[:index]

    def _last_batch(self) -> InFlightBatch:
        return self.cached[self._keys[-1]]

    def _window_active(self) -> bool:
        return self.gap_window is not None and self.gap_window[1] == self.end_offset

    def _update_gap_window(self, offset: int) -> None:
        window = self.gap_window
        if window is None:
            return
        if window[1] == self.end_offset and offset <= window[1]:
            window[0] = offset
        else:
            self.gap_window = None

    # -- locks --------------------------------------------------------------------------------------

    def _lock(self, first: int, last: int, deadline: int | None = None,
              per_offset: bool = False) -> LockTimer:
        timer = LockTimer(f"lock-{next(self._timer_ids)}", first, last, per_offset)
        delay = self.config.record_lock_duration_ms if deadline is None else deadline - self.clock.now()
        self.timers.schedule(timer.key, delay, timer)
        return timer

    def _cancel(self, timer: LockTimer) -> None:
        # A per-offset lock may still stand for other runs' offsets: it stays armed, and when it
        # fires it skips every offset whose state no longer holds it.
        if not timer.per_offset:
            self.timers.cancel(timer.key)

    def _on_copy(self, original: InFlightState, copy: InFlightState) -> None:
        if original.pending() and self._call is not None:
            self._call.states.append(copy)

    def deadline(self, timer: LockTimer | None) -> int | None:
        return None if timer is None else self.timers.deadline(timer.key)

    def _split(self, batch: InFlightBatch) -> None:
        if batch.split:
            return
        whole = batch.whole()
        deadline = self.deadline(whole.timer)
        if deadline is None:
            whole.timer = None  # its lock just fired: the offsets are expired by the caller
        batch.split_offsets(lambda f, last: self._lock(f, last, deadline, per_offset=True), self._cancel)

    # -- initialization (§5) --------------------------------------------------------------------------

    def maybe_initialize(self, latest_offset: int = 0) -> Errors:
        read = self.persister.read_state(self.leader_epoch)
        if read.error is not Errors.NONE:
            self.partition_state = SharePartitionState.FAILED
            return persister_error(read.error)
        state = read.state
        self.state_epoch = state.state_epoch
        self.start_offset = latest_offset if state.start_offset == -1 else state.start_offset
        previous_last = self.start_offset - 1
        gap_start: int | None = None
        for b in state.batches:
            if b.first_offset < self.start_offset or b.last_offset < b.first_offset:
                self.partition_state = SharePartitionState.FAILED
                return Errors.UNKNOWN_SERVER_ERROR
            if gap_start is None and b.first_offset > previous_last + 1:
                gap_start = previous_last + 1
            previous_last = b.last_offset
            self._put(InFlightBatch(b.first_offset, b.last_offset,
                                    InFlightState(RecordState(b.delivery_state), b.delivery_count)))
        self.partition_state = SharePartitionState.ACTIVE
        if not self.cached:
            self.end_offset = self.start_offset
            return Errors.NONE
        self.find_next_fetch_offset = True
        self.end_offset = self._last_batch().last_offset
        if gap_start is not None:
            self.gap_window = [gap_start, self.end_offset]
        self._maybe_update_cached_state_and_offsets()
        return Errors.NONE

    # -- nextFetchOffset (§7) -------------------------------------------------------------------------

    def next_fetch_offset(self) -> int:
        if not self.cached or self.start_offset > self._last_batch().last_offset:
            self.find_next_fetch_offset = False
            return self.end_offset
        if not self.find_next_fetch_offset:
            return self.end_offset + 1
        active = self._window_active()
        gap = self.gap_window[0] if active and self.gap_window is not None else -1
        for batch in self._batches():
            if active:
                if batch.first_offset > gap:
                    return gap
                gap = max(batch.last_offset + 1, gap)
            if batch.runs is None:
                whole = batch.whole()
                if whole.state == AVAILABLE and not whole.pending():
                    return batch.first_offset
                continue
            for run in batch.runs:
                if run.state.state == AVAILABLE and not run.state.pending():
                    return run.first
        self.find_next_fetch_offset = False
        return self.end_offset + 1

    def can_acquire_records(self) -> bool:
        if self.next_fetch_offset() != self.end_offset + 1:
            return True
        in_flight = self.end_offset - self.start_offset + 1 if self.cached else 0
        return in_flight < self.config.max_in_flight_records

    # -- acquire (§8) ---------------------------------------------------------------------------------

    def acquire(self, member_id: str, fetch_offset: int, log: tuple[LogBatch, ...], max_fetch_records: int,
                batch_size: int) -> FetchResponse:
        if self.partition_state != SharePartitionState.ACTIVE or max_fetch_records <= 0 or not log:
            return FetchResponse()
        first_batch, last_fetched = log[0], log[-1].last_offset
        if last_fetched < self.start_offset:
            return FetchResponse()
        in_flight = self.end_offset - self.start_offset + 1 if self.cached else 0
        max_records = min(max_fetch_records, self.config.max_in_flight_records - in_flight)
        last_to_acquire = last_fetched
        if max_records <= 0 and fetch_offset <= self.end_offset:
            max_records = min(max_fetch_records, self.end_offset - fetch_offset + 1)
            last_to_acquire = min(last_fetched, self.end_offset)
        if max_records <= 0:
            return FetchResponse()
        base = first_batch.base_offset
        self._maybe_archive_stale_batches(fetch_offset, base)
        floor = self._floor(base)
        if floor is None:
            if base < self.start_offset:
                base = self.start_offset
        elif floor.last_offset >= base:
            base = floor.first_offset
        sub_map = self._range(min(first_batch.base_offset, base), last_to_acquire)
        if not sub_map:
            acquired, count = self._acquire_new_batch_records(member_id, log, base, last_to_acquire,
                                                              batch_size, max_records)
            return FetchResponse(tuple(acquired), count)
        result: list[AcquiredRecords] = []
        count = 0
        gap_start = base
        request_first = first_batch.base_offset
        for batch in sub_map:
            if count >= max_records:
                break
            if self._window_active():
                if gap_start < batch.first_offset:
                    more, n = self._acquire_new_batch_records(member_id, log, gap_start,
                                                              batch.first_offset - 1, batch_size,
                                                              max_records - count)
                    result += more
                    count += n
                gap_start = batch.last_offset + 1
                if count >= max_records:
                    break
            full_match = batch.first_offset >= request_first and batch.last_offset <= last_to_acquire
            throttle = self._should_throttle(batch, request_first, last_to_acquire)
            if throttle and count > 0:
                max_records = 0
                break
            if not full_match or batch.split or throttle:
                if not batch.split:
                    whole = batch.whole()
                    if whole.state != AVAILABLE or whole.pending():
                        continue
                    self._split(batch)
                more, n = self._acquire_subset(member_id, batch, request_first, last_to_acquire)
                result += more
                count += n
                if throttle and n > 0:
                    max_records = 0
                    break
                continue
            whole = batch.whole()
            if whole.state != AVAILABLE or whole.pending():
                continue
            if whole.try_update_state(ACQUIRED, DeliveryCountOps.INCREASE, self.config.delivery_count_limit,
                                      member_id) is None:
                continue
            whole.timer = self._lock(batch.first_offset, batch.last_offset)
            result.append(AcquiredRecords(batch.first_offset, batch.last_offset, whole.delivery_count))
            count += batch.size()
        tail = sub_map[-1].last_offset
        if count < max_records and tail < last_to_acquire:
            more, n = self._acquire_new_batch_records(member_id, log, tail + 1, last_to_acquire, batch_size,
                                                      max_records - count)
            result += more
            count += n
        if result:
            self._update_gap_window(result[-1].last_offset + 1)
        return FetchResponse(tuple(result), count)

    def _acquire_new_batch_records(self, member_id: str, log: tuple[LogBatch, ...], first: int, last: int,
                                   batch_size: int, limit: int) -> tuple[list[AcquiredRecords], int]:
        first_acquired = self.end_offset if not self.cached and self.end_offset > first else first
        last_acquired = last
        if limit < last_acquired - first_acquired + 1:
            wanted = first_acquired + limit - 1
            last_acquired = next((b.last_offset for b in log if b.base_offset <= wanted <= b.last_offset),
                                 wanted)
            if self._window_active() and last_acquired > last:
                last_acquired = last
        if last_acquired < first_acquired:
            return [], 0
        acquired = []
        for f, last_offset in self._cut(log, first_acquired, last_acquired, batch_size):
            state = InFlightState(ACQUIRED, 1, member_id)
            state.timer = self._lock(f, last_offset)
            self._put(InFlightBatch(f, last_offset, state))
            acquired.append(AcquiredRecords(f, last_offset, 1))
        if self._keys[0] == first_acquired:
            self.start_offset = first_acquired
        if last_acquired > self.end_offset:
            self.end_offset = last_acquired
        self._update_gap_window(last_acquired + 1)
        return acquired, last_acquired - first_acquired + 1

    @staticmethod
    def _cut(log: tuple[LogBatch, ...], first: int, last: int, batch_size: int) -> list[tuple[int, int]]:
        """BatchOptimizedStrategy#createBatches: at most ``batch_size``-ish, only at log-batch bases."""
        ranges = []
        current = first
        if last - first + 1 > batch_size:
            for b in log:
                if b.base_offset > last:
                    break
                if b.base_offset - current >= batch_size:
                    ranges.append((current, b.base_offset - 1))
                    current = b.base_offset
        ranges.append((current, last))
        return ranges

    def _should_throttle(self, batch: InFlightBatch, first: int, last: int) -> bool:
        limit = self.config.throttle_limit
        if batch.runs is None:
            whole = batch.whole()
            return whole.state == AVAILABLE and not whole.pending() and whole.delivery_count >= limit
        highest = max((r.state.delivery_count for r in batch.runs_between(first, last)
                       if r.state.state == AVAILABLE and not r.state.pending()), default=0)
        return highest >= limit

    def _acquire_subset(self, member_id: str, batch: InFlightBatch, first: int,
                        last: int) -> tuple[list[AcquiredRecords], int]:
        """Offset by offset in Kafka; here a run at a time, taking as many of its offsets as
        the per-offset walk would (one at the last delivery, up to the throttle's cap)."""
        max_delivery, throttle_from = self.config.delivery_count_limit, self.config.throttle_limit
        taken: list[tuple[int, int, int]] = []
        count = 0
        cap = -1
        capped = False
        for run in list(batch.runs_between(first, last)):
            state = run.state
            if state.state != AVAILABLE or state.pending():
                continue
            dc = state.delivery_count
            if max_delivery > 2 and dc == max_delivery - 1 and count:
                break  # the last delivery of a record goes alone, in a later fetch
            if dc >= throttle_from and cap < 0:
                cap = max(1, batch.size() >> (dc - throttle_from + 1))
                # The per-offset walk stops when its count *reaches* the cap, after taking an
                # offset; a cap set when the count is already there is never reached.
                capped = cap > count
            low, high = max(run.first, first), min(run.last, last)
            final = max_delivery > 2 and dc + 1 == max_delivery
            want = 1 if final else high - low + 1
            if capped:
                want = min(want, cap - count)
            piece = batch.isolate(low, low + want - 1, self._on_copy)[0]
            if piece.state.try_update_state(ACQUIRED, DeliveryCountOps.INCREASE, max_delivery,
                                            member_id) is None:
                continue
            piece.state.timer = self._lock(piece.first, piece.last, per_offset=True)
            taken.append((piece.first, piece.last, piece.state.delivery_count))
            count += want
            if final or (capped and count == cap):
                break
        acquired: list[AcquiredRecords] = []
        for low, high, delivered in taken:
            previous = acquired[-1] if acquired else None
            if (previous is not None and previous.last_offset == low - 1
                    and previous.delivery_count == delivered):
                acquired[-1] = AcquiredRecords(previous.first_offset, high, delivered)
            else:
                acquired.append(AcquiredRecords(low, high, delivered))
        return acquired, count

    # -- archiving without a write (§14) ------------------------------------------------------------------

    def _archive_available(self, start: int, end_exclusive: int, from_key: int) -> bool:
        """archiveRecords: AVAILABLE records in [start, end) to ARCHIVED, batches from ``from_key`` on."""
        archived = False
        for batch in self._range(from_key, end_exclusive - 1):
            whole_in_range = batch.first_offset >= start and batch.last_offset < end_exclusive
            if batch.runs is None and whole_in_range:
                whole = batch.whole()
                if whole.state == AVAILABLE:
                    whole.archive(self._cancel)
                    archived = True
                continue
            if batch.runs is None:
                if batch.whole().state != AVAILABLE:
                    continue
                self._split(batch)
            for run in list(batch.runs_between(start, end_exclusive - 1)):
                if run.state.state == AVAILABLE:
                    low, high = max(run.first, start), min(run.last, end_exclusive - 1)
                    batch.isolate(low, high, self._on_copy)[0].state.archive(self._cancel)
                    archived = True
        return archived

    def _maybe_archive_stale_batches(self, fetch_offset: int, base_offset: int) -> None:
        if not self.cached or fetch_offset >= base_offset:
            return
        floor = self._floor(fetch_offset)
        holds = floor is not None and floor.last_offset >= fetch_offset
        from_key = floor.first_offset if floor is not None and holds else fetch_offset
        if self._archive_available(fetch_offset, base_offset, from_key):
            self.find_next_fetch_offset = True

    def update_cache_and_offsets(self, log_start_offset: int) -> None:
        if log_start_offset <= self.start_offset:
            return
        if not self.cached:
            self.start_offset = self.end_offset = log_start_offset
            return
        if self._archive_available(self.start_offset, log_start_offset, self._keys[0]):
            self.find_next_fetch_offset = True
        self.start_offset = log_start_offset
        if self.end_offset < self.start_offset:
            self.end_offset = self.start_offset

    # -- acknowledge (§10) and release (§11) --------------------------------------------------------------

    def acknowledge(self, member_id: str, batches: tuple[AckBatch, ...]) -> Errors:
        # KafkaApis checks the batches before it looks the partition up.
        if not valid_acknowledgement_batches(batches):
            return Errors.INVALID_REQUEST
        if self.partition_state != SharePartitionState.ACTIVE:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        transitions = self._call = _Transitions()
        try:
            for batch in batches:
                error = self._acknowledge_batch(member_id, batch, transitions)
                if error is not Errors.NONE:
                    self._complete(transitions, False)
                    return error
            return self._write_then_complete(transitions)
        finally:
            self._call = None

    def _acknowledge_batch(self, member_id: str, batch: AckBatch, transitions: _Transitions) -> Errors:
        if batch.last_offset < self.start_offset:
            return Errors.NONE
        floor = self._floor(batch.first_offset)
        if floor is None:
            if not batch.first_offset < self.start_offset <= batch.last_offset:
                return Errors.INVALID_RECORD_STATE
            floor = self._floor(self.start_offset)
            if floor is None:
                return Errors.UNKNOWN_SERVER_ERROR  # Kafka: a NullPointerException escapes (trap T18)
        sub_map = self._range(floor.first_offset, batch.last_offset)
        if batch.last_offset > sub_map[-1].last_offset:
            return Errors.INVALID_REQUEST
        per_offset_types = len(batch.types) > 1
        max_delivery = self.config.delivery_count_limit
        for cached in sub_map:
            if cached.last_offset < self.start_offset:
                continue
            if cached.runs is None:
                whole = cached.whole()
                if whole.member_id == EMPTY_MEMBER_ID or whole.member_id != member_id or whole.pending():
                    return Errors.INVALID_RECORD_STATE
                inside = cached.first_offset >= batch.first_offset and cached.last_offset <= batch.last_offset
                start_inside = cached.first_offset < self.start_offset <= cached.last_offset
                if inside and not per_offset_types and not start_inside:
                    if whole.state != ACQUIRED:
                        return Errors.INVALID_RECORD_STATE
                    kind = AcknowledgeType(batch.types[0])
                    if kind is AcknowledgeType.RENEW:
                        self._renew(whole, cached.first_offset, cached.last_offset)
                    elif not transitions.start(whole, cached.first_offset, cached.last_offset,
                                               ACK_TYPE_TO_STATE[kind], max_delivery):
                        return Errors.INVALID_RECORD_STATE
                    continue
                if whole.state != ACQUIRED:
                    return Errors.INVALID_RECORD_STATE
                self._split(cached)
            # Kafka walks the batch from its first offset, skipping; the range is the same walk,
            # taken a stretch of one acknowledge type and a run at a time.
            low = max(cached.first_offset, batch.first_offset, self.start_offset)
            for kind, stretch_low, stretch_high in _stretches(batch, low, min(cached.last_offset,
                                                                              batch.last_offset)):
                for run in cached.isolate(stretch_low, stretch_high, self._on_copy):
                    state = run.state
                    if state.state != ACQUIRED or state.pending() or state.member_id != member_id:
                        return Errors.INVALID_RECORD_STATE
                    if kind is AcknowledgeType.RENEW:
                        self._renew(state, run.first, run.last, per_offset=True)
                    elif not transitions.start_run(run, ACK_TYPE_TO_STATE[kind], max_delivery):
                        return Errors.INVALID_RECORD_STATE
        return Errors.NONE

    def _renew(self, state: InFlightState, first: int, last: int, per_offset: bool = False) -> None:
        """KIP-1222: a new full lock, nothing else."""
        if state.timer is not None:
            self._cancel(state.timer)
        state.timer = self._lock(first, last, per_offset=per_offset)

    def release_acquired_records(self, member_id: str) -> Errors:
        if self.partition_state != SharePartitionState.ACTIVE:
            return Errors.UNKNOWN_TOPIC_OR_PARTITION
        transitions = self._call = _Transitions()
        try:
            return self._release(member_id, transitions)
        finally:
            self._call = None

    def _release(self, member_id: str, transitions: _Transitions) -> Errors:
        max_delivery = self.config.delivery_count_limit
        for batch in self._batches():
            if batch.runs is None:
                whole = batch.whole()
                if (whole.state == ACQUIRED and whole.member_id == member_id
                        and batch.first_offset < self.start_offset <= batch.last_offset):
                    self._split(batch)
            if batch.runs is not None:
                for run in list(batch.runs):
                    state = run.state
                    if state.member_id not in (member_id, EMPTY_MEMBER_ID) or state.state != ACQUIRED:
                        continue
                    for piece in self._cut_at_start(batch, run.first, run.last):
                        target = ARCHIVED if piece.last < self.start_offset else AVAILABLE
                        if not transitions.start_run(piece, target, max_delivery):
                            self._complete(transitions, False)
                            return Errors.INVALID_RECORD_STATE
                continue
            whole = batch.whole()
            if whole.member_id not in (member_id, EMPTY_MEMBER_ID) or whole.state != ACQUIRED:
                continue
            target = ARCHIVED if batch.last_offset < self.start_offset else AVAILABLE
            if not transitions.start(whole, batch.first_offset, batch.last_offset, target, max_delivery):
                self._complete(transitions, False)
                return Errors.INVALID_RECORD_STATE
        return self._write_then_complete(transitions)

    def _cut_at_start(self, batch: InFlightBatch, low: int, high: int) -> list[Run]:
        """The runs of [low, high] (inside one run), cut where the start offset falls: offsets
        below it are archived where those above become available again."""
        return (batch.isolate(low, min(high, self.start_offset - 1), self._on_copy)
                + batch.isolate(max(low, self.start_offset), high, self._on_copy))

    def _complete(self, transitions: _Transitions, commit: bool) -> None:
        for state in transitions.states:
            state.complete_state_transition(commit, self._cancel)
            if state.state == AVAILABLE:
                self.find_next_fetch_offset = True

    def _write_then_complete(self, transitions: _Transitions) -> Errors:
        if not transitions.batches:
            return Errors.NONE
        error = self._write(transitions.batches)
        if error is not Errors.NONE:
            self._complete(transitions, False)
            return persister_error(error)
        self._complete(transitions, True)
        self._maybe_update_cached_state_and_offsets()
        return Errors.NONE

    def _write(self, batches: list[PersisterBatch]) -> Errors:
        return self.persister.write_state(StateWrite(self.start_offset, self.state_epoch, self.leader_epoch,
                                                     tuple(batches)))

    # -- lock expiry (§12) ----------------------------------------------------------------------------

    def on_lock_expired(self, fired: Fired[LockTimer]) -> None:
        timer = fired.payload
        if timer.per_offset:
            self._expire_per_offset(timer)
            return
        floor = self._floor(timer.first_offset)
        if floor is None:
            return
        written: list[PersisterBatch] = []
        max_delivery = self.config.delivery_count_limit
        for batch in self._range(floor.first_offset, timer.last_offset):
            if batch.runs is None:
                whole = batch.whole()
                if whole.state == ACQUIRED and batch.first_offset < self.start_offset <= batch.last_offset:
                    self._split(batch)
            if batch.runs is None:
                whole = batch.whole()
                if whole.state != ACQUIRED:
                    continue
                below = batch.last_offset < self.start_offset
                self._expire(whole, below, max_delivery)
                written.append(PersisterBatch(batch.first_offset, batch.last_offset, whole.state,
                                              whole.delivery_count))
                continue
            for run in list(batch.runs_between(timer.first_offset, timer.last_offset)):
                if run.state.state != ACQUIRED:
                    continue
                low, high = max(run.first, timer.first_offset), min(run.last, timer.last_offset)
                for piece in self._cut_at_start(batch, low, high):
                    state = piece.state
                    self._expire(state, piece.last < self.start_offset, max_delivery)
                    written.extend(PersisterBatch(o, o, state.state, state.delivery_count)
                                   for o in piece.offsets())
        if written:
            self._write(written)  # only logged when it fails: the expiry stands
            self._maybe_update_cached_state_and_offsets()

    def _expire_per_offset(self, timer: LockTimer) -> None:
        """The per-offset locks ``timer`` stands for fire one after another, each with its own
        write and start-offset move, as Kafka's timer tasks of consecutive offsets would."""
        batch = self._floor(timer.first_offset)
        if batch is None or batch.runs is None:
            return
        max_delivery = self.config.delivery_count_limit
        offset = timer.first_offset
        while offset <= timer.last_offset and self.cached.get(batch.first_offset) is batch:
            holder = next((r for r in batch.runs_between(offset, timer.last_offset)
                           if r.state.timer is timer and r.state.state == ACQUIRED), None)
            if holder is None:
                return
            offset = max(offset, holder.first)
            state = batch.isolate(offset, offset, self._on_copy)[0].state
            self._expire(state, offset < self.start_offset, max_delivery)
            self._write([PersisterBatch(offset, offset, state.state, state.delivery_count)])
            self._maybe_update_cached_state_and_offsets()
            offset += 1

    def _expire(self, state: InFlightState, below_start: bool, max_delivery: int) -> None:
        target = ARCHIVED if below_start else AVAILABLE
        state.try_update_state(target, DeliveryCountOps.NO_OP, max_delivery, EMPTY_MEMBER_ID)
        if state.timer is not None:
            self._cancel(state.timer)
            state.timer = None
        if state.state == AVAILABLE:
            self.find_next_fetch_offset = True

    # -- moving the start offset (§13) --------------------------------------------------------------

    def _can_move_start_offset(self) -> bool:
        floor = self._floor(self.start_offset)
        if floor is None:
            return False
        if floor.runs is None:
            state: InFlightState | None = floor.whole()
        else:
            state = floor.run_at(self.start_offset).state if self.start_offset <= floor.last_offset else None
        return state is not None and not state.pending() and state.state in (ACKNOWLEDGED, ARCHIVED)

    def _last_offset_acknowledged(self) -> int:
        last_done = -1
        window = self.gap_window if self._window_active() else None
        for batch in self._batches():
            if window is not None and batch.last_offset >= window[0]:
                break
            if batch.runs is None:
                whole = batch.whole()
                if whole.pending() or whole.state not in (ACKNOWLEDGED, ARCHIVED):
                    break
                last_done = batch.last_offset
                continue
            if batch.finished_to > batch.first_offset:
                last_done = batch.finished_to - 1
            for run in batch.runs_between(batch.finished_to, batch.last_offset):
                state = run.state
                if state.pending() or state.state not in (ACKNOWLEDGED, ARCHIVED):
                    batch.finished_to = max(batch.finished_to, run.first)
                    return last_done
                last_done = run.last
            batch.finished_to = batch.last_offset + 1
        return last_done

    def _maybe_update_cached_state_and_offsets(self) -> None:
        if not self.cached or not self._can_move_start_offset():
            return
        last_done = self._last_offset_acknowledged()
        if last_done == -1:
            return
        if last_done == self._last_batch().last_offset:
            self.start_offset = self.end_offset = last_done + 1
            self.cached.clear()
            self._keys.clear()
            return
        index = bisect_right(self._keys, last_done) - 1
        holder = self.cached[self._keys[index]]
        if last_done == holder.last_offset:
            self.start_offset = max(self.start_offset, self._keys[index + 1])
            if self._window_active() and self.gap_window is not None:
                self.start_offset = min(self.gap_window[0], self.start_offset)
            self._drop_through(index + 1)
        else:
            self.start_offset = max(self.start_offset, last_done + 1)
            self._drop_through(index)

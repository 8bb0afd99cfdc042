"""The share coordinator, as rules: the persisted state of every share-partition.

Theory of operation
-------------------
Kafka's share coordinator (``ShareCoordinatorShard`` on the coordinator runtime) stores, per
share-partition key (group id, topic id, partition), the state a share partition's leader
persists: a state epoch (the group's reset generation), a leader epoch (the newest leader that
read it), the share-partition start offset and the state batches above it. Here it is one frozen
:class:`State`, a transition table (``TABLE``: the addressed key's status x event type -> rule)
and one short rule per row. Words shared with the implementation are the vocabulary's, written
``ss.X``.

* **Records are the state.** A rule never changes a key's state directly: it writes a record
  (ShareSnapshot, ShareUpdate or a tombstone) and :func:`replay` folds that record in, exactly as
  a shard reloading the log would. So a restart (replaying every log from the start) changes
  nothing here, and the implementation is tested against that.
* **Fencing.** Replay remembers the highest leader epoch and state epoch its records carried. A
  write whose leader epoch (not -1) is below the first is FENCED_LEADER_EPOCH, whose state epoch
  (not -1) is below the second FENCED_STATE_EPOCH; a read below the leader epoch is fenced even
  when it gives -1. An initialize below the state epoch is FENCED_STATE_EPOCH.
* **Cadence.** Replay counts the ShareUpdates since the last snapshot. A write (or a read that
  records a newer leader epoch) becomes a ShareUpdate while that count is below
  ``updates_per_snapshot``, otherwise a ShareSnapshot of the whole combined state; replaying a
  snapshot resets a count that reached the limit. An initialize always writes a snapshot.
* **Combining batches** (:func:`combine`): the batches so far and the new ones are pruned to the
  start offset, then the first pair (in (first, last, count, state) order) that overlaps, or
  touches with equal delivery count and state, is resolved (the one with the higher (count,
  state) keeps its whole range, the other keeps what lies outside it; equal ones join), until no
  pair is left. A batch that no pair touches any more is final: two final batches may touch with
  equal state and stay apart, as in Kafka. Its contract states what it means offset by offset.
* **The log** of each coordinator partition is an offset counter; a snapshot (or tombstone) at
  offset o makes everything of its key before o redundant, and the partition's redundant offset
  is the smallest of its keys' latest snapshot offsets (ShareCoordinatorOffsetsManager).

* **Cold snapshots.** The service's timer fires every cold-partition interval (it is the
  service's, so a restart of the shards does not reset it); each shard then snapshots the keys
  whose last snapshot is that old, unless all its keys' last snapshots are cold ones already.
  Kafka walks a hash map; here keys go in sorted order, partition by partition.

Out of scope for now: deleting the redundant log prefix, the service's
COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR answers, and KIP-1226's delivery complete count.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

import icontract

from groupspec.spec.kernel import ANY, Step, Table, drop, put
from groupspec.types import records as r
from groupspec.types import share_state as ss
from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord
from groupspec.types.topic_id import canonical

ABSENT, PRESENT = ss.ABSENT, ss.PRESENT
#: (group id, topic id in the 36-character spelling, partition).
Key = tuple[str, str, int]

# ---------------------------------------------------------------------------------------------
# Combining state batches
# ---------------------------------------------------------------------------------------------


def _info(b: ss.StateBatch) -> tuple[int, int]:
    """Which of two overlapping batches wins: the higher delivery count, then the higher state."""
    return b.delivery_count, b.delivery_state


def _order(b: ss.StateBatch) -> tuple[int, int, int, int]:
    return b.first_offset, b.last_offset, b.delivery_count, b.delivery_state


def _piece(first: int, last: int, like: ss.StateBatch) -> ss.StateBatch:
    return ss.StateBatch(first, last, like.delivery_state, like.delivery_count)


def _prune(batches: Iterable[ss.StateBatch], start: int) -> list[ss.StateBatch]:
    """Drop what lies below ``start`` (-1: nothing), cutting a batch that straddles it."""
    if start == ss.UNINITIALIZED_START_OFFSET:
        return list(batches)
    return [b if b.first_offset >= start else _piece(start, b.last_offset, b)
            for b in batches if b.last_offset >= start]


def _meaning(batches: Iterable[ss.StateBatch]) -> list[tuple[int, int, tuple[int, int]]]:
    """Offset by offset, what a list of possibly overlapping batches says: maximal segments
    (first, last, winning (count, state)), the winner being the highest of the covering ones."""
    bs = list(batches)
    cuts = sorted({b.first_offset for b in bs} | {b.last_offset + 1 for b in bs})
    out: list[tuple[int, int, tuple[int, int]]] = []
    for lo, hi in pairwise(cuts):
        covering = [_info(b) for b in bs if b.first_offset <= lo and hi - 1 <= b.last_offset]
        if not covering:
            continue
        best = max(covering)
        if out and out[-1][1] == lo - 1 and out[-1][2] == best:
            out[-1] = (out[-1][0], hi - 1, best)
        else:
            out.append((lo, hi - 1, best))
    return out


def _sorted_disjoint(batches: tuple[ss.StateBatch, ...]) -> bool:
    return all(a.last_offset < b.first_offset for a, b in pairwise(batches))


def _mergeable(prev: ss.StateBatch, cand: ss.StateBatch) -> bool:
    return cand.first_offset <= prev.last_offset or (
        cand.first_offset == prev.last_offset + 1 and _info(cand) == _info(prev))


def _resolve(prev: ss.StateBatch, cand: ss.StateBatch) -> list[ss.StateBatch]:
    """One mergeable pair (``prev`` first in order) as the batches that replace it."""
    if _info(prev) == _info(cand):
        return [_piece(prev.first_offset, max(prev.last_offset, cand.last_offset), prev)]
    if _info(cand) > _info(prev):
        # The candidate keeps its range; prev keeps what sticks out on either side.
        out = [cand]
        if prev.first_offset < cand.first_offset:
            out.append(_piece(prev.first_offset, cand.first_offset - 1, prev))
        if prev.last_offset > cand.last_offset:
            out.append(_piece(cand.last_offset + 1, prev.last_offset, prev))
        return out
    # prev wins; the candidate (never starting before prev) keeps only what lies past prev.
    out = [prev]
    if cand.last_offset > prev.last_offset:
        out.append(_piece(prev.last_offset + 1, cand.last_offset, cand))
    return out


@icontract.ensure(lambda result: _sorted_disjoint(result), "combined batches are sorted and disjoint")
@icontract.ensure(lambda start, result: start == ss.UNINITIALIZED_START_OFFSET
                  or all(b.first_offset >= start for b in result), "nothing below the start offset")
@icontract.ensure(lambda so_far, new, start, result:
                  _meaning(result) == _meaning(_prune([*so_far, *new], start)),
                  "every kept offset has the highest (count, state) any batch gave it")
def combine(so_far: tuple[ss.StateBatch, ...], new: tuple[ss.StateBatch, ...],
            start: int) -> tuple[ss.StateBatch, ...]:
    """``PersisterStateBatchCombiner#combineStateBatches``: see the module docstring."""
    pruned = _prune([*so_far, *new], start)
    if len(pruned) < 2:
        return tuple(pruned)
    pending = sorted(set(pruned), key=_order)  # a sorted set: equal batches count once
    done: list[ss.StateBatch] = []
    while True:
        i = next((i for i in range(len(pending) - 1) if _mergeable(pending[i], pending[i + 1])), None)
        if i is None:
            return tuple(done + pending)
        done += pending[:i]
        prev, cand = pending[i], pending[i + 1]
        pending = sorted(set(pending[i + 2:]) | set(_resolve(prev, cand)), key=_order)


# ---------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Offset:
    """One key's persisted state as replay builds it (Kafka's ``ShareGroupOffset``)."""

    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    batches: tuple[ss.StateBatch, ...]
    create_timestamp: int = 0
    write_timestamp: int = 0
    #: KIP-1226: finished offsets from the start offset on, as the last record said (-1: not
    #: known). Initialize sets 0 or -1; a write sets what its request says, and groupspec's write
    #: requests (WriteShareGroupState v0) say nothing: -1.
    delivery_complete_count: int = -1


@dataclass(frozen=True)
class Entry:
    """A key's shard memory: its state, the highest epochs its records carried, and how many
    ShareUpdates followed its last snapshot (None: none since it was created)."""

    offset: Offset
    leader_seen: int
    state_seen: int | None = None
    updates: int | None = None


@dataclass(frozen=True)
class Log:
    """A coordinator partition's log end and offsets manager (key -> offset of its last snapshot)."""

    end: int = 0
    snapshots: Mapping[Key, int] = field(default_factory=dict)
    #: The last redundant offset (None: Kafka's Long.MAX_VALUE, nothing computed yet).
    redundant: int | None = None


@dataclass(frozen=True)
class State:
    config: ss.ShareStateConfig
    topics: Mapping[str, int]
    now: int
    #: When the service's cold-partition snapshot timer fires next (it survives restarts).
    cold_due: int
    keys: Mapping[Key, Entry] = field(default_factory=dict)
    logs: Mapping[int, Log] = field(default_factory=dict)


St = Step[State]


def invariants_hold(s: State) -> bool:
    """Every key's batches sorted, disjoint and at or above its start offset; its epochs at or
    above what its state says; every log end past the snapshots it lists."""
    for entry in s.keys.values():
        o = entry.offset
        if not _sorted_disjoint(o.batches):
            return False
        if o.start_offset != ss.UNINITIALIZED_START_OFFSET and any(b.first_offset < o.start_offset
                                                                 for b in o.batches):
            return False
        if entry.leader_seen < o.leader_epoch:
            return False
    return all(all(off < log.end for off in log.snapshots.values()) for log in s.logs.values())


def _java_hash(text: str) -> int:
    """Java's ``String#hashCode``: over UTF-16 code units, 32-bit wraparound, signed."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def coordinator_partition(s: State, key: Key) -> int:
    """``Utils.abs(asCoordinatorKey().hashCode()) % partitions`` (Utils.abs maps MIN_VALUE to 0)."""
    h = _java_hash(ss.coordinator_key(*key))
    return (0 if h == -(1 << 31) else abs(h)) % s.config.state_topic_partitions


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


@icontract.ensure(lambda result: invariants_hold(result))
def initial_state(config: ss.ShareStateConfig = ss.ShareStateConfig(),  # noqa: B008
                  topics: tuple[ss.TopicMetadata, ...] = (), now_ms: int = 0) -> State:
    """A share coordinator hosting every partition of its topic, all logs empty."""
    config = ss.check_config(config)
    return State(config, ss.check_topics(topics), now_ms, now_ms + config.cold_snapshot_interval_ms)


def _key_of(event: object) -> Key | None:
    if isinstance(event, ss.InitializeShareGroupState | ss.ReadShareGroupState | ss.WriteShareGroupState
                  | ss.DeleteShareGroupState | ss.ReadShareGroupStateSummary):
        return (event.group_id, canonical(event.topic_id), event.partition)
    return None


@icontract.require(lambda state: invariants_hold(state))
@icontract.ensure(lambda result: invariants_hold(result[0]))
@icontract.ensure(lambda state, event, result: not isinstance(event, ss.Restart) or result[0] == state,
                  "replaying the logs rebuilds the same state")
def step(state: State, event: ss.ShareStateEvent, index: int) -> tuple[State, ss.Output]:
    """Apply one event; ``index`` numbers a request's answer. An event no broker could produce
    is refused with an InputError naming the field, and ``state`` is left as it was."""
    ss.check_event(event, index)
    st = Step(state)
    key = _key_of(event)
    status = PRESENT if key is not None and key in state.keys else ABSENT
    TABLE.rule(status, event)(st, event, index)
    records = tuple(rec for rec in st.records if isinstance(rec, CoordinatorRecord))
    return st.state, ss.Output(tuple(ss.Answer(i, resp) for i, resp in st.answers), records)


# ---------------------------------------------------------------------------------------------
# Writing a record and replaying it
# ---------------------------------------------------------------------------------------------


def _batches_out(batches: Iterable[ss.StateBatch], cls: Any) -> tuple[Any, ...]:
    return tuple(cls(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count) for b in batches)


def _batches_in(batches: Iterable[object]) -> tuple[ss.StateBatch, ...]:
    return tuple(ss.StateBatch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)  # type: ignore[attr-defined]
                 for b in batches)


def _snapshot(key: Key, o: Offset) -> CoordinatorRecord:
    value = r.ShareSnapshotValue(snapshot_epoch=o.snapshot_epoch, state_epoch=o.state_epoch,
                                 leader_epoch=o.leader_epoch, start_offset=o.start_offset,
                                 delivery_complete_count=o.delivery_complete_count,
                                 create_timestamp=o.create_timestamp, write_timestamp=o.write_timestamp,
                                 state_batches=_batches_out(o.batches, r.ShareSnapshotValue.StateBatch))
    return CoordinatorRecord(r.ShareSnapshotKey(key[0], uuid.UUID(key[1]), key[2]), value, 0)


def _update(key: Key, snapshot_epoch: int, leader_epoch: int, start: int,
            batches: tuple[ss.StateBatch, ...], complete: int) -> CoordinatorRecord:
    value = r.ShareUpdateValue(snapshot_epoch=snapshot_epoch, leader_epoch=leader_epoch, start_offset=start,
                               delivery_complete_count=complete,
                               state_batches=_batches_out(batches, r.ShareUpdateValue.StateBatch))
    return CoordinatorRecord(r.ShareUpdateKey(key[0], uuid.UUID(key[1]), key[2]), value, 0)


def _tombstone(key: Key) -> CoordinatorRecord:
    return CoordinatorRecord(r.ShareSnapshotKey(key[0], uuid.UUID(key[1]), key[2]), None, None)


def _append(st: St, key: Key, record: CoordinatorRecord) -> None:
    """Write ``record`` at the end of its coordinator partition's log, then replay it."""
    p = coordinator_partition(st.state, key)
    log = st.state.logs.get(p, Log())
    st.write(record)
    st.set(logs=put(st.state.logs, p, Log(log.end + 1, log.snapshots, log.redundant)))
    replay(st, key, log.end, record)


def replay(st: St, key: Key, offset: int, record: CoordinatorRecord) -> None:
    """Fold one record of ``key`` at log ``offset`` into the state (ShareCoordinatorShard#replay)."""
    s, limit = st.state, st.state.config.updates_per_snapshot
    entry = s.keys.get(key)
    if isinstance(record.key, r.ShareUpdateKey):
        u = record.value
        assert isinstance(u, r.ShareUpdateValue)
        batches = _batches_in(u.state_batches)
        if entry is None:
            entry = Entry(Offset(u.snapshot_epoch, 0, u.leader_epoch, u.start_offset, batches,
                                 delivery_complete_count=u.delivery_complete_count),
                          u.leader_epoch, None, 1)
        else:
            o = entry.offset
            start = o.start_offset if u.start_offset == ss.UNINITIALIZED_START_OFFSET else u.start_offset
            leader = o.leader_epoch if u.leader_epoch == ss.NO_EPOCH else u.leader_epoch
            merged = Offset(o.snapshot_epoch, o.state_epoch, leader, start,
                            combine(o.batches, batches, start), o.create_timestamp, o.write_timestamp,
                            u.delivery_complete_count)  # the update's own, as Kafka's merge takes it
            entry = Entry(merged, max(entry.leader_seen, u.leader_epoch), entry.state_seen,
                          1 if entry.updates is None else entry.updates + 1)
        st.set(keys=put(s.keys, key, entry))
        return
    # A snapshot or a tombstone: the offsets manager hears of it.
    v = record.value
    if v is None:
        st.set(keys=drop(s.keys, key))
    else:
        assert isinstance(v, r.ShareSnapshotValue)
        o = Offset(v.snapshot_epoch, v.state_epoch, v.leader_epoch, v.start_offset,
                   _batches_in(v.state_batches), v.create_timestamp, v.write_timestamp,
                   v.delivery_complete_count)
        leader = v.leader_epoch if entry is None else max(entry.leader_seen, v.leader_epoch)
        seen = entry.state_seen if entry is not None else None
        state_seen = v.state_epoch if seen is None else max(seen, v.state_epoch)
        updates = entry.updates if entry is not None else None
        if updates is not None and updates >= limit:
            updates = 0
        st.set(keys=put(s.keys, key, Entry(o, leader, state_seen, updates)))
    p = coordinator_partition(st.state, key)
    log = st.state.logs[p]
    snapshots = put(log.snapshots, key, offset)
    redundant = min(snapshots.values())
    if v is None:
        snapshots = drop(snapshots, key)
    st.set(logs=put(st.state.logs, p, Log(log.end, snapshots, redundant)))


def _state_record(st: St, key: Key, start: int, leader_epoch: int,
                  batches: tuple[ss.StateBatch, ...], complete: int = -1) -> CoordinatorRecord:
    """A write's record: a ShareUpdate of the (self-combined) new batches while the key's update
    count is below the limit, else a ShareSnapshot of everything combined."""
    entry = st.state.keys[key]
    o, now = entry.offset, st.state.now
    if (entry.updates or 0) >= st.state.config.updates_per_snapshot:
        new_start = o.start_offset if start == ss.UNINITIALIZED_START_OFFSET else start
        return _snapshot(key, Offset(o.snapshot_epoch + 1, o.state_epoch, leader_epoch, new_start,
                                     combine(o.batches, batches, new_start), now, now, complete))
    return _update(key, o.snapshot_epoch, leader_epoch, start, combine((), batches, start), complete)


# ---------------------------------------------------------------------------------------------
# Checks every request makes (in Kafka's order)
# ---------------------------------------------------------------------------------------------


def _unknown(s: State, key: Key) -> bool:
    """The metadata image lacks the topic or the partition."""
    return s.topics.get(key[1], 0) <= key[2]


# ---------------------------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------------------------


def initialize(st: St, event: ss.InitializeShareGroupState, index: int) -> None:
    """A fresh snapshot: the request's state epoch and start offset, leader epoch 0, no batches;
    its snapshot epoch follows the key's current one (0 for a new key)."""
    key, answer = _key_of(event), ss.InitializeShareGroupStateResponse
    assert key is not None
    entry = st.state.keys.get(key)
    # Verify the partition, the state epoch, the metadata.
    if event.partition < 0:
        return st.answer(index, answer(Errors.INVALID_REQUEST))
    if (event.state_epoch != ss.NO_EPOCH and entry is not None and entry.state_seen is not None
            and entry.state_seen > event.state_epoch):
        return st.answer(index, answer(Errors.FENCED_STATE_EPOCH))
    if _unknown(st.state, key):
        return st.answer(index, answer(Errors.UNKNOWN_TOPIC_OR_PARTITION))
    epoch = 0 if entry is None else entry.offset.snapshot_epoch + 1
    now = st.state.now
    # KIP-1226: a start offset to count from gives a count of 0; none yet gives -1.
    complete = -1 if event.start_offset == ss.UNINITIALIZED_START_OFFSET else 0
    _append(st, key, _snapshot(key, Offset(epoch, event.state_epoch, 0, event.start_offset, (), now, now,
                                           complete)))
    st.answer(index, answer())


def not_initialized(st: St, event: ss.ReadShareGroupState | ss.WriteShareGroupState, index: int) -> None:
    """Read and write of a key with no state: INVALID_REQUEST (a negative partition is too)."""
    answer = ss.RESPONSE_FOR[type(event)]
    st.answer(index, answer(Errors.INVALID_REQUEST))


def read(st: St, event: ss.ReadShareGroupState, index: int) -> None:
    """The state, and a record of a newer leader epoch (not for -1 or the epoch already seen)."""
    key = _key_of(event)
    assert key is not None
    entry, answer = st.state.keys[key], ss.ReadShareGroupStateResponse
    # Verify the partition, the leader epoch (-1 too), the metadata.
    if event.partition < 0:
        return st.answer(index, answer(Errors.INVALID_REQUEST))
    fenced = event.leader_epoch != ss.NO_EPOCH or st.state.config.fence_read_without_leader_epoch
    if fenced and entry.leader_seen > event.leader_epoch:  # -1 is not fenced from Kafka 4.3 on
        return st.answer(index, answer(Errors.FENCED_LEADER_EPOCH))
    if _unknown(st.state, key):
        return st.answer(index, answer(Errors.UNKNOWN_TOPIC_OR_PARTITION))
    o = entry.offset
    if event.leader_epoch != ss.NO_EPOCH and entry.leader_seen != event.leader_epoch:
        _append(st, key, _state_record(st, key, o.start_offset, event.leader_epoch, (),
                                       o.delivery_complete_count))
    st.answer(index, answer(Errors.NONE, o.state_epoch, o.start_offset, o.batches))


def write(st: St, event: ss.WriteShareGroupState, index: int) -> None:
    """A ShareUpdate (or, at the cadence, a ShareSnapshot); the leader epoch it records is the
    key's current one: a write never raises it, only a read does."""
    key = _key_of(event)
    assert key is not None
    entry, answer = st.state.keys[key], ss.WriteShareGroupStateResponse
    # Verify the partition, the leader epoch, the state epoch, the metadata.
    if event.partition < 0:
        return st.answer(index, answer(Errors.INVALID_REQUEST))
    if event.leader_epoch != ss.NO_EPOCH and entry.leader_seen > event.leader_epoch:
        return st.answer(index, answer(Errors.FENCED_LEADER_EPOCH))
    if (event.state_epoch != ss.NO_EPOCH and entry.state_seen is not None
            and entry.state_seen > event.state_epoch):
        return st.answer(index, answer(Errors.FENCED_STATE_EPOCH))
    if _unknown(st.state, key):
        return st.answer(index, answer(Errors.UNKNOWN_TOPIC_OR_PARTITION))
    _append(st, key, _state_record(st, key, event.start_offset, entry.offset.leader_epoch,
                                   event.state_batches))
    st.answer(index, answer())


def delete(st: St, event: ss.DeleteShareGroupState, index: int) -> None:
    """A tombstone of the key's snapshot; a key with no state is answered without one."""
    key = _key_of(event)
    assert key is not None
    answer = ss.DeleteShareGroupStateResponse
    # Verify the partition, the metadata.
    if event.partition < 0:
        return st.answer(index, answer(Errors.INVALID_REQUEST))
    if _unknown(st.state, key):
        return st.answer(index, answer(Errors.UNKNOWN_TOPIC_OR_PARTITION))
    if key in st.state.keys:
        _append(st, key, _tombstone(key))
    st.answer(index, answer())


def summary(st: St, event: ss.ReadShareGroupStateSummary, index: int) -> None:
    """Start offset and epochs; a key with no state answers -1, 0, 0. No fencing."""
    key = _key_of(event)
    assert key is not None
    answer = ss.ReadShareGroupStateSummaryResponse
    # Verify the partition, the metadata.
    if event.partition < 0:
        return st.answer(index, answer(Errors.INVALID_REQUEST))
    if _unknown(st.state, key):
        return st.answer(index, answer(Errors.UNKNOWN_TOPIC_OR_PARTITION))
    entry = st.state.keys.get(key)
    if entry is None:
        return st.answer(index, answer(Errors.NONE, 0, 0, ss.UNINITIALIZED_START_OFFSET))
    o = entry.offset
    st.answer(index, answer(Errors.NONE, o.state_epoch, o.leader_epoch, o.start_offset))


def advance_clock(st: St, event: ss.AdvanceClock, index: int) -> None:
    """The clock moves (never back); once the cold-partition timer is due, each coordinator
    partition snapshots its keys whose last snapshot is an interval old, and the timer re-arms."""
    st.set(now=max(st.state.now, event.to_ms))
    s = st.state
    if s.now < s.cold_due:
        return
    interval = s.config.cold_snapshot_interval_ms
    shards: dict[int, list[Key]] = {}
    for key in sorted(s.keys):
        shards.setdefault(coordinator_partition(s, key), []).append(key)
    for p in sorted(shards):
        _snapshot_cold(st, shards[p], interval)
    st.set(cold_due=st.state.now + interval)


def _snapshot_cold(st: St, keys: list[Key], interval: int) -> None:
    """One shard's cold snapshots (ShareCoordinatorShard#snapshotColdPartitions): none when every
    key's last snapshot is already a cold one (written later than created); otherwise a copy of the
    state with the next snapshot epoch and the write time now, for each key idle an interval."""
    entries, now = st.state.keys, st.state.now
    if all(entries[k].offset.create_timestamp != entries[k].offset.write_timestamp for k in keys):
        return
    for key in keys:
        o = entries[key].offset
        if now - o.write_timestamp >= interval:
            cold = replace(o, snapshot_epoch=o.snapshot_epoch + 1, write_timestamp=now)
            _append(st, key, _snapshot(key, cold))


def delete_topics(st: St, event: ss.DeleteTopics, index: int) -> None:
    """The topics leave the metadata image; each coordinator partition tombstones their keys."""
    gone = {canonical(t) for t in event.topic_ids}
    st.set(topics={t: n for t, n in st.state.topics.items() if t not in gone})
    doomed = sorted(k for k in st.state.keys if k[1] in gone)
    for p in sorted({coordinator_partition(st.state, k) for k in doomed}):
        for key in doomed:
            if coordinator_partition(st.state, key) == p:
                _append(st, key, _tombstone(key))


def restart(st: St, event: ss.Restart, index: int) -> None:
    """Every shard replays its log: the state is the fold of the records, so nothing changes."""


TABLE = Table("share_state", {
    (ANY, ss.InitializeShareGroupState): initialize,
    (ABSENT, ss.ReadShareGroupState): not_initialized,
    (PRESENT, ss.ReadShareGroupState): read,
    (ABSENT, ss.WriteShareGroupState): not_initialized,
    (PRESENT, ss.WriteShareGroupState): write,
    (ANY, ss.DeleteShareGroupState): delete,
    (ANY, ss.ReadShareGroupStateSummary): summary,
    (ANY, ss.AdvanceClock): advance_clock,
    (ANY, ss.DeleteTopics): delete_topics,
    (ANY, ss.Restart): restart,
})

# ---------------------------------------------------------------------------------------------
# The observable view
# ---------------------------------------------------------------------------------------------


def view(s: State) -> ss.ShareStateView:
    parts = []
    for key, e in s.keys.items():
        o = e.offset
        parts.append(ss.SharePartitionStateView(
            group_id=key[0], topic_id=key[1], partition=key[2],
            coordinator_partition=coordinator_partition(s, key), snapshot_epoch=o.snapshot_epoch,
            state_epoch=o.state_epoch, leader_epoch=o.leader_epoch, start_offset=o.start_offset,
            state_batches=o.batches, create_timestamp=o.create_timestamp,
            write_timestamp=o.write_timestamp, fenced_leader_epoch=e.leader_seen,
            fenced_state_epoch=e.state_seen, updates_since_snapshot=e.updates))
    parts.sort(key=lambda v: (v.coordinator_partition, v.group_id, v.topic_id, v.partition))
    logs = tuple(ss.CoordinatorPartitionView(p, log.end, _reported(log.redundant))
                 for p, log in sorted(s.logs.items()) if log.end > 0)
    return ss.ShareStateView(s.now, tuple(parts), logs)


def _reported(redundant: int | None) -> int | None:
    """ShareCoordinatorOffsetsManager#lastRedundantOffset: nothing at or below 0."""
    return redundant if redundant is not None and redundant > 0 else None

"""The audit's work on one record and on one group, as plain functions with no Spark in them.

``groupspec audit`` (:mod:`groupspec.pipeline.audit`) runs these inside Spark tasks; keeping them
free of Spark lets the tests (and a reader with one small log) run them directly, and makes the
distributed answer the same as the single-process one by construction: Spark only decides which
task calls them, never what they compute.

Two stages, because grouping needs the key and nothing else:

1. :func:`key_rows` turns input rows (Spark's Kafka source schema) into tagged items: a record
   under its *coordinator key* (the group id for ``__consumer_offsets``; group, topic id and
   partition for ``__share_group_state``), a transaction marker, a violation seen from the key
   alone (an unknown record type), or a quarantined row (a key that does not decode).
2. :func:`audit_group` takes one coordinator key's records, sorts them by offset, decodes the
   values, walks them once with the audit's own invariants (:data:`VIOLATION_KINDS`), and
   replays them through the impl's coordinators (``CoordinatorRuntime.load_from``, as
   ``groupspec describe`` does) to get the state the coordinator would have held.

The invariants are the audit's, written here: they read the records, never the coordinators'
rule code, so a replay that accepts a log does not silence a finding about it.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from groupspec.consumer_group_state import ConsumerGroupState, partition_names
from groupspec.impl.classic_group.fast_offsets import offset_commit_key
from groupspec.impl.codec.batch import BadBatch, PartialBatch, RecordBatch, UnframedRest
from groupspec.impl.codec.consumer_protocol import decode_assignment
from groupspec.impl.codec.errors import CodecError, UnknownRecordTypeError, UnsupportedVersionError
from groupspec.impl.codec.records import decode_key, decode_record
from groupspec.impl.runtime.runtime import without_cycle_collection
from groupspec.types.classic_group import LogEntry, TxnEnd, TxnRecord
from groupspec.types.records import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMetadataKey,
    ConsumerGroupTargetAssignmentMemberKey,
    CoordinatorRecord,
    GroupMetadataKey,
    GroupMetadataValue,
    LegacyOffsetCommitKey,
    OffsetCommitKey,
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupMemberMetadataKey,
    ShareGroupMetadataKey,
    ShareGroupTargetAssignmentMemberKey,
    ShareSnapshotKey,
    ShareUpdateKey,
)
from groupspec.types.topic_id import kafka_string

#: Every kind of finding, with what it means (the report and docs/pipeline.md use these lines).
VIOLATION_KINDS: Mapping[str, str] = {
    "unknown_member": "an assignment (target or current) names a member with no live member "
                      "record, or a classic group's leader is not one of its members",
    "generation_backwards": "a group's generation (classic) or group epoch (consumer, share) is "
                            "lower than an earlier record of the same group said",
    "fenced_commit": "a transactional offset commit from a producer epoch older than one already "
                     "seen for that producer id (a zombie the transaction coordinator fenced)",
    "unknown_type": "a record type id this groupspec does not know (Kafka's loader skips it)",
    "unknown_version": "a known record type at a value version this groupspec does not know",
    "orphan_tombstone": "a tombstone for a group (or share partition) with no earlier record",
    "share_batch_overlap": "two state batches of one share-state record cover the same offset",
    "share_batch_below_start": "a share-state batch that ends below the record's start offset",
    "replay_failed": "the impl's coordinator refused to replay the group's records",
}

#: Row fields of the input, in order: Spark's Kafka source schema, then what groupspec's segment
#: reader adds (Spark's Kafka connector does not expose producers or control records).
KAFKA_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp", "timestampType",
                 "headers")
EXTRA_COLUMNS = ("producerId", "producerEpoch", "isControl")

#: An input row as a tuple in KAFKA_COLUMNS + EXTRA_COLUMNS order; ``timestamp`` in epoch ms.
InputRow = tuple[Any, ...]

_MEMBER_KEYS = (ConsumerGroupMemberMetadataKey, ShareGroupMemberMetadataKey)
_ASSIGNMENT_KEYS = (ConsumerGroupTargetAssignmentMemberKey, ConsumerGroupCurrentMemberAssignmentKey,
                    ShareGroupTargetAssignmentMemberKey, ShareGroupCurrentMemberAssignmentKey)
_EPOCH_KEYS = (ConsumerGroupMetadataKey, ShareGroupMetadataKey)
_CONSUMER_TYPES = range(3, 9)
_SHARE_TYPES = range(10, 16)
_DELIVERY_STATES = {0: "available", 2: "acknowledged", 4: "archived"}


@dataclass(frozen=True)
class Violation:
    topic: str
    partition: int
    #: None where the record's key could not say which group it belongs to.
    group_id: str | None
    kind: str
    offset: int | None
    timestamp: int | None
    detail: str

    def row(self) -> tuple[Any, ...]:
        return (self.topic, self.partition, self.group_id, self.kind, self.offset, self.timestamp,
                self.detail)


@dataclass(frozen=True)
class Quarantined:
    topic: str
    partition: int
    offset: int | None
    reason: str
    key: bytes | None
    value: bytes | None
    #: Where it came from: ``file@byte`` for segments, ``row`` for a dump.
    source: str

    def row(self) -> tuple[Any, ...]:
        return (self.topic, self.partition, self.offset, self.reason, self.key, self.value, self.source)


# ---------------------------------------------------------------------------------------------
# Segments to rows
# ---------------------------------------------------------------------------------------------


def segment_rows(path: str, topic: str, partition: int) -> Iterator[tuple[str, Any]]:
    """One segment file as input rows (``("row", InputRow)``), and what cannot be rows.

    Each file is read on its own (segments are independent: offsets only have to grow from the
    base offset its name states), leniently: a bad batch, a torn tail or bytes that cannot be
    framed become ``("quarantine", Quarantined)`` items and reading goes on as ``decode`` does.
    """
    from groupspec.impl.codec.segment import read_segment

    source = str(path)
    try:
        for item in read_segment(path, lenient=True):
            yield from entry_items(item.entry, topic, partition, source)
    except CodecError as exc:  # framing failed: the rest of this file is lost, others are read
        yield unframed_item(exc, topic, partition, source)


def entry_items(entry: Any, topic: str, partition: int, source: str) -> Iterator[tuple[str, Any]]:
    """One entry of the segment reader as ``segment_rows`` items (shared with the read of a
    piece of a file, :func:`groupspec.pipeline.audit_split.split_rows`, so both word faults alike)."""
    if isinstance(entry, RecordBatch):
        txn = entry.is_transactional
        pid = entry.producer_id if txn else None
        epoch = entry.producer_epoch if txn else None
        ts_type = int(entry.timestamp_type)
        for r in entry.records:
            yield "row", (r.key, r.value, topic, partition, r.offset, r.timestamp, ts_type,
                          [(k, v) for k, v in r.headers], pid, epoch, entry.is_control)
    elif isinstance(entry, BadBatch):
        yield "quarantine", Quarantined(topic, partition, entry.offset,
                                        f"bad batch: {entry.error.reason}", None, None,
                                        f"{source}@{entry.position}")
    elif isinstance(entry, PartialBatch):
        yield "quarantine", Quarantined(topic, partition, entry.offset,
                                        f"torn tail: {entry.describe()}", None, None,
                                        f"{source}@{entry.position}")
    else:
        assert isinstance(entry, UnframedRest)
        yield "quarantine", Quarantined(topic, partition, entry.offset,
                                        f"unframed bytes: {entry.error.reason}", None, None,
                                        f"{source}@{entry.position}")


def unframed_item(exc: CodecError, topic: str, partition: int, source: str) -> tuple[str, Any]:
    """Where framing failed: the rest of the file, quarantined as one row."""
    return "quarantine", Quarantined(topic, partition, exc.offset, f"unframed bytes: {exc.reason}",
                                     None, None, source)


# ---------------------------------------------------------------------------------------------
# Stage 1: rows to keyed items
# ---------------------------------------------------------------------------------------------

#: A record of one coordinator key, as stage 2 needs it.
#: (offset, timestamp, key bytes, value bytes, producer id, producer epoch)
Item = tuple[int, int | None, bytes, bytes | None, int | None, int | None]


def coordinator_key(topic: str, partition: int, key: Any) -> tuple[Any, ...] | None:
    """The key records are grouped by: the group for the offsets topic, the share partition for
    the share-state topic (its coordinator key); None for a key that names no group."""
    if isinstance(key, ShareSnapshotKey | ShareUpdateKey):
        return (topic, partition, key.group_id, kafka_string(key.topic_id), key.partition)
    group = getattr(key, "group_id", None)
    if group is None:
        group = getattr(key, "group", None)
    if not isinstance(group, str):
        return None
    return (topic, partition, group, None, None)


def key_rows(rows: Iterable[InputRow]) -> Iterator[tuple[str, Any]]:
    """Stage 1: each input row as ``("record", (ckey, Item))``, ``("marker", (topic, partition,
    offset, producer id, producer epoch, commit))``, ``("violation", Violation)`` or
    ``("quarantine", Quarantined)``."""
    from groupspec.impl.codec.batch import Record, decode_control_marker

    for row in rows:
        key, value, topic, partition, offset, timestamp = row[:6]
        pid, epoch, control = (row[8], row[9], row[10]) if len(row) > 8 else (None, None, False)
        if control:
            try:
                marker = decode_control_marker(Record(offset, timestamp or 0, key, value))
            except CodecError as exc:
                yield "quarantine", Quarantined(topic, partition, offset,
                                                f"control record does not decode: {exc.reason}",
                                                key, value, "row")
                continue
            yield "marker", (topic, partition, offset, pid, epoch, marker.kind == "COMMIT")
            continue
        if topic not in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
            yield "quarantine", Quarantined(str(topic), partition, offset,
                                            f"not a coordinator topic: {topic!r}", key, value, "row")
            continue
        if key is None:
            yield "quarantine", Quarantined(topic, partition, offset, "a record without a key",
                                            key, value, "row")
            continue
        key = bytes(key)
        fields = offset_commit_key(key) if topic == OFFSETS_TOPIC else None
        if fields is not None:  # most records: the group is all stage 1 needs of the key
            yield "record", ((topic, partition, fields[0], None, None),
                             (offset, timestamp, key, None if value is None else bytes(value), pid, epoch))
            continue
        try:
            decoded = decode_key(topic, key)
        except UnknownRecordTypeError as exc:
            yield "violation", Violation(topic, partition, None, "unknown_type", offset, timestamp,
                                         exc.reason)
            continue
        except CodecError as exc:
            yield "quarantine", Quarantined(topic, partition, offset,
                                            f"key does not decode: {exc.reason}", key,
                                            None if value is None else bytes(value), "row")
            continue
        ckey = coordinator_key(topic, partition, decoded)
        if ckey is None:
            yield "quarantine", Quarantined(topic, partition, offset, "key names no group", key,
                                            None if value is None else bytes(value), "row")
            continue
        yield "record", (ckey, (offset, timestamp, key, None if value is None else bytes(value),
                                pid, epoch))


# ---------------------------------------------------------------------------------------------
# Stage 2: one group's records
# ---------------------------------------------------------------------------------------------

#: A transaction marker: (offset, producer id, producer epoch, commit).
Marker = tuple[int, int, int, bool]


@dataclass
class GroupResult:
    #: The row of the state table (STATE_COLUMNS order), violations and quarantined records,
    #: and OffsetCommit timestamps (for the commit-rate plot).
    state: tuple[Any, ...]
    violations: list[Violation]
    quarantined: list[Quarantined]
    commit_times: list[int]


class _Walk:
    """The audit's invariants over one group's records, in offset order."""

    def __init__(self, ckey: tuple[Any, ...]) -> None:
        self.topic, self.partition, self.group = ckey[0], ckey[1], ckey[2]
        self.violations: list[Violation] = []
        self.members: set[str] = set()
        self.generation: int | None = None
        self.epoch: int | None = None
        self.seen = False
        self.producer_epochs: dict[int, int] = {}

    def flag(self, kind: str, offset: int, timestamp: int | None, detail: str) -> None:
        self.violations.append(Violation(self.topic, self.partition, self.group, kind, offset,
                                         timestamp, detail))

    def marker(self, m: Marker) -> None:
        _, pid, epoch, _ = m
        self.producer_epochs[pid] = max(epoch, self.producer_epochs.get(pid, epoch))

    def record(self, offset: int, ts: int | None, rec: CoordinatorRecord, pid: int | None,
               epoch: int | None) -> None:
        key, value = rec.key, rec.value
        if value is None and not self.seen:
            self.flag("orphan_tombstone", offset, ts, f"{type(key).__name__} tombstone for "
                      f"{self.group!r}, which no earlier record of this log names")
        self.seen = True
        if pid is not None and epoch is not None and isinstance(key, OffsetCommitKey):
            highest = self.producer_epochs.get(pid)
            if highest is not None and epoch < highest:
                self.flag("fenced_commit", offset, ts, f"producer {pid} epoch {epoch} commits "
                          f"{key.topic}-{key.partition} after epoch {highest} was seen")
        if pid is not None and epoch is not None:
            self.producer_epochs[pid] = max(epoch, self.producer_epochs.get(pid, epoch))
        if isinstance(key, GroupMetadataKey):
            self._group_metadata(offset, ts, value)
        elif isinstance(key, _MEMBER_KEYS):
            if value is None:
                self.members.discard(key.member_id)
            else:
                self.members.add(key.member_id)
        elif isinstance(key, _ASSIGNMENT_KEYS):
            if value is not None and key.member_id not in self.members:
                self.flag("unknown_member", offset, ts, f"{type(key).__name__.removesuffix('Key')} "
                          f"for member {key.member_id!r}, which has no member record")
        elif isinstance(key, _EPOCH_KEYS):
            if value is None:
                self.epoch = None
                self.members.clear()
            else:
                new = getattr(value, "epoch", 0)
                if self.epoch is not None and new < self.epoch:
                    self.flag("generation_backwards", offset, ts,
                              f"group epoch {new} after {self.epoch}")
                self.epoch = new
        elif isinstance(key, ShareSnapshotKey | ShareUpdateKey) and value is not None:
            self._share_batches(offset, ts, value)

    def _group_metadata(self, offset: int, ts: int | None, value: Any) -> None:
        if value is None:
            self.generation = None  # deleted: a group of that name starts again at 0
            return
        assert isinstance(value, GroupMetadataValue)
        if self.generation is not None and value.generation < self.generation:
            self.flag("generation_backwards", offset, ts,
                      f"generation {value.generation} after {self.generation}")
        self.generation = value.generation
        ids = {m.member_id for m in value.members}
        if value.members and value.leader is not None and value.leader not in ids:
            self.flag("unknown_member", offset, ts, f"leader {value.leader!r} is not among the "
                      f"{len(ids)} members of generation {value.generation}")

    def _share_batches(self, offset: int, ts: int | None, value: Any) -> None:
        start = value.start_offset
        batches = sorted(value.state_batches, key=lambda b: (b.first_offset, b.last_offset))
        for b in batches:
            if start >= 0 and b.last_offset < start:
                self.flag("share_batch_below_start", offset, ts, f"batch {b.first_offset}-"
                          f"{b.last_offset} ends below start offset {start}")
        for a, b in itertools.pairwise(batches):
            if b.first_offset <= a.last_offset:
                self.flag("share_batch_overlap", offset, ts, f"batches {a.first_offset}-"
                          f"{a.last_offset} and {b.first_offset}-{b.last_offset} overlap")


#: (column, Spark type, nullable) of the state table: one row per coordinator key.
STATE_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("coordinator_topic", "string", False),
    ("coordinator_partition", "int", False),
    ("group_id", "string", False),
    # "classic", "consumer" (KIP-848), "share", "simple" (offsets only), "share-partition".
    ("kind", "string", False),
    ("state", "string", True),
    ("protocol_type", "string", True),
    ("protocol", "string", True),
    # Classic generation, or consumer / share group epoch.
    ("generation", "int", True),
    # KIP-848 consumer groups: the target assignment's epoch.
    ("assignment_epoch", "int", True),
    ("members", "array<string>", False),
    ("member_count", "int", False),
    # "member topic-partition" pairs from the assignments the replay holds.
    ("assignments", "array<string>", False),
    ("offsets", "array<offset>", False),
    # Share-partition keys only (kind "share-partition").
    ("topic_id", "string", True),
    ("share_partition", "int", True),
    ("start_offset", "long", True),
    ("state_epoch", "int", True),
    ("in_flight", "map<string,long>", True),
    # What the log held for the key.
    ("records", "long", False),
    ("commits", "long", False),
    ("first_offset", "long", True),
    ("last_offset", "long", True),
    ("first_timestamp", "long", True),
    ("last_timestamp", "long", True),
    ("violations", "int", False),
)
STATE_NAMES = tuple(c[0] for c in STATE_COLUMNS)
VIOLATION_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("topic", "string", False), ("partition", "int", False), ("group_id", "string", True),
    ("kind", "string", False), ("offset", "long", True), ("timestamp", "long", True),
    ("detail", "string", False))
QUARANTINE_COLUMNS: tuple[tuple[str, str, bool], ...] = (
    ("topic", "string", False), ("partition", "int", False), ("offset", "long", True),
    ("reason", "string", False), ("key", "binary", True), ("value", "binary", True),
    ("source", "string", False))


class Replayer:
    """The impl's coordinators, one shard each, reused for every group a task replays.

    One partition is enough: replay does not check which partition a group hashes to, and each
    group is loaded alone (``load_from`` after ``unload``), so nothing leaks between groups.
    """

    def __init__(self) -> None:
        from groupspec.impl.classic_group import ClassicCoordinator
        from groupspec.impl.share_group.service import ShareGroupCoordinator
        from groupspec.impl.share_state import ShareCoordinator
        from groupspec.types.classic_group import ClassicConfig
        from groupspec.types.share_group import ShareGroupConfig
        from groupspec.types.share_state import ShareStateConfig

        self.classic = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1))
        self.shares = ShareGroupCoordinator(ShareGroupConfig(offsets_topic_partitions=1))
        self.states = ShareCoordinator(ShareStateConfig(state_topic_partitions=1))

    def offsets_group(self, entries: Sequence[tuple[int, LogEntry]]) -> tuple[Any, Any]:
        """(classic GroupView or None, share GroupView or None) after replaying ``entries``."""
        self.classic.runtime.unload(0)
        self.classic.runtime.load_from(0, entries)
        classic = self.classic.view().groups
        self.shares.runtime.unload(0)
        self.shares.runtime.load_from(0, entries)
        shares = self.shares.view().groups
        return (classic[0] if classic else None), (shares[0] if shares else None)

    def share_state(self, entries: Sequence[tuple[int, LogEntry]]) -> Any:
        self.states.runtime.unload(0)
        self.states.runtime.load_from(0, entries)
        found = self.states.view().share_partitions
        return found[0] if found else None


def audit_group(ckey: tuple[Any, ...], items: Iterable[Item], markers: Sequence[Marker] = (),
                replayer: Replayer | None = None) -> GroupResult:
    """Stage 2 for one coordinator key: decode, check the invariants, replay, describe.

    ``markers`` are the transaction markers of the key's partition (any producer, in offset
    order); those of producers that wrote to this group are replayed with its records.
    """
    topic, partition, group = ckey[0], ckey[1], ckey[2]
    ordered = sorted(items, key=lambda i: i[0])
    walk = _Walk(ckey)
    quarantined: list[Quarantined] = []
    entries: list[tuple[int, LogEntry]] = []
    commit_times: list[int] = []
    producers = {i[4] for i in ordered if i[4] is not None}
    pending = [m for m in markers if m[1] in producers]
    mi = 0
    types: set[int] = set()
    consumer = ConsumerGroupState(group or "")
    for offset, ts, key, value, pid, epoch in ordered:
        while mi < len(pending) and pending[mi][0] < offset:
            m = pending[mi]
            walk.marker(m)
            entries.append((m[0], TxnEnd(m[1], m[2], m[3], 0)))
            mi += 1
        try:
            rec = decode_record(topic, key, value)
        except UnsupportedVersionError as exc:
            walk.flag("unknown_version", offset, ts, exc.reason)
            continue
        except CodecError as exc:
            quarantined.append(Quarantined(topic, partition, offset,
                                           f"record does not decode: {exc.reason}", key, value, "row"))
            continue
        types.add(rec.record_type.type_id)
        walk.record(offset, ts, rec, pid, epoch)
        if rec.record_type.type_id in _CONSUMER_TYPES:
            consumer.apply(rec)
        if value is not None and isinstance(rec.key, OffsetCommitKey | LegacyOffsetCommitKey) \
                and ts is not None:
            commit_times.append(ts)
        entries.append((offset, rec if pid is None else TxnRecord(rec, pid, epoch or 0)))
    for m in pending[mi:]:
        entries.append((m[0], TxnEnd(m[1], m[2], m[3], 0)))

    replayer = replayer or Replayer()
    base: dict[str, Any] = dict.fromkeys(STATE_NAMES)
    base.update(coordinator_topic=topic, coordinator_partition=partition, group_id=group,
                members=[], member_count=0, assignments=[], offsets=[], records=len(ordered),
                commits=len(commit_times))
    if ordered:
        base.update(first_offset=ordered[0][0], last_offset=ordered[-1][0],
                    first_timestamp=min((i[1] for i in ordered if i[1] is not None), default=None),
                    last_timestamp=max((i[1] for i in ordered if i[1] is not None), default=None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if topic == SHARE_STATE_TOPIC:
                _describe_share_partition(base, ckey, replayer.share_state(entries))
            else:
                classic, share = replayer.offsets_group(entries)
                _describe_group(base, types, consumer, classic, share)
        except Exception as exc:  # the impl refused the log: a finding, not a crash of the job
            walk.flag("replay_failed", ordered[-1][0] if ordered else -1, None,
                      f"{type(exc).__name__}: {exc}")
            base["kind"] = base["kind"] or ("share-partition" if topic == SHARE_STATE_TOPIC else "unknown")
    base["violations"] = len(walk.violations)
    return GroupResult(tuple(base[n] for n in STATE_NAMES), walk.violations, quarantined,
                       commit_times)


def _describe_share_partition(base: dict[str, Any], ckey: tuple[Any, ...], view: Any) -> None:
    base.update(kind="share-partition", topic_id=ckey[3], share_partition=ckey[4])
    if view is None:  # deleted (its last record was a tombstone)
        base["state"] = "Deleted"
        return
    counts: dict[str, int] = {}
    for b in view.state_batches:
        name = _DELIVERY_STATES.get(b.delivery_state, str(b.delivery_state))
        low = max(b.first_offset, view.start_offset)
        if b.last_offset >= low:
            counts[name] = counts.get(name, 0) + b.last_offset - low + 1
    base.update(state="Active", start_offset=view.start_offset, state_epoch=view.state_epoch,
                generation=view.leader_epoch, in_flight=counts)


def _describe_group(base: dict[str, Any], types: set[int], consumer: ConsumerGroupState, classic: Any,
                    share: Any) -> None:
    kind = "simple"
    if types & set(_SHARE_TYPES):
        kind = "share"
    elif types & set(_CONSUMER_TYPES):
        kind = "consumer"
    elif 2 in types:
        kind = "classic"
    base["kind"] = kind
    if classic is not None:
        base["offsets"] = [(o.topic, o.partition, o.committed_offset) for o in classic.offsets]
    if kind == "share":
        if share is None:
            base["state"] = "Dead"
            return
        members = sorted(m.member_id for m in share.members)
        base.update(state=share.state, generation=share.group_epoch, members=members,
                    assignments=sorted(f"{m.member_id} {tp.topic_id}-{p}" for m in share.members
                                       for tp in m.assigned for p in tp.partitions))
    elif kind == "consumer":
        base.update(state=consumer.state, protocol_type="consumer", generation=consumer.group_epoch,
                    assignment_epoch=consumer.assignment_epoch, members=sorted(consumer.members),
                    assignments=sorted(f"{m.member_id} {tp}" for m in consumer.members.values()
                                       for tp in partition_names(m.assigned, consumer.known_names())))
    elif classic is None:
        base["state"] = "Dead"  # every record of it was deleted by tombstones
    else:
        members = [m.member_id for m in classic.members]
        base.update(state=classic.state, protocol_type=classic.protocol_type,
                    protocol=classic.protocol_name,
                    generation=classic.generation_id if kind == "classic" else None,
                    members=members, assignments=sorted(
                        f"{m.member_id} {a}" for m in classic.members
                        for a in _assigned(m.assignment, classic.protocol_type)))
    base["member_count"] = len(base["members"])


def _assigned(assignment: bytes, protocol_type: str | None) -> list[str]:
    if protocol_type != "consumer" or not assignment:
        return []
    try:
        decoded, _ = decode_assignment(assignment)
    except CodecError:
        return ["<assignment does not decode>"]
    return [f"{tp.topic}-{p}" for tp in decoded.assigned_partitions for p in tp.partitions]


def audit_rows(rows: Iterable[InputRow]) -> tuple[list[tuple[Any, ...]], list[Violation],
                                                   list[Quarantined]]:
    """The whole audit in this process (no Spark): what the job computes, for tests and the
    single-process baseline of the benchmark."""
    with without_cycle_collection():  # it keeps every record until its group is replayed
        return _audit_rows(rows)


def _audit_rows(rows: Iterable[InputRow]) -> tuple[list[tuple[Any, ...]], list[Violation],
                                                   list[Quarantined]]:
    by_key: dict[tuple[Any, ...], list[Item]] = {}
    markers: dict[tuple[str, int], list[Marker]] = {}
    violations: list[Violation] = []
    quarantined: list[Quarantined] = []
    for tag, item in key_rows(rows):
        if tag == "record":
            by_key.setdefault(item[0], []).append(item[1])
        elif tag == "marker":
            markers.setdefault((item[0], item[1]), []).append(item[2:])
        elif tag == "violation":
            violations.append(item)
        else:
            quarantined.append(item)
    for found in markers.values():
        found.sort()
    states = []
    replayer = Replayer()
    for ckey in sorted(by_key, key=sort_key):
        result = audit_group(ckey, by_key[ckey], markers.get((ckey[0], ckey[1]), ()), replayer)
        states.append(result.state)
        violations += result.violations
        quarantined += result.quarantined
    return states, violations, quarantined


def sort_key(ckey: tuple[Any, ...]) -> tuple[Any, ...]:
    """Coordinator keys hold None for the parts the offsets topic lacks; this orders them anyway."""
    topic, partition, group, topic_id, share_partition = ckey
    return (topic, partition, group, topic_id or "", -1 if share_partition is None else share_partition)

"""Coordinator logs for the audit to read: clean ones, and ones with one planted fault per kind.

The audit must be shown to find each kind of violation and to find none where there is none;
real broker logs have (we hope) no faults, so the faults are planted here, each in a group of its
own named after it (``fault-<kind>``), next to ordinary groups whose records follow the order
Kafka 4.2 writes them in (the real segments in tests/data/kafka-4.2.1-real show that order:
member record before its assignments, assignment tombstones before the member's).

The batches' bytes are kafka-python's (its ``DefaultRecordBatchBuilder``) by default, so that
groupspec's reader is shown right on bytes it did not write; ``writer="groupspec"`` writes the
same records with groupspec's own ``encode_batch`` instead. Batches cycle through every
compression codec and segments are kept small so a log spans many files. The content is made to
look like a busy cluster's: rebalances with members and assignments, KIP-848 groups left in each
state, commits of every partition, deleted groups, transactions, and on request the holes a
cleaned log has (see :func:`write_offsets_log`). Everything is a function of the arguments
(``seed``, sizes, a fixed start time): no clock, no randomness from outside.
"""

from __future__ import annotations

import functools
import random
import struct
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groupspec.impl.codec.batch import ControlType, Record, encode_batch
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.consumer_protocol import encode_assignment, encode_subscription
from groupspec.impl.codec.records import encode_key, encode_record, encode_value
from groupspec.types import InputError
from groupspec.types.records import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    ConsumerGroupCurrentMemberAssignmentKey,
    ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataKey,
    ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue,
    ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMetadataValue,
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
    CoordinatorRecord,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupCurrentMemberAssignmentValue,
    ShareGroupMemberMetadataKey,
    ShareGroupMemberMetadataValue,
    ShareGroupMetadataKey,
    ShareGroupMetadataValue,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMemberValue,
    ShareSnapshotKey,
    ShareSnapshotValue,
    ShareUpdateKey,
    ShareUpdateValue,
)

#: The fault kinds this generator plants (every kind of VIOLATION_KINDS but replay_failed), and
#: a record that does not decode, which is quarantined rather than a violation.
PLANTED = ("unknown_member", "generation_backwards", "fenced_commit", "unknown_type",
           "unknown_version", "orphan_tombstone", "share_batch_overlap", "share_batch_below_start")
QUARANTINED_GROUP = "fault-garbage"
START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z: timestamps are fixed, not the clock's
_CODECS = tuple(Compression)
_TOPIC = "orders"
_TOPIC_ID = uuid.UUID(int=0x5EED_0000_0000_0000_0000_0000_0000_0001)


#: Batch writers: ``kafka-python`` (its ``DefaultRecordBatchBuilder``: framing, compression and
#: CRC by a client library groupspec does not share code with) or ``groupspec`` (its own
#: ``encode_batch``). The record keys and values are groupspec's encoders either way: no other
#: Python library writes coordinator records.
WRITERS = ("kafka-python", "groupspec")


@dataclass
class _Batch:
    records: list[Record]
    codec: Compression
    producer: tuple[int, int] | None = None
    #: The marker of a control batch (its one record is built by the writer).
    control: ControlType | None = None


@dataclass
class _Log:
    directory: Path
    topic: str
    number: int
    segment_bytes: int
    #: Batches not yet written, offsets already given.
    pending: list[_Batch] = field(default_factory=list)
    next_offset: int = 0
    records: int = 0


@dataclass
class GeneratedLog:
    """What was written: the partition directories, record counts, the planted faults."""

    directories: list[Path]
    records: int
    #: fault kind -> the group it was planted in.
    planted: dict[str, str]
    groups: int
    #: Batches by the codec their bytes name (kafka-python leaves a batch uncompressed when
    #: compressing does not make it smaller, as its producer does).
    codecs: dict[str, int] = field(default_factory=dict)
    #: Records left out by the compaction-like pass (their offsets stay unused).
    compacted: int = 0
    segments: int = 0
    bytes: int = 0
    writer: str = "kafka-python"


def _kafka_python_builders() -> tuple[Any, Any]:
    """kafka-python's batch builder, and the same with the control bit set: its producer never
    writes markers (the transaction coordinator does), but the framing, CRC and attributes are
    otherwise its own. Imported here: kafka-python is a development dependency, not groupspec's."""
    try:
        from kafka.record.default_records import DefaultRecordBatchBuilder
    except ImportError:
        raise InputError("writer", "kafka-python is not installed (pip install 'groupspec[dev]'); "
                         "use the groupspec writer instead") from None

    class ControlBuilder(DefaultRecordBatchBuilder):  # type: ignore[misc]
        def _get_attributes(self, include_compression_type: bool = True) -> int:
            attributes: int = super()._get_attributes(include_compression_type)
            return attributes | int(DefaultRecordBatchBuilder.CONTROL_MASK)

    return DefaultRecordBatchBuilder, ControlBuilder


def _kafka_python_batch(batch: _Batch, builders: tuple[Any, Any]) -> bytes:
    """The batch as kafka-python builds it, then given its base offset as a leader would: the
    first 8 bytes are outside the CRC, which kafka-python's producer leaves 0 for the broker."""
    pid, epoch = batch.producer if batch.producer is not None else (-1, -1)
    cls = builders[1] if batch.control is not None else builders[0]
    builder = cls(magic=2, compression_type=int(batch.codec), is_transactional=batch.producer is not None,
                  producer_id=pid, producer_epoch=epoch, base_sequence=-1, batch_size=1 << 30)
    base = batch.records[0].offset
    for r in batch.records:
        builder.append(r.offset - base, timestamp=r.timestamp, key=r.key, value=r.value, headers=[])
    data = bytearray(builder.build())
    struct.pack_into(">q", data, 0, base)
    return bytes(data)


def _groupspec_batch(batch: _Batch) -> bytes:
    base = batch.records[0].offset
    if batch.producer is None:
        return encode_batch(batch.records, base_offset=base, compression=batch.codec)
    return encode_batch(batch.records, base_offset=base, compression=batch.codec,
                        is_transactional=True, is_control=batch.control is not None,
                        producer_id=batch.producer[0], producer_epoch=batch.producer[1])


def _control_record(offset: int, timestamp: int, marker: ControlType) -> Record:
    # Key: version 0 and the marker type; value: version 0 and the coordinator epoch (0 here).
    return Record(offset, timestamp, struct.pack(">hh", 0, marker), struct.pack(">hi", 0, 0))


class _Writer:
    def __init__(self, root: Path, partitions: int, segment_bytes: int, rng: random.Random,
                 gap_every: int) -> None:
        self.logs = {(OFFSETS_TOPIC, p): _Log(root / f"{OFFSETS_TOPIC}-{p}", OFFSETS_TOPIC, p, segment_bytes)
                     for p in range(partitions)}
        self.logs[(SHARE_STATE_TOPIC, 0)] = _Log(root / f"{SHARE_STATE_TOPIC}-0", SHARE_STATE_TOPIC, 0,
                                                 segment_bytes)
        self.clock = START_MS
        self.batches = 0
        self.rng = rng
        #: Every ``gap_every``-th batch is followed by a run of unused offsets (0: none).
        self.gap_every = gap_every

    def _gap(self, log: _Log) -> None:
        if self.gap_every and self.batches % self.gap_every == 0:
            log.next_offset += self.rng.randint(1, 40)

    def raw(self, topic: str, partition: int, pairs: list[tuple[bytes, bytes | None]], *,
            producer: tuple[int, int] | None = None) -> None:
        log = self.logs[(topic, partition)]
        records = []
        for i, (key, value) in enumerate(pairs):
            self.clock += 7
            records.append(Record(log.next_offset + i, self.clock, key, value))
        codec = _CODECS[self.batches % len(_CODECS)]
        self.batches += 1
        log.pending.append(_Batch(records, codec, producer))
        log.next_offset += len(records)
        log.records += len(records)
        self._gap(log)

    def write(self, topic: str, partition: int, records: list[CoordinatorRecord], *,
              producer: tuple[int, int] | None = None) -> None:
        self.raw(topic, partition, [encode_record(r) for r in records], producer=producer)

    def marker(self, partition: int, producer: tuple[int, int], commit: bool) -> None:
        log = self.logs[(OFFSETS_TOPIC, partition)]
        self.clock += 7
        kind = ControlType.COMMIT if commit else ControlType.ABORT
        log.pending.append(_Batch([_control_record(log.next_offset, self.clock, kind)], Compression.NONE,
                                  producer, kind))
        log.next_offset += 1
        log.records += 1

    def compact(self, every: int) -> int:
        """Leave out superseded offset commits and group metadata, as the log cleaner would.

        Only plain (non-transactional) records of types 0-2 whose key a later plain record of the
        same log sets again to a value go; tombstones and everything else stay, so the state a
        replay reaches is the same and no group is left with only its tombstone. One superseded
        record in ``every`` is removed (all of them with ``every`` 1); a batch left empty goes whole,
        leaving a gap between batches, otherwise the gap is inside the batch.
        """
        removed = 0
        for log in self.logs.values():
            if log.topic != OFFSETS_TOPIC:
                continue
            seen: set[bytes] = set()
            n = 0
            for batch in reversed(log.pending):
                if batch.producer is not None:
                    continue
                kept = []
                for r in reversed(batch.records):
                    key = r.key or b""
                    superseded = key in seen
                    if r.value is not None and len(key) >= 2 and key[1] in (0, 1, 2) and key[0] == 0:
                        seen.add(key)
                    if superseded and r.value is not None and key[0] == 0 and key[1] in (0, 1, 2):
                        n += 1
                        if n % every == 0:
                            removed += 1
                            continue
                    kept.append(r)
                batch.records = kept[::-1]
            log.pending = [b for b in log.pending if b.records]
        return removed

    def flush(self, writer: str) -> tuple[list[Path], dict[str, int], int, int]:
        """Write every log's batches into segment files named by their first batch's base offset
        (20 digits), rolling to a new file before a batch that would take it past the log's
        ``segment_bytes``. No ``.index``/``.timeindex`` is written: Kafka rebuilds missing ones
        (see groupspec.impl.codec.segment) and groupspec's readers never need them."""
        encode: Callable[[_Batch], bytes] = _groupspec_batch
        if writer == "kafka-python":
            builders = _kafka_python_builders()
            encode = functools.partial(_kafka_python_batch, builders=builders)
        codecs: dict[str, int] = {}
        segments = 0
        size = 0
        for log in self.logs.values():
            if log.directory.exists() and any(log.directory.iterdir()):
                raise InputError(str(log.directory), "exists and is not empty")
            log.directory.mkdir(parents=True, exist_ok=True)
            out = None
            written = 0
            try:
                for batch in log.pending:
                    data = encode(batch)
                    name = Compression.of(data[22] & 0x07).name.lower()
                    codecs[name] = codecs.get(name, 0) + 1
                    if out is None or (written and written + len(data) > log.segment_bytes):
                        if out is not None:
                            out.close()
                        out = open(log.directory / f"{batch.records[0].offset:020d}.log", "wb")  # noqa: SIM115
                        segments += 1
                        written = 0
                    out.write(data)
                    written += len(data)
                    size += len(data)
            finally:
                if out is not None:
                    out.close()
            if out is None:  # a log with no batch still gets its empty first segment
                (log.directory / f"{0:020d}.log").touch()
                segments += 1
        return [log.directory for log in self.logs.values()], codecs, segments, size


def _commit(group: str, partition: int, offset: int, ts: int) -> CoordinatorRecord:
    return CoordinatorRecord(OffsetCommitKey(group, _TOPIC, partition),
                             OffsetCommitValue(offset=offset, leader_epoch=0, metadata="",
                                               commit_timestamp=ts))


_PARTITIONS = 4  # of the consumed topic: a commit carries them all, as a consumer's commit does
_SUBSCRIPTION = encode_subscription(ConsumerProtocolSubscription(topics=(_TOPIC,)))


def _commits(group: str, offsets: list[int], ts: int) -> list[CoordinatorRecord]:
    return [_commit(group, p, o, ts) for p, o in enumerate(offsets)]


def _range(members: list[str]) -> dict[str, tuple[int, ...]]:
    """The range assignor's split of the topic's partitions over ``members`` (sorted)."""
    out: dict[str, list[int]] = {m: [] for m in members}
    ordered = sorted(members)
    for p in range(_PARTITIONS if members else 0):
        out[ordered[p * len(ordered) // _PARTITIONS]].append(p)
    return {m: tuple(ps) for m, ps in out.items()}


def _classic(w: _Writer, rng: random.Random, group: str, part: int, commits: int,
             delete: bool) -> None:
    """Rebalances as a classic coordinator writes them: each generation's GroupMetadata names
    its members with their subscription and the leader's assignment; members join and leave
    between generations; commits of every partition between rebalances."""
    def meta(generation: int, members: list[str]) -> CoordinatorRecord:
        split = _range(members)
        return CoordinatorRecord(GroupMetadataKey(group), GroupMetadataValue(
            protocol_type="consumer", generation=generation,
            protocol="range" if members else None, leader=members[0] if members else None,
            current_state_timestamp=w.clock, members=tuple(
                GroupMetadataValue.MemberMetadata(
                    member_id=m, group_instance_id=None, client_id=f"client-{m[-1]}",
                    client_host=f"/10.0.{len(m) % 250}.{i + 1}", rebalance_timeout=30000,
                    session_timeout=45000, subscription=_SUBSCRIPTION,
                    assignment=encode_assignment(ConsumerProtocolAssignment(
                        (ConsumerProtocolAssignment.TopicPartition(_TOPIC, split[m]),)
                        if split[m] else ())))
                for i, m in enumerate(members))))

    w.write(OFFSETS_TOPIC, part, [meta(0, [])])
    members: list[str] = []
    generations = 3 + (commits // 200)  # more commits, more rebalances, as in a long-lived group
    offsets = [0] * _PARTITIONS
    for generation in range(1, generations + 1):
        stay = [m for m in members if rng.random() < 0.7]
        members = stay + [f"{group}-m{generation}-{i}" for i in range(rng.randint(0 if stay else 1, 2))]
        w.write(OFFSETS_TOPIC, part, [meta(generation, members)])
        for _ in range(commits // generations + 1):
            offsets = [o + rng.randint(1, 50) for o in offsets]
            w.write(OFFSETS_TOPIC, part, _commits(group, offsets, w.clock))
    if delete:
        w.write(OFFSETS_TOPIC, part, [meta(generations + 1, [])])
        w.write(OFFSETS_TOPIC, part, [CoordinatorRecord(GroupMetadataKey(group), None)]
                + [CoordinatorRecord(OffsetCommitKey(group, _TOPIC, p), None) for p in range(_PARTITIONS)])


#: How a generated KIP-848 group ends: every member gone (Empty), reconciled (Stable), a member
#: still at the previous epoch (Reconciling), the group epoch past the target's (Assigning).
CONSUMER_ENDINGS = ("Empty", "Stable", "Reconciling", "Assigning")


def _consumer(w: _Writer, rng: random.Random, group: str, part: int, commits: int,
              ending: str = "Empty") -> None:
    """The records Kafka 4.2 writes for a KIP-848 group, in its order (member, group epoch,
    target assignment and its epoch, current assignment): one member, a second joining at epoch 2
    (partitions moved to it), then the ``ending``."""
    def member(m: str) -> CoordinatorRecord:
        return CoordinatorRecord(ConsumerGroupMemberMetadataKey(group, m), ConsumerGroupMemberMetadataValue(
            instance_id=None, rack_id=None, client_id=f"client-{m[-1]}", client_host="/10.0.0.2",
            subscribed_topic_names=(_TOPIC,), subscribed_topic_regex=None, rebalance_timeout_ms=30000,
            server_assignor=None, classic_member_metadata=None))

    def epoch(e: int) -> CoordinatorRecord:
        return CoordinatorRecord(ConsumerGroupMetadataKey(group), ConsumerGroupMetadataValue(epoch=e))

    def target(m: str, ps: tuple[int, ...]) -> CoordinatorRecord:
        tp = ConsumerGroupTargetAssignmentMemberValue.TopicPartition(_TOPIC_ID, ps)
        return CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey(group, m),
                                 ConsumerGroupTargetAssignmentMemberValue(topic_partitions=(tp,)))

    def target_epoch(e: int) -> CoordinatorRecord:
        return CoordinatorRecord(ConsumerGroupTargetAssignmentMetadataKey(group),
                                 ConsumerGroupTargetAssignmentMetadataValue(assignment_epoch=e))

    def current(m: str, e: int, prev: int, state: int, ps: tuple[int, ...],
                pending: tuple[int, ...] = ()) -> CoordinatorRecord:
        def tps(x: tuple[int, ...]) -> tuple[ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions, ...]:
            return (ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions(_TOPIC_ID, x),) if x else ()
        return CoordinatorRecord(ConsumerGroupCurrentMemberAssignmentKey(group, m),
                                 ConsumerGroupCurrentMemberAssignmentValue(
                                     member_epoch=e, previous_member_epoch=prev, state=state,
                                     assigned_partitions=tps(ps), partitions_pending_revocation=tps(pending)))

    a, b = f"{group}-member", f"{group}-member2"
    everything = tuple(range(_PARTITIONS))
    w.write(OFFSETS_TOPIC, part, [member(a), epoch(1), target(a, everything), target_epoch(1),
                                  current(a, 1, 0, 0, everything)])
    offsets = [0] * _PARTITIONS
    for _ in range(commits // 2 + 1):
        offsets = [o + rng.randint(1, 50) for o in offsets]
        w.write(OFFSETS_TOPIC, part, _commits(group, offsets, w.clock))
    half = _PARTITIONS // 2
    mine, theirs = everything[:half], everything[half:]
    w.write(OFFSETS_TOPIC, part, [member(b), epoch(2), target(a, mine), target(b, theirs), target_epoch(2),
                                  current(a, 1, 1, 1, mine, theirs), current(b, 2, 0, 2, ())])
    if ending == "Reconciling":
        return
    w.write(OFFSETS_TOPIC, part, [current(a, 2, 1, 0, mine)])
    w.write(OFFSETS_TOPIC, part, [current(b, 2, 2, 0, theirs)])
    for _ in range(commits // 2):
        offsets = [o + rng.randint(1, 50) for o in offsets]
        w.write(OFFSETS_TOPIC, part, _commits(group, offsets, w.clock))
    if ending == "Stable":
        return
    if ending == "Assigning":
        w.write(OFFSETS_TOPIC, part, [member(f"{group}-member3"), epoch(3)])
        return
    for m, e in ((a, 3), (b, 4)):
        w.write(OFFSETS_TOPIC, part, [
            CoordinatorRecord(ConsumerGroupCurrentMemberAssignmentKey(group, m), None),
            CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey(group, m), None),
            CoordinatorRecord(ConsumerGroupMemberMetadataKey(group, m), None),
            epoch(e),
        ])


def _share(w: _Writer, rng: random.Random, group: str, part: int, updates: int) -> None:
    member = f"{group}-member"
    w.write(OFFSETS_TOPIC, part, [
        CoordinatorRecord(ShareGroupMemberMetadataKey(group, member), ShareGroupMemberMetadataValue(
            rack_id=None, client_id="c", client_host="/10.0.0.3", subscribed_topic_names=(_TOPIC,))),
        CoordinatorRecord(ShareGroupMetadataKey(group), ShareGroupMetadataValue(epoch=1, metadata_hash=1)),
        CoordinatorRecord(ShareGroupTargetAssignmentMemberKey(group, member),
                          ShareGroupTargetAssignmentMemberValue(topic_partitions=(
                              ShareGroupTargetAssignmentMemberValue.TopicPartition(_TOPIC_ID, (0, 1)),))),
        CoordinatorRecord(ShareGroupCurrentMemberAssignmentKey(group, member),
                          ShareGroupCurrentMemberAssignmentValue(
                              member_epoch=1, previous_member_epoch=0, state=0, assigned_partitions=(
                                  ShareGroupCurrentMemberAssignmentValue.TopicPartitions(
                                      _TOPIC_ID, (0, 1)),))),
    ])
    for p in (0, 1):
        _share_state(w, rng, group, p, updates)


def _share_state(w: _Writer, rng: random.Random, group: str, p: int, updates: int) -> None:
    key = ShareSnapshotKey(group, _TOPIC_ID, p)
    w.write(SHARE_STATE_TOPIC, 0, [CoordinatorRecord(key, ShareSnapshotValue(
        snapshot_epoch=0, state_epoch=1, leader_epoch=0, start_offset=-1, create_timestamp=w.clock,
        write_timestamp=w.clock, state_batches=()))])
    start = 0
    for _ in range(updates):
        start += rng.randint(0, 3)
        first = start
        batches = []
        for _ in range(rng.randint(1, 3)):
            last = first + rng.randint(0, 4)
            batches.append(ShareUpdateValue.StateBatch(first, last, rng.choice((0, 2, 4)), 1))
            first = last + 1
        update = ShareUpdateKey(group, _TOPIC_ID, p)
        w.write(SHARE_STATE_TOPIC, 0, [CoordinatorRecord(update, ShareUpdateValue(
            snapshot_epoch=0, leader_epoch=0, start_offset=start, state_batches=tuple(batches)))])


def _txn(w: _Writer, group: str, part: int, pid: int, epoch: int, commit: bool, offset: int) -> None:
    w.write(OFFSETS_TOPIC, part, [_commit(group, 0, offset, w.clock), _commit(group, 1, offset, w.clock)],
            producer=(pid, epoch))
    w.marker(part, (pid, epoch), commit)


def _plant(w: _Writer) -> dict[str, str]:
    """One fault of each kind, each in its own group of partition 0 (or the share-state log)."""
    planted = {kind: f"fault-{kind.replace('_', '-')}" for kind in PLANTED}
    g = planted["unknown_member"]
    w.write(OFFSETS_TOPIC, 0, [
        CoordinatorRecord(ConsumerGroupMetadataKey(g), ConsumerGroupMetadataValue(epoch=1)),
        CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey(g, "ghost"),
                          ConsumerGroupTargetAssignmentMemberValue(topic_partitions=())),
    ])
    g = planted["generation_backwards"]
    for generation in (5, 3):
        w.write(OFFSETS_TOPIC, 0, [CoordinatorRecord(GroupMetadataKey(g), GroupMetadataValue(
            protocol_type="consumer", generation=generation, protocol=None, leader=None,
            current_state_timestamp=w.clock, members=()))])
    g = planted["fenced_commit"]
    _txn(w, g, 0, 9001, 3, True, 10)
    _txn(w, g, 0, 9001, 2, False, 11)
    unknown_key = struct.pack(">h", 99) + b"\x00\x01x"
    w.raw(OFFSETS_TOPIC, 0, [(unknown_key, b"\x00\x00")])
    planted["unknown_type"] = ""  # an unknown type names no group
    g = planted["unknown_version"]
    body = encode_value(OffsetCommitValue(offset=5, leader_epoch=0, metadata="", commit_timestamp=w.clock), 3)
    w.raw(OFFSETS_TOPIC, 0, [(encode_key(OffsetCommitKey(g, _TOPIC, 0)), struct.pack(">h", 99) + body[2:])])
    w.write(OFFSETS_TOPIC, 0, [CoordinatorRecord(GroupMetadataKey(planted["orphan_tombstone"]), None)])
    g = planted["share_batch_overlap"]
    w.write(SHARE_STATE_TOPIC, 0, [CoordinatorRecord(ShareSnapshotKey(g, _TOPIC_ID, 0), ShareSnapshotValue(
        snapshot_epoch=0, state_epoch=1, leader_epoch=0, start_offset=0, create_timestamp=w.clock,
        write_timestamp=w.clock, state_batches=(ShareSnapshotValue.StateBatch(0, 5, 0, 1),
                                                ShareSnapshotValue.StateBatch(3, 8, 2, 1))))])
    g = planted["share_batch_below_start"]
    w.write(SHARE_STATE_TOPIC, 0, [CoordinatorRecord(ShareSnapshotKey(g, _TOPIC_ID, 1), ShareSnapshotValue(
        snapshot_epoch=0, state_epoch=1, leader_epoch=0, start_offset=10, create_timestamp=w.clock,
        write_timestamp=w.clock, state_batches=(ShareSnapshotValue.StateBatch(2, 4, 0, 1),
                                                ShareSnapshotValue.StateBatch(10, 12, 2, 1))))])
    w.raw(OFFSETS_TOPIC, 0, [(encode_key(OffsetCommitKey(QUARANTINED_GROUP, _TOPIC, 0)), b"\x00\x03\x01")])
    return planted


def write_offsets_log(root: str | Path, *, groups: int = 40, commits: int = 12, partitions: int = 3,
                      faults: bool = False, seed: int = 0, segment_bytes: int = 16 * 1024,
                      writer: str = "kafka-python", compact: int = 0, gaps: int = 0) -> GeneratedLog:
    """Write ``__consumer_offsets-0..partitions-1`` and ``__share_group_state-0`` under ``root``.

    ``groups`` groups cycle through classic (two in four; every fifth deleted at the end),
    KIP-848 consumer groups (ending in turn as :data:`CONSUMER_ENDINGS` says) and share groups,
    with about ``commits`` offset commits (each of all the topic's partitions; share groups:
    state updates per partition) each; one group in seven also commits transactionally. With
    ``faults``, :data:`PLANTED` faults are added (see :func:`_plant`). ``writer`` names the batch
    writer (:data:`WRITERS`); the records, offsets and timestamps do not depend on it.
    ``compact`` N leaves out one superseded commit or group metadata record in N (1: all of them),
    as a cleaned log has; ``gaps`` N skips a run of offsets after every N-th batch. Both are 0
    (off) by default.
    """
    if groups < 0 or commits < 0 or partitions < 1 or segment_bytes < 1024 or compact < 0 or gaps < 0:
        raise InputError("write_offsets_log", "groups, commits, compact and gaps >= 0, partitions >= 1, "
                         "segment_bytes >= 1024")
    if writer not in WRITERS:
        raise InputError("writer", f"unknown writer {writer!r}; expected one of {', '.join(WRITERS)}")
    rng = random.Random(seed)
    w = _Writer(Path(root), partitions, segment_bytes, random.Random(f"gaps:{seed}"), gaps)
    consumers = 0
    for i in range(groups):
        group = f"g{i:05d}"
        part = i % partitions
        shape = i % 4
        if shape in (0, 1):
            _classic(w, rng, group, part, commits, delete=i % 5 == 0)
        elif shape == 2:
            _consumer(w, rng, group, part, commits, CONSUMER_ENDINGS[consumers % len(CONSUMER_ENDINGS)])
            consumers += 1
        else:
            _share(w, rng, group, part, max(1, commits // 4))
        if i % 7 == 6:
            _txn(w, group, part, 5000 + i, 0, i % 2 == 0, 1000 + i)
    planted = _plant(w) if faults else {}
    compacted = w.compact(compact) if compact else 0
    directories, codecs, segments, size = w.flush(writer)
    records = sum(len(b.records) for log in w.logs.values() for b in log.pending)
    return GeneratedLog(directories, records, planted, groups, codecs, compacted, segments, size, writer)

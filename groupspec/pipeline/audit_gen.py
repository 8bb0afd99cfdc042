"""Coordinator logs for the audit to read: clean ones, and ones with one planted fault per kind.

The audit must be shown to find each kind of violation and to find none where there is none;
real broker logs have (we hope) no faults, so the faults are planted here, each in a group of its
own named after it (``fault-<kind>``), next to ordinary groups whose records follow the order
Kafka 4.2 writes them in (the real segments in tests/data/kafka-4.2.1-real show that order:
member record before its assignments, assignment tombstones before the member's).

Bytes are groupspec's own encoders (``encode_record``, ``encode_batch``) written by
``SegmentWriter``, batches cycling through every compression codec, segments kept small so a
log spans many files. Everything is a function of the arguments (``seed``, sizes, a fixed
start time): no clock, no randomness from outside.
"""

from __future__ import annotations

import random
import struct
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from groupspec.impl.codec.batch import ControlType, Record, encode_batch, encode_control_batch
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.records import encode_key, encode_record, encode_value
from groupspec.impl.codec.segment import SegmentWriter
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


@dataclass
class _Log:
    directory: Path
    topic: str
    number: int
    segment_bytes: int
    #: Batches (records, producer, control) not yet written.
    pending: list[bytes] = field(default_factory=list)
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


class _Writer:
    def __init__(self, root: Path, partitions: int, segment_bytes: int) -> None:
        self.logs = {(OFFSETS_TOPIC, p): _Log(root / f"{OFFSETS_TOPIC}-{p}", OFFSETS_TOPIC, p, segment_bytes)
                     for p in range(partitions)}
        self.logs[(SHARE_STATE_TOPIC, 0)] = _Log(root / f"{SHARE_STATE_TOPIC}-0", SHARE_STATE_TOPIC, 0,
                                                 segment_bytes)
        self.clock = START_MS
        self.batches = 0

    def raw(self, topic: str, partition: int, pairs: list[tuple[bytes, bytes | None]], *,
            producer: tuple[int, int] | None = None) -> None:
        log = self.logs[(topic, partition)]
        records = []
        for i, (key, value) in enumerate(pairs):
            self.clock += 7
            records.append(Record(log.next_offset + i, self.clock, key, value))
        codec = _CODECS[self.batches % len(_CODECS)]
        self.batches += 1
        if producer is None:
            data = encode_batch(records, base_offset=log.next_offset, compression=codec)
        else:
            data = encode_batch(records, base_offset=log.next_offset, compression=codec,
                                is_transactional=True, producer_id=producer[0],
                                producer_epoch=producer[1])
        log.pending.append(data)
        log.next_offset += len(records)
        log.records += len(records)

    def write(self, topic: str, partition: int, records: list[CoordinatorRecord], *,
              producer: tuple[int, int] | None = None) -> None:
        self.raw(topic, partition, [encode_record(r) for r in records], producer=producer)

    def marker(self, partition: int, producer: tuple[int, int], commit: bool) -> None:
        log = self.logs[(OFFSETS_TOPIC, partition)]
        self.clock += 7
        log.pending.append(encode_control_batch(
            ControlType.COMMIT if commit else ControlType.ABORT, offset=log.next_offset,
            timestamp=self.clock, producer_id=producer[0], producer_epoch=producer[1],
            coordinator_epoch=0))
        log.next_offset += 1
        log.records += 1

    def flush(self) -> list[Path]:
        for log in self.logs.values():
            if log.directory.exists() and any(log.directory.iterdir()):
                raise InputError(str(log.directory), "exists and is not empty")
            with SegmentWriter(log.directory, segment_bytes=log.segment_bytes) as out:
                for data in log.pending:
                    out.append(data)
        return [log.directory for log in self.logs.values()]


def _commit(group: str, partition: int, offset: int, ts: int) -> CoordinatorRecord:
    return CoordinatorRecord(OffsetCommitKey(group, _TOPIC, partition),
                             OffsetCommitValue(offset=offset, leader_epoch=0, metadata="",
                                               commit_timestamp=ts))


def _classic(w: _Writer, rng: random.Random, group: str, part: int, commits: int,
             delete: bool) -> None:
    def meta(generation: int, members: list[str]) -> CoordinatorRecord:
        return CoordinatorRecord(GroupMetadataKey(group), GroupMetadataValue(
            protocol_type="consumer", generation=generation,
            protocol="range" if members else None, leader=members[0] if members else None,
            current_state_timestamp=w.clock, members=tuple(
                GroupMetadataValue.MemberMetadata(member_id=m, client_id="c", client_host="/10.0.0.1",
                                                  rebalance_timeout=30000, session_timeout=45000,
                                                  subscription=b"", assignment=b"")
                for m in members)))

    w.write(OFFSETS_TOPIC, part, [meta(0, [])])
    members: list[str] = []
    for generation in range(1, 4):
        members = [f"{group}-m{generation}-{i}" for i in range(rng.randint(1, 3))]
        w.write(OFFSETS_TOPIC, part, [meta(generation, members)])
        for n in range(commits // 3 + 1):
            w.write(OFFSETS_TOPIC, part, [_commit(group, rng.randrange(4), generation * 100 + n, w.clock)])
    if delete:
        w.write(OFFSETS_TOPIC, part, [meta(4, [])])
        w.write(OFFSETS_TOPIC, part, [CoordinatorRecord(GroupMetadataKey(group), None)]
                + [CoordinatorRecord(OffsetCommitKey(group, _TOPIC, p), None) for p in range(4)])


def _consumer(w: _Writer, rng: random.Random, group: str, part: int, commits: int) -> None:
    member = f"{group}-member"
    tps = ((_TOPIC_ID, (0, 1)),)
    w.write(OFFSETS_TOPIC, part, [
        CoordinatorRecord(ConsumerGroupMemberMetadataKey(group, member), ConsumerGroupMemberMetadataValue(
            instance_id=None, rack_id=None, client_id="c", client_host="/10.0.0.2",
            subscribed_topic_names=(_TOPIC,), subscribed_topic_regex=None, rebalance_timeout_ms=30000,
            server_assignor=None, classic_member_metadata=None)),
        CoordinatorRecord(ConsumerGroupMetadataKey(group), ConsumerGroupMetadataValue(epoch=1)),
        CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey(group, member),
                          ConsumerGroupTargetAssignmentMemberValue(topic_partitions=tuple(
                              ConsumerGroupTargetAssignmentMemberValue.TopicPartition(t, p)
                              for t, p in tps))),
        CoordinatorRecord(ConsumerGroupCurrentMemberAssignmentKey(group, member),
                          ConsumerGroupCurrentMemberAssignmentValue(
                              member_epoch=1, previous_member_epoch=0, state=0, assigned_partitions=tuple(
                                  ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions(t, p)
                                  for t, p in tps), partitions_pending_revocation=())),
    ])
    for n in range(commits):
        w.write(OFFSETS_TOPIC, part, [_commit(group, n % 2, n + 1, w.clock)])
    w.write(OFFSETS_TOPIC, part, [
        CoordinatorRecord(ConsumerGroupCurrentMemberAssignmentKey(group, member), None),
        CoordinatorRecord(ConsumerGroupTargetAssignmentMemberKey(group, member), None),
        CoordinatorRecord(ConsumerGroupMemberMetadataKey(group, member), None),
        CoordinatorRecord(ConsumerGroupMetadataKey(group), ConsumerGroupMetadataValue(epoch=2)),
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
                      faults: bool = False, seed: int = 0, segment_bytes: int = 16 * 1024) -> GeneratedLog:
    """Write ``__consumer_offsets-0..partitions-1`` and ``__share_group_state-0`` under ``root``.

    ``groups`` groups cycle through classic (two in four; every fifth deleted at the end),
    KIP-848 consumer and share groups, with about ``commits`` offset commits (share groups:
    state updates per partition) each; one group in seven also commits transactionally. With
    ``faults``, :data:`PLANTED` faults are added (see :func:`_plant`).
    """
    if groups < 0 or commits < 0 or partitions < 1 or segment_bytes < 1024:
        raise InputError("write_offsets_log", "groups and commits >= 0, partitions >= 1, "
                         "segment_bytes >= 1024")
    rng = random.Random(seed)
    w = _Writer(Path(root), partitions, segment_bytes)
    for i in range(groups):
        group = f"g{i:05d}"
        part = i % partitions
        shape = i % 4
        if shape in (0, 1):
            _classic(w, rng, group, part, commits, delete=i % 5 == 0)
        elif shape == 2:
            _consumer(w, rng, group, part, commits)
        else:
            _share(w, rng, group, part, max(1, commits // 4))
        if i % 7 == 6:
            _txn(w, group, part, 5000 + i, 0, i % 2 == 0, 1000 + i)
    planted = _plant(w) if faults else {}
    directories = w.flush()
    return GeneratedLog(directories, sum(log.records for log in w.logs.values()), planted, groups)

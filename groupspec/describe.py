"""What a coordinator believed, rebuilt from its logs: ``groupspec describe``.

An operator debugging a stuck group has the broker's ``__consumer_offsets`` and
``__share_group_state`` segments but not the broker's memory. Replaying the segments through
groupspec's coordinators (the impl, Kafka-faithful) gives back that memory: each group's state,
protocol, generation or epoch, members and assignments, committed offsets, and each share
partition's start offset and in-flight batches, as ``kafka-consumer-groups.sh --describe`` and
``kafka-share-groups.sh --describe`` would show them.

The user's files are only read: each partition's segments are streamed into a shard
(``CoordinatorRuntime.load_from``), never copied or opened for writing, and read twice for
``__consumer_offsets`` (once by the classic coordinator, once by the share group coordinator)
rather than held in memory. The first read takes OffsetCommit records, most of a busy log,
through the classic shard's fast path (``replay_batches``: no objects per commit); the second
decodes only the share group records, the only ones that shard acts on.

KIP-848 consumer groups have no coordinator machine in groupspec; their committed offsets are
replayed (offsets are the classic coordinator's) and their records are folded by
:mod:`groupspec.consumer_group_state` into the state, group epoch, target assignment epoch and
members (with member epoch, current and target assignment) that Kafka's loader would hold.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groupspec.consumer_group_state import MEMBER_STATES, ConsumerGroupState, partition_names
from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.impl.classic_group.shard import GroupCoordinatorShard
from groupspec.impl.codec.batch import RawBatch, RecordBatch
from groupspec.impl.codec.consumer_protocol import decode_assignment
from groupspec.impl.codec.errors import CodecError
from groupspec.impl.codec.log_reader import partition_of
from groupspec.impl.codec.raw import RawBatchReader
from groupspec.impl.codec.segment import read_log, segment_files
from groupspec.impl.runtime.log import log_entries, record_entry
from groupspec.impl.share_group.service import ShareGroupCoordinator
from groupspec.impl.share_group.shard import SHARE_KEYS
from groupspec.impl.share_state import ShareCoordinator
from groupspec.types import InputError
from groupspec.types.classic_group import ClassicConfig, LogEntry, TxnRecord
from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC, CoordinatorRecord, record_type_of
from groupspec.types.share_group import ShareGroupConfig
from groupspec.types.share_state import ShareStateConfig
from groupspec.types.topic_id import parse_topic_id

#: Kafka's default partition counts: a coordinator built for describe has at least these, so any
#: partition number a real cluster uses has a shard to load into.
DEFAULT_PARTITIONS = 50

_CONSUMER_TYPES = range(3, 9)  # ConsumerGroup* records
_SHARE_TYPES = range(10, 16)  # ShareGroup* records
#: The type ids of the records the share group shard replays (its SHARE_KEYS).
_SHARE_TYPE_IDS = frozenset(record_type_of(k).type_id for k in SHARE_KEYS)
_DELIVERY_STATES = {0: "available", 2: "acknowledged", 4: "archived"}


@dataclass(frozen=True)
class MemberRow:
    member_id: str
    client_id: str
    host: str
    group_instance_id: str | None
    #: "topic-partition" names (classic: the assignment the leader gave; share: the assigned set).
    assignment: tuple[str, ...]
    #: KIP-848 consumer members: member epoch (share members have it too), Kafka's member state
    #: name, the target assignment, and partitions still to revoke.
    member_epoch: int | None = None
    member_state: str | None = None
    target_assignment: tuple[str, ...] = ()
    pending_revocation: tuple[str, ...] = ()


@dataclass(frozen=True)
class OffsetRow:
    topic: str
    partition: int
    offset: int
    leader_epoch: int
    metadata: str


@dataclass(frozen=True)
class SharePartitionRow:
    #: The topic's name where the share group's records give it, else its id.
    topic: str
    partition: int
    start_offset: int
    state_epoch: int
    leader_epoch: int
    #: Offsets at or above the start offset the persisted batches hold, by delivery state.
    batches: dict[str, int]


@dataclass(frozen=True)
class GroupDescription:
    group_id: str
    #: "classic", "consumer" (KIP-848), "share", or "simple" (committed offsets only).
    kind: str
    #: Kafka's state name; None where groupspec does not replay it (a KIP-848 group with members).
    state: str | None
    protocol_type: str | None
    protocol: str | None
    #: The classic generation, or the group epoch of a share group.
    generation: int | None
    coordinator_partition: int
    members: tuple[MemberRow, ...]
    offsets: tuple[OffsetRow, ...]
    share_partitions: tuple[SharePartitionRow, ...] = ()
    #: KIP-848 consumer and share groups: the target assignment's epoch (the group epoch is
    #: ``generation``).
    assignment_epoch: int | None = None


@dataclass
class Description:
    groups: list[GroupDescription] = field(default_factory=list)
    files: int = 0
    records: int = 0


@dataclass
class _Partition:
    topic: str
    number: int
    files: list[Path]


def _partitions(paths: Iterable[str | Path]) -> list[_Partition]:
    found: dict[tuple[str, int], _Partition] = {}
    for given in paths:
        path = Path(given)
        if not path.exists():
            raise InputError(str(path), "no such file or directory")
        topic, number = partition_of(path)
        if topic not in (OFFSETS_TOPIC, SHARE_STATE_TOPIC) or number is None:
            raise InputError(str(path), f"not in a partition directory of {OFFSETS_TOPIC} or "
                             f"{SHARE_STATE_TOPIC} (such as {OFFSETS_TOPIC}-27/)")
        files = segment_files(path) if path.is_dir() else [path]
        if path.is_dir() and not files:
            raise InputError(str(path), "holds no segment files (*.log)")
        entry = found.setdefault((topic, number), _Partition(topic, number, []))
        entry.files += [f for f in files if f not in entry.files]
    return [found[k] for k in sorted(found)]


def _batches(part: _Partition, count: Callable[[int], None]) -> Iterator[RecordBatch]:
    for file in sorted(part.files):
        for item in read_log(file):
            if not isinstance(item.entry, RecordBatch):
                raise InputError(str(file), f"damaged at byte {item.position}: {item.entry}")
            count(len(item.entry.records))
            yield item.entry


def _raw_batches(part: _Partition, count: Callable[[int], None]) -> Iterator[RecordBatch | RawBatch]:
    """:func:`_batches` with uncompressed data batches left unread (the classic shard replays
    their records from the bytes); the same files, checks and errors."""
    for file in sorted(part.files):
        for item in read_log(file, reader=RawBatchReader()):
            entry = item.entry
            if isinstance(entry, RawBatch):
                count(entry.count)
            elif isinstance(entry, RecordBatch):
                count(len(entry.records))
            else:
                raise InputError(str(file), f"damaged at byte {item.position}: {entry}")
            yield entry


@contextmanager
def _decoding(part: _Partition) -> Iterator[None]:
    """Unknown record types skipped quietly; a record that does not decode an InputError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # record types this reader does not know: skipped
        try:
            yield
        except CodecError as exc:
            raise InputError(f"{part.topic}-{part.number}", f"a record does not decode: {exc}") from None


def _entries(part: _Partition, count: Callable[[int], None]) -> Iterator[tuple[int, LogEntry]]:
    with _decoding(part):
        yield from log_entries(part.topic, part.number, _batches(part, count))


def _share_entries(part: _Partition) -> Iterator[tuple[int, LogEntry]]:
    """The entries of an offsets partition the share group shard acts on, read a second time.

    That shard replays only non-transactional records of the share group types and ignores
    every other entry (``ShareGroupShard.replay``), so only those are decoded here; the first
    read (into the classic shard) decoded every record of the same files, so one that does
    not decode has already failed the command and skipping the others hides no error.
    """
    with _decoding(part):
        for batch in _batches(part, lambda n: None):
            if batch.is_control or batch.is_transactional:
                continue
            for record in batch.records:
                key = record.key
                if key is not None and len(key) >= 2 and key[0] == 0 and key[1] in _SHARE_TYPE_IDS:
                    entry = record_entry(part.topic, part.number, batch, record)
                    if entry is not None:
                        yield record.offset, entry


def _record(entry: LogEntry) -> CoordinatorRecord | None:
    if isinstance(entry, TxnRecord):
        return entry.record
    return entry if isinstance(entry, CoordinatorRecord) else None


def describe(paths: Iterable[str | Path], *, groups: Iterable[str] = (),
             progress: Callable[[str], None] | None = None) -> Description:
    """Replay the coordinator segments at ``paths`` and describe their groups (all, or ``groups``)."""
    parts = _partitions(paths)
    wanted = frozenset(groups)
    out = Description(files=sum(len(p.files) for p in parts))

    def count(n: int) -> None:
        out.records += n

    def note(text: str) -> None:
        if progress is not None:
            progress(text)

    offsets_parts = [p for p in parts if p.topic == OFFSETS_TOPIC]
    state_parts = [p for p in parts if p.topic == SHARE_STATE_TOPIC]
    size = max([DEFAULT_PARTITIONS, *(p.number + 1 for p in parts)])
    classic = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=size))
    shares = ShareGroupCoordinator(ShareGroupConfig(offsets_topic_partitions=size))
    kinds: dict[str, str] = {}
    consumer_groups: dict[str, ConsumerGroupState] = {}
    home: dict[str, int] = {}

    def follow(part: _Partition) -> Callable[[GroupCoordinatorShard], None]:
        """Replay into the classic shard, noting which kind of group each record belongs to and
        which partition holds it on the way."""
        number = part.number

        def on_commit(group: str) -> None:  # an OffsetCommit record (type 1) of ``group``
            home[group] = number
            kinds.setdefault(group, "simple")

        def on_entry(offset: int, entry: LogEntry) -> None:
            record = _record(entry)
            if record is not None:
                group = getattr(record.key, "group_id", None) or getattr(record.key, "group", None)
                if isinstance(group, str):
                    home[group] = number
                    type_id = record.record_type.type_id
                    kinds.setdefault(group, "simple")
                    if type_id in _CONSUMER_TYPES:
                        kinds[group] = "consumer"
                    elif type_id in _SHARE_TYPES:
                        kinds[group] = "share"
                    elif type_id == 2 and kinds[group] == "simple":
                        kinds[group] = "classic"
                    if type_id in _CONSUMER_TYPES:
                        consumer_groups.setdefault(group, ConsumerGroupState(group)).apply(record)

        def feed(shard: GroupCoordinatorShard) -> None:
            with _decoding(part):
                shard.replay_batches(part.topic, number, _raw_batches(part, count), on_commit, on_entry)

        return feed

    for part in offsets_parts:
        note(f"replaying {part.topic}-{part.number} ({len(part.files)} files) into the classic coordinator")
        classic.runtime.unload(part.number)
        classic.runtime.load_with(part.number, follow(part))
        note(f"replaying {part.topic}-{part.number} into the share group coordinator")
        shares.runtime.unload(part.number)
        shares.runtime.load_from(part.number, _share_entries(part))

    states = None
    if state_parts:
        state_size = max([DEFAULT_PARTITIONS, *(p.number + 1 for p in state_parts)])
        states = ShareCoordinator(ShareStateConfig(state_topic_partitions=state_size))
        for part in state_parts:
            note(f"replaying {part.topic}-{part.number} ({len(part.files)} files) into the share coordinator")
            states.runtime.unload(part.number)
            states.runtime.load_from(part.number, _entries(part, count))

    share_views = {g.group_id: g for g in shares.view().groups}
    topic_names = {t.topic_id: t.topic_name for g in share_views.values()
                   for t in (*g.initialized, *g.initializing)}
    share_rows: dict[str, list[SharePartitionRow]] = {}
    if states is not None:
        for v in states.view().share_partitions:
            counts: dict[str, int] = {}
            for b in v.state_batches:
                name = _DELIVERY_STATES.get(b.delivery_state, str(b.delivery_state))
                counts[name] = counts.get(name, 0) + b.last_offset - max(b.first_offset, v.start_offset) + 1
            share_rows.setdefault(v.group_id, []).append(SharePartitionRow(
                topic_names.get(v.topic_id, v.topic_id), v.partition, v.start_offset, v.state_epoch,
                v.leader_epoch, counts))

    classic_groups = {g.group_id: g for g in classic.view().groups}
    for group_id in sorted(classic_groups.keys() | {k for k, v in consumer_groups.items()
                                                     if kinds.get(k) == "consumer"}):
        if wanted and group_id not in wanted:
            continue
        g = classic_groups.get(group_id)
        kind = kinds.get(group_id, "classic" if g is not None and g.protocol_type is not None else "simple")
        if kind == "share":
            continue  # described below, from the share group coordinator
        offsets = () if g is None else tuple(
            OffsetRow(o.topic, o.partition, o.committed_offset, o.committed_leader_epoch, o.metadata)
            for o in g.offsets)
        if kind == "consumer":
            out.groups.append(_consumer_group(consumer_groups[group_id], home.get(group_id, -1),
                                              offsets, topic_names))
            continue
        assert g is not None
        members = tuple(MemberRow(m.member_id, m.client_id, m.client_host, m.group_instance_id,
                                  _assigned(m.assignment, g.protocol_type)) for m in g.members)
        out.groups.append(GroupDescription(
            group_id, kind, g.state, g.protocol_type, g.protocol_name,
            g.generation_id if kind == "classic" else None, home.get(group_id, -1), members, offsets))
    for group_id, s in share_views.items():
        if wanted and group_id not in wanted:
            continue
        members = tuple(MemberRow(m.member_id, m.client_id, m.client_host, None, tuple(
            f"{topic_names.get(tp.topic_id, tp.topic_id)}-{p}" for tp in m.assigned for p in tp.partitions),
            member_epoch=m.member_epoch) for m in s.members)
        out.groups.append(GroupDescription(
            group_id, "share", s.state, None, None, s.group_epoch, home.get(group_id, -1), members, (),
            tuple(sorted(share_rows.get(group_id, ()), key=lambda r: (r.topic, r.partition))),
            assignment_epoch=s.assignment_epoch))
    seen = {g.group_id for g in out.groups}
    for group_id in sorted(share_rows.keys() - seen):  # state with no group records given
        if not wanted or group_id in wanted:
            out.groups.append(GroupDescription(group_id, "share", None, None, None, None, -1, (), (),
                                               tuple(share_rows[group_id])))
    out.groups.sort(key=lambda g: g.group_id)
    classic.runtime.close()
    shares.runtime.close()
    if states is not None:
        states.runtime.close()
    return out


def _consumer_group(c: ConsumerGroupState, home: int, offsets: tuple[OffsetRow, ...],
                    names: dict[Any, str]) -> GroupDescription:
    """A KIP-848 group as ``kafka-consumer-groups.sh --describe --state --members`` shows it;
    topics by name where the log tells it (``ConsumerGroupState.known_names``)."""
    others: dict[uuid.UUID, str] = {}
    for topic_id, name in names.items():
        try:
            others[topic_id if isinstance(topic_id, uuid.UUID) else parse_topic_id(topic_id)] = name
        except InputError:
            continue
    known = c.known_names(others)
    members = tuple(MemberRow(
        m.member_id, m.client_id, m.client_host, m.instance_id, partition_names(m.assigned, known),
        m.member_epoch, MEMBER_STATES.get(m.state, str(m.state)),
        partition_names(c.targets.get(m.member_id, ()), known), partition_names(m.pending_revocation, known))
        for m in sorted(c.members.values(), key=lambda m: m.member_id))
    return GroupDescription(c.group_id, "consumer", c.state, "consumer", None, c.group_epoch, home,
                            members, offsets, assignment_epoch=c.assignment_epoch)


def _assigned(assignment: bytes, protocol_type: str | None) -> tuple[str, ...]:
    """A classic member's assignment as topic-partition names, when it is the consumer protocol's."""
    if protocol_type != "consumer" or not assignment:
        return ()
    try:
        decoded, _ = decode_assignment(assignment)
    except CodecError:
        return ("<assignment does not decode>",)
    return tuple(f"{tp.topic}-{p}" for tp in decoded.assigned_partitions for p in tp.partitions)

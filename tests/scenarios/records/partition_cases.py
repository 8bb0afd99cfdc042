"""Conformance vectors of partition directories (machine ``records``, handler ``decode_partition``):
the segment files of one partition of a coordinator topic, and the reading options, in; what
groupspec's library reader (``read_logs``, the loop of ``groupspec decode``) yields out.

These are the rules that only show across files or under an option (``decode_log`` reads one
buffer with fixed options): segments in base-offset order whatever order the directory lists
them, offsets that keep growing from one segment into the next (Kafka's ``LogSegment`` names a
file by the offset its first batch may hold, ``LogFileUtils.logFile``, 20 zero-padded digits),
the segments passed over when reading starts at an offset, the batch that straddles an end of
the offset range, the line limit, the group and type filters and their refusals, control
records, the consumer-protocol view, unknown record types (one warning per type) and what is
quarantined where. The bytes are groupspec's batch writer's
(:func:`groupspec.impl.codec.batch.encode_batch`, reused from log_cases.py), damaged by hand
where a case says so; expectations come from groupspec's reader (docs/machines/records.md).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from groupspec.types.records import OFFSETS_TOPIC, SHARE_STATE_TOPIC
from tests.scenarios.records.log_cases import (
    COMMIT_KEY,
    COMMIT_V3,
    GROUP_EMPTY_V3,
    GROUP_KEY,
    T0,
    _commit,
    _consumer_group,
    _ours,
    _transaction,
)


@dataclass(frozen=True)
class PartitionCase:
    case: str
    description: str
    #: Who wrote the bytes: "groupspec", or groupspec then damaged by hand.
    writer: str
    files: Callable[[], dict[str, bytes]]
    options: dict[str, Any] = field(default_factory=dict)
    topic: str = OFFSETS_TOPIC


def _name(base: int) -> str:
    return f"{base:020d}.log"


def _commits(base: int, count: int, group: str = "testgroup") -> bytes:
    """One batch of ``count`` commits from ``base`` on, each of its own partition."""
    return _ours(base, [_commit(base + i, group=group, partition=base + i) for i in range(count)])


def _three_segments() -> dict[str, bytes]:
    """Segments at 0, 3 and 6, each one batch of three commits: offsets 0-8 without a gap."""
    return {_name(b): _commits(b, 3) for b in (0, 3, 6)}


def _listed_out_of_order() -> dict[str, bytes]:
    """The later segment first (a directory lists names in no set order), next to an index file
    and the leftovers of the cleaner and of deletion, which are not segments."""
    return {_name(10): _commits(10, 2), "00000000000000000010.index": b"\x00" * 8,
            _name(2) + ".deleted": _commits(2, 1), _name(0) + ".cleaned": _commits(0, 1),
            _name(0): _commits(0, 2), "leader-epoch-checkpoint": b"0\n1\n0 0\n"}


def _overlap() -> dict[str, bytes]:
    """Segment 3 starts with a batch at offset 2, which segment 0 already holds (offsets 0-3)."""
    return {_name(0): _commits(0, 4), _name(3): _commits(2, 2) + _commits(4, 1)}


def _before_base() -> dict[str, bytes]:
    """Segment 10's first batch is at offset 9: one before the offset its name says it starts at."""
    return {_name(0): _commits(0, 2), _name(10): _commits(9, 1) + _commits(10, 1)}


def _overlap_at_base() -> dict[str, bytes]:
    """Segment 0 holds offsets 0-3; segment 3 starts with a batch at offset 3, its own base."""
    return {_name(0): _commits(0, 4), _name(3): _commits(3, 1) + _commits(4, 1)}


def _gap_before_base() -> dict[str, bytes]:
    """Segment 0 ends at offset 8; segment 10 starts with a batch at 9, one before its base."""
    return {_name(0): _commits(0, 9), _name(10): _commits(9, 1) + _commits(10, 1)}


def _first_before_base() -> dict[str, bytes]:
    """The only segment is named 1 (the log's start moved past offset 0), and its first batch is
    at offset 0."""
    return {_name(1): _commits(0, 1) + _commits(1, 1)}


def _two_segments() -> dict[str, bytes]:
    return {_name(0): _commits(0, 3), _name(3): _commits(3, 3)}


def _highest_offset() -> dict[str, bytes]:
    """A segment holding the highest offset an int64 allows, 2^63-1, in a batch of one record."""
    top = (1 << 63) - 1
    return {_name(0): _commits(0, 1),
            _name(top - 1): _ours(top - 1, [_commit(0, partition=1)]) + _ours(top, [_commit(0, partition=2)])}


def _long_group() -> dict[str, bytes]:
    """GroupMetadata tombstones of a group name of 513 bytes (its length field 0x0201) and of a
    short one: a reader that started the key one byte late would find a length of 0x0202 there,
    which the bytes left also fit."""
    from groupspec.impl.codec.records import encode_key
    from groupspec.types.records import GroupMetadataKey

    long_key = encode_key(GroupMetadataKey(group="q" * 513))
    return {_name(0): _ours(0, [(long_key, None), (GROUP_KEY, None)])}


def _torn_later_segment() -> dict[str, bytes]:
    """A torn tail at the end of a segment whose base offset is not 0, then the next segment."""
    cut = _commits(11, 2)
    return {_name(0): _commits(0, 2), _name(10): _commits(10, 1) + cut[: len(cut) - 9],
            _name(13): _commits(13, 1)}


def _unframeable_first() -> dict[str, bytes]:
    """Segment 0's second batch has a length below the minimum: its rest is unreadable, segment 2
    is read."""
    bad = bytearray(_commits(1, 1))
    struct.pack_into(">i", bad, 8, 20)
    return {_name(0): _commits(0, 1) + bytes(bad), _name(2): _commits(2, 1)}


def _text_segment() -> dict[str, bytes]:
    """A text file named like a segment, between two segments."""
    return {_name(0): _commits(0, 1), _name(1): b"not a segment, a note someone left\n",
            _name(2): _commits(2, 1)}


def _groups_and_types() -> dict[str, bytes]:
    """Commits of two groups, a group's metadata and a tombstone, over two segments."""
    return {_name(0): _ours(0, [_commit(0, group="g1"), _commit(1, group="g2"), (GROUP_KEY, GROUP_EMPTY_V3)]),
            _name(3): _ours(3, [(COMMIT_KEY, None), _commit(4, group="g1", partition=4),
                                (COMMIT_KEY, COMMIT_V3)])}


def _unknown_types() -> dict[str, bytes]:
    """Type 256 three times and type 300 twice, across two segments, around known records."""
    t256 = bytes.fromhex("0100") + COMMIT_KEY[2:]
    t300 = bytes.fromhex("012c") + COMMIT_KEY[2:]
    return {_name(0): _ours(0, [(t256, COMMIT_V3), _commit(1), (t256, None), (t300, b"\x00\x00")]),
            _name(4): _ours(4, [(t300, None), (t256, COMMIT_V3), _commit(6)])}


def _bad_record_between() -> dict[str, bytes]:
    """A commit whose value is cut short between two good ones, then a second segment."""
    key, value = _commit(1)
    return {_name(0): _ours(0, [_commit(0), (key, value[:-3]), _commit(2)]), _name(3): _commits(3, 1)}


def _bytes_left_over() -> dict[str, bytes]:
    """A commit whose key has a byte after its partition, one whose value has a byte after its
    timestamp, then a good commit: the first two quarantined, not read as if the byte were not there."""
    key, value = _commit(1, partition=1)
    return {_name(0): _ours(0, [(COMMIT_KEY + b"\x00", COMMIT_V3), (key, value + b"\x00"), _commit(2)])}


def _transactions() -> dict[str, bytes]:
    """A transaction's records and its COMMIT marker in segment 0, more records in segment 4."""
    return {_name(0): _transaction("COMMIT")(), _name(4): _commits(4, 1)}


def _bad_control() -> dict[str, bytes]:
    """A control batch whose one record's value is a single byte (a marker needs six)."""
    from groupspec.impl.codec.batch import Record, encode_batch

    rec = Record(0, T0, struct.pack(">hh", 0, 1), b"\x00")
    return {_name(0): encode_batch([rec], is_transactional=True, is_control=True, producer_id=9,
                                   producer_epoch=0) + _commits(1, 1)}


def _two_markers() -> dict[str, bytes]:
    """Commits at 0 and 1, then one control batch holding two COMMIT markers (offsets 2 and 3; a
    broker writes one marker a batch, a reader must still take each record as it comes), then 4."""
    from groupspec.impl.codec.batch import Record, encode_batch

    marker = struct.pack(">hi", 0, 11)
    records = [Record(2 + i, T0 + i, struct.pack(">hh", 0, 1), marker) for i in range(2)]
    control = encode_batch(records, base_offset=2, is_transactional=True, is_control=True, producer_id=9,
                           producer_epoch=0)
    return {_name(0): _ours(0, [_commit(0), _commit(1, partition=1)], is_transactional=True, producer_id=9,
                            producer_epoch=0) + control + _commits(4, 1)}


def _compressed() -> dict[str, bytes]:
    """A gzip batch of three commits (about 300 bytes decompressed), then a plain batch."""
    from groupspec.impl.codec.compression import Compression

    return {_name(0): _ours(0, [_commit(i, partition=i) for i in range(3)], compression=Compression.GZIP)
            + _commits(3, 1)}


def _consumer() -> dict[str, bytes]:
    return {_name(0): _consumer_group()}


def _single() -> dict[str, bytes]:
    return {_name(0): _commits(0, 3) + _commits(3, 3)}


def _nothing() -> dict[str, bytes]:
    return {"00000000000000000000.index": b"\x00" * 8}


PARTITION_CASES: tuple[PartitionCase, ...] = (
    PartitionCase("partition_segments_in_offset_order", "segment 10 listed before segment 0, next to an "
                  "index file, a checkpoint and .deleted/.cleaned leftovers: the two segments read in "
                  "base-offset order, nothing else read", "groupspec", _listed_out_of_order),
    PartitionCase("partition_three_segments", "segments 0, 3 and 6 of three commits each: nine records, "
                  "offsets continuing across files", "groupspec", _three_segments),
    PartitionCase("partition_overlapping_segments", "segment 3 starting with a batch at offset 2, which "
                  "segment 0 holds: offsets going back across files", "groupspec", _overlap),
    PartitionCase("partition_batch_before_segment_base", "segment 10 starting with a batch at offset 5: "
                  "before the offset its name gives", "groupspec", _before_base),
    PartitionCase("partition_overlap_at_segment_base", "segment 3 starting with a batch at offset 3, which "
                  "segment 0 holds too: refused, offset 4 read", "groupspec", _overlap_at_base),
    PartitionCase("partition_gap_then_batch_before_base", "segment 0 ending at 8, segment 10 starting with "
                  "a batch at 9: refused (before the segment's base), offset 10 read", "groupspec",
                  _gap_before_base),
    PartitionCase("partition_first_segment_batch_before_base", "the only segment, named 1, starting "
                  "with a batch at offset 0: a bad batch, then offset 1 read", "groupspec",
                  _first_before_base),
    PartitionCase("partition_highest_offset", "a batch at offset 2^63-1, the highest there is: read with "
                  "no offsetEnd", "groupspec", _highest_offset),
    PartitionCase("partition_long_group_name", "GroupMetadata tombstones of a 513-byte group and of "
                  "testgroup, read whole and with a group filter", "groupspec", _long_group),
    PartitionCase("partition_long_group_name_filtered", "the 513-byte group's tombstone found by a group "
                  "filter", "groupspec", _long_group, {"groups": ["q" * 513]}),
    PartitionCase("partition_topic_option_overrides_directory", "topic __share_group_state given for "
                  "the directory __consumer_offsets-0: a warning, and the records read as share-state "
                  "records (OffsetCommit's type id 1 is ShareUpdate there)", "groupspec", _single,
                  {"topic": "__share_group_state"}),
    PartitionCase("partition_topic_option_overrides_share_directory", "topic __consumer_offsets given for "
                  "the directory __share_group_state-0: a warning, the commits read as commits", "groupspec",
                  _single, {"topic": "__consumer_offsets"}, topic=SHARE_STATE_TOPIC),
    PartitionCase("partition_topic_option_same_as_directory", "topic __consumer_offsets given for its own "
                  "directory: no warning", "groupspec", _single, {"topic": "__consumer_offsets"}),
    PartitionCase("partition_torn_tail_in_later_segment", "a torn tail at the end of segment 10, then "
                  "segment 13 read", "groupspec, cut by hand", _torn_later_segment),
    PartitionCase("partition_unframeable_rest_then_next_segment", "segment 0's second batch has length "
                  "20: the rest of that file is quarantined, segment 2 read",
                  "groupspec, damaged by hand", _unframeable_first),
    PartitionCase("partition_text_file_named_like_a_segment", "a text file named 00000000000000000001.log "
                  "between two segments: quarantined as unreadable, the next segment read",
                  "groupspec and by hand", _text_segment),
    PartitionCase("partition_no_segments", "a directory holding an index file only: a warning, nothing "
                  "read", "by hand", _nothing),
    PartitionCase("partition_offset_start_at_segment_base", "offsetStart 3 (segment 3's base): segment 0 "
                  "passed over unread", "groupspec", _three_segments, {"offsetStart": 3}),
    PartitionCase("partition_offset_start_inside_segment", "offsetStart 4: segment 0 passed over, the "
                  "batch 3-5 straddling the start prints offsets 4 and 5", "groupspec", _three_segments,
                  {"offsetStart": 4}),
    PartitionCase("partition_offset_start_before_next_base", "offsetStart 2: no segment passed over (segment "
                  "0 holds offset 2), offsets 0 and 1 filtered", "groupspec", _three_segments,
                  {"offsetStart": 2}),
    PartitionCase("partition_offset_start_two_segments", "offsetStart 4 over segments 0 and 3: segment 0 "
                  "passed over", "groupspec", _two_segments, {"offsetStart": 4}),
    PartitionCase("partition_offset_start_one_segment", "offsetStart 4 over one segment of two batches: "
                  "nothing passed over, offsets 0-3 filtered", "groupspec", _single, {"offsetStart": 4}),
    PartitionCase("partition_offset_end_inside_batch", "offsetEnd 4: offsets 0-4 printed, 5 filtered, and "
                  "segment 6 left unread", "groupspec", _three_segments, {"offsetEnd": 4}),
    PartitionCase("partition_offset_end_at_batch_base", "offsetEnd 3: the batch 3-5 starting at the end "
                  "prints offset 3, segment 6 left unread", "groupspec", _three_segments, {"offsetEnd": 3}),
    PartitionCase("partition_offset_end_at_batch_end", "offsetEnd 5: the batch 3-5 printed whole, segment 6 "
                  "left unread", "groupspec", _three_segments, {"offsetEnd": 5}),
    PartitionCase("partition_offset_range_one_offset", "offsetStart 4, offsetEnd 4: offset 4 alone",
                  "groupspec", _three_segments, {"offsetStart": 4, "offsetEnd": 4}),
    PartitionCase("partition_offset_range_batch_view", "the batch view from offset 4 to 6: the batches "
                  "3-5 and 6-8 that hold offsets in range", "groupspec", _three_segments,
                  {"batches": True, "offsetStart": 4, "offsetEnd": 6}),
    PartitionCase("partition_offset_start_after_end", "offsetStart 5 after offsetEnd 4: refused",
                  "groupspec", _three_segments, {"offsetStart": 5, "offsetEnd": 4}),
    PartitionCase("partition_limit_across_segments", "limit 4: three records of segment 0 and one of "
                  "segment 3, then reading stops", "groupspec", _three_segments, {"limit": 4}),
    PartitionCase("partition_limit_one", "limit 1: the first record only", "groupspec", _three_segments,
                  {"limit": 1}),
    PartitionCase("partition_limit_batch_view", "limit 2 in the batch view: two batches", "groupspec",
                  _three_segments, {"batches": True, "limit": 2}),
    PartitionCase("partition_limit_at_quarantined_record", "limit 2 where the second line is a "
                  "quarantined record", "groupspec, damaged by hand", _bad_record_between, {"limit": 2}),
    PartitionCase("partition_limit_after_quarantined_record", "limit 3: a record, a quarantined one, "
                  "then the third line the record after it", "groupspec, damaged by hand",
                  _bad_record_between,
                  {"limit": 3}),
    PartitionCase("partition_batch_view_start_at_batch_end", "the batch view from offset 2: the batch 0-2 "
                  "ends there and is printed", "groupspec", _single, {"batches": True, "offsetStart": 2}),
    PartitionCase("partition_batch_view_start_after_batch", "the batch view from offset 3: the batch 0-2 "
                  "filtered", "groupspec", _single, {"batches": True, "offsetStart": 3}),
    PartitionCase("partition_limit_zero", "limit 0: refused", "groupspec", _three_segments, {"limit": 0}),
    PartitionCase("partition_raw_bytes_base32", "rawBytes base32, neither hex nor base64: refused "
                  "before anything is read", "groupspec", _three_segments, {"rawBytes": "base32"}),
    PartitionCase("partition_group_filter", "group g1: its two commits printed, the rest filtered",
                  "groupspec", _groups_and_types, {"groups": ["g1"]}),
    PartitionCase("partition_group_filter_metadata", "group testgroup: its metadata, commits and tombstone",
                  "groupspec", _groups_and_types, {"groups": ["testgroup"]}),
    PartitionCase("partition_type_filter_by_name", "type GroupMetadata (by name, any case): one record",
                  "groupspec", _groups_and_types, {"types": ["groupmetadata"]}),
    PartitionCase("partition_type_filter_by_id", "types 1 and 2 by id", "groupspec", _groups_and_types,
                  {"types": ["1", " 2 "]}),
    PartitionCase("partition_type_and_group_filter", "type OffsetCommit of group g1", "groupspec",
                  _groups_and_types, {"types": ["OffsetCommit"], "groups": ["g1"]}),
    PartitionCase("partition_type_unknown_name", "type Nonsense: refused", "groupspec", _groups_and_types,
                  {"types": ["Nonsense"]}),
    PartitionCase("partition_type_unknown_id", "type id 99: refused", "groupspec", _groups_and_types,
                  {"types": ["99"]}),
    PartitionCase("partition_type_negative_id", "type id -1: refused", "groupspec", _groups_and_types,
                  {"types": ["-1"]}),
    PartitionCase("partition_batch_view_with_group", "the batch view with a group filter: refused",
                  "groupspec", _groups_and_types, {"batches": True, "groups": ["g1"]}),
    PartitionCase("partition_batch_view_with_type", "the batch view with a type filter: refused",
                  "groupspec", _groups_and_types, {"batches": True, "types": ["1"]}),
    PartitionCase("partition_unknown_types_warned_once", "types 256 and 300 across two segments: skipped, "
                  "one warning per type at its first offset", "groupspec", _unknown_types),
    PartitionCase("partition_unknown_types_filtered", "a type filter does not hide unknown types: still "
                  "skipped and warned", "groupspec", _unknown_types, {"types": ["OffsetCommit"]}),
    PartitionCase("partition_quarantined_base64", "a quarantined record with raw bytes in base64",
                  "groupspec, damaged by hand", _bad_record_between, {"rawBytes": "base64"}),
    PartitionCase("partition_bytes_left_after_key_or_value", "a byte left after a commit's key, one after "
                  "another's value: both quarantined, then a good commit", "groupspec, damaged by hand",
                  _bytes_left_over),
    PartitionCase("partition_bytes_left_with_group_filter", "the same read with a group filter",
                  "groupspec, damaged by hand", _bytes_left_over, {"groups": ["testgroup"]}),
    PartitionCase("partition_strict_bad_record", "strict: the bad record ends the read with its error",
                  "groupspec, damaged by hand", _bad_record_between, {"strict": True}),
    PartitionCase("partition_strict_unframeable", "strict: bytes that cannot be framed end the read",
                  "groupspec, damaged by hand", _unframeable_first, {"strict": True}),
    PartitionCase("partition_strict_bad_control", "strict: a control record that does not decode ends "
                  "the read", "groupspec", _bad_control, {"strict": True, "control": True}),
    PartitionCase("partition_bad_control_quarantined", "a control record that does not decode: "
                  "quarantined", "groupspec", _bad_control, {"control": True}),
    PartitionCase("partition_control_hidden", "without control: the COMMIT marker filtered",
                  "groupspec", _transactions),
    PartitionCase("partition_control_shown", "with control: the COMMIT marker printed", "groupspec",
                  _transactions, {"control": True}),
    PartitionCase("partition_control_outside_range", "with control from offset 3: the marker at offset 2 "
                  "filtered", "groupspec", _transactions, {"control": True, "offsetStart": 3}),
    PartitionCase("partition_control_past_end", "with control up to offset 1: reading stops at the "
                  "marker's batch (offset 2), the next segment unread", "groupspec", _transactions,
                  {"control": True, "offsetEnd": 1, "offsetStart": 0}),
    PartitionCase("partition_control_batch_straddling_end", "with control up to offset 2: of a control "
                  "batch of two markers (offsets 2 and 3), the first printed and the second filtered",
                  "groupspec", _two_markers, {"control": True, "offsetEnd": 2}),
    PartitionCase("partition_control_batch_straddling_start", "with control from offset 3: of a control "
                  "batch of two markers (offsets 2 and 3), the second printed", "groupspec", _two_markers,
                  {"control": True, "offsetStart": 3}),
    PartitionCase("partition_consumer_protocol_off", "a consumer group's members with the consumer "
                  "protocol left undecoded", "groupspec", _consumer, {"consumerProtocol": False}),
    PartitionCase("partition_consumer_protocol_group", "a consumer group's members decoded, read with a "
                  "group filter", "groupspec", _consumer, {"groups": ["g"]}),
    PartitionCase("partition_max_batch_bytes", "maxBatchBytes 100: the gzip batch decompressing to more "
                  "is a bad batch, the next read", "groupspec", _compressed, {"maxBatchBytes": 100}),
    PartitionCase("partition_max_batch_bytes_room", "maxBatchBytes 100000: the gzip batch read",
                  "groupspec", _compressed, {"maxBatchBytes": 100000}),
)


def partition_vector_docs(cases: tuple[PartitionCase, ...] = PARTITION_CASES) -> Iterator[dict[str, Any]]:
    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.records_partition import decode_partition_answer
    from groupspec.conformance.targets import error_kind

    for c in cases:
        doc_input: dict[str, Any] = {"topic": c.topic, "files": {n: b.hex() for n, b in c.files().items()}}
        if c.options:
            doc_input["options"] = c.options
        try:
            expected: dict[str, Any] = decode_partition_answer(doc_input)
        except Exception as exc:  # the reader's refusal is the expectation
            expected = {"error": error_kind(exc)}
        yield {
            "format": vf.FORMAT_VERSION, "machine": "records", "handler": "decode_partition",
            "case": c.case, "description": c.description,
            "source": {"kind": "generated", "ref": f"bytes written by {c.writer}"},
            "mode": "exact", "properties": [], "input": doc_input,
            "expected": expected, "expected_kafka": expected,
        }

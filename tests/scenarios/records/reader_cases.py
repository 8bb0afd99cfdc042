"""Conformance vectors of the log reader's edges (machine ``records``, handler ``decode_partition``):
the bound on what one batch may decompress to, met exactly and passed by one byte, for each codec
and each way groupspec reads it (gzip members, a raw snappy block's declared length, xerial
chunks, lz4 and zstd frames), and records whose bytes are laid out so that a reader starting a
field one byte early or late would still find a well-formed record and print the wrong one.

``maxBatchBytes`` is groupspec's own guard (docs/machines/records.md): Kafka bounds a batch on the
wire, not what it decompresses to. A batch whose records section is at most the bound is read;
one byte more is a bad batch of kind ``DecompressionLimit`` (a bad stream is ``Compression``).
The sizes are exact: each case builds its records section to a chosen length (a commit's metadata
string padded), and the description says why that length (for snappy, the varint the block
starts with). The bytes are groupspec's batch writer's
(:func:`groupspec.impl.codec.batch.encode_batch`) unless a case says it put a payload in by hand.

The odd layouts are valid coordinator records as Kafka's generated readers read them (a string
may hold any UTF-8, NUL included); expectations come from groupspec's reader.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from typing import Any

from tests.scenarios.records.log_cases import T0, _commit, _ours, _recrc
from tests.scenarios.records.partition_cases import PartitionCase, _commits, _name

#: Bytes of a v2 batch before its records section.
_OVERHEAD = 61


def _meta_commit(offset: int, metadata: str, leader_epoch: int = 7) -> tuple[bytes, bytes]:
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import OffsetCommitKey, OffsetCommitValue

    key = encode_key(OffsetCommitKey(group="testgroup", topic="orders", partition=offset))
    value = encode_value(OffsetCommitValue(offset=12345, leader_epoch=leader_epoch, metadata=metadata,
                                           commit_timestamp=T0 + offset), 3)
    return key, value


def _section_of(size: int) -> list[tuple[bytes | None, bytes | None]]:
    """Records whose records section (as written uncompressed) is exactly ``size`` bytes: one of
    type id 256 (unknown: skipped, nothing printed) holding zeros, then one commit."""
    from tests.scenarios.records.log_cases import COMMIT_KEY

    unknown = bytes.fromhex("0100") + COMMIT_KEY[2:]
    for pad in range(max(0, size - 200), size):
        pairs: list[tuple[bytes | None, bytes | None]] = [(unknown, bytes(pad)), _commit(1)]
        got = len(_ours(0, pairs)) - _OVERHEAD
        if got == size:
            return pairs
        if got > size:
            break
    raise AssertionError(f"no records section of exactly {size} bytes")


def _sized(codec: str, size: int) -> Callable[[], dict[str, bytes]]:
    """Segment 0: a ``codec`` batch whose records section is ``size`` bytes (offsets 0 and 1), then a
    plain batch (offset 2)."""
    def files() -> dict[str, bytes]:
        from groupspec.impl.codec.compression import Compression

        pairs = _section_of(size)
        first = _ours(0, pairs, compression=Compression[codec.upper()])
        return {_name(0): first + _commits(len(pairs), 1)}
    return files


def _payload(base: int, codec_id: int, payload: bytes) -> bytes:
    """A one-commit batch at ``base`` whose records section is replaced by ``payload`` under
    compression id ``codec_id`` (length and CRC written again)."""
    batch = bytearray(_ours(base, [_commit(base)]))
    batch[_OVERHEAD:] = payload
    struct.pack_into(">i", batch, 8, len(batch) - 12)
    (attributes,) = struct.unpack_from(">h", batch, 21)
    struct.pack_into(">h", batch, 21, (attributes & ~0x07) | codec_id)
    return _recrc(batch)


def _snappy_lengths() -> dict[str, bytes]:
    """Two raw snappy payloads (no xerial header) whose first bytes are not a block length: five
    bytes with the continuation bit then 0x01 (a length of six varint bytes), and 0x80 x4 then
    0x01 (2^28 bytes declared, more than the default bound), then a plain batch."""
    return {_name(0): _payload(0, 2, b"\x80" * 5 + b"\x01" + b"\x00" * 8)
            + _payload(1, 2, b"\x80" * 4 + b"\x01" + b"\x00" * 8) + _commits(2, 1)}


def _xerial_ends(tail: int) -> dict[str, bytes]:
    """Snappy batches of one commit each, their xerial streams concatenated with a copy of
    themselves (as a broker may join producers' streams) whose header is cut to ``tail`` bytes,
    then a plain batch."""
    from groupspec.impl.codec.compression import Compression, compress

    def batch(base: int) -> bytes:
        stream = compress(Compression.SNAPPY, _ours(base, [_commit(base)])[_OVERHEAD:])
        return _payload(base, 2, stream + stream[:tail])
    return {_name(0): batch(0) + _commits(1, 1)}


def _magic_three() -> dict[str, bytes]:
    """A batch, then one whose magic byte says 3 (no such format; its header otherwise v2's),
    then a batch."""
    bad = bytearray(_commits(1, 1))
    bad[16] = 3
    return {_name(0): _commits(0, 1) + _recrc(bad) + _commits(2, 1)}


def _group_tombstone_late() -> dict[str, bytes]:
    """A GroupMetadata tombstone whose group is NUL then 256 'g's (257 bytes, length 0x0101): read
    one byte late, the length is 0x0100 and the 256 'g's are a group that ends where the key ends."""
    from groupspec.impl.codec.records import encode_key
    from groupspec.types.records import GroupMetadataKey

    key = encode_key(GroupMetadataKey(group="\x00" + "g" * 256))
    return {_name(0): _ours(0, [(key, None), _commit(1)])}


def _commit_values_shifted() -> dict[str, bytes]:
    """OffsetCommit v3 values laid out to parse from a shifted start: metadata of NUL then 256 'm's
    (length 0x0101: read one byte late, 0x0100 and the rest lines up), and leader epoch 1 with 256
    bytes of metadata (length 0x0100: read one byte early, the epoch's last byte and the length's
    first make 0x0101 and the rest lines up)."""
    late = _meta_commit(0, "\x00" + "m" * 256)
    early = _meta_commit(1, "m" * 256, leader_epoch=1)
    return {_name(0): _ours(0, [late, early, _commit(2)])}


def _group_values_shifted() -> dict[str, bytes]:
    """GroupMetadata v3 values (read through the consumer-protocol path) laid out to parse from a
    shifted start: protocol type NUL then 256 'p's (length 0x0101), and protocol type of 770 'p's
    (length 0x0302: read one byte early, the version's last byte 3 and 0x03 make 0x0303)."""
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import GroupMetadataKey, GroupMetadataValue

    def group(name: str, protocol_type: str) -> tuple[bytes, bytes]:
        value = GroupMetadataValue(protocol_type=protocol_type, generation=5, protocol="range",
                                   leader=None, current_state_timestamp=T0, members=())
        return encode_key(GroupMetadataKey(group=name)), encode_value(value, 3)

    return {_name(0): _ours(0, [group("late", "\x00" + "p" * 256), group("early", "p" * 770), _commit(2)])}


#: (case, description, files, options)
_CASES: tuple[tuple[str, str, Callable[[], dict[str, bytes]], dict[str, Any]], ...] = (
    ("max_batch_bytes_lz4_exact_first_buffer", "maxBatchBytes 65536, an lz4 batch of exactly 65536 "
     "bytes decompressed (a reader's first buffer of 64 KiB filled, the bound met, not passed): read",
     _sized("lz4", 65536), {"maxBatchBytes": 65536}),
    ("max_batch_bytes_lz4_one_over_after_growth", "maxBatchBytes 100000, an lz4 batch of 100001 bytes "
     "decompressed (past a first buffer of 64 KiB): a bad batch, DecompressionLimit, then the next "
     "batch read", _sized("lz4", 100001), {"maxBatchBytes": 100000}),
    ("max_batch_bytes_lz4_one_over_small", "maxBatchBytes 299, an lz4 batch of 300 bytes decompressed: "
     "a bad batch, DecompressionLimit", _sized("lz4", 300), {"maxBatchBytes": 299}),
    ("max_batch_bytes_lz4_zero", "maxBatchBytes 0, an lz4 batch: a bad batch, DecompressionLimit",
     _sized("lz4", 300), {"maxBatchBytes": 0}),
    ("max_batch_bytes_zstd_exact", "maxBatchBytes 300, a zstd batch of exactly 300 bytes "
     "decompressed: read", _sized("zstd", 300), {"maxBatchBytes": 300}),
    ("max_batch_bytes_zstd_one_over", "maxBatchBytes 299, a zstd batch of 300 bytes decompressed: a bad "
     "batch, DecompressionLimit", _sized("zstd", 300), {"maxBatchBytes": 299}),
    ("max_batch_bytes_gzip_exact", "maxBatchBytes 300, a gzip batch of exactly 300 bytes "
     "decompressed: read", _sized("gzip", 300), {"maxBatchBytes": 300}),
    ("max_batch_bytes_snappy_exact", "maxBatchBytes 16300, a snappy (xerial) batch of exactly 16300 "
     "bytes decompressed, its block declaring the varint AC 7F: read", _sized("snappy", 16300),
     {"maxBatchBytes": 16300}),
    ("max_batch_bytes_snappy_one_over", "maxBatchBytes 16299, the snappy batch of 16300 bytes (varint "
     "AC 7F): a bad batch, DecompressionLimit, refused from the declared length",
     _sized("snappy", 16300), {"maxBatchBytes": 16299}),
    ("max_batch_bytes_snappy_one_over_length_80_7f", "maxBatchBytes 16255, a snappy batch of 16256 "
     "bytes, its block declaring the varint 80 7F (a first byte of continuation bit only): a bad "
     "batch, DecompressionLimit", _sized("snappy", 16256), {"maxBatchBytes": 16255}),
    ("snappy_block_length_varint_widths", "raw snappy payloads put in by hand: a block length of six "
     "varint bytes (Compression: at most five), then one of five declaring 2^28 bytes "
     "(DecompressionLimit under the default bound), then a plain batch", _snappy_lengths, {}),
    ("snappy_repeated_header_at_the_end", "a snappy batch whose xerial stream ends with a second "
     "stream header, whole (16 bytes) and no chunk after it: read (snappy-java's SnappyInputStream "
     "checks the header, then finds no next chunk)", lambda: _xerial_ends(16), {}),
    ("snappy_repeated_header_cut_short", "a snappy batch whose xerial stream ends with a second stream "
     "header cut to 12 bytes: a bad batch, Compression (snappy-java: \"Insufficient header size in a "
     "concatenated block\"), then the next batch read", lambda: _xerial_ends(12), {}),
    ("batch_view_magic_three", "the batch view over a batch of magic 3 between two good ones: a bad "
     "batch, UnsupportedMagic, shown with its position, size and magic only (its header is not v2's "
     "to print)",
     _magic_three, {"batches": True}),
    ("key_laid_out_for_a_late_start", "a GroupMetadata tombstone of group NUL + 256 'g's (length "
     "0x0101), which also parses when read from one byte late: printed as written", _group_tombstone_late,
     {}),
    ("key_laid_out_for_a_late_start_group_filter", "the same tombstone found by a group filter naming "
     "its whole group", _group_tombstone_late, {"groups": ["\x00" + "g" * 256]}),
    ("commit_values_laid_out_for_shifted_starts", "OffsetCommit v3 values that also parse from one "
     "byte late (metadata NUL + 256 'm's) and one byte early (leader epoch 1, 256 bytes of metadata): "
     "printed as written", _commit_values_shifted, {}),
    ("group_values_laid_out_for_shifted_starts", "GroupMetadata v3 values (the consumer-protocol "
     "path) that also parse from one byte late (protocol type NUL + 256 'p's) and one byte early "
     "(protocol type of 770 bytes): printed as written", _group_values_shifted, {}),
)

READER_CASES: tuple[PartitionCase, ...] = tuple(
    PartitionCase(f"partition_{name}", description,
                  "groupspec, damaged by hand" if name.startswith(("snappy_", "batch_view")) else "groupspec",
                  files, options)
    for name, description, files, options in _CASES)


def reader_vector_docs() -> Iterator[dict[str, Any]]:
    from tests.scenarios.records.partition_cases import partition_vector_docs

    yield from partition_vector_docs(READER_CASES)

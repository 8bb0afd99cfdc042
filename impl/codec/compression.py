"""The five compression codecs of a record batch, written the way Kafka's Java clients write them.

A v2 batch compresses its records section as one unit; the codec is the low three bits of the
batch attributes. The compressed formats are standard, but Kafka frames two of them its own way,
and a reader has to accept what real brokers and clients wrote:

- GZIP (1): a gzip stream (RFC 1952, not a bare zlib stream). Java's ``GZIPOutputStream`` writes
  a 10-byte header with no name and mtime 0; the reader accepts several concatenated members, as
  ``GZIPInputStream`` does, and checks each member's CRC-32 and length.
- SNAPPY (2): Kafka wraps snappy in xerial's ``SnappyOutputStream`` framing: the 8-byte magic
  ``82 'SNAPPY' 00``, two big-endian int32s (version 1, compatible version 1), then chunks of
  big-endian int32 length + raw snappy block, each holding at most 32 KiB of input. Like xerial's
  reader we also take a plain raw snappy block (other clients write that) and a magic header
  repeated between chunks (concatenated streams). The two int32s after the magic are not checked:
  some producers write them little-endian.
- LZ4 (3): the LZ4 frame format as Kafka's ``Lz4BlockOutputStream`` writes it: FLG ``0x60``
  (version 1, independent blocks, no block checksum, no content size, no content checksum),
  BD ``0x40`` (64 KiB blocks), a correct header checksum, blocks that do not shrink stored raw,
  and the end mark. The reader accepts any valid frame (content size, checksums, linked blocks).
  Kafka clients before 0.10 computed the header checksum over the magic number as well; Kafka
  only forgives that for magic-0 messages (``Lz4BlockInputStream``'s ignoreFlagDescriptorChecksum
  is set for magic 0 only, clients/.../compress/Lz4Compression.java), so a v2 batch with that
  checksum is refused here too.
- ZSTD (4): zstd frames as zstd-jni's streaming encoder writes them, without a content size;
  cramjam decodes those (``zstandard.decompress`` does not) and concatenated frames.

Levels follow Kafka 4.x defaults (gzip 6, lz4 9 (the high-compression encoder), zstd 3), so that
compressed sizes are close to Kafka's. The bytes need not be identical and nothing depends on it,
though the gzip ones were (checked once against JDK 17's ``GZIPOutputStream`` wrapped as Kafka's
``GzipCompression`` wraps it, same system zlib).

Memory bound: :func:`decompress` never produces (nor allocates for) more than ``limit`` bytes,
:data:`DEFAULT_MAX_BATCH_BYTES` unless the caller says otherwise. A small batch can hold a
decompression bomb (a few KB of zstd or lz4 expand to gigabytes; a snappy block declares its own
output size, up to 4 GiB, and the library allocates that before it looks further), so each codec
is bounded before or while it produces output: gzip through zlib's ``max_length``, snappy by the
length every raw block declares up front (summed over xerial chunks) checked before that block is
decompressed, lz4 and zstd by decompressing into a buffer of bounded size (first a small one,
grown up to ``limit + 1`` bytes while the output does not fit). Output beyond the limit is a
:class:`~groupspec.impl.codec.errors.DecompressionLimitError`.

API: :class:`Compression`, :func:`compress`, :func:`decompress`. Every failure is a
:class:`~groupspec.impl.codec.errors.CompressionError`.
"""

from __future__ import annotations

import struct
import zlib
from enum import IntEnum
from typing import Any

import cramjam

from groupspec.impl.codec.errors import CompressionError, DecompressionLimitError

Buffer = bytes | bytearray | memoryview


class Compression(IntEnum):
    """Kafka's compression codec ids (``CompressionType``), the low 3 bits of batch attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4

    @classmethod
    def of(cls, codec_id: int) -> Compression:
        """The codec with this id; ids 5-7 fit in the attribute bits but name no codec."""
        try:
            return cls(codec_id)
        except ValueError:
            raise CompressionError(f"unknown compression codec id {codec_id} (known: 0-4)") from None


#: The default bound on a batch's decompressed records section: 64 MiB. Kafka bounds a batch on
#: the wire (``message.max.bytes``, 1,048,588 bytes by default; the coordinators' own writes stay
#: under it uncompressed too) but not what it decompresses to; 64 times the wire default leaves
#: room for any real compression ratio of coordinator records. ``decode --max-batch-bytes`` raises it.
DEFAULT_MAX_BATCH_BYTES = 64 * 1024 * 1024
#: The first output buffer for lz4 and zstd: this many times the compressed size (at least 64 KiB).
_FIRST_GUESS_RATIO = 16
_FIRST_GUESS_MIN = 64 * 1024
_BUFFER_FULL = "failed to write whole buffer"  # cramjam's message when the output does not fit

GZIP_LEVEL = 6
LZ4_LEVEL = 9
ZSTD_LEVEL = 3

# xerial's stream header: marker byte, "SNAPPY", NUL, then version 1 and compatible version 1.
_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = _XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK = 32 * 1024

# LZ4 frame header as Kafka writes it: magic 0x184D2204 (little-endian), FLG 0x60, BD 0x40, and
# the header checksum, byte 1 of xxHash32(FLG BD, seed 0) = 0x82 (checked against python-lz4 in
# the tests).
_LZ4_HEADER = b"\x04\x22\x4d\x18\x60\x40\x82"
_LZ4_BLOCK = 64 * 1024
_LZ4_UNCOMPRESSED = 0x80000000
_LZ4_END_MARK = b"\x00\x00\x00\x00"

# Java's GZIPOutputStream header: magic, deflate, no flags, mtime 0, no extra flags, OS 255 (JDK 16+).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"


def compress(codec: Compression, data: Buffer) -> bytes:
    """``data`` compressed the way a Kafka producer compresses a batch's records section."""
    if codec is Compression.NONE:
        return bytes(data)
    if codec is Compression.GZIP:
        return _gzip(bytes(data))
    if codec is Compression.SNAPPY:
        return _xerial_snappy(bytes(data))
    if codec is Compression.LZ4:
        return _lz4_frame(bytes(data))
    if codec is Compression.ZSTD:
        encoder = cramjam.zstd.Compressor(level=ZSTD_LEVEL)
        encoder.compress(bytes(data))
        return bytes(encoder.finish())
    raise CompressionError(f"unknown compression codec {codec!r}")


def decompress(codec: Compression, data: Buffer, limit: int = DEFAULT_MAX_BATCH_BYTES) -> bytes:
    """The records section inside ``data``, at most ``limit`` bytes of it.

    :class:`CompressionError` names the codec and why; more than ``limit`` bytes of output is a
    :class:`DecompressionLimitError`, raised before more than ``limit + 1`` bytes are produced.
    """
    if codec is Compression.NONE:
        return bytes(data)
    raw = bytes(data)
    try:
        if codec is Compression.GZIP:
            return _gunzip(raw, limit)
        if codec is Compression.SNAPPY:
            return _unsnappy(raw, limit)
        if codec is Compression.LZ4:
            return _into(codec, cramjam.lz4.decompress_into, raw, limit)
        if codec is Compression.ZSTD:
            return _into(codec, cramjam.zstd.decompress_into, raw, limit)
    except CompressionError:
        raise
    except Exception as exc:  # the codec libraries raise their own types; all mean "not valid"
        raise CompressionError(f"{codec.name} data does not decompress: {exc}") from exc
    raise CompressionError(f"unknown compression codec {codec!r}")


def _too_big(codec: Compression, limit: int) -> DecompressionLimitError:
    return DecompressionLimitError(f"{codec.name} data decompresses to more than {limit:,} bytes, the "
                                   "limit on a batch's decompressed size (decode --max-batch-bytes "
                                   "raises it)", limit)


def _into(codec: Compression, decode_into: Any, raw: bytes, limit: int) -> bytes:
    """Decompress into a buffer that grows (x8) up to ``limit + 1`` bytes while the output overflows it.

    The library stops writing at the end of the buffer, so nothing larger than the buffer is
    ever allocated; a full buffer of ``limit + 1`` bytes means the output is beyond the limit.
    """
    size = min(limit + 1, max(_FIRST_GUESS_MIN, _FIRST_GUESS_RATIO * len(raw)))
    while True:
        buffer = bytearray(size)
        try:
            written = decode_into(raw, buffer)
        except Exception as exc:
            if _BUFFER_FULL not in str(exc):
                raise
            written = size
        if written < size:
            del buffer[written:]
            return bytes(buffer)
        if size > limit:
            raise _too_big(codec, limit)
        size = min(limit + 1, size * 8)


def _gzip(data: bytes) -> bytes:
    encoder = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, 8, zlib.Z_DEFAULT_STRATEGY)
    body = encoder.compress(data) + encoder.flush()
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return _GZIP_HEADER + body + trailer


def _gunzip(data: bytes, limit: int) -> bytes:
    out = []
    rest = data
    room = limit
    while True:
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            # At most one byte past the room: enough to know the limit is passed, no more.
            chunk = decoder.decompress(rest, room + 1)
        except zlib.error as exc:
            raise CompressionError(f"GZIP data does not decompress: {exc}") from exc
        if len(chunk) > room:
            raise _too_big(Compression.GZIP, limit)
        room -= len(chunk)
        out.append(chunk)
        if not decoder.eof:
            raise CompressionError("GZIP data ends inside a member")
        rest = decoder.unused_data
        if not rest:
            return b"".join(out)


def _xerial_snappy(data: bytes) -> bytes:
    parts = [_XERIAL_HEADER]
    for start in range(0, len(data), _XERIAL_BLOCK):
        block = bytes(cramjam.snappy.compress_raw(data[start:start + _XERIAL_BLOCK]))
        parts.append(struct.pack(">i", len(block)))
        parts.append(block)
    return b"".join(parts)


def _unsnappy(data: bytes, limit: int) -> bytes:
    if len(data) < 16 or data[:8] != _XERIAL_MAGIC:
        return _snappy_block(data, limit, limit)
    out = []
    room = limit
    pos = 16
    end = len(data)
    while pos < end:
        if data[pos:pos + 8] == _XERIAL_MAGIC:  # a chunk length never starts 0x82 (it would be < 0)
            pos = _past_header(data, pos, 16)
            continue
        if pos + 4 > end:
            raise CompressionError(f"SNAPPY xerial stream ends inside a chunk length at byte {pos}")
        (size,) = struct.unpack_from(">i", data, pos)
        pos += 4
        if size < 0 or pos + size > end:
            raise CompressionError(f"SNAPPY xerial chunk of {size} bytes does not fit in the stream "
                                   f"({end - pos} bytes left)")
        block = _snappy_block(data[pos:pos + size], room, limit)
        room -= len(block)
        out.append(block)
        pos += size
    return b"".join(out)


def _snappy_block(block: bytes, room: int, limit: int) -> bytes:
    """One raw snappy block, its declared output size checked against ``room`` before anything is made.

    The size is the varint the block starts with (at most 5 bytes, up to 2^32 - 1).
    """
    declared = 0
    for i in range(min(5, len(block))):
        declared |= (block[i] & 0x7F) << (7 * i)
        if block[i] < 0x80:
            break
    else:
        raise CompressionError("SNAPPY block does not start with its length (a varint of at most 5 bytes)")
    if declared > room:
        raise _too_big(Compression.SNAPPY, limit)
    return bytes(cramjam.snappy.decompress_raw(block))


def _lz4_frame(data: bytes) -> bytes:
    parts = [_LZ4_HEADER]
    for start in range(0, len(data), _LZ4_BLOCK):
        block = data[start:start + _LZ4_BLOCK]
        packed = bytes(cramjam.lz4.compress_block(block, store_size=False, mode="high_compression",
                                                  compression=LZ4_LEVEL))
        if len(packed) >= len(block):
            parts.append(struct.pack("<I", len(block) | _LZ4_UNCOMPRESSED))
            parts.append(block)
        else:
            parts.append(struct.pack("<I", len(packed)))
            parts.append(packed)
    parts.append(_LZ4_END_MARK)
    return b"".join(parts)


def _past_header(data: bytes, pos: int, size: int) -> int:
    """The end of a xerial header repeated at ``pos`` (streams concatenated); one cut short is
    refused, as snappy-java's ``SnappyInputStream`` refuses it ("Insufficient header size")."""
    if pos + size > len(data):
        raise CompressionError(f"SNAPPY xerial stream ends inside a repeated stream header at byte {pos}")
    return pos + size

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

API: :class:`Compression`, :func:`compress`, :func:`decompress`. Every failure is a
:class:`~groupspec.impl.codec.errors.CompressionError`.
"""

from __future__ import annotations

import struct
import zlib
from enum import IntEnum

import cramjam

from groupspec.impl.codec.errors import CompressionError

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


def decompress(codec: Compression, data: Buffer) -> bytes:
    """The records section inside ``data``; :class:`CompressionError` names the codec and why."""
    if codec is Compression.NONE:
        return bytes(data)
    raw = bytes(data)
    try:
        if codec is Compression.GZIP:
            return _gunzip(raw)
        if codec is Compression.SNAPPY:
            return _unsnappy(raw)
        if codec is Compression.LZ4:
            return bytes(cramjam.lz4.decompress(raw))
        if codec is Compression.ZSTD:
            return bytes(cramjam.zstd.decompress(raw))
    except CompressionError:
        raise
    except Exception as exc:  # the codec libraries raise their own types; all mean "not valid"
        raise CompressionError(f"{codec.name} data does not decompress: {exc}") from exc
    raise CompressionError(f"unknown compression codec {codec!r}")


def _gzip(data: bytes) -> bytes:
    encoder = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, 8, zlib.Z_DEFAULT_STRATEGY)
    body = encoder.compress(data) + encoder.flush()
    trailer = struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)
    return _GZIP_HEADER + body + trailer


def _gunzip(data: bytes) -> bytes:
    out = []
    rest = data
    while True:
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out.append(decoder.decompress(rest))
        except zlib.error as exc:
            raise CompressionError(f"GZIP data does not decompress: {exc}") from exc
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


def _unsnappy(data: bytes) -> bytes:
    if len(data) < 16 or data[:8] != _XERIAL_MAGIC:
        return bytes(cramjam.snappy.decompress_raw(data))
    out = []
    pos = 16
    end = len(data)
    while pos < end:
        if data[pos:pos + 8] == _XERIAL_MAGIC:  # a chunk length never starts 0x82 (it would be < 0)
            pos += 16
            continue
        if pos + 4 > end:
            raise CompressionError(f"SNAPPY xerial stream ends inside a chunk length at byte {pos}")
        (size,) = struct.unpack_from(">i", data, pos)
        pos += 4
        if size < 0 or pos + size > end:
            raise CompressionError(f"SNAPPY xerial chunk of {size} bytes does not fit in the stream "
                                   f"({end - pos} bytes left)")
        out.append(bytes(cramjam.snappy.decompress_raw(data[pos:pos + size])))
        pos += size
    return b"".join(out)


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

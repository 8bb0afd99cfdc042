"""Every way bytes can fail to be a record, as one family of typed errors.

All of them are :class:`CodecError`: a caller that quarantines bad records catches one class and
still knows where (``offset``: the log offset of the record or batch, or None where bytes have
no log position, such as a bare key) and why (``reason``).
"""

from __future__ import annotations

from groupspec.types.errors import GroupspecError


class CodecError(GroupspecError, ValueError):
    """Bytes that are not what they claim to be.

    ``position`` is the byte position in the decoded buffer where the failing field (or run of
    fixed-size fields) starts, when a message decoder raised it; a wire peer's bad bytes are
    reported by where they are (``groupspec.wire``), which a log offset cannot say.
    """

    position: int | None = None

    def __init__(self, reason: str, offset: int | None = None) -> None:
        self.reason = reason
        self.offset = offset
        super().__init__(reason if offset is None else f"offset {offset}: {reason}")

    def at(self, offset: int) -> CodecError:
        """The same error, placed at a log offset (errors deep in a decoder know none)."""
        if self.offset is None:
            self.offset = offset
            self.args = (f"offset {offset}: {self.reason}",)
        return self


class TruncatedError(CodecError):
    """The bytes end before the structure they hold does."""


class MalformedError(CodecError):
    """Bytes that are there but cannot be what the schema says (bad length, bad UTF-8, ...)."""


class FramingError(MalformedError):
    """Bytes of a log that cannot be cut into batches from ``position`` on (``size`` bytes to the end).

    Nothing after that point can be located, so a reader ends that data there (a whole segment
    file's rest); ``offset`` is the base offset the header there claims, when it is present.
    """

    position: int  # always known here: where in the log the framing broke

    def __init__(self, reason: str, position: int, size: int, offset: int | None = None) -> None:
        self.position = position
        self.size = size
        super().__init__(reason, offset)


class CorruptBatchError(CodecError):
    """A record batch whose CRC32C does not match its contents."""


class UnsupportedMagicError(CodecError):
    """A batch in an old message format (magic 0 or 1) or an unknown one."""

    def __init__(self, magic: int, offset: int | None = None) -> None:
        self.magic = magic
        super().__init__(f"message format magic {magic} is not supported (only magic 2)", offset)


class CompressionError(CodecError):
    """An unknown compression codec, or compressed bytes that do not decompress."""


class DecompressionLimitError(CompressionError):
    """Compressed records that would decompress to more than the limit (a decompression bomb).

    ``limit`` is the bound in bytes that was passed; the decoder stopped there without producing
    or allocating the rest.
    """

    def __init__(self, reason: str, limit: int, offset: int | None = None) -> None:
        self.limit = limit
        super().__init__(reason, offset)


class UnknownRecordTypeError(CodecError):
    """A record type id this version of groupspec does not know.

    Newer brokers write types older ones do not know; like Kafka's loader, readers skip these
    with a warning rather than fail.
    """

    def __init__(self, topic: str, type_id: int, offset: int | None = None) -> None:
        self.topic = topic
        self.type_id = type_id
        super().__init__(f"unknown record type {type_id} in {topic}", offset)


class UnsupportedVersionError(CodecError):
    """A known record type at a version above (or below) the versions groupspec knows."""

    def __init__(self, name: str, version: int, offset: int | None = None) -> None:
        self.name = name
        self.version = version
        super().__init__(f"{name} version {version} is not supported", offset)

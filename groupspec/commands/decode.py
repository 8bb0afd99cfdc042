"""`groupspec decode PATH...`: the records of `__consumer_offsets` / `__share_group_state` as JSON lines.

Why a tool of our own: Kafka's `kafka-dump-log --offsets-decoder` needs a Kafka installation and
breaks on record versions it does not know; third-party decoders broke when 4.1 started writing
OffsetCommitValue v4. This one is the project's codec, so whatever groupspec can replay it can
print, and a bad record is kept (quarantined with its bytes and the reason) instead of ending the
run. See docs/machines/records.md for the output fields, the batch view and the counting in the summary.

Exit status: 0 everything decoded (a torn tail at a segment's end is a warning, as in Kafka);
1 something was quarantined (a record, a bad batch, bytes that cannot be framed); 2 bad usage
(including a file that is not a log segment) or, with --strict, the first bad record or batch.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from groupspec.types import InputError

#: Inputs at least this large get a progress line on a terminal (some seconds of decoding).
PROGRESS_BYTES = 64 * 1024 * 1024


def _number(option: str, text: str | None, lowest: int) -> int | None:
    """An option's integer, checked here rather than by argparse: one error line, exit 2."""
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise InputError(option, f"{text!r} is not a whole number") from None
    if value < lowest:
        raise InputError(option, f"{value} is below {lowest}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="a segment file (*.log) or a partition directory such as "
                        "__consumer_offsets-27/")
    parser.add_argument("--topic", choices=("__consumer_offsets", "__share_group_state"),
                        help="which topic the files belong to, when the directory name does not say "
                        "(a warning when it overrides the directory's name)")
    parser.add_argument("--group", action="append", default=[], metavar="GROUP",
                        help="only records of this group id (repeatable)")
    parser.add_argument("--type", action="append", default=[], metavar="TYPE", dest="types",
                        help="only records of this type, by name (OffsetCommit) or id (repeatable)")
    parser.add_argument("--offset-start", metavar="N",
                        help="only records (batches) from offset N on, N included")
    parser.add_argument("--offset-end", metavar="N",
                        help="only records (batches) up to offset N, N included; reading stops after it")
    parser.add_argument("-c", "--limit", metavar="N",
                        help="stop after N lines of output (records, or batches with --batches)")
    parser.add_argument("--batches", action="store_true",
                        help="one line per batch (offsets, count, size, compression, CRC, producer "
                        "fields) instead of one per record")
    parser.add_argument("--strict", action="store_true",
                        help="stop at the first bad record instead of quarantining it")
    parser.add_argument("--bytes", choices=("hex", "base64"), default="hex",
                        help="how quarantined raw bytes are printed (default hex)")
    parser.add_argument("--no-consumer-protocol", action="store_true",
                        help="leave classic members' subscription/assignment bytes undecoded")
    parser.add_argument("--control", action="store_true",
                        help="also print control records (transaction markers)")
    parser.add_argument("--max-batch-bytes", metavar="N",
                        help="the most bytes one compressed batch may decompress to; a bigger one is "
                        "quarantined as a bad batch (default 67,108,864: 64 MiB)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="a progress line on stderr (default: on a terminal, for inputs of "
                        f"{PROGRESS_BYTES // (1024 * 1024)} MiB or more)")


def run(args: argparse.Namespace) -> int:
    from groupspec.commands.decode_report import Progress, summary, total_bytes
    from groupspec.impl.codec.log_reader import LogReadOptions, decode_logs

    options = LogReadOptions(
        topic=args.topic,
        groups=frozenset(args.group),
        types=tuple(args.types),
        strict=args.strict,
        raw_bytes=args.bytes,
        consumer_protocol=not args.no_consumer_protocol,
        control=args.control,
        offset_start=_number("--offset-start", args.offset_start, 0),
        offset_end=_number("--offset-end", args.offset_end, 0),
        limit=_number("--limit", args.limit, 1),
        batches=args.batches,
    )
    max_batch_bytes = _number("--max-batch-bytes", args.max_batch_bytes, 1)
    if max_batch_bytes is not None:
        options = dataclasses.replace(options, max_batch_bytes=max_batch_bytes)
    err = sys.stderr
    tty = _isatty(err)

    meters: list[Progress] = []

    def progress(files: list[Path]) -> Progress | None:
        # Forced (--progress) it always reports; by default only a long read on a terminal does.
        total = total_bytes(files)
        if args.progress or (args.progress is None and tty and total >= PROGRESS_BYTES):
            meters.append(Progress(total, err, tty=tty))
            return meters[-1]
        return None

    def warn(line: str) -> None:
        if meters:
            meters[-1].clear()  # a warning does not go on the end of the progress line
        print(f"groupspec decode: warning: {line}", file=err)

    write = _writer(sys.stdout)
    try:
        report = decode_logs(args.paths, options, write, warn=warn, progress=progress)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of our output went away (`| head`): nothing more to say, and the interpreter
        # must not fail again flushing stdout at exit.
        # (Captured output in a test has no file descriptor: nothing will flush to it anyway.)
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise
    print(f"groupspec decode: {summary(report)}", file=err)
    return 1 if report.quarantined else 0


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _writer(out: TextIO) -> Callable[[str], object]:
    """Write UTF-8 whatever the locale; straight to the byte buffer when the stream has one."""
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        return out.write
    out.flush()

    def write(text: str) -> None:
        buffer.write(text.encode("utf-8"))

    return write

"""What `groupspec decode` tells a person on stderr: the progress line and the closing summary.

Both are words for a reader at a terminal, not part of what the log reader does with the bytes
(:mod:`groupspec.impl.codec.log_reader` counts; this module says the counts), so they live with
the command. The reader calls :meth:`Progress.at` once per batch, never per record.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from groupspec.impl.codec.log_reader import ReadReport


def summary(report: ReadReport) -> str:
    """One sentence that adds up: files, batches, records and where each record went."""
    files = _plural(report.files, "file")
    if report.files_passed_over:
        files += f" ({report.files_passed_over} before --offset-start passed over)"
    if report.batch_view:
        head = f"{files}, {_plural(report.batches, 'batch', 'batches')}: {report.printed} printed"
        if report.filtered:
            head += f", {report.filtered} filtered out"
    else:
        head = (f"{files}, {_plural(report.batches, 'batch', 'batches')}, "
                f"{_plural(report.records, 'record')}: {report.printed} printed")
        if report.filtered:
            head += f", {report.filtered} filtered out"
        if report.unknown_types:
            ids = ", ".join(str(t) for t in sorted(report.unknown_types))
            head += f", {report.skipped} skipped (unknown type {ids})"
        head += f", {report.quarantined_records} quarantined"
    parts = [head]
    if report.bad_batches:
        parts.append(f"{_plural(report.bad_batches, 'bad batch', 'bad batches')} quarantined")
    if report.unreadable:
        rests = _plural(report.unreadable, "unreadable rest of a file", "unreadable rests of files")
        parts.append(f"{rests} quarantined")
    if report.partial_tails:
        parts.append(f"{_plural(len(report.partial_tails), 'partial batch', 'partial batches')} "
                     "at a segment end")
    if report.stopped_at_limit:
        parts.append(f"stopped at --limit ({_plural(report.lines, 'line')})")
    return "; ".join(parts)


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def total_bytes(files: Iterable[Path]) -> int:
    """The size of the files to read (one that cannot be looked at counts nothing)."""
    total = 0
    for file in files:
        with contextlib.suppress(OSError):
            total += file.stat().st_size
    return total


class Progress:
    """A one-line progress report on a terminal: bytes read, records, rate; at most twice a second.

    ``tty`` rewrites one line in place and clears it at the end; otherwise (forced on a pipe)
    each report is a line of its own, the last one at 100%.
    """

    def __init__(self, total_bytes: int, stream: TextIO, *, tty: bool, interval: float = 0.5,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = max(total_bytes, 1)
        self.stream = stream
        self.tty = tty
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.next_at = self.started + interval
        self.shown = False

    # -- what the reader calls (log_reader.ProgressMeter) ----------------------------------------

    def at(self, position: int, report: ReadReport) -> None:
        """Reading is at byte ``position`` of the file after the ``report.bytes_read`` bytes."""
        self.update(report.bytes_read + position, _count(report))

    def end(self, report: ReadReport) -> None:
        self.finish(report.bytes_read, _count(report))

    # -- the line --------------------------------------------------------------------------------

    def update(self, done_bytes: int, records: int) -> None:
        now = self.clock()
        if now >= self.next_at:
            self.next_at = now + self.interval
            self._show(done_bytes, records, now)

    def _show(self, done_bytes: int, records: int, now: float) -> None:
        rate = records / max(now - self.started, 1e-9)
        text = (f"groupspec decode: {min(100, 100 * done_bytes // self.total)}% of "
                f"{self.total / 1e6:,.1f} MB, {records:,} records, {rate:,.0f} records/s")
        self.stream.write(f"\r{text}\x1b[K" if self.tty else text + "\n")
        self.stream.flush()
        self.shown = True

    def finish(self, done_bytes: int, records: int) -> None:
        if self.tty:
            self.clear()
        else:
            self._show(done_bytes, records, self.clock())

    def clear(self) -> None:
        """Take the line off a terminal (at the end, or before an error is printed)."""
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _count(report: ReadReport) -> int:
    """What the line counts: batches in the batch view, records otherwise."""
    return report.batches if report.batch_view else report.records

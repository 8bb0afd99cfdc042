"""Mutants run in forked children of one warm process, not in a fresh interpreter each.

A subprocess per mutant costs about two seconds of interpreter start and imports for a check
that itself takes a tenth of that (the vectors of one machine run in 15 to 300 ms). Here the
parent imports what never changes (the vector loader and the vocabulary), loads the vectors
once, and forks a child per mutant. The child drops every other groupspec module from
``sys.modules`` and imports them again through a finder that hands out the mutated source for
the one module being mutated, so each mutant sees a whole, consistent program in which only
that one file changed; the parent's modules are never touched.

The unmutated check runs first, in a child of its own, under a line tracer on the mutated
files. A mutant on a line that check never executes cannot change its outcome: it survives
without running (``reached`` false in the report), which is most of the saving on large files
the vectors hardly touch.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import pickle
import selectors
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

#: Modules a mutant of impl/ or spec/ cannot change, kept across the re-import (with the
#: vocabulary, groupspec.types): the vectors loaded once in the parent are instances of their
#: classes, and spec and impl must keep sharing one vocabulary.
KEEP = ("groupspec", "groupspec.bounded_json", "groupspec.machines", "groupspec.conformance",
        "groupspec.conformance.vector_format")


def module_name(path: str) -> str:
    """impl/share/partition.py -> groupspec.impl.share.partition (impl/ and spec/ are reached
    through the groupspec package's links)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["groupspec", *parts])


class _MutatedLoader(importlib.machinery.SourceFileLoader):
    """Compiles the mutated text instead of the file (and never a cached .pyc of the original)."""

    def __init__(self, fullname: str, path: str, source: str) -> None:
        super().__init__(fullname, path)
        self._source = source

    def get_code(self, fullname: str) -> types.CodeType:
        return compile(self._source, self.path, "exec", dont_inherit=True)


class _MutatedFinder(importlib.abc.MetaPathFinder):
    def __init__(self, fullname: str, path: Path, source: str) -> None:
        self.fullname, self.path, self.source = fullname, path, source

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.fullname:
            return None
        loader = _MutatedLoader(fullname, str(self.path), self.source)
        package = [str(self.path.parent)] if self.path.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=loader,
                                                      submodule_search_locations=package)


def _fresh_modules(mutated: tuple[str, Path, str] | None) -> None:
    """In a child: forget every groupspec module but KEEP, so the next imports load from source
    (the mutated one through the finder)."""
    sys.dont_write_bytecode = True
    for name in [n for n in sys.modules if (n == "groupspec" or n.startswith("groupspec."))
                 and n not in KEEP and not n.startswith("groupspec.types")]:
        del sys.modules[name]
    if mutated is not None:
        sys.meta_path.insert(0, _MutatedFinder(*mutated))


#: Who is running now, as the check names it (the quick loop: the test's node id); the tracer
#: files each executed line under it.
CURRENT: list[str | None] = [None]


def _line_tracer(files: set[str], seen: dict[tuple[str, int], set[str | None]]) -> Any:
    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            seen.setdefault((frame.f_code.co_filename, frame.f_lineno), set()).add(CURRENT[0])
        return local

    def global_(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename in files:
            seen.setdefault((frame.f_code.co_filename, frame.f_lineno), set()).add(CURRENT[0])
            return local
        return None

    return global_


#: A check run in a child: (whether it passes, a verdict). A mutant survives when its verdict is
#: the unmutated program's (which must pass).
Check = Callable[[], tuple[bool, object]]


def _child(pipe: int, work: Callable[[], Any]) -> None:
    """Run ``work`` and send its pickled result; never return into the parent's code."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if not os.environ.get("GROUPSPEC_MUTATION_SHOW"):  # a child's own output, to debug a kill
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
        payload = pickle.dumps(("ok", work()))
    except BaseException as exc:  # any failure of a mutant is its outcome
        payload = pickle.dumps(("error", f"{type(exc).__name__}: {exc}"))
        code = 1
    try:
        with os.fdopen(pipe, "wb") as out:
            out.write(payload)
    finally:
        os._exit(code)


def _start(work: Callable[[], Any]) -> tuple[int, int]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        _child(write, work)
    os.close(write)
    return pid, read


def _reap(pid: int, kill: bool) -> None:
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def in_child(work: Callable[[], Any], timeout: float) -> tuple[str, Any]:
    """``work`` in one forked child: ("ok", result), ("error", text) or ("timeout", None)."""
    ((_, outcome, _),) = run_many([((), work)], timeout, workers=1)
    return outcome


def run_many(jobs: Sequence[tuple[Any, Callable[[], Any]]], timeout: float,
             workers: int) -> Iterator[tuple[Any, tuple[str, Any], float]]:
    """Each job's work in its own child, ``workers`` at once; yields (tag, outcome, seconds) as
    they end."""
    pending = list(reversed(jobs))
    running: dict[int, tuple[Any, int, float, bytearray]] = {}
    selector = selectors.DefaultSelector()
    try:
        while pending or running:
            while pending and len(running) < workers:
                tag, work = pending.pop()
                pid, fd = _start(work)
                running[fd] = (tag, pid, time.monotonic(), bytearray())
                selector.register(fd, selectors.EVENT_READ)
            wait = min(started + timeout for _, _, started, _ in running.values()) - time.monotonic()
            for key, _ in selector.select(max(wait, 0.0)):
                fd = key.fd
                chunk = os.read(fd, 1 << 16)
                if chunk:
                    running[fd][3].extend(chunk)
                    continue
                tag, pid, started, data = running.pop(fd)
                selector.unregister(fd)
                os.close(fd)
                _reap(pid, kill=False)
                outcome = pickle.loads(bytes(data)) if data else ("error", "the child died")
                yield tag, outcome, time.monotonic() - started
            now = time.monotonic()
            for fd in [fd for fd, (_, _, started, _) in running.items() if now - started > timeout]:
                tag, pid, started, _ = running.pop(fd)
                selector.unregister(fd)
                os.close(fd)
                _reap(pid, kill=True)
                yield tag, ("timeout", None), now - started
    finally:
        for fd, (_, pid, _, _) in running.items():
            os.close(fd)
            _reap(pid, kill=True)
        selector.close()


def reached_lines(check: Check, files: Sequence[Path], root: Path,
                  timeout: float) -> tuple[tuple[bool, object], dict[tuple[str, int], set[str | None]]]:
    """The unmutated check, fresh-imported under a line tracer on ``files``: its result, and the
    (path relative to root, line) pairs it executed, each with who executed it (CURRENT)."""
    wanted = {str(root / "groupspec" / f) for f in files} | {str((root / f).resolve()) for f in files}

    def work() -> tuple[tuple[bool, object], dict[tuple[str, int], set[str | None]]]:
        seen: dict[tuple[str, int], set[str | None]] = {}
        _fresh_modules(None)
        tracer = _line_tracer(wanted, seen)
        threading.settrace(tracer)
        sys.settrace(tracer)
        try:
            result = check()
        finally:
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type]
        rel: dict[tuple[str, int], set[str | None]] = {}
        for (f, line), who in seen.items():
            rel.setdefault((os.path.relpath(os.path.realpath(f), root.resolve()), line), set()).update(who)
        return result, rel

    status, value = in_child(work, timeout)
    if status != "ok":
        raise RuntimeError(f"the unmutated check did not finish ({status}: {value})")
    return value  # type: ignore[no-any-return]


def mutant_work(check: Check, path: str, root: Path, source: str) -> Callable[[], tuple[bool, object]]:
    def work() -> tuple[bool, object]:
        _fresh_modules((module_name(path), root / "groupspec" / path, source))
        return check()

    return work

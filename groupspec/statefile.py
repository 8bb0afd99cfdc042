"""The JSON state file through which a later command finds daemons that an earlier one started.

Why: ``groupspec broker start`` (``broker.json``) and ``groupspec spark-cluster start``
(``spark-cluster.json``) leave JVMs running after they exit, and ``stop``/``status``, or a second
``start`` in the same folder, find them again only through that file. Both need the same three
things, kept here so that they behave alike: write the file, read it back with an error that tells
"nothing was started here" from "this file is not ours", and tell whether a pid the file names
still runs the program that was started (the OS gives an ended process's pid to others).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from groupspec.types import GroupspecError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

S = TypeVar("S")


def dumps(state: DataclassInstance) -> str:
    """The file's text: indented, so that a person can read where the logs and data are."""
    return json.dumps(dataclasses.asdict(state), indent=2) + "\n"


def write(directory: Path, name: str, state: DataclassInstance) -> Path:
    """Write ``state`` as ``directory / name``; its path, for the caller to remove should the start
    fail after all."""
    path = directory / name
    path.write_text(dumps(state))
    return path


def read(directory: Path, name: str, what: str, parse: Callable[[dict[str, Any]], S], *,
         missing: type[GroupspecError], invalid: type[GroupspecError]) -> S:
    """The state in ``directory / name``, made by ``parse`` from the file's JSON object.

    No file is ``missing`` ("no {what} was started in ..."): ``stop``/``status`` of a folder where
    nothing started. A file that is not JSON or lacks a field ``parse`` needs is ``invalid``,
    naming the file, so that neither shows a traceback.
    """
    path = directory / name
    try:
        return parse(json.loads(path.read_text()))
    except FileNotFoundError:
        raise missing(f"no {what} was started in {directory} (no {name})") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise invalid(f"{path} is not a {what} state file: {exc}") from None


def fields(cls: type[DataclassInstance], raw: dict[str, Any]) -> dict[str, Any]:
    """The values of ``cls``'s fields in ``raw`` (KeyError for one that is absent); keys the
    dataclass does not have are ignored, so an older reader takes a newer file."""
    return {f.name: raw[f.name] for f in dataclasses.fields(cls)}


def still_running(directory: Path, name: str, read_state: Callable[[Path], S],
                  running: Callable[[S], bool]) -> S | None:
    """The state of what an earlier ``start`` left running from ``directory``, else None (no file,
    a file that cannot be read, or processes that have all ended): a second start in the same
    folder would overwrite the file that is the only way to stop the first."""
    if not (directory / name).is_file():
        return None
    try:
        old = read_state(directory)
    except GroupspecError:
        return None
    return old if running(old) else None


def runs(pid: int, marker: bytes) -> bool:
    """Whether ``pid`` is alive and its command line holds ``marker`` (the program's main class).

    The marker is what tells the recorded process from a later one that got its pid; a zombie (an
    empty command line) has ended. Without /proc (not Linux) the signal check alone decides.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return not Path("/proc/self").exists()
    except OSError:
        return True
    return marker in cmdline


class Process:
    """A recorded process, whether this process started it (a child to reap, whose own exit
    status is known) or found it by the pid in a state file (alive while :func:`runs` says so)."""

    def __init__(self, pid: int, marker: bytes, child: subprocess.Popen[bytes] | None = None) -> None:
        self.pid = pid
        self.marker = marker
        self.child = child

    def alive(self) -> bool:
        if self.child is not None:
            return self.child.poll() is None
        return runs(self.pid, self.marker)

    def exit_code(self) -> int | None:
        return None if self.child is None else self.child.poll()

    def signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)

"""The operating system's refusals, as the log reader and the segment writer report them.

A disk error is not a user's mistake, but it reaches the user the same way: a typed InputError
naming the file and saying what the system said (its ``strerror``, "Input/output error", not the
``[Errno 5] ...: '/path'`` form that repeats the path the error already names), or the error's
own text when the system gave none. Real disks rarely fail on cue, so each case plants the
failure at the call the module makes.
"""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from groupspec.impl.codec import segment
from groupspec.impl.codec.batch import Record, encode_batch
from groupspec.impl.codec.log_reader import LogReadOptions, decode_logs
from groupspec.impl.codec.segment import SegmentWriter, read_segment, segment_files
from groupspec.types import InputError

#: A failure with the system's text, and one without (an OSError raised by Python code).
FAILURES = [
    (OSError(errno.EIO, "Input/output error"), "Input/output error"),
    (OSError("the disk went away"), "the disk went away"),
]


def _raise(exc: OSError) -> Callable[..., Any]:
    def fail(*_args: object, **_kwargs: object) -> Any:
        raise exc
    return fail


def _batch() -> bytes:
    return encode_batch([Record(offset=0, timestamp=0, key=b"k", value=b"v")], base_offset=0)


def _segment(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with SegmentWriter(folder) as writer:
        writer.append(_batch())
    return folder / segment.segment_file_name(0)


def _refusal(call: Callable[[], object]) -> InputError:
    with pytest.raises(InputError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_a_directory_that_cannot_be_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           exc: OSError, said: str) -> None:
    monkeypatch.setattr(Path, "iterdir", _raise(exc))
    err = _refusal(lambda: segment_files(tmp_path))
    assert (err.field, err.problem) == (str(tmp_path), f"cannot list: {said}")


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_a_segment_that_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       exc: OSError, said: str) -> None:
    path = _segment(tmp_path / "__consumer_offsets-0")
    monkeypatch.setattr(Path, "read_bytes", _raise(exc))
    err = _refusal(lambda: list(read_segment(path)))
    assert (err.field, err.problem) == (str(path), f"cannot read: {said}")


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_decode_of_a_file_whose_head_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    exc: OSError, said: str) -> None:
    path = _segment(tmp_path / "__consumer_offsets-0")
    monkeypatch.setattr(Path, "open", _raise(exc))
    err = _refusal(lambda: decode_logs([path], LogReadOptions(), lambda _t: None, lambda _w: None))
    assert (err.field, err.problem) == (str(path), f"cannot read: {said}")


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_decode_of_a_segment_that_cannot_be_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 exc: OSError, said: str) -> None:
    folder = tmp_path / "__consumer_offsets-0"
    path = _segment(folder)
    monkeypatch.setattr(Path, "read_bytes", _raise(exc))
    err = _refusal(lambda: decode_logs([folder], LogReadOptions(), lambda _t: None, lambda _w: None))
    assert (err.field, err.problem) == (str(path), f"cannot read: {said}")


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_a_writer_whose_directory_cannot_be_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 exc: OSError, said: str) -> None:
    folder = tmp_path / "p-0"
    monkeypatch.setattr(Path, "mkdir", _raise(exc))
    err = _refusal(lambda: SegmentWriter(folder))
    assert (err.field, err.problem) == (str(folder), f"cannot create: {said}")


def _file_io_failing(mode: str, exc: OSError) -> Callable[..., io.FileIO]:
    real = io.FileIO

    def file_io(path: Any, how: str = "r", *args: Any, **kwargs: Any) -> io.FileIO:
        if how == mode:
            raise exc
        return real(path, how, *args, **kwargs)
    return file_io


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_a_resumed_segment_that_cannot_be_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 exc: OSError, said: str) -> None:
    folder = tmp_path / "p-0"
    path = _segment(folder)
    monkeypatch.setattr(segment, "FileIO", _file_io_failing("ab", exc))
    err = _refusal(lambda: SegmentWriter(folder, base_offset=1, resume=True))
    assert (err.field, err.problem) == (str(path), f"cannot open for appending: {said}")


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_a_segment_that_cannot_be_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          exc: OSError, said: str) -> None:
    folder = tmp_path / "p-0"
    monkeypatch.setattr(segment, "FileIO", _file_io_failing("xb", exc))
    with SegmentWriter(folder) as writer:
        err = _refusal(lambda: writer.append(_batch()))
    assert (err.field, err.problem) == (str(folder / segment.segment_file_name(0)), f"cannot create: {said}")


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_a_write_the_disk_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  exc: OSError, said: str) -> None:
    folder = tmp_path / "p-0"
    with SegmentWriter(folder) as writer:
        writer.append(_batch())
        second = writer.roll()  # the refusal names the segment being written, not the first
        real = writer._out
        assert real is not None

        class Refusing(io.FileIO):
            def write(self, _data: Any) -> int:
                raise exc

        writer._out = Refusing(real.name, "ab")
        real.close()
        err = _refusal(lambda: writer.append(_batch()))
    assert second == folder / segment.segment_file_name(1)
    assert (err.field, err.problem) == (str(second), f"cannot write: {said}")
    assert second.stat().st_size == 0


def test_a_write_the_file_takes_none_of(tmp_path: Path) -> None:
    folder = tmp_path / "p-0"
    with SegmentWriter(folder) as writer:
        writer.roll()
        real = writer._out
        assert real is not None

        class Full(io.FileIO):
            def write(self, _data: Any) -> int:
                return 0

        writer._out = Full(real.name, "ab")
        real.close()
        err = _refusal(lambda: writer.append(_batch()))
    assert err.problem.startswith("cannot write: the file took none of the ")


@pytest.mark.parametrize(("exc", "said"), FAILURES)
def test_a_directory_that_cannot_be_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           exc: OSError, said: str) -> None:
    folder = tmp_path / "p-0"
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise exc
        real_fsync(fd)

    monkeypatch.setattr(segment.os, "fsync", fsync)
    with SegmentWriter(folder, fsync=True) as writer:
        err = _refusal(lambda: writer.append(_batch()))
    assert (err.field, err.problem) == (str(folder), f"cannot sync: {said}")


def test_a_file_system_that_cannot_sync_a_directory_is_not_an_error(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "p-0"
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            raise OSError(errno.EINVAL, "Invalid argument")
        real_fsync(fd)

    monkeypatch.setattr(segment.os, "fsync", fsync)
    with SegmentWriter(folder, fsync=True) as writer:
        info = writer.append(_batch())
    assert info.base_offset == 0 and info.file.stat().st_size > 0

"""Durability of the coordinator runtime's logs (issue 15, items 5 and 6).

- A write counts as acknowledged once its answer is returned; by then its batch is in the
  segment file (handed to the operating system), so a SIGKILL right after an answer loses
  nothing: a child process commits offsets, prints each acknowledged one, and is killed.
- A torn last batch (a crash in the middle of an append) does not stop a coordinator from
  starting: the log is truncated to its last whole batch, the truncation is reported, and the
  coordinator takes new writes. Tested by cutting the file at every byte of its last batch.
- Any other damage is refused with a typed error naming the file and byte position.
"""

from __future__ import annotations

import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from io import FileIO
from pathlib import Path

import pytest

from groupspec.impl.classic_group.coordinator import ClassicCoordinator
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.segment import SegmentWriter, read_log, segment_files, write_segment
from groupspec.impl.runtime.log import LogCorruptionError, PartitionLog
from groupspec.types import InputError
from groupspec.types.classic_group import (
    AdvanceClock,
    ClassicConfig,
    CommitPartition,
    CommitTopic,
    CoordinatorView,
    JoinGroup,
    OffsetCommit,
    OffsetCommitResponse,
    SyncGroup,
    TxnMarker,
    TxnOffsetCommit,
)
from groupspec.types.errors import Errors
from groupspec.types.records import OFFSETS_TOPIC, CoordinatorRecord, OffsetCommitKey, OffsetCommitValue
from tests.scenarios.classic_group.targets import PROTOCOLS

CONFIG = ClassicConfig(offsets_topic_partitions=3)

# The child: commit offsets forever (bounded), print each commit once its answer says NONE.
CHILD = r"""
import sys
from pathlib import Path
from groupspec.impl.classic_group.coordinator import ClassicCoordinator
from groupspec.types.classic_group import ClassicConfig, CommitPartition, CommitTopic, OffsetCommit
from groupspec.types.errors import Errors

log_dir, start = Path(sys.argv[1]), int(sys.argv[2])
coordinator = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=3), log_dir=log_dir)
out = sys.stdout
out.write("ready\n")
out.flush()
for i in range(start, start + 200_000):
    group, partition = f"g{i % 7}", i % 4
    event = OffsetCommit(group, topics=(CommitTopic("t", (CommitPartition(partition, i),)),))
    [answer] = coordinator.handle(event, i).answers
    if all(p.error is Errors.NONE for t in answer.response.topics for p in t.partitions):
        out.write(f"{group} {partition} {i}\n")
        out.flush()
"""


def committed(coordinator: ClassicCoordinator) -> dict[tuple[str, int], int]:
    return {(g.group_id, o.partition): o.committed_offset
            for g in coordinator.view().groups for o in g.offsets}


def run_child_and_kill(log_dir: Path, start: int, kill_after: int) -> tuple[list[tuple[str, int, int]], str]:
    """Start the child, SIGKILL it right after its ``kill_after``-th answer; every answer it gave."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(log_dir), str(start)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    acked: list[tuple[str, int, int]] = []
    data = b""
    deadline = time.monotonic() + 60  # a safety bound, not a speed target
    try:
        while len(acked) < kill_after and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            data += chunk
            acked = [parse(line) for line in data.split(b"\n")[1:-1]]
    finally:
        proc.send_signal(signal.SIGKILL)
        rest, err = proc.communicate(timeout=30)
    lines = (data + rest).split(b"\n")
    assert lines[0] == b"ready", err.decode(errors="replace")
    # The last piece has no newline yet (or is empty): only whole lines were answers.
    return [parse(line) for line in lines[1:-1]], err.decode(errors="replace")


def parse(line: bytes) -> tuple[str, int, int]:
    group, partition, offset = line.decode().split()
    return group, int(partition), int(offset)


def test_no_acknowledged_commit_is_lost_when_the_process_is_killed(tmp_path: Path) -> None:
    """10 trials on one log directory: each child starts on what the killed one left behind."""
    log_dir = tmp_path / "logs"
    rng = random.Random(15)
    trials, lost, answered, torn = 10, 0, 0, 0
    for trial in range(trials):
        acked, err = run_child_and_kill(log_dir, trial * 1_000_000, rng.randint(1, 300))
        assert acked, f"the child answered nothing: {err}"
        answered += len(acked)
        snapshot = tmp_path / f"after-{trial}"
        shutil.copytree(log_dir, snapshot)  # the next child recovers the original itself
        reloaded = ClassicCoordinator(CONFIG, log_dir=snapshot)
        torn += len(reloaded.runtime.truncations())
        # Every acknowledged commit is a record of the log, and the last one per key is in memory.
        written = {entry.value.offset for p in range(CONFIG.offsets_topic_partitions)
                   for _, entry in reloaded.runtime.log(p).entries()
                   if isinstance(entry, CoordinatorRecord) and isinstance(entry.value, OffsetCommitValue)}
        lost += sum(1 for _, _, offset in acked if offset not in written)
        state = committed(reloaded)
        reloaded.runtime.close()
        last: dict[tuple[str, int], int] = {}
        for group, partition, offset in acked:
            last[(group, partition)] = offset
        assert all(state.get(key, -1) >= offset for key, offset in last.items())
    print(f"kill trials {trials}, acknowledged commits {answered}, acknowledged commits lost {lost}, "
          f"torn tails recovered {torn}")
    assert lost == 0


# --- crash images: the log cut at every byte of its last batch ---------------------------------

ONE = ClassicConfig(offsets_topic_partitions=1)


def commits(*offsets: tuple[int, int]) -> tuple[CommitTopic, ...]:
    return (CommitTopic("orders", tuple(CommitPartition(p, o) for p, o in offsets)),)


def ok(response: object) -> bool:
    assert isinstance(response, OffsetCommitResponse)
    return all(p.error is Errors.NONE for t in response.topics for p in t.partitions)


def history(coordinator: ClassicCoordinator) -> dict[tuple[str, int], int]:
    """A group with a member, plain and transactional commits: several batches of every kind."""
    acked: dict[tuple[str, int], int] = {}
    first = coordinator.handle(JoinGroup("g", protocols=PROTOCOLS, new_member_uuid="u1"), 0)
    member = first.answers[0].response.member_id  # type: ignore[attr-defined]
    coordinator.handle(JoinGroup("g", member_id=member, protocols=PROTOCOLS), 1)
    coordinator.handle(AdvanceClock(3_000), 2)
    coordinator.handle(SyncGroup("g", 1, member, protocol_type="consumer", protocol_name="range"), 3)
    for n in range(4):
        event = OffsetCommit("g", 1, member, topics=commits((n % 2, 10 * n)))
        [answer] = coordinator.handle(event, 4 + n).answers
        assert ok(answer.response)
        acked[("g", n % 2)] = 10 * n
    coordinator.handle(TxnOffsetCommit("tx", 7, 0, "simple", topics=commits((0, 5))), 10)
    coordinator.handle(TxnMarker(7, 0, commit=True), 11)
    acked[("simple", 0)] = 5
    coordinator.handle(TxnOffsetCommit("tx", 8, 0, "simple", topics=commits((1, 6))), 12)
    return acked


LAST_STEPS = {
    # a plain batch of three records
    "commit": lambda c: c.handle(OffsetCommit("other", topics=commits((0, 1), (1, 2), (2, 3))), 20),
    # a control batch (the COMMIT marker of producer 8)
    "marker": lambda c: c.handle(TxnMarker(8, 0, commit=True), 20),
}


def offsets_of(view: CoordinatorView) -> dict[tuple[str, int], int]:
    return {(g.group_id, o.partition): o.committed_offset for g in view.groups for o in g.offsets}


def cut_and_recover(source: Path, work: Path, cut: int, compression: Compression
                    ) -> tuple[ClassicCoordinator, Path]:
    shutil.copytree(source, work)
    [file] = segment_files(work / f"{OFFSETS_TOPIC}-0")
    with file.open("r+b") as f:
        f.truncate(cut)
    return ClassicCoordinator(ONE, log_dir=work, start_ms=3_000, compression=compression), file


@pytest.mark.parametrize("compression", [Compression.NONE, Compression.ZSTD], ids=["none", "zstd"])
@pytest.mark.parametrize("last_step", sorted(LAST_STEPS))
def test_a_log_cut_at_every_byte_of_its_last_batch_recovers(tmp_path: Path, last_step: str,
                                                           compression: Compression) -> None:
    writer = ClassicCoordinator(ONE, log_dir=tmp_path / "log", compression=compression)
    acked = history(writer)
    before = tmp_path / "before"
    shutil.copytree(tmp_path / "log", before)
    [file] = segment_files(tmp_path / "log" / f"{OFFSETS_TOPIC}-0")
    start = file.stat().st_size
    LAST_STEPS[last_step](writer)
    end = file.stat().st_size
    writer.runtime.close()
    assert end > start
    # The state as of the last complete batch, and as of the whole log: loads of clean logs.
    as_before = ClassicCoordinator(ONE, log_dir=before, start_ms=3_000).view()
    as_after = ClassicCoordinator(ONE, log_dir=tmp_path / "log", start_ms=3_000).view()
    assert as_before != as_after
    recovered = 0
    for cut in range(start, end + 1):
        work = tmp_path / f"cut-{cut}"
        coordinator, cut_file = cut_and_recover(tmp_path / "log", work, cut, compression)
        view = coordinator.view()
        assert view == (as_after if cut == end else as_before), f"cut at byte {cut}"
        state = offsets_of(view)
        assert all(state[key] == offset for key, offset in acked.items()), f"cut at byte {cut}"
        truncations = coordinator.runtime.truncations()
        if start < cut < end:
            [truncation] = truncations
            assert (truncation.file, truncation.position) == (cut_file, start)
            assert truncation.removed == cut - start
            recovered += 1
        else:
            assert truncations == []
        assert cut_file.stat().st_size == (end if cut == end else start)
        # The recovered coordinator takes a new write, and a reload finds it after the old state.
        [answer] = coordinator.handle(OffsetCommit("late", topics=commits((0, cut))), 30).answers
        assert ok(answer.response)
        coordinator.runtime.close()
        again = ClassicCoordinator(ONE, log_dir=work, start_ms=3_000)
        assert again.runtime.truncations() == []
        reloaded = again.view()
        assert [g for g in reloaded.groups if g.group_id != "late"] == list(view.groups)
        assert offsets_of(reloaded)[("late", 0)] == cut
        again.runtime.close()
        shutil.rmtree(work)
    print(f"{last_step}/{compression.name}: last batch bytes {start}..{end}, crash images {end - start + 1}, "
          f"torn tails recovered {recovered}")
    assert recovered == end - start - 1


def test_a_cut_inside_the_first_batch_leaves_an_empty_segment_that_takes_new_writes(tmp_path: Path) -> None:
    writer = ClassicCoordinator(ONE, log_dir=tmp_path / "log")
    writer.handle(OffsetCommit("g", topics=commits((0, 1))), 0)
    writer.runtime.close()
    [file] = segment_files(tmp_path / "log" / f"{OFFSETS_TOPIC}-0")
    end = file.stat().st_size
    for cut in range(end):
        work = tmp_path / f"cut-{cut}"
        coordinator, cut_file = cut_and_recover(tmp_path / "log", work, cut, Compression.NONE)
        assert coordinator.view().groups == ()
        assert cut_file.stat().st_size == 0
        assert len(coordinator.runtime.truncations()) == (1 if cut else 0)
        [answer] = coordinator.handle(OffsetCommit("g", topics=commits((0, 2))), 1).answers
        assert ok(answer.response)  # used to fail: "00000000000000000000.log: exists already"
        coordinator.runtime.close()
        again = ClassicCoordinator(ONE, log_dir=work)
        assert offsets_of(again.view()) == {("g", 0): 2}
        assert again.runtime.log(0).next_offset == 1
        again.runtime.close()
    print(f"first batch: bytes 0..{end}, crash images {end}, torn tails recovered {end - 1}")


def record(offset: int) -> CoordinatorRecord:
    return CoordinatorRecord(OffsetCommitKey("g", "t", 0), OffsetCommitValue(offset=offset, metadata="",
                                                                            commit_timestamp=0))


def test_a_cut_in_the_first_batch_of_a_later_segment_continues_that_segment(tmp_path: Path) -> None:
    log = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path, segment_bytes=200)
    for n in range(6):
        log.append([record(n)], 0)
    log.close()
    files = segment_files(tmp_path / f"{OFFSETS_TOPIC}-0")
    assert len(files) >= 2
    last = files[-1]
    with last.open("r+b") as f:
        f.truncate(30)
    reopened = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path, segment_bytes=200)
    [truncation] = reopened.truncations
    assert (truncation.file, truncation.position) == (last, 0)
    assert last.stat().st_size == 0 and reopened.next_offset == 5
    reopened.append([record(99)], 0)
    reopened.close()
    again = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path, segment_bytes=200)
    assert [(o, e.value.offset) for o, e in again.entries()][-2:] == [(4, 4), (5, 99)]  # type: ignore[union-attr]
    assert segment_files(tmp_path / f"{OFFSETS_TOPIC}-0") == files


def test_unwritten_zero_bytes_after_the_last_batch_are_a_torn_tail(tmp_path: Path) -> None:
    log = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path)
    log.append([record(1)], 0)
    log.close()
    [file] = segment_files(tmp_path / f"{OFFSETS_TOPIC}-0")
    size = file.stat().st_size
    for zeros in (5, 100):
        with file.open("ab") as f:
            f.write(bytes(zeros))
        reopened = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path)
        [truncation] = reopened.truncations
        assert (truncation.position, truncation.removed) == (size, zeros)
        assert "never written" in truncation.reason or zeros < 17
        reopened.close()
        assert file.stat().st_size == size


# --- damage that is not a torn tail is refused ------------------------------------------------


def three_batches(directory: Path) -> tuple[Path, list[int]]:
    log = PartitionLog(OFFSETS_TOPIC, 0, directory=directory)
    starts = []
    for n in range(3):
        starts.append(log.size_bytes())
        log.append([record(n)], 0)
    log.close()
    [file] = segment_files(directory / f"{OFFSETS_TOPIC}-0")
    return file, starts


def damage(file: Path, position: int, data: bytes) -> bytes:
    raw = bytearray(file.read_bytes())
    raw[position:position + len(data)] = data
    file.write_bytes(bytes(raw))
    return bytes(raw)


@pytest.mark.parametrize("where", ["crc-first", "crc-middle", "crc-last", "length-middle", "magic-middle"])
def test_damage_before_the_tail_is_refused_naming_file_and_position(tmp_path: Path, where: str) -> None:
    file, starts = three_batches(tmp_path)
    kind, which = where.split("-")
    position = starts[{"first": 0, "middle": 1, "last": 2}[which]]
    if kind == "crc":
        raw = file.read_bytes()
        damaged = damage(file, position + 70, bytes([raw[position + 70] ^ 0x40]))
    elif kind == "length":
        damaged = damage(file, position + 8, (5).to_bytes(4, "big"))
    else:
        damaged = damage(file, position + 16, b"\x01")
    with pytest.raises(LogCorruptionError) as info:
        PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path)
    assert (info.value.file, info.value.position) == (file, position)
    assert str(file) in str(info.value) and f"byte {position}" in str(info.value)
    assert file.read_bytes() == damaged  # nothing truncated
    with pytest.raises(LogCorruptionError):  # the coordinator refuses to start on it too
        ClassicCoordinator(ONE, log_dir=tmp_path)


def test_a_torn_tail_in_a_segment_that_is_not_the_last_is_refused(tmp_path: Path) -> None:
    log = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path, segment_bytes=200)
    for n in range(6):
        log.append([record(n)], 0)
    log.close()
    first = segment_files(tmp_path / f"{OFFSETS_TOPIC}-0")[0]
    size = first.stat().st_size
    with first.open("r+b") as f:
        f.truncate(size - 3)
    with pytest.raises(LogCorruptionError, match="ends inside a batch"):
        PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path, segment_bytes=200)
    assert first.stat().st_size == size - 3


# --- the writer: write-through, fsync, resume, a failed write taken back -----------------------


def test_an_append_is_in_the_file_when_it_returns(tmp_path: Path) -> None:
    log = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path)
    sizes = []
    for n in range(3):
        log.append([record(n)], 0)
        [file] = segment_files(tmp_path / f"{OFFSETS_TOPIC}-0")
        sizes.append(file.stat().st_size)  # seen from outside this writer, as a new process would
    assert sizes[0] > 0 and sizes == [sizes[0] * (n + 1) for n in range(3)]
    log.close()


def test_fsync_syncs_every_append_and_a_new_segment_s_directory(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fsync

    def counted(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    lazy = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path / "lazy")
    lazy.append([record(1)], 0)
    assert synced == []
    careful = PartitionLog(OFFSETS_TOPIC, 0, directory=tmp_path / "careful", fsync=True)
    careful.append([record(1)], 0)  # the new segment's directory, then the batch
    careful.append([record(2)], 0)
    assert len(synced) == 3
    with pytest.raises(InputError, match="fsync"):
        SegmentWriter(tmp_path / "x", fsync="yes")  # type: ignore[arg-type]


def test_resume_continues_the_last_segment_and_refuses_one_ahead_of_the_log(tmp_path: Path) -> None:
    batch = PartitionLog(OFFSETS_TOPIC, 0)
    batch.append([record(1)], 0)
    [first] = write_segment(tmp_path, [batch.raw()])
    with SegmentWriter(tmp_path, base_offset=1, resume=True) as writer:
        info = writer.append(batch.raw())
    assert (info.file, info.position, info.base_offset) == (first, len(batch.raw()), 1)
    assert segment_files(tmp_path) == [first]
    with pytest.raises(InputError, match="exists already"):
        SegmentWriter(tmp_path, base_offset=0).append(batch.raw())
    write_segment(tmp_path / "ahead", [], base_offset=9)
    with pytest.raises(InputError, match="starts at offset 9, after the log's next offset 0"):
        SegmentWriter(tmp_path / "ahead", base_offset=0, resume=True)


def test_a_failed_write_is_taken_back(tmp_path: Path) -> None:
    batch = PartitionLog(OFFSETS_TOPIC, 0)
    batch.append([record(1)], 0)
    data = batch.raw()
    writer = SegmentWriter(tmp_path)
    writer.append(data)

    class HalfThenFull:
        def __init__(self, out: FileIO) -> None:
            self.out = out

        def write(self, view: memoryview) -> int:
            self.out.write(view[:7])
            raise OSError(28, "No space left on device")

        def __getattr__(self, name: str) -> object:
            return getattr(self.out, name)

    real = writer._out
    assert real is not None
    writer._out = HalfThenFull(real)  # type: ignore[assignment]
    with pytest.raises(InputError, match="cannot write: No space left on device"):
        writer.append(data)
    writer._out = real
    assert writer.files[0].stat().st_size == len(data)
    writer.append(data)
    writer.close()
    assert [item.entry.base_offset for item in read_log(tmp_path)] == [0, 1]  # type: ignore[union-attr]

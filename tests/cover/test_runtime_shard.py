"""The coordinator runtime on a toy shard: write path, log as real batches, load by replay,
hosting errors, transactional records and markers, shard-scoped timers, file-backed logs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.codec.errors import CodecError
from groupspec.impl.codec.log_reader import LogReadOptions, read_logs
from groupspec.impl.codec.segment import segment_files
from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.log import PartitionLog
from groupspec.impl.runtime.runtime import (
    CoordinatorRuntime,
    LoadInProgressError,
    NotCoordinatorError,
    ShardContext,
    WriteResult,
)
from groupspec.types import InputError
from groupspec.types.classic_group import Answer, LogEntry, TxnEnd, TxnRecord
from groupspec.types.records import (
    OFFSETS_TOPIC,
    CoordinatorRecord,
    OffsetCommitKey,
    OffsetCommitValue,
)


def commit(group: str, partition: int, offset: int, ts: int = 0) -> CoordinatorRecord:
    return CoordinatorRecord(OffsetCommitKey(group, "t", partition),
                             OffsetCommitValue(offset=offset, metadata="", commit_timestamp=ts))


class ToyShard:
    """Committed offsets by (group, partition); pending transactional ones by producer."""

    def __init__(self, context: ShardContext) -> None:
        self.context = context
        self.offsets: dict[tuple[str, int], int] = {}
        self.pending: dict[int, dict[tuple[str, int], int]] = {}
        self.replayed: list[int] = []
        self.loaded = False
        self.parked: list[int] = []

    def replay(self, offset: int, entry: LogEntry) -> None:
        self.replayed.append(offset)
        if isinstance(entry, TxnEnd):
            pending = self.pending.pop(entry.producer_id, {})
            if entry.commit:
                self.offsets.update(pending)
            return
        record = entry.record if isinstance(entry, TxnRecord) else entry
        key = record.key
        assert isinstance(key, OffsetCommitKey)
        where = (key.group, key.partition)
        if record.value is None:
            self.offsets.pop(where, None)
        elif isinstance(entry, TxnRecord):
            assert isinstance(record.value, OffsetCommitValue)
            self.pending.setdefault(entry.producer_id, {})[where] = record.value.offset
        else:
            assert isinstance(record.value, OffsetCommitValue)
            self.offsets[where] = record.value.offset

    def on_loaded(self) -> None:
        self.loaded = True

    def on_unloaded(self) -> list[Answer]:
        return [Answer(i, "unloaded") for i in self.parked]

    def write(self, records: list[LogEntry], replay: bool = True) -> WriteResult:
        return WriteResult([Answer(0, "ok")], records, replay)


def runtime(partitions: int = 3, log_dir: Path | None = None, start: int = 0,
            fsync: bool = False) -> CoordinatorRuntime[ToyShard]:
    return CoordinatorRuntime(OFFSETS_TOPIC, partitions, ToyShard, ManualClock(start), log_dir=log_dir,
                              fsync=fsync)


def test_write_appends_one_batch_and_replays_into_the_shard() -> None:
    rt = runtime()
    rt.load_all()
    result = rt.write(1, lambda s: s.write([commit("g", 0, 5), commit("g", 1, 7)]))
    assert result.answers == [Answer(0, "ok")]
    assert rt.shard(1).offsets == {("g", 0): 5, ("g", 1): 7}
    assert rt.shard(1).replayed == [0, 1]
    assert rt.log(1).batches == 1 and rt.log(1).next_offset == 2
    assert rt.log(0).next_offset == 0


def test_replay_false_writes_the_log_but_leaves_memory_to_the_operation() -> None:
    rt = runtime()
    rt.load_all()
    rt.write(0, lambda s: s.write([commit("g", 0, 5)], replay=False))
    assert rt.shard(0).offsets == {}
    rt.unload(0)
    rt.load(0)
    assert rt.shard(0).offsets == {("g", 0): 5}


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 1000),
                          st.booleans()), max_size=30))
def test_load_replays_the_log_into_an_identical_state(writes: list[tuple[int, int, int, bool]]) -> None:
    rt = runtime()
    rt.load_all()
    for partition, p, offset, tombstone in writes:
        rec = (CoordinatorRecord(OffsetCommitKey("g", "t", p), None) if tombstone
               else commit("g", p, offset))
        rt.write(partition, lambda s, r=rec: s.write([r]))
    before = {p: dict(s.offsets) for p, s in rt.shards()}
    rt.unload_all()
    rt.load_all()
    assert {p: dict(s.offsets) for p, s in rt.shards()} == before
    assert all(s.loaded for _, s in rt.shards())


def test_hosting_errors_name_the_partition() -> None:
    rt = runtime()
    with pytest.raises(NotCoordinatorError, match=r"__consumer_offsets-2 is not hosted"):
        rt.write(2, lambda s: s.write([]))
    rt.begin_load(2)
    with pytest.raises(LoadInProgressError):
        rt.read(2, lambda s: s.offsets)
    rt.load(2)
    assert rt.read(2, lambda s: s.offsets) == {}
    rt.shard(2).parked.append(9)
    assert rt.unload(2) == [Answer(9, "unloaded")]
    with pytest.raises(NotCoordinatorError):
        rt.shard(2)
    with pytest.raises(InputError, match="partition"):
        rt.shard(3)


def test_transactional_records_and_markers_go_through_real_batches() -> None:
    rt = runtime(1)
    rt.load_all()
    rt.write(0, lambda s: s.write([TxnRecord(commit("g", 0, 10), 7, 1), TxnRecord(commit("g", 1, 11), 7, 1)]))
    rt.write(0, lambda s: s.write([TxnRecord(commit("g", 2, 12), 8, 0)]))
    assert rt.shard(0).offsets == {}
    rt.write(0, lambda s: s.write([TxnEnd(7, 1, commit=True, coordinator_epoch=3)]))
    rt.write(0, lambda s: s.write([TxnEnd(8, 0, commit=False)]))
    assert rt.shard(0).offsets == {("g", 0): 10, ("g", 1): 11}
    entries = [entry for _, entry in rt.log(0).entries()]
    assert entries[-2:] == [TxnEnd(7, 1, True, 3), TxnEnd(8, 0, False, 0)]
    assert entries[0] == TxnRecord(commit("g", 0, 10), 7, 1)
    batches = list(rt.log(0).batches_read())
    assert [(b.is_transactional, b.is_control, b.producer_id) for b in batches] == [
        (True, False, 7), (True, False, 8), (True, True, 7), (True, True, 8)]
    rt.unload(0)
    rt.load(0)
    assert rt.shard(0).offsets == {("g", 0): 10, ("g", 1): 11}


def test_timers_run_as_writes_of_their_shard_and_die_with_it() -> None:
    rt = runtime(2)
    rt.load_all()
    fired: list[str] = []

    def op(name: str, partition: int) -> WriteResult:
        fired.append(name)
        return WriteResult([], [commit(name, 0, rt.clock.now())])

    rt.context(0).schedule("a", 100, lambda: op("a", 0))
    rt.context(1).schedule("b", 50, lambda: op("b", 1))
    rt.context(1).schedule("c", 200, lambda: op("c", 1))
    assert rt.context(1).armed() == {"b": 50, "c": 200}
    results = rt.advance_clock(150)
    assert fired == ["b", "a"] and len(results) == 2
    assert rt.shard(0).offsets == {("a", 0): 150}
    rt.unload(1)
    rt.load(1)
    assert rt.advance_clock(500) == [] and fired == ["b", "a"]
    assert rt.shard(1).offsets == {("b", 0): 150}


def test_a_file_backed_log_is_read_by_a_new_runtime_and_by_decode(tmp_path: Path) -> None:
    rt = runtime(2, log_dir=tmp_path, start=1_700_000_000_000)
    rt.load_all()
    rt.write(1, lambda s: s.write([commit("g", 0, 5, 1), commit("g", 1, 6, 2)]))
    rt.write(1, lambda s: s.write([TxnRecord(commit("g", 0, 9), 4, 0), TxnEnd(4, 0, True)]))
    assert rt.shard(1).offsets == {("g", 0): 9, ("g", 1): 6}
    rt.close()
    again = runtime(2, log_dir=tmp_path)
    again.load_all()
    assert again.shard(1).offsets == {("g", 0): 9, ("g", 1): 6}
    again.write(1, lambda s: s.write([commit("g", 1, 8)]))
    again.close()
    docs: list[dict[str, object]] = []
    report = read_logs([tmp_path / "__consumer_offsets-1"], LogReadOptions(control=True), docs.append,
                       lambda message: None)
    assert (report.records, report.quarantined) == (5, 0)
    assert [d["offset"] for d in docs] == [0, 1, 2, 3, 4]
    third = runtime(2, log_dir=tmp_path)
    third.load_all()
    assert third.shard(1).offsets == {("g", 0): 9, ("g", 1): 8}
    assert third.log(1).next_offset == 5


def test_an_in_memory_log_is_a_sequence_of_kafka_batches() -> None:
    log = PartitionLog(OFFSETS_TOPIC, 0)
    log.append([commit("g", 0, 1), commit("g", 1, 2)], 1000)
    log.append([TxnEnd(1, 0, False)], 1001)
    raw = log.raw()
    assert raw[16] == 2  # magic of the first batch
    assert [o for o, _ in log.entries()] == [0, 1, 2]
    with pytest.raises(InputError, match="not a log entry"):
        log.append(["junk"], 0)  # type: ignore[list-item]


def test_append_raw_imports_another_logs_batches_renumbered() -> None:
    source = PartitionLog(OFFSETS_TOPIC, 0)
    source.append([commit("g", 0, 1), commit("g", 1, 2)], 1000)
    source.append([TxnRecord(commit("g", 2, 3), 5, 0), TxnEnd(5, 0, True)], 1001)
    target = PartitionLog(OFFSETS_TOPIC, 3)
    target.append([commit("h", 0, 9)], 999)
    assert target.append_raw(source.raw()) == 3
    assert [o for o, _ in target.entries()] == [0, 1, 2, 3, 4]
    assert [e for _, e in target.entries()][1:] == [e for _, e in source.entries()]


def test_a_torn_tail_is_cut_off_listed_and_written_over(tmp_path: Path) -> None:
    rt = runtime(2, log_dir=tmp_path)
    rt.load_all()
    rt.write(1, lambda s: s.write([commit("g", 0, 5)]))
    [file] = segment_files(tmp_path / "__consumer_offsets-1")
    whole = file.stat().st_size
    rt.write(1, lambda s: s.write([commit("g", 0, 6), commit("g", 1, 7)]))
    rt.close()
    torn = file.stat().st_size - 5
    with file.open("r+b") as f:
        f.truncate(torn)  # what a crash in the middle of the second append leaves
    again = runtime(2, log_dir=tmp_path)
    [cut] = again.truncations()
    assert (cut.file, cut.position, cut.removed) == (file, whole, torn - whole)
    assert file.stat().st_size == whole
    assert "ends inside a batch" in cut.describe()
    again.load_all()
    assert again.shard(1).offsets == {("g", 0): 5}
    assert again.log(1).next_offset == 1
    again.write(1, lambda s: s.write([commit("g", 1, 8)]))
    again.close()
    third = runtime(2, log_dir=tmp_path)
    assert third.truncations() == []
    third.load_all()
    assert third.shard(1).offsets == {("g", 0): 5, ("g", 1): 8}


def test_fsync_reaches_the_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    rt = runtime(1, log_dir=tmp_path, fsync=True)
    rt.load_all()
    rt.write(0, lambda s: s.write([commit("g", 0, 5)]))
    assert len(synced) == 2  # the new segment's directory entry, then the batch


def test_a_load_that_fails_leaves_the_partition_not_hosted(tmp_path: Path) -> None:
    rt = runtime(1, log_dir=tmp_path)
    rt.load_all()
    rt.write(0, lambda s: s.write([commit("g", 0, 5)]))
    rt.unload(0)
    [file] = segment_files(tmp_path / "__consumer_offsets-0")
    raw = bytearray(file.read_bytes())
    raw[70] ^= 0x40  # damaged after the log was opened (and recovered): the load's read finds it
    file.write_bytes(bytes(raw))
    with pytest.raises(CodecError, match="CRC32C"):
        rt.load(0)
    assert rt.loading_partitions() == [] and rt.active_partitions() == []
    with pytest.raises(NotCoordinatorError):
        rt.shard(0)

"""Library decode + replay on one core, no Spark: issue 22's 500,000 records/s goal.

    .venv/bin/python bench/bench_replay.py                            # 1M OffsetCommit records
    .venv/bin/python bench/bench_replay.py --records 200000 --log DIR # + an audit_gen log
    .venv/bin/python bench/bench_replay.py --profile fast             # cProfile of one path

Two inputs, read into memory first (no disk in the timings):

* ``commits``: the OffsetCommit log of bench_codec.py (1000 groups, 37 topics, 64 partitions,
  value v4, 100 records a batch, uncompressed), as a busy coordinator writes it, one partition.
* ``--log DIR``: a log written by ``groupspec.pipeline.audit_gen.write_offsets_log`` (the
  audit benchmark's; classic, KIP-848 and share groups, one-record commit batches cycling
  through every codec, transactions), its ``__consumer_offsets-N`` directories.

Each path runs in this process on the same bytes, timed in CPU seconds of this process
(``time.process_time``: other jobs on a shared machine move it less than wall time), best and
median of ``--repeats``:

* ``framing``: groupspec's batch reader (CRC checked, records split, nothing decoded);
* ``kafka-python``: the peer, kafka-python's ``MemoryRecords`` over the same bytes, CRC
  checked, every record's key and value taken (framing only: it has no coordinator decoders);
* ``decode``: framing + key + value into entries (``log_entries``);
* ``replay (general)``: ``load_from(log_entries(...))`` into the classic coordinator's shard,
  what ``groupspec describe`` did before the fast path;
* ``replay (fast)``: ``load_with(shard.replay_batches)``, OffsetCommit records read straight
  into the offset manager (``fast_offsets``), from decoded batches (what describe used before
  the raw path);
* ``replay (raw)``: the same, but the batches come from a ``RawBatchReader``: uncompressed
  data batches are handed to the shard with their records unread, and it reads each record's
  offset, key and value from the batch's bytes (no ``Record`` object), one call per commit
  (``fast_offsets.replay_raw_batch``); ``groupspec describe`` and coordinator loads use it;
* ``describe`` (``--log`` only): the whole command's library call on the directories.

The two replays are checked to leave the same committed offsets.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_codec import build_log, offset_commits

from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.impl.codec.batch import RawBatch, RecordBatch, read_batches
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.raw import RawBatchReader
from groupspec.impl.codec.segment import segment_files
from groupspec.impl.runtime.log import log_entries
from groupspec.types.classic_group import ClassicConfig
from groupspec.types.records import OFFSETS_TOPIC


class Input:
    def __init__(self, name: str, logs: list[bytes], records: int) -> None:
        self.name, self.logs, self.records = name, logs, records
        self.bytes = sum(len(b) for b in logs)

    def batches(self) -> Iterator[RecordBatch]:
        for log in self.logs:
            for _, batch in read_batches(log):
                yield batch

    def raw_batches(self) -> Iterator[RecordBatch | RawBatch]:
        reader = RawBatchReader()
        for log in self.logs:
            for _, batch in reader.read(log):
                assert isinstance(batch, RecordBatch | RawBatch)
                yield batch


def commits_input(n: int) -> Input:
    return Input(f"commits ({n:,} OffsetCommit, 100 a batch, none)", [build_log(offset_commits(n),
                                                                              Compression.NONE)], n)


def audit_input(root: Path) -> list[Input]:
    out = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith(OFFSETS_TOPIC)):
        logs = [f.read_bytes() for f in segment_files(d)]
        n = sum(len(b.records) for log in logs for _, b in read_batches(log))
        out.append(Input(d.name, logs, n))
    return out


def framing(inp: Input) -> int:
    return sum(len(b.records) for b in inp.batches())


def kafka_python(inp: Input) -> int:
    from kafka.record import MemoryRecords

    n = 0
    for log in inp.logs:
        records = MemoryRecords(log)
        while True:
            batch = records.next_batch()
            if batch is None:
                break
            assert batch.validate_crc()
            for r in batch:
                r.key, r.value  # noqa: B018 (taken, as a reader would)
                n += 1
    return n


def decode(inp: Input) -> int:
    return sum(1 for _ in log_entries(OFFSETS_TOPIC, 0, inp.batches()))


def _coordinator() -> ClassicCoordinator:
    c = ClassicCoordinator(ClassicConfig(offsets_topic_partitions=1))
    c.runtime.unload(0)
    return c


LAST: dict[str, ClassicCoordinator] = {}


def replay_general(inp: Input) -> int:
    c = _coordinator()
    c.runtime.load_from(0, log_entries(OFFSETS_TOPIC, 0, inp.batches()))
    LAST["general"] = c
    return inp.records


def replay_fast(inp: Input) -> int:
    c = _coordinator()
    c.runtime.load_with(0, lambda shard: shard.replay_batches(OFFSETS_TOPIC, 0, inp.batches()))
    LAST["fast"] = c
    return inp.records


def replay_raw(inp: Input) -> int:
    c = _coordinator()
    c.runtime.load_with(0, lambda shard: shard.replay_batches(OFFSETS_TOPIC, 0, inp.raw_batches()))
    LAST["raw"] = c
    return inp.records


PATHS: dict[str, Callable[[Input], int]] = {
    "framing": framing, "kafka-python": kafka_python, "decode": decode,
    "replay (general)": replay_general, "replay (fast)": replay_fast, "replay (raw)": replay_raw,
}


def timed(fn: Callable[[], int], repeats: int) -> tuple[list[float], int]:
    """CPU seconds of each of ``repeats`` calls, and the record count of the last."""
    times = []
    n = 0
    for _ in range(repeats):
        t = time.process_time()
        n = fn()
        times.append(time.process_time() - t)
    return times, n


def main() -> None:
    import warnings

    warnings.simplefilter("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--log", help="an audit_gen log directory (its __consumer_offsets-N)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", choices=["general", "fast", "raw"])
    parser.add_argument("--paths", default=",".join(PATHS),
                        help="which paths, comma-separated (the code before the fast path has only "
                             "the first four)")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, one core, CPU seconds (process_time), best and median of "
          f"{args.repeats}; load average {os.getloadavg()[0]:.1f} at start", flush=True)
    inputs = [commits_input(args.records)] if args.records else []
    if args.log:
        inputs += audit_input(Path(args.log))
    if args.profile:
        fn = {"fast": replay_fast, "raw": replay_raw, "general": replay_general}[args.profile]
        cProfile.runctx("for i in inputs: fn(i)", globals(), {"inputs": inputs, "fn": fn},
                        "/tmp/bench_replay.prof")
        pstats.Stats("/tmp/bench_replay.prof").sort_stats("tottime").print_stats(15)
        return
    for inp in inputs:
        print(f"\n{inp.name}: {inp.records:,} records, {inp.bytes:,} bytes", flush=True)
        rates = {}
        for name in args.paths.split(","):
            fn = PATHS[name]
            times, n = timed(lambda fn=fn, inp=inp: fn(inp), args.repeats)  # type: ignore[misc]
            assert n == inp.records or name == "decode", (name, n, inp.records)
            seconds = min(times)
            rates[name] = n / seconds
            print(f"  {name:<18} {rates[name]:>12,.0f} rec/s best, {n / statistics.median(times):>12,.0f} "
                  f"median  ({seconds:.2f} s; load {os.getloadavg()[0]:.1f})", flush=True)
        views = {name: c.view() for name, c in LAST.items()}
        assert len(set(map(repr, views.values()))) <= 1, "the replays left different states"
        LAST.clear()
        for name in ("replay (fast)", "replay (raw)"):
            if name in rates:
                ratios = [f"/ {peer} {rates[name] / rates[peer]:.2f}x"
                          for peer in ("kafka-python", "framing", "replay (general)", "replay (fast)")
                          if peer in rates and peer != name]
                print(f"  {name}: {'; '.join(ratios)}", flush=True)
    if args.log:
        from groupspec.describe import describe

        dirs = sorted(p for p in Path(args.log).iterdir() if p.is_dir())
        times, n = timed(lambda: describe(dirs).records, 1)
        seconds = times[0]
        print(f"\ndescribe {args.log}: {n:,} records (every topic) {n / seconds:,.0f} rec/s "
              f"({seconds:.2f} s)", flush=True)


if __name__ == "__main__":
    main()

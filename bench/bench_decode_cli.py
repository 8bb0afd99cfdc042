"""`groupspec decode` end to end (JSON lines out) next to the library's framing + decode, same run.

Writes one segment file of OffsetCommit records (1000 groups, 37 topics, 64 partitions, value v4,
100 records a batch, uncompressed unless --compression says otherwise) into a partition directory
``__consumer_offsets-0``, then on one core:

- ``library``: the batch reader and ``records.decode_record`` over the file's bytes (what
  bench_codec.py calls "full": framing + key + value, no output);
- ``cli``: ``groupspec decode <dir>`` run in this process with stdout sent to a file, so the
  JSON text is built and written as on a terminal or a pipe (the file is checked for one line a
  record);
- ``cli --batches``: the batch view over the same file;
- ``cli process``: ``groupspec decode <dir> > file`` as a child process, interpreter start and
  imports included (its CPU time, from ``getrusage``).

Rates are records per CPU second of the process doing the work (``time.process_time``), so that
other jobs on a shared machine move them less than wall-clock figures.

Prints records per second of each and the ratio of the CLI to the library. Issue 14's goal is
200,000 records/s with JSON output on one core.

    python bench/bench_decode_cli.py                       # 200,000 records, best of 3
    python bench/bench_decode_cli.py --records 1000000 --repeats 1
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from groupspec.cli import main as cli_main
from groupspec.impl.codec.batch import Record, encode_batch, read_batches
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.records import decode_record, encode_key, encode_value
from groupspec.impl.codec.segment import write_segment
from groupspec.types.records import OFFSETS_TOPIC, OffsetCommitKey, OffsetCommitValue

PER_BATCH = 100


def build_segment(directory: Path, n: int, compression: Compression) -> Path:
    batches = []
    for start in range(0, n, PER_BATCH):
        records = []
        for i in range(start, min(n, start + PER_BATCH)):
            key = encode_key(OffsetCommitKey(group=f"group-{i % 1000}", topic=f"topic-{i % 37}",
                                             partition=i % 64))
            value = encode_value(OffsetCommitValue(offset=i * 17, leader_epoch=3, metadata="",
                                                   commit_timestamp=1_700_000_000_000 + i))
            records.append(Record(i, 1_700_000_000_000 + i, key, value))
        batches.append(encode_batch(records, base_offset=start, compression=compression))
    (path,) = write_segment(directory, batches)
    return path


def library_rate(data: bytes, n: int) -> float:
    t0 = time.process_time()
    count = 0
    for _, batch in read_batches(data):
        for rec in batch.records:
            decode_record(OFFSETS_TOPIC, rec.key, rec.value)  # type: ignore[arg-type]
            count += 1
    elapsed = time.process_time() - t0
    assert count == n
    return n / elapsed


def cli_rate(argv: list[str], out_path: Path, n: int, expected_lines: int) -> float:
    saved = sys.stdout
    with open(out_path, "w", encoding="utf-8") as out, open(os.devnull, "w") as err:
        sys.stdout = out
        try:
            with contextlib.redirect_stderr(err):
                t0 = time.process_time()
                code = cli_main(argv)
                out.flush()
                elapsed = time.process_time() - t0
        finally:
            sys.stdout = saved
    assert code == 0, f"decode exited {code}"
    with open(out_path, "rb") as produced:
        lines = sum(1 for _ in produced)
    assert lines == expected_lines, f"{lines} lines for {expected_lines} expected"
    return n / elapsed


def child_rates(command: list[str], out_path: Path, n: int,
                is_record: Callable[[bytes], bool]) -> tuple[float, float]:
    """Records per CPU second (``getrusage`` of the child, every thread) and per wall second of a
    child process that prints ``n`` record lines to a file."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(out_path, "wb") as out:
        subprocess.run(command, stdout=out, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(out_path, "rb") as produced:
        assert sum(1 for line in produced if is_record(line)) == n
    return n / cpu, n / wall


def process_rate(directory: Path, out_path: Path, n: int) -> tuple[float, float]:
    command = [sys.executable, "-m", "groupspec.cli", "decode", str(directory)]
    return child_rates(command, out_path, n, lambda line: True)


def kafka_rate(segment: Path, out_path: Path, n: int) -> tuple[float, float] | None:
    """Kafka 4.2.1's own ``DumpLogSegments --offsets-decoder`` on the same segment (JSON key and
    value per record, after a header line per batch), or None without Java and Maven."""
    from groupspec import broker
    from groupspec.kafka_dump import dump_command

    if broker.tools_available() is not None:
        return None
    command = dump_command(broker.resolve(), segment, OFFSETS_TOPIC)
    return child_rates(command, out_path, n, lambda line: line.startswith(b"| offset: "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compression", choices=[c.name.lower() for c in Compression], default="none")
    parser.add_argument("--no-kafka", dest="kafka", action="store_false",
                        help="skip Kafka's DumpLogSegments (run by default when Java and Maven are here)")
    args = parser.parse_args()
    n = args.records
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "__consumer_offsets-0"
        segment = build_segment(directory, n, Compression[args.compression.upper()])
        data = segment.read_bytes()
        print(f"python {platform.python_version()} on {platform.machine()}, one core; {n:,} OffsetCommit "
              f"records (value v4), {PER_BATCH} per batch, {args.compression}, one segment of "
              f"{len(data):,} bytes; best of {args.repeats}")
        out = Path(tmp) / "out.jsonl"
        batches = -(-n // PER_BATCH)
        best = {"library": 0.0, "cli": 0.0, "cli --batches": 0.0, "cli process": 0.0}
        walls = {"cli process": 0.0, "kafka DumpLogSegments": 0.0}
        for _ in range(args.repeats):
            best["library"] = max(best["library"], library_rate(data, n))
            best["cli"] = max(best["cli"], cli_rate(["decode", str(directory)], out, n, n))
            if _has_batches_option():
                rate = cli_rate(["decode", "--batches", str(directory)], out, n, batches)
                best["cli --batches"] = max(best["cli --batches"], rate)
            cpu, wall = process_rate(directory, out, n)
            best["cli process"] = max(best["cli process"], cpu)
            walls["cli process"] = max(walls["cli process"], wall)
            if args.kafka and (kafka := kafka_rate(segment, out, n)) is not None:
                best["kafka DumpLogSegments"] = max(best.get("kafka DumpLogSegments", 0.0), kafka[0])
                walls["kafka DumpLogSegments"] = max(walls["kafka DumpLogSegments"], kafka[1])
        print(f"{'path':<22} {'records/s':>12} {'vs library':>11}")
        for name, rate in best.items():
            if rate:
                print(f"{name:<22} {rate:>12,.0f} {rate / best['library']:>10.2f}x")
        if walls["kafka DumpLogSegments"]:
            print("\nchild processes by wall clock (the JVM runs compiler and GC threads beside its main):")
            for name, rate in walls.items():
                print(f"{name:<22} {rate:>12,.0f} rec/s")
            ours, theirs = best["cli process"], best["kafka DumpLogSegments"]
            print(f"groupspec decode / DumpLogSegments: {ours / theirs:.2f}x per CPU second, "
                  f"{walls['cli process'] / walls['kafka DumpLogSegments']:.2f}x per wall second")


def _has_batches_option() -> bool:
    from groupspec.commands import decode

    parser = argparse.ArgumentParser()
    decode.add_arguments(parser)
    return any("--batches" in action.option_strings for action in parser._actions)


if __name__ == "__main__":
    main()

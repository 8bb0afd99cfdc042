"""Share partition throughput (acquire + acknowledge) and memory per in-flight record.

Throughput: one member repeatedly fetches one log batch of B records (B = 1, 100, 10,000) from
the next fetch offset and acknowledges it with ACCEPT in one of three ways:

- ``whole``: one acknowledgement batch covering the fetched range (the batch stays unsplit);
- ``per-offset``: one call carrying one type per record (Kafka splits the batch);
- ``one-by-one``: one call per record (split, and one persister write per record).

Every acknowledgement is written to the persister (the share coordinator) before it counts, as in Kafka, and
the start offset moves after each. Prints records per second and microseconds per batch; the
target is that ``whole`` costs the same per batch whatever B is.

Memory: N in-flight records (default 1,000,000) acquired and left ACQUIRED, measured with
tracemalloc: in whole batches of 100 and of 10,000, and in batches of 100 after one record of
every batch was acknowledged (which splits every batch into per-offset state with a lock per
offset). Prints bytes per in-flight record.

Single acknowledgements (issue 15 item 12): n offsets fetched in 4-offset batches, then
acknowledged one call per offset, offset 0 left held (so the start offset stays and the
cache keeps growing) and the types cycling ACCEPT, RELEASE, REJECT (so no two neighbouring
persisted offsets merge: the persister holds about n batches). Prints the time, the cost per
acknowledgement, and its ratio to the smallest n run in the same process: 1.0 is linear
growth, 2.0 per doubling of n is quadratic.

Wide batches: one ``Fetch`` of a single log batch of W offsets (a log batch is never cut, so it
is acquired whole), then one ACCEPT of its middle offset (which splits it). Prints the time and
the tracemalloc peak of the acknowledgement, and the ratio to the same with W = 4 in this
process.

    .venv/bin/python bench/bench_share_partition.py
    .venv/bin/python bench/bench_share_partition.py --records 100000 --memory-records 100000  # quick
    .venv/bin/python bench/bench_share_partition.py --only acks --acks 1000,2000 --widths 100000
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
import tracemalloc

from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    AcknowledgeResponse,
    Fetch,
    FetchResponse,
    LogBatch,
    SharePartitionConfig,
)

ACCEPT = 1
MEMBER = "consumer-1"


def machine(in_flight: int) -> SharePartitionMachine:
    return SharePartitionMachine(SharePartitionConfig(delivery_count_limit=5, max_in_flight_records=in_flight,
                                                      record_lock_duration_ms=30_000))


def fetch(m: SharePartitionMachine, index: int, offset: int, size: int) -> int:
    out = m.handle(Fetch(MEMBER, offset, (LogBatch(offset, offset + size - 1),), size, size), index)
    response = out.answers[0].response
    assert isinstance(response, FetchResponse) and response.count == size, response
    return size


def acknowledge(m: SharePartitionMachine, index: int, batches: tuple[AckBatch, ...]) -> None:
    response = m.handle(Acknowledge(MEMBER, batches), index).answers[0].response
    assert isinstance(response, AcknowledgeResponse) and response.error is Errors.NONE, response


def throughput(batch: int, mode: str, records: int) -> tuple[float, float]:
    """Records per second and microseconds per fetched batch."""
    m = machine(max(batch, 2_000))
    offset = index = 0
    batches = max(1, records // batch)
    started = time.perf_counter()
    for _ in range(batches):
        fetch(m, index, offset, batch)
        index += 1
        last = offset + batch - 1
        if mode == "whole":
            acknowledge(m, index, (AckBatch(offset, last, (ACCEPT,)),))
            index += 1
        elif mode == "per-offset":
            acknowledge(m, index, (AckBatch(offset, last, (ACCEPT,) * batch),))
            index += 1
        else:
            for o in range(offset, last + 1):
                acknowledge(m, index, (AckBatch(o, o, (ACCEPT,)),))
                index += 1
        offset = last + 1
    elapsed = time.perf_counter() - started
    view = m.view()
    assert view.start_offset == offset and not view.batches, (view.start_offset, offset)
    return batches * batch / elapsed, elapsed / batches * 1e6


def memory(records: int, batch: int, split: bool) -> float:
    """tracemalloc bytes per in-flight record: everything the partition holds for them."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    m = machine(records)
    index = 0
    for offset in range(0, records, batch):
        fetch(m, index, offset, batch)
        index += 1
    if split:
        # Accepting the first record of each batch splits it; the other records stay in flight.
        for offset in range(0, records, batch):
            acknowledge(m, index, (AckBatch(offset, offset, (ACCEPT,)),))
            index += 1
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    in_flight = records - (records // batch if split else 0)
    tracemalloc.stop()
    del m
    return used / in_flight


def single_acks(n: int) -> float:
    """Seconds for n - 1 single-offset acknowledgements over n offsets in 4-offset batches."""
    m = machine(n + 4)
    index = 0
    for offset in range(0, n, 4):
        fetch(m, index, offset, 4)
        index += 1
    started = time.perf_counter()
    for offset in range(1, n):
        acknowledge(m, index, (AckBatch(offset, offset, (1 + offset % 3,)),))
        index += 1
    return time.perf_counter() - started


def wide_ack(width: int) -> tuple[float, int]:
    """Seconds and tracemalloc peak bytes of one ACCEPT in the middle of a W-offset batch."""
    m = machine(2_000)
    out = m.handle(Fetch(MEMBER, 10, (LogBatch(10, 10 + width - 1),)), 0).answers[0].response
    assert isinstance(out, FetchResponse) and out.count == width, out
    gc.collect()
    tracemalloc.start()
    started = time.perf_counter()
    middle = 10 + width // 2
    acknowledge(m, 1, (AckBatch(middle, middle, (ACCEPT,)),))
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak


def acks_section(counts: list[int], widths: list[int]) -> None:
    print("\nsingle acknowledgements over 4-offset batches (offset 0 held, types cycling)")
    print(f"{'n':>7} {'seconds':>9} {'us/ack':>8} {'per-ack ratio to n=' + str(counts[0]):>26}")
    first: float | None = None
    for n in counts:
        seconds = single_acks(n)
        per_ack = seconds / (n - 1)
        first = per_ack if first is None else first
        print(f"{n:>7,} {seconds:>9.3f} {per_ack * 1e6:>8.1f} {per_ack / first:>26.2f}")
    print("\none ACCEPT in the middle of one acquired batch of W offsets")
    peer_seconds, peer_peak = wide_ack(4)
    print(f"{'W':>18} {'seconds':>9} {'peak bytes':>12} {'time ratio to W=4':>18}")
    print(f"{4:>18,} {peer_seconds:>9.5f} {peer_peak:>12,} {1.0:>18.1f}")
    for width in widths:
        seconds, peak = wide_ack(width)
        print(f"{width:>18,} {seconds:>9.5f} {peak:>12,} {seconds / peer_seconds:>18.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000, help="records per throughput run")
    parser.add_argument("--memory-records", type=int, default=1_000_000, help="in-flight records for memory")
    parser.add_argument("--acks", default="1000,2000,4000,8000,16000",
                        help="n for the single-acknowledgement case, comma-separated")
    parser.add_argument("--widths", default=f"{10**7},{10**15}",
                        help="batch widths W for the wide-batch case, comma-separated")
    parser.add_argument("--only", choices=("all", "acks"), default="all",
                        help="acks: only the single-acknowledgement and wide-batch cases")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one thread")
    if args.only == "acks":
        acks_section([int(n) for n in args.acks.split(",")], [int(w) for w in args.widths.split(",")])
        return
    print(f"{'batch':>6} {'acknowledged':>12} {'records':>9} {'records/s':>11} {'us/batch':>10}")
    for batch in (1, 100, 10_000):
        for mode in ("whole", "per-offset", "one-by-one"):
            if batch == 1 and mode != "whole":
                continue  # one record: the three are the same call
            records = args.records if mode != "one-by-one" else args.records // 4
            rate, per_batch = throughput(batch, mode, records)
            done = max(1, records // batch) * batch
            print(f"{batch:>6} {mode:>12} {done:>9} {rate:>11,.0f} {per_batch:>10,.1f}")
    print(f"\nmemory, {args.memory_records:,} in-flight records (tracemalloc)")
    for batch, split in ((100, False), (10_000, False), (100, True)):
        per_record = memory(args.memory_records, batch, split)
        label = f"batches of {batch:,}, " + ("each split" if split else "whole")
        print(f"  {label:30} {per_record:8.2f} bytes per in-flight record")
    acks_section([int(n) for n in args.acks.split(",")], [int(w) for w in args.widths.split(",")])


if __name__ == "__main__":
    main()

"""Decode throughput of coordinator records: batch framing + key + value, per compression.

Builds an in-memory log of OffsetCommit records (and one of ShareSnapshot/ShareUpdate records),
100 records a batch as a busy coordinator writes them, then times reading it back with
groupspec's batch reader and record codec on one core. Prints records per second for framing
alone and for framing + key + value decode.

    python bench/bench_codec.py                    # 1,000,000 records, every compression
    python bench/bench_codec.py --records 200000 --compression none
"""

from __future__ import annotations

import argparse
import platform
import time
import uuid

from groupspec.impl.codec.batch import Record, encode_batch, read_batches
from groupspec.impl.codec.compression import Compression
from groupspec.impl.codec.records import decode_record, encode_key, encode_value
from groupspec.types.records import (
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    OffsetCommitKey,
    OffsetCommitValue,
    ShareSnapshotKey,
    ShareSnapshotValue,
    ShareUpdateKey,
    ShareUpdateValue,
)

PER_BATCH = 100


def offset_commits(n: int) -> list[tuple[bytes, bytes]]:
    out = []
    for i in range(n):
        key = encode_key(OffsetCommitKey(group=f"group-{i % 1000}", topic=f"topic-{i % 37}",
                                         partition=i % 64))
        value = encode_value(OffsetCommitValue(offset=i * 17, leader_epoch=3, metadata="",
                                               commit_timestamp=1_700_000_000_000 + i))
        out.append((key, value))
    return out


def share_records(n: int) -> list[tuple[bytes, bytes]]:
    out = []
    tid = uuid.UUID(int=0x1234567890ABCDEF1234567890ABCDEF)
    for i in range(n):
        batches = tuple(ShareSnapshotValue.StateBatch(first_offset=i * 10 + k, last_offset=i * 10 + k,
                                                      delivery_state=2, delivery_count=1) for k in range(3))
        if i % 10 == 0:
            key = encode_key(ShareSnapshotKey(group_id="sg", topic_id=tid, partition=i % 8))
            value = encode_value(ShareSnapshotValue(snapshot_epoch=i, state_epoch=1, leader_epoch=1,
                                                    start_offset=i * 10, state_batches=batches))
        else:
            ub = tuple(ShareUpdateValue.StateBatch(first_offset=b.first_offset, last_offset=b.last_offset,
                                                   delivery_state=b.delivery_state,
                                                   delivery_count=b.delivery_count) for b in batches)
            key = encode_key(ShareUpdateKey(group_id="sg", topic_id=tid, partition=i % 8))
            value = encode_value(ShareUpdateValue(snapshot_epoch=i, leader_epoch=1, start_offset=-1,
                                                  state_batches=ub))
        out.append((key, value))
    return out


def build_log(pairs: list[tuple[bytes, bytes]], compression: Compression) -> bytes:
    chunks = []
    for start in range(0, len(pairs), PER_BATCH):
        recs = [Record(start + k, 1_700_000_000_000, key, value)
                for k, (key, value) in enumerate(pairs[start:start + PER_BATCH])]
        chunks.append(encode_batch(recs, base_offset=start, compression=compression))
    return b"".join(chunks)


def measure(log: bytes, topic: str, n: int, repeats: int) -> tuple[float, float]:
    best_frame = best_full = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        count = sum(len(b.records) for _, b in read_batches(log))
        t1 = time.perf_counter()
        decoded = 0
        for _, batch in read_batches(log):
            for rec in batch.records:
                decode_record(topic, rec.key, rec.value)  # type: ignore[arg-type]
                decoded += 1
        t2 = time.perf_counter()
        assert count == decoded == n
        best_frame, best_full = min(best_frame, t1 - t0), min(best_full, t2 - t1)
    return n / best_frame, n / best_full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compression", action="append", choices=[c.name.lower() for c in Compression])
    args = parser.parse_args()
    codecs = [Compression[c.upper()] for c in (args.compression or [c.name.lower() for c in Compression])]
    print(f"python {platform.python_version()} on {platform.machine()}, one core; "
          f"{args.records:,} records, {PER_BATCH} per batch, best of {args.repeats}")
    print(f"{'records':<12} {'compression':<12} {'log bytes':>12} {'framing rec/s':>14} {'full rec/s':>12}")
    for label, topic, make in (("OffsetCommit", OFFSETS_TOPIC, offset_commits),
                               ("ShareState", SHARE_STATE_TOPIC, share_records)):
        pairs = make(args.records)
        for codec in codecs:
            log = build_log(pairs, codec)
            framing, full = measure(log, topic, args.records, args.repeats)
            print(f"{label:<12} {codec.name.lower():<12} {len(log):>12,} {framing:>14,.0f} {full:>12,.0f}")


if __name__ == "__main__":
    main()

"""Share coordinator: write + snapshot throughput, and replay of a long ``__share_group_state`` log.

Writes (the implementation, ``ShareCoordinator``, on the coordinator runtime with in-memory
logs): K keys (default 100) are initialized, then W writes (default 50,000) go round the keys,
each persisting two state batches just above a start offset that moves on, as a share
partition's leader does. Prints writes per second and records per second for the default cadence
(a snapshot after 500 updates) and for ``--cadence`` (default 10), plus the spec's writes per
second on the same run.

Replay: a log of N records (default 1,000,000) for K keys on one partition, a snapshot per key
every 500 records of it and updates otherwise, is appended to a partition log, then a fresh
shard loads it (decoding and replaying every record). Prints records per second and the peak
resident memory the process reached (``ru_maxrss``) before and after the load.

    .venv/bin/python bench/bench_share_state.py
    .venv/bin/python bench/bench_share_state.py --writes 5000 --records 100000   # quick
"""

from __future__ import annotations

import argparse
import platform
import resource
import time
import uuid

from groupspec.impl.share_state import ShareCoordinator
from groupspec.spec import share_state as spec
from groupspec.types import records as r
from groupspec.types.records import CoordinatorRecord
from groupspec.types.share_state import (
    InitializeShareGroupState,
    ShareStateConfig,
    StateBatch,
    TopicMetadata,
    WriteShareGroupState,
)

TOPIC = "00000000-0000-4000-8000-000000000001"


def _events(keys: int, writes: int) -> list[object]:
    events: list[object] = [InitializeShareGroupState("g", TOPIC, p, 0, 0) for p in range(keys)]
    for i in range(writes):
        p, base = i % keys, (i // keys) * 10
        batches = (StateBatch(base + 10, base + 14, 2, 1), StateBatch(base + 15, base + 19, 0, 1))
        events.append(WriteShareGroupState("g", TOPIC, p, 0, 0, base, batches))
    return events


def bench_writes(keys: int, writes: int, cadence: int) -> None:
    config = ShareStateConfig(state_topic_partitions=50, updates_per_snapshot=cadence)
    topics = (TopicMetadata(TOPIC, keys),)
    events = _events(keys, writes)
    coordinator = ShareCoordinator(config, topics)
    start, written = time.perf_counter(), 0
    for i, e in enumerate(events):
        written += len(coordinator.handle(e, i).records)  # type: ignore[arg-type]
    took = time.perf_counter() - start
    state = spec.initial_state(config, topics)
    s_start = time.perf_counter()
    for i, e in enumerate(events):
        state, _ = spec.step(state, e, i)  # type: ignore[arg-type]
    s_took = time.perf_counter() - s_start
    print(f"writes  keys={keys} writes={writes} updates_per_snapshot={cadence}: "
          f"impl {len(events) / took:,.0f} requests/s, {written / took:,.0f} records/s; "
          f"spec {len(events) / s_took:,.0f} requests/s")


def bench_replay(keys: int, records: int) -> None:
    config = ShareStateConfig(state_topic_partitions=1)
    coordinator = ShareCoordinator(config, (TopicMetadata(TOPIC, keys),))
    log = coordinator.runtime.log(0)
    topic = uuid.UUID(TOPIC)
    chunk: list[CoordinatorRecord] = []
    t0 = time.perf_counter()
    for i in range(records):
        p, n = i % keys, i // keys
        base = n * 10
        if n % 500 == 0:
            snap = (r.ShareSnapshotValue.StateBatch(base, base + 9, 0, 1),)
            value = r.ShareSnapshotValue(snapshot_epoch=n // 500, start_offset=base, state_batches=snap)
            chunk.append(CoordinatorRecord(r.ShareSnapshotKey("g", topic, p), value, 0))
        else:
            batch = r.ShareUpdateValue.StateBatch
            update = r.ShareUpdateValue(snapshot_epoch=n // 500, start_offset=base, state_batches=(
                batch(base, base + 4, 2, 1), batch(base + 5, base + 9, 0, 1)))
            chunk.append(CoordinatorRecord(r.ShareUpdateKey("g", topic, p), update, 0))
        if len(chunk) == 1000:
            log.append(chunk, 0)
            chunk = []
    if chunk:
        log.append(chunk, 0)
    built = time.perf_counter() - t0
    coordinator.runtime.unload(0)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t1 = time.perf_counter()
    coordinator.runtime.load(0)
    took = time.perf_counter() - t1
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    view = coordinator.view()
    print(f"replay  keys={keys} records={records} (log of {log.size_bytes() / 1e6:,.1f} MB written in "
          f"{built:,.1f} s): {records / took:,.0f} records/s ({took:,.1f} s); peak RSS "
          f"{rss_before / 1024:,.0f} MB before the load, {rss_after / 1024:,.0f} MB after; "
          f"{len(view.share_partitions)} keys, last redundant offset "
          f"{view.coordinator_partitions[0].last_redundant_offset}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--writes", type=int, default=50_000)
    parser.add_argument("--cadence", type=int, default=10)
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}")
    bench_writes(args.keys, args.writes, 500)
    bench_writes(args.keys, args.writes, args.cadence)
    bench_replay(args.keys, args.records)


if __name__ == "__main__":
    main()

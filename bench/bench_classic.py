"""Classic group coordinator throughput and shard load time.

Request handling: G groups of M members each (default 1,000 x 10) go through the whole classic
protocol on one ``ClassicCoordinator`` (50 shards, one thread, as a Kafka shard is one thread):
the two-step JoinGroup (MEMBER_ID_REQUIRED, then the join with the issued id), the join phase
completing, every member's SyncGroup (the leader's with the assignment), then R rounds of a
Heartbeat from every member and R rounds of an OffsetCommit of P partitions from every member.
Each phase prints requests per second; since every shard runs on the caller's thread, that is
also what one shard sustains.

Load: a log of N records (default 1,000,000: OffsetCommit records of many groups, a
GroupMetadata record per group) is written to one partition, then a fresh shard loads it by
replaying the whole log (decode + replay). Prints records per second.

    .venv/bin/python bench/bench_classic.py
    .venv/bin/python bench/bench_classic.py --groups 100 --load-records 100000   # quick
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.impl.runtime.partitioning import partition_for
from groupspec.types.classic_group import (
    AdvanceClock,
    ClassicConfig,
    ClassicEvent,
    CommitPartition,
    CommitTopic,
    Heartbeat,
    JoinGroup,
    JoinGroupResponse,
    OffsetCommit,
    Protocol,
    SyncAssignment,
    SyncGroup,
)
from groupspec.types.errors import Errors
from groupspec.types.records import (
    CoordinatorRecord,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
)


class Driver:
    def __init__(self, coordinator: ClassicCoordinator) -> None:
        self.coordinator = coordinator
        self.index = 0
        self.answers: dict[int, object] = {}

    def send(self, event: ClassicEvent) -> int:
        index = self.index
        self.index += 1
        out = self.coordinator.handle(event, index)
        for answer in out.answers:
            self.answers[answer.request] = answer.response
        return index


def timed(label: str, count: int, body: Callable[[], None]) -> None:
    start = time.perf_counter()
    body()
    took = time.perf_counter() - start
    print(f"{label:<44} {count:>9,} requests {took:8.2f} s {count / took:>12,.0f} req/s")


def requests_bench(groups: int, members: int, rounds: int, partitions: int) -> None:
    config = ClassicConfig(initial_rebalance_delay_ms=0)
    driver = Driver(ClassicCoordinator(config))
    protocol = (Protocol("range", b"\x00\x03\x00\x00\x00\x01\x00\x06orders\xff\xff\xff\xff"),)
    ids: dict[str, list[str]] = {}
    group_ids = [f"group-{g}" for g in range(groups)]

    def first_joins() -> None:
        for g in group_ids:
            issued = []
            for m in range(members):
                i = driver.send(JoinGroup(g, protocols=protocol, client_id=f"c{m}",
                                          new_member_uuid=f"{m:08d}-0000-0000-0000-000000000000"))
                response = driver.answers[i]
                assert isinstance(response, JoinGroupResponse)
                assert response.error is Errors.MEMBER_ID_REQUIRED, response
                issued.append(response.member_id)
            ids[g] = issued

    joins: dict[str, list[int]] = {}

    def second_joins() -> None:
        for g in group_ids:
            joins[g] = [driver.send(JoinGroup(g, member_id=m, protocols=protocol)) for m in ids[g]]

    timed("JoinGroup (first, MEMBER_ID_REQUIRED)", groups * members, first_joins)
    timed("JoinGroup (with the issued id)", groups * members, second_joins)
    driver.send(AdvanceClock(driver.coordinator.runtime.clock.now()))  # the initial delay (0) fires
    generation: dict[str, int] = {}
    leader: dict[str, str] = {}
    for g in group_ids:
        response = driver.answers[joins[g][0]]
        assert isinstance(response, JoinGroupResponse) and response.error is Errors.NONE, response
        generation[g] = response.generation_id
        leader[g] = response.leader

    def syncs() -> None:
        for g in group_ids:
            gen = generation[g]
            for m in ids[g]:
                assignments = (tuple(SyncAssignment(x, b"\x00\x03") for x in ids[g])
                               if m == leader[g] else ())
                driver.send(SyncGroup(g, gen, m, protocol_type="consumer", protocol_name="range",
                                      assignments=assignments))

    timed("SyncGroup", groups * members, syncs)

    def heartbeats() -> None:
        for _ in range(rounds):
            for g in group_ids:
                gen = generation[g]
                for m in ids[g]:
                    driver.send(Heartbeat(g, gen, m))

    timed("Heartbeat", rounds * groups * members, heartbeats)
    topics = (CommitTopic("orders", tuple(CommitPartition(p, 1000) for p in range(partitions))),)

    def commits() -> None:
        for _ in range(rounds):
            for g in group_ids:
                gen = generation[g]
                for m in ids[g]:
                    driver.send(OffsetCommit(g, gen, m, topics=topics))

    timed(f"OffsetCommit ({partitions} partitions each)", rounds * groups * members, commits)
    runtime = driver.coordinator.runtime
    records = sum(runtime.log(p).next_offset for p in range(config.offsets_topic_partitions))
    print(f"log entries written: {records:,}")


def load_bench(records: int) -> None:
    config = ClassicConfig()
    coordinator = ClassicCoordinator(config)
    runtime = coordinator.runtime
    # Every group on one partition, so one shard loads the whole log.
    partition = partition_for("load-0", config.offsets_topic_partitions)
    names = []
    n = 0
    while len(names) < max(1, records // 1000):
        name = f"load-{n}"
        n += 1
        if partition_for(name, config.offsets_topic_partitions) == partition:
            names.append(name)
    log = runtime.log(partition)
    written = 0
    batch: list[CoordinatorRecord] = []
    for name in names:
        batch.append(CoordinatorRecord(GroupMetadataKey(name), GroupMetadataValue(
            protocol_type="consumer", generation=1, protocol="range", leader=None,
            current_state_timestamp=0, members=())))
        written += 1
    log.append(batch, 0)
    i = 0
    while written < records:
        batch = []
        for _ in range(min(100, records - written)):
            name = names[i % len(names)]
            value = OffsetCommitValue(offset=i, metadata="", commit_timestamp=1_700_000_000_000 + i)
            batch.append(CoordinatorRecord(OffsetCommitKey(name, f"topic-{i % 37}", i % 64), value))
            i += 1
            written += 1
        log.append(batch, 0)
    runtime.unload(partition)
    start = time.perf_counter()
    runtime.load(partition)
    took = time.perf_counter() - start
    size = log.size_bytes()
    print(f"shard load: {written:,} records ({size:,} bytes, {len(names):,} groups) in {took:.2f} s: "
          f"{written / took:,.0f} records/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--partitions", type=int, default=10, help="partitions per OffsetCommit")
    parser.add_argument("--load-records", type=int, default=1_000_000)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, one thread; "
          f"{args.groups} groups x {args.members} members, {args.rounds} rounds")
    requests_bench(args.groups, args.members, args.rounds, args.partitions)
    load_bench(args.load_records)


if __name__ == "__main__":
    main()

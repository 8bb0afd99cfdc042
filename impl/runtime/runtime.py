"""The coordinator runtime: shards that write records, replay them, and load from their log.

Kafka's group and share coordinators run on one engine (coordinator-common's
``CoordinatorRuntime``): a coordinator topic partition is a *shard* with its own in-memory state;
a request becomes a write operation on the shard that owns its key; the operation returns
records and a response; the records are appended to the partition's log and, unless the
operation says it already changed memory, replayed into the shard. A shard that loads (a broker
becoming the partition's leader) starts empty and replays the whole log. Replaying what was
written must therefore rebuild the state, and groupspec's tests check exactly that.

What this module keeps from Kafka and what it leaves out:

- Partition states: not hosted (NOT_COORDINATOR), loading (COORDINATOR_LOAD_IN_PROGRESS),
  active. Kafka's FAILED/CLOSED states collapse into "not hosted".
- Everything runs on the caller's thread, one operation at a time; an append commits at once,
  so a response is released in the step that wrote its records, after the append returned, that
  is after its batch is in the segment file (Kafka waits for the high watermark; the order of
  responses is the same). With ``log_dir`` an append can fail on I/O (a typed ``InputError``).
- Timers are one queue for all shards on one injected clock (``TimerQueue``): a timer is a
  write operation of its shard, run when the clock is advanced past its deadline. Unloading a
  shard cancels its timers, as Kafka's shard-scoped timer does.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from groupspec.impl.codec.compression import Compression
from groupspec.impl.runtime.clock import ManualClock
from groupspec.impl.runtime.log import PartitionLog, Truncation
from groupspec.impl.runtime.timer import Fired, TimerQueue
from groupspec.types import GroupspecError, InputError
from groupspec.types.classic_group import Answer, LogEntry

T = TypeVar("T")


class NotCoordinatorError(GroupspecError):
    """The partition is not hosted here (never loaded, or unloaded): Kafka's NOT_COORDINATOR."""

    def __init__(self, topic: str, partition: int) -> None:
        super().__init__(f"{topic}-{partition} is not hosted by this coordinator")
        self.partition = partition


class LoadInProgressError(GroupspecError):
    """The partition is still loading: Kafka's COORDINATOR_LOAD_IN_PROGRESS."""

    def __init__(self, topic: str, partition: int) -> None:
        super().__init__(f"{topic}-{partition} is still loading")
        self.partition = partition


@dataclass
class WriteResult:
    """What a write operation (a request handler or a timer) produced."""

    answers: list[Answer] = field(default_factory=list)
    records: list[LogEntry] = field(default_factory=list)
    #: Replay the records into the shard after appending them (Kafka's
    #: ``CoordinatorResult.replayRecords``). An operation that already changed memory itself (the
    #: classic group manager does) passes False; the records still reach the log and a later load.
    replay: bool = True
    #: Earlier requests that will never be answered now (a parked request another replaced).
    dropped: list[int] = field(default_factory=list)


class CoordinatorShard(Protocol):
    """What the runtime needs from a shard."""

    def replay(self, offset: int, entry: LogEntry) -> None: ...

    def on_loaded(self) -> None: ...

    def on_unloaded(self) -> list[Answer]: ...


S = TypeVar("S", bound=CoordinatorShard)
TimerOp = Callable[[], WriteResult]


@contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused for a bulk load, and restored as it was.

    A load keeps nearly every object it makes (one offset entry per committed partition, its
    key tuple and strings), so the collector's generation counts keep tripping and each pass
    walks the ever larger heap of live state it cannot free: measured, it took about half the
    CPU of replaying a million offset commits (bench/README.md, "Library decode + replay").
    Reference counting still frees the per-record garbage; any cycle made meanwhile is
    collected at the next pass after the load.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class ShardContext:
    """A shard's handle on the runtime: its partition, the clock and its own timers."""

    def __init__(self, runtime: CoordinatorRuntime[Any], partition: int) -> None:
        self._runtime = runtime
        self._timers = runtime._timers
        self._clock = runtime.clock
        self.partition = partition
        self._prefix = f"{partition}/"
        self._keys: set[str] = set()

    def now(self) -> int:
        return self._clock.now()

    def log_end(self) -> int:
        """The offset this partition's next record will take: what reads at the last written
        record see (Kafka's reads of committed state) moves only when this does."""
        return self._runtime.log(self.partition).next_offset

    def schedule(self, key: str, delay_ms: int, op: TimerOp) -> None:
        """Arm ``key`` (replacing a timer of that name) to run ``op`` as a write of this shard."""
        self._timers.schedule(self._prefix + key, delay_ms, (self.partition, op))
        self._keys.add(key)

    def cancel(self, key: str) -> None:
        self._timers.cancel(self._prefix + key)
        self._keys.discard(key)

    def is_scheduled(self, key: str) -> bool:
        return self._timers.is_scheduled(self._prefix + key)

    def deadline(self, key: str) -> int | None:
        return self._timers.deadline(self._prefix + key)

    def armed(self) -> dict[str, int]:
        """This shard's armed timers and their deadlines."""
        out = {}
        for key in list(self._keys):
            deadline = self._timers.deadline(self._prefix + key)
            if deadline is None:
                self._keys.discard(key)  # fired or replaced under another name
            else:
                out[key] = deadline
        return out

    def _cancel_all(self) -> None:
        for key in list(self._keys):
            self.cancel(key)


class PartitionState(Enum):
    LOADING = "loading"
    ACTIVE = "active"


class CoordinatorRuntime(Generic[S]):
    """The shards of one coordinator topic on this node, their logs and their timers.

    Logs outlive shards: unloading drops the in-memory shard, and loading replays the log into
    a new one. ``log_dir`` keeps the logs as segment files instead of memory; logs found there
    are recovered when the runtime is built (a torn tail cut off and listed in
    :meth:`truncations`, other damage refused). ``fsync`` syncs each append to the disk before
    its write is answered (docs/runtime.md: what each setting survives).
    """

    def __init__(
        self,
        topic: str,
        partitions: int,
        new_shard: Callable[[ShardContext], S],
        clock: ManualClock,
        *,
        log_dir: Path | None = None,
        compression: Compression = Compression.NONE,
        fsync: bool = False,
    ) -> None:
        if not isinstance(partitions, int) or partitions < 1:
            raise InputError("partitions", f"a coordinator topic needs partitions, not {partitions!r}")
        self.topic = topic
        self.partitions = partitions
        self.clock = clock
        self._new_shard = new_shard
        self._timers: TimerQueue[tuple[int, TimerOp]] = TimerQueue(clock)
        self._logs = [PartitionLog(topic, p, directory=log_dir, compression=compression, fsync=fsync)
                      for p in range(partitions)]
        self._states: dict[int, PartitionState] = {}
        self._shards: dict[int, S] = {}
        self._contexts: dict[int, ShardContext] = {}

    # -- hosting ----------------------------------------------------------------------------------

    def _check_partition(self, partition: int) -> None:
        if not isinstance(partition, int) or not 0 <= partition < self.partitions:
            raise InputError("partition", f"{partition!r} is not a partition of {self.topic} "
                             f"(0..{self.partitions - 1})")

    def begin_load(self, partition: int) -> None:
        """Become the partition's leader: requests get LOAD_IN_PROGRESS until :meth:`load`."""
        self._check_partition(partition)
        if partition in self._shards:
            raise InputError("partition", f"{self.topic}-{partition} is already loaded")
        self._states[partition] = PartitionState.LOADING

    def load(self, partition: int) -> None:
        """Replay the partition's log into a new shard, then let it arm its timers.

        A log that cannot be read fails the load with its typed error and leaves the partition
        not hosted (Kafka's FAILED state, which answers NOT_COORDINATOR), not stuck loading.
        """
        self._check_partition(partition)
        log = self._logs[partition]

        def feed(shard: S) -> None:
            # A shard that reads its log's batches itself (the classic shard's fast path for
            # offset commits) loads the way a reader of real segment files does, so every
            # restart exercises that path; any other shard replays one entry at a time.
            replay_batches = getattr(shard, "replay_batches", None)
            if replay_batches is not None:
                replay_batches(log.topic, log.partition, log.raw_batches_read())
                return
            for offset, entry in log.entries():
                shard.replay(offset, entry)

        self.load_with(partition, feed)

    def load_from(self, partition: int, entries: Iterable[tuple[int, LogEntry]]) -> None:
        """:meth:`load` from entries read elsewhere (another broker's segment files, streamed):
        the shard is what replaying them makes, and this runtime's own log is left as it is, so
        a reader of someone else's log neither copies it nor writes to it."""

        def replay_all(shard: S) -> None:
            for offset, entry in entries:
                shard.replay(offset, entry)

        self.load_with(partition, replay_all)

    def load_with(self, partition: int, feed: Callable[[S], None]) -> None:
        """:meth:`load_from` where ``feed`` replays into the new shard itself: for a loader that
        calls a shard's own replay methods (the classic shard's ``replay_batches``) rather than
        handing it one entry object per record."""
        self._check_partition(partition)
        if partition in self._shards:
            raise InputError("partition", f"{self.topic}-{partition} is already loaded")
        self._states[partition] = PartitionState.LOADING
        context = ShardContext(self, partition)
        shard = self._new_shard(context)
        try:
            with without_cycle_collection():
                feed(shard)
        except BaseException:
            context._cancel_all()
            self._states.pop(partition, None)
            raise
        self._shards[partition] = shard
        self._contexts[partition] = context
        self._states[partition] = PartitionState.ACTIVE
        shard.on_loaded()

    def load_all(self) -> None:
        for partition in range(self.partitions):
            if partition not in self._shards:
                self.load(partition)

    def unload(self, partition: int) -> list[Answer]:
        """Stop leading the partition: the shard answers what it parked, then it is dropped."""
        self._check_partition(partition)
        state = self._states.pop(partition, None)
        shard = self._shards.pop(partition, None)
        context = self._contexts.pop(partition, None)
        if context is not None:
            context._cancel_all()
        if shard is None or state is not PartitionState.ACTIVE:
            return []
        return shard.on_unloaded()

    def unload_all(self) -> list[Answer]:
        answers: list[Answer] = []
        for partition in sorted(self._states):
            answers += self.unload(partition)
        return answers

    def active_partitions(self) -> list[int]:
        return sorted(self._shards)

    def loading_partitions(self) -> list[int]:
        return sorted(p for p, state in self._states.items() if state is PartitionState.LOADING)

    # -- operations -------------------------------------------------------------------------------

    def shard(self, partition: int) -> S:
        """The active shard of ``partition``; NOT_COORDINATOR or LOAD_IN_PROGRESS otherwise."""
        self._check_partition(partition)
        state = self._states.get(partition)
        if state is None:
            raise NotCoordinatorError(self.topic, partition)
        if state is PartitionState.LOADING:
            raise LoadInProgressError(self.topic, partition)
        return self._shards[partition]

    def shards(self) -> Iterator[tuple[int, S]]:
        """Every active shard, in partition order."""
        for partition in sorted(self._shards):
            yield partition, self._shards[partition]

    def context(self, partition: int) -> ShardContext:
        self.shard(partition)
        return self._contexts[partition]

    def write(self, partition: int, op: Callable[[S], WriteResult]) -> WriteResult:
        """Run a write operation on the partition's shard and commit what it wrote."""
        shard = self.shard(partition)
        result = op(shard)
        self._commit(partition, shard, result)
        return result

    def read(self, partition: int, op: Callable[[S], T]) -> T:
        return op(self.shard(partition))

    def _commit(self, partition: int, shard: S, result: WriteResult) -> None:
        if not result.records:
            return
        appended = self._logs[partition].append(result.records, self.clock.now())
        if result.replay:
            for offset, entry in zip(appended.offsets, result.records, strict=True):
                shard.replay(offset, entry)

    def advance_clock(self, to_ms: int) -> list[WriteResult]:
        """Move the clock and run every timer that comes due, each as a write of its shard."""
        results: list[WriteResult] = []

        def run(fired: Fired[tuple[int, TimerOp]]) -> None:
            partition, op = fired.payload
            shard = self._shards.get(partition)
            if shard is None:  # unloaded: its timers were cancelled, so this is a stale entry
                return
            context = self._contexts[partition]
            context._keys.discard(fired.key[len(context._prefix):])
            result = op()
            self._commit(partition, shard, result)
            results.append(result)

        self._timers.advance(to_ms, run)
        return results

    # -- logs -------------------------------------------------------------------------------------

    def log(self, partition: int) -> PartitionLog:
        self._check_partition(partition)
        return self._logs[partition]

    def truncations(self) -> list[Truncation]:
        """The torn tails cut off the logs when they were opened, by partition (usually none)."""
        return [cut for log in self._logs for cut in log.truncations]

    def close(self) -> None:
        for log in self._logs:
            log.close()

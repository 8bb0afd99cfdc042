"""Conformance cases of the share partition (machine ``share_partition``, handler ``run``).

Each case is a short, named scenario: a broker config, what the persister holds at the start,
and a list of events (fetches with the log batches the broker read, acknowledgements, member
releases, clock advances, log start moves, persister faults, reloads). The generator runs the
spec over the events and writes every answer, every persister write and the view at the end;
nothing here states an expectation except ``shows``, a few claims per case saying what it is
about, which tests/cover/test_conformance_share.py holds the spec's output to.

Sources are Kafka's SharePartitionTest examples (E numbers) and examples derived from trunk's
code (D numbers), as catalogued in docs/reference/share-partition-kafka.md, §17 and §18; the
places where Kafka's code breaks its own rule (docs/divergences.md, followed by both layers);
and the worked example of docs/machines/share_partition.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    AdvanceClock,
    CanAcquire,
    FenceLeader,
    Fetch,
    LogBatch,
    MoveLogStart,
    PersistedState,
    PersisterBatch,
    RecordState,
    ReleaseMember,
    Reload,
    ResetShareState,
    SetPersisterError,
    SharePartitionConfig,
    SharePartitionEvent,
)

MACHINE = "share_partition"
HANDLER = "run"
FACT_SHEET = "docs/reference/share-partition-kafka.md"
#: SharePartitionTest's defaults: delivery limit 5, 200 in-flight records, 30 s locks.
TEST_CONFIG = SharePartitionConfig(5, 200, 30_000)
M1, M2 = "member-1", "member-2"
GAP, ACCEPT, RELEASE, REJECT, RENEW = 0, 1, 2, 3, 4
AV, ACK, ARCH = RecordState.AVAILABLE, RecordState.ACKNOWLEDGED, RecordState.ARCHIVED


# ---------------------------------------------------------------------------------------------
# Claims: what a case shows, checked against the spec's output by the tests
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answered:
    """The acknowledgement, release or reload at ``event`` is answered with ``error``."""

    event: int
    error: Errors


@dataclass(frozen=True)
class Acquired:
    """The fetch at ``event`` acquires ``count`` records."""

    event: int
    count: int


@dataclass(frozen=True)
class Ends:
    """After the last event: start offset, end offset and next fetch offset."""

    start_offset: int
    end_offset: int
    next_fetch_offset: int


@dataclass(frozen=True)
class Gated:
    """The CanAcquire at ``event`` answers ``can_acquire``."""

    event: int
    can_acquire: bool


Claim = Answered | Acquired | Ends | Gated


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    source: Mapping[str, str]
    events: tuple[SharePartitionEvent, ...]
    config: SharePartitionConfig = TEST_CONFIG
    persisted: PersistedState = PersistedState()  # noqa: RUF009 (frozen, immutable)
    latest_offset: int = 0
    shows: tuple[Claim, ...] = ()


@dataclass
class Script:
    """Events appended one by one; each method returns the event's index for claims."""

    config: SharePartitionConfig = TEST_CONFIG
    persisted: PersistedState = field(default_factory=PersistedState)
    events: list[SharePartitionEvent] = field(default_factory=list)
    shows: list[Claim] = field(default_factory=list)
    now: int = 0

    def add(self, event: SharePartitionEvent) -> int:
        self.events.append(event)
        if isinstance(event, AdvanceClock):
            self.now = event.to_ms
        return len(self.events) - 1

    def fetch(self, offset: int, *log: tuple[int, int], member: str = M1, max_records: int = 500,
              batch_size: int = 500, count: int | None = None) -> int:
        index = self.add(Fetch(member, offset, tuple(LogBatch(b, last) for b, last in log), max_records,
                               batch_size))
        if count is not None:
            self.shows.append(Acquired(index, count))
        return index

    def ack(self, *batches: tuple[int, int, int | tuple[int, ...]], member: str = M1,
            error: Errors | None = None) -> int:
        index = self.add(Acknowledge(member, tuple(AckBatch(f, last, t if isinstance(t, tuple) else (t,))
                                                   for f, last, t in batches)))
        if error is not None:
            self.shows.append(Answered(index, error))
        return index

    def release(self, member: str = M1, error: Errors | None = None) -> int:
        index = self.add(ReleaseMember(member))
        if error is not None:
            self.shows.append(Answered(index, error))
        return index

    def can_acquire(self, expected: bool) -> int:
        index = self.add(CanAcquire())
        self.shows.append(Gated(index, expected))
        return index

    def advance(self, by_ms: int) -> int:
        return self.add(AdvanceClock(self.now + by_ms))

    def ends(self, start: int, end: int, next_fetch: int) -> None:
        self.shows.append(Ends(start, end, next_fetch))

    def case(self, name: str, description: str, source: Mapping[str, str]) -> Case:
        return Case(name, description, source, tuple(self.events), self.config, self.persisted,
                    shows=tuple(self.shows))


def persisted(epoch: int, start: int, *batches: tuple[int, int, RecordState, int]) -> PersistedState:
    return PersistedState(epoch, start, tuple(PersisterBatch(*b) for b in batches))


def _test(example: str, test: str) -> dict[str, str]:
    """A SharePartitionTest example, transcribed (the fact sheet's E number)."""
    return {"kind": "upstream", "file": "core/src/test/java/kafka/server/share/SharePartitionTest.java",
            "test": test, "where": f"{FACT_SHEET} {example}"}


def _derived(where: str) -> dict[str, str]:
    """Derived from trunk's code, or a SharePartitionTest example whose outcome trunk changed."""
    return {"kind": "fact-sheet", "file": FACT_SHEET, "where": where}


def _kafka_quirk(name: str) -> dict[str, str]:
    """Kafka's code against its own stated rule; both layers follow the code, so these are not
    ``divergence`` vectors (those are where groupspec's expectation differs from Kafka's)."""
    return {"kind": "fact-sheet", "file": "docs/divergences.md", "where": name}


def _divergence(name: str, where: str) -> dict[str, str]:
    """Where Kafka's code answers otherwise and groupspec keeps its own answer: the vector fails
    on Kafka (a known failure of tests/kafka/test_kafka_share_partition.py)."""
    return {"kind": "divergence", "name": name,
            "upstream": "core/src/main/java/kafka/server/share/SharePartition.java",
            "docs": f"docs/divergences.md#{name}", "where": f"{FACT_SHEET} {where}"}


def _hand_made(where: str) -> dict[str, str]:
    return {"kind": "hand-made", "ref": where}


# ---------------------------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------------------------


def _worked_example() -> Case:
    s = Script(SharePartitionConfig(3, 200, 30_000))
    s.fetch(0, (0, 4), (5, 9), member="c1", count=10)
    s.ack((0, 4, ACCEPT), member="c1", error=Errors.NONE)
    s.fetch(10, (0, 4), (5, 9), member="c2", count=0)
    s.advance(30_000)
    s.fetch(5, (5, 9), member="c2", count=5)
    s.ack((5, 9, (ACCEPT, RELEASE, REJECT, ACCEPT, RELEASE)), member="c2", error=Errors.NONE)
    s.fetch(6, (5, 9), member="c1", count=1)
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    s.ack((6, 6, ACCEPT), member="c1", error=Errors.UNKNOWN_SERVER_ERROR)
    s.add(SetPersisterError(Errors.NONE))
    s.ack((9, 9, RENEW), member="c1", error=Errors.INVALID_RECORD_STATE)
    s.advance(30_000)
    s.ends(9, 9, 9)
    return s.case("worked_example",
                  "The worked example of docs/machines/share_partition.md: a partial acknowledgement "
                  "splits the "
                  "batch, locks expire, per-offset types, the last delivery goes alone, a failed write "
                  "puts the record back, RENEW of a record nobody holds is refused, and the last "
                  "expiry at the delivery limit archives.",
                  _hand_made("docs/machines/share_partition.md, A worked example"))


def _initialize() -> Case:
    s = Script(persisted=persisted(3, 5, (5, 10, AV, 2), (11, 15, ARCH, 3)))
    s.fetch(5, (5, 15), count=6)
    s.ends(5, 15, 16)
    return s.case("initialize_from_persisted_state",
                  "The persisted batches come back cached with their states and delivery counts; a "
                  "fetch takes the AVAILABLE ones at their next delivery.",
                  _test("E1", "testMaybeInitialize"))


def _initialize_finished() -> Case:
    s = Script(persisted=persisted(3, 233, (233, 233, ARCH, 1), (234, 733, ACK, 1)))
    s.ends(734, 734, 734)
    return s.case("initialize_all_finished",
                  "A persisted state whose batches are all finished starts past them, with an empty "
                  "cache.", _test("E5", "testMaybeInitializeWhenReadStateRpcReturnsZeroAvailableRecords"))


def _gap_window() -> Case:
    s = Script(persisted=persisted(3, 10, (15, 18, AV, 2), (20, 22, ARCH, 2), (26, 30, AV, 3)))
    s.fetch(10, (10, 49), max_records=1, count=5)
    s.fetch(15, (10, 49), max_records=10, count=8)
    s.fetch(26, (10, 49), max_records=1, count=2)
    s.ends(10, 30, 28)
    return s.case("persisted_gaps_filled_with_throttling",
                  "Holes in the persisted state are fetched first, up to the next cached batch even past "
                  "max records; the batch at 3 deliveries is throttled and handed out in halves.",
                  _derived("E7 with trunk's throttling (§9)"))


def _batch_cuts() -> Case:
    s = Script()
    s.fetch(0, (2, 6), (10, 14), (15, 21), (22, 27), max_records=100, batch_size=5, count=26)
    s.ends(2, 27, 28)
    return s.case("batch_size_cuts_at_log_batch_bases",
                  "Acquired records are cut into in-flight batches at log batch bases once a batch "
                  "holds batch_size records; a log batch is never cut.",
                  _test("E10", "testAcquireWithBatchSizeAndMultipleBatches"))


def _in_flight_limit() -> Case:
    s = Script(SharePartitionConfig(5, 20, 30_000))
    s.fetch(0, (10, 14), (15, 24), (25, 29), (30, 32), count=20)
    s.ack((15, 19, RELEASE), error=Errors.NONE)
    s.fetch(15, (10, 14), (15, 24), (25, 29), (30, 32), count=5)
    s.fetch(30, (30, 32), count=0)
    s.ends(10, 29, 30)
    return s.case("in_flight_limit",
                  "At the in-flight limit nothing new is acquired, but released records inside the "
                  "cache go again.", _test("E12", "testAcquireWithMaxInFlightRecordsAndReleaseLastOffset"))


def _reacquire_subsets() -> Case:
    s = Script()
    s.fetch(5, (5, 9))
    s.fetch(10, (10, 21))
    s.ack((5, 11, RELEASE), (12, 13, GAP), (14, 15, RELEASE), (17, 20, RELEASE), error=Errors.NONE)
    s.fetch(5, (5, 9), member=M2, count=5)
    s.fetch(10, (10, 16), member=M2, count=4)
    s.ends(5, 21, 17)
    return s.case("reacquire_released_subsets",
                  "Released offsets of a split batch are acquired again by another member, skipping "
                  "gaps and records still held.", _test("E18", "testReacquireSubsetWithAnotherMember"))


def _next_fetch_two_members() -> Case:
    s = Script(SharePartitionConfig(5, 100, 30_000))
    s.fetch(0, (0, 2))
    s.ack((0, 2, RELEASE), error=Errors.NONE)
    s.fetch(3, (3, 4), member=M2, count=2)
    s.fetch(0, (0, 2), count=3)
    s.ack((3, 4, RELEASE), member=M2, error=Errors.NONE)
    s.ends(0, 4, 3)
    return s.case("next_fetch_offset_two_members",
                  "The next fetch offset goes back to the first released record, whoever released it.",
                  _test("E19", "testNextFetchOffsetWithMultipleConsumers"))


def _per_offset_types() -> Case:
    s = Script()
    s.fetch(5, (5, 6))
    s.fetch(10, (10, 18))
    s.ack((5, 6, RELEASE), (10, 18, (2, 2, 2, 2, 2, 0, 0, 0, 1)), error=Errors.NONE)
    s.ends(5, 18, 5)
    return s.case("per_offset_types_with_gaps",
                  "One type per offset splits the batch: RELEASE, gap and ACCEPT land offset by offset.",
                  _test("E13", "testAcknowledgeMultipleRecordBatchWithGapOffsets"))


def _not_cached() -> Case:
    s = Script()
    s.ack((0, 15, REJECT), error=Errors.INVALID_RECORD_STATE)
    s.fetch(0, (0, 4))
    s.fetch(20, (20, 24))
    s.ack((0, 10, ACCEPT), (20, 24, ACCEPT), error=Errors.INVALID_REQUEST)
    s.fetch(5, (5, 10))
    s.ack((0, 10, ACCEPT), (20, 24, ACCEPT), error=Errors.NONE)
    s.ends(25, 25, 25)
    return s.case("acknowledging_what_is_not_cached",
                  "Nothing cached: INVALID_RECORD_STATE; a range past the cache: INVALID_REQUEST and "
                  "nothing changes; once cached, the same call finishes everything.",
                  _test("E14", "testAcknowledgeOutOfRangeCachedData"))


def _only_holder() -> Case:
    s = Script()
    s.fetch(5, (5, 9))
    s.ack((5, 9, REJECT), member=M2, error=Errors.INVALID_RECORD_STATE)
    s.ack((5, 9, RELEASE), error=Errors.NONE)
    s.ack((5, 9, ACCEPT), error=Errors.INVALID_RECORD_STATE)
    s.fetch(5, (5, 9), count=5)
    s.ack((6, 8, REJECT), error=Errors.NONE)
    s.ack((6, 8, REJECT), error=Errors.INVALID_RECORD_STATE)
    s.ends(5, 9, 10)
    return s.case("only_the_holder_acknowledges",
                  "Another member's records, released records and finished records cannot be "
                  "acknowledged.", _test("E15", "testAcknowledgeWithAnotherMember"))


def _one_bad_batch() -> Case:
    s = Script()
    s.fetch(5, (5, 9))
    s.fetch(10, (10, 14))
    s.fetch(15, (15, 19))
    s.ack((5, 9, RELEASE), (10, 14, ACCEPT), (15, 19, ACCEPT), (19, 19, ACCEPT),
          error=Errors.INVALID_RECORD_STATE)
    s.ends(5, 19, 20)
    return s.case("one_bad_batch_undoes_the_call",
                  "The fourth batch overlaps the third by one offset (the request check allows it); "
                  "it fails, and the three good batches before it are undone with it.",
                  _derived("E16 with an overlap by one offset (trap T10)"))


def _failed_write() -> Case:
    s = Script()
    s.fetch(5, (5, 10))
    s.add(SetPersisterError(Errors.GROUP_ID_NOT_FOUND))
    s.ack((8, 10, REJECT), error=Errors.GROUP_ID_NOT_FOUND)
    s.add(SetPersisterError(Errors.FENCED_STATE_EPOCH))
    s.ack((8, 10, REJECT), error=Errors.NOT_LEADER_OR_FOLLOWER)
    s.add(SetPersisterError(Errors.NONE))
    s.ack((8, 10, REJECT), error=Errors.NONE)
    s.ends(5, 10, 11)
    return s.case("failed_write_rolls_back",
                  "A write the persister refuses undoes the acknowledgement (the split stays); the "
                  "persister's error is mapped for the client.",
                  _derived("E20"))


def _start_moves() -> Case:
    s = Script(SharePartitionConfig(5, 100, 30_000))
    s.fetch(0, (0, 19))
    s.fetch(20, (20, 39))
    s.fetch(40, (40, 59))
    s.ack((0, 19, ACCEPT), error=Errors.NONE)
    s.fetch(60, (60, 79))
    s.ack((20, 49, ACCEPT), error=Errors.NONE)
    s.fetch(80, (80, 179), count=100)
    s.ack((50, 179, REJECT), error=Errors.NONE)
    s.fetch(180, (180, 199), count=20)
    s.ends(180, 199, 200)
    return s.case("acknowledgements_move_the_start",
                  "The start offset follows finished records, into the middle of a split batch; once "
                  "everything is finished the cache empties.",
                  _test("E28", "testMaybeUpdateCachedStateMultipleAcquisitionsAndAcknowledgements"))


def _window_caps_start() -> Case:
    s = Script(persisted=persisted(3, 11, (11, 20, AV, 2), (31, 40, ARCH, 1)))
    s.fetch(11, (11, 20), count=10)
    s.ack((11, 20, ACCEPT), error=Errors.NONE)
    s.ends(21, 40, 21)
    return s.case("gap_window_caps_the_start",
                  "While persisted holes are unfetched, the start offset stops at the first hole.",
                  _test("E29", "testMaybeUpdateCachedStateGapAfterLastOffsetAcknowledged"))


def _release_writes_changes() -> Case:
    s = Script()
    s.fetch(5, (5, 5), member=M2)
    s.fetch(10, (10, 20), count=11)
    s.ack((10, 18, (1, 1, 0, 0, 1, 0, 1, 0, 1)), error=Errors.NONE)
    s.release(error=Errors.NONE)
    s.release(M2, error=Errors.NONE)
    s.ends(5, 20, 5)
    return s.case("release_writes_only_what_changed",
                  "A leaving member's held records become available again (trunk keeps their delivery "
                  "count); finished records and other members' records are left alone.",
                  _derived("E31, trunk outcome (§11)"))


def _delivery_limit() -> Case:
    s = Script(SharePartitionConfig(2, 200, 30_000))
    s.fetch(0, (0, 4))
    s.ack((0, 1, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 1), count=2)
    s.ack((0, 4, RELEASE), error=Errors.NONE)
    s.ends(2, 4, 2)
    return s.case("release_at_the_delivery_limit_archives",
                  "With a limit of 2, records released on their second delivery are archived; the "
                  "others are available again.", _derived("E33, trunk outcome (§11)"))


def _lock_expiry() -> Case:
    s = Script(SharePartitionConfig(2, 200, 100))
    s.fetch(0, (0, 9))
    s.advance(100)
    s.fetch(0, (0, 4), count=5)
    s.advance(100)
    s.ends(5, 9, 5)
    return s.case("lock_expiry_and_the_delivery_limit",
                  "An expired lock makes records available again, or archives them at the delivery "
                  "limit; the start offset moves past the archived ones.",
                  _derived("E21"))


def _expiry_at_the_start_offset() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100))
    s.fetch(0, (0, 0), count=1)
    s.advance(100)
    s.fetch(0, (0, 0), count=1)
    s.ends(0, 0, 1)
    return s.case("lock_expiry_of_the_record_at_the_start_offset",
                  "A one-record batch at the start offset whose lock expires is not below the start "
                  "offset: it becomes AVAILABLE and is delivered again (delivery count 2), not "
                  "archived.", _hand_made("§12: ARCHIVED only for offsets below the start offset"))


def _expiry_of_a_piece_at_the_start_offset() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100))
    s.fetch(0, (0, 4), count=5)
    s.ack((0, 1, ACCEPT), (3, 4, ACCEPT), error=Errors.NONE)
    s.advance(100)
    s.fetch(2, (0, 4), count=1)
    s.ends(2, 4, 5)
    return s.case("lock_expiry_of_a_split_record_at_the_start_offset",
                  "0-1 and 3-4 acknowledged, so the start offset is 2 and the batch is split; when "
                  "the lock expires, record 2 (at the start offset, not below it) is AVAILABLE and "
                  "delivered again.", _hand_made("§12 on split batches"))


def _expiry_across_the_start_offset() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100))
    s.fetch(0, (0, 9), count=10)
    s.add(MoveLogStart(5))
    s.advance(100)
    s.fetch(0, (5, 9), count=5)
    s.ends(5, 9, 10)
    return s.case("lock_expiry_of_a_batch_across_the_start_offset",
                  "The log start moves to 5 inside a held batch (held records are not archived); "
                  "when the lock expires the batch is split at the start offset: 0-4 ARCHIVED, 5-9 "
                  "AVAILABLE and delivered again.", _derived("§12, §14.1"))


def _release_ending_at_the_start_offset() -> Case:
    s = Script()
    s.fetch(0, (0, 5), count=6)
    s.add(MoveLogStart(5))
    s.release(error=Errors.NONE)
    s.fetch(0, (5, 5), count=1)
    s.ends(5, 5, 6)
    return s.case("release_of_a_batch_ending_at_the_start_offset",
                  "A held batch 0-5 whose last record is the start offset (the log start moved to 5): "
                  "on release it is split, 0-4 ARCHIVED (below the start) and 5 AVAILABLE.",
                  _derived("§11, §14.1"))


def _failed_expiry_write() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100))
    s.fetch(5, (5, 14))
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    s.advance(100)
    s.ends(5, 14, 5)
    return s.case("failed_expiry_write_stands",
                  "A lock expiry whose write fails is only logged: the records stay available.",
                  _derived("E27"))


def _renew() -> Case:
    s = Script()
    s.fetch(0, (0, 9))
    s.advance(20_000)
    s.ack((0, 9, RENEW), error=Errors.NONE)
    s.advance(20_000)
    s.ack((0, 9, (1, 4, 4, 4, 4, 4, 4, 4, 4, 4)), error=Errors.NONE)
    s.ack((1, 1, RENEW), member=M2, error=Errors.INVALID_RECORD_STATE)
    s.advance(29_999)
    s.ends(1, 9, 10)
    return s.case("renew_restarts_the_lock",
                  "RENEW (KIP-1222) gives held records a new full lock without a write; mixed with "
                  "ACCEPT it renews the rest.", _derived("D2, §10.4"))


def _throttling() -> Case:
    s = Script()
    for _ in range(3):
        s.fetch(0, (0, 9))
        s.ack((0, 9, RELEASE))
    s.fetch(0, (0, 9), count=5)
    s.fetch(5, (0, 9), count=5)
    s.ends(0, 9, 10)
    return s.case("throttling_near_the_delivery_limit",
                  "From 3 deliveries (limit 5) a batch is handed out in halves.", _derived("D1, §9"))


def _throttle_cap_already_reached() -> Case:
    s = Script(SharePartitionConfig(4, 40, 1000), persisted(1, 3, (5, 7, AV, 2), (10, 12, ACK, 1)))
    s.fetch(3, (3, 9), max_records=1, count=2)
    s.ack((4, 4, RELEASE), error=Errors.NONE)
    s.fetch(4, (3, 9), max_records=1, batch_size=3, count=1)
    s.advance(1000)
    s.fetch(3, (3, 9), max_records=1, batch_size=3, count=2)
    return s.case("throttle_cap_already_reached",
                  "The throttle's cap (batch size 2 >> 1 = 1) is set at offset 4, after offset 3 was "
                  "taken: the walk stops only when its count reaches the cap, so offset 4 goes too "
                  "(a cap the count has passed never stops it).", _derived("§9"))


def _log_start() -> Case:
    s = Script()
    s.fetch(2, (2, 6))
    s.fetch(10, (10, 14))
    s.fetch(20, (20, 24))
    s.add(MoveLogStart(14))
    s.ack((2, 14, ACCEPT), error=Errors.NONE)
    s.ends(14, 24, 25)
    return s.case("acknowledging_below_the_log_start",
                  "After the log start moves, acknowledgements below it are skipped: those records "
                  "stay held until their lock expires.", _test("E23", "testAcknowledgeBatchPostLsoMovement"))


def _compacted() -> Case:
    s = Script()
    s.fetch(0, (0, 4))
    s.fetch(5, (5, 9))
    s.fetch(10, (10, 24))
    s.release(error=Errors.NONE)
    s.fetch(0, (5, 9), count=5)
    s.release(error=Errors.NONE)
    s.ends(5, 24, 5)
    return s.case("compacted_offsets_are_archived",
                  "Offsets the log no longer has (the fetch starts past them) are archived.",
                  _test("E34", "testAcquireWhenBatchesRemovedForFetchOffset"))


def _spso_backwards() -> Case:
    s = Script(persisted=persisted(1, 3, (5, 7, AV, 2), (10, 12, ACK, 1)))
    s.fetch(3, (3, 9), max_records=1, count=2)
    s.add(MoveLogStart(14))
    s.release(error=Errors.NONE)
    s.ends(13, 13, 13)
    return s.case("start_moves_back_when_the_cache_empties",
                  "Kafka's code moves the start offset back: once the log start passed the cache, "
                  "finishing the last held record puts it after the last cached offset.",
                  _kafka_quirk("share_spso_backwards"))


def _missing_floor() -> Case:
    s = Script(persisted=persisted(1, 10, (15, 20, ACK, 1)))
    s.ack((5, 12, ACCEPT), error=Errors.UNKNOWN_SERVER_ERROR)
    s.ends(10, 20, 10)
    return s.case("acknowledging_across_an_uncached_start",
                  "Kafka dereferences a missing cache entry here; the client sees UNKNOWN_SERVER_ERROR.",
                  _kafka_quirk("share_ack_missing_floor"))


def _fencing() -> Case:
    s = Script()
    s.fetch(0, (0, 9))
    s.add(FenceLeader())
    s.ack((0, 4, ACCEPT), error=Errors.NOT_LEADER_OR_FOLLOWER)
    reload = s.add(Reload(latest_offset=10))
    s.shows.append(Answered(reload, Errors.NONE))
    s.fetch(0, (0, 9), count=10)
    s.ack((0, 4, ACCEPT), error=Errors.NONE)
    s.add(ResetShareState(7))
    s.ack((5, 9, ACCEPT), error=Errors.NOT_LEADER_OR_FOLLOWER)
    s.ends(5, 9, 10)
    return s.case("leader_and_state_epochs_fence_writes",
                  "A newer leader fences this partition's writes (FENCED_LEADER_EPOCH); reloading "
                  "takes the next leader epoch and the persisted state; an admin reset raises the "
                  "state epoch and fences the loaded partition again (FENCED_STATE_EPOCH); the client "
                  "sees NOT_LEADER_OR_FOLLOWER both times.", _hand_made(f"{FACT_SHEET} §15.4, §5"))


def _stale_lock_write_kept() -> Case:
    s = Script(SharePartitionConfig(5, 200, 1_000))
    s.fetch(0, (0, 4), count=5)
    s.advance(100)
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    reload = s.add(Reload(latest_offset=5))
    s.shows.append(Answered(reload, Errors.UNKNOWN_SERVER_ERROR))
    s.advance(100)
    s.add(SetPersisterError(Errors.NONE))
    s.add(AdvanceClock(1_200))
    return s.case("replaced_partition_lock_expiry_after_a_failed_reload",
                  "A reload whose read fails leaves the persister's leader epoch where it was; the "
                  "replaced partition's lock on 0-4 then expires. In groupspec the replaced "
                  "partition is gone and nothing is written; Kafka 4.2.1's old object still writes "
                  "0-4 AVAILABLE with the old leader epoch, which the persister keeps.",
                  _divergence("share_fenced_timers", "§15.4, trap T17"))


# --- issue 17: partition.py, lines below 427 ---


def _malformed_acknowledgements() -> Case:
    s = Script()
    s.fetch(0, (0, 9), count=10)
    s.ack((3, 2, ACCEPT), error=Errors.INVALID_REQUEST)
    s.ack((0, 1, ()), error=Errors.INVALID_REQUEST)
    s.ack((0, 4, ACCEPT), (3, 5, ACCEPT), error=Errors.INVALID_REQUEST)
    s.ack((0, 2, (ACCEPT, ACCEPT)), error=Errors.INVALID_REQUEST)
    s.ack((0, 1, (ACCEPT, ACCEPT, ACCEPT)), error=Errors.INVALID_REQUEST)
    s.ack((0, 0, 9), error=Errors.INVALID_REQUEST)
    s.ack((0, 9, ACCEPT), error=Errors.NONE)
    s.ends(10, 10, 10)
    return s.case("malformed_acknowledgements_are_invalid_requests",
                  "A batch whose first offset is past its last, one with no type, a batch starting "
                  "more than one offset before the previous one ends, per-offset types that do not "
                  "match the range (fewer or more) and an unknown type each refuse the whole call "
                  "with INVALID_REQUEST, and nothing changes: the held records are then accepted.",
                  _derived("§10.1"))


def _per_offset_types_across_batches() -> Case:
    s = Script()
    s.fetch(5, (5, 9))
    s.fetch(10, (10, 14))
    s.ack((5, 14, (ACCEPT, ACCEPT, RELEASE, ACCEPT, REJECT, RELEASE, RELEASE, ACCEPT, ACCEPT, REJECT)),
          error=Errors.NONE)
    s.ends(7, 14, 7)
    return s.case("per_offset_types_across_cached_batches",
                  "One acknowledgement with a type per offset over two cached batches: each batch "
                  "takes the types of its own offsets, none of its neighbour's.",
                  _derived("§10.2"))


def _failed_reload() -> Case:
    s = Script(persisted=persisted(3, 5, (5, 9, AV, 1)))
    s.fetch(5, (5, 9), count=5)
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    first = s.add(Reload(latest_offset=10))
    s.shows.append(Answered(first, Errors.UNKNOWN_SERVER_ERROR))
    s.add(SetPersisterError(Errors.GROUP_ID_NOT_FOUND))
    second = s.add(Reload(latest_offset=10))
    s.shows.append(Answered(second, Errors.GROUP_ID_NOT_FOUND))
    s.add(SetPersisterError(Errors.NONE))
    s.fetch(5, (5, 9), count=0)
    s.ack((5, 9, ACCEPT), error=Errors.UNKNOWN_TOPIC_OR_PARTITION)
    s.release(error=Errors.UNKNOWN_TOPIC_OR_PARTITION)
    s.ends(0, 0, 0)
    return s.case("failed_read_leaves_the_partition_failed",
                  "A reload whose state read fails (UNKNOWN_SERVER_ERROR, then GROUP_ID_NOT_FOUND) "
                  "answers the mapped error and leaves a FAILED partition at offsets 0 and state "
                  "epoch 0: it acquires nothing and answers acknowledgements and releases with "
                  "UNKNOWN_TOPIC_OR_PARTITION.", _derived("§5.1, §4.2, §15.4"))


def _uninitialized_start() -> Case:
    s = Script(persisted=PersistedState(2, -1))
    s.fetch(8, (8, 14), count=5)
    s.ends(10, 14, 15)
    case = s.case("uninitialized_state_starts_at_the_latest_offset",
                  "A persisted start offset of -1 (never initialized) starts the partition at the "
                  "latest offset it is given: a fetch of older records takes them from there.",
                  _derived("§5.2"))
    return Case(case.name, case.description, case.source, case.events, case.config, case.persisted,
                latest_offset=10, shows=case.shows)


def _one_offset_hole() -> Case:
    s = Script(persisted=persisted(1, 300, (300, 304, AV, 1), (306, 309, AV, 1)))
    s.ends(300, 309, 300)
    return s.case("persisted_hole_of_one_offset",
                  "A hole of a single offset (305) between persisted batches opens the gap window "
                  "there; batches that touch (the start offset and the first batch) open none.",
                  _derived("§5.4"))


def _window_scan_past_finished() -> Case:
    s = Script(persisted=persisted(1, 10, (10, 12, AV, 1), (14, 14, ARCH, 1), (16, 18, AV, 1)))
    s.fetch(10, (10, 13), count=4)
    s.ends(10, 18, 15)
    return s.case("next_fetch_offset_finds_the_next_hole",
                  "With the gap window's first hole filled, the next fetch offset walks the cache: "
                  "past the held batches and the archived one touching the filled hole, to the next "
                  "hole (15), before the available batch after it.", _derived("§7, §8.10"))


def _empty_log_and_zero_records() -> Case:
    s = Script()
    s.fetch(0, count=0)
    s.fetch(0, (0, 4), max_records=0, count=0)
    s.fetch(0, (0, 4), max_records=-1, count=0)
    s.fetch(0, (0, 4), count=5)
    s.ends(0, 4, 5)
    return s.case("empty_log_or_no_records_wanted",
                  "A fetch with no log batches, or with MaxRecords 0 or below, acquires nothing.",
                  _derived("§8.1"))


def _in_flight_limit_exact() -> Case:
    s = Script(SharePartitionConfig(5, 5, 30_000))
    s.fetch(0, *((o, o) for o in range(7)), batch_size=1, count=5)
    s.ack((0, 1, ACCEPT), error=Errors.NONE)
    s.fetch(5, *((o, o) for o in range(5, 10)), batch_size=1, count=2)
    s.ends(2, 6, 7)
    return s.case("in_flight_limit_counts_every_cached_offset",
                  "The in-flight count is end - start + 1 (0 when nothing is cached): with a limit of "
                  "5 a first fetch takes 5 single-record batches, and after 0-1 are accepted a fetch "
                  "takes 2 more.", _derived("§8.2"))


def _over_the_limit_inside_the_cache() -> Case:
    s = Script(SharePartitionConfig(5, 5, 30_000))
    s.fetch(0, (0, 2), (3, 5), (6, 9), batch_size=3, count=6)
    s.ack((0, 2, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 2), (3, 5), (6, 9), batch_size=3, count=3)
    s.ack((5, 5, RELEASE), error=Errors.NONE)
    s.fetch(5, (3, 5), (6, 9), count=1)
    s.fetch(6, (6, 9), count=0)
    s.ends(0, 5, 6)
    return s.case("over_the_in_flight_limit_only_cached_records",
                  "A fetch past the limit (the log batch 3-5 took 6 records over a limit of 5) still "
                  "takes released records inside the cache, from the fetch offset up to the end "
                  "offset included, and nothing new.", _derived("§8.2"))


def _at_the_limit_capped_by_the_end() -> Case:
    s = Script(SharePartitionConfig(5, 4, 30_000))
    s.fetch(0, (0, 0), (1, 1), (2, 2), (3, 3), batch_size=1, count=4)
    s.ack((0, 3, RELEASE), error=Errors.NONE)
    s.fetch(2, (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), count=2)
    s.ends(0, 3, 2)
    return s.case("at_the_limit_records_capped_by_the_end_offset",
                  "At the in-flight limit a fetch from offset 2 may take end - fetch offset + 1 = 2 "
                  "records of the cache, counted from the first cached batch the log reaches.",
                  _derived("§8.2"))


def _one_below_the_limit() -> Case:
    s = Script(SharePartitionConfig(5, 5, 30_000))
    s.fetch(0, *((o, o) for o in range(5)), batch_size=1, count=5)
    s.ack((0, 0, ACCEPT), (1, 2, RELEASE), error=Errors.NONE)
    s.fetch(1, *((o, o) for o in range(1, 8)), batch_size=1, count=1)
    s.ends(1, 4, 2)
    return s.case("one_below_the_in_flight_limit",
                  "One record below the limit, a fetch inside the cache takes one record, not every "
                  "released one up to the end offset.", _derived("§8.2"))


def _limit_reached_past_the_end() -> Case:
    s = Script(SharePartitionConfig(5, 12, 30_000), persisted(1, 3, (10, 14, AV, 1)))
    s.fetch(20, (1, 5), count=0)
    s.fetch(3, (1, 5), count=3)
    s.fetch(14, (20, 25), count=0)
    s.ends(3, 14, 6)
    return s.case("in_flight_limit_reached_exactly",
                  "Start 3 and end 14 make 12 records in flight, the limit: a fetch past the end "
                  "offset takes nothing, even of older log batches; a fetch from the start offset "
                  "takes the persisted hole from there, not the log below it; a fetch at the end "
                  "offset whose log starts past it takes nothing (and archives offset 14, which the "
                  "log no longer has; Kafka 4.2.1 throws there instead).",
                  _divergence("share_acquire_inverted_range", "§8.1, §8.2, §8.3, §14.3"))


def _limit_passed_past_the_end() -> Case:
    s = Script(SharePartitionConfig(5, 11, 30_000), persisted(1, 3, (10, 14, AV, 1)))
    s.fetch(20, (1, 5), count=0)
    s.ends(3, 14, 3)
    return s.case("in_flight_limit_passed",
                  "Start 3 and end 14 make 12 records in flight, over the limit of 11: a fetch past "
                  "the end offset takes nothing.", _derived("§8.2"))


def _end_past_the_cache() -> Case:
    s = Script(SharePartitionConfig(5, 1, 30_000))
    s.fetch(0, (0, 4), count=5)
    s.add(MoveLogStart(10))
    s.fetch(8, (8, 14), max_records=2)
    s.add(MoveLogStart(20))
    s.fetch(20, (20, 24))
    return s.case("in_flight_limit_with_the_end_past_the_cache",
                  "The log start moved to 10, past the held records 0-4, so the end offset (10) is "
                  "past the cache and one record is in flight, the limit: a fetch from 8 may take up "
                  "to the end offset, but MaxRecords 2 cuts inside log batch 8-14, which is taken "
                  "whole, past the end offset (the log start then moves to 20); a fetch at the end "
                  "offset takes that one record.", _derived("§8.2, §8.3, §8.4, §14.1"))


def _window_limits() -> Case:
    s = Script(persisted=persisted(1, 0, (2, 2, AV, 1), (5, 9, AV, 1)))
    s.fetch(0, (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 9), max_records=4, count=4)
    s.ends(0, 9, 4)
    return s.case("persisted_holes_fetched_within_max_records",
                  "Filling the persisted holes counts against MaxRecords: with 4 wanted, holes 0-1, "
                  "batch 2 and hole offset 3 are taken, and offset 4 is left.", _derived("§8.6, §8.4"))


def _window_hole_fills_max_records() -> Case:
    s = Script(persisted=persisted(1, 0, (5, 9, AV, 1)))
    s.fetch(0, (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 9), max_records=5, count=5)
    s.ends(0, 9, 5)
    return s.case("persisted_hole_filling_max_records_stops",
                  "A hole of exactly MaxRecords records is taken, and the cached batch after it is not.",
                  _derived("§8.6"))


def _window_start_moves() -> Case:
    s = Script(persisted=persisted(1, 0, (10, 14, AV, 1)))
    s.fetch(0, (0, 4), count=5)
    s.ends(0, 14, 5)
    return s.case("gap_window_start_follows_new_records",
                  "Records taken from a persisted hole before the first cached batch move the gap "
                  "window's start to the offset after them.", _derived("§8.10"))


def _window_closes() -> Case:
    s = Script(persisted=persisted(1, 10, (12, 14, AV, 1)))
    s.fetch(10, (10, 14), count=5)
    s.ends(10, 14, 15)
    return s.case("gap_window_closes_past_its_end",
                  "Acquiring through the end of the gap window closes it.", _derived("§8.10"))


def _window_to_its_last_offset() -> Case:
    s = Script(persisted=persisted(1, 10, (12, 14, AV, 1)))
    s.fetch(10, (10, 13), count=4)
    s.ends(10, 14, 14)
    return s.case("gap_window_kept_up_to_its_last_offset",
                  "Acquiring up to one before the gap window's end keeps it open, starting at its "
                  "last offset.", _derived("§8.10"))


def _split_after_time_passed() -> Case:
    s = Script()
    s.fetch(0, (0, 9), count=10)
    s.advance(10_000)
    s.ack((0, 1, ACCEPT), error=Errors.NONE)
    s.advance(30_000)
    s.ends(2, 9, 2)
    return s.case("split_keeps_the_lock_deadline",
                  "A batch split 10 s after its acquisition keeps its lock's deadline (30 s) for the "
                  "offsets still held: they are available again at 30 s.", _derived("§8.8, §13.5"))


def _overlap_undoes_a_cut() -> Case:
    s = Script()
    s.fetch(0, (0, 9), count=10)
    s.ack((0, 1, ACCEPT), error=Errors.NONE)
    s.ack((2, 5, RELEASE), (5, 6, ACCEPT), error=Errors.INVALID_RECORD_STATE)
    s.ends(2, 9, 10)
    return s.case("failed_call_undoes_the_runs_it_cut",
                  "The second batch overlaps the first by one offset: cutting it off the pending run "
                  "2-5 copies the pending state, and the refusal undoes both pieces.",
                  _derived("§10.2, §10.3"))


def _cached_batches_past_max_records() -> Case:
    s = Script()
    s.fetch(0, (0, 4))
    s.fetch(5, (5, 9))
    s.ack((0, 9, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 4), (5, 9), max_records=1, count=5)
    return s.case("max_records_stops_at_the_next_cached_batch",
                  "A cached batch is taken whole even past MaxRecords, and the next one is not.",
                  _derived("§8.6"))


def _subset_then_whole() -> Case:
    s = Script()
    s.fetch(0, (0, 4))
    s.fetch(5, (5, 9))
    s.ack((0, 1, RELEASE), error=Errors.NONE)
    s.ack((5, 9, RELEASE), error=Errors.NONE)
    s.fetch(10, (10, 12), member=M2)
    s.ack((10, 12, RELEASE), member=M2, error=Errors.NONE)
    s.fetch(0, (0, 4), (5, 9), (10, 12), member=M2, max_records=9, count=10)
    return s.case("subset_then_whole_batches",
                  "After a subset of a split batch the fetch goes on to the next cached batches.",
                  _derived("§8.6, §8.7"))


def _held_batch_overlapped() -> Case:
    s = Script()
    s.fetch(0, (0, 9))
    s.fetch(10, (10, 14))
    s.ack((10, 14, RELEASE), error=Errors.NONE)
    s.fetch(5, (5, 14), member=M2, count=5)
    s.ends(0, 14, 15)
    return s.case("held_batch_partly_fetched_is_skipped",
                  "A fetch starting inside another member's held batch skips it unsplit and takes "
                  "the released batch after it.", _derived("§8.6"))


def _throttled_after_records() -> Case:
    s = Script(persisted=persisted(1, 0, (0, 0, AV, 1), (1, 4, AV, 3)))
    s.fetch(0, (0, 4), count=1)
    return s.case("throttled_batch_after_taken_records_waits",
                  "A batch at the throttle's delivery count is not taken by a fetch that already "
                  "holds a record.", _derived("§9"))


def _throttled_subset_then_stop() -> Case:
    s = Script(persisted=persisted(1, 0, (0, 1, AV, 4), (2, 5, AV, 1)))
    s.fetch(0, (0, 5), count=1)
    return s.case("throttled_subset_ends_the_fetch",
                  "The throttled batch in front gives its one record (the last delivery goes alone) "
                  "and the fetch ends there.", _derived("§9"))


def _new_records_after_cached() -> Case:
    s = Script()
    s.fetch(0, (0, 4))
    s.ack((0, 4, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9), max_records=7, count=7)
    s.fetch(0, *((o, o) for o in range(10, 16)), max_records=5, count=5)
    return s.case("new_records_after_cached_within_max_records",
                  "After the cached batch, new records are taken up to MaxRecords, log batch by log "
                  "batch.", _derived("§8.6, §8.4"))


def _cuts_after_the_first() -> Case:
    s = Script()
    s.fetch(0, (0, 2), (3, 5), (6, 8), (9, 11), batch_size=4, count=12)
    s.fetch(12, (12, 14), (15, 17), (18, 20), batch_size=4, count=9)
    return s.case("batch_cuts_counted_from_the_last_cut",
                  "Each cut is counted from the previous one: 0-5 and 6-11 with a batch size of 4, "
                  "then 12-17 and 18-20.", _derived("§8.5"))


def _throttle_on_unsplit_states() -> Case:
    s = Script(persisted=persisted(1, 0, (0, 0, AV, 1), (1, 4, ACK, 3), (5, 5, AV, 1), (6, 9, AV, 4)))
    s.fetch(0, (0, 5), count=2)
    s.fetch(6, (6, 9), count=1)
    return s.case("throttle_only_for_available_batches",
                  "A finished batch at a high delivery count does not throttle the fetch; an "
                  "available one past the throttle count is handed out one record at its last "
                  "delivery.", _derived("§9"))


def _throttle_on_split_batches() -> Case:
    s = Script(persisted=persisted(1, 0, (0, 0, AV, 1), (1, 10, AV, 3), (11, 11, AV, 1), (12, 21, AV, 2),
                                   (22, 22, AV, 1), (23, 32, AV, 4)))
    s.fetch(1, (1, 10), count=5)
    s.fetch(0, (0, 10), count=1)
    s.fetch(12, (12, 16), count=5)
    s.fetch(11, (11, 21), count=6)
    s.fetch(23, (23, 27), count=1)
    s.fetch(22, (22, 32), count=1)
    return s.case("throttle_of_split_batches_counts_available_runs",
                  "In a split batch, only its available records' delivery counts decide the "
                  "throttle: 6-10 at 3 deliveries stop a fetch that already holds offset 0; 17-21 "
                  "at 2 do not, though 12-16 are held at 3; 24-32 at 4 stop one holding 22.",
                  _derived("§9"))


def _per_offset_types_from_below_zero() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.ack((-1, 4, (ACCEPT, ACCEPT, RELEASE, ACCEPT, REJECT, ACCEPT)), error=Errors.NONE)
    s.ends(1, 4, 1)
    return s.case("per_offset_types_of_a_batch_from_a_negative_offset",
                  "A batch of per-offset types starting at -1 (the lowest first offset the broker's "
                  "check lets through), below every cached offset: offsets 0-4 take the types at "
                  "positions 1-5 (ACCEPT, RELEASE, ACCEPT, REJECT, ACCEPT); the one below the start "
                  "offset is skipped.", _derived("§10.1, §10.2"))


def _first_batch_from_minus_two() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.ack((-2, 4, (ACCEPT, ACCEPT, ACCEPT, RELEASE, ACCEPT, REJECT, ACCEPT)), error=Errors.INVALID_REQUEST)
    s.ack((-2, -2, ACCEPT), (0, 4, ACCEPT), error=Errors.INVALID_REQUEST)
    s.ack((-1, -1, ACCEPT), (0, 4, ACCEPT), error=Errors.NONE)
    s.ends(5, 5, 5)
    return s.case("first_acknowledgement_batch_from_minus_two_is_invalid",
                  "The broker's check counts -1 as the last offset before the first batch: a first "
                  "batch starting at -2 is INVALID_REQUEST and nothing is applied (per-offset types "
                  "or one type alike); one starting at -1 passes, and the records are acknowledged.",
                  _derived("§10.1"))


def _malformed_acknowledgement_to_a_failed_partition() -> Case:
    s = Script()
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    s.add(Reload())
    s.ack((5, 4, ACCEPT), error=Errors.INVALID_REQUEST)
    s.ack((-2, 4, ACCEPT), error=Errors.INVALID_REQUEST)
    s.ack((0, 4, ACCEPT), error=Errors.UNKNOWN_TOPIC_OR_PARTITION)
    return s.case("malformed_acknowledgement_to_a_partition_that_failed_to_load",
                  "The broker checks acknowledgement batches before it looks the partition up: to a "
                  "partition whose load failed, a malformed acknowledgement is INVALID_REQUEST and a "
                  "well-formed one UNKNOWN_TOPIC_OR_PARTITION.", _derived("§10.1"))
# --- issue 17: partition.py from line 427, machine, persister, in_flight ---


def _expiry_of_a_batch_ending_at_the_start_offset() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100))
    s.fetch(0, (0, 5), count=6)
    s.add(MoveLogStart(5))
    s.advance(100)
    s.fetch(0, (5, 5), count=1)
    s.ends(5, 5, 6)
    return s.case("lock_expiry_of_a_batch_ending_at_the_start_offset",
                  "A held batch 0-5 whose last record is the start offset (the log start moved to "
                  "5): its whole-batch lock expires, the batch is split at the start offset, 0-4 "
                  "ARCHIVED (below the start) and the one-record piece 5 AVAILABLE (at the start, "
                  "not below it) and delivered again.", _derived("§12, §14.1"))


M3 = "member-3"


def _log_start_over_whole_and_straddling_batches() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100))
    s.ack((24, 29, (0, 4, 4, 1, 2, 1)), member=M3, error=Errors.INVALID_RECORD_STATE)
    s.fetch(0, (0, 3), member=M3, max_records=2, count=4)
    s.fetch(3, (3, 4), (5, 10), member=M2, max_records=3, count=7)
    s.fetch(9, (9, 12), member=M3, max_records=2, count=2)
    s.advance(150)
    s.add(MoveLogStart(12))
    s.add(MoveLogStart(25))
    s.fetch(25, (20, 26), (27, 30), (31, 31), member=M3, max_records=2, count=7)
    s.ends(25, 26, 27)
    return s.case("log_start_moves_over_whole_and_straddling_batches",
                  "Nothing cached, an acknowledgement is refused; three fetches by two members (a "
                  "log batch is never cut by max records), their locks expire, then the log start "
                  "moves to 12 and to 25: AVAILABLE records below it are archived, batches wholly "
                  "below as they are, the batch 11-12 the first move falls inside split at it; a "
                  "fetch reading from 20 then takes 20-26 as new records.", _derived("§14.1, §12"))


def _last_delivery_waits_in_a_split_batch() -> Case:
    s = Script(SharePartitionConfig(3, 15, 100))
    s.fetch(13, (8, 9), (11, 14), (15, 15), member=M2, batch_size=3, count=8)
    s.advance(150)
    s.fetch(10, (10, 15), (16, 21), member=M2, max_records=1, count=1)
    s.advance(150)
    s.fetch(0, (0, 4), (5, 9), (10, 10), member=M2, max_records=3, batch_size=1, count=2)
    s.add(MoveLogStart(22))
    s.ends(22, 22, 22)
    return s.case("last_delivery_waits_for_a_later_fetch_in_a_split_batch",
                  "Limit 3: record 10 comes back from its lock at 2 deliveries next to 8 and 9 in "
                  "the split batch 8-10; a fetch takes 8 and 9 and stops before 10, whose last "
                  "delivery goes alone in a later fetch; then the log start passes everything.",
                  _derived("§8.7, §9"))


def _throttled_walk_stops_at_the_cap() -> Case:
    s = Script(SharePartitionConfig(4, 15, 100), persisted(2, 4, (4, 7, AV, 3), (9, 13, AV, 2)))
    s.fetch(11, (11, 11), member=M2, max_records=2, batch_size=1, count=1)
    s.fetch(11, (9, 15), (16, 21), (22, 24), member=M3, batch_size=1, count=2)
    s.ends(4, 13, 4)
    return s.case("throttled_walk_stops_when_its_count_reaches_the_cap",
                  "Limit 4 (T = 2): the persisted batch 9-13 at 2 deliveries is throttled, cap "
                  "5 >> 1 = 2; after 11 was taken alone, the next fetch takes 9 and 10 and stops "
                  "there, 12 and 13 still AVAILABLE.", _derived("§9"))


def _expiry_at_the_limit_moves_the_start() -> Case:
    s = Script(SharePartitionConfig(2, 8, 100), persisted(2, 3, (3, 7, AV, 1), (8, 8, ARCH, 2),
                                                          (10, 14, ARCH, 2)))
    s.add(MoveLogStart(4))
    s.fetch(7, (2, 8), (9, 13), (14, 17), member=M2, max_records=2, batch_size=3, count=4)
    s.advance(250)
    s.ends(8, 14, 9)
    return s.case("lock_expiry_at_the_limit_moves_the_start_past_a_split_batch",
                  "Limit 2: the log start moves to 4 inside the persisted batch 3-7 (3 archived, "
                  "the batch split); 4-7 are delivered a second time and their locks expire at the "
                  "limit: archived one by one, and the start offset moves past the finished batch.",
                  _derived("§12, §13, §14.1"))


def _final_delivery_alone_from_a_persisted_batch() -> Case:
    s = Script(SharePartitionConfig(3, 8, 100), persisted(3, 3, (3, 6, AV, 2), (8, 11, AV, 1),
                                                          (13, 16, AV, 1)))
    s.fetch(10, (10, 15), (16, 18), member=M2, max_records=3, batch_size=1, count=3)
    s.release(M2, error=Errors.NONE)
    s.fetch(9, (4, 8), member=M2, max_records=1, batch_size=3, count=1)
    s.ends(3, 16, 3)
    return s.case("final_delivery_goes_alone_from_a_persisted_batch",
                  "Limit 3: a fetch takes 10-11 of one persisted batch and the hole 12 (max records "
                  "3), the member leaves and they are written back one offset each; then from the "
                  "batch 3-6 at 2 deliveries a fetch asking from 4 takes 4 alone, its last delivery.",
                  _derived("§8.7, §9, §11"))


def _persisted_neighbours_merge() -> Case:
    s = Script(SharePartitionConfig(2, 200, 100), persisted(1, 4, (5, 6, AV, 1), (8, 8, AV, 1),
                                                            (9, 10, AV, 1)))
    s.ends(4, 10, 4)
    return s.case("persisted_neighbours_with_the_same_state_merge",
                  "The share coordinator combines a state's batches: 8 and 9-10, adjacent with the "
                  "same state and delivery count, are held as one batch 8-10; 5-6 is not adjacent.",
                  _derived("§15.1 (PersisterStateBatchCombiner)"))


def _failed_load_refuses_everything() -> Case:
    s = Script(SharePartitionConfig(2, 15, 100))
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    reload = s.add(Reload(latest_offset=2))
    s.shows.append(Answered(reload, Errors.UNKNOWN_SERVER_ERROR))
    s.add(MoveLogStart(8))
    s.ack((22, 25, (3, 2, 3, 0)), member=M2, error=Errors.UNKNOWN_TOPIC_OR_PARTITION)
    s.release(M3, error=Errors.UNKNOWN_TOPIC_OR_PARTITION)
    s.ends(0, 0, 0)
    return s.case("a_failed_load_leaves_the_partition_failed",
                  "The persister fails the reload's read: the partition is FAILED; a log start "
                  "move changes nothing, an acknowledgement and a release are answered "
                  "UNKNOWN_TOPIC_OR_PARTITION.", _derived("§4.2, §5.1"))


def _release_of_another_members_batch_across_the_start() -> Case:
    s = Script(SharePartitionConfig(6, 15, 100))
    s.fetch(21, (21, 25), (26, 26), (28, 33), member=M2, max_records=3, count=5)
    s.add(MoveLogStart(24))
    s.add(MoveLogStart(14))
    s.release(error=Errors.NONE)
    s.release(M3, error=Errors.NONE)
    s.ends(24, 25, 26)
    return s.case("release_leaves_another_members_batch_across_the_start",
                  "The log start moves to 24 inside a batch member-2 holds, then back to 14 "
                  "(ignored); member-1 and member-3, holding nothing, leave: the batch stays whole "
                  "and held, nothing is written.", _derived("§11, §14.1"))


def _throttle_to_one_record() -> Case:
    s = Script(SharePartitionConfig(6, 200, 100), persisted(0, 4, (6, 10, AV, 3), (13, 17, AV, 4),
                                                            (19, 22, ARCH, 4)))
    s.fetch(16, (16, 21), max_records=1, batch_size=3, count=1)
    s.ends(4, 22, 6)
    return s.case("throttle_cap_of_one_record",
                  "Limit 6 (T = 3): the persisted batch 13-17 at 4 deliveries goes one record a "
                  "fetch (5 >> 2 = 1): a fetch from 16 takes 16 alone.", _derived("§9"))


def _acquired_ranges_by_delivery_count() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100), persisted(1, 4, (6, 9, AV, 1)))
    s.fetch(1, (0, 0), (2, 2), (3, 7), batch_size=1, count=4)
    s.release(error=Errors.NONE)
    s.fetch(5, (3, 9), (10, 16), (17, 23), member=M3, max_records=3, batch_size=3, count=6)
    s.ends(4, 9, 10)
    return s.case("acquired_records_carry_each_offsets_delivery_count",
                  "The hole 4-5 before the persisted batch 6-9 is fetched new with 6-7; after a "
                  "release, one fetch takes 4-5 at their second delivery, 6-7 at their third and "
                  "8-9 at their second, each range with its own delivery count.", _derived("§8.6, §8.7"))


def _ack_from_below_the_first_cached_offset() -> Case:
    s = Script(SharePartitionConfig(2, 8, 100))
    s.fetch(20, (18, 23), member=M3, batch_size=1, count=6)
    s.ack((17, 18, (1, 0)), member=M3, error=Errors.NONE)
    s.ends(19, 23, 24)
    return s.case("acknowledgement_starting_below_the_first_cached_offset",
                  "18-23 cached, the start offset 18; an acknowledgement of 17-18 (a type per "
                  "offset) starts below the cache: it applies from the start offset, 18 archived as "
                  "a gap.", _derived("§10.2"))


def _release_and_renew_around_a_moved_log_start() -> Case:
    s = Script(SharePartitionConfig(2, 15, 100), persisted(1, 3, (3, 3, AV, 1), (4, 5, AV, 1),
                                                           (6, 7, AV, 1)))
    s.fetch(0, (0, 1), (2, 4), member=M2, max_records=2, batch_size=1, count=2)
    s.release(M2, error=Errors.NONE)
    s.fetch(25, (23, 23), member=M3, count=1)
    s.add(MoveLogStart(23))
    s.fetch(19, (14, 20), (21, 25), member=M3, max_records=1, batch_size=1, count=2)
    s.ack((25, 25, RENEW), (28, 29, RENEW), member=M2, error=Errors.INVALID_RECORD_STATE)
    s.ends(23, 25, 26)
    return s.case("release_and_renew_around_a_moved_log_start",
                  "Limit 2: records released at their second delivery are archived; the log start "
                  "moves to 23 past the persisted batches; a RENEW by a member of a record another "
                  "member holds is refused.", _derived("§10.4, §11, §14.1"))


def _expiry_below_a_moved_log_start() -> Case:
    s = Script(SharePartitionConfig(5, 15, 100), persisted(2, 0, (1, 5, ARCH, 5), (6, 7, AV, 4)))
    s.add(MoveLogStart(10))
    s.fetch(11, (6, 12), (13, 16), member=M3, batch_size=3, count=9)
    s.advance(100)
    s.ends(10, 16, 10)
    return s.case("lock_expiry_across_a_moved_log_start",
                  "The log start moves to 10 past the persisted batches (6-7 archived); a fetch "
                  "from 8 takes 8-16 anew; when the locks expire 8-9, below the start offset, are "
                  "archived and 10-16 become AVAILABLE.", _derived("§12, §14.1"))


def _gap_window_at_load() -> Case:
    s = Script(SharePartitionConfig(2, 8, 100), persisted(0, 2, (2, 3, ACK, 1), (5, 8, ARCH, 2),
                                                          (11, 13, ARCH, 1)))
    s.ends(4, 13, 4)
    return s.case("loaded_start_stops_at_the_first_hole",
                  "Persisted batches all finished but with holes: the start offset moves past 2-3 "
                  "and stops at the first hole 4, not past the finished batches after it.",
                  _derived("§5.4, §13.2"))


def _release_across_a_moved_log_start() -> Case:
    s = Script(SharePartitionConfig(6, 8, 100), persisted(3, 4, (5, 8, ARCH, 2), (9, 13, AV, 1)))
    s.add(MoveLogStart(15))
    s.fetch(5, (5, 11), (12, 18), member=M2, max_records=2, count=5)
    s.release(M2, error=Errors.NONE)
    s.ends(15, 18, 15)
    return s.case("release_of_a_batch_across_a_moved_log_start",
                  "The log start moves to 15; a fetch takes 14-18 as new records; on release the "
                  "batch is split at the start offset: 14 ARCHIVED, 15-18 AVAILABLE.",
                  _derived("§11, §14.1"))


def _start_below_the_cache_stays() -> Case:
    s = Script(SharePartitionConfig(5, 8, 100), persisted(0, 4, (5, 9, ACK, 4)))
    s.fetch(5, (5, 11), (12, 17), member=M3, max_records=2, count=2)
    s.advance(100)
    s.ends(4, 11, 10)
    return s.case("start_offset_below_the_cache_stays",
                  "The persisted start offset 4 has no cached record (the first batch is 5-9, "
                  "ACKNOWLEDGED): the start offset cannot move, even when a lock expiry is written.",
                  _derived("§13.1"))


def _log_start_move_recomputes_next_fetch() -> Case:
    s = Script(SharePartitionConfig(4, 15, 100), persisted(3, 4, (5, 6, ARCH, 4), (9, 12, AV, 1)))
    s.add(MoveLogStart(10))
    s.ends(10, 12, 4)
    return s.case("log_start_move_that_archives_recomputes_the_next_fetch_offset",
                  "The log start moves to 10, archiving 9: the next fetch offset is looked for "
                  "again, and the gap window (from the hole at 4) still answers its start, 4.",
                  _derived("§7, §14.1, §14.2"))


def _start_stops_at_an_unfinished_batch() -> Case:
    s = Script(SharePartitionConfig(3, 8, 100), persisted(0, 3, (3, 3, ACK, 1), (4, 6, AV, 2),
                                                          (7, 11, ARCH, 3)))
    s.ends(4, 11, 4)
    return s.case("start_offset_stops_at_the_first_unfinished_batch",
                  "Loaded: 3 is finished, 4-6 AVAILABLE, 7-11 ARCHIVED: the start offset moves to "
                  "4 and stops there.", _derived("§13.2"))


def _renew_of_part_of_a_batch() -> Case:
    s = Script(SharePartitionConfig(3, 8, 100))
    s.fetch(13, (13, 17), (18, 21), member=M3, max_records=1, count=5)
    s.ack((5, 7, GAP), (10, 15, RENEW), member=M3, error=Errors.NONE)
    s.advance(250)
    s.ends(13, 17, 13)
    return s.case("renew_of_part_of_a_batch_expires_offset_by_offset",
                  "RENEW of 13-15 of the held batch 13-17 splits it: 13-15 get new per-offset "
                  "locks, 16-17 keep the old one; when both expire every offset is written on its "
                  "own, 16 and 17 first.", _derived("§10.4, §12"))


def _other_member_in_a_split_batch() -> Case:
    s = Script(SharePartitionConfig(5, 15, 100))
    s.fetch(7, (7, 10), (11, 11), (12, 18), member=M3, batch_size=3, count=12)
    s.ack((11, 12, (ACCEPT, ACCEPT)), member=M3, error=Errors.NONE)
    s.ack((18, 18, REJECT), error=Errors.INVALID_RECORD_STATE)
    s.ends(7, 18, 19)
    return s.case("another_member_cannot_acknowledge_in_a_split_batch",
                  "member-3's batch 11-18 is split by its acknowledgement of 11-12; member-1's "
                  "REJECT of 18 is refused.", _derived("§10.2"))


def _limit_two_takes_every_available_run() -> Case:
    s = Script(SharePartitionConfig(2, 200, 30_000))
    s.fetch(0, (0, 4), count=5)
    s.ack((0, 0, RELEASE), (2, 2, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 4), member=M2, count=2)
    s.ends(0, 4, 5)
    return s.case("limit_two_has_no_last_delivery_alone",
                  "With a delivery limit of 2 the rule that a last delivery goes alone does not "
                  "apply (it needs a limit above 2): records 0 and 2, released at 1 delivery in a "
                  "split batch, are both taken by the next fetch.", _derived("§8.7, §9"))


def _two_types_for_a_two_record_batch() -> Case:
    s = Script()
    s.fetch(0, (0, 1), count=2)
    s.ack((0, 1, (ACCEPT, REJECT)), error=Errors.NONE)
    s.ends(2, 2, 2)
    return s.case("per_offset_types_for_a_two_record_batch",
                  "Two types for a two-record batch are one type per offset: 0 ACKNOWLEDGED, 1 "
                  "ARCHIVED.", _derived("§10.2"))


def _ack_of_a_batch_the_log_start_falls_inside() -> Case:
    s = Script()
    s.fetch(0, (0, 9), count=10)
    s.add(MoveLogStart(5))
    s.ack((0, 9, ACCEPT), error=Errors.NONE)
    s.ends(5, 9, 10)
    return s.case("acknowledging_a_whole_batch_the_log_start_falls_inside",
                  "The log start moves to 5 inside the held batch 0-9; an ACCEPT of all of 0-9 "
                  "acknowledges only 5-9 (the batch is split, records below the start are "
                  "skipped).", _derived("§10.2, §14.1"))


def _last_delivery_between_earlier_runs() -> Case:
    s = Script(SharePartitionConfig(3, 200, 30_000))
    s.fetch(8, (8, 12), count=5)
    s.ack((10, 10, RELEASE), error=Errors.NONE)
    s.fetch(10, (10, 10), member=M2, count=1)
    s.ack((10, 10, RELEASE), member=M2, error=Errors.NONE)
    s.ack((8, 9, RELEASE), (11, 12, RELEASE), error=Errors.NONE)
    s.fetch(8, (8, 12), member=M2, count=2)
    s.ends(8, 12, 10)
    return s.case("last_delivery_ends_the_walk_of_a_split_batch",
                  "Limit 3, one split batch: 8-9 and 11-12 AVAILABLE at 1 delivery, 10 at 2; a "
                  "fetch takes 8 and 9 and ends at 10 (its last delivery goes alone, later), so "
                  "11 and 12 wait too.", _derived("§8.7, §9"))


def _positive_read_error_fails_the_load() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.add(SetPersisterError(Errors.GROUP_ID_NOT_FOUND))
    reload = s.add(Reload(latest_offset=5))
    s.shows.append(Answered(reload, Errors.GROUP_ID_NOT_FOUND))
    s.fetch(0, (0, 4), count=0)
    s.ends(0, 0, 0)
    return s.case("read_error_with_a_positive_code_fails_the_load",
                  "The persister answers the reload's read with GROUP_ID_NOT_FOUND: the partition "
                  "is FAILED and acquires nothing.", _derived("§5.1, §15.4"))


def _throttle_cap_never_below_one() -> Case:
    s = Script(SharePartitionConfig(7, 200, 30_000), persisted(1, 0, (0, 1, AV, 5)))
    s.fetch(0, (0, 1), count=1)
    s.ends(0, 1, 1)
    return s.case("throttle_cap_is_at_least_one_record",
                  "Limit 7 (T = 4): a two-record batch at 5 deliveries gives 2 >> 2 = 0, but the "
                  "cap is at least 1: the fetch takes record 0 alone.", _derived("§9"))


def _throttle_cap_below_the_count() -> Case:
    s = Script(SharePartitionConfig(4, 200, 30_000))
    s.fetch(0, (0, 3), count=4)
    s.ack((3, 3, RELEASE), error=Errors.NONE)
    s.fetch(3, (3, 3), member=M2, count=1)
    s.ack((3, 3, RELEASE), member=M2, error=Errors.NONE)
    s.ack((0, 2, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 3), member=M3, count=4)
    s.ends(0, 3, 4)
    return s.case("throttle_cap_below_the_count_stops_nothing",
                  "Limit 4 (T = 2): in the split batch 0-3, 0-2 are AVAILABLE at 1 delivery and 3 "
                  "at 2; the walk takes 0-2 before it meets 3, whose cap (4 >> 1 = 2) the count 3 "
                  "has already passed: 3 is taken too.", _derived("§9"))


def _throttle_cap_counts_what_was_taken() -> Case:
    s = Script(SharePartitionConfig(4, 200, 30_000))
    s.fetch(0, (0, 3), count=4)
    s.ack((1, 3, RELEASE), error=Errors.NONE)
    s.fetch(1, (1, 3), member=M2, count=3)
    s.ack((1, 3, RELEASE), member=M2, error=Errors.NONE)
    s.ack((0, 0, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 3), member=M3, count=2)
    s.ends(0, 3, 2)
    return s.case("throttle_cap_counts_the_records_already_taken",
                  "Limit 4 (T = 2): 0 AVAILABLE at 1 delivery, 1-3 at 2 in one split batch; the "
                  "walk takes 0, then the cap 4 >> 1 = 2 leaves room for one more: 0-1 acquired.",
                  _derived("§9"))


def _throttle_cap_over_runs_apart() -> Case:
    s = Script(SharePartitionConfig(4, 200, 30_000))
    s.fetch(0, (0, 3), count=4)
    s.ack((0, 0, RELEASE), (2, 2, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 3), member=M2, count=2)
    s.ack((0, 0, RELEASE), (2, 2, RELEASE), member=M2, error=Errors.NONE)
    s.fetch(0, (0, 3), member=M3, count=2)
    s.ends(0, 3, 4)
    return s.case("throttle_cap_reached_over_runs_apart",
                  "Limit 4 (T = 2): 0 and 2 AVAILABLE at 2 deliveries, 1 and 3 held; the cap "
                  "(4 >> 1 = 2) is not reached after 0, so the walk goes on and takes 2.",
                  _derived("§9"))


def _acquired_runs_with_a_held_record_between() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.ack((0, 0, RELEASE), (1, 1, ACCEPT), (2, 2, RELEASE), (3, 3, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 4), member=M2, count=3)
    s.ends(0, 4, 5)
    return s.case("reacquired_records_around_a_finished_one",
                  "0, 2 and 3 released one by one around the acknowledged 1: another member "
                  "acquires exactly 0, 2 and 3 at their second delivery, not 1.", _test(
                      "E18", "testReacquireSubsetWithAnotherMember"))


def _start_over_split_new_batches() -> Case:
    s = Script(SharePartitionConfig(5, 8, 100), persisted(3, 3, (4, 8, ACK, 2), (9, 11, AV, 3)))
    s.add(MoveLogStart(14))
    s.fetch(25, (20, 21), (22, 26), member=M2, batch_size=1, count=7)
    s.ack((21, 24, REJECT), member=M2, error=Errors.NONE)
    s.ends(20, 26, 27)
    return s.case("start_offset_after_a_log_start_move_stops_at_a_held_record",
                  "The log start moves to 14 past the persisted batches; new records 20-21 and "
                  "22-26 are acquired as two batches; a REJECT of 21-24 splits both, and the start "
                  "offset stays at 20, the first record still held.", _derived("§13.2, §14.1"))


def _last_deliveries_then_expiry() -> Case:
    s = Script(SharePartitionConfig(5, 8, 100), persisted(1, 4, (4, 6, AV, 4), (7, 10, AV, 3),
                                                          (11, 15, AV, 3)))
    s.fetch(0, (0, 6), (7, 8), member=M2, count=1)
    s.fetch(5, (5, 11), (12, 15), (16, 16), member=M3, max_records=2, batch_size=1, count=1)
    s.fetch(6, (4, 8), member=M3, max_records=1, count=1)
    s.release(M3, error=Errors.NONE)
    s.advance(200)
    s.ends(7, 15, 7)
    return s.case("last_deliveries_one_by_one_then_expiry_finishes_the_batch",
                  "Limit 5: the persisted batch 4-6 at 4 deliveries goes one record a fetch (each "
                  "its last delivery, alone); member-3 leaves (5 and 6 archived at the limit), 4's "
                  "lock expires (archived), and the start offset moves past the batch to 7.",
                  _derived("§9, §11, §12"))


def _throttle_cap_set_once_per_walk() -> Case:
    s = Script(SharePartitionConfig(6, 200, 30_000), persisted(1, 0, (0, 7, AV, 3)))
    s.fetch(2, (2, 7), count=4)
    s.ack((2, 4, RELEASE), error=Errors.NONE)
    s.fetch(1, (1, 1), member=M2, count=1)
    s.fetch(0, (0, 7), member=M3, count=4)
    s.ends(0, 7, 6)
    return s.case("throttle_cap_is_set_once_per_walk",
                  "Limit 6 (T = 3), the split batch 0-7: 0 AVAILABLE at 3 deliveries, 2-4 at 4; "
                  "the cap is set at the first throttled record, 8 >> 1 = 4, and kept for the "
                  "rest of the walk (2-4 would give 8 >> 2 = 2): 0 and 2-4 acquired.", _derived("§9"))


def _stale_archiving_keeps_later_records_findable() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.fetch(5, (5, 9), count=5)
    s.fetch(10, (10, 14), count=5)
    s.release(error=Errors.NONE)
    s.fetch(0, (5, 9), (10, 14), member=M2, max_records=5, count=5)
    s.ends(0, 14, 10)
    return s.case("compaction_archiving_leaves_the_next_fetch_offset_to_be_found",
                  "All released; a fetch from 0 whose log starts at 5 archives 0-4 (compacted "
                  "away) and takes 5-9 (max records 5); the next fetch offset is found again: 10, "
                  "the first record still AVAILABLE.",
                  _test("E34", "testAcquireWhenBatchesRemovedForFetchOffset"))


def _renew_of_a_whole_batch_expires() -> Case:
    s = Script(SharePartitionConfig(5, 200, 100))
    s.fetch(0, (0, 4), count=5)
    s.advance(50)
    s.ack((0, 4, RENEW), error=Errors.NONE)
    s.advance(100)
    s.ends(0, 4, 0)
    return s.case("renewed_whole_batch_lock_expires",
                  "RENEW of a whole held batch gives it a new whole-batch lock; when that lock "
                  "expires the batch is AVAILABLE again.", _derived("§10.4, §12"))


def _start_after_a_log_start_move_inside_a_split_batch() -> Case:
    s = Script()
    s.fetch(10, (10, 19), count=10)
    s.fetch(20, (20, 29), count=10)
    s.ack((10, 10, ACCEPT), error=Errors.NONE)
    s.add(MoveLogStart(12))
    s.ack((12, 12, ACCEPT), error=Errors.NONE)
    s.ends(12, 29, 30)
    return s.case("start_offset_held_below_a_moved_log_start",
                  "10 acknowledged (the start offset 11), the log start moves to 12, 12 "
                  "acknowledged: 11, below the start offset, is still held, so the start offset "
                  "stays at 12 and both batches stay cached.", _derived("§13.2, §14.1"))


def _held_last_record_below_a_moved_log_start() -> Case:
    s = Script()
    s.fetch(10, (10, 12), count=3)
    s.fetch(13, (13, 15), count=3)
    s.ack((10, 11, ACCEPT), error=Errors.NONE)
    s.add(MoveLogStart(13))
    s.ack((13, 13, ACCEPT), error=Errors.NONE)
    s.ends(13, 15, 16)
    return s.case("held_last_record_keeps_its_batch_cached",
                  "10-11 acknowledged, 12 still held; the log start moves to 13 and 13 is "
                  "acknowledged: the batch 10-12 stays cached for its held last record.",
                  _derived("§13.2, §14.1"))


def _expiry_below_the_log_start_after_persisted_holes() -> Case:
    s = Script(SharePartitionConfig(3, 200, 100), persisted(3, 2, (3, 7, ARCH, 3), (9, 11, AV, 1),
                                                            (14, 15, AV, 2)))
    s.fetch(9, (9, 13), (14, 19), (20, 23), batch_size=3, count=5)
    s.add(MoveLogStart(22))
    s.advance(150)
    s.ends(16, 16, 16)
    return s.case("start_moves_back_after_the_gap_window_is_gone",
                  "Persisted state with holes (a gap window); a fetch takes 9-11 and the hole "
                  "12-13 and stops at the throttled 14-15; the log start moves to 22 past "
                  "everything; when the locks expire (archived, below the start) the start offset "
                  "is put after the last cached offset, 16, not held at the old window's start.",
                  _kafka_quirk("share_spso_backwards"))


def _stale_archiving_from_inside_a_split_batch() -> Case:
    s = Script()
    s.fetch(5, (5, 9), count=5)
    s.fetch(10, (10, 24), count=15)
    s.ack((5, 7, ACCEPT), error=Errors.NONE)
    s.release(error=Errors.NONE)
    s.fetch(8, (10, 24), count=15)
    s.release(error=Errors.NONE)
    s.ends(10, 24, 10)
    return s.case("compaction_archiving_from_a_fetch_offset_inside_a_batch",
                  "5-7 acknowledged, 8-9 and 10-24 released; a fetch from 8 whose log starts at 10 "
                  "archives 8-9 (compacted away), found through the cached batch 5-9 that holds "
                  "the fetch offset, and takes 10-24; once they are released the start offset "
                  "moves past 5-9 to 10.",
                  _test("§14.3", "testAcquireWhenBatchesRemovedForFetchOffsetWithinBatch"))


def _stale_archiving_from_a_hole() -> Case:
    s = Script(persisted=persisted(1, 0, (0, 4, AV, 1), (10, 14, AV, 1)))
    s.fetch(5, (10, 14), count=5)
    s.ends(0, 14, 0)
    return s.case("compaction_archiving_from_a_fetch_offset_in_a_hole",
                  "Persisted 0-4 and 10-14 AVAILABLE around the hole 5-9; a fetch from 5 whose log "
                  "starts at 10 has nothing to archive in 5-9, and 0-4, wholly below the fetch "
                  "offset, is left as it was (one unsplit AVAILABLE batch); 10-14 is acquired.",
                  _derived("§14.3"))


def _gate_at_the_in_flight_limit() -> Case:
    s = Script(SharePartitionConfig(5, 5, 30_000))
    s.can_acquire(True)
    s.fetch(0, (0, 3), count=4)
    s.can_acquire(True)
    s.fetch(4, (4, 4), count=1)
    s.can_acquire(False)
    s.ack((0, 0, RELEASE), error=Errors.NONE)
    s.can_acquire(True)
    s.fetch(0, (0, 0), count=1)
    s.can_acquire(False)
    s.ack((0, 0, ACCEPT), error=Errors.NONE)
    s.can_acquire(True)
    s.fetch(5, (5, 6), max_records=1, count=2)
    s.can_acquire(False)
    s.ends(1, 6, 7)
    return s.case("fetch_gate_at_the_in_flight_limit",
                  "A fetch reads the log for the partition only while end - start + 1 stays below the "
                  "in-flight limit, or a record inside the cache is AVAILABLE again: nothing cached, "
                  "4 of 5 in flight and a released record at the limit open the gate; 5 in flight, "
                  "and 6 after a log batch taken whole, close it.",
                  _derived("§6 (testCanAcquireRecordsWithCachedDataAndLimitReached and neighbours)"))


def _gate_of_a_partition_that_failed_to_load() -> Case:
    s = Script(SharePartitionConfig(5, 5, 30_000))
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    s.add(Reload())
    s.can_acquire(False)
    s.add(SetPersisterError(Errors.NONE))
    s.add(Reload())
    s.can_acquire(True)
    s.ends(0, 0, 0)
    return s.case("fetch_gate_closed_while_the_partition_is_not_loaded",
                  "A partition whose load failed never hands a fetch its lock, so no fetch reads its "
                  "log; loaded again, the empty partition lets the fetch in.",
                  _derived("§6 (maybeAcquireFetchLock refuses a partition that is not ACTIVE)"))


def _gate_open_for_a_persisted_hole() -> Case:
    s = Script(SharePartitionConfig(5, 12, 30_000), persisted(1, 3, (10, 14, ACK, 1)))
    s.can_acquire(True)
    s.fetch(3, (3, 9), count=7)
    s.can_acquire(False)
    s.ends(3, 14, 15)
    return s.case("fetch_gate_open_for_a_persisted_hole_at_the_limit",
                  "Start 3 and end 14 make 12 records in flight, the limit, but the hole 3-9 of the "
                  "persisted state is still to fetch: the next fetch offset is 3, inside the cache, "
                  "and the gate opens; once the hole is acquired nothing waits and it closes.",
                  _derived("§5.4, §6"))


def _gate_after_the_log_start_passed_the_cache() -> Case:
    s = Script(SharePartitionConfig(5, 5, 30_000))
    s.fetch(0, (0, 4), count=5)
    s.can_acquire(False)
    s.add(MoveLogStart(10))
    s.can_acquire(True)
    s.fetch(10, (10, 12), count=3)
    s.ends(10, 12, 13)
    return s.case("fetch_gate_open_once_the_log_start_passes_the_cache",
                  "At the limit with every record held, the gate is closed; when the log start moves "
                  "past the whole cache the next fetch offset is the new start, which is the end "
                  "offset, so the gate opens though the held batch is still cached.",
                  _derived("§6, §7, §14.1"))


# --- issue 17, the spec layer: what only a mutant of spec/share_partition.py showed ---


def _every_acknowledge_type_in_one_batch() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.ack((0, 4, (GAP, ACCEPT, RELEASE, REJECT, RENEW)), error=Errors.NONE)
    s.ends(2, 4, 2)
    return s.case("every_acknowledge_type_in_one_batch",
                  "One acknowledgement batch of five offsets names all five types, one each: every "
                  "type is known, so it is well formed (GAP and REJECT archive, ACCEPT acknowledges, "
                  "RELEASE makes 2 available again, RENEW keeps 4 held under a new lock).",
                  _derived("§10.1, §10.4"))


def _persister_error_before_fencing() -> Case:
    s = Script()
    s.fetch(0, (0, 9), count=10)
    s.add(FenceLeader())
    s.add(SetPersisterError(Errors.GROUP_ID_NOT_FOUND))
    s.ack((0, 4, ACCEPT), error=Errors.GROUP_ID_NOT_FOUND)
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    s.ack((0, 4, ACCEPT), error=Errors.UNKNOWN_SERVER_ERROR)
    s.add(SetPersisterError(Errors.NONE))
    s.ack((0, 4, ACCEPT), error=Errors.NOT_LEADER_OR_FOLLOWER)
    reload = s.add(Reload(latest_offset=10))
    s.shows.append(Answered(reload, Errors.NONE))
    s.fetch(0, (0, 9), count=10)
    s.add(ResetShareState(0))
    s.add(SetPersisterError(Errors.GROUP_ID_NOT_FOUND))
    s.ack((0, 4, ACCEPT), error=Errors.GROUP_ID_NOT_FOUND)
    s.add(SetPersisterError(Errors.UNKNOWN_SERVER_ERROR))
    s.ack((0, 4, ACCEPT), error=Errors.UNKNOWN_SERVER_ERROR)
    s.add(SetPersisterError(Errors.NONE))
    s.ack((0, 4, ACCEPT), error=Errors.NOT_LEADER_OR_FOLLOWER)
    s.ends(0, 9, 10)
    return s.case("persister_error_answers_before_fencing",
                  "A fenced partition whose share coordinator also fails: the coordinator's own "
                  "error is the answer (GROUP_ID_NOT_FOUND as it is, UNKNOWN_SERVER_ERROR, whose code "
                  "is below NONE's, as it is), and only once it works again does the leader epoch "
                  "fence the write (NOT_LEADER_OR_FOLLOWER). The same again after a reload, fenced "
                  "by the state epoch an admin reset raised.", _hand_made(f"{FACT_SHEET} §15.4, §15.6"))


def _throttle_seen_at_the_last_offset_of_a_split_batch() -> Case:
    s = Script(SharePartitionConfig(3, 200, 30_000))
    s.fetch(0, (0, 4), count=5)
    s.ack((0, 4, (ACCEPT, ACCEPT, ACCEPT, ACCEPT, RELEASE)), error=Errors.NONE)
    s.fetch(4, (0, 4), count=1)
    s.ack((4, 4, RELEASE), error=Errors.NONE)
    s.fetch(4, (0, 4), (5, 9), count=1)
    s.ends(4, 4, 5)
    return s.case("throttle_seen_at_the_last_offset_of_a_split_batch",
                  "Limit 3 (throttled from 2 deliveries): the only AVAILABLE offset of the split "
                  "batch 0-4 is its last, 4, at 2 deliveries; a fetch that also reads the new records "
                  "5-9 takes 4 alone, its last delivery, and stops there: the throttled batch ends "
                  "the fetch.", _derived("§8.7, §9"))


def _last_delivery_alone_before_fresher_offsets() -> Case:
    s = Script(SharePartitionConfig(3, 200, 30_000))
    s.fetch(0, (0, 9), count=10)
    s.ack((0, 0, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 9), count=1)
    s.ack((0, 9, RELEASE), error=Errors.NONE)
    s.fetch(0, (0, 9), count=1)
    s.ends(0, 9, 1)
    return s.case("last_delivery_alone_before_fresher_offsets_of_its_batch",
                  "Limit 3: offset 0 of the split batch 0-9 comes back at 2 deliveries, 1-9 at 1; a "
                  "fetch takes 0 alone (its last delivery goes alone, §8.7) although the throttle "
                  "would allow half the batch, and the rest wait for the next fetch.",
                  _derived("§8.7, §9"))


def _throttle_looks_only_at_the_fetched_range() -> Case:
    s = Script(SharePartitionConfig(3, 200, 30_000))
    s.fetch(0, (0, 4), count=5)
    s.fetch(5, (5, 9), count=5)
    s.ack((9, 9, RELEASE), error=Errors.NONE)
    s.fetch(9, (5, 9), count=1)
    s.ack((9, 9, RELEASE), error=Errors.NONE)
    s.release(error=Errors.NONE)
    s.fetch(0, (0, 7), count=8)
    s.ends(0, 9, 8)
    return s.case("throttle_looks_only_at_the_fetched_range_of_a_split_batch",
                  "Limit 3: the split batch 5-9 has 9 at 2 deliveries and 5-8 at 1; a fetch whose log "
                  "ends at 7 takes the batch 0-4 and then 5-7 of the split batch: 9, outside the "
                  "fetched range, does not throttle it.", _derived("§8.7, §9"))


def _touching_batches_come_back_apart() -> Case:
    s = Script(SharePartitionConfig(4, 40, 1_000),
               persisted(1, 5, (5, 5, AV, 2), (6, 6, ARCH, 3), (7, 7, AV, 2)))
    s.fetch(5, (5, 7), max_records=1, count=1)
    s.fetch(7, (5, 7), max_records=1, count=1)
    s.ack((7, 7, REJECT), error=Errors.NONE)
    s.add(Reload(latest_offset=8))
    s.ends(5, 7, 5)
    return s.case("touching_batches_of_one_state_come_back_apart",
                  "5 and then 7 are acquired (6 is archived), and 7, delivered a third time, is "
                  "rejected next to the archived 6 of the same count. The share coordinator's "
                  "combiner passed 6 over before it cut 7, so it keeps them as two batches of the "
                  "same state and count, and the partition reloaded from it has three in-flight "
                  "batches, 5, 6 and 7 (the view's persisted state shows 6-7 as one run: the same "
                  "records).",
                  _derived("the share coordinator's PersisterStateBatchCombiner, read back by "
                           "SharePartition#maybeInitialize"))


def _touching_batches_shown_as_one_run() -> Case:
    s = Script(SharePartitionConfig(4, 40, 1_000),
               persisted(1, 5, (5, 5, AV, 2), (6, 6, ARCH, 3), (7, 7, AV, 2)))
    s.fetch(5, (5, 7), max_records=1, count=1)
    s.fetch(7, (5, 7), max_records=1, count=1)
    s.ack((7, 7, REJECT), error=Errors.NONE)
    return s.case("touching_batches_of_one_state_persisted_as_one_run",
                  "As touching_batches_of_one_state_come_back_apart, without the reload: the share "
                  "coordinator holds 6 and 7 apart (no read has made it combine them again), and the "
                  "view's persisted state shows them as the one run 6-7 they mean.",
                  _derived("the view's persisted state is maximal runs of equal state and count"))


# --- issue 19: cases a live broker realises (docs/conformance.md, "A live broker") ----------
# A fresh share group on a fresh partition, records produced batch by batch, every fetch from
# the share partition's next fetch offset reading every batch from there on, Kafka's default
# delivery limit and lock duration, no clock advance: what `--target kafka://` can run.


def _live_two_members_share_the_log() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.fetch(5, (5, 9), member=M2, count=5)
    s.ack((0, 4, ACCEPT), error=Errors.NONE)
    s.ack((5, 9, (ACCEPT, RELEASE, REJECT, ACCEPT, RELEASE)), member=M2, error=Errors.NONE)
    s.fetch(6, (5, 9), count=2)
    s.ack((6, 6, ACCEPT), (9, 9, REJECT), error=Errors.NONE)
    s.ends(10, 10, 10)
    return s.case("live_two_members_share_the_log",
                  "Two members take a batch each; what one member releases goes to the other with "
                  "its delivery count raised, what it rejects or accepts never comes back.",
                  _hand_made("docs/conformance.md, A live broker"))


def _live_release_on_close_redelivers() -> Case:
    s = Script()
    s.fetch(0, (0, 9), count=10)
    s.ack((0, 9, ACCEPT), member=M2, error=Errors.INVALID_RECORD_STATE)
    s.release(error=Errors.NONE)
    s.fetch(0, (0, 9), member=M2, count=10)
    s.ack((0, 9, ACCEPT), member=M2, error=Errors.NONE)
    s.ends(10, 10, 10)
    return s.case("live_release_on_close_redelivers",
                  "Another member cannot acknowledge what a member holds; once the holder's session "
                  "closes, its records are released and go to the other member at delivery count 2.",
                  _hand_made("docs/conformance.md, A live broker"))


def _live_renew_then_accept() -> Case:
    s = Script()
    s.fetch(0, (0, 4), count=5)
    s.ack((0, 4, RENEW), error=Errors.NONE)
    s.ack((0, 1, ACCEPT), (2, 4, (RELEASE, REJECT, ACCEPT)), error=Errors.NONE)
    s.fetch(2, (0, 4), (5, 9), max_records=3, count=6)
    s.ends(2, 9, 10)
    return s.case("live_renew_then_accept",
                  "A RENEW keeps the records held by the member, who then settles them offset by "
                  "offset; the released one comes back, and MaxRecords 3 still takes the next log "
                  "batch whole.",
                  _hand_made("docs/conformance.md, A live broker"))


def all_cases() -> list[Case]:
    builders: list[Callable[[], Case]] = [
        _touching_batches_come_back_apart,
        _touching_batches_shown_as_one_run,
        _worked_example, _initialize, _initialize_finished, _gap_window, _batch_cuts,
        _in_flight_limit, _reacquire_subsets, _next_fetch_two_members, _per_offset_types,
        _not_cached, _only_holder, _one_bad_batch, _failed_write, _start_moves, _window_caps_start,
        _release_writes_changes, _delivery_limit, _lock_expiry, _expiry_at_the_start_offset,
        _expiry_of_a_piece_at_the_start_offset, _expiry_across_the_start_offset,
        _release_ending_at_the_start_offset, _failed_expiry_write, _renew,
        _throttling, _throttle_cap_already_reached, _log_start, _compacted, _spso_backwards,
        _missing_floor, _fencing, _stale_lock_write_kept,
        # --- issue 17: partition.py, lines below 427 ---
        _malformed_acknowledgements, _per_offset_types_across_batches, _failed_reload,
        _uninitialized_start, _one_offset_hole, _window_scan_past_finished,
        _empty_log_and_zero_records, _in_flight_limit_exact, _over_the_limit_inside_the_cache,
        _at_the_limit_capped_by_the_end, _one_below_the_limit, _limit_reached_past_the_end,
        _limit_passed_past_the_end, _end_past_the_cache, _window_limits, _window_hole_fills_max_records,
        _window_start_moves, _window_closes, _window_to_its_last_offset, _split_after_time_passed,
        _overlap_undoes_a_cut, _cached_batches_past_max_records, _subset_then_whole,
        _held_batch_overlapped, _throttled_after_records, _throttled_subset_then_stop,
        _new_records_after_cached, _cuts_after_the_first, _throttle_on_unsplit_states,
        _throttle_on_split_batches, _per_offset_types_from_below_zero, _first_batch_from_minus_two,
        _malformed_acknowledgement_to_a_failed_partition,
        # --- issue 17: partition.py from line 427, machine, persister, in_flight ---
        _expiry_of_a_batch_ending_at_the_start_offset,
        _log_start_over_whole_and_straddling_batches, _last_delivery_waits_in_a_split_batch,
        _throttled_walk_stops_at_the_cap, _expiry_at_the_limit_moves_the_start,
        _final_delivery_alone_from_a_persisted_batch, _persisted_neighbours_merge,
        _failed_load_refuses_everything, _release_of_another_members_batch_across_the_start,
        _throttle_to_one_record, _acquired_ranges_by_delivery_count,
        _ack_from_below_the_first_cached_offset, _release_and_renew_around_a_moved_log_start,
        _expiry_below_a_moved_log_start, _gap_window_at_load, _release_across_a_moved_log_start,
        _start_below_the_cache_stays, _log_start_move_recomputes_next_fetch,
        _start_stops_at_an_unfinished_batch, _renew_of_part_of_a_batch, _other_member_in_a_split_batch,
        _limit_two_takes_every_available_run, _two_types_for_a_two_record_batch,
        _ack_of_a_batch_the_log_start_falls_inside, _last_delivery_between_earlier_runs,
        _positive_read_error_fails_the_load, _throttle_cap_never_below_one,
        _throttle_cap_below_the_count, _throttle_cap_counts_what_was_taken,
        _throttle_cap_over_runs_apart, _acquired_runs_with_a_held_record_between,
        _start_over_split_new_batches, _last_deliveries_then_expiry,
        _throttle_cap_set_once_per_walk, _stale_archiving_keeps_later_records_findable,
        _renew_of_a_whole_batch_expires, _start_after_a_log_start_move_inside_a_split_batch,
        _held_last_record_below_a_moved_log_start, _expiry_below_the_log_start_after_persisted_holes,
        # --- issue 17, third pass: partition.py ---
        _stale_archiving_from_inside_a_split_batch, _stale_archiving_from_a_hole,
        # --- issue 17, fourth pass: the fetch path's gate ---
        _gate_at_the_in_flight_limit, _gate_of_a_partition_that_failed_to_load,
        _gate_open_for_a_persisted_hole, _gate_after_the_log_start_passed_the_cache,
        # --- issue 17, the spec layer ---
        _every_acknowledge_type_in_one_batch, _persister_error_before_fencing,
        _throttle_seen_at_the_last_offset_of_a_split_batch, _last_delivery_alone_before_fresher_offsets,
        _throttle_looks_only_at_the_fetched_range,
        # --- issue 19: realised on a live broker too ---
        _live_two_members_share_the_log, _live_release_on_close_redelivers, _live_renew_then_accept,
    ]
    cases = [build() for build in builders]
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise ValueError("two share_partition cases share a name")
    return cases


def vector_input(case: Case) -> dict[str, object]:
    from groupspec.conformance.share_partition_json import RunInput, run_input_to_json

    return run_input_to_json(RunInput(config=case.config, persisted=case.persisted,
                                      latest_offset=case.latest_offset, events=case.events))


def share_vector_docs() -> Iterator[dict[str, object]]:
    """One vector per case; ``expected`` is what the spec answers for the input as written.

    The Kafka flavour is held to the same expectation: both layers follow Kafka's code here
    (docs/divergences.md), except the grouping of acquired offsets into ranges, which the judge
    does not compare, and the ``divergence`` cases, where groupspec keeps its own answer and
    Kafka's code is known to fail the vector.
    """
    from groupspec.conformance.run_form import spec_run_vectors
    from groupspec.conformance.share_partition import PROPERTIES as SHARE_PROPERTIES

    return spec_run_vectors(MACHINE, HANDLER, all_cases(), vector_input, SHARE_PROPERTIES)

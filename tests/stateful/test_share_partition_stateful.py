"""The share partition: spec and implementation driven side by side.

Three members fetch from a log that grows in batches (sometimes leaving holes, as compaction and
transaction markers do), acknowledge whole and partial batches with every type (valid, stale,
overlapping, someone else's), leave, and let locks expire while the clock moves; the log start
moves, the persister fails or fences the partition, the share state is reset, and the partition
is reloaded from what was persisted. After every step:

- both layers gave the same answers and the persister saw the same writes, and the state the spec
  was handed is unchanged (a step builds a new frozen state);
- both show the same view (every cached offset's state, delivery count, holder and lock; the
  batches and their splits; start, end and next fetch offsets; what the persister holds);
- no delivery went past the delivery limit, and an accepted record never came back: until the
  share state is reset, it is ACKNOWLEDGED wherever it is cached and is never acquired again;
- nothing is lost: every offset of the log at or past the start offset is ACKNOWLEDGED, ARCHIVED,
  ACQUIRED, or at or after the next fetch offset, so a fetch will find it again.
"""

from __future__ import annotations

import copy

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from groupspec.impl.share_partition import SharePartitionMachine
from groupspec.spec import share_partition as spec
from groupspec.types.errors import Errors
from groupspec.types.share_partition import (
    AckBatch,
    Acknowledge,
    AdvanceClock,
    CanAcquire,
    FenceLeader,
    Fetch,
    FetchResponse,
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

MEMBERS = ("m1", "m2", "m3")
CONFIG = SharePartitionConfig(delivery_count_limit=4, max_in_flight_records=40, record_lock_duration_ms=1_000)
ERRORS = (Errors.NONE, Errors.NONE, Errors.NONE, Errors.GROUP_ID_NOT_FOUND, Errors.UNKNOWN_SERVER_ERROR,
          Errors.COORDINATOR_NOT_AVAILABLE)
START = PersistedState(1, 3, (PersisterBatch(5, 7, RecordState.AVAILABLE, 2),
                              PersisterBatch(10, 12, RecordState.ACKNOWLEDGED, 1)))


class ShareAgreement(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = spec.initial_state(CONFIG, START)
        self.impl = SharePartitionMachine(CONFIG, START)
        self.index = 0
        self.log = [LogBatch(3, 9), LogBatch(10, 14)]
        self.accepted: set[int] = set()
        #: Offsets a fetch past the next fetch offset jumped over; a broker never fetches so.
        self.skipped: set[int] = set()

    def send(self, event: SharePartitionEvent) -> object:
        index = self.index
        self.index += 1
        note(f"#{index}: {event!r}")
        before, snapshot = self.state, copy.deepcopy(self.state)
        self.state, expected = spec.step(before, event, index)
        assert before == snapshot, f"#{index}: spec.step changed the state it was handed"
        actual = self.impl.handle(event, index)
        assert actual == expected, f"#{index} {event!r}\nspec: {expected}\nimpl: {actual}"
        return expected.answers[0].response if expected.answers else None

    def view(self):  # type: ignore[no-untyped-def]
        return spec.view(self.state)

    # -- the log ----------------------------------------------------------------------------------

    @rule(size=st.integers(1, 12), hole=st.sampled_from((0, 0, 0, 1, 3)))
    def produce(self, size: int, hole: int) -> None:
        if self.log[-1].last_offset > 150:
            return
        base = self.log[-1].last_offset + 1 + hole
        self.log.append(LogBatch(base, base + size - 1))

    @rule(data=st.data())
    def move_log_start(self, data: st.DataObject) -> None:
        view = self.view()
        # Half the moves land on a batch's edge (its first or last offset, or just past it): the
        # boundaries where mutation testing found splits and archiving unsearched (issue 17).
        edges = sorted({o for b in view.batches for o in (b.first_offset, b.last_offset, b.last_offset + 1)
                        if o >= view.start_offset})
        if edges and data.draw(st.booleans(), label="at a batch edge"):
            to = data.draw(st.sampled_from(edges), label="log start")
        else:
            to = data.draw(st.integers(view.start_offset, view.start_offset + 15), label="log start")
        self.log = [b for b in self.log if b.last_offset >= to] or [LogBatch(to, to)]
        self.send(MoveLogStart(to))

    # -- members ------------------------------------------------------------------------------------

    @rule(data=st.data(), member=st.sampled_from(MEMBERS), max_records=st.sampled_from((1, 5, 500)),
          batch_size=st.sampled_from((3, 500)))
    def fetch(self, data: st.DataObject, member: str, max_records: int, batch_size: int) -> None:
        nfo = self.view().next_fetch_offset
        offset = data.draw(st.sampled_from((nfo, nfo, nfo, max(0, nfo - 4), nfo + 2)), label="fetch offset")
        batches = [b for b in self.log if b.last_offset >= offset]
        self.skipped.update(range(nfo, offset))
        count = data.draw(st.integers(0, 4), label="log batches")
        response = self.send(Fetch(member, offset, tuple(batches[:count]), max_records, batch_size))
        assert isinstance(response, FetchResponse)
        for acquired in response.acquired:
            assert acquired.delivery_count <= CONFIG.delivery_count_limit, acquired
            again = self.accepted.intersection(range(acquired.first_offset, acquired.last_offset + 1))
            assert not again, f"accepted offsets {sorted(again)} delivered again"

    @rule(data=st.data(), member=st.sampled_from(MEMBERS), count=st.integers(1, 3))
    def acknowledge(self, data: st.DataObject, member: str, count: int) -> None:
        view = self.view()
        held = [r for r in view.records if r.state == RecordState.ACQUIRED]
        # Mostly the holder acknowledging what it holds (a planted REJECT-as-RELEASE went unseen
        # when a random member acknowledged random ranges: 3 of 324 acknowledgements succeeded);
        # sometimes anyone, anything.
        if held and data.draw(st.integers(0, 3), label="by the holder") > 0:
            member = data.draw(st.sampled_from(sorted({r.member_id for r in held})), label="holder")
        mine = sorted(r.offset for r in held if r.member_id == member)
        offsets = mine or [r.offset for r in held] or [view.start_offset]
        batches = []
        low = 0
        for _ in range(count):
            candidates = [o for o in offsets if o >= low]
            if not candidates and batches:
                break
            first = data.draw(st.sampled_from(candidates or offsets), label="first")
            if mine and data.draw(st.booleans(), label="within the run held"):
                run_end = first
                while run_end + 1 in mine:
                    run_end += 1
                last = data.draw(st.integers(first, run_end), label="last")
            else:
                last = first + data.draw(st.sampled_from((0, 0, 1, 3, 9)), label="length")
            if data.draw(st.booleans(), label="one type"):
                types: tuple[int, ...] = (data.draw(st.sampled_from((1, 1, 2, 3, 0, 4)), label="type"),)
            else:
                types = tuple(data.draw(st.lists(st.sampled_from((0, 1, 2, 3, 4)), min_size=last - first + 1,
                                                 max_size=last - first + 1), label="types"))
            batches.append(AckBatch(first, last, types))
            low = last + 1
        if data.draw(st.integers(0, 9), label="malformed") == 0:
            batches.append(AckBatch(low + 5, low + 2, (1,)))
        event = Acknowledge(member, tuple(batches))
        before = {r.offset: r for r in view.records}
        response = self.send(event)
        if getattr(response, "error", None) is Errors.NONE:
            for b in batches:
                for o in range(b.first_offset, b.last_offset + 1):
                    kind = b.types[0] if len(b.types) == 1 else b.types[o - b.first_offset]
                    r = before.get(o)
                    held = r is not None and r.state == RecordState.ACQUIRED and r.member_id == member
                    if kind == 1 and held and o >= view.start_offset:
                        self.accepted.add(o)

    @rule(data=st.data(), member=st.sampled_from(MEMBERS), max_records=st.sampled_from((1, 5, 500)),
          count=st.integers(1, 2))
    def fetch_and_acknowledge(self, data: st.DataObject, member: str, max_records: int, count: int) -> None:
        """The common case: a member acknowledges what its fetch just acquired. Without it,
        most acknowledgements met nothing acquired (16 of 641 succeeded in a run), and a planted
        REJECT-as-RELEASE slipped through now and then."""
        self.fetch(data, member, max_records, 500)
        self.acknowledge(data, member, count)

    @rule(member=st.sampled_from(MEMBERS))
    def release(self, member: str) -> None:
        self.send(ReleaseMember(member))

    @rule()
    def can_acquire(self) -> None:
        """The fetch path's gate, asked in whatever state the other rules left: both layers
        must agree on it as on everything else."""
        self.send(CanAcquire())

    # -- time, persister, failover ------------------------------------------------------------------

    @rule(data=st.data())
    def advance(self, data: st.DataObject) -> None:
        view = self.view()
        deadlines = sorted({r.lock_deadline_ms for r in view.records if r.lock_deadline_ms is not None})
        to = data.draw(st.sampled_from([view.now_ms + 1, view.now_ms + 400, *deadlines[:3]]), label="to")
        self.send(AdvanceClock(to))

    @rule(error=st.sampled_from(ERRORS))
    def persister_answers(self, error: Errors) -> None:
        self.send(SetPersisterError(error))

    @rule()
    def fence(self) -> None:
        self.send(FenceLeader())

    @rule()
    def reset(self) -> None:
        start = self.view().start_offset
        self.send(ResetShareState(start))
        self.accepted.clear()

    @rule()
    def reload(self) -> None:
        self.send(Reload(latest_offset=self.log[-1].last_offset + 1))

    # -- after every step ------------------------------------------------------------------------

    @invariant()
    def same_view(self) -> None:
        assert self.impl.view() == spec.view(self.state)

    @invariant()
    def nothing_lost(self) -> None:
        """Every offset in the log at or past SPSO is finished, held, or will be fetched again."""
        view = self.view()
        if view.status != "ACTIVE":
            return
        cached = {r.offset: r for r in view.records}
        for batch in self.log:
            for o in range(max(batch.base_offset, view.start_offset), batch.last_offset + 1):
                r = cached.get(o)
                if o in self.skipped or (r is not None and r.state != RecordState.AVAILABLE):
                    continue
                assert view.next_fetch_offset <= o, f"offset {o} ({r}) is behind {view.next_fetch_offset}"

    @invariant()
    def accepted_stays_accepted(self) -> None:
        for r in self.view().records:
            if r.offset in self.accepted:
                assert r.state == RecordState.ACKNOWLEDGED, r


TestShareAgreement = ShareAgreement.TestCase

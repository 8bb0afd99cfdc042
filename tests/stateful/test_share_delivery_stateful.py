"""The share consumer's delivery path: spec and implementation driven side by side.

Either acknowledgement mode, with max.poll.records small or not. The application polls,
acknowledges any held record (or one it does not hold) with ACCEPT, RELEASE or REJECT, commits
sync or async, and closes; the assignment changes; the request in flight is answered (records
acquired with delivery counts, each offset once; acknowledgement outcomes; session and other
errors) or fails.
After every step both layers returned, sent and called back the same and show the same view;
the spec's contracts held (one request at a time, the session epoch's rules, acknowledgements
only of records a poll returned). The acknowledgement batches of both layers also agree on any
set of acknowledgements (long runs of one type are rare in a run). Budgets come from the
Hypothesis profiles in tests/conftest.py.
"""

from __future__ import annotations

from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from groupspec.impl.share_delivery import ShareDeliveryConsumer
from groupspec.impl.share_delivery.batch import Acknowledgements
from groupspec.spec import share_delivery as spec
from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    Acknowledge,
    AcknowledgeAnswered,
    AcknowledgementMode,
    AcknowledgePartition,
    AcknowledgeType,
    AcquiredRecords,
    Assign,
    Close,
    CommitAsync,
    CommitSync,
    DeliveryConfig,
    DeliveryEvent,
    DeliveryOutput,
    FetchAnswered,
    FetchPartition,
    Partition,
    Poll,
    Request,
    RequestFailed,
)

PARTITIONS = (Partition("a", 0), Partition("a", 1), Partition("b", 0))
TYPES = (AcknowledgeType.ACCEPT, AcknowledgeType.RELEASE, AcknowledgeType.REJECT, AcknowledgeType.RENEW)
FETCH_ERRORS = (Errors.NONE,) * 6 + (Errors.SHARE_SESSION_NOT_FOUND, Errors.INVALID_SHARE_SESSION_EPOCH,
                                     Errors.SHARE_SESSION_LIMIT_REACHED, Errors.UNKNOWN_SERVER_ERROR)
ACK_ERRORS = (Errors.NONE,) * 4 + (Errors.INVALID_RECORD_STATE, Errors.NOT_LEADER_OR_FOLLOWER)
ACKNOWLEDGE_ERRORS = (Errors.NONE,) * 6 + (Errors.INVALID_REQUEST, Errors.GROUP_AUTHORIZATION_FAILED)

#: One partition's part of a ShareFetch answer: acquired ranges as (gap before, length - 1,
#: delivery count), laid out after the partition's last offset, and the acknowledgement outcome.
fetched_partition = st.tuples(
    st.lists(st.tuples(st.integers(0, 2), st.sampled_from((0, 1, 2, 9, 10, 11, 12)), st.integers(1, 4)),
             max_size=2),
    st.sampled_from(ACK_ERRORS),
)


class DeliveryAgreement(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.state = spec.initial_state()
        self.impl = ShareDeliveryConsumer()
        #: The next offset of each partition: a broker acquires each offset for this consumer
        #: once (the model has no redelivery of a record the consumer still holds).
        self.next_offset = dict.fromkeys(PARTITIONS, 0)

    @initialize(mode=st.sampled_from(AcknowledgementMode), max_poll_records=st.sampled_from((1, 3, 500)),
                assigned=st.lists(st.sampled_from(PARTITIONS), min_size=1, unique=True))
    def start(self, mode: AcknowledgementMode, max_poll_records: int, assigned: list[Partition]) -> None:
        config = DeliveryConfig(mode, max_poll_records)
        note(repr(config))
        self.state = spec.initial_state(config)
        self.impl = ShareDeliveryConsumer(config)
        self.send(Assign(tuple(assigned)))

    def send(self, event: DeliveryEvent) -> DeliveryOutput:
        note(repr(event))
        self.state, expected = spec.step(self.state, event)
        actual = self.impl.handle(event)
        assert actual == expected, f"{event!r}\nspec: {expected}\nimpl: {actual}"
        return expected

    @rule(partitions=st.lists(st.sampled_from(PARTITIONS), unique=True))
    def assign(self, partitions: list[Partition]) -> None:
        self.send(Assign(tuple(partitions)))

    @rule()
    def poll(self) -> None:
        self.send(Poll())

    @rule(data=st.data(), type_=st.sampled_from(TYPES))
    def acknowledge(self, data: st.DataObject, type_: AcknowledgeType) -> None:
        held = spec.view(self.state).delivered
        if held and data.draw(st.integers(0, 5), label="held") > 0:
            r = data.draw(st.sampled_from(held), label="record")
            self.send(Acknowledge(r.topic, r.partition, r.offset, type_))
        else:
            self.send(Acknowledge("a", 0, data.draw(st.integers(0, 40), label="offset"), type_))

    @rule(type_=st.sampled_from(TYPES), last=st.sampled_from((None, *TYPES)))
    def acknowledge_every_held(self, type_: AcknowledgeType, last: AcknowledgeType | None) -> None:
        """Explicit mode's usual loop: every held record, the last maybe with another type (long
        runs of one type make batches of their own)."""
        held = spec.view(self.state).delivered
        for k, r in enumerate(held):
            self.send(Acknowledge(r.topic, r.partition, r.offset,
                                  last if last is not None and k == len(held) - 1 else type_))

    @rule()
    def commit_sync(self) -> None:
        self.send(CommitSync())

    @rule()
    def commit_async(self) -> None:
        self.send(CommitAsync())

    @rule()
    def close(self) -> None:
        self.send(Close())

    @precondition(lambda self: spec.view(self.state).in_flight is Request.SHARE_FETCH)
    @rule(error=st.sampled_from(FETCH_ERRORS), data=st.data())
    def fetch_answered(self, error: Errors, data: st.DataObject) -> None:
        parts = []
        for p in data.draw(st.lists(st.sampled_from(PARTITIONS), unique=True), label="partitions"):
            ranges, ack_error = data.draw(fetched_partition, label=f"{p.topic}-{p.partition}")
            acquired = []
            for gap, extra, count in ranges:
                first = self.next_offset[p] + gap
                acquired.append(AcquiredRecords(first, first + extra, count))
                self.next_offset[p] = first + extra + 1
            parts.append(FetchPartition(p.topic, p.partition, tuple(acquired), ack_error))
        self.send(FetchAnswered(error, tuple(parts)))

    @precondition(lambda self: spec.view(self.state).in_flight in (Request.COMMIT_ASYNC, Request.COMMIT_SYNC,
                                                                     Request.CLOSE))
    @rule(error=st.sampled_from(ACKNOWLEDGE_ERRORS),
          partitions=st.lists(st.tuples(st.sampled_from(PARTITIONS), st.sampled_from(ACK_ERRORS)),
                              unique_by=lambda t: t[0]))
    def acknowledge_answered(self, error: Errors, partitions: list[tuple[Partition, Errors]]) -> None:
        self.send(AcknowledgeAnswered(error, tuple(AcknowledgePartition(p.topic, p.partition, e)
                                                   for p, e in partitions)))

    @precondition(lambda self: spec.view(self.state).in_flight is not None)
    @rule()
    def fail(self) -> None:
        self.send(RequestFailed())

    @rule()
    def stray_answer(self) -> None:
        """An answer for a request not in flight changes nothing on either layer."""
        if spec.view(self.state).in_flight is None:
            out = self.send(FetchAnswered())
            assert out == DeliveryOutput()

    @invariant()
    def same_view(self) -> None:
        assert self.impl.view() == spec.view(self.state)


TestDeliveryAgreement = DeliveryAgreement.TestCase


@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from(TYPES), st.integers(1, 14)), max_size=6))
def test_acknowledgement_batches_agree(runs: list[tuple[int, AcknowledgeType, int]]) -> None:
    """Runs of (gap before, type, length): both layers cut the same AcknowledgementBatches."""
    marks: dict[int, AcknowledgeType] = {}
    offset = 0
    for gap, type_, length in runs:
        offset += gap - 1 if marks else 0
        for _ in range(length):
            marks[offset] = type_
            offset += 1
    acks = Acknowledgements()
    for o, t in marks.items():
        acks.add(o, t)
    assert acks.batches() == spec.batches(marks)

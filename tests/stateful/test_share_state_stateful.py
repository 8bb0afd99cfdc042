"""The share coordinator: spec and implementation driven side by side.

Keys of two groups on two topics (one with two partitions, one unknown to the metadata image)
get initialized (with old, current and newer state epochs, and start offsets -1 or not), read
with every kind of leader epoch (-1, stale, the current one, newer), written (state and leader
epochs stale, current, newer or -1; start offsets -1, kept or moved; overlapping batches of any
state and count; and, so that state grows, as a healthy leader writes: to an existing key with
its current epochs), deleted and summarized; topics are deleted; the clock moves; every shard
fails over and replays its log; now and then an event carries what no broker would hand the
shard (an empty group id, a batch with first > last), which both layers must refuse with the
same InputError, changing nothing. The coordinator topic has three partitions, so keys share
shards. After every step:

- both layers answered the same and wrote the same records;
- both show the same view (every key's epochs, start offset, batches, timestamps, fences and
  update count; every partition's log end and redundant offset);
- memory equals a replay of the log: the implementation's logs loaded into fresh shards give
  the view it had (checked through a Restart on a copy of the log);
- the spec's invariants and the combiner's contract held (icontract, on every step).

The clock moves far enough for the cold-partition snapshot timer (3 s here) to fire.

Budgets come from the Hypothesis profiles in tests/conftest.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from groupspec.impl.share_state import ShareCoordinator
from groupspec.kafka_versions import VERSIONS
from groupspec.spec import share_state as spec
from groupspec.types import InputError
from groupspec.types.share_state import (
    AdvanceClock,
    DeleteShareGroupState,
    DeleteTopics,
    InitializeShareGroupState,
    ReadShareGroupState,
    ReadShareGroupStateSummary,
    Restart,
    ShareStateConfig,
    ShareStateEvent,
    StateBatch,
    TopicMetadata,
    WriteShareGroupState,
)

T1 = "00000000-0000-4000-8000-000000000001"
T2 = "00000000-0000-4000-8000-000000000002"
GHOST = "00000000-0000-4000-8000-0000000000ff"
TOPICS = (TopicMetadata(T1, 2), TopicMetadata(T2, 1))
GROUPS = st.sampled_from(("g1", "g1", "g2"))
TOPIC_IDS = st.sampled_from((T1, T1, T2, GHOST))
PARTITIONS = st.sampled_from((0, 0, 1, -1))
EPOCHS = st.integers(min_value=-1, max_value=4)
STARTS = st.sampled_from((-1, 0, 3, 8, 15))
BATCH = st.builds(lambda first, width, state, count: StateBatch(first, first + width, state, count),
                  st.integers(0, 24), st.integers(0, 6), st.sampled_from((0, 2, 4)), st.integers(0, 3))
BATCHES = st.lists(BATCH, max_size=4).map(tuple)


class ShareStateAgreement(RuleBasedStateMachine):
    #: Kafka 4.2's rules; the subclass below runs the same search under 4.3's.
    release: Mapping[str, Any] = {}

    def __init__(self) -> None:
        super().__init__()
        self.config = ShareStateConfig(state_topic_partitions=3, updates_per_snapshot=2,
                                       cold_snapshot_interval_ms=3_000, **self.release)
        self.state = spec.initial_state(self.config, TOPICS)
        self.impl = ShareCoordinator(self.config, TOPICS)
        self.index = 0
        self.writes = 0

    def _send(self, event: ShareStateEvent) -> None:
        note(repr(event))
        try:
            self.state, want = spec.step(self.state, event, self.index)
        except InputError as refused:
            try:
                self.impl.handle(event, self.index)
            except InputError as also:
                assert (also.field, also.problem) == (refused.field, refused.problem)
                return
            raise AssertionError(f"the impl took {event!r}, which the spec refused: {refused}") from None
        got = self.impl.handle(event, self.index)
        self.index += 1
        assert got == want, (want, got)
        self.writes += len(got.records)

    @rule(group=GROUPS, topic=TOPIC_IDS, partition=PARTITIONS, state_epoch=EPOCHS, start=STARTS)
    def initialize(self, group: str, topic: str, partition: int, state_epoch: int, start: int) -> None:
        self._send(InitializeShareGroupState(group, topic, partition, state_epoch, start))

    @rule(group=GROUPS, topic=TOPIC_IDS, partition=PARTITIONS, leader_epoch=EPOCHS)
    def read(self, group: str, topic: str, partition: int, leader_epoch: int) -> None:
        self._send(ReadShareGroupState(group, topic, partition, leader_epoch))

    @rule(group=GROUPS, topic=TOPIC_IDS, partition=PARTITIONS, state_epoch=EPOCHS,
          leader_epoch=EPOCHS, start=STARTS, batches=BATCHES)
    def write(self, group: str, topic: str, partition: int, state_epoch: int, leader_epoch: int,
              start: int, batches: tuple[StateBatch, ...]) -> None:
        self._send(WriteShareGroupState(group, topic, partition, state_epoch, leader_epoch, start, batches))

    @precondition(lambda self: bool(self.state.keys))
    @rule(data=st.data(), start=STARTS, batches=BATCHES, newer=st.booleans())
    def write_as_the_leader(self, data: st.DataObject, start: int, batches: tuple[StateBatch, ...],
                            newer: bool) -> None:
        """A write a healthy leader sends: to a key that exists, with its current epochs (or a
        newer leader epoch); most random writes are refused, and this keeps state growing."""
        key = data.draw(st.sampled_from(sorted(self.state.keys)))
        entry = self.state.keys[key]
        state_epoch = entry.state_seen if entry.state_seen is not None else -1
        self._send(WriteShareGroupState(*key, state_epoch, entry.leader_seen + int(newer), start, batches))

    @rule(group=GROUPS, topic=TOPIC_IDS, partition=PARTITIONS)
    def delete(self, group: str, topic: str, partition: int) -> None:
        self._send(DeleteShareGroupState(group, topic, partition))

    @rule(group=GROUPS, topic=TOPIC_IDS, partition=PARTITIONS, leader_epoch=EPOCHS)
    def summary(self, group: str, topic: str, partition: int, leader_epoch: int) -> None:
        self._send(ReadShareGroupStateSummary(group, topic, partition, leader_epoch))

    @rule(by=st.integers(0, 5_000))
    def advance_clock(self, by: int) -> None:
        self._send(AdvanceClock(self.state.now + by))

    @rule(topic=st.sampled_from((T2, GHOST)))
    def delete_topic(self, topic: str) -> None:
        self._send(DeleteTopics((topic,)))

    @rule()
    def restart(self) -> None:
        self._send(Restart())

    @rule(bad=st.sampled_from((
        InitializeShareGroupState("", T1, 0, 0, 0),
        WriteShareGroupState("g1", T1, 0, 0, 0, 0, (StateBatch(5, 4, 0, 1),)),
        ReadShareGroupState("g1", "not-a-uuid", 0, 0),
        AdvanceClock(-1),
    )))
    def refused(self, bad: ShareStateEvent) -> None:
        self._send(bad)

    @invariant()
    def same_view(self) -> None:
        assert self.impl.view() == spec.view(self.state)

    @precondition(lambda self: self.writes > 0)
    @invariant()
    def replay_rebuilds_the_same_state(self) -> None:
        """The implementation's logs loaded into a fresh coordinator give the same view."""
        fresh = ShareCoordinator(self.config, TOPICS, start_ms=self.impl.runtime.clock.now())
        for partition in range(self.config.state_topic_partitions):
            fresh.runtime.unload(partition)
            log = fresh.runtime.log(partition)
            for _, entry in self.impl.runtime.log(partition).entries():
                log.append([entry], 0)
            fresh.runtime.load(partition)
        assert fresh.view() == self.impl.view()


TestShareStateAgreement = ShareStateAgreement.TestCase


class ShareStateAgreementKafka43(ShareStateAgreement):
    """A read at leader epoch -1 is not fenced (Kafka 4.3, groupspec.kafka_versions)."""

    release = VERSIONS["4.3"].settings["share_state"]


TestShareStateAgreementKafka43 = ShareStateAgreementKafka43.TestCase

"""Conformance cases of the share consumer's membership (machine ``share_consumer``, handler ``run``).

Each case feeds one consumer's membership the application's calls, the passing of time and the
heartbeat answers a coordinator gave, and records what the consumer sent and applied. The spec
writes the expectations; ``shows`` holds claims that tests/cover/test_conformance_share_consumer.py
checks against them. Sources: the share-group coordinator fact sheet's §6 (the client side).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from groupspec.types.errors import Errors
from groupspec.types.share_consumer import (
    HeartbeatAnswered,
    HeartbeatFailed,
    MemberState,
    Poll,
    ShareConsumerConfig,
    ShareConsumerEvent,
    Subscribe,
    Tick,
    Unsubscribe,
)
from groupspec.types.share_group import ShareGroupHeartbeatResponse, TopicPartitions

MACHINE = "share_consumer"
HANDLER = "run"
FACT_SHEET = "share_group_coordinator.md"
T1 = "00000000-0000-4000-8000-000000000001"
P01 = (TopicPartitions(T1, (0, 1)),)
CONFIG = ShareConsumerConfig(group_id="g", member_id="member", rack_id="r1")


@dataclass(frozen=True)
class Sent:
    """Event ``event`` sends a heartbeat with ``epoch`` (None: sends nothing)."""

    event: int
    epoch: int | None


@dataclass(frozen=True)
class Ends:
    state: MemberState


Claim = Sent | Ends


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    source: Mapping[str, str]
    events: tuple[ShareConsumerEvent, ...]
    config: ShareConsumerConfig = CONFIG
    shows: tuple[Claim, ...] = ()


@dataclass
class Script:
    config: ShareConsumerConfig = CONFIG
    events: list[ShareConsumerEvent] = field(default_factory=list)
    shows: list[Claim] = field(default_factory=list)

    def add(self, event: ShareConsumerEvent, sends: int | str | None = "-") -> int:
        self.events.append(event)
        index = len(self.events) - 1
        if sends != "-":
            self.shows.append(Sent(index, sends if isinstance(sends, int) else None))
        return index

    def answer(
        self,
        error: Errors = Errors.NONE,
        epoch: int = 1,
        interval: int = 5_000,
        assignment: tuple[TopicPartitions, ...] | None = None,
        sends: int | str | None = "-",
    ) -> int:
        response = ShareGroupHeartbeatResponse(error, "member", epoch, interval, assignment)
        return self.add(HeartbeatAnswered(response), sends)

    def case(self, name: str, description: str, section: str, state: MemberState,
             upstream: str | None = None) -> Case:
        """``upstream``: the Kafka file that decides the case, where the fact sheet is silent."""
        self.shows.append(Ends(state))
        source = ({"kind": "fact-sheet", "file": FACT_SHEET, "section": section} if upstream is None
                  else {"kind": "upstream", "file": upstream})
        return Case(
            name,
            description,
            source,
            tuple(self.events),
            self.config,
            tuple(self.shows),
        )


def _join() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)), sends=None)
    s.add(Poll(), sends=0)
    s.add(Poll(), sends=None)
    s.answer(epoch=1, assignment=())
    s.add(Tick(4_999), sends=None)
    s.add(Tick(5_000), sends=1)
    return s.case(
        "join_and_heartbeat",
        "Subscribing only flags the change; the next poll joins with epoch 0, "
        "rack and topics; one heartbeat in flight. The join's empty assignment is reconciled with "
        "the answer (ACKNOWLEDGING) and acknowledged when the network thread wakes, here at the "
        "interval, carrying only the epoch.",
        "§6.1, §6.2",
        MemberState.STABLE,
    )


def _reconcile() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    s.add(Tick(5_000), sends=1)
    s.answer(epoch=2, assignment=P01, sends=None)
    s.add(Poll(), sends=2)
    return s.case(
        "new_assignment_applied_with_its_answer",
        "A new assignment is applied by the network thread right after the answer that brings it "
        "(RECONCILING -> ACKNOWLEDGING: the partitions change with the answer) and acknowledged "
        "when the thread next wakes, here at the application's poll (-> STABLE).",
        "§6.3",
        MemberState.STABLE,
        upstream=MEMBERSHIP_MANAGER,
    )


def _fenced() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=P01)
    s.add(Poll())
    s.answer(Errors.FENCED_MEMBER_EPOCH, sends=0)
    return s.case(
        "fenced_member_rejoins",
        "FENCED_MEMBER_EPOCH releases the assignment and rejoins at once "
        "with epoch 0 and the same member id, sending rack and topics again.",
        "§6.3",
        MemberState.JOINING,
    )


def _fatal() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(Errors.GROUP_ID_NOT_FOUND, sends=None)
    s.add(Tick(60_000), sends=None)
    return s.case(
        "group_id_not_found_is_fatal",
        "GROUP_ID_NOT_FOUND from the coordinator is fatal for the client: no more heartbeats.",
        "§6.3, §8 item 17",
        MemberState.FATAL,
    )


def _fatal_releases_the_assignment() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=P01)
    s.add(Poll())
    s.answer(Errors.GROUP_MAX_SIZE_REACHED, sends=None)
    return s.case(
        "fatal_error_releases_the_assignment",
        "A fatal error while holding partitions releases them: the application sees an empty "
        "assignment (found by groupspec fuzz against Kafka 4.2.1's client).",
        "§6.3",
        MemberState.FATAL,
        upstream="clients/src/main/java/org/apache/kafka/clients/consumer/internals/AbstractMembershipManager.java",
    )


def _coordinator_moved() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    s.add(Tick(5_000))
    s.answer(Errors.NOT_COORDINATOR, sends=None)
    s.add(Tick(5_100), sends=1)
    return s.case(
        "coordinator_moved",
        "NOT_COORDINATOR drops the coordinator; once it is found again the heartbeat goes at once, full.",
        "§6.3",
        MemberState.STABLE,
    )


def _failures() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.add(HeartbeatFailed(retriable=True), sends=None)
    s.add(Tick(100), sends=0)
    s.add(HeartbeatFailed(retriable=False), sends=None)
    return s.case(
        "transport_failures",
        "A retriable failure backs off and retries; another is fatal.",
        "§6.3",
        MemberState.FATAL,
    )


def _leave() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=P01)
    s.add(Poll())
    s.add(Unsubscribe(), sends=-1)
    s.answer(epoch=1, sends=None)
    s.answer(epoch=-1, sends=None)
    return s.case(
        "unsubscribe_leaves",
        "Unsubscribing releases the assignment and leaves with epoch -1 at once, with the emptied "
        "subscription ([]: the topics differ from those last sent), although the "
        "heartbeat that acknowledged the assignment is still in flight (the share consumer does "
        "not wait to leave); that heartbeat's answer no longer concerns the member, and the "
        "leave's answer completes the leave.",
        "§6.2, §6.4",
        MemberState.UNSUBSCRIBED,
    )


def _stale() -> Case:
    s = Script(config=ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000))
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    s.add(Tick(5_000), sends=1)
    s.answer(epoch=1)
    s.add(Tick(10_000), sends=-1)
    s.answer(epoch=-1)
    s.add(Poll(), sends=0)
    return s.case(
        "poll_timeout_makes_the_member_stale",
        "No poll for max.poll.interval.ms: the member leaves (STALE) and rejoins on the next poll.",
        "§6.4",
        MemberState.JOINING,
    )


def _subscribed_only() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)), sends=None)
    return s.case(
        "subscribed_not_yet_polled",
        "Before its first poll a subscribed consumer is UNSUBSCRIBED with epoch 0 and sends nothing.",
        "§6.1",
        MemberState.UNSUBSCRIBED,
    )


def _poll_timer_counts_from_the_last_poll() -> Case:
    s = Script(config=ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000))
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=(), interval=60_000)
    s.add(Tick(5_000), sends=1)
    s.answer(epoch=1, interval=60_000)
    s.add(Tick(8_000))
    s.add(Poll(), sends=None)
    s.add(Tick(17_999), sends=None)
    return s.case(
        "poll_timer_counts_from_the_last_poll",
        "max.poll.interval.ms counts from the last poll, not from the start: polled at 8 s, the "
        "member is still in the group at 17.999 s.",
        "§6.4",
        MemberState.STABLE,
    )


def _stale_until_polled() -> Case:
    s = Script(config=ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000))
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    s.add(Tick(5_000), sends=1)
    s.answer(epoch=1)
    s.add(Tick(10_000), sends=-1)
    s.answer(epoch=-1, sends=None)
    return s.case(
        "poll_timeout_leaves_the_member_stale",
        "The poll timer's leave ends in STALE (not UNSUBSCRIBED): the subscription stays, and the "
        "next poll rejoins.",
        "§6.4",
        MemberState.STALE,
    )


def _unknown_server_error_is_fatal() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(Errors.UNKNOWN_SERVER_ERROR, sends=None)
    return s.case(
        "unknown_server_error_is_fatal",
        "An error with a negative code (UNKNOWN_SERVER_ERROR, -1) is an error like any other: fatal.",
        "§6.3",
        MemberState.FATAL,
    )


def _rediscovery_waits_for_the_backoff() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    s.add(Tick(5_000))
    s.answer(Errors.NOT_COORDINATOR, sends=None)
    s.add(Tick(5_099), sends=None)
    s.add(Tick(5_100), sends=1)
    return s.case(
        "coordinator_rediscovered_after_the_backoff",
        "After NOT_COORDINATOR no heartbeat goes until the coordinator is found again, "
        "retry.backoff.ms (100 ms) later.",
        "§6.3",
        MemberState.STABLE,
    )


def _late_leave_answer() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    s.add(Unsubscribe(), sends=-1)
    s.add(Subscribe(("t1",)), sends=None)
    s.add(Poll(), sends=None)
    s.answer(epoch=-1, sends=0)
    return s.case(
        "leave_answered_after_rejoining",
        "The member leaves and subscribes again while its leave is in flight: the poll joins, but "
        "the join waits for the leave's answer (epoch -1), which it does not take as its epoch; "
        "then the join goes with epoch 0.",
        "§6.4",
        MemberState.JOINING,
    )


def _subscription_changes() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll(), sends=0)
    s.answer(epoch=1, assignment=())
    s.add(Subscribe(("t1", "t2")), sends=1)
    s.answer(epoch=2, assignment=())
    s.add(Subscribe(()), sends=-1)
    s.answer(epoch=-1, interval=0, sends=None)
    return s.case(
        "new_subscription_is_sent_and_an_empty_one_leaves",
        "A changed subscription in the group goes with the next heartbeat: here the subscribe "
        "wakes the network thread, and the acknowledgement of the join's empty assignment carries "
        "the new topics; subscribing to nothing leaves at once with the emptied subscription ([]), "
        "and the leave ends UNSUBSCRIBED (not STALE: the application asked for it).",
        "§6.2, §6.4",
        MemberState.UNSUBSCRIBED,
    )


def _late_tick_expires_the_poll_timer() -> Case:
    s = Script(config=ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000))
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=(), interval=60_000)
    s.add(Tick(5_000), sends=1)
    s.answer(epoch=1, interval=60_000)
    s.add(Tick(15_000), sends=-1)
    return s.case(
        "poll_timer_expired_by_a_later_tick",
        "The poll timer has expired whenever the time since the last poll reaches "
        "max.poll.interval.ms, here first seen 5 s after it did: the member leaves (STALE).",
        "§6.4",
        MemberState.STALE,
    )


def _late_rediscovery() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    s.add(Tick(5_000))
    s.answer(Errors.NOT_COORDINATOR, sends=None)
    s.add(Tick(6_000), sends=1)
    return s.case(
        "coordinator_rediscovered_by_a_later_tick",
        "After NOT_COORDINATOR the coordinator is found again at any time past retry.backoff.ms, "
        "not only exactly at it: a tick 900 ms past the backoff sends the heartbeat.",
        "§6.3",
        MemberState.STABLE,
    )


def _emptied_assignment() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=P01)
    s.add(Poll(), sends=1)
    s.answer(epoch=2, assignment=(), sends=None)
    s.add(Poll(), sends=2)
    return s.case(
        "an_emptied_assignment_is_reconciled",
        "A target with fewer partitions (here none) is a new assignment like a larger one: the "
        "partitions are released with the answer, and the next poll acknowledges at once.",
        "§6.3",
        MemberState.STABLE,
    )


def _load_in_progress_backs_off() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll(), sends=0)
    s.answer(Errors.COORDINATOR_LOAD_IN_PROGRESS, sends=0)
    s.answer(epoch=1, assignment=())
    s.add(Tick(5_000), sends=1)
    s.answer(Errors.COORDINATOR_LOAD_IN_PROGRESS, sends=None)
    s.add(Tick(5_099), sends=None)
    s.add(Tick(5_100), sends=1)
    return s.case(
        "coordinator_loading_backs_off",
        "COORDINATOR_LOAD_IN_PROGRESS keeps the coordinator. A joining member retries at once "
        "(JOINING heartbeats do not wait for a backoff); a member in the group retries after "
        "retry.backoff.ms (100 ms).",
        "§6.3",
        MemberState.STABLE,
        upstream=HEARTBEAT_MANAGER,
    )


def _repeated_assignment() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll(), sends=0)
    s.answer(epoch=1, assignment=P01, sends=None)
    s.add(Tick(5_000), sends=1)
    s.answer(epoch=1, assignment=P01, sends=None)
    s.add(Poll(), sends=None)
    return s.case(
        "a_repeated_assignment_is_not_acknowledged_again",
        "Once a target is reconciled the member's assignment is no longer Kafka's "
        "LocalAssignment.NONE, so an answer repeating the same partitions at the same epoch is "
        "nothing new: no reconciliation, no second acknowledgement (the poll after it sends "
        "nothing), the member stays STABLE.",
        "§6.3",
        MemberState.STABLE,
        upstream=MEMBERSHIP_MANAGER,
    )


def _acknowledgement_waits_out_the_backoff() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll(), sends=0)
    s.answer(epoch=1, assignment=(), sends=None)
    s.add(Tick(5_000), sends=1)
    s.add(Tick(10_000), sends=None)
    s.answer(epoch=2, assignment=P01, sends=None)
    s.add(Tick(10_050), sends=None)
    s.add(Tick(10_100), sends=2)
    return s.case(
        "an_acknowledgement_due_with_the_timer_waits_out_the_backoff",
        "An answer that arrives just as the heartbeat timer runs out (sent at 5000, interval "
        "5000, answered at 10000) starts its backoff (retry.backoff.ms, 100 ms); its new "
        "assignment is reconciled at once and the network thread sleeps for "
        "timeToNextHeartbeatMs, which for an expired timer is the backoff left: a tick at 10050 "
        "finds it asleep, the acknowledgement goes at 10100.",
        "§6.3",
        MemberState.STABLE,
        upstream=HEARTBEAT_MANAGER,
    )


def _acknowledgement_wakes_at_the_cap() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll(), sends=0)
    s.answer(epoch=1, interval=20_000, assignment=P01, sends=None)
    s.add(Tick(3_000), sends=None)
    s.add(Tick(5_000), sends=1)
    return s.case(
        "an_acknowledgement_wakes_the_thread_at_its_five_second_cap",
        "With a 20 s heartbeat interval the network thread, asleep after reconciling, still wakes "
        "after at most 5 s (ConsumerNetworkThread's MAX_POLL_TIMEOUT_MS), counted from the "
        "reconciliation: a tick at 3000 finds it asleep and does not move its wake, the "
        "acknowledgement goes at 5000.",
        "§6.3",
        MemberState.STABLE,
        upstream=HEARTBEAT_MANAGER,
    )


def _acknowledgement_wakes_with_the_timer() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll(), sends=0)
    s.answer(epoch=1, assignment=(), sends=None)
    s.add(Tick(5_000), sends=1)
    s.add(Tick(6_000), sends=None)
    s.answer(epoch=2, assignment=P01, sends=None)
    s.add(Tick(9_999), sends=None)
    s.add(Tick(10_000), sends=2)
    return s.case(
        "an_acknowledgement_wakes_with_the_heartbeat_timer",
        "An answer 1 s after its heartbeat (sent at 5000, interval 5000) brings a new assignment: "
        "the thread sleeps for the heartbeat timer's remaining 4 s, less than its 5 s cap, so the "
        "acknowledgement goes when the timer runs out, at 10000, not 5 s after the answer.",
        "§6.3",
        MemberState.STABLE,
        upstream=HEARTBEAT_MANAGER,
    )


def _late_answer_acknowledgement() -> Case:
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll(), sends=0)
    s.answer(epoch=1, assignment=(), sends=None)
    s.add(Tick(5_000), sends=1)
    s.add(Tick(12_000), sends=None)
    s.answer(epoch=2, assignment=P01, sends=None)
    s.add(Tick(12_050), sends=None)
    s.add(Tick(12_100), sends=2)
    return s.case(
        "a_late_answers_acknowledgement_waits_out_its_backoff",
        "An answer 2 s after the heartbeat timer ran out (sent at 5000, due again at 10000, "
        "answered at 12000) brings a new assignment: with the timer expired, the thread sleeps "
        "for the backoff the answer started (100 ms), so a tick at 12050 finds it asleep and the "
        "acknowledgement goes at 12100.",
        "§6.3",
        MemberState.STABLE,
        upstream=HEARTBEAT_MANAGER,
    )


def _in_the_group() -> Script:
    """A member that subscribed to t1, joined at 0 and got epoch 1 with nothing assigned: STABLE."""
    s = Script()
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=())
    return s


HEARTBEAT_MANAGER = ("clients/src/main/java/org/apache/kafka/clients/consumer/internals/"
                     "AbstractHeartbeatRequestManager.java")
MEMBERSHIP_MANAGER = ("clients/src/main/java/org/apache/kafka/clients/consumer/internals/"
                      "ShareMembershipManager.java")
HEARTBEAT_STATE = ("clients/src/main/java/org/apache/kafka/clients/consumer/internals/"
                   "HeartbeatRequestState.java")


def _unchanged_interval() -> Case:
    s = _in_the_group()
    s.add(Tick(5_000), sends=1)
    s.add(Tick(6_000), sends=None)
    s.answer(epoch=1, interval=5_000)
    s.add(Tick(9_999), sends=None)
    s.add(Tick(10_000), sends=1)
    return s.case(
        "unchanged_interval_keeps_the_timer_from_the_send",
        "The heartbeat sent at 5 s is answered at 6 s with the interval it already had: the timer "
        "started at the send keeps running, so the next heartbeat goes at 10 s, not 11 s.",
        "", MemberState.STABLE, upstream=HEARTBEAT_STATE,
    )


def _changed_interval() -> Case:
    s = _in_the_group()
    s.add(Tick(5_000), sends=1)
    s.add(Tick(6_000), sends=None)
    s.answer(epoch=1, interval=3_000)
    s.add(Tick(8_999), sends=None)
    s.add(Tick(9_000), sends=1)
    return s.case(
        "changed_interval_restarts_the_timer_at_the_answer",
        "The heartbeat sent at 5 s is answered at 6 s with a new interval of 3 s: the timer restarts "
        "at the answer, so the next heartbeat goes at 9 s.",
        "", MemberState.STABLE, upstream=HEARTBEAT_STATE,
    )


def _late_answer() -> Case:
    s = _in_the_group()
    s.add(Tick(5_000), sends=1)
    s.add(Tick(12_000), sends=None)
    s.answer(epoch=1, sends=None)
    s.add(Tick(12_099), sends=None)
    s.add(Tick(12_100), sends=1)
    return s.case(
        "late_answer_holds_the_next_heartbeat_for_a_backoff",
        "The heartbeat sent at 5 s is answered at 12 s, after its interval ran out at 10 s: the "
        "next one goes not at once but one retry.backoff.ms after the answer (ShareHeartbeat"
        "RequestManagerTest.testHeartbeatNotSentIfAnotherOneInFlight).",
        "", MemberState.STABLE, upstream=HEARTBEAT_MANAGER,
    )


def _poll_timer_with_a_heartbeat_in_flight() -> Case:
    s = Script(config=ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000))
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=(), interval=4_000)
    s.add(Tick(8_000), sends=1)
    s.add(Tick(10_000), sends=-1)
    s.answer(epoch=1, sends=None)
    s.answer(epoch=-1, interval=0, sends=None)
    s.add(Poll(), sends=0)
    return s.case(
        "poll_timer_leave_goes_while_a_heartbeat_is_in_flight",
        "The poll timer expires while a heartbeat is in flight: the leave goes at once and the "
        "member is STALE. The earlier heartbeat's answer is taken (its interval, nothing else); "
        "the leave's answer is ignored (its interval of 0 is not taken); the next poll rejoins "
        "at once.",
        "§6.4", MemberState.JOINING, upstream=HEARTBEAT_MANAGER,
    )


def _poll_timer_leave_answered_after_the_rejoin() -> Case:
    s = Script(config=ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000))
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=(), interval=4_000)
    s.add(Tick(4_000), sends=1)
    s.answer(epoch=1, interval=4_000, sends=None)
    s.add(Tick(8_000), sends=1)
    s.answer(epoch=1, interval=4_000, sends=None)
    s.add(Tick(12_000), sends=-1)
    s.add(Poll(), sends=0)
    s.answer(epoch=-1, interval=0, sends=None)
    s.answer(epoch=2, assignment=(), interval=4_000, sends=None)
    return s.case(
        "poll_timer_leave_answered_after_the_rejoin",
        "The poll timer's leave is answered only after the member has rejoined: that answer is "
        "ignored (the join stays in flight, nothing is sent again), and the next answer is the "
        "join's, whose empty assignment is then to be acknowledged.",
        "§6.4", MemberState.ACKNOWLEDGING, upstream=HEARTBEAT_MANAGER,
    )


def _poll_timer_without_a_coordinator() -> Case:
    s = Script(config=ShareConsumerConfig(group_id="g", member_id="member", max_poll_interval_ms=10_000,
                                          retry_backoff_ms=5_000))
    s.add(Subscribe(("t1",)))
    s.add(Poll())
    s.answer(epoch=1, assignment=(), interval=4_000)
    s.add(Tick(8_000), sends=1)
    s.answer(Errors.NOT_COORDINATOR, sends=None)
    s.add(Tick(10_000), sends=None)
    s.add(Tick(13_000), sends=-1)
    return s.case(
        "poll_timer_waits_for_the_coordinator",
        "The poll timer expires at 10 s while the coordinator is unknown: nothing happens until "
        "it is found again (13 s), when the member sends its leave and becomes STALE.",
        "§6.4", MemberState.STALE, upstream=HEARTBEAT_MANAGER,
    )


def _leave_without_a_coordinator() -> Case:
    s = _in_the_group()
    s.add(Tick(5_000), sends=1)
    s.answer(Errors.NOT_COORDINATOR, sends=None)
    s.add(Unsubscribe(), sends=None)
    return s.case(
        "leave_without_a_coordinator_completes_at_once",
        "Unsubscribing while the coordinator is unknown: the leave cannot be sent, and the member "
        "is UNSUBSCRIBED at once.",
        "§6.2", MemberState.UNSUBSCRIBED,
    )


def _transport_failure_in_the_group() -> Case:
    s = _in_the_group()
    s.add(Tick(5_000), sends=1)
    s.add(HeartbeatFailed(retriable=True), sends=None)
    s.add(Tick(5_050), sends=None)
    return s.case(
        "transport_failure_drops_the_coordinator_until_the_backoff",
        "A retriable transport failure in the group: the coordinator is unknown (the view says "
        "so) and nothing is sent within retry.backoff.ms.",
        "§6.3", MemberState.STABLE,
    )


def all_cases() -> list[Case]:
    builders: list[Callable[[], Case]] = [
        _join,
        _reconcile,
        _fenced,
        _fatal,
        _fatal_releases_the_assignment,
        _coordinator_moved,
        _failures,
        _leave,
        _stale,
        _subscribed_only,
        _poll_timer_counts_from_the_last_poll,
        _stale_until_polled,
        _unknown_server_error_is_fatal,
        _rediscovery_waits_for_the_backoff,
        _late_leave_answer,
        _subscription_changes,
        _late_tick_expires_the_poll_timer,
        _late_rediscovery,
        _emptied_assignment,
        _load_in_progress_backs_off,
        _unchanged_interval,
        _changed_interval,
        _late_answer,
        _poll_timer_with_a_heartbeat_in_flight,
        _poll_timer_leave_answered_after_the_rejoin,
        _poll_timer_without_a_coordinator,
        _leave_without_a_coordinator,
        _transport_failure_in_the_group,
        _repeated_assignment,
        _acknowledgement_waits_out_the_backoff,
        _acknowledgement_wakes_at_the_cap,
        _acknowledgement_wakes_with_the_timer,
        _late_answer_acknowledgement,
    ]
    return [build() for build in builders]


def vector_input(case: Case) -> dict[str, object]:
    from groupspec.conformance.share_consumer_json import RunInput, run_input_to_json

    return run_input_to_json(RunInput(config=case.config, events=case.events))


def share_consumer_vector_docs() -> Iterator[dict[str, object]]:
    """One vector per case; ``expected`` is what the spec answers for the input as written."""
    from groupspec.conformance.run_form import spec_run_vectors
    from groupspec.conformance.share_consumer import PROPERTIES as SHARE_CONSUMER_PROPERTIES

    return spec_run_vectors(MACHINE, HANDLER, all_cases(), vector_input, SHARE_CONSUMER_PROPERTIES)

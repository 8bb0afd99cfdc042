"""Conformance cases of the share consumer's delivery path (machine ``share_delivery``, handler ``run``).

Each case feeds one consumer the application's calls (poll, acknowledge, commit, close), its
assignment, and the answers a broker gave, and records what each step returned, sent and called
back. The spec writes the expectations; ``shows`` holds claims about the spec's answer that
tests/scenarios/share_delivery/test_share_delivery_claims.py checks. Sources: Kafka 4.2.1's client
(the file and method named in each case) and seed 000's account of the share consumer's poll.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

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
    FetchAnswered,
    FetchPartition,
    Partition,
    Poll,
    RequestFailed,
)

MACHINE = "share_delivery"
HANDLER = "run"
INTERNALS = "clients/src/main/java/org/apache/kafka/clients/consumer/internals/"
IMPL = INTERNALS + "ShareConsumerImpl.java"
MANAGER = INTERNALS + "ShareConsumeRequestManager.java"
SESSION = INTERNALS + "ShareSessionHandler.java"
ACKS = INTERNALS + "Acknowledgements.java"
P0, P1 = Partition("t", 0), Partition("t", 1)
IMPLICIT = DeliveryConfig(AcknowledgementMode.IMPLICIT)
EXPLICIT = DeliveryConfig(AcknowledgementMode.EXPLICIT)
A, R, J, N = AcknowledgeType.ACCEPT, AcknowledgeType.RELEASE, AcknowledgeType.REJECT, AcknowledgeType.RENEW


@dataclass(frozen=True)
class Shows:
    """Event ``event``'s output: ``field`` (``error``, ``sent``, ``records``, ``callbacks``,
    ``committed``) is empty (``present=False``) or not."""

    event: int
    field: str
    present: bool = True


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    source: Mapping[str, str]
    events: tuple[DeliveryEvent, ...]
    config: DeliveryConfig = IMPLICIT
    shows: tuple[Shows, ...] = ()


@dataclass
class Script:
    config: DeliveryConfig = IMPLICIT
    events: list[DeliveryEvent] = field(default_factory=list)
    shows: list[Shows] = field(default_factory=list)

    def add(self, event: DeliveryEvent, *fields: str, absent: tuple[str, ...] = ()) -> int:
        self.events.append(event)
        k = len(self.events) - 1
        self.shows.extend(Shows(k, f) for f in fields)
        self.shows.extend(Shows(k, f, present=False) for f in absent)
        return k

    def records(self, *ranges: tuple[Partition, int, int, int], ack_error: Errors = Errors.NONE,
                acked: tuple[Partition, ...] = ()) -> int:
        """A ShareFetch answer acquiring ``(partition, first, last, delivery count)`` ranges."""
        parts: dict[Partition, list[AcquiredRecords]] = {}
        for p, first, last, count in ranges:
            parts.setdefault(p, []).append(AcquiredRecords(first, last, count))
        for p in acked:
            parts.setdefault(p, [])
        return self.add(FetchAnswered(partitions=tuple(
            FetchPartition(p.topic, p.partition, tuple(acq), ack_error if p in acked else Errors.NONE)
            for p, acq in parts.items())))

    def case(self, name: str, description: str, file: str, method: str) -> Case:
        return Case(name, description, {"kind": "upstream", "file": file, "method": method},
                    tuple(self.events), self.config, tuple(self.shows))


def _delivered(config: DeliveryConfig = IMPLICIT, last: int = 2, count: int = 1) -> Script:
    """Assigned t-0, polled (ShareFetch at epoch 0), answered with offsets 0..last, polled again:
    the records are the application's."""
    s = Script(config)
    s.add(Assign((P0,)))
    s.add(Poll(), "sent", absent=("records",))
    s.records((P0, 0, last, count))
    s.add(Poll(), "records", absent=("sent",))
    return s


def _poll_fetches_then_returns() -> Case:
    s = _delivered(count=3)
    return s.case(
        "poll_fetches_then_returns_buffered_records",
        "A poll with nothing buffered asks for a ShareFetch (epoch 0 opens the share session and adds "
        "the assigned partitions) and returns nothing; the answer's acquired records wait in the "
        "buffer and the next poll returns them with their delivery counts.",
        IMPL, "poll / pollForFetches / collect")


def _implicit_accepts_on_next_poll() -> Case:
    s = _delivered()
    s.add(Poll(), "sent", absent=("records",))
    s.records(acked=(P0,))
    s.add(Poll(), "callbacks")
    return s.case(
        "implicit_next_poll_accepts_and_piggybacks",
        "Implicit mode: the next poll marks every record of the last batch ACCEPT; with nothing "
        "buffered the acknowledgements ride on the ShareFetch (epoch 1, one batch 0-2 of type 1). "
        "The answer carries their outcome; an answer without records makes the consumer fetch again "
        "at once (epoch 2); the callback runs at the application's next poll.",
        IMPL, "acknowledgeBatchIfImplicitAcknowledgement")


def _implicit_commit_sync() -> Case:
    s = _delivered()
    s.add(CommitSync(), "sent", absent=("committed",))
    s.add(AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 0),)), "committed", "callbacks")
    return s.case(
        "implicit_commit_sync_accepts_and_blocks",
        "Implicit mode: commitSync marks the last batch ACCEPT and sends it alone by ShareAcknowledge "
        "(COMMIT_SYNC, epoch 1); it blocks until the answer, then returns the partition's outcome and "
        "runs the callback.",
        IMPL, "commitSync")


def _commit_async_callback_waits() -> Case:
    s = _delivered()
    s.add(CommitAsync(), "sent")
    s.add(AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 0),)), absent=("callbacks",))
    s.add(Poll(), "callbacks", "sent")
    return s.case(
        "commit_async_callback_waits_for_the_application",
        "commitAsync sends the marks by ShareAcknowledge (COMMIT_ASYNC) and returns; the answer's "
        "outcome waits for the application thread and the callback runs in the next poll, which "
        "then fetches (nothing is left to ride).",
        IMPL, "commitAsync / handleCompletedAcknowledgements")


def _empty_commit_sync() -> Case:
    s = Script()
    s.add(Assign((P0,)))
    s.add(CommitSync(), "committed", absent=("sent",))
    return s.case(
        "commit_sync_with_nothing_returns_at_once",
        "commitSync with nothing acknowledged returns an empty map at once and sends nothing.",
        IMPL, "commitSync")


def _implicit_acknowledge_refused() -> Case:
    s = _delivered()
    s.add(Acknowledge("t", 0, 0, A), "error")
    return s.case(
        "implicit_mode_refuses_acknowledge",
        "acknowledge() in implicit mode throws IllegalStateException (ensureExplicitAcknowledgement).",
        IMPL, "acknowledge / ensureExplicitAcknowledgement")


def _explicit_poll_refuses() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(Acknowledge("t", 0, 1, A))
    s.add(Poll(), "error", absent=("sent",))
    s.add(Acknowledge("t", 0, 2, R))
    s.add(Poll(), "sent")
    return s.case(
        "explicit_poll_refuses_unacknowledged",
        "Explicit mode: a poll while a record of the last batch is unacknowledged throws "
        "IllegalStateException and changes nothing; once all are acknowledged it sends them on the "
        "ShareFetch, one type per offset (1, 1, 2) as they differ.",
        IMPL, "ensureInFlightAcknowledgedIfExplicitAcknowledgement")


def _explicit_unknown_record() -> Case:
    s = Script(EXPLICIT)
    s.add(Assign((P1,)))
    s.add(Poll(), "sent", absent=("records",))
    s.records((P1, 3, 5, 1))
    s.add(Poll(), "records", absent=("sent",))
    for topic, partition, offset in (("t", 1, 7), ("t", 1, 2), ("t", 0, 3), ("t", 2, 3), ("s", 1, 3)):
        s.add(Acknowledge(topic, partition, offset, A), "error")
    return s.case(
        "explicit_acknowledge_of_an_unknown_record_refused",
        "Acknowledging a record the last poll did not return (an offset above or below the held "
        "ones, or a partition or topic ordered before or after theirs) throws IllegalStateException.",
        INTERNALS + "ShareInFlightBatch.java", "acknowledge")


def _explicit_later_mark_replaces() -> Case:
    s = _delivered(EXPLICIT, last=0)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(Acknowledge("t", 0, 0, J))
    s.add(CommitAsync(), "sent")
    s.add(Acknowledge("t", 0, 0, A), "error")
    return s.case(
        "explicit_later_acknowledgement_replaces_the_earlier",
        "Acknowledging a record twice before it is sent keeps the later type (REJECT, 3): "
        "Acknowledgements.add is a map put. Once sent, the record is no longer held and a further "
        "acknowledge throws.",
        ACKS, "add")


def _explicit_commit_takes_acknowledged_only() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 1, J))
    s.add(CommitSync(), "sent")
    s.add(AcknowledgeAnswered(Errors.UNKNOWN_SERVER_ERROR), "committed", "callbacks")
    s.add(Poll(), "error")
    s.add(Acknowledge("t", 0, 0, A))
    s.add(Acknowledge("t", 0, 2, A))
    s.add(CommitSync(), "sent")
    s.add(AcknowledgeAnswered(Errors.GROUP_AUTHORIZATION_FAILED), "committed", "callbacks")
    return s.case(
        "explicit_commit_sends_only_acknowledged_records",
        "Explicit mode: commitSync sends only the records acknowledged (offset 1); the others stay "
        "held, so the next poll still refuses. The answer's top-level error, whatever its code's "
        "sign (UNKNOWN_SERVER_ERROR, then GROUP_AUTHORIZATION_FAILED for offsets 0 and 2), is every "
        "partition's outcome.",
        INTERNALS + "ShareInFlightBatch.java", "takeAcknowledgedRecords")


def _partition_answered_twice() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(Acknowledge("t", 0, 1, R))
    s.add(CommitSync(), "sent")
    s.add(AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 0),
                                          AcknowledgePartition("t", 0, Errors.INVALID_RECORD_STATE))),
          "committed", "callbacks")
    return s.case(
        "acknowledge_answer_naming_a_partition_twice",
        "A ShareAcknowledge answer that names t-0 twice (no error, then INVALID_RECORD_STATE): the "
        "first entry completes the partition's acknowledgements, so commitSync returns no error "
        "for t-0; the second finds nothing in flight for t-0 and changes nothing (Kafka logs it).",
        MANAGER, "AcknowledgeRequestState#handleAcknowledgeErrorCode")


def _buffered_acks_go_alone() -> Case:
    s = Script(DeliveryConfig(AcknowledgementMode.IMPLICIT, max_poll_records=2))
    s.add(Assign((P0,)))
    s.add(Poll(), "sent")
    s.records((P0, 0, 3, 1))
    s.add(Poll(), "records")
    s.add(Poll(), "records", "sent")
    return s.case(
        "buffered_records_send_acknowledgements_alone",
        "With max.poll.records 2 the buffer still holds records at the next poll: the poll returns "
        "them at once and the implicit ACCEPTs of the last batch go alone by ShareAcknowledge "
        "(COMMIT_ASYNC), not on a fetch: acknowledgements ride on a ShareFetch only when the poll "
        "has to fetch.",
        IMPL, "collect")


def _implicit_close_does_not_accept() -> Case:
    s = _delivered()
    s.add(Close(), "sent")
    s.add(AcknowledgeAnswered())
    s.add(Poll(), "error")
    return s.case(
        "implicit_close_does_not_accept_the_last_batch",
        "close() sends a ShareAcknowledge at session epoch -1 (CLOSE) with what was acknowledged: "
        "in implicit mode the last batch is not ACCEPTed first (close takes the acknowledged records "
        "only), so the request carries no acknowledgements. After the answer a poll throws: closed.",
        IMPL, "close / sendAcknowledgementsAndLeaveGroup")


def _explicit_close_sends_acknowledged() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(Acknowledge("t", 0, 1, R))
    s.add(Close(), "sent")
    s.add(AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 0, Errors.INVALID_RECORD_STATE),)),
          "callbacks")
    return s.case(
        "explicit_close_sends_acknowledged_at_final_epoch",
        "Explicit mode: close sends the acknowledged records (0 ACCEPT, 1 RELEASE) at epoch -1 and "
        "blocks; the answer's partition error reaches the callback before close returns.",
        MANAGER, "acknowledgeOnClose")


def _close_without_session() -> Case:
    s = Script()
    s.add(Assign((P0,)))
    s.add(Close(), absent=("sent",))
    s.add(CommitSync(), "error")
    s.add(Close(), absent=("error",))
    return s.case(
        "close_without_a_share_session_closes_at_once",
        "A consumer that never fetched has no share session: close sends nothing and returns; every "
        "later call throws IllegalStateException but a second close, which does nothing.",
        IMPL, "close / acquireAndEnsureOpen")


def _close_waits_for_fetch() -> Case:
    s = _delivered(EXPLICIT)
    for offset in range(3):
        s.add(Acknowledge("t", 0, offset, A))
    s.add(Poll(), "sent")
    s.add(Close(), absent=("sent",))
    s.add(Poll(), absent=("error", "sent"))
    s.records(acked=(P0,))
    s.add(AcknowledgeAnswered(), absent=("sent",))
    return s.case(
        "close_waits_for_the_fetch_in_flight",
        "close() while a ShareFetch is in flight: one request at a time to a broker, so the closing "
        "ShareAcknowledge (empty, epoch -1) goes when the fetch is answered; meanwhile the "
        "application is blocked in close (a poll event does nothing). A closing consumer fetches "
        "no more, though the last answer acquired nothing.",
        MANAGER, "processAcknowledgements / isNodeFree")


def _acks_fail_on_new_session() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(CommitAsync(), "sent")
    s.add(RequestFailed())
    s.add(Acknowledge("t", 0, 1, A))
    s.add(Acknowledge("t", 0, 2, R))
    s.add(Poll(), "callbacks", "sent")
    s.add(Poll(), "callbacks")
    s.records((P0, 3, 4, 1))
    s.add(Poll(), "records")
    s.add(Acknowledge("t", 0, 3, A))
    s.add(CommitAsync(), "sent")
    s.add(RequestFailed())
    s.add(Assign(()))
    s.add(Acknowledge("t", 0, 4, A), absent=("error",))
    s.add(Poll(), "callbacks", absent=("sent",))
    s.add(Poll(), "callbacks", absent=("sent",))
    return s.case(
        "acknowledgements_cannot_ride_on_a_new_session",
        "A failed request sets the share session back to epoch 0 (a ShareAcknowledge's "
        "acknowledgements fail with UNKNOWN_SERVER_ERROR, the code Kafka's client derives from the "
        "disconnect). The next ShareFetch opens a new session and cannot carry "
        "acknowledgements: they fail with INVALID_SHARE_SESSION_EPOCH without being sent. So do "
        "those of a partition revoked meanwhile, and with nothing assigned no ShareFetch goes.",
        MANAGER, "maybeAddAcknowledgements")


def _commit_at_epoch_zero() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(CommitAsync(), "sent")
    s.add(RequestFailed())
    s.add(Acknowledge("t", 0, 1, A))
    s.add(CommitSync(), "committed", "callbacks", absent=("sent",))
    return s.case(
        "commit_at_epoch_zero_fails_unsent",
        "A ShareAcknowledge cannot open a share session: after a failure (epoch 0) commitSync's "
        "acknowledgements fail with SHARE_SESSION_NOT_FOUND unsent, and it returns at once.",
        SESSION, "newShareAcknowledgeBuilder")


def _fetch_error() -> Case:
    s = _delivered()
    s.add(Poll(), "sent")
    s.add(FetchAnswered(Errors.GROUP_AUTHORIZATION_FAILED), "sent")
    s.add(Poll(), "callbacks")
    s.records((P0, 3, 3, 1))
    s.add(Poll(), "records")
    s.add(Poll(), "sent")
    s.add(FetchAnswered(Errors.UNKNOWN_SERVER_ERROR), "sent")
    s.add(Poll(), "callbacks")
    return s.case(
        "fetch_error_fails_the_acknowledgements_it_carried",
        "A ShareFetch answered with a top-level error completes the acknowledgements it carried "
        "with that error, whatever its code's sign (GROUP_AUTHORIZATION_FAILED, then "
        "UNKNOWN_SERVER_ERROR for offset 3); the session epoch still moves on (an error that is not "
        "a session error), and the consumer fetches again.",
        MANAGER, "handleShareFetchSuccess")


def _session_error() -> Case:
    s = _delivered()
    s.add(Poll(), "sent")
    s.add(FetchAnswered(Errors.SHARE_SESSION_NOT_FOUND), "sent")
    s.add(Poll(), "callbacks")
    return s.case(
        "session_error_opens_a_new_session",
        "A ShareFetch answered SHARE_SESSION_NOT_FOUND fails its acknowledgements with that error "
        "and the next ShareFetch opens a new session: epoch 0, every partition added again.",
        SESSION, "handleResponse")


def _missing_partition() -> Case:
    s = Script()
    s.add(Assign((P0, P1)))
    s.add(Poll(), "sent")
    s.records((P0, 0, 1, 1), (P1, 5, 5, 2))
    s.add(Poll(), "records")
    s.add(CommitSync(), "sent")
    s.add(AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 1, Errors.NOT_LEADER_OR_FOLLOWER),
                                          AcknowledgePartition("t", 2))),
          "committed", "callbacks")
    return s.case(
        "acknowledge_answer_without_a_partition_is_invalid_record_state",
        "A ShareAcknowledge answer that does not name a partition it carried completes that "
        "partition with INVALID_RECORD_STATE; a named partition gets its own error; a partition it "
        "did not carry is not reported.",
        MANAGER, "processingComplete / handlePartitionError")


def _unassigned_partition_rides_alone() -> Case:
    s = Script()
    s.add(Assign((P0, P1)))
    s.add(Poll(), "sent")
    s.records((P0, 0, 0, 1), (P1, 0, 0, 1))
    s.add(Poll(), "records")
    s.add(Assign((P0,)))
    s.add(Poll(), "sent")
    return s.case(
        "unassigned_partition_acknowledgements_ride_alone",
        "After t-1 is revoked its ACCEPT still rides on the next ShareFetch, as an acknowledgement-only "
        "partition, while the fetch forgets t-1 from the share session.",
        MANAGER, "poll (addPartitionToAcknowledgeOnly)")


def _acknowledged_partition_not_forgotten_yet() -> Case:
    s = Script()
    s.add(Assign((P0, P1)))
    s.add(Poll(), "sent")
    s.records((P1, 0, 1, 1))
    s.add(Poll(), "records")
    s.add(Assign((P0,)))
    s.add(CommitSync(), "sent")
    s.add(AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 1),)), "committed")
    s.add(Poll(), "sent")
    s.add(FetchAnswered(), "sent")
    return s.case(
        "acknowledged_partition_is_forgotten_one_fetch_late",
        "A ShareAcknowledge adds its partitions to the session handler's next partitions and leaves "
        "them there: after a commit for revoked t-1, the next ShareFetch does not forget t-1; the "
        "one after does.",
        SESSION, "newShareAcknowledgeBuilder / newShareFetchBuilder")


def _failure_resets_session() -> Case:
    s = Script()
    s.add(Assign((P0,)))
    s.add(Poll(), "sent")
    s.add(FetchAnswered(), "sent")
    s.add(Assign((P1,)), absent=("sent",))
    s.add(RequestFailed(), "sent")
    return s.case(
        "failed_fetch_reopens_the_session_with_every_partition",
        "An answer without records makes the consumer fetch again at once (epoch 1); t-0 is revoked "
        "for t-1 meanwhile. The fetch fails: the session is back at epoch 0, and the new session's "
        "ShareFetch, sent at once, adds every partition the old one held as well as the assigned "
        "(t-0 and t-1).",
        SESSION, "handleError / newShareFetchBuilder")


def _fetch_answer_without_a_partition() -> Case:
    s = _delivered()
    s.add(Poll(), "sent")
    s.add(FetchAnswered(), "sent")
    s.add(Poll(), "callbacks")
    return s.case(
        "fetch_answer_without_a_partition_is_invalid_record_state",
        "A ShareFetch answer that does not name a partition whose acknowledgements rode on it "
        "completes them with INVALID_RECORD_STATE.",
        MANAGER, "handleShareFetchSuccess")


def _unsent_commit_then_close() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(CommitAsync(), "sent")
    s.add(Acknowledge("t", 0, 1, R))
    s.add(CommitAsync(), absent=("sent",))
    s.add(Acknowledge("t", 0, 2, J))
    s.add(Close(), absent=("sent",))
    s.add(RequestFailed(), "sent")
    s.add(AcknowledgeAnswered(partitions=(AcknowledgePartition("t", 0),)), "callbacks")
    return s.case(
        "unsent_commit_async_then_the_close_in_one_pass",
        "A commitAsync waits while another is in flight, and a close waits behind it. The request in "
        "flight fails: the session is back at epoch 0, the waiting commitAsync fails unsent "
        "(SHARE_SESSION_NOT_FOUND), and the close goes at once at epoch -1 with the last "
        "acknowledgement (Kafka's network thread takes a second pass for it before the next "
        "event); its answer runs every callback: the failed one with UNKNOWN_SERVER_ERROR.",
        MANAGER, "processAcknowledgements")


def _batch_runs() -> Case:
    types = [R, J] + [A] * 11 + [R] * 11 + [A, J, J] + [A] * 10 + [R] + [J] * 12
    s = _delivered(EXPLICIT, last=len(types) - 1)
    for offset, type_ in enumerate(types):
        s.add(Acknowledge("t", 0, offset, type_))
    s.add(CommitAsync(), "sent")
    return s.case(
        "runs_of_one_type_cut_one_range_into_batches",
        "One contiguous range 0-49: the runs of eleven ACCEPT (2-12), eleven RELEASE right after "
        "them (13-23) and twelve REJECT at the end (38-49) are batches of their own, each carrying "
        "its type once; the rest between them is a batch each: 0-1, and 24-37 (ACCEPT, REJECT, "
        "REJECT, a run of only ten ACCEPT, one RELEASE), one type per offset.",
        ACKS, "maybeOptimiseAcknowledgeTypes")


def _revoked_everything() -> Case:
    s = _delivered()
    s.add(Assign(()))
    s.add(Poll(), "sent")
    s.add(FetchAnswered(partitions=(FetchPartition("t", 0),)), absent=("sent",))
    s.add(Poll(), "callbacks", absent=("sent",))
    return s.case(
        "nothing_assigned_acknowledgements_ride_then_fetching_stops",
        "With every partition revoked, the next poll's ACCEPTs still ride alone on a ShareFetch that "
        "forgets t-0; after its answer nothing is assigned and nothing waits to ride, so no request "
        "goes even though more records are wanted.",
        MANAGER, "poll (handlerMap)")


def _failed_fetch_with_acknowledgements() -> Case:
    s = _delivered()
    s.add(Poll(), "sent")
    s.add(RequestFailed(), "sent")
    s.add(Poll(), "callbacks")
    return s.case(
        "failed_fetch_fails_the_acknowledgements_it_carried",
        "A ShareFetch carrying acknowledgements gets no response: they fail with NETWORK_EXCEPTION "
        "(reported at the next poll), and the next ShareFetch opens a new session at once.",
        MANAGER, "handleShareFetchFailure")


def _failed_commit_sync() -> Case:
    s = _delivered()
    s.add(CommitSync(), "sent", absent=("committed",))
    s.add(RequestFailed(), "committed", "callbacks")
    s.add(Poll(), "sent")
    return s.case(
        "failed_commit_sync_is_unknown_server_error",
        "A commitSync whose ShareAcknowledge gets no response returns, and calls back, "
        "UNKNOWN_SERVER_ERROR: Kafka's client completes a failed ShareAcknowledge with the code "
        "Errors.forException gives the disconnect, which has none of its own (a failed ShareFetch "
        "reports the disconnect itself, NETWORK_EXCEPTION). The session is back at epoch 0.",
        MANAGER, "handleShareAcknowledgeFailure")


def _long_run_batch() -> Case:
    s = _delivered(EXPLICIT, last=22)
    types = [A] * 11 + [R] + [J] * 10 + [A]
    for offset, type_ in enumerate(types):
        s.add(Acknowledge("t", 0, offset, type_))
    s.add(CommitAsync(), "sent")
    return s.case(
        "long_run_of_one_type_is_a_batch_of_its_own",
        "Acknowledgement batches: more than ten consecutive records of one type (0-10 ACCEPT) are "
        "cut out into a batch carrying the type once; a run of ten (12-21 REJECT) is not, so 11-22 "
        "is one batch with one type per offset.",
        ACKS, "getAcknowledgementBatches")


def _rejected_and_released_counts() -> Case:
    s = Script(EXPLICIT)
    s.add(Assign((P0,)))
    s.add(Poll(), "sent")
    s.records((P0, 0, 1, 1), (P0, 4, 4, 5))
    s.add(Poll(), "records")
    s.add(Acknowledge("t", 0, 0, J))
    s.add(Acknowledge("t", 0, 1, R))
    s.add(Acknowledge("t", 0, 4, A))
    s.add(Poll(), "sent")
    return s.case(
        "separate_ranges_make_separate_batches",
        "Acquired ranges keep their delivery counts (offset 4 is on its fifth delivery); "
        "acknowledgements of non-contiguous offsets go as separate batches (0-1 REJECT, RELEASE; "
        "4 ACCEPT).",
        ACKS, "getAcknowledgementBatches")


def _renew_returns_the_record() -> Case:
    s = _delivered(EXPLICIT)
    s.add(Acknowledge("t", 0, 0, A))
    s.add(Acknowledge("t", 0, 1, N))
    s.add(Acknowledge("t", 0, 2, A))
    s.add(Poll(), "sent", absent=("records", "error"))
    s.records(acked=(P0,))
    s.shows.append(Shows(len(s.events) - 1, "sent"))
    s.add(Poll(), "records", "callbacks", absent=("sent",))
    s.add(Acknowledge("t", 0, 1, A), absent=("error",))
    s.add(Poll(), absent=("error", "records"))
    return s.case(
        "renew_returns_the_record_at_a_later_poll",
        "Explicit mode: a record acknowledged RENEW (type 4) leaves the batch with the others and "
        "rides on the poll's ShareFetch (which asks for no records, so another ShareFetch follows "
        "its answer). Once the answer is handled at the next poll, the renewed record is returned "
        "again and must be acknowledged again.",
        INTERNALS + "ShareInFlightBatch.java", "renew")


def _renew_failed_drops_the_record() -> Case:
    s = _delivered(EXPLICIT, last=0)
    s.add(Acknowledge("t", 0, 0, N))
    s.add(Poll(), "sent", absent=("records",))
    s.records(acked=(P0,), ack_error=Errors.INVALID_RECORD_STATE)
    s.add(Poll(), "callbacks", absent=("records", "error"))
    return s.case(
        "failed_renew_drops_the_record",
        "A RENEW whose acknowledgement fails (INVALID_RECORD_STATE) is not renewed: the callback "
        "hears the error and the record is never returned again by this consumer.",
        INTERNALS + "ShareInFlightBatch.java", "renew")


def _renew_failed_with_a_negative_code_drops_the_record() -> Case:
    s = _delivered(EXPLICIT, last=0)
    s.add(Acknowledge("t", 0, 0, N))
    s.add(Poll(), "sent", absent=("records",))
    s.records(acked=(P0,), ack_error=Errors.UNKNOWN_SERVER_ERROR)
    s.add(Poll(), "callbacks", absent=("records", "error"))
    return s.case(
        "renew_failed_with_unknown_server_error_drops_the_record",
        "Only NONE renews: a RENEW answered UNKNOWN_SERVER_ERROR (code -1, below NONE's 0) is "
        "dropped like any other failure, never returned again by this consumer.",
        INTERNALS + "ShareInFlightBatch.java", "renew")


def _renew_holds_back_the_buffer() -> Case:
    s = _delivered(DeliveryConfig(AcknowledgementMode.EXPLICIT, max_poll_records=1), last=1)
    s.add(Acknowledge("t", 0, 0, N))
    s.add(Poll(), "sent", absent=("records",))
    s.records(acked=(P0,))
    s.add(Poll(), "records", absent=("error",))
    s.add(Acknowledge("t", 0, 0, A))
    s.add(Poll(), "records", absent=("error",))
    return s.case(
        "renew_pending_holds_back_the_buffer",
        "While a record is renewing, a poll takes nothing from the fetch buffer (offset 1 waits): "
        "it returns nothing until the renewal is handled, then the renewed offset 0, and only after "
        "that is acknowledged the buffered offset 1.",
        IMPL, "collect")


def all_cases() -> list[Case]:
    builders: list[Callable[[], Case]] = [
        _poll_fetches_then_returns,
        _implicit_accepts_on_next_poll,
        _implicit_commit_sync,
        _commit_async_callback_waits,
        _empty_commit_sync,
        _implicit_acknowledge_refused,
        _explicit_poll_refuses,
        _explicit_unknown_record,
        _explicit_later_mark_replaces,
        _explicit_commit_takes_acknowledged_only,
        _partition_answered_twice,
        _buffered_acks_go_alone,
        _implicit_close_does_not_accept,
        _explicit_close_sends_acknowledged,
        _close_without_session,
        _close_waits_for_fetch,
        _acks_fail_on_new_session,
        _commit_at_epoch_zero,
        _fetch_error,
        _session_error,
        _missing_partition,
        _unassigned_partition_rides_alone,
        _acknowledged_partition_not_forgotten_yet,
        _failure_resets_session,
        _fetch_answer_without_a_partition,
        _unsent_commit_then_close,
        _batch_runs,
        _revoked_everything,
        _failed_fetch_with_acknowledgements,
        _failed_commit_sync,
        _long_run_batch,
        _rejected_and_released_counts,
        _renew_returns_the_record,
        _renew_failed_drops_the_record,
        _renew_failed_with_a_negative_code_drops_the_record,
        _renew_holds_back_the_buffer,
    ]
    return [build() for build in builders]


def vector_input(case: Case) -> dict[str, object]:
    from groupspec.conformance.share_delivery_json import RunInput, run_input_to_json

    return run_input_to_json(RunInput(config=case.config, events=case.events))


def share_delivery_vector_docs() -> Iterator[dict[str, object]]:
    """One vector per case; ``expected`` is what the spec answers for the input as written."""
    from groupspec.conformance.run_form import spec_run_vectors
    from groupspec.conformance.share_delivery import PROPERTIES as SHARE_DELIVERY_PROPERTIES

    return spec_run_vectors(MACHINE, HANDLER, all_cases(), vector_input, SHARE_DELIVERY_PROPERTIES)

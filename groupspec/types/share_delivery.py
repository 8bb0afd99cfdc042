"""The share consumer's delivery path, as the client sees it (KafkaShareConsumer's
``ShareConsumerImpl``, ``ShareConsumeRequestManager``, ``ShareFetch``/``ShareInFlightBatch``,
``ShareSessionHandler`` and ``Acknowledgements``; seed 000, the share consumer's poll).

One share consumer whose assignment is given (membership is machine ``share_consumer``'s job):
the application polls, acknowledges and commits; the consumer sends ShareFetch requests (with
acknowledgements riding on them) and ShareAcknowledge requests to the one broker that leads every
assigned partition, and reports each acknowledgement's outcome to the acknowledgement commit
callback. The spec (``groupspec.spec.share_delivery``) and the implementation take the same events.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from groupspec.types.errors import Errors


class AcknowledgementMode(Enum):
    """``share.acknowledgement.mode``."""

    IMPLICIT = "implicit"
    EXPLICIT = "explicit"


class AcknowledgeType(Enum):
    """``AcknowledgeType``; the value is the wire id (0 is a gap, which this model never has).
    RENEW (Kafka 4.2.1, explicit mode) keeps the record: a later poll returns it again
    (docs/machines/share_delivery.md, "RENEW")."""

    ACCEPT = 1
    RELEASE = 2
    REJECT = 3
    RENEW = 4


class Phase(Enum):
    """Where the application thread is: free to call, blocked in commitSync or close, closed."""

    OPEN = "OPEN"
    BLOCKED = "BLOCKED"
    CLOSED = "CLOSED"


#: The phases each phase may be entered from: a commitSync or close blocks, its answer (or
#: failure, or an unsent failure at epoch 0) frees or closes; a close without a share session
#: closes at once.
PHASE_PREDECESSORS: dict[Phase, frozenset[Phase]] = {
    Phase.OPEN: frozenset({Phase.BLOCKED}),
    Phase.BLOCKED: frozenset({Phase.OPEN}),
    Phase.CLOSED: frozenset({Phase.OPEN, Phase.BLOCKED}),
}


class Request(Enum):
    """What is in flight to the broker: a ShareFetch, or a ShareAcknowledge of one of Kafka's
    three ``AcknowledgeRequestType`` s."""

    SHARE_FETCH = "SHARE_FETCH"
    COMMIT_ASYNC = "COMMIT_ASYNC"
    COMMIT_SYNC = "COMMIT_SYNC"
    CLOSE = "CLOSE"


#: Top-level ShareAcknowledge errors the model takes: the ones Kafka does not retry
#: (``ShareConsumeRequestManager.handleShareAcknowledgeSuccess`` retries a retriable one).
FINAL_ACKNOWLEDGE_ERRORS = frozenset({
    Errors.NONE, Errors.INVALID_RECORD_STATE, Errors.INVALID_REQUEST, Errors.GROUP_AUTHORIZATION_FAILED,
    Errors.TOPIC_AUTHORIZATION_FAILED, Errors.UNKNOWN_SERVER_ERROR,
})
#: Partition-level ShareAcknowledge errors the model takes: the final ones, and the leadership
#: and unknown-partition errors Kafka fails at once (``handlePartitionError``).
FINAL_PARTITION_ERRORS = FINAL_ACKNOWLEDGE_ERRORS | {
    Errors.NOT_LEADER_OR_FOLLOWER, Errors.FENCED_LEADER_EPOCH, Errors.UNKNOWN_TOPIC_OR_PARTITION,
}
#: Errors after which the client opens a new share session (epoch 0): ``ShareSessionHandler.handleResponse``.
SESSION_ERRORS = frozenset({Errors.SHARE_SESSION_NOT_FOUND, Errors.INVALID_SHARE_SESSION_EPOCH,
                            Errors.SHARE_SESSION_LIMIT_REACHED})


@dataclass(frozen=True)
class DeliveryConfig:
    mode: AcknowledgementMode = AcknowledgementMode.IMPLICIT
    #: ``max.poll.records``: the most records one poll returns.
    max_poll_records: int = 500


@dataclass(frozen=True, order=True)
class Partition:
    topic: str
    partition: int


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Assign:
    """The partitions the consumer now owns (as the membership reconciled them)."""

    partitions: tuple[Partition, ...]


@dataclass(frozen=True)
class Poll:
    """``poll(timeout)``: returns buffered records at once; with none buffered it asks the
    network thread for more and its timeout passes before any answer (records that arrive later
    wait in the buffer for the next poll)."""


@dataclass(frozen=True)
class Acknowledge:
    """``acknowledge(record, type)`` for the record at ``topic``-``partition``-``offset``."""

    topic: str
    partition: int
    offset: int
    acknowledge_type: AcknowledgeType = AcknowledgeType.ACCEPT


@dataclass(frozen=True)
class CommitSync:
    """``commitSync()``: blocks until the acknowledgements it sends are answered."""


@dataclass(frozen=True)
class CommitAsync:
    """``commitAsync()``."""


@dataclass(frozen=True)
class Close:
    """``close()``: sends what was acknowledged, closes the share session, blocks until answered."""


@dataclass(frozen=True)
class AcquiredRecords:
    """One acquired range of a ShareFetch answer: every offset from first to last is a record."""

    first_offset: int
    last_offset: int
    delivery_count: int = 1


@dataclass(frozen=True)
class FetchPartition:
    topic: str
    partition: int
    acquired_records: tuple[AcquiredRecords, ...] = ()
    #: The outcome of the acknowledgements that rode on the request for this partition.
    acknowledge_error: Errors = Errors.NONE


@dataclass(frozen=True)
class FetchAnswered:
    """The in-flight ShareFetch's response (ignored when no ShareFetch is in flight)."""

    error: Errors = Errors.NONE
    partitions: tuple[FetchPartition, ...] = ()


@dataclass(frozen=True)
class AcknowledgePartition:
    topic: str
    partition: int
    error: Errors = Errors.NONE


@dataclass(frozen=True)
class AcknowledgeAnswered:
    """The in-flight ShareAcknowledge's response (ignored when none is in flight)."""

    error: Errors = Errors.NONE
    partitions: tuple[AcknowledgePartition, ...] = ()


@dataclass(frozen=True)
class RequestFailed:
    """The in-flight request got no response (a disconnect: NETWORK_EXCEPTION)."""


DeliveryEvent = (Assign | Poll | Acknowledge | CommitSync | CommitAsync | Close | FetchAnswered
                 | AcknowledgeAnswered | RequestFailed)


# ---------------------------------------------------------------------------------------------
# Outputs and the view
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Record:
    topic: str
    partition: int
    offset: int
    delivery_count: int


@dataclass(frozen=True)
class AcknowledgementBatch:
    """``AcknowledgementBatches`` of a request: one type for the whole range, or one per offset."""

    first_offset: int
    last_offset: int
    acknowledge_types: tuple[int, ...]


@dataclass(frozen=True)
class PartitionAcknowledgements:
    topic: str
    partition: int
    batches: tuple[AcknowledgementBatch, ...]


@dataclass(frozen=True)
class ShareFetchSent:
    session_epoch: int
    #: Partitions added to the share session (all of them when the session is new).
    added: tuple[Partition, ...]
    #: Partitions the session forgets.
    forgotten: tuple[Partition, ...]
    acknowledgements: tuple[PartitionAcknowledgements, ...]


@dataclass(frozen=True)
class ShareAcknowledgeSent:
    session_epoch: int
    request_type: Request
    acknowledgements: tuple[PartitionAcknowledgements, ...]


@dataclass(frozen=True)
class CallbackInvocation:
    """One call of ``AcknowledgementCommitCallback.onComplete``: one partition's offsets and the
    exception they completed with (NONE: null)."""

    topic: str
    partition: int
    offsets: tuple[int, ...]
    error: Errors


@dataclass(frozen=True)
class CommitResult:
    """One partition of the map ``commitSync`` returns."""

    topic: str
    partition: int
    error: Errors


@dataclass(frozen=True)
class DeliveryOutput:
    #: The records a poll returned.
    records: tuple[Record, ...] = ()
    #: The exception an application call threw (``IllegalStateException: ...``).
    error: str | None = None
    sent: ShareFetchSent | ShareAcknowledgeSent | None = None
    #: Callback invocations run on the application thread in this step.
    callbacks: tuple[CallbackInvocation, ...] = ()
    #: What a commitSync returned, when it returned in this step.
    committed: tuple[CommitResult, ...] | None = None


@dataclass(frozen=True)
class Marked:
    """An acknowledgement given and not yet taken from the batch."""

    topic: str
    partition: int
    offset: int
    acknowledge_type: AcknowledgeType


@dataclass(frozen=True)
class DeliveryView:
    assigned: tuple[Partition, ...]
    session_epoch: int
    session_partitions: tuple[Partition, ...]
    in_flight: Request | None
    fetch_wanted: bool
    #: Records fetched and not yet returned by a poll.
    buffered: tuple[Record, ...]
    #: Records the last poll returned that are still held (not yet acknowledged and taken).
    delivered: tuple[Record, ...]
    marked: tuple[Marked, ...]
    #: Acknowledgements waiting to ride on the next ShareFetch.
    riding: tuple[PartitionAcknowledgements, ...]
    #: ShareAcknowledge requests waiting for the broker connection, in send order.
    queued: tuple[Request, ...]
    #: Callback invocations waiting for the application thread.
    waiting_callbacks: int
    phase: Phase
    #: The application call blocked waiting for an answer (commitSync or close).
    blocked: Request | None

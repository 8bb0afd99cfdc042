"""The network thread's side of delivery: the share session and the requests (Kafka's
``ShareSessionHandler`` and ``ShareConsumeRequestManager``), for one broker leading every
assigned partition."""

from __future__ import annotations

from dataclasses import dataclass, field

from groupspec.impl.share_delivery.batch import Acknowledgements
from groupspec.types.errors import Errors
from groupspec.types.share_delivery import (
    SESSION_ERRORS,
    AcknowledgeAnswered,
    CallbackInvocation,
    FetchAnswered,
    Partition,
    PartitionAcknowledgements,
    Record,
    Request,
    ShareAcknowledgeSent,
    ShareFetchSent,
)

AckMap = dict[Partition, Acknowledgements]
INITIAL_EPOCH = 0
FINAL_EPOCH = -1


def _wire(acks: AckMap) -> tuple[PartitionAcknowledgements, ...]:
    return tuple(PartitionAcknowledgements(p.topic, p.partition, acks[p].batches())
                 for p in sorted(acks) if not acks[p].is_empty())


def _merge_into(target: AckMap, more: AckMap) -> None:
    for p, acks in more.items():
        if p in target:
            target[p].merge(acks)
        else:
            target[p] = acks


class ShareSessionHandler:
    """The share session with the broker: its epoch and the partitions it holds."""

    def __init__(self) -> None:
        self.epoch = INITIAL_EPOCH
        self.session_partitions: list[Partition] = []
        self.next_partitions: list[Partition] = []
        self.next_acknowledgements: AckMap = {}

    def is_new_session(self) -> bool:
        return self.epoch == INITIAL_EPOCH

    def add_partition_to_fetch(self, p: Partition, acks: Acknowledgements | None) -> None:
        if p not in self.next_partitions:
            self.next_partitions.append(p)
        if acks is not None:
            self.next_acknowledgements[p] = acks

    def add_partition_to_acknowledge_only(self, p: Partition, acks: Acknowledgements) -> None:
        self.next_acknowledgements[p] = acks

    def new_share_fetch(self) -> ShareFetchSent:
        if self.is_new_session():
            for p in self.next_partitions:
                if p not in self.session_partitions:
                    self.session_partitions.append(p)
            added = sorted(self.session_partitions)
            removed: list[Partition] = []
        else:
            removed = [p for p in self.session_partitions if p not in self.next_partitions]
            added = [p for p in self.next_partitions if p not in self.session_partitions]
            self.session_partitions = [p for p in self.session_partitions if p not in removed] + added
        request = ShareFetchSent(self.epoch, tuple(sorted(added)), tuple(sorted(removed)),
                                 _wire(self.next_acknowledgements))
        self.next_partitions, self.next_acknowledgements = [], {}
        return request

    def new_share_acknowledge(self, request_type: Request) -> ShareAcknowledgeSent | None:
        if self.is_new_session():
            self.next_partitions, self.next_acknowledgements = [], {}
            return None  # a share session cannot be started with a ShareAcknowledge
        request = ShareAcknowledgeSent(self.epoch, request_type, _wire(self.next_acknowledgements))
        self.next_acknowledgements = {}
        return request

    def handle_response(self, error: Errors) -> bool:
        if error in SESSION_ERRORS:
            self.epoch = INITIAL_EPOCH
            return False
        self.epoch = FINAL_EPOCH if self.epoch < 0 else self.epoch + 1
        return error is Errors.NONE

    def handle_error(self) -> None:
        self.epoch = INITIAL_EPOCH

    def notify_close(self) -> None:
        self.epoch = FINAL_EPOCH


@dataclass
class AcknowledgeRequestState:
    request_type: Request
    to_send: AckMap
    in_flight: AckMap = field(default_factory=dict)


class ShareConsumeRequestManager:
    """Sends ShareFetch and ShareAcknowledge, one at a time, and completes acknowledgements."""

    def __init__(self) -> None:
        self.handler: ShareSessionHandler | None = None
        self.assigned: list[Partition] = []
        self.fetch_more_records = False
        self.fetch_acknowledgements_to_send: AckMap = {}
        self.fetch_acknowledgements_in_flight: AckMap = {}
        self.async_request: AcknowledgeRequestState | None = None
        self.sync_request: AcknowledgeRequestState | None = None
        self.close_request: AcknowledgeRequestState | None = None
        self.pending: Request | None = None
        self.pending_state: AcknowledgeRequestState | None = None
        self.closing = False
        #: Completed acknowledgements for the application thread (ShareAcknowledgementEvent).
        self.completed: list[CallbackInvocation] = []
        #: commitSync's or close's result, once its request completed: per partition error.
        self.finished: tuple[Request, dict[Partition, Errors]] | None = None

    # -- completions ------------------------------------------------------------------------------

    def _complete(self, p: Partition, acks: Acknowledgements, error: Errors) -> None:
        if not acks.is_empty():
            self.completed.append(CallbackInvocation(p.topic, p.partition, acks.offsets(), error))

    def _complete_state(self, state: AcknowledgeRequestState, outcome: dict[Partition, Errors]) -> None:
        for p in sorted(state.in_flight):
            self._complete(p, state.in_flight[p], outcome[p])
        if state.request_type is not Request.COMMIT_ASYNC:
            self.finished = (state.request_type, outcome)
        state.in_flight = {}

    # -- what the application thread asks for ------------------------------------------------------

    def fetch(self, acks: AckMap) -> None:
        self.fetch_more_records = True
        _merge_into(self.fetch_acknowledgements_to_send, acks)

    def _session_only(self, acks: AckMap) -> AckMap:
        session = self.handler.session_partitions if self.handler is not None else []
        return {p: a for p, a in acks.items() if p in session}

    def commit_async(self, acks: AckMap) -> None:
        kept = self._session_only(acks)
        if not kept:
            return
        if self.async_request is None:
            self.async_request = AcknowledgeRequestState(Request.COMMIT_ASYNC, {})
        _merge_into(self.async_request.to_send, kept)

    def commit_sync(self, acks: AckMap) -> bool:
        """Queue the acknowledgements; False when none is for the session (returns at once)."""
        kept = self._session_only(acks)
        if kept:
            self.sync_request = AcknowledgeRequestState(Request.COMMIT_SYNC, kept)
        return bool(kept)

    def acknowledge_on_close(self, acks: AckMap) -> bool:
        """Queue the closing request; False when there is no share session to close."""
        self.closing = True
        if self.handler is None:
            return False
        all_acks = dict(acks)
        _merge_into(all_acks, self.fetch_acknowledgements_to_send)
        self.fetch_acknowledgements_to_send = {}
        self.close_request = AcknowledgeRequestState(Request.CLOSE, all_acks)
        return True

    # -- one pass of the network thread ------------------------------------------------------------

    def poll(self) -> ShareFetchSent | ShareAcknowledgeSent | None:
        while self.pending is None:
            for attr in ("async_request", "sync_request", "close_request"):
                state: AcknowledgeRequestState | None = getattr(self, attr)
                if state is not None:
                    setattr(self, attr, None)
                    sent = self._build_acknowledge(state)
                    if sent is not None or state.request_type is Request.CLOSE:
                        return sent
                    break
            else:
                if self.closing or not self.fetch_more_records:
                    return None
                return self._build_fetch()
        return None

    def _build_acknowledge(self, state: AcknowledgeRequestState) -> ShareAcknowledgeSent | None:
        assert self.handler is not None
        if state.request_type is Request.CLOSE:
            self.handler.notify_close()
        for p, acks in state.to_send.items():
            # Kafka adds them as partitions to fetch too, and a ShareAcknowledge leaves them
            # there: the next ShareFetch counts them as wanted (they are not forgotten yet).
            self.handler.add_partition_to_fetch(p, acks)
        sent = self.handler.new_share_acknowledge(state.request_type)
        if sent is None:  # handleAcknowledgeShareSessionNotFound
            state.in_flight, state.to_send = state.to_send, {}
            self._complete_state(state, dict.fromkeys(state.in_flight, Errors.SHARE_SESSION_NOT_FOUND))
            return None
        state.in_flight, state.to_send = state.to_send, {}
        self.pending, self.pending_state = state.request_type, state
        return sent

    def _build_fetch(self) -> ShareFetchSent | None:
        include = False
        if self.assigned and self.handler is None:
            self.handler = ShareSessionHandler()
        handler = self.handler
        if handler is None:
            return None
        failed: AckMap = {}
        for p in self.assigned:
            acks = self.fetch_acknowledgements_to_send.pop(p, None)
            if acks is not None and not self._maybe_add_acknowledgements(handler, p, acks, failed):
                acks = None
            handler.add_partition_to_fetch(p, acks)
            include = True
        for p, acks in list(self.fetch_acknowledgements_to_send.items()):
            if self._maybe_add_acknowledgements(handler, p, acks, failed):
                handler.add_partition_to_acknowledge_only(p, acks)
                include = True
        self.fetch_acknowledgements_to_send = {}
        for p in sorted(failed):
            self._complete(p, failed[p], Errors.INVALID_SHARE_SESSION_EPOCH)
        if not include:
            return None  # the handler is not asked for a request: what it was given stays
        self.pending = Request.SHARE_FETCH
        return handler.new_share_fetch()

    def _maybe_add_acknowledgements(self, handler: ShareSessionHandler, p: Partition,
                                    acks: Acknowledgements, failed: AckMap) -> bool:
        """Acknowledgements cannot ride on the request that opens a session: they fail."""
        if handler.is_new_session():
            failed[p] = acks
            return False
        self.fetch_acknowledgements_in_flight[p] = acks
        return True

    # -- answers -----------------------------------------------------------------------------------

    def on_fetch_answered(self, answer: FetchAnswered) -> list[Record]:
        """Complete the acknowledgements that rode on the fetch; the records to buffer."""
        assert self.handler is not None
        self.pending = None
        in_flight, self.fetch_acknowledgements_in_flight = self.fetch_acknowledgements_in_flight, {}
        if not self.handler.handle_response(answer.error):
            for p in sorted(in_flight):
                self._complete(p, in_flight[p], answer.error)
            return []
        records: list[Record] = []
        for partition in answer.partitions:
            p = Partition(partition.topic, partition.partition)
            acks = in_flight.pop(p, None)
            if acks is not None:
                self._complete(p, acks, partition.acknowledge_error)
            for acquired in partition.acquired_records:
                records.extend(Record(p.topic, p.partition, offset, acquired.delivery_count)
                               for offset in range(acquired.first_offset, acquired.last_offset + 1))
            if partition.acquired_records:
                self.fetch_more_records = False
        for p in sorted(in_flight):
            self._complete(p, in_flight[p], Errors.INVALID_RECORD_STATE)
        return records

    def on_acknowledge_answered(self, answer: AcknowledgeAnswered) -> None:
        state = self.pending_state
        assert state is not None and self.handler is not None
        self.pending, self.pending_state = None, None
        outcome: dict[Partition, Errors] = {}
        if state.request_type is Request.CLOSE:
            self.handler = None
        elif not self.handler.handle_response(answer.error):
            outcome = dict.fromkeys(state.in_flight, answer.error)
        for partition in answer.partitions:
            p = Partition(partition.topic, partition.partition)
            if p in state.in_flight and p not in outcome:
                outcome[p] = partition.error
        for p in state.in_flight:
            outcome.setdefault(p, Errors.INVALID_RECORD_STATE)
        self._complete_state(state, outcome)

    def on_request_failed(self) -> None:
        assert self.handler is not None
        kind, state = self.pending, self.pending_state
        self.pending, self.pending_state = None, None
        self.handler.handle_error()
        if kind is Request.SHARE_FETCH:
            in_flight, self.fetch_acknowledgements_in_flight = self.fetch_acknowledgements_in_flight, {}
            for p in sorted(in_flight):
                self._complete(p, in_flight[p], Errors.NETWORK_EXCEPTION)
            return
        assert state is not None
        if kind is Request.CLOSE:
            self.handler = None
        # handleShareAcknowledgeFailure completes with Errors.forException(the disconnect), which
        # has no code of its own: UNKNOWN_SERVER_ERROR.
        self._complete_state(state, dict.fromkeys(state.in_flight, Errors.UNKNOWN_SERVER_ERROR))

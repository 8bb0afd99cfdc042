"""The share consumer's delivery path as one object (Kafka's ``ShareConsumerImpl``): the
application thread's calls, the fetch buffer, and one pass of the network thread after each
event."""

from __future__ import annotations

from groupspec.impl.share_delivery.batch import Acknowledgements, ShareFetch
from groupspec.impl.share_delivery.network import ShareConsumeRequestManager
from groupspec.types import InputError
from groupspec.types.share_delivery import (
    FINAL_ACKNOWLEDGE_ERRORS,
    FINAL_PARTITION_ERRORS,
    Acknowledge,
    AcknowledgeAnswered,
    AcknowledgementMode,
    AcknowledgeType,
    Assign,
    CallbackInvocation,
    Close,
    CommitAsync,
    CommitResult,
    CommitSync,
    DeliveryConfig,
    DeliveryEvent,
    DeliveryOutput,
    DeliveryView,
    FetchAnswered,
    Marked,
    Partition,
    PartitionAcknowledgements,
    Phase,
    Poll,
    Record,
    Request,
    RequestFailed,
    ShareAcknowledgeSent,
    ShareFetchSent,
)


class IllegalStateException(Exception):
    pass


class ShareDeliveryConsumer:
    def __init__(self, config: DeliveryConfig = DeliveryConfig()) -> None:  # noqa: B008
        if not isinstance(config, DeliveryConfig):
            raise InputError("config", f"expected a DeliveryConfig, got {type(config).__name__}")
        self.config = config
        self.implicit = config.mode is AcknowledgementMode.IMPLICIT
        self.manager = ShareConsumeRequestManager()
        self.fetch_buffer: list[Record] = []
        self.current_fetch = ShareFetch()
        self.closed = False
        self.blocked: Request | None = None
        self._callbacks: list[CallbackInvocation] = []
        self._records: tuple[Record, ...] = ()
        self._committed: tuple[CommitResult, ...] | None = None

    # -- one event ----------------------------------------------------------------------------------

    def handle(self, event: DeliveryEvent) -> DeliveryOutput:
        self._refuse_unmodelled(event)
        self._callbacks, self._records, self._committed = [], (), None
        error: str | None = None
        try:
            self._dispatch(event)
        except IllegalStateException as e:
            error = f"IllegalStateException: {e}"
        sent = self._network_pass()
        return DeliveryOutput(self._records, error, sent, tuple(self._callbacks), self._committed)

    @staticmethod
    def _refuse_unmodelled(event: DeliveryEvent) -> None:
        if isinstance(event, AcknowledgeAnswered) and (
                event.error not in FINAL_ACKNOWLEDGE_ERRORS
                or any(p.error not in FINAL_PARTITION_ERRORS for p in event.partitions)):
            raise InputError("event.error", "Kafka retries this error, which is not modelled")

    def _dispatch(self, event: DeliveryEvent) -> None:
        m = self.manager
        match event:
            case Assign():
                if not self.closed:
                    m.assigned = sorted(set(event.partitions))
            case Poll() | Acknowledge() | CommitSync() | CommitAsync() | Close() if self.blocked is not None:
                pass  # the application thread is inside commitSync or close
            case Close():
                if not self.closed:
                    self._close()
            case Poll() | Acknowledge() | CommitSync() | CommitAsync() if self.closed:
                raise IllegalStateException("This consumer has already been closed.")
            case Poll():
                self._poll()
            case Acknowledge():
                if self.implicit:
                    raise IllegalStateException("Implicit acknowledgement of delivery is being used.")
                if not self.current_fetch.acknowledge(Partition(event.topic, event.partition), event.offset,
                                                      event.acknowledge_type):
                    raise IllegalStateException("The record cannot be acknowledged.")
            case CommitSync():
                self._commit(sync=True)
            case CommitAsync():
                self._commit(sync=False)
            case FetchAnswered():
                if m.pending is Request.SHARE_FETCH:
                    self.fetch_buffer.extend(m.on_fetch_answered(event))
            case AcknowledgeAnswered():
                if m.pending in (Request.COMMIT_ASYNC, Request.COMMIT_SYNC, Request.CLOSE):
                    m.on_acknowledge_answered(event)
            case RequestFailed():
                if m.pending is not None:
                    m.on_request_failed()
            case _:
                raise InputError("event", f"{type(event).__name__} is not a share delivery event")

    # -- the application thread ---------------------------------------------------------------------

    def _handle_completed_acknowledgements(self) -> None:
        for completed in self.manager.completed:
            self.current_fetch.renew(completed)  # ShareAcknowledgementEvent with renew acks
        self._callbacks.extend(self.manager.completed)
        self.manager.completed = []

    def _acknowledge_batch_if_implicit(self) -> None:
        if self.implicit:
            self.current_fetch.acknowledge_all(AcknowledgeType.ACCEPT)

    def _poll(self) -> None:
        self._handle_completed_acknowledgements()
        self._acknowledge_batch_if_implicit()
        if not self.implicit and not self.current_fetch.check_all_in_flight_acknowledged():
            raise IllegalStateException("All records must be acknowledged in explicit acknowledgement mode.")
        acks = self.current_fetch.take_acknowledged_records()
        if self.current_fetch.is_empty() and not self.current_fetch.has_renewals():
            taken = self.fetch_buffer[:self.config.max_poll_records]
            del self.fetch_buffer[:len(taken)]
            if taken:
                self.current_fetch = ShareFetch()
                for record in taken:
                    self.current_fetch.add(record)
                self._records = tuple(taken)
                if acks:
                    self.manager.commit_async(acks)  # ShareAcknowledgeAsyncEvent
            else:
                self.manager.fetch(acks)  # ShareFetchEvent: the acknowledgements ride on the fetch
            return
        if self.current_fetch.has_renewals():
            self.current_fetch.take_renewed_records()
            if self.current_fetch.has_renewals():
                self.manager.fetch(acks)
                acks = {}
            elif acks:
                self.manager.commit_async(acks)
            self._records = self.current_fetch.records()

    def _commit(self, *, sync: bool) -> None:
        self._handle_completed_acknowledgements()
        self._acknowledge_batch_if_implicit()
        acks = self.current_fetch.take_acknowledged_records()
        if sync:
            if acks and self.manager.commit_sync(acks):
                self.blocked = Request.COMMIT_SYNC
            else:
                self._committed = ()
        elif acks:
            self.manager.commit_async(acks)

    def _close(self) -> None:
        # No implicit acknowledgement here: only what was acknowledged is sent.
        acks = self.current_fetch.take_acknowledged_records()
        if self.manager.acknowledge_on_close(acks):
            self.blocked = Request.CLOSE
        else:
            self.closed = True
            self._handle_completed_acknowledgements()

    # -- the network thread's pass, and what returns to a blocked call ----------------------------

    def _network_pass(self) -> ShareFetchSent | ShareAcknowledgeSent | None:
        self._wake_blocked()
        sent = self.manager.poll()
        self._wake_blocked()
        return sent

    def _wake_blocked(self) -> None:
        finished, self.manager.finished = self.manager.finished, None
        if finished is None:
            return
        kind, outcome = finished
        if kind is Request.COMMIT_SYNC:
            self._committed = tuple(CommitResult(p.topic, p.partition, outcome[p]) for p in sorted(outcome))
        else:
            self.closed = True
        self.blocked = None
        self._handle_completed_acknowledgements()

    # -- the view -----------------------------------------------------------------------------------

    def view(self) -> DeliveryView:
        m = self.manager
        h = m.handler
        held = self.current_fetch.records()
        marked = tuple(Marked(p.topic, p.partition, o, t)
                       for p in sorted(self.current_fetch.batches)
                       for o, t in sorted(self.current_fetch.batches[p].acknowledgements.types.items()))
        riding = tuple(PartitionAcknowledgements(p.topic, p.partition, a.batches())
                       for p, a in sorted(m.fetch_acknowledgements_to_send.items()) if not a.is_empty())
        queued = tuple(state.request_type for state in (m.async_request, m.sync_request, m.close_request)
                       if state is not None)
        phase = Phase.CLOSED if self.closed else Phase.BLOCKED if self.blocked is not None else Phase.OPEN
        return DeliveryView(
            assigned=tuple(m.assigned),
            session_epoch=h.epoch if h is not None else 0,
            session_partitions=tuple(sorted(h.session_partitions)) if h is not None else (),
            in_flight=m.pending,
            fetch_wanted=m.fetch_more_records,
            buffered=tuple(self.fetch_buffer),
            delivered=tuple(sorted(held)),
            marked=marked,
            riding=riding,
            queued=queued,
            waiting_callbacks=len(m.completed),
            phase=phase,
            blocked=self.blocked,
        )


__all__ = ["Acknowledgements", "ShareDeliveryConsumer"]

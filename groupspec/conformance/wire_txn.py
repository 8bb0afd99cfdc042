"""Transactional offset commits realised over the wire, for the ``kafka://`` target.

A classic_group vector speaks of a transaction from the group coordinator's side only: a
TxnOffsetCommit carries a producer id and epoch that some transaction coordinator handed out,
and a TxnMarker is the COMMIT or ABORT that transaction coordinator later writes for that
producer. A live broker hands out producer ids itself and writes markers only when a producer
ends its transaction, so the run plays the producer:

* Each producer id of the vector is one transactional producer of the run, with a transactional
  id unique to the run (``<run tag>-tx<producer id>``): two producer ids that share a vector's
  transactional id would fence each other on a broker, while for the group coordinator (which
  never sees the transactional id in what it keeps) they are two producers. The first
  TxnOffsetCommit of a producer asks its transaction coordinator (FindCoordinator key type 1)
  for a producer id and epoch (InitProducerId); the vector's id and epoch stand for those.
* Before a TxnOffsetCommit the group is added to the producer's transaction, as Kafka's
  producer does: AddOffsetsToTxn, or nothing when the cluster has finalized transactions
  version 2 (KIP-890; TxnOffsetCommit v5, which adds the group itself).
* A TxnMarker for a producer with a transaction open is an EndTxn (commit or abort), and the run
  then waits until the transaction coordinator has finished writing the markers (its next
  InitProducerId for the transactional id stops answering CONCURRENT_TRANSACTIONS), so that the
  later events see the offsets settled, as the vector's marker settles them at once. A marker for
  a producer with no transaction open (it sent no TxnOffsetCommit, or its transaction already
  ended) is one a transaction coordinator would never send; it writes nothing in the vector and
  nothing is sent here.
* The marker's own answer is the transaction coordinator's business (WriteTxnMarkers between
  brokers), not something a client sees: the target reports it unobserved and the vector's
  later answers judge its effect.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from typing import Any

from groupspec.types import classic_group as cg

#: Kafka's error codes the transaction APIs answer with that the run waits out.
CONCURRENT_TRANSACTIONS = 51
COORDINATOR_LOADING = frozenset({14, 15, 16})  # load in progress, not available, not coordinator
TRANSACTION_KEY = 1  # FindCoordinator's key type for a transactional id
#: The transaction timeout asked for: longer than any run, so the broker never aborts one itself.
TRANSACTION_TIMEOUT_MS = 120_000


class TxnError(Exception):
    """A transaction step the broker refused; the message names the API and error code."""


def txn_problems(run: Any) -> list[str]:
    """Why the run's transactions cannot be played by real producers (empty when they can)."""
    epochs: dict[int, int] = {}
    problems = []
    for event in run.events:
        if isinstance(event, (cg.TxnOffsetCommit, cg.TxnMarker)):
            seen = epochs.setdefault(event.producer_id, event.producer_epoch)
            if seen != event.producer_epoch:
                problems.append(
                    f"producer {event.producer_id} is used at epochs {seen} and {event.producer_epoch}: "
                    "a broker hands out the epochs itself, so fencing by epoch cannot be realised")
    return problems


@dataclasses.dataclass
class _Producer:
    transactional_id: str
    producer_id: int = -1
    producer_epoch: int = -1
    open: bool = False
    groups: set[str] = dataclasses.field(default_factory=set)
    #: The open transaction's commits went at v5 (transactions version 2): it ends at EndTxn v5.
    v2: bool = False


class Transactions:
    """The run's transactional producers (module docstring)."""

    def __init__(self, tag: str, connect: Callable[[str, int], Any], bootstrap: Any, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, timeout: float = 10.0) -> None:
        self.tag = tag
        self.connect = connect
        self.bootstrap = bootstrap
        self.clock, self.sleep, self.timeout = clock, sleep, timeout
        self._producers: dict[int, _Producer] = {}
        self._conns: dict[tuple[str, int], Any] = {}
        self._coordinator: dict[str, Any] = {}
        #: Whether the cluster runs transactions version 2 (KIP-890), once asked.
        self._tv2: bool | None = None

    # -- connections ---------------------------------------------------------------------------

    def _conn_for(self, transactional_id: str) -> Any:
        from groupspec.wire.cluster import find_coordinator

        conn = self._coordinator.get(transactional_id)
        if conn is None:
            node = find_coordinator(self.bootstrap, transactional_id, key_type=TRANSACTION_KEY,
                                    attempts=max(1, int(self.timeout / 0.1)), sleep=self.sleep)
            key = (node.host, node.port)
            if key not in self._conns:
                self._conns[key] = self.connect(node.host, node.port)
            conn = self._coordinator[transactional_id] = self._conns[key]
        return conn

    def close(self) -> None:
        """Abort what the run left open (so the broker holds no transaction for it), then close."""
        from groupspec.wire import WireError
        from groupspec.wire import messages as w

        for p in self._producers.values():
            if p.open:
                with contextlib.suppress(WireError):
                    self._conn_for(p.transactional_id).request(w.EndTxnRequest(
                        p.transactional_id, p.producer_id, p.producer_epoch, False))
        for conn in self._conns.values():
            conn.close()

    # -- steps ---------------------------------------------------------------------------------

    def _retry(self, what: str, call: Callable[[], Any], also: frozenset[int] = frozenset()) -> Any:
        """``call()`` again while its answer's error code says "not yet" (within the timeout)."""
        deadline = self.clock() + self.timeout
        while True:
            answer = call()
            if answer.error_code not in COORDINATOR_LOADING | also | {CONCURRENT_TRANSACTIONS}:
                if answer.error_code != 0:
                    raise TxnError(f"{what} answered error code {answer.error_code}")
                return answer
            if self.clock() >= deadline:
                raise TxnError(f"{what} still answered error code {answer.error_code} after "
                               f"{self.timeout:g} s")
            self.sleep(0.02)

    def _init(self, p: _Producer) -> None:
        from groupspec.wire import messages as w

        conn = self._conn_for(p.transactional_id)
        answer = self._retry(f"InitProducerId for {p.transactional_id!r}", lambda: conn.request(
            w.InitProducerIdRequest(p.transactional_id, TRANSACTION_TIMEOUT_MS)))
        p.producer_id, p.producer_epoch = answer.producer_id, answer.producer_epoch

    def commit_version(self, group_conn: Any) -> int:
        """The TxnOffsetCommit version to send, as Kafka's producer picks it
        (clients/.../producer/internals/TransactionManager.java, ``isTransactionV2Enabled``): the
        highest both speak when the cluster has finalized ``transaction.version`` 2 or more
        (from v5 the commit adds the group to the transaction itself), else at most 4, with
        AddOffsetsToTxn before it."""
        if self._tv2 is None:
            from groupspec.wire import messages as w

            version = int(self.bootstrap.version(18))
            if version < 3:  # no features before ApiVersions v3: no transactions version 2
                self._tv2 = False
            else:
                answer = self.bootstrap.request(w.ApiVersionsRequest("groupspec", "wire"), version)
                levels = {f.name: f.max_version_level for f in answer.finalized_features}
                self._tv2 = levels.get("transaction.version", 0) >= 2
        highest = int(group_conn.version(28))
        return highest if self._tv2 else min(highest, 4)

    def begin(self, event: cg.TxnOffsetCommit, group: str, version: int) -> tuple[str, int, int]:
        """Make the producer's transaction hold ``group`` (the broker's name); returns the
        transactional id, producer id and epoch the TxnOffsetCommit is to carry."""
        from groupspec.wire import messages as w

        p = self._producers.get(event.producer_id)
        if p is None:
            p = self._producers[event.producer_id] = _Producer(f"{self.tag}-tx{event.producer_id}")
            self._init(p)
        if version < 5 and group not in p.groups:
            conn = self._conn_for(p.transactional_id)
            self._retry(f"AddOffsetsToTxn for {p.transactional_id!r}", lambda: conn.request(
                w.AddOffsetsToTxnRequest(p.transactional_id, p.producer_id, p.producer_epoch, group)))
        p.groups.add(group)
        p.open, p.v2 = True, version >= 5
        return p.transactional_id, p.producer_id, p.producer_epoch

    def end(self, marker: cg.TxnMarker) -> bool:
        """End the producer's open transaction as the marker says and wait until its markers are
        written; False when it has none open (nothing is sent)."""
        from groupspec.wire import messages as w

        p = self._producers.get(marker.producer_id)
        if p is None or not p.open:
            return False
        conn = self._conn_for(p.transactional_id)
        # EndTxn v5 is transactions version 2 (an epoch bump at every end), as the commits were
        version = int(conn.version(26)) if p.v2 else min(int(conn.version(26)), 4)
        answer = self._retry(f"EndTxn for {p.transactional_id!r}", lambda: conn.request(
            w.EndTxnRequest(p.transactional_id, p.producer_id, p.producer_epoch, marker.commit), version))
        if answer.producer_id >= 0:  # v5 (transactions version 2) bumps the epoch at every end
            p.producer_id, p.producer_epoch = answer.producer_id, answer.producer_epoch
        p.open, p.groups = False, set()
        # The next InitProducerId waits (CONCURRENT_TRANSACTIONS) until the markers are written
        # and the transaction is complete; it also gives the producer its next epoch.
        self._init(p)
        return True

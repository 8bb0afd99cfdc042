"""``--target kafka://HOST:PORT``: the vectors realised over the wire against a live broker.

Theory of operation
-------------------
A vector is a run: a coordinator's configuration and a list of events (requests from members,
clock advances, restarts, ...). The in-process targets call the machine with each event; a live
broker only takes requests over sockets and keeps its own clock. So each run is *realised*
(docs/conformance.md, "A live broker", states the rules for users):

* Names. Every group id (except the empty one, which is itself a case) gets a prefix unique to
  the run, and every topic a commit or fetch names is created under a unique name, so runs never
  meet on a shared broker. Member ids are symbols in a vector (``client-<new_member_uuid>``, the
  uuid the vector chose); the broker draws its own uuid, so the id a JoinGroup answer carries is
  *bound* to the vector's symbol, later requests carry the broker's id and every answer is
  written back in the vector's names. Ids the broker never issued ("stranger") pass unchanged.
  A ``consumer`` member's subscription names topics too, and the broker reads it (an
  OffsetDelete of a subscribed topic is refused): its topics go out under the run's names and
  come back in the vector's (bytes that do not read back identically as a subscription pass
  unchanged). Assignments, which a broker never reads, pass unchanged.
* Connections. One socket per request in flight: a classic JoinGroup parks until its rebalance
  completes, so a request is sent, and its answer is collected when it arrives. An answer belongs
  to the event during which it arrived: after sending a JoinGroup or SyncGroup (the requests a
  classic coordinator parks), the target waits up to ``settle_s`` for its answer, and for any
  other request until it is answered (within the timeout), plus ``grace_s`` for answers the same
  request released; a request still unanswered is parked and may be answered by a later event.
* Time. The broker's timers run on real time, 1:1 with the vector's milliseconds: the vector's
  session and rebalance timeouts are sent as they are, and a clock advance to ``T`` sleeps until
  ``T`` after the run's start, shifted by how far the run has fallen behind the vector's clock
  (requests take real time, and the timers they start are that much late) plus ``slack_s``. A run
  whose clock advances further than ``budget_s`` seconds, stops at instants closer than
  ``resolution_s``, steps by 0 ms to fire timers of 0 ms (a broker fires those inside the
  request that arms them), or falls more than ``max_lag_s`` behind, answers unsupported: its
  timing cannot be realised faithfully.
* Configuration. The vector's coordinator configuration must be the broker's where the run can
  tell them apart. The initial rebalance delay is measured (one probe join per target) and each
  session timeout the run sends is tried against the broker's bounds (a probe join); what no
  probe shows (group.max.size, offset.metadata.max.bytes, offset retention, a share group's
  defaults) is read once per target with DescribeConfigs on the broker's BROKER resource, else
  taken at Kafka's default, unless the address declares it (``kafka://h:p?group.max.size=1``),
  and the target's notes say which. A vector that needs a value the broker does not have
  answers unsupported naming it. The coordinator topic's partition count is not observable on
  the wire and is not checked.
* Transactions (groupspec.conformance.wire_txn): each producer id of the vector is a real
  transactional producer of the run; a TxnOffsetCommit goes out after InitProducerId (and
  AddOffsetsToTxn below TxnOffsetCommit v5), a TxnMarker for a producer with a transaction open
  is its EndTxn, waited on until the markers are written; a marker's own answer is not
  observable (unobserved), its effect is judged through the later answers. OffsetCommit v10
  names the run's topics by the ids the broker gave them.
* What the wire cannot express answers unsupported with the reason: restarts and coordinator
  loads, fencing a producer by epoch, metadata changes, scripted persister answers, and every
  machine but classic_group, share_group and share_partition (the last realised by
  :mod:`groupspec.conformance.wire_share_partition`, whose docstring states how).
* share_group: ShareGroupHeartbeat requests and clock advances. The run's metadata image is
  created as topics under unique names (their broker-drawn ids mapped back to the vector's);
  member ids are the client's own in this protocol and go unchanged (the group is unique). The
  broker's share coordinator initializes a subscribed topic's partitions by itself, soon after
  the first heartbeat; a vector without PersisterAnswer events pins that initialization as
  pending, so a run whose group heartbeats again after subscribing to a topic that exists is
  unsupported rather than raced.
  A SetGroupConfig is IncrementalAlterConfigs on the GROUP resource; the run first reads the
  broker's bounds with DescribeConfigs (they must be the vector's) and, after an accepted change,
  waits until DescribeConfigs of the group shows it. DeleteGroups goes out as it is.
* What is judged. A broker shows its answers, not the records it writes nor its internal state,
  so the output carries no records and an empty view, and the response says so
  (``unobserved``): the runner judges the answers with the machine's own judge.
"""

from __future__ import annotations

import dataclasses
import selectors
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

from groupspec.conformance.targets import Response
from groupspec.types import InputError
from groupspec.types import classic_group as cg
from groupspec.types.errors import Errors

#: What the output of a classic run leaves to the broker's inside.
CLASSIC_UNOBSERVED = ("outputs[].records", "view")
#: Kafka's defaults for what the wire cannot ask of a broker (GroupCoordinatorConfig,
#: OffsetConfig), keyed by the broker property and the vector's config field.
ASSUMED = {
    "group.max.size": ("max_size", 2_147_483_647),
    "offset.metadata.max.bytes": ("offset_metadata_max_bytes", 4_096),
    "offsets.retention.ms": ("offsets_retention_ms", 10_080 * 60_000),
    "offsets.retention.check.interval.ms": ("offsets_retention_check_interval_ms", 600_000),
}
#: The target's own options in the address's query (the rest are declared broker properties).
OPTIONS = ("budget_s", "settle_s", "grace_s", "slack_s", "max_lag_s", "resolution_s")
#: Fields of a machine's answer that the wire carries from a version on (the message schemas):
#: below it the broker's answer cannot show them, so they are not judged.
SINCE_VERSION: dict[type, tuple[tuple[str, int], ...]] = {
    cg.JoinGroupResponse: (("protocol_type", 7), ("skip_assignment", 9)),
    cg.SyncGroupResponse: (("protocol_type", 5), ("protocol_name", 5)),
    cg.LeaveGroupResponse: (("members", 3),),
}
#: Why the other machines are not realised over the wire.
NOT_DRIVEN = {
    "share_partition": "only its run handler exists (groupspec.conformance.wire_share_partition)",
    "share_state": "the share coordinator's state API (Read/Write/InitializeShareGroupState) is "
                   "broker-internal and not in groupspec.wire",
    "records": "a codec, not a broker's behaviour",
    "simple_assignor": "an assignor, run inside the coordinator: shown through share_group",
    "classic_assignors": "client-side assignors: no broker runs them",
    "classic_consumer": "a client's behaviour, not a broker's",
    "share_consumer": "a client's behaviour, not a broker's",
    "share_delivery": "a client and broker together; not driven over the wire yet",
}
#: The classic requests a coordinator may hold unanswered (until a rebalance phase completes).
PARKING = (cg.JoinGroup, cg.SyncGroup)
#: Lists in an answer that Kafka orders by a hash of member ids (ClassicGroup keeps its members
#: in a HashMap): the broker draws the ids, so their order is not the vector's to reproduce.
UNORDERED: dict[type, tuple[str, ...]] = {
    cg.JoinGroupResponse: ("members",),
    cg.DescribeGroupsResponse: ("groups[].members",),
    # GroupCoordinatorService#deleteGroups passes a partition's group ids on through a HashSet,
    # so the results come in the hash order of the broker's (run-prefixed) group ids
    # (docs/divergences.md, "DeleteGroups results in hash order")
    cg.DeleteGroupsResponse: ("results",),
}
_LOADING = frozenset({Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.COORDINATOR_NOT_AVAILABLE,
                      Errors.NOT_COORDINATOR})
_WHY_NOT = {
    cg.Restart: "a coordinator restart cannot be caused over the wire",
    cg.BeginLoad: "a coordinator load cannot be caused over the wire",
    cg.CompleteLoad: "a coordinator load cannot be caused over the wire",
}


@dataclasses.dataclass(frozen=True)
class Scaling:
    """How a run's clock becomes real time (module docstring, "Time"); seconds."""

    budget_s: float = 10.0
    settle_s: float = 0.1
    grace_s: float = 0.05
    slack_s: float = 0.15
    max_lag_s: float = 1.5
    #: The finest step of the vector's clock real time can stand for: a run whose clock stops
    #: at two instants closer than this tells apart what sleeping cannot (a timer due at 3000
    #: that must not fire at 2999).
    resolution_s: float = 0.5


class Conn(Protocol):
    """What a run needs of a connection (groupspec.wire.Connection, or a fake in tests)."""

    client_id: str | None

    def send(self, request: Any, version: int | None = None) -> Any: ...

    def receive(self, pending: Any) -> Any: ...

    def request(self, request: Any, version: int | None = None) -> Any: ...

    def version(self, api_key: int) -> int: ...

    def fileno(self) -> int: ...

    def close(self) -> None: ...


class Unrealisable(Exception):
    """The run cannot be realised over the wire; the message says why (an unsupported answer)."""


# ---------------------------------------------------------------------------------------------
# Names: the vector's symbols and the broker's names, both ways
# ---------------------------------------------------------------------------------------------


class Names:
    """The run's group, topic and member names: vector <-> broker."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self._members: dict[str, str] = {}
        self._members_back: dict[str, str] = {}
        #: The vector's topic names -> the ids the broker gave the run's topics (and back).
        self.topic_ids: dict[str, str] = {}

    def topic_by_id(self, broker_id: str) -> str | None:
        """The vector's name of the run's topic with this broker id (None: not one of the run's)."""
        return next((n for n, i in self.topic_ids.items() if i == broker_id), None)

    def group(self, gid: str) -> str:
        return gid if gid == "" else f"{self.tag}-{gid}"

    def group_back(self, gid: str) -> str | None:
        """The vector's group id, or None for a group another run (or anyone) made."""
        prefix = f"{self.tag}-"
        return gid[len(prefix):] if gid.startswith(prefix) else "" if gid == "" else None

    def topic(self, name: str) -> str:
        return f"{self.tag}-{name}"

    def topic_back(self, name: str) -> str:
        prefix = f"{self.tag}-"
        return name[len(prefix):] if name.startswith(prefix) else name

    def bind(self, symbol: str, broker_id: str) -> None:
        old = self._members.get(symbol)
        if old is not None:
            self._members_back.pop(old, None)
        self._members[symbol] = broker_id
        self._members_back[broker_id] = symbol

    def member(self, symbol: str) -> str:
        return self._members.get(symbol, symbol)

    def member_back(self, broker_id: str) -> str:
        return self._members_back.get(broker_id, broker_id)


def symbol_of(join: cg.JoinGroup) -> str:
    """The member id the vector expects the coordinator to give this JoinGroup's new member."""
    prefix = join.group_instance_id if join.group_instance_id is not None else join.client_id
    return f"{prefix}-{join.new_member_uuid}"


def renamed_subscription(data: bytes, rename: Callable[[str], str]) -> bytes:
    """A consumer protocol subscription with its topic names (subscribed and owned) renamed, at
    the version it was written; bytes that do not read back identically pass unchanged."""
    from groupspec.impl.codec.consumer_protocol import decode_subscription, encode_subscription
    from groupspec.impl.codec.errors import CodecError

    try:
        sub, version = decode_subscription(data)
        if encode_subscription(sub, version) != data:
            return data
    except (CodecError, InputError):
        return data
    r = dataclasses.replace
    return encode_subscription(r(sub, topics=tuple(rename(t) for t in sub.topics),
                                 owned_partitions=tuple(r(o, topic=rename(o.topic))
                                                        for o in sub.owned_partitions)), version)


def request_out(event: Any, names: Names) -> Any:
    """The vector's request in the broker's names."""
    r = dataclasses.replace
    if isinstance(event, cg.JoinGroup):
        protocols = event.protocols if event.protocol_type != "consumer" else tuple(
            r(p, metadata=renamed_subscription(p.metadata, names.topic)) for p in event.protocols)
        return r(event, group_id=names.group(event.group_id), member_id=names.member(event.member_id),
                 protocols=protocols)
    if isinstance(event, cg.SyncGroup):
        return r(event, group_id=names.group(event.group_id), member_id=names.member(event.member_id),
                 assignments=tuple(r(a, member_id=names.member(a.member_id)) for a in event.assignments))
    if isinstance(event, cg.Heartbeat):
        return r(event, group_id=names.group(event.group_id), member_id=names.member(event.member_id))
    if isinstance(event, cg.LeaveGroup):
        return r(event, group_id=names.group(event.group_id),
                 members=tuple(r(m, member_id=names.member(m.member_id)) for m in event.members))
    if isinstance(event, cg.OffsetCommit):
        return r(event, group_id=names.group(event.group_id), member_id=names.member(event.member_id),
                 topics=tuple(r(t, name=names.topic(t.name),
                                topic_id=None if t.topic_id is None else names.topic_ids.get(t.name))
                              for t in event.topics))
    if isinstance(event, cg.TxnOffsetCommit):
        return r(event, group_id=names.group(event.group_id), member_id=names.member(event.member_id),
                 topics=tuple(r(t, name=names.topic(t.name)) for t in event.topics))
    if isinstance(event, cg.OffsetDelete):
        return r(event, group_id=names.group(event.group_id),
                 topics=tuple(r(t, name=names.topic(t.name)) for t in event.topics))
    if isinstance(event, cg.DeleteGroups):
        return r(event, group_ids=tuple(names.group(g) for g in event.group_ids))
    if isinstance(event, cg.OffsetFetch):
        return r(event, group_id=names.group(event.group_id),
                 topics=None if event.topics is None
                 else tuple(r(t, name=names.topic(t.name)) for t in event.topics))
    if isinstance(event, cg.DescribeGroups):
        return r(event, group_ids=tuple(names.group(g) for g in event.group_ids))
    if isinstance(event, cg.ListGroups):
        return event
    raise TypeError(f"{type(event).__name__} has no wire form")


def response_back(response: Any, names: Names) -> Any:
    """The broker's answer in the vector's names (a ListGroups answer keeps the run's groups only,
    in group-id order: Kafka lists them in no defined order)."""
    r = dataclasses.replace
    if isinstance(response, cg.JoinGroupResponse):
        # the members' metadata is the protocol's: a consumer subscription's topics come back
        return r(response, leader=names.member_back(response.leader),
                 member_id=names.member_back(response.member_id),
                 members=tuple(r(m, member_id=names.member_back(m.member_id),
                                 metadata=renamed_subscription(m.metadata, names.topic_back))
                               for m in response.members))
    if isinstance(response, cg.LeaveGroupResponse):
        return r(response, members=tuple(r(m, member_id=names.member_back(m.member_id))
                                         for m in response.members))
    if isinstance(response, (cg.OffsetCommitResponse, cg.TxnOffsetCommitResponse, cg.OffsetDeleteResponse)):
        # at OffsetCommit v10 a topic is named by the id the broker gave it
        return r(response, topics=tuple(r(t, name=names.topic_by_id(t.name) or names.topic_back(t.name))
                                        for t in response.topics))
    if isinstance(response, cg.DeleteGroupsResponse):
        return r(response, results=tuple(r(g, group_id=names.group_back(g.group_id) or g.group_id)
                                         for g in response.results))
    if isinstance(response, cg.OffsetFetchResponse):
        return r(response, topics=tuple(r(t, name=names.topic_back(t.name)) for t in response.topics))
    if isinstance(response, cg.DescribeGroupsResponse):
        return r(response, groups=tuple(
            r(g, group_id=names.group_back(g.group_id) or g.group_id,
              members=tuple(r(m, member_id=names.member_back(m.member_id),
                              metadata=m.metadata if g.protocol_type != "consumer"
                              else renamed_subscription(m.metadata, names.topic_back))
                            for m in g.members))
            for g in response.groups))
    if isinstance(response, cg.ListGroupsResponse):
        ours = [r(g, group_id=back) for g in response.groups
                if (back := names.group_back(g.group_id)) is not None and g.group_id]
        return r(response, groups=tuple(sorted(ours, key=lambda g: g.group_id)))
    return response


# ---------------------------------------------------------------------------------------------
# What a run needs: checked before anything is sent
# ---------------------------------------------------------------------------------------------


def plan(run: Any, scaling: Scaling) -> None:
    """Raise Unrealisable when the run has an event the wire cannot express or a clock the
    budget cannot hold."""
    for event in run.events:
        why = _WHY_NOT.get(type(event))
        if why is not None:
            raise Unrealisable(f"{type(event).__name__}: {why}")
        if isinstance(event, cg.OffsetCommit) and event.version >= 10 and any(
                t.topic_id is None for t in event.topics):
            raise Unrealisable("OffsetCommit v10 without a topic id: the vector names no topic the "
                               "run can create")
    from groupspec.conformance.wire_txn import txn_problems

    problems = txn_problems(run)
    if problems:
        raise Unrealisable("; ".join(problems))
    zero_timers = run.config.initial_rebalance_delay_ms == 0 or any(
        isinstance(e, cg.JoinGroup) and e.rebalance_timeout_ms == 0 for e in run.events)
    instants = [run.start_ms]
    for event in run.events:
        if isinstance(event, cg.AdvanceClock) and event.to_ms <= instants[-1] and zero_timers:
            raise Unrealisable(
                f"the clock steps by 0 ms at {instants[-1]} ms to fire timers of 0 ms (an initial "
                "rebalance delay or a rebalance timeout of 0); a broker fires those at once, "
                "during the request that arms them, so the vector's step cannot be realised")
        if isinstance(event, cg.AdvanceClock) and event.to_ms > instants[-1]:
            if (event.to_ms - instants[-1]) / 1000 < scaling.resolution_s:
                raise Unrealisable(f"the clock steps from {instants[-1]} to {event.to_ms} ms, finer "
                                   f"than real time can realise (resolution_s={scaling.resolution_s:g})")
            instants.append(event.to_ms)
    advance = advance_ms(run)
    if advance / 1000 > scaling.budget_s:
        raise Unrealisable(f"the clock advances {advance} ms, which real time 1:1 cannot realise "
                           f"within the per-vector budget of {scaling.budget_s:g} s (?budget_s=)")


def advance_ms(run: Any) -> int:
    """How far the run's clock moves from its start."""
    last = run.start_ms
    for event in run.events:
        if isinstance(event, cg.AdvanceClock):
            last = max(last, event.to_ms)
    return int(last - run.start_ms)


def _source(prop: str, declared: Mapping[str, str], read: Mapping[str, str]) -> str:
    if prop in declared:
        return "declared"
    return "read with DescribeConfigs" if prop in read else "Kafka's default, assumed"


def assumed_problems(run: Any, declared: Mapping[str, str],
                     read: Mapping[str, str] | None = None) -> list[str]:
    """The configuration the run depends on that no probe checks, where the broker's value
    (declared, else read with DescribeConfigs, else Kafka's default) differs from the vector's in
    a way the run would show."""
    config = run.config
    joins = sum(isinstance(e, cg.JoinGroup) for e in run.events)
    metadata = [len((p.committed_metadata or "").encode()) for e in run.events
                if isinstance(e, cg.OffsetCommit) for t in e.topics for p in t.partitions]
    advance = advance_ms(run)
    problems = []
    for prop, (field, default) in ASSUMED.items():
        want = getattr(config, field)
        try:
            have = int(declared.get(prop, (read or {}).get(prop, default)))
        except ValueError:
            raise InputError("--target", f"{prop}={declared[prop]!r} is not a number") from None
        if want == have:
            continue
        if field == "max_size":
            matters = joins > min(want, have)
        elif field == "offset_metadata_max_bytes":
            matters = any(n > min(want, have) for n in metadata)
        else:
            matters = advance >= min(want, have, config.offsets_retention_check_interval_ms,
                                     config.offsets_retention_ms)
        if matters:
            source = _source(prop, declared, read or {})
            problems.append(f"the vector needs {prop}={want}, the broker has {have} ({source})")
    return problems


# ---------------------------------------------------------------------------------------------
# One run against the broker
# ---------------------------------------------------------------------------------------------

Waiter = Callable[[Sequence[Conn], float], list[Conn]]


def select_readable(conns: Sequence[Conn], timeout: float) -> list[Conn]:
    """The connections with bytes to read within ``timeout`` s (none: just wait that long)."""
    if not conns:
        time.sleep(max(timeout, 0.0))
        return []
    with selectors.DefaultSelector() as sel:
        for c in conns:
            sel.register(c.fileno(), selectors.EVENT_READ, c)
        return [key.data for key, _ in sel.select(max(timeout, 0.0))]


@dataclasses.dataclass
class _Flight:
    index: int
    event: Any
    pending: Any
    version: int


class ClassicRun:
    """One classic_group run realised against a broker (module docstring)."""

    def __init__(self, run: Any, names: Names, connect: Callable[[str], Conn], scaling: Scaling,
                 *, clock: Callable[[], float] = time.monotonic, wait: Waiter = select_readable,
                 answer_timeout: float = 10.0, txn: Any = None) -> None:
        self.run = run
        #: The run's transactional producers (groupspec.conformance.wire_txn.Transactions).
        self.txn = txn
        self.answer_timeout = answer_timeout
        self.names = names
        self.connect = connect
        self.scaling = scaling
        self.clock = clock
        self.wait = wait
        self._idle: dict[str, list[Conn]] = {}
        self._all: list[Conn] = []
        self._flights: dict[int, tuple[Conn, _Flight]] = {}
        #: (event index, request index, machine response in the broker's names, wire version)
        self._answers: list[tuple[int, int, Any, int]] = []
        #: What the output cannot show (Response.unobserved, Response.unordered), after drive().
        self.unobserved: list[str] = list(CLASSIC_UNOBSERVED)
        self.unordered: list[str] = []
        self._client_of: dict[str, str] = {}

    def _conn(self, client_id: str) -> Conn:
        idle = self._idle.setdefault(client_id, [])
        if idle:
            return idle.pop()
        conn = self.connect(client_id)
        self._all.append(conn)
        return conn

    def close(self) -> None:
        for conn in self._all:
            conn.close()

    def _client(self, event: Any) -> str:
        if isinstance(event, cg.JoinGroup):
            return event.client_id
        member = getattr(event, "member_id", None)
        return self._client_of.get(member, "groupspec") if isinstance(member, str) else "groupspec"

    def _send(self, index: int, event: Any) -> None:
        from groupspec.wire.translate import to_wire

        client = self._client(event)
        conn = self._conn(client)
        out = request_out(event, self.names)
        version = _fetch_version(conn, event)
        if isinstance(out, cg.TxnOffsetCommit):
            if self.txn is None:
                raise Unrealisable("TxnOffsetCommit: the run has no transactional producers")
            version = self.txn.commit_version(conn)
            tid, pid, epoch = self.txn.begin(out, out.group_id, version)
            out = dataclasses.replace(out, transactional_id=tid, producer_id=pid, producer_epoch=epoch)
        request, version = to_wire(out, version)
        pending = conn.send(request, version)
        self._flights[index] = (conn, _Flight(index, event, pending, pending.version))

    def _receive(self, k: int, conn: Conn) -> None:
        from groupspec.wire.translate import from_wire

        for index, (c, flight) in list(self._flights.items()):
            if c is conn:
                raw = conn.receive(flight.pending)
                del self._flights[index]
                self._idle.setdefault(conn.client_id or "groupspec", []).append(conn)
                answer = from_wire(raw, flight.version)
                event = flight.event
                if (isinstance(event, cg.JoinGroup) and isinstance(answer, cg.JoinGroupResponse)
                        and answer.member_id and event.member_id == cg.UNKNOWN_MEMBER_ID):
                    symbol = symbol_of(event)
                    self.names.bind(symbol, answer.member_id)
                    self._client_of[symbol] = event.client_id
                elif isinstance(event, cg.JoinGroup):
                    self._client_of[event.member_id] = event.client_id
                self._answers.append((k, index, answer, flight.version))
                return

    def _collect(self, k: int, until: float, want: int | None = None) -> None:
        """Take the answers that arrive before ``until`` (and, once request ``want`` is
        answered, for ``grace_s`` more) as event ``k``'s."""
        while True:
            now = self.clock()
            if want is not None and want not in self._flights:
                until = min(until, now + self.scaling.grace_s)
                want = None
            if now >= until:
                return
            busy = [c for c, _ in self._flights.values()]
            if not busy and want is None and until - now <= self.scaling.grace_s:
                return
            for conn in self.wait(busy, until - now):
                self._receive(k, conn)

    def drive(self) -> Any:
        from groupspec.conformance.classic_group_json import RunOutput

        run, s = self.run, self.scaling
        origin = self.clock()
        now_ms = run.start_ms
        shift = 0.0  # how far the real clock runs behind the vector's, at most so far
        first_shift: float | None = None
        for k, event in enumerate(run.events):
            behind = self.clock() - origin - (now_ms - run.start_ms) / 1000
            shift = max(shift, behind)
            if first_shift is None:
                first_shift = behind
            if shift - first_shift > s.max_lag_s:
                raise Unrealisable(f"the run fell {shift - first_shift:.2f} s behind the vector's "
                                   f"clock by event {k} (more than max_lag_s={s.max_lag_s:g})")
            if isinstance(event, cg.AdvanceClock):
                if event.to_ms > now_ms:
                    now_ms = event.to_ms
                    target = origin + (now_ms - run.start_ms) / 1000 + shift + s.slack_s
                    self._collect(k, target)
                    shift = max(shift, self.clock() - origin - (now_ms - run.start_ms) / 1000)
                self._collect(k, self.clock() + s.grace_s)
                continue
            if isinstance(event, cg.TxnMarker):
                if self.txn is None:
                    raise Unrealisable("TxnMarker: the run has no transactional producers")
                self.txn.end(event)
                self._answers.append((k, k, cg.TxnMarkerResponse(Errors.NONE), 0))
                self.unobserved.append(f"outputs.{k}.answers[request={k}].response")
                self._collect(k, self.clock() + s.grace_s)
                continue
            self._send(k, event)
            # Only a JoinGroup or SyncGroup parks at a classic coordinator; any other request's
            # answer is this event's however long the broker takes.
            wait = s.settle_s if isinstance(event, PARKING) else self.answer_timeout
            self._collect(k, self.clock() + wait, want=k)
        outputs = []
        for k in range(len(run.events)):
            answers = sorted(((i, a, v) for e, i, a, v in self._answers if e == k), key=lambda p: p[0])
            for i, a, v in answers:
                at = f"outputs.{k}.answers[request={i}].response."
                self.unobserved += [at + f for f, since in SINCE_VERSION.get(type(a), ()) if v < since]
                self.unordered += [at + f for f in UNORDERED.get(type(a), ())]
                event = run.events[i]
                if isinstance(event, cg.OffsetFetch) and event.topics is None:
                    # every offset of the group: Kafka walks its hash maps of topics and partitions
                    self.unordered.append(at + "topics")
            outputs.append(cg.Output(answers=tuple(cg.Answer(i, response_back(a, self.names))
                                                   for i, a, _ in answers)))
        return RunOutput(tuple(outputs), cg.CoordinatorView(now_ms, ()))


# ---------------------------------------------------------------------------------------------
# The target
# ---------------------------------------------------------------------------------------------


def parse(address: str) -> tuple[str, int, Scaling, dict[str, str]]:
    """``kafka://HOST:PORT[?option=value&broker.property=value...]``."""
    from groupspec.wire.cluster import parse_address

    base, _, query = address.partition("?")
    host, port = parse_address(base)
    options: dict[str, float] = {}
    declared: dict[str, str] = {}
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True, strict_parsing=False):
        if key in OPTIONS:
            try:
                options[key] = float(value)
            except ValueError:
                raise InputError("--target", f"{key}={value!r} is not a number of seconds") from None
            if options[key] < 0:
                raise InputError("--target", f"{key} must not be negative")
        elif "." in key:
            declared[key] = value
        else:
            raise InputError("--target", f"unknown option {key!r}: expected one of {', '.join(OPTIONS)} "
                             "or a broker property such as group.max.size")
    return host, port, Scaling(**options), declared


class WireTarget:
    """A live broker at ``kafka://HOST:PORT``, one vector at a time."""

    def __init__(self, host: str, port: int, timeout: float, *, scaling: Scaling = Scaling(),
                 declared: Mapping[str, str] | None = None,
                 connect: Callable[[str, int, str], Conn] | None = None,
                 clock: Callable[[], float] = time.monotonic, wait: Waiter = select_readable) -> None:
        self.host, self.port = host, port
        self.name = f"kafka://{host}:{port}"
        self.timeout = timeout
        self.scaling = scaling
        self.declared = dict(declared or {})
        self.clock = clock
        self.wait = wait
        self._connect = connect or self._real_connect
        assumed = [p for p in ASSUMED if p not in self.declared]
        self.notes: list[str] = [
            f"time 1:1 with the vectors' clocks; per-vector budget {scaling.budget_s:g} s",
            "not observable over the wire, so not judged: the records a broker writes and its "
            "internal state (the view)",
        ]
        if assumed:
            self.notes.append(f"taken at Kafka's defaults (the wire cannot ask): {', '.join(assumed)}")
        self._delay_ms: float | None = None
        #: The broker's settings read with DescribeConfigs (None: not asked yet).
        self._read: dict[str, str] | None = None
        self._session_ok: dict[int, bool] = {}

    @classmethod
    def from_address(cls, address: str, timeout: float) -> WireTarget:
        host, port, scaling, declared = parse(address)
        return cls(host, port, timeout, scaling=scaling, declared=declared)

    def _real_connect(self, host: str, port: int, client_id: str) -> Conn:
        from groupspec.wire import Connection

        return Connection.connect(host, port, timeout=max(self.timeout, 1.0), client_id=client_id)

    def close(self) -> None:
        pass

    def call(self, request_id: str, machine: str, handler: str, doc: Any) -> Response:
        from groupspec.conformance.wire_txn import TxnError
        from groupspec.wire import NoCommonVersionError, WireError

        if machine == "share_partition" and handler == "run":
            from groupspec.conformance import wire_share_partition

            return wire_share_partition.call(self, doc)
        if handler != "run" or machine not in ("classic_group", "share_group"):
            why = NOT_DRIVEN.get(machine, "not driven over the wire yet")
            return Response(unsupported=f"the kafka:// target realises classic_group/run, "
                            f"share_group/run and share_partition/run; {machine}/{handler}: {why}")
        if machine == "share_group":
            from groupspec.conformance import share_group_json as form
        else:
            from groupspec.conformance import classic_group_json as form  # type: ignore[no-redef]
        try:
            run = form.run_input_from_json(doc)
        except InputError as exc:
            return Response(error=("invalid_input", str(exc)))
        try:
            if machine == "share_group":
                share_plan(run, self.scaling)
                problems = share_assumed_problems(run, self.declared, self._broker_settings())
            else:
                plan(run, self.scaling)
                problems = assumed_problems(run, self.declared, self._broker_settings())
            if problems:
                raise Unrealisable("; ".join(problems))
            output, unobserved, unordered = self._run(machine, run)
        except Unrealisable as exc:
            return Response(unsupported=str(exc))
        except NoCommonVersionError as exc:  # a broker without an API the run needs
            return Response(unsupported=f"the broker does not speak what the run needs: {exc}")
        except WireError as exc:
            return Response(broken=f"{type(exc).__name__}: {exc}")
        except TxnError as exc:  # the broker refused a step of a transaction the run plays
            return Response(broken=f"transaction: {exc}")
        return Response(output=form.run_output_to_json(output), unobserved=unobserved,
                        unordered=unordered)

    # -- the broker's side of the configuration ---------------------------------------------

    def _broker_settings(self) -> dict[str, str]:
        """The settings the runs would otherwise assume, read once from the bootstrap broker with
        DescribeConfigs (offsets.retention.minutes as offsets.retention.ms); empty when it will
        not say, and the assumptions stand."""
        from groupspec.wire import WireError
        from groupspec.wire import messages as w

        if self._read is not None:
            return self._read
        self._read = {}
        from groupspec.conformance.wire_share_partition import ASSUMED as PARTITION_ASSUMED

        wanted = (*ASSUMED, *SHARE_ASSUMED, *PARTITION_ASSUMED)
        keys = [p for p in wanted if p != "offsets.retention.ms"]
        try:
            conn = self._connect(self.host, self.port, "groupspec")
            try:
                brokers = conn.request(w.MetadataRequest(topics=())).brokers
                node = next((b.node_id for b in brokers if (b.host, b.port) == (self.host, self.port)),
                            brokers[0].node_id if brokers else None)
                read = broker_configs(conn, node, (*keys, "offsets.retention.minutes"))
            finally:
                conn.close()
        except (WireError, Unrealisable):
            return self._read
        minutes = read.pop("offsets.retention.minutes", None)
        if minutes is not None and minutes.isdigit():
            read["offsets.retention.ms"] = str(int(minutes) * 60_000)
        self._read = {k: v for k, v in read.items() if k in wanted}
        still = [p for p in ASSUMED if p not in self.declared and p not in self._read]
        self.notes = [n for n in self.notes if not n.startswith("taken at Kafka's defaults")]
        if still:
            self.notes.append(f"taken at Kafka's defaults (the wire cannot ask): {', '.join(still)}")
        if self._read:
            self.notes.append(f"read from the broker (DescribeConfigs): {', '.join(sorted(self._read))}")
        return self._read

    def _check_config(self, run: Any, conn: Conn) -> None:
        config = run.config
        for s in sorted({e.session_timeout_ms for e in run.events if isinstance(e, cg.JoinGroup)}):
            want = config.min_session_timeout_ms <= s <= config.max_session_timeout_ms
            if s not in self._session_ok:
                self._session_ok[s] = self._probe_session(conn, s)
            if self._session_ok[s] != want:
                raise Unrealisable(
                    f"session timeout {s} ms is {'inside' if want else 'outside'} the vector's "
                    f"[{config.min_session_timeout_ms}, {config.max_session_timeout_ms}] but the "
                    f"broker {'refuses' if want else 'accepts'} it (group.min/max.session.timeout.ms)")
        if any(isinstance(e, cg.JoinGroup) for e in run.events):
            if self._delay_ms is None:
                self._delay_ms = self._probe_delay(conn, config.initial_rebalance_delay_ms)
            tolerance = max(300.0, 0.1 * config.initial_rebalance_delay_ms)
            if abs(self._delay_ms - config.initial_rebalance_delay_ms) > tolerance:
                raise Unrealisable(
                    f"the vector's initial rebalance delay is {config.initial_rebalance_delay_ms} ms, "
                    f"the broker's measured {self._delay_ms:.0f} ms (group.initial.rebalance.delay.ms)")

    def _probe_session(self, conn: Conn, session_ms: int) -> bool:
        """Whether the broker takes ``session_ms`` (a first JoinGroup on a fresh group: refused
        with INVALID_SESSION_TIMEOUT before any member is made)."""
        from groupspec.wire.translate import from_wire, to_wire

        join = cg.JoinGroup(f"groupspec-probe-{uuid.uuid4().hex}", session_timeout_ms=session_ms,
                            rebalance_timeout_ms=max(session_ms, 1000),
                            protocols=(cg.Protocol("range", b""),))
        request, version = to_wire(join)
        answer = from_wire(conn.request(request, version), version or 9)
        return bool(answer.error != Errors.INVALID_SESSION_TIMEOUT)

    def _probe_delay(self, conn: Conn, expected_ms: int) -> float:
        """The broker's initial rebalance delay, measured: how long a lone member's join parks."""
        from groupspec.wire.translate import from_wire, to_wire

        group = f"groupspec-probe-{uuid.uuid4().hex}"
        join = cg.JoinGroup(group, session_timeout_ms=45_000,
                            rebalance_timeout_ms=max(2 * expected_ms, 10_000),
                            protocols=(cg.Protocol("range", b""),))
        request, version = to_wire(join)
        first = from_wire(conn.request(request, version), version or 9)
        if first.error != Errors.MEMBER_ID_REQUIRED:
            raise Unrealisable(f"the delay probe's first join got {first.error.name}")
        member = first.member_id
        request, version = to_wire(dataclasses.replace(join, member_id=member))
        probe = self._connect(self.host, self.port, "groupspec-probe")
        try:
            started = self.clock()
            pending = probe.send(request, version)
            ready = self.wait([probe], max(2 * expected_ms / 1000, 10.0))
            if not ready:
                raise Unrealisable("the delay probe's join was not answered in time")
            probe.receive(pending)
            measured = (self.clock() - started) * 1000
            leave = cg.LeaveGroup(group, (cg.MemberIdentity(member),))
            request, version = to_wire(leave)
            probe.request(request, version)
        finally:
            probe.close()
        return measured

    # -- one run ---------------------------------------------------------------------------

    def _run(self, machine: str, run: Any) -> tuple[Any, tuple[str, ...], tuple[str, ...]]:
        """Set the broker up for the run (coordinator found and loaded, configuration checked,
        topics created) and drive it."""
        from groupspec.wire.cluster import find_coordinator

        names = Names(f"gs{uuid.uuid4().hex[:10]}")
        control = self._connect(self.host, self.port, "groupspec")
        try:
            groups = sorted({names.group(g) for g in _group_ids(run.events)} - {""})
            where = {find_coordinator(cast(Any, control), g) for g in groups}
            if len(where) > 1:
                raise Unrealisable("the run's groups have different coordinators; the wire target "
                                   "drives one")
            host, port = (self.host, self.port)
            node_id = None
            if where:
                node = where.pop()
                host, port, node_id = node.host, node.port, node.node_id
            coordinator = control if (host, port) == (self.host, self.port) \
                else self._connect(host, port, "groupspec")
            try:
                for g in groups:
                    _wait_loaded(coordinator, g, self.clock, self.timeout)
                if machine == "share_group":
                    if any(isinstance(e, SHARE_CONFIG_EVENTS) for e in run.events):
                        _check_share_bounds(run, coordinator, node_id)
                    ids = _create_share_topics(control, names, run.topics, self.clock, self.timeout)
                    return ShareRun(run, names, ids, coordinator, self.scaling, clock=self.clock,
                                    wait=self.wait).drive(), SHARE_UNOBSERVED, ()
                self._check_config(run, coordinator)
                _create_topics(control, names, run.events, self.clock, self.timeout)
                txn = None
                if any(isinstance(e, (cg.TxnOffsetCommit, cg.TxnMarker)) for e in run.events):
                    from groupspec.conformance.wire_txn import Transactions

                    txn = Transactions(names.tag, lambda h, p: self._connect(h, p, "groupspec-txn"),
                                       control, clock=self.clock, timeout=max(self.timeout, 10.0))
                driver = ClassicRun(run, names, lambda client: self._connect(host, port, client),
                                    self.scaling, clock=self.clock, wait=self.wait,
                                    answer_timeout=max(self.timeout, 1.0), txn=txn)
                try:
                    output = driver.drive()
                    return output, tuple(driver.unobserved), tuple(driver.unordered)
                finally:
                    driver.close()
                    if txn is not None:
                        txn.close()
            finally:
                if coordinator is not control:
                    coordinator.close()
        finally:
            control.close()


def _fetch_version(conn: Conn, event: Any) -> int | None:
    """OffsetFetch at v9 at most: from v10 topics go by id, and the run maps names."""
    return min(conn.version(9), 9) if isinstance(event, cg.OffsetFetch) else None


def _group_ids(events: Iterable[Any]) -> set[str]:
    out: set[str] = set()
    for e in events:
        if isinstance(e, (cg.DescribeGroups, cg.DeleteGroups)):
            out.update(e.group_ids)
        elif isinstance(getattr(e, "group_id", None), str):
            out.add(e.group_id)
    return out


def _wait_loaded(conn: Conn, group: str, clock: Callable[[], float], timeout: float) -> None:
    """Ask for the group's offsets until its coordinator has loaded (a fresh broker loads its
    offsets partitions for a while after FindCoordinator already names the node)."""
    from groupspec.wire.translate import from_wire, to_wire

    deadline = clock() + max(timeout, 30.0)
    request, version = to_wire(cg.OffsetFetch(group), _fetch_version(conn, cg.OffsetFetch(group)))
    while True:
        answer = from_wire(conn.request(request, version), version or conn.version(9))
        if answer.error not in _LOADING:
            return
        if clock() >= deadline:
            raise Unrealisable(f"the coordinator of {group!r} never loaded: {answer.error.name}")
        time.sleep(0.1)


def _create_topics(conn: Conn, names: Names, events: Iterable[Any], clock: Callable[[], float],
                   timeout: float) -> None:
    """Create every topic the run commits or fetches offsets for, with enough partitions, and
    wait until the broker's metadata shows them led."""
    from groupspec.wire import messages as w

    need: dict[str, int] = {}
    for e in events:
        if isinstance(e, (cg.OffsetCommit, cg.TxnOffsetCommit)):
            for t in e.topics:
                for p in t.partitions:
                    need[t.name] = max(need.get(t.name, 1), p.partition + 1)
        elif isinstance(e, (cg.OffsetFetch, cg.OffsetDelete)) and e.topics is not None:
            for ft in e.topics:
                need[ft.name] = max(need.get(ft.name, 1), max(ft.partitions, default=0) + 1)
    if not need:
        return
    topics = tuple(w.CreateTopicsRequest.CreatableTopic(names.topic(n), count, -1, (), ())
                   for n, count in sorted(need.items()))
    answer = conn.request(w.CreateTopicsRequest(topics=topics, timeout_ms=int(timeout * 1000)))
    for t in answer.topics:
        if t.error_code not in (0, 36):  # TOPIC_ALREADY_EXISTS
            raise Unrealisable(f"cannot create topic {t.name!r}: error code {t.error_code} "
                               f"{t.error_message or ''}".rstrip())
        if t.error_code == 0:
            names.topic_ids[names.topic_back(t.name)] = str(t.topic_id)
    wanted = {names.topic(n): count for n, count in need.items()}
    deadline = clock() + max(timeout, 10.0)
    request = w.MetadataRequest(topics=tuple(w.MetadataRequest.MetadataRequestTopic(name=n) for n in wanted),
                                allow_auto_topic_creation=False)
    while True:
        meta = conn.request(request)
        led = {t.name: sum(p.leader_id >= 0 for p in t.partitions) for t in meta.topics if t.error_code == 0}
        if all(led.get(n, 0) >= c for n, c in wanted.items()):
            return
        if clock() >= deadline:
            raise Unrealisable(f"the run's topics were not ready within {max(timeout, 10.0):g} s")
        time.sleep(0.05)


# ---------------------------------------------------------------------------------------------
# share_group: ShareGroupHeartbeat requests and clock advances
# ---------------------------------------------------------------------------------------------

#: What the output of a share_group run leaves to the broker's inside: the records, the
#: InitializeShareGroupState requests its share coordinator answers by itself, the view.
SHARE_UNOBSERVED = ("outputs[].records", "outputs[].initialize", "view")
#: Kafka's defaults (GroupCoordinatorConfig) for what the wire cannot ask, by broker property.
SHARE_ASSUMED = {
    "group.share.max.size": ("max_size", 200),
    "group.share.heartbeat.interval.ms": ("heartbeat_interval_ms", 5_000),
    "group.share.session.timeout.ms": ("session_timeout_ms", 45_000),
}


def share_plan(run: Any, scaling: Scaling) -> None:
    """Raise Unrealisable for a share_group run the wire cannot realise (module docstring)."""
    from groupspec.types import share_group as sg

    why_not = {
        sg.PersisterAnswer: "the broker's own share coordinator answers the initialization "
                            "requests; a scripted persister answer cannot be realised",
        sg.UpdateMetadata: "a metadata change (topics deleted, grown or recreated) needs admin "
                           "APIs groupspec.wire does not speak",
        sg.Restart: "a coordinator restart cannot be caused over the wire",
    }
    for event in run.events:
        why = why_not.get(type(event))
        if why is not None:
            raise Unrealisable(f"{type(event).__name__}: {why}")
    if run.config.initial_group_epoch != 0:
        raise Unrealisable(f"the vector's groups start at epoch {run.config.initial_group_epoch}; "
                           "a broker's new groups start at 0")
    known = {t.name for t in run.topics}
    subscribed: set[str] = set()
    for event in run.events:
        if not isinstance(event, sg.ShareGroupHeartbeat):
            continue
        if event.group_id in subscribed:
            raise Unrealisable(
                f"group {event.group_id!r} subscribed to a topic of the metadata, and a later "
                "heartbeat's answer depends on when the broker's share coordinator finishes "
                "initializing its partitions, which the vector pins (no PersisterAnswer) and the "
                "broker decides by itself")
        if set(event.subscribed_topic_names or ()) & known:
            subscribed.add(event.group_id)
    last = run.start_ms
    for event in run.events:
        if isinstance(event, sg.AdvanceClock) and event.to_ms > last:
            if (event.to_ms - last) / 1000 < scaling.resolution_s:
                raise Unrealisable(f"the clock steps from {last} to {event.to_ms} ms, finer "
                                   f"than real time can realise (resolution_s={scaling.resolution_s:g})")
            last = event.to_ms
    if (last - run.start_ms) / 1000 > scaling.budget_s:
        raise Unrealisable(f"the clock advances {last - run.start_ms} ms, which real time 1:1 cannot "
                           f"realise within the per-vector budget of {scaling.budget_s:g} s (?budget_s=)")


def share_assumed_problems(run: Any, declared: Mapping[str, str],
                           read: Mapping[str, str] | None = None) -> list[str]:
    """As :func:`assumed_problems`, for the share group settings a heartbeat's answer shows."""
    from groupspec.types import share_group as sg

    members = {(e.group_id, e.member_id) for e in run.events if isinstance(e, sg.ShareGroupHeartbeat)}
    problems = []
    for prop, (field, default) in SHARE_ASSUMED.items():
        want = getattr(run.config, field)
        try:
            have = int(declared.get(prop, (read or {}).get(prop, default)))
        except ValueError:
            raise InputError("--target", f"{prop}={declared[prop]!r} is not a number") from None
        if field == "max_size":
            matters = len(members) > min(want, have)
        elif field == "heartbeat_interval_ms":
            matters = bool(members)  # every successful answer carries it
        else:
            matters = any(isinstance(e, sg.AdvanceClock) for e in run.events)
        if want != have and matters:
            source = _source(prop, declared, read or {})
            problems.append(f"the vector needs {prop}={want}, the broker has {have} ({source})")
    return problems


def _create_share_topics(conn: Conn, names: Names, topics: Sequence[Any], clock: Callable[[], float],
                         timeout: float) -> dict[str, str]:
    """Create the run's metadata image under unique names; the vector's topic id -> the broker's."""
    from groupspec.wire import messages as w

    if not topics:
        return {}
    if any(t.racks and any(t.racks) for t in topics):
        raise Unrealisable("the vector's topics have racks; a test broker's partitions have none")
    created = tuple(w.CreateTopicsRequest.CreatableTopic(names.topic(t.name), t.partitions, -1, (), ())
                    for t in topics)
    answer = conn.request(w.CreateTopicsRequest(topics=created, timeout_ms=int(timeout * 1000)))
    for r in answer.topics:
        if r.error_code != 0:
            raise Unrealisable(f"cannot create topic {r.name!r}: error code {r.error_code} "
                               f"{r.error_message or ''}".rstrip())
    ids = {names.topic_back(r.name): str(r.topic_id) for r in answer.topics}
    deadline = clock() + max(timeout, 10.0)
    request = w.MetadataRequest(topics=tuple(w.MetadataRequest.MetadataRequestTopic(name=names.topic(t.name))
                                             for t in topics), allow_auto_topic_creation=False)
    while True:
        meta = conn.request(request)
        led = {t.name: sum(p.leader_id >= 0 for p in t.partitions) for t in meta.topics if t.error_code == 0}
        if all(led.get(names.topic(t.name), 0) >= t.partitions for t in topics):
            break
        if clock() >= deadline:
            raise Unrealisable(f"the run's topics were not ready within {max(timeout, 10.0):g} s")
        time.sleep(0.05)
    return {t.topic_id: ids[t.name] for t in topics}


#: The broker settings that bound a share group's own session timeout and heartbeat interval,
#: by the vector's config field.
SHARE_BOUNDS = {
    "group.share.min.session.timeout.ms": "min_session_timeout_ms",
    "group.share.max.session.timeout.ms": "max_session_timeout_ms",
    "group.share.min.heartbeat.interval.ms": "min_heartbeat_interval_ms",
    "group.share.max.heartbeat.interval.ms": "max_heartbeat_interval_ms",
    "group.share.session.timeout.ms": "session_timeout_ms",
    "group.share.heartbeat.interval.ms": "heartbeat_interval_ms",
}


def _share_config_events() -> tuple[type, ...]:
    from groupspec.types import share_group as sg

    return (sg.SetGroupConfig,)


SHARE_CONFIG_EVENTS = _share_config_events()


def broker_configs(conn: Conn, node_id: int | None, keys: Sequence[str]) -> dict[str, str]:
    """The broker's values of ``keys`` (DescribeConfigs on its BROKER resource); Unrealisable if it
    will not say."""
    from groupspec.wire import messages as w
    from groupspec.wire.messages.configs import RESOURCE_BROKER

    if node_id is None:
        raise Unrealisable("the broker's node id is unknown, so its settings cannot be read")
    resource = w.DescribeConfigsRequest.DescribeConfigsResource(RESOURCE_BROKER, str(node_id), tuple(keys))
    answer = conn.request(w.DescribeConfigsRequest(resources=(resource,)))
    if len(answer.results) != 1 or answer.results[0].error_code != 0:
        code = answer.results[0].error_code if answer.results else "none"
        raise Unrealisable(f"DescribeConfigs of broker {node_id} answered error code {code}")
    return {c.name: c.value for c in answer.results[0].configs if c.value is not None}


def _check_share_bounds(run: Any, conn: Conn, node_id: int | None) -> None:
    """A run that sets a group's configuration is answered by the broker's bounds: they must be
    the vector's (read from the broker, not assumed)."""
    have = broker_configs(conn, node_id, tuple(SHARE_BOUNDS))
    problems = []
    for prop, field in SHARE_BOUNDS.items():
        want = getattr(run.config, field)
        if have.get(prop) != str(want):
            problems.append(f"the vector needs {prop}={want}, the broker has {have.get(prop, 'no value')}")
    if problems:
        raise Unrealisable("; ".join(problems) + " (read with DescribeConfigs)")


#: DescribeConfigs' ConfigSource for a group's own override (Kafka's ConfigSource.GROUP_CONFIG).
GROUP_CONFIG_SOURCE = 8


class ShareRun:
    """One share_group run: each heartbeat is answered at once, so one connection serves all."""

    def __init__(self, run: Any, names: Names, topic_ids: Mapping[str, str], conn: Conn,
                 scaling: Scaling, *, clock: Callable[[], float] = time.monotonic,
                 wait: Waiter = select_readable) -> None:
        self.run, self.names, self.conn, self.scaling = run, names, conn, scaling
        self.clock, self.wait = clock, wait
        self.back = {broker: vector for vector, broker in topic_ids.items()}

    def _applied(self, event: Any) -> None:
        """Wait until the broker describes the group's configuration as set (the change goes
        through the metadata log before the coordinator sees it)."""
        from groupspec.wire import messages as w
        from groupspec.wire.messages.configs import RESOURCE_GROUP
        from groupspec.wire.translate import SHARE_HEARTBEAT_INTERVAL, SHARE_SESSION_TIMEOUT

        wanted = {SHARE_SESSION_TIMEOUT: event.session_timeout_ms,
                  SHARE_HEARTBEAT_INTERVAL: event.heartbeat_interval_ms}
        resource = w.DescribeConfigsRequest.DescribeConfigsResource(RESOURCE_GROUP, event.group_id,
                                                                    tuple(wanted))
        deadline = self.clock() + 10.0
        while True:
            answer = self.conn.request(w.DescribeConfigsRequest(resources=(resource,)))
            seen = {c.name: c for r in answer.results for c in r.configs}
            if all(c is not None and ((c.config_source == GROUP_CONFIG_SOURCE and c.value == str(v))
                                      if v is not None else c.config_source != GROUP_CONFIG_SOURCE)
                   for c, v in ((seen.get(n), v) for n, v in wanted.items())):
                return
            if self.clock() >= deadline:
                raise Unrealisable(f"the broker did not describe {event.group_id!r}'s configuration "
                                   "as set within 10 s")
            self.wait([], 0.02)

    def _out(self, event: Any) -> Any:
        from groupspec.types import share_group as sg

        r = dataclasses.replace
        if isinstance(event, sg.SetGroupConfig):
            return r(event, group_id=self.names.group(event.group_id))
        if isinstance(event, sg.DeleteGroups):
            return r(event, group_ids=tuple(self.names.group(g) for g in event.group_ids))
        if not isinstance(event, sg.ShareGroupHeartbeat):
            return event
        topics = event.subscribed_topic_names
        return r(event, group_id=self.names.group(event.group_id),
                 subscribed_topic_names=None if topics is None
                 else tuple(self.names.topic(t) for t in topics))

    def _back(self, answer: Any) -> Any:
        from groupspec.types import share_group as sg

        if isinstance(answer, cg.DeleteGroupsResponse):
            return sg.DeleteGroupsResponse(tuple(
                sg.GroupResult(self.names.group_back(g.group_id) or g.group_id, g.error)
                for g in answer.results))
        if not isinstance(answer, sg.ShareGroupHeartbeatResponse) or answer.assignment is None:
            return answer
        return dataclasses.replace(answer, assignment=tuple(
            dataclasses.replace(t, topic_id=self.back.get(t.topic_id, t.topic_id))
            for t in answer.assignment))

    def drive(self) -> Any:
        from groupspec.conformance.share_group_json import RunOutput
        from groupspec.types import share_group as sg
        from groupspec.wire.translate import from_wire, to_wire

        run, s = self.run, self.scaling
        origin = self.clock()
        now_ms = run.start_ms
        shift = 0.0
        outputs = []
        for k, event in enumerate(run.events):
            shift = max(shift, self.clock() - origin - (now_ms - run.start_ms) / 1000)
            if isinstance(event, sg.AdvanceClock):
                if event.to_ms > now_ms:
                    now_ms = event.to_ms
                    target = origin + (now_ms - run.start_ms) / 1000 + shift + s.slack_s
                    self.wait([], target - self.clock())
                outputs.append(sg.Output())
                continue
            request, version = to_wire(self._out(event))
            pending = self.conn.send(request, version)
            answer = from_wire(self.conn.receive(pending), pending.version)
            if isinstance(event, sg.SetGroupConfig) and answer.error == Errors.NONE:
                self._applied(self._out(event))
            outputs.append(sg.Output(answers=(sg.Answer(k, self._back(answer)),)))
        return RunOutput(tuple(outputs), sg.ShareCoordinatorView(now_ms, (), ()))

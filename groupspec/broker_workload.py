"""Real clients on a real broker, so that a real coordinator writes the logs groupspec reads.

librdkafka (the confluent-kafka wheel) drives a Kafka node through the three kinds of group its
coordinators log: a classic group with joins, a rebalance, commits and leaves; a KIP-848
(``group.protocol=consumer``) group; and a share group in explicit mode that ACCEPTs, RELEASEs
and REJECTs records, so released records are delivered again. What the broker reported at the
end (each group's state and committed offsets, through the admin API) is returned with the
names used, for the comparisons that replay the logs (tests/broker/test_real_logs.py).

Then a second set of groups is left running: a classic group of three members (one static), a
KIP-848 group of two and a share group of one, each settled with its assignments and commits.
The broker is asked about every group (``broker_view``: DescribeGroups, a Heartbeat probe for the
classic generation, ConsumerGroupDescribe, ShareGroupDescribe, OffsetFetch and
DescribeShareGroupOffsets through groupspec.wire) while those members are still in, and
``at_end`` runs before any of them leaves (stop the broker there, or copy its segments), so the
logs end in the state the broker described, not in the trivial one of groups everyone left.

Real time is unavoidable here (a live broker's clock); every wait is bounded.
"""

from __future__ import annotations

import importlib
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from groupspec.impl.codec.consumer_protocol import decode_assignment
from groupspec.types import GroupspecError
from groupspec.wire import Connection
from groupspec.wire.cluster import parse_address
from groupspec.wire.messages import (
    ConsumerGroupDescribeRequest,
    DescribeGroupsRequest,
    DescribeShareGroupOffsetsRequest,
    HeartbeatRequest,
    OffsetFetchRequest,
    ShareGroupDescribeRequest,
)

MESSAGES = 20
LIVE_PARTITIONS = 3
LIVE_MESSAGES = 30
#: The classic generation is not in DescribeGroups; a Heartbeat at the right one is accepted.
MAX_GENERATION = 200


class WorkloadError(GroupspecError):
    """The workload could not run: confluent-kafka missing, or the broker refused a step."""


@dataclass
class Reported:
    """Names the workload used and what the broker said about them when it ended."""

    topic: str
    classic_group: str
    consumer_group: str
    share_group: str
    #: group id -> {partition: committed offset} as the admin API listed them.
    offsets: dict[str, dict[int, int]] = field(default_factory=dict)
    #: group id -> state name as the admin API described it ("EMPTY", "STABLE", ...).
    states: dict[str, str] = field(default_factory=dict)
    #: (partition, offset) -> acknowledgement types the share consumer sent for it, in order.
    share_acks: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    #: How many times the share consumer received each (partition, offset).
    share_deliveries: dict[tuple[int, int], int] = field(default_factory=dict)
    #: The groups left running, on their own topic.
    live_topic: str = ""
    live_classic: str = ""
    live_consumer: str = ""
    live_share: str = ""
    #: group id -> what the broker answered for it (``broker_view``), for every group above,
    #: taken while the live groups' members were still in.
    described: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: "topic-partition" -> the partition's end offset (a share-partition's lag is counted to it).
    end_offsets: dict[str, int] = field(default_factory=dict)


def _client() -> tuple[Any, Any]:
    """confluent-kafka and its admin module (typed Any: a test peer, not part of groupspec's API)."""
    try:
        return importlib.import_module("confluent_kafka"), importlib.import_module("confluent_kafka.admin")
    except ImportError:
        raise WorkloadError("the workload needs confluent-kafka (pip install confluent-kafka)") from None


def _until(done: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        if time.monotonic() > deadline:
            raise WorkloadError(f"not within {timeout_s:g} s: {what}")


def run(bootstrap: str, *, prefix: str | None = None, timeout_s: float = 60.0,
        at_end: Callable[[Reported], None] | None = None, close: bool = True) -> Reported:
    """Run the whole workload against ``bootstrap``; names get a fresh suffix unless given.

    ``at_end`` is called once the broker has described every group and before any live member
    leaves; with ``close=False`` the live clients are then left as they are (for a broker that
    ``at_end`` stopped: closing would wait on it), else they close and leave their groups.
    """
    ck, api = _client()

    tag = prefix or f"wl-{uuid.uuid4().hex[:6]}"
    rep = Reported(f"{tag}-topic", f"{tag}-classic", f"{tag}-consumer", f"{tag}-share",
                   live_topic=f"{tag}-live-topic", live_classic=f"{tag}-live-classic",
                   live_consumer=f"{tag}-live-consumer", live_share=f"{tag}-live-share")
    admin = api.AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([api.NewTopic(rep.topic, 2, 1),
                                       api.NewTopic(rep.live_topic, LIVE_PARTITIONS, 1)]).values():
        future.result(timeout=timeout_s)
    producer = ck.Producer({"bootstrap.servers": bootstrap})
    for i in range(MESSAGES):
        producer.produce(rep.topic, value=b"m%d" % i, partition=i % 2)
    for i in range(LIVE_MESSAGES):
        producer.produce(rep.live_topic, value=b"l%d" % i, partition=i % LIVE_PARTITIONS)
    if producer.flush(timeout_s) != 0:
        raise WorkloadError("the producer did not deliver every message")

    _classic(ck, bootstrap, rep, timeout_s)
    _consumer_protocol(ck, bootstrap, rep, timeout_s)
    for group in (rep.share_group, rep.live_share):
        share_config = api.ConfigResource(api.ResourceType.GROUP, group, incremental_configs=[
            api.ConfigEntry("share.auto.offset.reset", "earliest",
                            incremental_operation=api.AlterConfigOpType.SET)])
        for future in admin.incremental_alter_configs([share_config]).values():
            future.result(timeout=timeout_s)
    _share(ck, bootstrap, rep, timeout_s)
    _report(ck, admin, rep, timeout_s)
    live: list[Any] = []
    try:
        live += _live_classic(ck, bootstrap, rep, timeout_s)
        live += _live_consumer(ck, bootstrap, rep, timeout_s)
        live += _live_share(ck, bootstrap, rep, timeout_s)
        rep.described = broker_view(bootstrap, classic=[rep.classic_group, rep.live_classic],
                                    consumer=[rep.consumer_group, rep.live_consumer],
                                    share=[rep.share_group, rep.live_share], timeout_s=timeout_s)
        latest = api.OffsetSpec.latest()
        wanted = {ck.TopicPartition(rep.topic, p): latest for p in range(2)}
        wanted |= {ck.TopicPartition(rep.live_topic, p): latest for p in range(LIVE_PARTITIONS)}
        for tp, future in admin.list_offsets(wanted).items():
            rep.end_offsets[f"{tp.topic}-{tp.partition}"] = future.result(timeout=timeout_s).offset
        if at_end is not None:
            at_end(rep)
    finally:
        if close:
            for client in live:
                client.close()
    return rep


def _classic(ck: Any, bootstrap: str, rep: Reported, timeout_s: float) -> None:
    """Member a reads and commits alone; b joins (a rebalance); a leaves (another); b leaves."""

    def member(name: str) -> Any:
        consumer = ck.Consumer({
            "bootstrap.servers": bootstrap, "group.id": rep.classic_group, "client.id": name,
            "group.protocol": "classic", "partition.assignment.strategy": "range",
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
        consumer.subscribe([rep.topic])
        return consumer

    a = member("a")
    seen: list[Any] = []

    def read(consumers: list[Any]) -> Callable[[], bool]:
        def step() -> bool:
            for c in consumers:
                m = c.poll(0.1)
                if m is not None and m.error() is None:
                    seen.append(m)
                    c.commit(message=m, asynchronous=False)
            return False
        return step

    _until(lambda: read([a])() or len(seen) >= MESSAGES // 2, timeout_s, "member a reading half")
    b = member("b")
    _until(lambda: read([a, b])() or bool(b.assignment()), timeout_s, "member b assigned after a rebalance")
    a.close()
    _until(lambda: read([b])() or len(b.assignment()) == 2, timeout_s, "member b taking both partitions")
    _until(lambda: read([b])() or len(seen) >= MESSAGES, timeout_s, "every message read")
    b.close()


def _consumer_protocol(ck: Any, bootstrap: str, rep: Reported, timeout_s: float) -> None:
    consumer = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": rep.consumer_group,
                            "group.protocol": "consumer", "enable.auto.commit": False,
                            "auto.offset.reset": "earliest"})
    consumer.subscribe([rep.topic])
    got = 0

    def step() -> bool:
        nonlocal got
        m = consumer.poll(0.1)
        if m is not None and m.error() is None:
            got += 1
            consumer.commit(message=m, asynchronous=False)
        return got >= MESSAGES

    _until(step, timeout_s, "the KIP-848 member reading every message")
    consumer.close()


def _share(ck: Any, bootstrap: str, rep: Reported, timeout_s: float) -> None:
    """Offsets 0, 3, 6, ... ACCEPTed, 1, 4, 7, ... RELEASEd the first time (then ACCEPTed when
    delivered again), 2, 5, 8, ... REJECTed: every record ends finished, some after a redelivery."""
    kinds = ck.AcknowledgeType
    consumer = ck.ShareConsumer({"bootstrap.servers": bootstrap, "group.id": rep.share_group,
                                 "share.acknowledgement.mode": "explicit"})
    consumer.subscribe([rep.topic])
    finished: set[tuple[int, int]] = set()

    def step() -> bool:
        messages = [m for m in consumer.poll(0.5) if m.error() is None]
        for m in messages:
            where = (m.partition(), m.offset())
            rep.share_deliveries[where] = rep.share_deliveries.get(where, 0) + 1
            kind = ("ACCEPT", "RELEASE", "REJECT")[m.offset() % 3]
            if kind == "RELEASE" and rep.share_deliveries[where] > 1:
                kind = "ACCEPT"
            consumer.acknowledge(m, getattr(kinds, kind))
            rep.share_acks.setdefault(where, []).append(kind)
            if kind != "RELEASE":
                finished.add(where)
        if messages:
            consumer.commit_sync(timeout_s)
        return len(finished) >= MESSAGES

    _until(step, timeout_s, "the share consumer finishing every record")
    consumer.close()


def _report(ck: Any, admin: Any, rep: Reported, timeout_s: float) -> None:
    for group in (rep.classic_group, rep.consumer_group):
        request = ck.ConsumerGroupTopicPartitions(group)
        result = admin.list_consumer_group_offsets([request])[group].result(timeout=timeout_s)
        rep.offsets[group] = {tp.partition: tp.offset for tp in result.topic_partitions}
    described = admin.describe_consumer_groups([rep.classic_group, rep.consumer_group])
    for group, future in described.items():
        rep.states[group] = future.result(timeout=timeout_s).state.name


def _poll_all(consumers: list[Any]) -> None:
    """Serve the clients' callbacks (rebalances complete in poll); the records read are dropped."""
    for c in consumers:
        c.poll(0.05)


def _settle_then_commit(ck: Any, members: list[Any], topic: str, agreed: Callable[[], bool], first: int,
                        timeout_s: float, what: str) -> None:
    """Poll until the members hold every partition between them and ``agreed`` (the broker's
    view) says the group is settled; then each commits ``first + partition`` for its own."""
    def settled() -> bool:
        _poll_all(members)
        return sum(len(c.assignment()) for c in members) == LIVE_PARTITIONS and agreed()

    _until(settled, timeout_s, what)
    for c in members:
        c.commit(offsets=[ck.TopicPartition(topic, tp.partition, first + tp.partition)
                          for tp in c.assignment()], asynchronous=False)


def _live_classic(ck: Any, bootstrap: str, rep: Reported, timeout_s: float) -> list[Any]:
    """Three members (``live-c`` static) settle on the three partitions; each commits its own."""
    members = []
    for name, static in (("live-a", None), ("live-b", None), ("live-c", "live-static")):
        config = {"bootstrap.servers": bootstrap, "group.id": rep.live_classic, "client.id": name,
                  "group.protocol": "classic", "partition.assignment.strategy": "range",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  "session.timeout.ms": 30000, "heartbeat.interval.ms": 1000}
        if static is not None:
            config["group.instance.id"] = static
        consumer = ck.Consumer(config)
        consumer.subscribe([rep.live_topic])
        members.append(consumer)

    def stable() -> bool:
        view = broker_view(bootstrap, classic=[rep.live_classic], timeout_s=timeout_s)[rep.live_classic]
        return view["state"] == "Stable" and len(view["members"]) == 3 and view["generation"] is not None

    _settle_then_commit(ck, members, rep.live_topic, stable, 2, timeout_s,
                        "the live classic group stable with three members")
    return members


def _live_consumer(ck: Any, bootstrap: str, rep: Reported, timeout_s: float) -> list[Any]:
    """Two KIP-848 members reconciled to the target assignment, then commits of what they read."""
    members = []
    for name in ("live-x", "live-y"):
        consumer = ck.Consumer({"bootstrap.servers": bootstrap, "group.id": rep.live_consumer,
                                "client.id": name, "group.protocol": "consumer",
                                "enable.auto.commit": False, "auto.offset.reset": "earliest"})
        consumer.subscribe([rep.live_topic])
        members.append(consumer)

    def reconciled() -> bool:
        view = broker_view(bootstrap, consumer=[rep.live_consumer], timeout_s=timeout_s)[rep.live_consumer]
        return (view["state"] == "Stable" and len(view["members"]) == 2
                and view["group_epoch"] == view["assignment_epoch"]
                and all(m["member_epoch"] == view["group_epoch"] and m["assignment"] == m["target_assignment"]
                        and m["assignment"] for m in view["members"]))

    _settle_then_commit(ck, members, rep.live_topic, reconciled, 5, timeout_s,
                        "the live KIP-848 group reconciled with two members")
    return members


def _live_share(ck: Any, bootstrap: str, rep: Reported, timeout_s: float) -> list[Any]:
    """One share member finishes the records it gets: every fourth REJECTed, the rest ACCEPTed."""
    kinds = ck.AcknowledgeType
    consumer = ck.ShareConsumer({"bootstrap.servers": bootstrap, "group.id": rep.live_share,
                                 "client.id": "live-s", "share.acknowledgement.mode": "explicit"})
    consumer.subscribe([rep.live_topic])
    finished: set[tuple[int, int]] = set()

    def step() -> bool:
        messages = [m for m in consumer.poll(0.5) if m.error() is None]
        for m in messages:
            consumer.acknowledge(m, kinds.REJECT if m.offset() % 4 == 3 else kinds.ACCEPT)
            finished.add((m.partition(), m.offset()))
        if messages:
            consumer.commit_sync(timeout_s)
        return len(finished) >= LIVE_MESSAGES

    _until(step, timeout_s, "the live share consumer finishing every record")

    def settled() -> bool:
        view = broker_view(bootstrap, share=[rep.live_share], timeout_s=timeout_s)[rep.live_share]
        return (view["state"] == "Stable" and len(view["members"]) == 1
                and len(view["start_offsets"]) == LIVE_PARTITIONS)

    _until(settled, timeout_s, "the live share group stable with state for every partition")
    return [consumer]


def _names(assignment: Any) -> list[str]:
    return sorted(f"{tp.topic_name}-{p}" for tp in assignment.topic_partitions for p in tp.partitions)


def broker_view(bootstrap: str, *, classic: Sequence[str] = (), consumer: Sequence[str] = (),
                share: Sequence[str] = (), timeout_s: float = 30.0) -> dict[str, dict[str, Any]]:
    """What the broker answers about each group, as JSON-ready dicts (groupspec.wire).

    Classic groups: DescribeGroups (state, protocol type and name, members with client ids,
    hosts, instance ids and decoded assignments) and the generation, which no describe API
    returns: the one generation at which a Heartbeat of a member is accepted (None for a group
    without members). KIP-848 groups: ConsumerGroupDescribe. Share groups: ShareGroupDescribe and
    DescribeShareGroupOffsets. Committed offsets of classic and KIP-848 groups: OffsetFetch.
    """
    host, port = parse_address(bootstrap)
    out: dict[str, dict[str, Any]] = {}
    conn = Connection.connect(host, port, timeout=timeout_s, client_id="groupspec-workload")
    try:
        if classic:
            answer = conn.request(DescribeGroupsRequest(groups=tuple(classic)))
            for g in answer.groups:
                members = [{"member_id": m.member_id, "group_instance_id": m.group_instance_id,
                            "client_id": m.client_id, "client_host": m.client_host,
                            "assignment": _classic_assignment(m.member_assignment)} for m in g.members]
                out[g.group_id] = {"kind": "classic", "error_code": g.error_code, "state": g.group_state,
                                   "protocol_type": g.protocol_type, "protocol": g.protocol_data,
                                   "generation": _generation(conn, g.group_id, g.members),
                                   "members": sorted(members, key=lambda m: m["member_id"])}
        if consumer:
            answer = conn.request(ConsumerGroupDescribeRequest(group_ids=tuple(consumer)))
            for c in answer.groups:
                out[c.group_id] = {
                    "kind": "consumer", "error_code": c.error_code, "state": c.group_state,
                    "group_epoch": c.group_epoch, "assignment_epoch": c.assignment_epoch,
                    "assignor": c.assignor_name, "members": sorted((
                        {"member_id": m.member_id, "instance_id": m.instance_id, "client_id": m.client_id,
                         "client_host": m.client_host, "member_epoch": m.member_epoch,
                         "assignment": _names(m.assignment), "target_assignment": _names(m.target_assignment)}
                        for m in c.members), key=lambda m: m["member_id"])}
        for group in [*classic, *consumer]:
            out[group]["offsets"] = _committed(conn, group)
        if share:
            answer = conn.request(ShareGroupDescribeRequest(group_ids=tuple(share)))
            for sg in answer.groups:
                out[sg.group_id] = {
                    "kind": "share", "error_code": sg.error_code, "state": sg.group_state,
                    "group_epoch": sg.group_epoch, "assignment_epoch": sg.assignment_epoch,
                    "members": sorted(({"member_id": m.member_id, "client_id": m.client_id,
                                        "client_host": m.client_host, "member_epoch": m.member_epoch,
                                        "assignment": _names(m.assignment)} for m in sg.members),
                                      key=lambda m: m["member_id"])}
            offsets = conn.request(DescribeShareGroupOffsetsRequest(groups=tuple(
                DescribeShareGroupOffsetsRequest.Group(group_id=g, topics=None) for g in share)))
            for og in offsets.groups:
                out[og.group_id]["start_offsets"] = sorted((
                    {"topic": t.topic_name, "partition": p.partition_index, "start_offset": p.start_offset,
                     "leader_epoch": p.leader_epoch, "lag": p.lag, "error_code": p.error_code}
                    for t in og.topics for p in t.partitions), key=lambda r: (r["topic"], r["partition"]))
    finally:
        conn.close()
    return out


def _classic_assignment(data: bytes) -> list[str]:
    if not data:
        return []
    decoded, _ = decode_assignment(data)
    return sorted(f"{tp.topic}-{p}" for tp in decoded.assigned_partitions for p in tp.partitions)


def _generation(conn: Connection, group: str, members: Any) -> int | None:
    """The generation at which the broker accepts a heartbeat of the group's first member.

    A heartbeat at the group's own generation from one of its members only resets that member's
    session timer (the member heartbeats at that generation anyway); at any other generation it
    is refused (ILLEGAL_GENERATION) and changes nothing, so probing writes nothing to the log.
    """
    if not members:
        return None
    m = members[0]
    for generation in range(MAX_GENERATION):
        answer = conn.request(HeartbeatRequest(group_id=group, generation_id=generation,
                                               member_id=m.member_id, group_instance_id=m.group_instance_id))
        if answer.error_code == 0:
            return generation
    return None


def _committed(conn: Connection, group: str) -> list[list[Any]]:
    """[topic, partition, offset] of every committed offset (OffsetFetch at most v9: names, not ids)."""
    version = min(conn.version(9), 9)
    answer = conn.request(OffsetFetchRequest(groups=(OffsetFetchRequest.OffsetFetchRequestGroup(
        group_id=group, topics=None),), require_stable=True), version)
    [g] = answer.groups
    return sorted([t.name, p.partition_index, p.committed_offset] for t in g.topics for p in t.partitions)


def differences(described: dict[str, dict[str, Any]], groups: Sequence[Any],
                end_offsets: dict[str, int]) -> list[str]:
    """Where ``groupspec describe``'s ``groups`` (GroupDescriptions) depart from what the broker
    answered (``broker_view``); empty when they agree on everything the broker told.

    A classic group without members has no generation the broker would confirm (no heartbeat to
    probe with), so only a live group's is compared. Kafka reports a share-partition's in-flight
    state only as its lag (KIP-1226: end offset - start offset - records past the start offset
    in a final state), so the persisted batches are compared through that count.
    """
    found = {g.group_id: g for g in groups}
    out: list[str] = []

    def check(group: str, what: str, ours: Any, theirs: Any) -> None:
        if ours != theirs:
            out.append(f"{group}: {what}: describe {ours!r}, broker {theirs!r}")

    for group, b in sorted(described.items()):
        d = found.get(group)
        if d is None:
            out.append(f"{group}: not in describe's output")
            continue
        check(group, "error code", 0, b["error_code"])
        check(group, "kind", d.kind, b["kind"])
        check(group, "state", d.state, b["state"])
        if b["kind"] == "classic":
            check(group, "protocol type", d.protocol_type, b["protocol_type"])
            check(group, "protocol", d.protocol or "", b["protocol"])
            if b["generation"] is not None:
                check(group, "generation", d.generation, b["generation"])
            check(group, "members", sorted((
                {"member_id": m.member_id, "group_instance_id": m.group_instance_id, "client_id": m.client_id,
                 "client_host": m.host, "assignment": sorted(m.assignment)} for m in d.members),
                key=lambda m: m["member_id"]), b["members"])
        else:
            check(group, "group epoch", d.generation, b["group_epoch"])
            check(group, "assignment epoch", d.assignment_epoch, b["assignment_epoch"])
        if b["kind"] == "consumer":
            check(group, "members", sorted((
                {"member_id": m.member_id, "instance_id": m.group_instance_id, "client_id": m.client_id,
                 "client_host": m.host, "member_epoch": m.member_epoch, "assignment": sorted(m.assignment),
                 "target_assignment": sorted(m.target_assignment)} for m in d.members),
                key=lambda m: m["member_id"]), b["members"])
        if b["kind"] in ("classic", "consumer"):
            check(group, "committed offsets", sorted([o.topic, o.partition, o.offset] for o in d.offsets),
                  b["offsets"])
        if b["kind"] == "share":
            check(group, "members", sorted((
                {"member_id": m.member_id, "client_id": m.client_id, "client_host": m.host,
                 "member_epoch": m.member_epoch, "assignment": sorted(m.assignment)} for m in d.members),
                key=lambda m: m["member_id"]), b["members"])
            ours = {(p.topic, p.partition): p for p in d.share_partitions}
            check(group, "share-partitions", sorted(ours), sorted((r["topic"], r["partition"])
                                                               for r in b["start_offsets"]))
            for r in b["start_offsets"]:
                p = ours.get((r["topic"], r["partition"]))
                where = f"{r['topic']}-{r['partition']}"
                if p is None:
                    continue
                check(group, f"{where} start offset", p.start_offset, r["start_offset"])
                check(group, f"{where} leader epoch", p.leader_epoch, r["leader_epoch"])
                check(group, f"{where} error code", 0, r["error_code"])
                end = end_offsets.get(where)
                if r["lag"] >= 0 and end is not None:
                    complete = p.batches.get("acknowledged", 0) + p.batches.get("archived", 0)
                    check(group, f"{where} records past the start offset in a final state (end offset "
                          f"{end} - start - lag)", complete, end - r["start_offset"] - r["lag"])
    return out

"""Real clients on a real broker, so that a real coordinator writes the logs groupspec reads.

librdkafka (the confluent-kafka wheel) drives a Kafka node through the three kinds of group its
coordinators log: a classic group with joins, a rebalance, commits and leaves; a KIP-848
(``group.protocol=consumer``) group; and a share group in explicit mode that ACCEPTs, RELEASEs
and REJECTs records, so released records are delivered again. What the broker reported at the
end (each group's state and committed offsets, through the admin API) is returned with the
names used, for the comparisons that replay the logs (tests/broker/test_real_logs.py).

Real time is unavoidable here (a live broker's clock); every wait is bounded.
"""

from __future__ import annotations

import importlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from groupspec.types import GroupspecError

MESSAGES = 20


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


def run(bootstrap: str, *, prefix: str | None = None, timeout_s: float = 60.0) -> Reported:
    """Run the whole workload against ``bootstrap``; names get a fresh suffix unless given."""
    ck, api = _client()

    tag = prefix or f"wl-{uuid.uuid4().hex[:6]}"
    rep = Reported(f"{tag}-topic", f"{tag}-classic", f"{tag}-consumer", f"{tag}-share")
    admin = api.AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics([api.NewTopic(rep.topic, 2, 1)]).values():
        future.result(timeout=timeout_s)
    producer = ck.Producer({"bootstrap.servers": bootstrap})
    for i in range(MESSAGES):
        producer.produce(rep.topic, value=b"m%d" % i, partition=i % 2)
    if producer.flush(timeout_s) != 0:
        raise WorkloadError("the producer did not deliver every message")

    _classic(ck, bootstrap, rep, timeout_s)
    _consumer_protocol(ck, bootstrap, rep, timeout_s)
    share_config = api.ConfigResource(api.ResourceType.GROUP, rep.share_group, incremental_configs=[
        api.ConfigEntry("share.auto.offset.reset", "earliest",
                        incremental_operation=api.AlterConfigOpType.SET)])
    for future in admin.incremental_alter_configs([share_config]).values():
        future.result(timeout=timeout_s)
    _share(ck, bootstrap, rep, timeout_s)
    _report(ck, admin, rep, timeout_s)
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

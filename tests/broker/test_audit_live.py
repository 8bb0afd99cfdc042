"""`groupspec audit` reading a real Kafka 4.2.1 node through Spark's Kafka connector.

The real-client workload (groupspec.broker_workload) leaves a classic group, a KIP-848 group and
a share group on the node; three more records then go to partition 0 so the groups lag there.
The audit runs as the CLI in its own process: ``spark.jars.packages`` only takes effect when a
JVM starts, and the suite's shared session has already started one without the connector.
What it reconstructs is compared with what the broker itself answers (DescribeGroups and
OffsetFetch through groupspec.wire, and the end offsets the workload's producer reached).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.broker, pytest.mark.spark]

EXTRA = 3  # records produced after the groups committed: their lag on partition 0


def _broker_view(bootstrap: str, classic: str, groups: list[str]) -> tuple[str, dict[str, dict]]:
    from groupspec.wire.cluster import parse_address
    from groupspec.wire.connection import Connection
    from groupspec.wire.messages import DescribeGroupsRequest
    from groupspec.wire.messages.offsets import OffsetFetchRequest

    with Connection.connect(*parse_address(bootstrap.split(",")[0]), timeout=15.0,
                            client_id="groupspec-audit-live-test") as conn:
        described = conn.request(DescribeGroupsRequest(groups=(classic,),
                                                       include_authorized_operations=False))
        fetched = conn.request(OffsetFetchRequest(groups=tuple(
            OffsetFetchRequest.OffsetFetchRequestGroup(group_id=g, topics=None) for g in groups)), 8)
    offsets = {g.group_id: {(t.name, p.partition_index): p.committed_offset for t in g.topics
                            for p in t.partitions if p.committed_offset >= 0} for g in fetched.groups}
    return described.groups[0].group_state, offsets


def test_live_audit_finds_the_groups_and_offsets_the_broker_reports(kafka_broker, tmp_path):
    pytest.importorskip("confluent_kafka", reason="the real-client workload needs confluent-kafka")
    pytest.importorskip("pyspark", reason="the audit runs on Spark")
    import confluent_kafka as ck

    from groupspec import broker_workload
    from groupspec.pipeline import audit_live

    try:  # as for the broker's own jars: Maven Central once, the cache afterwards
        audit_live.connector_version()
    except audit_live.ConnectorError as exc:
        pytest.skip(f"Spark's Kafka connector cannot be resolved here: {exc}")

    wl = broker_workload.run(kafka_broker.bootstrap)
    producer = ck.Producer({"bootstrap.servers": kafka_broker.bootstrap})
    for i in range(EXTRA):
        producer.produce(wl.topic, value=b"late-%d" % i, partition=0)
    assert producer.flush(30) == 0
    state, reported = _broker_view(kafka_broker.bootstrap, wl.classic_group,
                                   [wl.classic_group, wl.consumer_group])
    assert state == "Empty"
    for group in (wl.classic_group, wl.consumer_group):
        assert reported[group] == {(wl.topic, p): o for p, o in wl.offsets[group].items()}

    out = tmp_path / "audit"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                       os.environ.get("PYTHONPATH", "")])}
    cli = "import sys; from groupspec.cli import main; sys.exit(main())"
    run = subprocess.run([sys.executable, "-c", cli, "audit", f"kafka://{kafka_broker.bootstrap}",
                          "--out", str(out), "--quiet", "--master", "local[1]"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["inputs"]["format"] == "kafka"
    assert summary["violations"] == 0 and summary["quarantined"] == 0

    import pyarrow.parquet as pq

    rows = {r["group_id"]: r for r in pq.read_table(out / "state.parquet").to_pylist()
            if r["kind"] != "share-partition"}
    assert {wl.classic_group, wl.consumer_group, wl.share_group} <= set(rows)
    assert rows[wl.classic_group]["kind"] == "classic"
    assert rows[wl.classic_group]["state"].upper() == state.upper()
    assert rows[wl.consumer_group]["kind"] == "consumer"
    assert rows[wl.share_group]["kind"] == "share"
    for group in (wl.classic_group, wl.consumer_group):
        ours = {(o["topic"], o["partition"]): o["offset"] for o in rows[group]["offsets"]}
        assert ours == reported[group], group
        lag = {(x["topic"], x["partition"]): x["lag"] for x in rows[group]["lag"]}
        assert lag == {(wl.topic, 0): EXTRA, (wl.topic, 1): 0}, group
    assert summary["lag"]["total"] >= 2 * EXTRA
    assert "Lag behind the end offsets" in (out / "report.html").read_text()

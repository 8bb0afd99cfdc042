"""The share_partition vectors on Kafka 4.2.1's own ``kafka.server.share.SharePartition``.

The adapter (adapters/kafka/, SharePartitionMachine.java) builds the partition as the share
partition manager does and plays the broker around it: a scripted share-coordinator state with
groupspec's persister rules, a clock that moves only on AdvanceClock, KafkaApis's own check of
acknowledgement batches, and KafkaApis's answer to an exception a call throws. Every vector must
pass there, except the ones listed below with the reason they cannot.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf

pytestmark = pytest.mark.skipif(shutil.which("java") is None or shutil.which("mvn") is None,
                                reason="needs Java 17 and Maven (the README's set-up has both)")

#: Vectors that fail on Kafka 4.2.1's code, each with the text its failure must show and why.
KNOWN_FAILURES = {
    # At the in-flight limit a fetch from the end offset whose log now starts past it (the
    # offsets between were compacted away) gives SharePartition#acquire a last offset to take
    # (the end offset) below the log's base offset: Kafka 4.2.1 archives the stale offsets, then
    # asks its ConcurrentSkipListMap for subMap(base, lastToAcquire) with base > lastToAcquire,
    # which throws IllegalArgumentException ("inconsistent range"); DelayedShareFetch catches it
    # and fails the whole share fetch (handleFetchException: UNKNOWN_SERVER_ERROR for every
    # partition). groupspec's layers read that range as empty and answer "nothing acquired"
    # (fact sheet 8.3): the state afterwards is the same, only the answer differs.
    "share_partition/run/in_flight_limit_reached_exactly": "java.lang.IllegalArgumentException: inconsistent range",
    # KafkaApis#validateAcknowledgementBatches starts its "previous batch's last offset" at -1, so
    # a first batch whose first offset is -2 or lower is INVALID_REQUEST before it reaches the
    # share partition; groupspec's check (impl/share_partition/partition.py,
    # valid_acknowledgement_batches, and the spec's) starts with no previous batch and lets the
    # batch through, and the vector expects it applied.
    "share_partition/run/per_offset_types_of_a_batch_from_a_negative_offset": "output differs",
}


def _run(vectors: list[vf.Vector], root: Path) -> runner.Report:
    target = targets.make_target("kafka", 60.0)
    try:
        return runner.run(vectors, target, "kafka", None, root=root)
    finally:
        target.close()


def test_the_share_partition_vectors_pass_on_kafkas_own_code() -> None:
    root = vf.default_root()
    vectors = [v for v in vf.load(root) if v.machine == "share_partition"]
    assert len(vectors) > 100
    report = _run(vectors, root)
    statuses = {o.id: o.status for o in report.outcomes}
    assert [i for i, s in statuses.items() if s == "unsupported"] == []
    failed = {o.id: o.reason for o in report.outcomes if o.status == "failed"}
    # Exactly the known ones, for their known reason: a vector that starts passing leaves the list.
    assert sorted(failed) == sorted(KNOWN_FAILURES)
    for vid, reason in failed.items():
        assert KNOWN_FAILURES[vid] in reason, (vid, reason)


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: one delivery count of the final view off by one fails on Kafka's code."""
    root = vf.default_root()
    case = "share_partition/run/acknowledgements_move_the_start"
    doc = json.loads((root / case / "vector.json").read_text(encoding="utf-8"))
    doc["expected"]["view"]["records"][3]["delivery_count"] += 1
    planted = tmp_path / "v"
    (planted / case).mkdir(parents=True)
    (planted / case / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    report = _run([vf.vector_from_json(doc, f"{case}/vector.json")], planted)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any("records[3].delivery_count" in line for line in report.outcomes[0].diff)

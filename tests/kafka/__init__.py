"""Checks on Kafka 4.2.1's own code, through the Kafka adapter (adapters/kafka/)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf


def run_on_kafka(vectors: Sequence[vf.Vector], root: Path, flavour: str = "kafka",
                 kafka_version: str | None = None) -> runner.Report:
    """The vectors on a Kafka target of their own (Kafka 4.2.1 unless ``kafka_version``), closed
    afterwards."""
    target = targets.make_target("kafka", 60.0, kafka_version)
    try:
        return runner.run(vectors, target, flavour, None, root=root)
    finally:
        target.close()

"""Checks on Kafka 4.2.1's own code, through the Kafka adapter (adapters/kafka/)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf

#: Every check that builds or runs the Kafka adapter: the README's set-up gives both tools, so
#: this skips only outside it.
needs_java_and_maven = pytest.mark.skipif(
    shutil.which("java") is None or shutil.which("mvn") is None,
    reason="needs Java 17 and Maven (the README's set-up has both)")


def run_on_kafka(vectors: Sequence[vf.Vector], root: Path, flavour: str = "kafka",
                 kafka_version: str | None = None) -> runner.Report:
    """The vectors on a Kafka target of their own (Kafka 4.2.1 unless ``kafka_version``), closed
    afterwards."""
    target = targets.make_target("kafka", 60.0, kafka_version)
    try:
        return runner.run(vectors, target, flavour, None, root=root)
    finally:
        target.close()


def machine_vectors(machine: str) -> tuple[list[vf.Vector], Path]:
    """The shipped vectors of one machine, and the root they were loaded from."""
    root = vf.default_root()
    return [v for v in vf.load(root) if v.machine == machine], root


def case_name(outcome_id: str) -> str:
    """An outcome's case, the last part of machine/handler/case: the key of the test files'
    DIFFER and UNSUPPORTED tables."""
    return outcome_id.rsplit("/", 1)[-1]


def unsupported_as_listed(report: runner.Report, listed: Mapping[str, str]) -> None:
    """Exactly the listed cases were unsupported on Kafka, each for a reason holding its entry."""
    unsupported = {case_name(o.id): o.reason for o in report.outcomes if o.status == "unsupported"}
    assert set(unsupported) == set(listed)
    for case, reason in listed.items():
        assert reason in unsupported[case], (case, unsupported[case])

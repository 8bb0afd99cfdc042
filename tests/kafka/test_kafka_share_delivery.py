"""share_delivery's vectors on kafka-clients 4.2.1's own delivery path (adapters/kafka/,
src/kafka-4.2/java/groupspec/kafka/ShareDeliveryRun.java).

The adapter builds a ShareConsumerImpl through its constructor for tests, over Kafka's own
ShareFetchBuffer, ShareFetchCollector and ShareConsumeRequestManager (with its
ShareSessionHandler); the consumer's ApplicationEventHandler is a mock that hands each event to
Kafka's ApplicationEventProcessor at once, and the adapter is the network thread: after each
event it polls the request manager until it sends or has nothing left to do, and the vector's
answers complete what it sent. The application's calls run on a thread of their own, since
commitSync and close block until the network thread completes them. Two runs:

- flavour ``kafka`` (the target's default; the vectors carry no ``expected_kafka``, so their
  properties): every vector passes;
- flavour ``groupspec``: every vector's exact expectation holds on Kafka's code, outputs and final
  view alike. A vector that starts to differ means Kafka, the adapter or groupspec changed.

The first run differed in 6 vectors: 3 were the adapter's (the record objects the application
acknowledges, each record its own log batch, the network thread's passes between events) and 3
were groupspec's (a failed ShareAcknowledge completes with UNKNOWN_SERVER_ERROR, not
NETWORK_EXCEPTION; docs/divergences.md, share_acknowledge_failure_code). Planted tests below show
a wrong expectation fails on Kafka's code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from groupspec.conformance import runner
from groupspec.conformance import vector_format as vf
from tests.kafka import run_on_kafka

pytestmark = pytest.mark.skipif(shutil.which("java") is None or shutil.which("mvn") is None,
                                reason="needs Java 17 and Maven (the README's set-up has both)")

MACHINE = "share_delivery"

#: Vectors whose exact expectation Kafka 4.2.1's client does not meet: none.
DIFFER: dict[str, str] = {}

#: Vectors Kafka's classes cannot be given: none.
UNSUPPORTED: dict[str, str] = {}


def _vectors() -> tuple[list[vf.Vector], Path]:
    root = vf.default_root()
    return [v for v in vf.load(root) if v.machine == MACHINE], root


def _case(outcome_id: str) -> str:
    return outcome_id.rsplit("/", 1)[-1]


def _unsupported_as_listed(report: runner.Report) -> None:
    unsupported = {_case(o.id): o.reason for o in report.outcomes if o.status == "unsupported"}
    assert set(unsupported) == set(UNSUPPORTED)


def test_every_vector_passes_on_kafka() -> None:
    vectors, root = _vectors()
    assert len(vectors) >= 36
    report = run_on_kafka(vectors, root, "kafka")
    assert [(o.id, o.reason, o.diff) for o in report.outcomes if o.status == "failed"] == []
    _unsupported_as_listed(report)
    assert sum(o.status == "passed" for o in report.outcomes) == len(vectors) - len(UNSUPPORTED)


def test_groupspecs_exact_expectations_hold_on_kafka() -> None:
    vectors, root = _vectors()
    report = run_on_kafka(vectors, root, "groupspec")
    _unsupported_as_listed(report)
    failed = {_case(o.id): o.diff for o in report.outcomes if o.status == "failed"}
    assert {case: diff for case, diff in failed.items() if case not in DIFFER} == {}
    assert set(DIFFER) <= set(failed), f"now passing on Kafka: {sorted(set(DIFFER) - set(failed))}"
    passed = sum(o.status == "passed" for o in report.outcomes)
    assert passed == len(vectors) - len(DIFFER) - len(UNSUPPORTED)


def _planted(tmp_path: Path, case: str, edit: object) -> runner.Report:
    root = vf.default_root()
    where = f"{MACHINE}/run/{case}"
    doc = json.loads((root / where / "vector.json").read_text(encoding="utf-8"))
    assert callable(edit)
    edit(doc)
    planted = tmp_path / "v"
    (planted / where).mkdir(parents=True)
    (planted / where / "vector.json").write_text(json.dumps(doc), encoding="utf-8")
    return run_on_kafka([vf.vector_from_json(doc, f"{where}/vector.json")], planted, "groupspec")


def test_a_wrong_expectation_fails_on_kafka(tmp_path: Path) -> None:
    """Planted: the piggybacked ACCEPT of implicit_next_poll_accepts_and_piggybacks expected at
    the wrong epoch and with RELEASE, and the view's epoch wrong: each is a difference on Kafka's
    code (flavour groupspec)."""

    def edit(doc: dict[str, object]) -> None:
        expected = doc["expected"]
        assert isinstance(expected, dict)
        sent = expected["outputs"][4]["sent"]
        batch = sent["acknowledgements"][0]["batches"][0]
        assert sent["session_epoch"] == 1 and batch["acknowledge_types"] == [1]
        sent["session_epoch"] = 2
        batch["acknowledge_types"] = [2]
        expected["view"]["session_epoch"] = 5

    report = _planted(tmp_path, "implicit_next_poll_accepts_and_piggybacks", edit)
    assert [o.status for o in report.outcomes] == ["failed"]
    lines = report.outcomes[0].diff
    assert any("event 4.sent" in line for line in lines), lines
    assert any("view.session_epoch: expected 5, got 2" in line for line in lines), lines


def test_the_failure_code_kafka_reports_is_unknown_server_error(tmp_path: Path) -> None:
    """Planted: groupspec's old expectation (a failed ShareAcknowledge completes with
    NETWORK_EXCEPTION) fails on Kafka's code, which says UNKNOWN_SERVER_ERROR
    (docs/divergences.md, share_acknowledge_failure_code)."""

    def edit(doc: dict[str, object]) -> None:
        expected = doc["expected"]
        assert isinstance(expected, dict)
        out = expected["outputs"][5]
        assert out["committed"] == [{"topic": "t", "partition": 0, "error": "UNKNOWN_SERVER_ERROR"}]
        out["committed"][0]["error"] = "NETWORK_EXCEPTION"

    report = _planted(tmp_path, "failed_commit_sync_is_unknown_server_error", edit)
    assert [o.status for o in report.outcomes] == ["failed"]
    assert any("expected NETWORK_EXCEPTION, got UNKNOWN_SERVER_ERROR" in line
               for line in report.outcomes[0].diff), report.outcomes[0].diff

"""groupspec.wire's message classes against Kafka's request and response schema files.

The files come from the kafka-clients 4.2.1 jar in the local Maven repository
(``common/message/*.json``, the exact release the vectors describe) or, without it, from
``../shared/kafka-schemas/messages`` (trunk of 2025-10-18) or ``$GROUPSPEC_KAFKA_MESSAGE_SCHEMAS``;
the test is skipped, saying so, when none is there. Every difference must be listed in
``KNOWN_DRIFT`` with its reason, so a typo in a class or a newer file fails with the list.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from groupspec.types.records.schema import message_spec
from groupspec.wire.messages import ALL_WIRE_CLASSES
from tests.cover.test_record_schemas import class_shape, drift, json_shape, strip_comments, typed

JAR = Path.home() / ".m2/repository/org/apache/kafka/kafka-clients/4.2.1/kafka-clients-4.2.1.jar"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "kafka-schemas" / "messages"
FOLDER = Path(os.environ.get("GROUPSPEC_KAFKA_MESSAGE_SCHEMAS") or SHARED)

#: Kafka's "records" type is a (compact) nullable bytes field on the wire; groupspec declares it
#: as bytes and leaves the record batches to groupspec.impl.codec.batch.
RECORDS_AS_BYTES = "records"

Drift = list[tuple[str, str, str, object, object, str]]

_2PC = ("InitProducerId v6 (two-phase commit, KIP-939) is latestVersionUnstable in 4.2.1: the broker "
        "offers 0-5, and groupspec.wire speaks what the broker accepts")
#: (message, field path, attribute, file, groupspec, why) against the 4.2.1 jar: the classes are its
#: files but for the unstable version a 4.2.1 broker does not offer.
KNOWN_DRIFT: Drift = [
    ("InitProducerIdRequest", "", "validVersions", "0-6", "0-5", _2PC),
    ("InitProducerIdRequest", "Enable2Pc", "field", "ProducerEpoch", "<absent>", _2PC),
    ("InitProducerIdRequest", "KeepPreparedTxn", "field", "Enable2Pc", "<absent>", _2PC),
    ("InitProducerIdResponse", "", "validVersions", "0-6", "0-5", _2PC),
    ("InitProducerIdResponse", "OngoingTxnProducerId", "field", "ProducerEpoch", "<absent>", _2PC),
    ("InitProducerIdResponse", "OngoingTxnProducerEpoch", "field", "OngoingTxnProducerId", "<absent>", _2PC),
]
#: APIs the shared schema copies (group, share and share-state APIs only) do not hold.
NOT_SHARED = ("Metadata", "CreateTopics", "Produce", "InitProducerId", "AddOffsetsToTxn", "EndTxn",
              "TxnOffsetCommit", "DescribeConfigs", "IncrementalAlterConfigs", "OffsetDelete")

_V2 = "ShareFetch/ShareAcknowledge v2 (KIP-1206, KIP-1222) landed after the shared trunk copy; in 4.2.1's jar"
#: Against the older shared copies (trunk of 2025-10-18): only what 4.2.0 added after that date.
KNOWN_DRIFT_SHARED: Drift = [
    ("ShareAcknowledgeRequest", "", "validVersions", "1", "1-2", _V2),
    ("ShareAcknowledgeRequest", "IsRenewAck", "field", "<absent>", "ShareSessionEpoch", _V2),
    ("ShareAcknowledgeRequest", "Topics", "field", "ShareSessionEpoch", "IsRenewAck", _V2),
    ("ShareAcknowledgeResponse", "", "validVersions", "1", "1-2", _V2),
    ("ShareAcknowledgeResponse", "AcquisitionLockTimeoutMs", "field", "<absent>", "ErrorMessage", _V2),
    ("ShareAcknowledgeResponse", "Responses", "field", "ErrorMessage", "AcquisitionLockTimeoutMs", _V2),
    ("ShareFetchRequest", "", "validVersions", "1", "1-2", _V2),
    ("ShareFetchRequest", "IsRenewAck", "field", "<absent>", "ShareAcquireMode", _V2),
    ("ShareFetchRequest", "ShareAcquireMode", "field", "<absent>", "BatchSize", _V2),
    ("ShareFetchRequest", "Topics", "field", "BatchSize", "IsRenewAck", _V2),
    ("ShareFetchResponse", "", "validVersions", "1", "1-2", _V2),
]


def _records_as_bytes(fields: list[dict[str, Any]]) -> None:
    for f in fields:
        if f["type"] == RECORDS_AS_BYTES:
            f["type"] = "bytes"
        _records_as_bytes(f.get("fields", []))


def _parse(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(strip_comments(text))
    _records_as_bytes(doc["fields"])
    for common in doc.get("commonStructs", []):
        _records_as_bytes(common["fields"])
    return doc


def schema_files(names: list[str]) -> tuple[str, dict[str, dict[str, Any]]]:
    """(where they came from, the parsed files by message name); skips when there are none."""
    if JAR.is_file() and not os.environ.get("GROUPSPEC_KAFKA_MESSAGE_SCHEMAS"):
        with zipfile.ZipFile(JAR) as jar:
            return str(JAR), {n: _parse(jar.read(f"common/message/{n}.json").decode()) for n in names}
    if FOLDER.is_dir():  # the shared copies hold the group, share and share-state APIs only
        return str(FOLDER), {n: _parse((FOLDER / f"{n}.json").read_text(encoding="utf-8"))
                             for n in names if (FOLDER / f"{n}.json").is_file()}
    pytest.skip(f"no Kafka message schemas: neither {JAR} nor {FOLDER} (set GROUPSPEC_KAFKA_MESSAGE_SCHEMAS)")


def ours() -> dict[str, type]:
    return {message_spec(c).name: c for c in ALL_WIRE_CLASSES}


def test_classes_match_kafkas_schema_files() -> None:
    where, docs = schema_files(sorted(ours()))
    found: set[tuple[str, str, str, object, object]] = set()
    group_apis = {n for n in ours() if not n.startswith(NOT_SHARED)}
    assert group_apis <= docs.keys(), f"{where} lacks {sorted(group_apis - docs.keys())}"
    for name, cls in ours().items():
        if name not in docs:
            continue
        found |= drift(json_shape(docs[name]), class_shape(cls))
    expected = KNOWN_DRIFT if where == str(JAR) else KNOWN_DRIFT_SHARED
    known = {(m, p, a, typed(x), typed(y)) for m, p, a, x, y, _ in expected}
    got = {(m, p, a, typed(x), typed(y)) for m, p, a, x, y in found}
    assert not got - known, f"drift from {where}:\n" + "\n".join(sorted(map(str, got - known)))
    stale = sorted(map(str, known - got))
    assert not stale, "known drift rows that no longer differ:\n" + "\n".join(stale)


def test_the_comparison_sees_a_planted_difference() -> None:
    """A wrong nullable range, a missing tagged field and a renamed nested field are all found."""
    _, docs = schema_files(["JoinGroupResponse", "ApiVersionsResponse"])
    planted = json.loads(json.dumps(docs["JoinGroupResponse"]))
    planted["fields"][4]["nullableVersions"] = "6+"
    planted["fields"][8]["fields"][0]["name"] = "MemberIdx"
    rows = {r[:3] for r in drift(json_shape(planted), class_shape(ours()["JoinGroupResponse"]))}
    assert ("JoinGroupResponse", "ProtocolName", "nullableVersions") in rows
    assert ("JoinGroupResponse", "Members.MemberIdx", "field") in rows
    api = json.loads(json.dumps(docs["ApiVersionsResponse"]))
    api["fields"] = [f for f in api["fields"] if f["name"] != "ZkMigrationReady"]
    rows = {r[:3] for r in drift(json_shape(api), class_shape(ours()["ApiVersionsResponse"]))}
    assert ("ApiVersionsResponse", "ZkMigrationReady", "field") in rows


def test_request_and_response_header_facts_match_the_files() -> None:
    """The hand-written headers (groupspec.wire.headers) against RequestHeader/ResponseHeader.json."""
    _, docs = schema_files(["RequestHeader", "ResponseHeader"])
    request, response = docs["RequestHeader"], docs["ResponseHeader"]
    assert [f["name"] for f in request["fields"]] == [
        "RequestApiKey", "RequestApiVersion", "CorrelationId", "ClientId"]
    assert [f["type"] for f in request["fields"]] == ["int16", "int16", "int32", "string"]
    client_id = request["fields"][3]
    assert client_id["flexibleVersions"] == "none" and client_id["nullableVersions"] == "1+"
    assert request["validVersions"] in ("1-2", "0-2") and request["flexibleVersions"] == "2+"
    assert [(f["name"], f["type"]) for f in response["fields"]] == [("CorrelationId", "int32")]
    assert response["validVersions"] == "0-1" and response["flexibleVersions"] == "1+"

"""groupspec.wire's bytes against kafka-python's own protocol classes (an independent codec).

For every API kafka-python knows (all of groupspec.wire's but ConsumerGroupHeartbeat and the share
APIs, which tests/kafka/test_wire_java.py checks on Kafka's generated classes), any object at any
version is encoded by groupspec, decoded by kafka-python and encoded again by kafka-python: the two
byte strings must be equal. Headers are checked the same way.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.impl.codec.messages import encode
from groupspec.types.records.schema import message_spec
from groupspec.wire.frames import encode_request
from groupspec.wire.messages import (
    ALL_WIRE_CLASSES,
    APIS,
    ApiVersionsResponse,
    HeartbeatRequest,
    JoinGroupRequest,
)
from tests.record_strategies import message_values

kafka_protocol = pytest.importorskip("kafka.protocol", reason="kafka-python (a dev dependency) is missing")


def _kafka_python_classes() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for info in pkgutil.walk_packages(kafka_protocol.__path__, "kafka.protocol."):
        if ".old" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            is_message = name.endswith(("Request", "Response")) and hasattr(value, "valid_versions")
            if isinstance(value, type) and is_message:
                found.setdefault(name, value)
    return found


KAFKA_PYTHON = _kafka_python_classes()
COVERED = [c for c in ALL_WIRE_CLASSES if message_spec(c).name in KAFKA_PYTHON]
#: Versions kafka-python speaks past what a 4.2.1 broker accepts (and so past groupspec.wire).
BEYOND_THE_BROKER = {"InitProducerIdRequest": 1, "InitProducerIdResponse": 1}


def test_kafka_python_covers_the_classic_apis() -> None:
    names = {message_spec(c).name.removesuffix("Request").removesuffix("Response") for c in COVERED}
    unknown_to_kafka_python = {"ConsumerGroupHeartbeat", "ShareGroupHeartbeat", "ShareGroupDescribe",
                               "ShareFetch", "ShareAcknowledge"}
    assert names == {a.name for a in APIS.values()} - unknown_to_kafka_python


@pytest.mark.parametrize("cls", COVERED, ids=lambda c: c.__name__)
def test_same_bytes_as_kafka_python(cls: type) -> None:
    theirs = KAFKA_PYTHON[message_spec(cls).name]
    versions = message_spec(cls).versions
    # kafka-python reports 0 as every minimum; it also knows InitProducerId v6, which a 4.2.1
    # broker does not offer (unstable there), so groupspec stops at 5 and the bytes are compared
    # up to it.
    assert theirs.max_version == versions.hi + BEYOND_THE_BROKER.get(message_spec(cls).name, 0)
    cases = st.integers(versions.lo, versions.hi).flatmap(
        lambda v: st.tuples(st.just(v), message_values(cls, v)))

    @given(cases)
    def check(case: tuple[int, Any]) -> None:
        version, obj = case
        if cls is ApiVersionsResponse and obj.error_code != 0:
            # kafka-python reads every ApiVersions answer with an error at v0; Kafka (and groupspec)
            # only falls back when the body does not decode at the version asked for.
            obj = replace(obj, error_code=0)
        data = encode(obj, version)
        again = theirs[version].decode(data).encode(header=False)
        assert again == data

    check()


def test_request_headers_as_kafka_python_reads_them() -> None:
    request_class = KAFKA_PYTHON["HeartbeatRequest"]
    for version in (0, 3, 4):  # v4 is flexible: header v2
        frame = encode_request(HeartbeatRequest(group_id="g", generation_id=5, member_id="m"), version, 4242,
                               "client-é")
        theirs = request_class[version].decode(frame, header=True, framed=True)
        assert theirs.header.correlation_id == 4242 and theirs.header.client_id == "client-é"
        assert theirs.header.request_api_key == 12 and theirs.header.request_api_version == version
        assert (theirs.group_id, theirs.generation_id, theirs.member_id) == ("g", 5, "m")


def test_join_group_golden_bytes() -> None:
    """One frame spelled out byte by byte (JoinGroup v5, header v1), as a reader can check by hand."""
    protocol = JoinGroupRequest.JoinGroupRequestProtocol("range", b"\x01")
    frame = encode_request(JoinGroupRequest("g", 30000, 60000, "", None, "consumer", (protocol,)), 5, 7, "c")
    golden = bytes.fromhex(
        "00000034"  # size 52
        "000b" "0005" "00000007" "0001" "63"  # key 11, v5, correlation 7, client id "c"
        "0001" "67"  # group id "g"
        "00007530" "0000ea60"  # session 30000, rebalance 60000
        "0000"  # member id ""
        "ffff"  # group instance id null
        "0008" "636f6e73756d6572"  # "consumer"
        "00000001" "0005" "72616e6765" "00000001" "01"  # one protocol: "range", 1 byte
    )
    assert frame == golden

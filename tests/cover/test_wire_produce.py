"""groupspec.wire.produce: the Produce request a live share_partition run sends, against fake peers."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from groupspec.impl.codec.batch import decode_batch
from groupspec.types.errors import InputError
from groupspec.wire import BadResponseError, BrokerError, Connection
from groupspec.wire.headers import RequestHeader
from groupspec.wire.messages import ProduceRequest, ProduceResponse
from groupspec.wire.produce import produce
from tests.wire_peers import BROKER, FakePeer, Handler, broker, fake_peers

TIMEOUT = 0.5
TID = uuid.UUID(int=0x1234)


@pytest.fixture
def peer() -> Iterator[Callable[[Handler], FakePeer]]:
    yield from fake_peers()


def _answers(codes: list[int], bodies: list[ProduceRequest], base: int = 7) -> Any:
    it = iter(codes)

    def answer(header: RequestHeader, body: Any) -> ProduceResponse:
        bodies.append(body)
        topic = body.topic_data[0]
        part = ProduceResponse.TopicProduceResponse.PartitionProduceResponse(
            index=topic.partition_data[0].index, error_code=next(it), base_offset=base)
        return ProduceResponse(responses=(ProduceResponse.TopicProduceResponse(
            name=topic.name, topic_id=topic.topic_id, partition_responses=(part,)),))

    return answer


def test_the_records_go_as_one_batch_by_name_at_v12(peer: Any) -> None:
    seen: list[RequestHeader] = []
    bodies: list[ProduceRequest] = []
    p = peer(broker(seen, BROKER, _answers([0], bodies)))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        got = produce(conn, "t", 2, [(b"k", b"v0"), (None, b"v1"), (None, None)], timestamp_ms=1234)
    assert got == 7
    assert (seen[-1].api_key, seen[-1].api_version) == (0, 12)
    topic = bodies[-1].topic_data[0]
    assert topic.name == "t" and bodies[-1].acks == -1 and bodies[-1].transactional_id is None
    assert topic.partition_data[0].index == 2
    batch = decode_batch(topic.partition_data[0].records or b"")
    assert [(r.offset, r.timestamp, r.key, r.value) for r in batch.records] == [
        (0, 1234, b"k", b"v0"), (1, 1234, None, b"v1"), (2, 1234, None, None)]
    assert batch.producer_id == -1 and not batch.is_transactional


def test_a_topic_id_lets_it_speak_v13(peer: Any) -> None:
    seen: list[RequestHeader] = []
    bodies: list[ProduceRequest] = []
    p = peer(broker(seen, BROKER, _answers([0], bodies)))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        produce(conn, "t", 0, [(None, b"v")], timestamp_ms=0, topic_id=TID)
    assert seen[-1].api_version == 13 and bodies[-1].topic_data[0].topic_id == TID


def test_asks_again_while_the_leader_is_elected_and_stops_on_a_final_error(peer: Any) -> None:
    pauses: list[float] = []
    p = peer(broker([], BROKER, _answers([6, 5, 3, 0, 6, 6, 87], [])))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        assert produce(conn, "t", 0, [(None, b"v")], timestamp_ms=0, sleep=pauses.append, pause_s=0.5) == 7
        assert pauses == [0.5, 0.5, 0.5]
        with pytest.raises(BrokerError, match="Produce v12: produce to t-0 failed: error code 87") as e:
            produce(conn, "t", 0, [(None, b"v")], timestamp_ms=0, sleep=lambda s: None)
        assert e.value.error_code == 87  # INVALID_RECORD: not asked again


def test_an_answer_for_another_partition_is_a_bad_response(peer: Any) -> None:
    def answer(header: RequestHeader, body: Any) -> ProduceResponse:
        return ProduceResponse()

    p = peer(broker([], BROKER, answer))
    with (Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn,
          pytest.raises(BadResponseError, match="0 partition answers")):
        produce(conn, "t", 0, [(None, b"v")], timestamp_ms=0)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"records": []}, "records"), ({"partition": -1}, "partition"), ({"acks": 0}, "acks"),
    ({"acks": 2}, "acks"),
])
def test_bad_input_is_refused_before_anything_is_sent(peer: Any, kwargs: dict[str, Any], field: str) -> None:
    seen: list[RequestHeader] = []
    p = peer(broker(seen, BROKER, lambda h, b: pytest.fail("sent")))
    args: dict[str, Any] = {"topic": "t", "partition": 0, "records": [(None, b"v")], "timestamp_ms": 0}
    args |= kwargs
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn, pytest.raises(InputError) as e:
        produce(conn, **args)
    assert e.value.field == field
    assert all(h.api_key != 0 for h in seen)

"""groupspec.wire.cluster: addresses and finding a coordinator, against fake peers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from groupspec.types.errors import InputError
from groupspec.wire import BadResponseError, BrokerError, Connection
from groupspec.wire.cluster import Node, find_coordinator, parse_address
from groupspec.wire.headers import RequestHeader
from groupspec.wire.messages import FindCoordinatorResponse
from tests.wire_peers import BROKER, FakePeer, Handler, broker, fake_peers

TIMEOUT = 0.5


@pytest.fixture
def peer() -> Iterator[Callable[[Handler], FakePeer]]:
    yield from fake_peers()


@pytest.mark.parametrize(("text", "expected"), [
    ("kafka://127.0.0.1:9092", ("127.0.0.1", 9092)),
    ("broker-1.example:19092", ("broker-1.example", 19092)),
    ("kafka://[::1]:9093", ("::1", 9093)),
])
def test_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", "kafka://", "host", "host:", ":9092", "host:0", "host:70000", "host:x",
                                  "http://host:9092", "kafka://host:9092/path"])
def test_invalid_addresses(text: str) -> None:
    with pytest.raises(InputError, match="expected kafka://HOST:PORT") as err:
        parse_address(text)
    assert err.value.field == "address"


def _coordinator_answers(codes: list[int], batched: bool = True) -> Any:
    answers = iter(codes)

    def answer(header: RequestHeader, body: Any) -> FindCoordinatorResponse:
        code = next(answers)
        node = (0, "127.0.0.1", 9092) if code == 0 else (-1, "", -1)
        if batched:
            return FindCoordinatorResponse(coordinators=(FindCoordinatorResponse.Coordinator(
                body.coordinator_keys[0], *node, error_code=code),))
        return FindCoordinatorResponse(error_code=code, node_id=node[0], host=node[1], port=node[2])

    return answer


def test_asks_again_while_the_coordinator_loads_without_sleeping_for_real(peer: Any) -> None:
    p = peer(broker([], BROKER, _coordinator_answers([15, 14, 16, 0])))
    pauses: list[float] = []
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        assert find_coordinator(conn, "g", sleep=pauses.append, pause_s=0.25) == Node(0, "127.0.0.1", 9092)
    assert pauses == [0.25, 0.25, 0.25]


def test_older_versions_use_the_single_key_form(peer: Any) -> None:
    seen: list[RequestHeader] = []
    p = peer(broker(seen, dict(BROKER) | {10: (0, 3)}, _coordinator_answers([0], batched=False)))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        assert find_coordinator(conn, "g", sleep=lambda s: None) == Node(0, "127.0.0.1", 9092)
    assert (seen[-1].api_key, seen[-1].api_version) == (10, 3)


def test_gives_up_after_the_attempts_or_at_once_on_a_final_error(peer: Any) -> None:
    p = peer(broker([], BROKER, _coordinator_answers([15, 15, 15, 24])))
    with Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn:
        expected = "FindCoordinator v6: no coordinator for 'g': error code 15"
        with pytest.raises(BrokerError, match=expected) as e:
            find_coordinator(conn, "g", attempts=3, sleep=lambda s: None)
        assert e.value.error_code == 15
        with pytest.raises(BrokerError, match="error code 24"):  # INVALID_GROUP_ID: not retried
            find_coordinator(conn, "g", attempts=3, sleep=lambda s: pytest.fail("slept"))


def test_an_answer_without_exactly_one_coordinator_is_a_bad_response(peer: Any) -> None:
    p = peer(broker([], BROKER, lambda h, b: FindCoordinatorResponse()))
    with (Connection.connect("127.0.0.1", p.port, timeout=TIMEOUT) as conn,
          pytest.raises(BadResponseError, match="0 coordinators for one key")):
        find_coordinator(conn, "g", sleep=lambda s: None)

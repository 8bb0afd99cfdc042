"""Finding a broker and a group's coordinator: what a wire run does before its first group request.

Kept apart from the connection because it is policy, not protocol: how often to ask again while a
fresh broker loads its coordinator partitions is a choice (and the waiting is a parameter, so the
tests run it without sleeping).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from groupspec.types.errors import InputError
from groupspec.wire.connection import Connection
from groupspec.wire.errors import BadResponseError, BrokerError
from groupspec.wire.messages import FindCoordinatorRequest, FindCoordinatorResponse

#: Error codes after which asking again may succeed: COORDINATOR_LOAD_IN_PROGRESS,
#: COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR.
RETRIABLE = frozenset({14, 15, 16})
GROUP_KEY = 0


@dataclass(frozen=True)
class Node:
    node_id: int
    host: str
    port: int


def parse_address(text: str) -> tuple[str, int]:
    """``kafka://HOST:PORT``, ``HOST:PORT`` or ``[IPv6]:PORT`` as (host, port)."""
    rest = text.removeprefix("kafka://")
    host, sep, port = rest.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or "/" in rest or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError("address", f"expected kafka://HOST:PORT or HOST:PORT, got {text!r}")
    return host, int(port)


def find_coordinator(conn: Connection, key: str, *, key_type: int = GROUP_KEY, attempts: int = 50,
                     pause_s: float = 0.1, sleep: Callable[[float], None] = time.sleep) -> Node:
    """The coordinator of ``key`` (a group id), asking again while the answer is retriable."""
    version = conn.version(10)
    code, message = -1, ""
    for attempt in range(attempts):
        if version >= 4:
            answer: FindCoordinatorResponse = conn.request(
                FindCoordinatorRequest(key_type=key_type, coordinator_keys=(key,)), version)
            if len(answer.coordinators) != 1:
                raise BadResponseError(f"{len(answer.coordinators)} coordinators for one key",
                                       "FindCoordinator", version)
            found = answer.coordinators[0]
            code, message = found.error_code, found.error_message or ""
            node = Node(found.node_id, found.host, found.port)
        else:
            answer = conn.request(FindCoordinatorRequest(key=key, key_type=key_type), version)
            code, message = answer.error_code, answer.error_message or ""
            node = Node(answer.node_id, answer.host, answer.port)
        if code == 0:
            return node
        if code not in RETRIABLE:
            break
        if attempt + 1 < attempts:
            sleep(pause_s)
    raise BrokerError(f"no coordinator for {key!r}: error code {code} {message}".rstrip(), code,
                      "FindCoordinator", version)

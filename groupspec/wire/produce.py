"""Putting records on a partition: what a live share_partition run needs before its first fetch.

The records become one v2 batch written by groupspec's own batch writer (no compression, no
producer id: an idempotent or transactional producer is not what the vectors describe). A topic
created a moment ago may not have its leader yet, so the retriable answers are asked again; the
waiting is a parameter, as in :mod:`groupspec.wire.cluster`, so tests run without sleeping.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence

from groupspec.impl.codec.batch import Record, encode_batch
from groupspec.types.errors import InputError
from groupspec.wire.connection import Connection
from groupspec.wire.errors import BadResponseError, BrokerError
from groupspec.wire.messages import ProduceRequest, ProduceResponse

PRODUCE = 0
#: UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT,
#: NOT_ENOUGH_REPLICAS: a new topic's leader is still being elected or its replicas catching up.
RETRIABLE_PRODUCE = frozenset({3, 5, 6, 7, 19})
#: Produce v13 names the topic by id only.
LAST_VERSION_WITH_NAMES = 12

Value = tuple[bytes | None, bytes | None]


def produce(conn: Connection, topic: str, partition: int, records: Sequence[Value], *,
            timestamp_ms: int, topic_id: uuid.UUID | None = None, acks: int = -1,
            timeout_ms: int = 30_000, attempts: int = 50, pause_s: float = 0.1,
            sleep: Callable[[float], None] = time.sleep) -> int:
    """Append ``records`` (key, value pairs) to ``topic``-``partition``; the base offset given.

    All records carry ``timestamp_ms`` (the caller's clock, not the wall's). Without
    ``topic_id`` the request stays at v12, the last version naming topics.
    """
    if not records:
        raise InputError("records", "nothing to produce")
    if not isinstance(partition, int) or partition < 0:
        raise InputError("partition", f"{partition!r} is not a partition index")
    if acks not in (-1, 0, 1):
        raise InputError("acks", f"{acks!r}: Kafka accepts -1, 0 or 1")
    if acks == 0:
        raise InputError("acks", "0 gets no answer, so no base offset to give back")
    batch = encode_batch(Record(i, timestamp_ms, key, value) for i, (key, value) in enumerate(records))
    version = conn.version(PRODUCE)
    if topic_id is None:
        version = min(version, LAST_VERSION_WITH_NAMES)
        if version < 3:
            raise InputError("topic_id", "the broker only takes Produce by topic id")
    data = ProduceRequest.TopicProduceData(
        name=topic if version <= LAST_VERSION_WITH_NAMES else "",
        topic_id=topic_id if topic_id is not None and version > LAST_VERSION_WITH_NAMES else uuid.UUID(int=0),
        partition_data=(ProduceRequest.TopicProduceData.PartitionProduceData(partition, batch),))
    request = ProduceRequest(transactional_id=None, acks=acks, timeout_ms=timeout_ms, topic_data=(data,))
    code, message = -1, ""
    for attempt in range(attempts):
        answer: ProduceResponse = conn.request(request, version)
        parts = [p for t in answer.responses for p in t.partition_responses]
        if len(parts) != 1 or parts[0].index != partition:
            raise BadResponseError(f"{len(parts)} partition answers for one partition", "Produce", version)
        code, message = parts[0].error_code, parts[0].error_message or ""
        if code == 0:
            return parts[0].base_offset
        if code not in RETRIABLE_PRODUCE:
            break
        if attempt + 1 < attempts:
            sleep(pause_s)
    raise BrokerError(f"produce to {topic}-{partition} failed: error code {code} {message}".rstrip(), code,
                      "Produce", version)

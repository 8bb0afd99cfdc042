"""Every API ``groupspec.wire`` speaks, by Kafka API key, with its request and response classes.

The classes carry their own schemas (``groupspec.types.records.schema``, the same machinery as the
coordinator records): field order, versions, nullable versions, tagged fields and flexible
versions are those of Kafka 4.2.1's ``common/message/*.json``, checked by
``tests/cover/test_wire_schemas.py``. A version range here is what a Kafka 4.2 broker accepts:
the versions Kafka 4.0 and 4.1 removed (OffsetCommit 0-1, OffsetFetch 0, CreateTopics 0-1, the
share APIs' early-access version 0) are not in it.
"""

from __future__ import annotations

from dataclasses import dataclass

from groupspec.types.records.schema import Versions, message_spec
from groupspec.wire.messages.admin import (
    CreateTopicsRequest,
    CreateTopicsResponse,
    MetadataRequest,
    MetadataResponse,
)
from groupspec.wire.messages.api_versions import ApiVersionsRequest, ApiVersionsResponse
from groupspec.wire.messages.classic import (
    DeleteGroupsRequest,
    DeleteGroupsResponse,
    DescribeGroupsRequest,
    DescribeGroupsResponse,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
    ListGroupsRequest,
    ListGroupsResponse,
    SyncGroupRequest,
    SyncGroupResponse,
)
from groupspec.wire.messages.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from groupspec.wire.messages.consumer import ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse
from groupspec.wire.messages.offsets import (
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetDeleteRequest,
    OffsetDeleteResponse,
    OffsetFetchRequest,
    OffsetFetchResponse,
)
from groupspec.wire.messages.produce import ProduceRequest, ProduceResponse
from groupspec.wire.messages.share import (
    ShareAcknowledgeRequest,
    ShareAcknowledgeResponse,
    ShareFetchRequest,
    ShareFetchResponse,
    ShareGroupDescribeRequest,
    ShareGroupDescribeResponse,
    ShareGroupHeartbeatRequest,
    ShareGroupHeartbeatResponse,
)
from groupspec.wire.messages.txn import (
    AddOffsetsToTxnRequest,
    AddOffsetsToTxnResponse,
    EndTxnRequest,
    EndTxnResponse,
    InitProducerIdRequest,
    InitProducerIdResponse,
    TxnOffsetCommitRequest,
    TxnOffsetCommitResponse,
)


@dataclass(frozen=True)
class Api:
    """One Kafka API: its key, name, body classes and the versions groupspec can speak."""

    key: int
    name: str
    request: type
    response: type
    versions: Versions

    def flexible(self, version: int) -> bool:
        return version in message_spec(self.request).flexible


_PAIRS: tuple[tuple[type, type], ...] = (
    (ProduceRequest, ProduceResponse),
    (MetadataRequest, MetadataResponse),
    (OffsetCommitRequest, OffsetCommitResponse),
    (OffsetFetchRequest, OffsetFetchResponse),
    (FindCoordinatorRequest, FindCoordinatorResponse),
    (JoinGroupRequest, JoinGroupResponse),
    (HeartbeatRequest, HeartbeatResponse),
    (LeaveGroupRequest, LeaveGroupResponse),
    (SyncGroupRequest, SyncGroupResponse),
    (DescribeGroupsRequest, DescribeGroupsResponse),
    (ListGroupsRequest, ListGroupsResponse),
    (ApiVersionsRequest, ApiVersionsResponse),
    (CreateTopicsRequest, CreateTopicsResponse),
    (InitProducerIdRequest, InitProducerIdResponse),
    (AddOffsetsToTxnRequest, AddOffsetsToTxnResponse),
    (EndTxnRequest, EndTxnResponse),
    (TxnOffsetCommitRequest, TxnOffsetCommitResponse),
    (DescribeConfigsRequest, DescribeConfigsResponse),
    (DeleteGroupsRequest, DeleteGroupsResponse),
    (IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse),
    (OffsetDeleteRequest, OffsetDeleteResponse),
    (ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse),
    (ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse),
    (ShareGroupDescribeRequest, ShareGroupDescribeResponse),
    (ShareFetchRequest, ShareFetchResponse),
    (ShareAcknowledgeRequest, ShareAcknowledgeResponse),
)


def _api(request: type, response: type) -> Api:
    req, resp = message_spec(request), message_spec(response)
    if (req.api_key, req.versions, req.flexible) != (resp.api_key, resp.versions, resp.flexible):
        raise TypeError(f"{req.name} and {resp.name} disagree on key, versions or flexible versions")
    if req.api_key is None or not req.name.endswith("Request"):
        raise TypeError(f"{req.name} is not a request")
    return Api(req.api_key, req.name.removesuffix("Request"), request, response, req.versions)


#: The APIs by key.
APIS: dict[int, Api] = {a.key: a for a in (_api(q, r) for q, r in _PAIRS)}
_BY_CLASS: dict[type, Api] = {c: a for a in APIS.values() for c in (a.request, a.response)}


def api_of(cls: type) -> Api:
    """The API a request or response class belongs to (TypeError for any other class)."""
    found = _BY_CLASS.get(cls)
    if found is None:
        raise TypeError(
            f"{getattr(cls, '__qualname__', cls)!r} is not a request or response of groupspec.wire"
        )
    return found


#: Every message class, for the drift test and the round-trip tests.
ALL_WIRE_CLASSES: tuple[type, ...] = tuple(c for pair in _PAIRS for c in pair)

__all__ = [
    "ALL_WIRE_CLASSES",
    "APIS",
    "AddOffsetsToTxnRequest",
    "AddOffsetsToTxnResponse",
    "Api",
    "ApiVersionsRequest",
    "ApiVersionsResponse",
    "ConsumerGroupHeartbeatRequest",
    "ConsumerGroupHeartbeatResponse",
    "CreateTopicsRequest",
    "CreateTopicsResponse",
    "DeleteGroupsRequest",
    "DeleteGroupsResponse",
    "DescribeConfigsRequest",
    "DescribeConfigsResponse",
    "DescribeGroupsRequest",
    "DescribeGroupsResponse",
    "EndTxnRequest",
    "EndTxnResponse",
    "FindCoordinatorRequest",
    "FindCoordinatorResponse",
    "HeartbeatRequest",
    "HeartbeatResponse",
    "IncrementalAlterConfigsRequest",
    "IncrementalAlterConfigsResponse",
    "InitProducerIdRequest",
    "InitProducerIdResponse",
    "JoinGroupRequest",
    "JoinGroupResponse",
    "LeaveGroupRequest",
    "LeaveGroupResponse",
    "ListGroupsRequest",
    "ListGroupsResponse",
    "MetadataRequest",
    "MetadataResponse",
    "OffsetCommitRequest",
    "OffsetCommitResponse",
    "OffsetDeleteRequest",
    "OffsetDeleteResponse",
    "OffsetFetchRequest",
    "OffsetFetchResponse",
    "ProduceRequest",
    "ProduceResponse",
    "ShareAcknowledgeRequest",
    "ShareAcknowledgeResponse",
    "ShareFetchRequest",
    "ShareFetchResponse",
    "ShareGroupDescribeRequest",
    "ShareGroupDescribeResponse",
    "ShareGroupHeartbeatRequest",
    "ShareGroupHeartbeatResponse",
    "SyncGroupRequest",
    "SyncGroupResponse",
    "TxnOffsetCommitRequest",
    "TxnOffsetCommitResponse",
    "api_of",
]

"""Between the machines' vocabularies and the wire classes.

The machines (``groupspec.types.classic_group``, ``groupspec.types.share_group``) speak in events
that hold what a coordinator sees of a request: the body's fields plus what the broker adds
(client id from the header, client host from the connection, and for classic JoinGroup the UUID
a new member id is made from). The wire classes hold exactly the bytes. So the mapping is:

- machine request -> wire request (:func:`to_wire`): the body fields; the request's ``version``
  (classic events carry one) becomes the API version. What only the broker decides
  (``client_host``, ``new_member_uuid``) cannot be sent and is dropped; ``client_id`` goes in the
  request header (:class:`~groupspec.wire.connection.Connection`'s ``client_id``).
- wire response -> machine response (:func:`from_wire`): error codes become
  :class:`~groupspec.types.errors.Errors` (a code groupspec does not know is a
  :class:`~groupspec.wire.errors.BadResponseError`), uuids become the vocabulary's RFC 4122 text,
  and fields the machine response does not model (throttle time, error messages) are dropped.

Only the requests a wire conformance run sends are here; the rest of each vocabulary (clock
advances, restarts, metadata images) has no wire form.
"""

from __future__ import annotations

import uuid
from typing import Any

from groupspec.types import classic_group as cg
from groupspec.types import share_group as sg
from groupspec.types.errors import Errors
from groupspec.types.topic_id import parse_topic_id
from groupspec.wire import messages as w
from groupspec.wire.errors import BadResponseError, RequestEncodeError
from groupspec.wire.messages import common

MachineRequest = (
    cg.JoinGroup
    | cg.SyncGroup
    | cg.Heartbeat
    | cg.LeaveGroup
    | cg.OffsetCommit
    | cg.TxnOffsetCommit
    | cg.OffsetFetch
    | cg.OffsetDelete
    | cg.DeleteGroups
    | cg.DescribeGroups
    | cg.ListGroups
    | sg.ShareGroupHeartbeat
    | sg.DeleteGroups
    | sg.SetGroupConfig
)

#: The group configuration names (Kafka's GroupConfig) a share_group SetGroupConfig sets.
SHARE_SESSION_TIMEOUT = "share.session.timeout.ms"
SHARE_HEARTBEAT_INTERVAL = "share.heartbeat.interval.ms"


def error(code: int, api: str, version: int | None = None) -> Errors:
    try:
        return Errors(code)
    except ValueError:
        raise BadResponseError(f"error code {code} is not one groupspec knows", api, version) from None


def to_wire(event: MachineRequest, version: int | None = None) -> tuple[Any, int | None]:
    """The wire request for a machine request and the version to send it at (None: negotiate).

    A classic event's own ``version`` wins over ``version``.
    """
    if isinstance(event, cg.JoinGroup):
        protocols = tuple(
            w.JoinGroupRequest.JoinGroupRequestProtocol(p.name, p.metadata) for p in event.protocols
        )
        return w.JoinGroupRequest(
            group_id=event.group_id,
            session_timeout_ms=event.session_timeout_ms,
            rebalance_timeout_ms=event.rebalance_timeout_ms,
            member_id=event.member_id,
            group_instance_id=event.group_instance_id,
            protocol_type=event.protocol_type,
            protocols=protocols,
            reason=event.reason,
        ), event.version
    if isinstance(event, cg.SyncGroup):
        assignments = tuple(
            w.SyncGroupRequest.SyncGroupRequestAssignment(a.member_id, a.assignment)
            for a in event.assignments
        )
        return w.SyncGroupRequest(
            group_id=event.group_id,
            generation_id=event.generation_id,
            member_id=event.member_id,
            group_instance_id=event.group_instance_id,
            protocol_type=event.protocol_type,
            protocol_name=event.protocol_name,
            assignments=assignments,
        ), event.version
    if isinstance(event, cg.Heartbeat):
        return w.HeartbeatRequest(
            event.group_id, event.generation_id, event.member_id, event.group_instance_id
        ), event.version
    if isinstance(event, cg.LeaveGroup):
        return _leave(event), event.version
    if isinstance(event, cg.OffsetCommit):
        return _commit(event), event.version
    if isinstance(event, cg.TxnOffsetCommit):
        return _txn_commit(event), version
    if isinstance(event, cg.OffsetFetch):
        return _fetch(event, version), version
    if isinstance(event, cg.OffsetDelete):
        topic = w.OffsetDeleteRequest.OffsetDeleteRequestTopic
        return w.OffsetDeleteRequest(event.group_id, tuple(
            topic(t.name, tuple(topic.OffsetDeleteRequestPartition(p) for p in t.partitions))
            for t in event.topics)), version
    if isinstance(event, (cg.DeleteGroups, sg.DeleteGroups)):
        return w.DeleteGroupsRequest(groups_names=event.group_ids), version
    if isinstance(event, sg.SetGroupConfig):
        return _set_group_config(event), version
    if isinstance(event, cg.DescribeGroups):
        return w.DescribeGroupsRequest(groups=event.group_ids), version
    if isinstance(event, cg.ListGroups):
        return w.ListGroupsRequest(states_filter=event.states_filter), version
    if isinstance(event, sg.ShareGroupHeartbeat):
        return w.ShareGroupHeartbeatRequest(
            group_id=event.group_id,
            member_id=event.member_id,
            member_epoch=event.member_epoch,
            rack_id=event.rack_id,
            subscribed_topic_names=event.subscribed_topic_names,
        ), version
    raise TypeError(f"{type(event).__name__} has no wire form")


def _leave(event: cg.LeaveGroup) -> w.LeaveGroupRequest:
    if event.version >= 3:
        members = tuple(
            w.LeaveGroupRequest.MemberIdentity(m.member_id, m.group_instance_id, m.reason)
            for m in event.members
        )
        return w.LeaveGroupRequest(group_id=event.group_id, members=members)
    # v0-2 carry one member id and nothing else
    if len(event.members) != 1 or event.members[0].group_instance_id is not None:
        raise RequestEncodeError(
            "v0-2 carry exactly one member, without an instance id", "LeaveGroup", event.version
        )
    return w.LeaveGroupRequest(group_id=event.group_id, member_id=event.members[0].member_id)


def _commit(event: cg.OffsetCommit) -> w.OffsetCommitRequest:
    topics = tuple(
        w.OffsetCommitRequest.OffsetCommitRequestTopic(
            name=t.name if event.version < 10 else "",
            topic_id=parse_topic_id(t.topic_id, "topic_id")
            if t.topic_id is not None and event.version >= 10
            else uuid.UUID(int=0),
            partitions=tuple(
                w.OffsetCommitRequest.OffsetCommitRequestTopic.OffsetCommitRequestPartition(
                    partition_index=p.partition,
                    committed_offset=p.committed_offset,
                    committed_leader_epoch=p.committed_leader_epoch,
                    committed_metadata=p.committed_metadata,
                )
                for p in t.partitions
            ),
        )
        for t in event.topics
    )
    return w.OffsetCommitRequest(
        group_id=event.group_id,
        generation_id_or_member_epoch=event.generation_id_or_member_epoch,
        member_id=event.member_id,
        group_instance_id=event.group_instance_id,
        retention_time_ms=event.retention_time_ms,
        topics=topics,
    )


def _txn_commit(event: cg.TxnOffsetCommit) -> w.TxnOffsetCommitRequest:
    topic = w.TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic
    return w.TxnOffsetCommitRequest(
        transactional_id=event.transactional_id,
        group_id=event.group_id,
        producer_id=event.producer_id,
        producer_epoch=event.producer_epoch,
        generation_id=event.generation_id,
        member_id=event.member_id,
        group_instance_id=event.group_instance_id,
        topics=tuple(
            topic(t.name, tuple(
                topic.TxnOffsetCommitRequestPartition(p.partition, p.committed_offset,
                                                      p.committed_leader_epoch, p.committed_metadata)
                for p in t.partitions))
            for t in event.topics
        ),
    )


def _set_group_config(event: sg.SetGroupConfig) -> w.IncrementalAlterConfigsRequest:
    """Both overrides at once, as the machine's event states them: a value is SET, None DELETEs
    the override (the group then takes the broker's default)."""
    from groupspec.wire.messages.configs import OP_DELETE, OP_SET, RESOURCE_GROUP

    resource = w.IncrementalAlterConfigsRequest.AlterConfigsResource
    configs = tuple(
        resource.AlterableConfig(name, OP_DELETE, None) if value is None
        else resource.AlterableConfig(name, OP_SET, str(value))
        for name, value in ((SHARE_SESSION_TIMEOUT, event.session_timeout_ms),
                            (SHARE_HEARTBEAT_INTERVAL, event.heartbeat_interval_ms))
    )
    return w.IncrementalAlterConfigsRequest(resources=(resource(RESOURCE_GROUP, event.group_id, configs),))


def _fetch(event: cg.OffsetFetch, version: int | None) -> w.OffsetFetchRequest:
    if version is not None and version < 8:
        topics = (
            None
            if event.topics is None
            else tuple(
                w.OffsetFetchRequest.OffsetFetchRequestTopic(t.name, t.partitions) for t in event.topics
            )
        )
        return w.OffsetFetchRequest(
            group_id=event.group_id, topics=topics, require_stable=event.require_stable
        )
    group_topics = (
        None
        if event.topics is None
        else tuple(
            w.OffsetFetchRequest.OffsetFetchRequestGroup.OffsetFetchRequestTopics(
                name=t.name, partition_indexes=t.partitions
            )
            for t in event.topics
        )
    )
    group = w.OffsetFetchRequest.OffsetFetchRequestGroup(group_id=event.group_id, topics=group_topics)
    return w.OffsetFetchRequest(groups=(group,), require_stable=event.require_stable)


def from_wire(response: Any, version: int) -> Any:
    """The machine's response for a wire response (classic and share-group heartbeat APIs)."""
    if isinstance(response, w.JoinGroupResponse):
        return cg.JoinGroupResponse(
            error=error(response.error_code, "JoinGroup", version),
            generation_id=response.generation_id,
            protocol_type=response.protocol_type,
            protocol_name=response.protocol_name,
            leader=response.leader,
            skip_assignment=response.skip_assignment,
            member_id=response.member_id,
            members=tuple(
                cg.JoinGroupMember(m.member_id, m.group_instance_id, m.metadata) for m in response.members
            ),
        )
    if isinstance(response, w.SyncGroupResponse):
        return cg.SyncGroupResponse(
            error(response.error_code, "SyncGroup", version),
            response.protocol_type,
            response.protocol_name,
            response.assignment,
        )
    if isinstance(response, w.HeartbeatResponse):
        return cg.HeartbeatResponse(error(response.error_code, "Heartbeat", version))
    if isinstance(response, w.LeaveGroupResponse):
        return cg.LeaveGroupResponse(
            error(response.error_code, "LeaveGroup", version),
            tuple(
                cg.MemberLeaveResult(
                    m.member_id, m.group_instance_id, error(m.error_code, "LeaveGroup", version)
                )
                for m in response.members
            ),
        )
    if isinstance(response, w.OffsetCommitResponse):
        return cg.OffsetCommitResponse(
            tuple(
                cg.TopicResult(str(t.topic_id) if version >= 10 else t.name,
                               _partition_results(t.partitions, "OffsetCommit", version))
                for t in response.topics
            )
        )
    if isinstance(response, w.TxnOffsetCommitResponse):
        return cg.TxnOffsetCommitResponse(_topic_results(response.topics, "TxnOffsetCommit", version))
    if isinstance(response, w.OffsetFetchResponse):
        return _fetched(response, version)
    if isinstance(response, w.OffsetDeleteResponse):
        return cg.OffsetDeleteResponse(error(response.error_code, "OffsetDelete", version),
                                       _topic_results(response.topics, "OffsetDelete", version))
    if isinstance(response, w.DeleteGroupsResponse):
        return cg.DeleteGroupsResponse(tuple(
            cg.GroupResult(r.group_id, error(r.error_code, "DeleteGroups", version))
            for r in response.results))
    if isinstance(response, w.IncrementalAlterConfigsResponse):
        if len(response.responses) != 1:
            raise BadResponseError(f"{len(response.responses)} resources in the answer to one",
                                   "IncrementalAlterConfigs", version)
        return sg.SetGroupConfigResponse(error(response.responses[0].error_code, "IncrementalAlterConfigs",
                                               version))
    if isinstance(response, w.DescribeGroupsResponse):
        return cg.DescribeGroupsResponse(tuple(
            cg.DescribedGroup(
                g.group_id, error(g.error_code, "DescribeGroups", version), g.group_state,
                g.protocol_type, g.protocol_data,
                tuple(cg.DescribedMember(m.member_id, m.group_instance_id, m.client_id, m.client_host,
                                         m.member_metadata, m.member_assignment) for m in g.members),
            )
            for g in response.groups
        ))
    if isinstance(response, w.ListGroupsResponse):
        return cg.ListGroupsResponse(
            error(response.error_code, "ListGroups", version),
            tuple(cg.ListedGroup(g.group_id, g.protocol_type, g.group_state) for g in response.groups),
        )
    if isinstance(response, w.ShareGroupHeartbeatResponse):
        assignment = (
            None
            if response.assignment is None
            else tuple(
                sg.TopicPartitions(str(t.topic_id), tuple(t.partitions))
                for t in response.assignment.topic_partitions
            )
        )
        return sg.ShareGroupHeartbeatResponse(
            error(response.error_code, "ShareGroupHeartbeat", version),
            response.member_id,
            response.member_epoch,
            response.heartbeat_interval_ms,
            assignment,
        )
    raise TypeError(f"{type(response).__name__} has no machine form here")


def _partition_results(partitions: tuple[common.PartitionError, ...], api: str,
                       version: int) -> tuple[cg.PartitionResult, ...]:
    return tuple(cg.PartitionResult(p.partition_index, error(p.error_code, api, version)) for p in partitions)


def _topic_results(topics: tuple[common.TopicPartitionErrors, ...], api: str,
                   version: int) -> tuple[cg.TopicResult, ...]:
    return tuple(cg.TopicResult(t.name, _partition_results(t.partitions, api, version)) for t in topics)


def _fetched(response: w.OffsetFetchResponse, version: int) -> cg.OffsetFetchResponse:
    def partition(p: Any) -> cg.FetchedPartition:
        return cg.FetchedPartition(
            p.partition_index,
            p.committed_offset,
            p.committed_leader_epoch,
            p.metadata or "",
            error(p.error_code, "OffsetFetch", version),
        )

    if version < 8:
        return cg.OffsetFetchResponse(
            error(response.error_code, "OffsetFetch", version),
            tuple(
                cg.FetchedTopic(t.name, tuple(partition(p) for p in t.partitions)) for t in response.topics
            ),
        )
    if len(response.groups) != 1:
        raise BadResponseError(f"{len(response.groups)} groups in the answer to one", "OffsetFetch", version)
    group = response.groups[0]
    return cg.OffsetFetchResponse(
        error(group.error_code, "OffsetFetch", version),
        tuple(cg.FetchedTopic(t.name, tuple(partition(p) for p in t.partitions)) for t in group.topics),
    )

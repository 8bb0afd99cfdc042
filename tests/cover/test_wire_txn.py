"""The kafka:// target's transactions, offset and group deletion and group configuration, over
fake connections: which requests go out, in which order, with which ids, and what comes back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from groupspec.conformance import wire_target as wt
from groupspec.conformance.classic_group_json import RunInput
from groupspec.conformance.wire_txn import CONCURRENT_TRANSACTIONS, Transactions, TxnError, txn_problems
from groupspec.impl.codec.consumer_protocol import decode_subscription, encode_subscription
from groupspec.types import classic_group as cg
from groupspec.types import share_group as sg
from groupspec.types.errors import Errors
from groupspec.types.records import ConsumerProtocolSubscription
from groupspec.wire import messages as w
from groupspec.wire.messages.configs import OP_DELETE, OP_SET, RESOURCE_BROKER, RESOURCE_GROUP
from groupspec.wire.translate import from_wire, to_wire


@dataclass
class TxnBroker:
    """A transaction coordinator: producer ids from 1000, CONCURRENT_TRANSACTIONS for the first
    ``busy`` InitProducerIds after an EndTxn (the markers still being written)."""

    txn_version: int = 5
    busy: int = 2
    seen: list[Any] = field(default_factory=list)
    epochs: dict[str, tuple[int, int]] = field(default_factory=dict)
    _busy_left: int = 0

    def version(self, api_key: int) -> int:
        return {28: 5, 26: 5}.get(api_key, 4)

    def request(self, request: Any, version: int | None = None) -> Any:
        self.seen.append(request)
        if isinstance(request, w.ApiVersionsRequest):
            level = 2 if self.txn_version >= 5 else 1
            return w.ApiVersionsResponse(finalized_features=(
                w.ApiVersionsResponse.FinalizedFeatureKey("transaction.version", level, level),))
        if isinstance(request, w.FindCoordinatorRequest):
            found = w.FindCoordinatorResponse.Coordinator(request.coordinator_keys[0], 1, "h", 9)
            return w.FindCoordinatorResponse(coordinators=(found,))
        if isinstance(request, w.InitProducerIdRequest):
            if self._busy_left:
                self._busy_left -= 1
                return w.InitProducerIdResponse(error_code=CONCURRENT_TRANSACTIONS)
            tid = request.transactional_id or ""
            pid, epoch = self.epochs.get(tid, (1000 + len(self.epochs), -1))
            self.epochs[tid] = (pid, epoch + 1)
            return w.InitProducerIdResponse(producer_id=pid, producer_epoch=epoch + 1)
        if isinstance(request, w.AddOffsetsToTxnRequest):
            return w.AddOffsetsToTxnResponse()
        if isinstance(request, w.EndTxnRequest):
            self._busy_left = self.busy
            if self.txn_version >= 5:
                pid, epoch = self.epochs[request.transactional_id]
                self.epochs[request.transactional_id] = (pid, epoch + 1)
                return w.EndTxnResponse(producer_id=pid, producer_epoch=epoch + 1)
            return w.EndTxnResponse()
        raise AssertionError(f"unexpected {request!r}")

    def close(self) -> None:
        pass


def _txns(broker: TxnBroker) -> Transactions:
    return Transactions("run", lambda host, port: broker, broker, clock=lambda: 0.0, sleep=lambda s: None)


def _commit(pid: int, group: str = "g") -> cg.TxnOffsetCommit:
    return cg.TxnOffsetCommit("tx", pid, 1, group, topics=(cg.CommitTopic("o", (cg.CommitPartition(0, 5),)),))


def test_a_producer_is_initialised_once_and_adds_each_group_below_v5() -> None:
    broker = TxnBroker(txn_version=4)
    txns = _txns(broker)
    assert txns.begin(_commit(7), "run-g", 4) == ("run-tx7", 1000, 0)
    assert txns.begin(_commit(7), "run-g", 4) == ("run-tx7", 1000, 0)
    assert txns.begin(_commit(7, "h"), "run-h", 4) == ("run-tx7", 1000, 0)
    kinds = [type(r).__name__ for r in broker.seen]
    assert kinds == ["FindCoordinatorRequest", "InitProducerIdRequest", "AddOffsetsToTxnRequest",
                     "AddOffsetsToTxnRequest"]
    assert broker.seen[0].key_type == 1 and broker.seen[0].coordinator_keys == ("run-tx7",)
    assert [r.group_id for r in broker.seen if isinstance(r, w.AddOffsetsToTxnRequest)] == ["run-g", "run-h"]


def test_from_v5_the_commit_adds_the_group_itself() -> None:
    broker = TxnBroker(txn_version=5)
    txns = _txns(broker)
    txns.begin(_commit(7), "run-g", 5)
    assert not any(isinstance(r, w.AddOffsetsToTxnRequest) for r in broker.seen)


@pytest.mark.parametrize("level, commit, end", [(2, 5, 5), (1, 4, 4)])
def test_the_versions_follow_the_clusters_transactions_version(level: int, commit: int, end: int) -> None:
    """Kafka's producer uses TxnOffsetCommit v5 and EndTxn v5 only with transaction.version 2
    finalized, though a broker offers them either way."""
    broker = TxnBroker(txn_version=5 if level == 2 else 4, busy=0)
    sent: list[tuple[Any, int | None]] = []
    answer = broker.request

    def record(request: Any, version: int | None = None) -> Any:
        sent.append((request, version))
        return answer(request, version)

    broker.request = record  # type: ignore[method-assign]
    txns = _txns(broker)
    assert txns.commit_version(broker) == commit
    txns.begin(_commit(7), "run-g", commit)
    txns.end(cg.TxnMarker(7, 1, True))
    assert [v for r, v in sent if isinstance(r, w.EndTxnRequest)] == [end]
    assert any(isinstance(r, w.AddOffsetsToTxnRequest) for r, _ in sent) == (commit < 5)


def test_a_marker_ends_an_open_transaction_and_waits_for_its_markers() -> None:
    broker = TxnBroker(txn_version=5, busy=2)
    txns = _txns(broker)
    txns.begin(_commit(7), "run-g", 5)
    assert txns.end(cg.TxnMarker(7, 1, commit=False)) is True
    end = [r for r in broker.seen if isinstance(r, w.EndTxnRequest)]
    assert [(e.transactional_id, e.producer_id, e.producer_epoch, e.committed) for e in end] == [
        ("run-tx7", 1000, 0, False)]
    # two InitProducerIds answered CONCURRENT_TRANSACTIONS, the third settles
    after = broker.seen[broker.seen.index(end[0]) + 1:]
    assert [type(r).__name__ for r in after] == ["InitProducerIdRequest"] * 3
    # the next transaction carries the epoch the last InitProducerId gave
    assert txns.begin(_commit(7), "run-g", 5) == ("run-tx7", 1000, 2)


def test_a_marker_for_a_producer_with_nothing_open_sends_nothing() -> None:
    broker = TxnBroker()
    txns = _txns(broker)
    assert txns.end(cg.TxnMarker(9, 1, commit=True)) is False
    txns.begin(_commit(7), "run-g", 5)
    assert txns.end(cg.TxnMarker(7, 1, commit=True)) is True
    sent = len(broker.seen)
    assert txns.end(cg.TxnMarker(7, 1, commit=True)) is False  # already ended
    assert len(broker.seen) == sent


def test_a_refused_step_is_a_txn_error_naming_it() -> None:
    broker = TxnBroker()
    broker.request = lambda request, version=None: (  # type: ignore[method-assign]
        w.FindCoordinatorResponse(coordinators=(w.FindCoordinatorResponse.Coordinator("x", 1, "h", 9),))
        if isinstance(request, w.FindCoordinatorRequest) else w.InitProducerIdResponse(error_code=53))
    with pytest.raises(TxnError, match="InitProducerId for 'run-tx7' answered error code 53"):
        _txns(broker).begin(_commit(7), "run-g", 5)


def test_epochs_the_broker_would_have_to_draw_are_unrealisable() -> None:
    run = RunInput(config=cg.ClassicConfig(), events=(_commit(7), cg.TxnMarker(7, 2, True)))
    assert txn_problems(run) == ["producer 7 is used at epochs 1 and 2: a broker hands out the epochs "
                                 "itself, so fencing by epoch cannot be realised"]
    other = RunInput(config=cg.ClassicConfig(), events=(_commit(7), cg.TxnMarker(8, 0, True)))
    assert txn_problems(other) == []


# ---------------------------------------------------------------------------------------------
# Translation and names
# ---------------------------------------------------------------------------------------------


def test_deletion_and_transactional_commits_translate_both_ways() -> None:
    request, _ = to_wire(cg.OffsetDelete("g", (cg.FetchTopic("o", (0, 2)),)))
    assert request == w.OffsetDeleteRequest("g", (w.OffsetDeleteRequest.OffsetDeleteRequestTopic("o", (
        w.OffsetDeleteRequest.OffsetDeleteRequestTopic.OffsetDeleteRequestPartition(0),
        w.OffsetDeleteRequest.OffsetDeleteRequestTopic.OffsetDeleteRequestPartition(2))),))
    assert to_wire(cg.DeleteGroups(("a", "b")))[0] == w.DeleteGroupsRequest(("a", "b"))
    txn, version = to_wire(_commit(7), 5)
    assert version == 5 and (txn.transactional_id, txn.producer_id, txn.generation_id) == ("tx", 7, -1)
    part = w.common.PartitionError
    answer = from_wire(w.OffsetDeleteResponse(0, 0, (w.OffsetDeleteResponse.OffsetDeleteResponseTopic(
        "o", (part(0, 86),)),)), 0)
    assert answer == cg.OffsetDeleteResponse(Errors.NONE, (cg.TopicResult("o", (
        cg.PartitionResult(0, Errors.GROUP_SUBSCRIBED_TO_TOPIC),)),))
    deleted = from_wire(w.DeleteGroupsResponse(0, (w.DeleteGroupsResponse.DeletableGroupResult("a", 68),)), 2)
    assert deleted == cg.DeleteGroupsResponse((cg.GroupResult("a", Errors.NON_EMPTY_GROUP),))


def test_a_group_config_change_sets_what_it_names_and_deletes_what_it_leaves_out() -> None:
    request, _ = to_wire(sg.SetGroupConfig("g", session_timeout_ms=50_000))
    (resource,) = request.resources
    assert (resource.resource_type, resource.resource_name) == (RESOURCE_GROUP, "g")
    assert [(c.name, c.config_operation, c.value) for c in resource.configs] == [
        ("share.session.timeout.ms", OP_SET, "50000"), ("share.heartbeat.interval.ms", OP_DELETE, None)]
    result = w.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse
    assert from_wire(w.IncrementalAlterConfigsResponse(0, (result(40, "bad", 32, "g"),)), 1) == \
        sg.SetGroupConfigResponse(Errors.INVALID_CONFIG)


def test_offset_commit_v10_goes_out_by_the_runs_topic_id_and_comes_back_by_name() -> None:
    names = wt.Names("t")
    names.topic_ids["orders"] = "6f726465-7273-4000-8000-00000000abcd"
    commit = cg.OffsetCommit("g", topics=(cg.CommitTopic("orders", (cg.CommitPartition(0, 1),),
                                                         topic_id="6f726465-7273-4000-8000-000000000001"),),
                             version=10)
    out = wt.request_out(commit, names)
    assert out.topics[0].topic_id == "6f726465-7273-4000-8000-00000000abcd"
    back = wt.response_back(cg.OffsetCommitResponse((cg.TopicResult(
        "6f726465-7273-4000-8000-00000000abcd", ()),)), names)
    assert back.topics[0].name == "orders"


def test_a_consumer_subscription_goes_out_in_the_runs_topic_names_and_comes_back() -> None:
    sub = ConsumerProtocolSubscription(("audit", "orders"), None, (
        ConsumerProtocolSubscription.TopicPartition("orders", (0,)),), 3, None)
    data = encode_subscription(sub, 3)
    names = wt.Names("run")
    join = cg.JoinGroup("g", protocols=(cg.Protocol("range", data),))
    out = wt.request_out(join, names)
    sent, version = decode_subscription(out.protocols[0].metadata)
    assert version == 3 and sent.topics == ("run-audit", "run-orders")
    assert sent.owned_partitions[0].topic == "run-orders"
    member = cg.JoinGroupMember("m", None, out.protocols[0].metadata)
    answer = cg.JoinGroupResponse(Errors.NONE, 1, members=(member,))
    assert wt.response_back(answer, names).members[0].metadata == data
    # not a consumer group, or bytes that are no subscription: unchanged
    other = cg.JoinGroup("g", protocol_type="connect", protocols=(cg.Protocol("x", data),))
    assert wt.request_out(other, names).protocols[0].metadata == data
    assert wt.renamed_subscription(b"\x00", names.topic) == b"\x00"
    assert wt.renamed_subscription(data + b"\x00", names.topic) == data + b"\x00"


# ---------------------------------------------------------------------------------------------
# A run's markers, and a share group's configuration
# ---------------------------------------------------------------------------------------------


@dataclass
class GroupConn:
    """A group coordinator that accepts every TxnOffsetCommit at once."""

    client_id: str = "groupspec"
    sent: list[Any] = field(default_factory=list)

    def send(self, request: Any, version: int | None = None) -> Any:
        self.sent.append((request, version))
        return type("P", (), {"version": version})()

    def receive(self, pending: Any) -> Any:
        request, _ = self.sent[-1]
        topic = w.TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic
        return w.TxnOffsetCommitResponse(0, tuple(
            topic(t.name, tuple(w.common.PartitionError(p.partition_index, 0)
                                for p in t.partitions)) for t in request.topics))

    def request(self, request: Any, version: int | None = None) -> Any:
        return self.receive(self.send(request, version))

    def version(self, api_key: int) -> int:
        return 5

    def fileno(self) -> int:
        return -1

    def close(self) -> None:
        pass


def test_a_run_sends_commits_as_its_producers_and_leaves_markers_answers_unobserved() -> None:
    broker, group = TxnBroker(busy=0), GroupConn()
    run = RunInput(config=cg.ClassicConfig(), events=(_commit(7), cg.TxnMarker(8, 0, True),
                                                      cg.TxnMarker(7, 1, True)))
    clock = [0.0]

    def wait(busy: Any, timeout: float) -> list[Any]:
        if busy:  # every answer is there at once
            return list(busy)
        clock[0] += max(timeout, 0.0)
        return []

    driver = wt.ClassicRun(run, wt.Names("run"), lambda client: group, wt.Scaling(), clock=lambda: clock[0],
                           wait=wait, txn=_txns(broker))
    out = driver.drive()
    (sent, version), = group.sent
    assert version == 5
    assert (sent.transactional_id, sent.producer_id, sent.group_id) == ("run-tx7", 1000, "run-g")
    assert sent.topics[0].name == "run-o"
    assert [type(o.answers[0].response).__name__ for o in out.outputs] == [
        "TxnOffsetCommitResponse", "TxnMarkerResponse", "TxnMarkerResponse"]
    assert out.outputs[0].answers[0].response.topics[0].name == "o"
    assert {"outputs.1.answers[request=1].response", "outputs.2.answers[request=2].response"} <= set(
        driver.unobserved)
    assert sum(isinstance(r, w.EndTxnRequest) for r in broker.seen) == 1  # producer 8 had nothing open


@dataclass
class ConfigConn:
    """A broker's DescribeConfigs: its share bounds, and a group's override once ``after`` asks."""

    bounds: dict[str, str]
    after: int = 1
    asked: int = 0

    def request(self, request: Any, version: int | None = None) -> Any:
        (resource,) = request.resources
        result = w.DescribeConfigsResponse.DescribeConfigsResult
        entry = result.DescribeConfigsResourceResult
        if resource.resource_type == RESOURCE_BROKER:
            return w.DescribeConfigsResponse(0, (result(0, None, 4, "1", tuple(
                entry(k, v) for k, v in self.bounds.items() if k in resource.configuration_keys)),))
        self.asked += 1
        source = wt.GROUP_CONFIG_SOURCE if self.asked > self.after else 5
        return w.DescribeConfigsResponse(0, (result(0, None, 32, resource.resource_name, (
            entry("share.session.timeout.ms", "50000", config_source=source),
            entry("share.heartbeat.interval.ms", "5000", config_source=5))),))


def test_share_bounds_are_read_from_the_broker_and_must_be_the_vectors() -> None:
    from groupspec.conformance.share_group_json import RunInput as ShareInput

    config = sg.ShareGroupConfig()
    bounds = {prop: str(getattr(config, f)) for prop, f in wt.SHARE_BOUNDS.items()}
    run = ShareInput(config=config, topics=(), events=(sg.SetGroupConfig("g", 50_000),))
    wt._check_share_bounds(run, ConfigConn(bounds), 1)  # type: ignore[arg-type]
    lower = bounds | {"group.share.min.session.timeout.ms": "1000"}
    with pytest.raises(wt.Unrealisable, match=r"min.session.timeout.ms=45000, the broker has 1000 \(read"):
        wt._check_share_bounds(run, ConfigConn(lower), 1)  # type: ignore[arg-type]
    with pytest.raises(wt.Unrealisable, match="node id is unknown"):
        wt._check_share_bounds(run, ConfigConn(bounds), None)  # type: ignore[arg-type]


def test_a_group_config_change_is_waited_on_until_the_broker_describes_it() -> None:
    conn = ConfigConn({}, after=2)
    waited: list[float] = []
    share = wt.ShareRun(None, wt.Names("run"), {}, conn, wt.Scaling(),  # type: ignore[arg-type]
                        clock=lambda: 0.0, wait=lambda busy, t: waited.append(t) or [])
    share._applied(sg.SetGroupConfig("run-g", session_timeout_ms=50_000))
    assert conn.asked == 3 and len(waited) == 2


@dataclass
class SettingsConn:
    """A bootstrap broker (node 3 at h:1) whose settings DescribeConfigs reads."""

    settings: dict[str, str]
    asked: list[Any] = field(default_factory=list)

    def request(self, request: Any, version: int | None = None) -> Any:
        self.asked.append(request)
        if isinstance(request, w.MetadataRequest):
            broker = w.MetadataResponse.MetadataResponseBroker
            return w.MetadataResponse(brokers=(broker(9, "other", 2), broker(3, "h", 1)))
        (resource,) = request.resources
        assert (resource.resource_type, resource.resource_name) == (RESOURCE_BROKER, "3")
        entry = w.DescribeConfigsResponse.DescribeConfigsResult.DescribeConfigsResourceResult
        return w.DescribeConfigsResponse(0, (w.DescribeConfigsResponse.DescribeConfigsResult(
            0, None, 4, "3", tuple(entry(k, v) for k, v in self.settings.items()
                                   if k in resource.configuration_keys)),))

    def close(self) -> None:
        pass


def test_what_no_probe_shows_is_read_from_the_broker_once_and_named_so() -> None:
    conn = SettingsConn({"offset.metadata.max.bytes": "8", "offsets.retention.minutes": "1",
                         "group.max.size": "5"})
    target = wt.WireTarget("h", 1, 1.0, connect=lambda host, port, client: conn,
                           declared={"group.max.size": "1"})
    read = target._broker_settings()
    assert read == {"offset.metadata.max.bytes": "8", "offsets.retention.ms": "60000", "group.max.size": "5"}
    assert target._broker_settings() is read and len(conn.asked) == 2  # once per target
    assert "read from the broker (DescribeConfigs): group.max.size, offset.metadata.max.bytes, " \
           "offsets.retention.ms" in target.notes
    assert any(n.endswith("offsets.retention.check.interval.ms") for n in target.notes)
    meta = RunInput(config=cg.ClassicConfig(), events=(cg.OffsetCommit("g", topics=(cg.CommitTopic("o", (
        cg.CommitPartition(0, 1, committed_metadata="123456789"),)),)),))
    assert wt.assumed_problems(meta, target.declared, read) == [
        "the vector needs offset.metadata.max.bytes=4096, the broker has 8 (read with DescribeConfigs)"]
    two = RunInput(config=cg.ClassicConfig(max_size=1), events=(cg.JoinGroup("g"), cg.JoinGroup("g")))
    assert wt.assumed_problems(two, target.declared, read) == []  # the declared value wins


def test_a_broker_that_will_not_describe_its_settings_leaves_the_assumptions() -> None:
    from groupspec.wire import NoCommonVersionError

    def refuse(host: str, port: int, client: str) -> Any:
        raise NoCommonVersionError("the peer does not offer it", "DescribeConfigs")

    target = wt.WireTarget("h", 1, 1.0, connect=refuse)
    assert target._broker_settings() == {}
    assert any(n.startswith("taken at Kafka's defaults") for n in target.notes)


@dataclass
class ShareConn:
    """A share coordinator answering IncrementalAlterConfigs (INVALID_CONFIG above 60000 ms),
    DescribeConfigs of a group as last set, and DeleteGroups (GROUP_ID_NOT_FOUND)."""

    sent: list[Any] = field(default_factory=list)
    session: str | None = None

    def send(self, request: Any, version: int | None = None) -> Any:
        self.sent.append(request)
        return type("P", (), {"version": version or 1})()

    def receive(self, pending: Any) -> Any:
        return self.request(self.sent.pop())

    def request(self, request: Any, version: int | None = None) -> Any:
        self.sent.append(request)
        if isinstance(request, w.IncrementalAlterConfigsRequest):
            (resource,) = request.resources
            value = resource.configs[0].value
            ok = value is None or int(value) <= 60_000
            if ok:
                self.session = value
            result = w.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse
            code = 0 if ok else 40
            return w.IncrementalAlterConfigsResponse(0, (result(code, None, 32, resource.resource_name),))
        if isinstance(request, w.DescribeConfigsRequest):
            entry = w.DescribeConfigsResponse.DescribeConfigsResult.DescribeConfigsResourceResult
            own = (self.session, wt.GROUP_CONFIG_SOURCE) if self.session else ("45000", 5)
            configs = (entry("share.session.timeout.ms", own[0], config_source=own[1]),
                       entry("share.heartbeat.interval.ms", "5000", config_source=5))
            return w.DescribeConfigsResponse(0, (w.DescribeConfigsResponse.DescribeConfigsResult(
                0, None, 32, "g", configs),))
        assert isinstance(request, w.DeleteGroupsRequest)
        return w.DeleteGroupsResponse(0, tuple(w.DeleteGroupsResponse.DeletableGroupResult(g, 69)
                                               for g in request.groups_names))

    def version(self, api_key: int) -> int:
        return 1

    def fileno(self) -> int:
        return -1

    def close(self) -> None:
        pass


def test_a_share_run_sets_configs_and_deletes_groups_in_the_runs_names() -> None:
    from groupspec.conformance.share_group_json import RunInput as ShareInput

    conn = ShareConn()
    run = ShareInput(events=(sg.SetGroupConfig("g", 50_000), sg.SetGroupConfig("g", 60_001),
                             sg.DeleteGroups(("g", "h"))))
    out = wt.ShareRun(run, wt.Names("run"), {}, conn, wt.Scaling(), clock=lambda: 0.0,
                      wait=lambda busy, t: []).drive()
    answers = [o.answers[0].response for o in out.outputs]
    assert answers == [sg.SetGroupConfigResponse(Errors.NONE),
                       sg.SetGroupConfigResponse(Errors.INVALID_CONFIG),
                       sg.DeleteGroupsResponse((sg.GroupResult("g", Errors.GROUP_ID_NOT_FOUND),
                                                sg.GroupResult("h", Errors.GROUP_ID_NOT_FOUND)))]
    alters = [r for r in conn.sent if isinstance(r, w.IncrementalAlterConfigsRequest)]
    assert [r.resources[0].resource_name for r in alters] == ["run-g", "run-g"]
    # the accepted change was described back before the run went on; the refused one was not asked
    assert sum(isinstance(r, w.DescribeConfigsRequest) for r in conn.sent) == 1
    (deleted,) = [r for r in conn.sent if isinstance(r, w.DeleteGroupsRequest)]
    assert deleted.groups_names == ("run-g", "run-h")

"""All or nothing at the edge: the classic and share group coordinators refuse what Kafka would.

A step either writes its records and changes memory through them, or raises a typed error and
changes nothing: not the groups, not the clock, not the log. Values a broker would never hand a
coordinator (strings over 32767 UTF-8 bytes or with a lone surrogate, ints outside their wire
type, ``None`` or a list where a string or a tuple belongs, a partition count of -4, a topic id
that is no Uuid) are refused by both layers with the same InputError naming the field
(issue 15 items 7 and 8). The regressions below are the audit's own inputs; the property tests
put random wrong values into every field of every event.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.impl.share_group import ShareGroupCoordinator
from groupspec.spec import classic_group as cspec
from groupspec.spec import share_group as sspec
from groupspec.types import GroupspecError, InputError
from groupspec.types import classic_group as c
from groupspec.types import share_group as s
from groupspec.types.errors import Errors
from groupspec.types.topic_id import kafka_string

LAYERS = ("spec", "impl")
PROTOCOLS = (c.Protocol("range", b"\x00\x01\x00\x00\x00\x01\x00\x06orders\xff\xff\xff\xff"),)
TOPICS = (c.CommitTopic("orders", (c.CommitPartition(0, 42),)),)
T1 = s.TopicMetadata("t1", "00000000-0000-4000-8000-000000000001", 2)
LONG = "x" * 40_000


# ---------------------------------------------------------------------------------------------
# Drivers: one per machine and layer, each able to show its memory and to replay its log
# ---------------------------------------------------------------------------------------------


class Classic:
    def __init__(self, layer: str) -> None:
        self.layer = layer
        self.index = 0
        self.config = c.ClassicConfig(offsets_topic_partitions=3)
        if layer == "spec":
            self.state = cspec.initial_state(self.config)
        else:
            self.impl = ClassicCoordinator(self.config)

    def send(self, event: Any) -> c.Output:
        index, self.index = self.index, self.index + 1
        if self.layer == "spec":
            self.state, out = cspec.step(self.state, event, index)
            return out
        return self.impl.handle(event, index)

    def view(self) -> c.CoordinatorView:
        return cspec.view(self.state) if self.layer == "spec" else self.impl.view()

    def log_size(self) -> object:
        if self.layer == "spec":
            return len(self.state.log)
        return tuple(self.impl.runtime.log(p).next_offset for p in range(3))

    def replayed(self) -> c.CoordinatorView:
        """The view after a failover: what the log alone rebuilds."""
        if self.layer == "spec":
            state, _ = cspec.step(self.state, c.Restart(), self.index)
            return cspec.view(state)
        fresh = ClassicCoordinator(self.config, start_ms=self.impl.runtime.clock.now())
        fresh.runtime.unload_all()
        for p in range(self.config.offsets_topic_partitions):
            fresh.runtime.log(p).append_raw(self.impl.runtime.log(p).raw())
        fresh.runtime.load_all()
        return fresh.view()


def persisted(view: c.CoordinatorView) -> object:
    """What the records carry of each group (not timers, parked requests or a simple group's stamp)."""
    return tuple((g.group_id, g.state, g.protocol_type, g.protocol_name, g.generation_id, g.leader_id,
                  tuple((m.member_id, m.client_id, m.assignment) for m in g.members), g.offsets,
                  g.pending_offsets) for g in view.groups)


def stable_classic(layer: str) -> tuple[Classic, str]:
    """One member, Stable at generation 1, with a committed offset; returns its member id."""
    d = Classic(layer)
    first = d.send(c.JoinGroup("g", protocols=PROTOCOLS, new_member_uuid="u1"))
    member = first.answers[0].response.member_id  # type: ignore[attr-defined]
    d.send(c.JoinGroup("g", member_id=member, protocols=PROTOCOLS))
    d.send(c.AdvanceClock(3_000))
    d.send(c.SyncGroup("g", 1, member, protocol_type="consumer", protocol_name="range"))
    d.send(c.OffsetCommit("g", 1, member, topics=TOPICS))
    assert d.view().groups[0].state == "Stable"
    return d, str(member)


class Share:
    def __init__(self, layer: str) -> None:
        self.layer = layer
        self.index = 0
        self.config = s.ShareGroupConfig(offsets_topic_partitions=3)
        if layer == "spec":
            self.state = sspec.initial_state(self.config, (T1,))
        else:
            self.impl = ShareGroupCoordinator(self.config, (T1,))

    def send(self, event: Any) -> s.Output:
        index, self.index = self.index, self.index + 1
        if self.layer == "spec":
            self.state, out = sspec.step(self.state, event, index)
            return out
        return self.impl.handle(event, index)

    def view(self) -> s.ShareCoordinatorView:
        return sspec.view(self.state) if self.layer == "spec" else self.impl.view()

    def log_size(self) -> object:
        if self.layer == "spec":
            return len(self.state.log)
        return tuple(self.impl.runtime.log(p).next_offset for p in range(3))


def busy_share(layer: str) -> Share:
    d = Share(layer)
    d.send(s.ShareGroupHeartbeat("g", "m1", 0, subscribed_topic_names=("t1",)))
    d.send(s.PersisterAnswer(0))
    d.send(s.ShareGroupHeartbeat("g", "m2", 0, subscribed_topic_names=("t1",)))
    return d


def refused(d: Classic | Share, event: Any, field: str) -> InputError:
    """``event`` raises an InputError naming ``field`` and leaves memory and log as they were."""
    view, log = d.view(), d.log_size()
    with pytest.raises(InputError) as info:
        d.send(event)
    assert info.value.field == field, str(info.value)
    assert d.view() == view
    assert d.log_size() == log
    return info.value


# ---------------------------------------------------------------------------------------------
# The audit's inputs (issue 15 items 7 and 8)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layer", LAYERS)
def test_a_40000_character_client_id_is_refused_before_the_group_changes(layer: str) -> None:
    d, member = stable_classic(layer)
    refused(d, c.JoinGroup("g", protocols=PROTOCOLS, client_id=LONG, version=3), "client_id")
    # Just short enough for the request, too long once '-' and the UUID make it a member id.
    error = refused(d, c.JoinGroup("g", protocols=PROTOCOLS, client_id="c" * 32_760, new_member_uuid="0" * 9),
                    "client_id")
    assert "32770 UTF-8 bytes" in str(error)
    refused(d, c.SyncGroup("g", 1, member, protocol_type="consumer", protocol_name="range",
                           assignments=(c.SyncAssignment(LONG, b""),)), "assignments[0].member_id")
    assert persisted(d.view()) == persisted(d.replayed())


@pytest.mark.parametrize("layer", LAYERS)
def test_a_commit_kafka_could_not_parse_leaves_no_group_behind(layer: str) -> None:
    d = Classic(layer)
    refused(d, c.OffsetCommit(LONG, topics=TOPICS), "group_id")
    refused(d, c.OffsetCommit("g", retention_time_ms=2**63, topics=TOPICS, version=2), "retention_time_ms")
    refused(d, c.OffsetCommit("g", topics=(c.CommitTopic("t", (c.CommitPartition(0, 1, -1, "a\ud800"),)),)),
            "topics[0].partitions[0].committed_metadata")
    refused(d, c.OffsetCommit("g", topics=(c.CommitTopic("t", (c.CommitPartition(-1, 1),)),)),
            "topics[0].partitions[0].partition")
    refused(d, c.TxnOffsetCommit("tx", -1, 0, "g", topics=TOPICS), "producer_id")
    assert d.view().groups == ()


@pytest.mark.parametrize("layer", LAYERS)
def test_a_retention_that_overflows_wraps_as_a_java_long(layer: str) -> None:
    """now + retention is a Java long sum: near 2**63 it wraps into the past, and expires."""
    d = Classic(layer)
    d.send(c.AdvanceClock(5))
    d.send(c.OffsetCommit("g", retention_time_ms=2**63 - 1, topics=TOPICS, version=2))
    (offset,) = d.view().groups[0].offsets
    assert offset.expire_timestamp_ms == 5 + 2**63 - 1 - 2**64
    assert persisted(d.view()) == persisted(d.replayed())
    d.send(c.AdvanceClock(600_000))  # the expiration job runs
    assert d.view().groups == ()


@pytest.mark.parametrize("layer", LAYERS)
def test_a_clock_beyond_int64_changes_nothing(layer: str) -> None:
    d, _ = stable_classic(layer)
    refused(d, c.AdvanceClock(2**70), "to_ms")
    assert d.view().now_ms == 3_000 and d.view().groups[0].members
    share = busy_share(layer)
    refused(share, s.AdvanceClock(2**70), "to_ms")
    assert [len(g.members) for g in share.view().groups] == [2]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_member_id_of_none_is_a_typed_error(layer: str) -> None:
    d, _ = stable_classic(layer)
    refused(d, c.Heartbeat("g", 1, None), "member_id")  # type: ignore[arg-type]
    refused(d, c.LeaveGroup("g", [c.MemberIdentity("x")]), "members")  # type: ignore[arg-type]
    refused(d, "JoinGroup", "event")
    share = busy_share(layer)
    refused(share, s.ShareGroupHeartbeat("g", None, 1), "member_id")  # type: ignore[arg-type]
    refused(share, s.ShareGroupHeartbeat("g", "m1", 1, subscribed_topic_names=["t1"]),  # type: ignore[arg-type]
            "subscribed_topic_names")
    refused(share, s.PersisterAnswer(1, 0), "error")  # type: ignore[arg-type]


@pytest.mark.parametrize("layer", LAYERS)
def test_a_share_heartbeat_kafka_could_not_parse_creates_no_group(layer: str) -> None:
    d = Share(layer)
    refused(d, s.ShareGroupHeartbeat(LONG, "m1", 0, subscribed_topic_names=("t1",)), "group_id")
    refused(d, s.ShareGroupHeartbeat("g", "m1", 0, subscribed_topic_names=("t1", "\udcff")),
            "subscribed_topic_names[1]")
    refused(d, s.ShareGroupHeartbeat("g", "m1", 2**31, subscribed_topic_names=("t1",)), "member_epoch")
    assert d.view().groups == ()


@pytest.mark.parametrize("layer", LAYERS)
def test_metadata_kafka_could_not_hold_is_refused(layer: str) -> None:
    d = busy_share(layer)
    refused(d, s.UpdateMetadata((dataclasses.replace(T1, partitions=-4),)), "topics[0].partitions")
    refused(d, s.UpdateMetadata((dataclasses.replace(T1, topic_id="not-a-uuid"),)), "topics[0].topic_id")
    refused(d, s.UpdateMetadata((T1, dataclasses.replace(T1, name="t2"))), "topics[1].topic_id")
    refused(d, s.UpdateMetadata((dataclasses.replace(T1, name="a/b"),)), "topics[0].name")
    refused(d, s.UpdateMetadata((dataclasses.replace(T1, name="t9"),)), "topics[0].name")  # a rename
    refused(d, s.UpdateMetadata((dataclasses.replace(T1, partitions=s.MAX_TOPIC_PARTITIONS + 1),)),
            "topics[0].partitions")
    with pytest.raises(InputError, match=r"topics\[0\].partitions"):
        ShareGroupCoordinator(s.ShareGroupConfig(), (dataclasses.replace(T1, partitions=0),))
    with pytest.raises(InputError, match=r"topics\[0\].partitions"):
        sspec.initial_state(s.ShareGroupConfig(), (dataclasses.replace(T1, partitions=0),))


@pytest.mark.parametrize("layer", LAYERS)
def test_a_topic_id_in_kafkas_form_is_read_and_kept_in_the_vocabularys(layer: str) -> None:
    import uuid

    d = busy_share(layer)
    grown = dataclasses.replace(T1, topic_id=kafka_string(uuid.UUID(T1.topic_id)), partitions=3)
    out = d.send(s.UpdateMetadata((grown,)))
    d.send(s.ShareGroupHeartbeat("g", "m1", d.view().groups[0].members[0].member_epoch))
    assert all(t.topic_id == T1.topic_id for g in d.view().groups for t in g.initializing + g.initialized)
    assert out.records == ()


# ---------------------------------------------------------------------------------------------
# Random wrong values in every field
# ---------------------------------------------------------------------------------------------

WRONG = st.one_of(
    st.sampled_from([None, True, 1.5, b"bytes", [], (), "", LONG, "a\ud800b", 2**31, -(2**31) - 1,
                     2**63, -(2**63) - 1, 2**70, -4, 0, object(), Errors.NONE]),
    st.text(max_size=5),
    st.integers(),
)


def _templates_classic(member: str) -> list[Any]:
    topics = (c.CommitTopic("orders", (c.CommitPartition(0, 7, -1, "m"),)),)
    return [
        c.JoinGroup("g", member, protocols=PROTOCOLS),
        c.JoinGroup("g", protocols=PROTOCOLS, new_member_uuid="u9"),
        c.SyncGroup("g", 1, member, protocol_type="consumer", protocol_name="range",
                    assignments=(c.SyncAssignment(member, b"a"),)),
        c.Heartbeat("g", 1, member),
        c.LeaveGroup("g", (c.MemberIdentity(member),)),
        c.OffsetCommit("g", 1, member, topics=topics, version=2, retention_time_ms=10),
        c.TxnOffsetCommit("tx", 7, 0, "g", topics=topics),
        c.TxnMarker(7, 0, True),
        c.OffsetFetch("g", (c.FetchTopic("orders", (0,)),)),
        c.OffsetDelete("g", (c.FetchTopic("orders", (0,)),)),
        c.DeleteGroups(("g",)),
        c.DescribeGroups(("g",)),
        c.ListGroups(("Stable",)),
        c.AdvanceClock(4_000),
    ]


def _templates_share() -> list[Any]:
    return [
        s.ShareGroupHeartbeat("g", "m1", 1, rack_id="r", subscribed_topic_names=("t1",)),
        s.ShareGroupHeartbeat("g", "m9", 0, subscribed_topic_names=("t1",)),
        s.UpdateMetadata((dataclasses.replace(T1, racks=(("r1",), ("r2",))),)),
        s.PersisterAnswer(2),
        s.AdvanceClock(1_000),
        s.DeleteGroups(("g",)),
        s.SetGroupConfig("g", 50_000, 6_000),
    ]


def _paths(value: object, path: str = "") -> list[str]:
    """Every field path inside an event (a.b[0].c), so that any one can be replaced."""
    out = []
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            sub = f"{path}.{f.name}" if path else f.name
            out.append(sub)
            out += _paths(getattr(value, f.name), sub)
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            out.append(f"{path}[{i}]")
            out += _paths(item, f"{path}[{i}]")
    return out


def _replaced(value: Any, tokens: list[str], new: object) -> Any:
    """``value`` with the field at ``tokens`` (names and [i] indices) set to ``new``."""
    if not tokens:
        return new
    head, rest = tokens[0], tokens[1:]
    if head.startswith("["):
        items = list(value)
        items[int(head[1:-1])] = _replaced(items[int(head[1:-1])], rest, new)
        return tuple(items)
    return dataclasses.replace(value, **{head: _replaced(getattr(value, head), rest, new)})


def _with_wrong_value(data: st.DataObject, templates: list[Any]) -> Any:
    template = data.draw(st.sampled_from(templates), label="template")
    path = data.draw(st.sampled_from(_paths(template)), label="field")
    event = _replaced(template, re.findall(r"\w+|\[\d+\]", path), data.draw(WRONG, label="value"))
    note(repr(event)[:500])
    return event


def _outcome(d: Classic | Share, event: Any) -> tuple[str, object]:
    view, log = d.view(), d.log_size()
    try:
        d.send(event)
    except GroupspecError as exc:  # anything else fails the test as it stands
        assert d.view() == view, f"memory changed although {exc} was raised"
        assert d.log_size() == log, f"the log grew although {exc} was raised"
        return "refused", f"{type(exc).__name__}: {exc}"
    return "done", None


@given(data=st.data())
def test_wrong_values_in_classic_events_are_typed_errors_that_change_nothing(data: st.DataObject) -> None:
    spec_d, member = stable_classic("spec")
    impl_d, _ = stable_classic("impl")
    event = _with_wrong_value(data, _templates_classic(member))
    spec_outcome = _outcome(spec_d, event)
    assert _outcome(impl_d, event) == spec_outcome
    assert impl_d.view() == spec_d.view()


@given(data=st.data())
def test_wrong_values_in_share_group_events_are_typed_errors_that_change_nothing(data: st.DataObject) -> None:
    spec_d, impl_d = busy_share("spec"), busy_share("impl")
    event = _with_wrong_value(data, _templates_share())
    spec_outcome = _outcome(spec_d, event)
    assert _outcome(impl_d, event) == spec_outcome
    assert impl_d.view() == spec_d.view()


def test_every_event_class_has_a_template() -> None:
    """The property tests above cover every event of both vocabularies."""
    classic = {type(e) for e in _templates_classic("m")} | {c.Restart, c.BeginLoad, c.CompleteLoad}
    assert classic == set(typing.get_args(c.ClassicEvent))
    share = {type(e) for e in _templates_share()} | {s.Restart}
    assert share == set(typing.get_args(s.ShareGroupEvent))

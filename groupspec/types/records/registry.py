"""Which record type id means which key and value class, per coordinator topic.

A record's key starts with an int16 type id (Kafka's ``apiKey`` of the key schema, once called
the key "version") and its value with an int16 value version; a null value is a tombstone
(classic_group.md §5.1). This table is what a reader consults for the id and what a writer
consults for the version. Ids missing here (streams groups, 17-23 in ``__consumer_offsets``)
are unknown types, which readers skip with a warning, as Kafka's loader does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType

from groupspec.types.errors import InputError
from groupspec.types.records import consumer_protocol as cp
from groupspec.types.records import offsets_topic as ot
from groupspec.types.records import share_state_topic as st
from groupspec.types.records.schema import MessageSpec, message_spec

OFFSETS_TOPIC = "__consumer_offsets"
SHARE_STATE_TOPIC = "__share_group_state"


@dataclass(frozen=True)
class RecordType:
    """One record type of a coordinator topic.

    ``retired`` names the Kafka release from which brokers no longer know the type (their
    loader skips it as unknown); the classes stay so that logs of older brokers decode.
    """

    topic: str
    type_id: int
    name: str  # without Key/Value, e.g. "OffsetCommit"
    key: type
    value: type
    retired: str | None = None


def _record_types(
    topic: str, module: ModuleType, names: str, retired: Mapping[str, str]
) -> tuple[RecordType, ...]:
    """Pair ``<name>Key`` with ``<name>Value`` of ``module``; the id comes from their schemas."""
    out = []
    for name in names.split():
        key, value = getattr(module, name + "Key"), getattr(module, name + "Value")
        key_spec, value_spec = message_spec(key), message_spec(value)
        if key_spec.api_key is None or key_spec.api_key != value_spec.api_key:
            raise TypeError(f"{name}Key and {name}Value disagree on their record type id")
        out.append(RecordType(topic, key_spec.api_key, name, key, value, retired.get(name)))
    return tuple(out)


_OFFSETS_TYPES = _record_types(
    OFFSETS_TOPIC,
    ot,
    """LegacyOffsetCommit OffsetCommit GroupMetadata
    ConsumerGroupMetadata ConsumerGroupPartitionMetadata ConsumerGroupMemberMetadata
    ConsumerGroupTargetAssignmentMetadata ConsumerGroupTargetAssignmentMember
    ConsumerGroupCurrentMemberAssignment ShareGroupPartitionMetadata ShareGroupMemberMetadata
    ShareGroupMetadata ShareGroupTargetAssignmentMetadata ShareGroupTargetAssignmentMember
    ShareGroupCurrentMemberAssignment ShareGroupStatePartitionMetadata ConsumerGroupRegularExpression""",
    # Type 9's schema files were deleted upstream before 4.2 (share_group_coordinator.md §2.1).
    retired={"ShareGroupPartitionMetadata": "4.2"},
)
_SHARE_STATE_TYPES = _record_types(SHARE_STATE_TOPIC, st, "ShareSnapshot ShareUpdate", retired={})


def _by_id(types: tuple[RecordType, ...]) -> Mapping[int, RecordType]:
    table = {t.type_id: t for t in sorted(types, key=lambda t: t.type_id)}
    if len(table) != len(types):
        raise TypeError("two record types share an id")
    return MappingProxyType(table)


_BY_TOPIC: Mapping[str, Mapping[int, RecordType]] = MappingProxyType(
    {OFFSETS_TOPIC: _by_id(_OFFSETS_TYPES), SHARE_STATE_TOPIC: _by_id(_SHARE_STATE_TYPES)}
)
_BY_KEY: dict[type, RecordType] = {t.key: t for t in _OFFSETS_TYPES + _SHARE_STATE_TYPES}
_BY_CLASS: dict[type, RecordType] = {**_BY_KEY, **{t.value: t for t in _OFFSETS_TYPES + _SHARE_STATE_TYPES}}

#: Every top-level message class: the keys and values of both topics, then the consumer protocol.
ALL_MESSAGE_CLASSES: tuple[type, ...] = (
    *(cls for t in _OFFSETS_TYPES + _SHARE_STATE_TYPES for cls in (t.key, t.value)),
    cp.ConsumerProtocolSubscription,
    cp.ConsumerProtocolAssignment,
)


def record_types(topic: str) -> Mapping[int, RecordType]:
    """The record types of a coordinator topic, by type id in ascending order."""
    try:
        return _BY_TOPIC[topic]
    except KeyError:
        raise InputError("topic", f"{topic!r} is not a coordinator topic ({', '.join(_BY_TOPIC)})") from None


def record_type(topic: str, type_id: int) -> RecordType | None:
    """The record type with this id, or None for an id Kafka 4.2 may write but groupspec does not know."""
    return record_types(topic).get(type_id)


def record_type_of(cls: type) -> RecordType:
    """The record type a key or value class belongs to."""
    found = _BY_CLASS.get(cls)
    if found is None:
        name = getattr(cls, "__qualname__", repr(cls))
        raise InputError("class", f"{name} is not the key or value class of a coordinator record")
    return found


# Versions Kafka 4.2 writes where it is not the value's only version (classic_group.md §5.1;
# ConsumerProtocol.java serialises with the highest version).
_FIXED_WRITTEN_VERSION: dict[type, int] = {
    ot.GroupMetadataValue: 3,
    cp.ConsumerProtocolSubscription: 3,
    cp.ConsumerProtocolAssignment: 3,
}


def written_version(value: object) -> int:
    """The version Kafka 4.2 writes this value at.

    OffsetCommitValue is v1 when it carries an expire timestamp (only v1 has the field) and
    v4 otherwise (4.1+; v3 before); GroupMetadataValue v3; the consumer protocol v3; every
    other value has a single version, 0. Type 0 and type 9 values are never written by 4.2;
    their only version is returned, as older brokers wrote it.
    """
    if isinstance(value, ot.OffsetCommitValue):
        return 1 if value.expire_timestamp != -1 else 4
    cls = type(value)
    fixed = _FIXED_WRITTEN_VERSION.get(cls)
    if fixed is not None:
        return fixed
    spec = getattr(cls, "__kafka_message__", None)
    if cls in _BY_KEY or not isinstance(spec, MessageSpec) or spec.versions.lo != spec.versions.hi:
        raise InputError("value", f"{cls.__qualname__} is not a record value class")
    return spec.versions.lo


@dataclass(frozen=True, slots=True)
class CoordinatorRecord:
    """One record of a coordinator topic, as written or as read.

    ``value`` None is a tombstone (it deletes what the key names), and then ``value_version``
    is None too. A value given without a version gets the one Kafka 4.2 would write.
    """

    key: object
    value: object | None
    value_version: int | None = None

    def __post_init__(self) -> None:
        rtype = _BY_KEY.get(type(self.key))
        if rtype is None:
            raise InputError("key", f"{type(self.key).__qualname__} is not a record key class")
        if self.value is None:
            if self.value_version is not None:
                raise InputError("value_version", "a tombstone has no value version")
            return
        if type(self.value) is not rtype.value:
            got = type(self.value).__qualname__
            raise InputError("value", f"{got} is not the value of {rtype.name} ({rtype.value.__name__})")
        if self.value_version is None:
            object.__setattr__(self, "value_version", written_version(self.value))
        elif self.value_version not in (valid := message_spec(rtype.value).versions):
            raise InputError(
                "value_version", f"{rtype.value.__name__} has versions {valid}, not {self.value_version}"
            )

    @property
    def record_type(self) -> RecordType:
        return _BY_KEY[type(self.key)]

    @property
    def is_tombstone(self) -> bool:
        return self.value is None

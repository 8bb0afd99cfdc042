"""The record classes against Kafka's schema files, and the record type registry.

groupspec keeps its own schema table (the record classes, ``groupspec.types.records``). Part (a)
compares it, field by field, with Kafka's JSON files in ``../shared/kafka-schemas`` (or
``$GROUPSPEC_KAFKA_SCHEMAS``). Those copies are from February 2025 and Kafka 4.2 changed some
records since; every such change is listed in ``KNOWN_DRIFT`` with its source, and the test
demands that the differences found are exactly those, so any new drift (a typo in a class, or
a newer copy of the files) fails with the list of differences. Part (b) checks the registry.
"""

from __future__ import annotations

import dataclasses
import json
import os
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import groupspec.types.records as records
from groupspec.types.errors import InputError
from groupspec.types.records import (
    ALL_MESSAGE_CLASSES,
    OFFSETS_TOPIC,
    SHARE_STATE_TOPIC,
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
    CoordinatorRecord,
    GroupMetadataKey,
    GroupMetadataValue,
    OffsetCommitKey,
    OffsetCommitValue,
    ShareGroupMetadataValue,
    ShareSnapshotKey,
    ShareSnapshotValue,
    consumer_protocol,
    offsets_topic,
    record_type,
    record_type_of,
    record_types,
    share_state_topic,
    written_version,
)
from groupspec.types.records.schema import (
    PRIMITIVES,
    ZERO_UUID,
    Versions,
    field_specs,
    kafka_name,
    kfield,
    message,
    message_spec,
    snake_name,
    struct_classes,
)

# --- (a) the classes against Kafka's JSON files -------------------------------------------------

SCHEMAS = Path(
    os.environ.get("GROUPSPEC_KAFKA_SCHEMAS")
    or Path(__file__).resolve().parents[2].parent / "shared" / "kafka-schemas"
)
needs_schemas = pytest.mark.skipif(
    not SCHEMAS.is_dir(), reason=f"Kafka schema copies not found at {SCHEMAS} (set GROUPSPEC_KAFKA_SCHEMAS)"
)

ABSENT = "<absent>"  # a field one side does not have
FIRST = "<first>"  # "field" attribute of a field with no predecessor
NEW_STRUCT = "<new struct>"  # default of a non-null struct field: an empty instance

TREE_42 = "Kafka 4.2 tree (wtmxxx/kafka-se-homework da9b183, trunk of 2025-10-18, 4.2.0-SNAPSHOT)"
SHARE_STATE_42 = f"{TREE_42}: share-coordinator/.../message/{{}}.json; KIP-932 left preview"


def _share_state_drift(name: str) -> list[tuple[str, str, str, object, object, str]]:
    """ShareSnapshotValue and ShareUpdateValue lost their "0"-only versions and uint16 epoch."""
    src = SHARE_STATE_42.format(name)
    rows: list[tuple[str, str, str, object, object, str]] = [
        (name, "SnapshotEpoch", "type", "uint16", "int32", src),
        (name, "SnapshotEpoch", "versions", "0", "0+", src),
        (name, "StartOffset", "versions", "0", "0+", src),
        (name, "StateBatches", "versions", "0", "0+", src),
    ]
    rows += [
        (name, f"StateBatches.{f}", "versions", "0", "0+", src)
        for f in ("FirstOffset", "LastOffset", "DeliveryState", "DeliveryCount")
    ]
    return rows


#: Kafka's code against its own schema: the file gives ClassicMemberMetadata the default null,
#: Kafka 4.2.1's generated ConsumerGroupMemberMetadataValue starts with an empty struct (and reads
#: an absent tag 0 as one); groupspec follows the code (docs/divergences.md,
#: records_classic_member_null). A drift from every schema file, Kafka 4.2's own included.
CLASSIC_MEMBER_DEFAULT = (
    "ConsumerGroupMemberMetadataValue", "ClassicMemberMetadata", "default", None, NEW_STRUCT,
    "kafka-group-coordinator-4.2.1.jar, ConsumerGroupMemberMetadataValue's constructor and read(); "
    "checked through --target kafka (vectors consumer_member_null_classic_tag, "
    "encode_classic_member_metadata_null)",
)

#: A tagged field (tag 0, default -1) Kafka 4.2 added to both share-state values; first met in a
#: real 4.2.1 broker's __share_group_state (tests/broker/test_real_logs.py).
KIP_1226 = "KIP-1226 (Kafka 4.2), kafka-share-coordinator-4.2.1.jar common/message/Share*Value.json"

#: Kafka 4.2 vs the February-2025 copies: (message, field path, attribute, copy, groupspec, source).
#: A field one side lacks is one row with attribute "field"; its value on the other side is the
#: name of the field before it (which pins its position).
KNOWN_DRIFT: list[tuple[str, str, str, object, object, str]] = [
    ("OffsetCommitValue", "TopicId", "field", ABSENT, "ExpireTimestamp",
     "KAFKA-19141, apache/kafka PR #19683 (Kafka 4.1); classic_group.md §0 and §5.2"),
    ("ConsumerGroupMetadataValue", "MetadataHash", "field", ABSENT, "Epoch",
     f"KIP-1101 (Kafka 4.1), tagged 0, default 0; {TREE_42}"),
    ("ShareGroupMetadataValue", "MetadataHash", "field", ABSENT, "Epoch",
     "share_group_coordinator.md §2.1 (blob 661fdbdde954)"),
    ("ShareGroupStatePartitionMetadataValue", "InitializingTopics", "field", ABSENT, FIRST,
     "share_group_coordinator.md §2.1 (blob 57ca75823d89)"),
    ("ShareGroupStatePartitionMetadataValue", "InitializedTopics", "field", FIRST, "InitializingTopics",
     "share_group_coordinator.md §2.1 (InitializingTopics comes first)"),
    ("ShareSnapshotValue", "DeliveryCompleteCount", "field", ABSENT, "StartOffset", KIP_1226),
    ("ShareSnapshotValue", "CreateTimestamp", "field", ABSENT, "DeliveryCompleteCount",
     SHARE_STATE_42.format("ShareSnapshotValue")),
    ("ShareSnapshotValue", "WriteTimestamp", "field", ABSENT, "CreateTimestamp",
     SHARE_STATE_42.format("ShareSnapshotValue")),
    ("ShareSnapshotValue", "StateBatches", "field", "StartOffset", "WriteTimestamp",
     SHARE_STATE_42.format("ShareSnapshotValue")),
    *_share_state_drift("ShareSnapshotValue"),
    *_share_state_drift("ShareUpdateValue"),
    ("ShareUpdateValue", "DeliveryCompleteCount", "field", ABSENT, "StartOffset", KIP_1226),
    ("ShareUpdateValue", "StateBatches", "field", "StartOffset", "DeliveryCompleteCount", KIP_1226),
    CLASSIC_MEMBER_DEFAULT,
]


def strip_comments(text: str) -> str:
    """Kafka's schema JSON allows ``//`` comments; drop them, leaving string contents alone."""
    out: list[str] = []
    i, in_string = 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def load_copies(folder: Path = SCHEMAS) -> dict[str, dict[str, Any]]:
    docs = {}
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(strip_comments(path.read_text(encoding="utf-8")))
        assert doc["name"] == path.stem, f"{path.name} holds {doc['name']}"
        docs[doc["name"]] = doc
    return docs


def canon(versions: str) -> str:
    return str(Versions.parse(versions))


_IMPLICIT = {
    "bool": False, "int8": 0, "int16": 0, "uint16": 0, "int32": 0, "uint32": 0, "int64": 0,
    "float64": 0.0, "string": "", "bytes": b"", "uuid": ZERO_UUID,
}


def json_default(field: dict[str, Any], wire: str) -> object:
    """Kafka's default for a field: explicit ones are strings or JSON literals, else per type."""
    if "default" not in field:
        if wire.startswith("[]"):
            return ()
        return NEW_STRUCT if wire == "struct" else _IMPLICIT[wire]
    value = field["default"]
    if value is None or value == "null":
        return None
    if wire == "bool":
        return value in (True, "true")
    if wire.startswith(("int", "uint")):
        return int(value, 0) if isinstance(value, str) else int(value)
    if wire == "float64":
        return float(value)
    return value


Shape = dict[tuple[str, str, str], object]


def json_shape(doc: dict[str, Any]) -> Shape:
    name = doc["name"]
    shape: Shape = {
        (name, "", "apiKey"): doc.get("apiKey"),
        (name, "", "kind"): doc["type"],
        (name, "", "validVersions"): canon(doc["validVersions"]),
        (name, "", "flexibleVersions"): canon(doc.get("flexibleVersions", "none")),
    }
    common = {s["name"]: s["fields"] for s in doc.get("commonStructs", [])}

    def walk(prefix: str, fields: list[dict[str, Any]]) -> None:
        before = FIRST
        for f in fields:
            fname = f["name"][:1].upper() + f["name"][1:]
            path = prefix + fname
            kafka_type: str = f["type"]
            element = kafka_type.removeprefix("[]")
            nested = None
            if element not in PRIMITIVES:
                nested = f.get("fields") or common[element]
                element = "struct"
            wire = ("[]" if kafka_type.startswith("[]") else "") + element
            shape.update({
                (name, path, "field"): before,
                (name, path, "type"): wire,
                (name, path, "versions"): canon(f["versions"]),
                (name, path, "nullableVersions"): canon(f.get("nullableVersions", "none")),
                (name, path, "tag"): f.get("tag"),
                (name, path, "taggedVersions"): canon(f.get("taggedVersions", "none")),
                (name, path, "ignorable"): bool(f.get("ignorable", False)),
                (name, path, "default"): json_default(f, wire),
            })
            if nested is not None:
                walk(path + ".", nested)
            before = fname

    walk("", doc["fields"])
    return shape


def class_default(cls: type, attribute: str) -> object:
    f = next(x for x in dataclasses.fields(cls) if x.name == attribute)
    if f.default is not dataclasses.MISSING:
        return f.default
    assert f.default_factory is not dataclasses.MISSING, f"{cls.__qualname__}.{attribute} has no default"
    made = f.default_factory()
    return NEW_STRUCT if dataclasses.is_dataclass(made) else made


def class_shape(cls: type) -> Shape:
    spec = message_spec(cls)
    name = spec.name
    shape: Shape = {
        (name, "", "apiKey"): spec.api_key,
        (name, "", "kind"): spec.kind,
        (name, "", "validVersions"): str(spec.versions),
        (name, "", "flexibleVersions"): str(spec.flexible),
    }

    def walk(prefix: str, struct: type) -> None:
        before = FIRST
        for attribute, f in field_specs(struct):
            fname = kafka_name(attribute, f)
            path = prefix + fname
            shape.update({
                (name, path, "field"): before,
                (name, path, "type"): f.wire,
                (name, path, "versions"): str(f.versions),
                (name, path, "nullableVersions"): str(f.nullable),
                (name, path, "tag"): f.tag,
                (name, path, "taggedVersions"): str(f.tagged),
                (name, path, "ignorable"): f.ignorable,
                (name, path, "default"): class_default(struct, attribute),
            })
            if f.struct is not None:
                walk(path + ".", f.struct)
            before = fname

    walk("", cls)
    return shape


def typed(value: object) -> tuple[str, object]:
    """Compare values with their types, so that 0, 0.0 and False stay different."""
    return type(value).__name__, value


def drift(copy: Shape, ours: Shape) -> set[tuple[str, str, str, object, object]]:
    """Every difference, one row per attribute; a missing field is one "field" row only."""
    fields = {k[:2] for k in copy.keys() | ours.keys() if k[2] == "field"}
    lopsided = {f for f in fields if ((*f, "field") in copy) != ((*f, "field") in ours)}

    def inside(msg: str, path: str) -> bool:  # strictly below a lopsided field
        return any(msg == m and path.startswith(p + ".") for m, p in lopsided)

    found = set()
    for key in copy.keys() | ours.keys():
        msg, path, attribute = key
        if inside(msg, path) or ((msg, path) in lopsided and attribute != "field"):
            continue
        a, b = copy.get(key, ABSENT), ours.get(key, ABSENT)
        if typed(a) != typed(b):
            found.add((msg, path, attribute, a, b))
    return found


def our_messages() -> dict[str, type]:
    return {message_spec(cls).name: cls for cls in ALL_MESSAGE_CLASSES}


@needs_schemas
def test_every_schema_file_has_a_class_and_every_class_a_file() -> None:
    assert sorted(load_copies()) == sorted(our_messages())


@needs_schemas
def test_classes_match_schema_files_except_known_drift() -> None:
    copies, ours = load_copies(), our_messages()
    found: set[tuple[str, str, str, object, object]] = set()
    for name in copies.keys() & ours.keys():
        found |= drift(json_shape(copies[name]), class_shape(ours[name]))
    known = {row[:5] for row in KNOWN_DRIFT}
    as_typed = lambda rows: {(m, p, a, typed(x), typed(y)) for m, p, a, x, y in rows}  # noqa: E731
    unexpected = sorted(map(str, as_typed(found) - as_typed(known)))
    missing = sorted(map(str, as_typed(known) - as_typed(found)))
    assert not unexpected, "new drift from the schema files:\n" + "\n".join(unexpected)
    assert not missing, "KNOWN_DRIFT rows that no longer differ:\n" + "\n".join(missing)


KAFKA_42_SCHEMAS = os.environ.get("GROUPSPEC_KAFKA_42_SCHEMAS")

#: Where Kafka 4.2.1 keeps the schema files of groupspec's records: the coordinators' jars hold
#: their own, kafka-clients the consumer protocol's (among every request's, left out here).
_RECORD_JARS = {"kafka-group-coordinator-4.2.1.jar": "", "kafka-share-coordinator-4.2.1.jar": "",
                "kafka-clients-4.2.1.jar": "ConsumerProtocol"}


@pytest.fixture(scope="module")
def kafka_42_schemas(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of Kafka 4.2.1's own record schema files: $GROUPSPEC_KAFKA_42_SCHEMAS, or taken
    out of the jars the test broker runs on (groupspec.broker resolves them from Maven Central,
    cached), so the comparison runs wherever Java and Maven are."""
    if KAFKA_42_SCHEMAS:
        return Path(KAFKA_42_SCHEMAS)
    from groupspec import broker

    if broker.tools_available() is not None:
        pytest.skip(f"{broker.tools_available()} missing: set GROUPSPEC_KAFKA_42_SCHEMAS instead")
    lib = broker.resolve()
    out = tmp_path_factory.mktemp("kafka-42-schemas")
    for jar, prefix in _RECORD_JARS.items():
        with zipfile.ZipFile(lib / jar) as archive:
            for name in archive.namelist():
                stem = name.removeprefix("common/message/")
                if stem != name and stem.endswith(".json") and stem.startswith(prefix):
                    (out / stem).write_bytes(archive.read(name))
    return out


def test_classes_match_kafka_42_schema_files_exactly(kafka_42_schemas: Path) -> None:
    """Given Kafka 4.2's own record files (only those), nothing differs and only type 9 lacks one."""
    copies = load_copies(kafka_42_schemas)
    ours = our_messages()
    retired = ["ShareGroupPartitionMetadataKey", "ShareGroupPartitionMetadataValue"]
    assert sorted(ours.keys() - copies.keys()) == retired
    found = set()
    for name in copies.keys() & ours.keys():
        found |= drift(json_shape(copies[name]), class_shape(ours[name]))
    assert found == {CLASSIC_MEMBER_DEFAULT[:5]}, sorted(map(str, found))


def test_known_drift_rows_are_unique_and_sourced() -> None:
    keys = [row[:3] for row in KNOWN_DRIFT]
    assert len(keys) == len(set(keys))
    assert all(row[5] for row in KNOWN_DRIFT)


@needs_schemas
def test_shape_comparison_catches_a_planted_difference() -> None:
    """The comparison itself must see a wrong default, a wrong tag and a missing field."""
    doc = load_copies()["GroupMetadataValue"]
    ours = class_shape(GroupMetadataValue)
    planted = json.loads(json.dumps(doc))
    planted["fields"][4]["default"] = -2
    planted["fields"][0]["tag"] = 3
    del planted["commonStructs"][0]["fields"][1]
    rows = {row[:3] for row in drift(json_shape(planted), ours)}
    assert rows == {
        ("GroupMetadataValue", "CurrentStateTimestamp", "default"),
        ("GroupMetadataValue", "ProtocolType", "tag"),
        ("GroupMetadataValue", "Members.GroupInstanceId", "field"),
        ("GroupMetadataValue", "Members.ClientId", "field"),
    }


def test_strip_comments_keeps_slashes_inside_strings() -> None:
    text = '// header\n{ "a": "x//y", // trailing\n  "b": "q\\"//" }\n'
    assert json.loads(strip_comments(text)) == {"a": "x//y", "b": 'q"//'}


# --- (b) the registry --------------------------------------------------------------------------

EXPECTED_OFFSETS_TYPES = {
    0: "LegacyOffsetCommit", 1: "OffsetCommit", 2: "GroupMetadata", 3: "ConsumerGroupMetadata",
    4: "ConsumerGroupPartitionMetadata", 5: "ConsumerGroupMemberMetadata",
    6: "ConsumerGroupTargetAssignmentMetadata", 7: "ConsumerGroupTargetAssignmentMember",
    8: "ConsumerGroupCurrentMemberAssignment", 9: "ShareGroupPartitionMetadata",
    10: "ShareGroupMemberMetadata", 11: "ShareGroupMetadata", 12: "ShareGroupTargetAssignmentMetadata",
    13: "ShareGroupTargetAssignmentMember", 14: "ShareGroupCurrentMemberAssignment",
    15: "ShareGroupStatePartitionMetadata", 16: "ConsumerGroupRegularExpression",
}


def message_classes_in(module: ModuleType) -> set[type]:
    return {v for v in vars(module).values() if isinstance(v, type) and hasattr(v, "__kafka_message__")}


def all_struct_classes() -> Iterator[type]:
    for cls in ALL_MESSAGE_CLASSES:
        yield cls
        yield from struct_classes(cls)


def test_type_ids_per_topic_are_kafkas() -> None:
    offsets = record_types(OFFSETS_TOPIC)
    assert {i: t.name for i, t in offsets.items()} == EXPECTED_OFFSETS_TYPES
    share_state = record_types(SHARE_STATE_TOPIC)
    assert {i: t.name for i, t in share_state.items()} == {0: "ShareSnapshot", 1: "ShareUpdate"}
    for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
        for type_id, rtype in record_types(topic).items():
            assert rtype.type_id == type_id and rtype.topic == topic
            assert message_spec(rtype.key).api_key == message_spec(rtype.value).api_key == type_id
            assert message_spec(rtype.key).name == rtype.name + "Key"
            assert message_spec(rtype.value).name == rtype.name + "Value"


def test_only_type_9_is_retired_and_streams_types_are_unknown() -> None:
    retired = {(t.topic, t.type_id): t.retired for tp in (OFFSETS_TOPIC, SHARE_STATE_TOPIC)
               for t in record_types(tp).values() if t.retired}
    assert retired == {(OFFSETS_TOPIC, 9): "4.2"}
    assert all(record_type(OFFSETS_TOPIC, i) is None for i in range(17, 25))
    assert record_type(SHARE_STATE_TOPIC, 2) is None


def test_every_class_is_reachable() -> None:
    modules = (offsets_topic, share_state_topic, consumer_protocol)
    declared = set().union(*(message_classes_in(m) for m in modules))
    assert set(ALL_MESSAGE_CLASSES) == declared
    assert len(ALL_MESSAGE_CLASSES) == len(declared) == 40
    exported = {getattr(records, n) for n in records.__all__}
    assert declared <= exported
    in_registry = {c for tp in (OFFSETS_TOPIC, SHARE_STATE_TOPIC) for t in record_types(tp).values()
                   for c in (t.key, t.value)}
    assert in_registry == declared - {ConsumerProtocolSubscription, ConsumerProtocolAssignment}


def test_record_type_of_round_trips() -> None:
    for topic in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
        for rtype in record_types(topic).values():
            assert record_type_of(rtype.key) is rtype
            assert record_type_of(rtype.value) is rtype
            assert record_type(topic, rtype.type_id) is rtype


@pytest.mark.parametrize("cls", [ConsumerProtocolSubscription, GroupMetadataValue.MemberMetadata, int])
def test_invalid_record_type_of_non_record_class(cls: type) -> None:
    with pytest.raises(InputError, match="not the key or value class"):
        record_type_of(cls)


def test_invalid_topic() -> None:
    with pytest.raises(InputError) as err:
        record_types("__transaction_state")
    assert err.value.field == "topic"
    with pytest.raises(InputError):
        record_type("orders", 1)


def test_written_version_is_kafka_42s_and_valid() -> None:
    assert written_version(OffsetCommitValue(offset=1)) == 4
    assert written_version(OffsetCommitValue(offset=1, expire_timestamp=1_700_000_000_000)) == 1
    assert written_version(GroupMetadataValue()) == 3
    assert written_version(ConsumerProtocolSubscription()) == 3
    assert written_version(ConsumerProtocolAssignment()) == 3
    assert written_version(ShareGroupMetadataValue()) == 0
    assert written_version(ShareSnapshotValue()) == 0
    values = [c for c in ALL_MESSAGE_CLASSES if message_spec(c).kind != "coordinator-key"]
    for cls in values:
        version = written_version(cls())
        assert version in message_spec(cls).versions, cls.__qualname__
        multi_version = (OffsetCommitValue, GroupMetadataValue)
        if message_spec(cls).kind == "coordinator-value" and cls not in multi_version:
            assert version == 0, cls.__qualname__


@pytest.mark.parametrize("thing", [OffsetCommitKey(), GroupMetadataValue.MemberMetadata(), "x", None])
def test_invalid_written_version_of_non_value(thing: object) -> None:
    with pytest.raises(InputError, match="not a record value class"):
        written_version(thing)


def test_field_specs_and_names_on_every_class_and_struct() -> None:
    for cls in all_struct_classes():
        specs = field_specs(cls)
        assert [name for name, _ in specs] == [f.name for f in dataclasses.fields(cls)]
        for attribute, spec in specs:
            assert snake_name(kafka_name(attribute, spec)) == attribute
            element = spec.wire.removeprefix("[]")
            assert (element == "struct") == (spec.struct is not None), f"{cls.__qualname__}.{attribute}"
            assert element == "struct" or element in PRIMITIVES


def test_defaults_construct_every_class_with_no_arguments() -> None:
    for cls in all_struct_classes():
        instance = cls()
        assert instance == cls()
        hash(instance)
        first = dataclasses.fields(cls)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(instance, first, getattr(instance, first))
        for attribute, spec in field_specs(cls):
            value = getattr(instance, attribute)
            if spec.wire.startswith("[]"):
                assert value == ()
            elif spec.wire == "uuid":
                assert value == ZERO_UUID


def test_key_classes_are_plain_version_0() -> None:
    for cls in ALL_MESSAGE_CLASSES:
        spec = message_spec(cls)
        if spec.kind == "coordinator-key":
            assert str(spec.versions) == "0" and str(spec.flexible) == "none"
            assert all(str(f.versions) == "0" and f.tag is None for _, f in field_specs(cls))


def test_coordinator_record_takes_the_written_version() -> None:
    key = OffsetCommitKey("testgroup", "orders", 0)
    assert CoordinatorRecord(key, OffsetCommitValue(offset=12345)).value_version == 4
    assert CoordinatorRecord(key, OffsetCommitValue(offset=1), value_version=3).value_version == 3
    tombstone = CoordinatorRecord(key, None)
    assert tombstone.is_tombstone and tombstone.value_version is None
    assert tombstone.record_type is record_type(OFFSETS_TOPIC, 1)
    share = CoordinatorRecord(ShareSnapshotKey("g", uuid.uuid4(), 3), ShareSnapshotValue(snapshot_epoch=1))
    assert share.record_type.topic == SHARE_STATE_TOPIC and share.value_version == 0


def test_invalid_coordinator_records() -> None:
    key = OffsetCommitKey("testgroup", "orders", 0)
    with pytest.raises(InputError, match="not a record key class"):
        CoordinatorRecord(OffsetCommitValue(), None)
    with pytest.raises(InputError, match="not the value of OffsetCommit"):
        CoordinatorRecord(key, GroupMetadataValue())
    with pytest.raises(InputError, match="has versions 0-4, not 5"):
        CoordinatorRecord(key, OffsetCommitValue(), value_version=5)
    with pytest.raises(InputError, match="tombstone"):
        CoordinatorRecord(GroupMetadataKey("g"), None, value_version=3)


def test_invalid_schema_is_refused_at_definition() -> None:
    """The import-time checks in ``message()`` catch schemas Kafka's generator would refuse."""
    with pytest.raises(TypeError, match="tag and tagged versions go together"):

        @message("Bad", "coordinator-value", 99, "0", "0+")
        @dataclasses.dataclass(frozen=True)
        class Bad:
            x: int = kfield("int32", "0+", tag=0)

    with pytest.raises(TypeError, match="outside the flexible versions"):

        @message("Bad2", "coordinator-value", 99, "0-1", "1+")
        @dataclasses.dataclass(frozen=True)
        class Bad2:
            x: int = kfield("int32", "0+", tag=0, tagged="0+")

    with pytest.raises(TypeError, match="cannot be nullable"):

        @message("Bad3", "coordinator-value", 99, "0")
        @dataclasses.dataclass(frozen=True)
        class Bad3:
            x: int = kfield("int32", "0+", nullable="0+")

"""More decode_record/encode_record cases for the struct codec (issue 17: mutants of
impl/codec/messages.py that no vector told apart), chained into cases.py's lists.

Expected readings follow Kafka's generated readers (generator/.../MessageDataGenerator.java) over
``ByteUtils.readUnsignedVarint``, which returns a Java ``int``: a varint of 2^31 or more is a
negative number there. So a compact length of ``ff ff ff ff 0f`` is -1 - 1 = -2, a null; one of
``80 80 80 80 08`` is Integer.MIN_VALUE - 1, which wraps to Integer.MAX_VALUE, a string too long;
a tagged-field count of 2^31 or more runs its loop zero times; a tagged nullable struct's marker
is null when ``<= 0`` as an int. A non-flexible length is an int16 or int32 where any negative
value (not only -1) is null.
"""

from __future__ import annotations

from groupspec.types.records import OFFSETS_TOPIC
from tests.scenarios.records.hex_forms import _cs, _s16, _uv

_GROUP_KEY = "0002" + _s16("testgroup")
_COMMIT_KEY_TAIL = "0006" "6f7264657273" "00000000"
#: GroupMetadata v4 up to its protocol, and from its leader on (no members, no tags).
_GROUP_V4_HEAD = "0004" + _cs("consumer") + "00000001"
_GROUP_V4_TAIL = "00" "0000018bcfe56800" "01"
_MEMBER_KEY = "0005" + _s16("g") + _s16("m")
#: ConsumerGroupMemberMetadata v0 up to its tagged fields: no instance or rack, client c, host h,
#: no topics, no regex, rebalance timeout 10000, no server assignor.
_MEMBER_V0 = "0000" "00" "00" + _cs("c") + _cs("h") + "01" "00" "00002710" "00"


def _classic(marker: str, metadata_bytes: int) -> str:
    """Tag 0 (classicMemberMetadata) holding ``marker`` and a struct with one protocol "range"."""
    body = (marker + "00001388" "02" + _cs("range") + _uv(metadata_bytes + 1) + "ab" * metadata_bytes
            + "00" "00")
    return "01" "00" + _uv(len(body) // 2) + body


#: Round trips (decoded, then encoded back to the same bytes).
BOUNDARIES = (
    ("regular_expression_topic_names_126_and_127_bytes", "ConsumerGroupRegularExpression v0 whose "
     "topics are 126 and 127 bytes long: an array element's compact length of one byte (127) and "
     "the first of two (80 01)", OFFSETS_TOPIC, "0010" + _s16("g") + _s16("r"),
     "0000" "03" + _cs("a" * 126) + _cs("b" * 127) + "0000000000000001" "0000000000000002" "00"),
    ("consumer_member_classic_metadata_216_bytes", "ConsumerGroupMemberMetadata v0 whose tag 0 "
     "(classicMemberMetadata) holds 216 bytes, a protocol's 200 bytes of metadata among them: the "
     "tagged field's size takes two varint bytes (d8 01)", OFFSETS_TOPIC, _MEMBER_KEY,
     _MEMBER_V0 + _classic("01", 200)),
)

#: Read as Kafka reads them, but not what a writer produces (so not turned around).
DECODE_ONLY = (
    ("group_metadata_v4_protocol_length_2_pow_32_minus_1", "GroupMetadata v4 whose protocol's "
     "compact length is ff ff ff ff 0f: the int -1 in Kafka, so a length of -2, a null",
     OFFSETS_TOPIC, _GROUP_KEY, _GROUP_V4_HEAD + "ffffffff0f" + _GROUP_V4_TAIL + "00"),
    ("group_metadata_v3_protocol_length_minus_2", "GroupMetadata v3 (not flexible) whose "
     "protocol's int16 length is -2: any negative length is a null, not only -1", OFFSETS_TOPIC,
     _GROUP_KEY, "0003" + _s16("consumer") + "00000001" "fffe" "ffff" "0000018bcfe56800" "00000000"),
    ("group_metadata_v4_tag_count_2_pow_31", "GroupMetadata v4 whose tagged-field count is 80 80 "
     "80 80 08 (2^31, a negative int in Kafka): no tagged fields are read", OFFSETS_TOPIC, _GROUP_KEY,
     _GROUP_V4_HEAD + "00" + _GROUP_V4_TAIL + "8080808008"),
    ("consumer_member_classic_marker_2", "ConsumerGroupMemberMetadata v0 whose classicMemberMetadata "
     "marker is 2: any marker above 0 means present", OFFSETS_TOPIC, _MEMBER_KEY,
     _MEMBER_V0 + _classic("02", 3)),
    ("consumer_member_classic_marker_negative", "ConsumerGroupMemberMetadata v0 whose "
     "classicMemberMetadata marker is ff ff ff ff 0f (the int -1 in Kafka): null, its default, so "
     "left out", OFFSETS_TOPIC, _MEMBER_KEY, _MEMBER_V0 + "01" "00" "05" "ffffffff0f"),
)

#: Refused: the error kind is the expectation.
REFUSALS = (
    ("group_metadata_v4_protocol_length_2_pow_31", "GroupMetadata v4 whose protocol's compact "
     "length is 80 80 80 80 08: Integer.MIN_VALUE - 1 wraps to Integer.MAX_VALUE, longer than any "
     "string", OFFSETS_TOPIC, _GROUP_KEY, _GROUP_V4_HEAD + "8080808008" + _GROUP_V4_TAIL + "00"),
    ("group_metadata_v4_members_length_2_pow_32_minus_1", "GroupMetadata v4 whose members array's "
     "compact length is ff ff ff ff 0f (-2 in Kafka): a null, and members is not nullable",
     OFFSETS_TOPIC, _GROUP_KEY, _GROUP_V4_HEAD + "00" "00" "0000018bcfe56800" "ffffffff0f" "00"),
    ("group_metadata_v4_tag_count_2_pow_31_minus_1", "GroupMetadata v4 whose tagged-field count is "
     "ff ff ff ff 07 (2^31 - 1): the tags it promises are not there", OFFSETS_TOPIC, _GROUP_KEY,
     _GROUP_V4_HEAD + "00" + _GROUP_V4_TAIL + "ffffffff07"),
    ("group_metadata_v4_unknown_tag_negative_size", "GroupMetadata v4 with an unknown tag 5 whose "
     "size is ff ff ff ff 0f (-1 in Kafka, which cannot allocate it)", OFFSETS_TOPIC, _GROUP_KEY,
     _GROUP_V4_HEAD + "00" + _GROUP_V4_TAIL + "01" "05" "ffffffff0f" "00"),
    ("offset_commit_key_group_length_minus_2", "an OffsetCommit key whose group has the int16 "
     "length -2: a null, and the group is not nullable", OFFSETS_TOPIC, "0001" "fffe" + _COMMIT_KEY_TAIL,
     None),
)

_MEMBER_JSON = {"memberId": "m1", "groupInstanceId": None, "clientId": "c", "clientHost": "/h",
                "rebalanceTimeout": 300000, "sessionTimeout": 45000, "subscription": "", "assignment": ""}


def _group_doc(version: int, **member: object) -> dict[str, object]:
    return {"topic": OFFSETS_TOPIC, "type": "GroupMetadata", "typeId": 2, "key": {"group": "testgroup"},
            "valueVersion": version,
            "value": {"protocolType": "consumer", "generation": 1, "protocol": None, "leader": None,
                      "currentStateTimestamp": 1700000000000, "members": [{**_MEMBER_JSON, **member}]}}


#: (case, description, encode_record input), appended to cases.py's ENCODE_CASES.
ENCODE_CASES = (
    ("encode_group_metadata_v2_client_id_32768_bytes", "GroupMetadata v2 whose member has a "
     "groupInstanceId (v3+, ignorable: dropped, not an error) and a clientId of 32768 bytes: "
     "refused for the clientId's length alone",
     _group_doc(2, groupInstanceId="i-1", clientId="c" * 32768)),
    ("encode_group_metadata_v0_client_host_32768_bytes", "GroupMetadata v0 whose member has a "
     "rebalanceTimeout (v1+, ignorable: dropped) and a clientHost of 32768 bytes: refused for the "
     "clientHost's length alone", _group_doc(0, clientHost="h" * 32768)),
)

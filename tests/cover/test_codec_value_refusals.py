"""The record writer's refusals name what was wrong (impl/codec/messages.py's ``explain`` and
``value_problem``), and the library entry points no conformance handler calls (``decode``,
``decode_all``, ``field_default``, CodecError's offset prefix).

The conformance vectors name a refusal by its kind only (``Encode``), so these are where the text
is held to naming the field, the element and the reason (issue 17: the mutants of those lines
that no vector tells apart).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from groupspec.impl.codec.errors import CodecError, MalformedError
from groupspec.impl.codec.json_form import from_json
from groupspec.impl.codec.messages import (
    EncodeError,
    decode,
    decode_all,
    encode,
    explain,
    field_default,
    value_problem,
)
from groupspec.types.errors import InputError
from groupspec.types.records import OffsetCommitKey, OffsetCommitValue, ShareSnapshotValue
from groupspec.types.records.consumer_protocol import ConsumerProtocolSubscription
from groupspec.types.records.schema import kfield, message

ID = uuid.UUID(bytes=bytes(range(16)))


# A test-only message with one field of every wire type the refusals tell apart (first a null
# nullable array of structs and a field absent at v0, which the explainer must step over); v0 is
# not flexible (int16/int32 length prefixes), v1 is. Its (class, version) pairs are compiled only here.
@message("RefusalProbe", "data", None, "0-1", "1+")
@dataclass(frozen=True, slots=True)
class RefusalProbe:
    @dataclass(frozen=True, slots=True)
    class Inner:
        since: int = kfield("int32", "1+")  # not ignorable: absent at v0, where it must hold 0
        label: str = kfield("string", "0+")

    maybe: tuple[Inner, ...] | None = kfield("[]struct", "0+", default=None, nullable="0+", struct=Inner)
    # absent at v0, where its default (null) is not a value it may hold: the explainer skips it
    later: str | None = kfield("string", "1+", default=None, nullable="1+", ignorable=True)
    tiny: int = kfield("int8", "0+")
    small: int = kfield("uint16", "0+")
    count: int = kfield("int32", "0+")
    name: str = kfield("string", "0+")
    note: str | None = kfield("string", "0+", default=None, nullable="0+")
    ratio: float = kfield("float64", "0+")
    flag: bool = kfield("bool", "0+")
    ident: uuid.UUID = kfield("uuid", "0+")
    blobs: tuple[bytes, ...] = kfield("[]bytes", "0+")
    inner: Inner = kfield("struct", "0+", struct=Inner)
    items: tuple[Inner, ...] = kfield("[]struct", "0+", struct=Inner)


GOOD = RefusalProbe(tiny=-3, small=7, count=9, name="n", ratio=0.5, flag=True, ident=ID, blobs=(b"ab",),
                    inner=RefusalProbe.Inner(label="i"),
                    items=(RefusalProbe.Inner(label="a"), RefusalProbe.Inner(label="b")))
LONG = "x" * 32768


def _bad(**changes: Any) -> Any:
    """GOOD with some fields replaced, past the dataclass's own (absent) type checks."""
    fields = {name: getattr(GOOD, name) for name in RefusalProbe.__dataclass_fields__}
    return RefusalProbe(**{**fields, **changes})


REFUSALS = [
    ({"tiny": 128}, "tiny: 128 is out of the int8 range [-128, 127]"),
    ({"tiny": -129}, "tiny: -129 is out of the int8 range [-128, 127]"),
    ({"small": -1}, "small: -1 is out of the uint16 range [0, 65535]"),
    ({"small": 65536}, "small: 65536 is out of the uint16 range [0, 65535]"),
    ({"count": 2**31}, "count: 2147483648 is out of the int32 range [-2147483648, 2147483647]"),
    ({"count": "9"}, "count: expected an int, got str"),
    ({"name": None}, "name: is None but the field is not nullable at this version"),
    ({"name": 5}, "name: expected a str, got int"),
    ({"name": "\ud800"}, "name: is not encodable as UTF-8 (lone surrogate)"),
    ({"name": LONG}, "name: is 32768 bytes of UTF-8, more than 32767"),
    ({"note": LONG}, "note: is 32768 bytes of UTF-8, more than 32767"),
    ({"ratio": "0.5"}, "ratio: expected a float, got str"),
    ({"flag": 1}, "flag: expected a bool, got int"),
    ({"ident": "x"}, "ident: expected a uuid.UUID, got str"),
    ({"blobs": 5}, "blobs: expected a tuple, got int"),
    ({"blobs": (b"", "ab")}, "blobs: element 1: expected bytes, got str"),
    ({"blobs": (b"", None)}, "blobs: element 1: is None but the field is not nullable at this version"),
    ({"inner": "i"}, "inner: expected a RefusalProbe.Inner, got str"),
    ({"inner": RefusalProbe.Inner(label=LONG)}, "inner.label: is 32768 bytes of UTF-8, more than 32767"),
    ({"items": (RefusalProbe.Inner(label="a"), "b")},
     "items: element 1: expected a RefusalProbe.Inner, got str"),
    ({"items": (RefusalProbe.Inner(label="a"), RefusalProbe.Inner(label=LONG))},
     "items[1].label: is 32768 bytes of UTF-8, more than 32767"),
]


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("changes,reason", REFUSALS, ids=[r for _, r in REFUSALS])
def test_a_refusal_names_the_field_and_why(changes: dict[str, Any], reason: str, version: int) -> None:
    with pytest.raises(EncodeError) as caught:
        encode(_bad(**changes), version)
    assert str(caught.value) == f"RefusalProbe v{version}: {reason}"
    assert type(caught.value) is EncodeError


def test_good_values_are_written_and_read_back() -> None:
    for version in (0, 1):
        assert decode_all(RefusalProbe, encode(GOOD, version), version) == GOOD
    # bytes given as a bytearray or memoryview are written as the same bytes
    as_array = _bad(blobs=(bytearray(b"ab"), memoryview(b"cd")))
    assert encode(as_array, 0) == encode(_bad(blobs=(b"ab", b"cd")), 0)


def test_a_failure_no_field_explains_is_still_an_encode_error() -> None:
    # 10**400 passes the float64 check (an int) but no double holds it
    with pytest.raises(EncodeError, match=r"^RefusalProbe v0: \?: cannot be encoded: "):
        encode(_bad(ratio=10**400), 0)


def test_explain_without_a_name_titles_the_class() -> None:
    error = explain(_bad(count="9"), 1, True, TypeError("x"))
    assert str(error) == "RefusalProbe v1: count: expected an int, got str"


def test_value_problem_of_an_unknown_wire_type() -> None:
    assert value_problem("int33", 1, False) == "unknown wire type 'int33'"
    assert value_problem("zz", 1, False) == "unknown wire type 'zz'"  # sorts after every wire type
    assert value_problem("[]int32", (1, 2), False) is None
    assert value_problem("string", None, True) is None
    # the bounds themselves are values of the type
    assert value_problem("int32", 2**31 - 1, False) is None
    assert value_problem("int32", -(2**31), False) is None
    assert value_problem("int8", 127, False) is None
    assert value_problem("string", "x" * 32767, False) is None


def test_a_non_flexible_string_array_has_int16_lengths() -> None:
    # ConsumerProtocolSubscription v0: topics [int32 count, int16 length + UTF-8 each], user_data null
    assert encode(ConsumerProtocolSubscription(topics=("a", "bc")), 0) == bytes.fromhex(
        "00000002" "0001" "61" "0002" "6263" "ffffffff")


def test_an_int8_beyond_its_range_is_bad_json_input() -> None:
    doc = {"snapshotEpoch": 1, "stateEpoch": 1, "leaderEpoch": 1, "startOffset": 0, "createTimestamp": 0,
           "writeTimestamp": 0,
           "stateBatches": [{"firstOffset": 0, "lastOffset": 1, "deliveryState": 127, "deliveryCount": 1}]}
    assert from_json(ShareSnapshotValue, doc).state_batches[0].delivery_state == 127
    for bad in (128, 129, 255, -129):
        doc["stateBatches"][0]["deliveryState"] = bad
        with pytest.raises(InputError, match=re.escape(f"{bad} is out of the int8 range [-128, 127]")):
            from_json(ShareSnapshotValue, doc)


# --- decode, decode_all, field_default: library entry points --------------------------------------

KEY = OffsetCommitKey(group="g", topic="t", partition=3)
KEY_BYTES = bytes.fromhex("0001" "67" "0001" "74" "00000003")


def test_decode_reads_at_a_position_from_any_buffer() -> None:
    assert decode(OffsetCommitKey, KEY_BYTES, 0) == (KEY, 10)
    assert decode(OffsetCommitKey, KEY_BYTES + b"\xff", 0) == (KEY, 10)
    assert decode(OffsetCommitKey, b"\xff\xff" + KEY_BYTES, 0, 2) == (KEY, 12)
    assert decode(OffsetCommitKey, bytearray(KEY_BYTES), 0) == (KEY, 10)
    assert decode(OffsetCommitKey, memoryview(KEY_BYTES), 0) == (KEY, 10)
    with pytest.raises(ValueError, match="pos must not be negative"):
        decode(OffsetCommitKey, KEY_BYTES, 0, -1)


def test_decode_compiles_a_decoder_on_first_use() -> None:
    @message("FirstUseProbe", "data", None, "0")
    @dataclass(frozen=True, slots=True)
    class FirstUseProbe:
        count: int = kfield("int32", "0+")

    assert decode(FirstUseProbe, b"\x00\x00\x00\x05", 0) == (FirstUseProbe(5), 4)


def test_decode_all_insists_on_the_whole_buffer() -> None:
    assert decode_all(OffsetCommitKey, KEY_BYTES, 0) == KEY
    with pytest.raises(MalformedError, match=r"^OffsetCommitKey v0: 2 bytes after the end of the struct$"):
        decode_all(OffsetCommitKey, KEY_BYTES + b"\x00\x00", 0)


def test_field_default_is_the_named_fields() -> None:
    assert field_default(OffsetCommitKey, "partition") == 0
    assert field_default(OffsetCommitKey, "topic") == ""
    assert field_default(OffsetCommitValue, "leader_epoch") == -1
    assert field_default(OffsetCommitValue, "expire_timestamp") == -1


# --- CodecError: the offset prefix -----------------------------------------------------------------


def test_a_codec_error_with_an_offset_says_so_first() -> None:
    assert str(CodecError("bad length")) == "bad length"
    assert str(CodecError("bad length", 5)) == "offset 5: bad length"
    assert CodecError("bad length", 5).reason == "bad length"


def test_at_places_an_error_once() -> None:
    placed = CodecError("bad length").at(7)
    assert (placed.offset, str(placed)) == (7, "offset 7: bad length")
    kept = CodecError("bad length", 3).at(7)
    assert (kept.offset, str(kept)) == (3, "offset 3: bad length")

"""Edges of the codec that the conformance vectors cannot see (issue 17's survivors of
compression.py, json_form.py and log_reader.py): the text of refusals (a vector names an error's
kind, never its words), the compact JSON text itself (the vectors compare parsed JSON, so a
duplicate key or an escaped character is invisible to them), and library entry points no
handler calls with these arguments.
"""

from __future__ import annotations

import dataclasses
import json
import struct
from pathlib import Path
from typing import Any

import pytest

from groupspec.impl.codec import json_form
from groupspec.impl.codec.compression import Compression, CompressionError, compress, decompress
from groupspec.types import InputError

_HEADER = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)


# --- compression --------------------------------------------------------------------------------


def test_no_compression_passes_bytes_through() -> None:
    data = bytearray(b"records section")
    assert compress(Compression.NONE, data) == b"records section"
    assert decompress(Compression.NONE, memoryview(data), 1) == b"records section"  # no bound either


def _xerial(tail: bytes) -> bytes:
    return compress(Compression.SNAPPY, b"abc" * 50) + tail


@pytest.mark.parametrize(("tail", "message"), [
    (b"\x00\x00", r"ends inside a chunk length at byte \d+"),
    (b"\x00\x00\x00", r"ends inside a chunk length at byte \d+"),
    (b"\x00\x00\x00\x00", r"block does not start with its length"),  # a chunk of 0 bytes
    (b"\xff\xff\xff\xff", r"chunk of -1 bytes does not fit in the stream \(0 bytes left\)"),
    (b"\x00\x00\x00\x09abc", r"chunk of 9 bytes does not fit in the stream \(3 bytes left\)"),
    (_HEADER[:12], r"ends inside a repeated stream header"),
])
def test_xerial_refusals_say_where_the_stream_breaks(tail: bytes, message: str) -> None:
    with pytest.raises(CompressionError, match=message):
        decompress(Compression.SNAPPY, _xerial(tail))


# --- JSON text ----------------------------------------------------------------------------------


def _sample_records() -> list[tuple[str, bytes, bytes]]:
    """(topic, key, value) of every decode_record vector that holds a value."""
    from groupspec.conformance.vector_format import default_root

    out = []
    for path in sorted((default_root() / "records" / "decode_record").glob("*/vector.json")):
        doc = json.loads(path.read_text())
        if "error" in doc["expected"] or doc["input"]["value"] is None:
            continue
        out.append((doc["input"]["topic"], bytes.fromhex(doc["input"]["key"]),
                    bytes.fromhex(doc["input"]["value"])))
    return out


def _compact(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def test_text_decoders_print_exactly_to_json() -> None:
    """The generated text decoder of each key and value is the object decoder then to_json, as
    compact JSON text, character for character (no key twice, none missing)."""
    from groupspec.impl.codec.records import KEY_VERSION, decode_record

    seen = 0
    for topic, key, value in _sample_records():
        try:
            rec = decode_record(topic, key, value)
        except Exception:
            continue
        for obj, buf, version in ((rec.key, key, KEY_VERSION), (rec.value, value, rec.value_version)):
            cls = type(obj)
            text, end = json_form.text_decoder(cls, version)(buf, 2)
            assert end == len(buf)
            assert text == _compact(json_form.to_json(obj, version)), (cls.__qualname__, version)
            assert json_form.to_json_text(obj, version) == text
            seen += 1
    assert seen > 50


def test_to_json_without_a_version_prints_every_field(monkeypatch: pytest.MonkeyPatch) -> None:
    from groupspec.types.records import OffsetCommitValue

    # An empty field cache: the fields are worked out here, not by whichever earlier test asked
    # first. The mutation tool runs for a mutant only the tests that executed its line, and a
    # cached answer would leave this test out of the ones that reach json_fields' loop.
    monkeypatch.setattr(json_form, "_JSON_FIELDS", {})
    value = OffsetCommitValue(offset=1, leader_epoch=-1, metadata="", commit_timestamp=5)
    every = json_form.to_json(value)
    assert set(every) == {json_form.json_name(f.name, f.metadata["kafka"])
                          for f in dataclasses.fields(OffsetCommitValue)}
    assert json_form.to_json_text(value) == _compact(every)


def test_from_json_names_what_is_wrong() -> None:
    from groupspec.types.records import OffsetCommitKey

    with pytest.raises(InputError) as info:
        json_form.from_json(OffsetCommitKey, [])
    assert info.value.field == "(root)"
    with pytest.raises(InputError) as info:
        json_form.from_json(OffsetCommitKey, {"group": "g", "topic": "t", "partition": 0, "oops": 1,
                                              "later": 2}, "input.key")
    assert info.value.field == "input.key.oops"
    for given, kind in ((None, "null"), (True, "a boolean"), (1.5, "a number"), ("x", "a string"),
                        ([], "an array")):
        with pytest.raises(InputError, match=f"expected an object, got {kind}$"):
            json_form.from_json(OffsetCommitKey, given)
    assert json_form._kind({}) == "an object"


# --- the reader's text --------------------------------------------------------------------------


def test_reader_options_are_frozen() -> None:
    from groupspec.impl.codec.log_reader import LogReadOptions

    options = LogReadOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.limit = 3  # type: ignore[misc]
    assert hash(options) == hash(LogReadOptions())


def test_reader_prints_utf8_as_it_is(tmp_path: Path) -> None:
    """decode's lines keep non-ASCII characters as they are: a bad batch's file path and a consumer
    group member's id."""
    from groupspec.impl.codec.log_reader import LogReadOptions, decode_logs
    from tests.scenarios.records.log_cases import _ours
    from tests.scenarios.records.partition_cases import _name

    folder = tmp_path / "été" / "__consumer_offsets-0"
    folder.mkdir(parents=True)
    bad = bytearray(_ours(0, [(b"\x00\x01", None)]))
    bad[17:21] = b"\x00\x00\x00\x00"  # CRC zeroed: a bad batch, printed with its file
    (folder / _name(0)).write_bytes(bytes(bad))
    out: list[str] = []
    decode_logs([folder], LogReadOptions(), out.append, lambda _w: None)
    assert "été" in "".join(out)


def test_reader_prints_consumer_members_in_utf8(tmp_path: Path) -> None:
    from groupspec.impl.codec.log_reader import LogReadOptions, decode_logs
    from groupspec.impl.codec.records import encode_key, encode_value
    from groupspec.types.records import GroupMetadataKey, GroupMetadataValue
    from tests.scenarios.records.log_cases import _ours
    from tests.scenarios.records.partition_cases import _name

    member = GroupMetadataValue.MemberMetadata(
        member_id="mémbre", group_instance_id=None, client_id="c", client_host="/h", rebalance_timeout=1,
        session_timeout=1, subscription=b"", assignment=b"")
    value = GroupMetadataValue(protocol_type="consumer", generation=1, protocol="range", leader="mémbre",
                               current_state_timestamp=0, members=(member,))
    folder = tmp_path / "__consumer_offsets-0"
    folder.mkdir()
    record = (encode_key(GroupMetadataKey(group="g")), encode_value(value, 3))
    (folder / _name(0)).write_bytes(_ours(0, [record]))
    out: list[str] = []
    decode_logs([folder], LogReadOptions(), out.append, lambda _w: None)
    text = "".join(out)
    assert '"consumerProtocol":[{"memberId":"mémbre"' in text


@pytest.mark.parametrize(("name", "said"), [("orders-0", "(orders is not a coordinator topic)"),
                                            ("plain", "cannot tell which topic this is: name")])
def test_reader_says_why_it_cannot_tell_the_topic(tmp_path: Path, name: str, said: str) -> None:
    from groupspec.impl.codec.log_reader import LogReadOptions, decode_logs

    folder = tmp_path / name
    folder.mkdir()
    with pytest.raises(InputError) as info:
        decode_logs([folder], LogReadOptions(), lambda _t: None, lambda _w: None)
    assert said in str(info.value)


def test_uuids_with_stray_bits_are_refused() -> None:
    """The last of 22 base64 characters carries 2 bits of the uuid and 4 unused ones; groupspec
    takes only the canonical text (the unused bits zero), whichever way the stray text sorts."""
    zero = "A" * 22
    assert json_form.uuid_from_kafka(zero).int == 0
    for text in ("A" * 21 + "B", "A" * 21 + "0"):  # canonical 'A' < 'B'; canonical 'w' > '0'
        with pytest.raises(InputError, match="not a canonical Kafka uuid"):
            json_form.uuid_from_kafka(text)


def test_segment_library_defaults(tmp_path: Path) -> None:
    """read_segment is strict unless asked; its items and a writer's appends are frozen."""
    from groupspec.impl.codec.errors import CodecError
    from groupspec.impl.codec.segment import SegmentWriter, read_segment
    from tests.scenarios.records.partition_cases import _commits, _name

    bad = bytearray(_commits(0, 1))
    bad[17:21] = b"\x00\x00\x00\x00"
    path = tmp_path / _name(0)
    path.write_bytes(bytes(bad) + _commits(1, 1))
    with pytest.raises(CodecError):
        list(read_segment(path))
    items = list(read_segment(path, lenient=True))
    with pytest.raises(dataclasses.FrozenInstanceError):
        items[0].position = 1  # type: ignore[misc]
    with SegmentWriter(tmp_path / "w") as writer:
        info = writer.append(_commits(0, 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.position = 1  # type: ignore[misc]

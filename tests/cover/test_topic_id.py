"""Topic ids in Kafka's 22-character form and as UUIDs: read either, answer in the form given."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groupspec.types import InputError
from groupspec.types.topic_id import TopicIdSpellings, canonical, kafka_string, parse_topic_id

# What `kafka-topics --describe` prints for a topic, and the same 16 bytes as RFC 4122 text.
KAFKA = "7pauBAE8r2GHOMRG8Vj_zQ"
AS_UUID = "ee96ae04-013c-af61-8738-c446f158ffcd"


def test_both_spellings_name_the_same_id():
    assert parse_topic_id(KAFKA) == parse_topic_id(AS_UUID) == uuid.UUID(AS_UUID)
    assert kafka_string(uuid.UUID(AS_UUID)) == KAFKA
    assert canonical(KAFKA) == AS_UUID


@given(st.builds(uuid.UUID, int=st.integers(0, 2**128 - 1)))
def test_kafka_string_round_trips(u):
    text = kafka_string(u)
    assert len(text) == 22 and parse_topic_id(text) == u == parse_topic_id(str(u))


@pytest.mark.parametrize("bad", ["", "nope", KAFKA[:-1], KAFKA + "A", KAFKA[:-1] + "!", 42, None])
def test_invalid_ids_are_refused_naming_the_field(bad):
    with pytest.raises(InputError) as info:
        parse_topic_id(bad, "topics[0].topic_id")
    assert info.value.field == "topics[0].topic_id"


def test_a_document_is_normalized_and_its_answer_restored():
    spellings = TopicIdSpellings()
    doc = {"topics": [{"name": "t", "topic_id": KAFKA}, {"name": "u", "topic_id": AS_UUID}],
           "topic_ids": {"t": KAFKA}, "other": {"topic_id": "not an id"}}
    normal = spellings.normalize(doc)
    assert normal["topics"][0]["topic_id"] == AS_UUID and normal["topic_ids"] == {"t": AS_UUID}
    assert normal["topics"][1]["topic_id"] == AS_UUID
    assert normal["other"] == {"topic_id": "not an id"}  # left for the machine to judge
    answer = {"target": [{"topic_id": AS_UUID, "partitions": [0]}]}
    assert spellings.restore(answer) == {"target": [{"topic_id": KAFKA, "partitions": [0]}]}
    # An id never given in Kafka's form is answered as a UUID.
    assert TopicIdSpellings().restore(answer) == answer


def _kafka_spelled(doc):
    """The document with every topic id rewritten to Kafka's form."""
    if isinstance(doc, list):
        return [_kafka_spelled(x) for x in doc]
    if not isinstance(doc, dict):
        return doc
    out = {}
    for key, value in doc.items():
        if key == "topic_id" and isinstance(value, str):
            out[key] = kafka_string(parse_topic_id(value))
        elif key == "topic_ids" and isinstance(value, dict):
            out[key] = {k: kafka_string(parse_topic_id(v)) for k, v in value.items()}
        else:
            out[key] = _kafka_spelled(value)
    return out


def _share_group_vector():
    import json

    from groupspec.conformance import vector_format as vf

    vectors = [v for v in vf.load(vf.default_root()) if v.machine == "share_group"]
    with_ids = [v for v in vectors if '"topic_id"' in json.dumps(v.expected)]
    assert with_ids
    return with_ids[0]


def test_the_adapter_answers_in_the_spelling_it_was_asked_in():
    import json

    from groupspec.commands.adapter import answer

    vector = _share_group_vector()
    request = {"id": 1, "machine": vector.machine, "handler": vector.handler, "input": vector.input}
    plain = answer("impl", json.dumps(request))
    kafka = answer("impl", json.dumps({**request, "input": _kafka_spelled(vector.input)}))
    assert "output" in plain and "output" in kafka, kafka
    assert kafka["output"] == _kafka_spelled(plain["output"]) != plain["output"]


def test_a_vector_may_spell_topic_ids_as_kafka_does():
    import json

    from groupspec.conformance import vector_format as vf
    from groupspec.conformance.runner import run
    from groupspec.conformance.targets import InProcessTarget

    vector = _share_group_vector()
    doc = json.loads((vf.default_root() / vector.path).read_text(encoding="utf-8"))
    respelled = vf.vector_from_json(_kafka_spelled(doc), vector.path)
    assert _kafka_spelled(doc) != doc
    assert respelled.input == vector.input and respelled.expected == vector.expected
    report = run([respelled], InProcessTarget("impl"), "groupspec")
    assert [o.status for o in report.outcomes] == ["passed"]

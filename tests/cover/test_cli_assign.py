"""`groupspec assign` and the group JSON reader: answers, and one clear line for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given

from groupspec.cli import main
from groupspec.group_json import group_from_json, group_to_json, loads
from groupspec.spec.simple_assignor import assign as spec_assign
from groupspec.types import InputError

GROUP = {
    "members": {
        "m2": {"topics": ["t"], "assignment": {"t": [1]}},
        "m1": {"topics": ["t"]},
        "m0": {"topics": ["t"]},
    },
    "topics": {"t": 4},
}


def _run(capsys: pytest.CaptureFixture[str], doc: object | str, *extra: str,
         tmp_path: Path) -> tuple[int, str, str]:
    path = tmp_path / "group.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    code = main(["assign", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("target", ["impl", "spec"])
def test_assign_prints_every_member_in_input_order(capsys, tmp_path, target):
    code, out, err = _run(capsys, GROUP, "--target", target, tmp_path=tmp_path)
    assert code == 0, err
    result = json.loads(out)["assignment"]
    assert list(result) == ["m2", "m1", "m0"]
    assert result["m2"] == {"t": [0, 1]}  # m2 is member 0: desired 2, keeps partition 1, fills 0
    assert sorted(p for a in result.values() for p in a["t"]) == [0, 1, 2, 3]


def test_assign_reads_stdin():
    done = subprocess.run([sys.executable, "-m", "groupspec.cli", "assign", "-"],
                          input=json.dumps(GROUP), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["assignment"]) == {"m0", "m1", "m2"}


BAD = [
    ('{"members": {"a": {}}, "topics": {"t": -1}}', "topics.t"),
    ('{"members": {"a": {}, "a": {}}, "topics": {}}', "members.a"),
    ('{"members": {"a": {"topics": ["t"]}}, "topics": {"t": 1', "malformed JSON"),
    ('{"members": {"a": {"assignment": {"t": [-1]}}}, "topics": {"t": 1}}',
     "members.a.assignment.t[0]"),
    ('{"members": {"a": {"assignment": {"t": [0, 0]}}}, "topics": {"t": 1}}',
     "members.a.assignment.t"),
    ('{"members": {"a": {"topics": "t"}}, "topics": {"t": 1}}', "members.a.topics"),
    ('{"members": {"a": {"topic": ["t"]}}, "topics": {"t": 1}}', "members.a.topic"),
    ('{"members": {}}', "topics"),
    ('{"members": {}, "topics": {"t": 1.5}}', "topics.t"),
    ('{"members": {}, "topics": {"t": 1}, "topic_ids": {"t": "nope"}}', "topic_ids.t"),
    ('{"members": {}, "topics": {"t": 1}, "topic_ids": {"t": "7pauBAE8r2GHOMRG8Vj_z"}}', "topic_ids.t"),
    ('{"members": {}, "topics": {"t": 1}, "topic_ids": {"t": "7pauBAE8r2GHOMRG8Vj_z!"}}', "topic_ids.t"),
    ('{"members": {}, "topics": {"t": 1}, "assignable": {"u": [0]}}', "assignable.u"),
    ("[1, 2]", "expected an object"),
]


@pytest.mark.parametrize(("text", "named"), BAD)
def test_invalid_input_is_one_line_naming_the_field(capsys, tmp_path, text, named):
    code, out, err = _run(capsys, text, tmp_path=tmp_path)
    assert code == 2
    assert out == ""  # nothing half-printed
    assert err.count("\n") == 1 and named in err


def test_missing_file_is_named(capsys, tmp_path):
    assert main(["assign", str(tmp_path / "absent.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "absent.json" in err


def test_library_reader_raises_input_error_with_field():
    with pytest.raises(InputError) as info:
        group_from_json(loads('{"members": {"a": {"topics": ["x"]}}, "topics": {}}'), strict_topics=True)
    assert info.value.field == "members.a.topics[0]"


def test_subscription_to_a_missing_topic_is_assigned_nothing_with_a_warning(capsys, tmp_path):
    """A topic not yet created (or deleted) is ordinary in Kafka: the coordinator hands the
    assignor the names it can resolve; the unresolved name still counts for the subscription
    type. A typo gets a hint on stderr, and --strict refuses it."""
    doc = {"members": {"a": {"topics": ["t", "notyet"]}, "b": {"topics": ["t"]}}, "topics": {"t": 3}}
    for target in ("impl", "spec", "impl-kafka"):
        code, out, err = _run(capsys, doc, "--target", target, tmp_path=tmp_path)
        assert code == 0, err
        assignment = json.loads(out)["assignment"]
        assert sorted(p for m in assignment.values() for p in m.get("t", [])) == [0, 1, 2]
        assert "warning: members.a.topics[1]: topic 'notyet' is not in topics" in err
    typo = {"members": {"a": {"topics": ["orderz"]}}, "topics": {"orders": 1}}
    code, out, err = _run(capsys, typo, tmp_path=tmp_path)
    assert code == 0 and json.loads(out) == {"assignment": {"a": {}}}
    assert "did you mean 'orders'?" in err
    code, out, err = _run(capsys, typo, "--strict", tmp_path=tmp_path)
    assert (code, out) == (2, "") and "members.a.topics[0]" in err and err.count("\n") == 1


def test_unresolved_names_still_count_for_the_subscription_type():
    """a subscribes to t and a topic that does not exist yet, b to t alone: Kafka's group spec
    is HETEROGENEOUS (names, not resolved ids, are compared)."""
    from groupspec.spec.simple_assignor import HETEROGENEOUS, subscription_type

    group = group_from_json({"members": {"a": {"topics": ["t", "notyet"]}, "b": {"topics": ["t"]}},
                             "topics": {"t": 3}})
    assert subscription_type(group) == HETEROGENEOUS


KAFKA_ID = "7pauBAE8r2GHOMRG8Vj_zQ"
KAFKA_ID_AS_UUID = "ee96ae04-013c-af61-8738-c446f158ffcd"


def test_topic_ids_in_kafkas_form_are_accepted_and_kept(capsys, tmp_path):
    """Kafka prints topic ids as 22 characters of URL-safe base64 (Uuid.toString); the same id
    as a UUID gives Kafka's mode the same answer, and the group keeps the spelling it was given."""
    members = {f"m{i}": {"topics": ["t"]} for i in range(3)}
    answers = []
    for tid in (KAFKA_ID, KAFKA_ID_AS_UUID):
        doc = {"members": members, "topics": {"t": 7}, "topic_ids": {"t": tid}}
        code, out, err = _run(capsys, doc, "--target", "impl-kafka", tmp_path=tmp_path)
        assert code == 0, err
        answers.append(out)
        assert group_to_json(group_from_json(doc))["topic_ids"] == {"t": tid}
    assert answers[0] == answers[1]


def test_kafka_mode_refusal_exits_1_naming_the_java_exception(capsys, tmp_path):
    """docs/cli.md: exit 1 when Kafka's assignor throws (vector no_such_element_crash)."""
    doc = {"members": {"A": {"topics": ["t"], "assignment": {"t": [1]}}, "B": {"topics": ["t"]}},
           "topics": {"t": 1}}
    code, out, err = _run(capsys, doc, "--target", "impl-kafka", tmp_path=tmp_path)
    assert (code, out) == (1, "")
    assert "java.util.NoSuchElementException" in err and err.count("\n") == 1
    code, out, _ = _run(capsys, doc, "--target", "impl", tmp_path=tmp_path)
    assert code == 0 and json.loads(out)["assignment"]["A"] == {"t": [0]}


def test_prior_assignment_may_name_deleted_topics_and_stale_partitions():
    doc = {"members": {"a": {"topics": ["t"], "assignment": {"gone": [0], "t": [9]}}},
           "topics": {"t": 2}}
    assert spec_assign(group_from_json(doc)) == {"a": {"t": frozenset({0, 1})}}


from tests.strategies import groups  # noqa: E402


@given(groups())
def test_group_json_round_trips(group):
    assert group_from_json(loads(json.dumps(group_to_json(group))), strict_topics=False) == group


def _json_blocks(markdown: str) -> list[str]:
    blocks, inside, current = [], False, []
    for line in markdown.splitlines():
        if line.strip() == "```json":
            inside, current = True, []
        elif line.strip() == "```" and inside:
            inside = False
            blocks.append("\n".join(current))
        elif inside:
            current.append(line)
    return blocks


def test_docs_cli_example_is_what_assign_answers(capsys, tmp_path, repo_root):
    """docs/cli.md's input example and its stated output, on impl, spec and impl-kafka."""
    text = (repo_root / "docs" / "cli.md").read_text()
    doc, output = _json_blocks(text)[:2]
    stated = json.loads(output)
    for target in ("impl", "spec"):
        code, out, err = _run(capsys, doc, "--target", target, tmp_path=tmp_path)
        assert code == 0, err
        assert json.loads(out) == stated
    code, out, _ = _run(capsys, doc, "--target", "impl-kafka", tmp_path=tmp_path)
    kafka = json.loads(out)["assignment"]
    assert f"`--target impl-kafka` answers `{json.dumps(kafka)}`".replace(" ", "") in \
        text.replace("\n", "").replace(" ", "")

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
    ('{"members": {"a": {"topics": ["x"]}}, "topics": {"t": 1}}', "members.a.topics[0]"),
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
        group_from_json(loads('{"members": {"a": {"topics": ["x"]}}, "topics": {}}'))
    assert info.value.field == "members.a.topics[0]"


def test_prior_assignment_may_name_deleted_topics_and_stale_partitions():
    doc = {"members": {"a": {"topics": ["t"], "assignment": {"gone": [0], "t": [9]}}},
           "topics": {"t": 2}}
    assert spec_assign(group_from_json(doc)) == {"a": {"t": frozenset({0, 1})}}


from tests.strategies import groups  # noqa: E402


@given(groups())
def test_group_json_round_trips(group):
    assert group_from_json(loads(json.dumps(group_to_json(group))), strict_topics=False) == group

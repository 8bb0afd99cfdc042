"""The later Kafka lines' vector folders (groupspec.kafka_versions): generated, and different
from the default line's exactly where the registry says."""

from __future__ import annotations

import pytest

from groupspec.conformance import vector_format as vf
from groupspec.conformance.generate import generate
from groupspec.kafka_versions import DEFAULT, VERSIONS, adjust_input

LATER = [line for line, v in VERSIONS.items() if v is not DEFAULT]


@pytest.mark.parametrize("line", LATER)
def test_committed_release_vectors_equal_generated_ones(line: str) -> None:
    root = vf.default_root(line)
    fresh = generate(line)
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*.json")}
    assert on_disk == set(fresh), "run `python -m groupspec.conformance.generate`"
    drifted = [rel for rel, text in fresh.items() if (root / rel).read_bytes() != text.encode("utf-8")]
    assert drifted == [], "run `python -m groupspec.conformance.generate`"
    assert vf.manifest_problems(root) == []
    manifest = vf.read_manifest(root)
    assert (manifest["kafka"], manifest["inherits"]) == (VERSIONS[line].folder, DEFAULT.folder)
    assert manifest["machines"] == sorted(VERSIONS[line].settings)


@pytest.mark.parametrize("line", LATER)
def test_a_release_replaces_only_the_machines_it_changes(line: str) -> None:
    release = VERSIONS[line]
    default = {v.id: v for v in vf.load(vf.default_root())}
    own = vf.load(vf.default_root(line))
    assert {v.machine for v in own} == set(release.settings)
    for v in own:  # the same cases, their input adjusted as the registry says
        base = default[v.id]
        assert v.input == adjust_input(v.machine, base.input, release.settings[v.machine])
    chosen = vf.load_release(line)
    assert sorted(v.id for v in chosen) == sorted(default)
    assert all((v.machine in release.settings) == (v.input != default[v.id].input) for v in chosen)


def test_kafka_4_3_changes_these_answers() -> None:
    """What Kafka 4.3.1's own code answered differently on 4.2's vectors (docs/conformance.md):
    one share_state read; nearly every share_group vector, by its epochs."""
    default = {v.id: v for v in vf.load(vf.default_root())}
    changed = {v.id for v in vf.load(vf.default_root("4.3")) if v.expected != default[v.id].expected}
    assert {i for i in changed if i.startswith("share_state/")} == {
        "share_state/run/read_leader_epoch_update_no_update"}
    share_group = {v.id for v in default.values() if v.machine == "share_group"}
    assert len(changed & share_group) >= len(share_group) - 2


def test_the_cli_runs_a_later_line_on_any_target(capsys) -> None:
    from groupspec.cli import main

    args = ["conformance", "--target", "spec", "--kafka-version", "4.3.1", "--filter", "share_state/"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "kafka-4.3 (machines other than share_group, share_state from kafka-4.2)" in out
    n = sum(v.machine == "share_state" for v in vf.load(vf.default_root("4.3")))
    assert n >= 36
    assert f"share_state | {n:>7} | {n:>6} |      0 |           0" in out


def test_an_unknown_line_is_refused_with_the_known_ones(capsys) -> None:
    from groupspec.cli import main

    assert main(["conformance", "--target", "impl", "--kafka-version", "4.4"]) == 2
    err = capsys.readouterr().err
    assert ("--kafka-version: unknown Kafka version '4.4'; "
            "vectors exist for 4.2 (4.2.1), 4.3 (4.3.1)") in err
    assert "Traceback" not in err

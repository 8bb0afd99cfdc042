"""The committed conformance vectors: no drift from the generator, manifest intact, format valid."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from groupspec.conformance import vector_format as vf
from groupspec.conformance.generate import generate
from groupspec.types import InputError

ROOT = vf.default_root()


@pytest.fixture(scope="module")
def fresh() -> dict[str, str]:
    return generate()


def test_committed_vectors_equal_generated_ones(fresh):
    on_disk = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.json")}
    assert on_disk == set(fresh), "run `python -m groupspec.conformance.generate`"
    drifted = [rel for rel, text in fresh.items()
               if (ROOT / rel).read_bytes() != text.encode("utf-8")]
    assert drifted == [], "run `python -m groupspec.conformance.generate`"


def test_generation_is_deterministic(fresh):
    assert generate() == fresh


def test_manifest_hashes_match():
    assert vf.manifest_problems(ROOT) == []
    manifest = vf.read_manifest(ROOT)
    assert manifest["count"] == len(manifest["vectors"])
    assert manifest["kafka"] == vf.KAFKA_VERSION


def test_every_vector_validates():
    vectors = vf.load(ROOT)
    assert len(vectors) == vf.read_manifest(ROOT)["count"]
    assert len({v.id for v in vectors}) == len(vectors)


def test_every_source_is_represented():
    counts = Counter(v.source["kind"] for v in vf.load(ROOT))
    assert counts["seed"] == 3
    assert counts["upstream"] >= 30
    assert counts["divergence"] >= 7
    assert counts["hand-made"] >= 15
    assert counts["generated"] >= 100
    modes = Counter((v.source["kind"], v.mode) for v in vf.load(ROOT))
    assert modes[("generated", "properties")] > 0 and modes[("upstream", "properties")] > 0


def test_seed_examples_share_as_the_seed_says():
    by_case = {v.case: v for v in vf.load(ROOT)}
    counts = {name: [sum(len(ps) for ps in a.values())
                     for a in by_case[name].expected["assignment"].values()]
              for name in ("seed_3_members_7_partitions", "seed_6_members_4_partitions",
                           "seed_7_members_3_partitions")}
    assert counts["seed_3_members_7_partitions"] == [3, 2, 2]
    assert counts["seed_6_members_4_partitions"] == [2, 1, 1, 2, 1, 1]
    assert sorted(counts["seed_7_members_3_partitions"]) == [1, 1, 1, 1, 1, 2, 2]


def test_invalid_vector_names_the_field():
    doc = json.loads((ROOT / vf.vector_path("simple_assignor", "assign",
                                            "seed_3_members_7_partitions")).read_text())
    for key, value, field in [("mode", "fuzzy", "vector.mode"),
                              ("properties", ["balanced"], "vector.properties"),
                              ("expected", {"error": "X"}, "vector.expected"),
                              ("format", 99, "vector.format")]:
        with pytest.raises(InputError) as err:
            vf.vector_from_json({**doc, key: value}, "x.json")
        assert field in str(err.value)
    bad_input = {**doc, "input": {**doc["input"], "topics": {"topic1": -1}}}
    with pytest.raises(InputError, match=r"topics\.topic1"):
        vf.vector_from_json(bad_input, "x.json")


def test_tampered_vector_is_refused(tmp_path):
    copy = tmp_path / "v"
    shutil.copytree(ROOT, copy)
    victim = copy / vf.vector_path("simple_assignor", "assign", "seed_3_members_7_partitions")
    victim.write_text(victim.read_text().replace('"exact"', '"properties"'))
    (copy / "simple_assignor" / "assign" / "stray").mkdir()
    (copy / "simple_assignor" / "assign" / "stray" / "vector.json").write_text("{}")
    problems = vf.manifest_problems(copy)
    assert any("seed_3_members_7_partitions" in p and "sha256" in p for p in problems)
    assert any("stray" in p and "not listed" in p for p in problems)
    with pytest.raises(InputError, match="regenerate"):
        vf.load(copy)


def test_generating_outside_a_checkout_is_refused_and_writes_nothing(tmp_path):
    """The catalogues live in tests/scenarios/; an installed package cannot regenerate, and says so."""
    import subprocess
    import sys

    out = tmp_path / "vectors"
    done = subprocess.run([sys.executable, "-m", "groupspec.conformance.generate", "--out", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "run this from the root of a checkout" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()

"""Every catalogued case is a scenario test: each machine's ``tests/scenarios/<machine>/cases.py``
is run, case by case, on every in-process layer (spec, impl, impl-kafka) and judged against the
case's vector. With ``--vectors-out DIR`` each test also writes the vector its case yields, the
way consensus-specs' tests yield their vectors: one catalogue gives both the tests and the vectors.

The cases' own claims (a heartbeat sent with epoch 1, a batch acquired, the group ends Stable) are
checked against the spec's answer by tests/cover/test_conformance_<machine>.py; a layer that passes
here gives the same answer, so the claims hold on it too.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from groupspec import machines
from groupspec.conformance import runner, targets
from groupspec.conformance import vector_format as vf

VECTORS = {v.path: v for v in vf.load(vf.default_root())}


def _cases() -> list[Any]:
    out = []
    for v in sorted(VECTORS.values(), key=lambda v: v.path):
        for layer in machines.get(v.machine).targets:
            out.append(pytest.param(v.path, layer, id=f"{v.machine}/{v.case}[{layer}]"))
    return out


@functools.cache
def _docs(machine: str) -> dict[str, dict[str, Any]]:
    """The machine's vectors as its generator yields them now, by path."""
    entry = machines.get(machine)
    return {vf.vector_path(d["machine"], d["handler"], d["case"]): d
            for d in machines.load(entry.vectors)()}


@pytest.mark.parametrize(("path", "layer"), _cases())
def test_case(path: str, layer: str, request: pytest.FixtureRequest) -> None:
    vector = VECTORS[path]
    flavour = targets.DEFAULT_FLAVOUR.get(layer, "groupspec")
    report = runner.run([vector], targets.make_target(layer, 30.0), flavour)
    assert report.failed == [], runner.failures_text(report)
    out: Path | None = request.config.getoption("--vectors-out")
    if out is not None:
        doc = _docs(vector.machine)[path]
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(vf.dumps(doc).encode("utf-8"))


def test_every_vector_runs_on_its_machines_layers() -> None:
    """The cases above are every committed vector on every layer its machine names; the spec
    runs every machine but the records codec (it speaks typed records, not bytes)."""
    ids = [(p.values[0], p.values[1]) for p in _cases()]
    assert len(ids) == len(set(ids))
    by_layer = {layer: {VECTORS[path].machine for path, lay in ids if lay == layer}
                for layer in machines.IN_PROCESS}
    every = {m.name for m in machines.MACHINES}
    assert by_layer["impl"] == by_layer["impl-kafka"] == every
    assert by_layer["spec"] == every - {"records"}
    assert {path for path, _ in ids} == set(VECTORS)

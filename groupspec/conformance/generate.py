"""Write the conformance vectors from the spec: ``python -m groupspec.conformance.generate``.

Theory of operation
-------------------
Every expectation in a vector is computed here, never typed in: ``expected`` is the spec's
answer (``groupspec.spec``), ``expected_kafka`` is the Kafka-compatible mode's answer or the
Java exception it throws (``groupspec.impl.simple_assignor.assign(group, compat="kafka")``). Inputs
come from the scenario catalogues ``tests/scenarios/<machine>/cases.py`` (the registry's
``vectors`` entry names each machine's generator): each case is also a scenario test run on both
layers (``tests/scenarios/test_cases.py``), so the vectors and the scenario tests are one
catalogue. The stateful machines' vectors run the spec over each case's events. Generating
therefore needs a checkout of the repository; the installed package carries the vectors.

The output is deterministic to the byte: the same code gives the same files, so
tests/repo/test_vectors_repo.py can regenerate in memory and compare with what is committed. To get
there, each input is first written in a canonical form (topics, ids and previous targets sorted
by name; members and each member's subscription kept in their meaningful order; every existing
topic given an explicit topic id, so an outside Kafka-flavoured target needs no id rule of its
own), then read back, and the expectations are computed on the group as read back, so they hold
for exactly the bytes a target is sent.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from groupspec import kafka_versions, machines
from groupspec.conformance import vector_format as vf
from groupspec.conformance.run_form import RunCase
from groupspec.conformance.targets import dispatch
from groupspec.types import AssignorInput, GroupAssignment, GroupspecError, PartitionAssignorError

MACHINE = "simple_assignor"
HANDLER = machines.get(MACHINE).handler


class AssignorCase(RunCase, Protocol):
    """A SimpleAssignor case of tests/scenarios/simple_assignor/cases.py."""

    @property
    def mode(self) -> str: ...

    @property
    def group(self) -> AssignorInput: ...


def kafka_assign(group: AssignorInput) -> GroupAssignment:
    from groupspec.impl.simple_assignor import assign

    return assign(group, compat="kafka")


def canonical_input(group: AssignorInput) -> dict[str, Any]:
    """The group's JSON (group_json's shape) in canonical order, with explicit topic ids."""
    from groupspec.impl.simple_assignor.kafka_compat import derived_topic_id

    ids = {t: group.topic_ids.get(t) or derived_topic_id(t) for t in group.topics}
    doc: dict[str, Any] = {
        "members": {
            m.member_id: {"topics": list(m.topics),
                          "assignment": {t: sorted(m.assignment[t]) for t in sorted(m.assignment)}}
            for m in group.members
        },
        "topics": {t: group.topics[t] for t in sorted(group.topics)},
        "topic_ids": {t: ids[t] for t in sorted(ids)},
    }
    if group.assignable is not None:
        doc["assignable"] = {t: sorted(group.assignable[t]) for t in sorted(group.assignable)}
    return doc


def vector_doc(case: AssignorCase) -> dict[str, Any]:
    """The vector of one SimpleAssignor case, expectations computed from the spec."""
    from groupspec.group_json import assignment_to_json, group_from_json
    from groupspec.spec.simple_assignor import PROPERTIES, assign, check_properties

    doc_input = canonical_input(case.group)
    group = group_from_json(doc_input, strict_topics=False)
    expected = assignment_to_json(assign(group))
    kafka: dict[str, Any]
    kafka_properties: list[str] | None = None
    try:
        answer = kafka_assign(group)
    except PartitionAssignorError as exc:
        kafka = {"error": exc.kafka_exception}
    else:
        kafka = assignment_to_json(answer)
        held = check_properties(group, answer)
        kafka_properties = [p for p in PROPERTIES if held[p]]
    doc = vf.vector_head(MACHINE, HANDLER, case, PROPERTIES)
    if kafka_properties is not None:
        doc["properties_kafka"] = kafka_properties
    doc["input"] = doc_input
    doc["expected"] = expected
    doc["expected_kafka"] = kafka
    return doc


def _all_vector_docs() -> Iterator[dict[str, Any]]:
    """Every machine's vectors, in registry order (each entry names its generator)."""
    for machine in machines.MACHINES:
        yield from machines.load(machine.vectors)()


def _release_vector_docs(release: kafka_versions.KafkaVersion) -> Iterator[dict[str, Any]]:
    """A later release's vectors: the default line's cases of each machine the release changes,
    their input adjusted to the release (kafka_versions.adjust_input) and ``expected`` what the
    spec answers under it."""
    for machine in machines.MACHINES:
        settings = release.settings.get(machine.name)
        if settings is None:
            continue
        for doc in machines.load(machine.vectors)():
            if "expected_kafka" in doc:
                raise ValueError(f"{doc['case']}: a release's vectors carry one expected answer")
            doc_input = kafka_versions.adjust_input(machine.name, doc["input"], settings)
            yield {**doc, "input": doc_input,
                   "expected": dispatch("spec", doc["machine"], doc["handler"], doc_input)}


def generate(line: str | None = None) -> dict[str, str]:
    """Every file of a release line's folder (vectors and manifest): relative path -> text."""
    release = kafka_versions.version(line)
    files: dict[str, str] = {}
    entries = []
    docs = _all_vector_docs() if release is kafka_versions.DEFAULT else _release_vector_docs(release)
    for doc in docs:
        vf.vector_from_json(doc, doc["case"])  # never write what the runner would refuse
        path = vf.vector_path(doc["machine"], doc["handler"], doc["case"])
        if path in files:
            raise ValueError(f"two cases are named {doc['case']!r}")
        text = vf.dumps(doc)
        files[path] = text
        entries.append({"path": path, "machine": doc["machine"], "handler": doc["handler"],
                        "case": doc["case"], "mode": doc["mode"],
                        "source": doc["source"]["kind"],
                        "sha256": vf.sha256(text.encode("utf-8"))})
    entries.sort(key=lambda e: e["path"])
    manifest: dict[str, Any] = {"format": vf.FORMAT_VERSION, "kafka": release.folder,
                                "generator": "python -m groupspec.conformance.generate"}
    if release is not kafka_versions.DEFAULT:
        manifest["inherits"] = kafka_versions.DEFAULT.folder
        manifest["machines"] = sorted(release.settings)
        manifest["why"] = dict(sorted(release.why.items()))
    manifest.update({"count": len(entries), "vectors": entries})
    files[vf.MANIFEST_FILE] = vf.dumps(manifest)
    return files


class NotACheckout(GroupspecError):
    """The case catalogues (tests/scenarios/) are not importable: this is an installed package."""


def require_checkout() -> None:
    try:
        importlib.import_module("tests.scenarios")
    except ImportError:
        raise NotACheckout("the vectors are generated from tests/scenarios/: run this from the root of a "
                           "checkout of the groupspec repository (the installed package carries the "
                           "vectors; nothing was written)") from None


def write(root: Path, line: str | None = None) -> int:
    """Regenerate ``root`` as the folder of a release line (default: the default line); machine
    folders are replaced whole, so removed cases disappear."""
    require_checkout()
    files = generate(line)
    root.mkdir(parents=True, exist_ok=True)
    machines = {p.split("/", 1)[0] for p in files if "/" in p}
    for machine in machines:
        shutil.rmtree(root / machine, ignore_errors=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return len(files) - 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m groupspec.conformance.generate",
                                     description="regenerate the conformance vectors")
    parser.add_argument("--out", type=Path, default=None,
                        help="write only the default line's folder, here (default: every line's "
                             "folder in the package)")
    args = parser.parse_args(argv)
    try:
        written = ([(args.out, None)] if args.out is not None else
                   [(vf.default_root(line), line) for line in kafka_versions.VERSIONS])
        for root, line in written:
            count = write(root, line)
            print(f"wrote {count} vectors and {vf.MANIFEST_FILE} to {root}")
    except NotACheckout as exc:
        print(f"groupspec: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

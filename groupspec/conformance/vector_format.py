"""The conformance vector format: one JSON file per case, a manifest per Kafka version.

Theory of operation
-------------------
A vector states one call on one machine and what a conforming target answers::

    <root>/<kafka version>/<machine>/<handler>/<case>/vector.json
    <root>/<kafka version>/manifest.json

This module owns the shape of those files and nothing else: reading and validating a vector,
writing one in a stable byte form, hashing, and checking a folder against its manifest. What a
machine's ``input`` and ``output`` look like is the machine's business; each machine's registry
entry (:mod:`groupspec.machines`) names validators for both, from which :data:`MACHINES`
derives a :class:`MachineFormat`, so a later machine (a
coordinator whose ``input`` is a list of request steps and whose ``expected`` holds responses,
records and the final state) is one more entry, not a new format. docs/conformance.md is the
page that describes the format for people writing their own adapter; keep the two in step.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groupspec import bounded_json, machines
from groupspec.types import InputError
from groupspec.types.topic_id import TopicIdSpellings

#: Bump when a field changes meaning; the runner refuses vectors of another version.
FORMAT_VERSION = 1
KAFKA_VERSION = "kafka-4.2"
VECTOR_FILE = "vector.json"
MANIFEST_FILE = "manifest.json"
MODES = ("exact", "properties")
SOURCE_KINDS = ("seed", "upstream", "divergence", "hand-made", "generated", "fact-sheet",
                "observed")

_REQUIRED = ("format", "machine", "handler", "case", "description", "source", "mode",
             "properties", "input", "expected")
_OPTIONAL = ("expected_kafka", "properties_kafka")


def vector_head(machine: str, handler: str, case: Any, properties: Sequence[str]) -> dict[str, Any]:
    """The fields every vector starts with, from a catalogue case (its name, description, source
    and mode), so each machine's generator writes them alike."""
    return {"format": FORMAT_VERSION, "machine": machine, "handler": handler, "case": case.name,
            "description": case.description, "source": dict(case.source), "mode": case.mode,
            "properties": list(properties)}


def default_root(line: str | None = None) -> Path:
    """The vectors shipped inside the package for a Kafka release line (default: the one
    groupspec describes; a later line's folder holds only the machines that line changes)."""
    folder = KAFKA_VERSION if line is None else f"kafka-{line}"
    return Path(__file__).resolve().parent.parent / "vectors" / folder


@dataclass(frozen=True)
class MachineFormat:
    """What a machine's vectors may hold: its handlers, property names and payload checks.

    ``check_input[handler](doc)`` and ``check_output[handler](doc)`` raise InputError naming the
    bad field.
    """

    handlers: tuple[str, ...]
    properties: tuple[str, ...]
    check_input: Mapping[str, Callable[[Any], None]]
    check_output: Mapping[str, Callable[[Any], None]]
    #: Whether ``expected`` may be an error (a codec refusing bad bytes); an assignor never errs.
    errors_expected: bool = False


def _format(machine: machines.Machine) -> MachineFormat:
    return MachineFormat(handlers=machine.handlers, properties=machine.property_names(),
                         check_input={h: machines.load(machine.role("check_input", h))
                                      for h in machine.handlers},
                         check_output={h: machines.load(machine.role("check_output", h))
                                       for h in machine.handlers},
                         errors_expected=machine.errors_expected)


#: What each machine's vectors may hold, derived from the registry (:mod:`groupspec.machines`).
MACHINES: dict[str, Callable[[], MachineFormat]] = {
    m.name: functools.partial(_format, m) for m in machines.MACHINES}


@dataclass(frozen=True)
class Vector:
    """One vector as read from disk; ``doc`` keeps the parsed JSON for targets and reports."""

    machine: str
    handler: str
    case: str
    description: str
    source: Mapping[str, Any]
    mode: str
    properties: tuple[str, ...]
    input: Any
    expected: Mapping[str, Any]
    expected_kafka: Mapping[str, Any] | None
    properties_kafka: tuple[str, ...] | None
    path: str

    @property
    def id(self) -> str:
        return f"{self.machine}/{self.handler}/{self.case}"


def object_at(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(path, "expected an object")
    return value


def only_keys(obj: Mapping[str, Any], allowed: set[str], path: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise InputError(f"{path}.{extra[0]}", f"unknown field (expected one of {sorted(allowed)})")


def string_at(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{path}.{key}", "expected a non-empty string")
    return value


def _names(value: Any, allowed: Sequence[str], path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, "expected an array of property names")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        raise InputError(path, f"unknown property {unknown[0]!r} (known: {list(allowed)})")
    return tuple(value)


def _expectation(value: Any, fmt: MachineFormat, handler: str, path: str, *,
                 error_allowed: bool) -> None:
    body = object_at(value, path)
    if "error" in body:
        if not error_allowed:
            raise InputError(path, "the groupspec expectation is never an error")
        only_keys(body, {"error"}, path)
        if not isinstance(body["error"], str) or not body["error"]:
            raise InputError(f"{path}.error", "expected the name of the exception")
        return
    try:
        fmt.check_output[handler](body)
    except InputError as exc:
        raise InputError(f"{path}{exc.field.removeprefix('output')}", exc.problem) from None


def vector_from_json(doc: Any, where: str) -> Vector:
    """Validate a parsed vector; InputError names the file and the bad field."""
    try:
        return _vector(doc, where)
    except InputError as exc:
        raise InputError(f"{where}: {exc.field}", exc.problem) from None


def _vector(doc: Any, where: str) -> Vector:
    top = object_at(doc, "vector")
    only_keys(top, set(_REQUIRED) | set(_OPTIONAL), "vector")
    for key in _REQUIRED:
        if key not in top:
            raise InputError(f"vector.{key}", "missing")
    if top["format"] != FORMAT_VERSION:
        raise InputError("vector.format", f"format {top['format']!r}; this runner reads "
                         f"{FORMAT_VERSION} (regenerate, or use a matching groupspec)")
    machine = string_at(top, "machine", "vector")
    if machine not in MACHINES:
        raise InputError("vector.machine", f"unknown machine {machine!r} (known: {list(MACHINES)})")
    fmt = MACHINES[machine]()
    handler = string_at(top, "handler", "vector")
    if handler not in fmt.handlers:
        raise InputError("vector.handler", f"{machine} has no handler {handler!r}")
    case = string_at(top, "case", "vector")
    description = string_at(top, "description", "vector")
    source = object_at(top["source"], "vector.source")
    if source.get("kind") not in SOURCE_KINDS:
        raise InputError("vector.source.kind", f"expected one of {list(SOURCE_KINDS)}")
    mode = top["mode"]
    if mode not in MODES:
        raise InputError("vector.mode", f"expected one of {list(MODES)}")
    properties = _names(top["properties"], fmt.properties, "vector.properties")
    properties_kafka = None
    if top.get("properties_kafka") is not None:
        properties_kafka = _names(top["properties_kafka"], fmt.properties,
                                  "vector.properties_kafka")
    if mode == "properties" and not properties:
        raise InputError("vector.properties", "a property-only vector must list properties")
    # A vector may spell topic ids as Kafka prints them; the machines read the UUID spelling.
    spellings = TopicIdSpellings()
    top = {**top, **{key: spellings.normalize(top[key])
                     for key in ("input", "expected", "expected_kafka") if key in top}}
    fmt.check_input[handler](top["input"])
    _expectation(top["expected"], fmt, handler, "vector.expected", error_allowed=fmt.errors_expected)
    expected_kafka = top.get("expected_kafka")
    if expected_kafka is not None:
        _expectation(expected_kafka, fmt, handler, "vector.expected_kafka", error_allowed=True)
    return Vector(machine, handler, case, description, source, mode, properties, top["input"],
                  top["expected"], expected_kafka, properties_kafka, where)


def dumps(doc: Mapping[str, Any], width: int = 100) -> str:
    """The stable text of a JSON document, in key order as built, ending in a newline.

    A value whose compact form fits on its line is written on one line; larger objects and
    arrays are broken, one entry per line, two-space indent. Readable and byte-stable.
    """
    return _dump(doc, 0, width) + "\n"


def _dump(value: Any, indent: int, width: int, prefix: int = 0) -> str:
    flat = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if indent + prefix + len(flat) <= width or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            key = json.dumps(k, ensure_ascii=False) + ": "
            items.append(pad + key + _dump(v, indent + 2, width, len(key)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    return ("[\n" + ",\n".join(pad + _dump(v, indent + 2, width) for v in value) + "\n"
            + " " * indent + "]")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def vector_path(machine: str, handler: str, case: str) -> str:
    """The path of a vector relative to the version folder, with forward slashes."""
    return f"{machine}/{handler}/{case}/{VECTOR_FILE}"


def read_manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST_FILE
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(str(path), f"cannot read the manifest: {exc.strerror or exc}") from None
    doc = bounded_json.parse(data, str(path))
    top = object_at(doc, str(path))
    if top.get("format") != FORMAT_VERSION:
        raise InputError(f"{path}: format", f"expected format {FORMAT_VERSION}")
    if not isinstance(top.get("vectors"), list):
        raise InputError(f"{path}: vectors", "expected an array")
    return top


def manifest_problems(root: Path) -> list[str]:
    """Every way the folder and its manifest disagree (missing, unlisted or changed files)."""
    manifest = read_manifest(root)
    problems = []
    listed: set[str] = set()
    for k, entry in enumerate(manifest["vectors"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            problems.append(f"manifest vectors[{k}]: expected an object with a path")
            continue
        listed.add(entry["path"])
        file = root / entry["path"]
        if not file.is_file():
            problems.append(f"{entry['path']}: listed in the manifest but missing")
        elif sha256(file.read_bytes()) != entry.get("sha256"):
            problems.append(f"{entry['path']}: sha256 differs from the manifest")
    for file in sorted(root.glob(f"*/*/*/{VECTOR_FILE}")):
        rel = file.relative_to(root).as_posix()
        if rel not in listed:
            problems.append(f"{rel}: not listed in the manifest")
    return problems


def load_release(line: str | None = None) -> list[Vector]:
    """The packaged vectors a Kafka release line is held to: its own folder's machines, and every
    other machine from the default line's folder (groupspec.kafka_versions says which differ)."""
    from groupspec import kafka_versions

    release = kafka_versions.version(line)
    if release is kafka_versions.DEFAULT:
        return load(default_root())
    own = load(default_root(release.line))
    return [v for v in load(default_root()) if v.machine not in release.settings] + own


def load(root: Path) -> list[Vector]:
    """Every vector the manifest lists, validated, after checking the manifest's hashes."""
    problems = manifest_problems(root)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(str(root), f"{problems[0]}{more}; regenerate with "
                         "`groupspec conformance --regenerate`")
    vectors = []
    for entry in read_manifest(root)["vectors"]:
        rel = entry["path"]
        doc = bounded_json.parse((root / rel).read_bytes(), rel)
        vector = vector_from_json(doc, rel)
        if rel != vector_path(vector.machine, vector.handler, vector.case):
            raise InputError(rel, "machine/handler/case do not match the file's folder")
        vectors.append(vector)
    return vectors

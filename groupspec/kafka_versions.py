"""The Kafka releases groupspec's vectors hold answers for, and what differs between them.

Why: groupspec follows Kafka 4.2 by default, but a later release changes a few rules (its
vectors run on Kafka 4.3.1's own code show exactly which, docs/conformance.md). A user of a
4.3 broker needs the 4.3 answers, so each difference is a named config setting of the machine
it belongs to, both layers follow either value, and each release has its own vector folder
(``groupspec/vectors/kafka-<line>/``) holding the machines whose answers differ; the machines
it does not hold are the same as the default release's, as consensus-specs' forks inherit.

This table is the one place that says which setting each release has: the generator writes
the later release's vectors from it and the runner picks the folder from it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from groupspec.types import InputError


@dataclass(frozen=True)
class KafkaVersion:
    """One release line: its vector folder, and per machine the config settings it changes."""

    line: str  # "4.2"
    #: The release of that line the Kafka adapter is built against (``--target kafka``).
    release: str
    #: machine -> {config field: value}; a machine not named here answers as the default line.
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: Why each machine differs, with the upstream change.
    why: Mapping[str, str] = field(default_factory=dict)

    @property
    def folder(self) -> str:
        return f"kafka-{self.line}"


DEFAULT = KafkaVersion("4.2", "4.2.1")

VERSIONS: Mapping[str, KafkaVersion] = MappingProxyType({v.line: v for v in (
    DEFAULT,
    KafkaVersion("4.3", "4.3.1", settings={
        "share_group": {"initial_group_epoch": 1},
        "share_state": {"fence_read_without_leader_epoch": False},
    }, why={
        "share_group": "KAFKA-20268: a new group starts at group and assignment epoch 1 (ModernGroup)",
        "share_state": "KAFKA-20694: a ReadShareGroupState at leader epoch -1 is not fenced",
    }),
)})


def adjust_input(machine: str, doc_input: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """A vector's input (JSON) as it is written for a release with ``settings``: its config takes
    them, and where a release starts share groups at epoch 1 instead of 0 every positive member
    epoch a heartbeat carries is that much higher (the client echoes the epochs it was given, all
    shifted alike; 0 to join and -1 to leave keep their meaning). Running Kafka 4.3.1 on 4.2's
    share_group vectors with that shift answered as 4.2.1 does with each epoch one higher
    (docs/conformance.md), which is why one shift suffices."""
    out = copy.deepcopy(dict(doc_input))
    out["config"] = {**out["config"], **settings}
    shift = settings.get("initial_group_epoch", 0)
    if machine == "share_group" and shift:
        for event in out["events"]:
            if event.get("type") == "ShareGroupHeartbeat" and event["member_epoch"] > 0:
                event["member_epoch"] += shift
    return out


def version(name: str | None) -> KafkaVersion:
    """``"4.3"``, ``"4.3.1"`` or ``"kafka-4.3"`` (None: the default); anything else is an
    InputError listing the known ones."""
    if name is None:
        return DEFAULT
    line = name.removeprefix("kafka-")
    for v in VERSIONS.values():
        if line in (v.line, v.release):
            return v
    known = ", ".join(f"{v.line} ({v.release})" for v in VERSIONS.values())
    raise InputError("--kafka-version", f"unknown Kafka version {name!r}; vectors exist for {known}")

"""The machine registry: one entry a machine, and every list of machines derives from it.

A machine is known to many places: the vector format checks its vectors' input and output, the
runner judges its answers, the in-process targets and ``groupspec adapter`` drive its spec and
impl, the generator writes its vectors, the docs give it a page. Each of those used to keep its
own string-keyed table; they now read this one (``vector_format.MACHINES``,
``targets.handlers()``, the runner's judges and the generator's list derive from
:data:`MACHINES`), and a repository test checks that every machine has its vocabulary, spec,
implementation, vectors and page under its one name.

Each role is named ``"module:attribute"`` and imported only when used, so this module imports
nothing of the project: any module may read the registry without an import cycle, and asking
for one machine's judge does not load another machine's code.

Adding a machine: its vocabulary ``groupspec/types/<name>.py``, spec ``spec/<name>.py``,
implementation ``impl/<name>/``, conformance module ``groupspec/conformance/<name>.py`` (checks,
judge, driver), scenarios folder ``tests/scenarios/<name>/`` (its ``cases.py`` is the catalogue
the vectors are generated from, each case also a scenario test on both layers), page
``docs/machines/<name>.md``, and one entry here; no shared module changes.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The in-process targets: groupspec's implementation, the same in Kafka-exact mode, the spec.
IN_PROCESS = ("impl", "impl-kafka", "spec")


def load(reference: str) -> Any:
    """The object a ``"module:attribute"`` reference names."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Machine:
    name: str
    #: The conformance handlers its vectors call ("run" for the stateful machines), the first the
    #: main one; each has its own input and output checks and driver (see :meth:`role`).
    handlers: tuple[str, ...]
    #: Where it lives: vocabulary module, spec module (None: the spec does not model it), impl package.
    vocabulary: str
    spec: str | None
    impl: str
    #: A function yielding the vector documents the generator writes.
    vectors: str
    #: In-process targets that do not implement it, with the reason they answer.
    unsupported: Mapping[str, str] = field(default_factory=dict)
    #: Whether a vector's ``expected`` may be an error (a codec refusing bad bytes).
    errors_expected: bool = False
    #: Handlers whose three roles live in a module of their own (handler -> module), so that a
    #: machine with many handlers need not keep them all in one file.
    handler_modules: Mapping[str, str] = field(default_factory=dict)
    #: Whether its vectors' ``expected`` is Kafka's own answer (both layers follow Kafka's code),
    #: so that a Kafka-flavoured answer is held to it where a vector has no ``expected_kafka``,
    #: rather than to the properties alone.
    expected_is_kafkas: bool = False

    @property
    def handler(self) -> str:
        """The main handler (the only one of most machines)."""
        return self.handlers[0]

    @property
    def conformance(self) -> str:
        """Its conformance module: ``check_input`` / ``check_output`` (raise InputError naming the
        bad field of a vector's input / output), ``PROPERTIES``, ``JUDGE`` (how answers are
        compared and properties checked) and ``handler(target)`` (runs one request in process),
        for the main handler; another handler's three are suffixed with its name (:meth:`role`)."""
        return f"groupspec.conformance.{self.name}"

    def role(self, role: str, handler: str) -> str:
        """``check_input``, ``check_output`` or ``handler`` of one of its handlers: the plain name
        for the main handler, ``<role>_<handler>`` for another (``check_input_decode_log``)."""
        if handler not in self.handlers:
            raise KeyError(f"{self.name} has no handler {handler!r}")
        suffix = "" if handler == self.handler else f"_{handler}"
        return f"{self.handler_modules.get(handler, self.conformance)}:{role}{suffix}"

    @property
    def check_input(self) -> str:
        return self.role("check_input", self.handler)

    @property
    def check_output(self) -> str:
        return self.role("check_output", self.handler)

    @property
    def judge(self) -> str:
        return f"{self.conformance}:JUDGE"

    @property
    def driver(self) -> str:
        return self.role("handler", self.handler)

    @property
    def properties(self) -> str:
        return f"{self.conformance}:PROPERTIES"

    @property
    def page(self) -> str:
        return f"docs/machines/{self.name}.md"

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(t for t in IN_PROCESS if t not in self.unsupported)

    def property_names(self) -> tuple[str, ...]:
        return tuple(load(self.properties))


def _stateful(name: str, vectors: str, *, expected_is_kafkas: bool = False) -> Machine:
    """A machine whose vectors are whole runs: events in, every output and the final view out."""
    return Machine(name=name, handlers=("run",), vocabulary=f"groupspec.types.{name}",
                   spec=f"groupspec.spec.{name}", impl=f"groupspec.impl.{name}",
                   vectors=f"tests.scenarios.{name}.cases:{vectors}", expected_is_kafkas=expected_is_kafkas)


MACHINES: tuple[Machine, ...] = (
    Machine(
        name="simple_assignor", handlers=("assign",),
        vocabulary="groupspec.types.simple_assignor", spec="groupspec.spec.simple_assignor",
        impl="groupspec.impl.simple_assignor",
        vectors="tests.scenarios.simple_assignor.cases:assignor_vector_docs",
    ),
    Machine(
        name="records",
        handlers=("decode_record", "decode_log", "encode_record", "encode_batch", "write_log", "read_log",
                  "decode_partition", "decode_consumer_protocol", "encode_consumer_protocol"),
        vocabulary="groupspec.types.records", spec=None, impl="groupspec.impl.codec",
        vectors="tests.scenarios.records.cases:record_vector_docs",
        # Bytes are Kafka's in both flavours; the spec has no codec (it speaks typed records).
        unsupported={"spec": "the spec has no codec: it speaks typed records, not bytes"},
        handler_modules={"encode_batch": "groupspec.conformance.records_batch",
                         "write_log": "groupspec.conformance.records_batch",
                         "read_log": "groupspec.conformance.records_batch",
                         "decode_partition": "groupspec.conformance.records_partition",
                         "decode_consumer_protocol": "groupspec.conformance.records_protocol",
                         "encode_consumer_protocol": "groupspec.conformance.records_protocol"},
        errors_expected=True,
    ),
    _stateful("classic_group", "classic_vector_docs"),
    # The classic consumer's assignors, run by a group's leader (docs/machines/classic_assignors.md).
    Machine(
        name="classic_assignors", handlers=("assign",),
        vocabulary="groupspec.types.classic_assignors", spec="groupspec.spec.classic_assignors",
        impl="groupspec.impl.classic_assignors",
        vectors="tests.scenarios.classic_assignors.cases:classic_assignors_vector_docs",
    ),
    # Both layers follow Kafka's SharePartition (docs/conformance.md, "Machine share_partition").
    _stateful("share_partition", "share_vector_docs", expected_is_kafkas=True),
    _stateful("share_group", "share_group_vector_docs"),
    _stateful("share_consumer", "share_consumer_vector_docs"),
    # The share coordinator; both layers follow Kafka's ShareCoordinatorShard (docs/machines/share_state.md).
    _stateful("share_state", "share_state_vector_docs", expected_is_kafkas=True),
    # The share consumer's delivery path: poll, acknowledge, commit, close (docs/machines/share_delivery.md).
    _stateful("share_delivery", "share_delivery_vector_docs"),
    # The classic consumer's client side: join/sync/heartbeat, listener callbacks, commits
    # (docs/machines/classic_consumer.md).
    _stateful("classic_consumer", "classic_consumer_vector_docs"),
)

BY_NAME: dict[str, Machine] = {m.name: m for m in MACHINES}


def get(name: str) -> Machine:
    """The machine called ``name``; KeyError names the known ones."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown machine {name!r} (known: {', '.join(BY_NAME)})") from None

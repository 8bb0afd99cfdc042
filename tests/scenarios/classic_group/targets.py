"""One driver for both layers of the classic group coordinator, for scenario tests.

``Driver("spec")`` steps the pure spec, ``Driver("impl")`` the implementation; both take events,
number them, and keep every answer by request index, so a scenario reads the same on both.
"""

from __future__ import annotations

from groupspec.impl.classic_group import ClassicCoordinator
from groupspec.spec import classic_group as spec
from groupspec.types.classic_group import (
    AdvanceClock,
    ClassicConfig,
    ClassicEvent,
    GroupView,
    JoinGroup,
    JoinGroupResponse,
    LogEntry,
    Output,
    Protocol,
)
from groupspec.types.errors import Errors

LAYERS = ("spec", "impl")
PROTOCOLS = (Protocol("range", b"\x00\x00\x00\x00\x00\x01\x00\x06orders\xff\xff\xff\xff"),)


class Driver:
    def __init__(self, layer: str, config: ClassicConfig = ClassicConfig(), start_ms: int = 0) -> None:  # noqa: B008
        self.layer = layer
        self.index = 0
        self.answers: dict[int, object] = {}
        self.log: list[LogEntry] = []
        self.outputs: list[Output] = []
        if layer == "spec":
            self._state = spec.initial_state(config, start_ms)
        else:
            self._impl = ClassicCoordinator(config, start_ms=start_ms)

    def send(self, event: ClassicEvent) -> int:
        """Apply one event; returns its request index."""
        index = self.index
        self.index += 1
        if self.layer == "spec":
            self._state, out = spec.step(self._state, event, index)
        else:
            out = self._impl.handle(event, index)
        for answer in out.answers:
            assert answer.request not in self.answers, f"request {answer.request} answered twice"
            self.answers[answer.request] = answer.response
        self.log.extend(out.records)
        self.outputs.append(out)
        return index

    def released(self) -> list[int]:
        """The requests the last event answered, in index order."""
        return sorted(a.request for a in self.outputs[-1].answers)

    def now(self) -> int:
        return self.view().now_ms

    def advance(self, by_ms: int) -> None:
        self.send(AdvanceClock(self.now() + by_ms))

    def view(self):  # type: ignore[no-untyped-def]
        return spec.view(self._state) if self.layer == "spec" else self._impl.view()

    def group(self, group_id: str) -> GroupView:
        for group in self.view().groups:
            if group.group_id == group_id:
                return group
        raise KeyError(group_id)

    def state(self, group_id: str) -> str:
        try:
            return self.group(group_id).state
        except KeyError:
            return "Dead"

    def answer(self, index: int) -> object:
        return self.answers[index]

    def error(self, index: int) -> Errors:
        return self.answers[index].error  # type: ignore[attr-defined, no-any-return]

    def new_member(self, group_id: str, client: str, **fields: object) -> tuple[str, int]:
        """The two-step join of a dynamic member: (its issued id, the index of its parked join)."""
        first = self.send(JoinGroup(group_id, client_id=client, protocols=PROTOCOLS,
                                    new_member_uuid=f"{client}-uuid", **fields))  # type: ignore[arg-type]
        response = self.answers[first]
        assert isinstance(response, JoinGroupResponse) and response.error is Errors.MEMBER_ID_REQUIRED
        join = self.send(JoinGroup(group_id, member_id=response.member_id, client_id=client,
                                   protocols=PROTOCOLS, **fields))  # type: ignore[arg-type]
        return response.member_id, join

    def rejoin(self, group_id: str, member_id: str, **fields: object) -> int:
        return self.send(JoinGroup(group_id, member_id=member_id, protocols=PROTOCOLS, **fields))  # type: ignore[arg-type]

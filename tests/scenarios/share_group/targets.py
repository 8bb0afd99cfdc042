"""One driver for both layers of the share group coordinator, for scenario tests."""

from __future__ import annotations

from groupspec.impl.share_group import ShareGroupCoordinator
from groupspec.spec import share_group as spec
from groupspec.types.errors import Errors
from groupspec.types.records import CoordinatorRecord
from groupspec.types.share_group import (
    GroupView,
    Output,
    PersisterAnswer,
    ShareCoordinatorView,
    ShareGroupConfig,
    ShareGroupEvent,
    ShareGroupHeartbeat,
    ShareGroupHeartbeatResponse,
    TopicMetadata,
)

LAYERS = ("spec", "impl")


class Coordinator:
    def __init__(self, layer: str, *topics: TopicMetadata,
                 config: ShareGroupConfig = ShareGroupConfig()) -> None:  # noqa: B008
        self.layer = layer
        self.index = 0
        self.outputs: list[Output] = []
        #: Every record written, in order.
        self.log: list[CoordinatorRecord] = []
        if layer == "spec":
            self._state = spec.initial_state(config, topics)
        else:
            self._impl = ShareGroupCoordinator(config, topics)

    def send(self, event: ShareGroupEvent) -> object | None:
        if self.layer == "spec":
            self._state, out = spec.step(self._state, event, self.index)
        else:
            out = self._impl.handle(event, self.index)
        self.index += 1
        self.outputs.append(out)
        self.log.extend(out.records)
        return out.answers[0].response if out.answers else None

    def hb(self, member: str, epoch: int, topics: tuple[str, ...] | None = None, group: str = "g",
           rack_id: str | None = None) -> ShareGroupHeartbeatResponse:
        r = self.send(ShareGroupHeartbeat(group, member, epoch, rack_id=rack_id,
                                          subscribed_topic_names=topics))
        assert isinstance(r, ShareGroupHeartbeatResponse)
        return r

    def answer_all(self, error: Errors = Errors.NONE) -> None:
        for request in self.full_view().pending_initialize:
            self.send(PersisterAnswer(request, error))

    def wrote(self) -> list[str]:
        """The last event's records as short names (a tombstone is prefixed with -)."""
        return [("-" if r.value is None else "") + type(r.key).__name__.removesuffix("Key")
                for r in self.outputs[-1].records]

    def full_view(self) -> ShareCoordinatorView:
        return spec.view(self._state) if self.layer == "spec" else self._impl.view()

    def view(self, group: str = "g") -> GroupView:
        return next(g for g in self.full_view().groups if g.group_id == group)

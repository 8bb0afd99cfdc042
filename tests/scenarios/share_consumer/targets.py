"""One driver for both layers of the share consumer's membership, for scenario tests."""

from __future__ import annotations

from groupspec.impl.share_consumer import ShareConsumerMembership
from groupspec.spec import share_consumer as spec
from groupspec.types.errors import Errors
from groupspec.types.share_consumer import (
    ClientOutput,
    ClientView,
    HeartbeatAnswered,
    ShareConsumerConfig,
    ShareConsumerEvent,
)
from groupspec.types.share_group import ShareGroupHeartbeatResponse, TopicPartitions

LAYERS = ("spec", "impl")
T1 = "00000000-0000-4000-8000-000000000001"


class Client:
    def __init__(self, layer: str, config: ShareConsumerConfig = ShareConsumerConfig(rack_id="r1")) -> None:  # noqa: B008
        self.layer = layer
        self.outputs: list[ClientOutput] = []
        if layer == "spec":
            self._state = spec.initial_state(config)
        else:
            self._impl = ShareConsumerMembership(config)

    def send(self, event: ShareConsumerEvent) -> ClientOutput:
        if self.layer == "spec":
            self._state, out = spec.step(self._state, event)
        else:
            out = self._impl.handle(event)
        self.outputs.append(out)
        return out

    def answer(
        self,
        error: Errors = Errors.NONE,
        epoch: int = 1,
        interval: int = 5_000,
        assignment: tuple[TopicPartitions, ...] | None = None,
    ) -> ClientOutput:
        return self.send(
            HeartbeatAnswered(ShareGroupHeartbeatResponse(error, "member", epoch, interval, assignment))
        )

    def view(self) -> ClientView:
        return spec.view(self._state) if self.layer == "spec" else self._impl.view()

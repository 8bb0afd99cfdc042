"""One driver for both layers of the classic consumer's client side."""

from __future__ import annotations

from groupspec.impl.classic_consumer import ClassicConsumer
from groupspec.spec import classic_consumer as spec
from groupspec.types.classic_consumer import Config, Event, Output, View

LAYERS = ("spec", "impl")


class Client:
    def __init__(self, layer: str, config: Config) -> None:
        self.layer = layer
        if layer == "spec":
            self._state = spec.initial(config)
        else:
            self._impl = ClassicConsumer(config)

    def send(self, event: Event) -> tuple[Output, ...]:
        if self.layer == "spec":
            self._state, out = spec.step(self._state, event)
            return out
        return self._impl.handle(event)

    def view(self) -> View:
        return self._state.view() if self.layer == "spec" else self._impl.view()

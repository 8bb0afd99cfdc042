"""One driver for both layers of the share coordinator, for scenario tests."""

from __future__ import annotations

from groupspec.spec import share_state as spec
from groupspec.types.share_state import (
    Output,
    SharePartitionStateView,
    ShareStateConfig,
    ShareStateEvent,
    ShareStateView,
    StateBatch,
    TopicMetadata,
)

LAYERS = ("spec", "impl")


class Coordinator:
    def __init__(self, layer: str, topics: tuple[TopicMetadata, ...],
                 config: ShareStateConfig = ShareStateConfig(), start_ms: int = 0) -> None:  # noqa: B008
        self.layer = layer
        self.index = 0
        self.outputs: list[Output] = []
        if layer == "spec":
            self._state = spec.initial_state(config, topics, start_ms)
        else:
            from groupspec.impl.share_state import ShareCoordinator

            self._impl = ShareCoordinator(config, topics, start_ms=start_ms)

    def send(self, event: ShareStateEvent) -> object | None:
        if self.layer == "spec":
            self._state, out = spec.step(self._state, event, self.index)
        else:
            out = self._impl.handle(event, self.index)
        self.index += 1
        self.outputs.append(out)
        return out.answers[0].response if out.answers else None

    def kinds(self, k: int) -> tuple[str, ...]:
        """Event ``k``'s records as short names (a tombstone is prefixed with -)."""
        return tuple(("-" if r.value is None else "") + type(r.key).__name__.removesuffix("Key")
                     for r in self.outputs[k].records)

    def view(self) -> ShareStateView:
        return spec.view(self._state) if self.layer == "spec" else self._impl.view()

    def key(self, group: str, topic: str, partition: int) -> SharePartitionStateView | None:
        return next((v for v in self.view().share_partitions
                     if (v.group_id, v.topic_id, v.partition) == (group, topic, partition)), None)


def combine(layer: str, so_far: tuple[StateBatch, ...], new: tuple[StateBatch, ...],
            start: int) -> tuple[StateBatch, ...]:
    if layer == "spec":
        return spec.combine(so_far, new, start)
    from groupspec.impl.share_state.combiner import combine_state_batches

    return tuple(combine_state_batches(list(so_far), list(new), start))

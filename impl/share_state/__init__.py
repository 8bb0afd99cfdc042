"""The share coordinator, Kafka-shaped, on the coordinator runtime (docs/machines/share_state.md)."""

from groupspec.impl.share_state.service import ShareCoordinator

__all__ = ["ShareCoordinator"]

"""The share group coordinator, Kafka-shaped, on the coordinator runtime (docs/machines/share_group.md)."""

from groupspec.impl.share_group.service import ShareGroupCoordinator

__all__ = ["ShareGroupCoordinator"]

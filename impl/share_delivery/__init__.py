"""The share consumer's delivery path, Kafka-shaped (docs/machines/share_delivery.md)."""

from groupspec.impl.share_delivery.consumer import ShareDeliveryConsumer

__all__ = ["ShareDeliveryConsumer"]

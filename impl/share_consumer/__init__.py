"""The share consumer's group membership, Kafka-shaped (docs/machines/share_group.md, "The client")."""

from groupspec.impl.share_consumer.consumer import ShareConsumerMembership

__all__ = ["ShareConsumerMembership"]

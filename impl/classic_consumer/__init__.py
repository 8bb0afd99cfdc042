"""The classic consumer's client side, shaped like Kafka's AbstractCoordinator / ConsumerCoordinator."""

from groupspec.impl.classic_consumer.consumer import ClassicConsumer

__all__ = ["ClassicConsumer"]

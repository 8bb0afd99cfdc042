"""Checks against a real Kafka 4.2.1 node (groupspec.broker, the ``kafka_broker`` fixture):
real clients drive it, and groupspec reads the coordinator logs it writes."""

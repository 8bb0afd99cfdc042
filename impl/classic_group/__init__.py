"""The classic group coordinator, structured as Kafka's: service, shards, group and offset managers.

``ClassicCoordinator`` is the entry point; it runs on the shared coordinator runtime
(:mod:`groupspec.impl.runtime`), so every state change is a real ``__consumer_offsets`` record and
a shard loads by replaying its log. docs/machines/classic_group.md describes the machine.
"""

from groupspec.impl.classic_group.coordinator import ClassicCoordinator

__all__ = ["ClassicCoordinator"]

"""The coordinator runtime: injected time, keyed timers, shards that write and replay records.

Shared by the classic group coordinator, the share group coordinator and the share coordinator,
as Kafka's coordinator-common runtime is.
"""

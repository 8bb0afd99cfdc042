"""Coordinator records: the keys and values of ``__consumer_offsets`` and ``__share_group_state``.

Typed, immutable classes with Kafka's field names; each class carries its own wire schema
(:mod:`groupspec.types.records.schema`), which ``groupspec.impl.codec`` turns into bytes.
"""

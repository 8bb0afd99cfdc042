"""Bytes of the coordinator topics: record keys and values, record batches, log segments.

The public surface is re-exported here once its modules land; see docs/machines/records.md.
"""

"""KIP-932 share partitions, structured as Kafka's: in-flight batches, a persister, lock timers.

``SharePartition`` is the state machine; ``SharePartitionMachine`` runs one with its persister
(the share coordinator, impl/share_partition/store.py) and clock from events (the
spec's vocabulary). docs/reference/share-partition-kafka.md is the
fact sheet both follow.
"""

from groupspec.impl.share_partition.machine import SharePartitionMachine
from groupspec.impl.share_partition.partition import SharePartition
from groupspec.impl.share_partition.persister import FaultInjectingPersister, Persister

__all__ = [
    "FaultInjectingPersister",
    "Persister",
    "SharePartition",
    "SharePartitionMachine",
]

"""One ``__consumer_offsets`` partition's share groups: the share part of Kafka's
``GroupCoordinatorShard``. It replays share-group records into its manager and runs the
manager's session timers; records of other group types on the same partition are left to the
classic coordinator (groupspec runs the two on separate runtimes)."""

from __future__ import annotations

from collections.abc import Callable

from groupspec.impl.runtime.runtime import ShardContext
from groupspec.impl.share_group.manager import MetadataImage, ShareGroupManager
from groupspec.types.classic_group import Answer, LogEntry
from groupspec.types.records import CoordinatorRecord
from groupspec.types.records.offsets_topic import (
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupMemberMetadataKey,
    ShareGroupMetadataKey,
    ShareGroupStatePartitionMetadataKey,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupTargetAssignmentMetadataKey,
)
from groupspec.types.share_group import ShareGroupConfig

SHARE_KEYS = (
    ShareGroupMemberMetadataKey,
    ShareGroupMetadataKey,
    ShareGroupTargetAssignmentMetadataKey,
    ShareGroupTargetAssignmentMemberKey,
    ShareGroupCurrentMemberAssignmentKey,
    ShareGroupStatePartitionMetadataKey,
)


class ShareGroupCoordinatorShard:
    def __init__(
        self,
        config: ShareGroupConfig,
        context: ShardContext,
        image: Callable[[], MetadataImage],
        group_config: Callable[[str], tuple[int | None, int | None]],
    ) -> None:
        self.context = context
        self.manager = ShareGroupManager(config, context, image, group_config)

    def replay(self, offset: int, entry: LogEntry) -> None:
        if isinstance(entry, CoordinatorRecord) and isinstance(entry.key, SHARE_KEYS):
            self.manager.replay(entry)

    def on_loaded(self) -> None:
        self.manager.on_loaded()

    def on_unloaded(self) -> list[Answer]:
        return []  # share groups park no requests

package groupspec.kafka;

import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorShard;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;

/** The two shard methods Kafka 4.3 renamed or folded, as Kafka 4.2 names them. */
final class CoordinatorShardShim {
    private CoordinatorShardShim() {
    }

    /** A new metadata image (4.2: {@code onNewMetadataImage(image, delta)}). */
    static void metadataUpdate(CoordinatorShard<CoordinatorRecord> shard, CoordinatorMetadataImage image,
                               CoordinatorMetadataDelta delta) {
        shard.onNewMetadataImage(image, delta);
    }

    /** OffsetFetch of all a group's offsets, the request naming no topics (4.2: its own method). */
    static OffsetFetchResponseData.OffsetFetchResponseGroup fetchAllOffsets(
        GroupCoordinatorShard shard, OffsetFetchRequestData.OffsetFetchRequestGroup request, long epoch) {
        return shard.fetchAllOffsets(request, epoch);
    }
}

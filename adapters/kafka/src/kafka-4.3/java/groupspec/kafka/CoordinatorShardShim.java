package groupspec.kafka;

import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorShard;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;

/** The two shard methods Kafka 4.3 renamed or folded, as Kafka 4.3 names them. */
final class CoordinatorShardShim {
    private CoordinatorShardShim() {
    }

    /** A new metadata image (4.3: {@code onMetadataUpdate(delta, image)}; 4.2: {@code onNewMetadataImage}). */
    static void metadataUpdate(CoordinatorShard<CoordinatorRecord> shard, CoordinatorMetadataImage image,
                               CoordinatorMetadataDelta delta) {
        shard.onMetadataUpdate(delta, image);
    }

    /** OffsetFetch of all a group's offsets: 4.3's {@code fetchOffsets} serves it when the request
     *  names no topics (4.2 had {@code fetchAllOffsets}). */
    static OffsetFetchResponseData.OffsetFetchResponseGroup fetchAllOffsets(
        GroupCoordinatorShard shard, OffsetFetchRequestData.OffsetFetchRequestGroup request, long epoch) {
        return shard.fetchOffsets(request, epoch);
    }
}

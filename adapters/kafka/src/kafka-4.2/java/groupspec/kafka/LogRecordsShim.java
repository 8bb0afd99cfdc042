package groupspec.kafka;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.server.storage.log.FetchPartitionData;
import org.apache.kafka.storage.internals.log.OffsetResultHolder;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What the adapter uses of Kafka's log record classes, which live in
 * {@code org.apache.kafka.common.record} in 4.2 (4.3 moved them to {@code ...record.internal}).
 */
final class LogRecordsShim {
    static final long NO_PRODUCER_ID = RecordBatch.NO_PRODUCER_ID;
    static final short NO_PRODUCER_EPOCH = RecordBatch.NO_PRODUCER_EPOCH;

    private LogRecordsShim() {
    }

    /** ListOffsets' answer for the latest offset: {@code latestOffset}, with no timestamp. */
    static OffsetResultHolder latestOffset(long latestOffset) {
        return new OffsetResultHolder(Optional.of(
            new FileRecords.TimestampAndOffset(RecordBatch.NO_TIMESTAMP, latestOffset, Optional.empty())));
    }

    /** A fetch's data: one real batch per {@code [base, last]} range, one empty record per offset. */
    static FetchPartitionData fetchData(List<long[]> batches, long highWatermark) {
        List<MemoryRecords> pieces = new ArrayList<>();
        int size = 0;
        for (long[] b : batches) {
            MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), Compression.NONE,
                TimestampType.CREATE_TIME, b[0]);
            for (long o = b[0]; o <= b[1]; o++) {
                builder.appendWithOffset(o, new SimpleRecord(0L, null, new byte[0]));
            }
            MemoryRecords records = builder.build();
            pieces.add(records);
            size += records.sizeInBytes();
        }
        ByteBuffer all = ByteBuffer.allocate(size);
        for (MemoryRecords r : pieces) {
            all.put(r.buffer().duplicate());
        }
        all.flip();
        return new FetchPartitionData(Errors.NONE, highWatermark, 0L, MemoryRecords.readableRecords(all),
            Optional.empty(), OptionalLong.empty(), Optional.empty(), OptionalInt.empty(), false);
    }
}

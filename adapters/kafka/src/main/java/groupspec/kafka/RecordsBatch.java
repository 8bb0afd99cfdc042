package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The records machine's {@code encode_batch} on Kafka's own batch writers: records through
 * {@code MemoryRecordsBuilder} (magic 2, the codec at Kafka's default level, producer fields,
 * flags, leader epoch, delete horizon, LogAppendTime, {@code overrideLastOffset} for a last offset
 * past the last record, as the cleaner keeps one); an empty batch through
 * {@code DefaultRecordBatch.writeEmptyHeader}, which is how Kafka writes one (the cleaner, for a
 * producer's state); a transaction marker through the builder's {@code appendEndTxnMarker}, as
 * {@code MemoryRecords.writeEndTransactionalMarker} builds it.
 *
 * <p>What Kafka's builder refuses (an {@code IllegalArgumentException}: offsets not growing, a
 * timestamp below -1, an offset delta past int32, a transactional batch or marker without a
 * producer, a marker outside a transactional control batch) is answered {@code invalid_input};
 * so is a number outside the Java type Kafka's builder takes for the field (it cannot be handed
 * over at all). An input Kafka's writers cannot express, or take without refusing where
 * groupspec's writer refuses, is answered {@code unsupported} naming that rule.
 */
final class RecordsBatch {
    private static final HexFormat HEX = HexFormat.of();

    private static final Set<String> MARKER_BATCH_FIELDS = Set.of("baseOffset", "partitionLeaderEpoch", "producerId",
        "producerEpoch", "transactional", "control");

    private RecordsBatch() {
    }

    /** A record of the input: absolute offset and timestamp. */
    private record In(long offset, long timestamp, byte[] key, byte[] value, Header[] headers) {
    }

    static JsonNode encode(JsonNode input) throws Adapter.Answer {
        JsonNode batch = input.path("batch");
        JsonNode records = input.path("records");
        if (!batch.isObject() || !records.isArray()) {
            throw Adapter.Answer.error("invalid_input", "input: expected {batch: {...}, records: [...]}");
        }
        long baseOffset = num(batch, "baseOffset", Long.MIN_VALUE, Long.MAX_VALUE, 0L);
        int leaderEpoch = (int) num(batch, "partitionLeaderEpoch", Integer.MIN_VALUE, Integer.MAX_VALUE,
            RecordBatch.NO_PARTITION_LEADER_EPOCH);
        long producerId = num(batch, "producerId", Long.MIN_VALUE, Long.MAX_VALUE, RecordBatch.NO_PRODUCER_ID);
        short producerEpoch = (short) num(batch, "producerEpoch", Short.MIN_VALUE, Short.MAX_VALUE,
            RecordBatch.NO_PRODUCER_EPOCH);
        int baseSequence = (int) num(batch, "baseSequence", Integer.MIN_VALUE, Integer.MAX_VALUE, RecordBatch.NO_SEQUENCE);
        Long lastOffset = batch.has("lastOffset") ? num(batch, "lastOffset", Long.MIN_VALUE, Long.MAX_VALUE, 0L) : null;
        Long baseTimestamp = batch.has("baseTimestamp")
            ? num(batch, "baseTimestamp", Long.MIN_VALUE, Long.MAX_VALUE, 0L) : null;
        Long maxTimestamp = batch.has("maxTimestamp")
            ? num(batch, "maxTimestamp", Long.MIN_VALUE, Long.MAX_VALUE, 0L) : null;
        Long deleteHorizon = batch.has("deleteHorizonMs")
            ? num(batch, "deleteHorizonMs", Long.MIN_VALUE, Long.MAX_VALUE, 0L) : null;
        boolean transactional = flag(batch, "transactional");
        boolean control = flag(batch, "control");
        TimestampType timestampType = switch (batch.path("timestampType").asText("CreateTime")) {
            case "CreateTime" -> TimestampType.CREATE_TIME;
            case "LogAppendTime" -> TimestampType.LOG_APPEND_TIME;
            default -> throw Adapter.Answer.error("invalid_input", "input.batch.timestampType: expected CreateTime or "
                + "LogAppendTime");
        };
        CompressionType codec;
        try {
            codec = CompressionType.forName(batch.path("compression").asText("none"));
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "input.batch.compression: " + e.getMessage());
        }

        if (records.size() == 1 && records.get(0).path("control").asBoolean(false)) {
            return marker(batch, records.get(0), baseOffset, leaderEpoch, producerId, producerEpoch, transactional,
                control);
        }
        List<In> given = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            given.add(record(records.get(i), "input.records[" + i + "]"));
        }

        if (given.isEmpty()) {
            return empty(baseOffset, lastOffset, leaderEpoch, producerId, producerEpoch, baseSequence, transactional,
                control, timestampType, codec, baseTimestamp, maxTimestamp, deleteHorizon);
        }

        // groupspec's writer refuses these; Kafka's builder writes them, so there is no refusal of
        // Kafka's to compare with.
        for (In r : given) {
            if (r.offset() < baseOffset) {
                throw Adapter.Answer.unsupported("a record offset (" + r.offset() + ") before the base offset ("
                    + baseOffset + "): Kafka's MemoryRecordsBuilder.appendWithOffset writes it with a negative offset "
                    + "delta, where groupspec's writer refuses it");
            }
        }
        In last = given.get(given.size() - 1);
        if (lastOffset != null && lastOffset < last.offset()) {
            throw Adapter.Answer.unsupported("a last offset (" + lastOffset + ") before the last record's ("
                + last.offset() + "): Kafka's MemoryRecordsBuilder.overrideLastOffset takes any, where groupspec's "
                + "writer refuses it");
        }
        long derivedBase = deleteHorizon != null && deleteHorizon >= 0 ? deleteHorizon : given.get(0).timestamp();
        if (baseTimestamp != null && baseTimestamp != derivedBase) {
            throw Adapter.Answer.unsupported("a base timestamp (" + baseTimestamp + ") other than the one Kafka's "
                + "MemoryRecordsBuilder derives (" + derivedBase + ", the delete horizon or else the first record's "
                + "timestamp): the builder has no setting for it");
        }
        long recordsMax = RecordBatch.NO_TIMESTAMP;
        for (In r : given) {
            recordsMax = Math.max(recordsMax, r.timestamp());
        }
        if (timestampType == TimestampType.CREATE_TIME && maxTimestamp != null && maxTimestamp != recordsMax) {
            throw Adapter.Answer.unsupported("a CreateTime max timestamp (" + maxTimestamp + ") other than the "
                + "largest record timestamp (" + recordsMax + ") that Kafka's MemoryRecordsBuilder derives: the "
                + "builder has no setting for it");
        }
        long logAppendTime = maxTimestamp != null ? maxTimestamp : recordsMax;

        ByteBufferOutputStream out = new ByteBufferOutputStream(ByteBuffer.allocate(1024));
        MemoryRecords built;
        try {
            MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, RecordBatch.MAGIC_VALUE_V2,
                Compression.of(codec).build(), timestampType, baseOffset, logAppendTime, producerId, producerEpoch,
                baseSequence, transactional, control, leaderEpoch, Integer.MAX_VALUE,
                deleteHorizon == null ? RecordBatch.NO_TIMESTAMP : deleteHorizon);
            for (In r : given) {
                builder.appendWithOffset(r.offset(), r.timestamp(), r.key(), r.value(), r.headers());
            }
            if (lastOffset != null && lastOffset > last.offset()) {
                builder.overrideLastOffset(lastOffset);
            }
            built = builder.build();
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "Kafka's MemoryRecordsBuilder refuses it: " + e.getMessage());
        }
        return answer(built.buffer());
    }

    /** No records: Kafka's builder writes no batch for none; its empty batch is writeEmptyHeader's. */
    private static JsonNode empty(long baseOffset, Long lastOffset, int leaderEpoch, long producerId,
                                  short producerEpoch, int baseSequence, boolean transactional, boolean control,
                                  TimestampType timestampType, CompressionType codec, Long baseTimestamp,
                                  Long maxTimestamp, Long deleteHorizon) throws Adapter.Answer {
        String how = "an empty batch, which Kafka writes only with DefaultRecordBatch.writeEmptyHeader "
            + "(MemoryRecordsBuilder writes no batch for no records)";
        if (codec != CompressionType.NONE) {
            throw Adapter.Answer.unsupported("a " + codec.name + "-compressed batch without records: " + how + ": uncompressed, with no "
                + "records section to compress");
        }
        if (deleteHorizon != null) {
            throw Adapter.Answer.unsupported("a delete horizon on " + how + ": it has no delete-horizon flag");
        }
        if (baseTimestamp != null && baseTimestamp != RecordBatch.NO_TIMESTAMP) {
            throw Adapter.Answer.unsupported("a base timestamp (" + baseTimestamp + ") on " + how + ": it writes "
                + "the base timestamp -1 (as the cleaner keeps an emptied batch, MemoryRecords.filterTo)");
        }
        if (baseOffset < 0) {
            throw Adapter.Answer.unsupported("a negative base offset (" + baseOffset + ") on " + how + ": it writes "
                + "any, where groupspec's writer refuses it");
        }
        long last = lastOffset == null ? baseOffset : lastOffset;
        if (last - baseOffset > Integer.MAX_VALUE || last < baseOffset) {
            throw Adapter.Answer.unsupported("a last offset (" + last + ") that is not 0 to 2^31 - 1 past the base "
                + "offset (" + baseOffset + ") on " + how + ": it casts the delta to an int unchecked, where "
                + "groupspec's writer refuses it");
        }
        ByteBuffer buffer = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        try {
            DefaultRecordBatch.writeEmptyHeader(buffer, RecordBatch.MAGIC_VALUE_V2, producerId, producerEpoch,
                baseSequence, baseOffset, last, leaderEpoch, timestampType,
                maxTimestamp == null ? RecordBatch.NO_TIMESTAMP : maxTimestamp, transactional, control);
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "Kafka's DefaultRecordBatch.writeEmptyHeader refuses it: "
                + e.getMessage());
        }
        buffer.flip();
        return answer(buffer);
    }

    /** A transaction marker batch, built as MemoryRecords.writeEndTransactionalMarker builds it, but
     *  with the input's flags, so that Kafka's builder judges a marker outside a transactional
     *  control batch. */
    private static JsonNode marker(JsonNode batch, JsonNode marker, long baseOffset, int leaderEpoch, long producerId,
                                   short producerEpoch, boolean transactional, boolean control) throws Adapter.Answer {
        for (Iterator<String> names = batch.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!MARKER_BATCH_FIELDS.contains(name)) {
                throw Adapter.Answer.unsupported("a marker batch with " + name + ": Kafka's marker writer "
                    + "(MemoryRecords.writeEndTransactionalMarker) has no setting for it");
            }
        }
        long offset = num(marker, "offset", Long.MIN_VALUE, Long.MAX_VALUE, 0L);
        long timestamp = num(marker, "timestamp", Long.MIN_VALUE, Long.MAX_VALUE, 0L);
        int coordinatorEpoch = (int) num(marker, "coordinatorEpoch", Integer.MIN_VALUE, Integer.MAX_VALUE, 0L);
        if (offset != baseOffset) {
            throw Adapter.Answer.unsupported("a marker at offset " + offset + ", not its batch's base offset "
                + baseOffset + ": Kafka's marker writer appends it at the base offset");
        }
        ControlRecordType type;
        try {
            type = ControlRecordType.valueOf(marker.path("marker").asText(""));
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "input.records[0].marker: no control record type "
                + marker.path("marker"));
        }
        ByteBufferOutputStream out = new ByteBufferOutputStream(ByteBuffer.allocate(128));
        MemoryRecords built;
        try {
            EndTransactionMarker end = new EndTransactionMarker(type, coordinatorEpoch);
            MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE, TimestampType.CREATE_TIME, baseOffset, timestamp, producerId, producerEpoch,
                RecordBatch.NO_SEQUENCE, transactional, control, leaderEpoch, Integer.MAX_VALUE,
                RecordBatch.NO_TIMESTAMP);
            builder.appendEndTxnMarker(timestamp, end);
            built = builder.build();
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "Kafka's marker writer refuses it: " + e.getMessage());
        }
        return answer(built.buffer());
    }

    private static In record(JsonNode r, String where) throws Adapter.Answer {
        if (!r.isObject()) {
            throw Adapter.Answer.error("invalid_input", where + ": expected an object");
        }
        if (r.path("control").asBoolean(false)) {
            throw Adapter.Answer.unsupported(where + ": a transaction marker among other records; Kafka's marker "
                + "writer writes it as the one record of its batch");
        }
        long offset = num(r, "offset", Long.MIN_VALUE, Long.MAX_VALUE, 0L);
        long timestamp = num(r, "timestamp", Long.MIN_VALUE, Long.MAX_VALUE, 0L);
        List<Header> headers = new ArrayList<>();
        for (JsonNode h : r.path("headers")) {
            headers.add(new RecordHeader(h.path("key").asText(), bytes(h.path("value"), where + ".headers")));
        }
        return new In(offset, timestamp, bytes(r.path("key"), where + ".key"), bytes(r.path("value"), where + ".value"),
            headers.toArray(new Header[0]));
    }

    private static byte[] bytes(JsonNode node, String where) throws Adapter.Answer {
        if (node.isNull() || node.isMissingNode()) {
            return null;
        }
        try {
            return HEX.parseHex(node.asText());
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", where + ": not hex");
        }
    }

    /** A number of the input, refused when it does not fit the Java type Kafka takes it as. */
    static long num(JsonNode body, String name, long min, long max, long absent) throws Adapter.Answer {
        JsonNode node = body.path(name);
        if (node.isMissingNode()) {
            return absent;
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < min || node.asLong() > max) {
            throw Adapter.Answer.error("invalid_input", name + ": " + node + " is not an integer from " + min + " to "
                + max + " (the type Kafka takes it as)");
        }
        return node.asLong();
    }

    private static boolean flag(JsonNode body, String name) throws Adapter.Answer {
        JsonNode node = body.path(name);
        if (node.isMissingNode()) {
            return false;
        }
        if (!node.isBoolean()) {
            throw Adapter.Answer.error("invalid_input", name + ": expected true or false");
        }
        return node.asBoolean();
    }

    private static JsonNode answer(ByteBuffer buffer) {
        byte[] data = new byte[buffer.remaining()];
        buffer.duplicate().get(data);
        ObjectNode out = Adapter.JSON.createObjectNode();
        out.put("batch", HEX.formatHex(data));
        return out;
    }
}

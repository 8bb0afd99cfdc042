package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LocalLog;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogFileUtils;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogOffsetMetadata;
import org.apache.kafka.storage.internals.log.LogSegmentOffsetOverflowException;
import org.apache.kafka.storage.internals.log.LogSegments;
import org.apache.kafka.storage.internals.log.RollParams;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The records machine's partition-directory handlers on Kafka's log classes.
 *
 * <p>{@code read_log}: the segments are the files {@code LogFileUtils.isLogFile} takes, by the base
 * offset {@code LogFileUtils.offsetFromFileName} reads from the name, in that order, each opened as
 * a {@code LogSegment}; its batches are what {@code FileRecords.batches()} frames (a length below
 * the smallest batch is FileLogInputStream's CorruptRecordException: the rest of the file is
 * unframed; bytes that cannot hold the batch their header announces end the file: a torn tail);
 * a batch is refused as {@code LogSegment.recover} refuses one: {@code ensureValid} (size and CRC)
 * and a last offset below the segment's base ({@code canAppendOffset}, the
 * LogSegmentOffsetOverflowException recover throws, which LogLoader cannot mend by splitting the
 * segment); its records are read by iterating it. A last offset past the segment's range is
 * unsupported: LogLoader splits the segment and keeps the batch.
 *
 * <p>{@code write_log}: each batch goes through what a broker does with a produce request's
 * records ({@code ProduceRequest.validateRecords}: one batch of magic 2; {@code ensureValid}; the
 * size check of {@code UnifiedLog.append} against the segment size), gets its offsets and leader
 * epoch with Kafka's own mutators ({@code setLastOffset}, {@code setPartitionLeaderEpoch}), and is
 * appended to a {@code LocalLog}, rolled at the batch's base offset when the active segment's
 * {@code shouldRoll} says so, as {@code UnifiedLog.maybeRoll} does ({@code LocalLog.roll} reuses an
 * empty active segment at that offset and refuses one below the active segment's base). No time
 * rolls: segment.ms is set as far off as it goes. The segment size is
 * {@code internal.segment.bytes}, Kafka's testing knob below segment.bytes's 1 MiB floor.
 */
final class RecordsLog {
    private static final HexFormat HEX = HexFormat.of();
    /** The 17 bytes (offset, length, leader epoch, magic) FileLogInputStream reads to frame a batch;
     *  it reads on only while more are left. */
    private static final int HEADER = org.apache.kafka.common.record.Records.HEADER_SIZE_UP_TO_MAGIC;
    private static final int LOG_OVERHEAD = org.apache.kafka.common.record.Records.LOG_OVERHEAD;
    /** groupspec's writer's default segment size: the coordinator topics' 100 MiB. */
    private static final int DEFAULT_SEGMENT_BYTES = 100 * 1024 * 1024;
    /** The partition a written log is named as (LocalLog only names it in messages). */
    private static final TopicPartition PARTITION = new TopicPartition("groupspec", 0);

    private RecordsLog() {
    }

    // --- read_log ---------------------------------------------------------------------------

    static JsonNode read(JsonNode input) throws Adapter.Answer {
        boolean lenient = input.path("lenient").asBoolean(false);
        Path dir = null;
        try {
            dir = Files.createTempDirectory("groupspec-read-log");
            TreeMap<Long, String> segments = new TreeMap<>();
            Map<Long, Path> folders = new TreeMap<>();
            for (Map.Entry<String, byte[]> f : files(input.path("files"), "input.files").entrySet()) {
                File file = dir.resolve(f.getKey()).toFile();
                if (!LogFileUtils.isLogFile(file)) {
                    continue;
                }
                long base;
                try {
                    base = LogFileUtils.offsetFromFileName(f.getKey());
                } catch (NumberFormatException e) {
                    throw Adapter.Answer.unsupported("a file " + f.getKey() + " named like a segment but not by an "
                        + "offset: Kafka's LogLoader fails on it (LogFileUtils.offsetFromFileName)");
                }
                if (segments.put(base, f.getKey()) != null) {
                    throw Adapter.Answer.unsupported("two segment files of base offset " + base + ": Kafka's log "
                        + "keeps one segment per base offset");
                }
                // LogSegment.open names its file by the offset in 20 digits: each segment gets a
                // folder of its own holding it under that name.
                Path own = Files.createDirectory(dir.resolve("segment-" + segments.size()));
                Files.write(LogFileUtils.logFile(own.toFile(), base).toPath(), f.getValue());
                folders.put(base, own);
            }
            ArrayNode items = Adapter.JSON.createArrayNode();
            Long last = null;
            for (Map.Entry<Long, String> s : segments.entrySet()) {
                last = readSegment(folders.get(s.getKey()).toFile(), s.getKey(), s.getValue(), lenient, last, items);
            }
            ObjectNode out = Adapter.JSON.createObjectNode();
            out.set("items", items);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            delete(dir);
        }
    }

    /** One segment's entries into {@code items}; the last offset read so far out. */
    private static Long readSegment(File dir, long base, String name, boolean lenient, Long last, ArrayNode items)
            throws IOException, Adapter.Answer {
        LogConfig config = new LogConfig(Map.of());
        LogSegment segment = LogSegment.open(dir, base, config, Time.SYSTEM, true, 0, false, "");
        try {
            FileRecords log = segment.log();
            int size = log.sizeInBytes();
            int position = 0;
            Iterator<FileChannelRecordBatch> batches = log.batchIterator();
            while (true) {
                FileChannelRecordBatch batch;
                try {
                    if (!batches.hasNext()) {
                        break;
                    }
                    batch = batches.next();
                } catch (CorruptRecordException e) {
                    // FileLogInputStream.nextBatch: a length below the smallest message. The rest of
                    // the file cannot be framed.
                    if (!lenient) {
                        throw Adapter.Answer.error("Framing", name + "@" + position + ": " + e.getMessage());
                    }
                    ObjectNode item = item(items, name, position, "unframed", longAt(log, position));
                    item.put("size", size - position);
                    item.put("error", "Framing");
                    return last;
                }
                position = batch.position();
                String error = null;
                String why = null;
                List<Long> offsets = new ArrayList<>();
                try {
                    batch.ensureValid();
                } catch (CorruptRecordException e) {
                    error = batch.sizeInBytes() < org.apache.kafka.common.record.DefaultRecordBatch.RECORD_BATCH_OVERHEAD
                        ? "Malformed" : "CorruptBatch";
                    why = e.getMessage();
                }
                if (error == null && !segment.offsetIndex().canAppendOffset(batch.lastOffset())) {
                    if (batch.lastOffset() >= base) {
                        throw Adapter.Answer.unsupported("a batch at " + name + "@" + position + " ending at offset "
                            + batch.lastOffset() + ", past the last its segment can address (base + 2^31 - 1): "
                            + "LogSegment.recover throws LogSegmentOffsetOverflowException and Kafka's LogLoader "
                            + "then splits the segment (LocalLog.splitOverflowedSegment), keeping the batch in a "
                            + "segment of its own");
                    }
                    // Below the segment's base: recover throws, and the split LogLoader then tries is
                    // refused (the segment has no overflow, LocalLog.splitOverflowedSegment), so the
                    // log does not load.
                    error = "Malformed";
                    why = new LogSegmentOffsetOverflowException(segment, batch.lastOffset()).getMessage();
                }
                if (error == null) {
                    try {
                        for (Record r : batch) {
                            offsets.add(r.offset());
                        }
                    } catch (RuntimeException e) {
                        error = "Malformed";
                        why = e.toString();
                    }
                }
                if (error == null && last != null && batch.baseOffset() <= last) {
                    throw Adapter.Answer.unsupported("a batch at offset " + batch.baseOffset() + " in " + name
                        + " after offset " + last + " was read: Kafka's readers do not check that offsets grow "
                        + "(LogSegment.recover holds a batch to its own segment's offset range only; UnifiedLog "
                        + "refuses such an append, no reader refuses it)");
                }
                if (error != null) {
                    if (!lenient) {
                        throw Adapter.Answer.error(error, name + "@" + position + ": " + why);
                    }
                    ObjectNode item = item(items, name, position, "bad", batch.baseOffset());
                    item.put("size", batch.sizeInBytes());
                    item.put("error", error);
                } else {
                    ObjectNode item = item(items, name, position, "batch", batch.baseOffset());
                    item.put("lastOffset", batch.lastOffset());
                    ArrayNode records = item.putArray("records");
                    offsets.forEach(records::add);
                    last = batch.lastOffset();
                }
                position += batch.sizeInBytes();
            }
            int rest = size - position;
            if (rest > 0) {
                if (rest <= HEADER) {
                    // FileLogInputStream.nextBatch reads on only while more than these 17 bytes are left.
                    throw Adapter.Answer.unsupported("a tail of " + rest + " byte(s) at " + name + "@" + position
                        + ", no more than the " + HEADER + " Kafka's FileLogInputStream needs to go on framing: it "
                        + "stops there without reading the tail's offset or length");
                }
                ObjectNode item = item(items, name, position, "torn", longAt(log, position));
                item.put("present", rest);
                item.put("needed", LOG_OVERHEAD + intAt(log, position + 8));
            }
            return last;
        } finally {
            segment.close();
        }
    }

    private static ObjectNode item(ArrayNode items, String file, int position, String kind, long baseOffset) {
        ObjectNode item = items.addObject();
        item.put("file", file);
        item.put("position", position);
        item.put("kind", kind);
        item.put("baseOffset", baseOffset);
        return item;
    }

    private static long longAt(FileRecords log, int position) throws IOException {
        if (log.sizeInBytes() - position < 8) {
            return -1L;
        }
        ByteBuffer b = ByteBuffer.allocate(8);
        log.readInto(b, position);
        return b.getLong(0);
    }

    private static int intAt(FileRecords log, int position) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4);
        log.readInto(b, position);
        return b.getInt(0);
    }

    // --- write_log --------------------------------------------------------------------------

    static JsonNode write(JsonNode input) throws Adapter.Answer {
        Map<String, byte[]> existing = input.has("existing") ? files(input.path("existing"), "input.existing") : Map.of();
        JsonNode resumeNode = input.path("resume");
        if (!resumeNode.isMissingNode() && !resumeNode.isBoolean()) {
            throw Adapter.Answer.error("invalid_input", "input.resume: expected true or false");
        }
        boolean resume = resumeNode.isMissingNode() ? !existing.isEmpty() : resumeNode.asBoolean();
        long next = RecordsBatch.num(input, "baseOffset", Long.MIN_VALUE, Long.MAX_VALUE, 0L);
        int segmentBytes = (int) RecordsBatch.num(input, "segmentBytes", Integer.MIN_VALUE, Integer.MAX_VALUE,
            DEFAULT_SEGMENT_BYTES);
        Integer epoch = input.has("partitionLeaderEpoch")
            ? (int) RecordsBatch.num(input, "partitionLeaderEpoch", Integer.MIN_VALUE, Integer.MAX_VALUE, 0L) : null;
        if (next < 0) {
            throw Adapter.Answer.unsupported("a negative base offset (" + next + "): Kafka's LogSegment.open takes "
                + "it (and names the file by it), where groupspec's writer refuses it");
        }
        if (segmentBytes <= 0) {
            throw Adapter.Answer.unsupported("segment bytes " + segmentBytes + ": Kafka's internal.segment.bytes "
                + "has no validator and takes it (segment.bytes itself is at least 1 MiB), where groupspec's writer "
                + "refuses it");
        }
        List<MemoryRecords> batches = new ArrayList<>();
        JsonNode given = input.path("batches");
        for (int i = 0; i < given.size(); i++) {
            batches.add(batch(given.get(i), "input.batches[" + i + "]", segmentBytes));
        }
        Path dir = null;
        try {
            dir = Files.createTempDirectory("groupspec-write-log");
            for (Map.Entry<String, byte[]> f : existing.entrySet()) {
                Files.write(dir.resolve(f.getKey()), f.getValue());
            }
            // No time rolls: segment.ms as far off as it goes (groupspec's writer rolls by size and
            // offsets only).
            LogConfig config = new LogConfig(Map.of(LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG, segmentBytes,
                org.apache.kafka.common.config.TopicConfig.SEGMENT_MS_CONFIG, Long.MAX_VALUE));
            LogSegments segments = new LogSegments(PARTITION);
            if (resume) {
                for (String name : existing.keySet()) {
                    File file = dir.resolve(name).toFile();
                    if (!LogFileUtils.isLogFile(file)) {
                        continue;
                    }
                    long base;
                    try {
                        base = LogFileUtils.offsetFromFileName(name);
                    } catch (NumberFormatException e) {
                        throw Adapter.Answer.unsupported("a file " + name + " named like a segment but not by an "
                            + "offset: Kafka's LogLoader fails on it (LogFileUtils.offsetFromFileName)");
                    }
                    if (!LogFileUtils.logFile(dir.toFile(), base).getName().equals(name)) {
                        throw Adapter.Answer.unsupported("a segment named " + name + ", not by its offset in 20 digits: "
                            + "Kafka's LogSegment.open opens the file of that name only");
                    }
                    segments.add(LogSegment.open(dir.toFile(), base, config, Time.SYSTEM, true, 0, false, ""));
                }
                if (!segments.isEmpty()) {
                    // LogLoader.load gives the reopened active segment's indexes their full size again.
                    segments.activeSegment().resizeIndexes(config.maxIndexSize);
                }
            } else if (Files.exists(LogFileUtils.logFile(dir.toFile(), next).toPath())) {
                throw Adapter.Answer.unsupported("a new log over an existing segment file: Kafka has no such mode (a "
                    + "log opened over a directory loads the segments there, LogLoader)");
            }
            if (segments.isEmpty()) {
                segments.add(LogSegment.open(dir.toFile(), next, config, Time.SYSTEM, false, 0, false, ""));
            }
            ArrayNode appends = Adapter.JSON.createArrayNode();
            KafkaScheduler scheduler = new KafkaScheduler(1, true, "groupspec-write-log-");
            scheduler.startup();
            LocalLog log = new LocalLog(dir.toFile(), config, segments, next, new LogOffsetMetadata(next), scheduler,
                Time.SYSTEM, PARTITION, new LogDirFailureChannel(1));
            try {
                for (MemoryRecords records : batches) {
                    MutableRecordBatch batch = records.batches().iterator().next();
                    // the batch's own last offset delta (an int, whatever its base offset was)
                    batch.setLastOffset(log.logEndOffset() + (int) (batch.lastOffset() - batch.baseOffset()));
                    if (epoch != null) {
                        batch.setPartitionLeaderEpoch(epoch);
                    }
                    // UnifiedLog.maybeRoll: the active segment's shouldRoll, then a roll at the batch's base offset.
                    RollParams roll = new RollParams(config.maxSegmentMs(), config.segmentSize(), batch.maxTimestamp(),
                        batch.lastOffset(), records.sizeInBytes(), Time.SYSTEM.milliseconds());
                    if (segments.activeSegment().shouldRoll(roll)) {
                        try {
                            log.roll(batch.baseOffset());
                        } catch (KafkaException e) {
                            throw Adapter.Answer.error("invalid_input", "Kafka's LocalLog.roll refuses it: " + e.getMessage());
                        }
                    }
                    LogSegment active = segments.activeSegment();
                    int position = active.size();
                    try {
                        log.append(batch.lastOffset(), records);
                    } catch (LogSegmentOffsetOverflowException e) {
                        throw Adapter.Answer.error("invalid_input", "Kafka's LogSegment.append refuses it: "
                            + e.getMessage());
                    }
                    if (resume) {
                        ObjectNode a = appends.addObject();
                        a.put("file", LogFileUtils.logFile(dir.toFile(), active.baseOffset()).getName());
                        a.put("position", position);
                        a.put("baseOffset", batch.baseOffset());
                        a.put("lastOffset", batch.lastOffset());
                    }
                }
            } finally {
                log.close();
                try {
                    scheduler.shutdown();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            // The files groupspec writes: every segment file, and what was there before. The
            // index files LogSegment keeps beside its segments are Kafka's own and left out.
            ObjectNode files = Adapter.JSON.createObjectNode();
            List<Path> all;
            try (Stream<Path> list = Files.list(dir)) {
                all = list.sorted(Comparator.comparing(p -> p.getFileName().toString())).toList();
            }
            for (Path p : all) {
                String name = p.getFileName().toString();
                if (existing.containsKey(name) || LogFileUtils.isLogFile(p.toFile())) {
                    files.put(name, HEX.formatHex(Files.readAllBytes(p)));
                }
            }
            ObjectNode out = Adapter.JSON.createObjectNode();
            out.set("files", files);
            out.set("appends", appends);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            delete(dir);
        }
    }

    /** One batch of the input as a produce request's records, checked as a broker checks them. */
    private static MemoryRecords batch(JsonNode node, String where, int segmentBytes) throws Adapter.Answer {
        byte[] data;
        try {
            data = HEX.parseHex(node.asText());
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", where + ": not hex");
        }
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(data));
        try {
            ProduceRequest.validateRecords(ApiKeys.PRODUCE.latestVersion(), records);
            Iterator<MutableRecordBatch> batches = records.batches().iterator();
            MutableRecordBatch batch = batches.next();
            batch.ensureValid();
            if (batch.sizeInBytes() != data.length) {
                throw Adapter.Answer.unsupported(where + ": " + (data.length - batch.sizeInBytes()) + " byte(s) after "
                    + "the batch: Kafka's UnifiedLog.append trims them (trimInvalidBytes) where groupspec's writer "
                    + "refuses them");
            }
        } catch (RuntimeException e) {
            // InvalidRecordException (ProduceRequest.validateRecords), CorruptRecordException
            // (ensureValid), as UnifiedLog.analyzeAndValidateRecords and the request parsing refuse.
            throw Adapter.Answer.error("invalid_input", where + ": Kafka refuses it: " + e);
        }
        if (records.sizeInBytes() > segmentBytes) {
            // UnifiedLog.append: RecordBatchTooLargeException for records larger than the segment size.
            throw Adapter.Answer.error("invalid_input", where + ": " + records.sizeInBytes() + " bytes, more than "
                + "the segment size " + segmentBytes + " (UnifiedLog.append's RecordBatchTooLargeException)");
        }
        return records;
    }

    // --- shared -----------------------------------------------------------------------------

    private static Map<String, byte[]> files(JsonNode node, String where) throws Adapter.Answer {
        if (!node.isObject()) {
            throw Adapter.Answer.error("invalid_input", where + ": expected {file name: hex}");
        }
        Map<String, byte[]> out = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            String name = f.getKey();
            if (name.contains("/") || name.isEmpty() || name.equals(".") || name.equals("..")) {
                throw Adapter.Answer.error("invalid_input", where + "." + name + ": not a file name");
            }
            try {
                out.put(name, HEX.parseHex(f.getValue().asText()));
            } catch (IllegalArgumentException e) {
                throw Adapter.Answer.error("invalid_input", where + "." + name + ": not hex");
            }
        }
        return out;
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is no answer's concern
        }
    }
}

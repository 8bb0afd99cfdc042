package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.message.DeleteShareGroupStateRequestData;
import org.apache.kafka.common.message.DeleteShareGroupStateResponseData;
import org.apache.kafka.common.message.InitializeShareGroupStateRequestData;
import org.apache.kafka.common.message.InitializeShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateResponseData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryRequestData;
import org.apache.kafka.common.message.ReadShareGroupStateSummaryResponseData;
import org.apache.kafka.common.message.WriteShareGroupStateRequestData;
import org.apache.kafka.common.message.WriteShareGroupStateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.share.ShareCoordinatorConfig;
import org.apache.kafka.coordinator.share.ShareCoordinatorShard;
import org.apache.kafka.coordinator.share.ShareGroupOffset;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotKey;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotValue;
import org.apache.kafka.coordinator.share.generated.ShareUpdateKey;
import org.apache.kafka.coordinator.share.generated.ShareUpdateValue;
import org.apache.kafka.coordinator.share.metrics.ShareCoordinatorMetrics;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.share.SharePartitionKey;
import org.apache.kafka.server.share.persister.PersisterStateBatch;
import org.apache.kafka.timeline.SnapshotRegistry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static groupspec.kafka.ShareGroupRun.field;
import static groupspec.kafka.ShareGroupRun.uuidOf;
import static groupspec.kafka.ShareGroupRun.uuidText;

/**
 * One share_state run on Kafka's {@link ShareCoordinatorShard}s, one per {@code __share_group_state}
 * partition a key of the run maps to ({@code Utils.abs(key.asCoordinatorKey().hashCode()) % n}, as
 * ShareCoordinatorService#partitionFor), with this class playing CoordinatorRuntime and the parts of
 * ShareCoordinatorService the vectors reach:
 *
 * <ul>
 * <li>a clock moved only by AdvanceClock; each request is cut to one key, as the service cuts it,
 *     and runs as a write operation on its shard: the records returned are replayed into the shard
 *     at the next offset of that partition's in-memory log and appended to it, with the snapshot
 *     registry advanced to the last written offset (a thrown operation reverts to it);</li>
 * <li>the service's cold-partition timer (setupSnapshotColdPartitions): due one interval after the
 *     start, it runs {@code snapshotColdPartitions} on every shard (partition order) when the clock
 *     reaches it, and is armed again one interval after the time it ran; shards reloading keep it;</li>
 * <li>DeleteTopics: the topics leave the metadata image ({@code onNewMetadataImage} with a delta of
 *     deleted ids) and every shard runs {@code maybeCleanupShareState} with them, as
 *     ShareCoordinatorService#onTopicsDeleted does;</li>
 * <li>Restart unloads every shard and builds a new one from its partition's log, then
 *     {@code onLoaded}.</li>
 * </ul>
 *
 * The view reads the shard's own maps (shareStateMap, leaderEpochMap, stateEpochMap,
 * snapshotUpdateCount) and its {@code lastRedundantOffset}.
 */
final class ShareStateRun {
    private static final ShareCoordinatorMetrics METRICS = new ShareCoordinatorMetrics();

    // ---------------------------------------------------------------------------------------
    // The metadata image
    // ---------------------------------------------------------------------------------------

    /** One topic of the vector's image: its id also names it (share_state's topics have no names). */
    private record Topic(Uuid id, int partitionCount) implements CoordinatorMetadataImage.TopicMetadata {
        @Override
        public String name() {
            return id.toString();
        }

        @Override
        public List<String> partitionRacks(int partition) {
            return new ArrayList<>();
        }
    }

    private static final class Image implements CoordinatorMetadataImage {
        final Map<Uuid, Topic> byId = new LinkedHashMap<>();
        final long version;

        Image(Map<Uuid, Topic> topics, long version) {
            byId.putAll(topics);
            this.version = version;
        }

        @Override
        public Set<Uuid> topicIds() {
            return Set.copyOf(byId.keySet());
        }

        @Override
        public Set<String> topicNames() {
            Set<String> names = new TreeSet<>();
            byId.values().forEach(t -> names.add(t.name()));
            return names;
        }

        @Override
        public Optional<TopicMetadata> topicMetadata(String name) {
            return byId.values().stream().filter(t -> t.name().equals(name)).findFirst().map(t -> t);
        }

        @Override
        public Optional<TopicMetadata> topicMetadata(Uuid id) {
            return Optional.ofNullable(byId.get(id));
        }

        @Override
        public CoordinatorMetadataDelta emptyDelta() {
            return new Delta(this, Set.of());
        }

        @Override
        public long version() {
            return version;
        }

        @Override
        public boolean isEmpty() {
            return false;
        }
    }

    /** Topics deleted from {@code before}; {@link #image()} is the previous image, as KRaft's delta's. */
    private record Delta(Image before, Set<Uuid> deleted) implements CoordinatorMetadataDelta {
        @Override
        public Collection<Uuid> createdTopicIds() {
            return Set.of();
        }

        @Override
        public Collection<Uuid> changedTopicIds() {
            return Set.of();
        }

        @Override
        public Set<Uuid> deletedTopicIds() {
            return deleted;
        }

        @Override
        public CoordinatorMetadataImage image() {
            return before;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Shards and their logs
    // ---------------------------------------------------------------------------------------

    /** The share coordinator schedules nothing on the shard's timer; it is required by the builder. */
    private static final class NoTimer extends CoordinatorTimerShim {
        @Override
        void arm(String key, long delay, TimeUnit unit, Operation op) {
            throw new UnsupportedOperationException("the share coordinator shard arms no timer");
        }

        @Override
        public void cancel(String key) {
        }

        @Override
        public boolean isScheduled(String key) {
            return false;
        }
    }

    /** One {@code __share_group_state} partition: its log and, loaded from it, its shard. */
    private final class Shard {
        final int partition;
        final List<CoordinatorRecord> log = new ArrayList<>();
        SnapshotRegistry snapshots;
        ShareCoordinatorShard shard;
        long lastOffset;

        Shard(int partition) {
            this.partition = partition;
            load();
        }

        void load() {
            snapshots = new SnapshotRegistry(new LogContext());
            shard = new ShareCoordinatorShard.Builder(config)
                .withLogContext(new LogContext())
                .withTime(clock)
                .withTimer(new NoTimer())
                .withCoordinatorMetrics(METRICS)
                .withTopicPartition(new TopicPartition("__share_group_state", partition))
                .withSnapshotRegistry(snapshots)
                .build();
            lastOffset = 0;
            snapshots.idempotentCreateSnapshot(lastOffset);
            for (CoordinatorRecord r : log) {
                shard.replay(lastOffset, LogRecordsShim.NO_PRODUCER_ID, LogRecordsShim.NO_PRODUCER_EPOCH, r);
                lastOffset++;
            }
            snapshots.idempotentCreateSnapshot(lastOffset);
            snapshots.deleteSnapshotsUpTo(lastOffset);
            shard.onLoaded(image);
        }

        /** The runtime's write: run the operation, replay and append its records, commit. */
        <T> T write(Function<ShareCoordinatorShard, CoordinatorResult<T, CoordinatorRecord>> op) {
            CoordinatorResult<T, CoordinatorRecord> result;
            try {
                result = op.apply(shard);
            } catch (RuntimeException e) {
                snapshots.revertToSnapshot(lastOffset);
                throw e;
            }
            for (CoordinatorRecord r : result.records()) {
                if (result.replayRecords()) {
                    shard.replay(lastOffset, LogRecordsShim.NO_PRODUCER_ID, LogRecordsShim.NO_PRODUCER_EPOCH, r);
                }
                log.add(r);
                currentRecords.add(recordJson(r));
                lastOffset++;
            }
            snapshots.idempotentCreateSnapshot(lastOffset);
            snapshots.deleteSnapshotsUpTo(lastOffset);
            if (result.appendFuture() != null) {
                result.appendFuture().complete(null);
            }
            return result.response();
        }
    }

    private final ClassicRun.Clock clock;
    private final ShareCoordinatorConfig config;
    private final int partitions;
    private Image image;
    private long coldDueMs;
    private final Map<Integer, Shard> shards = new TreeMap<>();
    private final ArrayNode currentRecords = Adapter.JSON.createArrayNode();

    ShareStateRun(JsonNode cfg, JsonNode topics, long startMs) {
        clock = new ClassicRun.Clock(startMs);
        Properties props = new Properties();
        props.put(ShareCoordinatorConfig.STATE_TOPIC_NUM_PARTITIONS_CONFIG, cfg.path("state_topic_partitions").asInt(50));
        props.put(ShareCoordinatorConfig.SNAPSHOT_UPDATE_RECORDS_PER_SNAPSHOT_CONFIG, cfg.path("updates_per_snapshot").asInt(500));
        props.put(ShareCoordinatorConfig.COLD_PARTITION_SNAPSHOT_INTERVAL_MS_CONFIG,
            cfg.path("cold_snapshot_interval_ms").asInt(300_000));
        config = new ShareCoordinatorConfig(new AbstractConfig(ShareCoordinatorConfig.CONFIG_DEF, props));
        partitions = config.shareCoordinatorStateTopicNumPartitions();
        Map<Uuid, Topic> byId = new LinkedHashMap<>();
        for (JsonNode t : topics) {
            Uuid id = uuidOf(t.path("topic_id").asText());
            byId.put(id, new Topic(id, t.path("partitions").asInt()));
        }
        image = new Image(byId, 1);
        coldDueMs = startMs + config.shareCoordinatorColdPartitionSnapshotIntervalMs();
    }

    private Shard shardFor(SharePartitionKey key) {
        int partition = Utils.abs(key.asCoordinatorKey().hashCode()) % partitions;
        return shards.computeIfAbsent(partition, Shard::new);
    }

    // ---------------------------------------------------------------------------------------
    // Events
    // ---------------------------------------------------------------------------------------

    ObjectNode handle(JsonNode event, int index) {
        currentRecords.removeAll();
        ArrayNode answers = Adapter.JSON.createArrayNode();
        String type = event.path("type").asText();
        ObjectNode response = switch (type) {
            case "InitializeShareGroupState" -> initialize(event);
            case "ReadShareGroupState" -> read(event);
            case "WriteShareGroupState" -> write(event);
            case "DeleteShareGroupState" -> delete(event);
            case "ReadShareGroupStateSummary" -> summary(event);
            case "AdvanceClock" -> {
                advance(event.path("to_ms").asLong());
                yield null;
            }
            case "DeleteTopics" -> {
                deleteTopics(event.path("topic_ids"));
                yield null;
            }
            case "Restart" -> {
                restart();
                yield null;
            }
            default -> throw new IllegalArgumentException("not a share state event: " + type);
        };
        if (response != null) {
            ObjectNode a = answers.addObject();
            a.put("request", index);
            a.set("response", response);
        }
        ObjectNode out = Adapter.JSON.createObjectNode();
        out.set("answers", answers);
        out.set("records", currentRecords.deepCopy());
        return out;
    }

    private static SharePartitionKey key(JsonNode e) {
        return SharePartitionKey.getInstance(e.path("group_id").asText(), uuidOf(e.path("topic_id").asText()),
            e.path("partition").asInt());
    }

    private ObjectNode initialize(JsonNode e) {
        SharePartitionKey key = key(e);
        InitializeShareGroupStateRequestData request = new InitializeShareGroupStateRequestData()
            .setGroupId(key.groupId())
            .setTopics(List.of(new InitializeShareGroupStateRequestData.InitializeStateData()
                .setTopicId(key.topicId())
                .setPartitions(List.of(new InitializeShareGroupStateRequestData.PartitionData()
                    .setPartition(key.partition())
                    .setStateEpoch(e.path("state_epoch").asInt())
                    .setStartOffset(e.path("start_offset").asLong(-1))))));
        InitializeShareGroupStateResponseData data = shardFor(key).write(s -> s.initializeState(request));
        ObjectNode n = typed("InitializeShareGroupStateResponse");
        n.put("error", Errors.forCode(data.results().get(0).partitions().get(0).errorCode()).name());
        return n;
    }

    private ObjectNode read(JsonNode e) {
        SharePartitionKey key = key(e);
        ReadShareGroupStateRequestData request = new ReadShareGroupStateRequestData()
            .setGroupId(key.groupId())
            .setTopics(List.of(new ReadShareGroupStateRequestData.ReadStateData()
                .setTopicId(key.topicId())
                .setPartitions(List.of(new ReadShareGroupStateRequestData.PartitionData()
                    .setPartition(key.partition())
                    .setLeaderEpoch(e.path("leader_epoch").asInt(-1))))));
        ReadShareGroupStateResponseData data = shardFor(key).write(s -> s.readStateAndMaybeUpdateLeaderEpoch(request));
        ReadShareGroupStateResponseData.PartitionResult p = data.results().get(0).partitions().get(0);
        ObjectNode n = typed("ReadShareGroupStateResponse");
        n.put("error", Errors.forCode(p.errorCode()).name());
        n.put("state_epoch", p.stateEpoch());
        n.put("start_offset", p.startOffset());
        ArrayNode batches = n.putArray("state_batches");
        for (ReadShareGroupStateResponseData.StateBatch b : p.stateBatches()) {
            batchJson(batches.addObject(), b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount());
        }
        return n;
    }

    private ObjectNode write(JsonNode e) {
        SharePartitionKey key = key(e);
        List<WriteShareGroupStateRequestData.StateBatch> batches = new ArrayList<>();
        for (JsonNode b : e.path("state_batches")) {
            batches.add(new WriteShareGroupStateRequestData.StateBatch()
                .setFirstOffset(b.path("first_offset").asLong())
                .setLastOffset(b.path("last_offset").asLong())
                .setDeliveryState((byte) b.path("delivery_state").asInt())
                .setDeliveryCount((short) b.path("delivery_count").asInt()));
        }
        WriteShareGroupStateRequestData request = new WriteShareGroupStateRequestData()
            .setGroupId(key.groupId())
            .setTopics(List.of(new WriteShareGroupStateRequestData.WriteStateData()
                .setTopicId(key.topicId())
                .setPartitions(List.of(new WriteShareGroupStateRequestData.PartitionData()
                    .setPartition(key.partition())
                    .setStateEpoch(e.path("state_epoch").asInt())
                    .setLeaderEpoch(e.path("leader_epoch").asInt())
                    .setStartOffset(e.path("start_offset").asLong())
                    .setStateBatches(batches)))));
        WriteShareGroupStateResponseData data = shardFor(key).write(s -> s.writeState(request));
        ObjectNode n = typed("WriteShareGroupStateResponse");
        n.put("error", Errors.forCode(data.results().get(0).partitions().get(0).errorCode()).name());
        return n;
    }

    private ObjectNode delete(JsonNode e) {
        SharePartitionKey key = key(e);
        DeleteShareGroupStateRequestData request = new DeleteShareGroupStateRequestData()
            .setGroupId(key.groupId())
            .setTopics(List.of(new DeleteShareGroupStateRequestData.DeleteStateData()
                .setTopicId(key.topicId())
                .setPartitions(List.of(new DeleteShareGroupStateRequestData.PartitionData()
                    .setPartition(key.partition())))));
        DeleteShareGroupStateResponseData data = shardFor(key).write(s -> s.deleteState(request));
        ObjectNode n = typed("DeleteShareGroupStateResponse");
        n.put("error", Errors.forCode(data.results().get(0).partitions().get(0).errorCode()).name());
        return n;
    }

    private ObjectNode summary(JsonNode e) {
        SharePartitionKey key = key(e);
        ReadShareGroupStateSummaryRequestData request = new ReadShareGroupStateSummaryRequestData()
            .setGroupId(key.groupId())
            .setTopics(List.of(new ReadShareGroupStateSummaryRequestData.ReadStateSummaryData()
                .setTopicId(key.topicId())
                .setPartitions(List.of(new ReadShareGroupStateSummaryRequestData.PartitionData()
                    .setPartition(key.partition())
                    .setLeaderEpoch(e.path("leader_epoch").asInt(-1))))));
        ReadShareGroupStateSummaryResponseData data = shardFor(key).write(s -> s.readStateSummary(request));
        ReadShareGroupStateSummaryResponseData.PartitionResult p = data.results().get(0).partitions().get(0);
        ObjectNode n = typed("ReadShareGroupStateSummaryResponse");
        n.put("error", Errors.forCode(p.errorCode()).name());
        n.put("state_epoch", p.stateEpoch());
        n.put("leader_epoch", p.leaderEpoch());
        n.put("start_offset", p.startOffset());
        return n;
    }

    /** The clock moves (never back); the service's cold-partition timer runs once it is due. */
    private void advance(long toMs) {
        clock.nowMs = Math.max(clock.nowMs, toMs);
        if (clock.nowMs < coldDueMs) {
            return;
        }
        for (Shard shard : shards.values()) {
            shard.write(ShareCoordinatorShard::snapshotColdPartitions);
        }
        coldDueMs = clock.nowMs + config.shareCoordinatorColdPartitionSnapshotIntervalMs();
    }

    private void deleteTopics(JsonNode topicIds) {
        Set<Uuid> gone = new TreeSet<>();
        topicIds.forEach(t -> gone.add(uuidOf(t.asText())));
        Image before = image;
        Map<Uuid, Topic> left = new LinkedHashMap<>(before.byId);
        left.keySet().removeAll(gone);
        image = new Image(left, before.version + 1);
        Set<Uuid> deleted = new TreeSet<>(gone);
        deleted.retainAll(before.byId.keySet());
        for (Shard shard : shards.values()) {
            CoordinatorShardShim.metadataUpdate(shard.shard, image, new Delta(before, deleted));
        }
        for (Shard shard : shards.values()) {
            shard.write(s -> s.maybeCleanupShareState(gone));
        }
    }

    private void restart() {
        for (Shard shard : shards.values()) {
            shard.shard.onUnloaded();
            shard.load();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Output forms
    // ---------------------------------------------------------------------------------------

    private static ObjectNode typed(String type) {
        ObjectNode n = Adapter.JSON.createObjectNode();
        n.put("type", type);
        return n;
    }

    private static void batchJson(ObjectNode n, long first, long last, byte state, short count) {
        n.put("first_offset", first);
        n.put("last_offset", last);
        n.put("delivery_state", state);
        n.put("delivery_count", count);
    }

    private static void keyJson(ObjectNode n, String type, String groupId, Uuid topicId, int partition) {
        n.put("type", type);
        n.put("group_id", groupId);
        n.put("topic_id", uuidText(topicId));
        n.put("partition", partition);
    }

    private static ObjectNode recordJson(CoordinatorRecord r) {
        ObjectNode n = typed("CoordinatorRecord");
        ObjectNode key = n.putObject("key");
        ApiMessageAndVersion value = r.value();
        ObjectNode vn = value == null ? null : Adapter.JSON.createObjectNode();
        if (r.key() instanceof ShareSnapshotKey k) {
            keyJson(key, "ShareSnapshotKey", k.groupId(), k.topicId(), k.partition());
            if (vn != null) {
                ShareSnapshotValue v = (ShareSnapshotValue) value.message();
                vn.put("type", "ShareSnapshotValue");
                vn.put("snapshot_epoch", v.snapshotEpoch());
                vn.put("state_epoch", v.stateEpoch());
                vn.put("leader_epoch", v.leaderEpoch());
                vn.put("start_offset", v.startOffset());
                vn.put("delivery_complete_count", v.deliveryCompleteCount());
                vn.put("create_timestamp", v.createTimestamp());
                vn.put("write_timestamp", v.writeTimestamp());
                ArrayNode bs = vn.putArray("state_batches");
                v.stateBatches().forEach(b ->
                    batchJson(bs.addObject(), b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
            }
        } else if (r.key() instanceof ShareUpdateKey k) {
            keyJson(key, "ShareUpdateKey", k.groupId(), k.topicId(), k.partition());
            if (vn != null) {
                ShareUpdateValue v = (ShareUpdateValue) value.message();
                vn.put("type", "ShareUpdateValue");
                vn.put("snapshot_epoch", v.snapshotEpoch());
                vn.put("leader_epoch", v.leaderEpoch());
                vn.put("start_offset", v.startOffset());
                vn.put("delivery_complete_count", v.deliveryCompleteCount());
                ArrayNode bs = vn.putArray("state_batches");
                v.stateBatches().forEach(b ->
                    batchJson(bs.addObject(), b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
            }
        } else {
            throw new IllegalStateException("a record the share state adapter has no form for: " + r.key());
        }
        if (vn == null) {
            n.putNull("value");
            n.putNull("value_version");
        } else {
            n.set("value", vn);
            n.put("value_version", value.version());
        }
        return n;
    }

    // ---------------------------------------------------------------------------------------
    // The view
    // ---------------------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    ObjectNode view() {
        ObjectNode v = Adapter.JSON.createObjectNode();
        v.put("now_ms", clock.nowMs);
        List<ObjectNode> keys = new ArrayList<>();
        for (Shard shard : shards.values()) {
            Map<SharePartitionKey, ShareGroupOffset> state =
                (Map<SharePartitionKey, ShareGroupOffset>) field(shard.shard, "shareStateMap");
            Map<SharePartitionKey, Integer> leaderEpochs = (Map<SharePartitionKey, Integer>) field(shard.shard, "leaderEpochMap");
            Map<SharePartitionKey, Integer> stateEpochs = (Map<SharePartitionKey, Integer>) field(shard.shard, "stateEpochMap");
            Map<SharePartitionKey, Integer> updates = (Map<SharePartitionKey, Integer>) field(shard.shard, "snapshotUpdateCount");
            for (Map.Entry<SharePartitionKey, ShareGroupOffset> e : state.entrySet()) {
                SharePartitionKey k = e.getKey();
                ShareGroupOffset o = e.getValue();
                ObjectNode n = Adapter.JSON.createObjectNode();
                n.put("group_id", k.groupId());
                n.put("topic_id", uuidText(k.topicId()));
                n.put("partition", k.partition());
                n.put("coordinator_partition", shard.partition);
                n.put("snapshot_epoch", o.snapshotEpoch());
                n.put("state_epoch", o.stateEpoch());
                n.put("leader_epoch", o.leaderEpoch());
                n.put("start_offset", o.startOffset());
                ArrayNode bs = n.putArray("state_batches");
                for (PersisterStateBatch b : o.stateBatches()) {
                    batchJson(bs.addObject(), b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount());
                }
                n.put("create_timestamp", o.createTimestamp());
                n.put("write_timestamp", o.writeTimestamp());
                putNullable(n, "fenced_leader_epoch", leaderEpochs.get(k));
                putNullable(n, "fenced_state_epoch", stateEpochs.get(k));
                putNullable(n, "updates_since_snapshot", updates.get(k));
                keys.add(n);
            }
        }
        keys.sort(Comparator.<ObjectNode>comparingInt(n -> n.get("coordinator_partition").asInt())
            .thenComparing(n -> n.get("group_id").asText())
            .thenComparing(n -> n.get("topic_id").asText())
            .thenComparingInt(n -> n.get("partition").asInt()));
        ArrayNode sp = v.putArray("share_partitions");
        keys.forEach(sp::add);
        ArrayNode cp = v.putArray("coordinator_partitions");
        for (Shard shard : shards.values()) {
            if (shard.log.isEmpty()) {
                continue;
            }
            ObjectNode n = cp.addObject();
            n.put("partition", shard.partition);
            n.put("log_end_offset", shard.log.size());
            Optional<Long> redundant = shard.shard.lastRedundantOffset().response();
            if (redundant.isPresent()) {
                n.put("last_redundant_offset", redundant.get());
            } else {
                n.putNull("last_redundant_offset");
            }
        }
        return v;
    }

    private static void putNullable(ObjectNode n, String name, Integer value) {
        if (value == null) {
            n.putNull(name);
        } else {
            n.put(name, value);
        }
    }
}

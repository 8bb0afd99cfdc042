package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.common.runtime.CoordinatorExecutor;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorOperationExceptionHelper;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.group.Group;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorService;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.coordinator.group.GroupMetadataManager;
import org.apache.kafka.coordinator.group.generated.ShareGroupCurrentMemberAssignmentKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupCurrentMemberAssignmentValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupStatePartitionMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupStatePartitionMetadataValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupTargetAssignmentMemberKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupTargetAssignmentMemberValue;
import org.apache.kafka.coordinator.group.generated.ShareGroupTargetAssignmentMetadataKey;
import org.apache.kafka.coordinator.group.generated.ShareGroupTargetAssignmentMetadataValue;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.coordinator.group.modern.share.ShareGroup;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupMember;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.share.persister.DeleteShareGroupStateParameters;
import org.apache.kafka.server.share.persister.InitializeShareGroupStateParameters;
import org.apache.kafka.server.share.persister.PartitionStateData;
import org.apache.kafka.server.share.persister.TopicData;
import org.apache.kafka.timeline.SnapshotRegistry;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
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
import java.util.stream.Collectors;

/**
 * One share_group run on Kafka's {@link GroupCoordinatorShard}s, one per {@code __consumer_offsets}
 * partition a group of the run maps to (Kafka's {@code Utils.abs(groupId.hashCode()) % n}), with
 * this class playing CoordinatorRuntime and the share part of GroupCoordinatorService around them:
 *
 * <ul>
 * <li>a clock moved only by AdvanceClock, a timer per shard whose due operations run in (deadline,
 *     order of arming) order across shards, every returned record replayed into its shard and
 *     appended to that shard's in-memory log, snapshots at the last written offset (a failed
 *     operation reverts to it), append futures completed at once;</li>
 * <li>the metadata image is a {@link CoordinatorMetadataImage} of the vector's topics (name, id,
 *     partition count, each partition's replica racks as KRaft's image lists them), handed to every
 *     shard with {@code onLoaded} and {@code onNewMetadataImage} and a delta of created, changed and
 *     deleted topic ids; deleted topics first go through {@code maybeCleanupShareGroupState} on
 *     every shard, as GroupCoordinatorService#onPartitionsDeleted does before the new image;</li>
 * <li>a heartbeat first passes GroupCoordinatorService's own request check (called by reflection),
 *     then {@code shareGroupHeartbeat}; an exception is answered through
 *     CoordinatorOperationExceptionHelper, as the service answers it; an InitializeShareGroupState
 *     the shard asks for is output and waits for the vector's PersisterAnswer; a successful answer
 *     is written with {@code initializeShareGroupState} (and, if that write fails,
 *     {@code uninitializeShareGroupState}), a failed one with {@code uninitializeShareGroupState},
 *     as the service's persisterInitialize does;</li>
 * <li>DeleteGroups goes per partition through {@code sharePartitionDeleteRequests}, the persister's
 *     deleteState (which groupspec's vocabulary has no answer for: it succeeds), then
 *     {@code deleteGroups} for the groups left, as GroupCoordinatorService#deleteGroups chains them;</li>
 * <li>SetGroupConfig is checked with {@code GroupConfigManager.validate} and stored with
 *     {@code updateGroupConfig} in the GroupConfigManager the shards read (defaults from
 *     {@code extractGroupConfigMap}, as the broker builds it);</li>
 * <li>Restart unloads every shard and builds it again from its log, then {@code onLoaded}.</li>
 * </ul>
 */
final class ShareGroupRun {
    private static final GroupCoordinatorMetrics METRICS = new GroupCoordinatorMetrics();
    private static final Method REQUEST_CHECK;

    static {
        try {
            REQUEST_CHECK = GroupCoordinatorService.class.getDeclaredMethod(
                "throwIfShareGroupHeartbeatRequestIsInvalid", ShareGroupHeartbeatRequestData.class);
            REQUEST_CHECK.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // ---------------------------------------------------------------------------------------
    // The metadata image
    // ---------------------------------------------------------------------------------------

    /** One topic of the vector's image. */
    private record Topic(String name, Uuid id, int partitionCount, List<List<String>> racks)
        implements CoordinatorMetadataImage.TopicMetadata {
        @Override
        public List<String> partitionRacks(int partition) {
            // KRaft's image lists the rack of each replica's broker, in a new mutable list.
            return partition < racks.size() ? new ArrayList<>(racks.get(partition)) : new ArrayList<>();
        }
    }

    /** The vector's topics as the coordinator reads an image. */
    private static final class Image implements CoordinatorMetadataImage {
        final Map<String, Topic> byName = new LinkedHashMap<>();
        final Map<Uuid, Topic> byId = new LinkedHashMap<>();
        final long version;

        Image(JsonNode topics, long version) {
            this.version = version;
            for (JsonNode t : topics) {
                List<List<String>> racks = new ArrayList<>();
                for (JsonNode replicas : t.path("racks")) {
                    List<String> rs = new ArrayList<>();
                    replicas.forEach(r -> rs.add(r.asText()));
                    racks.add(rs);
                }
                Topic topic = new Topic(t.path("name").asText(), uuidOf(t.path("topic_id").asText()),
                    t.path("partitions").asInt(), racks);
                byName.put(topic.name(), topic);
                byId.put(topic.id(), topic);
            }
        }

        @Override
        public Set<Uuid> topicIds() {
            return Set.copyOf(byId.keySet());
        }

        @Override
        public Set<String> topicNames() {
            return Set.copyOf(byName.keySet());
        }

        @Override
        public Optional<TopicMetadata> topicMetadata(String name) {
            return Optional.ofNullable(byName.get(name));
        }

        @Override
        public Optional<TopicMetadata> topicMetadata(Uuid id) {
            return Optional.ofNullable(byId.get(id));
        }

        @Override
        public CoordinatorMetadataDelta emptyDelta() {
            return new Delta(this, this);
        }

        @Override
        public long version() {
            return version;
        }

        @Override
        public boolean isEmpty() {
            // A KRaft image is never empty once the broker has caught up; the vector's may have no topics.
            return false;
        }
    }

    /** What changed from one image to the next; {@link #image()} is the previous one, as KRaft's delta's. */
    private record Delta(Image before, Image after) implements CoordinatorMetadataDelta {
        @Override
        public Collection<Uuid> createdTopicIds() {
            Set<Uuid> ids = new TreeSet<>(after.byId.keySet());
            ids.removeAll(before.byId.keySet());
            return ids;
        }

        @Override
        public Collection<Uuid> changedTopicIds() {
            Set<Uuid> ids = new TreeSet<>();
            after.byId.forEach((id, t) -> {
                if (!t.equals(before.byId.get(id))) {
                    ids.add(id);
                }
            });
            return ids;
        }

        @Override
        public Set<Uuid> deletedTopicIds() {
            Set<Uuid> ids = new TreeSet<>(before.byId.keySet());
            ids.removeAll(after.byId.keySet());
            return ids;
        }

        @Override
        public CoordinatorMetadataImage image() {
            return before;
        }
    }

    // ---------------------------------------------------------------------------------------
    // Shards, their timers and logs
    // ---------------------------------------------------------------------------------------

    /** An armed timer: its shard, deadline, the order it was armed in, and its operation. */
    private record Armed(Shard shard, String key, long deadlineMs, long seq,
                         CoordinatorTimerShim.Operation op) {
    }

    /** The share path needs no executor (it serves regular-expression subscriptions). */
    private static final class NoExecutor implements CoordinatorExecutor<CoordinatorRecord> {
        @Override
        public <R> boolean schedule(String key, TaskRunnable<R> task, TaskOperation<CoordinatorRecord, R> op) {
            throw new UnsupportedOperationException("no executor in the share group adapter");
        }

        @Override
        public boolean isScheduled(String key) {
            return false;
        }

        @Override
        public void cancel(String key) {
        }
    }

    /** One {@code __consumer_offsets} partition: its log and, loaded from it, its shard. */
    private final class Shard extends CoordinatorTimerShim {
        final int partition;
        final List<CoordinatorRecord> log = new ArrayList<>();
        final Map<String, Armed> armed = new HashMap<>();
        SnapshotRegistry snapshots;
        GroupCoordinatorShard shard;
        GroupMetadataManager manager;
        long lastOffset;

        Shard(int partition) {
            this.partition = partition;
            load();
        }

        void load() {
            armed.clear();
            snapshots = new SnapshotRegistry(new LogContext());
            shard = (GroupCoordinatorShard) new GroupCoordinatorShard.Builder(config, groupConfigs)
                .withAuthorizerPlugin(Optional.empty())
                .withLogContext(new LogContext())
                .withTime(clock)
                .withTimer(this)
                .withExecutor(new NoExecutor())
                .withCoordinatorMetrics(METRICS)
                .withTopicPartition(new TopicPartition("__consumer_offsets", partition))
                .withSnapshotRegistry(snapshots)
                .build();
            manager = (GroupMetadataManager) field(shard, "groupMetadataManager");
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

        void unload() {
            shard.onUnloaded();
            armed.clear();
        }

        /** The runtime's write: replay the records, append them, commit, complete the append future. */
        <T> T write(Function<GroupCoordinatorShard, CoordinatorResult<T, CoordinatorRecord>> op) {
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

        @Override
        void arm(String key, long delay, TimeUnit unit, Operation op) {
            armed.put(key, new Armed(this, key, clock.nowMs + unit.toMillis(delay), nextSeq++, op));
        }

        @Override
        public void cancel(String key) {
            armed.remove(key);
        }

        @Override
        public boolean isScheduled(String key) {
            return armed.containsKey(key);
        }
    }

    private final ClassicRun.Clock clock;
    private final GroupCoordinatorConfig config;
    private final ShareGroupConfig shareConfig;
    private final GroupConfigManager groupConfigs;
    private Image image;
    private long nextSeq;
    private final Map<Integer, Shard> shards = new TreeMap<>();
    /** InitializeShareGroupState requests not answered yet, by the index of the heartbeat that asked. */
    private final Map<Integer, InitializeShareGroupStateParameters> pending = new TreeMap<>();
    /** The overrides of each group's SetGroupConfig (session timeout, heartbeat interval), for the view. */
    private final Map<String, Integer[]> overrides = new HashMap<>();
    /** Every group id the run named: the view asks the shards about each. */
    private final Set<String> groupIds = new TreeSet<>();
    /** Each group's member ids in the order they joined, the order groupspec's view lists them in. */
    private final Map<String, List<String>> addedOrder = new HashMap<>();
    private final ArrayNode currentAnswers = Adapter.JSON.createArrayNode();
    private final ArrayNode currentRecords = Adapter.JSON.createArrayNode();
    private final ArrayNode currentInitialize = Adapter.JSON.createArrayNode();

    ShareGroupRun(JsonNode cfg, JsonNode topics, long startMs) {
        clock = new ClassicRun.Clock(startMs);
        Properties props = new Properties();
        props.put(GroupCoordinatorConfig.SHARE_GROUP_SESSION_TIMEOUT_MS_CONFIG, cfg.path("session_timeout_ms").asInt(45_000));
        props.put(GroupCoordinatorConfig.SHARE_GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG, cfg.path("min_session_timeout_ms").asInt(45_000));
        props.put(GroupCoordinatorConfig.SHARE_GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG, cfg.path("max_session_timeout_ms").asInt(60_000));
        props.put(GroupCoordinatorConfig.SHARE_GROUP_HEARTBEAT_INTERVAL_MS_CONFIG, cfg.path("heartbeat_interval_ms").asInt(5_000));
        props.put(GroupCoordinatorConfig.SHARE_GROUP_MIN_HEARTBEAT_INTERVAL_MS_CONFIG, cfg.path("min_heartbeat_interval_ms").asInt(5_000));
        props.put(GroupCoordinatorConfig.SHARE_GROUP_MAX_HEARTBEAT_INTERVAL_MS_CONFIG, cfg.path("max_heartbeat_interval_ms").asInt(15_000));
        props.put(GroupCoordinatorConfig.SHARE_GROUP_MAX_SIZE_CONFIG, cfg.path("max_size").asInt(200));
        props.put(GroupCoordinatorConfig.SHARE_GROUP_INITIALIZE_RETRY_INTERVAL_MS_CONFIG,
            cfg.path("initialize_retry_interval_ms").asInt(30_000));
        props.put(GroupCoordinatorConfig.OFFSET_COMMIT_TIMEOUT_MS_CONFIG, cfg.path("offsets_commit_timeout_ms").asInt(5_000));
        props.put(GroupCoordinatorConfig.OFFSETS_TOPIC_PARTITIONS_CONFIG, cfg.path("offsets_topic_partitions").asInt(50));
        config = new GroupCoordinatorConfig(new AbstractConfig(GroupCoordinatorConfig.CONFIG_DEF, props));
        // The broker builds ShareGroupConfig from all of KafkaConfig: it reads group.share.max.size too.
        org.apache.kafka.common.config.ConfigDef both = new org.apache.kafka.common.config.ConfigDef(GroupCoordinatorConfig.CONFIG_DEF);
        ShareGroupConfig.CONFIG_DEF.configKeys().values().forEach(both::define);
        shareConfig = new ShareGroupConfig(new AbstractConfig(both, props));
        groupConfigs = GroupConfigShim.manager(config.extractGroupConfigMap(shareConfig), config, shareConfig);
        image = new Image(topics, 1);
    }

    private Shard shardFor(String groupId) {
        int partition = Utils.abs(groupId.hashCode()) % config.offsetsTopicPartitions();
        return shards.computeIfAbsent(partition, Shard::new);
    }

    // ---------------------------------------------------------------------------------------
    // Events
    // ---------------------------------------------------------------------------------------

    ObjectNode handle(JsonNode event, int index) {
        currentAnswers.removeAll();
        currentRecords.removeAll();
        currentInitialize.removeAll();
        if (event.has("group_id")) {
            groupIds.add(event.get("group_id").asText());
        }
        event.path("group_ids").forEach(g -> groupIds.add(g.asText()));
        String type = event.path("type").asText();
        switch (type) {
            case "ShareGroupHeartbeat" -> heartbeat(event, index);
            case "PersisterAnswer" -> persisterAnswer(event);
            case "UpdateMetadata" -> updateMetadata(event);
            case "AdvanceClock" -> advance(event.path("to_ms").asLong());
            case "DeleteGroups" -> deleteGroups(event, index);
            case "SetGroupConfig" -> setGroupConfig(event, index);
            case "Restart" -> restart();
            default -> throw new IllegalArgumentException("not a share group event: " + type);
        }
        touchOrder();
        ObjectNode out = Adapter.JSON.createObjectNode();
        out.set("answers", currentAnswers.deepCopy());
        out.set("records", currentRecords.deepCopy());
        out.set("initialize", currentInitialize.deepCopy());
        return out;
    }

    private void answer(int index, ObjectNode response) {
        ObjectNode a = currentAnswers.addObject();
        a.put("request", index);
        a.set("response", response);
    }

    private void heartbeat(JsonNode e, int index) {
        ShareGroupHeartbeatRequestData request = new ShareGroupHeartbeatRequestData()
            .setGroupId(e.path("group_id").asText())
            .setMemberId(e.path("member_id").asText())
            .setMemberEpoch(e.path("member_epoch").asInt())
            .setRackId(nullableText(e.get("rack_id")));
        JsonNode topics = e.get("subscribed_topic_names");
        if (topics != null && !topics.isNull()) {
            List<String> names = new ArrayList<>();
            topics.forEach(t -> names.add(t.asText()));
            request.setSubscribedTopicNames(names);
        } else {
            request.setSubscribedTopicNames(null);
        }
        try {
            REQUEST_CHECK.invoke(null, request);
        } catch (InvocationTargetException ex) {
            ApiError error = ApiError.fromThrowable(ex.getCause());
            answer(index, heartbeatJson(new ShareGroupHeartbeatResponseData().setErrorCode(error.error().code())));
            return;
        } catch (IllegalAccessException ex) {
            throw new IllegalStateException(ex);
        }
        Shard shard = shardFor(request.groupId());
        AuthorizableRequestContext ctx = context(e);
        Map.Entry<ShareGroupHeartbeatResponseData, Optional<InitializeShareGroupStateParameters>> result;
        try {
            result = shard.write(s -> s.shareGroupHeartbeat(ctx, request));
        } catch (RuntimeException ex) {
            answer(index, heartbeatJson(CoordinatorOperationExceptionHelper.handleOperationException(
                "share-group-heartbeat", request, ex,
                (error, message) -> new ShareGroupHeartbeatResponseData().setErrorCode(error.code()).setErrorMessage(message),
                org.slf4j.helpers.NOPLogger.NOP_LOGGER)));
            return;
        }
        answer(index, heartbeatJson(result.getKey()));
        if (result.getValue().isPresent()) {
            InitializeShareGroupStateParameters params = result.getValue().get();
            pending.put(index, params);
            ObjectNode n = currentInitialize.addObject();
            n.put("request", index);
            n.put("group_id", params.groupTopicPartitionData().groupId());
            Set<Integer> epochs = new TreeSet<>();
            Map<Uuid, Set<Integer>> byTopic = topicMap(params);
            params.groupTopicPartitionData().topicsData().forEach(t -> t.partitions().forEach(p -> epochs.add(p.stateEpoch())));
            if (epochs.size() != 1) {
                throw new IllegalStateException("an InitializeShareGroupState with state epochs " + epochs);
            }
            n.put("state_epoch", epochs.iterator().next());
            n.set("topics", topicPartitionsJson(byTopic));
        }
    }

    private static Map<Uuid, Set<Integer>> topicMap(InitializeShareGroupStateParameters params) {
        Map<Uuid, Set<Integer>> byTopic = new HashMap<>();
        for (TopicData<PartitionStateData> t : params.groupTopicPartitionData().topicsData()) {
            byTopic.computeIfAbsent(t.topicId(), k -> new HashSet<>())
                .addAll(t.partitions().stream().map(PartitionStateData::partition).collect(Collectors.toSet()));
        }
        return byTopic;
    }

    /**
     * GroupCoordinatorService#persisterInitialize with the vector's answer: every partition
     * initialized (NONE) goes through initializeShareGroupState, falling back to
     * uninitializeShareGroupState if that write fails; an error, through uninitializeShareGroupState.
     */
    private void persisterAnswer(JsonNode e) {
        InitializeShareGroupStateParameters params = pending.remove(e.path("request").asInt());
        if (params == null) {
            return;
        }
        String groupId = params.groupTopicPartitionData().groupId();
        Map<Uuid, Set<Integer>> byTopic = topicMap(params);
        Shard shard = shardFor(groupId);
        if (e.path("error").asText("NONE").equals("NONE")) {
            try {
                shard.write(s -> s.initializeShareGroupState(groupId, byTopic));
                return;
            } catch (RuntimeException ex) {
                System.err.println("initializeShareGroupState failed: " + ex);
            }
        }
        try {
            shard.write(s -> s.uninitializeShareGroupState(groupId, byTopic));
        } catch (RuntimeException ex) {
            System.err.println("uninitializeShareGroupState failed: " + ex);
        }
    }

    private void updateMetadata(JsonNode e) {
        Image before = image;
        Image after = new Image(e.path("topics"), before.version + 1);
        Delta delta = new Delta(before, after);
        Set<Uuid> deleted = delta.deletedTopicIds();
        if (!deleted.isEmpty()) {
            for (Shard s : shards.values()) {
                try {
                    s.write(shard -> shard.maybeCleanupShareGroupState(deleted));
                } catch (RuntimeException ex) {
                    System.err.println("maybeCleanupShareGroupState failed: " + ex);
                }
            }
        }
        image = after;
        for (Shard s : shards.values()) {
            CoordinatorShardShim.metadataUpdate(s.shard, after, delta);
        }
    }

    private void advance(long toMs) {
        clock.nowMs = Math.max(clock.nowMs, toMs);
        Armed due;
        while ((due = nextDue()) != null) {
            due.shard.armed.remove(due.key);
            Armed fired = due;
            try {
                fired.shard.write(s -> fired.op.generateRecords());
            } catch (RuntimeException ex) {
                System.err.println("timer " + fired.key + " failed: " + ex);
            }
        }
    }

    private Armed nextDue() {
        Armed next = null;
        for (Shard s : shards.values()) {
            for (Armed a : s.armed.values()) {
                if (a.deadlineMs <= clock.nowMs
                    && (next == null || a.deadlineMs < next.deadlineMs
                        || (a.deadlineMs == next.deadlineMs && a.seq < next.seq))) {
                    next = a;
                }
            }
        }
        return next;
    }

    /** GroupCoordinatorService#deleteGroups: per partition, the share delete flow, then deleteGroups. */
    private void deleteGroups(JsonNode e, int index) {
        List<String> requested = new ArrayList<>();
        e.path("group_ids").forEach(g -> requested.add(g.asText()));
        Map<Shard, List<String>> byShard = new LinkedHashMap<>();
        for (String g : requested) {
            byShard.computeIfAbsent(shardFor(g), k -> new ArrayList<>()).add(g);
        }
        Map<String, Errors> results = new HashMap<>();
        AuthorizableRequestContext ctx = context(e);
        byShard.forEach((shard, groups) -> {
            Map<String, Errors> shareErrors = new HashMap<>();
            try {
                Map<String, Map.Entry<DeleteShareGroupStateParameters, Errors>> requests =
                    shard.write(s -> s.sharePartitionDeleteRequests(groups));
                // The persister's deleteState: groupspec's vocabulary has no answer for it, so it succeeds.
                requests.forEach((g, v) -> shareErrors.put(g, v.getValue()));
            } catch (RuntimeException ex) {
                Errors err = CoordinatorOperationExceptionHelper.handleOperationException("delete-share-groups", groups, ex,
                    (error, m) -> error, org.slf4j.helpers.NOPLogger.NOP_LOGGER);
                groups.forEach(g -> shareErrors.put(g, err));
            }
            List<String> retained = new ArrayList<>();
            for (String g : groups) {
                Errors err = shareErrors.getOrDefault(g, Errors.NONE);
                if (err != Errors.NONE) {
                    results.put(g, err);
                } else if (!retained.contains(g)) {
                    retained.add(g);
                }
            }
            if (retained.isEmpty()) {
                return;
            }
            try {
                DeleteGroupsResponseData.DeletableGroupResultCollection r = shard.write(s -> s.deleteGroups(ctx, retained));
                r.forEach(x -> results.put(x.groupId(), Errors.forCode(x.errorCode())));
            } catch (RuntimeException ex) {
                Errors err = CoordinatorOperationExceptionHelper.handleOperationException("delete-groups", retained, ex,
                    (error, m) -> error, org.slf4j.helpers.NOPLogger.NOP_LOGGER);
                retained.forEach(g -> results.put(g, err));
            }
        });
        ObjectNode n = typed("DeleteGroupsResponse");
        ArrayNode rs = n.putArray("results");
        // The response is keyed by group id; listed in the request's order.
        for (String g : requested) {
            ObjectNode rn = rs.addObject();
            rn.put("group_id", g);
            rn.put("error", results.getOrDefault(g, Errors.UNKNOWN_SERVER_ERROR).name());
        }
        answer(index, n);
    }

    /** IncrementalAlterConfigs on a GROUP resource: Kafka's validation, then the group config manager. */
    private void setGroupConfig(JsonNode e, int index) {
        String groupId = e.path("group_id").asText();
        JsonNode session = e.get("session_timeout_ms");
        JsonNode interval = e.get("heartbeat_interval_ms");
        Properties props = new Properties();
        if (session != null && !session.isNull()) {
            props.put(org.apache.kafka.coordinator.group.GroupConfig.SHARE_SESSION_TIMEOUT_MS_CONFIG, session.asInt());
        }
        if (interval != null && !interval.isNull()) {
            props.put(org.apache.kafka.coordinator.group.GroupConfig.SHARE_HEARTBEAT_INTERVAL_MS_CONFIG, interval.asInt());
        }
        ObjectNode n = typed("SetGroupConfigResponse");
        try {
            GroupConfigShim.validate(props, config, shareConfig);
        } catch (InvalidConfigurationException ex) {
            n.put("error", Errors.INVALID_CONFIG.name());
            answer(index, n);
            return;
        }
        groupConfigs.updateGroupConfig(groupId, props);
        if (props.isEmpty()) {
            overrides.remove(groupId);
        } else {
            overrides.put(groupId, new Integer[] {
                session == null || session.isNull() ? null : session.asInt(),
                interval == null || interval.isNull() ? null : interval.asInt()});
        }
        n.put("error", Errors.NONE.name());
        answer(index, n);
    }

    /** Failover: every shard is unloaded and built again from its log; requests in flight are lost. */
    private void restart() {
        pending.clear();
        for (Shard s : shards.values()) {
            s.unload();
        }
        for (Shard s : shards.values()) {
            s.load();
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

    private static ObjectNode heartbeatJson(ShareGroupHeartbeatResponseData r) {
        ObjectNode n = typed("ShareGroupHeartbeatResponse");
        n.put("error", Errors.forCode(r.errorCode()).name());
        n.put("member_id", r.memberId());
        n.put("member_epoch", r.memberEpoch());
        n.put("heartbeat_interval_ms", r.heartbeatIntervalMs());
        if (r.assignment() == null) {
            n.putNull("assignment");
        } else {
            Map<Uuid, Collection<Integer>> byTopic = new HashMap<>();
            r.assignment().topicPartitions().forEach(tp -> byTopic.put(tp.topicId(), tp.partitions()));
            n.set("assignment", topicPartitionsJson(byTopic));
        }
        return n;
    }

    /** Topics sorted by id text, partitions ascending, topics without partitions left out (groupspec's order). */
    private static ArrayNode topicPartitionsJson(Map<Uuid, ? extends Collection<Integer>> byTopic) {
        ArrayNode a = Adapter.JSON.createArrayNode();
        Map<String, Collection<Integer>> sorted = new TreeMap<>();
        byTopic.forEach((id, ps) -> sorted.put(uuidText(id), ps));
        sorted.forEach((id, ps) -> {
            if (ps.isEmpty()) {
                return;
            }
            ObjectNode t = a.addObject();
            t.put("topic_id", id);
            ArrayNode pn = t.putArray("partitions");
            new TreeSet<>(ps).forEach(pn::add);
        });
        return a;
    }

    private static ObjectNode recordJson(CoordinatorRecord r) {
        ObjectNode n = typed("CoordinatorRecord");
        ObjectNode key = n.putObject("key");
        ApiMessageAndVersion value = r.value();
        ObjectNode vn = value == null ? null : Adapter.JSON.createObjectNode();
        if (r.key() instanceof ShareGroupMemberMetadataKey k) {
            key.put("type", "ShareGroupMemberMetadataKey");
            key.put("group_id", k.groupId());
            key.put("member_id", k.memberId());
            if (vn != null) {
                ShareGroupMemberMetadataValue v = (ShareGroupMemberMetadataValue) value.message();
                vn.put("type", "ShareGroupMemberMetadataValue");
                vn.put("rack_id", v.rackId());
                vn.put("client_id", v.clientId());
                vn.put("client_host", v.clientHost());
                ArrayNode names = vn.putArray("subscribed_topic_names");
                new TreeSet<>(v.subscribedTopicNames()).forEach(names::add);
            }
        } else if (r.key() instanceof ShareGroupMetadataKey k) {
            key.put("type", "ShareGroupMetadataKey");
            key.put("group_id", k.groupId());
            if (vn != null) {
                ShareGroupMetadataValue v = (ShareGroupMetadataValue) value.message();
                vn.put("type", "ShareGroupMetadataValue");
                vn.put("epoch", v.epoch());
                vn.put("metadata_hash", v.metadataHash());
            }
        } else if (r.key() instanceof ShareGroupTargetAssignmentMemberKey k) {
            key.put("type", "ShareGroupTargetAssignmentMemberKey");
            key.put("group_id", k.groupId());
            key.put("member_id", k.memberId());
            if (vn != null) {
                ShareGroupTargetAssignmentMemberValue v = (ShareGroupTargetAssignmentMemberValue) value.message();
                vn.put("type", "ShareGroupTargetAssignmentMemberValue");
                Map<Uuid, Collection<Integer>> byTopic = new HashMap<>();
                v.topicPartitions().forEach(tp -> byTopic.put(tp.topicId(), tp.partitions()));
                vn.set("topic_partitions", topicPartitionsJson(byTopic));
            }
        } else if (r.key() instanceof ShareGroupTargetAssignmentMetadataKey k) {
            key.put("type", "ShareGroupTargetAssignmentMetadataKey");
            key.put("group_id", k.groupId());
            if (vn != null) {
                ShareGroupTargetAssignmentMetadataValue v = (ShareGroupTargetAssignmentMetadataValue) value.message();
                vn.put("type", "ShareGroupTargetAssignmentMetadataValue");
                vn.put("assignment_epoch", v.assignmentEpoch());
            }
        } else if (r.key() instanceof ShareGroupCurrentMemberAssignmentKey k) {
            key.put("type", "ShareGroupCurrentMemberAssignmentKey");
            key.put("group_id", k.groupId());
            key.put("member_id", k.memberId());
            if (vn != null) {
                ShareGroupCurrentMemberAssignmentValue v = (ShareGroupCurrentMemberAssignmentValue) value.message();
                vn.put("type", "ShareGroupCurrentMemberAssignmentValue");
                vn.put("member_epoch", v.memberEpoch());
                vn.put("previous_member_epoch", v.previousMemberEpoch());
                vn.put("state", v.state());
                Map<Uuid, Collection<Integer>> byTopic = new HashMap<>();
                v.assignedPartitions().forEach(tp -> byTopic.put(tp.topicId(), tp.partitions()));
                vn.set("assigned_partitions", topicPartitionsJson(byTopic));
            }
        } else if (r.key() instanceof ShareGroupStatePartitionMetadataKey k) {
            key.put("type", "ShareGroupStatePartitionMetadataKey");
            key.put("group_id", k.groupId());
            if (vn != null) {
                ShareGroupStatePartitionMetadataValue v = (ShareGroupStatePartitionMetadataValue) value.message();
                vn.put("type", "ShareGroupStatePartitionMetadataValue");
                vn.set("initializing_topics", topicInfosJson(v.initializingTopics()));
                vn.set("initialized_topics", topicInfosJson(v.initializedTopics()));
                Map<String, String> deleting = new TreeMap<>();
                v.deletingTopics().forEach(t -> deleting.put(uuidText(t.topicId()), t.topicName()));
                ArrayNode dn = vn.putArray("deleting_topics");
                deleting.forEach((id, name) -> {
                    ObjectNode t = dn.addObject();
                    t.put("topic_id", id);
                    t.put("topic_name", name);
                });
            }
        } else {
            throw new IllegalStateException("a record the share group adapter has no form for: " + r.key());
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

    private static ArrayNode topicInfosJson(List<ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo> infos) {
        Map<String, ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo> sorted = new TreeMap<>();
        infos.forEach(t -> sorted.put(uuidText(t.topicId()), t));
        ArrayNode a = Adapter.JSON.createArrayNode();
        sorted.forEach((id, t) -> {
            ObjectNode tn = a.addObject();
            tn.put("topic_id", id);
            tn.put("topic_name", t.topicName());
            ArrayNode pn = tn.putArray("partitions");
            new TreeSet<>(t.partitions()).forEach(pn::add);
        });
        return a;
    }

    // ---------------------------------------------------------------------------------------
    // The view
    // ---------------------------------------------------------------------------------------

    private ShareGroup shareGroup(String groupId) {
        Shard shard = shards.get(Utils.abs(groupId.hashCode()) % config.offsetsTopicPartitions());
        if (shard == null) {
            return null;
        }
        try {
            Group g = shard.manager.group(groupId);
            return g instanceof ShareGroup s ? s : null;
        } catch (ApiException e) {
            return null;
        }
    }

    private void touchOrder() {
        for (String id : groupIds) {
            List<String> order = addedOrder.computeIfAbsent(id, k -> new ArrayList<>());
            ShareGroup g = shareGroup(id);
            if (g == null) {
                order.clear();
                continue;
            }
            order.retainAll(g.members().keySet());
            for (String m : new TreeSet<>(g.members().keySet())) {
                if (!order.contains(m)) {
                    order.add(m);
                }
            }
        }
    }

    ObjectNode view() {
        ObjectNode v = Adapter.JSON.createObjectNode();
        v.put("now_ms", clock.nowMs);
        ArrayNode gs = v.putArray("groups");
        for (String id : groupIds) {
            ShareGroup g = shareGroup(id);
            if (g == null) {
                continue;
            }
            Shard shard = shards.get(Utils.abs(id.hashCode()) % config.offsetsTopicPartitions());
            ObjectNode gn = gs.addObject();
            gn.put("group_id", id);
            gn.put("state", g.state().toString());
            gn.put("group_epoch", g.groupEpoch());
            gn.put("assignment_epoch", g.assignmentEpoch());
            gn.put("metadata_hash", g.metadataHash());
            ArrayNode ms = gn.putArray("members");
            for (String memberId : addedOrder.getOrDefault(id, List.of())) {
                ShareGroupMember m = g.members().get(memberId);
                if (m == null) {
                    continue;
                }
                ObjectNode mn = ms.addObject();
                mn.put("member_id", memberId);
                mn.put("member_epoch", m.memberEpoch());
                mn.put("previous_member_epoch", m.previousMemberEpoch());
                mn.put("rack_id", m.rackId());
                mn.put("client_id", m.clientId());
                mn.put("client_host", m.clientHost());
                ArrayNode names = mn.putArray("subscribed_topic_names");
                new TreeSet<>(m.subscribedTopicNames()).forEach(names::add);
                mn.set("assigned", topicPartitionsJson(m.assignedPartitions()));
                mn.set("target", topicPartitionsJson(g.targetAssignment(memberId).partitions()));
                Armed session = shard.armed.get(GroupMetadataManager.groupSessionTimeoutKey(id, memberId));
                if (session == null) {
                    mn.putNull("session_deadline_ms");
                } else {
                    mn.put("session_deadline_ms", session.deadlineMs);
                }
            }
            ShareGroup.ShareGroupStatePartitionMetadataInfo info = stateMetadata(shard).get(id);
            gn.set("initializing", initJson(info == null ? Map.of() : info.initializingTopics(), false));
            gn.set("initialized", initJson(info == null ? Map.of() : info.initializedTopics(), true));
            ArrayNode dn = gn.putArray("deleting");
            if (info != null) {
                info.deletingTopics().stream().map(ShareGroupRun::uuidText).sorted().forEach(dn::add);
            }
            Integer[] o = overrides.getOrDefault(id, new Integer[] {null, null});
            if (o[0] == null) {
                gn.putNull("session_timeout_ms");
            } else {
                gn.put("session_timeout_ms", o[0]);
            }
            if (o[1] == null) {
                gn.putNull("heartbeat_interval_ms");
            } else {
                gn.put("heartbeat_interval_ms", o[1]);
            }
        }
        ArrayNode pn = v.putArray("pending_initialize");
        pending.keySet().forEach(pn::add);
        return v;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, ShareGroup.ShareGroupStatePartitionMetadataInfo> stateMetadata(Shard shard) {
        return (Map<String, ShareGroup.ShareGroupStatePartitionMetadataInfo>) field(shard.manager, "shareGroupStatePartitionMetadata");
    }

    /** Initializing topics with their timestamps; initialized ones with -1 (groupspec's view keeps no time for them). */
    private static ArrayNode initJson(Map<Uuid, ShareGroup.InitMapValue> topics, boolean initialized) {
        Map<String, ShareGroup.InitMapValue> sorted = new TreeMap<>();
        topics.forEach((id, t) -> sorted.put(uuidText(id), t));
        ArrayNode a = Adapter.JSON.createArrayNode();
        sorted.forEach((id, t) -> {
            ObjectNode tn = a.addObject();
            tn.put("topic_id", id);
            tn.put("topic_name", t.name());
            ArrayNode pn = tn.putArray("partitions");
            new TreeSet<>(t.partitions()).forEach(pn::add);
            tn.put("timestamp_ms", initialized ? -1 : t.timestamp());
        });
        return a;
    }

    // ---------------------------------------------------------------------------------------
    // Helpers
    // ---------------------------------------------------------------------------------------

    private static String nullableText(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? null : node.asText();
    }

    static String uuidText(Uuid id) {
        return new java.util.UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
    }

    static Uuid uuidOf(String text) {
        if (text.length() == 22) {
            return Uuid.fromString(text);
        }
        java.util.UUID u = java.util.UUID.fromString(text);
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    static Object field(Object target, String name) {
        Class<?> c = target.getClass();
        while (c != null) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(target);
            } catch (NoSuchFieldException e) {
                c = c.getSuperclass();
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("no field " + name + " in " + target.getClass());
    }

    private static AuthorizableRequestContext context(JsonNode event) {
        String clientId = event.path("client_id").asText("client");
        String host = event.path("client_host").asText("/127.0.0.1");
        InetAddress address;
        try {
            address = InetAddress.getByName(host.substring(1));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        return new AuthorizableRequestContext() {
            public String listenerName() {
                return ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT).value();
            }

            public SecurityProtocol securityProtocol() {
                return SecurityProtocol.PLAINTEXT;
            }

            public KafkaPrincipal principal() {
                return KafkaPrincipal.ANONYMOUS;
            }

            public InetAddress clientAddress() {
                return address;
            }

            public int requestType() {
                return ApiKeys.SHARE_GROUP_HEARTBEAT.id;
            }

            public int requestVersion() {
                return 1;
            }

            public String clientId() {
                return clientId;
            }

            public int correlationId() {
                return 0;
            }
        };
    }
}

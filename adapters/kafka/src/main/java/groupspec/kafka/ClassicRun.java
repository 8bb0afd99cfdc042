package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.common.runtime.CoordinatorExecutor;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.Group;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.coordinator.group.GroupMetadataManager;
import org.apache.kafka.coordinator.group.OffsetAndMetadata;
import org.apache.kafka.coordinator.group.classic.ClassicGroup;
import org.apache.kafka.coordinator.group.classic.ClassicGroupMember;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.GroupMetadataValue;
import org.apache.kafka.coordinator.group.generated.OffsetCommitKey;
import org.apache.kafka.coordinator.group.generated.OffsetCommitValue;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.timeline.SnapshotRegistry;

import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One classic_group run on Kafka's {@link GroupCoordinatorShard}, playing the part of the
 * CoordinatorRuntime around it the way upstream's GroupMetadataManagerTestContext does: a clock
 * moved only by AdvanceClock, a timer whose due operations run in (deadline, scheduling) order,
 * a SnapshotRegistry kept at the last written offset (reads at that offset; a failed write
 * reverts to it), every returned record replayed into the shard and appended to an in-memory log,
 * append futures completed at once (a single replica commits what it writes).
 *
 * <p>What GroupCoordinatorService checks before it calls the shard (an empty group id, the
 * JoinGroup session timeout bounds) and how it turns a thrown ApiException into an answer are
 * done here, as the service does them, and KafkaApis' SyncGroup check; the rest is the shard's.
 * A partition left loading (BeginLoad until CompleteLoad) has no shard in memory: every operation
 * fails with CoordinatorLoadInProgressException, as CoordinatorRuntime's do.
 *
 * <p>Kafka draws member ids' UUIDs at random ({@code ClassicGroup#generateMemberId}); the run maps
 * each Kafka UUID to the JoinGroup's {@code new_member_uuid} in everything it outputs, and the
 * vector's member ids back to Kafka's in every later request.
 */
final class ClassicRun {
    private static final HexFormat HEX = HexFormat.of();
    private static final Pattern UUID_FORM =
        Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final TopicPartition PARTITION = new TopicPartition("__consumer_offsets", 0);
    private static final GroupCoordinatorMetrics METRICS = new GroupCoordinatorMetrics();

    /** An input Kafka's classes cannot be given: the whole vector is answered unsupported. */
    static final class Unsupported extends RuntimeException {
        Unsupported(String reason) {
            super(reason);
        }
    }

    /**
     * The request as the broker would read it off the wire at its version: written and read back
     * with Kafka's generated code, so a field the version lacks takes its default (a retention time
     * at OffsetCommit v5+, say). A field the version cannot carry at all is an input Kafka never gets.
     */
    private static <T> T atVersion(org.apache.kafka.common.protocol.Message data, int version, String what,
                                   Function<org.apache.kafka.common.protocol.Readable, T> read) {
        ByteBuffer buffer;
        try {
            buffer = org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(data, (short) version).buffer();
        } catch (UnsupportedVersionException e) {
            throw new Unsupported(what + " v" + version + " cannot carry this request: " + e.getMessage());
        }
        if (buffer.position() != 0) {
            buffer.flip();
        }
        return read.apply(new ByteBufferAccessor(buffer));
    }

    /** The coordinator's clock: moved only by AdvanceClock. */
    static final class Clock implements Time {
        long nowMs;

        Clock(long startMs) {
            nowMs = startMs;
        }

        @Override
        public long milliseconds() {
            return nowMs;
        }

        @Override
        public long nanoseconds() {
            return TimeUnit.MILLISECONDS.toNanos(nowMs);
        }

        @Override
        public void sleep(long ms) {
            nowMs += ms;
        }

        @Override
        public void waitObject(Object obj, java.util.function.Supplier<Boolean> condition, long deadlineMs) {
            throw new UnsupportedOperationException("the adapter's clock never waits");
        }
    }

    /** An armed timer: its deadline, the order it was scheduled in, and its operation. */
    private record Armed(String key, long deadlineMs, long seq,
                         CoordinatorTimerShim.Operation op) {
    }

    /** The shard's timer over the run's clock; due operations run only when the clock is advanced. */
    private final class Timer extends CoordinatorTimerShim {
        final Map<String, Armed> armed = new HashMap<>();

        @Override
        void arm(String key, long delay, TimeUnit unit, Operation op) {
            armed.put(key, new Armed(key, clock.nowMs + unit.toMillis(delay), nextSeq++, op));
        }

        @Override
        public void cancel(String key) {
            armed.remove(key);
        }

        @Override
        public boolean isScheduled(String key) {
            return armed.containsKey(key);
        }

        Armed nextDue() {
            Armed next = null;
            for (Armed a : armed.values()) {
                if (a.deadlineMs <= clock.nowMs
                    && (next == null || a.deadlineMs < next.deadlineMs
                        || (a.deadlineMs == next.deadlineMs && a.seq < next.seq))) {
                    next = a;
                }
            }
            return next;
        }
    }

    /** The classic group path needs no executor (it serves regular-expression subscriptions). */
    private static final class NoExecutor implements CoordinatorExecutor<CoordinatorRecord> {
        @Override
        public <R> boolean schedule(String key, TaskRunnable<R> task, TaskOperation<CoordinatorRecord, R> op) {
            throw new UnsupportedOperationException("no executor in the classic group adapter");
        }

        @Override
        public boolean isScheduled(String key) {
            return false;
        }

        @Override
        public void cancel(String key) {
        }
    }

    /** One entry of the log: a record (with its producer, -1 when not transactional) or a marker. */
    private record Entry(CoordinatorRecord record, long producerId, short producerEpoch, TransactionResult marker) {
    }

    private final Clock clock;
    private final GroupCoordinatorConfig config;
    private final List<Entry> log = new ArrayList<>();
    private long nextSeq;
    private Timer timer;
    private SnapshotRegistry snapshots;
    private GroupCoordinatorShard shard;
    private GroupMetadataManager groups;
    private long lastOffset;
    /** Between BeginLoad and CompleteLoad: no shard in memory; the runtime refuses every operation. */
    private boolean loading;
    private String currentGroup;

    /** Requests whose answer is a future not completed yet: request index to future. */
    private final Map<Integer, CompletableFuture<?>> parked = new LinkedHashMap<>();
    private final Map<Integer, String> parkedType = new HashMap<>();
    private final Map<Integer, Integer> parkedVersion = new HashMap<>();
    private final Map<Integer, String> parkedGroup = new HashMap<>();
    /** Every group id the run named: the view asks the shard about each. */
    private final Set<String> groupIds = new TreeSet<>();
    /** Kafka's UUIDs to the vector's, and the vector's member ids to Kafka's. */
    private final Map<String, String> uuidOut = new HashMap<>();
    private final Map<String, String> memberIn = new HashMap<>();
    private final Set<String> inputUuids = new HashSet<>();
    /**
     * Producers whose open transaction added this coordinator partition (a TxnOffsetCommit since
     * their last marker): the transaction coordinator sends its markers only to those partitions.
     */
    private final Set<Long> inTransaction = new HashSet<>();
    /**
     * Each group's member ids in the order they were added, as the run saw them appear. Kafka keeps
     * members in a HashMap, so the lists whose order the protocol leaves open (a JoinGroup answer's
     * members, a GroupMetadata record's, a DescribeGroups member list, the view) come out in hash
     * order of random ids, different on every run; they are written in this order instead, the one
     * groupspec's contract names (docs/divergences.md, classic_member_order). Choices Kafka makes
     * from hash order (a new leader when the leader leaves) are left as Kafka made them.
     */
    private final Map<String, List<String>> addedOrder = new HashMap<>();
    /**
     * Each group's members in the order its last GroupMetadata record was shown in. A reload
     * rebuilds the members from that record, and groupspec's replay keeps the record's order; the
     * shard's HashMap would yield them in hash order, so after a load the added order starts again
     * from here (members that left after the record and come back with the reload included).
     */
    private final Map<String, List<String>> writtenOrder = new HashMap<>();
    /** What the current event released and wrote. */
    private final ArrayNode currentAnswers = Adapter.JSON.createArrayNode();
    private final ArrayNode currentRecords = Adapter.JSON.createArrayNode();

    ClassicRun(JsonNode cfg, long startMs) {
        clock = new Clock(startMs);
        Properties props = new Properties();
        props.put(GroupCoordinatorConfig.GROUP_MIN_SESSION_TIMEOUT_MS_CONFIG, cfg.path("min_session_timeout_ms").asInt(6000));
        props.put(GroupCoordinatorConfig.GROUP_MAX_SESSION_TIMEOUT_MS_CONFIG, cfg.path("max_session_timeout_ms").asInt(1800000));
        props.put(GroupCoordinatorConfig.GROUP_INITIAL_REBALANCE_DELAY_MS_CONFIG, cfg.path("initial_rebalance_delay_ms").asInt(3000));
        props.put(GroupCoordinatorConfig.GROUP_MAX_SIZE_CONFIG, cfg.path("max_size").asInt(Integer.MAX_VALUE));
        props.put(GroupCoordinatorConfig.OFFSETS_RETENTION_MINUTES_CONFIG,
            (int) (cfg.path("offsets_retention_ms").asLong(604_800_000L) / 60_000L));
        props.put(GroupCoordinatorConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG,
            cfg.path("offsets_retention_check_interval_ms").asLong(600_000L));
        props.put(GroupCoordinatorConfig.OFFSET_METADATA_MAX_SIZE_CONFIG, cfg.path("offset_metadata_max_bytes").asInt(4096));
        props.put(GroupCoordinatorConfig.OFFSETS_TOPIC_PARTITIONS_CONFIG, cfg.path("offsets_topic_partitions").asInt(50));
        config = new GroupCoordinatorConfig(new AbstractConfig(GroupCoordinatorConfig.CONFIG_DEF, props));
        load();
    }

    static boolean isAddressForm(String host) {
        if (!host.startsWith("/")) {
            return false;
        }
        String ip = host.substring(1);
        if (!ip.matches("[0-9.]+|[0-9a-fA-F:]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(ip).toString().equals(host);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------------------------------
    // The shard and the runtime's part
    // ---------------------------------------------------------------------------------------

    /** A new shard that replays the whole log and is then loaded, as CoordinatorRuntime loads one. */
    private void load() {
        loading = false;
        timer = new Timer();
        snapshots = new SnapshotRegistry(new LogContext());
        shard = (GroupCoordinatorShard) new GroupCoordinatorShard.Builder(config, GroupConfigShim.empty())
            .withAuthorizerPlugin(Optional.empty())
            .withLogContext(new LogContext())
            .withTime(clock)
            .withTimer(timer)
            .withExecutor(new NoExecutor())
            .withCoordinatorMetrics(METRICS)
            .withTopicPartition(PARTITION)
            .withSnapshotRegistry(snapshots)
            .build();
        groups = (GroupMetadataManager) field(shard, "groupMetadataManager");
        lastOffset = 0;
        snapshots.idempotentCreateSnapshot(lastOffset);
        for (Entry e : log) {
            if (e.marker != null) {
                shard.replayEndTransactionMarker(e.producerId, e.producerEpoch, e.marker);
            } else {
                shard.replay(lastOffset, e.producerId, e.producerEpoch, e.record);
            }
            lastOffset++;
        }
        snapshots.idempotentCreateSnapshot(lastOffset);
        snapshots.deleteSnapshotsUpTo(lastOffset);
        shard.onLoaded(CoordinatorMetadataImage.EMPTY);
        addedOrder.clear();
        writtenOrder.forEach((group, ids) -> addedOrder.put(group, new ArrayList<>(ids)));
    }

    private void rememberWrittenOrder(CoordinatorRecord r) {
        if (!(r.key() instanceof GroupMetadataKey k)) {
            return;
        }
        if (r.value() == null) {
            writtenOrder.remove(k.group());
            return;
        }
        List<String> ids = new ArrayList<>();
        GroupMetadataValue v = (GroupMetadataValue) r.value().message();
        for (GroupMetadataValue.MemberMetadata m
            : inAddedOrder(k.group(), v.members(), GroupMetadataValue.MemberMetadata::memberId)) {
            ids.add(m.memberId());
        }
        writtenOrder.put(k.group(), ids);
    }

    /** The runtime's write: replay the records, append them, commit, complete the append future. */
    private <T> T write(Function<GroupCoordinatorShard, CoordinatorResult<T, CoordinatorRecord>> op,
                        long producerId, short producerEpoch) {
        refuseWhileLoading();
        // An operation that throws leaves memory as it left it: CoordinatorWriteEvent#run only
        // completes the event with the exception, and the runtime reverts to a snapshot only when
        // writing a batch fails (CoordinatorContext#failCurrentBatch). A simple group an offset
        // commit created before throwing, or refused for every partition, stays in memory.
        CoordinatorResult<T, CoordinatorRecord> result = op.apply(shard);
        touchOrder();
        for (CoordinatorRecord r : result.records()) {
            if (result.replayRecords()) {
                shard.replay(lastOffset, producerId, producerEpoch, r);
            }
            log.add(new Entry(r, producerId, producerEpoch, null));
            rememberWrittenOrder(r);
            currentRecords.add(producerId == LogRecordsShim.NO_PRODUCER_ID
                ? recordJson(r, true)
                : txnRecordJson(r, producerId, producerEpoch));
            lastOffset++;
        }
        snapshots.idempotentCreateSnapshot(lastOffset);
        snapshots.deleteSnapshotsUpTo(lastOffset);
        if (result.appendFuture() != null) {
            result.appendFuture().complete(null);
        }
        return result.response();
    }

    /** What CoordinatorRuntime answers an operation on a partition that is loading. */
    private void refuseWhileLoading() {
        if (loading) {
            throw new CoordinatorLoadInProgressException("__consumer_offsets-0 is loading");
        }
    }

    private <T> T write(Function<GroupCoordinatorShard, CoordinatorResult<T, CoordinatorRecord>> op) {
        return write(op, LogRecordsShim.NO_PRODUCER_ID, LogRecordsShim.NO_PRODUCER_EPOCH);
    }

    private void advance(long toMs) {
        clock.nowMs = Math.max(clock.nowMs, toMs);
        Armed due;
        while ((due = timer.nextDue()) != null) {
            timer.armed.remove(due.key);
            Armed fired = due;
            try {
                write(s -> fired.op.generateRecords());
            } catch (RuntimeException e) {
                // The runtime logs a failed timer operation and goes on.
                System.err.println("timer " + fired.key + " failed: " + e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Events
    // ---------------------------------------------------------------------------------------

    ObjectNode handle(JsonNode event, int index) {
        currentAnswers.removeAll();
        currentRecords.removeAll();
        collectInputUuids(event);
        String type = event.path("type").asText();
        if (event.has("group_id")) {
            groupIds.add(event.get("group_id").asText());
        }
        for (JsonNode g : event.path("group_ids")) {
            groupIds.add(g.asText());
        }
        currentGroup = event.path("group_id").asText(null);
        Set<String> before = type.equals("JoinGroup") ? knownIds(event.path("group_id").asText()) : Set.of();
        switch (type) {
            case "JoinGroup" -> join(event, index);
            case "SyncGroup" -> sync(event, index);
            case "Heartbeat" -> heartbeat(event, index);
            case "LeaveGroup" -> leave(event, index);
            case "OffsetCommit" -> commit(event, index);
            case "TxnOffsetCommit" -> txnCommit(event, index);
            case "TxnMarker" -> marker(event, index);
            case "OffsetFetch" -> fetch(event, index);
            case "OffsetDelete" -> offsetDelete(event, index);
            case "DeleteGroups" -> deleteGroups(event, index);
            case "DescribeGroups" -> describe(event, index);
            case "ListGroups" -> list(event, index);
            case "AdvanceClock" -> advance(event.path("to_ms").asLong());
            case "Restart" -> restart();
            case "BeginLoad" -> beginLoad();
            case "CompleteLoad" -> completeLoad();
            default -> throw new IllegalArgumentException("not a classic group event: " + type);
        }
        touchOrder();
        collectParked();
        if (type.equals("JoinGroup") && event.path("member_id").asText().isEmpty()) {
            Set<String> seen = new LinkedHashSet<>(knownIds(event.path("group_id").asText()));
            seen.removeAll(before);
            currentAnswers.forEach(a -> {
                if (a.path("request").asInt() == index) {
                    seen.add(a.path("response").path("member_id").asText(""));
                }
            });
            for (String id : seen) {
                mapNewId(id, event.path("new_member_uuid").asText());
            }
        }
        ObjectNode out = Adapter.JSON.createObjectNode();
        out.set("answers", currentAnswers.deepCopy());
        out.set("records", currentRecords.deepCopy());
        return out;
    }

    private void touchOrder() {
        if (loading) {
            return;  // nothing in memory: the order comes back with the load
        }
        for (String id : groupIds) {
            List<String> order = addedOrder.computeIfAbsent(id, k -> new ArrayList<>());
            ClassicGroup g = classicGroup(id);
            if (g == null) {
                order.clear();
                continue;
            }
            order.retainAll(g.allMemberIds());
            for (ClassicGroupMember m : g.allMembers()) {
                if (!order.contains(m.memberId())) {
                    order.add(m.memberId());
                }
            }
        }
    }

    private <T> List<T> inAddedOrder(String group, Collection<T> items, Function<T, String> idOf) {
        List<String> order = group == null ? List.of() : addedOrder.getOrDefault(group, List.of());
        List<T> sorted = new ArrayList<>(items);
        sorted.sort(java.util.Comparator.comparingInt(t -> {
            int at = order.indexOf(idOf.apply(t));
            return at < 0 ? Integer.MAX_VALUE : at;
        }));
        return sorted;
    }

    private void mapNewId(String id, String vectorUuid) {
        Matcher m = UUID_FORM.matcher(id);
        while (m.find()) {
            String k = m.group();
            if (!uuidOut.containsKey(k) && !inputUuids.contains(k)) {
                uuidOut.put(k, vectorUuid);
                memberIn.put(id.replace(k, vectorUuid), id);
            }
        }
    }

    private void collectInputUuids(JsonNode node) {
        if (node.isTextual()) {
            Matcher m = UUID_FORM.matcher(node.asText());
            while (m.find()) {
                inputUuids.add(m.group());
            }
        }
        node.forEach(this::collectInputUuids);
    }

    private Set<String> knownIds(String groupId) {
        Set<String> ids = new LinkedHashSet<>();
        ClassicGroup g = classicGroup(groupId);
        if (g != null) {
            ids.addAll(g.allMemberIds());
            ids.addAll(pendingMembers(g));
        }
        return ids;
    }

    /** A member id the vector sends, as Kafka knows it. */
    private String in(String memberId) {
        return memberIn.getOrDefault(memberId, memberId);
    }

    private void answer(int index, ObjectNode response) {
        ObjectNode a = currentAnswers.addObject();
        a.put("request", index);
        a.set("response", response);
    }

    private void park(int index, String type, int version, CompletableFuture<?> future) {
        parked.put(index, future);
        parkedType.put(index, type);
        parkedVersion.put(index, version);
        parkedGroup.put(index, currentGroup);
    }

    /** Every parked request whose future is now complete is answered by this event. */
    private void collectParked() {
        Iterator<Map.Entry<Integer, CompletableFuture<?>>> it = parked.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Integer, CompletableFuture<?>> e = it.next();
            if (!e.getValue().isDone()) {
                continue;
            }
            it.remove();
            Object response = e.getValue().join();
            String type = parkedType.remove(e.getKey());
            int version = parkedVersion.remove(e.getKey());
            String group = parkedGroup.remove(e.getKey());
            answer(e.getKey(), type.equals("JoinGroup")
                ? joinJson(group, (JoinGroupResponseData) response, version)
                : syncJson((SyncGroupResponseData) response));
        }
    }

    private static boolean emptyGroupId(JsonNode event) {
        return event.path("group_id").asText("").isEmpty();
    }

    private AuthorizableRequestContext context(ApiKeys api, int version, JsonNode event) {
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
                return api.id;
            }

            public int requestVersion() {
                return version;
            }

            public String clientId() {
                return clientId;
            }

            public int correlationId() {
                return 0;
            }
        };
    }

    private static Errors errorOf(RuntimeException e) {
        return Errors.forException(e);
    }

    private static String nullableText(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? null : node.asText();
    }

    private static byte[] bytes(JsonNode node) {
        return HEX.parseHex(node.asText(""));
    }

    private void join(JsonNode e, int index) {
        int version = e.path("version").asInt(9);
        if (emptyGroupId(e)) {
            answer(index, joinJson(null, new JoinGroupResponseData().setMemberId(in(e.path("member_id").asText()))
                .setErrorCode(Errors.INVALID_GROUP_ID.code()), version));
            return;
        }
        int session = e.path("session_timeout_ms").asInt();
        if (session < config.classicGroupMinSessionTimeoutMs() || session > config.classicGroupMaxSessionTimeoutMs()) {
            answer(index, joinJson(null, new JoinGroupResponseData().setMemberId(in(e.path("member_id").asText()))
                .setErrorCode(Errors.INVALID_SESSION_TIMEOUT.code()), version));
            return;
        }
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
            new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        for (JsonNode p : e.path("protocols")) {
            protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                .setName(p.path("name").asText()).setMetadata(bytes(p.path("metadata"))));
        }
        JoinGroupRequestData wanted = new JoinGroupRequestData()
            .setGroupId(e.path("group_id").asText())
            .setMemberId(in(e.path("member_id").asText()))
            .setGroupInstanceId(nullableText(e.get("group_instance_id")))
            .setSessionTimeoutMs(session)
            .setRebalanceTimeoutMs(e.path("rebalance_timeout_ms").asInt())
            .setProtocolType(e.path("protocol_type").asText())
            .setProtocols(protocols)
            .setReason(nullableText(e.get("reason")));
        JoinGroupRequestData request = new JoinGroupRequest(
            atVersion(wanted, version, "JoinGroup", r -> new JoinGroupRequestData(r, (short) version)), (short) version).data();
        CompletableFuture<JoinGroupResponseData> future = new CompletableFuture<>();
        AuthorizableRequestContext ctx = context(ApiKeys.JOIN_GROUP, version, e);
        try {
            write(s -> s.classicGroupJoin(ctx, request, future));
        } catch (RuntimeException ex) {
            if (!future.isDone()) {
                future.complete(new JoinGroupResponseData().setErrorCode(errorOf(ex).code()));
            }
        }
        park(index, "JoinGroup", version, future);
    }

    private void sync(JsonNode e, int index) {
        if (emptyGroupId(e)) {
            answer(index, syncJson(new SyncGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code())));
            return;
        }
        List<SyncGroupRequestData.SyncGroupRequestAssignment> assignments = new ArrayList<>();
        for (JsonNode a : e.path("assignments")) {
            assignments.add(new SyncGroupRequestData.SyncGroupRequestAssignment()
                .setMemberId(in(a.path("member_id").asText())).setAssignment(bytes(a.path("assignment"))));
        }
        SyncGroupRequestData wanted = new SyncGroupRequestData()
            .setGroupId(e.path("group_id").asText())
            .setGenerationId(e.path("generation_id").asInt())
            .setMemberId(in(e.path("member_id").asText()))
            .setGroupInstanceId(nullableText(e.get("group_instance_id")))
            .setProtocolType(nullableText(e.get("protocol_type")))
            .setProtocolName(nullableText(e.get("protocol_name")))
            .setAssignments(assignments);
        int version = e.path("version").asInt(5);
        SyncGroupRequestData request = atVersion(wanted, version, "SyncGroup", r -> new SyncGroupRequestData(r, (short) version));
        if (!new SyncGroupRequest(request, (short) version).areMandatoryProtocolTypeAndNamePresent()) {
            // KafkaApis#handleSyncGroupRequest refuses it before the coordinator sees it.
            answer(index, syncJson(new SyncGroupResponseData().setErrorCode(Errors.INCONSISTENT_GROUP_PROTOCOL.code())));
            return;
        }
        CompletableFuture<SyncGroupResponseData> future = new CompletableFuture<>();
        AuthorizableRequestContext ctx = context(ApiKeys.SYNC_GROUP, version, e);
        try {
            write(s -> s.classicGroupSync(ctx, request, future));
        } catch (RuntimeException ex) {
            if (!future.isDone()) {
                future.complete(new SyncGroupResponseData().setErrorCode(errorOf(ex).code()));
            }
        }
        park(index, "SyncGroup", version, future);
    }

    private void heartbeat(JsonNode e, int index) {
        if (emptyGroupId(e)) {
            answer(index, errorJson("HeartbeatResponse", Errors.INVALID_GROUP_ID));
            return;
        }
        int version = e.path("version").asInt(4);
        HeartbeatRequestData wanted = new HeartbeatRequestData()
            .setGroupId(e.path("group_id").asText())
            .setGenerationId(e.path("generation_id").asInt())
            .setMemberId(in(e.path("member_id").asText()))
            .setGroupInstanceId(nullableText(e.get("group_instance_id")));
        HeartbeatRequestData request = atVersion(wanted, version, "Heartbeat", r -> new HeartbeatRequestData(r, (short) version));
        AuthorizableRequestContext ctx = context(ApiKeys.HEARTBEAT, version, e);
        Errors error;
        try {
            HeartbeatResponseData r = write(s -> s.classicGroupHeartbeat(ctx, request));
            error = Errors.forCode(r.errorCode());
        } catch (RuntimeException ex) {
            error = errorOf(ex);
        }
        if (error == Errors.COORDINATOR_LOAD_IN_PROGRESS) {
            // GroupCoordinatorService#heartbeat: the group is still loading, the member carries on.
            error = Errors.NONE;
        }
        answer(index, errorJson("HeartbeatResponse", error));
    }

    private void leave(JsonNode e, int index) {
        if (emptyGroupId(e)) {
            answer(index, leaveJson(new LeaveGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code())));
            return;
        }
        List<LeaveGroupRequestData.MemberIdentity> members = new ArrayList<>();
        for (JsonNode m : e.path("members")) {
            members.add(new LeaveGroupRequestData.MemberIdentity()
                .setMemberId(in(m.path("member_id").asText()))
                .setGroupInstanceId(nullableText(m.get("group_instance_id")))
                .setReason(nullableText(m.get("reason"))));
        }
        int version = e.path("version").asInt(5);
        LeaveGroupRequestData wanted = new LeaveGroupRequestData().setGroupId(e.path("group_id").asText());
        if (version < 3 && members.size() == 1) {
            // Below v3 the request carries one MemberId and no Members array.
            wanted.setMemberId(members.get(0).memberId());
        } else {
            wanted.setMembers(members);
        }
        // KafkaApis hands the coordinator the request's normalized data (v0-2: one member).
        LeaveGroupRequestData request = atVersion(wanted, version, "LeaveGroup",
            r -> LeaveGroupRequest.parse(r, (short) version)).normalizedData();
        AuthorizableRequestContext ctx = context(ApiKeys.LEAVE_GROUP, version, e);
        LeaveGroupResponseData response;
        try {
            response = write(s -> s.classicGroupLeave(ctx, request));
        } catch (RuntimeException ex) {
            Errors error = errorOf(ex);
            if (error == Errors.UNKNOWN_MEMBER_ID) {
                // GroupCoordinatorService: the group was not found, every member is unknown.
                response = new LeaveGroupResponseData();
                for (LeaveGroupRequestData.MemberIdentity m : request.members()) {
                    response.members().add(new LeaveGroupResponseData.MemberResponse()
                        .setMemberId(m.memberId()).setGroupInstanceId(m.groupInstanceId())
                        .setErrorCode(Errors.UNKNOWN_MEMBER_ID.code()));
                }
            } else {
                response = new LeaveGroupResponseData().setErrorCode(error.code());
            }
        }
        // KafkaApis sends LeaveGroupResponse(data, version): below v3 one error, no member list.
        answer(index, leaveJson(new LeaveGroupResponse(response, (short) version).data()));
    }

    private void commit(JsonNode e, int index) {
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> topics = new ArrayList<>();
        for (JsonNode t : e.path("topics")) {
            List<OffsetCommitRequestData.OffsetCommitRequestPartition> partitions = new ArrayList<>();
            for (JsonNode p : t.path("partitions")) {
                partitions.add(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                    .setPartitionIndex(p.path("partition").asInt())
                    .setCommittedOffset(p.path("committed_offset").asLong())
                    .setCommittedLeaderEpoch(p.path("committed_leader_epoch").asInt(-1))
                    .setCommittedMetadata(nullableText(p.get("committed_metadata"))));
            }
            OffsetCommitRequestData.OffsetCommitRequestTopic topic = new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setName(t.path("name").asText()).setPartitions(partitions);
            String topicId = nullableText(t.get("topic_id"));
            if (topicId != null) {
                topic.setTopicId(uuidOf(topicId));
            }
            topics.add(topic);
        }
        int version = e.path("version").asInt(9);
        OffsetCommitRequestData wanted = new OffsetCommitRequestData()
            .setGroupId(e.path("group_id").asText())
            .setGenerationIdOrMemberEpoch(e.path("generation_id_or_member_epoch").asInt(-1))
            .setMemberId(in(e.path("member_id").asText("")))
            .setGroupInstanceId(nullableText(e.get("group_instance_id")))
            .setRetentionTimeMs(e.path("retention_time_ms").asLong(-1))
            .setTopics(topics);
        boolean byId = version >= 10;
        if (byId && topics.stream().anyMatch(t -> t.topicId().equals(Uuid.ZERO_UUID))) {
            throw new Unsupported("OffsetCommit v" + version + " names each topic by its id alone "
                + "(OffsetCommitRequest.json: Name in v0-9, TopicId from v10); a topic without a topic_id "
                + "cannot be sent at this version");
        }
        OffsetCommitRequestData request = atVersion(wanted, version, "OffsetCommit",
            r -> new OffsetCommitRequestData(r, (short) version));
        if (byId) {
            // KafkaApis resolves each id to its name from the metadata image before the coordinator
            // sees the request: the vector's name is that topic's.
            for (int i = 0; i < topics.size(); i++) {
                request.topics().get(i).setName(topics.get(i).name());
            }
        }
        AuthorizableRequestContext ctx = context(ApiKeys.OFFSET_COMMIT, version, e);
        OffsetCommitResponseData response;
        try {
            response = write(s -> s.commitOffset(ctx, request));
        } catch (RuntimeException ex) {
            response = OffsetCommitRequest.getErrorResponse(request, errorOf(ex));
        }
        ObjectNode out = typed("OffsetCommitResponse");
        ArrayNode ts = out.putArray("topics");
        for (OffsetCommitResponseData.OffsetCommitResponseTopic t : response.topics()) {
            ObjectNode tn = ts.addObject();
            tn.put("name", t.name());
            ArrayNode ps = tn.putArray("partitions");
            t.partitions().forEach(p -> partitionResult(ps, p.partitionIndex(), p.errorCode()));
        }
        answer(index, out);
    }

    private void txnCommit(JsonNode e, int index) {
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> topics = new ArrayList<>();
        for (JsonNode t : e.path("topics")) {
            List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition> partitions = new ArrayList<>();
            for (JsonNode p : t.path("partitions")) {
                partitions.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                    .setPartitionIndex(p.path("partition").asInt())
                    .setCommittedOffset(p.path("committed_offset").asLong())
                    .setCommittedLeaderEpoch(p.path("committed_leader_epoch").asInt(-1))
                    .setCommittedMetadata(nullableText(p.get("committed_metadata"))));
            }
            topics.add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                .setName(t.path("name").asText()).setPartitions(partitions));
        }
        long producerId = e.path("producer_id").asLong();
        short producerEpoch = (short) e.path("producer_epoch").asInt();
        inTransaction.add(producerId);
        TxnOffsetCommitRequestData request = new TxnOffsetCommitRequestData()
            .setTransactionalId(e.path("transactional_id").asText())
            .setProducerId(producerId)
            .setProducerEpoch(producerEpoch)
            .setGroupId(e.path("group_id").asText())
            .setGenerationId(e.path("generation_id").asInt(-1))
            .setMemberId(in(e.path("member_id").asText("")))
            .setGroupInstanceId(nullableText(e.get("group_instance_id")))
            .setTopics(topics);
        TxnOffsetCommitResponseData response;
        if (emptyGroupId(e)) {
            response = TxnOffsetCommitRequest.getErrorResponse(request, Errors.INVALID_GROUP_ID);
        } else {
            AuthorizableRequestContext ctx = context(ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.TXN_OFFSET_COMMIT.latestVersion(), e);
            try {
                response = write(s -> s.commitTransactionalOffset(ctx, request), producerId, producerEpoch);
            } catch (RuntimeException ex) {
                response = TxnOffsetCommitRequest.getErrorResponse(request, errorOf(ex));
            }
        }
        ObjectNode out = typed("TxnOffsetCommitResponse");
        ArrayNode ts = out.putArray("topics");
        for (TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic t : response.topics()) {
            ObjectNode tn = ts.addObject();
            tn.put("name", t.name());
            ArrayNode ps = tn.putArray("partitions");
            t.partitions().forEach(p -> partitionResult(ps, p.partitionIndex(), p.errorCode()));
        }
        answer(index, out);
    }

    /** The transaction coordinator's marker: written to the partition, then replayed (as the runtime does). */
    private void marker(JsonNode e, int index) {
        long producerId = e.path("producer_id").asLong();
        short producerEpoch = (short) e.path("producer_epoch").asInt();
        boolean commit = e.path("commit").asBoolean();
        TransactionResult result = commit ? TransactionResult.COMMIT : TransactionResult.ABORT;
        Errors error = Errors.NONE;
        if (loading) {  // the marker names the partition, which the runtime refuses while it loads
            answer(index, errorJson("TxnMarkerResponse", Errors.COORDINATOR_LOAD_IN_PROGRESS));
            return;
        }
        if (!inTransaction.remove(producerId)) {
            answer(index, errorJson("TxnMarkerResponse", error));
            return;
        }
        try {
            shard.replayEndTransactionMarker(producerId, producerEpoch, result);
            log.add(new Entry(null, producerId, producerEpoch, result));
            lastOffset++;
            snapshots.idempotentCreateSnapshot(lastOffset);
            snapshots.deleteSnapshotsUpTo(lastOffset);
            ObjectNode end = currentRecords.addObject();
            end.put("type", "TxnEnd");
            end.put("producer_id", producerId);
            end.put("producer_epoch", producerEpoch);
            end.put("commit", commit);
            end.put("coordinator_epoch", e.path("coordinator_epoch").asInt(0));
        } catch (RuntimeException ex) {
            error = errorOf(ex);
        }
        answer(index, errorJson("TxnMarkerResponse", error));
    }

    private void fetch(JsonNode e, int index) {
        OffsetFetchRequestData.OffsetFetchRequestGroup request = new OffsetFetchRequestData.OffsetFetchRequestGroup()
            .setGroupId(e.path("group_id").asText());
        JsonNode topics = e.get("topics");
        boolean all = topics == null || topics.isNull();
        if (!all) {
            List<OffsetFetchRequestData.OffsetFetchRequestTopics> ts = new ArrayList<>();
            for (JsonNode t : topics) {
                List<Integer> ps = new ArrayList<>();
                t.path("partitions").forEach(p -> ps.add(p.asInt()));
                ts.add(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(t.path("name").asText())
                    .setPartitionIndexes(ps));
            }
            request.setTopics(ts);
        } else {
            request.setTopics(null);
        }
        // A require-stable fetch is a write operation reading the latest state (Long.MAX_VALUE),
        // any other a read at the last committed offset (GroupCoordinatorService#fetchOffsets).
        long at = e.path("require_stable").asBoolean(false) ? Long.MAX_VALUE : lastOffset;
        ObjectNode out = typed("OffsetFetchResponse");
        try {
            refuseWhileLoading();
            OffsetFetchResponseData.OffsetFetchResponseGroup r = all
                ? CoordinatorShardShim.fetchAllOffsets(shard, request, at) : shard.fetchOffsets(request, at);
            out.put("error", Errors.forCode(r.errorCode()).name());
            ArrayNode ts = out.putArray("topics");
            for (OffsetFetchResponseData.OffsetFetchResponseTopics t : r.topics()) {
                ObjectNode tn = ts.addObject();
                tn.put("name", t.name());
                ArrayNode ps = tn.putArray("partitions");
                for (OffsetFetchResponseData.OffsetFetchResponsePartitions p : t.partitions()) {
                    ObjectNode pn = ps.addObject();
                    pn.put("partition", p.partitionIndex());
                    pn.put("committed_offset", p.committedOffset());
                    pn.put("committed_leader_epoch", p.committedLeaderEpoch());
                    pn.put("metadata", p.metadata());
                    pn.put("error", Errors.forCode(p.errorCode()).name());
                }
            }
        } catch (RuntimeException ex) {
            out.put("error", errorOf(ex).name());
            out.putArray("topics");
        }
        answer(index, out);
    }

    private void offsetDelete(JsonNode e, int index) {
        ObjectNode out = typed("OffsetDeleteResponse");
        if (emptyGroupId(e)) {
            out.put("error", Errors.INVALID_GROUP_ID.name());
            out.putArray("topics");
            answer(index, out);
            return;
        }
        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection topics =
            new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        for (JsonNode t : e.path("topics")) {
            List<OffsetDeleteRequestData.OffsetDeleteRequestPartition> ps = new ArrayList<>();
            t.path("partitions").forEach(p -> ps.add(new OffsetDeleteRequestData.OffsetDeleteRequestPartition()
                .setPartitionIndex(p.asInt())));
            topics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(t.path("name").asText())
                .setPartitions(ps));
        }
        OffsetDeleteRequestData request = new OffsetDeleteRequestData().setGroupId(e.path("group_id").asText())
            .setTopics(topics);
        AuthorizableRequestContext ctx = context(ApiKeys.OFFSET_DELETE, ApiKeys.OFFSET_DELETE.latestVersion(), e);
        try {
            OffsetDeleteResponseData r = write(s -> s.deleteOffsets(ctx, request));
            out.put("error", Errors.forCode(r.errorCode()).name());
            ArrayNode ts = out.putArray("topics");
            for (OffsetDeleteResponseData.OffsetDeleteResponseTopic t : r.topics()) {
                ObjectNode tn = ts.addObject();
                tn.put("name", t.name());
                ArrayNode ps = tn.putArray("partitions");
                t.partitions().forEach(p -> partitionResult(ps, p.partitionIndex(), p.errorCode()));
            }
        } catch (RuntimeException ex) {
            out.put("error", errorOf(ex).name());
            out.putArray("topics");
        }
        answer(index, out);
    }

    private void deleteGroups(JsonNode e, int index) {
        List<String> ids = new ArrayList<>();
        e.path("group_ids").forEach(g -> ids.add(g.asText()));
        AuthorizableRequestContext ctx = context(ApiKeys.DELETE_GROUPS, ApiKeys.DELETE_GROUPS.latestVersion(), e);
        ObjectNode out = typed("DeleteGroupsResponse");
        ArrayNode results = out.putArray("results");
        try {
            DeleteGroupsResponseData.DeletableGroupResultCollection r = write(s -> s.deleteGroups(ctx, ids));
            for (DeleteGroupsResponseData.DeletableGroupResult g : r) {
                ObjectNode gn = results.addObject();
                gn.put("group_id", g.groupId());
                gn.put("error", Errors.forCode(g.errorCode()).name());
            }
        } catch (RuntimeException ex) {
            for (String id : ids) {
                ObjectNode gn = results.addObject();
                gn.put("group_id", id);
                gn.put("error", errorOf(ex).name());
            }
        }
        answer(index, out);
    }

    private void describe(JsonNode e, int index) {
        List<String> ids = new ArrayList<>();
        e.path("group_ids").forEach(g -> ids.add(g.asText()));
        AuthorizableRequestContext ctx = context(ApiKeys.DESCRIBE_GROUPS, ApiKeys.DESCRIBE_GROUPS.latestVersion(), e);
        ObjectNode out = typed("DescribeGroupsResponse");
        ArrayNode gs = out.putArray("groups");
        List<DescribeGroupsResponseData.DescribedGroup> described;
        try {
            refuseWhileLoading();
            described = shard.describeGroups(ctx, ids, lastOffset);
        } catch (RuntimeException ex) {
            described = DescribeGroupsRequest.getErrorDescribedGroupList(ids, errorOf(ex));
        }
        for (DescribeGroupsResponseData.DescribedGroup g : described) {
            ObjectNode gn = gs.addObject();
            gn.put("group_id", g.groupId());
            gn.put("error", Errors.forCode(g.errorCode()).name());
            gn.put("state", g.groupState());
            gn.put("protocol_type", g.protocolType());
            gn.put("protocol_data", g.protocolData());
            ArrayNode ms = gn.putArray("members");
            for (DescribeGroupsResponseData.DescribedGroupMember m
                : inAddedOrder(g.groupId(), g.members(), DescribeGroupsResponseData.DescribedGroupMember::memberId)) {
                ObjectNode mn = ms.addObject();
                mn.put("member_id", m.memberId());
                mn.put("group_instance_id", m.groupInstanceId());
                mn.put("client_id", m.clientId());
                mn.put("client_host", m.clientHost());
                mn.put("metadata", HEX.formatHex(m.memberMetadata()));
                mn.put("assignment", HEX.formatHex(m.memberAssignment()));
            }
        }
        answer(index, out);
    }

    private void list(JsonNode e, int index) {
        List<String> states = new ArrayList<>();
        e.path("states_filter").forEach(s -> states.add(s.asText()));
        ObjectNode out = typed("ListGroupsResponse");
        if (loading) {
            // GroupCoordinatorService#listGroups: one partition's failure fails the whole answer.
            out.put("error", Errors.COORDINATOR_LOAD_IN_PROGRESS.name());
            out.putArray("groups");
            answer(index, out);
            return;
        }
        List<ListGroupsResponseData.ListedGroup> listed = new ArrayList<>(shard.listGroups(states, List.of(), lastOffset));
        // The response's order is a HashMap's; the form lists groups by id.
        listed.sort((a, b) -> a.groupId().compareTo(b.groupId()));
        out.put("error", Errors.NONE.name());
        ArrayNode gs = out.putArray("groups");
        for (ListGroupsResponseData.ListedGroup g : listed) {
            ObjectNode gn = gs.addObject();
            gn.put("group_id", g.groupId());
            gn.put("protocol_type", g.protocolType());
            gn.put("state", g.groupState());
        }
        answer(index, out);
    }

    /** A failover: the shard unloads (parked requests answered NOT_COORDINATOR), a new one replays the log. */
    private void restart() {
        unload();
        load();
    }

    /** The partition unloads (parked requests answered NOT_COORDINATOR, its timers cancelled). */
    private void unload() {
        if (!loading) {
            shard.onUnloaded();
            collectParked();
        }
        parked.clear();
        parkedType.clear();
        parkedVersion.clear();
        parkedGroup.clear();
        timer.armed.clear();
        loading = false;
    }

    private void beginLoad() {
        unload();
        loading = true;
    }

    private void completeLoad() {
        if (loading) {
            load();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Output
    // ---------------------------------------------------------------------------------------

    private static ObjectNode typed(String type) {
        ObjectNode n = Adapter.JSON.createObjectNode();
        n.put("type", type);
        return n;
    }

    private static ObjectNode errorJson(String type, Errors error) {
        ObjectNode n = typed(type);
        n.put("error", error.name());
        return n;
    }

    private static void partitionResult(ArrayNode ps, int partition, short errorCode) {
        ObjectNode pn = ps.addObject();
        pn.put("partition", partition);
        pn.put("error", Errors.forCode(errorCode).name());
    }

    /** The answer as the broker sends it: JoinGroupResponse normalises the protocol name by version. */
    private ObjectNode joinJson(String group, JoinGroupResponseData data, int version) {
        JoinGroupResponseData r = new JoinGroupResponse(data, (short) version).data();
        ObjectNode n = typed("JoinGroupResponse");
        n.put("error", Errors.forCode(r.errorCode()).name());
        n.put("generation_id", r.generationId());
        n.put("protocol_type", r.protocolType());
        n.put("protocol_name", r.protocolName());
        n.put("leader", r.leader());
        n.put("skip_assignment", r.skipAssignment());
        n.put("member_id", r.memberId());
        ArrayNode ms = n.putArray("members");
        for (JoinGroupResponseData.JoinGroupResponseMember m
            : inAddedOrder(group, r.members(), JoinGroupResponseData.JoinGroupResponseMember::memberId)) {
            ObjectNode mn = ms.addObject();
            mn.put("member_id", m.memberId());
            mn.put("group_instance_id", m.groupInstanceId());
            mn.put("metadata", HEX.formatHex(m.metadata()));
        }
        return n;
    }

    private static ObjectNode syncJson(SyncGroupResponseData r) {
        ObjectNode n = typed("SyncGroupResponse");
        n.put("error", Errors.forCode(r.errorCode()).name());
        n.put("protocol_type", r.protocolType());
        n.put("protocol_name", r.protocolName());
        n.put("assignment", HEX.formatHex(r.assignment()));
        return n;
    }

    private static ObjectNode leaveJson(LeaveGroupResponseData r) {
        ObjectNode n = typed("LeaveGroupResponse");
        n.put("error", Errors.forCode(r.errorCode()).name());
        ArrayNode ms = n.putArray("members");
        for (LeaveGroupResponseData.MemberResponse m : r.members()) {
            ObjectNode mn = ms.addObject();
            mn.put("member_id", m.memberId());
            mn.put("group_instance_id", m.groupInstanceId());
            mn.put("error", Errors.forCode(m.errorCode()).name());
        }
        return n;
    }

    private static String uuidText(Uuid id) {
        return new java.util.UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
    }

    private static Uuid uuidOf(String text) {
        java.util.UUID u = java.util.UUID.fromString(text);
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    /** A record in groupspec's form (docs/conformance.md, "Machine classic_group"). */
    private ObjectNode recordJson(CoordinatorRecord r, boolean tagged) {
        ObjectNode n = Adapter.JSON.createObjectNode();
        if (tagged) {
            n.put("type", "CoordinatorRecord");
        }
        ObjectNode key = n.putObject("key");
        ApiMessageAndVersion value = r.value();
        if (r.key() instanceof GroupMetadataKey k) {
            key.put("type", "GroupMetadataKey");
            key.put("group", k.group());
            if (value == null) {
                n.putNull("value");
            } else {
                GroupMetadataValue v = (GroupMetadataValue) value.message();
                ObjectNode vn = n.putObject("value");
                vn.put("type", "GroupMetadataValue");
                vn.put("protocol_type", v.protocolType());
                vn.put("generation", v.generation());
                vn.put("protocol", v.protocol());
                vn.put("leader", v.leader());
                vn.put("current_state_timestamp", v.currentStateTimestamp());
                ArrayNode ms = vn.putArray("members");
                for (GroupMetadataValue.MemberMetadata m
                    : inAddedOrder(k.group(), v.members(), GroupMetadataValue.MemberMetadata::memberId)) {
                    ObjectNode mn = ms.addObject();
                    mn.put("member_id", m.memberId());
                    mn.put("group_instance_id", m.groupInstanceId());
                    mn.put("client_id", m.clientId());
                    mn.put("client_host", m.clientHost());
                    mn.put("rebalance_timeout", m.rebalanceTimeout());
                    mn.put("session_timeout", m.sessionTimeout());
                    mn.put("subscription", HEX.formatHex(m.subscription()));
                    mn.put("assignment", HEX.formatHex(m.assignment()));
                }
            }
        } else if (r.key() instanceof OffsetCommitKey k) {
            key.put("type", "OffsetCommitKey");
            key.put("group", k.group());
            key.put("topic", k.topic());
            key.put("partition", k.partition());
            if (value == null) {
                n.putNull("value");
            } else {
                OffsetCommitValue v = (OffsetCommitValue) value.message();
                ObjectNode vn = n.putObject("value");
                vn.put("type", "OffsetCommitValue");
                vn.put("offset", v.offset());
                vn.put("leader_epoch", v.leaderEpoch());
                vn.put("metadata", v.metadata());
                vn.put("commit_timestamp", v.commitTimestamp());
                vn.put("expire_timestamp", v.expireTimestamp());
                vn.put("topic_id", uuidText(v.topicId()));
            }
        } else {
            throw new IllegalStateException("a record the classic group adapter has no form for: " + r.key());
        }
        if (value == null) {
            n.putNull("value_version");
        } else {
            n.put("value_version", value.version());
        }
        return n;
    }

    private ObjectNode txnRecordJson(CoordinatorRecord r, long producerId, short producerEpoch) {
        ObjectNode n = typed("TxnRecord");
        n.set("record", recordJson(r, false));
        n.put("producer_id", producerId);
        n.put("producer_epoch", producerEpoch);
        return n;
    }

    // ---------------------------------------------------------------------------------------
    // The view
    // ---------------------------------------------------------------------------------------

    private ClassicGroup classicGroup(String groupId) {
        if (loading) {
            return null;
        }
        try {
            Group g = groups.group(groupId);
            return g instanceof ClassicGroup c ? c : null;
        } catch (ApiException e) {
            return null;
        }
    }

    @SuppressWarnings("unchecked")
    private static Set<String> pendingMembers(ClassicGroup g) {
        return new TreeSet<>((Set<String>) field(g, "pendingJoinMembers"));
    }

    ObjectNode view() {
        touchOrder();
        ObjectNode v = Adapter.JSON.createObjectNode();
        v.put("now_ms", clock.nowMs);
        ArrayNode gs = v.putArray("groups");
        Map<String, Map<List<Object>, OffsetAndMetadata>> committed = committedOffsets();
        Map<String, Map<Long, Map<List<Object>, OffsetAndMetadata>>> pending = pendingOffsets();
        for (String id : groupIds) {
            ClassicGroup g = classicGroup(id);
            if (g == null) {
                continue;
            }
            ObjectNode gn = gs.addObject();
            gn.put("group_id", id);
            gn.put("state", g.currentState().toString());
            gn.put("protocol_type", g.protocolType().orElse(null));
            gn.put("protocol_name", g.protocolName().orElse(null));
            gn.put("generation_id", g.generationId());
            gn.put("leader_id", g.leaderOrNull());
            @SuppressWarnings("unchecked")
            Optional<Long> stamp = (Optional<Long>) field(g, "currentStateTimestamp");
            if (stamp.isPresent()) {
                gn.put("state_timestamp_ms", stamp.get());
            } else {
                gn.putNull("state_timestamp_ms");
            }
            ArrayNode ms = gn.putArray("members");
            for (ClassicGroupMember m : inAddedOrder(id, g.allMembers(), ClassicGroupMember::memberId)) {
                ObjectNode mn = ms.addObject();
                mn.put("member_id", m.memberId());
                mn.put("group_instance_id", m.groupInstanceId().orElse(null));
                mn.put("client_id", m.clientId());
                mn.put("client_host", m.clientHost());
                mn.put("session_timeout_ms", m.sessionTimeoutMs());
                mn.put("rebalance_timeout_ms", m.rebalanceTimeoutMs());
                ArrayNode ps = mn.putArray("protocols");
                m.supportedProtocols().forEach(p -> {
                    ObjectNode pn = ps.addObject();
                    pn.put("name", p.name());
                    pn.put("metadata", HEX.formatHex(p.metadata()));
                });
                mn.put("assignment", HEX.formatHex(m.assignment()));
                mn.put("awaiting_join", m.isAwaitingJoin());
                mn.put("awaiting_sync", m.isAwaitingSync());
                mn.put("is_new", m.isNew());
            }
            ArrayNode pm = gn.putArray("pending_members");
            pendingMembers(g).forEach(pm::add);
            ArrayNode psync = gn.putArray("pending_sync");
            new TreeSet<>(g.allPendingSyncMembers()).forEach(psync::add);
            ArrayNode offs = gn.putArray("offsets");
            committed.getOrDefault(id, Map.of()).forEach((tp, o) -> offs.add(offsetJson(tp, o)));
            ArrayNode pend = gn.putArray("pending_offsets");
            pending.getOrDefault(id, Map.of()).forEach((pid, byTp) -> byTp.forEach((tp, o) -> {
                ObjectNode pn = pend.addObject();
                pn.put("producer_id", pid);
                pn.set("offset", offsetJson(tp, o));
            }));
            ArrayNode ts = gn.putArray("timers");
            // Sorted by key as the run outputs it (Kafka's member-id UUIDs replaced by the vector's).
            Map<String, Long> timers = new TreeMap<>();
            groupTimers(id).forEach((key, deadline) -> timers.put(replaceUuids(key), deadline));
            timers.forEach((key, deadline) -> {
                ArrayNode t = ts.addArray();
                t.add(key);
                t.add(deadline);
            });
        }
        return v;
    }

    /**
     * A group's timers: its join and sync keys, and every heartbeat key naming it (a replaced static
     * member's stays armed until it fires). A heartbeat key is the longest group id it starts with.
     */
    private Map<String, Long> groupTimers(String id) {
        Map<String, Long> mine = new HashMap<>();
        for (Armed a : timer.armed.values()) {
            if (a.key.equals("join-" + id) || a.key.equals("sync-" + id)) {
                mine.put(a.key, a.deadlineMs);
            } else if (a.key.startsWith("heartbeat-" + id + "-")) {
                boolean longer = groupIds.stream().anyMatch(other -> other.length() > id.length()
                    && a.key.startsWith("heartbeat-" + other + "-"));
                if (!longer) {
                    mine.put(a.key, a.deadlineMs);
                }
            }
        }
        return mine;
    }

    private static ObjectNode offsetJson(List<Object> tp, OffsetAndMetadata o) {
        ObjectNode n = Adapter.JSON.createObjectNode();
        n.put("topic", (String) tp.get(0));
        n.put("partition", (Integer) tp.get(1));
        n.put("committed_offset", o.committedOffset);
        n.put("committed_leader_epoch", o.leaderEpoch.orElse(-1));
        n.put("metadata", o.metadata);
        n.put("commit_timestamp_ms", o.commitTimestampMs);
        n.put("expire_timestamp_ms", o.expireTimestampMs.orElse(-1));
        return n;
    }

    /** OffsetMetadataManager's committed offsets: group to (topic, partition) to offset, sorted. */
    private Map<String, Map<List<Object>, OffsetAndMetadata>> committedOffsets() {
        Object manager = field(shard, "offsetMetadataManager");
        return offsetsOf(field(manager, "offsets"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<List<Object>, OffsetAndMetadata>> offsetsOf(Object offsets) {
        Map<String, Map<String, Map<Integer, OffsetAndMetadata>>> byGroup =
            (Map<String, Map<String, Map<Integer, OffsetAndMetadata>>>) field(offsets, "offsetsByGroup");
        Map<String, Map<List<Object>, OffsetAndMetadata>> out = new TreeMap<>();
        byGroup.forEach((group, byTopic) -> {
            Map<List<Object>, OffsetAndMetadata> sorted = new TreeMap<>(ClassicRun::compareTp);
            byTopic.forEach((topic, byPartition) -> byPartition.forEach((p, o) -> sorted.put(List.of(topic, p), o)));
            out.put(group, sorted);
        });
        return out;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Map<Long, Map<List<Object>, OffsetAndMetadata>>> pendingOffsets() {
        Object manager = field(shard, "offsetMetadataManager");
        Map<Long, Object> byProducer = (Map<Long, Object>) field(manager, "pendingTransactionalOffsets");
        Map<String, Map<Long, Map<List<Object>, OffsetAndMetadata>>> out = new TreeMap<>();
        new TreeMap<>(byProducer).forEach((pid, offsets) -> offsetsOf(offsets).forEach((group, byTp) ->
            out.computeIfAbsent(group, g -> new TreeMap<>()).put(pid, byTp)));
        return out;
    }

    private static int compareTp(List<Object> a, List<Object> b) {
        int c = ((String) a.get(0)).compareTo((String) b.get(0));
        return c != 0 ? c : Integer.compare((Integer) a.get(1), (Integer) b.get(1));
    }

    private static Object field(Object target, String name) {
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

    /** Kafka's random UUIDs replaced by the vector's, in every string of the output. */
    void translateOut(JsonNode node) {
        if (uuidOut.isEmpty()) {
            return;
        }
        if (node instanceof ObjectNode o) {
            List<String> names = new ArrayList<>();
            o.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                JsonNode child = o.get(name);
                if (child.isTextual()) {
                    o.set(name, new TextNode(replaceUuids(child.asText())));
                } else {
                    translateOut(child);
                }
            }
            // The view lists pending members by id; Kafka's ids sorted before translation are
            // in an order of random UUIDs, so they are sorted again as the run names them.
            for (String name : List.of("pending_members", "pending_sync")) {
                if (o.get(name) instanceof ArrayNode pending) {
                    List<String> ids = new ArrayList<>();
                    pending.forEach(id -> ids.add(id.asText()));
                    ids.sort(null);
                    pending.removeAll();
                    ids.forEach(pending::add);
                }
            }
        } else if (node instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                JsonNode child = a.get(i);
                if (child.isTextual()) {
                    a.set(i, new TextNode(replaceUuids(child.asText())));
                } else {
                    translateOut(child);
                }
            }
        }
    }

    private String replaceUuids(String text) {
        Matcher m = UUID_FORM.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(uuidOut.getOrDefault(m.group(), m.group())));
        }
        m.appendTail(out);
        return out.toString();
    }
}

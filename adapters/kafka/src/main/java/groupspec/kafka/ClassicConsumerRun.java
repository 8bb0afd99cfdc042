package groupspec.kafka;

import static groupspec.kafka.KafkaObjects.nullableText;
import static groupspec.kafka.KafkaObjects.putNullable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.GroupRebalanceConfig;
import org.apache.kafka.clients.MockClient;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.clients.consumer.internals.ClassicConsumerAccess;
import org.apache.kafka.clients.consumer.internals.ConsumerCoordinator;
import org.apache.kafka.clients.consumer.internals.ConsumerMetadata;
import org.apache.kafka.clients.consumer.internals.ConsumerNetworkClient;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.clients.consumer.internals.RequestFuture;
import org.apache.kafka.clients.consumer.internals.SubscriptionState;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestTestUtils;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.MockTime;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * One classic-protocol consumer on Kafka 4.2.1's own client classes: {@link ConsumerCoordinator}
 * (with AbstractCoordinator's join loop, response handlers and Heartbeat timers),
 * {@link SubscriptionState}, {@link ConsumerMetadata} and {@link ConsumerNetworkClient}, over
 * kafka-clients' test {@link MockClient} and {@link MockTime} (the network and clock of upstream's
 * ConsumerCoordinatorTest), the clock moved only by the vector's polls.
 *
 * <p>This class plays what surrounds them in a ClassicKafkaConsumer, as that class does it:
 * subscribe (topics or a pattern), assign and unsubscribe are its calls on SubscriptionState and
 * the coordinator; a Poll moves the clock and runs {@code coordinator.poll(timer, false)} (the join
 * loop with a zero timer, as {@code updateAssignmentMetadataIfNeeded} runs it) and then a network
 * poll, which sends what the loop queued. An answer to JoinGroup or SyncGroup arrives while the
 * application's poll is still blocked in the join loop (ClassicKafkaConsumer#poll loops until its
 * timeout), so the driver delivers it and continues that poll. An OffsetFetchAnswered stands for a
 * poll whose {@code updateFetchPositions} fetches the committed offsets and gets that answer. A
 * commitSync, and close()'s auto-commit, is commitOffsetsSync's loop retold a round at a time
 * ({@link #sendSync}); commitAsync is Kafka's own, its callback recorded when Kafka runs it; an
 * OffsetCommitAnswered answers the oldest OffsetCommit in flight; Consumed seeks the fetch
 * positions; close() is ConsumerCoordinator#close split at its commit ({@link #close}). A
 * Metadata event is the cluster Kafka's own metadata fetches are answered with
 * ({@link ScriptedMetadata}). The heartbeat thread is run in passes after every event, at the
 * event's time (see ClassicConsumerAccess). A HeartbeatAnswered is delivered to the oldest
 * heartbeat in flight and processed at once by a network poll (the heartbeat thread's, which also
 * polls while it is disabled here: the application's next poll would process it otherwise). A
 * FindCoordinator is answered at once (node 0). An answer that finds no request of its kind in
 * flight is dropped, as a network would never deliver it.
 *
 * <p>The leader's assignor is Kafka's own (its name, protocols and subscription user data); its
 * {@code assign} returns the vector's {@code leader_assignments} when the event gives them, and
 * runs Kafka's over the answer's members otherwise (machine classic_assignors checks the
 * assignors themselves).
 */
final class ClassicConsumerRun {
    static final class Unsupported extends Exception {
        Unsupported(String message) {
            super(message);
        }
    }

    private static final int COORDINATOR_NODE = 0;

    /**
     * Where the vector's time 0 falls on Kafka's clock. MockClient counts a connection throttled
     * until a time strictly before now, 0 at first (MockClient.ConnectionState#notThrottled), so at
     * time 0 it sends nothing; upstream's tests run on a MockTime started at the wall clock. The
     * vector's clock is shifted by this much; no output carries an absolute time.
     */
    private static final long EPOCH_MS = 1_000_000L;

    private final MockTime time = new MockTime(0, EPOCH_MS, 0);
    private final String groupId;
    private final SubscriptionState subscriptions;
    private final ConsumerMetadata metadata;
    private final Recording network;
    private final ConsumerNetworkClient client;
    private final ConsumerCoordinator coordinator;
    private final Map<String, Integer> partitionCounts;
    private final ConsumerRebalanceListener listener = new Listener();
    private ArrayNode current = Adapter.JSON.createArrayNode();
    /** The cluster's topics as the run's Metadata events describe them; null: the run has none. */
    private Map<String, JsonNode> scriptedTopics;
    private final boolean autoCommit;
    /** A commitSync (or close()'s auto-commit) the application is blocked in, or null. */
    private Blocked blocked;
    /** close()'s membership operation while it waits for its commit, else null. */
    private String closing;
    private boolean closed;
    /** How the consumer subscribed before the event (for the wording of a refused mix), or null. */
    private String modeBefore;
    private String pattern;
    /** The last leader assignment's partitions handed straight from one owner to another. */
    private Set<TopicPartition> handedOver = Set.of();
    private boolean applicationPolling;
    private JsonNode leaderAssignments = Adapter.JSON.createArrayNode();
    private JsonNode fetchAnswer;

    private static final Set<String> APPLICATION_CALLS = Set.of("Subscribe", "SubscribePattern", "Assign",
        "Unsubscribe", "Poll", "CommitSync", "CommitAsync", "Consumed", "Close");

    /**
     * An application blocked in commitOffsetsSync (a commitSync, or close()'s auto-commit): the
     * offsets and the request in flight. The loop of ConsumerCoordinator#commitOffsetsSync is
     * retold step by step (see {@link #sendSync}), since the application cannot block here.
     */
    private static final class Blocked {
        final Map<TopicPartition, OffsetAndMetadata> offsets;
        final RequestFuture<Void> future;
        final boolean close;

        Blocked(Map<TopicPartition, OffsetAndMetadata> offsets, RequestFuture<Void> future, boolean close) {
            this.offsets = offsets;
            this.future = future;
            this.close = close;
        }
    }

    ClassicConsumerRun(JsonNode config, JsonNode events) throws Unsupported {
        groupId = config.path("group_id").asText("group");
        String instance = config.path("group_instance_id").isTextual() ? config.path("group_instance_id").asText() : null;
        String reset = config.path("auto_offset_reset").asText("latest");
        LogContext log = new LogContext();
        subscriptions = new SubscriptionState(log, AutoOffsetResetStrategy.fromString(reset));
        metadata = new ConsumerMetadata(0, 0, Long.MAX_VALUE, false, false, subscriptions, log, new ClusterResourceListeners());
        network = new Recording();
        partitionCounts = partitionCounts(events);
        for (JsonNode e : events) {
            if (e.path("type").asText().equals("Metadata")) {
                scriptedTopics = new TreeMap<>();  // the cluster knows no topic before the first refresh
                break;
            }
        }
        refreshMetadata();
        String rack = nullableText(config.path("client_rack"));
        long retryBackoff = config.path("retry_backoff_ms").asLong(100L);
        GroupRebalanceConfig rebalance = new GroupRebalanceConfig(
            config.path("session_timeout_ms").asInt(45_000), config.path("rebalance_timeout_ms").asInt(300_000),
            config.path("heartbeat_interval_ms").asInt(3_000), groupId, Optional.ofNullable(instance), rack,
            retryBackoff, config.path("retry_backoff_max_ms").asLong(Math.max(retryBackoff, 1000L)));
        autoCommit = config.path("enable_auto_commit").asBoolean(false);
        // retry.backoff.ms and request.timeout.ms as configured (ConsumerConfig's defaults 100 ms
        // and 30 s), max.poll.interval.ms 300 s; AbstractCoordinator gives a JoinGroup the
        // rebalance timeout and 5 s more itself
        client = new ConsumerNetworkClient(log, network, metadata, time, retryBackoff,
            config.path("request_timeout_ms").asInt(30_000), 300_000);
        List<ConsumerPartitionAssignor> assignors = new ArrayList<>();
        // A cooperative run over assignors Kafka builds for the eager protocol only: the
        // application's own assignors doing what Kafka's do, offering both protocols (Kafka then
        // checks the leader's cooperative assignment itself, as for any but cooperative-sticky).
        boolean cooperativeToo = config.path("protocol").asText("EAGER").equals("COOPERATIVE");
        for (JsonNode a : config.path("assignors")) {
            ConsumerPartitionAssignor kafka = assignor(a.asText());
            assignors.add(new ScriptedLeader(cooperativeToo ? new CooperativeToo(kafka) : kafka));
        }
        if (assignors.isEmpty()) {
            assignors.add(new ScriptedLeader(new RangeAssignor()));
        }
        ConsumerCoordinator[] self = new ConsumerCoordinator[1];
        coordinator = new ConsumerCoordinator(rebalance, log, client, assignors, metadata, subscriptions, new Metrics(time),
            "consumer", time, autoCommit, config.path("auto_commit_interval_ms").asInt(5000), null, false,
            Optional.empty(),
            Optional.of(() -> new ClassicConsumerAccess.ScriptedHeartbeatThread(() -> self[0])));
        self[0] = coordinator;
        String protocol = config.path("protocol").asText("EAGER");
        String derived = ClassicConsumerAccess.protocol(coordinator).name();
        if (!derived.equals(protocol)) {
            throw new Unsupported("config.protocol is " + protocol + ", but Kafka derives " + derived
                + " from the assignors " + config.path("assignors"));
        }
    }

    private static ConsumerPartitionAssignor assignor(String name) {
        switch (name) {
            case "range":
                return new RangeAssignor();
            case "roundrobin":
                return new RoundRobinAssignor();
            case "sticky":
                return new StickyAssignor();
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                return new ApplicationAssignor(name);
        }
    }

    /** Every topic the run names, with one partition more than the highest it names. */
    private static Map<String, Integer> partitionCounts(JsonNode node) {
        Map<String, Integer> counts = new TreeMap<>();
        collect(node, counts);
        return counts;
    }

    private static void collect(JsonNode node, Map<String, Integer> counts) {
        if (node.isArray()) {
            if (node.size() == 2 && node.get(0).isTextual() && node.get(1).isInt()) {
                counts.merge(node.get(0).asText(), node.get(1).asInt() + 1, Math::max);
            }
            node.forEach(n -> collect(n, counts));
        } else if (node.isObject()) {
            JsonNode topics = node.path("topics");
            if (topics.isArray()) {
                topics.forEach(t -> {
                    if (t.isTextual()) {
                        counts.merge(t.asText(), 1, Math::max);
                    }
                });
            }
            String topic = node.path("topic").isTextual() ? node.path("topic").asText()
                : node.path("name").isTextual() ? node.path("name").asText() : null;
            if (topic != null && node.path("partitions").isArray()) {
                int n = 1;
                for (JsonNode p : node.path("partitions")) {
                    n = Math.max(n, (p.isInt() ? p.asInt() : p.path("partition").asInt()) + 1);
                }
                counts.merge(topic, n, Math::max);
            }
            node.forEach(n -> collect(n, counts));
        }
    }

    /**
     * The metadata fetch that follows a subscription change: the topics of the last Metadata
     * event, or, in a run without one, every topic the run names.
     */
    private void refreshMetadata() {
        network.updateMetadata(cluster());
    }

    /**
     * The client's metadata fetches, answered by MockClient's network poll with the cluster as it
     * stands, only while the application polls (a new subscription's fetch, a leader's group
     * subscription, a pattern's fresh metadata). In a real client the heartbeat thread's network
     * polls may receive that answer first (a race); groupspec's metadata moves only with a
     * Metadata event, so the driver lets the application's next poll see a subscription change
     * before the refresh that follows it.
     */
    private final class ScriptedMetadata implements MockClient.MockMetadataUpdater {
        @Override
        public List<Node> fetchNodes() {
            return metadata.fetch().nodes();
        }

        @Override
        public boolean isUpdateNeeded() {
            return applicationPolling && metadata.updateRequested();
        }

        @Override
        public void update(Time now, MockClient.MetadataUpdate update) {
            metadata.updateWithCurrentRequestVersion(cluster(), false, now.milliseconds());
        }

        @Override
        public void updateWithCurrentMetadata(Time now) {
            update(now, null);
        }
    }

    /**
     * The cluster as a MetadataResponse. Node 0 (no rack) leads every partition without replica
     * racks and is the coordinator; each rack named gets a node of its own, in order of first
     * mention, and a partition's replicas are the nodes of its racks.
     */
    private MetadataResponse cluster() {
        if (scriptedTopics == null) {
            return RequestTestUtils.metadataUpdateWith(1, partitionCounts);
        }
        Map<String, Node> racks = new LinkedHashMap<>();
        List<Node> nodes = new ArrayList<>(List.of(new Node(COORDINATOR_NODE, "localhost", 1969)));
        List<MetadataResponse.TopicMetadata> topics = new ArrayList<>();
        scriptedTopics.forEach((name, t) -> {
            List<MetadataResponse.PartitionMetadata> ps = new ArrayList<>();
            JsonNode replicaRacks = t.path("replica_racks");
            for (int p = 0; p < t.path("partitions").asInt(); p++) {
                List<Integer> replicas = new ArrayList<>();
                for (JsonNode r : replicaRacks.path(p)) {
                    Node n = racks.computeIfAbsent(r.asText(), k -> {
                        Node made = new Node(nodes.size(), "localhost", 1969 + nodes.size(), k);
                        nodes.add(made);
                        return made;
                    });
                    replicas.add(n.id());
                }
                if (replicas.isEmpty()) {
                    replicas.add(COORDINATOR_NODE);
                }
                ps.add(new MetadataResponse.PartitionMetadata(Errors.NONE, new TopicPartition(name, p),
                    Optional.of(replicas.get(0)), Optional.empty(), replicas, replicas, List.of()));
            }
            topics.add(new MetadataResponse.TopicMetadata(Errors.NONE, name, false, ps));
        });
        return RequestTestUtils.metadataResponse(nodes, "cluster", COORDINATOR_NODE, topics);
    }

    /** A Metadata event: the refresh arrives (the whole cluster, replacing what was known). */
    private void metadataRefresh(JsonNode topics) {
        scriptedTopics = new TreeMap<>();
        topics.forEach(t -> scriptedTopics.put(t.path("name").asText(), t));
        network.updateMetadata(cluster());
    }

    ArrayNode handle(JsonNode event) throws Unsupported, Adapter.Answer {
        current = Adapter.JSON.createArrayNode();
        String type = event.path("type").asText();
        if (closed) {
            // ClassicKafkaConsumer#acquireAndEnsureOpen refuses every call; nothing reads answers
            if (APPLICATION_CALLS.contains(type)) {
                current.add(raised("IllegalStateException", "the consumer is closed"));
            }
            return current;
        }
        if (closing != null && APPLICATION_CALLS.contains(type)) {
            throw Adapter.Answer.error("invalid_input", type + ": the application is still blocked in close()");
        }
        modeBefore = subscriptions.hasPatternSubscription() ? "subscribe(Pattern)"
            : subscriptions.hasAutoAssignedPartitions() ? "subscribe()"
            : subscriptions.hasNoSubscriptionOrUserAssignment() ? null : "assign()";
        try {
            switch (type) {
                case "Subscribe":
                    subscribe(strings(event.path("topics")));
                    break;
                case "Assign":
                    assign(partitions(event.path("partitions")));
                    break;
                case "Unsubscribe":
                    unsubscribe();
                    break;
                case "Poll": {
                    long now = EPOCH_MS + event.path("now_ms").asLong();
                    if (now > time.milliseconds()) {
                        time.setCurrentTimeMs(now);
                    }
                    if (subscriptions.hasNoSubscriptionOrUserAssignment()) {  // ClassicKafkaConsumer#poll's first check
                        throw new IllegalStateException(NOT_SUBSCRIBED);
                    }
                    applicationPoll();
                    break;
                }
                case "CommitSync":
                    commitSync(offsets(event.path("offsets")));
                    break;
                case "JoinAnswered": {
                    ClientRequest r = inFlight(ApiKeys.JOIN_GROUP);
                    if (r != null) {
                        leaderAssignments = event.path("leader_assignments");
                        network.respondToRequest(r, joinResponse(event.path("response"), event.path("members")));
                        applicationPoll();
                    }
                    break;
                }
                case "SyncAnswered": {
                    ClientRequest r = inFlight(ApiKeys.SYNC_GROUP);
                    if (r != null) {
                        network.respondToRequest(r, syncResponse(event.path("response"), event.path("assignment")));
                        applicationPoll();
                    }
                    break;
                }
                case "HeartbeatAnswered": {
                    ClientRequest r = inFlight(ApiKeys.HEARTBEAT);
                    if (r != null) {
                        network.respondToRequest(r, new HeartbeatResponse(new HeartbeatResponseData()
                            .setErrorCode(error(event.path("response").path("error")).code())));
                        client.pollNoWakeup();
                    }
                    break;
                }
                case "OffsetFetchAnswered":
                    if (subscriptions.initializingPartitions().isEmpty()) {
                        throw new Unsupported("no assigned partition awaits its starting position, so Kafka's "
                            + "client sends no OffsetFetch for this answer");
                    }
                    fetchPositions(event.path("response"));
                    break;
                case "SubscribePattern":
                    subscribePattern(event.path("pattern").asText());
                    break;
                case "Metadata":
                    metadataRefresh(event.path("topics"));
                    break;
                case "CommitAsync":
                    commitAsync(offsets(event.path("offsets")));
                    break;
                case "Consumed":
                    consumed(offsets(event.path("offsets")));
                    break;
                case "OffsetCommitAnswered":
                    commitAnswered(event.path("response"));
                    break;
                case "Close":
                    close(event.path("operation").asText("DEFAULT"));
                    break;
                case "Tick": {  // time passes; only the heartbeat thread runs
                    long now = EPOCH_MS + event.path("now_ms").asLong();
                    if (now > time.milliseconds()) {
                        time.setCurrentTimeMs(now);
                    }
                    break;
                }
                default:
                    throw Adapter.Answer.error("invalid_input", "unknown event type " + type);
            }
        } catch (KafkaException | IllegalStateException | IllegalArgumentException e) {
            current.add(raised(e, type));
        }
        try {
            heartbeatThread();
        } catch (KafkaException e) {
            current.add(raised(e, type));
        }
        try {
            resumeBlocked();
        } catch (KafkaException | IllegalStateException | IllegalArgumentException e) {
            current.add(raised(e, type));
        }
        return current;
    }

    private void subscribe(List<String> topics) {
        if (topics.isEmpty()) {
            unsubscribe();  // ClassicKafkaConsumer#subscribe: an empty list unsubscribes
            return;
        }
        if (subscriptions.subscribe(new HashSet<>(topics), Optional.of(listener))) {
            metadata.requestUpdateForNewTopics();
        }
        // the fetch it asks for is answered in the application's next poll (ScriptedMetadata)
    }

    private void assign(Set<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            unsubscribe();  // ClassicKafkaConsumer#assign: an empty list unsubscribes
            return;
        }
        coordinator.maybeAutoCommitOffsetsAsync(time.milliseconds());
        if (subscriptions.assignFromUser(partitions)) {
            metadata.requestUpdateForNewTopics();
        }
        // likewise: the fetch is answered in the application's next poll
    }

    private void unsubscribe() {
        coordinator.onLeavePrepare();
        coordinator.maybeLeaveGroup(CloseOptions.GroupMembershipOperation.DEFAULT, "the consumer unsubscribed from all topics");
        subscriptions.unsubscribe();
        pattern = null;
    }

    /** ClassicKafkaConsumer#poll's membership part at the current time, then its network poll. */
    private void applicationPoll() {
        applicationPolling = true;
        try {
            coordinator.poll(time.timer(0), false);
        } finally {
            client.pollNoWakeup();
            applicationPolling = false;
        }
    }

    /** The event's offsets, in the order given (ClassicKafkaConsumer copies them into a HashMap). */
    private static Map<TopicPartition, Long> offsets(JsonNode offsets) {
        Map<TopicPartition, Long> m = new LinkedHashMap<>();
        for (JsonNode o : offsets) {
            m.put(new TopicPartition(o.get(0).get(0).asText(), o.get(0).get(1).asInt()), o.get(1).asLong());
        }
        return m;
    }

    /**
     * The application's map as ClassicKafkaConsumer hands it on: {@code new HashMap<>(offsets)}.
     * An offset below 0 is built past OffsetAndMetadata's constructor, which would refuse it in
     * the application's own code ("Invalid negative offset"), so that the coordinator's check in
     * sendOffsetCommitRequest, the one groupspec's rule retells, answers.
     */
    private static Map<TopicPartition, OffsetAndMetadata> committing(Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
        offsets.forEach((tp, o) -> m.put(tp, o >= 0 ? new OffsetAndMetadata(o) : negative(o)));
        return m;
    }

    private static OffsetAndMetadata negative(long offset) {
        OffsetAndMetadata o = new OffsetAndMetadata(0);
        KafkaObjects.setField(OffsetAndMetadata.class, o, "offset", offset);
        return o;
    }

    /**
     * commitSync: ConsumerCoordinator#commitOffsetsSync up to the wait for the answer (the callbacks
     * of finished async commits, then the request; an empty map waits for the async commits in
     * flight with a zero timer, as Kafka's does with what remains of its timer).
     */
    private void commitSync(Map<TopicPartition, Long> offsets) {
        if (offsets.isEmpty()) {
            coordinator.commitOffsetsSync(new HashMap<>(), time.timer(0));
            return;
        }
        ClassicConsumerAccess.invokeCompletedOffsetCommitCallbacks(coordinator);
        sendSync(committing(offsets), false);
    }

    /**
     * One round of commitOffsetsSync's loop: the coordinator found (answered at once), the
     * OffsetCommit sent, and the application blocked until its answer; a failure found before
     * anything goes (not in an active group, rebalancing, a negative offset) is thrown at once.
     */
    private void sendSync(Map<TopicPartition, OffsetAndMetadata> offsets, boolean close) {
        if (coordinator.coordinatorUnknown() && !ClassicConsumerAccess.ensureCoordinatorReady(coordinator, time.timer(0))) {
            return;
        }
        RequestFuture<Void> future = ClassicConsumerAccess.sendOffsetCommitRequest(coordinator, offsets);
        client.pollNoWakeup();
        if (future.isDone() && future.failed() && !future.isRetriable()) {
            throw future.exception();
        }
        blocked = new Blocked(offsets, future, close);
    }

    /** ClassicKafkaConsumer#commitAsync: the callback records its outcome as a CommitCallback. */
    private void commitAsync(Map<TopicPartition, Long> offsets) {
        ArrayNode listed = Adapter.JSON.createArrayNode();
        offsets.keySet().stream().sorted(BY_PARTITION).forEach(tp -> {
            ArrayNode pair = listed.addArray();
            pair.add(partition(tp));
            pair.add(offsets.get(tp));
        });
        coordinator.commitOffsetsAsync(committing(offsets), (committed, exception) -> {
            ObjectNode o = current.addObject();
            o.put("type", "CommitCallback");
            o.set("offsets", listed);
            putNullable(o, "error", exception == null ? null : exception.getClass().getSimpleName());
        });
    }

    /** Records reached the application: the fetcher's positions move (owned partitions only). */
    private void consumed(Map<TopicPartition, Long> offsets) {
        offsets.forEach((tp, o) -> {
            if (subscriptions.isAssigned(tp)) {
                subscriptions.seek(tp, o);
            }
        });
    }

    /**
     * The oldest OffsetCommit in flight gets the answer, which the network poll hands to its
     * handler; an application blocked in commitOffsetsSync on it goes on.
     */
    private void commitAnswered(JsonNode response) throws Unsupported {
        ClientRequest r = inFlight(ApiKeys.OFFSET_COMMIT);
        if (r == null) {
            return;
        }
        // OffsetCommitResponseHandler reads each answered partition's offset from the commit: an
        // answer naming a partition the commit did not carry is one no broker sends
        Set<String> sent = new HashSet<>();
        OffsetCommitRequestData d = ((OffsetCommitRequest) r.requestBuilder().build()).data();
        d.topics().forEach(t -> t.partitions().forEach(p -> sent.add(t.name() + "-" + p.partitionIndex())));
        for (JsonNode t : response.path("topics")) {
            for (JsonNode p : t.path("partitions")) {
                String tp = t.path("name").asText() + "-" + p.path("partition").asInt();
                if (!sent.contains(tp)) {
                    throw new Unsupported("the OffsetCommit answer names " + tp + ", which the commit did not "
                        + "carry (Kafka's handler reads the answered partitions' offsets from the commit)");
                }
            }
        }
        network.respondToRequest(r, commitResponse(response));
        client.pollNoWakeup();
        resumeBlocked();
    }

    /**
     * An application blocked in commitOffsetsSync whose request is done goes on: answered, or
     * failed without an answer when the coordinator's connection closed under it (a coordinator
     * error on another answer, a lost session, a request timeout), which the loop's next network
     * poll would find.
     */
    private void resumeBlocked() {
        if (blocked != null && blocked.future.isDone()) {
            Blocked b = blocked;
            blocked = null;
            if (b.close) {
                closeCommitAnswered(b);
            } else {
                syncAnswered(b);
            }
        }
    }

    /**
     * The rest of commitOffsetsSync's loop round once its answer came: the finished async
     * commits' callbacks, then success, the failure thrown, or (retriable) another round at once
     * (Kafka first sleeps the retry backoff; the vector's clock moves only with its polls).
     */
    private void syncAnswered(Blocked b) {
        ClassicConsumerAccess.invokeCompletedOffsetCommitCallbacks(coordinator);
        if (b.future.succeeded()) {
            return;
        }
        if (!b.future.isRetriable()) {
            current.add(raised(b.future.exception().getClass().getSimpleName(), "the offset commit failed"));
            return;
        }
        sendSync(b.offsets, false);
    }

    /**
     * close(): ConsumerCoordinator#close, retold as the commit's answer splits it. With
     * auto-commit on, maybeAutoCommitOffsetsSync commits the positions and waits (whatever fails
     * is only logged); then AbstractCoordinator#close: the heartbeat thread stops, onLeavePrepare,
     * maybeLeaveGroup with the operation, and the LeaveGroup goes.
     */
    private void close(String operation) {
        closing = operation;
        if (autoCommit) {
            try {
                ClassicConsumerAccess.invokeCompletedOffsetCommitCallbacks(coordinator);
                Map<TopicPartition, OffsetAndMetadata> offsets = subscriptions.allConsumed();
                if (!offsets.isEmpty()) {
                    sendSync(offsets, true);
                }
            } catch (KafkaException | IllegalArgumentException e) {
                // maybeAutoCommitOffsetsSync logs a failed commit and the close goes on
                blocked = null;
            }
            if (blocked != null) {
                return;
            }
        }
        finishClose();
    }

    private void closeCommitAnswered(Blocked b) {
        try {
            ClassicConsumerAccess.invokeCompletedOffsetCommitCallbacks(coordinator);
            if (b.future.failed() && b.future.isRetriable()) {
                sendSync(b.offsets, true);
            }
        } catch (KafkaException | IllegalArgumentException e) {
            blocked = null;  // logged only
        }
        if (blocked == null) {
            finishClose();
        }
    }

    private void finishClose() {
        String operation = closing;
        closing = null;
        closed = true;
        ClassicConsumerAccess.closeHeartbeatThread(coordinator);
        coordinator.onLeavePrepare();
        coordinator.maybeLeaveGroup(CloseOptions.GroupMembershipOperation.valueOf(operation), "the consumer is being closed");
        client.pollNoWakeup();
    }

    /**
     * ClassicKafkaConsumer#subscribe(Pattern): SubscriptionState takes the pattern, the coordinator
     * matches it against the metadata it has, and a metadata fetch is asked for. Kafka's cached
     * metadata holds only the topics it was interested in, so a new pattern's further matches
     * wait for that fetch; it is answered here, before the next poll (whose loop, in a real
     * client, goes round once the answer arrives), as groupspec matches a pattern against every
     * topic the last refresh named.
     */
    private void subscribePattern(String regex) {
        Pattern compiled = Pattern.compile(regex);
        subscriptions.subscribe(compiled, Optional.of(listener));
        pattern = regex;
        coordinator.updatePatternSubscription(metadata.fetch());
        metadata.requestUpdateForNewTopics();
        refreshMetadata();
    }

    /** ClassicKafkaConsumer#updateFetchPositions's committed-offset part, its OffsetFetch answered with {@code answer}. */
    private void fetchPositions(JsonNode answer) {
        Set<TopicPartition> before = new HashSet<>();
        for (TopicPartition tp : subscriptions.assignedPartitions()) {
            if (subscriptions.isOffsetResetNeeded(tp)) {
                before.add(tp);
            }
        }
        fetchAnswer = answer;
        try {
            if (!coordinator.initWithCommittedOffsetsIfNeeded(time.timer(0))) {
                return;
            }
            subscriptions.resetInitializingPositions();
        } finally {
            fetchAnswer = null;
        }
        TreeMap<String, String> resets = new TreeMap<>();
        Map<String, TopicPartition> byName = new HashMap<>();
        for (TopicPartition tp : subscriptions.assignedPartitions()) {
            if (subscriptions.isOffsetResetNeeded(tp) && !before.contains(tp)) {
                String key = tp.topic() + "\u0000" + String.format("%010d", tp.partition());
                resets.put(key, strategy(subscriptions.resetStrategy(tp)));
                byName.put(key, tp);
            }
        }
        resets.forEach((key, to) -> {
            ObjectNode o = current.addObject();
            o.put("type", "ResetOffset");
            o.set("partition", partition(byName.get(key)));
            o.put("to", to);
        });
    }

    private static String strategy(AutoOffsetResetStrategy s) {
        if (s == AutoOffsetResetStrategy.EARLIEST) {
            return "earliest";
        }
        if (s == AutoOffsetResetStrategy.LATEST) {
            return "latest";
        }
        return String.valueOf(s);
    }

    /** The heartbeat thread wakes at the event's time: passes until it only waits. */
    private void heartbeatThread() {
        for (int pass = 0; pass < 10; pass++) {
            if (!ClassicConsumerAccess.heartbeatPass(coordinator, client, time.milliseconds())) {
                break;
            }
        }
        client.pollNoWakeup();
    }

    private ClientRequest inFlight(ApiKeys key) {
        for (ClientRequest r : network.requests()) {
            if (r.apiKey() == key) {
                return r;
            }
        }
        return null;
    }

    // --- answers ---------------------------------------------------------------------------

    private static Errors error(JsonNode name) {
        try {
            return Errors.valueOf(name.asText("NONE"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("error " + name.asText() + " is not one of Kafka's Errors");
        }
    }

    /**
     * The JoinGroup answer; a leader's members come from the event's typed list (their
     * subscriptions serialized as ConsumerProtocol does) when the response lists none itself.
     */
    private static AbstractResponse joinResponse(JsonNode r, JsonNode typed) {
        JoinGroupResponseData d = new JoinGroupResponseData()
            .setErrorCode(error(r.path("error")).code())
            .setGenerationId(r.path("generation_id").asInt(-1))
            .setProtocolType(nullableText(r.path("protocol_type")))
            .setProtocolName(nullableText(r.path("protocol_name")))
            .setLeader(r.path("leader").asText(""))
            .setSkipAssignment(r.path("skip_assignment").asBoolean(false))
            .setMemberId(r.path("member_id").asText(""));
        List<JoinGroupResponseData.JoinGroupResponseMember> members = new ArrayList<>();
        for (JsonNode m : r.path("members")) {
            members.add(new JoinGroupResponseData.JoinGroupResponseMember()
                .setMemberId(m.path("member_id").asText())
                .setGroupInstanceId(nullableText(m.path("group_instance_id")))
                .setMetadata(KafkaObjects.bytes(m.path("metadata"))));
        }
        if (members.isEmpty()) {
            for (JsonNode m : typed) {
                members.add(new JoinGroupResponseData.JoinGroupResponseMember()
                    .setMemberId(m.path("member_id").asText())
                    .setGroupInstanceId(nullableText(m.path("group_instance_id")))
                    .setMetadata(Utils.toArray(ConsumerProtocol.serializeSubscription(subscriptionOf(m.path("subscription"))))));
            }
        }
        d.setMembers(members);
        return new JoinGroupResponse(d, ApiKeys.JOIN_GROUP.latestVersion());
    }

    private static AbstractResponse syncResponse(JsonNode r, JsonNode assignment) {
        Errors e = error(r.path("error"));
        byte[] bytes = new byte[0];
        if (e == Errors.NONE) {
            bytes = Utils.toArray(ConsumerProtocol.serializeAssignment(assignmentOf(assignment)));
        }
        return new SyncGroupResponse(new SyncGroupResponseData()
            .setErrorCode(e.code())
            .setProtocolType(nullableText(r.path("protocol_type")))
            .setProtocolName(nullableText(r.path("protocol_name")))
            .setAssignment(bytes));
    }

    private static ConsumerPartitionAssignor.Subscription subscriptionOf(JsonNode s) {
        List<TopicPartition> owned = new ArrayList<>();
        for (JsonNode t : s.path("owned_partitions")) {
            for (JsonNode p : t.path("partitions")) {
                owned.add(new TopicPartition(t.path("topic").asText(), p.asInt()));
            }
        }
        ByteBuffer user = s.path("user_data").isTextual() ? ByteBuffer.wrap(KafkaObjects.bytes(s.path("user_data"))) : null;
        return new ConsumerPartitionAssignor.Subscription(strings(s.path("topics")), user, owned,
            s.path("generation_id").asInt(-1), Optional.ofNullable(nullableText(s.path("rack_id"))));
    }

    private static ConsumerPartitionAssignor.Assignment assignmentOf(JsonNode a) {
        List<TopicPartition> tps = new ArrayList<>();
        for (JsonNode t : a.path("assigned_partitions")) {
            for (JsonNode p : t.path("partitions")) {
                tps.add(new TopicPartition(t.path("topic").asText(), p.asInt()));
            }
        }
        ByteBuffer user = a.path("user_data").isTextual() ? ByteBuffer.wrap(KafkaObjects.bytes(a.path("user_data"))) : null;
        return new ConsumerPartitionAssignor.Assignment(tps, user);
    }

    private AbstractResponse fetchResponse(JsonNode r, short version) {
        OffsetFetchResponseData.OffsetFetchResponseGroup group = new OffsetFetchResponseData.OffsetFetchResponseGroup()
            .setGroupId(groupId).setErrorCode(error(r.path("error")).code());
        List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics = new ArrayList<>();
        for (JsonNode t : r.path("topics")) {
            List<OffsetFetchResponseData.OffsetFetchResponsePartitions> ps = new ArrayList<>();
            for (JsonNode p : t.path("partitions")) {
                ps.add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                    .setPartitionIndex(p.path("partition").asInt())
                    .setCommittedOffset(p.path("committed_offset").asLong(-1))
                    .setCommittedLeaderEpoch(p.path("committed_leader_epoch").asInt(-1))
                    .setMetadata(p.path("metadata").asText(""))
                    .setErrorCode(error(p.path("error")).code()));
            }
            topics.add(new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(t.path("name").asText()).setPartitions(ps));
        }
        group.setTopics(topics);
        return new OffsetFetchResponse(new OffsetFetchResponseData().setGroups(List.of(group)), version);
    }

    private static AbstractResponse commitResponse(JsonNode r) {
        List<OffsetCommitResponseData.OffsetCommitResponseTopic> topics = new ArrayList<>();
        for (JsonNode t : r.path("topics")) {
            List<OffsetCommitResponseData.OffsetCommitResponsePartition> ps = new ArrayList<>();
            for (JsonNode p : t.path("partitions")) {
                ps.add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                    .setPartitionIndex(p.path("partition").asInt()).setErrorCode(error(p.path("error")).code()));
            }
            topics.add(new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(t.path("name").asText()).setPartitions(ps));
        }
        return new OffsetCommitResponse(new OffsetCommitResponseData().setTopics(topics));
    }

    private FindCoordinatorResponse findResponse() {
        return new FindCoordinatorResponse(new FindCoordinatorResponseData().setCoordinators(List.of(
            new FindCoordinatorResponseData.Coordinator().setKey(groupId).setNodeId(COORDINATOR_NODE)
                .setHost("localhost").setPort(1969).setErrorCode(Errors.NONE.code()))));
    }

    // --- the network ------------------------------------------------------------------------

    /**
     * kafka-clients' MockClient, recording every request the consumer sends as a Sent output in
     * send order, answering FindCoordinator at once and an OffsetFetch with the answer the event
     * carries; everything else waits in flight for the vector's answer.
     */
    private final class Recording extends MockClient {
        Recording() {
            super(time, new ScriptedMetadata());
        }

        @Override
        public void send(ClientRequest request, long now) {
            super.send(request, now);
            AbstractRequest.Builder<?> builder = request.requestBuilder();
            short version = builder.latestAllowedVersion();
            switch (request.apiKey()) {
                case FIND_COORDINATOR:
                    respondToRequest(request, findResponse());
                    return;
                case OFFSET_FETCH:
                    if (fetchAnswer != null) {
                        respondToRequest(request, fetchResponse(fetchAnswer, version));
                    }
                    return;
                default:
                    current.add(sent(builder.build(version), version));
            }
        }
    }

    // --- outputs ----------------------------------------------------------------------------

    private static ArrayNode partition(TopicPartition tp) {
        ArrayNode a = Adapter.JSON.createArrayNode();
        a.add(tp.topic());
        a.add(tp.partition());
        return a;
    }

    private static final java.util.Comparator<TopicPartition> BY_PARTITION = (x, y) -> x.topic().equals(y.topic())
        ? Integer.compare(x.partition(), y.partition()) : x.topic().compareTo(y.topic());

    private static ArrayNode sortedPartitions(Collection<TopicPartition> tps) {
        ArrayNode a = Adapter.JSON.createArrayNode();
        tps.stream().sorted((x, y) -> x.topic().equals(y.topic()) ? Integer.compare(x.partition(), y.partition())
            : x.topic().compareTo(y.topic())).forEach(tp -> a.add(partition(tp)));
        return a;
    }

    /** Partitions grouped by topic in first-seen order, each topic's partitions as given. */
    private static ArrayNode byTopic(List<TopicPartition> tps) {
        Map<String, List<Integer>> m = new LinkedHashMap<>();
        tps.forEach(tp -> m.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).add(tp.partition()));
        ArrayNode a = Adapter.JSON.createArrayNode();
        m.forEach((t, ps) -> {
            ObjectNode o = a.addObject();
            o.put("topic", t);
            ArrayNode list = o.putArray("partitions");
            ps.forEach(list::add);
        });
        return a;
    }

    private static ObjectNode sent(AbstractRequest request, short version) {
        ObjectNode out = Adapter.JSON.createObjectNode();
        out.put("type", "Sent");
        ObjectNode r = out.putObject("request");
        out.putNull("subscription");
        ArrayNode assignments = Adapter.JSON.createArrayNode();
        if (request instanceof JoinGroupRequest) {
            JoinGroupRequestData d = ((JoinGroupRequest) request).data();
            r.put("type", "JoinGroup");
            r.put("group_id", d.groupId());
            r.put("member_id", d.memberId());
            putNullable(r, "group_instance_id", d.groupInstanceId());
            r.put("session_timeout_ms", d.sessionTimeoutMs());
            r.put("rebalance_timeout_ms", d.rebalanceTimeoutMs());
            r.put("protocol_type", d.protocolType());
            ArrayNode protocols = r.putArray("protocols");
            ByteBuffer first = null;
            for (JoinGroupRequestData.JoinGroupRequestProtocol p : d.protocols()) {
                ObjectNode po = protocols.addObject();
                po.put("name", p.name());
                po.put("metadata", "");  // carried typed as the subscription
                if (first == null) {
                    first = ByteBuffer.wrap(p.metadata());
                }
            }
            putNullable(r, "reason", d.reason());
            r.put("version", version);
            if (first != null) {
                out.set("subscription", subscription(ConsumerProtocol.deserializeSubscription(first)));
            }
        } else if (request instanceof SyncGroupRequest) {
            SyncGroupRequestData d = ((SyncGroupRequest) request).data();
            r.put("type", "SyncGroup");
            r.put("group_id", d.groupId());
            r.put("generation_id", d.generationId());
            r.put("member_id", d.memberId());
            putNullable(r, "group_instance_id", d.groupInstanceId());
            putNullable(r, "protocol_type", d.protocolType());
            putNullable(r, "protocol_name", d.protocolName());
            r.putArray("assignments");
            r.put("version", version);
            for (SyncGroupRequestData.SyncGroupRequestAssignment a : d.assignments()) {
                ConsumerPartitionAssignor.Assignment as = ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(a.assignment()));
                ArrayNode pair = assignments.addArray();
                pair.add(a.memberId());
                ObjectNode ao = pair.addObject();
                ao.set("assigned_partitions", byTopic(as.partitions()));
                putNullable(ao, "user_data", as.userData() == null ? null : KafkaObjects.hex(as.userData()));
            }
        } else if (request instanceof HeartbeatRequest) {
            HeartbeatRequestData d = ((HeartbeatRequest) request).data();
            r.put("type", "Heartbeat");
            r.put("group_id", d.groupId());
            r.put("generation_id", d.generationId());
            r.put("member_id", d.memberId());
            putNullable(r, "group_instance_id", d.groupInstanceId());
            r.put("version", version);
        } else if (request instanceof LeaveGroupRequest) {
            LeaveGroupRequestData d = ((LeaveGroupRequest) request).data();
            r.put("type", "LeaveGroup");
            r.put("group_id", d.groupId());
            ArrayNode members = r.putArray("members");
            for (LeaveGroupRequestData.MemberIdentity m : d.members()) {
                ObjectNode mo = members.addObject();
                mo.put("member_id", m.memberId());
                putNullable(mo, "group_instance_id", m.groupInstanceId());
                putNullable(mo, "reason", m.reason());
            }
            r.put("version", version);
        } else if (request instanceof OffsetCommitRequest) {
            OffsetCommitRequestData d = ((OffsetCommitRequest) request).data();
            r.put("type", "OffsetCommit");
            r.put("group_id", d.groupId());
            r.put("generation_id_or_member_epoch", d.generationIdOrMemberEpoch());
            r.put("member_id", d.memberId());
            putNullable(r, "group_instance_id", d.groupInstanceId());
            r.put("retention_time_ms", -1);
            ArrayNode topics = r.putArray("topics");
            for (OffsetCommitRequestData.OffsetCommitRequestTopic t : d.topics()) {
                ObjectNode to = topics.addObject();
                to.put("name", t.name());
                ArrayNode ps = to.putArray("partitions");
                for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                    ObjectNode po = ps.addObject();
                    po.put("partition", p.partitionIndex());
                    po.put("committed_offset", p.committedOffset());
                    po.put("committed_leader_epoch", p.committedLeaderEpoch());
                    po.put("committed_metadata", p.committedMetadata());
                }
                if (t.topicId() == null || Uuid.ZERO_UUID.equals(t.topicId())) {
                    to.putNull("topic_id");
                } else {
                    to.put("topic_id", t.topicId().toString());
                }
            }
            r.put("version", version);
        } else {
            throw new IllegalStateException("Kafka's client sent " + request.apiKey() + ", which no output of "
                + "groupspec's classic_consumer machine holds");
        }
        out.set("assignments", assignments);
        return out;
    }

    private static ObjectNode subscription(ConsumerPartitionAssignor.Subscription s) {
        ObjectNode o = Adapter.JSON.createObjectNode();
        ArrayNode topics = o.putArray("topics");
        s.topics().forEach(topics::add);
        putNullable(o, "user_data", s.userData() == null ? null : KafkaObjects.hex(s.userData()));
        o.set("owned_partitions", byTopic(s.ownedPartitions()));
        o.put("generation_id", s.generationId().orElse(-1));
        putNullable(o, "rack_id", s.rackId().orElse(null));
        return o;
    }

    private static ObjectNode raised(String error, String detail) {
        ObjectNode o = Adapter.JSON.createObjectNode();
        o.put("type", "Raised");
        o.put("error", error);
        o.put("detail", detail);
        return o;
    }

    private ObjectNode raised(RuntimeException e, String event) {
        ObjectNode o = Adapter.JSON.createObjectNode();
        o.put("type", "Raised");
        o.put("error", e.getClass().getSimpleName());
        o.put("detail", detail(e, event));
        return o;
    }

    /**
     * groupspec's detail for an exception Kafka's code threw: what it says (the error code, the
     * partition), in groupspec's words, read from the exception's type and message.
     */
    private static final String LOCAL_COMMIT = "Offset commit cannot be completed since the consumer is ";
    private static final String NOT_SUBSCRIBED = "Consumer is not subscribed to any topics or assigned any partitions";
    /** SubscriptionState's refusal of a second kind of subscription. */
    private static final String MUTUALLY_EXCLUSIVE = "Subscription to topics, partitions and pattern are mutually exclusive";

    private String detail(RuntimeException e, String event) {
        if (e instanceof NoOffsetForPartitionException) {
            List<String> names = new ArrayList<>();
            sortedPartitions(((NoOffsetForPartitionException) e).partitions())
                .forEach(tp -> names.add(tp.get(0).asText() + "-" + tp.get(1).asInt()));
            return String.join(", ", names);
        }
        String said0 = String.valueOf(e.getMessage());
        if (e instanceof RebalanceInProgressException && said0.startsWith(LOCAL_COMMIT + "undergoing a rebalance")) {
            return "the group is rebalancing";
        }
        if (e instanceof CommitFailedException && said0.startsWith(LOCAL_COMMIT + "not part of an active group")) {
            return "the consumer is not in an active group";
        }
        if (e instanceof FencedInstanceIdException && said0.startsWith("Get fenced exception for group.instance.id")) {
            return "an asynchronous commit was fenced";  // invokeCompletedOffsetCommitCallbacks' refusal
        }
        if (e instanceof IllegalArgumentException && said0.startsWith("Invalid offset: ")) {
            return said0;
        }
        if (e instanceof IllegalStateException && said0.equals(NOT_SUBSCRIBED)) {
            return "the consumer is not subscribed to any topics or assigned any partitions";
        }
        if (e instanceof IllegalStateException && said0.equals(MUTUALLY_EXCLUSIVE)) {
            String call = event.equals("SubscribePattern") ? "subscribe(Pattern)"
                : event.equals("Assign") ? "assign()" : "subscribe()";
            return call + " after " + modeBefore;
        }
        if (e instanceof IllegalStateException) {
            String invalid = "Coordinator selected invalid assignment protocol: ";
            String said = String.valueOf(e.getMessage());
            if (said.equals("Assignor supporting the COOPERATIVE protocol violates its requirements")) {
                List<String> names = new ArrayList<>();
                sortedPartitions(handedOver).forEach(tp -> names.add(tp.get(0).asText() + "-" + tp.get(1).asInt()));
                return "the cooperative protocol forbids handing owned partitions straight over ("
                    + String.join(", ", names) + ")";
            }
            if (said.startsWith(invalid)) { // groupspec's wording of lookupAssignor's refusal
                return "the coordinator chose assignment protocol '" + said.substring(invalid.length())
                    + "', which this member did not offer";
            }
            return said;
        }
        String message = String.valueOf(e.getMessage());
        Errors code = e instanceof ApiException ? Errors.forException(e) : Errors.UNKNOWN_SERVER_ERROR;
        if (code == Errors.UNKNOWN_SERVER_ERROR) {
            Errors named = byMessage(message);
            code = named == null ? code : named;
        }
        if (event.equals("OffsetFetchAnswered")) {
            String missing = "Topic or Partition ";
            if (message.startsWith(missing) && message.endsWith(" does not exist")) {
                return "offset fetch failed for " + message.substring(missing.length(), message.length() - 15)
                    + ": UNKNOWN_TOPIC_OR_PARTITION";
            }
            String forPartition = "Unexpected error in fetch offset response for partition ";
            if (message.startsWith(forPartition)) {
                String rest = message.substring(forPartition.length());
                return "offset fetch failed for " + rest.substring(0, rest.indexOf(':')) + ": " + code.name();
            }
            return "offset fetch failed: " + code.name();
        }
        return code.name();
    }

    /** The error whose message ends Kafka's "Unexpected error ...: <message>" text. */
    private static Errors byMessage(String message) {
        for (Errors err : Errors.values()) {
            if (err != Errors.NONE && err.message() != null && message.endsWith(": " + err.message())) {
                return err;
            }
        }
        return null;
    }

    private static List<String> strings(JsonNode a) {
        List<String> out = new ArrayList<>();
        a.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static Set<TopicPartition> partitions(JsonNode a) {
        Set<TopicPartition> out = new HashSet<>();
        a.forEach(p -> out.add(new TopicPartition(p.get(0).asText(), p.get(1).asInt())));
        return out;
    }

    // --- the view ---------------------------------------------------------------------------

    ObjectNode view() {
        ObjectNode v = Adapter.JSON.createObjectNode();
        String state = ClassicConsumerAccess.state(coordinator);
        v.put("state", state);
        String mode = subscriptions.hasAutoAssignedPartitions() ? "SUBSCRIBED"
            : subscriptions.hasNoSubscriptionOrUserAssignment() ? "NONE" : "ASSIGNED";
        v.put("mode", mode);
        v.put("member_id", ClassicConsumerAccess.memberId(coordinator));
        v.put("generation", ClassicConsumerAccess.generationId(coordinator));
        ArrayNode subscription = v.putArray("subscription");
        new TreeSet<>(subscriptions.subscription()).forEach(subscription::add);
        // A closed consumer holds nothing the application could read (ClassicKafkaConsumer refuses
        // assignment() and position() once closed) and never rejoins; Kafka's classes keep a
        // self-assigned consumer's partitions and the rejoin flag maybeLeaveGroup raised.
        v.set("owned", sortedPartitions(closed ? List.of() : subscriptions.assignedPartitions()));
        // ConsumerCoordinator#rejoinNeededOrPending: only a subscribed consumer rejoins; Kafka's
        // flag itself starts true and is only cleared by a completed join.
        v.put("rejoin_needed", !closed && subscriptions.hasAutoAssignedPartitions()
            && ClassicConsumerAccess.rejoinNeeded(coordinator));
        String inFlight = null;
        if (ClassicConsumerAccess.joinPending(coordinator) && state.equals("PREPARING_REBALANCE")) {
            inFlight = "join";
        } else if (ClassicConsumerAccess.joinPending(coordinator) && state.equals("COMPLETING_REBALANCE")) {
            inFlight = "sync";
        } else if (inFlight(ApiKeys.HEARTBEAT) != null) {
            inFlight = "heartbeat";
        }
        putNullable(v, "in_flight", closed ? null : inFlight);  // close() drops the connection
        RuntimeException failure = ClassicConsumerAccess.heartbeatFailure(coordinator);
        putNullable(v, "fatal", failure == null ? null : Errors.forException(failure).name());
        ArrayNode positions = v.putArray("positions");
        Map<TopicPartition, OffsetAndMetadata> consumed = closed ? Map.of() : subscriptions.allConsumed();
        consumed.keySet().stream().sorted(BY_PARTITION).forEach(tp -> {
            ArrayNode pair = positions.addArray();
            pair.add(partition(tp));
            pair.add(consumed.get(tp).offset());
        });
        int commits = 0;
        int heartbeats = 0;
        for (ClientRequest r : network.requests()) {
            commits += r.apiKey() == ApiKeys.OFFSET_COMMIT ? 1 : 0;
            heartbeats += r.apiKey() == ApiKeys.HEARTBEAT ? 1 : 0;
        }
        v.put("commits_in_flight", closed ? 0 : commits);
        v.put("heartbeats_in_flight", closed ? 0 : heartbeats);
        putNullable(v, "pattern", subscriptions.hasPatternSubscription() ? pattern : null);
        v.put("closing", closing != null);
        v.put("closed", closed);
        return v;
    }

    // --- the leader's assignor and the listener ---------------------------------------------

    /**
     * The partitions an assignment gives a member while another still owns them: what
     * ConsumerCoordinator#validateCooperativeAssignment refuses under the cooperative protocol,
     * naming them only in its log line ("the assignor has reassigned partitions ... which are
     * still owned by some members"); groupspec's detail names them.
     */
    private static Set<TopicPartition> handedOver(ConsumerPartitionAssignor.GroupSubscription group,
                                                  ConsumerPartitionAssignor.GroupAssignment result) {
        Set<TopicPartition> added = new HashSet<>();
        Set<TopicPartition> revoked = new HashSet<>();
        group.groupSubscription().forEach((member, subscription) -> {
            ConsumerPartitionAssignor.Assignment a = result.groupAssignment().get(member);
            List<TopicPartition> assigned = a == null ? List.of() : a.partitions();
            assigned.stream().filter(tp -> !subscription.ownedPartitions().contains(tp)).forEach(added::add);
            subscription.ownedPartitions().stream().filter(tp -> !assigned.contains(tp)).forEach(revoked::add);
        });
        added.retainAll(revoked);
        return added;
    }

    /** Kafka's assignor in all but {@code assign}, which gives the vector's leader assignments. */
    private final class ScriptedLeader implements ConsumerPartitionAssignor {
        private final ConsumerPartitionAssignor kafka;

        ScriptedLeader(ConsumerPartitionAssignor kafka) {
            this.kafka = kafka;
        }

        @Override
        public ByteBuffer subscriptionUserData(Set<String> topics) {
            return kafka.subscriptionUserData(topics);
        }

        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
            GroupAssignment result;
            if (leaderAssignments.isEmpty()) {
                result = kafka.assign(metadata, groupSubscription);  // the answer's members, Kafka's assignor
            } else {
                Map<String, Assignment> m = new LinkedHashMap<>();
                for (JsonNode pair : leaderAssignments) {
                    m.put(pair.get(0).asText(), assignmentOf(pair.get(1)));
                }
                result = new GroupAssignment(m);
            }
            handedOver = handedOver(groupSubscription, result);
            return result;
        }

        @Override
        public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
            kafka.onAssignment(assignment, metadata);
        }

        @Override
        public List<RebalanceProtocol> supportedProtocols() {
            return kafka.supportedProtocols();
        }

        @Override
        public short version() {
            return kafka.version();
        }

        @Override
        public String name() {
            return kafka.name();
        }
    }

    /**
     * An assignor of the application's own (a name none of Kafka's has): the eager protocol, no
     * subscription user data, and no assignment of its own (a run gives the leader's).
     */
    private static final class CooperativeToo implements ConsumerPartitionAssignor {
        private final ConsumerPartitionAssignor kafka;

        CooperativeToo(ConsumerPartitionAssignor kafka) {
            this.kafka = kafka;
        }

        @Override
        public ByteBuffer subscriptionUserData(Set<String> topics) {
            return kafka.subscriptionUserData(topics);
        }

        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
            return kafka.assign(metadata, groupSubscription);
        }

        @Override
        public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
            kafka.onAssignment(assignment, metadata);
        }

        @Override
        public List<RebalanceProtocol> supportedProtocols() {
            return List.of(RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE);
        }

        @Override
        public short version() {
            return kafka.version();
        }

        @Override
        public String name() {
            return kafka.name();
        }
    }

    private static final class ApplicationAssignor implements ConsumerPartitionAssignor {
        private final String name;

        ApplicationAssignor(String name) {
            this.name = name;
        }

        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
            throw new UnsupportedOperationException("assignor " + name + " is the application's own: "
                + "the run must give the leader's assignments");
        }

        @Override
        public String name() {
            return name;
        }
    }

    private final class Listener implements ConsumerRebalanceListener {
        private void record(String kind, Collection<TopicPartition> partitions) {
            ObjectNode o = current.addObject();
            o.put("type", "Callback");
            o.put("kind", kind);
            o.set("partitions", sortedPartitions(partitions));
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            record("revoked", partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            record("assigned", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            record("lost", partitions);
        }
    }
}

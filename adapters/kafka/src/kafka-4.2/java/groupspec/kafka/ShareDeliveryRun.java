package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.internals.Acknowledgements;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.clients.consumer.internals.NetworkClientDelegate;
import org.apache.kafka.clients.consumer.internals.RequestManagers;
import org.apache.kafka.clients.consumer.internals.ShareConsumeRequestManager;
import org.apache.kafka.clients.consumer.internals.ShareConsumerAccess;
import org.apache.kafka.clients.consumer.internals.ShareConsumerImpl;
import org.apache.kafka.clients.consumer.internals.ShareConsumerMetadata;
import org.apache.kafka.clients.consumer.internals.ShareDeliveryAccess;
import org.apache.kafka.clients.consumer.internals.ShareFetch;
import org.apache.kafka.clients.consumer.internals.ShareFetchBuffer;
import org.apache.kafka.clients.consumer.internals.ShareFetchCollector;
import org.apache.kafka.clients.consumer.internals.ShareFetchConfig;
import org.apache.kafka.clients.consumer.internals.ShareSessionHandler;
import org.apache.kafka.clients.consumer.internals.SubscriptionState;
import org.apache.kafka.clients.consumer.internals.Deserializers;
import org.apache.kafka.clients.consumer.internals.events.ApplicationEvent;
import org.apache.kafka.clients.consumer.internals.events.ApplicationEventHandler;
import org.apache.kafka.clients.consumer.internals.events.ApplicationEventProcessor;
import org.apache.kafka.clients.consumer.internals.events.BackgroundEvent;
import org.apache.kafka.clients.consumer.internals.events.CompletableApplicationEvent;
import org.apache.kafka.clients.consumer.internals.events.ShareAcknowledgeSyncEvent;
import org.apache.kafka.clients.consumer.internals.events.ShareAcknowledgementEvent;
import org.apache.kafka.clients.consumer.internals.events.ShareAcknowledgementEventHandler;
import org.apache.kafka.clients.consumer.internals.events.ShareUnsubscribeEvent;
import org.apache.kafka.clients.consumer.internals.events.StopFindCoordinatorOnCloseEvent;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.requests.ShareAcknowledgeResponse;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.requests.ShareFetchResponse;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.LogContext;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * One share consumer's delivery path on kafka-clients 4.2.1's own classes: {@link ShareConsumerImpl}
 * (poll, acknowledge, commitSync, commitAsync, close, the acknowledgement commit callback) over
 * {@link ShareFetchBuffer}, {@link ShareFetchCollector}, {@link ShareFetch} and its in-flight batches,
 * and {@link ShareConsumeRequestManager} with its {@link ShareSessionHandler}s. The consumer is built
 * through its constructor for tests, whose ApplicationEventHandler is a mock that hands each event
 * to Kafka's own {@link ApplicationEventProcessor} (over a RequestManagers holding only the share
 * consume request manager) at once, instead of queueing it for a network thread. This class is that
 * network thread: after each event it polls the request manager until it sends or has nothing left
 * to do, and keeps what it sends in flight until the vector answers or fails it
 * ({@code FutureCompletionHandler}). Between events the clock moves past any retry backoff.
 *
 * <p>Why a thread of its own for the application: commitSync and close block on a future that only
 * the network thread completes, exactly as in a KafkaShareConsumer, so the application's calls run
 * on one thread of their own (ShareConsumerImpl refuses calls from a second thread) and this class
 * waits until the call returns or blocks. Polls use a zero timeout, so that the records a fetch
 * brings arrive after the poll that asked for them (groupspec's rule: the poll's timeout passes
 * before any answer).
 *
 * <p>Membership is share_consumer's machine: the consumer is subscribed to every topic the run
 * names, an Assign is SubscriptionState's assignFromSubscribed, the member id is set once (onMemberEpochUpdated), leaving the group on
 * close is answered at once, and the metadata is a mock naming one node (0) as the leader of every
 * partition and each topic's id.
 */
final class ShareDeliveryRun {
    static final class Unsupported extends Exception {
        Unsupported(String message) {
            super(message);
        }
    }

    private static final int NODE_ID = 0;
    private static final Node NODE = new Node(NODE_ID, "localhost", 9092);
    private static final long CALL_WAIT_S = 20;
    private static final long RETRY_BACKOFF_MS = 100;
    private static final int PASSES = 5;
    private static final long BACKOFF_PASSED_MS = 200;

    private final ScriptedClock time = new ScriptedClock(0);
    private final LogContext logContext = new LogContext();
    private final SubscriptionState subscriptions = new SubscriptionState(logContext, AutoOffsetResetStrategy.EARLIEST);
    private final Map<String, Uuid> ids = new HashMap<>();
    private final Map<Uuid, String> names = new HashMap<>();
    private final ShareFetchBuffer buffer = new ShareFetchBuffer(logContext);
    private final BlockingQueue<ShareAcknowledgementEvent> acknowledgementEvents = new LinkedBlockingQueue<>();
    private final ShareConsumeRequestManager manager;
    private final ApplicationEventProcessor processor;
    private final ShareConsumerImpl<byte[], byte[]> consumer;
    private final ExecutorService application = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "groupspec-share-delivery-application");
        t.setDaemon(true);
        return t;
    });
    /** Released when the application's call returns or blocks on a future. */
    private final Semaphore settled = new Semaphore(0);
    private final AtomicReference<CompletableFuture<?>> blockingOn = new AtomicReference<>();
    /** The application call blocked on the network thread (commitSync or close), and its kind. */
    private Future<ObjectNode> blockedCall;
    private String blockedKind;
    private boolean closed;

    private NetworkClientDelegate.UnsentRequest inFlight;
    private String inFlightKind;
    /** Callback invocations heard on the application thread in the current step. */
    private final List<ObjectNode> heard = new ArrayList<>();
    /** The record objects the last poll that returned records handed to the application. */
    private final Map<String, ConsumerRecord<byte[], byte[]>> returned = new HashMap<>();

    ShareDeliveryRun(JsonNode config, JsonNode events) throws Unsupported {
        String mode = config.path("mode").asText("IMPLICIT").toLowerCase(java.util.Locale.ROOT);
        int maxPollRecords = config.path("max_poll_records").asInt(500);
        nameTopics(events);

        // The consumer is subscribed to every topic the run names; an Assign is what the
        // membership reconciled (possibly nothing).
        subscriptions.subscribeToShareGroup(new java.util.HashSet<>(ids.keySet()));
        ShareConsumerMetadata metadata = mock(ShareConsumerMetadata.class);
        when(metadata.topicIds()).thenAnswer(inv -> new HashMap<>(ids));
        when(metadata.topicNames()).thenAnswer(inv -> new HashMap<>(names));
        when(metadata.currentLeader(any(TopicPartition.class))).thenAnswer(inv ->
            new Metadata.LeaderAndEpoch(Optional.of(NODE), Optional.of(0)));
        when(metadata.fetch()).thenAnswer(inv -> new Cluster("groupspec", List.of(NODE), List.of(), Set.of(), Set.of()));

        Metrics metrics = new Metrics(time);
        ShareFetchConfig fetchConfig = new ShareFetchConfig(1, 52428800, 500, 1048576, maxPollRecords, true, null,
            IsolationLevel.READ_UNCOMMITTED, org.apache.kafka.clients.consumer.internals.ShareAcquireMode.BATCH_OPTIMIZED);
        manager = ShareDeliveryAccess.manager(time, logContext, "g", metadata, subscriptions, fetchConfig, buffer,
            new ShareAcknowledgementEventHandler(acknowledgementEvents), metrics, RETRY_BACKOFF_MS, RETRY_BACKOFF_MS);
        manager.onMemberEpochUpdated(Optional.of(1), Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ").toString());
        processor = new ApplicationEventProcessor(logContext,
            new RequestManagers(logContext, manager, Optional.empty(), Optional.empty(), Optional.empty()),
            metadata, subscriptions);

        ApplicationEventHandler eventHandler = mock(ApplicationEventHandler.class);
        doAnswer(inv -> {
            dispatch(inv.getArgument(0));
            return null;
        }).when(eventHandler).add(any(ApplicationEvent.class));
        doAnswer(inv -> {
            CompletableApplicationEvent<?> event = inv.getArgument(0);
            dispatch(event);
            return block(event.future());
        }).when(eventHandler).addAndGet(any(CompletableApplicationEvent.class));
        when(eventHandler.maximumTimeToWait()).thenReturn(0L);

        Deserializers<byte[], byte[]> deserializers = new Deserializers<>(new ByteArrayDeserializer(),
            new ByteArrayDeserializer(), metrics);
        ShareFetchCollector<byte[], byte[]> collector = new ShareFetchCollector<>(logContext, metadata, subscriptions,
            fetchConfig, deserializers);
        BlockingQueue<BackgroundEvent> background = new LinkedBlockingQueue<>();
        consumer = ShareDeliveryAccess.consumer(logContext, "client", new ByteArrayDeserializer(),
            new ByteArrayDeserializer(), buffer, collector, time, eventHandler, acknowledgementEvents, background, metrics,
            subscriptions, metadata, 30000, 60000, "g", mode);
        // groupspec's machine always has a callback registered (docs/machines/share_delivery.md).
        call(() -> {
            consumer.setAcknowledgementCommitCallback((offsets, exception) -> offsets.forEach((tip, set) -> {
                ObjectNode c = Adapter.JSON.createObjectNode();
                c.put("topic", tip.topic());
                c.put("partition", tip.partition());
                ArrayNode os = c.putArray("offsets");
                new TreeSet<>(set).forEach(os::add);
                c.put("error", errorName(exception));
                heard.add(c);
            }));
            return null;
        });
    }

    /** What ApplicationEventHandler#add would queue for the network thread, processed now by
     *  Kafka's processor. Leaving the group (close) and the coordinator are membership's: done at once. */
    private void dispatch(ApplicationEvent event) {
        if (event instanceof ShareUnsubscribeEvent) {
            ((ShareUnsubscribeEvent) event).future().complete(null);
            return;
        }
        if (event instanceof StopFindCoordinatorOnCloseEvent) {
            return;
        }
        processor.process(event);
        if (event instanceof ShareAcknowledgeSyncEvent) {
            blockingOn.set(((ShareAcknowledgeSyncEvent) event).future());
            settled.release();
        }
    }

    private Object block(CompletableFuture<?> future) throws Exception {
        blockingOn.set(future);
        settled.release();
        return future.get();
    }

    private void nameTopics(JsonNode events) {
        TreeSet<String> topics = new TreeSet<>();
        for (JsonNode e : events) {
            e.path("partitions").forEach(p -> topics.add(p.path("topic").asText()));
            if (e.path("topic").isTextual()) {
                topics.add(e.path("topic").asText());
            }
        }
        long i = 1;
        for (String t : topics) {
            Uuid id = new Uuid(0x5EEDL, i++);
            ids.put(t, id);
            names.put(id, t);
        }
    }

    private interface Call {
        ObjectNode run() throws Exception;
    }

    /** Runs an application call on the application thread; its output, or null when it blocked. */
    private ObjectNode call(Call body) {
        blockingOn.set(null);
        settled.drainPermits();
        Future<ObjectNode> f = application.submit(() -> {
            try {
                return body.run();
            } finally {
                settled.release();
            }
        });
        try {
            if (!settled.tryAcquire(CALL_WAIT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the application call neither returned nor blocked");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        if (f.isDone() || blockingOn.get() == null) {
            return finish(f);
        }
        blockedCall = f;
        return null;
    }

    private ObjectNode finish(Future<ObjectNode> f) {
        try {
            ObjectNode out = f.get(CALL_WAIT_S, TimeUnit.SECONDS);
            return out == null ? Adapter.JSON.createObjectNode() : out;
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalStateException) {
                ObjectNode out = Adapter.JSON.createObjectNode();
                out.put("error", "IllegalStateException: " + cause.getMessage());
                return out;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the application call did not return", e);
        }
    }

    ObjectNode handle(JsonNode event) throws Unsupported {
        heard.clear();
        String type = event.path("type").asText();
        ObjectNode out = Adapter.JSON.createObjectNode();
        ObjectNode sent = null;
        ObjectNode appOut = null;
        boolean application = Set.of("Poll", "Acknowledge", "CommitSync", "CommitAsync", "Close").contains(type);
        if (application && blockedCall == null) {
            appOut = application(type, event);
        } else if (type.equals("Assign") && !closed) {
            assign(event);
        } else if (type.equals("FetchAnswered") || type.equals("AcknowledgeAnswered") || type.equals("RequestFailed")) {
            answer(type, event);
        } else if (!application && !type.equals("Assign")) {
            throw new Unsupported("no event " + type + " in share_delivery");
        }
        // groupspec's machine has no time: each event comes after any retry backoff of the
        // request states has passed (at most 120 ms: 100 ms with Kafka's 20% jitter).
        // Kafka's network thread loops: between two events it polls the request manager until it
        // sends (at most one request is in flight to the node) or has nothing left to do. A pass
        // can change state without sending (acknowledgements failed unsent at epoch 0, the close
        // completed), so the next pass may send what the first held back.
        time.sleep(BACKOFF_PASSED_MS);
        for (int i = 0; i < PASSES && sent == null; i++) {
            sent = pass();
        }
        if (blockedCall != null && blockingOn.get() != null && blockingOn.get().isDone()) {
            Future<ObjectNode> f = blockedCall;
            blockedCall = null;
            String kind = blockedKind;
            blockedKind = null;
            appOut = finish(f);
            if ("CLOSE".equals(kind)) {
                closed = true;
            }
        }
        ArrayNode records = out.putArray("records");
        if (appOut != null && appOut.has("records")) {
            records.addAll((ArrayNode) appOut.get("records"));
        }
        out.set("error", appOut != null && appOut.has("error") ? appOut.get("error") : Adapter.JSON.nullNode());
        out.set("sent", sent == null ? Adapter.JSON.nullNode() : sent);
        ArrayNode callbacks = out.putArray("callbacks");
        heard.forEach(callbacks::add);
        out.set("committed", appOut != null && appOut.has("committed") ? appOut.get("committed") : Adapter.JSON.nullNode());
        return out;
    }

    private ObjectNode application(String type, JsonNode event) throws Unsupported {
        switch (type) {
            case "Poll":
                return call(() -> {
                    ConsumerRecords<byte[], byte[]> got = consumer.poll(Duration.ZERO);
                    ObjectNode o = Adapter.JSON.createObjectNode();
                    ArrayNode rs = o.putArray("records");
                    List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
                    got.forEach(all::add);
                    if (!all.isEmpty()) {
                        returned.clear();
                    }
                    for (ConsumerRecord<byte[], byte[]> r : all) {
                        returned.put(key(r.topic(), r.partition(), r.offset()), r);
                        ObjectNode n = rs.addObject();
                        n.put("topic", r.topic());
                        n.put("partition", r.partition());
                        n.put("offset", r.offset());
                        n.put("delivery_count", r.deliveryCount().map(Short::intValue).orElse(0));
                    }
                    return o;
                });
            case "Acknowledge": {
                String topic = event.path("topic").asText();
                int partition = event.path("partition").asInt();
                long offset = event.path("offset").asLong();
                AcknowledgeType ackType = AcknowledgeType.valueOf(event.path("acknowledge_type").asText("ACCEPT"));
                // The application acknowledges a record object a poll returned
                // (acknowledge(topic, partition, offset, type) is for records that failed to
                // deserialize); a record no poll returned is one it makes itself.
                ConsumerRecord<byte[], byte[]> record = returned.getOrDefault(key(topic, partition, offset),
                    new ConsumerRecord<>(topic, partition, offset, null, null));
                return call(() -> {
                    consumer.acknowledge(record, ackType);
                    return null;
                });
            }
            case "CommitAsync":
                return call(() -> {
                    consumer.commitAsync();
                    return null;
                });
            case "CommitSync": {
                blockedKind = "COMMIT_SYNC";
                ObjectNode o = call(() -> {
                    Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
                    ObjectNode n = Adapter.JSON.createObjectNode();
                    ArrayNode committed = n.putArray("committed");
                    List<TopicIdPartition> tips = new ArrayList<>(result.keySet());
                    tips.sort(Comparator.comparing(TopicIdPartition::topic).thenComparingInt(TopicIdPartition::partition));
                    for (TopicIdPartition tip : tips) {
                        ObjectNode c = committed.addObject();
                        c.put("topic", tip.topic());
                        c.put("partition", tip.partition());
                        c.put("error", errorName(result.get(tip).orElse(null)));
                    }
                    return n;
                });
                if (o != null) {
                    blockedKind = null;
                }
                return o;
            }
            case "Close": {
                if (closed) {
                    return null;
                }
                blockedKind = "CLOSE";
                ObjectNode o = call(() -> {
                    consumer.close();
                    return null;
                });
                if (o != null) {
                    blockedKind = null;
                    closed = true;
                }
                return o;
            }
            default:
                throw new Unsupported("no event " + type);
        }
    }

    private void assign(JsonNode event) {
        Set<TopicPartition> partitions = new java.util.HashSet<>();
        for (JsonNode p : event.path("partitions")) {
            partitions.add(new TopicPartition(p.path("topic").asText(), p.path("partition").asInt()));
        }
        subscriptions.assignFromSubscribed(partitions);
    }

    /** One pass of the network thread: the request manager polled once, what it sends kept in flight. */
    private ObjectNode pass() throws Unsupported {
        ShareSessionHandler before = manager.sessionHandler(NODE_ID);
        Set<TopicIdPartition> sessionBefore = before == null ? Set.of() : new java.util.HashSet<>(before.sessionPartitions());
        boolean asyncWaiting = ShareDeliveryAccess.asyncWaiting(manager, NODE_ID);
        NetworkClientDelegate.PollResult result = manager.poll(time.milliseconds());
        List<NetworkClientDelegate.UnsentRequest> requests = result.unsentRequests;
        if (requests.isEmpty()) {
            return null;
        }
        if (requests.size() > 1 || inFlight != null) {
            throw new Unsupported("Kafka's request manager sent a second request to the one node while one was in flight");
        }
        NetworkClientDelegate.UnsentRequest request = requests.get(0);
        AbstractRequest.Builder<?> builder = ShareConsumerAccess.builder(request);
        ObjectNode sent = Adapter.JSON.createObjectNode();
        inFlight = request;
        if (builder instanceof ShareFetchRequest.Builder) {
            ShareFetchRequestData data = ((ShareFetchRequest.Builder) builder).data();
            inFlightKind = "SHARE_FETCH";
            sent.put("type", "ShareFetchSent");
            sent.put("session_epoch", data.shareSessionEpoch());
            ArrayNode added = sent.putArray("added");
            ArrayNode forgotten = sent.putArray("forgotten");
            ArrayNode acks = sent.putArray("acknowledgements");
            TreeMap<String, ObjectNode> addedSorted = new TreeMap<>();
            TreeMap<String, ObjectNode> acksSorted = new TreeMap<>();
            for (ShareFetchRequestData.FetchTopic t : data.topics()) {
                String topic = names.get(t.topicId());
                for (ShareFetchRequestData.FetchPartition p : t.partitions()) {
                    TopicIdPartition tip = new TopicIdPartition(t.topicId(), p.partitionIndex(), topic);
                    if (!p.acknowledgementBatches().isEmpty()) {
                        ObjectNode pa = partition(topic, p.partitionIndex());
                        ArrayNode batches = pa.putArray("batches");
                        for (ShareFetchRequestData.AcknowledgementBatch b : p.acknowledgementBatches()) {
                            batch(batches, b.firstOffset(), b.lastOffset(), b.acknowledgeTypes());
                        }
                        acksSorted.put(key(topic, p.partitionIndex(), 0), pa);
                    }
                }
            }
            // Added: what the handler took into its session for this request (a partition whose
            // acknowledgements ride alone is listed in the request without joining the session).
            for (TopicIdPartition tip : manager.sessionHandler(NODE_ID).sessionPartitions()) {
                if (data.shareSessionEpoch() == 0 || !sessionBefore.contains(tip)) {
                    addedSorted.put(key(tip.topic(), tip.partition(), 0), partition(tip.topic(), tip.partition()));
                }
            }
            TreeMap<String, ObjectNode> forgottenSorted = new TreeMap<>();
            for (ShareFetchRequestData.ForgottenTopic t : data.forgottenTopicsData()) {
                String topic = names.get(t.topicId());
                for (int p : t.partitions()) {
                    forgottenSorted.put(key(topic, p, 0), partition(topic, p));
                }
            }
            addedSorted.values().forEach(added::add);
            forgottenSorted.values().forEach(forgotten::add);
            acksSorted.values().forEach(acks::add);
        } else if (builder instanceof ShareAcknowledgeRequest.Builder) {
            ShareAcknowledgeRequestData data = ((ShareAcknowledgeRequest.Builder) builder).data();
            inFlightKind = data.shareSessionEpoch() == -1 ? "CLOSE" : asyncWaiting ? "COMMIT_ASYNC" : "COMMIT_SYNC";
            sent.put("type", "ShareAcknowledgeSent");
            sent.put("session_epoch", data.shareSessionEpoch());
            sent.put("request_type", inFlightKind);
            ArrayNode acks = sent.putArray("acknowledgements");
            TreeMap<String, ObjectNode> acksSorted = new TreeMap<>();
            for (ShareAcknowledgeRequestData.AcknowledgeTopic t : data.topics()) {
                String topic = names.get(t.topicId());
                for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
                    ObjectNode pa = partition(topic, p.partitionIndex());
                    ArrayNode batches = pa.putArray("batches");
                    for (ShareAcknowledgeRequestData.AcknowledgementBatch b : p.acknowledgementBatches()) {
                        batch(batches, b.firstOffset(), b.lastOffset(), b.acknowledgeTypes());
                    }
                    acksSorted.put(key(topic, p.partitionIndex(), 0), pa);
                }
            }
            acksSorted.values().forEach(acks::add);
        } else {
            throw new Unsupported("Kafka's request manager sent " + builder.apiKey() + ", which no event answers");
        }
        return sent;
    }

    private void answer(String type, JsonNode event) throws Unsupported {
        if (inFlight == null) {
            return;
        }
        NetworkClientDelegate.UnsentRequest request = inFlight;
        String kind = inFlightKind;
        if (type.equals("FetchAnswered") != kind.equals("SHARE_FETCH") && !type.equals("RequestFailed")) {
            // Spec: an answer of the other kind is ignored.
            return;
        }
        inFlight = null;
        inFlightKind = null;
        long now = time.milliseconds();
        NetworkClientDelegate.FutureCompletionHandler handler = ShareConsumerAccess.handler(request);
        AbstractRequest.Builder<?> builder = ShareConsumerAccess.builder(request);
        ApiKeys key = builder.apiKey();
        short version = builder.latestAllowedVersion();
        RequestHeader header = new RequestHeader(key, version, "client", 1);
        if (type.equals("RequestFailed")) {
            handler.onComplete(new ClientResponse(header, handler, "0", now, now, true, null, null, null));
            return;
        }
        AbstractResponse response = type.equals("FetchAnswered") ? fetchResponse(event, version) : acknowledgeResponse(event);
        handler.onComplete(new ClientResponse(header, handler, "0", now, now, false, null, null, response));
    }

    private ShareFetchResponse fetchResponse(JsonNode event, short version) {
        ShareFetchResponseData data = new ShareFetchResponseData()
            .setErrorCode(Errors.valueOf(event.path("error").asText("NONE")).code());
        Map<Uuid, ShareFetchResponseData.ShareFetchableTopicResponse> topics = new LinkedHashMap<>();
        for (JsonNode p : event.path("partitions")) {
            String topic = p.path("topic").asText();
            Uuid id = ids.get(topic);
            ShareFetchResponseData.ShareFetchableTopicResponse t = topics.computeIfAbsent(id,
                k -> new ShareFetchResponseData.ShareFetchableTopicResponse().setTopicId(k));
            List<ShareFetchResponseData.AcquiredRecords> acquired = new ArrayList<>();
            List<ByteBuffer> batches = new ArrayList<>();
            int size = 0;
            for (JsonNode a : p.path("acquired_records")) {
                long first = a.path("first_offset").asLong();
                long last = a.path("last_offset").asLong();
                int count = a.path("delivery_count").asInt(1);
                acquired.add(new ShareFetchResponseData.AcquiredRecords().setFirstOffset(first).setLastOffset(last)
                    .setDeliveryCount((short) count));
                // Each record a log batch of its own: groupspec's model has no log batches, and
                // Kafka's poll returns the rest of a log batch beyond max.poll.records
                // (ShareCompletedFetch#fetchRecords reads on while currentBatchHasMoreRecords).
                for (long o = first; o <= last; o++) {
                    MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(256), Compression.NONE,
                        TimestampType.CREATE_TIME, o);
                    b.append(0L, null, ("v" + o).getBytes(StandardCharsets.UTF_8));
                    ByteBuffer built = b.build().buffer();
                    size += built.remaining();
                    batches.add(built);
                }
            }
            ByteBuffer all = ByteBuffer.allocate(size);
            batches.forEach(all::put);
            all.flip();
            t.partitions().add(new ShareFetchResponseData.PartitionData()
                .setPartitionIndex(p.path("partition").asInt())
                .setErrorCode(Errors.NONE.code())
                .setAcknowledgeErrorCode(Errors.valueOf(p.path("acknowledge_error").asText("NONE")).code())
                .setRecords(MemoryRecords.readableRecords(all))
                .setAcquiredRecords(acquired));
        }
        topics.values().forEach(data.responses()::add);
        // Through Kafka's wire form, as a client reads it.
        return ShareFetchResponse.parse(org.apache.kafka.common.protocol.MessageUtil.toByteBufferAccessor(data, version), version);
    }

    private ShareAcknowledgeResponse acknowledgeResponse(JsonNode event) {
        ShareAcknowledgeResponseData data = new ShareAcknowledgeResponseData()
            .setErrorCode(Errors.valueOf(event.path("error").asText("NONE")).code());
        Map<Uuid, ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse> topics = new LinkedHashMap<>();
        for (JsonNode p : event.path("partitions")) {
            Uuid id = ids.get(p.path("topic").asText());
            ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse t = topics.computeIfAbsent(id,
                k -> new ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse().setTopicId(k));
            t.partitions().add(new ShareAcknowledgeResponseData.PartitionData()
                .setPartitionIndex(p.path("partition").asInt())
                .setErrorCode(Errors.valueOf(p.path("error").asText("NONE")).code()));
        }
        topics.values().forEach(data.responses()::add);
        return new ShareAcknowledgeResponse(data);
    }

    ObjectNode view() {
        ObjectNode v = Adapter.JSON.createObjectNode();
        TreeMap<String, ObjectNode> assigned = new TreeMap<>();
        subscriptions.assignedPartitions().forEach(tp -> assigned.put(key(tp.topic(), tp.partition(), 0),
            partition(tp.topic(), tp.partition())));
        v.putArray("assigned").addAll(assigned.values());
        ShareSessionHandler handler = manager.sessionHandler(NODE_ID);
        v.put("session_epoch", handler == null ? 0 : ShareDeliveryAccess.epoch(handler));
        TreeMap<String, ObjectNode> session = new TreeMap<>();
        if (handler != null) {
            handler.sessionPartitions().forEach(tip -> session.put(key(tip.topic(), tip.partition(), 0),
                partition(tip.topic(), tip.partition())));
        }
        v.putArray("session_partitions").addAll(session.values());
        v.set("in_flight", inFlightKind == null ? Adapter.JSON.nullNode() : com.fasterxml.jackson.databind.node.TextNode.valueOf(inFlightKind));
        v.put("fetch_wanted", ShareDeliveryAccess.fetchMoreRecords(manager));
        ArrayNode buffered = v.putArray("buffered");
        for (Object[] r : ShareDeliveryAccess.buffered(buffer)) {
            TopicIdPartition tip = (TopicIdPartition) r[0];
            buffered.add(record(tip.topic(), tip.partition(), (Long) r[1], (Integer) r[2]));
        }
        TreeMap<String, ObjectNode> delivered = new TreeMap<>();
        TreeMap<String, ObjectNode> marked = new TreeMap<>();
        ShareFetch<?, ?> current = ShareDeliveryAccess.currentFetch(consumer);
        ShareDeliveryAccess.batches(current).forEach((tip, batch) -> {
            ShareDeliveryAccess.inFlight(batch).forEach((offset, r) -> delivered.put(key(tip.topic(), tip.partition(), offset),
                record(tip.topic(), tip.partition(), offset, r.deliveryCount().map(Short::intValue).orElse(0))));
            Acknowledgements marks = ShareDeliveryAccess.marks(batch);
            if (marks != null) {
                marks.getAcknowledgementsTypeMap().forEach((offset, t) -> {
                    if (t == null) {
                        return;
                    }
                    ObjectNode m = partition(tip.topic(), tip.partition());
                    m.put("offset", offset);
                    m.put("acknowledge_type", t.name());
                    marked.put(key(tip.topic(), tip.partition(), offset), m);
                });
            }
        });
        v.putArray("delivered").addAll(delivered.values());
        v.putArray("marked").addAll(marked.values());
        TreeMap<String, ObjectNode> riding = new TreeMap<>();
        Map<TopicIdPartition, Acknowledgements> toRide = ShareDeliveryAccess.riding(manager).get(NODE_ID);
        if (toRide != null) {
            toRide.forEach((tip, acks) -> {
                if (acks.isEmpty()) {
                    return;
                }
                ObjectNode pa = partition(tip.topic(), tip.partition());
                ArrayNode batches = pa.putArray("batches");
                acks.getAcknowledgementBatches().forEach(b ->
                    batch(batches, b.firstOffset(), b.lastOffset(), b.acknowledgeTypes()));
                riding.put(key(tip.topic(), tip.partition(), 0), pa);
            });
        }
        v.putArray("riding").addAll(riding.values());
        ArrayNode queued = v.putArray("queued");
        ShareDeliveryAccess.queued(manager, NODE_ID, inFlightKind).forEach(queued::add);
        int waiting = 0;
        for (ShareAcknowledgementEvent e : acknowledgementEvents) {
            waiting += e.acknowledgementsMap().size();
        }
        v.put("waiting_callbacks", waiting);
        v.put("phase", closed ? "CLOSED" : blockedCall != null ? "BLOCKED" : "OPEN");
        v.set("blocked", blockedCall != null && blockedKind != null ? com.fasterxml.jackson.databind.node.TextNode.valueOf(blockedKind) : Adapter.JSON.nullNode());
        return v;
    }

    /** Stops the application thread (a call still blocked is abandoned with the run). */
    void close() {
        application.shutdownNow();
    }

    /** The error code an exception stands for. A lost connection completes the acknowledgements
     *  with DisconnectException, which has no code of its own (Errors.forException would say
     *  UNKNOWN_SERVER_ERROR): groupspec's vocabulary names that failure NETWORK_EXCEPTION. */
    private static String errorName(Throwable exception) {
        if (exception == null) {
            return "NONE";
        }
        if (exception instanceof org.apache.kafka.common.errors.DisconnectException) {
            return Errors.NETWORK_EXCEPTION.name();
        }
        return Errors.forException(exception).name();
    }

    private static void batch(ArrayNode batches, long first, long last, List<Byte> types) {
        ObjectNode b = batches.addObject();
        b.put("first_offset", first);
        b.put("last_offset", last);
        ArrayNode ts = b.putArray("acknowledge_types");
        types.forEach(t -> ts.add(t.intValue()));
    }

    private static ObjectNode partition(String topic, int partition) {
        ObjectNode n = Adapter.JSON.createObjectNode();
        n.put("topic", topic);
        n.put("partition", partition);
        return n;
    }

    private static ObjectNode record(String topic, int partition, long offset, int deliveryCount) {
        ObjectNode n = partition(topic, partition);
        n.put("offset", offset);
        n.put("delivery_count", deliveryCount);
        return n;
    }

    private static String key(String topic, int partition, long offset) {
        return String.format("%s\u0000%010d\u0000%020d", topic, partition, offset);
    }
}

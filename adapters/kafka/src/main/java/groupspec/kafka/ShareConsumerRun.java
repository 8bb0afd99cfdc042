package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.internals.AbstractMembershipManager;
import org.apache.kafka.clients.consumer.internals.ConsumerMetadata;
import org.apache.kafka.clients.consumer.internals.CoordinatorRequestManager;
import org.apache.kafka.clients.consumer.internals.HeartbeatRequestState;
import org.apache.kafka.clients.consumer.internals.MemberState;
import org.apache.kafka.clients.consumer.internals.NetworkClientDelegate;
import org.apache.kafka.clients.consumer.internals.RequestManager;
import org.apache.kafka.clients.consumer.internals.ShareConsumerAccess;
import org.apache.kafka.clients.consumer.internals.ShareHeartbeatRequestManager;
import org.apache.kafka.clients.consumer.internals.ShareMembershipManager;
import org.apache.kafka.clients.consumer.internals.SubscriptionState;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.clients.consumer.internals.events.BackgroundEvent;
import org.apache.kafka.clients.consumer.internals.events.BackgroundEventHandler;
import org.apache.kafka.clients.consumer.internals.events.ErrorEvent;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatResponse;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.LogContext;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * One share consumer's membership on Kafka 4.2.1's own client classes: {@link ShareMembershipManager},
 * {@link ShareHeartbeatRequestManager} (with its {@code HeartbeatState} and {@link HeartbeatRequestState}),
 * {@link CoordinatorRequestManager} and the poll timer, on a clock that only a Tick moves ({@link ScriptedClock}).
 *
 * <p>This class plays what surrounds them in a KafkaShareConsumer: the application thread's calls
 * become what ApplicationEventProcessor does with them (subscribe: {@code subscribeToShareGroup} then
 * {@code onSubscriptionUpdated}; unsubscribe, or an empty subscription: {@code unsubscribe} then
 * {@code leaveGroup}; poll: the SharePollEvent's {@code maybeReconcile(true)}, {@code onConsumerPoll},
 * {@code resetPollTimer}, and nothing when ShareConsumerImpl#poll throws for want of a subscription).
 * The network thread runs as ConsumerNetworkThread runs: each pass polls every request manager in
 * RequestManagers' order (coordinator, heartbeat, membership) and sends what they return; it is woken
 * by the application's calls and by responses, and otherwise sleeps until the least of its 5 s cap and
 * the managers' own timeouts. This class plays the network: heartbeats are kept in send order and the
 * vector's answers and failures complete them ({@code FutureCompletionHandler#onComplete}); a
 * FindCoordinator is answered at once, except after the coordinator was lost, when its answer arrives
 * retry.backoff.ms after the loss (groupspec's rediscovery time). Collaborators that hold no rule of
 * membership are a mock (the metadata, which names each assigned topic id; the background event
 * handler, which collects the error events) or plain objects (SubscriptionState, Metrics).
 */
final class ShareConsumerRun {
    static final class Unsupported extends Exception {
        Unsupported(String message) {
            super(message);
        }
    }

    private static final int PASSES = 20;
    private static final long MAX_POLL_TIMEOUT_MS = 5000;
    private static final long MAX_WAKES = 2_000_000;
    private static final String CLIENT_HOST = "/127.0.0.1";

    private final ScriptedClock time;
    private final String groupId;
    private final String configMemberId;
    private final String clientId;
    private final long retryBackoffMs;
    private final SubscriptionState subscriptions;
    private final CoordinatorRequestManager coordinator;
    private final ShareMembershipManager membership;
    private final HeartbeatRequestState requestState;
    private final ShareHeartbeatRequestManager heartbeats;
    private final List<RequestManager> managers;
    private final List<BackgroundEvent> errors = new ArrayList<>();
    /** Topic ids (Kafka's) and the names the metadata gives them. */
    private final Map<Uuid, String> names = new LinkedHashMap<>();
    private final Map<String, Uuid> ids = new HashMap<>();

    /** Heartbeats sent and not yet answered, oldest first. */
    private final Deque<NetworkClientDelegate.UnsentRequest> inFlight = new ArrayDeque<>();
    private NetworkClientDelegate.UnsentRequest heldFind;
    private long lostAtMs = Long.MIN_VALUE / 2;
    /** When the sleeping network thread wakes by its timeout. */
    private long wakeAtMs;
    private boolean knewCoordinator;
    private final List<ShareGroupHeartbeatRequestData> sentNow = new ArrayList<>();
    private final List<Long> sentAt = new ArrayList<>();

    ShareConsumerRun(JsonNode config, long startMs, JsonNode events) throws Unsupported, Adapter.Answer {
        time = new ScriptedClock(startMs);
        groupId = config.path("group_id").asText("g");
        configMemberId = config.path("member_id").asText("member");
        clientId = config.path("client_id").asText("client");
        String rack = config.path("rack_id").isTextual() ? config.path("rack_id").asText() : null;
        int maxPollIntervalMs = config.path("max_poll_interval_ms").asInt(300_000);
        retryBackoffMs = config.path("retry_backoff_ms").asLong(100);
        nameTopics(events);

        Properties props = new Properties();
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        props.setProperty(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.setProperty(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.setProperty(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, String.valueOf(maxPollIntervalMs));
        props.setProperty(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, String.valueOf(retryBackoffMs));
        // groupspec's backoff is retry.backoff.ms every time: the exponential backoff capped there.
        props.setProperty(ConsumerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, String.valueOf(retryBackoffMs));
        ConsumerConfig consumerConfig = new ConsumerConfig(props);

        LogContext log = new LogContext();
        Metrics metrics = new Metrics(time);
        subscriptions = new SubscriptionState(log, AutoOffsetResetStrategy.NONE);
        ConsumerMetadata metadata = mock(ConsumerMetadata.class);
        when(metadata.topicNames()).thenReturn(names);
        BackgroundEventHandler events2 = mock(BackgroundEventHandler.class);
        doAnswer(inv -> errors.add(inv.getArgument(0))).when(events2).add(any());

        coordinator = new CoordinatorRequestManager(log, retryBackoffMs, retryBackoffMs, groupId);
        membership = new ShareMembershipManager(log, groupId, rack, subscriptions, metadata, time, metrics);
        // As upstream's tests build it: no jitter, so that a backoff is exactly retry.backoff.ms.
        requestState = new HeartbeatRequestState(log, time, 0, retryBackoffMs, retryBackoffMs, 0.0);
        heartbeats = ShareConsumerAccess.heartbeatManager(log, time.timer(maxPollIntervalMs), consumerConfig, coordinator,
            membership, subscriptions, requestState, events2, metrics);
        managers = List.of(coordinator, heartbeats, membership);
        runNetworkThread();
        sentNow.clear();
    }

    /** The i-th topic id assigned in the run is named by the i-th topic name subscribed in it. */
    private void nameTopics(JsonNode events) throws Unsupported {
        List<String> subscribed = new ArrayList<>();
        List<String> assigned = new ArrayList<>();
        for (JsonNode e : events) {
            if (e.path("type").asText().equals("Subscribe")) {
                for (JsonNode t : e.path("topics")) {
                    if (!subscribed.contains(t.asText())) {
                        subscribed.add(t.asText());
                    }
                }
            }
            for (JsonNode tp : e.path("response").path("assignment")) {
                String id = tp.path("topic_id").asText();
                if (!assigned.contains(id)) {
                    assigned.add(id);
                }
            }
        }
        if (assigned.size() > subscribed.size()) {
            throw new Unsupported("the run assigns " + assigned.size() + " topic ids but subscribes " + subscribed.size()
                + " names: Kafka's client needs a subscribed name for every assigned id, and the vector gives none");
        }
        for (int i = 0; i < assigned.size(); i++) {
            Uuid id = uuid(assigned.get(i));
            names.put(id, subscribed.get(i));
            ids.put(subscribed.get(i), id);
        }
    }

    static Uuid uuid(String text) throws Unsupported {
        try {
            UUID u = UUID.fromString(text);
            return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
        } catch (IllegalArgumentException e) {
            throw new Unsupported("topic id " + text + " is not a UUID");
        }
    }

    static String text(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
    }

    ObjectNode handle(JsonNode event) throws Unsupported, Adapter.Answer {
        MemberState before = membership.state();
        Map<Uuid, SortedSet<Integer>> ownedBefore = owned();
        int errorsBefore = errors.size();
        sentNow.clear();
        sentAt.clear();
        boolean pollThrew = false;
        String type = event.path("type").asText();
        switch (type) {
            case "Subscribe": {
                List<String> topics = new ArrayList<>();
                event.path("topics").forEach(t -> topics.add(t.asText()));
                if (topics.isEmpty()) {
                    unsubscribe();  // ShareConsumerImpl#subscribe: an empty list unsubscribes
                } else {
                    subscriptions.subscribeToShareGroup(new HashSet<>(topics));
                    membership.onSubscriptionUpdated();
                }
                break;
            }
            case "Unsubscribe":
                unsubscribe();
                break;
            case "Poll":
                // ShareConsumerImpl#poll throws IllegalStateException before its SharePollEvent when
                // nothing is subscribed: the background thread then hears nothing.
                pollThrew = subscriptions.hasNoSubscriptionOrUserAssignment();
                if (!pollThrew) {
                    membership.maybeReconcile(true);
                    membership.onConsumerPoll();
                    heartbeats.resetPollTimer(time.milliseconds());
                }
                break;
            case "Tick":
                // Only time passes: the thread runs where its own timeouts fall, not at the Tick.
                advanceTo(event.path("to_ms").asLong());
                break;
            case "HeartbeatAnswered":
                complete(oldest(), response(event.path("response")), null);
                break;
            case "HeartbeatFailed":
                if (event.path("retriable").asBoolean(true)) {
                    complete(oldest(), null, "disconnected");
                } else {
                    complete(oldest(), null, "authentication");
                }
                break;
            default:
                throw Adapter.Answer.error("invalid_input", "unknown event type " + type);
        }
        // An application event wakes the thread (ApplicationEventHandler#add), and so does a response
        // (its network poll returns); a Tick does not, and a Poll that threw sent no event.
        if (!type.equals("Tick") && !(type.equals("Poll") && pollThrew)) {
            runNetworkThread();
        }
        if (sentNow.size() > 1) {
            throw new Unsupported("Kafka's client sent " + sentNow.size() + " heartbeats during this " + type + " (at "
                + sentAt + " ms, epochs " + sentNow.stream().map(d -> String.valueOf(d.memberEpoch())).toList()
                + "), and an output holds one");
        }
        ObjectNode out = Adapter.JSON.createObjectNode();
        if (sentNow.isEmpty()) {
            out.putNull("sent");
        } else {
            out.set("sent", heartbeat(sentNow.get(0)));
        }
        Map<Uuid, SortedSet<Integer>> ownedAfter = owned();
        if (ownedAfter.equals(ownedBefore)) {
            out.putNull("assigned");
        } else {
            out.set("assigned", partitions(ownedAfter));
        }
        if (membership.state() == MemberState.FATAL && before != MemberState.FATAL) {
            out.put("fatal", fatalText(type, errorsBefore));
        } else {
            out.putNull("fatal");
        }
        return out;
    }

    private void unsubscribe() {
        // ApplicationEventProcessor#process(ShareUnsubscribeEvent)
        subscriptions.unsubscribe();
        membership.leaveGroup();
    }

    private String fatalText(String type, int errorsBefore) {
        if (type.equals("HeartbeatFailed")) {
            return "ShareGroupHeartbeat failed and cannot be retried";
        }
        for (int i = errors.size() - 1; i >= errorsBefore; i--) {
            if (errors.get(i) instanceof ErrorEvent) {
                return Errors.forException(((ErrorEvent) errors.get(i)).error()).name() + " from ShareGroupHeartbeat";
            }
        }
        return "FATAL without an error event";
    }

    private NetworkClientDelegate.UnsentRequest oldest() throws Unsupported {
        NetworkClientDelegate.UnsentRequest r = inFlight.pollFirst();
        if (r == null) {
            throw new Unsupported("the vector answers a heartbeat, but every heartbeat Kafka's client sent is answered "
                + "already (it sent them at other times than groupspec's: see the earlier events)");
        }
        return r;
    }

    private ShareGroupHeartbeatResponse response(JsonNode r) throws Unsupported {
        ShareGroupHeartbeatResponseData data = new ShareGroupHeartbeatResponseData();
        Errors error;
        try {
            error = Errors.valueOf(r.path("error").asText("NONE"));
        } catch (IllegalArgumentException e) {
            throw new Unsupported("error " + r.path("error").asText() + " is not one of Kafka's Errors");
        }
        data.setErrorCode(error.code());
        String member = r.path("member_id").isTextual() ? r.path("member_id").asText() : null;
        data.setMemberId(configMemberId.equals(member) ? membership.memberId() : member);
        data.setMemberEpoch(r.path("member_epoch").asInt(0));
        data.setHeartbeatIntervalMs(r.path("heartbeat_interval_ms").asInt(0));
        JsonNode assignment = r.path("assignment");
        if (assignment.isArray()) {
            List<ShareGroupHeartbeatResponseData.TopicPartitions> tps = new ArrayList<>();
            for (JsonNode tp : assignment) {
                List<Integer> ps = new ArrayList<>();
                tp.path("partitions").forEach(p -> ps.add(p.asInt()));
                tps.add(new ShareGroupHeartbeatResponseData.TopicPartitions()
                    .setTopicId(uuid(tp.path("topic_id").asText())).setPartitions(ps));
            }
            data.setAssignment(new ShareGroupHeartbeatResponseData.Assignment().setTopicPartitions(tps));
        } else {
            data.setAssignment(null);
        }
        return new ShareGroupHeartbeatResponse(data);
    }

    /** Completes a request the way NetworkClient does: a response, a disconnect, or an authentication failure. */
    private void complete(NetworkClientDelegate.UnsentRequest request, org.apache.kafka.common.requests.AbstractResponse body,
                          String failure) {
        long now = time.milliseconds();
        ApiKeys key = ShareConsumerAccess.builder(request).apiKey();
        RequestHeader header = new RequestHeader(key, key.latestVersion(), clientId, 1);
        ClientResponse response = new ClientResponse(header, ShareConsumerAccess.handler(request), "0", now, now,
            "disconnected".equals(failure), null,
            "authentication".equals(failure) ? new SaslAuthenticationException("authentication failed") : null,
            body);
        ShareConsumerAccess.handler(request).onComplete(response);
        noteCoordinator();
    }

    private void noteCoordinator() {
        boolean known = coordinator.coordinator().isPresent();
        if (knewCoordinator && !known) {
            lostAtMs = time.milliseconds();
        }
        knewCoordinator = known;
    }

    /**
     * The network thread, woken at the current time (ConsumerNetworkThread#run: runOnce after
     * runOnce). A pass polls every request manager at the current time and sends what they return;
     * its network poll then returns at once when a response arrives (a FindCoordinator this class
     * answers now), and otherwise sleeps: until an application event or a response wakes it, or
     * until its timeout, the least of ConsumerNetworkThread.MAX_POLL_TIMEOUT_MS (5 s) and the
     * request managers' {@code timeUntilNextPollMs}, which {@link #advanceTo} honours.
     */
    private void runNetworkThread() throws Adapter.Answer {
        for (int pass = 0; pass < PASSES; pass++) {
            long now = time.milliseconds();
            noteCoordinator();
            long wait = MAX_POLL_TIMEOUT_MS;
            List<NetworkClientDelegate.UnsentRequest> out = new ArrayList<>();
            for (RequestManager m : managers) {
                NetworkClientDelegate.PollResult r = m.poll(now);
                out.addAll(r.unsentRequests);
                wait = Math.min(wait, r.timeUntilNextPollMs);
            }
            for (NetworkClientDelegate.UnsentRequest r : out) {
                send(r);
            }
            if (!maybeAnswerFind()) {
                wakeAtMs = now + Math.max(wait, 0);
                return;
            }
        }
        throw Adapter.Answer.error("adapter_limit", "the network thread was still busy after " + PASSES + " passes at "
            + time.milliseconds() + " ms");
    }

    /**
     * Time passes to {@code toMs}: the sleeping network thread wakes at each of its timeouts on the
     * way (a timeout of 0, a thread that spins, runs every millisecond), then the clock stops at toMs.
     */
    private void advanceTo(long toMs) throws Adapter.Answer {
        long wakes = 0;
        while (true) {
            long next = wakeAtMs;
            if (heldFind != null) {
                next = Math.min(next, lostAtMs + retryBackoffMs);  // its answer arrives then
            }
            next = Math.max(next, time.milliseconds() + 1);
            if (next > toMs) {
                break;
            }
            time.sleep(next - time.milliseconds());
            maybeAnswerFind();
            runNetworkThread();
            if (++wakes > MAX_WAKES) {
                throw Adapter.Answer.error("adapter_limit", "the network thread woke over " + MAX_WAKES + " times");
            }
        }
        if (toMs > time.milliseconds()) {
            time.sleep(toMs - time.milliseconds());
        }
    }

    private void send(NetworkClientDelegate.UnsentRequest r) {
        AbstractRequest.Builder<?> builder = ShareConsumerAccess.builder(r);
        if (builder instanceof FindCoordinatorRequest.Builder) {
            heldFind = r;
        } else if (builder instanceof ShareGroupHeartbeatRequest.Builder) {
            ShareGroupHeartbeatRequest request = ((ShareGroupHeartbeatRequest.Builder) builder).build(ApiKeys.SHARE_GROUP_HEARTBEAT.latestVersion());
            sentNow.add(request.data());
            sentAt.add(time.milliseconds());
            inFlight.addLast(r);
        } else {
            throw new IllegalStateException("unexpected request " + builder);
        }
    }

    /** The held FindCoordinator is answered once retry.backoff.ms has passed since the coordinator was lost. */
    private boolean maybeAnswerFind() {
        if (heldFind == null || time.milliseconds() < lostAtMs + retryBackoffMs) {
            return false;
        }
        NetworkClientDelegate.UnsentRequest r = heldFind;
        heldFind = null;
        FindCoordinatorResponseData data = new FindCoordinatorResponseData();
        data.setCoordinators(List.of(new FindCoordinatorResponseData.Coordinator()
            .setKey(groupId).setNodeId(0).setHost("localhost").setPort(9092).setErrorCode(Errors.NONE.code())));
        complete(r, new FindCoordinatorResponse(data), null);
        return true;
    }

    private Map<Uuid, SortedSet<Integer>> owned() {
        Map<Uuid, SortedSet<Integer>> m = new TreeMap<>((a, b) -> text(a).compareTo(text(b)));
        for (TopicPartition tp : subscriptions.assignedPartitions()) {
            Uuid id = ids.get(tp.topic());
            if (id == null) {
                throw new IllegalStateException("assigned topic " + tp.topic() + " has no id");
            }
            m.computeIfAbsent(id, k -> new TreeSet<>()).add(tp.partition());
        }
        return m;
    }

    private static ArrayNode partitions(Map<Uuid, ? extends SortedSet<Integer>> m) {
        TreeMap<String, SortedSet<Integer>> sorted = new TreeMap<>();
        m.forEach((id, ps) -> sorted.put(text(id), ps));
        ArrayNode a = Adapter.JSON.createArrayNode();
        sorted.forEach((id, ps) -> {
            if (ps.isEmpty()) {
                return;
            }
            ObjectNode tp = a.addObject();
            tp.put("topic_id", id);
            ArrayNode list = tp.putArray("partitions");
            ps.forEach(list::add);
        });
        return a;
    }

    private ObjectNode heartbeat(ShareGroupHeartbeatRequestData d) {
        ObjectNode o = Adapter.JSON.createObjectNode();
        o.put("group_id", d.groupId());
        o.put("member_id", d.memberId().equals(membership.memberId()) ? configMemberId : d.memberId());
        o.put("member_epoch", d.memberEpoch());
        if (d.rackId() == null) {
            o.putNull("rack_id");
        } else {
            o.put("rack_id", d.rackId());
        }
        if (d.subscribedTopicNames() == null) {
            o.putNull("subscribed_topic_names");
        } else {
            // Kafka sends the subscription in its set's order; groupspec's form is sorted.
            ArrayNode names = o.putArray("subscribed_topic_names");
            new TreeSet<>(d.subscribedTopicNames()).forEach(names::add);
        }
        // Not in the request's body: the header's client id and the connection's address.
        o.put("client_id", clientId);
        o.put("client_host", CLIENT_HOST);
        return o;
    }

    ObjectNode view() {
        long now = time.milliseconds();
        ObjectNode v = Adapter.JSON.createObjectNode();
        v.put("now_ms", now);
        v.put("state", membership.state().name());
        v.put("member_epoch", membership.memberEpoch());
        v.set("assignment", partitions(membership.currentAssignment().partitions));
        AbstractMembershipManager.LocalAssignment target = ShareConsumerAccess.target(membership);
        if (target == AbstractMembershipManager.LocalAssignment.NONE) {
            v.putNull("target");
        } else {
            v.set("target", partitions(target.partitions));
        }
        boolean inFlightNow = requestState.requestInFlight();
        boolean known = coordinator.coordinator().isPresent();
        v.put("in_flight", inFlightNow);
        v.put("coordinator_known", known);
        if (!inFlightNow && known && !membership.shouldSkipHeartbeat()) {
            // canSendRequest: the heartbeat timer expired and the backoff over, whichever is later.
            // Timer#remainingMs counts from the timer's last update, the thread's last pass, which
            // may be earlier than now: canSendRequest brings it to now first (the next pass would).
            requestState.canSendRequest(now);
            long wait = Math.max(requestState.timeToNextHeartbeatMs(now), ShareConsumerAccess.remainingBackoffMs(requestState, now));
            v.put("next_heartbeat_ms", now + wait);
        } else {
            v.putNull("next_heartbeat_ms");
        }
        v.put("heartbeat_interval_ms", requestState.heartbeatIntervalMs());
        return v;
    }
}

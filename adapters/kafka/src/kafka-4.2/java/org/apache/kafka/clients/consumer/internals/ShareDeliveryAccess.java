package org.apache.kafka.clients.consumer.internals;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.internals.events.ApplicationEventHandler;
import org.apache.kafka.clients.consumer.internals.events.BackgroundEvent;
import org.apache.kafka.clients.consumer.internals.events.CompletableEventReaper;
import org.apache.kafka.clients.consumer.internals.events.ShareAcknowledgementEvent;
import org.apache.kafka.clients.consumer.internals.events.ShareAcknowledgementEventHandler;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;

import java.lang.reflect.Field;
import java.util.LinkedList;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;

/**
 * groupspec's door into the package-private parts of kafka-clients 4.2.1's share consumer delivery
 * path, the way upstream's ShareConsumeRequestManagerTest and ShareConsumerImplTest reach them from
 * inside the package: the request manager's and the consumer's constructors for tests, and (read
 * only, for the view) the fields that hold what is buffered, held, marked and waiting to ride.
 * The one write: the test constructor of ShareConsumerImpl leaves its list of completed
 * acknowledgements immutable (its tests never register a callback), so the list the production
 * constructor makes is put in its place; nothing else of Kafka's behaviour is touched.
 */
public final class ShareDeliveryAccess {
    private ShareDeliveryAccess() {
    }

    public static ShareConsumeRequestManager manager(Time time, LogContext logContext, String groupId,
                                                     ShareConsumerMetadata metadata, SubscriptionState subscriptions,
                                                     ShareFetchConfig config, ShareFetchBuffer buffer,
                                                     ShareAcknowledgementEventHandler events, Metrics metrics,
                                                     long retryBackoffMs, long retryBackoffMaxMs) {
        ShareFetchMetricsManager metricsManager = new ShareFetchMetricsManager(metrics,
            new ShareFetchMetricsRegistry(Set.of(), "consumer-share"));
        return new ShareConsumeRequestManager(time, logContext, groupId, metadata, subscriptions, config, buffer,
            events, metricsManager, retryBackoffMs, retryBackoffMaxMs);
    }

    @SuppressWarnings("ParameterNumber")
    public static <K, V> ShareConsumerImpl<K, V> consumer(LogContext logContext, String clientId,
                                                          Deserializer<K> keys, Deserializer<V> values,
                                                          ShareFetchBuffer buffer, ShareFetchCollector<K, V> collector,
                                                          Time time, ApplicationEventHandler handler,
                                                          BlockingQueue<ShareAcknowledgementEvent> acknowledgementEvents,
                                                          BlockingQueue<BackgroundEvent> backgroundEvents,
                                                          Metrics metrics, SubscriptionState subscriptions,
                                                          ShareConsumerMetadata metadata, int requestTimeoutMs,
                                                          int defaultApiTimeoutMs, String groupId, String mode) {
        ShareConsumerImpl<K, V> consumer = new ShareConsumerImpl<>(logContext, clientId, keys, values, buffer, collector,
            time, handler, acknowledgementEvents, backgroundEvents, new CompletableEventReaper(logContext), metrics,
            subscriptions, metadata, requestTimeoutMs, defaultApiTimeoutMs, groupId, mode);
        set(ShareConsumerImpl.class, consumer, "completedAcknowledgements", new LinkedList<>());
        return consumer;
    }

    public static boolean fetchMoreRecords(ShareConsumeRequestManager manager) {
        return (Boolean) get(ShareConsumeRequestManager.class, manager, "fetchMoreRecords");
    }

    @SuppressWarnings("unchecked")
    public static Map<Integer, Map<TopicIdPartition, Acknowledgements>> riding(ShareConsumeRequestManager manager) {
        return (Map<Integer, Map<TopicIdPartition, Acknowledgements>>) get(ShareConsumeRequestManager.class, manager,
            "fetchAcknowledgementsToSend");
    }

    /** The ShareAcknowledge requests of a node waiting to be sent, in the order the manager sends
     *  them (commitAsync's, then commitSync's, then the close), leaving out the one in flight. */
    public static java.util.List<String> queued(ShareConsumeRequestManager manager, int node, String inFlight) {
        java.util.List<String> kinds = new java.util.ArrayList<>();
        ShareConsumeRequestManager.Tuple<ShareConsumeRequestManager.AcknowledgeRequestState> states = manager.requestStates(node);
        if (states == null) {
            return kinds;
        }
        if (hasToSend(states.getAsyncRequest())) {
            kinds.add("COMMIT_ASYNC");
        }
        if (states.getSyncRequestQueue() != null) {
            for (ShareConsumeRequestManager.AcknowledgeRequestState s : states.getSyncRequestQueue()) {
                if (hasToSend(s)) {
                    kinds.add("COMMIT_SYNC");
                }
            }
        }
        ShareConsumeRequestManager.AcknowledgeRequestState close = states.getCloseRequest();
        if (close != null && !processed(close) && !"CLOSE".equals(inFlight)) {
            kinds.add("CLOSE");
        }
        return kinds;
    }

    /** Whether the node's commitAsync request state has acknowledgements to send (the manager sends it first). */
    public static boolean asyncWaiting(ShareConsumeRequestManager manager, int node) {
        ShareConsumeRequestManager.Tuple<ShareConsumeRequestManager.AcknowledgeRequestState> states = manager.requestStates(node);
        return states != null && hasToSend(states.getAsyncRequest());
    }

    /** Acknowledgements a ShareAcknowledge request state still has to send (none when null). */
    @SuppressWarnings("unchecked")
    static boolean hasToSend(ShareConsumeRequestManager.AcknowledgeRequestState state) {
        if (state == null) {
            return false;
        }
        Map<TopicIdPartition, Acknowledgements> toSend = (Map<TopicIdPartition, Acknowledgements>) get(
            ShareConsumeRequestManager.AcknowledgeRequestState.class, state, "acknowledgementsToSend");
        return !toSend.isEmpty();
    }

    static boolean processed(ShareConsumeRequestManager.AcknowledgeRequestState state) {
        return (Boolean) get(ShareConsumeRequestManager.AcknowledgeRequestState.class, state, "isProcessed");
    }

    public static int epoch(ShareSessionHandler handler) {
        Object metadata = get(ShareSessionHandler.class, handler, "nextMetadata");
        return ((org.apache.kafka.common.requests.ShareRequestMetadata) metadata).epoch();
    }

    public static ShareFetch<?, ?> currentFetch(ShareConsumerImpl<?, ?> consumer) {
        return (ShareFetch<?, ?>) get(ShareConsumerImpl.class, consumer, "currentFetch");
    }

    @SuppressWarnings("unchecked")
    public static Map<TopicIdPartition, ShareInFlightBatch<?, ?>> batches(ShareFetch<?, ?> fetch) {
        return (Map<TopicIdPartition, ShareInFlightBatch<?, ?>>) get(ShareFetch.class, fetch, "batches");
    }

    @SuppressWarnings("unchecked")
    public static Map<Long, ConsumerRecord<?, ?>> inFlight(ShareInFlightBatch<?, ?> batch) {
        return (Map<Long, ConsumerRecord<?, ?>>) get(ShareInFlightBatch.class, batch, "inFlightRecords");
    }

    public static Acknowledgements marks(ShareInFlightBatch<?, ?> batch) {
        return (Acknowledgements) get(ShareInFlightBatch.class, batch, "acknowledgements");
    }

    /** The records the buffer still holds, in the order polls will return them: the fetch in line
     *  first, then the completed fetches in arrival order; each {partition, offset, delivery count}
     *  (the acquired records not yet read, since every acquired offset of groupspec's answers is a
     *  record). */
    @SuppressWarnings("unchecked")
    public static java.util.List<Object[]> buffered(ShareFetchBuffer buffer) {
        java.util.List<Object[]> out = new java.util.ArrayList<>();
        java.util.List<ShareCompletedFetch> fetches = new java.util.ArrayList<>();
        ShareCompletedFetch inLine = (ShareCompletedFetch) get(ShareFetchBuffer.class, buffer, "nextInLineFetch");
        if (inLine != null) {
            fetches.add(inLine);
        }
        fetches.addAll((java.util.Collection<ShareCompletedFetch>) get(ShareFetchBuffer.class, buffer, "completedFetches"));
        for (ShareCompletedFetch fetch : fetches) {
            if ((Boolean) get(ShareCompletedFetch.class, fetch, "isConsumed")) {
                continue;
            }
            java.util.List<?> acquired = (java.util.List<?>) get(ShareCompletedFetch.class, fetch, "acquiredRecordList");
            java.util.ListIterator<?> at = (java.util.ListIterator<?>) get(ShareCompletedFetch.class, fetch, "acquiredRecordIterator");
            Object next = get(ShareCompletedFetch.class, fetch, "nextAcquired");
            java.util.List<Object> left = new java.util.ArrayList<>();
            if (at == null) {
                left.addAll(acquired);
            } else {
                if (next != null) {
                    left.add(next);
                }
                left.addAll(acquired.subList(at.nextIndex(), acquired.size()));
            }
            for (Object o : left) {
                try {
                    Field offset = o.getClass().getDeclaredField("offset");
                    Field count = o.getClass().getDeclaredField("deliveryCount");
                    offset.setAccessible(true);
                    count.setAccessible(true);
                    out.add(new Object[] {fetch.partition, offset.getLong(o), (int) count.getShort(o)});
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("kafka-clients' acquired record has no offset or delivery count", e);
                }
            }
        }
        return out;
    }

    private static Object get(Class<?> owner, Object target, String name) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("kafka-clients has no field " + owner.getSimpleName() + "." + name, e);
        }
    }

    private static void set(Class<?> owner, Object target, String name, Object value) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            field.set(target, value);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("kafka-clients has no field " + owner.getSimpleName() + "." + name, e);
        }
    }
}

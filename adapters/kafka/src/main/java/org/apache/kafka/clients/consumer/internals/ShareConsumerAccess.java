package org.apache.kafka.clients.consumer.internals;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.internals.events.BackgroundEventHandler;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Timer;

import java.lang.reflect.Field;

/**
 * groupspec's door into the package-private parts of Kafka's share consumer internals, the way
 * upstream's ShareHeartbeatRequestManagerTest reaches them from inside the package: the heartbeat
 * manager's constructor that takes its {@link HeartbeatRequestState} and poll timer, the
 * {@code HeartbeatState} that builds each request, an unsent request's builder and completion
 * handler, the remaining backoff, and (read only, for the view) the membership manager's target.
 * Nothing here changes what Kafka's classes do.
 */
public final class ShareConsumerAccess {
    private static final Field TARGET;

    static {
        try {
            TARGET = AbstractMembershipManager.class.getDeclaredField("currentTargetAssignment");
            TARGET.setAccessible(true);
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ShareConsumerAccess() {
    }

    public static ShareHeartbeatRequestManager heartbeatManager(LogContext logContext, Timer pollTimer, ConsumerConfig config,
                                                                CoordinatorRequestManager coordinator,
                                                                ShareMembershipManager membership,
                                                                SubscriptionState subscriptions,
                                                                HeartbeatRequestState requestState,
                                                                BackgroundEventHandler events, Metrics metrics) {
        ShareHeartbeatRequestManager.HeartbeatState state = new ShareHeartbeatRequestManager.HeartbeatState(subscriptions, membership);
        return new ShareHeartbeatRequestManager(logContext, pollTimer, config, coordinator, membership, state, requestState,
            events, metrics);
    }

    public static AbstractRequest.Builder<?> builder(NetworkClientDelegate.UnsentRequest request) {
        return request.requestBuilder();
    }

    public static NetworkClientDelegate.FutureCompletionHandler handler(NetworkClientDelegate.UnsentRequest request) {
        return request.handler();
    }

    public static long remainingBackoffMs(HeartbeatRequestState state, long nowMs) {
        return state.remainingBackoffMs(nowMs);
    }

    /** The membership manager's target assignment (LocalAssignment.NONE when it has none). */
    public static AbstractMembershipManager.LocalAssignment target(AbstractMembershipManager<?> membership) {
        try {
            return (AbstractMembershipManager.LocalAssignment) TARGET.get(membership);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}

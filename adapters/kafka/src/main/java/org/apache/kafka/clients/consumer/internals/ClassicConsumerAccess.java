package org.apache.kafka.clients.consumer.internals;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.RebalanceInProgressException;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Timer;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.function.Supplier;

/**
 * groupspec's door into the package-private and protected parts of Kafka's classic consumer
 * coordinator, the way upstream's ConsumerCoordinatorTest reaches them from inside the package.
 *
 * <p>The heartbeat thread is the one piece replaced: AbstractCoordinator takes a supplier of its
 * heartbeat thread, and {@link ScriptedHeartbeatThread} never starts a Java thread; the driver
 * runs {@link #heartbeatPass} where the real thread would run (after every event, at the event's
 * time), so that a run is deterministic. The pass is one iteration of the loop in
 * AbstractCoordinator.HeartbeatThread#run (Kafka 4.2.1), retold: disabled outside a group,
 * poll the network, rediscover a lost coordinator, mark it unknown after the session timeout,
 * or send a heartbeat when its timer has expired, with the same listener on the answer.
 * Everything else is Kafka's code, unchanged.
 */
public final class ClassicConsumerAccess {
    private static final Field HEARTBEAT = field(AbstractCoordinator.class, "heartbeat");
    private static final Field REJOIN_NEEDED = field(AbstractCoordinator.class, "rejoinNeeded");
    private static final Field JOIN_FUTURE = field(AbstractCoordinator.class, "joinFuture");
    private static final Field HEARTBEAT_THREAD = field(AbstractCoordinator.class, "heartbeatThread");

    private ClassicConsumerAccess() {
    }

    private static Field field(Class<?> c, String name) {
        try {
            Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static Object get(Field f, Object o) {
        try {
            return f.get(o);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The heartbeat thread AbstractCoordinator is given: no Java thread, the driver runs its passes. */
    public static final class ScriptedHeartbeatThread extends BaseHeartbeatThread {
        private final Supplier<AbstractCoordinator> owner;

        public ScriptedHeartbeatThread(Supplier<AbstractCoordinator> owner) {
            super("groupspec-scripted-heartbeat", true);
            this.owner = owner;
        }

        @Override
        public synchronized void start() {
            // never a thread of its own: see ClassicConsumerAccess#heartbeatPass
        }

        @Override
        public void enable() {
            // HeartbeatThread#enable: the timers start again from now
            super.enable();
            heartbeat(owner.get()).resetTimeouts();
        }
    }

    static Heartbeat heartbeat(AbstractCoordinator c) {
        return (Heartbeat) get(HEARTBEAT, c);
    }

    public static String state(AbstractCoordinator c) {
        synchronized (c) {
            return c.state.name();
        }
    }

    public static int generationId(AbstractCoordinator c) {
        return c.generation().generationId;
    }

    public static String memberId(AbstractCoordinator c) {
        return c.generation().memberId;
    }

    public static boolean rejoinNeeded(AbstractCoordinator c) {
        synchronized (c) {
            return (Boolean) get(REJOIN_NEEDED, c);
        }
    }

    public static boolean joinPending(AbstractCoordinator c) {
        synchronized (c) {
            return get(JOIN_FUTURE, c) != null;
        }
    }

    public static void invokeCompletedOffsetCommitCallbacks(ConsumerCoordinator c) {
        c.invokeCompletedOffsetCommitCallbacks();
    }

    public static boolean ensureCoordinatorReady(AbstractCoordinator c, Timer timer) {
        return c.ensureCoordinatorReady(timer);
    }

    /** The OffsetCommit commitOffsetsSync sends in each round of its loop, and its future. */
    public static RequestFuture<Void> sendOffsetCommitRequest(ConsumerCoordinator c,
                                                              Map<TopicPartition, OffsetAndMetadata> offsets) {
        return c.sendOffsetCommitRequest(offsets);
    }

    /** AbstractCoordinator#close's first step: the heartbeat thread stops for good. */
    public static void closeHeartbeatThread(AbstractCoordinator c) {
        try {
            Method m = AbstractCoordinator.class.getDeclaredMethod("closeHeartbeatThread");
            m.setAccessible(true);
            m.invoke(c);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static ConsumerPartitionAssignor.RebalanceProtocol protocol(ConsumerCoordinator c) {
        return c.getProtocol();
    }

    /** The failure the heartbeat thread keeps for the next poll to raise, or null. */
    public static RuntimeException heartbeatFailure(AbstractCoordinator c) {
        synchronized (c) {
            BaseHeartbeatThread t = (BaseHeartbeatThread) get(HEARTBEAT_THREAD, c);
            return t != null && t.isFailed() ? t.failureCause() : null;
        }
    }

    /**
     * One iteration of the heartbeat thread's loop at {@code now} (AbstractCoordinator.HeartbeatThread#run
     * in Kafka 4.2.1): what it does when it wakes. Returns whether it did anything but wait.
     */
    public static boolean heartbeatPass(AbstractCoordinator c, ConsumerNetworkClient client, long now) {
        synchronized (c) {
            BaseHeartbeatThread t = (BaseHeartbeatThread) get(HEARTBEAT_THREAD, c);
            if (t == null || t.isClosed() || !t.isEnabled()) {
                return false;
            }
            if (c.state.hasNotJoinedGroup() || t.isFailed()) {
                t.disable();
                return true;
            }
            client.pollNoWakeup();
            Heartbeat heartbeat = heartbeat(c);
            if (c.coordinatorUnknown()) {
                c.lookupCoordinator();
                return true;
            } else if (heartbeat.sessionTimeoutExpired(now)) {
                c.markCoordinatorUnknown("session timed out without receiving a heartbeat response");
                return true;
            } else if (heartbeat.pollTimeoutExpired(now)) {
                c.handlePollTimeoutExpiry();
                return true;
            } else if (!heartbeat.shouldHeartbeat(now)) {
                return false;
            }
            heartbeat.sentHeartbeat(now);
            RequestFuture<Void> future = c.sendHeartbeatRequest();
            future.addListener(new RequestFutureListener<>() {
                @Override
                public void onSuccess(Void value) {
                    synchronized (c) {
                        heartbeat.receiveHeartbeat();
                    }
                }

                @Override
                public void onFailure(RuntimeException e) {
                    synchronized (c) {
                        if (e instanceof RebalanceInProgressException) {
                            heartbeat.receiveHeartbeat();
                        } else if (e instanceof FencedInstanceIdException) {
                            t.setFailureCause(e);
                        } else {
                            heartbeat.failHeartbeat();
                        }
                    }
                }
            });
            return true;
        }
    }
}

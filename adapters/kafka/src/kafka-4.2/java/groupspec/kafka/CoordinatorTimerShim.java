package groupspec.kafka;

import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.common.runtime.CoordinatorTimer;

import java.util.concurrent.TimeUnit;

/**
 * Kafka 4.2's {@code CoordinatorTimer<T, U>} (two type parameters; 4.3 keeps only the record type)
 * seen by the adapter as one method, {@link #arm}. The adapter's timers extend this class and never
 * name Kafka's {@code TimeoutOperation}, whose shape is what differs between the releases.
 */
abstract class CoordinatorTimerShim implements CoordinatorTimer<Void, CoordinatorRecord> {
    /** A scheduled operation: the records it writes when it fires. */
    interface Operation {
        CoordinatorResult<Void, CoordinatorRecord> generateRecords();
    }

    /** Schedules {@code op} under {@code key}, replacing any operation scheduled under it. */
    abstract void arm(String key, long delay, TimeUnit unit, Operation op);

    @Override
    public final void schedule(String key, long delay, TimeUnit unit, boolean retry,
                               TimeoutOperation<Void, CoordinatorRecord> op) {
        arm(key, delay, unit, op::generateRecords);
    }

    @Override
    public final void schedule(String key, long delay, TimeUnit unit, boolean retry, long retryBackoff,
                               TimeoutOperation<Void, CoordinatorRecord> op) {
        arm(key, delay, unit, op::generateRecords);
    }

    @Override
    public final void scheduleIfAbsent(String key, long delay, TimeUnit unit, boolean retry,
                                       TimeoutOperation<Void, CoordinatorRecord> op) {
        if (!isScheduled(key)) {
            arm(key, delay, unit, op::generateRecords);
        }
    }
}

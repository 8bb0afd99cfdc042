package groupspec.kafka;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.timer.Timer;
import org.apache.kafka.server.util.timer.TimerTask;
import org.apache.kafka.server.util.timer.TimerTaskEntry;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A clock that moves only when told, and a timer on it that fires the way groupspec's machines
 * fire timers (groupspec/impl/runtime/timer.py): the clock moves to the new time first, then every
 * task whose deadline is at or before it runs, by deadline and, for equal deadlines, in the order
 * the tasks were added. (Kafka's MockTimer fires only deadlines strictly before the new time and
 * leaves ties to its priority queue; the vectors' clock is groupspec's, so its rule is used here.)
 */
final class ScriptedClock implements Time {
    private long nowMs;

    ScriptedClock(long startMs) {
        this.nowMs = startMs;
    }

    @Override
    public long milliseconds() {
        return nowMs;
    }

    @Override
    public long nanoseconds() {
        return nowMs * 1_000_000L;
    }

    @Override
    public void sleep(long ms) {
        nowMs += ms;
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
        throw new UnsupportedOperationException("nothing waits on the scripted clock");
    }

    /** A timer on this clock; a new one forgets every task of the old. */
    final class Tasks implements Timer {
        private record Armed(TimerTaskEntry entry, long deadline, long seq) {
        }

        private final List<Armed> armed = new ArrayList<>();
        private long seq;

        @Override
        public void add(TimerTask task) {
            if (task.delayMs <= 0) {
                task.run();
                return;
            }
            long deadline = nowMs + task.delayMs;
            armed.add(new Armed(new TimerTaskEntry(task, deadline), deadline, seq++));
        }

        /** Moves the clock to {@code toMs} (never back) and runs what came due. */
        void advanceTo(long toMs) {
            nowMs = Math.max(nowMs, toMs);
            while (true) {
                armed.removeIf(a -> a.entry().cancelled());
                Armed next = null;
                for (Armed a : armed) {
                    if (a.deadline() <= nowMs && (next == null || a.deadline() < next.deadline()
                            || (a.deadline() == next.deadline() && a.seq() < next.seq()))) {
                        next = a;
                    }
                }
                if (next == null) {
                    return;
                }
                armed.remove(next);
                next.entry().timerTask.run();
            }
        }

        @Override
        public boolean advanceClock(long timeoutMs) {
            advanceTo(nowMs + timeoutMs);
            return true;
        }

        @Override
        public int size() {
            armed.removeIf(a -> a.entry().cancelled());
            return armed.size();
        }

        @Override
        public void close() {
        }
    }
}

package kafka.server.share;

import kafka.server.ReplicaManager;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.utils.Time;
import groupspec.kafka.GroupConfigShim;
import org.apache.kafka.server.share.fetch.InFlightBatch;
import org.apache.kafka.server.share.persister.Persister;
import org.apache.kafka.server.util.timer.Timer;

import java.util.NavigableMap;

/**
 * groupspec's door into Kafka's {@link SharePartition}, whose constructor and inspection methods
 * are package-private: this class sits in Kafka's package for that reason only and adds no
 * behaviour. The adapter's share_partition machine (groupspec.kafka.SharePartitionMachine) builds
 * the persister, timer, clock and replica manager around it and reads the view through it.
 */
public final class SharePartitionAccess {
    private final SharePartition partition;

    public SharePartitionAccess(String groupId, TopicIdPartition topicIdPartition, int leaderEpoch,
                                int maxInFlightRecords, int maxDeliveryCount, int recordLockDurationMs,
                                Timer timer, Time time, Persister persister, ReplicaManager replicaManager) {
        // No dynamic group configs: the broker defaults (here the vector's config) apply. The
        // listener is only kept by the partition for its manager, which this adapter does not run.
        this.partition = new SharePartition(groupId, topicIdPartition, leaderEpoch, maxInFlightRecords,
            maxDeliveryCount, recordLockDurationMs, timer, time, persister, replicaManager,
            GroupConfigShim.empty(), null);
    }

    public SharePartition partition() {
        return partition;
    }

    public boolean active() {
        return partition.partitionState() == SharePartition.SharePartitionState.ACTIVE;
    }

    public String state() {
        return partition.partitionState().name();
    }

    /** What the share partition manager does to an object it drops from its cache. */
    public void markFenced() {
        partition.markFenced();
    }

    public void updateCacheAndOffsets(long logStartOffset) {
        partition.updateCacheAndOffsets(logStartOffset);
    }

    public boolean canAcquireRecords() {
        return partition.canAcquireRecords();
    }

    public int leaderEpoch() {
        return partition.leaderEpoch();
    }

    public int stateEpoch() {
        return partition.stateEpoch();
    }

    public long startOffset() {
        return partition.startOffset();
    }

    public long endOffset() {
        return partition.endOffset();
    }

    public NavigableMap<Long, InFlightBatch> cachedState() {
        return partition.cachedState();
    }

    /** The persisted read's gap window as {gap start, end offset}, or null when there is none. */
    public long[] gapWindow() {
        SharePartition.GapWindow window = partition.persisterReadResultGapWindow();
        return window == null ? null : new long[] {window.gapStartOffset(), window.endOffset()};
    }
}

package groupspec.kafka;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.server.share.persister.DeleteShareGroupStateParameters;
import org.apache.kafka.server.share.persister.DeleteShareGroupStateResult;
import org.apache.kafka.server.share.persister.InitializeShareGroupStateParameters;
import org.apache.kafka.server.share.persister.InitializeShareGroupStateResult;
import org.apache.kafka.server.share.persister.PartitionAllData;
import org.apache.kafka.server.share.persister.PartitionErrorData;
import org.apache.kafka.server.share.persister.PartitionFactory;
import org.apache.kafka.server.share.persister.PartitionIdLeaderEpochData;
import org.apache.kafka.server.share.persister.PartitionStateBatchData;
import org.apache.kafka.server.share.persister.Persister;
import org.apache.kafka.server.share.persister.PersisterStateBatch;
import org.apache.kafka.server.share.persister.ReadShareGroupStateParameters;
import org.apache.kafka.server.share.persister.ReadShareGroupStateResult;
import org.apache.kafka.server.share.persister.ReadShareGroupStateSummaryParameters;
import org.apache.kafka.server.share.persister.ReadShareGroupStateSummaryResult;
import org.apache.kafka.server.share.persister.TopicData;
import org.apache.kafka.server.share.persister.WriteShareGroupStateParameters;
import org.apache.kafka.server.share.persister.WriteShareGroupStateResult;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The share coordinator's state of one share partition, as the share_partition machine's vectors
 * script it (groupspec/impl/share_partition/persister.py states the same rules): a read by a
 * leader epoch below the stored one is fenced, a read raises the stored leader epoch; a write
 * with an older leader or state epoch is fenced (FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH);
 * a kept write moves the start offset and lays its batches over the stored ones (a newer batch
 * wins where they overlap, nothing below the start offset stays, touching neighbours with the
 * same state and count become one). An injected error answers every read and write instead.
 * Every write is recorded with its answer, for the machine's per-event output.
 *
 * <p>This is the environment of the class under test, not the class under test: Kafka's
 * SharePartition talks to it through Kafka's own {@link Persister} interface, and answers come
 * back completed, so each event's effects are over when the event returns.
 */
final class ScriptedShareState implements Persister {
    /** One stored or written batch. */
    record Batch(long first, long last, byte state, short count) {
    }

    /** One write the partition asked for, with the answer it got. */
    record Write(long startOffset, int stateEpoch, int leaderEpoch, List<Batch> batches, Errors error) {
    }

    int stateEpoch;
    long startOffset;
    int leaderEpoch = -1;
    List<Batch> batches = new ArrayList<>();
    Errors injected = Errors.NONE;
    final List<Write> writes = new ArrayList<>();

    ScriptedShareState(int stateEpoch, long startOffset, List<Batch> persisted) {
        this.stateEpoch = stateEpoch;
        this.startOffset = startOffset;
        this.batches = combine(List.of(), persisted, startOffset);
    }

    /** Another broker, a newer leader, read the state: writes of this leader epoch are fenced. */
    void fenceLeader(int partitionLeaderEpoch) {
        leaderEpoch = Math.max(leaderEpoch, partitionLeaderEpoch) + 1;
    }

    /** InitializeShareGroupState after an offsets reset: a new state epoch, nothing kept. */
    void reset(long newStartOffset) {
        stateEpoch += 1;
        startOffset = newStartOffset;
        batches = new ArrayList<>();
    }

    @Override
    public CompletableFuture<ReadShareGroupStateResult> readState(ReadShareGroupStateParameters request) {
        TopicData<PartitionIdLeaderEpochData> topic = request.groupTopicPartitionData().topicsData().get(0);
        PartitionIdLeaderEpochData asked = topic.partitions().get(0);
        PartitionAllData answer;
        if (injected != Errors.NONE) {
            answer = PartitionFactory.newPartitionAllData(asked.partition(), 0, 0, injected.code(), injected.message(), List.of());
        } else if (leaderEpoch > asked.leaderEpoch()) {
            Errors fenced = Errors.FENCED_LEADER_EPOCH;
            answer = PartitionFactory.newPartitionAllData(asked.partition(), 0, 0, fenced.code(), fenced.message(), List.of());
        } else {
            leaderEpoch = Math.max(leaderEpoch, asked.leaderEpoch());
            List<PersisterStateBatch> stored = new ArrayList<>();
            for (Batch b : batches) {
                stored.add(new PersisterStateBatch(b.first(), b.last(), b.state(), b.count()));
            }
            answer = PartitionFactory.newPartitionAllData(asked.partition(), stateEpoch, startOffset,
                Errors.NONE.code(), null, stored);
        }
        // The topic id goes back as the very object asked with: SharePartition compares ids by identity.
        Uuid topicId = topic.topicId();
        return CompletableFuture.completedFuture(new ReadShareGroupStateResult.Builder()
            .setTopicsData(List.of(new TopicData<>(topicId, List.of(answer)))).build());
    }

    @Override
    public CompletableFuture<WriteShareGroupStateResult> writeState(WriteShareGroupStateParameters request) {
        TopicData<PartitionStateBatchData> topic = request.groupTopicPartitionData().topicsData().get(0);
        PartitionStateBatchData write = topic.partitions().get(0);
        List<Batch> written = new ArrayList<>();
        for (PersisterStateBatch b : write.stateBatches()) {
            written.add(new Batch(b.firstOffset(), b.lastOffset(), b.deliveryState(), b.deliveryCount()));
        }
        Errors error = injected;
        if (error == Errors.NONE) {
            if (write.leaderEpoch() != -1 && leaderEpoch > write.leaderEpoch()) {
                error = Errors.FENCED_LEADER_EPOCH;
            } else if (write.stateEpoch() != -1 && stateEpoch > write.stateEpoch()) {
                error = Errors.FENCED_STATE_EPOCH;
            }
        }
        writes.add(new Write(write.startOffset(), write.stateEpoch(), write.leaderEpoch(), written, error));
        if (error == Errors.NONE) {
            startOffset = write.startOffset();
            batches = combine(batches, written, startOffset);
        }
        PartitionErrorData answer = PartitionFactory.newPartitionErrorData(write.partition(), error.code(),
            error == Errors.NONE ? null : error.message());
        return CompletableFuture.completedFuture(new WriteShareGroupStateResult.Builder()
            .setTopicsData(List.of(new TopicData<>(topic.topicId(), List.of(answer)))).build());
    }

    /** Stored batches after a write: {@code newer} laid over {@code older} one batch at a time,
     * then trimmed to the start offset and equal touching neighbours joined. */
    static List<Batch> combine(List<Batch> older, List<Batch> newer, long start) {
        List<Batch> result = new ArrayList<>(older);
        for (Batch n : newer) {
            List<Batch> next = new ArrayList<>();
            for (Batch o : result) {
                if (o.last() < n.first() || o.first() > n.last()) {
                    next.add(o);
                    continue;
                }
                if (o.first() < n.first()) {
                    next.add(new Batch(o.first(), n.first() - 1, o.state(), o.count()));
                }
                if (o.last() > n.last()) {
                    next.add(new Batch(n.last() + 1, o.last(), o.state(), o.count()));
                }
            }
            next.add(n);
            next.sort((a, b) -> Long.compare(a.first(), b.first()));
            result = next;
        }
        List<Batch> kept = new ArrayList<>();
        for (Batch b : result) {
            if (b.last() < start) {
                continue;
            }
            if (b.first() < start) {
                b = new Batch(start, b.last(), b.state(), b.count());
            }
            Batch head = kept.isEmpty() ? null : kept.get(kept.size() - 1);
            if (head != null && head.last() + 1 == b.first() && head.state() == b.state() && head.count() == b.count()) {
                kept.set(kept.size() - 1, new Batch(head.first(), b.last(), b.state(), b.count()));
            } else {
                kept.add(b);
            }
        }
        return kept;
    }

    @Override
    public CompletableFuture<InitializeShareGroupStateResult> initializeState(InitializeShareGroupStateParameters request) {
        throw new UnsupportedOperationException("a share partition never initializes state");
    }

    @Override
    public CompletableFuture<DeleteShareGroupStateResult> deleteState(DeleteShareGroupStateParameters request) {
        throw new UnsupportedOperationException("a share partition never deletes state");
    }

    @Override
    public CompletableFuture<ReadShareGroupStateSummaryResult> readSummary(ReadShareGroupStateSummaryParameters request) {
        throw new UnsupportedOperationException("a share partition never reads a summary");
    }

    @Override
    public void stop() {
    }
}

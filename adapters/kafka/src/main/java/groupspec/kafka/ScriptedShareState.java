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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The share coordinator holding one share partition's key, for Kafka's SharePartition: Kafka's
 * own {@code ShareCoordinatorShard} (through {@link ShareStateRun}), initialized as the share
 * group leaves the key (the persisted state's epoch and start offset, then its batches written),
 * as groupspec's share partition machine persists through its share coordinator. So a read
 * answers the batches as Kafka's combiner keeps them, touching equal neighbours included.
 * An injected error answers every read and write instead. Every write is recorded with its
 * answer, for the machine's per-event output.
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

    /** The key a lone share partition is persisted under (groupspec's LONE_GROUP, LONE_TOPIC_ID). */
    private static final String GROUP = "share-group";
    private static final String TOPIC = "00000000-0000-4000-8000-00000000d1ce";

    private final ShareStateRun coordinator;
    private int asked;
    Errors injected = Errors.NONE;
    final List<Write> writes = new ArrayList<>();

    ScriptedShareState(int stateEpoch, long startOffset, List<Batch> persisted) {
        ObjectNode config = Adapter.JSON.createObjectNode();
        config.put("state_topic_partitions", 1);
        ArrayNode topics = Adapter.JSON.createArrayNode();
        ObjectNode topic = topics.addObject();
        topic.put("topic_id", TOPIC);
        topic.put("partitions", 1);
        coordinator = new ShareStateRun(config, topics, 0);
        ObjectNode init = request("InitializeShareGroupState");
        init.put("state_epoch", stateEpoch);
        init.put("start_offset", startOffset);
        ask(init);
        if (!persisted.isEmpty()) {
            ask(writeRequest(stateEpoch, -1, startOffset, persisted));
        }
    }

    private static ObjectNode request(String type) {
        ObjectNode e = Adapter.JSON.createObjectNode();
        e.put("type", type);
        e.put("group_id", GROUP);
        e.put("topic_id", TOPIC);
        e.put("partition", 0);
        return e;
    }

    private static ObjectNode writeRequest(int stateEpoch, int leaderEpoch, long startOffset, List<Batch> batches) {
        ObjectNode e = request("WriteShareGroupState");
        e.put("state_epoch", stateEpoch);
        e.put("leader_epoch", leaderEpoch);
        e.put("start_offset", startOffset);
        ArrayNode bs = e.putArray("state_batches");
        for (Batch b : batches) {
            ObjectNode n = bs.addObject();
            n.put("first_offset", b.first());
            n.put("last_offset", b.last());
            n.put("delivery_state", b.state());
            n.put("delivery_count", b.count());
        }
        return e;
    }

    private JsonNode ask(ObjectNode event) {
        JsonNode out = coordinator.handle(event, asked++);
        return out.path("answers").path(0).path("response");
    }

    private JsonNode key() {
        for (JsonNode k : coordinator.view().path("share_partitions")) {
            return k;
        }
        throw new IllegalStateException("the lone key is always initialized");
    }

    /** The newest leader epoch that read the key (what fences an older leader). */
    int leaderEpoch() {
        return key().path("fenced_leader_epoch").asInt(-1);
    }

    int stateEpoch() {
        return key().path("state_epoch").asInt();
    }

    long startOffset() {
        return key().path("start_offset").asLong();
    }

    /** The key's batches with touching neighbours of equal state and count joined (the view's form). */
    List<Batch> batches() {
        List<Batch> kept = new ArrayList<>();
        for (JsonNode n : key().path("state_batches")) {
            Batch b = new Batch(n.path("first_offset").asLong(), n.path("last_offset").asLong(),
                (byte) n.path("delivery_state").asInt(), (short) n.path("delivery_count").asInt());
            Batch head = kept.isEmpty() ? null : kept.get(kept.size() - 1);
            if (head != null && head.last() + 1 == b.first() && head.state() == b.state() && head.count() == b.count()) {
                kept.set(kept.size() - 1, new Batch(head.first(), b.last(), b.state(), b.count()));
            } else {
                kept.add(b);
            }
        }
        return kept;
    }

    /** Another broker, a newer leader, read the state: writes of this leader epoch are fenced. */
    void fenceLeader(int partitionLeaderEpoch) {
        ObjectNode read = request("ReadShareGroupState");
        read.put("leader_epoch", Math.max(leaderEpoch(), partitionLeaderEpoch) + 1);
        ask(read);
    }

    /** InitializeShareGroupState after an offsets reset: a new state epoch, nothing kept. */
    void reset(long newStartOffset) {
        ObjectNode init = request("InitializeShareGroupState");
        init.put("state_epoch", stateEpoch() + 1);
        init.put("start_offset", newStartOffset);
        ask(init);
    }

    @Override
    public CompletableFuture<ReadShareGroupStateResult> readState(ReadShareGroupStateParameters request) {
        TopicData<PartitionIdLeaderEpochData> topic = request.groupTopicPartitionData().topicsData().get(0);
        PartitionIdLeaderEpochData asked = topic.partitions().get(0);
        PartitionAllData answer;
        if (injected != Errors.NONE) {
            answer = PartitionFactory.newPartitionAllData(asked.partition(), 0, 0, injected.code(), injected.message(), List.of());
        } else {
            ObjectNode read = request("ReadShareGroupState");
            read.put("leader_epoch", asked.leaderEpoch());
            JsonNode r = ask(read);
            Errors error = Errors.valueOf(r.path("error").asText());
            List<PersisterStateBatch> stored = new ArrayList<>();
            for (JsonNode b : r.path("state_batches")) {
                stored.add(new PersisterStateBatch(b.path("first_offset").asLong(), b.path("last_offset").asLong(),
                    (byte) b.path("delivery_state").asInt(), (short) b.path("delivery_count").asInt()));
            }
            answer = error == Errors.NONE
                ? PartitionFactory.newPartitionAllData(asked.partition(), r.path("state_epoch").asInt(),
                    r.path("start_offset").asLong(), Errors.NONE.code(), null, stored)
                : PartitionFactory.newPartitionAllData(asked.partition(), 0, 0, error.code(), error.message(), List.of());
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
            JsonNode r = ask(writeRequest(write.stateEpoch(), write.leaderEpoch(), write.startOffset(), written));
            error = Errors.valueOf(r.path("error").asText());
        }
        writes.add(new Write(write.startOffset(), write.stateEpoch(), write.leaderEpoch(), written, error));
        PartitionErrorData answer = PartitionFactory.newPartitionErrorData(write.partition(), error.code(),
            error == Errors.NONE ? null : error.message());
        return CompletableFuture.completedFuture(new WriteShareGroupStateResult.Builder()
            .setTopicsData(List.of(new TopicData<>(topic.topicId(), List.of(answer)))).build());
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

package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import kafka.server.ReplicaManager;
import kafka.server.share.SharePartitionAccess;

import org.apache.kafka.clients.consumer.internals.ShareAcquireMode;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareFetchResponseData.AcquiredRecords;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.server.share.acknowledge.ShareAcknowledgementBatch;
import org.apache.kafka.server.share.fetch.AcquisitionLockTimerTask;
import org.apache.kafka.server.share.fetch.InFlightBatch;
import org.apache.kafka.server.share.fetch.InFlightState;
import org.apache.kafka.server.share.fetch.RecordState;
import org.apache.kafka.server.share.fetch.ShareAcquiredRecords;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.storage.log.FetchPartitionData;

import org.mockito.Mockito;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Machine share_partition through Kafka's own {@code kafka.server.share.SharePartition}: one run of
 * events (docs/conformance.md, "Machine share_partition") on one partition object, built the way
 * the share partition manager builds it, with the share coordinator's state scripted
 * ({@link ScriptedShareState}), a clock and timer that move only on AdvanceClock
 * ({@link ScriptedClock}), and a replica manager (a Mockito mock, as Kafka's own tests use) that
 * answers the log's latest offset when the persisted start offset is -1.
 *
 * <p>What plays the broker around the partition, as groupspec's machine does: a Fetch is
 * {@code acquire} with the log batches read (real record batches, one record per offset); an
 * Acknowledge or ReleaseMember reaches the partition only while it is loaded (the manager drops a
 * partition whose load failed and answers UNKNOWN_TOPIC_OR_PARTITION for it); MoveLogStart and
 * CanAcquire only touch a loaded partition (only a loaded partition gets the fetch lock); Reload
 * builds a new partition object with the next leader epoch, on the same timer: as on a broker,
 * whose share partition manager keeps one timer for every partition object, the replaced
 * object's acquisition locks stay armed and, when they expire, it writes with its old leader
 * epoch and is refused (docs/divergences.md, share_fenced_timers: groupspec drops those locks).
 */
final class SharePartitionMachine implements Adapter.Machine {
    private static final String GROUP = "groupspec-share-group";
    /** Widest log batch the adapter writes out record by record. */
    private static final long MAX_BATCH_RECORDS = 100_000;

    @Override
    public List<String> handlers() {
        return List.of("run");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        try {
            return new Run(input).run();
        } catch (RuntimeException e) {
            // The exception is the answer (Adapter names it); where Kafka threw it goes to stderr,
            // which the runner shows beside the failing vector.
            e.printStackTrace(System.err);
            System.err.flush();
            throw e;
        }
    }

    private static final class Run {
        private final JsonNode input;
        private final int deliveryLimit;
        private final int maxInFlight;
        private final int lockMs;
        private final ScriptedClock clock;
        private final ScriptedShareState store;
        private final TopicIdPartition tip = new TopicIdPartition(Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"),
            new TopicPartition("groupspec-topic", 0));
        private final ReplicaManager replicaManager = Mockito.mock(ReplicaManager.class);
        private long latestOffset;
        private final ScriptedClock.Tasks timer;
        private SharePartitionAccess partition;

        Run(JsonNode input) throws Adapter.Answer {
            this.input = input;
            JsonNode config = input.path("config");
            deliveryLimit = config.path("delivery_count_limit").asInt(5);
            maxInFlight = config.path("max_in_flight_records").asInt(2000);
            lockMs = config.path("record_lock_duration_ms").asInt(30000);
            clock = new ScriptedClock(input.path("start_ms").asLong(0));
            timer = clock.new Tasks();
            JsonNode persisted = input.path("persisted");
            List<ScriptedShareState.Batch> batches = new ArrayList<>();
            for (JsonNode b : persisted.path("batches")) {
                batches.add(new ScriptedShareState.Batch(b.path("first_offset").asLong(), b.path("last_offset").asLong(),
                    recordState(b.path("delivery_state").asText()).id, (short) b.path("delivery_count").asInt()));
            }
            store = new ScriptedShareState(persisted.path("state_epoch").asInt(0), persisted.path("start_offset").asLong(0), batches);
            Mockito.when(replicaManager.fetchOffsetForTimestamp(Mockito.any(), Mockito.anyLong(), Mockito.any(),
                    Mockito.any(), Mockito.anyBoolean()))
                .thenAnswer(call -> LogRecordsShim.latestOffset(latestOffset));
            latestOffset = input.path("latest_offset").asLong(0);
        }

        ObjectNode run() throws Adapter.Answer {
            load(0);
            ArrayNode outputs = Adapter.JSON.createArrayNode();
            int index = 0;
            for (JsonNode event : input.path("events")) {
                store.writes.clear();
                ObjectNode output = outputs.addObject();
                ArrayNode answers = output.putArray("answers");
                ObjectNode response;
                try {
                    response = step(event);
                } catch (RuntimeException e) {
                    // Kafka's code threw where no broker path catches it for this event: the
                    // exception is the run's answer, named by its class, with the event it met.
                    e.printStackTrace(System.err);
                    System.err.flush();
                    throw Adapter.Answer.error(e.getClass().getName(),
                        "event " + index + " (" + event.path("type").asText() + "): " + e.getMessage());
                }
                if (response != null) {
                    ObjectNode answer = answers.addObject();
                    answer.put("request", index);
                    answer.set("response", response);
                }
                ArrayNode writes = output.putArray("writes");
                for (ScriptedShareState.Write w : store.writes) {
                    ObjectNode write = writes.addObject();
                    write.put("start_offset", w.startOffset());
                    write.put("state_epoch", w.stateEpoch());
                    write.put("leader_epoch", w.leaderEpoch());
                    write.set("batches", batchesJson(w.batches()));
                    write.put("error", w.error().name());
                }
                index++;
            }
            ObjectNode result = Adapter.JSON.createObjectNode();
            result.set("outputs", outputs);
            result.set("view", view());
            return result;
        }

        /** A new partition object with this leader epoch, loaded from the store. */
        private Errors load(int leaderEpoch) {
            partition = new SharePartitionAccess(GROUP, tip, leaderEpoch, maxInFlight, deliveryLimit, lockMs,
                timer, clock, store, replicaManager);
            return outcome(partition.partition().maybeInitialize());
        }

        private ObjectNode step(JsonNode event) throws Adapter.Answer {
            String type = event.path("type").asText();
            switch (type) {
                case "Fetch":
                    return fetch(event);
                case "Acknowledge": {
                    List<ShareAcknowledgementBatch> batches = new ArrayList<>();
                    boolean renew = false;
                    for (JsonNode b : event.path("batches")) {
                        List<Byte> types = new ArrayList<>();
                        for (JsonNode t : b.path("types")) {
                            types.add((byte) t.asInt());
                            renew |= t.asInt() == 4;
                        }
                        batches.add(new ShareAcknowledgementBatch(b.path("first_offset").asLong(),
                            b.path("last_offset").asLong(), types));
                    }
                    Errors error;
                    if (!AcknowledgementCheck.valid(tip, batches, renew)) {
                        error = Errors.INVALID_REQUEST;
                    } else if (!partition.active()) {
                        error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    } else {
                        String member = event.path("member_id").asText();
                        error = escaped(() -> outcome(partition.partition().acknowledge(member, batches)));
                    }
                    return errorResponse("AcknowledgeResponse", error);
                }
                case "ReleaseMember": {
                    Errors error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    if (partition.active()) {
                        String member = event.path("member_id").asText();
                        error = escaped(() -> outcome(partition.partition().releaseAcquiredRecords(member)));
                    }
                    return errorResponse("ReleaseResponse", error);
                }
                case "CanAcquire": {
                    ObjectNode response = Adapter.JSON.createObjectNode();
                    response.put("type", "CanAcquireResponse");
                    response.put("can_acquire", partition.active() && partition.canAcquireRecords());
                    return response;
                }
                case "MoveLogStart":
                    if (partition.active()) {
                        partition.updateCacheAndOffsets(event.path("log_start_offset").asLong());
                    }
                    return null;
                case "AdvanceClock":
                    timer.advanceTo(event.path("to_ms").asLong());
                    return null;
                case "SetPersisterError":
                    store.injected = errors(event.path("error").asText("NONE"));
                    return null;
                case "FenceLeader":
                    store.fenceLeader(partition.leaderEpoch());
                    return null;
                case "ResetShareState":
                    store.reset(event.path("start_offset").asLong());
                    return null;
                case "Reload": {
                    latestOffset = event.path("latest_offset").asLong(0);
                    int epoch = Math.max(partition.leaderEpoch(), store.leaderEpoch()) + 1;
                    // The manager dropped the old object (it became a follower, or was fenced):
                    // marked FENCED, its locks still armed on the shared timer.
                    partition.markFenced();
                    return errorResponse("ReloadResponse", load(epoch));
                }
                default:
                    throw Adapter.Answer.error("invalid_input", "event type " + type + " is not a share partition event");
            }
        }

        private ObjectNode fetch(JsonNode event) throws Adapter.Answer {
            List<long[]> batches = new ArrayList<>();
            for (JsonNode b : event.path("log")) {
                long base = b.path("base_offset").asLong();
                long last = b.path("last_offset").asLong();
                if (last - base + 1 > MAX_BATCH_RECORDS) {
                    throw Adapter.Answer.unsupported("a log batch of " + (last - base + 1) + " offsets: the adapter gives "
                        + "SharePartition#acquire real record batches, one record per offset, up to " + MAX_BATCH_RECORDS);
                }
                batches.add(new long[] {base, last});
            }
            FetchPartitionData data = LogRecordsShim.fetchData(batches, latestOffset);
            ShareAcquiredRecords acquired = partition.partition().acquire(event.path("member_id").asText(),
                ShareAcquireMode.BATCH_OPTIMIZED, event.path("batch_size").asInt(500),
                event.path("max_fetch_records").asInt(500), event.path("fetch_offset").asLong(), data,
                FetchIsolation.HIGH_WATERMARK);
            ObjectNode response = Adapter.JSON.createObjectNode();
            response.put("type", "FetchResponse");
            ArrayNode list = response.putArray("acquired");
            for (AcquiredRecords a : acquired.acquiredRecords()) {
                ObjectNode r = list.addObject();
                r.put("first_offset", a.firstOffset());
                r.put("last_offset", a.lastOffset());
                r.put("delivery_count", a.deliveryCount());
            }
            response.put("count", acquired.count());
            return response;
        }

        private ObjectNode view() {
            ObjectNode view = Adapter.JSON.createObjectNode();
            view.put("now_ms", clock.milliseconds());
            view.put("status", partition.active() ? "ACTIVE" : "FAILED");
            view.put("leader_epoch", partition.leaderEpoch());
            view.put("state_epoch", partition.stateEpoch());
            view.put("start_offset", partition.startOffset());
            view.put("end_offset", partition.endOffset());
            view.put("next_fetch_offset", partition.partition().nextFetchOffset());
            ArrayNode batches = view.putArray("batches");
            ArrayNode records = view.putArray("records");
            for (InFlightBatch b : partition.cachedState().values()) {
                ObjectNode batch = batches.addObject();
                batch.put("first_offset", b.firstOffset());
                batch.put("last_offset", b.lastOffset());
                batch.put("split", b.offsetState() != null);
                if (b.offsetState() == null) {
                    for (long o = b.firstOffset(); o <= b.lastOffset(); o++) {
                        record(records, o, b.batchState(), b.batchDeliveryCount(), b.batchMemberId(),
                            b.batchAcquisitionLockTimeoutTask());
                    }
                } else {
                    for (Map.Entry<Long, InFlightState> e : b.offsetState().entrySet()) {
                        InFlightState s = e.getValue();
                        record(records, e.getKey(), s.state(), s.deliveryCount(), s.memberId(), s.acquisitionLockTimeoutTask());
                    }
                }
            }
            long[] window = partition.gapWindow();
            if (window != null && window[1] == partition.endOffset()) {
                ArrayNode w = view.putArray("gap_window");
                w.add(window[0]);
                w.add(window[1]);
            } else {
                view.putNull("gap_window");
            }
            view.put("persisted_state_epoch", store.stateEpoch());
            view.put("persisted_leader_epoch", store.leaderEpoch());
            view.put("persisted_start_offset", store.startOffset());
            view.set("persisted", batchesJson(store.batches()));
            return view;
        }

        private static void record(ArrayNode records, long offset, RecordState state, int count, String member,
                                   AcquisitionLockTimerTask lock) {
            ObjectNode r = records.addObject();
            r.put("offset", offset);
            r.put("state", state.name());
            r.put("delivery_count", count);
            r.put("member_id", member);
            if (lock == null) {
                r.putNull("lock_deadline_ms");
            } else {
                r.put("lock_deadline_ms", lock.expirationMs());
            }
        }
    }

    private static ArrayNode batchesJson(List<ScriptedShareState.Batch> batches) {
        ArrayNode out = Adapter.JSON.createArrayNode();
        for (ScriptedShareState.Batch b : batches) {
            ObjectNode batch = out.addObject();
            batch.put("first_offset", b.first());
            batch.put("last_offset", b.last());
            batch.put("delivery_state", RecordState.forId(b.state()).name());
            batch.put("delivery_count", b.count());
        }
        return out;
    }

    private static ObjectNode errorResponse(String type, Errors error) {
        ObjectNode response = Adapter.JSON.createObjectNode();
        response.put("type", type);
        response.put("error", error.name());
        return response;
    }

    /**
     * What the broker answers when a share partition call throws instead of failing its future:
     * the exception leaves the share partition manager and KafkaApis answers the request with
     * {@code Errors.forException} of it (UNKNOWN_SERVER_ERROR for a NullPointerException). Said on
     * stderr too, as it is Kafka's code crashing (docs/divergences.md, share_ack_missing_floor).
     */
    private static Errors escaped(java.util.function.Supplier<Errors> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            System.err.println("Kafka's SharePartition threw (answered " + Errors.forException(e).name()
                + ", as KafkaApis would): " + e);
            for (StackTraceElement at : e.getStackTrace()) {
                if (at.getClassName().startsWith("kafka.")) {
                    System.err.println("    at " + at);
                    break;
                }
            }
            System.err.flush();
            return Errors.forException(e);
        }
    }

    /** The error a completed future stands for (NONE when it succeeded). */
    private static Errors outcome(CompletableFuture<Void> future) {
        if (!future.isDone()) {
            throw new IllegalStateException("the share partition left a future pending: the scripted persister answers at once");
        }
        try {
            future.get();
            return Errors.NONE;
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            return Errors.forException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Errors.UNKNOWN_SERVER_ERROR;
        }
    }

    private static RecordState recordState(String name) throws Adapter.Answer {
        try {
            return RecordState.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "no record state " + name);
        }
    }

    private static Errors errors(String name) throws Adapter.Answer {
        try {
            return Errors.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "no error " + name);
        }
    }
}

package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.config.ConfigException;

import java.util.List;

/**
 * groupspec's machine {@code share_state} (handler {@code run}) answered by Kafka 4.2.1's
 * {@code ShareCoordinatorShard}: a whole run (config, metadata image, clock at start, events) goes
 * in; every event's answers and records and the final view come out (docs/conformance.md,
 * "Machine share_state"). {@link ShareStateRun} plays the runtime and the service around the
 * shards; this class refuses, as {@code unsupported}, what Kafka's classes cannot be given.
 */
final class ShareStateMachine implements Adapter.Machine {

    @Override
    public List<String> handlers() {
        return List.of("run");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        JsonNode events = Adapter.runEvents(input);
        JsonNode fence = input.path("config").path("fence_read_without_leader_epoch");
        boolean fences = fence.isMissingNode() || fence.asBoolean();
        ReleaseShim.require(fences == ReleaseShim.FENCES_READ_WITHOUT_LEADER_EPOCH, "fence_read_without_leader_epoch",
            fences);
        ShareStateRun run;
        try {
            run = new ShareStateRun(input.path("config"), input.path("topics"), input.path("start_ms").asLong(0));
        } catch (ConfigException | IllegalArgumentException e) {
            throw Adapter.Answer.unsupported("config: Kafka's ShareCoordinatorConfig refuses it: " + e.getMessage());
        }
        ArrayNode outputs = Adapter.JSON.createArrayNode();
        for (int i = 0; i < events.size(); i++) {
            outputs.add(run.handle(events.get(i), i));
        }
        ObjectNode result = Adapter.JSON.createObjectNode();
        result.set("outputs", outputs);
        result.set("view", run.view());
        return result;
    }
}

package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * groupspec's machine {@code share_consumer} (handler {@code run}) answered by Kafka 4.2.1's own
 * share consumer membership classes (kafka-clients' ShareMembershipManager and
 * ShareHeartbeatRequestManager; docs/conformance.md, "Machine share_consumer"). A whole run goes in
 * (config, start time, the application's calls, time, the heartbeats' answers and failures); every
 * event's sent heartbeat, changed partitions and fatal error, and the final view come out.
 * {@link ShareConsumerRun} drives the classes; this class refuses, as {@code unsupported}, what
 * they cannot be given.
 */
final class ShareConsumerMachine implements Adapter.Machine {

    @Override
    public List<String> handlers() {
        return List.of("run");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        JsonNode events = Adapter.runEvents(input);
        ShareConsumerRun run;
        try {
            run = new ShareConsumerRun(input.path("config"), input.path("start_ms").asLong(0), events);
        } catch (ShareConsumerRun.Unsupported e) {
            throw Adapter.Answer.unsupported(e.getMessage());
        } catch (org.apache.kafka.common.config.ConfigException e) {
            throw Adapter.Answer.unsupported("config: Kafka's ConsumerConfig refuses it: " + e.getMessage());
        }
        ArrayNode outputs = Adapter.JSON.createArrayNode();
        for (int i = 0; i < events.size(); i++) {
            try {
                outputs.add(run.handle(events.get(i)));
            } catch (ShareConsumerRun.Unsupported e) {
                throw Adapter.Answer.unsupported("events[" + i + "]: " + e.getMessage());
            }
        }
        ObjectNode result = Adapter.JSON.createObjectNode();
        result.set("outputs", outputs);
        result.set("view", run.view());
        return result;
    }
}

package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * groupspec's machine {@code classic_group} (handler {@code run}) answered by Kafka 4.2.1's
 * {@code GroupCoordinatorShard}: a whole run (config, clock at start, events) goes in, every
 * event's answers and records and the final view come out (docs/conformance.md, "Machine
 * classic_group"). {@link ClassicRun} drives the shard; this class checks what Kafka's classes
 * cannot be given and answers {@code unsupported} for it.
 */
final class ClassicGroupMachine implements Adapter.Machine {

    @Override
    public List<String> handlers() {
        return List.of("run");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        JsonNode events = Adapter.runEvents(input);
        for (int i = 0; i < events.size(); i++) {
            String host = events.get(i).path("client_host").asText("/127.0.0.1");
            if (events.get(i).has("client_host") && !ClassicRun.isAddressForm(host)) {
                throw Adapter.Answer.unsupported("events[" + i + "].client_host " + host + ": Kafka takes the client "
                    + "host from the request's InetAddress (its toString), which only writes \"/<ip>\" forms here");
            }
        }
        long retention = input.path("config").path("offsets_retention_ms").asLong(604_800_000L);
        if (retention % 60_000L != 0) {
            throw Adapter.Answer.unsupported("config.offsets_retention_ms " + retention + " is not whole minutes: "
                + "Kafka's only setting is offsets.retention.minutes");
        }
        ClassicRun run = new ClassicRun(input.path("config"), input.path("start_ms").asLong(0));
        ArrayNode outputs = Adapter.JSON.createArrayNode();
        for (int i = 0; i < events.size(); i++) {
            try {
                outputs.add(run.handle(events.get(i), i));
            } catch (ClassicRun.Unsupported e) {
                throw Adapter.Answer.unsupported("events[" + i + "]: " + e.getMessage());
            }
        }
        ObjectNode result = Adapter.JSON.createObjectNode();
        result.set("outputs", outputs);
        result.set("view", run.view());
        run.translateOut(result);
        return result;
    }
}

package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * groupspec's machine {@code share_group} (handler {@code run}) answered by Kafka 4.2.1's
 * {@code GroupCoordinatorShard}: a whole run (config, metadata image, clock at start, events) goes
 * in; every event's answers, records and InitializeShareGroupState requests and the final view
 * come out (docs/conformance.md, "Machine share_group"). {@link ShareGroupRun} drives the shards;
 * this class refuses, as {@code unsupported}, what Kafka's classes cannot be given.
 */
final class ShareGroupMachine implements Adapter.Machine {

    @Override
    public List<String> handlers() {
        return List.of("run");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        JsonNode events = Adapter.runEvents(input);
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            String host = e.path("client_host").asText("/127.0.0.1");
            if (e.has("client_host") && !ClassicRun.isAddressForm(host)) {
                throw Adapter.Answer.unsupported("events[" + i + "].client_host " + host + ": Kafka takes the client "
                    + "host from the request's InetAddress (its toString), which only writes \"/<ip>\" forms here");
            }
        }
        int firstEpoch = input.path("config").path("initial_group_epoch").asInt(0);
        ReleaseShim.require(firstEpoch == ReleaseShim.INITIAL_GROUP_EPOCH, "initial_group_epoch", firstEpoch);
        ShareGroupRun run;
        try {
            run = new ShareGroupRun(input.path("config"), input.path("topics"), input.path("start_ms").asLong(0));
        } catch (org.apache.kafka.common.config.ConfigException | IllegalArgumentException e) {
            throw Adapter.Answer.unsupported("config: Kafka's GroupCoordinatorConfig refuses it: " + e.getMessage());
        }
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
        return result;
    }
}

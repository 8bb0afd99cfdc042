package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * groupspec's machine {@code share_delivery} (handler {@code run}) answered by kafka-clients 4.2.1's
 * own share consumer delivery path (ShareConsumerImpl over ShareConsumeRequestManager,
 * ShareFetchBuffer, ShareFetchCollector and ShareSessionHandler; docs/conformance.md, "Machine
 * share_delivery"). {@link ShareDeliveryRun} drives the classes; this class refuses, as
 * {@code unsupported}, what they cannot be given. Built against 4.2.1 only (src/kafka-4.2): the
 * records it writes into ShareFetch answers use the record classes 4.3 moved.
 */
final class ShareDeliveryMachine implements Adapter.Machine {

    @Override
    public List<String> handlers() {
        return List.of("run");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        JsonNode events = Adapter.runEvents(input);
        ShareDeliveryRun run;
        try {
            run = new ShareDeliveryRun(input.path("config"), events);
        } catch (ShareDeliveryRun.Unsupported e) {
            throw Adapter.Answer.unsupported("config: " + e.getMessage());
        }
        try {
            ArrayNode outputs = Adapter.JSON.createArrayNode();
            for (int i = 0; i < events.size(); i++) {
                try {
                    outputs.add(run.handle(events.get(i)));
                } catch (ShareDeliveryRun.Unsupported e) {
                    throw Adapter.Answer.unsupported("events[" + i + "]: " + e.getMessage());
                }
            }
            ObjectNode result = Adapter.JSON.createObjectNode();
            result.set("outputs", outputs);
            result.set("view", run.view());
            return result;
        } finally {
            run.close();
        }
    }
}

package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * groupspec's machine {@code classic_consumer} (handler {@code run}) answered by Kafka 4.2.1's own
 * classic consumer classes (kafka-clients' ConsumerCoordinator over its test MockClient;
 * docs/conformance.md, "Machine classic_consumer"). A whole run goes in (config, the application's
 * calls, the coordinator's answers); what the client sent, called back and raised at each event,
 * and the final view come out. {@link ClassicConsumerRun} drives the classes; this class refuses,
 * as {@code unsupported}, what they cannot be given.
 */
final class ClassicConsumerMachine implements Adapter.Machine {

    @Override
    public List<String> handlers() {
        return List.of("run");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        JsonNode events = Adapter.runEvents(input);
        ClassicConsumerRun run;
        try {
            run = new ClassicConsumerRun(input.path("config"), events);
        } catch (ClassicConsumerRun.Unsupported e) {
            throw Adapter.Answer.unsupported(e.getMessage());
        }
        ArrayNode outputs = Adapter.JSON.createArrayNode();
        for (int i = 0; i < events.size(); i++) {
            try {
                outputs.add(run.handle(events.get(i)));
            } catch (ClassicConsumerRun.Unsupported | UnsupportedOperationException e) {
                throw Adapter.Answer.unsupported("events[" + i + "]: " + e.getMessage());
            }
        }
        ObjectNode result = Adapter.JSON.createObjectNode();
        result.set("outputs", outputs);
        result.set("view", run.view());
        return result;
    }
}

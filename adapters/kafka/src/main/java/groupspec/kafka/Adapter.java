package groupspec.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * groupspec's JSON-lines conformance protocol (docs/conformance.md) answered by Kafka's own
 * classes (4.2.1, or 4.3.1 with the pom's profile kafka-4.3: the {@code *Shim} classes of
 * src/kafka-4.2 and src/kafka-4.3 cover what differs), so that every vector can be held to what
 * Kafka's code does rather than to what groupspec believes it does. One request per line on
 * stdin, one answer per line on stdout; logs go to stderr only, because stdout belongs to the
 * protocol.
 *
 * <p>Each machine is a {@link Machine}: the handlers it answers, and why it leaves the others out.
 * A machine or handler the adapter does not have is answered {@code unsupported} with that reason,
 * never guessed.
 */
public final class Adapter {
    static final ObjectMapper JSON = new ObjectMapper();

    /** What a machine of the adapter must say about itself and do. */
    interface Machine {
        List<String> handlers();

        /** Handlers of groupspec's machine this adapter leaves out, with the reason: none unless
         *  a machine says otherwise. */
        default Map<String, String> leftOut() {
            return Map.of();
        }

        JsonNode answer(String handler, JsonNode input) throws Answer;
    }

    /** An answer other than an output: an error of a kind, or unsupported. */
    static final class Answer extends Exception {
        final String kind;
        final boolean unsupported;

        private Answer(String kind, String message, boolean unsupported) {
            super(message);
            this.kind = kind;
            this.unsupported = unsupported;
        }

        static Answer error(String kind, String message) {
            return new Answer(kind, message, false);
        }

        static Answer unsupported(String reason) {
            return new Answer(null, reason, true);
        }
    }

    /** A stateful machine's run input: an object with an array {@code events}, which it returns. */
    static JsonNode runEvents(JsonNode input) throws Answer {
        if (!input.isObject()) {
            throw Answer.error("invalid_input", "input: expected an object");
        }
        JsonNode events = input.path("events");
        if (!events.isArray()) {
            throw Answer.error("invalid_input", "input.events: expected an array");
        }
        return events;
    }

    /** The machines of groupspec and why those not here are not (yet). */
    static final Map<String, Machine> MACHINES = new LinkedHashMap<>();
    static final Map<String, String> ABSENT = new LinkedHashMap<>();

    static {
        MACHINES.put("records", RecordsMachineShim.machine());
        MACHINES.put("simple_assignor", new SimpleAssignorMachine());
        MACHINES.put("classic_group", new ClassicGroupMachine());
        MACHINES.put("classic_assignors", new ClassicAssignorsMachine());
        MACHINES.put("share_partition", new SharePartitionMachine());
        MACHINES.put("share_group", new ShareGroupMachine());
        MACHINES.put("share_consumer", new ShareConsumerMachine());
        MACHINES.put("share_state", new ShareStateMachine());
        MACHINES.put("classic_consumer", new ClassicConsumerMachine());
        Machine delivery = ShareDeliveryShim.machine();
        if (delivery != null) {
            MACHINES.put("share_delivery", delivery);
        } else {
            ABSENT.put("share_delivery", ShareDeliveryShim.ABSENT);
        }
    }

    private Adapter() {
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            out.println(JSON.writeValueAsString(respond(line)));
            out.flush();
        }
    }

    static ObjectNode respond(String line) {
        ObjectNode answer = JSON.createObjectNode();
        JsonNode request;
        try {
            request = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            answer.putNull("id");
            return error(answer, "bad_request", "not JSON: " + e.getOriginalMessage());
        }
        if (request == null || !request.isObject() || !request.path("id").isTextual()) {
            answer.putNull("id");
            return error(answer, "bad_request", "expected an object with a string id");
        }
        answer.set("id", request.get("id"));
        String machineName = request.path("machine").asText("");
        String handler = request.path("handler").asText("");
        if (machineName.equals("groupspec") && handler.equals("handshake")) {
            answer.set("output", handshake());
            return answer;
        }
        Machine machine = MACHINES.get(machineName);
        if (machine == null) {
            String reason = ABSENT.getOrDefault(machineName, "no machine " + machineName + " in groupspec");
            return unsupported(answer, reason);
        }
        if (!machine.handlers().contains(handler)) {
            String reason = machine.leftOut().getOrDefault(handler, "no handler " + handler + " in " + machineName);
            return unsupported(answer, reason);
        }
        try {
            answer.set("output", machine.answer(handler, request.path("input")));
            return answer;
        } catch (Answer a) {
            return a.unsupported ? unsupported(answer, a.getMessage()) : error(answer, a.kind, a.getMessage());
        } catch (RuntimeException e) {
            // A Kafka class threw where the machine did not expect it: the exception is the answer,
            // named by its class, as the protocol asks of a Java target.
            return error(answer, e.getClass().getName(), String.valueOf(e.getMessage()));
        }
    }

    static ObjectNode handshake() {
        ObjectNode output = JSON.createObjectNode();
        output.put("protocol", 1);
        ObjectNode implementsNode = output.putObject("implements");
        ObjectNode reasons = output.putObject("reasons");
        for (Map.Entry<String, Machine> e : MACHINES.entrySet()) {
            ArrayNode handlers = implementsNode.putArray(e.getKey());
            e.getValue().handlers().forEach(handlers::add);
            e.getValue().leftOut().forEach((handler, why) -> reasons.put(e.getKey() + "/" + handler, why));
        }
        ABSENT.forEach((machine, why) -> reasons.put(machine + "/" + (machine.endsWith("assignor") ? "assign" : "run"), why));
        return output;
    }

    private static ObjectNode error(ObjectNode answer, String kind, String message) {
        ObjectNode err = answer.putObject("error");
        err.put("kind", kind);
        err.put("message", message);
        return answer;
    }

    private static ObjectNode unsupported(ObjectNode answer, String reason) {
        answer.putObject("unsupported").put("reason", reason);
        return answer;
    }
}

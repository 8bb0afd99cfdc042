package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records machine is left out of the Kafka 4.3 build: it is written against 4.2's record
 * classes ({@code org.apache.kafka.common.record}), which 4.3 moved to {@code ...record.internal}.
 * Every records handler answers {@code unsupported} with that reason.
 */
final class RecordsMachineShim {
    static final String REASON = "the records machine is built against Kafka 4.2's record classes only; "
        + "Kafka 4.3 moved them to org.apache.kafka.common.record.internal";

    /** groupspec's records handlers, each left out with the reason. */
    private static final List<String> HANDLERS = List.of("decode_record", "encode_record", "decode_consumer_protocol",
        "encode_consumer_protocol", "encode_batch", "decode_log", "decode_partition", "read_log", "write_log");

    private RecordsMachineShim() {
    }

    static Adapter.Machine machine() {
        return new Adapter.Machine() {
            @Override
            public List<String> handlers() {
                return List.of();
            }

            @Override
            public Map<String, String> leftOut() {
                Map<String, String> out = new LinkedHashMap<>();
                HANDLERS.forEach(h -> out.put(h, REASON));
                return out;
            }

            @Override
            public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
                throw Adapter.Answer.unsupported(REASON);
            }
        };
    }
}

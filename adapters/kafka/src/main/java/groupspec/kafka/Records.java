package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecordSerde;
import org.apache.kafka.coordinator.common.runtime.Deserializer;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.share.ShareCoordinatorRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Machine records through the serdes the coordinators load and write their topics with
 * ({@code GroupCoordinatorRecordSerde}, {@code ShareCoordinatorRecordSerde}) and the generated
 * JSON converters {@code DumpLogSegments} prints records with.
 *
 * <p>The serde answers every failure with an exception; the vectors name a failure by its kind
 * (docs/conformance.md, machine records). The mapping is this adapter's, and deliberately coarse,
 * so that a disagreement shows: an unknown type and an unknown value version are the serde's own
 * exceptions; a buffer that ran out is Truncated: the version short itself, a field past the end
 * (BufferUnderflowException), and the two checks Kafka makes before reading a length-prefixed
 * field (ByteBufferAccessor's byte array "only N byte(s) available", the generated readers'
 * "Tried to allocate a collection of size N" when a count exceeds the bytes left); anything else
 * the generated reader throws is Malformed.
 *
 * <p>The byte-level handlers are Kafka's batch writers ({@link RecordsBatch}, encode_batch) and
 * log classes ({@link RecordsLog}, write_log and read_log).
 */
final class Records implements Adapter.Machine {
    private static final HexFormat HEX = HexFormat.of();

    @Override
    public List<String> handlers() {
        return List.of("decode_record", "encode_record", "decode_consumer_protocol", "encode_consumer_protocol",
            "encode_batch", "write_log", "read_log");
    }

    @Override
    public Map<String, String> leftOut() {
        String view = "groupspec decode's output; Kafka prints logs in DumpLogSegments's own form, so "
                + "there is nothing of Kafka's to compare with";
        return Map.of("decode_log", "the log view is " + view, "decode_partition", "the partition view is " + view);
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        return switch (handler) {
            case "decode_record" -> decode(input);
            case "decode_consumer_protocol" -> ConsumerProtocols.decode(input);
            case "encode_consumer_protocol" -> ConsumerProtocols.encode(input);
            case "encode_batch" -> RecordsBatch.encode(input);
            case "write_log" -> RecordsLog.write(input);
            case "read_log" -> RecordsLog.read(input);
            default -> encode(input);
        };
    }

    private interface Converters {
        JsonNode key(ApiMessage key);

        JsonNode value(ApiMessage value, short version);

        ApiMessage readKey(JsonNode node, short type);

        ApiMessage readValue(JsonNode node, short type, short version);
    }

    private static final Converters GROUP = new Converters() {
        public JsonNode key(ApiMessage key) {
            return org.apache.kafka.coordinator.group.generated.CoordinatorRecordJsonConverters.writeRecordKeyAsJson(key);
        }

        public JsonNode value(ApiMessage value, short version) {
            return org.apache.kafka.coordinator.group.generated.CoordinatorRecordJsonConverters
                .writeRecordValueAsJson(value, version);
        }

        public ApiMessage readKey(JsonNode node, short type) {
            return org.apache.kafka.coordinator.group.generated.CoordinatorRecordJsonConverters.readRecordKeyFromJson(node, type);
        }

        public ApiMessage readValue(JsonNode node, short type, short version) {
            return org.apache.kafka.coordinator.group.generated.CoordinatorRecordJsonConverters
                .readRecordValueFromJson(node, type, version);
        }
    };

    private static final Converters SHARE = new Converters() {
        public JsonNode key(ApiMessage key) {
            return org.apache.kafka.coordinator.share.generated.CoordinatorRecordJsonConverters.writeRecordKeyAsJson(key);
        }

        public JsonNode value(ApiMessage value, short version) {
            return org.apache.kafka.coordinator.share.generated.CoordinatorRecordJsonConverters
                .writeRecordValueAsJson(value, version);
        }

        public ApiMessage readKey(JsonNode node, short type) {
            return org.apache.kafka.coordinator.share.generated.CoordinatorRecordJsonConverters.readRecordKeyFromJson(node, type);
        }

        public ApiMessage readValue(JsonNode node, short type, short version) {
            return org.apache.kafka.coordinator.share.generated.CoordinatorRecordJsonConverters
                .readRecordValueFromJson(node, type, version);
        }
    };

    private record Topic(CoordinatorRecordSerde serde, Converters json, java.util.function.IntPredicate knows) {
    }

    private static boolean knownGroupType(int id) {
        return java.util.Arrays.stream(org.apache.kafka.coordinator.group.generated.CoordinatorRecordType.values())
            .anyMatch(t -> t.id() == id);
    }

    private static boolean knownShareType(int id) {
        return java.util.Arrays.stream(org.apache.kafka.coordinator.share.generated.CoordinatorRecordType.values())
            .anyMatch(t -> t.id() == id);
    }

    private static Topic topic(JsonNode input) throws Adapter.Answer {
        String name = text(input, "topic");
        return switch (name) {
            case "__consumer_offsets" -> new Topic(new GroupCoordinatorRecordSerde(), GROUP, Records::knownGroupType);
            case "__share_group_state" -> new Topic(new ShareCoordinatorRecordSerde(), SHARE, Records::knownShareType);
            default -> throw Adapter.Answer.error("invalid_input", "input.topic: not a coordinator topic: " + name);
        };
    }

    /** Kafka's name of a record type: its key class's, without the "Key". */
    private static String typeName(ApiMessage key) {
        return key.getClass().getSimpleName().replaceFirst("Key$", "");
    }

    private static JsonNode decode(JsonNode input) throws Adapter.Answer {
        Topic topic = topic(input);
        byte[] key = hex(input, "key");
        byte[] value = input.path("value").isNull() ? null : hex(input, "value");
        CoordinatorRecord record;
        try {
            record = topic.serde().deserialize(ByteBuffer.wrap(key), value == null ? null : ByteBuffer.wrap(value));
        } catch (Deserializer.UnknownRecordTypeException e) {
            throw Adapter.Answer.error("UnknownRecordType", e.getMessage());
        } catch (Deserializer.UnknownRecordVersionException e) {
            throw Adapter.Answer.error("UnsupportedVersion", e.getMessage());
        } catch (RuntimeException e) {
            Throwable cause = e.getCause();
            String why = cause == null ? "" : String.valueOf(cause.getMessage());
            boolean ranOut = cause instanceof BufferUnderflowException
                || String.valueOf(e.getMessage()).startsWith("Could not read version")
                || why.startsWith("Tried to allocate a collection of size")
                || (why.startsWith("Error reading byte array of") && why.endsWith("byte(s) available"));
            throw Adapter.Answer.error(ranOut ? "Truncated" : "Malformed", e + (e.getCause() == null ? "" : " <- " + e.getCause()));
        }
        ObjectNode out = Adapter.JSON.createObjectNode();
        out.put("type", typeName(record.key()));
        out.put("typeId", record.key().apiKey());
        out.set("key", topic.json().key(record.key()));
        ApiMessageAndVersion v = record.value();
        if (v == null) {
            out.putNull("valueVersion");
            out.putNull("value");
        } else {
            out.put("valueVersion", v.version());
            out.set("value", topic.json().value(v.message(), v.version()));
        }
        return out;
    }

    private static JsonNode encode(JsonNode input) throws Adapter.Answer {
        Topic topic = topic(input);
        if (!input.path("typeId").canConvertToExactIntegral() || !input.path("typeId").canConvertToInt()) {
            throw Adapter.Answer.error("invalid_input", "input.typeId: expected a number");
        }
        short type = (short) input.path("typeId").asInt();
        if (!topic.knows().test(type)) {
            throw Adapter.Answer.error("UnknownRecordType", "input.typeId: no record type " + type
                + " in " + input.path("topic").asText());
        }
        ApiMessage key;
        try {
            key = topic.json().readKey(input.path("key"), type);
        } catch (RuntimeException e) {
            throw Adapter.Answer.error("invalid_input", "input.key: " + e);
        }
        if (!typeName(key).equals(input.path("type").asText())) {
            throw Adapter.Answer.error("invalid_input", "input.typeId: type " + type + " is " + typeName(key)
                + ", not " + input.path("type").asText());
        }
        CoordinatorRecord record;
        if (input.path("value").isNull()) {
            record = CoordinatorRecord.tombstone(key);
        } else {
            JsonNode versionNode = input.path("valueVersion");
            if (!versionNode.canConvertToExactIntegral() || !versionNode.canConvertToInt()) {
                throw Adapter.Answer.error("invalid_input", "input.valueVersion: expected a version number");
            }
            short version = (short) versionNode.asInt();
            ApiMessage value;
            try {
                value = topic.json().readValue(input.path("value"), type, version);
            } catch (UnsupportedVersionException e) {
                throw Adapter.Answer.error("UnsupportedVersion", e.getMessage());
            } catch (RuntimeException e) {
                throw Adapter.Answer.error("invalid_input", "input.value: " + e);
            }
            record = CoordinatorRecord.record(key, new ApiMessageAndVersion(value, version));
        }
        ObjectNode out = Adapter.JSON.createObjectNode();
        try {
            out.put("key", HEX.formatHex(topic.serde().serializeKey(record)));
            byte[] value = topic.serde().serializeValue(record);
            if (value == null) {
                out.putNull("value");
            } else {
                out.put("value", HEX.formatHex(value));
            }
        } catch (UnsupportedVersionException e) {
            throw Adapter.Answer.error("UnsupportedVersion", e.getMessage());
        } catch (RuntimeException e) {
            throw Adapter.Answer.error("Encode", e.toString());
        }
        return out;
    }

    private static String text(JsonNode input, String field) throws Adapter.Answer {
        JsonNode node = input.path(field);
        if (!node.isTextual()) {
            throw Adapter.Answer.error("invalid_input", "input." + field + ": expected a string");
        }
        return node.asText();
    }

    private static byte[] hex(JsonNode input, String field) throws Adapter.Answer {
        try {
            return HEX.parseHex(text(input, field));
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "input." + field + ": not hex");
        }
    }
}

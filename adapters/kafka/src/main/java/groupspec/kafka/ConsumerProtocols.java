package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolAssignmentJsonConverter;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.ConsumerProtocolSubscriptionJsonConverter;
import org.apache.kafka.common.protocol.types.SchemaException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The records machine's {@code decode_consumer_protocol} and {@code encode_consumer_protocol}
 * through the client's own {@code ConsumerProtocol}: the bytes a classic consumer member sends in
 * JoinGroup (its subscription) and its leader in SyncGroup (the assignments), and the generated
 * JSON converters of the two messages.
 *
 * <p>Reading is the message level the group coordinator uses ({@code deserializeVersion}, then
 * {@code deserializeConsumerProtocolSubscription} / {@code ...Assignment}, which read a version
 * above the highest with the highest layout); the JSON shows the fields of that layout. Writing
 * a subscription is the client's {@code serializeSubscription} (it sorts topics and owned
 * partitions, which the vectors already are), an assignment {@code serializeAssignment} of the
 * message; a null version is the one a client writes, the highest.
 *
 * <p>Failures by kind, this adapter's coarse mapping (as in {@link Records}): a version the
 * protocol refuses is UnsupportedVersion, bytes that ran out (the client's "Buffer underflow",
 * a length or count past the bytes left) Truncated, anything else the generated reader throws
 * Malformed.
 */
final class ConsumerProtocols {
    private static final HexFormat HEX = HexFormat.of();

    private ConsumerProtocols() {
    }

    static JsonNode decode(JsonNode input) throws Adapter.Answer {
        boolean subscription = isSubscription(input);
        ByteBuffer buffer;
        try {
            buffer = ByteBuffer.wrap(HEX.parseHex(input.path("hex").asText()));
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "input.hex: not hex");
        }
        ObjectNode out = Adapter.JSON.createObjectNode();
        try {
            short version = ConsumerProtocol.deserializeVersion(buffer);
            out.put("version", version);
            if (subscription) {
                ConsumerProtocolSubscription data = ConsumerProtocol.deserializeConsumerProtocolSubscription(buffer, version);
                short shown = (short) Math.min(version, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
                out.set("value", ConsumerProtocolSubscriptionJsonConverter.write(data, shown));
            } else {
                ConsumerProtocolAssignment data = ConsumerProtocol.deserializeConsumerProtocolAssignment(buffer, version);
                short shown = (short) Math.min(version, ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION);
                out.set("value", ConsumerProtocolAssignmentJsonConverter.write(data, shown));
            }
        } catch (RuntimeException e) {
            throw refusal(e);
        }
        return out;
    }

    static JsonNode encode(JsonNode input) throws Adapter.Answer {
        boolean subscription = isSubscription(input);
        JsonNode versionNode = input.path("version");
        short highest = subscription ? ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION
            : ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION;
        short version;
        if (versionNode.isNull() || versionNode.isMissingNode()) {
            version = highest;
        } else if (versionNode.canConvertToExactIntegral() && versionNode.canConvertToInt()) {
            version = (short) versionNode.asInt();
        } else {
            throw Adapter.Answer.error("invalid_input", "input.version: expected a version number or null");
        }
        ByteBuffer written;
        try {
            if (subscription) {
                ConsumerProtocolSubscription data = readJson(input.path("value"), highest,
                    ConsumerProtocolSubscriptionJsonConverter::read);
                written = ConsumerProtocol.serializeSubscription(asSubscription(data), version);
            } else {
                ConsumerProtocolAssignment data = readJson(input.path("value"), highest,
                    ConsumerProtocolAssignmentJsonConverter::read);
                written = ConsumerProtocol.serializeAssignment(data, version);
            }
        } catch (SchemaException e) {
            throw refusal(e);
        }
        byte[] bytes = new byte[written.remaining()];
        written.get(bytes);
        ObjectNode out = Adapter.JSON.createObjectNode();
        out.put("hex", HEX.formatHex(bytes));
        return out;
    }

    private interface JsonReader<T> {
        T read(JsonNode node, short version);
    }

    /**
     * The message of a JSON form, read at the highest version whose fields the JSON has (the
     * converters want every field of the version they read at, and refuse one it lacks); which
     * version the bytes are written at is the serializer's business, not the reading's.
     */
    private static <T> T readJson(JsonNode node, short highest, JsonReader<T> reader) throws Adapter.Answer {
        RuntimeException last = null;
        for (short v = highest; v >= 0; v--) {
            try {
                return reader.read(node, v);
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw Adapter.Answer.error("invalid_input", "input.value: " + last);
    }

    /** The client's Subscription of a decoded message, as deserializeSubscription builds it. */
    private static Subscription asSubscription(ConsumerProtocolSubscription data) {
        List<TopicPartition> owned = new ArrayList<>();
        for (ConsumerProtocolSubscription.TopicPartition tp : data.ownedPartitions()) {
            for (Integer partition : tp.partitions()) {
                owned.add(new TopicPartition(tp.topic(), partition));
            }
        }
        return new Subscription(data.topics(), data.userData() == null ? null : data.userData().duplicate(), owned,
            data.generationId(), Optional.ofNullable(data.rackId()));
    }

    private static boolean isSubscription(JsonNode input) throws Adapter.Answer {
        String kind = input.path("kind").asText("");
        if (!kind.equals("subscription") && !kind.equals("assignment")) {
            throw Adapter.Answer.error("invalid_input", "input.kind: expected subscription or assignment");
        }
        return kind.equals("subscription");
    }

    private static Adapter.Answer refusal(RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        Throwable cause = e.getCause();
        String why = cause == null ? "" : String.valueOf(cause.getMessage());
        if (e instanceof SchemaException && message.startsWith("Unsupported")) {
            return Adapter.Answer.error("UnsupportedVersion", message);
        }
        boolean ranOut = e instanceof BufferUnderflowException || cause instanceof BufferUnderflowException
            || message.startsWith("Tried to allocate a collection of size")
            || (message.startsWith("Error reading byte array of") && message.endsWith("byte(s) available"))
            || why.startsWith("Tried to allocate a collection of size");
        return Adapter.Answer.error(ranOut ? "Truncated" : "Malformed", e + (cause == null ? "" : " <- " + cause));
    }
}

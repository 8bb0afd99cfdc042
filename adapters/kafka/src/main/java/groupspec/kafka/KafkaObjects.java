package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * What the drivers of Kafka's classes share: the hex text groupspec's JSON carries bytes as,
 * nullable strings both ways, and reading or setting a field Kafka keeps private (the drivers
 * look inside Kafka's objects where no public method shows what groupspec's view needs).
 */
final class KafkaObjects {
    static final HexFormat HEX = HexFormat.of();

    private KafkaObjects() {
    }

    /** A string field of groupspec's JSON that may be null or left out. */
    static String nullableText(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode() ? null : node.asText();
    }

    static void putNullable(ObjectNode o, String key, String value) {
        if (value == null) {
            o.putNull(key);
        } else {
            o.put(key, value);
        }
    }

    /** Bytes from groupspec's hex text ("" for none). */
    static byte[] bytes(JsonNode node) {
        return HEX.parseHex(node.asText(""));
    }

    /** The bytes from the buffer's position to its limit, as hex (the buffer is not moved). */
    static String hex(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return HEX.formatHex(out);
    }

    private static Field declared(Class<?> start, String name) {
        for (Class<?> c = start; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new IllegalStateException("no field " + name + " in " + start);
    }

    /** The value of {@code name}, declared by the target's class or one of its superclasses. */
    static Object field(Object target, String name) {
        try {
            return declared(target.getClass(), name).get(target);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sets {@code name} (declared by {@code owner}) on the target, a final field too. */
    static void setField(Class<?> owner, Object target, String name, Object value) {
        try {
            declared(owner, name).set(target, value);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}

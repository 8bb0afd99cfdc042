// Reads lines "<apiKey> <version> <request|response> <hex>" on stdin; for each, Kafka's generated
// message class reads the bytes at that version and writes them again; prints the hex it wrote, or
// "error <class>: <message>" when Kafka refuses the bytes. groupspec's wire tests compare the two.
// Run as a single source file: java -cp kafka-clients-4.2.1.jar WireEcho.java
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.message.ApiMessageType;

public class WireEcho {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        HexFormat hex = HexFormat.of();
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ", -1);  // an empty body leaves an empty 4th part
            try {
                ApiMessageType type = ApiMessageType.fromApiKey(Short.parseShort(parts[0]));
                short version = Short.parseShort(parts[1]);
                ApiMessage message = parts[2].equals("request") ? type.newRequest() : type.newResponse();
                ByteBuffer buffer = ByteBuffer.wrap(hex.parseHex(parts[3]));
                message.read(new ByteBufferAccessor(buffer), version);
                if (buffer.hasRemaining()) {
                    System.out.println("error trailing: " + buffer.remaining() + " bytes left");
                    continue;
                }
                ByteBuffer out = MessageUtil.toByteBufferAccessor(message, version).buffer();
                System.out.println(hex.formatHex(MessageUtil.byteBufferToArray(out)));
            } catch (RuntimeException e) {
                System.out.println("error " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }
}

package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Machine classic_assignors through kafka-clients' own {@code RangeAssignor},
 * {@code RoundRobinAssignor}, {@code StickyAssignor} and {@code CooperativeStickyAssignor} (a fresh
 * instance per call, so no state from an earlier answer leaks in), called as the leader's ConsumerCoordinator.onLeaderElected calls
 * them: the subscriptions in a {@code HashMap} keyed by member id, filled in the vector's member
 * order (the JoinGroup response's), each with its instance id set; the metadata a {@code Cluster}
 * with one broker per rack named in the vector (and one without a rack), each partition's replicas
 * on the brokers of its racks. The answer's lists are returned in Kafka's order.
 */
final class ClassicAssignorsMachine implements Adapter.Machine {
    @Override
    public List<String> handlers() {
        return List.of("assign");
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        String name = input.path("assignor").asText("");
        ConsumerPartitionAssignor assignor;
        if (name.equals("range")) {
            assignor = new RangeAssignor();
        } else if (name.equals("roundrobin")) {
            assignor = new RoundRobinAssignor();
        } else if (name.equals("sticky")) {
            assignor = new StickyAssignor();
        } else if (name.equals("cooperative-sticky")) {
            assignor = new CooperativeStickyAssignor();
        } else {
            throw Adapter.Answer.unsupported("assignor " + name + " is not driven here");
        }
        Map<String, Subscription> subscriptions = new HashMap<>();
        JsonNode members = input.path("members");
        List<String> order = new ArrayList<>();
        members.fieldNames().forEachRemaining(order::add);
        for (String memberId : order) {
            JsonNode m = members.get(memberId);
            List<String> topics = new ArrayList<>();
            m.path("topics").forEach(t -> topics.add(t.asText()));
            List<TopicPartition> owned = new ArrayList<>();
            m.path("owned").forEach(tp -> owned.add(new TopicPartition(tp.get(0).asText(), tp.get(1).asInt())));
            ByteBuffer userData = m.hasNonNull("user_data") ? ByteBuffer.wrap(hex(m.get("user_data").asText())) : null;
            Optional<String> rack = m.hasNonNull("rack") ? Optional.of(m.get("rack").asText()) : Optional.empty();
            int generation = m.hasNonNull("generation") ? m.get("generation").asInt() : -1;
            Subscription s = new Subscription(topics, userData, owned, generation, rack);
            s.setGroupInstanceId(m.hasNonNull("instance_id") ? Optional.of(m.get("instance_id").asText()) : Optional.empty());
            subscriptions.put(memberId, s);
        }
        Map<String, ConsumerPartitionAssignor.Assignment> answer =
            assignor.assign(cluster(input), new GroupSubscription(subscriptions)).groupAssignment();
        ObjectNode out = Adapter.JSON.createObjectNode();
        ObjectNode assignment = out.putObject("assignment");
        for (String memberId : order) {
            ArrayNode list = assignment.putArray(memberId);
            Assignment a = answer.get(memberId);
            if (a == null) {
                continue;
            }
            for (TopicPartition tp : a.partitions()) {
                ArrayNode pair = list.addArray();
                pair.add(tp.topic());
                pair.add(tp.partition());
            }
        }
        return out;
    }

    private static Cluster cluster(JsonNode input) {
        Map<String, Node> brokers = new LinkedHashMap<>();
        Node rackless = new Node(0, "broker-0", 9092, null);
        List<PartitionInfo> partitions = new ArrayList<>();
        JsonNode racks = input.path("racks");
        input.path("topics").fields().forEachRemaining(e -> {
            String topic = e.getKey();
            for (int p = 0; p < e.getValue().asInt(); p++) {
                List<Node> replicas = new ArrayList<>();
                JsonNode ofPartition = racks.path(topic).path(p);
                for (JsonNode r : ofPartition) {
                    replicas.add(brokers.computeIfAbsent(r.asText(),
                        rack -> new Node(brokers.size() + 1, "broker-" + (brokers.size() + 1), 9092, rack)));
                }
                if (replicas.isEmpty()) {
                    replicas.add(rackless);
                }
                Node[] nodes = replicas.toArray(new Node[0]);
                partitions.add(new PartitionInfo(topic, p, nodes[0], nodes, nodes));
            }
        });
        List<Node> nodes = new ArrayList<>(brokers.values());
        nodes.add(rackless);
        return new Cluster("groupspec", nodes, partitions, new HashSet<>(), new HashSet<>());
    }

    private static byte[] hex(String text) {
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(text.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}

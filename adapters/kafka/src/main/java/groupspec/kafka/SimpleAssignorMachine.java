package groupspec.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Machine simple_assignor through Kafka's own {@code SimpleAssignor}, given what the coordinator
 * gives it: a {@code GroupSpecImpl} whose member map is a {@code HashMap} filled in the vector's
 * member order, subscriptions as {@code TopicIds} over a {@code HashSet} of names, previous
 * targets as {@code Assignment}s of {@code HashMap}s and {@code HashSet}s. These are the same
 * modelling decisions groupspec's Kafka-exact mode documents (impl/simple_assignor/kafka_compat.py),
 * made here with the real Java collections instead of emulated ones, so that the two can be
 * compared: a topic without an id in {@code topic_ids} gets the same derived id (UUID version 5 of
 * its name); a subscribed name with no partition count answers -1, as a topic missing from the
 * metadata image does; the member order of the coordinator's own map (a TimelineHashMap) is not
 * modelled, input order stands in for it.
 */
final class SimpleAssignorMachine implements Adapter.Machine {
    /** The namespace of derived topic ids (kafka_compat.TOPIC_ID_NAMESPACE). */
    private static final UUID NAMESPACE = UUID.fromString("6f1c2d3e-9a4b-5c6d-8e7f-0a1b2c3d4e5f");

    @Override
    public List<String> handlers() {
        return List.of("assign");
    }

    @Override
    public Map<String, String> leftOut() {
        return Map.of();
    }

    @Override
    public JsonNode answer(String handler, JsonNode input) throws Adapter.Answer {
        JsonNode members = object(input, "members");
        JsonNode topics = object(input, "topics");
        JsonNode explicitIds = input.path("topic_ids");
        Map<String, Uuid> idOf = new LinkedHashMap<>();
        Map<Uuid, String> nameOf = new HashMap<>();
        List<String> names = new ArrayList<>();
        topics.fieldNames().forEachRemaining(names::add);
        explicitIds.fieldNames().forEachRemaining(names::add);
        for (JsonNode member : members) {
            member.path("topics").forEach(n -> names.add(n.asText()));
            member.path("assignment").fieldNames().forEachRemaining(names::add);
        }
        for (String name : names) {
            if (!idOf.containsKey(name)) {
                Uuid id = explicitIds.has(name) ? parseId(explicitIds.get(name).asText(), name) : derivedId(name);
                idOf.put(name, id);
                nameOf.put(id, name);
            }
        }
        TopicIds.TopicResolver resolver = new TopicIds.TopicResolver() {
            @Override
            public CoordinatorMetadataImage image() {
                return null;
            }

            @Override
            public String name(Uuid id) {
                String name = nameOf.get(id);
                return name != null && resolvable(name) ? name : null;
            }

            @Override
            public Uuid id(String name) {
                return resolvable(name) ? idOf.get(name) : null;
            }

            @Override
            public void clear() {
            }

            private boolean resolvable(String name) {
                return topics.has(name) || explicitIds.has(name);
            }
        };
        SubscribedTopicDescriber describer = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                String name = nameOf.get(topicId);
                return name != null && topics.has(name) ? topics.get(name).asInt() : -1;
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Set.of();
            }
        };

        Map<String, MemberSubscriptionAndAssignmentImpl> specMembers = new HashMap<>();
        List<Set<String>> subscriptions = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> it = members.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            List<String> subscribed = new ArrayList<>();
            e.getValue().path("topics").forEach(n -> subscribed.add(n.asText()));
            Set<String> topicNames = new HashSet<>(subscribed);
            subscriptions.add(topicNames);
            Map<Uuid, Set<Integer>> previous = new HashMap<>();
            Iterator<Map.Entry<String, JsonNode>> held = e.getValue().path("assignment").fields();
            while (held.hasNext()) {
                Map.Entry<String, JsonNode> topic = held.next();
                TreeSet<Integer> ascending = new TreeSet<>();
                topic.getValue().forEach(p -> ascending.add(p.asInt()));
                previous.put(idOf.get(topic.getKey()), new HashSet<>(ascending));
            }
            specMembers.put(e.getKey(), new MemberSubscriptionAndAssignmentImpl(
                Optional.empty(), Optional.empty(), new TopicIds(topicNames, resolver), new Assignment(previous)));
        }
        Optional<Map<Uuid, Set<Integer>>> assignable = Optional.empty();
        JsonNode allowed = input.path("assignable");
        if (allowed.isObject()) {
            Map<Uuid, Set<Integer>> map = new HashMap<>();
            allowed.fields().forEachRemaining(e -> {
                Set<Integer> parts = new HashSet<>();
                e.getValue().forEach(p -> parts.add(p.asInt()));
                map.put(idOf.get(e.getKey()), parts);
            });
            assignable = Optional.of(map);
        }
        GroupSpecImpl spec = new GroupSpecImpl(specMembers, subscriptionType(subscriptions), Map.of(), assignable);
        GroupAssignment result = new SimpleAssignor().assign(spec, describer);

        ObjectNode out = Adapter.JSON.createObjectNode();
        ObjectNode assignment = out.putObject("assignment");
        members.fieldNames().forEachRemaining(memberId -> {
            ObjectNode target = assignment.putObject(memberId);
            MemberAssignment got = result.members().get(memberId);
            if (got == null) {
                return;
            }
            Map<String, TreeSet<Integer>> byName = new java.util.TreeMap<>();
            got.partitions().forEach((id, parts) -> {
                if (!parts.isEmpty()) {
                    byName.put(nameOf.get(id), new TreeSet<>(parts));
                }
            });
            byName.forEach((name, parts) -> {
                ArrayNode list = target.putArray(name);
                parts.forEach(list::add);
            });
        });
        return out;
    }

    /** HOMOGENEOUS when nobody subscribes to anything or every subscribed name has every member. */
    private static SubscriptionType subscriptionType(List<Set<String>> subscriptions) {
        Set<String> all = new HashSet<>();
        subscriptions.forEach(all::addAll);
        for (String name : all) {
            for (Set<String> s : subscriptions) {
                if (!s.contains(name)) {
                    return SubscriptionType.HETEROGENEOUS;
                }
            }
        }
        return SubscriptionType.HOMOGENEOUS;
    }

    private static Uuid parseId(String text, String name) throws Adapter.Answer {
        try {
            if (text.length() == 22) {
                return Uuid.fromString(text);
            }
            UUID u = UUID.fromString(text);
            return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
        } catch (IllegalArgumentException e) {
            throw Adapter.Answer.error("invalid_input", "topic_ids." + name + ": not a topic id: " + text);
        }
    }

    /** UUID version 5 (SHA-1) of the name in the fixed namespace, as groupspec's Kafka mode derives it. */
    static Uuid derivedId(String name) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            ByteBuffer ns = ByteBuffer.allocate(16);
            ns.putLong(NAMESPACE.getMostSignificantBits()).putLong(NAMESPACE.getLeastSignificantBits());
            sha1.update(ns.array());
            byte[] h = sha1.digest(name.getBytes(StandardCharsets.UTF_8));
            h[6] = (byte) ((h[6] & 0x0f) | 0x50);
            h[8] = (byte) ((h[8] & 0x3f) | 0x80);
            ByteBuffer b = ByteBuffer.wrap(h, 0, 16);
            return new Uuid(b.getLong(), b.getLong());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode object(JsonNode input, String field) throws Adapter.Answer {
        JsonNode node = input.path(field);
        if (!node.isObject()) {
            throw Adapter.Answer.error("invalid_input", field + ": expected an object");
        }
        return node;
    }
}

package io.purgatory.demo.broker.network;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Struct;

/**
 * Bounds what any request costs before kafka-clients parses it, for every API. kafka-clients keeps
 * some of a request's entries, and some of the response's, in hash collections with linear probing
 * ({@code ImplicitLinkedHashCollection}) that accept repeats: each repeat of a key, each key of the
 * same {@code String} hash, and each key of another hash that lands in the same slot probes past all
 * the earlier ones, so a 28 KB JoinGroup of 4,000 protocols named {@code x} kept a thread busy for
 * 12 s (time growing 7 to 9 times per doubling). Kafka 4.4 has the same weakness.
 *
 * <p>So the body is first read with the request's generic {@link org.apache.kafka.common.protocol.types.Schema}, which keeps arrays as
 * arrays (cost linear in the bytes), and then:
 * <ul>
 *   <li>every array holds at most {@value #MAX_ENTRIES} entries and all of them together at most
 *       {@value #MAX_TOTAL_ENTRIES} (Kafka's own controller refuses more than 10,000 partitions in one
 *       request);</li>
 *   <li>for each array whose entries go into such a collection, in the parsed request or in the
 *       response the broker builds ({@link #KEYED}), the probes of that collection are counted exactly
 *       as kafka-clients makes them (each a step past a taken slot): with each entry's real
 *       {@code hashCode}, at the capacity the parser sizes it to and at each capacity it grows through
 *       when built for a response. In all the request's arrays together at most
 *       {@value #PROBES_PER_ENTRY} probes per entry, plus {@value #SPARE_PROBES}, are allowed. Distinct
 *       keys take 1.5 per entry when their hashes look random, and up to 33 for names that differ in
 *       a counter ({@code topic-0} to {@code topic-999}: kafka-clients clusters those, in Kafka too);
 *       about 100 repeats of one name, or names of one hash or slot, use up the spare. Measured with
 *       kafka-clients 4.4 on a loaded 2-core machine, 1,000 entries of one slot took 1.0 to 1.5 s to
 *       add, 1,000 {@code topic-N} names 4 ms, 125 repeats 1 ms.</li>
 * </ul>
 * So no request makes a handler thread visit more than a constant times its entries, whatever
 * their names. The scan itself visits at most the budget plus the collections' capacities.
 *
 * <p>Thread-safe: stateless.
 */
final class RequestEntryLimit {
    /** Most entries in any one array of a request. */
    static final int MAX_ENTRIES = 10_000;
    /** Most entries in all the arrays of a request together. */
    static final int MAX_TOTAL_ENTRIES = 20_000;
    /** Probes per keyed entry that kafka-clients' hash collections may make, request and response together. */
    static final int PROBES_PER_ENTRY = 40;
    /** Probes allowed on top of {@link #PROBES_PER_ENTRY}, so that small requests never count. */
    static final int SPARE_PROBES = 16_384;
    /** The capacity of a hash collection made without an expected size ({@code calculateCapacity(5)}). */
    private static final int DEFAULT_CAPACITY = 11;

    /**
     * Per API, the arrays (by their field names from the root, dot-separated) whose entries become
     * keys of a kafka-clients hash collection, in the request or its response, and each entry's
     * hash there, computed by the collection's own element class.
     */
    static final Map<ApiKeys, Map<String, ToIntFunction<Object>>> KEYED = keyedArrays();
    /**
     * APIs whose handler bounds the entries itself and answers past its bound with Kafka's error on the
     * same connection: a Fetch naming more partitions than {@code --max-partitions} gets
     * {@code INVALID_REQUEST} (its partitions are a plain list, parsed in time linear in its bytes), so
     * the entry caps above do not close its connection; its keyed arrays are still counted.
     */
    private static final Set<ApiKeys> BOUNDED_BY_HANDLER = EnumSet.of(ApiKeys.FETCH);

    private RequestEntryLimit() {
    }

    /**
     * Why a request body (positioned after its header) costs too much, or null when it does not, or
     * when the body does not read (the parser then refuses it).
     */
    static String excess(ApiKeys api, short version, ByteBuffer body) {
        return scan(api, version, body).refusal();
    }

    /** What the scan of a request found: why it is refused (or null), and the entries and probes it counted. */
    record Scan(String refusal, long entries, long probes) {
    }

    // Visible for testing: the counts are the deterministic measure of a request's cost
    static Scan scan(ApiKeys api, short version, ByteBuffer body) {
        Struct struct;
        try {
            struct = api.messageType.requestSchemas()[version].read(body.duplicate());
        } catch (RuntimeException unreadable) {
            return new Scan(null, 0, 0);
        }
        Map<String, ToIntFunction<Object>> keyed = KEYED.getOrDefault(api, Map.of());
        long total = 0;
        long keyedEntries = 0;
        long probes = 0;
        Deque<Nested> pending = new ArrayDeque<>();
        pending.push(new Nested("", struct));
        while (!pending.isEmpty()) {
            Nested next = pending.pop();
            for (BoundField field : next.struct().schema().fields()) {
                if (!(next.struct().get(field) instanceof Object[] array)) {
                    continue;
                }
                String path = next.path().isEmpty() ? field.def.name : next.path() + "." + field.def.name;
                boolean capped = !BOUNDED_BY_HANDLER.contains(api);
                if (capped && array.length > MAX_ENTRIES) {
                    return new Scan(api + " v" + version + " has an array of " + array.length + " entries (at most " + MAX_ENTRIES + ")",
                            total, probes);
                }
                total += array.length;
                if (capped && total > MAX_TOTAL_ENTRIES) {
                    return new Scan(api + " v" + version + " has more than " + MAX_TOTAL_ENTRIES + " entries in all", total, probes);
                }
                ToIntFunction<Object> hash = keyed.get(path);
                if (hash != null) {
                    keyedEntries += array.length;
                    long budget = PROBES_PER_ENTRY * keyedEntries + SPARE_PROBES;
                    probes += probes(array, hash, budget - probes);
                    if (probes > budget) {
                        return new Scan(api + " v" + version + " has keys in '" + path + "' that collide (repeated, or of one hash):"
                                + " more than " + PROBES_PER_ENTRY + " probes per entry", total, probes);
                    }
                }
                for (Object element : array) {
                    if (element instanceof Struct child) {
                        pending.push(new Nested(path, child));
                    }
                }
            }
        }
        return new Scan(null, total, probes);
    }

    private record Nested(String path, Struct struct) {
    }

    /**
     * The probes kafka-clients' collections make holding {@code entries}: sized for them when
     * parsed, grown one by one when built for a response; stops counting past {@code allowed}.
     */
    private static long probes(Object[] entries, ToIntFunction<Object> hash, long allowed) {
        int n = entries.length;
        int[] hashes = new int[n];
        for (int i = 0; i < n; i++) {
            hashes[i] = hash.applyAsInt(entries[i]);
        }
        long probes = 0;
        int parsed = Math.max(5, 2 * n + 1); // the parser's new XCollection(n), which grows once before its last add
        probes += probes(hashes, n - 1, parsed, allowed);
        probes += probes(hashes, n, 2 * parsed + 1, allowed - probes);
        for (int capacity = DEFAULT_CAPACITY; probes <= allowed; capacity = 2 * capacity + 1) { // a response's collection, growing
            int held = Math.min(n, capacity / 2 - 1);
            probes += probes(hashes, held, capacity, allowed - probes);
            if (held == n) {
                break;
            }
        }
        return probes;
    }

    /**
     * Probes past a taken slot, in linear probing, of the first {@code count} hashes into a table of
     * {@code capacity} slots (slot = hash mod capacity, as kafka-clients computes it).
     */
    private static long probes(int[] hashes, int count, int capacity, long allowed) {
        boolean[] taken = new boolean[capacity];
        long probes = 0;
        for (int i = 0; i < count && probes <= allowed; i++) {
            int slot = (hashes[i] & Integer.MAX_VALUE) % capacity;
            while (taken[slot] && probes <= allowed) {
                probes++;
                slot = slot + 1 == capacity ? 0 : slot + 1;
            }
            taken[slot] = true;
        }
        return probes;
    }

    private static Map<ApiKeys, Map<String, ToIntFunction<Object>>> keyedArrays() {
        Map<ApiKeys, Map<String, ToIntFunction<Object>>> keyed = new EnumMap<>(ApiKeys.class);
        keyed.put(ApiKeys.PRODUCE, Map.of("topic_data", e -> {
            TopicProduceData topic = new TopicProduceData();
            Struct s = (Struct) e;
            if (s.hasField("name")) {
                topic.setName(s.getString("name"));
            }
            if (s.hasField("topic_id")) {
                topic.setTopicId((Uuid) s.get("topic_id"));
            }
            return topic.hashCode();
        }));
        keyed.put(ApiKeys.JOIN_GROUP, Map.of("protocols", e -> new JoinGroupRequestProtocol().setName(string(e, "name")).hashCode()));
        keyed.put(ApiKeys.OFFSET_DELETE, Map.of(
                "topics", e -> new OffsetDeleteRequestTopic().setName(string(e, "name")).hashCode(),
                "topics.partitions", e -> new OffsetDeleteResponsePartition().setPartitionIndex(integer(e, "partition_index")).hashCode()));
        keyed.put(ApiKeys.CREATE_TOPICS, Map.of(
                "topics", e -> new CreatableTopic().setName(string(e, "name")).hashCode(),
                "topics.assignments", e -> new CreatableReplicaAssignment().setPartitionIndex(integer(e, "partition_index")).hashCode(),
                "topics.configs", e -> new CreatableTopicConfig().setName(string(e, "name")).hashCode()));
        keyed.put(ApiKeys.CREATE_PARTITIONS, Map.of("topics", e -> new CreatePartitionsTopic().setName(string(e, "name")).hashCode()));
        keyed.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, Map.of(
                "resources", e -> new AlterConfigsResource().setResourceType((Byte) ((Struct) e).get("resource_type"))
                        .setResourceName(string(e, "resource_name")).hashCode(),
                "resources.configs", e -> new AlterableConfig().setName(string(e, "name"))
                        .setConfigOperation((Byte) ((Struct) e).get("config_operation")).hashCode()));
        // the response's topics are keyed by name: a topic named by id alone is answered under its name, or none when unknown
        keyed.put(ApiKeys.METADATA, Map.of("topics", e -> new MetadataResponseTopic().setName(string(e, "name")).hashCode()));
        keyed.put(ApiKeys.DELETE_TOPICS, Map.of(
                "topic_names", e -> new DeletableTopicResult().setName((String) e).hashCode(),
                "topics", e -> new DeletableTopicResult().setName(string(e, "name")).hashCode()));
        keyed.put(ApiKeys.DELETE_GROUPS, Map.of("groups_names", e -> new DeletableGroupResult().setGroupId((String) e).hashCode()));
        keyed.put(ApiKeys.DELETE_RECORDS, Map.of(
                "topics", e -> new DeleteRecordsTopicResult().setName(string(e, "name")).hashCode(),
                "topics.partitions", e -> new DeleteRecordsPartitionResult().setPartitionIndex(integer(e, "partition_index")).hashCode()));
        return keyed;
    }

    private static String string(Object entry, String field) {
        return ((Struct) entry).getString(field);
    }

    private static int integer(Object entry, String field) {
        return ((Struct) entry).getInt(field);
    }
}

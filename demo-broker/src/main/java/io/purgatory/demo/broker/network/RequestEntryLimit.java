package io.purgatory.demo.broker.network;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Struct;

/**
 * Caps the entries of the admin requests whose kafka-clients parser keeps them in hash collections
 * ({@code CreateTopics}: topics, their configs and assignments; {@code CreatePartitions}: topics;
 * {@code IncrementalAlterConfigs}: resources and their configs), before that parser runs. Those
 * collections accept repeats, and each repeat of a key (or each key with a colliding hash) probes
 * past all the earlier ones: a 16 MB {@code CreateTopics} of one repeated name would keep an event
 * loop parsing for hours. The body is first read with the request's generic {@link org.apache.kafka.common.protocol.types.Schema}, which
 * keeps arrays as arrays (linear), and its arrays are counted: at most {@value #MAX_ENTRIES} entries
 * in any one, and {@value #MAX_TOTAL_ENTRIES} in all, which bounds the worst parse to about
 * {@code MAX_ENTRIES * MAX_TOTAL_ENTRIES / 2} probes. That is ample for any real request (Kafka's own
 * controller refuses more than 10,000 partitions in one request) and lets an over-large one reach the
 * broker's own caps, which answer it with Kafka's error.
 *
 * <p>Thread-safe: stateless.
 */
final class RequestEntryLimit {
    /** Most entries in any one array of a checked request. */
    static final int MAX_ENTRIES = 10_000;
    /** Most entries in all the arrays of a checked request together. */
    static final int MAX_TOTAL_ENTRIES = 20_000;

    private static final Set<ApiKeys> CHECKED = EnumSet.of(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.INCREMENTAL_ALTER_CONFIGS);

    private RequestEntryLimit() {
    }

    /**
     * Why a request body (positioned after its header) has too many entries, or null when it has
     * not, when its API is not checked, or when the body does not read (the parser then refuses it).
     */
    static String excess(ApiKeys api, short version, ByteBuffer body) {
        if (!CHECKED.contains(api)) {
            return null;
        }
        Struct struct;
        try {
            struct = api.messageType.requestSchemas()[version].read(body.duplicate());
        } catch (RuntimeException unreadable) {
            return null;
        }
        long total = 0;
        Deque<Struct> pending = new ArrayDeque<>();
        pending.push(struct);
        while (!pending.isEmpty()) {
            Struct next = pending.pop();
            for (BoundField field : next.schema().fields()) {
                if (next.get(field) instanceof Object[] array) {
                    if (array.length > MAX_ENTRIES) {
                        return api + " v" + version + " has an array of " + array.length + " entries (at most " + MAX_ENTRIES + ")";
                    }
                    total += array.length;
                    if (total > MAX_TOTAL_ENTRIES) {
                        return api + " v" + version + " has more than " + MAX_TOTAL_ENTRIES + " entries in all";
                    }
                    for (Object element : array) {
                        if (element instanceof Struct child) {
                            pending.push(child);
                        }
                    }
                }
            }
        }
        return null;
    }
}

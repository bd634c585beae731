package io.purgatory.demo.broker.network;

import io.purgatory.demo.broker.network.HostileBodies.Keys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every keyed array of every API, with N = 1,000 to 16,000 entries (the sweep is tagged stress) of equal keys, of one hash, or
 * distinct: the scan's cost (entries read, probes counted) grows linearly with N, colliding keys
 * are refused, and distinct ones pass up to {@link RequestEntryLimit#MAX_ENTRIES}.
 */
class RequestEntryLimitTest {
    /** The key field of each keyed array's entries; null where the entries are strings themselves. */
    private static final Map<String, String> KEY_FIELDS = Map.of("topic_data", "name", "protocols", "name", "topics", "name",
            "topics.partitions", "partition_index", "topics.assignments", "partition_index", "topics.configs", "name",
            "resources", "resource_name", "resources.configs", "name");

    static Stream<Arguments> keyedArrays() {
        List<Arguments> arrays = new ArrayList<>();
        RequestEntryLimit.KEYED.forEach((api, paths) -> paths.keySet().forEach(path -> {
            short version = api == ApiKeys.PRODUCE ? (short) 12 : api.latestVersion(); // v13 names topics by id
            arrays.add(Arguments.of(api, version, path));
            if (api == ApiKeys.DELETE_TOPICS && path.equals("topic_names")) {
                arrays.set(arrays.size() - 1, Arguments.of(api, (short) 5, path));
            }
        }));
        return arrays.stream();
    }

    @Tag("stress")
    @ParameterizedTest(name = "{0} v{1} {2}")
    @MethodSource("keyedArrays")
    void costGrowsLinearlyAndCollisionsAreRefused(ApiKeys api, short version, String path) {
        String keyField = path.equals("topic_names") || path.equals("groups_names") ? null : KEY_FIELDS.get(path);
        for (Keys keys : Keys.values()) {
            for (int n = 1_000; n <= 16_000; n *= 2) {
                ByteBuffer body = HostileBodies.body(api, version, path, keyField, keys, n);
                RequestEntryLimit.Scan scan = RequestEntryLimit.scan(api, version, body);
                String what = api + " " + path + " " + keys + " n=" + n;
                assertTrue(scan.entries() <= n + 1, what + ": entries read " + scan.entries());
                assertTrue(scan.probes() <= (long) RequestEntryLimit.PROBES_PER_ENTRY * (n + 1) + RequestEntryLimit.SPARE_PROBES + 1,
                        what + ": probes " + scan.probes());
                if (keys == Keys.DISTINCT && n <= RequestEntryLimit.MAX_ENTRIES) {
                    assertNull(scan.refusal(), what);
                } else {
                    assertNotNull(scan.refusal(), what);
                }
            }
        }
    }

    @Test
    void aFewRepeatsPass() {
        ByteBuffer body = HostileBodies.body(ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.latestVersion(), "protocols", "name", Keys.EQUAL, 50);
        assertNull(RequestEntryLimit.excess(ApiKeys.JOIN_GROUP, ApiKeys.JOIN_GROUP.latestVersion(), body));
    }

    @Test
    void theHashesAreTheCollectionsOwn() {
        assertEquals(new JoinGroupRequestProtocol().setName("Aa").hashCode(), new JoinGroupRequestProtocol().setName("BB").hashCode(),
                "the premise of ONE_HASH");
        assertEquals(new MetadataResponseTopic().setName("x").hashCode(), "x".hashCode(),
                "a response element's hash is its name's: distinct names of one hash collide there too");
    }

    @Test
    void unkeyedApisAreCountedToo() {
        ByteBuffer body = HostileBodies.body(ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_FETCH.latestVersion(), "groups", "group_id", Keys.DISTINCT,
                RequestEntryLimit.MAX_ENTRIES + 1);
        assertNotNull(RequestEntryLimit.excess(ApiKeys.OFFSET_FETCH, ApiKeys.OFFSET_FETCH.latestVersion(), body));
    }
}

package io.purgatory.demo.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.network.HostileBodies.Keys;
import io.purgatory.demo.broker.server.KafkaApis;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hostile requests, each API with N = 1,000 to 16,000 entries of equal keys, of one
 * hash, and distinct, through the whole request path (frame, scan, parse, handling, response): the
 * bytes the handling thread allocates per request byte stay within twice those at N = 1,000, so the
 * cost grows linearly with the request (the probes kafka-clients would make are counted by
 * {@link RequestEntryLimitTest}); and every request is answered or refused, never left hanging.
 */
@Tag("stress")
class HostileRequestCostTest {
    private final BrokerConfig config = BrokerConfig.builder().port(0).topic("t", 4).build();
    private final ReplicaManager replicaManager = new ReplicaManager(config);
    private final GroupCoordinator coordinator = new GroupCoordinator(GroupCoordinatorConfig.of(config));
    private final BrokerStats stats = new BrokerStats();
    private final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @AfterEach
    void tearDown() {
        coordinator.close();
        replicaManager.close();
    }

    static Stream<Arguments> hostileArrays() {
        return Stream.of(
                Arguments.of(ApiKeys.JOIN_GROUP, (short) 5, "protocols", "name"),
                Arguments.of(ApiKeys.OFFSET_DELETE, (short) 0, "topics", "name"),
                Arguments.of(ApiKeys.METADATA, (short) 4, "topics", "name"),
                Arguments.of(ApiKeys.DELETE_GROUPS, ApiKeys.DELETE_GROUPS.latestVersion(), "groups_names", null),
                Arguments.of(ApiKeys.DELETE_TOPICS, (short) 5, "topic_names", null),
                Arguments.of(ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_TOPICS.latestVersion(), "topics", "name"),
                Arguments.of(ApiKeys.DELETE_RECORDS, ApiKeys.DELETE_RECORDS.latestVersion(), "topics", "name"),
                Arguments.of(ApiKeys.DESCRIBE_GROUPS, ApiKeys.DESCRIBE_GROUPS.latestVersion(), "groups", null),
                Arguments.of(ApiKeys.OFFSET_FETCH, (short) 7, "topics", "name"),
                Arguments.of(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion(), "topics", "name"),
                Arguments.of(ApiKeys.CREATE_PARTITIONS, ApiKeys.CREATE_PARTITIONS.latestVersion(), "topics", "name"),
                Arguments.of(ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS.latestVersion(), "resources", "resource_name"),
                Arguments.of(ApiKeys.PRODUCE, (short) 12, "topic_data", "name"),
                Arguments.of(ApiKeys.FETCH, (short) 12, "topics", "topic"),
                Arguments.of(ApiKeys.LIST_OFFSETS, ApiKeys.LIST_OFFSETS.latestVersion(), "topics", "name"),
                Arguments.of(ApiKeys.OFFSET_COMMIT, (short) 8, "topics", "name"),
                Arguments.of(ApiKeys.DESCRIBE_CONFIGS, ApiKeys.DESCRIBE_CONFIGS.latestVersion(), "resources", "resource_name"),
                Arguments.of(ApiKeys.FIND_COORDINATOR, ApiKeys.FIND_COORDINATOR.latestVersion(), "coordinator_keys", null));
    }

    @ParameterizedTest(name = "{0} v{1} {2}")
    @MethodSource("hostileArrays")
    void allocationGrowsLinearlyWithTheRequestAndEveryRequestIsSettled(ApiKeys api, short version, String path, String keyField) {
        for (Keys keys : Keys.values()) {
            double perByteAtFirst = -1;
            List<String> seen = new ArrayList<>();
            for (int n = 1_000; n <= 16_000; n *= 2) {
                ByteBuffer frame = HostileBodies.frame(api, version, n, HostileBodies.body(api, version, path, keyField, keys, n));
                int bytes = frame.remaining();
                EmbeddedChannel connection = connection();
                long before = threads.getCurrentThreadAllocatedBytes();
                connection.writeInbound(Unpooled.wrappedBuffer(frame));
                connection.runPendingTasks();
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                boolean answered = drain(connection) > 0;
                boolean settled = answered || !connection.isOpen() || api == ApiKeys.JOIN_GROUP; // a join waits for its rebalance
                connection.finishAndReleaseAll();
                double perByte = (double) allocated / bytes;
                seen.add("n=" + n + " " + bytes + " B, " + allocated + " B allocated, " + (answered ? "answered" : "closed"));
                assertTrue(settled, api + " " + keys + " " + seen);
                if (perByteAtFirst < 0) {
                    perByteAtFirst = Math.max(perByte, 64);
                }
                assertTrue(perByte <= 2 * perByteAtFirst, api + " " + keys + ": allocation per request byte grew: " + seen);
            }
        }
    }

    private EmbeddedChannel connection() {
        return new EmbeddedChannel(new KafkaRequestHandler(new KafkaApis(replicaManager, coordinator, stats), stats, 1,
                config.maxResponseBytes(), Runnable::run, ConnectionQuotaTest.unlimited())) {
            @Override
            protected SocketAddress localAddress0() {
                return new InetSocketAddress("localhost", 9092);
            }

            @Override
            protected SocketAddress remoteAddress0() {
                return new InetSocketAddress("localhost", 50_000);
            }
        };
    }

    /** Reads and releases what the connection wrote; how many responses. */
    private static int drain(EmbeddedChannel connection) {
        int responses = 0;
        for (ByteBuf written = connection.readOutbound(); written != null; written = connection.readOutbound()) {
            responses++;
            written.release();
        }
        return responses;
    }
}

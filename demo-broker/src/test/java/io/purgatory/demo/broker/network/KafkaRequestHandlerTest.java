package io.purgatory.demo.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.server.KafkaApis;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The handler owns its connection's response order: a response is written from an event-loop task,
 * never inline while a request is handled, and the broker's shutdown reaches it as a pipeline event.
 */
class KafkaRequestHandlerTest {
    private final BrokerConfig config = BrokerConfig.builder().port(0).build();
    private final ReplicaManager replicaManager = new ReplicaManager(config);
    private final GroupCoordinator coordinator = new GroupCoordinator(GroupCoordinatorConfig.of(config));
    private final BrokerStats stats = new BrokerStats();
    private final EmbeddedChannel channel = connection();

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
        coordinator.close();
        replicaManager.close();
    }

    @Test
    void responsesAreWrittenInOrderFromTasksNeverWhileARequestIsHandled() {
        channel.pipeline().fireChannelRead(apiVersions(7)).fireChannelRead(apiVersions(8)).fireChannelRead(apiVersions(9));
        assertNull(channel.readOutbound(), "nothing written inline while handling");

        channel.runPendingTasks();

        assertEquals(List.of(7, 8, 9), correlationIds(), "one at a time (max in flight 1), in order");
    }

    @Test
    void theShutdownIsAPipelineEventThatFlushesThenCloses() {
        channel.pipeline().fireChannelRead(apiVersions(2));
        channel.runPendingTasks();
        channel.pipeline().fireUserEventTriggered(KafkaRequestHandler.ConnectionEvent.CLOSE_AFTER_FLUSH);
        channel.pipeline().fireChannelRead(apiVersions(3)); // arrives during the close: dropped
        channel.runPendingTasks();

        assertEquals(List.of(2), correlationIds(), "the response owed before the close, none after");
        assertFalse(channel.isOpen());
    }

    /** A connection to a handler with at most one request in flight, on an address metadata can advertise. */
    private EmbeddedChannel connection() {
        return new EmbeddedChannel(new KafkaRequestHandler(new KafkaApis(replicaManager, coordinator, stats), stats, 1, 1 << 20, Runnable::run,
                ConnectionQuotaTest.unlimited())) {
            @Override
            protected SocketAddress localAddress0() {
                return new InetSocketAddress("localhost", 9092);
            }
        };
    }

    private List<Integer> correlationIds() {
        return correlationIds(channel);
    }

    /** The correlation ids of the responses {@code channel} wrote, in order, read and released. */
    static List<Integer> correlationIds(EmbeddedChannel channel) {
        List<Integer> ids = new ArrayList<>();
        for (ByteBuf written = channel.readOutbound(); written != null; written = channel.readOutbound()) {
            ids.add(written.getInt(0));
            written.release();
        }
        return ids;
    }

    /** An ApiVersions v3 request frame. */
    static ByteBuf apiVersions(int correlationId) {
        ApiVersionsRequest request = new ApiVersionsRequest.Builder(new ApiVersionsRequestData(), (short) 3, (short) 3).build();
        ByteBuffer frame = request.serializeWithHeader(new RequestHeader(request.apiKey(), request.version(), "test", correlationId));
        return Unpooled.wrappedBuffer(frame);
    }
}

package io.purgatory.demo.broker.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.coordinator.GroupCoordinator;
import io.purgatory.demo.broker.coordinator.GroupCoordinatorConfig;
import io.purgatory.demo.broker.metrics.BrokerStats;
import io.purgatory.demo.broker.metrics.MemoryBudget;
import io.purgatory.demo.broker.metrics.MemoryBudget.Kind;
import io.purgatory.demo.broker.server.KafkaApis;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Requests and responses in flight in the memory budget: counted from read to handled and from
 * built to written, and while the whole budget is used a connection hands on no request until
 * there is room again.
 */
class InFlightBudgetTest {
    private static final long LIMIT = 1 << 20;
    private final BrokerConfig config = BrokerConfig.builder().port(0).build();
    private final ReplicaManager replicaManager = new ReplicaManager(config);
    private final GroupCoordinator coordinator = new GroupCoordinator(GroupCoordinatorConfig.of(config));
    private final BrokerStats stats = new BrokerStats();
    private final MemoryBudget budget = new MemoryBudget(LIMIT);
    private final EmbeddedChannel channel = new EmbeddedChannel(
            new KafkaRequestHandler(new KafkaApis(replicaManager, coordinator, stats), stats, 8, 1 << 20, Runnable::run,
                    ConnectionQuotaTest.unlimited(), budget)) {
        @Override
        protected SocketAddress localAddress0() {
            return new InetSocketAddress("localhost", 9092);
        }
    };

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
        coordinator.close();
        replicaManager.close();
    }

    @Test
    void requestsAndResponsesAreCountedUntilWrittenThenGiveTheirRoomBack() {
        channel.pipeline().fireChannelRead(apiVersions(1)).fireChannelRead(apiVersions(2));
        assertTrue(budget.used(Kind.IN_FLIGHT) > 0, "read, not yet answered");

        channel.runPendingTasks();

        assertEquals(List.of(1, 2), correlationIds());
        assertEquals(0, budget.used(Kind.IN_FLIGHT));
        assertEquals(0, budget.used());
    }

    @Test
    void whileTheWholeBudgetIsUsedNoRequestIsHandedOnUntilThereIsRoom() {
        budget.charge(Kind.IN_FLIGHT, LIMIT); // other connections' requests fill the budget
        ByteBuf request = apiVersions(5);
        int requestBytes = request.readableBytes();

        channel.pipeline().fireChannelRead(request);
        channel.runPendingTasks();

        assertEquals(List.of(), correlationIds(), "held back");
        assertFalse(channel.config().isAutoRead(), "and the socket is not read");
        assertEquals(LIMIT + requestBytes, budget.used(Kind.IN_FLIGHT));

        budget.release(Kind.IN_FLIGHT, LIMIT);
        channel.advanceTimeBy(KafkaRequestHandler.BUDGET_RECHECK_MS, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();

        assertEquals(List.of(5), correlationIds(), "handed on once there is room");
        assertTrue(channel.config().isAutoRead());
        assertEquals(0, budget.used());
    }

    private List<Integer> correlationIds() {
        return KafkaRequestHandlerTest.correlationIds(channel);
    }

    private static ByteBuf apiVersions(int correlationId) {
        return KafkaRequestHandlerTest.apiVersions(correlationId);
    }
}

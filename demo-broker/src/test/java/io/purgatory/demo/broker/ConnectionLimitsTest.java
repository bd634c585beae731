package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.BrokerSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Connections are bounded: a cap on how many are open, a rate of new ones per address, and an idle timeout. */
@Tag("integration")
class ConnectionLimitsTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();

    @Test
    void pastMaxConnectionsANewConnectionIsClosedAtOnceAndTheOthersAreServed() throws Exception {
        brokers.start(BrokerConfig.builder().maxConnections(2));
        WireClient first = brokers.connect();
        WireClient second = brokers.connect();
        // served, so the broker has counted both: connections are set up on several event loops, in no set order
        assertServed(first, second);
        WireClient third = brokers.connect();
        Waits.soon().until(() -> third.closedByBroker().isDone());
        assertServed(first, second);
        second.close();
        Waits.soon().until(this::aNewConnectionIsServed); // once the broker has seen the close
    }

    private static void assertServed(WireClient... clients) throws IOException {
        for (WireClient client : clients) {
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(
                    client.send(WireClient.produce("demo", 0, (short) 1, 1_000, 1)))).errorCode());
        }
    }

    private boolean aNewConnectionIsServed() throws Exception {
        try (WireClient client = new WireClient(brokers.port())) { // a probe: closed before the next one
            CompletableFuture<Answer> answer = client.send(WireClient.produce("demo", 0, (short) 1, 1_000, 1));
            Waits.soon().until(answer::isDone);
            return !answer.isCompletedExceptionally();
        } catch (IOException refused) {
            return false;
        }
    }

    @Test
    void pastItsAddresssRateOfNewConnectionsANewOneIsClosedAtOnceAndTheOpenOnesAreServed() throws Exception {
        brokers.start(BrokerConfig.builder().set(BrokerSettings.MAX_CONNECTION_RATE_PER_ADDRESS, 1));
        WireClient first = brokers.connect();
        assertServed(first);
        List<WireClient> more = new ArrayList<>();
        WireClient refused = null;
        while (refused == null && more.size() < 10) { // one a second: a connection within the second after the first is refused
            WireClient next = brokers.connect();
            more.add(next);
            try {
                assertServed(next);
            } catch (IOException | RuntimeException closed) {
                refused = next;
            }
        }
        assertNotNull(refused, "ten connections in a row, one allowed a second");
        Waits.soon().until(refused.closedByBroker()::isDone);
        assertServed(first);
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeoutButOneWithAParkedRequestIsNot() throws Exception {
        DemoBroker broker = brokers.start(BrokerConfig.builder().stallReplica(2).idleTimeoutMs(200));
        WireClient silent = brokers.connect();
        WireClient waiting = brokers.connect();
        waiting.send(WireClient.produce("demo", 0, (short) -1, 600_000, 1));
        Waits.soon().until(() -> silent.closedByBroker().isDone());
        Waits.soon().during(Duration.ofMillis(600)).until(() -> !waiting.closedByBroker().isDone());
        assertFalse(waiting.closedByBroker().isDone());
        assertEquals(1, broker.replicaManager().producePurgatoryMetrics().delayed());
    }
}

package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** Connections are bounded: a cap on how many are open, and an idle timeout. */
@Tag("integration")
class ConnectionLimitsTest {
    private DemoBroker broker;

    @AfterEach
    void tearDown() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void pastMaxConnectionsANewConnectionIsClosedAtOnceAndTheOthersAreServed() throws Exception {
        broker = DemoBroker.start(BrokerConfig.builder().port(0).maxConnections(2).build());
        try (WireClient first = new WireClient(broker.port()); WireClient second = new WireClient(broker.port())) {
            // served, so the broker has counted both: connections are set up on several event loops, in no set order
            assertServed(first, second);
            try (WireClient third = new WireClient(broker.port())) {
                Waits.soon().until(() -> third.closedByBroker().isDone());
            }
            assertServed(first, second);
            second.close();
            Waits.soon().until(this::aNewConnectionIsServed); // once the broker has seen the close
        }
    }

    private static void assertServed(WireClient... clients) throws IOException {
        for (WireClient client : clients) {
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(
                    client.send(WireClient.produce("demo", 0, (short) 1, 1_000, 1)))).errorCode());
        }
    }

    private boolean aNewConnectionIsServed() throws Exception {
        try (WireClient client = new WireClient(broker.port())) {
            CompletableFuture<Answer> answer = client.send(WireClient.produce("demo", 0, (short) 1, 1_000, 1));
            Waits.soon().until(answer::isDone);
            return !answer.isCompletedExceptionally();
        } catch (IOException refused) {
            return false;
        }
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeoutButOneWithAParkedRequestIsNot() throws Exception {
        broker = DemoBroker.start(BrokerConfig.builder().port(0).stallReplica(2).idleTimeoutMs(200).build());
        try (WireClient silent = new WireClient(broker.port()); WireClient waiting = new WireClient(broker.port())) {
            waiting.send(WireClient.produce("demo", 0, (short) -1, 600_000, 1));
            Waits.soon().until(() -> silent.closedByBroker().isDone());
            Waits.soon().during(Duration.ofMillis(600)).until(() -> !waiting.closedByBroker().isDone());
            assertFalse(waiting.closedByBroker().isDone());
            assertEquals(1, broker.replicaManager().parkedProduces());
        }
    }
}

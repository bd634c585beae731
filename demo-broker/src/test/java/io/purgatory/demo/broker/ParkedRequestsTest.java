package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.config.BrokerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Parked requests are bounded: a closed connection's produces and fetches leave their purgatories at once, and produces are capped. */
@Tag("integration")
class ParkedRequestsTest {
    private static final short ACKS_ALL = -1;
    private static final int LONG_TIMEOUT_MS = Integer.MAX_VALUE;

    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension();
    private DemoBroker broker;

    @Test
    void aClosedConnectionsParkedProducesLeaveThePurgatoryAtOnce() throws Exception {
        parkThenClose(2048);
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired(), "completed at the close, not expired");
    }

    @Test
    void aConnectionAtItsInFlightLimitNoticesItsClientClosing() throws Exception {
        parkThenClose(1024);
    }

    /** A client parks 1,024 acks=-1 produces (replica 2 stalled) and closes: the broker holds none after. */
    private void parkThenClose(int maxInFlightPerConnection) throws Exception {
        broker = brokers.start(BrokerConfig.builder().stallReplica(2).maxInFlightPerConnection(maxInFlightPerConnection));
        WireClient client = brokers.connect();
        for (int i = 0; i < 1024; i++) {
            client.send(WireClient.produce("demo", i % 3, ACKS_ALL, LONG_TIMEOUT_MS, 1));
        }
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 1024);

        client.close();

        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 0);
    }

    @Test
    void pastTheCapAProduceIsAnsweredAtOnceWithThrottlingQuotaExceededAndAppendsNothing() throws Exception {
        broker = brokers.start(BrokerConfig.builder().stallReplica(2).maxParkedRequests(10));
        WireClient first = brokers.connect();
        WireClient second = brokers.connect();
        for (int i = 0; i < 10; i++) {
            first.send(WireClient.produce("demo", 0, ACKS_ALL, LONG_TIMEOUT_MS, 1));
        }
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 10);

        Answer refused = DemoBrokerTest.answer(second.send(WireClient.produce("demo", 0, ACKS_ALL, LONG_TIMEOUT_MS, 1)));
        assertEquals(Errors.THROTTLING_QUOTA_EXCEEDED.code(), DemoBrokerTest.partitionResponse(refused).errorCode());
        assertEquals(10, broker.replicaManager().partition("demo", 0).leaderEndOffset(), "the refused produce appended nothing");
        CompletableFuture<Answer> acksOne = second.send(WireClient.produce("demo", 1, (short) 1, LONG_TIMEOUT_MS, 1));
        assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(acksOne)).errorCode(),
                "acks=1 parks nothing and is not capped");

        first.close();
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 0);
        second.send(WireClient.produce("demo", 0, ACKS_ALL, LONG_TIMEOUT_MS, 1));
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 1);
    }

    /** 100 connections each park two fetches (both watch forms), then close: none stays parked; an open connection's is still answered. */
    @Test
    void aClosedConnectionsParkedFetchesLeaveThePurgatoryAtOnce() throws Exception {
        broker = brokers.start(BrokerConfig.builder());
        List<WireClient> clients = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            WireClient client = brokers.connect();
            clients.add(client);
            client.send(new FetchRequest(FetchTest.fetch(300_000, Integer.MAX_VALUE, 0, 0, 0), (short) 12));
            client.send(new FetchRequest(FetchTest.fetch(300_000, Integer.MAX_VALUE, 0), (short) 12)); // the position form
        }
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 200);
        WireClient good = brokers.connect();
        CompletableFuture<Answer> goodFetch = good.send(new FetchRequest(FetchTest.fetch(300_000, 1, 0), (short) 12));

        for (WireClient client : clients) {
            client.close();
        }

        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 1);
        assertEquals(0, broker.replicaManager().fetchPurgatoryMetrics().expired(), "taken out at the close, not expired");
        DemoBrokerTest.answer(good.send(WireClient.produce("demo", 0, (short) 1, LONG_TIMEOUT_MS, 1)));
        FetchResponse answered = (FetchResponse) DemoBrokerTest.answer(goodFetch).response();
        assertEquals(Errors.NONE.code(), answered.data().responses().get(0).partitions().get(0).errorCode(),
                "the open connection's fetch is answered when the data comes");
        Waits.soon().until(() -> broker.replicaManager().fetchPurgatoryMetrics().delayed() == 0);
    }
}

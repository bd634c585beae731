package io.purgatory.demo.broker;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.server.DelayedProduce;
import io.purgatory.demo.broker.server.ProduceResult;
import io.purgatory.demo.broker.server.ReplicaManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Closing the broker answers every parked request before the connections close. */
@Tag("integration")
class ShutdownTest {
    @RegisterExtension
    final BrokerExtension brokers = new BrokerExtension(config -> config.stallReplica(2));

    @Test
    void closeAnswersEveryParkedRequestThenClosesTheConnections(DemoBroker broker) throws Exception {
        List<WireClient> clients = List.of(brokers.connect(), brokers.connect(), brokers.connect());
        List<CompletableFuture<Answer>> parked = new ArrayList<>();
        List<CompletableFuture<Answer>> quick = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            WireClient client = clients.get(i % clients.size());
            parked.add(client.send(WireClient.produce("demo", i % 3, (short) -1, 600_000, 1)));
            quick.add(client.send(WireClient.produce("demo", i % 3, (short) 1, 600_000, 1)));
        }
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == parked.size());

        broker.close();

        for (CompletableFuture<Answer> future : parked) {
            assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(future)).errorCode());
        }
        for (CompletableFuture<Answer> future : quick) {
            assertEquals(Errors.NONE.code(), DemoBrokerTest.partitionResponse(DemoBrokerTest.answer(future)).errorCode());
        }
        for (WireClient client : clients) {
            Waits.soon().until(() -> client.closedByBroker().isDone());
        }
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired(), "answered at the close, not expired");
    }

    @Test
    void aProduceArrivingDuringTheCloseIsAnsweredNotLeaderOrFollowerAndAppendsNothing() throws Exception {
        BrokerConfig config = BrokerConfig.builder().port(0).stallReplica(2).build();
        ReplicaManager replicaManager = new ReplicaManager(config);
        Partition partition = replicaManager.topics().topic("demo").partition(0);
        List<List<ProduceResult>> answers = new ArrayList<>();
        ProduceResult.Key key = new ProduceResult.Key("demo", null, 0);
        replicaManager.close();

        DelayedProduce parked = replicaManager.appendRecords((short) -1, 600_000,
                List.of(ReplicaManager.PartitionAppend.of(key, partition, WireClient.records(1))), answers::add);

        assertEquals(null, parked);
        assertEquals(List.of(List.of(ProduceResult.failed(key, Errors.NOT_LEADER_OR_FOLLOWER))), answers);
        assertEquals(0, partition.leaderEndOffset());
    }

    @Test
    void closeIsIdempotent(DemoBroker broker) {
        broker.close();
        broker.close();
    }
}

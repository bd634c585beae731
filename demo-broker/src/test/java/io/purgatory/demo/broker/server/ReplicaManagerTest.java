package io.purgatory.demo.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.purgatory.demo.broker.Waits;
import io.purgatory.demo.broker.WireClient;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.server.ReplicaManager.PartitionAppend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplicaManager} alone: topics as Kafka names them, appends for each acks mode, and the
 * produce purgatory it owns (a parked produce completes when the replicas catch up, and answers
 * for a deleted topic at once).
 */
class ReplicaManagerTest {
    private final ReplicaManager replicaManager = new ReplicaManager(BrokerConfig.builder().port(0).topic("orders", 1)
            .followers(2).replicaLag(5, 0).build());
    private final List<List<ProduceResult>> answers = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        replicaManager.close();
    }

    @Test
    void topicsAreCreatedOnceAndNamesThatCollideInKafkasMetricsAreRefused() {
        assertEquals(Errors.NONE, replicaManager.topics().createTopic("a.b", 3, (short) 3, Map.of(), false).error().error());
        assertEquals(3, replicaManager.topics().topic("a.b").partitions().size());
        assertEquals(Errors.TOPIC_ALREADY_EXISTS, replicaManager.topics().createTopic("a.b", 1, (short) 3, Map.of(), false).error().error());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, replicaManager.topics().createTopic("a_b", 1, (short) 3, Map.of(), false).error().error());
        assertEquals(4, replicaManager.topics().partitionCount(), "orders-0 and a.b's three");
    }

    @Test
    void acksOneIsAnsweredAtOnceAndParksNothing() {
        assertNull(append((short) 1));
        assertEquals(1, answers.size());
        assertEquals(Errors.NONE, answers.get(0).get(0).error());
        assertEquals(0, replicaManager.producePurgatoryMetrics().delayed());
    }

    @Test
    void acksAllParksUntilTheFollowersHaveTheRecords() {
        DelayedProduce parked = append((short) -1);
        Waits.soon().until(() -> answers.size() == 1);
        assertEquals(Errors.NONE, answers.get(0).get(0).error());
        assertEquals(true, parked.isCompleted());
        assertEquals(3, replicaManager.partition("orders", 0).highWatermark(), "every replica has the three records");
    }

    @Test
    void aParkedProduceForADeletedTopicIsAnsweredAtOnce() {
        replicaManager.followers().stall(1);
        append((short) -1);
        assertEquals(1, replicaManager.producePurgatoryMetrics().delayed());

        replicaManager.topics().deleteTopic("orders");

        Waits.soon().until(() -> answers.size() == 1);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, answers.get(0).get(0).error());
        assertEquals(0, replicaManager.producePurgatoryMetrics().delayed());
    }

    /** Three records to orders-0 with {@code acks}, the answer going to {@link #answers}. */
    private DelayedProduce append(short acks) {
        PartitionAppend append = new PartitionAppend(new ProduceResult.Key("orders", null, 0),
                replicaManager.partition("orders", 0), WireClient.records(3), null);
        return replicaManager.appendRecords(acks, 60_000, List.of(append), answers::add);
    }
}

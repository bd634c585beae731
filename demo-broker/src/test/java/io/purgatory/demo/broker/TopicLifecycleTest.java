package io.purgatory.demo.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.purgatory.demo.broker.WireClient.Answer;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.server.ReplicaManager;
import io.purgatory.demo.broker.server.TopicRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Topics and configs changed while requests are parked on them: a deleted topic answers what
 * waits on it at once through the purgatories, a changed {@code min.insync.replicas} re-checks the
 * parked produces, and {@code DeleteRecords} waits for the low watermark in its own purgatory.
 */
@Tag("integration")
class TopicLifecycleTest {
    private static final short ACKS_ALL = -1;
    private static final int LONG_MS = 60_000;

    @RegisterExtension
    final BrokerExtension fixture = new BrokerExtension();
    private Admin admin;

    @AfterEach
    void close() throws Exception {
        if (admin != null) {
            admin.close(Duration.ZERO);
        }
    }

    /** A broker whose replica 2 is stalled (and stays in the ISR for the test): acks=-1 produces and long polls park. */
    private DemoBroker stalledBroker() throws Exception {
        return broker(BrokerConfig.builder().stallReplica(2).replicaLagTimeMaxMs(600_000));
    }

    private DemoBroker broker(BrokerConfig.Builder config) throws Exception {
        DemoBroker broker = fixture.start(config);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port()));
        return broker;
    }

    private static PartitionProduceResponse produceResult(CompletableFuture<Answer> future) {
        return ((ProduceResponse) DemoBrokerTest.answer(future).response()).data().responses().iterator().next().partitionResponses().get(0);
    }

    private static PartitionData fetchResult(CompletableFuture<Answer> future) {
        return ((FetchResponse) DemoBrokerTest.answer(future).response()).data().responses().get(0).partitions().get(0);
    }

    @Test
    void deletingATopicAnswersEveryProduceAndFetchParkedOnItAtOnceAndANewTopicOfTheNameStartsOver() throws Exception {
        DemoBroker broker = stalledBroker();
        ReplicaManager replicaManager = broker.replicaManager();
        TopicRegistry.Topic old = replicaManager.topics().topic("demo");
        WireClient producer = fixture.connect();
        WireClient consumer = fixture.connect();
        List<CompletableFuture<Answer>> produces = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            produces.add(producer.send(WireClient.produce("demo", i % 3, ACKS_ALL, LONG_MS, 1)));
        }
        List<CompletableFuture<Answer>> fetches = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            FetchRequestData fetch = FetchTest.fetch(LONG_MS, 1, 0, 0, 0);
            if (i % 2 == 1) { // half of them by topic id (v13+), half by name
                fetch.topics().get(0).setTopic("").setTopicId(old.id());
            }
            fetches.add(consumer.send(new FetchRequest(fetch, (short) (i % 2 == 1 ? 17 : 12))));
        }
        Waits.soon().until(() -> replicaManager.producePurgatoryMetrics().delayed() == 1000 && replicaManager.fetchPurgatoryMetrics().delayed() == 100);

        admin.deleteTopics(List.of("demo")).all().get();

        Awaitility.await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(5))
                .until(() -> produces.stream().allMatch(CompletableFuture::isDone) && fetches.stream().allMatch(CompletableFuture::isDone));
        for (CompletableFuture<Answer> produce : produces) {
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), produceResult(produce).errorCode());
        }
        for (CompletableFuture<Answer> fetch : fetches) {
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), fetchResult(fetch).errorCode());
        }
        assertEquals(0, replicaManager.producePurgatoryMetrics().delayed());
        assertEquals(0, replicaManager.fetchPurgatoryMetrics().delayed());
        assertEquals(0, replicaManager.producePurgatoryMetrics().expired(), "none answered at its timeout");
        assertEquals(0, replicaManager.fetchPurgatoryMetrics().expired());
        for (Partition partition : old.partitions()) {
            assertEquals(0, partition.logSizeBytes(), partition + ": its records are released");
        }
        assertEquals(0, replicaManager.topics().partitionCount());

        admin.createTopics(List.of(new NewTopic("demo", 3, (short) 3))).all().get();
        TopicRegistry.Topic again = replicaManager.topics().topic("demo");
        assertNotEquals(old.id(), again.id(), "a new topic id");
        assertEquals(0, again.partition(0).leaderEndOffset(), "a new log, from offset 0");
        assertEquals(0, produceResult(producer.send(WireClient.produce("demo", 0, (short) 1, LONG_MS, 1))).baseOffset());
        FetchRequestData byOldId = FetchTest.fetch(0, 1, 0);
        byOldId.topics().get(0).setTopic("").setTopicId(old.id());
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), fetchResult(consumer.send(new FetchRequest(byOldId, (short) 17))).errorCode(),
                "a client holding the old id hears it is gone");
    }

    @Test
    void deletingATopicTwiceConcurrentlyDeletesItOnce() throws Exception {
        DemoBroker broker = stalledBroker();
        var first = admin.deleteTopics(List.of("demo")).all();
        try (Admin second = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + broker.port()))) {
            var other = second.deleteTopics(List.of("demo")).all();
            List<Throwable> failures = new ArrayList<>();
            for (var result : List.of(first, other)) {
                try {
                    result.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
            assertEquals(1, failures.size(), "one of the two deletes finds the topic gone: " + failures);
            assertEquals(org.apache.kafka.common.errors.UnknownTopicOrPartitionException.class, failures.get(0).getClass());
        }
        assertNull(broker.replicaManager().topics().topic("demo"));
        assertEquals(0, broker.replicaManager().topics().partitionCount());
    }

    @Test
    void raisingMinInsyncReplicasAboveTheReplicasAnswersParkedProducesAtOnce() throws Exception {
        DemoBroker broker = stalledBroker();
        WireClient producer = fixture.connect();
        List<CompletableFuture<Answer>> produces = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            produces.add(producer.send(WireClient.produce("demo", i % 3, ACKS_ALL, LONG_MS, 1)));
        }
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 100);

        setMinInsyncReplicas("4");

        Awaitility.await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(5))
                .until(() -> produces.stream().allMatch(CompletableFuture::isDone));
        for (CompletableFuture<Answer> produce : produces) {
            assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code(), produceResult(produce).errorCode(),
                    "appended, but no ISR of 3 replicas can satisfy 4");
        }
        assertEquals(Errors.NOT_ENOUGH_REPLICAS.code(),
                produceResult(producer.send(WireClient.produce("demo", 0, ACKS_ALL, LONG_MS, 1))).errorCode(),
                "a new acks=-1 produce is refused before it appends");
        assertEquals(0, broker.replicaManager().producePurgatoryMetrics().expired());
    }

    @Test
    void aParkedProduceIsDecidedByTheMinInsyncReplicasInForceWhenItsReplicasHaveIt() throws Exception {
        DemoBroker broker = stalledBroker();
        WireClient producer = fixture.connect();
        setMinInsyncReplicas("3");
        CompletableFuture<Answer> first = producer.send(WireClient.produce("demo", 0, ACKS_ALL, LONG_MS, 1));
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 1);
        setMinInsyncReplicas("2");
        CompletableFuture<Answer> second = producer.send(WireClient.produce("demo", 1, ACKS_ALL, LONG_MS, 1));
        Waits.soon().until(() -> broker.replicaManager().producePurgatoryMetrics().delayed() == 2);
        setMinInsyncReplicas("3");

        // replica 1 has both produces; replica 2 leaves the ISRs of demo-0 and demo-1, whose high watermarks move past them
        for (int partition = 0; partition < 2; partition++) {
            Partition p = broker.replicaManager().partition("demo", partition);
            Waits.soon().until(() -> p.followerEndOffset(1) == p.leaderEndOffset());
            p.maybeShrinkIsr(Long.MAX_VALUE);
            assertEquals(List.of(0, 1), p.isr());
        }
        setMinInsyncReplicas("2"); // the change re-checks them: decided by 2 now, with an ISR of 2

        assertEquals(Errors.NONE.code(), produceResult(first).errorCode());
        assertEquals(Errors.NONE.code(), produceResult(second).errorCode());
    }

    private void setMinInsyncReplicas(String value) throws Exception {
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "demo"),
                List.of(new AlterConfigOp(new ConfigEntry("min.insync.replicas", value), AlterConfigOp.OpType.SET)))).all().get();
    }

    private static DeleteRecordsRequest deleteRecords(int partition, long offset, int timeoutMs) {
        return new DeleteRecordsRequest.Builder(new DeleteRecordsRequestData().setTimeoutMs(timeoutMs).setTopics(List.of(
                new DeleteRecordsTopic().setName("demo").setPartitions(List.of(
                        new DeleteRecordsPartition().setPartitionIndex(partition).setOffset(offset)))))).build();
    }

    private static DeleteRecordsPartitionResult deleteRecordsResult(CompletableFuture<Answer> future) {
        return ((DeleteRecordsResponse) DemoBrokerTest.answer(future).response()).data().topics().iterator().next().partitions().iterator().next();
    }

    @Test
    void deleteRecordsWaitsForEveryInSyncReplicaAndTimesOutWhileOneIsStalled() throws Exception {
        DemoBroker broker = fixture.start(BrokerConfig.builder().replicaLagTimeMaxMs(600_000));
        WireClient client = fixture.connect();
        for (int i = 0; i < 10; i++) {
            assertEquals(Errors.NONE.code(), produceResult(client.send(WireClient.produce("demo", 0, ACKS_ALL, LONG_MS, 1))).errorCode());
        }
        Partition demo0 = broker.replicaManager().partition("demo", 0);

        DeleteRecordsPartitionResult healthy = deleteRecordsResult(client.send(deleteRecords(0, 4, LONG_MS)));
        assertEquals(Errors.NONE.code(), healthy.errorCode());
        assertEquals(4, healthy.lowWatermark(), "both followers moved their log start on their next fetch");

        broker.followers().stall(2);
        CompletableFuture<Answer> stalled = client.send(deleteRecords(0, 7, 300));
        Waits.soon().until(() -> broker.replicaManager().deleteRecordsPurgatoryMetrics().delayed() == 1 || stalled.isDone());
        assertEquals(7, demo0.logStartOffset(), "the leader moved its log start at once");
        DeleteRecordsPartitionResult timedOut = deleteRecordsResult(stalled);
        assertEquals(Errors.REQUEST_TIMED_OUT.code(), timedOut.errorCode());
        assertEquals(4, timedOut.lowWatermark(), "replica 2 still holds offset 4");
        assertEquals(1, broker.replicaManager().deleteRecordsPurgatoryMetrics().expired());

        CompletableFuture<Answer> parked = client.send(deleteRecords(0, 8, LONG_MS));
        Waits.soon().until(() -> broker.replicaManager().deleteRecordsPurgatoryMetrics().delayed() == 1);
        broker.followers().resume(2);
        DeleteRecordsPartitionResult resumed = deleteRecordsResult(parked);
        assertEquals(Errors.NONE.code(), resumed.errorCode());
        assertEquals(8, resumed.lowWatermark());

        FetchRequestData below = FetchTest.fetch(0, 1, 3);
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), fetchResult(client.send(new FetchRequest(below, (short) 12))).errorCode());
        assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), deleteRecordsResult(client.send(deleteRecords(0, 11, LONG_MS))).errorCode(),
                "past the high watermark");
    }

    @Test
    void deletingATopicAnswersAParkedDeleteRecordsAtOnce() throws Exception {
        DemoBroker broker = broker(BrokerConfig.builder().replicaLagTimeMaxMs(600_000));
        WireClient client = fixture.connect();
        assertEquals(Errors.NONE.code(), produceResult(client.send(WireClient.produce("demo", 0, ACKS_ALL, LONG_MS, 5))).errorCode());
        broker.followers().stall(2);
        CompletableFuture<Answer> parked = client.send(deleteRecords(0, 3, LONG_MS));
        Waits.soon().until(() -> broker.replicaManager().deleteRecordsPurgatoryMetrics().delayed() == 1);

        admin.deleteTopics(List.of("demo")).all().get();

        Awaitility.await().atMost(Duration.ofSeconds(1)).until(parked::isDone);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), deleteRecordsResult(parked).errorCode());
        assertEquals(0, broker.replicaManager().deleteRecordsPurgatoryMetrics().delayed());
        assertEquals(0, broker.replicaManager().deleteRecordsPurgatoryMetrics().expired());
    }

    @Test
    void aTopicIdFromBeforeTheDeleteIsUnknown() throws Exception {
        DemoBroker broker = stalledBroker();
        Uuid old = broker.replicaManager().topics().topic("demo").id();
        admin.deleteTopics(org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(old))).all().get();
        assertNull(broker.replicaManager().topics().topic("demo"));
        var again = admin.deleteTopics(org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(old))).all();
        java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, again::get);
        assertEquals(org.apache.kafka.common.errors.UnknownTopicIdException.class, failed.getCause().getClass());
    }
}

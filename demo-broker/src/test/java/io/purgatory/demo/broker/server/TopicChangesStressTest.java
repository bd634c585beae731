package io.purgatory.demo.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.WireClient;
import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.DynamicSetting;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Creates, deletes, partition additions and config changes on the same few topic names from many
 * threads at once, with produces and delete-records parking on them, straight on the
 * {@link ReplicaManager}: afterwards the maps agree with each other and with the partition count,
 * every produce and delete-records was answered exactly once and none at its timeout, nothing is
 * parked, and a deleted name can be created again.
 */
@Tag("stress")
class TopicChangesStressTest {
    private static final int THREADS = 8;
    private static final int ROUNDS = 2_000;
    private static final List<String> NAMES = List.of("a", "b", "c");

    @Test
    void concurrentTopicChangesKeepTheMapsConsistentAndAnswerEveryParkedRequestOnce() throws Exception {
        BrokerConfig config = BrokerConfig.builder().port(0).stallReplica(2).replicaLagTimeMaxMs(600_000).maxPartitions(200).build();
        try (ReplicaManager replicaManager = new ReplicaManager(config)) {
            CyclicBarrier start = new CyclicBarrier(THREADS);
            AtomicInteger sent = new AtomicInteger();
            AtomicInteger answered = new AtomicInteger();
            Set<Object> answeredTwice = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(CompletableFuture.runAsync(() -> {
                    await(start);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int round = 0; round < ROUNDS; round++) {
                        String name = NAMES.get(random.nextInt(NAMES.size()));
                        switch (random.nextInt(6)) {
                            case 0 -> replicaManager.topics().createTopic(name, 1 + random.nextInt(4), (short) 3, Map.of(), false);
                            case 1 -> replicaManager.topics().deleteTopic(name);
                            case 2 -> replicaManager.topics().createPartitions(name, 1 + random.nextInt(8), false);
                            case 3 -> replicaManager.topics().alterTopicConfigs(name,
                                    Map.of(DynamicSetting.MIN_INSYNC_REPLICAS, String.valueOf(1 + random.nextInt(4))), false);
                            case 4 -> {
                                TopicRegistry.Topic topic = replicaManager.topics().topic(name);
                                Partition partition = topic == null ? null : topic.partition(0);
                                if (partition != null) {
                                    sent.incrementAndGet();
                                    Object once = new Object();
                                    replicaManager.appendRecords((short) -1, 60_000, List.of(ReplicaManager.PartitionAppend.of(
                                            new ProduceResult.Key(name, topic.id(), 0), partition, WireClient.records(1))), results -> {
                                                answered.incrementAndGet();
                                                if (!answeredTwice.add(once)) {
                                                    throw new AssertionError("answered twice");
                                                }
                                            });
                                }
                            }
                            default -> {
                                TopicRegistry.Topic topic = replicaManager.topics().topic(name);
                                Partition partition = topic == null ? null : topic.partition(0);
                                sent.incrementAndGet();
                                replicaManager.deleteRecords(60_000, List.of(new DelayedDeleteRecords.Request(name, 0, partition,
                                        Partition.HIGH_WATERMARK)), results -> answered.incrementAndGet());
                            }
                        }
                    }
                }));
            }
            CompletableFuture.allOf(workers.toArray(new CompletableFuture[0])).get();
            for (String name : NAMES) {
                replicaManager.topics().deleteTopic(name);
            }

            assertEquals(sent.get(), answered.get(), "every parked request answered, once, by the deletes at the latest");
            assertEquals(0, replicaManager.producePurgatoryMetrics().delayed());
            assertEquals(0, replicaManager.parkedDeleteRecords());
            assertEquals(0, replicaManager.producePurgatoryMetrics().expired());
            assertEquals(List.of("demo"), replicaManager.topics().all().stream().map(TopicRegistry.Topic::name).toList());
            assertEquals(3, replicaManager.topics().partitionCount());
            Set<TopicPartition> partitions = new HashSet<>();
            replicaManager.topics().all().forEach(topic -> topic.partitions().forEach(p -> partitions.add(p.topicPartition())));
            assertEquals(Set.of(new TopicPartition("demo", 0), new TopicPartition("demo", 1), new TopicPartition("demo", 2)), partitions);
            TopicRegistry.Topic demo = replicaManager.topics().topic("demo");
            assertEquals(demo, replicaManager.topics().topic(demo.id()));
            assertTrue(replicaManager.topics().createTopic("a", 2, (short) 3, Map.of(), false).error().isSuccess(), "a deleted name can be used again");
            assertEquals(Errors.NONE, replicaManager.topics().topic("a").partition(1).append(WireClient.records(1)).error());
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

package io.purgatory.demo.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.purgatory.demo.broker.cluster.Partition;
import io.purgatory.demo.broker.config.BrokerConfig;
import io.purgatory.demo.broker.config.DynamicSetting;
import io.purgatory.demo.broker.replication.SimulatedFollowers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TopicRegistry} alone: what it tells the parked requests ({@link TopicRegistry.ParkedRequests})
 * when a topic is deleted or its configs change, and the partition limit. No purgatory: a recording
 * stand-in hears the calls.
 */
class TopicRegistryTest {
    private final BrokerConfig config = BrokerConfig.builder().port(0).topic("a", 2).topic("b", 1).maxPartitions(5).build();
    private final SimulatedFollowers followers = new SimulatedFollowers(config, List.of(), new SimulatedFollowers.Listener() {
        @Override
        public void highWatermarkMoved(Partition partition, long highWatermark) {
        }

        @Override
        public void isrChanged(Partition partition) {
        }

        @Override
        public void lowWatermarkMoved(Partition partition, long lowWatermark) {
        }
    });
    private final List<String> changed = new ArrayList<>();
    private final List<String> deleted = new ArrayList<>();
    private final TopicRegistry topics = new TopicRegistry(config, followers, new TopicRegistry.ParkedRequests() {
        @Override
        public void partitionChanged(Partition partition) {
            changed.add(partition.topicPartition().toString());
        }

        @Override
        public void partitionDeleted(Partition partition) {
            assertTrue(partition.isDeleted(), "marked deleted before the parked requests hear of it");
            deleted.add(partition.topicPartition().toString());
        }
    });

    @AfterEach
    void close() {
        followers.close();
    }

    @Test
    void deletingATopicTellsTheParkedRequestsOfEachOfItsPartitionsAndNoOther() {
        TopicRegistry.Topic a = topics.topic("a");

        assertEquals(a, topics.deleteTopic(a.id()));

        assertEquals(List.of("a-0", "a-1"), deleted);
        assertEquals(List.of(), changed);
        assertNull(topics.topic("a"));
        assertNull(topics.topic(a.id()));
        assertEquals(1, topics.partitionCount());
        assertNull(topics.deleteTopic("a"), "gone already");
    }

    @Test
    void aTopicsConfigChangeReChecksItsPartitionsOnlyAndValidatingChangesNothing() {
        Map<DynamicSetting, String> minIsr = Map.of(DynamicSetting.MIN_INSYNC_REPLICAS, "1");

        assertEquals(Errors.NONE, topics.alterTopicConfigs("a", minIsr, true).error());
        assertEquals(List.of(), changed, "validate only");
        assertEquals(Map.of(), topics.topic("a").configs());

        assertEquals(Errors.NONE, topics.alterTopicConfigs("a", minIsr, false).error());
        assertEquals(List.of("a-0", "a-1"), changed);
        assertEquals(minIsr, topics.topic("a").configs());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, topics.alterTopicConfigs("nope", minIsr, false).error());
    }

    @Test
    void aBrokerConfigChangeReChecksEveryTopicsPartitions() {
        topics.alterBrokerConfigs(DynamicConfigs.DEFAULT_BROKER, Map.of(DynamicSetting.MIN_INSYNC_REPLICAS, "1"));

        assertEquals(List.of("a-0", "a-1", "b-0"), changed);
    }

    @Test
    void partitionsPastTheBrokersLimitAreRefusedAndNothingIsAdded() {
        assertEquals(Errors.POLICY_VIOLATION, topics.createPartitions("a", 5, false).error());
        assertEquals(2, topics.topic("a").partitions().size());
        assertEquals(Errors.NONE, topics.createPartitions("a", 4, false).error());
        assertEquals(4, topics.topic("a").partitions().size());
        assertEquals(5, topics.partitionCount());
        assertEquals(Errors.POLICY_VIOLATION, topics.createTopic("c", 1, (short) 1, Map.of(), false).error().error());
    }
}

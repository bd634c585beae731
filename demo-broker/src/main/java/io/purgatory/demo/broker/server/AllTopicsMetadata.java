package io.purgatory.demo.broker.server;

import io.purgatory.demo.broker.cluster.Partition;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopicCollection;

/**
 * The topics of a Metadata answer for all topics, built once and shared until what it shows changes
 * (a topic created or deleted, partitions added, an ISR changed: {@link TopicRegistry#metadataVersion()}).
 * A client asking for all topics in a loop, cheap to send and, with thousands of partitions,
 * milliseconds of a handler's time to answer, then costs the serialization alone.
 *
 * <p>The shared collection is never changed after it is built: each answer puts it in a response of
 * its own (which the network layer may still change, e.g. its {@code throttle_time_ms}), and
 * kafka-clients only reads it to count error codes and to serialize it.
 *
 * <p>Thread-safe: the cached pair of version and topics is immutable and published through a
 * volatile field; two threads that find it stale may both build it, and either result is current.
 */
final class AllTopicsMetadata {
    private final TopicRegistry topics;
    private volatile Built built;

    private record Built(long version, MetadataResponseTopicCollection topics) {
    }

    AllTopicsMetadata(TopicRegistry topics) {
        this.topics = topics;
    }

    /** Every topic, described; not to be changed (it may be shared with other answers). */
    MetadataResponseTopicCollection describeAll() {
        long version = topics.metadataVersion(); // read before building: a change after it moves it again
        Built cached = built;
        if (cached != null && cached.version() == version) {
            return cached.topics();
        }
        MetadataResponseTopicCollection all = new MetadataResponseTopicCollection();
        topics.all().forEach(topic -> all.add(describe(topic)));
        built = new Built(version, all);
        return all;
    }

    /** One topic as Metadata describes it: this broker leads every partition. */
    static MetadataResponseTopic describe(TopicRegistry.Topic topic) {
        List<MetadataResponsePartition> partitions = new ArrayList<>();
        for (Partition partition : topic.partitions()) {
            partitions.add(new MetadataResponsePartition()
                    .setPartitionIndex(partition.topicPartition().partition())
                    .setLeaderId(Partition.LEADER_ID)
                    .setLeaderEpoch(0)
                    .setReplicaNodes(partition.replicas())
                    .setIsrNodes(partition.isr()));
        }
        return new MetadataResponseTopic().setName(topic.name()).setTopicId(topic.id()).setPartitions(partitions);
    }
}

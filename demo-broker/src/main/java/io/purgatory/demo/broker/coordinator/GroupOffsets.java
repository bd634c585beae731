package io.purgatory.demo.broker.coordinator;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * One group's committed offsets, by topic then partition (at most one per partition), kept apart
 * from the group's state machine: the {@link OffsetStore} owns what spans groups (which groups hold a
 * topic's offsets, retention). Tells {@code topicIndex} when the group starts and stops holding
 * offsets of a topic ({@code true}: added, {@code false}: removed), so that deleting a topic visits
 * only the groups that hold some of its offsets.
 *
 * <p>Not thread-safe: every field is guarded by its group's monitor, which the coordinator holds
 * around every call, as for the rest of {@link GroupMetadata}. No {@code @GuardedBy}: Error Prone
 * cannot name a lock that the caller holds on another object.
 */
final class GroupOffsets {
    private final Map<String, Map<Integer, CommittedOffset>> byTopic = new LinkedHashMap<>();
    private final BiConsumer<String, Boolean> topicIndex;
    private int size;

    GroupOffsets(BiConsumer<String, Boolean> topicIndex) {
        this.topicIndex = topicIndex;
    }

    CommittedOffset get(TopicPartition partition) {
        Map<Integer, CommittedOffset> partitions = byTopic.get(partition.topic());
        return partitions == null ? null : partitions.get(partition.partition());
    }

    /** Records a commit, replacing the partition's previous one. */
    void put(TopicPartition partition, CommittedOffset offset) {
        Map<Integer, CommittedOffset> partitions = byTopic.computeIfAbsent(partition.topic(), topic -> {
            topicIndex.accept(topic, true);
            return new HashMap<>();
        });
        if (partitions.put(partition.partition(), offset) == null) {
            size++;
        }
    }

    void remove(TopicPartition partition) {
        Map<Integer, CommittedOffset> partitions = byTopic.get(partition.topic());
        if (partitions != null && partitions.remove(partition.partition()) != null) {
            size--;
            if (partitions.isEmpty()) {
                byTopic.remove(partition.topic());
                topicIndex.accept(partition.topic(), false);
            }
        }
    }

    /** Drops every offset of {@code topic}; how many there were. */
    int removeTopic(String topic) {
        Map<Integer, CommittedOffset> partitions = byTopic.remove(topic);
        if (partitions == null) {
            return 0;
        }
        size -= partitions.size();
        topicIndex.accept(topic, false);
        return partitions.size();
    }

    /** Drops every offset committed before {@code cutoffMs}, or every offset when {@code all}; how many went. */
    int expire(long cutoffMs, boolean all) {
        int expired = 0;
        for (String topic : Set.copyOf(byTopic.keySet())) {
            Map<Integer, CommittedOffset> partitions = byTopic.get(topic);
            int before = partitions.size();
            partitions.values().removeIf(offset -> all || offset.commitTimestampMs() < cutoffMs);
            expired += before - partitions.size();
            if (partitions.isEmpty()) {
                byTopic.remove(topic);
                topicIndex.accept(topic, false);
            }
        }
        size -= expired;
        return expired;
    }

    /** Drops everything (the group goes). */
    void clear() {
        expire(0, true);
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** A copy, topic by topic in the order they were first committed. */
    Map<TopicPartition, CommittedOffset> snapshot() {
        Map<TopicPartition, CommittedOffset> copy = new LinkedHashMap<>();
        byTopic.forEach((topic, partitions) -> partitions.forEach((p, offset) -> copy.put(new TopicPartition(topic, p), offset)));
        return copy;
    }
}

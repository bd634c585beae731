package io.purgatory.demo.broker.coordinator;

import io.purgatory.demo.broker.metrics.MemoryBudget;
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
 * <p>Memory: each offset held counts {@link #heldBytes(CommittedOffset)} in the broker's
 * {@link MemoryBudget} ({@link MemoryBudget.Kind#OFFSETS}); a commit is charged what it adds (a
 * commit replacing an offset with metadata no longer than the old one's adds nothing) and refused
 * when the budget has no room for it; each offset removed gives its bytes back. Invariant: the
 * budget holds {@code heldBytes} for this group, the sum over the offsets held.
 *
 * <p>Not thread-safe: every field is guarded by its group's monitor, which the coordinator holds
 * around every call, as for the rest of {@link GroupMetadata}. No {@code @GuardedBy}: Error Prone
 * cannot name a lock that the caller holds on another object.
 */
final class GroupOffsets {
    private final Map<String, Map<Integer, CommittedOffset>> byTopic = new LinkedHashMap<>();
    /** Heap an offset takes beyond its metadata's characters: the record, its boxed partition and its map entry, rounded up. */
    static final int OFFSET_OVERHEAD_BYTES = 128;

    private final BiConsumer<String, Boolean> topicIndex;
    private final MemoryBudget budget;
    private int size;
    private long heldBytes;

    GroupOffsets(BiConsumer<String, Boolean> topicIndex, MemoryBudget budget) {
        this.topicIndex = topicIndex;
        this.budget = budget;
    }

    /** What one offset counts in the budget: two bytes per metadata character (a string's most) and the objects around it. */
    static long heldBytes(CommittedOffset offset) {
        return OFFSET_OVERHEAD_BYTES + 2L * (offset.metadata() == null ? 0 : offset.metadata().length());
    }

    CommittedOffset get(TopicPartition partition) {
        Map<Integer, CommittedOffset> partitions = byTopic.get(partition.topic());
        return partitions == null ? null : partitions.get(partition.partition());
    }

    /**
     * Records a commit, replacing the partition's previous one, if the memory budget has room for
     * what it adds.
     *
     * @return false, recording nothing, when the budget refused it
     */
    boolean put(TopicPartition partition, CommittedOffset offset) {
        CommittedOffset previous = get(partition);
        long added = heldBytes(offset) - (previous == null ? 0 : heldBytes(previous));
        if (added > 0 && !budget.tryCharge(MemoryBudget.Kind.OFFSETS, added)) {
            return false;
        }
        if (added < 0) {
            budget.release(MemoryBudget.Kind.OFFSETS, -added);
        }
        heldBytes += added;
        Map<Integer, CommittedOffset> partitions = byTopic.computeIfAbsent(partition.topic(), topic -> {
            topicIndex.accept(topic, true);
            return new HashMap<>();
        });
        if (partitions.put(partition.partition(), offset) == null) {
            size++;
        }
        return true;
    }

    void remove(TopicPartition partition) {
        Map<Integer, CommittedOffset> partitions = byTopic.get(partition.topic());
        CommittedOffset removed = partitions == null ? null : partitions.remove(partition.partition());
        if (removed != null) {
            released(removed);
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
        partitions.values().forEach(this::released);
        topicIndex.accept(topic, false);
        return partitions.size();
    }

    /** Gives an offset's bytes back to the budget: it is no longer held. */
    private void released(CommittedOffset offset) {
        long bytes = heldBytes(offset);
        heldBytes -= bytes;
        budget.release(MemoryBudget.Kind.OFFSETS, bytes);
    }

    /** Drops every offset committed before {@code cutoffMs}, or every offset when {@code all}; how many went. */
    int expire(long cutoffMs, boolean all) {
        int expired = 0;
        for (String topic : Set.copyOf(byTopic.keySet())) {
            Map<Integer, CommittedOffset> partitions = byTopic.get(topic);
            int before = partitions.size();
            partitions.values().removeIf(offset -> {
                boolean gone = all || offset.commitTimestampMs() < cutoffMs;
                if (gone) {
                    released(offset);
                }
                return gone;
            });
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

    /** What the offsets held count in the memory budget. */
    long heldBytes() {
        return heldBytes;
    }

    /** A copy, topic by topic in the order they were first committed. */
    Map<TopicPartition, CommittedOffset> snapshot() {
        Map<TopicPartition, CommittedOffset> copy = new LinkedHashMap<>();
        byTopic.forEach((topic, partitions) -> partitions.forEach((p, offset) -> copy.put(new TopicPartition(topic, p), offset)));
        return copy;
    }
}

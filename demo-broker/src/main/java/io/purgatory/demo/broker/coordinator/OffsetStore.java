package io.purgatory.demo.broker.coordinator;

import io.purgatory.demo.broker.metrics.MemoryBudget;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The committed offsets of every group, as Kafka's group metadata manager keeps them: each group's
 * in its {@link GroupOffsets}, which groups hold offsets of each topic (so that a deleted topic's
 * offsets go at the delete, visiting only those groups), and the retention rule of
 * {@code offsets.retention.minutes}: an empty group that had members (it has a protocol type) loses
 * all its offsets once it has been empty for the retention period, counted from when it became
 * empty; a group that never had members (offsets committed with generation -1) loses each offset
 * the retention period after its commit. A group with members keeps its offsets.
 *
 * <p>Thread-safe: the topic index is a {@link ConcurrentHashMap} of concurrent sets; each group's
 * offsets are guarded by the group's monitor, which callers of {@link #expire} hold (no
 * {@code @GuardedBy}: Error Prone cannot name a lock the caller holds on a parameter).
 */
final class OffsetStore {
    private final long retentionMs;
    private final MemoryBudget budget;
    private final ConcurrentHashMap<String, Set<String>> groupsByTopic = new ConcurrentHashMap<>();

    /** @param budget where the offsets' memory is counted */
    OffsetStore(long retentionMs, MemoryBudget budget) {
        this.retentionMs = retentionMs;
        this.budget = budget;
    }

    /** The offsets of a new group, registered in the topic index as they come and go. */
    GroupOffsets newGroup(String groupId) {
        return new GroupOffsets((topic, added) -> {
            if (added) {
                groupsByTopic.computeIfAbsent(topic, t -> ConcurrentHashMap.newKeySet()).add(groupId);
            } else {
                groupsByTopic.computeIfPresent(topic, (t, groups) -> groups.remove(groupId) && groups.isEmpty() ? null : groups);
            }
        }, budget);
    }

    /** The ids of the groups that hold offsets of {@code topic}, as now. */
    List<String> groupsHolding(String topic) {
        Set<String> groups = groupsByTopic.get(topic);
        return groups == null ? List.of() : List.copyOf(groups);
    }

    /** Drops the offsets of {@code group} whose retention has passed at {@code nowMs}; how many. Under the group's monitor. */
    int expire(GroupMetadata group, long nowMs) {
        if (!group.is(GroupState.EMPTY) || group.offsets().isEmpty()) {
            return 0;
        }
        if (group.protocolType() != null) {
            return nowMs - group.stateSinceMs() >= retentionMs ? group.offsets().expire(0, true) : 0;
        }
        return group.offsets().expire(nowMs - retentionMs + 1, false);
    }
}

package io.purgatory.demo.broker.coordinator;

/**
 * The group coordinator's settings, Kafka's names in brackets. Immutable.
 *
 * @param minSessionTimeoutMs a JoinGroup with a shorter session timeout gets {@code INVALID_SESSION_TIMEOUT}
 *     ({@code group.min.session.timeout.ms})
 * @param maxSessionTimeoutMs a JoinGroup with a longer session timeout gets {@code INVALID_SESSION_TIMEOUT}
 *     ({@code group.max.session.timeout.ms})
 * @param initialRebalanceDelayMs how long the first rebalance of an empty group waits for more members,
 *     extended by each new member up to the rebalance timeout ({@code group.initial.rebalance.delay.ms})
 * @param maxSize members a group may have, pending ones (told {@code MEMBER_ID_REQUIRED}) included; past it
 *     {@code GROUP_MAX_SIZE_REACHED} ({@code group.max.size}, which in Kafka does not count pending members)
 * @param maxGroups groups the coordinator holds; past it a request that would create one gets
 *     {@code COORDINATOR_NOT_AVAILABLE} (Kafka has no such cap)
 * @param newMemberJoinTimeoutMs a new member whose first JoinGroup is still parked after this long is removed
 *     ({@code group.classic.new.member.join.timeout.ms} internally in Kafka: 5 minutes)
 * @param maxOffsetMetadataBytes an offset commit's metadata string may have this many characters; past it
 *     {@code OFFSET_METADATA_TOO_LARGE} ({@code offset.metadata.max.bytes})
 */
public record GroupCoordinatorConfig(
        int minSessionTimeoutMs,
        int maxSessionTimeoutMs,
        int initialRebalanceDelayMs,
        int maxSize,
        int maxGroups,
        int newMemberJoinTimeoutMs,
        int maxOffsetMetadataBytes) {

    /** Kafka's defaults, with a group size of 1,000 and 10,000 groups at most. */
    public static final GroupCoordinatorConfig DEFAULTS = new GroupCoordinatorConfig(6_000, 1_800_000, 3_000, 1_000, 10_000, 300_000, 4_096);

    public GroupCoordinatorConfig {
        require(minSessionTimeoutMs > 0 && minSessionTimeoutMs <= maxSessionTimeoutMs,
                "group.min.session.timeout.ms must be > 0 and <= group.max.session.timeout.ms");
        require(initialRebalanceDelayMs >= 0, "group.initial.rebalance.delay.ms must be >= 0");
        require(maxSize >= 1, "group.max.size must be >= 1");
        require(maxGroups >= 1, "the group cap must be >= 1");
        require(newMemberJoinTimeoutMs > 0, "the new member join timeout must be > 0");
        require(maxOffsetMetadataBytes >= 0, "offset.metadata.max.bytes must be >= 0");
    }

    /** A copy with another initial rebalance delay. */
    public GroupCoordinatorConfig withInitialRebalanceDelayMs(int delayMs) {
        return new GroupCoordinatorConfig(minSessionTimeoutMs, maxSessionTimeoutMs, delayMs, maxSize, maxGroups, newMemberJoinTimeoutMs,
                maxOffsetMetadataBytes);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}

package io.purgatory.demo.broker.coordinator;

/**
 * The watch keys of the coordinator's delayed operations, as Kafka's {@code GroupJoinKey},
 * {@code GroupSyncKey} and {@code MemberKey}: value objects, so that a key built again finds the
 * operations watching it. Immutable.
 */
final class GroupKeys {
    private GroupKeys() {
    }

    /** The rebalance purgatory's key for a group's DelayedJoin or InitialDelayedJoin. */
    record Join(String groupId) {
    }

    /** The rebalance purgatory's key for a group's DelayedSync. */
    record Sync(String groupId) {
    }

    /** The heartbeat purgatory's key for one member's DelayedHeartbeat. */
    record Member(String groupId, String memberId) {
    }
}

package io.purgatory.demo.broker.coordinator;

import java.util.Locale;

/**
 * The states of a classic group and the transitions between them, as in Kafka's
 * {@code ClassicGroupState}:
 * <pre>
 *   Empty ──join──▶ PreparingRebalance ──all joined / rebalance timeout──▶ CompletingRebalance
 *     ▲                 ▲        │                                                │
 *     └──no members─────┼────────┘                                 leader's SyncGroup
 *                       └──member joins, leaves or expires──── Stable ◀──────────┘
 *   any state ──group deleted──▶ Dead
 * </pre>
 * Immutable.
 */
public enum GroupState {
    /** No members; the group may still hold committed offsets. */
    EMPTY("Empty"),
    /** A rebalance started: waiting (a {@code DelayedJoin}) for every known member to rejoin. */
    PREPARING_REBALANCE("PreparingRebalance"),
    /** Every member has its JoinGroup answer: waiting for the leader's SyncGroup with the assignment. */
    COMPLETING_REBALANCE("CompletingRebalance"),
    /** The assignment is out; members heartbeat. */
    STABLE("Stable"),
    /** Removed: a thread that still holds the group object must look it up again. */
    DEAD("Dead");

    private final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** Whether a group may move from {@code from} to this state. */
    boolean canFollow(GroupState from) {
        return switch (this) {
            case EMPTY -> from == PREPARING_REBALANCE;
            case PREPARING_REBALANCE -> from == STABLE || from == COMPLETING_REBALANCE || from == EMPTY;
            case COMPLETING_REBALANCE -> from == PREPARING_REBALANCE;
            case STABLE -> from == COMPLETING_REBALANCE;
            case DEAD -> true;
        };
    }

    /** The name Kafka's responses and tools use ("PreparingRebalance"). */
    public String kafkaName() {
        return kafkaName;
    }

    /**
     * The state a ListGroups filter names, compared as Kafka does (case-insensitively), or null.
     */
    public static GroupState parse(String name) {
        for (GroupState state : values()) {
            if (state.kafkaName.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                return state;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return kafkaName;
    }
}

package io.purgatory.demo.broker.coordinator;

import io.purgatory.DelayedOperation;

/**
 * The sync phase's deadline, as Kafka's {@code DelayedSync}: parked in the {@code rebalance}
 * purgatory under {@link GroupKeys.Sync} when a generation starts, it completes (harmlessly) once
 * every member has sent its SyncGroup or the generation is over, and expires at the rebalance
 * timeout otherwise: the members that never sent SyncGroup are removed and a new rebalance starts.
 *
 * <p>Thread-safe: immutable; {@link #tryComplete} and the expiry take the group's monitor.
 */
final class DelayedSync extends DelayedOperation {
    private final GroupCoordinator coordinator;
    private final GroupMetadata group;
    private final int generationId;

    DelayedSync(GroupCoordinator coordinator, GroupMetadata group, int generationId, long rebalanceTimeoutMs) {
        super(rebalanceTimeoutMs);
        this.coordinator = coordinator;
        this.group = group;
        this.generationId = generationId;
    }

    @Override
    public boolean tryComplete() {
        return coordinator.syncSettled(group, generationId) && forceComplete();
    }

    @Override
    public void onComplete() {
        // nothing to answer: the SyncGroup responses went out with the assignment
    }

    @Override
    public void onExpiration() {
        coordinator.expirePendingSync(group, generationId);
    }
}

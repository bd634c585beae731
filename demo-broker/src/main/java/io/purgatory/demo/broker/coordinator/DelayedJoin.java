package io.purgatory.demo.broker.coordinator;

import io.purgatory.DelayedOperation;

/**
 * A rebalance's join phase, as Kafka's {@code DelayedJoin}: parked in the {@code rebalance}
 * purgatory under {@link GroupKeys.Join}, it completes when every known member has rejoined (each
 * JoinGroup calls {@code checkAndComplete}) or expires at the group's rebalance timeout; either way
 * the coordinator then completes the join phase, removing the dynamic members that did not rejoin.
 *
 * <p>Thread-safe through the purgatory's contract: {@link #tryComplete} and {@link #onComplete} run
 * under the operation's lock and take the group's monitor inside it.
 */
final class DelayedJoin extends DelayedOperation {
    private final GroupCoordinator coordinator;
    private final GroupMetadata group;

    DelayedJoin(GroupCoordinator coordinator, GroupMetadata group, long rebalanceTimeoutMs) {
        super(rebalanceTimeoutMs);
        this.coordinator = coordinator;
        this.group = group;
    }

    @Override
    public boolean tryComplete() {
        return coordinator.canCompleteJoin(group) && forceComplete();
    }

    @Override
    public void onComplete() {
        coordinator.completeJoin(group);
    }

    @Override
    public void onExpiration() {
        // onComplete removed the members that did not rejoin; the purgatory counts the expiry
    }
}

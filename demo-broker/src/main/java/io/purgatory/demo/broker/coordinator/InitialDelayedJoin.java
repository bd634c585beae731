package io.purgatory.demo.broker.coordinator;

import io.purgatory.DelayedOperation;

/**
 * The first rebalance of an empty group, as Kafka's {@code InitialDelayedJoin}: it never completes
 * early, so that consumers starting together land in one generation; it expires after
 * {@code group.initial.rebalance.delay.ms}, and if members joined meanwhile the coordinator parks
 * another one (at most the delay again, within what is left of the rebalance timeout), otherwise it
 * completes the join phase.
 *
 * <p>Thread-safe: immutable; {@link #onComplete} takes the group's monitor under the operation's lock.
 */
final class InitialDelayedJoin extends DelayedOperation {
    private final GroupCoordinator coordinator;
    private final GroupMetadata group;
    private final int delayMs;
    private final int remainingMs;

    InitialDelayedJoin(GroupCoordinator coordinator, GroupMetadata group, int delayMs, int remainingMs) {
        super(delayMs);
        this.coordinator = coordinator;
        this.group = group;
        this.delayMs = delayMs;
        this.remainingMs = remainingMs;
    }

    @Override
    public boolean tryComplete() {
        return false;
    }

    @Override
    public void onComplete() {
        coordinator.completeInitialJoin(group, delayMs, remainingMs);
    }

    @Override
    public void onExpiration() {
        // the expiry is the normal end of the delay: onComplete decided what comes next
    }
}

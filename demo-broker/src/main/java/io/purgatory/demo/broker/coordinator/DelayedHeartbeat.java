package io.purgatory.demo.broker.coordinator;

import io.purgatory.DelayedOperation;

/**
 * One member's session, as Kafka's {@code DelayedHeartbeat}: parked in the {@code heartbeat}
 * purgatory under {@link GroupKeys.Member}, it expires after the session timeout unless a newer
 * one replaces it first. Each heartbeat (and join or sync) parks a new one and completes this one
 * ({@code checkAndComplete} finds it superseded), one purgatory operation per heartbeat as in
 * Kafka. On expiry the coordinator removes the member, unless it is waiting for a JoinGroup or
 * SyncGroup answer, and starts a rebalance. A pending member (told {@code MEMBER_ID_REQUIRED})
 * has one too, so that one that never comes back leaves after its session timeout.
 *
 * <p>Thread-safe: immutable; {@link #tryComplete} and the expiry take the group's monitor.
 */
final class DelayedHeartbeat extends DelayedOperation {
    private final GroupCoordinator coordinator;
    private final GroupMetadata group;
    private final String memberId;
    private final boolean pending;

    DelayedHeartbeat(GroupCoordinator coordinator, GroupMetadata group, String memberId, boolean pending, long timeoutMs) {
        super(timeoutMs);
        this.coordinator = coordinator;
        this.group = group;
        this.memberId = memberId;
        this.pending = pending;
    }

    String memberId() {
        return memberId;
    }

    boolean isPending() {
        return pending;
    }

    @Override
    public boolean tryComplete() {
        return coordinator.heartbeatSuperseded(group, this) && forceComplete();
    }

    @Override
    public void onComplete() {
        // a newer heartbeat took over, or the member left: nothing to do
    }

    @Override
    public void onExpiration() {
        coordinator.expireHeartbeat(group, this);
    }
}

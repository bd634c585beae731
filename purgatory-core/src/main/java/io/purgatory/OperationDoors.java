package io.purgatory;

import io.purgatory.internal.NodeOwner;
import io.purgatory.internal.OperationState;
import io.purgatory.internal.OperationStates;
import io.purgatory.internal.Secrets;
import io.purgatory.internal.StateControl;
import io.purgatory.internal.TimerNode;
import io.purgatory.timer.Timer;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The operation state's doors in the internal package, registered in {@link Secrets} when
 * {@link DelayedOperationPurgatory} is loaded: the owner the timer runs an operation's expiry
 * through (so the operation has no method a subclass could call to run it), and the machinery
 * purgatory-kafka's bridge builds Kafka's classes on (so that it needs no class in this package).
 * An operation's expiry is added to a timer only by a purgatory, or through these doors, so the
 * timer never meets an operation before they are registered; the bridge makes sure the purgatory
 * class is loaded before it takes them.
 *
 * <p>Thread-safe: stateless; each call is the operation state's.
 */
final class OperationDoors implements NodeOwner<TimerNode, Timer>, StateControl<OperationState, DelayedOperationPurgatory<?>, Timer> {

    private OperationDoors() {
    }

    /** Registers the doors; once, from {@link DelayedOperationPurgatory}'s static initializer. */
    static void register() {
        OperationDoors doors = new OperationDoors();
        Secrets.registerNodeOwner(doors);
        Secrets.registerStateControl(doors);
    }

    // --- the timer's calls for an operation's expiry ---

    @Override
    public boolean owns(TimerNode node) {
        return node instanceof OperationState;
    }

    @Override
    public void runDue(TimerNode node) {
        Operations.expiryDue((OperationState) node);
    }

    @Override
    public @Nullable Timer timerOf(TimerNode node) {
        return Operations.expiryTimer((OperationState) node);
    }

    // --- the bridge's ---

    @Override
    public void lock(OperationState state) {
        OperationStates.lock(state);
    }

    @Override
    public boolean tryLock(OperationState state) {
        return OperationStates.tryLock(state);
    }

    @Override
    public boolean lockInterruptibly(OperationState state, long timeoutNanos) throws InterruptedException {
        return OperationStates.lockInterruptibly(state, timeoutNanos);
    }

    @Override
    public void unlock(OperationState state) {
        OperationStates.unlock(state);
    }

    @Override
    public int holdCount(OperationState state) {
        return OperationStates.holdCount(state);
    }

    @Override
    public boolean isLocked(OperationState state) {
        return OperationStates.isLocked(state);
    }

    @Override
    public boolean complete(OperationState state, boolean expired) {
        return Operations.complete(state, expired ? Completion.EXPIRED : Completion.COMPLETED, null);
    }

    @Override
    public boolean retryIfPending(OperationState state) {
        return Operations.retryIfPending(state);
    }

    @Override
    public @Nullable Object completion(OperationState state) {
        return Operations.completedAs(state);
    }

    @Override
    public boolean nodeUnused(OperationState state) {
        return Operations.deadlineMs(state) == Long.MAX_VALUE && !Operations.isExpiryCancelled(state);
    }

    @Override
    public void schedule(OperationState state, Timer timer, long delayMs) {
        Operations.scheduleExpiry(state, timer, delayMs);
    }

    @Override
    public boolean cancelNode(OperationState state) {
        return Operations.cancelExpiry(state);
    }

    @Override
    public DelayedOperationPurgatory<?> purgatory(String name, Timer timer, int purgeInterval, boolean reaperEnabled) {
        return DelayedOperationPurgatory.ofStates(name, timer, purgeInterval, reaperEnabled);
    }

    @Override
    public boolean offer(DelayedOperationPurgatory<?> purgatory, OperationState state, Collection<?> keys) {
        return purgatory.offerState(state, keys);
    }

    @Override
    public List<OperationState> withdraw(DelayedOperationPurgatory<?> purgatory, Object key) {
        return purgatory.withdrawForKey(key);
    }
}

package io.purgatory;

import io.purgatory.internal.NodeOwner;
import io.purgatory.internal.Secrets;
import io.purgatory.internal.StateControl;
import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerNode;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The operation state's doors in the internal package, registered in {@link Secrets} when
 * {@link OperationState} is loaded: the owner the timer runs an operation's expiry through (so the
 * operation has no method a subclass could call to run it), and the machinery purgatory-kafka's
 * bridge builds Kafka's classes on (so that it needs no class in this package).
 *
 * <p>Thread-safe: stateless; each call is the operation state's.
 */
final class OperationDoors implements NodeOwner<TimerNode, Timer>, StateControl<OperationState, DelayedOperationPurgatory<?>, Timer> {

    // --- the timer's calls for an operation's expiry ---

    @Override
    public boolean owns(TimerNode node) {
        return node instanceof OperationState;
    }

    @Override
    public void runDue(TimerNode node) {
        ((OperationState) node).expiryDue();
    }

    @Override
    public @Nullable Timer timerOf(TimerNode node) {
        return ((OperationState) node).expiryTimer();
    }

    // --- the bridge's ---

    @Override
    public void lock(OperationState state) {
        state.lock();
    }

    @Override
    public boolean tryLock(OperationState state) {
        return state.tryLock();
    }

    @Override
    public boolean lockInterruptibly(OperationState state, long timeoutNanos) throws InterruptedException {
        return state.lockInterruptibly(timeoutNanos);
    }

    @Override
    public void unlock(OperationState state) {
        state.unlock();
    }

    @Override
    public int holdCount(OperationState state) {
        return state.holdCount();
    }

    @Override
    public boolean isLocked(OperationState state) {
        return state.isLocked();
    }

    @Override
    public boolean complete(OperationState state, boolean expired) {
        return state.complete(expired ? Completion.EXPIRED : Completion.COMPLETED, null);
    }

    @Override
    public boolean retryIfPending(OperationState state) {
        return state.retryIfPending();
    }

    @Override
    public @Nullable Object completion(OperationState state) {
        return state.completedAs();
    }

    @Override
    public boolean nodeUnused(OperationState state) {
        return state.deadlineMs() == Long.MAX_VALUE && !state.isExpiryCancelled();
    }

    @Override
    public void schedule(OperationState state, Timer timer, long delayMs) {
        state.scheduleExpiry(timer, delayMs);
    }

    @Override
    public boolean cancelNode(OperationState state) {
        return state.cancelExpiry();
    }

    @Override
    public DelayedOperationPurgatory<?> purgatory(String name, Timer timer, int purgeInterval, boolean reaperEnabled) {
        return DelayedOperationPurgatory.builderOfStates(name).timer(timer).purgeInterval(purgeInterval)
                .reaperEnabled(reaperEnabled).build();
    }

    @Override
    @SuppressWarnings("unchecked") // the purgatory holds states only
    public List<OperationState> withdraw(DelayedOperationPurgatory<?> purgatory, Object key) {
        return (List<OperationState>) purgatory.withdrawForKey(key);
    }
}

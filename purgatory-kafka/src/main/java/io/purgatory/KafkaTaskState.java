package io.purgatory;

import io.purgatory.timer.Timer;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * purgatory-kafka's bridge into purgatory-core: Kafka's {@code TimerTask} extends it, so every Kafka
 * timer task (and Kafka's {@code DelayedOperation}, which extends it) is its own node in the core
 * timer's wheel and carries the core operation state, with no second object.
 *
 * <p>It lives in {@code io.purgatory} (a split package: purgatory-core has no {@code module-info},
 * and the module's jar holds both halves) because the state's hooks are package-private. What Kafka's
 * classes need is here as protected members with a {@code purgatory} prefix, so that no name of
 * Kafka's (or of a Kafka subclass) can clash: the hooks as abstract methods, completion, and the
 * node's scheduling. Nothing is public, and nothing here runs or cancels an operation's expiry from
 * outside the Kafka class hierarchy.
 *
 * <p>An object is either an operation offered to a core purgatory (its expiry is the core's: expire,
 * then {@code onExpiration}), or a plain Kafka timer task added to the module's {@code SystemTimer}
 * (its node runs {@link #purgatoryRunDue()}).
 *
 * <p>The state's lock is the host's ({@link #purgatoryLock()}: Kafka's {@code ReentrantLock}), so a
 * Kafka operation carries one lock, and each try takes it once.
 *
 * <p>Thread-safety: that of {@link OperationState}, with {@link #purgatoryLock()} as the lock; the
 * node is scheduled and cancelled through its timer, from any thread.
 */
public abstract class KafkaTaskState extends OperationState {

    protected KafkaTaskState() {
    }

    // --- the hooks, as Kafka's classes implement them ---

    /** The try, under the state's lock ({@link #purgatoryLock()}): Kafka's {@code DelayedOperation} calls {@code tryComplete()}. */
    protected abstract boolean purgatoryTryComplete();

    /** Runs once, under the state's lock, when the operation completes; {@link #purgatoryCompletion()} says how. */
    protected abstract void purgatoryOnComplete();

    /** Runs after {@link #purgatoryOnComplete()} when the operation expired. */
    protected abstract void purgatoryOnExpiration();

    /** The delay of the expiry, in ms, not negative. */
    protected abstract long purgatoryDelayMs();

    /** What a plain task (not offered to a purgatory) does when its node is due: Kafka's {@code run()}. */
    protected abstract void purgatoryRunDue();

    /** The core timer a plain task (not offered to a purgatory) was linked into, or null. */
    protected abstract Timer purgatoryTimer();

    /**
     * The lock of the operation's state: Kafka's {@code DelayedOperation.lock}, the same object every
     * time. The core takes it around the try and the completion, so an operation has this one lock.
     *
     * @throws IllegalStateException on a plain timer task, which is never tried nor completed
     */
    protected abstract ReentrantLock purgatoryLock();

    @Override
    final boolean tryCompleteHook() {
        return purgatoryTryComplete();
    }

    @Override
    final void onCompleteHook() {
        purgatoryOnComplete();
    }

    @Override
    final void onExpirationHook() {
        purgatoryOnExpiration();
    }

    @Override
    final long expiryDelayMs() {
        return purgatoryDelayMs();
    }

    @Override
    final void lock() {
        purgatoryLock().lock();
    }

    @Override
    final boolean tryLock() {
        return purgatoryLock().tryLock();
    }

    @Override
    final void unlock() {
        purgatoryLock().unlock();
    }

    @Override
    final boolean isHeldByCurrentThread() {
        return purgatoryLock().isHeldByCurrentThread();
    }

    @Override
    final Timer expiryTimer() {
        return purgatory != null ? super.expiryTimer() : purgatoryTimer();
    }

    @Override
    final void expiryDue() {
        if (purgatory != null) { // set under the lock before the purgatory scheduled the node: the timer's hand-off publishes it
            super.expiryDue();
        } else {
            purgatoryRunDue();
        }
    }

    // --- what Kafka's classes call ---

    /** Completes the operation ({@link Completion#COMPLETED}) if nothing did yet: cancels its expiry, runs the completion hook. */
    protected final boolean purgatoryComplete() {
        return complete(Completion.COMPLETED, null);
    }

    /**
     * For a path that took {@link #purgatoryLock()} itself (Kafka's {@code safeTryComplete}), after it
     * released it: runs the try once more if a {@code checkAndComplete} found the lock held
     * meanwhile and asked the holder to retry, so that its wake-up is not lost.
     *
     * @return true if this call completed the operation
     */
    protected final boolean purgatoryRetryIfPending() {
        return retryIfPending();
    }

    /** How the operation completed, or null while it has not. */
    protected final Completion purgatoryCompletion() {
        return completedAs();
    }

    /** True while this object's node was never scheduled nor cancelled: a node is scheduled once, by a purgatory or by a plain task's first add. */
    protected final boolean purgatoryNodeUnused() {
        return deadlineMs() == Long.MAX_VALUE && !isExpiryCancelled();
    }

    /**
     * Schedules this object's node on {@code timer}, due {@code delayMs} from now; {@link #purgatoryTimer()}
     * must return {@code timer} from now on.
     *
     * @throws IllegalStateException if the node was used before, or the timer is closed
     */
    protected final void purgatorySchedule(Timer timer, long delayMs) {
        scheduleExpiry(timer, delayMs);
    }

    /** Takes the node off its timer without completing anything (Kafka's {@code TimerTask.cancel()}). */
    protected final boolean purgatoryCancelNode() {
        return cancelExpiry();
    }

    /** A core purgatory of Kafka operations, for Kafka's {@code DelayedOperationPurgatory}. */
    protected static <T extends KafkaTaskState> DelayedOperationPurgatory<T> purgatoryOfKafka(
            String name, Timer timer, int purgeInterval, boolean reaperEnabled) {
        return DelayedOperationPurgatory.<T>builderOfStates(name).timer(timer).purgeInterval(purgeInterval)
                .reaperEnabled(reaperEnabled).build();
    }

    /** Kafka's {@code cancelForKey}: the key's pending operations, off the purgatory and not completed. */
    protected static <T extends KafkaTaskState> List<T> purgatoryWithdraw(DelayedOperationPurgatory<T> purgatory, Object key) {
        return purgatory.withdrawForKey(key);
    }
}

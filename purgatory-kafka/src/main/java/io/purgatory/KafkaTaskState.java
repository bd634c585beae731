package io.purgatory;

import io.purgatory.timer.Timer;
import java.util.List;

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
 * <p>An object is either an operation offered to a core purgatory, or a plain Kafka timer task added
 * to the module's {@code SystemTimer}. Either way, when its node is due it runs
 * {@link #purgatoryRunDue()}, Kafka's {@code run()}: an operation's expiry goes through its own
 * {@code forceComplete()} and {@code onExpiration()}, as on Kafka's timer.
 *
 * <p>The state's lock is core's, built into the object; Kafka's {@code DelayedOperation.lock} is a
 * {@code ReentrantLock} view of it (the {@code purgatoryLock...} methods), so a Kafka operation
 * carries one lock, and each try takes it once without leaving the operation.
 *
 * <p>Thread-safety: that of {@link OperationState}; the node is scheduled and cancelled through its
 * timer, from any thread.
 */
public abstract class KafkaTaskState extends OperationState {

    /** The task whose expiry this thread is running, so that its completion counts as expired. */
    private static final ThreadLocal<KafkaTaskState> EXPIRING = new ThreadLocal<>();

    protected KafkaTaskState() {
    }

    // --- the hooks, as Kafka's classes implement them ---

    /** The try, under the state's lock: Kafka's {@code DelayedOperation} calls {@code tryComplete()}. */
    protected abstract boolean purgatoryTryComplete();

    /** Runs once, under the state's lock, when the operation completes; {@link #purgatoryCompletion()} says how. */
    protected abstract void purgatoryOnComplete();

    /**
     * Runs after {@link #purgatoryOnComplete()} when core expires the operation itself: only when its
     * purgatory closes ({@link Completion#CLOSED}). A due expiry runs {@link #purgatoryRunDue()} instead.
     */
    protected abstract void purgatoryOnExpiration();

    /** The delay of the expiry, in ms, not negative. */
    protected abstract long purgatoryDelayMs();

    /** What the task does when its node is due: Kafka's {@code run()} (for an operation, its expiry). */
    protected abstract void purgatoryRunDue();

    /** The core timer a plain task (not offered to a purgatory) was linked into, or null. */
    protected abstract Timer purgatoryTimer();

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
    final Timer expiryTimer() {
        return purgatory != null ? super.expiryTimer() : purgatoryTimer();
    }

    /**
     * The expiry is due: Kafka's {@code run()} runs, on an operation as on a plain task, as Kafka's own
     * timer runs it. For an operation that is {@code if (forceComplete()) onExpiration()}, through
     * whatever the subclass overrides; a completion inside it, on this thread, is counted as expired.
     */
    @Override
    final void expiryDue() {
        KafkaTaskState outer = EXPIRING.get();
        EXPIRING.set(this);
        try {
            purgatoryRunDue();
        } finally {
            EXPIRING.set(outer);
        }
    }

    // --- what Kafka's classes call ---

    /**
     * The state's lock, for Kafka's {@code DelayedOperation.lock}, a {@code ReentrantLock} that is a
     * view of it: takes it, waiting as long as it takes.
     */
    protected final void purgatoryLockTake() {
        lock();
    }

    /** Takes the state's lock if it is free or held by this thread; never waits. */
    protected final boolean purgatoryLockTry() {
        return tryLock();
    }

    /**
     * Takes the state's lock, waiting at most {@code timeoutNanos} ({@code Long.MAX_VALUE}: no limit),
     * unless the thread is interrupted.
     *
     * @return false if the time ran out first
     */
    protected final boolean purgatoryLockTakeInterruptibly(long timeoutNanos) throws InterruptedException {
        return lockInterruptibly(timeoutNanos);
    }

    /** Releases one hold of the state's lock; throws {@code IllegalMonitorStateException} if this thread holds none. */
    protected final void purgatoryLockRelease() {
        unlock();
    }

    /** How many times this thread holds the state's lock. */
    protected final int purgatoryLockHoldCount() {
        return holdCount();
    }

    /** True if some thread holds the state's lock. */
    protected final boolean purgatoryLockIsLocked() {
        return isLocked();
    }

    /**
     * Completes the operation if nothing did yet: cancels its expiry, runs the completion hook. It counts
     * as {@link Completion#EXPIRED} when called by the operation's own expiry (Kafka's {@code run()},
     * on the expiry thread), as {@link Completion#COMPLETED} otherwise.
     */
    protected final boolean purgatoryComplete() {
        return complete(EXPIRING.get() == this ? Completion.EXPIRED : Completion.COMPLETED, null);
    }

    /**
     * For a path that took the state's lock itself (Kafka's {@code safeTryComplete}), after it
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

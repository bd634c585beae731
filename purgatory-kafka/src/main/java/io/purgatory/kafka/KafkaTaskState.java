package io.purgatory.kafka;

import io.purgatory.Completion;
import io.purgatory.DelayedOperationPurgatory;
import io.purgatory.internal.ForeignOperations;
import io.purgatory.internal.OperationState;
import io.purgatory.internal.Secrets;
import io.purgatory.internal.StateControl;
import io.purgatory.timer.Timer;
import java.lang.invoke.MethodHandles;
import java.util.Collection;
import java.util.List;

/**
 * purgatory-kafka's bridge into purgatory-core: Kafka's {@code TimerTask} extends it, so every Kafka
 * timer task (and Kafka's {@code DelayedOperation}, which extends it) is its own node in the core
 * timer's wheel and carries the core operation state, with no second object.
 *
 * <p>The state's hooks and machinery are package-private in the core; this class reaches them
 * through the core's internal package ({@code io.purgatory.internal}): it registers its
 * {@link ForeignOperations} there, which the state calls for its hooks, and takes the state's
 * {@link StateControl} from there. What Kafka's classes need is here as protected members with a
 * {@code purgatory} prefix, so that no name of Kafka's (or of a Kafka subclass) can clash: the hooks
 * as abstract methods, completion, and the node's scheduling. Nothing is public, and nothing here
 * runs or cancels an operation's expiry from outside the Kafka class hierarchy.
 *
 * <p>An object is either an operation offered to a core purgatory, or a plain Kafka timer task added
 * to the module's {@code SystemTimer}. Either way, when its node is due it runs
 * {@link #purgatoryRunDue()}, Kafka's {@code run()}: an operation's expiry goes through its own
 * {@code forceComplete()} and {@code onExpiration()}, as on Kafka's timer, and a completion on that
 * thread inside it counts as expired.
 *
 * <p>The state's lock is core's, built into the object; Kafka's {@code DelayedOperation.lock} is a
 * {@code ReentrantLock} view of it (the {@code purgatoryLock...} methods), so a Kafka operation
 * carries one lock, and each try takes it once without leaving the operation.
 *
 * <p>Thread-safety: that of the core's {@link OperationState}; the node is scheduled and cancelled through its
 * timer, from any thread.
 */
public abstract class KafkaTaskState extends OperationState {

    private static final StateControl<KafkaTaskState, DelayedOperationPurgatory<?>, Timer> STATE;

    /** The task whose expiry this thread is running, so that its completion counts as expired. */
    private static final ThreadLocal<KafkaTaskState> EXPIRING = new ThreadLocal<>();

    static {
        try { // the core registers the operation state's controls when its purgatory class is loaded
            MethodHandles.lookup().ensureInitialized(DelayedOperationPurgatory.class);
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
        STATE = Secrets.stateControl();
        Secrets.registerForeignOperations(new Hooks());
    }

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

    // --- what Kafka's classes call ---

    /**
     * The state's lock, for Kafka's {@code DelayedOperation.lock}, a {@code ReentrantLock} that is a
     * view of it: takes it, waiting as long as it takes.
     */
    protected final void purgatoryLockTake() {
        STATE.lock(this);
    }

    /** Takes the state's lock if it is free or held by this thread; never waits. */
    protected final boolean purgatoryLockTry() {
        return STATE.tryLock(this);
    }

    /**
     * Takes the state's lock, waiting at most {@code timeoutNanos} ({@code Long.MAX_VALUE}: no limit),
     * unless the thread is interrupted.
     *
     * @return false if the time ran out first
     */
    protected final boolean purgatoryLockTakeInterruptibly(long timeoutNanos) throws InterruptedException {
        return STATE.lockInterruptibly(this, timeoutNanos);
    }

    /** Releases one hold of the state's lock; throws {@code IllegalMonitorStateException} if this thread holds none. */
    protected final void purgatoryLockRelease() {
        STATE.unlock(this);
    }

    /** How many times this thread holds the state's lock. */
    protected final int purgatoryLockHoldCount() {
        return STATE.holdCount(this);
    }

    /** True if some thread holds the state's lock. */
    protected final boolean purgatoryLockIsLocked() {
        return STATE.isLocked(this);
    }

    /**
     * Completes the operation if nothing did yet: cancels its expiry, runs the completion hook. It counts
     * as {@link Completion#EXPIRED} when called by the operation's own expiry (Kafka's {@code run()},
     * on the expiry thread), as {@link Completion#COMPLETED} otherwise.
     */
    protected final boolean purgatoryComplete() {
        return STATE.complete(this, EXPIRING.get() == this);
    }

    /**
     * For a path that took the state's lock itself (Kafka's {@code safeTryComplete}), after it
     * released it: runs the try once more if a {@code checkAndComplete} found the lock held
     * meanwhile and asked the holder to retry, so that its wake-up is not lost.
     *
     * @return true if this call completed the operation
     */
    protected final boolean purgatoryRetryIfPending() {
        return STATE.retryIfPending(this);
    }

    /** How the operation completed, or null while it has not. */
    protected final Completion purgatoryCompletion() {
        return (Completion) STATE.completion(this);
    }

    /** True while this object's node was never scheduled nor cancelled: a node is scheduled once, by a purgatory or by a plain task's first add. */
    protected final boolean purgatoryNodeUnused() {
        return STATE.nodeUnused(this);
    }

    /**
     * Schedules this object's node on {@code timer}, due {@code delayMs} from now; {@link #purgatoryTimer()}
     * must return {@code timer} from now on.
     *
     * @throws IllegalStateException if the node was used before, or the timer is closed
     */
    protected final void purgatorySchedule(Timer timer, long delayMs) {
        STATE.schedule(this, timer, delayMs);
    }

    /** Takes the node off its timer without completing anything (Kafka's {@code TimerTask.cancel()}). */
    protected final boolean purgatoryCancelNode() {
        return STATE.cancelNode(this);
    }

    /** A core purgatory of Kafka operations, for Kafka's {@code DelayedOperationPurgatory}. */
    protected static DelayedOperationPurgatory<?> purgatoryOfKafka(String name, Timer timer, int purgeInterval, boolean reaperEnabled) {
        return STATE.purgatory(name, timer, purgeInterval, reaperEnabled);
    }

    /**
     * Offers {@code operation} to a core purgatory of Kafka operations, watching {@code keys}: the
     * purgatory's {@code tryCompleteElseWatch}, which takes the core's {@code DelayedOperation}s only.
     *
     * @return true if the operation completed in this call
     */
    protected static boolean purgatoryOffer(DelayedOperationPurgatory<?> purgatory, KafkaTaskState operation, Collection<?> keys) {
        return STATE.offer(purgatory, operation, keys);
    }

    /** Kafka's {@code cancelForKey}: the key's pending operations, off the purgatory and not completed. */
    @SuppressWarnings("unchecked") // the key's operations were offered to a purgatory of T
    protected static <T extends KafkaTaskState> List<T> purgatoryWithdraw(DelayedOperationPurgatory<?> purgatory, Object key) {
        return (List<T>) STATE.withdraw(purgatory, key);
    }

    /** The hooks the core's operation state calls for a Kafka task: its abstract methods above. Stateless. */
    private static final class Hooks implements ForeignOperations<KafkaTaskState, Timer> {

        @Override
        public boolean owns(Object state) {
            return state instanceof KafkaTaskState;
        }

        @Override
        public boolean tryComplete(KafkaTaskState state) {
            return state.purgatoryTryComplete();
        }

        @Override
        public void onComplete(KafkaTaskState state) {
            state.purgatoryOnComplete();
        }

        @Override
        public void onExpiration(KafkaTaskState state) {
            state.purgatoryOnExpiration();
        }

        @Override
        public long delayMs(KafkaTaskState state) {
            return state.purgatoryDelayMs();
        }

        @Override
        public void runDue(KafkaTaskState state) {
            KafkaTaskState outer = EXPIRING.get();
            EXPIRING.set(state);
            try {
                state.purgatoryRunDue();
            } finally {
                EXPIRING.set(outer);
            }
        }

        @Override
        public Timer timer(KafkaTaskState state) {
            return state.purgatoryTimer();
        }
    }
}

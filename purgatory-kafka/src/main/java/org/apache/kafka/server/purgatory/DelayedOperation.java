package org.apache.kafka.server.purgatory;

import io.purgatory.Completion;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * Kafka's delayed operation (kafka-server-common 4.4.0), whose state is purgatory-core's: through
 * Kafka's {@link TimerTask} it carries the core operation state (completion, its first watch entry,
 * its node in the timer's wheel), so a parked operation is this one object, plus Kafka's
 * {@link #lock}.
 *
 * <p><b>Kafka's contract, kept.</b> Subclasses implement {@link #tryComplete()} (if the condition holds,
 * call {@link #forceComplete()} and return its result), {@link #onComplete()} and
 * {@link #onExpiration()}. {@code tryComplete} runs with {@link #lock} held when the purgatory calls
 * it. {@link #forceComplete()} completes the operation once, whoever calls it first, and takes it off
 * its timer; {@link #run()} is the expiry ({@code forceComplete}, then {@code onExpiration}) that a
 * foreign {@code Timer} (Kafka's test {@code MockTimer}) calls. The purgatory's
 * {@code cancelForKey} hands operations back without completing them; its {@code shutdown()} leaves
 * pending operations uncompleted (no callback runs).
 *
 * <p><b>What it improves.</b> Completion is core's: exactly once, and the operation's watches become
 * tombstones at once, so a completed operation (and its payload: a produce's records, a fetch's
 * response) is unreachable from the purgatory right away, instead of staying in every other key's
 * watch list until the next purge (KAFKA-19763). On the module's {@code SystemTimer} the operation is
 * its own expiry node: never early (deadlines round up to the tick), unlinked as soon as it completes,
 * and no {@code TimerTaskEntry} per operation.
 *
 * <p><b>Limit.</b> Core's state has a lock of its own, taken before {@link #lock} around
 * {@code tryComplete}: code that holds {@code lock} must not call {@code forceComplete()} while another
 * thread may call the purgatory's {@code checkAndComplete} for the operation (no Kafka 4.4 class takes
 * {@code lock} outside {@code tryComplete}).
 *
 * <p>Thread-safe: {@code lock} as in Kafka; the state is core's, thread-safe.
 */
public abstract class DelayedOperation extends TimerTask {

    /** Held while the purgatory runs {@link #tryComplete()}; Kafka's, a {@link ReentrantLock}. */
    protected final ReentrantLock lock = new ReentrantLock();

    public DelayedOperation(long delayMs) {
        super(delayMs);
    }

    /**
     * Completes the operation if nothing completed it yet: takes it off its timer and runs
     * {@link #onComplete()}.
     *
     * @return true if this call completed it
     */
    public boolean forceComplete() {
        return purgatoryComplete();
    }

    /** True once the operation completed (by its condition, forceComplete or its expiry). */
    public boolean isCompleted() {
        Completion how = purgatoryCompletion();
        return how != null && how != Completion.CLOSED; // a purgatory's shutdown completes nothing, as in Kafka
    }

    /** What to do when the operation expires: runs after {@link #onComplete()}. */
    public abstract void onExpiration();

    /** Completes the operation's work (sends the response, say); runs exactly once. */
    public abstract void onComplete();

    /** Checks the condition; if it holds, calls {@link #forceComplete()} and returns its result. */
    public abstract boolean tryComplete();

    /**
     * Under {@link #lock}: tries to complete; if it cannot, runs {@code action} and tries again.
     *
     * @return whether the operation completed
     */
    boolean safeTryCompleteOrElse(Action action) {
        lock.lock();
        try {
            if (tryComplete()) {
                return true;
            }
            action.apply();
            return tryComplete();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #tryComplete()} under {@link #lock}. */
    boolean safeTryComplete() {
        lock.lock();
        try {
            return tryComplete();
        } finally {
            lock.unlock();
        }
    }

    /** The expiry, as a foreign timer runs it at the deadline: completes the operation, then calls {@link #onExpiration()}. */
    @Override
    public void run() {
        if (forceComplete()) {
            onExpiration();
        }
    }

    /** Kafka's callback for {@link #safeTryCompleteOrElse}. */
    public interface Action {
        void apply();
    }

    // --- purgatory-core's hooks ---

    @Override
    protected final boolean purgatoryTryComplete() {
        lock.lock();
        try {
            return tryComplete();
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected final void purgatoryOnComplete() {
        if (purgatoryCompletion() == Completion.CLOSED) {
            return; // shutdown: Kafka runs no callback
        }
        if (!isCancelled()) {
            cancel(); // a foreign timer holds the task: take it off
        }
        onComplete();
    }

    @Override
    protected final void purgatoryOnExpiration() {
        if (purgatoryCompletion() != Completion.CLOSED) {
            onExpiration();
        }
    }

    /** A core purgatory of Kafka operations, for {@link DelayedOperationPurgatory}. */
    static <T extends DelayedOperation> io.purgatory.DelayedOperationPurgatory<T> corePurgatory(
            String name, io.purgatory.timer.Timer timer, int purgeInterval, boolean reaperEnabled) {
        return purgatoryOfKafka(name, timer, purgeInterval, reaperEnabled);
    }

    /** Kafka's cancelForKey on a core purgatory: the key's pending operations, off the purgatory, not completed. */
    static <T extends DelayedOperation> List<T> withdraw(io.purgatory.DelayedOperationPurgatory<T> purgatory, DelayedOperationKey key) {
        return purgatoryWithdraw(purgatory, key);
    }
}

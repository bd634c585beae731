package org.apache.kafka.server.purgatory;

import io.purgatory.Completion;
import io.purgatory.kafka.KafkaOperationLock;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * Kafka's delayed operation (kafka-server-common 4.1 to 4.4: one constructor, a {@code ReentrantLock lock}), whose state is purgatory-core's: through
 * Kafka's {@link TimerTask} it carries the core operation state (completion, its first watch entry,
 * its node in the timer's wheel), so a parked operation is this one object, plus Kafka's
 * {@link #lock}, which is the state's lock too.
 *
 * <p><b>Kafka's contract, kept.</b> Subclasses implement {@link #tryComplete()} (if the condition holds,
 * call {@link #forceComplete()} and return its result), {@link #onComplete()} and
 * {@link #onExpiration()}. {@code tryComplete} runs with {@link #lock} held when the purgatory calls
 * it. {@link #forceComplete()} completes the operation once, whoever calls it first, and takes it off
 * its timer; {@link #run()} is the expiry ({@code forceComplete}, then {@code onExpiration}, both
 * through the subclass's overrides), which every timer calls: the module's and a foreign
 * {@code Timer} (Kafka's test {@code MockTimer}). The purgatory's
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
 * <p><b>One lock.</b> {@link #lock} is a view of the core state's lock, which is built into the
 * operation: the purgatory takes it (with {@code tryLock} in {@code checkAndComplete}, where Kafka's
 * waits for it with {@code lock()}) around {@code tryComplete} and the completion, without going through {@code lock}, so a try takes
 * one lock and touches no object but the operation. {@code lock.isHeldByCurrentThread()} is true
 * inside {@code tryComplete}, as in Kafka. A
 * {@code checkAndComplete} that finds {@code lock} held asks the holder to try again; the purgatory's
 * paths and {@code safeTryComplete} honour that after releasing it. Code of a subclass that holds
 * {@code lock} itself does not (as in Kafka): a condition change signalled meanwhile waits for the next
 * {@code checkAndComplete} or the expiry.
 *
 * <p>Thread-safe: {@code lock} as in Kafka; the state is core's, thread-safe.
 */
public abstract class DelayedOperation extends TimerTask {

    /**
     * Held while the purgatory runs {@link #tryComplete()}: Kafka's {@link ReentrantLock}, here a view
     * of the operation's own lock (see {@link KafkaOperationLock}), which the purgatory takes without it.
     */
    protected final ReentrantLock lock = KafkaOperationLock.of(this);

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
     * Under {@link #lock}: tries to complete; if it cannot, runs {@code action} and tries again; then
     * once more if a {@code checkAndComplete} found the lock held meanwhile.
     *
     * @return whether a try completed the operation
     */
    boolean safeTryCompleteOrElse(Action action) {
        boolean completed;
        lock.lock();
        try {
            completed = tryComplete();
            if (!completed) {
                action.apply();
                completed = tryComplete();
            }
        } finally {
            lock.unlock();
        }
        return purgatoryRetryIfPending() || completed;
    }

    /**
     * {@link #tryComplete()} under {@link #lock}; then once more if a {@code checkAndComplete} found
     * the lock held meanwhile (Kafka's own loses that retry).
     *
     * @return whether a try completed the operation
     */
    boolean safeTryComplete() {
        boolean completed;
        lock.lock();
        try {
            completed = tryComplete();
        } finally {
            lock.unlock();
        }
        return purgatoryRetryIfPending() || completed;
    }

    /**
     * The expiry, as Kafka's: completes the operation through {@link #forceComplete()}, then calls
     * {@link #onExpiration()}. Every timer runs it at the deadline: the module's (for an operation on
     * its wheel, counted as expired) and a foreign one.
     */
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

    /** The core calls it with {@link #lock} held: the state's lock is {@link #lock}. */
    @Override
    protected final boolean purgatoryTryComplete() {
        return tryComplete();
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

    /** Core calls it only when a closing purgatory lets go of the operation, where Kafka runs no callback: a due expiry is {@link #run()}. */
    @Override
    protected final void purgatoryOnExpiration() {
    }

    /** A core purgatory of Kafka operations, for {@link DelayedOperationPurgatory}. */
    static io.purgatory.DelayedOperationPurgatory<?> corePurgatory(
            String name, io.purgatory.timer.Timer timer, int purgeInterval, boolean reaperEnabled) {
        return purgatoryOfKafka(name, timer, purgeInterval, reaperEnabled);
    }

    /** Kafka's tryCompleteElseWatch on a core purgatory: offers the operation, watching the keys. */
    static boolean coreOffer(io.purgatory.DelayedOperationPurgatory<?> purgatory, DelayedOperation operation, List<? extends DelayedOperationKey> keys) {
        return purgatoryOffer(purgatory, operation, keys);
    }

    /** Kafka's cancelForKey on a core purgatory: the key's pending operations, off the purgatory, not completed. */
    static <T extends DelayedOperation> List<T> withdraw(io.purgatory.DelayedOperationPurgatory<?> purgatory, DelayedOperationKey key) {
        return purgatoryWithdraw(purgatory, key);
    }
}

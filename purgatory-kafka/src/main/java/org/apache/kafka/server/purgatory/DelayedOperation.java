package org.apache.kafka.server.purgatory;

import io.purgatory.Completion;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.server.util.timer.TimerTask;

/**
 * Kafka's delayed operation (kafka-server-common 4.4.0), whose state is purgatory-core's: through
 * Kafka's {@link TimerTask} it carries the core operation state (completion, its first watch entry,
 * its node in the timer's wheel), so a parked operation is this one object, plus Kafka's
 * {@link #lock}, which is the state's lock too.
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
     * of the operation's own lock (see {@link OperationLock}), which the purgatory takes without it.
     */
    protected final ReentrantLock lock = OperationLock.of(this);

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

    /**
     * Kafka's {@code ReentrantLock} of one operation, as a view of the operation's own lock (core's,
     * built into the operation: an owner word and a waiter slot). Locking and unlocking it take that
     * lock; the purgatory takes it directly, so a try never reaches this object.
     *
     * <p>It is made without {@code ReentrantLock}'s constructor ({@code Unsafe.allocateInstance}, as
     * serialization frameworks make objects), so it carries no {@code AbstractQueuedSynchronizer}
     * (32 bytes per operation that nothing would use): it overrides every method of
     * {@code ReentrantLock} that it may, none of which reaches the missing synchronizer
     * (KafkaOperationLockTest checks each by reflection, so a JDK that adds one fails the build).
     *
     * <p>What differs from a {@code ReentrantLock}: {@link #newCondition()} throws
     * {@code UnsupportedOperationException} (no Kafka code waits on an operation's lock); threads
     * waiting for the lock spin, yield, then park on the operation and are not queued, so the three
     * queue probes that {@code ReentrantLock} makes final ({@code hasQueuedThreads},
     * {@code hasQueuedThread}, {@code getQueueLength}) throw {@code NullPointerException} (no Kafka
     * code calls them either); {@link #getOwner()} knows only the calling thread; interruptible and
     * timed waits poll every 100 microseconds. {@code isFair()} is false, as for Kafka's
     * {@code new ReentrantLock()}.
     *
     * <p>Thread-safe: the state is the operation's lock; {@code operation} is written once, before
     * the operation's final field {@code lock} publishes this object.
     */
    private static final class OperationLock extends ReentrantLock {

        private static final long serialVersionUID = 1L;
        private static final sun.misc.Unsafe UNSAFE = unsafe();

        /** The operation whose lock this is. */
        private transient DelayedOperation operation;

        static OperationLock of(DelayedOperation operation) {
            OperationLock lock;
            try {
                lock = (OperationLock) UNSAFE.allocateInstance(OperationLock.class);
            } catch (InstantiationException e) {
                throw new IllegalStateException("cannot make the lock of " + operation, e);
            }
            lock.operation = operation;
            return lock;
        }

        private static sun.misc.Unsafe unsafe() {
            try {
                java.lang.reflect.Field field = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
                field.setAccessible(true);
                return (sun.misc.Unsafe) field.get(null);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @Override
        public void lock() {
            operation.purgatoryLockTake();
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            operation.purgatoryLockTakeInterruptibly(Long.MAX_VALUE);
        }

        @Override
        public boolean tryLock() {
            return operation.purgatoryLockTry();
        }

        @Override
        public boolean tryLock(long timeout, java.util.concurrent.TimeUnit unit) throws InterruptedException {
            return operation.purgatoryLockTakeInterruptibly(Math.max(0, unit.toNanos(timeout)));
        }

        @Override
        public void unlock() {
            operation.purgatoryLockRelease();
        }

        /** @throws UnsupportedOperationException always: an operation's lock has no conditions */
        @Override
        public java.util.concurrent.locks.Condition newCondition() {
            throw new UnsupportedOperationException("purgatory-kafka: a DelayedOperation's lock has no conditions");
        }

        @Override
        public int getHoldCount() {
            return operation.purgatoryLockHoldCount();
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return operation.purgatoryLockHoldCount() > 0;
        }

        @Override
        public boolean isLocked() {
            return operation.purgatoryLockIsLocked();
        }

        @Override
        protected Thread getOwner() {
            return isHeldByCurrentThread() ? Thread.currentThread() : null; // the owner word holds an id, not the thread
        }

        @Override
        protected java.util.Collection<Thread> getQueuedThreads() {
            return java.util.List.of();
        }

        @Override
        public boolean hasWaiters(java.util.concurrent.locks.Condition condition) {
            throw notOurs(condition);
        }

        @Override
        public int getWaitQueueLength(java.util.concurrent.locks.Condition condition) {
            throw notOurs(condition);
        }

        @Override
        protected java.util.Collection<Thread> getWaitingThreads(java.util.concurrent.locks.Condition condition) {
            throw notOurs(condition);
        }

        @Override
        public String toString() {
            String state = isHeldByCurrentThread() ? "[Locked by thread " + Thread.currentThread().getName() + "]"
                    : isLocked() ? "[Locked]" : "[Unlocked]";
            return getClass().getName() + "@" + Integer.toHexString(hashCode()) + state;
        }

        /** What ReentrantLock throws for a condition it did not make: this lock makes none. */
        private static RuntimeException notOurs(java.util.concurrent.locks.Condition condition) {
            java.util.Objects.requireNonNull(condition, "condition");
            return new IllegalArgumentException("not owner: " + condition + " is not a condition of this lock");
        }
    }
}

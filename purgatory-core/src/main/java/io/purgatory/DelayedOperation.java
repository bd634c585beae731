package io.purgatory;

import io.purgatory.timer.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * An operation that completes when its condition holds or when its delay expires, exactly once.
 *
 * <p>Subclasses implement {@link #tryComplete()} (check the condition; if it holds, call
 * {@link #forceComplete()} and return its result), {@link #onComplete()} (send the response; read
 * {@link #completion()} to know why it runs) and {@link #onExpiration()} (count the timeout, say).
 * Hand the operation to {@link DelayedOperationPurgatory#tryCompleteElseWatch}; an operation can be
 * offered once.
 *
 * <h2>Exactly once</h2>
 * Completion happens under the operation's lock and sets {@link #completion()} from null to how it
 * completed, once: whichever of {@code forceComplete()} (from {@code tryComplete}, or from your
 * code), {@link #cancel(Object)}, the purgatory's {@code cancelForKey} and the timer's expiry gets
 * there first wins; the losers do nothing. The winner cancels the expiry, then runs
 * {@code onComplete()} once. On expiry {@code onExpiration()} runs after {@code onComplete()}, with
 * the lock released. Because {@code tryComplete} and {@code onComplete} both run under the lock,
 * they never run at the same time for one operation (KAFKA-19312).
 *
 * <p>There is no public way to expire an operation early or to remove it from the timer without
 * completing it: the operation is not itself a {@link TimerTask}; its expiry is a private task that
 * only its timer runs.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. The operation's lock (a lock of its own, which Error Prone's {@code @GuardedBy} cannot
 * check: the methods that rely on it assert {@link #isHeldByCurrentThread()}) guards {@code purgatory}, {@code expiry}, {@code firstList},
 * {@code watches}, {@code watching} and the writing of {@code completion} and {@code cancelReason},
 * and is held while {@code tryComplete} and {@code onComplete} run; {@code completion} is volatile,
 * written after {@code cancelReason}, so a reader of the one sees the other; {@code retryPending} is
 * an atomic flag read and written without the lock (see {@link #maybeTryComplete()}).
 *
 * <p>The lock is built into the operation rather than a {@code ReentrantLock} beside it: the field
 * {@code owner} is the holding thread's id (taken by compare-and-set, released by a volatile write) and
 * {@code holds} its re-entry count, touched by the owner only. This keeps the operation one object
 * (a {@code ReentrantLock} is two more, about 48 bytes, and two more cache misses for every
 * operation that {@code checkAndComplete} walks past). A thread that must wait for the lock spins
 * briefly, then yields, then parks in {@code waiter} until {@code unlock} wakes it: the lock is only
 * ever held for one {@code tryComplete} or {@code onComplete}.
 */
public abstract class DelayedOperation {

    private static final VarHandle RETRY_PENDING;
    private static final VarHandle OWNER;
    private static final VarHandle WAITER;
    /** {@code owner} when no thread holds the lock; thread ids are positive. */
    private static final long FREE = 0L;
    /** How long a waiter that could not take the {@code waiter} slot parks before it looks again. */
    private static final long POLL_NANOS = 100_000L;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RETRY_PENDING = lookup.findVarHandle(DelayedOperation.class, "retryPending", boolean.class);
            WAITER = lookup.findVarHandle(DelayedOperation.class, "waiter", Thread.class);
            OWNER = lookup.findVarHandle(DelayedOperation.class, "owner", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The id of the thread holding the operation's lock, or {@link #FREE}. An id rather than the
     * {@code Thread}: taking the lock then stores no reference into the (usually old) operation, so
     * the collector has no card to mark and refine for every operation a walk tries.
     */
    private volatile long owner;
    /** How many times {@code owner} holds the lock; the lock is re-entrant. Owner only. */
    private int holds;
    /** How the operation completed; null until it has. Written once, under the lock, after {@code cancelReason}. */
    private volatile Completion completion;
    /** The reason given to a cancellation that completed the operation, or null. Guarded by lock. */
    private Object cancelReason;
    /** Set by a thread that wanted to retry tryComplete but found the lock taken. */
    private volatile boolean retryPending;
    /** A thread parked in {@link #lock()} until {@link #unlock()} wakes it; at most one at a time. */
    private volatile Thread waiter;

    private final long delayMs;
    /**
     * The timer task that expires this operation, made when the operation starts to wait (an
     * operation that completes at once never allocates one), or null. Guarded by lock.
     */
    private Expiry expiry;
    /** The purgatory this operation was offered to, or null. Guarded by lock. */
    DelayedOperationPurgatory<?> purgatory;
    /** The list of the first key watched, where this operation is its own entry, or null. Guarded by lock. */
    WatchList firstList;
    /** This operation's slot in {@code firstList}. Guarded by {@code firstList}'s monitor. */
    int firstSlot;
    /** Head of the watches for the keys other than the first (for every key, with positions), linked through {@link Watch#sibling}. Guarded by lock. */
    Watch watches;
    /** True while the purgatory counts this operation as delayed. Guarded by lock. */
    boolean watching;
    /** Deadline on the purgatory timer's clock, for the expiry lateness histogram. */
    long deadlineMs;

    /**
     * @param delayMs how long the operation may wait before it expires, in milliseconds; not negative
     * @throws IllegalArgumentException if delayMs is negative
     */
    protected DelayedOperation(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs must not be negative: " + delayMs);
        }
        this.delayMs = delayMs;
    }

    /**
     * Checks whether the operation can complete now; if so, calls {@link #forceComplete()} and
     * returns its result. Called under the operation's lock, so it needs no locking of its own for
     * the operation's state; it must not wait on other operations. An exception it throws counts as
     * {@code false} (the operation keeps waiting) and reaches the caller of the purgatory method that
     * tried it (see {@link DelayedOperationPurgatory}).
     */
    public abstract boolean tryComplete();

    /**
     * Runs exactly once, on whichever path completed the operation, under the operation's lock;
     * {@link #completion()} says which path (and {@link #cancelReason()} why, for a cancellation).
     */
    public abstract void onComplete();

    /**
     * Runs after {@link #onComplete()} when the operation completed by expiring
     * ({@link Completion#EXPIRED} or {@link Completion#CLOSED}); the lock is released.
     */
    public abstract void onExpiration();

    /** The delay given at construction, in milliseconds. */
    public final long delayMs() {
        return delayMs;
    }

    /**
     * Completes the operation now, as {@link Completion#COMPLETED}, if it has not completed yet:
     * cancels its expiry and calls {@link #onComplete()}.
     *
     * @return true if this call completed it
     */
    public final boolean forceComplete() {
        return complete(Completion.COMPLETED, null);
    }

    /**
     * Completes the operation now, as {@link Completion#CANCELLED} with no reason, if it has not
     * completed yet. For an operation, cancelling is completing (its expiry is cancelled and
     * {@link #onComplete()} runs, once), so that no caller can leave a waiting client without an
     * answer.
     *
     * @return true if this call completed the operation
     */
    public final boolean cancel() {
        return complete(Completion.CANCELLED, null);
    }

    /**
     * Completes the operation now, as {@link Completion#CANCELLED}, if it has not completed yet;
     * {@code onComplete} reads {@code reason} with {@link #cancelReason()} (an error code to answer
     * with, say).
     *
     * @param reason why, for {@code onComplete}; may be null
     * @return true if this call completed the operation
     */
    public final boolean cancel(Object reason) {
        return complete(Completion.CANCELLED, reason);
    }

    /** True once the operation has completed, on any path (see {@link #completion()}). */
    public final boolean isCompleted() {
        return completion != null;
    }

    /** True if the operation completed by a cancellation: {@code completion() == CANCELLED}. */
    public final boolean isCancelled() {
        return completion == Completion.CANCELLED;
    }

    /**
     * How the operation completed, or null while it has not. Set before {@link #onComplete()} runs,
     * so {@code onComplete} can read it; never changes afterwards.
     */
    public final Completion completion() {
        return completion;
    }

    /**
     * The reason given to the cancellation that completed the operation
     * ({@link #cancel(Object)} or {@link DelayedOperationPurgatory#cancelForKey(Object, Object)}); null
     * if none was given or the operation did not complete by a cancellation. Readable in
     * {@code onComplete}.
     */
    public final Object cancelReason() {
        return completion == Completion.CANCELLED ? cancelReason : null; // the volatile read first publishes the reason
    }

    /**
     * Makes the timer task that will expire this operation; the caller holds the lock and adds the
     * task to its timer (an operation completed by then has cancelled it, so the add does nothing).
     */
    final TimerTask scheduleExpiry() {
        assert isHeldByCurrentThread();
        expiry = new Expiry(this);
        return expiry;
    }

    /**
     * Completes the operation by expiring: {@code onComplete}, then {@code onExpiration}, which runs
     * even if {@code onComplete} threw (the operation is expired all the same; the first exception is
     * rethrown after, the second suppressed in it).
     *
     * @param how {@link Completion#EXPIRED} when the timer expired it (its lateness is recorded),
     *     {@link Completion#CLOSED} when a closing purgatory expires it early
     * @return true if this call completed it
     */
    final boolean expire(Completion how) {
        Throwable failure = null;
        try {
            if (!complete(how, null)) {
                return false;
            }
        } catch (RuntimeException | Error e) {
            failure = e; // only the call that completes the operation runs onComplete: this one did
        }
        try {
            onExpiration();
        } catch (RuntimeException | Error e) {
            failure = Attempts.first(failure, e);
        } finally {
            DelayedOperationPurgatory<?> p = purgatory;
            if (p != null) {
                p.expired(this, how);
            }
        }
        Attempts.rethrow(failure);
        return true;
    }

    private boolean complete(Completion how, Object reason) {
        if (completion != null) {
            return false;
        }
        lock();
        try {
            if (completion != null) {
                return false;
            }
            cancelReason = reason;
            completion = how;
            if (expiry != null) {
                expiry.cancel();
            }
            try {
                onComplete();
            } finally {
                DelayedOperationPurgatory<?> p = purgatory;
                if (p != null) {
                    p.completed(this, how);
                }
            }
            return true;
        } finally {
            unlock();
        }
    }

    /**
     * Calls {@code tryComplete} unless another thread holds the lock, in which case that thread is
     * told to retry (Kafka's {@code maybeTryComplete}): a caller never blocks on an operation that
     * another thread is completing, and no condition change is lost. The retry protocol: a thread
     * that fails to take the lock sets {@code retryPending} and tries once more; if it fails again,
     * the flag was set before the holder released the lock, and every holder reads the flag after
     * releasing it and retries.
     *
     * @return true if this call completed the operation
     */
    final boolean maybeTryComplete() {
        boolean done = false;
        boolean retry;
        do {
            if (tryLock()) {
                try {
                    if (retryPending) {
                        retryPending = false; // a volatile write is a full fence: skip it when the flag is clear
                    }
                    done = completion == null && tryComplete();
                } finally {
                    unlock();
                }
                retry = retryPending;
            } else {
                retry = !(boolean) RETRY_PENDING.getAndSet(this, true);
            }
        } while (completion == null && retry);
        return done;
    }

    /** After releasing the lock from outside {@link #maybeTryComplete()}: honours a pending retry. */
    final boolean retryIfPending() {
        return retryPending && maybeTryComplete();
    }

    /**
     * Takes the lock, waiting for it if another thread holds it: spins, then yields, then parks
     * until {@link #unlock()} wakes it. One waiter at a time parks that way; a further concurrent
     * waiter (rare: three threads on one operation) polls with parks of {@value #POLL_NANOS} ns.
     */
    @SuppressWarnings("ThreadPriorityCheck") // a bounded yield before parking, not a wait on the scheduler
    final void lock() {
        for (int attempt = 0; attempt < 128; attempt++) {
            if (tryLock()) {
                return;
            }
            if (attempt < 64) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        lockParked();
    }

    /**
     * The slow path of {@link #lock()}: parks until {@link #unlock()} wakes it, until it has the lock.
     * Visible for testing: the model checker (OperationLockLincheckTest) enters it directly, as the
     * spins before it are more steps than an exhaustive search of interleavings can afford.
     */
    final void lockParked() {
        boolean interrupted = false;
        while (!tryLock()) {
            if (!parkForUnlock()) {
                LockSupport.parkNanos(this, POLL_NANOS); // another thread parks in the slot: poll
            }
            interrupted |= Thread.interrupted(); // keep waiting; the interrupt is restored below
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Parks in the {@code waiter} slot until the lock may be free, if the slot is free. The waiter
     * publishes itself, then reads {@code owner}; the unlocker clears {@code owner}, then reads
     * {@code waiter}: both volatile, so at least one of them sees the other's write, and a release
     * is never missed. A thread that finds the slot taken polls instead, in {@link #lockParked()}: a
     * separate step, so that the model checker can let that timed park time out while this one parks
     * in earnest (see OperationLockLincheckTest).
     *
     * @return false if another thread holds the slot (this one did not park)
     */
    private boolean parkForUnlock() {
        if (!WAITER.compareAndSet(this, null, Thread.currentThread())) {
            return false;
        }
        try {
            if (owner != FREE) {
                LockSupport.park(this);
            }
        } finally {
            waiter = null;
        }
        return true;
    }

    /**
     * True if this thread holds the lock. Error Prone's {@code @GuardedBy} knows {@code synchronized}
     * and {@code java.util.concurrent.locks.Lock} only, not a lock of its own like this one: the
     * methods that touch the fields this lock guards assert it instead (surefire runs with
     * assertions on).
     */
    final boolean isHeldByCurrentThread() {
        return owner == Thread.currentThread().getId();
    }

    /** Takes the lock if it is free or already held by this thread. */
    final boolean tryLock() {
        long me = Thread.currentThread().getId();
        if (owner == me) {
            holds++;
            return true;
        }
        if (OWNER.compareAndSet(this, FREE, me)) {
            holds = 1;
            return true;
        }
        return false;
    }

    /**
     * Releases one hold; the last one frees the lock with a volatile write, which publishes what
     * the holder wrote and comes before its read of {@code retryPending}.
     *
     * @throws IllegalMonitorStateException if this thread does not hold the lock
     */
    final void unlock() {
        if (owner != Thread.currentThread().getId()) {
            throw new IllegalMonitorStateException("operation lock not held by " + Thread.currentThread().getName());
        }
        if (--holds == 0) {
            owner = FREE;
            Thread parked = waiter;
            if (parked != null) {
                LockSupport.unpark(parked);
            }
        }
    }

    /**
     * The timer's handle on an operation: running it expires the operation. Private, so that only
     * the timer it was added to can run it; its {@code cancel()} is called only by the completing
     * operation, under the operation's lock. Thread-safe as every {@link TimerTask} is; its one
     * field is final.
     */
    private static final class Expiry extends TimerTask {
        private final DelayedOperation operation;

        Expiry(DelayedOperation operation) {
            super(operation.delayMs);
            this.operation = operation;
        }

        @Override
        public void run() {
            operation.expire(Completion.EXPIRED);
        }

        @Override
        public String toString() {
            return "Expiry[" + operation + "]";
        }
    }
}

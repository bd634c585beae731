package io.purgatory;

import io.purgatory.timer.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * An operation that completes when its condition holds or when its delay expires, exactly once.
 *
 * <p>Subclasses implement {@link #tryComplete()} (check the condition; if it holds, call
 * {@link #forceComplete()} and return its result), {@link #onComplete()} (send the response) and
 * {@link #onExpiration()} (count the timeout, say). Hand the operation to
 * {@link DelayedOperationPurgatory#tryCompleteElseWatch}; an operation can be offered once.
 *
 * <h2>Exactly once</h2>
 * Completion happens under the operation's lock and flips {@code completed} from false to true
 * once: whichever of {@code forceComplete()} (from {@code tryComplete}, or from your code) and the
 * timer's expiry gets there first wins; the loser does nothing. The winner cancels the timer task,
 * then runs {@code onComplete()} once. On expiry {@code onExpiration()} runs after
 * {@code onComplete()}, with the lock released. Because {@code tryComplete} and {@code onComplete}
 * both run under the lock, they never run at the same time for one operation (KAFKA-19312).
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. The operation's lock guards {@code purgatory}, {@code firstList}, {@code watches} and {@code watching}
 * and is held while {@code tryComplete} and {@code onComplete} run; {@code completed} is volatile and
 * written only under the lock; {@code retryPending} is an atomic flag read and written without it
 * (see {@link #maybeTryComplete()}).
 *
 * <p>The lock is built into the operation rather than a {@code ReentrantLock} beside it: the field
 * {@code owner} is the holding thread's id (taken by compare-and-set, released by a volatile write) and
 * {@code holds} its re-entry count, touched by the owner only. This keeps the operation one object
 * (a {@code ReentrantLock} is two more, about 48 bytes, and two more cache misses for every
 * operation that {@code checkAndComplete} walks past). A thread that must wait for the lock spins
 * briefly, then yields, then parks in {@code waiter} until {@code unlock} wakes it: the lock is only
 * ever held for one {@code tryComplete} or {@code onComplete}.
 */
public abstract class DelayedOperation extends TimerTask {

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
    private volatile boolean completed;
    /** Set by a thread that wanted to retry tryComplete but found the lock taken. */
    private volatile boolean retryPending;
    /** A thread parked in {@link #lock()} until {@link #unlock()} wakes it; at most one at a time. */
    private volatile Thread waiter;

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
     * @param delayMs how long the operation may wait before it expires, in milliseconds
     */
    protected DelayedOperation(long delayMs) {
        super(delayMs);
    }

    /**
     * Checks whether the operation can complete now; if so, calls {@link #forceComplete()} and
     * returns its result. Called under the operation's lock, so it needs no locking of its own for
     * the operation's state; it must not wait on other operations.
     */
    public abstract boolean tryComplete();

    /** Runs exactly once, on whichever path completed the operation, under the operation's lock. */
    public abstract void onComplete();

    /** Runs after {@link #onComplete()} when the operation completed by expiring; the lock is released. */
    public abstract void onExpiration();

    /**
     * Completes the operation now if it has not completed yet: cancels its timer task and calls
     * {@link #onComplete()}.
     *
     * @return true if this call completed it
     */
    public final boolean forceComplete() {
        return complete(false);
    }

    /** True once the operation has completed, by {@code tryComplete} or by expiring. */
    public final boolean isCompleted() {
        return completed;
    }

    /**
     * For an operation, cancelling is completing: the same as {@link #forceComplete()} (its expiry
     * is cancelled and {@link #onComplete()} runs, once), so that no caller can leave a waiting
     * client without an answer. Final: the timer's own cancellation is not reachable from outside,
     * and a subclass that wants an "abort" calls {@code forceComplete()} and says why in its result.
     *
     * @return true if this call completed the operation
     */
    @Override
    public final boolean cancel() {
        return forceComplete();
    }

    /**
     * Removes the operation's timer task, so that it never expires. Only for the purgatory, which
     * first makes sure the operation is completed or handed back to its caller.
     */
    final boolean cancelExpiry() {
        return super.cancel();
    }

    /** The timer's entry point: expires the operation. Not for subclasses or callers. */
    @Override
    public final void run() {
        expire(true);
    }

    /**
     * Completes the operation by expiring: {@code onComplete}, then {@code onExpiration}.
     *
     * @param onTime true when the timer expired it (its lateness is recorded), false when it is
     *     expired early, by a closing purgatory
     */
    final void expire(boolean onTime) {
        if (complete(true)) {
            try {
                onExpiration();
            } finally {
                DelayedOperationPurgatory<?> p = purgatory;
                if (p != null) {
                    p.expired(this, onTime);
                }
            }
        }
    }

    private boolean complete(boolean expiring) {
        if (completed) {
            return false;
        }
        lock();
        try {
            if (completed) {
                return false;
            }
            completed = true;
            cancelExpiry();
            try {
                onComplete();
            } finally {
                DelayedOperationPurgatory<?> p = purgatory;
                if (p != null) {
                    p.completed(this, expiring);
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
                    done = !completed && tryComplete();
                } finally {
                    unlock();
                }
                retry = retryPending;
            } else {
                retry = !(boolean) RETRY_PENDING.getAndSet(this, true);
            }
        } while (!completed && retry);
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
    final void lock() {
        boolean interrupted = false;
        for (int attempt = 0; !tryLock(); attempt++) {
            if (attempt < 64) {
                Thread.onSpinWait();
            } else if (attempt < 128) {
                Thread.yield();
            } else {
                parkForUnlock();
                interrupted |= Thread.interrupted(); // keep waiting; the interrupt is restored below
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Parks until the lock may be free. The waiter publishes itself, then reads {@code owner}; the
     * unlocker clears {@code owner}, then reads {@code waiter}: both volatile, so at least one of
     * them sees the other's write, and a release is never missed.
     */
    private void parkForUnlock() {
        if (WAITER.compareAndSet(this, null, Thread.currentThread())) {
            try {
                if (owner != FREE) {
                    LockSupport.park(this);
                }
            } finally {
                waiter = null;
            }
        } else {
            LockSupport.parkNanos(this, POLL_NANOS);
        }
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
}

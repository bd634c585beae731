package io.purgatory;

import io.purgatory.timer.Timer;
import io.purgatory.timer.TimerNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The state the purgatory keeps in every operation it parks, in the operation itself: its lock, how
 * it completed, its first watch-list entry, its other watches, and (as a {@link TimerNode}) its own
 * expiry in the timer's wheel. So a parked operation is one object, plus one {@link Watch} per key
 * after the first.
 *
 * <p>{@link DelayedOperation} is the public face of it. The class is public and abstract only so
 * that a class which cannot extend {@code DelayedOperation} can carry the state too: Kafka's own
 * {@code DelayedOperation}, which must extend Kafka's {@code TimerTask}, does so through a bridge
 * class in this package (the {@code purgatory-kafka} module). Everything here is package-private,
 * so no public or protected method of a subclass can run, cancel or add an operation's expiry: the
 * node's {@link TimerNode.Control}, which only this class can hold, does that. A subclass implements
 * the package-private hooks ({@link #tryCompleteHook}, {@link #onCompleteHook},
 * {@link #onExpirationHook}, {@link #expiryDelayMs}); only a class of this package can.
 *
 * <h2>Exactly once</h2>
 * Completion happens under the lock and sets the completion from null to how it completed, once:
 * whichever path gets there first wins; the losers do nothing. The winner cancels the expiry, then
 * runs {@code onCompleteHook()} once. On expiry {@code onExpirationHook()} runs after it, with the
 * lock released. Because the try and the completion both run under the lock, they never run at the
 * same time for one operation (KAFKA-19312).
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. The lock (a lock of its own, which Error Prone's {@code @GuardedBy} cannot check: the
 * methods that rely on it assert {@link #isHeldByCurrentThread()}) guards {@code purgatory},
 * {@code firstList}, {@code watches}, {@code watching} and the writing of {@code completion} and
 * {@code cancelReason}, and is held while the try and the completion hooks run; {@code completion}
 * is volatile, written after {@code cancelReason}, so a reader of the one sees the other;
 * {@code retryPending} is an atomic flag read and written without the lock (see
 * {@link #maybeTryComplete()}); {@code firstSlot} is guarded by {@code firstList}'s monitor.
 *
 * <p>The lock is built in rather than a {@code ReentrantLock} beside it: the field {@code owner} is
 * the holding thread's id (taken by compare-and-set, released by a volatile write) and
 * {@code holds} its re-entry count, touched by the owner only. This keeps the operation one object
 * (a {@code ReentrantLock} is two more, about 48 bytes, and two more cache misses for every
 * operation that {@code checkAndComplete} walks past). A thread that must wait for the lock spins
 * briefly, then yields, then parks in {@code waiter} until {@code unlock} wakes it: the lock is only
 * ever held for one try or one completion.
 */
public abstract class OperationState extends TimerNode {

    /** Adds, cancels and runs the expiries of operations; this class's alone (see {@link TimerNode.Control}). */
    private static final TimerNode.Control EXPIRY = TimerNode.Control.of(MethodHandles.lookup(), node -> ((OperationState) node).expiryDue());
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
            RETRY_PENDING = lookup.findVarHandle(OperationState.class, "retryPending", boolean.class);
            WAITER = lookup.findVarHandle(OperationState.class, "waiter", Thread.class);
            OWNER = lookup.findVarHandle(OperationState.class, "owner", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The id of the thread holding the lock, or {@link #FREE}. An id rather than the {@code Thread}:
     * taking the lock then stores no reference into the (usually old) operation, so the collector
     * has no card to mark and refine for every operation a walk tries.
     */
    private volatile long owner;
    /** How many times {@code owner} holds the lock; the lock is re-entrant. Owner only. */
    private int holds;
    /** How the operation completed; null until it has. Written once, under the lock, after {@code cancelReason}. */
    private volatile Completion completion;
    /** The reason given to a cancellation that completed the operation, or null. Guarded by lock. */
    private Object cancelReason;
    /** Set by a thread that wanted to retry the try but found the lock taken. */
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

    /** For {@link DelayedOperation} and bridges of this package. */
    OperationState() {
    }

    // --- the hooks a subclass implements ---

    /**
     * Checks whether the operation can complete now; if so, completes it ({@link #complete}) and
     * returns that call's result. Called under the lock; what it throws counts as false.
     */
    abstract boolean tryCompleteHook();

    /** Runs exactly once, under the lock, on whichever path completed the operation. */
    abstract void onCompleteHook();

    /** Runs after {@link #onCompleteHook()} when the operation completed by expiring; the lock is released. */
    abstract void onExpirationHook();

    /** How long after it is parked the operation expires, in milliseconds. */
    abstract long expiryDelayMs();

    /**
     * What the timer does when the operation's expiry is due, on its expiry thread: expires it
     * ({@link Completion#EXPIRED}). A bridge whose objects are timer tasks as well (Kafka's
     * {@code TimerTask}) runs them instead.
     */
    void expiryDue() {
        expire(Completion.EXPIRED);
    }

    // --- completion ---

    /** True once the operation has completed, on any path. */
    final boolean isDone() {
        return completion != null;
    }

    /** How the operation completed, or null while it has not. */
    final Completion completedAs() {
        return completion;
    }

    /** The reason given to the cancellation that completed the operation, or null. */
    final Object reasonGiven() {
        return completion == Completion.CANCELLED ? cancelReason : null; // the volatile read first publishes the reason
    }

    /**
     * Completes the operation as {@code how}, with {@code reason} for a cancellation, if it has not
     * completed yet: cancels its expiry, then runs {@link #onCompleteHook()} under the lock.
     *
     * @return true if this call completed it
     */
    final boolean complete(Completion how, Object reason) {
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
            EXPIRY.cancel(this);
            try {
                onCompleteHook();
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
     * Completes the operation by expiring: {@code onCompleteHook}, then {@code onExpirationHook},
     * which runs even if the first threw (the operation is expired all the same; the first exception
     * is rethrown after, the second suppressed in it).
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
            onExpirationHook();
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

    // --- the expiry, which is this object as a timer node ---

    /**
     * Adds the operation's expiry to {@code timer}, due {@code delayMs} from now; an operation
     * completed before has cancelled it, so the add does nothing.
     *
     * @throws IllegalStateException if it was added before, or the timer is closed
     */
    final void scheduleExpiry(Timer timer, long delayMs) {
        EXPIRY.add(timer, this, delayMs);
    }

    /**
     * Takes the expiry off its timer without completing the operation: for a bridge whose public
     * API has that (Kafka's {@code TimerTask.cancel()}), and for the purgatory's
     * {@link DelayedOperationPurgatory#withdrawForKey}. Nothing public of this library calls it.
     *
     * @return true if this call cancelled the expiry
     */
    final boolean cancelExpiry() {
        return EXPIRY.cancel(this);
    }

    /** True once the expiry was cancelled: by completion, or by {@link #cancelExpiry()}. */
    final boolean isExpiryCancelled() {
        return EXPIRY.isCancelled(this);
    }

    /** The deadline of the expiry, in ms on its timer's clock; {@code Long.MAX_VALUE} before it is scheduled. */
    final long deadlineMs() {
        return EXPIRY.deadlineMs(this);
    }

    // --- the try, and the lock ---

    /**
     * Calls {@link #tryCompleteHook} unless another thread holds the lock, in which case that thread
     * is told to retry (Kafka's {@code maybeTryComplete}): a caller never blocks on an operation that
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
                    done = completion == null && tryCompleteHook();
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
}

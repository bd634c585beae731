package io.purgatory.internal;

import org.jspecify.annotations.Nullable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * <strong>Not for applications:</strong> extend {@code io.purgatory.DelayedOperation}, its public
 * face. The state the purgatory keeps in every operation it parks, in the operation itself: its
 * lock, how it completed, the purgatory it was offered to, its first watch-list entry and its other
 * watches, and (as a {@link TimerNode}) its own expiry in the timer's wheel. So a parked operation
 * is one object, plus one watch per key after the first.
 *
 * <p>It is public, in this package, for one reason: a class that cannot extend
 * {@code DelayedOperation} must carry the state too. Kafka's own {@code TimerTask}, which Kafka's
 * {@code DelayedOperation} extends, does so through purgatory-kafka's bridge, in a package of its own.
 * Nothing here is public or protected but the constructor, so a subclass (a user's operation) can
 * neither call nor override anything of it.
 *
 * <p>This class holds the state and the one mechanism that is about the state alone: the lock, and
 * the try that gives way to a holder of the lock. What the state means (the hooks, completion,
 * expiry, the watch lists) is {@code io.purgatory}'s ({@code Operations}), which reaches this class
 * through {@link OperationStates}, a class outside the operation's hierarchy; the fields the
 * purgatory links it by are typed {@code Object} here, so that this package names none of the
 * purgatory's types.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. The operation's lock (which Error Prone's {@code @GuardedBy} cannot check: the methods
 * that rely on it assert {@link #isHeldByCurrentThread()}) guards {@code purgatory},
 * {@code firstList}, {@code watches} and the writing of {@code completion} (which carries a
 * cancellation's reason), and is held while the try and the completion hooks run; {@code completion}
 * is volatile; {@code retryPending} is an atomic flag read and written without the lock (see
 * {@link #maybeTryComplete}); {@code firstSlot} is written under {@code firstList}'s monitor, before
 * the array it indexes is published.
 *
 * <p>The lock is built in ({@link #lock()}, {@link #tryLock()}, {@link #unlock()},
 * {@link #isHeldByCurrentThread()}, package-private), rather than a {@code ReentrantLock} beside the
 * operation: the field {@code owner} is the holding thread's id (taken by compare-and-set, released by
 * a volatile write) and, in its low bits, its re-entry count, changed by the owner only. This keeps
 * the operation one object (a {@code ReentrantLock} is two more, about 48 bytes, and two more cache
 * misses for every operation that {@code checkAndComplete} walks past). A thread that must wait for
 * the lock spins briefly, then yields, then parks in {@code waiter} until {@code unlock} wakes it: the
 * lock is only ever held for one try or one completion. A bridge whose host class must show a lock
 * object of its own (Kafka's {@code DelayedOperation} keeps its {@code ReentrantLock lock} field)
 * makes that object a view of this lock, so its operations still carry one lock and take it once
 * per try.
 */
public abstract class OperationState extends TimerNode {

    private static final VarHandle RETRY_PENDING;
    private static final VarHandle COMPLETION;
    private static final VarHandle OWNER;
    private static final VarHandle WAITER;
    /** {@code owner} when no thread holds the lock; thread ids are positive. */
    private static final long FREE = 0L;
    /** The low bits of {@code owner} count the holds; the thread's id is above them. */
    private static final int HOLD_BITS = 16;
    private static final long HOLDS = (1L << HOLD_BITS) - 1;
    /** How long a waiter that could not take the {@code waiter} slot parks before it looks again. */
    private static final long POLL_NANOS = 100_000L;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RETRY_PENDING = lookup.findVarHandle(OperationState.class, "retryPending", boolean.class);
            COMPLETION = lookup.findVarHandle(OperationState.class, "completion", Object.class);
            WAITER = lookup.findVarHandle(OperationState.class, "waiter", Thread.class);
            OWNER = lookup.findVarHandle(OperationState.class, "owner", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * How the operation completed: null until it has, then what the purgatory stores for it (a
     * {@code Completion}, or a holder of a cancellation's reason). Written once, under the lock, with
     * a release store; read as a volatile.
     */
    private volatile @Nullable Object completion;
    /** Set by a thread that wanted to retry the try but found the lock taken. */
    private volatile boolean retryPending;
    /**
     * The id of the thread holding the lock shifted left by {@value #HOLD_BITS}, plus how many times
     * it holds it (the lock is re-entrant), or {@link #FREE}. An id rather than the {@code Thread}:
     * taking the lock then stores no reference into the (usually old) operation, so the collector
     * has no card to mark and refine for every operation a walk tries. Ids are below 2^47 (they
     * count the threads the JVM has made).
     */
    private volatile long owner;
    /** A thread parked in {@link #lock()} until {@link #unlock()} wakes it; at most one at a time. */
    private volatile @Nullable Thread waiter;

    /** The purgatory this operation was offered to, or null. Guarded by lock. */
    @Nullable Object purgatory;
    /** The list of the first key watched, where this operation is its own entry, or null. Guarded by lock. */
    @Nullable Object firstList;
    /** This operation's slot in {@code firstList}. Written under {@code firstList}'s monitor, read by its {@code clear} without it. */
    int firstSlot;
    /** Head of the watches for the keys other than the first (for every key, with positions), linked by the purgatory. Guarded by lock. */
    @Nullable Object watches;

    /** For {@code io.purgatory.DelayedOperation}, and for purgatory-kafka's bridge. */
    protected OperationState() {
    }

    // --- completion ---

    /** How the operation completed (what the purgatory stored), or null while it has not. */
    final @Nullable Object completion() {
        return completion;
    }

    /**
     * Stores how the operation completed; once, under the lock. A release store, not a volatile
     * one: the lock's release after it is the fence that the retry protocol needs
     * ({@link #maybeTryComplete}), so a completion pays for one fence, not two.
     */
    final void completeAs(Object how) {
        assert isHeldByCurrentThread() && completion == null;
        COMPLETION.setRelease(this, how);
    }

    // --- the try ---

    /**
     * Calls {@code hook.tryComplete(this)} unless another thread holds the lock, in which case that
     * thread is told to retry (Kafka's {@code maybeTryComplete}): a caller never blocks on an
     * operation that another thread is completing, and no condition change is lost. The retry
     * protocol: a thread that fails to take the lock sets {@code retryPending} and tries once more;
     * if it fails again, the flag was set before the holder released the lock, and every holder
     * reads the flag after releasing it and retries.
     *
     * <p>Not re-entrant: if this thread holds the lock already (a walk nested in this operation's
     * own {@code tryComplete} or {@code onComplete}), it returns false without trying. The operation
     * is being tried, or has completed, on this thread already; trying it again would recurse
     * through the same {@code tryComplete} until the stack overflows. A retry another thread asked
     * for stays pending, for the holder to honour once it has released the lock.
     *
     * @return true if this call completed the operation
     */
    final boolean maybeTryComplete(TryHook hook) {
        long me = Thread.currentThread().getId() << HOLD_BITS;
        boolean done = false;
        boolean retry;
        do {
            long current = owner;
            if (current == FREE && OWNER.compareAndSet(this, FREE, me | 1)) {
                try {
                    if (retryPending) {
                        retryPending = false; // a volatile write is a full fence: skip it when the flag is clear
                    }
                    done = completion == null && hook.tryComplete(this);
                } finally {
                    unlock();
                }
                retry = retryPending;
            } else if ((current & ~HOLDS) == me) {
                return false; // nested in this operation's own try or completion, on this thread: skip it
            } else {
                retry = !(boolean) RETRY_PENDING.getAndSet(this, true);
            }
        } while (completion == null && retry);
        return done;
    }

    /** After releasing the lock from outside {@link #maybeTryComplete}: honours a pending retry. */
    final boolean retryIfPending(TryHook hook) {
        return retryPending && maybeTryComplete(hook);
    }

    // --- the operation's lock, built in ---
    //
    // Re-entrant: the holder may take it again, and releases it as often as it took it. The retry
    // protocol of maybeTryComplete() holds only if every path that holds the lock calls
    // retryIfPending() after releasing it.

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
        return owner >>> HOLD_BITS == Thread.currentThread().getId();
    }

    /**
     * Takes the lock if it is free or already held by this thread.
     *
     * @throws IllegalMonitorStateException if this thread already holds it 65,535 times
     */
    final boolean tryLock() {
        long me = Thread.currentThread().getId() << HOLD_BITS;
        long current = owner;
        if (current == FREE) {
            return OWNER.compareAndSet(this, FREE, me | 1);
        }
        if ((current & ~HOLDS) != me) {
            return false;
        }
        if ((current & HOLDS) == HOLDS) {
            throw new IllegalMonitorStateException("operation lock held too often by " + Thread.currentThread().getName());
        }
        OWNER.setOpaque(this, current + 1); // only the owner writes while it holds: others see it held either way
        return true;
    }

    /**
     * Releases one hold; the last one frees the lock with a volatile write, which publishes what
     * the holder wrote and comes before its read of {@code retryPending}.
     *
     * @throws IllegalMonitorStateException if this thread does not hold the lock
     */
    final void unlock() {
        long current = owner;
        if (current >>> HOLD_BITS != Thread.currentThread().getId()) {
            throw new IllegalMonitorStateException("operation lock not held by " + Thread.currentThread().getName());
        }
        if ((current & HOLDS) != 1) {
            OWNER.setOpaque(this, current - 1);
        } else {
            owner = FREE;
            Thread parked = waiter;
            if (parked != null) {
                LockSupport.unpark(parked);
            }
        }
    }

    /** How many times this thread holds the lock: 0 if it does not. */
    final int holdCount() {
        long current = owner;
        return current >>> HOLD_BITS == Thread.currentThread().getId() ? (int) (current & HOLDS) : 0;
    }

    /** True if some thread holds the lock. */
    final boolean isLocked() {
        return owner != FREE;
    }

    /**
     * Takes the lock, waiting at most {@code timeoutNanos} ({@code Long.MAX_VALUE}: for as long as it
     * takes) and giving up when the thread is interrupted: for a view of this lock as a
     * {@link java.util.concurrent.locks.Lock} (purgatory-kafka's {@code ReentrantLock}), whose
     * interruptible and timed takes no purgatory path uses. It polls, parking {@value #POLL_NANOS} ns
     * at a time, rather than take the {@code waiter} slot from a thread in {@link #lock()}.
     *
     * @return false if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while it waits
     */
    final boolean lockInterruptibly(long timeoutNanos) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (tryLock()) {
                return true;
            }
            long left = timeoutNanos == Long.MAX_VALUE ? POLL_NANOS : timeoutNanos - (System.nanoTime() - start);
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(this, Math.min(POLL_NANOS, left));
        }
    }
}

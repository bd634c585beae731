package io.purgatory;

import org.jspecify.annotations.Nullable;
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
 * <p>An operation is one object: its lock, its completion, its first watch-list entry and its
 * expiry's timer node are fields of the operation itself ({@link OperationState}). There is still no
 * public or protected way to expire it early or to remove it from the timer without completing it:
 * it is not a {@code TimerTask} nor a {@code Runnable}, and only the purgatory's package holds the
 * control of its timer node.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe: see {@link OperationState}; {@code delay} is final.
 *
 * <p>The operation's lock is built in rather than a {@code ReentrantLock} beside it: the field
 * {@code owner} is the holding thread's id (taken by compare-and-set, released by a volatile write)
 * and, in its low bits, its re-entry count, changed by the owner only. This keeps the operation one
 * object (a {@code ReentrantLock} is two more, about 48 bytes, and two more cache misses for every
 * operation that {@code checkAndComplete} walks past). A thread that must wait for the lock spins
 * briefly, then yields, then parks in {@code waiter} until {@code unlock} wakes it: the lock is only
 * ever held for one try or one completion.
 */
public abstract class DelayedOperation extends OperationState {

    /** {@link #delayMs} when the delay is {@code Long.MAX_VALUE}: never. */
    private static final int NEVER = -1;
    /** Bit 31 of {@code delay} set: the delay is in whole seconds (the low 31 bits), rounded up. */
    private static final int IN_SECONDS = Integer.MIN_VALUE;

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
            WAITER = lookup.findVarHandle(DelayedOperation.class, "waiter", Thread.class);
            OWNER = lookup.findVarHandle(DelayedOperation.class, "owner", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The delay, in 4 bytes rather than 8 so that a parked operation stays within 64 bytes of
     * machinery: milliseconds up to {@code Integer.MAX_VALUE} (24.8 days) exactly; longer ones in
     * seconds, rounded up (to 68 years); {@link #NEVER} for {@code Long.MAX_VALUE} and anything
     * longer than 68 years.
     */
    private final int delay;

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

    /**
     * @param delayMs how long the operation may wait before it expires, in milliseconds; not negative
     * @throws IllegalArgumentException if delayMs is negative
     */
    protected DelayedOperation(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs must not be negative: " + delayMs);
        }
        this.delay = encode(delayMs);
    }

    private static int encode(long delayMs) {
        if (delayMs <= Integer.MAX_VALUE) {
            return (int) delayMs;
        }
        long seconds = -Math.floorDiv(-delayMs, 1000L);
        return seconds < Integer.MAX_VALUE ? IN_SECONDS | (int) seconds : NEVER;
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

    /**
     * The delay given at construction, in milliseconds: exactly, up to {@code Integer.MAX_VALUE}
     * (24.8 days); a longer one rounded up to a whole second, and one longer than 68 years is
     * {@code Long.MAX_VALUE} (never). Rounding up, the operation never expires early.
     */
    public final long delayMs() {
        if (delay >= 0) {
            return delay;
        }
        return delay == NEVER ? Long.MAX_VALUE : (delay & Integer.MAX_VALUE) * 1000L;
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
    public final boolean cancel(@Nullable Object reason) {
        return complete(Completion.CANCELLED, reason);
    }

    /** True once the operation has completed, on any path (see {@link #completion()}). */
    public final boolean isCompleted() {
        return isDone();
    }

    /** True if the operation completed by a cancellation: {@code completion() == CANCELLED}. */
    public final boolean isCancelled() {
        return completedAs() == Completion.CANCELLED;
    }

    /**
     * How the operation completed, or null while it has not. Set before {@link #onComplete()} runs,
     * so {@code onComplete} can read it; never changes afterwards.
     */
    public final @Nullable Completion completion() {
        return completedAs();
    }

    /**
     * The reason given to the cancellation that completed the operation
     * ({@link #cancel(Object)} or {@link DelayedOperationPurgatory#cancelForKey(Object, Object)}); null
     * if none was given or the operation did not complete by a cancellation. Readable in
     * {@code onComplete}.
     */
    public final @Nullable Object cancelReason() {
        return reasonGiven();
    }

    @Override
    final boolean tryCompleteHook() {
        return tryComplete();
    }

    @Override
    final void onCompleteHook() {
        onComplete();
    }

    @Override
    final void onExpirationHook() {
        onExpiration();
    }

    @Override
    final long expiryDelayMs() {
        return delayMs();
    }

    // --- the operation's lock, built in ---

    /**
     * Takes the lock, waiting for it if another thread holds it: spins, then yields, then parks
     * until {@link #unlock()} wakes it. One waiter at a time parks that way; a further concurrent
     * waiter (rare: three threads on one operation) polls with parks of {@value #POLL_NANOS} ns.
     */
    @SuppressWarnings("ThreadPriorityCheck") // a bounded yield before parking, not a wait on the scheduler
    @Override
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
    @Override
    final boolean isHeldByCurrentThread() {
        return owner >>> HOLD_BITS == Thread.currentThread().getId();
    }

    /**
     * Takes the lock if it is free or already held by this thread.
     *
     * @throws IllegalMonitorStateException if this thread already holds it 65,535 times
     */
    @Override
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
    @Override
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
}

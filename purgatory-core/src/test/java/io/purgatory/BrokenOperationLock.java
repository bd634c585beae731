package io.purgatory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A deliberately broken copy of {@link DelayedOperation}'s lock, for {@link OperationLockLincheckTest}:
 * each {@link Bug} is one change from the original, and the model check must catch it. Everything
 * else is as in the original.
 *
 * <p>Not thread-safe in the way the original is: that is the point.
 */
final class BrokenOperationLock implements OperationLockLincheckTest.Lock {

    /** What is broken. */
    enum Bug {
        /**
         * {@code unlock} reads {@code waiter} <em>before</em> it frees {@code owner}, the Dekker pair
         * reordered: a waiter that publishes itself and reads {@code owner} between those two steps
         * parks, and the unlocker, holding a stale null, never wakes it.
         */
        READS_WAITER_BEFORE_FREEING,
        /**
         * A thread that finds the {@code waiter} slot taken clears it after its timed poll, as if the
         * slot were its own: the thread parked in the slot is forgotten, and the unlock that should
         * wake it finds nobody. Only a third concurrent thread reaches it.
         */
        POLLER_CLEARS_THE_SLOT
    }

    private static final VarHandle OWNER;
    private static final VarHandle WAITER;
    private static final long FREE = 0L;
    private static final long POLL_NANOS = 100_000L;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WAITER = lookup.findVarHandle(BrokenOperationLock.class, "waiter", Thread.class);
            OWNER = lookup.findVarHandle(BrokenOperationLock.class, "owner", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Bug bug;
    private volatile long owner;
    private int holds;
    private volatile Thread waiter;

    BrokenOperationLock(Bug bug) {
        this.bug = bug;
    }

    @Override
    public void lock() {
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

    @Override
    public void lockParked() {
        while (!tryLock()) {
            if (!parkForUnlock()) {
                LockSupport.parkNanos(this, POLL_NANOS);
                if (bug == Bug.POLLER_CLEARS_THE_SLOT) {
                    waiter = null; // the bug: the slot is another thread's
                }
            }
        }
    }

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

    @Override
    public boolean tryLock() {
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

    @Override
    public void unlock() {
        if (owner != Thread.currentThread().getId()) {
            throw new IllegalMonitorStateException("not held by " + Thread.currentThread().getName());
        }
        if (--holds == 0) {
            if (bug == Bug.READS_WAITER_BEFORE_FREEING) {
                Thread parked = waiter; // the bug: read before the release below, so a waiter arriving in between is missed
                owner = FREE;
                if (parked != null) {
                    LockSupport.unpark(parked);
                }
                return;
            }
            owner = FREE;
            Thread parked = waiter;
            if (parked != null) {
                LockSupport.unpark(parked);
            }
        }
    }
}

package io.purgatory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A deliberately broken copy of {@link DelayedOperation}'s lock, for {@link OperationLockLincheckTest}:
 * its {@code unlock} reads {@code waiter} <em>before</em> it frees {@code owner}, the Dekker pair
 * reordered. A waiter that publishes itself and reads {@code owner} between those two steps parks,
 * and the unlocker, holding a stale null, never wakes it. Everything else is as in the original.
 *
 * <p>Not thread-safe in the way the original is: that is the point.
 */
final class DekkerReorderedLock implements OperationLockLincheckTest.Lock {

    private static final VarHandle OWNER;
    private static final VarHandle WAITER;
    private static final long FREE = 0L;
    private static final long POLL_NANOS = 100_000L;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            WAITER = lookup.findVarHandle(DekkerReorderedLock.class, "waiter", Thread.class);
            OWNER = lookup.findVarHandle(DekkerReorderedLock.class, "owner", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long owner;
    private int holds;
    private volatile Thread waiter;

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
            parkForUnlock();
        }
    }

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
            Thread parked = waiter; // the bug: read before the release below, so a waiter arriving in between is missed
            owner = FREE;
            if (parked != null) {
                LockSupport.unpark(parked);
            }
        }
    }
}

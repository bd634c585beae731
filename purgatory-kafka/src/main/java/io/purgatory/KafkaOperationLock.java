package io.purgatory;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Kafka's {@code ReentrantLock} of one operation ({@code DelayedOperation.lock}, on every Kafka line: 4.0 declares it a
 * {@code Lock}, 4.1 and later a {@code ReentrantLock}), as a view of the operation's own lock (core's,
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
public final class KafkaOperationLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;
    private static final sun.misc.Unsafe UNSAFE = unsafe();

    /** The operation whose lock this is. */
    private transient KafkaTaskState operation;

    private KafkaOperationLock() {
        throw new AssertionError("made by of(), without ReentrantLock's constructor");
    }

    /** The lock of {@code operation}, which must be a Kafka {@code DelayedOperation} under construction. */
    public static KafkaOperationLock of(KafkaTaskState operation) {
        KafkaOperationLock lock;
        try {
            lock = (KafkaOperationLock) UNSAFE.allocateInstance(KafkaOperationLock.class);
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

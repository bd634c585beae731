package io.purgatory.internal;

import org.jspecify.annotations.Nullable;

/**
 * <strong>Not for applications.</strong> The purgatory's hands on an {@link OperationState}: its
 * lock, its completion, the try, and the fields the purgatory links it by, for
 * {@code io.purgatory} (and, through the doors it registers, purgatory-kafka's bridge). Static
 * methods of a class outside the operation's hierarchy, so that no subclass (a user's operation)
 * inherits, sees or overrides them; each is one call or one field access, which the JIT inlines.
 *
 * <p>Thread-safety: that of {@link OperationState}: the lock and the try from any thread; the
 * link fields under the operation's lock, {@code firstSlot} under its first list's monitor.
 */
public final class OperationStates {

    private OperationStates() {
    }

    /** How the operation completed (what the purgatory stored), or null while it has not. */
    public static @Nullable Object completion(OperationState op) {
        return op.completion();
    }

    /** Stores how the operation completed: once, under its lock. */
    public static void completeAs(OperationState op, Object how) {
        op.completeAs(how);
    }

    /** The try, unless another thread holds the lock (which is then told to retry); true if this call completed it. */
    public static boolean maybeTryComplete(OperationState op, TryHook hook) {
        return op.maybeTryComplete(hook);
    }

    /** After releasing the lock taken by hand: runs the try once more if a retry is pending; true if that completed it. */
    public static boolean retryIfPending(OperationState op, TryHook hook) {
        return op.retryIfPending(hook);
    }

    /** Takes the operation's lock, waiting as long as it takes. */
    public static void lock(OperationState op) {
        op.lock();
    }

    /** The slow path of {@link #lock}: parks until the holder releases the lock. For the model checks. */
    public static void lockParked(OperationState op) {
        op.lockParked();
    }

    /** Takes the lock if it is free or held by this thread; never waits. */
    public static boolean tryLock(OperationState op) {
        return op.tryLock();
    }

    /**
     * Takes the lock, waiting at most {@code timeoutNanos} ({@code Long.MAX_VALUE}: no limit).
     *
     * @return false if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while it waits
     */
    public static boolean lockInterruptibly(OperationState op, long timeoutNanos) throws InterruptedException {
        return op.lockInterruptibly(timeoutNanos);
    }

    /** Releases one hold; throws {@code IllegalMonitorStateException} if this thread holds none. */
    public static void unlock(OperationState op) {
        op.unlock();
    }

    /** True if this thread holds the lock. */
    public static boolean isHeldByCurrentThread(OperationState op) {
        return op.isHeldByCurrentThread();
    }

    /** How many times this thread holds the lock: 0 if it does not. */
    public static int holdCount(OperationState op) {
        return op.holdCount();
    }

    /** True if some thread holds the lock. */
    public static boolean isLocked(OperationState op) {
        return op.isLocked();
    }

    /** The purgatory the operation was offered to, or null; under its lock. */
    public static @Nullable Object purgatory(OperationState op) {
        return op.purgatory;
    }

    /** Sets the purgatory the operation was offered to; under its lock. */
    public static void purgatory(OperationState op, @Nullable Object purgatory) {
        op.purgatory = purgatory;
    }

    /** The list of the operation's first key, where it is its own entry, or null; under its lock. */
    public static @Nullable Object firstList(OperationState op) {
        return op.firstList;
    }

    /** Sets the list of the operation's first key; under the list's monitor. */
    public static void firstList(OperationState op, @Nullable Object list) {
        op.firstList = list;
    }

    /** The operation's slot in its first key's list. */
    public static int firstSlot(OperationState op) {
        return op.firstSlot;
    }

    /** Sets the operation's slot in its first key's list; under the list's monitor. */
    public static void firstSlot(OperationState op, int slot) {
        op.firstSlot = slot;
    }

    /** The head of the operation's other watches, or null; under its lock. */
    public static @Nullable Object watches(OperationState op) {
        return op.watches;
    }

    /** Sets the head of the operation's other watches; under its lock. */
    public static void watches(OperationState op, @Nullable Object head) {
        op.watches = head;
    }
}

package io.purgatory;

import org.jspecify.annotations.Nullable;
import io.purgatory.timer.Timer;
import io.purgatory.internal.ForeignOperations;
import io.purgatory.internal.NodeControl;
import io.purgatory.internal.Secrets;
import io.purgatory.timer.TimerNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The state the purgatory keeps in every operation it parks, in the operation itself: how it
 * completed, its first watch-list entry, its other watches, and (as a {@link TimerNode}) its own
 * expiry in the timer's wheel. So a parked operation is one object, plus one {@link Watch} per key
 * after the first.
 *
 * <p><strong>Not for applications:</strong> extend {@link DelayedOperation}, its public face. This
 * class is public only so that a class which cannot extend {@code DelayedOperation} can carry the
 * state too: Kafka's own {@code TimerTask}, which Kafka's {@code DelayedOperation} extends, does so
 * through purgatory-kafka's bridge. Nothing here is public or protected but the constructor. The
 * hooks a subclass implements ({@link #tryCompleteHook}, {@link #onCompleteHook},
 * {@link #onExpirationHook}, {@link #expiryDelayMs}) are package-private: {@code DelayedOperation}
 * overrides them; for any other class they go to the {@code ForeignOperations} the bridge registers
 * in {@code io.purgatory.internal}, which also hands the bridge the lock and the node's scheduling
 * ({@code StateControl}, implemented by {@code OperationDoors}). The timer runs and cancels the
 * expiry through the {@code NodeOwner} registered there, never through a method of the operation:
 * no public or protected method of a subclass can run, cancel or add an operation's expiry.
 *
 * <h2>Exactly once</h2>
 * Completion happens under the lock and sets the completion from null to how it completed, once:
 * whichever path gets there first wins; the losers do nothing. The winner cancels the expiry, then
 * runs {@code onCompleteHook()} once. On expiry {@code onExpirationHook()} runs after it, with the
 * lock released. Because the try and the completion both run under the lock, they never run at the
 * same time for one operation (KAFKA-19312).
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. The operation's lock (which Error Prone's {@code @GuardedBy} cannot check: the methods
 * that rely on it assert {@link #isHeldByCurrentThread()}) guards {@code purgatory},
 * {@code firstList}, {@code watches} and the writing of {@code completion} (which carries a
 * cancellation's reason), and is held while the try and the completion hooks run; {@code completion}
 * is volatile; {@code retryPending} is an atomic flag read and written without the lock (see
 * {@link #maybeTryComplete()}); {@code firstSlot} is written under {@code firstList}'s monitor, before the array it indexes is
 * published (see {@link WatchList#clear}).
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

    /** Adds and cancels the expiries of operations: the timer's control of the nodes that are not its own tasks. */
    private static final NodeControl<TimerNode, Timer> EXPIRY;
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
        EXPIRY = Secrets.nodeControl(); // TimerNode, the superclass, registered it when it was loaded
        OperationDoors doors = new OperationDoors();
        Secrets.registerNodeOwner(doors);
        Secrets.registerStateControl(doors);
    }

    /**
     * How the operation completed: null until it has, then a {@link Completion}, or a
     * {@link CancelledFor} holding the reason of a cancellation given one (the one case that
     * allocates, so that no operation carries a reason field). Written once, under the lock, with a
     * release store; read as a volatile.
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
    private @Nullable OperationHost purgatory;
    /** The list of the first key watched, where this operation is its own entry, or null. Guarded by lock. */
    private @Nullable OperationList firstList;
    /** This operation's slot in {@code firstList}. Written under {@code firstList}'s monitor, read by its {@code clear} without it. */
    private int firstSlot;
    /** Head of the watches for the keys other than the first (for every key, with positions), linked through {@link Watch#sibling}. Guarded by lock. */
    private @Nullable Watch watches;

    /** For {@link DelayedOperation}, and for purgatory-kafka's bridge. */
    protected OperationState() {
    }

    // --- the hooks a subclass implements: DelayedOperation overrides them, a bridge's registered hooks serve the others ---

    /**
     * Checks whether the operation can complete now; if so, completes it ({@link #complete}) and
     * returns that call's result. Called under the lock; what it throws counts as false.
     */
    boolean tryCompleteHook() {
        return foreign().tryComplete(this);
    }

    /** Runs exactly once, under the lock, on whichever path completed the operation. */
    void onCompleteHook() {
        foreign().onComplete(this);
    }

    /** Runs after {@link #onCompleteHook()} when the operation completed by expiring; the lock is released. */
    void onExpirationHook() {
        foreign().onExpiration(this);
    }

    /** How long after it is parked the operation expires, in milliseconds. */
    long expiryDelayMs() {
        return foreign().delayMs(this);
    }

    /**
     * The timer the operation's expiry was added to: its purgatory's. A bridge's object that was
     * never offered to a purgatory and was added to a timer directly (Kafka's plain {@code TimerTask})
     * gives the timer its hooks keep.
     */
    final @Nullable Timer expiryTimer() {
        OperationHost p = purgatory;
        if (p != null) {
            return p.timer();
        }
        ForeignOperations<OperationState, Timer> f = Secrets.foreignOperations();
        return f != null && f.owns(this) ? f.timer(this) : null;
    }

    /**
     * What the timer does when the operation's expiry is due, on its expiry thread: expires it
     * ({@link Completion#EXPIRED}). A bridge's state runs its own expiry instead (Kafka's
     * {@code run()}, which completes it through the operation's own {@code forceComplete()}), offered
     * to a purgatory or not.
     *
     * @throws IllegalStateException if the expiry has not expired
     */
    final void expiryDue() {
        if (!EXPIRY.isExpired(this)) {
            throw new IllegalStateException("not expired: " + this);
        }
        ForeignOperations<OperationState, Timer> f = Secrets.foreignOperations();
        if (f != null && f.owns(this)) {
            f.runDue(this);
        } else {
            expire(Completion.EXPIRED);
        }
    }

    private ForeignOperations<OperationState, Timer> foreign() {
        ForeignOperations<OperationState, Timer> f = Secrets.foreignOperations();
        if (f == null || !f.owns(this)) {
            throw new IllegalStateException("an operation state that is neither a DelayedOperation nor a registered bridge's: " + getClass().getName());
        }
        return f;
    }

    // --- completion ---

    /** True once the operation has completed, on any path. */
    final boolean isDone() {
        return completion != null;
    }

    /** How the operation completed, or null while it has not. */
    final @Nullable Completion completedAs() {
        Object c = completion;
        return c instanceof CancelledFor ? Completion.CANCELLED : (Completion) c;
    }

    /** The reason given to the cancellation that completed the operation, or null. */
    final @Nullable Object reasonGiven() {
        return completion instanceof CancelledFor cancelled ? cancelled.reason() : null;
    }

    /** Whether the purgatory counts this operation as delayed: it is linked into some list. Under the lock. */
    final boolean isWatching() {
        return firstList != null || watches != null;
    }

    // --- what the purgatory and the watch lists do to the state, from above ---

    /**
     * Marks the operation offered to {@code host}, under the lock, unless it has completed already.
     *
     * @return false if it had completed (it is then not marked)
     * @throws IllegalStateException if it was offered before, to any purgatory
     */
    final boolean offerTo(OperationHost host) {
        assert isHeldByCurrentThread();
        OperationHost p = purgatory;
        if (p != null) {
            throw new IllegalStateException("operation already offered to purgatory " + p.name() + ": " + this);
        }
        if (isDone()) {
            return false;
        }
        purgatory = host;
        return true;
    }

    /** The operation became the entry at {@code slot} of its first key's {@code list}; under the list's monitor. */
    final void enteredFirst(OperationList list, int slot) {
        firstList = list;
        firstSlot = slot;
    }

    /** Its first key's list moved its entry to {@code slot} (a compaction); under the list's monitor. */
    final void movedFirst(int slot) {
        firstSlot = slot;
    }

    /** The slot of the operation's entry in its first key's list. */
    final int firstSlot() {
        return firstSlot;
    }

    /** The operation watches its other keys through {@code head}, linked through {@link Watch#sibling}; under the lock. */
    final void watchOthers(@Nullable Watch head) {
        assert isHeldByCurrentThread();
        watches = head;
    }

    /**
     * Turns every entry of the operation into a tombstone, under the lock; the caller counts them
     * and stops counting the operation as delayed.
     *
     * @return the tombstones left in the lists (those of a position index are the index's own), or
     *     -1 if the operation was not watching
     */
    final int unwatch() {
        assert isHeldByCurrentThread();
        if (!isWatching()) {
            return -1;
        }
        int released = 0;
        OperationList first = firstList;
        if (first != null) {
            first.clear(this);
            firstList = null;
            released++;
        }
        for (Watch w = watches; w != null; w = w.sibling) {
            released += w.release();
        }
        watches = null;
        return released;
    }

    /**
     * Completes the operation as {@code how}, with {@code reason} for a cancellation, if it has not
     * completed yet: cancels its expiry, unlinks and counts it in its purgatory, then runs
     * {@link #onCompleteHook()} under the lock. Counted first, so that whoever {@code onComplete}
     * answers sees it counted (outside a walk; a walk adds its completions when it returns).
     *
     * @return true if this call completed it
     */
    final boolean complete(Completion how, @Nullable Object reason) {
        if (completion != null) {
            return false;
        }
        lock();
        try {
            if (completion != null) {
                return false;
            }
            // a release store, not a volatile one: the lock's release after it is the fence that the
            // retry protocol needs (maybeTryComplete), so a completion pays for one fence, not two
            COMPLETION.setRelease(this, reason != null && how == Completion.CANCELLED ? new CancelledFor(reason) : how);
            EXPIRY.cancel(this);
            OperationHost p = purgatory;
            if (p != null) {
                p.completed(this, how);
            }
            onCompleteHook();
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
     * <p>Not re-entrant: if this thread holds the lock already (a walk nested in this operation's
     * own {@code tryComplete} or {@code onComplete}), it returns false without trying. The operation
     * is being tried, or has completed, on this thread already; trying it again would recurse
     * through the same {@code tryComplete} until the stack overflows. A retry another thread asked
     * for stays pending, for the holder to honour once it has released the lock.
     *
     * @return true if this call completed the operation
     */
    final boolean maybeTryComplete() {
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
                    done = completion == null && tryCompleteHook();
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

    /** After releasing the lock from outside {@link #maybeTryComplete()}: honours a pending retry. */
    final boolean retryIfPending() {
        return retryPending && maybeTryComplete();
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

    /** The completion of an operation cancelled with a reason. Immutable. */
    private record CancelledFor(Object reason) {
    }
}

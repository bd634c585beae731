package io.purgatory;

import io.purgatory.internal.ForeignOperations;
import io.purgatory.internal.NodeControl;
import io.purgatory.internal.OperationState;
import io.purgatory.internal.OperationStates;
import io.purgatory.internal.Secrets;
import io.purgatory.internal.TimerNode;
import io.purgatory.internal.TryHook;
import io.purgatory.timer.SystemTimer;
import io.purgatory.timer.Timer;
import java.lang.invoke.MethodHandles;
import org.jspecify.annotations.Nullable;

/**
 * What an operation's state means, and what the purgatory and the watch lists do to it: the
 * lowest room of {@code io.purgatory}. The state itself (its lock, its completion, the fields it is
 * linked by) is an {@link OperationState}, in the internal package, which every operation extends
 * (a user's through {@link DelayedOperation}, Kafka's through purgatory-kafka's bridge); these static
 * methods work on it through {@link OperationStates}, so that no operation has a method a subclass
 * could see, call or override.
 *
 * <p>The hooks: an operation's {@code tryComplete}, {@code onComplete}, {@code onExpiration} and
 * delay are {@link DelayedOperation}'s abstract methods, or, for a state of any other class, those
 * of the {@link ForeignOperations} that purgatory-kafka's bridge registers in the internal package.
 * The timer runs and cancels an operation's expiry (the operation is its own {@link TimerNode})
 * through the {@link NodeControl} the timer package registers, and this room's doors
 * ({@link OperationDoors}) are the owner the timer runs it through: no public or protected method of
 * a subclass can run, cancel or add an operation's expiry.
 *
 * <h2>Exactly once</h2>
 * Completion happens under the lock and sets the completion from null to how it completed, once:
 * whichever path gets there first wins; the losers do nothing. The winner cancels the expiry, then
 * runs {@code onComplete} once. On expiry {@code onExpiration} runs after it, with the lock
 * released. Because the try and the completion both run under the lock, they never run at the same
 * time for one operation (KAFKA-19312).
 *
 * <p>Thread-safety: stateless; each method is thread-safe as the state's lock makes it (see
 * {@link OperationState}); those that say so are called under the operation's lock, and assert it.
 */
final class Operations {

    /** Adds and cancels the expiries of operations: the timer's control of the nodes that are not its own tasks. */
    private static final NodeControl<TimerNode, Timer> EXPIRY;
    /** The try, as the state's {@code maybeTryComplete} calls it. */
    private static final TryHook TRY = Operations::tryComplete;

    static {
        try { // the timer package registers its control of foreign nodes when its timers' base class is initialized
            MethodHandles.lookup().ensureInitialized(SystemTimer.class);
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
        EXPIRY = Secrets.nodeControl();
    }

    private Operations() {
    }

    // --- the hooks: DelayedOperation's methods, or a registered bridge's ---

    /**
     * Checks whether the operation can complete now; if so, completes it and returns that call's
     * result. Called under the lock; what it throws counts as false.
     */
    static boolean tryComplete(OperationState op) {
        return op instanceof DelayedOperation d ? d.tryComplete() : foreign(op).tryComplete(op);
    }

    /** Runs exactly once, under the lock, on whichever path completed the operation. */
    private static void onComplete(OperationState op) {
        if (op instanceof DelayedOperation d) {
            d.onComplete();
        } else {
            foreign(op).onComplete(op);
        }
    }

    /** Runs after {@link #onComplete} when the operation completed by expiring; the lock is released. */
    private static void onExpiration(OperationState op) {
        if (op instanceof DelayedOperation d) {
            d.onExpiration();
        } else {
            foreign(op).onExpiration(op);
        }
    }

    /** How long after it is parked the operation expires, in milliseconds. */
    static long delayMs(OperationState op) {
        return op instanceof DelayedOperation d ? d.delayMs() : foreign(op).delayMs(op);
    }

    /**
     * The timer the operation's expiry was added to: its purgatory's. A bridge's object that was
     * never offered to a purgatory and was added to a timer directly (Kafka's plain {@code TimerTask})
     * gives the timer its hooks keep.
     */
    static @Nullable Timer expiryTimer(OperationState op) {
        OperationHost p = host(op);
        if (p != null) {
            return p.timer();
        }
        ForeignOperations<OperationState, Timer> f = Secrets.foreignOperations();
        return f != null && f.owns(op) ? f.timer(op) : null;
    }

    /**
     * What the timer does when the operation's expiry is due, on its expiry thread: expires it
     * ({@link Completion#EXPIRED}). A bridge's state runs its own expiry instead (Kafka's
     * {@code run()}, which completes it through the operation's own {@code forceComplete()}), offered
     * to a purgatory or not.
     *
     * @throws IllegalStateException if the expiry has not expired
     */
    static void expiryDue(OperationState op) {
        if (!EXPIRY.isExpired(op)) {
            throw new IllegalStateException("not expired: " + op);
        }
        ForeignOperations<OperationState, Timer> f = Secrets.foreignOperations();
        if (f != null && f.owns(op)) {
            f.runDue(op);
        } else {
            expire(op, Completion.EXPIRED);
        }
    }

    private static ForeignOperations<OperationState, Timer> foreign(OperationState op) {
        ForeignOperations<OperationState, Timer> f = Secrets.foreignOperations();
        if (f == null || !f.owns(op)) {
            throw new IllegalStateException("an operation state that is neither a DelayedOperation nor a registered bridge's: " + op.getClass().getName());
        }
        return f;
    }

    // --- completion ---

    /** True once the operation has completed, on any path. */
    static boolean isDone(OperationState op) {
        return OperationStates.completion(op) != null;
    }

    /** How the operation completed, or null while it has not. */
    static @Nullable Completion completedAs(OperationState op) {
        Object c = OperationStates.completion(op);
        return c instanceof CancelledFor ? Completion.CANCELLED : (Completion) c;
    }

    /** The reason given to the cancellation that completed the operation, or null. */
    static @Nullable Object reasonGiven(OperationState op) {
        return OperationStates.completion(op) instanceof CancelledFor cancelled ? cancelled.reason() : null;
    }

    /** Whether the purgatory counts this operation as delayed: it is linked into some list. Under the lock. */
    static boolean isWatching(OperationState op) {
        return OperationStates.firstList(op) != null || OperationStates.watches(op) != null;
    }

    // --- what the purgatory and the watch lists do to the state, from above ---

    private static @Nullable OperationHost host(OperationState op) {
        return (OperationHost) OperationStates.purgatory(op);
    }

    /**
     * Marks the operation offered to {@code host}, under the lock, unless it has completed already.
     *
     * @return false if it had completed (it is then not marked)
     * @throws IllegalStateException if it was offered before, to any purgatory
     */
    static boolean offerTo(OperationState op, OperationHost host) {
        assert OperationStates.isHeldByCurrentThread(op);
        OperationHost p = host(op);
        if (p != null) {
            throw new IllegalStateException("operation already offered to purgatory " + p.name() + ": " + op);
        }
        if (isDone(op)) {
            return false;
        }
        OperationStates.purgatory(op, host);
        return true;
    }

    /** The operation became the entry at {@code slot} of its first key's {@code list}; under the list's monitor. */
    static void enteredFirst(OperationState op, OperationList list, int slot) {
        OperationStates.firstList(op, list);
        OperationStates.firstSlot(op, slot);
    }

    /** Its first key's list moved its entry to {@code slot} (a compaction); under the list's monitor. */
    static void movedFirst(OperationState op, int slot) {
        OperationStates.firstSlot(op, slot);
    }

    /** The slot of the operation's entry in its first key's list. */
    static int firstSlot(OperationState op) {
        return OperationStates.firstSlot(op);
    }

    /** The operation watches its other keys through {@code head}, linked through {@link Watch#sibling}; under the lock. */
    static void watchOthers(OperationState op, @Nullable Watch head) {
        assert OperationStates.isHeldByCurrentThread(op);
        OperationStates.watches(op, head);
    }

    /**
     * Turns every entry of the operation into a tombstone, under the lock; the caller counts them
     * and stops counting the operation as delayed.
     *
     * @return the tombstones left in the lists (those of a position index are the index's own), or
     *     -1 if the operation was not watching
     */
    static int unwatch(OperationState op) {
        assert OperationStates.isHeldByCurrentThread(op);
        if (!isWatching(op)) {
            return -1;
        }
        int released = 0;
        OperationList first = (OperationList) OperationStates.firstList(op);
        if (first != null) {
            first.clear(op);
            OperationStates.firstList(op, null);
            released++;
        }
        for (Watch w = (Watch) OperationStates.watches(op); w != null; w = w.sibling) {
            released += w.release();
        }
        OperationStates.watches(op, null);
        return released;
    }

    /**
     * Completes the operation as {@code how}, with {@code reason} for a cancellation, if it has not
     * completed yet: cancels its expiry, unlinks and counts it in its purgatory, then runs
     * {@code onComplete} under the lock. Counted first, so that whoever {@code onComplete}
     * answers sees it counted (outside a walk; a walk adds its completions when it returns).
     *
     * @return true if this call completed it
     */
    static boolean complete(OperationState op, Completion how, @Nullable Object reason) {
        if (OperationStates.completion(op) != null) {
            return false;
        }
        OperationStates.lock(op);
        try {
            if (OperationStates.completion(op) != null) {
                return false;
            }
            OperationStates.completeAs(op, reason != null && how == Completion.CANCELLED ? new CancelledFor(reason) : how);
            EXPIRY.cancel(op);
            OperationHost p = host(op);
            if (p != null) {
                p.completed(op, how);
            }
            onComplete(op);
            return true;
        } finally {
            OperationStates.unlock(op);
        }
    }

    /**
     * Completes the operation by expiring: {@code onComplete}, then {@code onExpiration}, which runs
     * even if the first threw (the operation is expired all the same; the first exception is
     * rethrown after, the second suppressed in it).
     *
     * @param how {@link Completion#EXPIRED} when the timer expired it (its lateness is recorded),
     *     {@link Completion#CLOSED} when a closing purgatory expires it early
     * @return true if this call completed it
     */
    static boolean expire(OperationState op, Completion how) {
        Throwable failure = null;
        try {
            if (!complete(op, how, null)) {
                return false;
            }
        } catch (RuntimeException | Error e) {
            failure = e; // only the call that completes the operation runs onComplete: this one did
        }
        try {
            onExpiration(op);
        } catch (RuntimeException | Error e) {
            failure = Attempts.first(failure, e);
        }
        Attempts.rethrow(failure);
        return true;
    }

    // --- the expiry, which is the operation as a timer node ---

    /**
     * Adds the operation's expiry to {@code timer}, due {@code delayMs} from now; an operation
     * completed before has cancelled it, so the add does nothing.
     *
     * @throws IllegalStateException if it was added before, or the timer is closed
     */
    static void scheduleExpiry(OperationState op, Timer timer, long delayMs) {
        EXPIRY.add(timer, op, delayMs);
    }

    /**
     * Takes the expiry off its timer without completing the operation: for a bridge whose public
     * API has that (Kafka's {@code TimerTask.cancel()}), and for the purgatory's
     * {@link DelayedOperationPurgatory#withdrawForKey}. Nothing public of this library calls it.
     *
     * @return true if this call cancelled the expiry
     */
    static boolean cancelExpiry(OperationState op) {
        return EXPIRY.cancel(op);
    }

    /** True once the expiry was cancelled: by completion, or by {@link #cancelExpiry}. */
    static boolean isExpiryCancelled(OperationState op) {
        return EXPIRY.isCancelled(op);
    }

    /** The deadline of the expiry, in ms on its timer's clock; {@code Long.MAX_VALUE} before it is scheduled. */
    static long deadlineMs(OperationState op) {
        return EXPIRY.deadlineMs(op);
    }

    // --- the try ---

    /**
     * Tries the operation unless another thread holds its lock, which is then told to retry
     * (Kafka's {@code maybeTryComplete}; see {@link OperationState}): never blocks, loses no
     * condition change, and skips an operation this thread is trying or completing already.
     *
     * @return true if this call completed the operation
     */
    static boolean maybeTryComplete(OperationState op) {
        return OperationStates.maybeTryComplete(op, TRY);
    }

    /** After releasing the lock from outside {@link #maybeTryComplete}: honours a pending retry. */
    static boolean retryIfPending(OperationState op) {
        return OperationStates.retryIfPending(op, TRY);
    }

    /** The completion of an operation cancelled with a reason. Immutable. */
    private record CancelledFor(Object reason) {
    }
}

package io.purgatory.internal;

import java.util.Collection;
import java.util.List;

/**
 * The core operation state's machinery that {@code purgatory-kafka}'s bridge builds Kafka's
 * {@code TimerTask} and {@code DelayedOperation} on: the built-in lock, completion, the node's
 * scheduling, and a purgatory of such states. Implemented by {@code io.purgatory}; taken from
 * {@link Secrets#stateControl()}. Not for applications.
 *
 * <p>Thread-safe: each call is that of the operation state (see its class comment).
 *
 * @param <S> the operation state type ({@link OperationState})
 * @param <P> the purgatory type ({@code DelayedOperationPurgatory})
 * @param <T> the timer type ({@code Timer})
 */
public interface StateControl<S, P, T> {

    /** Takes the state's lock, waiting as long as it takes. */
    void lock(S state);

    /** Takes the lock if it is free or held by this thread; never waits. */
    boolean tryLock(S state);

    /**
     * Takes the lock, waiting at most {@code timeoutNanos} ({@code Long.MAX_VALUE}: no limit).
     *
     * @return false if the time ran out first
     * @throws InterruptedException if the thread is interrupted before or while it waits
     */
    boolean lockInterruptibly(S state, long timeoutNanos) throws InterruptedException;

    /** Releases one hold; throws {@code IllegalMonitorStateException} if this thread holds none. */
    void unlock(S state);

    /** How many times this thread holds the lock. */
    int holdCount(S state);

    /** True if some thread holds the lock. */
    boolean isLocked(S state);

    /**
     * Completes the operation if nothing did yet: as expired when {@code expired} (the bridge's own
     * expiry completes it, on its expiry thread; its lateness is recorded), as completed otherwise.
     * True if this call did.
     */
    boolean complete(S state, boolean expired);

    /** After releasing the lock taken by hand: runs the try once more if a retry is pending; true if that completed it. */
    boolean retryIfPending(S state);

    /** How the operation completed (a {@code Completion}), or null while it has not. */
    @org.jspecify.annotations.Nullable Object completion(S state);

    /** True while the state's node was never scheduled nor cancelled. */
    boolean nodeUnused(S state);

    /**
     * Schedules the state's node on {@code timer}, due {@code delayMs} from now, for a state that is
     * a plain timer task (never offered to a purgatory).
     *
     * @throws IllegalStateException if the node was used before, or the timer is closed
     */
    void schedule(S state, T timer, long delayMs);

    /** Takes the node off its timer without completing anything; true if this call cancelled it. */
    boolean cancelNode(S state);

    /** A purgatory of such states, built as the builder builds one. */
    P purgatory(String name, T timer, int purgeInterval, boolean reaperEnabled);

    /**
     * Offers {@code state} to {@code purgatory}, watching {@code keys}: the purgatory's
     * {@code tryCompleteElseWatch}, which takes {@code DelayedOperation}s only.
     *
     * @return true if the operation was answered during this call
     */
    boolean offer(P purgatory, S state, Collection<?> keys);

    /** The key's pending operations, taken off the purgatory and the timer without completing them. */
    List<S> withdraw(P purgatory, Object key);
}

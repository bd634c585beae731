package io.purgatory;

import org.jspecify.annotations.Nullable;

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
 * <p>The operation's lock is {@link OperationState}'s, built in rather than a {@code ReentrantLock}
 * beside it.
 */
public abstract class DelayedOperation extends OperationState {

    /** {@link #delayMs} when the delay is {@code Long.MAX_VALUE}: never. */
    private static final int NEVER = -1;
    /** Bit 31 of {@code delay} set: the delay is in whole seconds (the low 31 bits), rounded up. */
    private static final int IN_SECONDS = Integer.MIN_VALUE;

    /**
     * The delay, in 4 bytes rather than 8 so that a parked operation stays within 64 bytes of
     * machinery: milliseconds up to {@code Integer.MAX_VALUE} (24.8 days) exactly; longer ones in
     * seconds, rounded up (to 68 years); {@link #NEVER} for {@code Long.MAX_VALUE} and anything
     * longer than 68 years.
     */
    private final int delay;

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
}

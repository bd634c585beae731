package io.purgatory;

import java.util.concurrent.CompletableFuture;

/**
 * The future a {@link Waiters} wait returns. Its waiter answers it with {@link #answer}; any other
 * completion (the caller's {@code cancel}, {@code complete}, {@code completeExceptionally}, hence
 * {@code orTimeout} and {@code completeOnTimeout}) cancels the waiter, which leaves the purgatory at
 * once through the operation's own completion ({@link DelayedOperation#cancel()}): it is no longer
 * watched and never expires. Dependent stages are plain {@code CompletableFuture}s.
 *
 * <p>Thread-safe, as {@code CompletableFuture}; {@code waiter} is final.
 */
final class WaiterFuture extends CompletableFuture<WaitOutcome> {

    private final DelayedOperation waiter;

    WaiterFuture(DelayedOperation waiter) {
        this.waiter = waiter;
    }

    /** The waiter's answer: completes the future unless the caller already did. */
    void answer(WaitOutcome outcome) {
        super.complete(outcome);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            waiter.cancel();
        }
        return cancelled;
    }

    @Override
    public boolean complete(WaitOutcome value) {
        boolean completed = super.complete(value);
        if (completed) {
            waiter.cancel();
        }
        return completed;
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        boolean completed = super.completeExceptionally(ex);
        if (completed) {
            waiter.cancel();
        }
        return completed;
    }
}

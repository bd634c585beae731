package io.purgatory;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The future a {@link Waiters} wait returns. Its waiter answers it with {@link #answer}; any other
 * completion cancels the waiter, which leaves the purgatory at once through the operation's own
 * completion ({@link DelayedOperation#cancel()}): it is no longer watched and never expires. Every
 * public way to complete a {@code CompletableFuture} is overridden to do so: {@code cancel},
 * {@code complete}, {@code completeExceptionally}, {@code completeAsync} (whose JDK form completes
 * through a private path), {@code obtrudeValue} and {@code obtrudeException}; {@code orTimeout} and
 * {@code completeOnTimeout} go through {@code completeExceptionally} and {@code complete}.
 * Dependent stages are plain {@code CompletableFuture}s: completing or cancelling one of them does
 * not reach back to this future.
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

    /**
     * Completes this future with the supplier's value, or exceptionally with what it throws (as a
     * {@link CompletionException}, as the JDK's form does), run by {@code executor}; either way the
     * waiter is cancelled.
     */
    @Override
    public CompletableFuture<WaitOutcome> completeAsync(Supplier<? extends WaitOutcome> supplier, Executor executor) {
        return completeAsync(this, supplier, executor);
    }

    /**
     * The JDK's {@code completeAsync} through a future's public {@code complete} and
     * {@code completeExceptionally} (which the JDK's form bypasses), so that an override of those
     * sees it: {@code executor} runs the supplier and completes {@code future} with its value, or
     * exceptionally with what it throws (as a {@link CompletionException}). For {@link HandOffFuture} too.
     */
    static <T> CompletableFuture<T> completeAsync(CompletableFuture<T> future, Supplier<? extends T> supplier, Executor executor) {
        Objects.requireNonNull(supplier, "supplier");
        Objects.requireNonNull(executor, "executor");
        executor.execute(() -> {
            if (future.isDone()) {
                return;
            }
            T value;
            try {
                value = supplier.get();
            } catch (Throwable t) { // as the JDK's AsyncSupply: whatever the supplier throws completes the future
                future.completeExceptionally(t instanceof CompletionException ? t : new CompletionException(t));
                return;
            }
            future.complete(value);
        });
        return future;
    }

    @Override
    public CompletableFuture<WaitOutcome> completeAsync(Supplier<? extends WaitOutcome> supplier) {
        return completeAsync(supplier, defaultExecutor());
    }

    /** Sets the value even if the future was completed; cancels the waiter if it is still waiting. */
    @Override
    public void obtrudeValue(WaitOutcome value) {
        super.obtrudeValue(value);
        waiter.cancel();
    }

    /** Sets the exception even if the future was completed; cancels the waiter if it is still waiting. */
    @Override
    public void obtrudeException(Throwable ex) {
        super.obtrudeException(ex);
        waiter.cancel();
    }
}

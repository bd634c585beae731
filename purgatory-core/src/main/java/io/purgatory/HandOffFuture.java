package io.purgatory;

import io.purgatory.internal.OperationStates;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The future a {@link HandOff} take returns. Its waiter answers it with {@link #answer}. Any other
 * completion (cancel, complete, completeExceptionally, completeAsync, and so orTimeout and
 * completeOnTimeout) first takes the waiter's lock: if the waiter has not completed, it is cancelled
 * and the future completed as asked, in one hold of the lock, so no item can be taken by a waiter
 * whose future is already done; if it has completed (it took an item, timed out or was closed), the
 * call does nothing and returns false, and the future is answered with that outcome (at once, or as
 * soon as the thread that completed the waiter leaves its locks). So an item taken is never dropped
 * by a racing cancel. {@code obtrudeValue} and {@code obtrudeException} would overwrite a taken item:
 * they throw.
 *
 * <p>Thread-safe, as {@code CompletableFuture}; {@code waiter} is final.
 *
 * @param <K> the keys
 * @param <V> the items
 */
final class HandOffFuture<K, V> extends CompletableFuture<Handed<K, V>> {

    private final HandOffWaiter<K, V> waiter;

    HandOffFuture(HandOffWaiter<K, V> waiter) {
        this.waiter = waiter;
    }

    /** The waiter's answer. */
    void answer(Handed<K, V> handed) {
        super.complete(handed);
    }

    /**
     * Runs {@code completion} (a completion of this future) if the waiter has not completed,
     * cancelling the waiter first, under its lock; then unlinks the waiter from its lanes.
     */
    private boolean stopWaiting(BooleanSupplier completion) {
        boolean done;
        OperationStates.lock(waiter);
        try {
            if (waiter.isCompleted()) {
                return false;
            }
            waiter.cancel();
            done = completion.getAsBoolean();
        } finally {
            OperationStates.unlock(waiter);
        }
        waiter.finish();
        return done;
    }

    /**
     * Stops the waiter at once, unless it has completed: then it returns false (or true if the future
     * was cancelled before), and the future is, or is about to be, answered with the waiter's outcome
     * (an item it took is in that answer, not lost).
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return stopWaiting(() -> super.cancel(mayInterruptIfRunning)) || isCancelled();
    }

    @Override
    public boolean complete(Handed<K, V> value) {
        return stopWaiting(() -> super.complete(value));
    }

    @Override
    public boolean completeExceptionally(Throwable ex) {
        Objects.requireNonNull(ex, "ex");
        return stopWaiting(() -> super.completeExceptionally(ex));
    }

    @Override
    public CompletableFuture<Handed<K, V>> completeAsync(Supplier<? extends Handed<K, V>> supplier, Executor executor) {
        return WaiterFuture.completeAsync(this, supplier, executor);
    }

    @Override
    public CompletableFuture<Handed<K, V>> completeAsync(Supplier<? extends Handed<K, V>> supplier) {
        return completeAsync(supplier, defaultExecutor());
    }

    /** Not supported: it would overwrite an item taken. */
    @Override
    public void obtrudeValue(Handed<K, V> value) {
        throw new UnsupportedOperationException("a hand-off's future cannot be obtruded: it may hold an item taken");
    }

    /** Not supported: it would overwrite an item taken. */
    @Override
    public void obtrudeException(Throwable ex) {
        throw new UnsupportedOperationException("a hand-off's future cannot be obtruded: it may hold an item taken");
    }
}

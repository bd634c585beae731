package io.purgatory;

import io.purgatory.internal.OperationState;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of one call that tries or cancels several operations: how many it completed, and the
 * first exception user code threw (later ones are added to it as suppressed). Every operation of
 * the call is tried whatever the others throw, and {@link #result()} rethrows once all were, so one
 * faulty {@code tryComplete} or {@code onComplete} never leaves its neighbours untried.
 *
 * <p>Not thread-safe: one per call, confined to the calling thread.
 */
final class Attempts {

    private int completed;
    /** A RuntimeException or an Error: the only throwables collected (user code throws no checked ones). */
    private @Nullable Throwable failure;

    /** Retries op (see {@link Operations#maybeTryComplete}); true if this attempt completed it. */
    boolean retry(OperationState op) {
        try {
            if (Operations.maybeTryComplete(op)) {
                completed++;
                return true;
            }
        } catch (RuntimeException | Error e) {
            failed(e);
        }
        return false;
    }

    /** Cancels op with {@code reason} (see {@link DelayedOperation#cancel(Object)}). */
    void cancel(OperationState op, @Nullable Object reason) {
        try {
            if (Operations.complete(op, Completion.CANCELLED, reason)) {
                completed++;
            }
        } catch (RuntimeException | Error e) {
            failed(e);
        }
    }

    /** Keeps e to rethrow: as the failure if it is the first, else suppressed in the first. */
    void failed(Throwable e) {
        failure = first(failure, e);
    }

    /**
     * @return how many operations the call completed
     * @throws RuntimeException or Error: the first one user code threw, if any
     */
    int result() {
        rethrow(failure);
        return completed;
    }

    /** {@code first}, with {@code next} suppressed in it; {@code next} if there is no first. */
    static @Nullable Throwable first(@Nullable Throwable first, Throwable next) {
        if (first == null) {
            return next;
        }
        if (first != next) {
            first.addSuppressed(next);
        }
        return first;
    }

    /** Throws {@code failure} (a RuntimeException or an Error) if it is not null. */
    static void rethrow(@Nullable Throwable failure) {
        if (failure instanceof Error error) {
            throw error;
        }
        if (failure != null) {
            throw (RuntimeException) failure;
        }
    }
}

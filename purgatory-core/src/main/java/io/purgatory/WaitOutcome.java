package io.purgatory;

/**
 * How a wait of {@link Waiters} ended. Every wait ends exactly once, with one of these; none of the
 * ordinary endings is an exception. Immutable, hence thread-safe.
 */
public enum WaitOutcome {

    /**
     * What was waited for happened: the key's position reached the one waited for
     * ({@link Waiters#waitFor}, {@link Waiters#await}), or every future given to
     * {@link Waiters#waitForAll} completed.
     */
    REACHED,

    /** The timeout passed first. */
    TIMED_OUT,

    /** The waiters were closed (or were already closed when the wait began). */
    CLOSED,

    /**
     * The wait was cancelled: by {@link Waiters#cancel(Object)} for its key. A future that the
     * caller cancels holds no outcome (it is cancelled); its waiter leaves the purgatory all the same.
     */
    CANCELLED;

    /** The outcome of a waiter that completed as {@code completion}. */
    static WaitOutcome of(Completion completion) {
        return switch (completion) {
            case COMPLETED -> REACHED;
            case EXPIRED -> TIMED_OUT;
            case CLOSED -> CLOSED;
            case CANCELLED -> CANCELLED;
        };
    }
}

package io.purgatory;

/**
 * How a {@link DelayedOperation} completed: read it with {@link DelayedOperation#completion()}, for
 * example in {@code onComplete}, to choose the answer. Every operation completes exactly once, so it
 * has exactly one of these, and never changes it. Immutable, hence thread-safe.
 */
public enum Completion {

    /**
     * Its condition was met: {@code tryComplete} or the operation's own code called
     * {@link DelayedOperation#forceComplete()}.
     */
    COMPLETED,

    /**
     * It was cancelled: by {@link DelayedOperation#cancel()} or {@link DelayedOperation#cancel(Object)}, or by
     * {@link DelayedOperationPurgatory#cancelForKey(Object, Object)}; {@link DelayedOperation#cancelReason()}
     * holds the reason given, if any (a deleted topic, say).
     */
    CANCELLED,

    /** Its delay passed first: its timer expired it, and {@code onExpiration} runs after {@code onComplete}. */
    EXPIRED,

    /**
     * Its purgatory closed while it was pending (or it was offered to a closed purgatory): it went
     * through the expiry path, so {@code onExpiration} runs after {@code onComplete} as for
     * {@link #EXPIRED}.
     */
    CLOSED
}
